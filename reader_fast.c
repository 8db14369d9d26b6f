/* The reader's fast path: plain tokens read in one pass from the window,
 * driven by the block scanners of scan.c. */
#include "reader_tag.h"
#ifndef STAX_NO_FAST_PATH

/* ================================================================ the fast path
 * Most tokens of most documents are plain: text without entity references
 * or controls; tags with ASCII names and values of printable ASCII; end
 * tags that match. Those that lie whole in a UTF-8 window are read here in
 * one pass: the scan that finds where a token ends also tells whether it is
 * plain, whether a text is white space, and where its line feeds are, so the
 * position comes without reading the bytes again. Anything else (and any
 * error) goes the general way (framing, then the token parsers), which gives
 * the same events. Line ends CR LF and CR are normalized to LF here, in a
 * text (into the arena, as its character and predefined references are) or
 * in a value to normalize, so a CR LF document is read here as its LF twin
 * is, but for the copy. */

/* ================================================================ the loop's state
 * The loop keeps the reader's hot state in a local context, which the
 * compiler holds in registers, and writes it back (rd_fx_save) only before a
 * call into the general code and at the end. */
typedef struct rd_fx {
    const char *p;            /* the next token */
    const char *end;          /* the window's end */
    uint64_t off, line, col;  /* the position of p */
    stax_event *ev;           /* the next event */
    stax_event *ev_last;      /* no token starts past it: each may give two events */
    stax_qname *q;            /* the next event's names (ev_ns) in RD_FX_NS, else NULL */
} rd_fx;

/* The loop's modes: the plain read (no namespaces, no ATTLIST in the DTD);
 * the road every other document takes, the same grammar with those steps
 * in: RD_FX_ROAD without namespaces (the DTD declares attributes),
 * RD_FX_NS with them (and with or without ATTLISTs). Each is compiled
 * apart (rd_fx_loop), so that no mode is tested in a loop: a road shared
 * by both would test at every event whether names are wanted. */
enum { RD_FX_PLAIN, RD_FX_ROAD, RD_FX_NS };

/* v, as a value the optimizer cannot see into. GCC's SLP vectorizer packed
 * the position's three adjacent loads in rd_fx_load into vector registers and
 * kept x.off and x.line as one, which the loop spilled and copied at every
 * token; an empty asm on
 * each load keeps them three scalars in registers. Only where the pointers
 * are 64-bit: a 64-bit register operand is a pair on 32-bit targets. */
static inline uint64_t rd_fx_scalar(uint64_t v) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__aarch64__))
    __asm__("" : "+r"(v));
#endif
    return v;
}

/* stax__utf8_units over bytes [u0, u1) of the window in: by words where
 * the window has 8 bytes before u1, the last word loaded ending at u1 and
 * the bytes before u0 in it shifted out (an event is a few bytes after the
 * one before: most spans take one word). */
static inline uint64_t rd_fx_units(const char *in, size_t u0, size_t u1, int wide) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (u1 >= 8 && u1 > u0) {
        size_t cont = 0, astral = 0, i = u0;
        uint64_t x;
        for (; u1 - i > 8; i += 8) {
            memcpy(&x, in + i, 8);
            cont += stax__count_hi(stax__cont_bytes(x));
            astral += stax__count_hi(stax__lead4_bytes(x));
        }
        memcpy(&x, in + u1 - 8, 8);
        x >>= 8 * (8 - (u1 - i)); /* (1 to 8 bytes left: a shift of 0 to 56) */
        cont += stax__count_hi(stax__cont_bytes(x));
        astral += stax__count_hi(stax__lead4_bytes(x));
        return stax__units_of(u1 - u0, cont, astral, wide);
    }
#endif
    return stax__utf8_units(in + u0, u1 - u0, wide);
}

/* In a transcoded window (UTF-16, an 8-bit encoding) the loop counts
 * offsets as in UTF-8, in the window's bytes (fx_base + the byte); this
 * turns those it wrote since the last call, and the position (saved: that
 * of in_pos), into input offsets, going on from the last byte it turned
 * (the events are in the window's order). A stretch of ASCII since that
 * byte is a unit a byte; any other is counted. Called where the loop ends
 * and where its general code may report an error at the position
 * (rd_fx_pending): the loop itself is the same for every encoding (a call
 * in rd_fx_save, made at every save, would take the loop's registers). */
RD_NOINLINE void rd_fx_transcoded(stax_reader *r, stax_event *end) {
    const int wide = rd_wide(r);
    const char *in = r->doc.in;
    size_t at = r->doc.fx_u, ascii = at, last = r->doc.in_pos; /* in[at, ascii) is ASCII */
    uint64_t real = r->doc.fx_real;
    if (STAX_UNLIKELY(last < at || last > r->doc.in_len)) { /* never: the position is in the window, ahead */
        STAX__INTERNAL_HIT();
        last = at;
    }
    for (stax_event *e = r->buf.events + r->doc.fx_ev;; e++) {
        size_t u = e < end ? (size_t)(e->pos.offset - r->doc.fx_base) : last;
        if (STAX_UNLIKELY(u < at || u > last)) { /* never: events are in the window's order */
            STAX__INTERNAL_HIT();
            u = at;
        }
        if (u > ascii) /* (up to the last position: a call reads no further) */
            ascii += stax__ascii_run((const unsigned char *)in + ascii, last - ascii);
        if (u <= ascii) { /* ASCII since the last: a unit a byte */
            real += (uint64_t)(u - at) << (wide & 3);
        } else {
            real += rd_fx_units(in, at, u, wide);
            ascii = u;
        }
        at = u;
        if (e == end) break;
        e->pos.offset = real;
    }
    r->doc.fx_u = at;
    r->doc.fx_real = real;
    r->doc.pos.offset = real;
    r->doc.fx_ev = (size_t)(end - r->buf.events);
}

/* Where rd_fx_transcoded starts: the position, in input bytes and in the
 * window (fx_base: their difference, modulo 2^64 as the window may be the
 * longer). */
RD_NOINLINE void rd_fx_transcoding(stax_reader *r) {
    r->doc.fx_base = r->doc.pos.offset - r->doc.in_pos;
    r->doc.fx_u = r->doc.in_pos;
    r->doc.fx_real = r->doc.pos.offset;
    r->doc.fx_ev = r->buf.batch.count;
}

static inline void rd_fx_save(stax_reader *r, const rd_fx *x) {
    r->doc.in_pos = (size_t)(x->p - r->doc.in);
    r->doc.pos.offset = x->off;
    r->doc.pos.line = x->line;
    r->doc.pos.column = x->col;
    r->buf.batch.count = (size_t)(x->ev - r->buf.events);
}

static inline void rd_fx_load(const stax_reader *r, rd_fx *x, int mode) {
    x->q = mode == RD_FX_NS ? r->buf.ev_ns + r->buf.batch.count : NULL;
    x->p = r->doc.in + r->doc.in_pos;
    x->end = r->doc.in + r->doc.in_len;
    x->off = rd_fx_scalar(r->doc.pos.offset);
    x->line = rd_fx_scalar(r->doc.pos.line);
    x->col = rd_fx_scalar(r->doc.pos.column);
    x->ev = r->buf.events + r->buf.batch.count;
}

/* An event at the current position, with the fields every type has; the
 * caller writes the string its type defines (name or text: stax.h's
 * STAX__EV_NAMED and STAX__EV_TEXTED), the accessors ignore the other.
 * Always inlined: the start tag's grammar made the loop large enough for the
 * compiler to call it, which cost more than the code it saved. The first
 * eight bytes (type, flags, reserved, attr_count) are one store where they
 * make one little-endian word: the compiler kept four (and a text's flags a
 * fifth, after the event was made). A start tag writes its flags and count
 * after, not here: here they would be one more value live in the loop. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RD_EV_HEAD_WORD 1
typedef char rd_ev_head_fits[offsetof(stax_event, flags) == 1 && offsetof(stax_event, reserved) == 2 &&
                                     offsetof(stax_event, attr_count) == 4 ? 1 : -1];
#endif
RD_HOT_INLINE stax_event *rd_fx_emit(rd_fx *x, int type, unsigned flags, uint32_t depth, int mode) {
    stax_event *e = x->ev++;
#ifdef RD_EV_HEAD_WORD
    uint64_t head = (uint64_t)(unsigned)type | (uint64_t)flags << 8; /* attr_count 0 */
    memcpy(e, &head, sizeof head);
#else
    e->type = (uint8_t)type;
    e->flags = (uint8_t)flags;
    e->reserved = 0;
    e->attr_count = 0;
#endif
    e->depth = depth;
    e->pos.offset = x->off;
    e->pos.line = x->line;
    e->pos.column = x->col;
    if (mode == RD_FX_NS) { /* names: a start or end tag's are written in place, any other's are none */
        stax_qname *q = x->q++;
        if (type != STAX_EV_START && type != STAX_EV_END) {
            q->prefix.ptr = q->local.ptr = q->uri.ptr = NULL;
            q->prefix.len = q->local.len = q->uri.len = 0;
        }
    }
    return e;
}

/* The position after n bytes that held lfs line feeds (the last ending at
 * line_at) and cont continuation bytes after it. */
RD_HOT_INLINE void rd_fx_advance(rd_fx *x, size_t n, size_t lfs, size_t line_at, size_t cont) {
    x->off += n;
    if (lfs) {
        x->line += lfs;
        x->col = 1 + (n - line_at) - cont;
    } else {
        x->col += n - cont;
    }
    x->p += n;
}

/* ================================================================ text */

/* A text, as the caller takes it: where it ends (its '<'), its line feeds
 * (the last ending at line_at) and continuation bytes after it, whether it
 * is other than white space, and its string (in the window, or decoded). */
typedef struct rd_fx_txt {
    size_t end, lfs, line_at, cont, len;
    unsigned nonws;
    const char *ptr;
} rd_fx_txt;

/* The rest of the text at p whose scan (t, so far) stopped at p[end] on a
 * byte other than '<' (lim and avail as rd_fx_text_run's): the text's one
 * grammar (rd_text_marks) in its plain mode, which decodes character and
 * predefined references and normalizes line ends into the arena as the scan
 * goes on, and stops at anything else. Its own function so that this state
 * is made only for such a text (set up before every long text's first scan,
 * it cost each ten instructions); inline in the loop's text (out of line,
 * the loop's state would be saved and loaded around it). Of the loop's
 * state it takes p alone: where the arena's free part cannot hold the
 * decoded text, the general way takes the text (and makes the room, or ends
 * the batch, as stax__rd_room decides), and nothing written is kept. 1: *s
 * filled; 0: the general way takes it. */
RD_HOT_INLINE int rd_fx_text_marks(stax_reader *r, const char *p, size_t end, size_t lim, size_t avail,
                                   stax__tscan *t, rd_fx_txt *s) {
    rd_tdec d = {{NULL, NULL, 0}, NULL, 0};
    end = rd_text_marks(r, p, end, lim, t, &d, RD_TAG_PLAIN);
    if (end == SIZE_MAX) return 0; /* a stop to report, or no '<' within max_text: cut, or the window ends */
    if (t->hi && stax__scan_utf8(r->cfg.simd, p, end, avail) != end) return 0; /* the general way reports it */
    s->ptr = p;
    s->len = end;
    if (d.d0) { /* (references are decoded in content only, where the text is kept) */
        stax__out_put(&d.o, p + d.run, end - d.run);
        if (d.o.over) return 0; /* the arena is short: the general way makes room (or ends the batch) */
        stax__buf_commit(&r->buf.arena, &d.o);
        s->ptr = d.d0;
        s->len = (size_t)(d.o.p - d.d0);
    }
    s->end = end;
    s->lfs = t->lfs;
    s->line_at = t->line_at;
    s->cont = t->cont;
    s->nonws = t->nonws;
    return 1;
}

/* How far a text of the avail bytes left in the window is scanned: a byte
 * past max_text, or the window's end. */
static inline size_t rd_fx_lim(const stax_reader *r, size_t avail) {
    return avail < r->cfg.opt.max_text + 1 ? avail : r->cfg.opt.max_text + 1;
}

/* A text at q (avail bytes from q in the window; lim: rd_fx_lim's) scanned by blocks to its first stop (*t, *end):
 * 1 and *s filled when the stop is its '<' (its UTF-8 then checked by
 * blocks when it has bytes >= 0x80); 2 when it is a mark to go on from
 * (rd_fx_text_marks); 0 otherwise (the general way takes the text). The
 * scan's state, whose address the kernel takes, is the caller's: made in
 * memory only for such a text. */
RD_HOT_INLINE int rd_fx_text_first(const stax_reader *r, const char *q, size_t lim, size_t avail, rd_fx_txt *s,
                                   stax__tscan *t, size_t *end) {
    const stax__tscan none = {0, 0, 0, 0, 0}; /* (no compound literal: the single file is C++ too) */
    *t = none;
    size_t e = *end = r->cfg.text_run(q, 0, lim, t);
    if (e >= lim) return 0; /* no '<' within max_text: cut, or the window ends */
    if (q[e] != '<') return 2;
    if (t->hi && stax__scan_utf8(r->cfg.simd, q, e, avail) != e) return 0; /* the general way reports it */
    s->ptr = q;
    s->len = s->end = e;
    s->lfs = t->lfs;
    s->line_at = t->line_at;
    s->cont = t->cont;
    s->nonws = t->nonws;
    return 1;
}

/* A text the first 16 bytes do not settle: its first stop
 * (rd_fx_text_first), most often its '<'; anything else goes on in
 * rd_fx_text_marks. 1: *s filled; 0: the general way takes it. */
RD_HOT_INLINE int rd_fx_text_run(stax_reader *r, rd_fx *x, size_t lim, size_t avail, rd_fx_txt *s) {
    stax__tscan t;
    size_t end;
    int got = rd_fx_text_first(r, x->p, lim, avail, s, &t, &end);
    return got == 2 ? rd_fx_text_marks(r, x->p, end, lim, avail, &t, s) : got;
}

#ifdef STAX__V16
/* rd_fx_text_marks for a text after a start tag (rd_fx_elem): out of line,
 * where a second inline copy would take the loop's registers. */
RD_NOINLINE int rd_fx_elem_marks(stax_reader *r, const char *q, size_t end, size_t lim, size_t avail, stax__tscan *t,
                                 rd_fx_txt *s) {
    return rd_fx_text_marks(r, q, end, lim, avail, t, s);
}

/* A text that ends within the 16 bytes at p (lim >= 16 of them readable)
 * before any byte to look at (a reference, a control, ']', a byte >= 0x80):
 * *s filled, 1. 0: the text is longer or holds such a byte. */
RD_HOT_INLINE int rd_fx_short(const char *p, rd_fx_txt *s) {
    stax__v16 v = stax__v16_load(p);
    stax__v16 is_lf = stax__v16_eq(v, stax__v16_set(10)), is_tl = stax__v16_or(is_lf, stax__v16_eq(v, stax__v16_set(9)));
    stax__m16 mlt = stax__v16_mask(stax__v16_eq(v, stax__v16_set('<')));
    stax__m16 mall = stax__v16_mask(stax__v16_or(stax__v16_andnot(is_tl, stax__v16_low_or_high(v)), /* controls, >= 0x80 */
                                                 stax__v16_or(stax__v16_eq(v, stax__v16_set('&')),
                                                              stax__v16_eq(v, stax__v16_set(']')))));
    stax__m16 below = (stax__m16)((mlt & (0 - mlt)) - 1);
    if (!mlt || (mall & below)) return 0;
    stax__m16 mws = stax__v16_mask(stax__v16_or(is_tl, stax__v16_eq(v, stax__v16_set(' '))));
    stax__m16 mlf = stax__v16_mask(is_lf) & below;
    s->end = s->len = stax__m16_first(mlt);
    s->ptr = p;
    s->nonws = (~mws & below) != 0;
    s->lfs = s->line_at = s->cont = 0;
    if (mlf) {
        /* one line feed (an indentation's) is the common case: no count */
        s->lfs = mlf & (mlf - 1) ? stax__m16_count(mlf) : 1;
        s->line_at = stax__m16_last(mlf) + 1;
    }
    return 1;
}

/* An indentation at p (p[0] is LF; 16 bytes readable): the line feed, then
 * spaces up to a '<' within the 16 bytes. Its length, or 0 (rd_fx_short
 * takes it). Most texts between tags of an indented document are such: a
 * test a third the size of rd_fx_short's, and its line and white space
 * known without counting. */
RD_HOT_INLINE size_t rd_fx_indent(const char *p) {
    stax__m16 other = (stax__m16)~stax__v16_mask(stax__v16_eq(stax__v16_load(p), stax__v16_set(' '))) &
                      (stax__m16)~stax__m16_low(1) & stax__m16_low(16);
    if (!other) return 0;
    size_t k = stax__m16_first(other);
    return p[k] == '<' ? k : 0;
}

/* The indentation of k bytes at x->p (rd_fx_indent's): its event in
 * content, unless white space is skipped, and the position after it. */
RD_HOT_INLINE void rd_fx_put_indent(stax_reader *r, rd_fx *x, size_t k, int content, uint32_t depth, int mode) {
    if (content && !(r->cfg.opt.flags & STAX_READ_SKIP_WS)) {
        stax_event *e = rd_fx_emit(x, STAX_EV_TEXT, STAX_EVF_WHITESPACE, depth, mode);
        e->text.ptr = x->p;
        e->text.len = k;
    }
    x->off += k;
    x->line++;
    x->col = k; /* 1 + the k - 1 spaces */
    x->p += k;
}
#endif

/* A text in content, read (s): its event unless it is white space to skip,
 * and the position after it. (Only whole texts are skipped: the fast path
 * does not start while a text cut for length goes on, r->doc.text_cont.) */
RD_HOT_INLINE void rd_fx_put_text(stax_reader *r, rd_fx *x, const rd_fx_txt *s, uint32_t depth, int mode) {
    if (s->nonws || !(r->cfg.opt.flags & STAX_READ_SKIP_WS)) {
        stax_event *e = rd_fx_emit(x, STAX_EV_TEXT, s->nonws ? 0 : STAX_EVF_WHITESPACE, depth, mode);
        e->text.ptr = s->ptr;
        e->text.len = s->len;
    }
    rd_fx_advance(x, s->end, s->lfs, s->line_at, s->cont);
}

/* A text complete in the window. One scan finds its end, its line feeds and
 * continuation bytes and whether it is white space; text with no reference
 * (UTF-8 checked by blocks when it has bytes >= 0x80) is an event pointing
 * into the window; character and predefined references are decoded and
 * line ends normalized into the arena (rd_fx_text_run). Most texts end
 * within 16 bytes: those are settled by one block, here. 1: read; 0: the
 * general way takes it (an entity reference, a control, anything to
 * report); -1: an error. */
RD_FOR_EACH_MODE int rd_fx_text(stax_reader *r, rd_fx *x, int mode) {
    const char *p = x->p;
    size_t avail = (size_t)(x->end - p), lim = rd_fx_lim(r, avail);
    rd_fx_txt s;
#ifdef STAX__V16
    if (lim >= 16) {
        size_t k;
        const char *q = p;
#if defined(__GNUC__) || defined(__clang__)
        __asm__("" : "+r"(q)); /* p[0] read again, not kept from the loop's '<' test (that would hold a register across the loop) */
#endif
        if (q[0] == '\n' && (k = rd_fx_indent(p)) != 0) { /* white space: one line feed, no byte >= 0x80 */
            rd_fx_put_indent(r, x, k, r->doc.part == DOC_CONTENT, r->doc.depth, mode);
            return 1;
        }
        if (rd_fx_short(p, &s)) goto found;
    }
#endif
    {
        int rc = rd_fx_text_run(r, x, lim, avail, &s);
        if (rc <= 0) return rc;
    }
#ifdef STAX__V16
found:
#endif
    if (r->doc.part != DOC_CONTENT) {
        if (s.nonws) return 0; /* text outside the root: an error */
        rd_fx_advance(x, s.end, s.lfs, s.line_at, s.cont);
    } else {
        rd_fx_put_text(r, x, &s, r->doc.depth, mode);
    }
    return 1;
}

/* ================================================================ namespaces
 * On the road with namespaces on, a start tag's names are resolved as the
 * tag is read: the bindings it declares pushed, its QNames split and looked
 * up (the default namespace is kept by the bindings, stax__ns_default),
 * each START and END event's names written beside it in ev_ns. Anything
 * the namespace rules refuse goes the general way (rd_ns_start,
 * reader_tokens.c), which reports it: the fast path only takes what is
 * right. */

/* The prefix and local part of the ASCII name[0, nl) whose first colon is
 * name[k]: 0, or 1 where it is no QName (stax__qname_split's rule). */
static int rd_fx_split(const char *name, size_t nl, size_t k, stax_qname *q) {
    if (k == 0 || k + 1 >= nl || memchr(name + k + 1, ':', nl - k - 1) ||
        !(stax__class[(unsigned char)name[k + 1]] & STAX__C_NSTART))
        return 1;
    q->prefix.ptr = name;
    q->prefix.len = k;
    q->local.ptr = name + k + 1;
    q->local.len = nl - k - 1;
    return 0;
}

/* The names of a prefixed element or attribute (colon at name[k]): 0, or 1
 * where it is no QName, its prefix is xmlns or unbound (the general way
 * reports it). */
RD_NOINLINE int rd_fx_prefixed(const stax_reader *r, const char *name, size_t nl, size_t k, stax_qname *q) {
    if (rd_fx_split(name, nl, k, q) || stax_str_eq(q->prefix, "xmlns")) return 1;
    return stax__ns_lookup(&r->buf.ns, q->prefix, &q->uri) != 0;
}

/* An element's names (name[0, nl), ASCII; 16 bytes readable from it when
 * can16): 0 and *q, or 1 (rd_fx_prefixed). */
RD_HOT_INLINE int rd_fx_qname(const stax_reader *r, const char *name, size_t nl, int can16, stax_qname *q) {
    size_t k = rd_colon(name, nl, can16);
    if (STAX_UNLIKELY(k != nl)) return rd_fx_prefixed(r, name, nl, k, q);
    q->prefix.ptr = q->local.ptr = name;
    q->prefix.len = 0;
    q->local.len = nl;
    q->uri = stax__ns_default(&r->buf.ns);
    return 0;
}

#ifdef STAX__V16 /* (rd_fx_elem's) */
/* q's names, for the same name at another place (an end tag's). */
static inline stax_qname rd_fx_qname_at(const stax_qname *q, const char *name) {
    stax_qname e = *q;
    e.local.ptr = name + (q->local.ptr - q->prefix.ptr);
    e.prefix.ptr = name;
    return e;
}
#endif

/* A start tag's namespaces, after its attributes were read (first: the
 * first of count; nl: the element name's length at p + 1; depth: the
 * element's): its declarations bound, its names and its attributes'
 * resolved (attr_ns). 0 and *q; 1: the general way takes the tag (its
 * bindings were dropped). can_grow: nothing points into the bindings'
 * strings (stax__ns_push). */
RD_NOINLINE int rd_fx_ns(stax_reader *r, const char *p, size_t first, size_t count, size_t nl, uint32_t depth, int can_grow,
                         stax_qname *q) {
    static const stax_str xmlns_uri = {STAX__XMLNS_NS, sizeof STAX__XMLNS_NS - 1};
    const stax_attr *a0 = r->buf.attrs + first;
    stax_qname *q0 = r->buf.attr_ns + first;
    size_t decls = 0;
    for (size_t j = 0; j < count; j++) {
        stax_str n = a0[j].name, pre = {"", 0}, v = a0[j].value;
        if (n.len < 5 || memcmp(n.ptr, "xmlns", 5) != 0) continue;
        if (n.len > 5) {
            if (n.ptr[5] != ':') continue;
            if (rd_fx_split(n.ptr, n.len, 5, &q0[j])) goto decline;
            pre = q0[j].local; /* (xml, rebound or not, xmlns and an empty URI: the general way's) */
            if (stax_str_eq(pre, "xml") || stax_str_eq(pre, "xmlns") || !v.len) goto decline;
        }
        if (++decls > r->cfg.opt.max_ns || stax_str_eq(v, STAX__XML_NS) || stax_str_eq(v, STAX__XMLNS_NS) ||
            stax__ns_push(&r->buf.ns, pre, v, depth, can_grow))
            goto decline;
    }
    if (rd_fx_qname(r, p + 1, nl, 0, q)) goto decline;
    for (size_t j = 0; j < count; j++) {
        stax_str n = a0[j].name;
        stax_qname *aq = &q0[j];
        size_t k = rd_colon(n.ptr, n.len, 0);
        if (k == n.len) {
            aq->prefix.ptr = aq->local.ptr = n.ptr;
            aq->prefix.len = 0;
            aq->local = n;
            if (stax_str_eq(n, "xmlns")) aq->uri = xmlns_uri;
            else aq->uri.ptr = "", aq->uri.len = 0;
            continue;
        }
        if (k == 5 && memcmp(n.ptr, "xmlns", 5) == 0) { /* a declaration: its names split above */
            aq->uri = xmlns_uri;
        } else if (rd_fx_prefixed(r, n.ptr, n.len, k, aq)) {
            goto decline;
        }
        for (const stax_qname *bq = q0; bq < aq; bq++)
            if (bq->prefix.len && stax_str_same(bq->local, aq->local) && stax_str_same(bq->uri, aq->uri))
                goto decline;
    }
    return 0;
decline:
    stax__ns_pop(&r->buf.ns, depth);
    return 1;
}

/* ================================================================ tags */

/* The UTF-8 continuation bytes of an attribute value s[0, n), or SIZE_MAX
 * when it holds a line end (LF or CR): 8 bytes a step, a word's LF and CR
 * bytes found as zero bytes of it XOR each, its continuation bytes
 * (10xxxxxx) as bit 7 set and bit 6 clear (a byte at a time in builds for
 * size, where the 64-bit constants cost more code than they save). */
static inline size_t rd_fx_cont(const char *s, size_t n) {
    size_t cont = 0, i = 0;
#ifndef STAX__SMALL
    const uint64_t lfs = 0x0A0A0A0A0A0A0A0AULL, crs = 0x0D0D0D0D0D0D0D0DULL;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if (stax__zero_bytes(x ^ lfs) | stax__zero_bytes(x ^ crs)) return SIZE_MAX;
        cont += stax__count_hi(stax__cont_bytes(x));
    }
#endif
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n' || c == '\r') return SIZE_MAX;
        cont += (c & 0xC0) == 0x80;
    }
    return cont;
}

/* A value the plain grammar marked (its closing quote at v[len], room
 * bytes readable from v), when all it holds to look at is simple:
 * character and predefined references (rd_quick_ref), TAB LF CR (each a
 * space; CR LF one, as the line end it is) and 2- and 3-byte UTF-8
 * (rd_utf8_run_cont). Such a value is decoded into the arena (it never
 * grows: the tag's room check covers it; one with UTF-8 alone the grammar
 * kept, rd_plain_utf8): *out set, *cont its continuation bytes (SIZE_MAX
 * when it holds a line end: the tag is counted again), 1. 0: anything
 * else (an entity reference, a control, '<', a 4-byte or bad character):
 * nothing is kept, and stax__rd_attr_value takes the value, errors and
 * all. The general function gives the same value: it is ten times the
 * instructions, for what one link with "&amp;" in its query holds. */
static int rd_fx_value(stax_reader *r, const char *v, size_t len, size_t room, stax_str *out, size_t *cont) {
#ifdef STAX__SMALL
    (void)r, (void)v, (void)len, (void)room, (void)out, (void)cont;
    return 0; /* a build for size leaves every marked value to the general function (344 bytes on the M4) */
#else
    /* the next byte to look at: the grammar's block scan, which stops at
     * the closing quote v[len] at the latest (room bytes from v readable) */
    const rd_vscan k = rd_vscan_init(0);
    const char q = v[len];
    stax__out o = stax__buf_out(&r->buf.arena);
    char *d0 = o.p;
    size_t i = rd_scan_value(v, room, q, &k), run = 0, hi = 0;
    int eol = 0;
    while (i < len) {
        unsigned char c = (unsigned char)v[i];
        size_t re;
        long cp = ' ';
        if (c >= 0x80) {
            size_t e = rd_utf8_run_cont(v, len, i, &hi);
            if (e == i) return 0;
            i = e + rd_scan_value(v + e, room - e, q, &k);
            continue;
        }
        if (c == '&') {
            cp = rd_quick_ref(v, len, i, &re);
            if (cp < 0) return 0;
        } else if (c == '\t') {
            re = i + 1;
        } else if (c == '\n' || c == '\r') {
            re = i + 1 + (c == '\r' && i + 1 < len && v[i + 1] == '\n');
            eol = 1;
        } else {
            return 0; /* '<' or a control: reported there */
        }
        stax__out_put(&o, v + run, i - run);
        if (cp < 0x80) { /* stax__out_cp written out, as in rd_fx_text_marks: its call here takes a register more */
            stax__out_byte(&o, (char)cp);
        } else {
            char u[4];
            stax__out_put(&o, u, (size_t)stax__utf8_encode((uint32_t)cp, u));
        }
        run = re;
        i = re + rd_scan_value(v + re, room - re, q, &k);
    }
    *cont = eol ? SIZE_MAX : hi;
    stax__out_put(&o, v + run, len - run);
    if (o.over) return 0;
    stax__buf_commit(&r->buf.arena, &o);
    out->ptr = d0;
    out->len = (size_t)(o.p - d0);
    return 1;
#endif
}

/* The values of a start tag that its plain grammar marked to look at
 * (references, white space other than SP, UTF-8 it did not keep: beside
 * those, 4-byte or bad), normalized in order by stax__rd_attr_value after
 * rd_fx_save. Out of the loop, and given only values (most tags have no
 * such value, and an address of the loop's state would keep it out of
 * registers). Returns the tag's continuation bytes after its last line
 * feed (line_at: cont, those of the values the grammar kept, and those of
 * the values normalized here), or one of: */
#define RD_FX_RECOUNT SIZE_MAX         /* a value holds a line feed: count the tag again */
#define RD_FX_DECLINE (SIZE_MAX - 1)   /* the general way takes it (the caller rolls back) */
#define RD_FX_ERROR (SIZE_MAX - 2)     /* an error */
RD_NOINLINE size_t rd_fx_pending(stax_reader *r, const char *p, size_t n, size_t line_at, stax_attr *a0, stax_attr *end,
                             size_t nl, size_t cont) {
    if (rd_fx_transcoded_on(r)) rd_fx_transcoded(r, r->buf.events + r->buf.batch.count);
    uint64_t expanded0 = r->doc.meter.expanded; /* (the position in input bytes, above: its errors') */
    int room = stax__rd_room(r, n);
    if (room) return room < 0 ? RD_FX_ERROR : RD_FX_DECLINE;
    r->doc.tok_pos = r->doc.pos;
    size_t max = r->cfg.opt.max_token, tag_bytes = nl; /* the tag's budget, as the general way counts it */
    for (stax_attr *b = a0; b < end; b++) {
        size_t an = b->name.len;
        if (!(b->flags & RD_ATTRF_PENDING)) {
            if (tag_bytes + an + b->value.len > max) goto decline; /* after an expansion: the general way reports it */
            tag_bytes += an + b->value.len;
            continue;
        }
        if (tag_bytes + an > max) goto decline;
        size_t vs = (size_t)(b->value.ptr - p), c;
        b->flags = 0;
        size_t left = (size_t)(r->doc.in + r->doc.in_len - b->value.ptr); /* the window goes on after the tag */
        if (rd_fx_value(r, b->value.ptr, b->value.len, left, &b->value, &c)) {
            if (b->value.len > max - tag_bytes - an) goto decline;
        } else {
            c = rd_fx_cont(b->value.ptr, b->value.len);
            int rc = stax__rd_attr_value(r, p, n, vs, vs + b->value.len, 0, 0, tag_bytes + an, &b->value);
            if (rc == STAX__ROOM) goto decline;
            if (rc) return RD_FX_ERROR;
        }
        tag_bytes += an + b->value.len;
        /* the value's continuation bytes count after the tag's last line feed */
        if (cont != RD_FX_RECOUNT) cont = c == SIZE_MAX ? RD_FX_RECOUNT : vs >= line_at ? cont + c : cont;
    }
    return cont;
decline:
    r->doc.meter.expanded = expanded0;
    return RD_FX_DECLINE;
}

/* A start tag's attributes, by the one grammar in its plain mode: out of
 * the loop, whose registers the attribute loop's would otherwise take. */
RD_NOINLINE int rd_fx_stag(stax_reader *r, const char *p, size_t n, rd_tag *t, size_t first, size_t name_len) {
    return rd_stag(r, p, n, t, RD_TAG_PLAIN, 0, first, name_len);
}

/* The push of an element the stack has no room for (it grows, or its name
 * holds bytes >= 0x80), out of the loop, after rd_fx_save: at the tag's
 * start, which an error of the push names (tok_pos: the general way sets
 * it at each token; in input bytes in a transcoded window). Out of line:
 * it is rare, and inline its two steps take the loop's registers. */
RD_NOINLINE int rd_fx_push(stax_reader *r, const char *name, size_t nl) {
    if (rd_fx_transcoded_on(r)) rd_fx_transcoded(r, r->buf.events + r->buf.batch.count);
    r->doc.tok_pos = r->doc.pos;
    return stax__rd_push(r, name, nl);
}

/* The element a start tag opens (nl: its name's length; count and flags
 * what the tag had; q its names where namespaces are on), after the tag
 * was read: pushed on the element stack (inline while the stack has room:
 * the name is ASCII) and its events (the document stays in content:
 * rd_fx_start). -1 after an error. */
RD_HOT_INLINE int rd_fx_open(stax_reader *r, rd_fx *x, const char *p, size_t n, size_t nl, size_t first, size_t count,
                             unsigned flags, const stax_qname *q, int mode) {
    if (!flags) {
        size_t at = r->buf.stack.len;
        if (STAX_LIKELY(r->doc.depth < r->buf.stack_off_cap && n >= 17 &&
                        r->buf.stack.cap - r->buf.stack.len >= nl + RD_STACK_SLACK &&
                        stax__buf_put16(&r->buf.stack, p + 1, nl) == 0)) { /* the tag has 16 bytes after '<' */
            r->buf.stack_off[r->doc.depth++] = at << 1;
        } else {
            rd_fx_save(r, x);
            if (rd_fx_push(r, p + 1, nl)) return -1;
        }
    }
    stax_event *e = rd_fx_emit(x, STAX_EV_START, 0, r->doc.depth + (flags != 0), mode); /* <a/> was not pushed */
    e->flags = (uint8_t)flags;
    e->name.ptr = p + 1;
    e->name.len = nl;
    e->attr_first = (uint32_t)first;
    e->attr_count = (uint32_t)count;
    if (flags) {
        stax_event *end = rd_fx_emit(x, STAX_EV_END, 0, r->doc.depth + 1, mode);
        end->name = e->name;
        if (mode == RD_FX_NS) {
            x->q[-1] = *q; /* (the start tag's, in place) */
            if (r->buf.ns.top > r->doc.depth) stax__ns_pop(&r->buf.ns, r->doc.depth + 1);
        }
    }
    return 0;
}

/* A start tag without attributes (<name>, name of nl bytes at p + 1, first:
 * its attributes' place) and the text that follows it: its events come at
 * once, without a turn of the loop. A text its first 16 bytes settle is
 * read here (rd_fx_short); a longer one is scanned here to its first stop
 * (rd_fx_text_first), and one whose stop is a mark goes on out of line
 * (rd_fx_elem_marks). When the text is followed by the end tag,
 * <name>text</name>, the element's three events are made and the element
 * stack is left as it is (a push and its pop; the end tag's name is
 * compared with the start tag's in the window). 1: read (a text it does
 * not take is the loop's); -1: an error. */
RD_HOT_INLINE int rd_fx_elem(stax_reader *r, rd_fx *x, const char *p, size_t avail, size_t n, size_t nl,
                             size_t first, const stax_qname *qn, int mode) {
#ifdef STAX__V16
    const char *q = p + nl + 2;
    rd_fx_txt s;
    /* 34 bytes from the text: its 16, and 18 from the end tag's '<' of a
     * short text (a longer one checks its own); room for three events */
    stax__tscan t;
    size_t end, lim;
    int got = 0;
    if (avail - nl >= 36 && q[0] != '<' && nl <= 16 && x->ev < x->ev_last)
        got = rd_fx_short(q, &s) ? s.len <= r->cfg.opt.max_text
                                 : rd_fx_text_first(r, q, lim = rd_fx_lim(r, avail - nl - 2), avail - nl - 2, &s, &t, &end);
    if (got == 1) {
        const char *et = q + s.end;
        stax__m16 want = stax__m16_low(nl);
        if (x->end - et >= 18 && et[1] == '/' && et[2 + nl] == '>' &&
            (stax__v16_mask(stax__v16_eq(stax__v16_load(et + 2), stax__v16_load(p + 1))) & want) == want) {
            uint32_t depth = r->doc.depth + 1;
            stax_event *e = rd_fx_emit(x, STAX_EV_START, 0, depth, mode); /* (its names in place: qn) */
            e->name.ptr = p + 1;
            e->name.len = nl;
            e->attr_first = (uint32_t)first;
            rd_fx_advance(x, nl + 2, 0, 0, 0);
            rd_fx_put_text(r, x, &s, depth, mode);
            e = rd_fx_emit(x, STAX_EV_END, 0, depth, mode);
            e->name.ptr = et + 2;
            e->name.len = nl;
            if (mode == RD_FX_NS) x->q[-1] = rd_fx_qname_at(qn, et + 2);
            rd_fx_advance(x, nl + 3, 0, 0, 0);
            /* the indentation after it, where the batch has room for its
             * event (the loop's rule: two after it) and max_text allows it */
            size_t k;
            if (x->end - x->p >= 16 && x->p[0] == '\n' && x->ev < x->ev_last && (k = rd_fx_indent(x->p)) != 0 &&
                k <= r->cfg.opt.max_text)
                rd_fx_put_indent(r, x, k, 1, depth - 1, mode);
            return 1;
        }
        /* the open and advance below, written again: one copy after the
         * branch, with a flag for the text, keeps one more value live across
         * the text's scan */
        if (rd_fx_open(r, x, p, n, nl, first, 0, 0, qn, mode)) return -1;
        rd_fx_advance(x, nl + 2, 0, 0, 0);
        rd_fx_put_text(r, x, &s, r->doc.depth, mode);
        return 1;
    }
    if (STAX_UNLIKELY(got == 2)) { /* a mark: the element, then the rest of its text */
        if (rd_fx_open(r, x, p, n, nl, first, 0, 0, qn, mode)) return -1;
        rd_fx_advance(x, nl + 2, 0, 0, 0);
        rd_fx_txt m; /* (not s: its address would keep s in memory) */
        int rc = rd_fx_elem_marks(r, x->p, end, lim, (size_t)(x->end - x->p), &t, &m);
        if (rc) rd_fx_put_text(r, x, &m, r->doc.depth, mode); /* (else the loop gives the text to the general way) */
        return 1;
    }
#else
    (void)avail;
#endif
    if (rd_fx_open(r, x, p, n, nl, first, 0, 0, qn, mode)) return -1;
    rd_fx_advance(x, nl + 2, 0, 0, 0);
    return 1;
}

/* A start tag with ASCII names, complete in the window, inside the root
 * (which goes the general way, as a second root does: so the document is
 * in content before and after every tag read here, and no tag here writes
 * where it is), when the DTD declares no attributes and namespaces are
 * off. <name> is taken here
 * (rd_fx_elem, with what follows it when it can); a tag with anything
 * after the name, given room in the batch for max_attrs attributes (the
 * attribute table is reset only in an empty batch), goes to the one
 * start-tag grammar (rd_stag,
 * reader_tag.h) in its plain mode, out of line (rd_fx_stag: inline, its
 * loop's set-up spilled and restored ~10 registers at every start tag), which
 * checks its structure in one pass and keeps values whose only bytes to
 * look at are 2- and 3-byte UTF-8 (rd_plain_utf8); values with references,
 * white space other than SP or other bytes to check are then normalized in
 * order by stax__rd_attr_value, as the general way would (which reports
 * the same first error: the structure is sound). 1: read; 0: the general
 * way takes it; -1: an error. */
RD_FOR_EACH_MODE int rd_fx_start(stax_reader *r, rd_fx *x, int mode) {
    const char *p = x->p;
    size_t avail = (size_t)(x->end - p), n = avail < r->cfg.opt.max_token ? avail : r->cfg.opt.max_token;
    /* the root (depth 0), or too deep; the depth read through a volatile
     * lvalue, so that the compiler loads it again where the push wants it
     * (kept in a register from here, it cost every start tag one more
     * instruction, GCC 12) */
    if (*(volatile uint32_t *)&r->doc.depth - 1u >= r->cfg.opt.max_depth - 1u) return 0;
    size_t first = r->doc.attr_len;
    size_t nl = rd_tag_name(r, p, n, 1, "element", RD_TAG_PLAIN); /* (a PLAIN name ends before n) */
    if (!nl) return 0;
    /* on the road: an element the DTD gives attributes goes the general way
     * (rd_attlist_of: one compare for the last element that had them, one
     * bit for a length that none has) */
    if (mode != RD_FX_PLAIN && r->buf.dtd.n_atts && rd_attlist_of(r, p + 1, nl)) return 0;
    stax_qname *const q = x->q; /* the start tag's names, written in place (NULL in the plain read) */
    if (p[1 + nl] == '>') { /* no attribute, the common tag */
        if (mode == RD_FX_NS && rd_fx_qname(r, p + 1, nl, n >= 17, q)) return 0;
        return rd_fx_elem(r, x, p, avail, n, nl, first, q, mode);
    }
    if (r->cfg.attr_cap - first < r->cfg.opt.max_attrs) { /* room for the attributes: in an empty batch */
        if (x->ev != r->buf.events) return 0;
        r->doc.attr_len = first = 0;
    }
    rd_tag t;
    if (rd_fx_stag(r, p, n, &t, first, nl)) return 0; /* nothing written: declined */
    if (mode == RD_FX_NS && !(t.pending & 1) && rd_fx_ns(r, p, first, t.count, nl, r->doc.depth + 1, x->ev == r->buf.events, q)) {
        r->doc.attr_len = first;
        return 0;
    }
    if (!t.pending) {
        if (rd_fx_open(r, x, p, n, nl, first, t.count, t.flags, q, mode)) return -1;
        rd_fx_advance(x, t.i, t.lfs, t.line_at, 0);
        return 1;
    }
#ifndef STAX__SMALL /* (where rd_plain_utf8 keeps no value) */
    if (t.pending == 2) { /* values with UTF-8 alone: their continuation bytes (a branch of its
                             own, so that the advance above adds no zero to every tag) */
        if (rd_fx_open(r, x, p, n, nl, first, t.count, t.flags, q, mode)) return -1;
        rd_fx_advance(x, t.i, t.lfs, t.line_at, t.cont);
        return 1;
    }
#endif
    /* values to normalize (their continuation bytes after the tag's last
     * line feed counted as they are), then the element (the plain grammar
     * writes nothing to the arena) */
    size_t arena0 = r->buf.arena.len;
    rd_fx_save(r, x);
    size_t cont = rd_fx_pending(r, p, t.i, t.line_at, r->buf.attrs + first, r->buf.attrs + first + t.count, nl, t.cont);
    if (cont == RD_FX_ERROR) return -1;
    if (cont == RD_FX_DECLINE ||
        (mode == RD_FX_NS && rd_fx_ns(r, p, first, t.count, nl, r->doc.depth + 1, x->ev == r->buf.events, q))) {
        r->doc.attr_len = first; /* the general way takes it: nothing of the tag is kept */
        r->buf.arena.len = arena0;
        return 0;
    }
    if (rd_fx_open(r, x, p, n, nl, first, t.count, t.flags, q, mode)) return -1;
    if (cont != RD_FX_RECOUNT) {
        rd_fx_advance(x, t.i, t.lfs, t.line_at, cont);
    } else { /* a line feed in a value: count the tag again */
        stax_pos at = {x->off, x->line, x->col};
        rd_advance_bytes(r, &at, p, t.i); /* (a transcoded window's offsets: rd_fx_transcoded) */
        x->off = at.offset, x->line = at.line, x->col = at.column;
        x->p += t.i;
    }
    return 1;
}

/* An end tag that matches the open element exactly (</name>): the one
 * grammar in its plain mode (rd_etag). */
RD_FOR_EACH_MODE int rd_fx_end(stax_reader *r, rd_fx *x, int mode) {
    const char *p = x->p;
    size_t avail = (size_t)(x->end - p), top;
    size_t n = rd_etag(r, p, avail, RD_TAG_PLAIN, &top);
    if (STAX_UNLIKELY(!n)) return 0;
    stax_event *e = rd_fx_emit(x, STAX_EV_END, 0, r->doc.depth, mode);
    e->name.ptr = p + 2;
    e->name.len = n - 3;
    rd_etag_end(r, top, n - 3, mode == RD_FX_NS ? x->q - 1 : NULL, p + 2, avail >= 18);
    if (STAX_UNLIKELY(top & 1)) { /* a name with bytes >= 0x80: its continuation bytes are no columns */
        size_t cont = 0;
        for (size_t k = 0; k < n - 3; k++) cont += ((unsigned char)p[2 + k] & 0xC0) == 0x80;
        rd_fx_advance(x, n, 0, 0, cont);
    } else {
        rd_fx_advance(x, n, 0, 0, 0);
    }
    return 1;
}

/* ================================================================ the loop */

/* Read plain tokens from the UTF-8 window while there are any and the batch
 * has room, in mode. Returns 0 if none was read; 1 if some were; 2 if some
 * were and the token at the position is the general way's (one the fast
 * path declined: called again, it would only scan it again); -1 after an
 * error (a count of them took a register from the loop, which then kept
 * its event pointer on the stack). */
RD_FOR_EACH_MODE int rd_fx_loop(stax_reader *r, int mode) {
    int rc = 0;
    if (rd_fx_transcoded_on(r)) rd_fx_transcoding(r);
    rd_fx x;
    rd_fx_load(r, &x, mode);
    /* room for two events a token (stax__rd_room's rule); a start tag checks the attributes */
    x.ev_last = r->buf.events + (r->cfg.opt.batch_events - 2);
    if (r->buf.batch.count && x.ev > x.ev_last) return 0;
    const char *const p0 = x.p;
    for (;;) {
        if (x.end - x.p < 3) break;
        const char *p = x.p;
        if (p[0] != '<') {
            rc = rd_fx_text(r, &x, mode);
        } else if (p[1] == '/') {
            rc = rd_fx_end(r, &x, mode);
        } else if (p[1] == '!' || p[1] == '?') {
            break;
        } else {
            rc = rd_fx_start(r, &x, mode);
        }
        if (STAX_UNLIKELY(rc <= 0)) goto declined;
        if (STAX_UNLIKELY(x.ev > x.ev_last)) break;
    }
    rd_fx_save(r, &x);
    if (rd_fx_transcoded_on(r)) rd_fx_transcoded(r, x.ev);
    return x.p != p0; /* every token read moves p */
declined:
    if (rc < 0) { /* the error's own path left the state as it wants it */
        if (rd_fx_transcoded_on(r)) rd_fx_transcoded(r, r->buf.events + r->buf.batch.count);
        return -1;
    }
    rd_fx_save(r, &x);
    if (rd_fx_transcoded_on(r)) rd_fx_transcoded(r, x.ev);
    return x.p != p0 ? 2 : 0;
}

#ifndef STAX__SMALL
/* The road (without and with namespaces) and the plain read, each a
 * function of its own, so that each loop has the registers to itself (the
 * plain one too: inlined into the dispatch below, it would share them with
 * the dispatch). A build for size reads the road's documents the general
 * way: a copy of the loop would cost it about what the plain one does,
 * 1.6 KB of the M4's flash (stax__rd_fast there). */
RD_NOINLINE int rd_fx_road(stax_reader *r) { return rd_fx_loop(r, RD_FX_ROAD); }
RD_NOINLINE int rd_fx_road_ns(stax_reader *r) { return rd_fx_loop(r, RD_FX_NS); }
RD_NOINLINE int rd_fx_plain(stax_reader *r) { return rd_fx_loop(r, RD_FX_PLAIN); }
#endif

int stax__rd_fast(stax_reader *r) {
    if (r->doc.in_cdata || r->doc.text_cont) return 0;
    int plain = !r->buf.ev_ns && !r->buf.dtd.n_atts;
#ifdef STAX__SMALL
    return plain ? rd_fx_loop(r, RD_FX_PLAIN) : 0;
#else
    return plain ? rd_fx_plain(r) : r->buf.ev_ns ? rd_fx_road_ns(r) : rd_fx_road(r);
#endif
}
#else
typedef int stax__fast_path_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_FAST_PATH */
