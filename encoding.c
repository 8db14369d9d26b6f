/* Input encodings: detection (XML 1.0 Appendix F), names, and transcoding of
 * UTF-16, ISO-8859-1, US-ASCII, Windows-1252 and caller tables to UTF-8.
 * docs/encodings.md states the rules; this file only implements them. */
#include "stax_internal.h"

#if defined(__GNUC__) || defined(__clang__)
#define ENC_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define ENC_ALWAYS_INLINE static inline
#endif

/* ================================================================ names */

typedef struct enc_alias {
    const char *name;
    int enc;
} enc_alias;

/* IANA names and aliases, plus the spellings people actually write. */
static const enc_alias enc_aliases[] = {
    {"UTF-8", STAX__ENC_UTF8},
    {"UTF8", STAX__ENC_UTF8},
    {"csUTF8", STAX__ENC_UTF8},
    {"UTF-16", STAX__ENC_UTF16},
    {"UTF16", STAX__ENC_UTF16},
    {"csUTF16", STAX__ENC_UTF16},
    {"ISO-10646-UCS-2", STAX__ENC_UTF16},
    {"UCS-2", STAX__ENC_UTF16},
    {"csUnicode", STAX__ENC_UTF16},
    {"UTF-16LE", STAX__ENC_UTF16LE},
    {"UTF16LE", STAX__ENC_UTF16LE},
    {"csUTF16LE", STAX__ENC_UTF16LE},
    {"UTF-16BE", STAX__ENC_UTF16BE},
    {"UTF16BE", STAX__ENC_UTF16BE},
    {"csUTF16BE", STAX__ENC_UTF16BE},
    {"ISO-8859-1", STAX__ENC_LATIN1},
    {"ISO8859-1", STAX__ENC_LATIN1},
    {"ISO_8859-1", STAX__ENC_LATIN1},
    {"ISO_8859-1:1987", STAX__ENC_LATIN1},
    {"ISO88591", STAX__ENC_LATIN1},
    {"iso-ir-100", STAX__ENC_LATIN1},
    {"latin1", STAX__ENC_LATIN1},
    {"latin-1", STAX__ENC_LATIN1},
    {"l1", STAX__ENC_LATIN1},
    {"IBM819", STAX__ENC_LATIN1},
    {"CP819", STAX__ENC_LATIN1},
    {"csISOLatin1", STAX__ENC_LATIN1},
    {"US-ASCII", STAX__ENC_ASCII},
    {"ASCII", STAX__ENC_ASCII},
    {"ANSI_X3.4-1968", STAX__ENC_ASCII},
    {"ANSI_X3.4-1986", STAX__ENC_ASCII},
    {"iso-ir-6", STAX__ENC_ASCII},
    {"ISO_646.irv:1991", STAX__ENC_ASCII},
    {"ISO646-US", STAX__ENC_ASCII},
    {"us", STAX__ENC_ASCII},
    {"IBM367", STAX__ENC_ASCII},
    {"cp367", STAX__ENC_ASCII},
    {"csASCII", STAX__ENC_ASCII},
    {"windows-1252", STAX__ENC_CP1252},
    {"windows1252", STAX__ENC_CP1252},
    {"cp1252", STAX__ENC_CP1252},
    {"cswindows1252", STAX__ENC_CP1252},
};

static int enc_name_eq(const char *name, size_t len, const char *alias) {
    size_t i = 0;
    for (; i < len && alias[i]; i++) {
        unsigned char a = (unsigned char)name[i], b = (unsigned char)alias[i];
        if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
        if (b >= 'A' && b <= 'Z') b = (unsigned char)(b + 32);
        if (a != b) return 0;
    }
    return i == len && !alias[i];
}

int stax__encoding_by_name(const char *name, size_t len) {
    for (size_t k = 0; k < sizeof enc_aliases / sizeof enc_aliases[0]; k++)
        if (enc_name_eq(name, len, enc_aliases[k].name)) return enc_aliases[k].enc;
    return -1;
}

const char *stax__encoding_name(int enc) {
    switch (enc) {
    case STAX__ENC_UTF8: return "UTF-8";
    case STAX__ENC_UTF16LE: return "UTF-16LE";
    case STAX__ENC_UTF16BE: return "UTF-16BE";
    case STAX__ENC_LATIN1: return "ISO-8859-1";
    case STAX__ENC_ASCII: return "US-ASCII";
    case STAX__ENC_CP1252: return "windows-1252";
    case STAX__ENC_TABLE: return "custom";
    case STAX__ENC_UTF16: return "UTF-16";
    default: return "unknown";
    }
}

/* ================================================================ detection */

typedef struct enc_sign {
    unsigned char len, bytes[4];
    signed char enc; /* -1: recognized but unsupported */
    unsigned char bom;
} enc_sign;

/* Appendix F, in match order: a 4-byte UCS-4 mark must be tried before the
 * UTF-16 BOM it starts with. The "<?xml" of an ASCII-compatible encoding is
 * not listed: it gives the default, UTF-8, like any other start. */
static const enc_sign enc_signs[] = {
    {4, {0x00, 0x00, 0xFE, 0xFF}, -1, 0}, /* UCS-4 BOMs, all four byte orders */
    {4, {0xFF, 0xFE, 0x00, 0x00}, -1, 0},
    {4, {0x00, 0x00, 0xFF, 0xFE}, -1, 0},
    {4, {0xFE, 0xFF, 0x00, 0x00}, -1, 0},
    {3, {0xEF, 0xBB, 0xBF, 0}, STAX__ENC_UTF8, 3},
    {2, {0xFE, 0xFF, 0, 0}, STAX__ENC_UTF16BE, 2},
    {2, {0xFF, 0xFE, 0, 0}, STAX__ENC_UTF16LE, 2},
    {4, {0x00, 0x00, 0x00, 0x3C}, -1, 0}, /* '<' in UCS-4, no BOM */
    {4, {0x3C, 0x00, 0x00, 0x00}, -1, 0},
    {4, {0x00, 0x00, 0x3C, 0x00}, -1, 0},
    {4, {0x00, 0x3C, 0x00, 0x00}, -1, 0},
    {4, {0x00, 0x3C, 0x00, 0x3F}, STAX__ENC_UTF16BE, 0}, /* "<?" in UTF-16, no BOM */
    {4, {0x3C, 0x00, 0x3F, 0x00}, STAX__ENC_UTF16LE, 0},
    {4, {0x4C, 0x6F, 0xA7, 0x94}, -1, 0}, /* "<?xm" in EBCDIC */
};

int stax__encoding_detect(const unsigned char *p, size_t n, int at_end, size_t *bom_len) {
    *bom_len = 0;
    for (size_t k = 0; k < sizeof enc_signs / sizeof enc_signs[0]; k++) {
        const enc_sign *s = &enc_signs[k];
        size_t m = n < s->len ? n : s->len;
        if (m && memcmp(p, s->bytes, m) != 0) continue;
        if (m < s->len) {
            if (!at_end) return 0; /* a prefix of this mark: the next bytes decide */
            continue;
        }
        *bom_len = s->bom;
        return s->enc;
    }
    return STAX__ENC_UTF8;
}

int stax__encoding_resolve(int detected, size_t bom_len, int declared) {
    if (detected <= 0 || detected == STAX__ENC_UTF16) return -1;
    if (declared <= 0) return detected;
    if (detected == STAX__ENC_UTF16LE || detected == STAX__ENC_UTF16BE)
        return declared == STAX__ENC_UTF16 || declared == detected ? detected : -1;
    /* 8-bit bytes from here: "<?xml" without zeros cannot be UTF-16 */
    if (declared == STAX__ENC_UTF16 || declared == STAX__ENC_UTF16LE || declared == STAX__ENC_UTF16BE) return -1;
    if (bom_len) return declared == STAX__ENC_UTF8 ? declared : -1;
    return declared;
}

/* ================================================================ transcoding */

void stax__decoder_init(stax__decoder *d, int enc, const uint32_t *table) {
    memset(d, 0, sizeof *d);
    d->enc = enc;
    d->table = table;
    if (enc == STAX__ENC_TABLE && table) {
        uint32_t c = 0;
        while (c < 0x80 && table[c] == c) c++;
        d->table_ascii = c == 0x80;
    }
}

/* Windows-1252 0x80..0x9F; 0 marks the five undefined bytes. 0xA0..0xFF are
 * the Latin-1 code points. */
static const uint16_t enc_cp1252_c1[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, /* 80..87 */
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,      /* 88..8F */
    0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, /* 90..97 */
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178, /* 98..9F */
};

/* Write cp (<= 0x10FFFF, not a surrogate) at o, which has 4 bytes of room. */
ENC_ALWAYS_INLINE size_t enc_put(uint32_t cp, unsigned char *o) { return (size_t)stax__utf8_encode(cp, (char *)o); }

/* A code point below 0x800 without a branch on its length: two bytes are
 * always written (o has room for them), one or two are kept. */
ENC_ALWAYS_INLINE size_t enc_put_short(unsigned c, unsigned char *o) {
    o[0] = (unsigned char)(c < 0x80 ? c : 0xC0 | (c >> 6));
    o[1] = (unsigned char)(0x80 | (c & 0x3F));
    return 1 + (c >= 0x80);
}

/* Length of the run of bytes < 0x80 at the start of p[0, n). */
ENC_ALWAYS_INLINE size_t enc_ascii_run(const unsigned char *p, size_t n) {
    size_t i = 0;
#ifdef STAX__SSE2
    for (; i + 16 <= n; i += 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)));
        if (m) return i + stax__ctz32(m);
    }
#else
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w & 0x8080808080808080ULL) break;
    }
#endif
    while (i < n && p[i] < 0x80) i++;
    return i;
}

static int enc_fail(stax__decoder *d, size_t at, size_t k, size_t *consumed, size_t *produced) {
    d->err_pend = 0;
    *consumed = at;
    *produced = k;
    return STAX__DEC_ERROR;
}

ENC_ALWAYS_INLINE int enc_block_is_ascii(const unsigned char *p) {
#ifdef STAX__SSE2
    return !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)p));
#else
    uint64_t a, b;
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
    return !((a | b) & 0x8080808080808080ULL);
#endif
}

/* The UTF-8 of every Latin-1 byte, two bytes each (an ASCII byte uses one). */
#define ENC_L1(c) {(unsigned char)((c) < 0x80 ? (c) : 0xC0 | ((c) >> 6)), (unsigned char)(0x80 | ((c)&0x3F))}
#define ENC_L1x4(c) ENC_L1(c), ENC_L1((c) + 1), ENC_L1((c) + 2), ENC_L1((c) + 3)
#define ENC_L1x16(c) ENC_L1x4(c), ENC_L1x4((c) + 4), ENC_L1x4((c) + 8), ENC_L1x4((c) + 12)
#define ENC_L1x64(c) ENC_L1x16(c), ENC_L1x16((c) + 16), ENC_L1x16((c) + 32), ENC_L1x16((c) + 48)
static const unsigned char enc_latin1_utf8[256][2] = {ENC_L1x64(0), ENC_L1x64(64), ENC_L1x64(128), ENC_L1x64(192)};
#undef ENC_L1
#undef ENC_L1x4
#undef ENC_L1x16
#undef ENC_L1x64

ENC_ALWAYS_INLINE size_t enc_put_latin1(unsigned c, unsigned char *o) {
    memcpy(o, enc_latin1_utf8[c], 2);
    return 1 + (c >> 7);
}

/* ISO-8859-1: every byte is its code point. Blocks of 16 bytes: copied whole
 * when all ASCII, else expanded without a branch per byte. */
static int enc_latin1(const unsigned char *s, size_t n, size_t *consumed, unsigned char *o, size_t cap,
                      size_t *produced) {
    size_t i = 0, k = 0;
    for (; n - i >= 16 && cap - k >= 32; i += 16) {
        if (enc_block_is_ascii(s + i)) {
            memcpy(o + k, s + i, 16);
            k += 16;
        } else {
            for (int j = 0; j < 16; j++) k += enc_put_latin1(s[i + j], o + k);
        }
    }
    for (; i < n && cap - k >= 2; i++) k += enc_put_latin1(s[i], o + k);
    *consumed = i;
    *produced = k;
    return 0;
}

/* US-ASCII, Windows-1252 and caller tables: runs of ASCII are copied whole
 * (unless a table remaps ASCII), other bytes go one at a time. enc is a
 * constant at each call site. */
ENC_ALWAYS_INLINE int enc_single(stax__decoder *d, const unsigned char *s, size_t n, size_t *consumed,
                                 unsigned char *o, size_t cap, size_t *produced, int enc) {
    int ascii_fast = enc != STAX__ENC_TABLE || d->table_ascii;
    size_t i = 0, k = 0;
    while (i < n) {
        if (ascii_fast) {
            size_t r = enc_ascii_run(s + i, n - i < cap - k ? n - i : cap - k);
            memcpy(o + k, s + i, r);
            i += r;
            k += r;
            if (i == n || s[i] < 0x80) break; /* done, or dst is full */
        }
        do {
            if (cap - k < 4) goto done;
            unsigned c = s[i];
            uint32_t cp;
            if (enc == STAX__ENC_ASCII) {
                goto bad; /* only bytes >= 0x80 get here */
            } else if (enc == STAX__ENC_CP1252) {
                cp = c - 0x80u < 0x20u ? enc_cp1252_c1[c - 0x80] : c;
                if (!cp) goto bad; /* c >= 0x80 here, so 0 is the undefined mark */
            } else {
                cp = d->table[c];
                if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) goto bad;
            }
            k += enc_put(cp, o + k);
            i++;
        } while (i < n && (!ascii_fast || s[i] >= 0x80));
    }
done:
    *consumed = i;
    *produced = k;
    return 0;
bad:
    return enc_fail(d, i, k, consumed, produced);
}

ENC_ALWAYS_INLINE unsigned enc_unit(const unsigned char *p, int be) {
    return be ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

/* Decode the unit at s, with the next one when it is a high surrogate (the
 * caller makes sure those 4 bytes are there), into o (4 bytes of room).
 * Returns the bytes of s used (2 or 4) and adds the output length to *k, or
 * returns 0 for an unpaired surrogate. */
ENC_ALWAYS_INLINE size_t enc_utf16_one(const unsigned char *s, unsigned char *o, size_t *k, int be) {
    unsigned u = enc_unit(s, be);
    if (u < 0x800) {
        *k += enc_put_short(u, o);
        return 2;
    }
    if (u - 0xD800u >= 0x800u) {
        o[0] = (unsigned char)(0xE0 | (u >> 12));
        o[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (u & 0x3F));
        *k += 3;
        return 2;
    }
    if (u >= 0xDC00) return 0; /* a low surrogate first: s may hold only its 2 bytes */
    unsigned u2 = enc_unit(s + 2, be);
    if (u2 - 0xDC00u >= 0x400u) return 0;
    *k += enc_put(0x10000u + ((u - 0xD800u) << 10) + (u2 - 0xDC00u), o);
    return 4;
}

/* Finish the unit (or surrogate pair) begun in d->pend with bytes from s.
 * Returns 1 with the output written and d->pend emptied, 0 if s ran out
 * first, or STAX__DEC_ERROR. *used counts the bytes taken from s. */
static int enc_utf16_pend(stax__decoder *d, const unsigned char *s, size_t n, size_t *used, unsigned char *o,
                          size_t *k, int be) {
    size_t i = 0;
    while (d->npend < 2 && i < n) d->pend[d->npend++] = s[i++];
    if (d->npend >= 2 && enc_unit(d->pend, be) - 0xD800u < 0x400u)
        while (d->npend < 4 && i < n) d->pend[d->npend++] = s[i++];
    *used = i;
    if (d->npend < 2 || (d->npend < 4 && enc_unit(d->pend, be) - 0xD800u < 0x400u)) return 0;
    if (!enc_utf16_one(d->pend, o, k, be)) {
        d->err_pend = d->npend - (unsigned)i;
        return STAX__DEC_ERROR;
    }
    d->npend = 0;
    return 1;
}

/* be is a constant at both call sites, so each byte order gets its own loop. */
ENC_ALWAYS_INLINE int enc_utf16(stax__decoder *d, const unsigned char *s, size_t n, size_t *consumed, unsigned char *o,
                                size_t cap, size_t *produced, int be) {
    size_t i = 0, k = 0;
    if (d->npend) {
        int rc = enc_utf16_pend(d, s, n, &i, o, &k, be);
        if (rc == STAX__DEC_ERROR) {
            *consumed = 0;
            *produced = 0;
            return rc;
        }
        if (rc == 0) goto done;
    }
    for (;;) {
#ifdef STAX__SSE2
        /* 16 units a step while they are all ASCII: pack the low bytes. */
        const __m128i hi_mask = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
        while (n - i >= 32 && cap - k >= 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
            if (be) {
                a = _mm_or_si128(_mm_slli_epi16(a, 8), _mm_srli_epi16(a, 8));
                b = _mm_or_si128(_mm_slli_epi16(b, 8), _mm_srli_epi16(b, 8));
            }
            __m128i hi = _mm_and_si128(_mm_or_si128(a, b), hi_mask);
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(hi, zero)) != 0xFFFF) break;
            _mm_storeu_si128((__m128i *)(void *)(o + k), _mm_packus_epi16(a, b));
            i += 32;
            k += 16;
        }
#endif
        /* 16 units with no bounds checks: they take at most 49 bytes of
         * output, and 34 of input when the last starts a surrogate pair. */
        if (n - i < 36 || cap - k < 64) break;
        for (size_t e = i + 32; i < e; i += 2) {
            unsigned u = enc_unit(s + i, be);
            if (STAX_LIKELY(u < 0x800)) {
                k += enc_put_short(u, o + k);
            } else if (u - 0xD800u >= 0x800u) {
                o[k] = (unsigned char)(0xE0 | (u >> 12));
                o[k + 1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
                o[k + 2] = (unsigned char)(0x80 | (u & 0x3F));
                k += 3;
            } else {
                size_t used = enc_utf16_one(s + i, o + k, &k, be);
                if (!used) return enc_fail(d, i, k, consumed, produced);
                i += 2; /* the low surrogate */
            }
        }
    }
    /* The last units, or the last room: checked one at a time. */
    while (n - i >= 2) {
        if (cap - k < 4) goto done;
        if (n - i < 4 && enc_unit(s + i, be) - 0xD800u < 0x400u) break; /* half a pair: to pend */
        size_t used = enc_utf16_one(s + i, o + k, &k, be);
        if (!used) return enc_fail(d, i, k, consumed, produced);
        i += used;
    }
    while (i < n) d->pend[d->npend++] = s[i++]; /* 1 to 3 bytes: the start of a unit or a pair */
done:
    *consumed = i;
    *produced = k;
    return 0;
}

int stax__decode(stax__decoder *d, const char *src, size_t n, size_t *consumed, char *dst, size_t cap,
                 size_t *produced) {
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *o = (unsigned char *)dst;
    switch (d->enc) {
    case STAX__ENC_UTF8: {
        size_t m = n < cap ? n : cap;
        if (m) memcpy(o, s, m);
        *consumed = *produced = m;
        return 0;
    }
    case STAX__ENC_UTF16LE: return enc_utf16(d, s, n, consumed, o, cap, produced, 0);
    case STAX__ENC_UTF16BE: return enc_utf16(d, s, n, consumed, o, cap, produced, 1);
    case STAX__ENC_LATIN1: return enc_latin1(s, n, consumed, o, cap, produced);
    case STAX__ENC_ASCII: return enc_single(d, s, n, consumed, o, cap, produced, STAX__ENC_ASCII);
    case STAX__ENC_CP1252: return enc_single(d, s, n, consumed, o, cap, produced, STAX__ENC_CP1252);
    case STAX__ENC_TABLE:
        if (d->table) return enc_single(d, s, n, consumed, o, cap, produced, STAX__ENC_TABLE);
        break;
    default: break;
    }
    /* unresolved (STAX__ENC_UTF16) or unknown: nothing can be decoded */
    return enc_fail(d, 0, 0, consumed, produced);
}

int stax__decode_finish(const stax__decoder *d) { return d->npend ? STAX__DEC_ERROR : 0; }
