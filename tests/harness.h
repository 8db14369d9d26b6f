/* Shared helpers for the Criterion unit tests.
 *
 * EVENT DUMPS
 *   The reader tests compare a textual dump of every event against a
 *   hand-written expectation. One line per event, each ending in '\n':
 *
 *     START a x="1" y="2"           start tag; attributes in document order
 *     START a x="1" /               ... self-closing (STAX_EVF_EMPTY)
 *     START a x="1" d="0"*          ... d="0" defaulted from the DTD (STAX_ATTRF_DEFAULTED)
 *     END a                         end tag (also after a self-closing start)
 *     TEXT "hi\n"                   character data
 *     TEXT "  " ws                  ... with STAX_EVF_WHITESPACE
 *     TEXT "abc" +                  ... with STAX_EVF_CONTINUED (CDATA too)
 *     CDATA "x]]y"                  CDATA section content
 *     COMMENT " c "                 comment content
 *     PI target "data"              processing instruction
 *     DOCTYPE r pub="" sys=""       DOCTYPE without an internal subset
 *     DOCTYPE r pub="" sys="" subset="..."   with one (STAX_EVF_HAS_SUBSET)
 *     XMLDECL 1.0 enc="UTF-8" sa=yes         sa=yes / sa=no / sa=- (absent)
 *     ENTITY_REF name               a reference the reader does not expand
 *     ENTITY_REF name pub="" sys="x"  ... when it has a public or system id
 *     DOCUMENT_END                  a document of a sequence ended (STAX_READ_DOCUMENTS)
 *
 *   Strings are quoted; inside them \\ \" \n \t \r stand for themselves and
 *   other bytes below 0x20 and 0x7F print as \xHH. Bytes >= 0x80 print as they
 *   are (UTF-8 expectations stay readable). A flag a type should never carry
 *   prints as " flags=0xHH"; a DOCTYPE that has subset text but no
 *   STAX_EVF_HAS_SUBSET prints it as " text=...".
 *
 *   With STAX_DUMP_POS each event line ends with " @LINE:COL:OFFSET" (the
 *   event's position).
 *
 *   The dump ends with one status line:
 *     END-OF-DOCUMENT               stax_reader_next returned STAX_END
 *     ERROR TAG_MISMATCH @3:5:20    an error: its name (STAX_E_ without the
 *                                   prefix), then stax_reader_error_pos
 *   (with STAX_DUMP_MESSAGE: "ERROR TAG_MISMATCH @3:5:20: end tag 'b' does ...")
 *   and the harness adds a diagnostic line (which no expectation contains, so
 *   the test fails) when the reader breaks the API contract: NEW-FAILED,
 *   FEED-FAILED <code>, END-FAILED <code>, EMPTY-BATCH, BATCH-TOO-BIG <n>,
 *   NULL-STRING, NOT-STICKY <code>, STATUS-MISMATCH <code>, ERRPOS-MOVED,
 *   NEED-INPUT-AFTER-END, TOO-MANY-EVENTS.
 *
 * Every dump is malloc'd; the caller frees it.
 */
#ifndef STAX_TEST_HARNESS_H
#define STAX_TEST_HARNESS_H

#include "stax.h"

#include <stddef.h>
#include <stdint.h>

/* Dump flags. */
#define STAX_DUMP_POS 0x1u     /* append " @line:col:offset" to every event line */
#define STAX_DUMP_MESSAGE 0x2u /* the status line of an error ends with ": " and stax_reader_message */
#define STAX_DUMP_NS 0x4u      /* with namespaces on: each START and END and attribute name's {uri}prefix:local,
                                  and NS-SET where another event's names are not all empty */

/* The chunk sizes every document is checked at (0 means the whole document in
 * one feed), and how many there are. */
extern const size_t stax_test_chunk_sizes[];
extern const size_t stax_test_chunk_count;

/* Feed doc[0..len) in chunks of `chunk` bytes (0: one feed) through the push
 * API and dump every event. opt may be NULL. *status (if status != NULL)
 * receives the final status: STAX_END or the error. No positions. */
char *stax_test_events(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt,
                       int *status);

/* The same with dump flags (STAX_DUMP_POS). */
char *stax_test_events_ex(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt,
                          unsigned dump_flags, int *status);

/* The same run as stax_test_events_ex, for documents of megabytes: each
 * event's dump line is hashed (FNV-1a 64) instead of kept, so the result is
 * "DIGEST <16 hex digits> EVENTS <n>\n", then any contract violation
 * (NULL-STRING included) and the status line, as in a dump. Two runs gave
 * the same events exactly when their results are equal (but for a hash
 * collision). */
char *stax_test_digest(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt,
                       unsigned dump_flags, int *status);

/* Feed with chunk sizes drawn from a seeded generator (1..max_chunk bytes each). */
char *stax_test_events_random(const char *doc, size_t len, uint32_t seed, size_t max_chunk,
                              const stax_reader_options *opt, unsigned dump_flags);

/* Feed doc in two chunks, [0, at) and [at, len), each an exact-size copy. */
char *stax_test_events_split(const char *doc, size_t len, size_t at, const stax_reader_options *opt,
                             unsigned dump_flags);

/* Dump a document at every size of stax_test_chunk_sizes, fail the current
 * test (with both dumps) unless all are identical, and return the dump. */
char *stax_test_events_all(const char *doc, size_t len, const stax_reader_options *opt, unsigned dump_flags);

/* Drain a reader that has a pull source (set_fd / set_file / set_source):
 * call stax_reader_next until STAX_END or an error and dump the events. The
 * reader is not freed. */
char *stax_test_pull_events(stax_reader *r, const stax_reader_options *opt, unsigned dump_flags);

/* Feed a document at every chunk size, with positions, and assert that each
 * dump's last line (the status line) equals `want`, e.g.
 * "ERROR TAG_MISMATCH @2:3:7". The events before it may differ (an error can
 * end a batch early); the status and its position may not. */
void stax_test_expect_status(const char *doc, size_t len, const stax_reader_options *opt, const char *want);

/* Check a document at every chunk size and assert that its dump equals want. */
void stax_test_expect_events(const char *doc, size_t len, const stax_reader_options *opt, unsigned dump_flags,
                             const char *want);

/* Walk the events of a whole document one at a time: open feeds doc in one
 * chunk; next returns 1 with (b, i) on the next event, or 0 when the reader
 * stopped, with status STAX_END or the error. It calls stax_reader_end when
 * the reader asks for more. */
typedef struct stax_test_cursor {
    stax_reader *r;
    const stax_batch *b;
    size_t i;
    int status;
    int ended;
} stax_test_cursor;
void stax_test_cursor_open(stax_test_cursor *c, stax_reader *r, const char *doc, size_t len);
int stax_test_cursor_next(stax_test_cursor *c);

/* The code point of the valid UTF-8 sequence at s[*i]; *i moves past it
 * (the tests' own encoders build UTF-16 and UTF-32 input with it). */
uint32_t stax_test_utf8_next(const unsigned char *s, size_t *i);

/* The last line of a dump (without its '\n'), in a static buffer. */
const char *stax_test_last_line(const char *dump);

/* The symbolic name of a status code: "TAG_MISMATCH", "END", "NEED_INPUT"... */
const char *stax_test_status_name(int status);

/* Convenience: a NUL-terminated document. */
#define STAX_DOC(s) (s), (sizeof(s) - 1)

/* A growable NUL-terminated string (through the real allocator, so that it
 * works while the malloc guard is set). Start from {0}; free with
 * stax_test_buf_free. */
typedef struct stax_test_buf {
    char *p;
    size_t len, cap;
} stax_test_buf;
void stax_test_buf_put(stax_test_buf *b, const char *s, size_t n);
void stax_test_buf_puts(stax_test_buf *b, const char *z);
void stax_test_buf_printf(stax_test_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void stax_test_buf_free(stax_test_buf *b);

/* Event i of b as one dump line (the format of stax_test_events_ex). */
void stax_test_dump_event(stax_test_buf *out, const stax_batch *b, size_t i, unsigned dump_flags);

/* An allocator hook (alloc_ud: a stax_test_meter) that counts the bytes held
 * and their peak, to show that a run stays in flat memory and frees all. */
typedef struct stax_test_meter {
    size_t now, peak;
} stax_test_meter;
void *stax_test_meter_alloc(void *ud, void *p, size_t old, size_t n);

/* How much of the sweeps a run does. With STAX_TEST_FULL=1 (`make unit` sets
 * it in the native gcc build), all of it. Without it (the sanitizer, clang and
 * single-file builds, the cross targets under qemu) the long inputs are a
 * tenth as long, and a sweep over many documents or cut points checks every
 * STAX_TEST_SAMPLE_STEP-th of them: the same code runs on a part of the
 * inputs, at a fraction of the time. */
#define STAX_TEST_SAMPLE_STEP 4
int stax_test_full(void);
/* Whether item i of a sweep is checked in this run (every item when full). */
int stax_test_sampled(size_t i);

/* The stax binary next to the unit binary (build/, build/asan/, ...), else
 * build/stax (failing the test when there is none). */
const char *stax_test_bin(void);
/* Run a shell command line: its stdout (and whatever it redirects there) in
 * out[0, cap), NUL-terminated, and its exit status (-1: killed). */
int stax_test_shell(const char *cmdline, char *out, size_t cap);
/* Stderr into a temporary file until stax_test_stderr_end, which puts it
 * back and copies what was written into err[0, cap) (NUL-terminated). */
typedef struct stax_test_stderr {
    FILE *file;
    int saved;
} stax_test_stderr;
stax_test_stderr stax_test_stderr_begin(void);
void stax_test_stderr_end(stax_test_stderr *c, char *err, size_t cap);

/* FIXTURES
 * Every .xml file of fixtures/ (./fixtures when run from the top of the tree,
 * else next to the tests' sources), sorted by name. bad: its name starts
 * with "bad-" (it is not well-formed). */
typedef struct stax_test_fixture {
    char name[128];
    char *data;
    size_t len;
    int bad;
} stax_test_fixture;
size_t stax_test_load_fixtures(stax_test_fixture **out);
void stax_test_free_fixtures(stax_test_fixture *fx, size_t n);

/* MALLOC GUARD
 * The unit binary is linked with -Wl,--wrap=malloc,realloc,calloc,free. While
 * stax_test_forbid_malloc is nonzero, any call to one of them (from the test,
 * the harness's users or the library) fails the current test. The harness's
 * own buffers bypass the guard, so a dump may be taken while it is set; clear
 * it before freeing the dump. It is volatile because gcc knows malloc and free
 * as builtins that read no user variable, and would otherwise move or drop a
 * store to it across them. */
extern volatile int stax_test_forbid_malloc;
/* How many guarded calls happened while forbidden (for tests that look). */
extern unsigned long stax_test_forbidden_calls;

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t n, size_t m);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_calloc(size_t n, size_t m);
void __wrap_free(void *p);

#endif /* STAX_TEST_HARNESS_H */
