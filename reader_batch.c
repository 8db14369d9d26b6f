/* The reader: chunk intake, tokenizer, batches.
 *
 * Two phases per token. Framing finds where a token ends; it is resumable
 * (rd_frame keeps how far it scanned, and quote/subset state), so a token split
 * across chunks is found without rescanning. Parsing then sees the whole token
 * contiguous: in the caller's chunk (zero copy) or, when it straddled chunks,
 * in the carry buffer, which holds exactly one partial token and never more
 * than max_token bytes.
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
 * batch (rd_token), where the arena has room for max_token bytes.
 */
#include "stax_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#ifndef STAX_NO_STDIO
#include <errno.h>
#include <unistd.h>
#endif

/* ================================================================ state */

enum rd_kind { K_NONE, K_TEXT, K_MARKUP, K_STAG, K_ETAG, K_COMMENT, K_PI, K_CDATA, K_CDATA_CONT, K_DOCTYPE };
enum rd_doc { DOC_START, DOC_PROLOG, DOC_CONTENT, DOC_EPILOG };

typedef struct rd_frame {
    int kind;
    int quote;   /* tags, DOCTYPE: the open quote character, or 0 */
    int sub;     /* DOCTYPE: 0 outside the subset, 1 inside, 2 in a comment, 3 in a PI */
    int cut;     /* the token is a piece of a longer text/CDATA */
    size_t scan; /* bytes from the token start already known not to end it */
} rd_frame;

/* Bytes the carry may hold beyond max_token: framing decides every token
 * within max_token + 12 bytes (a CDATA piece: "<![CDATA[" + max_text + "]]>"). */
#define RD_CARRY_SLACK 16u
/* The arena's room beyond a token's length. */
#define RD_ARENA_SLACK 16u

struct stax_reader {
    stax__mem mem;
    stax_reader_options opt;
    int status;
    stax__err err;      /* the message (err.msg) of the sticky error; scratch for entities and the DTD */
    stax_pos err_pos;

    /* input window: the caller's chunk or the pull buffer */
    const char *in;
    size_t in_len, in_pos;
    int fed;            /* a chunk was handed in and not yet given back */
    int ended;          /* stax_reader_end was called */
    int stash_deferred; /* the window's tail goes to the carry on the next call */

    /* the partial token that straddles chunks: at most carry_max bytes */
    stax__buf carry;
    size_t carry_max;
    rd_frame fr;        /* framing state of the token at in_pos (or in the carry) */

    stax_pos pos;       /* position of the first byte not yet consumed */
    stax_pos tok_pos;   /* position of the token being parsed */
    int win_nocr;       /* the window holds no CR: positions take the LF-only path */
    int simd;           /* stax__simd_level(), read once */

    /* document state */
    int doc;
    int has_doctype;
    int in_cdata;       /* a CDATA section was cut; the next token continues it */
    int tok_at_eof;     /* the text token being parsed ends with the input */
    int text_cont;      /* the last TEXT was cut for length: the next piece continues it */
    int done;

    /* open elements: names back to back in stack, where each starts in stack_off */
    stax__buf stack;
    size_t stack_max;
    size_t *stack_off;
    uint32_t depth, stack_off_cap;

    /* the batch */
    stax_event *events;
    size_t ev_cap;
    stax_attr *attrs;
    size_t attr_len, attr_cap;
    stax_batch batch;
    stax__buf arena;    /* decoded strings of the batch */
    size_t arena_max;

    /* the DTD, and the entities being expanded (each an input window of its own) */
    stax__dtd dtd;
    stax__frame *ents;  /* max_entity_depth frames: content expansion, then attribute values */
    uint32_t n_ent;
    stax_pos ent_pos;          /* the outermost reference: events from expansion carry it */
    stax__entity *push_ent;    /* a reference just parsed, expanded once its token is consumed */
    stax_pos push_pos;
    uint64_t expanded;         /* entity bytes expanded so far */
    uint32_t tag_stamp;        /* numbers start tags, to mark the ATTLIST entries a tag gave */

    /* input encoding: UTF-8 is read in place; anything else is transcoded to
     * UTF-8 into tbuf, which is then the window, while the caller's chunk is raw */
    int enc;            /* 0 until detected; STAX__ENC_UTF8: direct; else transcoding */
    int detected;       /* what the BOM or first bytes said */
    size_t bom_len;
    int forced;         /* opt.encoding: the declaration is not consulted */
    int switch_enc;     /* the XML declaration asked for a decoder: switch after it */
    const uint32_t *switch_table;
    stax__decoder dec;
    const char *raw;
    size_t raw_len, raw_pos;
    uint64_t raw_base;  /* input offset of raw[0] */
    char *tbuf;
    size_t tbuf_cap;
    int dec_err;        /* an invalid unit follows the transcoded text */
    uint64_t dec_err_off;
    unsigned char head[4];
    size_t head_len;

    /* namespaces (STAX_READ_NAMESPACES) */
    stax__ns ns;
    stax_qname *ev_ns, *attr_ns;
    size_t *attr_at;    /* each attribute's name: byte offset in its tag (0: defaulted) */

    /* pull source */
    stax_read_fn src;
    void *src_ctx;
    char *rbuf;
    size_t rbuf_cap;
#ifndef STAX_NO_STDIO
    int fd;
    FILE *file;
#endif
};

/* ================================================================ errors and positions */

static int rd_fail_at(stax_reader *r, int code, stax_pos at, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int rd_fail_at(stax_reader *r, int code, stax_pos at, const char *fmt, ...) {
    if (r->status < 0) return r->status;
    va_list ap;
    va_start(ap, fmt);
    stax__vfmt(r->err.msg, sizeof r->err.msg, fmt, ap);
    va_end(ap);
    r->status = code;
    r->err_pos = at;
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}

/* Error at byte `at` of the token that starts at tok (position r->tok_pos). */
#define rd_fail(r, code, tok, at, ...) rd_fail_at((r), (code), rd_pos_in((r), (tok), (at)), __VA_ARGS__)

/* Advance pos over n bytes of the (UTF-8) window. For transcoded input the
 * offset counts input bytes: one per code point for 8-bit encodings; for
 * UTF-16 two, or four for a code point above U+FFFF. */
static inline void rd_advance(const stax_reader *r, stax_pos *pos, const char *p, size_t n) {
    uint64_t off = pos->offset;
    if (STAX_LIKELY(r->win_nocr && p >= r->in && p + n <= r->in + r->in_len)) stax__pos_advance_nocr(pos, p, n);
    else stax__pos_advance(pos, p, n);
    if (r->enc <= STAX__ENC_UTF8) return;
    uint64_t cps = 0, astral = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        cps += (c & 0xC0) != 0x80;
        astral += c >= 0xF0;
    }
    int wide = r->enc == STAX__ENC_UTF16LE || r->enc == STAX__ENC_UTF16BE;
    pos->offset = off + (wide ? 2 * (cps + astral) : cps);
}

static stax_pos rd_pos_in(const stax_reader *r, const char *tok, size_t at) {
    stax_pos p = r->tok_pos;
    if (r->n_ent) return p;
    rd_advance(r, &p, tok, at);
    return p;
}

/* The error in r->err (from entities.c or the DTD), at its byte of the token
 * [tok, tok+n) (at its start when the byte lies elsewhere, e.g. in entity text). */
static int rd_fail_err(stax_reader *r, const char *tok, size_t n) {
    size_t at = r->err.at >= tok && r->err.at <= tok + n ? (size_t)(r->err.at - tok) : 0;
    int code = r->err.code;
    if (r->status < 0) return r->status;
    r->status = code;
    r->err_pos = rd_pos_in(r, tok, at);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}

/* Short, printable form of a name for messages. */
static int rd_clip(size_t n) { return n > 64 ? 64 : (int)n; }

/* A check that the code guarantees failed: a bug, never the document's fault. */
#define rd_internal(r, what) \
    rd_fail_at((r), STAX_E_INTERNAL, (r)->tok_pos, "internal error: %s (%s:%d)", (what), __FILE__, __LINE__)

/* ================================================================ memory helpers */

static int rd_nomem(stax_reader *r) {
    return rd_fail_at(r, STAX_E_NOMEM, r->tok_pos, "out of memory");
}

/* Make room for n more bytes in b (at most max in all). Returns 0, or the
 * error: STAX_E_NOMEM when the allocator refuses; STAX_E_INTERNAL when the
 * size rules say max is always enough. */
static int rd_reserve(stax_reader *r, stax__buf *b, size_t n, size_t max) {
    int rc = stax__buf_reserve(&r->mem, b, n, max);
    if (!rc) return 0;
    if (rc == STAX_E_NOMEM) return rd_nomem(r);
    return rd_internal(r, "a buffer is smaller than its size rule");
}

/* The expansion budget of content and attribute values: by the input read so far. */
static uint64_t rd_budget(const stax_reader *r) {
    return stax__expand_budget(r->opt.entity_threshold, r->opt.entity_amplification, r->pos.offset);
}

/* Count n more expanded bytes against the amplification limits. */
static int rd_expand_account(stax_reader *r, size_t n, const char *tok, size_t at) {
    r->expanded += n + 1; /* + 1: a reference to an empty entity is work too */
    if (r->expanded > rd_budget(r)) {
        stax__expand_fail(&r->err, tok + at, r->expanded, r->pos.offset, r->opt.entity_threshold,
                          r->opt.entity_amplification);
        return rd_fail_err(r, tok, at);
    }
    return 0;
}

/* ================================================================ batch output */

/* The next event of the batch, or NULL (after failing) when the table is
 * full, which rd_room makes impossible. */
static inline stax_event *rd_emit(stax_reader *r, int type, stax_pos pos) {
    static const stax_str none = {0, 0};
    if (STAX_UNLIKELY(r->batch.count >= r->ev_cap)) return rd_internal(r, "event table full"), NULL;
    if (r->ev_ns) memset(&r->ev_ns[r->batch.count], 0, sizeof *r->ev_ns);
    stax_event *e = &r->events[r->batch.count++];
    e->type = (uint8_t)type;
    e->flags = 0;
    e->reserved = 0;
    e->attr_count = 0;
    e->attr_first = 0;
    e->name = e->text = none;
    e->pubid = e->sysid = none;
    e->pos = pos;
    return e;
}

/* Copy [s, s+n) to the arena (a token in the carry, whose bytes are about
 * to change). rd_room made room for the whole token. */
static int rd_arena_copy(stax_reader *r, stax_str *s) {
    if (!s->len) return 0;
    char *d = r->arena.ptr + r->arena.len;
    if (stax__buf_put(&r->arena, s->ptr, s->len)) return rd_internal(r, "arena smaller than the token");
    s->ptr = d;
    return 0;
}

static inline int rd_is_ws(unsigned char c) { return (stax__class[c] & STAX__C_WS) != 0; }

/* ================================================================ references */

/* Parse the reference at tok[i] ('&'). On success sets *end (index after ';'),
 * and either *cp (>= 0: a character to insert) or *cp = -1 with the entity
 * name in *name. Returns 0 or an error. */
static int rd_reference(stax_reader *r, const char *tok, size_t n, size_t i, size_t *end, long *cp,
                        stax_str *name) {
    stax__ref ref;
    if (stax__ref_parse(tok, n, i, r->opt.max_name, &ref, &r->err)) {
        if (ref.stop >= n && r->tok_at_eof)
            return rd_fail(r, STAX_E_TRUNCATED, tok, n, "the input ends inside a reference");
        return rd_fail_err(r, tok, n);
    }
    *end = ref.end;
    *cp = ref.cp;
    *name = ref.name;
    return 0;
}

/* What a reference to general entity `name` at tok[i] means (in content).
 * Returns the entity to expand (internal), or NULL with *report set when it
 * is reported as an ENTITY_REF event (external), or with *undeclared set
 * (undeclared where that is no error: reported too), or NULL after an error. */
static stax__entity *rd_general_entity(stax_reader *r, const char *tok, size_t n, size_t i, stax_str name,
                                       stax__entity **report, int *undeclared) {
    stax__entity *e;
    *report = NULL;
    *undeclared = 0;
    int rc = stax__general_entity(r->has_doctype ? &r->dtd : NULL, tok + i, name, 0, &e, &r->err);
    if (rc == STAX__REF_SKIP) {
        *undeclared = 1;
        return NULL;
    }
    if (rc == STAX__REF_REPORT) {
        *report = e;
        return NULL;
    }
    if (rc) return rd_fail_err(r, tok, n), NULL;
    return e;
}

/* ================================================================ text */

/* Skip a run of well-formed non-ASCII characters (2- and 3-byte UTF-8 that are
 * Char) from tok[i]; stops at the first byte it does not take: ASCII, or
 * anything rd_char_at must look at (4-byte forms, errors). Inline, since
 * accented and CJK text is made of such runs. */
static inline size_t rd_utf8_run(const char *tok, size_t n, size_t i) {
    const unsigned char *u = (const unsigned char *)tok;
    for (;;) {
        if (i + 1 < n && u[i] >= 0xC2 && u[i] < 0xE0 && (u[i + 1] & 0xC0) == 0x80) {
            i += 2;
        } else if (i + 2 < n && u[i] >= 0xE1 && u[i] < 0xEF && u[i] != 0xED && (u[i + 1] & 0xC0) == 0x80 &&
                   (u[i + 2] & 0xC0) == 0x80) {
            i += 3; /* E1..EC, EE: no overlong, no surrogate, no U+FFFE/FFFF possible */
        } else {
            return i;
        }
    }
}

/* Validate one non-ASCII or control byte sequence at tok[i]; returns its length or 0 after failing. */
static size_t rd_char_at(stax_reader *r, const char *tok, size_t n, size_t i) {
    size_t l = stax__char_at(tok, n, i, &r->err);
    if (!l) rd_fail_err(r, tok, n);
    return l;
}

/* Emit a TEXT event for [s, s+len). Returns 0 or an error. */
static int rd_text_event(stax_reader *r, const char *s, size_t len, stax_pos pos, unsigned flags) {
    size_t j = 0;
    int piece = r->text_cont || (flags & STAX_EVF_CONTINUED); /* part of a text cut for length */
    r->text_cont = (flags & STAX_EVF_CONTINUED) != 0;
    while (j < len && rd_is_ws((unsigned char)s[j])) j++;
    if (j == len) {
        if (len == 0) return 0;
        if ((r->opt.flags & STAX_READ_SKIP_WS) && !piece) return 0; /* only whole texts are skipped */
        flags |= STAX_EVF_WHITESPACE;
    }
    stax_event *e = rd_emit(r, STAX_EV_TEXT, pos);
    if (!e) return r->status;
    e->flags = (uint8_t)flags;
    e->text.ptr = s;
    e->text.len = len;
    return 0;
}

/* Text outside the root element: whitespace only, and no event. */
static int rd_text_outside(stax_reader *r, const char *tok, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (!rd_is_ws((unsigned char)tok[i])) {
            if ((unsigned char)tok[i] >= 0x80 || (unsigned char)tok[i] < 0x20)
                if (!rd_char_at(r, tok, n, i)) return r->status;
            return rd_fail(r, STAX_E_STRUCTURE, tok, i,
                           r->doc == DOC_EPILOG ? "text after the root element"
                                                : "text before the root element");
        }
    }
    return 0;
}

/* Parse a complete text token (or piece). Decodes references and line ends
 * into the arena when needed (always when copy is set, since the token then
 * lives in the carry); the decoded text is never longer than the token, and
 * rd_room made that much room. Returns the number of bytes consumed (< n when
 * an entity reference ends the token early), or 0 after an error. */
static size_t rd_text(stax_reader *r, const char *tok, size_t n, int copy, int cut) {
    if (r->doc != DOC_CONTENT) return rd_text_outside(r, tok, n) ? 0 : n;
    stax__out o = stax__buf_out(&r->arena);
    char *dst0 = o.p;
    int decoding = copy; /* the text goes to the arena */
    size_t i = 0, run = 0; /* run: start of bytes not yet copied to the arena */
    while (i < n) {
        /* bulk skip over plain bytes */
        i += stax__scan_text(tok + i, n - i);
        if (i >= n) break;
        unsigned char c = (unsigned char)tok[i];
        if (c == ']') {
            if (i + 2 < n && tok[i + 1] == ']' && tok[i + 2] == '>')
                return rd_fail(r, STAX_E_SYNTAX, tok, i, "']]>' is not allowed in text"), 0;
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = rd_utf8_run(tok, n, i);
            if (k > i) {
                i = k;
                continue;
            }
        }
        if (c != '&' && (c != '\r' || r->n_ent)) {
            size_t l = rd_char_at(r, tok, n, i);
            if (!l) return 0;
            i += l;
            continue;
        }
        decoding = 1;
        stax__out_put(&o, tok + run, i - run);
        if (c == '\r') {
            stax__out_byte(&o, '\n');
            i += (i + 1 < n && tok[i + 1] == '\n') ? 2 : 1;
            run = i;
            continue;
        }
        size_t end = 0;
        long cp = 0;
        stax_str name = {NULL, 0};
        if (rd_reference(r, tok, n, i, &end, &cp, &name)) return 0;
        if (cp >= 0) {
            char u[4];
            stax__out_put(&o, u, (size_t)stax__utf8_encode((uint32_t)cp, u));
            i = run = end;
            continue;
        }
        /* an entity: TEXT (what came before) ends here; then the entity is
         * expanded (once this token is consumed) or reported as ENTITY_REF */
        stax__entity *rep, *ent;
        int undeclared;
        ent = rd_general_entity(r, tok, n, i, name, &rep, &undeclared);
        if (!ent && !rep && !undeclared) return 0;
        if (copy) stax__out_put(&o, name.ptr, name.len); /* the name lives in the carry, about to change */
        if (o.over) return rd_internal(r, "decoded text longer than its token"), 0;
        size_t tl = (size_t)(o.p - dst0) - (copy ? name.len : 0);
        stax__buf_commit(&r->arena, &o);
        if (rd_text_event(r, dst0, tl, r->tok_pos, 0)) return 0;
        if (ent) {
            r->push_ent = ent;
            r->push_pos = rd_pos_in(r, tok, i);
            return end;
        }
        stax_event *e = rd_emit(r, STAX_EV_ENTITY_REF, rd_pos_in(r, tok, i));
        if (!e) return 0;
        e->name = name;
        if (copy) e->name.ptr = dst0 + tl;
        if (rep) {
            e->name = rep->name;
            e->pubid = rep->pubid;
            e->sysid = rep->sysid;
        }
        return end;
    }
    unsigned flags = cut ? STAX_EVF_CONTINUED : 0;
    if (!decoding) return rd_text_event(r, tok, n, r->tok_pos, flags) ? 0 : n;
    stax__out_put(&o, tok + run, n - run);
    if (o.over) return rd_internal(r, "decoded text longer than its token"), 0;
    stax__buf_commit(&r->arena, &o);
    return rd_text_event(r, dst0, (size_t)(o.p - dst0), r->tok_pos, flags) ? 0 : n;
}

/* [s, s+n) with line ends normalized, in the arena when they need it (for
 * comments, PIs, CDATA when they contain CR, or when they live in the carry).
 * Returns 0 or an error. */
static int rd_normalize_eol(stax_reader *r, const char *s, size_t n, int copy, stax_str *out) {
    out->ptr = s;
    out->len = n;
    /* in entity text a CR came from a character reference: it stays */
    const char *cr = r->n_ent ? NULL : memchr(s, '\r', n);
    if (!cr && !copy) return 0;
    stax__out o = stax__buf_out(&r->arena);
    char *d0 = o.p;
    if (!cr) stax__out_put(&o, s, n);
    else stax__out_eol(&o, s, n);
    if (o.over) return rd_internal(r, "normalized text longer than its token");
    stax__buf_commit(&r->arena, &o);
    out->ptr = d0;
    out->len = (size_t)(o.p - d0);
    return 0;
}

/* Check [tok+from, tok+to) holds only Char code points in valid UTF-8. */
static int rd_check_chars(stax_reader *r, const char *tok, size_t from, size_t to) {
    int err = 0;
    size_t bad = stax__check_chars(tok + from, to - from, &err);
    if (bad == to - from) return 0;
    size_t at = from + bad;
    if (err == STAX_E_CHAR) {
        uint32_t cp = (unsigned char)tok[at];
        if (cp >= 0x80) stax__utf8_decode((const unsigned char *)tok + at, to - at, &cp);
        return rd_fail(r, STAX_E_CHAR, tok, at, "character U+%04lX is not allowed in XML", (unsigned long)cp);
    }
    return rd_fail(r, STAX_E_ENCODING, tok, at, "invalid UTF-8 byte 0x%02X", (unsigned char)tok[at]);
}

/* ================================================================ names */

/* Scan a Name starting at tok[i]; returns its length (> 0) or 0 after failing.
 * The inline part takes all-ASCII names; the rest goes to rd_name_slow. */
static size_t rd_name_slow(stax_reader *r, const char *tok, size_t n, size_t i, const char *what);
static inline size_t rd_name(stax_reader *r, const char *tok, size_t n, size_t i, const char *what) {
    size_t j = i + 1;
    if (STAX_LIKELY(i < n && (unsigned char)tok[i] < 0x80 && (stax__class[(unsigned char)tok[i]] & STAX__C_NSTART))) {
        while (j < n && (stax__class[(unsigned char)tok[j]] & STAX__C_ANAME)) j++;
        if (STAX_LIKELY((j >= n || (unsigned char)tok[j] < 0x80) && j - i <= r->opt.max_name)) return j - i;
    }
    return rd_name_slow(r, tok, n, i, what);
}

static size_t rd_name_slow(stax_reader *r, const char *tok, size_t n, size_t i, const char *what) {
    size_t j = i;
    while (j < n && (stax__class[(unsigned char)tok[j]] & STAX__C_NAME)) j++;
    size_t len = j - i;
    /* non-ASCII bytes are classed as name bytes; verify them properly */
    if (len == 0) {
        if (i < n && ((unsigned char)tok[i] < 0x20 || (unsigned char)tok[i] >= 0x80) && !rd_char_at(r, tok, n, i))
            return 0;
        return rd_fail(r, STAX_E_NAME, tok, i, "%s: a name was expected", what), 0;
    }
    if (len > r->opt.max_name)
        return rd_fail(r, STAX_E_LIMIT_NAME, tok, 0, "%s name longer than max_name (%lu bytes)", what,
                       (unsigned long)r->opt.max_name), 0;
    size_t bad = stax__check_name(tok + i, len);
    if (bad) {
        size_t at = i + bad - 1;
        if ((unsigned char)tok[at] >= 0x80 && !rd_char_at(r, tok, n, at)) return 0;
        return rd_fail(r, STAX_E_NAME, tok, at, "invalid %s name '%.*s'", what, rd_clip(len), tok + i), 0;
    }
    return len;
}

static inline size_t rd_skip_ws(const char *tok, size_t n, size_t i) {
    while (i < n && rd_is_ws((unsigned char)tok[i])) i++;
    return i;
}

/* ================================================================ element stack */

/* Push an open element. max_depth was checked by the caller; the stack's
 * size rule (max_depth names of at most max_name bytes) makes room certain
 * in a fixed block. */
static int rd_push(stax_reader *r, const char *name, size_t len) {
    if (r->depth >= r->stack_off_cap) {
        size_t cap = r->stack_off_cap ? (size_t)r->stack_off_cap * 2 : 16;
        if (cap > r->opt.max_depth) cap = r->opt.max_depth;
        if (r->depth >= cap || r->mem.block) return rd_internal(r, "element stack deeper than max_depth");
        size_t *p = stax__mem_realloc(&r->mem, r->stack_off, (size_t)r->stack_off_cap * sizeof *p, cap * sizeof *p);
        if (!p) return rd_nomem(r);
        r->stack_off = p;
        r->stack_off_cap = (uint32_t)cap;
    }
    if (rd_reserve(r, &r->stack, len, r->stack_max)) return r->status;
    r->stack_off[r->depth++] = r->stack.len;
    if (stax__buf_put(&r->stack, name, len)) return rd_internal(r, "element stack full after reserving");
    return 0;
}

/* ================================================================ attributes */

/* Parse results that are not errors: the token must be parsed again with
 * more room (an empty batch). */
#define RD_RETRY ((size_t)-1)

/* The context for stax__attr_normalize at this point of the document. */
static void rd_attnorm(stax_reader *r, stax__attnorm *a, size_t max_out, int tokenized) {
    a->dtd = r->has_doctype ? &r->dtd : NULL;
    a->max_name = r->opt.max_name;
    a->frames = r->ents + r->n_ent;
    a->n_frames = r->opt.max_entity_depth - r->n_ent;
    a->max_depth = r->opt.max_entity_depth;
    a->expanded = &r->expanded;
    a->budget = rd_budget(r);
    a->input = r->pos.offset;
    a->threshold = r->opt.entity_threshold;
    a->amplification = r->opt.entity_amplification;
    a->max_out = max_out;
    a->max_token = r->opt.max_token;
    a->raw = 1;
    a->tokenized = tokenized;
}

/* Normalize the attribute value tok[vs, ve) (3.3.3; spaces collapsed for
 * declared types other than CDATA). Zero copy when the value needs no change
 * and the tag is not in the carry; else into the arena, where the tag may
 * write max_token bytes in all (arena0: where its writing began). Returns 0,
 * an error, or STAX__ROOM when the arena is short (the caller rolls back). */
static int rd_attr_value(stax_reader *r, const char *tok, size_t n, size_t vs, size_t ve, int copy, int tokenized,
                         size_t arena0, stax_str *out) {
    size_t i = vs;
    for (;;) {
        i += stax__scan_attr(tok + i, ve - i);
        if (i >= ve) break;
        unsigned char c = (unsigned char)tok[i];
        if (c == '<') return rd_fail(r, STAX_E_SYNTAX, tok, i, "'<' is not allowed in an attribute value");
        if (c == '&' || c == '\t' || c == '\n' || c == '\r') break;
        if (c >= 0x80) {
            size_t k = rd_utf8_run(tok, ve, i);
            if (k > i) {
                i = k;
                continue;
            }
        }
        size_t l = rd_char_at(r, tok, n, i);
        if (!l) return r->status;
        i += l;
    }
    int collapse = 0; /* a tokenized value with spaces to trim or collapse */
    if (tokenized && i >= ve && ve > vs) {
        collapse = tok[vs] == ' ' || tok[ve - 1] == ' ';
        for (size_t k = vs + 1; !collapse && k < ve; k++) collapse = tok[k] == ' ' && tok[k - 1] == ' ';
    }
    if (i >= ve && !copy && !collapse) {
        out->ptr = tok + vs;
        out->len = ve - vs;
        return 0;
    }
    size_t used = r->arena.len - arena0, max_out = r->opt.max_token > used ? r->opt.max_token - used : 0;
    stax__out o = stax__buf_out(&r->arena);
    char *d0 = o.p;
    size_t from = vs;
    if (!tokenized) { /* the checked prefix as it is */
        size_t k = i - vs < max_out ? i - vs : max_out;
        stax__out_put(&o, tok + vs, k);
        if (o.over) return STAX__ROOM;
        max_out -= k;
        from += k;
    }
    stax__attnorm a;
    rd_attnorm(r, &a, max_out, tokenized);
    int rc = stax__attr_normalize(&a, tok + from, ve - from, &o, &r->err);
    if (rc == STAX__ROOM) return rc;
    if (rc == STAX_E_LIMIT_TOKEN) r->err.at = tok; /* at the tag's '<', like every token limit */
    if (rc) return rd_fail_err(r, tok, n);
    stax__buf_commit(&r->arena, &o);
    out->ptr = d0;
    out->len = (size_t)(o.p - d0);
    return 0;
}

static int rd_str_same(stax_str a, stax_str b) { return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0; }

/* ================================================================ namespaces */

static int rd_is(stax_str s, const char *z) { return stax_str_eq(s, z); }

/* Split a QName into prefix and local part. Returns 0, or -1 if it is not a
 * QName of Namespaces 1.0 (one colon at most, both parts NCNames). */
static int rd_qname(stax_str name, stax_str *prefix, stax_str *local) {
    const char *c = memchr(name.ptr, ':', name.len);
    prefix->ptr = name.ptr;
    prefix->len = 0;
    *local = name;
    if (!c) return 0;
    size_t k = (size_t)(c - name.ptr);
    if (k == 0 || k + 1 >= name.len || memchr(c + 1, ':', name.len - k - 1)) return -1;
    uint32_t cp;
    if (stax__utf8_decode((const unsigned char *)c + 1, name.len - k - 1, &cp) <= 0 || !stax__is_name_start(cp)) return -1;
    prefix->len = k;
    local->ptr = c + 1;
    local->len = name.len - k - 1;
    return 0;
}

/* Declare the element's namespaces, then resolve its name and attributes.
 * depth: the element's depth (its bindings are dropped when it ends). */
static int rd_ns_start(stax_reader *r, const char *tok, size_t first, stax_str name, uint32_t depth, stax_qname *q) {
    static const stax_str xmlns_uri = {STAX__XMLNS_NS, sizeof STAX__XMLNS_NS - 1};
    uint32_t decls = 0;
    for (size_t j = first; j < r->attr_len; j++) {
        stax_attr *a = &r->attrs[j];
        stax_str p = {"", 0}, v = a->value;
        int dflt = rd_is(a->name, "xmlns");
        if (!dflt && !(a->name.len > 6 && memcmp(a->name.ptr, "xmlns:", 6) == 0)) continue;
        size_t at = r->attr_at[j];
        if (++decls > r->opt.max_ns)
            return rd_fail(r, STAX_E_LIMIT_NS, tok, at, "more than max_ns (%u) namespace declarations", (unsigned)r->opt.max_ns);
        int is_xml_uri = rd_is(v, STAX__XML_NS), is_xmlns_uri = rd_is(v, STAX__XMLNS_NS);
        if (!dflt) {
            stax_str pre, loc;
            if (rd_qname(a->name, &pre, &loc)) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "invalid namespace prefix");
            p = loc;
            if (rd_is(p, "xmlns")) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "the prefix xmlns must not be declared");
            if (rd_is(p, "xml")) {
                if (!is_xml_uri) return rd_fail(r, STAX_E_NAMESPACE, tok, at, "the prefix xml must be bound to " STAX__XML_NS);
                continue;
            }
            if (v.len == 0)
                return rd_fail(r, STAX_E_NAMESPACE, tok, at, "prefix '%.*s' bound to an empty name (not allowed in Namespaces 1.0)",
                               rd_clip(p.len), p.ptr);
        }
        if (is_xml_uri || is_xmlns_uri)
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "%s may not be bound to %s",
                           is_xml_uri ? STAX__XML_NS : STAX__XMLNS_NS,
                           dflt ? "the default namespace" : "any other prefix");
        int rc = stax__ns_push(&r->ns, p, v, depth, r->batch.count == 0);
        if (rc == STAX_E_NOMEM) return rd_nomem(r);
        if (rc) {
            if (r->batch.count) return STAX__ROOM; /* bindings that left scope are reclaimed between batches */
            return rd_fail(r, STAX_E_LIMIT_NS, tok, at, "namespace bindings in scope over max_ns_bytes (%zu bytes)",
                           r->opt.max_ns_bytes);
        }
    }
    /* the element */
    if (rd_qname(name, &q->prefix, &q->local))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "element name '%.*s' is not a QName", rd_clip(name.len), name.ptr);
    if (rd_is(q->prefix, "xmlns")) return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "the prefix xmlns is reserved for declarations");
    if (stax__ns_lookup(&r->ns, q->prefix, &q->uri))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 1, "unbound prefix '%.*s'", rd_clip(q->prefix.len), q->prefix.ptr);
    /* the attributes */
    for (size_t j = first; j < r->attr_len; j++) {
        stax_attr *a = &r->attrs[j];
        stax_qname *aq = &r->attr_ns[j];
        size_t at = r->attr_at[j];
        if (rd_qname(a->name, &aq->prefix, &aq->local))
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "attribute name '%.*s' is not a QName", rd_clip(a->name.len), a->name.ptr);
        if (rd_is(a->name, "xmlns") || rd_is(aq->prefix, "xmlns")) {
            aq->uri = xmlns_uri;
        } else if (aq->prefix.len == 0) {
            aq->uri.ptr = "";
            aq->uri.len = 0;
        } else if (stax__ns_lookup(&r->ns, aq->prefix, &aq->uri)) {
            return rd_fail(r, STAX_E_NAMESPACE, tok, at, "unbound prefix '%.*s'", rd_clip(aq->prefix.len), aq->prefix.ptr);
        }
        if (aq->prefix.len == 0) continue;
        for (size_t k = first; k < j; k++) {
            const stax_qname *bq = &r->attr_ns[k];
            if (bq->prefix.len && rd_str_same(bq->local, aq->local) && rd_str_same(bq->uri, aq->uri))
                return rd_fail(r, STAX_E_NAMESPACE, tok, at, "attributes '%.*s' and '%.*s' have the same expanded name",
                               rd_clip(r->attrs[k].name.len), r->attrs[k].name.ptr, rd_clip(a->name.len), a->name.ptr);
        }
    }
    return 0;
}

/* ================================================================ tags */

/* The ATTLIST of the element being started (ei >= 0): the declared type of
 * attribute `name`, marking its definition as given by this tag. */
static int rd_declared_type(stax_reader *r, int64_t ei, stax_str name) {
    if (ei < 0) return STAX__AT_CDATA;
    uint32_t k = stax__dtd_attdef(&r->dtd, (uint32_t)ei, name.ptr, name.len);
    if (k == UINT32_MAX) return STAX__AT_CDATA;
    r->dtd.atts[k].stamp = r->tag_stamp;
    return r->dtd.atts[k].type;
}

/* Defaults of the element's ATTLIST for the attributes the tag did not give. */
static int rd_add_defaults(stax_reader *r, const char *tok, size_t first, int64_t ei) {
    for (uint32_t k = r->dtd.elems[ei].first; k != UINT32_MAX; k = r->dtd.atts[k].next) {
        const stax__attdef *ad = &r->dtd.atts[k];
        if (ad->stamp == r->tag_stamp) continue;
        if (ad->deflt != STAX__DEF_VALUE && ad->deflt != STAX__DEF_FIXED) continue;
        if (r->attr_len - first >= r->opt.max_attrs)
            return rd_fail(r, STAX_E_LIMIT_ATTRS, tok, 0, "more than max_attrs (%u) attributes with the defaults",
                           (unsigned)r->opt.max_attrs);
        if (r->attr_len >= r->attr_cap) return rd_internal(r, "attribute table full");
        stax_attr *a = &r->attrs[r->attr_len++];
        a->name = ad->name;
        a->value = ad->value;
        a->flags = STAX_ATTRF_DEFAULTED;
        if (r->attr_at) r->attr_at[r->attr_len - 1] = 0;
    }
    return 0;
}

/* A start tag. Returns 0, an error, or STAX__ROOM: the arena or the namespace
 * bindings were short with events in the batch, and the tag was rolled back
 * (attributes, arena, expansion count, bindings) to be parsed again. */
static int rd_start_tag(stax_reader *r, const char *tok, size_t n, int copy) {
    if (r->doc == DOC_EPILOG) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "a second root element");
    size_t nl = rd_name(r, tok, n, 1, "element");
    if (!nl) return r->status;
    size_t first = r->attr_len, arena0 = r->arena.len, i = 1 + nl;
    uint64_t expanded0 = r->expanded;
    unsigned flags = 0;
    int64_t ei = -1;
    int rc = 0;
    if (r->dtd.n_atts && (ei = stax__dtd_elem(&r->dtd, tok + 1, nl)) >= 0 && ++r->tag_stamp == 0)
        r->tag_stamp = stax__dtd_clear_stamps(&r->dtd);
    for (;;) {
        size_t ws = i;
        i = rd_skip_ws(tok, n, i);
        if (i >= n) return rd_fail(r, STAX_E_SYNTAX, tok, n - 1, "unterminated start tag");
        if (tok[i] == '>') break;
        if (tok[i] == '/') {
            if (i + 1 < n && tok[i + 1] == '>') {
                flags = STAX_EVF_EMPTY;
                break;
            }
            return rd_fail(r, STAX_E_SYNTAX, tok, i, "'/' must be followed by '>' in a start tag");
        }
        if (ws == i) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace is required before an attribute");
        size_t an = rd_name(r, tok, n, i, "attribute");
        if (!an) return r->status;
        if (r->attr_len - first >= r->opt.max_attrs)
            return rd_fail(r, STAX_E_LIMIT_ATTRS, tok, 0, "more than max_attrs (%u) attributes",
                           (unsigned)r->opt.max_attrs);
        if (r->attr_len >= r->attr_cap) return rd_internal(r, "attribute table full");
        stax_attr *a = &r->attrs[r->attr_len];
        a->name.ptr = tok + i;
        a->name.len = an;
        a->flags = 0;
        size_t name_at = i;
        if (r->attr_at) r->attr_at[r->attr_len] = name_at;
        i = rd_skip_ws(tok, n, i + an);
        if (i >= n || tok[i] != '=')
            return rd_fail(r, STAX_E_SYNTAX, tok, i < n ? i : n - 1, "attribute '%.*s' needs '=' and a value",
                           rd_clip(an), tok + name_at);
        i = rd_skip_ws(tok, n, i + 1);
        if (i >= n || (tok[i] != '"' && tok[i] != '\''))
            return rd_fail(r, STAX_E_SYNTAX, tok, i < n ? i : n - 1, "attribute value must be quoted");
        char q = tok[i];
        const char *qe = memchr(tok + i + 1, q, n - i - 1);
        if (!qe) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unterminated attribute value");
        size_t ve = (size_t)(qe - tok);
        int tokenized = rd_declared_type(r, ei, a->name) != STAX__AT_CDATA;
        if ((rc = rd_attr_value(r, tok, n, i + 1, ve, copy, tokenized, arena0, &a->value)) != 0) break;
        for (size_t k = first; k < r->attr_len; k++)
            if (rd_str_same(r->attrs[k].name, a->name))
                return rd_fail(r, STAX_E_DUP_ATTR, tok, name_at, "attribute '%.*s' given twice", rd_clip(an),
                               tok + name_at);
        if (copy && rd_arena_copy(r, &a->name)) return r->status;
        r->attr_len++;
        i = ve + 1;
    }
    if (rc == STAX__ROOM) goto roll_back;
    if (rc) return rc;
    if (ei >= 0 && rd_add_defaults(r, tok, first, ei)) return r->status;
    if (r->depth >= r->opt.max_depth)
        return rd_fail(r, STAX_E_LIMIT_DEPTH, tok, 0, "elements nested deeper than max_depth (%u)", (unsigned)r->opt.max_depth);
    stax_str name = {tok + 1, nl};
    if (copy && rd_arena_copy(r, &name)) return r->status;
    /* namespaces before the push: an error leaves the depth as it was */
    stax_qname q;
    uint32_t ns_depth = r->depth + 1;
    if (r->ev_ns && (rc = rd_ns_start(r, tok, first, name, ns_depth, &q)) != 0) {
        stax__ns_pop(&r->ns, ns_depth); /* a refused tag leaves no binding in scope */
        if (rc == STAX__ROOM) goto roll_back;
        return r->status;
    }
    if (!flags && rd_push(r, tok + 1, nl)) return r->status; /* the depth was checked above */
    stax_event *e = rd_emit(r, STAX_EV_START, r->tok_pos);
    if (!e) return r->status;
    if (r->ev_ns) r->ev_ns[r->batch.count - 1] = q;
    e->flags = (uint8_t)flags;
    e->name = name;
    e->attr_first = first;
    e->attr_count = (uint32_t)(r->attr_len - first);
    if (flags) {
        e = rd_emit(r, STAX_EV_END, r->tok_pos);
        if (!e) return r->status;
        e->name = name;
        if (r->ev_ns) {
            r->ev_ns[r->batch.count - 1] = q;
            stax__ns_pop(&r->ns, ns_depth);
        }
        r->doc = r->depth ? DOC_CONTENT : DOC_EPILOG;
    } else {
        r->doc = DOC_CONTENT;
    }
    return 0;
roll_back:
    r->attr_len = first;
    r->arena.len = arena0;
    r->expanded = expanded0;
    return STAX__ROOM;
}

static int rd_end_tag(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t nl = rd_name(r, tok, n, 2, "end tag");
    if (!nl) return r->status;
    size_t i = rd_skip_ws(tok, n, 2 + nl);
    if (i != n - 1) return rd_fail(r, STAX_E_SYNTAX, tok, i, "end tag '%.*s' has more than a name", rd_clip(nl), tok + 2);
    if (r->depth == 0) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "end tag '%.*s' with no open element", rd_clip(nl), tok + 2);
    if (r->n_ent && r->depth <= r->ents[r->n_ent - 1].depth)
        return rd_fail(r, STAX_E_SYNTAX, tok, 0, "end tag '%.*s' in the replacement text of an entity closes an element opened outside it",
                       rd_clip(nl), tok + 2);
    size_t off = r->stack_off[r->depth - 1], ol = r->stack.len - off;
    const char *open = r->stack.ptr + off;
    if (ol != nl || memcmp(open, tok + 2, nl) != 0)
        return rd_fail(r, STAX_E_TAG_MISMATCH, tok, 0, "end tag '%.*s' does not match start tag '%.*s'", rd_clip(nl),
                       tok + 2, rd_clip(ol), open);
    stax_event *e = rd_emit(r, STAX_EV_END, r->tok_pos);
    if (!e) return r->status;
    e->name.ptr = tok + 2;
    e->name.len = nl;
    if (copy && rd_arena_copy(r, &e->name)) return r->status;
    if (r->ev_ns) { /* the name matched the start tag's, which was checked */
        stax_qname *q = &r->ev_ns[r->batch.count - 1];
        rd_qname(e->name, &q->prefix, &q->local);
        stax__ns_lookup(&r->ns, q->prefix, &q->uri);
        stax__ns_pop(&r->ns, r->depth);
    }
    r->depth--;
    r->stack.len = off;
    if (r->depth == 0) r->doc = DOC_EPILOG;
    return 0;
}

/* ================================================================ comments, PIs, XML declaration, CDATA */

static int rd_comment(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t cs = 4, ce = n - 3;
    for (const char *p = tok + cs; (p = memchr(p, '-', (size_t)(tok + ce - p))) != NULL; p++) {
        if (p + 1 < tok + ce && p[1] == '-')
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(p - tok), "'--' is not allowed inside a comment");
        if (p + 1 == tok + ce)
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(p - tok), "a comment may not end with '-'");
    }
    if (rd_check_chars(r, tok, cs, ce)) return r->status;
    stax_event *e = rd_emit(r, STAX_EV_COMMENT, r->tok_pos);
    if (!e) return r->status;
    return rd_normalize_eol(r, tok + cs, ce - cs, copy, &e->text);
}

/* Match `S? name S? = S? quote value quote` at tok[*i]; the value is returned. */
static int rd_decl_attr(stax_reader *r, const char *tok, size_t n, size_t *i, const char *name, stax_str *val) {
    size_t j = *i, k = strlen(name);
    if (j + k > n || memcmp(tok + j, name, k) != 0) return 1;
    j = rd_skip_ws(tok, n, j + k);
    if (j >= n || tok[j] != '=') return rd_fail(r, STAX_E_SYNTAX, tok, j, "'=' expected after '%s'", name);
    j = rd_skip_ws(tok, n, j + 1);
    if (j >= n || (tok[j] != '"' && tok[j] != '\''))
        return rd_fail(r, STAX_E_SYNTAX, tok, j, "quoted value expected for '%s'", name);
    const char *e = memchr(tok + j + 1, tok[j], n - j - 1);
    if (!e) return rd_fail(r, STAX_E_SYNTAX, tok, j, "unterminated value of '%s'", name);
    val->ptr = tok + j + 1;
    val->len = (size_t)(e - tok) - j - 1;
    *i = (size_t)(e - tok) + 1;
    return 0;
}

/* The encoding declaration: known (or given a table by the hook), and
 * consistent with what the first bytes said; 8-bit encodings other than
 * UTF-8 switch to a decoder right after the declaration. */
static int rd_declared_encoding(stax_reader *r, const char *tok, stax_str name) {
    size_t at = (size_t)(name.ptr - tok);
    const uint32_t *table = NULL;
    int declared = stax__encoding_by_name(name.ptr, name.len);
    if (declared < 0 && r->opt.unknown_encoding) {
        table = r->opt.unknown_encoding(r->opt.unknown_encoding_ud, name.ptr, name.len);
        if (table) declared = STAX__ENC_TABLE;
    }
    if (declared < 0)
        return rd_fail(r, STAX_E_UNSUPPORTED, tok, at, "encoding '%.*s' is not supported", rd_clip(name.len), name.ptr);
    int res = stax__encoding_resolve(r->detected, r->bom_len, declared);
    if (res < 0)
        return rd_fail(r, STAX_E_ENCODING, tok, at, "the declared encoding '%.*s' contradicts the input, which is %s%s",
                       rd_clip(name.len), name.ptr, stax__encoding_name(r->detected),
                       r->bom_len ? " (by its byte order mark)" : "");
    if (r->enc == STAX__ENC_UTF8 && res != STAX__ENC_UTF8) {
        r->switch_enc = res;
        r->switch_table = table;
    }
    return 0;
}

static int rd_xmldecl(stax_reader *r, const char *tok, size_t n, int copy) {
    size_t end = n - 2, i = 5, ws;
    stax_str ver = {0, 0}, enc = {0, 0}, sa = {0, 0};
    unsigned flags = 0;
    ws = i;
    i = rd_skip_ws(tok, end, i);
    int rc = i > ws ? rd_decl_attr(r, tok, end, &i, "version", &ver) : 1;
    if (rc < 0) return rc;
    if (rc) return rd_fail(r, STAX_E_SYNTAX, tok, i, "the XML declaration must start with version");
    if (ver.len < 3 || memcmp(ver.ptr, "1.", 2) != 0)
        return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(ver.ptr - tok), "unsupported XML version '%.*s'",
                       rd_clip(ver.len), ver.ptr);
    for (size_t k = 2; k < ver.len; k++)
        if (ver.ptr[k] < '0' || ver.ptr[k] > '9')
            return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(ver.ptr - tok), "invalid version number");
    ws = i;
    i = rd_skip_ws(tok, end, i);
    if (i > ws && (rc = rd_decl_attr(r, tok, end, &i, "encoding", &enc)) < 0) return rc;
    if (enc.ptr) {
        int ok = enc.len > 0 && ((enc.ptr[0] | 32) >= 'a' && (enc.ptr[0] | 32) <= 'z');
        for (size_t k = 1; ok && k < enc.len; k++) {
            char c = enc.ptr[k];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
        }
        if (!ok) return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(enc.ptr - tok), "invalid encoding name");
        if (!r->forced && rd_declared_encoding(r, tok, enc)) return r->status;
        ws = i;
        i = rd_skip_ws(tok, end, i);
    }
    if (i > ws && (rc = rd_decl_attr(r, tok, end, &i, "standalone", &sa)) < 0) return rc;
    if (sa.ptr) {
        if (sa.len == 3 && memcmp(sa.ptr, "yes", 3) == 0) flags = STAX_EVF_STANDALONE_YES, r->dtd.standalone = 1;
        else if (sa.len == 2 && memcmp(sa.ptr, "no", 2) == 0) flags = STAX_EVF_STANDALONE_NO;
        else return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(sa.ptr - tok), "standalone must be 'yes' or 'no'");
    }
    i = rd_skip_ws(tok, end, i);
    if (i != end) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unexpected text in the XML declaration");
    stax_event *e = rd_emit(r, STAX_EV_XMLDECL, r->tok_pos);
    if (!e) return r->status;
    e->flags = (uint8_t)flags;
    e->name = ver;
    e->text = enc;
    if (copy) {
        if (rd_arena_copy(r, &e->name)) return r->status;
        if (enc.ptr && rd_arena_copy(r, &e->text)) return r->status;
    }
    return 0;
}

static int rd_pi(stax_reader *r, const char *tok, size_t n, int copy, int at_start) {
    size_t tl = rd_name(r, tok, n, 2, "processing instruction target");
    if (!tl) return r->status;
    const char *t = tok + 2;
    if (tl == 3 && (t[0] | 32) == 'x' && (t[1] | 32) == 'm' && (t[2] | 32) == 'l') {
        if (at_start && t[0] == 'x' && t[1] == 'm' && t[2] == 'l') return rd_xmldecl(r, tok, n, copy);
        return rd_fail(r, STAX_E_SYNTAX, tok, 0,
                       at_start ? "the XML declaration must be written in lower case"
                                : "the XML declaration is only allowed at the very start of the document");
    }
    if (r->ev_ns && memchr(t, ':', tl))
        return rd_fail(r, STAX_E_NAMESPACE, tok, 2, "a PI target may not contain a colon with namespaces on");
    size_t i = 2 + tl, ds;
    if (i == n - 2) ds = i;
    else if (rd_is_ws((unsigned char)tok[i])) ds = rd_skip_ws(tok, n - 2, i);
    else return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace is required after the PI target");
    if (rd_check_chars(r, tok, ds, n - 2)) return r->status;
    stax_event *e = rd_emit(r, STAX_EV_PI, r->tok_pos);
    if (!e) return r->status;
    e->name.ptr = t;
    e->name.len = tl;
    if (rd_normalize_eol(r, tok + ds, n - 2 - ds, copy, &e->text)) return r->status;
    return copy ? rd_arena_copy(r, &e->name) : 0;
}

/* A CDATA section, or a piece of one: content is [cs, ce). */
static int rd_cdata(stax_reader *r, const char *tok, size_t cs, size_t ce, int copy, int cut) {
    if (r->doc != DOC_CONTENT) return rd_fail(r, STAX_E_STRUCTURE, tok, 0, "CDATA section outside the root element");
    if (rd_check_chars(r, tok, cs, ce)) return r->status;
    stax_event *e = rd_emit(r, STAX_EV_CDATA, r->tok_pos);
    if (!e) return r->status;
    e->flags = cut ? STAX_EVF_CONTINUED : 0;
    return rd_normalize_eol(r, tok + cs, ce - cs, copy, &e->text);
}

/* ================================================================ DOCTYPE */

static int rd_quoted(stax_reader *r, const char *tok, size_t n, size_t *i, stax_str *out, const char *what) {
    size_t j = *i;
    if (j >= n || (tok[j] != '"' && tok[j] != '\''))
        return rd_fail(r, STAX_E_SYNTAX, tok, j < n ? j : n - 1, "quoted %s expected", what);
    const char *e = memchr(tok + j + 1, tok[j], n - j - 1);
    if (!e) return rd_fail(r, STAX_E_SYNTAX, tok, j, "unterminated %s", what);
    out->ptr = tok + j + 1;
    out->len = (size_t)(e - tok) - j - 1;
    *i = (size_t)(e - tok) + 1;
    return 0;
}

static int rd_pubid_char(unsigned char c) {
    return c == ' ' || c == '\r' || c == '\n' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || (c && strchr("-'()+,./:=?;!*#@$_%", c));
}

static int rd_doctype(stax_reader *r, const char *tok, size_t n, int copy) {
    if (r->doc == DOC_CONTENT || r->doc == DOC_EPILOG || r->has_doctype)
        return rd_fail(r, STAX_E_STRUCTURE, tok, 0,
                       r->has_doctype ? "a second DOCTYPE" : "DOCTYPE after the root element");
    size_t i = 9;
    if (i >= n || !rd_is_ws((unsigned char)tok[i])) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected after DOCTYPE");
    i = rd_skip_ws(tok, n, i);
    size_t nl = rd_name(r, tok, n, i, "DOCTYPE");
    if (!nl) return r->status;
    stax_str name = {tok + i, nl}, pub = {0, 0}, sys = {0, 0}, subset = {0, 0};
    unsigned flags = 0;
    size_t ws = i + nl;
    i = rd_skip_ws(tok, n, ws);
    if (i + 6 <= n && (memcmp(tok + i, "SYSTEM", 6) == 0 || memcmp(tok + i, "PUBLIC", 6) == 0)) {
        int is_pub = tok[i] == 'P';
        if (i == ws) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected before the external id");
        size_t k = i + 6;
        i = rd_skip_ws(tok, n, k);
        if (i == k) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected after %s", is_pub ? "PUBLIC" : "SYSTEM");
        if (is_pub) {
            if (rd_quoted(r, tok, n, &i, &pub, "public id")) return r->status;
            for (size_t q = 0; q < pub.len; q++)
                if (!rd_pubid_char((unsigned char)pub.ptr[q]))
                    return rd_fail(r, STAX_E_SYNTAX, tok, (size_t)(pub.ptr - tok) + q, "character not allowed in a public id");
            k = i;
            i = rd_skip_ws(tok, n, k);
            if (i == k) return rd_fail(r, STAX_E_SYNTAX, tok, i, "whitespace expected before the system id");
        }
        if (rd_quoted(r, tok, n, &i, &sys, "system id")) return r->status;
        if (rd_check_chars(r, tok, (size_t)(sys.ptr - tok), (size_t)(sys.ptr - tok) + sys.len)) return r->status;
        i = rd_skip_ws(tok, n, i);
    }
    if (i < n && tok[i] == '[') {
        /* the framing already matched the brackets, quotes, comments and PIs;
         * the subset ends at the ']' the framing stopped at: the last one */
        size_t j = n - 1;
        while (j > i && tok[j] != ']') j--;
        if (j == i) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unterminated internal subset");
        if (rd_check_chars(r, tok, i + 1, j)) return r->status;
        subset.ptr = tok + i + 1;
        subset.len = j - i - 1;
        flags = STAX_EVF_HAS_SUBSET;
        i = rd_skip_ws(tok, n, j + 1);
    }
    if (i != n - 1) return rd_fail(r, STAX_E_SYNTAX, tok, i, "unexpected text in DOCTYPE");
    r->dtd.has_external = sys.ptr != NULL;
    if (subset.ptr && stax__dtd_parse(&r->dtd, subset.ptr, subset.len)) return rd_fail_err(r, tok, n);
    r->has_doctype = 1;
    r->doc = DOC_PROLOG;
    stax_event *e = rd_emit(r, STAX_EV_DOCTYPE, r->tok_pos);
    if (!e) return r->status;
    e->flags = (uint8_t)flags;
    e->name = name;
    if (copy || memchr(tok, '\r', n)) {
        copy = 1;
        if (rd_arena_copy(r, &e->name)) return r->status;
    }
    if (rd_normalize_eol(r, pub.ptr ? pub.ptr : "", pub.len, copy, &e->pubid) ||
        rd_normalize_eol(r, sys.ptr ? sys.ptr : "", sys.len, copy, &e->sysid) ||
        rd_normalize_eol(r, subset.ptr ? subset.ptr : "", subset.len, copy, &e->text))
        return r->status;
    return 0;
}

/* ================================================================ framing */

static const char *rd_find2(const char *p, size_t n, char a, char b) {
    for (size_t i = 0; i + 1 < n;) {
        const char *q = memchr(p + i, a, n - 1 - i);
        if (!q) return NULL;
        if (q[1] == b) return q;
        i = (size_t)(q - p) + 1;
    }
    return NULL;
}

static const char *rd_find3(const char *p, size_t n, char a, char b, char c) {
    for (size_t i = 0; i + 2 < n;) {
        const char *q = memchr(p + i, a, n - 2 - i);
        if (!q) return NULL;
        if (q[1] == b && q[2] == c) return q;
        i = (size_t)(q - p) + 1;
    }
    return NULL;
}

/* Where a text or CDATA piece of more than max_text bytes is cut: at max_text,
 * moved back so that it splits no UTF-8 sequence, reference, CR LF or "]]>".
 * Depends only on the bytes, never on chunking. */
static size_t rd_cut(const stax_reader *r, const char *p, size_t max, int text) {
    size_t cut = max;
    if (text) {
        size_t lim = r->opt.max_name + 16, k = cut;
        while (k > 0 && cut - k < lim) {
            char c = p[k - 1];
            if (c == ';' || c == '<') break;
            if (c == '&') {
                cut = k - 1;
                break;
            }
            k--;
        }
    }
    for (int b = 0; b < 2 && cut > 0 && p[cut - 1] == ']'; b++) cut--;
    if (cut > 0 && p[cut - 1] == '\r') cut--;
    while (cut > 0 && ((unsigned char)p[cut] & 0xC0) == 0x80) cut--;
    if (cut == 0) { /* nothing sensible to back off to: cut at a character boundary */
        cut = max;
        while (cut > 1 && ((unsigned char)p[cut] & 0xC0) == 0x80) cut--;
    }
    return cut;
}

/* The length of the run of name bytes at p[i] (what rd_name would take
 * before checking the name), up to n. */
static size_t rd_name_run(const char *p, size_t n, size_t i) {
    size_t j = i;
    while (j < n && (stax__class[(unsigned char)p[j]] & STAX__C_NAME)) j++;
    return j - i;
}

/* For rd_limit_token: from p[*i], whitespace then an attribute name (its
 * start and length, *k); returns 0 if that is not what is there. */
static int rd_plain_name(const char *p, size_t lim, size_t *i, size_t *k) {
    size_t j = *i;
    while (j < lim && rd_is_ws((unsigned char)p[j])) j++;
    if (j == *i || j >= lim) return 0;
    *i = j;
    *k = rd_name_run(p, lim, j);
    return *k > 0;
}

/* ...then `= "value"` with a value of printable ASCII and no reference. */
static int rd_plain_value(const char *p, size_t lim, size_t *i) {
    size_t j = *i;
    while (j < lim && rd_is_ws((unsigned char)p[j])) j++;
    if (j >= lim || p[j] != '=') return 0;
    j++;
    while (j < lim && rd_is_ws((unsigned char)p[j])) j++;
    if (j >= lim || (p[j] != '"' && p[j] != '\'')) return 0;
    char q = p[j++];
    while (j < lim && p[j] != q && p[j] >= 0x20 && p[j] < 0x7F && p[j] != '&' && p[j] != '<') j++;
    if (j >= lim || p[j] != q) return 0;
    *i = j + 1;
    return 1;
}

/* A token over max_token: the same status, position and message whether it
 * was seen whole or in pieces. A name over max_name, or one attribute too
 * many, within its first max_token bytes is what parsing would have met
 * first, so it is reported instead when everything before it is plain
 * (names, spaces, values of printable ASCII without references, no
 * attribute twice); n: the bytes of the token at hand. */
static int rd_limit_token(stax_reader *r, const rd_frame *f, const char *p, size_t n) {
    size_t lim = n < r->opt.max_token ? n : r->opt.max_token, mn = r->opt.max_name;
    const char *what = f->kind == K_COMMENT ? "comment" : f->kind == K_PI ? "processing instruction"
                     : f->kind == K_DOCTYPE ? "DOCTYPE" : "tag";
    const char *name_what = NULL;
    if (f->kind == K_STAG || f->kind == K_ETAG || f->kind == K_PI) {
        size_t i = f->kind == K_STAG ? 1 : 2, e = rd_name_run(p, lim, i), k = 0;
        if (e > mn) name_what = f->kind == K_STAG ? "element" : f->kind == K_ETAG ? "end tag" : "processing instruction target";
        i += e;
        for (uint32_t attrs = 0; !name_what && f->kind == K_STAG && e && rd_plain_name(p, lim, &i, &k);) {
            if (k > mn) {
                name_what = "attribute";
                break;
            }
            if (i + k >= lim || stax__check_name(p + i, k)) break; /* cut by lim, or not a name */
            if (++attrs > r->opt.max_attrs)
                return rd_fail(r, STAX_E_LIMIT_ATTRS, p, 0, "more than max_attrs (%u) attributes", (unsigned)r->opt.max_attrs);
            size_t at = i;
            i += k;
            if (!rd_plain_value(p, lim, &i)) break;
            int dup = 0; /* the parse stops at an attribute given twice */
            for (size_t j = 1 + e, l = 0, seen = 1; !dup && seen < attrs && rd_plain_name(p, lim, &j, &l); seen++) {
                dup = l == k && memcmp(p + j, p + at, k) == 0;
                j += l;
                rd_plain_value(p, lim, &j);
            }
            if (dup) break;
        }
    } else if (f->kind == K_DOCTYPE) {
        size_t i = 9;
        while (i < lim && rd_is_ws((unsigned char)p[i])) i++;
        if (i > 9 && rd_name_run(p, lim, i) > mn) name_what = "DOCTYPE";
    }
    if (name_what)
        return rd_fail(r, STAX_E_LIMIT_NAME, p, 0, "%s name longer than max_name (%lu bytes)", name_what, (unsigned long)mn);
    return rd_fail(r, STAX_E_LIMIT_TOKEN, p, 0, "%s longer than max_token (%zu bytes)", what, r->opt.max_token);
}

/* Frame the token at p (n bytes available, the token starts at p[0]).
 * Returns its length, 0 if more bytes are needed (state kept in f), or -1
 * after an error. */
static ptrdiff_t rd_frame_scan(stax_reader *r, rd_frame *f, const char *p, size_t n) {
    size_t max_text = r->opt.max_text, max_tok = r->opt.max_token;
    switch (f->kind) {
    case K_TEXT: {
        size_t lim = n < max_text + 1 ? n : max_text + 1;
        const char *lt = f->scan < lim ? memchr(p + f->scan, '<', lim - f->scan) : NULL;
        if (lt) return lt - p;
        if (n > max_text) {
            f->cut = 1;
            return (ptrdiff_t)rd_cut(r, p, max_text, 1);
        }
        f->scan = n;
        return 0;
    }
    case K_MARKUP: {
        static const char *const bang[] = {"<!--", "<![CDATA[", "<!DOCTYPE"};
        static const int bang_kind[] = {K_COMMENT, K_CDATA, K_DOCTYPE};
        if (n < 2) return 0;
        if (p[1] == '/') f->kind = K_ETAG, f->scan = 2;
        else if (p[1] == '?') f->kind = K_PI, f->scan = 2;
        else if (p[1] != '!') f->kind = K_STAG, f->scan = 1;
        else {
            int partial = 0;
            for (int k = 0; k < 3; k++) {
                size_t bl = strlen(bang[k]), m = n < bl ? n : bl;
                if (memcmp(p, bang[k], m) != 0) continue;
                if (m < bl) {
                    partial = 1;
                    continue;
                }
                f->kind = bang_kind[k];
                f->scan = bl;
            }
            if (f->kind == K_MARKUP) {
                if (partial) return 0;
                return rd_fail(r, STAX_E_SYNTAX, p, 0, "invalid markup after '<!'"), -1;
            }
        }
        return rd_frame_scan(r, f, p, n);
    }
    case K_STAG:
    case K_ETAG: {
        /* scan no further than max_token: what lies beyond cannot matter,
         * however the input is chunked (the token is over the limit) */
        size_t i = f->scan, lim = n < max_tok ? n : max_tok;
        int q = f->quote;
        while (i < lim) {
            if (!q) i += stax__scan_tag(p + i, lim - i);
            if (i >= lim) break;
            if (q) { /* the closing quote, or a '<' (an error) before it */
                i += stax__scan2(p + i, lim - i, (char)q, '<');
                if (i >= lim) break;
                if (p[i] == '<') return rd_fail(r, STAX_E_SYNTAX, p, i, "'<' is not allowed in an attribute value"), -1;
                i++;
                q = 0;
                continue;
            }
            char c = p[i];
            if (c == '>') return (ptrdiff_t)i + 1;
            if (c == '"' || c == '\'') q = c;
            else if (c == '<') return rd_fail(r, STAX_E_SYNTAX, p, i, "'<' inside a tag"), -1;
            i++;
        }
        if (i >= max_tok) return rd_limit_token(r, f, p, n), -1;
        f->scan = i;
        f->quote = q;
        return 0;
    }
    case K_COMMENT:
    case K_PI: {
        int com = f->kind == K_COMMENT;
        size_t from = f->scan > (com ? 6u : 4u) ? f->scan - (com ? 2 : 1) : (com ? 4 : 2);
        const char *e = com ? rd_find3(p + from, n - from, '-', '-', '>') : rd_find2(p + from, n - from, '?', '>');
        if (e) return (e - p) + (com ? 3 : 2);
        if (n > max_tok) return rd_limit_token(r, f, p, n), -1;
        f->scan = n;
        return 0;
    }
    case K_CDATA:
    case K_CDATA_CONT: {
        size_t cs = f->kind == K_CDATA ? 9 : 0, from = f->scan > cs + 2 ? f->scan - 2 : cs;
        size_t lim = n < cs + max_text + 3 ? n : cs + max_text + 3;
        const char *e = from < lim ? rd_find3(p + from, lim - from, ']', ']', '>') : NULL;
        if (e) return (e - p) + 3;
        if (n >= cs + max_text + 3) {
            f->cut = 1;
            return (ptrdiff_t)(cs + rd_cut(r, p + cs, max_text, 0));
        }
        f->scan = n;
        return 0;
    }
    case K_DOCTYPE: {
        size_t i = f->scan;
        while (i < n) {
            char c = p[i];
            if (f->quote) {
                const char *e = memchr(p + i, f->quote, n - i);
                if (!e) {
                    i = n;
                    break;
                }
                i = (size_t)(e - p) + 1;
                f->quote = 0;
                continue;
            }
            if (f->sub == 2 || f->sub == 3) { /* inside a comment or PI of the subset */
                const char *e = f->sub == 2 ? rd_find3(p + i, n - i, '-', '-', '>') : rd_find2(p + i, n - i, '?', '>');
                if (!e) {
                    i = n > i + 2 ? n - 2 : i;
                    break;
                }
                i = (size_t)(e - p) + (f->sub == 2 ? 3 : 2);
                f->sub = 1;
                continue;
            }
            if (c == '"' || c == '\'') f->quote = c;
            else if (f->sub == 0 && c == '[') f->sub = 1;
            else if (f->sub == 0 && c == '>') return (ptrdiff_t)i + 1;
            else if (f->sub == 1 && c == ']') f->sub = 0;
            else if (f->sub == 1 && c == '<') {
                if (n - i < 4) break; /* need "<!--" or "<?" to decide */
                if (p[i + 1] == '?') {
                    f->sub = 3;
                    i += 2;
                    continue;
                }
                if (p[i + 1] == '!' && p[i + 2] == '-' && p[i + 3] == '-') {
                    f->sub = 2;
                    i += 4;
                    continue;
                }
            }
            i++;
        }
        if (n > max_tok) return rd_limit_token(r, f, p, n), -1;
        f->scan = i;
        return 0;
    }
    default: return rd_internal(r, "no token kind to frame"), -1;
    }
}

/* rd_frame_scan, plus the token-size limit: a token other than text or CDATA
 * (which are cut) longer than max_token is an error however it was chunked. */
static ptrdiff_t rd_frame_end(stax_reader *r, rd_frame *f, const char *p, size_t n) {
    ptrdiff_t e = rd_frame_scan(r, f, p, n);
    if (e > 0 && (size_t)e > r->opt.max_token && f->kind != K_TEXT && f->kind != K_CDATA && f->kind != K_CDATA_CONT)
        return rd_limit_token(r, f, p, n), -1;
    return e;
}

/* The kind of the token that starts with byte c. */
static void rd_frame_start(stax_reader *r, rd_frame *f, unsigned char c) {
    memset(f, 0, sizeof *f);
    if (r->in_cdata) f->kind = K_CDATA_CONT;
    else if (c == '<') f->kind = K_MARKUP;
    else f->kind = K_TEXT;
}

/* ================================================================ token dispatch */

/* Parse the complete token [tok, tok+n) framed as f. Returns bytes consumed
 * (n, or less for a text ended early by an entity reference), 0 on error, or
 * RD_RETRY: a start tag needed more room than the batch had left. */
static size_t rd_token(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy) {
    int at_start = r->doc == DOC_START;
    int rc = 0;
    size_t used = n;
    switch (f->kind) {
    case K_TEXT:
        used = rd_text(r, tok, n, copy, f->cut);
        if (!used) return 0;
        break;
    case K_STAG:
        rc = rd_start_tag(r, tok, n, copy);
        if (rc == STAX__ROOM) return RD_RETRY;
        break;
    case K_ETAG: rc = rd_end_tag(r, tok, n, copy); break;
    case K_COMMENT: rc = rd_comment(r, tok, n, copy); break;
    case K_PI: rc = rd_pi(r, tok, n, copy, at_start && r->tok_pos.column == 1 && r->tok_pos.line == 1); break;
    case K_CDATA:
    case K_CDATA_CONT: {
        size_t cs = f->kind == K_CDATA ? 9 : 0;
        rc = rd_cdata(r, tok, cs, f->cut ? n : n - 3, copy, f->cut);
        r->in_cdata = f->cut;
        break;
    }
    case K_DOCTYPE: rc = rd_doctype(r, tok, n, copy); break;
    default: rc = rd_internal(r, "no such token kind");
    }
    if (rc) return 0;
    if (r->doc == DOC_START) r->doc = DOC_PROLOG;
    return used;
}

/* Room for a token of n bytes: events, attributes, arena. Returns 1 if the
 * batch must end first, 0 if there is room, -1 on error. Grows buffers only
 * while the batch is empty (growing moves them). */
static int rd_room(stax_reader *r, size_t n) {
    int empty = r->batch.count == 0;
    /* a token gives at most two events (START and END of <a/>, TEXT and ENTITY_REF) */
    if (!empty && r->batch.count + 2 > r->opt.batch_events) return 1;
    if (r->attr_cap - r->attr_len < r->opt.max_attrs) {
        if (!empty) return 1;
        r->attr_len = 0;
    }
    /* what a token can write to the arena is never more than its length
     * (attribute values that expand entities aside: see rd_parse) */
    size_t need = n + RD_ARENA_SLACK;
    if (r->arena.cap - r->arena.len < need) {
        if (!empty) return 1;
        /* the whole arena at once: only what batches write of it is touched */
        r->arena.len = 0;
        if (rd_reserve(r, &r->arena, r->arena_max, r->arena_max)) return -1;
    }
    return 0;
}

/* rd_token, and on RD_RETRY with an empty batch once more with the whole
 * arena (max_token + 16 bytes, room for any tag). RD_RETRY is returned only
 * when the batch holds events: it must end before the token. */
static size_t rd_parse(stax_reader *r, const rd_frame *f, const char *tok, size_t n, int copy) {
    size_t used = rd_token(r, f, tok, n, copy);
    if (used != RD_RETRY || r->batch.count) return used;
    r->arena.len = 0;
    if (rd_reserve(r, &r->arena, r->arena_max, r->arena_max)) return 0;
    used = rd_token(r, f, tok, n, copy);
    if (used == RD_RETRY) return rd_internal(r, "a tag did not fit the whole arena"), 0;
    return used;
}

/* Consume n bytes of the token that was just parsed. */
static void rd_consume(stax_reader *r, const char *tok, size_t n) {
    if (r->n_ent) return; /* entity text: events carry the reference's position */
    rd_advance(r, &r->pos, tok, n);
}

/* Start expanding the entity referenced by the token just consumed. */
static int rd_push_entity(stax_reader *r) {
    stax__entity *e = r->push_ent;
    r->push_ent = NULL;
    r->tok_pos = r->push_pos;
    if (r->n_ent >= r->opt.max_entity_depth)
        return rd_fail_at(r, STAX_E_LIMIT_ENTITY, r->push_pos, "entity references nested deeper than max_entity_depth (%u)",
                          (unsigned)r->opt.max_entity_depth);
    if (rd_expand_account(r, e->value.len, e->value.ptr, 0)) return r->status;
    if (r->n_ent == 0) r->ent_pos = r->push_pos;
    stax__frame *f = &r->ents[r->n_ent++];
    f->p = r->in;
    f->n = r->in_len;
    f->i = r->in_pos;
    f->e = e;
    f->depth = r->depth;
    e->busy = 1;
    r->in = e->value.ptr;
    r->in_len = e->value.len;
    r->in_pos = 0;
    return 0;
}

/* The entity's text is used up: back to the window it interrupted. */
static int rd_pop_entity(stax_reader *r) {
    stax__frame *f = &r->ents[r->n_ent - 1];
    r->tok_pos = r->ent_pos;
    if (r->depth != f->depth || r->in_cdata)
        return rd_fail_at(r, STAX_E_SYNTAX, r->ent_pos, "the replacement text of entity '%.*s' is not well-balanced: %s",
                          rd_clip(f->e->name.len), f->e->name.ptr,
                          r->in_cdata ? "a CDATA section does not end in it" : "an element starts or ends in it but not both");
    f->e->busy = 0;
    r->in = f->p;
    r->in_len = f->n;
    r->in_pos = f->i;
    r->n_ent--;
    /* the entity's tokens used the framing state: start the pending carry's
     * framing again (it holds the rest of the text the reference was in) */
    if (!r->n_ent && r->carry.len) rd_frame_start(r, &r->fr, (unsigned char)r->carry.ptr[0]);
    return 0;
}

/* The carry never holds more than carry_max bytes: framing decides every
 * token within that many (RD_CARRY_SLACK). */
static int rd_carry_append(stax_reader *r, const char *p, size_t n) {
    if (rd_reserve(r, &r->carry, n, r->carry_max)) return -1;
    if (stax__buf_put(&r->carry, p, n)) return rd_internal(r, "carry full after reserving"), -1;
    return 0;
}

/* Whether input follows the window in the raw chunk: bytes still to decode,
 * or a decoding error that the text decoded so far runs into (it is reported
 * when a token needs what is past it, however the bytes came). */
static inline int rd_behind(const stax_reader *r) {
    return r->enc > STAX__ENC_UTF8 && (r->raw_pos < r->raw_len || r->dec_err);
}

/* The carry holds the start of a token; extend it from the window until the
 * token ends. Returns 1 when a token was parsed, 0 when the window ran out,
 * 2 when the batch must end first, -1 on error. */
static int rd_resume_carry(stax_reader *r) {
    r->tok_pos = r->pos; /* the carry always starts at the first unconsumed byte */
    for (;;) {
        size_t avail = r->in_len - r->in_pos;
        r->tok_at_eof = 0;
        ptrdiff_t end;
        size_t added = 0;
        if (avail == 0 && (!r->ended || rd_behind(r))) {
            /* the carry may already hold a whole token (kept when a batch
             * filled): take it before asking for more input */
            end = rd_frame_end(r, &r->fr, r->carry.ptr, r->carry.len);
            if (end <= 0) return end < 0 ? -1 : 0;
        } else if (avail) {
            size_t step = r->carry.len > 4096 ? r->carry.len : 4096;
            if (step > avail) step = avail;
            if (step > r->carry_max - r->carry.len) step = r->carry_max - r->carry.len;
            if (!step) return rd_internal(r, "a token is still undecided when the carry is full"), -1;
            if (rd_carry_append(r, r->in + r->in_pos, step)) return -1;
            r->in_pos += step;
            added = step;
            end = rd_frame_end(r, &r->fr, r->carry.ptr, r->carry.len);
        } else if ((end = rd_frame_end(r, &r->fr, r->carry.ptr, r->carry.len)) != 0) {
            /* the carry may hold more than one token (kept when a batch filled) */
        } else if (r->fr.kind == K_TEXT) {
            end = (ptrdiff_t)r->carry.len; /* text ends with the input */
            r->tok_at_eof = 1;
        } else {
            stax_pos at = r->tok_pos;
            rd_advance(r, &at, r->carry.ptr, r->carry.len);
            return rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside %s",
                              r->fr.kind == K_COMMENT ? "a comment"
                              : r->fr.kind == K_PI ? "a processing instruction"
                              : r->fr.kind == K_CDATA || r->fr.kind == K_CDATA_CONT ? "a CDATA section"
                              : r->fr.kind == K_DOCTYPE ? "the DOCTYPE"
                              : "a tag"), -1;
        }
        if (end < 0) return -1;
        if (end == 0) continue;
        /* give back what was appended past the token end */
        size_t tl = (size_t)end, extra = r->carry.len - tl, back = extra < added ? extra : added;
        r->in_pos -= back;
        r->carry.len -= back;
        int room = rd_room(r, tl);
        size_t used = 0;
        if (room < 0) return -1;
        if (!room && (used = rd_parse(r, &r->fr, r->carry.ptr, tl, 1)) == RD_RETRY) room = 1;
        if (room) {
            r->in_pos += back; /* keep the appended bytes: nothing was consumed */
            r->carry.len += back;
            rd_frame_start(r, &r->fr, (unsigned char)r->carry.ptr[0]);
            return 2;
        }
        r->tok_at_eof = 0;
        if (!used) return -1;
        rd_consume(r, r->carry.ptr, used);
        if (r->push_ent && rd_push_entity(r)) return -1;
        /* bytes of the carry beyond what was used stay as the next token's start */
        size_t rest = r->carry.len - used;
        memmove(r->carry.ptr, r->carry.ptr + used, rest);
        r->carry.len = rest;
        if (rest) rd_frame_start(r, &r->fr, (unsigned char)r->carry.ptr[0]);
        return 1;
    }
}

/* ---------------------------------------------------------------- encodings */

static int rd_decode_into_window(stax_reader *r, const char *src, size_t n, size_t *consumed) {
    if (!r->tbuf) { /* (carved at creation in a fixed block) */
        r->tbuf = stax__mem_alloc(&r->mem, r->opt.read_buffer);
        if (!r->tbuf) return rd_nomem(r);
        r->tbuf_cap = r->opt.read_buffer;
    }
    size_t produced = 0;
    int rc = stax__decode(&r->dec, src, n, consumed, r->tbuf, r->tbuf_cap, &produced);
    r->in = r->tbuf;
    r->in_len = produced;
    r->in_pos = 0;
    r->win_nocr = produced && !memchr(r->tbuf, '\r', produced);
    if (rc == STAX__DEC_ERROR) {
        r->dec_err = 1;
        r->dec_err_off = r->raw_base + r->raw_pos + *consumed - r->dec.err_pend;
    }
    return 0;
}

/* The window is used up: transcode more of the raw chunk. Returns 1 when the
 * window has bytes again, 0 when there is nothing more to decode, or an error. */
static int rd_refill(stax_reader *r) {
    if (r->dec_err) {
        stax_pos at = r->pos;
        rd_advance(r, &at, r->carry.ptr, r->carry.len);
        at.offset = r->dec_err_off;
        return rd_fail_at(r, STAX_E_ENCODING, at, "invalid byte sequence for %s", stax__encoding_name(r->enc));
    }
    if (r->raw_pos >= r->raw_len) {
        if (r->ended && stax__decode_finish(&r->dec) == STAX__DEC_ERROR) {
            stax_pos at = r->pos;
            rd_advance(r, &at, r->carry.ptr, r->carry.len);
            at.offset = r->raw_base + r->raw_len - r->dec.npend;
            return rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside a %s character", stax__encoding_name(r->enc));
        }
        return 0;
    }
    size_t used = 0;
    if (rd_decode_into_window(r, r->raw + r->raw_pos, r->raw_len - r->raw_pos, &used)) return r->status;
    r->raw_pos += used;
    if (r->in_len == 0 && !r->dec_err) return r->raw_pos < r->raw_len ? 1 : 0;
    return 1;
}

/* From now on the rest of the window (and pre, bytes held back before it) is
 * raw input in encoding enc. */
static int rd_start_transcoding(stax_reader *r, int enc, const uint32_t *table, const char *pre, size_t pre_len) {
    stax__decoder_init(&r->dec, enc, table);
    r->enc = enc;
    r->raw = r->in ? r->in + r->in_pos : NULL;
    r->raw_len = r->in_len - r->in_pos;
    r->raw_pos = 0;
    r->raw_base = r->pos.offset + pre_len;
    r->in_len = r->in_pos = 0;
    if (pre_len) {
        size_t used = 0;
        uint64_t base = r->raw_base;
        r->raw_base = r->pos.offset; /* offsets of errors in pre */
        r->raw_pos = 0;
        if (rd_decode_into_window(r, pre, pre_len, &used)) return r->status;
        r->raw_base = base;
    }
    return 0;
}

/* Appendix F: the BOM or the first bytes say the encoding family. The first
 * (up to) four bytes are gathered in head when the first chunks are tiny. */
static int rd_detect(stax_reader *r) {
    const unsigned char *p = r->in ? (const unsigned char *)r->in + r->in_pos : (const unsigned char *)"";
    size_t n = r->in_len - r->in_pos, b0 = 0;
    /* in place when the window alone decides; else gather the first bytes.
     * A forced encoding still needs four bytes (or the end) to see a BOM. */
    int direct = r->head_len == 0 &&
                 (r->forced ? n >= 4 || r->ended : stax__encoding_detect(p, n, r->ended, &b0) != 0);
    if (!direct) {
        while (r->head_len < 4 && r->in_pos < r->in_len) r->head[r->head_len++] = (unsigned char)r->in[r->in_pos++];
        p = r->head;
        n = r->head_len;
        if (r->forced ? n < 4 && !r->ended : stax__encoding_detect(p, n, r->ended, &b0) == 0) return 0;
    }
    size_t bom = 0;
    int enc = r->forced ? r->forced : stax__encoding_detect(p, n, r->ended, &bom);
    if (enc == 0) return 0;
    if (enc < 0) return rd_fail_at(r, STAX_E_UNSUPPORTED, r->pos, "the input is in UCS-4 or EBCDIC, which stax does not read");
    if (r->forced) { /* a BOM that agrees with the forced encoding is skipped */
        size_t b2 = 0;
        int d = stax__encoding_detect(p, n, 1, &b2);
        if (enc == STAX__ENC_UTF16) enc = (d == STAX__ENC_UTF16LE) ? STAX__ENC_UTF16LE : STAX__ENC_UTF16BE;
        if (d == enc && b2) bom = b2;
    }
    r->detected = enc;
    r->bom_len = bom;
    r->pos.offset += bom; /* the BOM is not a character: no column */
    if (direct) {
        r->in_pos += bom;
        if (enc == STAX__ENC_UTF8) r->enc = enc;
        else if (rd_start_transcoding(r, enc, NULL, NULL, 0)) return -1;
        return 1;
    }
    const char *rest = (const char *)r->head + bom;
    size_t rest_len = r->head_len - bom;
    if (enc == STAX__ENC_UTF8) {
        r->enc = enc;
        if (rest_len && rd_carry_append(r, rest, rest_len)) return -1;
        if (rest_len) rd_frame_start(r, &r->fr, (unsigned char)r->carry.ptr[0]);
        r->tok_pos = r->pos;
        return 1;
    }
    return rd_start_transcoding(r, enc, NULL, rest, rest_len) ? -1 : 1;
}

/* Move the unconsumed tail of the window into the carry. */
static int rd_stash(stax_reader *r) {
    r->stash_deferred = 0;
    size_t n = r->in_len - r->in_pos;
    if (n == 0) return 0;
    if (rd_carry_append(r, r->in + r->in_pos, n)) return -1;
    r->in_pos = r->in_len;
    return 0;
}

/* End of input: the document must be complete. */
static int rd_finish(stax_reader *r) {
    if (r->depth > 0)
        return rd_fail_at(r, STAX_E_TRUNCATED, r->pos, "the input ends inside element '%.*s'",
                          rd_clip(r->stack.len - r->stack_off[r->depth - 1]), r->stack.ptr + r->stack_off[r->depth - 1]);
    if (r->doc != DOC_EPILOG) return rd_fail_at(r, STAX_E_STRUCTURE, r->pos, "no root element");
    r->done = 1;
    return STAX_END;
}

/* ================================================================ the fast path
 * Most tokens of most documents are plain: text without references, CR or
 * non-ASCII bytes; tags with ASCII names and values of printable ASCII; end
 * tags that match. Those that lie whole in a UTF-8 window are read here in
 * one pass: the scan that finds where a token ends also tells whether it is
 * plain, whether a text is white space, and where its line feeds are, so the
 * position comes without reading the bytes again. Anything else (and any
 * error) goes the general way (framing, then the token parsers), which gives
 * the same events. */

/* Bits set in a 16-bit mask, without a popcount instruction. */
static inline unsigned rd_pop16(unsigned m) {
    m = m - ((m >> 1) & 0x5555u);
    m = (m & 0x3333u) + ((m >> 2) & 0x3333u);
    m = (m + (m >> 4)) & 0x0F0Fu;
    return (m + (m >> 8)) & 0x1Fu;
}

/* In an attribute value: the first quote q, or byte to look at (< & TAB LF
 * CR, other controls, bytes >= 0x80), from p[0]; n if none. */
static inline size_t rd_scan_value(const char *p, size_t n, char q) {
    size_t i = 0;
#ifdef STAX__SSE2
    const __m128i sp = _mm_set1_epi8(0x20), lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&'), vq = _mm_set1_epi8(q);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, sp), _mm_cmpeq_epi8(v, vq)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, amp)));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return i + stax__ctz32(mask);
    }
#endif
    while (i < n && p[i] != q && !(stax__class[(unsigned char)p[i]] & STAX__C_AVAL)) i++;
    return i;
}

/* The position after n more bytes of ASCII without a line feed. */
static inline void rd_pos_ascii(stax_reader *r, size_t n) {
    r->pos.offset += n;
    r->pos.column += n;
}

/* An event with the fields every type has. */
static inline stax_event *rd_emit_fast(stax_reader *r, int type) {
    stax_event *e = &r->events[r->batch.count++];
    e->type = (uint8_t)type;
    e->flags = 0;
    e->reserved = 0;
    e->attr_count = 0;
    e->attr_first = 0;
    e->text.ptr = NULL;
    e->text.len = 0;
    e->pubid = e->text;
    e->sysid = e->text;
    e->pos = r->pos;
    return e;
}

/* The character of the reference at p[i] ('&') if it is a character
 * reference or one of the five predefined entities, well formed, and a Char;
 * its end in *end. -1 otherwise (the general way decides what it is). */
static inline long rd_quick_ref(const char *p, size_t n, size_t i, size_t *end) {
    const char *q = p + i + 1;
    size_t left = n - i - 1;
    if (left >= 3 && q[0] == 'l' && q[1] == 't' && q[2] == ';') return *end = i + 4, '<';
    if (left >= 3 && q[0] == 'g' && q[1] == 't' && q[2] == ';') return *end = i + 4, '>';
    if (left >= 4 && q[0] == 'a' && q[1] == 'm' && q[2] == 'p' && q[3] == ';') return *end = i + 5, '&';
    if (left >= 5 && q[4] == ';' && memcmp(q, "quot", 4) == 0) return *end = i + 6, '"';
    if (left >= 5 && q[4] == ';' && memcmp(q, "apos", 4) == 0) return *end = i + 6, '\'';
    if (left < 3 || q[0] != '#') return -1;
    const char *semi = memchr(q, ';', left < 12 ? left : 12);
    if (!semi) return -1;
    long v = stax__charref_value(p + i, (size_t)(semi - (p + i)) + 1);
    *end = (size_t)(semi - p) + 1;
    return v;
}

/* A text complete in the window, from p[0]. One scan finds its end, its
 * line feeds and continuation bytes and whether it is white space; text
 * with no reference (UTF-8 checked by blocks when it has bytes >= 0x80) is
 * an event pointing into the window; character and predefined references
 * are decoded into the arena as the scan goes. 1: consumed; 0: the general
 * way takes it (an entity reference, a CR, anything to report); -1: an error. */
static inline int rd_fast_text(stax_reader *r, const char *p, size_t avail) {
    stax__tscan t = {0, 0, 0, 0, 0};
    size_t lim = avail < r->opt.max_text + 1 ? avail : r->opt.max_text + 1, end, run = 0;
    stax__out o = {NULL, NULL, 0};
    char *d0 = NULL;
#ifdef STAX__SSE2
    if (lim >= 16) { /* most texts end within 16 bytes: those take no call */
        const __m128i sp = _mm_set1_epi8(0x20), tab = _mm_set1_epi8(9), lf = _mm_set1_epi8(10);
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i is_lf = _mm_cmpeq_epi8(v, lf), ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), is_lf),
                                                                 _mm_cmpeq_epi8(v, sp));
        unsigned mlt = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('<')));
        unsigned mall = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, sp)) & ~(unsigned)_mm_movemask_epi8(_mm_or_si128(
                            _mm_cmpeq_epi8(v, tab), is_lf)); /* controls and bytes >= 0x80 */
        mall |= (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('&')),
                                                         _mm_cmpeq_epi8(v, _mm_set1_epi8(']'))));
        if (mlt && !(mall & ((mlt & (0u - mlt)) - 1))) { /* a '<' before anything to look at */
            unsigned below = (mlt & (0u - mlt)) - 1, mlf = (unsigned)_mm_movemask_epi8(is_lf) & below;
            end = stax__ctz32(mlt);
            t.nonws = (~(unsigned)_mm_movemask_epi8(ws) & below) != 0;
            if (mlf) {
                t.lfs = rd_pop16(mlf);
                t.line_at = 32u - (unsigned)__builtin_clz(mlf);
            }
            goto found;
        }
    }
#endif
    for (end = stax__scan_text_run(r->simd, p, 0, lim, &t); end < lim && p[end] != '<';
         end = stax__scan_text_run(r->simd, p, end, lim, &t)) {
        if (p[end] == ']') { /* "]]>" is an error; any other ']' is text */
            if (end + 2 < lim && p[end + 1] == ']' && p[end + 2] == '>') return 0;
            t.nonws = 1;
            end++;
            continue;
        }
        size_t re;
        long cp = p[end] == '&' && r->doc == DOC_CONTENT ? rd_quick_ref(p, lim, end, &re) : -1;
        if (cp < 0) return 0; /* a control, a CR, an entity, anything to report */
        if (!d0) { /* decoding starts: the text goes to the arena */
            if (r->arena.cap - r->arena.len < lim + RD_ARENA_SLACK) {
                int room = rd_room(r, lim);
                if (room) return room < 0 ? -1 : 0;
            }
            o = stax__buf_out(&r->arena);
            d0 = o.p;
        }
        char u[4];
        stax__out_put(&o, p + run, end - run);
        stax__out_put(&o, u, (size_t)stax__utf8_encode((uint32_t)cp, u));
        t.nonws |= !(cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r');
        end = run = re;
    }
    if (end >= lim) return 0; /* no '<' within max_text: cut, or the window ends */
#ifdef STAX__SSE2
found:
#endif
    if (t.hi && stax__scan_utf8(r->simd, p, end) != end) return 0; /* the general way reports it */
    if (r->doc != DOC_CONTENT) {
        if (t.nonws) return 0; /* text outside the root: an error */
    } else {
        int piece = r->text_cont;
        r->text_cont = 0;
        const char *txt = p;
        size_t tl = end;
        if (d0) {
            stax__out_put(&o, p + run, end - run);
            if (o.over) return rd_internal(r, "decoded text longer than its token"), -1;
            stax__buf_commit(&r->arena, &o);
            txt = d0;
            tl = (size_t)(o.p - d0);
        }
        if (t.nonws || (!(r->opt.flags & STAX_READ_SKIP_WS) || piece)) {
            stax_event *e = rd_emit_fast(r, STAX_EV_TEXT);
            e->name = e->text;
            e->flags = t.nonws ? 0 : STAX_EVF_WHITESPACE;
            e->text.ptr = txt;
            e->text.len = tl;
        }
    }
    r->pos.offset += end;
    if (t.lfs) {
        r->pos.line += t.lfs;
        r->pos.column = 1 + (end - t.line_at) - t.cont;
    } else {
        r->pos.column += end - t.cont;
    }
    r->in_pos += end;
    return 1;
}

/* Skip SP TAB LF in a tag from p[i]; line feeds counted. */
static inline size_t rd_tag_ws(const char *p, size_t n, size_t i, size_t *lfs, size_t *line_at) {
    for (; i < n; i++) {
        char c = p[i];
        if (c == ' ' || c == '\t') continue;
        if (c != '\n') break;
        ++*lfs;
        *line_at = i + 1;
    }
    return i;
}

/* A value to check or decode once the whole tag is known (attrs' flags). */
#define RD_ATTRF_PENDING 0x80000000u

/* A start tag with ASCII names, complete in the window, when the DTD
 * declares no attributes and namespaces are off. Its structure is checked in
 * one pass; values with references, white space other than SP or bytes to
 * check are then normalized in order by rd_attr_value, as the general way
 * would (which reports the same first error: the structure is sound).
 * 1: consumed; 0: the general way takes it; -1: an error. */
static inline int rd_fast_start(stax_reader *r, const char *p, size_t avail) {
    const unsigned char *u = (const unsigned char *)p;
    size_t n = avail < r->opt.max_token ? avail : r->opt.max_token, i = 1, lfs = 0, line_at = 0;
    if (r->doc == DOC_EPILOG || r->depth >= r->opt.max_depth) return 0;
    if (!(stax__class[u[1]] & STAX__C_NSTART) || u[1] >= 0x80) return 0;
    while (i < n && (stax__class[u[i]] & STAX__C_ANAME)) i++;
    size_t nl = i - 1, first = r->attr_len, arena0 = r->arena.len;
    if (i >= n || nl > r->opt.max_name) return 0;
    unsigned flags = 0;
    int pending = 0;
    for (;;) {
        size_t ws = i;
        i = rd_tag_ws(p, n, i, &lfs, &line_at);
        if (i >= n) goto decline;
        if (p[i] == '>') {
            i++;
            break;
        }
        if (p[i] == '/') {
            if (i + 1 >= n || p[i + 1] != '>') goto decline;
            flags = STAX_EVF_EMPTY;
            i += 2;
            break;
        }
        if (ws == i || !(stax__class[u[i]] & STAX__C_NSTART) || u[i] >= 0x80) goto decline;
        size_t an = i;
        while (i < n && (stax__class[u[i]] & STAX__C_ANAME)) i++;
        if (i >= n || i - an > r->opt.max_name || r->attr_len - first >= r->opt.max_attrs) goto decline;
        stax_str name = {p + an, i - an};
        i = rd_tag_ws(p, n, i, &lfs, &line_at);
        if (i >= n || p[i] != '=') goto decline;
        i = rd_tag_ws(p, n, i + 1, &lfs, &line_at);
        if (i >= n || (p[i] != '"' && p[i] != '\'')) goto decline;
        char q = p[i++];
        size_t ve = i + rd_scan_value(p + i, n - i, q);
        unsigned af = 0;
        if (ve < n && p[ve] != q) { /* a byte to look at: find the end, which holds no '<' */
            const char *qe = memchr(p + ve, q, n - ve);
            if (!qe || memchr(p + ve, '<', (size_t)(qe - p) - ve)) goto decline;
            ve = (size_t)(qe - p);
            af = RD_ATTRF_PENDING;
            pending = 1;
        }
        if (ve >= n) goto decline;
        for (size_t k = first; k < r->attr_len; k++)
            if (r->attrs[k].name.len == name.len && memcmp(r->attrs[k].name.ptr, name.ptr, name.len) == 0) goto decline;
        stax_attr *a = &r->attrs[r->attr_len++];
        a->name = name;
        a->value.ptr = p + i;
        a->value.len = ve - i;
        a->flags = af;
        i = ve + 1;
    }
    if (pending) {
        uint64_t expanded0 = r->expanded;
        int room = rd_room(r, i);
        if (room) {
            if (room < 0) return -1;
            goto decline;
        }
        r->tok_pos = r->pos;
        for (size_t k = first; k < r->attr_len; k++) {
            stax_attr *a = &r->attrs[k];
            if (!(a->flags & RD_ATTRF_PENDING)) continue;
            size_t vs = (size_t)(a->value.ptr - p);
            a->flags = 0;
            int rc = rd_attr_value(r, p, i, vs, vs + a->value.len, 0, 0, arena0, &a->value);
            if (rc == STAX__ROOM) {
                r->expanded = expanded0;
                goto decline;
            }
            if (rc) return -1;
        }
    }
    if (!flags && rd_push(r, p + 1, nl)) return -1;
    stax_event *e = rd_emit_fast(r, STAX_EV_START);
    e->flags = (uint8_t)flags;
    e->name.ptr = p + 1;
    e->name.len = nl;
    e->attr_first = first;
    e->attr_count = (uint32_t)(r->attr_len - first);
    if (flags) {
        stax_event *end = rd_emit_fast(r, STAX_EV_END);
        end->name = e->name;
        r->doc = r->depth ? DOC_CONTENT : DOC_EPILOG;
    } else {
        r->doc = DOC_CONTENT;
    }
    if (pending) {
        rd_advance(r, &r->pos, p, i); /* values may hold non-ASCII characters */
    } else {
        r->pos.offset += i;
        if (lfs) {
            r->pos.line += lfs;
            r->pos.column = 1 + (i - line_at);
        } else {
            r->pos.column += i;
        }
    }
    r->in_pos += i;
    return 1;
decline:
    r->attr_len = first;
    r->arena.len = arena0;
    return 0;
}

/* An end tag that matches the open element exactly (</name>). */
static inline int rd_fast_end(stax_reader *r, const char *p, size_t avail) {
    if (!r->depth) return 0;
    size_t off = r->stack_off[r->depth - 1], ol = r->stack.len - off;
    if (ol + 3 > avail || p[ol + 2] != '>' || memcmp(p + 2, r->stack.ptr + off, ol) != 0) return 0;
    stax_event *e = rd_emit_fast(r, STAX_EV_END);
    e->name.ptr = p + 2;
    e->name.len = ol;
    r->depth--;
    r->stack.len = off;
    if (r->depth == 0) r->doc = DOC_EPILOG;
    size_t cont = 0;
    for (size_t k = 0; k < ol; k++) cont += ((unsigned char)p[2 + k] & 0xC0) == 0x80;
    rd_pos_ascii(r, ol + 3 - cont);
    r->pos.offset += cont;
    r->in_pos += ol + 3;
    return 1;
}

/* Read plain tokens from the UTF-8 window while there are any and the batch
 * has room. Returns how many were read, or -1 after an error. */
static int rd_fast(stax_reader *r) {
    int done = 0;
    if (r->ev_ns || r->dtd.n_atts || r->in_cdata) return 0;
    for (;;) {
        size_t avail = r->in_len - r->in_pos;
        if (avail < 3) return done;
        /* room for two events and a tag's attributes (rd_room's rules) */
        if (r->batch.count && r->batch.count + 2 > r->opt.batch_events) return done;
        if (r->attr_cap - r->attr_len < r->opt.max_attrs) {
            if (r->batch.count) return done;
            r->attr_len = 0;
        }
        const char *p = r->in + r->in_pos;
        int rc;
        if (p[0] != '<') rc = rd_fast_text(r, p, avail);
        else if (p[1] == '/') rc = rd_fast_end(r, p, avail);
        else if (p[1] == '!' || p[1] == '?') rc = 0;
        else rc = rd_fast_start(r, p, avail);
        if (rc <= 0) return rc < 0 ? -1 : done;
        done++;
    }
}

/* Fill the batch from the window. Returns STAX_OK (batch ready), STAX_NEED_INPUT, STAX_END or an error. */
static int rd_fill(stax_reader *r) {
    if (STAX_UNLIKELY(!r->enc)) {
        int d = rd_detect(r);
        if (d < 0) return r->status;
        if (d == 0) return STAX_NEED_INPUT;
    }
    for (;;) {
        /* one test for the common case: a UTF-8 window with bytes, nothing pending */
        if (STAX_LIKELY(!(r->switch_enc | r->n_ent | (r->carry.len != 0)) && r->enc == STAX__ENC_UTF8 && r->in_pos < r->in_len))
            goto token;
        if (STAX_UNLIKELY(r->switch_enc)) { /* the declaration named an 8-bit encoding */
            int e = r->switch_enc;
            r->switch_enc = 0;
            /* bytes kept in the carry after the declaration were not decoded yet
             * (at most the 3 the declaration's framing may have looked past it) */
            char pre[64];
            size_t pre_len = r->carry.len;
            if (pre_len > sizeof pre) return rd_internal(r, "more than a few bytes carried after the declaration");
            if (pre_len) memcpy(pre, r->carry.ptr, pre_len);
            r->carry.len = 0;
            if (rd_start_transcoding(r, e, r->switch_table, pre, pre_len)) return r->status;
        }
        if (r->enc > STAX__ENC_UTF8 && !r->n_ent && !r->carry.len && r->in_pos >= r->in_len) {
            if (r->batch.count) return STAX_OK; /* the batch may point into the window */
            int rc = rd_refill(r);
            if (rc < 0) return r->status;
            if (rc > 0) continue;
        }
        if (r->n_ent && r->in_pos >= r->in_len) {
            if (rd_pop_entity(r)) return r->status;
            continue;
        }
        if (r->carry.len && !r->n_ent) {
            int rc = rd_resume_carry(r);
            if (rc < 0) return r->status;
            if (rc == 2) return STAX_OK;
            if (rc == 0) {
                if (r->enc > STAX__ENC_UTF8 && (r->raw_pos < r->raw_len || r->dec_err || r->ended)) {
                    if (r->batch.count) return STAX_OK;
                    int rf = rd_refill(r);
                    if (rf < 0) return r->status;
                    if (rf > 0) continue;
                    if (!r->ended) return STAX_NEED_INPUT;
                    /* nothing more will come: let the carry path see the end of input */
                    if (rd_resume_carry(r) < 0) return r->status;
                    continue;
                }
                return r->batch.count ? STAX_OK : STAX_NEED_INPUT;
            }
            continue; /* an entity may have started, or the carry may hold more */
        }
        if (r->batch.count >= r->opt.batch_events) return STAX_OK;
        if (r->in_pos >= r->in_len) {
            if (!r->ended) return r->batch.count ? STAX_OK : STAX_NEED_INPUT;
            if (r->batch.count) return STAX_OK;
            return rd_finish(r);
        }
    token:;
        if (r->enc == STAX__ENC_UTF8 && !r->n_ent && !r->carry.len && r->win_nocr) {
            int k = rd_fast(r);
            if (k < 0) return r->status;
            if (k > 0) {
                if (r->batch.count + 2 > r->opt.batch_events) return STAX_OK;
                continue;
            }
        }
        const char *tok = r->in + r->in_pos;
        size_t avail = r->in_len - r->in_pos;
        rd_frame_start(r, &r->fr, (unsigned char)tok[0]);
        r->tok_pos = r->n_ent ? r->ent_pos : r->pos;
        ptrdiff_t end = rd_frame_end(r, &r->fr, tok, avail);
        if (end < 0) return r->status;
        if (end == 0 && r->n_ent) {
            /* entity text is complete in memory: only text may run to its end */
            if (r->fr.kind != K_TEXT)
                return rd_fail_at(r, STAX_E_SYNTAX, r->ent_pos, "markup does not end inside the replacement text of entity '%.*s'",
                                  rd_clip(r->ents[r->n_ent - 1].e->name.len), r->ents[r->n_ent - 1].e->name.ptr);
            end = (ptrdiff_t)avail;
        }
        if (end == 0) {
            int behind = rd_behind(r);
            if (r->ended && !behind && r->fr.kind != K_TEXT) {
                /* the token runs past the end of input: let the carry path report it */
                if (rd_stash(r)) return r->status;
                continue;
            }
            if (r->ended && !behind) end = (ptrdiff_t)avail, r->tok_at_eof = 1; /* text up to the end of input */
            else if (r->batch.count) {
                r->stash_deferred = 1;
                return STAX_OK;
            } else {
                if (rd_stash(r)) return r->status;
                if (behind) continue;
                return STAX_NEED_INPUT;
            }
        }
        int room = rd_room(r, (size_t)end);
        if (room < 0) return r->status;
        if (room) return STAX_OK;
        size_t used = rd_parse(r, &r->fr, tok, (size_t)end, 0);
        r->tok_at_eof = 0;
        if (used == RD_RETRY) return STAX_OK; /* the batch ends before the token */
        if (!used) return r->status;
        rd_consume(r, tok, used);
        r->in_pos += used;
        if (STAX_UNLIKELY(r->switch_enc) && r->batch.count) return STAX_OK; /* switch with an empty batch */
        if (r->push_ent && rd_push_entity(r)) return r->status;
    }
}

/* ================================================================ options and memory */

#define RD_MIB ((size_t)1 << 20)

static size_t rd_clamp(size_t v, size_t lo, size_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Zero fields take the defaults of the allocator mode. */
static void rd_defaults(stax_reader_options *o) {
    if (!o->max_depth) o->max_depth = 1024;
    if (!o->max_name) o->max_name = 1024;
    if (!o->max_attrs) o->max_attrs = 256;
    if (!o->max_token) o->max_token = RD_MIB;
    if (!o->max_text) o->max_text = o->max_token < 65536 ? o->max_token : 65536;
    if (!o->batch_events) o->batch_events = 256;
    if (o->batch_events < 2) o->batch_events = 2; /* one token may give two events */
    if (!o->max_entity_depth) o->max_entity_depth = 16;
    if (!o->entity_amplification) o->entity_amplification = 100;
    if (!o->entity_threshold) o->entity_threshold = (size_t)8 << 20;
    if (!o->max_dtd) o->max_dtd = RD_MIB;
    if (!o->max_ns) o->max_ns = 64;
    if (!o->max_ns_bytes) o->max_ns_bytes = 65536;
    if (!o->read_buffer) o->read_buffer = 65536;
    if (o->read_buffer < 64) o->read_buffer = 64; /* the decoder wants a few bytes of room */
}

/* What a reader holds, in the order a fixed block is carved. */
enum { L_READER, L_EVENTS, L_ATTRS, L_EV_NS, L_ATTR_NS, L_ATTR_AT, L_ENTS, L_NS_HEADS, L_NS, L_CARRY, L_ARENA,
       L_STACK, L_STACK_OFF, L_RBUF, L_TBUF, L_DTD, L_COUNT };

static size_t rd_mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* The sizes for options with defaults applied; SIZE_MAX marks an overflow. */
static void rd_layout(const stax_reader_options *o, size_t sz[L_COUNT]) {
    int ns = (o->flags & STAX_READ_NAMESPACES) != 0;
    size_t attr_cap = rd_mul(o->max_attrs, 2) < 8 ? 8 : rd_mul(o->max_attrs, 2);
    sz[L_READER] = sizeof(stax_reader);
    sz[L_EVENTS] = rd_mul(o->batch_events, sizeof(stax_event));
    sz[L_ATTRS] = rd_mul(attr_cap, sizeof(stax_attr));
    sz[L_EV_NS] = ns ? rd_mul(o->batch_events, sizeof(stax_qname)) : 0;
    sz[L_ATTR_NS] = ns ? rd_mul(attr_cap, sizeof(stax_qname)) : 0;
    sz[L_ATTR_AT] = ns ? rd_mul(attr_cap, sizeof(size_t)) : 0;
    sz[L_ENTS] = rd_mul(o->max_entity_depth, sizeof(stax__frame));
    sz[L_NS_HEADS] = ns ? rd_mul(stax__ns_buckets(o->max_ns_bytes), sizeof(uint32_t)) : 0;
    sz[L_NS] = ns ? stax__ns_buffer_size(o->max_ns_bytes) : 0;
    sz[L_CARRY] = o->max_token > SIZE_MAX - RD_CARRY_SLACK ? SIZE_MAX : o->max_token + RD_CARRY_SLACK;
    sz[L_ARENA] = o->max_token > SIZE_MAX - RD_ARENA_SLACK ? SIZE_MAX : o->max_token + RD_ARENA_SLACK;
    sz[L_STACK] = rd_mul(o->max_depth, o->max_name);
    sz[L_STACK_OFF] = rd_mul(o->max_depth, sizeof(size_t));
    sz[L_RBUF] = o->read_buffer;
    sz[L_TBUF] = o->read_buffer;
    sz[L_DTD] = o->max_dtd;
}

/* The block size for options with defaults applied. */
static size_t rd_block_need(const stax_reader_options *o) {
    size_t sz[L_COUNT], use[L_COUNT], k = 0;
    rd_layout(o, sz);
    for (int i = 0; i < L_COUNT; i++) {
        if (sz[i] == SIZE_MAX) return SIZE_MAX;
        if (sz[i]) use[k++] = sz[i];
    }
    return stax__mem_block_need(use, k);
}

/* The fixed-block defaults of profile `scale` (a nominal block size): every
 * value grows with scale, so a larger profile allows all a smaller one did. */
static void rd_profile(stax_reader_options *t, size_t scale) {
    if (!t->batch_events) t->batch_events = (uint32_t)rd_clamp(scale / 1024, 4, 32);
    if (!t->max_attrs) t->max_attrs = (uint32_t)rd_clamp(scale / 1024, 4, 32);
    if (!t->max_entity_depth) t->max_entity_depth = (uint32_t)rd_clamp(scale / 2048, 2, 16);
    if (!t->max_token) t->max_token = rd_clamp(scale / 8, 128, RD_MIB);
    if (!t->max_text) t->max_text = rd_clamp(t->max_token / 2, 4, 65536);
    if (!t->read_buffer) t->read_buffer = rd_clamp(scale / 32, 64, 65536);
    if (!t->max_dtd) t->max_dtd = rd_clamp(scale / 16, 64, RD_MIB);
    if (!t->max_ns_bytes) t->max_ns_bytes = rd_clamp(scale / 32, 256, 65536);
    if (!t->max_name) t->max_name = (uint32_t)rd_clamp(scale / 1024, 32, 256);
    if (!t->max_depth) t->max_depth = (uint32_t)rd_clamp((scale / 8) / (t->max_name + (size_t)8), 2, 1024);
    rd_defaults(t);
}

/* Zero fields of a fixed-block reader's options take the defaults of the
 * largest profile (4 KiB, 8 KiB, 16 KiB, ...) whose layout fits the block.
 * Profiles only grow, so a larger block never gets smaller limits: what
 * streams in a block streams in every larger one. */
static void rd_fixed_defaults(stax_reader_options *o) {
    stax_reader_options user = *o, t = *o;
    rd_profile(&t, 4096);
    for (size_t scale = 8192; scale <= ((size_t)1 << 30); scale *= 2) {
        stax_reader_options next = user;
        rd_profile(&next, scale);
        if (rd_block_need(&next) > o->memory_size) break;
        t = next;
    }
    *o = t;
}

/* Options with defaults applied, checked: STAX_OK, STAX_E_USAGE or STAX_E_NOMEM. */
static int rd_options(const stax_reader_options *opt, stax_reader_options *o, const char **why) {
    static const char *unused;
    if (!why) why = &unused;
    *why = "";
    if (opt) *o = *opt;
    else memset(o, 0, sizeof *o);
    if (o->memory) rd_fixed_defaults(o);
    rd_defaults(o);
    if (o->max_text > o->max_token || o->max_text < 4)
        return *why = "max_text must be at least 4 and at most max_token", STAX_E_USAGE;
    if (o->batch_events > (1u << 24) || o->max_attrs > (1u << 24))
        return *why = "batch_events and max_attrs may not be above 2^24", STAX_E_USAGE;
    if (o->max_depth > (1u << 24) || o->max_name > (1u << 24))
        return *why = "max_depth and max_name may not be above 2^24", STAX_E_USAGE;
    if (o->max_entity_depth > 1024) return *why = "max_entity_depth may not be above 1024", STAX_E_USAGE;
    if (o->encoding && stax__encoding_by_name(o->encoding, strlen(o->encoding)) < 0)
        return *why = "the forced encoding is not one stax knows", STAX_E_USAGE;
    size_t need = rd_block_need(o);
    if (need == SIZE_MAX) return *why = "the options ask for more memory than there is", STAX_E_USAGE;
    if (o->memory && o->memory_size < need)
        return *why = "the fixed block is smaller than the options need (stax_reader_memory_size)", STAX_E_NOMEM;
    return STAX_OK;
}

size_t stax_reader_memory_size(const stax_reader_options *opt) {
    stax_reader_options o;
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    o.memory = NULL;
    o.memory_size = 0;
    if (rd_options(&o, &o, NULL) != STAX_OK) return 0;
    return rd_block_need(&o);
}

int stax_reader_check_options(const stax_reader_options *opt, const char **why) {
    stax_reader_options o;
    return rd_options(opt, &o, why);
}

/* ================================================================ public API */

stax_reader *stax_reader_new(const stax_reader_options *opt) {
    stax_reader_options o;
    if (rd_options(opt, &o, NULL) != STAX_OK) return NULL;
    stax__mem m;
    if (o.memory) {
        if (stax__mem_init(&m, NULL, NULL, o.memory, o.memory_size)) return NULL;
    } else {
        stax__mem_init(&m, o.alloc, o.alloc_ud, NULL, 0);
    }
    size_t sz[L_COUNT];
    rd_layout(&o, sz);
    stax_reader *r = stax__mem_alloc(&m, sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->mem = m;
    r->opt = o;
    r->pos.line = 1;
    r->pos.column = 1;
    r->tok_pos = r->pos; /* errors before the first token are at 1:1 */
#ifndef STAX_NO_STDIO
    r->fd = -1;
#endif
    if (o.encoding) r->forced = stax__encoding_by_name(o.encoding, strlen(o.encoding));
    r->simd = stax__simd_level();
    r->ev_cap = o.batch_events;
    r->attr_cap = sz[L_ATTRS] / sizeof(stax_attr);
    r->carry_max = sz[L_CARRY];
    r->arena_max = sz[L_ARENA];
    r->stack_max = sz[L_STACK];
    /* in the order of rd_layout */
    r->events = stax__mem_alloc(&r->mem, sz[L_EVENTS]);
    r->attrs = stax__mem_alloc(&r->mem, sz[L_ATTRS]);
    if (!r->events || !r->attrs) goto fail;
    r->batch.events = r->events;
    r->batch.attrs = r->attrs;
    if (o.flags & STAX_READ_NAMESPACES) {
        r->ev_ns = stax__mem_alloc(&r->mem, sz[L_EV_NS]);
        r->attr_ns = stax__mem_alloc(&r->mem, sz[L_ATTR_NS]);
        r->attr_at = stax__mem_alloc(&r->mem, sz[L_ATTR_AT]);
        if (!r->ev_ns || !r->attr_ns || !r->attr_at) goto fail;
        r->batch.ev_ns = r->ev_ns;
        r->batch.attr_ns = r->attr_ns;
    }
    r->ents = stax__mem_alloc(&r->mem, sz[L_ENTS]);
    if (!r->ents) goto fail;
    stax__dtd_init(&r->dtd, &r->mem, &o, r->ents, &r->err);
    if (o.flags & STAX_READ_NAMESPACES) {
        r->dtd.no_colons = 1;
        if (stax__ns_init(&r->ns, &r->mem, o.max_ns_bytes)) goto fail;
    }
    if (r->mem.block) { /* everything now, so that reading never runs out */
        if (rd_reserve(r, &r->carry, sz[L_CARRY], sz[L_CARRY]) || rd_reserve(r, &r->arena, sz[L_ARENA], sz[L_ARENA]) ||
            rd_reserve(r, &r->stack, sz[L_STACK], sz[L_STACK]))
            goto fail;
        r->stack_off = stax__mem_alloc(&r->mem, sz[L_STACK_OFF]);
        r->rbuf = stax__mem_alloc(&r->mem, sz[L_RBUF]);
        r->tbuf = stax__mem_alloc(&r->mem, sz[L_TBUF]);
        if (!r->stack_off || !r->rbuf || !r->tbuf || stax__dtd_reserve(&r->dtd)) goto fail;
        r->stack_off_cap = o.max_depth;
        r->rbuf_cap = r->tbuf_cap = o.read_buffer;
    }
    return r;
fail:
    stax_reader_free(r);
    return NULL;
}

void stax_reader_free(stax_reader *r) {
    if (!r) return;
    stax__dtd_free(&r->dtd);
    stax__ns_free(&r->ns);
    stax__mem m = r->mem;
    size_t sz[L_COUNT];
    rd_layout(&r->opt, sz);
    stax__mem_free(&m, r->ev_ns, sz[L_EV_NS]);
    stax__mem_free(&m, r->attr_ns, sz[L_ATTR_NS]);
    stax__mem_free(&m, r->attr_at, sz[L_ATTR_AT]);
    stax__mem_free(&m, r->events, sz[L_EVENTS]);
    stax__mem_free(&m, r->attrs, sz[L_ATTRS]);
    stax__mem_free(&m, r->ents, sz[L_ENTS]);
    stax__buf_free(&m, &r->arena);
    stax__buf_free(&m, &r->carry);
    stax__buf_free(&m, &r->stack);
    stax__mem_free(&m, r->stack_off, (size_t)r->stack_off_cap * sizeof *r->stack_off);
    stax__mem_free(&m, r->rbuf, r->rbuf_cap);
    stax__mem_free(&m, r->tbuf, r->tbuf_cap);
    stax__mem_free(&m, r, sizeof *r);
}

size_t stax_reader_memory_peak(const stax_reader *r) { return r ? r->mem.peak : 0; }

/* A new chunk: the window itself, or (transcoding) the raw input behind it. */
static void rd_set_input(stax_reader *r, const char *data, size_t len) {
    r->fed = 1;
    if (r->enc > STAX__ENC_UTF8) {
        r->raw_base += r->raw_len;
        r->raw = data;
        r->raw_len = len;
        r->raw_pos = 0;
        return;
    }
    r->in = data;
    r->in_len = len;
    r->in_pos = 0;
    r->win_nocr = len && !memchr(data, '\r', len);
}

int stax_reader_feed(stax_reader *r, const void *data, size_t len) {
    if (!r) return STAX_E_USAGE;
    if (r->status < 0) return r->status;
    if (r->fed || r->ended || r->src || (!data && len)) {
        return rd_fail_at(r, STAX_E_USAGE, r->pos,
                          r->src ? "stax_reader_feed on a reader with a pull source"
                          : r->ended ? "stax_reader_feed after stax_reader_end"
                          : !data ? "stax_reader_feed with NULL data"
                                  : "stax_reader_feed before the reader asked for more input");
    }
    rd_set_input(r, data, len);
    return STAX_OK;
}

int stax_reader_end(stax_reader *r) {
    if (!r) return STAX_E_USAGE;
    if (r->status < 0) return r->status;
    if (r->fed) return rd_fail_at(r, STAX_E_USAGE, r->pos, "stax_reader_end before the reader asked for more input");
    r->ended = 1;
    rd_set_input(r, NULL, 0);
    return STAX_OK;
}

static int rd_pull(stax_reader *r) {
    if (!r->rbuf) {
        r->rbuf = stax__mem_alloc(&r->mem, r->opt.read_buffer);
        if (!r->rbuf) return rd_nomem(r);
        r->rbuf_cap = r->opt.read_buffer;
    }
    ptrdiff_t n = r->src(r->src_ctx, r->rbuf, r->rbuf_cap);
    if (n < 0) return rd_fail_at(r, STAX_E_IO, r->pos, "read error from the input source");
    if (n == 0) return stax_reader_end(r);
    rd_set_input(r, r->rbuf, (size_t)n > r->rbuf_cap ? r->rbuf_cap : (size_t)n);
    return STAX_OK;
}

int stax_reader_next(stax_reader *r, const stax_batch **out) {
    if (!r || !out) return STAX_E_USAGE;
    *out = &r->batch;
    r->batch.count = 0;
    r->attr_len = 0;
    r->arena.len = 0;
    if (r->ev_ns) stax__ns_reclaim(&r->ns);
    if (r->status < 0) return r->status;
    if (r->done) return STAX_END;
    for (;;) {
        if (!r->fed) {
            if (!r->src) return rd_fail_at(r, STAX_E_USAGE, r->pos, "stax_reader_next before any input was fed");
            if (rd_pull(r)) return r->status;
        }
        if (r->stash_deferred && rd_stash(r)) return r->status;
        int st = rd_fill(r);
        if (st < 0 && r->batch.count) return STAX_OK; /* the error comes with the next call */
        if (st == STAX_NEED_INPUT) {
            r->fed = 0;
            if (r->src) continue;
        }
        if (st == STAX_END && r->batch.count) return STAX_OK;
        return st;
    }
}

static int rd_set_source(stax_reader *r, stax_read_fn fn, void *ctx) {
    if (!r || !fn) return STAX_E_USAGE;
    if (r->fed || r->src || r->pos.offset || r->carry.len)
        return rd_fail_at(r, STAX_E_USAGE, r->pos, "a pull source must be set before any input");
    r->src = fn;
    r->src_ctx = ctx;
    return STAX_OK;
}

int stax_reader_set_source(stax_reader *r, stax_read_fn fn, void *ctx) { return rd_set_source(r, fn, ctx); }

#ifndef STAX_NO_STDIO
static ptrdiff_t rd_read_fd(void *ctx, void *buf, size_t cap) {
    stax_reader *r = ctx;
    for (;;) {
        ssize_t n = read(r->fd, buf, cap);
        if (n >= 0) return (ptrdiff_t)n;
        if (errno != EINTR) return -1;
    }
}

static ptrdiff_t rd_read_file(void *ctx, void *buf, size_t cap) {
    stax_reader *r = ctx;
    size_t n = fread(buf, 1, cap, r->file);
    if (n == 0 && ferror(r->file)) return -1;
    return (ptrdiff_t)n;
}

int stax_reader_set_fd(stax_reader *r, int fd) {
    if (!r || fd < 0) return STAX_E_USAGE;
    r->fd = fd;
    return rd_set_source(r, rd_read_fd, r);
}

int stax_reader_set_file(stax_reader *r, FILE *f) {
    if (!r || !f) return STAX_E_USAGE;
    r->file = f;
    return rd_set_source(r, rd_read_file, r);
}
#endif

int stax_reader_status(const stax_reader *r) { return r ? r->status : STAX_E_USAGE; }

const char *stax_reader_message(const stax_reader *r) {
    if (!r) return "no reader";
    return r->status < 0 ? r->err.msg : "";
}

stax_pos stax_reader_error_pos(const stax_reader *r) {
    stax_pos none = {0, 0, 0};
    return r && r->status < 0 ? r->err_pos : none;
}

uint32_t stax_reader_depth(const stax_reader *r) { return r ? r->depth : 0; }

size_t stax_reader_notations(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->dtd.notations : NULL;
    return r ? r->dtd.n_not : 0;
}

int stax_reader_ns_lookup(const stax_reader *r, stax_str prefix, stax_str *uri) {
    if (!r || !r->ev_ns || !uri) return -1;
    return stax__ns_lookup(&r->ns, prefix, uri);
}

size_t stax_reader_dtd_pis(const stax_reader *r, const stax_dtd_pi **out) {
    if (!out) return 0;
    *out = r ? r->dtd.pis : NULL;
    return r ? r->dtd.n_pis : 0;
}

size_t stax_reader_unparsed_entities(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->dtd.unparsed : NULL;
    return r ? r->dtd.n_unp : 0;
}
