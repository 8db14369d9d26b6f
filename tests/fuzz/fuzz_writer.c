/* libFuzzer target for the stax writer.
 *
 * Input: a 4-byte header, then a program of writer calls.
 *   h[0] buffer_size: 64 + h0 * 8 (64..2104)
 *   h[1] bit 0 SELF_CLOSE, 1 indentation (width h[2] % 5), 2 fixed block
 *        (stack room 16 * h[2] bytes, sized to be the same) for both runs, 3 the synchronous run
 *        uses STAX_WRITE_BACKGROUND, 4 the async run copies every argument
 *        afresh before each retry
 *   h[2] see above
 *   h[3] seed of the async sink's PRNG
 * Each call: one opcode byte, then its strings. A string is a length byte L
 * then L bytes; L >= 0xF0 picks a word from a small dictionary instead
 * (names, namespace URIs, "]]>", "--", "?>", CR, ...).
 *
 * The program runs twice:
 *   sync:  a sink that takes everything (optionally from a background thread);
 *          the element op is one stax_writer_element call
 *   async: a sink that takes a random amount (often nothing, driven by the
 *          PRNG); every STAX_WOULD_BLOCK is answered by flushes, an intruding
 *          call (which must be refused with STAX_E_STATE / STAX_E_USAGE and
 *          change nothing), and the same call again; the element op is
 *          start + text + end (the one call when its text is refused: then it
 *          writes nothing, where start would have written a start tag)
 * Invariants (abort() when broken):
 *   - each call returns the same status in both runs, and finish too
 *   - the two outputs are byte for byte the same
 *   - when finish succeeded and no raw bytes or DOCTYPE subset were written,
 *     the stax reader accepts the output (whole, and byte by byte), and gives
 *     back the element names, the attributes (name and value, exactly) and,
 *     without indentation, the character data that was written
 *   - a refused call (negative status other than a sticky sink error) writes
 *     nothing: stax_writer_bytes_out + buffered bytes do not change (checked
 *     through the output in the sync run: the output equals the output of the
 *     successful calls, implied by the comparison with the reader)
 *   - stax_writer_depth follows start/end
 */
#include "stax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    OP_NS, OP_XMLDECL, OP_DOCTYPE, OP_ELEMENT, OP_COUNT
};
static const char *const op_names[OP_COUNT] = {"start", "attr", "text",  "cdata",   "comment", "pi",     "end",
                                               "raw",   "flush", "ns",  "xml_decl", "doctype", "element"};

typedef struct op {
    int code;
    stax_str s[4];
    unsigned arg;
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

static void parse_prog(const uint8_t *p, const uint8_t *e, prog *g) {
    while (p < e && g->n < 4096) {
        op o;
        memset(&o, 0, sizeof o);
        uint8_t c = *p++;
        o.code = c % OP_COUNT;
        o.arg = c / OP_COUNT;
        int ns = 0;
        switch (o.code) {
        case OP_START: case OP_TEXT: case OP_CDATA: case OP_COMMENT: case OP_RAW: ns = 1; break;
        case OP_ATTR: case OP_PI: case OP_NS: case OP_ELEMENT: ns = 2; break;
        case OP_XMLDECL: ns = 2; break;
        case OP_DOCTYPE: ns = 4; break;
        default: ns = 0;
        }
        for (int i = 0; i < ns; i++) o.s[i] = take_str(&p, e);
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
    int fixed;
    size_t stack_room;
    int background;
    int fresh_copies;
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

/* Whether the writer refuses t as text (bad UTF-8 or a non-Char), found on a
 * scratch writer so that the run under test is not touched. */
static int text_refused(stax_str t) {
    stax_writer *x = stax_writer_new(NULL);
    if (!x || stax_writer_set_memory(x, NULL, 0) != STAX_OK || stax_writer_start(x, (stax_str){"x", 1}) != STAX_OK)
        abort();
    int st = stax_writer_text(x, t);
    stax_writer_free(x);
    return st == STAX_E_ENCODING || st == STAX_E_CHAR;
}

static int call_op(stax_writer *w, const op *o, stax_str *s, int element_as_one) {
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
        if (o->arg == 19) sa = 0x40; /* bad value */
        return stax_writer_xml_decl(w, s[0], s[1], sa);
    }
    case OP_DOCTYPE: return stax_writer_doctype(w, s[0], s[1], s[2], s[3]);
    case OP_ELEMENT: (void)element_as_one; return stax_writer_element(w, s[0], s[1]);
    }
    return STAX_E_USAGE;
}

/* Async: repeat the call until it is not STAX_WOULD_BLOCK. */
static int call_retry(stax_writer *w, const config *c, const op *o, stax_str *s, sink *k, int *intruded) {
    int st = call_op(w, o, s, 0);
    int rounds = 0;
    while (st == STAX_WOULD_BLOCK) {
        CHECK(++rounds < 100000, "%s: STAX_WOULD_BLOCK forever", op_names[o->code]);
        if (dump) fprintf(stderr, "  (%s: STAX_WOULD_BLOCK)\n", op_names[o->code]);
        uint64_t r = rng_next(&k->rng);
        if ((r & 3) == 0 && o->code != OP_FLUSH) {
            int f = stax_writer_flush(w);
            CHECK(f == STAX_OK || f == STAX_WOULD_BLOCK || is_sticky(f), "flush while blocked: %d", f);
            if (f != STAX_OK && f != STAX_WOULD_BLOCK) return f;
        }
        if ((r & 12) == 0 && o->code != OP_END && o->code != OP_FLUSH) {
            /* another call while one is unfinished: refused, nothing changes */
            int x = stax_writer_end(w);
            CHECK(x == STAX_E_STATE || is_sticky(x), "end during a blocked %s: %d", op_names[o->code], x);
            *intruded = 1;
        }
        if ((r & 48) == 0 && o->code == OP_TEXT && s[0].len > 0) {
            stax_str shorter = {s[0].ptr, s[0].len - 1};
            int x = stax_writer_text(w, shorter);
            CHECK(x == STAX_E_USAGE || is_sticky(x), "the blocked text retried with another length: %d", x);
        }
        char *hold[4] = {NULL, NULL, NULL, NULL};
        stax_str t[4] = {s[0], s[1], s[2], s[3]};
        if (c->fresh_copies)
            for (int i = 0; i < 4; i++) t[i] = copy_str(s[i], &hold[i]);
        st = call_op(w, o, t, 0);
        for (int i = 0; i < 4; i++) {
            if (hold[i]) memset(hold[i], 0x5A, s[i].len ? s[i].len : 1); /* the writer may not keep them */
            free(hold[i]);
        }
    }
    return st;
}

/* The element stack room of a writer made with o in a block of size bytes. */
static size_t block_room(const stax_writer_options *o, size_t size) {
    stax_writer_options p = *o;
    p.memory = malloc(size);
    p.memory_size = size;
    if (!p.memory) abort();
    stax_writer *w = stax_writer_new(&p);
    CHECK(w != NULL, "stax_writer_new failed (block %zu, buffer %zu)", size, p.buffer_size);
    size_t room = stax_writer_stack_room(w);
    stax_writer_free(w);
    free(p.memory);
    return room;
}

static void run(const config *c, const prog *g, int async, outcome *oc) {
    memset(oc, 0, sizeof *oc);
    oc->st = calloc(g->n + 1, sizeof *oc->st);
    if (!oc->st) abort();
    stax_writer_options wo;
    memset(&wo, 0, sizeof wo);
    wo.buffer_size = c->buffer_size;
    wo.flags = c->flags | (!async && c->background ? STAX_WRITE_BACKGROUND : 0);
    wo.indent_width = c->indent;
    void *block = NULL;
    if (c->fixed) {
        /* The same stack room in both runs, although the background run holds
         * two buffers: the room asked for, but at least what the smallest
         * blocks allowed for one and for two buffers give, and each block
         * sized to give exactly that (to the 8 bytes of the stack's entries). */
        stax_writer_options one = wo, two = wo;
        one.flags &= ~STAX_WRITE_BACKGROUND;
        two.flags |= STAX_WRITE_BACKGROUND;
        size_t want = block_room(&two, STAX_WRITER_MIN_MEMORY + 2 * c->buffer_size);
        size_t want1 = block_room(&one, STAX_WRITER_MIN_MEMORY + c->buffer_size);
        if (want1 > want) want = want1;
        if (c->stack_room > want) want = c->stack_room;
        size_t size = STAX_WRITER_MIN_MEMORY + 2 * c->buffer_size + want;
        size = size - block_room(&wo, size) + want;
        CHECK(block_room(&wo, size) == want, "no block gives a stack room of %zu", want);
        block = malloc(size);
        if (!block) abort();
        wo.memory = block;
        wo.memory_size = size;
    }
    stax_writer *w = stax_writer_new(&wo);
    CHECK(w != NULL, "stax_writer_new failed (buffer %zu, fixed %d)", c->buffer_size, c->fixed);
    sink k;
    memset(&k, 0, sizeof k);
    k.async = async;
    k.rng = c->seed * 0x9E3779B97F4A7C15ull + 1;
    k.buffer_size = c->buffer_size;
    CHECK(stax_writer_set_sink(w, sink_write, &k) == STAX_OK, "set_sink");
    uint32_t depth = 0;
    for (size_t i = 0; i < g->n; i++) {
        const op *o = &g->ops[i];
        stax_str s[4] = {o->s[0], o->s[1], o->s[2], o->s[3]};
        uint32_t d0 = stax_writer_depth(w);
        CHECK(d0 == depth, "stax_writer_depth %u, expected %u", d0, depth);
        int st, intruded = 0;
        if (!async) {
            st = call_op(w, o, s, 1);
            CHECK(st != STAX_WOULD_BLOCK, "%s: STAX_WOULD_BLOCK from a blocking sink", op_names[o->code]);
        } else if (o->code == OP_ELEMENT && text_refused(s[1])) {
            /* A refused element call writes nothing, where start + text would
             * leave the start tag: it is the one call, and cannot block. */
            st = stax_writer_element(w, s[0], s[1]);
            CHECK(st != STAX_WOULD_BLOCK && st != STAX_OK, "element with refused text: %d", st);
        } else if (o->code == OP_ELEMENT) {
            op a = *o;
            a.code = OP_START;
            st = call_retry(w, c, &a, s, &k, &intruded);
            if (st == STAX_OK) {
                a.code = OP_TEXT;
                stax_str t[4] = {s[1], {"", 0}, {"", 0}, {"", 0}};
                st = call_retry(w, c, &a, t, &k, &intruded);
                if (st == STAX_OK) {
                    a.code = OP_END;
                    st = call_retry(w, c, &a, t, &k, &intruded);
                }
            }
        } else {
            st = call_retry(w, c, o, s, &k, &intruded);
        }
        oc->st[i] = st;
        if (dump) fprintf(stderr, "  %s -> %d\n", op_names[o->code], st);
        if (st == STAX_OK) {
            switch (o->code) {
            case OP_START:
                depth++;
                add_lp(&oc->names, s[0]);
                oc->starts++;
                add_lp(&oc->attrs, (stax_str){"", 0}); /* marks a new START */
                break;
            case OP_ATTR: add_lp(&oc->attrs, s[0]); add_lp(&oc->attrs, s[1]); break;
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
        } else if (o->code == OP_ELEMENT) {
            /* it fails where start, text, end would: track the state by depth */
            uint32_t d1 = stax_writer_depth(w);
            if (d1 == d0 + 1) { /* start done, text refused */
                depth++;
                add_lp(&oc->names, s[0]);
                oc->starts++;
                add_lp(&oc->attrs, (stax_str){"", 0});
            }
        }
        if (is_sticky(st)) break;
    }
    /* flush in both runs: finish does not flush when it fails (no root) */
    int f = async ? call_retry(w, c, &(op){OP_FLUSH, {{0}}, 0}, (stax_str[4]){{0}}, &k, &(int){0})
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
    if (st == STAX_OK) {
        CHECK(stax_writer_depth(w) == 0, "depth %u after finish", stax_writer_depth(w));
        CHECK(stax_writer_bytes_out(w) == k.out.len, "bytes_out %llu, the sink took %zu",
              (unsigned long long)stax_writer_bytes_out(w), k.out.len);
        CHECK(stax_writer_finish(w) == STAX_OK, "finish twice");
        CHECK(stax_writer_text(w, (stax_str){" ", 1}) == STAX_E_STATE, "output after finish");
    }
    (void)stax_writer_status(w);
    (void)stax_writer_stack_room(w);
    stax_writer_free(w);
    free(block);
    oc->out = k.out;
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
    c.flags = (data[1] & 1) ? STAX_WRITE_SELF_CLOSE : 0;
    c.indent = (data[1] & 2) ? 1 + data[2] % 4 : 0;
    c.fixed = (data[1] & 4) != 0;
    c.stack_room = 16 * (size_t)data[2];
    c.background = (data[1] & 8) != 0;
    c.fresh_copies = (data[1] & 16) != 0;
    c.seed = data[3] + 1;
    prog g = {0};
    parse_prog(data + 4, data + size, &g);

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
    free_outcome(&s);
    free_outcome(&a);
    free(g.ops);
    return 0;
}
