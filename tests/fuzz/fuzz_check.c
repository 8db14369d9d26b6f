/* Shared parts of the reader fuzz targets: see fuzz_check.h, and the README
 * for the list of invariants. */
#include "fuzz_check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fz_dump;
int fz_split_entities;

void fz_init(void) {
    static int done;
    if (done) return;
    done = 1;
    fz_dump = getenv("FUZZ_DUMP") != NULL || getenv("FUZZ_READER_DUMP") != NULL;
}

/* ---------------------------------------------------------------- hashing */

typedef struct hasher {
    uint64_t h;
} hasher;

#define FNV_INIT 1469598103934665603ull

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
    FZ_CHECK(!(s.len > 0 && s.ptr == NULL), "%s: len %zu with a NULL ptr", what, s.len);
    FZ_CHECK(s.len < ((size_t)1 << 40), "%s: absurd length %zu", what, s.len);
    FZ_CHECK(s.len == 0 || utf8_valid((const unsigned char *)s.ptr, s.len), "%s: not UTF-8", what);
    hu64(h, s.len);
    if (s.len) hbytes(h, s.ptr, s.len);
}

static int str_same(stax_str a, stax_str b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* ---------------------------------------------------------------- checking heap */

static size_t slot_of(const void *p, size_t cap) {
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (size_t)x & (cap - 1);
}

static fz_heap_slot *heap_find(fz_heap *h, const void *p) {
    if (!h->cap) return NULL;
    for (size_t i = slot_of(p, h->cap);; i = (i + 1) & (h->cap - 1)) {
        if (h->tab[i].p == p) return &h->tab[i];
        if (!h->tab[i].p) return NULL;
    }
}

static void heap_put(fz_heap *h, void *p, size_t n) {
    if ((h->live_blocks + 1) * 2 > h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        fz_heap_slot *old = h->tab, *t = calloc(ncap, sizeof *t);
        if (!t) abort();
        size_t ocap = h->cap;
        h->tab = t;
        h->cap = ncap;
        for (size_t i = 0; i < ocap; i++) {
            if (!old[i].p) continue;
            size_t j = slot_of(old[i].p, ncap);
            while (t[j].p) j = (j + 1) & (ncap - 1);
            t[j] = old[i];
        }
        free(old);
    }
    size_t j = slot_of(p, h->cap);
    while (h->tab[j].p) j = (j + 1) & (h->cap - 1);
    h->tab[j].p = p;
    h->tab[j].n = n;
    h->live_blocks++;
    h->live_bytes += n;
    if (h->live_bytes > h->peak_bytes) h->peak_bytes = h->live_bytes;
}

/* Linear probing: delete by shifting the following run back. */
static void heap_del(fz_heap *h, fz_heap_slot *s) {
    size_t i = (size_t)(s - h->tab), mask = h->cap - 1;
    h->live_blocks--;
    h->live_bytes -= s->n;
    h->tab[i].p = NULL;
    for (size_t j = (i + 1) & mask; h->tab[j].p; j = (j + 1) & mask) {
        size_t home = slot_of(h->tab[j].p, h->cap);
        /* move j back to i unless its home lies cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            h->tab[i] = h->tab[j];
            h->tab[j].p = NULL;
            i = j;
        }
    }
}

void *fz_heap_fn(void *ud, void *ptr, size_t old_size, size_t new_size) {
    fz_heap *h = ud;
    if (new_size == 0) {
        FZ_CHECK(ptr != NULL, "allocator contract: free of NULL (old_size %zu)", old_size);
        fz_heap_slot *s = heap_find(h, ptr);
        FZ_CHECK(s != NULL, "allocator contract: free of a block not allocated (old_size %zu)", old_size);
        FZ_CHECK(s->n == old_size, "allocator contract: free of a %zu-byte block with old_size %zu", s->n, old_size);
        heap_del(h, s);
        free(ptr);
        return NULL;
    }
    fz_heap_slot *s = NULL;
    if (ptr) {
        s = heap_find(h, ptr);
        FZ_CHECK(s != NULL, "allocator contract: resize of a block not allocated (old_size %zu, new %zu)", old_size,
                 new_size);
        FZ_CHECK(s->n == old_size, "allocator contract: resize of a %zu-byte block with old_size %zu (new %zu)", s->n,
                 old_size, new_size);
    } else {
        FZ_CHECK(old_size == 0, "allocator contract: allocation with old_size %zu and no block", old_size);
    }
    h->calls++;
    if (h->fail_at && (h->calls == h->fail_at || (h->fail_persist && h->calls > h->fail_at))) {
        h->failed = 1;
        return NULL; /* the block, if any, stays as it was */
    }
    void *p = realloc(ptr, new_size);
    if (!p) abort();
    if (s) heap_del(h, s);
    heap_put(h, p, new_size);
    return p;
}

void fz_heap_done(fz_heap *h, const char *when) {
    FZ_CHECK(h->live_blocks == 0, "%s: %zu blocks (%zu bytes) not freed", when, h->live_blocks, h->live_bytes);
    free(h->tab);
    h->tab = NULL;
    h->cap = 0;
}

/* ---------------------------------------------------------------- one run */

typedef struct run {
    const fz_spec *s;
    uint32_t eff_batch;
    int ns;
    stax_reader *r;
    hasher h, core, nows;
    int text_cont; /* the last TEXT was CONTINUED: a whitespace text now is a piece */
    fz_result *res;
    uint64_t total; /* input size */
    uint64_t last_off;
    uint64_t *stack; /* hashes of open element names */
    size_t depth, cap;
    int saw_doctype;
} run;

static uint64_t name_hash(stax_str s) {
    hasher h = {FNV_INIT};
    hu64(&h, s.len);
    if (s.len) hbytes(&h, s.ptr, s.len);
    return h.h;
}

static void touch_dtd(stax_reader *r, hasher *h) {
    const stax_decl *d;
    size_t n = stax_reader_notations(r, &d);
    for (size_t i = 0; i < n; i++) {
        touch(h, d[i].name, "notation name");
        touch(h, d[i].pubid, "notation pubid");
        touch(h, d[i].sysid, "notation sysid");
        touch(h, d[i].notation, "notation notation");
    }
    n = stax_reader_unparsed_entities(r, &d);
    for (size_t i = 0; i < n; i++) {
        touch(h, d[i].name, "unparsed name");
        touch(h, d[i].pubid, "unparsed pubid");
        touch(h, d[i].sysid, "unparsed sysid");
        touch(h, d[i].notation, "unparsed notation");
    }
    const stax_dtd_pi *p;
    n = stax_reader_dtd_pis(r, &p);
    for (size_t i = 0; i < n; i++) {
        touch(h, p[i].target, "dtd pi target");
        touch(h, p[i].data, "dtd pi data");
    }
}

static void touch_qname(hasher *h, stax_qname q, stax_str name) {
    touch(h, q.prefix, "prefix");
    touch(h, q.local, "local");
    touch(h, q.uri, "uri");
    /* name = prefix ':' local, or local */
    if (q.prefix.len) {
        FZ_CHECK(name.len == q.prefix.len + 1 + q.local.len && memcmp(name.ptr, q.prefix.ptr, q.prefix.len) == 0 &&
                     name.ptr[q.prefix.len] == ':' &&
                     memcmp(name.ptr + q.prefix.len + 1, q.local.ptr, q.local.len) == 0,
                 "qname parts do not make the name");
    } else {
        FZ_CHECK(str_same(q.local, name), "local part differs from the unprefixed name");
    }
}

static void keep_evh(fz_result *res, uint64_t h) {
    if (res->events == res->evh_cap) {
        res->evh_cap = res->evh_cap ? res->evh_cap * 2 : 256;
        res->evh = realloc(res->evh, res->evh_cap * sizeof *res->evh);
        if (!res->evh) abort();
    }
    res->evh[res->events++] = h;
}

static void one_event(run *u, const stax_batch *b, size_t i) {
    const fz_spec *s = u->s;
    int t = stax_ev_type(b, i);
    unsigned fl = stax_ev_flags(b, i);
    stax_pos p = stax_ev_pos(b, i);
    FZ_CHECK(t >= STAX_EV_START && (t <= STAX_EV_ENTITY_REF || (t == STAX_EV_DOCUMENT_END && (s->opt.flags & STAX_READ_DOCUMENTS))),
             "event type %d", t);
    FZ_CHECK(p.line >= 1 && p.column >= 1, "position %llu:%llu", (unsigned long long)p.line,
             (unsigned long long)p.column);
    /* (a document read through the caller's decoder counts its offsets in
     * UTF-8 bytes: at most 4 a byte of input, docs/encodings.md) */
    FZ_CHECK(p.offset <= (s->opt.decoder ? 4 * u->total : u->total), "offset %llu past the input (%llu)",
             (unsigned long long)p.offset, (unsigned long long)u->total);
    FZ_CHECK(p.offset >= u->last_off, "offset went back: %llu after %llu", (unsigned long long)p.offset,
             (unsigned long long)u->last_off);
    FZ_CHECK(p.column <= p.offset + 1, "column %llu at offset %llu", (unsigned long long)p.column,
             (unsigned long long)p.offset);
    FZ_CHECK(p.line <= p.offset + 1, "line %llu at offset %llu", (unsigned long long)p.line,
             (unsigned long long)p.offset);
    u->last_off = p.offset;
    stax_str name = stax_ev_name(b, i), text = stax_ev_text(b, i);
    if (fz_dump) {
        fprintf(stderr, "  ev %d fl %#x @%llu %llu:%llu name \"%.*s\" text \"%.*s\" pub %zu sys %zu attrs %zu\n", t,
                fl, (unsigned long long)p.offset, (unsigned long long)p.line, (unsigned long long)p.column,
                (int)name.len, name.len ? name.ptr : "", (int)(text.len > 200 ? 200 : text.len),
                text.len ? text.ptr : "", stax_ev_pubid(b, i).len, stax_ev_sysid(b, i).len,
                t == STAX_EV_START ? stax_ev_attr_count(b, i) : (size_t)0);
        if (t == STAX_EV_START)
            for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
                stax_str an = stax_ev_attr_name(b, i, k), av = stax_ev_attr_value(b, i, k);
                fprintf(stderr, "     @%.*s=\"%.*s\"%s\n", (int)an.len, an.len ? an.ptr : "",
                        (int)(av.len > 200 ? 200 : av.len), av.len ? av.ptr : "",
                        stax_ev_attr_flags(b, i, k) & STAX_ATTRF_DEFAULTED ? " (defaulted)" : "");
            }
    }
    hasher e = {FNV_INIT}, q = {FNV_INIT}; /* the event; its namespace views */
    hu64(&e, (uint64_t)t);
    hu64(&e, fl);
    hu64(&e, p.offset);
    hu64(&e, p.line);
    hu64(&e, p.column);
    touch(&e, name, "name");
    touch(&e, text, "text");
    touch(&e, stax_ev_pubid(b, i), "pubid");
    touch(&e, stax_ev_sysid(b, i), "sysid");
    if (t == STAX_EV_START || t == STAX_EV_END) touch_qname(&q, stax_ev_qname(b, i), name);
    (void)stax_ev_prefix(b, i);
    (void)stax_ev_local(b, i);
    (void)stax_ev_uri(b, i);
    if (t == STAX_EV_TEXT && (fl & STAX_EVF_WHITESPACE)) {
        for (size_t k = 0; k < text.len; k++) {
            char ch = text.ptr[k];
            FZ_CHECK(ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r', "WHITESPACE text holds byte 0x%02x",
                     (unsigned char)ch);
        }
    }
    if (t == STAX_EV_TEXT) /* (an empty CDATA section is an empty CDATA event) */
        FZ_CHECK(text.len > 0 || (fl & STAX_EVF_CONTINUED), "empty TEXT event");
    if (t == STAX_EV_START) {
        size_t na = stax_ev_attr_count(b, i);
        FZ_CHECK(na <= 1u << 24, "attr_count %zu", na);
        if (s->opt.max_attrs) FZ_CHECK(na <= s->opt.max_attrs, "%zu attributes, max_attrs %u", na, s->opt.max_attrs);
        hu64(&e, na);
        for (size_t k = 0; k < na; k++) {
            stax_str an = stax_ev_attr_name(b, i, k);
            touch(&e, an, "attr name");
            touch(&e, stax_ev_attr_value(b, i, k), "attr value");
            hu64(&e, stax_ev_attr_flags(b, i, k));
            FZ_CHECK(an.len > 0, "empty attribute name");
            touch_qname(&q, stax_ev_attr_qname(b, i, k), an);
            for (size_t j = 0; j < k; j++)
                FZ_CHECK(!str_same(an, stax_ev_attr_name(b, i, j)), "duplicate attribute delivered");
        }
        FZ_CHECK(name.len > 0, "START without a name");
        if (u->depth == u->cap) {
            u->cap = u->cap ? u->cap * 2 : 64;
            u->stack = realloc(u->stack, u->cap * sizeof *u->stack);
            if (!u->stack) abort();
        }
        u->stack[u->depth++] = name_hash(name);
        if (s->opt.max_depth) FZ_CHECK(u->depth <= s->opt.max_depth, "depth %zu > max_depth", u->depth);
    } else if (t == STAX_EV_END) {
        FZ_CHECK(u->depth > 0, "END with no open element");
        FZ_CHECK(u->stack[u->depth - 1] == name_hash(name), "END name differs from its START");
        u->depth--;
    } else if (t == STAX_EV_DOCTYPE) {
        u->saw_doctype = 1;
        touch_dtd(u->r, &e);
    } else if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) {
        FZ_CHECK(u->depth > 0 || (s->opt.flags & STAX_READ_FRAGMENT), "text or CDATA outside the root");
    }
    /* a whole whitespace-only text: what STAX_READ_SKIP_WS drops */
    int whole_ws = 0;
    if (t == STAX_EV_TEXT) {
        whole_ws = (fl & STAX_EVF_WHITESPACE) && !(fl & STAX_EVF_CONTINUED) && !u->text_cont;
        u->text_cont = (fl & STAX_EVF_CONTINUED) != 0;
    }
    if (s->opt.flags & STAX_READ_SKIP_WS) FZ_CHECK(!whole_ws, "a whole whitespace text with STAX_READ_SKIP_WS");
    hu64(&u->h, e.h);
    hu64(&u->h, q.h);
    hu64(&u->core, e.h);
    if (!whole_ws) hu64(&u->nows, e.h);
    keep_evh(u->res, u->h.h);
}

static void process_batch(run *u, const stax_batch *b) {
    FZ_CHECK(b != NULL, "STAX_OK with a NULL batch");
    FZ_CHECK(b->count >= 1, "STAX_OK with an empty batch");
    FZ_CHECK(b->count <= u->eff_batch, "batch of %zu events, batch_events %u", b->count, u->eff_batch);
    if (u->ns) FZ_CHECK(b->ev_ns != NULL && b->attr_ns != NULL, "namespaces on, no ns tables");
    else FZ_CHECK(b->ev_ns == NULL && b->attr_ns == NULL, "namespaces off, ns tables");
    for (size_t i = 0; i < b->count; i++) one_event(u, b, i);
    FZ_CHECK(stax_reader_depth(u->r) == u->depth, "stax_reader_depth %u, events say %zu", stax_reader_depth(u->r),
             u->depth);
    /* namespace lookup where the reader stands */
    size_t last = b->count - 1;
    if (u->ns && stax_ev_type(b, last) == STAX_EV_START && !(stax_ev_flags(b, last) & STAX_EVF_EMPTY)) {
        stax_qname q = stax_ev_qname(b, last);
        stax_str uri = {NULL, 0};
        int rc = stax_reader_ns_lookup(u->r, q.prefix, &uri);
        if (rc == 0) {
            hasher scratch = {0}; /* batch boundaries differ between runs: not hashed */
            touch(&scratch, uri, "ns_lookup uri");
            FZ_CHECK(str_same(uri, q.uri), "ns_lookup(prefix) differs from the event's URI");
        } else {
            FZ_CHECK(q.prefix.len == 0 && q.uri.len == 0, "ns_lookup failed for a bound prefix");
        }
        stax_str xml = {"xml", 3};
        FZ_CHECK(stax_reader_ns_lookup(u->r, xml, &uri) == 0, "prefix xml not bound");
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
    if (fz_dump) fprintf(stderr, "  read %zu (cap %zu)\n", n, cap);
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (ptrdiff_t)n;
}

/* After the reader stopped with status st: everything returns st, no event. */
static void check_stopped(run *u, int st) {
    const stax_batch *b = NULL;
    int st2 = stax_reader_next(u->r, &b);
    FZ_CHECK(st2 == st, "next after a stop returned %d, first %d", st2, st);
    FZ_CHECK(b != NULL && b->count == 0, "a batch after the stop");
    if (st < 0) {
        FZ_CHECK(stax_reader_status(u->r) == st, "status %d, next said %d", stax_reader_status(u->r), st);
        char x = 0;
        FZ_CHECK(stax_reader_feed(u->r, &x, 1) == st, "feed after an error");
        FZ_CHECK(stax_reader_end(u->r) == st, "end after an error");
        FZ_CHECK(stax_reader_next(u->r, &b) == st && b->count == 0, "event after an error");
    } else {
        FZ_CHECK(stax_reader_status(u->r) == STAX_OK, "status %d after STAX_END", stax_reader_status(u->r));
    }
}

/* next() until it stops; every batch checked. */
static int drain(run *u) {
    for (;;) {
        const stax_batch *b = NULL;
        int st = stax_reader_next(u->r, &b);
        FZ_CHECK(b != NULL, "next left *out unset");
        if (st != STAX_OK) {
            FZ_CHECK(b->count == 0, "status %d with %zu events", st, b->count);
            return st;
        }
        process_batch(u, b);
    }
}

/* ---------------------------------------------------------------- the resolver
 * The external entities come from the input: split at each pair of NULs,
 * the part a system id names is chosen by its first byte (a system id
 * starting with 'n' is declined, with 'x' refused with STAX_E_IO). Each is
 * handed over in a buffer of its own size (or read from it by a read
 * function, 1 to 8 bytes or all at a time), freed by `done`. */
typedef struct resolver {
    const uint8_t *parts;
    size_t size;
    int read;
    uint64_t rng;
    unsigned handed, done;
    char *open; /* the entity handed over and not yet done */
    size_t open_len, pos;
} resolver;

static ptrdiff_t entity_read(void *ctx, void *buf, size_t cap) {
    resolver *x = ctx;
    FZ_CHECK(x->open != NULL, "read after done");
    size_t n = x->open_len - x->pos, k = 1 + rng_next(&x->rng) % 9;
    if (k < 9 && n > k) n = k;
    if (n > cap) n = cap;
    memcpy(buf, x->open + x->pos, n);
    x->pos += n;
    return (ptrdiff_t)n;
}

static void entity_done(void *ctx) {
    resolver *x = ctx;
    FZ_CHECK(x->open != NULL, "done twice");
    memset(x->open, 0xA5, x->open_len); /* nothing may read it afterwards */
    free(x->open);
    x->open = NULL;
    x->done++;
}

static int entity_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    resolver *x = ud;
    FZ_CHECK(x->open == NULL, "a request while an entity is open");
    FZ_CHECK(req->kind >= STAX_ENTITY_GENERAL && req->kind <= STAX_ENTITY_SUBSET, "request kind %d", req->kind);
    FZ_CHECK(in->data == NULL && in->read == NULL && in->done == NULL, "input not zeroed");
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

void fz_run(const fz_spec *s, const uint8_t *doc, size_t size, fz_result *res) {
    uint64_t *evh = res->evh;
    size_t evh_cap = res->evh_cap;
    memset(res, 0, sizeof *res);
    res->evh = evh;
    res->evh_cap = evh_cap;
    stax_reader_options o = s->opt;
    fz_heap heap;
    memset(&heap, 0, sizeof heap);
    void *block = NULL;
    if (s->fixed) {
        block = malloc(s->block_size);
        if (!block) abort();
        o.memory = block;
        o.memory_size = s->block_size;
    } else {
        heap.fail_at = s->fail_at;
        heap.fail_persist = s->fail_persist;
        o.alloc = fz_heap_fn;
        o.alloc_ud = &heap;
    }
    resolver rs;
    memset(&rs, 0, sizeof rs);
    if (s->resolver) {
        rs.parts = s->parts;
        rs.size = s->parts_size;
        rs.read = s->resolver_read;
        rs.rng = 0x2545F4914F6CDD1Dull ^ size;
        o.resolve = entity_resolve;
        o.resolve_ud = &rs;
    }
    run u;
    memset(&u, 0, sizeof u);
    u.s = s;
    u.res = res;
    u.ns = (s->opt.flags & STAX_READ_NAMESPACES) != 0;
    stax_reader_options eff;
    u.eff_batch = stax_reader_effective_options(&o, &eff, NULL) == STAX_OK ? eff.batch_events : 256;
    u.h.h = u.core.h = u.nows.h = FNV_INIT;
    u.total = size;
    u.r = stax_reader_new(&o);
    if (!u.r) {
        FZ_CHECK(heap.failed || s->fixed, "stax_reader_new failed with valid options");
        res->alloc_failed = heap.failed;
        res->allocs = heap.calls;
        fz_heap_done(&heap, "stax_reader_new failed and");
        free(block);
        return;
    }
    res->created = 1;
    if (s->reuse) {
        /* a reader stopped anywhere (in the DTD, in an entity, after an
         * error) and reset must read as a new one: the run is compared with
         * the others as usual */
        const stax_batch *b = NULL;
        int rc = stax_reader_feed(u.r, doc, size);
        FZ_CHECK(rc == STAX_OK, "feed returned %d", rc);
        int st0 = STAX_OK;
        for (unsigned k = 0; k < s->reuse && (st0 = stax_reader_next(u.r, &b)) == STAX_OK; k++) {}
        if (st0 == STAX_OK && (s->misuse & 1)) {
            /* it has not asked for more: a feed is misuse, sticky (or the
             * error the reader met after the batch, which stays first) */
            char x = '<';
            int want = stax_reader_status(u.r) < 0 ? stax_reader_status(u.r) : STAX_E_USAGE;
            FZ_CHECK(stax_reader_feed(u.r, &x, 1) == want, "a feed before the reader asked for more: not %d", want);
            FZ_CHECK(stax_reader_next(u.r, &b) == want && b->count == 0, "next after a refused feed");
        }
        rc = stax_reader_reset(u.r);
        FZ_CHECK(rc == STAX_OK, "stax_reader_reset returned %d", rc);
        FZ_CHECK(rs.open == NULL && rs.done == rs.handed, "after reset: %u entities handed over, %u done", rs.handed,
                 rs.done);
        if (fz_dump) fprintf(stderr, "  reset after up to %u batches\n", s->reuse);
    }
    int st = STAX_NEED_INPUT;
    pull_src src = {doc, size, 0, s->chunk, 0x9E3779B97F4A7C15ull ^ size ^ ((uint64_t)s->chunk << 32), s->vary};

    FILE *file = NULL;
    int fds[2] = {-1, -1};
    if (s->chunked && s->pull) {
        /* (fmemopen refuses an empty buffer, and a pipe holds 64 KiB: the callback then) */
        if (s->file && size) file = fmemopen((void *)(uintptr_t)doc, size, "rb");
        if (s->fd && size <= 65536 && pipe(fds) == 0) {
            FZ_CHECK(write(fds[1], doc, size) == (ssize_t)size, "a short write to the pipe");
            close(fds[1]);
        }
        int rc = file        ? stax_reader_set_file(u.r, file)
                 : fds[0] >= 0 ? stax_reader_set_fd(u.r, fds[0])
                               : stax_reader_set_source(u.r, pull_read, &src);
        FZ_CHECK(rc == STAX_OK, "set_source: %d", rc);
        st = drain(&u);
        FZ_CHECK(st != STAX_NEED_INPUT, "pull reader returned STAX_NEED_INPUT");
    } else {
        size_t pos = 0;
        uint64_t rng = src.rng;
        int first = 1;
        while (st == STAX_NEED_INPUT && (pos < size || first)) {
            size_t n = s->chunked ? next_chunk(s->chunk, s->vary, &rng) : size;
            if (n > size - pos) n = size - pos;
            first = 0;
            /* a private copy of exactly n bytes: ASan catches a read past the
             * chunk, and a use after the reader said it was done with it */
            char *chunk = malloc(n ? n : 1);
            if (!chunk) abort();
            if (n) memcpy(chunk, doc + pos, n);
            if (fz_dump) fprintf(stderr, "  feed %zu\n", n);
            int rc = stax_reader_feed(u.r, chunk, n);
            FZ_CHECK(rc == STAX_OK, "feed returned %d", rc);
            pos += n;
            int ended = s->end_with_last && pos == size;
            if (ended) { /* this chunk is the last one */
                rc = stax_reader_end(u.r);
                FZ_CHECK(rc == STAX_OK, "end right after the last feed returned %d", rc);
            }
            st = drain(&u);
            FZ_CHECK(!(ended && st == STAX_NEED_INPUT), "STAX_NEED_INPUT after end()");
            if (st == STAX_NEED_INPUT) {
                memset(chunk, 0xA5, n); /* the reader no longer refers to it */
                free(chunk);
            } else {
                FZ_CHECK(st != STAX_END || ended, "STAX_END before the input ended");
                check_stopped(&u, st); /* while the chunk is still alive */
                free(chunk);
                goto done;
            }
        }
        FZ_CHECK(st != STAX_END, "STAX_END before the input ended");
        if (st == STAX_NEED_INPUT) {
            int rc = stax_reader_end(u.r);
            FZ_CHECK(rc == STAX_OK, "end returned %d", rc);
            st = drain(&u);
            FZ_CHECK(st != STAX_NEED_INPUT, "STAX_NEED_INPUT after end()");
        }
    }
    check_stopped(&u, st);
done:
    FZ_CHECK(st == STAX_END || st < 0, "final status %d", st);
    if (st == STAX_END) FZ_CHECK(u.depth == 0, "STAX_END with %zu open elements", u.depth);
    FZ_CHECK(st != STAX_E_INTERNAL, "STAX_E_INTERNAL: %s", stax_reader_message(u.r));
    res->status = st;
    res->epos = stax_reader_error_pos(u.r);
    if (st < 0) {
        FZ_CHECK(res->epos.offset <= (s->opt.decoder ? 4 * size : size), "error offset %llu past the input (%zu)",
                 (unsigned long long)res->epos.offset, size);
        FZ_CHECK(res->epos.line >= 1 && res->epos.column >= 1, "error position %llu:%llu, status %d \"%s\"",
                 (unsigned long long)res->epos.line, (unsigned long long)res->epos.column, st,
                 stax_reader_message(u.r));
    } else {
        FZ_CHECK(res->epos.offset == 0 && res->epos.line == 0 && res->epos.column == 0,
                 "error position set without an error");
    }
    const char *m = stax_reader_message(u.r);
    FZ_CHECK(m != NULL, "NULL message");
    size_t ml = strlen(m);
    FZ_CHECK(ml < 256, "message of %zu bytes", ml);
    FZ_CHECK((st < 0) == (ml > 0), "message \"%s\" with status %d", m, st);
    memcpy(res->msg, m, ml + 1);
    (void)stax_strerror(st);
    if (st == STAX_E_NOMEM && !s->fixed) FZ_CHECK(heap.failed, "STAX_E_NOMEM, yet no allocation failed");
    if (u.saw_doctype) {
        hasher d = {FNV_INIT};
        touch_dtd(u.r, &d);
        hu64(&u.h, d.h);
        hu64(&u.core, d.h);
        hu64(&u.nows, d.h);
    }
    FZ_CHECK(rs.open == NULL && rs.done == rs.handed, "%u entities handed over, %u done", rs.handed, rs.done);
    if (s->fixed)
        FZ_CHECK(stax_reader_memory_peak(u.r) <= s->block_size, "memory_peak %zu in a block of %zu",
                 stax_reader_memory_peak(u.r), s->block_size);
    res->hash = u.h.h;
    res->core = u.core.h;
    res->nows = u.nows.h;
    res->alloc_failed = heap.failed;
    res->allocs = heap.calls;
    if (st == STAX_END) { /* misuse after the end: refused, and sticky like any error */
        char x = '<';
        const stax_batch *b = NULL;
        int pulled = s->chunked && s->pull;
        switch (s->misuse % 3) {
        case 0:
            if (pulled) FZ_CHECK(stax_reader_set_source(u.r, pull_read, &src) == STAX_E_USAGE, "a source set after STAX_END");
            else FZ_CHECK(stax_reader_feed(u.r, &x, 1) == STAX_E_USAGE, "feed after STAX_END accepted");
            break;
        case 1: FZ_CHECK(stax_reader_end(u.r) == STAX_E_USAGE, "end after STAX_END accepted%s", pulled ? " (pull)" : ""); break;
        default: FZ_CHECK(stax_reader_feed(u.r, &x, 1) == STAX_E_USAGE, "feed after STAX_END accepted%s", pulled ? " (pull)" : ""); break;
        }
        FZ_CHECK(stax_reader_status(u.r) == STAX_E_USAGE, "status %d after a refused feed", stax_reader_status(u.r));
        FZ_CHECK(stax_reader_next(u.r, &b) == STAX_E_USAGE && b && b->count == 0, "next after a refused feed");
        FZ_CHECK(stax_reader_message(u.r)[0] != 0, "no message after a refused feed");
    }
    stax_reader_free(u.r);
    if (file) fclose(file);
    if (fds[0] >= 0) close(fds[0]);
    free(u.stack);
    fz_heap_done(&heap, "after stax_reader_free");
    free(block);
}

void fz_result_free(fz_result *res) {
    free(res->evh);
    res->evh = NULL;
    res->evh_cap = 0;
}

/* ---------------------------------------------------------------- comparisons */

static const char *const encodings[8] = {"UTF-8",      "UTF-16",   "UTF-16LE",     "UTF-16BE",
                                         "ISO-8859-1", "US-ASCII", "windows-1252", "utf-16"};

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
    if (len > 0 && strchr("nNdDI", name[0])) return NULL; /* refuse (d and I: the decoder's) */
    return table;
}

/* The decoder hook (with the unknown_encoding hook, which leaves it the
 * names starting with d): a double-byte encoding of its own, "d-...": a
 * byte below 0x80 is itself; a lead byte 0x80-0xFD and a trail byte
 * 0x40-0xFE are U+4E00 + (lead - 0x80) * 191 + (trail - 0x40), a CJK
 * character; a lead 0xFF, or a trail below 0x40, is an invalid sequence;
 * 0xFE 0xFE fails with a status of the decoder's own. A lead at the end of
 * the input is kept (held) for the next call. Names starting with "dn" are
 * refused. */
typedef struct fz_dec {
    int lead;   /* a lead byte kept, or -1 */
    int ebcdic; /* a name starting with IBM: EBCDIC's letters, digits and markup, one byte each */
} fz_dec;

static void *fz_dec_open(void *ud, const char *name, size_t len) {
    (void)ud;
    if (len >= 2 && (name[1] == 'n' || name[1] == 'N')) return NULL;
    fz_dec *d = (fz_dec *)malloc(sizeof *d);
    if (d) d->lead = -1, d->ebcdic = len >= 3 && memcmp(name, "IBM", 3) == 0;
    return d;
}

/* EBCDIC (code page 37) for the characters of markup; 0 for any other byte. */
static char fz_ebcdic(unsigned c) {
    static const char lower[] = "abcdefghi\0\0\0\0\0\0\0jklmnopqr\0\0\0\0\0\0\0\0stuvwxyz";
    if (c >= 0x81 && c <= 0xA9) return lower[c - 0x81];
    if (c >= 0xC1 && c <= 0xE9) return lower[c - 0xC1] ? (char)(lower[c - 0xC1] - 32) : 0;
    if (c >= 0xF0 && c <= 0xF9) return (char)('0' + (c - 0xF0));
    static const unsigned char from[] = {0x40, 0x05, 0x25, 0x0D, 0x4C, 0x6E, 0x6F, 0x7E, 0x7F, 0x7D, 0x4B, 0x60, 0x6D, 0x61, 0x50, 0x5E};
    static const char to[] = " \t\n\r<>?=\"'.-_/&;";
    for (size_t k = 0; k < sizeof from; k++)
        if (from[k] == c) return to[k];
    return 0;
}

static int fz_dec_decode(void *state, stax_decode_io *io) {
    fz_dec *d = (fz_dec *)state;
    io->in_used = io->out_len = io->held = 0;
    if (!io->in) {
        if (d->lead == 0xFD) { /* a lead 0xFD at the end is a character of its own, given at the end */
            d->lead = -1;
            memcpy(io->out, "\xe4\xb8\x80", 3);
            io->out_len = 3;
            return STAX_OK;
        }
        if (d->lead >= 0) return io->held = 1, STAX_E_TRUNCATED;
        return STAX_OK;
    }
    size_t i = 0;
    while (d->ebcdic && i < io->in_len && io->out_len < io->out_cap) {
        char e = fz_ebcdic((unsigned char)io->in[i]);
        if (!e) return io->in_used = i + 1, io->held = 1, STAX_E_ENCODING;
        io->out[io->out_len++] = e;
        i++;
    }
    while (i < io->in_len && io->out_cap - io->out_len >= 3) {
        unsigned c = (unsigned char)io->in[i];
        if (d->lead < 0 && c < 0x80) {
            io->out[io->out_len++] = (char)c;
            i++;
            continue;
        }
        if (d->lead < 0) {
            if (c == 0xFF) return io->in_used = i + 1, io->held = 1, STAX_E_ENCODING;
            d->lead = (int)c;
            i++;
            continue;
        }
        unsigned lead = (unsigned)d->lead;
        d->lead = -1;
        i++;
        if (lead == 0xFE && c == 0xFE) return io->in_used = i, io->message = "the decoder's own failure", STAX_E_IO;
        if (c < 0x40 || c == 0xFF) return io->in_used = i, io->held = 2, STAX_E_ENCODING;
        uint32_t cp = 0x4E00 + (lead - 0x80) * 191 + (c - 0x40);
        if (cp > 0x9FFF) cp = 0x4E00 + cp % 0x5200;
        io->out[io->out_len++] = (char)(0xE0 | (cp >> 12));
        io->out[io->out_len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        io->out[io->out_len++] = (char)(0x80 | (cp & 0x3F));
    }
    io->in_used = i;
    io->held = d->lead >= 0;
    return STAX_OK;
}

static void fz_dec_close(void *state) { free(state); }

static const stax_decoder fz_decoder = {fz_dec_open, fz_dec_decode, fz_dec_close};

const uint8_t *fz_header(const uint8_t **data, size_t *size) {
    static const uint8_t zero[FZ_HDR];
    if (*size < FZ_HDR) return zero;
    const uint8_t *h = *data;
    *data += FZ_HDR;
    *size -= FZ_HDR;
    return h;
}

void fz_parse_header(const uint8_t *h, fz_spec *whole, fz_spec *chunked, int *fail_run, size_t *fail_at) {
    fz_spec c;
    memset(&c, 0, sizeof c);
    stax_reader_options *o = &c.opt;
    c.chunk = h[0] < 0xC0 ? 1 + h[0] % 64u : 65 + (size_t)(h[0] - 0xC0) * 97;
    if (h[1] & 1) o->flags |= STAX_READ_NAMESPACES;
    if (h[1] & 2) o->flags |= STAX_READ_SKIP_WS;
    c.fixed = (h[1] & 4) != 0;
    c.block_size = 16384 + (size_t)(h[5] % 64) * 2048;
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
    } else {
        /* The default threshold (8 MiB) lets 1 KiB expand into a million
         * events; under ASan the several runs of each input then take ten
         * seconds, a libFuzzer timeout. The code that counts is the same at
         * any threshold: past 256 KiB the ratio (100 by default) applies, so
         * an input of at most 4 KiB (-max_len) expands to 400 KiB at most. */
        o->entity_threshold = (size_t)256 << 10;
    }
    if (!(h[1] & 8) && (h[2] & 0x80)) o->max_text = 4 + (h[2] & 0x7f);
    o->batch_events = h[4] >> 4;
    if (h[1] & 16) o->encoding = encodings[h[7] & 7];
    if (h[7] & 0x80) o->unknown_encoding = unknown_enc, o->decoder = &fz_decoder;
    if ((h[8] & 0xC0) == 0x40) o->flags |= STAX_READ_FRAGMENT; /* (not with the next: they exclude each other) */
    if (h[8] & 0x80) o->flags |= STAX_READ_DOCUMENTS;
    if (h[9]) o->read_buffer = 256 + (size_t)h[9] * 64;
    c.resolver = (h[5] & 0x80) != 0;
    c.resolver_read = (h[5] & 0x40) != 0;
    c.vary = (h[1] & 32) != 0;
    c.pull = (h[1] & 64) != 0;
    c.file = c.pull && h[0] >= 0xC0; /* (fread, read: reads of read_buffer bytes) */
    c.fd = c.pull && h[0] >= 0x80 && h[0] < 0xC0;
    if (whole) *whole = c;
    if (chunked) {
        *chunked = c;
        chunked->chunked = 1;
    }
    if (fail_run) *fail_run = (h[1] & 128) != 0 && !c.fixed;
    if (fail_at) *fail_at = 1 + (h[8] & 63);
}

void fz_prefix(const fz_result *a, const fz_result *b, const char *what) {
    FZ_CHECK(a->events <= b->events && (a->events == 0 || a->evh[a->events - 1] == b->evh[a->events - 1]),
             "%s: the %llu events before STAX_E_NOMEM are not the first events of the other run (%llu events, "
             "status %d \"%s\")",
             what, (unsigned long long)a->events, (unsigned long long)b->events, b->status, b->msg);
}

int fz_same(const fz_result *a, const fz_result *b, const char *what) {
    if (!a->created || !b->created) return 0;
    if (a->status == STAX_E_NOMEM || b->status == STAX_E_NOMEM) {
        if (a->status == STAX_E_NOMEM && (b->status != STAX_E_NOMEM || a->events <= b->events)) fz_prefix(a, b, what);
        else fz_prefix(b, a, what);
        return 0;
    }
    FZ_CHECK(a->status == b->status, "%s: status %d, then %d (\"%s\" / \"%s\")", what, a->status, b->status, a->msg,
             b->msg);
    FZ_CHECK(a->epos.offset == b->epos.offset && a->epos.line == b->epos.line && a->epos.column == b->epos.column,
             "%s: error position %llu (%llu:%llu), then %llu (%llu:%llu); status %d \"%s\"", what,
             (unsigned long long)a->epos.offset, (unsigned long long)a->epos.line,
             (unsigned long long)a->epos.column, (unsigned long long)b->epos.offset,
             (unsigned long long)b->epos.line, (unsigned long long)b->epos.column, a->status, a->msg);
    FZ_CHECK(strcmp(a->msg, b->msg) == 0, "%s: message \"%s\", then \"%s\"", what, a->msg, b->msg);
    FZ_CHECK(a->events == b->events && a->hash == b->hash, "%s: events differ: %llu events, then %llu (status %d)",
             what, (unsigned long long)a->events, (unsigned long long)b->events, a->status);
    return 1;
}

/* The options a fixed block of block_size bytes gives to its zero fields,
 * made explicit by the library (stax_reader_effective_options), so that a
 * run with the allocator reads with the same limits. 0 when the block is
 * refused. */
static int fixed_defaults(const fz_spec *s, stax_reader_options *o, size_t block_size) {
    static unsigned char probe; /* not written: effective_options only reads the size */
    stax_reader_options in = *o, out;
    in.memory = &probe;
    in.memory_size = block_size;
    if (s->resolver) in.resolve = entity_resolve; /* a resolver has its own buffer in the block */
    if (stax_reader_effective_options(&in, &out, NULL) != STAX_OK) return 0;
    out.memory = NULL;
    out.memory_size = 0;
    out.resolve = NULL; /* fz_run sets it */
    *o = out;
    return 1;
}

/* What stax_reader_check_options and the size functions promise about the
 * options of a run: they are accepted; a block of stax_reader_memory_min
 * bytes is taken and one byte less refused (STAX_E_NOMEM); and one option
 * put out of range (which one, the input's hash says) is refused by
 * stax_reader_check_options with a reason and by stax_reader_new, which
 * allocates nothing then. */
static void options_contract(const fz_spec *s, uint64_t ih) {
    stax_reader_options o = s->opt;
    const char *why = NULL;
    if (s->resolver) o.resolve = entity_resolve; /* (never called: no reading) */
    FZ_CHECK(stax_reader_check_options(&o, &why) == STAX_OK && why && !why[0], "options refused: %s", why ? why : "");
    FZ_CHECK(stax_reader_check_options(NULL, &why) == STAX_OK, "no options refused: %s", why);
    FZ_CHECK(stax_reader_memory_min(NULL) == STAX_READER_MIN_MEMORY, "stax_reader_memory_min(NULL) %zu, STAX_READER_MIN_MEMORY %u",
             stax_reader_memory_min(NULL), STAX_READER_MIN_MEMORY);
    size_t min = stax_reader_memory_min(&o);
    FZ_CHECK(min > 0, "stax_reader_memory_min is 0 for options check_options takes");
    void *block = malloc(min);
    if (!block) abort();
    o.memory = block;
    o.memory_size = min;
    stax_reader *r = stax_reader_new(&o);
    FZ_CHECK(r != NULL, "a block of stax_reader_memory_min (%zu) bytes refused", min);
    stax_reader_free(r);
    o.memory_size = min - 1;
    FZ_CHECK(stax_reader_check_options(&o, &why) == STAX_E_NOMEM && why[0], "a block one byte under memory_min: %s", why);
    FZ_CHECK(stax_reader_new(&o) == NULL, "a block one byte under stax_reader_memory_min (%zu) taken", min);
    free(block);
    o.memory = NULL;
    o.memory_size = 0;
    static const char *const what[] = {"max_text 3", "max_text over max_token", "batch_events 2^24 + 1",
                                       "max_attrs 2^24 + 1", "max_depth 2^24 + 1", "max_name 2^24 + 1",
                                       "max_entity_depth 1025", "an unknown forced encoding"};
    unsigned k = (unsigned)((ih >> 44) % (sizeof what / sizeof what[0]));
    switch (k) {
    case 0: o.max_text = 3; break;
    case 1:
        o.max_token = 64;
        o.max_text = 65;
        break;
    case 2: o.batch_events = (1u << 24) + 1; break;
    case 3: o.max_attrs = (1u << 24) + 1; break;
    case 4: o.max_depth = (1u << 24) + 1; break;
    case 5: o.max_name = (1u << 24) + 1; break;
    case 6: o.max_entity_depth = 1025; break;
    default:
        o.encoding = "x-no-such-encoding";
        o.decoder = NULL; /* (a decoder would be asked for it when the document starts) */
        break;
    }
    fz_heap heap;
    memset(&heap, 0, sizeof heap);
    o.alloc = fz_heap_fn;
    o.alloc_ud = &heap;
    why = NULL;
    FZ_CHECK(stax_reader_check_options(&o, &why) == STAX_E_USAGE && why && why[0], "%s: not refused", what[k]);
    FZ_CHECK(stax_reader_new(&o) == NULL, "%s: stax_reader_new took it", what[k]);
    FZ_CHECK(heap.calls == 0, "%s: stax_reader_new allocated before refusing", what[k]);
    fz_heap_done(&heap, "refused options");
}

static uint64_t input_hash(const uint8_t *hdr, const uint8_t *doc, size_t size) {
    hasher h = {FNV_INIT};
    hbytes(&h, hdr, FZ_HDR);
    hbytes(&h, doc, size);
    return h.h;
}

/* One option changed, and what must hold between the two runs. */
enum { VAR_BATCH, VAR_READ_BUFFER, VAR_SKIP_WS, VAR_NAMESPACES, VAR_COUNT };

static void variation(const fz_spec *base, const fz_result *r0, const uint8_t *doc, size_t size, unsigned which,
                      fz_result *r1) {
    fz_spec v = *base;
    stax_reader_options *o = &v.opt;
    /* in a fixed block the zero fields come from the block's profile, which
     * the changed option can move: the others are made explicit first */
    if (v.fixed) fixed_defaults(&v, o, v.block_size);
    const char *what = "";
    switch (which) {
    case VAR_BATCH: /* batch boundaries are not in the hash: same events */
        o->batch_events = o->batch_events == 2 ? 0 : 2;
        what = "batch_events changed";
        break;
    case VAR_READ_BUFFER:
        o->read_buffer = o->read_buffer == 256 ? 0 : 256;
        what = "read_buffer changed";
        break;
    case VAR_SKIP_WS:
        o->flags ^= STAX_READ_SKIP_WS;
        what = "STAX_READ_SKIP_WS toggled";
        break;
    case VAR_NAMESPACES:
        o->flags ^= STAX_READ_NAMESPACES;
        what = "STAX_READ_NAMESPACES toggled";
        break;
    }
    fz_run(&v, doc, size, r1);
    if (fz_dump)
        fprintf(stderr, "  variation (%s) -> %d at %llu \"%s\"\n", what, r1->status,
                (unsigned long long)r1->epos.offset, r1->msg);
    if (!r0->created || !r1->created) return;
    if (which == VAR_BATCH || which == VAR_READ_BUFFER) {
        fz_same(r0, r1, what);
        return;
    }
    if (r0->status == STAX_E_NOMEM || r1->status == STAX_E_NOMEM) return;
    if (which == VAR_SKIP_WS) { /* the same, less the whole whitespace-only texts */
        FZ_CHECK(r0->status == r1->status && r0->epos.offset == r1->epos.offset && strcmp(r0->msg, r1->msg) == 0,
                 "%s: status %d at %llu \"%s\", then %d at %llu \"%s\"", what, r0->status,
                 (unsigned long long)r0->epos.offset, r0->msg, r1->status, (unsigned long long)r1->epos.offset,
                 r1->msg);
        FZ_CHECK(r0->nows == r1->nows, "%s: the events other than whitespace-only texts differ", what);
        return;
    }
    /* namespaces only add constraints: accepted with them, accepted without,
     * with the same events but for their namespace views */
    const fz_result *with = (base->opt.flags & STAX_READ_NAMESPACES) ? r0 : r1;
    const fz_result *without = with == r0 ? r1 : r0;
    if (with->status == STAX_END)
        FZ_CHECK(without->status == STAX_END && without->core == with->core,
                 "%s: well-formed with namespaces, without them status %d \"%s\"%s", what, without->status,
                 without->msg, without->status == STAX_END ? " and other events" : "");
}

void fz_check_input(const uint8_t *hdr, const uint8_t *doc, size_t size) {
    fz_init();
    fz_long lp;
    fz_long_take(&doc, &size, &lp);
    if (!lp.on) {
        fz_check_input_chunk(hdr, doc, size, 0);
        return;
    }
    fz_buf big = {0};
    size_t chunk;
    fz_buf_add(&big, doc, size);
    fz_long_apply(&lp, &big, FZ_LONG_MAX, &chunk);
    fz_check_input_chunk(hdr, big.p ? big.p : (const uint8_t *)"", big.len, chunk);
    fz_buf_free(&big);
}

void fz_check_input_chunk(const uint8_t *hdr, const uint8_t *doc, size_t size, size_t chunk) {
    fz_init();
    fz_spec ws, cs;
    int fail_run;
    size_t fail_at;
    fz_parse_header(hdr, &ws, &cs, &fail_run, &fail_at);
    if (chunk) cs.chunk = chunk;
    /* A long document (up to FZ_LONG_MAX) could expand at the default ratio
     * to 100 times its size, and the runs of one input under ASan then take
     * minutes (a libFuzzer timeout that ends the campaign): past 4 KiB (the
     * longest input otherwise), the ratio is what lets it expand to 2 MiB,
     * at least 1. The counting code is the same at any ratio. */
    if (size > 4096 && !ws.opt.entity_amplification) {
        size_t amp = ((size_t)2 << 20) / size;
        ws.opt.entity_amplification = cs.opt.entity_amplification = (uint32_t)(amp ? amp : 1);
    }
    if (ws.resolver && fz_split_entities) {
        for (size_t i = 0; i + 1 < size; i++)
            if (doc[i] == 0 && doc[i + 1] == 0) {
                ws.parts = cs.parts = doc + i + 2;
                ws.parts_size = cs.parts_size = size - i - 2;
                size = i;
                break;
            }
    }
    fz_result whole = {0}, chunked = {0}, other = {0}, heap = {0};
    int heap_run = 0;
    uint64_t ih = input_hash(hdr, doc, size);
    if ((ih >> 8) % 3 == 0) cs.reuse = 1 + (unsigned)((ih >> 16) % 8); /* one input in three */
    cs.end_with_last = (ih >> 24) % 2;
    ws.misuse = (unsigned)(ih >> 28);
    cs.misuse = (unsigned)(ih >> 36);
    if (ws.fixed) {
        /* The same document with the allocator and the limits the block
         * gives, first: inside a fixed block ASan sees no overflow from one
         * part of the block into the next, in separate blocks it does. */
        fz_spec hs = ws;
        hs.fixed = 0;
        heap_run = fixed_defaults(&ws, &hs.opt, ws.block_size);
        if (heap_run) {
            if (fz_dump) fprintf(stderr, "allocator, with the limits of the block:\n");
            fz_run(&hs, doc, size, &heap);
            if (fz_dump) fprintf(stderr, "  -> %d \"%s\"\n", heap.status, heap.msg);
        }
    }
    if (fz_dump) fprintf(stderr, "whole:\n");
    fz_run(&ws, doc, size, &whole);
    if (fz_dump)
        fprintf(stderr, "  -> %d at %llu:%llu (%llu) \"%s\"\nchunks of %zu%s%s:\n", whole.status,
                (unsigned long long)whole.epos.line, (unsigned long long)whole.epos.column,
                (unsigned long long)whole.epos.offset, whole.msg, cs.chunk, cs.vary ? " (varying)" : "",
                cs.pull ? " (pull)" : "");
    fz_run(&cs, doc, size, &chunked);
    if (fz_dump)
        fprintf(stderr, "  -> %d at %llu:%llu (%llu) \"%s\"\n", chunked.status, (unsigned long long)chunked.epos.line,
                (unsigned long long)chunked.epos.column, (unsigned long long)chunked.epos.offset, chunked.msg);
    if (!ws.fixed) FZ_CHECK(whole.created && chunked.created, "reader not created");
    char what[96];
    snprintf(what, sizeof what, "whole, then in chunks of %zu%s%s%s", cs.chunk, cs.vary ? " (varying)" : "",
             cs.pull ? " (pull)" : "", cs.reuse ? " by a reader reset" : "");
    fz_same(&whole, &chunked, what);
    if (heap_run) {
        fz_same(&whole, &heap, "fixed block, then the allocator");
        /* the same limits in a block of exactly stax_reader_memory_size
         * bytes: the same outcome, never out of memory */
        fz_spec es = ws;
        fixed_defaults(&ws, &es.opt, ws.block_size);
        stax_reader_options sized = es.opt;
        if (ws.resolver) sized.resolve = entity_resolve;
        es.block_size = stax_reader_memory_size(&sized);
        FZ_CHECK(es.block_size > 0 && es.block_size <= ws.block_size, "memory_size %zu for a block of %zu",
                 es.block_size, ws.block_size);
        fz_result exact = {0};
        fz_run(&es, doc, size, &exact);
        FZ_CHECK(exact.created, "a block of stax_reader_memory_size (%zu) bytes was refused", es.block_size);
        fz_same(&whole, &exact, "fixed block, then one of exactly stax_reader_memory_size bytes");
        fz_result_free(&exact);
    }
    if (ws.fixed) FZ_CHECK(whole.created == heap_run, "the block was %s, yet stax_reader_effective_options said %s",
                           whole.created ? "taken" : "refused", heap_run ? "STAX_OK" : "no");
    if (fail_run) {
        fz_spec fs = ws;
        fs.fail_at = fail_at;
        fs.fail_persist = 1; /* this allocation and every later one */
        fz_run(&fs, doc, size, &other);
        if (fz_dump) fprintf(stderr, "  allocation %zu fails -> %d \"%s\"\n", fail_at, other.status, other.msg);
        /* STAX_E_NOMEM after the events of the run without failure, or
         * (no allocation failed, or the reader did without it) that run */
        snprintf(what, sizeof what, "allocation %zu fails%s", fail_at, other.alloc_failed ? "" : " (none did)");
        fz_same(&whole, &other, what);
    }
    variation(&ws, &whole, doc, size, (unsigned)(ih % VAR_COUNT), &other);
    options_contract(&ws, ih);
    fz_result_free(&whole);
    fz_result_free(&chunked);
    fz_result_free(&other);
    fz_result_free(&heap);
}

/* ---------------------------------------------------------------- long inputs */

void fz_long_take(const uint8_t **data, size_t *size, fz_long *lp) {
    memset(lp, 0, sizeof *lp);
    if (*size < 1 + FZ_LONG_PARAMS || (*data)[0] != FZ_LONG_MAGIC) return;
    lp->on = 1;
    memcpy(lp->q, *data + 1, FZ_LONG_PARAMS);
    *data += 1 + FZ_LONG_PARAMS;
    *size -= 1 + FZ_LONG_PARAMS;
}

/* The chunk sizes of the long mode (0: the header's): 1150 and those around
 * 1 MiB are where a carry that fills broke; 4096 its step. */
static const size_t long_chunks[] = {0, 1, 2, 3, 7, 1000, 1150, 4096, 65536, 1000000, 1048576, 1500000, 2097152};
#define N_LONG_CHUNKS (sizeof long_chunks / sizeof long_chunks[0])
/* Chunks under 1000 bytes only for documents up to this size (each chunk is
 * a feed, a malloc'd copy and a next(): megabytes of them take seconds). */
#define LONG_SMALL_CHUNKS_MAX ((size_t)256 << 10)

/* The parameters (tests/fuzz/README.md, "Long inputs"):
 *   q0: K = (1 + (q0 & 15)) << (q0 >> 4), at most max bytes in all
 *   q1, q2: where the span starts, (q1 | q2 << 8) % (size + 1)
 *   q3: bits 6-7 how the span is cut, bits 0-5 (L) its length:
 *       0: L + 1 bytes; 1: 16 (L + 1) bytes;
 *       2: text: from the first '>' from the start on (after it) to the next '<';
 *       3: markup: from the first '<' from the start on, through the (L + 1)-th '>'
 *   q4: bits 0-6: the chunk size, long_chunks[(q4 & 127) % 13] (smaller ones
 *       than 1000 only for documents up to 256 KiB; else the next one from
 *       1000 up); bit 7: numbered copies, the first run of digits in the span
 *       replaced in each copy by the copy's number (e0, e1, e2...: distinct
 *       declarations) */
void fz_long_build(const fz_long *lp, const uint8_t *doc, size_t size, size_t max, fz_buf *out, size_t *chunk) {
    const uint8_t *q = lp->q;
    size_t at = ((size_t)q[1] | (size_t)q[2] << 8) % (size + 1);
    size_t len = (size_t)(q[3] & 63) + 1, end;
    switch (q[3] >> 6) {
    case 0: end = at + len; break;
    case 1: end = at + 16 * len; break;
    case 2:
        while (at < size && doc[at] != '>') at++;
        if (at < size) at++;
        end = at;
        while (end < size && doc[end] != '<') end++;
        break;
    default:
        while (at < size && doc[at] != '<') at++;
        end = at;
        for (size_t k = 0; k < len && end < size; k++) {
            while (end < size && doc[end] != '>') end++;
            if (end < size) end++;
        }
        break;
    }
    if (end > size) end = size;
    size_t span = end - at;
    size_t k = (size_t)(1 + (q[0] & 15)) << (q[0] >> 4);
    if (span == 0 || size >= max) k = 1;
    else if (k > (max - size) / span) k = (max - size) / span;
    /* numbered copies: the span's first run of digits is the copy's number */
    size_t d0 = at, d1;
    while (d0 < end && (doc[d0] < '0' || doc[d0] > '9')) d0++;
    d1 = d0;
    while (d1 < end && doc[d1] >= '0' && doc[d1] <= '9') d1++;
    int numbered = (q[4] & 0x80) && d1 > d0;
    fz_buf_add(out, doc, end); /* the span once, as it stands */
    for (size_t i = 1; i < k && out->len < max; i++) {
        if (!numbered) {
            fz_buf_add(out, doc + at, span);
            continue;
        }
        char num[24];
        int nl = snprintf(num, sizeof num, "%zu", i);
        fz_buf_add(out, doc + at, d0 - at);
        fz_buf_add(out, num, (size_t)nl);
        fz_buf_add(out, doc + d1, end - d1);
    }
    fz_buf_add(out, doc + end, size - end);
    size_t c = (q[4] & 0x7F) % N_LONG_CHUNKS;
    if (out->len > LONG_SMALL_CHUNKS_MAX)
        while (c && long_chunks[c] < 1000) c++;
    *chunk = long_chunks[c];
    if (fz_dump)
        fprintf(stderr, "long input: bytes %zu..%zu repeated %zu times: %zu bytes, chunk size %zu\n", at, end, k,
                out->len, *chunk);
}

size_t fz_long_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t r) {
    if (size < FZ_HDR || max_size < FZ_HDR + 1 + FZ_LONG_PARAMS) return size;
    int had = size >= FZ_HDR + 1 + FZ_LONG_PARAMS && data[FZ_HDR] == FZ_LONG_MAGIC;
    if (!had) {
        size_t keep = size - FZ_HDR;
        if (keep > max_size - FZ_HDR - 1 - FZ_LONG_PARAMS) keep = max_size - FZ_HDR - 1 - FZ_LONG_PARAMS;
        memmove(data + FZ_HDR + 1 + FZ_LONG_PARAMS, data + FZ_HDR, keep);
        size = FZ_HDR + 1 + FZ_LONG_PARAMS + keep;
        data[FZ_HDR] = FZ_LONG_MAGIC;
    }
    uint8_t *q = data + FZ_HDR + 1;
    /* change one parameter (and now and then others), or all of them when new */
    int one = (int)((r >> 56) % FZ_LONG_PARAMS);
    for (int i = 0; i < FZ_LONG_PARAMS; i++) {
        if (had && i != one && ((r >> (8 * i)) & 3) != 0) continue;
        q[i] = (uint8_t)(r >> (8 * i + 2));
    }
    /* mostly the long runs the mode is for: many copies, a text span */
    if (!had && (r >> 50) % 2) q[0] |= 0xC0;
    if (!had && (r >> 51) % 2) q[3] = (uint8_t)((q[3] & 63) | 0x80);
    return size;
}

void fz_long_apply(const fz_long *lp, fz_buf *doc, size_t max, size_t *chunk) {
    *chunk = 0;
    if (!lp->on) return;
    fz_buf big = {0};
    fz_long_build(lp, doc->p ? doc->p : (const uint8_t *)"", doc->len, max, &big, chunk);
    fz_buf_free(doc);
    *doc = big;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

size_t fz_long_or_libfuzzer_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1u);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    if ((x & 15) == 0 && size >= FZ_HDR) return fz_long_mutate(data, size, max_size, x * 0x94D049BB133111EBull);
    return LLVMFuzzerMutate(data, size, max_size);
}
