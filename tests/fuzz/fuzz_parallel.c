/* libFuzzer target for stax_parallel_read and stax_parallel_read_fn: a document read in parts on
 * several threads, with cuts at points the input chooses, against the same
 * document read serially.
 *
 * Input: a 4-byte header, then the document.
 *   byte 0     threads: 1 + (b & 3); bit 2: STAX_READ_NAMESPACES; bit 3:
 *              max_text 64 (text split into events of at most 64 bytes);
 *              bit 4: the first parallel read takes the document as a pipe
 *              would hand it over (stax_parallel_read_fn), in reads of about
 *              1, 7, 61 or 4096 bytes (bits 5-6); bit 7: so does the second
 *   bytes 1-2  the part size, 1 + (little-endian value % 4096): from a cut at
 *              every candidate point to a few parts; byte 2 bit 7: the first
 *              read once more in fixed blocks (fzp_blocks), of the size byte 2
 *              bits 4-6 pick (24 KiB to 256 KiB)
 *   byte 3     when not 0, a second parallel read, on one thread more, in
 *              parts of 1 + (b % 61) bytes
 *
 * Then the document cut into 2 + ((byte 1 ^ byte 3) & 7) ranges by
 * stax_parallel_cuts, each range read apart from its guess and the ranges
 * merged, as `stax count --part K/N` and `stax merge` do (fzp_ranges).
 *
 * Checked: every event (type, flags, depth, name, attributes, text, pubid,
 * sysid, offset, and line and column fixed up with stax_parallel_pos), their
 * order, the final status, the error's message and position, and that done
 * comes once per part in order, all equal to the serial read's; the cuts in
 * order from 0 to the document's length, all at the end when there is no
 * guess. */
#include "stax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZP_HDR 4

typedef struct fzp_out {
    char *p;
    size_t len, cap;
} fzp_out;

static void fzp_add(fzp_out *o, const void *p, size_t n) {
    if (o->cap - o->len < n) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap - o->len < n) cap *= 2;
        char *q = (char *)realloc(o->p, cap);
        if (!q) abort();
        o->p = q;
        o->cap = cap;
    }
    if (n) memcpy(o->p + o->len, p, n);
    o->len += n;
}

static void fzp_u64(fzp_out *o, uint64_t v) { fzp_add(o, &v, sizeof v); }

static void fzp_str(fzp_out *o, stax_str s) {
    fzp_u64(o, s.len);
    fzp_add(o, s.ptr, s.len);
}

/* Event i of b, with its position fixed up from base. */
static void fzp_event(fzp_out *o, const stax_batch *b, size_t i, stax_pos base) {
    stax_pos p = stax_parallel_pos(base, stax_ev_pos(b, i));
    fzp_u64(o, (uint64_t)stax_ev_type(b, i) | (uint64_t)stax_ev_flags(b, i) << 8 | (uint64_t)stax_ev_depth(b, i) << 32);
    fzp_u64(o, p.offset);
    fzp_u64(o, p.line);
    fzp_u64(o, p.column);
    fzp_str(o, stax_ev_name(b, i));
    fzp_str(o, stax_ev_text(b, i));
    fzp_str(o, stax_ev_pubid(b, i));
    fzp_str(o, stax_ev_sysid(b, i));
    if (b->ev_ns) fzp_str(o, stax_ev_uri(b, i));
    fzp_u64(o, stax_ev_attr_count(b, i));
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
        fzp_str(o, stax_ev_attr_name(b, i, k));
        fzp_str(o, stax_ev_attr_value(b, i, k));
        fzp_u64(o, stax_ev_attr_flags(b, i, k));
        if (b->attr_ns) fzp_str(o, stax_ev_attr_qname(b, i, k).uri);
    }
}

static void fzp_result(fzp_out *o, int status, stax_pos pos, const char *msg) {
    fzp_u64(o, (uint64_t)(int64_t)status);
    if (status >= 0) return;
    fzp_u64(o, pos.offset);
    fzp_u64(o, pos.line);
    fzp_u64(o, pos.column);
    fzp_add(o, msg, strlen(msg));
}

/* The serial read's events and result into o; 0 when its reader cannot be
 * made. */
static int fzp_serial(const stax_reader_options *ro, const uint8_t *doc, size_t len, fzp_out *o) {
    stax_reader *r = stax_reader_new(ro);
    if (!r) return 0;
    stax_pos origin = {0, 1, 1};
    const stax_batch *b;
    int st;
    stax_reader_feed(r, doc, len);
    stax_reader_end(r);
    while ((st = stax_reader_next(r, &b)) == STAX_OK)
        for (size_t i = 0; i < b->count; i++) fzp_event(o, b, i, origin);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", stax_reader_message(r)); /* the parallel read's is cut to 256 bytes too */
    fzp_result(o, st == STAX_END ? STAX_OK : st, stax_reader_error_pos(r), msg);
    stax_reader_free(r);
    return 1;
}

/* The parallel read's events: each part's into its slot, with positions as
 * they come (relative to the part), appended to out in done with base. */
typedef struct fzp_part {
    fzp_out events; /* each event: its record's length, then the record (fzp_event, positions in the part) */
    size_t part;
} fzp_part;

typedef struct fzp_run {
    fzp_part *slots;
    size_t nslots, next_done;
    fzp_out *out;
    int order_broken;
} fzp_run;

static int fzp_begin(void *ud, size_t part) {
    fzp_run *u = (fzp_run *)ud;
    fzp_part *s = &u->slots[part % u->nslots];
    s->events.len = 0;
    s->part = part;
    return 0;
}

/* b's events as records, each after its length, positions as they come. */
static void fzp_records(fzp_out *o, const stax_batch *b) {
    stax_pos origin = {0, 1, 1};
    for (size_t i = 0; i < b->count; i++) {
        size_t at = o->len;
        fzp_u64(o, 0); /* the record's length, set below */
        fzp_event(o, b, i, origin);
        uint64_t n = o->len - at - 8;
        memcpy(o->p + at, &n, 8);
    }
}

/* A part's events, each record after its length, so that done can find
 * the position words (the second to fourth) and fix them up. */
static int fzp_batch(void *ud, size_t part, const stax_batch *b) {
    fzp_run *u = (fzp_run *)ud;
    fzp_part *s = &u->slots[part % u->nslots];
    if (s->part != part) u->order_broken = 1;
    fzp_records(&s->events, b);
    return 0;
}

/* The records of recs appended to out without their lengths, positions
 * fixed up from base. */
static void fzp_fixed(fzp_out *out, const fzp_out *recs, stax_pos base) {
    for (size_t at = 0; at < recs->len;) {
        uint64_t n;
        memcpy(&n, recs->p + at, 8);
        const char *rec = recs->p + at + 8;
        stax_pos p;
        memcpy(&p.offset, rec + 8, 8);
        memcpy(&p.line, rec + 16, 8);
        memcpy(&p.column, rec + 24, 8);
        p = stax_parallel_pos(base, p);
        fzp_add(out, rec, 8);
        fzp_u64(out, p.offset);
        fzp_u64(out, p.line);
        fzp_u64(out, p.column);
        fzp_add(out, rec + 32, (size_t)n - 32);
        at += 8 + (size_t)n;
    }
}

static int fzp_done(void *ud, size_t part, stax_pos base) {
    fzp_run *u = (fzp_run *)ud;
    fzp_part *s = &u->slots[part % u->nslots];
    if (part != u->next_done++ || s->part != part) u->order_broken = 1;
    fzp_fixed(u->out, &s->events, base);
    return 0;
}

/* The document handed to stax_parallel_read_fn as a pipe would: at most
 * step bytes a read (step, 2 step, ... as the reads go on, from 1 to 4096). */
typedef struct fzp_pipe {
    const uint8_t *doc;
    size_t len, at, step, reads;
} fzp_pipe;

static int fzp_read(void *ud, void *buf, size_t cap, size_t *got) {
    fzp_pipe *pp = (fzp_pipe *)ud;
    size_t n = pp->len - pp->at, want = pp->step * (1 + pp->reads++ % 3);
    if (n > want) n = want;
    if (n > cap) n = cap;
    if (n) memcpy(buf, pp->doc + pp->at, n);
    pp->at += n;
    *got = n;
    return 0;
}

/* step 0: from memory (stax_parallel_read); else through reads of about
 * step bytes (stax_parallel_read_fn). */
static int fzp_parallel(const stax_reader_options *ro, unsigned threads, size_t part_size, const uint8_t *doc,
                        size_t len, size_t step, void *const *blocks, size_t block_size, fzp_out *o) {
    fzp_run u;
    memset(&u, 0, sizeof u);
    u.nslots = stax_parallel_slots(threads);
    u.slots = (fzp_part *)calloc(u.nslots, sizeof *u.slots);
    if (!u.slots) abort();
    u.out = o;
    stax_parallel_options po;
    memset(&po, 0, sizeof po);
    po.reader = ro;
    po.threads = threads;
    po.part_size = part_size;
    po.ud = &u;
    po.begin = fzp_begin;
    po.batch = fzp_batch;
    po.done = fzp_done;
    po.blocks = blocks;
    po.block_size = block_size;
    stax_parallel_result res;
    fzp_pipe pp = {doc, len, 0, step, 0};
    int st = step ? stax_parallel_read_fn(fzp_read, &pp, &po, &res) : stax_parallel_read(doc, len, &po, &res);
    if (st != res.status || u.order_broken) abort();
    fzp_result(o, st, res.err_pos, res.message);
    for (size_t k = 0; k < u.nslots; k++) free(u.slots[k].events.p);
    free(u.slots);
    return st;
}

/* ---------------------------------------------------------------- ranges */

/* r fed doc[from, to] (the byte at to included: the '<' that ends the text
 * before it) or, when to is the end, doc[from, len) and ended; its events
 * as records into o. The reader's status. */
static int fzp_range_feed(stax_reader *r, const uint8_t *doc, size_t len, uint64_t from, uint64_t to, fzp_out *o) {
    uint64_t upto = to < len ? to + 1 : len;
    const stax_batch *b;
    int st = STAX_NEED_INPUT;
    if (upto > from) {
        stax_reader_feed(r, doc + from, (size_t)(upto - from));
        while ((st = stax_reader_next(r, &b)) == STAX_OK) fzp_records(o, b);
    }
    if (st == STAX_NEED_INPUT && to >= len) {
        stax_reader_end(r);
        while ((st = stax_reader_next(r, &b)) == STAX_OK) fzp_records(o, b);
    }
    return st;
}

/* r's context, malloc'd (NULL where none can be saved), its length in *n. */
static unsigned char *fzp_save(stax_reader *r, size_t *n) {
    *n = 0;
    if (stax_reader_save(r, NULL, 0, n) != STAX_OK) return NULL;
    unsigned char *c = (unsigned char *)malloc(*n);
    if (!c || stax_reader_save(r, c, *n, n) != STAX_OK) abort();
    return c;
}

static stax_reader *fzp_reader_at(const stax_reader_options *ro, const void *ctx, size_t n) {
    stax_reader *r = stax_reader_new(ro);
    if (!r || (ctx && stax_reader_resume(r, ctx, n) != STAX_OK)) abort();
    return r;
}

/* The document cut into n ranges by stax_parallel_cuts, each range read
 * apart as a process of `stax --part` reads it (range 0 from the start,
 * range k from the guess moved to its cut), then merged as `stax merge`
 * merges them: a range keeps its events where the real context at its start
 * (the end context of the range before, moved to its real position) equals
 * its start, it read no error and it ends where a context can be saved; any
 * other range is read again by a reader resumed from the real context, which
 * goes on through the next ranges until it can save one. The events, status
 * and error into o, for the serial read's. */
static void fzp_ranges(const stax_reader_options *ro, size_t n, const uint8_t *doc, size_t len, fzp_out *o) {
    size_t cap = stax_context_max_size(ro), glen = 0, real_len = 0;
    uint64_t *cuts = (uint64_t *)calloc(n + 1, sizeof *cuts);
    unsigned char *guess = (unsigned char *)malloc(cap), *real = NULL;
    if (!cuts || !guess || stax_parallel_cuts(doc, len, ro, n, cuts, guess, cap, &glen) != STAX_OK) abort();
    if (cuts[0] != 0 || cuts[n] != len || glen > cap) abort();
    for (size_t k = 0; k < n; k++)
        if (cuts[k] > cuts[k + 1] || (!glen && k && cuts[k] != len)) abort();
    stax_reader *live = NULL;
    uint64_t next = 0;
    int status = STAX_NEED_INPUT;
    for (size_t k = 0; k < n && status == STAX_NEED_INPUT; k++) {
        uint64_t from = cuts[k], to = cuts[k + 1];
        if (k && from == to) continue;
        if (!live) {
            stax_pos at = {0, 1, 1};
            if (k && (!real || stax_context_position(real, real_len, &at) != STAX_OK)) abort();
            /* the range read apart */
            fzp_out part = {0};
            unsigned char *start = NULL;
            if (k) {
                stax_pos moved = {from, 1, 1};
                start = (unsigned char *)malloc(glen);
                if (!start || stax_context_move(memcpy(start, guess, glen), glen, moved) != STAX_OK) abort();
            }
            stax_reader *r = fzp_reader_at(ro, start, glen);
            int pst = fzp_range_feed(r, doc, len, from, to, &part);
            size_t end_len = 0;
            unsigned char *end = pst == STAX_NEED_INPUT ? fzp_save(r, &end_len) : NULL;
            stax_reader_free(r);
            int right = !k || (at.offset == from && stax_context_equal(real, real_len, start, glen));
            free(start);
            if (right && pst >= 0 && (pst == STAX_END || end)) {
                fzp_fixed(o, &part, at);
                free(part.p);
                status = pst;
                free(real);
                real = NULL;
                if (end) {
                    stax_pos e;
                    if (stax_context_position(end, end_len, &e) != STAX_OK ||
                        stax_context_move(end, end_len, stax_parallel_pos(at, e)) != STAX_OK)
                        abort();
                    real = end;
                    real_len = end_len;
                }
                continue;
            }
            free(part.p);
            free(end);
            /* read again from the real context */
            live = fzp_reader_at(ro, real, real_len);
            next = at.offset;
        }
        fzp_out recs = {0};
        stax_pos origin = {0, 1, 1};
        status = fzp_range_feed(live, doc, len, next, to, &recs);
        fzp_fixed(o, &recs, origin);
        free(recs.p);
        next = to + 1;
        if (status != STAX_NEED_INPUT) break;
        free(real);
        real = fzp_save(live, &real_len);
        if (real) {
            stax_reader_free(live);
            live = NULL;
        }
    }
    if (status == STAX_NEED_INPUT) abort(); /* the ranges reach the end */
    char msg[256] = "";
    stax_pos err = {0, 0, 0};
    if (status < 0) { /* only a reader resumed from a real context (or the first) stops in an error */
        if (!live) abort();
        snprintf(msg, sizeof msg, "%s", stax_reader_message(live));
        err = stax_reader_error_pos(live);
    }
    fzp_result(o, status == STAX_END ? STAX_OK : status, err, msg);
    stax_reader_free(live);
    free(real);
    free(guess);
    free(cuts);
}

/* threads 0: the ranges read apart and merged, part_size of them. */
static void fzp_same(const fzp_out *a, const fzp_out *b, unsigned threads, size_t part_size) {
    if (a->len == b->len && memcmp(a->p, b->p, a->len) == 0) return;
    size_t i = 0;
    while (i < a->len && i < b->len && a->p[i] == b->p[i]) i++;
    if (threads)
        fprintf(stderr, "invariant failed: %u threads, parts of %zu bytes", threads, part_size);
    else
        fprintf(stderr, "invariant failed: %zu ranges read apart and merged", part_size);
    fprintf(stderr, ": the events differ from the serial read's at byte %zu of %zu/%zu\n", i, a->len, b->len);
    abort();
}

/* The first read again in fixed blocks (blocks, nothing allocated), of
 * one of eight sizes (24 KiB to 256 KiB): its events and result must be
 * those of a serial reader in a fixed block of what each slot's reader gets
 * (half a block, rounded down to 64 bytes: the same limits), and
 * STAX_E_NOMEM when no such reader can be made. */
static void fzp_blocks(const stax_reader_options *ro, unsigned threads, size_t part_size, const uint8_t *doc, size_t len,
                       size_t step, unsigned size) {
    static const size_t sizes[8] = {24u << 10, 32u << 10, 48u << 10, 64u << 10, 96u << 10, 128u << 10, 192u << 10,
                                    256u << 10};
    size_t bs = sizes[size], n = stax_parallel_slots(threads) + 1;
    void **blocks = (void **)calloc(n, sizeof *blocks);
    if (!blocks) abort();
    for (size_t k = 0; k < n; k++)
        if (!(blocks[k] = malloc(bs))) abort();
    stax_reader_options fixed = *ro;
    fixed.memory = malloc(bs / 2);
    if (!fixed.memory) abort();
    fixed.memory_size = bs / 2 / 64 * 64;
    fzp_out serial = {0}, par = {0};
    int made = fzp_serial(&fixed, doc, len, &serial);
    int st = fzp_parallel(ro, threads, part_size, doc, len, step, blocks, bs, &par);
    if (!made) {
        if (st != STAX_E_NOMEM) {
            fprintf(stderr, "invariant failed: blocks of %zu bytes, too small for a reader, read with %d\n", bs, st);
            abort();
        }
    } else {
        fzp_same(&serial, &par, threads, part_size);
    }
    for (size_t k = 0; k < n; k++) free(blocks[k]);
    free(blocks);
    free(fixed.memory);
    free(serial.p);
    free(par.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < FZP_HDR || size > (1u << 16)) return 0;
    unsigned threads = 1 + (data[0] & 3u);
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    if (data[0] & 4) ro.flags |= STAX_READ_NAMESPACES;
    if (data[0] & 8) ro.max_text = 64;
    size_t part_size = 1 + (size_t)((data[1] | (unsigned)data[2] << 8) % 4096);
    const uint8_t *doc = data + FZP_HDR;
    size_t len = size - FZP_HDR;
    fzp_out serial = {0}, par = {0};
    if (!fzp_serial(&ro, doc, len, &serial)) abort();
    static const size_t steps[] = {1, 7, 61, 4096};
    size_t step = data[0] & 0x10 ? steps[(data[0] >> 5) & 3] : 0;
    fzp_parallel(&ro, threads, part_size, doc, len, step, NULL, 0, &par);
    fzp_same(&serial, &par, threads, part_size);
    if (data[3]) {
        size_t small = 1 + (size_t)(data[3] % 61);
        par.len = 0;
        fzp_parallel(&ro, threads + 1, small, doc, len, data[0] & 0x80 ? 1 + small : 0, NULL, 0, &par);
        fzp_same(&serial, &par, threads + 1, small);
    }
    if (data[2] & 0x80) fzp_blocks(&ro, threads, part_size, doc, len, step, (data[2] >> 4) & 7u);
    /* the same document in 2 to 9 ranges read apart and merged */
    size_t ranges = 2 + (size_t)((data[1] ^ data[3]) & 7u);
    par.len = 0;
    fzp_ranges(&ro, ranges, doc, len, &par);
    fzp_same(&serial, &par, 0, ranges);
    free(serial.p);
    free(par.p);
    return 0;
}
