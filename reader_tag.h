/* The start tag's grammar, written once: '<' Name (S Attribute)* S? '/'? '>',
 * an Attribute being Name S? '=' S? a quoted value. reader_tokens.c (the
 * general parser, and limit mode) and reader_fast.c (the fast path) compile
 * it each with its own constant mode (rd_tag_mode), so that no mode is
 * tested on the hot path; what a start tag then does (defaults, namespaces,
 * the element stack, events, positions) stays with its caller. The end
 * tag's grammar is here too (rd_etag, rd_etag_end), compiled the same way,
 * and the names, white space and quoted values that the other tokens read,
 * since the tags read them the same way. */
#ifndef STAX_READER_TAG_H
#define STAX_READER_TAG_H

#include "reader.h"

enum rd_tag_mode {
    RD_TAG_PLAIN, /* the fast path: ASCII names, values scanned by blocks, the tag
                     whole within n; anything else is declined (RD_TAG_DECLINE) */
    RD_TAG_FULL,  /* the general parser: every error named, ATTLIST types,
                     values normalized, copies when the tag is in the carry */
    RD_TAG_LIMIT  /* a tag over max_token: its first bytes read for the limit
                     met first, with no side effect (stax__rd_over_limit) */
};

/* The fast path gives the tag to the general parser (not an error code:
 * those are negative, STAX__ROOM is 3). */
#define RD_TAG_DECLINE 1

/* A value to check or decode once the whole tag is known (attrs' flags, PLAIN). */
#define RD_ATTRF_PENDING 0x80000000u

/* What the grammar leaves to its caller. */
typedef struct rd_tag {
    size_t nl;                     /* FULL, LIMIT: the element name's length (at tok + 1) */
    size_t i;                      /* past the tag's '>' */
    size_t count;                  /* its attributes, from r->buf.attrs + first on */
    unsigned flags;                /* STAX_EVF_EMPTY for an empty-element tag */
    size_t lfs, line_at;           /* PLAIN: line feeds in the tag, the last ending at line_at */
    size_t cont;                   /* PLAIN: UTF-8 continuation bytes of its values after line_at */
    int pending;                   /* PLAIN: bit 1 set when values are marked RD_ATTRF_PENDING,
                                      bit 2 when values hold UTF-8 the grammar kept (cont) */
    const stax__dtd_elem_def *el;  /* FULL: the element's ATTLIST, or NULL */
} rd_tag;

/* Copy [s, s+n) to the arena (a token in the carry, whose bytes are about
 * to change; reader_tokens.c). */
STAXINT int stax__rd_arena_copy(stax_reader *r, stax_str *s);

/* A start tag's name copied to the arena (the tag is in the carry), or
 * STAX__ROOM when the arena's free part is short: expanded values may have
 * taken it, and the tag is read again with the whole arena, where its
 * names and values fit (max_token in all: stax__rd_attr_value). */
static inline int rd_tag_copy(stax_reader *r, stax_str *s) {
    if (r->buf.arena.cap - r->buf.arena.len < s->len) return STAX__ROOM;
    return stax__rd_arena_copy(r, s);
}

/* ================================================================ white space */

static inline size_t rd_skip_ws(const char *tok, size_t n, size_t i) {
    while (i < n && stax__is_ws((unsigned char)tok[i])) i++;
    return i;
}

/* White space in a tag from tok[i]. PLAIN takes SP TAB LF and counts the
 * line feeds (a CR is left to the general way); the others take all four. */
RD_FOR_EACH_MODE size_t rd_tag_space(const char *tok, size_t n, size_t i, rd_tag *t, int mode) {
    if (mode != RD_TAG_PLAIN) return rd_skip_ws(tok, n, i);
    for (; i < n; i++) {
        char c = tok[i];
        if (c == ' ' || c == '\t') continue;
        if (c != '\n') break;
        t->lfs++;
        t->line_at = i + 1;
        t->cont = 0; /* (counted after the last line feed) */
    }
    return i;
}

/* ================================================================ names */

/* A Name at tok[i]: its length (> 0), or 0 after failing. The inline part
 * takes all-ASCII names; the rest goes to stax__rd_name_slow. */
STAXINT size_t stax__rd_name_slow(stax_reader *r, const char *tok, size_t n, size_t i, const char *what);
static inline size_t rd_name(stax_reader *r, const char *tok, size_t n, size_t i, const char *what) {
    size_t j = i + 1;
    if (STAX_LIKELY(i < n && (unsigned char)tok[i] < 0x80 && (stax__class[(unsigned char)tok[i]] & STAX__C_NSTART))) {
        while (j < n && (stax__class[(unsigned char)tok[j]] & STAX__C_ANAME)) j++;
        if (STAX_LIKELY((j >= n || (unsigned char)tok[j] < 0x80) && j - i <= r->cfg.opt.max_name)) return j - i;
    }
    return stax__rd_name_slow(r, tok, n, i, what);
}

/* How many of p[0, 16) are ASCII name characters, at once. */
static inline size_t rd_name16(const char *p) {
#ifdef STAX__V16
    stax__v16 v = stax__v16_load(p);
    stax__v16 letter = stax__v16_in(stax__v16_or(v, stax__v16_set(0x20)), 'a', 'z'), digit = stax__v16_in(v, '0', '9');
    stax__v16 punct = stax__v16_or(stax__v16_or(stax__v16_eq(v, stax__v16_set('-')), stax__v16_eq(v, stax__v16_set('.'))),
                                   stax__v16_or(stax__v16_eq(v, stax__v16_set('_')), stax__v16_eq(v, stax__v16_set(':'))));
    stax__m16 stop = (stax__m16)~stax__v16_mask(stax__v16_or(stax__v16_or(letter, digit), punct)) & stax__m16_low(16);
    return stop ? stax__m16_first(stop) : 16;
#else
    size_t i = 0;
    while (i < 16 && (stax__class[(unsigned char)p[i]] & STAX__C_ANAME)) i++;
    return i;
#endif
}

/* The end of the ASCII name run from p[i] (p[i] already a name start): past
 * a first byte, 8 bytes at once on 64-bit little-endian targets (most names
 * are short and of letters; 32-bit ones would take the 64-bit arithmetic in
 * pairs, and firmware the code), else by the table; then 16 at a time. */
RD_HOT_INLINE size_t rd_name_end(const char *p, size_t n, size_t i) {
    const unsigned char *u = (const unsigned char *)p;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__)) && \
    defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
    /* The letters among 8 bytes, as bit 7 of each: with case folded (| 0x20)
     * and bit 7 set (no borrow between bytes), x - 0x61 keeps bit 7 from 'a'
     * and x - 0x7B from past 'z'; bytes from 0x80 are not letters. The first
     * byte that is not a letter is then a name character (a digit - . _ :),
     * and the bytes after it go the same way, or the name's end. */
    if (i >= n || !(stax__class[u[i]] & STAX__C_ANAME)) return i; /* a name of one byte (p, b, i) */
    if (++i + 8 <= n) {
        const uint64_t hi = 0x8080808080808080ULL;
        uint64_t x, t;
        memcpy(&x, u + i, 8);
        t = x | 0x2020202020202020ULL | hi;
        uint64_t other = ~((t - 0x6161616161616161ULL) & ~(t - 0x7B7B7B7B7B7B7B7BULL) & ~x) & hi;
        if (!other) {
            i += 8;
        } else {
            i += (size_t)__builtin_ctzll(other) >> 3;
            if (!(stax__class[u[i]] & STAX__C_ANAME)) return i;
        }
    }
#endif
    for (size_t stop = i + 8 < n ? i + 8 : n; i < stop; i++)
        if (!(stax__class[u[i]] & STAX__C_ANAME)) return i;
    while (i + 16 <= n) {
        size_t k = rd_name16(p + i);
        i += k;
        if (k < 16) return i;
    }
    while (i < n && (stax__class[u[i]] & STAX__C_ANAME)) i++;
    return i;
}

/* PLAIN: the length of the name at tok[i], whose first byte is a name
 * start; 0 where it is not ASCII, runs to n or is longer than max_name. */
RD_HOT_INLINE size_t rd_tag_name_rest(stax_reader *r, const char *tok, size_t n, size_t i) {
    size_t e = rd_name_end(tok, n, i + 1);
    return e >= n || e - i > r->cfg.opt.max_name ? 0 : e - i;
}

/* A name in a tag at tok[i]: its length. 0 after failing, or in PLAIN where
 * the name is not ASCII, runs to n or is longer than max_name (declined). */
RD_FOR_EACH_MODE size_t rd_tag_name(stax_reader *r, const char *tok, size_t n, size_t i, const char *what, int mode) {
    if (mode != RD_TAG_PLAIN) return rd_name(r, tok, n, i, what);
    const unsigned char *u = (const unsigned char *)tok;
    if (!(stax__class[u[i]] & STAX__C_ANSTART)) return 0;
    return rd_tag_name_rest(r, tok, n, i);
}

/* ================================================================ quoted values */

/* The blocks an attribute value's scan (rd_scan_value) compares with, made
 * once a tag or a value (rd_vscan_init). keep: made in registers and kept
 * there, as the grammar's loop and rd_plain_utf8 want them (made at each
 * value, they cost eight instructions an attribute); without it, GCC folds
 * them into the compares, which suits rd_fx_value (one value, no loop
 * around it to keep them for). */
typedef struct rd_vscan {
#ifdef STAX__V16
    stax__v16 lt, amp, sp, dq, sq;
#else
    char unused;
#endif
} rd_vscan;

#ifdef STAX__V16
static inline stax__v16 rd_vscan_block(char c, int keep) {
    return keep ? stax__v16_keep(stax__v16_set(c)) : stax__v16_set(c);
}
#endif

static inline rd_vscan rd_vscan_init(int keep) {
    rd_vscan k;
#ifdef STAX__V16
    k.lt = rd_vscan_block('<', keep);
    k.amp = rd_vscan_block('&', keep);
    k.sp = rd_vscan_block(0x20, keep);
    k.dq = rd_vscan_block('"', keep);
    k.sq = rd_vscan_block('\'', keep);
#else
    (void)keep;
    k.unused = 0;
#endif
    return k;
}

/* In an attribute value: the first quote q, or byte to look at (< & TAB LF
 * CR, other controls, bytes >= 0x80), from p[0]; n if none. */
static inline size_t rd_scan_value(const char *p, size_t n, char q, const rd_vscan *k) {
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 vq = q == '"' ? k->dq : k->sq;
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__v16 m = stax__v16_or(stax__v16_or(stax__v16_lt(v, k->sp), stax__v16_eq(v, vq)), /* controls, >= 0x80 */
                                   stax__v16_or(stax__v16_eq(v, k->lt), stax__v16_eq(v, k->amp)));
        stax__m16 mask = stax__v16_mask(m);
        if (mask) return i + stax__m16_first(mask);
    }
#else
    (void)k;
#endif
    while (i < n && p[i] != q && !(stax__class[(unsigned char)p[i]] & STAX__C_AVAL)) i++;
    return i;
}

/* In an attribute value that holds a byte to look at: the first quote q or
 * '<' from p[0]; n if none. Out of line: most values have no such byte,
 * and inline, its loop would take registers from the tag's; one pass where two memchr calls found the quote, then
 * looked for a '<' before it. */
RD_NOINLINE size_t rd_scan_quote(const char *p, size_t n, char q) {
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 vq = stax__v16_set(q), lt = stax__v16_set('<');
    for (; i + 16 <= n; i += 16) {
        stax__v16 v = stax__v16_load(p + i);
        stax__m16 mask = stax__v16_mask(stax__v16_or(stax__v16_eq(v, vq), stax__v16_eq(v, lt)));
        if (mask) return i + stax__m16_first(mask);
    }
#endif
    while (i < n && p[i] != q && p[i] != '<') i++;
    return i;
}

/* The quoted value at tok[*i], as stax__quoted reads it; with look (the fast
 * path), the value is scanned by blocks on the way to its quote, and *look
 * is set to where its first byte to look at is (rd_scan_value), when it has
 * one; a '<' before the quote then gives STAX__UNTERMINATED (the fast path
 * declines either: the general way reports the tag's error). */
static inline int rd_quoted_scan(const char *tok, size_t n, size_t *i, stax_str *out, size_t *look, const rd_vscan *k) {
    size_t j = *i;
    if (!look) return stax__quoted(tok, n, i, out);
    if (j >= n || (tok[j] != '"' && tok[j] != '\'')) return STAX__NOT_QUOTED;
    char q = tok[j++];
    size_t e = j + rd_scan_value(tok + j, n - j, q, k);
    if (e >= n) return STAX__UNTERMINATED;
    if (tok[e] != q) {
        *look = e;
        e += rd_scan_quote(tok + e, n - e, q);
        if (e >= n || tok[e] != q) return STAX__UNTERMINATED; /* (or a '<' in the value: declined all the same) */
    }
    out->ptr = tok + j;
    out->len = e - j;
    *i = e + 1;
    return STAX__QUOTED;
}
static inline int rd_quoted(const char *tok, size_t n, size_t *i, stax_str *out) { return stax__quoted(tok, n, i, out); }

/* The continuation bytes of v[i, len) when the bytes to look at from
 * v[i] on (a byte >= 0x80 there; room readable from v, the quote at
 * v[len]) are all 2- and 3-byte UTF-8 (rd_utf8_run: Chars, no surrogate or
 * U+FFFE/FFFF): such a value of the fast path is kept as it stands.
 * SIZE_MAX when it holds anything else (a reference, a control, TAB LF CR,
 * a 4-byte or bad sequence): the value is left to rd_fx_pending. Out of
 * line, as rd_scan_quote. */
#ifdef STAX__SMALL
/* (a build for size leaves every such value to rd_fx_pending: 90 bytes on the M4) */
static inline size_t rd_plain_utf8(const char *v, size_t i, size_t len, size_t room) {
    (void)v, (void)i, (void)len, (void)room;
    return SIZE_MAX;
}
#else
RD_NOINLINE size_t rd_plain_utf8(const char *v, size_t i, size_t len, size_t room) {
    const unsigned char *u = (const unsigned char *)v;
    const rd_vscan k = rd_vscan_init(1);
    size_t cont = 0;
    while (i < len) {
        if (u[i] < 0x80) return SIZE_MAX; /* a control or '&' (no '<' or quote before len) */
        size_t e = rd_utf8_run_cont(v, len, i, &cont);
        if (e == i) return SIZE_MAX;
        i = e + rd_scan_value(v + e, room - e, (char)u[len], &k);
    }
    return cont;
}
#endif

/* ================================================================ the start tag */

/* The declared type of attribute `name` in the ATTLIST el (or NULL), marking
 * its definition as given by this tag. */
static inline int rd_declared_type(stax_reader *r, const stax__dtd_elem_def *el, stax_str name) {
    if (!el) return STAX__AT_CDATA;
    stax__attdef *a = stax__dtd_attdef(&r->buf.dtd, el, name.ptr, name.len);
    if (!a) return STAX__AT_CDATA;
    a->stamp = r->doc.tag_stamp;
    return a->type;
}

/* Limit mode writes no attribute: an attribute given twice is found by
 * reading the tag's attributes again from i (after the element name) up to
 * the one at `at`. */
static inline int rd_given_before(const char *tok, size_t i, size_t at, size_t len) {
    while (i < at) {
        i = rd_skip_ws(tok, at, i);
        size_t s = i;
        while (i < at && (stax__class[(unsigned char)tok[i]] & STAX__C_NAME)) i++;
        if (i - s == len && memcmp(tok + s, tok + at, len) == 0) return 1;
        i = rd_skip_ws(tok, at, rd_skip_ws(tok, at, i) + 1); /* past '=' */
        stax_str v;
        if (rd_quoted(tok, at, &i, &v) != STAX__QUOTED) return 0;
    }
    return 0;
}

/* The start tag at tok (its first n bytes) read in mode: the element name
 * and the attributes, stored from r->doc.attr_len on (r->doc.attr_len is
 * past them on success; first is where the tag's attributes begin;
 * name_len the element name's, where the caller has read it, else 0). Returns 0 with *t filled; in PLAIN, RD_TAG_DECLINE
 * for anything it does not take; in FULL an error, or STAX__ROOM when the
 * arena was short (the caller rolls back); in LIMIT the error met, or 0
 * where the bytes run out. How a mode answers each step is spelled next to
 * the step, so that the modes read one grammar. */
RD_FOR_EACH_MODE int rd_stag(stax_reader *r, const char *tok, size_t n, rd_tag *t, int mode, int copy, size_t first,
                             size_t name_len) {
    const int plain = mode == RD_TAG_PLAIN, full = mode == RD_TAG_FULL, limit = mode == RD_TAG_LIMIT;
    t->flags = 0;
    t->lfs = t->line_at = 0;
    if (plain) t->cont = 0;
    t->pending = 0;
    if (full) t->el = NULL; /* (read in that mode alone) */
    size_t nl = name_len ? name_len : rd_tag_name(r, tok, n, 1, "element", mode);
    if (!plain) t->nl = nl; /* (the fast path has it) */
    if (!nl) return plain ? RD_TAG_DECLINE : r->doc.status;
    size_t i = 1 + nl;
    uint64_t seen = 0;
    uint32_t given = 0;
    const size_t max_attrs = r->cfg.opt.max_attrs; /* (a store to an attribute may alias r's options) */
    stax_attr *a0 = r->buf.attrs + first, *a = a0;
    size_t count = 0; /* a - a0, kept apart: a division by sizeof *a where it was computed */
    size_t left = max_attrs; /* PLAIN: max_attrs - count, which one test of a register or the stack
                                takes (count against max_attrs loads two values); the other modes
                                keep count (less code) */
    size_t tag_bytes = nl; /* FULL: the names and values so far, normalized (stax__rd_attr_value) */
    const rd_vscan vscan = rd_vscan_init(1); /* (PLAIN only: unused, the others drop it) */
    if (full && r->buf.dtd.n_atts && (t->el = rd_attlist_of(r, tok + 1, nl)) != NULL && ++r->doc.tag_stamp == 0)
        r->doc.tag_stamp = stax__dtd_clear_stamps(&r->buf.dtd);
    for (;;) {
        size_t ws = i, an;
        if (plain && i + 1 < n && tok[i] == ' ' && (stax__class[(unsigned char)tok[i + 1]] & STAX__C_ANSTART)) {
            an = rd_tag_name_rest(r, tok, n, ++i); /* the usual single space, then a name */
        } else {
            i = rd_tag_space(tok, n, i, t, mode);
            if (i >= n) return plain ? RD_TAG_DECLINE : rd_fail(r, STAX_E_SYNTAX, tok, n - 1, "unterminated start tag");
            if (tok[i] == '>') {
                i++;
                break;
            }
            if (tok[i] == '/') {
                if (i + 1 < n && tok[i + 1] == '>') {
                    t->flags = STAX_EVF_EMPTY;
                    i += 2;
                    break;
                }
                return plain ? RD_TAG_DECLINE : rd_fail(r, STAX_E_SYNTAX, tok, i, "'/' must be followed by '>' in a start tag");
            }
            if (ws == i) return plain ? RD_TAG_DECLINE : rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace is required before an attribute");
            an = rd_tag_name(r, tok, n, i, "attribute", mode);
        }
        /* the name */
        size_t at = i;
        if (!an) return plain ? RD_TAG_DECLINE : r->doc.status;
        if (limit && i + an >= n) return 0;
        if (plain ? !left : (limit ? given++ : count) >= max_attrs)
            return plain ? RD_TAG_DECLINE
                         : rd_fail(r, STAX_E_LIMIT_ATTRS, tok, 0, "more than max_attrs (%u) attributes", (unsigned)r->cfg.opt.max_attrs);
        if (full && first + count >= r->cfg.attr_cap) return rd_internal(r, "attribute table full");
        stax_str name = {tok + at, an};
        /* '=' */
        i += an;
        if ((!plain && i >= n) || tok[i] != '=') { /* (a PLAIN name ends before n) */
            i = rd_tag_space(tok, n, i, t, mode);
            if (i >= n || tok[i] != '=')
                return plain ? RD_TAG_DECLINE : limit ? 0
                       : rd_fail(r, STAX_E_SYNTAX, tok, i < n ? i : n - 1, "attribute '%.*s' needs '=' and a value",
                                 stax__clip(an, 64), name.ptr);
        }
        i++;
        if (i < n && tok[i] != '"' && tok[i] != '\'') i = rd_tag_space(tok, n, i, t, mode);
        /* the value */
        size_t q = i, look = 0;
        stax_str v;
        int qr = rd_quoted_scan(tok, n, &i, &v, plain ? &look : NULL, &vscan);
        if (qr != STAX__QUOTED) {
            if (plain) return RD_TAG_DECLINE;
            if (limit) return 0;
            if (qr == STAX__NOT_QUOTED) return rd_fail(r, STAX_E_SYNTAX, tok, q < n ? q : n - 1, "attribute value must be quoted");
            return rd_fail(r, STAX_E_SYNTAX, tok, q, "unterminated attribute value");
        }
        unsigned af = 0;
        if (limit) { /* its characters, and where a reference is, the tag runs out */
            int bad = 0;
            if (memchr(v.ptr, '&', v.len) || stax__check_chars(v.ptr, v.len, &bad) != v.len) return 0;
        } else if (full) {
            int tokenized = rd_declared_type(r, t->el, name) != STAX__AT_CDATA;
            if (tag_bytes + an > r->cfg.opt.max_token)
                return rd_fail(r, STAX_E_LIMIT_TOKEN, tok, 0, STAX__MSG_ATTR_EXPANDED, r->cfg.opt.max_token);
            int rc = stax__rd_attr_value(r, tok, n, q + 1, i - 1, copy, tokenized, tag_bytes + an, &v);
            if (rc) return rc;
            tag_bytes += an + v.len;
        } else if (look) { /* PLAIN: a byte to look at; the value holds no '<' (rd_quoted_scan) */
            size_t c = (unsigned char)tok[look] >= 0x80 ? rd_plain_utf8(v.ptr, look - (q + 1), v.len, n - (q + 1)) : SIZE_MAX;
            if (c != SIZE_MAX) {
                t->cont += c; /* UTF-8 alone: the value is as it stands */
                t->pending |= 2;
            } else {
                af = RD_ATTRF_PENDING; /* to decode or check once the tag is known (rd_fx_pending) */
                t->pending |= 1;
            }
        }
        /* given twice? The plain and limit modes keep the names seen as a
         * filter (rd_name_bit); the general parser, kept small for the
         * bare-metal builds, compares with every name before. */
        uint64_t bit = full ? 0 : rd_name_bit(name.ptr, an);
        if (full || (seen & bit)) {
            if (limit) {
                if (rd_given_before(tok, 1 + nl, at, an)) return 0;
            } else {
                for (const stax_attr *b = a0; b < a; b++)
                    if (b->name.len == an && memcmp(b->name.ptr, name.ptr, an) == 0)
                        return plain ? RD_TAG_DECLINE
                                     : rd_fail(r, STAX_E_DUP_ATTR, tok, at, "attribute '%.*s' given twice", stax__clip(an, 64), name.ptr);
            }
        }
        seen |= bit;
        if (limit) continue;
        if (full) {
            if (r->buf.attr_at) r->buf.attr_at[first + count] = at;
            if (copy) {
                int rc = rd_tag_copy(r, &name);
                if (rc) return rc;
            }
        }
        a->name = name;
        a->value = v;
        a->flags = af;
        a++;
        if (plain) left--;
        else count++;
    }
    t->i = i;
    if (plain) count = max_attrs - left;
    t->count = count;
    r->doc.attr_len = first + count;
    return 0;
}

/* ================================================================ text
 * CharData, with the references and line ends in it: the block scan
 * (r->cfg.text_run) passes over plain bytes, UTF-8 included (checked by the
 * caller over what it passed, t->hi), and stops at '<', '&', ']', CR and
 * controls; rd_text_marks goes on from such a stop. The fast path reads a
 * text with it in RD_TAG_PLAIN, the general parser (stax__rd_text) in
 * RD_TAG_FULL, which takes what plain declines: entity references and
 * errors it reports, a CR in entity text, the last byte a CR. */

/* The character of the reference at p[i] ('&') if it is a character
 * reference or one of the five predefined entities, well formed, and a Char;
 * its end in *end. -1 otherwise (the general way decides what it is). */
RD_HOT_INLINE long rd_quick_ref(const char *p, size_t n, size_t i, size_t *end) {
#ifdef STAX__SMALL
    (void)p, (void)n, (void)i, (void)end;
    return -1; /* a build for size leaves every reference to the general parser's (rd_reference) */
#else
    const char *q = p + i + 1;
    size_t left = n - i - 1, pl;
    long c = stax__predefined_at(q, left, &pl);
    if (c >= 0) return *end = i + 1 + pl, c;
    if (left < 3 || q[0] != '#') return -1;
    const char *semi = (const char *)memchr(q, ';', left < 12 ? left : 12);
    if (!semi) return -1;
    long v = stax__charref_value(p + i, (size_t)(semi - (p + i)) + 1);
    *end = (size_t)(semi - p) + 1;
    return v;
#endif
}

/* A text decoded into the arena: its free part (o), once d0 is set (NULL:
 * nothing decoded yet), and the first byte of the text not written yet. */
typedef struct rd_tdec {
    stax__out o;
    char *d0;
    size_t run;
} rd_tdec;

/* The text at p whose scan stopped at p[end], no '<', end < lim (lim: the
 * text's bound), read on: "]]>" and each stop the mode does not take end it,
 * a ']' of no "]]>" is text, character and predefined references (in
 * content) are decoded and line ends (CR LF, CR; not in entity text, whose
 * CRs came from references) made LF into d (set up at the first, unless
 * the caller did). Returns the stop: '<' or lim, where the text ends; or
 * the ']' of "]]>"; or a byte the mode does not take: an entity reference
 * or one to report, and a control (CR in entity text). PLAIN returns
 * SIZE_MAX for every stop but a '<' (any other reference, CR or control, a
 * CR as the last byte, no '<' within lim are declined). t folds
 * what the scan passed (line feeds, white space, bytes >= 0x80); PLAIN
 * counts a CR's line there too. In PLAIN a stop the arena has no room to
 * start for (NULL) is declined. */
RD_FOR_EACH_MODE size_t rd_text_marks_in(stax_reader *r, const char *p, size_t end, size_t lim, stax__tscan *t, rd_tdec *d,
                                         int mode) {
    const int plain = mode == RD_TAG_PLAIN;
    const size_t stop = plain ? SIZE_MAX : 0; /* PLAIN: every stop but the text's end is declined */
    const stax__text_run_fn scan = r->cfg.text_run;
    do { /* (p[end] is no '<', end < lim) */
        if (p[end] == ']') { /* "]]>" is an error; any other ']' is text */
            if (end + 2 < lim && p[end + 1] == ']' && p[end + 2] == '>') return stop | end;
            t->nonws = 1;
            end = scan(p, end + 1, lim, t);
            continue;
        }
        size_t re;
        long cp;
        int eol = 0;
        if (p[end] == '&') {
            cp = !plain || r->doc.part == DOC_CONTENT ? rd_quick_ref(p, lim, end, &re) : -1;
            t->nonws |= !(cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r');
        } else if (STAX_UNLIKELY(p[end] == '\r') && (plain || !r->doc.n_ent)) { /* CR LF or CR: a line end, LF in the text */
            if (plain && (r->doc.part != DOC_CONTENT || end + 1 >= lim)) return stop | end; /* the last byte: is an LF next? */
            re = end + 1 + ((plain || end + 1 < lim) && p[end + 1] == '\n'); /* (plain: end + 1 < lim) */
            cp = '\n';
            eol = 1;
        } else {
            return stop | end; /* a control, anything to report */
        }
        if (cp < 0) return stop | end; /* an entity, anything to report */
        if (!d->d0) { /* the text goes to the arena's free part (none before its first use: d0 would be NULL) */
            if (plain && !r->buf.arena.ptr) return stop | end;
            d->o = stax__buf_out(&r->buf.arena);
            d->d0 = d->o.p;
        }
        stax__out_put(&d->o, p + d->run, end - d->run);
        if (cp < 0x80) { /* a line end, a predefined entity: one byte (stax__out_cp written out: rd_fx_value) */
            stax__out_byte(&d->o, (char)cp);
        } else {
            char u[4];
            stax__out_put(&d->o, u, (size_t)stax__utf8_encode((uint32_t)cp, u));
        }
        if (plain && STAX_UNLIKELY(eol)) { /* the scan did not see it: the line is counted here */
            t->lfs++;
            t->line_at = re;
            t->cont = 0;
        }
        d->run = re;
        end = scan(p, re, lim, t);
    } while (end < lim && p[end] != '<');
    return plain && end >= lim ? SIZE_MAX : end;
}

/* A build for size has one copy, the mode a value (reader_tokens.c). */
#ifdef STAX__SMALL
STAXINT size_t stax__rd_text_marks(stax_reader *r, const char *p, size_t end, size_t lim, stax__tscan *t, rd_tdec *d,
                                   int mode);
#define rd_text_marks stax__rd_text_marks
#else
#define rd_text_marks rd_text_marks_in
#endif

/* ================================================================ end tags
 * ETag: '</' Name S? '>', whose name is the open element's. The grammar
 * reads it against the element stack's top: the name's bytes compared with
 * the stack's, then what follows them. */

/* Where the first ':' of the name s[0, nl) is, or nl; 16 bytes readable
 * from s when can16. */
RD_HOT_INLINE size_t rd_colon(const char *s, size_t nl, int can16) {
#ifdef STAX__V16
    if (can16 && nl <= 16) {
        stax__m16 m = stax__v16_mask(stax__v16_eq(stax__v16_load(s), stax__v16_set(':'))) & stax__m16_low(nl);
        return m ? stax__m16_first(m) : nl;
    }
#else
    (void)can16;
#endif
    const char *c = (const char *)memchr(s, ':', nl);
    return c ? (size_t)(c - s) : nl;
}

/* The end tag at tok[0, n) that rd_etag refused, in RD_TAG_FULL: its first
 * error reported (reader_tokens.c). Returns 0. */
STAXINT size_t stax__rd_etag_error(stax_reader *r, const char *tok, size_t n);

/* The end tag at tok, '</' at tok[0] (RD_TAG_FULL: the token, its '>' at
 * tok[n - 1]; RD_TAG_PLAIN: n bytes readable, the tag within them or not).
 * Returns its length and *top (the open element's stack entry: its name at
 * stack.ptr + (top >> 1), bit 0 set when the name holds bytes >= 0x80), or
 * 0: PLAIN declines anything but </name> of the open element; FULL reports
 * the error (white space before '>' is the one thing it takes beside). */
RD_FOR_EACH_MODE size_t rd_etag(stax_reader *r, const char *tok, size_t n, int mode, size_t *top) {
    const int plain = mode == RD_TAG_PLAIN;
    uint32_t depth = r->doc.depth;
    size_t t, off, ol, i;
    const char *open;
    if (!depth) goto refused;
    t = r->buf.stack_off[depth - 1], off = t >> 1, ol = r->buf.stack.len - off;
    if (ol + 3 > n || (plain && tok[ol + 2] != '>')) goto refused;
    open = r->buf.stack.ptr + off;
    /* the name against the open element's: most names take one 16-byte
     * compare where 16 bytes may be read from both (a helper returning
     * whether they match cost two instructions a tag: its result was made
     * a value and tested again) */
#ifdef STAX__V16
    if (plain && ol <= 16 && n >= 18 && r->buf.stack.cap - off >= 16) {
        stax__m16 want = stax__m16_low(ol);
        if ((stax__v16_mask(stax__v16_eq(stax__v16_load(tok + 2), stax__v16_load(open))) & want) != want) goto refused;
    } else
#endif
        if (memcmp(tok + 2, open, ol) != 0) goto refused;
    i = ol + 2;
    if (!plain) { /* the name ends there: white space, then '>' */
        if (tok[i] != '>') {
            size_t j = rd_skip_ws(tok, n, i);
            if (j == i) goto refused;
            i = j;
        }
        if (i != n - 1 || (r->doc.n_ent && depth <= r->buf.ents[r->doc.n_ent - 1].depth)) goto refused;
    }
    *top = t;
    return i + 1;
refused:
    return plain ? 0 : stax__rd_etag_error(r, tok, n);
}

/* The default namespace in scope (kept by the bindings where the fast path
 * reads namespaces: not in builds for size). */
static inline stax_str rd_ns_default(const stax_reader *r) {
#ifdef STAX__SMALL
    stax_str none = {"", 0}, uri;
    stax__ns_lookup(&r->buf.ns, none, &uri);
    return uri;
#else
    return stax__ns_default(&r->buf.ns);
#endif
}

/* The element an end tag matched ended (top: its stack entry, as rd_etag
 * gives it; ol its name's length): where namespaces are on, the end tag's
 * names (name[0, ol) in the event; 16 bytes readable from it when can16) in *q: the start
 * tag's names were right, so these are; then the bindings its start tag
 * made dropped, and the element popped. */
RD_HOT_INLINE void rd_etag_end(stax_reader *r, size_t top, size_t ol, stax_qname *q, const char *name, int can16) {
    if (q) {
        uint32_t depth = r->doc.depth;
        size_t k = rd_colon(name, ol, can16);
        q->prefix.ptr = q->local.ptr = name;
        q->prefix.len = 0;
        q->local.len = ol;
        if (STAX_UNLIKELY(k != ol)) {
            q->prefix.len = k;
            q->local.ptr = name + k + 1;
            q->local.len = ol - k - 1;
            stax__ns_lookup(&r->buf.ns, q->prefix, &q->uri);
        } else {
            q->uri = rd_ns_default(r);
        }
#ifdef STAX__SMALL
        stax__ns_pop(&r->buf.ns, depth);
#else
        if (STAX_UNLIKELY(r->buf.ns.top >= depth)) stax__ns_pop(&r->buf.ns, depth);
#endif
    }
    r->buf.stack.len = top >> 1;
    if (--r->doc.depth == 0) r->doc.part = rd_after_root(r);
}

#endif /* STAX_READER_TAG_H */
