/* Shared parts of the reader fuzz targets (fuzz_reader, fuzz_dtd, fuzz_alloc):
 * the option header, one checked reader run, the comparisons between runs,
 * and an allocator hook that checks the allocator contract.
 *
 * Every check abort()s with a message on stderr, so libFuzzer (and the
 * replay driver) stop there. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include "fuzz_gen.h"
#include "stax.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FZ_HDR 10 /* bytes of the option header (see fuzz_reader.c) */

#define FZ_CHECK(cond, ...)                                                                           \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                                                             \
            fprintf(stderr, "\n");                                                                    \
            abort();                                                                                  \
        }                                                                                             \
    } while (0)

extern int fz_dump; /* print events, chunks and results (FUZZ_DUMP=1 or FUZZ_READER_DUMP=1) */
/* fz_check_input takes the input after the first two NUL bytes as the
 * external entities of a resolver run (fuzz_reader sets it; a generated
 * document in UTF-16 may hold NUL pairs of its own). */
extern int fz_split_entities;
void fz_init(void);

/* ---------------------------------------------------------------- checking heap
 * A realloc-style hook that keeps a table of live blocks and their sizes and
 * aborts when the contract of stax_alloc_fn is broken: a resize or free of a
 * block it did not hand out, or with an old_size other than the block's size,
 * an allocation with old_size != 0. It can fail the fail_at-th call that
 * allocates or resizes (counting from 1), once or for every later call too. */
typedef struct fz_heap_slot {
    void *p;
    size_t n;
} fz_heap_slot;

typedef struct fz_heap {
    size_t live_bytes, live_blocks, peak_bytes;
    size_t calls;     /* allocations and resizes (new_size > 0) so far */
    size_t fail_at;   /* 0: never fail */
    int fail_persist; /* fail every call from fail_at on, not only that one */
    int failed;
    fz_heap_slot *tab;
    size_t cap; /* power of two, or 0 */
} fz_heap;

void *fz_heap_fn(void *ud, void *ptr, size_t old_size, size_t new_size);
/* Abort unless every block was freed; release the table. */
void fz_heap_done(fz_heap *h, const char *when);

/* ---------------------------------------------------------------- one run */

typedef struct fz_spec {
    stax_reader_options opt; /* without memory and alloc */
    int fixed;               /* a fixed block of block_size bytes */
    size_t block_size;
    int chunked;             /* 0: one feed of the whole input */
    size_t chunk;
    int vary; /* chunk sizes from a PRNG, often 1 */
    int pull; /* chunked: a read callback instead of feed */
    int file; /* pull from a FILE* (fmemopen) instead of the callback */
    int fd;   /* pull from a pipe's fd instead of the callback */
    size_t fail_at;
    int fail_persist;
    int resolver;         /* a resolver (header byte 5 bit 7), by read functions (bit 6) */
    int resolver_read;
    const uint8_t *parts; /* the external entities it serves (NULL: it declines all) */
    size_t parts_size;
    unsigned reuse; /* > 0: the reader first reads the input for up to this many
                       batches, then is reset (stax_reader_reset) for the run */
    int end_with_last; /* push: stax_reader_end right after the last feed, not
                          after the reader asked for more */
    unsigned misuse;   /* which misuse is tried after STAX_END (and, with reuse,
                          before the reset): see fz_run */
} fz_spec;

typedef struct fz_result {
    int created;
    int status;
    stax_pos epos;
    char msg[256];
    uint64_t hash;   /* every field of every event, and the DTD's tables */
    uint64_t core;   /* the same without the namespace views (qnames) */
    uint64_t nows;   /* core, without whole whitespace-only texts */
    uint64_t events;
    uint64_t *evh;   /* the running hash after each event (events of them) */
    size_t evh_cap;
    size_t allocs;   /* allocations and resizes made */
    int alloc_failed;
} fz_result;

void fz_run(const fz_spec *s, const uint8_t *doc, size_t size, fz_result *res);
void fz_result_free(fz_result *res);

/* ---------------------------------------------------------------- comparisons */

/* Split an input into its header (a zero one when shorter than FZ_HDR) and
 * the rest. */
const uint8_t *fz_header(const uint8_t **data, size_t *size);

/* The 10-byte header as options: the whole-input run, the chunked run, and
 * the allocation-failure run (fail_run, fail_at). */
void fz_parse_header(const uint8_t *h, fz_spec *whole, fz_spec *chunked, int *fail_run, size_t *fail_at);

/* Abort unless a and b give the same status, error position, message and
 * events; what names the runs. A run that ended in STAX_E_NOMEM is only
 * checked to have delivered a prefix of the other's events. Returns 1 when
 * the full comparison was made. */
int fz_same(const fz_result *a, const fz_result *b, const char *what);
/* Abort unless the events a delivered are the first events of b. */
void fz_prefix(const fz_result *a, const fz_result *b, const char *what);

/* Everything fuzz_reader checks for one input (header + document): whole
 * against chunked, fixed block against the allocator, an injected allocation
 * failure, and one option variation. */
void fz_check_input(const uint8_t *hdr, const uint8_t *doc, size_t size);

/* ---------------------------------------------------------------- long inputs
 * The long-input mode (tests/fuzz/README.md, "Long inputs"): an input whose
 * part after the header starts with FZ_LONG_MAGIC and FZ_LONG_PARAMS bytes
 * of parameters stands for a document of up to FZ_LONG_MAX bytes, built in
 * the harness by repeating one span of the rest K times, and read with a
 * chunk size of up to 2 MiB. So the stored input stays within -max_len. */
#define FZ_LONG_MAGIC 0xF8u /* never a byte of UTF-8, nor the first of a BOM */
#define FZ_LONG_PARAMS 5
#define FZ_LONG_MAX ((size_t)4 << 20)
#define FZ_LONG_MAX_ALLOC ((size_t)1 << 20) /* fuzz_alloc: a read for each failing allocation */

typedef struct fz_long {
    int on;
    uint8_t q[FZ_LONG_PARAMS];
} fz_long;

/* Take the magic and the parameters off the front of data, when there. */
void fz_long_take(const uint8_t **data, size_t *size, fz_long *lp);
/* The long document: doc with its span repeated, to at most max bytes
 * (appended to out), and the chunk size of the chunked run (0: the
 * header's). */
void fz_long_build(const fz_long *lp, const uint8_t *doc, size_t size, size_t max, fz_buf *out, size_t *chunk);
/* With lp on: *doc replaced by its long document (fz_long_build), *chunk
 * set; else nothing changes (*chunk 0). */
void fz_long_apply(const fz_long *lp, fz_buf *doc, size_t max, size_t *chunk);
/* fz_check_input with the chunked run's chunk size set (0: the header's). */
void fz_check_input_chunk(const uint8_t *hdr, const uint8_t *doc, size_t size, size_t chunk);
/* A mutation of an input (header + rest) into the long mode: new parameters,
 * written in front of the rest when it had none. Returns the new size. */
size_t fz_long_mutate(uint8_t *data, size_t size, size_t max_size, uint64_t r);
/* A custom mutator (fuzz_dtd, fuzz_alloc): libFuzzer's LLVMFuzzerMutate, but
 * for one mutation in 16, which is fz_long_mutate. */
size_t fz_long_or_libfuzzer_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#endif
