/* The conveniences of the reader API: the depth of each event, attributes
 * by name, stax_str helpers, and stax_reader_reset. Expectations are worked
 * out here from the events themselves (depth from START and END), or
 * written by hand. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ depth of each event */

/* Every event's depth against a count kept from the events: a START
 * counts its element, an END too, text and the rest the enclosing ones. */
static void check_depths(const char *doc, size_t len, const stax_reader_options *opt) {
    for (size_t c = 0; c < stax_test_chunk_count; c++) {
        stax_reader *r = stax_reader_new(opt);
        cr_assert_not_null(r);
        size_t chunk = stax_test_chunk_sizes[c] ? stax_test_chunk_sizes[c] : len;
        size_t off = 0, events = 0;
        uint32_t open = 0;
        const stax_batch *b;
        int st = STAX_NEED_INPUT;
        while (st == STAX_NEED_INPUT) {
            if (off < len) {
                size_t k = len - off < chunk ? len - off : chunk;
                stax_reader_feed(r, doc + off, k);
                off += k;
            } else {
                stax_reader_end(r);
            }
            while ((st = stax_reader_next(r, &b)) == STAX_OK) {
                for (size_t i = 0; i < b->count; i++, events++) {
                    int t = stax_ev_type(b, i);
                    if (t == STAX_EV_START) open++;
                    cr_assert_eq(stax_ev_depth(b, i), open, "chunk %zu, event %zu (type %d): depth %u, want %u",
                                 stax_test_chunk_sizes[c], events, t, stax_ev_depth(b, i), open);
                    if (t == STAX_EV_END) open--;
                }
            }
        }
        cr_assert_eq(st, STAX_END, "%s", stax_reader_message(r));
        cr_assert_gt(events, 0);
        stax_reader_free(r);
    }
}

Test(api, depth_of_each_event) {
    static const char plain[] = "<?xml version='1.0'?><!--c--><?p x?>\n<a x='1'>t<b/><c><d>u</d>\n<e y='2' z='3'/></c>"
                                "<![CDATA[k]]><!--in--></a><!--after-->";
    check_depths(STAX_DOC(plain), NULL);
    /* CR LF line ends take the general way for every token */
    static const char crlf[] = "<a>\r\n<b>x</b>\r\n<c/>\r\n</a>\r\n";
    check_depths(STAX_DOC(crlf), NULL);
    /* events of entity expansion, and defaulted attributes */
    static const char dtd[] = "<!DOCTYPE a [<!ENTITY e '<i>x<j/></i>'><!ATTLIST b d CDATA 'v'>]><a>&e;<b>&e;</b><b/></a>";
    check_depths(STAX_DOC(dtd), NULL);
    stax_reader_options ns = {0};
    ns.flags = STAX_READ_NAMESPACES;
    static const char nsdoc[] = "<p:a xmlns:p='u'><p:b/><c xmlns='v'><d/></c></p:a>";
    check_depths(STAX_DOC(nsdoc), &ns);
    /* texts longer than a block after a start tag: read with it (the last
     * two: decoded, and one before a child) */
    static const char longs[] = "<a><b>0123456789abcdefghij</b><c>0123456789&amp;abcdefghij</c>"
                                "<d>0123456789abcdefghij<e/>x</d><!--0123456789012345678901234567890123456789--></a>";
    check_depths(STAX_DOC(longs), NULL);
    stax_reader_options small = {0};
    small.batch_events = 2;
    check_depths(STAX_DOC(plain), &small);
}

/* ================================================================ attributes by name */

Test(api, attributes_by_name) {
    static const char doc[] = "<!DOCTYPE r [<!ATTLIST r d CDATA 'dv'>]><r a='1' bb='two' p:c='3' xmlns:p='urn:p'/>";
    for (int ns = 0; ns < 2; ns++) {
        stax_reader_options o = {0};
        o.flags = ns ? STAX_READ_NAMESPACES : 0;
        stax_reader *r = stax_reader_new(&o);
        stax_test_cursor c;
        stax_test_cursor_open(&c, r, STAX_DOC(doc));
        int seen = 0;
        while (stax_test_cursor_next(&c)) {
            if (stax_ev_type(c.b, c.i) != STAX_EV_START) continue;
            seen = 1;
            stax_str v;
            cr_assert_eq(stax_ev_attr_index(c.b, c.i, "a"), 0);
            cr_assert_eq(stax_ev_attr_index(c.b, c.i, "bb"), 1);
            cr_assert_eq(stax_ev_attr_index(c.b, c.i, "b"), -1);
            cr_assert_eq(stax_ev_attr_index(c.b, c.i, "bbb"), -1);
            cr_assert(stax_ev_attr_get(c.b, c.i, "bb", &v) && stax_str_eq(v, "two"));
            cr_assert(stax_ev_attr_get(c.b, c.i, "d", &v) && stax_str_eq(v, "dv"), "defaulted");
            cr_assert(!stax_ev_attr_get(c.b, c.i, "zz", &v));
            cr_assert(v.len == 0 && v.ptr);
            cr_assert(stax_ev_attr_get(c.b, c.i, "p:c", &v) && stax_str_eq(v, "3"));
            if (ns) {
                cr_assert(stax_ev_attr_get_ns(c.b, c.i, "urn:p", "c", &v) && stax_str_eq(v, "3"));
                cr_assert(!stax_ev_attr_get_ns(c.b, c.i, "", "c", &v));
                cr_assert(stax_ev_attr_get_ns(c.b, c.i, "", "a", &v) && stax_str_eq(v, "1"));
            } else {
                cr_assert(stax_ev_attr_get_ns(c.b, c.i, "", "p:c", &v) && stax_str_eq(v, "3"));
                cr_assert(!stax_ev_attr_get_ns(c.b, c.i, "urn:p", "c", &v));
            }
        }
        cr_assert_eq(c.status, STAX_END);
        cr_assert(seen);
        stax_reader_free(r);
    }
}

/* ================================================================ stax_str helpers */

Test(api, str_helpers) {
    stax_str a = {"abc", 3}, b = {"abd", 3}, p = {"ab", 2}, e = {NULL, 0}, a2 = {"abcX", 3};
    cr_assert(stax_str_same(a, a2));
    cr_assert(!stax_str_same(a, b));
    cr_assert(!stax_str_same(a, p));
    cr_assert(stax_str_same(e, (stax_str){"", 0}));
    cr_assert_lt(stax_str_cmp(a, b), 0);
    cr_assert_gt(stax_str_cmp(b, a), 0);
    cr_assert_gt(stax_str_cmp(a, p), 0);
    cr_assert_lt(stax_str_cmp(p, a), 0);
    cr_assert_eq(stax_str_cmp(a, a2), 0);
    cr_assert_lt(stax_str_cmp((stax_str){"a", 1}, (stax_str){"\xc3\xa9", 2}), 0, "bytes compare unsigned");
    char buf[8];
    memset(buf, 'z', sizeof buf);
    cr_assert_eq(stax_str_copy(a, buf, sizeof buf), 3);
    cr_assert_str_eq(buf, "abc");
    cr_assert_eq(stax_str_copy(a, buf, 3), 3);
    cr_assert_str_eq(buf, "ab", "cut to fit the NUL");
    cr_assert_eq(stax_str_copy(a, buf, 1), 3);
    cr_assert_str_eq(buf, "");
    buf[0] = 'q';
    cr_assert_eq(stax_str_copy(a, buf, 0), 3);
    cr_assert_eq(buf[0], 'q', "cap 0 writes nothing");
    stax_str u = {"x\xe2\x82\xac", 4}; /* x and the euro sign */
    cr_assert_eq(stax_str_copy(u, buf, 4), 4);
    cr_assert_str_eq(buf, "x", "a cut never splits a UTF-8 sequence");
    cr_assert_eq(stax_str_copy(u, buf, 5), 4);
    cr_assert_str_eq(buf, "x\xe2\x82\xac");
    cr_assert_eq(stax_str_copy(e, buf, 4), 0);
    cr_assert_str_eq(buf, "");
}

/* ================================================================ reset */

typedef struct {
    const char *p;
    size_t n, off, step;
} mem_src;

static ptrdiff_t mem_read(void *ctx, void *buf, size_t cap) {
    mem_src *m = ctx;
    size_t k = m->n - m->off;
    if (k > cap) k = cap;
    if (k > m->step) k = m->step;
    memcpy(buf, m->p + m->off, k);
    m->off += k;
    return (ptrdiff_t)k;
}

/* The dump of doc through r (pulled step bytes at a time). */
static char *pull_dump(stax_reader *r, const stax_reader_options *o, const char *doc, size_t len, size_t step) {
    mem_src m = {doc, len, 0, step};
    int st = stax_reader_set_source(r, mem_read, &m);
    cr_assert_eq(st, STAX_OK, "set_source: %s (%s)", stax_test_status_name(st), stax_reader_message(r));
    return stax_test_pull_events(r, o, STAX_DUMP_POS);
}

/* Every fixture read by a reader that read another one before (to its end,
 * or to an error), then was reset, gives what a new reader gives: with an
 * allocator, in a fixed block (malloc never called), with namespaces. */
Test(api, reset_reads_like_a_new_reader, .timeout = 60) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx);
    static _Alignas(16) unsigned char block[256 * 1024], block2[256 * 1024];
    for (int mode = 0; mode < 3; mode++) {
        stax_reader_options o = {0};
        if (mode == 1) o.memory = block, o.memory_size = sizeof block;
        if (mode == 2) o.flags = STAX_READ_NAMESPACES;
        stax_reader *used = stax_reader_new(&o);
        cr_assert_not_null(used);
        for (size_t i = 0; i < n; i++) {
            size_t prev = (i + n - 1) % n;
            stax_reader_options fo = o;
            if (mode == 1) fo.memory = block2; /* a block serves one reader at a time */
            stax_reader *fresh = stax_reader_new(&fo);
            cr_assert_not_null(fresh);
            char *want = pull_dump(fresh, &fo, fx[i].data, fx[i].len, 7);
            stax_reader_free(fresh);
            /* the used reader: the previous fixture, cut short after half of it */
            char *first = pull_dump(used, &o, fx[prev].data, fx[prev].len / 2 + 1, 5);
            free(first);
            cr_assert_eq(stax_reader_reset(used), STAX_OK);
            if (mode == 1) stax_test_forbid_malloc = 1;
            char *got = pull_dump(used, &o, fx[i].data, fx[i].len, 7);
            stax_test_forbid_malloc = 0;
            cr_assert_str_eq(got, want, "mode %d, %s after %s", mode, fx[i].name, fx[prev].name);
            free(got);
            free(want);
            cr_assert_eq(stax_reader_reset(used), STAX_OK);
        }
        stax_reader_free(used);
    }
    cr_assert_eq(stax_test_forbidden_calls, 0);
    stax_test_free_fixtures(fx, n);
    cr_assert_eq(stax_reader_reset(NULL), STAX_E_USAGE);
}

/* A reset reader needs no more memory to read the same document again. */
Test(api, reset_keeps_memory) {
    static const char doc[] = "<!DOCTYPE r [<!ENTITY e 'x'>]><r a='&e;'>&e;<b>text</b></r>";
    stax_test_meter m = {0, 0};
    stax_reader_options o = {0};
    o.alloc = stax_test_meter_alloc;
    o.alloc_ud = &m;
    stax_reader *r = stax_reader_new(&o);
    char *d1 = pull_dump(r, &o, STAX_DOC(doc), 3);
    size_t held = m.now;
    for (int k = 0; k < 5; k++) {
        cr_assert_eq(stax_reader_reset(r), STAX_OK);
        char *d2 = pull_dump(r, &o, STAX_DOC(doc), 3);
        cr_assert_str_eq(d2, d1);
        free(d2);
        cr_assert_eq(m.now, held, "reset %d: %zu bytes held, %zu before", k, m.now, held);
    }
    free(d1);
    stax_reader_free(r);
    cr_assert_eq(m.now, 0);
}

/* Push doc through r, chunk bytes at a time, for at most `calls` calls of
 * stax_reader_next. Returns 1 when the reader got that far without ending
 * (STAX_END or an error). */
static int push_calls(stax_reader *r, const char *doc, size_t len, size_t chunk, size_t calls) {
    size_t off = len < chunk ? len : chunk;
    cr_assert_eq(stax_reader_feed(r, doc, off), STAX_OK);
    for (size_t k = 0; k < calls; k++) {
        const stax_batch *b;
        int st = stax_reader_next(r, &b);
        if (st == STAX_NEED_INPUT) {
            size_t n = len - off < chunk ? len - off : chunk;
            st = n ? stax_reader_feed(r, doc + off, n) : stax_reader_end(r);
            off += n;
            cr_assert_eq(st, STAX_OK, "feed: %s", stax_test_status_name(st));
        } else if (st != STAX_OK) {
            return 0;
        }
    }
    return 1;
}

/* Every external general entity is the same text. */
static int one_text_resolver(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    static const char text[] = "<i>ext</i>";
    (void)ud;
    if (req->kind != STAX_ENTITY_GENERAL) return STAX_DECLINE;
    in->data = text;
    in->len = sizeof text - 1;
    return STAX_OK;
}

/* A reader stopped anywhere in a document (after any number of calls, so in
 * whatever state the driver was: detecting the encoding, a token in the
 * carry, a window tail waiting to go there, inside entity text, an external
 * entity waiting for an empty batch, decoding UTF-16, switching to the
 * declared encoding, after an error) and reset reads the next document as a
 * new reader does, in a fixed block too. */
Test(api, reset_anywhere_reads_like_a_new_reader, .timeout = 120) {
    static const char utf16_ascii[] = "<r a='1'>x&amp;y<b/>\r\n<c>t</c></r>";
    char utf16[2 + 2 * sizeof utf16_ascii];
    size_t u16 = 2;
    utf16[0] = (char)0xFF, utf16[1] = (char)0xFE;
    for (size_t i = 0; i + 1 < sizeof utf16_ascii; i++) utf16[u16++] = utf16_ascii[i], utf16[u16++] = 0;
    static const char latin1[] = "<?xml version='1.0' encoding='ISO-8859-1'?><r>caf\xe9 <b>cr\xe8me</b></r>";
    static const char ents[] = "<!DOCTYPE r [<!ENTITY e '<b>in &f;</b>'><!ENTITY f 'deep'>"
                               "<!ATTLIST c y CDATA 'dflt'>]><r>a&e;b<c x='&f;'/>&e;&amp;</r>";
    static const char mixed[] = "<r>\r\n<a k='v'>some text here</a><!-- a comment --><![CDATA[cdata <x>]]>"
                                "<?pi x?>\n<e/></r>";
    static const char ext[] = "<!DOCTYPE r [<!ENTITY x SYSTEM 'x.ent'>]><r>a&x;b<c/>&x;</r>";
    static const char bad[] = "<r><a>text</b></r>";
    const struct { const char *p; size_t n; } docs[] = {
        {utf16, u16}, {STAX_DOC(latin1)}, {STAX_DOC(ents)}, {STAX_DOC(mixed)}, {STAX_DOC(ext)}, {STAX_DOC(bad)},
    };
    const size_t nd = sizeof docs / sizeof docs[0];
    static _Alignas(16) unsigned char block[256 * 1024], block2[256 * 1024];
    for (int fixed = 0; fixed < 2; fixed++) {
        stax_reader_options o = {0};
        o.batch_events = 2; /* a call per token or two: a stop between most steps */
        o.resolve = one_text_resolver;
        if (fixed) o.memory = block, o.memory_size = sizeof block;
        stax_reader_options fo = o;
        if (fixed) fo.memory = block2;
        for (size_t i = 0; i < nd; i++) {
            size_t next = (i + 1) % nd;
            stax_reader *fresh = stax_reader_new(&fo);
            cr_assert_not_null(fresh);
            char *want = pull_dump(fresh, &fo, docs[next].p, docs[next].n, 3);
            stax_reader_free(fresh);
            for (size_t c = 1; c < stax_test_chunk_count; c++) {
                size_t chunk = stax_test_chunk_sizes[c], stops = 0;
                for (size_t calls = 0;; calls++) {
                    stax_reader *r = stax_reader_new(&o);
                    cr_assert_not_null(r);
                    int more = push_calls(r, docs[i].p, docs[i].n, chunk, calls);
                    cr_assert_eq(stax_reader_reset(r), STAX_OK);
                    char *got = pull_dump(r, &o, docs[next].p, docs[next].n, 3);
                    cr_assert_str_eq(got, want, "document %zu stopped after %zu calls (chunk %zu), then document %zu",
                                     i, calls, chunk, next);
                    free(got);
                    stax_reader_free(r);
                    stops++;
                    if (!more) break;
                }
                cr_assert_gt(stops, 3, "document %zu, chunk %zu: %zu stops", i, chunk, stops);
            }
            free(want);
        }
    }
}

/* ================================================================ asking first */

/* The loop that asks first and feeds when asked: stax_reader_next comes
 * before any stax_reader_feed, and each STAX_NEED_INPUT is answered with the
 * next chunk of doc (or stax_reader_end). On every `again`-th answer the
 * reader is asked once more before it is fed: it asks again, changing
 * nothing. The dump is in the harness's form (events with positions, then the
 * status line), to compare with the feed-first loop's. */
static void ask_first_dump(stax_reader *r, const char *doc, size_t len, size_t chunk, unsigned again,
                           stax_test_buf *out) {
    const stax_batch *b;
    size_t off = 0;
    unsigned asked = 0;
    int st, ended = 0;
    if (chunk == 0) chunk = len ? len : 1;
    while ((st = stax_reader_next(r, &b)) == STAX_OK || st == STAX_NEED_INPUT) {
        if (st == STAX_OK) {
            for (size_t i = 0; i < b->count; i++) stax_test_dump_event(out, b, i, STAX_DUMP_POS);
            continue;
        }
        cr_assert_not(ended, "STAX_NEED_INPUT after stax_reader_end");
        cr_assert_eq(b->count, 0);
        if (again && ++asked % again == 0) {
            st = stax_reader_next(r, &b);
            cr_assert_eq(st, STAX_NEED_INPUT, "asked again before a feed: %s (%s)", stax_test_status_name(st),
                         stax_reader_message(r));
        }
        if (off < len) {
            size_t n = len - off < chunk ? len - off : chunk;
            st = stax_reader_feed(r, doc + off, n);
            cr_assert_eq(st, STAX_OK, "feed: %s (%s)", stax_test_status_name(st), stax_reader_message(r));
            off += n;
        } else {
            cr_assert_eq(stax_reader_end(r), STAX_OK);
            ended = 1;
        }
    }
    if (st == STAX_END) {
        stax_test_buf_puts(out, "END-OF-DOCUMENT\n");
        return;
    }
    stax_pos p = stax_reader_error_pos(r);
    stax_test_buf_printf(out, "ERROR %s @%llu:%llu:%llu\n", stax_test_status_name(st), (unsigned long long)p.line,
                         (unsigned long long)p.column, (unsigned long long)p.offset);
}

/* stax_reader_next before the first stax_reader_feed returns STAX_NEED_INPUT
 * (not an error), so the ask-first loop reads every
 * document as the feed-first loop does: at every chunk size, asked twice in a
 * row or not, with an allocator and in a fixed block (malloc never called),
 * for a new reader and for one reset anywhere in another document. */
Test(api, next_before_feed_asks_for_input, .timeout = 120) {
    static const char plain[] = "<?xml version='1.0'?><!--c--><a x='1'>t&amp;u<b/><![CDATA[k]]></a>\n";
    static const char dtd[] = "<!DOCTYPE r [<!ENTITY e '<i>x</i>'><!ATTLIST r d CDATA 'v'>]><r>&e;&e;</r>";
    static const char latin1[] = "<?xml version='1.0' encoding='ISO-8859-1'?><r>caf\xe9</r>";
    static const char bad[] = "<r><a>text</b></r>";
    static const char utf16_ascii[] = "<r a='1'>x<b/></r>";
    char utf16[2 + 2 * sizeof utf16_ascii];
    size_t u16 = 2;
    utf16[0] = (char)0xFF, utf16[1] = (char)0xFE;
    for (size_t i = 0; i + 1 < sizeof utf16_ascii; i++) utf16[u16++] = utf16_ascii[i], utf16[u16++] = 0;
    const struct { const char *p; size_t n; } docs[] = {
        {STAX_DOC(plain)}, {STAX_DOC(dtd)}, {STAX_DOC(latin1)}, {STAX_DOC(bad)}, {utf16, u16}, {"", 0},
    };
    const size_t nd = sizeof docs / sizeof docs[0];
    static _Alignas(16) unsigned char block[256 * 1024];
    for (int fixed = 0; fixed < 2; fixed++) {
        stax_reader_options o = {0};
        o.batch_events = 2;
        if (fixed) o.memory = block, o.memory_size = sizeof block;
        for (size_t d = 0; d < nd; d++) {
            for (size_t c = 0; c < stax_test_chunk_count; c++) {
                size_t chunk = stax_test_chunk_sizes[c];
                char *want = stax_test_events_ex(docs[d].p, docs[d].n, chunk, &o, STAX_DUMP_POS, NULL);
                for (unsigned again = 0; again < 3; again++) {
                    /* a new reader */
                    stax_reader *r = stax_reader_new(&o);
                    cr_assert_not_null(r);
                    stax_test_buf got = {0};
                    if (fixed) stax_test_forbid_malloc = 1;
                    ask_first_dump(r, docs[d].p, docs[d].n, chunk, again, &got);
                    stax_test_forbid_malloc = 0;
                    cr_assert_str_eq(got.p, want, "document %zu, chunk %zu, fixed %d, again %u", d, chunk, fixed, again);
                    /* the same reader, reset after part of another document */
                    size_t other = (d + 1) % nd;
                    const stax_batch *b;
                    cr_assert_eq(stax_reader_reset(r), STAX_OK);
                    cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT, "a reset reader asks for input");
                    cr_assert_eq(stax_reader_feed(r, docs[other].p, docs[other].n / 2), STAX_OK);
                    while (stax_reader_next(r, &b) == STAX_OK) {}
                    cr_assert_eq(stax_reader_reset(r), STAX_OK);
                    got.len = 0;
                    if (fixed) stax_test_forbid_malloc = 1;
                    ask_first_dump(r, docs[d].p, docs[d].n, chunk, again, &got);
                    stax_test_forbid_malloc = 0;
                    cr_assert_str_eq(got.p, want, "reset: document %zu, chunk %zu, fixed %d, again %u", d, chunk,
                                     fixed, again);
                    stax_test_buf_free(&got);
                    stax_reader_free(r);
                }
                free(want);
            }
        }
    }
    cr_assert_eq(stax_test_forbidden_calls, 0);
}

/* Asked before its source is set, a reader asks for input and changes
 * nothing: the source may still be set, and then the reader pulls (it never
 * returns STAX_NEED_INPUT, the first call included). */
Test(api, next_before_a_pull_source) {
    static const char doc[] = "<r a='1'>text<b/></r>";
    static _Alignas(16) unsigned char block[256 * 1024];
    for (int fixed = 0; fixed < 2; fixed++) {
        stax_reader_options o = {0};
        if (fixed) o.memory = block, o.memory_size = sizeof block;
        stax_reader *fresh = stax_reader_new(&o);
        char *want = pull_dump(fresh, &o, STAX_DOC(doc), 3);
        stax_reader_free(fresh);
        stax_reader *r = stax_reader_new(&o);
        const stax_batch *b;
        cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT);
        cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT);
        cr_assert_eq(stax_reader_status(r), STAX_OK);
        char *got = pull_dump(r, &o, STAX_DOC(doc), 3);
        cr_assert_str_eq(got, want, "fixed %d", fixed);
        free(got);
        free(want);
        stax_reader_free(r);
    }
}
