/* stax: streaming XML reader and writer in C (C99 or later; C++11 or later).
 *
 * USAGE
 *   Reader (push): create, pull batches, feed a chunk whenever the reader
 *   asks for one (it asks first), say when input has ended.
 *
 *     stax_reader *r = stax_reader_new(NULL);          // NULL: default options
 *     const stax_batch *b;
 *     char buf[65536];
 *     unsigned long elements = 0;
 *     int st;
 *     while ((st = stax_reader_next(r, &b)) == STAX_OK || st == STAX_NEED_INPUT) {
 *         if (st == STAX_NEED_INPUT) {                 // the first call too
 *             ssize_t n = read(fd, buf, sizeof buf);
 *             if (n > 0) stax_reader_feed(r, buf, (size_t)n); // buf stays valid until
 *             else stax_reader_end(r);                 // next() asks for more
 *             continue;
 *         }
 *         for (size_t i = 0; i < b->count; i++)
 *             if (stax_ev_type(b, i) == STAX_EV_START) elements++;
 *     }
 *     if (st < 0) {                                    // st == STAX_END: well-formed
 *         stax_pos p = stax_reader_error_pos(r);
 *         fprintf(stderr, "%llu:%llu: %s\n", (unsigned long long)p.line,
 *                 (unsigned long long)p.column, stax_reader_message(r));
 *     }
 *     stax_reader_free(r);
 *
 *   A document in memory: stax_reader_feed(r, doc, len); stax_reader_end(r);
 *   then stax_reader_next until STAX_END or an error.
 *
 *   Reader (pull): stax_reader_set_fd / _set_file / _set_source, then call
 *   stax_reader_next until it returns STAX_END or an error; it never returns
 *   STAX_NEED_INPUT.
 *
 *   A batch is read through b->count and the stax_ev_* accessors: they are
 *   the contract. The stax_event and stax_attr tables behind them are their
 *   inline implementation and may change.
 *
 *   docs/api.md is the manual: every function's full contract, the options,
 *   the events, and complete programs (built and run by the tests) for push,
 *   pull, namespaces, the DTD, external entities, a fixed block and errors.
 *
 *   The reader is a non-validating XML 1.0 (5th edition) processor, with
 *   Namespaces 1.0 (STAX_READ_NAMESPACES) and many input encodings
 *   (docs/encodings.md), and any other through a decoder of the caller's
 *   (opt->decoder: iconv, say; the library itself converts nothing more).
 *   It reads nothing external unless the caller gives it a resolver
 *   (docs/api.md, "External entities").
 *   The input is one document, or with STAX_READ_FRAGMENT the content of an
 *   external parsed entity (any sequence of elements and text at the top
 *   level), or with STAX_READ_DOCUMENTS whole documents one after another,
 *   each ended by STAX_EV_DOCUMENT_END (docs/api.md, "Fragments and document
 *   sequences").
 *
 *   Writer: see the writer section below and docs/writer.md.
 *
 * SINGLE FILE
 *   `make single` writes build/stax.h: this header plus the implementation.
 *   #define STAX_IMPLEMENTATION in exactly one .c file (C99 or later) or C++
 *   file (C++11 or later) before including it;
 *   #define STAX_STATIC as well to make every symbol static (a private copy).
 *
 * MEMORY
 *   All memory comes from one realloc-style hook, or from one caller-provided
 *   block (then malloc is never called). Every limit below is an option with a
 *   safe default; docs/security.md lists them. Nothing grows with the document.
 *
 * STRINGS
 *   stax_str is UTF-8, NOT NUL-terminated. Slices point into the caller's chunk
 *   when the token lies inside it (zero copy), else into the reader's buffers.
 *   Everything in a batch is valid until the next call on the reader.
 *
 * ERRORS
 *   Functions return STAX_OK (0), a positive progress code, or a negative
 *   status. One rule for the reader, the writer and select: the first error
 *   is sticky, and every later call on the object returns it (until
 *   stax_reader_reset or stax_select_reset; a writer has no reset). The
 *   exceptions, each named again where it applies:
 *   - the writer's refusals (STAX_E_STATE, STAX_E_INVALID, STAX_E_DUP_ATTR,
 *     STAX_E_ENCODING, STAX_E_CHAR, STAX_E_LIMIT_STACK, STAX_E_NOMEM of its
 *     stack, STAX_E_USAGE) change nothing and are not sticky, unless
 *     STAX_WRITE_STICKY;
 *   - stax_reader_save's and stax_select_save's STAX_E_FULL and STAX_E_NOSAVE
 *     change nothing and are not sticky;
 *   - the functions that only answer (check_options, memory_size,
 *     effective_options, stax_context_position) have no object to stick to.
 *   Every limit is a STAX_E_LIMIT_* status whose message names the option
 *   and its value (stax_reader_message, stax_writer_message, ...).
 */
#ifndef STAX_H
#define STAX_H

#include <stddef.h>
#include <stdint.h>
#ifndef STAX_NO_STDIO
#include <stdio.h> /* FILE, for stax_reader_set_file; define STAX_NO_STDIO to drop */
#endif
/* Parts left out (docs/embedded.md): select writes XML values with the
 * writer, and everything external is declared in the DTD. */
#if defined(STAX_NO_WRITER) && !defined(STAX_NO_SELECT)
#define STAX_NO_SELECT
#endif
#if defined(STAX_NO_DTD) && !defined(STAX_NO_EXTERNAL)
#define STAX_NO_EXTERNAL
#endif

/* The version of this header. The numbers are the one place it is written
 * (the Makefile reads them for the soname and stax.pc); STAX_VERSION_NUMBER is
 * MAJOR * 1000000 + MINOR * 1000 + PATCH, for #if; stax_version() is the
 * version of the library linked at run time. */
#define STAX_VERSION_MAJOR 0
#define STAX_VERSION_MINOR 1
#define STAX_VERSION_PATCH 0
#define STAX_VERSION_NUMBER (STAX_VERSION_MAJOR * 1000000 + STAX_VERSION_MINOR * 1000 + STAX_VERSION_PATCH)
#define STAX__STR(x) #x
#define STAX__XSTR(x) STAX__STR(x)
#define STAX_VERSION STAX__XSTR(STAX_VERSION_MAJOR) "." STAX__XSTR(STAX_VERSION_MINOR) "." STAX__XSTR(STAX_VERSION_PATCH)

/* Public functions are declared STAXDEF: static in a private single-file copy
 * (STAX_STATIC), else extern with default visibility, so that a shared library
 * built with -fvisibility=hidden exports them and nothing else. */
#ifndef STAXDEF
#ifdef STAX_STATIC
#define STAXDEF static
#elif defined(__GNUC__) || defined(__clang__)
#define STAXDEF extern __attribute__((visibility("default")))
#else
#define STAXDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- common */

typedef struct stax_str {
    const char *ptr; /* UTF-8, not NUL-terminated; may be NULL when len == 0 */
    size_t len;
} stax_str;

/* Status codes. Zero and positive values are progress; negative are errors. */
enum {
    STAX_OK = 0,
    STAX_NEED_INPUT = 1, /* reader: feed the next chunk, or call stax_reader_end */
    STAX_END = 2,        /* reader: the document is complete; no more events */
    STAX_WOULD_BLOCK = 3,/* writer: the sink took less than offered; see docs/writer.md */
    STAX_DECLINE = 4,    /* resolver: this external entity is not read (stax_resolve_fn) */
    STAX_AGAIN = 5,      /* parallel read, from done: read the next part again from the real
                            end of this one, whatever its guess (stax_parallel_options) */

    STAX_E_NOMEM = -1,   /* allocator failed, or the fixed block is too small */
    STAX_E_USAGE = -2,   /* API misuse (bad argument, call in the wrong state) */
    STAX_E_IO = -3,      /* read/write error from a source or sink */
    STAX_E_INTERNAL = -4,/* an internal invariant did not hold: a bug in stax, not in the
                            input or the calls; please report it with the input */
    STAX_E_SYNTAX = -10, /* not well-formed: malformed markup */
    STAX_E_ENCODING = -11,   /* invalid byte sequence for the encoding */
    STAX_E_CHAR = -12,       /* a code point outside the Char production */
    STAX_E_NAME = -13,       /* invalid name */
    STAX_E_TAG_MISMATCH = -14, /* end tag does not match the open element */
    STAX_E_DUP_ATTR = -15,   /* attribute given twice on one element */
    STAX_E_ENTITY = -16,     /* undeclared or invalid entity reference */
    STAX_E_CHARREF = -17,    /* invalid character reference */
    STAX_E_STRUCTURE = -18,  /* document structure (no root, two roots, text outside root...) */
    STAX_E_TRUNCATED = -19,  /* input ended inside the document */
    STAX_E_UNSUPPORTED = -20,/* valid XML this build does not handle (e.g. an encoding) */
    STAX_E_LIMIT_DEPTH = -30,/* element nesting deeper than max_depth */
    STAX_E_LIMIT_NAME = -31, /* a name longer than max_name */
    STAX_E_LIMIT_ATTRS = -32,/* more attributes on one element than max_attrs */
    STAX_E_LIMIT_TOKEN = -33,/* a tag, comment, PI or DOCTYPE longer than max_token */
    STAX_E_LIMIT_ENTITY = -34,/* entity expansion over its limits (amplification, nesting) */
    STAX_E_LIMIT_DTD = -35,  /* DTD declarations over max_dtd */
    STAX_E_LIMIT_NS = -36,   /* more namespace declarations on one element than max_ns; writer:
                                the bindings in scope over ns_size */
    STAX_E_LIMIT_STACK = -37,/* writer: the open elements' names over stack_size */
    STAX_E_NAMESPACE = -21,  /* namespace constraint violated (unbound prefix, ...) */
    STAX_E_DTD = -22,        /* malformed markup declaration in the DTD */
    STAX_E_LIMIT_HELD = -39, /* select: held output over max_held */
    STAX_E_LIMIT_STATE = -43,/* select: matching state of the open elements over max_state */
    STAX_E_LIMIT_XML_MEMORY = -44, /* select: an XML value nested deeper than its writer's xml_memory holds */
    STAX_E_STATE = -40,      /* writer: call out of order (attribute after content, ...) */
    STAX_E_INVALID = -41,    /* writer: refused content (bad name, "--" in a comment, ...) */
    STAX_E_FULL = -42,       /* writer: the fixed memory sink is full; stax_reader_save: the
                                buffer is smaller than the context */
    STAX_E_NOSAVE = -45,     /* stax_reader_save: the reader is not at a point it can save at */
    STAX_E_CONTEXT = -46     /* stax_reader_resume: the context is refused (corrupt, truncated,
                                another version, other options, or over the reader's limits) */
};

/* A fixed English description of a status code ("not well-formed", ...). */
STAXDEF const char *stax_strerror(int status);

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH"; it may
 * differ from STAX_VERSION, the header's, when a shared library was updated. */
STAXDEF const char *stax_version(void);

/* realloc-style allocator: (ud, NULL, 0, n) allocates, (ud, p, old, n) resizes,
 * (ud, p, old, 0) frees and returns NULL. Returns NULL on failure. */
typedef void *(*stax_alloc_fn)(void *ud, void *ptr, size_t old_size, size_t new_size);

typedef struct stax_pos {
    uint64_t offset; /* byte offset in the input, from 0 */
    uint64_t line;   /* from 1 */
    uint64_t column; /* from 1, counted in characters (code points) */
} stax_pos;

/* ---------------------------------------------------------------- reader */

typedef struct stax_reader stax_reader;

/* Read function of the pull sources and of external entities: bytes read
 * (> 0), 0 at the end, or < 0 on error (STAX_E_IO). */
typedef ptrdiff_t (*stax_read_fn)(void *ctx, void *buf, size_t cap);

/* External entities: with a resolver (opt->resolve) the reader asks the
 * caller for the external DTD subset and external entities, each time it
 * needs one; without one, or when it declines, nothing external is read
 * (docs/api.md, "External entities"). */
enum {
    STAX_ENTITY_GENERAL = 1,   /* an external parsed entity referenced in content (&name;) */
    STAX_ENTITY_PARAMETER = 2, /* an external parameter entity referenced in the DTD (%name;) */
    STAX_ENTITY_SUBSET = 3     /* the external DTD subset (the DOCTYPE's external id) */
};

/* What the reader asks for. The strings are valid during the call. */
typedef struct stax_entity_request {
    int kind;        /* STAX_ENTITY_* */
    stax_str name;   /* the entity's name (without & or %); for the subset, the DOCTYPE's name */
    stax_str pubid;  /* the public id, empty if none */
    stax_str sysid;  /* the system id as declared (line ends normalized, nothing resolved) */
    stax_str base;   /* where the declaration was read (empty: the document itself) */
} stax_entity_request;

/* What the resolver hands over (zeroed before the call). After STAX_OK the
 * reader reads it whole, then calls done (if set) once. */
typedef struct stax_entity_input {
    const void *data;     /* the entity's bytes, all of them (may be NULL when len is 0)... */
    size_t len;
    stax_read_fn read;    /* ...or, if set, a function giving them in pieces of any size */
    void *read_ctx;
    void (*done)(void *ctx); /* the reader no longer needs data or read_ctx */
    void *done_ctx;
    stax_str base;        /* this entity's location, the `base` of the declarations it holds */
    const char *message;  /* with a negative return: what went wrong (copied) */
} stax_entity_input;

/* The resolver: STAX_OK with *in filled, STAX_DECLINE (not read), or a
 * negative status that stops the reader. It must not call the reader. */
typedef int (*stax_resolve_fn)(void *ud, const stax_entity_request *req, stax_entity_input *in);

/* A decoder of the caller's, for encodings stax does not read itself
 * (docs/encodings.md, "A decoder of your own"): bytes of one encoding to
 * UTF-8, fed the input as it comes. One call of decode: */
typedef struct stax_decode_io {
    const char *in;      /* the next input bytes; NULL (in_len 0): the input has ended */
    size_t in_len;
    size_t in_used;      /* out: bytes of in taken, an incomplete character kept for the next call included */
    char *out;           /* room for the UTF-8: out_cap bytes, at least STAX_DECODE_MIN_OUT */
    size_t out_cap;
    size_t out_len;      /* out: bytes written, whole characters of valid UTF-8 */
    size_t held;         /* out: input bytes the decoder keeps (an incomplete character); with
                            STAX_E_ENCODING: the bad sequence starts held bytes before in + in_used */
    const char *message; /* out, with any other negative return: what went wrong (a static
                            string or the state's own: read when the error is reported) */
} stax_decode_io;
#define STAX_DECODE_MIN_OUT 64u

typedef struct stax_decoder {
    /* A state for the encoding named name[0, len) (as declared, ASCII), or
     * NULL to refuse it: the reader then stops with STAX_E_UNSUPPORTED. */
    void *(*open)(void *ud, const char *name, size_t len);
    /* Convert: STAX_OK having taken input or written output (or both; with
     * in NULL: having written what it still had, 0 bytes at last); STAX_E_ENCODING
     * at an invalid sequence; STAX_E_TRUNCATED when the input ended inside a
     * character; or another negative status, which stops the reader with that
     * status. With an error, the output written before it is read first. */
    int (*decode)(void *state, stax_decode_io *io);
    void (*close)(void *state); /* the reader is done with the state (may be NULL) */
} stax_decoder;

/* Reader options. A zero field takes its default (in brackets). */
typedef struct stax_reader_options {
    stax_alloc_fn alloc;   /* [realloc/free] allocator hook */
    void *alloc_ud;        /* passed to alloc */
    void *memory;          /* fixed block: if non-NULL, all memory comes from it */
    size_t memory_size;    /* its size in bytes (stax_reader_memory_size) */
    uint32_t max_depth;    /* [1024] element nesting */
    uint32_t max_name;     /* [1024] bytes in one name */
    uint32_t max_attrs;    /* [256] attributes on one element */
    size_t max_token;      /* [1 MiB] bytes in one tag, comment, PI or DOCTYPE */
    size_t max_text;       /* [min(max_token, 64 KiB)] longer text/CDATA is split (<= max_token) */
    uint32_t batch_events; /* [256] events per batch at most (at least 2) */
    uint32_t max_entity_depth;     /* [16] entity references nested inside entity text */
    uint32_t entity_amplification; /* [100] expanded entity bytes allowed per input byte... */
    size_t entity_threshold;       /* [8 MiB] ...once this many bytes have been expanded */
    size_t max_dtd;                /* [1 MiB] memory for what the DTD keeps (both subsets) */
    uint32_t max_ns;               /* [64] namespace declarations on one element */
    size_t max_ns_bytes;           /* [64 KiB] memory for the namespace bindings in scope */
    const char *encoding;  /* [NULL: detect] force the input encoding (docs/encodings.md) */
    /* For a declared encoding stax does not know: the code points of the 256
     * byte values (valid while the reader lives), or NULL to refuse it. */
    const uint32_t *(*unknown_encoding)(void *ud, const char *name, size_t len);
    void *unknown_encoding_ud;
    /* [NULL] For an encoding stax does not know (after unknown_encoding):
     * the caller's decoder (valid while the reader lives), open given decoder_ud. */
    const stax_decoder *decoder;
    void *decoder_ud;
    size_t read_buffer;    /* [64 KiB] buffer of the pull sources and of transcoded input */
    stax_resolve_fn resolve;  /* [NULL: nothing external is read] the resolver */
    void *resolve_ud;         /* passed to resolve */
    size_t max_external;      /* [64 MiB] bytes of external entities read in all */
    size_t max_external_text; /* [1 MiB] memory for the text of the external entities open at once */
    unsigned flags;        /* STAX_READ_* */
} stax_reader_options;

#define STAX_READ_SKIP_WS 0x1u    /* drop whitespace-only texts (never a piece of a longer text) */
#define STAX_READ_NAMESPACES 0x2u /* namespaces 1.0: prefixes resolved, and checked */
/* The input's shape (at most one of the two; docs/api.md, "Fragments and
 * document sequences"). Neither: one document. */
#define STAX_READ_FRAGMENT 0x4u  /* the content of an external parsed entity: elements, text,
                                    comments, PIs, CDATA and references in any sequence at the
                                    top level, an optional text declaration, no DOCTYPE */
#define STAX_READ_DOCUMENTS 0x8u /* whole documents one after another, each with its own prolog,
                                    DTD and epilog; STAX_EV_DOCUMENT_END after each */

/* Fixed block: with opt->memory set, stax_reader_new takes everything the
 * options can need from the block at once, so that reading never runs out of
 * memory afterwards; zero options take defaults sized from the block
 * (docs/api.md, "Memory" and "Options"). STAX_READER_MIN_MEMORY is the
 * smallest block a reader with every option zero can be made in, for the
 * full build on this target (stax_reader_memory_min(NULL)); a build for
 * size (-Os, STAX_SMALL) needs up to 16 bytes less, and takes it too. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#ifdef STAX_NO_STDIO
#define STAX_READER_MIN_MEMORY 5055u
#else
#define STAX_READER_MIN_MEMORY 5071u
#endif
#elif defined(__i386__)
#define STAX_READER_MIN_MEMORY 4079u
#elif defined(STAX_NO_STDIO)
#define STAX_READER_MIN_MEMORY 4095u
#else
#define STAX_READER_MIN_MEMORY 4111u
#endif

/* The fixed block these options need, zero fields at their allocator-mode
 * defaults; 0 when an option is out of range. */
STAXDEF size_t stax_reader_memory_size(const stax_reader_options *opt);

/* The smallest fixed block a reader with these options can be made in (one
 * byte less is refused); 0 when an option is out of range. */
STAXDEF size_t stax_reader_memory_min(const stax_reader_options *opt);

/* Whether stax_reader_new(opt) can succeed: STAX_OK, STAX_E_USAGE (an option
 * out of range) or STAX_E_NOMEM (the block is too small); *why says which. */
STAXDEF int stax_reader_check_options(const stax_reader_options *opt, const char **why);

/* The options stax_reader_new(opt) would read with (zero fields replaced by
 * their defaults) in *out, when stax_reader_check_options returns STAX_OK. */
STAXDEF int stax_reader_effective_options(const stax_reader_options *opt, stax_reader_options *out,
                                          const char **why);

/* Events: docs/api.md, "Events" and "Event conventions", says what each
 * carries, how text is split (STAX_EVF_CONTINUED), where positions point
 * and where errors are reported. */
typedef enum stax_event_type {
    STAX_EV_START = 1,   /* start tag. name; attributes; flags STAX_EVF_EMPTY for <a/> */
    STAX_EV_END = 2,     /* end tag (also emitted after a self-closing start). name */
    STAX_EV_TEXT = 3,    /* character data: references decoded, line ends normalized. text */
    STAX_EV_CDATA = 4,   /* CDATA section content. text */
    STAX_EV_COMMENT = 5, /* text = what is between <!-- and --> */
    STAX_EV_PI = 6,      /* name = target, text = data (after the whitespace) */
    STAX_EV_DOCTYPE = 7, /* name = root name, pubid, sysid, text = raw internal subset */
    STAX_EV_XMLDECL = 8, /* name = version, text = encoding (may be empty); STAX_EVF_STANDALONE_* */
    STAX_EV_ENTITY_REF = 9, /* a reference the reader does not expand (external, or declared
                              where the reader does not read): name, pubid, sysid */
    STAX_EV_DOCUMENT_END = 10 /* STAX_READ_DOCUMENTS: a document and its epilog ended; at the
                                 next document's first byte, or at the end of the input */
} stax_event_type;

#define STAX_EVF_EMPTY 0x01u          /* START: the tag was self-closing (<a/>) */
#define STAX_EVF_WHITESPACE 0x02u     /* TEXT: this event's text is only #x20 #x9 #xA #xD */
#define STAX_EVF_STANDALONE_YES 0x04u /* XMLDECL: standalone="yes" */
#define STAX_EVF_STANDALONE_NO 0x08u  /* XMLDECL: standalone="no" */
#define STAX_EVF_CONTINUED 0x10u      /* TEXT/CDATA: split; the next event continues it */
#define STAX_EVF_HAS_SUBSET 0x20u     /* DOCTYPE: it had an internal subset ([...]) */

/* The tables of a batch: the inline implementation of the stax_ev_*
 * accessors, which are the contract. Their layout may change. The reader
 * writes only the fields an event's type defines (STAX__EV_NAMED,
 * STAX__EV_TEXTED, STAX__EV_IDS below); the accessors return an empty string
 * for the others, so they are safe on every type, while the fields
 * themselves may hold anything there. */
typedef struct stax_event {
    uint8_t type;        /* stax_event_type */
    uint8_t flags;       /* STAX_EVF_* */
    uint16_t reserved;
    uint32_t attr_count; /* START: number of attributes (0 for every other event) */
    uint32_t attr_first; /* START: index of the first one in stax_batch.attrs;
                            DOCTYPE, ENTITY_REF: the entry whose name is the public id
                            and whose value is the system id */
    uint32_t depth;      /* elements open around the event; a START or END counts its own
                            element: the root's START and END are at 1, text in the root at 1,
                            a comment before the root at 0 */
    stax_str name;       /* the types in STAX__EV_NAMED */
    stax_str text;       /* the types in STAX__EV_TEXTED */
    stax_pos pos;        /* where the token starts ('<' of a tag, first byte of text) */
} stax_event;

/* Which types define which strings: bit t is set for type t. */
#define STAX__EV_NAMED 0x3C6u  /* START END PI DOCTYPE XMLDECL ENTITY_REF */
#define STAX__EV_TEXTED 0x1F8u /* TEXT CDATA COMMENT PI DOCTYPE XMLDECL */
#define STAX__EV_IDS 0x280u    /* DOCTYPE ENTITY_REF: the public and system ids */

typedef struct stax_attr {
    stax_str name;
    stax_str value;  /* normalized (3.3.3), references decoded */
    uint32_t flags;  /* STAX_ATTRF_* */
} stax_attr;

#define STAX_ATTRF_DEFAULTED 0x1u /* not in the tag: the DTD's default value */

/* Namespace view of a name (STAX_READ_NAMESPACES): prefix (empty if none),
 * local part, and namespace URI (empty if none). */
typedef struct stax_qname {
    stax_str prefix, local, uri;
} stax_qname;

/* A batch: count events, read with the accessors. Valid until the next call
 * on the reader. */
typedef struct stax_batch {
    size_t count;
    const stax_event *events;
    const stax_attr *attrs;
    const stax_qname *ev_ns;   /* per event (START, END) when namespaces are on, else NULL */
    const stax_qname *attr_ns; /* per attribute, parallel to attrs, when namespaces are on, else NULL */
} stax_batch;

/* Create a reader (opt NULL: all defaults). NULL when memory is insufficient
 * or an option is out of range: stax_reader_check_options tells which. */
STAXDEF stax_reader *stax_reader_new(const stax_reader_options *opt);

/* Free the reader and everything it allocated (nothing, in fixed-block mode). */
STAXDEF void stax_reader_free(stax_reader *r);

/* Make r ready for a new document, as if just created, keeping its memory;
 * everything it handed out becomes invalid. STAX_OK, or STAX_E_USAGE for NULL. */
STAXDEF int stax_reader_reset(stax_reader *r);

/* Hand the reader the next chunk of input (len may be 0). Allowed when the
 * reader holds no chunk: before the first one, and after stax_reader_next
 * returned STAX_NEED_INPUT; otherwise STAX_E_USAGE. The bytes must stay valid
 * and unchanged until stax_reader_next returns STAX_NEED_INPUT again (or an
 * error / STAX_END). */
STAXDEF int stax_reader_feed(stax_reader *r, const void *data, size_t len);

/* Say that input has ended: no chunk follows the one fed last (called right
 * after stax_reader_feed, that chunk is the last one; called after
 * stax_reader_next returned STAX_NEED_INPUT, there is nothing more). Then
 * pull batches until STAX_END or an error; a reader with a pull source ends
 * by itself (STAX_E_USAGE here). */
STAXDEF int stax_reader_end(stax_reader *r);

/* Produce the next batch. Returns STAX_OK with *out set to a non-empty batch,
 * STAX_NEED_INPUT (push mode: the reader holds no chunk to read, before the
 * first feed too, and says so each time it is asked: feed or end), STAX_END
 * (document complete), or a negative error (sticky). Invalidates the previous
 * batch. */
STAXDEF int stax_reader_next(stax_reader *r, const stax_batch **out);

/* Pull sources: afterwards stax_reader_next reads input itself and never
 * returns STAX_NEED_INPUT. A read function (stax_read_fn) returns bytes read
 * (> 0), 0 at end of input, or < 0 on error (STAX_E_IO). Set one before the
 * first next(). */
STAXDEF int stax_reader_set_source(stax_reader *r, stax_read_fn fn, void *ctx);
#ifndef STAX_NO_STDIO
STAXDEF int stax_reader_set_fd(stax_reader *r, int fd);      /* POSIX read() */
STAXDEF int stax_reader_set_file(stax_reader *r, FILE *f);   /* fread() */
#endif

/* Misuse (feed or end at the wrong time, a source set late) is STAX_E_USAGE,
 * and sticky like every error. */

/* The sticky status (STAX_OK while none), its message ("end tag 'b' does not
 * match start tag 'a'"), and where it happened: the first byte the error was
 * detected at (for end of input: the end of the input). */
STAXDEF int stax_reader_status(const stax_reader *r);
STAXDEF const char *stax_reader_message(const stax_reader *r);
STAXDEF stax_pos stax_reader_error_pos(const stax_reader *r);

/* Current element depth (0 outside the root). */
STAXDEF uint32_t stax_reader_depth(const stax_reader *r);

/* The most memory the reader has held at once: with an allocator, bytes
 * allocated; in a fixed block, how much of the block it has used (the whole
 * layout, from stax_reader_new on). */
STAXDEF size_t stax_reader_memory_peak(const stax_reader *r);

/* Event accessors, the way to read a batch (docs/api.md, "Batches and
 * accessors"): cheap inline reads of its tables. i < b->count.
 * stax_ev_pos is an event's position; _offset, _line and _column its fields. */
static inline int stax_ev_type(const stax_batch *b, size_t i) { return b->events[i].type; }
static inline unsigned stax_ev_flags(const stax_batch *b, size_t i) { return b->events[i].flags; }
static inline stax_str stax__ev_none(void) {
    stax_str s;
    s.ptr = NULL;
    s.len = 0;
    return s;
}
static inline stax_str stax_ev_name(const stax_batch *b, size_t i) {
    const stax_event *e = &b->events[i];
    return (STAX__EV_NAMED >> (e->type & 15u)) & 1u ? e->name : stax__ev_none();
}
static inline stax_str stax_ev_text(const stax_batch *b, size_t i) {
    const stax_event *e = &b->events[i];
    return (STAX__EV_TEXTED >> (e->type & 15u)) & 1u ? e->text : stax__ev_none();
}
static inline stax_str stax_ev_pubid(const stax_batch *b, size_t i) {
    const stax_event *e = &b->events[i];
    return (STAX__EV_IDS >> (e->type & 15u)) & 1u ? b->attrs[e->attr_first].name : stax__ev_none();
}
static inline stax_str stax_ev_sysid(const stax_batch *b, size_t i) {
    const stax_event *e = &b->events[i];
    return (STAX__EV_IDS >> (e->type & 15u)) & 1u ? b->attrs[e->attr_first].value : stax__ev_none();
}
static inline size_t stax_ev_attr_count(const stax_batch *b, size_t i) { return b->events[i].attr_count; }
static inline stax_str stax_ev_attr_name(const stax_batch *b, size_t i, size_t k) {
    return b->attrs[b->events[i].attr_first + k].name;
}
static inline stax_str stax_ev_attr_value(const stax_batch *b, size_t i, size_t k) {
    return b->attrs[b->events[i].attr_first + k].value;
}
static inline stax_pos stax_ev_pos(const stax_batch *b, size_t i) { return b->events[i].pos; }
static inline uint32_t stax_ev_depth(const stax_batch *b, size_t i) { return b->events[i].depth; }
static inline uint64_t stax_ev_offset(const stax_batch *b, size_t i) { return b->events[i].pos.offset; }
static inline uint64_t stax_ev_line(const stax_batch *b, size_t i) { return b->events[i].pos.line; }
static inline uint64_t stax_ev_column(const stax_batch *b, size_t i) { return b->events[i].pos.column; }

static inline unsigned stax_ev_attr_flags(const stax_batch *b, size_t i, size_t k) {
    return b->attrs[b->events[i].attr_first + k].flags;
}

/* Namespaces: with STAX_READ_NAMESPACES off, local is the whole name and
 * prefix and uri are empty. */
static inline stax_qname stax__plain_qname(stax_str name) {
    stax_qname q;
    q.prefix.ptr = q.uri.ptr = "";
    q.prefix.len = q.uri.len = 0;
    q.local = name;
    return q;
}
static inline stax_qname stax_ev_qname(const stax_batch *b, size_t i) {
    return b->ev_ns ? b->ev_ns[i] : stax__plain_qname(stax_ev_name(b, i));
}
static inline stax_qname stax_ev_attr_qname(const stax_batch *b, size_t i, size_t k) {
    size_t a = b->events[i].attr_first + k;
    return b->attr_ns ? b->attr_ns[a] : stax__plain_qname(b->attrs[a].name);
}
static inline stax_str stax_ev_prefix(const stax_batch *b, size_t i) { return stax_ev_qname(b, i).prefix; }
static inline stax_str stax_ev_local(const stax_batch *b, size_t i) { return stax_ev_qname(b, i).local; }
static inline stax_str stax_ev_uri(const stax_batch *b, size_t i) { return stax_ev_qname(b, i).uri; }

/* The URI bound to prefix (len 0: the default namespace) where the reader is
 * now (after the last event of the current batch). Returns 0 and sets *uri,
 * or -1 if the prefix is not bound or namespaces are off. Valid until the next
 * call on the reader. */
STAXDEF int stax_reader_ns_lookup(const stax_reader *r, stax_str prefix, stax_str *uri);

/* Declarations of the DTD that are not expanded: notations (name, pubid,
 * sysid) and unparsed entities (name, pubid, sysid, notation). Available from
 * the DOCTYPE event on, valid until stax_reader_free. Returns the count. */
typedef struct stax_decl {
    stax_str name, pubid, sysid, notation;
} stax_decl;
STAXDEF size_t stax_reader_notations(const stax_reader *r, const stax_decl **out);
STAXDEF size_t stax_reader_unparsed_entities(const stax_reader *r, const stax_decl **out);

/* Processing instructions of the internal subset, in order (target, data). */
typedef struct stax_dtd_pi {
    stax_str target, data;
} stax_dtd_pi;
STAXDEF size_t stax_reader_dtd_pis(const stax_reader *r, const stax_dtd_pi **out);

/* SAVE AND RESUME (docs/api.md, "Save and resume")
 * A reader between two tokens in content, or after the root element, can
 * save its document context: the position, the open elements, the namespace
 * bindings in scope, the DTD, the encoding and the expansion meter, as a
 * versioned, checksummed byte string. A new reader resumed from it and fed
 * the input from the context's offset on reads exactly as the original
 * would have gone on: the same events, positions, errors and messages.
 * Left out with STAX_NO_RESUME. */
#ifndef STAX_NO_RESUME
#define STAX_CONTEXT_VERSION 1

/* Right after stax_reader_next returned a batch or STAX_NEED_INPUT: write
 * the context into buf[0, cap) and its length into *len. STAX_OK; with cap 0
 * (buf may be NULL) only *len is set, to the size needed (STAX_OK); with
 * 0 < cap < that size nothing is written, *len is the size and the result
 * STAX_E_FULL. STAX_E_NOSAVE when the reader is not at a point it can save
 * at: before the root element, after an error or the end, inside an
 * entity's text, with a text run or CDATA section split by a batch boundary
 * or by max_text, with an external entity pending, or in an encoding from
 * unknown_encoding or the decoder. Neither status is sticky; the reader is unchanged. The
 * input must then be fed again from the context's offset (stax_context_position):
 * bytes the reader holds back (a token cut by the chunk's end, the rest of
 * the window) are not consumed. */
STAXDEF int stax_reader_save(stax_reader *r, void *buf, size_t cap, size_t *len);

/* Restore a context into a new reader, before any input (a pull source may
 * be set before). The reader's options must have the flags of the one that
 * saved it, and a resolver if and only if it had one; its limits may differ,
 * and what the context holds must fit them (max_depth, max_name,
 * max_ns_bytes, max_dtd: the same rules as reading). Then feed it the input
 * from the context's offset on. STAX_OK; STAX_E_USAGE after input; or
 * STAX_E_CONTEXT with a message saying why (corrupt, truncated, another
 * version, other options, over a limit, a state no reading leaves): the
 * error is sticky, the reader as stax_reader_reset leaves it. No byte of a
 * context is trusted: the checksum detects damage, not forgery (anyone can
 * compute it), so every field is held to what a reading with these options
 * leaves there and checked against the others, and a context that fails
 * any of those checks is refused (docs/security.md). What no check can refute is the offset: the input
 * before it counts for the expansion limit, as in the reading that saved
 * it, so a program resuming contexts it did not make checks that its input
 * has that many bytes before the point (stax(1) does). */
STAXDEF int stax_reader_resume(stax_reader *r, const void *buf, size_t len);

/* Where a context resumes: the byte offset of the first byte the resumed
 * reader must be fed, and its line and column. STAX_OK, or STAX_E_CONTEXT
 * when buf is not an intact context of this version. */
STAXDEF int stax_context_position(const void *buf, size_t len, stax_pos *pos);

/* The same context moved to pos: its position rewritten and its checksum
 * written again (a reader resumed from it reads bytes from pos.offset on,
 * counting lines and columns from pos). STAX_OK, or STAX_E_CONTEXT when buf
 * is not an intact context of this version (nothing is written). A resume
 * refuses a position no input has (an offset of 2^63 or more, more lines
 * and columns than bytes), and one so far back that the expansion meter is
 * over the limits for it. */
STAXDEF int stax_context_move(void *buf, size_t len, stax_pos pos);

/* 1 when two intact contexts hold the same document state, their positions
 * apart (readers resumed from them read the same bytes the same way), else 0. */
STAXDEF int stax_context_equal(const void *a, size_t alen, const void *b, size_t blen);

/* The largest context a reader with these options saves (0 when an option is
 * out of range): 192 + max_depth * (max_name + 4) + 2 * max_dtd, + max_ns_bytes
 * with STAX_READ_NAMESPACES (max_dtd counts 0 with STAX_NO_DTD). */
STAXDEF size_t stax_context_max_size(const stax_reader_options *opt);
#endif /* STAX_NO_RESUME */

/* ONE DOCUMENT ON SEVERAL THREADS (docs/parallel.md)
 * stax_parallel_read reads a document in memory in parts, each on its own
 * thread, and gives exactly the serial result: the same events in the same
 * order, and the same first error with its message and position. The prolog
 * is read first; the rest is cut into parts of about part_size bytes at a '<'
 * followed by a name start character. Each part is read from the context the
 * previous one is expected to end with (the one saved at the first cut, moved
 * to the part's offset); when the previous part ends, its real end context is
 * compared with that guess, and a part whose guess was wrong is read again
 * from the real one. A wrong guess costs time, never correctness.
 *
 * The callbacks: begin(ud, k) before part k is read (again: drop what was
 * gathered for it), batch(ud, k, b) with its batches, on a worker thread;
 * done(ud, k, base) on the calling thread, in document order, once part k's
 * batches are known to be the serial ones. Event positions in part k's
 * batches count lines and columns from the part's start: base is where that
 * start really is, and stax_parallel_pos(base, pos) the event's real
 * position (offsets are always real). A callback that returns non-zero
 * stops the read, which returns that value (only once its part is known to
 * be serial: a part read from a wrong guess is dropped with what it
 * returned). done may instead return STAX_AGAIN: the read goes on, and the
 * next part is read again (begin, batches, done) on the calling thread from
 * the real end of this one, even when its guess was right: for a caller whose
 * own state at the cut (not the reader's) came out otherwise than it guessed.
 * Several parts' callbacks run at once, each part's on one thread
 * at a time; at most stax_parallel_slots(threads) parts are between begin and
 * done, so state kept per part can live in slot k % stax_parallel_slots().
 *
 * One thread (threads 1 and part_size 0), a reader in a fixed block
 * (reader->memory; give blocks instead to read in parts), a fragment or a
 * sequence of documents (STAX_READ_FRAGMENT, STAX_READ_DOCUMENTS), or a
 * build without threads or save and resume (STAX_NO_THREADS,
 * STAX_NO_RESUME) reads the whole input as part 0 on the calling thread. */
typedef struct stax_parallel_options {
    const stax_reader_options *reader; /* every part's reader (NULL: defaults); memory must be NULL */
    unsigned threads;                  /* [1] worker threads; 0: one per online core */
    size_t part_size;                  /* [4 MiB] bytes in a part, about */
    void *ud;                          /* passed to the callbacks */
    int (*begin)(void *ud, size_t part);                    /* may be NULL */
    int (*batch)(void *ud, size_t part, const stax_batch *b); /* may be NULL */
    int (*done)(void *ud, size_t part, stax_pos base);      /* may be NULL */
    /* Fixed blocks instead of the allocator (NULL: allocate): stax_parallel_slots(threads) + 1
     * blocks of block_size bytes each, and nothing else is allocated. blocks[0] holds the
     * read's bookkeeping; blocks[1 + i] slot i's reader, in its first half (block_size / 2
     * bytes, rounded down to 64: its limits come from that size, as for any reader in a fixed
     * block), and the slot's two contexts in the other half. reader->memory must be NULL. A
     * read through a function, or without threads, reads on the calling thread with its
     * reader in the first half of blocks[1]. Blocks too small: STAX_E_NOMEM. */
    void *const *blocks;
    size_t block_size;
} stax_parallel_options;

/* What a parallel read found. */
typedef struct stax_parallel_result {
    int status;          /* STAX_OK (the document is well-formed), a reader error,
                            or what a callback returned */
    stax_pos err_pos;    /* a reader error's position */
    char message[256];   /* a reader error's message (the reader's, cut to fit) */
    size_t parts;        /* parts read (part 0 holds the prolog) */
    size_t rereads;      /* parts read again because their guessed context was wrong */
    size_t buffers;      /* stax_parallel_read_fn: the most input buffers held at once */
} stax_parallel_result;

/* Read data[0, len) as described above; res (may be NULL) gets the result.
 * Returns res->status. STAX_E_USAGE for a NULL opt or data with len > 0,
 * STAX_E_NOMEM when a reader or a thread cannot be had. */
STAXDEF int stax_parallel_read(const void *data, size_t len, const stax_parallel_options *opt,
                               stax_parallel_result *res);

/* The same, with the input read through read(rud, buf, cap, got): it puts
 * up to cap bytes at buf and their count in *got, 0 at the end of the input,
 * and returns 0; non-zero stops the read, which returns that value (once the
 * parts before are done, as a callback's). Part 0 (the prolog) is read first;
 * then a feeder thread reads the rest into stax_parallel_slots(threads)
 * buffers of stax_parallel_buffer_size(part_size) bytes, 2 * part_size +
 * 64 KiB (part_size at most 1 GiB), each
 * holding one part (cut at a candidate after part_size bytes), filled again
 * once its part is done: memory is bounded by the slots, never by the
 * document. A part with no cut in a full buffer (a text run longer than
 * that) ends the parts: the rest of the input is read serially from it on,
 * on the calling thread, as is a document whose prolog does not fit in one
 * buffer. read is called on one thread at a time, never two at once. The
 * serial cases of stax_parallel_read read buffers of 64 KiB (512 bytes, on
 * the stack, with a reader in a fixed block). */
STAXDEF int stax_parallel_read_fn(int (*read)(void *ud, void *buf, size_t cap, size_t *got), void *rud,
                                  const stax_parallel_options *opt, stax_parallel_result *res);
/* RANGES: a document cut into n byte ranges for readers that run apart (one
 * process each, on one machine or many: docs/parallel.md, "Beyond one
 * machine"), with the same cuts and guess as above. Range k is
 * data[cuts[k], cuts[k + 1]): cuts[0] is 0, cuts[n] is len, and a range may
 * be empty. Range 0 holds the prolog and is read from the start by a plain
 * reader; a range k >= 1 that is not empty is read by a reader resumed from
 * the guess moved to (cuts[k], line 1, column 1) with stax_context_move, fed
 * up to and including the byte at cuts[k + 1] (the '<' that ends its last
 * text), or to the end and then ended. Each range's end context
 * (stax_reader_save after that) is compared by a merge step with the next
 * range's start: stax_context_equal, and its offset is that range's start.
 * guess[0, *guess_len) gets the context at the first cut; *guess_len is 0
 * when there is none (no element inside the root, a prolog that stops in an
 * error): range 0 is then the whole document. cuts has n + 1 entries.
 * STAX_OK; STAX_E_FULL when cap is less than the guess (*guess_len says how
 * much: stax_context_max_size(ro) is always enough), with every cut at len;
 * STAX_E_NOMEM; STAX_E_USAGE (ro->memory set, n 0, NULL pointers). Builds
 * without threads or save and resume, and a fragment or a sequence of
 * documents, give one range: every cut at len. */
STAXDEF int stax_parallel_cuts(const void *data, size_t len, const stax_reader_options *ro, size_t n, uint64_t *cuts,
                               void *guess, size_t cap, size_t *guess_len);
/* The size of each of those buffers for this part_size (0: the default). */
STAXDEF size_t stax_parallel_buffer_size(size_t part_size);

/* The threads a read with this setting uses (0: the online cores), and the
 * parts that can be between begin and done at once: that + 2. */
STAXDEF unsigned stax_parallel_threads(unsigned threads);
static inline size_t stax_parallel_slots(unsigned threads) { return (size_t)stax_parallel_threads(threads) + 2; }

/* The real position of an event at pos in a part that starts at base. */
static inline stax_pos stax_parallel_pos(stax_pos base, stax_pos pos) {
    if (pos.line == 1) pos.column += base.column - 1;
    pos.line += base.line - 1;
    return pos;
}

/* Compare a stax_str with a NUL-terminated string. */
static inline int stax_str_eq(stax_str s, const char *z) {
    size_t i = 0;
    for (; i < s.len; i++)
        if (z[i] == '\0' || z[i] != s.ptr[i]) return 0;
    return z[i] == '\0';
}

/* Whether a and b hold the same bytes. */
static inline int stax_str_same(stax_str a, stax_str b) {
    if (a.len != b.len) return 0;
    for (size_t i = 0; i < a.len; i++)
        if (a.ptr[i] != b.ptr[i]) return 0;
    return 1;
}

/* Byte order of a and b (a prefix comes first): < 0, 0 or > 0, like strcmp.
 * For UTF-8 this is code point order. */
static inline int stax_str_cmp(stax_str a, stax_str b) {
    size_t n = a.len < b.len ? a.len : b.len;
    for (size_t i = 0; i < n; i++)
        if (a.ptr[i] != b.ptr[i]) return (unsigned char)a.ptr[i] < (unsigned char)b.ptr[i] ? -1 : 1;
    return a.len < b.len ? -1 : a.len > b.len;
}

/* Copy s into buf[0, cap) and end it with a NUL (nothing when cap is 0).
 * Returns s.len; the copy was cut when that is cap or more, and then it ends
 * before a UTF-8 sequence the cut would split. */
static inline size_t stax_str_copy(stax_str s, char *buf, size_t cap) {
    if (cap == 0) return s.len;
    size_t n = s.len < cap ? s.len : cap - 1;
    if (n < s.len)
        while (n > 0 && ((unsigned char)s.ptr[n] & 0xC0) == 0x80) n--;
    for (size_t i = 0; i < n; i++) buf[i] = s.ptr[i];
    buf[n] = '\0';
    return s.len;
}

/* The attribute of START event i named `name` (NUL-terminated), its index,
 * or -1 when the element has none. */
static inline long stax_ev_attr_index(const stax_batch *b, size_t i, const char *name) {
    const stax_event *e = &b->events[i];
    for (uint32_t k = 0; k < e->attr_count; k++)
        if (stax_str_eq(b->attrs[e->attr_first + k].name, name)) return (long)k;
    return -1;
}

/* Its value in *value and 1, or 0 (and *value empty) when there is none. */
static inline int stax_ev_attr_get(const stax_batch *b, size_t i, const char *name, stax_str *value) {
    long k = stax_ev_attr_index(b, i, name);
    value->ptr = "";
    value->len = 0;
    if (k < 0) return 0;
    *value = b->attrs[b->events[i].attr_first + (size_t)k].value;
    return 1;
}

/* The same by namespace URI (empty for none) and local name, with
 * STAX_READ_NAMESPACES; without it, uri must be empty and local is the name. */
static inline int stax_ev_attr_get_ns(const stax_batch *b, size_t i, const char *uri, const char *local,
                                      stax_str *value) {
    const stax_event *e = &b->events[i];
    value->ptr = "";
    value->len = 0;
    for (uint32_t k = 0; k < e->attr_count; k++) {
        size_t a = e->attr_first + k;
        stax_qname q = b->attr_ns ? b->attr_ns[a] : stax__plain_qname(b->attrs[a].name);
        if (stax_str_eq(q.local, local) && stax_str_eq(q.uri, uri)) {
            *value = b->attrs[a].value;
            return 1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- select */
#ifndef STAX_NO_SELECT
/* Streaming path queries over the reader's batches: a streaming subset of
 * XPath 1.0 (forward axes, and predicates with paths, comparisons, and/or/not,
 * arithmetic and the string and node-set functions), evaluated as the events
 * go by, in memory bounded by the depth, the path and the held output, never
 * by the document. A candidate whose predicates read content not seen yet
 * is held (with what depends on it) until that content decides it, within
 * max_held. docs/select.md is the manual (the language, the values, the
 * order, held candidates).
 *
 *     stax_select *s = stax_select_new(NULL);         // NULL: default options
 *     if (stax_select_compile(s, stax_strz("//page/title"), stax_strz("")) != STAX_OK)
 *         fprintf(stderr, "%s\n", stax_select_message(s));  // refused or bad path
 *     stax_select_set_output(s, on_piece, ctx);        // called with each piece
 *     while ((st = stax_reader_next(r, &b)) == STAX_OK)
 *         if ((st = stax_select_batch(s, b)) != STAX_OK) break;
 *     stax_select_free(s);
 *
 * Matches come in document order, each as BEGIN, VALUE pieces and END; with
 * columns, as records. Errors, and STAX_END once the callback stopped it,
 * are sticky until stax_select_reset (a compile error for good). docs/api.md,
 * "Select: path queries", has the pieces, records and error rules;
 * docs/select.md the paths.
 */
typedef struct stax_select stax_select;

/* Select options. A zero field takes its default (in brackets). */
typedef struct stax_select_options {
    stax_alloc_fn alloc;   /* [realloc/free] allocator hook */
    void *alloc_ud;        /* passed to alloc */
    void *memory;          /* fixed block: if non-NULL, all memory comes from it */
    size_t memory_size;    /* its size in bytes (>= STAX_SELECT_MIN_MEMORY) */
    uint32_t max_depth;    /* [1024] element nesting followed (deeper: STAX_E_LIMIT_DEPTH) */
    size_t max_held;       /* [4 MiB] held output: the values of matches waiting for an earlier
                              one to end or for a candidate's predicates, records, what undecided
                              predicates keep, and their bookkeeping (STAX_E_LIMIT_HELD beyond) */
    size_t max_state;      /* [1 MiB] matching state of the open elements: the steps live at
                              each, position counters, namespace declarations in scope
                              (STAX_SELECT_XML) (STAX_E_LIMIT_STATE beyond) */
    size_t xml_memory;     /* [16 KiB] STAX_SELECT_XML: the fixed block of the writer of each
                              match being written (its element stack and a 1 KiB buffer); counts
                              toward max_held. At least STAX_WRITER_MIN_MEMORY + 2048. An element
                              nested deeper than it holds: STAX_E_LIMIT_XML_MEMORY */
    const stax_str *ns;    /* STAX_SELECT_NAMESPACES: prefix bindings for the paths, pairs
                              ns[2k] (prefix) and ns[2k+1] (URI), k < ns_count; read by
                              stax_select_compile, which keeps a copy of what it needs */
    size_t ns_count;
    stax_str join;         /* STAX_SELECT_ALL_MATCHES: the bytes between two matches of a column */
    unsigned flags;        /* STAX_SELECT_* */
} stax_select_options;

#define STAX_SELECT_NAMESPACES 0x1u /* names match by namespace URI and local part (XPath 1.0: an
                                       unprefixed name has no namespace); the batches must come
                                       from a reader with STAX_READ_NAMESPACES. Without it names
                                       match as written (prefix:name literally) */
#define STAX_SELECT_XML 0x2u        /* values are XML, written by the writer: an element with its
                                       subtree (and the namespace declarations in scope), an
                                       attribute as name="value", a text node escaped */
#define STAX_SELECT_NO_VALUES 0x4u  /* no values: each match is BEGIN then END at once (counting) */
#define STAX_SELECT_ALL_MATCHES 0x8u /* records: a column's value is every match of it in the record, in
                                        document order, joined by opt->join (not the first only) */

#define STAX_SELECT_MIN_MEMORY 8192u /* smallest fixed block stax_select_new accepts */

/* Fixed block (select): with opt->memory set every byte comes from it, zero
 * limits are sized from it, and once the paths compiled every failure is a
 * limit (docs/select.md, "Memory and limits"). */

/* The block size that options opt (zero fields: the allocator mode's
 * defaults; opt->memory and memory_size are not read) and paths of paths_len
 * bytes in all (the paths and the columns) need: a bound, about three times
 * max_state + max_held (buffers grow by doubling inside the block). 0 when
 * an option is out of range. */
STAXDEF size_t stax_select_memory_size(const stax_select_options *opt, size_t paths_len);

/* Whether stax_select_new(opt) can succeed: STAX_OK; STAX_E_USAGE when an
 * option is out of range; STAX_E_NOMEM when the fixed block is too small for
 * the options. *why (if not NULL) gets a static sentence saying which. */
STAXDEF int stax_select_check_options(const stax_select_options *opt, const char **why);

/* The options stax_select_new(opt) would use: *out gets *opt with every zero
 * field replaced by its default (in a fixed block, the block's). Returns what
 * stax_select_check_options returns; *out is filled only when that is STAX_OK. */
STAXDEF int stax_select_effective_options(const stax_select_options *opt, stax_select_options *out,
                                          const char **why);

/* Piece types, in the order a match gives them. */
enum {
    STAX_SELECT_BEGIN = 1, /* a match: kind, path, match */
    STAX_SELECT_VALUE = 2, /* the next bytes of its value (value); records: of the current column */
    STAX_SELECT_COLUMN = 3,/* records: column `column` starts (its VALUE pieces follow) */
    STAX_SELECT_END = 4    /* the value is complete */
};
/* What matched. */
enum { STAX_SELECT_ELEMENT = 1, STAX_SELECT_ATTRIBUTE = 2, STAX_SELECT_TEXT = 3 };

typedef struct stax_select_piece {
    int type;         /* STAX_SELECT_BEGIN, _VALUE, _COLUMN or _END */
    int kind;         /* STAX_SELECT_ELEMENT, _ATTRIBUTE or _TEXT */
    uint32_t path;    /* the first path of the union that matched this node (from 0) */
    uint32_t column;  /* records, COLUMN and VALUE: the column (from 0) */
    uint64_t match;   /* the match's number in document order among those given, from 0 */
    stax_str value;   /* VALUE: bytes (not NUL-terminated), valid during the call only */
    size_t event;     /* the index in the batch of the event being processed */
} stax_select_piece;

/* Called with each piece. Return 0 to go on; anything else stops the
 * selection (stax_select_event and _batch return STAX_END from then on).
 * It must not call the stax_select functions. */
typedef int (*stax_select_fn)(void *ctx, const stax_select_piece *p);

/* Create a select. opt may be NULL. Returns NULL when memory is insufficient
 * or an option is out of range (stax_select_check_options says which). */
STAXDEF stax_select *stax_select_new(const stax_select_options *opt);

/* Free it and everything it allocated (nothing, in fixed-block mode). */
STAXDEF void stax_select_free(stax_select *s);

/* Compile the paths (path|path|...) and, for records, the columns (relative
 * paths separated by commas; empty: no records). Once per select. STAX_OK, or
 * STAX_E_SYNTAX (malformed), STAX_E_UNSUPPORTED (outside the subset),
 * STAX_E_NAMESPACE (a prefix without a binding), STAX_E_NOMEM (also: a fixed
 * block too small for the paths), STAX_E_USAGE (compiled twice);
 * stax_select_message says what and where. */
STAXDEF int stax_select_compile(stax_select *s, stax_str paths, stax_str columns);

/* Where the pieces go (before the first event, or between two events: the
 * pieces after go there). fn NULL: nowhere (counting). */
STAXDEF int stax_select_set_output(stax_select *s, stax_select_fn fn, void *ctx);

/* Take event i of a batch. Every event of the document must be given, in
 * order, starting with the first batch. Returns STAX_OK, STAX_END once the
 * output callback stopped it, or an error (sticky; see the options). */
STAXDEF int stax_select_event(stax_select *s, const stax_batch *b, size_t i);

/* stax_select_event for every event of the batch. */
STAXDEF int stax_select_batch(stax_select *s, const stax_batch *b);

/* Forget the document (matches, held output, counts), keep the paths: ready
 * for the next document, as a new select would be (the buffers and the XML
 * values' writer blocks the document grew are given back: max_state and
 * max_held count them). Clears an error other than from compiling. */
STAXDEF void stax_select_reset(stax_select *s);

/* The sticky status (STAX_OK while none, STAX_END once stopped) and its message. */
STAXDEF int stax_select_status(const stax_select *s);
STAXDEF const char *stax_select_message(const stax_select *s);

/* The index in its batch of the last event taken: after stax_select_batch
 * returned an error or STAX_END, the event it happened at. */
STAXDEF size_t stax_select_event_index(const stax_select *s);

/* The number of paths in the union, and how many matches each had so far (a
 * node that several paths match counts for each; records count once they
 * begin). */
STAXDEF size_t stax_select_paths(const stax_select *s);
STAXDEF uint64_t stax_select_count(const stax_select *s, size_t path);

/* The number of columns, and column k as written in stax_select_compile's
 * second argument (without the whitespace around it; valid while s lives;
 * empty when there is no such column), for a header row. */
STAXDEF size_t stax_select_columns(const stax_select *s);
STAXDEF stax_str stax_select_column_text(const stax_select *s, size_t column);

/* Parts (one document on several threads, docs/parallel.md): the matching
 * state between two events, so that a select started from it in the middle
 * of a document goes on as the original would have. stax_select_save writes
 * it into buf[0, cap) and its length into *len: STAX_OK; with cap 0 (buf may
 * be NULL) only *len; with 0 < cap < that size nothing is written, *len is
 * the size and the result STAX_E_FULL; STAX_E_NOSAVE while a match is open
 * (its value or record not complete, or held) or a candidate's predicates
 * are undecided. Neither status is sticky;
 * the select is unchanged. The counts and match numbers are not part of it.
 * A state ends with the capacities of the select's buffers, which max_state
 * and max_held count and which grow (by doubling) with what it has read: its
 * last STAX_SELECT_STATE_TAIL bytes. Two selects with the same paths and
 * options in the same state write the same bytes before them, so comparing
 * those tells whether a guessed state was right.
 * stax_select_resume forgets the document (stax_select_reset) and takes
 * such a state: then give it the events that follow. It reaches max_state
 * and max_held at the event the saving select would have, with the same
 * message; with the tail's bytes all 0 it starts from a new select's
 * buffers instead. STAX_OK, or STAX_E_CONTEXT (sticky; a state from other
 * paths or options, truncated, corrupt, or over max_depth, max_state or
 * max_held); no byte of it is trusted. */
#define STAX_SELECT_STATE_TAIL 80u /* a state's last bytes: the capacities */
STAXDEF int stax_select_save(const stax_select *s, void *buf, size_t cap, size_t *len);
STAXDEF int stax_select_resume(stax_select *s, const void *buf, size_t len);
#endif /* STAX_NO_SELECT */

/* ---------------------------------------------------------------- writer */
#ifndef STAX_NO_WRITER
/* The writer turns calls into well-formed, escaped UTF-8, buffered and handed
 * to a sink in chunks of buffer_size bytes. docs/writer.md is the manual.
 *
 *     stax_writer *w = stax_writer_new(NULL);        // NULL: default options
 *     stax_writer_set_fd(w, 1);
 *     stax_writer_start_z(w, "greeting");
 *     stax_writer_attr_z(w, "lang", "en");
 *     stax_writer_text_z(w, "Hello & welcome");
 *     int st = stax_writer_finish(w);                // closes <greeting>, flushes
 *     stax_writer_free(w);
 *     // <greeting lang="en">Hello &amp; welcome</greeting>
 *
 *   A fragment (STAX_WRITE_FRAGMENT): any number of top-level nodes, such as
 *   the stanzas of an XMPP stream, each flushed when complete. Namespaces:
 *   stax_writer_start_ns / _attr_ns take a namespace name and a local name
 *   and declare only what is not in scope (stax_writer_inherit_ns gives the
 *   scope of a stream written elsewhere):
 *
 *     stax_writer_inherit_ns_z(w, "", "jabber:client");
 *     stax_writer_start_ns_z(w, "jabber:client", "message", NULL); // <message
 *     stax_writer_start_ns_z(w, "urn:xmpp:delay", "delay", NULL);  // <delay xmlns="urn:xmpp:delay"
 *
 * RETURNS  Every call returns STAX_OK, STAX_WOULD_BLOCK (see below) or a
 *   negative status, of two kinds:
 *   - Refusals, NOT sticky: STAX_E_STATE (out of order), STAX_E_INVALID (bad
 *     name or content), STAX_E_DUP_ATTR, STAX_E_ENCODING / STAX_E_CHAR (bad
 *     UTF-8, a non-Char code point), STAX_E_LIMIT_STACK (the element stack
 *     would pass stack_size, or what the fixed block holds), STAX_E_NOMEM (the
 *     allocator could not grow the stack), STAX_E_USAGE (a bad argument, such
 *     as a string {NULL, len > 0}, or a repeated call that differs from the
 *     blocked one). A refused call changes nothing: not one byte of output,
 *     not the state, not stax_writer_memory_peak; the writer goes on and the
 *     next call is judged on its own. With STAX_WRITE_STICKY every refusal is
 *     sticky instead.
 *   - Sticky errors: what a sink returns (STAX_E_IO, STAX_E_FULL, STAX_E_NOMEM
 *     from the growable memory sink, any negative status of a callback) and
 *     STAX_E_INTERNAL. From then on every call returns it (the sink setters
 *     too), and so do flush and finish (which hand the sink nothing more).
 *   stax_writer_first_error gives the first error of either kind;
 *   stax_writer_message says why the last call that did not return STAX_OK
 *   returned what it did.
 *
 * RETRY RULE (non-blocking sinks)  STAX_WOULD_BLOCK: the sink took less
 *   than offered and the call stopped part way, losing nothing. When the sink
 *   can take more, repeat THE SAME CALL WITH THE SAME ARGUMENTS; until it
 *   returns STAX_OK only stax_writer_flush and stax_writer_free are allowed.
 *   Every output call follows the rule, stax_writer_element and its number
 *   forms included (one call each, completed once). docs/writer.md,
 *   "Non-blocking output and the retry rule", has the rule.
 */
typedef struct stax_writer stax_writer;

/* Sink: take up to len bytes (len > 0). Return how many were taken, 0..len
 * (less than len means "would block": the writer keeps the rest and offers it
 * again later), or a negative status (use STAX_E_IO), which becomes sticky. */
typedef ptrdiff_t (*stax_write_fn)(void *ctx, const void *data, size_t len);

/* Writer options. A zero field takes its default (in brackets).
 * stax_writer_check_options says whether (and why not) they are usable. */
typedef struct stax_writer_options {
    stax_alloc_fn alloc;   /* [realloc/free] allocator hook */
    void *alloc_ud;        /* passed to alloc */
    void *memory;          /* fixed block: if non-NULL, all memory comes from it and
                              malloc is never called; see stax_writer_memory_size */
    size_t memory_size;    /* its size in bytes */
    size_t buffer_size;    /* [64 KiB; in a fixed block: what the block holds, at most
                              64 KiB] output buffer; the sink gets chunks of this size.
                              At least STAX_WRITER_MIN_BUFFER */
    size_t stack_size;     /* [no limit; in a fixed block: all the block leaves] bytes of
                              the element stack (rounded down to a multiple of 8, at least
                              64): each open element takes its name's length + 8, each
                              attribute of the open start tag its name's length + 8.
                              A start or attribute that would pass it: STAX_E_LIMIT_STACK */
    const char *indent;    /* [NULL: no indentation] string written once per level
                              (spaces and tabs only, at most 64 bytes) */
    unsigned indent_width; /* used when indent is NULL: that many spaces (<= 64) */
    unsigned flags;        /* STAX_WRITE_* */
    size_t ns_size;        /* [64 KiB; in a fixed block: 0, none] bytes for the namespace bindings
                              in scope (declared on the open elements, or inherited): each takes
                              its prefix's and URI's lengths + 16. A declaration that would pass
                              it: STAX_E_LIMIT_NS. A fixed block gives them ns_size bytes of its
                              own; without it the namespace-aware calls are refused */
} stax_writer_options;

#define STAX_WRITE_SELF_CLOSE 0x1u /* an element with no content is written <a/> (default <a></a>) */
#define STAX_WRITE_BACKGROUND 0x2u /* a background thread calls the sink with full buffers while the
                                      writer fills a second one (2 x buffer_size). The sink must be
                                      blocking; it is called from that thread. It pays with a sink that
                                      works on the bytes (compressing, encrypting) and 1 MiB buffers;
                                      with 4 or 64 KiB buffers, or a plain file or pipe, writing inline
                                      was as fast or faster (docs/writer.md). Not in STAX_NO_THREADS builds
                                      (stax_writer_check_options: STAX_E_USAGE) */
#define STAX_WRITE_STICKY 0x4u     /* a refused call (a negative status) stops the writer: every later
                                      call, finish included, returns that status. It still writes
                                      nothing itself. Without it the writer goes on after a refusal */
#define STAX_WRITE_FRAGMENT 0x8u   /* a fragment, not a document: any number of top-level elements,
                                      text (escaped), CDATA, comments and PIs, in any order; no DOCTYPE;
                                      finish accepts zero or several top-level elements. Each element
                                      is still well-formed inside (an XMPP stanza, a record of a log) */

#define STAX_WRITER_MIN_BUFFER 64u   /* smallest buffer_size */
#define STAX_WRITER_MIN_MEMORY 1088u /* a fixed block of this + the buffer(s) always works, with an
                                        element stack of at least 256 bytes;
                                        stax_writer_memory_size gives the exact need */

/* Whether stax_writer_new would accept opt (NULL: defaults): STAX_OK;
 * STAX_E_USAGE when an option is out of range; STAX_E_NOMEM when the fixed
 * block is too small for the options. *why (if why is not NULL) receives a
 * fixed English sentence saying which ("" for STAX_OK). */
STAXDEF int stax_writer_check_options(const stax_writer_options *opt, const char **why);

/* The fixed block opt needs (zero sizes counted as a 64 KiB buffer and a
 * 256-byte stack; opt->memory and memory_size not read); 0 when an option is
 * out of range. docs/writer.md, "Fixed memory", has the sizes and rules. */
STAXDEF size_t stax_writer_memory_size(const stax_writer_options *opt);

/* The options stax_writer_new(opt) would write with (the buffer and stack
 * sizes it gets) in *out, when stax_writer_check_options returns STAX_OK. */
STAXDEF int stax_writer_effective_options(const stax_writer_options *opt, stax_writer_options *out,
                                          const char **why);

/* Create a writer (its sink must be set before the first output call). opt may
 * be NULL. Returns NULL exactly when stax_writer_check_options(opt) fails or
 * the allocator does. */
STAXDEF stax_writer *stax_writer_new(const stax_writer_options *opt);

/* Free the writer and its memory. Does not flush: call stax_writer_finish first.
 * With STAX_WRITE_BACKGROUND it waits for the chunk being written. */
STAXDEF void stax_writer_free(stax_writer *w);

/* Sinks. Set one, once, before the first output call (an output call
 * without one, or a second sink: STAX_E_USAGE).
 * - set_sink: the callback above.
 * - set_fd: write(2); a non-blocking fd gives STAX_WOULD_BLOCK on EAGAIN.
 * - set_file: fwrite; stax_writer_flush also fflush()es the FILE.
 * - set_memory(buf, cap): the output goes to buf; when it would pass cap bytes
 *   the writer fills buf to cap and fails with STAX_E_FULL (sticky).
 *   set_memory(NULL, 0): a growable buffer from the writer's allocator (not in
 *   fixed-block mode: STAX_E_USAGE); stax_writer_memory returns it. */
STAXDEF int stax_writer_set_sink(stax_writer *w, stax_write_fn fn, void *ctx);
#ifndef STAX_NO_STDIO
STAXDEF int stax_writer_set_fd(stax_writer *w, int fd);
STAXDEF int stax_writer_set_file(stax_writer *w, FILE *f);
#endif
STAXDEF int stax_writer_set_memory(stax_writer *w, void *buf, size_t cap);

/* The bytes the memory sink holds (everything flushed so far). Valid until the
 * next call on the writer. Empty for other sinks. */
STAXDEF stax_str stax_writer_memory(const stax_writer *w);

/* <?xml version="1.0" encoding="UTF-8" standalone="yes"?>. Only as the very
 * first output. version: empty for "1.0", else "1." and digits. encoding:
 * empty to omit, else "UTF-8" (any case; the output is always UTF-8).
 * standalone: 0 to omit, STAX_EVF_STANDALONE_YES or STAX_EVF_STANDALONE_NO. */
STAXDEF int stax_writer_xml_decl(stax_writer *w, stax_str version, stax_str encoding, unsigned standalone);

/* <!DOCTYPE name PUBLIC "pubid" "sysid" [subset]>. Before the root, once.
 * pubid needs sysid; pubid must be PubidChars; sysid may not hold both quote
 * kinds. subset (empty to omit) is written as given after a UTF-8/Char check:
 * like stax_writer_raw, its markup is the caller's responsibility. */
STAXDEF int stax_writer_doctype(stax_writer *w, stax_str name, stax_str pubid, stax_str sysid, stax_str subset);

/* Start an element (the root, or a child of the open element). The start tag
 * stays open for attributes until the next content call. */
STAXDEF int stax_writer_start(stax_writer *w, stax_str name);

/* An attribute of the start tag just begun. value: & < " TAB LF CR are written
 * as references, so a reader gets exactly value back. */
STAXDEF int stax_writer_attr(stax_writer *w, stax_str name, stax_str value);

/* A namespace declaration on the start tag just begun: xmlns="uri" for an
 * empty prefix, else xmlns:prefix="uri" (prefix an NCName, not "xmlns"; "xml"
 * only with its own URI; uri not empty). No namespace bookkeeping is done. */
STAXDEF int stax_writer_ns(stax_writer *w, stax_str prefix, stax_str uri);

#ifndef STAX_NO_WRITER_NS
/* NAMESPACE-AWARE CALLS (not in STAX_NO_WRITER_NS builds)  The writer keeps the bindings in scope: those
 * declared on the open elements (by these calls, stax_writer_ns or an xmlns
 * attribute) and those given by stax_writer_inherit_ns. */

/* Start an element named local in the namespace uri ({NULL, 0} or "": none),
 * prefix a hint ({NULL, 0}: none). A binding in scope for uri is used as it
 * is (the hint's, else the default namespace, else the newest prefix bound
 * to uri): nothing is declared. Else the element declares the hint, or the
 * default namespace without one: <p:local xmlns:p="uri">, <local xmlns="uri">.
 * No namespace under a default one writes <local xmlns="">. Refused:
 * STAX_E_INVALID (local not an NCName, a prefix for no namespace, the xml and
 * xmlns rules), STAX_E_LIMIT_NS (ns_size), and what stax_writer_start refuses. */
STAXDEF int stax_writer_start_ns(stax_writer *w, stax_str uri, stax_str local, stax_str prefix);

/* An attribute named local in the namespace uri on the open start tag.
 * Namespaced, it takes a prefix: the hint if bound to uri, else one in scope
 * for uri, else it declares the hint if that is bound to nothing here, else
 * the first of ns1, ns2, ... bound to nothing (xmlns:ns1="uri" ns1:local="v").
 * No namespace: the plain name. Refusals as stax_writer_start_ns and
 * stax_writer_attr. */
STAXDEF int stax_writer_attr_ns(stax_writer *w, stax_str uri, stax_str local, stax_str prefix, stax_str value);

/* Bind prefix ("" the default namespace) to uri as if an enclosing element
 * written elsewhere declared it (an XMPP stream's jabber:client): nothing is
 * written, the namespace-aware calls use it. Only before the first element
 * opens (STAX_E_STATE after); the rules of stax_writer_ns. */
STAXDEF int stax_writer_inherit_ns(stax_writer *w, stax_str prefix, stax_str uri);
#endif

/* Character data inside the root (& < > CR escaped). Outside the root only
 * spaces, tabs and LFs are allowed (written as they are). An empty text marks
 * the element as mixed content: no indentation is added inside it. */
STAXDEF int stax_writer_text(stax_writer *w, stax_str text);

/* <![CDATA[text]]> inside the root; "]]>" in text is split across two sections. */
STAXDEF int stax_writer_cdata(stax_writer *w, stax_str text);

/* <!--text-->: text may not contain "--" nor end with '-'. Anywhere. */
STAXDEF int stax_writer_comment(stax_writer *w, stax_str text);

/* <?target data?>: target a Name other than xml (any case); data may not
 * contain "?>"; empty data writes <?target?>. Anywhere. */
STAXDEF int stax_writer_pi(stax_writer *w, stax_str target, stax_str data);

/* End the innermost open element (its name is remembered). */
STAXDEF int stax_writer_end(stax_writer *w);

/* A whole element with text content, <name>text</name>: the same bytes and
 * the same result as stax_writer_start, stax_writer_text and stax_writer_end
 * in a row, in one call (faster: one check of the state, one buffer write).
 * A refused name or text, or a call out of order, writes nothing; a sink
 * error part-way keeps what was written before it. On a non-blocking sink it
 * is one call under the retry rule: after STAX_WOULD_BLOCK repeat it with the
 * same name and text, and it completes once. */
STAXDEF int stax_writer_element(stax_writer *w, stax_str name, stax_str text);

/* Bytes written exactly as given, unchecked, where the writer stands (closing
 * an open start tag first). Well-formedness is the caller's responsibility. */
STAXDEF int stax_writer_raw(stax_writer *w, stax_str bytes);

/* Hand everything buffered to the sink. STAX_OK when all was taken, else
 * STAX_WOULD_BLOCK (call again later). An open start tag stays open. */
STAXDEF int stax_writer_flush(stax_writer *w);

/* Close every open element, then flush. STAX_E_STATE if no root was started.
 * After STAX_OK the writer accepts no more output calls. */
STAXDEF int stax_writer_finish(stax_writer *w);

/* Numbers, exact and without snprintf: the decimal form of v (a '-' first
 * when negative), as an attribute value or as text, with the rules (and the
 * retry rule) of stax_writer_attr and stax_writer_text. _dec writes v / 10^frac
 * with exactly frac digits after the point (0..19; more: STAX_E_USAGE):
 * (1999, 2) gives 19.99, (-5, 3) -0.005, (7, 0) 7. */
STAXDEF int stax_writer_attr_int(stax_writer *w, stax_str name, int64_t v);
STAXDEF int stax_writer_attr_uint(stax_writer *w, stax_str name, uint64_t v);
STAXDEF int stax_writer_attr_dec(stax_writer *w, stax_str name, int64_t v, unsigned frac);
STAXDEF int stax_writer_text_int(stax_writer *w, int64_t v);
STAXDEF int stax_writer_text_uint(stax_writer *w, uint64_t v);
STAXDEF int stax_writer_text_dec(stax_writer *w, int64_t v, unsigned frac);

/* <name>v</name> in one call: stax_writer_element with the number as its
 * text (the same digits as stax_writer_text_int / _uint / _dec), with its
 * rules (after STAX_WOULD_BLOCK: repeat it with the same name and value). */
STAXDEF int stax_writer_element_int(stax_writer *w, stax_str name, int64_t v);
STAXDEF int stax_writer_element_uint(stax_writer *w, stax_str name, uint64_t v);
STAXDEF int stax_writer_element_dec(stax_writer *w, stax_str name, int64_t v, unsigned frac);

/* The sticky error, or STAX_OK: a sink error (STAX_E_IO, STAX_E_FULL, STAX_E_NOMEM
 * from the growable memory sink), STAX_E_INTERNAL, or with STAX_WRITE_STICKY
 * the first refused call's status. */
STAXDEF int stax_writer_status(const stax_writer *w);

/* The first negative status any call on w returned (sticky or not), or STAX_OK. */
STAXDEF int stax_writer_first_error(const stax_writer *w);

/* Why the last call that did not return STAX_OK returned what it did, in
 * English: a refusal names the call and the reason ("stax_writer_attr: the
 * attribute is already on this start tag", "stax_writer_start: no sink set:
 * ..."), STAX_WOULD_BLOCK says so, a sink error says what failed ("write to fd
 * 3 failed (errno 32)"). A sticky error keeps its message for every call that
 * returns it. "" while every call returned STAX_OK. */
STAXDEF const char *stax_writer_message(const stax_writer *w);

/* The errno of the sink error in stax_writer_status (write(2) for set_fd,
 * fwrite/fflush for set_file), or 0 (no error, or one without an errno). The
 * message gives it as a number: the library never calls strerror. */
STAXDEF int stax_writer_errno(const stax_writer *w);

/* Open elements (0 outside the root). */
STAXDEF uint32_t stax_writer_depth(const stax_writer *w);

/* Bytes the sink has taken so far. */
STAXDEF uint64_t stax_writer_bytes_out(const stax_writer *w);

/* Bytes the writer has produced so far: those the sink took, those in the
 * buffer(s), and those of a call that returned STAX_WOULD_BLOCK. Equal to
 * stax_writer_bytes_out after flush or finish returned STAX_OK. */
STAXDEF uint64_t stax_writer_bytes_produced(const stax_writer *w);

/* Free bytes of the element stack (before it must grow, with an allocator
 * and no stack_size). */
STAXDEF size_t stax_writer_stack_room(const stax_writer *w);

/* The high-water mark, as a block size: the smallest memory_size in which
 * this writer's calls would have run the same (docs/writer.md, "Fixed
 * memory"), its growable memory sink not counted. A refused call never
 * raises it (in that block a refused attribute may be refused for the stack,
 * STAX_E_LIMIT_STACK, instead of for its value). */
STAXDEF size_t stax_writer_memory_peak(const stax_writer *w);

#endif /* STAX_NO_WRITER */

/* NUL-terminated convenience forms (NULL counts as ""). */
static inline stax_str stax_strz(const char *z) {
    stax_str s;
    size_t n = 0;
    if (z)
        while (z[n]) n++;
    s.ptr = z;
    s.len = n;
    return s;
}
#ifndef STAX_NO_WRITER
static inline int stax_writer_start_z(stax_writer *w, const char *name) {
    return stax_writer_start(w, stax_strz(name));
}
static inline int stax_writer_attr_z(stax_writer *w, const char *name, const char *value) {
    return stax_writer_attr(w, stax_strz(name), stax_strz(value));
}
static inline int stax_writer_ns_z(stax_writer *w, const char *prefix, const char *uri) {
    return stax_writer_ns(w, stax_strz(prefix), stax_strz(uri));
}
#ifndef STAX_NO_WRITER_NS
static inline int stax_writer_start_ns_z(stax_writer *w, const char *uri, const char *local, const char *prefix) {
    return stax_writer_start_ns(w, stax_strz(uri), stax_strz(local), stax_strz(prefix));
}
static inline int stax_writer_attr_ns_z(stax_writer *w, const char *uri, const char *local, const char *prefix,
                                        const char *value) {
    return stax_writer_attr_ns(w, stax_strz(uri), stax_strz(local), stax_strz(prefix), stax_strz(value));
}
static inline int stax_writer_inherit_ns_z(stax_writer *w, const char *prefix, const char *uri) {
    return stax_writer_inherit_ns(w, stax_strz(prefix), stax_strz(uri));
}
#endif
static inline int stax_writer_text_z(stax_writer *w, const char *text) {
    return stax_writer_text(w, stax_strz(text));
}
static inline int stax_writer_cdata_z(stax_writer *w, const char *text) {
    return stax_writer_cdata(w, stax_strz(text));
}
static inline int stax_writer_comment_z(stax_writer *w, const char *text) {
    return stax_writer_comment(w, stax_strz(text));
}
static inline int stax_writer_pi_z(stax_writer *w, const char *target, const char *data) {
    return stax_writer_pi(w, stax_strz(target), stax_strz(data));
}
static inline int stax_writer_raw_z(stax_writer *w, const char *bytes) {
    return stax_writer_raw(w, stax_strz(bytes));
}
static inline int stax_writer_element_z(stax_writer *w, const char *name, const char *text) {
    return stax_writer_element(w, stax_strz(name), stax_strz(text));
}
static inline int stax_writer_attr_int_z(stax_writer *w, const char *name, int64_t v) {
    return stax_writer_attr_int(w, stax_strz(name), v);
}
static inline int stax_writer_attr_uint_z(stax_writer *w, const char *name, uint64_t v) {
    return stax_writer_attr_uint(w, stax_strz(name), v);
}
static inline int stax_writer_attr_dec_z(stax_writer *w, const char *name, int64_t v, unsigned frac) {
    return stax_writer_attr_dec(w, stax_strz(name), v, frac);
}
static inline int stax_writer_element_int_z(stax_writer *w, const char *name, int64_t v) {
    return stax_writer_element_int(w, stax_strz(name), v);
}
static inline int stax_writer_element_uint_z(stax_writer *w, const char *name, uint64_t v) {
    return stax_writer_element_uint(w, stax_strz(name), v);
}
static inline int stax_writer_element_dec_z(stax_writer *w, const char *name, int64_t v, unsigned frac) {
    return stax_writer_element_dec(w, stax_strz(name), v, frac);
}

#endif /* STAX_NO_WRITER */

#ifdef __cplusplus
}
#endif
#endif /* STAX_H */
