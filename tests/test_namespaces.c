/* Namespaces 1.0 (STAX_READ_NAMESPACES): prefixes resolved for elements and
 * attributes, scoping and undeclaring, the namespace constraints, the lookup
 * call and the max_ns limit. Each document is checked at every chunk size of
 * the harness (expectations hand-written). */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static stax_reader_options ns_opt(void) {
    stax_reader_options o = {0};
    o.flags = STAX_READ_NAMESPACES;
    return o;
}

/* A dump of the namespace view: one line per START/END, "{uri}local" with
 * the prefix, then each attribute as " {uri}local(prefix)=value". */
static char *ns_dump(const char *doc, size_t len, size_t chunk, int *status) {
    stax_reader_options o = ns_opt();
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    size_t cap = 4096, n = 0, off = 0;
    char *out = malloc(cap);
    cr_assert_not_null(out);
    out[0] = '\0';
    const stax_batch *b;
    int st = STAX_NEED_INPUT;
    for (;;) {
        if (off < len) {
            size_t l = chunk && len - off > chunk ? chunk : len - off;
            cr_assert_eq(stax_reader_feed(r, doc + off, l), STAX_OK);
            off += l;
        } else {
            cr_assert_eq(stax_reader_end(r), STAX_OK);
        }
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {
            for (size_t i = 0; i < b->count; i++) {
                int t = stax_ev_type(b, i);
                if (t != STAX_EV_START && t != STAX_EV_END) continue;
                stax_qname q = stax_ev_qname(b, i);
                char line[16384];
                int w = snprintf(line, sizeof line, "%s {%.*s}%.*s(%.*s)", t == STAX_EV_START ? "START" : "END",
                                 (int)q.uri.len, q.uri.ptr, (int)q.local.len, q.local.ptr, (int)q.prefix.len,
                                 q.prefix.ptr);
                for (size_t k = 0; t == STAX_EV_START && k < stax_ev_attr_count(b, i); k++) {
                    stax_qname a = stax_ev_attr_qname(b, i, k);
                    stax_str v = stax_ev_attr_value(b, i, k);
                    w += snprintf(line + w, sizeof line - (size_t)w, " {%.*s}%.*s(%.*s)=%.*s", (int)a.uri.len, a.uri.ptr,
                                  (int)a.local.len, a.local.ptr, (int)a.prefix.len, a.prefix.ptr, (int)v.len, v.ptr);
                    cr_assert((size_t)w < sizeof line, "a start tag too long for the dump line");
                }
                size_t ll = strlen(line);
                if (n + ll + 2 > cap) {
                    cap = 2 * (n + ll + 2);
                    out = realloc(out, cap);
                    cr_assert_not_null(out);
                }
                memcpy(out + n, line, ll);
                n += ll;
                out[n++] = '\n';
                out[n] = '\0';
            }
        }
        if (st != STAX_NEED_INPUT || off >= len) {
            if (st == STAX_NEED_INPUT) continue; /* end() comes next round */
            break;
        }
    }
    *status = st;
    stax_reader_free(r);
    return out;
}

/* Same view at every chunk size; returns the whole-document dump. */
static void expect_ns(const char *doc, const char *want) {
    size_t len = strlen(doc);
    for (size_t c = 0; c < stax_test_chunk_count; c++) {
        int st;
        char *d = ns_dump(doc, len, stax_test_chunk_sizes[c], &st);
        cr_assert_eq(st, STAX_END, "chunk %zu: status %d", stax_test_chunk_sizes[c], st);
        cr_assert_str_eq(d, want, "chunk %zu:\n%s", stax_test_chunk_sizes[c], d);
        free(d);
    }
}

static void expect_ns_error(const char *doc, const char *want) {
    stax_reader_options o = ns_opt();
    stax_test_expect_status(doc, strlen(doc), &o, want);
}

Test(namespaces, default_prefixed_scoping_and_undeclaring) {
    expect_ns("<a xmlns='u:d' xmlns:p='u:p'><p:b p:x='1' y='2'><c xmlns=''/></p:b><e/></a>",
              "START {u:d}a() {http://www.w3.org/2000/xmlns/}xmlns()=u:d {http://www.w3.org/2000/xmlns/}p(xmlns)=u:p\n"
              "START {u:p}b(p) {u:p}x(p)=1 {}y()=2\n"
              "START {}c() {http://www.w3.org/2000/xmlns/}xmlns()=\n"
              "END {}c()\n"
              "END {u:p}b(p)\n"
              "START {u:d}e()\n"
              "END {u:d}e()\n"
              "END {u:d}a()\n");
}

Test(namespaces, inner_declaration_shadows_and_ends_with_element) {
    expect_ns("<p:a xmlns:p='u:1'><p:b xmlns:p='u:2'/><p:c/></p:a>",
              "START {u:1}a(p) {http://www.w3.org/2000/xmlns/}p(xmlns)=u:1\n"
              "START {u:2}b(p) {http://www.w3.org/2000/xmlns/}p(xmlns)=u:2\n"
              "END {u:2}b(p)\n"
              "START {u:1}c(p)\n"
              "END {u:1}c(p)\n"
              "END {u:1}a(p)\n");
}

Test(namespaces, xml_prefix_is_predeclared) {
    expect_ns("<a xml:lang='en'/>",
              "START {}a() {http://www.w3.org/XML/1998/namespace}lang(xml)=en\nEND {}a()\n");
}

Test(namespaces, declaration_from_dtd_default) {
    expect_ns("<!DOCTYPE p:a [<!ATTLIST p:a xmlns:p CDATA 'u:dtd'>]><p:a/>",
              "START {u:dtd}a(p) {http://www.w3.org/2000/xmlns/}p(xmlns)=u:dtd\nEND {u:dtd}a(p)\n");
}

/* Read doc whole with batch_events be; at each START named `at` (any START
 * when NULL) call check(r), which sees the reader as it stands after that
 * event's batch. The run must end with want_status and check must run. */
static void lookups_at_start(const char *doc, size_t len, uint32_t be, const char *at, void (*check)(stax_reader *r),
                             int want_status) {
    stax_reader_options o = ns_opt();
    o.batch_events = be;
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, doc, len);
    int checked = 0;
    while (stax_test_cursor_next(&c)) {
        if (stax_ev_type(c.b, c.i) != STAX_EV_START || (at && !stax_str_eq(stax_ev_name(c.b, c.i), at))) continue;
        check(r);
        checked = 1;
    }
    cr_assert_eq(c.status, want_status);
    cr_assert(checked);
    stax_reader_free(r);
}

static void check_in_scope(stax_reader *r) {
    stax_str uri, p = {"p", 1}, none = {"", 0}, q = {"q", 1};
    cr_assert_eq(stax_reader_ns_lookup(r, p, &uri), 0);
    cr_assert(stax_str_eq(uri, "u:p"));
    cr_assert_eq(stax_reader_ns_lookup(r, none, &uri), 0);
    cr_assert(stax_str_eq(uri, "u:d"));
    cr_assert_eq(stax_reader_ns_lookup(r, q, &uri), -1);
}

Test(namespaces, lookup_in_scope) {
    /* lookup answers for the reader's state after the whole current batch:
     * batch_events 2 ends the first batch right after START a (<b/> needs two) */
    lookups_at_start(STAX_DOC("<a xmlns='u:d' xmlns:p='u:p'><b/></a>"), 2, "a", check_in_scope, STAX_END);
}

static void check_a_is_urn_a(stax_reader *r) {
    stax_str uri, a = {"a", 1};
    cr_assert_eq(stax_reader_ns_lookup(r, a, &uri), 0);
    cr_assert(stax_str_eq(uri, "urn:a"), "a is bound to %.*s", (int)uri.len, uri.ptr);
}

Test(namespaces, refused_tag_leaves_no_binding_in_scope) {
    /* <b> declares a again, then uses an unbound prefix: it is refused, and
     * lookups made before the error is returned still see a = urn:a (the
     * declarations of <b> were left in scope; found by fuzz_reader) */
    lookups_at_start(STAX_DOC("<a:r xmlns:a='urn:a' xmlns='urn:d' a:x='1'><b xmlns:a='urn:c' c:y='2'></b></a:r>"), 5, NULL,
                     check_a_is_urn_a, STAX_E_NAMESPACE);
}

Test(namespaces, off_by_default_colons_are_plain_names) {
    stax_test_expect_events(STAX_DOC("<p:a q:x='1'/>"), NULL, 0, "START p:a q:x=\"1\" /\nEND p:a\nEND-OF-DOCUMENT\n");
}

/* ================================================================ constraints */

Test(namespaces, unbound_prefixes) {
    expect_ns_error("<a>\n<p:b/></a>", "ERROR NAMESPACE @2:2:5");
    expect_ns_error("<a\n p:x='1'/>", "ERROR NAMESPACE @2:2:4");
}

Test(namespaces, reserved_prefixes_and_names) {
    expect_ns_error("<a xmlns:xml='u:x'/>", "ERROR NAMESPACE @1:4:3");
    expect_ns_error("<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>", "ERROR NAMESPACE @1:4:3");
    expect_ns_error("<a xmlns:xmlns='u:x'/>", "ERROR NAMESPACE @1:4:3");
    expect_ns_error("<a xmlns='http://www.w3.org/2000/xmlns/'/>", "ERROR NAMESPACE @1:4:3");
    expect_ns_error("<xmlns:a/>", "ERROR NAMESPACE @1:2:1");
}

Test(namespaces, empty_prefixed_namespace_name) {
    expect_ns_error("<a xmlns:p=''/>", "ERROR NAMESPACE @1:4:3");
}

Test(namespaces, qnames_must_be_ncname_pairs) {
    expect_ns_error("<a:b:c xmlns:a='u'/>", "ERROR NAMESPACE @1:2:1");
    expect_ns_error("<:a/>", "ERROR NAMESPACE @1:2:1");
    expect_ns_error("<a b:='1'/>", "ERROR NAMESPACE @1:4:3");
}

Test(namespaces, same_expanded_attribute_name) {
    expect_ns_error("<a xmlns:p='u' xmlns:q='u'>\n<b p:x='1' q:x='2'/></a>", "ERROR NAMESPACE @2:12:39");
}

Test(namespaces, colons_in_pi_targets_and_entity_names) {
    expect_ns_error("<a><?p:i x?></a>", "ERROR NAMESPACE @1:6:5");
    expect_ns_error("<!DOCTYPE a [<!ENTITY e:f 'x'>]><a/>", "ERROR NAMESPACE @1:23:22");
}

Test(namespaces, max_ns_limit) {
    stax_reader_options o = ns_opt();
    o.max_ns = 2;
    stax_test_expect_status(STAX_DOC("<a xmlns:a='1' xmlns:b='2' xmlns:c='3'/>"), &o, "ERROR LIMIT_NS @1:28:27");
    /* within the limit */
    char *d = stax_test_events_all(STAX_DOC("<a xmlns:a='1' xmlns:b='2'/>"), &o, 0);
    cr_assert_str_eq(stax_test_last_line(d), "END-OF-DOCUMENT");
    free(d);
}

Test(namespaces, deep_scopes_keep_memory_bounded) {
    /* 500 nested elements, each declaring a prefix: bindings are dropped as
     * elements end, so a second pass of the same depth reuses the memory */
    size_t depth = 500, len = 0;
    char *doc = malloc(depth * 40 * 2 + 64);
    cr_assert_not_null(doc);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < depth; i++) len += (size_t)sprintf(doc + len, "<p:e xmlns:p='u:%zu'>", i);
        for (size_t i = 0; i < depth; i++) len += (size_t)sprintf(doc + len, "</p:e>");
        if (pass == 0) {
            memmove(doc + 3, doc, len);
            memcpy(doc, "<r>", 3);
            len += 3;
        }
    }
    len += (size_t)sprintf(doc + len, "</r>");
    stax_reader_options o = ns_opt();
    char *d = stax_test_events_all(doc, len, &o, 0);
    cr_assert_str_eq(stax_test_last_line(d), "END-OF-DOCUMENT");
    free(d);
    free(doc);
}

/* A growable string for the generated documents below. */
typedef struct {
    char *p;
    size_t n, cap;
} ns_buf;

static void nb_add(ns_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void nb_add(ns_buf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        cr_assert(w >= 0);
        if ((size_t)w < b->cap - b->n) {
            b->n += (size_t)w;
            return;
        }
        b->cap = 2 * (b->cap + (size_t)w + 1);
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
}

Test(namespaces, many_bindings_resolve_as_a_stack_per_prefix) {
    /* Random documents where dozens of bindings are in scope (past the few a
     * lookup walks one by one, so prefixes are found through the hash
     * buckets): each element declares some of 40 prefixes and sometimes the
     * default namespace, shadowing outer declarations, and uses prefixes that
     * are bound. The expected view comes from a model that keeps one stack of
     * URIs per prefix. After 48 elements a document only closes (it is read
     * at every chunk size, one byte at a time too). */
    enum { NP = 40, MAXD = 14 };
    unsigned long long x = 0x9E3779B97F4A7C15ull;
#define NEXT() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
    for (int round = 0; round < 12; round++) {
        char uris[NP + 1][MAXD + 1][40]; /* [prefix or NP for the default][depth] */
        int top[NP + 1];                 /* depth of the innermost binding, -1 none */
        int declared[MAXD + 1][NP + 1];  /* what each open element declared */
        for (int p = 0; p <= NP; p++) top[p] = -1;
        ns_buf doc = {0}, want = {0};
        int depth = 0, elems = 0;
        const char *stack_prefix[MAXD + 1];
        char stack_uri[MAXD + 1][40];
        char names[MAXD + 1][32];
        (void)stack_prefix;
        do {
            int close = depth > 0 && (depth == MAXD || elems >= 48 || NEXT() % 3 == 0);
            if (close) {
                depth--;
                nb_add(&doc, "</%s>", names[depth]);
                const char *colon = strchr(names[depth], ':');
                nb_add(&want, "END {%s}%s(%.*s)\n", stack_uri[depth], colon ? colon + 1 : names[depth],
                       colon ? (int)(colon - names[depth]) : 0, names[depth]);
                for (int p = 0; p <= NP; p++) {
                    if (!declared[depth][p]) continue;
                    /* back to the enclosing binding of p */
                    int d = top[p] - 1;
                    while (d >= 0 && uris[p][d][0] == '\0') d--;
                    top[p] = d;
                }
                continue;
            }
            /* declarations of the new element */
            ns_buf decl = {0}, decl_want = {0};
            nb_add(&decl, "%s", "");
            nb_add(&decl_want, "%s", "");
            for (int p = 0; p <= NP; p++) {
                declared[depth][p] = 0;
                uris[p][depth][0] = '\0';
                if (NEXT() % 4) continue;
                declared[depth][p] = 1;
                snprintf(uris[p][depth], sizeof uris[p][depth], "u:%d:%d:%d", round, elems, p);
                top[p] = depth;
                if (p == NP) {
                    nb_add(&decl, " xmlns='%s'", uris[p][depth]);
                    nb_add(&decl_want, " {http://www.w3.org/2000/xmlns/}xmlns()=%s", uris[p][depth]);
                } else {
                    nb_add(&decl, " xmlns:p%d='%s'", p, uris[p][depth]);
                    nb_add(&decl_want, " {http://www.w3.org/2000/xmlns/}p%d(xmlns)=%s", p, uris[p][depth]);
                }
            }
            /* the element's name: a bound prefix, or none (the default namespace) */
            int ep = (int)(NEXT() % (NP + 1));
            if (ep < NP && top[ep] < 0) ep = NP;
            if (ep == NP) {
                snprintf(names[depth], sizeof names[depth], "e%d", elems);
                snprintf(stack_uri[depth], sizeof stack_uri[depth], "%s", top[NP] >= 0 ? uris[NP][top[NP]] : "");
            } else {
                snprintf(names[depth], sizeof names[depth], "p%d:e%d", ep, elems);
                snprintf(stack_uri[depth], sizeof stack_uri[depth], "%s", uris[ep][top[ep]]);
            }
            nb_add(&doc, "<%s%s", names[depth], decl.p);
            const char *colon = strchr(names[depth], ':');
            nb_add(&want, "START {%s}%s(%.*s)%s", stack_uri[depth], colon ? colon + 1 : names[depth],
                   colon ? (int)(colon - names[depth]) : 0, names[depth], decl_want.p);
            /* attributes with distinct local names, prefixed by bound prefixes */
            int na = (int)(NEXT() % 6);
            for (int k = 0; k < na; k++) {
                int ap = (int)(NEXT() % NP);
                if (top[ap] < 0 || NEXT() % 4 == 0) {
                    nb_add(&doc, " a%d='%d'", k, k);
                    nb_add(&want, " {}a%d()=%d", k, k);
                } else {
                    nb_add(&doc, " p%d:a%d='%d'", ap, k, k);
                    nb_add(&want, " {%s}a%d(p%d)=%d", uris[ap][top[ap]], k, ap, k);
                }
            }
            nb_add(&doc, ">");
            nb_add(&want, "\n");
            free(decl.p);
            free(decl_want.p);
            depth++;
            elems++;
        } while (depth > 0);
        expect_ns(doc.p, want.p);
        free(doc.p);
        free(want.p);
    }
#undef NEXT
}

Test(namespaces, prefix_lookup_does_not_walk_every_binding, .timeout = 20) {
    /* 65,409 bindings in scope (1022 levels of 64 declarations, near the default
     * limits), then 1200 tags of 255 attributes whose prefix is bound at the
     * root: walking the bindings for each name would take some 20 billion
     * prefix comparisons (over a minute); through the hash buckets it is 307,000
     * lookups. The test fails by timing out. */
    ns_buf doc = {0};
    nb_add(&doc, "<r xmlns:t='urn:t'>");
    for (int d = 0; d < 1022; d++) {
        nb_add(&doc, "<e");
        for (int k = 0; k < 64; k++) nb_add(&doc, " xmlns:p%d_%d='u'", d, k);
        nb_add(&doc, ">");
    }
    for (int i = 0; i < 1200; i++) {
        nb_add(&doc, "<t:x");
        for (int k = 0; k < 255; k++) nb_add(&doc, " t:a%d='v'", k);
        nb_add(&doc, "/>");
    }
    for (int d = 0; d < 1022; d++) nb_add(&doc, "</e>");
    nb_add(&doc, "</r>");
    stax_reader_options o = ns_opt();
    o.max_ns_bytes = (size_t)16 << 20; /* 65,409 bindings in scope: about 3.4 MB */
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    cr_assert_eq(stax_reader_feed(r, doc.p, doc.n), STAX_OK);
    const stax_batch *b;
    int st, ended = 0;
    size_t tx = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK || (st == STAX_NEED_INPUT && !ended)) {
        if (st == STAX_NEED_INPUT) {
            cr_assert_eq(stax_reader_end(r), STAX_OK);
            ended = 1;
            continue;
        }
        for (size_t i = 0; i < b->count; i++) {
            if (stax_ev_type(b, i) != STAX_EV_START) continue;
            stax_qname q = stax_ev_qname(b, i);
            if (q.local.len == 1 && q.local.ptr[0] == 'x') {
                cr_assert(q.uri.len == 5 && memcmp(q.uri.ptr, "urn:t", 5) == 0);
                stax_qname a = stax_ev_attr_qname(b, i, 254);
                cr_assert(a.uri.len == 5 && memcmp(a.uri.ptr, "urn:t", 5) == 0);
                tx++;
            }
        }
    }
    cr_assert_eq(st, STAX_END);
    cr_assert_eq(tx, 1200);
    stax_reader_free(r);
    free(doc.p);
}

/* Namespaces 1.0 section 5 writes the DOCTYPE's name, element types and
 * attribute names in the DTD as QNames: at most one colon, not at either
 * end (without namespaces these names are plain Names, and all of this is
 * well-formed). */
Test(namespaces, dtd_names_are_qnames) {
    expect_ns_error("<!DOCTYPE a:b:c><a/>", "ERROR NAMESPACE @1:11:10");
    expect_ns_error("<!DOCTYPE a [<!ELEMENT x:y:z EMPTY>]><a/>", "ERROR NAMESPACE @1:24:23");
    expect_ns_error("<!DOCTYPE a [<!ATTLIST :q r CDATA #IMPLIED>]><a/>", "ERROR NAMESPACE @1:24:23");
    expect_ns_error("<!DOCTYPE a [<!ATTLIST q: r CDATA #IMPLIED>]><a/>", "ERROR NAMESPACE @1:24:23");
    expect_ns_error("<!DOCTYPE a [<!ATTLIST q r:s:t CDATA #IMPLIED>]><a/>", "ERROR NAMESPACE @1:26:25");
    expect_ns_error("<!DOCTYPE a:b:c [<!ELEMENT x:y:z EMPTY><!ATTLIST :q r:s:t CDATA #IMPLIED>]><a/>",
                    "ERROR NAMESPACE @1:11:10");
    static const char ok[] = "<!DOCTYPE a:b [<!ELEMENT x:y EMPTY><!ATTLIST p:q r:s CDATA #IMPLIED>]><a:b xmlns:a='u'/>";
    stax_reader_options o = ns_opt();
    stax_test_expect_status(STAX_DOC(ok), &o, "END-OF-DOCUMENT");
    static const char plain[] = "<!DOCTYPE a:b:c [<!ELEMENT x:y:z EMPTY><!ATTLIST :q r:s:t CDATA #IMPLIED>]><a/>";
    stax_test_expect_status(STAX_DOC(plain), NULL, "END-OF-DOCUMENT");
}
