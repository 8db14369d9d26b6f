/* The streaming driver every subcommand shares: reader setup from the
 * options, chunked feeding, and error reporting as NAME:LINE:COL: message. */
#define _GNU_SOURCE /* madvise (MADV_DONTNEED): glibc's posix_madvise ignores it; F_SETPIPE_SZ */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAX_CLI_READ_SIZE (256u * 1024) /* fewer tokens cut by a read: those take the slower way */

/* The read buffer, page-aligned: the kernel's copy into a buffer 16 bytes off
 * a cache line (what malloc returns for a block this large, which it maps on
 * its own) took 3.5 times as long on an AMD EPYC, two fifths of stax's time
 * on text (docs/benchmarks.md). */
static char *cli_read_buffer(size_t cap) {
    void *p = NULL;
    return posix_memalign(&p, 4096, cap) == 0 ? (char *)p : NULL;
}

static ssize_t cli_read_full(int fd, char *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0 || errno != EINTR) return n;
    }
}

/* Whether a read of fd may wait for its writer: fd is not a regular file or
 * a block device (a pipe, a FIFO, a socket, a terminal). */
static int cli_input_live(int fd) {
    struct stat sb;
    return fstat(fd, &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode));
}

/* Before a read of a live input: unless it has bytes to read (a poll that
 * does not wait), the output of what was read goes out, so that it is not
 * held back while the read waits; a fast pipe, which has, is still written
 * in full buffers. 0, or -1 when the output failed (reading on is no use). */
static int cli_before_wait(stax_cli_out *live, int fd) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (!live || poll(&p, 1, 0) == 1) return 0;
    return stax_cli_out_flush(live);
}

/* The first read: enough bytes to tell a compressed input from a document (a
 * pipe may hand them over one at a time); *ended when the input ended meanwhile. */
static ssize_t cli_read_start(int fd, char *buf, size_t cap, int *ended) {
    ssize_t n = cli_read_full(fd, buf, cap);
    while (n > 0 && stax_cli_compressed_format((const unsigned char *)buf, (size_t)n) == STAX_CLI_UNDECIDED) {
        ssize_t more = cli_read_full(fd, buf + n, cap - (size_t)n);
        if (more <= 0) {
            if (more < 0) return more;
            *ended = 1;
            break;
        }
        n += more;
    }
    return n;
}

int stax_cli_run(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err) {
    return stax_cli_run_state(o, fd, fn, ctx, err, NULL);
}

/* ---------------------------------------------------------------- -j */

/* A batch function's result, as the parallel read returns it (apart from
 * the reader's statuses). */
#define CLI_PAR_RESULT 1000

typedef struct cli_par {
    stax_cli_batch_fn fn;
    const stax_cli_state *state; /* check, count: a state per part, merged */
    const stax_cli_parts *parts; /* select, canon: the command's own part calls */
    unsigned char *slots; /* state->len bytes for each part in flight */
    size_t nslots;
    char *map;            /* the mapped file: the pages of parts done are given back (NULL: a pipe) */
    size_t dropped, page;
    uint64_t *behind;     /* per slot, with a map: its part's pages before this are given back */
    stax_cli_progress progress; /* counts the parts done */
    uint64_t counted;
    stax_cli_out *live;   /* a live input's output: flushed after each part (NULL: none) */
} cli_par;

static void *cli_par_slot(cli_par *p, size_t part) { return p->slots + (part % p->nslots) * p->state->len; }

/* Pages read are given back CLI_PAR_BEHIND bytes at a time behind each reader. */
#define CLI_PAR_BEHIND ((uint64_t)256 << 10)

/* The reader of the part in slot has read past offset (the last event of a
 * batch starts there): the pages it read before, from those of its first
 * batch on, are given back, so that a part longer than its window (a text
 * run read on to the next cut, or the whole of a document with no cut) holds
 * no more of the map than about CLI_PAR_BEHIND. A page given back is read
 * again from the file if touched (a part read again). */
static void cli_par_behind(cli_par *p, size_t slot, uint64_t offset) {
    uint64_t *from = &p->behind[slot], upto = offset / p->page * p->page;
    if (*from == UINT64_MAX) *from = (offset + p->page - 1) / p->page * p->page;
    else if (upto >= *from + CLI_PAR_BEHIND && madvise(p->map + *from, (size_t)(upto - *from), MADV_DONTNEED) == 0)
        *from = upto;
}

static int cli_par_begin(void *ud, size_t part) {
    cli_par *p = ud;
    int rc = 0;
    if (p->behind) p->behind[part % p->nslots] = UINT64_MAX;
    if (p->parts) rc = p->parts->begin(p->parts->ud, part, part % p->nslots);
    else memset(cli_par_slot(p, part), 0, p->state->len);
    return rc ? CLI_PAR_RESULT + rc : 0;
}

static int cli_par_batch(void *ud, size_t part, const stax_batch *b) {
    cli_par *p = ud;
    int rc = p->parts ? p->parts->batch(p->parts->ud, part, part % p->nslots, b)
             : p->fn  ? p->fn(cli_par_slot(p, part), NULL, b)
                      : 0;
    if (p->behind && b->count) cli_par_behind(p, part % p->nslots, stax_ev_offset(b, b->count - 1));
    return rc ? CLI_PAR_RESULT + rc : 0;
}

static int cli_par_done(void *ud, size_t part, stax_pos base) {
    cli_par *p = ud;
    int again = 0;
    if (p->parts) {
        int rc = p->parts->done(p->parts->ud, part, part % p->nslots);
        again = rc == STAX_CLI_AGAIN;
        if (rc && !again) return CLI_PAR_RESULT + rc;
    } else if (p->state->merge) {
        p->state->merge(p->state->data, cli_par_slot(p, part));
    }
    if (p->live && stax_cli_out_flush(p->live)) return CLI_PAR_RESULT + 2;
    if (!p->map) return again ? STAX_AGAIN : 0; /* a pipe: its reads count the progress */
    /* No reader goes back before the start of a part done: RSS stays that of
     * the parts in flight (a page given back is read again if touched). */
    size_t upto = (size_t)base.offset / p->page * p->page;
    if (upto > p->dropped && madvise(p->map + p->dropped, upto - p->dropped, MADV_DONTNEED) == 0) p->dropped = upto;
    if (base.offset > p->counted) {
        stax_cli_progress_add(&p->progress, (size_t)(base.offset - p->counted));
        p->counted = base.offset;
    }
    return again ? STAX_AGAIN : 0;
}

/* Whether -j can read this input in parts: with none of the options that
 * need one reader (--resume, --save-every, --memory, and --external, whose
 * resolver is one for the whole document), and as one document (a fragment
 * or a sequence of documents is read on one thread: docs/parallel.md). *size gets the size of a regular
 * file read from its start (it is mapped), 0 for any other input (a pipe:
 * read through a ring of buffers). */
static int cli_par_wanted(const stax_cli_opts *o, int fd, int parts_ok, size_t *size) {
    struct stat sb;
    if (o->jobs == 0 || o->jobs == 1 || !parts_ok || o->resume || o->save_every || o->memory || o->external || o->shape)
        return 0;
    *size = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 && (uint64_t)sb.st_size <= SIZE_MAX &&
                    lseek(fd, 0, SEEK_CUR) == 0 /* the map is of the whole file */
                ? (size_t)sb.st_size
                : 0;
    return 1;
}

/* A pipe read in parts: its reads (the first ones checked for a compressed
 * format), and the bytes read kept while they are at most keep (as many as
 * the buffers hold, at least CLI_KEEP_MIN), so that a read given up for one
 * thread (STAX_CLI_SERIAL) early, as it is when a match is open across the
 * first cuts, can be read again. */
#define CLI_KEEP_MIN ((size_t)1 << 20)
#define CLI_RING_COMPRESSED 2000 /* what the read function returns: no reader status, no CLI_PAR_RESULT + rc */
#define CLI_RING_IO 2001
typedef struct cli_ring {
    int fd, started, compressed, err_no;
    stax_cli_progress *progress;
    char *kept; /* the bytes read, while kept_all */
    size_t kept_len, kept_cap, keep;
    int kept_all;
} cli_ring;

static int cli_ring_read(void *ud, void *buf, size_t cap, size_t *got) {
    cli_ring *q = ud;
    int ended = 0;
    ssize_t n = q->started ? cli_read_full(q->fd, buf, cap) : cli_read_start(q->fd, buf, cap, &ended);
    if (n < 0) {
        q->err_no = errno;
        return CLI_RING_IO;
    }
    if (!q->started && n > 0 && (q->compressed = stax_cli_compressed_format((const unsigned char *)buf, (size_t)n)) >= 0) return CLI_RING_COMPRESSED;
    q->started = 1;
    if (q->kept_all && (size_t)n > q->keep - q->kept_len) {
        free(q->kept);
        q->kept = NULL;
        q->kept_all = 0;
    }
    if (q->kept_all && (size_t)n > q->kept_cap - q->kept_len) {
        size_t room = q->kept_cap ? q->kept_cap : 65536;
        while (room - q->kept_len < (size_t)n) room = room <= q->keep / 2 ? 2 * room : q->keep;
        char *k = realloc(q->kept, room);
        if (k) {
            q->kept = k;
            q->kept_cap = room;
        } else {
            free(q->kept);
            q->kept = NULL;
            q->kept_all = 0;
        }
    }
    if (q->kept_all && n > 0) {
        memcpy(q->kept + q->kept_len, buf, (size_t)n);
        q->kept_len += (size_t)n;
    }
    if (q->progress) stax_cli_progress_add(q->progress, (size_t)n);
    *got = (size_t)n;
    return 0;
}

/* The input read in parts on o->jobs threads, the mapped file map[0, size)
 * or through ring: the exit code, or -1 when the command asked for
 * STAX_CLI_SERIAL (then it is read as a stream). */
static int cli_run_parallel(const stax_cli_opts *o, int fd, char *map, size_t size, cli_ring *ring,
                            stax_cli_batch_fn fn, int *err, const stax_cli_state *state, const stax_cli_parts *parts) {
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    if (o->namespaces) ro.flags |= STAX_READ_NAMESPACES;
    ro.decoder = stax_cli_decoder();
    cli_par p;
    memset(&p, 0, sizeof p);
    unsigned threads = o->jobs < 0 ? 0 : (unsigned)o->jobs;
    p.fn = fn;
    p.state = state;
    p.parts = parts;
    p.map = map;
    p.live = ring && cli_input_live(fd) ? o->live : NULL;
    long page = sysconf(_SC_PAGESIZE);
    p.page = page > 0 ? (size_t)page : 4096;
    p.nslots = stax_parallel_slots(threads);
    p.slots = calloc(p.nslots, state && state->len ? state->len : 1);
    if (map) p.behind = calloc(p.nslots, sizeof *p.behind); /* without it, nothing is given back before done */
    if (parts && p.slots && parts->setup(parts->ud, p.nslots)) {
        free(p.slots);
        free(p.behind);
        return -1;
    }
    stax_parallel_options po;
    memset(&po, 0, sizeof po);
    po.reader = &ro;
    po.threads = threads;
    po.part_size = o->part_size;
    po.ud = &p;
    po.begin = cli_par_begin;
    po.batch = cli_par_batch;
    po.done = cli_par_done;
    stax_parallel_result res;
    stax_cli_progress_begin(&p.progress, o->progress, fd, o->name);
    if (ring) ring->progress = &p.progress;
    int st = !p.slots ? STAX_E_NOMEM
             : ring   ? stax_parallel_read_fn(cli_ring_read, ring, &po, &res)
                      : stax_parallel_read(map, size, &po, &res);
    if (st == STAX_OK && !ring) stax_cli_progress_add(&p.progress, size - (size_t)p.counted);
    stax_cli_progress_end(&p.progress);
    if (ring) ring->progress = NULL;
    int rc;
    if (ring && st == CLI_RING_COMPRESSED) {
        stax_cli_report_compressed(o, ring->compressed);
        rc = 2;
        st = STAX_E_IO;
    } else if (ring && st == CLI_RING_IO) {
        if (!o->quiet) fprintf(stderr, "%s: read error: %s\n", o->name ? o->name : "-", strerror(ring->err_no));
        rc = 2;
        st = STAX_E_IO;
    } else if (st == CLI_PAR_RESULT + STAX_CLI_SERIAL) {
        rc = -1;
        if (o->serial_again) ++*o->serial_again;
    } else if (st >= CLI_PAR_RESULT + STAX_CLI_SERIAL) {
        rc = st - CLI_PAR_RESULT == STAX_CLI_STOP ? 0 : st - CLI_PAR_RESULT;
        st = STAX_END;
    } else {
        if (st == STAX_E_NOMEM && !p.slots) res.message[0] = '\0';
        if (st == STAX_OK) st = STAX_END;
        if (st < 0) stax_cli_report_at(o, res.err_pos, res.message, st);
        rc = stax_cli_exit_code(st);
    }
    if (err && rc >= 0) *err = st;
    free(p.slots);
    free(p.behind);
    return rc;
}

static int cli_run_stream(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err,
                          const stax_cli_state *state, const char *pre, size_t pre_len);

/* -j if wanted, else (or when it was given up) a stream read. */
static int cli_run_any(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err,
                       const stax_cli_state *state, const stax_cli_parts *parts) {
    size_t size = 0;
    if (o->part_n) {
        if (!state) {
            if (!o->quiet) fprintf(stderr, "stax: --part works with check and count only\n");
            return 2;
        }
        return stax_cli_part_read(o, fd, fn, state);
    }
    if (!cli_par_wanted(o, fd, parts ? 1 : state && (state->merge || !state->len), &size))
        return cli_run_stream(o, fd, fn, ctx, err, state, NULL, 0);
    if (size) {
        void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) return cli_run_stream(o, fd, fn, ctx, err, state, NULL, 0);
        int f = stax_cli_compressed_format((const unsigned char *)map, size), rc = 2;
        if (f >= 0) {
            stax_cli_report_compressed(o, f);
            if (err) *err = STAX_E_IO;
        } else {
            rc = cli_run_parallel(o, fd, map, size, NULL, parts ? NULL : fn, err, state, parts);
        }
        munmap(map, size);
        return rc >= 0 ? rc : cli_run_stream(o, fd, fn, ctx, err, state, NULL, 0);
    }
    cli_ring ring;
    memset(&ring, 0, sizeof ring);
    ring.fd = fd;
#ifdef F_SETPIPE_SZ
    /* Linux: a pipe of 1 MiB (the most an unprivileged process may ask by
     * default; a refusal changes nothing) wakes the feeder and the writer
     * 16 times less often than the default 64 KiB (cat | stax -j 2 count of
     * 1 GiB: 1.36 s instead of 1.51 s) */
    struct stat ps;
    if (fstat(fd, &ps) == 0 && S_ISFIFO(ps.st_mode)) (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#endif
    ring.kept_all = parts != NULL; /* check and count never give up */
    size_t slots = stax_parallel_slots(o->jobs < 0 ? 0 : (unsigned)o->jobs), each = stax_parallel_buffer_size(o->part_size);
    ring.keep = each <= SIZE_MAX / slots ? slots * each : SIZE_MAX;
    if (ring.keep < CLI_KEEP_MIN) ring.keep = CLI_KEEP_MIN;
    if (o->pipe_keep) ring.keep = o->pipe_keep;
    int rc = cli_run_parallel(o, fd, NULL, 0, &ring, parts ? NULL : fn, err, state, parts);
    if (rc < 0 && ring.kept_all) /* given up: all it read is kept, read again from there */
        rc = cli_run_stream(o, fd, fn, ctx, err, state, ring.kept ? ring.kept : "", ring.kept_len);
    else if (rc < 0) {
        if (!o->quiet)
            fprintf(stderr,
                    "%s: -j: this read cannot be done in parts, and the input, a pipe past its first %zu bytes, "
                    "cannot be read again; give a file, or -j 1\n",
                    o->name ? o->name : "-", ring.keep);
        rc = 2;
    }
    free(ring.kept);
    return rc;
}

int stax_cli_run_parts(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err,
                       const stax_cli_parts *parts) {
    return cli_run_any(o, fd, fn, ctx, err, NULL, parts);
}

int stax_cli_run_state(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err, const stax_cli_state *state) {
    return cli_run_any(o, fd, fn, ctx, err, state, NULL);
}

/* fd read as a stream, after the bytes pre[0, pre_len) when pre is not NULL
 * (a pipe read again after -j gave up: what it read then). */
static int cli_run_stream(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err,
                          const stax_cli_state *state, const char *pre, size_t pre_len) {
    if ((o->resume || o->save_every) && !state) {
        if (!o->quiet) fprintf(stderr, "stax: --resume and --save-every work with check and count only\n");
        return 2;
    }
    if (o->save_every && !o->context) {
        if (!o->quiet) fprintf(stderr, "stax: --save-every needs --context FILE (or --resume FILE)\n");
        return 2;
    }
    stax_reader_options ro;
    memset(&ro, 0, sizeof ro);
    void *block = NULL;
    if (o->memory) {
        block = malloc(o->memory);
        if (!block) {
            if (!o->quiet) fprintf(stderr, "stax: cannot allocate %zu bytes for --memory\n", o->memory);
            return 2;
        }
        ro.memory = block;
        ro.memory_size = o->memory;
    }
    if (o->namespaces) ro.flags |= STAX_READ_NAMESPACES;
    ro.flags |= o->shape;
    ro.decoder = stax_cli_decoder();
    stax_cli_resolver resolver;
    if (o->external) {
        memset(&resolver, 0, sizeof resolver);
        resolver.document = o->name;
        ro.resolve = stax_cli_resolve;
        ro.resolve_ud = &resolver;
    }
    stax_reader *r = stax_reader_new(&ro);
    if (!r) {
        const char *why = NULL;
        if (!o->quiet) {
            if (stax_reader_check_options(&ro, &why) == STAX_OK || !why) why = "out of memory";
            if (o->memory)
                fprintf(stderr, "stax: cannot create a reader: %s (--memory: at least %zu bytes)\n", why,
                        stax_reader_memory_min(&ro));
            else
                fprintf(stderr, "stax: cannot create a reader: %s\n", why);
        }
        free(block);
        return 2;
    }
    size_t chunk = o->chunk ? o->chunk : STAX_CLI_READ_SIZE;
    size_t cap = chunk > STAX_CLI_READ_SIZE ? chunk : STAX_CLI_READ_SIZE;
    char *buf = cli_read_buffer(cap);
    int st = STAX_NEED_INPUT, rc = 2;
    stax_cli_progress progress;
    memset(&progress, 0, sizeof progress);
    if (!buf) {
        if (!o->quiet) fprintf(stderr, "stax: out of memory\n");
        st = STAX_E_NOMEM;
        goto out;
    }
    const stax_batch *b;
    int eof = 0, started = 0, ended = 0, f;
    stax_cli_out *live = o->live && cli_input_live(fd) ? o->live : NULL;
    uint64_t fed = 0, saved = 0; /* input offsets: of the next byte fed, of the last context */
    if (o->resume) {
        if (stax_cli_context_load(o, r, state, &fed)) goto out;
        if (stax_cli_skip(fd, fed)) {
            if (!o->quiet) fprintf(stderr, "%s: cannot go to byte %llu of the input\n", o->name ? o->name : "-", (unsigned long long)fed);
            goto out;
        }
        saved = fed;
        started = 1; /* the middle of a document: no magic bytes to look for */
    }
    stax_cli_progress_begin(&progress, o->progress, fd, o->name);
    while (!eof) {
        ssize_t n;
        if (pre && pre_len) {
            n = (ssize_t)(pre_len < cap ? pre_len : cap);
            memcpy(buf, pre, (size_t)n);
            pre += n;
            pre_len -= (size_t)n;
        } else {
            if (!ended && cli_before_wait(live, fd)) {
                rc = 2; /* the command reports the failed write */
                goto out;
            }
            n = ended ? 0 : started ? cli_read_full(fd, buf, cap) : cli_read_start(fd, buf, cap, &ended);
        }
        if (n > 0) stax_cli_progress_add(&progress, (size_t)n);
        if (n > 0 && !started && (f = stax_cli_compressed_format((const unsigned char *)buf, (size_t)n)) >= 0) {
            stax_cli_progress_end(&progress);
            stax_cli_report_compressed(o, f);
            st = STAX_E_IO;
            rc = 2;
            goto out;
        }
        started = 1;
        if (n < 0) {
            stax_cli_progress_end(&progress);
            if (!o->quiet) fprintf(stderr, "%s: read error: %s\n", o->name ? o->name : "-", strerror(errno));
            rc = 2;
            goto out;
        }
        if (n == 0) {
            eof = 1;
            st = stax_reader_end(r);
        }
        size_t off = 0;
        do {
            if (!eof) {
                size_t len = (size_t)n - off < chunk ? (size_t)n - off : chunk;
                st = stax_reader_feed(r, buf + off, len);
                off += len;
                fed += len;
            }
            if (st < 0) goto done;
            while ((st = stax_reader_next(r, &b)) == STAX_OK) {
                if (fn && (rc = fn(ctx, r, b)) != 0) {
                    if (rc == STAX_CLI_STOP) rc = 0;
                    goto out;
                }
                if (o->save_every && fed - saved >= o->save_every && (f = stax_cli_context_store(o, r, state)) <= 0) {
                    if (f < 0) {
                        rc = 2;
                        goto out;
                    }
                    saved = fed;
                }
            }
            if (st != STAX_NEED_INPUT) goto done;
        } while (!eof && off < (size_t)n);
    }
done:
    stax_cli_progress_end(&progress);
    if (st < 0) stax_cli_report(o, r, st);
    rc = stax_cli_exit_code(st);
out:
    stax_cli_progress_end(&progress);
    if (err) *err = stax_reader_status(r) < 0 ? stax_reader_status(r) : st;
    stax_reader_free(r);
    free(buf);
    free(block);
    return rc;
}

int stax_cmd_check(const stax_cli_opts *o, int fd) {
    stax_cli_state st = {"check", NULL, 0, NULL};
    return stax_cli_run_state(o, fd, NULL, NULL, NULL, &st);
}

typedef struct cli_counts {
    unsigned long long elements, attributes, text, cdata, comments, pis, bytes_text;
    unsigned long long documents; /* --documents: STAX_EV_DOCUMENT_END events */
} cli_counts;

static int cli_count_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    (void)r;
    cli_counts *c = ctx;
    /* by type, without a branch per event: attr_count is 0 but for START */
    unsigned long long n[16] = {0}, attrs = 0, text = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
    for (size_t i = 0; i < b->count; i++) {
        int t = stax_ev_type(b, i);
        n[t & 15]++;
        attrs += stax_ev_attr_count(b, i);
        if (t == STAX_EV_TEXT || t == STAX_EV_CDATA) text += stax_ev_text(b, i).len;
    }
    c->elements += n[STAX_EV_START];
    c->attributes += attrs;
    c->text += n[STAX_EV_TEXT];
    c->cdata += n[STAX_EV_CDATA];
    c->comments += n[STAX_EV_COMMENT];
    c->pis += n[STAX_EV_PI];
    c->bytes_text += text;
    return 0;
}

/* --documents: the counts, and the documents (a pass of their own: the
 * loop above stays as it is for one document) */
static int cli_count_batch_documents(void *ctx, stax_reader *r, const stax_batch *b) {
    cli_counts *c = ctx;
    for (size_t i = 0; i < b->count; i++) c->documents += stax_ev_type(b, i) == STAX_EV_DOCUMENT_END;
    return cli_count_batch(ctx, r, b);
}

static void cli_count_merge(void *data, const void *part) {
    cli_counts *c = data;
    const cli_counts *p = part;
    c->elements += p->elements;
    c->attributes += p->attributes;
    c->text += p->text;
    c->cdata += p->cdata;
    c->comments += p->comments;
    c->pis += p->pis;
    c->bytes_text += p->bytes_text;
    c->documents += p->documents;
}

/* documents: --documents, which adds documents= (how many the input held) */
static void cli_count_print(stax_cli_out *out, const cli_counts *c, int documents) {
    stax_cli_printf(out, "elements=%llu attributes=%llu text=%llu cdata=%llu comments=%llu pis=%llu text_bytes=%llu",
            c->elements, c->attributes, c->text, c->cdata, c->comments, c->pis, c->bytes_text);
    if (documents) stax_cli_printf(out, " documents=%llu", c->documents);
    stax_cli_printf(out, "\n");
}

int stax_cmd_count(const stax_cli_opts *o, int fd, FILE *out) {
    cli_counts c;
    memset(&c, 0, sizeof c);
    stax_cli_state st = {"count", &c, sizeof c, cli_count_merge};
    int documents = o->shape == STAX_READ_DOCUMENTS;
    int rc = stax_cli_run_state(o, fd, documents ? cli_count_batch_documents : cli_count_batch, &c, NULL, &st);
    if (o->part_n) return rc; /* the part record is the output (cli/part.c) */
    stax_cli_out w;
    stax_cli_out_init(&w, out);
    if (rc == 0) cli_count_print(&w, &c, documents);
    return stax_cli_out_end(o, &w, rc);
}

int stax_cmd_merge(const stax_cli_opts *o, int fd, char *const *parts, size_t n, FILE *out) {
    stax_cli_partset *ps = stax_cli_parts_load(o, parts, n);
    if (!ps) return 2;
    cli_counts c;
    memset(&c, 0, sizeof c);
    stax_cli_state check = {"check", NULL, 0, NULL}, count = {"count", &c, sizeof c, cli_count_merge};
    int counting = !strcmp(stax_cli_parts_command(ps), "count");
    int rc = stax_cli_parts_merge(o, ps, fd, counting ? cli_count_batch : NULL, counting ? &count : &check);
    stax_cli_out w;
    stax_cli_out_init(&w, out);
    if (rc == 0 && counting) cli_count_print(&w, &c, 0); /* (range readers read one document) */
    stax_cli_parts_free(ps);
    return stax_cli_out_end(o, &w, rc);
}
