/* Save and resume: a reader saved at a batch boundary and resumed from the
 * rest of the bytes reads exactly as the uninterrupted one (events with
 * names, attributes, text, depth, flags and positions; the final status, its
 * position and its message), for the fixtures, a sample of the W3C suite and
 * the generated shapes, at resume chunk sizes 1, 7 and whole; through a fixed
 * block; and corrupt, truncated or foreign contexts are refused. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define _DEFAULT_SOURCE /* DT_REG */
#include "harness.h"
#include "reader.h" /* stax__context_seal */
#include "stax.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- dumps */

static void put_str(stax_test_buf *o, stax_str s) {
    stax_test_buf_printf(o, "%zu:", s.len);
    stax_test_buf_put(o, s.ptr ? s.ptr : "", s.len);
}

static void dump_batch(stax_test_buf *o, const stax_batch *b) {
    for (size_t i = 0; i < b->count; i++) {
        const stax_event *e = &b->events[i];
        stax_test_buf_printf(o, "%u f%u d%u ", e->type, e->flags, (unsigned)e->depth);
        put_str(o, stax_ev_name(b, i));
        stax_test_buf_puts(o, " ");
        put_str(o, stax_ev_text(b, i));
        stax_test_buf_puts(o, " ");
        put_str(o, stax_ev_pubid(b, i));
        stax_test_buf_puts(o, " ");
        put_str(o, stax_ev_sysid(b, i));
        if (b->ev_ns && (e->type == STAX_EV_START || e->type == STAX_EV_END)) {
            stax_test_buf_puts(o, " ns=");
            put_str(o, b->ev_ns[i].uri);
            stax_test_buf_puts(o, ",");
            put_str(o, b->ev_ns[i].local);
        }
        for (uint32_t k = 0; k < e->attr_count; k++) {
            const stax_attr *a = &b->attrs[e->attr_first + k];
            stax_test_buf_printf(o, " [%u ", (unsigned)a->flags);
            put_str(o, a->name);
            stax_test_buf_puts(o, "=");
            put_str(o, a->value);
            if (b->attr_ns) {
                stax_test_buf_puts(o, " ");
                put_str(o, b->attr_ns[e->attr_first + k].uri);
            }
            stax_test_buf_puts(o, "]");
        }
        stax_pos pos = stax_ev_pos(b, i);
        stax_test_buf_printf(o, " @%llu:%llu:%llu\n", (unsigned long long)pos.line, (unsigned long long)pos.column,
                             (unsigned long long)pos.offset);
    }
}

static void dump_status(stax_test_buf *o, stax_reader *r, int st) {
    stax_pos p = stax_reader_error_pos(r);
    stax_test_buf_printf(o, "STATUS %d @%llu:%llu:%llu %s depth=%u\n", st, (unsigned long long)p.line,
                         (unsigned long long)p.column, (unsigned long long)p.offset, stax_reader_message(r),
                         (unsigned)stax_reader_depth(r));
}

/* ---------------------------------------------------------------- reading */

typedef struct save_point {
    size_t dump_len; /* the dump's length when it was saved */
    char *ctx;
    size_t len;
    stax_pos pos;
} save_point;

typedef struct saves {
    save_point *v;
    size_t n, cap;
} saves;

static void try_save(stax_reader *r, saves *s, const stax_test_buf *o) {
    size_t len = 0;
    int st = stax_reader_save(r, NULL, 0, &len);
    if (st == STAX_E_NOSAVE) return;
    cr_assert_eq(st, STAX_OK, "save with cap 0: %d", st);
    cr_assert_gt(len, 0);
    char *ctx = malloc(len);
    size_t len2 = 0;
    if (len > 1) cr_assert_eq(stax_reader_save(r, ctx, len - 1, &len2), STAX_E_FULL);
    cr_assert_eq(len2, len, "a short buffer is told the size");
    cr_assert_eq(stax_reader_save(r, ctx, len, &len2), STAX_OK);
    cr_assert_eq(len2, len);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    save_point *p = &s->v[s->n++];
    p->dump_len = o->len;
    p->ctx = ctx;
    p->len = len;
    cr_assert_eq(stax_context_position(ctx, len, &p->pos), STAX_OK);
}

static void free_saves(saves *s) {
    for (size_t i = 0; i < s->n; i++) free(s->v[i].ctx);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Feed doc[0, len) to r in chunks of `chunk` (0: one), dumping everything;
 * with s, try to save after every batch and every request for input. */
static void read_all(stax_reader *r, const char *doc, size_t len, size_t chunk, stax_test_buf *o, saves *s) {
    size_t off = 0;
    int st;
    if (!chunk) chunk = len ? len : 1;
    for (;;) {
        size_t n = len - off < chunk ? len - off : chunk;
        if (n || off < len) st = stax_reader_feed(r, doc + off, n);
        else st = stax_reader_end(r);
        off += n;
        if (st < 0) break;
        const stax_batch *b;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {
            dump_batch(o, b);
            if (s) try_save(r, s, o);
        }
        if (st != STAX_NEED_INPUT) break;
        if (s) try_save(r, s, o);
        if (off == len) {
            st = stax_reader_end(r);
            if (st < 0) break;
            while ((st = stax_reader_next(r, &b)) == STAX_OK) dump_batch(o, b);
            break;
        }
    }
    dump_status(o, r, st);
}

/* The uninterrupted read, from after the saved point, compared with the
 * resumed one at each chunk size; a sample of the points when there are many. */
static size_t check_points(const char *name, const char *doc, size_t len, const stax_reader_options *opt,
                           const stax_test_buf *ref, const saves *s, size_t most) {
    static const size_t chunks[] = {1, 7, 0};
    size_t step = s->n > most ? s->n / most : 1, checked = 0;
    for (size_t i = 0; i < s->n; i += step) {
        const save_point *p = &s->v[i];
        cr_assert_leq(p->pos.offset, len);
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            stax_reader *r = stax_reader_new(opt);
            cr_assert(r);
            int st = stax_reader_resume(r, p->ctx, p->len);
            cr_assert_eq(st, STAX_OK, "%s: resume refused: %s", name, stax_reader_message(r));
            stax_test_buf o = {0};
            read_all(r, doc + p->pos.offset, len - (size_t)p->pos.offset, chunks[c], &o, NULL);
            const char *want = ref->p + p->dump_len;
            cr_assert_str_eq(o.p, want, "%s: resumed at byte %llu (point %zu), chunk %zu:\n--- got\n%s--- want\n%s", name,
                             (unsigned long long)p->pos.offset, i, chunks[c], o.p, want);
            stax_test_buf_free(&o);
            stax_reader_free(r);
        }
        checked++;
    }
    return checked;
}

/* Read once with small batches, saving wherever the reader can; resume from
 * a sample of the points. Returns how many points were checked. */
static size_t round_trip(const char *name, const char *doc, size_t len, const stax_reader_options *opt, size_t chunk,
                         size_t most) {
    stax_reader *r = stax_reader_new(opt);
    cr_assert(r);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, doc, len, chunk, &ref, &s);
    stax_reader_free(r);
    size_t n = check_points(name, doc, len, opt, &ref, &s, most);
    free_saves(&s);
    stax_test_buf_free(&ref);
    return n;
}

/* The option sets every document is read with: small batches for many
 * boundaries, a small max_text for split texts, namespaces, skipped
 * white space. */
static stax_reader_options option_set(int k) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.batch_events = 2;
    if (k == 1) o.batch_events = 3, o.max_text = 16;
    if (k == 2) o.flags = STAX_READ_NAMESPACES;
    if (k == 3) o.batch_events = 5, o.flags = STAX_READ_SKIP_WS;
    return o;
}
#define OPTION_SETS 4

static size_t round_trips(const char *name, const char *doc, size_t len, size_t most) {
    size_t n = 0;
    for (int k = 0; k < OPTION_SETS; k++) {
        stax_reader_options o = option_set(k);
        n += round_trip(name, doc, len, &o, 7, most);
    }
    return n;
}

/* ---------------------------------------------------------------- documents */

static const char rich[] =
    "<?xml version='1.0' standalone='yes'?>\n"
    "<!DOCTYPE r [\n"
    "  <!ENTITY e 'entity &amp; text'>\n"
    "  <!ENTITY m '<b x=\"1\">markup</b>'>\n"
    "  <!ENTITY % p 'unused'>\n"
    "  <!NOTATION gif SYSTEM 'image/gif'>\n"
    "  <!NOTATION pub PUBLIC 'pub id'>\n"
    "  <!ENTITY pic SYSTEM 'pic.gif' NDATA gif>\n"
    "  <!ATTLIST r xmlns:a CDATA #FIXED 'urn:a' d CDATA 'dflt'>\n"
    "  <!ATTLIST b t NMTOKENS '  x   y  ' x CDATA #IMPLIED>\n"
    "  <?pi in the subset?>\n"
    "]>\n"
    "<r><a:b xmlns='urn:default'><c>&e;</c>text &m; more<b/>\r\n"
    "<b t='z'>&#x10000;&lt;</b><![CDATA[cdata]]><!-- c --><?p d?></a:b>\n"
    "<deep><deeper xmlns:q='urn:q'><q:x q:y='1'>&m;&e;</q:x></deeper></deep>"
    "</r>\n<!-- after -->\n";

static void check_decls(const char *doc, size_t len, const stax_reader_options *opt) {
    stax_reader *r = stax_reader_new(opt);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, doc, len, 5, &ref, &s);
    cr_assert_gt(s.n, 0);
    const stax_decl *n0, *u0;
    const stax_dtd_pi *p0;
    size_t nn = stax_reader_notations(r, &n0), nu = stax_reader_unparsed_entities(r, &u0), np = stax_reader_dtd_pis(r, &p0);
    cr_assert(nn == 2 && nu == 1 && np == 1);
    stax_reader *q = stax_reader_new(opt);
    cr_assert_eq(stax_reader_resume(q, s.v[0].ctx, s.v[0].len), STAX_OK, "%s", stax_reader_message(q));
    const stax_decl *n1, *u1;
    const stax_dtd_pi *p1;
    cr_assert_eq(stax_reader_notations(q, &n1), nn);
    cr_assert_eq(stax_reader_unparsed_entities(q, &u1), nu);
    cr_assert_eq(stax_reader_dtd_pis(q, &p1), np);
    for (size_t i = 0; i < nn; i++) {
        cr_assert(stax_str_same(n0[i].name, n1[i].name) && stax_str_same(n0[i].pubid, n1[i].pubid) &&
                  stax_str_same(n0[i].sysid, n1[i].sysid));
        cr_assert_eq(n0[i].sysid.ptr == NULL, n1[i].sysid.ptr == NULL);
    }
    cr_assert(stax_str_same(u0[0].name, u1[0].name) && stax_str_same(u0[0].notation, u1[0].notation) &&
              stax_str_same(u0[0].sysid, u1[0].sysid));
    cr_assert(stax_str_same(p0[0].target, p1[0].target) && stax_str_same(p0[0].data, p1[0].data));
    stax_reader_free(q);
    stax_reader_free(r);
    free_saves(&s);
    stax_test_buf_free(&ref);
}

Test(resume, rich_document) {
    size_t n = round_trips("rich", STAX_DOC(rich), 1000);
    cr_assert_gt(n, 20, "only %zu save points", n);
    stax_reader_options o = option_set(2);
    check_decls(STAX_DOC(rich), &o);
}

/* Errors after the save point come with the same message and position. */
Test(resume, errors_after_the_point) {
    static const char *docs[] = {
        "<!DOCTYPE r [<!ENTITY e 'x'>]><r><a>&e;</a><b>&undeclared;</b></r>",
        "<r><a><b></b></a></c>",
        "<r xmlns:p='urn:p'><p:a></p:a><q:b/></r>",
        "<r><a>text</a></r><second/>",
        "<r><a>text</a>",
        ("<!DOCTYPE r [<!ENTITY a '&b;&b;&b;&b;'><!ENTITY b '&c;&c;&c;&c;'><!ENTITY c 'xxxxxxxxxxxxxxxx'>]>"
         "<r><x/><x/>&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;</r>"),
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        stax_reader_options o = option_set(2);
        o.entity_threshold = 64;
        o.entity_amplification = 1;
        cr_assert_gt(round_trip(docs[i], docs[i], strlen(docs[i]), &o, 3, 1000), 0, "%s", docs[i]);
    }
}

/* State that only shows later: the expansion meter's total, standalone, and
 * the external bytes read (part of the meter's input). Each document fails
 * after some save points, and only because of what was counted before them. */
static int resolve_text(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    (void)req;
    in->data = ud;
    in->len = strlen((const char *)ud);
    return STAX_OK;
}

Test(resume, state_that_shows_later) {
    stax_test_buf doc = {0};
    stax_test_buf_puts(&doc, "<!DOCTYPE r [<!ENTITY c 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>]><r>");
    for (int i = 0; i < 40; i++) stax_test_buf_puts(&doc, "<x>&c;</x>");
    stax_test_buf_puts(&doc, "</r>");
    stax_reader_options o = option_set(0);
    o.entity_threshold = 400;
    o.entity_amplification = 1;
    stax_reader *r = stax_reader_new(&o);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, doc.p, doc.len, 3, &ref, &s);
    stax_reader_free(r);
    cr_assert(strstr(ref.p, "STATUS -34"), "the meter's limit is reached: %s", stax_test_last_line(ref.p));
    cr_assert_gt(check_points("meter", doc.p, doc.len, &o, &ref, &s, 1000), 10);
    free_saves(&s);
    stax_test_buf_free(&ref);

    static const char sa[] = "<?xml version='1.0' standalone='yes'?><!DOCTYPE r [<!ENTITY % p '<!ENTITY e \"x\">'> %p;]>"
                             "<r><a/><b/><c/><d/>&e;</r>";
    o = option_set(0);
    cr_assert_gt(round_trip("standalone", STAX_DOC(sa), &o, 2, 1000), 3);

    /* an external entity of 400 bytes read early raises the budget of what follows */
    char ext[401];
    memset(ext, 'y', 400);
    ext[400] = 0;
    stax_test_buf_free(&doc);
    stax_test_buf_puts(&doc, "<!DOCTYPE r [<!ENTITY big SYSTEM 'big.txt'><!ENTITY c 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'>]><r>&big;");
    for (int i = 0; i < 20; i++) stax_test_buf_puts(&doc, "<x>&c;</x>");
    stax_test_buf_puts(&doc, "</r>");
    o = option_set(0);
    o.entity_threshold = 64;
    o.entity_amplification = 1;
    o.resolve = resolve_text;
    o.resolve_ud = ext;
    cr_assert_gt(round_trip("external bytes", doc.p, doc.len, &o, 3, 1000), 10);
    stax_test_buf_free(&doc);
}

Test(resume, fixtures, .timeout = 600) {
    stax_test_fixture *fx;
    size_t n = stax_test_load_fixtures(&fx), points = 0;
    cr_assert_gt(n, 10);
    for (size_t i = 0; i < n; i++) points += round_trips(fx[i].name, fx[i].data, fx[i].len, 24);
    stax_test_free_fixtures(fx, n);
    cr_log_info("fixtures: %zu save points checked", points);
    cr_assert_gt(points, 200);
}

/* Transcoded input: the offset counts input bytes, decoding restarts there. */
Test(resume, encodings) {
    static const char utf16le[] = "\xff\xfe<\0r\0>\0<\0a\0>\0\xe9\0<\0/\0a\0>\0<\0b\0/\0>\0<\0c\0>\0x\0<\0/\0c\0>\0<\0/\0r\0>\0";
    static const char latin1[] = "<?xml version='1.0' encoding='ISO-8859-1'?><r><a>\xe9\xe8</a><b/><c>\xff</c><d/></r>";
    stax_reader_options o = option_set(0);
    cr_assert_gt(round_trip("utf16le", utf16le, sizeof utf16le - 1, &o, 3, 1000), 3);
    cr_assert_gt(round_trip("latin1", STAX_DOC(latin1), &o, 3, 1000), 3);
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    stax_test_buf b = {0};
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) stax_test_buf_put(&b, tmp, k);
    fclose(f);
    *len = b.len;
    if (!b.p) stax_test_buf_put(&b, "", 0);
    return b.p;
}

/* Names declared in the DTD are bounded by the region (max_dtd) and the
 * DOCTYPE token (max_token), not by max_name, which bounds names in content:
 * a context keeps each kind (general and parameter entities, a notation and
 * an NDATA name, an ATTLIST's element and attribute, a PI target) and a
 * resume takes them back, at the default max_name and at a small one. */
static void long_dtd_names(size_t max_name, size_t len) {
    static const char tmpl[] = "<!DOCTYPE r [<!ENTITY @ 'v'><!ENTITY % @ 'p'><!NOTATION @ SYSTEM 'n'>"
                               "<!ENTITY u SYSTEM 'u' NDATA @><!ENTITY @2 SYSTEM 'u' NDATA x>"
                               "<!ATTLIST @ @ CDATA 'd'><!ATTLIST r @ CDATA 'x'><?@ data?>]>\n"
                               "<r><a/><b>text</b><c/></r>\n";
    stax_test_buf doc = {0};
    for (const char *t = tmpl; *t; t++) {
        if (*t != '@') stax_test_buf_put(&doc, t, 1);
        else for (size_t i = 0; i < len; i++) stax_test_buf_put(&doc, "n", 1);
    }
    for (int k = 0; k < OPTION_SETS; k++) {
        stax_reader_options o = option_set(k);
        o.max_name = (uint32_t)max_name;
        cr_assert_gt(round_trip("long DTD names", doc.p, doc.len, &o, 5, 1000), 3, "max_name %zu, names of %zu bytes", max_name, len);
    }
    stax_test_buf_free(&doc);
}

Test(resume, dtd_names_longer_than_max_name) {
    long_dtd_names(32, 40);
    long_dtd_names(0, 1500); /* the default, 1024 */
}

/* The W3C documents whose DTDs name PI targets of 1965 and 4250 bytes
 * (ibm85v01.xml, ibm87v01.xml), at every point and option set. */
Test(resume, w3c_long_dtd_names) {
    static const char *files[] = {"ibm/valid/P85/ibm85v01.xml", "ibm/valid/P87/ibm87v01.xml"};
    const char *dir = getenv("STAX_XMLCONF") ? getenv("STAX_XMLCONF") : "build/xmlconf";
    char path[4096];
    snprintf(path, sizeof path, "%s/package/xmlconf", dir);
    if (access(path, F_OK) != 0) cr_skip_test("W3C suite not fetched (make conformance fetches it)");
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/package/xmlconf/%s", dir, files[i]);
        size_t len;
        char *doc = read_file(path, &len);
        cr_assert_not_null(doc, "%s", path);
        cr_assert_gt(round_trips(path, doc, len, 1000), 0, "%s", path);
        free(doc);
    }
}

/* Every document of a few folders of the W3C suite (well-formed and not). */
Test(resume, w3c_sample, .timeout = 900) {
    const char *dir = getenv("STAX_XMLCONF") ? getenv("STAX_XMLCONF") : "build/xmlconf";
    static const char *folders[] = {"xmltest/valid/sa", "xmltest/not-wf/sa", "xmltest/invalid", "sun/valid",
                                    "ibm/valid/P28", "ibm/not-wf/P28", "japanese", "oasis"};
    char path[4096];
    snprintf(path, sizeof path, "%s/package/xmlconf", dir);
    if (access(path, F_OK) != 0) cr_skip_test("W3C suite not fetched (make conformance fetches it)");
    size_t docs = 0, points = 0, seen = 0;
    for (size_t f = 0; f < sizeof folders / sizeof folders[0]; f++) {
        snprintf(path, sizeof path, "%s/package/xmlconf/%s", dir, folders[f]);
        DIR *d = opendir(path);
        if (!d) continue;
        for (struct dirent *de; (de = readdir(d)) != NULL;) {
            size_t nl = strlen(de->d_name), len;
            if (nl < 5 || strcmp(de->d_name + nl - 4, ".xml") != 0) continue;
            char file[8192];
            snprintf(file, sizeof file, "%s/%s", path, de->d_name);
            if (!stax_test_sampled(seen++)) continue; /* a sample when not full (harness.h) */
            char *doc = read_file(file, &len);
            if (!doc) continue;
            stax_reader_options o = option_set((int)(docs % OPTION_SETS));
            points += round_trip(file, doc, len, &o, 7, 8);
            docs++;
            free(doc);
        }
        closedir(d);
    }
    cr_log_info("W3C sample: %zu documents, %zu save points checked", docs, points);
    size_t least = stax_test_full() ? 300 : 300 / STAX_TEST_SAMPLE_STEP;
    cr_assert_gt(docs, least);
    cr_assert_gt(points, least);
}

/* The generated shapes (build/gen), 256 KiB each, a sample of the points. */
Test(resume, generated_shapes, .timeout = 900) {
    static const char *shapes[] = {"mixed-dump", "record", "attrs", "text", "deep", "mixed", "nonascii"};
    if (access("build/gen", X_OK) != 0) cr_skip_test("build/gen not built (make build/gen)");
    size_t points = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "build/gen -s %s 0.25 7", shapes[i]);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        stax_test_buf b = {0};
        char tmp[65536];
        size_t k;
        while ((k = fread(tmp, 1, sizeof tmp, p)) > 0) stax_test_buf_put(&b, tmp, k);
        cr_assert_eq(pclose(p), 0, "%s failed", cmd);
        cr_assert_gt(b.len, 200000);
        stax_reader_options o = option_set((int)(i % OPTION_SETS));
        o.batch_events = 64;
        points += round_trip(shapes[i], b.p, b.len, &o, 4093, 6);
        stax_test_buf_free(&b);
    }
    cr_assert_geq(points, 7 * 5);
}

/* Saved from and resumed into fixed blocks, with the allocator reader's limits. */
Test(resume, fixed_block) {
    stax_reader_options heap = option_set(2), fixed;
    cr_assert_eq(stax_reader_effective_options(&heap, &fixed, NULL), STAX_OK);
    size_t size = stax_reader_memory_size(&fixed);
    void *block = malloc(size), *block2 = malloc(size);
    fixed.memory = block;
    fixed.memory_size = size;
    stax_reader_options fixed2 = fixed;
    fixed2.memory = block2;
    stax_reader *r = stax_reader_new(&fixed);
    cr_assert(r);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, STAX_DOC(rich), 4, &ref, &s);
    stax_reader_free(r);
    cr_assert_gt(s.n, 10);
    /* the same events as the allocator reader's, resumed into a block too */
    cr_assert_gt(check_points("rich in a block", STAX_DOC(rich), &fixed2, &ref, &s, 1000), 10);
    cr_assert_gt(check_points("rich from a block", STAX_DOC(rich), &heap, &ref, &s, 1000), 10);
    for (size_t i = 0; i < s.n; i++) cr_assert_leq(s.v[i].len, stax_context_max_size(&heap));
    /* restoring into a block calls no allocator */
    stax_reader *g = stax_reader_new(&fixed2);
    unsigned long calls = stax_test_forbidden_calls;
    stax_test_forbid_malloc = 1;
    int st = stax_reader_resume(g, s.v[s.n / 2].ctx, s.v[s.n / 2].len);
    stax_test_forbid_malloc = 0;
    cr_assert_eq(st, STAX_OK);
    cr_assert_eq(stax_test_forbidden_calls, calls);
    stax_reader_free(g);
    /* a block whose limits the context does not fit */
    stax_reader_options small;
    memset(&small, 0, sizeof small);
    small.flags = STAX_READ_NAMESPACES;
    small.max_dtd = 320;
    small.memory = block2;
    small.memory_size = stax_reader_memory_min(&small);
    stax_reader *q = stax_reader_new(&small);
    cr_assert(q);
    cr_assert_eq(stax_reader_resume(q, s.v[s.n / 2].ctx, s.v[s.n / 2].len), STAX_E_CONTEXT);
    cr_assert(strstr(stax_reader_message(q), "max_dtd"), "%s", stax_reader_message(q));
    stax_reader_free(q);
    free_saves(&s);
    stax_test_buf_free(&ref);
    free(block);
    free(block2);
}

/* The bound holds where it is tightest: a DTD region full of unparsed entities
 * with long names, the deepest stack of the longest names, the bindings at
 * their budget. */
Test(resume, size_bound_is_an_upper_bound) {
    stax_reader_options o = option_set(2); /* namespaces, batches of 2 */
    o.max_dtd = 4096, o.max_name = 160, o.max_depth = 4, o.max_ns_bytes = 512;
    size_t bound = stax_context_max_size(&o), best = 0;
    cr_assert_gt(bound, 0);
    for (int k = 40; k > 0; k--) {
        stax_test_buf doc = {0};
        char name[161];
        stax_test_buf_puts(&doc, "<!DOCTYPE r [<!NOTATION n SYSTEM 'n'>");
        for (int i = 0; i < k; i++) {
            memset(name, 'a' + i % 26, 150);
            snprintf(name + 150, 11, "%u", (unsigned)(i % 100)); /* i < 40: still unique */
            stax_test_buf_printf(&doc, "<!ENTITY %s SYSTEM 's' NDATA n>", name);
        }
        stax_test_buf_puts(&doc, "]>");
        memset(name, 'e', 160);
        name[160] = 0;
        for (int d = 0; d < 4; d++)
            stax_test_buf_printf(&doc, "<%s xmlns:p%d='urn:%.90s'>", name, d, name);
        stax_test_buf_puts(&doc, "<x/>");
        stax_reader *r = stax_reader_new(&o);
        stax_test_buf ref = {0};
        saves s = {0};
        read_all(r, doc.p, doc.len, 0, &ref, &s);
        stax_reader_free(r);
        for (size_t i = 0; i < s.n; i++) {
            cr_assert_leq(s.v[i].len, bound, "%zu-byte context, bound %zu (%d entities)", s.v[i].len, bound, k);
            if (s.v[i].len > best) best = s.v[i].len;
        }
        int fits = s.n > 0;
        free_saves(&s);
        stax_test_buf_free(&ref);
        stax_test_buf_free(&doc);
        if (fits) break;
    }
    cr_assert_gt(best, o.max_dtd * 3 / 4, "the largest context (%zu bytes) holds less than a nearly full DTD", best);
}

/* ---------------------------------------------------------------- refusals */

static save_point one_context(const stax_reader_options *o) {
    stax_reader *r = stax_reader_new(o);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, STAX_DOC(rich), 9, &ref, &s);
    stax_reader_free(r);
    cr_assert_gt(s.n, 4);
    size_t best = 0; /* the longest: the most open elements and bindings */
    for (size_t i = 0; i < s.n; i++)
        if (s.v[i].len > s.v[best].len) best = i;
    save_point p = s.v[best];
    p.ctx = malloc(p.len);
    memcpy(p.ctx, s.v[best].ctx, p.len);
    free_saves(&s);
    stax_test_buf_free(&ref);
    return p;
}

static int refused(const stax_reader_options *o, const void *ctx, size_t len, const char *why) {
    stax_reader *r = stax_reader_new(o);
    int st = stax_reader_resume(r, ctx, len);
    int ok = st == STAX_E_CONTEXT && stax_reader_status(r) == STAX_E_CONTEXT && stax_reader_message(r)[0] &&
             (!why || strstr(stax_reader_message(r), why));
    /* sticky, and nothing is read afterwards */
    const stax_batch *b;
    ok = ok && stax_reader_feed(r, "<r/>", 4) == STAX_E_CONTEXT && stax_reader_next(r, &b) == STAX_E_CONTEXT;
    stax_reader_free(r);
    return ok;
}

Test(resume, every_byte_flipped) {
    stax_reader_options o = option_set(2);
    save_point p = one_context(&o);
    for (size_t i = 0; i < p.len; i++) {
        p.ctx[i] ^= (char)0xFF;
        cr_assert(refused(&o, p.ctx, p.len, NULL), "byte %zu flipped was accepted", i);
        p.ctx[i] ^= (char)0xFF;
    }
    stax_reader *r = stax_reader_new(&o);
    cr_assert_eq(stax_reader_resume(r, p.ctx, p.len), STAX_OK, "the intact context");
    stax_reader_free(r);
    free(p.ctx);
}

Test(resume, every_truncation) {
    stax_reader_options o = option_set(2);
    save_point p = one_context(&o);
    for (size_t n = 0; n < p.len; n++) cr_assert(refused(&o, p.ctx, n, NULL), "a context cut to %zu bytes was accepted", n);
    char *longer = malloc(p.len + 1);
    memcpy(longer, p.ctx, p.len);
    longer[p.len] = 0;
    cr_assert(refused(&o, longer, p.len + 1, "truncated or has bytes after it"));
    cr_assert(refused(&o, NULL, 0, "not a stax context"));
    free(longer);
    free(p.ctx);
}

Test(resume, other_version_and_options) {
    stax_reader_options o = option_set(2);
    save_point p = one_context(&o);
    p.ctx[8] = (char)(STAX_CONTEXT_VERSION + 1);
    cr_assert(refused(&o, p.ctx, p.len, "another version"));
    p.ctx[8] = (char)STAX_CONTEXT_VERSION;
    stax_reader_options plain = option_set(0);
    cr_assert(refused(&plain, p.ctx, p.len, "other flags"));
    stax_reader_options shallow = o;
    shallow.max_depth = 2;
    cr_assert(refused(&shallow, p.ctx, p.len, "max_depth"));
    stax_reader_options tight = o;
    tight.max_ns_bytes = 8;
    cr_assert(refused(&tight, p.ctx, p.len, "max_ns_bytes"));
    /* resume after input is misuse */
    stax_reader *r = stax_reader_new(&o);
    const stax_batch *b;
    stax_reader_feed(r, "<r>", 3);
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    cr_assert_eq(stax_reader_resume(r, p.ctx, p.len), STAX_E_USAGE);
    stax_reader_free(r);
    free(p.ctx);
}

/* Where a reader cannot save, it says so and stays as it was. */
Test(resume, not_saveable_points) {
    stax_reader_options o = option_set(0);
    o.max_text = 4;
    stax_reader *r = stax_reader_new(&o);
    const stax_batch *b;
    size_t len;
    cr_assert_eq(stax_reader_save(r, NULL, 0, &len), STAX_E_NOSAVE, "before any input");
    stax_reader_feed(r, STAX_DOC("<?xml version='1.0'?><!-- c --><r>abcdefghij</r>"));
    int prolog = 0, split = 0;
    while (stax_reader_next(r, &b) == STAX_OK) {
        const stax_event *last = &b->events[b->count - 1];
        if (last->type == STAX_EV_XMLDECL || last->type == STAX_EV_COMMENT) {
            cr_assert_eq(stax_reader_save(r, NULL, 0, &len), STAX_E_NOSAVE, "in the prolog");
            prolog = 1;
        }
        if (last->type == STAX_EV_TEXT && (last->flags & STAX_EVF_CONTINUED)) {
            cr_assert_eq(stax_reader_save(r, NULL, 0, &len), STAX_E_NOSAVE, "a text run split by max_text");
            split = 1;
        }
    }
    cr_assert(prolog && split);
    cr_assert_eq(stax_reader_status(r), STAX_OK, "not sticky");
    stax_reader_free(r);
    /* after an error */
    r = stax_reader_new(&o);
    stax_reader_feed(r, STAX_DOC("<r></x>"));
    stax_reader_end(r);
    while (stax_reader_next(r, &b) == STAX_OK) continue;
    cr_assert_eq(stax_reader_save(r, NULL, 0, &len), STAX_E_NOSAVE, "after an error");
    cr_assert_eq(stax_reader_save(NULL, NULL, 0, &len), STAX_E_USAGE);
    stax_reader_free(r);
}

/* Bytes after the header, with the checksum made right, are still checked:
 * a context is never trusted for being sealed. */
Test(resume, sealed_garbage) {
    stax_reader_options o = option_set(2);
    save_point p = one_context(&o);
    unsigned seed = 12345;
    for (int round = 0; round < 2000; round++) {
        char *c = malloc(p.len);
        memcpy(c, p.ctx, p.len);
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = 20 + (seed >> 8) % (p.len - 28);
            c[at] = (char)(seed >> 3);
        }
        stax__context_seal(c, p.len);
        stax_reader *r = stax_reader_new(&o);
        int st = stax_reader_resume(r, c, p.len);
        cr_assert(st == STAX_OK || st == STAX_E_CONTEXT);
        if (st == STAX_OK) { /* accepted: it must read safely */
            stax_test_buf out = {0};
            read_all(r, rich + p.pos.offset, sizeof rich - 1 - (size_t)p.pos.offset, 3, &out, NULL);
            stax_test_buf_free(&out);
        }
        stax_reader_free(r);
        free(c);
    }
    free(p.ctx);
}
