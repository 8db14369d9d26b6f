/* transcode: the decoders of encoding.c beside glibc's iconv(3).
 *
 *   build/transcode [MIB [RUNS]]
 *
 * For each case below, makes a buffer of MIB MiB (default 100), transcodes
 * it to UTF-8 64 KiB at a time with stax__decode and with iconv, RUNS times
 * each (default 5), checks that both give the same bytes, and prints the
 * best time of each (CLOCK_MONOTONIC) and the ratio. Exit 1 when the
 * outputs differ or a decoder fails, 2 on usage or memory errors. */
#define _POSIX_C_SOURCE 200809L
#include "encoding.h"

#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PIECE = 64 * 1024 };

typedef struct bench_case {
    const char *what, *iconv_name;
    int enc;
    int kind; /* 0 ASCII; 1 one accented letter in twelve; 2 three quarters CJK; 3 one accented letter in three */
    int wide; /* UTF-16LE input */
} bench_case;

static const bench_case cases[] = {
    {"ISO-8859-1, ASCII only", "ISO-8859-1", STAX__ENC_LATIN1, 0, 0},
    {"UTF-16LE, ASCII only", "UTF-16LE", STAX__ENC_UTF16LE, 0, 1},
    {"ISO-8859-1, one accented letter in twelve", "ISO-8859-1", STAX__ENC_LATIN1, 1, 0},
    {"ISO-8859-1, one accented letter in three", "ISO-8859-1", STAX__ENC_LATIN1, 3, 0},
    {"windows-1252, one accented letter in twelve", "WINDOWS-1252", STAX__ENC_CP1252, 1, 0},
    {"UTF-16LE, one accented letter in twelve", "UTF-16LE", STAX__ENC_UTF16LE, 1, 1},
    {"UTF-16LE, three quarters CJK", "UTF-16LE", STAX__ENC_UTF16LE, 2, 1},
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The input of a case: n bytes (an even count for UTF-16). */
static void make_input(const bench_case *c, unsigned char *in, size_t n) {
    static const char words[] = "the quick brown fox jumps over a lazy dog ";
    size_t units = c->wide ? n / 2 : n;
    uint32_t seed = 1;
    for (size_t i = 0; i < units; i++) {
        unsigned u = (unsigned char)words[i % (sizeof words - 1)];
        if ((c->kind == 1 && i % 12 == 11) || (c->kind == 3 && i % 3 == 2)) u = 0xE9; /* é in all three */
        if (c->kind == 2 && i % 4 != 3) {
            seed = seed * 1103515245u + 12345u;
            u = 0x4E00 + (seed >> 16) % 0x5000; /* CJK Unified Ideographs */
        }
        if (c->wide) {
            in[2 * i] = (unsigned char)(u & 0xFF);
            in[2 * i + 1] = (unsigned char)(u >> 8);
        } else {
            in[i] = (unsigned char)u;
        }
    }
}

static size_t run_stax(const bench_case *c, const unsigned char *in, size_t n, char *out, size_t cap) {
    stax__decoder d;
    stax__decoder_init(&d, c->enc, NULL);
    size_t k = 0;
    for (size_t at = 0; at < n;) {
        size_t piece = n - at < PIECE ? n - at : PIECE, off = 0;
        while (off < piece) {
            size_t used = 0, made = 0;
            if (stax__decode(&d, (const char *)in + at + off, piece - off, &used, out + k, cap - k, &made)) return SIZE_MAX;
            if (!used && !made) return SIZE_MAX;
            off += used;
            k += made;
        }
        at += piece;
    }
    return stax__decode_finish(&d) ? SIZE_MAX : k;
}

static size_t run_iconv(const bench_case *c, const unsigned char *in, size_t n, char *out, size_t cap) {
    iconv_t cd = iconv_open("UTF-8", c->iconv_name);
    if (cd == (iconv_t)-1) return SIZE_MAX;
    char *o = out;
    size_t left = cap;
    for (size_t at = 0; at < n;) {
        size_t piece = n - at < PIECE ? n - at : PIECE;
        char *p = (char *)in + at;
        size_t pl = piece;
        if (iconv(cd, &p, &pl, &o, &left) == (size_t)-1 || pl) {
            iconv_close(cd);
            return SIZE_MAX;
        }
        at += piece;
    }
    iconv_close(cd);
    return (size_t)(o - out);
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (argc > 3 || !mib || runs < 1) {
        fputs("usage: transcode [MIB [RUNS]]\n", stderr);
        return 2;
    }
    size_t n = mib << 20, cap = 2 * n + 64;
    unsigned char *in = malloc(n);
    char *a = malloc(cap), *b = malloc(cap);
    if (!in || !a || !b) {
        fputs("transcode: out of memory\n", stderr);
        return 2;
    }
    printf("| input (%zu MiB) | stax MiB/s | iconv MiB/s | stax / iconv |\n| --- | ---: | ---: | ---: |\n", mib);
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bench_case *c = &cases[i];
        make_input(c, in, n);
        double best[2] = {1e30, 1e30};
        size_t len[2] = {0, 0};
        for (int r = 0; r < runs; r++)
            for (int w = 0; w < 2; w++) {
                double t0 = now();
                len[w] = w ? run_iconv(c, in, n, b, cap) : run_stax(c, in, n, a, cap);
                double t = now() - t0;
                if (t < best[w]) best[w] = t;
            }
        if (len[0] == SIZE_MAX || len[1] == SIZE_MAX || len[0] != len[1] || memcmp(a, b, len[0]) != 0) {
            fprintf(stderr, "transcode: %s: the outputs differ (stax %zu bytes, iconv %zu)\n", c->what, len[0], len[1]);
            rc = 1;
            continue;
        }
        printf("| %s | %.0f | %.0f | %.1f× |\n", c->what, (double)mib / best[0], (double)mib / best[1], best[1] / best[0]);
    }
    free(in);
    free(a);
    free(b);
    return rc;
}
