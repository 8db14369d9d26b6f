/* Block scanning (scan.c): every SIMD level this CPU has gives the same
 * answers as the portable byte-by-byte loops, on random text made of the
 * bytes that matter (markup, references, line feeds, controls, UTF-8 of
 * every length, broken UTF-8) at every alignment and length. */
#include "scan.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng_state;
static uint32_t rng(void) {
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng_state >> 33);
}

/* Random bytes, weighted towards what the scanners look at. */
static size_t fill(unsigned char *p, size_t n) {
    static const char *const pieces[] = {"a", "b", " ", "  ", "\t", "\n", "\r", "<", "&", "]", "\x01", "\x1f",
                                         "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbe",
                                         "\xef\xbf\xbd", "\xed\xa0\x80", "\xc0\xaf", "\x80", "\xf4\x90\x80\x80",
                                         "\xe0\x9f\xbf", "\xc3", "\xe2\x82", "\x7f", "\xc2\x85", "xyz   "};
    size_t o = 0;
    unsigned plain = rng() % 4; /* some runs mostly plain ASCII, to reach the wide loops */
    while (o < n) {
        const char *s = rng() % 8 < plain * 2 ? "abcdefgh ij" : pieces[rng() % (sizeof pieces / sizeof *pieces)];
        size_t l = strlen(s);
        if (o + l > n) l = n - o;
        memcpy(p + o, s, l);
        o += l;
    }
    return o;
}

static int levels(void) { return stax__simd_level(); }

Test(scan, text_runs_agree_at_every_level) {
    static unsigned char buf[700];
    rng_state = 12345;
    int top = levels();
    for (int round = 0; round < 40000; round++) {
        size_t n = rng() % 600 + 1, i = rng() % 70;
        if (i > n) i = n;
        fill(buf, n);
        stax__tscan ref = {0, 0, 0, 0, 0};
        size_t want = stax__scan_text_run(0, (const char *)buf, i, n, &ref);
        for (int lv = 1; lv <= top; lv++) {
            stax__tscan got = {0, 0, 0, 0, 0};
            size_t k = stax__scan_text_run(lv, (const char *)buf, i, n, &got);
            cr_assert_eq(k, want, "round %d level %d: stop %zu, portable %zu", round, lv, k, want);
            cr_assert_eq(got.lfs, ref.lfs, "round %d level %d: lfs", round, lv);
            cr_assert_eq(got.nonws, ref.nonws, "round %d level %d: nonws", round, lv);
            cr_assert_eq(got.hi, ref.hi, "round %d level %d: hi", round, lv);
            cr_assert_eq(got.cont, ref.cont, "round %d level %d: cont %zu vs %zu", round, lv, got.cont, ref.cont);
            if (ref.lfs) cr_assert_eq(got.line_at, ref.line_at, "round %d level %d: line_at", round, lv);
        }
    }
}

Test(scan, utf8_checks_agree_at_every_level) {
    static unsigned char buf[700];
    rng_state = 999;
    int top = levels();
    for (int round = 0; round < 40000; round++) {
        size_t n = rng() % 600;
        fill(buf, n);
        /* mostly valid text: controls and markup do not matter here, and
         * most rounds carry no error or only one, late */
        for (size_t k = 0; k < n; k++)
            if (buf[k] < 0x20 || buf[k] == 0x80) buf[k] = rng() % 3 ? 'q' : buf[k];
        size_t want = stax__scan_utf8(0, (const char *)buf, n, n);
        for (int lv = 1; lv <= top; lv++) {
            size_t got = stax__scan_utf8(lv, (const char *)buf, n, n);
            cr_assert_eq(got, want, "round %d level %d: %zu, portable %zu (n %zu)", round, lv, got, want, n);
        }
    }
}

/* Every 1-, 2-, 3- and 4-byte sequence shape, alone among ASCII, at every
 * offset of a 64-byte block: the wide check finds the same first error. */
Test(scan, utf8_every_sequence_at_every_offset) {
    int top = levels();
    char buf[160];
    for (unsigned lead = 0x80; lead <= 0xFF; lead++) {
        for (unsigned b2 = 0x70; b2 <= 0xC0; b2 += 0x08) {
            for (unsigned b3 = 0x7F; b3 <= 0xC0; b3 += 0x3F) {
                for (size_t at = 0; at < 70; at += 5) {
                    memset(buf, 'a', sizeof buf);
                    buf[at] = (char)lead;
                    buf[at + 1] = (char)b2;
                    buf[at + 2] = (char)b3;
                    buf[at + 3] = (char)0x80;
                    size_t want = stax__scan_utf8(0, buf, sizeof buf, sizeof buf);
                    for (int lv = 1; lv <= top; lv++)
                        cr_assert_eq(stax__scan_utf8(lv, buf, sizeof buf, sizeof buf), want, "%02X %02X %02X at %zu, level %d", lead,
                                     b2, b3, at, lv);
                }
            }
        }
    }
}

/* The same shapes cut by the end of the run (the wide check's tail block),
 * and U+FFFE / U+FFFF against their neighbours, at lengths around one and
 * two blocks. */
Test(scan, utf8_sequences_cut_by_the_end) {
    int top = levels();
    char buf[80];
    static const unsigned char conts[] = {0x80, 0xBD, 0xBE, 0xBF, 0xC0};
    for (unsigned lead = 0x80; lead <= 0xFF; lead++) {
        for (size_t c2 = 0; c2 < sizeof conts; c2++) {
            for (size_t c3 = 0; c3 < sizeof conts; c3++) {
                for (size_t at = 0; at < 70; at += 3) {
                    memset(buf, 'a', sizeof buf);
                    buf[at] = (char)lead;
                    buf[at + 1] = (char)conts[c2];
                    buf[at + 2] = (char)conts[c3];
                    buf[at + 3] = (char)0x80;
                    for (size_t n = at + 1; n <= at + 5 && n <= sizeof buf; n++) {
                        size_t want = stax__scan_utf8(0, buf, n, n);
                        for (int lv = 1; lv <= top; lv++)
                            cr_assert_eq(stax__scan_utf8(lv, buf, n, n), want, "%02X %02X %02X at %zu, n %zu, level %d",
                                         lead, conts[c2], conts[c3], at, n, lv);
                        /* read in place past n, up to the '<' that ends a text there */
                        char was = buf[n];
                        buf[n] = '<';
                        for (int lv = 1; lv <= top; lv++)
                            cr_assert_eq(stax__scan_utf8(lv, buf, n, sizeof buf), want,
                                         "%02X %02X %02X at %zu, n %zu, level %d, in place", lead, conts[c2], conts[c3],
                                         at, n, lv);
                        buf[n] = was;
                    }
                }
            }
        }
    }
}

/* The inline scanners of stax_internal.h (SSE2 or NEON blocks, then a byte
 * loop) against byte loops written from their definitions, at every start
 * and length: text (without '<', which its callers never hand it), attribute
 * values, two bytes, tags. */
static size_t ref_text(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n && !(p[i] == '&' || p[i] == ']' || p[i] >= 0x80 || (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n'))) i++;
    return i;
}
static size_t ref_attr(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n && !(p[i] == '<' || p[i] == '&' || p[i] >= 0x80 || p[i] < 0x20)) i++;
    return i;
}
static size_t ref_tag(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n && !(p[i] == '<' || p[i] == '>' || p[i] == '"' || p[i] == '\'')) i++;
    return i;
}

Test(scan, inline_scanners_agree_with_byte_loops) {
    static unsigned char buf[200];
    rng_state = 777;
    for (int round = 0; round < 20000; round++) {
        size_t n = rng() % 120 + 1, i = rng() % 40;
        if (i > n) i = n;
        memset(buf, 'a', sizeof buf);
        /* long plain runs with one byte that stops one scanner or another */
        for (size_t k = 0, stops = rng() % 4; k < stops; k++) {
            static const unsigned char some[] = {'<', '>', '&', ']', '"', '\'', '\t', '\n', '\r', 0x01, 0x1f, 0x7f, 0x80, 0xc3, 0xff, ' ', 'x', '='};
            buf[rng() % n] = some[rng() % sizeof some];
        }
        const char *p = (const char *)buf + i;
        size_t len = n - i;
        cr_assert_eq(stax__scan_attr(p, len), ref_attr(buf + i, len), "attr: round %d", round);
        cr_assert_eq(stax__scan_tag(p, len), ref_tag(buf + i, len), "tag: round %d", round);
        size_t want2 = 0;
        while (want2 < len && p[want2] != '"' && p[want2] != '<') want2++;
        cr_assert_eq(stax__scan2(p, len, '"', '<'), want2, "scan2: round %d", round);
        for (size_t k = 0; k < n; k++)
            if (buf[k] == '<') buf[k] = 'b';
        cr_assert_eq(stax__scan_text(p, len), ref_text(buf + i, len), "text: round %d", round);
    }
}
