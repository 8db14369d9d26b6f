/* Writer tests: a random document as a list of calls, played against a
 * writer with the retry rule, and a sink that captures (or takes random
 * amounts). Shared by test_writer_async.c and test_writer_memory.c. */
#ifndef STAX_TEST_WRITER_SCRIPT_H
#define STAX_TEST_WRITER_SCRIPT_H

#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ================================================================ a random document as a list of calls */

enum {
    O_DECL, O_DOCTYPE, O_START, O_ATTR, O_NS, O_TEXT, O_CDATA, O_COMMENT, O_PI, O_END, O_RAW,
    O_ELEMENT,                                      /* stax_writer_element(a, b) */
    O_ELEMENT_INT, O_ELEMENT_UINT, O_ELEMENT_DEC,   /* stax_writer_element_*(a, v) */
    O_ATTR_DEC, O_TEXT_INT                          /* stax_writer_attr_dec(a, v), stax_writer_text_int(v) */
};

typedef struct op {
    int kind;
    stax_str a, b;
    int64_t v;     /* the number calls' value */
    unsigned frac; /* and _dec's fraction digits */
} op;

typedef struct script {
    op *ops;
    size_t n, cap;
    char *pool; /* every string the calls use; stays put so retries see the same bytes */
    size_t pool_len, pool_cap;
} script;

static uint32_t rng_next(uint32_t *s) {
    /* xorshift32: small, seeded, the same on every machine */
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static stax_str pool_str(script *sc, const char *alphabet[], size_t nalpha, size_t len, uint32_t *rng) {
    stax_str s;
    size_t start = sc->pool_len;
    for (size_t i = 0; i < len; i++) {
        const char *piece = alphabet[rng_next(rng) % nalpha];
        size_t k = strlen(piece);
        cr_assert(sc->pool_len + k <= sc->pool_cap, "pool too small");
        memcpy(sc->pool + sc->pool_len, piece, k);
        sc->pool_len += k;
    }
    s.ptr = sc->pool + start;
    s.len = sc->pool_len - start;
    return s;
}

static void add_op(script *sc, int kind, stax_str a, stax_str b) {
    if (sc->n == sc->cap) {
        sc->cap = sc->cap ? sc->cap * 2 : 256;
        sc->ops = realloc(sc->ops, sc->cap * sizeof *sc->ops);
        cr_assert_not_null(sc->ops);
    }
    sc->ops[sc->n].kind = kind;
    sc->ops[sc->n].a = a;
    sc->ops[sc->n].b = b;
    sc->ops[sc->n].v = 0;
    sc->ops[sc->n].frac = 0;
    sc->n++;
}

/* A number call: a random value of a random bit length. */
static void add_number(script *sc, int kind, stax_str a, uint32_t *rng) {
    add_op(sc, kind, a, (stax_str){NULL, 0});
    op *o = &sc->ops[sc->n - 1];
    uint64_t hi = rng_next(rng), v = hi << 32 | rng_next(rng);
    o->v = (int64_t)(v >> (1 + rng_next(rng) % 63));
    if (rng_next(rng) % 2) o->v = -o->v;
    o->frac = rng_next(rng) % 20;
}

static const char *alpha_text[] = {"a", "b", "c", " ", "\n", "\t", "&", "<", ">", "\"", "'", "\r", "]]>", "]", "\xc3\xa9",
                                   "\xe2\x82\xac", "\xf0\x9f\x98\x80", "lorem ", "ipsum "};
static const char *alpha_safe[] = {"a", "b", " ", "\n", "<", "&", ">", "\"", "'", "\xc3\xa9", "x-y", "?"};
static const char *alpha_name[] = {"a", "b", "c", "d", "e", "x", "y", "z"};

#define NSTR(p) (sizeof(p) / sizeof(p[0]))

/* A random text of up to max_text pieces, and a name of 1 to most letters. */
static inline stax_str random_text(script *sc, size_t max_text, uint32_t *rng) {
    return pool_str(sc, alpha_text, NSTR(alpha_text), rng_next(rng) % max_text, rng);
}
static inline stax_str random_name(script *sc, uint32_t most, uint32_t *rng) {
    return pool_str(sc, alpha_name, NSTR(alpha_name), 1 + rng_next(rng) % most, rng);
}

/* A document of roughly `steps` calls that uses every call, with texts up to
 * `max_text` pieces long (longer than small buffers, to block mid-call); or,
 * with fragment set, a fragment (STAX_WRITE_FRAGMENT): the same calls from
 * the top level on, with no prolog. */
static inline script make_script_in(uint32_t seed, size_t steps, size_t max_text, int fragment) {
    script sc;
    memset(&sc, 0, sizeof sc);
    sc.pool_cap = steps * (max_text * 6 + 64) + 4096;
    sc.pool = malloc(sc.pool_cap);
    cr_assert_not_null(sc.pool);
    uint32_t rng = seed * 2654435761u + 1;
    stax_str none = {NULL, 0};
    int top = fragment ? 0 : 1; /* the least depth: a fragment has any number of top-level nodes */
    if (!fragment) {
        add_op(&sc, O_DECL, none, stax_strz("UTF-8"));
        add_op(&sc, O_DOCTYPE, stax_strz("root"), stax_strz("root.dtd"));
        add_op(&sc, O_COMMENT, stax_strz(" generated "), none);
        add_op(&sc, O_START, stax_strz("root"), none);
    }
    int depth = top, can_attr = !fragment, attrs = 0;
    for (size_t i = 0; i < steps; i++) {
        uint32_t r = rng_next(&rng) % 100;
        if (can_attr && r < 25) {
            char name[8];
            snprintf(name, sizeof name, "a%d", attrs++ % 1000);
            stax_str nm = pool_str(&sc, (const char *[]){name}, 1, 1, &rng);
            if (r < 3)
                add_op(&sc, O_NS, random_name(&sc, 3, &rng),
                       stax_strz("urn:x"));
            else if (r < 6)
                add_number(&sc, O_ATTR_DEC, nm, &rng);
            else
                add_op(&sc, O_ATTR, nm, random_text(&sc, max_text, &rng));
            if (r < 3) can_attr = 0; /* a second xmlns:same would be a duplicate */
            continue;
        }
        can_attr = 0;
        if (r < 40 && depth < 12) {
            add_op(&sc, O_START, random_name(&sc, 6, &rng), none);
            depth++;
            can_attr = 1;
            attrs = 0;
        } else if (r < 55 && depth > top) {
            add_op(&sc, O_END, none, none);
            depth--;
        } else if (r < 64) {
            add_op(&sc, O_TEXT, random_text(&sc, max_text, &rng), none);
        } else if (r < 70) {
            add_op(&sc, O_ELEMENT, random_name(&sc, 6, &rng),
                   random_text(&sc, max_text, &rng));
        } else if (r < 73) {
            add_number(&sc, O_ELEMENT_INT + (int)(rng_next(&rng) % 3),
                       random_name(&sc, 6, &rng), &rng);
        } else if (r < 75) {
            add_number(&sc, O_TEXT_INT, (stax_str){NULL, 0}, &rng);
        } else if (r < 82) {
            add_op(&sc, O_CDATA, random_text(&sc, max_text, &rng), none);
        } else if (r < 88) {
            stax_str c = pool_str(&sc, alpha_safe, NSTR(alpha_safe), rng_next(&rng) % max_text, &rng);
            add_op(&sc, O_COMMENT, c, none); /* alpha_safe has no "--" and no trailing '-' */
        } else if (r < 94) {
            stax_str d = pool_str(&sc, (const char *[]){"d", " ", "<", "&", "\xc3\xa9"}, 5, rng_next(&rng) % max_text, &rng);
            add_op(&sc, O_PI, random_name(&sc, 4, &rng), d);
        } else {
            add_op(&sc, O_RAW, stax_strz("<raw/>"), none);
        }
    }
    /* finish closes the rest */
    return sc;
}

static inline script make_script(uint32_t seed, size_t steps, size_t max_text) {
    return make_script_in(seed, steps, max_text, 0);
}

static inline void free_script(script *sc) {
    free(sc->ops);
    free(sc->pool);
}

static int do_op(stax_writer *w, const op *o) {
    switch (o->kind) {
    case O_DECL: return stax_writer_xml_decl(w, o->a, o->b, 0);
    case O_DOCTYPE: return stax_writer_doctype(w, o->a, (stax_str){NULL, 0}, o->b, (stax_str){NULL, 0});
    case O_START: return stax_writer_start(w, o->a);
    case O_ATTR: return stax_writer_attr(w, o->a, o->b);
    case O_NS: return stax_writer_ns(w, o->a, o->b);
    case O_TEXT: return stax_writer_text(w, o->a);
    case O_CDATA: return stax_writer_cdata(w, o->a);
    case O_COMMENT: return stax_writer_comment(w, o->a);
    case O_PI: return stax_writer_pi(w, o->a, o->b);
    case O_END: return stax_writer_end(w);
    case O_RAW: return stax_writer_raw(w, o->a);
    case O_ELEMENT: return stax_writer_element(w, o->a, o->b);
    case O_ELEMENT_INT: return stax_writer_element_int(w, o->a, o->v);
    case O_ELEMENT_UINT: return stax_writer_element_uint(w, o->a, (uint64_t)o->v);
    case O_ELEMENT_DEC: return stax_writer_element_dec(w, o->a, o->v, o->frac);
    case O_ATTR_DEC: return stax_writer_attr_dec(w, o->a, o->v, o->frac);
    default: return stax_writer_text_int(w, o->v);
    }
}

/* Play the script. On STAX_WOULD_BLOCK: wait (if given), sometimes flush
 * (which may block too), then repeat the same call: the documented rule. */
typedef void (*wait_fn)(void *ctx);

/* Play the script (then finish), stopping at the first status other than
 * STAX_OK; returns it, or STAX_OK. *at (if not NULL) gets the call's index
 * (sc->n: finish). */
static int play_until(stax_writer *w, const script *sc, wait_fn wait, void *ctx, uint32_t seed, size_t *at) {
    uint32_t rng = seed | 1;
    for (size_t i = 0; i <= sc->n; i++) {
        int st;
        for (;;) {
            st = i < sc->n ? do_op(w, &sc->ops[i]) : stax_writer_finish(w);
            if (st != STAX_WOULD_BLOCK) break;
            if (wait) wait(ctx);
            if (rng_next(&rng) % 4 == 0) {
                while (stax_writer_flush(w) == STAX_WOULD_BLOCK)
                    if (wait) wait(ctx);
            }
        }
        if (st != STAX_OK) {
            if (at) *at = i;
            return st;
        }
    }
    return STAX_OK;
}

static void play(stax_writer *w, const script *sc, wait_fn wait, void *ctx, uint32_t seed) {
    size_t i = 0;
    int st = play_until(w, sc, wait, ctx, seed, &i);
    cr_assert_eq(st, STAX_OK, "call %zu (kind %d) returned %d", i, i < sc->n ? sc->ops[i].kind : -1, st);
}

static stax_writer *new_writer(size_t buffer, unsigned indent, unsigned flags) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = buffer;
    o.indent_width = indent;
    o.flags = flags;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    return w;
}

/* The reference: the same script into a growable memory sink (a writer
 * with those flags). */
static inline char *reference_with(const script *sc, unsigned indent, unsigned flags, size_t *len) {
    stax_writer *w = new_writer(0, indent, flags);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    play(w, sc, NULL, NULL, 1);
    stax_str m = stax_writer_memory(w);
    char *out = malloc(m.len + 1);
    memcpy(out, m.ptr, m.len);
    *len = m.len;
    stax_writer_free(w);
    return out;
}

static inline char *reference(const script *sc, unsigned indent, size_t *len) {
    return reference_with(sc, indent, 0, len);
}

/* ================================================================ a capturing sink */

typedef struct capture {
    char *p;
    size_t len, cap;
    size_t max_offer, buffer;
    size_t offers, short_offers; /* offers smaller than the buffer */
    uint32_t rng;
    int random; /* take random amounts, often nothing */
    size_t most; /* take at most this many bytes a call (0: no limit) */
    int delay;  /* sleep now and then (background thread test) */
} capture;

static void cap_append(capture *c, const void *data, size_t n) {
    if (c->len + n > c->cap) {
        while (c->len + n > c->cap) c->cap = c->cap ? c->cap * 2 : 65536;
        c->p = realloc(c->p, c->cap);
        cr_assert_not_null(c->p);
    }
    if (n) memcpy(c->p + c->len, data, n);
    c->len += n;
}

static ptrdiff_t cap_sink(void *ctx, const void *data, size_t len) {
    capture *c = ctx;
    if (len > c->max_offer) c->max_offer = len;
    c->offers++;
    if (len != c->buffer) c->short_offers++;
    size_t take = len;
    if (c->random) {
        uint32_t r = rng_next(&c->rng);
        take = r % 3 == 0 ? 0 : (size_t)(r >> 8) % (len + 1);
    }
    if (c->most && take > c->most) take = c->most;
    if (c->delay && rng_next(&c->rng) % 8 == 0) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
    cap_append(c, data, take);
    return (ptrdiff_t)take;
}

static void expect_same(const char *got, size_t got_len, const char *want, size_t want_len, const char *what) {
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i]) i++;
    cr_assert(got_len == want_len && i == want_len, "%s: outputs differ at byte %zu (lengths %zu vs %zu)", what, i,
              got_len, want_len);
}

#endif
