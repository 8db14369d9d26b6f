/* --part K/N and stax merge: one document read as N byte ranges by
 * processes that run apart (GNU parallel, a streaming job's maps), then
 * merged into exactly the serial result (docs/parallel.md, "Beyond one
 * machine"). The cuts and the guess are the library's (stax_parallel_cuts):
 * every range reader computes them alike from the file, reads its range and
 * writes a part record:
 *
 *   "STAXPRT" 0x01   u32 length + the command's name
 *   u32 K   u32 N   u32 flags (1: --namespaces)
 *   u64 the file's size   u64 the range's start   u64 its end
 *   u32 the reader's last status (two's complement)
 *   u32 length + the command's state (count's counts)
 *   u32 length + the start context (none for range 0)
 *   u32 length + the end context (0: none could be saved)
 *   u64 FNV-1a of every byte before it
 *
 * The merge walks the ranges in order: a range read from a start context
 * that is the previous range's real end context (but for its position,
 * stax_context_equal, and at its offset) is the serial read of its bytes;
 * any other range, and one that ended in an error, is read again here from
 * the real context, so that its result, message and position are the
 * serial ones. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PART_MAGIC "STAXPRT\x01"
#define PART_NAMESPACES 1u

typedef struct cli_range {
    const char *path;
    unsigned char *raw; /* the whole record */
    char cmd[16];
    uint32_t k, n, flags;
    uint64_t size, start, end;
    int status;
    const unsigned char *state, *start_ctx, *end_ctx;
    size_t state_len, start_len, end_len;
} cli_range;

struct stax_cli_partset {
    cli_range *r; /* by K */
    size_t n;
};

static int part_fail(const stax_cli_opts *o, const char *what, const char *why) {
    if (!o->quiet) fprintf(stderr, "stax: %s: %s\n", what, why);
    return 2;
}

/* The regular file fd mapped (*map NULL for an empty one): 0, or 2 reported. */
static int part_map(const stax_cli_opts *o, int fd, const char *need, void **map, size_t *size) {
    struct stat sb;
    const char *name = o->name ? o->name : "-";
    *map = NULL;
    *size = 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || lseek(fd, 0, SEEK_CUR) != 0 || (uint64_t)sb.st_size > SIZE_MAX)
        return part_fail(o, name, need);
    *size = (size_t)sb.st_size;
    if (!*size) return 0;
    *map = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (*map == MAP_FAILED) {
        *map = NULL;
        return part_fail(o, name, strerror(errno));
    }
    if (stax_cli_refuse_compressed(o, (const unsigned char *)*map, *size)) {
        munmap(*map, *size);
        *map = NULL;
        return 2;
    }
    return 0;
}

/* The batches of r until it needs input or stops, through fn into state. */
static int part_drain(stax_reader *r, stax_cli_batch_fn fn, void *state) {
    const stax_batch *b;
    int st;
    while ((st = stax_reader_next(r, &b)) == STAX_OK)
        if (fn && fn(state, r, b) != 0) return STAX_E_INTERNAL; /* check and count never stop */
    return st;
}

/* r fed d[from, to] (the byte at to included: the '<' that ends the text
 * before it) or, when to is the end, d[from, size) and ended. */
static int part_feed(stax_reader *r, const char *d, size_t size, uint64_t from, uint64_t to, stax_cli_batch_fn fn,
                     void *state) {
    uint64_t upto = to < size ? to + 1 : size;
    int st = STAX_NEED_INPUT;
    if (upto > from) {
        stax_reader_feed(r, d + from, (size_t)(upto - from));
        st = part_drain(r, fn, state);
    }
    if (st == STAX_NEED_INPUT && to >= size) {
        stax_reader_end(r);
        st = part_drain(r, fn, state);
    }
    return st;
}

/* r's context, malloc'd, into *ctx and *len: 0; 1 when it cannot be saved
 * here; -1 without memory. */
static int part_save(stax_reader *r, unsigned char **ctx, size_t *len) {
    size_t n = 0;
    *ctx = NULL;
    *len = 0;
    int rc = stax_reader_save(r, NULL, 0, &n);
    if (rc == STAX_E_NOSAVE) return 1;
    unsigned char *c = rc == STAX_OK ? malloc(n) : NULL;
    if (!c) return -1;
    if (stax_reader_save(r, c, n, &n) != STAX_OK) {
        free(c);
        return -1;
    }
    *ctx = c;
    *len = n;
    return 0;
}

static void part_reader_options(stax_reader_options *ro, uint32_t flags) {
    memset(ro, 0, sizeof *ro);
    if (flags & PART_NAMESPACES) ro->flags |= STAX_READ_NAMESPACES;
    ro->decoder = stax_cli_decoder();
}

/* ---------------------------------------------------------------- the range reader */

static unsigned char *part_put_bytes(unsigned char *p, const void *b, size_t n) {
    stax_cli_put(p, n, 4);
    if (n) memcpy(p + 4, b, n);
    return p + 4 + n;
}

int stax_cli_part_read(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, const stax_cli_state *st) {
    const char *name = o->name ? o->name : "-";
    if (o->jobs > 1 || o->jobs < 0 || o->resume || o->save_every || o->memory || o->external)
        return part_fail(o, "--part", "-j, --resume, --save-every, --memory and --external do not go with it");
    if (o->shape) return part_fail(o, "--part", "a range reader reads one document: not --fragment or --documents");
    if (o->part_k >= o->part_n) return part_fail(o, "--part", "K/N needs K < N");
    void *map;
    size_t size;
    if (part_map(o, fd, "--part reads a regular file from its start (every range reader maps it)", &map, &size)) return 2;
    const char *d = map ? (const char *)map : "";
    stax_reader_options ro;
    uint32_t flags = o->namespaces ? PART_NAMESPACES : 0;
    part_reader_options(&ro, flags);
    size_t cap = stax_context_max_size(&ro), glen = 0, end_len = 0;
    uint64_t *cuts = calloc((size_t)o->part_n + 1, sizeof *cuts);
    unsigned char *guess = malloc(cap), *end_ctx = NULL, *rec = NULL;
    stax_reader *r = NULL;
    int rc = 2, status = STAX_NEED_INPUT;
    if (!cuts || !guess || stax_parallel_cuts(d, size, &ro, o->part_n, cuts, guess, cap, &glen) != STAX_OK) {
        part_fail(o, name, "out of memory");
        goto out;
    }
    uint64_t start = cuts[o->part_k], end = cuts[o->part_k + 1];
    size_t start_len = o->part_k ? glen : 0;
    if (o->part_k == 0 || start < end) {
        r = stax_reader_new(&ro);
        stax_pos from = {start, 1, 1};
        if (!r || (o->part_k && (stax_context_move(guess, glen, from) != STAX_OK ||
                                 stax_reader_resume(r, guess, glen) != STAX_OK))) {
            part_fail(o, name, r ? stax_reader_message(r) : "out of memory");
            goto out;
        }
        if (st->len) memset(st->data, 0, st->len);
        status = part_feed(r, d, size, start, end, fn, st->data);
        if (status == STAX_E_INTERNAL || (status == STAX_NEED_INPUT && part_save(r, &end_ctx, &end_len) < 0)) {
            part_fail(o, name, "out of memory");
            goto out;
        }
    } else {
        start_len = 0; /* an empty range: nothing read, nothing to verify */
    }
    size_t cmd = strlen(st->command), total = 8 + 4 + cmd + 12 + 24 + 4 + 12 + st->len + start_len + end_len + 8;
    rec = malloc(total);
    if (!rec) {
        part_fail(o, name, "out of memory");
        goto out;
    }
    memcpy(rec, PART_MAGIC, 8);
    unsigned char *p = part_put_bytes(rec + 8, st->command, cmd);
    stax_cli_put(p, o->part_k, 4);
    stax_cli_put(p + 4, o->part_n, 4);
    stax_cli_put(p + 8, flags, 4);
    stax_cli_put(p + 12, size, 8);
    stax_cli_put(p + 20, start, 8);
    stax_cli_put(p + 28, end, 8);
    stax_cli_put(p + 36, (uint32_t)status, 4);
    p = part_put_bytes(p + 40, st->data, st->len);
    p = part_put_bytes(p, guess, start_len);
    p = part_put_bytes(p, end_ctx, end_len);
    stax_cli_put(p, stax_cli_fnv(rec, (size_t)(p - rec)), 8);
    stax_cli_out w;
    stax_cli_out_init(&w, o->part_out ? o->part_out : stdout);
    stax_cli_write(&w, rec, total);
    rc = stax_cli_out_end(o, &w, 0);
out:
    stax_reader_free(r);
    free(rec);
    free(end_ctx);
    free(guess);
    free(cuts);
    if (map) munmap(map, size);
    return rc;
}

/* ---------------------------------------------------------------- the merge */

/* One record parsed (r->raw holds it): NULL, or what is wrong with it. */
static const char *part_parse(cli_range *r, size_t len) {
    const unsigned char *b = r->raw;
    if (len < 8 + 4 || memcmp(b, PART_MAGIC, 8) != 0) return "not a stax part record";
    if (len < 8 + 4 + 8 || stax_cli_get(b + len - 8, 8) != stax_cli_fnv(b, len - 8))
        return "the part record is corrupt or truncated (its checksum does not match)";
    size_t at = 8, left = len - 8 - 8, n = (size_t)stax_cli_get(b + at, 4); /* len >= 12 + 8: 4 bytes at 8 */
    if (left < 4 || n > left - 4 || n >= sizeof r->cmd || left - 4 - n < 40) return "the part record is malformed";
    memcpy(r->cmd, b + at + 4, n);
    r->cmd[n] = '\0';
    at += 4 + n;
    left -= 4 + n;
    r->k = (uint32_t)stax_cli_get(b + at, 4);
    r->n = (uint32_t)stax_cli_get(b + at + 4, 4);
    r->flags = (uint32_t)stax_cli_get(b + at + 8, 4);
    r->size = stax_cli_get(b + at + 12, 8);
    r->start = stax_cli_get(b + at + 20, 8);
    r->end = stax_cli_get(b + at + 28, 8);
    r->status = (int)(int32_t)(uint32_t)stax_cli_get(b + at + 36, 4);
    at += 40;
    left -= 40;
    const unsigned char **parts[3] = {&r->state, &r->start_ctx, &r->end_ctx};
    size_t *lens[3] = {&r->state_len, &r->start_len, &r->end_len};
    for (int i = 0; i < 3; i++) {
        if (left < 4 || (n = (size_t)stax_cli_get(b + at, 4)) > left - 4) return "the part record is malformed";
        *parts[i] = b + at + 4;
        *lens[i] = n;
        at += 4 + n;
        left -= 4 + n;
    }
    if (left) return "the part record is malformed";
    if (!r->n || r->k >= r->n || r->start > r->end || r->end > r->size || (r->flags & ~PART_NAMESPACES))
        return "the part record is malformed";
    return NULL;
}

void stax_cli_parts_free(stax_cli_partset *ps) {
    if (!ps) return;
    for (size_t i = 0; i < ps->n; i++) free(ps->r[i].raw);
    free(ps->r);
    free(ps);
}

stax_cli_partset *stax_cli_parts_load(const stax_cli_opts *o, char *const *paths, size_t n) {
    stax_cli_partset *ps = calloc(1, sizeof *ps);
    cli_range *got = calloc(n ? n : 1, sizeof *got);
    char msg[256];
    if (!ps || !got) {
        part_fail(o, "merge", "out of memory");
        goto bad;
    }
    ps->r = got;
    ps->n = n;
    if (!n) {
        part_fail(o, "merge", "no part records (stax merge FILE PART...)");
        goto bad;
    }
    for (size_t i = 0; i < n; i++) { /* each record into its place, by K */
        cli_range t;
        memset(&t, 0, sizeof t);
        t.path = paths[i];
        size_t len = 0;
        const char *why = stax_cli_read_file(paths[i], &t.raw, &len);
        if (!why) why = part_parse(&t, len);
        if (!why && t.n != n) {
            snprintf(msg, sizeof msg, "part %u of %u, but %zu part records were given", t.k, t.n, n);
            why = msg;
        }
        if (!why && got[t.k].raw) {
            snprintf(msg, sizeof msg, "part %u again (it is %s too)", t.k, got[t.k].path);
            why = msg;
        }
        if (why) {
            part_fail(o, paths[i], why);
            free(t.raw);
            goto bad;
        }
        got[t.k] = t;
    }
    for (size_t k = 0; k < n; k++) { /* the N ranges of one read of one document */
        const cli_range *a = &got[0], *r = &got[k];
        const char *why = NULL;
        if (strcmp(r->cmd, a->cmd) || r->flags != a->flags || r->size != a->size || r->state_len != a->state_len)
            why = "was written by another read (command, --namespaces or the file's size differ from part 0's)";
        else if (r->start != (k ? got[k - 1].end : 0) || (k + 1 == n && r->end != r->size))
            why = "does not start where the part before it ends";
        if (why) {
            snprintf(msg, sizeof msg, "part %zu %s", k, why);
            part_fail(o, r->path, msg);
            goto bad;
        }
    }
    return ps;
bad:
    if (ps) ps->r = got;
    else free(got);
    stax_cli_parts_free(ps);
    return NULL;
}

const char *stax_cli_parts_command(const stax_cli_partset *ps) { return ps->r[0].cmd; }

/* A reader standing at ctx[0, len) (NULL: the start of the document). */
static stax_reader *part_reader_at(const stax_reader_options *ro, const unsigned char *ctx, size_t len) {
    stax_reader *r = stax_reader_new(ro);
    if (r && ctx && stax_reader_resume(r, ctx, len) != STAX_OK) {
        stax_reader_free(r);
        return NULL;
    }
    return r;
}

int stax_cli_parts_merge(const stax_cli_opts *o, stax_cli_partset *ps, int fd, stax_cli_batch_fn fn, const stax_cli_state *st) {
    const cli_range *r0 = &ps->r[0];
    if (strcmp(r0->cmd, st->command) || r0->state_len != st->len)
        return part_fail(o, r0->path, "written by a command merge does not know");
    void *map;
    size_t size;
    if (part_map(o, fd, "merge reads the document as a regular file, the one the parts read", &map, &size)) return 2;
    if (size != r0->size) {
        if (map) munmap(map, size);
        return part_fail(o, o->name ? o->name : "-", "is not the file the parts read (its size differs): has it changed?");
    }
    const char *d = map ? (const char *)map : "";
    stax_reader_options ro;
    part_reader_options(&ro, r0->flags);
    size_t slen = st->len;
    unsigned char *states = malloc(ps->n * slen + 1); /* each range's state, the serial one once verified */
    if (states && slen)
        for (size_t k = 0; k < ps->n; k++) memcpy(states + k * slen, ps->r[k].state, slen);
    unsigned char *real = NULL;                      /* the real context at the next range's start (NULL: its start is
                                                        the document's, or live goes on) */
    size_t real_len = 0;
    stax_reader *live = NULL; /* a reader that stood where no context could be saved; fed up to next */
    uint64_t next = 0;
    int status = STAX_NEED_INPUT, rc = 2, nomem = !states;
    for (size_t k = 0; !nomem && k < ps->n && status == STAX_NEED_INPUT; k++) {
        const cli_range *r = &ps->r[k];
        unsigned char *s = states + k * slen;
        if (k && r->start == r->end) continue;
        if (!live) {
            stax_pos at = {0, 1, 1};
            int known = real ? stax_context_position(real, real_len, &at) == STAX_OK : k == 0;
            if (!known) {
                status = STAX_E_INTERNAL; /* every range after the first starts at a real context or live */
                break;
            }
            int right = !k || (real && at.offset == r->start && stax_context_equal(real, real_len, r->start_ctx, r->start_len));
            if (right && r->status >= 0 && (r->status == STAX_END || r->end_len)) {
                status = r->status;
                if (status == STAX_END) break;
                stax_pos e;
                unsigned char *c = malloc(r->end_len);
                if (!c || stax_context_position(r->end_ctx, r->end_len, &e) != STAX_OK ||
                    stax_context_move(memcpy(c, r->end_ctx, r->end_len), r->end_len, stax_parallel_pos(at, e)) != STAX_OK) {
                    free(c);
                    nomem = 1;
                    break;
                }
                free(real);
                real = c;
                real_len = r->end_len;
                continue;
            }
            /* read again here, from the real context (wrong guess, an error, no end context) */
            if (o->rereads) ++*o->rereads;
            live = part_reader_at(&ro, real, real_len);
            next = at.offset;
            if (!live) {
                nomem = 1;
                break;
            }
        }
        if (slen) memset(s, 0, slen);
        status = part_feed(live, d, size, next, r->end, fn, s);
        next = r->end + 1;
        if (status != STAX_NEED_INPUT) break;
        free(real);
        real = NULL;
        int saved = part_save(live, &real, &real_len);
        if (saved < 0) nomem = 1;
        if (!saved) {
            stax_reader_free(live);
            live = NULL;
        }
    }
    if (nomem) {
        part_fail(o, "merge", "out of memory");
    } else if (status == STAX_E_INTERNAL) {
        part_fail(o, "merge", "internal error");
    } else if (status == STAX_NEED_INPUT) {
        part_fail(o, "merge", "the parts do not reach the end of the document"); /* not with records checked as above */
    } else {
        if (status < 0) stax_cli_report(o, live, status);
        else if (st->merge)
            for (size_t k = 0; k < ps->n; k++) st->merge(st->data, states + k * slen);
        rc = stax_cli_exit_code(status);
    }
    stax_reader_free(live);
    free(real);
    free(states);
    if (map) munmap(map, size);
    return rc;
}
