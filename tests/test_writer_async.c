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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "writer_script.h"

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

/* The element calls, k = 0..4 (v: the number calls' value). */
static int element_call(stax_writer *w, int k, stax_str text, int64_t v) {
    switch (k) {
    case 0: return stax_writer_element_z(w, "item", "");
    case 1: return stax_writer_element(w, stax_strz("item"), text);
    case 2: return stax_writer_element_int(w, stax_strz("int"), v);
    case 3: return stax_writer_element_uint(w, stax_strz("uint"), (uint64_t)v);
    default: return stax_writer_element_dec(w, stax_strz("dec"), v, 4);
    }
}

/* Each element call through a 64-byte buffer and a sink that takes at most 3
 * bytes at a time, often none: repeated with the same arguments after every
 * STAX_WOULD_BLOCK, it completes once, and the sink gets the bytes of a
 * blocking run. While it is blocked nothing changes: the depth stays, another
 * call is out of order, the same call with another text or value is refused. */
Test(writer_async, element_calls_are_retried_as_one_call) {
    char big[301];
    for (size_t i = 0; i < 300; i++) big[i] = "a&b<c>d\r]]>\xc3\xa9"[i % 13]; /* 13 bytes */
    big[300] = 0;
    stax_str text = {big, 300}, shorter = {big, 299};
    static const int64_t values[] = {INT64_MIN, -1234567890123, 7, INT64_MAX};
    for (unsigned indent = 0; indent < 3; indent += 2) {
        for (size_t vi = 0; vi < 4; vi++) {
            int64_t v = values[vi], other = v == INT64_MAX ? v - 1 : v + 1; /* the same length */
            stax_writer *ref = new_writer(64, indent, 0), *w = new_writer(64, indent, 0);
            cr_assert_eq(stax_writer_set_memory(ref, NULL, 0), STAX_OK);
            capture d = {0}; /* random amounts of at most 3 bytes, often nothing */
            d.random = 1;
            d.rng = (uint32_t)(vi * 3 + indent + 1);
            d.most = 3;
            d.buffer = 64;
            cr_assert_eq(stax_writer_set_sink(w, cap_sink, &d), STAX_OK);
            cr_assert_eq(stax_writer_start_z(ref, "r"), STAX_OK);
            int st;
            while ((st = stax_writer_start_z(w, "r")) == STAX_WOULD_BLOCK) {}
            cr_assert_eq(st, STAX_OK);
            unsigned long blocked = 0;
            for (int rep = 0; rep < 3; rep++) {
                for (int k = 0; k < 5; k++) {
                    cr_assert_eq(element_call(ref, k, text, v), STAX_OK);
                    uint64_t before = stax_writer_bytes_produced(w);
                    while ((st = element_call(w, k, text, v)) == STAX_WOULD_BLOCK) {
                        blocked++;
                        cr_assert_eq(stax_writer_depth(w), 1);
                        cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
                        cr_assert_eq(stax_writer_text_z(w, "x"), STAX_E_STATE);
                        if (k == 1) cr_assert_eq(stax_writer_element(w, stax_strz("item"), shorter), STAX_E_USAGE);
                        if (k >= 2) cr_assert_eq(element_call(w, k, text, other), STAX_E_USAGE, "k %d", k);
                        cr_assert_eq(stax_writer_bytes_produced(w) >= before, 1);
                    }
                    cr_assert_eq(st, STAX_OK, "element call %d: %d (%s)", k, st, stax_writer_message(w));
                    cr_assert_eq(stax_writer_depth(w), 1);
                }
            }
            cr_assert_eq(stax_writer_finish(ref), STAX_OK);
            while ((st = stax_writer_finish(w)) == STAX_WOULD_BLOCK) {}
            cr_assert_eq(st, STAX_OK);
            stax_str want = stax_writer_memory(ref);
            expect_same(d.p, d.len, want.ptr, want.len, "element calls");
            cr_assert(blocked > 100, "blocked %lu times", blocked);
            cr_assert_eq(stax_writer_first_error(w), STAX_E_STATE); /* the intruding calls */
            stax_writer_free(ref);
            stax_writer_free(w);
            free(d.p);
        }
    }
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
    int after_first_block; /* read nothing before the writer found the pipe full once */
    capture out;
} slow_reader;

/* How often the writer found the pipe full (wait_writable), and whether it is done. */
static atomic_ulong pipe_waits;
static atomic_int writer_done;

static void *slow_reader_main(void *arg) {
    slow_reader *r = arg;
    char buf[3000];
    uint32_t rng = 12345;
    /* so that the would-block path runs however fast either thread is (qemu-user included) */
    while (r->after_first_block && atomic_load(&pipe_waits) == 0 && !atomic_load(&writer_done)) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
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

static void wait_writable(void *ctx) {
    atomic_fetch_add(&pipe_waits, 1);
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
    r.after_first_block = 1;
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, slow_reader_main, &r), 0);
    stax_writer *w = new_writer(8192, 2, 0);
    cr_assert_eq(stax_writer_set_fd(w, p[1]), STAX_OK);
    play(w, &sc, wait_writable, &p[1], 77);
    atomic_store(&writer_done, 1);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    expect_same(r.out.p, r.out.len, want, want_len, "pipe");
    unsigned long waits = atomic_load(&pipe_waits);
    cr_assert(waits > 0, "the pipe never blocked");
#ifndef STAX_LITE_CRITERION_H /* natively it fills many times; under qemu-user the emulated reader may keep up */
    cr_assert(waits > 10, "the pipe blocked only %lu times", waits);
#endif
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
    cr_assert_eq(st, STAX_E_LIMIT_STACK);
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
