/* The `stax` tool's subcommands, in process: exit codes (0 well-formed, 1 not,
 * 2 for resource or I/O trouble), the FILE:LINE:COL: message format on
 * stderr, count's and canon's output, and output independent of --chunk. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../cli/cli.h"
#include "harness.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A file descriptor reading doc (a temporary file: any size). */
static int doc_fd(const char *doc) {
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    size_t n = strlen(doc);
    cr_assert_eq(fwrite(doc, 1, n, f), n);
    fflush(f);
    int fd = dup(fileno(f));
    fclose(f);
    cr_assert(fd >= 0);
    cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

typedef struct run {
    int rc;
    char out[65536], err[4096];
} run;

/* Run a subcommand (select: with so) on doc with stdout to a buffer and
 * stderr captured. */
static run cmd_opts(const char *which, const stax_cli_opts *o, const stax_cli_select_opts *so, const char *doc) {
    static run r; /* large: not on the stack */
    memset(&r, 0, sizeof r);
    FILE *out = fmemopen(r.out, sizeof r.out - 1, "w");
    cr_assert_not_null(out);
    fflush(stderr);
    int saved = dup(2);
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    dup2(fileno(err), 2);
    int fd = doc_fd(doc);
    if (!strcmp(which, "check")) r.rc = stax_cmd_check(o, fd);
    else if (!strcmp(which, "count")) r.rc = stax_cmd_count(o, fd, out);
    else if (!strcmp(which, "select")) r.rc = stax_cmd_select(o, so, fd, out);
    else r.rc = stax_cmd_canon(o, fd, out);
    close(fd);
    fclose(out);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(err);
    size_t n = fread(r.err, 1, sizeof r.err - 1, err);
    r.err[n] = '\0';
    fclose(err);
    return r;
}

static run cmd(const char *which, const char *doc, size_t chunk, size_t memory) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.chunk = chunk;
    o.memory = memory;
    o.name = "doc.xml";
    return cmd_opts(which, &o, NULL, doc);
}

Test(cli, check_exit_codes_and_message_format) {
    run ok = cmd("check", "<a><b/></a>", 0, 0);
    cr_assert_eq(ok.rc, 0);
    cr_assert_str_eq(ok.out, "");
    cr_assert_str_eq(ok.err, "");
    run bad = cmd("check", "<a>\n<b>x</c></a>", 0, 0);
    cr_assert_eq(bad.rc, 1);
    cr_assert_str_eq(bad.err, "doc.xml:2:5: end tag 'c' does not match start tag 'b' (byte 8)\n");
    run trunc = cmd("check", "<a>", 0, 0);
    cr_assert_eq(trunc.rc, 1);
    cr_assert_str_eq(trunc.err, "doc.xml:1:4: the input ends inside element 'a' (byte 3)\n");
}

Test(cli, count_output) {
    run r = cmd("count", "<a x='1'><b y='2' z='3'/>t<![CDATA[c]]><!--k--><?p?></a>", 0, 0);
    cr_assert_eq(r.rc, 0);
    cr_assert_str_eq(r.out, "elements=2 attributes=3 text=1 cdata=1 comments=1 pis=1 text_bytes=2\n");
}

Test(cli, canon_output_does_not_depend_on_chunk) {
    static const char doc[] = "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e 'E'>]><r b='2' a='1'>&e;&#9;<![CDATA[<]]><!--x--><?p d?></r>";
    static const char want[] = "<r a=\"1\" b=\"2\">E&#9;&lt;<?p d?></r>";
    for (size_t chunk = 1; chunk <= 8; chunk++) {
        run r = cmd("canon", doc, chunk, 0);
        cr_assert_eq(r.rc, 0, "chunk %zu: %s", chunk, r.err);
        cr_assert_str_eq(r.out, want, "chunk %zu", chunk);
    }
    run whole = cmd("canon", doc, 0, 0);
    cr_assert_str_eq(whole.out, want);
}

Test(cli, memory_trouble_exits_2_and_limits_exit_1) {
    /* a fixed block below the reader's minimum: no reader at all, exit 2 */
    run r = cmd("check", "<a/>", 0, 1000);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "--memory") != NULL, "%s", r.err);
    /* a 64 KiB block: max_token defaults to a quarter of it; a longer tag is
     * a limit of the document (exit 1), reported at its '<' */
    char *doc = malloc(40000);
    cr_assert_not_null(doc);
    strcpy(doc, "<a>\n<b c='");
    memset(doc + 10, 'y', 30000);
    strcpy(doc + 30010, "'/></a>");
    run s = cmd("check", doc, 0, 65536);
    free(doc);
    cr_assert_eq(s.rc, 1, "%s", s.err);
    cr_assert(strncmp(s.err, "doc.xml:2:1: ", 13) == 0, "%s", s.err);
}

/* ================================================================ stax select */

static run sel(const char *doc, const char *path, const char *opts) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "doc.xml";
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = path;
    static const char *ns[4];
    /* opts: letters for the flags, as the tests below need them */
    for (const char *p = opts; *p; p++) {
        switch (*p) {
        case 'x': so.xml = 1; break;
        case 'c': so.count = 1; break;
        case '0': so.nul = 1; break;
        case 'n': o.namespaces = 1; break;
        case '1': so.first = 1; break;
        case '2': so.first = 2; break;
        case 'h': so.max_held = 64; break;
        case 'N':
            ns[so.ns_count++] = "b=urn:b";
            so.ns = ns;
            o.namespaces = 1;
            break;
        case 'k': o.chunk = 1; break;
        case 'm': o.memory = 64 * 1024; break;
        default: cr_assert_fail("option letter %c", *p);
        }
    }
    return cmd_opts("select", &o, &so, doc);
}

static run sel_csv(const char *doc, const char *path, const char *columns, size_t chunk) {
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "doc.xml";
    o.chunk = chunk;
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = path;
    so.csv = columns;
    return cmd_opts("select", &o, &so, doc);
}

static const char sel_doc[] = "<r><a id='1'>x<b>y</b></a><a id='2'>z</a><c>w</c></r>";

Test(cli, select_prints_values_one_a_line) {
    run r = sel(sel_doc, "//a", "");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "xy\nz\n");
    cr_assert_str_eq(r.err, "");
    r = sel(sel_doc, "//a/@id|//b", "k");
    cr_assert_str_eq(r.out, "1\ny\n2\n");
}

Test(cli, select_nul_separated) {
    run r = sel("<r><a>1\n2</a><a>3</a></r>", "//a", "0");
    cr_assert_eq(r.rc, 0);
    cr_assert_eq(memcmp(r.out, "1\n2\0003\000", 6), 0);
}

Test(cli, select_xml) {
    run r = sel("<r><a id='1'>x&amp;<b/></a></r>", "//a|//@id", "x");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "<a id=\"1\">x&amp;<b/></a>\nid=\"1\"\n");
}

Test(cli, select_count_per_path) {
    run r = sel(sel_doc, "//a|//b|//nothing|//a/@id", "c");
    cr_assert_eq(r.rc, 0);
    cr_assert_str_eq(r.out, "2\n1\n0\n2\n");
}

Test(cli, select_first_n_stops_reading) {
    /* the document is broken after the second a: never read */
    run r = sel("<r><a>1</a><a>2</a><a>3</a></b>", "//a", "2");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "1\n2\n");
    r = sel("<r><a>1</a><a>2</a><a>3</a></b>", "//a", "");
    cr_assert_eq(r.rc, 2); /* not well-formed: an error, though something was selected */
    cr_assert_str_eq(r.out, "1\n2\n3\n");
    cr_assert(strstr(r.err, "doc.xml:1:28: end tag 'b' does not match"), "%s", r.err);
    r = sel("<r><a>1</a><a>2</a></b>", "//a", "c1");
    cr_assert_eq(r.rc, 0);
    cr_assert_str_eq(r.out, "1\n");
}

Test(cli, select_namespaces) {
    const char *doc = "<r xmlns='urn:b'><a>1</a></r>";
    run r = sel(doc, "//b:a", "N");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "1\n");
    r = sel(doc, "//a", "n");
    cr_assert_str_eq(r.out, "");
    r = sel(doc, "//x:a", "n");
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "the prefix 'x' is not bound") && strstr(r.err, "-N prefix=URI"), "%s", r.err);
}

Test(cli, select_refusals_and_bad_usage_exit_2) {
    run r = sel(sel_doc, "//a/following::b", "");
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.err, "stax: select: not supported: the axis 'following::' (child, descendant, self, "
                            "descendant-or-self and attribute are), at character 5 of the path\n");
    r = sel(sel_doc, "//a", "xc");
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "exclude each other"), "%s", r.err);
}

Test(cli, select_held_output_bound) {
    run r = sel("<r><a>aaaaaaaaaa<a>bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb</a></a></r>", "//a", "h");
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "doc.xml:1:20: select: held output exceeds max_held (64 bytes)"), "%s", r.err);
}

Test(cli, select_in_a_fixed_block) {
    run r = sel(sel_doc, "//a", "m");
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "xy\nz\n");
}

Test(cli, select_csv_quotes_per_rfc_4180) {
    const char *doc = "<r><n a='plain' b='com,ma' c='q&quot;uote' d='line&#10;feed' e='cr&#13;' f=' spaced '/>"
                      "<n a='' f='&quot;'/></r>";
    for (size_t chunk = 0; chunk < 4; chunk++) {
        run r = sel_csv(doc, "/r/n", "@a,@b,@c,@d,@e,@f,@missing", chunk);
        cr_assert_eq(r.rc, 0, "%s", r.err);
        cr_assert_str_eq(r.out, "plain,\"com,ma\",\"q\"\"uote\",\"line\nfeed\",\"cr\r\", spaced ,\n"
                                ",,,,,\"\"\"\",\n");
    }
}

/* The quoting test looks at eight bytes at a time (values of 8 to 16 bytes
 * as two words): a special byte at every place of values of every length
 * up to 24, and the bytes just above the specials ('-' is 0x2d, the first
 * byte of the fast test that is not special) and non-ASCII. */
Test(cli, select_csv_quotes_a_special_byte_anywhere_in_a_value) {
    const char specials[] = {',', '"', '\r', '\n'};
    const char *refs[] = {",", "&quot;", "&#13;", "&#10;"};
    for (size_t s = 0; s < 4; s++) {
        for (size_t len = 1, at = 0; len <= 24; at = at + 1 < len ? at + 1 : 0, len += at == 0) {
            char v[160], doc[224], want[64];
            size_t n = 0, w = 0;
            want[w++] = '"';
            for (size_t k = 0; k < len; k++) {
                if (k == at) {
                    n += (size_t)sprintf(v + n, "%s", refs[s]);
                    want[w++] = specials[s];
                    if (specials[s] == '"') want[w++] = '"';
                } else {
                    v[n++] = (char)('-' + k % 3); /* '-', '.', '/' */
                    want[w++] = (char)('-' + k % 3);
                }
            }
            v[n] = '\0';
            memcpy(want + w, "\"\n", 3);
            snprintf(doc, sizeof doc, "<r><n a='%s'/></r>", v);
            run r = sel_csv(doc, "/r/n", "@a", 0);
            cr_assert_eq(r.rc, 0, "%s", r.err);
            cr_assert_str_eq(r.out, want, "special %zu at %zu of %zu", s, at, len);
        }
    }
    const char *plain[] = {"-", "-./0123", "-./01234", "-./0123456789ABCé", "-./0123456789ABCDEFé-./ü"};
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++) {
        char doc[128], want[64];
        snprintf(doc, sizeof doc, "<r><n a='%s'/></r>", plain[k]);
        snprintf(want, sizeof want, "%s\n", plain[k]);
        run r = sel_csv(doc, "/r/n", "@a", 0);
        cr_assert_str_eq(r.out, want);
    }
}

/* The CSV example of issue 12 prints what a program written by hand over the
 * reader prints (tests/examples/select_osm_by_hand.c). */
#define main select_osm_by_hand_main
#include "examples/select_osm_by_hand.c"
#undef main

static char *slurp_file(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s (run the tests from the source tree)", path);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(cli, select_csv_example_equals_the_program_written_by_hand) {
    FILE *in = fopen("fixtures/osm.xml", "rb"), *out = tmpfile();
    cr_assert(in && out);
    cr_assert_eq(osm_csv_by_hand(in, out), 0);
    fclose(in);
    rewind(out);
    static char want[65536];
    size_t n = fread(want, 1, sizeof want - 1, out);
    want[n] = '\0';
    fclose(out);
    cr_assert(strstr(want, "\"Buckingham Palace, London\"") && strstr(want, "\"The \"\"White\"\" Tower\""),
              "the fixture should need quoting: %s", want);
    const char *doc = slurp_file("fixtures/osm.xml");
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        run r = sel_csv(doc, "/osm/node", "@id,@lat,@lon,tag[@k=\"name\"]/@v", stax_test_chunk_sizes[k]);
        cr_assert_eq(r.rc, 0, "%s", r.err);
        cr_assert_str_eq(r.out, want, "chunk %zu", stax_test_chunk_sizes[k]);
    }
}

/* ================================================================ the progress line */

Test(cli, progress_line_text) {
    char line[256];
    stax_cli_progress_line(line, sizeof line, "dump.xml", 512u << 20, 1024u << 20, 2.0);
    cr_assert_str_eq(line, "dump.xml: 512.0 MiB of 1.00 GiB (50%), 256.0 MiB/s, 0:02 left");
    stax_cli_progress_line(line, sizeof line, "-", 3u << 19, 0, 0.5);
    cr_assert_str_eq(line, "-: 1.5 MiB, 3.0 MiB/s");
    stax_cli_progress_line(line, sizeof line, "f", 100u << 10, 100u << 10, 1.0);
    cr_assert_str_eq(line, "f: 100.0 KiB of 100.0 KiB (100%), 0.1 MiB/s");
    stax_cli_progress_line(line, sizeof line, "f", (uint64_t)3 << 30, (uint64_t)603 << 30, 1.0);
    cr_assert_str_eq(line, "f: 3.00 GiB of 603.00 GiB (0%), 3072.0 MiB/s, 3:20 left");
}

Test(cli, progress_is_drawn_in_place_and_erased) {
    /* a file of 4 reads of 256 KiB, drawn after each read (mode 2) */
    size_t n = 4 * 262144;
    char *doc = malloc(n + 1);
    cr_assert_not_null(doc);
    memcpy(doc, "<a>", 3);
    memset(doc + 3, 'x', n - 7);
    memcpy(doc + n - 4, "</a>", 5);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "big.xml";
    o.progress = 2;
    run r = cmd_opts("check", &o, NULL, doc);
    free(doc);
    cr_assert_eq(r.rc, 0);
    static const char first[] = "\rbig.xml: 256.0 KiB of 1.0 MiB (25%), ";
    cr_assert(strncmp(r.err, first, sizeof first - 1) == 0, "%s", r.err);
    cr_assert(strstr(r.err, "\rbig.xml: 1.0 MiB of 1.0 MiB (100%), "), "%s", r.err);
    size_t len = strlen(r.err);
    cr_assert(len > 4 && strcmp(r.err + len - 4, "\r\033[K") == 0, "not erased at the end");
    /* errors come on a line of their own */
    o.progress = 2;
    r = cmd_opts("check", &o, NULL, "<a>");
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err, "\r\033[Kbig.xml:1:4: "), "%s", r.err);
    /* off: nothing */
    o.progress = 0;
    r = cmd_opts("check", &o, NULL, "<a/>");
    cr_assert_str_eq(r.err, "");
}

/* ================================================================ the command line (build/stax) */

/* The stax binary next to the unit binary (build/, build/asan/, ...), else build/stax. */
static const char *stax_bin(void) { return stax_test_bin(); }

/* Run a shell command line; its stdout and stderr, and its exit status. */
static int shell_line(const char *cmdline, char *out, size_t cap) { return stax_test_shell(cmdline, out, cap); }

/* Run `stax ARGS` with stdin from fixtures/osm.xml; stdout and exit code. */
static int shell(const char *args, char *out, size_t cap) {
    char cmdline[8192];
    snprintf(cmdline, sizeof cmdline, "%s %s < fixtures/osm.xml 2>&1", stax_bin(), args);
    return shell_line(cmdline, out, cap);
}

Test(cli, select_options_on_the_command_line) {
    char out[8192];
    cr_assert_eq(shell("select --count '//node|//tag' -", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "10\n13\n");
    cr_assert_eq(shell("select --first 2 --quiet /osm/node/@id", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "1\n2\n");
    cr_assert_eq(shell("select -0 --chunk 3 '/osm/node[2]/@id'", out, sizeof out), 0);
    cr_assert_eq(memcmp(out, "2\0", 2), 0);
    cr_assert_eq(shell("select --csv '@id,tag[@k=\"name\"]/@v' --max-held 1K '/osm/node[@id=\"3\"]'", out, sizeof out), 0);
    cr_assert_str_eq(out, "3,\"Buckingham Palace, London\"\n");
    cr_assert_eq(shell("select -N o=urn:none --xml //o:node", out, sizeof out), 1, "%s", out); /* nothing selected */
    cr_assert_str_eq(out, "");
    cr_assert_eq(shell("--quiet select --xml '//node[@id=\"2\"]'", out, sizeof out), 0, "%s", out); /* the common ones before it too */
    cr_assert_str_eq(out, "<node id=\"2\" lat=\"51.5033\" lon=\"-0.1196\"/>\n");
    cr_assert_eq(shell("select --progress --xml '//node[@id=\"2\"]'", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "<node id=\"2\" lat=\"51.5033\" lon=\"-0.1196\"/>\n"); /* a short run draws nothing */
    cr_assert_eq(shell("select", out, sizeof out), 2);
    cr_assert(strstr(out, "select needs a PATH"), "%s", out);
    cr_assert_eq(shell("select --first 0 //a", out, sizeof out), 2);
    cr_assert_eq(shell("select -N nobinding //a", out, sizeof out), 2);
    cr_assert(strstr(out, "-N takes prefix=URI"), "%s", out);
    cr_assert_eq(shell("count --xml", out, sizeof out), 2); /* select's options are select's */
}

/* ================================================================ --external */

/* A scratch folder with files (name, content pairs, NULL-ended); its path. */
static const char *scratch_dir(const char *const *files) {
    static char dir[256];
    snprintf(dir, sizeof dir, "%s/stax-ext-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
    for (size_t i = 0; files[i]; i += 2) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        mkdir(path, 0700); /* a subfolder, or the folder itself */
        *slash = '/';
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f, "%s", path);
        fputs(files[i + 1], f);
        fclose(f);
    }
    return dir;
}

static void scratch_rm(const char *dir, const char *const *files) {
    char path[512];
    for (size_t i = 0; files[i]; i += 2) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        remove(path);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        rmdir(path); /* subfolders */
    }
    rmdir(dir);
}

/* Run a subcommand with --external on the document at dir/doc.xml. */
static run ext_cmd(const char *which, const char *dir, const char *doc, int external) {
    char name[512];
    snprintf(name, sizeof name, "%s/doc.xml", dir);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = name;
    o.external = external;
    return cmd_opts(which, &o, NULL, doc);
}

static const char ext_doc[] = "<!DOCTYPE d SYSTEM 'dtd/d.dtd' [<!ENTITY local SYSTEM 'local.ent'>]>\n"
                              "<d>&chapter;&local;</d>";
static const char *const ext_files[] = {
    "doc.xml", ext_doc,
    "dtd/d.dtd", "<!ATTLIST d version CDATA '2'>\n<!ENTITY % mods SYSTEM 'mods.ent'>%mods;",
    "dtd/mods.ent", "<!ENTITY chapter SYSTEM '../text/ch%201.xml'>", /* relative to dtd/mods.ent */
    "text/ch 1.xml", "<?xml version='1.0' encoding='ISO-8859-1'?><p>caf\xe9</p>",
    "local.ent", "<q/>",
    NULL};

Test(cli, external_reads_local_files_relative_to_their_declaration) {
    const char *dir = scratch_dir(ext_files);
    run r = ext_cmd("canon", dir, ext_doc, 1);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "<d version=\"2\"><p>caf\xc3\xa9</p><q></q></d>");
    r = ext_cmd("count", dir, ext_doc, 1);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "elements=3 attributes=1 text=1 cdata=0 comments=0 pis=0 text_bytes=5\n");
    r = ext_cmd("check", dir, ext_doc, 1);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    /* without --external nothing is read: the references give nothing */
    r = ext_cmd("canon", dir, ext_doc, 0);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "<d></d>");
    scratch_rm(dir, ext_files);
}

Test(cli, external_refuses_other_schemes_and_reports_missing_files) {
    static const char *const files[] = {"ok.ent", "fine", NULL};
    const char *dir = scratch_dir(files);
    static const struct {
        const char *sysid, *err;
    } cases[] = {
        {"http://example.com/x.dtd", "'http://example.com/x.dtd' is not a local file (--external reads files and file: URIs only)"},
        {"HTTPS://example.com/x.dtd", "is not a local file"},
        {"ftp://example.com/x.dtd", "is not a local file"},
        {"urn:x-example:thing", "is not a local file"},
        {"file://example.com/etc/x", "names another host (--external reads local files only)"},
        {"missing.ent", "missing.ent: No such file or directory"},
        {"/dev/zero", "/dev/zero: not a regular file"},
        {".", "/.: not a regular file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, "<!DOCTYPE d [<!ENTITY e SYSTEM '%s'>]>\n<d>&e;</d>", cases[i].sysid);
        run r = ext_cmd("check", dir, doc, 1);
        cr_assert_eq(r.rc, 2, "%s: exit %d, %s", cases[i].sysid, r.rc, r.err);
        cr_assert(strstr(r.err, ":2:4: cannot read it: "), "%s", r.err);
        cr_assert(strstr(r.err, cases[i].err), "%s: %s", cases[i].sysid, r.err);
        cr_assert(strstr(r.err, "(in entity 'e' "), "%s", r.err);
        /* without --external the same document is well-formed */
        r = ext_cmd("check", dir, doc, 0);
        cr_assert_eq(r.rc, 0, "%s", r.err);
    }
    /* file: URIs: an absolute path, with or without localhost */
    char doc[1024];
    snprintf(doc, sizeof doc, "<!DOCTYPE d [<!ENTITY a SYSTEM 'file://%s/ok.ent'><!ENTITY b SYSTEM 'file://localhost%s/ok.ent'>]>"
             "<d>&a;&b;</d>", dir, dir);
    run r = ext_cmd("canon", dir, doc, 1);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "<d>finefine</d>");
    scratch_rm(dir, files);
}

Test(cli, external_errors_name_the_entity) {
    static const char *const files[] = {"bad.ent", "<a>\n <b></a>", NULL};
    const char *dir = scratch_dir(files);
    run r = ext_cmd("fmt", dir, "<!DOCTYPE d [<!ENTITY e SYSTEM 'bad.ent'>]>\n<d>&e;</d>", 1);
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err, "/doc.xml:2:4: end tag 'a' does not match start tag 'b' (in entity 'e' \"bad.ent\", line 2, "
                            "column 5) (byte 47)"),
              "%s", r.err);
    scratch_rm(dir, files);
}

Test(cli, external_on_the_command_line) {
    const char *dir = scratch_dir(ext_files);
    char cmdline[1024], out[4096];
    snprintf(cmdline, sizeof cmdline, "%s canon --external '%s/doc.xml' 2>&1", stax_bin(), dir);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "<d version=\"2\"><p>caf\xc3\xa9</p><q></q></d>");
    /* select, and stdin: relative to the current folder, where nothing is */
    snprintf(cmdline, sizeof cmdline, "%s select --external /d/@version '%s/doc.xml' 2>&1", stax_bin(), dir);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, "2\n");
    snprintf(cmdline, sizeof cmdline, "%s check --external - < '%s/doc.xml' 2>&1", stax_bin(), dir);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s", out);
    cr_assert(strstr(out, "-:1:1: cannot read it: dtd/d.dtd: No such file or directory (in the external subset"), "%s", out);
    scratch_rm(dir, ext_files);
}

/* ================================================================ the usual slips */

Test(cli, common_options_before_or_after_the_command) {
    char out[8192], want[8192];
    cr_assert_eq(shell("count", want, sizeof want), 0, "%s", want);
    cr_assert(strncmp(want, "elements=", 9) == 0, "%s", want);
    static const char *const same[] = {
        "--progress count", "--quiet count -", "--chunk 3 count", "count --chunk 3", "--memory 64K --quiet count",
        "--namespaces count --progress", "--external --chunk 1K count --quiet -", "--progress --quiet count",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        cr_assert_eq(shell(same[i], out, sizeof out), 0, "%s: %s", same[i], out);
        cr_assert_str_eq(out, want, "%s", same[i]);
    }
    cr_assert_eq(shell("--chunk 2 canon", want, sizeof want), 0, "%s", want);
    cr_assert_eq(shell("canon --chunk 2", out, sizeof out), 0, "%s", out);
    cr_assert_str_eq(out, want);
    /* the values are checked wherever they stand */
    cr_assert_eq(shell("--chunk 0 count", out, sizeof out), 2);
    cr_assert_str_eq(out, "stax: --chunk takes a positive size, not '0'\n");
    cr_assert_eq(shell("--memory 100 count", out, sizeof out), 2);
    cr_assert(strstr(out, "--memory: at least"), "%s", out);
    /* a command's own options come after it */
    cr_assert_eq(shell("--xml select //node", out, sizeof out), 2);
    cr_assert(strncmp(out, "stax: unknown option '--xml' (before COMMAND", 44) == 0, "%s", out);
    cr_assert_eq(shell("--indent 4 fmt", out, sizeof out), 2);
    cr_assert_eq(shell("--help count", out, sizeof out), 0);
    cr_assert(strstr(out, "options (before or after COMMAND):"), "%s", out);
    cr_assert_eq(shell("--version count", out, sizeof out), 0);
    cr_assert(strncmp(out, "stax " STAX_VERSION "\n", strlen("stax " STAX_VERSION "\n")) == 0, "%s", out);
}

/* Lines of s. */
static size_t lines_of(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

Test(cli, a_usage_error_gives_a_short_usage_and_exit_2) {
    static const struct {
        const char *args, *first; /* the message before the usage (NULL: none) */
    } cases[] = {
        {"", NULL},
        {"bogus", "stax: unknown command 'bogus'\n"},
        {"--progress", "stax: no command\n"},
        {"--bogus count", "stax: unknown option '--bogus' (before COMMAND, only the options of every command)\n"},
        {"count --bogus", "stax: unknown option '--bogus'\n"},
        {"count --chunk", "stax: --chunk needs a value\n"},
        {"--memory", "stax: --memory needs a value\n"},
        {"select", "stax: select needs a PATH\n"},
        {"select --xml", "stax: select needs a PATH\n"},
    };
    static const char usage[] = "usage: stax [options] COMMAND [options] [FILE]";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[8192], cmdline[512];
        /* stderr only: nothing goes to stdout */
        snprintf(cmdline, sizeof cmdline, "%s %s < fixtures/osm.xml 2>&1 >/dev/null", stax_bin(), cases[i].args);
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "'%s': %s", cases[i].args, out);
        const char *u = out;
        if (cases[i].first) {
            cr_assert(strncmp(out, cases[i].first, strlen(cases[i].first)) == 0, "'%s': %s", cases[i].args, out);
            u += strlen(cases[i].first);
        }
        cr_assert(strncmp(u, usage, strlen(usage)) == 0, "'%s': %s", cases[i].args, out);
        cr_assert(lines_of(u) <= 3, "'%s': %zu lines of usage: %s", cases[i].args, lines_of(u), out);
        size_t n = strlen(u);
        cr_assert(n > 21 && !strcmp(u + n - 21, "stax --help for more\n"), "'%s': %s", cases[i].args, out);
    }
    /* --help is the whole text, on stdout */
    char out[8192], cmdline[512];
    snprintf(cmdline, sizeof cmdline, "%s --help 2>/dev/null", stax_bin());
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0);
    cr_assert(lines_of(out) > 20, "%s", out);
}

/* A file holding n bytes of s; its path (a static buffer of the caller's). */
static void write_file(const char *path, const char *s, size_t n) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(s, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

Test(cli, a_compressed_input_is_refused_with_the_command_to_pipe_it_through) {
    static const struct {
        const char *bytes;
        size_t len;
        const char *name, *cat;
    } cases[] = {
        {"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10, "gzip", "zcat"},
        {"BZh91AY&SY", 10, "bzip2", "bzcat"},
        {"BZh1", 4, "bzip2", "bzcat"},
        {"\xfd" "7zXZ\0\0\x04", 8, "xz", "xzcat"},
        {"\x28\xb5\x2f\xfd\x24\x04", 6, "zstd", "zstdcat"},
    };
    char dir[256], path[300], cmdline[2048], out[4096], want[2048];
    snprintf(dir, sizeof dir, "%s/stax-z-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/dump.xml.z", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(path, cases[i].bytes, cases[i].len);
        /* a file: its name in the command to run instead */
        snprintf(cmdline, sizeof cmdline, "%s check '%s' 2>&1", stax_bin(), path);
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s: %s", cases[i].name, out);
        snprintf(want, sizeof want, "%s: input is %s-compressed; try: %s %s | stax check\n", path, cases[i].name,
                 cases[i].cat, path);
        cr_assert_str_eq(out, want);
        /* every command, the options kept (quoted as a shell needs them), before or after */
        snprintf(cmdline, sizeof cmdline, "%s --chunk 1 select --csv '@a,b' '//x[@y=\"1\"]' '%s' 2>&1", stax_bin(), path);
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s: %s", cases[i].name, out);
        snprintf(want, sizeof want, "%s: input is %s-compressed; try: %s %s | stax --chunk 1 select --csv @a,b '//x[@y=\"1\"]'\n",
                 path, cases[i].name, cases[i].cat, path);
        cr_assert_str_eq(out, want);
        /* stdin, from a pipe that hands over one byte at a time */
        snprintf(cmdline, sizeof cmdline,
                 "for b in $(od -An -v -to1 '%s'); do printf \"\\\\$b\"; sleep 0.02; done | %s count --quiet 2>&1", path,
                 stax_bin());
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s: %s", cases[i].name, out);
        snprintf(want, sizeof want, "-: input is %s-compressed; decompress it first: ... | %s | stax count --quiet\n",
                 cases[i].name, cases[i].cat);
        cr_assert_str_eq(out, want);
    }
    /* in process: each command's driver, and quiet says nothing */
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "it's.gz";
    run r = cmd_opts("canon", &o, NULL, "\x1f\x8b\x08");
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.out, "");
    cr_assert_str_eq(r.err, "it's.gz: input is gzip-compressed; try: zcat 'it'\\''s.gz' | stax ...\n");
    o.quiet = 1;
    r = cmd_opts("count", &o, NULL, "\x1f\x8b\x08");
    cr_assert_eq(r.rc, 2);
    cr_assert_str_eq(r.err, "");
    remove(path);
    rmdir(dir);
}

Test(cli, a_document_that_begins_like_a_magic_is_read_as_xml) {
    /* not compressed: the reader's own message, exit 1 */
    static const char *const docs[] = {"B", "BZ", "BZh", "BZhx<a/>", "BZh0", "\x1f<a/>", "\xfd\x37z"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        run r = cmd("check", docs[i], 0, 0);
        cr_assert_eq(r.rc, 1, "%s: %s", docs[i], r.err);
        cr_assert(strstr(r.err, "compressed") == NULL, "%s", r.err);
        cr_assert(strncmp(r.err, "doc.xml:1:1: ", 13) == 0, "%s", r.err);
    }
    run r = cmd("count", "<a/>", 1, 0);
    cr_assert_eq(r.rc, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "elements=1 attributes=0 text=0 cdata=0 comments=0 pis=0 text_bytes=0\n");
}

/* Streaming from a pipe is not held up by the check: what has arrived is read
 * while the writer keeps the pipe open. */
Test(cli, stdin_streams_while_the_pipe_stays_open, .timeout = 20) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    static const char part[] = "<r><a>x</a>";
    cr_assert_eq(write(p[1], part, sizeof part - 1), (ssize_t)(sizeof part - 1));
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "-";
    stax_cli_select_opts so;
    memset(&so, 0, sizeof so);
    so.path = "//a";
    so.first = 1;
    char buf[64] = {0};
    FILE *out = fmemopen(buf, sizeof buf - 1, "w");
    cr_assert_not_null(out);
    int rc = stax_cmd_select(&o, &so, p[0], out); /* would block for ever if it waited for more */
    fclose(out);
    close(p[0]);
    close(p[1]);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(buf, "x\n");
}

/* ================================================================ live output */

static void write_all(int fd, const char *s) {
    for (size_t n = strlen(s); n;) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        cr_assert_gt(k, 0, "write: %s", strerror(errno));
        s += k;
        n -= (size_t)k;
    }
}

static long ms_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The tool itself (args, NULL-ended), its stdin and stdout pipes, as in a
 * pipeline over a live stream: once first is written, want must come out
 * (waited for with poll, 10 s at most) while the input stays open; then rest
 * is written, the input closed, and all the output must be all, exit 0. */
static void live_output(const char *const *args, const char *first, const char *want, const char *rest,
                        const char *all) {
    const char *bin = stax_test_bin();
    int in[2], out[2];
    cr_assert_eq(pipe(in), 0);
    cr_assert_eq(pipe(out), 0);
    signal(SIGPIPE, SIG_IGN); /* a tool that died early fails the test, not kills it */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        char *argv[16];
        size_t n = 0;
        argv[n++] = (char *)bin;
        for (; args[n - 1] && n < 15; n++) argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(bin, argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    write_all(in[1], first);
    char got[4096] = {0};
    size_t len = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long left;
    while (!strstr(got, want) && (left = 10000 - ms_since(&t0)) > 0) {
        struct pollfd p = {.fd = out[0], .events = POLLIN};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        ssize_t n = read(out[0], got + len, sizeof got - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    int in_time = strstr(got, want) != NULL;
    char early[sizeof got];
    memcpy(early, got, sizeof got);
    write_all(in[1], rest); /* the tool ends, whatever came out */
    close(in[1]);
    for (ssize_t n; len < sizeof got - 1 && (n = read(out[0], got + len, sizeof got - 1 - len)) != 0;)
        if (n > 0) len += (size_t)n;
        else if (errno != EINTR) break;
    close(out[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(in_time, "%s: '%s' did not come out while the input was open (got '%s')", args[0], want, early);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", args[0], st);
    cr_assert_str_eq(got, all, "%s", args[0]);
}

/* What was read is written before the tool waits for more input. */
static const char live_first[] = "<stream xmlns='jabber:client'><message to='a'><body>hi</body></message>";
static const char live_rest[] = "<message to='b'><body>there</body></message></stream>";
static const char live_canon[] = "<stream xmlns=\"jabber:client\"><message to=\"a\"><body>hi</body></message>"
                                 "<message to=\"b\"><body>there</body></message></stream>";

Test(cli, select_writes_a_match_before_a_read_that_waits, .timeout = 60) {
    live_output((const char *const[]){"select", "//message/body", NULL}, live_first, "hi\n", live_rest, "hi\nthere\n");
    live_output((const char *const[]){"select", "--first", "2", "//body", NULL}, live_first, "hi\n", live_rest,
                "hi\nthere\n");
    live_output((const char *const[]){"select", "--xml", "//body", NULL}, live_first,
                "<body xmlns=\"jabber:client\">hi</body>\n", live_rest,
                "<body xmlns=\"jabber:client\">hi</body>\n<body xmlns=\"jabber:client\">there</body>\n");
    live_output((const char *const[]){"select", "--csv", "@to,body", "//message", NULL}, live_first, "a,hi\n",
                live_rest, "a,hi\nb,there\n");
    /* a header before any match: out as soon as the input waits */
    live_output((const char *const[]){"select", "--csv", "@to", "--header", "//message", NULL}, "<stream>", "@to\n",
                "<message to='x'/></stream>", "@to\nx\n");
}

Test(cli, canon_writes_what_it_read_before_a_read_that_waits, .timeout = 30) {
    live_output((const char *const[]){"canon", NULL}, live_first,
                "<stream xmlns=\"jabber:client\"><message to=\"a\"><body>hi</body></message>", live_rest, live_canon);
}

Test(cli, fmt_writes_what_it_read_before_a_read_that_waits, .timeout = 30) {
    char all[sizeof live_canon + 1];
    snprintf(all, sizeof all, "%s\n", live_canon);
    live_output((const char *const[]){"fmt", "--indent", "0", NULL}, live_first, "<body>hi</body></message>",
                live_rest, all);
}

/* Output that cannot be written stops the tool while its input stays open:
 * with SIGPIPE ignored, a closed stdout fails the flush before the read
 * that would wait, and the tool exits 2 at once, not when the input ends. */
Test(cli, a_failed_write_stops_the_tool_before_a_read_that_waits, .timeout = 30) {
    const char *bin = stax_test_bin();
    int in[2], out[2], err[2];
    cr_assert_eq(pipe(in), 0);
    cr_assert_eq(pipe(out), 0);
    cr_assert_eq(pipe(err), 0);
    signal(SIGPIPE, SIG_IGN); /* kept across exec: the tool's writes fail with EPIPE */
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        for (int k = 0; k < 2; k++) close(in[k]), close(out[k]), close(err[k]);
        execl(bin, bin, "select", "//body", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(out[0]); /* nobody reads the output */
    close(err[1]);
    write_all(in[1], live_first);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = 0;
    pid_t done = 0;
    while ((done = waitpid(pid, &st, WNOHANG)) == 0 && ms_since(&t0) < 10000) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    close(in[1]); /* the tool ends, whatever it did */
    if (!done) cr_assert_eq(waitpid(pid, &st, 0), pid);
    char msg[512] = {0};
    for (size_t len = 0; len < sizeof msg - 1;) {
        ssize_t n = read(err[0], msg + len, sizeof msg - 1 - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(err[0]);
    cr_assert(done == pid, "the tool went on reading after its output failed");
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d", st);
    char want[128];
    snprintf(want, sizeof want, "stax: write error: %s\n", strerror(EPIPE));
    cr_assert_str_eq(msg, want);
}

Test(cli, make_unit_takes_its_jobs_from_make_or_the_machine) {
    char out[65536], want[64];
    /* a make of its own (-n: print the commands only), not the one running these tests */
    static const char clean[] = "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n";
    char cmdline[512];
    snprintf(cmdline, sizeof cmdline, "%s -j3 unit | grep -- '/unit --jobs'", clean);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, "unit --jobs 3 "), "%s", out);
    snprintf(cmdline, sizeof cmdline, "%s unit | grep -- '/unit --jobs'", clean);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(want, sizeof want, "unit --jobs %ld ", cores);
    cr_assert(strstr(out, want), "want '%s': %s", want, out);
    snprintf(cmdline, sizeof cmdline, "%s -j unit | grep -- '/unit --jobs'", clean);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    cr_assert(strstr(out, want), "want '%s' for -j: %s", want, out);
}

/* ================================================================ exit statuses and a failed write */

/* A scratch folder holding the named documents (name, content pairs,
 * NULL-ended) and records.xml of that many records (20000, about 1 MiB:
 * enough for the output to fail while the input is read, in -j 2 parts too). */
static const char *status_dir(const char *const *files, int records) {
    const char *dir = scratch_dir(files);
    char path[512];
    snprintf(path, sizeof path, "%s/records.xml", dir);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs("<db>\n", f);
    for (int i = 0; i < records; i++) fprintf(f, "<node id='%d' k='v'>text %d &amp; more</node>\n", i, i);
    fputs("</db>\n", f);
    cr_assert_eq(fclose(f), 0);
    return dir;
}

static void status_rm(const char *dir, const char *const *files) {
    char path[512];
    snprintf(path, sizeof path, "%s/records.xml", dir);
    remove(path);
    for (const char *p = "p0\0p1\0"; *p; p += 3) {
        snprintf(path, sizeof path, "%s/%s", dir, p);
        remove(path);
    }
    scratch_rm(dir, files);
}

/* Every command and output form, whose output is written to /dev/full:
 * exit status 2 and one message, the same for all, with the system's reason. */
Test(cli, a_failed_write_exits_2_with_one_message_for_every_command, .timeout = 600) {
    static const char *const files[] = {"small.xml", "<db><node id='1'>x</node></db>", NULL};
    const char *dir = status_dir(files, 20000);
    static const char *const commands[] = {
        "count", "canon", "fmt", "fmt --indent 0",
        "select //node/@id", "select -0 //node", "select --xml //node", "select --csv @id,. //node",
        "select --csv @id --header //node", "select --count '//node|//@k'", "select --first 2 //node/@id",
        "select --json //node", "select --json=@id,. --arrays //node", "-j 2 --part-size 4K select --json=@id //node",
        "-j 2 --part-size 4K count", "-j 2 --part-size 4K canon", "-j 2 --part-size 4K select //node/@id",
        "-j 2 --part-size 4K select --xml //node", "-j 2 --part-size 4K select --csv @id //node",
        "-j 2 --part-size 4K select --count //node", "-j 2 --part-size 4K select --first 3 //node",
        "--chunk 7 select //node", "--memory 64K select //node", "--memory 64K canon",
    };
    char want[256], out[4096], cmdline[2048];
    snprintf(want, sizeof want, "stax: write error: %s\n", strerror(ENOSPC));
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        for (const char *doc = "small.xml\0records.xml\0"; *doc; doc += strlen(doc) + 1) {
            /* a file, and a pipe (-j reads it through its ring of buffers) */
            snprintf(cmdline, sizeof cmdline, "%s %s '%s/%s' 2>&1 >/dev/full </dev/null", stax_bin(), commands[i], dir, doc);
            cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s on %s: %s", commands[i], doc, out);
            cr_assert_str_eq(out, want, "%s on %s", commands[i], doc);
            snprintf(cmdline, sizeof cmdline, "cat '%s/%s' | %s %s 2>&1 >/dev/full", dir, doc, stax_bin(), commands[i]);
            cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s on a pipe of %s: %s", commands[i], doc, out);
            cr_assert_str_eq(out, want, "%s on a pipe of %s", commands[i], doc);
        }
    }
    /* a part record, stax merge, and what main writes itself */
    static const char *const more[] = {"count --part 0/2 '%s/records.xml'", "check --part 1/2 '%s/records.xml'",
                                       "merge '%s/records.xml' '%s/p0' '%s/p1'", "--version", "--help",
                                       "select --help"};
    snprintf(cmdline, sizeof cmdline, "%s count --part 0/2 '%s/records.xml' > '%s/p0' && %s count --part 1/2 '%s/records.xml' > '%s/p1'",
             stax_bin(), dir, dir, stax_bin(), dir, dir);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        char args[1024];
        snprintf(args, sizeof args, more[i], dir, dir, dir);
        snprintf(cmdline, sizeof cmdline, "%s %s 2>&1 >/dev/full </dev/null", stax_bin(), args);
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s: %s", more[i], out);
        cr_assert_str_eq(out, want, "%s", more[i]);
    }
    /* check writes nothing: nothing to fail */
    snprintf(cmdline, sizeof cmdline, "%s check '%s/records.xml' 2>&1 >/dev/full </dev/null", stax_bin(), dir);
    cr_assert_eq(shell_line(cmdline, out, sizeof out), 0, "%s", out);
    status_rm(dir, files);
}

/* A failed write stops the command: it does not read on to the end of an
 * input that never ends. */
Test(cli, a_failed_write_stops_reading, .timeout = 300) {
    static const char *const commands[] = {"select //a", "select --xml //a", "select --csv . //a", "select --json //a", "canon", "fmt",
                                           "-j 2 --part-size 4K select //a", "-j 2 --part-size 4K canon"};
    char want[256], out[4096], cmdline[1024];
    snprintf(want, sizeof want, "stax: write error: %s\n", strerror(ENOSPC));
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(cmdline, sizeof cmdline, "{ printf '<r>'; yes '<a>x</a>'; } | timeout 30 %s %s 2>&1 >/dev/full", stax_bin(),
                 commands[i]);
        cr_assert_eq(shell_line(cmdline, out, sizeof out), 2, "%s: %s (124: still reading)", commands[i], out);
        cr_assert_str_eq(out, want, "%s", commands[i]);
    }
}

/* The contract's exit statuses: check 0 well-formed, 1 not; select as grep,
 * 0 something selected, 1 nothing, 2 an error (a document that is not
 * well-formed included); count, canon and fmt 1 for a document that is not
 * well-formed; 2 for every command on an encoding stax does not read. */
Test(cli, exit_status_of_every_command, .timeout = 600) {
    static const char *const files[] = {
        "good.xml", "<db><node id='1'>x</node><node id='2'/></db>",
        "bad.xml", "<db><node id='1'>x</node><node id='2'>",
        "unknown.xml", "<?xml version='1.0' encoding='X-NO-SUCH-ENCODING'?><db><node id='1'>x</node></db>",
        "ebcdic.xml", "\x4c\x6f\xa7\x94\x93\x40", /* <?xml in EBCDIC */
        NULL};
    const char *dir = status_dir(files, 500); /* parts of 1K: -j 2 reads it in parts */
    static const struct {
        const char *args;
        int good, bad, enc; /* on good.xml (records.xml the same), bad.xml, unknown.xml and ebcdic.xml */
    } cases[] = {
        {"check", 0, 1, 2}, {"count", 0, 1, 2}, {"canon", 0, 1, 2}, {"fmt", 0, 1, 2},
        {"-j 2 --part-size 1K check", 0, 1, 2}, {"-j 2 --part-size 1K count", 0, 1, 2}, {"-j 2 --part-size 1K canon", 0, 1, 2},
        {"select //node", 0, 2, 2}, {"select //nothing", 1, 2, 2}, {"select //node/@nothing", 1, 2, 2},
        {"select --xml //node", 0, 2, 2}, {"select --xml //nothing", 1, 2, 2},
        {"select --csv @id //node", 0, 2, 2}, {"select --csv @id --header //nothing", 1, 2, 2},
        {"select --count //node", 0, 2, 2}, {"select --count '//nothing|//nothing/@x'", 1, 2, 2},
        {"select --count '//nothing|//node'", 0, 2, 2}, {"select -0 //nothing", 1, 2, 2},
        {"select --first 1 //node", 0, 0, 2} /* stops before the error */, {"select --first 1 //nothing", 1, 2, 2},
        {"--memory 64K select //nothing", 1, 2, 2}, {"--chunk 1 select //nothing", 1, 2, 2},
        {"-j 2 --part-size 1K select //node", 0, 2, 2}, {"-j 2 --part-size 1K select //nothing", 1, 2, 2},
        {"-j 2 --part-size 1K select --count //nothing", 1, 2, 2}, {"-j 2 --part-size 1K select --xml //nothing", 1, 2, 2},
        {"-j 2 --part-size 1K select --csv @id //nothing", 1, 2, 2}, {"-j 2 --part-size 1K select --first 2 //node", 0, 2, 2},
    };
    char out[8192], cmdline[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static const char *const docs[] = {"good.xml", "records.xml", "bad.xml", "unknown.xml", "ebcdic.xml"};
        for (size_t d = 0; d < 5; d++) {
            if (!stax_test_sampled(5 * i + d)) continue; /* under the sanitizers: every 4th */
            int want = d < 2 ? cases[i].good : d == 2 ? cases[i].bad : cases[i].enc;
            /* a file, and a pipe */
            snprintf(cmdline, sizeof cmdline, "%s %s '%s/%s' 2>&1 >/dev/null </dev/null", stax_bin(), cases[i].args, dir, docs[d]);
            cr_assert_eq(shell_line(cmdline, out, sizeof out), want, "%s %s: %s", cases[i].args, docs[d], out);
            snprintf(cmdline, sizeof cmdline, "cat '%s/%s' | %s %s 2>&1 >/dev/null", dir, docs[d], stax_bin(), cases[i].args);
            cr_assert_eq(shell_line(cmdline, out, sizeof out), want, "%s on a pipe of %s: %s", cases[i].args, docs[d], out);
            /* an error says why as FILE:LINE:COL: message; nothing selected is no error */
            if (want == 0 || (want == 1 && strstr(cases[i].args, "select")))
                cr_assert_str_eq(out, "", "%s on a pipe of %s", cases[i].args, docs[d]);
            else
                cr_assert(!strncmp(out, "-:1:", 4), "%s on a pipe of %s: %s", cases[i].args, docs[d], out);
        }
    }
    /* stax merge gives the serial command's status */
    static const char *const docs[] = {"good.xml", "bad.xml", "unknown.xml", "ebcdic.xml"};
    static const int want[] = {0, 1, 2, 2};
    for (size_t d = 0; d < 4; d++)
        for (const char *cmd = "check\0count\0"; *cmd; cmd += 6) {
            snprintf(cmdline, sizeof cmdline,
                     "cd '%s' && %s %s --part 0/2 %s > p0 && %s %s --part 1/2 %s > p1 && %s merge %s p0 p1 2>&1 >/dev/null",
                     dir, stax_bin(), cmd, docs[d], stax_bin(), cmd, docs[d], stax_bin(), docs[d]);
            cr_assert_eq(shell_line(cmdline, out, sizeof out), want[d], "merge of %s parts of %s: %s", cmd, docs[d], out);
        }
    status_rm(dir, files);
}

/* ---------------------------------------------------------------- encodings through iconv */

#include <iconv.h>
#include <stdint.h>

/* utf8 converted by iconv to enc, NUL-terminated (NULL: iconv does not know it). */
static char *cli_iconv_to(const char *enc, const char *utf8) {
    iconv_t cd = iconv_open(enc, "UTF-8");
    if (cd == (iconv_t)-1) return NULL;
    size_t n = strlen(utf8), cap = 4 * n + 16, left = cap - 1;
    char *out = malloc(cap), *o = out, *in = (char *)(uintptr_t)utf8;
    cr_assert_not_null(out);
    cr_assert_neq(iconv(cd, &in, &n, &o, &left), (size_t)-1);
    iconv_close(cd);
    *o = '\0';
    return out;
}

/* stax count on a Shift_JIS file counts what it counts on the same text in
 * UTF-8 (text_bytes: the UTF-8's), at any chunk size, in a fixed block and
 * on two threads (where the parts are read one after another: no context is
 * saved in a document read through a decoder). */
Test(cli, count_reads_shift_jis_through_iconv) {
    static const char body[] = "?>\n<db lang=\"日本語\">\n<rec id=\"1\">東京都の天気は晴れ</rec>\n"
                               "<rec id=\"2\">大阪府&amp;京都府</rec><!-- 漢字 --></db>\n";
    char utf8[512], sj_text[512];
    snprintf(utf8, sizeof utf8, "<?xml version=\"1.0\" encoding=\"UTF-8\"%s", body);
    snprintf(sj_text, sizeof sj_text, "<?xml version=\"1.0\" encoding=\"Shift_JIS\"%s", body);
    iconv_t cd = iconv_open("UTF-8", "SHIFT_JIS");
    if (!stax_cli_decoder()) cr_skip_test("the tool is built without iconv (make ICONV=0)");
    if (cd == (iconv_t)-1) cr_skip_test("iconv here does not read Shift_JIS");
    iconv_close(cd);
    char *sj = cli_iconv_to("SHIFT_JIS", sj_text);
    cr_assert_not_null(sj);
    run want = cmd("count", utf8, 0, 0);
    cr_assert_eq(want.rc, 0, "%s", want.err);
    cr_assert(strstr(want.out, "elements=3 attributes=3"), "%s", want.out);
    static const size_t chunks[] = {0, 1, 2, 3, 7};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        run got = cmd("count", sj, chunks[k], 0);
        cr_assert_eq(got.rc, 0, "chunk %zu: %s", chunks[k], got.err);
        cr_assert_str_eq(got.out, want.out, "chunk %zu", chunks[k]);
    }
    run fixed = cmd("count", sj, 3, 8192);
    cr_assert_eq(fixed.rc, 0, "%s", fixed.err);
    cr_assert_str_eq(fixed.out, want.out);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "doc.xml";
    o.jobs = 2;
    o.part_size = 64;
    run par = cmd_opts("count", &o, NULL, sj);
    cr_assert_eq(par.rc, 0, "%s", par.err);
    cr_assert_str_eq(par.out, want.out);
    free(sj);
}

/* An encoding neither the library nor iconv knows: exit 2 (not 1, "not
 * well-formed"), and the message names it. */
Test(cli, unknown_encoding_is_named) {
    run r = cmd("check", "<?xml version=\"1.0\" encoding=\"X-NO-SUCH-ENCODING\"?><a/>", 0, 0);
    cr_assert_eq(r.rc, 2);
    cr_assert(strstr(r.err, "doc.xml:1:31: encoding 'X-NO-SUCH-ENCODING' is not supported"), "%s", r.err);
    iconv_t cd = iconv_open("UTF-8", "EUC-JP");
    if (!stax_cli_decoder() || cd == (iconv_t)-1) return; /* (no iconv, or a static build's, without modules) */
    iconv_close(cd);
    r = cmd("count", "<?xml version=\"1.0\" encoding=\"EUC-JP\"?><a>\xC6\xFC\xFF</a>", 0, 0);
    cr_assert_eq(r.rc, 1);
    cr_assert(strstr(r.err, "doc.xml:1:44: invalid byte sequence for EUC-JP (input byte 44) (byte 45)"), "%s", r.err);
}
