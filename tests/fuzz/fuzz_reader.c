/* libFuzzer target for the stax reader (push and pull).
 *
 * Input layout: a 10-byte header that chooses the options and the chunking,
 * then the document. Shorter inputs are read as a document with a zero header.
 *
 *   h[0] chunk size: 1 + h0 % 64 when h0 < 0xC0, else 65 + (h0 - 0xC0) * 97
 *   h[1] bit 0 namespaces, 1 skip_ws, 2 fixed block, 3 small limits,
 *        4 forced encoding, 5 chunk sizes vary (PRNG), 6 the chunked run pulls
 *        from a read callback instead of push, 7 an extra run that fails the
 *        Nth allocation (N = h[8])
 *   h[2] max_text (small limits: 4 + h2 % max_token-3; else bit 7: 4 + h2 & 0x7f)
 *   h[3] max_token / max_dtd (small limits)
 *   h[4] max_depth (low nibble, small limits), batch_events (high nibble)
 *   h[5] fixed block size: 16 KiB + (h5 % 64) * 2 KiB; bit 7: a resolver (below),
 *        bit 6: it hands entities over by a read function (else as buffers)
 *   h[6] max_attrs, max_name, max_ns, max_entity_depth (small limits)
 *   h[7] forced encoding (low 3 bits), entity limits (small limits), bit 7:
 *        an unknown_encoding hook
 *   h[8] allocation to fail in the extra run
 *   h[9] read_buffer (when nonzero: 256 + h9 * 64)
 *
 * With a resolver, the input after the first two NUL bytes is not part of
 * the document: split at each pair of NULs, its parts are the external
 * entities (UTF-16 ones included), the
 * one a system id names chosen by its first byte (a system id starting with
 * 'n' is declined, with 'x' refused with STAX_E_IO). Each is handed over in
 * a buffer of its own size, freed by `done`.
 *
 * Each input is read twice with the same options: whole (one feed), and in
 * chunks (push, or pull). Invariants (abort() when broken):
 *   - the status (STAX_END or the error), the error position and message are
 *     the same for both runs, and so are the events (a hash of every field);
 *     a run that ends in STAX_E_NOMEM (fixed block) is not compared
 *   - every stax_str with len > 0 has ptr != NULL, and is valid UTF-8
 *   - 1 <= batch count <= effective batch_events; next() sets *out, count 0
 *     unless STAX_OK
 *   - after an error, next/feed/end return the same error and no event; after
 *     STAX_END, next returns STAX_END; STAX_END only after end()
 *   - END names match START names; stax_reader_depth() follows START/END
 *   - positions: line, column >= 1, offsets non-decreasing and <= input size
 *   - STAX_EVF_WHITESPACE texts hold only whitespace
 *   - with namespaces, a START at the end of a batch: ns_lookup(prefix) gives
 *     the event's URI
 *   - the resolver: one request at a time, `done` once for each entity
 *     handed over, before the next request and before the run ends
 */
#include "stax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 10

/* FUZZ_READER_DUMP=1 in the environment: print the events and results. */
static int dump;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz_reader: invariant failed: %s (%s:%d)\n", #cond, \
                    __FILE__, __LINE__);                                          \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            abort();                                                              \
        }                                                                         \
    } while (0)

/* ---------------------------------------------------------------- helpers */

typedef struct hasher {
    uint64_t h;
} hasher;

static void hbytes(hasher *h, const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t x = h->h;
    for (size_t i = 0; i < n; i++) {
        x ^= b[i];
        x *= 1099511628211ull;
    }
    h->h = x;
}
static void hu64(hasher *h, uint64_t v) { hbytes(h, &v, sizeof v); }

static int utf8_valid(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07, min = 0x10000;
        else return 0;
        if (i + k >= n) return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += k + 1;
    }
    return 1;
}

/* Read every byte of s (ASan sees a bad slice), check it, hash it. */
static void touch(hasher *h, stax_str s, const char *what) {
    CHECK(!(s.len > 0 && s.ptr == NULL), "%s: len %zu with a NULL ptr", what, s.len);
    CHECK(s.len < ((size_t)1 << 40), "%s: absurd length %zu", what, s.len);
    CHECK(s.len == 0 || utf8_valid((const unsigned char *)s.ptr, s.len), "%s: not UTF-8", what);
    hu64(h, s.len);
    if (s.len) hbytes(h, s.ptr, s.len);
}

static int str_same(stax_str a, stax_str b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* ---------------------------------------------------------------- allocator */

typedef struct alloc_state {
    size_t live;
    size_t calls;
    size_t fail_at; /* 0: never */
    int failed;
} alloc_state;

static void *counting_alloc(void *ud, void *ptr, size_t old_size, size_t new_size) {
    alloc_state *a = ud;
    if (new_size == 0) {
        CHECK(ptr != NULL, "free of NULL");
        CHECK(a->live >= old_size, "free of more than allocated");
        a->live -= old_size;
        free(ptr);
        return NULL;
    }
    CHECK(ptr != NULL || old_size == 0, "alloc with old_size %zu but no ptr", old_size);
    a->calls++;
    if (a->fail_at && a->calls >= a->fail_at) {
        a->failed = 1;
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (!p) return NULL;
    a->live = a->live - old_size + new_size;
    return p;
}

static const uint32_t *unknown_enc(void *ud, const char *name, size_t len) {
    static uint32_t table[256];
    static int init;
    (void)ud;
    if (!init) {
        for (unsigned i = 0; i < 256; i++) table[i] = i < 0x80 ? i : 0x400 + i;
        table[0x80] = 0x110000; /* not allowed */
        table[0x81] = 0xD800;   /* not allowed */
        table[0x82] = 0x10FFFF;
        table[0x83] = 0xFFFE;
        init = 1;
    }
    if (len > 0 && (name[0] == 'n' || name[0] == 'N')) return NULL; /* refuse */
    return table;
}

/* ---------------------------------------------------------------- config */

typedef struct config {
    stax_reader_options opt; /* without memory / alloc */
    int fixed;
    size_t block_size;
    size_t chunk;
    int vary;
    int pull;
    int fail_run;
    size_t fail_at;
    uint32_t eff_batch;
    int ns;
    int resolver, resolver_read;
} config;

static const char *const encodings[8] = {"UTF-8",      "UTF-16",   "UTF-16LE",     "UTF-16BE",
                                         "ISO-8859-1", "US-ASCII", "windows-1252", "utf-16"};

static void parse_config(const uint8_t *h, config *c) {
    memset(c, 0, sizeof *c);
    stax_reader_options *o = &c->opt;
    c->chunk = h[0] < 0xC0 ? 1 + h[0] % 64u : 65 + (size_t)(h[0] - 0xC0) * 97;
    c->ns = (h[1] & 1) != 0;
    if (c->ns) o->flags |= STAX_READ_NAMESPACES;
    if (h[1] & 2) o->flags |= STAX_READ_SKIP_WS;
    c->fixed = (h[1] & 4) != 0;
    c->block_size = 16384 + (size_t)(h[5] % 64) * 2048;
    if (h[1] & 8) { /* small limits */
        o->max_token = 64 + (size_t)h[3] * 16;
        o->max_text = 4 + h[2] % (o->max_token - 3);
        o->max_depth = 1 + (h[4] & 15);
        o->max_attrs = 1 + h[6] % 8;
        o->max_name = 1 + (uint32_t)(h[6] >> 3) * 4;
        o->max_ns = 1 + h[6] % 5;
        o->max_entity_depth = 1 + (h[6] >> 5) % 4;
        o->entity_threshold = 256 * (size_t)(1 + (h[7] >> 3) % 8);
        o->entity_amplification = 1 + (h[7] >> 4) % 8;
        o->max_dtd = 256 + (size_t)h[3] * 32;
    } else if (h[2] & 0x80) {
        o->max_text = 4 + (h[2] & 0x7f);
    }
    o->batch_events = h[4] >> 4;
    if (h[1] & 16) o->encoding = encodings[h[7] & 7];
    if (h[7] & 0x80) o->unknown_encoding = unknown_enc;
    if (h[9]) o->read_buffer = 256 + (size_t)h[9] * 64;
    c->vary = (h[1] & 32) != 0;
    c->pull = (h[1] & 64) != 0;
    c->fail_run = (h[1] & 128) != 0 && !c->fixed;
    c->fail_at = 1 + h[8];
    c->resolver = (h[5] & 0x80) != 0;
    c->resolver_read = (h[5] & 0x40) != 0;
    uint32_t be = o->batch_events;
    if (be == 0) be = c->fixed ? 32 : 256;
    if (be < 2) be = 2;
    c->eff_batch = be;
}

/* ---------------------------------------------------------------- one run */

typedef struct result {
    int created;
    int status;
    stax_pos epos;
    char msg[256];
    uint64_t hash;
    uint64_t events;
    int alloc_failed;
} result;

typedef struct run {
    const config *c;
    stax_reader *r;
    hasher h;
    uint64_t events;
    uint64_t total;     /* input size */
    uint64_t last_off;
    uint64_t *stack;    /* hashes of open element names */
    size_t depth, cap;
    int saw_doctype;
} run;

static uint64_t name_hash(stax_str s) {
    hasher h = {1469598103934665603ull};
    hu64(&h, s.len);
    if (s.len) hbytes(&h, s.ptr, s.len);
    return h.h;
}

static void touch_dtd(run *u) {
    const stax_decl *d;
    size_t n = stax_reader_notations(u->r, &d);
    for (size_t i = 0; i < n; i++) {
        touch(&u->h, d[i].name, "notation name");
        touch(&u->h, d[i].pubid, "notation pubid");
        touch(&u->h, d[i].sysid, "notation sysid");
        touch(&u->h, d[i].notation, "notation notation");
    }
    n = stax_reader_unparsed_entities(u->r, &d);
    for (size_t i = 0; i < n; i++) {
        touch(&u->h, d[i].name, "unparsed name");
        touch(&u->h, d[i].pubid, "unparsed pubid");
        touch(&u->h, d[i].sysid, "unparsed sysid");
        touch(&u->h, d[i].notation, "unparsed notation");
    }
    const stax_dtd_pi *p;
    n = stax_reader_dtd_pis(u->r, &p);
    for (size_t i = 0; i < n; i++) {
        touch(&u->h, p[i].target, "dtd pi target");
        touch(&u->h, p[i].data, "dtd pi data");
    }
}

static void touch_qname(hasher *h, stax_qname q, stax_str name) {
    touch(h, q.prefix, "prefix");
    touch(h, q.local, "local");
    touch(h, q.uri, "uri");
    /* name = prefix ':' local, or local */
    if (q.prefix.len) {
        CHECK(name.len == q.prefix.len + 1 + q.local.len &&
                  memcmp(name.ptr, q.prefix.ptr, q.prefix.len) == 0 && name.ptr[q.prefix.len] == ':' &&
                  memcmp(name.ptr + q.prefix.len + 1, q.local.ptr, q.local.len) == 0,
              "qname parts do not make the name");
    } else {
        CHECK(str_same(q.local, name), "local part differs from the unprefixed name");
    }
}

static void process_batch(run *u, const stax_batch *b) {
    const config *c = u->c;
    CHECK(b != NULL, "STAX_OK with a NULL batch");
    CHECK(b->count >= 1, "STAX_OK with an empty batch");
    CHECK(b->count <= c->eff_batch, "batch of %zu events, batch_events %u", b->count, c->eff_batch);
    if (c->ns) CHECK(b->ev_ns != NULL && b->attr_ns != NULL, "namespaces on, no ns tables");
    else CHECK(b->ev_ns == NULL && b->attr_ns == NULL, "namespaces off, ns tables");
    for (size_t i = 0; i < b->count; i++) {
        int t = stax_ev_type(b, i);
        unsigned fl = stax_ev_flags(b, i);
        stax_pos p = stax_ev_pos(b, i);
        CHECK(t >= STAX_EV_START && t <= STAX_EV_ENTITY_REF, "event type %d", t);
        CHECK(p.line >= 1 && p.column >= 1, "position %llu:%llu", (unsigned long long)p.line,
              (unsigned long long)p.column);
        CHECK(p.offset <= u->total, "offset %llu past the input (%llu)", (unsigned long long)p.offset,
              (unsigned long long)u->total);
        CHECK(p.offset >= u->last_off, "offset went back: %llu after %llu", (unsigned long long)p.offset,
              (unsigned long long)u->last_off);
        CHECK(p.column <= p.offset + 1, "column %llu at offset %llu", (unsigned long long)p.column,
              (unsigned long long)p.offset);
        CHECK(p.line <= p.offset + 1, "line %llu at offset %llu", (unsigned long long)p.line,
              (unsigned long long)p.offset);
        u->last_off = p.offset;
        if (dump) {
            stax_str nm = stax_ev_name(b, i), tx = stax_ev_text(b, i);
            fprintf(stderr, "  ev %d fl %#x @%llu %llu:%llu name \"%.*s\" text \"%.*s\" pub %zu sys %zu attrs %zu\n", t, fl,
                    (unsigned long long)p.offset, (unsigned long long)p.line, (unsigned long long)p.column,
                    (int)nm.len, nm.len ? nm.ptr : "", (int)(tx.len > 200 ? 200 : tx.len), tx.len ? tx.ptr : "", stax_ev_pubid(b, i).len, stax_ev_sysid(b, i).len,
                    t == STAX_EV_START ? stax_ev_attr_count(b, i) : (size_t)0);
        }
        hu64(&u->h, (uint64_t)t);
        hu64(&u->h, fl);
        hu64(&u->h, p.offset);
        hu64(&u->h, p.line);
        hu64(&u->h, p.column);
        stax_str name = stax_ev_name(b, i), text = stax_ev_text(b, i);
        touch(&u->h, name, "name");
        touch(&u->h, text, "text");
        touch(&u->h, stax_ev_pubid(b, i), "pubid");
        touch(&u->h, stax_ev_sysid(b, i), "sysid");
        if (c->ns || t == STAX_EV_START || t == STAX_EV_END) {
            stax_qname q = stax_ev_qname(b, i);
            if (t == STAX_EV_START || t == STAX_EV_END) touch_qname(&u->h, q, name);
            (void)stax_ev_prefix(b, i);
            (void)stax_ev_local(b, i);
            (void)stax_ev_uri(b, i);
        }
        if ((t == STAX_EV_TEXT) && (fl & STAX_EVF_WHITESPACE)) {
            for (size_t k = 0; k < text.len; k++) {
                char ch = text.ptr[k];
                CHECK(ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r',
                      "WHITESPACE text holds byte 0x%02x", (unsigned char)ch);
            }
        }
        if (t == STAX_EV_TEXT) /* (an empty CDATA section is an empty CDATA event) */
            CHECK(text.len > 0 || (fl & STAX_EVF_CONTINUED), "empty TEXT event");
        if (t == STAX_EV_START) {
            size_t na = stax_ev_attr_count(b, i);
            CHECK(na <= 1u << 24, "attr_count %zu", na);
            if (c->opt.max_attrs) CHECK(na <= c->opt.max_attrs, "%zu attributes, max_attrs %u", na, c->opt.max_attrs);
            hu64(&u->h, na);
            for (size_t k = 0; k < na; k++) {
                stax_str an = stax_ev_attr_name(b, i, k);
                touch(&u->h, an, "attr name");
                touch(&u->h, stax_ev_attr_value(b, i, k), "attr value");
                hu64(&u->h, stax_ev_attr_flags(b, i, k));
                CHECK(an.len > 0, "empty attribute name");
                stax_qname aq = stax_ev_attr_qname(b, i, k);
                touch_qname(&u->h, aq, an);
                for (size_t j = 0; j < k; j++)
                    CHECK(!str_same(an, stax_ev_attr_name(b, i, j)), "duplicate attribute delivered");
            }
            CHECK(name.len > 0, "START without a name");
            if (u->depth == u->cap) {
                u->cap = u->cap ? u->cap * 2 : 64;
                u->stack = realloc(u->stack, u->cap * sizeof *u->stack);
                if (!u->stack) abort();
            }
            u->stack[u->depth++] = name_hash(name);
            if (c->opt.max_depth) CHECK(u->depth <= c->opt.max_depth, "depth %zu > max_depth", u->depth);
        } else if (t == STAX_EV_END) {
            CHECK(u->depth > 0, "END with no open element");
            CHECK(u->stack[u->depth - 1] == name_hash(name), "END name differs from its START");
            u->depth--;
        } else if (t == STAX_EV_DOCTYPE) {
            u->saw_doctype = 1;
            touch_dtd(u);
        } else if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) {
            CHECK(u->depth > 0, "text or CDATA outside the root");
        }
        u->events++;
    }
    CHECK(stax_reader_depth(u->r) == u->depth, "stax_reader_depth %u, events say %zu",
          stax_reader_depth(u->r), u->depth);
    /* namespace lookup where the reader stands */
    size_t last = b->count - 1;
    if (c->ns && stax_ev_type(b, last) == STAX_EV_START && !(stax_ev_flags(b, last) & STAX_EVF_EMPTY)) {
        stax_qname q = stax_ev_qname(b, last);
        stax_str uri = {NULL, 0};
        int rc = stax_reader_ns_lookup(u->r, q.prefix, &uri);
        if (rc == 0) {
            hasher scratch = {0}; /* batch boundaries differ between runs: not hashed */
            touch(&scratch, uri, "ns_lookup uri");
            CHECK(str_same(uri, q.uri), "ns_lookup(prefix) differs from the event's URI");
        } else {
            CHECK(q.prefix.len == 0 && q.uri.len == 0, "ns_lookup failed for a bound prefix");
        }
        stax_str xml = {"xml", 3};
        CHECK(stax_reader_ns_lookup(u->r, xml, &uri) == 0, "prefix xml not bound");
    }
}

typedef struct pull_src {
    const uint8_t *data;
    size_t size, pos, chunk;
    uint64_t rng;
    int vary;
} pull_src;

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static size_t next_chunk(size_t base, int vary, uint64_t *rng) {
    if (!vary) return base;
    uint64_t x = rng_next(rng);
    switch (x & 3) {
    case 0: return 1;
    case 1: return 1 + (x >> 8) % 8;
    default: return 1 + (x >> 8) % (2 * base);
    }
}

static ptrdiff_t pull_read(void *ctx, void *buf, size_t cap) {
    pull_src *s = ctx;
    if (s->pos >= s->size) return 0;
    size_t n = next_chunk(s->chunk, s->vary, &s->rng);
    if (n > cap) n = cap;
    if (n > s->size - s->pos) n = s->size - s->pos;
    if (dump) fprintf(stderr, "  read %zu (cap %zu)\n", n, cap);
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (ptrdiff_t)n;
}

/* ---------------------------------------------------------------- the resolver */

typedef struct resolver {
    const uint8_t *parts; /* the entities, separated by NUL bytes */
    size_t size;
    int read;             /* by a read function */
    uint64_t rng;
    unsigned handed, done;
    char *open;           /* the entity handed over and not yet done */
    size_t open_len, pos;
} resolver;

static ptrdiff_t entity_read(void *ctx, void *buf, size_t cap) {
    resolver *x = ctx;
    CHECK(x->open != NULL, "read after done");
    size_t n = x->open_len - x->pos, k = 1 + rng_next(&x->rng) % 9;
    if (k < 9 && n > k) n = k; /* 1 to 8 bytes, or all */
    if (n > cap) n = cap;
    memcpy(buf, x->open + x->pos, n);
    x->pos += n;
    return (ptrdiff_t)n;
}

static void entity_done(void *ctx) {
    resolver *x = ctx;
    CHECK(x->open != NULL, "done twice");
    memset(x->open, 0xA5, x->open_len); /* nothing may read it afterwards */
    free(x->open);
    x->open = NULL;
    x->done++;
}

static int entity_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    resolver *x = ud;
    CHECK(x->open == NULL, "a request while an entity is open");
    CHECK(req->kind >= STAX_ENTITY_GENERAL && req->kind <= STAX_ENTITY_SUBSET, "request kind %d", req->kind);
    CHECK(in->data == NULL && in->read == NULL && in->done == NULL, "input not zeroed");
    unsigned char first = req->sysid.len ? (unsigned char)req->sysid.ptr[0] : 0;
    if (first == 'n' || !x->parts) return STAX_DECLINE;
    if (first == 'x') {
        in->message = "refused";
        return STAX_E_IO;
    }
    size_t nparts = 1;
    for (size_t i = 0; i + 1 < x->size; i++)
        if (x->parts[i] == 0 && x->parts[i + 1] == 0) nparts++, i++;
    size_t want = first % nparts, at = 0;
    for (size_t k = 0; k < want; at++)
        if (x->parts[at] == 0 && x->parts[at + 1] == 0) k++, at++;
    size_t end = at;
    while (end < x->size && !(x->parts[end] == 0 && end + 1 < x->size && x->parts[end + 1] == 0)) end++;
    x->open_len = end - at;
    x->open = malloc(x->open_len ? x->open_len : 1); /* its exact size: ASan sees reads past it */
    if (!x->open) abort();
    if (x->open_len) memcpy(x->open, x->parts + at, x->open_len);
    x->pos = 0;
    x->handed++;
    if (x->read) {
        in->read = entity_read;
        in->read_ctx = x;
    } else {
        in->data = x->open;
        in->len = x->open_len;
    }
    in->done = entity_done;
    in->done_ctx = x;
    in->base.ptr = (const char *)x->open; /* copied by the reader */
    in->base.len = x->open_len < 8 ? x->open_len : 8;
    return STAX_OK;
}

/* After the reader stopped with status st: everything returns st, no event. */
static void check_stopped(run *u, int st) {
    const stax_batch *b = NULL;
    int st2 = stax_reader_next(u->r, &b);
    CHECK(st2 == st, "next after a stop returned %d, first %d", st2, st);
    CHECK(b != NULL && b->count == 0, "a batch after the stop");
    if (st < 0) {
        CHECK(stax_reader_status(u->r) == st, "status %d, next said %d", stax_reader_status(u->r), st);
        char x = 0;
        CHECK(stax_reader_feed(u->r, &x, 1) == st, "feed after an error");
        CHECK(stax_reader_end(u->r) == st, "end after an error");
        CHECK(stax_reader_next(u->r, &b) == st && b->count == 0, "event after an error");
    } else {
        CHECK(stax_reader_status(u->r) == STAX_OK, "status %d after STAX_END", stax_reader_status(u->r));
    }
}

/* mode 0: whole; 1: chunked (push or pull as configured); 2: whole with an
 * allocation failure injected. */
static void do_run(const config *c, const uint8_t *doc, size_t size, int mode, result *res) {
    memset(res, 0, sizeof *res);
    stax_reader_options o = c->opt;
    resolver rs;
    memset(&rs, 0, sizeof rs);
    rs.read = c->resolver_read;
    rs.rng = 0x2545F4914F6CDD1Dull ^ size;
    if (c->resolver) {
        for (size_t i = 0; i + 1 < size; i++)
            if (doc[i] == 0 && doc[i + 1] == 0) {
                rs.parts = doc + i + 2;
                rs.size = size - i - 2;
                size = i;
                break;
            }
        o.resolve = entity_resolve;
        o.resolve_ud = &rs;
    }
    alloc_state as = {0, 0, 0, 0};
    void *block = NULL;
    if (c->fixed) {
        block = malloc(c->block_size);
        if (!block) abort();
        o.memory = block;
        o.memory_size = c->block_size;
    } else {
        o.alloc = counting_alloc;
        o.alloc_ud = &as;
        if (mode == 2) as.fail_at = c->fail_at;
    }
    run u;
    memset(&u, 0, sizeof u);
    u.c = c;
    u.h.h = 1469598103934665603ull;
    u.total = size;
    u.r = stax_reader_new(&o);
    if (!u.r) {
        CHECK(mode == 2 || c->fixed, "stax_reader_new failed with valid options");
        CHECK(as.live == 0, "stax_reader_new failed and leaked %zu bytes", as.live);
        res->created = 0;
        free(block);
        return;
    }
    res->created = 1;
    const stax_batch *b = NULL;
    int st = STAX_NEED_INPUT;
    int ended = 0;
    pull_src src = {doc, size, 0, c->chunk, 0x9E3779B97F4A7C15ull ^ size ^ ((uint64_t)c->chunk << 32), c->vary};

    if (mode == 1 && c->pull) {
        int rc = stax_reader_set_source(u.r, pull_read, &src);
        CHECK(rc == STAX_OK, "set_source: %d", rc);
        ended = 1;
        for (;;) {
            b = NULL;
            st = stax_reader_next(u.r, &b);
            CHECK(b != NULL, "next left *out unset");
            if (st != STAX_OK) break;
            process_batch(&u, b);
        }
        CHECK(st != STAX_NEED_INPUT, "pull reader returned STAX_NEED_INPUT");
    } else {
        size_t pos = 0;
        uint64_t rng = src.rng;
        int first = 1;
        while (st == STAX_NEED_INPUT && (pos < size || first)) {
            size_t n = mode == 1 ? next_chunk(c->chunk, c->vary, &rng) : size;
            if (n > size - pos) n = size - pos;
            first = 0;
            /* a private copy of exactly n bytes: ASan catches a read past the
             * chunk, and a use after the reader said it was done with it */
            char *chunk = malloc(n ? n : 1);
            if (!chunk) abort();
            if (n) memcpy(chunk, doc + pos, n);
            if (dump) fprintf(stderr, "  feed %zu\n", n);
            int rc = stax_reader_feed(u.r, chunk, n);
            CHECK(rc == STAX_OK, "feed returned %d", rc);
            pos += n;
            for (;;) {
                b = NULL;
                st = stax_reader_next(u.r, &b);
                CHECK(b != NULL, "next left *out unset");
                if (st != STAX_OK) {
                    CHECK(b->count == 0, "status %d with %zu events", st, b->count);
                    break;
                }
                process_batch(&u, b);
            }
            if (st == STAX_NEED_INPUT) {
                memset(chunk, 0xA5, n); /* the reader no longer refers to it */
                free(chunk);
            } else {
                CHECK(st != STAX_END, "STAX_END before the input ended");
                /* keep the chunk alive for the checks below, then free */
                check_stopped(&u, st);
                free(chunk);
                goto done;
            }
        }
        CHECK(st != STAX_END, "STAX_END before the input ended");
        if (st == STAX_NEED_INPUT) {
            int rc = stax_reader_end(u.r);
            CHECK(rc == STAX_OK, "end returned %d", rc);
            ended = 1;
            for (;;) {
                b = NULL;
                st = stax_reader_next(u.r, &b);
                CHECK(b != NULL, "next left *out unset");
                if (st != STAX_OK) break;
                process_batch(&u, b);
            }
            CHECK(st != STAX_NEED_INPUT, "STAX_NEED_INPUT after end()");
        }
    }
    (void)ended;
    check_stopped(&u, st);
done:
    CHECK(st == STAX_END || st < 0, "final status %d", st);
    if (st == STAX_END) CHECK(u.depth == 0, "STAX_END with %zu open elements", u.depth);
    res->status = st;
    res->epos = stax_reader_error_pos(u.r);
    if (st < 0) {
        CHECK(res->epos.offset <= size, "error offset %llu past the input (%zu)",
              (unsigned long long)res->epos.offset, size);
        CHECK(res->epos.line >= 1 && res->epos.column >= 1, "error position %llu:%llu, status %d \"%s\"",
              (unsigned long long)res->epos.line, (unsigned long long)res->epos.column, st,
              stax_reader_message(u.r));
    } else {
        CHECK(res->epos.offset == 0 && res->epos.line == 0 && res->epos.column == 0,
              "error position set without an error");
    }
    const char *m = stax_reader_message(u.r);
    CHECK(m != NULL, "NULL message");
    size_t ml = strlen(m);
    CHECK(ml < 256, "message of %zu bytes", ml);
    CHECK((st < 0) == (ml > 0), "message \"%s\" with status %d", m, st);
    memcpy(res->msg, m, ml + 1);
    (void)stax_strerror(st);
    if (u.saw_doctype) touch_dtd(&u);
    res->hash = u.h.h;
    res->events = u.events;
    res->alloc_failed = as.failed;
    stax_reader_free(u.r);
    free(u.stack);
    CHECK(rs.open == NULL && rs.done == rs.handed, "%u entities handed over, %u done", rs.handed, rs.done);
    CHECK(as.live == 0, "%zu bytes not freed by stax_reader_free", as.live);
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint8_t zero[HDR];
    const uint8_t *h = zero;
    if (size >= HDR) {
        h = data;
        data += HDR;
        size -= HDR;
    }
    static int init;
    if (!init) {
        dump = getenv("FUZZ_READER_DUMP") != NULL;
        init = 1;
    }
    config c;
    parse_config(h, &c);
    if (size > 1 << 20) return 0;

    result whole, chunked;
    if (dump) fprintf(stderr, "whole:\n");
    do_run(&c, data, size, 0, &whole);
    if (dump) fprintf(stderr, "  -> %d at %llu:%llu (%llu) \"%s\"\nchunks of %zu%s%s:\n", whole.status,
                      (unsigned long long)whole.epos.line, (unsigned long long)whole.epos.column,
                      (unsigned long long)whole.epos.offset, whole.msg, c.chunk, c.vary ? " (varying)" : "",
                      c.pull ? " (pull)" : "");
    do_run(&c, data, size, 1, &chunked);
    if (dump) fprintf(stderr, "  -> %d at %llu:%llu (%llu) \"%s\"\n", chunked.status,
                      (unsigned long long)chunked.epos.line, (unsigned long long)chunked.epos.column,
                      (unsigned long long)chunked.epos.offset, chunked.msg);
    if (!c.fixed) CHECK(whole.created && chunked.created, "reader not created");
    if (whole.created && chunked.created && whole.status != STAX_E_NOMEM && chunked.status != STAX_E_NOMEM) {
        CHECK(whole.status == chunked.status, "status whole %d, in chunks of %zu%s%s: %d (\"%s\" / \"%s\")",
              whole.status, c.chunk, c.vary ? " (varying)" : "", c.pull ? " (pull)" : "", chunked.status,
              whole.msg, chunked.msg);
        CHECK(whole.epos.offset == chunked.epos.offset && whole.epos.line == chunked.epos.line &&
                  whole.epos.column == chunked.epos.column,
              "error position whole %llu (%llu:%llu), in chunks of %zu%s%s: %llu (%llu:%llu); status %d \"%s\"",
              (unsigned long long)whole.epos.offset, (unsigned long long)whole.epos.line,
              (unsigned long long)whole.epos.column, c.chunk, c.vary ? " (varying)" : "", c.pull ? " (pull)" : "",
              (unsigned long long)chunked.epos.offset, (unsigned long long)chunked.epos.line,
              (unsigned long long)chunked.epos.column, whole.status, whole.msg);
        CHECK(strcmp(whole.msg, chunked.msg) == 0, "message whole \"%s\", chunked \"%s\"", whole.msg, chunked.msg);
        CHECK(whole.events == chunked.events && whole.hash == chunked.hash,
              "events differ: whole %llu events, in chunks of %zu%s%s: %llu events (status %d)",
              (unsigned long long)whole.events, c.chunk, c.vary ? " (varying)" : "", c.pull ? " (pull)" : "",
              (unsigned long long)chunked.events, whole.status);
    }
    if (c.fail_run) {
        result f;
        do_run(&c, data, size, 2, &f);
        if (f.created && !f.alloc_failed && whole.created) {
            CHECK(f.status == whole.status && f.hash == whole.hash, "no allocation failed, yet the run differs");
        }
        if (f.created && f.alloc_failed && f.status != whole.status)
            CHECK(f.status == STAX_E_NOMEM, "allocation failed, status %d (\"%s\"), expected STAX_E_NOMEM or %d",
                  f.status, f.msg, whole.status);
    }
    return 0;
}
