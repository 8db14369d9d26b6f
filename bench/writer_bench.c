/* Writer benchmark, stax side: write the books document (writer_books.h)
 * through the stax writer to a null sink or to a file.
 *
 *   writer_bench MIB OUT|-null [-bg]
 *
 * -bg: STAX_WRITE_BACKGROUND with two 1 MiB buffers, so that formatting
 * overlaps with the writes (with 64 KiB buffers the hand-overs cost more than
 * they save: see docs/benchmarks.md).
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

/* One call per leaf element, as libxml2's side uses xmlTextWriterWriteElement. */
static void element(stax_writer *w, const char *name, const char *text) { stax_writer_element_z(w, name, text); }

int main(int argc, char **argv) {
    unsigned long records;
    const char *out;
    int bg = argc == 4 && !strcmp(argv[3], "-bg");
    books_args(bg ? 3 : argc, argv, &records, &out);
    stax_writer_options o = {0};
    o.indent_width = 2;
    o.buffer_size = 1 << 16;
    if (bg) {
        o.flags |= STAX_WRITE_BACKGROUND;
        o.buffer_size = 1 << 20;
    }
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
    stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0);
    stax_writer_start_z(w, "books");
    books_record *table = books_table();
    for (unsigned long i = 0; i < records; i++) {
        books_record *r = &table[i % BOOKS_DISTINCT];
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
    stax_writer_end(w);
    stax_writer_text_z(w, "\n");
    int st = stax_writer_finish(w);
    if (st != STAX_OK) {
        fprintf(stderr, "writer_bench: %s\n", stax_strerror(st));
        return 1;
    }
    if (fd >= 0) close(fd);
    stax_writer_free(w);
    return 0;
}
