/* The carry (a token that straddles chunks) and text that entity references
 * cut into pieces: the result never depends on the chunk size, a document
 * that streams in a fixed block streams at every chunk size. (That the work
 * stays linear is shown by bench/adversarial.sh, never by a timed test.) */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* prefix + piece x n + suffix, NUL-terminated. */
static char *repeat_doc(const char *prefix, const char *piece, size_t n, const char *suffix, size_t *len) {
    size_t lp = strlen(prefix), lc = strlen(piece), ls = strlen(suffix);
    char *d = malloc(lp + lc * n + ls + 1);
    cr_assert_not_null(d);
    memcpy(d, prefix, lp);
    for (size_t i = 0; i < n; i++) memcpy(d + lp + i * lc, piece, lc);
    memcpy(d + lp + lc * n, suffix, ls + 1);
    *len = lp + lc * n + ls;
    return d;
}

static const char ent_prefix[] = "<!DOCTYPE r [<!ENTITY e \"x\">]><r>";

/* Read doc in a fixed block of `block` bytes in chunks of `chunk`: the status. */
static int fixed_status(const char *doc, size_t len, size_t block, size_t chunk, char *msg, size_t msg_cap) {
    void *mem = malloc(block);
    cr_assert_not_null(mem);
    stax_reader_options o = {0};
    o.memory = mem;
    o.memory_size = block;
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r, "no reader in %zu bytes", block);
    int st = STAX_NEED_INPUT;
    size_t at = 0;
    const stax_batch *b;
    while (st == STAX_NEED_INPUT) {
        size_t n = chunk && len - at > chunk ? chunk : len - at;
        if (n) st = stax_reader_feed(r, doc + at, n);
        else st = stax_reader_end(r);
        at += n;
        if (st < 0) break;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {}
    }
    snprintf(msg, msg_cap, "%s", st == STAX_END ? "" : stax_reader_message(r));
    stax_reader_free(r);
    free(mem);
    return st;
}

/* The defect's own document: 400 references to an internal entity in a run of
 * text with no tag, read in 16 KiB, failed at chunk size 1150 with "a token is
 * still undecided when the carry is full". */
Test(carry, entity_text_streams_in_16k_at_every_chunk_size) {
    size_t len;
    char *doc = repeat_doc(ent_prefix, "w &e; ", 400, "</r>", &len);
    char msg[256];
    static const size_t chunks[] = {1, 2, 3, 7, 64, 1000, 1150, 1151, 2048, 4096, 0};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        int st = fixed_status(doc, len, 16384, chunks[i], msg, sizeof msg);
        cr_assert_eq(st, STAX_END, "chunk %zu: %d %s", chunks[i], st, msg);
    }
    for (size_t c = 1100; c <= 1300; c++) {
        int st = fixed_status(doc, len, 16384, c, msg, sizeof msg);
        cr_assert_eq(st, STAX_END, "chunk %zu: %d %s", c, st, msg);
    }
    free(doc);
}

/* With the default options a million references (6 MB) failed at chunk
 * sizes from 1,000,000 to 2,000,000: the carry doubled each time a batch
 * filled while it held the rest of a chunk. */
Test(carry, a_million_references_stream_at_megabyte_chunks) {
    size_t len;
    char *doc = repeat_doc(ent_prefix, "w &e; ", 1000000, "</r>", &len);
    static const size_t chunks[] = {1048576, 1000000, 1500000, 2097152, 0};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        if (!stax_test_sampled(i)) continue; /* sampled: 1 MiB and one feed */
        int st;
        char *d = stax_test_events(doc, len, chunks[i], NULL, &st);
        cr_assert_eq(st, STAX_END, "chunk %zu: %s", chunks[i], stax_test_last_line(d));
        free(d);
    }
    free(doc);
}

/* Text longer than max_text, without a tag and with references, is cut into
 * pieces; the pieces a reference leaves end where the piece it was in ended,
 * at every chunk size (positions included). */
Test(carry, long_text_with_references_is_chunk_invariant) {
    stax_reader_options o = {0};
    o.max_token = 256;
    o.max_text = 64;
    static const char *const pieces[] = {"w &e; ", "ab&e;cd&amp;ef&#65;", "&e;&e;", "\r\n&e;\r", "\xc3\xa9&e;\xe2\x82\xac"};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        size_t len;
        char *doc = repeat_doc(ent_prefix, pieces[k], 300, "</r>", &len);
        char *ref = stax_test_events_all(doc, len, &o, STAX_DUMP_POS);
        cr_assert_str_eq(stax_test_last_line(ref), "END-OF-DOCUMENT", "piece '%s': %s", pieces[k],
                         stax_test_last_line(ref));
        static const size_t odd[] = {5, 11, 63, 64, 65, 129, 1150};
        for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
            char *d = stax_test_events_ex(doc, len, odd[i], &o, STAX_DUMP_POS, NULL);
            cr_assert_str_eq(d, ref, "piece '%s' at chunk %zu", pieces[k], odd[i]);
            free(d);
        }
        for (uint32_t seed = 1; seed <= 8; seed++) {
            char *d = stax_test_events_random(doc, len, seed, 200, &o, STAX_DUMP_POS);
            cr_assert_str_eq(d, ref, "piece '%s' with random chunks (seed %u)", pieces[k], seed);
            free(d);
        }
        free(ref);
        free(doc);
    }
}

/* The same with the text ending with the input (an error: no end tag) and
 * with a reference cut off by the end: the error and its position do not
 * depend on the chunking. */
Test(carry, text_with_references_to_the_end_of_input) {
    stax_reader_options o = {0};
    o.max_token = 256;
    o.max_text = 64;
    size_t len;
    char *doc = repeat_doc(ent_prefix, "w &e; ", 100, "&e", &len);
    stax_test_expect_status(doc, len, &o, "ERROR TRUNCATED @1:636:635");
    free(doc);
    doc = repeat_doc(ent_prefix, "w &e; ", 100, "", &len);
    stax_test_expect_status(doc, len, &o, "ERROR TRUNCATED @1:634:633");
    free(doc);
}

/* stax_reader_end right after stax_reader_feed: that chunk is the last one.
 * The events, positions and errors are those of feeding, draining and then
 * ending, at every chunk size, for well-formed and broken documents. */
static char *feed_then_end(const char *doc, size_t len, size_t chunk) {
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    stax_test_buf out = {0};
    const stax_batch *b;
    int st = STAX_NEED_INPUT;
    for (size_t at = 0; st == STAX_NEED_INPUT;) {
        size_t n = chunk && len - at > chunk ? chunk : len - at;
        cr_assert_eq(stax_reader_feed(r, doc + at, n), STAX_OK);
        at += n;
        if (at == len) cr_assert_eq(stax_reader_end(r), STAX_OK);
        while ((st = stax_reader_next(r, &b)) == STAX_OK)
            for (size_t i = 0; i < b->count; i++)
                stax_test_buf_printf(&out, "%d %.*s %.*s @%llu\n", stax_ev_type(b, i), (int)stax_ev_name(b, i).len,
                                     stax_ev_name(b, i).ptr, (int)stax_ev_text(b, i).len, stax_ev_text(b, i).ptr,
                                     (unsigned long long)stax_ev_offset(b, i));
        cr_assert(at < len || st != STAX_NEED_INPUT, "asked for more after the last chunk");
    }
    stax_pos p = stax_reader_error_pos(r);
    stax_test_buf_printf(&out, "status %d @%llu\n", st, st < 0 ? (unsigned long long)p.offset : 0ull);
    stax_reader_free(r);
    return out.p;
}

Test(carry, end_right_after_the_last_feed) {
    size_t len;
    char *ents = repeat_doc(ent_prefix, "w &e; ", 50, "</r>", &len);
    static const char *const docs[] = {"<a x='1'>t<!--c--><b/>&amp;<![CDATA[x]]></a>", "<a>text", "<a><b></a>",
                                       "<?xml version='1.0'?><a>x</a>  ", "<a/>trailing", "<a"};
    static const size_t chunks[] = {1, 2, 3, 7, 64, 0};
    for (size_t k = 0; k <= sizeof docs / sizeof docs[0]; k++) {
        const char *d = k < sizeof docs / sizeof docs[0] ? docs[k] : ents;
        size_t n = k < sizeof docs / sizeof docs[0] ? strlen(d) : len;
        char *ref = feed_then_end(d, n, 0);
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            char *got = feed_then_end(d, n, chunks[c]);
            cr_assert_str_eq(got, ref, "'%s' at chunk %zu", d, chunks[c]);
            free(got);
        }
        /* the same final status as feeding, draining and then ending */
        int st;
        char *dump = stax_test_events(d, n, 0, NULL, &st);
        char want[32];
        snprintf(want, sizeof want, "status %d @", st);
        cr_assert(strstr(ref, want) != NULL, "'%s': %s, but %d feeding, draining, ending", d, ref, st);
        free(dump);
        free(ref);
    }
    free(ents);
}
