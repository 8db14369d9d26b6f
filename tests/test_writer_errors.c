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
    /* the message describes the last refusal, not the first */
    cr_assert_str_eq(stax_writer_message(w), "stax_writer_comment: a comment may not hold \"--\" nor end in '-'");
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

/* ================================================================ the message: the last failing call's */

/* A call returned st: it must be want_st, and the message must be want. */
#define EXPECT(call, want_st, want)                                                                             \
    do {                                                                                                       \
        int st_ = (call);                                                                                      \
        cr_assert_eq(st_, (want_st), "%s returned %d (%s)", #call, st_, stax_writer_message(w));               \
        cr_assert_str_eq(stax_writer_message(w), (want), "after %s", #call);                                    \
    } while (0)

Test(writer_errors, message_describes_the_last_failing_call) {
    /* every refusal in a row has its own message: the last one is described,
     * whatever came before it; a call that succeeds changes nothing */
    int open = 0;
    char big[200];
    memset(big, 'x', sizeof big);
    stax_str s = {big, sizeof big}, shorter = {big, 100};
    stax_writer *w = mk(0, 64);
    EXPECT(stax_writer_start_z(w, "r"), STAX_E_USAGE,
           "stax_writer_start: no sink set: call stax_writer_set_sink (or _fd, _file, _memory) first");
    EXPECT(stax_writer_set_fd(w, -1), STAX_E_USAGE, "stax_writer_set_fd: the fd is negative");
    EXPECT(stax_writer_set_sink(w, NULL, NULL), STAX_E_USAGE, "stax_writer_set_sink: the write function is NULL");
    EXPECT(stax_writer_set_memory(w, NULL, 5), STAX_E_USAGE, "stax_writer_set_memory: a NULL buffer with a nonzero cap");
    EXPECT(stax_writer_set_sink(w, gate_sink, &open), STAX_OK,
           "stax_writer_set_memory: a NULL buffer with a nonzero cap");
    EXPECT(stax_writer_set_memory(w, NULL, 0), STAX_E_USAGE, "stax_writer_set_memory: a sink is already set");
    EXPECT(stax_writer_end(w), STAX_E_STATE, "stax_writer_end: no element is open");
    EXPECT(stax_writer_attr_z(w, "a", "1"), STAX_E_STATE,
           "stax_writer_attr: no start tag open: attributes come right after stax_writer_start");
    EXPECT(stax_writer_start_z(w, "r"), STAX_OK,
           "stax_writer_attr: no start tag open: attributes come right after stax_writer_start");
    EXPECT(stax_writer_start_z(w, "1a"), STAX_E_INVALID, "stax_writer_start: the name is not an XML Name");
    EXPECT(stax_writer_text_z(w, "\xff"), STAX_E_ENCODING, "stax_writer_text: a string is not valid UTF-8");
    EXPECT(stax_writer_text_z(w, "\x01"), STAX_E_CHAR,
           "stax_writer_text: a string holds a code point that is not an XML Char");
    EXPECT(stax_writer_attr_z(w, "a", "1"), STAX_OK, "stax_writer_text: a string holds a code point that is not an XML Char");
    EXPECT(stax_writer_attr_z(w, "a", "2"), STAX_E_DUP_ATTR, "stax_writer_attr: the attribute is already on this start tag");
    EXPECT(stax_writer_attr_int_z(w, "a", 2), STAX_E_DUP_ATTR,
           "stax_writer_attr_int: the attribute is already on this start tag");
    EXPECT(stax_writer_ns_z(w, "xmlns", "urn:x"), STAX_E_INVALID, "stax_writer_ns: the prefix xmlns may not be declared");
    EXPECT(stax_writer_ns_z(w, "p", ""), STAX_E_INVALID,
           "stax_writer_ns: an empty URI for a prefix (Namespaces 1.0 cannot undeclare it)");
    EXPECT(stax_writer_pi_z(w, "XmL", "d"), STAX_E_INVALID, "stax_writer_pi: the target xml (in any case) is reserved");
    EXPECT(stax_writer_pi_z(w, "t", "a?>b"), STAX_E_INVALID, "stax_writer_pi: the data holds \"?>\"");
    EXPECT(stax_writer_comment_z(w, "a--b"), STAX_E_INVALID,
           "stax_writer_comment: a comment may not hold \"--\" nor end in '-'");
    EXPECT(stax_writer_text_dec(w, 1, 20), STAX_E_USAGE, "stax_writer_text_dec: frac_digits over 19");
    EXPECT(stax_writer_element_uint_z(w, "1a", 5), STAX_E_INVALID, "stax_writer_element_uint: the name is not an XML Name");
    EXPECT(stax_writer_text(w, (stax_str){NULL, 3}), STAX_E_USAGE, "stax_writer_text: a string is NULL with a nonzero length");
    /* the sink takes nothing: the call blocks, and every other call is refused */
    EXPECT(stax_writer_text(w, s), STAX_WOULD_BLOCK,
           "stax_writer_text: the sink would block: repeat the same call when it can take more");
    EXPECT(stax_writer_element_z(w, "e", "x"), STAX_E_STATE, "stax_writer_element: repeat the blocked stax_writer_text first");
    EXPECT(stax_writer_text(w, shorter), STAX_E_USAGE,
           "stax_writer_text: other arguments than the blocked call: repeat it with the same ones");
    EXPECT(stax_writer_finish(w), STAX_E_STATE, "stax_writer_finish: repeat the blocked stax_writer_text first");
    EXPECT(stax_writer_flush(w), STAX_WOULD_BLOCK,
           "stax_writer_flush: the sink would block: repeat the same call when it can take more");
    open = 1;
    EXPECT(stax_writer_text(w, s), STAX_OK,
           "stax_writer_flush: the sink would block: repeat the same call when it can take more");
    EXPECT(stax_writer_end(w), STAX_OK,
           "stax_writer_flush: the sink would block: repeat the same call when it can take more");
    EXPECT(stax_writer_start_z(w, "s"), STAX_E_STATE, "stax_writer_start: a second root element");
    EXPECT(stax_writer_element_z(w, "s", ""), STAX_E_STATE, "stax_writer_element: a second root element");
    EXPECT(stax_writer_xml_decl(w, stax_strz(""), stax_strz(""), 0), STAX_E_STATE,
           "stax_writer_xml_decl: the XML declaration must be the very first output");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz(""), stax_strz(""), stax_strz("")), STAX_E_STATE,
           "stax_writer_doctype: a DOCTYPE after the root element started");
    EXPECT(stax_writer_text_z(w, "t"), STAX_E_STATE,
           "stax_writer_text: outside the root element text may only be spaces, tabs and LFs");
    EXPECT(stax_writer_cdata_z(w, "t"), STAX_E_STATE, "stax_writer_cdata: CDATA outside the root element");
    EXPECT(stax_writer_finish(w), STAX_OK, "stax_writer_cdata: CDATA outside the root element");
    EXPECT(stax_writer_text_z(w, " "), STAX_E_STATE,
           "stax_writer_text: the document is finished (stax_writer_finish returned STAX_OK)");
    cr_assert_eq(stax_writer_first_error(w), STAX_E_USAGE); /* the first error stays the first */
    cr_assert_eq(stax_writer_status(w), STAX_OK);
    stax_writer_free(w);

    /* the prolog's refusals */
    w = mk(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    EXPECT(stax_writer_finish(w), STAX_E_STATE, "stax_writer_finish: no root element was started");
    EXPECT(stax_writer_xml_decl(w, stax_strz("2.0"), stax_strz(""), 0), STAX_E_INVALID,
           "stax_writer_xml_decl: the version is not \"1.\" and digits");
    EXPECT(stax_writer_xml_decl(w, stax_strz(""), stax_strz("latin1"), 0), STAX_E_INVALID,
           "stax_writer_xml_decl: the encoding is not UTF-8 (the output is UTF-8)");
    EXPECT(stax_writer_xml_decl(w, stax_strz(""), stax_strz(""), 7), STAX_E_INVALID,
           "stax_writer_xml_decl: standalone is not 0, STAX_EVF_STANDALONE_YES or _NO");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz("p"), stax_strz(""), stax_strz("")), STAX_E_INVALID,
           "stax_writer_doctype: a public id without a system id");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz("p{"), stax_strz("s"), stax_strz("")), STAX_E_INVALID,
           "stax_writer_doctype: the public id holds a character that is not a PubidChar");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz(""), stax_strz("a'\""), stax_strz("")), STAX_E_INVALID,
           "stax_writer_doctype: the system id holds both quote characters");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz(""), stax_strz(""), stax_strz("")), STAX_OK,
           "stax_writer_doctype: the system id holds both quote characters");
    EXPECT(stax_writer_doctype(w, stax_strz("r"), stax_strz(""), stax_strz(""), stax_strz("")), STAX_E_STATE,
           "stax_writer_doctype: a second DOCTYPE");
    stax_writer_free(w);

    /* a finish that blocked */
    open = 0;
    w = mk(0, 64);
    cr_assert_eq(stax_writer_set_sink(w, gate_sink, &open), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    EXPECT(stax_writer_finish(w), STAX_WOULD_BLOCK,
           "stax_writer_finish: the sink would block: repeat the same call when it can take more");
    EXPECT(stax_writer_comment_z(w, "c"), STAX_E_STATE, "stax_writer_comment: repeat the blocked stax_writer_finish first");
    open = 1;
    EXPECT(stax_writer_finish(w), STAX_OK, "stax_writer_comment: repeat the blocked stax_writer_finish first");
    stax_writer_free(w);
}

static ptrdiff_t failing_sink(void *ctx, const void *data, size_t len);

Test(writer_errors, sticky_error_keeps_its_message) {
    /* a sink error: every later call returns it, the sink setters too, and
     * the message stays the sink's */
    ptrdiff_t ret = STAX_E_IO;
    stax_writer *w = mk(0, 0);
    cr_assert_eq(stax_writer_set_sink(w, failing_sink, &ret), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "a", "x"), STAX_OK);
    const char *sink = "the sink returned -3 (I/O error)";
    EXPECT(stax_writer_finish(w), STAX_E_IO, sink);
    EXPECT(stax_writer_text_z(w, "\xff"), STAX_E_IO, sink);
    EXPECT(stax_writer_end(w), STAX_E_IO, sink);
    EXPECT(stax_writer_text_dec(w, 1, 20), STAX_E_IO, sink);
    EXPECT(stax_writer_set_sink(w, failing_sink, &ret), STAX_E_IO, sink);
    EXPECT(stax_writer_set_memory(w, NULL, 3), STAX_E_IO, sink);
    EXPECT(stax_writer_flush(w), STAX_E_IO, sink);
    cr_assert_eq(stax_writer_first_error(w), STAX_E_IO);
    stax_writer_free(w);

    /* a sticky refusal (STAX_WRITE_STICKY) keeps its message for the calls
     * that return it, and gets it back after flush described its own
     * STAX_WOULD_BLOCK */
    int open = 0;
    char big[200];
    memset(big, 'x', sizeof big);
    w = mk(STAX_WRITE_STICKY, 64);
    cr_assert_eq(stax_writer_set_sink(w, gate_sink, &open), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_WOULD_BLOCK);
    const char *refusal = "stax_writer_comment: repeat the blocked stax_writer_text first";
    EXPECT(stax_writer_comment_z(w, "c"), STAX_E_STATE, refusal);
    EXPECT(stax_writer_end(w), STAX_E_STATE, refusal);
    EXPECT(stax_writer_set_fd(w, -1), STAX_E_STATE, refusal);
    EXPECT(stax_writer_flush(w), STAX_WOULD_BLOCK,
           "stax_writer_flush: the sink would block: repeat the same call when it can take more");
    open = 1;
    EXPECT(stax_writer_flush(w), STAX_E_STATE, refusal);
    EXPECT(stax_writer_finish(w), STAX_E_STATE, refusal);
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
