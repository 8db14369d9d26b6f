/* Writer benchmark, the "catalog" program: a book catalog written as users
 * write one. Every record is formatted afresh by the caller with snprintf
 * (its id, title, price, date and page count), then written as elements
 * with attributes and text; nothing is cached between records. Three
 * writers produce the same bytes:
 *
 *   writer_catalog stax|libxml2|floor [BYTES [OUT]]
 *
 * stax: the stax writer (64 KiB buffer, fd sink, the _z calls); libxml2:
 * xmlTextWriter over an fd; floor: the same bytes by snprintf and fwrite
 * alone (markup as literals, the strings escaped ahead), what any writer
 * adds its cost to. BYTES: about how much to write (default 1 GiB; K, M and
 * G suffixes); OUT: the file (default /dev/null). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "stax.h"

#include <fcntl.h>
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const titles[] = {"XML Developer's Guide", "Midnight Rain", "Maeve Ascendant",
                                     "Oberon's Legacy", "The Sundered Grail", "Lover Birds"};
static const char *const dates[] = {"2000-10-01", "2000-12-16", "2000-11-17", "2001-03-10",
                                    "2001-09-10", "2000-09-02", "2000-12-01"};
static const char *const genres[] = {"Computer", "Fantasy", "Romance", "Horror", "Science Fiction"};
static const char *const authors[] = {"Gambardella, Matthew", "Ralls, Kim", "Corets, Eva", "Randall, Cynthia",
                                      "Thurman, Paula", "Knorr, Stefan", "Kress, Peter", "O'Brien, Tim"};
/* descriptions, and the same escaped for the floor program */
static const char *const descs[] = {
    "An in-depth look at creating applications with XML.",
    "A former architect battles corporate zombies, an evil sorceress, and her own childhood to become queen.",
    "After the collapse of a nanotechnology society in England, the young survivors lay the foundation for a new "
    "society.",
    "Microsoft's .NET initiative is explored in detail in this deep programmer's reference & guide.",
};
static const char *const descs_escaped[] = {
    "An in-depth look at creating applications with XML.",
    "A former architect battles corporate zombies, an evil sorceress, and her own childhood to become queen.",
    "After the collapse of a nanotechnology society in England, the young survivors lay the foundation for a new "
    "society.",
    "Microsoft's .NET initiative is explored in detail in this deep programmer's reference &amp; guide.",
};

/* The mean size of a record: BYTES / this many records are written. */
#define CATALOG_RECORD_BYTES 358u

/* One record, formatted by the caller. */
typedef struct rec {
    char id[16], price[16];
    const char *date, *title, *author, *genre, *desc, *desc_escaped, *available;
} rec;

static void make_rec(rec *r, unsigned long i) {
    snprintf(r->id, sizeof r->id, "bk%06lu", i);
    r->title = titles[i % 6];
    unsigned long cents = 495 + (i * 7919) % 4000;
    snprintf(r->price, sizeof r->price, "%lu.%02lu", cents / 100, cents % 100);
    r->date = dates[i % 7];
    r->author = authors[i % 8];
    r->genre = genres[i % 5];
    r->desc = descs[i % 4];
    r->desc_escaped = descs_escaped[i % 4];
    r->available = i % 3 ? "true" : "false";
}

/* ---------------------------------------------------------------- stax */

static void run_stax(int fd, unsigned long records) {
    stax_writer_options o = {0};
    o.indent_width = 2;
    stax_writer *w = stax_writer_new(&o);
    stax_writer_set_fd(w, fd);
    stax_writer_xml_decl(w, stax_strz(NULL), stax_strz("UTF-8"), 0);
    stax_writer_start_z(w, "catalog");
    for (unsigned long i = 0; i < records; i++) {
        rec r;
        make_rec(&r, i);
        stax_writer_start_z(w, "book");
        stax_writer_attr_z(w, "id", r.id);
        stax_writer_attr_z(w, "available", r.available);
        stax_writer_element_z(w, "author", r.author);
        stax_writer_element_z(w, "title", r.title);
        stax_writer_element_z(w, "genre", r.genre);
        stax_writer_start_z(w, "price");
        stax_writer_attr_z(w, "currency", "USD");
        stax_writer_text_z(w, r.price);
        stax_writer_end(w);
        stax_writer_element_z(w, "publish_date", r.date);
        stax_writer_element_z(w, "description", r.desc);
        stax_writer_end(w);
    }
    stax_writer_end(w);
    stax_writer_text_z(w, "\n");
    if (stax_writer_finish(w) != STAX_OK) {
        fprintf(stderr, "writer_catalog: %s\n", stax_writer_message(w));
        exit(1);
    }
    stax_writer_free(w);
}

/* ---------------------------------------------------------------- libxml2 */

static int fd_write(void *ctx, const char *buf, int len) {
    int fd = *(int *)ctx;
    for (int done = 0; done < len;) {
        ssize_t k = write(fd, buf + done, (size_t)(len - done));
        if (k <= 0) return -1;
        done += (int)k;
    }
    return len;
}

static int fd_close(void *ctx) {
    (void)ctx;
    return 0;
}

static void run_libxml2(int fd, unsigned long records) {
    xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(fd_write, fd_close, &fd, NULL);
    xmlTextWriterPtr w = xmlNewTextWriter(ob);
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, BAD_CAST "  ");
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterStartElement(w, BAD_CAST "catalog");
    for (unsigned long i = 0; i < records; i++) {
        rec r;
        make_rec(&r, i);
        int k = 0;
        k += xmlTextWriterStartElement(w, BAD_CAST "book");
        k += xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST r.id);
        k += xmlTextWriterWriteAttribute(w, BAD_CAST "available", BAD_CAST r.available);
        k += xmlTextWriterWriteElement(w, BAD_CAST "author", BAD_CAST r.author);
        k += xmlTextWriterWriteElement(w, BAD_CAST "title", BAD_CAST r.title);
        k += xmlTextWriterWriteElement(w, BAD_CAST "genre", BAD_CAST r.genre);
        k += xmlTextWriterStartElement(w, BAD_CAST "price");
        k += xmlTextWriterWriteAttribute(w, BAD_CAST "currency", BAD_CAST "USD");
        k += xmlTextWriterWriteString(w, BAD_CAST r.price);
        k += xmlTextWriterEndElement(w);
        k += xmlTextWriterWriteElement(w, BAD_CAST "publish_date", BAD_CAST r.date);
        k += xmlTextWriterWriteElement(w, BAD_CAST "description", BAD_CAST r.desc);
        k += xmlTextWriterEndElement(w);
        if (k < 0) {
            fprintf(stderr, "writer_catalog: libxml2 failed\n");
            exit(1);
        }
    }
    xmlTextWriterEndElement(w);
    if (xmlTextWriterEndDocument(w) < 0) exit(1);
    xmlFreeTextWriter(w);
}

/* ---------------------------------------------------------------- the floor */

static void put(FILE *f, const char *s) { fwrite(s, 1, strlen(s), f); }

static void run_floor(int fd, unsigned long records) {
    FILE *f = fdopen(fd, "w");
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    put(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalog>");
    for (unsigned long i = 0; i < records; i++) {
        rec r;
        make_rec(&r, i);
        put(f, "\n  <book id=\"");
        put(f, r.id);
        put(f, "\" available=\"");
        put(f, r.available);
        put(f, "\">\n    <author>");
        put(f, r.author);
        put(f, "</author>\n    <title>");
        put(f, r.title);
        put(f, "</title>\n    <genre>");
        put(f, r.genre);
        put(f, "</genre>\n    <price currency=\"USD\">");
        put(f, r.price);
        put(f, "</price>\n    <publish_date>");
        put(f, r.date);
        put(f, "</publish_date>\n    <description>");
        put(f, r.desc_escaped);
        put(f, "</description>\n  </book>");
    }
    put(f, "\n</catalog>\n");
    if (fflush(f) != 0) exit(1);
}

/* make_rec alone: the formatting every program pays. */
static void run_format(unsigned long records) {
    unsigned long sum = 0;
    for (unsigned long i = 0; i < records; i++) {
        rec r;
        make_rec(&r, i);
        sum += (unsigned char)r.price[0] + (unsigned char)r.id[7];
    }
    if (sum == 1) puts("");
}

static unsigned long long parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10;
    if (*end == 'M' || *end == 'm') v <<= 20;
    if (*end == 'G' || *end == 'g') v <<= 30;
    return v;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: writer_catalog stax|libxml2|floor [BYTES [OUT]]\n");
        return 2;
    }
    unsigned long long bytes = argc > 2 ? parse_size(argv[2]) : 1ull << 30;
    const char *out = argc > 3 ? argv[3] : "/dev/null";
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(out);
        return 2;
    }
    unsigned long records = (unsigned long)(bytes / CATALOG_RECORD_BYTES);
    if (!strcmp(argv[1], "stax"))
        run_stax(fd, records);
    else if (!strcmp(argv[1], "libxml2"))
        run_libxml2(fd, records);
    else if (!strcmp(argv[1], "floor"))
        run_floor(fd, records);
    else if (!strcmp(argv[1], "format"))
        run_format(records);
    else
        return 2;
    return 0;
}
