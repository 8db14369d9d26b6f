/* stax select and stax canon with -j N (cli/select.c, cli/canon.c over
 * stax_parallel_read), in process: the output bytes, the exit status and
 * stderr (the first error with its line, column and offset) are those of
 * -j 1, in every output mode, on the fixtures, generated documents and
 * documents built to fool a splitter, with parts so small that a cut falls
 * at every candidate point. tests/test_parallel.c has the library's side. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../cli/cli.h"
#include "harness.h"

#include <criterion/criterion.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct run_out {
    int rc;
    char *out; /* stdout (may hold NULs: -0) */
    size_t len;
    char err[2048]; /* stderr */
    unsigned again; /* -j reads given up for one thread */
} run_out;

/* One way to run the tool: select with so (NULL: canon), --namespaces or not. */
typedef struct tool_mode {
    const char *what;
    stax_cli_select_opts so;
    int select, namespaces;
} tool_mode;

/* A file written into a pipe by a thread, in pieces of 1 to 3000 bytes. */
typedef struct pipe_writer {
    pthread_t th;
    int fd, in;
} pipe_writer;

static void *pipe_write_all(void *arg) {
    pipe_writer *w = (pipe_writer *)arg;
    char buf[3000];
    uint32_t seed = 7;
    for (;;) {
        seed = seed * 1103515245u + 12345u;
        ssize_t n = read(w->in, buf, 1 + (seed >> 8) % sizeof buf);
        if (n <= 0) break;
        for (ssize_t at = 0; at < n;) {
            ssize_t put = write(w->fd, buf + at, (size_t)(n - at));
            if (put <= 0) goto out; /* the reader stopped early */
            at += put;
        }
    }
out:
    close(w->fd);
    close(w->in);
    return NULL;
}

/* The read end of a pipe the file path is written into. */
static int pipe_from(const char *path, pipe_writer *w) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    w->in = open(path, O_RDONLY);
    cr_assert_geq(w->in, 0, "%s", path);
    w->fd = fds[1];
    cr_assert_eq(pthread_create(&w->th, NULL, pipe_write_all, w), 0);
    return fds[0];
}

/* The end of it: what is left unread drained, the writer joined. */
static void pipe_done(int fd, pipe_writer *w) {
    char buf[4096];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    close(fd);
    pthread_join(w->th, NULL);
}

static run_out run_in(const char *path, const tool_mode *m, int jobs, size_t part, int via_pipe) {
    run_out r;
    memset(&r, 0, sizeof r);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.jobs = jobs;
    o.part_size = part;
    o.namespaces = m->namespaces;
    o.serial_again = &r.again;
    pipe_writer w;
    int fd = via_pipe ? pipe_from(path, &w) : open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    FILE *out = open_memstream(&r.out, &r.len);
    cr_assert_not_null(out);
    stax_test_stderr err = stax_test_stderr_begin();
    r.rc = m->select ? stax_cmd_select(&o, &m->so, fd, out) : stax_cmd_canon(&o, fd, out);
    stax_test_stderr_end(&err, r.err, sizeof r.err);
    if (via_pipe) pipe_done(fd, &w);
    else close(fd);
    fclose(out);
    return r;
}

static run_out run(const char *path, const tool_mode *m, int jobs, size_t part) { return run_in(path, m, jobs, part, 0); }

static const int job_counts[] = {2, 3, 4};
static const size_t all_cuts[] = {1, 2, 3, 7, 16, 64, 4096, 0};

/* -j N for each N and part size (0 ends parts) gives -j 1's run; how many
 * of those runs were given up for one thread. Every other run reads the
 * file from a pipe (the ring of buffers). When the run is not full
 * (harness.h), a sample of the (N, part size) pairs, rotating from one call
 * to the next, so that a test's calls together still take every pair. */
static unsigned same_as_one(const char *path, const tool_mode *m, const size_t *parts) {
    static size_t turn;
    run_out one = run(path, m, 1, 0);
    unsigned again = 0;
    for (size_t j = 0; j < sizeof job_counts / sizeof job_counts[0]; j++)
        for (size_t p = 0; parts[p]; p++) {
            int via_pipe = (int)((turn / STAX_TEST_SAMPLE_STEP + turn) & 1);
            if (!stax_test_sampled(turn++)) continue;
            run_out r = run_in(path, m, job_counts[j], parts[p], via_pipe);
#define AT "-j %d --part-size %zu: %s on %s%s", job_counts[j], parts[p], m->what, path, via_pipe ? " (a pipe)" : ""
            cr_assert_eq(r.rc, one.rc, AT);
            cr_assert_str_eq(r.err, one.err, AT);
#undef AT
            cr_assert(r.len == one.len && memcmp(r.out, one.out, r.len) == 0, "-j %d --part-size %zu: %s on %s%s:\n%.*s\nwant:\n%.*s",
                      job_counts[j], parts[p], m->what, path, via_pipe ? " (a pipe)" : "", (int)r.len, r.out, (int)one.len,
                      one.out);
            again += r.again;
            free(r.out);
        }
    free(one.out);
    return again;
}

static tool_mode sel(const char *what, const char *path) {
    tool_mode m;
    memset(&m, 0, sizeof m);
    m.what = what;
    m.select = 1;
    m.so.path = path;
    return m;
}

/* The output modes on paths that fit any document: records one level
 * below the root, every attribute, text nodes, positions, open matches. */
static size_t generic_modes(tool_mode *m) {
    size_t n = 0;
    m[n++] = sel("canon", NULL);
    m[n - 1].select = 0;
    m[n++] = sel("/*/*", "/*/*");
    m[n++] = sel("//@*", "//@*");
    m[n++] = sel("//text()", "//text()");
    m[n++] = sel("/*/*[2]", "/*/*[2]");
    m[n++] = sel("//* (open across every cut)", "//*");
    m[n++] = sel("-0 /*/*/*", "/*/*/*");
    m[n - 1].so.nul = 1;
    m[n++] = sel("--count /*/*|//@*", "/*/*|//@*");
    m[n - 1].so.count = 1;
    m[n++] = sel("--xml /*/*", "/*/*");
    m[n - 1].so.xml = 1;
    m[n++] = sel("--csv @*,text() /*/*", "/*/*");
    m[n - 1].so.csv = "@*,text()";
    m[n - 1].so.header = 1;
    m[n++] = sel("--first 2 /*/*", "/*/*");
    m[n - 1].so.first = 2;
    m[n++] = sel("--namespaces --xml /*/*", "/*/*");
    m[n - 1].so.xml = 1;
    m[n - 1].namespaces = 1;
    m[n++] = sel("--json //* (open across every cut)", "//*");
    m[n - 1].so.json = 1;
    m[n++] = sel("--json=@*,text() --arrays /*/*", "/*/*");
    m[n - 1].so.json = 1;
    m[n - 1].so.json_columns = "@*,text()";
    m[n - 1].so.arrays = 1;
    return n;
}

/* A temporary directory for one file: dir (a mkdtemp template) made, path
 * set to dir/name; temp_done removes both. */
static void temp_file(char *dir, char *path, size_t cap, const char *name) {
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, cap, "%s/%s", dir, name);
}

static void temp_done(const char *dir, const char *path) {
    unlink(path);
    rmdir(dir);
}

static void write_file(const char *path, const char *doc, size_t len) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(doc, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* b into path, and b freed. */
static void write_buf(const char *path, stax_test_buf *b) {
    write_file(path, b->p, b->len);
    stax_test_buf_free(b);
}

Test(parallel_cli, fixtures, .timeout = 900) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx);
    tool_mode modes[16];
    size_t nm = generic_modes(modes);
    char path[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "fixtures/%s", fx[i].name);
        /* under the sanitizers and qemu a fourth: each mode on every 4th fixture */
        for (size_t k = 0; k < nm; k++)
            if (stax_test_sampled(i + k)) same_as_one(path, &modes[k], all_cuts);
    }
    stax_test_free_fixtures(fx, n);
}

/* Documents built to fool a splitter, each with the generic modes and its own paths. */
static const struct {
    const char *doc, *path;
} fooling[] = {
    {"<r><a>1</a><!-- <a>2</a> <a>3</a> -- <a>4</a> --><a>5</a></r>", "//a"},
    {"<r><a v='<a>x</a>'>1</a><![CDATA[<a>x</a>]]><?p <a>?><a>3</a><a v=\"&lt;a>\">4</a></r>", "//a/@v"},
    {"<!DOCTYPE r [<!ENTITY e '<a>e</a><a>f</a>'><?pi in the subset?>]><r><a>1</a>&e;<a>2</a>&e;<a>3</a></r>", "//a"},
    {"<r xmlns='urn:r' xmlns:p='urn:p'><a>1</a><a xmlns:q='urn:q'><q:b/></a><p:a>2</p:a><a>3</a></r>", "//a"},
    {"<r><a>1<a>2<a>3</a></a></a><a>4</a><b><a>5</a></b></r>", "//a"},
    {"<r><g k='1'><a>1</a><a>2</a></g><g k='2'><a>3</a><a>4</a></g></r>", "//g[@k='2']/a"},
    {"<r><g><a>1</a><a>2</a></g><g><a>3</a><a>4</a></g></r>", "//a[1]"},
    {"<r><a>1</a><a>2</a><a>3\xff</a><a>4</a><a>5<</a></r>", "//a"},
    {"<r><a>1</a><a>2&bad;</a><a>3</a></r>", "//a"},
    {"<r><a>1</a><a>2</a></r><a>3</a>", "//a"},
    {"<r><a>1</a>text <b>at</b> the root's level<a>2</a></r>", "/r/text()"},
};

Test(parallel_cli, documents_that_fool_a_splitter, .timeout = 900) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "doc.xml");
    tool_mode modes[16];
    size_t nm = generic_modes(modes);
    for (size_t i = 0; i < sizeof fooling / sizeof fooling[0]; i++) {
        write_file(path, fooling[i].doc, strlen(fooling[i].doc));
        for (size_t k = 0; k < nm; k++) same_as_one(path, &modes[k], all_cuts);
        tool_mode own = sel(fooling[i].path, fooling[i].path);
        same_as_one(path, &own, all_cuts);
        own.so.xml = 1;
        same_as_one(path, &own, all_cuts);
    }
    /* one giant text node */
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<r>");
    while (b.len < 20000) stax_test_buf_puts(&b, "text &amp; <![CDATA[<a>]]> more ");
    stax_test_buf_puts(&b, "</r>");
    write_buf(path, &b);
    static const size_t cuts[] = {1, 7, 1000, 0};
    for (size_t k = 0; k < nm; k++) same_as_one(path, &modes[k], cuts);
    temp_done(dir, path);
}

/* A record-like document is read in parts without giving up, in every
 * output mode but the one whose match is open across the cuts (records
 * shorter than the parts: a cut inside a record that matched gives up). */
Test(parallel_cli, records_stay_in_parts) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "records.xml");
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<?xml version='1.0'?>\n<db version='1'>\n");
    for (int i = 0; i < 300; i++) {
        char rec[128];
        snprintf(rec, sizeof rec, "  <rec id='%d'><name>n%d &amp; co</name><v>%d</v></rec>\n", i, i, i * 7);
        stax_test_buf_puts(&b, rec);
    }
    stax_test_buf_puts(&b, "</db>\n");
    write_buf(path, &b);
    static const size_t cuts[] = {200, 1000, 0}; /* a record in every window a cut is looked for in */
    tool_mode m[8];
    size_t n = 0;
    m[n++] = sel("//rec/name", "//rec/name");
    m[n++] = sel("--xml //rec", "//rec");
    m[n - 1].so.xml = 1;
    m[n++] = sel("--csv @id,name //rec", "//rec");
    m[n - 1].so.csv = "@id,name";
    m[n++] = sel("--json=@id,name --arrays //rec", "//rec");
    m[n - 1].so.json = 1;
    m[n - 1].so.json_columns = "@id,name";
    m[n - 1].so.arrays = 1;
    m[n++] = sel("--count //v", "//v");
    m[n - 1].so.count = 1;
    m[n++] = sel("--first 7 //rec/@id", "//rec/@id");
    m[n - 1].so.first = 7;
    m[n++] = sel("canon", NULL);
    m[n - 1].select = 0;
    for (size_t k = 0; k < n; k++) cr_assert_eq(same_as_one(path, &m[k], cuts), 0, "%s was read again", m[k].what);
    /* open across every cut: each part is read again after the one before
     * (STAX_CLI_AGAIN), its select going on with that part's, never given up */
    tool_mode open_match = sel("/db", "/db");
    cr_assert_eq(same_as_one(path, &open_match, cuts), 0, "/db was given up for one thread");
    open_match = sel("--json=.//name|@version --arrays /db", "/db"); /* an array open across the cuts */
    open_match.so.json = 1;
    open_match.so.json_columns = ".//name|@version";
    open_match.so.arrays = 1;
    cr_assert_eq(same_as_one(path, &open_match, cuts), 0, "%s was given up for one thread", open_match.what);
    open_match = sel("--json /db", "/db"); /* a string open across the cuts */
    open_match.so.json = 1;
    cr_assert_eq(same_as_one(path, &open_match, cuts), 0, "%s was given up for one thread", open_match.what);
    temp_done(dir, path);
}

/* From a pipe, /r (a match open across every cut) is read part after part,
 * each going on with the select of the one before: never given up, however
 * few bytes are kept. /r|//b with a --max-held whose quarter a part's select
 * exceeds (b's values held until /r ends), the read is given up for one thread and read
 * again from the bytes kept while they are at most as many as the buffers
 * hold (1 MiB at least); past that it cannot be, and says so (here with
 * fewer kept than the parts read by then). */
static void given_up(size_t keep, int held) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "values.xml");
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<r>\n");
    while (b.len < (1u << 19)) stax_test_buf_puts(&b, "<a><b>a value</b></a>\n");
    stax_test_buf_puts(&b, "</r>\n");
    write_buf(path, &b);
    /* with //b too, b's values are held until /r ends (in document order) */
    tool_mode m = held ? sel("/r|//b", "/r|//b") : sel("/r", "/r");
    /* the least power of two --max-held the serial read fits in: more than a
     * quarter of it is held by the end, whatever the word size (the held
     * bookkeeping is smaller on 32-bit targets), so a part's select, which
     * may hold a quarter, cannot hold it all */
    size_t max_held = held ? (size_t)256 << 10 : 0;
    m.so.max_held = max_held;
    run_out one = run(path, &m, 1, 0);
    while (held && one.rc != 0 && max_held < ((size_t)64 << 20)) {
        free(one.out);
        m.so.max_held = max_held *= 2;
        one = run(path, &m, 1, 0);
    }
    cr_assert_eq(one.rc, 0, "%s", one.err);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.jobs = 2;
    o.part_size = 4096;
    o.pipe_keep = keep;
    unsigned again = 0;
    o.serial_again = &again;
    pipe_writer w;
    int fd = pipe_from(path, &w);
    char *out = NULL, err[2048];
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert_not_null(f);
    stax_test_stderr e = stax_test_stderr_begin();
    int rc = stax_cmd_select(&o, &m.so, fd, f);
    stax_test_stderr_end(&e, err, sizeof err);
    pipe_done(fd, &w);
    fclose(f);
    cr_assert_eq(again, max_held != 0, "%u", again);
    if (!keep || !max_held) {
        cr_assert_eq(rc, 0, "%s", err);
        cr_assert(len == one.len && memcmp(out, one.out, one.len) == 0);
    } else {
        cr_assert_eq(rc, 2);
        cr_assert(strstr(err, "cannot be read again; give a file, or -j 1") != NULL, "%s", err);
    }
    free(one.out);
    free(out);
    temp_done(dir, path);
}

Test(parallel_cli, pipe_open_match_never_given_up) { given_up(10000, 0); }
Test(parallel_cli, pipe_given_up_read_again) { given_up(0, 1); }
Test(parallel_cli, pipe_given_up_past_what_is_kept) { given_up(10000, 1); }

/* A limit of the select is the serial one's (message, position, status). */
Test(parallel_cli, select_limits) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "held.xml");
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<r>");
    for (int i = 0; i < 100; i++) stax_test_buf_puts(&b, "<a><b>a value</b></a>");
    stax_test_buf_puts(&b, "<a><b>");
    for (int i = 0; i < 100; i++) stax_test_buf_puts(&b, "a longer value ");
    stax_test_buf_puts(&b, "</b></a></r>");
    write_buf(path, &b);
    tool_mode m = sel("--csv b --max-held 600 //a", "//a");
    m.so.csv = "b";
    m.so.max_held = 600;
    run_out one = run(path, &m, 1, 0);
    cr_assert_eq(one.rc, 2, "%s", one.err);
    free(one.out);
    static const size_t cuts[] = {1, 64, 0};
    same_as_one(path, &m, cuts);
    temp_done(dir, path);
}

/* As grep, with -j N as with -j 1: exit status 1 when nothing is selected,
 * 2 for a document that is not well-formed (canon: 1), in every output form. */
Test(parallel_cli, exit_status_as_grep) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "records.xml");
    for (int bad = 0; bad < 2; bad++) {
        stax_test_buf b = {0};
        stax_test_buf_puts(&b, "<db>\n");
        for (int i = 0; i < 200; i++) stax_test_buf_puts(&b, "  <rec id='1'><name>n</name></rec>\n");
        stax_test_buf_puts(&b, bad ? "<rec>" : "</db>\n");
        write_buf(path, &b);
        tool_mode m[8];
        size_t n = 0;
        m[n++] = sel("//nothing", "//nothing");
        m[n++] = sel("--xml //rec/@nothing", "//rec/@nothing");
        m[n - 1].so.xml = 1;
        m[n++] = sel("--csv name --header //nothing", "//nothing");
        m[n - 1].so.csv = "name";
        m[n - 1].so.header = 1;
        m[n++] = sel("--count //nothing|//rec/nothing", "//nothing|//rec/nothing");
        m[n - 1].so.count = 1;
        m[n++] = sel("--first 2 //nothing", "//nothing");
        m[n - 1].so.first = 2;
        m[n++] = sel("-0 //name/text()", "//name/text()"); /* something */
        m[n - 1].so.nul = 1;
        m[n++] = sel("canon", NULL);
        m[n - 1].select = 0;
        static const size_t cuts[] = {1, 64, 1000, 0};
        for (size_t k = 0; k < n; k++) {
            run_out one = run(path, &m[k], 1, 0);
            int want = !m[k].select ? bad : bad ? 2 : m[k].so.nul ? 0 : 1;
            cr_assert_eq(one.rc, want, "%s%s: %s", m[k].what, bad ? " (not well-formed)" : "", one.err);
            free(one.out);
            same_as_one(path, &m[k], cuts);
        }
    }
    temp_done(dir, path);
}

/* build/gen's document of a shape, 256 KiB, into path. */
static void generated(const char *shape, const char *path) {
    char cmd[512], ok[8];
    snprintf(cmd, sizeof cmd, "build/gen -s %s 0.25 7 > %s && echo ok", shape, path);
    cr_assert_eq(stax_test_shell(cmd, ok, sizeof ok), 0, "%s failed", cmd);
}

Test(parallel_cli, generated_shapes, .timeout = 900) {
    static const char *shapes[] = {"mixed-dump", "record", "attrs", "text", "deep", "mixed", "nonascii"};
    if (access("build/gen", X_OK) != 0) cr_skip_test("build/gen not built (make build/gen)");
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "shape.xml");
    /* (cuts at every candidate point are the smaller documents' tests: 256 KiB in 61-byte parts, in
     * every mode, took more than 15 minutes under ASan on the loaded 2-core machine) */
    static const size_t cuts[] = {997, 16384, 0};
    tool_mode modes[16];
    size_t nm = generic_modes(modes);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        generated(shapes[i], path);
        for (size_t k = 0; k < nm; k++) /* sampled as in fixtures */
            if (stax_test_sampled(i + k)) same_as_one(path, &modes[k], cuts);
    }
    generated("mixed-dump", path);
    tool_mode m[4];
    m[0] = sel("//page/title", "//page/title");
    m[1] = sel("--csv title,id //page", "//page");
    m[1].so.csv = "title,id";
    m[2] = sel("--xml //contributor", "//contributor");
    m[2].so.xml = 1;
    m[3] = sel("--namespaces -N d=urn:stax:bench //d:page/d:id", "//d:page/d:id");
    static const char *bind[] = {"d=urn:stax:bench"};
    m[3].so.ns = bind;
    m[3].so.ns_count = 1;
    m[3].namespaces = 1;
    for (size_t k = 0; k < 4; k++) same_as_one(path, &m[k], cuts);
    temp_done(dir, path);
}

/* ---------------------------------------------------------------- --part K/N and stax merge */

typedef struct merged {
    int rc;
    char *out;
    size_t len;
    char err[2048];
    unsigned rereads;
} merged;

/* check (count 0) or count of path, serially. */
static merged serial_run(const char *path, int count, int ns) {
    merged m;
    memset(&m, 0, sizeof m);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.namespaces = ns;
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    FILE *out = open_memstream(&m.out, &m.len);
    stax_test_stderr err = stax_test_stderr_begin();
    m.rc = count ? stax_cmd_count(&o, fd, out) : stax_cmd_check(&o, fd);
    stax_test_stderr_end(&err, m.err, sizeof m.err);
    fclose(out);
    close(fd);
    return m;
}

/* ---------------------------------------------------------------- the pages of a mapped file */

/* A field of /proc/self/status in KiB (VmRSS, VmHWM); -1 without it. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n) && line[n] == ':') v = strtol(line + n + 1, NULL, 10);
    if (f) fclose(f);
    return v;
}

/* The high-water mark of the resident set set back to the current one
 * (Linux: 5 into /proc/self/clear_refs); 0 when it cannot be. */
static int peak_reset(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* stax count -j jobs --part-size part of path, in process: its output in
 * *m, and the KiB its run added to the resident set at its peak. */
static long count_peak(const char *path, int jobs, size_t part, merged *m) {
    memset(m, 0, sizeof *m);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.jobs = jobs;
    o.part_size = part;
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    FILE *out = open_memstream(&m->out, &m->len);
    cr_assert_not_null(out);
    cr_assert(peak_reset());
    long before = status_kib("VmRSS");
    m->rc = stax_cmd_count(&o, fd, out);
    long peak = status_kib("VmHWM");
    fclose(out);
    close(fd);
    return peak - before;
}

/* -j maps a regular file and gives back the pages behind each reader: a
 * part longer than its window (a text run read on to the next cut, or a
 * document with no cut at all) holds about a window of the map, never the
 * whole run, so that the resident set stays about (threads + 2) parts. */
Test(parallel_cli, mapped_file_pages_given_back, .timeout = 300) {
#if defined(__SANITIZE_THREAD__)
    cr_skip_test("ThreadSanitizer's shadow grows with every byte read");
#endif
    if (!peak_reset() || status_kib("VmHWM") < 0) cr_skip_test("no /proc/self/clear_refs or VmHWM to measure with");
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "text.xml");
    const size_t mib = (size_t)1 << 20, part = mib, run = 32 * mib;
    static char text[65536];
    memset(text, 'a', sizeof text);
    for (int doc = 0; doc < 2; doc++) {
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        /* one text node; then records, a text run, records (parts empty in between) */
        fputs("<r>", f);
        for (int i = 0; doc && i < 40000; i++) fprintf(f, "<rec id='%d'><v>%d</v></rec>\n", i, i);
        for (size_t n = 0; n < run; n += sizeof text) cr_assert_eq(fwrite(text, 1, sizeof text, f), sizeof text);
        for (int i = 0; doc && i < 40000; i++) fprintf(f, "<rec id='%d'><v>%d</v></rec>\n", i, i);
        fputs("</r>\n", f);
        cr_assert_eq(fclose(f), 0);
        merged one = serial_run(path, 1, 0);
        cr_assert_eq(one.rc, 0, "%s", one.err);
        for (int jobs = 2; jobs <= 3; jobs++) {
            merged m;
            long kib = count_peak(path, jobs, part, &m), bound = (long)((jobs + 2) * part + 6 * mib) / 1024;
            cr_assert_eq(m.rc, 0);
            cr_assert(m.len == one.len && !memcmp(m.out, one.out, m.len), "-j %d: %.*s, want %.*s", jobs, (int)m.len, m.out,
                      (int)one.len, one.out);
            cr_assert_leq(kib, bound, "document %d, -j %d: %ld KiB at the peak, more than %ld (a text run of %zu MiB)", doc, jobs,
                          kib, bound, run >> 20);
            free(m.out);
        }
        free(one.out);
    }
    temp_done(dir, path);
}

/* Range k of n of path, as --part k/n writes it, into rec (count 0: check). */
static void write_part(const char *path, const char *rec, int count, int ns, unsigned k, unsigned n) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.namespaces = ns;
    o.part_k = k;
    o.part_n = n;
    o.part_out = fopen(rec, "wb");
    cr_assert_not_null(o.part_out);
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    int rc = count ? stax_cmd_count(&o, fd, NULL) : stax_cmd_check(&o, fd); /* a part record, no counts printed */
    cr_assert_eq(rc, 0, "%s --part %u/%u exited %d", path, k, n, rc);
    cr_assert_eq(fclose(o.part_out), 0);
    close(fd);
}

/* stax merge path over parts[0, n): its exit code, stdout into m->out (when
 * out is NULL; else to out) and stderr into m->err. */
static void merge_into(merged *m, const char *path, char *const *parts, size_t n, FILE *out) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = path;
    o.rereads = &m->rereads;
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    FILE *mine = out ? NULL : open_memstream(&m->out, &m->len);
    stax_test_stderr err = stax_test_stderr_begin();
    m->rc = stax_cmd_merge(&o, fd, parts, n, out ? out : mine);
    stax_test_stderr_end(&err, m->err, sizeof m->err);
    if (mine) fclose(mine);
    close(fd);
}

/* The n range readers of path, each as --part K/n writes it, into dir/p.K;
 * then stax merge over them, given in reverse order (merge sorts them by K). */
static merged part_run(const char *dir, const char *path, int count, int ns, unsigned n) {
    char **names = calloc(n, sizeof *names);
    cr_assert_not_null(names);
    for (unsigned k = 0; k < n; k++) {
        names[n - 1 - k] = malloc(600);
        snprintf(names[n - 1 - k], 600, "%s/p.%u", dir, k);
        write_part(path, names[n - 1 - k], count, ns, k, n);
    }
    merged m;
    memset(&m, 0, sizeof m);
    merge_into(&m, path, names, n, NULL);
    for (unsigned k = 0; k < n; k++) {
        unlink(names[k]);
        free(names[k]);
    }
    free(names);
    return m;
}

/* Merged ranges give the serial result for check and count at each n; the
 * ranges read again, in all. */
static unsigned parts_same(const char *path, const unsigned *ns_list, size_t nn, int ns) {
    char dir[] = "/tmp/stax-part-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    unsigned again = 0;
    for (int count = 0; count < 2; count++) {
        merged one = serial_run(path, count, ns);
        for (size_t i = 0; i < nn; i++) {
            merged m = part_run(dir, path, count, ns, ns_list[i]);
            cr_assert_eq(m.rc, one.rc, "%s %s, %u parts: exit %d, serially %d (%s)", path, count ? "count" : "check",
                         ns_list[i], m.rc, one.rc, m.err);
            cr_assert_str_eq(m.err, one.err, "%s, %u parts", path, ns_list[i]);
            cr_assert(m.len == one.len && !memcmp(m.out, one.out, m.len), "%s %u parts: '%.*s' serially '%.*s'", path,
                      ns_list[i], (int)m.len, m.out, (int)one.len, one.out);
            again += m.rereads;
            free(m.out);
        }
        free(one.out);
    }
    rmdir(dir);
    return again;
}

static const unsigned part_counts[] = {1, 2, 3, 7, 16, 64};

Test(parallel_cli, parts_fixtures, .timeout = 900) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx);
    char path[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "fixtures/%s", fx[i].name);
        parts_same(path, part_counts, sizeof part_counts / sizeof part_counts[0], 0);
        parts_same(path, part_counts + 2, 1, 1);
    }
    stax_test_free_fixtures(fx, n);
}

/* A range per few bytes: a cut at nearly every candidate point. */
Test(parallel_cli, parts_documents_that_fool_a_splitter, .timeout = 900) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "doc.xml");
    unsigned many[40];
    for (unsigned i = 0; i < 40; i++) many[i] = i + 1;
    for (size_t i = 0; i < sizeof fooling / sizeof fooling[0]; i++) {
        write_file(path, fooling[i].doc, strlen(fooling[i].doc));
        parts_same(path, many, 40, 0);
        parts_same(path, many, 12, 1);
    }
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<r>");
    while (b.len < 20000) stax_test_buf_puts(&b, "text &amp; <![CDATA[<a>]]> more ");
    stax_test_buf_puts(&b, "</r>");
    write_buf(path, &b);
    parts_same(path, part_counts, sizeof part_counts / sizeof part_counts[0], 0);
    write_file(path, "", 0);
    parts_same(path, part_counts, 3, 0);
    temp_done(dir, path);
}

Test(parallel_cli, parts_generated_shapes, .timeout = 900) {
    static const char *shapes[] = {"mixed-dump", "record", "attrs", "text", "deep", "mixed", "nonascii"};
    if (access("build/gen", X_OK) != 0) cr_skip_test("build/gen not built (make build/gen)");
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "shape.xml");
    static const unsigned n[] = {2, 7, 64};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        generated(shapes[i], path);
        parts_same(path, n, 3, 0);
    }
    generated("mixed-dump", path);
    parts_same(path, n + 1, 1, 1);
    temp_done(dir, path);
}

/* Records of one depth: every range's guess is right, none is read again. */
Test(parallel_cli, parts_records_are_not_read_again) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512];
    temp_file(dir, path, sizeof path, "doc.xml");
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<?xml version='1.0'?>\n<!DOCTYPE db [<!ENTITY co 'ACME'>]>\n<db>\n");
    for (int i = 0; b.len < 200000; i++) {
        char rec[128];
        snprintf(rec, sizeof rec, "  <rec id='%d'><name>n&amp;%d</name><v>%d</v></rec>\n", i, i, i * 7);
        stax_test_buf_puts(&b, rec);
    }
    stax_test_buf_puts(&b, "</db>\n");
    write_buf(path, &b);
    static const unsigned n[] = {2, 8, 33};
    cr_assert_eq(parts_same(path, n, 3, 0), 0, "ranges were read again");
    cr_assert_eq(parts_same(path, n, 3, 1), 0, "ranges were read again (--namespaces)");
    temp_done(dir, path);
}

/* stax merge refuses what is not the N part records of one read of this file. */
Test(parallel_cli, merge_refusals) {
    char dir[] = "/tmp/stax-parallel-cli-XXXXXX", path[512], other[600], p[3][600];
    temp_file(dir, path, sizeof path, "doc.xml");
    snprintf(other, sizeof other, "%s/other.xml", dir);
    const char *doc = "<r><a>1</a><a>2</a><a>3</a><a>4</a><a>5</a><a>6</a></r>";
    write_file(path, doc, strlen(doc));
    write_file(other, "<r><a>1</a><a>2</a></r>", 23);
    for (unsigned k = 0; k < 3; k++) {
        snprintf(p[k], sizeof p[k], "%s/p.%u", dir, k);
        write_part(path, p[k], 1, 0, k, 3);
    }
    char *all[3] = {p[0], p[1], p[2]}, *twice[3] = {p[0], p[1], p[1]};
    unsigned char *rec;
    size_t len;
    cr_assert_null(stax_cli_read_file(p[1], &rec, &len));
    struct {
        const char *doc;
        char **parts;
        size_t n;
        const char *says;
    } cases[] = {
        {path, all, 2, "but 2 part records were given"},
        {path, twice, 3, "part 1 again"},
        {other, all, 3, "is not the file the parts read"},
    };
    FILE *null = fopen("/dev/null", "w");
    merged m;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&m, 0, sizeof m);
        merge_into(&m, cases[i].doc, cases[i].parts, cases[i].n, null);
        cr_assert_eq(m.rc, 2, "case %zu", i);
        cr_assert(strstr(m.err, cases[i].says), "case %zu: %s", i, m.err);
    }
    /* every byte of a record flipped, and every truncation: refused, never trusted */
    for (size_t at = 0; at < len; at++) {
        for (int flip = 0; flip < 2; flip++) {
            FILE *f = fopen(p[1], "wb");
            if (flip) rec[at] ^= 0x20;
            fwrite(rec, 1, flip ? len : at, f);
            if (flip) rec[at] ^= 0x20;
            fclose(f);
            memset(&m, 0, sizeof m);
            merge_into(&m, path, all, 3, null);
            cr_assert_eq(m.rc, 2, "byte %zu %s: exit %d", at, flip ? "flipped" : "cut", m.rc);
            cr_assert(strstr(m.err, "p.1: "), "byte %zu: %s", at, m.err);
        }
    }
    /* every truncation sealed again (its checksum right): the fields are
     * checked against the bytes there are, and refused */
    for (size_t at = 12; at + 8 < len; at++) {
        unsigned char *cut = malloc(at + 8);
        memcpy(cut, rec, at);
        stax_cli_put(cut + at, stax_cli_fnv(cut, at), 8);
        FILE *f = fopen(p[1], "wb");
        fwrite(cut, 1, at + 8, f);
        fclose(f);
        free(cut);
        memset(&m, 0, sizeof m);
        merge_into(&m, path, all, 3, null);
        cr_assert_eq(m.rc, 2, "cut at %zu and sealed: exit %d", at, m.rc);
        cr_assert(strstr(m.err, "p.1: the part record is malformed"), "cut at %zu: %s", at, m.err);
    }
    fclose(null);
    free(rec);
    for (unsigned k = 0; k < 3; k++) unlink(p[k]);
    unlink(other);
    temp_done(dir, path);
}
