/* The reader's private header: its state, the helpers every stage uses, and
 * the functions one stage calls in another (stax__rd_ names; rd_ names
 * are local to their file or inline here). The stages, one file each, each calling only the
 * ones below it (tools/check-layers.sh checks it; docs/internals.md):
 *
 *   parallel.c       one document on several threads, above save and resume
 *   reader_context.c save and resume: the document context, written and restored
 *   reader_batch.c   the public API, options and memory layout, batches, and
 *                    the driver (rd_fill) that moves between the stages
 *   reader_fast.c    the one-pass path for plain tokens, driven by scan.c
 *   reader_tokens.c  the token parsers (the general path), the element stack,
 *                    namespaces, entity expansion in content
 *   reader_frame.c   framing: where a token ends, resumably
 *   reader_input.c   intake: the carry for a token split across chunks,
 *                    encoding detection and transcoded windows
 *   reader_core.c    errors and positions, buffer reservations, the
 *                    expansion meter, room in the batch
 *   entities.c       references and attribute values (shared with the DTD)
 *   scan.c           block scanning (SSE2, AVX2, AVX-512, portable)
 *
 * Two phases per token on the general path. Framing finds where a token
 * ends; it is resumable (rd_frame keeps how far it scanned, and quote/subset
 * state), so a token split across chunks is found without rescanning.
 * Parsing then sees the whole token contiguous: in the caller's chunk (zero
 * copy) or, when it straddled chunks, in the carry buffer, which holds exactly
 * one partial token and never more than max_token + 16 bytes. The fast path
 * (reader_fast.c) reads the plain tokens of a window in one pass instead, and
 * gives the same events: its start tags are read by the one start-tag
 * grammar (reader_tag.h), compiled in its plain mode.
 *
 * Lifetime rules that keep slices valid: decoded strings go to the arena, which
 * is reset at each stax_reader_next; the carry is refilled only when no event
 * of the current batch points into it; the tail of a chunk is copied to the
 * carry only when the batch is empty (else on the next call).
 *
 * Memory: every buffer is a stax__buf written only through checked windows,
 * with a capacity that follows from the options (rd_layout). In a fixed block
 * all of them are carved when the reader is created, so that reading never
 * runs out of memory afterwards; with an allocator they grow on demand up to
 * the same sizes. A token is parsed only when the arena has room for what it
 * can write (its own length); a start tag whose attribute values expand
 * entities may need more: it is then rolled back and parsed again on an empty
 * batch (stax__rd_parse), where the arena has room for max_token bytes.
 */
#ifndef STAX_READER_H
#define STAX_READER_H

#include "stax_internal.h"
#include "scan.h"
#include "encoding.h"
#include "namespaces.h"
#include "entities.h"
#include "external.h"

/* ================================================================ state */

enum rd_kind { K_NONE, K_TEXT, K_MARKUP, K_STAG, K_ETAG, K_COMMENT, K_PI, K_CDATA, K_CDATA_CONT, K_DOCTYPE };
/* DOC_NEXT: a document after the first of a sequence (STAX_READ_DOCUMENTS)
 * before its first token, which may be its XML declaration: DOC_START but
 * for the start of the input. */
enum rd_part { DOC_START, DOC_PROLOG, DOC_CONTENT, DOC_EPILOG, DOC_NEXT };

/* Where the driver (rd_fill, a switch over it) stands: rd_doc.mode, set by
 * each step for the next. A new document starts in RM_DETECT. */
enum rd_mode {
    RM_DETECT,     /* the input's encoding is not known yet */
    RM_WINDOW,     /* tokens in the window: the caller's chunk, decoded input or entity text */
    RM_CARRY,      /* a token straddles chunks: extend the carry from the window */
    RM_STASH,      /* the batch ended before a token the window does not finish: its tail goes to the carry */
    RM_PUSH,       /* an external entity referred to (push_ent) is read on an empty batch */
    RM_ENTITY_END, /* an entity's text is used up: back to the window it interrupted */
    RM_SWITCH,     /* the XML declaration named an encoding to decode (switch_enc): switch after it */
    RM_REFILL,     /* a window of decoded input is used up: decode more */
    RM_DRY,        /* the window is used up: more input, or the end */
    RM_DONE        /* the document ended: STAX_END */
};

typedef struct rd_frame {
    int kind;
    int quote;   /* tags, DOCTYPE: the open quote character, or 0 */
    int sub;     /* DOCTYPE: 0 outside the subset, 1 inside, 2 in a comment, 3 in a PI */
    int cut;     /* the token is a piece of a longer text/CDATA */
    int known;   /* text: the token ends at scan (RD_REST_* flags + 1) */
    int at_eof;  /* text: the token ends with the input (a reference it cuts is truncated) */
    size_t scan; /* bytes from the token start already known not to end it */
} rd_frame;

/* How the text token that a reference ended early ended: cut for length,
 * or with the input. */
#define RD_REST_CUT 1
#define RD_REST_EOF 2

/* Bytes the carry may hold beyond max_token: framing decides every token
 * within max_token + 12 bytes (a CDATA piece: "<![CDATA[" + max_text + "]]>"). */
#define RD_CARRY_SLACK 16u
/* The arena's room beyond a token's length. */
#define RD_ARENA_SLACK 16u
/* With an allocator the arena starts at this many bytes (or arena_max when
 * that is less) and doubles, up to arena_max, at the start of a batch after
 * one that ended for want of it: a small document never maps arena_max. The
 * fuzz builds make it small (STAX__ARENA_FIRST, tests/fuzz/fuzz.mk), so
 * that inputs of a few KiB make it grow. */
#ifdef STAX__ARENA_FIRST
#define RD_ARENA_FIRST ((size_t)STAX__ARENA_FIRST)
#else
#define RD_ARENA_FIRST ((size_t)64 * 1024)
#endif
/* The element stack's room past its last name: the fast path copies and
 * compares names 16 bytes at a time. */
#define RD_STACK_SLACK 16u

/* The reader's message room: the error record's pointer and capacity come
 * out of it, so that the reader is as large as when the message lay inside
 * the record (STAX_READER_MIN_MEMORY). */
#define STAX__RD_MSG_CAP (STAX__MSG_CAP - sizeof(char *) - sizeof(size_t))

/* The reader is three parts. The configuration is fixed when the reader is
 * made: the options and the sizes that follow from them (rd_layout). The
 * buffers have those sizes: the memory they come from, the batch's tables,
 * the carry, arena and element stack, the read and transcoding buffers, and
 * the modules that keep their tables in memory of their own (the DTD, the
 * namespace bindings, the texts of external entities). The document state is
 * everything one document changes; stax_reader_reset zeroes it whole, gives
 * the few fields that do not start at zero their first values (rd_doc_init),
 * and empties the buffers and the modules' tables, keeping their memory. */
typedef struct rd_config {
    stax_reader_options opt;
    int simd;           /* stax__simd_level(), read once */
    int forced;         /* opt.encoding: the declaration is not consulted */
    stax__text_run_fn text_run; /* stax__scan_text_run at that level */
    size_t attr_cap;    /* attributes in a batch */
    size_t carry_max;   /* the carry: max_token + RD_CARRY_SLACK */
    size_t arena_max;   /* the arena: max_token + RD_ARENA_SLACK */
    size_t stack_max;   /* the element stack's names: max_depth * max_name + RD_STACK_SLACK */
} rd_config;

typedef struct rd_buffers {
    stax__mem mem;
    /* the batch: its tables (the pointers in batch), filled per call */
    stax_event *events;
    stax_attr *attrs;
    stax_qname *ev_ns, *attr_ns; /* (STAX_READ_NAMESPACES) */
    size_t *attr_at;    /* each attribute's name: byte offset in its tag (0: defaulted) */
    stax_batch batch;
    stax__buf arena;    /* decoded strings of the batch */
    stax__buf carry;    /* the partial token that straddles chunks: at most carry_max bytes */
    /* open elements: names back to back in stack, where each starts in stack_off */
    stax__buf stack;
    size_t *stack_off;
    uint32_t stack_off_cap;
    int arena_short;    /* a batch ended for want of arena: the next one doubles it */
    stax__frame *ents;  /* max_entity_depth frames: content expansion, then attribute values */
    char *rbuf;         /* the pull source reads into it */
    size_t rbuf_cap;
    char *tbuf;         /* transcoded input: the window when the input is not UTF-8 */
    size_t tbuf_cap;
    /* the modules, each emptied by its own reset */
    stax__dtd dtd;
    stax__ns ns;        /* (STAX_READ_NAMESPACES) */
    stax__ext ext;      /* external entities: the resolver, the texts being read */
} rd_buffers;

typedef struct rd_doc {
    int status;
    stax__err err;      /* the message (err.msg) of the sticky error; scratch for entities and the DTD */
    char err_msg[STAX__RD_MSG_CAP]; /* where err.msg points */
    stax_pos err_pos;

    /* input window: the caller's chunk, the pull buffer, decoded input or entity text */
    const char *in;
    size_t in_len, in_pos;
    int mode;           /* enum rd_mode */
    int fed;            /* a chunk was handed in and not yet given back (stax_reader_feed's turn) */
    int ended;          /* stax_reader_end was called */

    size_t carry_off;   /* the carry's bytes start here: tokens read from it move nothing */
    rd_frame fr;        /* framing state of the token at in_pos (or in the carry) */
    size_t rest;        /* what is left of a text token that a reference ended early: the
                           next token is its next `rest` bytes (RD_REST_* in rest_flags) */
    int rest_flags;

    stax_pos pos;       /* position of the first byte not yet consumed */
    stax_pos tok_pos;   /* position of the token being parsed */
    int win_nocr;       /* the window holds no CR (1): positions take the LF-only path; holds
                           one (0); not searched yet (< 0: RD_WIN_UNSEARCHED at its start;
                           the general way's first tokens in it are searched alone, then
                           rd_win_nocr searches it whole: so a window the fast path reads
                           but for a few tokens is never searched) */

    int part;           /* enum rd_part: where in the document */
    int has_doctype;
    int in_cdata;       /* a CDATA section was cut; the next token continues it */
    int text_cont;      /* the last TEXT was cut for length: the next piece continues it */

    uint32_t depth;     /* open elements (their names: buf.stack) */
    size_t attr_len;    /* attributes in the batch */

    /* entities being expanded (each an input window of its own, in buf.ents) */
    stax__entity *last_ge;              /* the general entity content referred to last (a cache) */
    const stax__dtd_elem_def *last_el;  /* the ATTLIST element a start tag found last (a cache) */
    uint32_t n_ent;
    stax_pos ent_pos;          /* the outermost reference: events from expansion carry it */
    stax__entity *push_ent;    /* a reference just parsed, expanded once its token is consumed
                                  (an external one: on an empty batch) */
    stax_pos push_pos;
    const char *push_ref;      /* its '&' */
    stax__meter meter;         /* entity bytes expanded so far (content and attribute values) */
    uint32_t tag_stamp;        /* numbers start tags, to mark the ATTLIST entries a tag gave */

    /* input encoding: UTF-8 is read in place; anything else is transcoded to
     * UTF-8 into buf.tbuf, which is then the window, while the caller's chunk is raw */
    int enc;            /* 0 until detected; STAX__ENC_UTF8: direct; else transcoding */
    int detected;       /* what the BOM or first bytes said */
    size_t bom_len;
    int switch_enc;     /* the XML declaration asked for a decoder: switch after it */
    const uint32_t *switch_table;
    stax__decoder dec;
    const char *raw;
    size_t raw_len, raw_pos;
    uint64_t raw_base;  /* input offset of raw[0] */
    int dec_err;        /* an invalid unit follows the transcoded text */
    uint64_t dec_err_off;
    /* the fast path in a transcoded window (reader_fast.c): the offsets it
     * wrote in events from fx_ev on are fx_base + their byte in the window;
     * fx_real is the input offset of window byte fx_u */
    uint64_t fx_base, fx_real;
    size_t fx_u, fx_ev;
    unsigned char head[4];
    size_t head_len;

    /* pull source */
    stax_read_fn src;
    void *src_ctx;
#ifndef STAX_NO_STDIO
    int fd;
    FILE *file;
#endif
} rd_doc;

struct stax_reader {
    rd_config cfg;
    rd_buffers buf;
    rd_doc doc;
};


/* ================================================================ helpers of every stage */

/* Functions of one stage called from another. */
#ifdef STAX_NO_MESSAGES /* short messages: the sentences are not compiled in */
#define stax__rd_fail_at(r, code, at, ...) \
    (STAX__NO_MESSAGE(__VA_ARGS__), (stax__rd_fail_at)((r), (code), (at), "%s", ""))
#define stax__rd_fail_near(r, code, at, byte, ...) \
    (STAX__NO_MESSAGE(__VA_ARGS__), (stax__rd_fail_near)((r), (code), (at), (byte), "%s", ""))
#define stax__rd_fail_tok(r, code, tok, at, ...) \
    (STAX__NO_MESSAGE(__VA_ARGS__), (stax__rd_fail_tok)((r), (code), (tok), (at)))
STAXINT int(stax__rd_fail_tok)(stax_reader *r, int code, const char *tok, size_t at);
#else
STAXINT int(stax__rd_fail_tok)(stax_reader *r, int code, const char *tok, size_t at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
#endif

STAXINT int (stax__rd_fail_at)(stax_reader *r, int code, stax_pos at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* stax__rd_fail_at for an error at byte `byte` (in the text of an entity
 * being read, where the message names its line and column). */
STAXINT int (stax__rd_fail_near)(stax_reader *r, int code, stax_pos at, const char *byte, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
STAXINT int stax__rd_fail_err(stax_reader *r, const char *tok, size_t n);
STAXINT int stax__rd_fail_loaded(stax_reader *r, stax_pos pos);
STAXINT int stax__rd_nomem(stax_reader *r);
STAXINT int stax__rd_reserve(stax_reader *r, stax__buf *b, size_t n, size_t max);
STAXINT int stax__rd_expand_account(stax_reader *r, size_t n, const char *tok, size_t at);

/* Error at byte `at` of the token that starts at tok (position r->doc.tok_pos):
 * stax__rd_fail_tok (reader_core.c) finds the position, so that each of the
 * many call sites only passes the token. */
#define rd_fail(r, code, tok, at, ...) stax__rd_fail_tok((r), (code), (tok), (at), __VA_ARGS__)


/* A window not searched yet: the general way's first RD_WIN_PROBES tokens
 * in it are searched for a CR alone (win_nocr counts them up to -1), and
 * the next one has the whole window searched (stax__rd_consume). Builds for
 * size search the window at the first token (their windows are small: 90
 * bytes of code on the M0+). */
#ifdef STAX__SMALL
#define RD_WIN_PROBES 0
#else
#define RD_WIN_PROBES 16
#endif
#define RD_WIN_UNSEARCHED (-1 - RD_WIN_PROBES)

/* Whether the window holds no CR, searched the first time it is asked. */
static inline int rd_win_nocr(stax_reader *r) {
    if (r->doc.win_nocr < 0) r->doc.win_nocr = r->doc.in_len && !memchr(r->doc.in, '\r', r->doc.in_len);
    return r->doc.win_nocr;
}

/* Whether p[0, n) lies in the window (none, NULL, at the end of input). */
static inline int rd_in_window(const stax_reader *r, const char *p, size_t n) {
    return r->doc.in && p >= r->doc.in && p + n <= r->doc.in + r->doc.in_len;
}

/* The input's unit, for offsets (STAX__UNITS_*, stax__utf8_units). */
static inline int rd_wide(const stax_reader *r) {
    int e = r->doc.enc;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (e == STAX__ENC_UTF32LE || e == STAX__ENC_UTF32BE) return STAX__UNITS_UTF32;
    if (e == STAX__ENC_HOOK) return STAX__UNITS_BYTES;
#endif
    return e == STAX__ENC_UTF16LE || e == STAX__ENC_UTF16BE ? STAX__UNITS_UTF16 : STAX__UNITS_CP;
}

/* Whether the fast path reads transcoded windows too (reader_fast.c's
 * rd_fx_transcoded): not in builds for size, whose fast path reads UTF-8
 * windows alone (docs/embedded.md). */
#ifdef STAX__SMALL
#define RD_FX_TRANSCODED 0
#else
#define RD_FX_TRANSCODED 1
#endif
/* Whether the fast path may run in this window (given the rest of its
 * conditions), and whether it is a transcoded one there. */
static inline int rd_fx_encoding_ok(const stax_reader *r) { return RD_FX_TRANSCODED || r->doc.enc == STAX__ENC_UTF8; }
static inline int rd_fx_transcoded_on(const stax_reader *r) {
    return RD_FX_TRANSCODED && STAX_UNLIKELY(r->doc.enc > STAX__ENC_UTF8);
}

/* The input bytes n bytes of the transcoded window stand for
 * (stax__utf8_units; out of line: rd_advance is inlined in many places). */
STAXINT uint64_t stax__rd_units(const stax_reader *r, const char *p, size_t n);

/* Advance pos over n bytes of the window, or of other text (the carry, an
 * entity's): the LF-only count where the window is known to hold no CR
 * (one not searched yet counts as holding one). For transcoded input the
 * offset counts input bytes: one per code point for 8-bit encodings; for
 * UTF-16 two, or four for a code point above U+FFFF. rd_advance_bytes
 * counts the offset in the bytes given, transcoded or not (the fast path's
 * way: rd_fx_transcoded). */
static inline void rd_advance_bytes(const stax_reader *r, stax_pos *pos, const char *p, size_t n) {
    if (STAX_LIKELY(r->doc.win_nocr > 0 && rd_in_window(r, p, n))) stax__pos_advance_nocr(pos, p, n);
    else stax__pos_advance(pos, p, n);
}
static inline void rd_advance_units(const stax_reader *r, stax_pos *pos, uint64_t off, const char *p, size_t n) {
    if (r->doc.enc <= STAX__ENC_UTF8) return;
    pos->offset = off + stax__rd_units(r, p, n); /* (pos->offset was off before the count) */
}
static inline void rd_advance(const stax_reader *r, stax_pos *pos, const char *p, size_t n) {
    uint64_t off = pos->offset;
    rd_advance_bytes(r, pos, p, n);
    rd_advance_units(r, pos, off, p, n);
}


/* The input the expansion limits measure: the document so far, and the
 * external entities read. */
static inline uint64_t rd_input(const stax_reader *r) { return r->doc.pos.offset + r->buf.ext.bytes; }

static inline stax_pos rd_pos_in(const stax_reader *r, const char *tok, size_t at) {
    stax_pos p = r->doc.tok_pos;
    if (r->doc.n_ent) return p;
    rd_advance(r, &p, tok, at);
    return p;
}

/* The bytes the carry holds (from carry_off on). */
static inline char *rd_carry_ptr(const stax_reader *r) {
    return r->doc.carry_off ? r->buf.carry.ptr + r->doc.carry_off : r->buf.carry.ptr; /* (no arithmetic on a NULL carry) */
}
static inline size_t rd_carry_len(const stax_reader *r) { return r->buf.carry.len - r->doc.carry_off; }

/* The ATTLIST of the element named name, or NULL: the element found last
 * first (nested and repeated elements), then the DTD's hash table when an
 * element with an ATTLIST has a name of that length. */
static inline const stax__dtd_elem_def *rd_attlist_of(stax_reader *r, const char *name, size_t len) {
    const stax__dtd_elem_def *el = r->doc.last_el;
    if (el && el->name.len == len && memcmp(el->name.ptr, name, len) == 0) return el;
    if (!(r->buf.dtd.elem_lens & ((uint64_t)1 << (len & 63)))) return NULL;
    el = stax__dtd_elem(&r->buf.dtd, name, len);
    if (el) r->doc.last_el = el;
    return el;
}

/* Short, printable form of a name for messages. */

/* A check that the code guarantees failed: a bug, never the document's fault. */
#define rd_internal(r, what) \
    stax__rd_fail_at((r), STAX_E_INTERNAL, (r)->doc.tok_pos, "internal error: %s (%s:%d)", (what), __FILE__, __LINE__)

/* ================================================================ batch output */

/* The next event of the batch, or NULL (after failing) when the table is
 * full, which stax__rd_room makes impossible. */
static inline stax_event *rd_emit(stax_reader *r, int type, stax_pos pos) {
    static const stax_str none = {0, 0};
    if (STAX_UNLIKELY(r->buf.batch.count >= r->cfg.opt.batch_events)) return rd_internal(r, "event table full"), (stax_event *)NULL;
    if (r->buf.ev_ns) memset(&r->buf.ev_ns[r->buf.batch.count], 0, sizeof *r->buf.ev_ns);
    stax_event *e = &r->buf.events[r->buf.batch.count++];
    e->type = (uint8_t)type;
    e->flags = 0;
    e->reserved = 0;
    e->attr_count = 0;
    e->attr_first = 0;
    e->depth = r->doc.depth;
    e->name = e->text = none;
    e->pos = pos;
    return e;
}

/* The batch's attribute entry that holds the public id (name) and system id
 * (value) of DOCTYPE or ENTITY_REF event e, both empty; NULL after failing
 * (stax__rd_room keeps max_attrs >= 1 entries free for each token). */
static inline stax_attr *rd_emit_ids(stax_reader *r, stax_event *e) {
    static const stax_str none = {0, 0};
    if (STAX_UNLIKELY(r->doc.attr_len >= r->cfg.attr_cap)) return rd_internal(r, "attribute table full"), (stax_attr *)NULL;
    stax_attr *a = &r->buf.attrs[r->doc.attr_len];
    e->attr_first = (uint32_t)r->doc.attr_len++;
    a->name = a->value = none;
    a->flags = 0;
    return a;
}


/* Open elements: stack_off[d] is where the name of element d starts in
 * stack, shifted left one bit; the bit says the name has bytes >= 0x80. */
static inline size_t rd_stack_at(const stax_reader *r, uint32_t d) { return r->buf.stack_off[d] >> 1; }

/* A function written once with a mode parameter and compiled once for
 * each constant mode, so that no mode is tested on the hot path. */
#if defined(__GNUC__) || defined(__clang__)
#define RD_FOR_EACH_MODE static inline __attribute__((always_inline))
#else
#define RD_FOR_EACH_MODE static inline
#endif
/* A small step of the hot path, inlined wherever it is called whatever the
 * compiler's budget, except in a build for size (-Os). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE_SIZE__)
#define RD_HOT_INLINE static inline __attribute__((always_inline))
#else
#define RD_HOT_INLINE static inline
#endif
/* A rare branch of the hot path, kept out of it: inlined, its code takes
 * registers the common case needs. */
#if defined(__GNUC__) || defined(__clang__)
#define RD_NOINLINE static __attribute__((noinline))
#else
#define RD_NOINLINE static
#endif

/* Skip a run of well-formed non-ASCII characters (2- and 3-byte UTF-8 that are
 * Char) from tok[i]; stops at the first byte it does not take: ASCII, or
 * anything stax__rd_char_at (reader_tokens.c) must look at (4-byte forms, errors). Inline, since
 * accented and CJK text is made of such runs. *cont grows by the run's
 * continuation bytes (one a 2-byte character, two a 3-byte one). */
static inline size_t rd_utf8_run_cont(const char *tok, size_t n, size_t i, size_t *cont) {
    const unsigned char *u = (const unsigned char *)tok;
    for (;;) {
        if (i + 1 < n && u[i] >= 0xC2 && u[i] < 0xE0 && (u[i + 1] & 0xC0) == 0x80) {
            i += 2;
            *cont += 1;
        } else if (i + 2 < n && u[i] >= 0xE1 && u[i] < 0xEF && u[i] != 0xED && (u[i + 1] & 0xC0) == 0x80 &&
                   (u[i + 2] & 0xC0) == 0x80) {
            i += 3; /* E1..EC, EE: no overlong, no surrogate, no U+FFFE/FFFF possible */
            *cont += 2;
        } else {
            return i;
        }
    }
}
static inline size_t rd_utf8_run(const char *tok, size_t n, size_t i) {
    size_t cont = 0;
    return rd_utf8_run_cont(tok, n, i, &cont);
}

/* Attribute names seen in a tag, as a filter of 64 bits: a name is compared
 * with the others only when its bit was already set (exact, and at worst the
 * pairwise comparisons max_attrs bounds). The bit, from the length and the
 * first and last bytes, tells apart the names of common vocabularies (OSM's
 * id lat lon version timestamp changeset uid user visible, HTML's, SVG's,
 * Maven's; n * 7 + first * 3 + last gave id and user, href and target, one
 * bit: bench/log.md). */
static inline uint64_t rd_name_bit(const char *s, size_t n) {
    return (uint64_t)1 << ((n * 3u + (unsigned char)s[0] + (unsigned char)s[n - 1] * 2u) & 63u);
}

/* Parse results that are not errors: the token must be parsed again with
 * more room (an empty batch). */
#define RD_RETRY ((size_t)-1)

/* Whether input follows the window in the raw chunk: bytes still to decode,
 * or a decoding error that the text decoded so far runs into (it is reported
 * when a token needs what is past it, however the bytes came). */
static inline int rd_behind(const stax_reader *r) {
    return r->doc.enc > STAX__ENC_UTF8 && (r->doc.raw_pos < r->doc.raw_len || r->doc.dec_err);
}

/* ================================================================ the stages */

/* reader_core.c: room for one token in the batch, and its consumption */
STAXINT int stax__rd_room(stax_reader *r, size_t n);
STAXINT void stax__rd_arena_grow(stax_reader *r);
STAXINT void stax__rd_consume(stax_reader *r, const char *tok, size_t n);

/* The input's shapes other than one document (STAX_READ_FRAGMENT,
 * STAX_READ_DOCUMENTS), which builds for size leave out: their reader
 * refuses the flags, and the code for them is never compiled in
 * (docs/embedded.md). rd_shape: the reader's, as a constant 0 there. */
#ifdef STAX__SMALL
#define RD_SHAPES 0u
#else
#define RD_SHAPES (STAX_READ_FRAGMENT | STAX_READ_DOCUMENTS)
#endif
static inline unsigned rd_shape(const stax_reader *r) { return r->cfg.opt.flags & RD_SHAPES; }

/* The first part of the input: DOC_START, or in a fragment DOC_CONTENT;
 * and the part when the depth falls back to 0: DOC_EPILOG, or in a
 * fragment, whose top level is content, DOC_CONTENT. */
static inline int rd_first_part(const stax_reader *r) {
    return (rd_shape(r) & STAX_READ_FRAGMENT) ? DOC_CONTENT : DOC_START;
}
static inline int rd_after_root(const stax_reader *r) {
    return (rd_shape(r) & STAX_READ_FRAGMENT) ? DOC_CONTENT : DOC_EPILOG;
}

/* reader_tokens.c */
STAXINT size_t stax__rd_parse(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy);
STAXINT size_t stax__rd_char_at(stax_reader *r, const char *tok, size_t n, size_t i);
STAXINT size_t stax__rd_text(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy);
STAXINT int stax__rd_push(stax_reader *r, const char *name, size_t len);
STAXINT int stax__rd_attr_value(stax_reader *r, const char *tok, size_t n, size_t vs, size_t ve, int copy, int tokenized,
                          size_t used, stax_str *out);
STAXINT size_t stax__rd_token(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy);
STAXINT int stax__rd_over_limit(stax_reader *r, const rd_frame *f, const char *tok, size_t n);
STAXINT int stax__rd_push_entity(stax_reader *r);
STAXINT int stax__rd_pop_entity(stax_reader *r);

/* reader_frame.c */
STAXINT void stax__rd_frame_start(stax_reader *r, rd_frame *f, unsigned char c);
STAXINT void stax__rd_frame_consumed(stax_reader *r, const rd_frame *f, size_t n, size_t used);
STAXINT ptrdiff_t stax__rd_frame_end(stax_reader *r, rd_frame *f, const char *p, size_t n);
/* stax__rd_frame_end's answer for a token longer than max_token */
#define RD_FRAME_OVER ((ptrdiff_t)-2)

/* What one step of the driver (or of intake under it) leaves the driver to
 * do: go on with the next step; end the batch here (it holds events and is
 * ready, or must end before the next token); wait for more input (nothing
 * more can be read now); or stop on the error in r->doc.status. */
enum rd_step { RD_NEXT, RD_BATCH, RD_WAIT, RD_FAIL };

/* reader_input.c: RD_NEXT, RD_WAIT or RD_FAIL */
STAXINT int stax__rd_carry_append(stax_reader *r, const char *p, size_t n);
STAXINT int stax__rd_refill(stax_reader *r);
STAXINT int stax__rd_open_decoder(stax_reader *r, const char *name, size_t len);
STAXINT int stax__rd_start_transcoding(stax_reader *r, int enc, const uint32_t *table, const char *pre, size_t pre_len);
STAXINT int stax__rd_detect(stax_reader *r);
STAXINT int stax__rd_stash(stax_reader *r);

/* reader_fast.c: plain tokens of a UTF-8 window; how many were read, or -1 */
STAXINT int stax__rd_fast(stax_reader *r);

/* reader_context.c: write a context's checksum for its bytes (tests and
 * fuzzing: contexts whose body is garbage must be refused by the checks
 * after it, never by the checksum alone). */
STAXINT void stax__context_seal(void *buf, size_t len);

#endif /* STAX_READER_H */
