/* What max_dtd means: the bytes the DTD keeps (its strings, its records and
 * their hash tables), with no table that doubles past it. Large entity sets
 * fit what their declarations take; the smallest fixed blocks hold a few
 * declarations; and a DTD over the limit is STAX_E_LIMIT_DTD. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A DTD of n one-byte entities e0..e(n-1) and m ATTLIST defaults a0..a(m-1)
 * on element r, and content that refers to the first and last entity. */
static char *entity_doc(size_t n, size_t m, size_t *len) {
    size_t cap = 64 + n * 32 + m * 40;
    char *d = malloc(cap);
    cr_assert_not_null(d);
    size_t o = (size_t)snprintf(d, cap, "<!DOCTYPE r [");
    for (size_t i = 0; i < n; i++) o += (size_t)snprintf(d + o, cap - o, "<!ENTITY e%zu \"x\">", i);
    for (size_t i = 0; i < m; i++) o += (size_t)snprintf(d + o, cap - o, "<!ATTLIST r a%zu CDATA \"v\">", i);
    if (n) o += (size_t)snprintf(d + o, cap - o, "]><r>&e0;&e%zu;</r>", n - 1);
    else o += (size_t)snprintf(d + o, cap - o, "]><r/>");
    *len = o;
    return d;
}

/* Read doc whole; the status, and the number of attributes on the root. */
static int read_doc(const char *doc, size_t len, const stax_reader_options *opt, size_t *root_attrs, char *msg,
                    size_t msg_cap) {
    stax_reader *r = stax_reader_new(opt);
    cr_assert_not_null(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, doc, len);
    *root_attrs = 0;
    while (stax_test_cursor_next(&c))
        if (stax_ev_type(c.b, c.i) == STAX_EV_START) *root_attrs = stax_ev_attr_count(c.b, c.i);
    snprintf(msg, msg_cap, "%s", c.status == STAX_END ? "" : stax_reader_message(r));
    stax_reader_free(r);
    return c.status;
}

/* 4,097 one-byte entities (a 76 KB DTD) were refused with "DTD larger than
 * max_dtd (1048576 bytes)": the entity table doubled inside the region. */
Test(dtd_store, thousands_of_entities_fit_the_default_max_dtd) {
    static const size_t counts[] = {4095, 4096, 4097, 6000};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        size_t len, attrs;
        char *doc = entity_doc(counts[k], 0, &len);
        char msg[256];
        int st = read_doc(doc, len, NULL, &attrs, msg, sizeof msg);
        cr_assert_eq(st, STAX_END, "%zu entities: %s", counts[k], msg);
        free(doc);
    }
}

/* n entities short00000.. of one byte each (24-byte declarations), and
 * content that refers to the first and the last. */
static char *short_entities(size_t n, size_t *len, size_t *decls) {
    size_t cap = 64 + n * 32;
    char *d = malloc(cap);
    cr_assert_not_null(d);
    size_t o = (size_t)snprintf(d, cap, "<!DOCTYPE r [");
    for (size_t i = 0; i < n; i++) o += (size_t)snprintf(d + o, cap - o, "<!ENTITY short%05zu \"%c\">", i, (char)('a' + i % 26));
    *decls = o - 13;
    o += (size_t)snprintf(d + o, cap - o, "]><r>&short00000;&short%05zu;</r>", n - 1);
    *len = o;
    return d;
}

/* The smallest max_dtd (to 16 bytes) a document's DTD fits in. */
static size_t smallest_max_dtd(const char *doc, size_t len) {
    size_t lo = 320, hi = (size_t)16 << 20, attrs;
    char msg[256];
    stax_reader_options o = {0};
    o.max_dtd = hi;
    cr_assert_eq(read_doc(doc, len, &o, &attrs, msg, sizeof msg), STAX_END, "%s", msg);
    while (hi - lo > 16) {
        o.max_dtd = lo + (hi - lo) / 2;
        if (read_doc(doc, len, &o, &attrs, msg, sizeof msg) == STAX_END) hi = o.max_dtd;
        else lo = o.max_dtd;
    }
    return hi;
}

/* 20,000 short entities, half a megabyte of declarations, fit the default
 * max_dtd, and both ends of the table expand: the store keeps a declaration
 * in about its own size plus a small table (a record of 29 bytes on 64-bit
 * targets for the entity, its name and value inside, and a 4-byte slot),
 * where each one-byte entity took some 135 bytes and the default refused the
 * DTD after 7,792 of them. And the
 * limit still holds: 16 bytes less than the smallest max_dtd that holds the
 * DTD is STAX_E_LIMIT_DTD. */
Test(dtd_store, twenty_thousand_short_entities_fit_the_default_max_dtd) {
    size_t len, decls;
    char *doc = short_entities(20000, &len, &decls);
    cr_assert_geq(decls, 480000);
    stax_test_cursor c;
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    stax_test_cursor_open(&c, r, doc, len);
    char text[8] = "";
    size_t n = 0;
    while (stax_test_cursor_next(&c))
        if (stax_ev_type(c.b, c.i) == STAX_EV_TEXT && n + 1 < sizeof text) text[n++] = stax_ev_text(c.b, c.i).ptr[0];
    cr_assert_eq(c.status, STAX_END, "%s", stax_reader_message(r));
    cr_assert_str_eq(text, "af"); /* short00000 is a, short19999 is f */
    stax_reader_free(r);
    size_t need = smallest_max_dtd(doc, len);
    cr_assert_leq(need, decls * 7 / 4, "20,000 entities of %zu bytes of declarations need max_dtd %zu", decls, need);
    stax_reader_options o = {0};
    o.max_dtd = need - 16;
    char msg[256];
    size_t attrs;
    cr_assert_eq(read_doc(doc, len, &o, &attrs, msg, sizeof msg), STAX_E_LIMIT_DTD, "max_dtd %zu: %s", o.max_dtd, msg);
    cr_assert(strstr(msg, "DTD larger than max_dtd"), "%s", msg);
    free(doc);
}

/* The same for attribute defaults: every one of them is applied. */
Test(dtd_store, thousands_of_attribute_defaults_fit_and_apply) {
    stax_reader_options o = {0};
    o.max_attrs = 5000;
    size_t len, attrs;
    char *doc = entity_doc(10, 4097, &len);
    char msg[256];
    int st = read_doc(doc, len, &o, &attrs, msg, sizeof msg);
    cr_assert_eq(st, STAX_END, "%s", msg);
    cr_assert_eq(attrs, 4097);
    free(doc);
}

/* The limit holds: a DTD whose declarations take more than max_dtd is
 * refused with STAX_E_LIMIT_DTD, and one that fits well inside is not. */
Test(dtd_store, max_dtd_bounds_what_is_kept) {
    size_t len, attrs;
    char msg[256];
    char *doc = entity_doc(2000, 0, &len);
    stax_reader_options o = {0};
    o.max_dtd = 48 * 1024; /* 2,000 entities keep about 70 KB: each a record of some 28 bytes and a slot of 4 */
    cr_assert_eq(read_doc(doc, len, &o, &attrs, msg, sizeof msg), STAX_E_LIMIT_DTD, "%s", msg);
    cr_assert(strstr(msg, "max_dtd (49152 bytes)"), "%s", msg);
    o.max_dtd = 1024 * 1024;
    cr_assert_eq(read_doc(doc, len, &o, &attrs, msg, sizeof msg), STAX_END, "%s", msg);
    free(doc);
    /* the store is no larger than what it keeps: 200 entities fit in 64 KiB */
    doc = entity_doc(200, 0, &len);
    o.max_dtd = 64 * 1024;
    cr_assert_eq(read_doc(doc, len, &o, &attrs, msg, sizeof msg), STAX_END, "%s", msg);
    free(doc);
}

/* Fixed blocks under 16 KiB got max_dtd 512, which could not hold a single
 * declaration. Now the smallest profile holds one short declaration (and
 * still fits 4 KiB on 32-bit targets), the 8 KiB profile two, the 16 KiB
 * one four (docs/security.md). */
Test(dtd_store, the_smallest_blocks_hold_a_few_declarations) {
    static const char *const docs[] = {
        "<!DOCTYPE r [<!ENTITY e \"x\">]><r>&e;</r>",
        "<!DOCTYPE r [<!ATTLIST r a CDATA \"x\">]><r/>",
        "<!DOCTYPE r [<!ENTITY e \"x\"><!ATTLIST r a CDATA \"x\">]><r>&e;</r>",
        "<!DOCTYPE r [<!ENTITY e \"x\"><!ENTITY f \"y\"><!ATTLIST r a CDATA \"x\" b CDATA \"y\">]><r>&e;&f;</r>",
    };
    size_t min = 0;
    stax_reader_options probe = {0};
    char one[1];
    probe.memory = one;
    for (size_t block = 4096; block <= 16384 && !min; block += 16) {
        probe.memory_size = block;
        if (stax_reader_check_options(&probe, NULL) == STAX_OK) min = block;
    }
    cr_assert(min, "no block up to 16 KiB takes the defaults");
    static const struct { size_t block, docs; } cases[] = {{0, 2}, {8192, 3}, {16384, 4}};
    for (size_t b = 0; b < sizeof cases / sizeof cases[0]; b++) {
        size_t block = cases[b].block ? cases[b].block : min;
        void *mem = malloc(block);
        cr_assert_not_null(mem);
        for (size_t k = 0; k < cases[b].docs; k++) {
            stax_reader_options o = {0};
            o.memory = mem;
            o.memory_size = block;
            stax_reader_options eff;
            cr_assert_eq(stax_reader_effective_options(&o, &eff, NULL), STAX_OK);
            size_t attrs;
            char msg[256];
            int st = read_doc(docs[k], strlen(docs[k]), &o, &attrs, msg, sizeof msg);
            cr_assert_eq(st, STAX_END, "block %zu (max_dtd %zu): '%s': %s", block, eff.max_dtd, docs[k], msg);
        }
        free(mem);
    }
}

/* A reference to an entity whose text is plain text gives that text as a
 * TEXT at the reference, without entering it: the same events (and
 * positions) as entering it (the expected dump is what the reader gave when
 * it entered every entity), and the same limits (depth, amplification). */
Test(dtd_store, plain_entities_give_the_events_of_entering_them) {
    stax_test_expect_events(STAX_DOC("<!DOCTYPE r [<!ENTITY e 'x y'><!ENTITY f '\xC3\xA9\tz'><!ENTITY g ''>"
                                     "<!ENTITY h 'a&#38;#38;b'><!ENTITY i '&e;!'>]><r>w &e; &f;&g;&h;&i;&e;</r>"),
                            NULL, STAX_DUMP_POS,
                            "DOCTYPE r pub=\"\" sys=\"\" subset=\"<!ENTITY e 'x y'><!ENTITY f '\xC3\xA9\\tz'>"
                            "<!ENTITY g ''><!ENTITY h 'a&#38;#38;b'><!ENTITY i '&e;!'>\" @1:1:0\n"
                            "START r @1:107:107\n"
                            "TEXT \"w \" @1:110:110\n"
                            "TEXT \"x y\" @1:112:112\n"
                            "TEXT \" \" ws @1:115:115\n"
                            "TEXT \"\xC3\xA9\\tz\" @1:116:116\n"
                            "TEXT \"a&b\" @1:122:122\n"
                            "TEXT \"x y\" @1:125:125\n"
                            "TEXT \"!\" @1:125:125\n"
                            "TEXT \"x y\" @1:128:128\n"
                            "END r @1:131:131\n"
                            "END-OF-DOCUMENT\n");
    /* nested deeper than max_entity_depth: an error at the outermost reference */
    stax_reader_options o = {0};
    o.max_entity_depth = 1;
    stax_test_expect_status(STAX_DOC("<!DOCTYPE r [<!ENTITY e 'x'><!ENTITY i '&e;'>]><r>&i;</r>"), &o,
                            "ERROR LIMIT_ENTITY @1:51:50");
    /* amplification: a thousand references to a 1000-byte plain entity */
    char doc[16384];
    int n = snprintf(doc, sizeof doc, "<!DOCTYPE r [<!ENTITY e '%01000d'>]><r>", 0);
    for (int k = 0; k < 2000; k++) n += snprintf(doc + n, sizeof doc - (size_t)n, "&e;");
    n += snprintf(doc + n, sizeof doc - (size_t)n, "</r>");
    stax_reader_options a = {0};
    a.entity_threshold = 100000;
    a.entity_amplification = 10;
    int st;
    char *d = stax_test_events(doc, (size_t)n, 0, &a, &st);
    cr_assert_eq(st, STAX_E_LIMIT_ENTITY, "%s", stax_test_last_line(d));
    free(d);
}

/* Notations are found by a hash table: 200,000 of them, each declared twice
 * (the second ignored), read in linear time (a comparison with every
 * notation before took 2 * 10^10 of them here, minutes; the timeout is the
 * test of that), all kept once and in declaration order. */
Test(dtd_store, two_hundred_thousand_notations_in_linear_time, .timeout = 60) {
    const size_t n = 200000;
    size_t cap = 64 + 2 * n * 48, o = 0;
    char *doc = malloc(cap);
    cr_assert_not_null(doc);
    o += (size_t)snprintf(doc + o, cap - o, "<!DOCTYPE d [");
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            o += (size_t)snprintf(doc + o, cap - o, "<!NOTATION n%zu SYSTEM '%s'>", i, pass ? "again" : "x");
    o += (size_t)snprintf(doc + o, cap - o, "]><d/>");
    stax_reader_options opt = {0};
    opt.max_dtd = (size_t)64 << 20;
    opt.max_token = (size_t)64 << 20;
    stax_reader *r = stax_reader_new(&opt);
    cr_assert_not_null(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, doc, o);
    while (stax_test_cursor_next(&c)) continue;
    cr_assert_eq(c.status, STAX_END, "%s", stax_reader_message(r));
    const stax_decl *nd;
    size_t got = stax_reader_notations(r, &nd);
    cr_assert_eq(got, n);
    cr_assert(nd[0].name.len == 2 && memcmp(nd[0].name.ptr, "n0", 2) == 0);
    cr_assert(nd[n - 1].name.len == 7 && memcmp(nd[n - 1].name.ptr, "n199999", 7) == 0);
    cr_assert(nd[n - 1].sysid.len == 1 && nd[n - 1].sysid.ptr[0] == 'x', "the first declaration wins");
    stax_reader_free(r);
    free(doc);
}
