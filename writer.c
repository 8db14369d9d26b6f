/* Writer: calls in, well-formed escaped UTF-8 out, buffered and handed to a
 * sink in buffer-sized chunks; non-blocking sinks resume without loss.
 *
 * HOW A CALL IS WRITTEN
 * Every output call checks its state and arguments, then describes its output
 * once, as a short list of pieces (literal bytes, text to escape, an
 * indentation), and one executor writes the list: w_fast, its fast case, when
 * no call is being resumed and the worst case of the whole call fits in the
 * free buffer (one reservation, no room check per piece); else w_run, which
 * checks room per piece and can stop and resume. That split gives four
 * properties at once:
 * - A refused call writes nothing: when the worst-case output fits in the free
 *   part of the buffer, validation happens while escaping and a bad byte just
 *   rolls the buffer back (nothing of the call reached the sink); otherwise the
 *   strings are validated in a first pass, before a byte is written.
 * - Resumable: the output of a call is a pure function of its arguments and of
 *   the writer state, which only changes when the call completes. When the sink
 *   blocks, w_run records (piece, input offset, bytes of the current escape
 *   unit already written); the repeated call rebuilds the same pieces and
 *   continues at that point, so nothing is lost or written twice, and no part
 *   is rescanned (a 1 GiB text resumed a thousand times stays linear).
 * - Fast: the hot calls inline w_fast, so that their constant pieces fold
 *   away; runs of bytes that need no escaping are found 16 bytes at a time and
 *   copied as they are.
 * - Said once: the fast case and the resumable path run the same list, so
 *   they write the same bytes (the async tests compare them).
 *
 * WRITES INTO WRITER MEMORY
 * The output buffer(s), the element stack and the memory sinks are written
 * only through stax__out windows (stax_internal.h) or reservations checked in
 * code: stax__out_put for w_run and the memory sinks; for the fast case
 * (w_fast), a reservation (w_fast_begin) of the call's worst case plus
 * W_OVERSTORE bytes, checked once per call, inside which the fast escaper
 * stores whole 16-byte blocks (each store within 16 bytes before and 32 after
 * the output position, which only moves forward), and w_fast_end checks that
 * the call ended W_OVERSTORE bytes before the reservation's end; for the
 * element stack, one checked reservation per push (w_push); the two moves
 * inside a buffer (w_make_room, the stack's resize) check their bounds first.
 * A check that fails although the reservation was sized to be enough is a
 * bug: STAX_E_INTERNAL (sticky), after STAX__INTERNAL_HIT().
 */
#include "scan.h" /* the SIMD switch and ctz helper of the escaper */

#include <errno.h>
#include <stdio.h> /* FILE: the FILE* sink field exists in every build */
#include <stdlib.h>
#ifndef STAX_NO_STDIO
#include <unistd.h>
#endif
#ifndef STAX_NO_THREADS
#include <pthread.h>
#include <sched.h>
#endif

#ifndef STAX_NO_WRITER
#define W_DEFAULT_BUFFER 65536u
#define W_MAX_INDENT 64u
#define W_MAX_PIECES 16 /* the most a call describes (doctype: 14) */
#define W_STACK_INITIAL 256u /* first allocation of the stack; what memory_size counts for stack_size 0 */
#define W_MIN_STACK 64u      /* the smallest stack_size */
#define W_STACK_UNLIMITED (SIZE_MAX / 8 * 8) /* stack_max without stack_size: a multiple of sizeof(w_rec) */
#define W_ALIGN 16u
/* Bytes past the end of the fast case's exact output that it may store into
 * (whole 16-byte blocks, two at a time, and 8-byte escapes, trimmed
 * afterwards): part of every fast-path reservation, inside the buffer. */
#define W_OVERSTORE 32u

#if defined(__GNUC__) || defined(__clang__)
#define W_ALWAYS_INLINE static inline __attribute__((always_inline))
#define W_COLD __attribute__((cold, noinline))
#define W_NOINLINE __attribute__((noinline))
#else
#define W_NOINLINE
#define W_ALWAYS_INLINE static inline
#define W_COLD
#endif

/* Calls, as recorded for the retry rule and named in messages. */
enum {
    W_CALL_NONE,
    W_CALL_DECL,
    W_CALL_DOCTYPE,
    W_CALL_START,
    W_CALL_ATTR,
    W_CALL_NS,
    W_CALL_TEXT,
    W_CALL_CDATA,
    W_CALL_COMMENT,
    W_CALL_PI,
    W_CALL_END,
    W_CALL_RAW,
    W_CALL_ATTR_NUM,    /* stax_writer_attr_int / _uint / _dec */
    W_CALL_TEXT_NUM,    /* stax_writer_text_int / _uint / _dec */
    W_CALL_ELEMENT,
    W_CALL_ELEMENT_NUM, /* stax_writer_element_int / _uint / _dec */
    W_CALL_FLUSH,       /* the rest only name a call in messages */
    W_CALL_FINISH,
    W_CALL_SINK,
    W_CALL_SET_FD,
    W_CALL_SET_FILE,
    W_CALL_SET_MEMORY,
    W_CALL_ATTR_INT, /* the number calls one by one */
    W_CALL_ATTR_UINT,
    W_CALL_ATTR_DEC,
    W_CALL_TEXT_INT,
    W_CALL_TEXT_UINT,
    W_CALL_TEXT_DEC,
    W_CALL_ELEMENT_INT,
    W_CALL_ELEMENT_UINT,
    W_CALL_ELEMENT_DEC,
    W_CALL_START_NS, /* the namespace-aware calls */
    W_CALL_ATTR_NS,
    W_CALL_INHERIT_NS
};

static const char *const w_call_names[] = {
    "", "xml_decl", "doctype", "start", "attr", "ns", "text", "cdata", "comment", "pi", "end", "raw",
    "attr_int/_uint/_dec", "text_int/_uint/_dec", "element", "element_int/_uint/_dec",
    "flush", "finish", "set_sink", "set_fd", "set_file", "set_memory",
    "attr_int", "attr_uint", "attr_dec", "text_int", "text_uint", "text_dec",
    "element_int", "element_uint", "element_dec", "start_ns", "attr_ns", "inherit_ns",
};
typedef char w_call_names_one_per_call[sizeof w_call_names / sizeof w_call_names[0] == W_CALL_INHERIT_NS + 1 ? 1
                                                                                                              : -1];

/* Piece kinds. */
enum {
    W_P_RAW,    /* bytes as they are (markup, checked names) */
    W_P_CHARS,  /* bytes as they are, but checked to be UTF-8 Chars */
    W_P_TEXT,   /* character data: & < > CR escaped */
    W_P_ATTR,   /* attribute value: & < " TAB LF CR escaped */
    W_P_CDATA,  /* CDATA content: "]]>" and CR split out of the section */
    W_P_INDENT, /* "\n" and n copies of the indent string */
    W_P_BYTE,   /* p[0], written when n is 1 (n is 0 or 1): a markup byte that may be left out */
    W_P_DIGITS  /* a number call's digits as they are: n <= 32, and 32 bytes readable at p */
};


typedef struct w_piece {
    int kind;
    const char *p; /* for W_P_INDENT: NULL when there is no indentation */
    size_t n;      /* bytes; for W_P_INDENT the number of indent copies */
} w_piece;

static inline w_piece w_pc(int kind, const char *p, size_t n) {
    w_piece x;
    x.kind = kind;
    x.p = p;
    x.n = n;
    return x;
}

typedef struct w_call {
    int np;
    int over; /* w_add found the list full: a bug, refused as STAX_E_INTERNAL by w_run */
    w_piece pc[W_MAX_PIECES];
} w_call;

static void w_init(w_call *c) {
    c->np = 0;
    c->over = 0;
}

/* One entry of the element stack: an open element (info: W_EL_* flags) or an
 * attribute of the open start tag (info: hash of its name). The names
 * themselves are stored back to back at the bottom of the same area. */
typedef struct w_rec {
    uint32_t len;
    uint32_t info;
} w_rec;

#define W_EL_MIXED 0x1u  /* text was written here (or in an ancestor): never indent inside */
#define W_EL_MARKUP 0x2u /* a child element, comment or PI was written: indent the end tag */

enum { W_SINK_NONE, W_SINK_FN, W_SINK_FD, W_SINK_FILE, W_SINK_MEM_FIXED, W_SINK_MEM_GROW };

#ifndef STAX_NO_THREADS
/* STAX_WRITE_BACKGROUND: the thread writes buf[0..len) while the writer
 * fills its own buffer; the two are swapped on every hand-over. Only writers
 * with the flag have one (carved from the block, or allocated). */
typedef struct w_bg {
    unsigned char *buf;
    size_t len;
    int busy, quit, status, running;
    int err_no;    /* errno of a failed write (set with status) */
    stax_write_fn fn; /* the sink, as set when the thread started */
    void *ctx;
    ptrdiff_t took; /* what the failing sink call returned, and was offered */
    size_t offered;
    uint64_t done; /* bytes the sink took */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} w_bg;
#else
typedef struct w_bg {
    unsigned char *buf;
} w_bg;
#endif

struct stax_writer {
    stax__mem mem;
    int fixed; /* carved from the caller's block: nothing is ever freed or grown */

    /* output buffer: bytes [start, out.len) are waiting for the sink */
    stax__buf out;
    size_t start;
    uint64_t moved; /* bytes that left the buffer (taken by the sink, or handed to the thread) */

    /* sink */
    int sink;
    uint32_t attr_bloom; /* a bit per attribute of the open start tag (w_bloom): most names need no search */
    stax_write_fn fn;
    void *ctx;
    int fd;
    FILE *file;
    stax__buf msink; /* the memory sinks: the caller's buffer, or the growable one */
    uint64_t bytes_out;
    int sink_errno; /* the fd and FILE* sinks' errno when they fail (on the thread, if there is one) */

    /* The error state. After a sink error or STAX_E_INTERNAL, fn is NULL:
     * the sink gets nothing more. */
    struct {
        int status; /* sticky: a sink error, STAX_E_INTERNAL, or with STAX_WRITE_STICKY the first refusal */
        int first;  /* the first negative status a call returned */
        stax__err e; /* what stax_writer_message describes: the status the last call that did not
                        return STAX_OK returned (code), with the sink's errno; set by w_fail alone */
        char msg[94]; /* where e.msg points */
        /* a sticky refusal (STAX_WRITE_STICKY): its call and reason (w_reasons index + 1, or 0),
           to describe it again after a STAX_WOULD_BLOCK of flush or finish replaced its message */
        unsigned char sticky_call, sticky_why;
    } err;
    int gate; /* nonzero when a call must take w_begin's slow checks: a summary of err.status,
                 the sink, rs_call and the finish state (see w_regate) */

    /* options */
    unsigned flags;
    size_t indent_len;
    int indenting;

    /* document state */
    uint32_t depth;
    uint32_t nattrs;         /* attributes of the open start tag */
    size_t attr_names_len;   /* their name bytes */
    unsigned char started;   /* something was written (no XML declaration any more) */
    unsigned char doctype_done, root_done, tag_open, finished, in_finish;
    unsigned char top_mixed; /* STAX_WRITE_FRAGMENT: text was written at the top level: never indent there */
    unsigned char ns_block;  /* the namespace area is the ns_size option's (memory_peak counts it) */

    /* element stack: names grow up from stack, w_rec entries down from its end */
    unsigned char *stack;
    size_t stack_cap, names_len;
    size_t stack_max;  /* the most it may hold (stack_size, what the block gives, or W_STACK_UNLIMITED);
                          a multiple of sizeof(w_rec), like stack_cap */
    size_t stack_peak; /* the most it held (<= stack_cap), counted when an entry is pushed: a call
                          refused after w_reserve never raises it */
    size_t stack_opt;  /* the stack_size option as given (for the limit's message) */

    /* namespace bindings in scope (w_bind): strings grow up from ns, entries
       down from its end; ns_max 0: none are kept (a fixed block without ns_size) */
    unsigned char *ns;
    uint32_t ns_cap, ns_len, ns_max, ns_n; /* ns_max <= W_NS_MAX */

    /* where a call that returned STAX_WOULD_BLOCK stopped */
    int rs_call;
    uint64_t rs_sig;
    int rs_piece;
    size_t rs_in, rs_unit;

    w_bg *bg; /* STAX_WRITE_BACKGROUND only */

    /* With indentation only, W_NL_RUN bytes after the struct (w_nl_run):
     * "\n", then the indent string repeated (the first copy, at + 1, is the
     * indent string itself): one copy writes a newline and the usual
     * indentation. (Not a flexible array member, which C++ has not.) */
};

static inline char *w_nl_run(const stax_writer *w) { return (char *)(uintptr_t)(w + 1); }

#define W_NL_RUN (1 + W_MAX_INDENT + 15)

/* The escaper's tables. A byte class per piece kind says what each byte
 * needs: 0 copied as it is; 1..7 and W_F_CDATA_CR replaced by w_esc[code];
 * W_F_HIGH the start of a UTF-8 sequence to check; W_F_BAD not a Char
 * (refused); W_F_BRACKET ']' in CDATA, which may start "]]>" (replaced by
 * w_esc[W_F_BRACKET] when it does). */
enum { W_F_HIGH = 8, W_F_BAD = 9, W_F_BRACKET = 10, W_F_CDATA_CR = 11 };

/* Each escape, and its length. Entries are at least 8 bytes: the fast
 * escaper copies 8 and keeps the length. CDATA cannot hold a reference, and a
 * raw CR would come back as LF: a CR there closes the section around "&#13;";
 * "]]>" ends a section, so it is closed between "]]" and ">". */
static const char w_esc[12][18] = {"", "&amp;", "&lt;", "&gt;", "&quot;", "&#9;", "&#10;", "&#13;",
                                   "", "", "]]]]><![CDATA[>", "]]>&#13;<![CDATA["};
static const unsigned char w_esc_len[12] = {0, 5, 4, 4, 6, 4, 5, 5, 0, 0, 15, 17};

#define W_F_BAD8 W_F_BAD, W_F_BAD, W_F_BAD, W_F_BAD, W_F_BAD, W_F_BAD, W_F_BAD, W_F_BAD
#define W_F_H16 W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, \
                W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH, W_F_HIGH
#define W_F_Z16 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
/* A class table from the codes of its eight special bytes; other controls
 * are W_F_BAD, bytes from 0x80 W_F_HIGH. */
#define W_CLASSES(tab, lf, cr, quot, amp, lt, gt, rbracket)                                              \
    W_F_BAD8, W_F_BAD, tab, lf, W_F_BAD, W_F_BAD, cr, W_F_BAD, W_F_BAD, W_F_BAD8, W_F_BAD8,              \
    0, 0, quot, 0, 0, 0, amp, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, lt, 0, gt, 0, \
    W_F_Z16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, rbracket, 0, 0, W_F_Z16, W_F_Z16,                    \
    W_F_H16, W_F_H16, W_F_H16, W_F_H16, W_F_H16, W_F_H16, W_F_H16, W_F_H16

/* Checked characters (comments, PIs): TAB LF CR kept, no escapes. */
static const unsigned char w_class_chars[256] = {W_CLASSES(0, 0, 0, 0, 0, 0, 0, 0)};
/* Text: & < > CR escaped, TAB LF kept. */
static const unsigned char w_class_text[256] = {W_CLASSES(0, 0, 7, 0, 1, 2, 3, 0)};
/* Attribute values: & < " TAB LF CR escaped. */
static const unsigned char w_class_attr[256] = {W_CLASSES(5, 6, 7, 4, 1, 2, 0, 0)};
/* CDATA content: CR and "]]>" split out of the section. */
static const unsigned char w_class_cdata[256] = {W_CLASSES(0, 0, W_F_CDATA_CR, 0, 0, 0, 0, W_F_BRACKET)};

static const unsigned char *const w_classes[] = {
    w_class_chars, w_class_chars, w_class_text, w_class_attr, w_class_cdata, w_class_chars,
};

/* The most output bytes one input byte can turn into, per piece kind: "&quot;"
 * for 1 byte in an attribute, "]]>&#13;<![CDATA[" for a CR in CDATA. */
static const size_t w_expansion[] = {1, 1, 5, 6, 17, 1, 1, 1};

/* gate summarizes what w_begin checks, so that the usual call tests one field:
 * it is recomputed wherever one of those fields changes. */
static void w_regate(stax_writer *w) {
    w->gate = w->err.status != STAX_OK || w->sink == W_SINK_NONE || w->rs_call != W_CALL_NONE || w->finished ||
              w->in_finish;
}

/* ================================================================ errors */

/* Set the error stax_writer_message describes, through the one setter
 * (stax.c); the writer keeps its sentences with STAX_NO_MESSAGES. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
static W_COLD int w_fail(stax_writer *w, int st, int err_no, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    stax__err_vset(&w->err.e, st, NULL, err_no, fmt, ap);
    va_end(ap);
    if (st < 0 && !w->err.first) w->err.first = st;
    return st;
}

/* An invariant did not hold (a window sized to be enough overflowed): the
 * writer stops for good. */
static W_COLD int w_internal(stax_writer *w, const char *what) {
    STAX__INTERNAL_HIT();
    if (w->err.status == STAX_OK || w->fn) {
        w->err.status = STAX_E_INTERNAL;
        w->err.sticky_call = W_CALL_NONE;
        w->fn = NULL;
        w_regate(w);
        return w_fail(w, STAX_E_INTERNAL, 0, "internal error (%s): please report it", what);
    }
    if (!w->err.first) w->err.first = STAX_E_INTERNAL;
    return STAX_E_INTERNAL;
}

/* A sink error: sticky, with its errno and a message. */
static W_COLD int w_sink_failed(stax_writer *w, int st, int err_no, size_t offered, ptrdiff_t took) {
    w->err.status = st;
    w->err.sticky_call = W_CALL_NONE;
    w->fn = NULL;
    w_regate(w);
    switch (st == STAX_E_INTERNAL ? W_SINK_NONE : w->sink) {
    case W_SINK_FD:
        if (err_no) return w_fail(w, st, err_no, "write to fd %d failed (errno %d)", w->fd, err_no);
        return w_fail(w, st, 0, "write to fd %d failed: no byte written", w->fd);
    case W_SINK_FILE:
        if (err_no) return w_fail(w, st, err_no, "writing to the FILE* failed (errno %d)", err_no);
        return w_fail(w, st, 0, "writing to the FILE* failed (ferror)");
    case W_SINK_MEM_FIXED: return w_fail(w, st, err_no, "the memory sink is full (%zu bytes)", w->msink.cap);
    case W_SINK_MEM_GROW:
        return w_fail(w, st, err_no, "the memory sink could not grow beyond %zu bytes", w->msink.cap);
    default:
        if (st == STAX_E_INTERNAL) return w_fail(w, st, err_no, "internal error (memory sink): please report it");
        if (took > 0) return w_fail(w, st, err_no, "the sink took %zu bytes of %zu offered", (size_t)took, offered);
        return w_fail(w, st, err_no, "the sink returned %td (%s)", took, stax_strerror(st));
    }
}

/* Refusals that say more than their status: the calls return these reasons
 * (below any status), and w_refused turns each into its status, with the
 * reason in the message (at most 67 bytes: with the longest call name the
 * message fits in err.msg). */
enum {
    W_E_NULL_STR = -1100,
    W_E_FRAC,
    W_E_THREAD,
    W_E_NO_SINK,
    W_E_RETRY_ARGS,
    W_E_BLOCKED, /* (w_describe names the blocked call) */
    W_E_FINISHING,
    W_E_FINISHED,
    W_E_SINK_TWICE,
    W_E_SINK_FN,
    W_E_SINK_FD,
    W_E_SINK_FILE,
    W_E_SINK_GROW_FIXED,
    W_E_SINK_CAP,
    W_E_DECL_LATE,
    W_E_DOCTYPE_TWICE,
    W_E_DOCTYPE_LATE,
    W_E_DOCTYPE_FRAGMENT,
    W_E_SECOND_ROOT,
    W_E_NO_TAG,
    W_E_TEXT_OUTSIDE,
    W_E_CDATA_OUTSIDE,
    W_E_NOTHING_OPEN,
    W_E_NO_ROOT,
    W_E_NAME,
    W_E_TARGET,
    W_E_TARGET_XML,
    W_E_PI_DATA,
    W_E_COMMENT,
    W_E_VERSION,
    W_E_DECL_ENCODING,
    W_E_STANDALONE,
    W_E_PUBID_ALONE,
    W_E_PUBID,
    W_E_SYSID_QUOTES,
    W_E_NS_XMLNS_URI,
    W_E_NS_XML,
    W_E_NS_PREFIX,
    W_E_NS_XMLNS,
    W_E_NS_EMPTY,
    W_E_NS_LOCAL,
    W_E_NS_EMPTY_PREFIXED,
    W_E_NS_NO_MEMORY,
    W_E_NS_INHERIT_LATE,
    W_E_END
};

static const struct {
    int status;
    const char *why;
} w_reasons[] = {
    {STAX_E_USAGE, "a string is NULL with a nonzero length"},
    {STAX_E_USAGE, "frac_digits over 19"},
    {STAX_E_NOMEM, "the background thread could not be started"},
    {STAX_E_USAGE, "no sink set: call stax_writer_set_sink (or _fd, _file, _memory) first"},
    {STAX_E_USAGE, "other arguments than the blocked call: repeat it with the same ones"},
    {STAX_E_STATE, "repeat the blocked call first"},
    {STAX_E_STATE, "repeat the blocked stax_writer_finish first"},
    {STAX_E_STATE, "the document is finished (stax_writer_finish returned STAX_OK)"},
    {STAX_E_USAGE, "a sink is already set"},
    {STAX_E_USAGE, "the write function is NULL"},
    {STAX_E_USAGE, "the fd is negative"},
    {STAX_E_USAGE, "the FILE* is NULL"},
    {STAX_E_USAGE, "a fixed-block writer has no growable memory sink: give a buffer"},
    {STAX_E_USAGE, "a NULL buffer with a nonzero cap"},
    {STAX_E_STATE, "the XML declaration must be the very first output"},
    {STAX_E_STATE, "a second DOCTYPE"},
    {STAX_E_STATE, "a DOCTYPE after the root element started"},
    {STAX_E_STATE, "a fragment (STAX_WRITE_FRAGMENT) has no DOCTYPE"},
    {STAX_E_STATE, "a second root element"},
    {STAX_E_STATE, "no start tag open: attributes come right after stax_writer_start"},
    {STAX_E_STATE, "outside the root element text may only be spaces, tabs and LFs"},
    {STAX_E_STATE, "CDATA outside the root element"},
    {STAX_E_STATE, "no element is open"},
    {STAX_E_STATE, "no root element was started"},
    {STAX_E_INVALID, "the name is not an XML Name"},
    {STAX_E_INVALID, "the target is not an XML Name"},
    {STAX_E_INVALID, "the target xml (in any case) is reserved"},
    {STAX_E_INVALID, "the data holds \"?>\""},
    {STAX_E_INVALID, "a comment may not hold \"--\" nor end in '-'"},
    {STAX_E_INVALID, "the version is not \"1.\" and digits"},
    {STAX_E_INVALID, "the encoding is not UTF-8 (the output is UTF-8)"},
    {STAX_E_INVALID, "standalone is not 0, STAX_EVF_STANDALONE_YES or _NO"},
    {STAX_E_INVALID, "a public id without a system id"},
    {STAX_E_INVALID, "the public id holds a character that is not a PubidChar"},
    {STAX_E_INVALID, "the system id holds both quote characters"},
    {STAX_E_INVALID, "the xmlns namespace URI may not be declared"},
    {STAX_E_INVALID, "the prefix xml goes with its own URI, and that URI with xml only"},
    {STAX_E_INVALID, "the prefix is not an NCName"},
    {STAX_E_INVALID, "the prefix xmlns may not be declared"},
    {STAX_E_INVALID, "an empty URI for a prefix (Namespaces 1.0 cannot undeclare it)"},
    {STAX_E_INVALID, "the local name is not an NCName"},
    {STAX_E_INVALID, "a prefix for the empty namespace name (no namespace has no prefix)"},
    {STAX_E_USAGE, "no namespace memory: a fixed block needs ns_size"},
    {STAX_E_STATE, "inherited bindings come before the first element opens"},
};
typedef char w_reasons_one_per_code[sizeof w_reasons / sizeof w_reasons[0] == W_E_END - W_E_NULL_STR ? 1 : -1];

/* A reason's w_reasons index + 1 (0 stands for none). */
#define W_WHY(code) ((code) - W_E_NULL_STR + 1)

/* What a status says when the call returned it as it is. */
static const char *w_status_why(int st) {
    switch (st) {
    case STAX_WOULD_BLOCK: return "the sink would block: repeat the same call when it can take more";
    case STAX_E_DUP_ATTR: return "the attribute is already on this start tag";
    case STAX_E_ENCODING: return "a string is not valid UTF-8";
    case STAX_E_CHAR: return "a string holds a code point that is not an XML Char";
    case STAX_E_NOMEM: return "the allocator could not grow the element stack or the namespace bindings";
    default: return stax_strerror(st);
    }
}

/* The message for a call that returned st, for the reason `why` (a
 * w_reasons index + 1, or 0). */
static W_COLD void w_describe(stax_writer *w, int call, int why, int st) {
    const char *name = w_call_names[call];
    if (st == STAX_E_LIMIT_STACK)
        w_fail(w, st, 0, "stax_writer_%s: the element stack is full (stack_size %zu%s, %zu bytes)", name, w->stack_opt,
               w->stack_opt ? "" : ": all the fixed block leaves", w->stack_max);
    else if (st == STAX_E_LIMIT_NS)
        w_fail(w, st, 0, "stax_writer_%s: the namespace bindings in scope are full (ns_size %zu bytes)", name,
               (size_t)w->ns_max);
    else if (why == W_WHY(W_E_BLOCKED))
        w_fail(w, st, 0, "stax_writer_%s: repeat the blocked stax_writer_%s first", name, w_call_names[w->rs_call]);
    else
        w_fail(w, st, 0, "stax_writer_%s: %s", name, why ? w_reasons[why - 1].why : w_status_why(st));
}

/* A call returned st, neither STAX_OK nor (for a refusal) its status yet: a
 * reason is turned into its status. The message then describes st; a sticky
 * error keeps its own (a sink error or STAX_E_INTERNAL was described where it
 * happened), and with STAX_WRITE_STICKY a refusal becomes sticky. */
static W_COLD int w_refused(stax_writer *w, int call, int st) {
    int why = 0;
    if (st >= W_E_NULL_STR && st < W_E_END) {
        if (st == W_E_FINISHED && !w->finished) st = W_E_FINISHING; /* w_begin_slow returns one for both */
        why = W_WHY(st);
        st = w_reasons[why - 1].status;
    }
    if (w->err.status != STAX_OK && st == w->err.status) {
        if (w->err.e.code != st && w->err.sticky_call != W_CALL_NONE)
            w_describe(w, w->err.sticky_call, w->err.sticky_why, st);
        return st;
    }
    w_describe(w, call, why, st);
    if (st < 0 && (w->flags & STAX_WRITE_STICKY) && w->err.status == STAX_OK) {
        w->err.status = st;
        w->err.sticky_call = (unsigned char)call;
        w->err.sticky_why = (unsigned char)why;
        w_regate(w);
    }
    return st;
}

/* Every public call returns through here. */
static inline int w_result(stax_writer *w, int call, int st) {
    if (STAX_LIKELY(st == STAX_OK) || !w) return st;
    return w_refused(w, call, st);
}

/* ================================================================ sinks */

#ifndef STAX_NO_STDIO
static ptrdiff_t w_sink_fd(void *ctx, const void *data, size_t len) {
    stax_writer *w = (stax_writer *)ctx;
    size_t done = 0;
    while (done < len) {
        ssize_t k = write(w->fd, (const char *)data + done, len - done);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        w->sink_errno = k < 0 ? errno : 0;
        return STAX_E_IO;
    }
    return (ptrdiff_t)done;
}

static ptrdiff_t w_sink_file(void *ctx, const void *data, size_t len) {
    stax_writer *w = (stax_writer *)ctx;
    errno = 0;
    size_t k = fwrite(data, 1, len, w->file);
    if (k == len) return (ptrdiff_t)k;
    w->sink_errno = errno;
    return STAX_E_IO;
}
#endif

/* The caller's buffer: what fits, then STAX_E_FULL. */
static ptrdiff_t w_sink_mem_fixed(void *ctx, const void *data, size_t len) {
    stax_writer *w = (stax_writer *)ctx;
    stax__out o = stax__buf_out(&w->msink);
    size_t k = len < stax__out_room(&o) ? len : stax__out_room(&o);
    stax__out_put(&o, data, k);
    stax__buf_commit(&w->msink, &o);
    return k == len ? (ptrdiff_t)k : (ptrdiff_t)STAX_E_FULL;
}

static ptrdiff_t w_sink_mem_grow(void *ctx, const void *data, size_t len) {
    stax_writer *w = (stax_writer *)ctx;
    if (stax__buf_reserve(&w->mem, &w->msink, len, SIZE_MAX) != 0) return STAX_E_NOMEM;
    stax__out o = stax__buf_out(&w->msink);
    stax__out_put(&o, data, len);
    if (o.over) { /* reserved above */
        STAX__INTERNAL_HIT();
        return STAX_E_INTERNAL;
    }
    stax__buf_commit(&w->msink, &o);
    return (ptrdiff_t)len;
}

/* A sink's negative return becomes the sticky status; anything that is not
 * a stax error code is reported as an I/O error. */
static int w_sink_error(ptrdiff_t k) {
    return k >= STAX_E_FULL ? (int)k : STAX_E_IO;
}

/* ================================================================ background thread */

#ifndef STAX_NO_THREADS
static void *w_bg_main(void *arg) {
    stax_writer *w = (stax_writer *)arg;
    w_bg *g = w->bg;
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (!g->busy && !g->quit) pthread_cond_wait(&g->cv, &g->mu);
        if (!g->busy) break;
        const unsigned char *p = g->buf;
        size_t n = g->len, done = 0;
        int st = g->status;
        pthread_mutex_unlock(&g->mu);
        /* The sink is blocking by contract; one that takes nothing is given
         * the processor and asked again rather than failed. */
        while (st == STAX_OK && done < n) {
            ptrdiff_t k = g->fn(g->ctx, p + done, n - done);
            if (k < 0 || (size_t)k > n - done) {
                st = k < 0 ? w_sink_error(k) : STAX_E_IO;
                g->took = k; /* the main thread reads these after the lock below */
                g->offered = n - done;
            } else if (k == 0)
                sched_yield();
            else
                done += (size_t)k;
        }
        pthread_mutex_lock(&g->mu);
        g->done += done;
        if (st != STAX_OK && g->status == STAX_OK) {
            g->status = st;
            g->err_no = w->sink_errno; /* the sink set it on this thread */
        }
        g->busy = 0;
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

/* Wait until the thread holds no buffer; adopt its status. */
static int w_bg_wait(stax_writer *w) {
    w_bg *g = w->bg;
    pthread_mutex_lock(&g->mu);
    while (g->busy) pthread_cond_wait(&g->cv, &g->mu);
    int st = g->status, err_no = g->err_no;
    ptrdiff_t took = g->took;
    size_t offered = g->offered;
    w->bytes_out = g->done;
    pthread_mutex_unlock(&g->mu);
    if (st != STAX_OK && w->fn) return w_sink_failed(w, st, err_no, offered, took);
    return st;
}

/* Give the filled buffer to the thread and take its free one. */
static int w_bg_handover(stax_writer *w) {
    w_bg *g = w->bg;
    int st = w_bg_wait(w);
    if (st != STAX_OK) return st;
    if (w->out.len == 0) return STAX_OK;
    pthread_mutex_lock(&g->mu);
    unsigned char *t = g->buf;
    g->buf = (unsigned char *)w->out.ptr;
    g->len = w->out.len;
    w->out.ptr = (char *)t;
    w->moved += w->out.len;
    w->start = w->out.len = 0;
    g->busy = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return STAX_OK;
}
#endif

/* ================================================================ buffer */

/* Hand the buffered bytes to the sink until it takes them all (STAX_OK) or
 * takes nothing (STAX_WOULD_BLOCK; the rest stays at [start, len)). */
static int w_drain(stax_writer *w) {
#ifndef STAX_NO_THREADS
    if (w->bg && w->bg->running) return w_bg_handover(w);
#endif
    while (w->start < w->out.len) {
        size_t n = w->out.len - w->start;
        ptrdiff_t k = w->fn(w->ctx, w->out.ptr + w->start, n);
        if (k < 0 || (size_t)k > n) {
            int st = k < 0 ? w_sink_error(k) : STAX_E_IO;
            return w_sink_failed(w, st, st == STAX_E_IO ? w->sink_errno : 0, n, k);
        }
        if (k == 0) return STAX_WOULD_BLOCK;
        w->start += (size_t)k;
        w->bytes_out += (uint64_t)k;
        w->moved += (uint64_t)k;
    }
    w->start = w->out.len = 0;
    return STAX_OK;
}

/* Called when the buffer is full: the sink is offered the whole buffer. What
 * it leaves is moved to the front, so the next offer is full-sized again. */
static int w_make_room(stax_writer *w) {
    int st = w_drain(w);
    if (st < 0) return st;
    if (w->start > 0) {
        /* the bytes the sink left, to the front: inside [0, len) */
        if (STAX_UNLIKELY(w->start > w->out.len || w->out.len > w->out.cap)) return w_internal(w, "output buffer");
        memmove(w->out.ptr, w->out.ptr + w->start, w->out.len - w->start);
        w->out.len -= w->start;
        w->start = 0;
    }
    return w->out.len < w->out.cap ? STAX_OK : STAX_WOULD_BLOCK;
}

/* Append n bytes that the caller found room for, through the checked window. */
static inline int w_append(stax_writer *w, const void *p, size_t n) {
    stax__out o = stax__buf_out(&w->out);
    stax__out_put(&o, p, n);
    if (STAX_UNLIKELY(o.over)) return w_internal(w, "output buffer");
    stax__buf_commit(&w->out, &o);
    return STAX_OK;
}

/* Append p[*done..m), draining when the buffer fills. On STAX_WOULD_BLOCK
 * *done says how much was appended. */
static int w_put(stax_writer *w, const char *p, size_t m, size_t *done) {
    size_t k = *done;
    while (k < m) {
        if (w->out.len == w->out.cap) {
            int st = w_make_room(w);
            if (st != STAX_OK) {
                *done = k;
                return st;
            }
        }
        size_t room = w->out.cap - w->out.len, c = m - k < room ? m - k : room;
        int st = w_append(w, p + k, c);
        if (st != STAX_OK) return st;
        k += c;
    }
    *done = k;
    return STAX_OK;
}

/* memcpy for the short strings of the hot paths (names, short runs): two
 * overlapping fixed-size copies instead of a library call. Only ever into a
 * reservation that holds n bytes. */
static inline void w_copy(void *dst, const void *src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (n >= 8 && n <= 16) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    } else {
        memcpy(d, s, n);
    }
}

/* The fast case's reservation: `need` bytes (the call's worst case plus
 * W_OVERSTORE) of the free buffer, checked once. Returns where to store, and
 * *lim, the reservation's end; NULL when they do not fit (the call takes the
 * piece path). */
static inline unsigned char *w_fast_begin(stax_writer *w, size_t need, unsigned char **lim) {
    /* stax__buf_out's window, without its test for a NULL buffer: this one never is */
    if (w->out.cap - w->out.len < need) return NULL;
    unsigned char *p = (unsigned char *)w->out.ptr + w->out.len;
    *lim = p + need;
    return p;
}

/* Take the fast case's output [.., e): it must end W_OVERSTORE bytes before
 * the reservation's end, where the worst case ends. */
static inline int w_fast_end(stax_writer *w, const unsigned char *e, const unsigned char *lim) {
    if (STAX_UNLIKELY(lim - e < (ptrdiff_t)W_OVERSTORE))
        return w_internal(w, "fast path past its reservation");
    w->out.len = (size_t)(e - (const unsigned char *)w->out.ptr);
    return STAX_OK;
}

/* ================================================================ emitting pieces */

/* The escape written for the unit at s[i] (a special byte, or "]]>" in CDATA);
 * *adv receives how many input bytes it stands for. */
static const char *w_escape(const unsigned char *cls, const unsigned char *s, size_t i, size_t *m, size_t *adv) {
    unsigned code = cls[s[i]];
    *adv = code == W_F_BRACKET ? 3 : 1;
    *m = w_esc_len[code];
    return w_esc[code];
}

/* Copy a piece of kind W_P_CHARS/TEXT/ATTR/CDATA from input offset *in, with
 * *unit bytes of the escape at *in already written. With validate set, bad
 * UTF-8 or a non-Char returns STAX_E_ENCODING / STAX_E_CHAR (only ever in the
 * fits-in-buffer case, so the caller can roll back). */
#define W_ONES 0x0101010101010101u
#define W_HIGHS 0x8080808080808080u

/* Nonzero when one of the 8 bytes of v equals c (c repeated in every byte). */
static inline uint64_t w_has_byte(uint64_t v, uint64_t c) {
    uint64_t x = v ^ c;
    return (x - W_ONES) & ~x & W_HIGHS;
}

/* The bytes both escapers stop at: < 0x20, >= 0x80 and three specials of the
 * piece kind. For 8 bytes: bit 7 of each (a borrow can only set it above a
 * byte that is a stop itself, so the lowest is exact). */
static inline uint64_t w_stops64(uint64_t v, uint64_t c1, uint64_t c2, uint64_t c3) {
    return (v & W_HIGHS) | ((v - 0x20 * W_ONES) & ~v & W_HIGHS) | w_has_byte(v, c1) | w_has_byte(v, c2) |
           w_has_byte(v, c3);
}

#ifdef STAX__V16
/* For 16 bytes, as a block mask (scan.h). */
static inline stax__m16 w_stops16(stax__v16 v, stax__v16 e1, stax__v16 e2, stax__v16 e3) {
    stax__v16 stop = stax__v16_or(stax__v16_or(stax__v16_low_or_high(v), stax__v16_eq(v, e1)),
                                  stax__v16_or(stax__v16_eq(v, e2), stax__v16_eq(v, e3)));
    return stax__v16_mask(stop);
}
#endif

/* Skip the bytes that are not stops (w_stops64): with SSE2 16 at a time, up
 * to the first stop exactly; then 8 at a time, up to the word that holds one
 * (the table loop then looks at it byte by byte). */
static size_t w_skip_plain(const unsigned char *s, size_t i, size_t n, uint64_t c1, uint64_t c2, uint64_t c3) {
#ifdef STAX__V16
    const stax__v16 e1 = stax__v16_set((char)(c1 & 0xFF)), e2 = stax__v16_set((char)(c2 & 0xFF)),
                    e3 = stax__v16_set((char)(c3 & 0xFF));
    while (n - i >= 16) {
        stax__m16 mask = w_stops16(stax__v16_load(s + i), e1, e2, e3);
        if (mask) return i + stax__m16_first(mask); /* the first byte to look at */
        i += 16;
    }
    if (n >= 16 && i < n) {
        /* the tail: the last 16 bytes of the string, ignoring those before i */
        stax__m16 mask = stax__m16_drop(w_stops16(stax__v16_load(s + n - 16), e1, e2, e3), i - (n - 16));
        return mask ? i + stax__m16_first(mask) : n;
    }
#endif
    while (n - i >= 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if (w_stops64(v, c1, c2, c3)) break;
        i += 8;
    }
    return i;
}

/* The special bytes per piece kind, for w_skip_plain (NUL stands for none:
 * it is below 0x20 and stops the scan anyway). */
static const uint64_t w_specials[][3] = {
    {0, 0, 0},
    {0, 0, 0},
    {'&' * W_ONES, '<' * W_ONES, '>' * W_ONES},
    {'&' * W_ONES, '<' * W_ONES, '"' * W_ONES},
    {']' * W_ONES, ']' * W_ONES, ']' * W_ONES},
    {0, 0, 0},
};

static int w_emit_escaped(stax_writer *w, int kind, const char *p, size_t n, int validate, size_t *in,
                          size_t *unit) {
    const unsigned char *s = (const unsigned char *)p;
    const unsigned char *cls = w_classes[kind];
    const uint64_t *sp = w_specials[kind];
    size_t i = *in, m, adv;
    int st;
    if (*unit) {
        const char *e = w_escape(cls, s, i, &m, &adv);
        if ((st = w_put(w, e, m, unit)) != STAX_OK) return st;
        i += adv;
        *unit = 0;
    }
    size_t run = i;
    for (;;) {
        /* the hot loop: skip bytes that are copied as they are */
        i = w_skip_plain(s, i, n, sp[0], sp[1], sp[2]);
        while (n - i >= 4 && !(cls[s[i]] | cls[s[i + 1]] | cls[s[i + 2]] | cls[s[i + 3]])) i += 4;
        while (i < n && !cls[s[i]]) i++;
        if (i < n) {
            unsigned c = cls[s[i]];
            if (c == W_F_HIGH) {
                if (validate) {
                    uint32_t cp;
                    int l = stax__utf8_decode(s + i, n - i, &cp);
                    if (l <= 0) return STAX_E_ENCODING;
                    if (!stax__is_char(cp)) return STAX_E_CHAR;
                    i += (size_t)l;
                } else {
                    i++;
                }
                continue;
            }
            if (c == W_F_BAD) {
                if (validate) return STAX_E_CHAR;
                i++;
                continue;
            }
            if (c == W_F_BRACKET && !(n - i >= 3 && s[i + 1] == ']' && s[i + 2] == '>')) {
                i++;
                continue;
            }
        }
        if (i > run) {
            size_t len = i - run;
            if (w->out.cap - w->out.len >= len) {
                if ((st = w_append(w, s + run, len)) != STAX_OK) return st;
            } else {
                size_t done = 0;
                if ((st = w_put(w, p + run, len, &done)) != STAX_OK) {
                    *in = run + done;
                    return st;
                }
            }
        }
        if (i >= n) break;
        const char *e = w_escape(cls, s, i, &m, &adv);
        if (w->out.cap - w->out.len >= m) {
            if ((st = w_append(w, e, m)) != STAX_OK) return st;
        } else {
            size_t done = 0;
            if ((st = w_put(w, e, m, &done)) != STAX_OK) {
                *in = i;
                *unit = done;
                return st;
            }
        }
        i += adv;
        run = i;
    }
    *in = n;
    return STAX_OK;
}

/* "\n" then `count` indent strings; *in counts the parts written. */
static int w_emit_indent(stax_writer *w, size_t count, size_t *in, size_t *unit) {
    for (; *in <= count; (*in)++) {
        const char *p = *in == 0 ? "\n" : w_nl_run(w) + 1;
        size_t m = *in == 0 ? 1 : w->indent_len;
        int st;
        if (*unit == 0 && w->out.cap - w->out.len >= m) {
            if ((st = w_append(w, p, m)) != STAX_OK) return st;
            continue;
        }
        st = w_put(w, p, m, unit);
        if (st != STAX_OK) return st;
        *unit = 0;
    }
    return STAX_OK;
}

static void w_add(w_call *c, int kind, const char *p, size_t n) {
    if (STAX_UNLIKELY(c->np >= W_MAX_PIECES))
        c->over = 1;
    else
        c->pc[c->np++] = w_pc(kind, p, n);
}

static void w_add_z(w_call *c, const char *z) { w_add(c, W_P_RAW, z, strlen(z)); }

/* A fingerprint of the piece list (kinds and lengths, and for the number
 * calls the digits), so that a repeated call with other arguments is told
 * apart from the one that blocked. */
static uint64_t w_signature(int call, const w_call *c) {
    uint64_t h = (1469598103934665603u ^ (uint64_t)call) * 1099511628211u;
    for (int k = 0; k < c->np; k++) {
        const w_piece *pc = &c->pc[k];
        h = (h ^ (uint64_t)pc->kind ^ (pc->p ? 0x100u : 0)) * 1099511628211u;
        h = (h ^ (uint64_t)pc->n) * 1099511628211u;
        if (pc->kind == W_P_DIGITS)
            for (size_t i = 0; i < pc->n; i++) h = (h ^ (unsigned char)pc->p[i]) * 1099511628211u;
    }
    return h;
}

/* The most bytes a piece can become. Its size is at most W_PIECE_MAX (an
 * indentation: W_FAST_DEPTH copies), so that the sum of a call's pieces
 * cannot overflow. */
#define W_PIECE_MAX (SIZE_MAX / 256)
#define W_FAST_DEPTH (1u << 20)

W_ALWAYS_INLINE int w_piece_small(const w_piece *pc) {
    return pc->kind == W_P_INDENT ? pc->n < W_FAST_DEPTH : pc->n <= W_PIECE_MAX;
}

W_ALWAYS_INLINE size_t w_piece_worst(const stax_writer *w, const w_piece *pc) {
    if (pc->kind == W_P_INDENT) return pc->p ? 1 + pc->n * w->indent_len : 0;
    return pc->n * w_expansion[pc->kind];
}

/* Worst-case output size of a piece list; SIZE_MAX when a piece is too large
 * to add up safely (such a list is validated first, then written). */
static size_t w_worst(const stax_writer *w, const w_call *c) {
    size_t total = 0;
    for (int k = 0; k < c->np; k++) {
        if (!w_piece_small(&c->pc[k])) return SIZE_MAX;
        total += w_piece_worst(w, &c->pc[k]);
    }
    return total;
}

static int w_prevalidate(const w_call *c) {
    for (int k = 0; k < c->np; k++) {
        const w_piece *pc = &c->pc[k];
        if (pc->kind == W_P_RAW || pc->kind == W_P_INDENT || pc->kind == W_P_BYTE || pc->kind == W_P_DIGITS) continue;
        int err = STAX_OK;
        if (stax__check_chars(pc->p, pc->n, &err) != pc->n) return err;
    }
    return STAX_OK;
}

/* Write a call's pieces; see the comment at the top of the file. */
static int w_run(stax_writer *w, int call, const w_call *c, int resuming) {
    int first = 0, validate = 0, st;
    size_t in = 0, unit = 0;
    if (STAX_UNLIKELY(c->over)) return w_internal(w, "piece list");
    if (resuming) {
        if (w_signature(call, c) != w->rs_sig) return W_E_RETRY_ARGS;
        first = w->rs_piece;
        in = w->rs_in;
        unit = w->rs_unit;
    } else if (w_worst(w, c) <= w->out.cap - w->out.len) {
        validate = 1;
    } else if ((st = w_prevalidate(c)) != STAX_OK) {
        return st;
    }
    size_t mark = w->out.len;
    for (int k = first; k < c->np; k++) {
        const w_piece *pc = &c->pc[k];
        int raw = pc->kind == W_P_RAW || pc->kind == W_P_BYTE || pc->kind == W_P_DIGITS;
        if (raw && unit == 0 && in == 0 && w->out.cap - w->out.len >= pc->n) {
            if ((st = w_append(w, pc->p, pc->n)) != STAX_OK) return st;
            continue;
        }
        if (raw) {
            st = w_put(w, pc->p, pc->n, &in);
        } else if (pc->kind == W_P_INDENT) {
            st = pc->p ? w_emit_indent(w, pc->n, &in, &unit) : STAX_OK;
        } else {
            st = w_emit_escaped(w, pc->kind, pc->p, pc->n, validate, &in, &unit);
        }
        if (st == STAX_WOULD_BLOCK) {
            w->rs_call = call;
            w->rs_sig = w_signature(call, c);
            w->rs_piece = k;
            w->rs_in = in;
            w->rs_unit = unit;
            w_regate(w);
            return st;
        }
        if (st != STAX_OK) {
            if (validate && st != STAX_E_INTERNAL) w->out.len = mark; /* nothing of this call reached the sink */
            return st;
        }
        in = unit = 0;
    }
    if (w->rs_call != W_CALL_NONE) {
        w->rs_call = W_CALL_NONE;
        w_regate(w);
    }
    return STAX_OK;
}

/* ================================================================ element stack */

/* Live entries only (i < depth + nattrs; test and fuzz builds stop on any
 * other): entries are added by w_push alone. */
static w_rec *w_rec_at(const stax_writer *w, size_t i) {
    if (STAX_UNLIKELY(i >= (size_t)w->depth + w->nattrs)) STAX__INTERNAL_HIT();
    return (w_rec *)(void *)(w->stack + w->stack_cap) - 1 - i;
}

static w_rec *w_top(const stax_writer *w) { return w_rec_at(w, w->depth - 1); }

static const char *w_top_name(const stax_writer *w) {
    return (const char *)w->stack + w->names_len - w->attr_names_len - w_top(w)->len;
}

static inline size_t w_stack_used(const stax_writer *w) {
    return w->names_len + ((size_t)w->depth + w->nattrs) * sizeof(w_rec);
}

/* Make room for one more entry with a name of name_len bytes. */
static int w_reserve_slow(stax_writer *w, size_t name_len);

static inline int w_reserve(stax_writer *w, size_t name_len) {
    /* the stack never holds more than stack_cap, so this sum cannot overflow */
    size_t used = w_stack_used(w) + sizeof(w_rec);
    if (name_len <= w->stack_cap && used <= w->stack_cap - name_len) return STAX_OK;
    return w_reserve_slow(w, name_len);
}

static int w_reserve_slow(stax_writer *w, size_t name_len) {
    size_t recs = (size_t)w->depth + w->nattrs + 1, need = w->names_len + name_len;
    if (name_len > UINT32_MAX || recs > SIZE_MAX / sizeof(w_rec) || need < name_len ||
        need > SIZE_MAX - recs * sizeof(w_rec))
        return STAX_E_NOMEM;
    need += recs * sizeof(w_rec);
    if (need <= w->stack_cap) return STAX_OK;
    if (need > w->stack_max) return STAX_E_LIMIT_STACK;
    if (w->fixed) return w_internal(w, "fixed stack below its size"); /* stack_cap == stack_max there */
    size_t cap = w->stack_cap > w->stack_max / 2 ? w->stack_max : w->stack_cap * 2;
    if (cap < need) cap = need;
    cap = (cap + sizeof(w_rec) - 1) / sizeof(w_rec) * sizeof(w_rec); /* <= stack_max, a multiple of 8 */
    size_t rec_bytes = (recs - 1) * sizeof(w_rec); /* the live entries, at the top */
    if (STAX_UNLIKELY(rec_bytes > w->stack_cap)) return w_internal(w, "element stack");
    unsigned char *p = (unsigned char *)stax__mem_realloc(&w->mem, w->stack, w->stack_cap, cap);
    if (!p) return STAX_E_NOMEM;
    memmove(p + cap - rec_bytes, p + w->stack_cap - rec_bytes, rec_bytes);
    w->stack = p;
    w->stack_cap = cap;
    return STAX_OK;
}

/* The high-water mark: what w_reserve asked for (the stack as it is and
 * extra bytes), counted once the call that asked has succeeded. */
static inline void w_peak(stax_writer *w, size_t extra) {
    size_t used = w_stack_used(w) + extra;
    if (used > w->stack_peak) w->stack_peak = used;
}

/* Push an entry (an element, or an attribute of the open tag) named a+b, or
 * a + ':' + b with colon set (a prefixed name).
 * w_reserve made room for it before the call wrote anything, so a miss here
 * is a bug. The name goes at the bottom of the free gap, the entry at its top:
 * one reservation of the gap, checked, for both. */
W_ALWAYS_INLINE int w_push_name(stax_writer *w, const char *a, size_t an, int colon, const char *b, size_t bn,
                                uint32_t info) {
    /* sizes here are far below PTRDIFF_MAX: the stack is one object */
    ptrdiff_t room = (ptrdiff_t)(w->stack_cap - w->names_len) - (ptrdiff_t)(((size_t)w->depth + w->nattrs) * sizeof(w_rec));
    size_t c = colon ? 1 : 0;
    ptrdiff_t need = (ptrdiff_t)(an + c + bn + sizeof(w_rec));
    if (STAX_UNLIKELY(room < need)) return w_internal(w, "element stack");
    unsigned char *gap = w->stack + w->names_len, *gap_end = gap + room;
    w_copy(gap, a, an);
    if (c) gap[an] = ':';
    if (bn) memcpy(gap + an + c, b, bn);
    w_rec rec;
    rec.len = (uint32_t)(an + c + bn);
    rec.info = info;
    memcpy(gap_end - sizeof rec, &rec, sizeof rec);
    w->names_len += an + c + bn;
    return STAX_OK;
}

static inline int w_push(stax_writer *w, const char *a, size_t an, const char *b, size_t bn, uint32_t info) {
    return w_push_name(w, a, an, 0, b, bn, info);
}

/* The bit of an attribute name (its first and last bytes and its length) in
 * attr_bloom: a name whose bit is not set is not on the tag, and the search
 * of the tag's names (w_attr_seen) is skipped. */
static inline uint32_t w_bloom(unsigned first, unsigned last, size_t len) {
    return (uint32_t)1 << ((first + last * 3 + len * 7) & 31);
}

/* An attribute entry of len name bytes was just pushed. */
static inline void w_attr_pushed(stax_writer *w, size_t len) {
    const unsigned char *n = w->stack + w->names_len - len;
    w->attr_bloom |= w_bloom(n[0], n[len - 1], len);
}

static uint32_t w_hash(const char *a, size_t an, const char *b, size_t bn) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < an; i++) h = (h ^ (unsigned char)a[i]) * 16777619u;
    for (size_t i = 0; i < bn; i++) h = (h ^ (unsigned char)b[i]) * 16777619u;
    return h;
}

/* From this many attributes on a tag, names of equal length are compared by
 * hash before their bytes (a tag with n attributes costs n^2 / 2 comparisons). */
#define W_HASHED_ATTRS 8

/* Is the attribute a+b (two parts, so that "xmlns:" + prefix needs no copy)
 * already on the open start tag? h: its hash, or 0 below W_HASHED_ATTRS. */
static int w_attr_seen(stax_writer *w, const char *a, size_t an, const char *b, size_t bn, uint32_t h) {
    const char *name = (const char *)w->stack + w->names_len - w->attr_names_len;
    for (uint32_t k = 0; k < w->nattrs; k++) {
        w_rec *r = w_rec_at(w, (size_t)w->depth + k);
        if (r->len == an + bn) {
            /* entries are stored unhashed (0) until a hash is wanted */
            if (h && r->info == 0) r->info = w_hash(name, r->len, NULL, 0);
            if ((!h || r->info == h) && !memcmp(name, a, an) && (bn == 0 || !memcmp(name + an, b, bn))) return 1;
        }
        name += r->len;
    }
    return 0;
}

/* The start tag is closed by the call that just completed: forget its attributes. */
static inline void w_tag_closed(stax_writer *w) {
    if (!w->tag_open) return;
    w->tag_open = 0;
    w->names_len -= w->attr_names_len;
    w->attr_names_len = 0;
    w->nattrs = 0;
    w->attr_bloom = 0;
}

/* ================================================================ namespace bindings
 * The bindings in scope where the writer stands, oldest first: those given by
 * stax_writer_inherit_ns (depth 0: the open stream's), then those declared on
 * the open elements, by stax_writer_ns, the namespace-aware calls or an
 * xmlns attribute. An element's are dropped when it ends. Looked up newest
 * first: a few bindings is the usual scope, and a lookup is a short scan. */
typedef struct w_bind {
    uint32_t depth; /* the element that declared it (0: inherited) */
    uint32_t plen, ulen;
    uint32_t off; /* prefix then URI at ns + off */
} w_bind;

#define W_NS_DEFAULT 65536u /* ns_size with an allocator when none is given */
#define W_NS_INITIAL 256u   /* the first allocation */
#define W_NS_MAX UINT32_MAX /* the largest ns_size (offsets are 32 bits) */

static inline w_bind *w_bind_at(const stax_writer *w, uint32_t i) {
    return (w_bind *)(void *)(w->ns + w->ns_cap) - 1 - i;
}

static inline const char *w_bind_prefix(const stax_writer *w, const w_bind *b) { return (const char *)w->ns + b->off; }
static inline const char *w_bind_uri(const stax_writer *w, const w_bind *b) {
    return (const char *)w->ns + b->off + b->plen;
}

/* Equal bytes (n may be 0 with NULL pointers). Prefixes and namespace names
 * are short: up to 16 bytes, two overlapping words, no library call. */
static inline int w_same(const char *a, const char *b, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t x, y, u, v;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&u, a + n - 8, 8);
        memcpy(&v, b + n - 8, 8);
        return x == y && u == v;
    }
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    return memcmp(a, b, n) == 0;
}

static const char w_ns_xml[] = "http://www.w3.org/XML/1998/namespace";
static const char w_ns_xmlns[] = "http://www.w3.org/2000/xmlns/";

/* s equals the string literal (or char array) lit: lengths first. */
#define W_EQ(s, lit) ((s).len == sizeof(lit) - 1 && w_same((s).ptr, (lit), sizeof(lit) - 1))

#ifndef STAX_NO_WRITER_NS /* the namespace-aware calls (left out of small builds: docs/embedded.md) */

/* The newest binding of the prefix, or NULL. */
static inline const w_bind *w_ns_find(const stax_writer *w, stax_str prefix) {
    for (uint32_t i = w->ns_n; i-- > 0;) {
        const w_bind *b = w_bind_at(w, i);
        if (b->plen == prefix.len && w_same(w_bind_prefix(w, b), prefix.ptr, prefix.len)) return b;
    }
    return NULL;
}

/* Whether the prefix ("" the default) stands for uri here. Unbound, the
 * default stands for no namespace and xml for its own. */
static inline int w_ns_is(const stax_writer *w, stax_str prefix, stax_str uri) {
    const w_bind *b = w_ns_find(w, prefix);
    if (b) return b->ulen == uri.len && w_same(w_bind_uri(w, b), uri.ptr, uri.len);
    if (prefix.len == 0) return uri.len == 0;
    return W_EQ(prefix, "xml") && W_EQ(uri, w_ns_xml);
}

/* A prefix that stands for uri here (the newest; "" the default, only with
 * allow_default): 1 and *out, or 0. */
static int w_ns_prefix_for(const stax_writer *w, stax_str uri, int allow_default, stax_str *out) {
    for (uint32_t i = w->ns_n; i-- > 0;) {
        const w_bind *b = w_bind_at(w, i);
        if (b->ulen != uri.len || !w_same(w_bind_uri(w, b), uri.ptr, uri.len)) continue;
        if (b->plen == 0 && !allow_default) continue;
        stax_str p;
        p.ptr = w_bind_prefix(w, b);
        p.len = b->plen;
        if (w_ns_find(w, p) != b) continue; /* declared again nearer, for another URI */
        *out = p;
        return 1;
    }
    return 0;
}

/* Room for one more binding of `bytes` (prefix and URI): STAX_OK, or
 * STAX_E_LIMIT_NS past ns_size, STAX_E_NOMEM when the allocator fails. */
static int w_ns_reserve(stax_writer *w, size_t bytes) {
    size_t used = (size_t)w->ns_len + ((size_t)w->ns_n + 1) * sizeof(w_bind);
    if (bytes <= w->ns_cap && used <= w->ns_cap - bytes) return STAX_OK;
    if (bytes > w->ns_max || used > w->ns_max - bytes) return STAX_E_LIMIT_NS;
    if (w->fixed) return w_internal(w, "fixed namespace area below its size"); /* ns_cap == ns_max there */
    size_t need = used + bytes, cap = w->ns_cap ? w->ns_cap : W_NS_INITIAL;
    while (cap < need) cap = cap > w->ns_max / 2 ? w->ns_max : cap * 2;
    if (cap > w->ns_max) cap = w->ns_max; /* a multiple of sizeof(w_bind), like ns_cap */
    size_t rec_bytes = (size_t)w->ns_n * sizeof(w_bind);
    unsigned char *p = (unsigned char *)stax__mem_realloc(&w->mem, w->ns, w->ns_cap, cap);
    if (!p) return STAX_E_NOMEM;
    if (rec_bytes) memmove(p + cap - rec_bytes, p + w->ns_cap - rec_bytes, rec_bytes);
    w->ns = p;
    w->ns_cap = (uint32_t)cap;
    return STAX_OK;
}

/* Add a binding that w_ns_reserve made room for. */
static int w_ns_add(stax_writer *w, stax_str prefix, stax_str uri, uint32_t depth) {
    size_t used = (size_t)w->ns_len + ((size_t)w->ns_n + 1) * sizeof(w_bind);
    if (STAX_UNLIKELY(used > w->ns_cap || prefix.len + uri.len > w->ns_cap - used))
        return w_internal(w, "namespace bindings");
    w_bind b;
    b.depth = depth;
    b.plen = (uint32_t)prefix.len;
    b.ulen = (uint32_t)uri.len;
    b.off = (uint32_t)w->ns_len;
    if (prefix.len) memcpy(w->ns + w->ns_len, prefix.ptr, prefix.len);
    if (uri.len) memcpy(w->ns + w->ns_len + prefix.len, uri.ptr, uri.len);
    w->ns_len += (uint32_t)(prefix.len + uri.len);
    memcpy(w_bind_at(w, w->ns_n), &b, sizeof b);
    w->ns_n++;
    return STAX_OK;
}

/* The element at depth `depth` ended: its bindings go out of scope. */
static inline void w_ns_pop(stax_writer *w, uint32_t depth) {
    while (w->ns_n && w_bind_at(w, w->ns_n - 1)->depth >= depth) {
        const w_bind *b = w_bind_at(w, w->ns_n - 1);
        w->ns_len -= b->plen + b->ulen;
        w->ns_n--;
    }
}
#endif /* STAX_NO_WRITER_NS */

/* ================================================================ the fast case
 * When no call is being resumed and the worst case of the whole call fits in
 * the free buffer, w_fast writes its pieces straight into the buffer, with no
 * room check per piece: the reservation (w_fast_begin) was checked once.
 * Inlined into each hot call, whose piece list is built from constants and
 * its arguments, so that the compiler folds the list away: the kinds and
 * most lengths are known where it is inlined. Otherwise (a larger call, a
 * resumed one) the call's pieces are built once more out of line and run by
 * w_run. Builds optimized for size (-Os) leave the fast case out (W_FAST_CASE
 * 0): every call is run by w_run, which writes the same bytes; the async
 * tests, which push every call through both, compare them. */
#ifndef W_FAST_CASE
#if defined(__OPTIMIZE_SIZE__)
#define W_FAST_CASE 0
#else
#define W_FAST_CASE 1
#endif
#endif

/* The loops over a call's pieces are unrolled where w_fast is inlined. */
#if defined(__clang__)
#define W_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__) && __GNUC__ >= 8
#define W_UNROLL _Pragma("GCC unroll 16")
#else
#define W_UNROLL
#endif

/* w_fast's answer when the call does not fit: run it with w_run. */
#define W_NO_ROOM 1

/* Whether markup written now is indented (read by w_markup_indent). */
static int w_indents_markup(const stax_writer *w) {
    if (!w->indenting) return 0;
    return w->depth == 0 ? w->started && !w->top_mixed : !(w_top(w)->info & W_EL_MIXED);
}

/* A document has one root: once it closed, the top level takes no other
 * element. A fragment (STAX_WRITE_FRAGMENT) takes any number. */
static inline void w_root_closed(stax_writer *w) {
    if (w->depth == 0 && !(w->flags & STAX_WRITE_FRAGMENT)) w->root_done = 1;
}

/* Text (or raw bytes, which may be text) at the top level, which only a
 * fragment has beyond whitespace: the top level is mixed content from then
 * on, and indentation would change it. */
static inline void w_top_text(stax_writer *w) {
    if (w->flags & STAX_WRITE_FRAGMENT) w->top_mixed = 1;
}

/* "\n" and `count` indent strings at o. Short ones (the usual case) are one or
 * two fixed 16-byte copies of nl_run, trimmed by the returned end: the bytes
 * past it fall in the reservation's W_OVERSTORE or are overwritten next. */
static inline unsigned char *w_fast_indent(const stax_writer *w, unsigned char *o, size_t count) {
    size_t m = 1 + count * w->indent_len;
    if (m <= 16) {
        memcpy(o, w_nl_run(w), 16);
        return o + m;
    }
    if (m <= 32) {
        memcpy(o, w_nl_run(w), 32);
        return o + m;
    }
    if (m <= W_NL_RUN) {
        memcpy(o, w_nl_run(w), m);
        return o + m;
    }
    *o++ = '\n';
    for (size_t i = 0; i < count; i++) {
        memcpy(o, w_nl_run(w) + 1, w->indent_len);
        o += w->indent_len;
    }
    return o;
}

/* ================================================================ fast escaping
 * Text and attribute values of calls whose worst case fits in the buffer are
 * escaped in one pass that stores while it scans: a block of input is loaded,
 * stored to the output as it is, and tested; the output keeps the bytes up to
 * the first one that needs care, that byte is handled alone, and the scan goes
 * on after it. Every store lands in [o - 16, o + 32), where o is the output
 * position, which never moves back: so when the call's output ends at least
 * W_OVERSTORE bytes before its reservation's end (w_fast_end checks it), every
 * store fell inside the reservation (w_fast_begin: the worst case, 5 or 6
 * bytes per input byte plus the markup, and W_OVERSTORE).
 * The piece path (w_emit_escaped) writes the same bytes; the async tests, which
 * push every call through both, compare them. */

/* Handle the byte at s[*i] that stopped the scan; returns the output end, or
 * NULL with *err set. Runs of non-ASCII characters are checked in one go. */
static unsigned char *w_esc_special(unsigned char *o, const unsigned char *s, size_t *i, size_t n,
                                    const unsigned char *tab, int *err) {
    size_t k = *i;
    unsigned code = tab[s[k]];
    if (code == 0) {
        *o++ = s[k++];
    } else if (code < W_F_HIGH) {
        memcpy(o, w_esc[code], 8);
        o += w_esc_len[code];
        k++;
    } else if (code == W_F_BAD) {
        *err = STAX_E_CHAR;
        return NULL;
    } else {
        size_t e = k + 1;
        while (e < n && s[e] >= 0x80) e++;
        if (stax__check_chars((const char *)s + k, e - k, err) != e - k) return NULL;
        memcpy(o, s + k, e - k);
        o += e - k;
        k = e;
    }
    *i = k;
    return o;
}


/* Escape s[0..n) as text (attr 0) or an attribute value (attr 1) at o,
 * inside a reservation of 6n (attr) or 5n (text) bytes and W_OVERSTORE.
 * Returns the output end, or NULL with *err set (bad UTF-8, a non-Char). */
W_ALWAYS_INLINE unsigned char *w_esc_fast(unsigned char *o, const unsigned char *s, size_t n, int attr, int *err) {
    const unsigned char *tab = attr ? w_class_attr : w_class_text;
    size_t i = 0;
#ifdef STAX__V16
    const stax__v16 amp = stax__v16_set('&'), lt = stax__v16_set('<'), third = stax__v16_set(attr ? '"' : '>');
    if (n < 16) {
        /* short strings, the most common: when nothing needs care, the whole
         * string is tested as one block and copied with two overlapping stores */
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            if (!w_stops16(stax__v16_words(a, b), amp, lt, third)) {
                memcpy(o, &a, 8);
                memcpy(o + n - 8, &b, 8);
                return o + n;
            }
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            uint64_t ab = (uint64_t)a | (uint64_t)b << 32; /* (both block layers are little-endian) */
            if (!w_stops16(stax__v16_words(ab, ab), amp, lt, third)) {
                memcpy(o, &a, 4);
                memcpy(o + n - 4, &b, 4);
                return o + n;
            }
        } else {
            for (; i < n && !tab[s[i]]; i++) o[i] = s[i];
            if (i == n) return o + n;
            o += i;
        }
    }
    size_t clean = 0; /* the output is a plain copy of the input from here on */
    for (;;) {
        while (n - i >= 16) {
            size_t k;
            stax__v16 v = stax__v16_load(s + i);
            stax__v16_store(o, v);
            if (n - i >= 32) {
                /* two blocks a step while both are plain */
                stax__v16 v2 = stax__v16_load(s + i + 16);
                stax__v16_store(o + 16, v2);
                stax__m16 m1 = w_stops16(v, amp, lt, third), m2 = w_stops16(v2, amp, lt, third);
                if (!(m1 | m2)) {
                    i += 32;
                    o += 32;
                    continue;
                }
                k = stax__m16_first2(m1, m2);
            } else {
                stax__m16 mask = w_stops16(v, amp, lt, third);
                if (!mask) {
                    i += 16;
                    o += 16;
                    continue;
                }
                k = stax__m16_first(mask);
            }
            size_t j = i + k;
            if (!(o = w_esc_special(o + k, s, &j, n, tab, err))) return NULL;
            i = clean = j;
        }
        size_t r = n - i;
        if (r == 0) return o;
        stax__v16 v;
        stax__m16 mask;
        if (n >= 16 && clean + 16 <= n) {
            /* the last 16 bytes of the input, stored over output that already
             * equals their first 16 - r */
            size_t back = 16 - r;
            v = stax__v16_load(s + n - 16);
            stax__v16_store(o - back, v);
            mask = stax__m16_drop(w_stops16(v, amp, lt, third), back);
        } else {
            /* the tail, padded with spaces (kept as they are, then trimmed) */
            unsigned char t[16];
            stax__v16_store(t, stax__v16_set(' '));
            w_copy(t, s + i, r);
            v = stax__v16_load(t);
            stax__v16_store(o, v);
            mask = w_stops16(v, amp, lt, third) & stax__m16_low(r);
        }
        if (!mask) return o + r;
        size_t k = stax__m16_first(mask), j = i + k;
        if (!(o = w_esc_special(o + k, s, &j, n, tab, err))) return NULL;
        i = clean = j;
    }
#else
    /* portable: 8 bytes at a time while none needs care, then byte by byte */
    const uint64_t third = (attr ? '"' : '>') * W_ONES;
    while (i < n) {
        if (n - i >= 8) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            if (!w_stops64(v, '&' * W_ONES, '<' * W_ONES, third)) {
                memcpy(o, &v, 8);
                i += 8;
                o += 8;
                continue;
            }
        }
        if (!tab[s[i]]) {
            *o++ = s[i++];
            continue;
        }
        if (!(o = w_esc_special(o, s, &i, n, tab, err))) return NULL;
    }
#endif
    return o;
}

/* The fast case: the pieces pc[0..np) written at once, or W_NO_ROOM. A
 * refused string (bad UTF-8, a non-Char) returns its status with nothing
 * committed. */
W_ALWAYS_INLINE int w_fast(stax_writer *w, const w_piece *pc, int np) {
#if W_FAST_CASE
    size_t need = W_OVERSTORE;
    W_UNROLL
    for (int k = 0; k < np; k++) {
        if (!w_piece_small(&pc[k])) return W_NO_ROOM;
        need += w_piece_worst(w, &pc[k]);
    }
    unsigned char *o, *lim;
    if (!(o = w_fast_begin(w, need, &lim))) return W_NO_ROOM;
    int st;
    W_UNROLL
    for (int k = 0; k < np; k++) {
        const w_piece *q = &pc[k];
        if (q->kind == W_P_RAW) {
            w_copy(o, q->p, q->n);
            o += q->n;
        } else if (q->kind == W_P_BYTE) {
            *o = (unsigned char)q->p[0]; /* inside the reservation even when n is 0 */
            o += q->n;
        } else if (q->kind == W_P_DIGITS) {
            memcpy(o, q->p, 32); /* [o, o + 32): inside the reservation */
            o += q->n;
        } else if (q->kind == W_P_INDENT) {
            if (q->p) o = w_fast_indent(w, o, q->n);
        } else if (!(o = w_esc_fast(o, (const unsigned char *)q->p, q->n, q->kind == W_P_ATTR, &st))) {
            return st;
        }
    }
    return w_fast_end(w, o, lim);
#else
    (void)w, (void)pc, (void)np;
    return W_NO_ROOM;
#endif
}

/* ================================================================ calls */

/* Common entry: 0 for a fresh call, 1 when repeating the call that blocked,
 * or a negative status. `internal` lets finish end elements. */
static int w_begin_slow(stax_writer *w, int call, int internal) {
    if (w->err.status != STAX_OK) return w->err.status;
    if (w->sink == W_SINK_NONE) return W_E_NO_SINK;
    if (w->rs_call != W_CALL_NONE) return w->rs_call == call ? 1 : W_E_BLOCKED;
    if (w->finished || (w->in_finish && !internal)) return W_E_FINISHED; /* or W_E_FINISHING: w_refused tells */
    return 0;
}

static inline int w_begin(stax_writer *w, int call, int internal) {
    if (!w) return STAX_E_USAGE;
    return w->gate ? w_begin_slow(w, call, internal) : 0;
}

/* A string given as {NULL, len > 0}: refused (STAX_E_USAGE) before a byte of
 * it is read. */
static inline int w_bad(stax_str s) { return STAX_UNLIKELY(s.ptr == NULL && s.len != 0); }

static W_COLD int w_null_str(void) { return W_E_NULL_STR; }

/* The indentation before markup written now (a piece that writes nothing
 * when there is none). */
static inline w_piece w_markup_indent(const stax_writer *w) {
    return w_pc(W_P_INDENT, w_indents_markup(w) ? w_nl_run(w) : NULL, w->depth);
}

/* A list for markup: ">" of a start tag still open, then the indentation before markup. */
static void w_init_markup(stax_writer *w, w_call *c) {
    w_piece ind = w_markup_indent(w);
    w_init(c);
    w_add(c, W_P_BYTE, ">", w->tag_open != 0);
    w_add(c, W_P_INDENT, ind.p, ind.n);
}

/* After a comment, PI or child element completed. */
static inline void w_markup_done(stax_writer *w) {
    w_tag_closed(w);
    if (w->depth) w_top(w)->info |= W_EL_MARKUP;
    w->started = 1;
}

static int w_ascii_ieq(const char *p, size_t n, const char *z) {
    size_t i = 0;
    for (; i < n && z[i]; i++) {
        unsigned char a = (unsigned char)p[i], b = (unsigned char)z[i];
        if (a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return i == n && z[i] == '\0';
}

static inline unsigned w_name4(const unsigned char *p) {
    return stax__class[p[0]] & stax__class[p[1]] & stax__class[p[2]] & stax__class[p[3]];
}

/* Names are checked on every start tag: ASCII ones with the class table
 * inline (STAX__C_ANAME has no byte >= 0x80), others by the shared checker. */
static inline int w_is_name(stax_str s) {
    if (s.len - 1 >= UINT32_MAX) return 0; /* empty, or too long for the stack */
    const unsigned char *p = (const unsigned char *)s.ptr;
    unsigned ok = p[0] < 0x80 ? stax__class[p[0]] & STAX__C_NSTART : 0;
    unsigned rest = STAX__C_ANAME;
    if (s.len > 4) {
        /* four bytes a step, the last four overlapping the step before */
        for (size_t i = 1; i + 4 <= s.len; i += 4) rest &= w_name4(p + i);
        rest &= w_name4(p + s.len - 4);
    } else {
        for (size_t i = 1; i < s.len; i++) rest &= stax__class[p[i]];
    }
    if (ok && rest) return 1;
    return stax__check_name(s.ptr, s.len) == 0;
}

static int w_xml_decl(stax_writer *w, stax_str version, stax_str encoding, unsigned standalone) {
    int r = w_begin(w, W_CALL_DECL, 0), st;
    if (r < 0) return r;
    if (w_bad(version) || w_bad(encoding)) return w_null_str();
    if (version.len == 0) version.ptr = "1.0", version.len = 3;
    if (!r) {
        if (w->started) return W_E_DECL_LATE;
        /* VersionNum ::= '1.' [0-9]+ */
        if (version.len < 3 || version.ptr[0] != '1' || version.ptr[1] != '.') return W_E_VERSION;
        for (size_t i = 2; i < version.len; i++)
            if (version.ptr[i] < '0' || version.ptr[i] > '9') return W_E_VERSION;
        /* the output is UTF-8: declaring anything else would make it unreadable */
        if (encoding.len && !w_ascii_ieq(encoding.ptr, encoding.len, "utf-8")) return W_E_DECL_ENCODING;
        if (standalone != 0 && standalone != STAX_EVF_STANDALONE_YES && standalone != STAX_EVF_STANDALONE_NO)
            return W_E_STANDALONE;
    }
    w_call c;
    w_init(&c);
    w_add_z(&c, "<?xml version=\"");
    w_add(&c, W_P_RAW, version.ptr, version.len);
    if (encoding.len) {
        w_add_z(&c, "\" encoding=\"");
        w_add(&c, W_P_RAW, encoding.ptr, encoding.len);
    }
    if (standalone == STAX_EVF_STANDALONE_YES) w_add_z(&c, "\" standalone=\"yes");
    if (standalone == STAX_EVF_STANDALONE_NO) w_add_z(&c, "\" standalone=\"no");
    w_add_z(&c, "\"?>");
    if ((st = w_run(w, W_CALL_DECL, &c, r)) != STAX_OK) return st;
    w->started = 1;
    return STAX_OK;
}

/* PubidChar ::= #x20 | #xD | #xA | [a-zA-Z0-9] | [-'()+,./:=?;!*#@$_%] */
static int w_is_pubid(stax_str s) {
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) continue;
        if (c == ' ' || c == '\r' || c == '\n' || memchr("-'()+,./:=?;!*#@$_%", c, 19)) continue;
        return 0;
    }
    return 1;
}

static int w_doctype(stax_writer *w, stax_str name, stax_str pubid, stax_str sysid, stax_str subset) {
    int r = w_begin(w, W_CALL_DOCTYPE, 0), st;
    if (r < 0) return r;
    if (w_bad(name) || w_bad(pubid) || w_bad(sysid) || w_bad(subset)) return w_null_str();
    int apos = sysid.len && memchr(sysid.ptr, '"', sysid.len) != NULL;
    if (!r) {
        if (w->flags & STAX_WRITE_FRAGMENT) return W_E_DOCTYPE_FRAGMENT;
        if (w->doctype_done) return W_E_DOCTYPE_TWICE;
        if (w->depth || w->root_done) return W_E_DOCTYPE_LATE;
        if (!w_is_name(name)) return W_E_NAME;
        if (pubid.len && !sysid.len) return W_E_PUBID_ALONE;
        if (pubid.len && !w_is_pubid(pubid)) return W_E_PUBID;
        if (apos && memchr(sysid.ptr, '\'', sysid.len)) return W_E_SYSID_QUOTES;
    }
    w_call c;
    w_init_markup(w, &c);
    w_add_z(&c, "<!DOCTYPE ");
    w_add(&c, W_P_RAW, name.ptr, name.len);
    if (pubid.len) {
        w_add_z(&c, " PUBLIC \"");
        w_add(&c, W_P_RAW, pubid.ptr, pubid.len);
        w_add_z(&c, apos ? "\" '" : "\" \"");
    } else if (sysid.len) {
        w_add_z(&c, apos ? " SYSTEM '" : " SYSTEM \"");
    }
    if (sysid.len) {
        w_add(&c, W_P_CHARS, sysid.ptr, sysid.len);
        w_add_z(&c, apos ? "'" : "\"");
    }
    if (subset.len) {
        w_add_z(&c, " [");
        w_add(&c, W_P_CHARS, subset.ptr, subset.len);
        w_add_z(&c, "]");
    }
    w_add_z(&c, ">");
    if ((st = w_run(w, W_CALL_DOCTYPE, &c, r)) != STAX_OK) return st;
    w->doctype_done = 1;
    w->started = 1;
    return STAX_OK;
}

/* Each hot call below is one description of its output (w_*_pieces), run
 * by w_fast where it is inlined, or built again out of line (w_*_run) and run
 * by w_run. */

/* [>]  [indent]<name */
W_ALWAYS_INLINE int w_start_pieces(const stax_writer *w, stax_str name, w_piece *pc) {
    pc[0] = w_pc(W_P_BYTE, ">", w->tag_open != 0);
    pc[1] = w_markup_indent(w);
    pc[2] = w_pc(W_P_RAW, "<", 1);
    pc[3] = w_pc(W_P_RAW, name.ptr, name.len);
    return 4;
}

static W_NOINLINE int w_start_run(stax_writer *w, int call, stax_str name, int r) {
    w_call c;
    w_init(&c);
    c.np = w_start_pieces(w, name, c.pc);
    return w_run(w, call, &c, r);
}

/* <name, once the call's checks passed (r: repeating a blocked call):
 * stax_writer_start, and stax_writer_start_ns when it declares nothing and
 * takes no prefix. */
W_ALWAYS_INLINE int w_start_checked(stax_writer *w, int call, stax_str name, int r) {
    int st;
    if (!r && (st = w_reserve(w, name.len)) != STAX_OK) return st;
    w_piece pc[4];
    int np = w_start_pieces(w, name, pc);
    if (r || (st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_start_run(w, call, name, r);
    if (st != STAX_OK) return st;
    uint32_t inherit = 0;
    w_peak(w, name.len + sizeof(w_rec));
    w_markup_done(w);
    if (w->depth) inherit = w_top(w)->info & W_EL_MIXED;
    if ((st = w_push(w, name.ptr, name.len, NULL, 0, inherit)) != STAX_OK) return st;
    w->depth++;
    w->tag_open = 1;
    return STAX_OK;
}

W_ALWAYS_INLINE int w_start(stax_writer *w, stax_str name) {
    int r = w_begin(w, W_CALL_START, 0);
    if (r < 0) return r;
    if (w_bad(name)) return w_null_str();
    if (!r) {
        if (w->depth == 0 && w->root_done) return W_E_SECOND_ROOT;
        if (!w_is_name(name)) return W_E_NAME;
    }
    return w_start_checked(w, W_CALL_START, name, r);
}

/* The kind of a call's value: the digits of a number call need no escaping
 * and no check (w_number keeps 32 bytes readable after them). */
W_ALWAYS_INLINE int w_value_kind(int call, int kind) {
    return call == W_CALL_ATTR_NUM || call == W_CALL_TEXT_NUM || call == W_CALL_ELEMENT_NUM ? W_P_DIGITS : kind;
}

/*  a+b="value" (b: the prefix of a namespace declaration) */
W_ALWAYS_INLINE int w_attr_pieces(int call, const char *a, size_t an, stax_str b, stax_str value, w_piece *pc) {
    pc[0] = w_pc(W_P_RAW, " ", 1);
    pc[1] = w_pc(W_P_RAW, a, an);
    pc[2] = w_pc(W_P_RAW, b.ptr, b.len);
    pc[3] = w_pc(W_P_RAW, "=\"", 2);
    pc[4] = w_pc(w_value_kind(call, W_P_ATTR), value.ptr, value.len);
    pc[5] = w_pc(W_P_RAW, "\"", 1);
    return 6;
}

static W_NOINLINE int w_attr_run(stax_writer *w, int call, const char *a, size_t an, stax_str b, stax_str value, int r) {
    w_call c;
    w_init(&c);
    c.np = w_attr_pieces(call, a, an, b, value, c.pc);
    return w_run(w, call, &c, r);
}

W_ALWAYS_INLINE int w_attr(stax_writer *w, int call, const char *a, size_t an, stax_str b, stax_str value, int r) {
    int st;
    uint32_t h = w->nattrs >= W_HASHED_ATTRS ? w_hash(a, an, b.ptr, b.len) : 0; /* 0: not computed yet */
    if (!r) {
        if (w->nattrs) {
            /* names are never empty: a (or b) has a first and a last byte */
            unsigned first = (unsigned char)(an ? a[0] : b.ptr[0]);
            unsigned last = (unsigned char)(b.len ? b.ptr[b.len - 1] : a[an - 1]);
            if ((w->attr_bloom & w_bloom(first, last, an + b.len)) && w_attr_seen(w, a, an, b.ptr, b.len, h))
                return STAX_E_DUP_ATTR;
        }
        if ((st = w_reserve(w, an + b.len)) != STAX_OK) return st;
    }
    w_piece pc[6];
    int np = w_attr_pieces(call, a, an, b, value, pc);
    if (r || (st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_attr_run(w, call, a, an, b, value, r);
    if (st != STAX_OK) return st;
    w_peak(w, an + b.len + sizeof(w_rec));
    if ((st = w_push(w, a, an, b.ptr, b.len, h)) != STAX_OK) return st;
    w_attr_pushed(w, an + b.len);
    w->attr_names_len += an + b.len;
    w->nattrs++;
    return STAX_OK;
}

/* An attribute that declares a namespace: an xmlns attribute written by
 * stax_writer_ns or stax_writer_attr, whose binding is kept in scope (when
 * the writer keeps them: ns_max). */
static W_NOINLINE int w_attr_declaring(stax_writer *w, int call, const char *a, size_t an, stax_str b,
                                       stax_str uri, stax_str prefix, int r) {
#ifndef STAX_NO_WRITER_NS
    int st;
    if (!r && w->ns_max && (st = w_ns_reserve(w, prefix.len + uri.len)) != STAX_OK) return st;
    if ((st = w_attr(w, call, a, an, b, uri, r)) != STAX_OK) return st;
    return w->ns_max ? w_ns_add(w, prefix, uri, w->depth) : STAX_OK;
#else
    (void)prefix;
    return w_attr(w, call, a, an, b, uri, r);
#endif
}

/* "xmlns" or "xmlns:..." */
static inline int w_is_xmlns_attr(stax_str name) {
    return name.len >= 5 && name.ptr[0] == 'x' && !memcmp(name.ptr, "xmlns", 5) && (name.len == 5 || name.ptr[5] == ':');
}

W_ALWAYS_INLINE int w_attr_str(stax_writer *w, int call, stax_str name, stax_str value) {
    int r = w_begin(w, call, 0);
    if (r < 0) return r;
    if (w_bad(name) || w_bad(value)) return w_null_str();
    if (!r) {
        if (!w->tag_open) return W_E_NO_TAG;
        if (!w_is_name(name)) return W_E_NAME;
    }
    stax_str none = {NULL, 0};
#ifndef STAX_NO_WRITER_NS
    if (STAX_UNLIKELY(w->ns_max != 0 && w_is_xmlns_attr(name))) {
        stax_str prefix = {name.ptr + (name.len > 5 ? 6 : 5), name.len > 5 ? name.len - 6 : 0};
        return w_attr_declaring(w, call, name.ptr, name.len, none, value, prefix, r);
    }
#endif
    return w_attr(w, call, name.ptr, name.len, none, value, r);
}

/* NCName: a Name without ':' (the colon test a word at a time: two
 * overlapping loads cover up to 8 bytes). */
static inline int w_is_ncname(stax_str s) {
    if (!w_is_name(s)) return 0;
    const char *p = s.ptr;
    size_t n = s.len, i = 0;
    if (n >= 4 && n <= 8) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        return !w_has_byte((uint64_t)a | (uint64_t)b << 32, ':' * W_ONES);
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        if (w_has_byte(v, ':' * W_ONES)) return 0;
    }
    for (; i < n; i++)
        if (p[i] == ':') return 0;
    return 1;
}

/* A declaration's prefix ("" the default) and URI: Namespaces 1.0's rules. */
static int w_ns_check(stax_str prefix, stax_str uri) {
    int is_xml_uri = W_EQ(uri, w_ns_xml), is_xml = W_EQ(prefix, "xml");
    if (W_EQ(uri, w_ns_xmlns)) return W_E_NS_XMLNS_URI;
    if (is_xml_uri != is_xml) return W_E_NS_XML;
    if (prefix.len) {
        /* undeclaring a prefix is not Namespaces 1.0 */
        if (!w_is_ncname(prefix)) return W_E_NS_PREFIX;
        if (W_EQ(prefix, "xmlns")) return W_E_NS_XMLNS;
        if (uri.len == 0) return W_E_NS_EMPTY;
    }
    return STAX_OK;
}

static int w_ns(stax_writer *w, stax_str prefix, stax_str uri) {
    int r = w_begin(w, W_CALL_NS, 0), st;
    if (r < 0) return r;
    if (w_bad(prefix) || w_bad(uri)) return w_null_str();
    if (!r) {
        if (!w->tag_open) return W_E_NO_TAG;
        if ((st = w_ns_check(prefix, uri)) != STAX_OK) return st;
    }
    if (prefix.len) return w_attr_declaring(w, W_CALL_NS, "xmlns:", 6, prefix, uri, prefix, r);
    return w_attr_declaring(w, W_CALL_NS, "xmlns", 5, prefix, uri, prefix, r);
}

#ifndef STAX_NO_WRITER_NS
/* A binding in scope that this writer's output did not declare (the open
 * stream's, written elsewhere): kept at depth 0, never written. */
static int w_inherit_ns(stax_writer *w, stax_str prefix, stax_str uri) {
    int st;
    if (!w) return STAX_E_USAGE;
    if (w->err.status != STAX_OK) return w->err.status;
    if (w->rs_call != W_CALL_NONE) return W_E_BLOCKED;
    if (w->finished || w->in_finish) return W_E_FINISHED;
    if (w_bad(prefix) || w_bad(uri)) return w_null_str();
    if (w->depth) return W_E_NS_INHERIT_LATE;
    if (!w->ns_max) return W_E_NS_NO_MEMORY;
    if ((st = w_ns_check(prefix, uri)) != STAX_OK) return st;
    if ((st = w_ns_reserve(w, prefix.len + uri.len)) != STAX_OK) return st;
    return w_ns_add(w, prefix, uri, 0);
}

/* What a namespace-aware call writes for the namespace name uri with the
 * prefix hint: the prefix (*prefix, "" for none) and whether it declares it
 * (*declare); gen holds a generated prefix. An element takes a binding in
 * scope for uri (the hint's, then the default, then the newest prefix), else
 * declares the hint (or the default namespace). An attribute needs a prefix:
 * the hint's or the newest in scope for uri, else the hint if it is bound to
 * nothing here, else the first of ns1, ns2, ... bound to nothing. The choice
 * depends only on the bindings, which a blocked call does not change: the
 * repeated call makes the same one. */
static int w_ns_choose(const stax_writer *w, int attr, stax_str uri, stax_str hint, char gen[24], stax_str *prefix,
                       int *declare) {
    static const char xml[] = "xml";
    *declare = 0;
    *prefix = hint;
    if (hint.len && !w_is_ncname(hint)) return W_E_NS_PREFIX;
    if (W_EQ(hint, "xmlns")) return W_E_NS_XMLNS;
    if (W_EQ(uri, w_ns_xmlns)) return W_E_NS_XMLNS_URI;
    if (W_EQ(uri, w_ns_xml)) {
        if (hint.len && !W_EQ(hint, "xml")) return W_E_NS_XML;
        prefix->ptr = xml;
        prefix->len = 3;
        return STAX_OK;
    }
    if (W_EQ(hint, "xml")) return W_E_NS_XML;
    if (uri.len == 0) {
        if (hint.len) return W_E_NS_EMPTY_PREFIXED;
        /* no namespace: unprefixed, and a default namespace in scope undeclared */
        *declare = !attr && !w_ns_is(w, hint, uri);
        return STAX_OK;
    }
    if (hint.len && w_ns_is(w, hint, uri)) return STAX_OK;
    if (!attr && !hint.len && w_ns_is(w, hint, uri)) return STAX_OK;
    if (w_ns_prefix_for(w, uri, !attr, prefix)) return STAX_OK;
    *declare = 1;
    *prefix = hint;
    if (!attr) return STAX_OK; /* the hint, or the default namespace */
    if (hint.len && !w_ns_find(w, hint)) return STAX_OK;
    for (uint32_t k = 1;; k++) { /* "ns" and k's digits (no snprintf: bare-metal builds have none) */
        char digits[10];
        size_t n = 0;
        for (uint32_t v = k; v; v /= 10) digits[n++] = (char)('0' + v % 10);
        gen[0] = 'n';
        gen[1] = 's';
        for (size_t i = 0; i < n; i++) gen[2 + i] = digits[n - 1 - i];
        prefix->ptr = gen;
        prefix->len = 2 + n;
        if (!w_ns_find(w, *prefix)) return STAX_OK;
    }
}

/* [>][indent]<[prefix:]local[ xmlns[:prefix]="uri"] */
W_ALWAYS_INLINE int w_start_ns_pieces(const stax_writer *w, stax_str uri, stax_str local, stax_str prefix, int decl,
                             w_piece *pc) {
    pc[0] = w_pc(W_P_BYTE, ">", w->tag_open != 0);
    pc[1] = w_markup_indent(w);
    pc[2] = w_pc(W_P_RAW, "<", 1);
    pc[3] = w_pc(W_P_RAW, prefix.ptr, prefix.len);
    pc[4] = w_pc(W_P_BYTE, ":", prefix.len != 0);
    pc[5] = w_pc(W_P_RAW, local.ptr, local.len);
    pc[6] = w_pc(W_P_RAW, " xmlns", decl ? 6 : 0);
    pc[7] = w_pc(W_P_BYTE, ":", decl && prefix.len);
    pc[8] = w_pc(W_P_RAW, prefix.ptr, decl ? prefix.len : 0);
    pc[9] = w_pc(W_P_RAW, "=\"", decl ? 2 : 0);
    pc[10] = w_pc(W_P_ATTR, uri.ptr, decl ? uri.len : 0);
    pc[11] = w_pc(W_P_BYTE, "\"", decl != 0);
    return 12;
}

/* [>][indent]<local xmlns="uri": an element that declares the default namespace */
W_ALWAYS_INLINE int w_start_default_pieces(const stax_writer *w, stax_str uri, stax_str local, w_piece *pc) {
    pc[0] = w_pc(W_P_BYTE, ">", w->tag_open != 0);
    pc[1] = w_markup_indent(w);
    pc[2] = w_pc(W_P_RAW, "<", 1);
    pc[3] = w_pc(W_P_RAW, local.ptr, local.len);
    pc[4] = w_pc(W_P_RAW, " xmlns=\"", 8);
    pc[5] = w_pc(W_P_ATTR, uri.ptr, uri.len);
    pc[6] = w_pc(W_P_RAW, "\"", 1);
    return 7;
}

static W_NOINLINE int w_start_ns_run(stax_writer *w, stax_str uri, stax_str local, stax_str prefix, int decl, int r) {
    w_call c;
    w_init(&c);
    if (decl && !prefix.len)
        c.np = w_start_default_pieces(w, uri, local, c.pc);
    else
        c.np = w_start_ns_pieces(w, uri, local, prefix, decl, c.pc);
    return w_run(w, W_CALL_START_NS, &c, r);
}

static int w_start_ns(stax_writer *w, stax_str uri, stax_str local, stax_str hint) {
    int r = w_begin(w, W_CALL_START_NS, 0), st, decl;
    if (r < 0) return r;
    if (w_bad(uri) || w_bad(local) || w_bad(hint)) return w_null_str();
    char gen[24];
    stax_str prefix;
    if (!r) {
        if (w->depth == 0 && w->root_done) return W_E_SECOND_ROOT;
        if (!w->ns_max) return W_E_NS_NO_MEMORY;
        if (!w_is_ncname(local)) return W_E_NS_LOCAL;
    }
    if ((st = w_ns_choose(w, 0, uri, hint, gen, &prefix, &decl)) != STAX_OK) return st;
    if (!decl && !prefix.len) return w_start_checked(w, W_CALL_START_NS, local, r); /* <local */
    size_t qlen = prefix.len + (prefix.len ? 1u : 0u) + local.len;
    size_t dlen = decl ? 5u + (prefix.len ? 1u : 0u) + prefix.len : 0; /* xmlns[:prefix] */
    size_t extra = decl ? dlen + sizeof(w_rec) : 0;
    if (!r) {
        if ((st = w_reserve(w, qlen + extra)) != STAX_OK) return st;
        if (decl && (st = w_ns_reserve(w, prefix.len + uri.len)) != STAX_OK) return st;
    }
    /* the usual shapes with their own fast case: the default namespace
       declared (a stanza's extension), and a prefix in scope */
    if (r)
        st = w_start_ns_run(w, uri, local, prefix, decl, r);
    else if (decl && !prefix.len) {
        w_piece pc[7];
        int np = w_start_default_pieces(w, uri, local, pc);
        if ((st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_start_ns_run(w, uri, local, prefix, decl, r);
    } else {
        w_piece pc[12];
        int np = w_start_ns_pieces(w, uri, local, prefix, decl, pc);
        if ((st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_start_ns_run(w, uri, local, prefix, decl, r);
    }
    if (st != STAX_OK) return st;
    w_peak(w, qlen + sizeof(w_rec) + extra);
    w_markup_done(w);
    uint32_t inherit = w->depth ? w_top(w)->info & W_EL_MIXED : 0;
    if ((st = w_push_name(w, prefix.ptr, prefix.len, prefix.len != 0, local.ptr, local.len, inherit)) != STAX_OK)
        return st;
    w->depth++;
    w->tag_open = 1;
    if (!decl) return STAX_OK;
    if ((st = w_push_name(w, "xmlns", 5, prefix.len != 0, prefix.ptr, prefix.len, 0)) != STAX_OK) return st;
    w_attr_pushed(w, dlen);
    w->attr_names_len += dlen;
    w->nattrs++;
    return w_ns_add(w, prefix, uri, w->depth);
}

/* Is an attribute of the expanded name {uri}local already on the open start
 * tag, whatever its prefix? (Declarations are not attributes here.) */
static int w_qattr_seen(const stax_writer *w, stax_str uri, stax_str local) {
    const char *name = (const char *)w->stack + w->names_len - w->attr_names_len;
    for (uint32_t k = 0; k < w->nattrs; k++) {
        const w_rec *r = w_rec_at(w, (size_t)w->depth + k);
        stax_str q = {name, r->len}, p = {name, 0}, l = q;
        name += r->len;
        const char *colon = (const char *)memchr(q.ptr, ':', q.len);
        if (colon) {
            p.len = (size_t)(colon - q.ptr);
            l.ptr = colon + 1;
            l.len = q.len - p.len - 1;
        }
        if (l.len != local.len || !w_same(l.ptr, local.ptr, local.len)) continue;
        if (W_EQ(p, "xmlns") || (!colon && W_EQ(q, "xmlns"))) continue;
        if (colon ? w_ns_is(w, p, uri) : uri.len == 0) return 1;
    }
    return 0;
}

/* [ xmlns:prefix="uri"] [prefix:]local="value" */
static int w_attr_ns_pieces(stax_str uri, stax_str local, stax_str prefix, int decl, stax_str value, w_piece *pc) {
    pc[0] = w_pc(W_P_RAW, " xmlns:", decl ? 7 : 0);
    pc[1] = w_pc(W_P_RAW, prefix.ptr, decl ? prefix.len : 0);
    pc[2] = w_pc(W_P_RAW, "=\"", decl ? 2 : 0);
    pc[3] = w_pc(W_P_ATTR, uri.ptr, decl ? uri.len : 0);
    pc[4] = w_pc(W_P_BYTE, "\"", decl != 0);
    pc[5] = w_pc(W_P_RAW, " ", 1);
    pc[6] = w_pc(W_P_RAW, prefix.ptr, prefix.len);
    pc[7] = w_pc(W_P_BYTE, ":", prefix.len != 0);
    pc[8] = w_pc(W_P_RAW, local.ptr, local.len);
    pc[9] = w_pc(W_P_RAW, "=\"", 2);
    pc[10] = w_pc(W_P_ATTR, value.ptr, value.len);
    pc[11] = w_pc(W_P_RAW, "\"", 1);
    return 12;
}

static int w_attr_ns(stax_writer *w, stax_str uri, stax_str local, stax_str hint, stax_str value) {
    int r = w_begin(w, W_CALL_ATTR_NS, 0), st, decl;
    if (r < 0) return r;
    if (w_bad(uri) || w_bad(local) || w_bad(hint) || w_bad(value)) return w_null_str();
    char gen[24];
    stax_str prefix;
    if (!r) {
        if (!w->tag_open) return W_E_NO_TAG;
        if (!w->ns_max) return W_E_NS_NO_MEMORY;
        if (!w_is_ncname(local)) return W_E_NS_LOCAL;
    }
    if ((st = w_ns_choose(w, 1, uri, hint, gen, &prefix, &decl)) != STAX_OK) return st;
    if (!prefix.len && W_EQ(local, "xmlns")) return W_E_NS_XMLNS; /* that is a declaration */
    size_t qlen = prefix.len + (prefix.len ? 1u : 0u) + local.len;
    size_t dlen = decl ? 6 + prefix.len : 0; /* xmlns:prefix */
    size_t extra = decl ? dlen + sizeof(w_rec) : 0;
    if (!r) {
        if (w_qattr_seen(w, uri, local)) return STAX_E_DUP_ATTR;
        if ((st = w_reserve(w, qlen + extra)) != STAX_OK) return st;
        if (decl && (st = w_ns_reserve(w, prefix.len + uri.len)) != STAX_OK) return st;
    }
    w_call c;
    w_init(&c);
    c.np = w_attr_ns_pieces(uri, local, prefix, decl, value, c.pc);
    if (r || (st = w_fast(w, c.pc, c.np)) == W_NO_ROOM) st = w_run(w, W_CALL_ATTR_NS, &c, r);
    if (st != STAX_OK) return st;
    w_peak(w, qlen + sizeof(w_rec) + extra);
    if (decl) {
        if ((st = w_push_name(w, "xmlns", 5, 1, prefix.ptr, prefix.len, 0)) != STAX_OK) return st;
        w_attr_pushed(w, dlen);
        w->attr_names_len += dlen;
        w->nattrs++;
        if ((st = w_ns_add(w, prefix, uri, w->depth)) != STAX_OK) return st;
    }
    if ((st = w_push_name(w, prefix.ptr, prefix.len, prefix.len != 0, local.ptr, local.len, 0)) != STAX_OK) return st;
    w_attr_pushed(w, qlen);
    w->attr_names_len += qlen;
    w->nattrs++;
    return STAX_OK;
}

#endif /* STAX_NO_WRITER_NS */

/* [>]text (outside the root, where it is spaces, tabs and LFs, escaping
 * leaves it as it is) */
W_ALWAYS_INLINE int w_text_pieces(const stax_writer *w, int call, stax_str text, w_piece *pc) {
    pc[0] = w_pc(W_P_BYTE, ">", w->tag_open != 0);
    pc[1] = w_pc(w_value_kind(call, W_P_TEXT), text.ptr, text.len);
    return 2;
}

static W_NOINLINE int w_text_run(stax_writer *w, int call, stax_str text, int r) {
    w_call c;
    w_init(&c);
    c.np = w_text_pieces(w, call, text, c.pc);
    return w_run(w, call, &c, r);
}

W_ALWAYS_INLINE int w_text(stax_writer *w, int call, stax_str text) {
    int r = w_begin(w, call, 0), st;
    if (r < 0) return r;
    if (w_bad(text)) return w_null_str();
    if (!r && w->depth == 0 && !(w->flags & STAX_WRITE_FRAGMENT)) {
        for (size_t i = 0; i < text.len; i++)
            if (text.ptr[i] != ' ' && text.ptr[i] != '\t' && text.ptr[i] != '\n') return W_E_TEXT_OUTSIDE;
    }
    w_piece pc[2];
    int np = w_text_pieces(w, call, text, pc);
    if (r || (st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_text_run(w, call, text, r);
    if (st != STAX_OK) return st;
    w_tag_closed(w);
    if (w->depth)
        w_top(w)->info |= W_EL_MIXED;
    else if (text.len)
        w_top_text(w);
    if (text.len) w->started = 1;
    return STAX_OK;
}

static int w_cdata(stax_writer *w, stax_str text) {
    int r = w_begin(w, W_CALL_CDATA, 0), st;
    if (r < 0) return r;
    if (w_bad(text)) return w_null_str();
    if (!r && w->depth == 0 && !(w->flags & STAX_WRITE_FRAGMENT)) return W_E_CDATA_OUTSIDE;
    w_call c;
    w_init(&c);
    if (w->tag_open) w_add(&c, W_P_RAW, ">", 1);
    w_add_z(&c, "<![CDATA[");
    w_add(&c, W_P_CDATA, text.ptr, text.len);
    w_add_z(&c, "]]>");
    if ((st = w_run(w, W_CALL_CDATA, &c, r)) != STAX_OK) return st;
    w_tag_closed(w);
    if (w->depth)
        w_top(w)->info |= W_EL_MIXED;
    else
        w_top_text(w);
    w->started = 1;
    return STAX_OK;
}

/* Whether s holds the two bytes a b in a row ("--" in a comment, "?>" in PI data). */
static int w_has_pair(stax_str s, char a, char b) {
    if (s.len < 2) return 0; /* (and no arithmetic on a NULL pointer) */
    const char *p = s.ptr, *end = s.ptr + s.len;
    while ((p = (const char *)memchr(p, a, (size_t)(end - p))) != NULL && end - p > 1) {
        if (p[1] == b) return 1;
        p++;
    }
    return 0;
}

static int w_comment(stax_writer *w, stax_str text) {
    int r = w_begin(w, W_CALL_COMMENT, 0), st;
    if (r < 0) return r;
    if (w_bad(text)) return w_null_str();
    if (!r && text.len && (text.ptr[text.len - 1] == '-' /* "--->" */ || w_has_pair(text, '-', '-')))
        return W_E_COMMENT;
    w_call c;
    w_init_markup(w, &c);
    w_add_z(&c, "<!--");
    w_add(&c, W_P_CHARS, text.ptr, text.len);
    w_add_z(&c, "-->");
    if ((st = w_run(w, W_CALL_COMMENT, &c, r)) != STAX_OK) return st;
    w_markup_done(w);
    return STAX_OK;
}

static int w_pi(stax_writer *w, stax_str target, stax_str data) {
    int r = w_begin(w, W_CALL_PI, 0), st;
    if (r < 0) return r;
    if (w_bad(target) || w_bad(data)) return w_null_str();
    if (!r) {
        /* targets matching [Xx][Mm][Ll] are reserved (the XML declaration) */
        if (!w_is_name(target)) return W_E_TARGET;
        if (w_ascii_ieq(target.ptr, target.len, "xml")) return W_E_TARGET_XML;
        if (w_has_pair(data, '?', '>')) return W_E_PI_DATA;
    }
    w_call c;
    w_init_markup(w, &c);
    w_add_z(&c, "<?");
    w_add(&c, W_P_RAW, target.ptr, target.len);
    if (data.len) {
        w_add(&c, W_P_RAW, " ", 1);
        w_add(&c, W_P_CHARS, data.ptr, data.len);
    }
    w_add_z(&c, "?>");
    if ((st = w_run(w, W_CALL_PI, &c, r)) != STAX_OK) return st;
    w_markup_done(w);
    return STAX_OK;
}

/* />  or  [>][indent]</name> */
W_ALWAYS_INLINE int w_end_pieces(const stax_writer *w, w_piece *pc) {
    const w_rec *rec = w_top(w);
    int self_close = w->tag_open && (w->flags & STAX_WRITE_SELF_CLOSE);
    int ind = !w->tag_open && w->indenting && (rec->info & (W_EL_MIXED | W_EL_MARKUP)) == W_EL_MARKUP;
    pc[0] = w_pc(W_P_BYTE, ">", w->tag_open && !self_close);
    pc[1] = w_pc(W_P_INDENT, ind ? w_nl_run(w) : NULL, w->depth - 1);
    pc[2] = w_pc(W_P_RAW, self_close ? "/>" : "</", 2);
    pc[3] = w_pc(W_P_RAW, w_top_name(w), self_close ? 0 : rec->len);
    pc[4] = w_pc(W_P_BYTE, ">", !self_close);
    return 5;
}

static W_NOINLINE int w_end_run(stax_writer *w, int r) {
    w_call c;
    w_init(&c);
    c.np = w_end_pieces(w, c.pc);
    return w_run(w, W_CALL_END, &c, r);
}

W_ALWAYS_INLINE int w_end(stax_writer *w, int internal) {
    int r = w_begin(w, W_CALL_END, internal), st;
    if (r < 0) return r;
    if (!r && w->depth == 0) return W_E_NOTHING_OPEN;
    w_piece pc[5];
    int np = w_end_pieces(w, pc);
    if (r || (st = w_fast(w, pc, np)) == W_NO_ROOM) st = w_end_run(w, r);
    if (st != STAX_OK) return st;
    w_tag_closed(w);
    w->names_len -= w_top(w)->len;
#ifndef STAX_NO_WRITER_NS
    if (w->ns_n) w_ns_pop(w, w->depth);
#endif
    w->depth--;
    w_root_closed(w);
    return STAX_OK;
}

/* [>][indent]<name>text</name> */
W_ALWAYS_INLINE int w_element_pieces(const stax_writer *w, int call, stax_str name, stax_str text, w_piece *pc) {
    w_start_pieces(w, name, pc);
    pc[4] = w_pc(W_P_RAW, ">", 1);
    pc[5] = w_pc(w_value_kind(call, W_P_TEXT), text.ptr, text.len);
    pc[6] = w_pc(W_P_RAW, "</", 2);
    pc[7] = w_pc(W_P_RAW, name.ptr, name.len);
    pc[8] = w_pc(W_P_RAW, ">", 1);
    return 9;
}

/* The state start, text and end leave behind (and what start's w_reserve
 * asked for: the element never reaches the stack, but a block too small for
 * start would refuse it). */
static inline void w_element_done(stax_writer *w, size_t name_len) {
    w_peak(w, name_len + sizeof(w_rec));
    w_markup_done(w);
    w_root_closed(w);
}

/* The call that does not fit in the free buffer, or is being repeated:
 * its pieces built again and run by w_run. */
static W_NOINLINE int w_element_run(stax_writer *w, int call, stax_str name, stax_str text, int r) {
    w_call c;
    w_init(&c);
    c.np = w_element_pieces(w, call, name, text, c.pc);
    int st = w_run(w, call, &c, r);
    if (st != STAX_OK) return st;
    w_element_done(w, name.len);
    return STAX_OK;
}

/* start + text + end as one call, with their checks (in their order) and the
 * state they leave behind: one piece list, so that it is refused, blocks and
 * is repeated as any call is. */
W_ALWAYS_INLINE int w_element(stax_writer *w, int call, stax_str name, stax_str text) {
    int r = w_begin(w, call, 0), st;
    if (r < 0) return r;
    if (w_bad(name) || w_bad(text)) return w_null_str();
    if (r) return w_element_run(w, call, name, text, r);
    if (w->depth == 0 && w->root_done) return W_E_SECOND_ROOT;
    if (!w_is_name(name)) return W_E_NAME;
    if ((st = w_reserve(w, name.len)) != STAX_OK) return st;
    w_piece pc[9];
    int np = w_element_pieces(w, call, name, text, pc);
    if ((st = w_fast(w, pc, np)) == W_NO_ROOM) return w_element_run(w, call, name, text, 0);
    if (st != STAX_OK) return st; /* nothing was committed */
    w_element_done(w, name.len);
    return STAX_OK;
}

static int w_raw(stax_writer *w, stax_str bytes) {
    int r = w_begin(w, W_CALL_RAW, 0), st;
    if (r < 0) return r;
    if (w_bad(bytes)) return w_null_str();
    w_call c;
    w_init(&c);
    if (w->tag_open) w_add(&c, W_P_RAW, ">", 1);
    if (bytes.len) w_add(&c, W_P_RAW, bytes.ptr, bytes.len);
    if ((st = w_run(w, W_CALL_RAW, &c, r)) != STAX_OK) return st;
    w_tag_closed(w);
    /* raw bytes may be text: never indent next to them */
    if (w->depth)
        w_top(w)->info |= W_EL_MIXED;
    else if (bytes.len)
        w_top_text(w);
    if (bytes.len) w->started = 1;
    return STAX_OK;
}

/* ================================================================ numbers
 * Digits are produced two at a time from a table, right to left, into a small
 * local array; the string then goes through the ordinary attribute or text
 * path (digits, '-' and '.' need no escaping), so the retry rule and refusals
 * are those of stax_writer_attr and stax_writer_text. */

#define W_NUM_MAX 32 /* "-" + 20 digits + "." is the longest */

static const char w_digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                       "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                       "8081828384858687888990919293949596979899";

static const uint64_t w_pow10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};

/* The decimal digits of v, written backwards from end; returns their start.
 * Values above 32 bits are cut into 8-digit groups first, so that the rest
 * is 32-bit arithmetic. */
W_ALWAYS_INLINE char *w_utoa(char *end, uint64_t v) {
    while (v > UINT32_MAX) {
        uint32_t low = (uint32_t)(v % 100000000u);
        v /= 100000000u;
        for (int k = 0; k < 4; k++) {
            unsigned d = (low % 100u) * 2;
            low /= 100u;
            end -= 2;
            end[0] = w_digit_pairs[d];
            end[1] = w_digit_pairs[d + 1];
        }
    }
    uint32_t x = (uint32_t)v;
    while (x >= 100u) {
        unsigned d = (x % 100u) * 2;
        x /= 100u;
        end -= 2;
        end[0] = w_digit_pairs[d];
        end[1] = w_digit_pairs[d + 1];
    }
    if (x >= 10u) {
        end -= 2;
        end[0] = w_digit_pairs[x * 2];
        end[1] = w_digit_pairs[x * 2 + 1];
    } else {
        *--end = (char)('0' + x);
    }
    return end;
}

/* mag / 10^frac with exactly frac digits after the point, '-' first if neg,
 * into buf[W_NUM_MAX]. frac <= 19. */
W_ALWAYS_INLINE stax_str w_format(char *buf, uint64_t mag, int neg, unsigned frac) {
    char *end = buf + W_NUM_MAX, *p;
    if (frac == 0) {
        p = w_utoa(end, mag);
    } else {
        uint64_t q = mag / w_pow10[frac], r = mag % w_pow10[frac];
        p = w_utoa(end, r);
        while ((size_t)(end - p) < frac) *--p = '0';
        *--p = '.';
        p = w_utoa(p, q);
    }
    if (neg) *--p = '-';
    stax_str s;
    s.ptr = p;
    s.len = (size_t)(end - p);
    return s;
}


/* ================================================================ flush, finish */

/* After a sticky refusal (STAX_WRITE_STICKY) the sink still gets what the
 * calls before it wrote: flush and finish drain the buffer (finish closes
 * nothing), then return the sticky status. After a sink error nothing can. */
static int w_flush(stax_writer *w) {
    if (!w) return STAX_E_USAGE;
    if (w->err.status != STAX_OK && !w->fn) return w->err.status;
    if (w->sink == W_SINK_NONE) return W_E_NO_SINK;
    int st = w_drain(w);
#ifndef STAX_NO_THREADS
    if (st == STAX_OK && w->bg && w->bg->running) st = w_bg_wait(w);
#endif
#ifndef STAX_NO_STDIO
    if (st == STAX_OK && w->sink == W_SINK_FILE) {
        errno = 0;
        if (fflush(w->file) != 0) st = w_sink_failed(w, STAX_E_IO, errno, 0, 0);
    }
#endif
    return st == STAX_OK ? w->err.status : st;
}

static int w_finish(stax_writer *w) {
    if (!w) return STAX_E_USAGE;
    if (w->err.status != STAX_OK) return w_flush(w);
    if (w->sink == W_SINK_NONE) return W_E_NO_SINK;
    if (w->finished) return STAX_OK;
    if (!w->in_finish) {
        if (w->rs_call != W_CALL_NONE) return W_E_BLOCKED;
        if (w->depth == 0 && !w->root_done && !(w->flags & STAX_WRITE_FRAGMENT)) return W_E_NO_ROOT;
        w->in_finish = 1;
        w_regate(w);
    }
    int st;
    while (w->depth > 0)
        if ((st = w_end(w, 1)) != STAX_OK) return st;
    if ((st = w_flush(w)) != STAX_OK) return st;
    w->finished = 1;
    w->in_finish = 0;
    w_regate(w);
    return STAX_OK;
}

/* ================================================================ public calls
 * Each returns through w_result, which keeps the first error (and, with
 * STAX_WRITE_STICKY, makes it sticky). */

int stax_writer_xml_decl(stax_writer *w, stax_str version, stax_str encoding, unsigned standalone) {
    return w_result(w, W_CALL_DECL, w_xml_decl(w, version, encoding, standalone));
}
int stax_writer_doctype(stax_writer *w, stax_str name, stax_str pubid, stax_str sysid, stax_str subset) {
    return w_result(w, W_CALL_DOCTYPE, w_doctype(w, name, pubid, sysid, subset));
}
int stax_writer_start(stax_writer *w, stax_str name) { return w_result(w, W_CALL_START, w_start(w, name)); }
int stax_writer_attr(stax_writer *w, stax_str name, stax_str value) {
    return w_result(w, W_CALL_ATTR, w_attr_str(w, W_CALL_ATTR, name, value));
}
int stax_writer_ns(stax_writer *w, stax_str prefix, stax_str uri) {
    return w_result(w, W_CALL_NS, w_ns(w, prefix, uri));
}
#ifndef STAX_NO_WRITER_NS
int stax_writer_start_ns(stax_writer *w, stax_str uri, stax_str local, stax_str prefix) {
    return w_result(w, W_CALL_START_NS, w_start_ns(w, uri, local, prefix));
}
int stax_writer_attr_ns(stax_writer *w, stax_str uri, stax_str local, stax_str prefix, stax_str value) {
    return w_result(w, W_CALL_ATTR_NS, w_attr_ns(w, uri, local, prefix, value));
}
int stax_writer_inherit_ns(stax_writer *w, stax_str prefix, stax_str uri) {
    return w_result(w, W_CALL_INHERIT_NS, w_inherit_ns(w, prefix, uri));
}
#endif
int stax_writer_text(stax_writer *w, stax_str text) { return w_result(w, W_CALL_TEXT, w_text(w, W_CALL_TEXT, text)); }
int stax_writer_cdata(stax_writer *w, stax_str text) { return w_result(w, W_CALL_CDATA, w_cdata(w, text)); }
int stax_writer_comment(stax_writer *w, stax_str text) { return w_result(w, W_CALL_COMMENT, w_comment(w, text)); }
int stax_writer_pi(stax_writer *w, stax_str target, stax_str data) {
    return w_result(w, W_CALL_PI, w_pi(w, target, data));
}
int stax_writer_end(stax_writer *w) { return w_result(w, W_CALL_END, w_end(w, 0)); }
int stax_writer_element(stax_writer *w, stax_str name, stax_str text) {
    return w_result(w, W_CALL_ELEMENT, w_element(w, W_CALL_ELEMENT, name, text));
}
int stax_writer_raw(stax_writer *w, stax_str bytes) { return w_result(w, W_CALL_RAW, w_raw(w, bytes)); }
int stax_writer_flush(stax_writer *w) { return w_result(w, W_CALL_FLUSH, w_flush(w)); }
int stax_writer_finish(stax_writer *w) { return w_result(w, W_CALL_FINISH, w_finish(w)); }

/* A number call: mag / 10^frac ('-' first if neg) through the attribute, text
 * or element path. frac_digits out of range is refused like any call
 * (nothing written), after the checks every call makes first (a sticky
 * error, a blocked call). */
W_ALWAYS_INLINE int w_number(stax_writer *w, int call, stax_str name, uint64_t mag, int neg, unsigned frac) {
    char buf[W_NUM_MAX + 32]; /* the digits end at W_NUM_MAX: W_P_DIGITS reads 32 bytes from their start */
    memset(buf + W_NUM_MAX, 0, 32);
    if (frac > 19) {
        int st = w_begin(w, call, 0);
        return st < 0 ? st : W_E_FRAC;
    }
    stax_str digits = w_format(buf, mag, neg, frac);
    if (call == W_CALL_ATTR_NUM) return w_attr_str(w, call, name, digits);
    if (call == W_CALL_TEXT_NUM) return w_text(w, call, digits);
    return w_element(w, call, name, digits);
}

/* One out-of-line copy per kind of number call, each with its call's fast
 * case inlined (the kind is a constant in it). id_neg: the public call (its
 * W_CALL_* id, for messages) times 2, plus 1 for a negative value: one
 * argument, last, so that the public calls pass theirs on in the registers
 * they came in. */
#define W_ID_NEG(id, neg) ((id) * 2 + (int)(neg))

static W_NOINLINE int w_number_attr(stax_writer *w, stax_str name, uint64_t mag, unsigned frac, int id_neg) {
    return w_result(w, id_neg >> 1, w_number(w, W_CALL_ATTR_NUM, name, mag, id_neg & 1, frac));
}
static W_NOINLINE int w_number_text(stax_writer *w, uint64_t mag, unsigned frac, int id_neg) {
    static const stax_str no_name = {NULL, 0};
    return w_result(w, id_neg >> 1, w_number(w, W_CALL_TEXT_NUM, no_name, mag, id_neg & 1, frac));
}
static W_NOINLINE int w_number_element(stax_writer *w, stax_str name, uint64_t mag, unsigned frac, int id_neg) {
    return w_result(w, id_neg >> 1, w_number(w, W_CALL_ELEMENT_NUM, name, mag, id_neg & 1, frac));
}

/* v signed: its magnitude without negating INT64_MIN. */
static inline uint64_t w_mag(int64_t v) { return v < 0 ? (uint64_t)(-(v + 1)) + 1u : (uint64_t)v; }

int stax_writer_attr_int(stax_writer *w, stax_str name, int64_t v) {
    return w_number_attr(w, name, w_mag(v), 0, W_ID_NEG(W_CALL_ATTR_INT, v < 0));
}
int stax_writer_attr_uint(stax_writer *w, stax_str name, uint64_t v) {
    return w_number_attr(w, name, v, 0, W_ID_NEG(W_CALL_ATTR_UINT, 0));
}
int stax_writer_attr_dec(stax_writer *w, stax_str name, int64_t v, unsigned f) {
    return w_number_attr(w, name, w_mag(v), f, W_ID_NEG(W_CALL_ATTR_DEC, v < 0));
}
int stax_writer_text_int(stax_writer *w, int64_t v) {
    return w_number_text(w, w_mag(v), 0, W_ID_NEG(W_CALL_TEXT_INT, v < 0));
}
int stax_writer_text_uint(stax_writer *w, uint64_t v) { return w_number_text(w, v, 0, W_ID_NEG(W_CALL_TEXT_UINT, 0)); }
int stax_writer_text_dec(stax_writer *w, int64_t v, unsigned f) {
    return w_number_text(w, w_mag(v), f, W_ID_NEG(W_CALL_TEXT_DEC, v < 0));
}
int stax_writer_element_int(stax_writer *w, stax_str name, int64_t v) {
    return w_number_element(w, name, w_mag(v), 0, W_ID_NEG(W_CALL_ELEMENT_INT, v < 0));
}
int stax_writer_element_uint(stax_writer *w, stax_str name, uint64_t v) {
    return w_number_element(w, name, v, 0, W_ID_NEG(W_CALL_ELEMENT_UINT, 0));
}
int stax_writer_element_dec(stax_writer *w, stax_str name, int64_t v, unsigned f) {
    return w_number_element(w, name, w_mag(v), f, W_ID_NEG(W_CALL_ELEMENT_DEC, v < 0));
}

/* ================================================================ state */

int stax_writer_status(const stax_writer *w) { return w ? w->err.status : STAX_E_USAGE; }
int stax_writer_first_error(const stax_writer *w) { return w ? w->err.first : STAX_E_USAGE; }
int stax_writer_errno(const stax_writer *w) { return w ? w->err.e.sys_errno : 0; }
const char *stax_writer_message(const stax_writer *w) { return w ? w->err.e.msg : "no writer"; }
uint32_t stax_writer_depth(const stax_writer *w) { return w ? w->depth : 0; }

uint64_t stax_writer_bytes_out(const stax_writer *w) {
    if (!w) return 0;
#ifndef STAX_NO_THREADS
    if (w->bg && w->bg->running) {
        w_bg *g = w->bg; /* the lock is not part of the writer's logical state */
        pthread_mutex_lock(&g->mu);
        uint64_t n = g->done;
        pthread_mutex_unlock(&g->mu);
        return n;
    }
#endif
    return w->bytes_out;
}

uint64_t stax_writer_bytes_produced(const stax_writer *w) {
    return w ? w->moved + (w->out.len - w->start) : 0;
}

size_t stax_writer_stack_room(const stax_writer *w) {
    if (!w) return 0;
    return w->stack_max != W_STACK_UNLIMITED ? w->stack_max - w_stack_used(w) : w->stack_cap - w_stack_used(w);
}

stax_str stax_writer_memory(const stax_writer *w) {
    stax_str s = {NULL, 0};
    if (w && (w->sink == W_SINK_MEM_FIXED || w->sink == W_SINK_MEM_GROW)) {
        s.ptr = w->msink.ptr;
        s.len = w->msink.len;
    }
    return s;
}

/* ================================================================ options and memory */

static size_t w_round_up(size_t n) { return (n + W_ALIGN - 1) & ~(size_t)(W_ALIGN - 1); }
static size_t w_round8(size_t n) { return n / sizeof(w_rec) * sizeof(w_rec); }

#define W_MAX_BUFFER (SIZE_MAX / 8)
#define W_MAX_STACK (SIZE_MAX / 8)

/* What the options make of a writer. */
typedef struct w_plan {
    size_t cap;       /* the buffer size */
    size_t nbuf;      /* 2 with STAX_WRITE_BACKGROUND */
    size_t head;      /* the writer, and the thread's state, rounded */
    size_t stack;     /* fixed block: the stack's size; allocator: its first allocation */
    size_t stack_max; /* the most it may hold (W_STACK_UNLIMITED: no stack_size) */
    size_t ns;        /* fixed block: the namespace area (ns_size, rounded; 0: none) */
    size_t ns_max;    /* the most the bindings may take (0: none are kept) */
    size_t indent_len;
    char indent[W_MAX_INDENT];
} w_plan;

/* The writer (with its indentation run when it indents). */
static size_t w_self_size(size_t indent_len) { return sizeof(stax_writer) + (indent_len ? W_NL_RUN : 0); }

static size_t w_head(unsigned flags, size_t indent_len) {
    return w_round_up(w_self_size(indent_len)) + ((flags & STAX_WRITE_BACKGROUND) ? w_round_up(sizeof(w_bg)) : 0);
}

/* Block bytes for a layout: the worst alignment skew (so that the layout, and
 * with it every result, never depends on where the block starts), the writer,
 * the stack, the buffers. The terms are bounded by W_MAX_*: no overflow. */
static size_t w_block_bytes(size_t head, size_t stack, size_t nbuf, size_t cap) {
    return (W_ALIGN - 1) + head + stack + nbuf * cap;
}

/* Check the options and lay the writer out. Returns STAX_OK, STAX_E_USAGE
 * (an option out of range) or STAX_E_NOMEM (the block is too small), with
 * *why a fixed sentence. */
static int w_plan_options(const stax_writer_options *o, w_plan *p, const char **why) {
    static const char *const unused = "";
    const char *dummy;
    if (!why) why = &dummy;
    *why = unused;
    memset(p, 0, sizeof *p);
    if (o->flags & ~(unsigned)(STAX_WRITE_SELF_CLOSE | STAX_WRITE_BACKGROUND | STAX_WRITE_STICKY | STAX_WRITE_FRAGMENT))
        return *why = "flags holds a bit that is not a STAX_WRITE_* flag", STAX_E_USAGE;
#ifdef STAX_NO_THREADS
    if (o->flags & STAX_WRITE_BACKGROUND)
        return *why = "STAX_WRITE_BACKGROUND: this build has no threads (STAX_NO_THREADS)", STAX_E_USAGE;
#endif
    if (o->indent) {
        for (; o->indent[p->indent_len]; p->indent_len++) {
            if (p->indent_len >= W_MAX_INDENT) return *why = "indent is longer than 64 bytes", STAX_E_USAGE;
            if (o->indent[p->indent_len] != ' ' && o->indent[p->indent_len] != '\t')
                return *why = "indent holds a byte other than space and tab", STAX_E_USAGE;
            p->indent[p->indent_len] = o->indent[p->indent_len];
        }
    } else {
        if (o->indent_width > W_MAX_INDENT) return *why = "indent_width is over 64", STAX_E_USAGE;
        p->indent_len = o->indent_width;
        memset(p->indent, ' ', p->indent_len);
    }
    if (o->buffer_size && o->buffer_size < STAX_WRITER_MIN_BUFFER)
        return *why = "buffer_size is below STAX_WRITER_MIN_BUFFER (64)", STAX_E_USAGE;
    if (o->buffer_size > W_MAX_BUFFER) return *why = "buffer_size is too large", STAX_E_USAGE;
    if (o->stack_size && o->stack_size < W_MIN_STACK) return *why = "stack_size is below 64", STAX_E_USAGE;
    if (o->stack_size > W_MAX_STACK) return *why = "stack_size is too large", STAX_E_USAGE;
    if (o->ns_size > W_NS_MAX) return *why = "ns_size is too large", STAX_E_USAGE;
#ifdef STAX_NO_WRITER_NS
    if (o->ns_size)
        return *why = "ns_size: this build has no namespace-aware writer (STAX_NO_WRITER_NS)", STAX_E_USAGE;
    p->ns_max = 0;
#else
    p->ns_max = o->ns_size ? o->ns_size / sizeof(w_bind) * sizeof(w_bind) : o->memory ? 0 : W_NS_DEFAULT;
#endif
    if (o->memory) p->ns = p->ns_max;
    p->nbuf = (o->flags & STAX_WRITE_BACKGROUND) ? 2 : 1;
    p->head = w_head(o->flags, p->indent_len);
    if (!o->memory) {
        p->cap = o->buffer_size ? o->buffer_size : W_DEFAULT_BUFFER;
        p->stack_max = o->stack_size ? w_round8(o->stack_size) : W_STACK_UNLIMITED;
        p->stack = p->stack_max < W_STACK_INITIAL ? p->stack_max : W_STACK_INITIAL;
        return STAX_OK;
    }
    /* A fixed block: writer | thread state | stack | buffer(s). Zero sizes
     * share what the block holds; the stack never shrinks as the block grows. */
    static const char *const small = "memory_size is smaller than these options need (see stax_writer_memory_size)";
    if (o->memory_size < (W_ALIGN - 1) + p->head) return *why = small, STAX_E_NOMEM;
    if (o->memory_size - (W_ALIGN - 1) - p->head < p->ns) return *why = small, STAX_E_NOMEM;
    size_t room = o->memory_size - (W_ALIGN - 1) - p->head - p->ns, s;
    size_t most = p->nbuf * W_DEFAULT_BUFFER; /* buffers when buffer_size is 0 */
    if (o->buffer_size) {
        if (room / p->nbuf < o->buffer_size) return *why = small, STAX_E_NOMEM;
        p->cap = o->buffer_size;
        s = w_round8(room - p->nbuf * p->cap);
        if (o->stack_size) {
            if (s < w_round8(o->stack_size)) return *why = small, STAX_E_NOMEM;
            s = w_round8(o->stack_size);
        }
    } else {
        if (o->stack_size)
            s = w_round8(o->stack_size);
        else /* a quarter of the block, or all that 64 KiB buffers leave */
            s = w_round8(room / 4 > (room > most ? room - most : 0) ? room / 4 : room - most);
        if (s > room) return *why = small, STAX_E_NOMEM;
        p->cap = (room - s) / p->nbuf;
        if (p->cap > W_DEFAULT_BUFFER) p->cap = W_DEFAULT_BUFFER;
        if (p->cap < STAX_WRITER_MIN_BUFFER) return *why = small, STAX_E_NOMEM;
    }
    if (s < W_MIN_STACK) return *why = small, STAX_E_NOMEM;
    p->stack = p->stack_max = s;
    return STAX_OK;
}

/* opt, or the zero options for NULL. */
static stax_writer_options w_options(const stax_writer_options *opt) {
    stax_writer_options o;
    if (opt)
        o = *opt;
    else
        memset(&o, 0, sizeof o);
    return o;
}

int stax_writer_check_options(const stax_writer_options *opt, const char **why) {
    stax_writer_options o = w_options(opt);
    w_plan p;
    return w_plan_options(&o, &p, why);
}

int stax_writer_effective_options(const stax_writer_options *opt, stax_writer_options *out, const char **why) {
    stax_writer_options o = w_options(opt);
    w_plan p;
    int st = w_plan_options(&o, &p, why);
    if (st != STAX_OK || !out) return st;
    o.buffer_size = p.cap;
    if (p.stack_max != W_STACK_UNLIMITED) o.stack_size = p.stack_max; /* else 0: no limit */
    o.ns_size = p.ns_max;
    *out = o;
    return STAX_OK;
}

size_t stax_writer_memory_size(const stax_writer_options *opt) {
    stax_writer_options o = w_options(opt);
    w_plan p;
    o.memory = NULL; /* the other options decide */
    if (w_plan_options(&o, &p, NULL) != STAX_OK) return 0;
    size_t ns = o.ns_size ? p.ns_max : 0; /* a block has no namespace area without ns_size */
    return w_block_bytes(p.head + ns, o.stack_size ? p.stack_max : W_STACK_INITIAL, p.nbuf, p.cap);
}

size_t stax_writer_memory_peak(const stax_writer *w) {
    if (!w) return 0;
    size_t s = w->stack_peak < W_MIN_STACK ? W_MIN_STACK : w->stack_peak;
    size_t ns = w->ns_block ? w->ns_max : 0; /* the area ns_size gives a block */
    return w_block_bytes(w_head(w->flags, w->indent_len) + ns,
                         (s + sizeof(w_rec) - 1) / sizeof(w_rec) * sizeof(w_rec), w->bg ? 2 : 1, w->out.cap);
}

/* ================================================================ creation and sinks */

stax_writer *stax_writer_new(const stax_writer_options *opt) {
    stax_writer_options o = w_options(opt);
    w_plan p;
    if (w_plan_options(&o, &p, NULL) != STAX_OK) return NULL;

    stax_writer *w;
    w_bg *bg = NULL;
    unsigned char *b1, *b2 = NULL, *stack, *ns = NULL;
    stax__mem mem;
    if (o.memory) {
        /* Carve the block: writer | thread state | stack | buffer(s), as planned. */
        uintptr_t a = (uintptr_t)o.memory, al = (a + W_ALIGN - 1) & ~(uintptr_t)(W_ALIGN - 1);
        unsigned char *base = (unsigned char *)o.memory + (size_t)(al - a);
        w = (stax_writer *)(void *)base;
        if (p.nbuf == 2) bg = (w_bg *)(void *)(base + w_round_up(w_self_size(p.indent_len)));
        stack = base + p.head;
        ns = p.ns ? stack + p.stack : NULL; /* 8-aligned, enough for w_bind */
        b1 = stack + p.stack + p.ns;
        if (p.nbuf == 2) b2 = b1 + p.cap;
        memset(&mem, 0, sizeof mem);
    } else {
        if (stax__mem_init(&mem, o.alloc, o.alloc_ud, NULL, 0) != 0) return NULL;
        w = (stax_writer *)stax__mem_alloc(&mem, w_self_size(p.indent_len));
        bg = p.nbuf == 2 ? (w_bg *)stax__mem_alloc(&mem, sizeof *bg) : NULL;
        b1 = (unsigned char *)stax__mem_alloc(&mem, p.cap);
        b2 = p.nbuf == 2 ? (unsigned char *)stax__mem_alloc(&mem, p.cap) : NULL;
        stack = (unsigned char *)stax__mem_alloc(&mem, p.stack);
        if (!w || (p.nbuf == 2 && (!bg || !b2)) || !b1 || !stack) {
            stax__mem_free(&mem, stack, p.stack);
            stax__mem_free(&mem, b2, p.cap);
            stax__mem_free(&mem, b1, p.cap);
            stax__mem_free(&mem, bg, sizeof *bg);
            stax__mem_free(&mem, w, w_self_size(p.indent_len));
            return NULL;
        }
    }
    memset(w, 0, w_self_size(p.indent_len));
    stax__err_init(&w->err.e, w->err.msg, sizeof w->err.msg);
    w->mem = mem;
    w->fixed = o.memory != NULL;
    w->out.ptr = (char *)b1;
    w->out.cap = p.cap;
    w->stack = stack;
    w->stack_cap = p.stack;
    w->stack_max = p.stack_max;
    w->stack_opt = o.stack_size;
    w->ns = ns;
    w->ns_cap = (uint32_t)p.ns;
    w->ns_max = (uint32_t)p.ns_max;
    w->ns_block = o.ns_size != 0;
    w->flags = o.flags;
    w->indent_len = p.indent_len;
    w->indenting = p.indent_len > 0;
    if (p.indent_len) {
        w_nl_run(w)[0] = '\n';
        for (size_t i = 1; i + p.indent_len <= W_NL_RUN; i += p.indent_len) memcpy(w_nl_run(w) + i, p.indent, p.indent_len);
    }
    w->fd = -1;
    if (bg) {
        memset(bg, 0, sizeof *bg);
        bg->buf = b2;
        w->bg = bg;
    }
    w_regate(w); /* no sink yet */
    return w;
}

void stax_writer_free(stax_writer *w) {
    if (!w) return;
    w_bg *bg = w->bg;
#ifndef STAX_NO_THREADS
    if (bg && bg->running) {
        pthread_mutex_lock(&bg->mu);
        bg->quit = 1;
        pthread_cond_broadcast(&bg->cv);
        pthread_mutex_unlock(&bg->mu);
        pthread_join(bg->thread, NULL);
        pthread_cond_destroy(&bg->cv);
        pthread_mutex_destroy(&bg->mu);
    }
#endif
    if (w->fixed) return;
    stax__mem mem = w->mem;
    if (w->sink == W_SINK_MEM_GROW) stax__buf_free(&mem, &w->msink);
    stax__mem_free(&mem, w->stack, w->stack_cap);
    stax__mem_free(&mem, w->ns, w->ns_cap);
    if (bg) {
        stax__mem_free(&mem, bg->buf, w->out.cap);
        stax__mem_free(&mem, bg, sizeof *bg);
    }
    stax__mem_free(&mem, w->out.ptr, w->out.cap);
    stax__mem_free(&mem, w, w_self_size(w->indent_len));
}

/* Set the sink, unless the arguments were refused (`refused`: a reason) or
 * the writer has stopped (a sticky error: every call returns it). */
static int w_set(stax_writer *w, int sink, stax_write_fn fn, void *ctx, int refused) {
    if (w->err.status != STAX_OK) return w->err.status;
    if (refused) return refused;
    if (!fn) return W_E_SINK_FN;
    /* the sink cannot change once bytes may have been written */
    if (w->started || w->out.len || w->sink != W_SINK_NONE) return W_E_SINK_TWICE;
    w->sink = sink;
    w_regate(w);
    w->fn = fn;
    w->ctx = ctx;
#ifndef STAX_NO_THREADS
    if (w->bg) {
        w_bg *g = w->bg;
        g->fn = fn;
        g->ctx = ctx;
        if (pthread_mutex_init(&g->mu, NULL) != 0) goto fail;
        if (pthread_cond_init(&g->cv, NULL) != 0) {
            pthread_mutex_destroy(&g->mu);
            goto fail;
        }
        if (pthread_create(&g->thread, NULL, w_bg_main, w) != 0) {
            pthread_cond_destroy(&g->cv);
            pthread_mutex_destroy(&g->mu);
            goto fail;
        }
        g->running = 1;
    }
    return STAX_OK;
fail:
    w->sink = W_SINK_NONE;
    w_regate(w);
    w->fn = NULL;
    return W_E_THREAD;
#else
    return STAX_OK;
#endif
}

int stax_writer_set_sink(stax_writer *w, stax_write_fn fn, void *ctx) {
    if (!w) return STAX_E_USAGE;
    return w_result(w, W_CALL_SINK, w_set(w, W_SINK_FN, fn, ctx, 0));
}

#ifndef STAX_NO_STDIO
int stax_writer_set_fd(stax_writer *w, int fd) {
    if (!w) return STAX_E_USAGE;
    int st = w_set(w, W_SINK_FD, w_sink_fd, w, fd < 0 ? W_E_SINK_FD : 0);
    if (st == STAX_OK) w->fd = fd;
    return w_result(w, W_CALL_SET_FD, st);
}

int stax_writer_set_file(stax_writer *w, FILE *f) {
    if (!w) return STAX_E_USAGE;
    int st = w_set(w, W_SINK_FILE, w_sink_file, w, f ? 0 : W_E_SINK_FILE);
    if (st == STAX_OK) w->file = f;
    return w_result(w, W_CALL_SET_FILE, st);
}
#endif

int stax_writer_set_memory(stax_writer *w, void *buf, size_t cap) {
    if (!w) return STAX_E_USAGE;
    if (!buf) {
        int refused = cap ? W_E_SINK_CAP : w->fixed ? W_E_SINK_GROW_FIXED : 0;
        return w_result(w, W_CALL_SET_MEMORY, w_set(w, W_SINK_MEM_GROW, w_sink_mem_grow, w, refused));
    }
    int st = w_set(w, W_SINK_MEM_FIXED, w_sink_mem_fixed, w, 0);
    if (st == STAX_OK) {
        w->msink.ptr = (char *)buf;
        w->msink.len = 0;
        w->msink.cap = cap;
    }
    return w_result(w, W_CALL_SET_MEMORY, st);
}
#else
typedef int stax__writer_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_WRITER */
