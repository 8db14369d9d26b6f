/* The streaming driver every subcommand shares: reader setup from the
 * options, chunked feeding, and error reporting as NAME:LINE:COL: message. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAX_CLI_READ_SIZE (256u * 1024) /* fewer tokens cut by a read: those take the slower way */

static ssize_t cli_read_full(int fd, char *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0 || errno != EINTR) return n;
    }
}

static void cli_report(const stax_cli_opts *o, stax_reader *r, int st) {
    if (o->quiet) return;
    stax_pos p = stax_reader_error_pos(r);
    fprintf(stderr, "%s:%llu:%llu: %s (byte %llu)\n", o->name ? o->name : "-", (unsigned long long)p.line,
            (unsigned long long)p.column, stax_reader_message(r)[0] ? stax_reader_message(r) : stax_strerror(st),
            (unsigned long long)p.offset);
}

/* Map a reader status to the tool's exit code. */
static int cli_exit_code(int st) {
    if (st == STAX_END) return 0;
    if (st == STAX_E_IO || st == STAX_E_USAGE || st == STAX_E_NOMEM) return 2; /* not the document's fault */
    return 1;
}

int stax_cli_run(const stax_cli_opts *o, int fd, stax_cli_batch_fn fn, void *ctx, int *err) {
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
    char *buf = malloc(cap);
    int st = STAX_NEED_INPUT, rc = 2;
    stax_cli_progress progress;
    memset(&progress, 0, sizeof progress);
    if (!buf) {
        if (!o->quiet) fprintf(stderr, "stax: out of memory\n");
        st = STAX_E_NOMEM;
        goto out;
    }
    const stax_batch *b;
    int eof = 0;
    stax_cli_progress_begin(&progress, o->progress, fd, o->name);
    while (!eof) {
        ssize_t n = cli_read_full(fd, buf, cap);
        if (n > 0) stax_cli_progress_add(&progress, (size_t)n);
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
            }
            if (st < 0) goto done;
            while ((st = stax_reader_next(r, &b)) == STAX_OK) {
                if (fn && (rc = fn(ctx, r, b)) != 0) {
                    if (rc == STAX_CLI_STOP) rc = 0;
                    goto out;
                }
            }
            if (st != STAX_NEED_INPUT) goto done;
        } while (!eof && off < (size_t)n);
    }
done:
    stax_cli_progress_end(&progress);
    if (st < 0) cli_report(o, r, st);
    rc = cli_exit_code(st);
out:
    stax_cli_progress_end(&progress);
    if (err) *err = stax_reader_status(r) < 0 ? stax_reader_status(r) : st;
    stax_reader_free(r);
    free(buf);
    free(block);
    return rc;
}

int stax_cmd_check(const stax_cli_opts *o, int fd) { return stax_cli_run(o, fd, NULL, NULL, NULL); }

typedef struct cli_counts {
    unsigned long long elements, attributes, text, cdata, comments, pis, bytes_text;
} cli_counts;

static int cli_count_batch(void *ctx, stax_reader *r, const stax_batch *b) {
    (void)r;
    cli_counts *c = ctx;
    /* by type, without a branch per event: attr_count is 0 but for START */
    unsigned long long n[16] = {0}, attrs = 0, text = 0;
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

int stax_cmd_count(const stax_cli_opts *o, int fd, FILE *out) {
    cli_counts c;
    memset(&c, 0, sizeof c);
    int rc = stax_cli_run(o, fd, cli_count_batch, &c, NULL);
    if (rc == 0)
        fprintf(out, "elements=%llu attributes=%llu text=%llu cdata=%llu comments=%llu pis=%llu text_bytes=%llu\n",
                c.elements, c.attributes, c.text, c.cdata, c.comments, c.pis, c.bytes_text);
    return rc;
}
