/* Writer numbers: stax_writer_attr_int / _uint / _dec and stax_writer_text_int
 * / _uint / _dec against snprintf over edge values and many random ones, their
 * refusals, and the retry rule with them. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ the values */

static uint64_t rng64(uint64_t *s) {
    uint64_t x = *s; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Edge values (every power of ten and its neighbours, the 32- and 64-bit
 * limits), then random values of every bit length. */
static size_t make_values(uint64_t *v, size_t cap) {
    size_t n = 0;
    uint64_t p = 1;
    for (int k = 0; k < 20; k++) {
        v[n++] = p - 1;
        v[n++] = p;
        v[n++] = p + 1;
        if (k < 19) p *= 10;
    }
    static const uint64_t edges[] = {UINT32_MAX - 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, INT64_MAX - 1,
                                     INT64_MAX,      (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX,
                                     99999999,       100000000, 4294967296000000000u};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) v[n++] = edges[i];
    uint64_t s = 88172645463325252u;
    while (n < cap) {
        unsigned bits = 1 + (unsigned)(rng64(&s) % 64);
        v[n++] = bits == 64 ? rng64(&s) : rng64(&s) & ((UINT64_C(1) << bits) - 1);
    }
    return n;
}

#define NVALUES 40000

/* ================================================================ a document and its reference */

typedef struct doc {
    char *p;
    size_t len, cap;
} doc;

static void doc_add(doc *d, const char *s, size_t n) {
    if (d->len + n + 1 > d->cap) {
        while (d->len + n + 1 > d->cap) d->cap = d->cap ? 2 * d->cap : 1 << 16;
        d->p = realloc(d->p, d->cap);
        cr_assert_not_null(d->p);
    }
    memcpy(d->p + d->len, s, n);
    d->len += n;
}

static void doc_printf(doc *d, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    cr_assert(k > 0 && (size_t)k < sizeof tmp);
    doc_add(d, tmp, (size_t)k);
}

/* The reference text of v / 10^frac, with snprintf: integer part, point,
 * fraction padded with zeros. */
static void ref_dec(doc *d, int64_t v, unsigned frac) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, p = 1;
    for (unsigned k = 0; k < frac; k++) p *= 10;
    if (frac == 0)
        doc_printf(d, "%s%" PRIu64, v < 0 ? "-" : "", mag);
    else
        doc_printf(d, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", mag / p, (int)frac, mag % p);
}

static void expect_doc(stax_writer *w, const doc *want) {
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    stax_str m = stax_writer_memory(w);
    size_t i = 0;
    while (i < m.len && i < want->len && m.ptr[i] == want->p[i]) i++;
    cr_assert(m.len == want->len && i == m.len, "outputs differ at byte %zu: [%.*s] vs [%.*s]", i,
              (int)(m.len - i < 60 ? m.len - i : 60), m.ptr + i, (int)(want->len - i < 60 ? want->len - i : 60),
              want->p + i);
}

static stax_writer *mk(size_t buffer) {
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = buffer;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    return w;
}

/* ================================================================ exactness */

Test(writer_numbers, integers_as_snprintf) {
    static uint64_t v[NVALUES];
    size_t n = make_values(v, NVALUES);
    /* a small buffer too, so that numbers also take the piece path at its end */
    for (size_t buffer = 64; buffer <= 65536; buffer *= 1024) {
        stax_writer *w = mk(buffer);
        doc want = {0};
        cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
        doc_add(&want, "<r>", 3);
        for (size_t i = 0; i < n; i++) {
            int64_t s = (int64_t)v[i], m = s == INT64_MIN ? s : -s;
            cr_assert_eq(stax_writer_start_z(w, "n"), STAX_OK);
            cr_assert_eq(stax_writer_attr_int_z(w, "i", s), STAX_OK);
            cr_assert_eq(stax_writer_attr_uint_z(w, "u", v[i]), STAX_OK);
            cr_assert_eq(stax_writer_attr_int_z(w, "m", m), STAX_OK);
            cr_assert_eq(stax_writer_text_int(w, s), STAX_OK);
            cr_assert_eq(stax_writer_text_z(w, " "), STAX_OK);
            cr_assert_eq(stax_writer_text_uint(w, v[i]), STAX_OK);
            cr_assert_eq(stax_writer_end(w), STAX_OK);
            doc_printf(&want, "<n i=\"%" PRId64 "\" u=\"%" PRIu64 "\" m=\"%" PRId64 "\">%" PRId64 " %" PRIu64 "</n>", s,
                       v[i], m, s, v[i]);
        }
        doc_add(&want, "</r>", 4);
        expect_doc(w, &want);
        stax_writer_free(w);
        free(want.p);
    }
}

Test(writer_numbers, decimals_as_snprintf) {
    static uint64_t v[NVALUES];
    size_t n = make_values(v, NVALUES);
    stax_writer *w = mk(0);
    doc want = {0};
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    doc_add(&want, "<r>", 3);
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)v[i];
        unsigned frac = (unsigned)(i % 20);
        cr_assert_eq(stax_writer_start_z(w, "d"), STAX_OK);
        cr_assert_eq(stax_writer_attr_dec_z(w, "v", s, frac), STAX_OK);
        cr_assert_eq(stax_writer_text_dec(w, s, 19 - frac), STAX_OK);
        cr_assert_eq(stax_writer_end(w), STAX_OK);
        doc_add(&want, "<d v=\"", 6);
        ref_dec(&want, s, frac);
        doc_add(&want, "\">", 2);
        ref_dec(&want, s, 19 - frac);
        doc_add(&want, "</d>", 4);
    }
    doc_add(&want, "</r>", 4);
    expect_doc(w, &want);
    stax_writer_free(w);
    free(want.p);
}

Test(writer_numbers, decimal_examples) {
    static const struct {
        int64_t v;
        unsigned frac;
        const char *want;
    } cases[] = {
        {1999, 2, "19.99"},
        {-5, 3, "-0.005"},
        {7, 0, "7"},
        {0, 2, "0.00"},
        {-1, 1, "-0.1"},
        {100, 2, "1.00"},
        {INT64_MIN, 0, "-9223372036854775808"},
        {INT64_MIN, 19, "-0.9223372036854775808"},
        {INT64_MAX, 18, "9.223372036854775807"},
        {INT64_MAX, 19, "0.9223372036854775807"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stax_writer *w = mk(0);
        cr_assert_eq(stax_writer_start_z(w, "x"), STAX_OK);
        cr_assert_eq(stax_writer_text_dec(w, cases[i].v, cases[i].frac), STAX_OK);
        doc want = {0};
        doc_printf(&want, "<x>%s</x>", cases[i].want);
        expect_doc(w, &want);
        stax_writer_free(w);
        free(want.p);
    }
}

Test(writer_numbers, element_numbers_as_the_three_calls) {
    /* element_int / _uint / _dec write what start, text_* and end write, at
     * both buffer sizes (the element's fast case and its three calls) */
    static uint64_t v[NVALUES];
    size_t n = make_values(v, 4000);
    for (size_t buffer = 64; buffer <= 65536; buffer *= 1024) {
        stax_writer *w = mk(buffer), *ref = mk(buffer);
        cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
        cr_assert_eq(stax_writer_start_z(ref, "r"), STAX_OK);
        for (size_t i = 0; i < n; i++) {
            int64_t s = (int64_t)v[i];
            unsigned frac = (unsigned)(i % 20);
            cr_assert_eq(stax_writer_element_int_z(w, "i", s), STAX_OK);
            cr_assert_eq(stax_writer_element_uint_z(w, "u", v[i]), STAX_OK);
            cr_assert_eq(stax_writer_element_dec_z(w, "d", s, frac), STAX_OK);
            cr_assert_eq(stax_writer_start_z(ref, "i"), STAX_OK);
            cr_assert_eq(stax_writer_text_int(ref, s), STAX_OK);
            cr_assert_eq(stax_writer_end(ref), STAX_OK);
            cr_assert_eq(stax_writer_start_z(ref, "u"), STAX_OK);
            cr_assert_eq(stax_writer_text_uint(ref, v[i]), STAX_OK);
            cr_assert_eq(stax_writer_end(ref), STAX_OK);
            cr_assert_eq(stax_writer_start_z(ref, "d"), STAX_OK);
            cr_assert_eq(stax_writer_text_dec(ref, s, frac), STAX_OK);
            cr_assert_eq(stax_writer_end(ref), STAX_OK);
        }
        cr_assert_eq(stax_writer_finish(ref), STAX_OK);
        stax_str m = stax_writer_memory(ref);
        doc want = {0};
        doc_add(&want, m.ptr, m.len);
        expect_doc(w, &want);
        /* and against snprintf, the first few */
        cr_assert(memcmp(want.p, "<r><i>0</i><u>0</u><d>0</d><i>1</i><u>1</u><d>0.1</d>", 52) == 0, "%.60s", want.p);
        stax_writer_free(w);
        stax_writer_free(ref);
        free(want.p);
    }
}

Test(writer_numbers, element_number_refusals) {
    stax_writer *w = mk(0);
    cr_assert_eq(stax_writer_element_int_z(w, "a", 1), STAX_OK); /* the root */
    cr_assert_eq(stax_writer_element_int_z(w, "b", 1), STAX_E_STATE); /* a second root */
    stax_writer_free(w);
    w = mk(0);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_element_uint_z(w, "1a", 1), STAX_E_INVALID);
    cr_assert_eq(stax_writer_element_dec_z(w, "a", 1, 20), STAX_E_USAGE);
    cr_assert(strstr(stax_writer_message(w), "stax_writer_element") != NULL, "%s", stax_writer_message(w));
    cr_assert_eq(stax_writer_element_dec_z(w, "a", -1999, 2), STAX_OK);
    doc want = {0};
    doc_printf(&want, "<r><a>-19.99</a></r>");
    expect_doc(w, &want);
    stax_writer_free(w);
    free(want.p);
    cr_assert_eq(stax_writer_element_int_z(NULL, "a", 1), STAX_E_USAGE);
}

/* ================================================================ refusals */

Test(writer_numbers, refusals_write_nothing) {
    stax_writer *w = mk(0);
    cr_assert_eq(stax_writer_attr_int_z(w, "a", 1), STAX_E_STATE); /* no start tag */
    cr_assert_eq(stax_writer_text_int(w, 1), STAX_E_STATE);        /* text outside the root */
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_attr_int_z(w, "1a", 1), STAX_E_INVALID);
    cr_assert_eq(stax_writer_attr_int_z(w, "a", 1), STAX_OK);
    cr_assert_eq(stax_writer_attr_uint_z(w, "a", 2), STAX_E_DUP_ATTR);
    cr_assert_eq(stax_writer_attr_dec_z(w, "b", 2, 20), STAX_E_USAGE);
    cr_assert(strstr(stax_writer_message(w), "stax_writer_attr") != NULL, "%s", stax_writer_message(w));
    cr_assert_eq(stax_writer_text_dec(w, 2, 20), STAX_E_USAGE);
    cr_assert_eq(stax_writer_text_dec(w, 2, 19), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK);
    cr_assert_eq(stax_writer_text_int(w, 3), STAX_E_STATE); /* after the root */
    doc want = {0};
    doc_printf(&want, "<r a=\"1\">0.0000000000000000002</r>");
    expect_doc(w, &want);
    stax_writer_free(w);
    free(want.p);
    cr_assert_eq(stax_writer_attr_int_z(NULL, "a", 1), STAX_E_USAGE);
    cr_assert_eq(stax_writer_text_dec(NULL, 1, 30), STAX_E_USAGE);
}

/* ================================================================ the retry rule */

typedef struct blocky {
    uint64_t rng;
    doc out;
} blocky;

/* Takes nothing two times in three, else a random part. */
static ptrdiff_t blocky_sink(void *ctx, const void *data, size_t len) {
    blocky *b = ctx;
    uint64_t r = rng64(&b->rng);
    size_t k = r % 3 ? 0 : (size_t)(r >> 8) % (len + 1);
    doc_add(&b->out, data, k);
    return (ptrdiff_t)k;
}

#define RETRY(call)                                                    \
    do {                                                               \
        int st_;                                                       \
        while ((st_ = (call)) == STAX_WOULD_BLOCK) blocked++;          \
        cr_assert_eq(st_, STAX_OK, "%s: %d", #call, st_);              \
    } while (0)

Test(writer_numbers, retry_rule_with_numbers) {
    static uint64_t v[2000];
    size_t n = make_values(v, 2000);
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = 64;
    stax_writer *w = stax_writer_new(&o);
    blocky b = {12345, {0}};
    cr_assert_eq(stax_writer_set_sink(w, blocky_sink, &b), STAX_OK);
    doc want = {0};
    unsigned long blocked = 0;
    RETRY(stax_writer_start_z(w, "r"));
    doc_add(&want, "<r>", 3);
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)v[i];
        unsigned frac = (unsigned)(i % 20);
        RETRY(stax_writer_start_z(w, "n"));
        RETRY(stax_writer_attr_int_z(w, "i", s));
        RETRY(stax_writer_attr_dec_z(w, "d", s, frac));
        RETRY(stax_writer_text_uint(w, v[i]));
        RETRY(stax_writer_end(w));
        doc_printf(&want, "<n i=\"%" PRId64 "\" d=\"", s);
        ref_dec(&want, s, frac);
        doc_printf(&want, "\">%" PRIu64 "</n>", v[i]);
    }
    RETRY(stax_writer_end(w));
    RETRY(stax_writer_finish(w));
    doc_add(&want, "</r>", 4);
    cr_assert(blocked > 1000, "blocked only %lu times", blocked);
    cr_assert(b.out.len == want.len && memcmp(b.out.p, want.p, want.len) == 0, "outputs differ");
    stax_writer_free(w);
    free(b.out.p);
    free(want.p);
}

static ptrdiff_t shut_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    return *(int *)ctx ? (ptrdiff_t)len : 0;
}

Test(writer_numbers, retry_with_another_value_refused) {
    int open = 0;
    stax_writer_options o;
    memset(&o, 0, sizeof o);
    o.buffer_size = 64;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_eq(stax_writer_set_sink(w, shut_sink, &open), STAX_OK);
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    char name[60];
    memset(name, 'a', sizeof name);
    stax_str nm = {name, sizeof name};
    cr_assert_eq(stax_writer_attr_int(w, nm, 123456), STAX_WOULD_BLOCK);
    cr_assert_eq(stax_writer_attr_int(w, nm, 654321), STAX_E_USAGE);  /* same length, other value */
    cr_assert_eq(stax_writer_attr_int(w, nm, 1234567), STAX_E_USAGE); /* other length */
    cr_assert_eq(stax_writer_attr(w, nm, stax_strz("123456")), STAX_E_STATE); /* another call */
    cr_assert_eq(stax_writer_text_int(w, 123456), STAX_E_STATE);
    cr_assert_eq(stax_writer_attr_uint(w, nm, 123456), STAX_WOULD_BLOCK); /* the same bytes */
    open = 1;
    cr_assert_eq(stax_writer_attr_int(w, nm, 123456), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    cr_assert_eq(stax_writer_bytes_out(w), 2 + 1 + 60 + 2 + 6 + 1 + 1 + 4); /* <r a..a="123456"></r> */
    stax_writer_free(w);
}
