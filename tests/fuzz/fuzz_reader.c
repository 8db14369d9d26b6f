/* libFuzzer target for the stax reader (push and pull): raw documents.
 *
 * Input: a 10-byte header that chooses the options and the chunking, then
 * the document (an input shorter than 10 bytes is a document read with a
 * zero header). The header is described in tests/fuzz/README.md and read by
 * fz_parse_header (fuzz_check.c), which also lists what is checked: whole
 * against chunked, a fixed block against the allocator, an injected
 * allocation failure, one option changed.
 *
 * The mutator: most mutations are libFuzzer's own (with the -dict tokens);
 * one in eight splices in a piece written by the grammar generator
 * (fuzz_gen.c: a declaration, an element, content or an attribute), and one
 * in 32 replaces the document with a generated one, so the raw target also
 * reaches the DTD; and one in 16 turns the input into a long one, or
 * changes its parameters (fz_long_mutate: a span of the document repeated
 * up to 4 MiB in the harness, chunks up to 2 MiB). */
#include "fuzz_check.h"
#include "fuzz_gen.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *h = fz_header(&data, &size);
    if (size > 1 << 20) return 0;
    fz_split_entities = 1;
    fz_check_input(h, data, size);
    return 0;
}

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    uint64_t st = seed;
    uint64_t r = mix(&st);
    if (((r >> 40) & 15) == 0 && size >= FZ_HDR) return fz_long_mutate(data, size, max_size, mix(&st));
    if (size < FZ_HDR || max_size <= FZ_HDR || (r & 7) != 0) return LLVMFuzzerMutate(data, size, max_size);
    uint8_t choices[96];
    for (size_t k = 0; k < sizeof choices; k += 8) {
        uint64_t x = mix(&st);
        memcpy(choices + k, &x, 8);
    }
    fz_buf piece = {0};
    if (((r >> 3) & 3) == 0) { /* a whole generated document */
        fz_gen_document(choices, sizeof choices, &piece);
        size_t n = piece.len < max_size - FZ_HDR ? piece.len : max_size - FZ_HDR;
        if (n) memcpy(data + FZ_HDR, piece.p, n);
        fz_buf_free(&piece);
        return FZ_HDR + n;
    }
    fz_gen_piece(choices, sizeof choices, (int)((r >> 5) & 3), &piece);
    size_t at = FZ_HDR + (size_t)((r >> 8) % (size - FZ_HDR + 1));
    size_t n = piece.len < max_size - size ? piece.len : max_size - size;
    if (n == 0) {
        fz_buf_free(&piece);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memmove(data + at + n, data + at, size - at);
    memcpy(data + at, piece.p, n);
    fz_buf_free(&piece);
    return size + n;
}
