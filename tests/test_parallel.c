/* stax_parallel_read: the events (type, name, attributes, text, line,
 * column, offset), their order and the final status and message are those
 * of the serial read, for every document, thread count and part size. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "harness.h"

/* What one part gathered: its event lines (no positions) and their
 * positions, relative to the part's start. */
typedef struct part_log {
    stax_test_buf lines;
    stax_pos *pos;
    size_t n, cap;
} part_log;

typedef struct par_run {
    part_log *slot;
    size_t nslots;
    stax_test_buf out; /* the events of the parts done, with real positions */
    size_t next_done;  /* done comes in order: the part expected next */
    int order_broken;
} par_run;

static int on_begin(void *ud, size_t part) {
    par_run *u = (par_run *)ud;
    part_log *l = &u->slot[part % u->nslots];
    l->lines.len = 0;
    l->n = 0;
    return 0;
}

static int on_batch(void *ud, size_t part, const stax_batch *b) {
    par_run *u = (par_run *)ud;
    part_log *l = &u->slot[part % u->nslots];
    for (size_t i = 0; i < b->count; i++) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 64;
            l->pos = (stax_pos *)__real_realloc(l->pos, l->cap * sizeof *l->pos);
            cr_assert_not_null(l->pos);
        }
        l->pos[l->n++] = stax_ev_pos(b, i);
        stax_test_dump_event(&l->lines, b, i, 0);
    }
    return 0;
}

/* parallel_dump_in's fixed blocks (NULL: none) */
static void *const *test_blocks;
static size_t test_block_size;

/* on_done asks for every next part to be read again (STAX_AGAIN) */
static int done_again;

static int on_done(void *ud, size_t part, stax_pos base) {
    par_run *u = (par_run *)ud;
    if (part != u->next_done++) u->order_broken = 1;
    part_log *l = &u->slot[part % u->nslots];
    const char *p = l->lines.p;
    for (size_t i = 0; i < l->n; i++) {
        const char *nl = strchr(p, '\n');
        stax_pos q = stax_parallel_pos(base, l->pos[i]);
        stax_test_buf_put(&u->out, p, (size_t)(nl - p));
        stax_test_buf_printf(&u->out, " @%llu:%llu:%llu\n", (unsigned long long)q.line, (unsigned long long)q.column,
                             (unsigned long long)q.offset);
        p = nl + 1;
        if (strncmp(p, "NULL-STRING\n", 12) == 0) p += 12;
    }
    return done_again ? STAX_AGAIN : 0;
}

/* A document handed out by a read function, `chunk` bytes at a time
 * (PIPE_RANDOM: 1 to 5000 at random), as a pipe would. */
#define PIPE_RANDOM ((size_t)-1)
typedef struct pipe_in {
    const char *doc;
    size_t len, at, chunk;
    uint32_t seed;
    size_t calls;
} pipe_in;

static int pipe_read(void *ud, void *buf, size_t cap, size_t *got) {
    pipe_in *in = (pipe_in *)ud;
    size_t n = in->chunk;
    in->calls++;
    if (n == PIPE_RANDOM) {
        in->seed = in->seed * 1103515245u + 12345u;
        n = 1 + (in->seed >> 8) % 5000;
    }
    if (n > cap) n = cap;
    if (n > in->len - in->at) n = in->len - in->at;
    memcpy(buf, in->doc + in->at, n);
    in->at += n;
    *got = n;
    return 0;
}

/* The parallel read's dump, in the format of stax_test_events_ex with
 * STAX_DUMP_POS | STAX_DUMP_MESSAGE; *res gets the result. chunk 0: from
 * memory (stax_parallel_read); else through pipe_read (stax_parallel_read_fn). */
static char *parallel_dump_in(const char *doc, size_t len, const stax_reader_options *ro, unsigned threads,
                              size_t part_size, stax_parallel_result *res, size_t chunk) {
    par_run u;
    memset(&u, 0, sizeof u);
    u.nslots = stax_parallel_slots(threads);
    u.slot = (part_log *)calloc(u.nslots, sizeof *u.slot);
    cr_assert_not_null(u.slot);
    stax_parallel_options o;
    memset(&o, 0, sizeof o);
    o.reader = ro;
    o.threads = threads;
    o.part_size = part_size;
    o.ud = &u;
    o.begin = on_begin;
    o.batch = on_batch;
    o.done = on_done;
    o.blocks = test_blocks;
    o.block_size = test_block_size;
    pipe_in in = {doc, len, 0, chunk, (uint32_t)(len * 31 + threads * 7 + part_size), 0};
    int st = chunk ? stax_parallel_read_fn(pipe_read, &in, &o, res) : stax_parallel_read(doc, len, &o, res);
    cr_assert_eq(st, res->status);
    if (chunk) cr_assert_leq(res->buffers, u.nslots, "%zu buffers, more than the %zu slots", res->buffers, u.nslots);
    if (st == STAX_OK) {
        stax_test_buf_puts(&u.out, "END-OF-DOCUMENT\n");
    } else {
        stax_test_buf_printf(&u.out, "ERROR %s @%llu:%llu:%llu: %s\n", stax_test_status_name(st),
                             (unsigned long long)res->err_pos.line, (unsigned long long)res->err_pos.column,
                             (unsigned long long)res->err_pos.offset, res->message);
    }
    cr_assert_not(u.order_broken, "done out of document order");
    for (size_t i = 0; i < u.nslots; i++) {
        stax_test_buf_free(&u.slot[i].lines);
        __real_free(u.slot[i].pos);
    }
    free(u.slot);
    if (!u.out.p) stax_test_buf_puts(&u.out, "");
    return u.out.p;
}

static char *parallel_dump(const char *doc, size_t len, const stax_reader_options *ro, unsigned threads,
                           size_t part_size, stax_parallel_result *res) {
    return parallel_dump_in(doc, len, ro, threads, part_size, res, 0);
}

static const unsigned thread_counts[] = {1, 2, 3, 4, 7};
static const size_t pipe_chunks[] = {1, 7, 4096, PIPE_RANDOM};
static const size_t part_sizes[] = {1, 2, 3, 7, 16, 61, 256, 4096};

/* The last line of a dump (the status line). */
static const char *status_line(const char *dump) { return stax_test_last_line(dump); }

/* Compare with the serial read at every thread count and part size: the whole
 * dump for a well-formed document; the status line (status, position,
 * message) for one that is not, whose events before the error may end a
 * batch early. Returns how many parts were read again, summed. */
static size_t same_as_serial(const char *name, const char *doc, size_t len, const stax_reader_options *ro,
                             const size_t *sizes, size_t n_sizes) {
    int sst = 0;
    static size_t turn;
    char *serial = stax_test_events_ex(doc, len, 0, ro, STAX_DUMP_POS | STAX_DUMP_MESSAGE, &sst);
    size_t rereads = 0;
    for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++)
        for (size_t s = 0; s < n_sizes; s++) {
            if (n_sizes > 1 && !stax_test_sampled(turn++)) continue; /* a sample, rotating (harness.h) */
            /* from memory, and through a read function (a pipe) of 1, 7,
             * 4096 or random bytes at a time, in turn */
            for (int fn = 0; fn < 2; fn++) {
                size_t chunk = fn ? pipe_chunks[(turn + t + s) % (sizeof pipe_chunks / sizeof pipe_chunks[0])] : 0;
                stax_parallel_result res;
                char *par = parallel_dump_in(doc, len, ro, thread_counts[t], sizes[s], &res, chunk);
                if (!fn) rereads += res.rereads;
                if (sst == STAX_END)
                    cr_assert_str_eq(par, serial, "%s, %u threads, parts of %zu bytes, read by %zu: the events differ",
                                     name, thread_counts[t], sizes[s], chunk);
                else
                    cr_assert_str_eq(status_line(par), status_line(serial),
                                     "%s, %u threads, parts of %zu, read by %zu: the error differs", name,
                                     thread_counts[t], sizes[s], chunk);
                free(par);
            }
        }
    free(serial);
    return rereads;
}

#define SAME(name, doc) same_as_serial((name), STAX_DOC(doc), NULL, part_sizes, sizeof part_sizes / sizeof part_sizes[0])

Test(parallel, fixtures, .timeout = 600) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx);
    cr_assert_gt(n, 10);
    stax_reader_options ns;
    memset(&ns, 0, sizeof ns);
    ns.flags = STAX_READ_NAMESPACES;
    for (size_t i = 0; i < n; i++) {
        same_as_serial(fx[i].name, fx[i].data, fx[i].len, NULL, part_sizes, sizeof part_sizes / sizeof part_sizes[0]);
        same_as_serial(fx[i].name, fx[i].data, fx[i].len, &ns, part_sizes + 2, 3);
    }
    stax_test_free_fixtures(fx, n);
}

/* Record-like text where a cut may fall: inside comments, CDATA sections,
 * PIs and attribute values, each holding whole fake records. */
Test(parallel, fake_records_in_markup) {
    SAME("comments", "<r><a>1</a><!-- <a>x</a><a>y</a> --><a>2</a><!--<a>--><a>3</a></r>");
    SAME("cdata", "<r><a>1</a><![CDATA[<a>x</a><a>y</a>]]><a>2</a><![CDATA[<b>]]><a>3</a></r>");
    SAME("pis", "<r><a>1</a><?p <a>x</a><a>y</a>?><a>2</a><?q <a?><a>3</a></r>");
    SAME("attributes", "<r><a v='<a>x</a>'>1</a><a v=\"<b>y</b>\" w='<c'>2</a><a>3</a></r>");
    SAME("text split by a cut", "<r><a>one two three four five six seven eight</a><a>nine</a></r>");
}

Test(parallel, depths_and_namespaces) {
    SAME("depths", "<r><a>1</a><g><a>2</a><g><a>3</a></g></g><a>4</a><h><i><j><a>5</a></j></i></h></r>");
    stax_reader_options ns;
    memset(&ns, 0, sizeof ns);
    ns.flags = STAX_READ_NAMESPACES;
    static const char doc[] = "<r xmlns='urn:r' xmlns:p='urn:p'><a>1</a><a xmlns:q='urn:q'><q:b/></a>"
                              "<p:a>2</p:a><a xmlns='urn:other'><b/></a><a xmlns:p='urn:p2'><p:c/></a></r>";
    same_as_serial("namespaces", STAX_DOC(doc), &ns, part_sizes, sizeof part_sizes / sizeof part_sizes[0]);
    same_as_serial("namespaces, without", STAX_DOC(doc), NULL, part_sizes, sizeof part_sizes / sizeof part_sizes[0]);
}

Test(parallel, dtd_entities) {
    SAME("entities", "<!DOCTYPE r [<!ENTITY rec '<a>e</a>'><!ENTITY t 'text'><!ATTLIST a d CDATA 'dflt'>]>"
                     "<r><a>&t;</a>&rec;<a x='&t;'>2</a>&rec;&rec;<a>&#60;&lt;</a></r>");
}

/* Errors: in part 3 and in part 5 (the earlier wins), inside a comment that
 * spans a cut, and at the end. */
Test(parallel, errors) {
    static const size_t eight[] = {8};
    char doc[512];
    int n = snprintf(doc, sizeof doc, "<r><a>1111</a><a>2222</a><a>3&bad;</a><a>4444</a><a>5<</a><a>6666</a></r>");
    size_t r = same_as_serial("errors in 3 and 5", doc, (size_t)n, NULL, eight, 1);
    (void)r;
    SAME("error in a comment over cuts", "<r><a>1</a><!-- <a>2</a> <a>3</a> -- <a>4</a> --><a>5</a></r>");
    SAME("mismatch late", "<r><a>1</a><a>2</a><a>3</a><a>4</a></b>");
    SAME("truncated", "<r><a>1</a><a>2</a><a>3</a><a>4</a>");
    SAME("bad utf-8 in a part", "<r><a>1</a><a>\xC3\x28</a><a>3</a></r>");
    SAME("two roots", "<r><a>1</a></r><r/>");
    SAME("text after the root", "<r><a>1</a></r> x <a/>");
}

/* 2,000 records in <db> after head, read in parts of 1000 and 4096 bytes:
 * none is read again. */
static void records_guessed_right(const char *what, const char *head) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, head);
    stax_test_buf_puts(&b, "<db>\n");
    for (int i = 0; i < 2000; i++) stax_test_buf_printf(&b, "  <rec id='%d'><name>n%d</name><v>%d</v></rec>\n", i, i, i * 7);
    stax_test_buf_puts(&b, "</db>\n");
    static const size_t sizes[] = {1000, 4096};
    cr_assert_eq(same_as_serial(what, b.p, b.len, NULL, sizes, 2), 0, "%s: parts read again", what);
    stax_test_buf_free(&b);
}

/* The cut at every candidate point of the fixtures is covered by part size 1;
 * here, that a record-like document is not read again at any cut. */
Test(parallel, records_are_guessed_right) { records_guessed_right("records", "<?xml version='1.0'?>\n"); }

/* The same after a DTD that declares entities (not used in the records):
 * the context holds them in the order they were declared, so a part's end
 * context and the guess, saved by readers whose tables hash alike under
 * different keys, are equal byte for byte. Saved in table order, every part
 * but the first was read again. */
Test(parallel, records_after_entity_declarations_are_guessed_right) {
    stax_test_buf h = {0};
    stax_test_buf_puts(&h, "<!DOCTYPE db [<!ENTITY % p 'pe'><!ATTLIST rec id CDATA #IMPLIED>");
    for (int i = 0; i < 40; i++) stax_test_buf_printf(&h, "<!ENTITY e%d 'v%d'>", i, i);
    stax_test_buf_puts(&h, "<!ENTITY x SYSTEM 'x.xml'>]>\n");
    records_guessed_right("records after a DTD", h.p);
    stax_test_buf_free(&h);
}

/* The reads that are left on one core still give the same result. */
/* ---------------------------------------------------------------- through a read function (a pipe) */

/* Counts the live allocations of `size` bytes (the feeder's buffers), and
 * the most there were at once. */
typedef struct buf_count {
    pthread_mutex_t mu;
    size_t size, live, most;
} buf_count;

static void *counting_alloc(void *ud, void *p, size_t old, size_t n) {
    buf_count *c = (buf_count *)ud;
    pthread_mutex_lock(&c->mu);
    if (old == c->size && p) c->live--;
    if (n == c->size) c->live++;
    if (c->live > c->most) c->most = c->live;
    pthread_mutex_unlock(&c->mu);
    if (!n) {
        __real_free(p);
        return NULL;
    }
    return __real_realloc(p, n);
}

static char *records(int n) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<?xml version='1.0'?>\n<db>\n");
    for (int i = 0; i < n; i++) stax_test_buf_printf(&b, "  <rec id='%d'><name>n%d</name><v>%d</v></rec>\n", i, i, i * 7);
    stax_test_buf_puts(&b, "</db>\n");
    return b.p;
}

Test(parallel, pipe_records_in_parts_within_the_buffers) {
    char *doc = records(20000); /* about 1 MiB: many times the buffers */
    size_t len = strlen(doc);
    char *serial = stax_test_events_ex(doc, len, 0, NULL, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
    static const unsigned threads[] = {2, 4};
    for (size_t t = 0; t < 2; t++)
        for (size_t c = 0; c < sizeof pipe_chunks / sizeof pipe_chunks[0]; c++) {
            size_t psize = 1000;
            buf_count count = {PTHREAD_MUTEX_INITIALIZER, 2 * psize + (64u << 10), 0, 0};
            stax_reader_options ro;
            memset(&ro, 0, sizeof ro);
            ro.alloc = counting_alloc;
            ro.alloc_ud = &count;
            stax_parallel_result res;
            char *par = parallel_dump_in(doc, len, &ro, threads[t], psize, &res, pipe_chunks[c]);
            cr_assert_str_eq(par, serial, "%u threads, read by %zu", threads[t], pipe_chunks[c]);
            cr_assert_gt(res.parts, len / psize / 2, "%zu parts", res.parts);
            cr_assert_eq(res.rereads, 0, "%u threads, read by %zu: %zu parts read again", threads[t], pipe_chunks[c],
                         res.rereads);
            size_t slots = stax_parallel_slots(threads[t]);
            cr_assert_leq(count.most, slots, "%zu buffers at once, more than %zu", count.most, slots);
            cr_assert_eq(count.most, res.buffers);
            cr_assert_eq(count.live, 0);
            free(par);
        }
    free(serial);
    free(doc);
}

/* A text longer than a buffer: no cut in it, the rest is read serially. */
Test(parallel, pipe_long_text_and_long_prolog) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<r><a>x</a><a>");
    for (int i = 0; i < 30000; i++) stax_test_buf_puts(&b, "text ");
    stax_test_buf_puts(&b, "</a><a>y</a><a>z</a></r>");
    stax_test_buf d = {0}; /* a DOCTYPE longer than a buffer */
    stax_test_buf_puts(&d, "<!DOCTYPE r [\n");
    for (int i = 0; i < 3000; i++) stax_test_buf_printf(&d, "<!ENTITY e%d 'value of %d'>\n", i, i);
    stax_test_buf_puts(&d, "]><r><a>&e1;</a><a>&e2999;</a></r>");
    const stax_test_buf *docs[] = {&b, &d};
    for (size_t i = 0; i < 2; i++) {
        char *serial = stax_test_events_ex(docs[i]->p, docs[i]->len, 0, NULL, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
        for (size_t c = 0; c < sizeof pipe_chunks / sizeof pipe_chunks[0]; c++) {
            stax_parallel_result res;
            char *par = parallel_dump_in(docs[i]->p, docs[i]->len, NULL, 3, 2, &res, pipe_chunks[c]);
            cr_assert_str_eq(par, serial, "document %zu, read by %zu", i, pipe_chunks[c]);
            free(par);
        }
        free(serial);
    }
    stax_test_buf_free(&b);
    stax_test_buf_free(&d);
}

/* A read function that fails after `at` bytes. */
typedef struct failing_in {
    pipe_in in;
    size_t at;
} failing_in;

static int failing_read(void *ud, void *buf, size_t cap, size_t *got) {
    failing_in *f = (failing_in *)ud;
    if (f->in.at >= f->at) return 12345;
    if (cap > f->at - f->in.at) cap = f->at - f->in.at;
    return pipe_read(&f->in, buf, cap, got);
}

Test(parallel, pipe_read_errors) {
    char *doc = records(500);
    size_t len = strlen(doc);
    static const unsigned threads[] = {1, 2, 4};
    for (size_t t = 0; t < 3; t++)
        for (size_t at = 0; at < len; at += at < 40 ? 1 : len / 7) { /* each byte of the prolog and first name */
            failing_in f = {{doc, len, 0, 100, 1, 0}, at};
            stax_parallel_options o;
            memset(&o, 0, sizeof o);
            o.threads = threads[t];
            o.part_size = 300;
            stax_parallel_result res;
            cr_assert_eq(stax_parallel_read_fn(failing_read, &f, &o, &res), 12345, "%u threads, failing at %zu",
                         threads[t], at);
        }
    /* an error before the failure wins, as it would serially */
    char *bad = strstr(doc, "<rec id='200'>");
    bad[1] = '!';
    char *serial = stax_test_events_ex(doc, len, 0, NULL, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
    for (size_t t = 0; t < 3; t++) {
        failing_in f = {{doc, len, 0, 100, 1, 0}, len - 10};
        stax_parallel_options o;
        memset(&o, 0, sizeof o);
        o.threads = threads[t];
        o.part_size = 300;
        stax_parallel_result res;
        int st = stax_parallel_read_fn(failing_read, &f, &o, &res);
        char line[512];
        snprintf(line, sizeof line, "ERROR %s @%llu:%llu:%llu: %s", stax_test_status_name(st),
                 (unsigned long long)res.err_pos.line, (unsigned long long)res.err_pos.column,
                 (unsigned long long)res.err_pos.offset, res.message);
        cr_assert_str_eq(line, status_line(serial), "%u threads", threads[t]);
    }
    free(serial);
    cr_assert_eq(stax_parallel_read_fn(NULL, NULL, NULL, NULL), STAX_E_USAGE);
    free(doc);
}

Test(parallel, serial_fallbacks) {
    static const char doc[] = "<r><a>1</a><a>2</a></r>";
    stax_parallel_result res;
    char *a = parallel_dump(STAX_DOC(doc), NULL, 1, 0, &res);
    cr_assert_eq(res.parts, 1);
    char *serial = stax_test_events_ex(STAX_DOC(doc), 0, NULL, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
    cr_assert_str_eq(a, serial);
    free(a);
    free(serial);
    cr_assert_eq(stax_parallel_read(NULL, 3, NULL, NULL), STAX_E_USAGE);
    stax_parallel_options o;
    memset(&o, 0, sizeof o);
    cr_assert_lt(stax_parallel_read(NULL, 0, &o, &res), 0);
    cr_assert_str_eq(res.message, "no root element");
    cr_assert_geq(stax_parallel_threads(0), 1);
    /* a reader in a fixed block: one block, so one reader, on this thread */
    stax_reader_options fixed;
    memset(&fixed, 0, sizeof fixed);
    fixed.memory_size = 1u << 16;
    fixed.memory = malloc(fixed.memory_size);
    cr_assert_not_null(fixed.memory);
    a = parallel_dump(STAX_DOC(doc), &fixed, 4, 3, &res);
    cr_assert_eq(res.parts, 1);
    serial = stax_test_events_ex(STAX_DOC(doc), 0, &fixed, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
    cr_assert_str_eq(a, serial);
    free(a);
    /* and through a read function, as one part (as without threads) */
    for (size_t c = 0; c < sizeof pipe_chunks / sizeof pipe_chunks[0]; c++) {
        a = parallel_dump_in(STAX_DOC(doc), &fixed, 4, 3, &res, pipe_chunks[c]);
        cr_assert_eq(res.parts, 1);
        cr_assert_str_eq(a, serial);
        free(a);
        a = parallel_dump_in(STAX_DOC(doc), NULL, 1, 0, &res, pipe_chunks[c]);
        cr_assert_eq(res.parts, 1);
        cr_assert_eq(res.buffers, 0);
        cr_assert_str_eq(a, serial);
        free(a);
    }
    free(serial);
    free(fixed.memory);
}

/* build/gen's document of a shape, 256 KiB (NUL-terminated). */
static char *generated(const char *shape) {
    char cmd[256];
    size_t cap = (1u << 18) + 2;
    char *out = (char *)malloc(cap);
    cr_assert_not_null(out);
    snprintf(cmd, sizeof cmd, "build/gen -s %s 0.25 7", shape);
    cr_assert_eq(stax_test_shell(cmd, out, cap), 0, "%s failed", cmd);
    cr_assert_eq(strlen(out), (size_t)1 << 18, "%s: not 256 KiB", cmd);
    return out;
}

Test(parallel, generated_shapes, .timeout = 900) {
    static const char *shapes[] = {"mixed-dump", "record", "attrs", "text", "deep", "mixed", "nonascii"};
    static const size_t sizes[] = {997, 65536};
    if (access("build/gen", X_OK) != 0) cr_skip_test("build/gen not built (make build/gen)");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char *doc = generated(shapes[i]);
        same_as_serial(shapes[i], doc, strlen(doc), NULL, sizes, 2);
        free(doc);
    }
}

/* ---------------------------------------------------------------- the tool */

/* `stax ARGS FILE` with stdout and stderr, and its exit status, as one string. */
static char *tool(const char *args, const char *file) {
    char cmd[1024], *out = (char *)malloc(1 << 16);
    cr_assert_not_null(out);
    snprintf(cmd, sizeof cmd, "%s %s %s 2>&1", stax_test_bin(), args, file);
    int rc = stax_test_shell(cmd, out, 1 << 16);
    size_t n = strlen(out);
    snprintf(out + n, (1 << 16) - n, "exit %d\n", rc);
    return out;
}

static const char *const small_parts[] = {"-j 4 --part-size 7", "-j 2 --part-size 100", "-j 0 --part-size 1", "-j 3",
                                           NULL};

/* check and count with each of modes (-j 4, -j 0, ... and small parts) print what -j 1 prints. */
static void tool_same_in(const char *file, const char *const *modes) {
    static const char *const cmds[] = {"check", "count", "--namespaces count"};
    static size_t turn;
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char args[256];
        snprintf(args, sizeof args, "-j 1 %s", cmds[c]);
        char *serial = tool(args, file);
        for (size_t m = 0; modes[m]; m++) {
            if (!stax_test_sampled(turn++)) continue; /* a sample, rotating (harness.h) */
            snprintf(args, sizeof args, "%s %s", modes[m], cmds[c]);
            char *par = tool(args, file);
            cr_assert_str_eq(par, serial, "stax %s %s", args, file);
            free(par);
        }
        free(serial);
    }
}

static void tool_same(const char *file) { tool_same_in(file, small_parts); }

static void write_file(const char *path, const char *doc) {
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fputs(doc, f);
    cr_assert_eq(fclose(f), 0);
}

Test(parallel, tool_output_equals_one_thread, .timeout = 600) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx);
    char path[512];
    for (size_t i = 0; i < n; i++) {
        if (!stax_test_sampled(i)) continue; /* every 4th under the sanitizers and qemu */
        snprintf(path, sizeof path, "fixtures/%s", fx[i].name);
        tool_same(path);
    }
    stax_test_free_fixtures(fx, n);
    static const char *const docs[] = {
        "<r><a>1111</a><a>2222</a><a>3&bad;</a><a>4444</a><a>5<</a><a>6666</a></r>",
        "<r><a>1</a><!-- <a>2</a> <a>3</a> -- <a>4</a> --><a>5</a></r>",
        "<r><a v='<a>x</a>'>1</a><![CDATA[<a>x</a>]]><?p <a>?><a>3</a></r>",
        "<r xmlns:p='urn:p'><a>1</a><a xmlns:q='urn:q'><q:b/></a><p:a>2</p:a><x:a/></r>",
    };
    char dir[] = "/tmp/stax-parallel-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        snprintf(path, sizeof path, "%s/doc%zu.xml", dir, i);
        write_file(path, docs[i]);
        tool_same(path);
        unlink(path);
    }
    rmdir(dir);
}

/* The serial read's error wins over a later one, and a compressed input is
 * refused, with -j as without it. */
Test(parallel, tool_errors_and_refusals) {
    char dir[] = "/tmp/stax-parallel-XXXXXX", path[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bad.xml", dir);
    write_file(path, "<r><a>1</a><a>2</a><a>3&bad;</a><a>4</a><a>5<</a></r>");
    char *out = tool("-j 4 --part-size 5 check", path);
    cr_assert(strstr(out, ":1:24: undefined entity 'bad'") != NULL, "%s", out);
    cr_assert(strstr(out, "exit 1\n") != NULL, "%s", out);
    free(out);
    write_file(path, "\x1f\x8b\x08\x00");
    out = tool("-j 2 check", path);
    cr_assert(strstr(out, "gzip-compressed") != NULL, "%s", out);
    cr_assert(strstr(out, "exit 2\n") != NULL, "%s", out);
    free(out);
    /* from a pipe, the same refusal as with -j 1 (the first bytes read) */
    for (int c = 0; c < 2; c++) {
        char cmd[1024], one[4096], par[4096];
        const char *what = c ? "select //a" : "check";
        snprintf(cmd, sizeof cmd, "cat %s | %s -j 1 %s 2>&1; echo \"exit $?\"", path, stax_test_bin(), what);
        stax_test_shell(cmd, one, sizeof one);
        snprintf(cmd, sizeof cmd, "cat %s | %s -j 3 --part-size 2 %s 2>&1; echo \"exit $?\"", path, stax_test_bin(), what);
        stax_test_shell(cmd, par, sizeof par);
        char want[512];
        snprintf(want, sizeof want, "-: input is gzip-compressed; decompress it first: ... | zcat | stax -j %s %s\nexit 2\n",
                 "1", what);
        cr_assert_str_eq(one, want);
        snprintf(want, sizeof want, "-: input is gzip-compressed; decompress it first: ... | zcat | stax -j %s %s\nexit 2\n",
                 "3 --part-size 2", what);
        cr_assert_str_eq(par, want);
    }
    out = tool("-j x check", path);
    cr_assert(strstr(out, "-j takes a number") != NULL, "%s", out);
    free(out);
    unlink(path);
    rmdir(dir);
}

/* The whole of a file (NULL when it cannot be read), its length in *len. */
static char *load(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *doc = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (doc = (char *)malloc((size_t)n + 1)) != NULL)
        *len = fread(doc, 1, (size_t)n, f);
    fclose(f);
    return doc;
}

/* A sample of the W3C suite's documents (well-formed and not), with a cut at
 * every candidate point (parts of 1 byte) and at others. */
Test(parallel, w3c_sample, .timeout = 900) {
    const char *dir = getenv("STAX_XMLCONF") ? getenv("STAX_XMLCONF") : "build/xmlconf";
    char cmd[4096], *list = (char *)malloc(1 << 20);
    cr_assert_not_null(list);
    snprintf(cmd, sizeof cmd, "find %s/package/xmlconf/xmltest %s/package/xmlconf/ibm/valid %s/package/xmlconf/oasis "
             "-name '*.xml' 2>/dev/null | sort | awk 'NR %% 3 == 0' | head -n 500", dir, dir, dir);
    stax_test_shell(cmd, list, 1 << 20);
    if (!*list) cr_skip_test("W3C suite not fetched (make conformance fetches it)");
    static const size_t sizes[] = {1, 7, 61};
    size_t docs = 0, listed = 0;
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        if (!stax_test_sampled(listed++)) continue; /* every 4th under the sanitizers and qemu */
        size_t len = 0;
        char *doc = load(line, &len);
        if (!doc) continue;
        same_as_serial(line, doc, len, NULL, sizes, 3);
        docs++;
        free(doc);
    }
    free(list);
    cr_log_info("W3C sample: %zu documents", docs);
    cr_assert_gt(listed, 300);
    cr_assert_gt(docs, stax_test_full() ? 300 : 75);
}

/* The generated shapes through the tool, in parts of 16 KiB and 1000 bytes. */
Test(parallel, tool_generated_shapes, .timeout = 600) {
    static const char *shapes[] = {"mixed-dump", "record", "attrs", "text", "deep", "mixed", "nonascii"};
    static const char *const modes[] = {"-j 4 --part-size 16K", "-j 2 --part-size 1000", NULL};
    if (access("build/gen", X_OK) != 0) cr_skip_test("build/gen not built (make build/gen)");
    char dir[] = "/tmp/stax-parallel-XXXXXX", path[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/shape.xml", dir);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char *doc = generated(shapes[i]);
        write_file(path, doc);
        free(doc);
        tool_same_in(path, modes);
    }
    unlink(path);
    rmdir(dir);
}

/* --progress with -j: the parts done, drawn in place, up to the whole file, then erased. */
static void progress_of_check(int via_pipe) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<db>");
    while (b.len < (1u << 20)) stax_test_buf_puts(&b, "<rec><name>a name</name><v>123</v></rec>\n");
    stax_test_buf_puts(&b, "</db>\n");
    char dir[] = "/tmp/stax-parallel-XXXXXX", path[512];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/big.xml", dir);
    write_file(path, b.p);
    stax_test_buf_free(&b);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.name = "big.xml";
    o.progress = 2;
    o.jobs = 2;
    o.part_size = 1u << 18;
    o.quiet = 0;
    /* stderr into a pipe (the few progress lines fit in it) */
    int fds[2], keep = dup(2);
    cr_assert_eq(pipe(fds), 0);
    fflush(stderr);
    dup2(fds[1], 2);
    int rc = 0;
    if (via_pipe) { /* a pipe: the file written into it by a child */
        int in[2];
        cr_assert_eq(pipe(in), 0);
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0) {
            close(in[0]);
            char buf[65536];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                if (write(in[1], buf, n) != (ssize_t)n) _exit(1);
            _exit(0);
        }
        close(in[1]);
        rc = stax_cmd_check(&o, in[0]);
        close(in[0]);
        waitpid(pid, NULL, 0);
    } else {
        rc = stax_cmd_check(&o, fileno(f));
    }
    fflush(stderr);
    dup2(keep, 2);
    close(keep);
    close(fds[1]);
    fclose(f);
    char text[4096] = {0};
    ssize_t got = read(fds[0], text, sizeof text - 1);
    close(fds[0]);
    cr_assert_eq(rc, 0);
    size_t n = got > 0 ? (size_t)got : 0;
    if (via_pipe) /* no total to give a share of */
        cr_assert(strstr(text, "\rbig.xml: 1.0") != NULL, "%s", text);
    else
        cr_assert(strstr(text, "\rbig.xml: 256.") != NULL && strstr(text, "(100%)") != NULL, "%s", text);
    cr_assert(n > 4 && strcmp(text + n - 4, "\r\033[K") == 0, "not erased at the end: %s", text);
    unlink(path);
    rmdir(dir);
}

Test(parallel, tool_progress) { progress_of_check(0); }
Test(parallel, tool_progress_from_a_pipe) { progress_of_check(1); }

/* ---------------------------------------------------------------- ranges: cuts, move, equal */

/* The cuts of n ranges: from 0 to len, in order, each inner one a '<' and a
 * name start character at or after the first cut; the guess at the first
 * cut moves to every range's start and reads from there. */
static void cuts_of(const char *doc, size_t n, int want_guess) {
    size_t len = strlen(doc), cap = stax_context_max_size(NULL), glen = 99;
    uint64_t *cuts = calloc(n + 1, sizeof *cuts);
    unsigned char *g = malloc(cap);
    cr_assert_eq(stax_parallel_cuts(doc, len, NULL, n, cuts, g, cap, &glen), STAX_OK);
    cr_assert_eq(cuts[0], 0);
    cr_assert_eq(cuts[n], len);
    cr_assert_eq(glen != 0, want_guess, "%zu ranges of '%s': guess of %zu bytes", n, doc, glen);
    stax_pos first;
    if (glen) cr_assert_eq(stax_context_position(g, glen, &first), STAX_OK);
    for (size_t k = 1; k < n; k++) {
        cr_assert_leq(cuts[k - 1], cuts[k]);
        if (cuts[k] == len) continue;
        cr_assert(glen && cuts[k] >= first.offset, "cut %zu at %llu", k, (unsigned long long)cuts[k]);
        cr_assert_eq(doc[cuts[k]], '<', "cut %zu at %llu", k, (unsigned long long)cuts[k]);
        stax_pos at = {cuts[k], 1, 1}, back;
        cr_assert_eq(stax_context_move(g, glen, at), STAX_OK);
        cr_assert_eq(stax_context_position(g, glen, &back), STAX_OK);
        cr_assert(back.offset == at.offset && back.line == 1 && back.column == 1);
        stax_reader *r = stax_reader_new(NULL);
        cr_assert_eq(stax_reader_resume(r, g, glen), STAX_OK, "%s", stax_reader_message(r));
        stax_reader_free(r);
    }
    free(g);
    free(cuts);
}

Test(parallel, range_cuts) {
    const char *recs = "<?xml version='1.0'?><db><r>1</r><r>2</r><r>3</r><r>4</r><r>5</r><r>6</r><r>7</r></db>";
    for (size_t n = 1; n <= 12; n++) cuts_of(recs, n, n > 1);
    cuts_of("<r>one text node, no element in it</r>", 4, 0);
    cuts_of("<r><a>1</a></r><!-- after -->", 3, 1);
    cuts_of("<r><a>1</a><bad", 3, 1);
    cuts_of("<!DOCTYPE r [<!ENTITY e 'x'>]><r>&bad;<a/></r>", 3, 0); /* the prolog stops in an error */
    /* the guess needs room; every cut is at len meanwhile */
    uint64_t cuts[4];
    size_t glen = 0;
    unsigned char small[8];
    cr_assert_eq(stax_parallel_cuts(recs, strlen(recs), NULL, 3, cuts, small, sizeof small, &glen), STAX_E_FULL);
    cr_assert_gt(glen, sizeof small);
    cr_assert(cuts[1] == strlen(recs) && cuts[2] == strlen(recs));
    /* refusals */
    stax_reader_options fixed = {0};
    char block[8192];
    fixed.memory = block;
    fixed.memory_size = sizeof block;
    cr_assert_eq(stax_parallel_cuts(recs, strlen(recs), &fixed, 3, cuts, small, sizeof small, &glen), STAX_E_USAGE);
    cr_assert_eq(stax_parallel_cuts(recs, strlen(recs), NULL, 0, cuts, small, sizeof small, &glen), STAX_E_USAGE);
    cr_assert_eq(stax_parallel_cuts(NULL, 3, NULL, 2, cuts, small, sizeof small, &glen), STAX_E_USAGE);
    cr_assert_eq(stax_parallel_cuts(recs, strlen(recs), NULL, 2, NULL, small, sizeof small, &glen), STAX_E_USAGE);
}

/* A context saved in content, its copy moved: equal but for the position;
 * another state, or any byte changed, is not equal; a broken context is not
 * moved. */
Test(parallel, context_move_and_equal) {
    const char *doc = "<db><r>1</r><r>2</r><s><r>3</r></s></db>";
    unsigned char a[4096], b[4096], c[4096];
    size_t alen = 0, clen = 0;
    stax_reader *r = stax_reader_new(NULL);
    const stax_batch *bt;
    stax_reader_feed(r, doc, 13); /* "<db><r>1</r><" */
    while (stax_reader_next(r, &bt) == STAX_OK) {
    }
    cr_assert_eq(stax_reader_save(r, a, sizeof a, &alen), STAX_OK, "%s", stax_reader_message(r));
    stax_reader_feed(r, doc + 13, 12); /* "r>2</r><s><r" */
    while (stax_reader_next(r, &bt) == STAX_OK) {
    }
    cr_assert_eq(stax_reader_save(r, c, sizeof c, &clen), STAX_OK, "%s", stax_reader_message(r));
    stax_reader_free(r);
    memcpy(b, a, alen);
    stax_pos to = {1000, 7, 9}, got;
    cr_assert_eq(stax_context_move(b, alen, to), STAX_OK);
    cr_assert_eq(stax_context_position(b, alen, &got), STAX_OK);
    cr_assert(got.offset == 1000 && got.line == 7 && got.column == 9);
    cr_assert_eq(stax_context_equal(a, alen, b, alen), 1);
    cr_assert_eq(stax_context_equal(a, alen, c, clen), 0, "depth 1 and depth 2 are not the same state");
    cr_assert_eq(stax_context_equal(a, alen, b, alen - 1), 0);
    for (size_t i = 0; i < alen; i++) {
        b[i] ^= 1;
        cr_assert_eq(stax_context_equal(a, alen, b, alen), 0, "byte %zu", i);
        cr_assert_eq(stax_context_move(b, alen, to), STAX_E_CONTEXT, "byte %zu", i);
        b[i] ^= 1;
    }
    cr_assert_eq(stax_context_equal(a, alen, b, alen), 1, "the moves refused changed nothing");
}

/* done returning STAX_AGAIN: every part after the first is read again from
 * the real end of the one before, on the calling thread, and the events are
 * still the serial ones, done once per part in order; from the last part's
 * done it is not the read's result. */
Test(parallel, done_asks_for_the_next_part_again) {
    static const char *docs[] = {
        "<db><r>1</r><r>2</r><r>3</r><r>4</r><r>5</r><r>6</r><r>7</r><r>8</r></db>",
        "<r><a>1</a><!-- <a>2</a> --><a v='<a>'>3</a><![CDATA[<a>]]><a>4</a>text<b/></r>",
        "<r><a>1</a><a>2&bad;</a><a>3</a></r>",
    };
    done_again = 1;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        int sst = 0;
        char *serial = stax_test_events_ex(docs[i], strlen(docs[i]), 0, NULL, STAX_DUMP_POS | STAX_DUMP_MESSAGE, &sst);
        static const size_t sizes[] = {1, 7, 16};
        for (size_t t = 1; t < 4; t++)
            for (size_t s = 0; s < 3; s++)
                for (size_t chunk = 0; chunk < 8; chunk += 7) {
                    stax_parallel_result res;
                    char *par = parallel_dump_in(docs[i], strlen(docs[i]), NULL, (unsigned)t + 1, sizes[s], &res, chunk);
                    cr_assert_str_eq(par, serial, "doc %zu, %zu threads, parts of %zu", i, t + 1, sizes[s]);
                    if (sst == STAX_END) cr_assert_eq(res.rereads + 1, res.parts, "%zu parts, %zu read again", res.parts, res.rereads);
                    free(par);
                }
        free(serial);
    }
    done_again = 0;
}

/* An allocator hook that must never be called: with fixed blocks nothing is allocated. */
static void *no_alloc(void *ud, void *p, size_t old_size, size_t new_size) {
    (void)ud;
    (void)p;
    (void)old_size;
    cr_assert_fail("allocated %zu bytes with fixed blocks", new_size);
    return NULL;
}

/* Fixed blocks, one per slot and one for the bookkeeping: the events of a
 * reader in a block of half their size (what each part's reader gets), in
 * parts on 2 to 4 threads, from memory and through a read function (which
 * reads on the calling thread), and the allocator never called. */
Test(parallel, fixed_blocks) {
    const char *docs[] = {
        "<db><r>1</r><r>2</r><r>3</r><r>4</r><r>5</r><r>6</r><r>7</r><r>8</r></db>",
        "<r><a>1</a><!-- <a>2</a> --><a v='<a>'>3</a><![CDATA[<a>]]><a>4</a>text<b/></r>",
        "<!DOCTYPE r [<!ENTITY e '<a>e</a>'>]><r><a>1</a>&e;<a>2</a>&e;<a>3</a></r>",
        "<r><a>1</a><a>2&bad;</a><a>3</a></r>",
        "<r>one long text with &amp; references and <![CDATA[<a>]]> no element in it</r>",
        /* cuts inside one CDATA section, one after another: part after part goes on with the
         * reader of the part before, whose block must move with it */
        NULL, /* below: a CDATA section longer than the readers' max_text, with cuts in it */
    };
    stax_test_buf long_cdata = {0};
    stax_test_buf_puts(&long_cdata, "<r><a>1</a><![CDATA[");
    while (long_cdata.len < 40000) stax_test_buf_puts(&long_cdata, "<a>x</a> <b>y</b> ");
    stax_test_buf_puts(&long_cdata, "]]><a>2</a></r>");
    docs[sizeof docs / sizeof docs[0] - 1] = long_cdata.p;
    const size_t block = 128u << 10;
    void *blocks[8];
    for (size_t i = 0; i < 8; i++) cr_assert_not_null(blocks[i] = malloc(block));
    char *serial_block = malloc(block / 2);
    stax_reader_options ro = {0}, serial_ro = {0};
    ro.alloc = no_alloc;
    serial_ro.memory = serial_block;
    serial_ro.memory_size = block / 2;
    test_blocks = blocks;
    test_block_size = block;
    static const size_t sizes[] = {1, 7, 61, 4096};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        int sst = 0;
        char *serial = stax_test_events_ex(docs[i], strlen(docs[i]), 0, &serial_ro, STAX_DUMP_POS | STAX_DUMP_MESSAGE, &sst);
        for (unsigned t = 2; t <= 4; t++)
            for (size_t s = 0; s < 4; s++)
                for (size_t chunk = 0; chunk < 8; chunk += 7) {
                    stax_parallel_result res;
                    char *par = parallel_dump_in(docs[i], strlen(docs[i]), &ro, t, sizes[s], &res, chunk);
                    if (sst == STAX_END)
                        cr_assert_str_eq(par, serial, "doc %zu, %u threads, parts of %zu, read by %zu", i, t, sizes[s], chunk);
                    else
                        cr_assert_str_eq(status_line(par), status_line(serial), "doc %zu, %u threads", i, t);
                    if (!chunk && sizes[s] < 16 && i < 3) cr_assert_gt(res.parts, 1, "doc %zu was not read in parts", i);
                    free(par);
                }
        free(serial);
    }
    /* refusals: a missing block, a reader block besides; too small: no memory */
    stax_parallel_options o;
    memset(&o, 0, sizeof o);
    o.threads = 2;
    o.part_size = 16;
    o.blocks = blocks;
    o.block_size = block;
    stax_parallel_result res;
    void *missing[5] = {blocks[0], blocks[1], blocks[2], NULL, blocks[4]};
    o.blocks = missing;
    cr_assert_eq(stax_parallel_read(docs[0], strlen(docs[0]), &o, &res), STAX_E_USAGE);
    o.blocks = blocks;
    o.reader = &serial_ro;
    cr_assert_eq(stax_parallel_read(docs[0], strlen(docs[0]), &o, &res), STAX_E_USAGE);
    o.reader = &ro;
    o.block_size = 600;
    cr_assert_eq(stax_parallel_read(docs[0], strlen(docs[0]), &o, &res), STAX_E_NOMEM);
    test_blocks = NULL;
    test_block_size = 0;
    stax_test_buf_free(&long_cdata);
    for (size_t i = 0; i < 8; i++) free(blocks[i]);
    free(serial_block);
}
