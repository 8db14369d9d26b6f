/* Internal interface of the `stax` tool: option block, the shared streaming
 * driver, and one function per subcommand. The conformance runner and the unit
 * tests link these too, so they test exactly what the tool does. */
#ifndef STAX_CLI_H
#define STAX_CLI_H

#include "stax.h"
#include <stdio.h>

typedef struct stax_cli_opts {
    size_t chunk;      /* --chunk N: feed N bytes at a time (0: 64 KiB) */
    size_t memory;     /* --memory N: run the reader in one fixed block of N bytes (0: allocator) */
    int namespaces;    /* --namespaces */
    int indent;        /* fmt --indent N (default 2; 0: no indentation) */
    int quiet;         /* do not print errors to stderr */
    const char *name;  /* file name shown in messages ("-" for stdin) */
} stax_cli_opts;

/* Called for each batch (r: the reader, for its DTD data); return 0 to go on,
 * nonzero to stop with that exit code. */
typedef int (*stax_cli_batch_fn)(void *ctx, stax_reader *r, const stax_batch *b);

/* Stream fd through a reader made from o, calling fn (may be NULL) on every
 * batch. Returns 0 if the document is well-formed, 1 if not (the message
 * "NAME:LINE:COL: message" goes to stderr unless o->quiet), 2 for I/O or
 * memory trouble (a --memory block too small included). If err is non-NULL
 * it receives the reader's status. */
int stax_cli_run(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err);

/* Subcommands. Each returns the process exit code (0, 1 or 2) and writes its
 * output to out. */
int stax_cmd_canon(const stax_cli_opts *o, int fd, FILE *out);
int stax_cmd_check(const stax_cli_opts *o, int fd);
int stax_cmd_count(const stax_cli_opts *o, int fd, FILE *out);
int stax_cmd_fmt(const stax_cli_opts *o, int fd, FILE *out);

#endif
