/* Internal interface of the `stax` tool: option block, the shared streaming
 * driver, and one function per subcommand. The conformance runner and the unit
 * tests link these too, so they test exactly what the tool does. */
#ifndef STAX_CLI_H
#define STAX_CLI_H

#include "stax.h"
#include <stdio.h>
#include <string.h>

typedef struct stax_cli_opts {
    size_t chunk;      /* --chunk N: feed N bytes at a time (0: 64 KiB) */
    size_t memory;     /* --memory N: run the reader in one fixed block of N bytes (0: allocator) */
    int namespaces;    /* --namespaces */
    unsigned shape;    /* --fragment (STAX_READ_FRAGMENT) or --documents (STAX_READ_DOCUMENTS): the
                          reader flag of the input's shape; 0: one document */
    int external;      /* --external: read external entities from local files */
    int indent;        /* fmt --indent N (default 2; 0: no indentation) */
    int quiet;         /* do not print errors to stderr */
    int progress;      /* a progress line on stderr: 0 none, 1 a few times a second,
                          2 after every read (for tests) */
    const char *name;  /* file name shown in messages ("-" for stdin) */
    const char *command; /* the command line without FILE, shell-quoted, for the hint
                            on a compressed input (NULL: "stax ...") */
    const char *resume;  /* --resume FILE.ctx: go on from that context (NULL: from the start) */
    const char *context; /* --context FILE.ctx: where --save-every writes (default: --resume's) */
    size_t save_every;   /* --save-every N: a context after each N bytes read (0: none) */
    int jobs;            /* -j N: check, count, select and canon on N threads (0: unset, one; -1: one per core) */
    size_t part_size;    /* --part-size N: with -j, bytes in a part (0: the library's default) */
    unsigned *serial_again; /* tests: counts the -j reads of select and canon given up for one
                               thread (STAX_CLI_SERIAL); NULL: not counted */
    size_t pipe_keep;    /* tests: -j from a pipe keeps at most this many bytes read to read again when it is
                            given up (0: as many as its buffers hold, 1 MiB at least) */
    unsigned part_k, part_n; /* --part K/N: check, count: read range K of N and write its part record
                                (cli/part.c) to part_out (NULL: stdout) instead of the result; part_n 0: none */
    FILE *part_out;
    unsigned *rereads;   /* tests: counts the ranges stax merge read again (NULL: not counted) */
    struct stax_cli_out *live; /* the command's output, flushed whenever the input is a live stream
                                  (a pipe, a socket, a terminal) that has nothing to read yet, and with
                                  -j after each part of such an input; a command sets it on its copy of
                                  the options (stax_cli_live); NULL: none */
} stax_cli_opts;

/* Called for each batch (r: the reader, for its DTD data); return 0 to go on,
 * STAX_CLI_STOP to stop reading with success (exit 0), anything else to stop
 * with that exit code. */
#define STAX_CLI_STOP (-1)
typedef int (*stax_cli_batch_fn)(void *ctx, stax_reader *r, const stax_batch *b);

/* Stream fd through a reader made from o, calling fn (may be NULL) on every
 * batch. Returns 0 if the document is well-formed, 1 if not (the message
 * "NAME:LINE:COL: message" goes to stderr unless o->quiet), 2 for I/O or
 * memory trouble (a --memory block too small included). If err is non-NULL
 * it receives the reader's status. A compressed input (the magic bytes of
 * gzip, bzip2, xz or zstd at its start) is refused before it is read as XML:
 * 2, with a message naming the format and the command to pipe it through. */
int stax_cli_run(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err);

/* What a command keeps beside the reader's context (cli/resume.c): its name
 * (a context is resumed by the command that saved it) and its state, len
 * bytes at data (count's counts; none for check). */
typedef struct stax_cli_state {
    const char *command;
    void *data;
    size_t len;
    /* -j: adds a part's state (len bytes, gathered from zeros by the batch
     * function) to data; NULL when the command keeps none */
    void (*merge)(void *data, const void *part);
} stax_cli_state;
/* stax_cli_run for a command that can save and resume (o->resume,
 * o->save_every): with state NULL those options are refused. */
int stax_cli_run_state(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err, const stax_cli_state *st);
/* -j for a command whose output comes in document order (select, canon):
 * the command keeps its output per part and writes it in done. setup(ud,
 * slots) once before the read (non-zero: read on one thread): at most slots
 * parts are in flight, part k in slot k % slots. begin(ud, part, slot)
 * before a part is read (again: drop what the slot gathered), batch with
 * its batches (on a worker, with part-relative lines and columns), done in
 * document order once the part is known to be the serial one. Each returns
 * 0 to go on, STAX_CLI_STOP or an exit code as a batch function does,
 * STAX_CLI_AGAIN (done only, below), or STAX_CLI_SERIAL: the read is given up and the document read again as a
 * stream through fn (the command skips the output its done calls wrote). */
#define STAX_CLI_SERIAL (-3)
/* done only: go on, and read the next part again from the real end of this
 * one (on the calling thread, after this done), whatever its guess was */
#define STAX_CLI_AGAIN (-4)
typedef struct stax_cli_parts {
    void *ud;
    int (*setup)(void *ud, size_t slots);
    int (*begin)(void *ud, size_t part, size_t slot);
    int (*batch)(void *ud, size_t part, size_t slot, const stax_batch *b);
    int (*done)(void *ud, size_t part, size_t slot);
} stax_cli_parts;
/* stax_cli_run with parts for -j (o->jobs, on a regular file). */
int stax_cli_run_parts(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err,
                       const stax_cli_parts *parts);
/* Write o->context atomically: 0; 1 when the reader cannot save at this
 * point; -1 on failure (reported unless o->quiet). */
int stax_cli_context_store(const stax_cli_opts *o, stax_reader *r, const stax_cli_state *st);
/* Read o->resume into r (before any input) and st->data: 0 and the offset to
 * read from, or -1 (reported unless o->quiet). */
int stax_cli_context_load(const stax_cli_opts *o, stax_reader *r, const stax_cli_state *st, uint64_t *offset);
/* Move fd to offset: a seek, or for a pipe reading up to it. 0, or -1 (also
 * for an offset past the end of a regular file, or past what off_t holds). */
int stax_cli_skip(int fd, uint64_t offset);

/* The context file's and the part record's helpers (cli/resume.c): FNV-1a,
 * little-endian integers of width bytes, a whole write, and a whole file read
 * into *out (malloc'd; NULL, or what went wrong: strerror or "the file is
 * too large", over 1 GiB). */
uint64_t stax_cli_fnv(const unsigned char *p, size_t n);
void stax_cli_put(unsigned char *p, uint64_t v, int width);
uint64_t stax_cli_get(const unsigned char *p, int width);
int stax_cli_write_all(int fd, const unsigned char *p, size_t n);
const char *stax_cli_read_file(const char *path, unsigned char **out, size_t *out_len);

/* The reports (cli/report.c), for the driver and the ranges: the
 * compressed format p[0, n) starts (its index), -1 if none, or
 * STAX_CLI_UNDECIDED while n bytes are a prefix of a magic; 1 (and the
 * refusal reported) when p[0, n) starts a compressed format; the refusal
 * of a format; an error as NAME:LINE:COL: message (byte N), of a reader or
 * at p; the exit code of a reader status. */
#define STAX_CLI_UNDECIDED (-2)
int stax_cli_compressed_format(const unsigned char *p, size_t n);
int stax_cli_refuse_compressed(const stax_cli_opts *o, const unsigned char *p, size_t n);
void stax_cli_report_compressed(const stax_cli_opts *o, int format);
void stax_cli_report_at(const stax_cli_opts *o, stax_pos p, const char *msg, int st);
void stax_cli_report(const stax_cli_opts *o, stax_reader *r, int st);
int stax_cli_exit_code(int st);

/* Ranges (cli/part.c, docs/parallel.md "Beyond one machine"). The range
 * reader of --part K/N: range K of the regular file fd, through fn into
 * st->data (zeros), written as a part record; 0 when it was written (even
 * when the range ended in an error: the merge decides whether that error is
 * the document's), 2 for a usage or I/O error. */
int stax_cli_part_read(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, const stax_cli_state *st);
/* stax merge: the part records paths[0, n) loaded and checked against each
 * other (NULL, reported, when they are not the N parts of one document's
 * read); the command that wrote them; the merge itself over the document fd
 * (the command's state st->data gets the sum of the parts'): the exit code
 * and messages of the serial read. */
typedef struct stax_cli_partset stax_cli_partset;
stax_cli_partset *stax_cli_parts_load(const stax_cli_opts *o, char *const *paths, size_t n);
const char *stax_cli_parts_command(const stax_cli_partset *ps);
int stax_cli_parts_merge(const stax_cli_opts *o, stax_cli_partset *ps, int fd, stax_cli_batch_fn fn, const stax_cli_state *st);
void stax_cli_parts_free(stax_cli_partset *ps);

/* s as one shell word (quoted unless it needs no quotes) into out, which has
 * room for 4 * strlen(s) + 3 bytes; returns the length written (no NUL). */
size_t stax_cli_quote(char *out, const char *s);

/* The resolver of --external (cli/external.c): a system id is a local file,
 * relative to the base of its declaration (for the document's own
 * declarations, the directory of `document`; "-" or NULL: the current
 * directory); file: URIs are paths; any other scheme is refused. */
typedef struct stax_cli_resolver {
    const char *document;
    char msg[512]; /* the message of the last refusal */
} stax_cli_resolver;
int stax_cli_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in);

/* The decoder the tool gives the reader for encodings the library does not
 * read itself (cli/decode.c): the C library's iconv; NULL in a build
 * without it (STAX_CLI_NO_ICONV). */
const stax_decoder *stax_cli_decoder(void);

/* The output of a command (cli/output.c): every byte a command writes goes
 * through these, which keep the first write error, write nothing after it
 * (the output is a prefix of the right one), and let the command stop
 * reading. stax_cli_out_end flushes and says what went wrong, once, in one
 * form for every command: "stax: write error: STRERROR". */
typedef struct stax_cli_out {
    FILE *f;
    int err;      /* errno of the first failed write (0: none) */
    int reported; /* stax_cli_out_end has said so */
    /* the command's own buffer (select's, fmt's writer's) written into f,
     * before stax_cli_out_flush flushes f (NULL: none) */
    void (*drain)(void *ud);
    void *drain_ud;
} stax_cli_out;
void stax_cli_out_init(stax_cli_out *w, FILE *f);
/* Everything the command has written so far handed to the system now: its
 * own buffer (drain), then f's. 0, or -1 once a write failed. */
int stax_cli_out_flush(stax_cli_out *w);
/* A write on w->f failed: errno (EIO when none) recorded, unless an
 * earlier failure was; returns -1. */
int stax_cli_out_failed(stax_cli_out *w);
/* Each returns 0, or -1 once a write failed (then and on every later call). */
static inline int stax_cli_write(stax_cli_out *w, const void *p, size_t n) {
    if (w->err) return -1;
    return n == 0 || fwrite(p, 1, n, w->f) == n ? 0 : stax_cli_out_failed(w);
}
static inline int stax_cli_putc(stax_cli_out *w, char c) {
    if (w->err) return -1;
    return putc((unsigned char)c, w->f) != EOF ? 0 : stax_cli_out_failed(w);
}
static inline int stax_cli_puts(stax_cli_out *w, const char *s) { return stax_cli_write(w, s, strlen(s)); }
int stax_cli_printf(stax_cli_out *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The end of a command's output: w->f flushed; rc when every write went
 * through, else 2 and the write error on stderr (unless o is non-NULL and
 * quiet; said once). */
int stax_cli_out_end(const stax_cli_opts *o, stax_cli_out *w, int rc);
/* o with live set to w: the options of a command that writes as it reads. */
static inline stax_cli_opts stax_cli_live(const stax_cli_opts *o, stax_cli_out *w) {
    stax_cli_opts live = *o;
    live.live = w;
    return live;
}

/* Subcommands. Each returns the process exit code (docs: stax(1), EXIT
 * STATUS) and writes its output to out, through a stax_cli_out. */
int stax_cmd_canon(const stax_cli_opts *o, int fd, FILE *out);
int stax_cmd_check(const stax_cli_opts *o, int fd);
int stax_cmd_count(const stax_cli_opts *o, int fd, FILE *out);
int stax_cmd_fmt(const stax_cli_opts *o, int fd, FILE *out);
/* stax merge FILE PART...: what `stax check|count FILE` prints and returns,
 * from the part records of --part K/N (the command is theirs). */
int stax_cmd_merge(const stax_cli_opts *o, int fd, char *const *parts, size_t n, FILE *out);

/* stax select's own options (cli/select.c). */
typedef struct stax_cli_select_opts {
    const char *path;     /* PATH */
    const char *csv;      /* --csv COLUMNS (NULL: no records) */
    int xml, count, nul;  /* --xml, --count, -0 */
    uint64_t first;       /* --first N (0: every match) */
    size_t max_held;      /* --max-held N (0: the library's default) */
    const char **ns;      /* -N prefix=URI, ns_count of them */
    size_t ns_count;
    int header;           /* --header: a first row of column names (--csv) */
    const char *header_names; /* --header=NAMES: those, by commas (NULL: the column paths) */
    const char *join;     /* --join SEP: every match of a column, joined by SEP (NULL: the first) */
    int json;             /* --json, --json=COLUMNS: JSON Lines */
    const char *json_columns; /* --json=COLUMNS: a JSON object per match of PATH (NULL: a string) */
    int arrays;           /* --arrays: with json_columns, each column every match, an array */
} stax_cli_select_opts;
int stax_cmd_select(const stax_cli_opts *o, const stax_cli_select_opts *so, int fd, FILE *out);

/* The progress line (cli/progress.c): bytes read, of the total when fd is a
 * regular file, MiB/s and the time left, redrawn on stderr with a carriage
 * return and erased at the end. */
typedef struct stax_cli_progress {
    int mode;             /* as stax_cli_opts.progress */
    int shown;            /* a line is on the screen */
    uint64_t done, total; /* total 0: unknown */
    double start, last;   /* seconds */
    const char *name;
} stax_cli_progress;
void stax_cli_progress_begin(stax_cli_progress *p, int mode, int fd, const char *name);
void stax_cli_progress_add(stax_cli_progress *p, size_t n);
void stax_cli_progress_end(stax_cli_progress *p);
/* The line itself (no control characters), NUL-terminated; returns its length. */
size_t stax_cli_progress_line(char *buf, size_t cap, const char *name, uint64_t done, uint64_t total, double seconds);

#endif
