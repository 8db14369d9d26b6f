/* Record-writing benchmark, libxml2 side: the document of writer_records.c
 * through xmlTextWriter, the numbers formatted by its printf-style calls
 * (xmlTextWriterWriteFormatElement, xmlTextWriterWriteFormatAttribute).
 *
 *   writer_records_libxml2 MIB -null|OUT
 */
#include "writer_books.h"

#include <libxml/xmlwriter.h>

static int null_write(void *ctx, const char *buf, int len) {
    (void)buf;
    *(unsigned long long *)ctx += (unsigned long long)len;
    return len;
}

static int null_close(void *ctx) {
    (void)ctx;
    return 0;
}

int main(int argc, char **argv) {
    unsigned long records;
    const char *out;
    books_args(argc, argv, &records, &out);
    unsigned long long total = 0;
    xmlTextWriterPtr w;
    if (!strcmp(out, "-null")) {
        xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(null_write, null_close, &total, NULL);
        w = xmlNewTextWriter(ob);
    } else {
        w = xmlNewTextWriterFilename(out, 0);
    }
    if (!w) {
        fprintf(stderr, "writer_records_libxml2: cannot create the writer\n");
        return 2;
    }
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, BAD_CAST "  ");
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterStartElement(w, BAD_CAST "books");
    books_record *table = books_table();
    for (unsigned long i = 0; i < records; i++) {
        books_record *r = &table[i % BOOKS_DISTINCT];
        books_numbers n;
        books_numbers_of(i, &n);
        xmlTextWriterStartElement(w, BAD_CAST "book");
        xmlTextWriterWriteFormatAttribute(w, BAD_CAST "id", "%lu", n.id);
        xmlTextWriterWriteElement(w, BAD_CAST "title", BAD_CAST r->title);
        xmlTextWriterWriteElement(w, BAD_CAST "author", BAD_CAST r->author);
        xmlTextWriterWriteElement(w, BAD_CAST "isbn", BAD_CAST r->isbn);
        xmlTextWriterWriteElement(w, BAD_CAST "publisher", BAD_CAST r->publisher);
        xmlTextWriterWriteFormatElement(w, BAD_CAST "price", "%ld.%02ld", n.price_cents / 100, n.price_cents % 100);
        xmlTextWriterWriteFormatElement(w, BAD_CAST "pages", "%ld", n.pages);
        xmlTextWriterWriteFormatElement(w, BAD_CAST "year", "%ld", n.year);
        xmlTextWriterWriteFormatElement(w, BAD_CAST "rating", "%ld.%ld", n.rating_tenths / 10, n.rating_tenths % 10);
        xmlTextWriterWriteFormatElement(w, BAD_CAST "stock", "%ld", n.stock);
        xmlTextWriterWriteElement(w, BAD_CAST "description", BAD_CAST r->desc);
        xmlTextWriterStartElement(w, BAD_CAST "chapters");
        for (int k = 0; k < 3; k++) {
            xmlTextWriterStartElement(w, BAD_CAST "chapter");
            xmlTextWriterWriteFormatAttribute(w, BAD_CAST "number", "%d", k + 1);
            xmlTextWriterWriteFormatAttribute(w, BAD_CAST "pages", "%ld", n.chapter_pages[k]);
            xmlTextWriterWriteString(w, BAD_CAST r->chapter[k]);
            xmlTextWriterEndElement(w);
        }
        xmlTextWriterEndElement(w);
        xmlTextWriterEndElement(w);
    }
    xmlTextWriterEndElement(w);
    if (xmlTextWriterEndDocument(w) < 0) {
        fprintf(stderr, "writer_records_libxml2: write failed\n");
        return 1;
    }
    xmlFreeTextWriter(w);
    return 0;
}
