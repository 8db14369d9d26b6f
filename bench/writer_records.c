/* Record-writing benchmark, stax side: the books document with numbers
 * computed per record (writer_books.h, books_numbers_of): six numbers in
 * each book (id, price, pages, year, rating, stock) and two in each chapter.
 *
 *   writer_records MIB -null|OUT [-snprintf]
 *
 * By default the numbers are written with the writer's number calls
 * (stax_writer_attr_uint, stax_writer_text_dec, ...); with -snprintf they are
 * formatted with snprintf and written as strings, as callers do without them.
 * Both write the same bytes as writer_records_libxml2 (bench/writer.mk's
 * writer-records-check compares them).
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

/* <name>v / 10^frac</name> with the number calls. */
static void num_element(stax_writer *w, const char *name, long v, unsigned frac) {
    stax_writer_start_z(w, name);
    stax_writer_text_dec(w, v, frac);
    stax_writer_end(w);
}

/* The same with snprintf, as callers format numbers without those calls. */
static void fmt_element(stax_writer *w, const char *name, long v, unsigned frac) {
    char b[32];
    if (frac == 0)
        snprintf(b, sizeof b, "%ld", v);
    else
        snprintf(b, sizeof b, "%s%ld.%0*ld", v < 0 ? "-" : "", labs(v) / (frac == 1 ? 10 : 100), (int)frac,
                 labs(v) % (frac == 1 ? 10 : 100));
    stax_writer_element_z(w, name, b);
}

int main(int argc, char **argv) {
    unsigned long records;
    const char *out;
    int fmt = argc == 4 && !strcmp(argv[3], "-snprintf");
    books_args(fmt ? 3 : argc, argv, &records, &out);
    stax_writer_options o = {0};
    o.indent_width = 2;
    stax_writer *w = stax_writer_new(&o);
    unsigned long long total = 0;
    int fd = -1;
    if (!strcmp(out, "-null")) {
        stax_writer_set_sink(w, null_sink, &total);
    } else {
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            perror(out);
            return 2;
        }
        stax_writer_set_fd(w, fd);
    }
    void (*element)(stax_writer *, const char *, long, unsigned) = fmt ? fmt_element : num_element;
    stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0);
    stax_writer_start_z(w, "books");
    books_record *table = books_table();
    for (unsigned long i = 0; i < records; i++) {
        books_record *r = &table[i % BOOKS_DISTINCT];
        books_numbers n;
        books_numbers_of(i, &n);
        char b[32];
        stax_writer_start_z(w, "book");
        if (fmt) {
            snprintf(b, sizeof b, "%lu", n.id);
            stax_writer_attr_z(w, "id", b);
        } else {
            stax_writer_attr_uint_z(w, "id", n.id);
        }
        stax_writer_element_z(w, "title", r->title);
        stax_writer_element_z(w, "author", r->author);
        stax_writer_element_z(w, "isbn", r->isbn);
        stax_writer_element_z(w, "publisher", r->publisher);
        element(w, "price", n.price_cents, 2);
        element(w, "pages", n.pages, 0);
        element(w, "year", n.year, 0);
        element(w, "rating", n.rating_tenths, 1);
        element(w, "stock", n.stock, 0);
        stax_writer_element_z(w, "description", r->desc);
        stax_writer_start_z(w, "chapters");
        for (int k = 0; k < 3; k++) {
            stax_writer_start_z(w, "chapter");
            if (fmt) {
                snprintf(b, sizeof b, "%d", k + 1);
                stax_writer_attr_z(w, "number", b);
                snprintf(b, sizeof b, "%ld", n.chapter_pages[k]);
                stax_writer_attr_z(w, "pages", b);
            } else {
                stax_writer_attr_int_z(w, "number", k + 1);
                stax_writer_attr_int_z(w, "pages", n.chapter_pages[k]);
            }
            stax_writer_text_z(w, r->chapter[k]);
            stax_writer_end(w);
        }
        stax_writer_end(w);
        stax_writer_end(w);
    }
    stax_writer_end(w);
    stax_writer_text_z(w, "\n");
    int st = stax_writer_finish(w);
    if (st != STAX_OK) {
        fprintf(stderr, "writer_records: %s\n", stax_writer_message(w));
        return 1;
    }
    if (fd >= 0) close(fd);
    stax_writer_free(w);
    return 0;
}
