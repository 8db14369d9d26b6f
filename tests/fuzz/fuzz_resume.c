/* libFuzzer target for save and resume.
 *
 * Input: a 4-byte header, then the body.
 *   byte 0: options: bit 0 namespaces, bit 1 skip whitespace, bits 2-3 the
 *           batch size (2, 3, 5, 64), bit 4 max_text 16, bit 5 a fixed block
 *           for the resumed reader; bit 6: the context is first offered to a
 *           reader with STAX_READ_SKIP_WS the other way, bit 7 to one with a
 *           resolver (both must refuse it)
 *   byte 1: which save point (the k-th where the reader could save, modulo
 *           how many there were)
 *   byte 2: chunk sizes: low nibble the first read's (0: whole, else 1..15),
 *           high nibble the resumed read's
 *   byte 3: bit 7 set: the body is a context, not a document: it is resumed
 *           from (sealed with a right checksum when bit 6 is set, so that the
 *           checks after the checksum see it) and, if accepted, the document
 *           "<r>text</r>" is read after it: it must be refused or run safely.
 * A document is read once, saving at every point it can; the resumed reader
 * fed the bytes from the chosen context's offset must give the same events
 * (every field, positions included), the same status, error position and
 * message as the rest of the uninterrupted read. Every save fits
 * stax_context_max_size, and a reader that read to the end refuses a resume.
 * FUZZ_RESUME_SAVE=FILE writes the chosen context as a context input (byte 3
 * 0xC0) to FILE: how context seeds are made. */
#include "reader.h" /* stax__context_seal */
#include "stax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZR_ABORT(...)                                                                                  \
    do {                                                                                                \
        fprintf(stderr, "fuzz_resume: " __VA_ARGS__);                                                   \
        fprintf(stderr, "\n");                                                                          \
        abort();                                                                                        \
    } while (0)

/* The events of a read as one 64-bit hash per event (and one for the end). */
typedef struct fzr_trace {
    uint64_t *h;
    size_t n, cap;
} fzr_trace;

static uint64_t fzr_mix(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return (h ^ n) * 0x100000001b3ULL;
}
static uint64_t fzr_str(uint64_t h, stax_str s) { return fzr_mix(h, s.ptr ? s.ptr : "", s.len); }

static void fzr_push(fzr_trace *t, uint64_t h) {
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->h = (uint64_t *)realloc(t->h, t->cap * sizeof *t->h);
        if (!t->h) abort();
    }
    t->h[t->n++] = h;
}

static void fzr_batch(fzr_trace *t, const stax_batch *b) {
    for (size_t i = 0; i < b->count; i++) {
        const stax_event *e = &b->events[i];
        uint64_t h = 0xcbf29ce484222325ULL;
        unsigned fixed[3] = {e->type, e->flags, e->depth};
        h = fzr_mix(h, fixed, sizeof fixed);
        stax_pos pos = stax_ev_pos(b, i);
        h = fzr_mix(h, &pos, sizeof pos);
        h = fzr_str(fzr_str(fzr_str(fzr_str(h, stax_ev_name(b, i)), stax_ev_text(b, i)), stax_ev_pubid(b, i)),
                  stax_ev_sysid(b, i));
        if (b->ev_ns) h = fzr_str(fzr_str(h, b->ev_ns[i].uri), b->ev_ns[i].local);
        for (uint32_t k = 0; k < e->attr_count; k++) {
            const stax_attr *a = &b->attrs[e->attr_first + k];
            h = fzr_str(fzr_str(fzr_mix(h, &a->flags, sizeof a->flags), a->name), a->value);
            if (b->attr_ns) h = fzr_str(h, b->attr_ns[e->attr_first + k].uri);
        }
        fzr_push(t, h);
    }
}

typedef struct fzr_ctx {
    unsigned char *p;
    size_t len;
} fzr_ctx;

typedef struct fzr_points {
    fzr_ctx *v;
    size_t *at; /* the trace's length at each */
    size_t n, want;
} fzr_points;

/* Keep the context of save point `want` (counted over every point there is). */
static void fzr_try_save(stax_reader *r, fzr_points *s, const fzr_trace *t, size_t max) {
    size_t len = 0;
    switch (stax_reader_save(r, NULL, 0, &len)) {
    case STAX_E_NOSAVE: return;
    case STAX_OK:
        if (len) break;
        /* fall through */
    default: FZR_ABORT("save asked for the size: %zu bytes", len);
    }
    if (len > max) FZR_ABORT("a context of %zu bytes, stax_context_max_size %zu", len, max);
    if (s->n++ != s->want && s->v) return;
    if (!s->v) {
        s->v = (fzr_ctx *)calloc(1, sizeof *s->v);
        s->at = (size_t *)calloc(1, sizeof *s->at);
    }
    free(s->v->p);
    s->v->p = (unsigned char *)malloc(len);
    size_t got = 0;
    if (!s->v->p || stax_reader_save(r, s->v->p, len, &got) != STAX_OK || got != len) FZR_ABORT("save failed");
    s->v->len = len;
    *s->at = t->n;
}

/* Read doc in chunks (0: whole), tracing every event and the end; with s, save
 * (each context at most max bytes). Returns the final status. */
static int fzr_read(stax_reader *r, const uint8_t *doc, size_t len, size_t chunk, fzr_trace *t, fzr_points *s, size_t max) {
    size_t off = 0;
    int st = STAX_OK;
    const stax_batch *b;
    if (!chunk) chunk = len ? len : 1;
    for (int last = 0; !last;) { /* the chunks, then the end (an empty feed) */
        size_t n = len - off < chunk ? len - off : chunk;
        last = off == len;
        st = last ? stax_reader_end(r) : stax_reader_feed(r, doc + off, n);
        off += n;
        while (st >= 0 && (st = stax_reader_next(r, &b)) == STAX_OK) {
            fzr_batch(t, b);
            if (s) fzr_try_save(r, s, t, max);
        }
        if (st != STAX_NEED_INPUT) break;
        if (s) fzr_try_save(r, s, t, max);
    }
    stax_pos p = stax_reader_error_pos(r);
    uint64_t h = fzr_mix(0xcbf29ce484222325ULL, &st, sizeof st);
    h = fzr_mix(h, &p, sizeof p);
    const char *m = stax_reader_message(r);
    fzr_push(t, fzr_mix(h, m, strlen(m)));
    return st;
}

static int fzr_decline(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    (void)ud;
    (void)req;
    (void)in;
    return STAX_DECLINE;
}

static void fzr_save_seed(const uint8_t *h, const fzr_ctx *c) {
    const char *path = getenv("FUZZ_RESUME_SAVE");
    if (!path) return;
    FILE *f = fopen(path, "wb");
    const uint8_t head[4] = {(uint8_t)(h[0] & 0x3F), h[1], h[2], 0xC0};
    if (!f || fwrite(head, 1, 4, f) != 4 || fwrite(c->p, 1, c->len, f) != c->len || fclose(f) != 0) FZR_ABORT("cannot write %s", path);
}

static stax_reader_options fzr_options(unsigned o) {
    static const uint32_t batches[4] = {2, 3, 5, 64};
    stax_reader_options opt;
    memset(&opt, 0, sizeof opt);
    if (o & 1) opt.flags |= STAX_READ_NAMESPACES;
    if (o & 2) opt.flags |= STAX_READ_SKIP_WS;
    opt.batch_events = batches[(o >> 2) & 3];
    if (o & 16) opt.max_text = 16;
    opt.max_token = 4096;
    opt.max_dtd = 16384;
    opt.entity_threshold = 4096;
    return opt;
}

static void fzr_context_input(const uint8_t *h, const uint8_t *data, size_t size) {
    stax_reader_options opt = fzr_options(h[0]);
    unsigned char *c = (unsigned char *)malloc(size ? size : 1);
    if (!c) abort();
    if (size) memcpy(c, data, size);
    if (h[3] & 0x40) stax__context_seal(c, size);
    stax_reader *r = stax_reader_new(&opt);
    if (!r) abort();
    int st = stax_reader_resume(r, c, size);
    if (st != STAX_OK && st != STAX_E_CONTEXT) FZR_ABORT("resume returned %d", st);
    if (st == STAX_E_CONTEXT && !stax_reader_message(r)[0]) FZR_ABORT("a refusal without a message");
    if (st == STAX_OK) {
        fzr_trace t = {0};
        static const uint8_t rest[] = "<r>text &amp; <b a='1'/></r></r>";
        fzr_read(r, rest, sizeof rest - 1, 3, &t, NULL, 0);
        free(t.h);
    }
    stax_reader_free(r);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4 || size > 65536) return 0;
    const uint8_t *h = data;
    data += 4;
    size -= 4;
    if (h[3] & 0x80) {
        fzr_context_input(h, data, size);
        return 0;
    }
    stax_reader_options opt = fzr_options(h[0]);
    stax_reader *r = stax_reader_new(&opt);
    if (!r) abort();
    fzr_trace ref = {0};
    fzr_points pts = {0};
    pts.want = h[1];
    size_t max = stax_context_max_size(&opt);
    if (!max) abort();
    if (fzr_read(r, data, size, h[2] & 15, &ref, &pts, max) == STAX_END && stax_reader_resume(r, "", 0) != STAX_E_USAGE)
        FZR_ABORT("a resume after the document ended was not refused as misuse");
    stax_reader_free(r);
    if (pts.n) {
        if (pts.want >= pts.n) { /* fewer points: read again, keeping point want % n */
            free(ref.h);
            memset(&ref, 0, sizeof ref);
            size_t n = pts.n;
            pts.n = 0;
            pts.want %= n;
            free(pts.v->p);
            pts.v->p = NULL;
            r = stax_reader_new(&opt);
            fzr_read(r, data, size, h[2] & 15, &ref, &pts, max);
            stax_reader_free(r);
        }
        stax_pos pos;
        if (stax_context_position(pts.v->p, pts.v->len, &pos) != STAX_OK || pos.offset > size) FZR_ABORT("bad position");
        fzr_save_seed(h, pts.v);
        for (unsigned k = 0; k < 2; k++) {
            if (!(h[0] & (0x40u << k))) continue;
            stax_reader_options other = opt;
            if (k) other.resolve = fzr_decline;
            else other.flags ^= STAX_READ_SKIP_WS;
            stax_reader *o = stax_reader_new(&other);
            if (!o) abort();
            if (stax_reader_resume(o, pts.v->p, pts.v->len) != STAX_E_CONTEXT || !stax_reader_message(o)[0])
                FZR_ABORT("a context taken by a reader %s", k ? "with a resolver" : "with other flags");
            stax_reader_free(o);
        }
        stax_reader_options ropt = opt;
        void *block = NULL;
        if (h[0] & 32) {
            stax_reader_options eff;
            if (stax_reader_effective_options(&opt, &eff, NULL) != STAX_OK) abort();
            ropt = eff;
            ropt.memory_size = stax_reader_memory_size(&eff);
            ropt.memory = block = malloc(ropt.memory_size);
        }
        stax_reader *q = stax_reader_new(&ropt);
        if (!q) abort();
        if (stax_reader_resume(q, pts.v->p, pts.v->len) != STAX_OK) FZR_ABORT("own context refused: %s", stax_reader_message(q));
        fzr_trace got = {0};
        fzr_read(q, data + pos.offset, size - (size_t)pos.offset, (size_t)(h[2] >> 4), &got, NULL, 0);
        size_t at = *pts.at;
        if (got.n != ref.n - at || memcmp(got.h, ref.h + at, got.n * sizeof *got.h) != 0)
            FZR_ABORT("resumed at byte %llu (point %zu): %zu events and end, want %zu", (unsigned long long)pos.offset,
                      pts.want, got.n, ref.n - at);
        stax_reader_free(q);
        free(block);
        free(got.h);
        free(pts.v->p);
    }
    free(pts.v);
    free(pts.at);
    free(ref.h);
    return 0;
}
