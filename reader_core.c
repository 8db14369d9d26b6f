/* The reader's core services, below every stage: errors and their
 * positions, buffer reservations, the expansion meter of content, the room
 * a token needs in the batch, and the position a consumed token moves. */
#include "reader.h"

#include <stdarg.h>

/* ================================================================ errors and positions */

#ifdef STAX_NO_MESSAGES
/* Short messages: the status's name and the position, "mismatched end tag
 * at line 3, column 7", written without the formatter. */
static size_t rd_put(char *m, size_t k, const char *s) {
    while (*s && k + 1 < STAX__RD_MSG_CAP) m[k++] = *s++;
    return k;
}

/* Decimal digits by subtraction: no 64-bit division (a library call on
 * 32-bit targets). */
static size_t rd_put_u64(char *m, size_t k, uint64_t v) {
    uint64_t p = 10000000000000000000u; /* 10^19, the largest power of ten in 64 bits */
    int started = 0;
    for (int i = 19; i >= 0; i--) {
        char c = '0';
        uint64_t q = 1;
        for (int j = 0; j < i - 1; j++) q *= 10; /* 10^(i-1) for the next digit */
        while (v >= p) v -= p, c++;
        started |= c != '0' || i == 0;
        if (started && k + 1 < STAX__RD_MSG_CAP) m[k++] = c;
        p = i > 0 ? q : 0;
    }
    return k;
}

static void rd_short_message(stax_reader *r) {
    char *m = r->doc.err.msg;
    size_t k = rd_put(m, 0, stax_strerror(r->doc.status));
    k = rd_put(m, k, " at line ");
    k = rd_put_u64(m, k, r->doc.err_pos.line);
    k = rd_put(m, k, ", column ");
    k = rd_put_u64(m, k, r->doc.err_pos.column);
    m[k] = '\0';
}
#define rd_where(r, at) rd_short_message(r)
#else
/* Errors inside an external entity are reported at the reference in the
 * document, like those in internal entities; the message names the
 * innermost external entity, with the line and column in it of the byte at
 * (when it lies in its text; else of where reading stands in it). */
static void rd_where(stax_reader *r, const char *at) {
    for (uint32_t k = r->doc.n_ent; k-- > 0;) {
        const stax__xtext *xt = r->buf.ents[k].xt;
        if (!xt) continue;
        const char *p;
        if (k + 1 < r->doc.n_ent) p = r->buf.ents[k + 1].p + r->buf.ents[k + 1].ref; /* the reference that led out of it */
        else p = at && at >= xt->text && at <= xt->text + xt->len ? at : r->doc.in + r->doc.in_pos;
        stax__ext_where(xt, p, r->doc.err.msg, r->doc.err.cap);
        return;
    }
}
#endif /* STAX_NO_MESSAGES */

#ifdef STAX_NO_MESSAGES
static int rd_fail_msg(stax_reader *r, int code, const stax_pos *at, const char *byte) {
    if (r->doc.status < 0) return r->doc.status;
    r->doc.status = stax__err_set(&r->doc.err, code, byte, "%s", "");
    r->doc.err_pos = *at;
    rd_short_message(r);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}

int (stax__rd_fail_at)(stax_reader *r, int code, stax_pos at, const char *fmt, ...) {
    (void)fmt;
    return rd_fail_msg(r, code, &at, NULL);
}

int (stax__rd_fail_near)(stax_reader *r, int code, stax_pos at, const char *byte, const char *fmt, ...) {
    (void)fmt;
    return rd_fail_msg(r, code, &at, byte);
}

int (stax__rd_fail_tok)(stax_reader *r, int code, const char *tok, size_t at) {
    stax_pos pos = rd_pos_in(r, tok, at);
    return rd_fail_msg(r, code, &pos, tok + at);
}
#else
/* byte: the byte of the error, or NULL; inside an external entity the
 * message names the line and column of it (rd_where). */
static int rd_fail_msg(stax_reader *r, int code, const stax_pos *at, const char *byte, const char *fmt, va_list ap) {
    if (r->doc.status < 0) return r->doc.status;
    r->doc.status = stax__err_vset(&r->doc.err, code, byte, 0, fmt, ap);
    r->doc.err_pos = *at;
    if (STAX_UNLIKELY(r->doc.n_ent)) rd_where(r, byte);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}

int (stax__rd_fail_at)(stax_reader *r, int code, stax_pos at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = rd_fail_msg(r, code, &at, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int (stax__rd_fail_near)(stax_reader *r, int code, stax_pos at, const char *byte, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = rd_fail_msg(r, code, &at, byte, fmt, ap);
    va_end(ap);
    return rc;
}

int (stax__rd_fail_tok)(stax_reader *r, int code, const char *tok, size_t at, const char *fmt, ...) {
    stax_pos pos = rd_pos_in(r, tok, at);
    va_list ap;
    va_start(ap, fmt);
    int rc = rd_fail_msg(r, code, &pos, tok + at, fmt, ap);
    va_end(ap);
    return rc;
}
#endif

/* The error in r->doc.err (from entities.c or the DTD), at its byte of the token
 * [tok, tok+n) (at its start when the byte lies elsewhere, e.g. in entity text). */
int stax__rd_fail_err(stax_reader *r, const char *tok, size_t n) {
    size_t at = r->doc.err.at >= tok && r->doc.err.at <= tok + n ? (size_t)(r->doc.err.at - tok) : 0;
    int code = r->doc.err.code;
    if (r->doc.status < 0) return r->doc.status;
    r->doc.status = code;
    r->doc.err_pos = rd_pos_in(r, tok, at);
    if (STAX_UNLIKELY(r->doc.n_ent) || STAX__SHORT_MESSAGES) rd_where(r, r->doc.err.at);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}

/* An error of the external-entity loader (already in r->doc.err, its message
 * naming the entity), at pos. */
int stax__rd_fail_loaded(stax_reader *r, stax_pos pos) {
    if (r->doc.status < 0) return r->doc.status;
    r->doc.status = r->doc.err.code;
    r->doc.err_pos = pos;
    if (STAX__SHORT_MESSAGES) rd_where(r, NULL);
    if (r->doc.status == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return r->doc.status;
}

/* ================================================================ memory helpers */

int stax__rd_nomem(stax_reader *r) {
    return stax__rd_fail_at(r, STAX_E_NOMEM, r->doc.tok_pos, "out of memory");
}

/* Make room for n more bytes in b (at most max in all). Returns 0, or the
 * error: STAX_E_NOMEM when the allocator refuses; STAX_E_INTERNAL when the
 * size rules say max is always enough. */
int stax__rd_reserve(stax_reader *r, stax__buf *b, size_t n, size_t max) {
    int rc = stax__buf_reserve(&r->buf.mem, b, n, max);
    if (!rc) return 0;
    if (rc == STAX_E_NOMEM) return stax__rd_nomem(r);
    return rd_internal(r, "a buffer is smaller than its size rule");
}

/* Count n more expanded bytes against the amplification limits. */
int stax__rd_expand_account(stax_reader *r, size_t n, const char *tok, size_t at) {
    r->doc.meter.input = rd_input(r);
    return stax__meter_add(&r->doc.meter, n, r->cfg.opt.entity_threshold, r->cfg.opt.entity_amplification, &r->doc.err, tok + at)
               ? stax__rd_fail_err(r, tok, at)
               : 0;
}

/* ================================================================ one token, the general way */

/* The arena emptied and made at least `need` bytes: at least RD_ARENA_FIRST
 * (most documents never need more), at most arena_max (stax__rd_room's n can
 * be a bound larger than any token, as the fast path's window: a token never
 * needs more than that). 0, or -1 on error. Out of line: the room check's
 * common case stays a leaf. */
RD_NOINLINE int rd_arena_fresh(stax_reader *r, size_t need) {
    r->buf.arena.len = 0;
    size_t want = need > RD_ARENA_FIRST ? need : RD_ARENA_FIRST;
    if (want > r->cfg.arena_max) want = r->cfg.arena_max;
    /* with an allocator, freed first: a realloc would copy what no one keeps */
    if (r->buf.arena.cap < want && !r->buf.mem.block) stax__buf_free(&r->buf.mem, &r->buf.arena);
    return stax__rd_reserve(r, &r->buf.arena, want, r->cfg.arena_max) ? -1 : 0;
}

/* Room for a token of n bytes: events, attributes, arena. Returns 1 if the
 * batch must end first, 0 if there is room, -1 on error. Grows buffers only
 * while nothing points into them (growing moves them): the attributes while
 * the batch is empty, the arena also while it is empty itself. */
int stax__rd_room(stax_reader *r, size_t n) {
    int empty = r->buf.batch.count == 0;
    /* a token gives at most two events (START and END of <a/>, TEXT and ENTITY_REF) */
    if (!empty && r->buf.batch.count + 2 > r->cfg.opt.batch_events) return 1;
    if (r->cfg.attr_cap - r->doc.attr_len < r->cfg.opt.max_attrs) {
        if (!empty) return 1;
        r->doc.attr_len = 0;
    }
    /* what a token can write to the arena is never more than its length
     * (attribute values that expand entities aside: see stax__rd_parse) */
    size_t need = n + RD_ARENA_SLACK;
    if (r->buf.arena.cap - r->buf.arena.len < need) {
        /* it can move while nothing is in it: no event points into it then */
        if (!empty && r->buf.arena.len) {
            r->buf.arena_short = 1;
            return 1;
        }
        return rd_arena_fresh(r, need);
    }
    return 0;
}

/* At the start of a batch after one that ended for want of arena: double
 * it (up to arena_max), so that batches are not cut short by it for long.
 * The batch is empty, so nothing points into it, and nothing in it is kept
 * (a realloc would copy it). When the allocator refuses, the arena stays as
 * it is: batches go on ending earlier, nothing fails. Only with an allocator:
 * a fixed block carves the whole arena at once. */
void stax__rd_arena_grow(stax_reader *r) {
    r->buf.arena_short = 0;
    size_t cap = r->buf.arena.cap, max = r->cfg.arena_max;
    if (cap >= max || r->buf.mem.block) return;
    size_t ncap = cap > max / 2 ? max : cap * 2;
    char *p = (char *)stax__mem_alloc(&r->buf.mem, ncap);
    if (!p) return;
    stax__buf_free(&r->buf.mem, &r->buf.arena);
    r->buf.arena.ptr = p;
    r->buf.arena.cap = ncap;
}

/* A token of the window the general way consumes before the window is
 * searched for a CR: its first RD_WIN_PROBES tokens are searched alone, and
 * one without a CR advances the position by the LF-only count here (1);
 * the next one has the whole window searched (0: rd_advance counts). A
 * window the fast path reads but for a few tokens is never searched whole
 * (a memchr of all of it for one token would cost more than the token).
 * Builds for size search the window at once. */
RD_NOINLINE int rd_search_window(stax_reader *r, const char *tok, size_t n) {
    if (!rd_in_window(r, tok, n)) return 0;
    if (RD_WIN_PROBES == 0 || r->doc.win_nocr == -1) {
        rd_win_nocr(r);
        return 0;
    }
    r->doc.win_nocr++;
    if (memchr(tok, '\r', n)) return 0; /* (the general count takes it) */
    uint64_t off = r->doc.pos.offset;
    stax__pos_advance_nocr(&r->doc.pos, tok, n); /* (rd_advance, with the token known to hold no CR) */
    rd_advance_units(r, &r->doc.pos, off, tok, n);
    return 1;
}

uint64_t stax__rd_units(const stax_reader *r, const char *p, size_t n) { return stax__utf8_units(p, n, rd_wide(r)); }

/* Consume n bytes of the token that was just parsed. */
void stax__rd_consume(stax_reader *r, const char *tok, size_t n) {
    if (r->doc.n_ent) return; /* entity text: events carry the reference's position */
    if (STAX_UNLIKELY(r->doc.win_nocr < 0) && rd_search_window(r, tok, n) && RD_WIN_PROBES > 0) return;
    rd_advance(r, &r->doc.pos, tok, n);
}
