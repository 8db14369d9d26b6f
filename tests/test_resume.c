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
#include "fuzz/ctx_model.h" /* contexts forged field by field */

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
/* A fragment and a sequence of documents: saved wherever the reader can
 * (in a fragment at its top level too, in a sequence in any document's
 * content or epilog), resumed with the same shape. */
Test(resume, fragments_and_sequences) {
    static const char frag[] = "t<a x='1'>u<b/>&amp;</a> v<!--c--><?p d?><c>w<![CDATA[x]]></c>y&#65;<d/>\n";
    static const char docs[] = "<?xml version='1.0'?><a>t<b/></a><!--e-->\n"
                               "<!DOCTYPE c [<!ENTITY e 'E'><!ATTLIST d k CDATA 'K'>]><c>&e;<d/></c>\n"
                               "<?xml version='1.0'?>\n<a><d/>x</a>";
    size_t n = 0;
    for (int k = 0; k < OPTION_SETS; k++) {
        stax_reader_options o = option_set(k);
        o.flags |= STAX_READ_FRAGMENT;
        n += round_trip("fragment", frag, sizeof frag - 1, &o, 7, 1000);
        o.flags ^= STAX_READ_FRAGMENT | STAX_READ_DOCUMENTS;
        n += round_trip("documents", docs, sizeof docs - 1, &o, 7, 1000);
    }
    cr_assert_gt(n, 40, "%zu points", n);
    /* a context of one shape is refused by a reader of another */
    stax_reader_options o = option_set(0);
    o.flags = STAX_READ_DOCUMENTS;
    stax_reader *r = stax_reader_new(&o);
    cr_assert_eq(stax_reader_feed(r, docs, 30), STAX_OK);
    const stax_batch *b;
    while (stax_reader_next(r, &b) == STAX_OK) {}
    char ctx[4096];
    size_t len = 0;
    cr_assert_eq(stax_reader_save(r, ctx, sizeof ctx, &len), STAX_OK);
    stax_reader_free(r);
    for (unsigned flags = 0; flags <= STAX_READ_DOCUMENTS; flags += STAX_READ_FRAGMENT) {
        o.flags = flags;
        r = stax_reader_new(&o);
        int st = stax_reader_resume(r, ctx, len);
        cr_assert_eq(st, flags == STAX_READ_DOCUMENTS ? STAX_OK : STAX_E_CONTEXT, "flags %u: %d %s", flags, st,
                     stax_reader_message(r));
        stax_reader_free(r);
    }
}

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

/* ---------------------------------------------------------------- forged contexts
 * A context sealed with the right checksum is held to every check: each
 * field against the options and the others. Each case changes one field of
 * a real context (tests/fuzz/ctx_model.h) and must be refused with its own
 * reason; the nearest value a reading can leave is taken. */

/* The context of doc saved at the last point before byte `before`. */
static save_point context_before(const char *doc, size_t len, const stax_reader_options *o, uint64_t before) {
    stax_reader *r = stax_reader_new(o);
    cr_assert(r);
    stax_test_buf ref = {0};
    saves s = {0};
    read_all(r, doc, len, 0, &ref, &s);
    stax_reader_free(r);
    size_t best = s.n;
    for (size_t i = 0; i < s.n; i++)
        if (s.v[i].pos.offset <= before) best = i;
    cr_assert_lt(best, s.n, "no save point before byte %llu", (unsigned long long)before);
    save_point p = s.v[best];
    p.ctx = malloc(p.len);
    memcpy(p.ctx, s.v[best].ctx, p.len);
    free_saves(&s);
    stax_test_buf_free(&ref);
    return p;
}

static cm_ctx model_of(const save_point *p) {
    cm_ctx m;
    cr_assert_eq(cm_parse(&m, p->ctx, p->len), 0, "a saved context of another layout");
    return m;
}

/* m written and sealed: refused with `why` in the message (NULL: taken). */
static void check_forged(const stax_reader_options *o, const cm_ctx *m, const char *why, const char *what) {
    size_t len;
    unsigned char *c = cm_written(m, &len);
    stax_reader *r = stax_reader_new(o);
    int st = stax_reader_resume(r, c, len);
    if (why) {
        cr_assert_eq(st, STAX_E_CONTEXT, "%s: taken", what);
        cr_assert(strstr(stax_reader_message(r), why), "%s: refused as '%s', not '%s'", what, stax_reader_message(r), why);
    } else {
        cr_assert_eq(st, STAX_OK, "%s: refused: %s", what, stax_reader_message(r));
    }
    stax_reader_free(r);
    free(c);
}
#define REFUSED(o, m, why, what) check_forged((o), (m), (why), (what))
#define TAKEN(o, m, what) check_forged((o), (m), NULL, (what))

/* What the expansion limits allow for `input` bytes (stax.h: entity_threshold,
 * entity_amplification), worked out here. */
static uint64_t allowed(const stax_reader_options *o, uint64_t input) {
    uint64_t by_ratio = (uint64_t)o->entity_amplification * (input + 2) - 1;
    return by_ratio > o->entity_threshold ? by_ratio : o->entity_threshold;
}

/* Ten levels of ten references: 10^9 copies of 32 bytes, after two elements. */
static const char laughs[] =
    "<!DOCTYPE r [<!ENTITY a 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
    "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'><!ENTITY d '&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;'>"
    "<!ENTITY e '&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;'><!ENTITY f '&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;'>"
    "<!ENTITY g '&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;'><!ENTITY h '&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;'>"
    "<!ENTITY i '&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;'><!ENTITY j '&i;&i;&i;&i;&i;&i;&i;&i;&i;&i;'>]>\n"
    "<r><x/><y/>&j;</r>\n";

static stax_reader_options laugh_options(void) {
    stax_reader_options o = option_set(0);
    o.entity_threshold = 4096;
    o.entity_amplification = 2;
    return o;
}

/* The resumed read of laughs from p, in chunks of 7: its status; the
 * expansion meter never past what the options allow (but for the count
 * that met the limit, in once the error is pending). */
static int read_laughs(const stax_reader_options *o, const save_point *p, const void *ctx, size_t len) {
    stax_reader *r = stax_reader_new(o);
    cr_assert_eq(stax_reader_resume(r, ctx, len), STAX_OK, "%s", stax_reader_message(r));
    const char *rest = laughs + p->pos.offset;
    size_t n = sizeof laughs - 1 - (size_t)p->pos.offset, off = 0;
    int st = STAX_NEED_INPUT;
    const stax_batch *b;
    while (st == STAX_NEED_INPUT || st == STAX_OK) {
        if (st == STAX_NEED_INPUT) {
            size_t k = n - off < 7 ? n - off : 7;
            st = k ? stax_reader_feed(r, rest + off, k) : stax_reader_end(r);
            off += k;
            if (st < 0) break;
        }
        st = stax_reader_next(r, &b);
        if (stax_reader_status(r) >= 0) cr_assert_leq(r->doc.meter.expanded, allowed(o, r->doc.pos.offset + r->buf.ext.bytes));
        if (st == STAX_END) break;
    }
    stax_reader_free(r);
    return st;
}

static int resolve_nothing(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    (void)ud, (void)req, (void)in;
    return STAX_DECLINE;
}

/* The forgery: external bytes with no resolver, which lift the
 * expansion limit (its input) without bound. The real context stops at the
 * limit; each meter field past what its input allows is refused; at what it
 * allows it is taken, and the read still stops at the limit. */
Test(resume, forged_meters) {
    stax_reader_options o = laugh_options();
    save_point p = context_before(STAX_DOC(laughs), &o, (uint64_t)(strstr(laughs, "&j;") - laughs));
    cr_assert_eq(read_laughs(&o, &p, p.ctx, p.len), STAX_E_LIMIT_ENTITY, "the real context stops at the limit");
    cm_ctx m = model_of(&p);
    uint64_t offset = m.f[CM_OFFSET], expanded = m.f[CM_EXPANDED];
    cr_assert_gt(m.f[CM_DTD_INPUT], 0);
    m.f[CM_EXT_BYTES] = (uint64_t)1 << 60;
    REFUSED(&o, &m, "external bytes read without a resolver", "2^60 external bytes, no resolver");
    m.f[CM_EXT_BYTES] = 1;
    REFUSED(&o, &m, "external bytes read without a resolver", "1 external byte, no resolver");
    m.f[CM_EXT_BYTES] = 0;
    m.f[CM_EXPANDED] = allowed(&o, offset) + 1;
    REFUSED(&o, &m, "expansion meter", "the content meter one past its limit");
    m.f[CM_EXPANDED] = UINT64_MAX;
    REFUSED(&o, &m, "expansion meter", "the content meter at 2^64 - 1");
    m.f[CM_EXPANDED] = allowed(&o, offset);
    TAKEN(&o, &m, "the content meter at its limit");
    m.f[CM_EXPANDED] = expanded;
    uint64_t dtd_input = m.f[CM_DTD_INPUT], dtd_expanded = m.f[CM_DTD_EXPANDED];
    m.f[CM_DTD_INPUT] = offset + 1;
    REFUSED(&o, &m, "DTD expansion meter", "the DTD's input past the offset");
    m.f[CM_DTD_INPUT] = offset;
    TAKEN(&o, &m, "the DTD's input at the offset");
    m.f[CM_DTD_INPUT] = dtd_input;
    m.f[CM_DTD_EXPANDED] = allowed(&o, dtd_input) + 1;
    REFUSED(&o, &m, "DTD expansion meter", "the DTD meter one past its limit");
    m.f[CM_DTD_EXPANDED] = allowed(&o, dtd_input);
    TAKEN(&o, &m, "the DTD meter at its limit");
    m.f[CM_DTD_EXPANDED] = dtd_expanded;
    /* a tighter reader: the context must fit its limits */
    stax_reader_options tight = o;
    tight.entity_threshold = 1;
    tight.entity_amplification = 1;
    m.f[CM_EXPANDED] = allowed(&tight, offset) + 1;
    REFUSED(&tight, &m, "expansion meter", "a meter over a tighter reader's limits");
    cm_free(&m);
    free(p.ctx);

    /* with a resolver: at most max_external, which then raises the limit that far and no further */
    o.resolve = resolve_nothing;
    o.max_external = 1000;
    p = context_before(STAX_DOC(laughs), &o, (uint64_t)(strstr(laughs, "&j;") - laughs));
    m = model_of(&p);
    m.f[CM_EXT_BYTES] = 1001;
    REFUSED(&o, &m, "over max_external", "external bytes over max_external");
    m.f[CM_EXT_BYTES] = 1000;
    m.f[CM_DTD_INPUT] = m.f[CM_OFFSET] + 1000;
    m.f[CM_EXPANDED] = allowed(&o, m.f[CM_OFFSET] + 1000);
    size_t len;
    unsigned char *c = cm_written(&m, &len);
    cr_assert_eq(read_laughs(&o, &p, c, len), STAX_E_LIMIT_ENTITY, "max_external bytes, and the meter at its limit");
    free(c);
    cm_free(&m);
    free(p.ctx);
}

/* Without a DOCTYPE nothing is expanded and the DTD has no state; an unread
 * parameter entity was a parameter-entity reference; a meter counts only
 * what the DTD declares. */
Test(resume, forged_dtd_state) {
    static const char plain[] = "<r><x/><y/><z/></r>";
    stax_reader_options o = option_set(0);
    save_point p = context_before(STAX_DOC(plain), &o, 11);
    cm_ctx m = model_of(&p);
    static const int fields[] = {CM_EXPANDED, CM_PE_REF, CM_SKIP, CM_HAS_EXTERNAL, CM_DTD_EXPANDED, CM_DTD_INPUT};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        m.f[fields[i]] = 1;
        REFUSED(&o, &m, "DTD state and no DOCTYPE", "DTD state, no DOCTYPE");
        m.f[fields[i]] = 0;
    }
    m.f[CM_STANDALONE] = 1; /* standalone='yes' needs no DOCTYPE */
    TAKEN(&o, &m, "standalone without a DOCTYPE");
    cm_free(&m);
    free(p.ctx);

    static const char pe[] = "<!DOCTYPE r [<!ENTITY % p 'x'><!ATTLIST r a CDATA 'v'>]><r><x/><y/><z/></r>";
    p = context_before(STAX_DOC(pe), &o, sizeof pe - 6);
    m = model_of(&p);
    m.f[CM_SKIP] = 1;
    REFUSED(&o, &m, "DTD state is malformed", "an unread parameter entity and no reference");
    m.f[CM_PE_REF] = 1;
    TAKEN(&o, &m, "an unread parameter entity after a reference");
    m.f[CM_SKIP] = m.f[CM_PE_REF] = 0;
    m.f[CM_EXPANDED] = 1;
    REFUSED(&o, &m, "does not declare", "content expanded with no general entity");
    m.f[CM_EXPANDED] = 0;
    m.f[CM_DTD_EXPANDED] = 1;
    TAKEN(&o, &m, "the DTD meter with a parameter entity");
    m.n_ent = 0;
    REFUSED(&o, &m, "does not declare", "the DTD meter with no entity");
    cm_free(&m);
    free(p.ctx);
}

/* A position a reading can have: each line and column at least a byte of
 * the offset, and an offset a file can have (< 2^63). */
Test(resume, forged_positions_and_encodings) {
    static const char doc[] = "\xEF\xBB\xBF<r>\n<x/><y/><z/></r>";
    stax_reader_options o = option_set(0);
    save_point p = context_before(STAX_DOC(doc), &o, 13);
    cm_ctx m = model_of(&p);
    uint64_t off = m.f[CM_OFFSET];
    cr_assert_eq(m.f[CM_BOM], 3);
    m.f[CM_OFFSET] = UINT64_MAX;
    REFUSED(&o, &m, "position", "offset 2^64 - 1");
    m.f[CM_OFFSET] = (uint64_t)1 << 63;
    REFUSED(&o, &m, "position", "offset 2^63");
    m.f[CM_OFFSET] = ((uint64_t)1 << 63) - 1;
    TAKEN(&o, &m, "offset 2^63 - 1");
    m.f[CM_OFFSET] = off;
    m.f[CM_LINE] = off + 2;
    REFUSED(&o, &m, "position", "more lines than bytes");
    m.f[CM_LINE] = off + 1;
    m.f[CM_COLUMN] = 1;
    TAKEN(&o, &m, "a line for each byte");
    m.f[CM_COLUMN] = 2;
    REFUSED(&o, &m, "position", "more lines and columns than bytes");
    m.f[CM_LINE] = 1;
    m.f[CM_COLUMN] = off + 2;
    REFUSED(&o, &m, "position", "more columns than bytes");
    m.f[CM_COLUMN] = 0;
    REFUSED(&o, &m, "position", "column 0");
    m.f[CM_LINE] = 2;
    m.f[CM_COLUMN] = 5;
    static const struct {
        uint64_t bom, detected, enc;
        const char *what;
    } enc[] = {
        {1, STAX__ENC_UTF8, STAX__ENC_UTF8, "a BOM of one byte"},
        {4, STAX__ENC_UTF8, STAX__ENC_UTF8, "a BOM of four bytes"},
        {3, STAX__ENC_UTF16LE, STAX__ENC_UTF16LE, "a UTF-8 BOM said UTF-16"},
        {2, STAX__ENC_UTF8, STAX__ENC_UTF8, "a UTF-16 BOM said UTF-8"},
        {3, STAX__ENC_UTF8, STAX__ENC_LATIN1, "a UTF-8 BOM, then ISO-8859-1"},
        {0, STAX__ENC_UTF16BE, STAX__ENC_UTF8, "UTF-16 detected, then UTF-8"},
        {0, STAX__ENC_UTF8, STAX__ENC_UTF16LE, "UTF-8 detected, then UTF-16"},
        {0, STAX__ENC_UTF16LE, STAX__ENC_UTF16BE, "UTF-16LE detected, then UTF-16BE"},
    };
    for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++) {
        m.f[CM_BOM] = enc[i].bom;
        m.f[CM_DETECTED] = enc[i].detected;
        m.f[CM_ENC] = enc[i].enc;
        REFUSED(&o, &m, "encoding state", enc[i].what);
    }
    m.f[CM_BOM] = 0;
    m.f[CM_DETECTED] = STAX__ENC_UTF8;
    m.f[CM_ENC] = STAX__ENC_LATIN1;
    TAKEN(&o, &m, "UTF-8 detected, ISO-8859-1 declared");
    m.f[CM_BOM] = 3;
    m.f[CM_OFFSET] = 2;
    m.f[CM_LINE] = m.f[CM_COLUMN] = 1;
    REFUSED(&o, &m, "encoding state", "a BOM longer than the offset");
    cm_free(&m);
    free(p.ctx);
}

/* Bindings and open names as Namespaces 1.0 has them: xml is bound to its
 * name only and never declared, xmlns never; neither name is bound to
 * another prefix; no prefix is bound to nothing; a prefix once per element
 * and at most max_ns there; an open element's name is a QName whose prefix
 * is bound in its scope. */
static void binding_at(cm_ctx *m, size_t at, const char *prefix, const char *uri, uint32_t depth) {
    memmove(&m->bind[at + 1], &m->bind[at], (m->n_bind - at) * sizeof *m->bind);
    m->n_bind++;
    m->bind[at].prefix = cm_z(prefix);
    m->bind[at].uri = cm_z(uri);
    m->bind[at].depth = depth;
}

static void binding_drop(cm_ctx *m, size_t at) {
    memmove(&m->bind[at], &m->bind[at + 1], (m->n_bind - at - 1) * sizeof *m->bind);
    m->n_bind--;
}

Test(resume, forged_namespaces) {
    static const char doc[] = "<r xmlns='urn:d' xmlns:p='urn:p'><p:a xmlns:q='urn:q'><q:b/><c/><d/></p:a></r>";
    stax_reader_options o = option_set(2);
    save_point p = context_before(STAX_DOC(doc), &o, (uint64_t)(strstr(doc, "<d/>") - doc));
    cm_ctx m = model_of(&p);
    cr_assert(m.n_stack == 2 && m.n_bind == 3, "%zu open, %zu bindings", m.n_stack, m.n_bind);
    static const struct {
        size_t at;
        const char *prefix, *uri;
        const char *what;
    } bad[] = {
        {2, "xml", "http://www.w3.org/XML/1998/namespace", "xml declared"},
        {2, "xml", "urn:x", "xml rebound"},
        {2, "xmlns", "urn:x", "xmlns declared"},
        {2, "x", "http://www.w3.org/2000/xmlns/", "the xmlns name bound"},
        {2, "x", "http://www.w3.org/XML/1998/namespace", "the xml name bound to another prefix"},
        {2, "", "http://www.w3.org/XML/1998/namespace", "the xml name as the default"},
        {2, "", "http://www.w3.org/2000/xmlns/", "the xmlns name as the default"},
        {2, "x", "", "a prefix bound to nothing"},
        {2, "a:b", "urn:x", "a prefix with a colon"},
        {2, "1x", "urn:x", "a prefix that is no name"},
        {2, "p", "urn:again", "p twice on one element"},
        {0, "", "urn:again", "the default twice on one element"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        binding_at(&m, bad[i].at, bad[i].prefix, bad[i].uri, 1);
        REFUSED(&o, &m, "namespace bindings are malformed", bad[i].what);
        binding_drop(&m, bad[i].at);
    }
    binding_at(&m, 2, "x", "urn:x", 1);
    TAKEN(&o, &m, "one more binding on the root");
    stax_reader_options few = o;
    few.max_ns = 2;
    REFUSED(&few, &m, "namespace bindings are malformed", "three bindings on one element, max_ns 2");
    binding_at(&m, 0, "", "", 1);
    REFUSED(&o, &m, "namespace bindings are malformed", "the default undeclared twice");
    binding_drop(&m, 0);
    binding_drop(&m, 2); /* (x) */
    stax_reader_options short_values = o;
    short_values.max_token = 4;
    short_values.max_text = 4;
    REFUSED(&short_values, &m, "namespace bindings are malformed", "a namespace name over max_token");
    static const struct {
        size_t at;
        const char *name, *why, *what;
    } names[] = {
        {1, "a:b:c", "QName", "two colons"},
        {1, ":x", "QName", "an empty prefix"},
        {1, "x:", "QName", "an empty local name"},
        {1, "z:a", "bound", "an unbound prefix"},
        {0, "q:a", "bound", "a prefix bound only on the element inside"},
        {1, "xmlns:a", "bound", "the prefix xmlns"},
        {1, "xml:a", NULL, "the prefix xml, always bound"},
        {0, "p:a", NULL, "a prefix bound on the element itself"},
    };
    cm_str keep[2] = {m.stack[0], m.stack[1]};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        m.stack[names[i].at] = cm_z(names[i].name);
        check_forged(&o, &m, names[i].why, names[i].what);
        m.stack[names[i].at] = keep[names[i].at];
    }
    TAKEN(&o, &m, "the context as saved");
    stax_reader_options plain = option_set(0);
    cm_ctx without = model_of(&p);
    without.f[CM_FLAGS] = 0;
    without.n_bind = 0;
    without.stack[1] = cm_z("a:b:c");
    TAKEN(&plain, &without, "any Name without namespaces");
    cm_free(&without);
    cm_free(&m);
    free(p.ctx);
}

/* The DTD's records as the parser makes them. */
Test(resume, forged_dtd_records) {
    static const char doc[] = "<!DOCTYPE r [<!ENTITY e 'v'><!ENTITY x SYSTEM 'x.xml'><!ENTITY % p 'pv'>"
                              "<!NOTATION n PUBLIC 'pub  id'><!NOTATION m SYSTEM 's'><!ENTITY u SYSTEM 'u' NDATA n>"
                              "<!ENTITY w SYSTEM 'w' NDATA m><!ATTLIST r a NMTOKENS ' alpha  beta ' i CDATA #IMPLIED>"
                              "<?pi data?>]><r><x/><y/><z/></r>";
    stax_reader_options o = option_set(2);
    save_point p = context_before(STAX_DOC(doc), &o, sizeof doc - 6);
    cm_ctx m = model_of(&p);
    cr_assert(m.n_ent == 5 && m.n_unp == 2 && m.n_elem == 1 && m.n_not == 2 && m.n_pi == 1);
    cm_entity *e = NULL, *x = NULL;
    for (size_t i = 0; i < m.n_ent; i++) {
        if (m.ent[i].s[CM_E_NAME].len == 1 && m.ent[i].s[CM_E_NAME].p[0] == 'e') e = &m.ent[i];
        if (m.ent[i].s[CM_E_NAME].len == 1 && m.ent[i].s[CM_E_NAME].p[0] == 'x') x = &m.ent[i];
    }
    cr_assert(e && x);
    const char *why = "DTD is malformed";
    e->s[CM_E_NAME] = cm_z("a:e");
    REFUSED(&o, &m, why, "an entity name with a colon, namespaces on");
    e->s[CM_E_NAME] = cm_z("e");
    e->bits |= 8;
    REFUSED(&o, &m, why, "declared in external text, with no parameter-entity reference nor external subset");
    m.f[CM_PE_REF] = 1;
    TAKEN(&o, &m, "declared in external text after a parameter-entity reference");
    m.f[CM_PE_REF] = 0;
    e->bits &= 7;
    x->s[CM_E_BASE] = cm_z("dir/");
    REFUSED(&o, &m, why, "a base, with no resolver");
    x->s[CM_E_BASE] = cm_z("");
    x->s[CM_E_PUBID] = cm_z("two  spaces");
    REFUSED(&o, &m, why, "a public id not normalized");
    x->s[CM_E_PUBID] = cm_z("a{b}");
    REFUSED(&o, &m, why, "a public id of other than PubidChars");
    x->s[CM_E_PUBID] = cm_z("");
    x->s[CM_E_SYSID] = cm_z("a'b\"c");
    REFUSED(&o, &m, why, "a system id with both quotes");
    x->s[CM_E_SYSID] = cm_z("a\rb");
    REFUSED(&o, &m, why, "a system id with a CR");
    x->s[CM_E_SYSID] = cm_z("x.xml");
    cm_str u = m.unp[1];
    m.n_unp = 1;
    REFUSED(&o, &m, why, "an unparsed entity left out of the list");
    m.n_unp = 2;
    m.unp[1] = m.unp[0];
    REFUSED(&o, &m, why, "an unparsed entity listed twice");
    m.unp[1] = u;
    cm_str n1 = m.nots[1].name;
    m.nots[1].name = m.nots[0].name;
    REFUSED(&o, &m, why, "a notation declared twice");
    m.nots[1].name = cm_z("n:m");
    REFUSED(&o, &m, why, "a notation name with a colon, namespaces on");
    m.nots[1].name = n1;
    cm_str target = m.pi[0].target;
    m.pi[0].target = cm_z("XmL");
    REFUSED(&o, &m, why, "the PI target xml");
    m.pi[0].target = target;
    m.pi[0].data = cm_z("a\rb");
    REFUSED(&o, &m, why, "a PI's data with a CR");
    m.pi[0].data = cm_z(" data");
    REFUSED(&o, &m, why, "a PI's data from a space");
    m.pi[0].data = cm_z("data");
    cm_attdef *a = &m.elem[0].att[0], *i = &m.elem[0].att[1];
    cr_assert(a->type == STAX__AT_NMTOKENS && i->deflt == STAX__DEF_IMPLIED);
    cm_str v = a->value;
    static const char *unnormalized[] = {" alpha beta", "alpha beta ", "alpha  beta"};
    for (size_t k = 0; k < 3; k++) {
        a->value = cm_z(unnormalized[k]);
        REFUSED(&o, &m, why, unnormalized[k]);
    }
    a->type = STAX__AT_CDATA;
    TAKEN(&o, &m, "spaces in a CDATA default");
    a->type = STAX__AT_NMTOKENS;
    a->value = v;
    i->value = cm_z("v");
    REFUSED(&o, &m, why, "a value for #IMPLIED");
    i->value = cm_z("");
    m.elem[0].name = cm_z("r:s:t");
    REFUSED(&o, &m, why, "an ATTLIST element that is no QName");
    m.elem[0].name = cm_z("r");
    stax_reader_options short_values = o;
    short_values.max_token = 4;
    short_values.max_text = 4;
    REFUSED(&short_values, &m, why, "a default over max_token");
    TAKEN(&o, &m, "the context as saved");
    cm_free(&m);
    free(p.ctx);
}

/* A reader resumed from a context stands where the saving one stood: it
 * saves the same context at once (the ATTLISTs in the order they were
 * declared, as the parse made them). */
Test(resume, resumed_reader_saves_the_same_context) {
    static const char doc[] = "<!DOCTYPE r [<!ENTITY e 'v'><!ATTLIST a x CDATA '1'><!ATTLIST b y CDATA '2'>"
                              "<!ATTLIST c z CDATA '3'><!NOTATION n SYSTEM 'n'><?pi d?>]><r><a/><b/>&e;<c/></r>";
    for (int k = 0; k < OPTION_SETS; k++) {
        stax_reader_options o = option_set(k);
        stax_reader *r = stax_reader_new(&o);
        stax_test_buf ref = {0};
        saves s = {0};
        read_all(r, STAX_DOC(doc), 0, &ref, &s);
        stax_reader_free(r);
        cr_assert_gt(s.n, 2);
        for (size_t i = 0; i < s.n; i++) {
            stax_reader *q = stax_reader_new(&o);
            cr_assert_eq(stax_reader_resume(q, s.v[i].ctx, s.v[i].len), STAX_OK, "%s", stax_reader_message(q));
            size_t len = 0;
            cr_assert_eq(stax_reader_save(q, NULL, 0, &len), STAX_OK, "a resumed reader saves before any input");
            cr_assert_eq(len, s.v[i].len);
            char *again = malloc(len);
            cr_assert_eq(stax_reader_save(q, again, len, &len), STAX_OK);
            cr_assert(memcmp(again, s.v[i].ctx, len) == 0, "point %zu, option set %d: another context", i, k);
            free(again);
            stax_reader_free(q);
        }
        free_saves(&s);
        stax_test_buf_free(&ref);
    }
}

/* The base of the declarations an external text holds is kept once for all
 * of them by the parse; the restore keeps it once too, not once an entity:
 * 60 external entities declared in an external subset of a 200-byte base
 * took 12 KiB more of max_dtd to resume than to read. Within a chunk of the
 * region (the entities come back in another order, and the chunks fill
 * otherwise), the resume takes the DTD the read took. */
static char base_subset[4096];
static int resolve_subset(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    static char base[256];
    (void)ud;
    if (req->kind != STAX_ENTITY_SUBSET) return STAX_DECLINE;
    memset(base, 'd', 200);
    memcpy(base + 200, "/sub.dtd", 9);
    in->data = base_subset;
    in->len = strlen(base_subset);
    in->base.ptr = base;
    in->base.len = strlen(base);
    return STAX_OK;
}

Test(resume, a_base_kept_once) {
    size_t n = 0;
    for (int i = 0; i < 60; i++) n += (size_t)snprintf(base_subset + n, sizeof base_subset - n, "<!ENTITY e%d SYSTEM 'f%d.xml'>", i, i);
    static const char doc[] = "<!DOCTYPE r SYSTEM 'sub.dtd'><r><a/><b/><c/></r>";
    stax_reader_options o = option_set(0);
    o.resolve = resolve_subset;
    for (o.max_dtd = 4096;; o.max_dtd += 64) {
        cr_assert_lt(o.max_dtd, 65536);
        stax_reader *r = stax_reader_new(&o);
        stax_test_buf ref = {0};
        read_all(r, STAX_DOC(doc), 0, &ref, NULL);
        int ok = strstr(ref.p, "STATUS 2 ") != NULL;
        stax_reader_free(r);
        stax_test_buf_free(&ref);
        if (ok) break; /* the least max_dtd the read takes, to 64 bytes */
    }
    o.max_dtd += 1024;
    cr_assert_gt(round_trip("a base kept once", STAX_DOC(doc), &o, 0, 1000), 2);
}
