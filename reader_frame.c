/* Framing: where the token at a position ends, resumably (rd_frame keeps
 * how far it scanned, and the quote/subset state), so that a token split
 * across chunks is found without rescanning, and a token over max_token is
 * found on its first max_token bytes. The token parsers (reader_tokens.c)
 * then see each token whole. */
#include "reader.h"

/* ================================================================ framing */

static const char *rd_find2(const char *p, size_t n, char a, char b) {
    for (size_t i = 0; i + 1 < n;) {
        const char *q = (const char *)memchr(p + i, a, n - 1 - i);
        if (!q) return NULL;
        if (q[1] == b) return q;
        i = (size_t)(q - p) + 1;
    }
    return NULL;
}

static const char *rd_find3(const char *p, size_t n, char a, char b, char c) {
    for (size_t i = 0; i + 2 < n;) {
        const char *q = (const char *)memchr(p + i, a, n - 2 - i);
        if (!q) return NULL;
        if (q[1] == b && q[2] == c) return q;
        i = (size_t)(q - p) + 1;
    }
    return NULL;
}

/* Where a text or CDATA piece of more than max_text bytes is cut: at max_text,
 * moved back so that it splits no UTF-8 sequence, reference, CR LF or "]]>".
 * Depends only on the bytes, never on chunking. */
static size_t rd_cut(const stax_reader *r, const char *p, size_t max, int text) {
    size_t cut = max;
    if (text) {
        size_t lim = r->cfg.opt.max_name + 16, k = cut;
        while (k > 0 && cut - k < lim) {
            char c = p[k - 1];
            if (c == ';' || c == '<') break;
            if (c == '&') {
                cut = k - 1;
                break;
            }
            k--;
        }
    }
    for (int b = 0; b < 2 && cut > 0 && p[cut - 1] == ']'; b++) cut--;
    if (cut > 0 && p[cut - 1] == '\r') cut--;
    while (cut > 0 && ((unsigned char)p[cut] & 0xC0) == 0x80) cut--;
    if (cut == 0) { /* nothing sensible to back off to: cut at a character boundary */
        cut = max;
        while (cut > 1 && ((unsigned char)p[cut] & 0xC0) == 0x80) cut--;
    }
    return cut;
}

/* Frame the token at p (n bytes available, the token starts at p[0]).
 * Returns its length, 0 if more bytes are needed (state kept in f), -1
 * after an error, or RD_FRAME_OVER: it is longer than max_token. */
static ptrdiff_t rd_frame_scan(stax_reader *r, rd_frame *f, const char *p, size_t n) {
    size_t max_text = r->cfg.opt.max_text, max_tok = r->cfg.opt.max_token;
    switch (f->kind) {
    case K_TEXT: {
        if (f->known) {
            if (n < f->scan) return 0;
            return (ptrdiff_t)f->scan;
        }
        size_t lim = n < max_text + 1 ? n : max_text + 1;
        const char *lt = f->scan < lim ? (const char *)memchr(p + f->scan, '<', lim - f->scan) : NULL;
        if (lt) return lt - p;
        if (n > max_text) {
            f->cut = 1;
            return (ptrdiff_t)rd_cut(r, p, max_text, 1);
        }
        f->scan = n;
        return 0;
    }
    case K_MARKUP: {
        static const char *const bang[] = {"<!--", "<![CDATA[", "<!DOCTYPE"};
        static const int bang_kind[] = {K_COMMENT, K_CDATA, K_DOCTYPE};
        if (n < 2) return 0;
        if (p[1] == '/') f->kind = K_ETAG, f->scan = 2;
        else if (p[1] == '?') f->kind = K_PI, f->scan = 2;
        else if (p[1] != '!') f->kind = K_STAG, f->scan = 1;
        else {
            int partial = 0;
            for (int k = 0; k < 3; k++) {
                size_t bl = strlen(bang[k]), m = n < bl ? n : bl;
                if (memcmp(p, bang[k], m) != 0) continue;
                if (m < bl) {
                    partial = 1;
                    continue;
                }
                f->kind = bang_kind[k];
                f->scan = bl;
            }
            if (f->kind == K_MARKUP) {
                if (partial) return 0;
                return rd_fail(r, STAX_E_SYNTAX, p, 0, "invalid markup after '<!'"), -1;
            }
        }
        return rd_frame_scan(r, f, p, n);
    }
    case K_STAG:
    case K_ETAG: {
        /* scan no further than max_token: what lies beyond cannot matter,
         * however the input is chunked (the token is over the limit) */
        size_t i = f->scan, lim = n < max_tok ? n : max_tok;
        int q = f->quote;
        while (i < lim) {
            if (!q) i += stax__scan_tag(p + i, lim - i);
            if (i >= lim) break;
            if (q) { /* the closing quote, or a '<' (an error) before it */
                i += stax__scan2(p + i, lim - i, (char)q, '<');
                if (i >= lim) break;
                if (p[i] == '<') return rd_fail(r, STAX_E_SYNTAX, p, i, "'<' is not allowed in an attribute value"), -1;
                i++;
                q = 0;
                continue;
            }
            char c = p[i];
            if (c == '>') return (ptrdiff_t)i + 1;
            if (c == '"' || c == '\'') q = c;
            else if (c == '<') return rd_fail(r, STAX_E_SYNTAX, p, i, "'<' inside a tag"), -1;
            i++;
        }
        if (i >= max_tok) return RD_FRAME_OVER;
        f->scan = i;
        f->quote = q;
        return 0;
    }
    case K_COMMENT:
    case K_PI: {
        int com = f->kind == K_COMMENT;
        size_t from = f->scan > (com ? 6u : 4u) ? f->scan - (com ? 2 : 1) : (com ? 4 : 2);
        const char *e = com ? rd_find3(p + from, n - from, '-', '-', '>') : rd_find2(p + from, n - from, '?', '>');
        if (e) return (e - p) + (com ? 3 : 2);
        if (n > max_tok) return RD_FRAME_OVER;
        f->scan = n;
        return 0;
    }
    case K_CDATA:
    case K_CDATA_CONT: {
        size_t cs = f->kind == K_CDATA ? 9 : 0, from = f->scan > cs + 2 ? f->scan - 2 : cs;
        size_t lim = n < cs + max_text + 3 ? n : cs + max_text + 3;
        const char *e = from < lim ? rd_find3(p + from, lim - from, ']', ']', '>') : NULL;
        if (e) return (e - p) + 3;
        if (n >= cs + max_text + 3) {
            f->cut = 1;
            return (ptrdiff_t)(cs + rd_cut(r, p + cs, max_text, 0));
        }
        f->scan = n;
        return 0;
    }
    case K_DOCTYPE: {
        size_t i = f->scan;
        while (i < n) {
            char c = p[i];
            if (f->quote) {
                const char *e = (const char *)memchr(p + i, f->quote, n - i);
                if (!e) {
                    i = n;
                    break;
                }
                i = (size_t)(e - p) + 1;
                f->quote = 0;
                continue;
            }
            if (f->sub == 2 || f->sub == 3) { /* inside a comment or PI of the subset */
                const char *e = f->sub == 2 ? rd_find3(p + i, n - i, '-', '-', '>') : rd_find2(p + i, n - i, '?', '>');
                if (!e) {
                    i = n > i + 2 ? n - 2 : i;
                    break;
                }
                i = (size_t)(e - p) + (f->sub == 2 ? 3 : 2);
                f->sub = 1;
                continue;
            }
            if (c == '"' || c == '\'') f->quote = c;
            else if (f->sub == 0 && c == '[') f->sub = 1;
            else if (f->sub == 0 && c == '>') return (ptrdiff_t)i + 1;
            else if (f->sub == 1 && c == ']') f->sub = 0;
            else if (f->sub == 1 && c == '<') {
                if (n - i < 4) break; /* need "<!--" or "<?" to decide */
                if (p[i + 1] == '?') {
                    f->sub = 3;
                    i += 2;
                    continue;
                }
                if (p[i + 1] == '!' && p[i + 2] == '-' && p[i + 3] == '-') {
                    f->sub = 2;
                    i += 4;
                    continue;
                }
            }
            i++;
        }
        if (n > max_tok) return RD_FRAME_OVER;
        f->scan = i;
        return 0;
    }
    default: return rd_internal(r, "no token kind to frame"), -1;
    }
}

/* rd_frame_scan, plus the token-size limit: a token other than text or CDATA
 * (which are cut) longer than max_token is RD_FRAME_OVER however it was
 * chunked, decided on its first max_token bytes, which p holds then; the
 * caller has stax__rd_over_limit say which error that is. */
ptrdiff_t stax__rd_frame_end(stax_reader *r, rd_frame *f, const char *p, size_t n) {
    ptrdiff_t e = rd_frame_scan(r, f, p, n);
    if (e > 0 && (size_t)e > r->cfg.opt.max_token && f->kind != K_TEXT && f->kind != K_CDATA && f->kind != K_CDATA_CONT)
        return RD_FRAME_OVER;
    return e;
}

/* The kind of the token that starts with byte c. */
void stax__rd_frame_start(stax_reader *r, rd_frame *f, unsigned char c) {
    memset(f, 0, sizeof *f);
    if (r->doc.in_cdata) f->kind = K_CDATA_CONT;
    else if (c == '<') f->kind = K_MARKUP;
    else f->kind = K_TEXT;
    if (r->doc.rest && f->kind == K_TEXT) { /* the rest of a text token: its end is known */
        f->known = 1 + r->doc.rest_flags;
        f->scan = r->doc.rest;
        f->cut = (r->doc.rest_flags & RD_REST_CUT) != 0;
        f->at_eof = (r->doc.rest_flags & RD_REST_EOF) != 0;
    }
}

/* A token framed to end at n was parsed and `used` bytes of it consumed.
 * When a reference ended a text token early, the rest of it is the next
 * token, ending where it ended: framing it again costs nothing, and however
 * small the pieces a reference leaves, each byte is scanned for '<' once.
 * The rest keeps the token's cut and at_eof. */
void stax__rd_frame_consumed(stax_reader *r, const rd_frame *f, size_t n, size_t used) {
    r->doc.rest = f->kind == K_TEXT && used < n ? n - used : 0;
    r->doc.rest_flags = r->doc.rest ? (f->cut ? RD_REST_CUT : 0) | (f->at_eof ? RD_REST_EOF : 0) : 0;
}
