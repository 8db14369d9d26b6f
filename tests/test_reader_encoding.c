/* Input encodings through the reader: detection by BOM and first bytes,
 * the declaration's switch, transcoding at every chunk split (odd splits for
 * UTF-16 included), positions in input bytes, and the errors. Expected events
 * are hand-written; the encoded inputs are built here from their UTF-8 text
 * by small encoders of the test's own. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* UTF-8 (valid, BMP plus astral) to UTF-16 with an optional BOM. */
static char *to_utf16(const char *u8, int big, int bom, size_t *len) {
    size_t n = strlen(u8), o = 0;
    unsigned char *out = malloc(4 * n + 4);
    cr_assert_not_null(out);
    const unsigned char *s = (const unsigned char *)u8;
    if (bom) {
        out[o++] = big ? 0xFE : 0xFF;
        out[o++] = big ? 0xFF : 0xFE;
    }
    for (size_t i = 0; i < n;) {
        uint32_t c = stax_test_utf8_next(s, &i);
        uint32_t units[2];
        int nu = 1;
        if (c >= 0x10000) {
            c -= 0x10000;
            units[0] = 0xD800 | (c >> 10);
            units[1] = 0xDC00 | (c & 0x3FF);
            nu = 2;
        } else {
            units[0] = c;
        }
        for (int k = 0; k < nu; k++) {
            out[o++] = (unsigned char)(big ? units[k] >> 8 : units[k] & 0xFF);
            out[o++] = (unsigned char)(big ? units[k] & 0xFF : units[k] >> 8);
        }
    }
    *len = o;
    return (char *)out;
}

#define EXPECT_BYTES(doc, len, opt, want) stax_test_expect_events(doc, len, opt, 0, want)
#define EXPECT_DOC(doc, opt, want) stax_test_expect_events(STAX_DOC(doc), opt, 0, want)

Test(reader_encoding, utf16le_with_bom) {
    size_t len;
    char *doc = to_utf16("<?xml version='1.0' encoding='UTF-16'?><a x='\xC3\xA9'>\xE4\xB8\xAD\xF0\x9F\x98\x80</a>", 0, 1, &len);
    EXPECT_BYTES(doc, len, NULL,
                 "XMLDECL 1.0 enc=\"UTF-16\" sa=-\n"
                 "START a x=\"\xC3\xA9\"\n"
                 "TEXT \"\xE4\xB8\xAD\xF0\x9F\x98\x80\"\n"
                 "END a\n"
                 "END-OF-DOCUMENT\n");
    free(doc);
}

Test(reader_encoding, utf16be_with_bom_and_no_declaration) {
    size_t len;
    char *doc = to_utf16("<a>b</a>", 1, 1, &len);
    EXPECT_BYTES(doc, len, NULL, "START a\nTEXT \"b\"\nEND a\nEND-OF-DOCUMENT\n");
    free(doc);
}

Test(reader_encoding, utf16le_without_bom) {
    size_t len;
    char *doc = to_utf16("<?xml version='1.0' encoding='UTF-16LE'?><a/>", 0, 0, &len);
    EXPECT_BYTES(doc, len, NULL, "XMLDECL 1.0 enc=\"UTF-16LE\" sa=-\nSTART a /\nEND a\nEND-OF-DOCUMENT\n");
    free(doc);
}

/* XML 1.0 4.3.3: without a byte order mark and an encoding declaration an
 * entity is UTF-8, so UTF-16 recognized by its first bytes alone must
 * declare its encoding (a PI first, or a declaration without encoding, is
 * a fatal error); a forced encoding is external information and allowed. */
Test(reader_encoding, utf16_without_bom_must_declare_its_encoding) {
    static const struct { const char *text; int big; const char *want; } cases[] = {
        {"<?xml version='1.0'?><a/>", 0, "ERROR ENCODING @1:1:0"},
        {"<?xml version='1.0' standalone='yes'?><a/>", 1, "ERROR ENCODING @1:1:0"},
        {"<?pi x?><a/>", 1, "ERROR ENCODING @1:1:0"},
        {"<?xml version='1.0' encoding='UTF-16'?><a/>", 0, "END-OF-DOCUMENT"},
        {"<?xml version='1.0' encoding='UTF-16BE'?><a/>", 1, "END-OF-DOCUMENT"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t len;
        char *doc = to_utf16(cases[k].text, cases[k].big, 0, &len);
        stax_test_expect_status(doc, len, NULL, cases[k].want);
        free(doc);
        doc = to_utf16(cases[k].text, cases[k].big, 1, &len); /* with a BOM every one is fine */
        stax_test_expect_status(doc, len, NULL, "END-OF-DOCUMENT");
        free(doc);
    }
    size_t len;
    char *doc = to_utf16("<?xml version='1.0'?><a/>", 0, 0, &len);
    stax_reader_options o = {0};
    o.encoding = "UTF-16LE";
    stax_test_expect_status(doc, len, &o, "END-OF-DOCUMENT");
    free(doc);
}

Test(reader_encoding, utf16_positions_count_input_bytes) {
    /* BOM (2) + "<a>" (6) + "\xF0\x9F\x98\x80" as a surrogate pair (4) -> END at byte 12 */
    size_t len;
    char *doc = to_utf16("<a>\xF0\x9F\x98\x80</a>", 0, 1, &len);
    stax_test_expect_events(doc, len, NULL, STAX_DUMP_POS,
                            "START a @1:1:2\nTEXT \"\xF0\x9F\x98\x80\" @1:4:8\nEND a @1:5:12\nEND-OF-DOCUMENT\n");
    free(doc);
}

Test(reader_encoding, latin1_declared) {
    static const char doc[] = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a b=\"\xE9\">caf\xE9 \xFF</a>";
    stax_test_expect_events(STAX_DOC(doc), NULL, STAX_DUMP_POS,
                            "XMLDECL 1.0 enc=\"ISO-8859-1\" sa=- @1:1:0\n"
                            "START a b=\"\xC3\xA9\" @2:1:44\n"
                            "TEXT \"caf\xC3\xA9 \xC3\xBF\" @2:10:53\n"
                            "END a @2:16:59\n"
                            "END-OF-DOCUMENT\n");
}

Test(reader_encoding, windows1252_declared) {
    static const char doc[] = "<?xml version='1.0' encoding='windows-1252'?><a>\x80\x93x\x94</a>";
    EXPECT_DOC(doc, NULL,
                 "XMLDECL 1.0 enc=\"windows-1252\" sa=-\n"
                 "START a\nTEXT \"\xE2\x82\xAC\xE2\x80\x9Cx\xE2\x80\x9D\"\nEND a\nEND-OF-DOCUMENT\n");
}

Test(reader_encoding, us_ascii_refuses_high_bytes) {
    static const char doc[] = "<?xml version='1.0' encoding='US-ASCII'?>\n<a>x\xE9</a>";
    stax_test_expect_status(STAX_DOC(doc), NULL, "ERROR ENCODING @2:5:46");
}

Test(reader_encoding, declaration_contradicting_the_bom) {
    static const char doc[] = "\xEF\xBB\xBF<?xml version='1.0' encoding='ISO-8859-1'?><a/>";
    stax_test_expect_status(STAX_DOC(doc), NULL, "ERROR ENCODING @1:31:33");
}

Test(reader_encoding, unknown_encoding_name) {
    static const char doc[] = "<?xml version='1.0' encoding='x-klingon'?><a/>";
    stax_test_expect_status(STAX_DOC(doc), NULL, "ERROR UNSUPPORTED @1:31:30");
}

Test(reader_encoding, lone_surrogate_in_utf16) {
    size_t len;
    char *doc = to_utf16("<a>xy</a>", 0, 1, &len);
    /* replace 'y' (bytes 10..11) with a lone high surrogate D800 */
    doc[10] = 0x00;
    doc[11] = (char)0xD8;
    stax_test_expect_status(doc, len, NULL, "ERROR ENCODING @1:5:10");
    free(doc);
}

Test(reader_encoding, utf16_cut_inside_a_unit) {
    size_t len;
    char *doc = to_utf16("<a/>", 0, 1, &len);
    stax_test_expect_status(doc, len - 1, NULL, "ERROR TRUNCATED @1:4:8");
    free(doc);
}

Test(reader_encoding, forced_encoding_ignores_the_declaration) {
    static const char doc[] = "<?xml version='1.0' encoding='UTF-8'?><a>\xE9</a>";
    stax_reader_options o = {0};
    o.encoding = "ISO-8859-1";
    EXPECT_DOC(doc, &o, "XMLDECL 1.0 enc=\"UTF-8\" sa=-\nSTART a\nTEXT \"\xC3\xA9\"\nEND a\nEND-OF-DOCUMENT\n");
}

Test(reader_encoding, decoding_error_inside_the_first_token_at_every_chunk_size) {
    /* Forced US-ASCII: U+0001 then U+001E (not Chars, but the token they
     * start is not complete yet) then 0xA8, which US-ASCII does not have. The
     * decoding error is reported when the token needs the bytes past it,
     * whatever the chunks: with the first bytes held back to look for a BOM
     * (chunks under 4 bytes) the held-back text used to be read at the end of
     * input instead, giving STAX_E_CHAR (found by fuzz_reader). */
    static const char doc[] = "\x01\x1e\xa8";
    stax_reader_options o = {0};
    o.encoding = "US-ASCII";
    stax_test_expect_status(STAX_DOC(doc), &o, "ERROR ENCODING @1:3:2");
}

Test(reader_encoding, unknown_forced_encoding_is_refused) {
    stax_reader_options o = {0};
    o.encoding = "x-klingon";
    cr_assert_null(stax_reader_new(&o));
}

/* A caller's table for a name stax does not know: bytes map to themselves
 * except 0xA4, the euro sign (as in ISO-8859-15), and 0xFF, which is not
 * allowed. */
static uint32_t euro_table[256];
static int euro_hook_calls;
static const uint32_t *euro_hook(void *ud, const char *name, size_t len) {
    (void)ud;
    euro_hook_calls++;
    if (len != 11 || memcmp(name, "x-euro-8bit", 11) != 0) return NULL;
    for (uint32_t i = 0; i < 256; i++) euro_table[i] = i;
    euro_table[0xA4] = 0x20AC;
    euro_table[0xFF] = 0xFFFFFFFFu;
    return euro_table;
}

Test(reader_encoding, unknown_encoding_hook_table) {
    static const char doc[] = "<?xml version='1.0' encoding='x-euro-8bit'?><a>\xA4</a>";
    stax_reader_options o = {0};
    o.unknown_encoding = euro_hook;
    EXPECT_DOC(doc, &o, "XMLDECL 1.0 enc=\"x-euro-8bit\" sa=-\nSTART a\nTEXT \"\xE2\x82\xAC\"\nEND a\nEND-OF-DOCUMENT\n");
    static const char bad[] = "<?xml version='1.0' encoding='x-euro-8bit'?><a>\xFF</a>";
    stax_test_expect_status(STAX_DOC(bad), &o, "ERROR ENCODING @1:48:47");
}

/* A built-in encoding never reaches the hook: ISO-8859-15 has 0xFF (ÿ). */
Test(reader_encoding, builtin_encoding_is_not_asked_of_the_hook) {
    static const char doc[] = "<?xml version='1.0' encoding='ISO-8859-15'?><a>\xA4\xFF</a>";
    stax_reader_options o = {0};
    o.unknown_encoding = euro_hook;
    euro_hook_calls = 0;
    EXPECT_DOC(doc, &o, "XMLDECL 1.0 enc=\"ISO-8859-15\" sa=-\nSTART a\nTEXT \"\xE2\x82\xAC\xC3\xBF\"\nEND a\nEND-OF-DOCUMENT\n");
    cr_assert_eq(euro_hook_calls, 0);
}

Test(reader_encoding, utf16_random_odd_splits) {
    size_t len;
    char *doc = to_utf16("<?xml version='1.0'?><r a='\xC3\xA9\xF0\x9F\x98\x80'>t\xE4\xB8\xAD<![CDATA[x]]><!--c--></r>", 1, 1, &len);
    char *ref = stax_test_events(doc, len, 0, NULL, NULL);
    for (uint32_t seed = 1; seed <= 64; seed++) {
        char *d = stax_test_events_random(doc, len, seed, 5, NULL, 0);
        cr_assert_str_eq(d, ref, "seed %u", seed);
        free(d);
    }
    cr_assert_str_eq(stax_test_last_line(ref), "END-OF-DOCUMENT");
    free(ref);
    free(doc);
}

/* The input's end and error of one run, fed in chunks of `chunk` (0: whole):
 * with `end_at_once`, stax_reader_end right after the last feed (the reader
 * pulls only then); otherwise the usual flow, pulling until STAX_NEED_INPUT
 * after each feed. "status line:column offset message". */
static void end_outcome(const char *doc, size_t len, size_t chunk, int end_at_once, char *out, size_t cap) {
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    const stax_batch *b;
    int st;
    size_t at = 0, step = chunk ? chunk : len;
    for (;;) {
        if (at < len) {
            size_t n = len - at < step ? len - at : step;
            cr_assert_eq(stax_reader_feed(r, doc + at, n), STAX_OK);
            at += n;
            if (at == len && end_at_once) cr_assert_eq(stax_reader_end(r), STAX_OK);
        } else {
            cr_assert_eq(stax_reader_end(r), STAX_OK); /* asked for more, and there is none */
        }
        while ((st = stax_reader_next(r, &b)) == STAX_OK) continue;
        if (st != STAX_NEED_INPUT) break;
    }
    stax_pos p = stax_reader_error_pos(r);
    snprintf(out, cap, "%d %llu:%llu %llu %s", st, (unsigned long long)p.line, (unsigned long long)p.column,
             (unsigned long long)p.offset, stax_reader_message(r));
    stax_reader_free(r);
}

/* A UTF-16 input that ends inside a character reports that character, at
 * every chunk size, whether stax_reader_end comes right after the last feed
 * or after the reader asked for more (a last chunk that decoded to nothing
 * once ended the document as "inside element 'r'"); one that ends inside a
 * tag reports the tag either way. */
Test(reader_encoding, end_right_after_the_last_feed_reports_what_the_input_ends_in) {
    static const char *const texts[] = {"<r>", "<r>\xF0\x9F\x98\x80", "<r a='1"};
    static const size_t chunks[] = {1, 2, 3, 7, 0};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        size_t len;
        char *doc = to_utf16(texts[t], 0, 1, &len);
        if (t == 1) len -= 2; /* half the surrogate pair */
        else if (t == 0) {
            doc[len++] = '\x00';
            doc[len++] = '\xD8'; /* a high surrogate alone, then the end */
        }
        char want[512], got[512];
        end_outcome(doc, len, 0, 0, want, sizeof want);
        cr_assert(strstr(want, t == 2 ? "inside a tag" : "UTF-16") != NULL, "%s: %s", texts[t], want);
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
            for (int once = 0; once < 2; once++) {
                end_outcome(doc, len, chunks[c], once, got, sizeof got);
                cr_assert_str_eq(got, want, "text %zu, chunks of %zu, end %s", t, chunks[c],
                                 once ? "right after the last feed" : "when asked");
            }
        free(doc);
    }
}

/* ------------------------------------------------ a transcoded document read as its UTF-8 twin
 * A document in UTF-16 or ISO-8859-1 gives the events of the same text in
 * UTF-8 (the fast path reads both), at the same lines and columns, and at
 * the offsets of its own bytes: those of the UTF-8 read turned into input
 * bytes here, by counting code points. */

/* UTF-8 to ISO-8859-1; 0 if a code point is above U+00FF. */
static int to_latin1(const char *u8, size_t n, char *out, size_t *len) {
    const unsigned char *s = (const unsigned char *)u8;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x80) {
            out[o++] = (char)s[i];
        } else if ((s[i] == 0xC2 || s[i] == 0xC3) && i + 1 < n) {
            out[o++] = (char)(((s[i] & 3) << 6) | (s[i + 1] & 0x3F));
            i++;
        } else {
            return 0;
        }
    }
    *len = o;
    return 1;
}

/* The input offset of each UTF-8 byte o in 0..n (map[o]): bom bytes, then
 * unit bytes a code point (four for one above U+FFFF in UTF-16). */
static unsigned long long *input_offsets(const char *u8, size_t n, int unit, size_t bom) {
    unsigned long long *map = malloc((n + 1) * sizeof *map), off = bom;
    cr_assert_not_null(map);
    for (size_t i = 0; i < n; i++) {
        map[i] = off;
        unsigned char c = (unsigned char)u8[i];
        if ((c & 0xC0) != 0x80) off += c >= 0xF0 && unit == 2 ? 4 : (unsigned)unit;
    }
    map[n] = off;
    return map;
}

/* The dump of the UTF-8 read with each position's offset turned into input
 * bytes (the last " @line:column:offset" of a line). */
static char *to_input_offsets(const char *dump, const unsigned long long *map, size_t n) {
    stax_test_buf out = {0};
    for (const char *l = dump; *l;) {
        const char *nl = strchr(l, '\n'), *e = nl ? nl : l + strlen(l), *at = NULL;
        for (const char *q = l; q + 1 < e; q++)
            if (q[0] == ' ' && q[1] == '@') at = q;
        unsigned long long line, col, off;
        int used = 0;
        if (at && sscanf(at, " @%llu:%llu:%llu%n", &line, &col, &off, &used) == 3) {
            stax_test_buf_put(&out, l, (size_t)(at - l));
            cr_assert_leq(off, n);
            stax_test_buf_printf(&out, " @%llu:%llu:%llu", line, col, map[off]);
            stax_test_buf_put(&out, at + used, (size_t)(e - (at + used)));
        } else {
            stax_test_buf_put(&out, l, (size_t)(e - l));
        }
        stax_test_buf_put(&out, "\n", 1);
        l = nl ? nl + 1 : e;
    }
    stax_test_buf_put(&out, "", 1);
    return out.p;
}

/* One UTF-8 document, its UTF-16LE (with a BOM), UTF-16BE and, where it
 * can be, ISO-8859-1 forms (the encoding forced: declarations say UTF-8), at every chunk size, with the
 * options given. The UTF-8 document is read once at each chunk size, and each
 * form compared with that reading. Returns the number of forms read. */
static int check_transcoded(const char *name, const char *u8, size_t n, const stax_reader_options *base) {
    char *z = malloc(n + 1); /* to_utf16 takes a string */
    cr_assert_not_null(z);
    memcpy(z, u8, n);
    z[n] = 0;
    if (strlen(z) != n) { /* a NUL in the document: not for to_utf16 */
        free(z);
        return 0;
    }
    static const char *const names[3] = {"UTF-16LE", "UTF-16BE", "ISO-8859-1"};
    char *doc[3];
    size_t len[3] = {0, 0, 0};
    doc[0] = to_utf16(z, 0, 1, &len[0]); /* the declarations say UTF-8 */
    doc[1] = to_utf16(z, 1, 0, &len[1]);
    doc[2] = malloc(n + 1);
    cr_assert_not_null(doc[2]);
    if (!to_latin1(u8, n, doc[2], &len[2])) {
        free(doc[2]);
        doc[2] = NULL;
    }
    free(z);
    unsigned long long *map[3];
    for (int form = 0; form < 3; form++) map[form] = input_offsets(u8, n, form < 2 ? 2 : 1, form == 0 ? 2 : 0);
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        size_t chunk = stax_test_chunk_sizes[k];
        char *d8 = stax_test_events_ex(u8, n, chunk, base, STAX_DUMP_POS, NULL);
        for (int form = 0; form < 3; form++) {
            if (!doc[form]) continue;
            stax_reader_options o = *base;
            o.encoding = names[form];
            char *want = to_input_offsets(d8, map[form], n);
            char *got = stax_test_events_ex(doc[form], len[form], chunk, &o, STAX_DUMP_POS, NULL);
            size_t same = 0, line = 1; /* the first line that differs, in the message */
            for (; got[same] && got[same] == want[same]; same++) line += got[same] == '\n';
            while (same && got[same - 1] != '\n') same--;
            cr_assert_str_eq(got, want, "%s as %s, chunk %zu, line %zu:\n got: %.*s\nwant: %.*s", name, names[form], chunk,
                             line, (int)strcspn(got + same, "\n"), got + same, (int)strcspn(want + same, "\n"), want + same);
            free(want);
            free(got);
        }
        free(d8);
    }
    int forms = 0;
    for (int form = 0; form < 3; form++) {
        forms += doc[form] != NULL;
        free(doc[form]);
        free(map[form]);
    }
    return forms;
}

/* Records with what the fast path meets in content: names and values in
 * ASCII and not, text longer than a block, characters above U+FFFF,
 * references, CR LF, a line feed in a value, white space to skip, empty
 * elements; `latin` keeps to ISO-8859-1. */
static char *transcoded_records(int latin, size_t *n) {
    stax_test_buf b = {0};
    stax_test_buf_puts(&b, "<?xml version=\"1.0\"?>\n<dataset>\n");
    for (int i = 0; i < 60; i++) {
        stax_test_buf_printf(&b, "  <row id=\"%d\" k='v\xC3\xA9%d'>\n", i, i);
        stax_test_buf_printf(&b, "    <name>Ren\xC3\xA9%s %d</name>\n", latin ? " \xC3\xBF" : " \xE4\xB8\xAD\xF0\x9F\x98\x80", i);
        stax_test_buf_printf(&b, "    <note>%.*s</note>\r\n", i < 40 ? 5 + i : 76, "A rather long text that goes on past a block or two of sixteen bytes, Stra\xC3\x9F" "e.");
        stax_test_buf_printf(&b, "    <q a=\"x&amp;y\" b='%s' c=\"tab\there\"/>\n", i % 3 ? "plain" : "line\nfeed");
        stax_test_buf_printf(&b, "    <%s>x &lt; y &#233; %d</%s>\n", latin ? "caf\xC3\xA9" : "\xCE\xB1\xCE\xB2", i,
                             latin ? "caf\xC3\xA9" : "\xCE\xB1\xCE\xB2");
        stax_test_buf_printf(&b, "    <e/><!-- c %d --><?pi x?><![CDATA[<&>]]>\n  </row>\n", i);
    }
    stax_test_buf_puts(&b, "</dataset>\n");
    *n = b.len;
    return b.p;
}

Test(reader_encoding, transcoded_documents_read_as_their_utf8_twin) {
    stax_reader_options opts[3] = {{0}, {0}, {0}};
    opts[1].read_buffer = 64; /* many windows: the fast path starts again in each */
    opts[1].batch_events = 3;
    opts[2].flags = STAX_READ_SKIP_WS;
    opts[2].batch_events = 7;
    int forms = 0;
    for (int latin = 0; latin < 2; latin++) {
        size_t n;
        char *doc = transcoded_records(latin, &n);
        for (int k = 0; k < 3; k++) forms += check_transcoded(latin ? "records (Latin-1)" : "records", doc, n, &opts[k]);
        free(doc);
    }
    cr_assert_eq(forms, 3 * (2 + 3)); /* the first without its ISO-8859-1 form */
    /* errors in a tag's values, reported by the general code the fast path
     * calls (after text and tags it read on the line) */
    static const char *const bad[] = {
        "<r>\n <a>\xC3\xA9</a><b c=\"x&#0;y\"/></r>",
        "<r>\n <a>\xC3\xA9t\xC3\xA9</a> <b c='&nope;' d='\xC3\xA9'/></r>",
        "<r>\n\xC3\xA9 <a b='&#x110000;'/></r>",
        "<r><a>x</a><a b='v\xC3\xA9' b='w'/></r>",
        "<r><a>x</a><a b='&lt;<'/></r>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = strlen(bad[i]);
        char *d = stax_test_events_ex(bad[i], n, 0, NULL, 0, NULL);
        cr_assert_str_eq(strncmp(stax_test_last_line(d), "ERROR", 5) ? d : "ERROR", "ERROR", "%s", bad[i]);
        free(d);
        cr_assert_eq(check_transcoded("an error", bad[i], n, &opts[0]), 3);
    }
    stax_test_fixture *fx;
    size_t nf = stax_test_load_fixtures(&fx), fixtures = 0;
    for (size_t i = 0; i < nf; i++) {
        if (!strcmp(fx[i].name, "bad-utf8.xml") || (fx[i].len >= 3 && !memcmp(fx[i].data, "\xEF\xBB\xBF", 3)))
            continue; /* not UTF-8 to convert; a BOM of its own */
        fixtures += check_transcoded(fx[i].name, fx[i].data, fx[i].len, &opts[i % 3]) > 0;
    }
    stax_test_free_fixtures(fx, nf);
    cr_assert_geq(fixtures, 15);
}
