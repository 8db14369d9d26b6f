/* The DTD internal subset: entity expansion in content and attributes,
 * attribute defaults and normalization, declarations, and the limits that
 * stop expansion attacks. Every document runs at every chunk size of the
 * harness (expected dumps are hand-written; format in tests/harness.h). */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPECT(doc, want) stax_test_expect_events(STAX_DOC(doc), NULL, 0, want)
#define EXPECT_POS(doc, want) stax_test_expect_events(STAX_DOC(doc), NULL, STAX_DUMP_POS, want)
#define STATUS(doc, want) stax_test_expect_status(STAX_DOC(doc), NULL, want)

/* ================================================================ entities in content */

Test(dtd, internal_entity_with_markup) {
    EXPECT("<!DOCTYPE d [<!ENTITY e \"x<b k='v'>y</b>z\">]><d>1&e;2</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e \\\"x<b k='v'>y</b>z\\\">\"\n"
           "START d\n"
           "TEXT \"1\"\n"
           "TEXT \"x\"\n"
           "START b k=\"v\"\n"
           "TEXT \"y\"\n"
           "END b\n"
           "TEXT \"z\"\n"
           "TEXT \"2\"\n"
           "END d\n"
           "END-OF-DOCUMENT\n");
}

Test(dtd, expansion_events_carry_the_reference_position) {
    EXPECT_POS("<!DOCTYPE d [<!ENTITY e \"<b/>t\">]>\n<d>\n &e;</d>",
               "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e \\\"<b/>t\\\">\" @1:1:0\n"
               "START d @2:1:35\n"
               "TEXT \"\\n \" ws @2:4:38\n"
               "START b / @3:2:40\n"
               "END b @3:2:40\n"
               "TEXT \"t\" @3:2:40\n"
               "END d @3:5:43\n"
               "END-OF-DOCUMENT\n");
}

Test(dtd, nested_entities_and_char_refs) {
    /* &#38;#60; in a value becomes &#60; in the replacement text, which is a
     * character reference again when the entity is used (4.4 example) */
    EXPECT("<!DOCTYPE d [<!ENTITY a \"[&b;]\"><!ENTITY b \"&#38;#60;\">]><d>&a;</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY a \\\"[&b;]\\\"><!ENTITY b \\\"&#38;#60;\\\">\"\n"
           "START d\n"
           "TEXT \"[\"\n"
           "TEXT \"<\"\n"
           "TEXT \"]\"\n"
           "END d\n"
           "END-OF-DOCUMENT\n");
}

Test(dtd, first_entity_declaration_wins) {
    EXPECT("<!DOCTYPE d [<!ENTITY e \"one\"><!ENTITY e \"two\">]><d>&e;</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e \\\"one\\\"><!ENTITY e \\\"two\\\">\"\n"
           "START d\nTEXT \"one\"\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, char_ref_cr_in_entity_is_kept) {
    EXPECT("<!DOCTYPE d [<!ENTITY e \"a&#13;b\">]><d>&e;</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e \\\"a&#13;b\\\">\"\n"
           "START d\nTEXT \"a\\rb\"\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, parameter_entity_declares_general_entity) {
    EXPECT("<!DOCTYPE d [<!ENTITY % p \"<!ENTITY e 'v'>\"> %p;]><d>&e;</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY % p \\\"<!ENTITY e 'v'>\\\"> %p;\"\n"
           "START d\nTEXT \"v\"\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, external_entity_is_reported_not_loaded) {
    EXPECT("<!DOCTYPE d [<!ENTITY x PUBLIC \"-//P//EN\" \"x.xml\">]><d>a&x;b</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY x PUBLIC \\\"-//P//EN\\\" \\\"x.xml\\\">\"\n"
           "START d\nTEXT \"a\"\nENTITY_REF x pub=\"-//P//EN\" sys=\"x.xml\"\nTEXT \"b\"\nEND d\n"
           "END-OF-DOCUMENT\n");
}

Test(dtd, undeclared_entity_with_external_subset_is_reported) {
    /* the declaration may be in the external subset, which is not read: only
     * a validity error, so the reference is reported */
    EXPECT("<!DOCTYPE d SYSTEM \"d.dtd\"><d>&u;</d>",
           "DOCTYPE d pub=\"\" sys=\"d.dtd\"\nSTART d\nENTITY_REF u\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, declarations_after_unread_parameter_entity_are_not_processed) {
    /* 5.1: after %ext; (not read) the ENTITY declaration is skipped, so &e;
     * is undeclared, which is no well-formedness error here */
    EXPECT("<!DOCTYPE d [<!ENTITY % ext SYSTEM \"x.ent\"> %ext; <!ENTITY e \"v\">]><d>&e;</d>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY % ext SYSTEM \\\"x.ent\\\"> %ext; <!ENTITY e \\\"v\\\">\"\n"
           "START d\nENTITY_REF e\nEND d\nEND-OF-DOCUMENT\n");
}

/* ================================================================ attributes */

Test(dtd, entity_in_attribute_value_is_normalized) {
    /* the tab from &#9; is a literal tab in the replacement text: a space */
    EXPECT("<!DOCTYPE d [<!ENTITY e \"a&#9;b &amp; c\">]><d x=\"[&e;]\"/>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e \\\"a&#9;b &amp; c\\\">\"\n"
           "START d x=\"[a b & c]\" /\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, defaults_and_tokenized_normalization) {
    EXPECT("<!DOCTYPE d [<!ATTLIST d a CDATA \" dflt \" b CDATA #IMPLIED c NMTOKENS \"  x   y \""
           " t NMTOKENS #IMPLIED f CDATA #FIXED \"fx\">]><d t=\"  p   q  \" a=\"given\"/>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ATTLIST d a CDATA \\\" dflt \\\" b CDATA #IMPLIED c NMTOKENS "
           "\\\"  x   y \\\" t NMTOKENS #IMPLIED f CDATA #FIXED \\\"fx\\\">\"\n"
           "START d t=\"p q\" a=\"given\" c=\"x y\"* f=\"fx\"* /\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, first_attribute_declaration_wins) {
    EXPECT("<!DOCTYPE d [<!ATTLIST d a CDATA \"1\"><!ATTLIST d a CDATA \"2\" b CDATA \"3\">]><d/>",
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ATTLIST d a CDATA \\\"1\\\"><!ATTLIST d a CDATA \\\"2\\\" b CDATA "
           "\\\"3\\\">\"\n"
           "START d a=\"1\"* b=\"3\"* /\nEND d\nEND-OF-DOCUMENT\n");
}

Test(dtd, defaulted_attributes_are_marked) {
    static const char doc[] = "<!DOCTYPE d [<!ATTLIST d a CDATA \"1\">]><d b=\"2\"/>";
    stax_reader *r = stax_reader_new(NULL);
    cr_assert(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, STAX_DOC(doc));
    int seen = 0;
    while (stax_test_cursor_next(&c)) {
        if (stax_ev_type(c.b, c.i) != STAX_EV_START) continue;
        cr_assert_eq(stax_ev_attr_count(c.b, c.i), 2);
        cr_assert(stax_str_eq(stax_ev_attr_name(c.b, c.i, 0), "b"));
        cr_assert_eq(stax_ev_attr_flags(c.b, c.i, 0), 0);
        cr_assert(stax_str_eq(stax_ev_attr_name(c.b, c.i, 1), "a"));
        cr_assert_eq(stax_ev_attr_flags(c.b, c.i, 1), STAX_ATTRF_DEFAULTED);
        seen = 1;
    }
    cr_assert_eq(c.status, STAX_END);
    cr_assert(seen);
    stax_reader_free(r);
}

Test(dtd, notations_unparsed_entities_and_pis_are_reported) {
    static const char doc[] = "<!DOCTYPE d [<!NOTATION gif PUBLIC \"-//G//EN\"><!NOTATION png SYSTEM \"png.exe\">"
                              "<!ENTITY pic SYSTEM \"p.gif\" NDATA gif><?tool some data?>]><d/>";
    stax_reader *r = stax_reader_new(NULL);
    cr_assert(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, STAX_DOC(doc));
    while (stax_test_cursor_next(&c)) {
    }
    cr_assert_eq(c.status, STAX_END);
    const stax_decl *n, *u;
    const stax_dtd_pi *pi;
    cr_assert_eq(stax_reader_notations(r, &n), 2);
    cr_assert(stax_str_eq(n[0].name, "gif") && stax_str_eq(n[0].pubid, "-//G//EN") && n[0].sysid.len == 0);
    cr_assert(stax_str_eq(n[1].name, "png") && stax_str_eq(n[1].sysid, "png.exe"));
    cr_assert_eq(stax_reader_unparsed_entities(r, &u), 1);
    cr_assert(stax_str_eq(u[0].name, "pic") && stax_str_eq(u[0].sysid, "p.gif") && stax_str_eq(u[0].notation, "gif"));
    cr_assert_eq(stax_reader_dtd_pis(r, &pi), 1);
    cr_assert(stax_str_eq(pi[0].target, "tool") && stax_str_eq(pi[0].data, "some data"));
    stax_reader_free(r);
}

/* ================================================================ well-formedness errors */

Test(dtd, undefined_entity_is_an_error_without_external_declarations) {
    STATUS("<!DOCTYPE d [<!ELEMENT d ANY>]>\n<d>&u;</d>", "ERROR ENTITY @2:4:35");
    STATUS("<?xml version='1.0' standalone='yes'?><!DOCTYPE d SYSTEM 'd.dtd'><d>&u;</d>", "ERROR ENTITY @1:69:68");
}

Test(dtd, recursion_direct_and_indirect) {
    STATUS("<!DOCTYPE d [<!ENTITY a \"x&a;\">]><d>&a;</d>", "ERROR ENTITY @1:37:36");
    STATUS("<!DOCTYPE d [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><d>&a;</d>", "ERROR ENTITY @1:53:52");
    STATUS("<!DOCTYPE d [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><d x='&a;'/>", "ERROR ENTITY @1:56:55");
}

Test(dtd, replacement_text_must_be_balanced) {
    /* markup split by the entity boundary, and elements crossing it */
    STATUS("<!DOCTYPE d [<!ENTITY e \"<b\">]><d>&e;/></d>", "ERROR SYNTAX @1:35:34");
    STATUS("<!DOCTYPE d [<!ENTITY e \"<b>\">]><d>&e;</b></d>", "ERROR SYNTAX @1:36:35");
    STATUS("<!DOCTYPE d [<!ENTITY e \"</d>\">]><d>&e;", "ERROR SYNTAX @1:37:36");
    STATUS("<!DOCTYPE d [<!ENTITY e \"&#60;\">]><d>&e;</d>", "ERROR SYNTAX @1:38:37");
}

Test(dtd, attribute_entity_errors) {
    STATUS("<!DOCTYPE d [<!ENTITY e \"<\">]><d x=\"&e;\"/>", "ERROR SYNTAX @1:37:36");
    STATUS("<!DOCTYPE d [<!ENTITY x SYSTEM \"x.xml\">]><d a=\"&x;\"/>", "ERROR ENTITY @1:48:47");
    STATUS("<!DOCTYPE d [<!NOTATION n SYSTEM \"n\"><!ENTITY x SYSTEM \"x\" NDATA n>]><d>&x;</d>",
           "ERROR ENTITY @1:73:72");
}

Test(dtd, malformed_declarations) {
    STATUS("<!DOCTYPE d [<!ENTITY e>]><d/>", "ERROR DTD @1:24:23");
    STATUS("<!DOCTYPE d [<!ELEMENT d (a,b|c)>]><d/>", "ERROR DTD @1:30:29");
    STATUS("<!DOCTYPE d [<!ATTLIST d a CDATA>]><d/>", "ERROR DTD @1:33:32");
    STATUS("<!DOCTYPE d [<!ENTITY e \"%p;\">]><d/>", "ERROR DTD @1:26:25");
    STATUS("<!DOCTYPE d [<![INCLUDE[ ]]>]><d/>", "ERROR DTD @1:14:13");
    STATUS("<!DOCTYPE d [<!-- a -- b -->]><d/>", "ERROR SYNTAX @1:21:20");
    STATUS("<!DOCTYPE d [ junk ]><d/>", "ERROR DTD @1:15:14");
}

/* ================================================================ limits */

static char *laughs(int in_attr) {
    static char buf[2048];
    int o = sprintf(buf, "<!DOCTYPE l [<!ENTITY l0 \"lol\">");
    for (int i = 1; i <= 9; i++) {
        o += sprintf(buf + o, "<!ENTITY l%d \"", i);
        for (int k = 0; k < 10; k++) o += sprintf(buf + o, "&l%d;", i - 1);
        o += sprintf(buf + o, "\">");
    }
    sprintf(buf + o, in_attr ? "]><l a=\"&l9;\"/>" : "]><l>&l9;</l>");
    return buf;
}

static void expect_limit_in_flat_memory(const char *doc, size_t len, stax_reader_options *o, int want) {
    stax_test_meter m = {0, 0};
    o->alloc = stax_test_meter_alloc;
    o->alloc_ud = &m;
    for (size_t c = 0; c < stax_test_chunk_count; c++) {
        int st;
        char *d = stax_test_events(doc, len, stax_test_chunk_sizes[c], o, &st);
        free(d);
        cr_assert_eq(st, want, "chunk %zu: status %d, want %d", stax_test_chunk_sizes[c], st, want);
    }
    cr_assert_eq(m.now, 0, "leaked %zu bytes", m.now);
    cr_assert_lt(m.peak, (size_t)24 << 20, "peak %zu bytes", m.peak);
}

Test(dtd, billion_laughs_in_content) {
    stax_reader_options o = {0};
    char *doc = laughs(0);
    expect_limit_in_flat_memory(doc, strlen(doc), &o, STAX_E_LIMIT_ENTITY);
}

Test(dtd, billion_laughs_in_attribute) {
    /* the expanded value passes max_token (1 MiB) first... */
    stax_reader_options o = {0};
    char *doc = laughs(1);
    expect_limit_in_flat_memory(doc, strlen(doc), &o, STAX_E_LIMIT_TOKEN);
    /* ...and with a larger max_token, the amplification limit stops it */
    stax_reader_options big = {0};
    big.max_token = (size_t)16 << 20;
    expect_limit_in_flat_memory(doc, strlen(doc), &big, STAX_E_LIMIT_ENTITY);
}

Test(dtd, billion_laughs_smaller_threshold) {
    stax_reader_options o = {0};
    o.entity_threshold = 1000;
    o.entity_amplification = 2;
    char *doc = laughs(0);
    expect_limit_in_flat_memory(doc, strlen(doc), &o, STAX_E_LIMIT_ENTITY);
}

Test(dtd, quadratic_blowup) {
    size_t big = 50000, refs = 5000;
    char *doc = malloc(big + refs * 3 + 100);
    cr_assert(doc);
    size_t o = (size_t)sprintf(doc, "<!DOCTYPE d [<!ENTITY a \"");
    memset(doc + o, 'x', big);
    o += big;
    o += (size_t)sprintf(doc + o, "\">]><d>");
    for (size_t i = 0; i < refs; i++) o += (size_t)sprintf(doc + o, "&a;");
    o += (size_t)sprintf(doc + o, "</d>");
    stax_reader_options opt = {0};
    opt.entity_threshold = 1 << 20;
    expect_limit_in_flat_memory(doc, o, &opt, STAX_E_LIMIT_ENTITY);
    free(doc);
}

Test(dtd, entity_nesting_depth) {
    char doc[4096];
    int o = sprintf(doc, "<!DOCTYPE d [<!ENTITY e0 \"x\">");
    for (int i = 1; i <= 20; i++) o += sprintf(doc + o, "<!ENTITY e%d \"&e%d;\">", i, i - 1);
    sprintf(doc + o, "]><d>&e20;</d>");
    stax_reader_options opt = {0};
    opt.max_entity_depth = 8;
    expect_limit_in_flat_memory(doc, strlen(doc), &opt, STAX_E_LIMIT_ENTITY);
    /* within the limit it expands */
    opt.max_entity_depth = 32;
    opt.alloc = NULL;
    char *d = stax_test_events_all(doc, strlen(doc), &opt, 0);
    cr_assert_str_eq(stax_test_last_line(d), "END-OF-DOCUMENT");
    free(d);
}

Test(dtd, max_dtd_limit) {
    char doc[8192];
    int o = sprintf(doc, "<!DOCTYPE d [");
    for (int i = 0; i < 100; i++) o += sprintf(doc + o, "<!ENTITY e%d \"%050d\">", i, i);
    sprintf(doc + o, "]><d/>");
    stax_reader_options opt = {0};
    opt.max_dtd = 2048;
    expect_limit_in_flat_memory(doc, strlen(doc), &opt, STAX_E_LIMIT_DTD);
}

Test(dtd, fixed_block_never_mallocs) {
    static char block[256 * 1024];
    static const char doc[] = "<!DOCTYPE d [<!ENTITY e \"<i>x</i>\"><!ATTLIST d a CDATA \"v\">]><d>&e;&e;</d>";
    stax_reader_options o = {0};
    o.memory = block;
    o.memory_size = sizeof block;
    stax_test_forbid_malloc = 1;
    stax_reader *r = stax_reader_new(&o);
    cr_assert(r);
    stax_test_cursor c;
    stax_test_cursor_open(&c, r, STAX_DOC(doc));
    size_t starts = 0;
    while (stax_test_cursor_next(&c))
        if (stax_ev_type(c.b, c.i) == STAX_EV_START) starts++;
    stax_reader_free(r);
    stax_test_forbid_malloc = 0;
    cr_assert_eq(c.status, STAX_END);
    cr_assert_eq(starts, 3);
    cr_assert_eq(stax_test_forbidden_calls, 0);
}

Test(dtd, fixed_block_dtd_is_bounded_by_max_dtd) {
    /* In a fixed block the DTD has its max_dtd bytes from the start: a DTD
     * that does not fit them is STAX_E_LIMIT_DTD, the same as with an
     * allocator, never STAX_E_NOMEM. */
    static char block[64 * 1024];
    char doc[16384];
    int o = sprintf(doc, "<!DOCTYPE d [");
    for (int i = 0; i < 150; i++) o += sprintf(doc + o, "<!ENTITY e%d \"%060d\">", i, i);
    sprintf(doc + o, "]><d/>");
    stax_reader_options opt = {0};
    opt.max_token = 16384;
    opt.max_dtd = 4096;
    opt.memory = block;
    opt.memory_size = sizeof block;
    char *fixed = stax_test_events_ex(doc, strlen(doc), 0, &opt, STAX_DUMP_POS, NULL);
    char want[64];
    snprintf(want, sizeof want, "%s", stax_test_last_line(fixed));
    free(fixed);
    cr_assert(strncmp(want, "ERROR LIMIT_DTD @1:", 19) == 0, "%s", want);
    stax_test_expect_status(doc, strlen(doc), &opt, want);
    opt.memory = NULL; /* the same with an allocator */
    opt.memory_size = 0;
    stax_test_expect_status(doc, strlen(doc), &opt, want);
    /* a block too small for max_dtd is refused when the reader is created */
    opt.memory = block;
    opt.max_dtd = sizeof block;
    const char *why = NULL;
    cr_assert_null(stax_reader_new(&opt));
    cr_assert_eq(stax_reader_check_options(&opt, &why), STAX_E_NOMEM);
    cr_assert(why && strstr(why, "fixed block"), "%s", why ? why : "(null)");
}

/* Regressions: expansion inside the DTD itself once had no budget. Parameter
 * entities whose text (via &#37;) references others ten times a level, and a
 * default value through entities that expand to nothing, each took seconds
 * to minutes; both now fail fast on the entity limits. */
static char *pe_bomb(void) {
    static char buf[4096];
    int o = sprintf(buf, "<!DOCTYPE d [<!ENTITY %% a \"<!-- x -->\">");
    const char *prev = "a";
    char name[16];
    for (int i = 1; i <= 8; i++) {
        o += sprintf(buf + o, "<!ENTITY %% p%d \"", i);
        for (int k = 0; k < 10; k++) o += sprintf(buf + o, "&#37;%s;", prev);
        o += sprintf(buf + o, "\">");
        sprintf(name, "p%d", i);
        prev = name;
    }
    sprintf(buf + o, "%%p8;]><d/>");
    return buf;
}

static char *empty_default_bomb(void) {
    static char buf[4096];
    int o = sprintf(buf, "<!DOCTYPE d [<!ENTITY e0 \"\">");
    for (int i = 1; i <= 8; i++) {
        o += sprintf(buf + o, "<!ENTITY e%d \"", i);
        for (int k = 0; k < 10; k++) o += sprintf(buf + o, "&e%d;", i - 1);
        o += sprintf(buf + o, "\">");
    }
    sprintf(buf + o, "<!ATTLIST d a CDATA \"&e8;\">]><d/>");
    return buf;
}


Test(dtd, parameter_entity_bomb_is_bounded) {
    stax_reader_options o = {0};
    char *doc = pe_bomb();
    expect_limit_in_flat_memory(doc, strlen(doc), &o, STAX_E_LIMIT_ENTITY);
}

Test(dtd, empty_entities_in_a_default_are_bounded) {
    stax_reader_options o = {0};
    char *doc = empty_default_bomb();
    expect_limit_in_flat_memory(doc, strlen(doc), &o, STAX_E_LIMIT_ENTITY);
}
