/* The examples of docs/writer.md (tests/examples/writer_*.c) compiled into
 * the unit binary, each main() renamed, run with stdout captured, and the
 * output compared with what the documentation shows. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main example_hello_main
#include "examples/writer_hello.c"
#undef main
#define main example_errors_main
#include "examples/writer_errors.c"
#undef main
#define main example_nonblocking_main
#include "examples/writer_nonblocking.c"
#undef main
#undef RETRY
#define main example_fixed_main
#include "examples/writer_fixed.c"
#undef main
#define main example_numbers_main
#include "examples/writer_numbers.c"
#undef main
#define main example_sticky_main
#include "examples/writer_sticky.c"
#undef main
#define main example_xmpp_main
#include "examples/writer_xmpp.c"
#undef main

/* Run fn with stdout going to a temporary file; return what it printed. */
static char *run_example(int (*fn)(void), int *rc) {
    fflush(stdout);
    FILE *tmp = tmpfile();
    cr_assert_not_null(tmp);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    *rc = fn();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long n = (long)lseek(fileno(tmp), 0, SEEK_END);
    char *out = malloc((size_t)n + 1);
    lseek(fileno(tmp), 0, SEEK_SET);
    cr_assert_eq(read(fileno(tmp), out, (size_t)n), n);
    out[n] = '\0';
    fclose(tmp);
    return out;
}

Test(writer_examples, hello) {
    int rc;
    char *out = run_example(example_hello_main, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<catalog owner=\"Tom &amp; Jerry\">\n"
                          "  <book id=\"1\">\n"
                          "    <title>XML &lt;for&gt; everyone</title>\n"
                          "    <note>Mixed <b>content</b> stays exact.</note>\n"
                          "    <empty/>\n"
                          "  </book>\n"
                          "</catalog>\n");
    free(out);
}

Test(writer_examples, errors) {
    int rc;
    char *out = run_example(example_errors_main, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(out, "API misuse | stax_writer_start: no sink set: call stax_writer_set_sink (or _fd, _file, "
                          "_memory) first\n"
                          "content refused | stax_writer_start: the name is not an XML Name\n"
                          "content refused | stax_writer_comment: a comment may not hold \"--\" nor end in '-'\n"
                          "invalid byte sequence for the encoding | stax_writer_text: a string is not valid UTF-8\n"
                          "duplicate attribute | stax_writer_attr: the attribute is already on this start tag\n"
                          "call out of order | stax_writer_attr: no start tag open: attributes come right after "
                          "stax_writer_start\n"
                          "<r a=\"1\">ok</r>\n");
    free(out);
}

Test(writer_examples, nonblocking) {
    int rc;
    char *out = run_example(example_nonblocking_main, &rc);
    cr_assert_eq(rc, 0);
    const char *line = "<line>All work and no play makes Jack a dull boy. </line>";
    size_t ll = strlen(line);
    cr_assert_eq(strlen(out), 7 + 5000 * ll + 8);
    cr_assert(memcmp(out, "<lines>", 7) == 0);
    for (size_t i = 0; i < 5000; i++) cr_assert(memcmp(out + 7 + i * ll, line, ll) == 0, "line %zu", i);
    cr_assert_str_eq(out + 7 + 5000 * ll, "</lines>");
    free(out);
}

Test(writer_examples, fixed) {
    int rc;
    char *out = run_example(example_fixed_main, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(out, "room for 40 levels of 16-byte names: yes\n"
                          "ok: <reading sensor=\"t1\">21.5</reading>\n"
                          "output buffer full: <message>far too\n");
    free(out);
}

Test(writer_examples, numbers) {
    int rc;
    char *out = run_example(example_numbers_main, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(out, "ok: <item id=\"18446744073709551615\" price=\"19.99\" delta=\"-0.005\">"
                          "-9223372036854775808</item>\n");
    free(out);
}

Test(writer_examples, sticky) {
    int rc;
    char *out = run_example(example_sticky_main, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(out, "no writer: indent_width is over 64\n"
                          "finish: invalid byte sequence for the encoding\n"
                          "first error: invalid byte sequence for the encoding\n"
                          "message: stax_writer_element: a string is not valid UTF-8\n"
                          "<log><entry>started</entry>\n");
    free(out);
}

Test(writer_examples, xmpp) {
    int rc;
    char *out = run_example(example_xmpp_main, &rc);
    cr_assert_eq(rc, 0);
    const char *stanza = "<message to=\"juliet@example.com\"><body>Neither, fair saint, if either thee dislike.</body>"
                         "<active xmlns=\"http://jabber.org/protocol/chatstates\"/></message>";
    char want[2048];
    snprintf(want, sizeof want,
             "juliet@example.com: Art thou not Romeo,\n"
             "juliet@example.com: & a Montague?\n"
             "sent: <stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>%s%s"
             "</stream:stream>\n",
             stanza, stanza);
    cr_assert_str_eq(out, want);
    free(out);
}
