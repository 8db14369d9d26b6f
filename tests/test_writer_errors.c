/* Writer errors: STAX_WRITE_STICKY and stax_writer_first_error, the message
 * and errno of a sink error, and bytes produced beside bytes taken. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static stax_writer *mk(unsigned flags, size_t buffer) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.buffer_size = buffer;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    return w;
}

static void expect_memory(stax_writer *w, const char *want) {
    stax_str m = stax_writer_memory(w);
    cr_assert(m.len == strlen(want) && (m.len == 0 || memcmp(m.ptr, want, m.len) == 0), "output [%.*s], wanted [%s]",
              (int)m.len, m.ptr ? m.ptr : "", want);
}

/* ================================================================ sticky or not */

Test(writer_errors, refusal_not_sticky_by_default) {
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_first_error(w), STAX_OK);
    cr_assert_str_eq(stax_writer_message(w), "");
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "a", "1"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "a", "2"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_comment_z(w, "a--b"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_text_z(w, "ok"), STAX_OK); /* goes on */
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_status(w), STAX_OK);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_DUP_ATTR); /* the first, not the last */
    cr_assert_str_eq(stax_writer_message(w), "stax_writer_attr: duplicate attribute");
    expect_memory(w, "<r a=\"1\">ok</r>");
    stax_writer_free(w);
}

Test(writer_errors, sticky_refusal_stops_the_writer) {
    stax_writer *w = mk(STAX_WRITE_STICKY, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "a"), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "\xff"), STAX_E_ENCODING); /* refused: writes nothing */
    cr_assert_eq(stax_writer_status(w), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_text_z(w, "b"), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_end(w), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_attr_int_z(w, "n", 1), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_flush(w), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_finish(w), STAX_E_ENCODING); /* the caller learns that content was dropped */
    cr_assert_eq(stax_writer_first_error(w), STAX_E_ENCODING);
    cr_assert(strstr(stax_writer_message(w), "stax_writer_text") != NULL, "%s", stax_writer_message(w));
    /* what the calls before the refusal wrote still reached the sink, and nothing else */
    cr_assert_eq(stax_writer_bytes_produced(w), 4);
    cr_assert_eq(stax_writer_bytes_out(w), 4);
    expect_memory(w, "<r>a");
    stax_writer_free(w);
}

Test(writer_errors, sticky_covers_every_kind_of_refusal) {
    /* one refusal of each kind: each stops a sticky writer */
    /* end with nothing open, a bad name, frac_digits over 19 */
    static const int kinds[] = {STAX_E_STATE, STAX_E_INVALID, STAX_E_USAGE};
    for (int k = 0; k < 3; k++) {
        stax_writer *w = mk(STAX_WRITE_STICKY, 0);
        cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
        int st = k == 0 ? stax_writer_end(w) : k == 1 ? stax_writer_start_z(w, "1a") : stax_writer_text_dec(w, 1, 20);
        cr_assert_eq(st, kinds[k]);
        cr_assert_eq(stax_writer_start_z(w, "r"), kinds[k]);
        cr_assert_eq(stax_writer_first_error(w), kinds[k]);
        cr_assert_eq(stax_writer_bytes_produced(w), 0);
        stax_writer_free(w);
    }
}

static ptrdiff_t gate_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    return *(int *)ctx ? (ptrdiff_t)len : 0;
}

Test(writer_errors, sticky_with_a_blocked_call) {
    /* another call while one is unfinished is a refusal like any other */
    int open = 0;
    stax_writer *w = mk(STAX_WRITE_STICKY, 64);
    cr_assert_eq(stax_writer_set_sink(w, gate_sink, &open), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    char big[200];
    memset(big, 'x', sizeof big);
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_first_error(w), STAX_OK); /* would-block is no error */
    cr_assert_eq(stax_writer_comment_z(w, "c"), STAX_E_STATE);
    open = 1;
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_E_STATE);
    cr_assert_eq(stax_writer_finish(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_bytes_produced(w), 64);
    stax_writer_free(w);
}

Test(writer_errors, sticky_status_comes_before_argument_checks) {
    /* a call with a bad argument after a sticky refusal returns the sticky status */
    stax_writer *w = mk(STAX_WRITE_STICKY, 64);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_text_dec(w, 1, 20), STAX_E_STATE);
    cr_assert_eq(stax_writer_attr_dec_z(w, "a", 1, 20), STAX_E_STATE);
    stax_writer_free(w);
    /* and while a call is blocked, another call with a bad argument is out of order */
    int open = 0;
    w = mk(0, 64);
    cr_assert_eq(stax_writer_set_sink(w, gate_sink, &open), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    char big[200];
    memset(big, 'x', sizeof big);
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_text_dec(w, 1, 20), STAX_E_STATE);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_STATE);
    stax_writer_free(w);
}

typedef struct trickle {
    int calls;
    char out[256];
    size_t len;
} trickle;

/* Takes one byte every other call, nothing in between. */
static ptrdiff_t trickle_sink(void *ctx, const void *data, size_t len) {
    trickle *t = ctx;
    (void)len;
    if (t->calls++ % 2) return 0;
    t->out[t->len++] = *(const char *)data;
    return 1;
}

Test(writer_errors, sticky_refusal_still_delivers_what_came_before) {
    /* whatever the sink takes, the bytes before the refusal all arrive (here
     * through a sink that blocks), and finish closes nothing */
    trickle t = {0, {0}, 0};
    stax_writer *w = mk(STAX_WRITE_STICKY, 64);
    cr_assert_eq(stax_writer_set_sink(w, trickle_sink, &t), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "a", "x"), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "xml", "bad"), STAX_E_INVALID);
    int st, rounds = 0;
    while ((st = stax_writer_finish(w)) == STAX_WOULD_BLOCK) rounds++;
    cr_assert_eq(st, STAX_E_INVALID);
    cr_assert(rounds > 5);
    cr_assert_eq(t.len, 11);
    cr_assert(memcmp(t.out, "<r><a>x</a>", 11) == 0, "%.*s", (int)t.len, t.out);
    cr_assert_eq(stax_writer_flush(w), STAX_E_INVALID);
    cr_assert_eq(stax_writer_bytes_out(w), 11);
    stax_writer_free(w);
}

/* ================================================================ sink errors: errno and message */

/* A pipe whose read end is closed (SIGPIPE ignored): writes fail with EPIPE.
 * Returns the write end. */
static int broken_pipe(void) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    return p[1];
}

Test(writer_errors, fd_error_message_and_errno) {
    int fd = broken_pipe();
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_fd(w, fd), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    cr_assert_eq(stax_writer_errno(w), EPIPE);
    char want[80];
    snprintf(want, sizeof want, "write to fd %d failed (errno %d)", fd, EPIPE); /* no strerror in the library */
    cr_assert_str_eq(stax_writer_message(w), want);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_IO);
    cr_assert_eq(stax_writer_bytes_out(w), 0);
    cr_assert_eq(stax_writer_bytes_produced(w), 8); /* produced, never taken */
    stax_writer_free(w);
    close(fd);
}

Test(writer_errors, fd_error_after_a_refusal_is_the_message) {
    /* not sticky: a refusal first, then the sink fails; the message tells the sink error */
    int fd = broken_pipe();
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_fd(w, fd), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_status(w), STAX_E_IO);
    cr_assert(strstr(stax_writer_message(w), "write to fd") != NULL, "%s", stax_writer_message(w));
    stax_writer_free(w);
    close(fd);
}

Test(writer_errors, file_error_message_and_errno) {
    FILE *f = fopen("/dev/full", "w");
    if (!f) cr_skip_test("no /dev/full");
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_file(w, f), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO); /* fwrite buffers; fflush fails */
    cr_assert_eq(stax_writer_errno(w), ENOSPC);
    char want[80];
    snprintf(want, sizeof want, "writing to the FILE* failed (errno %d)", ENOSPC);
    cr_assert_str_eq(stax_writer_message(w), want);
    stax_writer_free(w);
    fclose(f);
}

static ptrdiff_t failing_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    (void)len;
    return *(ptrdiff_t *)ctx;
}

Test(writer_errors, callback_and_memory_sink_messages) {
    ptrdiff_t ret = STAX_E_IO;
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_sink(w, failing_sink, &ret), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    cr_assert_eq(stax_writer_errno(w), 0);
    cr_assert_str_eq(stax_writer_message(w), "the sink returned -3 (I/O error)");
    stax_writer_free(w);

    ret = 100; /* more than offered */
    w = mk(0, 0);
    cr_assert_eq(stax_writer_set_sink(w, failing_sink, &ret), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    cr_assert_str_eq(stax_writer_message(w), "the sink took 100 bytes of 8 offered");
    stax_writer_free(w);

    char small[5];
    w = mk(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, small, sizeof small), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_FULL);
    cr_assert_str_eq(stax_writer_message(w), "the memory sink is full (5 bytes)");
    stax_writer_free(w);
}

Test(writer_errors, background_thread_sink_error) {
    int fd = broken_pipe();
    stax_writer *w = mk(STAX_WRITE_BACKGROUND, 64);
    cr_assert_eq(stax_writer_set_fd(w, fd), STAX_OK);
    int st = stax_writer_start_z(w, "r");
    for (int i = 0; i < 100 && st == STAX_OK; i++) st = stax_writer_element_z(w, "a", "some text to fill buffers");
    if (st == STAX_OK) st = stax_writer_finish(w);
    cr_assert_eq(st, STAX_E_IO);
    cr_assert_eq(stax_writer_errno(w), EPIPE);
    char want[32];
    snprintf(want, sizeof want, "(errno %d)", EPIPE);
    cr_assert(strstr(stax_writer_message(w), want), "%s", stax_writer_message(w));
    stax_writer_free(w);
    close(fd);
}

Test(writer_errors, no_writer) {
    cr_assert_str_eq(stax_writer_message(NULL), "no writer");
    cr_assert_eq(stax_writer_first_error(NULL), STAX_E_USAGE);
    cr_assert_eq(stax_writer_errno(NULL), 0);
    cr_assert_eq(stax_writer_bytes_produced(NULL), 0);
    cr_assert_eq(stax_writer_memory_peak(NULL), 0);
    cr_assert_str_eq(stax_strerror(STAX_E_INTERNAL), stax_strerror(STAX_E_INTERNAL)); /* has a text */
    cr_assert(strlen(stax_strerror(STAX_E_INTERNAL)) > 0);
    /* the writer's limit has its own text, naming its option */
    cr_assert_str_eq(stax_strerror(STAX_E_LIMIT_STACK), "element stack exceeds stack_size");
}

/* ================================================================ bytes produced */

typedef struct slow {
    size_t budget; /* bytes it takes before it takes nothing */
    size_t got;
} slow;

static ptrdiff_t slow_sink(void *ctx, const void *data, size_t len) {
    slow *s = ctx;
    (void)data;
    size_t k = len < s->budget ? len : s->budget;
    s->budget -= k;
    s->got += k;
    return (ptrdiff_t)k;
}

Test(writer_errors, bytes_produced_beside_bytes_taken) {
    slow s = {0, 0};
    stax_writer *w = mk(0, 64);
    cr_assert_eq(stax_writer_set_sink(w, slow_sink, &s), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_bytes_produced(w), 2);
    char text[200];
    memset(text, 'x', sizeof text);
    /* the sink takes nothing: the call stops when the buffer is full */
    cr_assert_eq(stax_writer_text(w, (stax_str){text, sizeof text}), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_bytes_produced(w), 64);
    cr_assert_eq(stax_writer_bytes_out(w), 0);
    s.budget = 10;
    cr_assert_eq(stax_writer_text(w, (stax_str){text, sizeof text}), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_bytes_out(w), 10);
    cr_assert_eq(stax_writer_bytes_produced(w), 74); /* 10 taken, a full buffer held */
    s.budget = SIZE_MAX;
    cr_assert_eq(stax_writer_text(w, (stax_str){text, sizeof text}), STAX_OK);
    cr_assert_eq(stax_writer_bytes_produced(w), 2 + 1 + 200);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_bytes_produced(w), 2 + 1 + 200 + 4);
    cr_assert_eq(stax_writer_bytes_out(w), stax_writer_bytes_produced(w));
    stax_writer_free(w);
}

static ptrdiff_t count_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    *(size_t *)ctx += len;
    return (ptrdiff_t)len;
}

Test(writer_errors, bytes_produced_with_the_background_thread) {
    size_t got = 0;
    stax_writer *w = mk(STAX_WRITE_BACKGROUND, 128);
    cr_assert_eq(stax_writer_set_sink(w, count_sink, &got), STAX_OK);
    uint64_t want = 0;
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    want += 2;
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(stax_writer_element_z(w, "e", "0123456789"), STAX_OK);
        want += 17;
        cr_assert_eq(stax_writer_bytes_produced(w), want + 1, "element %d", i); /* +1: the '>' of <r> */
    }
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    want += 1 + 4;
    cr_assert_eq(stax_writer_bytes_produced(w), want);
    cr_assert_eq(stax_writer_bytes_out(w), want);
    stax_writer_free(w);
    cr_assert_eq(got, want);
}

/* ================================================================ {NULL, len > 0} */

/* Every writer call with one string argument {NULL, 5}: call k, bad string
 * at argument position `at` (the other strings valid). Returns -100 when the
 * call has no argument at that position; at -1: every string valid. */
static int null_call(stax_writer *w, int k, int at) {
    stax_str bad = {NULL, 5}, n = stax_strz("n"), v = stax_strz("v");
#define ARG(i, good) (at == (i) ? bad : (good))
    switch (k) {
    case 0: return at > 1 ? -100 : stax_writer_xml_decl(w, ARG(0, stax_strz("1.0")), ARG(1, stax_strz("UTF-8")), 0);
    case 1:
        return at > 3 ? -100
                      : stax_writer_doctype(w, ARG(0, n), ARG(1, stax_strz("p")), ARG(2, stax_strz("s")),
                                            ARG(3, stax_strz("<!ELEMENT n ANY>")));
    case 2: return at > 0 ? -100 : stax_writer_start(w, ARG(0, n));
    case 3: return at > 1 ? -100 : stax_writer_attr(w, ARG(0, n), ARG(1, v));
    case 4: return at > 1 ? -100 : stax_writer_ns(w, ARG(0, stax_strz("p")), ARG(1, stax_strz("urn:x")));
    case 5: return at > 0 ? -100 : stax_writer_text(w, ARG(0, v));
    case 6: return at > 0 ? -100 : stax_writer_cdata(w, ARG(0, v));
    case 7: return at > 0 ? -100 : stax_writer_comment(w, ARG(0, v));
    case 8: return at > 1 ? -100 : stax_writer_pi(w, ARG(0, stax_strz("t")), ARG(1, v));
    case 9: return at > 1 ? -100 : stax_writer_element(w, ARG(0, n), ARG(1, v));
    case 10: return at > 0 ? -100 : stax_writer_raw(w, ARG(0, v));
    case 11: return at > 0 ? -100 : stax_writer_attr_int(w, ARG(0, n), -1);
    case 12: return at > 0 ? -100 : stax_writer_attr_uint(w, ARG(0, n), 1);
    case 13: return at > 0 ? -100 : stax_writer_attr_dec(w, ARG(0, n), 1, 2);
    case 14: return at > 0 ? -100 : stax_writer_element_int(w, ARG(0, n), -1);
    case 15: return at > 0 ? -100 : stax_writer_element_uint(w, ARG(0, n), 1);
    case 16: return at > 0 ? -100 : stax_writer_element_dec(w, ARG(0, n), 1, 2);
    default: return -200;
    }
#undef ARG
}

Test(writer_errors, null_string_with_a_length_is_usage) {
    int cases = 0;
    for (int k = 0; null_call(NULL, k, 99) != -200; k++) {
        for (int at = 0; at < 4; at++) {
            for (int sticky = 0; sticky < 2; sticky++) {
                stax_writer *w = mk(sticky ? STAX_WRITE_STICKY : 0, 0);
                cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
                if (k > 1) { /* the calls after the prolog: inside an open start tag */
                    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
                }
                int st = null_call(w, k, at);
                if (st == -100) {
                    stax_writer_free(w);
                    break;
                }
                cases++;
                cr_assert_eq(st, STAX_E_USAGE, "call %d, argument %d: %d", k, at, st);
                cr_assert_eq(stax_writer_first_error(w), STAX_E_USAGE);
                cr_assert(strstr(stax_writer_message(w), "NULL") != NULL, "%s", stax_writer_message(w));
                /* nothing written: the same call with good strings still works (or the sticky status) */
                int again = null_call(w, k, -1);
                cr_assert_eq(again, sticky ? STAX_E_USAGE : STAX_OK, "call %d after the refusal (sticky %d): %d", k, sticky, again);
                stax_writer_free(w);
            }
        }
    }
    cr_assert_eq(cases, 2 * 25);
}
