/* Position counting (stax__pos_advance and its CR-free word-at-a-time path) against a
 * byte-by-byte reference: lines end at LF, CR LF and a lone CR; columns count
 * code points (bytes that are not UTF-8 continuation bytes); offsets count
 * bytes. Random texts, cut into random pieces as the reader cuts tokens. */
#include "harness.h"
#include "stax_internal.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Documents whose line ends are LF, CR LF or a lone CR at random, with
 * attribute values that hold line ends beside references (values the fast
 * path normalizes after the tag) and texts with references: every event's
 * line and column are those of its byte offset, as ref_advance counts them
 * from the start, whole (the fast path takes what holds no CR, the general
 * way the rest) and in pieces of 1 and 7 bytes (the general way nearly
 * alone). A CR inside a value counted as a column, not a line end, fails
 * the whole-document run. */
static size_t put(char *doc, size_t n, const char *s) {
    size_t l = strlen(s);
    memcpy(doc + n, s, l);
    return n + l;
}

static unsigned long long rnd(unsigned long long *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

Test(positions, events_in_documents_with_cr_sit_where_their_offsets_say) {
    static const char *const eols[] = {"\n", "\r\n", "\r"};
    unsigned long long x = 0x9E3779B97F4A7C15ull;
    char *doc = malloc(64 * 1024);
    cr_assert(doc);
    for (int round = 0; round < 40; round++) {
        size_t n = 0;
#define PUT(s) (n = put(doc, n, (s)))
        PUT("<r>");
        for (int k = 0; k < 60; k++) {
            PUT(eols[rnd(&x) % 3]);
            PUT("  <row id=\"");
            char num[16];
            snprintf(num, sizeof num, "%d\"", k);
            PUT(num);
            if (rnd(&x) % 2) { /* a value to normalize: a line end inside, a reference */
                PUT(" note=\"a");
                PUT(eols[rnd(&x) % 3]);
                PUT("b&amp;\xc3\xa9\"");
            }
            PUT(">");
            PUT(rnd(&x) % 3 ? "text \xc3\xa9t\xc3\xa9" : "x &lt; y");
            if (rnd(&x) % 2) PUT(eols[rnd(&x) % 3]);
            PUT("</row>");
        }
        PUT(eols[rnd(&x) % 3]);
        PUT("</r>");
#undef PUT
        static const size_t chunks[] = {SIZE_MAX, 1, 7};
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            char *d = stax_test_events_ex(doc, n, chunks[c], NULL, STAX_DUMP_POS, NULL);
            size_t events = 0;
            for (const char *line = d; (line = strstr(line, " @")) != NULL; line += 2) {
                unsigned long long l, col, off;
                if (sscanf(line, " @%llu:%llu:%llu", &l, &col, &off) != 3) continue;
                cr_assert(off <= n, "round %d: offset %llu past the document", round, off);
                stax_pos want = {0, 1, 1};
                ref_advance(&want, (const unsigned char *)doc, (size_t)off);
                cr_assert(l == want.line && col == want.column,
                          "round %d, chunk %zu: event at offset %llu is at %llu:%llu, its offset says %llu:%llu", round,
                          chunks[c], off, l, col, (unsigned long long)want.line, (unsigned long long)want.column);
                events++;
            }
            cr_assert(events > 200, "round %d: %zu events read:\n%s", round, events, d);
            cr_assert(strstr(d, "END-OF-DOCUMENT"), "round %d, chunk %zu: %s", round, chunks[c], d);
            free(d);
        }
    }
    free(doc);
}

/* Texts with CR LF and CR line ends are normalized by the fast path too
 * (short ones and ones longer than a block, with references among them):
 * the document split in two at every place reads as it does whole, events,
 * texts and positions, and each event sits where its offset says. A split
 * just after a CR leaves the fast path a CR as the window's last byte,
 * whose LF (or not) it cannot see: each chunk is an exact-size copy, so the
 * sanitizer builds see a read past it. */
Test(positions, texts_with_cr_split_at_every_place_read_as_whole) {
    static const char doc[] = "<r>\r\n  <a>x\r\ny</a>\r\n  <b>\rz\r</b>\r\n"
                              "  <c>a longer text, over a block\r\nwith &amp; a reference\r\rand lone CRs\r</c>\r"
                              "\r\n  <d>\xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9\r\n\xc3\xa9t\xc3\xa9 \xc3\xa9</d>\r\n</r>\r\n";
    size_t n = sizeof doc - 1;
    char *whole = stax_test_events_ex(doc, n, 0, NULL, STAX_DUMP_POS, NULL);
    cr_assert(strstr(whole, "END-OF-DOCUMENT"), "%s", whole);
    cr_assert(strstr(whole, "TEXT \"x\\ny\"") && strstr(whole, "TEXT \"\\nz\\n\""), "line ends not LF:\n%s", whole);
    for (const char *line = whole; (line = strstr(line, " @")) != NULL; line += 2) {
        unsigned long long l, col, off;
        if (sscanf(line, " @%llu:%llu:%llu", &l, &col, &off) != 3) continue;
        stax_pos want = {0, 1, 1};
        ref_advance(&want, (const unsigned char *)doc, (size_t)off);
        cr_assert(l == want.line && col == want.column, "event at offset %llu is at %llu:%llu, its offset says %llu:%llu",
                  off, l, col, (unsigned long long)want.line, (unsigned long long)want.column);
    }
    for (size_t at = 1; at < n; at++) {
        char *d = stax_test_events_split(doc, n, at, NULL, STAX_DUMP_POS);
        cr_assert_str_eq(d, whole, "split at %zu", at);
        free(d);
    }
    free(whole);
}
