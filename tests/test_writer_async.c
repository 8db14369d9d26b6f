/* Writer sinks: chunking, the non-blocking retry rule (a sink taking random
 * amounts over many seeds; a real non-blocking pipe with poll() and a slow
 * reader), the background thread, fixed memory under the malloc guard. Every
 * run must produce exactly the bytes of the synchronous run. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ================================================================ a random document as a list of calls */

enum { O_DECL, O_DOCTYPE, O_START, O_ATTR, O_NS, O_TEXT, O_CDATA, O_COMMENT, O_PI, O_END, O_RAW };

typedef struct op {
    int kind;
    stax_str a, b;
} op;

typedef struct script {
    op *ops;
    size_t n, cap;
    char *pool; /* every string the calls use; stays put so retries see the same bytes */
    size_t pool_len, pool_cap;
} script;

static uint32_t rng_next(uint32_t *s) {
    /* xorshift32: small, seeded, the same on every machine */
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static stax_str pool_str(script *sc, const char *alphabet[], size_t nalpha, size_t len, uint32_t *rng) {
    stax_str s;
    size_t start = sc->pool_len;
    for (size_t i = 0; i < len; i++) {
        const char *piece = alphabet[rng_next(rng) % nalpha];
        size_t k = strlen(piece);
        cr_assert(sc->pool_len + k <= sc->pool_cap, "pool too small");
        memcpy(sc->pool + sc->pool_len, piece, k);
        sc->pool_len += k;
    }
    s.ptr = sc->pool + start;
    s.len = sc->pool_len - start;
    return s;
}

static void add_op(script *sc, int kind, stax_str a, stax_str b) {
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 256;
        sc->ops = realloc(sc->ops, sc->cap * sizeof *sc->ops);
        cr_assert_not_null(sc->ops);
    }
    sc->ops[sc->n].kind = kind;
    sc->ops[sc->n].a = a;
    sc->ops[sc->n].b = b;
    sc->n++;
}

static const char *alpha_text[] = {"a", "b", "c", " ", "\n", "\t", "&", "<", ">", "\"", "'", "\r", "]]>", "]", "\xc3\xa9",
                                   "\xe2\x82\xac", "\xf0\x9f\x98\x80", "lorem ", "ipsum "};
static const char *alpha_safe[] = {"a", "b", " ", "\n", "<", "&", ">", "\"", "'", "\xc3\xa9", "x-y", "?"};
static const char *alpha_name[] = {"a", "b", "c", "d", "e", "x", "y", "z"};

#define NSTR(p) (sizeof(p) / sizeof(p[0]))

/* A document of roughly `steps` calls that uses every call, with texts up to
 * `max_text` pieces long (longer than small buffers, to block mid-call). */
static script make_script(uint32_t seed, size_t steps, size_t max_text) {
    script sc;
    memset(&sc, 0, sizeof sc);
    sc.pool_cap = steps * (max_text * 6 + 64) + 4096;
    sc.pool = malloc(sc.pool_cap);
    cr_assert_not_null(sc.pool);
    uint32_t rng = seed * 2654435761u + 1;
    stax_str none = {NULL, 0};
    add_op(&sc, O_DECL, none, stax_strz("UTF-8"));
    add_op(&sc, O_DOCTYPE, stax_strz("root"), stax_strz("root.dtd"));
    add_op(&sc, O_COMMENT, stax_strz(" generated "), none);
    add_op(&sc, O_START, stax_strz("root"), none);
    int depth = 1, can_attr = 1, attrs = 0;
    for (size_t i = 0; i < steps; i++) {
        uint32_t r = rng_next(&rng) % 100;
        if (can_attr && r < 25) {
            char name[8];
            snprintf(name, sizeof name, "a%d", attrs++ % 1000);
            stax_str nm = pool_str(&sc, (const char *[]){name}, 1, 1, &rng);
            if (r < 3)
                add_op(&sc, O_NS, pool_str(&sc, alpha_name, NSTR(alpha_name), 1 + rng_next(&rng) % 3, &rng),
                       stax_strz("urn:x"));
            else
                add_op(&sc, O_ATTR, nm, pool_str(&sc, alpha_text, NSTR(alpha_text), rng_next(&rng) % max_text, &rng));
            if (r < 3) can_attr = 0; /* a second xmlns:same would be a duplicate */
            continue;
        }
        can_attr = 0;
        if (r < 40 && depth < 12) {
            add_op(&sc, O_START, pool_str(&sc, alpha_name, NSTR(alpha_name), 1 + rng_next(&rng) % 6, &rng), none);
            depth++;
            can_attr = 1;
            attrs = 0;
        } else if (r < 55 && depth > 1) {
            add_op(&sc, O_END, none, none);
            depth--;
        } else if (r < 75) {
            add_op(&sc, O_TEXT, pool_str(&sc, alpha_text, NSTR(alpha_text), rng_next(&rng) % max_text, &rng), none);
        } else if (r < 82) {
            add_op(&sc, O_CDATA, pool_str(&sc, alpha_text, NSTR(alpha_text), rng_next(&rng) % max_text, &rng), none);
        } else if (r < 88) {
            stax_str c = pool_str(&sc, alpha_safe, NSTR(alpha_safe), rng_next(&rng) % max_text, &rng);
            add_op(&sc, O_COMMENT, c, none); /* alpha_safe has no "--" and no trailing '-' */
        } else if (r < 94) {
            stax_str d = pool_str(&sc, (const char *[]){"d", " ", "<", "&", "\xc3\xa9"}, 5, rng_next(&rng) % max_text, &rng);
            add_op(&sc, O_PI, pool_str(&sc, alpha_name, NSTR(alpha_name), 1 + rng_next(&rng) % 4, &rng), d);
        } else {
            add_op(&sc, O_RAW, stax_strz("<raw/>"), none);
        }
    }
    /* finish closes the rest */
    return sc;
}

static void free_script(script *sc) {
    free(sc->ops);
    free(sc->pool);
}

static int do_op(stax_writer *w, const op *o) {
    switch (o->kind) {
    case O_DECL: return stax_writer_xml_decl(w, o->a, o->b, 0);
    case O_DOCTYPE: return stax_writer_doctype(w, o->a, (stax_str){NULL, 0}, o->b, (stax_str){NULL, 0});
    case O_START: return stax_writer_start(w, o->a);
    case O_ATTR: return stax_writer_attr(w, o->a, o->b);
    case O_NS: return stax_writer_ns(w, o->a, o->b);
    case O_TEXT: return stax_writer_text(w, o->a);
    case O_CDATA: return stax_writer_cdata(w, o->a);
    case O_COMMENT: return stax_writer_comment(w, o->a);
    case O_PI: return stax_writer_pi(w, o->a, o->b);
    case O_END: return stax_writer_end(w);
    default: return stax_writer_raw(w, o->a);
    }
}

/* Play the script. On STAX_WOULD_BLOCK: wait (if given), sometimes flush
 * (which may block too), then repeat the same call: the documented rule. */
typedef void (*wait_fn)(void *ctx);

static void play(stax_writer *w, const script *sc, wait_fn wait, void *ctx, uint32_t seed) {
    uint32_t rng = seed | 1;
    for (size_t i = 0; i <= sc->n; i++) {
        int st;
        for (;;) {
            st = i < sc->n ? do_op(w, &sc->ops[i]) : stax_writer_finish(w);
            if (st != STAX_WOULD_BLOCK) break;
            if (wait) wait(ctx);
            if (rng_next(&rng) % 4 == 0) {
                while (stax_writer_flush(w) == STAX_WOULD_BLOCK)
                    if (wait) wait(ctx);
            }
        }
        cr_assert_eq(st, STAX_OK, "call %zu (kind %d) returned %d", i, i < sc->n ? sc->ops[i].kind : -1, st);
    }
}

static stax_writer *new_writer(size_t buffer, unsigned indent, unsigned flags) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = buffer;
    o.indent_width = indent;
    o.flags = flags;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    return w;
}

/* The reference: the same script into a growable memory sink. */
static char *reference(const script *sc, unsigned indent, size_t *len) {
    stax_writer *w = new_writer(0, indent, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    play(w, sc, NULL, NULL, 1);
    stax_str m = stax_writer_memory(w);
    char *out = malloc(m.len + 1);
    memcpy(out, m.ptr, m.len);
    *len = m.len;
    stax_writer_free(w);
    return out;
}

/* ================================================================ a capturing sink */

typedef struct capture {
    char *p;
    size_t len, cap;
    size_t max_offer, buffer;
    size_t offers, short_offers; /* offers smaller than the buffer */
    uint32_t rng;
    int random; /* take random amounts, often nothing */
    int delay;  /* sleep now and then (background thread test) */
} capture;

static void cap_append(capture *c, const void *data, size_t n) {
    if (c->len + n > c->cap) {
        while (c->len + n > c->cap) c->cap = c->cap ? c->cap * 2 : 65536;
        c->p = realloc(c->p, c->cap);
        cr_assert_not_null(c->p);
    }
    if (n) memcpy(c->p + c->len, data, n);
    c->len += n;
}

static ptrdiff_t cap_sink(void *ctx, const void *data, size_t len) {
    capture *c = ctx;
    if (len > c->max_offer) c->max_offer = len;
    c->offers++;
    if (len != c->buffer) c->short_offers++;
    size_t take = len;
    if (c->random) {
        uint32_t r = rng_next(&c->rng);
        take = r % 3 == 0 ? 0 : (size_t)(r >> 8) % (len + 1);
    }
    if (c->delay && rng_next(&c->rng) % 8 == 0) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    cap_append(c, data, take);
    return (ptrdiff_t)take;
}

static void expect_same(const char *got, size_t got_len, const char *want, size_t want_len, const char *what) {
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i]) i++;
    cr_assert(got_len == want_len && i == want_len, "%s: outputs differ at byte %zu (lengths %zu vs %zu)", what, i,
              got_len, want_len);
}

/* ================================================================ tests */

Test(writer_async, chunks_of_the_buffer_size) {
    script sc = make_script(7, 400, 300);
    size_t want_len;
    char *want = reference(&sc, 2, &want_len);
    capture c = {0};
    c.buffer = 4096;
    stax_writer *w = new_writer(4096, 2, 0);
    cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
    play(w, &sc, NULL, NULL, 1);
    expect_same(c.p, c.len, want, want_len, "sync");
    cr_assert(want_len > 10 * 4096);
    cr_assert_eq(c.max_offer, 4096);
    cr_assert_eq(c.short_offers, 1, "only the final flush is short, got %zu", c.short_offers);
    cr_assert_eq(stax_writer_bytes_out(w), want_len);
    stax_writer_free(w);
    free(c.p);
    free(want);
    free_script(&sc);
}

Test(writer_async, random_amounts_many_seeds) {
    for (uint32_t seed = 1; seed <= 300; seed++) {
        script sc = make_script(seed, 60 + seed % 50, 1 + seed % 200);
        unsigned indent = seed % 3;
        size_t want_len;
        char *want = reference(&sc, indent, &want_len);
        capture c = {0};
        c.random = 1;
        c.rng = seed;
        size_t buffer = STAX_WRITER_MIN_BUFFER + (seed * 37) % 700;
        c.buffer = buffer;
        stax_writer *w = new_writer(buffer, indent, 0);
        cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
        play(w, &sc, NULL, NULL, seed);
        char what[32];
        snprintf(what, sizeof what, "seed %u", seed);
        expect_same(c.p, c.len, want, want_len, what);
        cr_assert(c.max_offer <= buffer, "memory bounded by the buffer");
        stax_writer_free(w);
        free(c.p);
        free(want);
        free_script(&sc);
    }
}

Test(writer_async, one_huge_text_resumes_linearly) {
    /* a 4 MiB text through a 64-byte buffer and a sink that takes random
     * amounts: many thousands of retries of one call */
    size_t n = 4u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++) text[i] = "ab&<\r]]>"[i % 8];
    stax_writer *w = new_writer(64, 0, 0);
    capture c = {0};
    c.random = 1;
    c.rng = 99;
    c.buffer = 64;
    stax_writer_set_sink(w, cap_sink, &c);
    stax_writer_start_z(w, "t");
    stax_str s = {text, n};
    unsigned long retries = 0;
    int st;
    while ((st = stax_writer_text(w, s)) == STAX_WOULD_BLOCK) retries++;
    cr_assert_eq(st, STAX_OK);
    while ((st = stax_writer_finish(w)) == STAX_WOULD_BLOCK) retries++;
    cr_assert_eq(st, STAX_OK);
    cr_assert(retries > 1000);
    /* expected: every 8-byte group "ab&<\r]]>" escapes to this */
    const char *group = "ab&amp;&lt;&#13;]]&gt;";
    size_t gl = strlen(group);
    cr_assert_eq(c.len, 3 + (n / 8) * gl + 4);
    cr_assert(memcmp(c.p, "<t>", 3) == 0);
    for (size_t i = 0; i < n / 8; i++) cr_assert(memcmp(c.p + 3 + i * gl, group, gl) == 0, "group %zu", i);
    cr_assert(memcmp(c.p + c.len - 4, "</t>", 4) == 0);
    stax_writer_free(w);
    free(c.p);
    free(text);
}

static ptrdiff_t refuse_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    (void)len;
    return *(int *)ctx ? (ptrdiff_t)len : 0;
}

Test(writer_async, retry_rule_is_enforced) {
    int open = 0;
    stax_writer *w = new_writer(64, 0, 0);
    stax_writer_set_sink(w, refuse_sink, &open);
    stax_writer_start_z(w, "r");
    char big[200];
    memset(big, 'x', sizeof big);
    stax_str s = {big, sizeof big};
    cr_assert_eq(stax_writer_text(w, s), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_comment_z(w, "c"), STAX_E_STATE);     /* another call */
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_finish(w), STAX_E_STATE);
    stax_str shorter = {big, 100};
    cr_assert_eq(stax_writer_text(w, shorter), STAX_E_USAGE);      /* same call, other arguments */
    cr_assert_eq(stax_writer_flush(w), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_text(w, s), STAX_WOULD_BLOCK);
    open = 1;
    cr_assert_eq(stax_writer_flush(w), STAX_OK); /* drains, but the call is still unfinished */
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_text(w, s), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_bytes_out(w), 3 + 200 + 4);
    stax_writer_free(w);
}

static ptrdiff_t failing_sink(void *ctx, const void *data, size_t len) {
    (void)ctx;
    (void)data;
    (void)len;
    return STAX_E_IO;
}

Test(writer_async, sink_error_is_sticky) {
    stax_writer *w = new_writer(64, 0, 0);
    stax_writer_set_sink(w, failing_sink, NULL);
    stax_writer_start_z(w, "r");
    char big[100];
    memset(big, 'x', sizeof big);
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_E_IO);
    cr_assert_eq(stax_writer_status(w), STAX_E_IO);
    cr_assert_eq(stax_writer_text_z(w, "y"), STAX_E_IO);
    cr_assert_eq(stax_writer_end(w), STAX_E_IO);
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    stax_writer_free(w);
}

/* ================================================================ a real non-blocking pipe */

typedef struct slow_reader {
    int fd;
    capture out;
} slow_reader;

static void *slow_reader_main(void *arg) {
    slow_reader *r = arg;
    char buf[3000];
    uint32_t rng = 12345;
    for (;;) {
        size_t want = 1 + rng_next(&rng) % sizeof buf;
        ssize_t k = read(r->fd, buf, want);
        if (k == 0) break;
        if (k < 0) {
            if (errno == EINTR) continue;
            break;
        }
        cap_append(&r->out, buf, (size_t)k);
        if (rng_next(&rng) % 4 == 0) {
            struct timespec ts = {0, 50000 + (long)(rng_next(&rng) % 200000)};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

static unsigned long pipe_waits;

static void wait_writable(void *ctx) {
    pipe_waits++;
    struct pollfd p = {*(int *)ctx, POLLOUT, 0};
    int k = poll(&p, 1, 5000);
    cr_assert(k == 1, "poll timed out or failed");
}

Test(writer_async, nonblocking_pipe_with_poll_and_slow_reader) {
    script sc = make_script(2024, 6000, 400);
    size_t want_len;
    char *want = reference(&sc, 2, &want_len);
    cr_assert(want_len > (1u << 20), "the document must overflow the pipe many times");
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK), 0);
    slow_reader r;
    memset(&r, 0, sizeof r);
    r.fd = p[0];
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, slow_reader_main, &r), 0);
    stax_writer *w = new_writer(8192, 2, 0);
    cr_assert_eq(stax_writer_set_fd(w, p[1]), STAX_OK);
    play(w, &sc, wait_writable, &p[1], 77);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    expect_same(r.out.p, r.out.len, want, want_len, "pipe");
    cr_assert(pipe_waits > 10, "the pipe blocked only %lu times", pipe_waits);
    stax_writer_free(w);
    free(r.out.p);
    free(want);
    free_script(&sc);
}

/* ================================================================ background thread */

Test(writer_async, background_thread_same_bytes) {
    script sc = make_script(5, 2000, 300);
    size_t want_len;
    char *want = reference(&sc, 2, &want_len);
    capture c = {0};
    c.delay = 1;
    c.rng = 3;
    c.buffer = 1024;
    stax_writer *w = new_writer(1024, 2, STAX_WRITE_BACKGROUND);
    cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
    play(w, &sc, NULL, NULL, 1);
    cr_assert_eq(stax_writer_bytes_out(w), want_len);
    stax_writer_free(w);
    expect_same(c.p, c.len, want, want_len, "background");
    cr_assert_eq(c.max_offer, 1024);
    free(c.p);
    free(want);
    free_script(&sc);
}

Test(writer_async, background_thread_pipe) {
    script sc = make_script(6, 1000, 300);
    size_t want_len;
    char *want = reference(&sc, 0, &want_len);
    int p[2];
    cr_assert_eq(pipe(p), 0);
    slow_reader r;
    memset(&r, 0, sizeof r);
    r.fd = p[0];
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, slow_reader_main, &r), 0);
    stax_writer *w = new_writer(4096, 0, STAX_WRITE_BACKGROUND);
    cr_assert_eq(stax_writer_set_fd(w, p[1]), STAX_OK);
    play(w, &sc, NULL, NULL, 1);
    stax_writer_free(w);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    expect_same(r.out.p, r.out.len, want, want_len, "background pipe");
    free(r.out.p);
    free(want);
    free_script(&sc);
}

/* ================================================================ fixed memory */

static _Alignas(16) unsigned char block[16384];
static char outbuf[1 << 20];

Test(writer_async, fixed_block_never_mallocs) {
    script sc = make_script(11, 300, 100);
    size_t want_len;
    char *want = reference(&sc, 2, &want_len);
    cr_assert(want_len < sizeof outbuf);
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.memory = block;
    o.memory_size = sizeof block;
    o.buffer_size = 4096;
    o.indent_width = 2;
    stax_test_forbid_malloc = 1;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_E_USAGE); /* no growable sink without an allocator */
    cr_assert_eq(stax_writer_set_memory(w, outbuf, sizeof outbuf), STAX_OK);
    play(w, &sc, NULL, NULL, 1);
    stax_str m = stax_writer_memory(w);
    stax_writer_free(w);
    stax_test_forbid_malloc = 0;
    expect_same(m.ptr, m.len, want, want_len, "fixed");
    free(want);
    free_script(&sc);
}

Test(writer_async, fixed_block_depth_is_what_the_stack_holds) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.memory = block;
    o.memory_size = sizeof block;
    o.buffer_size = 8192;
    stax_test_forbid_malloc = 1;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, outbuf, sizeof outbuf), STAX_OK);
    size_t room = stax_writer_stack_room(w);
    /* each level: a 10-byte name + 8 bytes */
    size_t expect = room / 18;
    size_t depth = 0;
    int st;
    while ((st = stax_writer_start_z(w, "element-10")) == STAX_OK) depth++;
    cr_assert_eq(st, STAX_E_NOMEM);
    cr_assert_eq(depth, expect, "depth %zu, room %zu", depth, room);
    cr_assert_eq(stax_writer_depth(w), depth);
    /* the refused start wrote nothing; the document still closes cleanly */
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    stax_str m = stax_writer_memory(w);
    cr_assert_eq(m.len, depth * (12 + 13));
    stax_writer_free(w);
    stax_test_forbid_malloc = 0;
}

Test(writer_async, fixed_memory_sink_full) {
    char small[20];
    stax_writer *w = new_writer(64, 0, 0);
    cr_assert_eq(stax_writer_set_memory(w, small, sizeof small), STAX_OK);
    stax_writer_element_z(w, "abc", "0123456789abcdefghij");
    cr_assert_eq(stax_writer_finish(w), STAX_E_FULL);
    cr_assert_eq(stax_writer_text_z(w, "x"), STAX_E_FULL); /* sticky */
    stax_str m = stax_writer_memory(w);
    cr_assert_eq(m.len, sizeof small);
    cr_assert(memcmp(m.ptr, "<abc>0123456789abcde", sizeof small) == 0);
    stax_writer_free(w);
}

Test(writer_async, fixed_block_too_small_refused) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.memory = block;
    o.memory_size = STAX_WRITER_MIN_MEMORY + 4096 - 1;
    o.buffer_size = 4096;
    cr_assert_null(stax_writer_new(&o));
    o.memory_size = STAX_WRITER_MIN_MEMORY + 4096;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert(stax_writer_stack_room(w) >= 256);
    stax_writer_free(w);
    /* the documented minimum, STAX_WRITER_MIN_MEMORY plus the buffer(s), holds
     * for every buffer size, with one buffer or two (STAX_WRITE_BACKGROUND),
     * wherever the block starts */
    for (int bg = 0; bg < 2; bg++) {
        for (size_t buf = STAX_WRITER_MIN_BUFFER; buf <= 2048; buf += 61) {
            for (size_t skew = 0; skew < 16; skew += 5) {
                size_t nbuf = bg ? 2 : 1;
                o.buffer_size = buf;
                o.flags = bg ? STAX_WRITE_BACKGROUND : 0;
                o.memory = block + skew;
                o.memory_size = STAX_WRITER_MIN_MEMORY + nbuf * buf;
                w = stax_writer_new(&o);
                cr_assert_not_null(w, "buffer %zu, %zu buffer(s), skew %zu", buf, nbuf, skew);
                cr_assert(stax_writer_stack_room(w) >= 256);
                stax_writer_free(w);
                o.memory_size--;
                cr_assert_null(stax_writer_new(&o), "one byte less: buffer %zu, %zu buffer(s)", buf, nbuf);
            }
        }
    }
}

/* Allocation failure at every point of the allocator hook: NULL from new, or
 * STAX_E_NOMEM from a call that then changed nothing; never a crash or leak. */
typedef struct fail_alloc {
    int countdown;
    long live;
} fail_alloc;

static void *failing_alloc(void *ud, void *p, size_t old, size_t n) {
    fail_alloc *f = ud;
    (void)old;
    if (n == 0) {
        if (p) f->live--;
        free(p);
        return NULL;
    }
    if (f->countdown-- == 0) return NULL;
    void *q = realloc(p, n);
    if (q && !p) f->live++;
    return q;
}

Test(writer_async, allocation_failure_everywhere) {
    for (int k = 0; k < 40; k++) {
        fail_alloc f = {k, 0};
        stax_writer_options o;
        memset(&o, 0, sizeof o);
        o.alloc = failing_alloc;
        o.alloc_ud = &f;
        o.buffer_size = 64;
        stax_writer *w = stax_writer_new(&o);
        if (w) {
            int st = stax_writer_set_memory(w, NULL, 0);
            cr_assert_eq(st, STAX_OK);
            for (int d = 0; d < 100 && st == STAX_OK; d++) {
                st = stax_writer_start_z(w, "a-rather-long-element-name");
                if (st == STAX_OK) st = stax_writer_attr_z(w, "attribute-name", "v");
            }
            cr_assert(st == STAX_OK || st == STAX_E_NOMEM, "k=%d st=%d", k, st);
            if (st == STAX_E_NOMEM && stax_writer_status(w) == STAX_OK) {
                /* the stack could not grow: the call was refused, nothing else broke */
                int fin = stax_writer_finish(w);
                cr_assert(fin == STAX_OK || fin == STAX_E_NOMEM, "finish %d", fin);
            }
            stax_writer_free(w);
        }
        cr_assert_eq(f.live, 0, "k=%d leaks %ld blocks", k, f.live);
    }
}
