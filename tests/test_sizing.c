/* Sizing a fixed block: stax_reader_memory_min answers the smallest block a
 * reader with given options can be made in (zero fields counting at the
 * smallest profile, the limits such a block gives), that block reads, one
 * byte less is refused with STAX_E_NOMEM; STAX_READER_MIN_MEMORY is that
 * size for every option zero; the tool's --memory message gives it. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "../cli/cli.h"
#include "harness.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char config[] = "<?xml version=\"1.0\"?>\n<config version=\"2\">\n"
                             "  <wifi ssid=\"greenhouse\" channel=\"6\"/>\n"
                             "  <sensor id=\"t1\" kind=\"temp\" period=\"10\"/>\n"
                             "  <log level=\"warn\">uart0</log>\n</config>\n";

static int sz_resolve(void *ud, const stax_entity_request *q, stax_entity_input *in) {
    (void)ud, (void)q, (void)in;
    return STAX_DECLINE;
}

/* Read config in a block of n bytes at blk with options o; the status. */
static int sz_read(stax_reader_options o, unsigned char *blk, size_t n) {
    o.memory = blk;
    o.memory_size = n;
    stax_reader *r = stax_reader_new(&o);
    if (!r) return STAX_E_NOMEM;
    cr_assert_leq(stax_reader_memory_peak(r), n);
    const stax_batch *b;
    int st;
    stax_reader_feed(r, config, sizeof config - 1);
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {}
    if (st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        while ((st = stax_reader_next(r, &b)) == STAX_OK) {}
    }
    stax_reader_free(r);
    return st;
}

Test(sizing, memory_size_is_the_smallest_block) {
    stax_reader_options opts[6];
    memset(opts, 0, sizeof opts);
    /* [0] every option zero; [1] namespaces; [2] a resolver; [3] some limits
     * set, the others zero; [4] small limits, all set; [5] a large max_token */
    opts[1].flags = STAX_READ_NAMESPACES;
    opts[2].resolve = sz_resolve;
    opts[3].max_token = 2048, opts[3].max_depth = 6;
    opts[4].max_token = 128, opts[4].max_text = 64, opts[4].max_attrs = 4, opts[4].batch_events = 4;
    opts[4].max_depth = 4, opts[4].max_name = 16, opts[4].max_entity_depth = 1, opts[4].read_buffer = 64;
    opts[4].max_dtd = 64;
    opts[5].max_token = 100000;
    unsigned char *blk = malloc(1 << 20);
    cr_assert_not_null(blk);
    for (int i = 0; i < 6; i++) {
        size_t need = stax_reader_memory_min(&opts[i]);
        cr_assert_gt(need, 0);
        cr_assert_lt(need, 1 << 19, "options %d: %zu", i, need);
        for (size_t mis = 0; mis < 16; mis++) {
            cr_assert_eq(sz_read(opts[i], blk + mis, need), STAX_END, "options %d, %zu bytes, misaligned by %zu", i,
                         need, mis);
            /* one byte less: refused, cleanly, whatever the alignment */
            stax_reader_options o = opts[i];
            o.memory = blk + mis;
            o.memory_size = need - 1;
            const char *why = NULL;
            cr_assert_eq(stax_reader_check_options(&o, &why), STAX_E_NOMEM, "options %d, %zu bytes", i, need - 1);
            cr_assert(strstr(why, "smaller") != NULL, "%s", why);
            cr_assert_null(stax_reader_new(&o));
        }
        /* every larger block reads it too (a larger profile fits its block) */
        for (size_t n = need + 1; n < need * 40 && n <= (1 << 20); n = n * 3 / 2 + 7)
            cr_assert_eq(sz_read(opts[i], blk, n), STAX_END, "options %d, %zu bytes", i, n);
    }
    free(blk);
}

Test(sizing, min_memory_is_the_size_for_every_option_zero) {
    /* not 4,383,631 bytes (stax_reader_memory_size: the allocator's
     * defaults), nor 8192 (enough, not the minimum): the true minimum */
    cr_assert_eq(stax_reader_memory_min(NULL), STAX_READER_MIN_MEMORY, "stax.h says %u, the reader needs %zu",
                 (unsigned)STAX_READER_MIN_MEMORY, stax_reader_memory_min(NULL));
    stax_reader_options zero;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(stax_reader_memory_min(&zero), STAX_READER_MIN_MEMORY);
    static unsigned char blk[STAX_READER_MIN_MEMORY];
    cr_assert_eq(sz_read(zero, blk, sizeof blk), STAX_END);
    cr_assert_eq(sz_read(zero, blk, sizeof blk - 1), STAX_E_NOMEM);
}

Test(sizing, the_memory_message_gives_the_minimum) {
    /* --memory one byte under the minimum: "at least MIN bytes" (the
     * minimum, not a sufficient 8192) */
    for (int ns = 0; ns < 2; ns++) {
        stax_cli_opts o;
        memset(&o, 0, sizeof o);
        o.namespaces = ns;
        stax_reader_options ro;
        memset(&ro, 0, sizeof ro);
        if (ns) ro.flags = STAX_READ_NAMESPACES;
        o.memory = stax_reader_memory_min(&ro) - 1;
        char want[64];
        snprintf(want, sizeof want, "at least %zu bytes", stax_reader_memory_min(&ro));
        FILE *f = tmpfile();
        cr_assert_not_null(f);
        fputs("<a/>", f);
        fflush(f);
        rewind(f);
        fflush(stderr);
        int saved = dup(2);
        FILE *err = tmpfile();
        cr_assert_not_null(err);
        dup2(fileno(err), 2);
        int rc = stax_cmd_check(&o, fileno(f));
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(err);
        char msg[512];
        size_t n = fread(msg, 1, sizeof msg - 1, err);
        msg[n] = '\0';
        fclose(err);
        fclose(f);
        cr_assert_eq(rc, 2);
        cr_assert(strstr(msg, want) != NULL, "namespaces %d: want '%s' in '%s'", ns, want, msg);
    }
}

/* With an allocator the arena (decoded text of a batch) starts at 64 KiB and
 * grows only when batches need it: a small document never maps max_token's
 * megabyte. */
Test(sizing, a_small_document_takes_a_small_arena) {
    static const char doc[] = "<a x='1&amp;2'>fish &amp; chips&#10;</a>";
    stax_reader *r = stax_reader_new(NULL);
    cr_assert_not_null(r);
    const stax_batch *b;
    int st;
    stax_reader_feed(r, doc, sizeof doc - 1);
    stax_reader_end(r);
    size_t texts = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK)
        for (size_t i = 0; i < b->count; i++) texts += stax_ev_type(b, i) == STAX_EV_TEXT;
    cr_assert_eq(st, STAX_END);
    cr_assert_eq(texts, 1);
    size_t peak = stax_reader_memory_peak(r);
    stax_reader_free(r);
    cr_assert_lt(peak, (size_t)256 * 1024, "a 40-byte document took %zu bytes", peak);
}

/* Decoded texts larger than the arena's first size: the first batch ends for
 * want of it, the arena doubles at each of the next batches until a batch
 * holds batch_events again; the events are those of every chunk size, and
 * the arena never passes max_token + 16. With namespaces, so that the
 * general way reads it, which asks room for each token (the fast path asks
 * room for as much text as the window could hold, and so takes a larger
 * arena at once). */
Test(sizing, the_arena_grows_when_batches_end_for_it) {
    stax_test_buf doc = {0};
    stax_test_buf_puts(&doc, "<r>");
    for (int i = 0; i < 200; i++) {
        stax_test_buf_puts(&doc, "<t>");
        for (int k = 0; k < 40; k++) stax_test_buf_puts(&doc, "fish &amp; chips, salt &amp; vinegar ");
        stax_test_buf_puts(&doc, "</t>");
    }
    stax_test_buf_puts(&doc, "</r>");
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.flags = STAX_READ_NAMESPACES;
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    stax_reader_feed(r, doc.p, doc.len);
    stax_reader_end(r);
    const stax_batch *b;
    int st;
    size_t first = 0, full = 0, events = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        if (!first) first = b->count;
        full += b->count >= 254; /* batch_events 256, two events a token of room */
        events += b->count;
    }
    cr_assert_eq(st, STAX_END);
    cr_assert_eq(events, 2 + 3 * 200);
    /* 1,160 bytes of decoded text a <t>: 64 KiB holds 56 of them, 85 make a full batch */
    cr_assert_lt(first, 3 * 60, "the first batch held %zu events", first);
    cr_assert_geq(full, 1, "no batch was full after the arena grew");
    size_t peak = stax_reader_memory_peak(r);
    stax_reader_free(r);
    cr_assert_lt(peak, (size_t)1024 * 1024, "peak %zu", peak);
    char *ref = stax_test_events(doc.p, doc.len, 0, &o, &st);
    cr_assert_eq(st, STAX_END);
    static const size_t chunks[] = {1, 7, 4096};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        char *d = stax_test_events(doc.p, doc.len, chunks[i], &o, &st);
        cr_assert_str_eq(d, ref, "chunk %zu", chunks[i]);
        free(d);
    }
    free(ref);
    stax_test_buf_free(&doc);
}

/* max_token below the arena's first size: the arena is max_token + 16 and no
 * more, also when the fast path asks room for a whole window of text larger
 * than that (the W3C suite's pr-xml-utf-8 in a 16 KiB max_token found it). */
Test(sizing, the_arena_stays_within_a_small_max_token) {
    stax_test_buf doc = {0};
    stax_test_buf_puts(&doc, "<r>");
    for (int i = 0; i < 1500; i++) stax_test_buf_puts(&doc, "<p>one &amp; two</p>\n");
    stax_test_buf_puts(&doc, "</r>");
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.max_token = 16384;
    static const size_t chunks[] = {0, 1, 7, 65536};
    char *ref = NULL;
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        int st;
        char *d = stax_test_events(doc.p, doc.len, chunks[i], &o, &st);
        cr_assert_eq(st, STAX_END, "chunk %zu: %s", chunks[i], stax_test_last_line(d));
        if (!ref) ref = d;
        else {
            cr_assert_str_eq(d, ref, "chunk %zu", chunks[i]);
            free(d);
        }
    }
    free(ref);
    stax_test_buf_free(&doc);
}

/* A caller's decoder takes nothing more from the block: it writes into the
 * transcoding buffer the block holds already (read_buffer bytes), and its
 * record is in the reader's own struct. The same minimum with one, every
 * block from it up reads a document through it (here UTF-16 text handed
 * over by a decoder of the test's: "x-utf16le"), one byte less is refused,
 * and malloc is never called. */
typedef struct sz_dec {
    unsigned char half;
    int has_half;
} sz_dec;

static void *sz_dec_open(void *ud, const char *name, size_t len) {
    static sz_dec state; /* (no malloc: it is forbidden here) */
    (void)ud;
    memset(&state, 0, sizeof state);
    return len == 9 && memcmp(name, "x-utf16le", 9) == 0 ? &state : NULL;
}

static int sz_dec_decode(void *st, stax_decode_io *io) {
    sz_dec *d = (sz_dec *)st;
    if (!io->in) return d->has_half ? (io->held = 1, STAX_E_TRUNCATED) : STAX_OK;
    while (io->in_used < io->in_len && io->out_cap - io->out_len >= 2) {
        unsigned char c = (unsigned char)io->in[io->in_used++];
        if (!d->has_half) {
            d->half = c, d->has_half = 1;
            continue;
        }
        d->has_half = 0;
        unsigned u = d->half | (unsigned)c << 8;
        if (u >= 0x80) return io->held = 2, STAX_E_ENCODING; /* (ASCII only: enough here) */
        io->out[io->out_len++] = (char)u;
    }
    io->held = (size_t)d->has_half;
    return STAX_OK;
}

static const stax_decoder sz_decoder = {sz_dec_open, sz_dec_decode, NULL};

Test(sizing, a_decoder_takes_nothing_more_from_the_block) {
    static const char head[] = "<?xml version=\"1.0\" encoding=\"x-utf16le\"?>";
    static const char body[] = "<config version=\"2\"><wifi ssid=\"greenhouse\" channel=\"6\"/><log level=\"warn\">uart0</log></config>";
    char doc[512];
    size_t n = sizeof head - 1;
    memcpy(doc, head, n);
    for (size_t i = 0; i < sizeof body - 1; i++) doc[n++] = body[i], doc[n++] = 0;
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    size_t plain = stax_reader_memory_min(&o);
    o.decoder = &sz_decoder;
    size_t need = stax_reader_memory_min(&o);
    cr_assert_eq(need, plain);
    unsigned char *blk = malloc(need * 4);
    cr_assert_not_null(blk);
    o.memory = blk;
    o.memory_size = need - 1;
    cr_assert_null(stax_reader_new(&o));
    for (size_t size = need; size < need * 4; size = size * 5 / 4) {
        o.memory_size = size;
        for (size_t chunk = 1; chunk <= 7; chunk += 3) {
            int st;
            unsigned long before = stax_test_forbidden_calls;
            stax_test_forbid_malloc = 1;
            char *d = stax_test_events(doc, n, chunk, &o, &st);
            stax_test_forbid_malloc = 0;
            cr_assert_eq(stax_test_forbidden_calls, before, "block of %zu: malloc called", size);
            cr_assert_eq(st, STAX_END, "block of %zu, chunk %zu: %s", size, chunk, d);
            cr_assert(strstr(d, "TEXT \"uart0\""), "%s", d);
            free(d);
        }
    }
    free(blk);
}
