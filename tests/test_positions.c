/* Position counting (stax__pos_advance and its CR-free word-at-a-time path) against a
 * byte-by-byte reference: lines end at LF, CR LF and a lone CR; columns count
 * code points (bytes that are not UTF-8 continuation bytes); offsets count
 * bytes. Random texts, cut into random pieces as the reader cuts tokens. */
#include "harness.h"
#include "stax_internal.h"

#include <criterion/criterion.h>

static void ref_advance(stax_pos *pos, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        pos->offset++;
        if (p[i] == '\n' || (p[i] == '\r' && !(i + 1 < n && p[i + 1] == '\n'))) {
            pos->line++;
            pos->column = 1;
        } else if (p[i] != '\r') {
            pos->column += (p[i] & 0xC0) != 0x80;
        }
    }
}

Test(positions, fast_counters_match_the_reference) {
    static const char *const pieces[] = {"a", "word ", "0123456789abcdef", "\n", "\r\n", "\r", "\xc3\xa9",
                                         "\xe2\x82\xac", "\xf0\x9f\x98\x80", "<tag attr='v'>", "\t", "  "};
    unsigned long long x = 0x2545F4914F6CDD1Dull;
    unsigned char buf[600];
    for (int round = 0; round < 4000; round++) {
        size_t n = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t target = (size_t)(x % 500);
        int crs = (int)(x >> 20) % 2; /* half the texts have no CR: the fast path whole */
        while (n < target) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *p = pieces[x % (sizeof pieces / sizeof pieces[0])];
            size_t l = strlen(p);
            if (!crs && strchr(p, '\r')) continue;
            memcpy(buf + n, p, l);
            n += l;
        }
        /* the reader never splits a CR LF pair between calls: cut elsewhere */
        stax_pos a = {3, 7, 100}, b = a, c = a;
        size_t at = 0;
        while (at < n) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t step = 1 + (size_t)(x % 70);
            if (step > n - at) step = n - at;
            if (at + step < n && buf[at + step - 1] == '\r' && buf[at + step] == '\n') step++;
            stax__pos_advance(&a, (const char *)buf + at, step);
            if (!crs) stax__pos_advance_nocr(&c, (const char *)buf + at, step);
            at += step;
        }
        ref_advance(&b, buf, n);
        cr_assert(a.line == b.line && a.column == b.column && a.offset == b.offset,
                  "round %d (%zu bytes): %llu:%llu (%llu), reference %llu:%llu (%llu)", round, n,
                  (unsigned long long)a.line, (unsigned long long)a.column, (unsigned long long)a.offset,
                  (unsigned long long)b.line, (unsigned long long)b.column, (unsigned long long)b.offset);
        if (!crs)
            cr_assert(c.line == b.line && c.column == b.column && c.offset == b.offset, "round %d: CR-free path", round);
    }
}
