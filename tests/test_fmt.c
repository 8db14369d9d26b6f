/* stax__vfmt, the library's own formatter for messages, against the C
 * library's vsnprintf: the same text for every conversion, flag, width,
 * precision and length modifier it handles, and the same truncation, except
 * that a cut never leaves part of a UTF-8 sequence behind. */
#include "stax_internal.h"

#include <criterion/criterion.h>

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static size_t fmt(char *buf, size_t cap, const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    size_t n = stax__vfmt(buf, cap, f, ap);
    va_end(ap);
    return n;
}

/* Format with both, at every buffer size from 1 to past the whole output. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static void same(const char *f, ...) {
    char want[256], got[256];
    va_list ap, aq;
    va_start(ap, f);
    va_copy(aq, ap);
    int wn = vsnprintf(want, sizeof want, f, ap);
    va_end(ap);
    cr_assert(wn >= 0 && (size_t)wn < sizeof want);
    for (size_t cap = 1; cap <= (size_t)wn + 2; cap++) {
        va_list a2;
        va_copy(a2, aq);
        memset(got, 'Z', sizeof got);
        size_t n = stax__vfmt(got, cap, f, a2);
        va_end(a2);
        size_t wl = (size_t)wn < cap - 1 ? (size_t)wn : cap - 1;
        cr_assert(n == wl && got[n] == '\0' && !memcmp(got, want, wl),
                  "\"%s\" in %zu bytes: got \"%s\" (%zu), want \"%.*s\"", f, cap, got, n, (int)wl, want);
        cr_assert_eq(got[cap], 'Z', "\"%s\": wrote past %zu bytes", f, cap);
    }
    va_end(aq);
}

Test(fmt, integers) {
    same("%d|%i|%d|%d|%d", 0, 42, -42, INT_MAX, INT_MIN);
    same("%u|%u|%x|%X|%o", 0u, UINT_MAX, 0xBEEFu, 0xBEEFu, 8u);
    same("[%5d][%-5d][%05d][%+d][% d][%+d][% d]", 42, 42, -42, 7, 7, -7, -7);
    same("[%.3d][%.0d][%.0u][%5.3d][%-8.4x]", 7, 0, 0u, -7, 0xABu);
    same("[%*d][%-*d][%*d][%.*d][%.*d]", 6, 12, 6, 12, -6, 12, 4, 3, -1, 3);
    same("%hhu %hhd %hu %hd", (unsigned char)200, (signed char)-56, (unsigned short)4464, (short)-25536);
    same("%ld %lu %lx", LONG_MIN, ULONG_MAX, ULONG_MAX);
    same("%lld %llu %llX", LLONG_MIN, ULLONG_MAX, ULLONG_MAX);
    same("%zu %zx %jd %ju %td", SIZE_MAX, (size_t)255, INTMAX_MIN, UINTMAX_MAX, (ptrdiff_t)-5);
    same("U+%04X U+%04lX 0x%02X", 0xFFFEu, 0x10FFFFul, 0xA8u);
}

Test(fmt, strings_and_characters) {
    same("'%s' '%.*s' '%.2s' '%10s' '%-10s' '%.0s'", "abc", 3, "abcdef", "xyz", "right", "left", "gone");
    same("'%c%c' '%3c' '%-3c'", 'o', 'k', 'r', 'l');
    same("%%d %s%%", "100");
    same("%s", "");
    same("plain text, no conversions");
    /* every message shape the reader and the DTD parser use */
    same("invalid character reference '%.*s'", 5, "&#0;...");
    same("more than max_attrs (%u) attributes", 256u);
    same("elements nested deeper than max_depth (%u)", 1024u);
    same("the declared encoding '%.*s' contradicts the input, which is %s%s", 6, "KOI8-R", "UTF-16LE",
         " (by its byte order mark)");
    same("%llu bytes, %zu, %d", 18446744073709551615ull, (size_t)3, -1);
}

/* hh and h convert the int they are passed (C11 7.21.6.1p7); the compilers
 * would flag these arguments for vsnprintf, so the values are written here. */
Test(fmt, char_and_short_modifiers_convert) {
    char got[64];
    fmt(got, sizeof got, "%hhu %hhd %hu %hd %hhx", 300, 200, 70000, 40000, 0x1FF);
    cr_assert_str_eq(got, "44 -56 4464 -25536 ff");
}

Test(fmt, precision_does_not_read_past_it) {
    char unterminated[3] = {'a', 'b', 'c'};
    char got[16];
    cr_assert_eq(fmt(got, sizeof got, "%.3s!", unterminated), 4);
    cr_assert_str_eq(got, "abc!");
}

Test(fmt, null_string_and_zero_capacity) {
    char got[16] = "untouched";
    cr_assert_eq(fmt(got, 0, "%d", 5), 0);
    cr_assert_str_eq(got, "untouched");
    const char *null = NULL;
    cr_assert_eq(fmt(got, sizeof got, "%s", null), 6);
    cr_assert_str_eq(got, "(null)");
}

/* A conversion it does not know ends the output: it cannot know the
 * argument's type, so it must not read any. */
Test(fmt, unknown_conversion_ends_the_output) {
    char got[32];
    cr_assert_eq(fmt(got, sizeof got, "ab%fcd", 1.5), 2);
    cr_assert_str_eq(got, "ab");
    cr_assert_eq(fmt(got, sizeof got, "x%d%py", 1, (void *)got), 2);
    cr_assert_str_eq(got, "x1");
}

/* "é" is C3 A9, "€" E2 82 AC, "😀" F0 9F 98 80: a cut inside one drops it. */
Test(fmt, a_cut_never_splits_utf8) {
    static const char *const s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";
    static const size_t keep[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 11}; /* bytes kept for cap - 1 = index */
    char got[32];
    for (size_t room = 0; room < sizeof keep / sizeof keep[0]; room++) {
        size_t n = fmt(got, room + 1, "%s", s);
        cr_assert_eq(n, keep[room], "%zu bytes of room: kept %zu, want %zu", room, n, keep[room]);
        cr_assert(!memcmp(got, s, n) && got[n] == '\0');
        n = fmt(got, room + 1, "%.*s", 11, s); /* the same through a precision and from the format */
        cr_assert_eq(n, keep[room]);
    }
    cr_assert_eq(fmt(got, 5, "a\xC3\xA9\xE2\x82\xAC"), 3); /* bytes of the format itself */
}
