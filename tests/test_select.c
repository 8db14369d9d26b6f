/* stax_select: the path language, the values, their order, records, XML
 * values, the bounds and the refusals.
 *
 * Expected results never come from select.c. They are written by hand for
 * the fixture below, or computed by the small evaluator in this file: it
 * builds the whole tree of a document (with the reader) and evaluates a path
 * the way XPath 1.0 defines it, as node sets (each step maps the set through
 * its axis, predicates filter per context node, unions merge in document
 * order), which shares nothing with the streaming evaluation. Random
 * documents and random paths are compared between the two. Every run feeds
 * the document at every chunk size of tests/harness.c. */
#include "harness.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ output collector */

typedef struct collect {
    char *buf;
    size_t len, cap;
    int show_path; /* prefix each match with "PATH:" */
    uint64_t next;  /* the match number the next BEGIN must carry */
    uint64_t cur;
    int open;
    int stop_after; /* return nonzero after this many ENDs (0: never) */
    int ends;
    char err[160];  /* a broken piece sequence */
} collect;

static void col_put(collect *c, const char *p, size_t n) {
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->len + n + 1) cap *= 2;
        char *q = __real_realloc(c->buf, cap); /* works while malloc is forbidden */
        cr_assert_not_null(q);
        c->buf = q;
        c->cap = cap;
    }
    if (n) memcpy(c->buf + c->len, p, n);
    c->len += n;
    c->buf[c->len] = '\0';
}

static void col_puts(collect *c, const char *z) { col_put(c, z, strlen(z)); }

static int col_piece(void *ctx, const stax_select_piece *p) {
    collect *c = ctx;
    char tmp[32];
    switch (p->type) {
    case STAX_SELECT_BEGIN:
        if (c->open || p->match != c->next)
            snprintf(c->err, sizeof c->err, "BEGIN of match %llu while %s, next %llu", (unsigned long long)p->match,
                     c->open ? "one is open" : "none is open", (unsigned long long)c->next);
        c->open = 1;
        c->cur = p->match;
        c->next = p->match + 1;
        if (c->show_path) {
            snprintf(tmp, sizeof tmp, "%u:", (unsigned)p->path);
            col_puts(c, tmp);
        }
        break;
    case STAX_SELECT_COLUMN:
        if (p->column > 0) col_puts(c, "|");
        break;
    case STAX_SELECT_VALUE:
        if (!c->open || p->match != c->cur) snprintf(c->err, sizeof c->err, "VALUE outside its match");
        col_put(c, p->value.ptr, p->value.len);
        break;
    case STAX_SELECT_END:
        if (!c->open || p->match != c->cur) snprintf(c->err, sizeof c->err, "END outside its match");
        c->open = 0;
        col_puts(c, "\n");
        if (c->stop_after && ++c->ends >= c->stop_after) return 1;
        break;
    default: snprintf(c->err, sizeof c->err, "piece type %d", p->type);
    }
    return 0;
}

/* ================================================================ running a select over a document */

typedef struct sel_run {
    char *out;         /* what the collector got (always a string) */
    int status;        /* the select's status after the document (STAX_OK if all went through) */
    int reader_status; /* STAX_END, or the reader's error */
    uint64_t err_offset; /* a select error: the byte offset of its event */
    char msg[256];
    uint64_t counts[8];
} sel_run;

static const char *paths_of(const char *paths) { return paths; }

/* Set while run_select hands the events over one at a time
 * (stax_select_event), which takes none of stax_select_batch's shortcuts. */
static int one_by_one;

/* Feed doc in chunks of `chunk` bytes (0: whole), each an exact-size copy so
 * that ASan sees reads of old chunks, and select every batch. */
static sel_run run_select(const char *doc, size_t chunk, const stax_reader_options *ro, const stax_select_options *so,
                          const char *paths, const char *columns, int show_path, int stop_after) {
    sel_run res;
    memset(&res, 0, sizeof res);
    collect c;
    memset(&c, 0, sizeof c);
    c.show_path = show_path;
    c.stop_after = stop_after;
    col_put(&c, "", 0);
    stax_select *s = stax_select_new(so);
    cr_assert_not_null(s, "stax_select_new");
    res.status = stax_select_compile(s, stax_strz(paths_of(paths)), stax_strz(columns));
    if (res.status != STAX_OK) {
        snprintf(res.msg, sizeof res.msg, "%s", stax_select_message(s));
        stax_select_free(s);
        res.out = c.buf;
        return res;
    }
    stax_select_set_output(s, col_piece, &c);
    stax_reader *r = stax_reader_new(ro);
    cr_assert_not_null(r);
    size_t len = strlen(doc), pos = 0;
    int st = STAX_NEED_INPUT, sst = STAX_OK;
    const stax_batch *b;
    while (st == STAX_NEED_INPUT && sst == STAX_OK) {
        char *copy = NULL;
        if (pos < len) {
            size_t n = chunk && chunk < len - pos ? chunk : len - pos;
            copy = malloc(n);
            cr_assert_not_null(copy);
            memcpy(copy, doc + pos, n);
            stax_reader_feed(r, copy, n);
            pos += n;
        } else {
            stax_reader_end(r);
        }
        while (sst == STAX_OK && (st = stax_reader_next(r, &b)) == STAX_OK) {
            if (!one_by_one) sst = stax_select_batch(s, b);
            for (size_t i = 0; one_by_one && sst == STAX_OK && i < b->count; i++) sst = stax_select_event(s, b, i);
            if (sst != STAX_OK && sst != STAX_END) res.err_offset = stax_ev_pos(b, stax_select_event_index(s)).offset;
        }
        free(copy);
    }
    res.reader_status = st;
    res.status = sst;
    snprintf(res.msg, sizeof res.msg, "%s", sst == STAX_OK ? "" : stax_select_message(s));
    for (size_t p = 0; p < stax_select_paths(s) && p < 8; p++) res.counts[p] = stax_select_count(s, p);
    cr_assert_str_eq(c.err, "", "piece sequence: %s", c.err);
    if (sst == STAX_OK && st == STAX_END) cr_assert_eq(c.open, 0, "a match still open at the end");
    stax_reader_free(r);
    stax_select_free(s);
    res.out = c.buf;
    return res;
}

/* The output at every chunk size; all must agree. */
static char *select_all(const char *doc, const stax_reader_options *ro, const stax_select_options *so, const char *paths,
                        const char *columns, int show_path) {
    char *first = NULL;
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        sel_run r = run_select(doc, stax_test_chunk_sizes[k], ro, so, paths, columns, show_path, 0);
        cr_assert_eq(r.status, STAX_OK, "select '%s' failed: %s", paths, r.msg);
        cr_assert_eq(r.reader_status, STAX_END, "reader: %s", stax_test_status_name(r.reader_status));
        if (!first) {
            first = r.out;
            continue;
        }
        cr_assert_str_eq(r.out, first, "'%s' at chunk size %zu gives\n%s\nbut whole gives\n%s", paths,
                         stax_test_chunk_sizes[k], r.out, first);
        free(r.out);
    }
    one_by_one = 1;
    sel_run e = run_select(doc, 3, ro, so, paths, columns, show_path, 0);
    one_by_one = 0;
    cr_assert_eq(e.status, STAX_OK, "select '%s' one event at a time failed: %s", paths, e.msg);
    cr_assert_str_eq(e.out, first, "'%s' one event at a time gives\n%s\nbut by batch\n%s", paths, e.out, first);
    free(e.out);
    return first;
}

static void expect(const char *doc, const char *paths, const char *want) {
    char *got = select_all(doc, NULL, NULL, paths, "", 0);
    cr_assert_str_eq(got, want, "%s\ngot:\n%s\nwant:\n%s", paths, got, want);
    free(got);
}

static void expect_ns(const char *doc, const char *paths, const stax_str *ns, size_t n, const char *want) {
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    ro.flags = STAX_READ_NAMESPACES;
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NAMESPACES;
    so.ns = ns;
    so.ns_count = n;
    char *got = select_all(doc, &ro, &so, paths, "", 0);
    cr_assert_str_eq(got, want, "%s\ngot:\n%s\nwant:\n%s", paths, got, want);
    free(got);
}

static void expect_with(const char *doc, unsigned flags, const char *paths, const char *columns, const char *want) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = flags;
    char *got = select_all(doc, NULL, &so, paths, columns, 0);
    cr_assert_str_eq(got, want, "%s [%s]\ngot:\n%s\nwant:\n%s", paths, columns, got, want);
    free(got);
}

/* ================================================================ every construct, by hand */

/* Results below were worked out by hand from this document. */
static const char lib[] = "<?xml version='1.0'?>\n"
                          "<lib>"
                          "<shelf n='1'>"
                          "<book id='b1' lang='en'><title>Emma</title><year>1815</year></book>"
                          "<book id='b2' lang='fr'><title>Candide</title><note>old<b>!</b></note></book>"
                          "<book id='b3'><title>Ulysses</title></book>"
                          "</shelf>"
                          "<shelf n='2'>"
                          "<book id='b4' lang='en'><title>Dracula</title></book>"
                          "<box><book id='b5' lang='de'><title>Faust</title></book></box>"
                          "</shelf>"
                          "<title>Catalogue</title>"
                          "</lib>";

Test(select, child_steps_from_the_root) {
    expect(lib, "/lib/shelf/book/title", "Emma\nCandide\nUlysses\nDracula\n");
    expect(lib, "/lib/title", "Catalogue\n");
    expect(lib, "/shelf", "");                  /* the root element is lib */
    expect(lib, "lib/shelf/@n", "1\n2\n");      /* relative: from the root node, as XPath */
}

Test(select, descendant_steps) {
    expect(lib, "//title", "Emma\nCandide\nUlysses\nDracula\nFaust\nCatalogue\n");
    expect(lib, "//shelf//title", "Emma\nCandide\nUlysses\nDracula\nFaust\n");
    expect(lib, "/lib//box//title", "Faust\n");
    expect(lib, "//shelf/book/title", "Emma\nCandide\nUlysses\nDracula\n"); /* not Faust: in a box */
    expect(lib, "//book//b", "!\n");
}

Test(select, any_name) {
    expect(lib, "/lib/*/@n", "1\n2\n");
    expect(lib, "//box/*/title", "Faust\n");
    expect(lib, "/*/title", "Catalogue\n");
    expect(lib, "//book/*[1]", "Emma\nCandide\nUlysses\nDracula\nFaust\n");
    expect(lib, "//book/*[2]", "1815\nold!\n");
}

Test(select, attributes) {
    expect(lib, "//book/@id", "b1\nb2\nb3\nb4\nb5\n");
    expect(lib, "//book/@lang", "en\nfr\nen\nde\n");
    expect(lib, "//@n", "1\n2\n");
    expect(lib, "//book[@id='b2']/@*", "b2\nfr\n"); /* document order of the tag */
    expect(lib, "/lib//@*", "1\nb1\nen\nb2\nfr\nb3\n2\nb4\nen\nb5\nde\n");
}

Test(select, text_nodes) {
    expect(lib, "//note/text()", "old\n");
    expect(lib, "//note//text()", "old\n!\n");
    expect(lib, "/lib/text()", "");
    expect("<a>x<!--c-->y<?p d?>z<b/>w</a>", "/a/text()", "x\ny\nz\nw\n");
    expect("<a>x<![CDATA[<y>]]>&amp;z</a>", "/a/text()", "x<y>&z\n"); /* one text node */
}

/* The number of matches of paths[0] at every chunk size and one event at a
 * time, counting (no values) and with values. */
static void expect_count(const char *doc, const char *paths, uint64_t want) {
    for (int values = 0; values < 2; values++) {
        stax_select_options so;
        memset(&so, 0, sizeof so);
        so.flags = values ? 0 : STAX_SELECT_NO_VALUES;
        for (size_t c = 0; c <= stax_test_chunk_count; c++) {
            one_by_one = c == stax_test_chunk_count;
            sel_run r = run_select(doc, one_by_one ? 1 : stax_test_chunk_sizes[c], NULL, &so, paths, "", 0, 0);
            one_by_one = 0;
            cr_assert_eq(r.status, STAX_OK, "%s: %s", paths, r.msg);
            cr_assert_eq(r.counts[0], want, "%s on %s: %llu matches, want %llu (chunk case %zu, values %d)", paths, doc,
                         (unsigned long long)r.counts[0], (unsigned long long)want, c, values);
            free(r.out);
        }
    }
}

/* XPath's data model: adjacent text, CDATA and expanded entities are one
 * text node, and an empty one is none (an empty CDATA section, an entity
 * whose text is empty). */
Test(select, text_nodes_follow_the_data_model) {
    expect_count("<b><![CDATA[]]></b>", "//text()", 0);
    expect("<b><![CDATA[]]></b>", "//text()", "");
    expect_count("<b>a<![CDATA[b]]>c</b>", "//text()", 1);
    expect("<b>a<![CDATA[b]]>c</b>", "//text()", "abc\n");
    expect("<b><![CDATA[]]>x<![CDATA[]]></b>", "/b/text()", "x\n");
    expect("<b>x<!--c--><![CDATA[]]></b>", "/b/text()", "x\n");
    expect_count("<b><![CDATA[]]><!--c--><![CDATA[]]><i/><![CDATA[]]></b>", "//text()", 0);
    const char *ent = "<!DOCTYPE b [<!ENTITY e 'E'><!ENTITY z ''>]><b>a&e;&z;<![CDATA[]]>c<i>&z;</i>&z;</b>";
    expect(ent, "//text()", "aEc\n");
    expect_count(ent, "//text()", 1);
    expect_count("<!DOCTYPE b [<!ENTITY z ''>]><b>&z;<![CDATA[]]>&z;</b>", "//text()", 0);
    /* positions count elements, and an element with an empty CDATA is one, whose value is empty */
    const char *pos = "<r><b><![CDATA[]]></b><b>x<![CDATA[]]>y</b><c><![CDATA[]]></c></r>";
    expect(pos, "/r/b[2]", "xy\n");
    expect(pos, "/r/b[1]/text()", "");
    expect(pos, "/r/b[2]/text()", "xy\n");
    expect(pos, "/r/*[3]", "\n");
    expect(pos, "/r/b[1]|/r/c", "\n\n");
    expect(pos, "//text()|/r/*[1]", "\nxy\n");
    expect_count(pos, "//text()", 1);
    /* a text() column takes the first text node, not the empty CDATA */
    expect_with("<r><b><![CDATA[]]><i>1</i>t</b></r>", 0, "//b", "text(),.,i/text()", "t|1t|1\n");
    expect_with("<r><b><![CDATA[]]></b></r>", STAX_SELECT_XML, "//b", "", "<b><![CDATA[]]></b>\n");
    expect_with("<r><b>a<![CDATA[<]]>c</b></r>", STAX_SELECT_XML, "//text()", "", "a&lt;c\n");
}

Test(select, element_values_are_all_descendant_text) {
    expect(lib, "//note", "old!\n");
    expect(lib, "/lib/shelf[2]", "DraculaFaust\n");
    expect("<a>1<b>2<c>3</c></b><!--x-->4<?p q?></a>", "/a", "1234\n");
    expect("<a/>", "/a", "\n");
}

Test(select, attribute_predicates) {
    expect(lib, "//book[@lang]/@id", "b1\nb2\nb4\nb5\n");
    expect(lib, "//book[@lang='en']/title", "Emma\nDracula\n");
    expect(lib, "//book[@lang=\"fr\"]/title", "Candide\n");
    /* != is about existence, as in XPath: b3 has no lang and is not selected */
    expect(lib, "//book[@lang!='en']/title", "Candide\nFaust\n");
    expect(lib, "//book[@lang='en' and @id='b4']/title", "Dracula\n");
    expect(lib, "//book[@id and @lang!='de' and @lang != 'fr']/@id", "b1\nb4\n");
    expect(lib, "//*[@*='b3']/title", "Ulysses\n");
    expect(lib, "//*[@*]/@n", "1\n2\n");
}

Test(select, positions_count_children_of_that_name_under_each_parent) {
    expect(lib, "//book[1]/@id", "b1\nb4\nb5\n");
    expect(lib, "//book[2]/@id", "b2\n");
    expect(lib, "//book[3]/@id", "b3\n");
    expect(lib, "/lib/shelf[2]/book[1]/title", "Dracula\n");
    expect(lib, "//title[1]", "Emma\nCandide\nUlysses\nDracula\nFaust\nCatalogue\n");
    expect(lib, "/lib/*[3]", "Catalogue\n");
    /* predicates in turn: the position is among the ones left */
    expect(lib, "//book[@lang][2]/@id", "b2\n");
    expect(lib, "//book[@lang='en'][1]/@id", "b1\nb4\n");
    expect(lib, "//book[2][@lang='en']/@id", "");
    expect(lib, "//book[2][@lang='fr']/@id", "b2\n");
}

/* ================================================================ predicates on content */

Test(select, predicates_on_child_content) {
    expect(lib, "//book[title='Emma']/@id", "b1\n");
    expect(lib, "//book[note]/@id", "b2\n");
    expect(lib, "//book[year>1800]/title", "Emma\n");
    expect(lib, "//book[year>1800 or note='old!']/title", "Emma\nCandide\n");
    expect(lib, "//book[not(note)][@lang]/@id", "b1\nb4\nb5\n");
    expect(lib, "//shelf[book/@lang='fr']/@n", "1\n");
    expect(lib, "//book[.//b]/@id", "b2\n");
    expect(lib, "//book[note/b='!']", "Candideold!\n");
    expect(lib, "//shelf[.//title='Faust']/book/title", "Dracula\n");
    expect(lib, "/lib[title]/shelf[book/@lang='de']/@n", "");
    expect(lib, "//*[title and not(@id)]/title", "Catalogue\n");
    expect(lib, "//book[contains(title,'a') and starts-with(@id,'b')]/@id", "b1\nb2\nb4\nb5\n");
    expect(lib, "//book[string-length(title) > 5]/title", "Candide\nUlysses\nDracula\n");
    expect(lib, "//book[normalize-space(nothing)='']/@id", "b1\nb2\nb3\nb4\nb5\n");
    expect(lib, "//book[count(*)=2]/@id", "b1\nb2\n");
    expect(lib, "//book[year - 15 = 1800 and year div 5 = 363]/@id", "b1\n");
    expect(lib, "//book[number(year) mod 2 = 1][-1 < 0]/@id", "b1\n");
    expect(lib, "//book[name(*)='title' or false()][local-name()='book'][namespace-uri()='']/@id",
           "b1\nb2\nb3\nb4\nb5\n");
    expect(lib, "//book[string(title)='Faust' or string(@id)='b3']/@id", "b3\nb5\n");
    expect(lib, "//title[.='Emma' or text()='Faust']", "Emma\nFaust\n");
    expect(lib, "//book[year != 1815]/@id", "");          /* no year: no node to differ, as in XPath */
    expect(lib, "//book[not(year = 1815)]/@id", "b2\nb3\nb4\nb5\n");
    expect(lib, "//book[year = '1815.0']/@id", "");        /* a string: compared as strings */
    expect(lib, "//book[year = 1815.0]/@id", "b1\n");     /* a number: as numbers */
    expect(lib, "//book[title > 0]/@id", "");              /* NaN compares false */
    expect(lib, "//book[title = true()]/@id", "b1\nb2\nb3\nb4\nb5\n");
    expect(lib, "//book[child::title = 'Emma']/attribute::id", "b1\n");
    expect(lib, "/descendant::book[descendant-or-self::b]/@id", "b2\n");
    expect(lib, "//shelf/descendant-or-self::node()/book[self::book/title='Faust']/@id", "b5\n");
    expect(lib, "//book[./title][./self::node()/@lang='en']/@id", "b1\nb4\n");
    /* [n] in a predicate's path: the n-th child its name test matches, under each parent */
    expect(lib, "//book[*[2]]/@id", "b1\nb2\n");
    expect(lib, "//shelf[book[3]]/@n", "1\n");
    expect(lib, "//shelf[book[2]/title='Candide']/@n", "1\n");
    expect(lib, "//shelf[.//book[1]/@lang='de']/@n", "2\n");
    expect(lib, "//book[local-name(*[2])='note']/@id", "b2\n");
    /* .//@x: the attributes of the context node and of every element below it */
    expect(lib, "//shelf[.//@lang='de']/@n", "2\n");
    expect(lib, "/lib[shelf//@lang='fr']/title", "Catalogue\n");
    expect(lib, "//shelf[count(.//@*)=6]/@n", "1\n");
}

Test(select, positions_and_last_among_the_candidates_left) {
    expect(lib, "//book[last()]/@id", "b3\nb4\nb5\n");
    expect(lib, "//book[position()=last()-1]/@id", "b2\n");
    expect(lib, "//book[position() < last()]/@id", "b1\nb2\n");
    expect(lib, "//book[@lang][last()]/@id", "b2\nb4\nb5\n");
    expect(lib, "//book[last()][@lang]/@id", "b4\nb5\n");
    expect(lib, "//book[title][note or year][2]/@id", "b2\n");
    expect(lib, "//book[position() mod 2 = 1]/@id", "b1\nb3\nb4\nb5\n");
    expect(lib, "//book[1 + 1]/@id", "b2\n");
    expect(lib, "//book[0]/@id", "");
    expect(lib, "//book[1.5]/@id", "");
    expect(lib, "/lib[last()]/title", "Catalogue\n");
    expect(lib, "//shelf[last()]/book[last()]/@id", "b4\n");
    expect(lib, "//*[last()=3]/@id", "b1\nb2\nb3\n");
}

/* A candidate waits for what decides it; what it and the steps after it
 * select comes out in document order, an undecided one holding back the
 * ones after it. */
Test(select, held_candidates_come_out_in_document_order) {
    static const char d[] = "<r><a><t>1</t><k>y</k></a><a><t>2</t><k>n</k></a><a><t>3</t><k>y</k><t>4</t></a></r>";
    expect(d, "//a[k='y']/t", "1\n3\n4\n");
    expect(d, "//a[k='y']/t|//a/k", "1\ny\nn\n3\ny\n4\n");
    expect(d, "//t|//a[k='n']", "1\n2n\n2\n3\n4\n");
    expect(d, "//a[k='n']|//t", "1\n2n\n2\n3\n4\n");
    /* nested: the outer is decided last, and comes first */
    static const char n[] = "<r><a><a><a><k>y</k>3</a><k>y</k>2</a>1<k>n</k></a><a>4<k>y</k></a></r>";
    expect(n, "//a[k='y']", "y3y2\ny3\n4y\n");
    expect(n, "//a[k='y']/text()", "3\n2\n4\n");
    expect(n, "//a[k='y']//k", "y\ny\ny\n");
    expect(n, "//a[not(k='n')]//a[k]/k", "y\n");
    expect_with(d, STAX_SELECT_XML, "//a[k='n']", "", "<a><t>2</t><k>n</k></a>\n");
    expect_with(d, 0, "//a[k='y']", "t,k", "1|y\n3|y\n");
}

Test(select, counts_of_undecided_candidates) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NO_VALUES;
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        sel_run r = run_select(lib, stax_test_chunk_sizes[k], NULL, &so, "//book[title]|//book[year or @lang='en']|//book[note][last()]", "", 0, 0);
        cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
        cr_assert_eq(r.counts[0], 5);
        cr_assert_eq(r.counts[1], 2);
        cr_assert_eq(r.counts[2], 1); /* b2, the last of those with a note under its shelf */
        size_t lines = 0;
        for (const char *p = r.out; *p; p++) lines += *p == '\n';
        cr_assert_eq(lines, 5, "%zu", lines);
        free(r.out);
    }
    expect(lib, "//book[year]|//book[@lang='en']", "Emma1815\nDracula\n");
    expect(lib, "//book[note]/@id|//book[@lang='fr']/@id|//book[title='Emma']/@id", "b1\nb2\n");
}

/* The output of an undecided candidate is held within max_held. */
Test(select, an_undecided_candidate_is_held_within_max_held) {
    char *doc = malloc(20000);
    cr_assert_not_null(doc);
    size_t n = (size_t)sprintf(doc, "<r><a>");
    for (int k = 0; k < 1000; k++) n += (size_t)sprintf(doc + n, "<t>xxxxxxxx</t>");
    sprintf(doc + n, "<k/></a></r>");
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_held = 4096;
    sel_run r = run_select(doc, 0, NULL, &so, "//a[k]/t", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_HELD, "%s", stax_test_status_name(r.status));
    cr_assert(strstr(r.msg, "held output exceeds max_held (4096 bytes)"), "%s", r.msg);
    free(r.out);
    so.max_held = 1 << 20;
    r = run_select(doc, 0, NULL, &so, "//a[k]/t", "", 0, 0);
    cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
    cr_assert_eq(strlen(r.out), 9000);
    free(r.out);
    /* decided at its start (the k comes first): nothing is held */
    n = (size_t)sprintf(doc, "<r><a><k/>");
    for (int k = 0; k < 1000; k++) n += (size_t)sprintf(doc + n, "<t>xxxxxxxx</t>");
    sprintf(doc + n, "</a></r>");
    so.max_held = 1024;
    r = run_select(doc, 0, NULL, &so, "//a[k]/t", "", 0, 0);
    cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
    free(r.out);
    free(doc);
}

Test(select, unions_are_in_document_order_without_duplicates) {
    expect(lib, "//year|//note", "1815\nold!\n");
    expect(lib, "//note|//year", "1815\nold!\n");
    expect(lib, "//book[@id='b1']/@id|//book[@lang='en']/@id", "b1\nb4\n");
    expect(lib, "//title|/lib/title", "Emma\nCandide\nUlysses\nDracula\nFaust\nCatalogue\n");
}

Test(select, a_match_inside_a_match_comes_after_it) {
    expect("<a>1<a>2<a>3</a>4</a>5</a>", "//a", "12345\n234\n3\n");
    expect("<r><a x='1'>t<b y='2'>u</b></a></r>", "//a|//@x|//b|//@y|//text()", "tu\n1\nt\nu\n2\nu\n");
    expect(lib, "//shelf[2]|//book[@id='b5']/title", "DraculaFaust\nFaust\n");
}

Test(select, prefixed_names_as_written_without_namespaces) {
    const char *doc = "<r xmlns:p='urn:p' xmlns:q='urn:p'><p:a p:k='1'>x</p:a><q:a>y</q:a></r>";
    expect(doc, "//p:a", "x\n");
    expect(doc, "//q:a", "y\n");
    expect(doc, "//@p:k", "1\n");
    expect(doc, "/r/@*", ""); /* namespace declarations are not attributes */
}

Test(select, prefixed_names_by_namespace) {
    const char *doc = "<r xmlns='urn:d' xmlns:p='urn:p' xmlns:q='urn:p'>"
                      "<p:a p:k='1' k='2'>x</p:a><q:a>y</q:a><a>z</a><e xmlns=''>w</e></r>";
    stax_str ns[] = {stax_strz("x"), stax_strz("urn:p"), stax_strz("d"), stax_strz("urn:d")};
    expect_ns(doc, "//x:a", ns, 2, "x\ny\n");  /* p: and q: are the same namespace */
    expect_ns(doc, "//d:a", ns, 2, "z\n");
    expect_ns(doc, "//a", ns, 2, "");          /* no prefix: no namespace (XPath 1.0) */
    expect_ns(doc, "/d:r/e", ns, 2, "w\n");
    expect_ns(doc, "//@x:k", ns, 2, "1\n");
    expect_ns(doc, "//x:a/@k", ns, 2, "2\n");
    expect_ns(doc, "/*/@*", ns, 2, "");         /* declarations are not attributes */
    expect_ns(doc, "//*[@x:k='1']", ns, 2, "x\n");
    /* the last binding of a prefix wins; xml is always bound */
    stax_str ns2[] = {stax_strz("x"), stax_strz("urn:none"), stax_strz("x"), stax_strz("urn:p")};
    expect_ns(doc, "//x:a", ns2, 2, "x\ny\n");
    expect_ns("<a xml:lang='en'/>", "//@xml:lang", NULL, 0, "en\n");
}

Test(select, values_never_depend_on_text_splits) {
    /* max_text 4 cuts the text into continued pieces; an entity's text is part of it */
    static const char doc[] = "<!DOCTYPE r [<!ENTITY e 'ent<i>ity</i>'>]>"
                              "<r><a>abcdefghij&e;klmnopq<![CDATA[rstuvwxyz]]>0123</a></r>";
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    ro.max_text = 4;
    ro.max_token = 64;
    char *got = select_all(doc, &ro, NULL, "/r/a|/r/a/text()|//i", "", 0);
    cr_assert_str_eq(got, "abcdefghijentityklmnopqrstuvwxyz0123\nabcdefghijent\nity\nklmnopqrstuvwxyz0123\n");
    free(got);
}

Test(select, null_separated_values_are_the_callers_choice) {
    /* the library hands out values; the separator is the tool's (tested there) */
    expect("<a>x\ny</a>", "/a", "x\ny\n");
}

/* ================================================================ records (columns) */

Test(select, records_take_the_first_match_of_each_column) {
    expect_with(lib, 0, "//book", "@id,title,@lang,note/b,nothing", "b1|Emma|en||\nb2|Candide|fr|!|\nb3|Ulysses|||\n"
                                                                   "b4|Dracula|en||\nb5|Faust|de||\n");
    expect_with(lib, 0, "//shelf", "book[@lang='en']/title,book[2]/@id,.//title,./@n,.",
                "Emma|b2|Emma|1|Emma1815Candideold!Ulysses\nDracula||Dracula|2|DraculaFaust\n");
}

Test(select, records_nested_in_records_each_see_their_own_subtree) {
    const char *doc = "<r><a id='1'><t>one</t><a id='2'><t>two</t></a></a><a id='3'/></r>";
    expect_with(doc, 0, "//a", "@id,t,a/t,a/@id", "1|one|two|2\n2|two||\n3|||\n");
    /* .// sees the records below its record too: the first in document order */
    expect_with(doc, 0, "//a", "@id,.//t,.//@id", "1|one|1\n2|two|2\n3||3\n");
}

Test(select, record_columns_may_be_unions_and_text) {
    const char *doc = "<r><n k='a'>x<i>1</i>y</n><n v='b'>z</n></r>";
    expect_with(doc, 0, "/r/n", "@k|@v,text(),i|@v", "a|x|1\nb|z|b\n");
}

/* A column that is a union takes the first of its matches in the record in
 * document order, whichever of its paths selects it: attributes in the
 * order of the tag, an element before its attributes, those before its
 * content. */
Test(select, record_column_unions_take_the_first_match_in_document_order) {
    expect_with("<r><c y='Y' x='X'/></r>", 0, "//c", "@x|@y", "Y\n");
    expect_with("<r><c y='Y' x='X'/></r>", 0, "//c", "@y|@x", "Y\n");
    expect_with("<r><c y='Y' x='X'/></r>", 0, "//c", "@x|@*", "Y\n");
    expect_with("<r><c y='Y' x='X'/></r>", 0, "//c", "@x|@y,@x|@nothing,@nothing|@x", "Y|X|X\n");
    expect_with("<r><c y='1' x='2'><c x='3' y='4'/></c></r>", 0, "//c", "@x|@y", "1\n3\n");
    expect_with("<r><c><d y='Y' x='X'/></c></r>", 0, "//c", "d/@x|d/@y,.//@x|.//@y", "Y|Y\n");
    expect_with("<r><c x='X'><d y='Y'/></c></r>", 0, "//c", ".//@y|@x,d/@y|.//@x", "X|X\n");
    expect_with("<r><c><b>B</b><a>A</a></c></r>", 0, "//c", "a|b,.//a|b", "B|B\n");
    expect_with("<r><c x='X'><a>A</a></c></r>", 0, "//c", "a|@x,a|.", "X|A\n");
    expect_with("<r><c>T<a>A</a></c></r>", 0, "//c", "a|text(),a/text()|text()", "T|T\n");
    expect_with("<r><c><a>A</a>T</c></r>", 0, "//c", "text()|a,text()|a/text()", "A|A\n");
    expect_with("<r><c><a x='X'>A</a></c></r>", 0, "//c", "a/@x|a,a/text()|a/@x", "A|X\n");
}

/* STAX_SELECT_ALL_MATCHES with join: every match of a column in its record,
 * in document order, joined; a match inside another one of the column
 * comes after it, whole. */
static void expect_all(const char *doc, unsigned flags, const char *paths, const char *columns, const char *join,
                       const char *want) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = flags | STAX_SELECT_ALL_MATCHES;
    so.join = stax_strz(join);
    char *got = select_all(doc, NULL, &so, paths, columns, 0);
    cr_assert_str_eq(got, want, "%s [%s]\ngot:\n%s\nwant:\n%s", paths, columns, got, want);
    free(got);
}

Test(select, every_match_of_a_column_joined_in_document_order) {
    expect_all("<r><b a='1'><au>A</au><au>B</au><t>T</t></b><b/></r>", 0, "//b", "au,t,@a", ";", "A;B|T|1\n||\n");
    expect_all("<r><b><x v='1'/><x v='2'/><x/><x v='3'/></b></r>", 0, "//b", "x/@v", ", ", "1, 2, 3\n");
    expect_all("<r><b x='1' y='2'/></r>", 0, "//b", "@*,@y|@x,@x", ";", "1;2|1;2|1\n");
    expect_all("<r><b>x<i/>y<i/>z</b></r>", 0, "//b", "text(),i", "+", "x+y+z|+\n");
    expect_all("<r><b><a>1</a><a>2</a></b></r>", 0, "//b", "a", "", "12\n");
    /* a column that waits for the one before it, which takes every match too */
    expect_all("<r><b><a>1</a><a>2</a><t>T</t><t>U</t></b></r>", 0, "//b", "t,a,.", ";", "T;U|1;2|12TU\n");
    /* nested matches of a column: each after the one it is in */
    expect_all("<r><b><a>1<a>2</a>3</a><a>4</a></b></r>", 0, "//b", ".//a", ";", "123;2;4\n");
    expect_all("<r><b><a>1<a>2<a>3</a></a><a>5</a></a><a>4</a></b></r>", 0, "//b", ".//a", ";", "1235;23;3;5;4\n");
    expect_all("<r><b>t<a x='X'>1</a>u</b></r>", 0, "//b", "a|.//text()|.//@x", ";", "t;1;X;1;u\n");
    /* records in records: each sees its own */
    expect_all("<r><b><c>1</c><b><c>2</c></b><c>3</c></b></r>", 0, "//b", ".//c,c", ";", "1;2;3|1;3\n2|2\n");
    expect_all("<r><b><a>1</a><a k='v'>2</a></b></r>", STAX_SELECT_XML, "//b", "a", ";", "<a>1</a>;<a k=\"v\">2</a>\n");
}

/* ================================================================ refusals */

static void refused(const char *paths, const char *columns, int want, const char *msg_part) {
    stax_select *s = stax_select_new(NULL);
    cr_assert_not_null(s);
    int st = stax_select_compile(s, stax_strz(paths), stax_strz(columns));
    cr_assert_eq(st, want, "'%s' [%s]: %s, not %s (%s)", paths, columns, stax_test_status_name(st),
                 stax_test_status_name(want), stax_select_message(s));
    cr_assert(strstr(stax_select_message(s), msg_part), "'%s': message '%s' does not say '%s'", paths,
              stax_select_message(s), msg_part);
    /* and the select stays refused */
    stax_batch b;
    memset(&b, 0, sizeof b);
    cr_assert_neq(stax_select_batch(s, &b), STAX_OK);
    stax_select_free(s);
}

Test(select, constructs_outside_the_subset_are_refused_by_name) {
    const int U = STAX_E_UNSUPPORTED;
    refused("//a/ancestor::b", "", U, "the axis 'ancestor::'");
    refused("//a/following-sibling::b", "", U, "the axis 'following-sibling::'");
    refused("//a/@b::c", "", U, "the axis 'b::'");
    refused("//a[following::b]", "", U, "the axis 'following::'");
    refused("//a[concat(@b,'x')]", "", U, "the function 'concat()'");
    refused("count(//a)", "", U, "the function 'count()'");
    refused("//node()", "", U, "node() as the last step");
    refused("//comment()", "", U, "the node test 'comment()'");
    refused("//processing-instruction()", "", U, "the node test 'processing-instruction()'");
    refused("//a[comment()]", "", U, "the node test 'comment()'");
    refused("//text()/a", "", U, "a step after text()");
    refused("//text()[1]", "", U, "a predicate on text()");
    refused("//@a/b", "", U, "a step after an attribute");
    refused("//@a[1]", "", U, "a predicate on an attribute");
    refused("//a[b[@x]]", "", U, "a predicate inside a predicate's path");
    refused("//a[b[1][2]]", "", U, "a second predicate inside a predicate's path");
    refused("//a[descendant::b[1]]", "", U, "a predicate inside a predicate's path other than [n] on a child step");
    refused("//a[//b]", "", U, "an absolute path in a predicate");
    refused("//a[b|c]", "", U, "'|' in a predicate");
    refused("//a[../b]", "", U, "'..' (the parent step)");
    refused("//a[$x]", "", U, "variables");
    refused("//a/descendant::b[1]", "", U, "a position on the descendant axis");
    refused("//a/descendant::b[last()]", "", U, "a position on the descendant axis");
    refused("//a/descendant-or-self::b", "", U, "a self or descendant-or-self step other than ::node()");
    refused("//a/self::b[1]", "", U, "a position on a self:: step");
    refused("//a/descendant-or-self::node()", "", U, "descendant-or-self::node() as the last step");
    refused("//a | //b or //c", "", U, "the operator 'or'");
    refused("//a/..", "", U, "'..' (the parent step)");
    refused("/", "", U, "'/' alone");
    refused(".", "", U, "'.' alone");
    refused("$x", "", U, "variables");
    refused("//p:*", "", U, "'prefix:*'");
    refused("//a", "/x", U, "an absolute column");
    refused("//a", "b,//c", U, "an absolute column");
    refused("//@a", "b", U, "records that are attributes");
    refused("//text()", "b", U, "records that are text nodes");
}

Test(select, malformed_paths_are_syntax_errors) {
    const int S = STAX_E_SYNTAX;
    refused("", "", S, "an empty path");
    refused("//a/", "", S, "expected a step");
    refused("//a|", "", S, "expected a step");
    refused("///a", "", S, "expected a step");
    refused("//a[@b", "", S, "without its ']'");
    refused("//a[1", "", S, "without its ']'");
    refused("//a[]", "", S, "an empty predicate");
    refused("//a[@b='x]", "", S, "without its closing quote");
    refused("//a[@]", "", S, "expected a name or * after '@'");
    refused("//a]", "", S, "a ']' without its '['");
    refused("//p:", "", S, "expected a local name");
    refused("//text(", "", S, "expected ')'");
}

Test(select, messages_say_where) {
    refused("//a/b[@c | @d]", "", STAX_E_UNSUPPORTED, "at character 10 of the path");
    refused("//a", "@x, b[c]", STAX_E_UNSUPPORTED, "at character 7 of the columns");
}

Test(select, a_prefix_needs_a_binding_with_namespaces) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NAMESPACES;
    stax_select *s = stax_select_new(&so);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a/p:b"), stax_strz("")), STAX_E_NAMESPACE);
    cr_assert(strstr(stax_select_message(s), "the prefix 'p' is not bound"), "%s", stax_select_message(s));
    stax_select_free(s);
}

Test(select, misuse) {
    stax_select *s = stax_select_new(NULL);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_OK);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_E_USAGE);
    stax_select_free(s);
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = 0x100;
    cr_assert_null(stax_select_new(&so));
    so.flags = 0;
    so.xml_memory = 100;
    cr_assert_null(stax_select_new(&so));
    char block[100];
    so.xml_memory = 0;
    so.memory = block;
    so.memory_size = sizeof block;
    cr_assert_null(stax_select_new(&so));
    /* a namespace select needs a namespace reader */
    so.memory = NULL;
    so.memory_size = 0;
    so.flags = STAX_SELECT_NAMESPACES;
    sel_run r = run_select("<a/>", 0, NULL, &so, "//a", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_USAGE);
    cr_assert(strstr(r.msg, "STAX_READ_NAMESPACES"), "%s", r.msg);
    free(r.out);
}

/* ================================================================ bounds */

/* <a>t0<a>t1 ... </a>...</a>: every a matches //a, each inside the one before. */
static char *nested_doc(int depth, size_t text) {
    size_t cap = (size_t)depth * (text + 16) + 16, len = 0;
    char *d = malloc(cap);
    cr_assert_not_null(d);
    for (int k = 0; k < depth; k++) {
        len += (size_t)sprintf(d + len, "<a>");
        for (size_t j = 0; j < text; j++) d[len++] = (char)('a' + k % 26);
    }
    for (int k = 0; k < depth; k++) len += (size_t)sprintf(d + len, "</a>");
    d[len] = '\0';
    return d;
}

Test(select, held_output_is_bounded_by_max_held) {
    char *doc = nested_doc(20, 100); /* inner values wait: about 20 * 10 * 100 / 2 bytes held */
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_held = 4096;
    sel_run r = run_select(doc, 0, NULL, &so, "//a", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_HELD, "%s", stax_test_status_name(r.status));
    cr_assert(strstr(r.msg, "held output exceeds max_held (4096 bytes)"), "%s", r.msg);
    /* what was written before stays: the outer value streams */
    cr_assert(strncmp(r.out, "aaaa", 4) == 0);
    free(r.out);
    so.max_held = 64 * 1024;
    r = run_select(doc, 7, NULL, &so, "//a", "", 0, 0);
    cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
    /* the k-th value is the text of levels k..19 */
    size_t pos = 0;
    for (int k = 0; k < 20; k++) {
        for (int l = k; l < 20; l++)
            for (int j = 0; j < 100; j++) cr_assert_eq(r.out[pos++], (char)('a' + l), "value %d, level %d", k, l);
        cr_assert_eq(r.out[pos++], '\n');
    }
    cr_assert_eq(r.out[pos], '\0');
    free(r.out);
    free(doc);
}

/* A record behind an open one is held; when its columns arrived out of order
 * (a before b for columns "b,a"), they still come out in column order. The
 * outer record streams: its b and a come after the inner record began. */
Test(select, a_held_record_gives_its_columns_in_column_order) {
    char *got = select_all("<r><x><x><a>1</a><b>2</b></x><b>3</b><a>4</a></x></r>", NULL, NULL, "//x", "b,a,.", 0);
    cr_assert_str_eq(got, "3|4|1234\n2|1|12\n");
    free(got);
}

/* A record streams its columns in order: a column whose columns before it are
 * complete goes out as it comes, one that arrives early waits, within max_held. */
Test(select, record_columns_stream_in_order_and_wait_within_max_held) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_held = 512;
    char doc[2200];
    int n = sprintf(doc, "<r><a id='1'>");
    for (int k = 0; k < 2000; k++) doc[n++] = 'x';
    sprintf(doc + n, "<b>2</b></a></r>");
    for (size_t c = 0; c < stax_test_chunk_count; c++) {
        /* '@id' is complete at the START: '.' streams, 2010 bytes through a 512-byte bound */
        sel_run r = run_select(doc, stax_test_chunk_sizes[c], NULL, &so, "//a", "@id,.", 0, 0);
        cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
        cr_assert_eq(strlen(r.out), 2 + 2001 + 1);
        cr_assert(strncmp(r.out, "1|xxx", 5) == 0, "%s", r.out);
        cr_assert_str_eq(r.out + 2 + 2000, "2\n");
        free(r.out);
        /* 'b' comes last: '.' waits for it, held, and goes past the bound */
        r = run_select(doc, stax_test_chunk_sizes[c], NULL, &so, "//a", "b,.", 0, 0);
        cr_assert_eq(r.status, STAX_E_LIMIT_HELD);
        cr_assert(strstr(r.msg, "a record's column waits for the columns before it"), "%s", r.msg);
        free(r.out);
    }
}

Test(select, depth_is_bounded_by_max_depth) {
    char *doc = nested_doc(40, 0);
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_depth = 39;
    sel_run r = run_select(doc, 0, NULL, &so, "//b", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_DEPTH);
    free(r.out);
    so.max_depth = 40;
    r = run_select(doc, 0, NULL, &so, "//b", "", 0, 0);
    cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
    free(r.out);
    free(doc);
}

Test(select, matching_state_is_bounded_by_max_state) {
    char *doc = nested_doc(200, 0);
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_state = 2048;
    /* a/a/a... with a position: a frame and counters per level */
    sel_run r = run_select(doc, 0, NULL, &so, "//a[1]/b", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_STATE);
    cr_assert(strstr(r.msg, "max_state (2048 bytes)"), "%s", r.msg);
    free(r.out);
    free(doc);
}

/* Elements that no step matches open levels without frames, until an
 * event needs them; the room for their frames grows as they open. */
Test(select, deep_elements_no_step_matches) {
    size_t depth = 300, cap = depth * 7 + 16, len = 0;
    char *doc = malloc(cap);
    cr_assert_not_null(doc);
    for (size_t k = 0; k < depth; k++) len += (size_t)sprintf(doc + len, "<a>");
    len += (size_t)sprintf(doc + len, "<b>x</b>");
    for (size_t k = 0; k < depth; k++) len += (size_t)sprintf(doc + len, "</a>");
    expect(doc, "//b", "x\n");
    expect(doc, "//b/text()|//a/@x", "x\n"); /* the levels look at their attributes */
    free(doc);
}

/* A limit stops the select at the same event whatever the chunks, and
 * whether the events come by batch (where elements no step matches open
 * without sel_event) or one at a time. */
Test(select, limits_stop_at_the_same_event_in_every_mode) {
    struct {
        int depth;
        size_t max_depth, max_state;
        const char *path, *columns;
        int status;
    } cases[] = {
        {200, 0, 2048, "//b", "", STAX_E_LIMIT_STATE},      /* no element matches: every level inherits */
        {200, 0, 2048, "//a[1]/b", "", STAX_E_LIMIT_STATE}, /* every level matches */
        {200, 0, 2048, "//a", "b,@c", STAX_E_LIMIT_STATE},  /* every level is a record */
        {200, 0, 800, "//a", "b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", STAX_E_LIMIT_STATE}, /* ... its frame runs out */
        {40, 39, 0, "//b", "", STAX_E_LIMIT_DEPTH},
        {40, 39, 0, "//a/b", "", STAX_E_LIMIT_DEPTH},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *doc = nested_doc(cases[k].depth, 2);
        stax_select_options so;
        memset(&so, 0, sizeof so);
        so.max_depth = cases[k].max_depth;
        so.max_state = cases[k].max_state;
        uint64_t at = 0;
        for (size_t c = 0; c <= stax_test_chunk_count; c++) {
            one_by_one = c == stax_test_chunk_count;
            sel_run r = run_select(doc, one_by_one ? 3 : stax_test_chunk_sizes[c], NULL, &so, cases[k].path, cases[k].columns, 0, 0);
            one_by_one = 0;
            cr_assert_eq(r.status, cases[k].status, "%s: %s", cases[k].path, r.msg);
            cr_assert_gt(r.err_offset, 0);
            if (c == 0) at = r.err_offset;
            cr_assert_eq(r.err_offset, at, "%s: stopped at byte %llu, not %llu (chunk case %zu)", cases[k].path,
                         (unsigned long long)r.err_offset, (unsigned long long)at, c);
            free(r.out);
        }
        free(doc);
    }
}

Test(select, a_fixed_block_never_calls_malloc) {
    static unsigned char rblock[64 * 1024], sblock[64 * 1024];
    static char out[4096];
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    ro.memory = rblock;
    ro.memory_size = sizeof rblock;
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.memory = sblock;
    so.memory_size = sizeof sblock;
    so.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    so.flags = STAX_SELECT_XML;
    collect c;
    memset(&c, 0, sizeof c);
    c.buf = out;
    c.cap = sizeof out; /* big enough: col_put never grows it */
    stax_test_forbid_malloc = 1;
    stax_reader *r = stax_reader_new(&ro);
    stax_select *s = stax_select_new(&so);
    int ok = r && s && stax_select_compile(s, stax_strz("//book[@lang='en']|//note"), stax_strz("")) == STAX_OK;
    if (ok) stax_select_set_output(s, col_piece, &c);
    const stax_batch *b;
    int st = ok ? stax_reader_feed(r, lib, sizeof lib - 1) : -1, sst = STAX_OK;
    while (ok && sst == STAX_OK && (st = stax_reader_next(r, &b)) == STAX_OK) sst = stax_select_batch(s, b);
    if (ok && st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        while (sst == STAX_OK && (st = stax_reader_next(r, &b)) == STAX_OK) sst = stax_select_batch(s, b);
    }
    stax_select_free(s);
    stax_reader_free(r);
    stax_test_forbid_malloc = 0;
    cr_assert(ok);
    cr_assert_eq(sst, STAX_OK);
    cr_assert_eq(st, STAX_END);
    cr_assert_str_eq(out, "<book id=\"b1\" lang=\"en\"><title>Emma</title><year>1815</year></book>\n"
                          "<note>old<b>!</b></note>\n"
                          "<book id=\"b4\" lang=\"en\"><title>Dracula</title></book>\n");
}

Test(select, a_fixed_block_too_small_says_so) {
    static unsigned char sblock[STAX_SELECT_MIN_MEMORY];
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.memory = sblock;
    so.memory_size = sizeof sblock;
    char *doc = nested_doc(300, 1);
    /* the block's own max_state: a limit, never out of memory */
    sel_run r = run_select(doc, 0, NULL, &so, "//a[2]|//a[3]|//a[4]", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_STATE, "%s", r.msg);
    cr_assert(strstr(r.msg, "max_state ("), "%s", r.msg);
    free(r.out);
    free(doc);
}

/* Feed doc to s by batches: the first status other than STAX_OK. */
static int feed_select(stax_select *s, const char *doc) {
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    stax_reader_feed(r, doc, strlen(doc));
    const stax_batch *b;
    int st, sst = STAX_OK, ended = 0;
    while (sst == STAX_OK && ((st = stax_reader_next(r, &b)) == STAX_OK || (st == STAX_NEED_INPUT && !ended))) {
        if (st == STAX_OK) sst = stax_select_batch(s, b);
        else ended = stax_reader_end(r) == STAX_OK;
    }
    stax_reader_free(r);
    return sst;
}

/* The rule of stax.h's select section: an error (and STAX_END) stays until
 * stax_select_reset, which clears it; an error of compiling stays for good. */
Test(select, errors_are_sticky_until_reset_and_compile_errors_for_good) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_held = 4096;
    stax_select *s = stax_select_new(&so);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_OK);
    char *deep = nested_doc(20, 100);
    cr_assert_eq(feed_select(s, deep), STAX_E_LIMIT_HELD);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", stax_select_message(s));
    size_t at = stax_select_event_index(s);
    /* later calls: the same status, the event not taken */
    stax_reader *r = stax_reader_new(NULL);
    stax_reader_feed(r, "<a>x</a>", 8);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    cr_assert_eq(stax_select_batch(s, b), STAX_E_LIMIT_HELD);
    cr_assert_eq(stax_select_event(s, b, 0), STAX_E_LIMIT_HELD);
    cr_assert_eq(stax_select_compile(s, stax_strz("//b"), stax_strz("")), STAX_E_LIMIT_HELD);
    cr_assert_eq(stax_select_status(s), STAX_E_LIMIT_HELD);
    cr_assert_str_eq(stax_select_message(s), msg);
    cr_assert_eq(stax_select_event_index(s), at);
    cr_assert_eq(stax_select_set_output(s, NULL, NULL), STAX_OK);
    stax_reader_free(r);
    /* reset clears it: the next document is selected from its start */
    stax_select_reset(s);
    cr_assert_eq(stax_select_status(s), STAX_OK);
    cr_assert_eq(feed_select(s, "<a><a/></a>"), STAX_OK);
    cr_assert_eq(stax_select_count(s, 0), 2);
    stax_select_reset(s);
    /* STAX_END from the callback: the same */
    collect c;
    memset(&c, 0, sizeof c);
    col_put(&c, "", 0);
    c.stop_after = 1;
    stax_select_set_output(s, col_piece, &c);
    cr_assert_eq(feed_select(s, "<a><a/></a>"), STAX_END);
    cr_assert_eq(feed_select(s, "<a/>"), STAX_END);
    cr_assert_eq(stax_select_status(s), STAX_END);
    stax_select_reset(s);
    cr_assert_eq(stax_select_status(s), STAX_OK);
    free(c.buf);
    stax_select_free(s);
    /* a compile error: reset keeps it, and every call returns it */
    s = stax_select_new(NULL);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a["), stax_strz("")), STAX_E_SYNTAX);
    stax_select_reset(s);
    cr_assert_eq(stax_select_status(s), STAX_E_SYNTAX);
    cr_assert_eq(feed_select(s, "<a/>"), STAX_E_SYNTAX);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_E_SYNTAX);
    stax_select_free(s);
    /* compiling twice is an error like any: until reset */
    s = stax_select_new(NULL);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_OK);
    cr_assert_eq(stax_select_compile(s, stax_strz("//a"), stax_strz("")), STAX_E_USAGE);
    cr_assert_eq(feed_select(s, "<a/>"), STAX_E_USAGE);
    stax_select_reset(s);
    cr_assert_eq(feed_select(s, "<a/>"), STAX_OK);
    stax_select_free(s);
    free(deep);
}

/* stax_select_memory_size sizes a fixed block for the options and the
 * paths: in it, nothing runs out of memory (every failure is a limit); a
 * block too small is refused at stax_select_new or at compiling, cleanly. */
Test(select, memory_size_sizes_a_fixed_block) {
    struct {
        size_t max_held, max_state;
        unsigned flags;
        const char *path, *columns;
    } cases[] = {
        {4096, 2048, 0, "//a", ""},
        {20000, 4096, STAX_SELECT_XML, "//a|//a/text()", ""},
        {8192, 8192, 0, "//a[1]|//a[2]/@x|//a//text()", ""},
        {6000, 3000, 0, "//a", "a,.,text(),.//a[3]|@x"},
        {1 << 16, 1 << 15, STAX_SELECT_XML, "//a", "a/a,."},
    };
    char *doc = nested_doc(300, 20);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        stax_select_options so;
        memset(&so, 0, sizeof so);
        so.max_held = cases[k].max_held;
        so.max_state = cases[k].max_state;
        so.flags = cases[k].flags;
        size_t len = strlen(cases[k].path) + strlen(cases[k].columns);
        size_t n = stax_select_memory_size(&so, len);
        cr_assert_gt(n, 3 * (so.max_held + so.max_state));
        /* (with predicates: the expressions, and eight more buffers under max_held) */
        cr_assert_lt(n, 4 * (so.max_held + so.max_state) + 32768, "case %zu: %zu bytes", k, n);
        unsigned char *block = malloc(n);
        cr_assert_not_null(block);
        so.memory = block;
        so.memory_size = n;
        const char *why = NULL;
        cr_assert_eq(stax_select_check_options(&so, &why), STAX_OK, "%s", why);
        for (size_t c = 0; c < stax_test_chunk_count; c++) {
            sel_run r = run_select(doc, stax_test_chunk_sizes[c], NULL, &so, cases[k].path, cases[k].columns, 0, 0);
            cr_assert(r.status == STAX_OK || r.status == STAX_E_LIMIT_HELD || r.status == STAX_E_LIMIT_STATE ||
                          r.status == STAX_E_LIMIT_XML_MEMORY,
                      "case %zu in %zu bytes: %s, %s", k, n, stax_test_status_name(r.status), r.msg);
            free(r.out);
        }
        /* a block too small for the options: stax_select_new refuses it, and says why */
        so.memory_size = 3 * (so.max_held + so.max_state) / 2;
        cr_assert_eq(stax_select_check_options(&so, &why), STAX_E_NOMEM);
        cr_assert(strstr(why, "too small"), "%s", why);
        cr_assert_null(stax_select_new(&so));
        free(block);
    }
    /* one large enough for the options but not for long paths: compiling refuses it */
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.max_held = 4096;
    so.max_state = 4096;
    size_t n = stax_select_memory_size(&so, 0);
    unsigned char *block = malloc(n);
    so.memory = block;
    so.memory_size = n;
    stax_select *s = stax_select_new(&so);
    cr_assert_not_null(s);
    char path[4000];
    size_t pl = 0;
    while (pl + 8 < sizeof path) pl += (size_t)sprintf(path + pl, "|//a[%zu]", pl % 9 + 1);
    cr_assert_eq(stax_select_compile(s, stax_strz(path + 1), stax_strz("")), STAX_E_NOMEM);
    cr_assert(strstr(stax_select_message(s), "fixed block"), "%s", stax_select_message(s));
    stax_select_free(s);
    /* shorter paths that fit the program but not what they may take next */
    s = stax_select_new(&so);
    pl = 0;
    while (pl + 8 < 300) pl += (size_t)sprintf(path + pl, "|//a[%zu]", pl % 9 + 1);
    cr_assert_eq(stax_select_compile(s, stax_strz(path + 1), stax_strz("")), STAX_E_NOMEM);
    cr_assert(strstr(stax_select_message(s), "too small for these paths and limits"), "%s", stax_select_message(s));
    stax_select_free(s);
    free(block);
    free(doc);
    /* out of range: 0, and STAX_E_USAGE */
    memset(&so, 0, sizeof so);
    so.flags = 0x80;
    cr_assert_eq(stax_select_memory_size(&so, 10), 0);
    cr_assert_eq(stax_select_check_options(&so, NULL), STAX_E_USAGE);
}

/* The options a select runs with: the defaults in the allocator mode, and
 * in a fixed block the block's, which fit it and never exceed those. */
Test(select, effective_options_give_the_limits_a_block_gets) {
    stax_select_options so, eff;
    memset(&so, 0, sizeof so);
    cr_assert_eq(stax_select_effective_options(&so, &eff, NULL), STAX_OK);
    cr_assert_eq(eff.max_held, (size_t)4 << 20);
    cr_assert_eq(eff.max_state, (size_t)1 << 20);
    cr_assert_eq(eff.max_depth, 1024);
    cr_assert_eq(eff.xml_memory, (size_t)16 << 10);
    cr_assert_eq(stax_select_effective_options(NULL, &eff, NULL), STAX_OK);
    cr_assert_eq(eff.max_held, (size_t)4 << 20);
    size_t sizes[] = {STAX_SELECT_MIN_MEMORY, 12000, 64 << 10, 1 << 20, 64 << 20};
    size_t prev_held = 0, prev_state = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned char *block = malloc(sizes[k]);
        memset(&so, 0, sizeof so);
        so.memory = block;
        so.memory_size = sizes[k];
        const char *why;
        cr_assert_eq(stax_select_effective_options(&so, &eff, &why), STAX_OK, "%zu: %s", sizes[k], why);
        cr_assert(eff.max_held > 0 && eff.max_state > 0 && eff.xml_memory >= STAX_WRITER_MIN_MEMORY + 2048);
        cr_assert_leq(eff.max_held, (size_t)4 << 20);
        cr_assert_leq(eff.max_state, (size_t)1 << 20);
        cr_assert_geq(eff.max_held, prev_held, "a larger block never gets smaller limits");
        cr_assert_geq(eff.max_state, prev_state);
        prev_held = eff.max_held;
        prev_state = eff.max_state;
        cr_assert_leq(stax_select_memory_size(&eff, 0), sizes[k], "%zu", sizes[k]);
        /* given explicitly, the same limits are accepted in the same block */
        cr_assert_eq(stax_select_check_options(&eff, &why), STAX_OK, "%s", why);
        stax_select *s = stax_select_new(&so);
        cr_assert_not_null(s);
        cr_assert_eq(stax_select_compile(s, stax_strz("//a/b|//c"), stax_strz("")), STAX_OK, "%zu: %s", sizes[k],
                     stax_select_message(s));
        stax_select_free(s);
        free(block);
    }
    memset(&so, 0, sizeof so);
    so.xml_memory = 10;
    cr_assert_eq(stax_select_effective_options(&so, &eff, NULL), STAX_E_USAGE);
}

/* ================================================================ stopping, counting, reuse */

Test(select, the_callback_stops_the_selection) {
    sel_run r = run_select(lib, 3, NULL, NULL, "//title", "", 0, 2);
    cr_assert_eq(r.status, STAX_END);
    cr_assert_str_eq(r.out, "Emma\nCandide\n");
    free(r.out);
}

Test(select, records_without_values_are_their_columns_empty) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NO_VALUES;
    char *out = select_all(lib, NULL, &so, "//book", "@id,title", 0);
    cr_assert_str_eq(out, "|\n|\n|\n|\n|\n");
    free(out);
}

/* Names and values are compared a word at a time: every length up to 20,
 * with a difference at every place. */
Test(select, names_and_values_differ_at_any_byte) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NO_VALUES;
    for (size_t len = 1; len <= 20; len++) {
        for (size_t at = 0; at < len; at++) {
            char n[32], m[32], v[32], w[32], doc[256], path[128];
            memset(n, 'a', len);
            memset(v, 'c', len);
            n[len] = v[len] = '\0';
            memcpy(m, n, len + 1);
            memcpy(w, v, len + 1);
            m[at] = 'b';
            w[at] = 'd';
            snprintf(doc, sizeof doc, "<r><%s/><%s/><%s x='%s'/><%s x='%s'/></r>", n, m, n, v, n, w);
            snprintf(path, sizeof path, "//%s|//%s[@x='%s']", n, n, v);
            sel_run r = run_select(doc, 0, NULL, &so, path, "", 0, 0);
            cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
            cr_assert_eq(r.counts[0], 3, "%s in %s: %llu", path, doc, (unsigned long long)r.counts[0]);
            cr_assert_eq(r.counts[1], 1, "%s in %s: %llu", path, doc, (unsigned long long)r.counts[1]);
            free(r.out);
        }
    }
}

Test(select, counts_per_path_without_values) {
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_NO_VALUES;
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        sel_run r = run_select(lib, stax_test_chunk_sizes[k], NULL, &so, "//book|//title|//book[@lang='en']|//@id|//text()", "", 0, 0);
        cr_assert_eq(r.status, STAX_OK, "%s", r.msg);
        cr_assert_eq(r.counts[0], 5);
        cr_assert_eq(r.counts[1], 6);
        cr_assert_eq(r.counts[2], 2);
        cr_assert_eq(r.counts[3], 5);
        cr_assert_eq(r.counts[4], 9);
        /* each node once, in order, with empty values: 5 books, 6 titles, 5 ids, 9 texts */
        size_t lines = 0;
        for (const char *p = r.out; *p; p++) lines += *p == '\n';
        cr_assert_eq(lines, 25, "%zu", lines);
        free(r.out);
    }
}

Test(select, reset_keeps_the_paths) {
    stax_select *s = stax_select_new(NULL);
    cr_assert_eq(stax_select_compile(s, stax_strz("//b"), stax_strz("")), STAX_OK);
    collect c;
    memset(&c, 0, sizeof c);
    col_put(&c, "", 0);
    stax_select_set_output(s, col_piece, &c);
    for (int round = 0; round < 2; round++) {
        stax_reader *r = stax_reader_new(NULL);
        stax_test_cursor cur;
        stax_test_cursor_open(&cur, r, STAX_DOC("<a><b>x</b><b>y"));
        while (stax_test_cursor_next(&cur)) cr_assert_eq(stax_select_event(s, cur.b, cur.i), STAX_OK);
        stax_reader_free(r);
        cr_assert_eq(stax_select_count(s, 0), 2);
        stax_select_reset(s);
        cr_assert_eq(stax_select_count(s, 0), 0);
        c.next = 0;
        c.open = 0;
    }
    /* the second b streams its text, but never ends (the input stops there) */
    cr_assert_str_eq(c.buf, "x\nyx\ny");
    free(c.buf);
    stax_select_free(s);
}

/* ================================================================ XML values */

Test(select, xml_values_through_the_writer) {
    const char *doc = "<r><a x='1&amp;&quot;&lt;&#9;'>t&lt;&gt;&amp;<b/><!--c--><?p d?><![CDATA[<c>]]>&#13;</a></r>";
    expect_with(doc, STAX_SELECT_XML, "//a",
                "", "<a x=\"1&amp;&quot;&lt;&#9;\">t&lt;&gt;&amp;<b/><!--c--><?p d?><![CDATA[<c>]]>&#13;</a>\n");
    expect_with(doc, STAX_SELECT_XML, "//@x|//a/text()", "", "x=\"1&amp;&quot;&lt;&#9;\"\nt&lt;&gt;&amp;\n&lt;c&gt;&#13;\n");
    expect_with("<a>1<a>2</a></a>", STAX_SELECT_XML, "//a", "", "<a>1<a>2</a></a>\n<a>2</a>\n");
}

Test(select, xml_values_carry_the_namespace_declarations_in_scope) {
    const char *doc = "<r xmlns='urn:d' xmlns:p='urn:p'><s xmlns:p='urn:q' xmlns:x='urn:x'>"
                      "<p:a p:k='1'><b xmlns=''/></p:a></s></r>";
    expect_with(doc, STAX_SELECT_XML, "//p:a", "",
                "<p:a p:k=\"1\" xmlns=\"urn:d\" xmlns:p=\"urn:q\" xmlns:x=\"urn:x\"><b xmlns=\"\"/></p:a>\n");
    expect_with(doc, STAX_SELECT_XML, "//b", "", "<b xmlns=\"\" xmlns:p=\"urn:q\" xmlns:x=\"urn:x\"/>\n");
}

Test(select, an_xml_value_deeper_than_its_writer_block_says_so) {
    char *doc = nested_doc(200, 0);
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.flags = STAX_SELECT_XML;
    so.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    sel_run r = run_select(doc, 0, NULL, &so, "/a", "", 0, 0);
    cr_assert_eq(r.status, STAX_E_LIMIT_XML_MEMORY, "%s", stax_test_status_name(r.status));
    cr_assert(strstr(r.msg, "xml_memory (3136 bytes)"), "%s", r.msg);
    free(r.out);
    free(doc);
}

/* ================================================================ the tree walker
 * A whole-tree model of a document and an XPath evaluator over node sets.
 * Names are compared as written (no namespaces). */

enum { T_ROOT, T_ELEM, T_ATTR, T_TEXT, T_OTHER };

typedef struct tnode tnode;
struct tnode {
    int type;
    char *name;      /* element, attribute */
    char *value;     /* attribute, text: the value; T_OTHER: its XML */
    char *xml;       /* text: as the writer writes its pieces in an element (TEXT escaped, CDATA kept) */
    tnode *parent;
    tnode **kids, **attrs;
    size_t nkids, nattrs;
    size_t order;    /* document order */
};

typedef struct tbuf {
    char *p;
    size_t len, cap;
} tbuf;

static void tb_put(tbuf *b, const char *p, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static void tb_puts(tbuf *b, const char *z) { tb_put(b, z, strlen(z)); }

static char *dupn(const char *p, size_t n) {
    char *d = malloc(n + 1);
    cr_assert_not_null(d);
    if (n) memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

static tnode *tnew(int type, tnode *parent) {
    tnode *n = calloc(1, sizeof *n);
    cr_assert_not_null(n);
    n->type = type;
    n->parent = parent;
    return n;
}

static void tadd(tnode ***list, size_t *n, tnode *x) {
    *list = realloc(*list, (*n + 1) * sizeof **list);
    cr_assert_not_null(*list);
    (*list)[(*n)++] = x;
}

/* The writer's escaping, as docs/writer.md states it. */
static void xml_escape(tbuf *b, const char *p, size_t n, int attr) {
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '&') tb_puts(b, "&amp;");
        else if (c == '<') tb_puts(b, "&lt;");
        else if (c == '>' && !attr) tb_puts(b, "&gt;");
        else if (c == '"' && attr) tb_puts(b, "&quot;");
        else if (c == '\t' && attr) tb_puts(b, "&#9;");
        else if (c == '\n' && attr) tb_puts(b, "&#10;");
        else if (c == '\r') tb_puts(b, "&#13;");
        else tb_put(b, &c, 1);
    }
}

static tnode *tree_of(const char *doc) {
    stax_reader *r = stax_reader_new(NULL);
    stax_test_cursor cur;
    stax_test_cursor_open(&cur, r, doc, strlen(doc));
    tnode *root = tnew(T_ROOT, NULL), *at = root, *text = NULL;
    tbuf tv = {0}, tx = {0};
    size_t order = 0;
    while (stax_test_cursor_next(&cur)) {
        const stax_batch *b = cur.b;
        size_t i = cur.i;
        int type = stax_ev_type(b, i);
        if (type == STAX_EV_TEXT || type == STAX_EV_CDATA) {
            stax_str t = stax_ev_text(b, i);
            if (!text) {
                text = tnew(T_TEXT, at);
                text->order = order++;
                tadd(&at->kids, &at->nkids, text);
                tv.len = tx.len = 0;
                tb_put(&tv, "", 0);
                tb_put(&tx, "", 0);
            }
            tb_put(&tv, t.ptr, t.len);
            if (type == STAX_EV_TEXT) {
                xml_escape(&tx, t.ptr, t.len, 0);
            } else {
                tb_puts(&tx, "<![CDATA[");
                tb_put(&tx, t.ptr, t.len);
                tb_puts(&tx, "]]>");
            }
            free(text->value);
            free(text->xml);
            text->value = dupn(tv.p, tv.len);
            text->xml = dupn(tx.p, tx.len);
            continue;
        }
        if (type == STAX_EV_ENTITY_REF) continue;
        text = NULL;
        if (type == STAX_EV_START) {
            tnode *e = tnew(T_ELEM, at);
            stax_str n = stax_ev_name(b, i);
            e->name = dupn(n.ptr, n.len);
            e->order = order++;
            for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
                tnode *a = tnew(T_ATTR, e);
                stax_str an = stax_ev_attr_name(b, i, k), av = stax_ev_attr_value(b, i, k);
                a->name = dupn(an.ptr, an.len);
                a->value = dupn(av.ptr, av.len);
                a->order = order++;
                tadd(&e->attrs, &e->nattrs, a);
            }
            tadd(&at->kids, &at->nkids, e);
            at = e;
        } else if (type == STAX_EV_END) {
            at = at->parent;
        } else if (at != root && (type == STAX_EV_COMMENT || type == STAX_EV_PI)) {
            tnode *o = tnew(T_OTHER, at);
            tbuf x = {0};
            stax_str n = stax_ev_name(b, i), t = stax_ev_text(b, i);
            tb_puts(&x, type == STAX_EV_COMMENT ? "<!--" : "<?");
            tb_put(&x, n.ptr, type == STAX_EV_COMMENT ? 0 : n.len);
            if (type == STAX_EV_PI && t.len) tb_puts(&x, " ");
            tb_put(&x, t.ptr, t.len);
            tb_puts(&x, type == STAX_EV_COMMENT ? "-->" : "?>");
            o->value = x.p;
            o->order = order++;
            tadd(&at->kids, &at->nkids, o);
        }
    }
    cr_assert_eq(cur.status, STAX_END, "tree_of: %s", stax_test_status_name(cur.status));
    stax_reader_free(r);
    free(tv.p);
    free(tx.p);
    return root;
}

static void tree_free(tnode *n) {
    for (size_t k = 0; k < n->nkids; k++) tree_free(n->kids[k]);
    for (size_t k = 0; k < n->nattrs; k++) tree_free(n->attrs[k]);
    free(n->kids);
    free(n->attrs);
    free(n->name);
    free(n->value);
    free(n->xml);
    free(n);
}

static void string_value(tbuf *b, const tnode *n) {
    if (n->type == T_TEXT || n->type == T_ATTR) {
        tb_puts(b, n->value);
        return;
    }
    for (size_t k = 0; k < n->nkids; k++)
        if (n->kids[k]->type != T_OTHER) string_value(b, n->kids[k]);
}

static void xml_value(tbuf *b, const tnode *n, int root) {
    if (n->type == T_TEXT) {
        tb_puts(b, n->xml);
        return;
    }
    if (n->type == T_OTHER) {
        tb_puts(b, n->value);
        return;
    }
    tb_puts(b, "<");
    tb_puts(b, n->name);
    for (size_t k = 0; k < n->nattrs; k++) {
        tb_puts(b, " ");
        tb_puts(b, n->attrs[k]->name);
        tb_puts(b, "=\"");
        xml_escape(b, n->attrs[k]->value, strlen(n->attrs[k]->value), 1);
        tb_puts(b, "\"");
    }
    (void)root;
    if (!n->nkids) {
        tb_puts(b, "/>");
        return;
    }
    tb_puts(b, ">");
    for (size_t k = 0; k < n->nkids; k++) xml_value(b, n->kids[k], 0);
    tb_puts(b, "</");
    tb_puts(b, n->name);
    tb_puts(b, ">");
}

/* A path as a structure: what the random generator makes and the walker evaluates. */
typedef struct ttest {
    const char *name; /* NULL: @* */
    int op;           /* 0 exists, 1 =, 2 != */
    const char *value;
} ttest;
typedef struct tpred {
    int pos; /* [pos]; 0: tests */
    ttest tests[3];
    int ntests;
} tpred;
typedef struct tstep {
    int desc;         /* reached by // */
    int type;         /* T_ELEM, T_ATTR, T_TEXT */
    const char *name; /* NULL: * */
    tpred preds[3];
    int npreds;
} tstep;
typedef struct tpath {
    int dot;          /* a column written as ./ or .// or . */
    tstep steps[5];
    int n;
} tpath;

typedef struct tset {
    tnode **v;
    size_t n, cap;
} tset;

static void ts_add(tset *s, tnode *x) {
    for (size_t k = 0; k < s->n; k++)
        if (s->v[k] == x) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        cr_assert_not_null(s->v);
    }
    s->v[s->n++] = x;
}

static int by_order(const void *a, const void *b) {
    size_t x = (*(tnode *const *)a)->order, y = (*(tnode *const *)b)->order;
    return x < y ? -1 : x > y;
}

static int is_decl(const char *name) { return !strcmp(name, "xmlns") || !strncmp(name, "xmlns:", 6); }

static int test_ok(const ttest *t, const tnode *e) {
    for (size_t k = 0; k < e->nattrs; k++) {
        const tnode *a = e->attrs[k];
        if (t->name ? strcmp(t->name, a->name) != 0 : is_decl(a->name)) continue;
        if (t->op == 0 || (strcmp(a->value, t->value) == 0) == (t->op == 1)) return 1;
    }
    return 0;
}

static void descendants_or_self(tset *out, tnode *n) {
    ts_add(out, n);
    for (size_t k = 0; k < n->nkids; k++)
        if (n->kids[k]->type == T_ELEM) descendants_or_self(out, n->kids[k]);
}

/* One step from one context node, predicates applied in turn. */
static void step_from(tset *out, tnode *ctx, const tstep *st) {
    if (st->type == T_ATTR) {
        for (size_t k = 0; k < ctx->nattrs; k++) {
            tnode *a = ctx->attrs[k];
            if (st->name ? !strcmp(st->name, a->name) : !is_decl(a->name)) ts_add(out, a);
        }
        return;
    }
    tset cand = {0};
    for (size_t k = 0; k < ctx->nkids; k++) {
        tnode *c = ctx->kids[k];
        if (c->type != st->type) continue;
        if (st->type == T_ELEM && st->name && strcmp(st->name, c->name)) continue;
        if (c->type == T_TEXT && !c->value[0]) continue; /* only an empty CDATA: no text node (its XML stays in the parent's) */
        ts_add(&cand, c);
    }
    for (int p = 0; p < st->npreds; p++) {
        const tpred *pr = &st->preds[p];
        size_t w = 0;
        for (size_t k = 0; k < cand.n; k++) {
            int ok = 1;
            if (pr->pos) ok = (int)k + 1 == pr->pos;
            for (int t = 0; ok && t < pr->ntests; t++) ok = test_ok(&pr->tests[t], cand.v[k]);
            if (ok) cand.v[w++] = cand.v[k];
        }
        cand.n = w;
    }
    for (size_t k = 0; k < cand.n; k++) ts_add(out, cand.v[k]);
    free(cand.v);
}

static tset eval_path(tnode *ctx, const tpath *p) {
    tset cur = {0};
    ts_add(&cur, ctx);
    for (int k = 0; k < p->n; k++) {
        const tstep *st = &p->steps[k];
        tset from = {0}, next = {0};
        for (size_t j = 0; j < cur.n; j++) {
            if (st->desc) descendants_or_self(&from, cur.v[j]);
            else ts_add(&from, cur.v[j]);
        }
        for (size_t j = 0; j < from.n; j++) step_from(&next, from.v[j], st);
        free(from.v);
        free(cur.v);
        cur = next;
    }
    if (cur.n) qsort(cur.v, cur.n, sizeof *cur.v, by_order);
    return cur;
}

static void path_text(tbuf *b, const tpath *p, int column) {
    if (column && p->dot) tb_puts(b, p->n ? (p->steps[0].desc ? "." : "./") : ".");
    for (int k = 0; k < p->n; k++) {
        const tstep *st = &p->steps[k];
        if (st->desc) tb_puts(b, "//");
        else if (k > 0 || !column) tb_puts(b, "/");
        if (st->type == T_ATTR) tb_puts(b, "@");
        if (st->type == T_TEXT) tb_puts(b, "text()");
        else tb_puts(b, st->name ? st->name : "*");
        for (int q = 0; q < st->npreds; q++) {
            const tpred *pr = &st->preds[q];
            char tmp[32];
            tb_puts(b, "[");
            if (pr->pos) {
                snprintf(tmp, sizeof tmp, "%d", pr->pos);
                tb_puts(b, tmp);
            }
            for (int t = 0; t < pr->ntests; t++) {
                const ttest *tt = &pr->tests[t];
                if (t) tb_puts(b, t % 2 ? " and " : "and");
                tb_puts(b, "@");
                tb_puts(b, tt->name ? tt->name : "*");
                if (tt->op) {
                    tb_puts(b, tt->op == 1 ? "=" : " != ");
                    tb_puts(b, t % 2 ? "\"" : "'");
                    tb_puts(b, tt->value);
                    tb_puts(b, t % 2 ? "\"" : "'");
                }
            }
            tb_puts(b, "]");
        }
    }
}

/* The expected output of paths[0]|paths[1]|... (with "PATH:" prefixes), or
 * of records with columns. */
/* A match's value: its string value, or with xml its XML. */
static void node_value(tbuf *out, const tnode *n, int xml) {
    if (!xml) {
        string_value(out, n);
    } else if (n->type == T_ELEM) {
        xml_value(out, n, 1);
    } else if (n->type == T_ATTR) {
        tb_puts(out, n->name);
        tb_puts(out, "=\"");
        xml_escape(out, n->value, strlen(n->value), 1);
        tb_puts(out, "\"");
    } else {
        xml_escape(out, n->value, strlen(n->value), 0);
    }
}

#define T_ALTS 3 /* paths of a column's union at most */

/* Set: every match of a column, joined by ";" (STAX_SELECT_ALL_MATCHES). */
static int col_join;

static char *expected(tnode *root, const tpath *paths, int npaths, tpath (*cols)[T_ALTS], const int *nalts, int ncols,
                      int xml) {
    tset all = {0};
    for (int p = 0; p < npaths; p++) {
        tset s = eval_path(root, &paths[p]);
        for (size_t k = 0; k < s.n; k++) ts_add(&all, s.v[k]);
        free(s.v);
    }
    if (all.n) qsort(all.v, all.n, sizeof *all.v, by_order);
    tbuf out = {0};
    tb_put(&out, "", 0);
    for (size_t k = 0; k < all.n; k++) {
        tnode *n = all.v[k];
        int first = -1;
        for (int p = 0; p < npaths && first < 0; p++) {
            tset s = eval_path(root, &paths[p]);
            for (size_t j = 0; j < s.n; j++)
                if (s.v[j] == n) first = p;
            free(s.v);
        }
        char tmp[16];
        snprintf(tmp, sizeof tmp, "%d:", first);
        tb_puts(&out, tmp);
        for (int c = 0; c < ncols; c++) {
            if (c) tb_puts(&out, "|");
            tset s = {0}; /* the union of the column's paths, in document order: the first */
            for (int a = 0; a < nalts[c]; a++) {
                tset one = cols[c][a].n ? eval_path(n, &cols[c][a]) : (tset){0};
                if (!cols[c][a].n) ts_add(&one, n);
                for (size_t j = 0; j < one.n; j++) ts_add(&s, one.v[j]);
                free(one.v);
            }
            if (s.n) qsort(s.v, s.n, sizeof *s.v, by_order);
            for (size_t j = 0; j < s.n && (j == 0 || col_join); j++) {
                if (j) tb_puts(&out, ";");
                node_value(&out, s.v[j], xml);
            }
            free(s.v);
        }
        if (!ncols) node_value(&out, n, xml);
        tb_puts(&out, "\n");
    }
    free(all.v);
    return out.p;
}

/* ================================================================ random documents and paths */

static uint32_t rnd_state;
static uint32_t rnd(uint32_t n) {
    uint32_t x = rnd_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rnd_state = x;
    return x % n;
}

static const char *const names[] = {"a", "b", "c"};
static const char *const anames[] = {"x", "y"};
static const char *const values[] = {"1", "2"};

static void gen_text(tbuf *b) {
    static const char *const bits[] = {"t", "u v", "&amp;", "&lt;", ">", "\"", "'", "\n", "&#13;", "\t", "é", "&#x10000;"};
    int n = 1 + (int)rnd(3);
    for (int k = 0; k < n; k++) tb_puts(b, bits[rnd(sizeof bits / sizeof bits[0])]);
}

static void gen_elem(tbuf *b, int depth) {
    const char *name = names[rnd(3)];
    tb_puts(b, "<");
    tb_puts(b, name);
    for (int k = 0; k < 2; k++) {
        if (rnd(3)) continue;
        tb_puts(b, " ");
        tb_puts(b, anames[k]);
        tb_puts(b, "='");
        tb_puts(b, rnd(4) ? values[rnd(2)] : "&lt;1&amp;\t");
        tb_puts(b, "'");
    }
    int kids = depth >= 5 ? 0 : (int)rnd(5);
    if (!kids && rnd(2)) {
        tb_puts(b, "/>");
        return;
    }
    tb_puts(b, ">");
    for (int k = 0; k < kids; k++) {
        switch (rnd(8)) {
        case 0:
        case 1: gen_text(b); break;
        case 2: tb_puts(b, rnd(2) ? "<!--c-->" : "<?p d?>"); break;
        case 3: tb_puts(b, rnd(3) ? "<![CDATA[<&]]>" : "<![CDATA[]]>"); break;
        default: gen_elem(b, depth + 1); break;
        }
    }
    tb_puts(b, "</");
    tb_puts(b, name);
    tb_puts(b, ">");
}

static char *gen_doc(void) {
    tbuf b = {0};
    tb_puts(&b, "<r>");
    int n = 1 + (int)rnd(4);
    for (int k = 0; k < n; k++) gen_elem(&b, 1);
    tb_puts(&b, "</r>");
    return b.p;
}

static void gen_pred(tpred *p) {
    memset(p, 0, sizeof *p);
    if (rnd(3) == 0) {
        p->pos = 1 + (int)rnd(3);
        return;
    }
    p->ntests = 1 + (int)rnd(2);
    for (int t = 0; t < p->ntests; t++) {
        p->tests[t].name = rnd(5) ? anames[rnd(2)] : NULL;
        p->tests[t].op = (int)rnd(3);
        p->tests[t].value = values[rnd(2)];
    }
}

/* Set: one column in two is '@name' or '@*' alone (the record's own
 * attribute, which select fills at the record's START). */
static int own_bias;

/* Set: a column is a union of 1 to T_ALTS paths. */
static int col_unions;



/* A path of 1..4 steps; the last may be @name, @* or text(). */
static void gen_path(tpath *p, int column) {
    memset(p, 0, sizeof *p);
    if (column && own_bias && rnd(2)) {
        p->n = 1;
        p->steps[0].type = T_ATTR;
        p->steps[0].name = rnd(4) ? anames[rnd(2)] : NULL;
        return;
    }
    p->n = 1 + (int)rnd(4);
    p->dot = column && rnd(3) == 0;
    for (int k = 0; k < p->n; k++) {
        tstep *st = &p->steps[k];
        st->desc = (k > 0 || !column || p->dot) && rnd(2);
        st->type = T_ELEM;
        st->name = rnd(5) ? names[rnd(3)] : NULL;
        if (k == p->n - 1 && rnd(3) == 0) {
            st->type = rnd(2) ? T_ATTR : T_TEXT;
            st->name = st->type == T_ATTR && rnd(4) ? anames[rnd(2)] : NULL;
            continue;
        }
        st->npreds = rnd(3) == 0 ? 1 + (int)rnd(2) : 0;
        for (int q = 0; q < st->npreds; q++) gen_pred(&st->preds[q]);
    }
    if (column && p->dot && rnd(4) == 0) p->n = 0; /* '.' alone */
}

static void compare_random(uint32_t seed, int ncases, int xml, int columns) {
    rnd_state = seed;
    for (int c = 0; c < ncases; c++) {
        char *doc = gen_doc();
        tnode *root = tree_of(doc);
        for (int q = 0; q < 6; q++) {
            tpath paths[3], cols[3][T_ALTS];
            int np = 1 + (int)rnd(3), nc = columns ? 1 + (int)rnd(3) : 0, nalts[3];
            tbuf text = {0}, ctext = {0};
            tb_put(&text, "", 0);
            tb_put(&ctext, "", 0);
            for (int p = 0; p < np; p++) {
                gen_path(&paths[p], 0);
                if (columns) { /* records are elements */
                    tstep *last = &paths[p].steps[paths[p].n - 1];
                    last->type = T_ELEM;
                    if (!last->name && rnd(2)) last->name = names[rnd(3)];
                }
                if (p) tb_puts(&text, rnd(2) ? "|" : " | ");
                path_text(&text, &paths[p], 0);
            }
            for (int k = 0; k < nc; k++) {
                nalts[k] = col_unions ? 1 + (int)rnd(T_ALTS) : 1;
                if (k) tb_puts(&ctext, ",");
                for (int a = 0; a < nalts[k]; a++) {
                    gen_path(&cols[k][a], 1);
                    if (a) tb_puts(&ctext, rnd(2) ? "|" : " | ");
                    path_text(&ctext, &cols[k][a], 1);
                }
            }
            char *want = expected(root, paths, np, cols, nalts, nc, xml);
            stax_select_options so;
            memset(&so, 0, sizeof so);
            so.flags = (xml ? STAX_SELECT_XML : 0) | (col_join ? STAX_SELECT_ALL_MATCHES : 0);
            so.join = stax_strz(";");
            /* every chunk size for some cases, two for the others (time) */
            for (size_t k = 0; k < stax_test_chunk_count; k++) {
                if (q % 3 && k != 0 && k != (size_t)(c + q) % stax_test_chunk_count) continue;
                sel_run r = run_select(doc, stax_test_chunk_sizes[k], NULL, &so, text.p, ctext.p, 1, 0);
                cr_assert_eq(r.status, STAX_OK, "%s [%s]: %s", text.p, ctext.p, r.msg);
                cr_assert_str_eq(r.out, want, "seed %u case %d\ndocument: %s\npath: %s\ncolumns: %s\nchunk %zu\ngot:\n%s\nwant:\n%s",
                                 seed, c, doc, text.p, ctext.p, stax_test_chunk_sizes[k], r.out, want);
                free(r.out);
            }
            free(want);
            free(text.p);
            free(ctext.p);
        }
        tree_free(root);
        free(doc);
    }
}

Test(select, random_paths_agree_with_the_tree_walker) { compare_random(12345, 400, 0, 0); }
Test(select, random_xml_values_agree_with_the_tree_walker) { compare_random(777, 150, 1, 0); }
Test(select, random_records_agree_with_the_tree_walker) { compare_random(4242, 200, 0, 1); }
Test(select, random_records_of_attributes_agree_with_the_tree_walker) {
    own_bias = 1;
    compare_random(9191, 200, 0, 1);
    compare_random(9192, 60, 1, 1);
    own_bias = 0;
}
Test(select, random_records_with_every_match_agree_with_the_tree_walker) {
    col_join = col_unions = 1;
    compare_random(6161, 150, 0, 1);
    compare_random(6162, 40, 1, 1);
    own_bias = 1;
    compare_random(6163, 100, 0, 1);
    col_join = col_unions = own_bias = 0;
}
Test(select, random_records_with_union_columns_agree_with_the_tree_walker) {
    col_unions = own_bias = 1;
    compare_random(5151, 150, 0, 1);
    compare_random(5152, 40, 1, 1);
    col_unions = own_bias = 0;
}
