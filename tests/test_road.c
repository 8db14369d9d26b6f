/* The road (reader_fast.c): documents with namespaces on and with ATTLISTs
 * in the DTD are read by the fast path's road, the general way taking what
 * it declines. Each document is read at every chunk size of the harness
 * (a feed of one byte is read the general way: no token is whole in it)
 * with positions, messages and each name's namespace parts in the dump
 * (STAX_DUMP_NS), and every size must give the same; with small batches
 * and arenas too, where the road stops, declines and starts again. A few
 * expectations are written out by hand, so that a wrong name the two ways
 * would share is caught as well. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DUMP (STAX_DUMP_POS | STAX_DUMP_MESSAGE | STAX_DUMP_NS)

/* doc read at every chunk size, with namespaces (ns) and each option set
 * below, the same each time; the dump of the default options returned. */
static char *road_all(const char *doc, int ns) {
    size_t len = strlen(doc);
    stax_reader_options o = {0};
    o.flags = ns ? STAX_READ_NAMESPACES : 0;
    char *first = stax_test_events_all(doc, len, &o, DUMP);
    static const size_t batches[] = {2, 3, 5, 17};
    for (size_t k = 0; k < sizeof batches / sizeof batches[0]; k++) {
        stax_reader_options b = o;
        b.batch_events = batches[k];
        char *d = stax_test_events_all(doc, len, &b, DUMP);
        cr_assert_str_eq(d, first, "batch_events %zu gives:\n%s\nbut the default gives:\n%s", batches[k], d, first);
        free(d);
    }
    return first;
}

static void road_same(const char *doc, int ns) { free(road_all(doc, ns)); }

static void road_expect(const char *doc, int ns, const char *want) {
    char *d = road_all(doc, ns);
    cr_assert_str_eq(d, want, "got:\n%s\nwanted:\n%s", d, want);
    free(d);
}

/* ================================================================ namespaces */

Test(road, names_resolved_as_written) {
    road_expect("<r xmlns='urn:d' xmlns:p='urn:p'><p:a p:x='1' y='2'>t</p:a><b/></r>", 1,
                "START r xmlns=\"urn:d\" xmlns:p=\"urn:p\" {urn:d}:r {http://www.w3.org/2000/xmlns/}:xmlns "
                "{http://www.w3.org/2000/xmlns/}xmlns:p @1:1:0\n"
                "START p:a p:x=\"1\" y=\"2\" {urn:p}p:a {urn:p}p:x {}:y @1:34:33\n"
                "TEXT \"t\" @1:53:52\n"
                "END p:a {urn:p}p:a @1:54:53\n"
                "START b / {urn:d}:b @1:60:59\n"
                "END b {urn:d}:b @1:60:59\n"
                "END r {urn:d}:r @1:64:63\n"
                "END-OF-DOCUMENT\n");
}

Test(road, scoping) {
    road_same("<r xmlns='urn:d'>\n  <a xmlns=''>\n    <b>x</b>\n  </a>\n  <c xmlns='urn:c'><d/><e>y</e></c>\n  <f/>\n</r>", 1);
    road_same("<p:r xmlns:p='urn:1'><p:a xmlns:p='urn:2'><p:b>1</p:b></p:a><p:c>2</p:c></p:r>", 1);
    road_same("<r xmlns:a='urn:a'><a:e xmlns:b='urn:b' b:x='1' a:y='2' xml:lang='en' xmlns='urn:d'/><a:e/></r>", 1);
    road_same("<r xmlns:abcdefghijklmnopq='urn:long'><abcdefghijklmnopq:element_name_longer_than_16>t"
              "</abcdefghijklmnopq:element_name_longer_than_16></r>", 1);
}

/* head, then fmt printed count times (given i three times), then tail. */
static char *road_doc(const char *head, const char *fmt, int count, const char *tail) {
    size_t cap = 1 << 16, n = 0;
    char *doc = malloc(cap);
    cr_assert_not_null(doc);
    n += (size_t)snprintf(doc + n, cap - n, "%s", head);
    for (int i = 0; i < count; i++) n += (size_t)snprintf(doc + n, cap - n, fmt, i, i, i);
    cr_assert_lt(n + strlen(tail), cap);
    snprintf(doc + n, cap - n, "%s", tail);
    return doc;
}

Test(road, many_elements_across_batches) {
    char *doc = road_doc("<data xmlns='urn:d' xmlns:o='urn:o'>\n",
                         "  <o:row id='%d'>\n    <name>n%d</name>\n    <o:v>%d</o:v>\n  </o:row>\n"
                         "  <row xmlns='urn:x%d' xmlns:q='urn:q'><q:a q:b='1'>%d</q:a><c/></row>\n",
                         150, "</data>\n");
    road_same(doc, 1);
    free(doc);
}

/* Each of these the namespace rules refuse: the road declines, and the
 * general way reports the error, at the same place at every chunk size. */
Test(road, namespace_errors_reported_alike) {
    static const char *const docs[] = {
        "<r><p:a/></r>",
        "<r><a p:x='1'/></r>",
        "<r xmlns:p='urn:p' xmlns:q='urn:p'><a p:x='1' q:x='2'/></r>",
        "<r><a xmlns:xml='urn:wrong'/></r>",
        "<r><a xmlns:xmlns='urn:x'/></r>",
        "<r><a xmlns:p=''/></r>",
        "<r><a:b:c xmlns:a='urn:a'/></r>",
        "<r><:x/></r>",
        "<r xmlns:x='urn:x'><x:>t</x:></r>",
        "<r><xmlns:a/></r>",
        "<r><a xmlns='http://www.w3.org/XML/1998/namespace'/></r>",
        "<r><a xmlns:p='http://www.w3.org/2000/xmlns/'/></r>",
        "<r xmlns:p='urn:p'><a><p:b>t</p:b></a><q:c>t</q:c></r>",
    };
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        char *d = road_all(docs[k], 1);
        cr_assert(strstr(d, "ERROR") || strstr(d, "E_"), "document %zu was not refused:\n%s", k, d);
        free(d);
    }
}

/* Bindings over max_ns_bytes in a batch that holds events: the general way
 * makes room between batches; the outcome is the same. */
Test(road, bindings_reclaimed_between_batches) {
    char *doc = road_doc("<r>", "<p:e xmlns:p='urn:a-rather-long-uri-%d'>%d</p:e><!--%d-->", 200, "</r>");
    stax_reader_options o = {0};
    o.flags = STAX_READ_NAMESPACES;
    o.max_ns_bytes = 256;
    char *first = stax_test_events_all(doc, strlen(doc), &o, DUMP);
    cr_assert(strstr(first, "END-OF-DOCUMENT"), "%s", first);
    o.batch_events = 3;
    char *d = stax_test_events_all(doc, strlen(doc), &o, DUMP);
    cr_assert_str_eq(d, first);
    free(d);
    free(first);
    free(doc);
}

/* A tag the road declines after it bound a prefix (xml bound to its own
 * name is the general way's): the binding is dropped, not kept twice, so
 * that a budget of one binding holds at every chunk size. */
Test(road, declined_tag_keeps_no_binding) {
    stax_reader_options o = {0};
    o.flags = STAX_READ_NAMESPACES;
    o.max_ns_bytes = 64; /* one binding: "p", "urn:p" and its record */
    const char *doc = "<r><a xmlns:p='urn:p' xmlns:xml='http://www.w3.org/XML/1998/namespace'><p:b>t</p:b></a></r>";
    char *d = stax_test_events_all(doc, strlen(doc), &o, DUMP);
    cr_assert(strstr(d, "END-OF-DOCUMENT"), "%s", d);
    free(d);
}

/* ================================================================ ATTLIST */

Test(road, attlist_for_other_elements) {
    road_same("<!DOCTYPE r [<!ATTLIST absent a CDATA #IMPLIED>]><r><a x='1'>t</a><bb>u</bb></r>", 0);
    road_same("<!DOCTYPE r [<!ATTLIST b t NMTOKENS #IMPLIED d CDATA 'dv' f CDATA #FIXED 'fv'>]>"
              "<r><a t='  x  y '>1</a><b t='  x  y '>2</b><c/><b/><a/></r>", 0);
    road_expect("<!DOCTYPE r [<!ATTLIST b d CDATA 'dv'>]><r><a/><b/></r>", 0,
                "DOCTYPE r pub=\"\" sys=\"\" subset=\"<!ATTLIST b d CDATA 'dv'>\" @1:1:0\n"
                "START r @1:41:40\n"
                "START a / @1:44:43\n"
                "END a @1:44:43\n"
                "START b d=\"dv\"* / @1:48:47\n"
                "END b @1:48:47\n"
                "END r @1:52:51\n"
                "END-OF-DOCUMENT\n");
}

Test(road, attlist_and_namespaces) {
    road_same("<!DOCTYPE p:r [<!ATTLIST p:r xmlns:p CDATA #FIXED 'urn:p'><!ATTLIST q a CDATA 'v'>]>"
              "<p:r><q>1</q><p:s x='1'>2</p:s><q a='w'/></p:r>", 1);
}

Test(road, entities_in_text_and_values) {
    road_same("<!DOCTYPE r [<!ENTITY e 'ent'><!ATTLIST z a CDATA #IMPLIED>]>"
              "<r a='x&e;y'>a&e;b&lt;c&#65;\r\nd<s>&e;</s></r>", 0);
    road_same("<!DOCTYPE r [<!ENTITY e 'ent'>]><r xmlns='urn:d' a='x&e;y'>a&e;b\r\n<s>&e;</s></r>", 1);
}
