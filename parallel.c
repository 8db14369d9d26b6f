/* One document on several threads: cut, guess, verify (par_ prefix for
 * file-local names). It sits above save and resume (reader_context.c) and
 * uses only the public reader API and the context's layout (reader.h:
 * STAX__CTX_POS_AT, stax__context_seal).
 *
 * Part 0 is read first, on the calling thread, up to the first cut: a '<'
 * followed by a name start character at which the reader, fed up to and
 * including that '<', is inside the root and can save its context with
 * exactly that offset. That context is the guess for every later part: part
 * k (k >= 1) starts at cut(k), the first candidate at or after
 * first + (k - 1) * part_size, and is read by a worker from the guess moved
 * to (cut(k), line 1, column 1), fed up to cut(k + 1) inclusive (the '<' ends
 * the text before it), and then saves its own end context.
 *
 * The calling thread verifies the parts in order. Part k's guess was right
 * when the final reader of part k - 1 saved an end context whose offset is
 * cut(k) and whose bytes, but for the position, are the guess's: the two
 * readers then stand in the same state, so part k's batches are the serial
 * ones (only lines and columns count from the part's start: done gets the
 * real start to add). Otherwise part k is read again on the calling thread:
 * from that end context with its real position, or, when none could be
 * saved (a text run or CDATA section goes on across the cut), by going on
 * with part k - 1's reader. A part that stopped with an error is read again
 * from its real start, so that the message and the position are the serial
 * ones. Parts are given to workers at most slots - 1 ahead of the part being
 * verified, so memory is bounded by the slots, never by the document. */
#include "reader.h"

#if !defined(STAX_NO_THREADS) && !defined(STAX_NO_RESUME)
#define PAR_THREADS 1
#include <pthread.h>
#ifndef STAX_NO_STDIO
#include <unistd.h>
#endif
#endif

#define PAR_DEFAULT_PART ((size_t)4 << 20)

unsigned stax_parallel_threads(unsigned threads) {
#ifdef PAR_THREADS
    if (threads) return threads;
#if !defined(STAX_NO_STDIO) && defined(_SC_NPROCESSORS_ONLN)
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0) return n > 1024 ? 1024u : (unsigned)n;
#endif
#endif
    (void)threads;
    return 1;
}

/* ================================================================ one part */

/* Batches to the callback until the reader needs input or stops; *cb is what
 * the callback returned (reading stops when it is not 0). */
static int par_drain(const stax_parallel_options *o, stax_reader *r, size_t part, int *cb) {
    const stax_batch *b;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK)
        if (o->batch && (*cb = o->batch(o->ud, part, b)) != 0) break;
    return st;
}

static int par_begin(const stax_parallel_options *o, size_t part) { return o->begin ? o->begin(o->ud, part) : 0; }

/* The result of the read, from the reader that read its last part. */
static int par_finish(const stax_parallel_options *o, stax_parallel_result *res, stax_reader *r, int st, int cb,
                      size_t part, stax_pos base) {
    if (cb) return res->status = cb;
    if (o->done && (cb = o->done(o->ud, part, base)) != 0) return res->status = cb;
    if (st >= 0) return res->status = STAX_OK;
    res->status = st;
    res->err_pos = stax_parallel_pos(base, stax_reader_error_pos(r));
    stax_str_copy(stax_strz(stax_reader_message(r)), res->message, sizeof res->message);
    return st;
}

static stax_pos par_origin(uint64_t offset) {
    stax_pos p;
    p.offset = offset;
    p.line = 1;
    p.column = 1;
    return p;
}

/* The whole document as part 0. */
static int par_serial(const stax_parallel_options *o, const char *data, size_t len, stax_parallel_result *res) {
    stax_reader *r = stax_reader_new(o->reader);
    if (!r) return res->status = STAX_E_NOMEM;
    int cb = par_begin(o, 0), st = STAX_NEED_INPUT;
    if (!cb && len) {
        stax_reader_feed(r, data, len);
        st = par_drain(o, r, 0, &cb);
    }
    if (!cb && st == STAX_NEED_INPUT) {
        stax_reader_end(r);
        st = par_drain(o, r, 0, &cb);
    }
    res->parts = 1;
    par_finish(o, res, r, st, cb, 0, par_origin(0));
    stax_reader_free(r);
    return res->status;
}

#ifdef PAR_THREADS
/* ================================================================ cuts */

typedef struct par_slot {
    stax__mem mem;       /* for the two contexts (a slot is used by one thread at a time) */
    size_t part;         /* the part it holds */
    int ready;           /* the part has been read (under par.mu) */
    stax_reader *r;
    int st, cb;          /* the reader's last status, what a callback returned */
    unsigned char *ctx;  /* the context it started from */
    size_t ctx_cap;
    unsigned char *end;  /* the context it ended with, when end_ok */
    size_t end_cap, end_len;
    int end_ok;
} par_slot;

typedef struct par {
    const stax_parallel_options *o;
    const char *data;
    size_t len, first, psize;
    size_t first_name; /* the length of the name after the first cut's '<' */
    unsigned char *guess; /* the context at the first cut */
    size_t guess_len;
    par_slot *slots;
    size_t nslots;
    size_t next;   /* the next part a worker takes */
    size_t verify; /* the part being verified */
    int stop;
    stax__mem mem;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par;

static int par_name_start(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int par_name_char(unsigned char c) {
    return par_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* The first candidate cut at or after at: len when there is none. */
static size_t par_candidate(const par *p, size_t at) {
    while (at + 1 < p->len) {
        const char *q = (const char *)memchr(p->data + at, '<', p->len - 1 - at);
        if (!q) break;
        at = (size_t)(q - p->data);
        if (par_name_start((unsigned char)p->data[at + 1])) return at;
        at++;
    }
    return p->len;
}

/* The first candidate at or after at that opens an element of the first
 * cut's name (in a record-like document, a record at the guessed depth),
 * looked for in the next part_size bytes; else the first candidate. */
static size_t par_candidate_like(const par *p, size_t at) {
    size_t c = par_candidate(p, at), stop = p->len - at > p->psize ? at + p->psize : p->len;
    for (size_t x = c; x < stop; x = par_candidate(p, x + 1)) {
        size_t end = x + 1 + p->first_name;
        if (end < p->len && memcmp(p->data + x + 1, p->data + p->first + 1, p->first_name) == 0 &&
            !par_name_char((unsigned char)p->data[end]))
            return x;
    }
    return c;
}

/* Where part k (k >= 1) starts; len when there is no part k. */
static size_t par_cut(const par *p, size_t k) {
    if (k == 1) return p->first;
    if (k - 1 > (p->len - p->first) / p->psize) return p->len;
    return par_candidate_like(p, p->first + (k - 1) * p->psize);
}

static void par_put_u64(unsigned char *b, uint64_t v) {
    for (unsigned i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
}

static int par_reserve(par_slot *s, unsigned char **buf, size_t *cap, size_t need) {
    if (*cap >= need) return 0;
    void *q = stax__mem_realloc(&s->mem, *buf, *cap, need);
    if (!q) return -1;
    *buf = (unsigned char *)q;
    *cap = need;
    return 0;
}

/* Context src[0, n) moved to pos, into s->ctx: 0, or -1 without memory. */
static int par_move_context(par_slot *s, const unsigned char *src, size_t n, stax_pos pos) {
    if (par_reserve(s, &s->ctx, &s->ctx_cap, n)) return -1;
    memcpy(s->ctx, src, n);
    par_put_u64(s->ctx + STAX__CTX_POS_AT, pos.offset);
    par_put_u64(s->ctx + STAX__CTX_POS_AT + 8, pos.line);
    par_put_u64(s->ctx + STAX__CTX_POS_AT + 16, pos.column);
    stax__context_seal(s->ctx, n);
    return 0;
}

/* Save s->r's context into s->end (end_ok says whether it could be). */
static void par_save_end(par_slot *s) {
    size_t n = 0;
    s->end_ok = 0;
    int rc = stax_reader_save(s->r, s->end, s->end_cap, &n);
    if ((rc == STAX_OK && !s->end_cap) || rc == STAX_E_FULL) {
        if (par_reserve(s, &s->end, &s->end_cap, n)) return;
        rc = stax_reader_save(s->r, s->end, s->end_cap, &n);
    }
    if (rc == STAX_OK && s->end_cap) {
        s->end_len = n;
        s->end_ok = 1;
    }
}

/* Feed s->r the bytes [from, cut(k + 1)] (to the end, and end it, for the
 * last part), its batches to the callback as part k's. */
static void par_read_range(par *p, par_slot *s, size_t k, size_t from) {
    size_t e = par_cut(p, k + 1), to = e < p->len ? e + 1 : p->len;
    int st = STAX_NEED_INPUT;
    if (!s->cb && to > from) {
        stax_reader_feed(s->r, p->data + from, to - from);
        st = par_drain(p->o, s->r, k, &s->cb);
    }
    if (!s->cb && st == STAX_NEED_INPUT && e >= p->len) {
        stax_reader_end(s->r);
        st = par_drain(p->o, s->r, k, &s->cb);
    }
    s->st = st;
    s->end_ok = 0;
    if (!s->cb && st == STAX_NEED_INPUT) par_save_end(s);
}

/* Part k read by a fresh reader from context ctx[0, n) moved to pos. */
static void par_read_from(par *p, par_slot *s, size_t k, const unsigned char *ctx, size_t n, stax_pos pos) {
    s->cb = 0;
    s->end_ok = 0;
    s->r = stax_reader_new(p->o->reader);
    if (!s->r || par_move_context(s, ctx, n, pos) || stax_reader_resume(s->r, s->ctx, n) != STAX_OK) {
        s->st = s->r && stax_reader_status(s->r) != STAX_E_NOMEM ? STAX_E_INTERNAL : STAX_E_NOMEM;
        return;
    }
    s->cb = par_begin(p->o, k);
    par_read_range(p, s, k, (size_t)pos.offset);
}

static void par_drop_reader(par_slot *s) {
    stax_reader_free(s->r);
    s->r = NULL;
}

/* ================================================================ workers */

static void *par_worker(void *arg) {
    par *p = (par *)arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next + 1 >= p->verify + p->nslots) pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop) break;
        size_t k = p->next++;
        par_slot *s = &p->slots[k % p->nslots];
        s->part = k;
        s->ready = 0;
        pthread_mutex_unlock(&p->mu);
        size_t c = par_cut(p, k);
        if (c < p->len) par_read_from(p, s, k, p->guess, p->guess_len, par_origin(c));
        pthread_mutex_lock(&p->mu);
        s->ready = 1;
        pthread_cond_broadcast(&p->cv);
        if (c >= p->len) break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ================================================================ the calling thread */

/* Part 0 up to the first cut: 1 when it was found (p->first, p->guess),
 * 0 when part 0 is the whole document (s->st, s->cb say how it ended). */
static int par_prolog(par *p, par_slot *s) {
    size_t fed = 0, at = 0;
    s->cb = par_begin(p->o, 0);
    s->st = STAX_NEED_INPUT;
    while (!s->cb && s->st == STAX_NEED_INPUT) {
        size_t c = par_candidate(p, at);
        if (c >= p->len) break;
        stax_reader_feed(s->r, p->data + fed, c + 1 - fed);
        fed = c + 1;
        s->st = par_drain(p->o, s->r, 0, &s->cb);
        if (s->cb || s->st != STAX_NEED_INPUT) return 0;
        at = c + 1;
        if (stax_reader_depth(s->r) < 1) continue;
        par_save_end(s);
        stax_pos pos;
        if (s->end_ok && stax_context_position(s->end, s->end_len, &pos) == STAX_OK && pos.offset == c) {
            unsigned char *g = (unsigned char *)stax__mem_alloc(&p->mem, s->end_len);
            if (!g) return 0; /* read on as part 0 */
            memcpy(g, s->end, s->end_len);
            p->first = c;
            for (p->first_name = 1; c + 1 + p->first_name < p->len &&
                                    par_name_char((unsigned char)p->data[c + 1 + p->first_name]);)
                p->first_name++;
            p->guess = g;
            p->guess_len = s->end_len;
            return 1;
        }
    }
    if (!s->cb && s->st == STAX_NEED_INPUT) {
        if (p->len > fed) {
            stax_reader_feed(s->r, p->data + fed, p->len - fed);
            s->st = par_drain(p->o, s->r, 0, &s->cb);
        }
        if (!s->cb && s->st == STAX_NEED_INPUT) {
            stax_reader_end(s->r);
            s->st = par_drain(p->o, s->r, 0, &s->cb);
        }
    }
    return 0;
}

/* Whether end context e[0, n) is the guess but for its position. */
static int par_same_but_position(const par *p, const unsigned char *e, size_t n) {
    const size_t after = STAX__CTX_POS_AT + STAX__CTX_POS_LEN;
    return n == p->guess_len && n >= after + 8 && memcmp(e, p->guess, STAX__CTX_POS_AT) == 0 &&
           memcmp(e + after, p->guess + after, n - after - 8) == 0;
}

/* Verify parts 1, 2, ... in order (part 0, read, is in slot 0), reading
 * again those whose guess was wrong; the read's result. */
static int par_verify(par *p, stax_parallel_result *res) {
    const stax_parallel_options *o = p->o;
    stax_pos base = par_origin(0);
    for (size_t k = 1;; k++) {
        par_slot *f = &p->slots[(k - 1) % p->nslots], *s = &p->slots[k % p->nslots];
        if (o->done && (f->cb = o->done(o->ud, k - 1, base)) != 0) return res->status = f->cb;
        pthread_mutex_lock(&p->mu);
        while (!(s->ready && s->part == k)) pthread_cond_wait(&p->cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
        size_t c = par_cut(p, k);
        stax_pos at;
        int known = f->end_ok && stax_context_position(f->end, f->end_len, &at) == STAX_OK;
        stax_pos real = known ? stax_parallel_pos(base, at) : base;
        int right = known && at.offset == c && par_same_but_position(p, f->end, f->end_len);
        if (right && s->st >= 0 && s->st != STAX_E_NOMEM) {
            base = real;
        } else if (known) { /* from the real end context, with its real position */
            par_drop_reader(s);
            res->rereads += !right;
            par_read_from(p, s, k, f->end, f->end_len, real);
            base = par_origin(real.offset);
        } else { /* go on with part k - 1's reader */
            par_drop_reader(s);
            res->rereads++;
            s->r = f->r;
            f->r = NULL;
            s->cb = par_begin(o, k);
            par_read_range(p, s, k, c + 1);
        }
        par_drop_reader(f);
        res->parts = k + 1;
        pthread_mutex_lock(&p->mu);
        p->verify = k + 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (!s->r) return res->status = s->st < 0 ? s->st : STAX_E_NOMEM;
        if (s->cb || s->st != STAX_NEED_INPUT) return par_finish(o, res, s->r, s->st, s->cb, k, base);
    }
}

static void par_free(par *p) {
    for (size_t i = 0; i < p->nslots; i++) {
        par_slot *s = &p->slots[i];
        stax_reader_free(s->r);
        stax__mem_free(&s->mem, s->ctx, s->ctx_cap);
        stax__mem_free(&s->mem, s->end, s->end_cap);
    }
    stax__mem_free(&p->mem, p->slots, p->nslots * sizeof *p->slots);
    stax__mem_free(&p->mem, p->guess, p->guess_len);
}

static int par_threads(const stax_parallel_options *o, const char *data, size_t len, stax_parallel_result *res) {
    par p;
    memset(&p, 0, sizeof p);
    p.o = o;
    p.data = data;
    p.len = len;
    p.psize = o->part_size ? o->part_size : PAR_DEFAULT_PART;
    unsigned nt = stax_parallel_threads(o->threads);
    p.nslots = (size_t)nt + 2;
    const stax_reader_options *ro = o->reader;
    stax__mem_init(&p.mem, ro ? ro->alloc : NULL, ro ? ro->alloc_ud : NULL, NULL, 0);
    p.slots = (par_slot *)stax__mem_alloc(&p.mem, p.nslots * sizeof *p.slots);
    if (!p.slots) return res->status = STAX_E_NOMEM;
    memset(p.slots, 0, p.nslots * sizeof *p.slots);
    for (size_t i = 0; i < p.nslots; i++) stax__mem_init(&p.slots[i].mem, p.mem.fn, p.mem.ud, NULL, 0);
    par_slot *s0 = &p.slots[0];
    s0->r = stax_reader_new(ro);
    if (!s0->r) {
        par_free(&p);
        return res->status = STAX_E_NOMEM;
    }
    res->parts = 1;
    if (!par_prolog(&p, s0)) {
        par_finish(o, res, s0->r, s0->st, s0->cb, 0, par_origin(0));
        par_free(&p);
        return res->status;
    }
    pthread_t *th = (pthread_t *)stax__mem_alloc(&p.mem, nt * sizeof *th);
    unsigned started = 0;
    int ok = th && pthread_mutex_init(&p.mu, NULL) == 0;
    if (ok && pthread_cond_init(&p.cv, NULL) != 0) {
        pthread_mutex_destroy(&p.mu);
        ok = 0;
    }
    p.next = 1;
    p.verify = 1;
    while (ok && started < nt && pthread_create(&th[started], NULL, par_worker, &p) == 0) started++;
    if (started) {
        par_verify(&p, res);
        pthread_mutex_lock(&p.mu);
        p.stop = 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    }
    if (ok) {
        pthread_cond_destroy(&p.cv);
        pthread_mutex_destroy(&p.mu);
    }
    stax__mem_free(&p.mem, th, nt * sizeof *th);
    par_free(&p);
    if (!started) return par_serial(o, data, len, res); /* no thread to be had: on this one */
    return res->status;
}
#endif /* PAR_THREADS */

int stax_parallel_read(const void *data, size_t len, const stax_parallel_options *opt, stax_parallel_result *res) {
    stax_parallel_result local;
    if (!res) res = &local;
    memset(res, 0, sizeof *res);
    if (!opt || (!data && len)) return res->status = STAX_E_USAGE;
    if (!data) data = "";
#ifdef PAR_THREADS
    if ((opt->threads != 1 || opt->part_size) && !(opt->reader && opt->reader->memory))
        return par_threads(opt, (const char *)data, len, res);
#endif
    return par_serial(opt, (const char *)data, len, res);
}
