/* libFuzzer target for the stax writer.
 *
 * Input: a 4-byte header, then a program of writer calls.
 *   h[0] buffer_size: 64 + h0 * 8 (64..2104)
 *   h[1] bit 0 SELF_CLOSE, 1 indentation (width h[2] % 5), 2 the async run
 *        writes in a fixed block (the sync run uses the allocator; both have
 *        stack_size 64 + 16 * h[2], none for 0), 3 the synchronous run uses
 *        STAX_WRITE_BACKGROUND, 4 the async run copies every argument afresh
 *        before each retry, 5 STAX_WRITE_STICKY in every run, 6 the
 *        allocation-failure runs, 7 the number calls are in the op set
 *   h[2] see above
 *   h[3] seed of the async sink's PRNG; the fixed block's extra bytes
 *        (h3 % 64) and alignment (h3 / 64 * 5)
 * Each call: one opcode byte, then its strings. A string is a length byte L
 * then L bytes; L >= 0xF0 picks a word from a small dictionary instead
 * (names, namespace URIs, "]]>", "--", "?>", CR, ...). A number is such a
 * string read as up to 8 little-endian bytes; its 9th byte % 21 (else the
 * opcode's high part) gives a decimal's fraction digits (20: refused). A
 * text number call whose string has a 10th byte, odd, is the element form
 * (stax_writer_element_int, _uint, _dec), named by the dictionary's word
 * (that byte / 2) % 16: the opcodes stay those of the inputs kept before.
 *
 * The program runs twice:
 *   sync:  a sink that takes everything (optionally from a background thread);
 *          the element op is one stax_writer_element call (the element form
 *          of a number call one stax_writer_element_int, _uint or _dec)
 *   async: a sink that takes a random amount (often nothing, driven by the
 *          PRNG); every STAX_WOULD_BLOCK is answered by flushes, an intruding
 *          call (which must be refused with STAX_E_STATE / STAX_E_USAGE and
 *          change nothing), and the same call again; the element calls too
 *          (each is one call, repeated as any other)
 * and, with h[1] bit 6, once more for every k, with an allocator hook that
 * fails the k-th allocation or resize and checks the size every free and
 * resize passes, into the growable memory sink; and last as the sync run,
 * through one of the library's sinks or a sink that fails ((h0 + h3) % 6,
 * with h2 ^ h3 for its size or failure: run_sink).
 * Invariants (abort() when broken):
 *   - each call returns the same status in both runs, and finish too
 *   - the two outputs are byte for byte the same
 *   - when finish succeeded and no raw bytes or DOCTYPE subset were written,
 *     the stax reader accepts the output (whole, and byte by byte), and gives
 *     back the element names, the attributes (name and value, exactly; numbers
 *     as snprintf writes them) and, without indentation, the character data
 *     that was written
 *   - a refused call (negative status other than a sticky error) writes
 *     nothing: stax_writer_bytes_produced does not move; bytes_produced never
 *     goes back and is never below bytes_out, and both equal the bytes the
 *     sink took after finish
 *   - stax_writer_first_error is the first negative status a call returned;
 *     with STAX_WRITE_STICKY every later call returns it; the message is
 *     empty exactly when every call returned STAX_OK; it describes the last
 *     call that did not: after a refusal it names the call
 *     ("stax_writer_attr_int: ..."), after STAX_WOULD_BLOCK it says the sink
 *     would block, a call that returns STAX_OK leaves it as it was, and a
 *     sticky error keeps the message it had when it became sticky
 *   - stax_writer_depth follows start/end
 *   - the sinks' run: the sync run's statuses up to the sink's failure, its
 *     status sticky from there, and the start of the sync run's output in
 *     the sink (all of it when nothing failed)
 *   - allocation failure: no leak, every free and resize with the allocated
 *     size, the statuses those of the sync run up to the first STAX_E_NOMEM,
 *     and the output the sync run's (up to that point)
 */
#include "stax.h"
#include "../sized_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz_writer: invariant failed: %s (%s:%d)\n", #cond, \
                    __FILE__, __LINE__);                                          \
            fprintf(stderr, __VA_ARGS__);                                         \
            fprintf(stderr, "\n");                                                \
            abort();                                                              \
        }                                                                         \
    } while (0)

static int dump;

/* ---------------------------------------------------------------- buffers */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->len + n) c *= 2;
        b->p = realloc(b->p, c);
        if (!b->p) abort();
        b->cap = c;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* ---------------------------------------------------------------- program */

enum {
    OP_START, OP_ATTR, OP_TEXT, OP_CDATA, OP_COMMENT, OP_PI, OP_END, OP_RAW, OP_FLUSH,
    OP_NS, OP_XMLDECL, OP_DOCTYPE, OP_ELEMENT, OP_COUNT,
    /* with h[1] bit 7 */
    OP_ATTR_INT = OP_COUNT, OP_ATTR_UINT, OP_ATTR_DEC, OP_TEXT_INT, OP_TEXT_UINT, OP_TEXT_DEC, OP_COUNT_EXT
};
static const char *const op_names[OP_COUNT_EXT] = {"start",   "attr",     "text",     "cdata",    "comment",
                                                   "pi",      "end",      "raw",      "flush",    "ns",
                                                   "xml_decl", "doctype", "element",  "attr_int", "attr_uint",
                                                   "attr_dec", "text_int", "text_uint", "text_dec"};

typedef struct op {
    int code;
    stax_str s[4];
    unsigned arg;
    uint64_t num; /* the number calls' value */
    int elem;     /* a text number call in its element form, named s[1] */
} op;

static const char *const dict[16] = {"a",      "b:c",   "xmlns", "xml",  "urn:x", "http://www.w3.org/XML/1998/namespace",
                                     "]]>",    "--",    "?>",    "\r\n", "\xc3\xa9t\xc3\xa9", "&<>\"'\t",
                                     "UTF-8",  "1.0",   "x-",    " \n\t"};

typedef struct prog {
    op *ops;
    size_t n, cap;
} prog;

static stax_str take_str(const uint8_t **p, const uint8_t *e) {
    stax_str s = {"", 0};
    if (*p >= e) return s;
    unsigned l = *(*p)++;
    if (l >= 0xF0) {
        const char *z = dict[l - 0xF0];
        s.ptr = z;
        s.len = strlen(z);
        return s;
    }
    if ((size_t)(e - *p) < l) l = (unsigned)(e - *p);
    s.ptr = (const char *)*p;
    s.len = l;
    *p += l;
    return s;
}

static void parse_prog(const uint8_t *p, const uint8_t *e, prog *g, int numbers) {
    int nops = numbers ? OP_COUNT_EXT : OP_COUNT;
    while (p < e && g->n < 4096) {
        op o;
        memset(&o, 0, sizeof o);
        uint8_t c = *p++;
        o.code = c % nops;
        o.arg = c / nops;
        int ns = 0;
        switch (o.code) {
        case OP_START: case OP_TEXT: case OP_CDATA: case OP_COMMENT: case OP_RAW: ns = 1; break;
        case OP_ATTR: case OP_PI: case OP_NS: case OP_ELEMENT: ns = 2; break;
        case OP_XMLDECL: ns = 2; break;
        case OP_DOCTYPE: ns = 4; break;
        case OP_ATTR_INT: case OP_ATTR_UINT: case OP_ATTR_DEC: ns = 2; break;
        case OP_TEXT_INT: case OP_TEXT_UINT: case OP_TEXT_DEC: ns = 1; break;
        default: ns = 0;
        }
        for (int i = 0; i < ns; i++) o.s[i] = take_str(&p, e);
        if (o.code >= OP_ATTR_INT) {
            /* the value: the last string's bytes, little-endian */
            stax_str v = o.s[ns - 1];
            for (size_t i = 0; i < v.len && i < 8; i++) o.num |= (uint64_t)(unsigned char)v.ptr[i] << (8 * i);
            if (o.code >= OP_TEXT_INT && v.len >= 10 && (v.ptr[9] & 1)) {
                const char *z = dict[((unsigned char)v.ptr[9] >> 1) & 15];
                o.elem = 1;
                o.s[1].ptr = z;
                o.s[1].len = strlen(z);
            }
        }
        if (g->n == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 64;
            g->ops = realloc(g->ops, g->cap * sizeof *g->ops);
            if (!g->ops) abort();
        }
        g->ops[g->n++] = o;
    }
}

/* ---------------------------------------------------------------- sinks */

typedef struct sink {
    buf out;
    int async;
    uint64_t rng;
    unsigned zeros; /* consecutive calls that took nothing */
    size_t max_offer, buffer_size;
} sink;

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static ptrdiff_t sink_write(void *ctx, const void *data, size_t len) {
    sink *k = ctx;
    CHECK(len > 0, "the sink was offered 0 bytes");
    CHECK(len <= k->buffer_size, "the sink was offered %zu bytes, buffer_size %zu", len, k->buffer_size);
    /* read every byte offered (ASan) */
    volatile unsigned char x = 0;
    for (size_t i = 0; i < len; i++) x ^= ((const unsigned char *)data)[i];
    (void)x;
    size_t n = len;
    if (k->async) {
        uint64_t r = rng_next(&k->rng);
        switch (r & 3) {
        case 0: n = 0; break;
        case 1: n = (size_t)((r >> 8) % (len + 1)); break;
        case 2: n = (size_t)((r >> 8) % 8); if (n > len) n = len; break;
        default: n = len;
        }
        if (n == 0 && ++k->zeros > 6) n = len; /* progress, eventually */
        if (n) k->zeros = 0;
    }
    buf_add(&k->out, data, n);
    return (ptrdiff_t)n;
}

/* ---------------------------------------------------------------- runs */

typedef struct config {
    size_t buffer_size;
    unsigned flags;
    unsigned indent;
    int fixed; /* the async run writes in a fixed block */
    size_t stack_size;
    size_t block_extra, block_skew;
    int background;
    int fresh_copies;
    int alloc_fail;
    uint64_t seed;
} config;

typedef struct outcome {
    int *st;       /* per op */
    int finish;
    int flush;     /* the final flush, before finish */
    buf out;
    int unchecked; /* raw bytes or a subset were written */
    /* what the reader should give back */
    buf names;     /* START names, each preceded by its length (size_t) */
    buf attrs;     /* per START: count, then name/value pairs, length-prefixed */
    buf chars;     /* character data written inside the root */
    size_t starts;
} outcome;

static void add_lp(buf *b, stax_str s) {
    buf_add(b, &s.len, sizeof s.len);
    buf_add(b, s.ptr, s.len);
}

static int is_sticky(int st) { return st == STAX_E_IO || st == STAX_E_FULL; }

static stax_str copy_str(stax_str s, char **hold) {
    *hold = malloc(s.len ? s.len : 1);
    if (!*hold) abort();
    if (s.len) memcpy(*hold, s.ptr, s.len);
    stax_str c = {*hold, s.len};
    return c;
}

/* A decimal's fraction digits (20: refused): the value string's 9th byte
 * % 21 when it has one, else the opcode's high part. */
static unsigned op_frac(const op *o) {
    stax_str v = o->s[o->code == OP_ATTR_DEC ? 1 : 0];
    return (v.len > 8 ? (unsigned char)v.ptr[8] : o->arg) % 21;
}

/* What a number call writes, as snprintf writes it; len 0 when refused. */
static stax_str ref_number(const op *o, char *b, size_t cap) {
    stax_str r = {b, 0};
    int k = 0;
    int64_t v = (int64_t)o->num;
    switch (o->code) {
    case OP_ATTR_INT: case OP_TEXT_INT: k = snprintf(b, cap, "%" PRId64, v); break;
    case OP_ATTR_UINT: case OP_TEXT_UINT: k = snprintf(b, cap, "%" PRIu64, o->num); break;
    default: {
        unsigned f = op_frac(o);
        if (f > 19) return r;
        uint64_t mag = v < 0 ? (uint64_t)0 - o->num : o->num, p = 1;
        for (unsigned i = 0; i < f; i++) p *= 10;
        k = f ? snprintf(b, cap, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", mag / p, (int)f, mag % p)
              : snprintf(b, cap, "%s%" PRIu64, v < 0 ? "-" : "", mag);
    }
    }
    r.len = (size_t)k;
    return r;
}

static int call_op(stax_writer *w, const op *o, stax_str *s) {
    switch (o->code) {
    case OP_START: return stax_writer_start(w, s[0]);
    case OP_ATTR: return stax_writer_attr(w, s[0], s[1]);
    case OP_TEXT: return stax_writer_text(w, s[0]);
    case OP_CDATA: return stax_writer_cdata(w, s[0]);
    case OP_COMMENT: return stax_writer_comment(w, s[0]);
    case OP_PI: return stax_writer_pi(w, s[0], s[1]);
    case OP_END: return stax_writer_end(w);
    case OP_RAW: return stax_writer_raw(w, s[0]);
    case OP_FLUSH: return stax_writer_flush(w);
    case OP_NS: return stax_writer_ns(w, s[0], s[1]);
    case OP_XMLDECL: {
        unsigned sa = o->arg % 3 == 0 ? 0 : o->arg % 3 == 1 ? STAX_EVF_STANDALONE_YES : STAX_EVF_STANDALONE_NO;
        if (o->arg == 13) sa = 0x40; /* bad value (the highest arg with the number calls too) */
        return stax_writer_xml_decl(w, s[0], s[1], sa);
    }
    case OP_DOCTYPE: return stax_writer_doctype(w, s[0], s[1], s[2], s[3]);
    case OP_ELEMENT: return stax_writer_element(w, s[0], s[1]);
    case OP_ATTR_INT: return stax_writer_attr_int(w, s[0], (int64_t)o->num);
    case OP_ATTR_UINT: return stax_writer_attr_uint(w, s[0], o->num);
    case OP_ATTR_DEC: return stax_writer_attr_dec(w, s[0], (int64_t)o->num, op_frac(o));
    case OP_TEXT_INT:
        return o->elem ? stax_writer_element_int(w, s[1], (int64_t)o->num) : stax_writer_text_int(w, (int64_t)o->num);
    case OP_TEXT_UINT: return o->elem ? stax_writer_element_uint(w, s[1], o->num) : stax_writer_text_uint(w, o->num);
    case OP_TEXT_DEC:
        return o->elem ? stax_writer_element_dec(w, s[1], (int64_t)o->num, op_frac(o))
                       : stax_writer_text_dec(w, (int64_t)o->num, op_frac(o));
    }
    return STAX_E_USAGE;
}

/* The state a run tracks about its writer, checked after every call. */
typedef struct watch {
    int first;  /* the first negative status a call returned */
    int sticky; /* STAX_WRITE_STICKY */
    int noted;  /* a call returned something other than STAX_OK */
    char sticky_msg[128]; /* the message when the writer became sticky ("" before) */
} watch;

/* The public function an op calls, as the message names it. */
static const char *call_name(const op *o) {
    static const char *const elem[3] = {"element_int", "element_uint", "element_dec"};
    return o->elem ? elem[o->code - OP_TEXT_INT] : op_names[o->code];
}

/* st came back from the call `name`: st itself, or a call that returned
 * STAX_OK, left the message `before` as it was; a refusal names the call. */
static void check_message(stax_writer *w, const char *name, int st, const char *before) {
    const char *m = stax_writer_message(w);
    if (st == STAX_OK) {
        CHECK(strcmp(m, before) == 0, "%s returned STAX_OK but the message changed: \"%s\" -> \"%s\"", name, before, m);
    } else if (st == STAX_WOULD_BLOCK) {
        CHECK(strncmp(m, "stax_writer_", 12) == 0 && strncmp(m + 12, name, strlen(name)) == 0 && strstr(m, "would block"),
              "%s: STAX_WOULD_BLOCK with the message \"%s\"", name, m);
    }
}

/* One call, its message checked. */
static int call_checked(stax_writer *w, const op *o, stax_str *s, watch *wt) {
    char before[128];
    snprintf(before, sizeof before, "%s", stax_writer_message(w));
    int st = call_op(w, o, s);
    check_message(w, call_name(o), st, before);
    if (st != STAX_OK) wt->noted = 1;
    return st;
}

/* Async: repeat the call until it is not STAX_WOULD_BLOCK. Intruding calls
 * (refused: they count as errors) only without STAX_WRITE_STICKY, where they
 * would stop the run. */
static int call_retry(stax_writer *w, const config *c, const op *o, stax_str *s, sink *k, watch *wt) {
    int st = call_checked(w, o, s, wt);
    int rounds = 0, intrude = !(c->flags & STAX_WRITE_STICKY);
    while (st == STAX_WOULD_BLOCK) {
        CHECK(++rounds < 100000, "%s: STAX_WOULD_BLOCK forever", op_names[o->code]);
        if (dump) fprintf(stderr, "  (%s: STAX_WOULD_BLOCK)\n", op_names[o->code]);
        uint64_t r = rng_next(&k->rng);
        if ((r & 3) == 0 && o->code != OP_FLUSH) {
            int f = stax_writer_flush(w);
            if (f != STAX_OK) wt->noted = 1;
            CHECK(f == STAX_OK || f == STAX_WOULD_BLOCK || is_sticky(f), "flush while blocked: %d", f);
            if (f != STAX_OK && f != STAX_WOULD_BLOCK) return f;
        }
        if (intrude && (r & 12) == 0 && o->code != OP_END && o->code != OP_FLUSH) {
            /* another call while one is unfinished: refused, nothing changes */
            uint64_t p0 = stax_writer_bytes_produced(w);
            int x = stax_writer_end(w);
            CHECK(x == STAX_E_STATE || is_sticky(x), "end during a blocked %s: %d", op_names[o->code], x);
            CHECK(is_sticky(x) || stax_writer_bytes_produced(w) == p0, "a refused end wrote");
            if (!wt->first) wt->first = x;
        }
        if (intrude && (r & 48) == 0 && o->code == OP_TEXT && s[0].len > 0) {
            stax_str shorter = {s[0].ptr, s[0].len - 1};
            int x = stax_writer_text(w, shorter);
            CHECK(x == STAX_E_USAGE || is_sticky(x), "the blocked text retried with another length: %d", x);
            if (!wt->first) wt->first = x;
        }
        if (intrude && (r & 48) == 32 && o->code == OP_ELEMENT && s[1].len > 0) {
            stax_str shorter = {s[1].ptr, s[1].len - 1};
            int x = stax_writer_element(w, s[0], shorter);
            CHECK(x == STAX_E_USAGE || is_sticky(x), "the blocked element retried with another text: %d", x);
            CHECK(is_sticky(x) || strstr(stax_writer_message(w), "stax_writer_element: other arguments"),
                  "the blocked element retried: message \"%s\"", stax_writer_message(w));
            if (!wt->first) wt->first = x;
        }
        if (intrude && (r & 48) == 16 && o->code >= OP_ATTR_INT && o->code != OP_TEXT_DEC && o->code != OP_ATTR_DEC) {
            op other = *o;
            other.num ^= 1; /* the same length, another value */
            int x = call_op(w, &other, s);
            CHECK(x == STAX_E_USAGE || is_sticky(x), "the blocked %s retried with another value: %d", op_names[o->code],
                  x);
            if (!wt->first) wt->first = x;
        }
        char *hold[4] = {NULL, NULL, NULL, NULL};
        stax_str t[4] = {s[0], s[1], s[2], s[3]};
        if (c->fresh_copies)
            for (int i = 0; i < 4; i++) t[i] = copy_str(s[i], &hold[i]);
        st = call_checked(w, o, t, wt);
        for (int i = 0; i < 4; i++) {
            if (hold[i]) memset(hold[i], 0x5A, s[i].len ? s[i].len : 1); /* the writer may not keep them */
            free(hold[i]);
        }
    }
    return st;
}

/* The writer options of a run. */
static stax_writer_options run_options(const config *c, int background) {
    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.buffer_size = c->buffer_size;
    wo.stack_size = c->stack_size;
    wo.flags = c->flags | (background ? STAX_WRITE_BACKGROUND : 0);
    wo.indent_width = c->indent;
    return wo;
}

static void watch_call(watch *wt, stax_writer *w, const char *what, int st, int status_before, uint64_t p0,
                       uint64_t p1) {
    if (st < 0 && !wt->first) wt->first = st;
    if (st != STAX_OK) wt->noted = 1;
    CHECK(stax_writer_first_error(w) == wt->first, "%s: first_error %d, expected %d", what,
          stax_writer_first_error(w), wt->first);
    const char *m = stax_writer_message(w);
    CHECK((m[0] != 0) == (wt->noted != 0), "%s: message \"%s\" after %s", what, m,
          wt->noted ? "a call that did not return STAX_OK" : "none but STAX_OK");
    /* a refusal (the writer not stopped before it) names the call; a sticky
     * status keeps the message it came with */
    int now = stax_writer_status(w);
    if (st < 0 && status_before == STAX_OK && (now == STAX_OK || (wt->sticky && now == st && !is_sticky(st))) &&
        st != STAX_E_INTERNAL) {
        size_t n = strlen(what);
        CHECK(strncmp(m, "stax_writer_", 12) == 0 && strncmp(m + 12, what, n) == 0 && m[12 + n] == ':',
              "%s refused with %d: message \"%s\"", what, st, m);
    }
    if (now != STAX_OK && !wt->sticky_msg[0]) snprintf(wt->sticky_msg, sizeof wt->sticky_msg, "%s", m);
    if (now != STAX_OK && st == now && status_before == now)
        CHECK(strcmp(m, wt->sticky_msg) == 0, "%s: the sticky %d with the message \"%s\", it came with \"%s\"", what,
              st, m, wt->sticky_msg);
    if (wt->sticky && wt->first) CHECK(st == wt->first, "%s: %d after the sticky %d", what, st, wt->first);
    CHECK(p1 >= p0, "%s: bytes_produced went back", what);
    CHECK(p1 >= stax_writer_bytes_out(w), "%s: produced %llu < out %llu", what, (unsigned long long)p1,
          (unsigned long long)stax_writer_bytes_out(w));
    /* a refusal writes nothing (sink errors may have written part of the call) */
    if (st < 0 && !is_sticky(st) && st != STAX_E_INTERNAL && status_before == STAX_OK)
        CHECK(p1 == p0, "%s: refused with %d but bytes_produced moved %llu -> %llu", what, st, (unsigned long long)p0,
              (unsigned long long)p1);
}

static void run(const config *c, const prog *g, int async, outcome *oc) {
    memset(oc, 0, sizeof *oc);
    oc->st = calloc(g->n + 1, sizeof *oc->st);
    if (!oc->st) abort();
    stax_writer_options wo = run_options(c, !async && c->background);
    void *block = NULL;
    if (async && c->fixed) {
        /* a block of what the options need, and some, anywhere */
        /* stack_size 0: the stack is what the block leaves, made more than any
         * program can use, as with the allocator (no limit) */
        size_t size = stax_writer_memory_size(&wo) + c->block_extra + (c->stack_size ? 0 : (size_t)1 << 16);
        CHECK(size > c->block_extra, "memory_size refused the options");
        block = malloc(size + 16);
        if (!block) abort();
        wo.memory = (char *)block + c->block_skew;
        wo.memory_size = size;
    }
    const char *why = NULL;
    CHECK(stax_writer_check_options(&wo, &why) == STAX_OK, "check_options: %s", why);
    stax_writer *w = stax_writer_new(&wo);
    CHECK(w != NULL, "stax_writer_new failed (buffer %zu, fixed %d)", c->buffer_size, c->fixed);
    CHECK(!c->stack_size || stax_writer_stack_room(w) == c->stack_size, "stack room %zu, stack_size %zu",
          stax_writer_stack_room(w),
          c->stack_size);
    sink k;
    memset(&k, 0, sizeof k);
    k.async = async;
    k.rng = c->seed * 0x9E3779B97F4A7C15ull + 1;
    k.buffer_size = c->buffer_size;
    CHECK(stax_writer_set_sink(w, sink_write, &k) == STAX_OK, "set_sink");
    watch wt = {0, (c->flags & STAX_WRITE_STICKY) != 0, 0, ""};
    CHECK(stax_writer_first_error(w) == STAX_OK && stax_writer_message(w)[0] == 0, "an error before any call");
    uint32_t depth = 0;
    for (size_t i = 0; i < g->n; i++) {
        const op *o = &g->ops[i];
        stax_str s[4] = {o->s[0], o->s[1], o->s[2], o->s[3]};
        uint32_t d0 = stax_writer_depth(w);
        CHECK(d0 == depth, "stax_writer_depth %u, expected %u", d0, depth);
        int st, before = stax_writer_status(w);
        uint64_t p0 = stax_writer_bytes_produced(w);
        if (!async) {
            st = call_checked(w, o, s, &wt);
            CHECK(st != STAX_WOULD_BLOCK, "%s: STAX_WOULD_BLOCK from a blocking sink", op_names[o->code]);
        } else {
            st = call_retry(w, c, o, s, &k, &wt);
        }
        oc->st[i] = st;
        if (dump) fprintf(stderr, "  %s -> %d\n", op_names[o->code], st);
        watch_call(&wt, w, call_name(o), st, before, p0, stax_writer_bytes_produced(w));
        if (st == STAX_OK) {
            char nb[64];
            switch (o->code) {
            case OP_START:
                depth++;
                add_lp(&oc->names, s[0]);
                oc->starts++;
                add_lp(&oc->attrs, (stax_str){"", 0}); /* marks a new START */
                break;
            case OP_ATTR: add_lp(&oc->attrs, s[0]); add_lp(&oc->attrs, s[1]); break;
            case OP_ATTR_INT: case OP_ATTR_UINT: case OP_ATTR_DEC:
                add_lp(&oc->attrs, s[0]);
                add_lp(&oc->attrs, ref_number(o, nb, sizeof nb));
                break;
            case OP_TEXT_INT: case OP_TEXT_UINT: case OP_TEXT_DEC: {
                stax_str t = ref_number(o, nb, sizeof nb);
                CHECK(t.len > 0, "%s accepted a refused fraction", op_names[o->code]);
                if (o->elem) { /* an element of its own, as OP_ELEMENT */
                    add_lp(&oc->names, s[1]);
                    oc->starts++;
                    add_lp(&oc->attrs, (stax_str){"", 0});
                    buf_add(&oc->chars, t.ptr, t.len);
                } else if (d0 > 0) {
                    buf_add(&oc->chars, t.ptr, t.len);
                }
                break;
            }
            case OP_NS: {
                char nm[300];
                size_t n = 0;
                memcpy(nm, "xmlns", 5);
                n = 5;
                if (s[0].len) {
                    nm[n++] = ':';
                    size_t l = s[0].len < 290 ? s[0].len : 290;
                    memcpy(nm + n, s[0].ptr, l);
                    n += l;
                }
                add_lp(&oc->attrs, (stax_str){nm, n});
                add_lp(&oc->attrs, s[1]);
                break;
            }
            case OP_END: depth--; break;
            case OP_TEXT: if (d0 > 0) buf_add(&oc->chars, s[0].ptr, s[0].len); break;
            case OP_CDATA: buf_add(&oc->chars, s[0].ptr, s[0].len); break;
            case OP_RAW: if (s[0].len) oc->unchecked = 1; break;
            case OP_DOCTYPE: if (s[3].len) oc->unchecked = 1; break;
            case OP_ELEMENT:
                add_lp(&oc->names, s[0]);
                oc->starts++;
                add_lp(&oc->attrs, (stax_str){"", 0});
                buf_add(&oc->chars, s[1].ptr, s[1].len);
                break;
            default: break;
            }
        } else if (o->code >= OP_ATTR_INT && st >= 0) {
            CHECK(0, "number call: %d", st);
        }
        if (is_sticky(st)) break;
    }
    /* flush in both runs: finish does not flush when it fails (no root) */
    int f = async ? call_retry(w, c, &(op){OP_FLUSH, {{0}}, 0, 0, 0}, (stax_str[4]){{0}}, &k, &wt)
                  : stax_writer_flush(w);
    oc->flush = f;
    int st = stax_writer_finish(w);
    int rounds = 0;
    while (st == STAX_WOULD_BLOCK) {
        CHECK(async, "finish: STAX_WOULD_BLOCK from a blocking sink");
        CHECK(++rounds < 100000, "finish: STAX_WOULD_BLOCK forever");
        st = stax_writer_finish(w);
    }
    oc->finish = st;
    if (wt.sticky && wt.first) CHECK(st == wt.first && f == wt.first, "sticky: flush %d, finish %d, first %d", f, st, wt.first);
    if (st == STAX_OK) {
        CHECK(stax_writer_depth(w) == 0, "depth %u after finish", stax_writer_depth(w));
        CHECK(stax_writer_bytes_out(w) == k.out.len, "bytes_out %llu, the sink took %zu",
              (unsigned long long)stax_writer_bytes_out(w), k.out.len);
        CHECK(stax_writer_bytes_produced(w) == k.out.len, "bytes_produced %llu, the sink took %zu",
              (unsigned long long)stax_writer_bytes_produced(w), k.out.len);
        CHECK(stax_writer_finish(w) == STAX_OK, "finish twice");
        CHECK(stax_writer_text(w, (stax_str){" ", 1}) == STAX_E_STATE, "output after finish");
    }
    CHECK(stax_writer_memory_peak(w) >= stax_writer_memory_size(&(stax_writer_options){
                                            .buffer_size = c->buffer_size, .stack_size = 64, .indent_width = c->indent,
                                            .flags = wo.flags}),
          "memory_peak below the smallest block");
    (void)stax_writer_status(w);
    (void)stax_writer_errno(w);
    (void)stax_writer_stack_room(w);
    stax_writer_free(w);
    free(block);
    oc->out = k.out;
}

/* ---------------------------------------------------------------- allocation failure */

/* The program into the growable memory sink with the
 * k-th allocation failing. Until the first STAX_E_NOMEM every status is the
 * sync run's, and so is the output up to there. Returns the calls made. */
static long run_alloc_fail(const config *c, const prog *g, const outcome *ref, long k) {
    sized_alloc h;
    memset(&h, 0, sizeof h);
    h.fail_at = k;
    stax_writer_options wo = run_options(c, 0);
    wo.alloc = sized_alloc_hook;
    wo.alloc_ud = &h;
    stax_writer *w = stax_writer_new(&wo);
    if (!w) {
        CHECK(h.failed, "stax_writer_new failed without an allocation failure");
        CHECK(h.nlive == 0 && !h.wrong[0], "stax_writer_new: %d blocks leak; %s", h.nlive, h.wrong);
        return h.calls;
    }
    CHECK(stax_writer_set_memory(w, NULL, 0) == STAX_OK, "set_memory");
    int same = 1;
    uint64_t agreed = 0; /* bytes produced while the runs agreed */
    for (size_t i = 0; i < g->n; i++) {
        const op *o = &g->ops[i];
        stax_str s[4] = {o->s[0], o->s[1], o->s[2], o->s[3]};
        int st = call_op(w, o, s);
        if (same && st != ref->st[i]) {
            CHECK(st == STAX_E_NOMEM && h.failed, "call %zu (%s): %d, the sync run %d, no allocation failed there", i,
                  op_names[o->code], st, ref->st[i]);
            same = 0;
        }
        if (same) agreed = stax_writer_bytes_produced(w);
        if (stax_writer_status(w) != STAX_OK && !(c->flags & STAX_WRITE_STICKY)) break;
    }
    int f = stax_writer_flush(w), fin = stax_writer_finish(w);
    if (same) {
        CHECK(f == ref->flush || (f == STAX_E_NOMEM && h.failed), "final flush %d, the sync run %d", f, ref->flush);
        CHECK(fin == ref->finish || (fin == STAX_E_NOMEM && h.failed), "finish %d, the sync run %d", fin, ref->finish);
    }
    stax_str m = stax_writer_memory(w);
    size_t n = m.len < agreed ? m.len : (size_t)agreed;
    CHECK(n <= ref->out.len && (n == 0 || memcmp(m.ptr, ref->out.p, n) == 0), "output differs from the sync run's");
    if (same && fin == STAX_OK) CHECK(m.len == ref->out.len, "output length %zu, the sync run's %zu", m.len, ref->out.len);
    stax_writer_free(w);
    CHECK(h.nlive == 0, "%d blocks leak", h.nlive);
    CHECK(!h.wrong[0], "allocator contract: %s", h.wrong);
    return h.calls;
}

/* ---------------------------------------------------------------- the library's sinks, failing sinks */

/* A callback sink that takes everything up to budget bytes, then fails as
 * how says: 0 STAX_E_IO, 1 a negative number that is no status (-1000: the
 * writer makes it STAX_E_IO), 2 a short count (what is left of the budget;
 * STAX_E_IO when nothing is), 3 STAX_E_FULL. */
typedef struct fail_sink {
    buf out;
    size_t budget;
    unsigned how;
} fail_sink;

static ptrdiff_t fail_write(void *ctx, const void *data, size_t len) {
    fail_sink *k = ctx;
    CHECK(len > 0, "the sink was offered 0 bytes");
    size_t room = k->budget - k->out.len;
    if (len <= room) {
        buf_add(&k->out, data, len);
        return (ptrdiff_t)len;
    }
    switch (k->how) {
    case 0: return STAX_E_IO;
    case 1: return -1000;
    case 2:
        if (!room) return STAX_E_IO;
        buf_add(&k->out, data, room);
        return (ptrdiff_t)room;
    default: return STAX_E_FULL;
    }
}

static const char *const sink_names[6] = {"fixed memory", "failing callback", "FILE* (open_memstream)", "fd (tmpfile)",
                                          "fd (/dev/full)", "FILE* (/dev/full)"};

/* The program through one of the library's own sinks
 * or a callback that fails (kind, with v choosing its size or how it
 * fails), against the sync run (ref), whose sink takes everything. fail is
 * the status the sink's failure gives (0: it cannot fail): every call
 * returns the sync run's status up to the first that differs, which
 * returns fail; from there on a sink error is sticky (flush and finish
 * return it), the message says so, and the bytes the sink holds are the
 * start of the sync run's output. A sink that does not fail ends with all
 * of it. (A FILE* on /dev/full fails when its buffer is written out, which
 * a short output leaves to the final flush, and a sticky refusal before it
 * to no call at all.) */
static void run_sink(const config *c, const prog *g, const outcome *ref, unsigned kind, unsigned v) {
    stax_writer_options wo = run_options(c, c->background);
    stax_writer *w = stax_writer_new(&wo);
    CHECK(w != NULL, "stax_writer_new failed (%s sink)", sink_names[kind]);
    fail_sink fs;
    memset(&fs, 0, sizeof fs);
    char *mem = NULL, *ms = NULL;
    size_t cap = 0, mslen = 0;
    FILE *f = NULL;
    int fd = -1, fail = 0, set = STAX_E_USAGE, err_no = 0;
    switch (kind) {
    case 0: /* as large as the output, or a part of it */
        cap = (v & 1) ? ref->out.len : ref->out.len * (v >> 1 & 7) / 8;
        mem = malloc(cap ? cap : 1);
        if (!mem) abort();
        set = stax_writer_set_memory(w, mem, cap);
        fail = cap < ref->out.len ? STAX_E_FULL : 0;
        break;
    case 1:
        fs.budget = ref->out.len * (v & 7) / 8;
        fs.how = v >> 3 & 3;
        set = stax_writer_set_sink(w, fail_write, &fs);
        fail = fs.budget < ref->out.len ? (fs.how == 3 ? STAX_E_FULL : STAX_E_IO) : 0;
        break;
    case 2:
        f = open_memstream(&ms, &mslen);
        if (!f) abort();
        set = stax_writer_set_file(w, f);
        break;
    case 3:
        f = tmpfile();
        if (!f) abort();
        fd = fileno(f);
        set = stax_writer_set_fd(w, fd);
        break;
    case 4:
        fd = open("/dev/full", O_WRONLY);
        if (fd < 0) abort();
        set = stax_writer_set_fd(w, fd);
        fail = ref->out.len ? STAX_E_IO : 0;
        err_no = ENOSPC;
        break;
    default:
        f = fopen("/dev/full", "w");
        if (!f) abort();
        set = stax_writer_set_file(w, f);
        fail = ref->out.len ? STAX_E_IO : 0;
        err_no = ENOSPC;
    }
    CHECK(set == STAX_OK, "setting the %s sink: %d", sink_names[kind], set);
    int failed = 0, first = 0; /* failed: 1 at a call, 2 at the final flush, 3 at finish */
    for (size_t i = 0; i < g->n; i++) {
        const op *o = &g->ops[i];
        stax_str s[4] = {o->s[0], o->s[1], o->s[2], o->s[3]};
        int st = call_op(w, o, s);
        if (dump) fprintf(stderr, "  %s sink: %s -> %d (sync %d)\n", sink_names[kind], op_names[o->code], st, ref->st[i]);
        if (st < 0 && !first) first = st;
        if (st != ref->st[i]) {
            CHECK(fail && st == fail, "%s sink, call %zu (%s): %d, the sync run %d", sink_names[kind], i,
                  op_names[o->code], st, ref->st[i]);
            failed = 1;
            break;
        }
        if (is_sticky(st)) break; /* (as the sync run did) */
    }
    int fl = stax_writer_flush(w), fin = stax_writer_finish(w);
    if (dump) fprintf(stderr, "  %s sink: flush -> %d, finish -> %d (sync %d, %d)\n", sink_names[kind], fl, fin, ref->flush,
                      ref->finish);
    if (failed) { /* a sink error is sticky */
        CHECK(fl == fail && fin == fail, "%s sink: flush %d and finish %d after it failed with %d", sink_names[kind], fl,
              fin, fail);
    } else if (fl != ref->flush) {
        CHECK(fail && fl == fail, "%s sink: final flush %d, the sync run %d", sink_names[kind], fl, ref->flush);
        CHECK(fin == fail, "%s sink: finish %d after the final flush failed with %d", sink_names[kind], fin, fail);
        failed = 2;
        if (!first) first = fl;
    } else if (fin != ref->finish) {
        CHECK(fail && fin == fail, "%s sink: finish %d, the sync run %d", sink_names[kind], fin, ref->finish);
        failed = 3;
        if (!first) first = fin;
    }
    CHECK(failed || !fail || kind == 5, "the %s sink did not fail (output %zu bytes)", sink_names[kind], ref->out.len);
    if (failed) {
        int again = stax_writer_flush(w), status = stax_writer_status(w);
        CHECK(again == fail && status == fail, "%s sink: flush %d, status %d after it failed with %d", sink_names[kind],
              again, status, fail);
        CHECK(stax_writer_first_error(w) == first, "%s sink: first_error %d, expected %d", sink_names[kind],
              stax_writer_first_error(w), first);
        CHECK(stax_writer_message(w)[0] != 0, "%s sink: no message after it failed", sink_names[kind]);
        if (err_no) CHECK(stax_writer_errno(w) == err_no, "%s sink: errno %d, expected %d", sink_names[kind],
                          stax_writer_errno(w), err_no);
    }
    /* what the sink holds: the start of the sync run's output (all of it
     * when nothing failed) */
    const char *got = NULL;
    size_t glen = 0;
    buf back = {0};
    if (kind == 0) {
        stax_str m = stax_writer_memory(w);
        got = m.ptr;
        glen = m.len;
        CHECK(glen <= cap, "the fixed memory sink holds %zu bytes of %zu", glen, cap);
        if (failed) CHECK(glen == cap, "the full memory sink holds %zu bytes of %zu", glen, cap);
    } else if (kind == 1) {
        got = fs.out.p;
        glen = fs.out.len;
    } else if (kind == 3) {
        CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
        char chunk[4096];
        ssize_t k;
        while ((k = read(fd, chunk, sizeof chunk)) > 0) buf_add(&back, chunk, (size_t)k);
        got = back.p;
        glen = back.len;
    }
    stax_writer_free(w);
    if (kind == 2) {
        fclose(f); /* (sets ms and mslen) */
        f = NULL;
        got = ms;
        glen = mslen;
    }
    if (kind <= 3) {
        CHECK(glen <= ref->out.len && (glen == 0 || memcmp(got, ref->out.p, glen) == 0),
              "the %s sink holds %zu bytes that are not the start of the sync run's %zu", sink_names[kind], glen,
              ref->out.len);
        if (!failed) CHECK(glen == ref->out.len, "the %s sink holds %zu bytes, the sync run wrote %zu", sink_names[kind],
                           glen, ref->out.len);
    }
    if (f) fclose(f);
    else if (fd >= 0) close(fd);
    free(mem);
    free(ms);
    free(fs.out.p);
    free(back.p);
}

/* ---------------------------------------------------------------- read back */

static void read_back(const outcome *oc, size_t chunk) {
    stax_reader *r = stax_reader_new(NULL);
    CHECK(r != NULL, "stax_reader_new");
    buf names = {0}, attrs = {0}, chars = {0};
    size_t starts = 0;
    const stax_batch *b;
    int st = STAX_NEED_INPUT;
    size_t pos = 0;
    while (st == STAX_NEED_INPUT) {
        size_t n = oc->out.len - pos < chunk ? oc->out.len - pos : chunk;
        if (n == 0) {
            stax_reader_end(r);
        } else {
            stax_reader_feed(r, oc->out.p + pos, n);
            pos += n;
        }
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {
            for (size_t i = 0; i < b->count; i++) {
                int t = stax_ev_type(b, i);
                if (t == STAX_EV_START) {
                    add_lp(&names, stax_ev_name(b, i));
                    starts++;
                    add_lp(&attrs, (stax_str){"", 0});
                    for (size_t a = 0; a < stax_ev_attr_count(b, i); a++) {
                        add_lp(&attrs, stax_ev_attr_name(b, i, a));
                        add_lp(&attrs, stax_ev_attr_value(b, i, a));
                    }
                } else if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) {
                    stax_str x = stax_ev_text(b, i);
                    buf_add(&chars, x.ptr, x.len);
                }
            }
        }
        if (n == 0 && st == STAX_NEED_INPUT) break;
    }
    CHECK(st == STAX_END, "the reader refused the writer's output (chunk %zu): %d %s at %llu:%llu (byte %llu)\n%.*s",
          chunk, st, stax_reader_message(r), (unsigned long long)stax_reader_error_pos(r).line,
          (unsigned long long)stax_reader_error_pos(r).column, (unsigned long long)stax_reader_error_pos(r).offset,
          (int)(oc->out.len > 2000 ? 2000 : oc->out.len), oc->out.p);
    CHECK(starts == oc->starts && names.len == oc->names.len && memcmp(names.p, oc->names.p, names.len) == 0,
          "element names read back differ (%zu elements written, %zu read)\n%.*s", oc->starts, starts,
          (int)(oc->out.len > 2000 ? 2000 : oc->out.len), oc->out.p);
    CHECK(attrs.len == oc->attrs.len && memcmp(attrs.p, oc->attrs.p, attrs.len) == 0,
          "attributes read back differ\n%.*s", (int)(oc->out.len > 2000 ? 2000 : oc->out.len), oc->out.p);
    if (chunk == 1) { /* compared once; not when indentation adds text */
        (void)0;
    }
    stax_reader_free(r);
    free(names.p);
    free(attrs.p);
    /* character data: only meaningful without indentation (checked by the caller) */
    if (oc->chars.len != (size_t)-1) {
        /* stash into a static for the caller */
    }
    free(chars.p);
}

static int chars_equal(const outcome *oc) {
    stax_reader *r = stax_reader_new(NULL);
    buf chars = {0};
    const stax_batch *b;
    int st;
    stax_reader_feed(r, oc->out.p, oc->out.len);
    while ((st = stax_reader_next(r, &b)) == STAX_OK || st == STAX_NEED_INPUT) {
        if (st == STAX_NEED_INPUT) {
            stax_reader_end(r);
            continue;
        }
        for (size_t i = 0; i < b->count; i++) {
            int t = stax_ev_type(b, i);
            if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) {
                stax_str x = stax_ev_text(b, i);
                buf_add(&chars, x.ptr, x.len);
            }
        }
    }
    int eq = chars.len == oc->chars.len && (chars.len == 0 || memcmp(chars.p, oc->chars.p, chars.len) == 0);
    stax_reader_free(r);
    free(chars.p);
    return eq;
}

static void free_outcome(outcome *oc) {
    free(oc->st);
    free(oc->out.p);
    free(oc->names.p);
    free(oc->attrs.p);
    free(oc->chars.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int init;
    if (!init) {
        dump = getenv("FUZZ_WRITER_DUMP") != NULL;
        init = 1;
    }
    if (size < 4) return 0;
    config c;
    memset(&c, 0, sizeof c);
    c.buffer_size = 64 + (size_t)data[0] * 8;
    c.flags = ((data[1] & 1) ? STAX_WRITE_SELF_CLOSE : 0) | ((data[1] & 32) ? STAX_WRITE_STICKY : 0);
    c.indent = (data[1] & 2) ? 1 + data[2] % 4 : 0;
    c.fixed = (data[1] & 4) != 0;
    c.stack_size = data[2] ? 64 + 16 * (size_t)data[2] : 0;
    c.background = (data[1] & 8) != 0;
    c.fresh_copies = (data[1] & 16) != 0;
    c.alloc_fail = (data[1] & 64) != 0;
    c.seed = data[3] + 1;
    c.block_extra = data[3] % 64;
    c.block_skew = (size_t)(data[3] / 64) * 5;
    prog g = {0};
    parse_prog(data + 4, data + size, &g, (data[1] & 128) != 0);

    outcome s, a;
    if (dump) fprintf(stderr, "sync:\n");
    run(&c, &g, 0, &s);
    if (dump) fprintf(stderr, "  finish -> %d\n%.*s\nasync:\n", s.finish, (int)s.out.len, s.out.p);
    run(&c, &g, 1, &a);
    if (dump) fprintf(stderr, "  finish -> %d\n%.*s\n", a.finish, (int)a.out.len, a.out.p);
    for (size_t i = 0; i < g.n; i++)
        CHECK(s.st[i] == a.st[i], "call %zu (%s): sync %d, async %d", i, op_names[g.ops[i].code], s.st[i], a.st[i]);
    CHECK(s.flush == a.flush, "final flush: sync %d, async %d", s.flush, a.flush);
    CHECK(s.finish == a.finish, "finish: sync %d, async %d", s.finish, a.finish);
    CHECK(s.out.len == a.out.len && (s.out.len == 0 || memcmp(s.out.p, a.out.p, s.out.len) == 0),
          "async output differs from sync output (%zu / %zu bytes)\n--- sync\n%.*s\n--- async\n%.*s", s.out.len,
          a.out.len, (int)s.out.len, s.out.p, (int)a.out.len, a.out.p);
    if (s.finish == STAX_OK && !s.unchecked) {
        read_back(&s, s.out.len + 1);
        read_back(&s, 1);
        if (!c.indent)
            CHECK(chars_equal(&s), "character data read back differs from what was written\n%.*s", (int)s.out.len,
                  s.out.p);
    }
    if (c.alloc_fail) {
        long total = run_alloc_fail(&c, &g, &s, 0);
        for (long k = 1; k <= total && k <= 64; k++) run_alloc_fail(&c, &g, &s, k);
    }
    run_sink(&c, &g, &s, (unsigned)(data[0] + data[3]) % 6, (unsigned)(data[2] ^ data[3]));
    free_outcome(&s);
    free_outcome(&a);
    free(g.ops);
    return 0;
}
