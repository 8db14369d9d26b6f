/* Encodings the library does not read itself, through a caller's decoder
 * (stax_reader_options.decoder): every multi-byte encoding of the tool's
 * iconv decoder against iconv's own conversion of the same UTF-8 text, at
 * chunk sizes 1, 2, 3, 7 and whole; a decoder of the test's own for the
 * contract (errors and their positions, a failure mid-stream, refusal,
 * broken promises, open and close); UTF-32, which the library reads
 * itself, with and without a BOM in both byte orders. */
#include "../cli/cli.h"
#include "harness.h"

#include <criterion/criterion.h>

#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t dec_chunks[] = {1, 2, 3, 7, 0};

/* Skip the test where iconv does not convert between enc and UTF-8 (a
 * static build finds no conversion modules, say). */
static void dec_need_iconv(const char *enc) {
    if (!stax_cli_decoder()) cr_skip_test("the tool is built without iconv (make ICONV=0)");
    iconv_t cd = iconv_open("UTF-8", enc);
    if (cd == (iconv_t)-1) cr_skip_test("iconv here does not read %s", enc);
    iconv_close(cd);
}

/* utf8[0, n) converted by iconv to enc (NULL when iconv does not know enc). */
static char *dec_iconv_to(const char *enc, const char *utf8, size_t n, size_t *len) {
    iconv_t cd = iconv_open(enc, "UTF-8");
    if (cd == (iconv_t)-1) return NULL;
    size_t cap = 4 * n + 16, left = cap;
    char *out = malloc(cap), *o = out, *in = (char *)(uintptr_t)utf8;
    cr_assert_not_null(out);
    cr_assert_neq(iconv(cd, &in, &n, &o, &left), (size_t)-1, "iconv to %s", enc);
    cr_assert_neq(iconv(cd, NULL, NULL, &o, &left), (size_t)-1);
    iconv_close(cd);
    *len = cap - left;
    return out;
}

/* The events of a UTF-8 document with its declared encoding, read as UTF-8
 * (forced), with positions: what the same text in that encoding must give
 * through a decoder (offsets count the UTF-8 it makes). */
static char *dec_reference(const char *utf8) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.encoding = "UTF-8";
    int st;
    char *d = stax_test_events_ex(utf8, strlen(utf8), 0, &o, STAX_DUMP_POS, &st);
    cr_assert_eq(st, STAX_END, "the reference reads: %s", d);
    return d;
}

static void dec_expect_same(const char *enc, const char *utf8) {
    size_t len;
    dec_need_iconv(enc);
    char *doc = dec_iconv_to(enc, utf8, strlen(utf8), &len);
    cr_assert_not_null(doc);
    char *want = dec_reference(utf8);
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.decoder = stax_cli_decoder();
    for (size_t k = 0; k < sizeof dec_chunks / sizeof dec_chunks[0]; k++) {
        char *got = stax_test_events_ex(doc, len, dec_chunks[k], &o, STAX_DUMP_POS, NULL);
        cr_assert_str_eq(got, want, "%s at chunk size %zu:\ngot:\n%s\nwant:\n%s", enc, dec_chunks[k], got, want);
        free(got);
    }
    free(want);
    free(doc);
}

/* Every kind of token, text across lines, references, an attribute. */
#define DEC_DOC(enc, text, attr)                                                                                   \
    "<?xml version=\"1.0\" encoding=\"" enc "\"?>\n<!-- " text " -->\n<doc lang=\"" attr "\">\n  <p>" text "</p>\n" \
    "  <p a=\"" attr " &amp; " attr "\">" text "&lt;" text "</p><?pi " text "?>\r\n  <![CDATA[" text "]]>\n</doc>\n"

#define JA "日本語のテキスト、漢字とカタカナ。東京都"
#define KO "한국어 텍스트입니다. 서울특별시"
#define ZH_S "简体中文文本，北京市"
#define ZH_T "繁體中文文本，臺北市"

Test(decoder, shift_jis_against_iconv) { dec_expect_same("SHIFT_JIS", DEC_DOC("Shift_JIS", JA, "日本")); }
Test(decoder, euc_jp_against_iconv) { dec_expect_same("EUC-JP", DEC_DOC("EUC-JP", JA, "日本")); }
Test(decoder, iso_2022_jp_against_iconv) { dec_expect_same("ISO-2022-JP", DEC_DOC("ISO-2022-JP", JA, "日本")); }
Test(decoder, euc_kr_against_iconv) { dec_expect_same("EUC-KR", DEC_DOC("EUC-KR", KO, "한국")); }
Test(decoder, gb18030_against_iconv) {
    dec_expect_same("GB18030", DEC_DOC("GB18030", ZH_S "😀" ZH_T "€", "中文😀")); /* 4-byte sequences too */
}
Test(decoder, gbk_against_iconv) { dec_expect_same("GBK", DEC_DOC("GBK", ZH_S, "中文")); }
Test(decoder, big5_against_iconv) { dec_expect_same("BIG5", DEC_DOC("Big5", ZH_T, "中文")); }

/* EBCDIC: its declaration, in the characters every EBCDIC code page
 * shares, names the code page; the decoder reads the document from its
 * first byte. Forcing the encoding does the same. */
static void dec_expect_ebcdic(const char *enc, const char *utf8, const char *force) {
    size_t len;
    dec_need_iconv(enc);
    char *doc = dec_iconv_to(enc, utf8, strlen(utf8), &len);
    cr_assert_not_null(doc);
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.decoder = stax_cli_decoder();
    o.encoding = force;
    char *want = dec_reference(utf8);
    for (size_t k = 0; k < sizeof dec_chunks / sizeof dec_chunks[0]; k++) {
        char *got = stax_test_events_ex(doc, len, dec_chunks[k], &o, STAX_DUMP_POS, NULL);
        cr_assert_str_eq(got, want, "%s at chunk size %zu:\ngot:\n%s\nwant:\n%s", enc, dec_chunks[k], got, want);
        free(got);
    }
    o.memory_size = stax_reader_memory_min(&o);
    o.memory = malloc(o.memory_size);
    char *got = stax_test_events_ex(doc, len, 1, &o, STAX_DUMP_POS, NULL);
    cr_assert_str_eq(got, want, "%s in a block of %zu bytes:\ngot:\n%s\nwant:\n%s", enc, o.memory_size, got, want);
    free(got);
    free(o.memory);
    free(want);
    free(doc);
}

Test(decoder, ebcdic_by_its_declaration) {
    dec_expect_ebcdic("IBM037", "<?xml version=\"1.0\" encoding=\"IBM037\"?>\n<doc a=\"Café\">naïve [x] {y}</doc>\n", NULL);
    dec_expect_ebcdic("IBM1047", "<?xml version='1.0' encoding='ibm1047' ?>\n<doc a=\"Café\">naïve [x] {y} ^|!</doc>\n", NULL);
    dec_expect_ebcdic("IBM500", "<?xml version=\"1.0\" encoding=\"IBM500\"?><doc>[x]</doc>", "IBM500");
}

Test(decoder, ebcdic_errors) {
    dec_need_iconv("IBM037");
    static const struct {
        const char *utf8, *want;
    } cases[] = {
        {"<?xml version=\"1.0\"?><a/>", "UNSUPPORTED @1:1:0: the input is in EBCDIC, and its XML declaration names no encoding"},
        {"<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>", "ENCODING @1:1:0: the declared encoding 'UTF-8' contradicts the input, which is EBCDIC"},
        {"<?xml version=\"1.0\" encoding=\"X-NONE\"?><a/>", "UNSUPPORTED @1:1:0: encoding 'X-NONE' is not supported"},
        {"<?xml version=\"1.0\" encoding=\"IBM037\"", "UNSUPPORTED @1:1:0: the input is in EBCDIC, and no XML declaration ends"},
    };
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.decoder = stax_cli_decoder();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *doc = dec_iconv_to("IBM037", cases[i].utf8, strlen(cases[i].utf8), &len);
        for (size_t k = 0; k < sizeof dec_chunks / sizeof dec_chunks[0]; k++) {
            char *d = stax_test_events_ex(doc, len, dec_chunks[k], &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE, NULL);
            cr_assert(strstr(d, cases[i].want), "%zu at chunk size %zu: %s", i, dec_chunks[k], d);
            free(d);
        }
        free(doc);
    }
    size_t len;
    char *doc = dec_iconv_to("IBM037", "<?xml version=\"1.0\" encoding=\"IBM037\"?><a/>", 44, &len);
    stax_test_expect_status(doc, len, NULL, "ERROR UNSUPPORTED @1:1:0"); /* no decoder */
    free(doc);
}

/* doc read through the tool's decoder: the status line want at every chunk
 * size, and message in the message at chunk size chunk. */
static void dec_expect_error(const char *doc, size_t len, const char *want, size_t chunk, const char *message) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.decoder = stax_cli_decoder();
    stax_test_expect_status(doc, len, &o, want);
    char *d = stax_test_events_ex(doc, len, chunk, &o, STAX_DUMP_MESSAGE, NULL);
    cr_assert(strstr(d, message), "%s", d);
    free(d);
}

Test(decoder, unknown_name_is_unsupported_not_malformed) {
    dec_need_iconv("UTF-8");
    static const char doc[] = "<?xml version=\"1.0\" encoding=\"X-NO-SUCH-ENCODING\"?><a/>";
    dec_expect_error(STAX_DOC(doc), "ERROR UNSUPPORTED @1:31:30", 0, "encoding 'X-NO-SUCH-ENCODING' is not supported");
}

/* Bytes Shift_JIS does not have: the error is at the input byte (named in
 * the message), at the line and column of the character it would be. */
Test(decoder, invalid_sequence_at_every_chunk_size) {
    dec_need_iconv("Shift_JIS");
    static const char doc[] = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<a>\x93\xFA\x96\x7B\n\x93\xFA\xFF\xFF</a>";
    /* 1 + 3 + 6 (UTF-8 of 日本) + 1 + 3 (日) bytes after the declaration's 42: offset 56;
     * in the input 1 + 3 + 4 + 1 + 2: byte 53 */
    dec_expect_error(STAX_DOC(doc), "ERROR ENCODING @3:2:56", 1, "invalid byte sequence for Shift_JIS (input byte 53)");
}

Test(decoder, input_ending_inside_a_character) {
    dec_need_iconv("Shift_JIS");
    static const char doc[] = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a>\x93\xFA\x93";
    dec_expect_error(STAX_DOC(doc), "ERROR TRUNCATED @1:47:48", 2, "the input ends inside a Shift_JIS character (input byte 47)");
}

/* ================================================================ a decoder of the test's own */

/* "x-hex": each character is two hex digits of a code point below 0x80, or
 * "u" and six hex digits of any; a byte outside those is invalid; "!" makes
 * decode fail (STAX_E_IO) in the middle of the stream. Its input is read a
 * byte at a time, the incomplete character kept in the state, so that
 * every split is tested. */
typedef struct hexdec {
    char held[8];
    size_t nheld;
    int used;
    int broken; /* 1: takes nothing and writes nothing; 2: says it took more than given */
} hexdec;

static int hex_opens, hex_closes, hex_broken;
static hexdec hex_states[4]; /* (no malloc: the fixed-block test forbids it) */

static void *hex_open(void *ud, const char *name, size_t len) {
    (void)ud;
    if (len != 5 || memcmp(name, "x-hex", 5) != 0) return NULL;
    for (size_t k = 0; k < sizeof hex_states / sizeof hex_states[0]; k++)
        if (!hex_states[k].used) {
            hexdec *h = &hex_states[k];
            memset(h, 0, sizeof *h);
            h->used = 1;
            h->broken = hex_broken;
            hex_opens++;
            return h;
        }
    cr_assert_fail("more than 4 states open at once: one was not closed");
    return NULL;
}

static void hex_close(void *state) {
    hex_closes++;
    ((hexdec *)state)->used = 0;
}

static int hex_val(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int hex_decode(void *state, stax_decode_io *io) {
    hexdec *h = (hexdec *)state;
    if (h->broken == 1 && io->in) return STAX_OK;
    if (h->broken == 2 && io->in) {
        io->in_used = io->in_len + 1;
        return STAX_OK;
    }
    if (!io->in) {
        io->held = h->nheld;
        return h->nheld ? STAX_E_TRUNCATED : STAX_OK;
    }
    while (io->in_used < io->in_len && io->out_cap - io->out_len >= 4) {
        char c = io->in[io->in_used++];
        if (c == '!') {
            io->message = "the test's decoder gave up";
            return STAX_E_IO;
        }
        h->held[h->nheld++] = c;
        size_t need = h->held[0] == 'u' ? 7 : 2;
        int bad = h->held[0] != 'u' && hex_val(h->held[0]) < 0;
        if (h->nheld > 1 && hex_val(c) < 0) bad = 1;
        if (bad) {
            io->held = h->nheld;
            return STAX_E_ENCODING;
        }
        if (h->nheld < need) continue;
        uint32_t cp = 0;
        for (size_t k = need == 7 ? 1 : 0; k < need; k++) cp = cp << 4 | (uint32_t)hex_val(h->held[k]);
        h->nheld = 0;
        if (need == 2 && cp >= 0x80) {
            io->held = 2;
            return STAX_E_ENCODING;
        }
        char *o = io->out + io->out_len;
        if (cp < 0x80) {
            o[0] = (char)cp;
            io->out_len += 1;
        } else if (cp < 0x800) {
            o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F));
            io->out_len += 2;
        } else if (cp < 0x10000) {
            o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[2] = (char)(0x80 | (cp & 0x3F));
            io->out_len += 3;
        } else {
            o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
            o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
            io->out_len += 4;
        }
    }
    io->held = h->nheld;
    return STAX_OK;
}

static const stax_decoder hex_decoder = {hex_open, hex_decode, hex_close};

static stax_reader_options hex_options(void) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.decoder = &hex_decoder;
    return o;
}

#define HEX_DECL "<?xml version='1.0' encoding='x-hex'?>" /* 38 bytes */

Test(decoder, own_decoder_reads_at_every_chunk_size) {
    /* <a>é😀</a> */
    static const char doc[] = HEX_DECL "3c613eu0000e9u01F6003c2f613e";
    stax_reader_options o = hex_options();
    hex_opens = hex_closes = 0;
    stax_test_expect_events(STAX_DOC(doc), &o, STAX_DUMP_POS,
                            "XMLDECL 1.0 enc=\"x-hex\" sa=- @1:1:0\nSTART a @1:39:38\nTEXT \"\xC3\xA9\xF0\x9F\x98\x80\" @1:42:41\n"
                            "END a @1:44:47\nEND-OF-DOCUMENT\n");
    cr_assert_gt(hex_opens, 0);
    cr_assert_eq(hex_closes, hex_opens, "every state opened is closed: %d opened, %d closed", hex_opens, hex_closes);
}

/* The offset of an error counts the UTF-8 before it; the message names the
 * input byte, which for a bad sequence begun in an earlier chunk is that
 * earlier byte. */
Test(decoder, own_decoder_errors_at_every_chunk_size) {
    static const char bad_digit[] = HEX_DECL "3c613e6162u00zz";
    static const char high[] = HEX_DECL "3c613e610a62ff";
    static const char cut[] = HEX_DECL "3c613e61u0000";
    static const char fails[] = HEX_DECL "3c613e61!62";
    stax_reader_options o = hex_options();
    stax_test_expect_status(STAX_DOC(bad_digit), &o, "ERROR ENCODING @1:44:43");
    stax_test_expect_status(STAX_DOC(high), &o, "ERROR ENCODING @2:2:44");
    stax_test_expect_status(STAX_DOC(cut), &o, "ERROR TRUNCATED @1:43:42");
    stax_test_expect_status(STAX_DOC(fails), &o, "ERROR IO @1:43:42");
    for (size_t k = 0; k < sizeof dec_chunks / sizeof dec_chunks[0]; k++) {
        char *d = stax_test_events_ex(STAX_DOC(bad_digit), dec_chunks[k], &o, STAX_DUMP_MESSAGE, NULL);
        cr_assert(strstr(d, "invalid byte sequence for x-hex (input byte 48)"), "chunk %zu: %s", dec_chunks[k], d);
        free(d);
        d = stax_test_events_ex(STAX_DOC(cut), dec_chunks[k], &o, STAX_DUMP_MESSAGE, NULL);
        cr_assert(strstr(d, "the input ends inside a x-hex character (input byte 46)"), "chunk %zu: %s", dec_chunks[k], d);
        free(d);
        d = stax_test_events_ex(STAX_DOC(fails), dec_chunks[k], &o, STAX_DUMP_MESSAGE, NULL);
        cr_assert(strstr(d, "the decoder for x-hex failed: the test's decoder gave up"), "chunk %zu: %s", dec_chunks[k], d);
        free(d);
    }
}

Test(decoder, refused_name_and_no_decoder) {
    static const char doc[] = "<?xml version='1.0' encoding='x-other'?><a/>";
    stax_reader_options o = hex_options();
    stax_test_expect_status(STAX_DOC(doc), &o, "ERROR UNSUPPORTED @1:31:30");
    stax_test_expect_status(STAX_DOC(doc), NULL, "ERROR UNSUPPORTED @1:31:30");
    static const char hex[] = HEX_DECL "3c612f3e";
    stax_test_expect_status(STAX_DOC(hex), NULL, "ERROR UNSUPPORTED @1:31:30");
    stax_test_expect_status(STAX_DOC(hex), &o, "END-OF-DOCUMENT");
}

/* A decoder named by a declaration that contradicts the bytes (a BOM) is
 * not even opened. */
Test(decoder, contradicted_by_the_bom) {
    static const char doc[] = "\xEF\xBB\xBF" HEX_DECL "3c612f3e";
    stax_reader_options o = hex_options();
    hex_opens = 0;
    stax_test_expect_status(STAX_DOC(doc), &o, "ERROR ENCODING @1:31:33");
    cr_assert_eq(hex_opens, 0);
}

Test(decoder, forced_name_goes_to_the_decoder) {
    static const char doc[] = "3c612f3e";
    stax_reader_options o = hex_options();
    o.encoding = "x-hex";
    stax_test_expect_events(STAX_DOC(doc), &o, 0, "START a /\nEND a\nEND-OF-DOCUMENT\n");
    o.encoding = "x-nothing";
    stax_test_expect_status(STAX_DOC(doc), &o, "ERROR UNSUPPORTED @1:1:0");
    o.decoder = NULL;
    const char *why = NULL;
    cr_assert_eq(stax_reader_check_options(&o, &why), STAX_E_USAGE);
}

Test(decoder, broken_contract_stops_the_reader) {
    static const char doc[] = HEX_DECL "3c612f3e";
    stax_reader_options o = hex_options();
    for (hex_broken = 1; hex_broken <= 2; hex_broken++) {
        char *d = stax_test_events_ex(STAX_DOC(doc), 0, &o, STAX_DUMP_MESSAGE, NULL);
        cr_assert(strstr(d, "ERROR USAGE") && strstr(d, "broke its contract"), "%s", d);
        free(d);
    }
    hex_broken = 0;
}

Test(decoder, reset_and_free_close_the_state) {
    static const char doc[] = HEX_DECL "3c613e";
    stax_reader_options o = hex_options();
    hex_opens = hex_closes = 0;
    stax_reader *r = stax_reader_new(&o);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT);
    stax_reader_feed(r, doc, sizeof doc - 1);
    while (stax_reader_next(r, &b) == STAX_OK) {}
    cr_assert_eq(hex_opens, 1);
    cr_assert_eq(hex_closes, 0);
    stax_reader_reset(r);
    cr_assert_eq(hex_closes, 1);
    cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT);
    stax_reader_feed(r, doc, sizeof doc - 1);
    while (stax_reader_next(r, &b) == STAX_OK) {}
    cr_assert_eq(hex_opens, 2);
    stax_reader_free(r);
    cr_assert_eq(hex_closes, 2);
}

/* No save point in a document read through a decoder (its offsets count
 * UTF-8, not the input a resumed reader would be fed). */
Test(decoder, no_context_is_saved) {
    static const char doc[] = HEX_DECL "3c613e3c622f3e";
    stax_reader_options o = hex_options();
    stax_reader *r = stax_reader_new(&o);
    const stax_batch *b;
    cr_assert_eq(stax_reader_next(r, &b), STAX_NEED_INPUT);
    stax_reader_feed(r, doc, sizeof doc - 1);
    int st, saw = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        size_t n;
        cr_assert_eq(stax_reader_save(r, NULL, 0, &n), STAX_E_NOSAVE);
        saw++;
    }
    cr_assert_eq(st, STAX_NEED_INPUT);
    cr_assert_gt(saw, 0);
    stax_reader_free(r);
}

/* The decoder writes into the reader's buffer of transcoded input
 * (read_buffer bytes), carved from a fixed block at creation: reading
 * through it takes nothing more, down to the smallest block. */
Test(decoder, fixed_block) {
    static const char doc[] = HEX_DECL "3c613eu0000e9u01F600u0000e9u01F600u0000e9u01F6003c2f613e";
    stax_reader_options o = hex_options();
    o.read_buffer = 64;
    size_t n = stax_reader_memory_min(&o);
    cr_assert_gt(n, 0);
    void *blk = malloc(n);
    o.memory = blk;
    o.memory_size = n;
    stax_test_forbid_malloc = 1;
    char *d = stax_test_events_all(STAX_DOC(doc), &o, 0);
    stax_test_forbid_malloc = 0;
    cr_assert_eq(stax_test_forbidden_calls, 0);
    cr_assert(strstr(d, "END-OF-DOCUMENT"), "%s", d);
    free(d);
    free(blk);
}

/* ================================================================ UTF-32 (the library's own) */

static void put32(unsigned char *out, size_t *o, uint32_t c, int big) {
    for (int k = 0; k < 4; k++) out[(*o)++] = (unsigned char)(c >> (big ? 24 - 8 * k : 8 * k));
}

/* UTF-8 (valid) to UTF-32 with an optional BOM. */
static char *to_utf32(const char *u8, int big, int bom, size_t *len) {
    size_t n = strlen(u8), o = 0;
    unsigned char *out = malloc(4 * n + 4);
    cr_assert_not_null(out);
    const unsigned char *s = (const unsigned char *)u8;
    if (bom) put32(out, &o, 0xFEFF, big);
    for (size_t i = 0; i < n;) put32(out, &o, stax_test_utf8_next(s, &i), big);
    *len = o;
    return (char *)out;
}

/* Positions count input bytes: four a character, the BOM's four included. */
Test(utf32, both_byte_orders_with_and_without_bom) {
    static const char text[] = "<?xml version='1.0' encoding='UTF-32'?><a x='\xC3\xA9'>\xE4\xB8\xAD\xF0\x9F\x98\x80</a>";
    for (int big = 0; big <= 1; big++)
        for (int bom = 0; bom <= 1; bom++) {
            size_t len;
            char *doc = to_utf32(text, big, bom, &len);
            char want[512];
            unsigned b = bom ? 4 : 0;
            snprintf(want, sizeof want,
                     "XMLDECL 1.0 enc=\"UTF-32\" sa=- @1:1:%u\nSTART a x=\"\xC3\xA9\" @1:40:%u\n"
                     "TEXT \"\xE4\xB8\xAD\xF0\x9F\x98\x80\" @1:49:%u\nEND a @1:51:%u\nEND-OF-DOCUMENT\n",
                     b, b + 39 * 4, b + 48 * 4, b + 50 * 4);
            stax_test_expect_events(doc, len, NULL, STAX_DUMP_POS, want);
            free(doc);
        }
}

Test(utf32, names_and_byte_order_marks) {
    size_t len;
    char *doc = to_utf32("<?xml version='1.0' encoding='UTF-32LE'?><a/>", 0, 0, &len);
    stax_test_expect_status(doc, len, NULL, "END-OF-DOCUMENT");
    free(doc);
    doc = to_utf32("<?xml version='1.0' encoding='UTF-32BE'?><a/>", 0, 0, &len); /* LE bytes */
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:31:120");
    free(doc);
    doc = to_utf32("<?xml version='1.0' encoding='UTF-16'?><a/>", 1, 1, &len);
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:31:124");
    free(doc);
    doc = to_utf32("<a>\xC3\xA9</a>", 1, 1, &len); /* the BOM alone says it */
    stax_test_expect_events(doc, len, NULL, 0, "START a\nTEXT \"\xC3\xA9\"\nEND a\nEND-OF-DOCUMENT\n");
    free(doc);
    /* without a BOM the declaration must say it (XML 1.0 4.3.3), or the option */
    doc = to_utf32("<?xml version='1.0'?><a/>", 0, 0, &len);
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:1:0");
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.encoding = "UTF-32LE";
    stax_test_expect_status(doc, len, &o, "END-OF-DOCUMENT");
    o.encoding = "UTF-32";
    stax_test_expect_status(doc, len, &o, "END-OF-DOCUMENT");
    free(doc);
}

Test(utf32, invalid_and_truncated) {
    size_t len;
    char *doc = to_utf32("<a>xy</a>", 0, 1, &len);
    memcpy(doc + 4 + 4 * 4, "\x00\xD8\x00\x00", 4); /* 'y': a surrogate */
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:5:20");
    memcpy(doc + 4 + 4 * 4, "\x00\x00\x11\x00", 4); /* above U+10FFFF */
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:5:20");
    free(doc);
    doc = to_utf32("<a>xy</a>", 1, 1, &len);
    stax_test_expect_status(doc, len - 2, NULL, "ERROR TRUNCATED @1:9:36");
    free(doc);
}
