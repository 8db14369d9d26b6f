/* The reader's intake: the carry, which holds the one token that straddles
 * chunks, the detection of the input's encoding, and the windows of
 * transcoded input (non-UTF-8 documents are decoded to UTF-8 into tbuf). */
#include "reader.h"

/* The carry never holds more than carry_max bytes: framing decides every
 * token within that many (RD_CARRY_SLACK). The bytes before carry_off were
 * read already; they are dropped here, the one place the carry's bytes move. */
int stax__rd_carry_append(stax_reader *r, const char *p, size_t n) {
    if (r->doc.carry_off) {
        size_t live = rd_carry_len(r);
        memmove(r->buf.carry.ptr, r->buf.carry.ptr + r->doc.carry_off, live);
        r->buf.carry.len = live;
        r->doc.carry_off = 0;
    }
    if (stax__rd_reserve(r, &r->buf.carry, n, r->cfg.carry_max)) return -1;
    if (stax__buf_put(&r->buf.carry, p, n)) return rd_internal(r, "carry full after reserving"), -1;
    return 0;
}

/* ---------------------------------------------------------------- encodings */

/* Whether there is a buffer of transcoded input, read_buffer bytes (carved
 * at creation in a fixed block; else now). */
static int rd_tbuf(stax_reader *r) {
    if (!r->buf.tbuf && (r->buf.tbuf = (char *)stax__mem_alloc(&r->buf.mem, r->cfg.opt.read_buffer)) != NULL)
        r->buf.tbuf_cap = r->cfg.opt.read_buffer;
    return r->buf.tbuf != NULL;
}

static int rd_decode_into_window(stax_reader *r, const char *src, size_t n, size_t *consumed) {
    if (!rd_tbuf(r)) return stax__rd_nomem(r);
    size_t produced = 0;
    int rc = stax__decode(&r->doc.dec, src, n, consumed, r->buf.tbuf, r->buf.tbuf_cap, &produced);
    r->doc.in = r->buf.tbuf;
    r->doc.in_len = produced;
    r->doc.in_pos = 0;
    r->doc.win_nocr = RD_WIN_UNSEARCHED;
    if (rc == STAX__DEC_ERROR) {
        r->doc.dec_err = 1;
        r->doc.dec_err_off = r->doc.raw_base + r->doc.raw_pos + *consumed - r->doc.dec.err_pend;
    }
    return 0;
}

#ifndef STAX_NO_EXTRA_ENCODINGS
/* rd_decoder_fail for the caller's decoder: the offset counts UTF-8, and
 * the message names the input byte. */
static int rd_hook_fail(stax_reader *r, stax_pos at, int truncated) {
    const stax__decoder *d = &r->doc.dec;
    const stax__hook *h = &d->hook;
    unsigned long long byte = truncated ? r->doc.raw_base + r->doc.raw_len - d->err_pend : r->doc.dec_err_off;
    const char *msg = h->msg ? h->msg : stax_strerror(h->status);
    switch (h->status) {
    case STAX_E_ENCODING:
        return stax__rd_fail_at(r, STAX_E_ENCODING, at, "invalid byte sequence for %s (input byte %llu)", h->name, byte);
    case STAX_E_TRUNCATED:
        return stax__rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside a %s character (input byte %llu)", h->name, byte);
    default:
        return stax__rd_fail_at(r, h->status, at, "the decoder for %s failed: %.*s", h->name, stax__clip(strlen(msg), 160), msg);
    }
}
#endif

/* The error of a decoder that stopped (dec_err set, or the end of input
 * inside a character: truncated). Everything decoded before it has been
 * read, so the position is where the carry ends; its offset counts input
 * bytes (but for a caller's decoder: rd_hook_fail). */
static int rd_decoder_fail(stax_reader *r, int truncated) {
    stax_pos at = r->doc.pos;
    rd_advance(r, &at, rd_carry_ptr(r), rd_carry_len(r));
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (r->doc.dec.enc == STAX__ENC_HOOK) return rd_hook_fail(r, at, truncated);
#endif
    at.offset = truncated ? r->doc.raw_base + r->doc.raw_len - r->doc.dec.npend : r->doc.dec_err_off;
    if (truncated)
        return stax__rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside a %s character", stax__encoding_name(r->doc.enc));
    return stax__rd_fail_at(r, STAX_E_ENCODING, at, "invalid byte sequence for %s", stax__encoding_name(r->doc.enc));
}

/* The window is used up: transcode more of the raw chunk. RD_NEXT when the
 * window has bytes again, RD_WAIT when there is nothing more to decode, or RD_FAIL. */
int stax__rd_refill(stax_reader *r) {
    if (r->doc.dec_err) return rd_decoder_fail(r, 0), RD_FAIL;
    if (r->doc.raw_pos >= r->doc.raw_len) {
        if (!r->doc.ended) return RD_WAIT;
        size_t produced = 0;
#ifndef STAX_NO_EXTRA_ENCODINGS
        if (r->doc.enc == STAX__ENC_HOOK && !rd_tbuf(r)) return stax__rd_nomem(r), RD_FAIL; /* (it may write: the buffer may be unused yet) */
#endif
        int rc = stax__decode_end(&r->doc.dec, r->buf.tbuf, r->buf.tbuf_cap, &produced);
        if (rc == STAX__DEC_ERROR) return rd_decoder_fail(r, 1), RD_FAIL;
        if (!produced) return RD_WAIT;
        r->doc.in = r->buf.tbuf; /* a caller's decoder's last characters */
        r->doc.in_len = produced;
        r->doc.in_pos = 0;
        r->doc.win_nocr = RD_WIN_UNSEARCHED;
        return RD_NEXT;
    }
    size_t used = 0;
    if (rd_decode_into_window(r, r->doc.raw + r->doc.raw_pos, r->doc.raw_len - r->doc.raw_pos, &used)) return RD_FAIL;
    r->doc.raw_pos += used;
    if (r->doc.in_len == 0 && !r->doc.dec_err) return r->doc.raw_pos < r->doc.raw_len ? RD_NEXT : RD_WAIT;
    return RD_NEXT;
}

/* From now on the rest of the window (and pre, bytes held back before it) is
 * raw input in encoding enc. */
int stax__rd_start_transcoding(stax_reader *r, int enc, const uint32_t *table, const char *pre, size_t pre_len) {
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (enc != STAX__ENC_HOOK) /* (a hook is open already) */
#endif
        stax__decoder_init(&r->doc.dec, enc, table);
    r->doc.enc = enc;
    r->doc.raw = r->doc.in ? r->doc.in + r->doc.in_pos : NULL;
    r->doc.raw_len = r->doc.in_len - r->doc.in_pos;
    r->doc.raw_pos = 0;
    r->doc.raw_base = r->doc.pos.offset + pre_len;
    r->doc.in_len = r->doc.in_pos = 0;
    if (pre_len) {
        size_t used = 0;
        uint64_t base = r->doc.raw_base;
        r->doc.raw_base = r->doc.pos.offset; /* offsets of errors in pre */
        r->doc.raw_pos = 0;
        if (rd_decode_into_window(r, pre, pre_len, &used)) return r->doc.status;
        r->doc.raw_base = base;
    }
    return 0;
}

#ifndef STAX_NO_EXTRA_ENCODINGS
/* The caller's decoder for the encoding name[0, len) (declared, or forced),
 * open in doc.dec: 0, or the status (STAX_E_UNSUPPORTED when there is none
 * or it refuses the name). */
int stax__rd_open_decoder(stax_reader *r, const char *name, size_t len) {
    if (stax__decoder_open(&r->doc.dec, r->cfg.opt.decoder, r->cfg.opt.decoder_ud, name, len) == 0) return 0;
    return stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos, "encoding '%.*s' is not supported", stax__clip(len, 64), name);
}
#endif

#ifndef STAX_NO_EXTRA_ENCODINGS
/* The characters an XML declaration is written in, by their EBCDIC bytes:
 * the same in every EBCDIC code page (its invariant set), else 0. */
/* The bytes an EBCDIC document's declaration must end within (or read_buffer
 * and the carry, when smaller): a declaration is short, and the bytes are
 * decoded again at once into the transcode buffer. */
#define RD_EBCDIC_DECL ((size_t)256)

static char rd_ebcdic_char(unsigned char c) {
    static const char lower[] = "abcdefghi\0\0\0\0\0\0\0jklmnopqr\0\0\0\0\0\0\0\0stuvwxyz";
    if (c >= 0x81 && c <= 0xA9) return lower[c - 0x81];
    if (c >= 0xC1 && c <= 0xE9) return lower[c - 0xC1] ? (char)(lower[c - 0xC1] - 32) : 0;
    if (c >= 0xF0 && c <= 0xF9) return (char)('0' + (c - 0xF0));
    switch (c) {
    case 0x40: return ' ';
    case 0x05: return '\t';
    case 0x25: return '\n';
    case 0x0D: return '\r';
    case 0x4C: return '<';
    case 0x6E: return '>';
    case 0x6F: return '?';
    case 0x7E: return '=';
    case 0x7F: return '"';
    case 0x7D: return '\'';
    case 0x4B: return '.';
    case 0x60: return '-';
    case 0x6D: return '_';
    default: return 0;
    }
}

/* An EBCDIC document: its declaration is in EBCDIC too, written in the
 * characters every EBCDIC code page shares. Its bytes (at most read_buffer,
 * and the carry's room) are gathered in the carry through its "?>", the
 * name read from them, and the caller's decoder opened with it, which then
 * reads the document from its first byte (the declaration included, one
 * byte of UTF-8 a byte). RD_NEXT, RD_WAIT or RD_FAIL. */
static int rd_ebcdic(stax_reader *r, int direct) {
    if (!r->cfg.opt.decoder)
        return stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos, "the input is in EBCDIC, which stax reads only through a decoder"), RD_FAIL;
    if (direct) {
        memcpy(r->doc.head, r->doc.in + r->doc.in_pos, 4);
        r->doc.head_len = 4;
        r->doc.in_pos += 4;
    }
    if (!r->buf.carry.len && stax__rd_carry_append(r, (const char *)r->doc.head, 4)) return RD_FAIL;
    /* (a bound of its own, not read_buffer alone: the outcome must not depend on the buffer's size) */
    size_t cap = r->cfg.opt.read_buffer < r->cfg.carry_max ? r->cfg.opt.read_buffer : r->cfg.carry_max;
    if (cap > RD_EBCDIC_DECL) cap = RD_EBCDIC_DECL;
    int done = 0;
    while (!done && r->doc.in_pos < r->doc.in_len && r->buf.carry.len < cap) {
        const char *w = r->doc.in + r->doc.in_pos;
        size_t n = r->doc.in_len - r->doc.in_pos, room = cap - r->buf.carry.len;
        const char *gt = (const char *)memchr(w, 0x6E, n < room ? n : room);
        size_t k = gt ? (size_t)(gt - w) + 1 : (n < room ? n : room);
        if (stax__rd_carry_append(r, w, k)) return RD_FAIL;
        r->doc.in_pos += k;
        done = gt && (unsigned char)r->buf.carry.ptr[r->buf.carry.len - 2] == 0x6F;
    }
    if (!done && r->buf.carry.len < cap && !r->doc.ended) return RD_WAIT;
    /* the declaration in ASCII, and its encoding's name */
    char decl[256];
    size_t n = r->buf.carry.len < sizeof decl - 1 ? r->buf.carry.len : sizeof decl - 1, i = 0;
    for (; i < n && (decl[i] = rd_ebcdic_char((unsigned char)r->buf.carry.ptr[i])) != 0; i++) {}
    decl[i] = 0;
    const char *e = NULL, *name = NULL;
    for (size_t k = 0; done && i == r->buf.carry.len && k + 8 <= i && !e; k++)
        if (memcmp(decl + k, "encoding", 8) == 0) e = decl + k + 8;
    size_t len = 0;
    if (e) { /* (decl ends in a NUL: every loop stops there) */
        while (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r') e++;
        if (*e++ == '=') {
            while (*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r') e++;
            const char *q = e + 1;
            while ((*e == '"' || *e == '\'') && *q && *q != *e) q++;
            if ((*e == '"' || *e == '\'') && *q == *e && q > e + 1) name = e + 1, len = (size_t)(q - e - 1);
        }
    }
    if (!done)
        return stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos,
                                "the input is in EBCDIC, and no XML declaration ends within its first %zu bytes", cap),
               RD_FAIL;
    if (!name)
        return stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos, "the input is in EBCDIC, and its XML declaration names no encoding"),
               RD_FAIL;
    if (stax__encoding_by_name(name, len) >= 0)
        return stax__rd_fail_at(r, STAX_E_ENCODING, r->doc.pos, "the declared encoding '%.*s' contradicts the input, which is EBCDIC",
                                stax__clip(len, 64), name),
               RD_FAIL;
    if (stax__rd_open_decoder(r, name, len)) return RD_FAIL;
    r->doc.detected = STAX__ENC_EBCDIC;
    size_t pre = r->buf.carry.len;
    r->buf.carry.len = 0; /* (its bytes are decoded at once, before anything is put in it) */
    return stax__rd_start_transcoding(r, STAX__ENC_HOOK, NULL, r->buf.carry.ptr, pre) ? RD_FAIL : RD_NEXT;
}
#endif

/* Appendix F: the BOM or the first bytes say the encoding family. The first
 * (up to) four bytes are gathered in head when the first chunks are tiny.
 * RD_NEXT once the encoding is known, RD_WAIT for more bytes, or RD_FAIL. */
int stax__rd_detect(stax_reader *r) {
    const unsigned char *p = r->doc.in ? (const unsigned char *)r->doc.in + r->doc.in_pos : (const unsigned char *)"";
    size_t n = r->doc.in_len - r->doc.in_pos, b0 = 0;
    /* in place when the window alone decides; else gather the first bytes.
     * A forced encoding still needs four bytes (or the end) to see a BOM. */
    int direct = r->doc.head_len == 0 &&
                 (r->cfg.forced ? n >= 4 || r->doc.ended : stax__encoding_detect(p, n, r->doc.ended, &b0) != 0);
    if (!direct) {
        while (r->doc.head_len < 4 && r->doc.in_pos < r->doc.in_len)
            r->doc.head[r->doc.head_len++] = (unsigned char)r->doc.in[r->doc.in_pos++];
        p = r->doc.head;
        n = r->doc.head_len;
        if (r->cfg.forced ? n < 4 && !r->doc.ended : stax__encoding_detect(p, n, r->doc.ended, &b0) == 0) return RD_WAIT;
    }
    size_t bom = 0;
    int enc = r->cfg.forced ? r->cfg.forced : stax__encoding_detect(p, n, r->doc.ended, &bom);
    if (enc == 0) return RD_WAIT;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (enc == STAX__ENC_EBCDIC) return rd_ebcdic(r, direct);
    if (enc == STAX__ENC_HOOK && stax__rd_open_decoder(r, r->cfg.opt.encoding, strlen(r->cfg.opt.encoding))) return RD_FAIL;
#endif
    if (enc < 0) {
#ifndef STAX_NO_EXTRA_ENCODINGS
        stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos, "the input is in UCS-4 of byte order 2143 or 3412, which stax does not read");
#else
        stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->doc.pos, "the input is in UCS-4 or EBCDIC, which stax does not read");
#endif
        return RD_FAIL;
    }
    if (r->cfg.forced) { /* a BOM that agrees with the forced encoding is skipped */
        size_t b2 = 0;
        int d = stax__encoding_detect(p, n, 1, &b2);
        if (enc == STAX__ENC_UTF16) enc = (d == STAX__ENC_UTF16LE) ? STAX__ENC_UTF16LE : STAX__ENC_UTF16BE;
#ifndef STAX_NO_EXTRA_ENCODINGS
        if (enc == STAX__ENC_UTF32) enc = (d == STAX__ENC_UTF32LE) ? STAX__ENC_UTF32LE : STAX__ENC_UTF32BE;
#endif
        if (d == enc && b2) bom = b2;
    }
    r->doc.detected = enc;
    r->doc.bom_len = bom;
    r->doc.pos.offset += bom; /* the BOM is not a character: no column */
    if (direct) {
        r->doc.in_pos += bom;
        if (enc == STAX__ENC_UTF8) r->doc.enc = enc;
        else if (stax__rd_start_transcoding(r, enc, NULL, NULL, 0)) return RD_FAIL;
        return RD_NEXT;
    }
    const char *rest = (const char *)r->doc.head + bom;
    size_t rest_len = r->doc.head_len - bom;
    if (enc == STAX__ENC_UTF8) {
        r->doc.enc = enc;
        if (rest_len && stax__rd_carry_append(r, rest, rest_len)) return RD_FAIL;
        r->doc.tok_pos = r->doc.pos;
        return RD_NEXT;
    }
    return stax__rd_start_transcoding(r, enc, NULL, rest, rest_len) ? RD_FAIL : RD_NEXT;
}

/* Move the unconsumed tail of the window into the carry. */
int stax__rd_stash(stax_reader *r) {
    size_t n = r->doc.in_len - r->doc.in_pos;
    if (n == 0) return 0;
    if (stax__rd_carry_append(r, r->doc.in + r->doc.in_pos, n)) return -1;
    r->doc.in_pos = r->doc.in_len;
    return 0;
}
