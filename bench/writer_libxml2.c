/* Writer benchmark, libxml2 side: the same books document (writer_books.h)
 * through xmlTextWriter, to a null sink or to a file, with the same bytes
 * as writer_bench (checked by bench/writer.mk's writer-bench-check).
 *
 *   writer_libxml2 MIB OUT|-null [-records]
 *
 * -records: the record-writing variant of writer_bench -records, the numbers
 * formatted by xmlTextWriter's printf-style calls
 * (xmlTextWriterWriteFormatElement, xmlTextWriterWriteFormatAttribute).
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

static void element(xmlTextWriterPtr w, const char *name, const char *text) {
    xmlTextWriterWriteElement(w, BAD_CAST name, BAD_CAST text);
}

static void book(xmlTextWriterPtr w, books_record *r, unsigned long i) {
    books_id(r, i);
    xmlTextWriterStartElement(w, BAD_CAST "book");
    xmlTextWriterWriteAttribute(w, BAD_CAST "id", BAD_CAST r->id);
    element(w, "title", r->title);
    element(w, "author", r->author);
    element(w, "isbn", r->isbn);
    element(w, "publisher", r->publisher);
    element(w, "publishDate", r->date);
    element(w, "description", r->desc);
    xmlTextWriterStartElement(w, BAD_CAST "chapters");
    for (int k = 0; k < 3; k++) {
        xmlTextWriterStartElement(w, BAD_CAST "chapter");
        xmlTextWriterWriteAttribute(w, BAD_CAST "number", BAD_CAST r->number[k]);
        xmlTextWriterWriteString(w, BAD_CAST r->chapter[k]);
        xmlTextWriterEndElement(w);
    }
    xmlTextWriterEndElement(w);
    xmlTextWriterEndElement(w);
}

static void record(xmlTextWriterPtr w, const books_record *r, unsigned long i) {
    books_numbers n;
    books_numbers_of(i, &n);
    xmlTextWriterStartElement(w, BAD_CAST "book");
    xmlTextWriterWriteFormatAttribute(w, BAD_CAST "id", "%lu", n.id);
    element(w, "title", r->title);
    element(w, "author", r->author);
    element(w, "isbn", r->isbn);
    element(w, "publisher", r->publisher);
    xmlTextWriterWriteFormatElement(w, BAD_CAST "price", "%ld.%02ld", n.price_cents / 100, n.price_cents % 100);
    xmlTextWriterWriteFormatElement(w, BAD_CAST "pages", "%ld", n.pages);
    xmlTextWriterWriteFormatElement(w, BAD_CAST "year", "%ld", n.year);
    xmlTextWriterWriteFormatElement(w, BAD_CAST "rating", "%ld.%ld", n.rating_tenths / 10, n.rating_tenths % 10);
    xmlTextWriterWriteFormatElement(w, BAD_CAST "stock", "%ld", n.stock);
    element(w, "description", r->desc);
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

int main(int argc, char **argv) {
    unsigned long records;
    const char *out;
    int recs = argc == 4 && !strcmp(argv[3], "-records");
    books_args(recs ? 3 : argc, argv, &records, &out);
    unsigned long long total = 0;
    xmlTextWriterPtr w;
    if (!strcmp(out, "-null")) {
        xmlOutputBufferPtr ob = xmlOutputBufferCreateIO(null_write, null_close, &total, NULL);
        w = xmlNewTextWriter(ob);
    } else {
        w = xmlNewTextWriterFilename(out, 0);
    }
    if (!w) {
        fprintf(stderr, "writer_libxml2: cannot create the writer\n");
        return 2;
    }
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, BAD_CAST "  ");
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterStartElement(w, BAD_CAST "books");
    books_record *table = books_table();
    for (unsigned long i = 0; i < records; i++) {
        if (recs)
            record(w, &table[i % BOOKS_DISTINCT], i);
        else
            book(w, &table[i % BOOKS_DISTINCT], i);
    }
    xmlTextWriterEndElement(w);
    if (xmlTextWriterEndDocument(w) < 0) {
        fprintf(stderr, "writer_libxml2: write failed\n");
        return 1;
    }
    xmlFreeTextWriter(w);
    return 0;
}
