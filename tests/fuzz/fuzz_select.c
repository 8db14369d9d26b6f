/* libFuzzer target for stax_select: the path compiler and the streaming
 * evaluation, on hostile paths and documents.
 *
 * Input layout: a 5-byte header, then the paths up to the first '\n', then
 * (header bit 5) the columns up to the next '\n', then the document.
 *
 *   h[0] chunk size of the chunked run: 1 + h0 % 64; bit 7: the chunked run
 *        hands over one event at a time (stax_select_event), which takes none
 *        of stax_select_batch's shortcuts; bit 6: the chunked run is cut
 *        every 1 + h[4] / 8 events (or batches): the select's state saved,
 *        and a new select resumed from it takes the rest
 *   h[1] bit 0 namespaces (reader and select; prefixes p and q are bound),
 *        1 STAX_SELECT_XML, 2 STAX_SELECT_NO_VALUES, 3 the select in a fixed
 *        block, 4 small limits, 5 columns, 6 stop after h[4] % 8 + 1 matches,
 *        7 STAX_SELECT_ALL_MATCHES (every match of a column, joined by ";")
 *   h[2] small limits: max_held = 256 + 64 * h2
 *   h[3] small limits: max_state = 512 + 64 * h3, max_depth = 1 + h3 % 32;
 *        fixed block: 8 KiB + 1 KiB * h3
 *   h[4] bits 0-2: the match count to stop after (h[1] bit 6); bits 3-7: where
 *        the chunked run is cut (h[0] bit 6)
 *
 * The document is read twice, whole and in chunks, each through a new select.
 * Invariants (abort() when broken):
 *   - a refused path has a negative status and a message, and takes no event
 *   - pieces follow the protocol: BEGIN of the next match number, then
 *     COLUMN (records, in column order) and VALUE pieces of that match, then
 *     END; VALUE pieces have ptr != NULL when len > 0; without XML their bytes
 *     are valid UTF-8; NO_VALUES gives no VALUE; no match is left open when the
 *     document ends well
 *   - in a fixed block, stax_select_new fails only when
 *     stax_select_check_options says the block is too small for the
 *     options, and nothing fails with STAX_E_NOMEM once the paths compiled:
 *     every failure is a limit
 *   - at a cut, a state that can be saved (no match open: else
 *     STAX_E_NOSAVE) has the same size twice, does not fit one byte less
 *     (STAX_E_FULL), is refused truncated (STAX_E_CONTEXT), taken or refused
 *     with a byte changed (never read out of bounds: the sanitizers), and
 *     taken whole by a new select with the same paths and options, whose
 *     match numbers start again at 0 (the counts are the run's sums)
 *   - when both reader runs end with STAX_END, both selects end with the same
 *     status and message, the same pieces (a hash of every field) and counts:
 *     chunking never matters, nor whether events come by batch or one by one,
 *     nor where the select was cut and resumed */
#include "stax.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 5

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                        \
        if (!(cond)) {                                                                                          \
            fprintf(stderr, "fuzz_select: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                                                       \
            fprintf(stderr, "\n");                                                                              \
            abort();                                                                                            \
        }                                                                                                       \
    } while (0)

typedef struct pieces {
    uint64_t hash, next, cur, ends, stop_after;
    uint64_t base; /* the matches before the last cut (a resumed select numbers from 0) */
    int open, values, xml, columns;
    uint32_t column;
} pieces;

static void mix(uint64_t *h, const void *p, size_t n) {
    const unsigned char *u = p;
    for (size_t i = 0; i < n; i++) *h = (*h ^ u[i]) * 0x100000001b3ULL; /* FNV-1a */
}

static int utf8_ok(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = p[i], len = c < 0x80 ? 1 : c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
        if (!len || i + len > n) return 0;
        for (unsigned k = 1; k < len; k++)
            if ((p[i + k] & 0xC0) != 0x80) return 0;
        i += len;
    }
    return 1;
}

static int on_piece(void *ctx, const stax_select_piece *p) {
    pieces *c = ctx;
    const uint64_t match = c->base + p->match;
    switch (p->type) {
    case STAX_SELECT_BEGIN:
        CHECK(!c->open && match == c->next, "BEGIN of match %llu", (unsigned long long)match);
        CHECK(p->kind >= STAX_SELECT_ELEMENT && p->kind <= STAX_SELECT_TEXT, "kind %d", p->kind);
        c->open = 1;
        c->cur = match;
        c->next = match + 1;
        c->column = 0;
        break;
    case STAX_SELECT_COLUMN:
        CHECK(c->open && c->columns && match == c->cur, "COLUMN outside a record");
        CHECK(p->column == c->column, "column %u, not %u", p->column, c->column);
        c->column++;
        break;
    case STAX_SELECT_VALUE:
        CHECK(c->open && c->values && match == c->cur, "VALUE outside its match");
        CHECK(p->value.len == 0 || p->value.ptr, "NULL value");
        CHECK(c->xml || utf8_ok((const unsigned char *)p->value.ptr, p->value.len), "a value that is not UTF-8");
        break;
    case STAX_SELECT_END:
        CHECK(c->open && match == c->cur, "END outside its match");
        c->open = 0;
        c->ends++;
        break;
    default: CHECK(0, "piece type %d", p->type);
    }
    mix(&c->hash, &p->type, sizeof p->type);
    mix(&c->hash, &p->kind, sizeof p->kind);
    mix(&c->hash, &p->path, sizeof p->path);
    mix(&c->hash, &p->column, sizeof p->column);
    if (p->value.len) mix(&c->hash, p->value.ptr, p->value.len);
    return p->type == STAX_SELECT_END && c->stop_after && c->ends >= c->stop_after;
}

typedef struct result {
    int reader, select;
    char msg[256];
    uint64_t hash, counts[4];
} result;

/* The cut: s's state saved (NULL when it cannot be here: a match open)
 * and a new select with the same options (a block of its own, in a fixed
 * block) and paths resumed from it; s is freed, its counts added to
 * counts. */
static stax_select *cut(stax_select *s, stax_select_options *so, stax_str paths, stax_str cols, void **block,
                        pieces *c, uint64_t counts[4], const unsigned char *h) {
    size_t len = 0, len2 = 0;
    int st = stax_select_save(s, NULL, 0, &len);
    if (st == STAX_E_NOSAVE) return NULL;
    CHECK(st == STAX_OK && len > 0, "save: status %d, %zu bytes", st, len);
    unsigned char *state = malloc(len), *bad = malloc(len);
    CHECK(state && bad, "out of memory");
    if (len > 1) CHECK(stax_select_save(s, state, len - 1, &len2) == STAX_E_FULL && len2 == len, "a save one byte short");
    CHECK(stax_select_save(s, state, len, &len2) == STAX_OK && len2 == len, "save: %zu bytes, then %zu", len, len2);
    void *nblock = NULL;
    if (*block) {
        nblock = malloc(so->memory_size);
        so->memory = nblock;
    }
    stax_select *t = stax_select_new(so);
    CHECK(t, "no second select with the options of the first");
    CHECK(stax_select_compile(t, paths, cols) == STAX_OK, "the paths compiled again: %s", stax_select_message(t));
    stax_select_set_output(t, on_piece, c);
    size_t k = (size_t)(c->hash ^ h[2]) % len;
    CHECK(stax_select_resume(t, state, k) == STAX_E_CONTEXT, "a state of %zu bytes taken cut to %zu", len, k);
    stax_select_reset(t);
    memcpy(bad, state, len);
    bad[(size_t)(c->hash >> 7) % len] ^= (unsigned char)(1 + h[3] % 255u);
    st = stax_select_resume(t, bad, len);
    CHECK(st == STAX_OK || st == STAX_E_CONTEXT, "a changed state: status %d", st);
    stax_select_reset(t);
    st = stax_select_resume(t, state, len);
    CHECK(st == STAX_OK, "resume: status %d, %s", st, stax_select_message(t));
    for (size_t p = 0; p < 4 && p < stax_select_paths(s); p++) counts[p] += stax_select_count(s, p);
    c->base = c->next;
    stax_select_free(s);
    free(*block);
    *block = nblock;
    free(state);
    free(bad);
    return t;
}

static result run(const unsigned char *h, const char *paths, size_t plen, const char *cols, size_t clen,
                  const char *doc, size_t dlen, size_t chunk) {
    result res;
    memset(&res, 0, sizeof res);
    stax_str ns[] = {{"p", 1}, {"urn:p", 5}, {"q", 1}, {"urn:q", 5}};
    stax_select_options so;
    memset(&so, 0, sizeof so);
    so.ns = ns;
    so.ns_count = 2;
    if (h[1] & 0x01) so.flags |= STAX_SELECT_NAMESPACES;
    if (h[1] & 0x02) so.flags |= STAX_SELECT_XML;
    if (h[1] & 0x04) so.flags |= STAX_SELECT_NO_VALUES;
    if (h[1] & 0x80) {
        so.flags |= STAX_SELECT_ALL_MATCHES;
        so.join.ptr = ";";
        so.join.len = 1;
    }
    if (h[1] & 0x10) {
        so.max_held = 256 + 64 * (size_t)h[2];
        so.max_state = 512 + 64 * (size_t)h[3];
        so.max_depth = 1 + h[3] % 32u;
        so.xml_memory = STAX_WRITER_MIN_MEMORY + 2048;
    }
    void *block = NULL;
    if (h[1] & 0x08) {
        so.memory_size = 8192 + 1024 * (size_t)h[3];
        block = malloc(so.memory_size);
        so.memory = block;
    }
    stax_select *s = stax_select_new(&so);
    if (!s) {
        const char *why = "";
        CHECK(block && stax_select_check_options(&so, &why) == STAX_E_NOMEM, "stax_select_new failed: %s", why);
        free(block);
        res.select = STAX_E_NOMEM;
        return res;
    }
    pieces c;
    memset(&c, 0, sizeof c);
    c.hash = 0xcbf29ce484222325ULL;
    c.values = !(h[1] & 0x04);
    c.xml = c.values && (h[1] & 0x02);
    c.columns = clen > 0 && (h[1] & 0x20);
    c.stop_after = h[1] & 0x40 ? h[4] % 8u + 1 : 0;
    stax_str pstr = {paths, plen}, cstr = {cols, c.columns ? clen : 0};
    res.select = stax_select_compile(s, pstr, cstr);
    if (res.select != STAX_OK) {
        CHECK(res.select < 0 && stax_select_message(s)[0], "compile: status %d, no message", res.select);
        snprintf(res.msg, sizeof res.msg, "%s", stax_select_message(s));
        stax_batch empty;
        memset(&empty, 0, sizeof empty);
        CHECK(stax_select_batch(s, &empty) == res.select, "a refused select took a batch");
        stax_select_free(s);
        free(block);
        return res;
    }
    stax_select_set_output(s, on_piece, &c);
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    if (h[1] & 0x01) ro.flags = STAX_READ_NAMESPACES;
    stax_reader *r = stax_reader_new(&ro);
    CHECK(r, "stax_reader_new failed");
    const stax_batch *b;
    int st = STAX_NEED_INPUT, sst = STAX_OK;
    size_t pos = 0, turns = 0, every = chunk && (h[0] & 0x40) ? 1 + (size_t)(h[4] >> 3) : 0;
    uint64_t counts[4] = {0, 0, 0, 0}; /* of the selects before the last cut */
    stax_select *t;
    while (st == STAX_NEED_INPUT && sst == STAX_OK) {
        char *copy = NULL;
        if (pos < dlen) {
            size_t n = chunk && chunk < dlen - pos ? chunk : dlen - pos;
            copy = malloc(n);
            memcpy(copy, doc + pos, n);
            stax_reader_feed(r, copy, n);
            pos += n;
        } else {
            stax_reader_end(r);
        }
        while (sst == STAX_OK && (st = stax_reader_next(r, &b)) == STAX_OK) {
            if (!chunk || !(h[0] & 0x80)) {
                sst = stax_select_batch(s, b);
                if (every && sst == STAX_OK && ++turns % every == 0 &&
                    (t = cut(s, &so, pstr, cstr, &block, &c, counts, h)) != NULL)
                    s = t;
                continue;
            }
            for (size_t i = 0; sst == STAX_OK && i < b->count; i++) {
                sst = stax_select_event(s, b, i);
                if (every && sst == STAX_OK && ++turns % every == 0 &&
                    (t = cut(s, &so, pstr, cstr, &block, &c, counts, h)) != NULL)
                    s = t;
            }
        }
        free(copy);
    }
    res.reader = st;
    res.select = sst;
    CHECK(!block || sst != STAX_E_NOMEM, "out of memory in a fixed block after compiling: %s", stax_select_message(s));
    CHECK(sst == stax_select_status(s), "status %d but returned %d", stax_select_status(s), sst);
    if (sst < 0) CHECK(stax_select_message(s)[0], "an error without a message");
    snprintf(res.msg, sizeof res.msg, "%s", sst < 0 ? stax_select_message(s) : "");
    if (sst == STAX_OK && st == STAX_END) CHECK(!c.open, "a match open at the end of the document");
    res.hash = c.hash;
    for (size_t k = 0; k < 4 && k < stax_select_paths(s); k++) res.counts[k] = counts[k] + stax_select_count(s, k);
    stax_reader_free(r);
    stax_select_free(s);
    free(block);
    return res;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    unsigned char h[HDR] = {0};
    if (size < HDR) return 0;
    memcpy(h, data, HDR);
    const char *p = (const char *)data + HDR, *end = (const char *)data + size;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t plen = nl ? (size_t)(nl - p) : (size_t)(end - p);
    const char *cols = nl ? nl + 1 : end, *doc = cols;
    size_t clen = 0;
    if (h[1] & 0x20) {
        const char *nl2 = memchr(cols, '\n', (size_t)(end - cols));
        clen = nl2 ? (size_t)(nl2 - cols) : (size_t)(end - cols);
        doc = nl2 ? nl2 + 1 : end;
    }
    size_t dlen = (size_t)(end - doc);
    result whole = run(h, p, plen, cols, clen, doc, dlen, 0);
    result chunked = run(h, p, plen, cols, clen, doc, dlen, 1 + h[0] % 64u);
    if (whole.reader == STAX_END && chunked.reader == STAX_END) {
        CHECK(whole.select == chunked.select, "status whole %d, chunked %d", whole.select, chunked.select);
        CHECK(!strcmp(whole.msg, chunked.msg), "message whole '%s', chunked '%s'", whole.msg, chunked.msg);
        CHECK(whole.hash == chunked.hash, "the pieces differ with chunking");
        CHECK(!memcmp(whole.counts, chunked.counts, sizeof whole.counts), "the counts differ with chunking");
    }
    return 0;
}
