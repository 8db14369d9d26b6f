/* Every limit of the reader, the writer and select, walked in one place:
 * each is set low and triggered, and must give its own STAX_E_LIMIT_* status
 * and a message that names the option and its value (stax.h, ERRORS). The
 * reader's cases run at every chunk size of the harness. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stax.h"

/* ================================================================ reader */

/* An external entity of `ud` bytes of text ("x" repeated). */
static int resolve_x(void *ud, const stax_entity_request *q, stax_entity_input *in) {
    static char text[4096];
    (void)q;
    memset(text, 'x', sizeof text);
    in->data = text;
    in->len = (size_t)(uintptr_t)ud;
    return STAX_OK;
}

/* s repeated n times, then tail, as a malloc'd string. */
static char *repeat(const char *head, const char *s, int n, const char *tail) {
    size_t len = strlen(head) + strlen(s) * (size_t)n + strlen(tail) + 1;
    char *d = malloc(len);
    cr_assert_not_null(d);
    strcpy(d, head);
    for (int k = 0; k < n; k++) strcat(d, s);
    strcat(d, tail);
    return d;
}

typedef struct reader_case {
    const char *option; /* for the failure message */
    stax_reader_options opt;
    char *doc;
    int status;
    const char *says; /* what the message must hold: the option and its value */
} reader_case;

/* A start tag's names and values, expanded, are held to max_token together,
 * counted the same whether the tag is read in the window or from the carry
 * (chunk size 1), where the names are copied to the arena too: 96 bytes of
 * entity text and two short names fit 160 bytes; 128 and three names of 16
 * do not, at every chunk size (the carry's copies once ran past the arena,
 * an internal error, where the whole document was read without one). */
#define TAG_BUDGET_DTD                                                                                  \
    "<!DOCTYPE r [<!ENTITY e0 \"xxxxxxxxxxxxxxxx\"><!ENTITY e1 \"&e0;&e0;&e0;&e0;&e0;&e0;&e0;&e0;\">" \
    "<!ENTITY e2 \"&e0;&e0;&e0;&e0;&e0;&e0;\">]>"
Test(limits, a_tags_names_and_expanded_values_share_max_token) {
    stax_reader_options opt = {0};
    opt.max_token = 160;
    char x96[97], want[160];
    memset(x96, 'x', 96);
    x96[96] = '\0';
    snprintf(want, sizeof want, "START r\nSTART t a=\"%s\" b=\"1\" /\nEND t\nEND r\nEND-OF-DOCUMENT\n", x96);
    char *d = stax_test_events_all(STAX_DOC(TAG_BUDGET_DTD "<r><t a=\"&e2;\" b=\"1\"/></r>"), &opt, 0);
    const char *body = strstr(d, "START r\n");
    cr_assert(body && strcmp(body, want) == 0, "%s", d);
    free(d);
    stax_test_expect_status(STAX_DOC(TAG_BUDGET_DTD "<r><t a=\"&e1;\" bbbbbbbbbbbbbbbb=\"1\" cccccccccccccccc=\"1\" "
                                                    "dddddddddddddddd=\"1\"/></r>"),
                            &opt, "ERROR LIMIT_TOKEN @1:136:135");
}
#undef TAG_BUDGET_DTD

Test(limits, every_reader_limit_gives_its_status_and_names_its_option) {
    reader_case cases[16];
    size_t n = 0;
    memset(cases, 0, sizeof cases);
#define CASE(opt_name, field, value, document, st, text)                                                 \
    do {                                                                                                 \
        cases[n].option = opt_name;                                                                      \
        cases[n].opt.field = value;                                                                      \
        cases[n].doc = document;                                                                         \
        cases[n].status = st;                                                                            \
        cases[n].says = text;                                                                            \
        n++;                                                                                             \
    } while (0)
    CASE("max_depth", max_depth, 3, repeat("", "<a>", 4, "</a></a></a></a>"), STAX_E_LIMIT_DEPTH, "max_depth (3)");
    CASE("max_name", max_name, 8, repeat("<", "abcdef", 2, "/>"), STAX_E_LIMIT_NAME, "max_name (8 bytes)");
    CASE("max_attrs", max_attrs, 2, repeat("<a x='1' y='2' z='3'", "", 0, "/>"), STAX_E_LIMIT_ATTRS, "max_attrs (2)");
    CASE("max_token", max_token, 256, repeat("<a><!--", "0123456789", 40, "--></a>"), STAX_E_LIMIT_TOKEN,
         "max_token (256 bytes)");
    cases[n - 1].opt.max_text = 64;
    CASE("max_entity_depth", max_entity_depth, 2,
         repeat("<!DOCTYPE a [<!ENTITY e1 '&e2;'><!ENTITY e2 '&e3;'><!ENTITY e3 'x'>]><a>&e1;", "", 0, "</a>"),
         STAX_E_LIMIT_ENTITY, "max_entity_depth (2)");
    CASE("entity_threshold", entity_threshold, 1000,
         repeat("<!DOCTYPE a [<!ENTITY e0 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>"
                "<!ENTITY e1 '&e0;&e0;&e0;&e0;&e0;&e0;&e0;&e0;&e0;&e0;'>]><a>",
                "&e1;", 4, "</a>"),
         STAX_E_LIMIT_ENTITY, "entity_threshold 1000, entity_amplification 2)");
    cases[n - 1].opt.entity_amplification = 2;
    CASE("max_dtd", max_dtd, 4096, repeat("<!DOCTYPE a [<!ENTITY % p '", "x", 5000, "'>]><a/>"),
         STAX_E_LIMIT_DTD, "max_dtd (4096 bytes)");
    CASE("max_ns", max_ns, 2, repeat("<a xmlns:a='u' xmlns:b='u' xmlns:c='u'", "", 0, "/>"), STAX_E_LIMIT_NS,
         "max_ns (2)");
    cases[n - 1].opt.flags = STAX_READ_NAMESPACES;
    CASE("max_ns_bytes", max_ns_bytes, 512,
         repeat("<a xmlns:a='urn:a-namespace-uri-of-some-length-to-fill-the-bindings'>", "<b xmlns:b='urn:another-long-uri-of-the-same-kind'>", 20, "</a>"),
         STAX_E_LIMIT_NS, "max_ns_bytes (512 bytes)");
    cases[n - 1].opt.flags = STAX_READ_NAMESPACES;
    CASE("max_external", max_external, 100, repeat("<!DOCTYPE a [<!ENTITY e SYSTEM 'e.xml'>]><a>&e;", "", 0, "</a>"),
         STAX_E_LIMIT_ENTITY, "max_external (100 bytes");
    cases[n - 1].opt.resolve = resolve_x;
    cases[n - 1].opt.resolve_ud = (void *)(uintptr_t)300;
    CASE("max_external_text", max_external_text, 1024,
         repeat("<!DOCTYPE a [<!ENTITY e SYSTEM 'e.xml'>]><a>&e;", "", 0, "</a>"), STAX_E_LIMIT_ENTITY,
         "max_external_text (1024 bytes");
    cases[n - 1].opt.resolve = resolve_x;
    cases[n - 1].opt.resolve_ud = (void *)(uintptr_t)2000;
#undef CASE
    for (size_t k = 0; k < n; k++) {
        const char *why = NULL;
        cr_assert_eq(stax_reader_check_options(&cases[k].opt, &why), STAX_OK, "%s: %s", cases[k].option, why);
        for (size_t c = 0; c < stax_test_chunk_count; c++) {
            int st = 0;
            char *dump = stax_test_events_ex(cases[k].doc, strlen(cases[k].doc), stax_test_chunk_sizes[c],
                                             &cases[k].opt, STAX_DUMP_MESSAGE, &st);
            const char *last = stax_test_last_line(dump);
            cr_assert_eq(st, cases[k].status, "%s, chunk %zu: %s", cases[k].option, stax_test_chunk_sizes[c], last);
            cr_assert(strstr(last, cases[k].says), "%s, chunk %zu: '%s' lacks '%s'", cases[k].option,
                      stax_test_chunk_sizes[c], last, cases[k].says);
            free(dump);
        }
        free(cases[k].doc);
    }
}

/* ================================================================ writer */

/* Open elements named "element" until the writer refuses: that status. */
static int deepen(stax_writer *w) {
    int st;
    while ((st = stax_writer_start_z(w, "element")) == STAX_OK) continue;
    return st;
}

static ptrdiff_t drop(void *ctx, const void *data, size_t len) {
    (void)ctx, (void)data;
    return (ptrdiff_t)len;
}

Test(limits, the_writer_stack_limit_gives_its_status_and_names_its_option) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.stack_size = 64;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    stax_writer_set_sink(w, drop, NULL);
    cr_assert_eq(deepen(w), STAX_E_LIMIT_STACK);
    cr_assert(strstr(stax_writer_message(w), "stack_size 64"), "%s", stax_writer_message(w));
    cr_assert_eq(stax_writer_first_error(w), STAX_E_LIMIT_STACK);
    /* a refusal, not sticky (stax.h: the writer's section) */
    cr_assert_eq(stax_writer_status(w), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    stax_writer_free(w);

    /* in a fixed block, without stack_size: what the block leaves */
    static char block[4096];
    memset(&o, 0, sizeof o);
    o.memory = block;
    o.memory_size = sizeof block;
    o.buffer_size = 2048;
    w = stax_writer_new(&o);
    cr_assert_not_null(w);
    stax_writer_set_sink(w, drop, NULL);
    cr_assert_eq(deepen(w), STAX_E_LIMIT_STACK);
    cr_assert(strstr(stax_writer_message(w), "stack_size 0: all the fixed block leaves"), "%s", stax_writer_message(w));
    stax_writer_free(w);
}

/* ================================================================ select */

static int ignore_piece(void *ctx, const stax_select_piece *p) {
    (void)ctx, (void)p;
    return 0;
}

/* Run paths and columns over doc, one event at a time: the select's first
 * status other than STAX_OK, its message in msg. */
static int select_over(const char *doc, const stax_select_options *so, const char *paths, const char *columns,
                       char *msg, size_t cap) {
    stax_select *s = stax_select_new(so);
    cr_assert_not_null(s);
    int st = stax_select_compile(s, stax_strz(paths), stax_strz(columns));
    stax_select_set_output(s, ignore_piece, NULL);
    stax_test_cursor c;
    stax_test_cursor_open(&c, stax_reader_new(NULL), doc, strlen(doc));
    while (st == STAX_OK && stax_test_cursor_next(&c)) st = stax_select_event(s, c.b, c.i);
    snprintf(msg, cap, "%s", stax_select_message(s));
    stax_reader_free(c.r);
    stax_select_free(s);
    return st;
}

Test(limits, every_select_limit_gives_its_status_and_names_its_option) {
    struct {
        stax_select_options so;
        const char *path, *columns;
        int status;
        const char *says;
    } cases[] = {
        {{.max_depth = 30}, "//b", "", STAX_E_LIMIT_DEPTH, "max_depth (30 levels)"},
        {{.max_held = 4096}, "//a", "", STAX_E_LIMIT_HELD, "max_held (4096 bytes)"},
        {{.max_held = 3000}, "//a", "b,.", STAX_E_LIMIT_HELD, "max_held (3000 bytes)"},
        {{.max_held = 20000, .flags = STAX_SELECT_XML}, "//a", "", STAX_E_LIMIT_HELD, "max_held (20000 bytes)"},
        {{.max_state = 2048}, "//a[1]/b", "", STAX_E_LIMIT_STATE, "max_state (2048 bytes)"},
        {{.xml_memory = STAX_WRITER_MIN_MEMORY + 2048, .flags = STAX_SELECT_XML}, "/a", "", STAX_E_LIMIT_XML_MEMORY,
         "xml_memory (3136 bytes)"},
    };
    /* 200 nested <a>, each with 30 bytes of text: deep, and with values that wait */
    char *doc = repeat("", "<a>abcdefghijklmnopqrstuvwxyzabcd", 200, "");
    char *full = repeat(doc, "</a>", 200, "");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char msg[256];
        int st = select_over(full, &cases[k].so, cases[k].path, cases[k].columns, msg, sizeof msg);
        cr_assert_eq(st, cases[k].status, "case %zu: %s, %s", k, stax_test_status_name(st), msg);
        cr_assert(strstr(msg, cases[k].says), "case %zu: '%s' lacks '%s'", k, msg, cases[k].says);
    }
    free(full);
    free(doc);
    /* each has a text of its own, which names its option */
    const int limits[] = {STAX_E_LIMIT_HELD, STAX_E_LIMIT_STATE, STAX_E_LIMIT_XML_MEMORY, STAX_E_LIMIT_STACK};
    const char *const names[] = {"max_held", "max_state", "xml_memory", "stack_size"};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        cr_assert(strstr(stax_strerror(limits[k]), names[k]), "%s", stax_strerror(limits[k]));
        for (int other = -50; other <= 4; other++)
            if (other != limits[k]) cr_assert_str_neq(stax_strerror(limits[k]), stax_strerror(other));
    }
}
