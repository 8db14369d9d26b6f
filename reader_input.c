/* The reader's intake: the carry, which holds the one token that straddles
 * chunks, the detection of the input's encoding, and the windows of
 * transcoded input (non-UTF-8 documents are decoded to UTF-8 into tbuf). */
#include "reader.h"

/* The carry never holds more than carry_max bytes: framing decides every
 * token within that many (RD_CARRY_SLACK). The bytes before carry_off were
 * read already; they are dropped here, the one place the carry's bytes move. */
int stax__rd_carry_append(stax_reader *r, const char *p, size_t n) {
    if (r->carry_off) {
        size_t live = rd_carry_len(r);
        memmove(r->carry.ptr, r->carry.ptr + r->carry_off, live);
        r->carry.len = live;
        r->carry_off = 0;
    }
    if (stax__rd_reserve(r, &r->carry, n, r->carry_max)) return -1;
    if (stax__buf_put(&r->carry, p, n)) return rd_internal(r, "carry full after reserving"), -1;
    return 0;
}

/* ---------------------------------------------------------------- encodings */

static int rd_decode_into_window(stax_reader *r, const char *src, size_t n, size_t *consumed) {
    if (!r->tbuf) { /* (carved at creation in a fixed block) */
        r->tbuf = (char *)stax__mem_alloc(&r->mem, r->opt.read_buffer);
        if (!r->tbuf) return stax__rd_nomem(r);
        r->tbuf_cap = r->opt.read_buffer;
    }
    size_t produced = 0;
    int rc = stax__decode(&r->dec, src, n, consumed, r->tbuf, r->tbuf_cap, &produced);
    r->in = r->tbuf;
    r->in_len = produced;
    r->in_pos = 0;
    r->win_nocr = produced && !memchr(r->tbuf, '\r', produced);
    if (rc == STAX__DEC_ERROR) {
        r->dec_err = 1;
        r->dec_err_off = r->raw_base + r->raw_pos + *consumed - r->dec.err_pend;
    }
    return 0;
}

/* The window is used up: transcode more of the raw chunk. RD_NEXT when the
 * window has bytes again, RD_WAIT when there is nothing more to decode, or RD_FAIL. */
int stax__rd_refill(stax_reader *r) {
    if (r->dec_err) {
        stax_pos at = r->pos;
        rd_advance(r, &at, rd_carry_ptr(r), rd_carry_len(r));
        at.offset = r->dec_err_off;
        stax__rd_fail_at(r, STAX_E_ENCODING, at, "invalid byte sequence for %s", stax__encoding_name(r->enc));
        return RD_FAIL;
    }
    if (r->raw_pos >= r->raw_len) {
        if (r->ended && stax__decode_finish(&r->dec) == STAX__DEC_ERROR) {
            stax_pos at = r->pos;
            rd_advance(r, &at, rd_carry_ptr(r), rd_carry_len(r));
            at.offset = r->raw_base + r->raw_len - r->dec.npend;
            stax__rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside a %s character", stax__encoding_name(r->enc));
            return RD_FAIL;
        }
        return RD_WAIT;
    }
    size_t used = 0;
    if (rd_decode_into_window(r, r->raw + r->raw_pos, r->raw_len - r->raw_pos, &used)) return RD_FAIL;
    r->raw_pos += used;
    if (r->in_len == 0 && !r->dec_err) return r->raw_pos < r->raw_len ? RD_NEXT : RD_WAIT;
    return RD_NEXT;
}

/* From now on the rest of the window (and pre, bytes held back before it) is
 * raw input in encoding enc. */
int stax__rd_start_transcoding(stax_reader *r, int enc, const uint32_t *table, const char *pre, size_t pre_len) {
    stax__decoder_init(&r->dec, enc, table);
    r->enc = enc;
    r->raw = r->in ? r->in + r->in_pos : NULL;
    r->raw_len = r->in_len - r->in_pos;
    r->raw_pos = 0;
    r->raw_base = r->pos.offset + pre_len;
    r->in_len = r->in_pos = 0;
    if (pre_len) {
        size_t used = 0;
        uint64_t base = r->raw_base;
        r->raw_base = r->pos.offset; /* offsets of errors in pre */
        r->raw_pos = 0;
        if (rd_decode_into_window(r, pre, pre_len, &used)) return r->status;
        r->raw_base = base;
    }
    return 0;
}

/* Appendix F: the BOM or the first bytes say the encoding family. The first
 * (up to) four bytes are gathered in head when the first chunks are tiny.
 * RD_NEXT once the encoding is known, RD_WAIT for more bytes, or RD_FAIL. */
int stax__rd_detect(stax_reader *r) {
    const unsigned char *p = r->in ? (const unsigned char *)r->in + r->in_pos : (const unsigned char *)"";
    size_t n = r->in_len - r->in_pos, b0 = 0;
    /* in place when the window alone decides; else gather the first bytes.
     * A forced encoding still needs four bytes (or the end) to see a BOM. */
    int direct = r->head_len == 0 &&
                 (r->forced ? n >= 4 || r->ended : stax__encoding_detect(p, n, r->ended, &b0) != 0);
    if (!direct) {
        while (r->head_len < 4 && r->in_pos < r->in_len) r->head[r->head_len++] = (unsigned char)r->in[r->in_pos++];
        p = r->head;
        n = r->head_len;
        if (r->forced ? n < 4 && !r->ended : stax__encoding_detect(p, n, r->ended, &b0) == 0) return RD_WAIT;
    }
    size_t bom = 0;
    int enc = r->forced ? r->forced : stax__encoding_detect(p, n, r->ended, &bom);
    if (enc == 0) return RD_WAIT;
    if (enc < 0) {
        stax__rd_fail_at(r, STAX_E_UNSUPPORTED, r->pos, "the input is in UCS-4 or EBCDIC, which stax does not read");
        return RD_FAIL;
    }
    if (r->forced) { /* a BOM that agrees with the forced encoding is skipped */
        size_t b2 = 0;
        int d = stax__encoding_detect(p, n, 1, &b2);
        if (enc == STAX__ENC_UTF16) enc = (d == STAX__ENC_UTF16LE) ? STAX__ENC_UTF16LE : STAX__ENC_UTF16BE;
        if (d == enc && b2) bom = b2;
    }
    r->detected = enc;
    r->bom_len = bom;
    r->pos.offset += bom; /* the BOM is not a character: no column */
    if (direct) {
        r->in_pos += bom;
        if (enc == STAX__ENC_UTF8) r->enc = enc;
        else if (stax__rd_start_transcoding(r, enc, NULL, NULL, 0)) return RD_FAIL;
        return RD_NEXT;
    }
    const char *rest = (const char *)r->head + bom;
    size_t rest_len = r->head_len - bom;
    if (enc == STAX__ENC_UTF8) {
        r->enc = enc;
        if (rest_len && stax__rd_carry_append(r, rest, rest_len)) return RD_FAIL;
        r->tok_pos = r->pos;
        return RD_NEXT;
    }
    return stax__rd_start_transcoding(r, enc, NULL, rest, rest_len) ? RD_FAIL : RD_NEXT;
}

/* Move the unconsumed tail of the window into the carry. */
int stax__rd_stash(stax_reader *r) {
    r->stash_deferred = 0;
    size_t n = r->in_len - r->in_pos;
    if (n == 0) return 0;
    if (stax__rd_carry_append(r, r->in + r->in_pos, n)) return -1;
    r->in_pos = r->in_len;
    return 0;
}
