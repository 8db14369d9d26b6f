/* Chunk-split invariance over every document in fixtures/: the events must
 * not depend on how the input is cut. Well-formed fixtures end with
 * END-OF-DOCUMENT; fixtures/bad-*.xml end with an error, at the same place
 * whatever the chunking. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef stax_test_fixture fixture;
#define load_fixtures stax_test_load_fixtures
#define free_fixtures stax_test_free_fixtures

Test(chunks, fixtures_are_there) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += (size_t)fx[i].bad;
    cr_assert_geq(n - bad, 12, "only %zu well-formed fixtures", n - bad);
    cr_assert_geq(bad, 4, "only %zu bad-* fixtures", bad);
    free_fixtures(fx, n);
}

/* Every well-formed fixture: identical dumps (events, positions, status) at
 * chunk sizes 1, 2, 3, 7, 65536 and as one feed, ending the document. */
Test(chunks, well_formed_fixtures_are_chunk_invariant) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    for (size_t i = 0; i < n; i++) {
        if (fx[i].bad) continue;
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, NULL, STAX_DUMP_POS, NULL);
        cr_assert_str_eq(stax_test_last_line(ref), "END-OF-DOCUMENT", "%s:\n%s", fx[i].name, ref);
        for (size_t k = 1; k < stax_test_chunk_count; k++) {
            char *d = stax_test_events_ex(fx[i].data, fx[i].len, stax_test_chunk_sizes[k], NULL, STAX_DUMP_POS, NULL);
            cr_assert_str_eq(d, ref, "%s at chunk size %zu:\n%s\nas one feed:\n%s", fx[i].name,
                             stax_test_chunk_sizes[k], d, ref);
            free(d);
        }
        free(ref);
    }
    free_fixtures(fx, n);
}

/* Every bad-* fixture: an error, with the same status and position at every
 * chunk size. */
Test(chunks, bad_fixtures_fail_at_the_same_place) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    for (size_t i = 0; i < n; i++) {
        if (!fx[i].bad) continue;
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, NULL, STAX_DUMP_POS, NULL);
        char want[1024];
        snprintf(want, sizeof want, "%s", stax_test_last_line(ref));
        cr_assert(strncmp(want, "ERROR ", 6) == 0, "%s is not rejected:\n%s", fx[i].name, ref);
        for (size_t k = 1; k < stax_test_chunk_count; k++) {
            char *d = stax_test_events_ex(fx[i].data, fx[i].len, stax_test_chunk_sizes[k], NULL, STAX_DUMP_POS, NULL);
            cr_assert_str_eq(stax_test_last_line(d), want, "%s at chunk size %zu:\n%s", fx[i].name,
                             stax_test_chunk_sizes[k], d);
            free(d);
        }
        free(ref);
    }
    free_fixtures(fx, n);
}

/* The expected errors of the bad fixtures, written by hand. */
Test(chunks, bad_fixtures_expected_errors) {
    static const struct {
        const char *name, *want;
    } cases[] = {
        {"bad-comment.xml", "ERROR SYNTAX @2:10:13"},
        {"bad-dup-attr.xml", "ERROR DUP_ATTR @2:18:21"},
        {"bad-mismatch.xml", "ERROR TAG_MISMATCH @4:12:59"},
        {"bad-truncated.xml", "ERROR TRUNCATED @3:12:37"},
        {"bad-two-roots.xml", "ERROR STRUCTURE @2:1:13"},
        {"bad-utf8.xml", "ERROR ENCODING @3:10:31"},
    };
    fixture *fx;
    size_t n = load_fixtures(&fx);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t i = 0;
        while (i < n && strcmp(fx[i].name, cases[c].name) != 0) i++;
        cr_assert_lt(i, n, "fixture %s is missing", cases[c].name);
        stax_test_expect_status(fx[i].data, fx[i].len, NULL, cases[c].want);
    }
    free_fixtures(fx, n);
}

/* Chunk sizes drawn at random per feed, many seeds: same dump as one feed
 * (for bad fixtures: the same status line). */
Test(chunks, random_chunk_sizes_many_seeds, .timeout = 120) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    for (size_t i = 0; i < n; i++) {
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, NULL, STAX_DUMP_POS, NULL);
        char want[1024];
        snprintf(want, sizeof want, "%s", stax_test_last_line(ref));
        for (uint32_t seed = 1; seed <= 64; seed++) {
            size_t max_chunk = 1 + (seed * 7919u) % 97;
            char *d = stax_test_events_random(fx[i].data, fx[i].len, seed, max_chunk, NULL, STAX_DUMP_POS);
            if (fx[i].bad)
                cr_assert_str_eq(stax_test_last_line(d), want, "%s, seed %u, max chunk %zu:\n%s", fx[i].name, seed,
                                 max_chunk, d);
            else
                cr_assert_str_eq(d, ref, "%s, seed %u, max chunk %zu:\n%s\nas one feed:\n%s", fx[i].name, seed,
                                 max_chunk, d, ref);
            free(d);
        }
        free(ref);
    }
    free_fixtures(fx, n);
}

/* Batch boundaries must not change the events either: one event per batch,
 * and a small max_text whose pieces, joined, give the same text. */
Test(chunks, fixtures_with_one_event_per_batch) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    stax_reader_options opt = {0};
    opt.batch_events = 1;
    for (size_t i = 0; i < n; i++) {
        if (fx[i].bad) continue;
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, NULL, STAX_DUMP_POS, NULL);
        for (size_t k = 0; k < stax_test_chunk_count; k++) {
            char *d = stax_test_events_ex(fx[i].data, fx[i].len, stax_test_chunk_sizes[k], &opt, STAX_DUMP_POS, NULL);
            cr_assert_str_eq(d, ref, "%s, batch_events 1, chunk size %zu:\n%s", fx[i].name,
                             stax_test_chunk_sizes[k], d);
            free(d);
        }
        free(ref);
    }
    free_fixtures(fx, n);
}

/* Text of the dump with CONTINUED pieces joined: "TEXT "a" +" followed by
 * "TEXT "b"" becomes "TEXT "ab"" (positions dropped: pieces have their own).
 * A piece cut right before an entity reference ends where the ENTITY_REF is. */
static char *join_continued(const char *dump) {
    size_t len = strlen(dump);
    char *out = malloc(2 * len + 1);
    cr_assert_not_null(out);
    size_t o = 0;
    const char *line = dump;
    int joining = 0, run_ws = 0;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t l = eol ? (size_t)(eol - line) : strlen(line);
        const char *piece = line;
        size_t pl = l;
        int cont = 0;
        int is_text = strncmp(line, "TEXT \"", 6) == 0 || strncmp(line, "CDATA \"", 7) == 0;
        if (joining && !is_text) { /* cut right before an ENTITY_REF (stax.h): close the piece */
            memcpy(out + o, "\"\n", 2);
            o += 2;
            joining = 0;
        }
        if (is_text) {
            cont = pl >= 2 && strncmp(line + pl - 2, " +", 2) == 0;
            if (cont) pl -= 2;
            /* a piece's " ws" says only that piece is whitespace: the joined
             * text is whitespace when every piece is */
            int ws = pl >= 3 && strncmp(piece + pl - 3, " ws", 3) == 0;
            if (ws) pl -= 3;
            run_ws = (joining ? run_ws : 1) && ws;
            if (joining) { /* drop the kind and opening quote */
                const char *q = memchr(piece, '"', pl);
                pl -= (size_t)(q + 1 - piece);
                piece = q + 1;
            }
            if (cont) pl -= 1; /* drop the closing quote; the next piece continues */
        }
        memcpy(out + o, piece, pl);
        o += pl;
        if (is_text && !cont && run_ws) {
            memcpy(out + o, " ws", 3);
            o += 3;
        }
        if (!cont) out[o++] = '\n';
        joining = cont;
        line = eol ? eol + 1 : line + l;
    }
    out[o] = '\0';
    return out;
}

Test(chunks, fixtures_with_small_max_text) {
    fixture *fx;
    size_t n = load_fixtures(&fx);
    stax_reader_options opt = {0};
    opt.max_text = 16;
    for (size_t i = 0; i < n; i++) {
        if (fx[i].bad) continue;
        char *ref = stax_test_events_ex(fx[i].data, fx[i].len, 0, NULL, 0, NULL);
        char *split = stax_test_events_all(fx[i].data, fx[i].len, &opt, STAX_DUMP_POS);
        char *nopos = stax_test_events_ex(fx[i].data, fx[i].len, 0, &opt, 0, NULL);
        char *joined = join_continued(nopos);
        cr_assert_str_eq(joined, ref, "%s with max_text 16, pieces joined:\n%s", fx[i].name, joined);
        free(joined);
        free(nopos);
        free(split);
        free(ref);
    }
    free_fixtures(fx, n);
}
