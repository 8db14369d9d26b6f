/* Writer benchmark, stax side: write the books document (writer_books.h)
 * through the stax writer to a null sink or to a file.
 *
 *   writer_bench MIB OUT|-null|- [-bg] [-buf BYTES] [-slow] [-records | -records-snprintf]
 *
 * OUT "-": standard output (a pipe in bench/writer_sinks_run.sh).
 * -bg: STAX_WRITE_BACKGROUND, so that formatting overlaps with the writes.
 * -buf BYTES: the buffer size (default 64 KiB; 1 MiB with -bg).
 * -slow: a sink that does work on every byte before writing it (an FNV-1a
 * hash, about as slow as a fast compressor), as a compressing or encrypting
 * sink does; with -null it writes nothing.
 * -records: the record-writing variant, with numbers computed per record
 * (books_numbers_of) and written with the number calls
 * (stax_writer_attr_uint, stax_writer_element_dec, ...); -records-snprintf: the
 * same numbers formatted with snprintf and written as strings, as callers do
 * without those calls. writer_libxml2 writes the same bytes (bench/writer.mk
 * compares them).
 */
#include "stax.h"
#include "writer_books.h"

#include <fcntl.h>
#include <unistd.h>

static ptrdiff_t null_sink(void *ctx, const void *data, size_t len) {
    (void)data;
    *(unsigned long long *)ctx += len;
    return (ptrdiff_t)len;
}

/* The -slow sink: hash every byte, then write them all (fd < 0: nowhere). */
typedef struct slow_sink {
    int fd;
    unsigned hash;
} slow_sink;

static ptrdiff_t slow_write(void *ctx, const void *data, size_t len) {
    slow_sink *s = (slow_sink *)ctx;
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++) s->hash = (s->hash ^ p[i]) * 16777619u;
    for (size_t done = 0; s->fd >= 0 && done < len;) {
        ssize_t k = write(s->fd, p + done, len - done);
        if (k <= 0) return STAX_E_IO;
        done += (size_t)k;
    }
    return (ptrdiff_t)len;
}

/* One call per leaf element, as libxml2's side uses xmlTextWriterWriteElement.
 * These helpers are inline, so that each call site is the direct call a
 * program makes (a literal name's length is known there, as in the libxml2
 * program's direct calls), not a call through a helper that measures it. */
static inline void element(stax_writer *w, const char *name, const char *text) { stax_writer_element_z(w, name, text); }

/* <name>v / 10^frac</name>: with the number calls, or formatted by snprintf. */
static inline void number(stax_writer *w, int fmt, const char *name, long v, unsigned frac) {
    if (!fmt) {
        stax_writer_element_dec_z(w, name, v, frac); /* frac 0: the integer */
        return;
    }
    char b[32];
    long p = frac == 0 ? 1 : frac == 1 ? 10 : 100;
    if (frac == 0)
        snprintf(b, sizeof b, "%ld", v);
    else
        snprintf(b, sizeof b, "%s%ld.%0*ld", v < 0 ? "-" : "", labs(v) / p, (int)frac, labs(v) % p);
    element(w, name, b);
}

/* An attribute holding v: with the number call, or formatted by snprintf. */
static inline void number_attr(stax_writer *w, int fmt, const char *name, unsigned long v) {
    if (!fmt) {
        stax_writer_attr_uint_z(w, name, v);
        return;
    }
    char b[32];
    snprintf(b, sizeof b, "%lu", v);
    stax_writer_attr_z(w, name, b);
}

static void book(stax_writer *w, books_record *r, unsigned long i) {
    books_id(r, i);
    stax_writer_start_z(w, "book");
    stax_writer_attr_z(w, "id", r->id);
    element(w, "title", r->title);
    element(w, "author", r->author);
    element(w, "isbn", r->isbn);
    element(w, "publisher", r->publisher);
    element(w, "publishDate", r->date);
    element(w, "description", r->desc);
    stax_writer_start_z(w, "chapters");
    for (int k = 0; k < 3; k++) {
        stax_writer_start_z(w, "chapter");
        stax_writer_attr_z(w, "number", r->number[k]);
        stax_writer_text_z(w, r->chapter[k]);
        stax_writer_end(w);
    }
    stax_writer_end(w);
    stax_writer_end(w);
}

static void record(stax_writer *w, int fmt, const books_record *r, unsigned long i) {
    books_numbers n;
    books_numbers_of(i, &n);
    stax_writer_start_z(w, "book");
    number_attr(w, fmt, "id", n.id);
    element(w, "title", r->title);
    element(w, "author", r->author);
    element(w, "isbn", r->isbn);
    element(w, "publisher", r->publisher);
    number(w, fmt, "price", n.price_cents, 2);
    number(w, fmt, "pages", n.pages, 0);
    number(w, fmt, "year", n.year, 0);
    number(w, fmt, "rating", n.rating_tenths, 1);
    number(w, fmt, "stock", n.stock, 0);
    element(w, "description", r->desc);
    stax_writer_start_z(w, "chapters");
    for (int k = 0; k < 3; k++) {
        stax_writer_start_z(w, "chapter");
        number_attr(w, fmt, "number", (unsigned long)k + 1);
        number_attr(w, fmt, "pages", (unsigned long)n.chapter_pages[k]);
        stax_writer_text_z(w, r->chapter[k]);
        stax_writer_end(w);
    }
    stax_writer_end(w);
    stax_writer_end(w);
}

int main(int argc, char **argv) {
    unsigned long records;
    const char *out;
    int bg = 0, recs = 0, fmt = 0, slow = 0;
    size_t buf = 0;
    for (; argc > 3; argc--) {
        const char *a = argv[argc - 1];
        if (argc > 4 && !strcmp(argv[argc - 2], "-buf")) {
            buf = (size_t)strtoul(a, NULL, 10);
            argc--;
        } else if (!strcmp(a, "-bg"))
            bg = 1;
        else if (!strcmp(a, "-slow"))
            slow = 1;
        else if (!strcmp(a, "-records"))
            recs = 1;
        else if (!strcmp(a, "-records-snprintf"))
            recs = fmt = 1;
        else
            break;
    }
    books_args(argc, argv, &records, &out);
    stax_writer_options o = {0};
    o.indent_width = 2;
    o.buffer_size = 1 << 16;
    if (bg) {
        o.flags |= STAX_WRITE_BACKGROUND;
        o.buffer_size = 1 << 20;
    }
    if (buf) o.buffer_size = buf;
    stax_writer *w = stax_writer_new(&o);
    if (!w) {
        fprintf(stderr, "writer_bench: options refused\n");
        return 2;
    }
    unsigned long long total = 0;
    int fd = -1;
    if (strcmp(out, "-null") && strcmp(out, "-")) {
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            perror(out);
            return 2;
        }
    }
    slow_sink ss = {strcmp(out, "-") ? fd : 1, 2166136261u};
    if (slow)
        stax_writer_set_sink(w, slow_write, &ss);
    else if (!strcmp(out, "-null"))
        stax_writer_set_sink(w, null_sink, &total);
    else
        stax_writer_set_fd(w, ss.fd);
    stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0);
    stax_writer_start_z(w, "books");
    books_record *table = books_table();
    for (unsigned long i = 0; i < records; i++) {
        if (recs)
            record(w, fmt, &table[i % BOOKS_DISTINCT], i);
        else
            book(w, &table[i % BOOKS_DISTINCT], i);
    }
    stax_writer_end(w);
    stax_writer_text_z(w, "\n");
    int st = stax_writer_finish(w);
    if (st != STAX_OK) {
        fprintf(stderr, "writer_bench: %s\n", stax_writer_message(w));
        return 1;
    }
    if (fd >= 0) close(fd);
    stax_writer_free(w);
    return 0;
}
