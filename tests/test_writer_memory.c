/* Writer memory: the block size options need (stax_writer_memory_size) and
 * why options are refused (stax_writer_check_options); fixed blocks that
 * behave (a call sequence that succeeds in N bytes succeeds in every larger
 * block, whatever the sink takes; the high-water mark is that N); the
 * allocator contract (every free and resize passes the allocated size, also
 * after a failure) under allocation failure at every point. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"
#include "sized_alloc.h"
#include "writer_script.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Alignas(16) unsigned char block[1 << 18];

static stax_writer_options opts(size_t buffer, size_t stack, unsigned flags) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = buffer;
    o.stack_size = stack;
    o.flags = flags;
    return o;
}

/* ================================================================ sizes */

Test(writer_memory, memory_size_is_the_exact_need) {
    static const size_t buffers[] = {64, 100, 4096, 65536};
    static const size_t stacks[] = {64, 65, 200, 4096};
    static const unsigned flags[] = {0, STAX_WRITE_BACKGROUND, STAX_WRITE_SELF_CLOSE | STAX_WRITE_STICKY};
    for (size_t b = 0; b < 4; b++)
        for (size_t s = 0; s < 4; s++)
            for (size_t f = 0; f < 3; f++) {
                stax_writer_options o = opts(buffers[b], stacks[s], flags[f]);
                size_t n = stax_writer_memory_size(&o);
                cr_assert(n >= buffers[b] * (flags[f] & STAX_WRITE_BACKGROUND ? 2 : 1) + stacks[s] / 8 * 8);
                cr_assert(n < sizeof block);
                for (size_t skew = 0; skew < 16; skew += 3) {
                    o.memory = block + skew;
                    o.memory_size = n;
                    stax_writer *w = stax_writer_new(&o);
                    cr_assert_not_null(w, "buffer %zu stack %zu flags %u skew %zu: %zu bytes", buffers[b], stacks[s],
                                       flags[f], skew, n);
                    cr_assert_eq(stax_writer_stack_room(w), stacks[s] / 8 * 8);
                    cr_assert_eq(stax_writer_memory_peak(w), stax_writer_memory_size(&(stax_writer_options){
                                                                  .buffer_size = buffers[b], .stack_size = 64,
                                                                  .flags = flags[f]}));
                    stax_writer_free(w);
                    o.memory_size = n - 1;
                    const char *why = NULL;
                    cr_assert_null(stax_writer_new(&o));
                    cr_assert_eq(stax_writer_check_options(&o, &why), STAX_E_NOMEM);
                    cr_assert(strstr(why, "memory_size") != NULL, "%s", why);
                }
            }
    /* stack_size 0 counts as 256 bytes; buffer_size 0 as 64 KiB */
    stax_writer_options o = opts(1000, 0, 0);
    size_t n = stax_writer_memory_size(&o);
    o.memory = block;
    o.memory_size = n;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_stack_room(w), 256);
    stax_writer_free(w);
    stax_writer_options d = opts(0, 0, 0);
    cr_assert_eq(stax_writer_memory_size(&d), stax_writer_memory_size(&(stax_writer_options){.buffer_size = 65536,
                                                                                            .stack_size = 256}));
    cr_assert_eq(stax_writer_memory_size(NULL), stax_writer_memory_size(&d));
    /* out of range: 0 */
    d.buffer_size = 10;
    cr_assert_eq(stax_writer_memory_size(&d), 0);
}

Test(writer_memory, documented_minimum_always_works) {
    /* STAX_WRITER_MIN_MEMORY plus the buffer(s) holds the writer and a stack
     * of at least 256 bytes, for every buffer size, with one buffer or two,
     * wherever the block starts */
    for (int bg = 0; bg < 2; bg++)
        for (size_t buf = STAX_WRITER_MIN_BUFFER; buf <= 2048; buf += 61)
            for (size_t skew = 0; skew < 16; skew += 5) {
                stax_writer_options o = opts(buf, 0, bg ? STAX_WRITE_BACKGROUND : 0);
                o.indent = "\t"; /* the indentation run too */
                o.memory = block + skew;
                o.memory_size = STAX_WRITER_MIN_MEMORY + (bg ? 2 : 1) * buf;
                stax_writer *w = stax_writer_new(&o);
                cr_assert_not_null(w, "buffer %zu, %d buffer(s), skew %zu", buf, bg + 1, skew);
                cr_assert(stax_writer_stack_room(w) >= 256);
                stax_writer_free(w);
            }
}

/* A writer in a block of n bytes at block + skew with o's sizes: its buffer
 * (measured: the sink's first chunk of a long text) and stack room, or 0 when
 * it cannot be made. */
static int writer_in(stax_writer_options o, size_t n, size_t skew, size_t *buffer, size_t *stack) {
    o.memory = block + skew;
    o.memory_size = n;
    stax_writer *w = stax_writer_new(&o);
    if (!w) return 0;
    *stack = stax_writer_stack_room(w);
    static char out[1 << 18];
    cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
    static char text[70000];
    memset(text, 'x', sizeof text);
    cr_assert_eq(stax_writer_start_z(w, "t"), STAX_OK);
    cr_assert_eq(stax_writer_text(w, (stax_str){text, sizeof text}), STAX_OK);
    *buffer = (size_t)stax_writer_bytes_out(w); /* what the full buffer(s) handed over */
    stax_writer_free(w);
    return 1;
}

Test(writer_memory, effective_options_size_a_block) {
    static const size_t buffers[] = {0, 64, 4096, 65536};
    static const size_t stacks[] = {0, 64, 1000};
    static const size_t blocks[] = {600, 1000, 5000, 70000, 200000};
    for (size_t b = 0; b < 4; b++)
        for (size_t s = 0; s < 3; s++)
            for (size_t k = 0; k < 5; k++) {
                stax_writer_options o = opts(buffers[b], stacks[s], 0), eff;
                o.memory = block;
                o.memory_size = blocks[k];
                const char *why = NULL;
                int st = stax_writer_effective_options(&o, &eff, &why);
                cr_assert_eq(st, stax_writer_check_options(&o, NULL));
                if (st != STAX_OK) {
                    cr_assert_eq(st, STAX_E_NOMEM, "%s", why);
                    continue;
                }
                cr_assert(eff.buffer_size >= 64 && eff.stack_size >= 64);
                cr_assert(!buffers[b] || eff.buffer_size == buffers[b]);
                cr_assert(!stacks[s] || eff.stack_size == stacks[s] / 8 * 8);
                cr_assert(eff.memory == block && eff.memory_size == blocks[k]);
                /* the writer the block gives is the one the answer says */
                size_t buf0, stack0, buf1, stack1;
                cr_assert(writer_in(o, blocks[k], 0, &buf0, &stack0));
                cr_assert_eq(stack0, eff.stack_size);
                cr_assert_eq(buf0 % eff.buffer_size, 0);
                cr_assert(buf0 >= 70000 - eff.buffer_size, "buffer %zu: %zu out", eff.buffer_size, buf0);
                /* the effective sizes need at most the block, and exactly their own size */
                size_t need = stax_writer_memory_size(&eff);
                cr_assert(need > 0 && need <= blocks[k], "%zu > %zu", need, blocks[k]);
                for (size_t skew = 0; skew < 16; skew += 5) {
                    cr_assert(writer_in(eff, need, skew, &buf1, &stack1));
                    cr_assert(buf1 == buf0 && stack1 == stack0);
                    cr_assert(!writer_in(eff, need - 1, skew, &buf1, &stack1), "%zu - 1 bytes suffice", need);
                }
            }
    /* with an allocator: the buffer's default, and no stack limit */
    stax_writer_options eff;
    cr_assert_eq(stax_writer_effective_options(NULL, &eff, NULL), STAX_OK);
    cr_assert_eq(eff.buffer_size, 65536);
    cr_assert_eq(eff.stack_size, 0);
    stax_writer_options bad = opts(10, 0, 0);
    cr_assert_eq(stax_writer_effective_options(&bad, &eff, NULL), STAX_E_USAGE);
}

Test(writer_memory, memory_size_counts_zero_sizes_as_documented) {
    /* zero fields count as a 64 KiB buffer and a 256-byte stack: the same
     * answer as with those sizes set, which need exactly it */
    static const size_t buffers[] = {0, 4096};
    static const size_t stacks[] = {0, 512};
    for (size_t b = 0; b < 2; b++)
        for (size_t s = 0; s < 2; s++) {
            stax_writer_options o = opts(buffers[b], stacks[s], 0);
            stax_writer_options set = opts(buffers[b] ? buffers[b] : 65536, stacks[s] ? stacks[s] : 256, 0);
            size_t n = stax_writer_memory_size(&o), buf, stack;
            cr_assert_eq(n, stax_writer_memory_size(&set));
            cr_assert(writer_in(set, n, 7, &buf, &stack));
            cr_assert_eq(stack, set.stack_size);
            cr_assert(!writer_in(set, n - 1, 7, &buf, &stack));
            cr_assert(writer_in(o, n, 7, &buf, &stack)); /* zero sizes: the block works, shared its own way */
        }
}

Test(writer_memory, zero_sizes_share_any_block) {
    /* with buffer_size and stack_size 0 a block of any size that holds the
     * writer, 64 bytes of buffer and 64 of stack works, and a larger block
     * never has a smaller stack */
    size_t smallest = 0, last_room = 0;
    for (size_t n = 200; n < 300000; n += n < 2000 ? 1 : 997) {
        stax_writer_options o = opts(0, 0, 0);
        o.memory = block;
        o.memory_size = n < sizeof block ? n : sizeof block;
        if (o.memory_size != n) break;
        const char *why;
        int st = stax_writer_check_options(&o, &why);
        stax_writer *w = stax_writer_new(&o);
        cr_assert_eq(w != NULL, st == STAX_OK, "new and check_options disagree at %zu", n);
        if (!w) {
            cr_assert_eq(st, STAX_E_NOMEM);
            cr_assert_eq(smallest, 0, "refused at %zu after accepting %zu", n, smallest);
            continue;
        }
        if (!smallest) smallest = n;
        size_t room = stax_writer_stack_room(w);
        cr_assert(room >= 64 && room >= last_room, "%zu bytes: stack %zu after %zu", n, room, last_room);
        last_room = room;
        /* the buffer it chose works: a text longer than any buffer goes through */
        char out[70000];
        cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
        static char text[66000];
        memset(text, 'x', sizeof text);
        cr_assert_eq(stax_writer_start_z(w, "t"), STAX_OK);
        cr_assert_eq(stax_writer_text(w, (stax_str){text, sizeof text}), STAX_OK);
        cr_assert_eq(stax_writer_finish(w), STAX_OK);
        cr_assert_eq(stax_writer_memory(w).len, sizeof text + 7);
        stax_writer_free(w);
    }
    cr_assert(smallest > 0 && smallest < 1024, "smallest block %zu", smallest);
    /* the smallest useful block: 64-byte buffer, 64-byte stack */
    size_t min = stax_writer_memory_size(&(stax_writer_options){.buffer_size = 64, .stack_size = 64});
    cr_assert(min <= smallest, "memory_size %zu, smallest accepted %zu", min, smallest);
}

/* ================================================================ why NULL */

Test(writer_memory, check_options_says_why) {
    struct {
        stax_writer_options o;
        int st;
        const char *why;
    } cases[] = {
        {{.buffer_size = 63}, STAX_E_USAGE, "buffer_size"},
        {{.buffer_size = SIZE_MAX}, STAX_E_USAGE, "buffer_size"},
        {{.stack_size = 63}, STAX_E_USAGE, "stack_size"},
        {{.stack_size = SIZE_MAX}, STAX_E_USAGE, "stack_size"},
        {{.indent = " x"}, STAX_E_USAGE, "indent"},
        {{.indent = "                                                                 "}, STAX_E_USAGE, "indent"},
        {{.indent_width = 65}, STAX_E_USAGE, "indent_width"},
        {{.flags = 0x80}, STAX_E_USAGE, "flags"},
        {{.memory = block, .memory_size = 100}, STAX_E_NOMEM, "memory_size"},
        {{.memory = block, .memory_size = 4096, .buffer_size = 4096}, STAX_E_NOMEM, "memory_size"},
        {{.memory = block, .memory_size = 4096, .stack_size = 4096}, STAX_E_NOMEM, "memory_size"},
        {{.memory = block, .memory_size = 0}, STAX_E_NOMEM, "memory_size"},
        {{.memory = block, .memory_size = 4096}, STAX_OK, ""},
        {{.indent = "\t ", .buffer_size = 64, .stack_size = 64}, STAX_OK, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = NULL;
        int st = stax_writer_check_options(&cases[i].o, &why);
        cr_assert_eq(st, cases[i].st, "case %zu: %d", i, st);
        cr_assert_not_null(why);
        cr_assert(strstr(why, cases[i].why) != NULL, "case %zu: \"%s\"", i, why);
        cr_assert_eq(stax_writer_check_options(&cases[i].o, NULL), st); /* why may be NULL */
        stax_writer *w = stax_writer_new(&cases[i].o);
        cr_assert_eq(w != NULL, st == STAX_OK, "case %zu: new and check_options disagree", i);
        stax_writer_free(w);
    }
    const char *why = NULL;
    cr_assert_eq(stax_writer_check_options(NULL, &why), STAX_OK);
    cr_assert_str_eq(why, "");
}

/* ================================================================ the monotonic rule */

/* Run the script in a fixed block of n bytes at block + skew; *ok: whether
 * every call returned STAX_OK (else the first failure must be the element
 * stack's STAX_E_LIMIT_STACK, with nothing broken: finish still works). Returns the
 * output (malloc'd) of a successful run. */
static char *run_in_block(const script *sc, stax_writer_options o, size_t n, size_t skew, int random, uint32_t seed,
                          int *ok, size_t *out_len) {
    o.memory = block + skew;
    o.memory_size = n;
    *ok = 0;
    stax_writer *w = stax_writer_new(&o);
    if (!w) return NULL;
    capture c = {0};
    c.random = random;
    c.rng = seed;
    c.buffer = SIZE_MAX;
    cr_assert_eq(stax_writer_set_sink(w, cap_sink, &c), STAX_OK);
    size_t at = 0;
    int st = play_until(w, sc, NULL, NULL, seed, &at);
    if (st != STAX_OK) {
        cr_assert_eq(st, STAX_E_LIMIT_STACK, "block %zu: call %zu returned %d", n, at, st);
        cr_assert(at < sc->n && (sc->ops[at].kind == O_START || sc->ops[at].kind == O_ATTR ||
                                 sc->ops[at].kind == O_NS || sc->ops[at].kind == O_ATTR_DEC ||
                                 (sc->ops[at].kind >= O_ELEMENT && sc->ops[at].kind <= O_ELEMENT_DEC)));
        cr_assert_eq(stax_writer_status(w), STAX_OK); /* a refusal, not a sticky error */
        int fin;
        while ((fin = stax_writer_finish(w)) == STAX_WOULD_BLOCK) {}
        cr_assert_eq(fin, STAX_OK);
        stax_writer_free(w);
        free(c.p);
        return NULL;
    }
    *ok = 1;
    *out_len = c.len;
    stax_writer_free(w);
    return c.p;
}

Test(writer_memory, fixed_block_sweep_is_monotonic) {
    for (uint32_t seed = 1; seed <= 6; seed++) {
        script sc = make_script(seed, 250, 40);
        size_t want_len;
        char *want = reference(&sc, seed % 3, &want_len);
        for (int v = 0; v < 3; v++) {
            /* explicit buffer, stack from the block; both from the block; background */
            stax_writer_options o = opts(v == 1 ? 0 : 64 + seed * 40, 0, v == 2 ? STAX_WRITE_BACKGROUND : 0);
            o.indent_width = seed % 3;
            /* the allocator run's high-water mark is the smallest block that works */
            size_t peak = 0;
            if (v != 1) {
                stax_writer *a = stax_writer_new(&o);
                cr_assert_not_null(a);
                capture c = {0};
                c.buffer = SIZE_MAX;
                cr_assert_eq(stax_writer_set_sink(a, cap_sink, &c), STAX_OK);
                play(a, &sc, NULL, NULL, 1);
                peak = stax_writer_memory_peak(a);
                expect_same(c.p, c.len, want, want_len, "allocator");
                stax_writer_free(a);
                free(c.p);
            }
            size_t lo = stax_writer_memory_size(&(stax_writer_options){.buffer_size = o.buffer_size ? o.buffer_size : 64,
                                                                       .stack_size = 64, .flags = o.flags});
            size_t hi = (peak ? peak : lo + 1200) + 300, first_ok = 0;
            for (size_t n = lo - 40; n < hi; n += v == 2 ? 7 : 1) {
                for (size_t skew = 0; skew < 16; skew += 7) {
                    int random = (int)((n + skew) % 2), ok;
                    size_t len = 0;
                    char *got = run_in_block(&sc, o, n, skew, v == 2 ? 0 : random, seed * 31 + (uint32_t)n, &ok, &len);
                    if (ok) {
                        expect_same(got, len, want, want_len, "fixed block");
                        if (!first_ok) first_ok = n;
                    } else {
                        cr_assert_eq(first_ok, 0, "seed %u v %d: fails at %zu (skew %zu, random %d) after working at %zu",
                                     seed, v, n, skew, random, first_ok);
                    }
                    free(got);
                }
            }
            cr_assert(first_ok, "seed %u v %d: no block up to %zu works", seed, v, hi);
            if (peak && v == 0) cr_assert_eq(first_ok, peak, "seed %u: smallest block %zu, peak %zu", seed, first_ok, peak);
            if (peak && v == 2) cr_assert(first_ok >= peak && first_ok < peak + 7, "seed %u bg: %zu vs %zu", seed, first_ok, peak);
        }
        free(want);
        free_script(&sc);
    }
}

Test(writer_memory, peak_is_the_same_in_a_block) {
    script sc = make_script(42, 400, 60);
    stax_writer_options o = opts(256, 0, 0);
    o.indent_width = 1;
    stax_writer *a = stax_writer_new(&o);
    cr_assert_eq(stax_writer_set_memory(a, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_memory_peak(a), stax_writer_memory_size(&(stax_writer_options){
                                                 .buffer_size = 256, .stack_size = 64, .indent_width = 1}));
    cr_assert(stax_writer_memory_size(&(stax_writer_options){.buffer_size = 256, .stack_size = 64, .indent_width = 1}) >
              stax_writer_memory_size(&(stax_writer_options){.buffer_size = 256, .stack_size = 64}));
    play(a, &sc, NULL, NULL, 1);
    size_t peak = stax_writer_memory_peak(a);
    stax_writer_free(a);
    o.memory = block;
    o.memory_size = sizeof block;
    stax_writer *f = stax_writer_new(&o);
    static char out[1 << 20];
    cr_assert_eq(stax_writer_set_memory(f, out, sizeof out), STAX_OK);
    play(f, &sc, NULL, NULL, 1);
    cr_assert_eq(stax_writer_memory_peak(f), peak);
    stax_writer_free(f);
    free_script(&sc);
}

/* The peak of: start "r", attr "a", then (refused: 1) an attribute and an
 * element with 300-byte names and a bad value, then finish; and whether the
 * same calls run in a block of that size. */
static size_t peak_of(int refused, size_t block_size) {
    stax_writer_options o = opts(256, 0, 0);
    if (block_size) {
        o.memory = block;
        o.memory_size = block_size;
    }
    stax_writer *w = stax_writer_new(&o);
    if (!w) return 0;
    static char out[4096];
    cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
    char name[300];
    memset(name, 'n', sizeof name);
    stax_str long_name = {name, sizeof name}, bad = {"\xff", 1};
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_attr_z(w, "a", "1"), STAX_OK);
    if (refused) {
        /* in a block of the peak's size they are refused for the stack instead */
        int want = block_size ? STAX_E_LIMIT_STACK : STAX_E_ENCODING;
        cr_assert_eq(stax_writer_attr(w, long_name, bad), want);
        cr_assert_eq(stax_writer_ns(w, long_name, bad), want);
        cr_assert_eq(stax_writer_text_z(w, ""), STAX_OK);
        /* start's checks come first, its room on the stack included, as in start, text, end */
        cr_assert_eq(stax_writer_element(w, long_name, bad), want);
    } else {
        cr_assert_eq(stax_writer_text_z(w, ""), STAX_OK);
    }
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    size_t peak = stax_writer_memory_peak(w);
    stax_writer_free(w);
    return peak;
}

Test(writer_memory, peak_not_raised_by_a_refused_call) {
    size_t plain = peak_of(0, 0), refused = peak_of(1, 0);
    cr_assert_eq(refused, plain, "refused calls raised the peak from %zu to %zu", plain, refused);
    /* and the peak is enough: the same calls, refusals included, run in it */
    cr_assert_eq(peak_of(1, refused), refused);
}

/* ================================================================ stack_size */

Test(writer_memory, stack_size_is_the_same_limit_everywhere) {
    /* with an allocator, in a block sized for it, and in a much larger block:
     * the same depth, then STAX_E_LIMIT_STACK with nothing written, and a
     * message that names the option and its value */
    size_t depths[3];
    for (int mode = 0; mode < 3; mode++) {
        stax_writer_options o = opts(64, 200, 0);
        if (mode) {
            o.memory = block;
            o.memory_size = mode == 1 ? stax_writer_memory_size(&o) : sizeof block;
        }
        stax_writer *w = stax_writer_new(&o);
        cr_assert_not_null(w);
        static char out[4096];
        cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
        size_t d = 0;
        int st;
        while ((st = stax_writer_start_z(w, "level")) == STAX_OK) d++; /* 5 + 8 bytes a level */
        cr_assert_eq(st, STAX_E_LIMIT_STACK);
        cr_assert_eq(d, 200 / 13);
        cr_assert_str_eq(stax_writer_message(w), "stax_writer_start: the element stack is full (stack_size 200, 200 bytes)");
        cr_assert(stax_writer_stack_room(w) < 13);
        uint64_t before = stax_writer_bytes_produced(w);
        cr_assert_eq(stax_writer_attr_z(w, "a-long-attribute-name", "v"), STAX_E_LIMIT_STACK);
        cr_assert_eq(stax_writer_bytes_produced(w), before);
        cr_assert_eq(stax_writer_finish(w), STAX_OK);
        depths[mode] = d;
        stax_writer_free(w);
    }
    cr_assert(depths[0] == depths[1] && depths[1] == depths[2]);
}

/* ================================================================ the allocator contract */

/* One writer's life under the hook: deep nesting with long names (the stack
 * grows), attributes, numbers, a long text; the sink is the growable memory
 * sink (it grows too) or, with STAX_WRITE_BACKGROUND, a callback on the
 * thread. Returns the final status (STAX_OK or STAX_E_NOMEM) and the output. */
static const char long_name[] = "a-rather-long-element-name-that-fills-the-stack";

static int alloc_life(sized_alloc *a, unsigned flags, int mem_sink, capture *c, int *refused_at) {
    stax_writer_options o = opts(64, 0, flags);
    o.alloc = sized_alloc_hook;
    o.alloc_ud = a;
    stax_writer *w = stax_writer_new(&o);
    if (!w) return STAX_E_NOMEM;
    int st = mem_sink ? stax_writer_set_memory(w, NULL, 0) : stax_writer_set_sink(w, cap_sink, c);
    cr_assert_eq(st, STAX_OK);
    int depth = 0;
    for (int d = 0; d < 60 && st == STAX_OK; d++) {
        st = stax_writer_start_z(w, long_name);
        if (st == STAX_OK) depth++;
        if (st == STAX_OK) st = stax_writer_attr_z(w, "attribute-name", "v");
        if (st == STAX_OK) st = stax_writer_attr_int_z(w, "n", -d);
        if (st == STAX_OK) st = stax_writer_text_dec(w, d * 125, 2);
    }
    static char text[5000];
    memset(text, 'y', sizeof text);
    if (st == STAX_OK) st = stax_writer_text(w, (stax_str){text, sizeof text});
    cr_assert(st == STAX_OK || st == STAX_E_NOMEM, "status %d", st);
    *refused_at = -1;
    if (st == STAX_E_NOMEM && stax_writer_status(w) == STAX_OK) {
        /* the stack could not grow: that call was refused and nothing else broke */
        *refused_at = depth;
        cr_assert_eq(stax_writer_finish(w), STAX_OK);
        cr_assert_eq(stax_writer_depth(w), 0);
    } else if (st == STAX_OK) {
        st = stax_writer_finish(w);
    }
    if (st == STAX_OK && mem_sink) {
        stax_str m = stax_writer_memory(w);
        cap_append(c, m.ptr, m.len);
    }
    stax_writer_free(w);
    return st;
}

Test(writer_memory, allocation_failure_at_every_point_sizes_checked) {
    static const struct {
        unsigned flags;
        int mem_sink;
    } lives[] = {{0, 1}, {STAX_WRITE_SELF_CLOSE, 1}, {STAX_WRITE_BACKGROUND, 0}, {0, 0}};
    for (size_t l = 0; l < sizeof lives / sizeof lives[0]; l++) {
        sized_alloc ref;
        memset(&ref, 0, sizeof ref);
        capture want = {0};
        want.buffer = SIZE_MAX;
        int refused;
        cr_assert_eq(alloc_life(&ref, lives[l].flags, lives[l].mem_sink, &want, &refused), STAX_OK);
        cr_assert(!ref.wrong[0], "life %zu: %s", l, ref.wrong);
        cr_assert_eq(ref.nlive, 0, "life %zu leaks", l);
        cr_assert(ref.calls > 5, "life %zu: only %ld allocations", l, ref.calls);
        long total = ref.calls;
        for (long k = 1; k <= total; k++) {
            sized_alloc a;
            memset(&a, 0, sizeof a);
            a.fail_at = k;
            capture c = {0};
            c.buffer = SIZE_MAX;
            int st = alloc_life(&a, lives[l].flags, lives[l].mem_sink, &c, &refused);
            cr_assert(a.failed, "life %zu k %ld: no allocation failed", l, k);
            cr_assert(st == STAX_OK || st == STAX_E_NOMEM, "life %zu k %ld: %d", l, k, st);
            cr_assert(!a.wrong[0], "life %zu k %ld: %s", l, k, a.wrong);
            cr_assert_eq(a.nlive, 0, "life %zu k %ld: %d blocks leak", l, k, a.nlive);
            /* what was written is the start of the full document, and after a
             * refused start or attribute, the end tags finish wrote */
            size_t head = c.len, tag = strlen(long_name) + 3;
            if (refused >= 0 && !lives[l].mem_sink) {
                cr_assert(c.len >= (size_t)refused * tag, "life %zu k %ld", l, k);
                head = c.len - (size_t)refused * tag;
                for (size_t i = head; i < c.len; i += tag)
                    cr_assert(!memcmp(c.p + i, "</", 2) && !memcmp(c.p + i + 2, long_name, tag - 3) && c.p[i + tag - 1] == '>',
                              "life %zu k %ld: not an end tag at %zu", l, k, i);
            }
            /* a refused attribute: finish closed the start tag first */
            if (refused >= 0 && head > 0 && c.p[head - 1] == '>' && memcmp(c.p, want.p, head) != 0) head--;
            cr_assert(head <= want.len && (head == 0 || memcmp(c.p, want.p, head) == 0), "life %zu k %ld", l, k);
            free(c.p);
        }
        free(want.p);
    }
}
