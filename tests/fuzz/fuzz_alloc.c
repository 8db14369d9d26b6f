/* libFuzzer target for allocation failures: every allocation of a read, in
 * turn, fails.
 *
 * Input: the 10-byte option header of fuzz_reader, then choices for the
 * grammar generator (fuzz_gen.c: documents with a DTD, namespaces and
 * transcoding). The header's options apply, except that memory always comes
 * from the checking allocator (fz_heap_fn in fuzz_check.c), never from a
 * fixed block; h[8] bit 0 reads in chunks instead of whole; h[1] bit 7 makes
 * every allocation after the failing one fail too (else only that one);
 * h[1] bit 2 (a fixed block elsewhere) makes the rest of the input the
 * document itself, not choices (for saved findings and hand-made inputs).
 * Long inputs (fuzz_check.h): after the header, FZ_LONG_MAGIC and its
 * parameters make the document (generated or given) long, to at most
 * FZ_LONG_MAX_ALLOC bytes (a read for each failing allocation), read in
 * chunks of the chosen size when h[8] bit 0 says chunks.
 *
 * A first read counts the N allocations and resizes; then for every k in
 * 1..N (at most 256 of them, fewer for a read of more than 4096 events:
 * beyond that, an even spread starting at h[8]) the same read runs with the
 * k-th failing. Checks, besides everything
 * fz_run checks on every read:
 *   - the allocator contract: every resize and free passes the exact size
 *     the block has (a table of live blocks), no block is freed twice or
 *     unknown, nothing is left after stax_reader_free or a failed
 *     stax_reader_new;
 *   - the k-th allocation happens (the reads are deterministic) and fails;
 *   - the read ends in STAX_E_NOMEM (sticky, with a message and a
 *     position) after delivering the first events of the read without
 *     failure, or, where the reader could do without that allocation,
 *     exactly as the read without failure. */
#include "fuzz_check.h"
#include "fuzz_gen.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAX_K 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init();
    const uint8_t *h = fz_header(&data, &size);
    fz_long lp;
    fz_long_take(&data, &size, &lp);
    fz_buf doc = {0};
    if (h[1] & 4) fz_buf_add(&doc, data, size); /* a document, not choices */
    else fz_gen_document(data, size, &doc);
    size_t chunk;
    fz_long_apply(&lp, &doc, FZ_LONG_MAX_ALLOC, &chunk);
    const uint8_t *d = doc.p ? doc.p : (const uint8_t *)"";
    if (fz_dump) fprintf(stderr, "document (%zu bytes):\n%.*s\n", doc.len, (int)doc.len, (const char *)d);
    fz_spec ws, cs;
    fz_parse_header(h, &ws, &cs, NULL, NULL);
    if (chunk) cs.chunk = chunk;
    fz_spec s = (h[8] & 1) ? cs : ws;
    s.fixed = 0;
    fz_result ref = {0}, res = {0};
    fz_run(&s, d, doc.len, &ref);
    /* every k, unless the read is long: then fewer, evenly spread (a chain
     * of entities in content can make a read of 100,000 events) */
    size_t n = ref.allocs, kmax = MAX_K;
    if (ref.events > 4096) kmax = (size_t)(MAX_K * 4096 / ref.events) > 8 ? (size_t)(MAX_K * 4096 / ref.events) : 8;
    size_t step = n <= kmax ? 1 : (n + kmax - 1) / kmax;
    for (size_t k = step == 1 ? 1 : 1 + h[8] % step; k <= n; k += step) {
        fz_spec f = s;
        f.fail_at = k;
        f.fail_persist = (h[1] & 128) != 0;
        fz_run(&f, d, doc.len, &res);
        if (fz_dump)
            fprintf(stderr, "allocation %zu of %zu fails: %s, status %d \"%s\"\n", k, n,
                    res.created ? "read" : "not created", res.status, res.msg);
        FZ_CHECK(res.alloc_failed, "allocation %zu of %zu did not happen in the same read", k, n);
        if (!res.created) continue; /* stax_reader_new refused, and freed everything (fz_run) */
        char what[64];
        snprintf(what, sizeof what, "allocation %zu of %zu fails", k, n);
        fz_same(&ref, &res, what);
    }
    fz_result_free(&ref);
    fz_result_free(&res);
    fz_buf_free(&doc);
    return 0;
}

/* libFuzzer's mutations, but for one in 16 that makes an input long or
 * changes its long-mode parameters (fz_long_mutate). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    return fz_long_or_libfuzzer_mutate(data, size, max_size, seed);
}
