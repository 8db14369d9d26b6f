/* Hardening: attribute values from every source through every declared type
 * (checked against a reference normalizer written here, independent of the
 * library), expansion bounded by max_token in flat memory, limit messages
 * that name their option, and fixed blocks whose outcome never depends on
 * the block size past what the options need, nor on chunking. */
#include "harness.h"
#include "stax.h"
#include "namespaces.h" /* stax__ns_cost: what a binding costs on this target */

#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ a growable string */

typedef stax_test_buf sbuf;
#define sb_put stax_test_buf_put
#define sb_puts stax_test_buf_puts
#define sb_printf stax_test_buf_printf
#define sb_free stax_test_buf_free

/* ================================================================ the reference normalizer */

/* The entities of the test DTDs, by their replacement text: "&name;" is a
 * reference to another, "&#N;" a character reference (both as they stand in
 * the replacement text, i.e. after the declaration was read). */
typedef struct {
    const char *name;
    char *text;
} ref_entity;

static ref_entity ents[64];
static size_t n_ents;

static void ent_set(const char *name, const char *text) {
    cr_assert_lt(n_ents, 64);
    ents[n_ents].name = name;
    ents[n_ents].text = strdup(text);
    n_ents++;
}

static void ents_clear(void) {
    for (size_t i = 0; i < n_ents; i++) free(ents[i].text);
    n_ents = 0;
}

static const char *ent_text(const char *name, size_t len) {
    for (size_t i = 0; i < n_ents; i++)
        if (strlen(ents[i].name) == len && memcmp(ents[i].name, name, len) == 0) return ents[i].text;
    cr_assert_fail("reference normalizer: no entity %.*s", (int)len, name);
    return "";
}

static void put_utf8(sbuf *o, unsigned long cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) u[0] = (char)cp, n = 1;
    else if (cp < 0x800) u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    sb_put(o, u, n);
}

/* XML 1.0 3.3.3, written as the spec says it, one character at a time: raw
 * text (the document's or the DTD's own) has its line ends normalized first;
 * every white space character becomes a space; a character reference gives
 * its character as it is; an entity reference, its replacement text,
 * normalized the same way. */
static void ref_normalize(sbuf *o, const char *s, size_t n, int raw) {
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (raw && c == '\r') {
            if (i + 1 < n && s[i + 1] == '\n') i++;
            sb_put(o, " ", 1);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            sb_put(o, " ", 1);
        } else if (c == '&') {
            const char *semi = memchr(s + i, ';', n - i);
            cr_assert_not_null(semi);
            const char *nm = s + i + 1;
            size_t nl = (size_t)(semi - nm);
            if (nm[0] == '#') {
                unsigned long cp = nm[1] == 'x' ? strtoul(nm + 2, NULL, 16) : strtoul(nm + 1, NULL, 10);
                put_utf8(o, cp);
            } else if (nl == 2 && memcmp(nm, "lt", 2) == 0) {
                sb_put(o, "<", 1);
            } else if (nl == 2 && memcmp(nm, "gt", 2) == 0) {
                sb_put(o, ">", 1);
            } else if (nl == 3 && memcmp(nm, "amp", 3) == 0) {
                sb_put(o, "&", 1);
            } else if (nl == 4 && memcmp(nm, "quot", 4) == 0) {
                sb_put(o, "\"", 1);
            } else if (nl == 4 && memcmp(nm, "apos", 4) == 0) {
                sb_put(o, "'", 1);
            } else {
                const char *t = ent_text(nm, nl);
                ref_normalize(o, t, strlen(t), 0);
            }
            i = (size_t)(semi - s);
        } else {
            sb_put(o, &c, 1);
        }
    }
}

/* Then, for a declared type other than CDATA: leading and trailing spaces
 * dropped, runs of spaces made one. */
static char *ref_value(const char *lit, int tokenized) {
    sbuf o = {0};
    sb_puts(&o, "");
    ref_normalize(&o, lit, strlen(lit), 1);
    if (!tokenized) return o.p;
    sbuf t = {0};
    sb_puts(&t, "");
    int space = 0;
    for (size_t i = 0; i < o.len; i++) {
        if (o.p[i] == ' ') {
            space = t.len > 0;
            continue;
        }
        if (space) sb_put(&t, " ", 1);
        space = 0;
        sb_put(&t, o.p + i, 1);
    }
    free(o.p);
    return t.p;
}

/* The entity declaration that gives replacement text `text`. */
static void declare(sbuf *d, const char *name, const char *text) {
    sb_printf(d, "<!ENTITY %s \"", name);
    for (const char *p = text; *p; p++) {
        if (p[0] == '&' && p[1] == '#') sb_puts(d, "&#38;"); /* a char reference in the replacement text */
        else if (*p == '\t') sb_puts(d, "&#9;");
        else if (*p == '"') sb_puts(d, "&#34;");
        else if (*p == '%') sb_puts(d, "&#37;");
        else sb_put(d, p, 1);
    }
    sb_puts(d, "\">\n");
}

/* ================================================================ reading */

typedef struct {
    int status;
    char msg[256];
    stax_pos pos;
    size_t n;        /* values seen */
    char *vals[16];  /* attribute a of each element x (or r), in order; NULL when absent */
    unsigned flags[16];
} outcome;

static void outcome_free(outcome *o) {
    for (size_t i = 0; i < o->n; i++) free(o->vals[i]);
}

static void take(outcome *o, const stax_batch *b) {
    for (size_t i = 0; i < b->count; i++) {
        if (stax_ev_type(b, i) != STAX_EV_START) continue;
        cr_assert_lt(o->n, 16);
        char *v = NULL;
        unsigned fl = 0;
        for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
            if (!stax_str_eq(stax_ev_attr_name(b, i, k), "a")) continue;
            stax_str s = stax_ev_attr_value(b, i, k);
            v = malloc(s.len + 1);
            cr_assert_not_null(v);
            if (s.len) memcpy(v, s.ptr, s.len);
            v[s.len] = '\0';
            fl = stax_ev_attr_flags(b, i, k);
        }
        o->vals[o->n] = v;
        o->flags[o->n] = fl;
        o->n++;
    }
}

/* Read doc in chunks of `chunk` bytes (0: whole), every chunk a fresh copy. */
static outcome read_doc(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt) {
    outcome o;
    memset(&o, 0, sizeof o);
    stax_reader *r = stax_reader_new(opt);
    cr_assert_not_null(r, "stax_reader_new");
    size_t off = 0;
    const stax_batch *b;
    char *piece = NULL;
    for (;;) {
        if (off < len) {
            size_t k = chunk && len - off > chunk ? chunk : len - off;
            free(piece);
            piece = malloc(k);
            cr_assert_not_null(piece);
            memcpy(piece, doc + off, k);
            cr_assert_eq(stax_reader_feed(r, piece, k), STAX_OK);
            off += k;
        } else {
            cr_assert_eq(stax_reader_end(r), STAX_OK);
        }
        int st;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) take(&o, b);
        if (st != STAX_NEED_INPUT) {
            o.status = st;
            break;
        }
    }
    free(piece);
    if (o.status < 0) {
        snprintf(o.msg, sizeof o.msg, "%s", stax_reader_message(r));
        o.pos = stax_reader_error_pos(r);
    }
    stax_reader_free(r);
    return o;
}

static int same_outcome(const outcome *a, const outcome *b) {
    if (a->status != b->status || a->n != b->n || strcmp(a->msg, b->msg) != 0 || a->pos.offset != b->pos.offset ||
        a->pos.line != b->pos.line || a->pos.column != b->pos.column)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->flags[i] != b->flags[i] || !a->vals[i] != !b->vals[i]) return 0;
        if (a->vals[i] && strcmp(a->vals[i], b->vals[i]) != 0) return 0;
    }
    return 1;
}

/* ================================================================ the attribute family */

static const char *const types[] = {"CDATA",    "ID",       "IDREF",   "IDREFS",           "ENTITY",
                                    "ENTITIES", "NMTOKEN",  "NMTOKENS", "NOTATION (n1|n2)", "(v1|v2)"};

static const char *const values[] = {
    "  a  b  ",
    "&#32;a&#9;b&#x20;&#10;c&#13;d&#32;",
    "&e0;",
    "&e2;",
    "x&e3;y",
    " \t a \n b\r\n c  \r d",
    "&lt;&amp;&gt;&quot;&apos;",
    "&sp;&sp;v&tab;&sp;",
    "",
    "&e4;",
    "&#233;t&#xE9; &#x1F600;&e0;",
    "&e5;&e5;",
};

static void family_entities(sbuf *d) {
    ents_clear();
    ent_set("sp", " ");
    ent_set("tab", "\t");
    ent_set("e0", " x\t y ");
    ent_set("e1", "&e0;&e0; z");
    ent_set("e2", "&e1;&#32;&e1;");
    ent_set("e3", "a&e2;b&lt;");
    sbuf t = {0};
    sb_puts(&t, "");
    for (int k = 0; k < 10; k++) sb_puts(&t, "&e3;");
    ent_set("e4", t.p);
    free(t.p);
    /* 4 KiB of text with spaces at both ends: several of it overflow a small arena */
    sbuf big = {0};
    sb_puts(&big, " ");
    for (int k = 0; k < 512; k++) sb_puts(&big, "word  w ");
    ent_set("e5", big.p);
    free(big.p);
    for (size_t i = 0; i < n_ents; i++) declare(d, ents[i].name, ents[i].text);
}

/* A document: the DTD, then `copies` elements x with attribute a = value
 * (or defaulted), inside r. */
static char *family_doc(const char *type, const char *value, int as_default, int copies, size_t *len) {
    sbuf d = {0};
    sb_puts(&d, "<!DOCTYPE r [\n<!NOTATION n1 SYSTEM \"n1\">\n<!NOTATION n2 SYSTEM \"n2\">\n");
    family_entities(&d);
    if (as_default) sb_printf(&d, "<!ATTLIST x a %s \"", type);
    else sb_printf(&d, "<!ATTLIST x a %s #IMPLIED", type);
    if (as_default) sb_puts(&d, value), sb_puts(&d, "\"");
    sb_puts(&d, ">\n]>\n<r>");
    for (int i = 0; i < copies; i++) {
        if (as_default) sb_puts(&d, "<x/>");
        else sb_puts(&d, "<x a=\""), sb_puts(&d, value), sb_puts(&d, "\"/>");
        sb_puts(&d, "text\n");
    }
    sb_puts(&d, "</r>");
    *len = d.len;
    return d.p;
}

/* Every chunk size, with the given options: the same outcome each time, and
 * the values the reference normalizer gives. */
static void check_family_doc(const char *doc, size_t len, const stax_reader_options *opt, const char *want,
                             int copies, int as_default, const char *what) {
    outcome first = read_doc(doc, len, 0, opt);
    cr_assert_eq(first.status, STAX_END, "%s: %s (%s)", what, stax_test_status_name(first.status), first.msg);
    cr_assert_eq(first.n, (size_t)copies + 1, "%s: %zu elements", what, first.n);
    for (int i = 1; i <= copies; i++) {
        cr_assert_not_null(first.vals[i], "%s: no attribute", what);
        cr_assert_str_eq(first.vals[i], want, "%s: element %d", what, i);
        cr_assert_eq(first.flags[i], as_default ? STAX_ATTRF_DEFAULTED : 0u, "%s", what);
    }
    for (size_t c = 1; c < stax_test_chunk_count; c++) {
        outcome o = read_doc(doc, len, stax_test_chunk_sizes[c], opt);
        cr_assert(same_outcome(&o, &first), "%s: chunk size %zu differs", what, stax_test_chunk_sizes[c]);
        outcome_free(&o);
    }
    outcome_free(&first);
}

Test(hardening, attribute_values_every_type_and_source, .timeout = 120) {
    static const int copies = 5;
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
            for (int as_default = 0; as_default < 2; as_default++) {
                size_t len;
                char *doc = family_doc(types[t], values[v], as_default, copies, &len);
                char *want = ref_value(values[v], t != 0);
                char what[160];
                /* with an allocator: default options, and batches of two events */
                snprintf(what, sizeof what, "type %s, value %zu, %s", types[t], v, as_default ? "default" : "in the tag");
                check_family_doc(doc, len, NULL, want, copies, as_default, what);
                stax_reader_options small = {0};
                small.batch_events = 2;
                check_family_doc(doc, len, &small, want, copies, as_default, what);
                /* in a fixed block of exactly the size the options need, with an
                 * arena (max_token) a few values fill: tags are rolled back and
                 * parsed again on an empty batch */
                stax_reader_options fx = {0};
                fx.max_token = 12 * 1024;
                fx.max_dtd = 256 * 1024;
                size_t need = stax_reader_memory_size(&fx);
                cr_assert_gt(need, 0);
                fx.memory = malloc(need);
                fx.memory_size = need;
                cr_assert_not_null(fx.memory);
                snprintf(what, sizeof what, "type %s, value %zu, %s, fixed block", types[t], v,
                         as_default ? "default" : "in the tag");
                check_family_doc(doc, len, &fx, want, copies, as_default, what);
                free(fx.memory);
                free(want);
                free(doc);
            }
        }
    }
    ents_clear();
}

/* Chains where each entity refers to the one before ten times, the innermost
 * starting with a space: 2 x 10^d bytes. Up to max_token they expand; past
 * it the tag is refused with the limit's name and value, at every chunk size
 * and in a fixed block, for CDATA and tokenized types, in the tag and as a
 * default (where the DTD refuses it). */
Test(hardening, nested_chains_up_to_max_token, .timeout = 120) {
    for (int depth = 1; depth <= 6; depth++) {
        for (int tokenized = 0; tokenized < 2; tokenized++) {
            for (int as_default = 0; as_default < 2; as_default++) {
                ents_clear();
                sbuf d = {0};
                sb_puts(&d, "<!DOCTYPE r [\n");
                ent_set("c0", " x");
                char name[8], prev[8] = "c0";
                for (int k = 1; k <= depth; k++) {
                    sbuf t = {0};
                    sb_puts(&t, "");
                    for (int j = 0; j < 10; j++) sb_printf(&t, "&%s;", prev);
                    snprintf(name, sizeof name, "c%d", k);
                    ents[n_ents].name = strdup(name);
                    ents[n_ents].text = t.p;
                    n_ents++;
                    snprintf(prev, sizeof prev, "%s", name);
                }
                for (size_t i = 0; i < n_ents; i++) declare(&d, ents[i].name, ents[i].text);
                sb_printf(&d, "<!ATTLIST x a %s ", tokenized ? "NMTOKENS" : "CDATA");
                if (as_default) sb_printf(&d, "\"&c%d;\">\n", depth);
                else sb_puts(&d, "#IMPLIED>\n");
                sb_printf(&d, "]>\n<r><x%s%s%s/></r>", as_default ? "" : " a=\"&", as_default ? "" : prev,
                          as_default ? "" : ";\"");
                char lit[16];
                snprintf(lit, sizeof lit, "&%s;", prev);
                stax_reader_options opts[2] = {{0}, {0}};
                opts[0].max_dtd = (size_t)4 << 20; /* room for a default of 1 MiB */
                opts[1].max_token = (size_t)1 << 20;
                opts[1].max_dtd = (size_t)4 << 20;
                size_t need = stax_reader_memory_size(&opts[1]);
                opts[1].memory = malloc(need);
                opts[1].memory_size = need;
                for (int m = 0; m < 2; m++) {
                    outcome first = read_doc(d.p, d.len, 0, &opts[m]);
                    if (depth <= 5) {
                        char *want = ref_value(lit, tokenized);
                        cr_assert_eq(first.status, STAX_END, "depth %d: %s", depth, first.msg);
                        cr_assert_str_eq(first.vals[1], want);
                        free(want);
                    } else {
                        cr_assert_eq(first.status, STAX_E_LIMIT_TOKEN, "depth %d: %s %s", depth,
                                     stax_test_status_name(first.status), first.msg);
                        cr_assert(strstr(first.msg, "max_token (1048576 bytes)"), "%s", first.msg);
                    }
                    /* every chunk size in a full run; a sample (harness.h) has the four
                     * readings of a chain (in the tag or as a default, allocator or
                     * block) take turns, each chunk size read by one of them at least:
                     * the megabyte values of the deep chains are most of the time */
                    for (size_t c = 1; c < stax_test_chunk_count; c++) {
                        if (!stax_test_sampled(c + (size_t)(as_default * 2 + m))) continue;
                        outcome o = read_doc(d.p, d.len, stax_test_chunk_sizes[c], &opts[m]);
                        cr_assert(same_outcome(&o, &first), "depth %d: chunk size %zu differs", depth,
                                  stax_test_chunk_sizes[c]);
                        outcome_free(&o);
                    }
                    outcome_free(&first);
                }
                free(opts[1].memory);
                for (size_t i = 1; i < n_ents; i++) free((char *)ents[i].name); /* c0's is a literal */
                ents_clear();
                free(d.p);
            }
        }
    }
}

/* More entity nesting than max_entity_depth in an attribute value. */
Test(hardening, attribute_nesting_past_max_entity_depth) {
    sbuf d = {0};
    sb_puts(&d, "<!DOCTYPE r [<!ENTITY n0 \"v\">");
    for (int k = 1; k <= 20; k++) sb_printf(&d, "<!ENTITY n%d \"&n%d;\">", k, k - 1);
    sb_puts(&d, "]><r a=\"&n20;\"/>");
    stax_reader_options o = {0};
    o.max_entity_depth = 8;
    char want[64];
    size_t at = (size_t)(strstr(d.p, "a=\"&") + 3 - d.p); /* the reference in the tag */
    snprintf(want, sizeof want, "ERROR LIMIT_ENTITY @1:%zu:%zu", at + 1, at);
    stax_test_expect_status(d.p, d.len, &o, want);
    outcome r = read_doc(d.p, d.len, 0, &o);
    cr_assert(strstr(r.msg, "max_entity_depth (8)"), "%s", r.msg);
    o.max_entity_depth = 32;
    r = read_doc(d.p, d.len, 3, &o);
    cr_assert_eq(r.status, STAX_END, "%s", r.msg);
    cr_assert_str_eq(r.vals[0], "v");
    outcome_free(&r);
    free(d.p);
}

/* ================================================================ expansion in flat memory */

/* 4 MiB of whitespace, then one attribute with 4,000 references to a 100 KiB
 * entity: 400 MB if it were expanded. It stops at max_token, in a few MiB,
 * with the limit's name and value in the message. */
Test(hardening, attribute_expansion_is_refused_in_flat_memory, .timeout = 30) {
    size_t ws = (size_t)4 << 20, big = 100 * 1024, refs = 4000;
    char *doc = malloc(ws + big + refs * 4 + 200);
    cr_assert_not_null(doc);
    size_t o = (size_t)sprintf(doc, "<!DOCTYPE r [<!ENTITY b \"");
    memset(doc + o, 'b', big);
    o += big;
    o += (size_t)sprintf(doc + o, "\">]>");
    memset(doc + o, ' ', ws);
    o += ws;
    o += (size_t)sprintf(doc + o, "<r a=\"");
    for (size_t i = 0; i < refs; i++) o += (size_t)sprintf(doc + o, "&b;");
    o += (size_t)sprintf(doc + o, "\"/>");
    for (size_t c = 0; c < stax_test_chunk_count; c++) {
        stax_test_meter m = {0, 0};
        stax_reader_options opt = {0};
        opt.alloc = stax_test_meter_alloc;
        opt.alloc_ud = &m;
        outcome r = read_doc(doc, o, stax_test_chunk_sizes[c] ? stax_test_chunk_sizes[c] * 1000 : 0, &opt);
        cr_assert_eq(r.status, STAX_E_LIMIT_TOKEN, "%s", r.msg);
        cr_assert(strstr(r.msg, "max_token (1048576 bytes)"), "%s", r.msg);
        cr_assert_eq(m.now, 0);
        cr_assert_lt(m.peak, (size_t)8 << 20, "peak %zu bytes", m.peak);
        outcome_free(&r);
    }
    free(doc);
}

/* ================================================================ limit messages */

static void expect_message(const char *doc, const stax_reader_options *o, int status, const char *part) {
    outcome r = read_doc(doc, strlen(doc), 0, o);
    cr_assert_eq(r.status, status, "%s: got %s (%s)", doc, stax_test_status_name(r.status), r.msg);
    cr_assert(strstr(r.msg, part), "%s: message '%s' lacks '%s'", doc, r.msg, part);
    outcome_free(&r);
}

Test(hardening, every_limit_message_names_its_option_and_value) {
    stax_reader_options o = {0};
    o.max_depth = 3;
    expect_message("<a><a><a><a/></a></a></a>", &o, STAX_E_LIMIT_DEPTH, "max_depth (3)");
    memset(&o, 0, sizeof o);
    o.max_name = 4;
    expect_message("<abcde/>", &o, STAX_E_LIMIT_NAME, "max_name (4 bytes)");
    expect_message("<a bcdef='1'/>", &o, STAX_E_LIMIT_NAME, "max_name (4 bytes)");
    expect_message("<!DOCTYPE a [<!ENTITY abcdef 'x'>]><a>&abcdef;</a>", &o, STAX_E_LIMIT_NAME, "max_name (4 bytes)");
    memset(&o, 0, sizeof o);
    o.max_attrs = 2;
    expect_message("<a b='1' c='2' d='3'/>", &o, STAX_E_LIMIT_ATTRS, "max_attrs (2)");
    memset(&o, 0, sizeof o);
    o.max_token = 64;
    o.max_text = 32;
    expect_message("<a><!-- a comment that is longer than sixty-four bytes in all, surely --></a>", &o,
                   STAX_E_LIMIT_TOKEN, "max_token (64 bytes)");
    memset(&o, 0, sizeof o);
    o.max_entity_depth = 2;
    expect_message("<!DOCTYPE a [<!ENTITY x '&y;'><!ENTITY y '&z;'><!ENTITY z 'v'>]><a>&x;</a>", &o,
                   STAX_E_LIMIT_ENTITY, "max_entity_depth (2)");
    memset(&o, 0, sizeof o);
    o.entity_threshold = 100;
    o.entity_amplification = 2;
    expect_message("<!DOCTYPE a [<!ENTITY x 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>]><a>&x;&x;&x;&x;&x;&x;</a>",
                   &o, STAX_E_LIMIT_ENTITY, "entity_threshold 100, entity_amplification 2");
    memset(&o, 0, sizeof o);
    o.max_dtd = 512;
    expect_message("<!DOCTYPE a [<!ENTITY x 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                   "'>]><a/>",
                   &o, STAX_E_LIMIT_DTD, "max_dtd (512 bytes)");
    memset(&o, 0, sizeof o);
    o.flags = STAX_READ_NAMESPACES;
    o.max_ns = 1;
    expect_message("<a xmlns:p='u' xmlns:q='v'/>", &o, STAX_E_LIMIT_NS, "max_ns (1)");
    o.max_ns = 0;
    o.max_ns_bytes = 256;
    expect_message("<a xmlns:p='uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"
                   "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu"
                   "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu'/>",
                   &o, STAX_E_LIMIT_NS, "max_ns_bytes (256 bytes)");
}

/* Small limits: a tag of 400 name bytes is over max_token and max_name. */
static stax_reader_options hd_small_tags(void) {
    stax_reader_options o = {0};
    o.max_token = 256;
    o.max_text = 128;
    o.max_name = 16;
    return o;
}

/* A name over max_name is a name error even when its tag is also over
 * max_token, whether the tag comes whole or in pieces. */
Test(hardening, name_limit_comes_before_token_limit) {
    stax_reader_options o = hd_small_tags();
    sbuf d = {0};
    sb_puts(&d, "<r>\n<");
    for (int i = 0; i < 400; i++) sb_puts(&d, "n");
    sb_puts(&d, "/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_NAME @2:1:4");
    d.len = 0;
    sb_puts(&d, "<r>\n<e a='1' b='2' ");
    for (int i = 0; i < 400; i++) sb_puts(&d, "n");
    sb_puts(&d, "='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_NAME @2:1:4");
    /* an attribute given twice before the long name: parsing stops there */
    d.len = 0;
    sb_puts(&d, "<r>\n<e a='1' a='2' ");
    for (int i = 0; i < 400; i++) sb_puts(&d, "n");
    sb_puts(&d, "='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:4");
    /* a long name that fits max_name, in a tag over max_token */
    d.len = 0;
    sb_puts(&d, "<r>\n<e a='");
    for (int i = 0; i < 400; i++) sb_puts(&d, "v");
    sb_puts(&d, "'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:4");
    free(d.p);
}

/* A tag over max_token is read with the tag's own grammar over its first
 * max_token bytes: values of any characters are read past, a value with a
 * reference or a name that runs into the cut is where it stops (the token
 * limit), and what comes before the tag's grammar (a second root) too. */
static void hd_tag(sbuf *d, const char *pre, const char *value, size_t reps, const char *fill, const char *post) {
    d->len = 0;
    sb_puts(d, pre);
    sb_puts(d, value);
    for (size_t i = 0; i < reps; i++) sb_puts(d, fill);
    sb_puts(d, post);
}

Test(hardening, token_limit_reads_the_tag_with_its_grammar) {
    stax_reader_options o = hd_small_tags();
    sbuf d = {0};
    hd_tag(&d, "<r>\n<e a='", "\xc3\xa9\t\n' ", 400, "n", "='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_NAME @2:1:4");
    hd_tag(&d, "<r>\n<e a='", "&amp;' ", 400, "n", "='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:4");
    hd_tag(&d, "<r>\n<e a='", "\xc3' ", 400, "n", "='3'/></r>"); /* not UTF-8: not a limit */
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:4");
    hd_tag(&d, "<r/>\n<", "", 400, "n", "/>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:5");
    /* the third attribute of two allowed: its name ends 6 bytes before the
     * cut, or runs into it (and may go on past it) */
    o.max_attrs = 2;
    hd_tag(&d, "<r>\n<e a='", "", 226, "v", "' b='2' cccccccccc='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_ATTRS @2:1:4");
    hd_tag(&d, "<r>\n<e a='", "", 236, "v", "' b='2' cccccccccc='3'/></r>");
    stax_test_expect_status(d.p, d.len, &o, "ERROR LIMIT_TOKEN @2:1:4");
    free(d.p);
}

/* ================================================================ namespaces in max_ns_bytes */

/* The bindings in scope are what counts: bindings that left scope in the
 * batch still being read do not, so the outcome does not depend on where
 * batches end (chunking, batch_events). */
Test(hardening, namespace_bytes_are_counted_in_scope_only) {
    sbuf d = {0};
    sb_puts(&d, "<r xmlns:a='urn:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'>");
    for (int i = 0; i < 200; i++)
        sb_printf(&d, "<e xmlns:p%d='urn:%040d'><a:f xmlns:q='urn:q'/></e>", i, i);
    sb_puts(&d, "</r>");
    for (int be = 2; be <= 256; be *= 4) {
        stax_reader_options o = {0};
        o.flags = STAX_READ_NAMESPACES;
        o.max_ns_bytes = 512;
        o.batch_events = (uint32_t)be;
        char *dump = stax_test_events_all(d.p, d.len, &o, 0);
        cr_assert_str_eq(stax_test_last_line(dump), "END-OF-DOCUMENT");
        free(dump);
        /* a binding costs its prefix, its URI and a record (40 bytes on
         * 64-bit targets, less on 32-bit ones): too little for the root's
         * binding (1 + 68) and the first element's (2 + 44): the error is at
         * that declaration */
        size_t rec = stax__ns_cost(0, 0);
        o.max_ns_bytes = 115 + 2 * rec - 1;
        char want[64];
        size_t at = (size_t)(strstr(d.p, "xmlns:p0") - d.p);
        snprintf(want, sizeof want, "ERROR LIMIT_NS @1:%zu:%zu", at + 1, at);
        stax_test_expect_status(d.p, d.len, &o, want);
        o.max_ns_bytes = 115 + 2 * rec; /* just enough for both, not for a:f's (1 + 5) */
        at = (size_t)(strstr(d.p, "xmlns:q") - d.p);
        snprintf(want, sizeof want, "ERROR LIMIT_NS @1:%zu:%zu", at + 1, at);
        stax_test_expect_status(d.p, d.len, &o, want);
        o.max_ns_bytes = 123 + 3 * rec; /* all three, with prefixes up to p199 */
        dump = stax_test_events_all(d.p, d.len, &o, 0);
        cr_assert_str_eq(stax_test_last_line(dump), "END-OF-DOCUMENT");
        free(dump);
    }
    free(d.p);
}

/* ================================================================ fixed blocks */

/* With every option zero, any block from STAX_READER_MIN_MEMORY up works,
 * and what the reader uses stays inside it. */
Test(hardening, fixed_block_defaults_fit_every_size) {
    static const char doc[] = "<cfg v='2'><sensor id='t1' rate='10'/><sensor id='t2' rate='20'>on</sensor></cfg>";
    size_t cap = 1 << 20;
    unsigned char *blk = malloc(cap + 16);
    cr_assert_not_null(blk);
    for (size_t n = STAX_READER_MIN_MEMORY; n <= cap; n += n / 7 + 16) {
        for (size_t mis = 0; mis < 16; mis += 5) {
            stax_reader_options o = {0};
            o.memory = blk + mis;
            o.memory_size = n;
            cr_assert_eq(stax_reader_check_options(&o, NULL), STAX_OK, "block of %zu", n);
            stax_reader *r = stax_reader_new(&o);
            cr_assert_not_null(r, "block of %zu (+%zu)", n, mis);
            cr_assert_leq(stax_reader_memory_peak(r), n);
            stax_reader_free(r);
            outcome out = read_doc(STAX_DOC(doc), 1, &o);
            cr_assert_eq(out.status, STAX_END, "block of %zu: %s", n, out.msg);
            outcome_free(&out);
        }
    }
    free(blk);
}

/* stax_reader_memory_size(opt) bytes are enough whatever the alignment of
 * the block; 16 bytes less are not. */
Test(hardening, memory_size_is_exact) {
    /* every option set (a zero field in a fixed-block reader is sized from
     * the block, so only fully set options have one exact size) */
    stax_reader_options opts[3];
    memset(opts, 0, sizeof opts);
    opts[0].max_token = 256, opts[0].max_text = 128, opts[0].batch_events = 4, opts[0].max_attrs = 4;
    opts[0].max_depth = 8, opts[0].max_name = 32, opts[0].read_buffer = 64, opts[0].max_dtd = 64;
    opts[0].max_entity_depth = 2, opts[0].max_ns = 4, opts[0].max_ns_bytes = 512;
    opts[0].entity_threshold = 1000, opts[0].entity_amplification = 10;
    opts[1] = opts[0];
    opts[1].flags = STAX_READ_NAMESPACES;
    opts[2] = opts[0];
    opts[2].max_token = 100000, opts[2].max_dtd = 10000, opts[2].read_buffer = 1000, opts[2].max_depth = 100;
    for (int i = 0; i < 3; i++) {
        size_t need = stax_reader_memory_size(&opts[i]);
        cr_assert_gt(need, 0);
        unsigned char *blk = malloc(need + 16);
        cr_assert_not_null(blk);
        for (size_t mis = 0; mis < 16; mis++) {
            stax_reader_options o = opts[i];
            o.memory = blk + mis;
            o.memory_size = need;
            stax_reader *r = stax_reader_new(&o);
            cr_assert_not_null(r, "options %d, misaligned by %zu: %zu bytes", i, mis, need);
            cr_assert_leq(stax_reader_memory_peak(r), need);
            stax_reader_free(r);
            o.memory_size = need - 16;
            const char *why = NULL;
            cr_assert_null(stax_reader_new(&o), "options %d: %zu bytes", i, need - 16);
            cr_assert_eq(stax_reader_check_options(&o, &why), STAX_E_NOMEM);
        }
        free(blk);
    }
    /* the small options fit in 4 KiB: firmware reading a sensor configuration */
    cr_assert_leq(stax_reader_memory_size(&opts[0]), 4096);
    /* with zero fields, memory_size counts the allocator's defaults, which
     * are never smaller than those sized from a block: enough, if not exact */
    stax_reader_options part = {0};
    part.max_token = 4096;
    size_t need = stax_reader_memory_size(&part);
    part.memory = malloc(need);
    part.memory_size = need;
    stax_reader *r = stax_reader_new(&part);
    cr_assert_not_null(r);
    stax_reader_free(r);
    free(part.memory);
}

/* stax_reader_effective_options: the limits a block gives, as plain
 * options. Read with the allocator under them, a document meets the same
 * limit, with the same message, as in the block; a larger block never gives
 * a smaller limit; fields set by the caller are kept. */
Test(hardening, effective_options_are_what_the_block_reads_with) {
    /* documents over the defaults of small blocks in one way each: a DTD,
     * depth, a long name, attributes, a long comment */
    sbuf docs[5];
    memset(docs, 0, sizeof docs);
    sb_puts(&docs[0], "<!DOCTYPE r [<!ENTITY e 'entity text'>");
    for (int i = 0; i < 40; i++) sb_puts(&docs[0], "<!ENTITY f 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>");
    sb_puts(&docs[0], "]><r>&e;</r>");
    sb_puts(&docs[1], "<r>");
    for (int i = 0; i < 14; i++) sb_puts(&docs[1], "<d>");
    for (int i = 0; i < 14; i++) sb_puts(&docs[1], "</d>");
    sb_puts(&docs[1], "</r>");
    sb_puts(&docs[2], "<r><");
    for (int i = 0; i < 300; i++) sb_puts(&docs[2], "n");
    sb_puts(&docs[2], "/></r>");
    sb_puts(&docs[3], "<r><e a1='1' a2='2' a3='3' a4='4' a5='5' a6='6' a7='7' a8='8' a9='9' a10='1' a11='2' a12='3'/></r>");
    sb_puts(&docs[4], "<r><!--");
    for (int i = 0; i < 3000; i++) sb_puts(&docs[4], "c");
    sb_puts(&docs[4], "--></r>");
    size_t cap = 1 << 20;
    unsigned char *blk = malloc(cap);
    cr_assert_not_null(blk);
    stax_reader_options prev = {0};
    int limited = 0;
    for (size_t n = STAX_READER_MIN_MEMORY / 2; n <= cap; n *= 2) {
        stax_reader_options o = {0}, eff;
        o.memory = blk;
        o.memory_size = n;
        o.max_entity_depth = 3; /* set by the caller: kept */
        const char *why = NULL;
        int st = stax_reader_effective_options(&o, &eff, &why);
        cr_assert_eq(st, stax_reader_check_options(&o, NULL));
        if (st != STAX_OK) continue; /* below the smallest profile with this option */
        cr_assert_eq(eff.max_entity_depth, 3);
        cr_assert(eff.memory == blk && eff.memory_size == n);
        cr_assert(eff.max_depth && eff.max_name && eff.max_attrs && eff.max_token && eff.max_text &&
                      eff.batch_events && eff.max_dtd && eff.max_ns && eff.max_ns_bytes && eff.read_buffer &&
                      eff.entity_amplification && eff.entity_threshold,
                  "block of %zu: a zero field left", n);
        cr_assert_geq(eff.max_depth, prev.max_depth, "block of %zu", n);
        cr_assert_geq(eff.max_token, prev.max_token, "block of %zu", n);
        cr_assert_geq(eff.max_dtd, prev.max_dtd, "block of %zu", n);
        cr_assert_geq(eff.max_attrs, prev.max_attrs, "block of %zu", n);
        cr_assert_geq(eff.max_name, prev.max_name, "block of %zu", n);
        cr_assert_leq(stax_reader_memory_size(&eff), n, "block of %zu", n);
        prev = eff;
        stax_reader_options heap = eff;
        heap.memory = NULL;
        heap.memory_size = 0;
        for (int k = 0; k < 5; k++) {
            for (size_t chunk = 0; chunk <= 7; chunk += 7) {
                outcome a = read_doc(docs[k].p, docs[k].len, chunk, &o);
                outcome b = read_doc(docs[k].p, docs[k].len, chunk, &heap);
                cr_assert(same_outcome(&a, &b),
                          "document %d, block of %zu, chunk %zu: %d \"%s\" in the block, %d \"%s\" with the allocator", k,
                          n, chunk, a.status, a.msg, b.status, b.msg);
                limited += a.status < 0;
                outcome_free(&a);
                outcome_free(&b);
            }
        }
    }
    /* without a block: the allocator's defaults, as documented */
    stax_reader_options z = {0}, eff;
    cr_assert_eq(stax_reader_effective_options(&z, &eff, NULL), STAX_OK);
    cr_assert_eq(eff.max_depth, 1024);
    cr_assert_eq(eff.max_name, 1024);
    cr_assert_eq(eff.max_attrs, 256);
    cr_assert_eq(eff.max_token, (size_t)1 << 20);
    cr_assert_eq(eff.max_text, 65536);
    cr_assert_eq(eff.batch_events, 256);
    cr_assert_eq(eff.max_dtd, (size_t)1 << 20);
    cr_assert_eq(eff.read_buffer, 65536);
    /* a refused option: the status and reason, *out untouched */
    z.max_text = 2;
    memset(&eff, 0xA5, sizeof eff);
    const char *why = NULL;
    cr_assert_eq(stax_reader_effective_options(&z, &eff, &why), STAX_E_USAGE);
    cr_assert(why && strstr(why, "max_text"));
    cr_assert_eq(eff.max_depth, 0xA5A5A5A5u);
    cr_assert_geq(limited, 10, "the documents should meet the limits of the small blocks");
    free(blk);
    for (int k = 0; k < 5; k++) sb_free(&docs[k]);
}

/* The rule users can rely on: if a document streams in a block of N bytes at
 * some chunk size, it streams at every block size >= N and every chunk size.
 * With fixed options the outcome does not depend on the block at all; with
 * the defaults (sized from the block) success only grows with it. */
Test(hardening, fixed_block_outcome_is_monotonic, .timeout = 120) {
    stax_test_fixture *fx;
    size_t nfx = stax_test_load_fixtures(&fx);
    size_t cap = 256 * 1024;
    unsigned char *blk = malloc(cap);
    cr_assert_not_null(blk);
    stax_reader_options fixed_opt = {0};
    fixed_opt.max_token = 2048;
    fixed_opt.max_dtd = 4096;
    fixed_opt.max_depth = 64;
    fixed_opt.max_name = 64;
    size_t need = stax_reader_memory_size(&fixed_opt);
    for (size_t i = 0; i < nfx; i++) {
        /* fixed options: one outcome (every event, position and the status)
         * at every block size and chunk size */
        stax_reader_options o = fixed_opt;
        o.memory = blk;
        o.memory_size = need;
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, &o, STAX_DUMP_POS, NULL);
        cr_assert(!strstr(ref, "NOMEM"), "%s:\n%s", fx[i].name, ref);
        for (size_t n = need; n <= cap; n = n * 3 / 2) {
            o.memory_size = n;
            for (size_t c = 0; c < stax_test_chunk_count; c++) {
                if (fx[i].bad && c) continue; /* events before an error may end a batch early */
                char *d = stax_test_events_ex(fx[i].data, fx[i].len, stax_test_chunk_sizes[c], &o, STAX_DUMP_POS, NULL);
                cr_assert_str_eq(d, ref, "%s: block %zu, chunk %zu", fx[i].name, n, stax_test_chunk_sizes[c]);
                free(d);
            }
        }
        free(ref);
        /* defaults from the block: once it streams, it streams at every larger size */
        int streamed = 0;
        for (size_t n = STAX_READER_MIN_MEMORY; n <= cap; n = n * 5 / 4) {
            stax_reader_options od = {0};
            od.memory = blk;
            od.memory_size = n;
            int ok = -1;
            for (size_t c = 0; c < stax_test_chunk_count; c++) {
                int st;
                char *d = stax_test_events(fx[i].data, fx[i].len, stax_test_chunk_sizes[c], &od, &st);
                free(d);
                cr_assert(st != STAX_E_NOMEM, "%s: NOMEM after creation", fx[i].name);
                if (ok < 0) ok = st == STAX_END;
                cr_assert_eq(st == STAX_END, ok, "%s, block %zu: chunk size %zu decides", fx[i].name, n,
                             stax_test_chunk_sizes[c]);
            }
            if (streamed) cr_assert(ok, "%s streamed in a smaller block but not in %zu bytes", fx[i].name, n);
            streamed |= ok;
        }
        cr_assert(streamed == !fx[i].bad, "%s: %s", fx[i].name, streamed ? "streams" : "never streams");
    }
    free(blk);
    stax_test_free_fixtures(fx, nfx);
}
