/* The writer in fragment mode (STAX_WRITE_FRAGMENT): any number of top-level
 * nodes, escaped, each element well-formed inside; the same bytes through a
 * sink that takes random amounts (the retry rule) as through a memory sink;
 * and the output, wrapped in an element, read back by the reader. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_script.h"

static stax_writer *fragment_writer(unsigned indent, unsigned flags) {
    return new_writer(0, indent, STAX_WRITE_FRAGMENT | flags);
}

static char *memory_out(stax_writer *w) {
    stax_str m = stax_writer_memory(w);
    char *s = malloc(m.len + 1);
    memcpy(s, m.ptr, m.len);
    s[m.len] = '\0';
    return s;
}

Test(writer_fragment, several_roots_text_and_markup) {
    stax_writer *w = fragment_writer(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "a & b < c "), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "x", "1"), STAX_OK);
    cr_assert_eq(stax_writer_comment_z(w, " c "), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "y"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "q", "\""), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    cr_assert_eq(stax_writer_pi_z(w, "p", "d"), STAX_OK);
    cr_assert_eq(stax_writer_cdata_z(w, "]]>"), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "z"), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK); /* closes <z> */
    char *out = memory_out(w);
    cr_assert_str_eq(out, "a &amp; b &lt; c <x>1</x><!-- c --><y q=\"&quot;\"></y><?p d?>"
                          "<![CDATA[]]]]><![CDATA[>]]><z></z>");
    free(out);
    stax_writer_free(w);
}

Test(writer_fragment, zero_roots_finish) {
    stax_writer *w = fragment_writer(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_memory(w).len, 0);
    stax_writer_free(w);
    /* a document still needs its root */
    w = new_writer(0, 0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_E_STATE);
    stax_writer_free(w);
}

Test(writer_fragment, document_rules_stay_without_the_flag) {
    stax_writer *w = new_writer(0, 0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "x"), STAX_E_STATE);
    cr_assert_eq(stax_writer_cdata_z(w, "x"), STAX_E_STATE);
    cr_assert_eq(stax_writer_element_z(w, "a", ""), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "b", ""), STAX_E_STATE);
    cr_assert_eq(stax_writer_start_z(w, "b"), STAX_E_STATE);
    stax_writer_free(w);
}

Test(writer_fragment, declaration_yes_doctype_no) {
    stax_writer *w = fragment_writer(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_doctype(w, stax_strz("a"), stax_strz(NULL), stax_strz(NULL), stax_strz(NULL)),
                 STAX_E_STATE);
    cr_assert_str_eq(stax_writer_message(w), "stax_writer_doctype: a fragment (STAX_WRITE_FRAGMENT) has no DOCTYPE");
    cr_assert_eq(stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "a", ""), STAX_OK);
    cr_assert_eq(stax_writer_element_z(w, "a", ""), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    char *out = memory_out(w);
    cr_assert_str_eq(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a></a><a></a>");
    free(out);
    stax_writer_free(w);
}

Test(writer_fragment, indentation_never_touches_top_level_text) {
    stax_writer *w = fragment_writer(2, STAX_WRITE_SELF_CLOSE);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    stax_writer_start_z(w, "a");
    stax_writer_element_z(w, "b", "t");
    stax_writer_end(w);
    stax_writer_start_z(w, "a");
    stax_writer_end(w);
    stax_writer_text_z(w, "mixed");
    stax_writer_element_z(w, "c", "");
    stax_writer_comment_z(w, "k");
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    char *out = memory_out(w);
    cr_assert_str_eq(out, "<a>\n  <b>t</b>\n</a>\n<a/>mixed<c></c><!--k-->");
    free(out);
    stax_writer_free(w);
}

Test(writer_fragment, bad_text_still_refused_at_top_level) {
    stax_writer *w = fragment_writer(0, 0);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_text_z(w, "\x01"), STAX_E_CHAR);
    cr_assert_eq(stax_writer_text_z(w, "\xff"), STAX_E_ENCODING);
    cr_assert_eq(stax_writer_end(w), STAX_E_STATE);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_memory(w).len, 0);
    stax_writer_free(w);
}

/* The fragment inside <w>...</w> is a document: the reader must accept it. */
static void expect_well_formed(const char *p, size_t n) {
    char *doc = malloc(n + 7);
    memcpy(doc, "<w>", 3);
    memcpy(doc + 3, p, n);
    memcpy(doc + 3 + n, "</w>", 4);
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    cr_assert_eq(stax_reader_feed(r, doc, n + 7), STAX_OK);
    cr_assert_eq(stax_reader_end(r), STAX_OK);
    const stax_batch *b;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
    }
    cr_assert_eq(st, STAX_END, "%s", stax_reader_message(r));
    stax_reader_free(r);
    free(doc);
}

Test(writer_fragment, random_amounts_many_seeds) {
    for (uint32_t seed = 1; seed <= 200; seed++) {
        script sc = make_script_in(seed, 40 + seed % 60, 1 + seed % 150, 1);
        unsigned indent = seed % 3;
        size_t want_len;
        char *want = reference_with(&sc, indent, STAX_WRITE_FRAGMENT, &want_len);
        if (indent == 0) expect_well_formed(want, want_len);
        capture c = {0};
        c.random = 1;
        c.rng = seed;
        size_t buffer = STAX_WRITER_MIN_BUFFER + (seed * 37) % 500;
        c.buffer = buffer;
        stax_writer *w = new_writer(buffer, indent, STAX_WRITE_FRAGMENT);
        cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
        play(w, &sc, NULL, NULL, seed);
        char what[32];
        snprintf(what, sizeof what, "seed %u", seed);
        expect_same(c.p, c.len, want, want_len, what);
        cr_assert(c.max_offer <= buffer);
        stax_writer_free(w);
        free(c.p);
        free(want);
        free_script(&sc);
    }
}

/* A stanza at a time onto a sink that blocks: each flushed, nothing lost. */
Test(writer_fragment, stanzas_flushed_through_a_blocking_sink) {
    capture c = {0};
    c.random = 1;
    c.rng = 5;
    c.buffer = 64;
    stax_writer *w = new_writer(64, 0, STAX_WRITE_FRAGMENT);
    cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
    unsigned long blocked = 0;
    size_t before = 0;
    for (int i = 0; i < 50; i++) {
        int st;
        while ((st = stax_writer_start_z(w, "message")) == STAX_WOULD_BLOCK) blocked++;
        cr_assert_eq(st, STAX_OK);
        while ((st = stax_writer_element_z(w, "body", "hello & goodbye, a long enough body to block")) ==
               STAX_WOULD_BLOCK)
            blocked++;
        cr_assert_eq(st, STAX_OK);
        while ((st = stax_writer_end(w)) == STAX_WOULD_BLOCK) blocked++;
        cr_assert_eq(st, STAX_OK);
        while ((st = stax_writer_flush(w)) == STAX_WOULD_BLOCK) blocked++;
        cr_assert_eq(st, STAX_OK);
        /* after each flush the sink holds every stanza whole */
        const char *one = "<message><body>hello &amp; goodbye, a long enough body to block</body></message>";
        size_t n = strlen(one);
        cr_assert_eq(c.len, before + n);
        cr_assert(memcmp(c.p + before, one, n) == 0);
        before = c.len;
    }
    cr_assert(blocked > 10);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    stax_writer_free(w);
    free(c.p);
}
