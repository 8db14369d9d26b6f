/* Input encodings (encoding.c): names, Appendix F detection, resolution of a
 * declaration against detection, and transcoding to UTF-8. Expected outputs
 * are hand-written bytes (or, for the long inputs, built by the small encoder
 * in this file), never produced by the code under test. Every input is fed
 * whole, in pieces of 1, 2, 3 and 7 bytes, and at every two-piece and
 * three-piece split, into output buffers from 8 bytes up; every source piece
 * and output buffer is a heap block of exactly its size, so that a sanitizer
 * build catches any read or write past either. */
#include "encoding.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ driver */

enum { RUN_OK = 0, RUN_DECODE_ERROR = 1, RUN_FINISH_ERROR = 2 };

typedef struct run_result {
    int status;    /* RUN_* */
    size_t err_at; /* absolute offset of the bad unit (RUN_DECODE_ERROR) or of the partial one (RUN_FINISH_ERROR) */
    size_t len;
    unsigned char out[8192];
} run_result;

/* Decode in[0, n) cut at cuts[0..ncuts) (increasing offsets), into an output
 * buffer of cap bytes drained after every call. */
static void run_cuts(run_result *r, int enc, const uint32_t *table, const unsigned char *in, size_t n,
                     const size_t *cuts, size_t ncuts, size_t cap) {
    stax__decoder d;
    stax__decoder_init(&d, enc, table);
    memset(r, 0, sizeof *r);
    char *dst = malloc(cap);
    cr_assert(dst);
    size_t base = 0;
    for (size_t c = 0; c <= ncuts; c++) {
        size_t end = c < ncuts ? cuts[c] : n, plen = end - base;
        char *piece = malloc(plen ? plen : 1);
        cr_assert(piece);
        if (plen) memcpy(piece, in + base, plen);
        size_t off = 0;
        while (off < plen) {
            size_t used = 12345, made = 12345;
            int rc = stax__decode(&d, piece + off, plen - off, &used, dst, cap, &made);
            cr_assert(made <= cap, "produced %zu > cap %zu", made, cap);
            cr_assert(used <= plen - off, "consumed %zu of %zu", used, plen - off);
            cr_assert(r->len + made <= sizeof r->out);
            memcpy(r->out + r->len, dst, made);
            r->len += made;
            if (rc) {
                cr_assert_eq(rc, STAX__DEC_ERROR);
                cr_assert(d.err_pend <= base + off + used);
                r->status = RUN_DECODE_ERROR;
                r->err_at = base + off + used - d.err_pend;
                free(piece);
                free(dst);
                return;
            }
            cr_assert(used > 0 || made > 0, "no progress");
            off += used;
        }
        free(piece);
        base = end;
    }
    if (stax__decode_finish(&d)) {
        r->status = RUN_FINISH_ERROR;
        r->err_at = n - d.npend;
    }
    free(dst);
}

static const size_t caps[] = {8, 9, 10, 11, 12, 13, 16, 17, 31, 33, 4096};
#define NCAPS (sizeof caps / sizeof caps[0])

static void show(const char *what, const unsigned char *p, size_t n) {
    fprintf(stderr, "%s (%zu):", what, n);
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %02X", p[i]);
    fprintf(stderr, "\n");
}

static void expect_run(const run_result *r, const char *how, int status, size_t err_at, const unsigned char *want,
                       size_t wlen) {
    int ok = r->status == status && (status == RUN_OK || r->err_at == err_at) && r->len == wlen &&
             memcmp(r->out, want, wlen) == 0;
    if (!ok) {
        show("want", want, wlen);
        show("got ", r->out, r->len);
    }
    cr_assert(ok, "%s: status %d at %zu (want %d at %zu)", how, r->status, r->err_at, status, err_at);
}

/* Every way of feeding in[0, n) must give want (status, error offset, output). */
static void check_all(int enc, const uint32_t *table, const void *inp, size_t n, int status, size_t err_at,
                      const void *wantp, size_t wlen) {
    const unsigned char *in = inp, *want = wantp;
    static run_result r;
    size_t cuts[3];
    char how[96];
    for (size_t c = 0; c < NCAPS; c++) {
        run_cuts(&r, enc, table, in, n, NULL, 0, caps[c]);
        snprintf(how, sizeof how, "whole, cap %zu", caps[c]);
        expect_run(&r, how, status, err_at, want, wlen);
        static const size_t pieces[] = {1, 2, 3, 7};
        for (size_t p = 0; p < 4; p++) {
            size_t many[4096], nc = 0;
            for (size_t at = pieces[p]; at < n && nc < 4096; at += pieces[p]) many[nc++] = at;
            run_cuts(&r, enc, table, in, n, many, nc, caps[c]);
            snprintf(how, sizeof how, "pieces of %zu, cap %zu", pieces[p], caps[c]);
            expect_run(&r, how, status, err_at, want, wlen);
        }
    }
    for (size_t a = 0; a <= n; a++) {
        cuts[0] = a;
        run_cuts(&r, enc, table, in, n, cuts, 1, 4096);
        snprintf(how, sizeof how, "split at %zu", a);
        expect_run(&r, how, status, err_at, want, wlen);
        run_cuts(&r, enc, table, in, n, cuts, 1, 8);
        snprintf(how, sizeof how, "split at %zu, cap 8", a);
        expect_run(&r, how, status, err_at, want, wlen);
        if (n > 64) continue; /* three-piece splits: the short inputs only */
        for (size_t b = a; b <= n; b++) {
            cuts[1] = b;
            run_cuts(&r, enc, table, in, n, cuts, 2, 4096);
            snprintf(how, sizeof how, "split at %zu and %zu", a, b);
            expect_run(&r, how, status, err_at, want, wlen);
        }
    }
}

#define S(lit) (lit), (sizeof(lit) - 1)
#define CHECK_OK(enc, table, in, out) check_all(enc, table, S(in), RUN_OK, 0, S(out))
#define CHECK_BAD(enc, table, in, at, out) check_all(enc, table, S(in), RUN_DECODE_ERROR, at, S(out))
#define CHECK_TRUNC(enc, table, in, at, out) check_all(enc, table, S(in), RUN_FINISH_ERROR, at, S(out))

/* ================================================================ UTF-16 */

/* < a > é € 😀 U+7F U+80 U+7FF U+800 U+FFFD U+10000 U+10FFFF U+D7FF U+E000 < / a > */
#define U16_TEXT_LE                                                                                    \
    "\x3C\x00\x61\x00\x3E\x00\xE9\x00\xAC\x20\x3D\xD8\x00\xDE\x7F\x00\x80\x00\xFF\x07\x00\x08\xFD\xFF" \
    "\x00\xD8\x00\xDC\xFF\xDB\xFF\xDF\xFF\xD7\x00\xE0\x3C\x00\x2F\x00\x61\x00\x3E\x00"
#define U16_TEXT_BE                                                                                    \
    "\x00\x3C\x00\x61\x00\x3E\x00\xE9\x20\xAC\xD8\x3D\xDE\x00\x00\x7F\x00\x80\x07\xFF\x08\x00\xFF\xFD" \
    "\xD8\x00\xDC\x00\xDB\xFF\xDF\xFF\xD7\xFF\xE0\x00\x00\x3C\x00\x2F\x00\x61\x00\x3E"
#define U16_TEXT_UTF8                                                                           \
    "<a>\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBD"      \
    "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\xED\x9F\xBF\xEE\x80\x80</a>"

Test(encoding, utf16le_every_unit_length) { CHECK_OK(STAX__ENC_UTF16LE, NULL, U16_TEXT_LE, U16_TEXT_UTF8); }

Test(encoding, utf16be_every_unit_length) { CHECK_OK(STAX__ENC_UTF16BE, NULL, U16_TEXT_BE, U16_TEXT_UTF8); }

Test(encoding, utf16_nul_and_bom_pass_through) {
    /* U+0000 and U+FEFF are decoded like any other unit; the reader judges them */
    CHECK_OK(STAX__ENC_UTF16LE, NULL, "\x00\x00\xFF\xFE\x41\x00", "\x00\xEF\xBB\xBF\x41");
    CHECK_OK(STAX__ENC_UTF16BE, NULL, "\x00\x00\xFE\xFF\x00\x41", "\x00\xEF\xBB\xBF\x41");
}

Test(encoding, utf16_empty_input) {
    CHECK_OK(STAX__ENC_UTF16LE, NULL, "", "");
    CHECK_OK(STAX__ENC_UTF16BE, NULL, "", "");
}

Test(encoding, utf16_surrogate_pair_split_across_calls) {
    /* 😀 is D83D DE00; fed one byte per call, the pair is completed from pend */
    CHECK_OK(STAX__ENC_UTF16LE, NULL, "\x3D\xD8\x00\xDE", "\xF0\x9F\x98\x80");
    CHECK_OK(STAX__ENC_UTF16BE, NULL, "\xD8\x3D\xDE\x00", "\xF0\x9F\x98\x80");
    CHECK_OK(STAX__ENC_UTF16LE, NULL, "\x3D\xD8\x00\xDE\x3D\xD8\x00\xDE",
             "\xF0\x9F\x98\x80\xF0\x9F\x98\x80");
}

Test(encoding, utf16_pend_holds_bytes_between_calls) {
    stax__decoder d;
    char out[16];
    size_t used, made;
    stax__decoder_init(&d, STAX__ENC_UTF16LE, NULL);
    cr_assert_eq(stax__decode(&d, "\x3D\xD8\x00", 3, &used, out, sizeof out, &made), 0);
    cr_assert_eq(used, 3);
    cr_assert_eq(made, 0);
    cr_assert_eq(d.npend, 3);
    cr_assert_eq(stax__decode_finish(&d), STAX__DEC_ERROR);
    cr_assert_eq(stax__decode(&d, "\xDE\x41\x00", 3, &used, out, sizeof out, &made), 0);
    cr_assert_eq(used, 3);
    cr_assert_eq(made, 5);
    cr_assert_eq(memcmp(out, "\xF0\x9F\x98\x80\x41", 5), 0);
    cr_assert_eq(d.npend, 0);
    cr_assert_eq(stax__decode_finish(&d), 0);
}

Test(encoding, utf16_odd_byte_counts) {
    CHECK_TRUNC(STAX__ENC_UTF16LE, NULL, "\x3C\x00\x61", 2, "<");
    CHECK_TRUNC(STAX__ENC_UTF16BE, NULL, "\x00\x3C\x00", 2, "<");
    CHECK_TRUNC(STAX__ENC_UTF16LE, NULL, "\x41", 0, "");
    CHECK_TRUNC(STAX__ENC_UTF16LE, NULL, "\x41\x00\x3D\xD8\x00", 2, "A"); /* high surrogate + 1 byte */
}

Test(encoding, utf16_high_surrogate_at_end) {
    CHECK_TRUNC(STAX__ENC_UTF16LE, NULL, "\x3C\x00\x3D\xD8", 2, "<");
    CHECK_TRUNC(STAX__ENC_UTF16BE, NULL, "\x00\x3C\xD8\x3D", 2, "<");
}

Test(encoding, utf16_lone_high_surrogate) {
    CHECK_BAD(STAX__ENC_UTF16LE, NULL, "\x3C\x00\x00\xD8\x61\x00", 2, "<");
    CHECK_BAD(STAX__ENC_UTF16BE, NULL, "\x00\x3C\xD8\x00\x00\x61", 2, "<");
    /* followed by another high surrogate: the first is the bad one */
    CHECK_BAD(STAX__ENC_UTF16LE, NULL, "\xE9\x00\x00\xD8\x00\xD8\x00\xDC", 2, "\xC3\xA9");
    /* followed by U+FFFF-ish BMP unit, right after a valid pair */
    CHECK_BAD(STAX__ENC_UTF16BE, NULL, "\xD8\x3D\xDE\x00\xDB\xFF\xFF\xFF", 4, "\xF0\x9F\x98\x80");
}

Test(encoding, utf16_lone_low_surrogate) {
    CHECK_BAD(STAX__ENC_UTF16LE, NULL, "\x3C\x00\x00\xDC\x61\x00", 2, "<");
    CHECK_BAD(STAX__ENC_UTF16BE, NULL, "\x00\x3C\xDF\xFF", 2, "<");
    CHECK_BAD(STAX__ENC_UTF16LE, NULL, "\x00\xDC", 0, "");
    /* a low surrogate after a complete pair */
    CHECK_BAD(STAX__ENC_UTF16LE, NULL, "\x3D\xD8\x00\xDE\x00\xDE", 4, "\xF0\x9F\x98\x80");
}

Test(encoding, utf16_error_in_pend_reports_bytes_before_src) {
    stax__decoder d;
    char out[16];
    size_t used, made;
    stax__decoder_init(&d, STAX__ENC_UTF16LE, NULL);
    cr_assert_eq(stax__decode(&d, "\x41\x00\x00", 3, &used, out, sizeof out, &made), 0);
    cr_assert_eq(used, 3);
    cr_assert_eq(made, 1);
    cr_assert_eq(stax__decode(&d, "\xD8\x41\x00", 3, &used, out, sizeof out, &made), STAX__DEC_ERROR);
    cr_assert_eq(used, 0);
    cr_assert_eq(made, 0);
    cr_assert_eq(d.err_pend, 1);
}

/* Test-side UTF-16 encoder for the long inputs (code points in, bytes out). */
static size_t t_utf16(const uint32_t *cps, size_t n, int be, unsigned char *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u[2], c = cps[i];
        int m = 1;
        if (c >= 0x10000) u[0] = 0xD800 + ((c - 0x10000) >> 10), u[1] = 0xDC00 + ((c - 0x10000) & 0x3FF), m = 2;
        else u[0] = c;
        for (int j = 0; j < m; j++) {
            out[k++] = (unsigned char)(be ? u[j] >> 8 : u[j] & 0xFF);
            out[k++] = (unsigned char)(be ? u[j] & 0xFF : u[j] >> 8);
        }
    }
    return k;
}

/* The ASCII text with one character inserted at `at`: its code points (or
 * bytes) in cps, its count returned, and the UTF-8 wanted (want, *w). */
static size_t t_run_with(const char *ascii, size_t at, uint32_t odd, const char *utf8, uint32_t *cps,
                         unsigned char *want, size_t *w) {
    size_t n = 0, k = 0, na = strlen(ascii);
    for (size_t i = 0; i < at; i++) cps[n++] = (unsigned char)ascii[i], want[k++] = (unsigned char)ascii[i];
    cps[n++] = odd;
    for (const char *u = utf8; *u; u++) want[k++] = (unsigned char)*u;
    for (size_t i = at; i < na; i++) cps[n++] = (unsigned char)ascii[i], want[k++] = (unsigned char)ascii[i];
    *w = k;
    return n;
}

/* Long ASCII runs (the vector path) with one non-ASCII character moved
 * through every position, so it lands at each offset of a 32-byte block and
 * a surrogate pair straddles every block edge. */
Test(encoding, utf16_long_runs_every_position) {
    static const char ascii[] = "The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs.";
    static const struct {
        uint32_t cp;
        const char *utf8;
    } odd[] = {{0xE9, "\xC3\xA9"},         {0x20AC, "\xE2\x82\xAC"}, {0x1F600, "\xF0\x9F\x98\x80"},
               {0x80, "\xC2\x80"},         {0x4E00, "\xE4\xB8\x80"}, {0x100, "\xC4\x80"},
               {0x7F00, "\xE7\xBC\x80"}}; /* (a unit whose bytes swapped would be ASCII) */
    size_t na = sizeof ascii - 1;
    for (size_t o = 0; o < sizeof odd / sizeof odd[0]; o++)
        for (size_t at = 0; at <= na; at++)
            for (int be = 0; be < 2; be++) {
                uint32_t cps[128];
                unsigned char in[512], want[256];
                size_t w, n = t_run_with(ascii, at, odd[o].cp, odd[o].utf8, cps, want, &w);
                size_t len = t_utf16(cps, n, be, in);
                static run_result r;
                for (size_t c = 0; c < NCAPS; c++) {
                    run_cuts(&r, be ? STAX__ENC_UTF16BE : STAX__ENC_UTF16LE, NULL, in, len, NULL, 0, caps[c]);
                    expect_run(&r, "long run", RUN_OK, 0, want, w);
                }
                size_t cut = len / 2 + 1; /* an odd cut: half a unit in pend */
                run_cuts(&r, be ? STAX__ENC_UTF16BE : STAX__ENC_UTF16LE, NULL, in, len, &cut, 1, 4096);
                expect_run(&r, "long run, odd cut", RUN_OK, 0, want, w);
            }
}

/* A chunk that ends between the two halves of a pair, after an ASCII run:
 * the high half at every place of a 32-byte block and of the chunk's end
 * (each chunk is a copy of its own size, so a read past it is one past the
 * allocation). */
Test(encoding, utf16_pair_cut_after_an_ascii_run) {
    static const char ascii[] = "The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs.";
    size_t na = sizeof ascii - 1;
    for (size_t at = 0; at <= na; at++)
        for (int be = 0; be < 2; be++) {
            uint32_t cps[128];
            unsigned char in[512], want[256];
            size_t w, n = t_run_with(ascii, at, 0x1F600, "\xF0\x9F\x98\x80", cps, want, &w);
            size_t len = t_utf16(cps, n, be, in), cut = 2 * at + 2; /* after the high half */
            static run_result r;
            for (size_t c = 0; c < NCAPS; c++) {
                run_cuts(&r, be ? STAX__ENC_UTF16BE : STAX__ENC_UTF16LE, NULL, in, len, &cut, 1, caps[c]);
                expect_run(&r, "pair cut after a run", RUN_OK, 0, want, w);
            }
        }
}

/* Runs of units whose low byte is 0 (U+0100, U+4E00, ...): read in the
 * other byte order they would be ASCII, so the block path must take each
 * order's high byte. */
Test(encoding, utf16_runs_of_units_ascii_if_swapped) {
    for (int be = 0; be < 2; be++)
        for (size_t lead = 0; lead < 3; lead++) {
            uint32_t cps[64];
            unsigned char in[256], want[256];
            size_t n = 0, w = 0;
            for (size_t i = 0; i < lead; i++) cps[n++] = 'a', want[w++] = 'a';
            for (size_t i = 0; i < 40; i++) {
                uint32_t c = (uint32_t)(1 + (i * 7) % 0x7F) << 8; /* U+0100 to U+7F00 */
                cps[n++] = c;
                if (c < 0x800) {
                    want[w++] = (unsigned char)(0xC0 | c >> 6), want[w++] = (unsigned char)(0x80 | (c & 0x3F));
                } else {
                    want[w++] = (unsigned char)(0xE0 | c >> 12);
                    want[w++] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
                    want[w++] = (unsigned char)(0x80 | (c & 0x3F));
                }
            }
            size_t len = t_utf16(cps, n, be, in);
            static run_result r;
            for (size_t c = 0; c < NCAPS; c++) {
                run_cuts(&r, be ? STAX__ENC_UTF16BE : STAX__ENC_UTF16LE, NULL, in, len, NULL, 0, caps[c]);
                expect_run(&r, "units ASCII if swapped", RUN_OK, 0, want, w);
            }
        }
}

Test(encoding, utf16_long_run_errors_at_every_position) {
    for (size_t at = 0; at < 80; at++)
        for (int kind = 0; kind < 2; kind++) {
            uint32_t cps[96];
            unsigned char in[256], want[96];
            for (size_t i = 0; i < 90; i++) cps[i] = 'a' + i % 26, want[i] = (unsigned char)('a' + i % 26);
            size_t len = t_utf16(cps, 90, 0, in);
            in[2 * at] = 0x00;
            in[2 * at + 1] = kind ? 0xDC : 0xD8; /* lone low, or high followed by a letter */
            static run_result r;
            run_cuts(&r, STAX__ENC_UTF16LE, NULL, in, len, NULL, 0, 4096);
            expect_run(&r, "long run error", RUN_DECODE_ERROR, 2 * at, want, at);
            size_t cut = 2 * at + 1;
            run_cuts(&r, STAX__ENC_UTF16LE, NULL, in, len, &cut, 1, 4096);
            expect_run(&r, "long run error, cut inside", RUN_DECODE_ERROR, 2 * at, want, at);
        }
}

/* Random UTF-16 (runs of ASCII, 2- and 3-byte units, stray surrogates, odd
 * lengths) against a reference decoder written here, fed in random pieces. */
static uint32_t t_rand_state = 12345;
static uint32_t t_rand(void) {
    t_rand_state ^= t_rand_state << 13;
    t_rand_state ^= t_rand_state >> 17;
    t_rand_state ^= t_rand_state << 5;
    return t_rand_state;
}

static void t_ref_utf16(const unsigned char *in, size_t n, int be, run_result *r) {
    memset(r, 0, sizeof *r);
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        uint32_t u = be ? (uint32_t)in[i] << 8 | in[i + 1] : (uint32_t)in[i + 1] << 8 | in[i];
        if (u >= 0xDC00 && u <= 0xDFFF) goto bad;
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (i + 4 > n) break; /* truncated pair */
            uint32_t v = be ? (uint32_t)in[i + 2] << 8 | in[i + 3] : (uint32_t)in[i + 3] << 8 | in[i + 2];
            if (v < 0xDC00 || v > 0xDFFF) goto bad;
            u = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00);
            i += 2;
            r->out[r->len++] = (unsigned char)(0xF0 | u >> 18);
            r->out[r->len++] = (unsigned char)(0x80 | (u >> 12 & 0x3F));
            r->out[r->len++] = (unsigned char)(0x80 | (u >> 6 & 0x3F));
            r->out[r->len++] = (unsigned char)(0x80 | (u & 0x3F));
        } else if (u < 0x80) {
            r->out[r->len++] = (unsigned char)u;
        } else if (u < 0x800) {
            r->out[r->len++] = (unsigned char)(0xC0 | u >> 6);
            r->out[r->len++] = (unsigned char)(0x80 | (u & 0x3F));
        } else {
            r->out[r->len++] = (unsigned char)(0xE0 | u >> 12);
            r->out[r->len++] = (unsigned char)(0x80 | (u >> 6 & 0x3F));
            r->out[r->len++] = (unsigned char)(0x80 | (u & 0x3F));
        }
    }
    if (i < n) r->status = RUN_FINISH_ERROR, r->err_at = i;
    return;
bad:
    r->status = RUN_DECODE_ERROR;
    r->err_at = i;
}

Test(encoding, utf16_random_against_reference) {
    static run_result want, got;
    for (int iter = 0; iter < 400; iter++) {
        unsigned char in[300];
        size_t n = 0, limit = 40 + t_rand() % 250;
        int be = iter & 1, stray = iter % 4 == 0; /* a quarter of the inputs have unpaired surrogates */
        while (n + 4 <= limit) {
            uint32_t kind = t_rand() % 100, u[2];
            int m = 1;
            if (kind < 60) u[0] = 0x20 + t_rand() % 0x5F;
            else if (kind < 72) u[0] = 0x80 + t_rand() % 0x780;
            else if (kind < 84) u[0] = 0x800 + t_rand() % 0xF000, u[0] = u[0] >= 0xD800 && u[0] < 0xE000 ? 0xE000 : u[0];
            else if (kind < 96 || !stray) u[0] = 0xD800 + t_rand() % 0x400, u[1] = 0xDC00 + t_rand() % 0x400, m = 2;
            else u[0] = 0xD800 + t_rand() % 0x800;
            for (int j = 0; j < m; j++) {
                in[n++] = (unsigned char)(be ? u[j] >> 8 : u[j] & 0xFF);
                in[n++] = (unsigned char)(be ? u[j] & 0xFF : u[j] >> 8);
            }
        }
        if (iter % 5 == 1) n--; /* odd length */
        int enc = be ? STAX__ENC_UTF16BE : STAX__ENC_UTF16LE;
        t_ref_utf16(in, n, be, &want);
        size_t cuts[8], nc = 1 + t_rand() % 7;
        for (size_t c = 0; c < nc; c++) cuts[c] = t_rand() % (n + 1);
        for (size_t c = 1; c < nc; c++) /* insertion sort */
            for (size_t d = c; d > 0 && cuts[d - 1] > cuts[d]; d--) {
                size_t t = cuts[d];
                cuts[d] = cuts[d - 1];
                cuts[d - 1] = t;
            }
        size_t cap = caps[t_rand() % NCAPS];
        run_cuts(&got, enc, NULL, in, n, cuts, nc, cap);
        char how[64];
        snprintf(how, sizeof how, "random input %d, cap %zu", iter, cap);
        expect_run(&got, how, want.status, want.err_at, want.out, want.len);
        run_cuts(&got, enc, NULL, in, n, NULL, 0, 4096);
        expect_run(&got, how, want.status, want.err_at, want.out, want.len);
    }
}

Test(encoding, latin1_random_against_reference) {
    static run_result want, got;
    for (int iter = 0; iter < 200; iter++) {
        unsigned char in[400];
        size_t n = t_rand() % sizeof in;
        int high_every = 1 + iter % 40;
        memset(&want, 0, sizeof want);
        for (size_t i = 0; i < n; i++) {
            unsigned c = t_rand() % high_every == 0 ? 0x80 + t_rand() % 0x80 : t_rand() % 0x80;
            in[i] = (unsigned char)c;
            if (c < 0x80) want.out[want.len++] = (unsigned char)c;
            else want.out[want.len++] = (unsigned char)(0xC0 | c >> 6), want.out[want.len++] = (unsigned char)(0x80 | (c & 0x3F));
        }
        size_t cut = t_rand() % (n + 1), cap = caps[t_rand() % NCAPS];
        run_cuts(&got, STAX__ENC_LATIN1, NULL, in, n, &cut, 1, cap);
        expect_run(&got, "random latin-1", RUN_OK, 0, want.out, want.len);
    }
}

/* ================================================================ single-byte encodings */

/* Long ASCII runs (copied by blocks) with one byte from 0x80 moved through
 * every position, in each 8-bit encoding that copies its ASCII whole. */
Test(encoding, single_byte_long_runs_every_position) {
    static const char ascii[] = "The quick brown fox jumps over the lazy dog; pack my box with five dozen jugs.";
    static const struct {
        int enc;
        unsigned char byte;
        const char *utf8;
    } odd[] = {{STAX__ENC_LATIN1, 0xE9, "\xC3\xA9"}, {STAX__ENC_LATIN1, 0x80, "\xC2\x80"},
               {STAX__ENC_CP1252, 0xE9, "\xC3\xA9"}, {STAX__ENC_CP1252, 0x80, "\xE2\x82\xAC"}};
    size_t na = sizeof ascii - 1;
    for (size_t o = 0; o < sizeof odd / sizeof odd[0]; o++)
        for (size_t at = 0; at <= na; at++) {
            uint32_t cps[128];
            unsigned char in[128], want[128];
            size_t w, n = t_run_with(ascii, at, odd[o].byte, odd[o].utf8, cps, want, &w);
            for (size_t i = 0; i < n; i++) in[i] = (unsigned char)cps[i];
            static run_result r;
            for (size_t c = 0; c < NCAPS; c++) {
                run_cuts(&r, odd[o].enc, NULL, in, n, NULL, 0, caps[c]);
                expect_run(&r, "long run", RUN_OK, 0, want, w);
            }
        }
}

Test(encoding, latin1_short) {
    CHECK_OK(STAX__ENC_LATIN1, NULL, "caf\xE9 \xFF\xA0\x80<x/>", "caf\xC3\xA9 \xC3\xBF\xC2\xA0\xC2\x80<x/>");
}

Test(encoding, latin1_every_byte) {
    unsigned char in[256], want[384];
    size_t w = 0;
    for (unsigned c = 0; c < 256; c++) {
        in[c] = (unsigned char)c;
        if (c < 0x80) want[w++] = (unsigned char)c;
        else want[w++] = (unsigned char)(c < 0xC0 ? 0xC2 : 0xC3), want[w++] = (unsigned char)(0x80 | (c & 0x3F));
    }
    check_all(STAX__ENC_LATIN1, NULL, in, 256, RUN_OK, 0, want, w);
}

Test(encoding, ascii_every_valid_byte) {
    unsigned char in[128];
    for (unsigned c = 0; c < 128; c++) in[c] = (unsigned char)c;
    check_all(STAX__ENC_ASCII, NULL, in, 128, RUN_OK, 0, in, 128);
}

Test(encoding, ascii_rejects_high_bytes) {
    CHECK_BAD(STAX__ENC_ASCII, NULL, "<a>x\x80</a>", 4, "<a>x");
    CHECK_BAD(STAX__ENC_ASCII, NULL, "\xFF", 0, "");
    CHECK_BAD(STAX__ENC_ASCII, NULL, "0123456789abcdefghijklmnopqrstuvwxyz\xC3\xA9", 36,
              "0123456789abcdefghijklmnopqrstuvwxyz");
}

Test(encoding, cp1252_c1_range) {
    CHECK_OK(STAX__ENC_CP1252, NULL,
             "\x80\x82\x83\x84\x85\x86\x87\x88\x89\x8A\x8B\x8C\x8E"
             "\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9A\x9B\x9C\x9E\x9F",
             "\xE2\x82\xAC"   /* 80 euro sign */
             "\xE2\x80\x9A"   /* 82 single low-9 quote */
             "\xC6\x92"       /* 83 f with hook */
             "\xE2\x80\x9E"   /* 84 double low-9 quote */
             "\xE2\x80\xA6"   /* 85 ellipsis */
             "\xE2\x80\xA0"   /* 86 dagger */
             "\xE2\x80\xA1"   /* 87 double dagger */
             "\xCB\x86"       /* 88 circumflex */
             "\xE2\x80\xB0"   /* 89 per mille */
             "\xC5\xA0"       /* 8A S caron */
             "\xE2\x80\xB9"   /* 8B single left angle quote */
             "\xC5\x92"       /* 8C OE */
             "\xC5\xBD"       /* 8E Z caron */
             "\xE2\x80\x98"   /* 91 left single quote */
             "\xE2\x80\x99"   /* 92 right single quote */
             "\xE2\x80\x9C"   /* 93 left double quote */
             "\xE2\x80\x9D"   /* 94 right double quote */
             "\xE2\x80\xA2"   /* 95 bullet */
             "\xE2\x80\x93"   /* 96 en dash */
             "\xE2\x80\x94"   /* 97 em dash */
             "\xCB\x9C"       /* 98 small tilde */
             "\xE2\x84\xA2"   /* 99 trade mark */
             "\xC5\xA1"       /* 9A s caron */
             "\xE2\x80\xBA"   /* 9B single right angle quote */
             "\xC5\x93"       /* 9C oe */
             "\xC5\xBE"       /* 9E z caron */
             "\xC5\xB8");     /* 9F Y diaeresis */
}

Test(encoding, cp1252_latin1_range_and_ascii) {
    CHECK_OK(STAX__ENC_CP1252, NULL, "<p>\xA0\xA9\xE9\xFF x</p>", "<p>\xC2\xA0\xC2\xA9\xC3\xA9\xC3\xBF x</p>");
}

Test(encoding, cp1252_undefined_bytes) {
    CHECK_BAD(STAX__ENC_CP1252, NULL, "ab\x80\x81", 3, "ab\xE2\x82\xAC");
    CHECK_BAD(STAX__ENC_CP1252, NULL, "abc\x8D", 3, "abc");
    CHECK_BAD(STAX__ENC_CP1252, NULL, "abc\x8F", 3, "abc");
    CHECK_BAD(STAX__ENC_CP1252, NULL, "abc\x90", 3, "abc");
    CHECK_BAD(STAX__ENC_CP1252, NULL, "\x9D", 0, "");
}

/* A caller table: ASCII as itself, 0x80 Cyrillic Zhe, 0x81 an emoji, 0x82..0x84 invalid (the marker, a
 * surrogate, beyond U+10FFFF), every other byte >= 0x85 maps to U+00xx like Latin-1. */
static uint32_t t_table[256];
static void t_table_setup(void) {
    for (unsigned c = 0; c < 256; c++) t_table[c] = c;
    t_table[0x80] = 0x416;
    t_table[0x81] = 0x1F600;
    t_table[0x82] = 0xFFFFFFFFu;
    t_table[0x83] = 0xD800;
    t_table[0x84] = 0x110000;
}

Test(encoding, table_decodes, .init = t_table_setup) {
    CHECK_OK(STAX__ENC_TABLE, t_table, "<r>\x80\x81\xE9</r>", "<r>\xD0\x96\xF0\x9F\x98\x80\xC3\xA9</r>");
}

Test(encoding, table_invalid_entries, .init = t_table_setup) {
    CHECK_BAD(STAX__ENC_TABLE, t_table, "<r>\x80\x82", 4, "<r>\xD0\x96");
    CHECK_BAD(STAX__ENC_TABLE, t_table, "<r>\x83", 3, "<r>");
    CHECK_BAD(STAX__ENC_TABLE, t_table, "\x84", 0, "");
}

Test(encoding, table_remapping_ascii, .init = t_table_setup) {
    /* a table that changes an ASCII byte must not take the ASCII fast path */
    t_table['a'] = 'b';
    t_table['z'] = 0xE9;
    CHECK_OK(STAX__ENC_TABLE, t_table, "<aaz>0123456789abcdefghijklmnopqrstuvwxyz",
             "<bb\xC3\xA9>0123456789bbcdefghijklmnopqrstuvwxy\xC3\xA9");
    /* the same with the fields set by hand instead of stax__decoder_init */
    stax__decoder d;
    char out[16];
    size_t used, made;
    memset(&d, 0, sizeof d);
    d.enc = STAX__ENC_TABLE;
    d.table = t_table;
    cr_assert_eq(stax__decode(&d, "zaq", 3, &used, out, sizeof out, &made), 0);
    cr_assert_eq(used, 3);
    cr_assert_eq(made, 4);
    cr_assert_eq(memcmp(out, "\xC3\xA9" "bq", 4), 0);
}

Test(encoding, utf8_is_copied) {
    CHECK_OK(STAX__ENC_UTF8, NULL, "<a>\xC3\xA9\xF0\x9F\x98\x80</a>", "<a>\xC3\xA9\xF0\x9F\x98\x80</a>");
}

Test(encoding, unresolved_utf16_is_refused) {
    stax__decoder d;
    char out[16];
    size_t used, made;
    stax__decoder_init(&d, STAX__ENC_UTF16, NULL);
    cr_assert_eq(stax__decode(&d, "\x41\x00", 2, &used, out, sizeof out, &made), STAX__DEC_ERROR);
    cr_assert_eq(used, 0);
    cr_assert_eq(made, 0);
    stax__decoder_init(&d, STAX__ENC_TABLE, NULL);
    cr_assert_eq(stax__decode(&d, "\x41", 1, &used, out, sizeof out, &made), STAX__DEC_ERROR);
}

/* A full output buffer stops the decoder before the unit that does not fit,
 * never after: with cap 8 and 3-byte characters, at most two fit per call. */
Test(encoding, small_output_never_overflows) {
    stax__decoder d;
    char *out = malloc(8);
    size_t used, made;
    cr_assert(out);
    stax__decoder_init(&d, STAX__ENC_CP1252, NULL);
    cr_assert_eq(stax__decode(&d, "\x80\x80\x80\x80", 4, &used, out, 8, &made), 0);
    cr_assert(made <= 8 && used < 4 && used > 0);
    cr_assert_eq(made, used * 3);
    stax__decoder_init(&d, STAX__ENC_UTF16LE, NULL);
    cr_assert_eq(stax__decode(&d, "\x3D\xD8\x00\xDE\x3D\xD8\x00\xDE\x3D\xD8\x00\xDE", 12, &used, out, 8, &made), 0);
    cr_assert(made <= 8 && used > 0 && used < 12);
    cr_assert_eq(made, used);
    cr_assert_eq(d.npend, 0);
    stax__decoder_init(&d, STAX__ENC_UTF8, NULL);
    cr_assert_eq(stax__decode(&d, "0123456789", 10, &used, out, 8, &made), 0);
    cr_assert_eq(used, 8);
    cr_assert_eq(made, 8);
    free(out);
}

/* ================================================================ detection (Appendix F) */

static void expect_detect(const char *bytes, size_t n, int at_end, int enc, size_t bom) {
    size_t got_bom = 99;
    unsigned char *p = malloc(n ? n : 1); /* exact size: detection must not look past n */
    cr_assert(p);
    memcpy(p, bytes, n);
    int got = stax__encoding_detect(p, n, at_end, &got_bom);
    free(p);
    cr_assert_eq(got, enc, "detect of %zu bytes (at_end %d): %d, want %d", n, at_end, got, enc);
    if (enc > 0) cr_assert_eq(got_bom, bom, "bom %zu, want %zu", got_bom, bom);
}
#define DETECT(lit, at_end, enc, bom) expect_detect(lit, sizeof(lit) - 1, at_end, enc, bom)

Test(encoding, detect_boms) {
    DETECT("\xEF\xBB\xBF<", 0, STAX__ENC_UTF8, 3);
    DETECT("\xEF\xBB\xBF", 0, STAX__ENC_UTF8, 3);
    DETECT("\xFE\xFF\x00<", 0, STAX__ENC_UTF16BE, 2);
    DETECT("\xFF\xFE<\x00", 0, STAX__ENC_UTF16LE, 2);
    DETECT("\xFE\xFF\x00\x3C\x00\x3F", 1, STAX__ENC_UTF16BE, 2);
}

Test(encoding, detect_utf16_without_bom) {
    DETECT("\x00\x3C\x00\x3F", 0, STAX__ENC_UTF16BE, 0);
    DETECT("\x3C\x00\x3F\x00", 0, STAX__ENC_UTF16LE, 0);
}

Test(encoding, detect_utf32) {
    DETECT("\x00\x00\xFE\xFF", 0, STAX__ENC_UTF32BE, 4);
    DETECT("\xFF\xFE\x00\x00", 0, STAX__ENC_UTF32LE, 4);
    DETECT("\x00\x00\x00\x3C", 0, STAX__ENC_UTF32BE, 0);
    DETECT("\x3C\x00\x00\x00", 0, STAX__ENC_UTF32LE, 0);
    DETECT("\xFF\xFE\x00", 0, 0, 0); /* UTF-16LE's BOM, or UTF-32LE's: the next byte says */
    DETECT("\xFF\xFE\x00", 1, STAX__ENC_UTF16LE, 2);
}

Test(encoding, detect_unsupported) {
    DETECT("\x00\x00\xFF\xFE", 0, -1, 0); /* UCS-4 in the byte orders 2143 and 3412 */
    DETECT("\xFE\xFF\x00\x00", 0, -1, 0);
    DETECT("\x00\x00\x3C\x00", 0, -1, 0);
    DETECT("\x00\x3C\x00\x00", 0, -1, 0);
    DETECT("\x4C\x6F\xA7\x94", 0, STAX__ENC_EBCDIC, 0); /* for the caller's decoder alone */
}

Test(encoding, detect_default_utf8) {
    DETECT("<?xm", 0, STAX__ENC_UTF8, 0);
    DETECT("<roo", 0, STAX__ENC_UTF8, 0);
    DETECT("\xC3\xA9\x41\x42", 0, STAX__ENC_UTF8, 0);
    DETECT("\x00\x3C\x00\x61", 0, STAX__ENC_UTF8, 0); /* UTF-16 needs a BOM or "<?" */
    DETECT("\xEF\xBB\x41\x42", 0, STAX__ENC_UTF8, 0);
    DETECT("", 1, STAX__ENC_UTF8, 0);
    DETECT("<", 1, STAX__ENC_UTF8, 0);
    DETECT("ab", 0, STAX__ENC_UTF8, 0); /* no mark starts with 'a' */
}

Test(encoding, detect_needs_more_bytes) {
    DETECT("", 0, 0, 0);
    DETECT("\xEF", 0, 0, 0);
    DETECT("\xEF\xBB", 0, 0, 0);
    DETECT("\xFE", 0, 0, 0);
    DETECT("\xFE\xFF", 0, 0, 0); /* FE FF 00 00 would be UCS-4 */
    DETECT("\xFE\xFF\x00", 0, 0, 0);
    DETECT("\xFF\xFE", 0, 0, 0);
    DETECT("\x00", 0, 0, 0);
    DETECT("\x00\x3C", 0, 0, 0);
    DETECT("\x00\x3C\x00", 0, 0, 0);
    DETECT("<", 0, 0, 0);
    DETECT("<\x00", 0, 0, 0);
    DETECT("<\x00?", 0, 0, 0);
    DETECT("\x4C\x6F", 0, 0, 0);
}

Test(encoding, detect_short_input_at_end) {
    DETECT("\xEF", 1, STAX__ENC_UTF8, 0);
    DETECT("\xEF\xBB", 1, STAX__ENC_UTF8, 0);
    DETECT("\xFE\xFF", 1, STAX__ENC_UTF16BE, 2);
    DETECT("\xFF\xFE", 1, STAX__ENC_UTF16LE, 2);
    DETECT("\xFE\xFF\x00", 1, STAX__ENC_UTF16BE, 2);
    DETECT("\xFF\xFE<", 1, STAX__ENC_UTF16LE, 2);
    DETECT("\x00\x3C\x00", 1, STAX__ENC_UTF8, 0);
    DETECT("<\x00?", 1, STAX__ENC_UTF8, 0);
    DETECT("<?x", 1, STAX__ENC_UTF8, 0);
}

Test(encoding, detect_decides_as_soon_as_it_can) {
    DETECT("\xFF\xFE\x3C", 0, STAX__ENC_UTF16LE, 2);
    DETECT("\xFE\xFF\x01", 0, STAX__ENC_UTF16BE, 2);
    DETECT("<?", 0, STAX__ENC_UTF8, 0);
    DETECT("<a", 0, STAX__ENC_UTF8, 0);
    DETECT("\x00\x01", 0, STAX__ENC_UTF8, 0);
}

/* ================================================================ names and resolution */

static int by_name(const char *s) { return stax__encoding_by_name(s, strlen(s)); }

Test(encoding, names_and_aliases) {
    static const struct {
        const char *name;
        int enc;
    } cases[] = {
        {"UTF-8", STAX__ENC_UTF8},           {"utf-8", STAX__ENC_UTF8},
        {"Utf8", STAX__ENC_UTF8},            {"UTF-16", STAX__ENC_UTF16},
        {"utf16", STAX__ENC_UTF16},          {"ISO-10646-UCS-2", STAX__ENC_UTF16},
        {"UTF-16LE", STAX__ENC_UTF16LE},     {"utf-16le", STAX__ENC_UTF16LE},
        {"UTF16LE", STAX__ENC_UTF16LE},      {"UTF-16BE", STAX__ENC_UTF16BE},
        {"utf16be", STAX__ENC_UTF16BE},      {"ISO-8859-1", STAX__ENC_LATIN1},
        {"iso-8859-1", STAX__ENC_LATIN1},    {"ISO_8859-1", STAX__ENC_LATIN1},
        {"ISO_8859-1:1987", STAX__ENC_LATIN1}, {"latin1", STAX__ENC_LATIN1},
        {"LATIN1", STAX__ENC_LATIN1},        {"l1", STAX__ENC_LATIN1},
        {"L1", STAX__ENC_LATIN1},            {"IBM819", STAX__ENC_LATIN1},
        {"cp819", STAX__ENC_LATIN1},         {"iso-ir-100", STAX__ENC_LATIN1},
        {"csISOLatin1", STAX__ENC_LATIN1},   {"US-ASCII", STAX__ENC_ASCII},
        {"us-ascii", STAX__ENC_ASCII},       {"ASCII", STAX__ENC_ASCII},
        {"ANSI_X3.4-1968", STAX__ENC_ASCII}, {"ansi_x3.4-1986", STAX__ENC_ASCII},
        {"ISO646-US", STAX__ENC_ASCII},      {"iso-ir-6", STAX__ENC_ASCII},
        {"IBM367", STAX__ENC_ASCII},         {"cp367", STAX__ENC_ASCII},
        {"us", STAX__ENC_ASCII},             {"csASCII", STAX__ENC_ASCII},
        {"windows-1252", STAX__ENC_CP1252},  {"Windows-1252", STAX__ENC_CP1252},
        {"CP1252", STAX__ENC_CP1252},        {"cp1252", STAX__ENC_CP1252},
        {"", -1},                            {"UTF", -1},
        {"UTF-", -1},                        {"UTF-8 ", -1},
        {"UTF-88", -1},                      {"UTF-7", -1},
        {"UTF-32", STAX__ENC_UTF32},         {"ISO-8859-12", -1},
        {"ucs-4", STAX__ENC_UTF32},          {"UTF-32LE", STAX__ENC_UTF32LE},
        {"utf32be", STAX__ENC_UTF32BE},      {"UTF-32 ", -1},
        {"EBCDIC-US", -1},                   {"Shift_JIS", -1},
        {"windows-1259", -1},                {"latin", -1},
        {"IBM437", -1},                      {"KOI8-R ", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(by_name(cases[i].name), cases[i].enc, "\"%s\": %d, want %d", cases[i].name,
                     by_name(cases[i].name), cases[i].enc);
}

Test(encoding, name_uses_len_not_nul) {
    cr_assert_eq(stax__encoding_by_name("UTF-8\"?>", 5), STAX__ENC_UTF8);
    cr_assert_eq(stax__encoding_by_name("UTF-16LE", 6), STAX__ENC_UTF16);
    cr_assert_eq(stax__encoding_by_name("latin1", 0), -1);
    /* case folding is ASCII only: a byte >= 0x80 never matches */
    cr_assert_eq(stax__encoding_by_name("UTF-\xB8", 5), -1);
}

Test(encoding, canonical_names) {
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_UTF8), "UTF-8");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_UTF16LE), "UTF-16LE");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_UTF16BE), "UTF-16BE");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_LATIN1), "ISO-8859-1");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_ASCII), "US-ASCII");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_CP1252), "windows-1252");
    cr_assert_str_eq(stax__encoding_name(STAX__ENC_UTF16), "UTF-16");
    /* every canonical name is found by stax__encoding_by_name */
    for (int e = STAX__ENC_UTF8; e <= STAX__ENC_CP1252; e++) cr_assert_eq(by_name(stax__encoding_name(e)), e);
}

Test(encoding, resolve_declaration_against_detection) {
    const int U8 = STAX__ENC_UTF8, LE = STAX__ENC_UTF16LE, BE = STAX__ENC_UTF16BE, U16 = STAX__ENC_UTF16;
    const int L1 = STAX__ENC_LATIN1, AS = STAX__ENC_ASCII, W = STAX__ENC_CP1252;
    /* no declaration: what was detected */
    cr_assert_eq(stax__encoding_resolve(U8, 0, 0), U8);
    cr_assert_eq(stax__encoding_resolve(U8, 3, 0), U8);
    cr_assert_eq(stax__encoding_resolve(LE, 2, 0), LE);
    cr_assert_eq(stax__encoding_resolve(BE, 0, 0), BE);
    /* 8-bit start without a BOM: the declaration decides, UTF-16 contradicts */
    cr_assert_eq(stax__encoding_resolve(U8, 0, U8), U8);
    cr_assert_eq(stax__encoding_resolve(U8, 0, L1), L1);
    cr_assert_eq(stax__encoding_resolve(U8, 0, AS), AS);
    cr_assert_eq(stax__encoding_resolve(U8, 0, W), W);
    cr_assert_eq(stax__encoding_resolve(U8, 0, U16), -1);
    cr_assert_eq(stax__encoding_resolve(U8, 0, LE), -1);
    cr_assert_eq(stax__encoding_resolve(U8, 0, BE), -1);
    /* UTF-8 BOM: only UTF-8 may be declared */
    cr_assert_eq(stax__encoding_resolve(U8, 3, U8), U8);
    cr_assert_eq(stax__encoding_resolve(U8, 3, L1), -1);
    cr_assert_eq(stax__encoding_resolve(U8, 3, AS), -1);
    cr_assert_eq(stax__encoding_resolve(U8, 3, U16), -1);
    /* UTF-16 (BOM or "<?"): UTF-16 or the same byte order */
    cr_assert_eq(stax__encoding_resolve(LE, 2, U16), LE);
    cr_assert_eq(stax__encoding_resolve(LE, 2, LE), LE);
    cr_assert_eq(stax__encoding_resolve(LE, 2, BE), -1);
    cr_assert_eq(stax__encoding_resolve(BE, 0, U16), BE);
    cr_assert_eq(stax__encoding_resolve(BE, 0, BE), BE);
    cr_assert_eq(stax__encoding_resolve(BE, 2, LE), -1);
    cr_assert_eq(stax__encoding_resolve(LE, 2, U8), -1);
    cr_assert_eq(stax__encoding_resolve(BE, 0, L1), -1);
    /* nothing resolves an unsupported detection */
    cr_assert_eq(stax__encoding_resolve(-1, 0, U8), -1);
}
