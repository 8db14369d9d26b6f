/* Shared helpers for the unit tests: event dumps, chunked feeding, the malloc
 * guard. See harness.h for the dump format. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"

#include <criterion/criterion.h>

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const size_t stax_test_chunk_sizes[] = {0, 1, 2, 3, 7, 65536};
const size_t stax_test_chunk_count = sizeof stax_test_chunk_sizes / sizeof stax_test_chunk_sizes[0];

/* Private status: the harness stopped the run after a contract violation. */
#define HARNESS_STOP 1000
/* No sane test document makes more events than this; more means a loop. */
#define HARNESS_MAX_EVENTS 10000000u

/* ================================================================ malloc guard */

volatile int stax_test_forbid_malloc;
unsigned long stax_test_forbidden_calls;

static void forbidden_call(const char *what) {
    stax_test_forbidden_calls++;
    stax_test_forbid_malloc = 0; /* the failure report may allocate */
    cr_assert_fail("%s called while stax_test_forbid_malloc is set", what);
}

/* Large blocks freed are kept for the next request of the same size.
 *
 * Every reader with default options allocates its token arena and carry, a
 * MiB each; the tests create thousands of readers. Under AddressSanitizer a
 * block that large is its own mapping: each malloc and free writes an eighth
 * of it again as shadow on fresh pages, which made the sanitizer run of the
 * unit tests spend most of its time in page faults. So the malloc guard keeps
 * up to LARGE_KEEP freed blocks of LARGE_MIN bytes or more and hands one back
 * for a request of exactly its size. Nothing the sanitizer checks is lost
 * while a block is kept: it is poisoned, so a use after free is still a
 * report (use-after-poison), and its redzones are ASan's own. A block handed
 * out again has its first bytes filled with ASan's malloc fill byte, as a
 * fresh one has. */
#define LARGE_MIN ((size_t)32 << 10)
#define LARGE_LIVE 256 /* large blocks handed out and tracked at a time */
#define LARGE_KEEP 16  /* freed large blocks kept */
#define LARGE_FILL 4096

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define LARGE_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define LARGE_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define LARGE_POISON(p, n) ((void)(p), (void)(n))
#define LARGE_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

typedef struct {
    void *p;
    size_t n;
} large_block;

static pthread_mutex_t large_lock = PTHREAD_MUTEX_INITIALIZER;
static large_block large_live[LARGE_LIVE], large_kept[LARGE_KEEP];
static size_t large_n_live, large_n_kept;

/* The entry of v[0, *len) at p (when p is not NULL) or else of n bytes,
 * taken out with the rest kept in order; {NULL, 0} when there is none.
 * Under large_lock. */
static large_block large_remove(large_block *v, size_t *len, const void *p, size_t n) {
    for (size_t i = 0; i < *len; i++) {
        if (p ? v[i].p != p : v[i].n != n) continue;
        large_block b = v[i];
        memmove(v + i, v + i + 1, (--*len - i) * sizeof *v);
        return b;
    }
    return (large_block){NULL, 0};
}

/* A kept block of exactly n bytes, or NULL. */
static void *large_take(size_t n) {
    pthread_mutex_lock(&large_lock);
    void *p = large_remove(large_kept, &large_n_kept, NULL, n).p;
    pthread_mutex_unlock(&large_lock);
    if (p) {
        LARGE_UNPOISON(p, n);
        memset(p, 0xbe, n < LARGE_FILL ? n : LARGE_FILL);
    }
    return p;
}

/* Track p (n bytes) when it is large and there is room in the table. */
static void *large_track(void *p, size_t n) {
    if (!p || n < LARGE_MIN) return p;
    pthread_mutex_lock(&large_lock);
    if (large_n_live < LARGE_LIVE) large_live[large_n_live++] = (large_block){p, n};
    pthread_mutex_unlock(&large_lock);
    return p;
}

/* Stop tracking p; its size, or 0 when it was not tracked. */
static size_t large_untrack(void *p) {
    pthread_mutex_lock(&large_lock);
    size_t n = large_remove(large_live, &large_n_live, p, 0).n;
    pthread_mutex_unlock(&large_lock);
    return n;
}

/* Keep a freed tracked block; when all places are taken, free the oldest. */
static void large_keep(void *p, size_t n) {
    large_block out = {NULL, 0};
    LARGE_POISON(p, n);
    pthread_mutex_lock(&large_lock);
    if (large_n_kept == LARGE_KEEP) out = large_remove(large_kept, &large_n_kept, large_kept[0].p, 0);
    large_kept[large_n_kept++] = (large_block){p, n};
    pthread_mutex_unlock(&large_lock);
    if (out.p) {
        LARGE_UNPOISON(out.p, out.n);
        __real_free(out.p);
    }
}

void *__wrap_malloc(size_t n) {
    if (stax_test_forbid_malloc) forbidden_call("malloc");
    void *p = n >= LARGE_MIN ? large_take(n) : NULL;
    return large_track(p ? p : __real_malloc(n), n);
}

void *__wrap_realloc(void *p, size_t n) {
    if (stax_test_forbid_malloc) forbidden_call("realloc");
    if (!p) return __wrap_malloc(n);
    large_untrack(p); /* a block that fails to grow stays valid, untracked: freed as any other */
    return large_track(__real_realloc(p, n), n);
}

void *__wrap_calloc(size_t n, size_t m) {
    if (stax_test_forbid_malloc) forbidden_call("calloc");
    return __real_calloc(n, m);
}

void __wrap_free(void *p) {
    if (stax_test_forbid_malloc) forbidden_call("free");
    if (!p) return;
    size_t n = large_untrack(p);
    if (n) {
        large_keep(p, n);
        return;
    }
    __real_free(p);
}

/* ================================================================ string builder */

/* Grows through __real_realloc so that dumps work while the guard is set. */
typedef stax_test_buf sbuf;

static void sb_reserve(sbuf *s, size_t extra) {
    if (s->len + extra + 1 <= s->cap) return;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < s->len + extra + 1) cap *= 2;
    char *p = __real_realloc(s->p, cap);
    cr_assert_not_null(p, "harness: out of memory");
    s->p = p;
    s->cap = cap;
}

void stax_test_buf_put(sbuf *s, const char *p, size_t n) {
    sb_reserve(s, n);
    if (n) memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = '\0';
}

void stax_test_buf_puts(sbuf *s, const char *z) { stax_test_buf_put(s, z, strlen(z)); }

void stax_test_buf_printf(sbuf *s, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    stax_test_buf_put(s, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void stax_test_buf_free(sbuf *s) {
    __real_free(s->p);
    s->p = NULL;
    s->len = s->cap = 0;
}

/* ================================================================ metered allocator */

void *stax_test_meter_alloc(void *ud, void *p, size_t old, size_t n) {
    stax_test_meter *m = ud;
    if (n == 0) {
        m->now -= old;
        __real_free(p);
        return NULL;
    }
    void *q = __real_realloc(p, n);
    if (!q) return NULL;
    m->now = m->now - old + n;
    if (m->now > m->peak) m->peak = m->now;
    return q;
}

/* The dump is returned to the test, which frees it with free(): hand back a
 * copy made with the ordinary (wrapped) allocator unless the guard is set. */
static char *sb_finish(sbuf *s) {
    sb_reserve(s, 0);
    if (stax_test_forbid_malloc) return s->p; /* __real_malloc'd; free() is the same heap */
    char *out = malloc(s->len + 1);
    cr_assert_not_null(out, "harness: out of memory");
    memcpy(out, s->p, s->len + 1);
    __real_free(s->p);
    return out;
}

static void sb_quoted(sbuf *s, stax_str v, int *null_seen) {
    if (v.len > 0 && v.ptr == NULL) {
        *null_seen = 1;
        stax_test_buf_puts(s, "\"\"");
        return;
    }
    stax_test_buf_put(s, "\"", 1);
    for (size_t i = 0; i < v.len; i++) {
        unsigned char c = (unsigned char)v.ptr[i];
        switch (c) {
        case '\\': stax_test_buf_puts(s, "\\\\"); break;
        case '"': stax_test_buf_puts(s, "\\\""); break;
        case '\n': stax_test_buf_puts(s, "\\n"); break;
        case '\t': stax_test_buf_puts(s, "\\t"); break;
        case '\r': stax_test_buf_puts(s, "\\r"); break;
        default:
            if (c < 0x20 || c == 0x7F)
                stax_test_buf_printf(s, "\\x%02X", c);
            else
                stax_test_buf_put(s, (const char *)&c, 1);
        }
    }
    stax_test_buf_put(s, "\"", 1);
}

static void sb_bare(sbuf *s, stax_str v, int *null_seen) {
    if (v.len > 0 && v.ptr == NULL) {
        *null_seen = 1;
        return;
    }
    stax_test_buf_put(s, v.ptr, v.len);
}

/* ================================================================ status names */

const char *stax_test_status_name(int status) {
    switch (status) {
    case STAX_OK: return "OK";
    case STAX_NEED_INPUT: return "NEED_INPUT";
    case STAX_END: return "END";
    case STAX_WOULD_BLOCK: return "WOULD_BLOCK";
    case STAX_E_NOMEM: return "NOMEM";
    case STAX_E_USAGE: return "USAGE";
    case STAX_E_IO: return "IO";
    case STAX_E_INTERNAL: return "INTERNAL";
    case STAX_E_SYNTAX: return "SYNTAX";
    case STAX_E_ENCODING: return "ENCODING";
    case STAX_E_CHAR: return "CHAR";
    case STAX_E_NAME: return "NAME";
    case STAX_E_TAG_MISMATCH: return "TAG_MISMATCH";
    case STAX_E_DUP_ATTR: return "DUP_ATTR";
    case STAX_E_ENTITY: return "ENTITY";
    case STAX_E_CHARREF: return "CHARREF";
    case STAX_E_STRUCTURE: return "STRUCTURE";
    case STAX_E_TRUNCATED: return "TRUNCATED";
    case STAX_E_UNSUPPORTED: return "UNSUPPORTED";
    case STAX_E_LIMIT_DEPTH: return "LIMIT_DEPTH";
    case STAX_E_LIMIT_NAME: return "LIMIT_NAME";
    case STAX_E_LIMIT_ATTRS: return "LIMIT_ATTRS";
    case STAX_E_LIMIT_TOKEN: return "LIMIT_TOKEN";
    case STAX_E_LIMIT_ENTITY: return "LIMIT_ENTITY";
    case STAX_E_LIMIT_DTD: return "LIMIT_DTD";
    case STAX_E_LIMIT_NS: return "LIMIT_NS";
    case STAX_E_NAMESPACE: return "NAMESPACE";
    case STAX_E_DTD: return "DTD";
    case STAX_E_LIMIT_HELD: return "LIMIT_HELD";
    case STAX_E_LIMIT_STATE: return "LIMIT_STATE";
    case STAX_E_LIMIT_XML_MEMORY: return "LIMIT_XML_MEMORY";
    case STAX_E_FULL: return "FULL";
    case STAX_E_STATE: return "STATE";
    case STAX_E_INVALID: return "INVALID";
    default: return "UNKNOWN-STATUS";
    }
}

/* ================================================================ dumping */

static unsigned allowed_flags(int type) {
    switch (type) {
    case STAX_EV_START: return STAX_EVF_EMPTY;
    case STAX_EV_TEXT: return STAX_EVF_WHITESPACE | STAX_EVF_CONTINUED;
    case STAX_EV_CDATA: return STAX_EVF_CONTINUED;
    case STAX_EV_XMLDECL: return STAX_EVF_STANDALONE_YES | STAX_EVF_STANDALONE_NO;
    case STAX_EV_DOCTYPE: return STAX_EVF_HAS_SUBSET;
    default: return 0;
    }
}

/* A name's namespace parts (STAX_DUMP_NS), and NS-APART where they are
 * not the name's own bytes (its prefix at its start, its local part at its
 * end). */
static void dump_qname(sbuf *s, stax_str name, stax_qname q, int *null_seen) {
    if (q.prefix.ptr != name.ptr || q.local.len > name.len || q.local.ptr != name.ptr + name.len - q.local.len)
        stax_test_buf_puts(s, " NS-APART");
    stax_test_buf_puts(s, " {");
    sb_bare(s, q.uri, null_seen);
    stax_test_buf_puts(s, "}");
    sb_bare(s, q.prefix, null_seen);
    stax_test_buf_puts(s, ":");
    sb_bare(s, q.local, null_seen);
}

static void dump_event(sbuf *s, const stax_batch *b, size_t i, unsigned dump_flags) {
    int type = stax_ev_type(b, i);
    unsigned flags = stax_ev_flags(b, i);
    int null_seen = 0;
    switch (type) {
    case STAX_EV_START:
        stax_test_buf_puts(s, "START ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        for (size_t k = 0; k < stax_ev_attr_count(b, i); k++) {
            stax_test_buf_put(s, " ", 1);
            sb_bare(s, stax_ev_attr_name(b, i, k), &null_seen);
            stax_test_buf_put(s, "=", 1);
            sb_quoted(s, stax_ev_attr_value(b, i, k), &null_seen);
            unsigned af = stax_ev_attr_flags(b, i, k);
            if (af & STAX_ATTRF_DEFAULTED) stax_test_buf_put(s, "*", 1);
            if (af & ~STAX_ATTRF_DEFAULTED) stax_test_buf_printf(s, "?0x%X", af & ~STAX_ATTRF_DEFAULTED);
        }
        if (flags & STAX_EVF_EMPTY) stax_test_buf_puts(s, " /");
        if ((dump_flags & STAX_DUMP_NS) && b->ev_ns) {
            dump_qname(s, stax_ev_name(b, i), b->ev_ns[i], &null_seen);
            for (size_t k = 0; k < stax_ev_attr_count(b, i); k++)
                dump_qname(s, stax_ev_attr_name(b, i, k), b->attr_ns[b->events[i].attr_first + k], &null_seen);
        }
        break;
    case STAX_EV_END:
        stax_test_buf_puts(s, "END ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        if ((dump_flags & STAX_DUMP_NS) && b->ev_ns) dump_qname(s, stax_ev_name(b, i), b->ev_ns[i], &null_seen);
        break;
    case STAX_EV_TEXT:
    case STAX_EV_CDATA:
        stax_test_buf_puts(s, type == STAX_EV_TEXT ? "TEXT " : "CDATA ");
        sb_quoted(s, stax_ev_text(b, i), &null_seen);
        if (flags & STAX_EVF_WHITESPACE && type == STAX_EV_TEXT) stax_test_buf_puts(s, " ws");
        if (flags & STAX_EVF_CONTINUED) stax_test_buf_puts(s, " +");
        break;
    case STAX_EV_COMMENT:
        stax_test_buf_puts(s, "COMMENT ");
        sb_quoted(s, stax_ev_text(b, i), &null_seen);
        break;
    case STAX_EV_PI:
        stax_test_buf_puts(s, "PI ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        stax_test_buf_put(s, " ", 1);
        sb_quoted(s, stax_ev_text(b, i), &null_seen);
        break;
    case STAX_EV_DOCTYPE:
        stax_test_buf_puts(s, "DOCTYPE ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        stax_test_buf_puts(s, " pub=");
        sb_quoted(s, stax_ev_pubid(b, i), &null_seen);
        stax_test_buf_puts(s, " sys=");
        sb_quoted(s, stax_ev_sysid(b, i), &null_seen);
        if (flags & STAX_EVF_HAS_SUBSET) {
            stax_test_buf_puts(s, " subset=");
            sb_quoted(s, stax_ev_text(b, i), &null_seen);
        } else if (stax_ev_text(b, i).len > 0) {
            stax_test_buf_puts(s, " text=");
            sb_quoted(s, stax_ev_text(b, i), &null_seen);
        }
        break;
    case STAX_EV_XMLDECL:
        stax_test_buf_puts(s, "XMLDECL ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        stax_test_buf_puts(s, " enc=");
        sb_quoted(s, stax_ev_text(b, i), &null_seen);
        if ((flags & STAX_EVF_STANDALONE_YES) && (flags & STAX_EVF_STANDALONE_NO))
            stax_test_buf_puts(s, " sa=yes+no");
        else if (flags & STAX_EVF_STANDALONE_YES)
            stax_test_buf_puts(s, " sa=yes");
        else if (flags & STAX_EVF_STANDALONE_NO)
            stax_test_buf_puts(s, " sa=no");
        else
            stax_test_buf_puts(s, " sa=-");
        break;
    case STAX_EV_ENTITY_REF:
        stax_test_buf_puts(s, "ENTITY_REF ");
        sb_bare(s, stax_ev_name(b, i), &null_seen);
        if (stax_ev_pubid(b, i).len || stax_ev_sysid(b, i).len) {
            stax_test_buf_puts(s, " pub=");
            sb_quoted(s, stax_ev_pubid(b, i), &null_seen);
            stax_test_buf_puts(s, " sys=");
            sb_quoted(s, stax_ev_sysid(b, i), &null_seen);
        }
        break;
    case STAX_EV_DOCUMENT_END: stax_test_buf_puts(s, "DOCUMENT_END"); break;
    default:
        stax_test_buf_printf(s, "EVENT-TYPE-%d", type);
        break;
    }
    if (flags & ~allowed_flags(type)) stax_test_buf_printf(s, " flags=0x%02X", flags & ~allowed_flags(type));
    if ((dump_flags & STAX_DUMP_NS) && b->ev_ns && type != STAX_EV_START && type != STAX_EV_END) {
        stax_qname q = b->ev_ns[i];
        if (q.prefix.ptr || q.prefix.len || q.local.ptr || q.local.len || q.uri.ptr || q.uri.len) stax_test_buf_puts(s, " NS-SET");
    }
    if (dump_flags & STAX_DUMP_POS) {
        /* " @line:column:offset", as printf's %llu writes them: printf for every
         * event was a third of a long input's run under qemu */
        stax_pos p = stax_ev_pos(b, i);
        unsigned long long v[3] = {p.line, p.column, p.offset};
        char tmp[3 * 21 + 2], *e = tmp + sizeof tmp, *q = e;
        for (int k = 2; k >= 0; k--) {
            unsigned long long x = v[k];
            do *--q = (char)('0' + x % 10); while ((x /= 10) != 0);
            *--q = k ? ':' : '@';
        }
        *--q = ' ';
        stax_test_buf_put(s, q, (size_t)(e - q));
    }
    stax_test_buf_put(s, "\n", 1);
    if (null_seen) stax_test_buf_puts(s, "NULL-STRING\n");
}

void stax_test_dump_event(stax_test_buf *out, const stax_batch *b, size_t i, unsigned dump_flags) {
    dump_event(out, b, i, dump_flags);
}

typedef struct run {
    sbuf out;
    unsigned dump_flags;
    size_t max_batch;
    size_t events;
    int digest;    /* hash each event's dump line instead of keeping it */
    uint64_t hash; /* FNV-1a 64 of the event lines so far */
    sbuf line;     /* the event line being hashed */
} run;

static void run_init(run *u, const stax_reader_options *opt, unsigned dump_flags) {
    memset(u, 0, sizeof *u);
    u->dump_flags = dump_flags;
    /* the reader raises batch_events below 2 to 2 (stax.h) */
    u->max_batch = opt && opt->batch_events ? (opt->batch_events < 2 ? 2 : opt->batch_events) : 256;
    sb_reserve(&u->out, 0);
}

/* Call next() until it stops giving batches; returns what stopped it. */
static int run_drain(run *u, stax_reader *r) {
    for (;;) {
        const stax_batch *b = NULL;
        int st = stax_reader_next(r, &b);
        if (st != STAX_OK) return st;
        if (!b || b->count == 0) {
            stax_test_buf_puts(&u->out, "EMPTY-BATCH\n");
            return HARNESS_STOP;
        }
        if (b->count > u->max_batch) stax_test_buf_printf(&u->out, "BATCH-TOO-BIG %zu\n", b->count);
        for (size_t i = 0; i < b->count; i++) {
            if (!u->digest) {
                dump_event(&u->out, b, i, u->dump_flags);
                continue;
            }
            u->line.len = 0;
            dump_event(&u->line, b, i, u->dump_flags);
            for (size_t k = 0; k < u->line.len; k++) u->hash = (u->hash ^ (unsigned char)u->line.p[k]) * 0x100000001B3ull;
            /* a contract violation (NULL-STRING) stays visible in the result */
            if (u->line.len > 12 && strcmp(u->line.p + u->line.len - 12, "NULL-STRING\n") == 0)
                stax_test_buf_puts(&u->out, "NULL-STRING\n");
        }
        u->events += b->count;
        if (u->events > HARNESS_MAX_EVENTS) {
            stax_test_buf_puts(&u->out, "TOO-MANY-EVENTS\n");
            return HARNESS_STOP;
        }
    }
}

/* Append the status line, then any contract violation seen while checking
 * that the status is sticky. */
static void run_finish(run *u, stax_reader *r, int st) {
    if (st == HARNESS_STOP) return;
    if (st == STAX_END) {
        stax_test_buf_puts(&u->out, "END-OF-DOCUMENT\n");
        return;
    }
    if (st >= 0) {
        stax_test_buf_printf(&u->out, "STOPPED %s\n", stax_test_status_name(st));
        return;
    }
    stax_pos p = stax_reader_error_pos(r);
    stax_test_buf_printf(&u->out, "ERROR %s @%llu:%llu:%llu", stax_test_status_name(st), (unsigned long long)p.line,
              (unsigned long long)p.column, (unsigned long long)p.offset);
    if (u->dump_flags & STAX_DUMP_MESSAGE) stax_test_buf_printf(&u->out, ": %s", stax_reader_message(r));
    stax_test_buf_puts(&u->out, "\n");
    if (stax_reader_status(r) != st)
        stax_test_buf_printf(&u->out, "STATUS-MISMATCH %s\n", stax_test_status_name(stax_reader_status(r)));
    const stax_batch *b = NULL;
    int again = stax_reader_next(r, &b);
    if (again != st) stax_test_buf_printf(&u->out, "NOT-STICKY %s\n", stax_test_status_name(again));
    stax_pos q = stax_reader_error_pos(r);
    if (q.line != p.line || q.column != p.column || q.offset != p.offset) stax_test_buf_puts(&u->out, "ERRPOS-MOVED\n");
    const char *msg = stax_reader_message(r);
    if (!msg || !*msg) stax_test_buf_puts(&u->out, "NO-MESSAGE\n");
}

typedef size_t (*chunk_picker)(void *ctx, size_t left);

static char *run_push_mode(const char *doc, size_t len, chunk_picker pick, void *ctx,
                           const stax_reader_options *opt, unsigned dump_flags, int digest, int *status) {
    run u;
    run_init(&u, opt, dump_flags);
    u.digest = digest;
    u.hash = 0xCBF29CE484222325ull;
    int st = STAX_NEED_INPUT;
    stax_reader *r = stax_reader_new(opt);
    if (!r) {
        stax_test_buf_puts(&u.out, "NEW-FAILED\n");
        if (status) *status = STAX_E_NOMEM;
        return sb_finish(&u.out);
    }
    size_t pos = 0;
    while (pos < len) {
        size_t n = pick(ctx, len - pos);
        if (n == 0 || n > len - pos) n = len - pos;
        /* An exact-size copy: ASan sees any read past the chunk, and freeing it
         * once the reader asks for more catches pointers kept into old chunks. */
        char *copy = __real_malloc(n);
        cr_assert_not_null(copy, "harness: out of memory");
        memcpy(copy, doc + pos, n);
        int fst = stax_reader_feed(r, copy, n);
        if (fst != STAX_OK) {
            stax_test_buf_printf(&u.out, "FEED-FAILED %s\n", stax_test_status_name(fst));
            __real_free(copy);
            st = HARNESS_STOP;
            break;
        }
        st = run_drain(&u, r);
        __real_free(copy);
        pos += n;
        if (st != STAX_NEED_INPUT) break;
    }
    if (st == STAX_NEED_INPUT) {
        int est = stax_reader_end(r);
        if (est != STAX_OK) {
            stax_test_buf_printf(&u.out, "END-FAILED %s\n", stax_test_status_name(est));
            st = HARNESS_STOP;
        } else {
            st = run_drain(&u, r);
            if (st == STAX_NEED_INPUT) {
                stax_test_buf_puts(&u.out, "NEED-INPUT-AFTER-END\n");
                st = HARNESS_STOP;
            }
        }
    } else if (st == STAX_END) {
        /* Misc may follow the root: the end is known only once input ends. */
        stax_test_buf_puts(&u.out, "END-BEFORE-INPUT-END\n");
        st = HARNESS_STOP;
    }
    run_finish(&u, r, st);
    if (status) *status = st;
    stax_reader_free(r);
    if (digest) {
        sbuf head = {0};
        stax_test_buf_printf(&head, "DIGEST %016llx EVENTS %zu\n", (unsigned long long)u.hash, u.events);
        stax_test_buf_put(&head, u.out.p, u.out.len);
        stax_test_buf_free(&u.out);
        stax_test_buf_free(&u.line);
        return sb_finish(&head);
    }
    return sb_finish(&u.out);
}

static char *run_push(const char *doc, size_t len, chunk_picker pick, void *ctx, const stax_reader_options *opt,
                      unsigned dump_flags, int *status) {
    return run_push_mode(doc, len, pick, ctx, opt, dump_flags, 0, status);
}

static size_t pick_fixed(void *ctx, size_t left) {
    size_t n = *(const size_t *)ctx;
    return n == 0 || n > left ? left : n;
}

char *stax_test_events_ex(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt,
                          unsigned dump_flags, int *status) {
    return run_push(doc, len, pick_fixed, &chunk, opt, dump_flags, status);
}

char *stax_test_digest(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt,
                       unsigned dump_flags, int *status) {
    return run_push_mode(doc, len, pick_fixed, &chunk, opt, dump_flags, 1, status);
}

char *stax_test_events(const char *doc, size_t len, size_t chunk, const stax_reader_options *opt, int *status) {
    return stax_test_events_ex(doc, len, chunk, opt, 0, status);
}

/* The first chunk ends at *at; the second is the rest. */
static size_t pick_split(void *ctx, size_t left) {
    size_t *at = ctx, n = *at ? *at : left;
    *at = 0;
    return n > left ? left : n;
}

char *stax_test_events_split(const char *doc, size_t len, size_t at, const stax_reader_options *opt,
                             unsigned dump_flags) {
    return run_push(doc, len, pick_split, &at, opt, dump_flags, NULL);
}

typedef struct random_chunks {
    uint32_t state;
    size_t max_chunk;
} random_chunks;

static size_t pick_random(void *ctx, size_t left) {
    random_chunks *rc = ctx;
    /* xorshift32: deterministic per seed, no libc state */
    uint32_t x = rc->state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rc->state = x;
    size_t n = 1 + (size_t)(x % (rc->max_chunk ? rc->max_chunk : 1));
    return n > left ? left : n;
}

char *stax_test_events_random(const char *doc, size_t len, uint32_t seed, size_t max_chunk,
                              const stax_reader_options *opt, unsigned dump_flags) {
    random_chunks rc = {seed ? seed : 0x9E3779B9u, max_chunk};
    return run_push(doc, len, pick_random, &rc, opt, dump_flags, NULL);
}

char *stax_test_events_all(const char *doc, size_t len, const stax_reader_options *opt, unsigned dump_flags) {
    char *first = stax_test_events_ex(doc, len, stax_test_chunk_sizes[0], opt, dump_flags, NULL);
    for (size_t k = 1; k < stax_test_chunk_count; k++) {
        char *d = stax_test_events_ex(doc, len, stax_test_chunk_sizes[k], opt, dump_flags, NULL);
        cr_assert_str_eq(d, first, "chunk size %zu gives:\n%s\nbut the whole document gives:\n%s",
                         stax_test_chunk_sizes[k], d, first);
        int keep = stax_test_forbid_malloc;
        stax_test_forbid_malloc = 0;
        free(d);
        stax_test_forbid_malloc = keep;
    }
    return first;
}

char *stax_test_pull_events(stax_reader *r, const stax_reader_options *opt, unsigned dump_flags) {
    run u;
    run_init(&u, opt, dump_flags);
    int st = run_drain(&u, r);
    if (st == STAX_NEED_INPUT) {
        stax_test_buf_puts(&u.out, "UNEXPECTED-NEED-INPUT\n");
        st = HARNESS_STOP;
    }
    run_finish(&u, r, st);
    return sb_finish(&u.out);
}

uint32_t stax_test_utf8_next(const unsigned char *s, size_t *i) {
    uint32_t c = s[*i];
    int l = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (l == 2) c = ((c & 0x1F) << 6) | (s[*i + 1] & 0x3F);
    if (l == 3) c = ((c & 0x0F) << 12) | ((s[*i + 1] & 0x3Fu) << 6) | (s[*i + 2] & 0x3F);
    if (l == 4) c = ((c & 0x07) << 18) | ((s[*i + 1] & 0x3Fu) << 12) | ((s[*i + 2] & 0x3Fu) << 6) | (s[*i + 3] & 0x3F);
    *i += (size_t)l;
    return c;
}

const char *stax_test_last_line(const char *dump) {
    static char line[1024];
    size_t n = strlen(dump);
    if (n && dump[n - 1] == '\n') n--;
    size_t start = n;
    while (start > 0 && dump[start - 1] != '\n') start--;
    size_t len = n - start < sizeof line - 1 ? n - start : sizeof line - 1;
    memcpy(line, dump + start, len);
    line[len] = '\0';
    return line;
}

void stax_test_expect_status(const char *doc, size_t len, const stax_reader_options *opt, const char *want) {
    /* Only the status line must agree across chunk sizes: how many events
     * come before an error may depend on where batches end. */
    for (size_t k = 0; k < stax_test_chunk_count; k++) {
        char *d = stax_test_events_ex(doc, len, stax_test_chunk_sizes[k], opt, STAX_DUMP_POS, NULL);
        int keep = stax_test_forbid_malloc;
        stax_test_forbid_malloc = 0;
        cr_assert_str_eq(stax_test_last_line(d), want, "chunk size %zu, document:\n%.*s\nevents:\n%s",
                         stax_test_chunk_sizes[k], (int)len, doc, d);
        free(d);
        stax_test_forbid_malloc = keep;
    }
}

void stax_test_expect_events(const char *doc, size_t len, const stax_reader_options *opt, unsigned dump_flags,
                             const char *want) {
    char *d = stax_test_events_all(doc, len, opt, dump_flags);
    cr_assert_str_eq(d, want, "document:\n%.*s\ngot:\n%s\nwant:\n%s", (int)len, doc, d, want);
    free(d);
}

void stax_test_cursor_open(stax_test_cursor *c, stax_reader *r, const char *doc, size_t len) {
    memset(c, 0, sizeof *c);
    c->r = r;
    c->status = stax_reader_feed(r, doc, len);
    cr_assert_eq(c->status, STAX_OK, "feed: %s", stax_test_status_name(c->status));
}

int stax_test_cursor_next(stax_test_cursor *c) {
    if (c->b && c->i + 1 < c->b->count) {
        c->i++;
        return 1;
    }
    for (;;) {
        int st = stax_reader_next(c->r, &c->b);
        if (st == STAX_OK) {
            cr_assert_gt(c->b->count, 0, "empty batch");
            c->i = 0;
            return 1;
        }
        c->b = NULL;
        if (st == STAX_NEED_INPUT && !c->ended) {
            c->ended = 1;
            int est = stax_reader_end(c->r);
            cr_assert_eq(est, STAX_OK, "end: %s", stax_test_status_name(est));
            continue;
        }
        c->status = st;
        return 0;
    }
}

/* ================================================================ fixtures */


/* The fixtures folder: ./fixtures when run from the top of the tree (make
 * does), else next to this source file. */
static const char *fixture_dir(void) {
    static char dir[512];
    DIR *d = opendir("fixtures");
    if (d) {
        closedir(d);
        return "fixtures";
    }
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    size_t n = slash ? (size_t)(slash - src) : 0;
    snprintf(dir, sizeof dir, "%.*s%s../fixtures", (int)n, src, n ? "/" : "");
    return dir;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const stax_test_fixture *)a)->name, ((const stax_test_fixture *)b)->name);
}

/* Load every .xml file of fixtures/, sorted by name; returns how many. */
size_t stax_test_load_fixtures(stax_test_fixture **out) {
    const char *dir = fixture_dir();
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no fixtures folder (looked in %s)", dir);
    size_t n = 0, cap = 32;
    stax_test_fixture *fx = calloc(cap, sizeof *fx);
    cr_assert_not_null(fx);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".xml") != 0 || l >= sizeof fx->name) continue;
        if (n == cap) {
            cap *= 2;
            fx = realloc(fx, cap * sizeof *fx);
            cr_assert_not_null(fx);
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        memcpy(fx[n].name, e->d_name, l + 1);
        fx[n].data = read_all(path, &fx[n].len);
        fx[n].bad = strncmp(e->d_name, "bad-", 4) == 0;
        n++;
    }
    closedir(d);
    qsort(fx, n, sizeof *fx, by_name);
    *out = fx;
    return n;
}

void stax_test_free_fixtures(stax_test_fixture *fx, size_t n) {
    for (size_t i = 0; i < n; i++) free(fx[i].data);
    free(fx);
}

int stax_test_full(void) {
    const char *q = getenv("STAX_TEST_FULL");
    return q && strcmp(q, "1") == 0;
}

int stax_test_sampled(size_t i) { return stax_test_full() || i % STAX_TEST_SAMPLE_STEP == 0; }

const char *stax_test_bin(void) {
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 16);
    if (n > 0) {
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        if (slash) {
            strcpy(slash + 1, "stax");
            if (access(path, X_OK) == 0) return path;
        }
    }
    cr_assert_eq(access("build/stax", X_OK), 0, "no stax binary (make all)");
    char cwd[3072]; /* absolute: a command may change directory */
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/build/stax", cwd);
    return path;
}

int stax_test_shell(const char *cmdline, char *out, size_t cap) {
    FILE *p = popen(cmdline, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

stax_test_stderr stax_test_stderr_begin(void) {
    stax_test_stderr c;
    c.file = tmpfile();
    cr_assert_not_null(c.file);
    fflush(stderr);
    c.saved = dup(2);
    dup2(fileno(c.file), 2);
    return c;
}

void stax_test_stderr_end(stax_test_stderr *c, char *err, size_t cap) {
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    rewind(c->file);
    err[fread(err, 1, cap - 1, c->file)] = '\0';
    fclose(c->file);
}
