/* Writer: every call and every refusal, with the exact expected bytes written
 * by hand from the XML rules; escaping read back by the stax reader and by
 * xmllint. Async sinks, fixed memory and fmt are in test_writer_*.c. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A writer into a growable memory sink; opt may be NULL. */
static stax_writer *mk(const stax_writer_options *opt) {
    stax_writer *w = stax_writer_new(opt);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    return w;
}

static stax_writer *mk_flags(unsigned flags, unsigned indent) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.indent_width = indent;
    return mk(&o);
}

/* Flush, compare everything written so far with want, free. */
static void expect_out(stax_writer *w, const char *want) {
    cr_assert_eq(stax_writer_flush(w), STAX_OK);
    stax_str m = stax_writer_memory(w);
    cr_assert(m.len == strlen(want) && (m.len == 0 || memcmp(m.ptr, want, m.len) == 0),
              "output\n  [%.*s]\nwanted\n  [%s]", (int)m.len, m.ptr ? m.ptr : "", want);
    stax_writer_free(w);
}

static void expect_doc(stax_writer *w, const char *want) {
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_out(w, want);
}

#define S(lit) ((stax_str){(lit), sizeof(lit) - 1})
#define NONE ((stax_str){NULL, 0})

/* ================================================================ elements, attributes, text */

Test(writer, element_with_attributes_and_text) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_start_z(w, "a"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "x", "1"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "y", ""), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "hi"), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "b"), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    expect_doc(w, "<a x=\"1\" y=\"\">hi<b></b></a>");
}

Test(writer, self_closing_option) {
    stax_writer *w = mk_flags(STAX_WRITE_SELF_CLOSE, 0);
    stax_writer_start_z(w, "a");
    stax_writer_start_z(w, "b");
    stax_writer_attr_z(w, "k", "v");
    stax_writer_end(w);
    stax_writer_start_z(w, "c");
    stax_writer_text_z(w, ""); /* empty text: the element has (empty) content */
    stax_writer_end(w);
    expect_doc(w, "<a><b k=\"v\"/><c></c></a>");
}

Test(writer, names_with_utf8_colon_dot_dash) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_start_z(w, "ns:r\xc3\xa9s-1.x_"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "\xe4\xb8\xad", "v"), STAX_OK);
    expect_doc(w, "<ns:r\xc3\xa9s-1.x_ \xe4\xb8\xad=\"v\"></ns:r\xc3\xa9s-1.x_>");
}

Test(writer, bad_names_refused) {
    const char *bad[] = {"", "1a", "-a", ".a", "a b", "a>", "a\"", "a&", "\xff", "a\xc3", "\xcc\x80x" /* U+0300 first */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        stax_writer *w = mk(NULL);
        cr_assert_eq(stax_writer_start_z(w, bad[i]), STAX_E_INVALID, "start '%s'", bad[i]);
        cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
        cr_assert_eq(stax_writer_attr_z(w, bad[i], "v"), STAX_E_INVALID, "attr '%s'", bad[i]);
        cr_assert_eq(stax_writer_pi_z(w, bad[i], "d"), STAX_E_INVALID, "pi '%s'", bad[i]);
        expect_doc(w, "<r></r>");
    }
}

Test(writer, attribute_escapes) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_attr_z(w, "v", "& < > \" ' \t \n \r ]]> x"), STAX_OK);
    expect_doc(w, "<a v=\"&amp; &lt; > &quot; ' &#9; &#10; &#13; ]]> x\"></a>");
}

Test(writer, text_escapes) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_text_z(w, "& < > \" ' \t \n \r ]]> x"), STAX_OK);
    expect_doc(w, "<a>&amp; &lt; &gt; \" ' \t \n &#13; ]]&gt; x</a>");
}

Test(writer, text_long_runs_and_utf8) {
    /* runs longer than the 4-byte unrolled scan, escapes at both ends */
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_text_z(w, "<abcdefghijklmnop\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80qrstuvwxyz&"), STAX_OK);
    expect_doc(w, "<a>&lt;abcdefghijklmnop\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80qrstuvwxyz&amp;</a>");
}

/* The escaping rules written out byte by byte: the oracle for the test below.
 * Returns STAX_OK and the escaped form of s in out, or the error the writer
 * must give (the first problem from the left decides). */
static int ref_escape(const unsigned char *s, size_t n, int attr, char *out, size_t *outn) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned b = s[i];
        const char *e = NULL;
        if (b < 0x80) {
            if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') return STAX_E_CHAR;
            if (b == '&') e = "&amp;";
            else if (b == '<') e = "&lt;";
            else if (b == '>' && !attr) e = "&gt;";
            else if (b == '"' && attr) e = "&quot;";
            else if (b == '\r') e = "&#13;";
            else if (b == '\t' && attr) e = "&#9;";
            else if (b == '\n' && attr) e = "&#10;";
            if (e) {
                memcpy(out + o, e, strlen(e));
                o += strlen(e);
            } else {
                out[o++] = (char)b;
            }
            i++;
            continue;
        }
        size_t len = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
        if (len == 0 || n - i < len) return STAX_E_ENCODING;
        unsigned long cp = b & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return STAX_E_ENCODING;
            cp = cp << 6 | (s[i + k] & 0x3Fu);
        }
        unsigned long min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return STAX_E_ENCODING;
        if (cp == 0xFFFE || cp == 0xFFFF) return STAX_E_CHAR;
        memcpy(out + o, s + i, len);
        o += len;
        i += len;
    }
    *outn = o;
    return STAX_OK;
}

Test(writer, escaping_matches_reference_at_every_length) {
    /* Random strings from pieces that hit every branch of the escapers (long
     * plain runs, specials, TAB LF CR, UTF-8 of every length, now and then a
     * bad byte), at lengths across the 16- and 32-byte blocks of the fast
     * path. Each goes through text, attr and element with a large buffer (the
     * fast paths) and with small ones (the piece path, draining mid-string);
     * the bytes must be the oracle's and a refused call must write nothing. */
    static const char *const good[] = {"a", "xyz", "0123456789abcdef", "The quick brown fox ", "&", "<", ">",
                                       "\"", "'", "\t", "\n", "\r", "]]>", "\xc3\xa9", "\xe2\x82\xac",
                                       "\xf0\x9f\x98\x80", "\x7f", " "};
    static const char *const bad[] = {"\x80", "\xc3", "\xed\xa0\x80", "\xef\xbf\xbe", "\x01", "\xc0\xaf", "\xf4\x90\x80\x80",
                                      "\x1f", "\xff", "\xef\xbf\xbf"};
    static const size_t buffers[] = {65536, 64, 200};
    unsigned long long x = 88172645463325252ull;
    char *s = malloc(4096), *esc = malloc(6 * 4096), *want = malloc(6 * 4096 + 64);
    cr_assert(s && esc && want);
    for (int round = 0; round < 1500; round++) {
        size_t n = 0, target;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        target = (size_t)(x % (round < 1000 ? 72 : 700));
        int with_bad = x % 8 == 0;
        while (n < target) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *p = good[x % (sizeof good / sizeof good[0])];
            memcpy(s + n, p, strlen(p));
            n += strlen(p);
        }
        if (with_bad) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *p = bad[x % (sizeof bad / sizeof bad[0])];
            size_t at = n ? (size_t)(x >> 8) % (n + 1) : 0;
            memmove(s + at + strlen(p), s + at, n - at);
            memcpy(s + at, p, strlen(p));
            n += strlen(p);
        }
        for (int attr = 0; attr < 2; attr++) {
            size_t en = 0;
            int st = ref_escape((const unsigned char *)s, n, attr, esc, &en);
            for (size_t b = 0; b < sizeof buffers / sizeof buffers[0]; b++) {
                for (int elem = 0; elem < (attr ? 1 : 2); elem++) {
                    stax_writer_options o;
                    memset(&o, 0, sizeof o);
                    o.buffer_size = buffers[b];
                    stax_writer *w = mk(&o);
                    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
                    stax_str v = {s, n};
                    int got = attr ? stax_writer_attr(w, S("v"), v) : elem ? stax_writer_element(w, S("e"), v)
                                                                            : stax_writer_text(w, v);
                    cr_assert_eq(got, st, "round %d attr %d elem %d buffer %zu: status %d, wanted %d", round, attr, elem,
                                 buffers[b], got, st);
                    size_t wn = 0;
                    const char *open = attr ? "<r v=\"" : elem ? "<r><e>" : "<r>";
                    const char *close = attr ? "\"></r>" : elem ? "</e></r>" : "</r>";
                    if (st == STAX_OK) {
                        memcpy(want, open, strlen(open));
                        wn = strlen(open);
                        memcpy(want + wn, esc, en);
                        wn += en;
                        memcpy(want + wn, close, strlen(close));
                        wn += strlen(close);
                    } else {
                        memcpy(want, "<r></r>", 7);
                        wn = 7;
                    }
                    want[wn] = '\0';
                    cr_assert_eq(stax_writer_finish(w), STAX_OK);
                    stax_str m = stax_writer_memory(w);
                    cr_assert(m.len == wn && memcmp(m.ptr, want, wn) == 0,
                              "round %d attr %d elem %d buffer %zu:\n  [%.*s]\nwanted\n  [%s]", round, attr, elem,
                              buffers[b], (int)m.len, m.ptr, want);
                    stax_writer_free(w);
                }
            }
        }
    }
    free(s);
    free(esc);
    free(want);
}

Test(writer, duplicate_attribute_refused) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_attr_z(w, "x", "1"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "xy", "2"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "x", "3"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_z(w, "xy", "3"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_start_z(w, "b"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "x", "4"), STAX_OK); /* another element: allowed */
    expect_doc(w, "<a x=\"1\" xy=\"2\"><b x=\"4\"></b></a>");
}

Test(writer, many_attributes_duplicate_found) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    char name[16];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "a%d", i);
        cr_assert_eq(stax_writer_attr_z(w, name, ""), STAX_OK);
    }
    cr_assert_eq(stax_writer_attr_z(w, "a0", ""), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_z(w, "a299", ""), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_z(w, "a150", ""), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    stax_writer_free(w);
}

Test(writer, attribute_after_content_refused) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_attr_z(w, "x", "1"), STAX_E_STATE); /* nothing open */
    stax_writer_start_z(w, "a");
    stax_writer_text_z(w, "t");
    cr_assert_eq(stax_writer_attr_z(w, "x", "1"), STAX_E_STATE);
    cr_assert_eq(stax_writer_ns_z(w, "p", "u"), STAX_E_STATE);
    stax_writer_start_z(w, "b");
    stax_writer_end(w);
    cr_assert_eq(stax_writer_attr_z(w, "x", "1"), STAX_E_STATE); /* after a child */
    expect_doc(w, "<a>t<b></b></a>");
}

Test(writer, namespace_declarations) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "p:a");
    cr_assert_eq(stax_writer_ns_z(w, "", "urn:d"), STAX_OK);
    cr_assert_eq(stax_writer_ns_z(w, "p", "urn:p&\""), STAX_OK);
    cr_assert_eq(stax_writer_ns_z(w, "xml", "http://www.w3.org/XML/1998/namespace"), STAX_OK);
    cr_assert_eq(stax_writer_ns_z(w, "p", "urn:other"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_z(w, "xmlns:p", "urn:x"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_z(w, "xmlns", "urn:x"), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_ns_z(w, "xmlns", "urn:x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "q", ""), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "a:b", "urn:x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "1q", "urn:x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "xml", "urn:x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "q", "http://www.w3.org/XML/1998/namespace"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_ns_z(w, "q", "http://www.w3.org/2000/xmlns/"), STAX_E_INVALID);
    stax_writer_start_z(w, "b");
    cr_assert_eq(stax_writer_ns_z(w, "", ""), STAX_OK); /* undeclaring the default is allowed */
    expect_doc(w, "<p:a xmlns=\"urn:d\" xmlns:p=\"urn:p&amp;&quot;\" "
                  "xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"><b xmlns=\"\"></b></p:a>");
}

Test(writer, invalid_utf8_and_non_chars_refused) {
    struct {
        const char *s;
        int st;
    } bad[] = {
        {"\x80", STAX_E_ENCODING},          /* lone continuation */
        {"a\xc3", STAX_E_ENCODING},         /* truncated */
        {"\xc0\xaf", STAX_E_ENCODING},      /* overlong '/' */
        {"\xed\xa0\x80", STAX_E_ENCODING},  /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", STAX_E_ENCODING}, /* > U+10FFFF */
        {"\xff", STAX_E_ENCODING},
        {"\x01", STAX_E_CHAR},
        {"a\x0b", STAX_E_CHAR},
        {"\x1f", STAX_E_CHAR},
        {"\xef\xbf\xbe", STAX_E_CHAR}, /* U+FFFE */
        {"\xef\xbf\xbf", STAX_E_CHAR}, /* U+FFFF */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        stax_writer *w = mk(NULL);
        stax_writer_start_z(w, "a");
        cr_assert_eq(stax_writer_attr_z(w, "v", bad[i].s), bad[i].st, "attr %zu", i);
        cr_assert_eq(stax_writer_text_z(w, bad[i].s), bad[i].st, "text %zu", i);
        cr_assert_eq(stax_writer_cdata_z(w, bad[i].s), bad[i].st, "cdata %zu", i);
        cr_assert_eq(stax_writer_comment_z(w, bad[i].s), bad[i].st, "comment %zu", i);
        cr_assert_eq(stax_writer_pi_z(w, "p", bad[i].s), bad[i].st, "pi %zu", i);
        /* refused calls left the start tag open and wrote nothing */
        cr_assert_eq(stax_writer_attr_z(w, "ok", "1"), STAX_OK);
        expect_doc(w, "<a ok=\"1\"></a>");
    }
}

Test(writer, nul_byte_refused) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_text(w, S("x\0y")), STAX_E_CHAR);
    expect_doc(w, "<a></a>");
}

Test(writer, refused_call_changes_nothing) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    stax_writer_attr_z(w, "x", "1");
    /* each of these would first close the start tag: none may */
    cr_assert_eq(stax_writer_comment_z(w, "a--b"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_text_z(w, "ok then \xff"), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_pi_z(w, "xml", ""), STAX_E_INVALID);
    cr_assert_eq(stax_writer_start_z(w, "1"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_cdata_z(w, "\x02"), STAX_E_CHAR);
    cr_assert_eq(stax_writer_attr_z(w, "y", "\x02"), STAX_E_CHAR);
    cr_assert_eq(stax_writer_attr_z(w, "y", "2"), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "t"), STAX_OK);
    expect_doc(w, "<a x=\"1\" y=\"2\">t</a>");
}

/* ================================================================ structure */

Test(writer, end_with_nothing_open_refused) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    expect_doc(w, "<a></a>");
}

Test(writer, second_root_refused) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    stax_writer_end(w);
    cr_assert_eq(stax_writer_start_z(w, "b"), STAX_E_STATE);
    cr_assert_eq(stax_writer_comment_z(w, "epilog"), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "p", ""), STAX_OK);
    expect_doc(w, "<a></a><!--epilog--><?p?>");
}

Test(writer, text_outside_root) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_text_z(w, "x"), STAX_E_STATE);
    cr_assert_eq(stax_writer_text_z(w, " \t\n"), STAX_OK); /* S is allowed in the prolog */
    cr_assert_eq(stax_writer_text_z(w, "\r"), STAX_E_STATE); /* would need &#13;, not allowed there */
    cr_assert_eq(stax_writer_cdata_z(w, "x"), STAX_E_STATE);
    stax_writer_start_z(w, "a");
    stax_writer_end(w);
    cr_assert_eq(stax_writer_text_z(w, "&"), STAX_E_STATE);
    cr_assert_eq(stax_writer_text_z(w, "\n"), STAX_OK);
    expect_doc(w, " \t\n<a></a>\n");
}

Test(writer, finish_closes_everything) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    stax_writer_start_z(w, "b");
    stax_writer_attr_z(w, "k", "v");
    stax_writer_start_z(w, "c");
    stax_writer_text_z(w, "t");
    cr_assert_eq(stax_writer_depth(w), 3);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_depth(w), 0);
    cr_assert_eq(stax_writer_finish(w), STAX_OK); /* idempotent */
    cr_assert_eq(stax_writer_text_z(w, "\n"), STAX_E_STATE);
    cr_assert_eq(stax_writer_comment_z(w, "late"), STAX_E_STATE);
    expect_out(w, "<a><b k=\"v\"><c>t</c></b></a>");
}

Test(writer, finish_without_root_refused) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_finish(w), STAX_E_STATE);
    stax_writer_comment_z(w, "c");
    cr_assert_eq(stax_writer_finish(w), STAX_E_STATE);
    stax_writer_start_z(w, "r");
    expect_doc(w, "<!--c--><r></r>");
}

Test(writer, no_sink_is_usage_error) {
    stax_writer *w = stax_writer_new(NULL);
    cr_assert_eq(stax_writer_start_z(w, "a"), STAX_E_USAGE);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_E_USAGE); /* sink set once */
    stax_writer_free(w);
}

Test(writer, bad_options_refused) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = STAX_WRITER_MIN_BUFFER - 1;
    cr_assert_null(stax_writer_new(&o));
    o.buffer_size = 0;
    o.indent = " x";
    cr_assert_null(stax_writer_new(&o));
    o.indent = NULL;
    o.indent_width = 65;
    cr_assert_null(stax_writer_new(&o));
    o.indent_width = 0;
    o.flags = 0x80;
    cr_assert_null(stax_writer_new(&o));
}

/* ================================================================ prolog */

Test(writer, xml_declaration_forms) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, NONE, 0), STAX_OK);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, NONE, 0), STAX_E_STATE);
    stax_writer_start_z(w, "a");
    expect_doc(w, "<?xml version=\"1.0\"?><a></a>");

    w = mk(NULL);
    cr_assert_eq(stax_writer_xml_decl(w, S("1.1"), S("utf-8"), STAX_EVF_STANDALONE_YES), STAX_OK);
    stax_writer_start_z(w, "a");
    expect_doc(w, "<?xml version=\"1.1\" encoding=\"utf-8\" standalone=\"yes\"?><a></a>");

    w = mk(NULL);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, S("UTF-8"), STAX_EVF_STANDALONE_NO), STAX_OK);
    stax_writer_start_z(w, "a");
    expect_doc(w, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><a></a>");
}

Test(writer, xml_declaration_refusals) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_xml_decl(w, S("2.0"), NONE, 0), STAX_E_INVALID);
    cr_assert_eq(stax_writer_xml_decl(w, S("1."), NONE, 0), STAX_E_INVALID);
    cr_assert_eq(stax_writer_xml_decl(w, S("1.0a"), NONE, 0), STAX_E_INVALID);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, S("ISO-8859-1"), 0), STAX_E_INVALID);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, S("UTF-8 "), 0), STAX_E_INVALID);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, NONE, 0x40), STAX_E_INVALID);
    cr_assert_eq(stax_writer_comment_z(w, "c"), STAX_OK);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, NONE, 0), STAX_E_STATE); /* not first */
    stax_writer_start_z(w, "a");
    expect_doc(w, "<!--c--><a></a>");
}

Test(writer, doctype_forms) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_doctype(w, S("html"), NONE, NONE, NONE), STAX_OK);
    stax_writer_start_z(w, "html");
    expect_doc(w, "<!DOCTYPE html><html></html>");

    w = mk(NULL);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, S("a.dtd"), NONE), STAX_OK);
    stax_writer_start_z(w, "a");
    expect_doc(w, "<!DOCTYPE a SYSTEM \"a.dtd\"><a></a>");

    w = mk(NULL);
    cr_assert_eq(stax_writer_doctype(w, S("a"), S("-//X//DTD a 1.0//EN"), S("say \"hi\".dtd"), NONE), STAX_OK);
    stax_writer_start_z(w, "a");
    expect_doc(w, "<!DOCTYPE a PUBLIC \"-//X//DTD a 1.0//EN\" 'say \"hi\".dtd'><a></a>");

    w = mk(NULL);
    cr_assert_eq(stax_writer_xml_decl(w, NONE, NONE, 0), STAX_OK);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, NONE, S("<!ENTITY e \"x\">")), STAX_OK);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, NONE, NONE), STAX_E_STATE); /* twice */
    stax_writer_start_z(w, "a");
    expect_doc(w, "<?xml version=\"1.0\"?><!DOCTYPE a [<!ENTITY e \"x\">]><a></a>");
}

Test(writer, doctype_refusals) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_doctype(w, S("1a"), NONE, NONE, NONE), STAX_E_INVALID);
    cr_assert_eq(stax_writer_doctype(w, S("a"), S("pub"), NONE, NONE), STAX_E_INVALID);   /* no system id */
    cr_assert_eq(stax_writer_doctype(w, S("a"), S("p\"b"), S("s"), NONE), STAX_E_INVALID); /* not PubidChar */
    cr_assert_eq(stax_writer_doctype(w, S("a"), S("p{b"), S("s"), NONE), STAX_E_INVALID);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, S("'\""), NONE), STAX_E_INVALID);   /* both quotes */
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, S("\xff"), NONE), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, NONE, S("\x01")), STAX_E_CHAR);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, NONE, NONE), STAX_E_STATE); /* inside the root */
    stax_writer_end(w);
    cr_assert_eq(stax_writer_doctype(w, S("a"), NONE, NONE, NONE), STAX_E_STATE); /* after it */
    expect_doc(w, "<a></a>");
}

/* ================================================================ CDATA, comments, PIs, raw */

Test(writer, cdata_sections) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_cdata_z(w, "<&>\"]]"), STAX_OK);
    cr_assert_eq(stax_writer_cdata_z(w, ""), STAX_OK);
    cr_assert_eq(stax_writer_cdata_z(w, "x]]>y]]>"), STAX_OK);
    cr_assert_eq(stax_writer_cdata_z(w, "a\rb"), STAX_OK);
    expect_doc(w, "<a><![CDATA[<&>\"]]]]><![CDATA[]]>"
                  "<![CDATA[x]]]]><![CDATA[>y]]]]><![CDATA[>]]>"
                  "<![CDATA[a]]>&#13;<![CDATA[b]]></a>");
}

Test(writer, comments) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_comment_z(w, " prolog - with-dashes "), STAX_OK);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_comment_z(w, ""), STAX_OK);
    cr_assert_eq(stax_writer_comment_z(w, "<&>]]>"), STAX_OK);
    cr_assert_eq(stax_writer_comment_z(w, "a--b"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_comment_z(w, "--"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_comment_z(w, "-"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_comment_z(w, "ends with -"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_comment_z(w, "-starts"), STAX_OK);
    expect_doc(w, "<!-- prolog - with-dashes --><a><!----><!--<&>]]>--><!---starts--></a>");
}

Test(writer, processing_instructions) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_pi_z(w, "xml-stylesheet", "href=\"a.xsl\""), STAX_OK);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_pi_z(w, "t", ""), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "t", "a ? b > c ?"), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "t", "a?>b"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_pi_z(w, "t", "?>"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_pi_z(w, "xml", ""), STAX_E_INVALID);
    cr_assert_eq(stax_writer_pi_z(w, "XmL", "x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_pi_z(w, "xmlfoo", "x"), STAX_OK); /* only exactly xml is reserved here */
    expect_doc(w, "<?xml-stylesheet href=\"a.xsl\"?><a><?t?><?t a ? b > c ?" "?><?xmlfoo x?></a>");
}

Test(writer, raw_bytes) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_raw_z(w, "&ent;<b/>"), STAX_OK);
    cr_assert_eq(stax_writer_raw(w, NONE), STAX_OK);
    expect_doc(w, "<a>&ent;<b/></a>");
}

Test(writer, element_convenience) {
    stax_writer *w = mk(NULL);
    stax_writer_start_z(w, "r");
    cr_assert_eq(stax_writer_element_z(w, "t", "a<b"), STAX_OK);
    expect_doc(w, "<r><t>a&lt;b</t></r>");
}

/* ================================================================ indentation */

Test(writer, indentation_element_only) {
    stax_writer *w = mk_flags(STAX_WRITE_SELF_CLOSE, 2);
    stax_writer_xml_decl(w, NONE, NONE, 0);
    stax_writer_comment_z(w, "c");
    stax_writer_start_z(w, "a");
    stax_writer_start_z(w, "b");
    stax_writer_start_z(w, "c");
    stax_writer_end(w);
    stax_writer_pi_z(w, "p", "");
    stax_writer_end(w);
    stax_writer_element_z(w, "d", "text");
    stax_writer_start_z(w, "e");
    stax_writer_end(w);
    stax_writer_end(w);
    stax_writer_comment_z(w, "after");
    expect_doc(w, "<?xml version=\"1.0\"?>\n"
                  "<!--c-->\n"
                  "<a>\n"
                  "  <b>\n"
                  "    <c/>\n"
                  "    <?p?>\n"
                  "  </b>\n"
                  "  <d>text</d>\n"
                  "  <e/>\n"
                  "</a>\n"
                  "<!--after-->");
}

Test(writer, indentation_never_inside_text_content) {
    stax_writer *w = mk_flags(0, 2);
    stax_writer_start_z(w, "r");
    stax_writer_start_z(w, "p");
    stax_writer_text_z(w, "Hello ");
    stax_writer_start_z(w, "b");
    stax_writer_start_z(w, "i"); /* inside mixed content: not indented either */
    stax_writer_text_z(w, "big");
    stax_writer_end(w);
    stax_writer_end(w);
    stax_writer_comment_z(w, "c");
    stax_writer_text_z(w, " world");
    stax_writer_end(w);
    stax_writer_start_z(w, "q");
    stax_writer_end(w);
    expect_doc(w, "<r>\n"
                  "  <p>Hello <b><i>big</i></b><!--c--> world</p>\n"
                  "  <q></q>\n"
                  "</r>");
}

Test(writer, indentation_empty_text_marks_mixed) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.indent = "\t";
    stax_writer *w = mk(&o);
    stax_writer_start_z(w, "r");
    stax_writer_start_z(w, "p");
    stax_writer_text_z(w, ""); /* declares mixed content before the first child */
    stax_writer_start_z(w, "b");
    stax_writer_end(w);
    stax_writer_text_z(w, "tail");
    stax_writer_end(w);
    stax_writer_start_z(w, "s");
    stax_writer_start_z(w, "t");
    stax_writer_end(w);
    stax_writer_end(w);
    expect_doc(w, "<r>\n"
                  "\t<p><b></b>tail</p>\n"
                  "\t<s>\n"
                  "\t\t<t></t>\n"
                  "\t</s>\n"
                  "</r>");
}

Test(writer, indentation_doctype_and_cdata) {
    stax_writer *w = mk_flags(STAX_WRITE_SELF_CLOSE, 1);
    stax_writer_doctype(w, S("r"), NONE, NONE, NONE);
    stax_writer_start_z(w, "r");
    stax_writer_start_z(w, "c");
    stax_writer_cdata_z(w, "x");
    stax_writer_end(w);
    expect_doc(w, "<!DOCTYPE r>\n<r>\n <c><![CDATA[x]]></c>\n</r>");
}

/* ================================================================ FILE and fd sinks */

Test(writer, file_sink) {
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    stax_writer *w = stax_writer_new(NULL);
    cr_assert_eq(stax_writer_set_file(w, f), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_bytes_out(w), 8);
    stax_writer_free(w);
    rewind(f);
    char got[32] = {0};
    cr_assert_eq(fread(got, 1, sizeof got - 1, f), 8);
    cr_assert_str_eq(got, "<a>x</a>");
    fclose(f);
}

Test(writer, fd_sink) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    stax_writer *w = stax_writer_new(NULL);
    cr_assert_eq(stax_writer_set_fd(w, p[1]), STAX_OK);
    stax_writer_element_z(w, "a", "&");
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    stax_writer_free(w);
    close(p[1]);
    char got[32] = {0};
    cr_assert_eq(read(p[0], got, sizeof got - 1), 12);
    cr_assert_str_eq(got, "<a>&amp;</a>");
    close(p[0]);
}

Test(writer, fd_sink_error_is_sticky) {
    int p[2];
    cr_assert_eq(pipe(p), 0);
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    stax_writer *w = stax_writer_new(NULL);
    cr_assert_eq(stax_writer_set_fd(w, p[1]), STAX_OK);
    stax_writer_element_z(w, "a", "x");
    cr_assert_eq(stax_writer_finish(w), STAX_E_IO);
    cr_assert_eq(stax_writer_status(w), STAX_E_IO);
    cr_assert_eq(stax_writer_flush(w), STAX_E_IO);
    stax_writer_free(w);
    close(p[1]);
}

/* ================================================================ read back */

/* Every special character in every place a value can go. */
#define SPECIALS "& < > \" ' \t \n ]]> ]] > -x- ? \xc3\xa9 \xf0\x9f\x98\x80 end"

static void write_specials(stax_writer *w, int with_cr) {
    const char *v = with_cr ? SPECIALS " \r \r\n" : SPECIALS;
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "a", v), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "t"), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, v), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "c"), STAX_OK);
    cr_assert_eq(stax_writer_cdata_z(w, v), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    /* comments and PIs cannot escape anything: no CR (it would come back as
     * LF by line-end normalization), no "--", no "?>" */
    cr_assert_eq(stax_writer_comment_z(w, "& < > \" ' \t \n ]]> - ? \xc3\xa9"), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "p", "& < > \" ' \t \n ]]> -- ? \xc3\xa9"), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
}

Test(writer, specials_read_back_by_stax_reader) {
    stax_writer *w = mk(NULL);
    write_specials(w, 1);
    stax_str m = stax_writer_memory(w);
    char *dump = stax_test_events(m.ptr, m.len, 0, NULL, NULL);
    /* the harness prints \t \n \r and \" as escapes; the values are exact */
    const char *v = "& < > \\\" ' \\t \\n ]]> ]] > -x- ? \xc3\xa9 \xf0\x9f\x98\x80 end \\r \\r\\n";
    char want[1024];
    snprintf(want, sizeof want,
             "START r a=\"%s\"\n"
             "START t\nTEXT \"%s\"\nEND t\n"
             "START c\nCDATA \"& < > \\\" ' \\t \\n ]]\"\nCDATA \"> ]] > -x- ? \xc3\xa9 \xf0\x9f\x98\x80 end \"\n"
             "TEXT \"\\r\" ws\nCDATA \" \"\nTEXT \"\\r\" ws\nCDATA \"\\n\"\nEND c\n"
             "COMMENT \"& < > \\\" ' \\t \\n ]]> - ? \xc3\xa9\"\n"
             "PI p \"& < > \\\" ' \\t \\n ]]> -- ? \xc3\xa9\"\n"
             "END r\nEND-OF-DOCUMENT\n",
             v, v);
    cr_assert_str_eq(dump, want);
    free(dump);
    stax_writer_free(w);
}

/* Run xmllint --xpath EXPR on the document; return its output (malloc'd). */
static char *xmllint_value(const char *path, const char *expr) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "xmllint --xpath '%s' %s 2>&1", expr, path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    size_t k;
    while ((k = fread(out + len, 1, cap - len - 1, p)) > 0) len += k;
    out[len] = '\0';
    cr_assert_eq(pclose(p), 0, "xmllint failed: %s", out);
    return out;
}

Test(writer, specials_read_back_by_xmllint) {
    if (system("xmllint --version >/dev/null 2>&1") != 0) cr_skip_test("xmllint not installed");
    stax_writer *w = mk(NULL);
    write_specials(w, 1);
    stax_str m = stax_writer_memory(w);
    char path[] = "/tmp/stax_writer_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, m.ptr, m.len), (ssize_t)m.len);
    close(fd);
    const char *v = SPECIALS " \r \r\n";
    char *a = xmllint_value(path, "string(/r/@a)");
    char *t = xmllint_value(path, "string(/r/t)");
    char *c = xmllint_value(path, "string(/r/c)");
    char *cm = xmllint_value(path, "string(/r/comment())");
    char *pi = xmllint_value(path, "string(/r/processing-instruction(\"p\"))");
    /* xmllint prints the string and a newline */
    char want[256];
    snprintf(want, sizeof want, "%s\n", v);
    cr_assert_str_eq(a, want);
    cr_assert_str_eq(t, want);
    cr_assert_str_eq(c, want);
    cr_assert_str_eq(cm, "& < > \" ' \t \n ]]> - ? \xc3\xa9\n");
    cr_assert_str_eq(pi, "& < > \" ' \t \n ]]> -- ? \xc3\xa9\n");
    free(a);
    free(t);
    free(c);
    free(cm);
    free(pi);
    unlink(path);
    stax_writer_free(w);
}

Test(writer, refused_large_call_changes_nothing) {
    /* larger than the buffer: validated before a byte is written */
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = STAX_WRITER_MIN_BUFFER;
    stax_writer *w = mk(&o);
    char big[1000];
    memset(big, 'x', sizeof big);
    big[sizeof big - 1] = '\x01';
    stax_writer_start_z(w, "a");
    cr_assert_eq(stax_writer_text(w, (stax_str){big, sizeof big}), STAX_E_CHAR);
    cr_assert_eq(stax_writer_attr(w, stax_strz("v"), (stax_str){big, sizeof big}), STAX_E_CHAR);
    cr_assert_eq(stax_writer_cdata(w, (stax_str){big, sizeof big}), STAX_E_CHAR);
    cr_assert_eq(stax_writer_comment(w, (stax_str){big, sizeof big}), STAX_E_CHAR);
    big[sizeof big - 1] = '\xc3';
    cr_assert_eq(stax_writer_pi(w, stax_strz("p"), (stax_str){big, sizeof big}), STAX_E_ENCODING);
    big[sizeof big - 1] = 'y';
    cr_assert_eq(stax_writer_text(w, (stax_str){big, 100}), STAX_OK);
    char want[200] = "<a>";
    memset(want + 3, 'x', 100);
    strcpy(want + 103, "</a>");
    expect_doc(w, want);
}

/* ================================================================ stax_writer_element */

Test(writer, element_call_exact_bytes) {
    stax_writer *w = mk_flags(0, 2);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "k", "v"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "a", "x & <y>"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "e", ""), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "p"), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "t"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "b", "in mixed"), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    expect_doc(w, "<r k=\"v\">\n  <a>x &amp; &lt;y&gt;</a>\n  <e></e>\n  <p>t<b>in mixed</b></p>\n</r>");
}

Test(writer, element_call_as_root_and_refusals) {
    stax_writer *w = mk(NULL);
    cr_assert_eq(stax_writer_element_z(w, "only", "1"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "second", "2"), STAX_E_STATE); /* a second root */
    expect_doc(w, "<only>1</only>");
    w = mk(NULL);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "1bad", "x"), STAX_E_INVALID); /* nothing written */
    cr_assert_eq(stax_writer_element(w, S("a"), S("bad \xff")), STAX_E_ENCODING); /* nothing written */
    cr_assert_eq(stax_writer_depth(w), 1);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    expect_doc(w, "<r></r>");
    /* the same through the three-call path (a buffer too small for the fast one) */
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = STAX_WRITER_MIN_BUFFER;
    w = mk(&o);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_element(w, S("a"), S("a text too long for the buffer's fast path, then bad \x01")),
                 STAX_E_CHAR);
    cr_assert_eq(stax_writer_depth(w), 1);
    expect_doc(w, "<r></r>");
}

/* Differential: in every state the element call must leave the same bytes
 * and the same writer state as start, text and end, whatever follows. */
static void run_script(stax_writer *w, int fused, int variant) {
    static const char *const texts[] = {"plain", "", "a&b<c>d\"e'f", "\xc3\xa9t\xc3\xa9 \xe4\xb8\xad", "line\nnext\ttab",
                                        "]]> and more text that is longer than sixteen bytes, to take the long path"};
    cr_assert_eq(stax_writer_start_z(w, "root"), STAX_OK);
    for (int i = 0; i < 6; i++) {
        if ((variant + i) % 3 == 0) {
            cr_assert_eq(stax_writer_start_z(w, "g"), STAX_OK);
            if ((variant + i) % 2) cr_assert_eq(stax_writer_attr_z(w, "n", "1"), STAX_OK); /* tag still open */
        }
        if ((variant + i) % 5 == 2) cr_assert_eq(stax_writer_text_z(w, "mixed"), STAX_OK);
        if (fused) {
            cr_assert_eq(stax_writer_element_z(w, "leaf", texts[i]), STAX_OK);
        } else {
            cr_assert_eq(stax_writer_start_z(w, "leaf"), STAX_OK);
            cr_assert_eq(stax_writer_text_z(w, texts[i]), STAX_OK);
            cr_assert_eq(stax_writer_end(w), STAX_OK);
        }
        if ((variant + i) % 3 == 0) cr_assert_eq(stax_writer_end(w), STAX_OK);
        cr_assert_eq(stax_writer_comment_z(w, "c"), STAX_OK);
    }
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
}

Test(writer, element_call_equals_start_text_end) {
    for (unsigned flags = 0; flags <= STAX_WRITE_SELF_CLOSE; flags += STAX_WRITE_SELF_CLOSE) {
        for (unsigned indent = 0; indent <= 3; indent += 3) {
            for (int variant = 0; variant < 12; variant++) {
                stax_writer *a = mk_flags(flags, indent), *b = mk_flags(flags, indent);
                run_script(a, 1, variant);
                run_script(b, 0, variant);
                stax_str x = stax_writer_memory(a), y = stax_writer_memory(b);
                cr_assert(x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0,
                          "flags %u indent %u variant %d:\n[%.*s]\n[%.*s]", flags, indent, variant, (int)x.len, x.ptr,
                          (int)y.len, y.ptr);
                stax_writer_free(a);
                stax_writer_free(b);
            }
        }
    }
}
