/* Streaming path queries over the reader's batches (stax select).
 *
 * A path compiles to steps. Each open element keeps the set of its
 * "candidates": (step, context) pairs that may match there or below. A child
 * step is a candidate of the element where the step before it matched; a
 * descendant step stays a candidate of every element below that one. An
 * element step is tested at the START of a child (name, then the predicates in
 * order; [n] counts the parent's children that passed the tests before it); an
 * attribute or text() step applies to the element whose candidates hold it.
 * So the state is one small set per open element, and nothing depends on the
 * size of the document. A child at which no step matched shares its parent's
 * descendant subset (kept as the tail of the parent's set, or copied after
 * it). Each set has a 64-bit filter of its element steps' names, so that
 * stax_select_batch passes a START that no step matches (its name's bit is
 * not in the filter, or its own tests of the steps fail), an END that ends
 * no capture and text nothing takes, without the per-event work; the levels
 * such STARTs open are counted, their frames written only when an event
 * needs them. stax_select_event always does the per-event work, and the
 * tests compare the two.
 *
 * Contexts: the document is context 0; with columns, every record (a match of
 * the paths) opens a context of its own, in which the column paths start. A
 * column that is '@a' alone is no candidate: the record's START fills it.
 *
 * Predicates: [n] and attribute tests are tested at the START as above;
 * every other predicate is an expression (sel_x). A step with such
 * predicates makes a sel_pev at each START its name matches: the
 * predicates are evaluated in order as far as what is known decides them;
 * one that reads content not seen yet leaves the pev open, its relative
 * paths followed through the element's subtree (sel_pact, sel_pcap) until
 * that content decides it (last(): at the parent's END). The candidates
 * after such a step, and the matches it and they give, carry the pev as
 * their cond; a match with an undecided cond waits in the queue (held), and
 * one whose cond fails is dropped. See "predicates on content" below.
 *
 * Output: matches are numbered in document order and queued. The front of the
 * queue streams (its pieces go to the callback as they arrive); a later match
 * keeps its pieces in segments of one buffer, chained per match, until it
 * reaches the front. A record at the front streams column by column: the
 * pieces of a column after the one streaming are held until it is complete.
 * All of that is bounded by max_held. */
#include "namespaces.h"

#include <stdarg.h>

#ifndef STAX_NO_SELECT
#define SEL_NONE UINT32_MAX
#define SEL_MOVED (UINT32_MAX - 1) /* the tag of held bytes put again under their column (sel_move_segs) */

#if defined(__GNUC__) || defined(__clang__)
#define SEL_COLD __attribute__((noinline, cold)) /* off the paths most queries take */
#else
#define SEL_COLD
#endif

enum { SEL_CHILD, SEL_DESC };
enum { SEL_ROOT, SEL_ELEM, SEL_ATTR, SEL_TEXT, SEL_SELF };
enum { SEL_EXISTS, SEL_EQ, SEL_NE };
enum { SEL_CAP_ELEM, SEL_CAP_TEXT, SEL_CAP_RECORD };
enum { SEL_COL_NONE, SEL_COL_OPEN, SEL_COL_DONE, SEL_COL_SEEN /* STAX_SELECT_ALL_MATCHES: matches so far, none open */ };

#define SEL_DOC_ROOT 0u /* step 0 is the root node; step 1 (with columns) the record */
#define SEL_REC_ROOT 1u
#define SEL_XML_BUFFER 1024u
#define SEL_WRAP_SKIP 3u /* "<x>" or "<x " before a text or attribute written as a fragment */

typedef struct sel_name { /* a name test */
    int any;              /* * */
    stax_str name;        /* without namespaces the qualified name; with them the local part */
    stax_str uri;         /* with namespaces: the URI (empty: no namespace) */
} sel_name;

typedef struct sel_test { /* [@a], [@a='v'], [@a!='v'] */
    sel_name name;
    int op;
    stax_str value;
} sel_test;

typedef struct sel_pred {
    uint32_t pos;          /* [n]: n; 0 for attribute tests */
    uint32_t slot;         /* [n], and an expression that reads the position: its position counter */
    uint32_t first, count; /* attribute tests, joined by 'and' */
    uint32_t expr;         /* an expression (sel_x index + 1); 0: one of the two forms above */
    unsigned char num, last, content; /* expr: a number (a position), reads last(), reads content */
    unsigned char late;               /* expr: never decided at the START (pv_new does not try) */
} sel_pred;

typedef struct sel_step {
    int axis, type, final;
    sel_name name;
    uint32_t pred_first, pred_count;
    uint32_t succ_first, succ_count; /* the steps that follow it */
    uint32_t query;                  /* the query it belongs to */
    uint64_t names;                  /* an element step: its name's bit (sel_name_bit), all for '*' */
    int counted;                     /* it has a [n] predicate: testing it counts (sel_step_ok) */
    int xpred;                       /* its predicates are expressions (sel_pev) */
    uint32_t pp_first, pp_count;     /* xpred: the relative paths its predicates read */
    uint32_t ps_first, ps_count;     /* and their steps (at most 64) */
    uint32_t cmp_first, cmp_count;   /* comparisons of a path with a constant (in cmpx; at most 64) */
    uint32_t n_norm;                 /* calls in its predicates that may write a string in the scratch */
} sel_step;

typedef struct sel_query {
    uint32_t index; /* the path, or the column */
    int column;
    uint32_t first_step;
    int own_attr;   /* a column that is '@a' alone (no union): filled at the record's START */
    int shared;     /* a column that is a union: its paths share the column */
} sel_query;

typedef struct sel_cand {
    uint32_t step;
    uint32_t cond; /* 0; or the undecided predicates (sel_pev index + 1) it depends on */
    uint64_t ctx;  /* 0: the document; else the record's match number + 1 */
} sel_cand;

/* An open element's candidates, and the subset a child inherits when no
 * element step matches at it (the descendant steps; the same set when all
 * are). names has the bit of every element step's name (sel_name_bit), so
 * that a START whose bit is clear skips the matching. */
typedef struct sel_frame {
    size_t cand_off, cand_n;
    size_t desc_off, desc_n;
    size_t scope_len; /* STAX_SELECT_XML: declarations in scope outside this element */
    uint64_t names, desc_names;
    unsigned char owned, has_attr, has_text, all_desc;
    unsigned char desc_attr, desc_text;
} sel_frame;

typedef struct sel_match {
    uint32_t path;
    unsigned char kind, record, begun, closed; /* kind: STAX_SELECT_*, and SEL_SHADOW_* times 8 */
    uint32_t cond;              /* 0, or the undecided predicates it depends on (sel_pev index + 1) */
    uint32_t next_col;          /* a begun record: the column that streams (those before it are out) */
    size_t seg_first, seg_last; /* held segments (offset + 1; 0: none) */
} sel_match;

typedef struct sel_seg { /* header of a held segment; its bytes follow */
    size_t next;         /* the next segment of the same match (offset + 1), 0: none */
    size_t len;
    uint32_t column;
} sel_seg;

/* STAX_SELECT_ALL_MATCHES: a match of a column that began inside an open
 * one of the same column (nested elements, or their text or attributes). Its
 * value is held under tag until that one ends, then follows it. */
typedef struct sel_pend {
    uint64_t record;
    uint32_t column, tag;
} sel_pend;

typedef struct sel_wctx sel_wctx;
struct sel_wctx { /* heads each writer block (STAX_SELECT_XML) */
    stax_select *s;
    stax_writer *w;
    uint64_t match;
    uint32_t column;
    uint32_t skip;
    int discard;
    sel_wctx *next_free;
};
#define SEL_WCTX_SIZE ((sizeof(sel_wctx) + 15u) & ~(size_t)15u)

typedef struct sel_cap { /* an open capture: where the events below go */
    uint64_t match;
    uint32_t column; /* SEL_NONE: the match's own value */
    uint32_t depth;
    int kind;
    sel_wctx *x;
} sel_cap;

struct stax_select {
    stax__mem mem;
    stax_select_options opt;
    stax__err err; /* err.code: the status (an error, or STAX_END once the callback stopped) */
    char msg[256]; /* where err.msg points */
    int compile_status;
    stax_select_fn fn;
    void *fn_ctx;
    int ns, xml, values, compiled, all; /* all: STAX_SELECT_ALL_MATCHES */

    /* the compiled paths */
    char *text;
    size_t text_cap;
    stax__buf steps, preds, tests, queries, succ;
    stax__buf xs, pps, pss, cmpx;  /* predicate expressions, their relative paths and those paths' steps, the
                                    * comparisons with a constant (sel_x index per bit) */
    size_t ptext_keep;             /* ptext up to there holds values kept */
    uint64_t pact_ver;             /* changes with pact (pv_group's cache) */
    uint64_t pg_ver, pg_names;     /* pv_group's cache: the version, the names */
    uint32_t pg_depth;
    int pg_text;
    int pv_decided;                /* a pev was decided since pv_end last drained */
    uint32_t n_steps, n_paths, n_cols, n_slots;
    uint32_t own_first, own_count; /* in succ: the steps of the columns that are '@a' alone */
    uint32_t own_lead;             /* how many of them are columns 0, 1, 2... (sel_own_columns) */
    uint32_t rec_n;                /* the record root's other successors but '.': a record's first candidates */
    uint64_t rec_names;            /* their frame flags (sel_frame_flags) */
    unsigned char rec_attr, rec_text, rec_desc;
    stax__buf counts;     /* uint64_t per path */
    stax__buf eval_epoch; /* uint64_t per step: the START it was last tested at */
    stax__buf eval_ok;    /* unsigned char per step: its result there */
    stax__buf eval_pev;   /* uint32_t per step: with predicates on content, the pev it made there (0: none) */

    /* the open elements */
    uint32_t depth;
    uint64_t epoch;
    int in_text;
    stax__buf frames, cands, counters, scope, caps;
    size_t caps_taking; /* the captures that take text (all but records') */
    uint32_t cap_floor;  /* START and END of depth >= cap_floor may skip the captures (sel_cap_floor) */

    /* output */
    stax__buf queue, colst, held, pend;
    /* predicates on content: the candidates held (sel_pev), the paths they
     * follow in the open elements (sel_pact), the nodes of those being read
     * (sel_pcap), the values kept (sel_prec; ptext the text read inside
     * them, pattr attribute values and names), counts per path, scratch */
    stax__buf pevs, pact, pcaps, precs, ptext, pattr, pcnt, xscratch;
    uint32_t next_tag; /* the tag of the next sel_pend (from n_cols) */
    stax__buf colspan; /* the columns as written: {offset in text, length} each */
    size_t q_head;
    uint64_t q_base, next_match;
    uint64_t given; /* the matches handed out (their BEGIN), which number them */
    sel_wctx *wfree;
    size_t wblocks;
    size_t event;
};

#define SEL_AT(buf, type, i) (((type *)(void *)(buf).ptr)[i])
#define SEL_N(buf, type) ((buf).len / sizeof(type))
#define SEL_STEP(s, k) SEL_AT((s)->steps, sel_step, k)

/* ================================================================ errors */

/* The first error stays: later ones return it. Set through the one setter
 * (stax.c); select keeps its sentences with STAX_NO_MESSAGES. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static int sel_fail(stax_select *s, int st, const char *fmt, ...) {
    if (s->err.code != STAX_OK) return s->err.code;
    va_list ap;
    va_start(ap, fmt);
    stax__err_vset(&s->err, st, NULL, 0, fmt, ap);
    va_end(ap);
    return st;
}

static int sel_nomem(stax_select *s) {
    return sel_fail(s, STAX_E_NOMEM, "out of memory%s", s->mem.block ? " (the fixed block is too small)" : "");
}

static int sel_internal(stax_select *s, const char *what) {
    STAX__INTERNAL_HIT();
    return sel_fail(s, STAX_E_INTERNAL, "internal error: %s", what);
}

/* ================================================================ buffers and budgets */

static size_t sel_sub(size_t a, size_t b) { return a > b ? a - b : 0; }

/* Append n bytes to b, which has room (reserved before). */
static inline int sel_append(stax_select *s, stax__buf *b, const void *p, size_t n) {
    stax__out o = stax__buf_out(b);
    stax__out_put(&o, p, n);
    if (o.over) return sel_internal(s, "a reserved buffer did not fit");
    stax__buf_commit(b, &o);
    return 0;
}

/* An in-place update: n bytes at off in b, inside what b holds. */
static inline int sel_store(stax_select *s, stax__buf *b, size_t off, const void *p, size_t n) {
    int in = b->ptr && off <= b->len;
    stax__out o = stax__out_make(in ? b->ptr + off : NULL, in ? b->len - off : 0);
    stax__out_put(&o, p, n);
    return o.over ? sel_internal(s, "an update outside its buffer") : 0;
}

/* Append n zero bytes to b, which has room (reserved before). */
static inline int sel_append_zeros(stax_select *s, stax__buf *b, size_t n) {
    if (!b->ptr || b->cap - b->len < n) return sel_internal(s, "a reserved buffer did not fit");
    memset(b->ptr + b->len, 0, n);
    b->len += n;
    return 0;
}

/* n zero bytes at off in b, inside what b holds. */
static int sel_zero(stax_select *s, stax__buf *b, size_t off, size_t n) {
    static const char zeros[64] = {0};
    for (size_t k = 0; k < n; k += sizeof zeros)
        if (sel_store(s, b, off + k, zeros, n - k < sizeof zeros ? n - k : sizeof zeros)) return s->err.code;
    return 0;
}

/* Element i of an array of type held in buf: read, and write back checked. */
#define SEL_PUT(s, buf, type, i, v) sel_store((s), &(buf), (size_t)(i) * sizeof(type), (v), sizeof(type))

/* The compiled program: bounded by the path's length. */
static int sel_push(stax_select *s, stax__buf *b, const void *item, size_t size) {
    if (stax__buf_reserve(&s->mem, b, size, SIZE_MAX / 4)) return sel_nomem(s);
    return sel_append(s, b, item, size);
}

/* Room for n more bytes in one of the state buffers, within max_state for all. */
static int sel_state_grow(stax_select *s, stax__buf *b, size_t n) {
    size_t others = s->frames.cap + s->cands.cap + s->counters.cap + s->scope.cap + s->caps.cap - b->cap;
    int r = stax__buf_reserve(&s->mem, b, n, sel_sub(s->opt.max_state, others));
    if (r == 1)
        return sel_fail(s, STAX_E_LIMIT_STATE, "the matching state of the open elements exceeds max_state (%zu bytes), at depth %u",
                        s->opt.max_state, (unsigned)s->depth);
    return r ? sel_nomem(s) : 0;
}

static inline int sel_state_reserve(stax_select *s, stax__buf *b, size_t n) {
    return b->cap - b->len >= n ? 0 : sel_state_grow(s, b, n);
}

static size_t sel_held_total(const stax_select *s) {
    return s->queue.cap + s->colst.cap + s->held.cap + s->pend.cap + s->wblocks * s->opt.xml_memory + s->pevs.cap +
           s->pact.cap + s->pcaps.cap + s->precs.cap + s->ptext.cap + s->pattr.cap + s->pcnt.cap + s->xscratch.cap;
}

static int sel_held_over(stax_select *s) {
    return sel_fail(s, STAX_E_LIMIT_HELD,
                    "held output exceeds max_held (%zu bytes): a match that begins while an earlier one is open "
                    "waits for it%s%s",
                    s->opt.max_held, s->pevs.len ? ", and candidates wait until their predicates are decided (last(): "
                                                   "when their parent ends)" : "",
                    s->n_cols ? ", and a record's column waits for the columns before it" : "");
}

/* Room for n more bytes in one of the output buffers, within max_held for all of them. */
static int sel_held_grow(stax_select *s, stax__buf *b, size_t n) {
    int r = stax__buf_reserve(&s->mem, b, n, sel_sub(s->opt.max_held, sel_held_total(s) - b->cap));
    return r == 1 ? sel_held_over(s) : r ? sel_nomem(s) : 0;
}

static inline int sel_held_reserve(stax_select *s, stax__buf *b, size_t n) {
    return b->cap - b->len >= n ? 0 : sel_held_grow(s, b, n);
}

/* ================================================================ compiling */

typedef struct sel_parser {
    stax_select *s;
    const char *p, *start, *end;
    const char *what; /* "path" or "columns" */
    int column;
    uint32_t index;   /* the path or column being parsed */
} sel_parser;

static int ps_fail(sel_parser *ps, int st, const char *at, const char *what, const char *arg) {
    char m[160];
    stax__fmt(m, sizeof m, what, arg);
    return sel_fail(ps->s, st, "%s: %s, at character %zu of the %s",
                    st == STAX_E_UNSUPPORTED ? "not supported" : st == STAX_E_NAMESPACE ? "namespace" : "invalid path",
                    m, (size_t)(at - ps->start) + 1, ps->what);
}

static int ps_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static const char *ps_skip(const sel_parser *ps, const char *p) {
    while (p < ps->end && ps_space(*p)) p++;
    return p;
}

/* The next byte after whitespace (the whitespace is taken), or -1 at the end. */
static int ps_peek(sel_parser *ps) {
    ps->p = ps_skip(ps, ps->p);
    return ps->p < ps->end ? (unsigned char)*ps->p : -1;
}

/* The length of the NCName (a name without ':') at p, 0 if there is none. */
static size_t ps_ncname(const sel_parser *ps, const char *p) {
    size_t n = 0, left = (size_t)(ps->end - p);
    while (n < left) {
        unsigned char c = (unsigned char)p[n];
        if (c == ':' || !(stax__class[c] & (n ? STAX__C_NAME : STAX__C_NSTART))) break;
        n++;
    }
    /* bytes >= 0x80 were let through: keep the part that is a Name */
    for (size_t bad; n > 0 && (bad = stax__check_name(p, n)) != 0;) n = bad - 1;
    return n;
}

/* p starts the keyword kw (a whole NCName). */
static int ps_keyword(const sel_parser *ps, const char *p, const char *kw) {
    size_t n = strlen(kw);
    return ps_ncname(ps, p) == n && memcmp(p, kw, n) == 0;
}

/* Names and values are short: up to 16 bytes compare as two words (which
 * overlap unless the length is twice theirs): a memcmp of a constant size is
 * a load and a compare, not a call. */
static inline int sel_str_eq(stax_str a, stax_str b) {
    size_t n = a.len;
    if (n != b.len) return 0;
    if (n < 4) return n == 0 || (a.ptr[0] == b.ptr[0] && a.ptr[n / 2] == b.ptr[n / 2] && a.ptr[n - 1] == b.ptr[n - 1]);
    if (n <= 8) return memcmp(a.ptr, b.ptr, 4) == 0 && memcmp(a.ptr + n - 4, b.ptr + n - 4, 4) == 0;
    if (n <= 16) return memcmp(a.ptr, b.ptr, 8) == 0 && memcmp(a.ptr + n - 8, b.ptr + n - 8, 8) == 0;
    return a.ptr[0] == b.ptr[0] && memcmp(a.ptr, b.ptr, n) == 0;
}

/* The URI bound to prefix: the last binding given wins; xml is always bound.
 * The URIs were copied to the end of s->text by sel_copy_uris. */
static int ps_uri(sel_parser *ps, stax_str prefix, const char *at, stax_str *uri) {
    static const char xml_ns[] = STAX__XML_NS;
    stax_select *s = ps->s;
    size_t off = s->text_cap;
    for (size_t k = s->opt.ns_count; k-- > 0;) {
        off -= s->opt.ns[2 * k + 1].len;
        if (!sel_str_eq(s->opt.ns[2 * k], prefix)) continue;
        uri->ptr = s->text + off;
        uri->len = s->opt.ns[2 * k + 1].len;
        return 0;
    }
    if (prefix.len == 3 && memcmp(prefix.ptr, "xml", 3) == 0) {
        uri->ptr = xml_ns;
        uri->len = sizeof xml_ns - 1;
        return 0;
    }
    char p[48];
    stax__fmt(p, sizeof p, "%.*s", prefix.len > 40 ? 40 : (int)prefix.len, prefix.ptr);
    return ps_fail(ps, STAX_E_NAMESPACE, at, "the prefix '%s' is not bound", p);
}

/* What the unsupported thing at p is, as a refusal. */
static int ps_refuse(sel_parser *ps, const char *p, int in_pred) {
    size_t n = ps_ncname(ps, p);
    char name[48];
    stax__fmt(name, sizeof name, "%.*s", n > 40 ? 40 : (int)n, p);
    if (n) {
        const char *q = ps_skip(ps, p + n);
        if (q < ps->end && *q == '(') {
            if (ps_keyword(ps, p, "node") || ps_keyword(ps, p, "comment") || ps_keyword(ps, p, "processing-instruction"))
                return ps_fail(ps, STAX_E_UNSUPPORTED, p, "the node test '%s()'", name);
            if (ps_keyword(ps, p, "text"))
                return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", in_pred ? "text() in a predicate" : "text() before the last step");
            return ps_fail(ps, STAX_E_UNSUPPORTED, p, "the function '%s()'", name);
        }
        if (q + 1 < ps->end && q[0] == ':' && q[1] == ':')
            return ps_fail(ps, STAX_E_UNSUPPORTED, p, "the axis '%s::' (child, descendant, self, descendant-or-self and attribute are)", name);
        if (ps_keyword(ps, p, "or") || ps_keyword(ps, p, "and") || ps_keyword(ps, p, "div") || ps_keyword(ps, p, "mod"))
            return ps_fail(ps, STAX_E_UNSUPPORTED, p, "the operator '%s' outside a predicate", name);
        if (in_pred) return ps_fail(ps, STAX_E_SYNTAX, p, "unexpected name '%s' in a predicate", name);
        return ps_fail(ps, STAX_E_SYNTAX, p, "unexpected name '%s'", name);
    }
    if (p >= ps->end) return ps_fail(ps, STAX_E_SYNTAX, p, "%s", "unexpected end");
    switch (*p) {
    case '.':
        if (ps->end - p >= 2 && p[1] == '.') return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", "'..' (the parent step)");
        if (ps->end - p >= 2 && p[1] >= '0' && p[1] <= '9') break;
        return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", "'.' (the self step)");
    case '$': return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", "variables ('$')");
    case '(': return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", "parentheses outside a predicate");
    case '"':
    case '\'': return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", in_pred ? "a string alone in a predicate" : "a string where a step belongs");
    case '<':
    case '>':
    case '+':
    case '-':
    case '=':
    case '!':
    case '*':
        if (in_pred) return ps_fail(ps, STAX_E_SYNTAX, p, "%s", "an operator where an operand belongs");
        return ps_fail(ps, STAX_E_UNSUPPORTED, p, "%s", "operators outside a predicate");
    default: break;
    }
    if ((*p >= '0' && *p <= '9') || *p == '.')
        return ps_fail(ps, in_pred ? STAX_E_SYNTAX : STAX_E_UNSUPPORTED, p, "%s", in_pred ? "a number where an operator belongs" : "a number where a step belongs");
    return ps_fail(ps, STAX_E_SYNTAX, p, "%s", "unexpected character");
}

/* A name test at ps->p: '*' or a QName. */
static int ps_name_test(sel_parser *ps, sel_name *t, int attribute) {
    const char *at = ps->p;
    memset(t, 0, sizeof *t);
    if (at < ps->end && *at == '*') {
        ps->p++;
        t->any = 1;
        return 0;
    }
    size_t n = ps_ncname(ps, at);
    if (n == 0) {
        if (attribute) return ps_fail(ps, STAX_E_SYNTAX, at, "%s", "expected a name or * after '@'");
        return ps_refuse(ps, at, 0);
    }
    stax_str prefix = {NULL, 0}, local = {at, n};
    ps->p += n;
    if (ps->end - ps->p >= 2 && ps->p[0] == ':' && ps->p[1] == ':') return ps_refuse(ps, at, 0);
    if (ps->p < ps->end && *ps->p == ':') {
        if (ps->end - ps->p >= 2 && ps->p[1] == '*')
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "'prefix:*' (any name in a namespace)");
        size_t m = ps_ncname(ps, ps->p + 1);
        if (m == 0) return ps_fail(ps, STAX_E_SYNTAX, ps->p + 1, "%s", "expected a local name after the prefix");
        prefix = local;
        local.ptr = ps->p + 1;
        local.len = m;
        ps->p += 1 + m;
    }
    if (!ps->s->ns) { /* the qualified name, as written */
        t->name.ptr = at;
        t->name.len = (size_t)(ps->p - at);
        return 0;
    }
    t->name = local;
    return prefix.len ? ps_uri(ps, prefix, at, &t->uri) : 0;
}

/* A literal: '...' or "..." (XPath has no escapes in them). */
static int ps_literal(sel_parser *ps, stax_str *v) {
    int q = ps_peek(ps);
    const char *at = ps->p;
    if (q != '\'' && q != '"') {
        if (at < ps->end && ((*at >= '0' && *at <= '9') || *at == '-' || *at == '.'))
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "comparing with a number (quote it: @a='1')");
        if (at < ps->end && *at == '@') return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "comparing two attributes");
        if (at >= ps->end) return ps_fail(ps, STAX_E_SYNTAX, at, "%s", "expected a quoted string");
        return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "comparing with anything but a quoted string");
    }
    const char *close = (const char *)memchr(at + 1, q, (size_t)(ps->end - at - 1));
    if (!close) return ps_fail(ps, STAX_E_SYNTAX, at, "%s", "a string without its closing quote");
    v->ptr = at + 1;
    v->len = (size_t)(close - at - 1);
    ps->p = close + 1;
    return 0;
}

/* ---------------------------------------------------------------- predicate expressions
 *
 * A predicate that is not [n] or attribute tests joined by 'and' compiles to
 * an expression tree (sel_x, in s->xs). Its relative paths (sel_pp, whose
 * steps are sel_ps) are followed in the candidate's subtree while it streams
 * (sel_pev). Types are static, as in XPath 1.0: a predicate whose type is a
 * number compares with the position. */

enum { X_NUM, X_STR, X_PATH, X_OR, X_AND, X_EQ, X_NE, X_LT, X_LE, X_GT, X_GE, X_ADD, X_SUB, X_MUL, X_DIV, X_MOD, X_NEG,
       X_TRUE, X_FALSE, X_NOT, X_POS, X_LAST, X_CONTAINS, X_STARTS, X_NORM, X_SLEN, X_STRING, X_NUMBER, X_COUNT,
       X_NAME, X_LNAME, X_NSURI, X_BOOLEAN };
enum { XT_NUM, XT_STR, XT_BOOL, XT_SET };
enum { PS_CHILD, PS_DESC, PS_SELF, PS_DSELF };
#define PS_NODE 9 /* node(): any node */

typedef struct sel_x {
    unsigned char op, type;
    unsigned char cbit; /* a comparison of a path with a constant: its bit + 1 in sel_pev.hits */
    uint32_t a, b;      /* operands (indexes in xs); X_PATH: a is the path (in pps) */
    double num;
    stax_str str;
} sel_x;

typedef struct sel_pp {
    uint32_t first, count;                 /* its steps, in pss */
    uint32_t local;                        /* its index among its step's paths */
    unsigned char need_all, need_first;    /* keep every node's value; the first node's value */
    unsigned char need_name, attr_only;    /* the first node's name; only attributes of the candidate itself */
    unsigned char exists;                  /* read as a boolean: a node decides it at its START */
    uint64_t cmps;                         /* the bits of the comparisons with a constant that read it */
} sel_pp;

typedef struct sel_ps {
    unsigned char axis, type, final;
    unsigned char xdesc, slot; /* written descendant::; [n]: its counter in sel_pact.cnt */
    uint32_t pos;              /* [n]: n (the n-th child its name test matches), 0: none */
    sel_name name;
    uint32_t pp;
} sel_ps;
#define PS_SLOTS 4u /* steps with [n] in the paths of one step's predicates */

#define SEL_X(s, k) SEL_AT((s)->xs, sel_x, k)
#define SEL_PP(s, k) SEL_AT((s)->pps, sel_pp, k)
#define SEL_PS(s, k) SEL_AT((s)->pss, sel_ps, k)

static int px_or(sel_parser *ps, uint32_t *out);

static int px_new(sel_parser *ps, int op, int type, uint32_t a, uint32_t b, uint32_t *out) {
    sel_x x;
    memset(&x, 0, sizeof x);
    x.op = (unsigned char)op;
    x.type = (unsigned char)type;
    x.a = a;
    x.b = b;
    *out = (uint32_t)SEL_N(ps->s->xs, sel_x);
    return sel_push(ps->s, &ps->s->xs, &x, sizeof x);
}

static int px_at(sel_parser *ps, const char *op) { /* the operator op at ps->p (after whitespace) */
    size_t n = strlen(op);
    ps_peek(ps);
    return (size_t)(ps->end - ps->p) >= n && memcmp(ps->p, op, n) == 0;
}

/* A step of a relative path in a predicate. */
static int px_step(sel_parser *ps, int axis, sel_ps *st) {
    memset(st, 0, sizeof *st);
    st->axis = (unsigned char)axis;
    st->type = SEL_ELEM;
    const char *at = ps->p;
    if (at < ps->end && *at == '@') {
        ps->p = ps_skip(ps, at + 1);
        st->type = SEL_ATTR;
        return ps_name_test(ps, &st->name, 1);
    }
    if (at < ps->end && *at == '.') {
        if (ps->end - at >= 2 && at[1] == '.') return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "'..' (the parent step)");
        ps->p++;
        st->axis = PS_SELF;
        st->type = PS_NODE;
        st->name.any = 1;
        return 0;
    }
    size_t n = ps_ncname(ps, at);
    const char *q = ps_skip(ps, at + n);
    if (n && q + 1 < ps->end && q[0] == ':' && q[1] == ':') {
        static const char *const axes[] = {"child", "descendant", "self", "descendant-or-self", "attribute"};
        int ax = -1;
        for (int k = 0; k < 5; k++)
            if (ps_keyword(ps, at, axes[k])) ax = k;
        if (ax < 0) return ps_refuse(ps, at, 1);
        if (axis == PS_DESC && ax != 0) return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "an axis after '//'");
        ps->p = ps_skip(ps, q + 2);
        if (ax == 4) {
            st->type = SEL_ATTR;
            return ps_name_test(ps, &st->name, 1);
        }
        st->axis = (unsigned char)(ax == 0 ? (unsigned)axis : ax == 1 ? (unsigned)PS_DESC : ax == 2 ? (unsigned)PS_SELF : (unsigned)PS_DSELF);
        st->xdesc = ax == 1;
        at = ps->p;
        n = ps_ncname(ps, at);
        q = ps_skip(ps, at + n);
    }
    if (n && q < ps->end && *q == '(') {
        const char *r = ps_skip(ps, q + 1);
        if (ps_keyword(ps, at, "text") || ps_keyword(ps, at, "node")) {
            if (r >= ps->end || *r != ')') return ps_fail(ps, STAX_E_SYNTAX, r, "%s", "expected ')'");
            st->type = ps_keyword(ps, at, "text") ? SEL_TEXT : PS_NODE;
            st->name.any = 1;
            ps->p = r + 1;
            return 0;
        }
        return ps_refuse(ps, at, 1);
    }
    return ps_name_test(ps, &st->name, 0);
}

/* A relative path in a predicate, at ps->p. */
static int px_path(sel_parser *ps, uint32_t *out) {
    stax_select *s = ps->s;
    sel_pp pp;
    memset(&pp, 0, sizeof pp);
    pp.first = (uint32_t)SEL_N(s->pss, sel_ps);
    uint32_t index = (uint32_t)SEL_N(s->pps, sel_pp);
    int axis = PS_CHILD;
    pp.attr_only = 1;
    for (;;) {
        sel_ps st;
        const char *at = ps_skip(ps, ps->p);
        ps->p = at;
        if (px_step(ps, axis, &st)) return s->err.code;
        if (ps_peek(ps) == '[') { /* [n] on an element step: the n-th child (of each parent) it matches */
            const char *q = ps_skip(ps, ps->p + 1);
            uint64_t n = 0;
            size_t digits = 0;
            while (q + digits < ps->end && q[digits] >= '0' && q[digits] <= '9' && n < UINT32_MAX)
                n = n * 10 + (uint64_t)(q[digits++] - '0');
            const char *r = ps_skip(ps, q + digits);
            if (!digits || n == 0 || n >= UINT32_MAX || r >= ps->end || *r != ']' || st.type != SEL_ELEM ||
                st.axis == PS_SELF || st.axis == PS_DSELF || st.xdesc)
                return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "a predicate inside a predicate's path other than [n] on a child step");
            st.pos = (uint32_t)n;
            ps->p = r + 1;
            if (ps_peek(ps) == '[') return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "a second predicate inside a predicate's path");
        }
        st.pp = index;
        if (st.type != SEL_ATTR && !(st.axis == PS_SELF && st.type == PS_NODE)) pp.attr_only = 0;
        if (st.axis == PS_SELF && st.type == PS_NODE && pp.count) {
            /* a/. is a */
        } else {
            if (pp.count && SEL_PS(s, SEL_N(s->pss, sel_ps) - 1).type != SEL_ELEM &&
                !(SEL_PS(s, SEL_N(s->pss, sel_ps) - 1).type == PS_NODE))
                return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "a step after an attribute or text() in a predicate");
            if (sel_push(s, &s->pss, &st, sizeof st)) return s->err.code;
            pp.count++;
        }
        if (ps_peek(ps) != '/') break;
        axis = ps->end - ps->p >= 2 && ps->p[1] == '/' ? PS_DESC : PS_CHILD;
        ps->p += axis == PS_DESC ? 2 : 1;
    }
    /* '.' then more steps: the self step goes */
    if (pp.count > 1) {
        sel_ps f = SEL_PS(s, pp.first);
        if (f.axis == PS_SELF && f.type == PS_NODE) {
            for (uint32_t k = pp.first; k + 1 < pp.first + pp.count; k++) {
                sel_ps n = SEL_PS(s, k + 1);
                if (SEL_PUT(s, s->pss, sel_ps, k, &n)) return s->err.code;
            }
            s->pss.len -= sizeof(sel_ps);
            pp.count--;
        }
    }
    sel_ps last = SEL_PS(s, pp.first + pp.count - 1);
    last.final = 1;
    if (last.type != SEL_ATTR || last.axis == PS_DESC) pp.attr_only = 0; /* (@a, ./@a: known at the START) */
    if (SEL_PUT(s, s->pss, sel_ps, pp.first + pp.count - 1, &last)) return s->err.code;
    if (sel_push(s, &s->pps, &pp, sizeof pp)) return s->err.code;
    if (px_new(ps, X_PATH, XT_SET, index, 0, out)) return s->err.code;
    return 0;
}

static const struct {
    const char *name;
    unsigned char op, type, min, max, arg; /* arg: the argument type wanted (XT_SET: a node-set) */
} px_fns[] = {
    {"true", X_TRUE, XT_BOOL, 0, 0, 0},          {"false", X_FALSE, XT_BOOL, 0, 0, 0},
    {"not", X_NOT, XT_BOOL, 1, 1, XT_BOOL},       {"boolean", X_BOOLEAN, XT_BOOL, 1, 1, XT_BOOL},
    {"position", X_POS, XT_NUM, 0, 0, 0},        {"last", X_LAST, XT_NUM, 0, 0, 0},
    {"contains", X_CONTAINS, XT_BOOL, 2, 2, XT_STR}, {"starts-with", X_STARTS, XT_BOOL, 2, 2, XT_STR},
    {"normalize-space", X_NORM, XT_STR, 0, 1, XT_STR}, {"string-length", X_SLEN, XT_NUM, 0, 1, XT_STR},
    {"string", X_STRING, XT_STR, 0, 1, XT_STR},   {"number", X_NUMBER, XT_NUM, 0, 1, XT_NUM},
    {"count", X_COUNT, XT_NUM, 1, 1, XT_SET},     {"name", X_NAME, XT_STR, 0, 1, XT_SET},
    {"local-name", X_LNAME, XT_STR, 0, 1, XT_SET}, {"namespace-uri", X_NSURI, XT_STR, 0, 1, XT_SET},
};

/* The context node as a path ('.'), for a function called without its
 * argument; with name, self::name. */
static int px_self_named(sel_parser *ps, const sel_name *name, uint32_t *out) {
    stax_select *s = ps->s;
    sel_ps st;
    memset(&st, 0, sizeof st);
    st.axis = PS_SELF;
    st.type = name ? SEL_ELEM : PS_NODE;
    if (name) st.name = *name;
    else st.name.any = 1;
    st.final = 1;
    st.pp = (uint32_t)SEL_N(s->pps, sel_pp);
    sel_pp pp;
    memset(&pp, 0, sizeof pp);
    pp.first = (uint32_t)SEL_N(s->pss, sel_ps);
    pp.count = 1;
    if (sel_push(s, &s->pss, &st, sizeof st) || sel_push(s, &s->pps, &pp, sizeof pp)) return s->err.code;
    return px_new(ps, X_PATH, XT_SET, st.pp, 0, out);
}
static int px_self(sel_parser *ps, uint32_t *out) { return px_self_named(ps, NULL, out); }

static int px_primary(sel_parser *ps, uint32_t *out) {
    stax_select *s = ps->s;
    int c = ps_peek(ps);
    const char *at = ps->p;
    if (c == '\'' || c == '"') {
        stax_str v;
        if (ps_literal(ps, &v) || px_new(ps, X_STR, XT_STR, 0, 0, out)) return s->err.code;
        SEL_AT(s->xs, sel_x, *out).str = v;
        return 0;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && ps->end - at >= 2 && at[1] >= '0' && at[1] <= '9')) {
        double v = 0, scale = 1;
        int frac = 0;
        for (; ps->p < ps->end && ((*ps->p >= '0' && *ps->p <= '9') || (*ps->p == '.' && !frac)); ps->p++) {
            if (*ps->p == '.') {
                frac = 1;
                continue;
            }
            v = v * 10 + (*ps->p - '0');
            if (frac) scale *= 10;
        }
        if (px_new(ps, X_NUM, XT_NUM, 0, 0, out)) return s->err.code;
        SEL_AT(s->xs, sel_x, *out).num = v / scale;
        return 0;
    }
    if (c == '(') {
        ps->p++;
        if (px_or(ps, out)) return s->err.code;
        if (ps_peek(ps) != ')') return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "expected ')'");
        ps->p++;
        if (ps_peek(ps) == '[' || ps_peek(ps) == '/') return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "a step or predicate after parentheses");
        return 0;
    }
    if (c == '/') return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "an absolute path in a predicate");
    if (c == '$') return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "variables ('$')");
    size_t n = c < 0 ? 0 : ps_ncname(ps, at);
    const char *q = ps_skip(ps, at + n);
    if (n && q < ps->end && *q == '(' && !ps_keyword(ps, at, "text") && !ps_keyword(ps, at, "node")) {
        size_t k = 0, nf = sizeof px_fns / sizeof px_fns[0];
        while (k < nf && !ps_keyword(ps, at, px_fns[k].name)) k++;
        if (k == nf) return ps_refuse(ps, at, 1);
        ps->p = q + 1;
        uint32_t args[2] = {0, 0}, na = 0;
        if (ps_peek(ps) != ')') {
            for (;;) {
                if (na == 2) return ps_fail(ps, STAX_E_SYNTAX, ps->p, "too many arguments to %s()", px_fns[k].name);
                if (px_or(ps, &args[na])) return s->err.code;
                na++;
                if (ps_peek(ps) != ',') break;
                ps->p++;
            }
            if (ps_peek(ps) != ')') return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "expected ')' or ','");
        }
        ps->p++;
        if (na < px_fns[k].min || na > px_fns[k].max)
            return ps_fail(ps, STAX_E_SYNTAX, at, "the wrong number of arguments to %s()", px_fns[k].name);
        if (na == 0 && px_fns[k].max == 1 && px_self(ps, &args[0])) return s->err.code;
        if (px_fns[k].arg == XT_SET && SEL_X(s, args[0]).op != X_PATH)
            return ps_fail(ps, STAX_E_SYNTAX, at, "%s() takes a path", px_fns[k].name);
        return px_new(ps, px_fns[k].op, px_fns[k].type, args[0], args[1], out);
    }
    if (c < 0 || c == ']' || c == ')') return ps_fail(ps, STAX_E_SYNTAX, at, "%s", c == ']' ? "an empty predicate" : "expected an expression");
    if (c == '@' || c == '.' || c == '*' || n) return px_path(ps, out);
    return ps_refuse(ps, at, 1);
}

static int px_unary(sel_parser *ps, uint32_t *out) {
    if (ps_peek(ps) == '-') {
        ps->p++;
        uint32_t a;
        if (px_unary(ps, &a)) return ps->s->err.code;
        return px_new(ps, X_NEG, XT_NUM, a, 0, out);
    }
    if (px_primary(ps, out)) return ps->s->err.code;
    if (ps_peek(ps) == '|') return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "'|' in a predicate");
    return 0;
}

/* The binary operators, by level from the loosest (all left-associative);
 * a word is one only where an operator may stand (after an operand). */
static const struct {
    const char *tok;
    unsigned char op, type;
} px_ops[][4] = {
    {{"or", X_OR, XT_BOOL}},
    {{"and", X_AND, XT_BOOL}},
    {{"!=", X_NE, XT_BOOL}, {"=", X_EQ, XT_BOOL}},
    {{"<=", X_LE, XT_BOOL}, {">=", X_GE, XT_BOOL}, {"<", X_LT, XT_BOOL}, {">", X_GT, XT_BOOL}},
    {{"+", X_ADD, XT_NUM}, {"-", X_SUB, XT_NUM}},
    {{"*", X_MUL, XT_NUM}, {"div", X_DIV, XT_NUM}, {"mod", X_MOD, XT_NUM}},
};
#define PX_LEVELS (sizeof px_ops / sizeof px_ops[0])

static int px_level(sel_parser *ps, uint32_t *out, size_t level) {
    if (level == PX_LEVELS) return px_unary(ps, out);
    if (px_level(ps, out, level + 1)) return ps->s->err.code;
    for (;;) {
        if (ps_peek(ps) < 0) return 0;
        size_t k = 0;
        while (k < 4 && px_ops[level][k].tok) {
            const char *t = px_ops[level][k].tok;
            if (t[0] >= 'a' && t[0] <= 'z' ? ps_keyword(ps, ps->p, t) : px_at(ps, t)) break;
            k++;
        }
        if (k == 4 || !px_ops[level][k].tok) return 0;
        ps->p += strlen(px_ops[level][k].tok);
        uint32_t b;
        if (px_level(ps, &b, level + 1) || px_new(ps, px_ops[level][k].op, px_ops[level][k].type, *out, b, out))
            return ps->s->err.code;
    }
}

static int px_or(sel_parser *ps, uint32_t *out) { return px_level(ps, out, 0); }

/* What expression x reads: a path (PX_PATH), one below the context node or
 * its value (PX_CONTENT), position() (PX_POS), last() (PX_LAST). */
enum { PX_PATH = 1, PX_CONTENT = 2, PX_POS = 4, PX_LAST = 8 };
static unsigned px_reads(const stax_select *s, uint32_t x) {
    const sel_x *e = &SEL_X(s, x);
    switch (e->op) {
    case X_PATH: {
        const sel_pp *pp = &SEL_PP(s, e->a);
        return PX_PATH | (!pp->attr_only || SEL_PS(s, pp->first).axis == PS_SELF ? (unsigned)PX_CONTENT : 0u);
    }
    case X_POS: return PX_POS;
    case X_LAST: return PX_LAST;
    case X_NUM:
    case X_STR:
    case X_TRUE:
    case X_FALSE: return 0;
    case X_NOT:
    case X_BOOLEAN:
    case X_NEG:
    case X_NORM:
    case X_SLEN:
    case X_STRING:
    case X_NUMBER:
    case X_COUNT:
    case X_NAME:
    case X_LNAME:
    case X_NSURI: return px_reads(s, e->a);
    default: return px_reads(s, e->a) | px_reads(s, e->b);
    }
}

/* Whether expression x reads no path, position or last: a constant. */
static int px_static(const stax_select *s, uint32_t x) { return !(px_reads(s, x) & (PX_PATH | PX_POS | PX_LAST)); }

/* Mark what the paths read: in a comparison with a constant, a bit each;
 * compared with anything else, every value; converted to a string or a
 * number, the first value; name functions, the first name. The flags of the
 * predicate: it reads the content, last(), the position. */
static int px_mark(sel_parser *ps, sel_step *st, sel_pred *pr, uint32_t x, int want) {
    stax_select *s = ps->s;
    sel_x e = SEL_X(s, x);
    switch (e.op) {
    case X_PATH: {
        sel_pp pp = SEL_PP(s, e.a);
        if (!pp.attr_only) pr->content = 1;
        if (want == XT_STR || want == XT_NUM) pp.need_first = 1;
        if (want == X_NAME) pp.need_name = 1;
        if (want == XT_BOOL) pp.exists = 1;
        return SEL_PUT(s, s->pps, sel_pp, e.a, &pp);
    }
    case X_POS: pr->slot = 1; return 0;
    case X_LAST: pr->slot = 1; pr->last = 1; return 0;
    case X_EQ:
    case X_NE:
    case X_LT:
    case X_LE:
    case X_GT:
    case X_GE: {
        const sel_x *a = &SEL_X(s, e.a), *b = &SEL_X(s, e.b);
        int sa = a->op == X_PATH, sb = b->op == X_PATH;
        if (sa != sb) {
            uint32_t path = sa ? e.a : e.b, other = sa ? e.b : e.a;
            if (SEL_X(s, other).type == XT_BOOL) return px_mark(ps, st, pr, path, XT_BOOL) || px_mark(ps, st, pr, other, XT_BOOL);
            if (px_static(s, other) && st->cmp_count < 64) {
                e.cbit = (unsigned char)(++st->cmp_count);
                if (SEL_PUT(s, s->xs, sel_x, x, &e) || sel_push(s, &s->cmpx, &x, sizeof x)) return s->err.code;
                sel_pp pp = SEL_PP(s, SEL_X(s, path).a);
                pp.cmps |= (uint64_t)1 << (e.cbit - 1);
                if (!pp.attr_only) pr->content = 1;
                if (SEL_PUT(s, s->pps, sel_pp, SEL_X(s, path).a, &pp)) return s->err.code;
                return px_mark(ps, st, pr, other, XT_STR);
            }
        }
        for (int k = 0; k < 2; k++) {
            uint32_t y = k ? e.b : e.a;
            if (SEL_X(s, y).op == X_PATH) {
                sel_pp pp = SEL_PP(s, SEL_X(s, y).a);
                pp.need_all = 1;
                if (!pp.attr_only) pr->content = 1;
                if (SEL_PUT(s, s->pps, sel_pp, SEL_X(s, y).a, &pp)) return s->err.code;
            } else if (px_mark(ps, st, pr, y, XT_STR)) {
                return s->err.code;
            }
        }
        return 0;
    }
    case X_NUM:
    case X_STR:
    case X_TRUE:
    case X_FALSE: return 0;
    case X_COUNT:
    case X_BOOLEAN:
    case X_NOT: return px_mark(ps, st, pr, e.a, XT_BOOL);
    case X_NAME:
    case X_LNAME:
    case X_NSURI: return px_mark(ps, st, pr, e.a, X_NAME);
    case X_AND:
    case X_OR: return px_mark(ps, st, pr, e.a, XT_BOOL) || px_mark(ps, st, pr, e.b, XT_BOOL);
    case X_CONTAINS:
    case X_STARTS:
        st->n_norm++; /* (a number argument becomes a string in the scratch) */
        return px_mark(ps, st, pr, e.a, XT_STR) || px_mark(ps, st, pr, e.b, XT_STR);
    case X_NEG:
    case X_NORM:
    case X_SLEN:
    case X_STRING:
    case X_NUMBER:
        st->n_norm += e.op == X_NORM || e.op == X_STRING || e.op == X_SLEN;
        return px_mark(ps, st, pr, e.a, e.op == X_NORM || e.op == X_SLEN || e.op == X_STRING ? XT_STR : XT_NUM);
    default: return px_mark(ps, st, pr, e.a, XT_NUM) || px_mark(ps, st, pr, e.b, XT_NUM);
    }
}

/* Whether expression x cannot be decided at its element's START: a path
 * below it (not '.', not an attribute) as a boolean, or compared with a
 * constant; and, or and not of such. */
static int px_late(const stax_select *s, uint32_t x) {
    const sel_x *e = &SEL_X(s, x);
    switch (e->op) {
    case X_PATH: {
        const sel_pp *pp = &SEL_PP(s, e->a);
        return !pp->attr_only && SEL_PS(s, pp->first).axis != PS_SELF && SEL_PS(s, pp->first).axis != PS_DSELF;
    }
    case X_EQ:
    case X_NE:
    case X_LT:
    case X_LE:
    case X_GT:
    case X_GE: return e->cbit && px_late(s, SEL_X(s, e->a).op == X_PATH ? e->a : e->b);
    case X_NOT: return px_late(s, e->a);
    case X_AND:
    case X_OR: return px_late(s, e->a) && px_late(s, e->b);
    default: return 0;
    }
}

/* The old forms of a predicate: [n] (pos), or @a, @a='v', @a!='v' joined by
 * 'and' (tests): whether expression x is one, and (fill) the tests. */
static int px_lower_tests(sel_parser *ps, uint32_t x, int fill) {
    stax_select *s = ps->s;
    const sel_x *e = &SEL_X(s, x);
    if (e->op == X_AND) return px_lower_tests(ps, e->a, fill) && px_lower_tests(ps, e->b, fill);
    const sel_x *p = e, *v = NULL;
    if (e->op == X_EQ || e->op == X_NE) {
        p = &SEL_X(s, e->a);
        v = &SEL_X(s, e->b);
        if (p->op != X_PATH) {
            const sel_x *t = p;
            p = v;
            v = t;
        }
        if (v->op != X_STR) return 0;
    }
    if (p->op != X_PATH) return 0;
    const sel_pp *pp = &SEL_PP(s, p->a);
    if (pp->count != 1 || SEL_PS(s, pp->first).type != SEL_ATTR || SEL_PS(s, pp->first).axis != PS_CHILD) return 0;
    if (!fill) return 1;
    sel_test t;
    memset(&t, 0, sizeof t);
    t.name = SEL_PS(s, pp->first).name;
    t.op = !v ? SEL_EXISTS : e->op == X_EQ ? SEL_EQ : SEL_NE;
    if (v) t.value = v->str;
    return sel_push(s, &s->tests, &t, sizeof t) ? -1 : 1;
}

/* '/self::name' after an element step (not self::node()): at ps->p, the
 * length up to the name, or 0. */
static size_t ps_self_named(const sel_parser *ps) {
    const char *q = ps_skip(ps, ps->p);
    if (q >= ps->end || *q != '/' || (q + 1 < ps->end && q[1] == '/')) return 0;
    q = ps_skip(ps, q + 1);
    if (!ps_keyword(ps, q, "self")) return 0;
    q = ps_skip(ps, q + 4);
    if (q + 1 >= ps->end || q[0] != ':' || q[1] != ':') return 0;
    q = ps_skip(ps, q + 2);
    const char *r = ps_skip(ps, q + 4);
    if ((ps_keyword(ps, q, "node") || ps_keyword(ps, q, "text")) && r < ps->end && *r == '(') return 0;
    return (size_t)(q - ps->p);
}

/* The predicates of element step st, each an expression; then, when every
 * one of them is [n] or attribute tests, those forms (tested at the START
 * with no other state), else st->xpred. */
static int ps_preds(sel_parser *ps, sel_step *st, int explicit_desc) {
    stax_select *s = ps->s;
    uint32_t pp0 = (uint32_t)SEL_N(s->pps, sel_pp), ps0 = (uint32_t)SEL_N(s->pss, sel_ps);
    int lower = 1, self_after = 0;
    size_t self_len = 0;
    while (ps_peek(ps) == '[' || (st->type == SEL_ELEM && (self_len = ps_self_named(ps)) != 0)) {
        sel_pred pr;
        memset(&pr, 0, sizeof pr);
        uint32_t root;
        if (ps_peek(ps) == '/') { /* a/self::b is a[self::b]; then b's predicates see position 1 of 1 */
            sel_name name;
            ps->p += self_len;
            if (ps_name_test(ps, &name, 0) || px_self_named(ps, &name, &root)) return s->err.code;
            self_after = 1;
            pr.expr = root + 1;
            lower = 0;
            if (sel_push(s, &s->preds, &pr, sizeof pr)) return s->err.code;
            st->pred_count++;
            continue;
        }
        if (st->type != SEL_ELEM)
            return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s",
                           st->type == SEL_ATTR ? "a predicate on an attribute" : "a predicate on text()");
        ps->p++;
        const char *at = ps_skip(ps, ps->p);
        if (px_or(ps, &root)) return s->err.code;
        if (self_after && (SEL_X(s, root).type == XT_NUM || (px_reads(s, root) & (PX_POS | PX_LAST))))
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "a position on a self:: step");
        if (ps->column && (px_reads(s, root) & (PX_CONTENT | PX_LAST)))
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "a predicate on content or last() in a column");
        int c = ps_peek(ps);
        if (c < 0) return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "a predicate without its ']'");
        if (c != ']') return ps_refuse(ps, ps->p, 1);
        ps->p++;
        pr.expr = root + 1;
        const sel_x *e = &SEL_X(s, root);
        int pos = e->op == X_NUM && e->num >= 1 && e->num < UINT32_MAX && e->num == (double)(uint32_t)e->num;
        if (!pos && px_lower_tests(ps, root, 0) != 1) lower = 0;
        if (sel_push(s, &s->preds, &pr, sizeof pr)) return s->err.code;
        st->pred_count++;
    }
    st->cmp_first = (uint32_t)SEL_N(s->cmpx, uint32_t);
    for (uint32_t k = 0; k < st->pred_count; k++) {
        sel_pred pr = SEL_AT(s->preds, sel_pred, st->pred_first + k);
        uint32_t root = pr.expr - 1;
        const sel_x e = SEL_X(s, root);
        if (lower) {
            pr.expr = 0;
            if (e.op == X_NUM) {
                if (explicit_desc)
                    return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "a position on the descendant axis (//x[1] counts among siblings)");
                pr.pos = (uint32_t)e.num;
                pr.slot = s->n_slots++;
            } else {
                pr.first = (uint32_t)SEL_N(s->tests, sel_test);
                if (px_lower_tests(ps, root, 1) < 0) return s->err.code;
                pr.count = (uint32_t)SEL_N(s->tests, sel_test) - pr.first;
            }
        } else {
            pr.num = e.type == XT_NUM;
            if (px_mark(ps, st, &pr, root, pr.num ? XT_NUM : XT_BOOL)) return s->err.code;
            pr.late = !pr.num && px_late(s, root);
            if (pr.num || pr.slot) {
                if (explicit_desc)
                    return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "a position on the descendant axis (//x[1] counts among siblings)");
                pr.pos = 1; /* reads the position: a counter */
                pr.slot = s->n_slots++;
            }
        }
        st->counted |= pr.pos != 0;
        if (SEL_PUT(s, s->preds, sel_pred, st->pred_first + k, &pr)) return s->err.code;
    }
    if (lower) { /* the expressions' paths are not needed */
        s->pps.len = pp0 * sizeof(sel_pp);
        s->pss.len = ps0 * sizeof(sel_ps);
        return 0;
    }
    st->xpred = 1;
    st->counted = 1;
    st->pp_first = pp0;
    st->pp_count = (uint32_t)SEL_N(s->pps, sel_pp) - pp0;
    st->ps_first = ps0;
    st->ps_count = (uint32_t)SEL_N(s->pss, sel_ps) - ps0;
    if (st->ps_count > 64)
        return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "more than 64 steps in the paths of one step's predicates");
    for (uint32_t k = 0, slots = 0; k < st->ps_count; k++) {
        sel_ps p = SEL_PS(s, ps0 + k);
        if (!p.pos) continue;
        if (slots == PS_SLOTS)
            return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "more than 4 steps with [n] in the paths of one step's predicates");
        p.slot = (unsigned char)slots++;
        if (SEL_PUT(s, s->pss, sel_ps, ps0 + k, &p)) return s->err.code;
    }
    for (uint32_t k = 0; k < st->pp_count; k++) {
        sel_pp pp = SEL_PP(s, pp0 + k);
        pp.local = k;
        if (SEL_PUT(s, s->pps, sel_pp, pp0 + k, &pp)) return s->err.code;
    }
    return 0;
}

/* One step, reached by axis. */
static int ps_step(sel_parser *ps, int axis, uint32_t query) {
    stax_select *s = ps->s;
    sel_step st;
    memset(&st, 0, sizeof st);
    st.axis = axis;
    st.query = query;
    int c = ps_peek(ps), explicit_desc = 0;
    size_t an = c < 0 ? 0 : ps_ncname(ps, ps->p);
    const char *aq = ps_skip(ps, ps->p + an);
    if (an && aq + 1 < ps->end && aq[0] == ':' && aq[1] == ':') {
        const char *at = ps->p;
        if (ps_keyword(ps, at, "attribute")) {
            ps->p = ps_skip(ps, aq + 2);
            st.type = SEL_ATTR;
            if (ps_name_test(ps, &st.name, 1)) return s->err.code;
            c = -2;
        } else if (ps_keyword(ps, at, "child") || ps_keyword(ps, at, "descendant")) {
            if (ps_keyword(ps, at, "descendant")) {
                if (axis == SEL_DESC) return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "'descendant::' after '//'");
                st.axis = SEL_DESC;
                explicit_desc = 1;
            }
            ps->p = ps_skip(ps, aq + 2);
            c = ps_peek(ps);
            if (c == '@') return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "'@' after an axis");
        } else {
            return ps_refuse(ps, at, 0);
        }
    }
    if (c == -2) {
    } else if (c == '@') {
        ps->p = ps_skip(ps, ps->p + 1);
        st.type = SEL_ATTR;
        if (ps_name_test(ps, &st.name, 1)) return s->err.code;
    } else if (ps_keyword(ps, ps->p, "text") && ps_skip(ps, ps->p + 4) < ps->end && *ps_skip(ps, ps->p + 4) == '(') {
        const char *q = ps_skip(ps, ps_skip(ps, ps->p + 4) + 1);
        if (q >= ps->end || *q != ')') return ps_fail(ps, STAX_E_SYNTAX, q, "%s", "expected ')' after 'text('");
        ps->p = q + 1;
        st.type = SEL_TEXT;
    } else if (ps_keyword(ps, ps->p, "node") && ps_skip(ps, ps->p + 4) < ps->end && *ps_skip(ps, ps->p + 4) == '(') {
        const char *at = ps->p, *q = ps_skip(ps, ps_skip(ps, ps->p + 4) + 1);
        if (q >= ps->end || *q != ')') return ps_fail(ps, STAX_E_SYNTAX, q, "%s", "expected ')' after 'node('");
        ps->p = q + 1;
        if (ps_peek(ps) != '/')
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "node() as the last step (it selects comments and processing instructions)");
        st.type = SEL_ELEM; /* before a '/': only elements have children */
        st.name.any = 1;
    } else if (c < 0 || c == '/' || c == '|' || c == ',' || c == '[' || c == ']') {
        return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "expected a step: a name, *, @name or text()");
    } else {
        const char *q = ps_skip(ps, ps->p + ps_ncname(ps, ps->p));
        if (ps_ncname(ps, ps->p) && q < ps->end && *q == '(') return ps_refuse(ps, ps->p, 0);
        st.type = SEL_ELEM;
        if (ps_name_test(ps, &st.name, 0)) return s->err.code;
    }
    st.pred_first = (uint32_t)SEL_N(s->preds, sel_pred);
    if (ps_preds(ps, &st, explicit_desc)) return s->err.code;
    return sel_push(s, &s->steps, &st, sizeof st);
}

/* A self step in a path ('.', 'self::node()', or 'descendant-or-self::node()'
 * before a '/': *desc set), taken when there is one. */
static int ps_self_step(sel_parser *ps, int *desc) {
    int c = ps_peek(ps);
    const char *at = ps->p, *q;
    if (c == '.' && !(ps->end - at >= 2 && (at[1] == '.' || (at[1] >= '0' && at[1] <= '9')))) {
        q = at + 1;
    } else {
        int ds = ps_keyword(ps, at, "descendant-or-self");
        if (!ds && !ps_keyword(ps, at, "self")) return 0;
        q = ps_skip(ps, at + (ds ? 18 : 4));
        if (q + 1 >= ps->end || q[0] != ':' || q[1] != ':') return 0;
        q = ps_skip(ps, q + 2);
        const char *r = ps_skip(ps, q + 4);
        if (!ps_keyword(ps, q, "node") || r >= ps->end || *r != '(') return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "a self or descendant-or-self step other than ::node() in a path");
        q = ps_skip(ps, q + 4);
        if (q >= ps->end || *q != '(') return ps_fail(ps, STAX_E_SYNTAX, q, "%s", "expected '('");
        q = ps_skip(ps, q + 1);
        if (q >= ps->end || *q != ')') return ps_fail(ps, STAX_E_SYNTAX, q, "%s", "expected ')'");
        q++;
        if (ds) *desc = 1;
    }
    q = ps_skip(ps, q);
    if (q < ps->end && *q == '[') return ps_fail(ps, STAX_E_UNSUPPORTED, q, "%s", "a predicate on a self step");
    ps->p = q;
    return 1;
}

/* A '.' that starts a path: ./ .// or . alone (not '..', not a number). */
static int ps_dot_start(const sel_parser *ps) {
    const char *q = ps_skip(ps, ps->p + 1);
    if (ps->p + 1 < ps->end && (ps->p[1] == '.' || (ps->p[1] >= '0' && ps->p[1] <= '9'))) return 0;
    return q >= ps->end || *q == '/' || *q == '|' || *q == ',';
}

/* One path of a union. */
static int ps_path(sel_parser *ps) {
    stax_select *s = ps->s;
    sel_query q;
    memset(&q, 0, sizeof q);
    q.index = ps->index;
    q.column = ps->column;
    q.first_step = (uint32_t)SEL_N(s->steps, sel_step);
    uint32_t query = (uint32_t)SEL_N(s->queries, sel_query);
    int axis = SEL_CHILD;
    int c0 = ps_peek(ps);
    if (c0 == '.' && ps_dot_start(ps)) { /* ./ .// or, for a column, . alone */
        const char *after = ps_skip(ps, ps->p + 1);
        if (after >= ps->end || *after != '/') {
            sel_step st;
            memset(&st, 0, sizeof st);
            st.type = SEL_SELF;
            st.final = 1;
            st.query = query;
            ps->p = after;
            if (!ps->column) return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p - 1, "%s", "'.' alone (the root node; /* is the root element)");
            if (sel_push(s, &s->steps, &st, sizeof st)) return s->err.code;
            return sel_push(s, &s->queries, &q, sizeof q);
        }
        axis = after + 1 < ps->end && after[1] == '/' ? SEL_DESC : SEL_CHILD;
        ps->p = after + (axis == SEL_DESC ? 2 : 1);
    } else if (c0 == '/') {
        const char *at = ps->p;
        if (ps->column) return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "an absolute column (a column is relative to its record)");
        axis = ps->end - at >= 2 && at[1] == '/' ? SEL_DESC : SEL_CHILD;
        ps->p += axis == SEL_DESC ? 2 : 1;
        int c = ps_peek(ps);
        if (axis == SEL_CHILD && (c < 0 || c == '|'))
            return ps_fail(ps, STAX_E_UNSUPPORTED, at, "%s", "'/' alone (the root node; /* is the root element)");
    }
    for (int first = 1;; first = 0) {
        int dsc = 0, self = first ? 0 : ps_self_step(ps, &dsc);
        if (self < 0) return s->err.code;
        if (self) { /* a/./b is a/b; a//./b and a/descendant-or-self::node()/b are a//b */
            if (ps_peek(ps) != '/') {
                if (dsc) return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s", "descendant-or-self::node() as the last step");
                break;
            }
            int next = ps->end - ps->p >= 2 && ps->p[1] == '/' ? SEL_DESC : SEL_CHILD;
            ps->p += next == SEL_DESC ? 2 : 1;
            if (dsc || next == SEL_DESC) axis = SEL_DESC;
            continue;
        }
        if (ps_step(ps, axis, query)) return s->err.code;
        int type = SEL_STEP(s, SEL_N(s->steps, sel_step) - 1).type;
        if (ps_peek(ps) != '/') break;
        if (type != SEL_ELEM)
            return ps_fail(ps, STAX_E_UNSUPPORTED, ps->p, "%s",
                           type == SEL_ATTR ? "a step after an attribute (@name is last)" : "a step after text() (text() is last)");
        axis = ps->end - ps->p >= 2 && ps->p[1] == '/' ? SEL_DESC : SEL_CHILD;
        ps->p += axis == SEL_DESC ? 2 : 1;
    }
    size_t last = SEL_N(s->steps, sel_step) - 1;
    sel_step st = SEL_STEP(s, last);
    st.final = 1;
    if (SEL_PUT(s, s->steps, sel_step, last, &st)) return s->err.code;
    return sel_push(s, &s->queries, &q, sizeof q);
}

/* path|path|... up to the end; with columns, column,column,... where each
 * column may itself be a union. */
/* A column as written (stax_select_column_text): from at to the end of its
 * last path, after the whitespace around it. */
static int ps_column_span(sel_parser *ps, const char *at) {
    size_t span[2];
    span[0] = (size_t)(at - ps->s->text);
    span[1] = (size_t)(ps_skip(ps, ps->p) - at);
    while (span[1] && ps_space(at[span[1] - 1])) span[1]--;
    return sel_push(ps->s, &ps->s->colspan, span, sizeof span);
}

static int ps_all(sel_parser *ps) {
    stax_select *s = ps->s;
    ps->index = 0;
    if (ps_peek(ps) < 0) return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", ps->column ? "no column" : "an empty path");
    const char *col = ps->p;
    for (;;) {
        if (ps_path(ps)) return s->err.code;
        int c = ps_peek(ps);
        if (c < 0) break;
        if (c == '|') {
            ps->p++;
            if (!ps->column) ps->index++;
            continue;
        }
        if (c == ',' && ps->column) {
            if (ps_column_span(ps, col)) return s->err.code;
            ps->p++;
            col = ps_skip(ps, ps->p);
            ps->index++;
            continue;
        }
        if (c == ']') return ps_fail(ps, STAX_E_SYNTAX, ps->p, "%s", "a ']' without its '['");
        return ps_refuse(ps, ps->p, 0);
    }
    if (ps->column && ps_column_span(ps, col)) return s->err.code;
    if (ps->column) s->n_cols = ps->index + 1;
    else s->n_paths = ps->index + 1;
    return 0;
}

/* With columns, the paths select the records: elements. */
static int sel_check_records(stax_select *s) {
    for (uint32_t q = 0; q < SEL_N(s->queries, sel_query); q++) {
        const sel_query *qu = &SEL_AT(s->queries, sel_query, q);
        uint32_t last = q + 1 < SEL_N(s->queries, sel_query) ? SEL_AT(s->queries, sel_query, q + 1).first_step : (uint32_t)SEL_N(s->steps, sel_step);
        int type = SEL_STEP(s, last - 1).type;
        if (!qu->column && type != SEL_ELEM)
            return sel_fail(s, STAX_E_UNSUPPORTED, "not supported: records that are %s (a record is an element), in path %u",
                            type == SEL_ATTR ? "attributes" : "text nodes", (unsigned)qu->index + 1);
    }
    return 0;
}

/* A root step (the document's, or the record's). */
static int sel_root_step(stax_select *s) {
    sel_step st;
    memset(&st, 0, sizeof st);
    st.type = SEL_ROOT;
    st.query = SEL_NONE;
    return sel_push(s, &s->steps, &st, sizeof st);
}

/* A name's bit in sel_frame.names: from its last byte (the local part's,
 * with namespaces) and, without namespaces, its length. */
static inline uint64_t sel_name_bit(int ns, stax_str name) {
    if (!name.len) return ~(uint64_t)0;
    unsigned h = (unsigned char)name.ptr[name.len - 1];
    if (!ns) h += (unsigned)name.len * 7u;
    return (uint64_t)1 << (h & 63u);
}

/* Link each step to the ones that follow it. The first steps of the
 * columns that are '@a' alone go after the record root's successors (own_first,
 * own_count): they are no candidates (sel_own_columns). */
static int sel_link(stax_select *s) {
    for (uint32_t q = 0; q < SEL_N(s->queries, sel_query); q++) {
        sel_query qu = SEL_AT(s->queries, sel_query, q);
        const sel_step *first = &SEL_STEP(s, qu.first_step);
        qu.shared = 0;
        for (uint32_t o = 0; qu.column && o < SEL_N(s->queries, sel_query); o++) {
            const sel_query *other = &SEL_AT(s->queries, sel_query, o);
            if (o != q && other->column && other->index == qu.index) qu.shared = 1;
        }
        qu.own_attr = qu.column && !qu.shared && first->type == SEL_ATTR && first->axis == SEL_CHILD && first->final &&
                      !(s->all && first->name.any); /* with every match, '@*' may take several */
        if (SEL_PUT(s, s->queries, sel_query, q, &qu)) return s->err.code;
    }
    uint32_t n = (uint32_t)SEL_N(s->steps, sel_step);
    for (uint32_t k = 0; k < n; k++) {
        sel_step st = SEL_STEP(s, k);
        st.succ_first = (uint32_t)SEL_N(s->succ, uint32_t);
        st.succ_count = 0;
        if (st.type == SEL_ROOT) {
            int columns = k == SEL_REC_ROOT;
            for (int own = 0; own <= columns; own++) {
                if (own) s->own_first = (uint32_t)SEL_N(s->succ, uint32_t);
                for (uint32_t q = 0; q < SEL_N(s->queries, sel_query); q++) {
                    sel_query qu = SEL_AT(s->queries, sel_query, q);
                    if (qu.column != columns || qu.own_attr != own) continue;
                    if (sel_push(s, &s->succ, &qu.first_step, sizeof(uint32_t))) return s->err.code;
                    if (own && qu.index == s->own_count && s->own_lead == s->own_count) s->own_lead++;
                    if (own) s->own_count++;
                    else st.succ_count++;
                }
            }
        } else if (!st.final) {
            uint32_t next = k + 1;
            if (sel_push(s, &s->succ, &next, sizeof next)) return s->err.code;
            st.succ_count = 1;
        }
        st.names = st.type != SEL_ELEM ? 0 : st.name.any ? ~(uint64_t)0 : sel_name_bit(s->ns, st.name.name);
        if (SEL_PUT(s, s->steps, sel_step, k, &st)) return s->err.code;
    }
    s->n_steps = n;
    if (n > SEL_REC_ROOT && SEL_STEP(s, SEL_REC_ROOT).type == SEL_ROOT && s->n_cols) { /* what a record's frame starts with */
        const sel_step *root = &SEL_STEP(s, SEL_REC_ROOT);
        for (uint32_t j = 0; j < root->succ_count; j++) {
            const sel_step *st = &SEL_STEP(s, SEL_AT(s->succ, uint32_t, root->succ_first + j));
            if (st->type == SEL_SELF) continue;
            s->rec_n++;
            s->rec_names |= st->names;
            s->rec_attr |= st->type == SEL_ATTR;
            s->rec_text |= st->type == SEL_TEXT;
            s->rec_desc |= st->axis == SEL_DESC;
        }
    }
    return 0;
}

/* A buffer of n zero bytes (the per-step and per-path tables). */
static int sel_table(stax_select *s, stax__buf *b, size_t n) {
    if (stax__buf_reserve(&s->mem, b, n, SIZE_MAX / 4)) return sel_nomem(s);
    b->len = n;
    return sel_zero(s, b, 0, n);
}

static int sel_runtime_init(stax_select *s);
static int sel_root(stax_select *s);
static SEL_COLD int sel_pend_flush(stax_select *s, uint64_t record, uint32_t column);
static int sel_attr_value(stax_select *s, uint64_t match, uint32_t column, stax_str name, stax_str value);
static int sel_block_check(stax_select *s);

int stax_select_compile(stax_select *s, stax_str paths, stax_str columns) {
    if (!s) return STAX_E_USAGE;
    if (s->compiled || s->compile_status) return sel_fail(s, STAX_E_USAGE, "stax_select_compile: called twice");
    if ((paths.len && !paths.ptr) || (columns.len && !columns.ptr))
        return sel_fail(s, STAX_E_USAGE, "stax_select_compile: a NULL string");
    if (s->ns && s->opt.ns_count && !s->opt.ns)
        return sel_fail(s, STAX_E_USAGE, "stax_select_compile: ns_count without ns");
    /* the text of the paths and the bound URIs, which the compiled steps point into */
    size_t need = paths.len + columns.len + 1;
    for (size_t k = 0; s->ns && k < s->opt.ns_count; k++) {
        if (s->opt.ns[2 * k + 1].len && !s->opt.ns[2 * k + 1].ptr) return sel_fail(s, STAX_E_USAGE, "a NULL URI");
        need += s->opt.ns[2 * k + 1].len;
    }
    s->text = (char *)stax__mem_alloc(&s->mem, need);
    if (!s->text) return s->compile_status = sel_nomem(s);
    s->text_cap = need;
    stax__out o = stax__out_make(s->text, need);
    stax__out_put(&o, paths.ptr, paths.len);
    stax__out_put(&o, columns.ptr, columns.len);
    stax__out_byte(&o, '\0');
    for (size_t k = 0; s->ns && k < s->opt.ns_count; k++) stax__out_put(&o, s->opt.ns[2 * k + 1].ptr, s->opt.ns[2 * k + 1].len);
    if (o.over || o.p != s->text + need) return s->compile_status = sel_internal(s, "the path copy did not fit");

    sel_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.s = s;
    int st = sel_root_step(s);
    if (!st && columns.len) st = sel_root_step(s);
    if (!st) {
        ps.start = ps.p = s->text;
        ps.end = s->text + paths.len;
        ps.what = "path";
        st = ps_all(&ps);
    }
    if (!st && columns.len) {
        ps.start = ps.p = s->text + paths.len;
        ps.end = ps.start + columns.len;
        ps.what = "columns";
        ps.column = 1;
        st = ps_all(&ps);
    }
    if (!st && columns.len) st = sel_check_records(s);
    if (!st) st = sel_link(s);
    if (!st) st = sel_table(s, &s->counts, s->n_paths * sizeof(uint64_t));
    if (!st) st = sel_table(s, &s->eval_epoch, s->n_steps * sizeof(uint64_t));
    if (!st) st = sel_table(s, &s->eval_ok, s->n_steps);
    if (!st) st = sel_table(s, &s->eval_pev, s->n_steps * sizeof(uint32_t));
    if (!st) st = sel_block_check(s);
    if (!st) {
        s->compiled = 1;
        st = sel_runtime_init(s);
    }
    if (st) s->compile_status = st;
    return st;
}

/* ================================================================ held output */

/* A match in the queue, to read (updates go through SEL_PUT). */
static const sel_match *sel_match_at(const stax_select *s, uint64_t match) {
    return &SEL_AT(s->queue, sel_match, (size_t)(match - s->q_base));
}

static sel_seg sel_seg_get(const stax_select *s, size_t off) {
    sel_seg g;
    memcpy(&g, s->held.ptr + off, sizeof g);
    return g;
}

static int sel_seg_set(stax_select *s, size_t off, const sel_seg *g) { return sel_store(s, &s->held, off, g, sizeof *g); }

/* Put the segment at off at the end of the chain of a match. */
static int sel_seg_link(stax_select *s, uint64_t match, size_t off) {
    sel_match m = *sel_match_at(s, match);
    if (m.seg_last) {
        sel_seg prev = sel_seg_get(s, m.seg_last - 1);
        prev.next = off + 1;
        if (sel_seg_set(s, m.seg_last - 1, &prev)) return s->err.code;
    } else {
        m.seg_first = off + 1;
    }
    m.seg_last = off + 1;
    return SEL_PUT(s, s->queue, sel_match, match - s->q_base, &m);
}

/* Keep bytes for a match that is not at the front (or a record's column). */
static int sel_hold(stax_select *s, uint64_t match, uint32_t column, const char *p, size_t n) {
    const sel_match *m = sel_match_at(s, match);
    if (m->seg_last) { /* the last segment in the buffer, same column: extend it */
        size_t off = m->seg_last - 1;
        sel_seg g = sel_seg_get(s, off);
        if (off + sizeof g + g.len == s->held.len && g.column == column) {
            if (sel_held_reserve(s, &s->held, n) || sel_append(s, &s->held, p, n)) return s->err.code;
            g.len += n;
            return sel_seg_set(s, off, &g);
        }
    }
    if (sel_held_reserve(s, &s->held, sizeof(sel_seg) + n)) return s->err.code;
    sel_seg g;
    memset(&g, 0, sizeof g);
    g.len = n;
    g.column = column;
    size_t off = s->held.len;
    if (sel_append(s, &s->held, &g, sizeof g) || sel_append(s, &s->held, p, n)) return s->err.code;
    return sel_seg_link(s, match, off);
}

static int sel_emit(stax_select *s, int type, const sel_match *m, uint64_t match, uint32_t column, const char *p, size_t n) {
    if (!s->fn) return 0;
    stax_select_piece pc;
    pc.type = type;
    pc.kind = m->kind;
    pc.path = m->path;
    pc.column = column;
    /* the number among the matches given (a candidate that failed is none) */
    (void)match;
    pc.match = type == STAX_SELECT_BEGIN ? s->given++ : s->given - 1;
    pc.value.ptr = p;
    pc.value.len = n;
    pc.event = s->event;
    if (s->fn(s->fn_ctx, &pc) == 0) return 0;
    return stax__err_set(&s->err, STAX_END, NULL, "%s", stax_strerror(STAX_END));
}

/* Hand over the held segments of a match (of one column, or all). They stay
 * until the queue is empty, which it is once the front match ends: every
 * match behind it began inside it, and has ended too. */
static int sel_emit_segs(stax_select *s, uint64_t match, uint32_t column) {
    const sel_match *m = sel_match_at(s, match);
    for (size_t at = m->seg_first; at;) {
        sel_seg g = sel_seg_get(s, at - 1);
        if ((column == SEL_NONE || g.column == column) &&
            sel_emit(s, STAX_SELECT_VALUE, m, match, g.column, s->held.ptr + at - 1 + sizeof g, g.len))
            return s->err.code;
        at = g.next;
    }
    return 0;
}
static inline int sel_emit_held(stax_select *s, uint64_t match, uint32_t column) {
    return sel_match_at(s, match)->seg_first ? sel_emit_segs(s, match, column) : 0;
}

static int sel_colst(const stax_select *s, uint64_t record, uint32_t column);

/* A begun record streams its columns in column order: next_col's pieces go
 * out as they come, those of later columns are held. Once next_col is
 * complete (all are, once the record is closed), the next one is announced
 * and what it holds goes out: sel_record_out, on the record m (a copy, which
 * sel_record_advance writes back). */
static inline int sel_record_out(stax_select *s, sel_match *m, uint64_t match) {
    /* (a closed record's states are not read: without values there are none) */
    while (m->next_col < s->n_cols && (m->closed || sel_colst(s, match, m->next_col) == SEL_COL_DONE)) {
        m->next_col++;
        if (m->next_col < s->n_cols &&
            (sel_emit(s, STAX_SELECT_COLUMN, m, match, m->next_col, NULL, 0) || sel_emit_held(s, match, m->next_col)))
            return s->err.code;
    }
    return 0;
}
static int sel_record_advance(stax_select *s, uint64_t match) {
    sel_match m = *sel_match_at(s, match);
    uint32_t was = m.next_col;
    if (sel_record_out(s, &m, match)) return s->err.code;
    return m.next_col == was ? 0 : SEL_PUT(s, s->queue, sel_match, match - s->q_base, &m);
}

static int pv_eff(const stax_select *s, uint32_t cond);
static int sel_count(stax_select *s, const sel_query *q, uint32_t *first);
enum { SEL_PEV_TRUE = 2, SEL_PEV_FALSE = 3 }; /* pv_eff's PEV_TRUE and PEV_FALSE */

/* A match that waits for predicates (m->cond) at the front: 0 while they
 * are undecided; 1 when it goes on (counted if it counts, its cond cleared);
 * 2 when it is dropped or a shadow (q_head moves past it). */
static SEL_COLD int sel_front_cond(stax_select *s, uint64_t match) {
    sel_match m = *sel_match_at(s, match);
    int e = pv_eff(s, m.cond);
    if (e == SEL_PEV_FALSE) return m.closed ? 2 : 0;
    if (e != SEL_PEV_TRUE) return 0;
    uint32_t first = SEL_NONE;
    int shadow = m.kind >> 3;
    m.kind &= 7;
    if (shadow) {
        sel_query q;
        memset(&q, 0, sizeof q);
        q.index = m.path;
        if (sel_count(s, &q, &first)) return -1;
    }
    m.cond = 0;
    if (SEL_PUT(s, s->queue, sel_match, match - s->q_base, &m)) return -1;
    return shadow == 1 ? 2 : 1;
}

/* Output what the front of the queue allows. */
static int sel_drain(stax_select *s) {
    size_t n = SEL_N(s->queue, sel_match);
    while (s->q_head < n) {
        uint64_t match = s->q_base + s->q_head;
        const sel_match *m = sel_match_at(s, match);
        if (m->cond) {
            int r = sel_front_cond(s, match);
            if (r < 0) return s->err.code;
            if (r == 0) return 0;
            if (r == 2) {
                s->q_head++;
                continue;
            }
            m = sel_match_at(s, match);
        }
        if (!m->begun) {
            sel_match begun = *m;
            begun.begun = 1;
            if (SEL_PUT(s, s->queue, sel_match, s->q_head, &begun)) return s->err.code;
            if (sel_emit(s, STAX_SELECT_BEGIN, m, match, 0, NULL, 0)) return s->err.code;
            if (m->record) {
                if (sel_emit(s, STAX_SELECT_COLUMN, m, match, 0, NULL, 0) || sel_emit_held(s, match, 0)) return s->err.code;
            } else if (sel_emit_held(s, match, SEL_NONE)) {
                return s->err.code;
            }
        }
        if (m->record && sel_record_advance(s, match)) return s->err.code;
        if (!m->closed) return 0;
        if (sel_emit(s, STAX_SELECT_END, m, match, 0, NULL, 0)) return s->err.code;
        s->q_head++;
    }
    /* Here the queue is empty: the front match ended, and so did every
     * match behind it (they began inside it). Start the buffers over. */
    s->queue.len = s->colst.len = s->held.len = 0; /* (pend is empty: every column's match ended) */
    s->q_head = 0;
    s->q_base = s->next_match;
    return 0;
}

/* Bytes of a value: to the callback when the match streams, else held. */
static int sel_put(stax_select *s, uint64_t match, uint32_t column, const char *p, size_t n) {
    if (n == 0) return 0;
    const sel_match *m = sel_match_at(s, match);
    if (m->begun && column == SEL_NONE) return sel_emit(s, STAX_SELECT_VALUE, m, match, 0, p, n);
    if (m->begun && column == m->next_col) return sel_emit(s, STAX_SELECT_VALUE, m, match, column, p, n);
    if (m->cond && pv_eff(s, m->cond) == SEL_PEV_FALSE) return 0; /* it will be dropped */
    return sel_hold(s, match, column, p, n);
}

/* A new match at the end of the queue; *out its number. cond: the
 * predicates it waits for (sel_new_match_if). */
static int sel_new_match_if(stax_select *s, int kind, uint32_t path, int record, uint32_t cond, int shadow, uint64_t *out);
static int sel_new_match(stax_select *s, int kind, uint32_t path, int record, uint64_t *out) {
    return sel_new_match_if(s, kind, path, record, 0, 0, out);
}
static int sel_new_match_if(stax_select *s, int kind, uint32_t path, int record, uint32_t cond, int shadow, uint64_t *out) {
    sel_match m;
    memset(&m, 0, sizeof m);
    m.kind = (unsigned char)kind;
    m.path = path;
    m.record = (unsigned char)record;
    m.cond = cond;
    m.kind = (unsigned char)(kind | shadow << 3); /* with cond: shadow 1 counts its path once cond holds, and
                                                    * has no value (a path of a union whose node another match
                                                    * gives); 2 counts it too */
    m.closed = !s->values || shadow == 1;
    if (sel_held_reserve(s, &s->queue, sizeof m)) return s->err.code;
    if (record && s->n_cols && s->values && /* SEL_COL_NONE is 0 */
        (sel_held_reserve(s, &s->colst, s->n_cols) || sel_append_zeros(s, &s->colst, s->n_cols)))
        return s->err.code;
    /* with nothing queued and a value to come it is the front at once:
     * sel_drain's first steps, in short (nothing is held for it, and no
     * column of a record is complete yet) */
    int front = s->values && !cond && s->q_head == SEL_N(s->queue, sel_match);
    m.begun = (unsigned char)front;
    if (sel_append(s, &s->queue, &m, sizeof m)) return s->err.code;
    *out = s->next_match++;
    if (!front) return sel_drain(s);
    if (sel_emit(s, STAX_SELECT_BEGIN, &m, *out, 0, NULL, 0)) return s->err.code;
    return record ? sel_emit(s, STAX_SELECT_COLUMN, &m, *out, 0, NULL, 0) : 0;
}

static int sel_close_match(stax_select *s, uint64_t match) {
    sel_match m = *sel_match_at(s, match);
    m.closed = 1;
    if (!m.begun || match - s->q_base != s->q_head || s->q_head + 1 != SEL_N(s->queue, sel_match)) {
        if (SEL_PUT(s, s->queue, sel_match, match - s->q_base, &m)) return s->err.code;
        return sel_drain(s);
    }
    /* the front and last match, streaming: sel_drain's steps in short (a
     * record's columns after the one streaming, its END; then the queue is
     * empty) */
    if ((m.record && sel_record_out(s, &m, match)) || sel_emit(s, STAX_SELECT_END, &m, match, 0, NULL, 0)) return s->err.code;
    s->q_head++;
    return sel_drain(s);
}

/* The state of a column of a record (SEL_COL_*), and its update. */
static size_t sel_colst_off(const stax_select *s, uint64_t record, uint32_t column) {
    return (size_t)(record - s->q_base) * s->n_cols + column;
}
static int sel_colst(const stax_select *s, uint64_t record, uint32_t column) {
    return (unsigned char)s->colst.ptr[sel_colst_off(s, record, column)];
}
static int sel_colst_set(stax_select *s, uint64_t record, uint32_t column, int state) {
    unsigned char v = (unsigned char)state;
    if (sel_store(s, &s->colst, sel_colst_off(s, record, column), &v, 1)) return s->err.code;
    const sel_match *m = sel_match_at(s, record);
    return state == SEL_COL_DONE && m->begun && column == m->next_col ? sel_record_advance(s, record) : 0;
}

/* ================================================================ XML values (through the writer) */

static int sel_writer_status(stax_select *s, int st) {
    if (st >= 0 || st == STAX_E_DUP_ATTR) return 0;
    if (s->err.code) return s->err.code; /* the sink failed: the select's own error */
    if (st == STAX_E_NOMEM || st == STAX_E_LIMIT_STACK)
        return sel_fail(s, STAX_E_LIMIT_XML_MEMORY, "an element of an XML value is nested deeper than its writer's "
                                                    "block holds: xml_memory (%zu bytes)", s->opt.xml_memory);
    return sel_fail(s, STAX_E_INVALID, "the writer refused an event of an XML value: %s", stax_strerror(st));
}

static ptrdiff_t sel_wsink(void *ctx, const void *data, size_t len) {
    sel_wctx *x = (sel_wctx *)ctx;
    const char *p = (const char *)data;
    size_t n = len;
    if (x->skip) {
        size_t k = x->skip < n ? x->skip : n;
        p += k;
        n -= k;
        x->skip -= (uint32_t)k;
    }
    if (x->discard) n = 0;
    if (sel_put(x->s, x->match, x->column, p, n)) return STAX_E_IO;
    return (ptrdiff_t)len;
}

static int sel_xml_open(stax_select *s, uint64_t match, uint32_t column, sel_wctx **out) {
    sel_wctx *x = s->wfree;
    if (x) {
        s->wfree = x->next_free;
    } else {
        if (sel_held_total(s) + s->opt.xml_memory > s->opt.max_held) return sel_held_over(s);
        x = (sel_wctx *)stax__mem_alloc(&s->mem, s->opt.xml_memory);
        if (!x) return sel_nomem(s);
        s->wblocks++;
    }
    memset(x, 0, sizeof *x);
    x->s = s;
    x->match = match;
    x->column = column;
    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.memory = (char *)x + SEL_WCTX_SIZE;
    wo.memory_size = s->opt.xml_memory - SEL_WCTX_SIZE;
    wo.buffer_size = SEL_XML_BUFFER;
    wo.flags = STAX_WRITE_SELF_CLOSE;
    x->w = stax_writer_new(&wo);
    if (!x->w || stax_writer_set_sink(x->w, sel_wsink, x) != STAX_OK) {
        x->next_free = s->wfree;
        s->wfree = x;
        return sel_internal(s, "a writer did not fit its block");
    }
    *out = x;
    return 0;
}

/* Give a writer's block back unfinished (the select has stopped). */
static void sel_xml_drop(stax_select *s, sel_wctx *x) {
    stax_writer_free(x->w);
    x->next_free = s->wfree;
    s->wfree = x;
}

/* Finish the value (flush), then give the block back. wrapped: the fragment's
 * dummy element is dropped. */
static int sel_xml_close(stax_select *s, sel_wctx *x, int wrapped) {
    int st = stax_writer_flush(x->w);
    if (!st && wrapped) x->discard = 1;
    if (!st) st = stax_writer_finish(x->w);
    stax_writer_free(x->w);
    x->next_free = s->wfree;
    s->wfree = x;
    return sel_writer_status(s, st);
}

/* Namespace declarations (xmlns, xmlns:p) of the open elements, for the root
 * of an XML value: records of {depth, name length, value length, bytes}. */
typedef struct sel_decl {
    uint32_t depth;
    size_t nlen, vlen;
} sel_decl;

static int sel_is_decl(stax_str n) { return (n.len == 5 || (n.len > 6 && n.ptr[5] == ':')) && memcmp(n.ptr, "xmlns", 5) == 0; }

static int sel_scope_push(stax_select *s, const stax_batch *b, size_t i, uint32_t depth) {
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
        stax_str n = stax_ev_attr_name(b, i, k), v = stax_ev_attr_value(b, i, k);
        if (!sel_is_decl(n)) continue;
        sel_decl d = {depth, n.len, v.len};
        if (sel_state_reserve(s, &s->scope, sizeof d + n.len + v.len)) return s->err.code;
        if (sel_append(s, &s->scope, &d, sizeof d) || sel_append(s, &s->scope, n.ptr, n.len) ||
            sel_append(s, &s->scope, v.ptr, v.len))
            return s->err.code;
    }
    return 0;
}

/* Write the root element of an XML value: the start tag with its attributes,
 * then the declarations in scope from outside it, outermost first, each name
 * once (the nearest; the writer refuses the element's own names again). */
static int sel_xml_root(stax_select *s, sel_wctx *x, const stax_batch *b, size_t i, size_t scope_len) {
    int st = stax_writer_start(x->w, stax_ev_name(b, i));
    for (size_t k = 0; !st && k < stax_ev_attr_count(b, i); k++)
        st = stax_writer_attr(x->w, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k));
    if ((st = sel_writer_status(s, st)) != 0) return st;
    for (size_t off = 0; off < scope_len;) {
        sel_decl d;
        memcpy(&d, s->scope.ptr + off, sizeof d);
        stax_str n = {s->scope.ptr + off + sizeof d, d.nlen}, v = {n.ptr + d.nlen, d.vlen};
        off += sizeof d + d.nlen + d.vlen;
        int shadowed = 0;
        for (size_t later = off; later < scope_len && !shadowed;) {
            sel_decl e;
            memcpy(&e, s->scope.ptr + later, sizeof e);
            stax_str m = {s->scope.ptr + later + sizeof e, e.nlen};
            shadowed = sel_str_eq(m, n);
            later += sizeof e + e.nlen + e.vlen;
        }
        if (!shadowed && (st = sel_writer_status(s, stax_writer_attr(x->w, n, v))) != 0) return st;
    }
    return 0;
}

/* An event inside an open element capture, written to its writer. */
static int sel_xml_event(stax_select *s, sel_wctx *x, const stax_batch *b, size_t i) {
    const stax_event *e = &b->events[i];
    int st = STAX_OK;
    switch (e->type) {
    case STAX_EV_START:
        st = stax_writer_start(x->w, e->name);
        for (size_t k = 0; st == STAX_OK && k < e->attr_count; k++)
            st = stax_writer_attr(x->w, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k));
        break;
    case STAX_EV_END: st = stax_writer_end(x->w); break;
    case STAX_EV_TEXT: st = stax_writer_text(x->w, e->text); break;
    case STAX_EV_CDATA: st = stax_writer_cdata(x->w, e->text); break;
    case STAX_EV_COMMENT: st = stax_writer_comment(x->w, e->text); break;
    case STAX_EV_PI: st = stax_writer_pi(x->w, e->name, e->text); break;
    case STAX_EV_ENTITY_REF: {
        static const char amp[] = "&", semi[] = ";";
        stax_str a = {amp, 1}, c = {semi, 1};
        st = stax_writer_raw(x->w, a);
        if (!st) st = stax_writer_raw(x->w, e->name);
        if (!st) st = stax_writer_raw(x->w, c);
        break;
    }
    default: break;
    }
    return sel_writer_status(s, st);
}

/* ================================================================ captures */

/* Where START and END events stop needing the captures: nowhere with XML
 * values (their writers take every event) or while a text value is open
 * (text captures are on top, and a tag ends them); else below the top
 * capture, which its END ends (a record's, or an element value's, which only
 * takes text). */
static void sel_cap_floor(stax_select *s) {
    if (s->xml) {
        s->cap_floor = UINT32_MAX;
    } else if (!s->caps.len) {
        s->cap_floor = 1;
    } else {
        const sel_cap *c = &SEL_AT(s->caps, sel_cap, SEL_N(s->caps, sel_cap) - 1);
        s->cap_floor = c->kind == SEL_CAP_TEXT || c->depth >= UINT32_MAX - 1 ? UINT32_MAX : c->depth + 1;
    }
}

static int sel_cap_push(stax_select *s, uint64_t match, uint32_t column, int kind, sel_wctx *x) {
    sel_cap c;
    memset(&c, 0, sizeof c);
    c.match = match;
    c.column = column;
    c.depth = s->depth;
    c.kind = kind;
    c.x = x;
    if (sel_state_reserve(s, &s->caps, sizeof c) || sel_append(s, &s->caps, &c, sizeof c)) return s->err.code;
    s->caps_taking += kind != SEL_CAP_RECORD;
    sel_cap_floor(s);
    return 0;
}

/* STAX_SELECT_ALL_MATCHES: a column's match ended. A nested one (a tag) is
 * held until the open one ends; that one is followed by them. */
static SEL_COLD int sel_column_end_all(stax_select *s, uint64_t record, uint32_t column) {
    if (column >= s->n_cols) return 0;
    if (sel_pend_flush(s, record, column)) return s->err.code;
    return sel_colst_set(s, record, column, SEL_COL_SEEN);
}

/* The capture on top is complete: its target is too. */
static int sel_cap_pop(stax_select *s) {
    s->caps.len -= sizeof(sel_cap);
    sel_cap c = SEL_AT(s->caps, sel_cap, SEL_N(s->caps, sel_cap));
    s->caps_taking -= c.kind != SEL_CAP_RECORD;
    sel_cap_floor(s);
    if (c.x && sel_xml_close(s, c.x, c.kind == SEL_CAP_TEXT)) return s->err.code;
    if (c.column == SEL_NONE) return sel_close_match(s, c.match);
    if (s->all) return sel_column_end_all(s, c.match, c.column);
    return sel_colst_set(s, c.match, c.column, SEL_COL_DONE);
}

/* A value begins: for an element at START (b, i) or a text node. */
static int sel_capture(stax_select *s, uint64_t match, uint32_t column, int kind, const stax_batch *b, size_t i,
                       size_t scope_len) {
    sel_wctx *x = NULL;
    if (s->xml && kind != SEL_CAP_RECORD) {
        if (sel_xml_open(s, match, column, &x)) return s->err.code;
        int st;
        if (kind == SEL_CAP_ELEM) {
            st = sel_xml_root(s, x, b, i, scope_len);
        } else {
            static const char dummy[] = "x";
            stax_str d = {dummy, 1};
            x->skip = SEL_WRAP_SKIP;
            st = sel_writer_status(s, stax_writer_start(x->w, d));
        }
        if (st) {
            sel_xml_close(s, x, 1);
            return s->err.code;
        }
    }
    if (sel_cap_push(s, match, column, kind, x)) {
        if (x) sel_xml_drop(s, x); /* no capture holds it: give it back */
        return s->err.code;
    }
    return 0;
}

/* STAX_SELECT_ALL_MATCHES: where a match of a column that begins now goes:
 * the column itself (after the separator when it had one), or with one of
 * its matches open, a new tag (*to). 1 when the column takes no more. */
static int sel_column_next(stax_select *s, uint64_t record, uint32_t column, uint32_t *to) {
    int st = sel_colst(s, record, column);
    *to = column;
    if (st == SEL_COL_OPEN) {
        if (s->next_tag >= SEL_MOVED) return sel_held_over(s);
        sel_pend pd;
        memset(&pd, 0, sizeof pd);
        pd.record = record;
        pd.column = column;
        pd.tag = *to = s->next_tag++;
        if (sel_held_reserve(s, &s->pend, sizeof pd)) return s->err.code;
        return sel_append(s, &s->pend, &pd, sizeof pd);
    }
    if (st == SEL_COL_SEEN && sel_put(s, record, column, s->opt.join.ptr, s->opt.join.len)) return s->err.code;
    return 0;
}

/* The column a capture fills: column, or the column of the tag it is. */
static uint32_t sel_tag_column(const stax_select *s, uint32_t column) {
    for (size_t k = 0; column >= s->n_cols && k < SEL_N(s->pend, sel_pend); k++)
        if (SEL_AT(s->pend, sel_pend, k).tag == column) return SEL_AT(s->pend, sel_pend, k).column;
    return column;
}

/* Whether the node that begins now (an element, kind SEL_CAP_ELEM, or a
 * text node) is already a match of the column (two of the paths of its
 * union select it): a capture of that kind at this depth is of this node
 * (one of an earlier sibling ended at its END or at the boundary), and the
 * captures are in the order of their depth. */
static int sel_column_began(const stax_select *s, uint64_t record, uint32_t column, int kind) {
    for (size_t c = SEL_N(s->caps, sel_cap); c-- > 0;) {
        const sel_cap *cp = &SEL_AT(s->caps, sel_cap, c);
        if (cp->depth < s->depth) return 0;
        if (cp->depth == s->depth && cp->kind == kind && cp->match == record && cp->column != SEL_NONE &&
            sel_tag_column(s, cp->column) == column)
            return 1;
    }
    return 0;
}

/* The held bytes of a match under tag from, put again under column to;
 * their first copy is tagged SEL_MOVED, so that the tag may be used again. */
static int sel_move_segs(stax_select *s, uint64_t match, uint32_t from, uint32_t to) {
    for (size_t at = sel_match_at(s, match)->seg_first; at;) {
        sel_seg g = sel_seg_get(s, at - 1);
        if (g.column == from) {
            g.column = SEL_MOVED;
            if (sel_seg_set(s, at - 1, &g)) return s->err.code;
            /* (room first: the bytes are read from the buffer that sel_put may extend) */
            if (g.len && (sel_held_reserve(s, &s->held, sizeof g + g.len) ||
                          sel_put(s, match, to, s->held.ptr + at - 1 + sizeof g, g.len)))
                return s->err.code;
        }
        at = g.next;
    }
    return 0;
}

/* A column's open match ended: the matches that began inside it follow, in
 * document order (the order they began), each after the separator. */
static SEL_COLD int sel_pend_flush(stax_select *s, uint64_t record, uint32_t column) {
    size_t n = SEL_N(s->pend, sel_pend), w = 0;
    for (size_t k = 0; k < n; k++) {
        sel_pend pd = SEL_AT(s->pend, sel_pend, k);
        if (pd.record != record || pd.column != column) {
            if (SEL_PUT(s, s->pend, sel_pend, w++, &pd)) return s->err.code;
            continue;
        }
        if (sel_put(s, record, column, s->opt.join.ptr, s->opt.join.len) || sel_move_segs(s, record, pd.tag, column))
            return s->err.code;
    }
    s->pend.len = w * sizeof(sel_pend);
    if (!w) s->next_tag = s->n_cols; /* no tag is in use */
    return 0;
}

/* A column of a record takes its first match only (with
 * STAX_SELECT_ALL_MATCHES, every one): if it has none yet, its value begins
 * here. */
static SEL_COLD int sel_column_begin_all(stax_select *s, uint64_t record, uint32_t column, int kind,
                                         const stax_batch *b, size_t i, size_t scope_len) {
    uint32_t to = column;
    if (sel_column_began(s, record, column, kind) || sel_column_next(s, record, column, &to)) return s->err.code;
    if (to == column && sel_colst_set(s, record, column, SEL_COL_OPEN)) return s->err.code;
    return sel_capture(s, record, to, kind, b, i, scope_len);
}
static int sel_column_begin(stax_select *s, uint64_t record, uint32_t column, int kind, const stax_batch *b, size_t i,
                            size_t scope_len) {
    if (s->all) return sel_column_begin_all(s, record, column, kind, b, i, scope_len);
    if (sel_colst(s, record, column) != SEL_COL_NONE) return 0;
    if (sel_colst_set(s, record, column, SEL_COL_OPEN)) return s->err.code;
    return sel_capture(s, record, column, kind, b, i, scope_len);
}

/* An attribute that a column matches (the first, or with
 * STAX_SELECT_ALL_MATCHES the next), complete at once. */
static int sel_column_attr(stax_select *s, uint64_t record, uint32_t column, stax_str name, stax_str value) {
    uint32_t to = column;
    if (s->all && sel_column_next(s, record, column, &to)) return s->err.code;
    /* the value before the state, which may let the next column stream */
    if (sel_attr_value(s, record, to, name, value)) return s->err.code;
    return to == column ? sel_colst_set(s, record, column, s->all ? SEL_COL_SEEN : SEL_COL_DONE) : 0;
}

/* A path of the union matched: count it; *first is the first such path. */
static int sel_count(stax_select *s, const sel_query *q, uint32_t *first) {
    uint64_t n;
    memcpy(&n, s->counts.ptr + (size_t)q->index * sizeof n, sizeof n);
    n++;
    if (q->index < *first) *first = q->index;
    return SEL_PUT(s, s->counts, uint64_t, q->index, &n);
}

/* An attribute's value, complete at once. */
static int sel_attr_value(stax_select *s, uint64_t match, uint32_t column, stax_str name, stax_str value) {
    if (!s->xml) return sel_put(s, match, column, value.ptr, value.len);
    sel_wctx *x;
    if (sel_xml_open(s, match, column, &x)) return s->err.code;
    static const char dummy[] = "x";
    stax_str d = {dummy, 1};
    x->skip = SEL_WRAP_SKIP;
    int st = sel_writer_status(s, stax_writer_start(x->w, d));
    if (!st) st = sel_writer_status(s, stax_writer_attr(x->w, name, value));
    int cst = sel_xml_close(s, x, 1);
    return st ? st : cst;
}

/* A comment, PI, start or end tag ends the text node being read (callers
 * test s->in_text first). */
static int pv_text_boundary(stax_select *s);
static int sel_text_boundary(stax_select *s) {
    s->in_text = 0;
    while (s->caps.len && SEL_AT(s->caps, sel_cap, SEL_N(s->caps, sel_cap) - 1).kind == SEL_CAP_TEXT)
        if (sel_cap_pop(s)) return s->err.code;
    return s->pcaps.len ? pv_text_boundary(s) : 0;
}

/* ================================================================ matching */

static int sel_name_ok(const stax_select *s, const sel_name *t, stax_str name, const stax_qname *q) {
    if (t->any) return 1;
    if (s->ns) return sel_str_eq(t->name, q->local) && sel_str_eq(t->uri, q->uri);
    return sel_str_eq(t->name, name);
}

/* An attribute that is a namespace declaration, which @* does not see. */
static int sel_attr_is_decl(const stax_select *s, stax_str name, const stax_qname *q) {
    static const char xmlns_ns[] = STAX__XMLNS_NS;
    stax_str u = {xmlns_ns, sizeof xmlns_ns - 1};
    return s->ns ? sel_str_eq(q->uri, u) : sel_is_decl(name);
}

static int sel_attr_ok_qname(const stax_select *s, const sel_name *t, const stax_batch *b, size_t i, size_t k) {
    stax_str name = stax_ev_attr_name(b, i, k);
    stax_qname q = s->ns ? stax_ev_attr_qname(b, i, k) : stax__plain_qname(name);
    if (t->any) return !sel_attr_is_decl(s, name, &q);
    return sel_name_ok(s, t, name, &q);
}

static inline int sel_attr_ok(const stax_select *s, const sel_name *t, const stax_batch *b, size_t i, size_t k) {
    if (!s->ns && !t->any) return sel_str_eq(t->name, stax_ev_attr_name(b, i, k));
    return sel_attr_ok_qname(s, t, b, i, k);
}

/* The first of the n attributes of the START (b, i) that t matches, or n. */
static inline size_t sel_attr_first(const stax_select *s, const sel_name *t, const stax_batch *b, size_t i, size_t n) {
    size_t k = 0;
    while (k < n && !sel_attr_ok(s, t, b, i, k)) k++;
    return k;
}

/* A column that is a union takes the first attribute in the order of the
 * tag that any of its steps among the candidates after j (in the same
 * record) matches: k if none comes before it. */
static size_t sel_attr_first_of_column(const stax_select *s, const sel_frame *f, size_t j, uint64_t ctx, uint32_t column,
                                       const stax_batch *b, size_t i, size_t k) {
    for (size_t o = j + 1; k > 0 && o < f->cand_n; o++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + o);
        const sel_step *st = &SEL_STEP(s, c.step);
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        if (st->type == SEL_ATTR && q->column && q->index == column && c.ctx == ctx) k = sel_attr_first(s, &st->name, b, i, k);
    }
    return k;
}

/* Whether one of the attribute steps of column (in record ctx) among the
 * candidates from j on matches attribute k. */
static int sel_column_attr_ok(const stax_select *s, const sel_frame *f, size_t j, uint64_t ctx, uint32_t column,
                              const stax_batch *b, size_t i, size_t k) {
    for (size_t o = j; o < f->cand_n; o++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + o);
        const sel_step *st = &SEL_STEP(s, c.step);
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        if (st->type == SEL_ATTR && q->column && q->index == column && c.ctx == ctx && sel_attr_ok(s, &st->name, b, i, k))
            return 1;
    }
    return 0;
}

/* STAX_SELECT_ALL_MATCHES: the attributes of the START (b, i) that the
 * column of candidate j matches, in the order of the tag (once per column:
 * its first candidate here takes them all). */
static int sel_attrs_all(stax_select *s, const stax_batch *b, size_t i, const sel_frame *f, size_t j) {
    sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + j);
    uint32_t column = SEL_AT(s->queries, sel_query, SEL_STEP(s, c.step).query).index;
    for (size_t o = 0; o < j; o++) {
        sel_cand e = SEL_AT(s->cands, sel_cand, f->cand_off + o);
        const sel_step *st = &SEL_STEP(s, e.step);
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        if (st->type == SEL_ATTR && q->column && q->index == column && e.ctx == c.ctx) return 0;
    }
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
        if (sel_column_attr_ok(s, f, j, c.ctx, column, b, i, k) &&
            sel_column_attr(s, c.ctx - 1, column, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)))
            return s->err.code;
    return 0;
}

/* [@a], [@a='v'], [@a!='v']: some attribute a exists (with that value, with
 * another value: XPath's comparisons are about existence). */
static int sel_test_ok(const stax_select *s, const sel_test *t, const stax_batch *b, size_t i) {
    for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
        if (!sel_attr_ok(s, &t->name, b, i, k)) continue;
        if (t->op == SEL_EXISTS) return 1;
        if (sel_str_eq(stax_ev_attr_value(b, i, k), t->value) == (t->op == SEL_EQ)) return 1;
    }
    return 0;
}

/* ================================================================ predicates on content
 *
 * A candidate whose step has expression predicates gets a sel_pev at its
 * START: the predicates are evaluated in order as far as what is known
 * allows (attributes, the position). One that reads content leaves the pev
 * open: its relative paths are followed in the element's subtree (sel_pact:
 * per open element, the steps of the paths that apply to its children), the
 * nodes they select counted, their values read (sel_pcap, from the text log
 * ptext) and tested against constants (sel_pev.hits) or kept (sel_prec). The
 * pev is decided as soon as the values read decide it, at the latest at the
 * element's END; one that reads last() at its parent's END. Meanwhile the
 * candidate's matches and the steps after it depend on it (cond): the
 * matches wait in the queue (held output), and are dropped if it fails. */

enum { PEV_OPEN, PEV_LAST, PEV_TRUE, PEV_FALSE, PEV_UNKNOWN }; /* (PEV_TRUE and PEV_FALSE are SEL_PEV_TRUE and _FALSE) */
enum { PEV_STEP, PEV_OR };

typedef struct sel_pev {
    uint32_t parent;   /* the candidate's cond (pev index + 1), 0: none */
    uint32_t step;     /* PEV_STEP: the element step; PEV_OR: the first operand */
    uint32_t other;    /* PEV_OR: the second operand */
    uint32_t pred;     /* the next predicate to evaluate (from 0) */
    uint32_t depth;    /* the element's depth */
    uint32_t pos;      /* its position at pos_pred */
    uint32_t pos_pred; /* the predicate the position was taken for, + 1 */
    unsigned char state, kind, ended;
    uint64_t hits;     /* the comparisons with a constant that some node passed */
    size_t cnt;        /* its counts (uint32_t per path) in pcnt: the offset */
    size_t rec;        /* its first record in precs */
    size_t pattr0;     /* pattr's length at its START */
} sel_pev;

typedef struct sel_pact {
    uint32_t pev, depth;
    uint64_t mask;          /* the steps (of the pev's step's paths) that apply to this element's children */
    uint32_t cnt[PS_SLOTS]; /* [n] steps: the children their name test matched so far */
} sel_pact;

typedef struct sel_pcap {
    uint32_t pev, pp, depth;
    unsigned char text;
    size_t off;   /* where its value starts in ptext */
    size_t rec;   /* its record (index in precs), or SIZE_MAX */
} sel_pcap;

typedef struct sel_prec {
    uint32_t pev, pp;
    unsigned char attr, done; /* value in pattr (else ptext); complete */
    size_t off, len;
    size_t noff;              /* the name, then the URI, in pattr */
    uint32_t nlen, ulen;
} sel_prec;

#define SEL_PEV(s, id) SEL_AT((s)->pevs, sel_pev, (id) - 1)

static SEL_COLD int pv_held(stax_select *s, stax__buf *b, size_t n) { return sel_held_reserve(s, b, n); }

/* What cond says now: PEV_TRUE, PEV_FALSE or PEV_UNKNOWN. */
static int pv_eff(const stax_select *s, uint32_t cond) {
    if (!cond) return PEV_TRUE;
    const sel_pev *p = &SEL_PEV(s, cond);
    if (p->kind == PEV_OR) {
        int a = pv_eff(s, p->step), b = pv_eff(s, p->other);
        if (a == PEV_TRUE || b == PEV_TRUE) return PEV_TRUE;
        return a == PEV_FALSE && b == PEV_FALSE ? PEV_FALSE : PEV_UNKNOWN;
    }
    if (p->state == PEV_FALSE) return PEV_FALSE;
    int up = pv_eff(s, p->parent);
    if (up == PEV_FALSE) return PEV_FALSE;
    return p->state == PEV_TRUE && up == PEV_TRUE ? PEV_TRUE : PEV_UNKNOWN;
}

/* A cond, simplified: 0 when it holds, SEL_NONE when it fails. */
static uint32_t pv_simplify(const stax_select *s, uint32_t cond) {
    int e = pv_eff(s, cond);
    return e == PEV_TRUE ? 0 : e == PEV_FALSE ? SEL_NONE : cond;
}

static int pv_push(stax_select *s, const sel_pev *p, uint32_t *id) {
    if (pv_held(s, &s->pevs, sizeof *p) || sel_append(s, &s->pevs, p, sizeof *p)) return s->err.code;
    *id = (uint32_t)SEL_N(s->pevs, sel_pev);
    return 0;
}

/* a or b (both simplified, neither 0 nor SEL_NONE). */
static uint32_t pv_or(stax_select *s, uint32_t a, uint32_t b) {
    if (a == b) return a;
    sel_pev p;
    memset(&p, 0, sizeof p);
    p.kind = PEV_OR;
    p.step = a;
    p.other = b;
    p.depth = s->depth + 1;
    p.state = PEV_OPEN;
    uint32_t id = 0;
    return pv_push(s, &p, &id) ? a : id;
}

/* ---------------------------------------------------------------- values */

typedef struct sel_v {
    unsigned char t, k; /* type (T_*), known */
    int b;
    double n;
    const char *p;
    size_t len;
    uint32_t pp; /* XT_SET: the path */
} sel_v;

typedef struct sel_ectx {
    stax_select *s;
    uint32_t id;
    const sel_pev *pv;
    const sel_step *st;
    double last; /* < 0: not known */
} sel_ectx;

static int px_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* XPath's number(): a decimal with optional minus and whitespace, else NaN. */
static double px_number(const char *p, size_t n) {
    size_t i = 0;
    while (i < n && px_space(p[i])) i++;
    int neg = 0;
    if (i < n && p[i] == '-') neg = 1, i++;
    uint64_t m = 0;
    int digits = 0, frac = 0, dot = 0, sig = 0, dropped = 0;
    for (; i < n; i++) {
        char c = p[i];
        if (c == '.' && !dot) {
            dot = 1;
            continue;
        }
        if (c < '0' || c > '9') break;
        digits++;
        if (sig < 19) {
            m = m * 10 + (uint64_t)(c - '0');
            if (m) sig++;
            if (dot) frac++;
        } else if (!dot) {
            dropped++;
        }
    }
    while (i < n && px_space(p[i])) i++;
    if (!digits || i != n) return 0.0 / 0.0;
    double v = (double)m;
    static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    while (dropped > 0) {
        int k = dropped > 22 ? 22 : dropped;
        v *= p10[k];
        dropped -= k;
    }
    while (frac > 0) {
        int k = frac > 22 ? 22 : frac;
        v /= p10[k];
        frac -= k;
    }
    return neg ? -v : v;
}

static int px_isnan(double v) { return v != v; }

/* XPath's string() of a number, into buf (64 bytes): the length. */
static size_t px_numstr(double v, char *buf) {
    size_t n = 0;
    if (px_isnan(v)) return memcpy(buf, "NaN", 3), 3;
    if (v == 0) return buf[0] = '0', 1;
    if (v < 0) buf[n++] = '-', v = -v;
    if (v > 1.7976931348623157e308) return memcpy(buf + n, "Infinity", 8), n + 8;
    /* 15 significant digits, no exponent, trailing zeros dropped */
    int e = 0;
    double m = v;
    while (m >= 10) m /= 10, e++;
    while (m < 1) m *= 10, e--;
    uint64_t d = (uint64_t)(m * 1e14 + 0.5);
    if (d >= 1000000000000000ull) d /= 10, e++;
    char dig[16];
    for (int k = 14; k >= 0; k--) dig[k] = (char)('0' + d % 10), d /= 10;
    int nd = 15;
    while (nd > 1 && dig[nd - 1] == '0') nd--;
    if (e > 40 || e < -40) { /* very large or small: digits and an exponent-free form would be long; keep it short */
        for (int k = 0; k < nd && n < 60; k++) buf[n++] = dig[k];
        return n;
    }
    if (e < 0) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (int k = -1; k > e && n < 60; k--) buf[n++] = '0';
        for (int k = 0; k < nd && n < 62; k++) buf[n++] = dig[k];
        return n;
    }
    for (int k = 0; k <= e && n < 62; k++) buf[n++] = k < nd ? dig[k] : '0';
    if (nd > e + 1) {
        buf[n++] = '.';
        for (int k = e + 1; k < nd && n < 63; k++) buf[n++] = dig[k];
    }
    return n;
}

static sel_v xv_make(int t, int known, int b, double n, const char *p, size_t len) {
    sel_v v;
    memset(&v, 0, sizeof v);
    v.t = (unsigned char)t;
    v.k = (unsigned char)known;
    v.b = b;
    v.n = n;
    v.p = p;
    v.len = len;
    return v;
}
static sel_v xv_bool(int b) { return xv_make(XT_BOOL, 1, b, 0, NULL, 0); }
static sel_v xv_num(double n) { return xv_make(XT_NUM, 1, 0, n, NULL, 0); }
static sel_v xv_str(const char *p, size_t len) { return xv_make(XT_STR, 1, 0, 0, p, len); }
static sel_v xv_unknown(int t) { return xv_make(t, 0, 0, 0, NULL, 0); }

static uint32_t pv_count(const stax_select *s, const sel_pev *pv, const sel_pp *pp) {
    uint32_t n;
    memcpy(&n, s->pcnt.ptr + pv->cnt + pp->local * sizeof n, sizeof n);
    return n;
}

/* Whether the node-set of path pp is complete for the pev. */
static int pv_complete(const sel_pev *pv, const sel_pp *pp) { return pv->ended || pp->attr_only; }

/* The value of a record. */
static stax_str pv_rec_value(const stax_select *s, const sel_prec *r) {
    stax_str v = {"", 0}; /* (an empty value may have no buffer: no offset from NULL) */
    if (r->len) v.ptr = (r->attr ? s->pattr.ptr : s->ptext.ptr) + r->off, v.len = r->len;
    return v;
}

/* The first record of path pp for the pev id (from rec on), or NULL. */
static const sel_prec *pv_first(const stax_select *s, uint32_t id, const sel_pev *pv, uint32_t pp) {
    for (size_t k = pv->rec; k < SEL_N(s->precs, sel_prec); k++) {
        const sel_prec *r = &SEL_AT(s->precs, sel_prec, k);
        if (r->pev == id && r->pp == pp) return r;
    }
    return NULL;
}

static sel_v xe(sel_ectx *c, uint32_t x);

/* A value as a string (scratch has room for a number). */
static sel_v xv_to_str(sel_ectx *c, sel_v v) {
    stax_select *s = c->s;
    if (!v.k) return xv_unknown(XT_STR);
    switch (v.t) {
    case XT_STR: return v;
    case XT_BOOL: return v.b ? xv_str("true", 4) : xv_str("false", 5);
    case XT_NUM: {
        char *out = s->xscratch.ptr + s->xscratch.len;
        if (s->xscratch.cap - s->xscratch.len < 64) return xv_unknown(XT_STR); /* (reserved: not reached) */
        size_t n = px_numstr(v.n, out);
        s->xscratch.len += n;
        return xv_str(out, n);
    }
    default: {
        const sel_pp *pp = &SEL_PP(s, v.pp);
        if (pv_count(s, c->pv, pp) == 0) return pv_complete(c->pv, pp) ? xv_str("", 0) : xv_unknown(XT_STR);
        const sel_prec *r = pv_first(s, c->id, c->pv, v.pp);
        if (!r || !r->done) return xv_unknown(XT_STR);
        stax_str t = pv_rec_value(s, r);
        return xv_str(t.ptr, t.len);
    }
    }
}

static sel_v xv_to_num(sel_ectx *c, sel_v v) {
    if (!v.k) return xv_unknown(XT_NUM);
    if (v.t == XT_NUM) return v;
    if (v.t == XT_BOOL) return xv_num(v.b ? 1 : 0);
    v = xv_to_str(c, v);
    if (!v.k) return xv_unknown(XT_NUM);
    return xv_num(px_number(v.p, v.len));
}

static sel_v xv_to_bool(sel_ectx *c, sel_v v) {
    if (!v.k) return xv_unknown(XT_BOOL);
    switch (v.t) {
    case XT_BOOL: return v;
    case XT_NUM: return xv_bool(v.n != 0 && !px_isnan(v.n));
    case XT_STR: return xv_bool(v.len != 0);
    default: {
        const sel_pp *pp = &SEL_PP(c->s, v.pp);
        if (pv_count(c->s, c->pv, pp)) return xv_bool(1);
        return pv_complete(c->pv, pp) ? xv_bool(0) : xv_unknown(XT_BOOL);
    }
    }
}

static int xv_numcmp(int op, double a, double b) {
    switch (op) {
    case X_EQ: return a == b;
    case X_NE: return a != b;
    case X_LT: return a < b;
    case X_LE: return a <= b;
    case X_GT: return a > b;
    default: return a >= b;
    }
}

static int xv_streq(stax_str a, const char *p, size_t n) { return a.len == n && (n == 0 || memcmp(a.ptr, p, n) == 0); }

/* A node's string value against a value that is not a node-set (op with the node on the left). */
static int xv_node_cmp(sel_ectx *c, int op, stax_str node, sel_v o) {
    if (o.t == XT_NUM) return xv_numcmp(op, px_number(node.ptr, node.len), o.n);
    if (op == X_EQ || op == X_NE) {
        o = xv_to_str(c, o);
        return xv_streq(node, o.p, o.len) == (op == X_EQ);
    }
    sel_v on = xv_to_num(c, o);
    return xv_numcmp(op, px_number(node.ptr, node.len), on.n);
}

static int xv_swap(int op) { return op == X_LT ? X_GT : op == X_GT ? X_LT : op == X_LE ? X_GE : op == X_GE ? X_LE : op; }

/* A comparison (x: the node; a, b its operands' values). */
static sel_v xv_cmp(sel_ectx *c, const sel_x *x, sel_v a, sel_v b) {
    stax_select *s = c->s;
    int op = x->op;
    if (a.t != XT_SET && b.t == XT_SET) {
        sel_v t = a;
        a = b;
        b = t;
        op = xv_swap(op);
    }
    if (a.t == XT_SET) {
        const sel_pp *pa = &SEL_PP(s, a.pp);
        if (b.t == XT_BOOL) {
            sel_v ab = xv_to_bool(c, a);
            if (!ab.k || !b.k) return xv_unknown(XT_BOOL);
            return xv_bool(xv_numcmp(op, ab.b, b.b));
        }
        if (x->cbit) {
            if (c->pv->hits >> (x->cbit - 1) & 1) return xv_bool(1);
            return pv_complete(c->pv, pa) ? xv_bool(0) : xv_unknown(XT_BOOL);
        }
        int done = pv_complete(c->pv, pa) && (b.t != XT_SET || pv_complete(c->pv, &SEL_PP(s, b.pp)));
        if (b.t != XT_SET && !b.k) return xv_unknown(XT_BOOL);
        for (size_t k = c->pv->rec; k < SEL_N(s->precs, sel_prec); k++) {
            const sel_prec *r = &SEL_AT(s->precs, sel_prec, k);
            if (r->pev != c->id || r->pp != a.pp || !r->done) continue;
            stax_str va = pv_rec_value(s, r);
            if (b.t != XT_SET) {
                if (xv_node_cmp(c, op, va, b)) return xv_bool(1);
                continue;
            }
            for (size_t j = c->pv->rec; j < SEL_N(s->precs, sel_prec); j++) {
                const sel_prec *q = &SEL_AT(s->precs, sel_prec, j);
                if (q->pev != c->id || q->pp != b.pp || !q->done) continue;
                stax_str vb = pv_rec_value(s, q);
                int ok = op == X_EQ || op == X_NE ? xv_streq(va, vb.ptr, vb.len) == (op == X_EQ)
                                                 : xv_numcmp(op, px_number(va.ptr, va.len), px_number(vb.ptr, vb.len));
                if (ok) return xv_bool(1);
            }
        }
        return done ? xv_bool(0) : xv_unknown(XT_BOOL);
    }
    if (!a.k || !b.k) return xv_unknown(XT_BOOL);
    if (op == X_EQ || op == X_NE) {
        if (a.t == XT_BOOL || b.t == XT_BOOL) {
            sel_v ab = xv_to_bool(c, a), bb = xv_to_bool(c, b);
            return xv_bool((ab.b == bb.b) == (op == X_EQ));
        }
        if (a.t == XT_NUM || b.t == XT_NUM) return xv_bool(xv_numcmp(op, xv_to_num(c, a).n, xv_to_num(c, b).n));
        sel_v as = xv_to_str(c, a), bs = xv_to_str(c, b);
        stax_str t = {as.p, as.len};
        return xv_bool(xv_streq(t, bs.p, bs.len) == (op == X_EQ));
    }
    return xv_bool(xv_numcmp(op, xv_to_num(c, a).n, xv_to_num(c, b).n));
}

static double xv_trunc(double v) {
    if (v != v || v >= 4503599627370496.0 || v <= -4503599627370496.0) return v; /* (2^52: a whole number already) */
    return v < 0 ? -(double)(int64_t)(-v) : (double)(int64_t)v;
}

/* The name of the first node of a path: what (0 name, 1 local name, 2 URI). */
static sel_v xv_name(sel_ectx *c, sel_v v, int what) {
    stax_select *s = c->s;
    const sel_pp *pp = &SEL_PP(s, v.pp);
    if (pv_count(s, c->pv, pp) == 0) return pv_complete(c->pv, pp) ? xv_str("", 0) : xv_unknown(XT_STR);
    const sel_prec *r = pv_first(s, c->id, c->pv, v.pp);
    if (!r) return xv_unknown(XT_STR);
    const char *n = s->pattr.ptr + r->noff;
    if (what == 2) return xv_str(r->ulen ? n + r->nlen : "", r->ulen);
    if (what == 1) {
        size_t k = r->nlen;
        while (k > 0 && n[k - 1] != ':') k--;
        return xv_str(n + k, r->nlen - k);
    }
    return xv_str(r->nlen ? n : "", r->nlen);
}

static sel_v xe(sel_ectx *c, uint32_t xi) {
    stax_select *s = c->s;
    const sel_x x = SEL_X(s, xi);
    switch (x.op) {
    case X_NUM: return xv_num(x.num);
    case X_STR: return xv_str(x.str.len ? x.str.ptr : "", x.str.len);
    case X_TRUE: return xv_bool(1);
    case X_FALSE: return xv_bool(0);
    case X_PATH: {
        sel_v v;
        memset(&v, 0, sizeof v);
        v.t = XT_SET;
        v.k = 1;
        v.pp = x.a;
        return v;
    }
    case X_POS: return xv_num(c->pv ? (double)c->pv->pos : 1);
    case X_LAST: return c->last < 0 ? xv_unknown(XT_NUM) : xv_num(c->last);
    case X_OR:
    case X_AND: {
        int want = x.op == X_OR; /* the value that decides */
        sel_v a = xv_to_bool(c, xe(c, x.a));
        if (a.k && a.b == want) return a;
        sel_v b = xv_to_bool(c, xe(c, x.b));
        if (b.k && b.b == want) return b;
        return a.k && b.k ? xv_bool(!want) : xv_unknown(XT_BOOL);
    }
    case X_NOT: {
        sel_v a = xv_to_bool(c, xe(c, x.a));
        return a.k ? xv_bool(!a.b) : a;
    }
    case X_BOOLEAN: return xv_to_bool(c, xe(c, x.a));
    case X_EQ:
    case X_NE:
    case X_LT:
    case X_LE:
    case X_GT:
    case X_GE: return xv_cmp(c, &x, xe(c, x.a), xe(c, x.b));
    case X_NEG: {
        sel_v a = xv_to_num(c, xe(c, x.a));
        return a.k ? xv_num(-a.n) : a;
    }
    case X_ADD:
    case X_SUB:
    case X_MUL:
    case X_DIV:
    case X_MOD: {
        sel_v a = xv_to_num(c, xe(c, x.a)), b = xv_to_num(c, xe(c, x.b));
        if (!a.k || !b.k) return xv_unknown(XT_NUM);
        switch (x.op) {
        case X_ADD: return xv_num(a.n + b.n);
        case X_SUB: return xv_num(a.n - b.n);
        case X_MUL: return xv_num(a.n * b.n);
        case X_DIV: return xv_num(a.n / b.n);
        default:
            if (b.n == 0 || px_isnan(a.n) || px_isnan(b.n) || a.n - a.n != 0) return xv_num(0.0 / 0.0);
            if (b.n - b.n != 0) return xv_num(a.n);
            return xv_num(a.n - xv_trunc(a.n / b.n) * b.n);
        }
    }
    case X_CONTAINS:
    case X_STARTS: {
        sel_v a = xv_to_str(c, xe(c, x.a)), b = xv_to_str(c, xe(c, x.b));
        if (!a.k || !b.k) return xv_unknown(XT_BOOL);
        if (b.len == 0) return xv_bool(1);
        if (b.len > a.len) return xv_bool(0);
        if (x.op == X_STARTS) return xv_bool(memcmp(a.p, b.p, b.len) == 0);
        for (size_t k = 0; k + b.len <= a.len; k++)
            if (a.p[k] == b.p[0] && memcmp(a.p + k, b.p, b.len) == 0) return xv_bool(1);
        return xv_bool(0);
    }
    case X_NORM: {
        sel_v a = xv_to_str(c, xe(c, x.a));
        if (!a.k) return a;
        if (s->xscratch.cap - s->xscratch.len < a.len) return xv_unknown(XT_STR); /* (reserved: not reached) */
        char *out = s->xscratch.ptr + s->xscratch.len;
        size_t n = 0;
        for (size_t k = 0; k < a.len; k++) {
            if (px_space(a.p[k])) {
                if (n && !px_space(out[n - 1])) out[n++] = ' ';
                continue;
            }
            out[n++] = a.p[k];
        }
        if (n && out[n - 1] == ' ') n--;
        s->xscratch.len += n;
        return xv_str(out, n);
    }
    case X_SLEN: {
        sel_v a = xv_to_str(c, xe(c, x.a));
        if (!a.k) return xv_unknown(XT_NUM);
        size_t n = 0;
        for (size_t k = 0; k < a.len; k++) n += ((unsigned char)a.p[k] & 0xC0) != 0x80;
        return xv_num((double)n);
    }
    case X_STRING: return xv_to_str(c, xe(c, x.a));
    case X_NUMBER: return xv_to_num(c, xe(c, x.a));
    case X_COUNT: {
        const sel_pp *pp = &SEL_PP(s, SEL_X(s, x.a).a);
        if (!pv_complete(c->pv, pp)) return xv_unknown(XT_NUM);
        return xv_num((double)pv_count(s, c->pv, pp));
    }
    case X_NAME:
    case X_LNAME:
    case X_NSURI: return xv_name(c, xe(c, x.a), x.op == X_NAME ? 0 : x.op == X_LNAME ? 1 : 2);
    default: return xv_unknown(XT_BOOL);
    }
}

/* ---------------------------------------------------------------- deciding */

/* Room in the scratch for an evaluation of the pev's step. */
static int pv_scratch(stax_select *s, const sel_step *st) {
    s->xscratch.len = 0;
    size_t in = s->ptext.len + s->pattr.len + s->text_cap + 64;
    size_t need = (size_t)(st->n_norm + 1) * in + 64 * (SEL_N(s->xs, sel_x) + 1);
    return sel_held_reserve(s, &s->xscratch, need);
}

/* Evaluate the predicates of pev id from its next one, as far as what is
 * known decides them. last_for: the predicate (+ 1) whose last() is last. */
static int pv_run(stax_select *s, uint32_t id, uint32_t last_for, double last) {
    sel_pev *pv = &SEL_PEV(s, id); /* (nothing below grows pevs) */
    int at_start = last_for == UINT32_MAX; /* pv_new: a late predicate waits */
    if (at_start) last_for = 0;
    const sel_step *st = &SEL_STEP(s, pv->step);
    if (pv->state != PEV_OPEN && !(pv->state == PEV_LAST && last_for == pv->pred + 1)) return 0;
    pv->state = PEV_OPEN;
    while (pv->pred < st->pred_count) {
        const sel_pred *pr = &SEL_AT(s->preds, sel_pred, st->pred_first + pv->pred);
        if (pr->pos && pv->pos_pred != pv->pred + 1) { /* reached: it counts */
            size_t at = ((size_t)(pv->depth - 1) * s->n_slots + pr->slot) * sizeof(uint32_t);
            uint32_t n;
            memcpy(&n, s->counters.ptr + at, sizeof n);
            if (n < UINT32_MAX) n++;
            if (sel_store(s, &s->counters, at, &n, sizeof n)) return s->err.code;
            pv->pos = n;
            pv->pos_pred = pv->pred + 1;
        }
        if (pr->last && last_for != pv->pred + 1) {
            pv->state = PEV_LAST;
            break;
        }
        if (at_start && pr->late) break;
        if (st->n_norm && pv_scratch(s, st)) return s->err.code;
        sel_ectx c = {s, id, pv, st, pr->last ? last : -1};
        sel_v v = xe(&c, pr->expr - 1);
        if (pr->num) {
            v = xv_to_num(&c, v);
            if (v.k) v = xv_bool(v.n == (double)pv->pos);
        } else {
            v = xv_to_bool(&c, v);
        }
        if (!v.k) break;
        if (!v.b) {
            pv->state = PEV_FALSE;
            break;
        }
        pv->pred++;
        last_for = 0;
    }
    if (pv->pred == st->pred_count) pv->state = PEV_TRUE;
    s->pv_decided |= pv->state == PEV_TRUE || pv->state == PEV_FALSE;
    return 0;
}

/* ---------------------------------------------------------------- reading the nodes of the paths */

static int pv_name_ok(const stax_select *s, const sel_ps *ps, stax_str name, const stax_qname *q) {
    return sel_name_ok(s, &ps->name, name, q);
}

/* The comparisons with a constant that the value of a node of pp passes. */
static int pv_hits(stax_select *s, uint32_t id, const sel_pp *pp, stax_str value) {
    if (!pp->cmps) return 0;
    sel_pev pv = SEL_PEV(s, id);
    const sel_step *st = &SEL_STEP(s, pv.step);
    if (st->n_norm && pv_scratch(s, st)) return s->err.code; /* (a number to a string: X_STRING, counted there) */
    uint64_t add = 0;
    for (uint32_t k = 0; k < st->cmp_count; k++) {
        if (!(pp->cmps >> k & 1) || (pv.hits >> k & 1)) continue;
        const sel_x *x = &SEL_X(s, SEL_AT(s->cmpx, uint32_t, st->cmp_first + k));
        int left = SEL_X(s, x->a).op == X_PATH;
        sel_ectx c = {s, id, &pv, st, -1};
        const sel_x *ox = &SEL_X(s, left ? x->b : x->a);
        sel_v o = ox->op == X_NUM ? xv_num(ox->num) : ox->op == X_STR ? xv_str(ox->str.len ? ox->str.ptr : "", ox->str.len)
                                                                      : xe(&c, left ? x->b : x->a);
        if (xv_node_cmp(&c, left ? x->op : xv_swap(x->op), value, o)) add |= (uint64_t)1 << k;
    }
    if (!add) return 0;
    pv.hits |= add;
    return SEL_PUT(s, s->pevs, sel_pev, id - 1, &pv);
}

/* Append to pattr; *off where. */
static int pv_attr_put(stax_select *s, stax_str v, size_t *off) {
    *off = s->pattr.len;
    if (!v.len) return 0;
    if (pv_held(s, &s->pattr, v.len)) return s->err.code;
    return sel_append(s, &s->pattr, v.ptr, v.len);
}

/* A node that path pp (its last step) of pev id selects: counted; its name
 * kept for the first; a complete value (attr: an attribute, comment or PI)
 * tested and kept, else (an element or text node) read until it ends. */
static int pv_node(stax_select *s, uint32_t id, uint32_t ppi, stax_str name, stax_str uri, int complete, stax_str value,
                   int text) {
    const sel_pp *pp = &SEL_PP(s, ppi);
    sel_pev pv = SEL_PEV(s, id);
    uint32_t n = pv_count(s, &pv, pp);
    n++;
    if (sel_store(s, &s->pcnt, pv.cnt + pp->local * sizeof n, &n, sizeof n)) return s->err.code;
    int keep = pp->need_all || ((pp->need_first || pp->need_name) && n == 1);
    size_t rec = SIZE_MAX;
    if (keep) {
        sel_prec r;
        memset(&r, 0, sizeof r);
        r.pev = id;
        r.pp = ppi;
        if (pv_attr_put(s, name, &r.noff) || pv_attr_put(s, uri, &r.off)) return s->err.code;
        r.nlen = (uint32_t)name.len;
        r.ulen = (uint32_t)uri.len;
        r.attr = (unsigned char)complete;
        if (complete) {
            if (pv_attr_put(s, value, &r.off)) return s->err.code;
            r.len = value.len;
            r.done = 1;
        }
        rec = SEL_N(s->precs, sel_prec);
        if (pv_held(s, &s->precs, sizeof r) || sel_append(s, &s->precs, &r, sizeof r)) return s->err.code;
    }
    if (complete) return pv_hits(s, id, pp, value);
    if (!keep && !pp->cmps) return 0;
    sel_pcap c;
    memset(&c, 0, sizeof c);
    c.pev = id;
    c.pp = ppi;
    c.depth = s->depth + (text ? 0 : 1);
    c.text = (unsigned char)text;
    c.off = s->ptext.len;
    c.rec = rec;
    if (pv_held(s, &s->pcaps, sizeof c)) return s->err.code;
    return sel_append(s, &s->pcaps, &c, sizeof c);
}

/* The capture on top ends: its value is complete. */
static int pv_cap_end(stax_select *s) {
    s->pcaps.len -= sizeof(sel_pcap);
    sel_pcap c = SEL_AT(s->pcaps, sel_pcap, SEL_N(s->pcaps, sel_pcap));
    stax_str v = {"", 0}; /* (ptext has no buffer before its first byte: no offset from NULL) */
    if (s->ptext.len > c.off) v.ptr = s->ptext.ptr + c.off, v.len = s->ptext.len - c.off;
    if (c.rec != SIZE_MAX) {
        sel_prec r = SEL_AT(s->precs, sel_prec, c.rec);
        r.off = c.off;
        r.len = v.len;
        r.done = 1;
        if (SEL_PUT(s, s->precs, sel_prec, c.rec, &r)) return s->err.code;
        if (s->ptext.len > s->ptext_keep) s->ptext_keep = s->ptext.len;
    }
    const sel_pev *pv = &SEL_PEV(s, c.pev);
    if (pv->state != PEV_OPEN && pv->state != PEV_LAST) return 0;
    if (pv_hits(s, c.pev, &SEL_PP(s, c.pp), v)) return s->err.code;
    if (!s->pcaps.len && s->ptext.len > s->ptext_keep) s->ptext.len = c.off > s->ptext_keep ? c.off : s->ptext_keep;
    return SEL_PEV(s, c.pev).state == PEV_OPEN ? pv_run(s, c.pev, 0, -1) : 0;
}

/* Step j (local to the pev's step) selected the element at START (b, i),
 * which is at depth s->depth + 1: the node of a path, or the steps after it
 * (*mask: the bits of its children's steps). */
static int pv_matched(stax_select *s, uint32_t id, const sel_step *st, uint32_t j, const stax_batch *b, size_t i,
                      uint64_t *mask) {
    const sel_ps *ps = &SEL_PS(s, st->ps_first + j);
    stax_qname q = s->ns ? stax_ev_qname(b, i) : stax__plain_qname(b->events[i].name);
    if (ps->final) {
        stax_str none = {"", 0};
        if (pv_node(s, id, ps->pp, b->events[i].name, q.uri, 0, none, 0)) return s->err.code;
        const sel_pp *pp = &SEL_PP(s, ps->pp);
        int may = pp->exists || pp->need_name; /* (a value, compared or kept, decides at its END) */
        return may && SEL_PEV(s, id).state == PEV_OPEN ? pv_run(s, id, 0, -1) : 0;
    }
    const sel_ps *nx = &SEL_PS(s, st->ps_first + j + 1);
    if (nx->axis == PS_SELF || nx->axis == PS_DSELF) {
        if (nx->axis == PS_DSELF) *mask |= (uint64_t)1 << (j + 1);
        if (nx->type == PS_NODE || (nx->type == SEL_ELEM && pv_name_ok(s, nx, b->events[i].name, &q)))
            return pv_matched(s, id, st, j + 1, b, i, mask);
        return 0;
    }
    if (nx->type == SEL_ATTR) {
        if (nx->axis == PS_DESC) *mask |= (uint64_t)1 << (j + 1); /* a//@x: those of the elements below too */
        for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
            if (!sel_attr_ok(s, &nx->name, b, i, k)) continue;
            stax_qname aq = s->ns ? stax_ev_attr_qname(b, i, k) : stax__plain_qname(stax_ev_attr_name(b, i, k));
            if (pv_node(s, id, nx->pp, stax_ev_attr_name(b, i, k), aq.uri, 1, stax_ev_attr_value(b, i, k), 0)) return s->err.code;
        }
        return SEL_PEV(s, id).state == PEV_OPEN ? pv_run(s, id, 0, -1) : 0;
    }
    *mask |= (uint64_t)1 << (j + 1);
    return 0;
}

/* The element at START (b, i), at depth d, for the paths that apply to the
 * children of the elements at depth d - 1. */
static int pv_start(stax_select *s, const stax_batch *b, size_t i, uint32_t d) {
    size_t hi = SEL_N(s->pact, sel_pact), lo = hi;
    while (lo > 0 && SEL_AT(s->pact, sel_pact, lo - 1).depth == d - 1) lo--;
    uint32_t saved = s->depth;
    s->depth = d - 1;
    for (size_t e = lo; e < hi; e++) {
        sel_pact a = SEL_AT(s->pact, sel_pact, e);
        const sel_pev *pv = &SEL_PEV(s, a.pev);
        if (pv->state != PEV_OPEN && pv->state != PEV_LAST) continue;
        const sel_step *st = &SEL_STEP(s, pv->step);
        uint64_t mask = 0;
        stax_qname q = s->ns ? stax_ev_qname(b, i) : stax__plain_qname(b->events[i].name);
        int counted = 0;
        for (uint32_t j = 0; j < st->ps_count; j++) {
            if (!(a.mask >> j & 1)) continue;
            const sel_ps *ps = &SEL_PS(s, st->ps_first + j);
            if (ps->axis == PS_DESC || ps->axis == PS_DSELF) mask |= (uint64_t)1 << j;
            if (ps->type == SEL_ATTR) { /* (a descendant one: the child's attributes) */
                for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
                    if (!sel_attr_ok(s, &ps->name, b, i, k)) continue;
                    stax_qname aq = s->ns ? stax_ev_attr_qname(b, i, k) : stax__plain_qname(stax_ev_attr_name(b, i, k));
                    if (pv_node(s, a.pev, ps->pp, stax_ev_attr_name(b, i, k), aq.uri, 1, stax_ev_attr_value(b, i, k), 0))
                        return s->err.code;
                }
                if (SEL_PEV(s, a.pev).state == PEV_OPEN && pv_run(s, a.pev, 0, -1)) return s->err.code;
                continue;
            }
            if (!(ps->type == PS_NODE || (ps->type == SEL_ELEM && pv_name_ok(s, ps, b->events[i].name, &q)))) continue;
            if (ps->pos) {
                counted = 1;
                if (a.cnt[ps->slot] < UINT32_MAX) a.cnt[ps->slot]++;
                if (a.cnt[ps->slot] != ps->pos) continue;
            }
            if (pv_matched(s, a.pev, st, j, b, i, &mask)) return s->err.code;
        }
        if (counted && SEL_PUT(s, s->pact, sel_pact, e, &a)) return s->err.code;
        if (mask) {
            sel_pact n;
            memset(&n, 0, sizeof n);
            n.pev = a.pev;
            n.depth = d;
            n.mask = mask;
            s->pact_ver++;
            if (pv_held(s, &s->pact, sizeof n) || sel_append(s, &s->pact, &n, sizeof n)) return s->err.code;
        }
    }
    s->depth = saved;
    return 0;
}

/* A node at depth d that is not an element: a text node beginning (value
 * read until the boundary), or a comment or PI (complete). */
static int pv_leaf(stax_select *s, uint32_t d, int text, stax_str value) {
    size_t hi = SEL_N(s->pact, sel_pact);
    for (size_t e = hi; e-- > 0;) {
        sel_pact a = SEL_AT(s->pact, sel_pact, e);
        if (a.depth != d) break;
        const sel_pev *pv = &SEL_PEV(s, a.pev);
        if (pv->state != PEV_OPEN && pv->state != PEV_LAST) continue;
        const sel_step *st = &SEL_STEP(s, pv->step);
        for (uint32_t j = 0; j < st->ps_count; j++) {
            const sel_ps *ps = &SEL_PS(s, st->ps_first + j);
            if (!(a.mask >> j & 1) || !ps->final || !(ps->type == PS_NODE || (text && ps->type == SEL_TEXT))) continue;
            stax_str none = {"", 0};
            if (pv_node(s, a.pev, ps->pp, none, none, !text, value, text)) return s->err.code;
            if (SEL_PEV(s, a.pev).state == PEV_OPEN && pv_run(s, a.pev, 0, -1)) return s->err.code;
        }
    }
    return 0;
}

static int pv_text_boundary(stax_select *s) {
    while (s->pcaps.len && SEL_AT(s->pcaps, sel_pcap, SEL_N(s->pcaps, sel_pcap) - 1).text)
        if (pv_cap_end(s)) return s->err.code;
    return 0;
}

static int pv_text(stax_select *s, stax_str t) {
    if (!s->pcaps.len || !t.len) return 0;
    if (pv_held(s, &s->ptext, t.len)) return s->err.code;
    return sel_append(s, &s->ptext, t.ptr, t.len);
}

static int sel_drain(stax_select *s);

/* A new pev for element step k at the START (b, i) at depth d, for a
 * candidate with cond: *out the cond its matches take (0: it holds, SEL_NONE:
 * it fails). */
static int pv_new(stax_select *s, uint32_t k, uint32_t cond, const stax_batch *b, size_t i, uint32_t d, uint32_t *out) {
    const sel_step *st = &SEL_STEP(s, k);
    sel_pev pv;
    memset(&pv, 0, sizeof pv);
    pv.parent = cond;
    pv.step = k;
    pv.depth = d;
    pv.state = PEV_OPEN;
    pv.cnt = s->pcnt.len;
    pv.rec = SEL_N(s->precs, sel_prec);
    pv.pattr0 = s->pattr.len;
    size_t caps0 = s->pcaps.len;
    uint32_t id;
    if ((st->pp_count && (pv_held(s, &s->pcnt, st->pp_count * sizeof(uint32_t)) ||
                          sel_append_zeros(s, &s->pcnt, st->pp_count * sizeof(uint32_t)))) ||
        pv_push(s, &pv, &id))
        return s->err.code;
    uint32_t saved = s->depth;
    s->depth = d - 1;
    uint64_t mask = 0;
    for (uint32_t p = 0; p < st->pp_count; p++) {
        const sel_pp *pp = &SEL_PP(s, st->pp_first + p);
        uint32_t j = pp->first - st->ps_first;
        const sel_ps *ps = &SEL_PS(s, pp->first);
        if (ps->axis == PS_SELF || ps->axis == PS_DSELF) {
            stax_qname q = s->ns ? stax_ev_qname(b, i) : stax__plain_qname(b->events[i].name);
            if (ps->axis == PS_DSELF) mask |= (uint64_t)1 << j;
            if ((ps->type == PS_NODE || (ps->type == SEL_ELEM && pv_name_ok(s, ps, b->events[i].name, &q))) &&
                pv_matched(s, id, st, j, b, i, &mask))
                return s->err.code;
        } else if (ps->type == SEL_ATTR) {
            if (ps->axis == PS_DESC) mask |= (uint64_t)1 << j; /* .//@x: those of the elements below too */
            for (size_t a = 0; a < stax_ev_attr_count(b, i); a++) {
                if (!sel_attr_ok(s, &ps->name, b, i, a)) continue;
                stax_qname aq = s->ns ? stax_ev_attr_qname(b, i, a) : stax__plain_qname(stax_ev_attr_name(b, i, a));
                if (pv_node(s, id, ps->pp, stax_ev_attr_name(b, i, a), aq.uri, 1,
                            stax_ev_attr_value(b, i, a), 0))
                    return s->err.code;
            }
        } else {
            mask |= (uint64_t)1 << j;
        }
    }
    s->depth = saved;
    if (pv_run(s, id, UINT32_MAX, -1)) return s->err.code;
    int state = SEL_PEV(s, id).state;
    if (state == PEV_TRUE || state == PEV_FALSE) { /* decided at the START: nothing refers to it */
        s->pevs.len -= sizeof(sel_pev);
        s->pcnt.len = pv.cnt;
        s->precs.len = pv.rec * sizeof(sel_prec);
        s->pattr.len = pv.pattr0;
        s->pcaps.len = caps0;
        *out = state == PEV_TRUE ? cond : SEL_NONE;
        return 0;
    }
    if (mask) {
        sel_pact a;
        memset(&a, 0, sizeof a);
        a.pev = id;
        a.depth = d;
        a.mask = mask;
        s->pact_ver++;
        if (pv_held(s, &s->pact, sizeof a) || sel_append(s, &s->pact, &a, sizeof a)) return s->err.code;
    }
    *out = id;
    return 0;
}

/* The parent at depth d ends: the pevs of its children that wait for
 * last() are decided, predicate by predicate (the size of the set a
 * predicate sees is the number of children that passed the ones before). */
static int pv_lasts(stax_select *s, uint32_t d) {
    for (;;) {
        uint32_t j = UINT32_MAX;
        size_t n = SEL_N(s->pevs, sel_pev);
        for (size_t k = n; k-- > 0;) {
            const sel_pev *p = &SEL_AT(s->pevs, sel_pev, k);
            if (p->depth < d + 1) break;
            if (p->depth == d + 1 && p->kind == PEV_STEP && p->state == PEV_LAST && p->pred < j) j = p->pred;
        }
        if (j == UINT32_MAX) return 0;
        size_t first = n;
        while (first > 0 && SEL_AT(s->pevs, sel_pev, first - 1).depth >= d + 1) first--;
        for (size_t k = first; k < n; k++) {
            const sel_pev *p = &SEL_AT(s->pevs, sel_pev, k);
            if (p->depth != d + 1 || p->kind != PEV_STEP || p->state != PEV_LAST || p->pred != j) continue;
            const sel_step *st = &SEL_STEP(s, p->step);
            const sel_pred *pr = &SEL_AT(s->preds, sel_pred, st->pred_first + j);
            uint32_t size;
            memcpy(&size, s->counters.ptr + ((size_t)d * s->n_slots + pr->slot) * sizeof size, sizeof size);
            if (pv_run(s, (uint32_t)k + 1, j + 1, (double)size)) return s->err.code;
        }
    }
}

/* What the paths being read look for among the children of the element at
 * depth (the pact entries of that depth): the bits of the names their steps
 * may match there (all for *, node() and a descendant step), and whether a
 * text node there may be one of their nodes. stax_select_batch passes the
 * others by. Kept until pact changes. */
static SEL_COLD void pv_group_make(stax_select *s, uint32_t depth);
static inline void pv_group(stax_select *s, uint32_t depth) {
    if (s->pg_ver != s->pact_ver || s->pg_depth != depth) pv_group_make(s, depth);
}
static SEL_COLD void pv_group_make(stax_select *s, uint32_t depth) {
    s->pg_ver = s->pact_ver;
    s->pg_depth = depth;
    s->pg_names = 0;
    s->pg_text = 0;
    for (size_t e = SEL_N(s->pact, sel_pact); e-- > 0;) {
        const sel_pact *a = &SEL_AT(s->pact, sel_pact, e);
        if (a->depth != depth) break;
        const sel_step *st = &SEL_STEP(s, SEL_PEV(s, a->pev).step);
        for (uint32_t j = 0; j < st->ps_count; j++) {
            if (!(a->mask >> j & 1)) continue;
            const sel_ps *ps = &SEL_PS(s, st->ps_first + j);
            if (ps->axis == PS_DESC || ps->axis == PS_DSELF || ps->type == PS_NODE || ps->name.any)
                s->pg_names = ~(uint64_t)0;
            else if (ps->type == SEL_ELEM)
                s->pg_names |= sel_name_bit(s->ns, ps->name.name);
            if (ps->type == SEL_TEXT || ps->type == PS_NODE) s->pg_text = 1;
        }
    }
}

/* The END of the element at depth d: its nodes' values complete, the pevs
 * of its children that wait for last(), its own pevs decided; then the pevs
 * nothing refers to any more go. */
static int pv_end(stax_select *s, uint32_t d) {
    while (s->pcaps.len && SEL_AT(s->pcaps, sel_pcap, SEL_N(s->pcaps, sel_pcap) - 1).depth >= d)
        if (pv_cap_end(s)) return s->err.code;
    if (pv_lasts(s, d)) return s->err.code;
    size_t n = SEL_N(s->pevs, sel_pev);
    for (size_t k = n; k-- > 0;) { /* (its own come after those of the siblings before it, which ended) */
        sel_pev p = SEL_AT(s->pevs, sel_pev, k);
        if (p.depth < d || (p.depth == d && p.kind == PEV_STEP && p.ended)) break;
        if (p.depth != d || p.kind != PEV_STEP) continue;
        p.ended = 1;
        if (SEL_PUT(s, s->pevs, sel_pev, k, &p) || pv_run(s, (uint32_t)k + 1, 0, -1)) return s->err.code;
    }
    /* the root element is the document's only child: its END is the document's */
    if (d == 1 && pv_lasts(s, 0)) return s->err.code;
    while (s->pact.len && SEL_AT(s->pact, sel_pact, SEL_N(s->pact, sel_pact) - 1).depth >= d) {
        s->pact.len -= sizeof(sel_pact);
        s->pact_ver++;
    }
    if (s->pv_decided) {
        s->pv_decided = 0;
        if (sel_drain(s)) return s->err.code;
    }
    if (s->q_head != SEL_N(s->queue, sel_match)) return 0; /* matches refer to them */
    while (s->pevs.len) {
        const sel_pev *p = &SEL_AT(s->pevs, sel_pev, SEL_N(s->pevs, sel_pev) - 1);
        if (p->depth < d || (p->kind == PEV_STEP && (p->state == PEV_LAST || p->state == PEV_OPEN))) break;
        if (p->kind == PEV_STEP) {
            s->pcnt.len = p->cnt;
            s->precs.len = p->rec * sizeof(sel_prec);
        }
        s->pevs.len -= sizeof(sel_pev);
    }
    if (!s->pevs.len) {
        s->pcnt.len = s->precs.len = s->ptext.len = s->pattr.len = 0;
        s->ptext_keep = 0;
    }
    return 0;
}

/* Whether element step k matches the START (b, i) at depth d. With records a
 * step may be asked once per record around: one with a [n] is tested once
 * per START, so that position counters count each child once. (A failed
 * update sets the status, which sel_start checks.) */
static int sel_step_ok(stax_select *s, uint32_t k, const stax_batch *b, size_t i, uint32_t d) {
    const sel_step *st = &SEL_STEP(s, k);
    if (!st->pred_count && !s->ns) return st->name.any || sel_str_eq(st->name.name, b->events[i].name); /* no state */
    int memo = st->counted; /* (a step is among the candidates twice with records, or predicates on content) */
    if (memo && SEL_AT(s->eval_epoch, uint64_t, k) == s->epoch) return (unsigned char)s->eval_ok.ptr[k];
    stax_qname q = s->ns ? stax_ev_qname(b, i) : stax__plain_qname(b->events[i].name);
    int ok = sel_name_ok(s, &st->name, b->events[i].name, &q);
    size_t counters = (size_t)(d - 1) * s->n_slots; /* the parent's children's */
    for (uint32_t p = 0; ok && p < st->pred_count; p++) {
        const sel_pred *pr = &SEL_AT(s->preds, sel_pred, st->pred_first + p);
        if (pr->pos) {
            uint32_t c = SEL_AT(s->counters, uint32_t, counters + pr->slot);
            if (c < UINT32_MAX) c++;
            if (SEL_PUT(s, s->counters, uint32_t, counters + pr->slot, &c)) return 0;
            ok = c == pr->pos;
            continue;
        }
        for (uint32_t t = 0; ok && t < pr->count; t++) ok = sel_test_ok(s, &SEL_AT(s->tests, sel_test, pr->first + t), b, i);
    }
    unsigned char v = (unsigned char)ok;
    if (memo && !SEL_PUT(s, s->eval_epoch, uint64_t, k, &s->epoch)) SEL_PUT(s, s->eval_ok, unsigned char, k, &v);
    return ok;
}

/* Add (step, ctx) to the candidates of the frame being built, unless one of
 * those in [off, end) is the same. */
static int sel_cand_add(stax_select *s, size_t off, size_t end, uint32_t step, uint64_t ctx, uint32_t cond) {
    for (size_t j = off; j < end; j++) {
        const sel_cand *c = &SEL_AT(s->cands, sel_cand, j);
        if (c->step == step && c->ctx == ctx && (c->cond == cond || !c->cond)) return 0;
    }
    sel_cand c;
    memset(&c, 0, sizeof c);
    c.step = step;
    c.ctx = ctx;
    c.cond = cond;
    if (sel_state_reserve(s, &s->cands, sizeof c)) return s->err.code;
    return sel_append(s, &s->cands, &c, sizeof c);
}

/* The steps after step k, in context ctx; a fresh context (a record's,
 * at its START) cannot be among the candidates yet (off is SIZE_MAX). */
static int sel_cand_add_succ(stax_select *s, size_t off, uint32_t k, uint64_t ctx, uint32_t cond) {
    const sel_step *st = &SEL_STEP(s, k);
    for (uint32_t j = 0; j < st->succ_count; j++) {
        uint32_t next = SEL_AT(s->succ, uint32_t, st->succ_first + j);
        size_t end = SEL_N(s->cands, sel_cand);
        if (SEL_STEP(s, next).type != SEL_SELF && sel_cand_add(s, off < end ? off : end, end, next, ctx, cond)) return s->err.code;
    }
    return 0;
}

/* Whether candidate c's step matches the START (b, i) at depth d, and *cond
 * the predicates its matches and the steps after it wait for (0: none).
 * A step with expression predicates makes a pev (pv_new) once per START:
 * another candidate of the same step there takes it too, its own cond put
 * beside the first's (or). */
static int sel_step_okc(stax_select *s, sel_cand c, const stax_batch *b, size_t i, uint32_t d, uint32_t *cond) {
    uint32_t cc = c.cond ? pv_simplify(s, c.cond) : 0;
    if (cc == SEL_NONE) return 0;
    *cond = cc;
    const sel_step *st = &SEL_STEP(s, c.step);
    if (!st->xpred) return sel_step_ok(s, c.step, b, i, d);
    uint32_t k = c.step;
    if (SEL_AT(s->eval_epoch, uint64_t, k) == s->epoch) {
        if (!s->eval_ok.ptr[k]) return 0;
        uint32_t id = SEL_AT(s->eval_pev, uint32_t, k);
        if (!id) return 1;
        sel_pev pv = SEL_PEV(s, id);
        if (pv.parent && pv.parent != cc) pv.parent = cc ? pv_or(s, pv.parent, cc) : 0;
        *cond = id;
        return SEL_PUT(s, s->pevs, sel_pev, id - 1, &pv) ? 0 : 1;
    }
    stax_qname q = s->ns ? stax_ev_qname(b, i) : stax__plain_qname(b->events[i].name);
    uint32_t r = SEL_NONE, id = 0;
    if (sel_name_ok(s, &st->name, b->events[i].name, &q) && pv_new(s, k, cc, b, i, d, &r)) return 0;
    unsigned char ok = r != SEL_NONE;
    if (ok && r != cc) id = r;
    /* (the tables have a place per step since compiling) */
    SEL_AT(s->eval_epoch, uint64_t, k) = s->epoch;
    s->eval_ok.ptr[k] = (char)ok;
    SEL_AT(s->eval_pev, uint32_t, k) = id;
    if (ok) *cond = r;
    return ok;
}

/* The paths that select a node, as the candidates say: counted at once
 * when nothing is undecided (path: the first), else per path the
 * predicates they wait for (cp, cc; ccond all of them, cpath the first). */
#define SEL_HITS 8u
typedef struct sel_hits {
    uint32_t path, cpath, ccond, n;
    uint64_t upaths; /* the paths (below 64) counted at once */
    uint32_t cp[SEL_HITS], cc[SEL_HITS];
} sel_hits;

static void sel_hits_init(sel_hits *h) {
    h->path = h->cpath = SEL_NONE;
    h->ccond = h->n = 0;
    h->upaths = 0;
}

static int sel_hit(stax_select *s, sel_hits *h, const sel_query *q, uint32_t cond) {
    if (cond) cond = pv_simplify(s, cond);
    if (cond == SEL_NONE) return 0;
    uint64_t bit = q->index < 64 ? (uint64_t)1 << q->index : 0;
    if (!cond) {
        if (h->upaths & bit) return 0;
        h->upaths |= bit;
        return sel_count(s, q, &h->path);
    }
    if (h->upaths & bit) return 0;
    uint32_t k = 0;
    while (k < h->n && h->cp[k] != q->index) k++;
    if (k < h->n) {
        h->cc[k] = pv_or(s, h->cc[k], cond);
    } else if (h->n < SEL_HITS) {
        h->cp[h->n] = q->index;
        h->cc[h->n++] = cond;
    } else {
        return sel_fail(s, STAX_E_UNSUPPORTED, "not supported: more than %u paths of a union select one node under undecided predicates",
                        SEL_HITS);
    }
    if (q->index < h->cpath) h->cpath = q->index;
    h->ccond = h->ccond ? pv_or(s, h->ccond, cond) : cond;
    return s->err.code;
}

/* The match of a node the paths select (sel_hits): *m its number; 0 when
 * it has none (*made 0). */
static int sel_hits_match(stax_select *s, const sel_hits *h, int kind, int record, uint64_t *m) {
    int lone = h->path == SEL_NONE && h->n == 1;
    if (h->path != SEL_NONE) {
        if (sel_new_match(s, kind, h->path, record, m)) return s->err.code;
    } else if (h->n) {
        if (sel_new_match_if(s, kind, h->cpath, record, h->ccond, lone ? 2 : 0, m)) return s->err.code;
    }
    for (uint32_t k = 0; !lone && k < h->n; k++) {
        uint64_t sh;
        if ((h->cp[k] < 64 && (h->upaths >> h->cp[k] & 1))) continue;
        if (sel_new_match_if(s, kind, h->cp[k], 0, h->cc[k], 1, &sh)) return s->err.code;
    }
    return 0;
}
static inline uint32_t sel_hits_path(const sel_hits *h) { return h->path != SEL_NONE ? h->path : h->n ? h->cpath : SEL_NONE; }

/* Columns that are '.': the record's own value. */
static int sel_self_columns(stax_select *s, uint64_t record, const stax_batch *b, size_t i, size_t scope_len) {
    const sel_step *root = &SEL_STEP(s, SEL_REC_ROOT);
    for (uint32_t j = 0; j < root->succ_count; j++) {
        const sel_step *st = &SEL_STEP(s, SEL_AT(s->succ, uint32_t, root->succ_first + j));
        if (st->type != SEL_SELF) continue;
        uint32_t col = SEL_AT(s->queries, sel_query, st->query).index;
        if (sel_column_begin(s, record, col, SEL_CAP_ELEM, b, i, scope_len)) return s->err.code;
    }
    return 0;
}


/* Columns that are '@a' alone: the record's own attributes. Complete at its
 * START, they are filled here, in column order, and are no candidates. */
static int sel_own_columns(stax_select *s, uint64_t record, const stax_batch *b, size_t i) {
    size_t n = stax_ev_attr_count(b, i);
    uint32_t j = 0;
    sel_match m = *sel_match_at(s, record);
    if (!s->xml && m.begun && m.next_col == 0 && s->own_lead) {
        /* the record streams, and columns 0 to own_lead - 1 are such columns:
         * each one's value out, then the next column announced (nothing can
         * be held for it yet), and the record's next column set once */
        for (; j < s->own_lead; j++) {
            const sel_step *st = &SEL_STEP(s, SEL_AT(s->succ, uint32_t, s->own_first + j));
            size_t k = sel_attr_first(s, &st->name, b, i, n);
            stax_str v = k < n ? stax_ev_attr_value(b, i, k) : stax_strz("");
            if (v.len && sel_emit(s, STAX_SELECT_VALUE, &m, record, j, v.ptr, v.len)) return s->err.code;
            unsigned char done = SEL_COL_DONE;
            if (sel_store(s, &s->colst, sel_colst_off(s, record, j), &done, 1)) return s->err.code;
            if (j + 1 < s->n_cols &&
                (sel_emit(s, STAX_SELECT_COLUMN, &m, record, j + 1, NULL, 0) || sel_emit_held(s, record, j + 1)))
                return s->err.code;
        }
        m.next_col = j;
        if (sel_record_out(s, &m, record) || SEL_PUT(s, s->queue, sel_match, record - s->q_base, &m)) return s->err.code;
    }
    for (; j < s->own_count; j++) {
        const sel_step *st = &SEL_STEP(s, SEL_AT(s->succ, uint32_t, s->own_first + j));
        uint32_t col = SEL_AT(s->queries, sel_query, st->query).index;
        size_t k = sel_attr_first(s, &st->name, b, i, n);
        if (k < n && sel_attr_value(s, record, col, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)))
            return s->err.code;
        if (sel_colst_set(s, record, col, SEL_COL_DONE)) return s->err.code;
    }
    return 0;
}

/* The flags of a frame whose candidates are in place, and its descendant
 * subset: the same candidates when all are descendant steps; the tail when
 * the candidates from tail on are the parent's descendant ones (p) and none
 * before is one; else a copy of those that are, right after them. */
static int sel_frame_flags(stax_select *s, sel_frame *f, size_t tail, const sel_frame *p) {
    size_t end = f->cand_off + f->cand_n;
    int desc_before = 0;
    f->has_attr = f->has_text = f->desc_attr = f->desc_text = 0;
    f->all_desc = 1;
    f->names = f->desc_names = 0;
    if (!p) tail = end;
    for (size_t j = f->cand_off; j < tail; j++) {
        const sel_step *st = &SEL_STEP(s, SEL_AT(s->cands, sel_cand, j).step);
        uint64_t bit = st->names;
        f->has_attr |= st->type == SEL_ATTR;
        f->has_text |= st->type == SEL_TEXT;
        f->names |= bit;
        if (st->axis != SEL_DESC) {
            f->all_desc = 0;
            continue;
        }
        desc_before = 1;
        f->desc_attr |= st->type == SEL_ATTR;
        f->desc_text |= st->type == SEL_TEXT;
        f->desc_names |= bit;
    }
    if (p && tail < end) {
        f->has_attr |= p->desc_attr;
        f->has_text |= p->desc_text;
        f->names |= p->desc_names;
        f->desc_attr |= p->desc_attr;
        f->desc_text |= p->desc_text;
        f->desc_names |= p->desc_names;
    }
    f->desc_off = f->cand_off;
    f->desc_n = f->cand_n;
    if (f->all_desc) return 0;
    if (!desc_before) {
        f->desc_off = tail;
        f->desc_n = end - tail;
        return 0;
    }
    f->desc_off = SEL_N(s->cands, sel_cand);
    for (size_t j = f->cand_off; j < end; j++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, j);
        if (SEL_STEP(s, c.step).axis != SEL_DESC) continue;
        if (sel_state_reserve(s, &s->cands, sizeof c) || sel_append(s, &s->cands, &c, sizeof c)) return s->err.code;
    }
    f->desc_n = SEL_N(s->cands, sel_cand) - f->desc_off;
    return 0;
}

/* The frame of a record at which no other step matched: its columns' first
 * steps (child steps: rec_desc is clear) in context m + 1, then the parent's
 * descendant candidates, which are then its descendant subset; the flags as
 * sel_frame_flags sets them, from the ones sel_link kept. */
static int sel_record_frame(stax_select *s, sel_frame *f, const sel_frame *parent, uint64_t m) {
    if (sel_state_reserve(s, &s->cands, ((size_t)s->rec_n + parent->desc_n) * sizeof(sel_cand))) return s->err.code;
    const sel_step *root = &SEL_STEP(s, SEL_REC_ROOT);
    sel_cand c;
    memset(&c, 0, sizeof c);
    c.ctx = m + 1;
    for (uint32_t j = 0; j < root->succ_count; j++) {
        c.step = SEL_AT(s->succ, uint32_t, root->succ_first + j);
        if (SEL_STEP(s, c.step).type != SEL_SELF && sel_append(s, &s->cands, &c, sizeof c)) return s->err.code;
    }
    size_t tail = SEL_N(s->cands, sel_cand);
    for (size_t j = 0; j < parent->desc_n; j++) {
        c = SEL_AT(s->cands, sel_cand, parent->desc_off + j);
        if (sel_append(s, &s->cands, &c, sizeof c)) return s->err.code;
    }
    f->cand_n = SEL_N(s->cands, sel_cand) - f->cand_off;
    f->desc_off = tail;
    f->desc_n = parent->desc_n;
    f->owned = 1;
    f->all_desc = 0;
    f->names = s->rec_names;
    f->has_attr = s->rec_attr;
    f->has_text = s->rec_text;
    f->desc_names = f->desc_attr = f->desc_text = 0;
    if (parent->desc_n) {
        f->names |= parent->desc_names;
        f->has_attr |= parent->desc_attr;
        f->has_text |= parent->desc_text;
        f->desc_names = parent->desc_names;
        f->desc_attr = parent->desc_attr;
        f->desc_text = parent->desc_text;
    }
    return 0;
}

/* The frame of a child at which nothing matched: the parent's descendant
 * candidates, shared (the parent's END drops them). */
static inline sel_frame sel_frame_inherit(const sel_frame *p, size_t scope_len) {
    sel_frame f = *p; /* (the copy sets the padding; every field is set below) */
    f.owned = 0;
    f.cand_off = f.desc_off = p->desc_off;
    f.cand_n = f.desc_n = p->desc_n;
    f.scope_len = scope_len;
    f.names = f.desc_names = p->desc_names;
    f.has_attr = f.desc_attr = p->desc_attr;
    f.has_text = f.desc_text = p->desc_text;
    f.all_desc = 1;
    return f;
}

/* The frame of depth d, to read (updates go through SEL_PUT). */
static const sel_frame *sel_frame_at(const stax_select *s, uint32_t d) { return &SEL_AT(s->frames, sel_frame, d); }

static int sel_frame_grow(stax_select *s, uint32_t d);

/* The frame of depth d (room made by sel_frame_reserve), and zero position
 * counters for its children. */
static inline int sel_frame_put(stax_select *s, uint32_t d, const sel_frame *f) {
    if (SEL_PUT(s, s->frames, sel_frame, d, f)) return s->err.code;
    size_t n = s->n_slots * sizeof(uint32_t);
    return n ? sel_zero(s, &s->counters, (size_t)d * n, n) : 0;
}
static inline int sel_frame_reserve(stax_select *s, uint32_t d) {
    return s->frames.len > (size_t)d * sizeof(sel_frame) ? 0 : sel_frame_grow(s, d);
}

/* Make room for the frame and the position counters of depth d. */
static int sel_frame_grow(stax_select *s, uint32_t d) {
    size_t fl = ((size_t)d + 1) * sizeof(sel_frame), cl = ((size_t)d + 1) * s->n_slots * sizeof(uint32_t);
    if (s->frames.len < fl) {
        if (sel_state_reserve(s, &s->frames, fl - s->frames.len)) return s->err.code;
        s->frames.len = fl;
    }
    if (s->counters.len < cl) {
        if (sel_state_reserve(s, &s->counters, cl - s->counters.len)) return s->err.code;
        s->counters.len = cl;
    }
    return 0;
}

/* An attribute matched by paths (the first is path), outside XML values. With
 * nothing queued it is the front, and complete: out at once. */
static int sel_attr_match(stax_select *s, uint32_t path, stax_str name, stax_str value) {
    uint64_t m;
    if (s->queue.len || s->xml) {
        if (sel_new_match(s, STAX_SELECT_ATTRIBUTE, path, 0, &m)) return s->err.code;
        if (!s->values) return 0;
        if (sel_attr_value(s, m, SEL_NONE, name, value)) return s->err.code;
        return sel_close_match(s, m);
    }
    sel_match mt;
    memset(&mt, 0, sizeof mt);
    mt.kind = STAX_SELECT_ATTRIBUTE;
    mt.path = path;
    mt.begun = mt.closed = 1;
    m = s->next_match++;
    s->q_base = s->next_match; /* the queue stays empty */
    if (sel_emit(s, STAX_SELECT_BEGIN, &mt, m, 0, NULL, 0)) return s->err.code;
    if (s->values && value.len && sel_emit(s, STAX_SELECT_VALUE, &mt, m, 0, value.ptr, value.len)) return s->err.code;
    return sel_emit(s, STAX_SELECT_END, &mt, m, 0, NULL, 0);
}

#define SEL_ATTR_STEPS 8u /* path steps sel_attrs tests from a local list */

/* The attribute step of candidate j of the START (b, i)'s frame f belongs
 * to a column that may still take a match: the first attribute it matches
 * (of the column's union: the first in the tag), or with
 * STAX_SELECT_ALL_MATCHES every one. Out of sel_attrs' loop, which paths
 * run through. */
static SEL_COLD int sel_attr_column(stax_select *s, const stax_batch *b, size_t i, const sel_frame *f, size_t j) {
    if (s->all) return sel_attrs_all(s, b, i, f, j);
    sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + j);
    const sel_step *st = &SEL_STEP(s, c.step);
    const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
    size_t n = stax_ev_attr_count(b, i);
    if (sel_colst(s, c.ctx - 1, q->index) != SEL_COL_NONE) return 0;
    size_t k = sel_attr_first(s, &st->name, b, i, n);
    if (q->shared) k = sel_attr_first_of_column(s, f, j, c.ctx, q->index, b, i, k);
    return k < n ? sel_column_attr(s, c.ctx - 1, q->index, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)) : 0;
}

/* The attributes of the element that starts at (b, i): the columns they
 * fill (the first attribute that matches each), then the matches of the
 * paths, one per attribute in the order of the tag. */
static int sel_attrs(stax_select *s, const stax_batch *b, size_t i, const sel_frame *f) {
    size_t n = stax_ev_attr_count(b, i);
    const sel_step *steps[SEL_ATTR_STEPS];
    size_t n_steps = 0;
    int many = 0;
    for (size_t j = 0; j < f->cand_n; j++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + j);
        const sel_step *st = &SEL_STEP(s, c.step);
        if (st->type != SEL_ATTR) continue;
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        if (!q->column) {
            if (n_steps < SEL_ATTR_STEPS) steps[n_steps++] = st;
            else many = 1;
            if (c.cond) many = 1; /* (the cands' loop below takes cond) */
            continue;
        }
        if (sel_colst(s, c.ctx - 1, q->index) != SEL_COL_DONE && sel_attr_column(s, b, i, f, j)) return s->err.code;
    }
    for (size_t k = 0; n_steps && k < n; k++) {
        uint32_t path = SEL_NONE;
        if (n_steps == 1 && !many && !s->ns && !steps[0]->name.any) { /* one plain name (most queries): scan for it */
            while (k < n && !sel_str_eq(steps[0]->name.name, stax_ev_attr_name(b, i, k))) k++;
            if (k == n) break;
            if (sel_count(s, &SEL_AT(s->queries, sel_query, steps[0]->query), &path)) return s->err.code;
        } else if (!many) {
            for (size_t j = 0; j < n_steps; j++) {
                const sel_step *st = steps[j];
                if (sel_attr_ok(s, &st->name, b, i, k) && sel_count(s, &SEL_AT(s->queries, sel_query, st->query), &path))
                    return s->err.code;
            }
        } else {
            sel_hits h;
            sel_hits_init(&h);
            for (size_t j = 0; j < f->cand_n; j++) {
                sel_cand c = SEL_AT(s->cands, sel_cand, f->cand_off + j);
                const sel_step *st = &SEL_STEP(s, c.step);
                const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
                if (st->type != SEL_ATTR || q->column || !sel_attr_ok(s, &st->name, b, i, k)) continue;
                if (sel_hit(s, &h, q, c.cond)) return s->err.code;
            }
            if (h.n) {
                uint64_t m;
                if (sel_hits_match(s, &h, STAX_SELECT_ATTRIBUTE, 0, &m)) return s->err.code;
                if (s->values && (sel_attr_value(s, m, SEL_NONE, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)) ||
                                  sel_close_match(s, m)))
                    return s->err.code;
                continue;
            }
            path = h.path;
        }
        if (path != SEL_NONE && sel_attr_match(s, path, stax_ev_attr_name(b, i, k), stax_ev_attr_value(b, i, k)))
            return s->err.code;
    }
    return 0;
}

/* A START. The candidates before from (of the parent) are known not to
 * match it, and from_ok says that candidate from does (stax_select_batch
 * tested them: sel_first_step); stax_select_event passes 0, 0. */
static int sel_start(stax_select *s, const stax_batch *b, size_t i, size_t from, int from_ok) {
    if (s->in_text && sel_text_boundary(s)) return s->err.code;
    for (size_t c = 0; s->xml && c < SEL_N(s->caps, sel_cap); c++) {
        sel_wctx *x = SEL_AT(s->caps, sel_cap, c).x;
        if (x && sel_xml_event(s, x, b, i)) return s->err.code;
    }
    if (s->depth >= s->opt.max_depth)
        return sel_fail(s, STAX_E_LIMIT_DEPTH, "elements nested deeper than max_depth (%u levels)", (unsigned)s->opt.max_depth);
    uint32_t d = s->depth + 1;
    if (sel_frame_reserve(s, d)) return s->err.code;
    sel_frame parent = *sel_frame_at(s, d - 1), f;
    memset(&f, 0, sizeof f);
    f.cand_off = SEL_N(s->cands, sel_cand);
    f.scope_len = s->scope.len;
    s->epoch++;

    /* which steps match here; the ones after them become candidates */
    int columns = 0;
    uint64_t bit = sel_name_bit(s->ns, b->events[i].name);
    sel_hits h;
    sel_hits_init(&h);
    if (s->pact.len && pv_start(s, b, i, d)) return s->err.code; /* the paths of the predicates being read */
    for (size_t j = from; j < parent.cand_n; j++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, parent.cand_off + j);
        const sel_step *st = &SEL_STEP(s, c.step);
        uint32_t cond = c.cond;
        if (j == from && from_ok) { /* tested (a step with no state) */
            if (cond && (cond = pv_simplify(s, cond)) == SEL_NONE) continue;
        } else if (!(st->names & bit) || !sel_step_okc(s, c, b, i, d, &cond)) { /* names: element steps only */
            if (s->err.code) return s->err.code;
            continue;
        }
        if (!st->final) {
            if (sel_cand_add_succ(s, f.cand_off, c.step, c.ctx, cond)) return s->err.code;
            continue;
        }
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        if (q->column) columns = 1;
        else if (sel_hit(s, &h, q, cond)) return s->err.code;
    }
    uint64_t m = 0;
    uint32_t path = sel_hits_path(&h);
    int record = path != SEL_NONE && s->n_cols;
    if (path != SEL_NONE && sel_hits_match(s, &h, STAX_SELECT_ELEMENT, record, &m)) return s->err.code;
    size_t matched_end = SEL_N(s->cands, sel_cand); /* the candidates a descendant step may repeat */
    if (record && s->values && matched_end == f.cand_off && s->rec_n && !s->rec_desc) {
        if (sel_record_frame(s, &f, &parent, m)) return s->err.code;
    } else {
        if (record && s->values && sel_cand_add_succ(s, SIZE_MAX, SEL_REC_ROOT, m + 1, 0)) return s->err.code;
        if (SEL_N(s->cands, sel_cand) == f.cand_off) {
            f = sel_frame_inherit(&parent, s->scope.len);
        } else {
            size_t tail = SEL_N(s->cands, sel_cand);
            for (size_t j = 0; j < parent.desc_n; j++) {
                sel_cand c = SEL_AT(s->cands, sel_cand, parent.desc_off + j);
                if (sel_cand_add(s, f.cand_off, matched_end, c.step, c.ctx, c.cond)) return s->err.code;
            }
            f.cand_n = SEL_N(s->cands, sel_cand) - f.cand_off;
            f.owned = 1;
            /* the tail is the parent's descendant set when no candidate repeated one of them */
            int whole = SEL_N(s->cands, sel_cand) - tail == parent.desc_n;
            if (sel_frame_flags(s, &f, tail, whole ? &parent : NULL)) return s->err.code;
        }
    }
    s->depth = d;
    if (s->err.code || sel_frame_put(s, d, &f)) return s->err.code;
    if (s->xml && sel_scope_push(s, b, i, d)) return s->err.code;

    /* the values that begin here: the element's own, the columns it is, its attributes */
    if (path != SEL_NONE && s->values &&
        (record ? sel_cap_push(s, m, SEL_NONE, SEL_CAP_RECORD, NULL) /* a record's capture has no writer */
                : sel_capture(s, m, SEL_NONE, SEL_CAP_ELEM, b, i, f.scope_len)))
        return s->err.code;
    if (record && s->values && (sel_self_columns(s, m, b, i, f.scope_len) || sel_own_columns(s, m, b, i))) return s->err.code;
    for (size_t j = from; columns && s->values && j < parent.cand_n; j++) {
        sel_cand c = SEL_AT(s->cands, sel_cand, parent.cand_off + j);
        const sel_step *st = &SEL_STEP(s, c.step);
        const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
        uint32_t cond = 0;
        if (!(st->names & bit) || !st->final || !q->column || !sel_step_okc(s, c, b, i, d, &cond)) continue;
        if (q->column && sel_column_begin(s, c.ctx - 1, q->index, SEL_CAP_ELEM, b, i, f.scope_len)) return s->err.code;
    }
    return f.has_attr ? sel_attrs(s, b, i, &f) : 0;
}

static int sel_end(stax_select *s, const stax_batch *b, size_t i) {
    if (s->in_text && sel_text_boundary(s)) return s->err.code;
    uint32_t d = s->depth;
    if (d == 0) return sel_fail(s, STAX_E_USAGE, "an END event outside every element (events skipped?)");
    for (size_t c = 0; s->xml && c < SEL_N(s->caps, sel_cap); c++) {
        const sel_cap *cp = &SEL_AT(s->caps, sel_cap, c);
        if (cp->x && sel_xml_event(s, cp->x, b, i)) return s->err.code;
    }
    while (s->caps.len && SEL_AT(s->caps, sel_cap, SEL_N(s->caps, sel_cap) - 1).depth == d)
        if (sel_cap_pop(s)) return s->err.code;
    if (s->pevs.len && pv_end(s, d)) return s->err.code;
    const sel_frame *f = sel_frame_at(s, d);
    if (f->owned) s->cands.len = f->cand_off * sizeof(sel_cand);
    s->scope.len = f->scope_len;
    s->depth = d - 1;
    return 0;
}

/* TEXT and CDATA. As in XPath's data model, a text node is a whole run of
 * them with something in it: an empty one (<![CDATA[]]>) begins none. */
static int sel_text(stax_select *s, const stax_batch *b, size_t i) {
    if (!s->in_text && b->events[i].text.len) {
        s->in_text = 1;
        const sel_frame *f = sel_frame_at(s, s->depth);
        if (s->pact.len) {
            stax_str none = {"", 0};
            if (pv_leaf(s, s->depth, 1, none)) return s->err.code;
        }
        if (f->has_text) { /* a text node begins: its matches */
            sel_hits h;
            sel_hits_init(&h);
            size_t off = f->cand_off, n = f->cand_n;
            for (size_t j = 0; j < n; j++) {
                sel_cand c = SEL_AT(s->cands, sel_cand, off + j);
                const sel_step *st = &SEL_STEP(s, c.step);
                if (st->type != SEL_TEXT) continue;
                const sel_query *q = &SEL_AT(s->queries, sel_query, st->query);
                int st2 = !q->column ? sel_hit(s, &h, q, c.cond)
                          : s->values ? sel_column_begin(s, c.ctx - 1, q->index, SEL_CAP_TEXT, b, i, 0) : 0;
                if (st2) return s->err.code;
            }
            uint64_t m;
            if (sel_hits_path(&h) != SEL_NONE && (sel_hits_match(s, &h, STAX_SELECT_TEXT, 0, &m) ||
                                                  (s->values && sel_capture(s, m, SEL_NONE, SEL_CAP_TEXT, b, i, 0))))
                return s->err.code;
        }
    }
    const stax_event *e = &b->events[i];
    if (s->pcaps.len && pv_text(s, e->text)) return s->err.code;
    for (size_t c = 0; c < SEL_N(s->caps, sel_cap); c++) {
        const sel_cap *cp = &SEL_AT(s->caps, sel_cap, c);
        if (cp->kind == SEL_CAP_RECORD) continue;
        int st;
        if (!cp->x) st = sel_put(s, cp->match, cp->column, e->text.ptr, e->text.len);
        else if (cp->kind == SEL_CAP_TEXT) st = sel_writer_status(s, stax_writer_text(cp->x->w, e->text));
        else st = sel_xml_event(s, cp->x, b, i);
        if (st) return s->err.code;
    }
    return 0;
}

/* Comments, PIs and references: only XML values see them. */
static int sel_other(stax_select *s, const stax_batch *b, size_t i) {
    for (size_t c = 0; c < SEL_N(s->caps, sel_cap); c++) {
        const sel_cap *cp = &SEL_AT(s->caps, sel_cap, c);
        if (cp->x && cp->kind == SEL_CAP_ELEM && sel_xml_event(s, cp->x, b, i)) return s->err.code;
    }
    return 0;
}

/* Whether events of b may be taken: STAX_OK, or the status. */
static int sel_check(stax_select *s, const stax_batch *b) {
    if (s->err.code) return s->err.code;
    if (!s->compiled) return sel_fail(s, STAX_E_USAGE, "stax_select: no paths compiled");
    if (!b) return sel_fail(s, STAX_E_USAGE, "stax_select: no batch");
    if (s->ns && !b->ev_ns)
        return sel_fail(s, STAX_E_USAGE, "STAX_SELECT_NAMESPACES needs a reader with STAX_READ_NAMESPACES");
    return STAX_OK;
}

static int sel_event(stax_select *s, const stax_batch *b, size_t i, size_t from, int from_ok) {
    s->event = i;
    switch (b->events[i].type) {
    case STAX_EV_START: return sel_start(s, b, i, from, from_ok);
    case STAX_EV_END: return sel_end(s, b, i);
    case STAX_EV_TEXT:
    case STAX_EV_CDATA: return sel_text(s, b, i);
    case STAX_EV_COMMENT:
    case STAX_EV_PI:
        if (s->in_text && sel_text_boundary(s)) return s->err.code;
        if (s->pact.len && pv_leaf(s, s->depth, 0, b->events[i].text)) return s->err.code;
        return s->xml ? sel_other(s, b, i) : 0;
    case STAX_EV_ENTITY_REF: return s->xml ? sel_other(s, b, i) : 0;
#ifndef STAX__SMALL /* (whose reader reads one document: reader.h, RD_SHAPES) */
    /* a sequence of documents (STAX_READ_DOCUMENTS), at depth 0: the next
     * document's paths start again at its root node (its [n] count afresh);
     * the counts of STAX_SELECT_NO_VALUES go on */
    case STAX_EV_DOCUMENT_END: return s->depth ? 0 : sel_root(s);
#endif
    default: return 0;
    }
}

int stax_select_event(stax_select *s, const stax_batch *b, size_t i) {
    if (!s) return STAX_E_USAGE;
    int st = sel_check(s, b);
    if (st) return st;
    if (i >= b->count) return sel_fail(s, STAX_E_USAGE, "stax_select_event: no such event");
    return sel_event(s, b, i, 0, 0);
}

/* The first of the candidates of the frame at depth + extra (top's, or with
 * extra what top's children inherit) whose element step matches the START
 * (b, i) (*ok set), or has a [n] (untested: testing it counts, which
 * sel_start does once); the number of candidates when there is none. The
 * steps tested have no state, so sel_start may take over from there. */
static size_t sel_first_step(stax_select *s, const sel_frame *top, uint32_t extra, const stax_batch *b, size_t i,
                             uint64_t bit, int *ok) {
    size_t off = extra ? top->desc_off : top->cand_off, n = extra ? top->desc_n : top->cand_n;
    for (size_t j = 0; j < n; j++) {
        uint32_t k = SEL_AT(s->cands, sel_cand, off + j).step;
        const sel_step *st = &SEL_STEP(s, k);
        if (!(st->names & bit)) continue;
        if (st->counted) return j;
        if (sel_step_ok(s, k, b, i, 0)) {
            *ok = 1;
            return j;
        }
    }
    return n;
}

/* Write the frames of the extra levels above depth: each inherits from the
 * frame at depth (which inherited or not; an inheriting frame's child is the
 * same frame). Their room was reserved at their STARTs. */
static int sel_frames_write(stax_select *s, uint32_t depth, uint32_t extra) {
    sel_frame f = sel_frame_inherit(sel_frame_at(s, depth), s->scope.len);
    for (uint32_t d = depth + 1; d <= depth + extra; d++)
        if (sel_frame_put(s, d, &f)) return s->err.code;
    return 0;
}

/* The events no step and no capture needs go by here without sel_event:
 * text nothing takes, STARTs no element step can match, ENDs that end no
 * capture. Such a START inherits its parent's descendant candidates
 * (sel_frame_inherit); the levels it opens are counted in extra, and their
 * frames are written only when an event needs them (sel_frames_write),
 * before sel_event and at the end of the batch. Their room is reserved at
 * their START, so that max_state runs out at the same event either way. The
 * depth, the text state and the top frame stay in locals meanwhile. */
int stax_select_batch(stax_select *s, const stax_batch *b) {
    if (!s) return STAX_E_USAGE;
    int st = sel_check(s, b);
    if (st) return st;
    uint32_t depth = s->depth, extra = 0;
    size_t from = 0; /* a START for sel_event: the candidates before from do not match; from_ok: from does */
    int from_ok = 0;
    int in_text = s->in_text;
    const sel_frame *top = sel_frame_at(s, depth);
    uint64_t names = top->names; /* of the frame at depth + extra: the top's own, or what its children inherit */
    int has_text = top->has_text, has_attr = top->has_attr;
    /* predicates being decided (pvs): the events their paths may need go to
     * sel_event; quiet: neither they nor a capture takes text; end_floor: the
     * ENDs from that depth on may skip sel_event */
    int pvs = s->pevs.len != 0, quiet = !pvs && s->caps_taking == 0;
    uint32_t end_floor = pvs ? UINT32_MAX : s->cap_floor;
    for (size_t i = 0; !st && i < b->count; i++) {
        const stax_event *e = &b->events[i];
        switch (e->type) {
        case STAX_EV_TEXT:
        case STAX_EV_CDATA:
            if ((in_text || !has_text) &&
                (quiet || (s->caps_taking == 0 && pvs && !s->pcaps.len && (extra || (pv_group(s, depth), !s->pg_text))))) {
                in_text = 1;
                continue;
            }
            break;
        case STAX_EV_START: {
            uint32_t d = depth + extra + 1;
            uint64_t bit = sel_name_bit(s->ns, e->name);
            if (d < s->cap_floor || d > s->opt.max_depth) break;
            if (pvs && !extra && s->pact.len && (pv_group(s, depth), s->pg_names & bit)) break;
            if (names & bit) { /* a step may match: the first that does (sel_start goes on from there) */
                from_ok = 0;
                from = sel_first_step(s, top, extra, b, i, bit, &from_ok);
            }
            if (!(names & bit) || from == (extra ? top->desc_n : top->cand_n)) {
                from = 0;
                in_text = 0;
                if (s->frames.len <= (size_t)d * sizeof(sel_frame)) {
                    s->event = i;
                    s->depth = d - 1;
                    if ((st = sel_frame_grow(s, d)) != 0) continue;
                    top = sel_frame_at(s, depth); /* the frames moved */
                }
                if (!extra++) {
                    names = top->desc_names;
                    has_text = top->desc_text;
                    has_attr = top->desc_attr;
                }
                if (has_attr) {
                    sel_frame f = sel_frame_inherit(top, s->scope.len);
                    s->event = i;
                    s->depth = d;
                    st = sel_attrs(s, b, i, &f); /* (no pev begins: pvs holds) */
                }
                continue;
            }
            break;
        }
        case STAX_EV_END:
            if (extra) {
                in_text = 0;
                if (!--extra) {
                    names = top->names;
                    has_text = top->has_text;
                    has_attr = top->has_attr;
                }
                continue;
            }
            if (depth >= end_floor) {
                if (top->owned) s->cands.len = top->cand_off * sizeof(sel_cand);
                s->depth = --depth;
                in_text = 0;
                top = sel_frame_at(s, depth);
                names = top->names;
                has_text = top->has_text;
                has_attr = top->has_attr;
                continue;
            }
            break;
        default: break;
        }
        if (extra) {
            s->event = i;
            if ((st = sel_frames_write(s, depth, extra)) != 0) break;
            depth += extra;
            extra = 0;
        }
        s->depth = depth;
        s->in_text = in_text;
        st = sel_event(s, b, i, from, from_ok);
        pvs = s->pevs.len != 0;
        quiet = !pvs && s->caps_taking == 0;
        end_floor = pvs ? UINT32_MAX : s->cap_floor;
        from = 0;
        from_ok = 0;
        depth = s->depth;
        in_text = s->in_text;
        top = sel_frame_at(s, depth);
        names = top->names;
        has_text = top->has_text;
        has_attr = top->has_attr;
    }
    if (extra && !st && (st = sel_frames_write(s, depth, extra)) == 0) depth += extra;
    s->depth = depth;
    s->in_text = in_text;
    return st;
}

size_t stax_select_event_index(const stax_select *s) { return s ? s->event : 0; }

/* ================================================================ life cycle */

/* The root node's frame and candidates, nothing matched or counted in it. */
static int sel_root(stax_select *s) {
    s->depth = 0;
    s->in_text = 0;
    s->cands.len = s->frames.len = s->counters.len = s->scope.len = 0;
    if (sel_frame_reserve(s, 0)) return s->err.code;
    sel_frame f;
    memset(&f, 0, sizeof f);
    if (sel_cand_add_succ(s, 0, SEL_DOC_ROOT, 0, 0)) return s->err.code;
    f.cand_n = SEL_N(s->cands, sel_cand);
    f.owned = 1;
    if (sel_frame_flags(s, &f, 0, NULL)) return s->err.code;
    return sel_frame_put(s, 0, &f) ? s->err.code : 0;
}

/* The state before the first event: the root node's candidates. */
static int sel_runtime_init(stax_select *s) {
    s->next_tag = s->n_cols;
    sel_cap_floor(s);
    if (sel_root(s)) return s->err.code;
    if (sel_zero(s, &s->counts, 0, s->counts.len)) return s->err.code;
    return 0;
}

static void sel_drop_output(stax_select *s) {
    while (s->caps.len) {
        s->caps.len -= sizeof(sel_cap);
        sel_wctx *x = SEL_AT(s->caps, sel_cap, SEL_N(s->caps, sel_cap)).x;
        if (x) sel_xml_drop(s, x);
    }
    s->caps_taking = 0;
    sel_cap_floor(s);
    s->queue.len = s->colst.len = s->held.len = s->pend.len = 0;
    s->pevs.len = s->pact.len = s->pcaps.len = s->precs.len = s->ptext.len = s->pattr.len = s->pcnt.len = 0;
    s->ptext_keep = 0;
    s->next_tag = s->n_cols;
    s->q_head = 0;
    s->q_base = s->next_match = 0;
    s->given = 0;
}

/* The buffers a document grows: the SEL_N_STATE that max_state counts the
 * capacities of, then the four of max_held (k < SEL_N_RUNTIME). */
#define SEL_N_STATE 5
#define SEL_N_RUNTIME 9
static stax__buf *sel_runtime_buf(stax_select *s, size_t k) {
    stax__buf *bufs[SEL_N_RUNTIME] = {&s->frames, &s->cands, &s->counters, &s->scope, &s->caps,
                                      &s->queue, &s->colst, &s->held, &s->pend};
    return bufs[k];
}

/* What a document grows, given back (after sel_drop_output, which returns
 * the open values' writers to wfree): max_state counts the capacities of
 * the state's buffers and max_held those of the output's and the writers'
 * blocks, which only grow, so that kept, what a document (or a state that
 * stax_select_resume refused half read) made them would lower the limits of
 * the next. After a reset a select is a new one's equal, and in a fixed
 * block what it took after compiling is free again. */
static void sel_free_runtime(stax_select *s) {
    for (size_t k = 0; k < SEL_N_RUNTIME; k++) stax__buf_free(&s->mem, sel_runtime_buf(s, k));
    stax__buf *pv[] = {&s->pevs, &s->pact, &s->pcaps, &s->precs, &s->ptext, &s->pattr, &s->pcnt, &s->xscratch};
    for (size_t k = 0; k < sizeof pv / sizeof pv[0]; k++) stax__buf_free(&s->mem, pv[k]);
    while (s->wfree) {
        sel_wctx *x = s->wfree;
        s->wfree = x->next_free;
        stax__mem_free(&s->mem, x, s->opt.xml_memory);
    }
    s->wblocks = 0;
}

void stax_select_reset(stax_select *s) {
    if (!s) return;
    sel_drop_output(s);
    if (s->compile_status) return;
    stax__err_clear(&s->err);
    sel_free_runtime(s);
    if (s->compiled) sel_runtime_init(s);
}

/* ================================================================ options and the fixed block
 *
 * A fixed block is a first-fit heap (stax.c) in which the buffers grow by
 * doubling. Its extent grows by at most what each allocation asks for and
 * SEL_ALLOC_COST, so the sum over every allocation a select can make bounds
 * the block it needs: the select, the compiled paths (bounded by their
 * length: each step, predicate, test and path takes a character at least),
 * and the buffers under max_state and under max_held, whose capacities never
 * add up to more than their budget (each doubles, then takes at most one
 * step to what is left: three times the budget in all). */

#define SEL_ALLOC_COST 64u /* a chunk's header, its rounding, a remainder too small to split off */
#define SEL_MAX_LIMIT (SIZE_MAX / 16)

/* Every allocation of a buffer that doubles from 64 bytes to n. */
static size_t sel_grow_cost(size_t n) {
    size_t sum = 0;
    for (size_t cap = 64;; cap *= 2) {
        sum += cap + SEL_ALLOC_COST;
        if (cap >= n) return sum;
    }
}

/* Every allocation of nbufs buffers under a budget of max bytes. */
static size_t sel_budget_cost(size_t max, size_t nbufs) {
    size_t steps = 2;
    for (size_t cap = 64; cap < max; cap *= 2) steps++;
    return 3 * max + nbufs * steps * SEL_ALLOC_COST;
}

/* What the document's buffers may take: the state, the output, the writers
 * (xpred: and the eight buffers of predicates on content, under max_held). */
static size_t sel_runtime_cost(const stax_select_options *o, int xpred) {
    return sel_budget_cost(o->max_state, 5) + sel_budget_cost(o->max_held, xpred ? 12 : 4) +
           (o->max_held / (STAX_WRITER_MIN_MEMORY + 2048u) + 1) * SEL_ALLOC_COST; /* writers, of any xml_memory */
}

/* The select, its copy of the paths (len bytes) and URIs, and the program. */
static size_t sel_program_cost(const stax_select_options *o, size_t len) {
    size_t text = len + 1 + SEL_ALLOC_COST, steps = len + 2;
    for (size_t k = 0; (o->flags & STAX_SELECT_NAMESPACES) && o->ns && k < o->ns_count; k++) text += o->ns[2 * k + 1].len;
    return 64 + sizeof(stax_select) + SEL_ALLOC_COST + text + sel_grow_cost(steps * sizeof(sel_step)) +
           sel_grow_cost(len * sizeof(sel_pred)) + sel_grow_cost(len * sizeof(sel_test)) +
           sel_grow_cost((len + 1) * sizeof(sel_query)) + sel_grow_cost((steps + len + 1) * sizeof(uint32_t)) +
           sel_grow_cost((len + 1) * sizeof(uint64_t)) + sel_grow_cost(steps * sizeof(uint64_t)) + sel_grow_cost(steps) +
           sel_grow_cost((len + 1) * 2 * sizeof(size_t)) + sel_grow_cost(steps * sizeof(uint32_t)) +
           sel_grow_cost((len + 1) * sizeof(sel_x)) + sel_grow_cost((len + 1) * sizeof(sel_pp)) +
           sel_grow_cost((len + 1) * sizeof(sel_ps)) + sel_grow_cost((len + 1) * sizeof(uint32_t));
}

/* *o with its zero fields set (in a fixed block, from the block's size);
 * 0, or the reason it cannot work (*st: STAX_E_USAGE or STAX_E_NOMEM). */
static const char *sel_options(const stax_select_options *opt, stax_select_options *o, int *st) {
    if (opt) *o = *opt;
    else memset(o, 0, sizeof *o);
    *st = STAX_E_USAGE;
    if (o->flags & ~(unsigned)(STAX_SELECT_NAMESPACES | STAX_SELECT_XML | STAX_SELECT_NO_VALUES | STAX_SELECT_ALL_MATCHES))
        return "unknown flags";
    if (o->join.len && !o->join.ptr) return "join is NULL with a length";
    if (o->max_depth > UINT32_MAX - 2) return "max_depth is above 4294967293";
    if (o->max_state > SEL_MAX_LIMIT || o->max_held > SEL_MAX_LIMIT) return "max_state or max_held is too large";
    if (o->xml_memory && o->xml_memory < STAX_WRITER_MIN_MEMORY + 2048u)
        return "xml_memory is below STAX_WRITER_MIN_MEMORY + 2048";
    if (!o->max_depth) o->max_depth = 1024;
    *st = STAX_E_NOMEM;
    if (!o->memory) {
        if (!o->max_held) o->max_held = (size_t)4 << 20;
        if (!o->max_state) o->max_state = (size_t)1 << 20;
        if (!o->xml_memory) o->xml_memory = (size_t)16 << 10;
        return NULL;
    }
    if (o->memory_size < STAX_SELECT_MIN_MEMORY) return "the fixed block is smaller than STAX_SELECT_MIN_MEMORY";
    /* block defaults: max_state a sixteenth of it, max_held an eighth, less
     * until they fit with an eighth left for the paths */
    size_t room = o->memory_size - o->memory_size / 8, set_state = o->max_state, set_held = o->max_held;
    size_t state = (size_t)1 << 20, held = (size_t)4 << 20;
    if (state > o->memory_size / 16) state = o->memory_size / 16;
    if (held > o->memory_size / 8) held = o->memory_size / 8;
    for (;;) {
        o->max_state = set_state ? set_state : state ? state : 1;
        o->max_held = set_held ? set_held : held ? held : 1;
        size_t xml = o->max_held / 4 < (size_t)16 << 10 ? o->max_held / 4 : (size_t)16 << 10;
        if (!opt || !opt->xml_memory) o->xml_memory = xml < STAX_WRITER_MIN_MEMORY + 2048u ? STAX_WRITER_MIN_MEMORY + 2048u : xml;
        if (sel_program_cost(o, 0) + sel_runtime_cost(o, 0) <= room || (state <= 1 && held <= 1)) break;
        state /= 2;
        held /= 2;
    }
    if (sel_program_cost(o, 0) + sel_runtime_cost(o, 0) > o->memory_size)
        return "the fixed block is too small for max_state and max_held (see stax_select_memory_size)";
    return NULL;
}

int stax_select_check_options(const stax_select_options *opt, const char **why) {
    stax_select_options o;
    int st;
    const char *w = sel_options(opt, &o, &st);
    if (why) *why = w ? w : "the options are usable";
    return w ? st : STAX_OK;
}

int stax_select_effective_options(const stax_select_options *opt, stax_select_options *out, const char **why) {
    stax_select_options o;
    int st = stax_select_check_options(opt, why), ignored;
    if (st == STAX_OK && out) {
        sel_options(opt, &o, &ignored);
        *out = o;
    }
    return out ? st : STAX_E_USAGE;
}

size_t stax_select_memory_size(const stax_select_options *opt, size_t paths_len) {
    stax_select_options o;
    int st;
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    o.memory = NULL; /* the allocator mode's defaults */
    if (sel_options(&o, &o, &st) || paths_len > SEL_MAX_LIMIT / 1024) return 0;
    return sel_program_cost(&o, paths_len) + sel_runtime_cost(&o, paths_len >= 3); /* (a[b]: 4) */
}

static int sel_has_xpred(const stax_select *s) {
    for (uint32_t k = 0; k < s->n_steps; k++)
        if (SEL_STEP(s, k).xpred) return 1;
    return 0;
}

/* A fixed block, once the paths are compiled: whether what they may take
 * next fits (then no later call runs out of memory: every failure is a limit). */
static int sel_block_check(stax_select *s) {
    if (!s->mem.block) return 0;
    size_t need = s->mem.peak + sel_runtime_cost(&s->opt, sel_has_xpred(s)), have = s->mem.skip + s->mem.block_size;
    if (need <= have) return 0;
    return sel_fail(s, STAX_E_NOMEM, "the fixed block (%zu bytes) is too small for these paths and limits: %zu bytes needed",
                    s->opt.memory_size, need);
}

stax_select *stax_select_new(const stax_select_options *opt) {
    stax_select_options o;
    int bad;
    if (sel_options(opt, &o, &bad)) return NULL;
    stax__mem m;
    if (o.memory) {
        if (stax__mem_init(&m, NULL, NULL, o.memory, o.memory_size)) return NULL;
    } else {
        stax__mem_init(&m, o.alloc, o.alloc_ud, NULL, 0);
    }
    stax_select *s = (stax_select *)stax__mem_alloc(&m, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    stax__err_init(&s->err, s->msg, sizeof s->msg);
    s->mem = m;
    s->opt = o;
    s->ns = (o.flags & STAX_SELECT_NAMESPACES) != 0;
    s->values = !(o.flags & STAX_SELECT_NO_VALUES);
    s->xml = s->values && (o.flags & STAX_SELECT_XML);
    s->all = (o.flags & STAX_SELECT_ALL_MATCHES) != 0;
    return s;
}

void stax_select_free(stax_select *s) {
    if (!s) return;
    sel_drop_output(s);
    sel_free_runtime(s); /* what the document grew; then what compiling made */
    stax__mem *m = &s->mem;
    stax__buf *bufs[] = {&s->steps, &s->preds, &s->tests, &s->queries, &s->succ,
                         &s->counts, &s->eval_epoch, &s->eval_ok, &s->colspan, &s->eval_pev,
                         &s->xs, &s->pps, &s->pss, &s->cmpx};
    for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++) stax__buf_free(m, bufs[k]);
    stax__mem_free(m, s->text, s->text_cap);
    stax__mem mm = s->mem;
    stax__mem_free(&mm, s, sizeof *s);
}

int stax_select_set_output(stax_select *s, stax_select_fn fn, void *ctx) {
    if (!s) return STAX_E_USAGE;
    s->fn = fn;
    s->fn_ctx = ctx;
    return STAX_OK;
}

int stax_select_status(const stax_select *s) { return s ? s->err.code : STAX_E_USAGE; }

const char *stax_select_message(const stax_select *s) {
    if (!s) return "no select";
    return s->err.msg[0] ? s->err.msg : stax_strerror(s->err.code);
}

size_t stax_select_paths(const stax_select *s) { return s ? s->n_paths : 0; }

size_t stax_select_columns(const stax_select *s) { return s && s->compiled ? s->n_cols : 0; }

stax_str stax_select_column_text(const stax_select *s, size_t column) {
    stax_str t = {NULL, 0};
    if (!s || !s->compiled || column >= s->n_cols) return t;
    size_t span[2];
    memcpy(span, s->colspan.ptr + column * sizeof span, sizeof span);
    t.ptr = s->text + span[0];
    t.len = span[1];
    return t;
}

/* ================================================================ save and resume (parts)
 *
 * The matching state between two events, when no match is open: the depth,
 * the text state, each open element's frame and position counters, the
 * candidates, and (STAX_SELECT_XML) the declarations in scope. Written field
 * by field, as 64-bit little-endian words (the scope's bytes as they are), so
 * that two selects in the same state write the same bytes. */

#define SEL_STATE_MAGIC 0x3274617473786174ull /* "tatsxt2" and a version byte */

/* The capacities the limits count, after the matching state: those of the
 * document's buffers (sel_runtime_buf), and the XML values' writer blocks.
 * They grow with what a select has read (by doubling, and never shrink), so
 * a resumed select that starts from them reaches a limit at the event the
 * original would have. STAX_SELECT_STATE_TAIL bytes. */
#define SEL_N_CAPS (SEL_N_RUNTIME + 1)

typedef struct sel_wr {
    unsigned char *p;
    size_t cap, len;
} sel_wr;

static void sel_wr_u64(sel_wr *w, uint64_t v) {
    if (w->len <= w->cap && w->cap - w->len >= 8)
        for (unsigned i = 0; i < 8; i++) w->p[w->len + i] = (unsigned char)(v >> (8 * i));
    w->len += 8;
}

static void sel_wr_bytes(sel_wr *w, const char *b, size_t n) {
    if (w->len <= w->cap && w->cap - w->len >= n && n) memcpy(w->p + w->len, b, n);
    w->len += n;
}

static uint64_t sel_flags_word(const stax_select *s) {
    return (uint64_t)s->ns | (uint64_t)s->xml << 1 | (uint64_t)s->values << 2 | (uint64_t)s->all << 3 |
           (uint64_t)s->n_cols << 8;
}

static void sel_wr_state(const stax_select *s, sel_wr *w) {
    size_t nc = SEL_N(s->cands, sel_cand);
    const uint64_t head[] = {SEL_STATE_MAGIC, s->n_steps, s->n_slots, sel_flags_word(s), s->depth, (uint64_t)s->in_text, nc};
    for (size_t k = 0; k < sizeof head / sizeof head[0]; k++) sel_wr_u64(w, head[k]);
    for (size_t j = 0; j < nc; j++) sel_wr_u64(w, SEL_AT(s->cands, sel_cand, j).step);
    for (uint32_t d = 0; d <= s->depth; d++) {
        const sel_frame *f = sel_frame_at(s, d);
        const uint64_t fields[] = {f->cand_off, f->cand_n, f->desc_off, f->desc_n, f->scope_len, f->names, f->desc_names,
                                   (uint64_t)f->owned | (uint64_t)f->has_attr << 8 | (uint64_t)f->has_text << 16 |
                                       (uint64_t)f->all_desc << 24 | (uint64_t)f->desc_attr << 32 |
                                       (uint64_t)f->desc_text << 40};
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) sel_wr_u64(w, fields[k]);
        for (uint32_t k = 0; k < s->n_slots; k++) {
            uint32_t n;
            memcpy(&n, s->counters.ptr + ((size_t)d * s->n_slots + k) * sizeof n, sizeof n);
            sel_wr_u64(w, n);
        }
    }
    sel_wr_u64(w, s->scope.len);
    for (size_t at = 0; at < s->scope.len;) { /* each declaration: its depth and lengths, then its bytes */
        sel_decl dc;
        memcpy(&dc, s->scope.ptr + at, sizeof dc);
        sel_wr_u64(w, dc.depth);
        sel_wr_u64(w, dc.nlen);
        sel_wr_u64(w, dc.vlen);
        sel_wr_bytes(w, s->scope.ptr + at + sizeof dc, dc.nlen + dc.vlen);
        at += sizeof dc + dc.nlen + dc.vlen;
    }
    for (size_t k = 0; k < SEL_N_RUNTIME; k++) sel_wr_u64(w, sel_runtime_buf((stax_select *)s, k)->cap);
    sel_wr_u64(w, s->wblocks);
}

int stax_select_save(const stax_select *s, void *buf, size_t cap, size_t *len) {
    if (!s || !len || (cap && !buf)) return STAX_E_USAGE;
    if (s->err.code) return s->err.code;
    if (!s->compiled) return STAX_E_USAGE;
    if (s->caps.len || s->queue.len || s->held.len || s->pend.len || s->colst.len || s->pevs.len) return STAX_E_NOSAVE;
    for (size_t j = 0; j < SEL_N(s->cands, sel_cand); j++)
        if (SEL_AT(s->cands, sel_cand, j).ctx) return STAX_E_NOSAVE; /* a record's columns */
    sel_wr w = {(unsigned char *)buf, cap, 0};
    sel_wr_state(s, &w);
    *len = w.len;
    return cap && cap < w.len ? STAX_E_FULL : STAX_OK;
}

typedef struct sel_rd {
    const unsigned char *p;
    size_t len, at;
    int bad;
} sel_rd;

static uint64_t sel_rd_u64(sel_rd *r) {
    uint64_t v = 0;
    if (r->bad || r->len - r->at < 8) {
        r->bad = 1;
        return 0;
    }
    for (unsigned i = 0; i < 8; i++) v |= (uint64_t)r->p[r->at + i] << (8 * i);
    r->at += 8;
    return v;
}

/* v read as a count of at most max (else the state is refused). */
static size_t sel_rd_size(sel_rd *r, uint64_t max) {
    uint64_t v = sel_rd_u64(r);
    if (v > max) r->bad = 1;
    return r->bad ? 0 : (size_t)v;
}

static int sel_refuse(stax_select *s, const char *why) { return sel_fail(s, STAX_E_CONTEXT, "select state refused: %s", why); }

/* The frame of depth d from r, checked against the nc candidates. */
static int sel_rd_frame(stax_select *s, sel_rd *r, uint32_t d, size_t nc) {
    sel_frame f;
    memset(&f, 0, sizeof f);
    f.cand_off = sel_rd_size(r, nc);
    f.cand_n = sel_rd_size(r, nc - f.cand_off);
    f.desc_off = sel_rd_size(r, nc);
    f.desc_n = sel_rd_size(r, nc - f.desc_off);
    f.scope_len = sel_rd_size(r, s->opt.max_state);
    f.names = sel_rd_u64(r);
    f.desc_names = sel_rd_u64(r);
    uint64_t b = sel_rd_u64(r);
    if (b & ~0x010101010101ull) r->bad = 1;
    f.owned = (unsigned char)(b & 1);
    f.has_attr = (unsigned char)(b >> 8 & 1);
    f.has_text = (unsigned char)(b >> 16 & 1);
    f.all_desc = (unsigned char)(b >> 24 & 1);
    f.desc_attr = (unsigned char)(b >> 32 & 1);
    f.desc_text = (unsigned char)(b >> 40 & 1);
    if (r->bad) return sel_refuse(s, "truncated or corrupt");
    if (sel_frame_reserve(s, d) || sel_frame_put(s, d, &f)) return s->err.code;
    for (uint32_t k = 0; k < s->n_slots; k++) {
        uint32_t n = (uint32_t)sel_rd_size(r, UINT32_MAX);
        if (sel_store(s, &s->counters, ((size_t)d * s->n_slots + k) * sizeof n, &n, sizeof n)) return s->err.code;
    }
    return r->bad ? sel_refuse(s, "truncated or corrupt") : 0;
}

static int sel_resume(stax_select *s, const void *buf, size_t len);

/* The capacities at the end of a state (its last STAX_SELECT_STATE_TAIL
 * bytes, at tail), given to the buffers of s, just reset: each buffer is
 * made that size at once, and the writer blocks put on the free list, so
 * that s grows from where the saving select was. Refused over max_state or max_held, and
 * where a buffer below 64 bytes (which only the last step to a limit
 * makes) would grow again; all zero: fresh buffers. */
static int sel_rd_caps(stax_select *s, const unsigned char *tail) {
    sel_rd r = {tail, STAX_SELECT_STATE_TAIL, 0, 0};
    size_t caps[SEL_N_CAPS], sum[2] = {0, 0};
    int small[2] = {0, 0};
    for (size_t k = 0; k < SEL_N_CAPS; k++) caps[k] = sel_rd_size(&r, SEL_MAX_LIMIT);
    for (size_t k = 0; k < SEL_N_RUNTIME; k++) {
        if (caps[k] && caps[k] < 64) small[k >= SEL_N_STATE] = 1;
        sum[k >= SEL_N_STATE] += caps[k];
    }
    if (r.bad) return sel_refuse(s, "truncated or corrupt");
    if (sum[0] > s->opt.max_state) return sel_refuse(s, "it needs more than max_state");
    size_t xm = s->opt.xml_memory ? s->opt.xml_memory : 1;
    if (sum[1] > s->opt.max_held || caps[SEL_N_CAPS - 1] > (s->opt.max_held - sum[1]) / xm)
        return sel_refuse(s, "it needs more than max_held");
    sum[1] += caps[SEL_N_CAPS - 1] * xm;
    if ((small[0] && sum[0] != s->opt.max_state) || (small[1] && sum[1] != s->opt.max_held))
        return sel_refuse(s, "truncated or corrupt");
    for (size_t k = 0; k < SEL_N_RUNTIME; k++) {
        stax__buf *b = sel_runtime_buf(s, k);
        if (!caps[k] || caps[k] == b->cap) continue; /* 0: as a new select's */
        if (caps[k] < b->len) return sel_refuse(s, "truncated or corrupt");
        void *p = stax__mem_realloc(&s->mem, b->ptr, b->cap, caps[k]);
        if (!p) return sel_nomem(s);
        b->ptr = (char *)p;
        b->cap = caps[k];
    }
    for (size_t k = 0; k < caps[SEL_N_CAPS - 1]; k++) {
        sel_wctx *x = (sel_wctx *)stax__mem_alloc(&s->mem, s->opt.xml_memory);
        if (!x) return sel_nomem(s);
        x->next_free = s->wfree;
        s->wfree = x;
        s->wblocks++;
    }
    return 0;
}

int stax_select_resume(stax_select *s, const void *buf, size_t len) {
    int st = sel_resume(s, buf, len);
    if (st == STAX_E_LIMIT_STATE) { /* a state over max_state is refused, as the header says */
        stax__err_clear(&s->err);
        st = sel_refuse(s, "it needs more than max_state");
    }
    return st;
}

static int sel_resume(stax_select *s, const void *buf, size_t len) {
    if (!s) return STAX_E_USAGE;
    if (!s->compiled || (len && !buf)) return sel_fail(s, STAX_E_USAGE, "stax_select_resume: no paths compiled, or no state");
    stax_select_reset(s);
    if (s->err.code) return s->err.code;
    sel_rd r = {(const unsigned char *)buf, len, 0, 0};
    if (sel_rd_u64(&r) != SEL_STATE_MAGIC || r.bad) return sel_refuse(s, "not a select state of this version");
    if (sel_rd_u64(&r) != s->n_steps || sel_rd_u64(&r) != s->n_slots || sel_rd_u64(&r) != sel_flags_word(s) || r.bad)
        return sel_refuse(s, "saved by a select with other paths or flags");
    if (len - r.at < STAX_SELECT_STATE_TAIL) return sel_refuse(s, "truncated or corrupt");
    len -= STAX_SELECT_STATE_TAIL; /* the matching state ends there */
    r.len = len;
    if (sel_rd_caps(s, r.p + len)) return s->err.code;
    uint32_t depth = (uint32_t)sel_rd_size(&r, s->opt.max_depth);
    uint64_t in_text = sel_rd_u64(&r);
    size_t nc = sel_rd_size(&r, (len - r.at) / 8);
    if (r.bad || in_text > 1) return sel_refuse(s, "truncated or corrupt");
    s->cands.len = 0;
    if (sel_state_reserve(s, &s->cands, nc * sizeof(sel_cand))) return s->err.code;
    for (size_t j = 0; j < nc; j++) {
        sel_cand c;
        memset(&c, 0, sizeof c);
        c.step = (uint32_t)sel_rd_size(&r, s->n_steps - 1);
        if (r.bad) return sel_refuse(s, "truncated or corrupt");
        if (sel_append(s, &s->cands, &c, sizeof c)) return s->err.code;
    }
    for (uint32_t d = 0; d <= depth; d++)
        if (sel_rd_frame(s, &r, d, nc)) return s->err.code;
    size_t scope = sel_rd_size(&r, s->opt.max_state);
    s->scope.len = 0;
    if (r.bad || sel_state_reserve(s, &s->scope, scope)) return r.bad ? sel_refuse(s, "truncated or corrupt") : s->err.code;
    while (s->scope.len < scope) {
        sel_decl dc;
        memset(&dc, 0, sizeof dc);
        dc.depth = (uint32_t)sel_rd_size(&r, depth);
        dc.nlen = sel_rd_size(&r, len);
        dc.vlen = sel_rd_size(&r, len);
        if (r.bad || len - r.at < dc.nlen + dc.vlen || scope - s->scope.len < sizeof dc + dc.nlen + dc.vlen)
            return sel_refuse(s, "truncated or corrupt");
        if (sel_append(s, &s->scope, &dc, sizeof dc) || sel_append(s, &s->scope, r.p + r.at, dc.nlen + dc.vlen))
            return s->err.code;
        r.at += dc.nlen + dc.vlen;
    }
    size_t hi = 0; /* the candidates the frames below hold: an owned frame's come after them */
    for (uint32_t d = 0; d <= depth; d++) {
        const sel_frame *f = sel_frame_at(s, d);
        if (f->scope_len > scope || (d && f->owned && f->cand_off < hi)) return sel_refuse(s, "truncated or corrupt");
        if (f->cand_off + f->cand_n > hi) hi = f->cand_off + f->cand_n;
        if (f->desc_off + f->desc_n > hi) hi = f->desc_off + f->desc_n;
    }
    if (r.at != len) return sel_refuse(s, "trailing bytes");
    s->depth = depth;
    s->in_text = (int)in_text;
    return STAX_OK;
}

uint64_t stax_select_count(const stax_select *s, size_t path) {
    uint64_t n = 0;
    if (s && s->compiled && path < s->n_paths) memcpy(&n, s->counts.ptr + path * sizeof n, sizeof n);
    return n;
}
#else
typedef int stax__select_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_SELECT */
