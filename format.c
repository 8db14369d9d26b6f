/* The private printf of messages (stax__vfmt): the conversions the library's
 * messages use, into a bounded buffer, with no locale and no stdio. */
#include "stax_internal.h"

#include <stdarg.h>

/* Output of stax__vfmt: padding, and numbers in a base. */
static void fmt_pad(stax__out *o, char c, size_t n) {
    while (n-- && o->p < o->end) stax__out_byte(o, c);
}

static void fmt_num(stax__out *o, uintmax_t v, char sign, unsigned base, int upper, long prec, size_t width,
                    int left, int zero) {
    const char *digit = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char d[sizeof(uintmax_t) * 3];
    size_t nd = 0;
    for (; v; v /= base) d[nd++] = digit[v % base];
    if (prec < 0 && nd == 0) d[nd++] = '0'; /* with a precision, 0 has as many digits as it asks */
    size_t zeros = prec > 0 && (size_t)prec > nd ? (size_t)prec - nd : 0;
    size_t len = nd + zeros + (sign != 0);
    size_t pad = width > len ? width - len : 0;
    if (zero && !left && prec < 0) zeros += pad, pad = 0;
    if (!left) fmt_pad(o, ' ', pad);
    if (sign) stax__out_byte(o, sign);
    fmt_pad(o, '0', zeros);
    while (nd) stax__out_byte(o, d[--nd]);
    if (left) fmt_pad(o, ' ', pad);
}

/* Length modifiers. */
enum { FMT_INT, FMT_HH, FMT_H, FMT_L, FMT_LL, FMT_Z, FMT_J, FMT_T };

size_t stax__vfmt(char *buf, size_t cap, const char *fmt, va_list ap) {
    if (cap == 0) return 0;
    stax__out o = stax__out_make(buf, cap - 1); /* the last byte is the NUL's */
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            stax__out_byte(&o, *f++);
            continue;
        }
        f++;
        int left = 0, zero = 0, lenmod = FMT_INT;
        char plus = 0;
        for (;; f++) {
            if (*f == '-') left = 1;
            else if (*f == '0') zero = 1;
            else if (*f == '+') plus = '+';
            else if (*f == ' ') plus = plus ? plus : ' ';
            else break;
        }
        size_t width = 0;
        if (*f == '*') {
            int w = va_arg(ap, int);
            if (w < 0) left = 1, w = w == INT_MIN ? INT_MAX : -w;
            width = (size_t)w;
            f++;
        } else {
            for (; *f >= '0' && *f <= '9'; f++) width = width < 100000 ? width * 10 + (size_t)(*f - '0') : width;
        }
        long prec = -1;
        if (*f == '.') {
            f++;
            if (*f == '*') {
                int p = va_arg(ap, int);
                prec = p < 0 ? -1 : p;
                f++;
            } else {
                for (prec = 0; *f >= '0' && *f <= '9'; f++) prec = prec < 100000 ? prec * 10 + (*f - '0') : prec;
            }
        }
        switch (*f) {
        case 'h': lenmod = f[1] == 'h' ? FMT_HH : FMT_H; break;
        case 'l': lenmod = f[1] == 'l' ? FMT_LL : FMT_L; break;
        case 'z': lenmod = FMT_Z; break;
        case 'j': lenmod = FMT_J; break;
        case 't': lenmod = FMT_T; break;
        default: break;
        }
        f += lenmod == FMT_INT ? 0 : lenmod == FMT_HH || lenmod == FMT_LL ? 2 : 1;
        char c = *f++;
        switch (c) {
        case 'd':
        case 'i': {
            intmax_t v;
            switch (lenmod) {
            case FMT_HH: v = (signed char)va_arg(ap, int); break;
            case FMT_H: v = (short)va_arg(ap, int); break;
            case FMT_L: v = va_arg(ap, long); break;
            case FMT_LL: v = va_arg(ap, long long); break;
            case FMT_J: v = va_arg(ap, intmax_t); break;
            case FMT_Z:
            case FMT_T: v = va_arg(ap, ptrdiff_t); break;
            default: v = va_arg(ap, int); break;
            }
            uintmax_t u = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
            fmt_num(&o, u, v < 0 ? '-' : plus, 10, 0, prec, width, left, zero);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            uintmax_t v;
            switch (lenmod) {
            case FMT_HH: v = (unsigned char)va_arg(ap, unsigned); break;
            case FMT_H: v = (unsigned short)va_arg(ap, unsigned); break;
            case FMT_L: v = va_arg(ap, unsigned long); break;
            case FMT_LL: v = va_arg(ap, unsigned long long); break;
            case FMT_J: v = va_arg(ap, uintmax_t); break;
            case FMT_Z:
            case FMT_T: v = va_arg(ap, size_t); break;
            default: v = va_arg(ap, unsigned); break;
            }
            fmt_num(&o, v, 0, c == 'u' ? 10u : c == 'o' ? 8u : 16u, c == 'X', prec, width, left, zero);
            break;
        }
        case 'c': {
            size_t pad = width > 1 ? width - 1 : 0;
            if (!left) fmt_pad(&o, ' ', pad);
            stax__out_byte(&o, (char)va_arg(ap, int));
            if (left) fmt_pad(&o, ' ', pad);
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            size_t n = 0;
            while ((prec < 0 || n < (size_t)prec) && s[n]) n++;
            size_t pad = width > n ? width - n : 0;
            if (!left) fmt_pad(&o, ' ', pad);
            size_t fit = n < stax__out_room(&o) ? n : stax__out_room(&o);
            stax__out_put(&o, s, fit);
            if (fit < n) stax__out_fail(&o);
            if (left) fmt_pad(&o, ' ', pad);
            break;
        }
        case '%': stax__out_byte(&o, '%'); break;
        default: /* not one of ours: the arguments cannot be followed past it */
            stax__out_fail(&o);
            break;
        }
        if (o.over) break;
    }
    size_t len = (size_t)(o.p - buf);
    if (o.over) { /* cut: drop a UTF-8 sequence the cut left incomplete */
        size_t k = len, cont = 0;
        while (k > 0 && cont < 3 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--, cont++;
        if (k > 0) {
            unsigned lead = (unsigned char)buf[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
            if (need > cont + 1) len = k - 1;
        }
    }
    buf[len] = '\0'; /* len <= cap - 1: the window left that byte out */
    return len;
}

size_t stax__fmt(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t n = stax__vfmt(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

