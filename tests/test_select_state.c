/* stax_select_save and stax_select_resume: a select resumed from the state
 * saved after any event goes on with exactly the output the original would
 * have given; a state is refused when it is truncated, and no corrupt byte
 * of it makes the select read out of bounds (ASan). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static int collect(void *ctx, const stax_select_piece *p) {
    stax_test_buf *b = (stax_test_buf *)ctx;
    if (p->type == STAX_SELECT_VALUE) stax_test_buf_put(b, p->value.ptr, p->value.len);
    if (p->type == STAX_SELECT_END) stax_test_buf_puts(b, "\n");
    return 0;
}

/* A select with options o and path, its output to out; NULL when
 * stax_select_new refuses the options. *compiled gets the compile's status
 * (its first frame is state too, so a small max_state may refuse it);
 * without compiled, the compile must succeed. */
static stax_select *select_of(const stax_select_options *o, const char *path, stax_test_buf *out, int *compiled) {
    stax_select *s = stax_select_new(o);
    if (!s) return NULL;
    int st = stax_select_compile(s, stax_strz(path), stax_strz(""));
    if (compiled) *compiled = st;
    else cr_assert_eq(st, STAX_OK, "%s", stax_select_message(s));
    stax_select_set_output(s, collect, out);
    return s;
}

static stax_select *new_select(const char *path, unsigned flags, stax_test_buf *out) {
    stax_select_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    stax_select *s = select_of(&o, path, out, NULL);
    cr_assert_not_null(s);
    return s;
}

/* doc's events through a select of path; after event `at` (counted over the
 * whole document) its state is saved and a new select resumed from it takes
 * the rest. Returns 1 when the state could be saved there; *whole gets the
 * first select's output before the cut and the second's after it. */
static int cut_at(const char *doc, const char *path, unsigned flags, size_t at, stax_test_buf *whole) {
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    stax_reader_feed(r, doc, strlen(doc));
    stax_reader_end(r);
    stax_select *s = new_select(path, flags, whole), *t = NULL;
    const stax_batch *b;
    size_t n = 0;
    int saved = 0;
    while (stax_reader_next(r, &b) == STAX_OK) {
        for (size_t i = 0; i < b->count; i++, n++) {
            cr_assert_eq(stax_select_event(t ? t : s, b, i), STAX_OK);
            if (n != at || t) continue;
            size_t len = 0;
            int st = stax_select_save(s, NULL, 0, &len);
            if (st == STAX_E_NOSAVE) continue;
            cr_assert_eq(st, STAX_OK);
            unsigned char *state = (unsigned char *)malloc(len);
            cr_assert_not_null(state);
            size_t len2 = 0;
            if (len > 1) cr_assert_eq(stax_select_save(s, state, len - 1, &len2), STAX_E_FULL);
            cr_assert_eq(stax_select_save(s, state, len, &len2), STAX_OK);
            cr_assert_eq(len2, len);
            t = new_select(path, flags, whole);
            for (size_t k = 0; k < len; k++) /* every truncation is refused */
                cr_assert_eq(stax_select_resume(t, state, k), STAX_E_CONTEXT, "truncated to %zu of %zu", k, len);
            stax_select_reset(t);
            cr_assert_eq(stax_select_resume(t, state, len), STAX_OK, "%s", stax_select_message(t));
            free(state);
            saved = 1;
        }
    }
    cr_assert_eq(stax_reader_status(r), STAX_OK);
    stax_select_free(s);
    stax_select_free(t);
    stax_reader_free(r);
    return saved;
}

static const char doc[] =
    "<r xmlns:p='urn:p'><g k='1'><a>1</a><a>2</a>text<p:a>p</p:a></g>"
    "<g k='2'><a>3<b>in</b></a><a x='y'>4</a></g><a>5</a></r>";

static const struct {
    const char *path;
    unsigned flags;
} paths[] = {
    {"//a", 0}, {"//a[1]", 0}, {"//g[@k='2']/a", 0}, {"//a/text()", 0}, {"//@x|//@k", 0},
    {"/r/g/a[2]", 0}, {"//a", STAX_SELECT_XML}, {"//a", STAX_SELECT_NO_VALUES},
};

Test(select_state, a_resumed_select_goes_on_as_the_original) {
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        stax_test_buf serial = {0};
        cut_at(doc, paths[p].path, paths[p].flags, (size_t)-1, &serial);
        size_t saved = 0;
        for (size_t at = 0; at < 40; at++) {
            stax_test_buf whole = {0};
            saved += (size_t)cut_at(doc, paths[p].path, paths[p].flags, at, &whole);
            cr_assert(whole.len == serial.len && memcmp(whole.p, serial.p, whole.len) == 0,
                      "%s cut after event %zu:\n%.*s\nwant:\n%.*s", paths[p].path, at, (int)whole.len, whole.p,
                      (int)serial.len, serial.p);
            stax_test_buf_free(&whole);
        }
        cr_assert_gt(saved, 5, "%s: saved at %zu points only", paths[p].path, saved);
        stax_test_buf_free(&serial);
    }
}

/* Corrupt states: each byte changed, then the rest of the events; the
 * select refuses it or goes on, never out of bounds. Another select's state
 * is refused. */
Test(select_state, corrupt_and_foreign_states) {
    stax_test_buf out = {0};
    stax_select *s = new_select("//g/a", 0, &out);
    stax_reader *r = stax_reader_new(NULL);
    stax_reader_feed(r, doc, strlen(doc));
    stax_reader_end(r);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    size_t i = 0;
    for (; i < b->count && stax_ev_type(b, i) != STAX_EV_END; i++) stax_select_event(s, b, i); /* inside the first a */
    for (; i < b->count && stax_select_save(s, NULL, 0, &(size_t){0}) != STAX_OK; i++) stax_select_event(s, b, i);
    size_t len = 0;
    cr_assert_eq(stax_select_save(s, NULL, 0, &len), STAX_OK);
    unsigned char *state = (unsigned char *)malloc(len), *bad = (unsigned char *)malloc(len);
    cr_assert_eq(stax_select_save(s, state, len, &len), STAX_OK);
    stax_select *other = new_select("//a", 0, &out);
    cr_assert_eq(stax_select_resume(other, state, len), STAX_E_CONTEXT);
    stax_select_free(other);
    for (size_t k = 0; k < len; k++)
        for (unsigned v = 0; v < 4; v++) {
            static const unsigned char vals[] = {0x00, 0x01, 0x7f, 0xff};
            memcpy(bad, state, len);
            if (bad[k] == vals[v]) continue;
            bad[k] = vals[v];
            stax_select *t = new_select("//g/a", 0, &out);
            int st = stax_select_resume(t, bad, len);
            cr_assert(st == STAX_OK || st == STAX_E_CONTEXT, "%d", st);
            for (size_t j = i; st == STAX_OK && j < b->count; j++) stax_select_event(t, b, j);
            stax_select_free(t);
        }
    free(state);
    free(bad);
    stax_select_free(s);
    stax_reader_free(r);
    stax_test_buf_free(&out);
}

/* A select whose limits are tight: max_state counts the capacities of its
 * buffers, which only grow. */
static stax_select *tight_select(const char *path, size_t max_state, stax_test_buf *out, int *compiled) {
    stax_select_options o;
    memset(&o, 0, sizeof o);
    o.max_state = max_state;
    stax_select *s = select_of(&o, path, out, compiled);
    cr_assert_not_null(s);
    return s;
}

/* A state offered with a byte changed, refused or taken, then
 * stax_select_reset and the state itself: the select goes on as a new
 * one resumed from it would (what the changed state made its buffers grow
 * to does not count against max_state). At every point a state can be
 * saved, for every byte, at the smallest max_state the document reads
 * with. */
Test(select_state, a_reset_select_keeps_nothing_of_a_refused_state) {
    static const char tdoc[] = "<r><a>xx</a><b><a>y</a><c/></b><a>z</a></r>";
    static const char path[] = "r/*/text()";
    stax_reader *r = stax_reader_new(NULL);
    stax_reader_feed(r, tdoc, strlen(tdoc));
    stax_reader_end(r);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    /* the smallest max_state (by 8 bytes) the whole document reads with */
    size_t max = 8;
    for (;; max += 8) {
        stax_test_buf out = {0};
        int st;
        stax_select *s = tight_select(path, max, &out, &st);
        for (size_t i = 0; st == STAX_OK && i < b->count; i++) st = stax_select_event(s, b, i);
        stax_select_free(s);
        stax_test_buf_free(&out);
        if (st == STAX_OK) break;
        cr_assert_eq(st, STAX_E_LIMIT_STATE);
    }
    size_t cuts = 0;
    for (size_t at = 0; at < b->count; at++) {
        stax_test_buf serial = {0}, whole = {0};
        stax_select *s = tight_select(path, max, &whole, NULL);
        for (size_t i = 0; i <= at; i++) cr_assert_eq(stax_select_event(s, b, i), STAX_OK);
        size_t len = 0;
        if (stax_select_save(s, NULL, 0, &len) != STAX_OK) {
            stax_select_free(s);
            stax_test_buf_free(&whole);
            continue;
        }
        cuts++;
        unsigned char *state = (unsigned char *)malloc(len), *bad = (unsigned char *)malloc(len);
        cr_assert_eq(stax_select_save(s, state, len, &len), STAX_OK);
        /* what a new select resumed from the state gives */
        stax_select *n = tight_select(path, max, &serial, NULL);
        cr_assert_eq(stax_select_resume(n, state, len), STAX_OK, "%s", stax_select_message(n));
        for (size_t j = at + 1; j < b->count; j++) cr_assert_eq(stax_select_event(n, b, j), STAX_OK);
        stax_select_free(n);
        for (size_t k = 0; k < len; k++)
            for (unsigned v = 0; v < 3; v++) {
                static const unsigned char vals[] = {0x05, 0x7f, 0xff};
                stax_test_buf rest = {0};
                memcpy(bad, state, len);
                bad[k] ^= vals[v];
                stax_select *t = tight_select(path, max, &rest, NULL);
                int st = stax_select_resume(t, bad, len);
                cr_assert(st == STAX_OK || st == STAX_E_CONTEXT, "%d", st);
                stax_select_reset(t);
                cr_assert_eq(stax_select_resume(t, state, len), STAX_OK, "after byte %zu of %zu changed: %s", k, len,
                             stax_select_message(t));
                for (size_t j = at + 1; j < b->count; j++) {
                    st = stax_select_event(t, b, j);
                    cr_assert_eq(st, STAX_OK, "cut after event %zu, byte %zu of %zu changed: event %zu: %s", at, k, len, j,
                                 stax_select_message(t));
                }
                cr_assert(rest.len == serial.len && (rest.len == 0 || memcmp(rest.p, serial.p, rest.len) == 0),
                          "cut after event %zu, byte %zu changed:\n%.*s\nwant:\n%.*s", at, k, (int)rest.len, rest.p,
                          (int)serial.len, serial.p);
                stax_select_free(t);
                stax_test_buf_free(&rest);
            }
        free(state);
        free(bad);
        stax_select_free(s);
        stax_test_buf_free(&serial);
        stax_test_buf_free(&whole);
    }
    cr_assert_gt(cuts, 5);
    stax_reader_free(r);
}

/* A select of path with max_state ms and max_held mh (0: the default), in
 * a fixed block of its own when block is set (*block gets it, to free);
 * NULL when the options or the compile are refused. */
static stax_select *limited_select(const char *path, unsigned flags, size_t ms, size_t mh, int fixed, void **block,
                                   stax_test_buf *out) {
    stax_select_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.max_state = ms;
    o.max_held = mh;
    o.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    *block = NULL;
    if (fixed) {
        o.memory_size = stax_select_memory_size(&o, strlen(path));
        if (!o.memory_size) return NULL;
        o.memory = *block = malloc(o.memory_size);
    }
    int compiled = STAX_OK;
    stax_select *s = select_of(&o, path, out, &compiled);
    if (s && compiled == STAX_OK) return s;
    stax_select_free(s);
    free(*block);
    *block = NULL;
    return NULL;
}

/* Where the whole read reaches max_state or max_held, a select resumed
 * from a state saved at any event before reaches it at the same event,
 * with the same message, and before that gives the same output: a state
 * holds the capacities the limits count, so they grow in the resumed
 * select from where they were. Every max_state by 8 bytes and max_held by
 * 64 from the smallest (without STAX_TEST_FULL, every third); the
 * resumed select in a fixed block at every other pair of settings, with
 * XML values at every other max_state. */
Test(select_state, a_resumed_select_reaches_a_limit_where_the_original_does) {
    static const char ldoc[] =
        "<r><g k='1'><a>1</a><a>2</a>text<a>p</a></g><g k='2'><a>3<b>in<c><d><e>deep</e></d></c></b></a><a x='y'>4</a>"
        "</g><a><a><a><a><a><a>x</a></a></a></a></a></a><a>one<a>two<a>three</a></a></a><a>5</a></r>";
    static const char *const lpaths[] = {"//a", "//a[1]", "//a/text()", "//g[@k='2']/a", "//b//*", "//*[2]"};
    stax_reader *r = stax_reader_new(NULL);
    stax_reader_feed(r, ldoc, strlen(ldoc));
    stax_reader_end(r);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    size_t differ = 0, limited = 0, cases = 0;
    for (size_t p = 0; p < sizeof lpaths / sizeof lpaths[0]; p++)
        for (unsigned held = 0; held < 2; held++)
            for (size_t step = 1; step <= 96; step += stax_test_full() ? 1 : 3) {
                unsigned flags = held || step % 2 ? STAX_SELECT_XML : 0;
                size_t ms = held ? 0 : 8 * step, mh = held ? STAX_WRITER_MIN_MEMORY + 2048 + 64 * step : 0;
                stax_test_buf whole = {0};
                void *wb, *cb, *tb;
                stax_select *s = limited_select(lpaths[p], flags, ms, mh, 0, &wb, &whole);
                if (!s) continue;
                size_t fail = b->count;
                int wst = STAX_OK;
                char wmsg[256] = "";
                for (size_t i = 0; i < b->count && !wst; i++)
                    if ((wst = stax_select_event(s, b, i)) != STAX_OK) {
                        fail = i;
                        snprintf(wmsg, sizeof wmsg, "%s", stax_select_message(s));
                    }
                stax_select_free(s);
                if (wst) {
                    cr_assert(wst == STAX_E_LIMIT_STATE || wst == STAX_E_LIMIT_HELD, "%d", wst);
                    limited++;
                }
                for (size_t at = 0; at < fail; at++) {
                    stax_test_buf out = {0};
                    stax_select *c = limited_select(lpaths[p], flags, ms, mh, 0, &cb, &out);
                    cr_assert_not_null(c);
                    for (size_t i = 0; i <= at; i++) cr_assert_eq(stax_select_event(c, b, i), STAX_OK);
                    size_t len = 0;
                    unsigned char state[4096];
                    if (stax_select_save(c, state, sizeof state, &len) != STAX_OK) {
                        stax_select_free(c);
                        stax_test_buf_free(&out);
                        continue;
                    }
                    stax_select *t = limited_select(lpaths[p], flags, ms, mh, (step / 2) % 2, &tb, &out);
                    cr_assert_not_null(t);
                    int st = stax_select_resume(t, state, len);
                    cr_assert_eq(st, STAX_OK, "%s", stax_select_message(t));
                    size_t tfail = b->count;
                    for (size_t i = at + 1; i < b->count && !st; i++)
                        if ((st = stax_select_event(t, b, i)) != STAX_OK) tfail = i;
                    cases++;
                    int same = st == wst && tfail == fail && (!st || !strcmp(wmsg, stax_select_message(t))) &&
                               (st || (out.len == whole.len && (!out.len || memcmp(out.p, whole.p, out.len) == 0)));
                    if (!same && ++differ <= 5) {
                        cr_log_info("%s, max_state %zu, max_held %zu, cut after %zu: whole %d at %zu (%s), resumed %d at %zu (%s)",
                                     lpaths[p], ms, mh, at, wst, fail, wmsg, st, tfail, stax_select_message(t));
                    }
                    stax_select_free(c);
                    stax_select_free(t);
                    free(cb);
                    free(tb);
                    stax_test_buf_free(&out);
                }
                stax_test_buf_free(&whole);
            }
    cr_assert_gt(limited, stax_test_full() ? 100 : 33, "only %zu settings reached a limit", limited);
    cr_assert_gt(cases, stax_test_full() ? 1000 : 333);
    cr_assert_eq(differ, 0, "%zu of %zu resumed selects went otherwise than the whole read", differ, cases);
    stax_reader_free(r);
}

/* Reset in the middle of a document again and again (values held open,
 * XML writers in use), in a fixed block of the size stax_select_memory_size
 * gives: every whole read after gives the first one's output, and nothing
 * runs out of the block (a reset gives back what the document took). */
Test(select_state, a_select_reset_many_times_in_its_fixed_block_reads_as_a_new_one) {
    static const char rdoc[] = "<r><n k='1'><t>a<b>x</b></t><t>b</t></n><n k='2'><t>c</t><n k='3'><t>d</t></n></n></r>";
    static const char path[] = "//n|//t";
    stax_select_options o;
    memset(&o, 0, sizeof o);
    o.flags = STAX_SELECT_XML;
    o.max_state = 4096;
    o.max_held = 64 * 1024;
    o.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    o.memory_size = stax_select_memory_size(&o, strlen(path));
    cr_assert_gt(o.memory_size, 0);
    void *block = malloc(o.memory_size);
    o.memory = block;
    stax_test_buf first = {0}, out = {0};
    stax_select *s = stax_select_new(&o);
    cr_assert_not_null(s);
    cr_assert_eq(stax_select_compile(s, stax_strz(path), stax_strz("")), STAX_OK, "%s", stax_select_message(s));
    stax_reader *r = stax_reader_new(NULL);
    stax_reader_feed(r, rdoc, strlen(rdoc));
    stax_reader_end(r);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_OK);
    stax_select_set_output(s, collect, &first);
    for (size_t i = 0; i < b->count; i++) cr_assert_eq(stax_select_event(s, b, i), STAX_OK, "%s", stax_select_message(s));
    cr_assert_gt(first.len, 0);
    for (size_t round = 0; round < 300; round++) {
        stax_select_reset(s);
        stax_test_buf part = {0};
        stax_select_set_output(s, collect, &part);
        size_t stop = 1 + round % (b->count - 1); /* a value open at most of them */
        for (size_t i = 0; i < stop; i++)
            cr_assert_eq(stax_select_event(s, b, i), STAX_OK, "round %zu, event %zu: %s", round, i, stax_select_message(s));
        stax_test_buf_free(&part);
        if (round % 50 != 49) continue;
        stax_select_reset(s);
        out.len = 0;
        stax_select_set_output(s, collect, &out);
        for (size_t i = 0; i < b->count; i++)
            cr_assert_eq(stax_select_event(s, b, i), STAX_OK, "round %zu, event %zu: %s", round, i, stax_select_message(s));
        cr_assert(out.len == first.len && memcmp(out.p, first.p, out.len) == 0, "round %zu:\n%.*s\nwant:\n%.*s", round,
                  (int)out.len, out.p, (int)first.len, first.p);
    }
    stax_select_free(s);
    stax_reader_free(r);
    free(block);
    stax_test_buf_free(&first);
    stax_test_buf_free(&out);
}

/* A select of path with XML values and max_held (NULL when the options are
 * refused: max_held under one writer's block), its output to out. */
static stax_select *held_select(const char *path, size_t max_held, stax_test_buf *out) {
    stax_select_options o;
    memset(&o, 0, sizeof o);
    o.flags = STAX_SELECT_XML;
    o.max_held = max_held;
    o.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    return select_of(&o, path, out, NULL);
}

/* The smallest max_held (by 64 bytes) with which text reads whole through a
 * new held_select. */
static size_t smallest_max_held(const char *path, const char *text) {
    for (size_t held = 1024;; held += 64) {
        stax_test_buf out = {0};
        cr_assert_lt(held, (size_t)1 << 22);
        stax_select *s = held_select(path, held, &out);
        if (!s) continue;
        stax_reader *r = stax_reader_new(NULL);
        stax_reader_feed(r, text, strlen(text));
        stax_reader_end(r);
        const stax_batch *b;
        int st = STAX_OK;
        while (st == STAX_OK && stax_reader_next(r, &b) == STAX_OK) st = stax_select_batch(s, b);
        stax_reader_free(r);
        stax_select_free(s);
        stax_test_buf_free(&out);
        if (st == STAX_OK) return held;
        cr_assert_eq(st, STAX_E_LIMIT_HELD, "%d", st);
        cr_assert_lt(held, (size_t)1 << 22);
    }
}

/* max_held counts the writers' blocks of XML values: a document that had
 * several values open at once (a writer each), then stax_select_reset,
 * and a document that holds a long value behind a short one reads with
 * the max_held a new select needs for it (the first document's writers
 * are given back). */
Test(select_state, a_reset_select_gives_back_the_writers_max_held_counts) {
    static const char path[] = "//t";
    static const char nested[] = "<r><t><t><t><t>x</t></t></t></t></r>";
    char held[4096];
    /* the second t's value is held while the first, open around it, goes on */
    snprintf(held, sizeof held, "<r><t>a<t>%0*d</t></t></r>", 2000, 0);
    size_t need = smallest_max_held(path, nested), need2 = smallest_max_held(path, held);
    size_t max = need > need2 ? need : need2;
    stax_test_buf out = {0};
    stax_select *s = held_select(path, max, &out);
    cr_assert_not_null(s);
    const char *docs[] = {nested, held};
    for (int k = 0; k < 2; k++) {
        stax_select_reset(s);
        stax_reader *r = stax_reader_new(NULL);
        stax_reader_feed(r, docs[k], strlen(docs[k]));
        stax_reader_end(r);
        const stax_batch *b;
        int st = STAX_OK;
        while (st == STAX_OK && stax_reader_next(r, &b) == STAX_OK) st = stax_select_batch(s, b);
        cr_assert_eq(st, STAX_OK, "document %d at max_held %zu (%zu and %zu alone): %s", k, max, need, need2,
                     stax_select_message(s));
        stax_reader_free(r);
    }
    stax_select_free(s);
    stax_test_buf_free(&out);
}

/* Predicates on content: while a candidate is undecided the state cannot be
 * saved (STAX_E_NOSAVE: its matches and the steps after it wait for it);
 * between candidates it can, and a select resumed there goes on as the
 * original, position counters included. */
Test(select_state, predicates_on_content_save_between_candidates) {
    static const char *const preds[] = {"//g[a='3']/a", "//g[not(@k=1)][last()]/a", "//a[position()=last()]", "//g[a>1]",
                                        "//g[count(a)=2][2]/a[.='4']", "//a[text()][2]"};
    for (size_t p = 0; p < sizeof preds / sizeof preds[0]; p++) {
        stax_test_buf serial = {0};
        cut_at(doc, preds[p], 0, (size_t)-1, &serial);
        size_t saved = 0;
        for (size_t at = 0; at < 40; at++) {
            stax_test_buf whole = {0};
            saved += (size_t)cut_at(doc, preds[p], 0, at, &whole);
            cr_assert(whole.len == serial.len && (!whole.len || memcmp(whole.p, serial.p, whole.len) == 0),
                      "%s cut after event %zu:\n%.*s\nwant:\n%.*s", preds[p], at, (int)whole.len, whole.p,
                      (int)serial.len, serial.p);
            stax_test_buf_free(&whole);
        }
        cr_assert_gt(saved, 1, "%s: saved at %zu points only", preds[p], saved);
        cr_assert_lt(saved, 40, "%s: saved inside an undecided candidate", preds[p]);
        stax_test_buf_free(&serial);
    }
}
