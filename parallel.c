/* One document on several threads: cut, guess, verify (par_ prefix for
 * file-local names). It sits above save and resume (reader_context.c) and
 * uses only the public reader API (stax_context_move moves a context to a
 * cut, stax_context_equal compares two but for their positions).
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
 * verified, so memory is bounded by the slots, never by the document.
 *
 * Through a read function (a pipe) the same scheme reads parts out of the
 * slots' buffers: part 0 into slot 0's, then a feeder thread fills part k's
 * buffer until it can be cut, and moves the bytes from the cut on to part
 * k + 1's once that slot's part is done, so that each buffer holds one part
 * [cut(k), cut(k + 1)]. A part with no cut in a full buffer is read, with
 * the rest of the input, on the calling thread. */
#include "reader.h"

#if !defined(STAX_NO_THREADS) && !defined(STAX_NO_RESUME)
#define PAR_THREADS 1
#include <pthread.h>
#ifndef STAX_NO_STDIO
#include <unistd.h>
#endif
#endif

#define PAR_DEFAULT_PART ((size_t)4 << 20)
/* A read through a function: each buffer holds 2 * part_size + PAR_SLACK
 * bytes (part_size at most PAR_MAX_PART); serially, reads of PAR_SERIAL_READ
 * (PAR_FIXED_READ, on the stack, with a reader in a fixed block). */
#define PAR_SLACK ((size_t)64 << 10)
#define PAR_MAX_PART ((size_t)1 << 30)
#define PAR_SERIAL_READ ((size_t)64 << 10)
#define PAR_FIXED_READ 512

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

size_t stax_parallel_buffer_size(size_t part_size) {
    if (!part_size) part_size = PAR_DEFAULT_PART;
    if (part_size > PAR_MAX_PART) part_size = PAR_MAX_PART;
    return 2 * part_size + PAR_SLACK;
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
    if (o->done && (cb = o->done(o->ud, part, base)) != 0 && cb != STAX_AGAIN) return res->status = cb; /* no part after */
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

/* With fixed blocks: each reader's share of a slot's block (its first half). */
static size_t par_reader_block(const stax_parallel_options *o) { return o->block_size / 2 & ~(size_t)63; }

/* o->reader's options with the reader in block (par_reader_block bytes), into *buf. */
static const stax_reader_options *par_options_in(const stax_parallel_options *o, void *block, stax_reader_options *buf) {
    if (o->reader) *buf = *o->reader;
    else memset(buf, 0, sizeof *buf);
    buf->memory = block;
    buf->memory_size = par_reader_block(o);
    return buf;
}

/* The reader options of a read on the calling thread: o->reader's, or with
 * fixed blocks its reader in the first half of blocks[1] (into *buf). */
static const stax_reader_options *par_serial_options(const stax_parallel_options *o, stax_reader_options *buf) {
    return o->blocks ? par_options_in(o, o->blocks[1], buf) : o->reader;
}

/* Fixed blocks, when given: all stax_parallel_slots(threads) + 1 of them, and
 * no reader block besides. */
static int par_blocks_ok(const stax_parallel_options *o) {
    if (!o->blocks) return 1;
    if (o->reader && o->reader->memory) return 0;
    for (size_t i = 0, n = stax_parallel_slots(o->threads) + 1; i < n; i++)
        if (!o->blocks[i]) return 0;
    return 1;
}

#ifdef PAR_THREADS
/* Whether the input is read as one part: a fragment or a sequence of
 * documents (STAX_READ_FRAGMENT, STAX_READ_DOCUMENTS), whose cuts the
 * guess of one document's context does not describe. */
static int par_one_part(const stax_reader_options *ro) {
    return ro && (ro->flags & (STAX_READ_FRAGMENT | STAX_READ_DOCUMENTS));
}
#endif

/* The whole document as part 0. */
static int par_serial(const stax_parallel_options *o, const char *data, size_t len, stax_parallel_result *res) {
    stax_reader_options fixed;
    stax_reader *r = stax_reader_new(par_serial_options(o, &fixed));
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

/* One call of the caller's read function into buf[0, cap): what it returned,
 * or STAX_E_USAGE when it claims more than cap bytes (*got is then not to be
 * used). Every read of the input goes through here. */
static int par_read_into(int (*read)(void *, void *, size_t, size_t *), void *rud, void *buf, size_t cap, size_t *got) {
    *got = 0;
    int rc = read(rud, buf, cap, got);
    return !rc && *got > cap ? STAX_E_USAGE : rc;
}

/* The whole input through read as part 0, on the calling thread. */
static int par_serial_fn(const stax_parallel_options *o, int (*read)(void *, void *, size_t, size_t *), void *rud,
                         stax_parallel_result *res) {
    stax_reader_options in_blocks;
    const stax_reader_options *ro = par_serial_options(o, &in_blocks);
    char fixed[PAR_FIXED_READ];
    stax__mem m;
    stax__mem_init(&m, ro ? ro->alloc : NULL, ro ? ro->alloc_ud : NULL, NULL, 0);
    int in_block = ro && ro->memory;
    size_t cap = in_block ? sizeof fixed : PAR_SERIAL_READ;
    stax_reader *r = stax_reader_new(ro);
    char *buf = !r ? NULL : in_block ? fixed : (char *)stax__mem_alloc(&m, cap);
    if (!buf) {
        stax_reader_free(r);
        return res->status = STAX_E_NOMEM;
    }
    int cb = par_begin(o, 0), st = STAX_NEED_INPUT;
    while (!cb && st == STAX_NEED_INPUT) {
        size_t got;
        int rc = par_read_into(read, rud, buf, cap, &got);
        if (rc) {
            cb = rc;
        } else if (!got) {
            stax_reader_end(r);
            st = par_drain(o, r, 0, &cb);
            break;
        } else {
            stax_reader_feed(r, buf, got);
            st = par_drain(o, r, 0, &cb);
        }
    }
    res->parts = 1;
    par_finish(o, res, r, st, cb, 0, par_origin(0));
    stax_reader_free(r);
    if (!in_block) stax__mem_free(&m, buf, cap);
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
    size_t from, to;     /* in memory: where the part starts and ends (the next part's start) */
    int empty;           /* in memory: its window holds no cut (it starts at the end of the part before) */
    char *buf;           /* a read through a function: the part's bytes [boff, boff + blen) */
    size_t blen;
    uint64_t boff;
    int blast;           /* the input ends after them */
    int bopen;           /* no cut within the buffer: the rest of the input is read on the calling thread */
    int berr;            /* what the read function returned when it failed after them (0: none) */
    unsigned char *rblock; /* fixed blocks: the block of the slot's reader (it moves with the reader) */
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
    size_t empty_from, empty_to; /* parts known to be empty (a reader found their windows without a cut) */
    size_t verify; /* the part being verified */
    int stop;
    /* a read through a function: a feeder thread fills the slots' buffers */
    int (*read)(void *ud, void *buf, size_t cap, size_t *got);
    void *rud;
    size_t cap;      /* each buffer's size */
    size_t fed;      /* parts 1 .. fed - 1 are in their buffers */
    int fed_end;     /* and there is no part fed or after */
    size_t released; /* parts 0 .. released - 1 are done: their buffers can be filled again */
    size_t buffers, buffers_max;
    stax__mem fmem;  /* the buffers' (allocated by one thread at a time: the calling thread, then the feeder) */
    const char *name; /* the first cut's name, first_name bytes (a copy of the buffer's, for a read through a function) */
    char *name_copy;
    stax__mem mem;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} par;

/* A new reader for slot s: in the slot's reader block with fixed blocks. */
static stax_reader *par_new_reader(const par *p, const par_slot *s) {
    stax_reader_options ro;
    return stax_reader_new(p->o->blocks ? par_options_in(p->o, s->rblock, &ro) : p->o->reader);
}

static int par_name_start(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || c >= 0x80;
}

static int par_name_char(unsigned char c) {
    return par_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* The first candidate cut in d[at, n) (its name start character too): n
 * when there is none. */
static size_t par_candidate_in(const char *d, size_t n, size_t at) {
    while (at + 1 < n) {
        const char *q = (const char *)memchr(d + at, '<', n - 1 - at);
        if (!q) break;
        at = (size_t)(q - d);
        if (par_name_start((unsigned char)d[at + 1])) return at;
        at++;
    }
    return n;
}

/* The first candidate in d[at, stop) of d[0, n) (its name start character
 * may be at stop): stop when there is none. */
static size_t par_candidate_upto(const char *d, size_t n, size_t at, size_t stop) {
    size_t c = par_candidate_in(d, stop < n ? stop + 1 : n, at);
    return c < stop ? c : stop;
}

/* Whether the candidate at d[x] opens an element of the first cut's name. */
static int par_like(const par *p, const char *d, size_t n, size_t x) {
    size_t end = x + 1 + p->first_name;
    return end < n && memcmp(d + x + 1, p->name, p->first_name) == 0 && !par_name_char((unsigned char)d[end]);
}

/* Part k's window, [first + (k - 1) * part_size, + part_size) cut to the
 * document: *stop its end; its start, len when it starts at the end. */
static size_t par_window(const par *p, size_t k, size_t *stop) {
    size_t rest = p->len - p->first, at = k - 1 > rest / p->psize ? p->len : p->first + (k - 1) * p->psize;
    *stop = p->len - at > p->psize ? at + p->psize : p->len;
    return at;
}

/* Where part k starts. Part 1 at the first cut; part k >= 2 at a candidate in
 * its window, the first that opens an element of the first cut's name (in a
 * record-like document, a record at the guessed depth), else the first one.
 * PAR_EMPTY when the window holds none but the document goes on after it
 * (part k is empty: the part before goes on to the next part's start), len
 * when there is no part k. Only the window is looked at, never beyond, so
 * that a reader looks ahead of what it reads by one window at most. */
#define PAR_EMPTY SIZE_MAX
static size_t par_cut(const par *p, size_t k) {
    if (k == 1) return p->first;
    size_t stop, at = par_window(p, k, &stop), c = par_candidate_upto(p->data, p->len, at, stop);
    if (c >= stop) return stop < p->len ? PAR_EMPTY : p->len;
    for (size_t x = c; x < stop; x = par_candidate_upto(p->data, p->len, x + 1, stop))
        if (par_like(p, p->data, p->len, x)) return x;
    return c;
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
    return stax_context_move(s->ctx, n, pos) == STAX_OK ? 0 : -1;
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

/* The rest of the input through the read function, a buffer at a time into
 * buf[0, cap) (its bytes fed: the reader asks for more before it is written
 * over), fed to r as part k's; then the reader is ended. Its status. */
static int par_stream(par *p, stax_reader *r, char *buf, size_t k, int *cb) {
    int st = STAX_NEED_INPUT;
    for (;;) {
        size_t got;
        int rc = par_read_into(p->read, p->rud, buf, p->cap, &got);
        if (rc) {
            *cb = rc;
            return st;
        }
        if (!got) break;
        stax_reader_feed(r, buf, got);
        st = par_drain(p->o, r, k, cb);
        if (*cb || st != STAX_NEED_INPUT) return st;
    }
    stax_reader_end(r);
    return par_drain(p->o, r, k, cb);
}

/* Feed s->r part k's bytes from offset from to the next part's start
 * inclusive (to the end, and end it, for the last part), its batches to the
 * callback as part k's. A read through a function has them in s->buf; a part
 * with no cut in its buffer goes on with the rest of the input (on the
 * calling thread only: a worker does not read it). In memory the next part's
 * start is looked for a window at a time, each window with no candidate fed
 * before the next is looked at (an empty part ends where it starts). */
static void par_read_range(par *p, par_slot *s, size_t k, uint64_t from) {
    const char *d;
    size_t n;
    int last, open = 0, err = 0, st = STAX_NEED_INPUT;
    if (p->read) {
        size_t skip = (size_t)(from - s->boff);
        d = s->buf + skip;
        n = s->blen - skip;
        last = s->blast;
        open = s->bopen;
        err = s->berr;
    } else {
        size_t at = (size_t)from, e = s->empty ? s->from : PAR_EMPTY, stop, j = k + 1;
        for (; e == PAR_EMPTY && !s->cb && st == STAX_NEED_INPUT; j++) {
            if ((e = par_cut(p, j)) != PAR_EMPTY) break;
            (void)par_window(p, j, &stop);
            if (stop > at) {
                stax_reader_feed(s->r, p->data + at, stop - at);
                st = par_drain(p->o, s->r, k, &s->cb);
                at = stop;
            }
        }
        if (j > k + 2) { /* parts k + 1 .. j - 1 are empty: their workers need not look */
            pthread_mutex_lock(&p->mu);
            p->empty_from = k + 1;
            p->empty_to = j;
            pthread_mutex_unlock(&p->mu);
        }
        size_t to = e < p->len ? e + 1 : p->len;
        s->to = e;
        d = p->data + at;
        n = to > at && e != PAR_EMPTY ? to - at : 0;
        last = e >= p->len && e != PAR_EMPTY;
    }
    if (!s->cb && st == STAX_NEED_INPUT && n) {
        stax_reader_feed(s->r, d, n);
        st = par_drain(p->o, s->r, k, &s->cb);
    }
    if (!s->cb && st == STAX_NEED_INPUT) {
        if (err) {
            s->cb = err;
        } else if (open) {
            st = par_stream(p, s->r, s->buf, k, &s->cb);
        } else if (last) {
            stax_reader_end(s->r);
            st = par_drain(p->o, s->r, k, &s->cb);
        }
    }
    s->st = st;
    s->end_ok = 0;
    if (!s->cb && st == STAX_NEED_INPUT) par_save_end(s);
}

/* Part k read by a fresh reader from context ctx[0, n) moved to pos. */
static void par_read_from(par *p, par_slot *s, size_t k, const unsigned char *ctx, size_t n, stax_pos pos) {
    s->cb = 0;
    s->end_ok = 0;
    s->r = par_new_reader(p, s);
    if (!s->r || par_move_context(s, ctx, n, pos) || stax_reader_resume(s->r, s->ctx, n) != STAX_OK) {
        s->st = s->r && stax_reader_status(s->r) != STAX_E_NOMEM ? STAX_E_INTERNAL : STAX_E_NOMEM;
        return;
    }
    s->cb = par_begin(p->o, k);
    par_read_range(p, s, k, pos.offset);
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
        while (p->read && !p->stop && k >= p->fed && !p->fed_end) pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop) break;
        int have = p->read && k < p->fed, known_empty = k >= p->empty_from && k < p->empty_to;
        pthread_mutex_unlock(&p->mu);
        uint64_t c = p->read ? (have ? s->boff : 0) : known_empty ? PAR_EMPTY : par_cut(p, k);
        s->empty = !p->read && c == PAR_EMPTY;
        if (!p->read) {
            have = s->empty || c < p->len;
            s->from = (size_t)c;
        }
        if (have && ((p->read && s->bopen) || s->empty)) { /* read on the calling thread (with the rest of the input) */
            s->st = STAX_E_INTERNAL;
            s->cb = 0;
        } else if (have) {
            par_read_from(p, s, k, p->guess, p->guess_len, par_origin(c));
        }
        pthread_mutex_lock(&p->mu);
        s->ready = 1;
        pthread_cond_broadcast(&p->cv);
        if (!have) break;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ================================================================ the feeder */

/* A buffer for slot s: 0, or -1 without memory. */
static int par_buffer(par *p, par_slot *s) {
    if (s->buf) return 0;
    s->buf = (char *)stax__mem_alloc(&p->fmem, p->cap);
    if (!s->buf) return -1;
    if (++p->buffers > p->buffers_max) p->buffers_max = p->buffers;
    return 0;
}

/* One read into buf[*n, cap): *n and *eof updated; what read returned. */
static int par_fill(par *p, char *buf, size_t *n, int *eof) {
    size_t got;
    int err = par_read_into(p->read, p->rud, buf + *n, p->cap - *n, &got);
    if (err) return err;
    *eof = !got;
    *n += got;
    return 0;
}

/* Where a part whose bytes are b[0, n) is cut: a candidate x at part_size
 * or after (the part is b[0, x], the next one starts at x), preferring one
 * like the first cut in the next part_size bytes; 0 while more bytes are
 * needed to know. *scan (0 at first): no candidate in [part_size, *scan). */
static size_t par_ring_cut(const par *p, const char *b, size_t n, int eof, size_t *scan) {
    size_t want = 2 * p->psize + p->first_name + 2;
    if (want > p->cap) want = p->cap;
    if (n < want && !eof) return 0;
    size_t from = *scan > p->psize ? *scan : p->psize, x = par_candidate_in(b, n, from);
    if (!*scan)
        for (size_t y = x, stop = 2 * p->psize < n ? 2 * p->psize : n; y < stop; y = par_candidate_in(b, n, y + 1))
            if (par_like(p, b, n, y)) return y;
    if (x < n) return x;
    *scan = n - 1;
    return 0;
}

/* The feeder thread: fills part k's buffer (slot k % nslots, which holds
 * the bytes from its cut on already) until it can be cut, moves the bytes
 * from the cut on to part k + 1's buffer once that part's slot is free
 * (part k + 1 - nslots is done), and says part k is there. A part with no cut
 * in a full buffer is the last the feeder reads: the rest of the input is
 * read on the calling thread. */
static void *par_feeder(void *arg) {
    par *p = (par *)arg;
    for (size_t k = 1;; k++) {
        par_slot *s = &p->slots[k % p->nslots], *t = &p->slots[(k + 1) % p->nslots];
        size_t n = s->blen, scan = 0, x;
        int eof = 0, err = 0, stop;
        while (!(x = par_ring_cut(p, s->buf, n, eof, &scan)) && !eof && n < p->cap)
            if ((err = par_fill(p, s->buf, &n, &eof)) != 0) break;
        if (x) {
            pthread_mutex_lock(&p->mu);
            while (!p->stop && k + 1 >= p->released + p->nslots) pthread_cond_wait(&p->cv, &p->mu);
            stop = p->stop;
            pthread_mutex_unlock(&p->mu);
            if (stop) break;
            if (par_buffer(p, t)) {
                err = STAX_E_NOMEM;
                x = 0;
            } else {
                memcpy(t->buf, s->buf + x, n - x);
                t->blen = n - x;
                t->boff = s->boff + x;
                n = x + 1;
            }
        }
        s->blen = n;
        s->blast = !x && eof && !err;
        s->bopen = !x && !eof && !err;
        s->berr = err;
        pthread_mutex_lock(&p->mu);
        p->fed = k + 1;
        p->fed_end = !x;
        stop = p->stop;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (!x || stop) break;
    }
    return NULL;
}

/* ================================================================ the calling thread */

/* Part 0's reader fed d[*fed, c] (c a candidate): -1 when it stopped
 * (s->st, s->cb say how), 1 when c is the first cut (its context in
 * s->end), 0 to look further. */
static int par_try_first(par *p, par_slot *s, const char *d, size_t *fed, size_t c) {
    stax_reader_feed(s->r, d + *fed, c + 1 - *fed);
    *fed = c + 1;
    s->st = par_drain(p->o, s->r, 0, &s->cb);
    if (s->cb || s->st != STAX_NEED_INPUT) return -1;
    if (stax_reader_depth(s->r) < 1) return 0;
    par_save_end(s);
    stax_pos pos;
    return s->end_ok && stax_context_position(s->end, s->end_len, &pos) == STAX_OK && pos.offset == c;
}

/* Part 0 up to the first cut: 1 when it was found (p->first, p->guess),
 * 0 when part 0 is the whole document (s->st, s->cb say how it ended). */
static int par_prolog(par *p, par_slot *s) {
    size_t fed = 0, at = 0, w = !p->psize ? PAR_DEFAULT_PART : p->psize < PAR_SLACK ? PAR_SLACK : p->psize;
    s->cb = par_begin(p->o, 0);
    s->st = STAX_NEED_INPUT;
    while (!s->cb && s->st == STAX_NEED_INPUT) {
        /* a window of w bytes at a time: one with no candidate is fed
         * before the next is looked at (the reader reads what is looked at) */
        size_t stop = p->len - at > w ? at + w : p->len, c = par_candidate_upto(p->data, p->len, at, stop);
        if (c >= stop) {
            if (stop >= p->len) break;
            stax_reader_feed(s->r, p->data + fed, stop - fed);
            fed = at = stop;
            s->st = par_drain(p->o, s->r, 0, &s->cb);
            continue;
        }
        int first = par_try_first(p, s, p->data, &fed, c);
        if (first < 0) return 0;
        at = c + 1;
        if (first) {
            unsigned char *g = (unsigned char *)stax__mem_alloc(&p->mem, s->end_len);
            if (!g) return 0; /* read on as part 0 */
            memcpy(g, s->end, s->end_len);
            p->first = c;
            for (p->first_name = 1; c + 1 + p->first_name < p->len &&
                                    par_name_char((unsigned char)p->data[c + 1 + p->first_name]);)
                p->first_name++;
            p->guess = g;
            p->guess_len = s->end_len;
            p->name = p->data + c + 1;
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

/* The same for a read through a function: part 0's bytes in s->buf, read
 * until the first cut is in it (then part 1's bytes, from the cut on, are
 * moved to slot 1's buffer); when the buffer is full first, or the input
 * ends, the whole document is read as part 0. */
static int par_prolog_fn(par *p, par_slot *s) {
    size_t n = 0, fed = 0, at = 0;
    int eof = 0, err = 0;
    s->cb = par_begin(p->o, 0);
    s->st = STAX_NEED_INPUT;
    while (!s->cb) {
        size_t c = par_candidate_in(s->buf, n, at);
        if (c >= n) {
            if (eof || n == p->cap) break;
            if (n > at + 1) at = n - 1; /* no candidate before: only a '<' at the end */
            if ((err = par_fill(p, s->buf, &n, &eof)) != 0) break;
            continue;
        }
        int first = par_try_first(p, s, s->buf, &fed, c);
        if (first < 0) return 0;
        at = c + 1;
        if (first) {
            par_slot *t = &p->slots[1];
            size_t name = 1;
            for (;;) { /* the whole name, for the cuts to look for */
                while (c + 1 + name < n && par_name_char((unsigned char)s->buf[c + 1 + name])) name++;
                if (c + 1 + name < n || eof || n == p->cap || (err = par_fill(p, s->buf, &n, &eof)) != 0) break;
            }
            if (err) break;
            unsigned char *g = (unsigned char *)stax__mem_alloc(&p->mem, s->end_len);
            char *copy = g ? (char *)stax__mem_alloc(&p->mem, name) : NULL;
            if (!copy || par_buffer(p, t)) {
                stax__mem_free(&p->mem, g, s->end_len);
                stax__mem_free(&p->mem, copy, name);
                break; /* read on as part 0 */
            }
            memcpy(g, s->end, s->end_len);
            memcpy(copy, s->buf + c + 1, name);
            p->first = c;
            p->first_name = name;
            p->guess = g;
            p->guess_len = s->end_len;
            p->name = p->name_copy = copy;
            memcpy(t->buf, s->buf + c, n - c);
            t->blen = n - c;
            t->boff = c;
            return 1;
        }
    }
    if (s->cb) return 0;
    if (n > fed) {
        stax_reader_feed(s->r, s->buf + fed, n - fed);
        s->st = par_drain(p->o, s->r, 0, &s->cb);
        if (s->cb || s->st != STAX_NEED_INPUT) return 0;
    }
    if (err) {
        s->cb = err;
    } else if (eof) {
        stax_reader_end(s->r);
        s->st = par_drain(p->o, s->r, 0, &s->cb);
    } else {
        s->st = par_stream(p, s->r, s->buf, 0, &s->cb);
    }
    return 0;
}

/* Verify parts 1, 2, ... in order (part 0, read, is in slot 0), reading
 * again those whose guess was wrong; the read's result. */
static int par_verify(par *p, stax_parallel_result *res) {
    const stax_parallel_options *o = p->o;
    stax_pos base = par_origin(0);
    for (size_t k = 1;; k++) {
        par_slot *f = &p->slots[(k - 1) % p->nslots], *s = &p->slots[k % p->nslots];
        int again = 0; /* the caller asks for part k to be read again */
        if (o->done && (f->cb = o->done(o->ud, k - 1, base)) != 0) {
            if (f->cb != STAX_AGAIN) return res->status = f->cb;
            f->cb = 0;
            again = 1;
        }
        pthread_mutex_lock(&p->mu);
        p->released = k; /* part k - 1's buffer can be filled again */
        pthread_cond_broadcast(&p->cv);
        while (!(s->ready && s->part == k)) pthread_cond_wait(&p->cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
        if (s->empty) s->from = f->to; /* it ends where it starts: where part k - 1 ended */
        uint64_t c = p->read ? s->boff : s->from;
        stax_pos at;
        int known = f->end_ok && stax_context_position(f->end, f->end_len, &at) == STAX_OK;
        /* a read through a function has part k's bytes only: from an end
         * context elsewhere, part k - 1's reader goes on */
        if (known && p->read && (at.offset < s->boff || at.offset - s->boff > s->blen)) known = 0;
        stax_pos real = known ? stax_parallel_pos(base, at) : base;
        int right = !again && known && at.offset == c && stax_context_equal(f->end, f->end_len, p->guess, p->guess_len);
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
            unsigned char *b = s->rblock; /* the reader's block goes with it: s's is free */
            s->rblock = f->rblock;
            f->rblock = b;
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
    if (p->slots)
        for (size_t i = 0; i < p->nslots; i++) stax__mem_free(&p->fmem, p->slots[i].buf, p->cap);
    stax__mem_free(&p->mem, p->slots, p->nslots * sizeof *p->slots);
    stax__mem_free(&p->mem, p->guess, p->guess_len);
    stax__mem_free(&p->mem, p->name_copy, p->first_name);
}

/* A read through a function with no thread to be had: part 0 goes on with
 * the rest of the input (slot 1's buffer, from after the first cut's '<'). */
static void par_rest_serial(par *p, par_slot *s0) {
    par_slot *t = &p->slots[1];
    s0->st = STAX_NEED_INPUT;
    if (t->blen > 1) {
        stax_reader_feed(s0->r, t->buf + 1, t->blen - 1);
        s0->st = par_drain(p->o, s0->r, 0, &s0->cb);
    }
    if (!s0->cb && s0->st == STAX_NEED_INPUT) s0->st = par_stream(p, s0->r, t->buf, 0, &s0->cb);
}

/* The read on threads, of data[0, len) or through p->read. */
static int par_threads(par *p, stax_parallel_result *res) {
    const stax_parallel_options *o = p->o;
    p->psize = o->part_size ? o->part_size : PAR_DEFAULT_PART;
    if (p->read) {
        if (p->psize > PAR_MAX_PART) p->psize = PAR_MAX_PART;
        p->cap = stax_parallel_buffer_size(p->psize);
    }
    unsigned nt = stax_parallel_threads(o->threads);
    p->nslots = (size_t)nt + 2;
    const stax_reader_options *ro = o->reader;
    size_t rsize = par_reader_block(o); /* fixed blocks: each slot's reader's share of its block */
    if (o->blocks) { /* everything in the caller's blocks (p->fmem is not used: a read through a function is serial) */
        if (!rsize || stax__mem_init(&p->mem, NULL, NULL, o->blocks[0], o->block_size)) return res->status = STAX_E_NOMEM;
    } else {
        stax__mem_init(&p->mem, ro ? ro->alloc : NULL, ro ? ro->alloc_ud : NULL, NULL, 0);
    }
    stax__mem_init(&p->fmem, p->mem.fn, p->mem.ud, NULL, 0);
    p->slots = (par_slot *)stax__mem_alloc(&p->mem, p->nslots * sizeof *p->slots);
    if (!p->slots) return res->status = STAX_E_NOMEM;
    memset(p->slots, 0, p->nslots * sizeof *p->slots);
    for (size_t i = 0; i < p->nslots; i++) {
        par_slot *s = &p->slots[i];
        if (!o->blocks) {
            stax__mem_init(&s->mem, p->mem.fn, p->mem.ud, NULL, 0);
            continue;
        }
        s->rblock = (unsigned char *)o->blocks[1 + i];
        if (stax__mem_init(&s->mem, NULL, NULL, s->rblock + rsize, o->block_size - rsize)) {
            stax__mem_free(&p->mem, p->slots, p->nslots * sizeof *p->slots);
            return res->status = STAX_E_NOMEM;
        }
    }
    par_slot *s0 = &p->slots[0];
    s0->r = par_new_reader(p, s0);
    if (!s0->r || (p->read && par_buffer(p, s0))) {
        par_free(p);
        return res->status = STAX_E_NOMEM;
    }
    res->parts = 1;
    if (!(p->read ? par_prolog_fn(p, s0) : par_prolog(p, s0))) {
        par_finish(o, res, s0->r, s0->st, s0->cb, 0, par_origin(0));
        res->buffers = p->buffers_max;
        par_free(p);
        return res->status;
    }
    pthread_t *th = (pthread_t *)stax__mem_alloc(&p->mem, nt * sizeof *th), feeder;
    unsigned started = 0;
    int ok = th && pthread_mutex_init(&p->mu, NULL) == 0, feeding = 0;
    if (ok && pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        ok = 0;
    }
    p->next = 1;
    p->verify = 1;
    p->released = 1;
    p->fed = 1;
    while (ok && started < nt && pthread_create(&th[started], NULL, par_worker, p) == 0) started++;
    if (started && p->read) feeding = pthread_create(&feeder, NULL, par_feeder, p) == 0;
    if (started && (feeding || !p->read)) par_verify(p, res);
    if (started) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
        if (feeding) pthread_join(feeder, NULL);
    }
    if (ok) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    stax__mem_free(&p->mem, th, nt * sizeof *th);
    int serial = !started || (p->read && !feeding); /* no thread to be had: on this one */
    if (serial && p->read) {
        par_rest_serial(p, s0);
        par_finish(o, res, s0->r, s0->st, s0->cb, 0, par_origin(0));
    }
    res->buffers = p->buffers_max;
    par_free(p);
    if (serial && !p->read) return par_serial(o, p->data, p->len, res);
    return res->status;
}

/* ================================================================ ranges */

/* stax_parallel_cuts on threads' code: part 0 read (without callbacks) to
 * the first cut, then the cuts of parts of (len - first) / n bytes, range k
 * being part k + 1 of that split (range 0 holds the prolog and part 1). */
static int par_range_cuts(par *p, const stax_reader_options *ro, size_t n, uint64_t *cuts, void *guess, size_t cap,
                          size_t *guess_len) {
    stax_parallel_options o;
    memset(&o, 0, sizeof o);
    o.reader = ro;
    p->o = &o;
    stax__mem_init(&p->mem, ro ? ro->alloc : NULL, ro ? ro->alloc_ud : NULL, NULL, 0);
    par_slot s;
    memset(&s, 0, sizeof s);
    stax__mem_init(&s.mem, p->mem.fn, p->mem.ud, NULL, 0);
    int rc = STAX_OK;
    s.r = stax_reader_new(ro);
    if (!s.r) return STAX_E_NOMEM;
    if (par_prolog(p, &s)) {
        *guess_len = p->guess_len;
        if (cap < p->guess_len) {
            rc = STAX_E_FULL;
        } else {
            memcpy(guess, p->guess, p->guess_len);
            size_t rest = p->len - p->first;
            p->psize = rest / n + (rest % n != 0);
            if (!p->psize) p->psize = 1;
            for (size_t k = n - 1; k >= 1; k--) { /* an empty part: an empty range, the one before goes on */
                size_t c = par_cut(p, k + 1);
                cuts[k] = c == PAR_EMPTY ? cuts[k + 1] : c;
            }
        }
    }
    stax_reader_free(s.r);
    stax__mem_free(&s.mem, s.ctx, s.ctx_cap);
    stax__mem_free(&s.mem, s.end, s.end_cap);
    stax__mem_free(&p->mem, p->guess, p->guess_len);
    return rc;
}
#endif /* PAR_THREADS */

int stax_parallel_read(const void *data, size_t len, const stax_parallel_options *opt, stax_parallel_result *res) {
    stax_parallel_result local;
    if (!res) res = &local;
    memset(res, 0, sizeof *res);
    if (!opt || (!data && len)) return res->status = STAX_E_USAGE;
    if (!data) data = "";
    if (!par_blocks_ok(opt)) return res->status = STAX_E_USAGE;
#ifdef PAR_THREADS
    if ((opt->threads != 1 || opt->part_size) && !(opt->reader && opt->reader->memory) && !par_one_part(opt->reader)) {
        par p;
        memset(&p, 0, sizeof p);
        p.o = opt;
        p.data = (const char *)data;
        p.len = len;
        return par_threads(&p, res);
    }
#endif
    return par_serial(opt, (const char *)data, len, res);
}

int stax_parallel_read_fn(int (*read)(void *ud, void *buf, size_t cap, size_t *got), void *rud,
                          const stax_parallel_options *opt, stax_parallel_result *res) {
    stax_parallel_result local;
    if (!res) res = &local;
    memset(res, 0, sizeof *res);
    if (!opt || !read) return res->status = STAX_E_USAGE;
    if (!par_blocks_ok(opt)) return res->status = STAX_E_USAGE;
#ifdef PAR_THREADS
    if ((opt->threads != 1 || opt->part_size) && !(opt->reader && opt->reader->memory) && !opt->blocks &&
        !par_one_part(opt->reader)) {
        par p;
        memset(&p, 0, sizeof p);
        p.o = opt;
        p.read = read;
        p.rud = rud;
        return par_threads(&p, res);
    }
#endif
    return par_serial_fn(opt, read, rud, res);
}

int stax_parallel_cuts(const void *data, size_t len, const stax_reader_options *ro, size_t n, uint64_t *cuts, void *guess,
                       size_t cap, size_t *guess_len) {
    if (!cuts || !guess_len || !n || (!data && len) || (!guess && cap) || (ro && ro->memory)) return STAX_E_USAGE;
    *guess_len = 0;
    cuts[0] = 0;
    for (size_t k = 1; k <= n; k++) cuts[k] = len;
#ifdef PAR_THREADS
    if (n > 1 && len && !par_one_part(ro)) {
        par p;
        memset(&p, 0, sizeof p);
        p.data = (const char *)data;
        p.len = len;
        int rc = par_range_cuts(&p, ro, n, cuts, guess, cap, guess_len);
        if (rc != STAX_OK)
            for (size_t k = 1; k < n; k++) cuts[k] = len;
        return rc;
    }
#endif
    (void)guess;
    (void)cap;
    (void)ro;
    return STAX_OK;
}
