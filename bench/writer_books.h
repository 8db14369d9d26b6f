/* The "books" document of the writer benchmark, shared by the stax and the
 * libxml2 programs so that both write the same bytes from the same strings.
 * A pretty-printed <books> of records of about 922 bytes: title, author,
 * isbn, publisher, publishDate, a three-sentence description, and chapters
 * with three <chapter number="N"> children. Strings vary with the record
 * number and carry a few characters that need escaping, as real data does. */
#ifndef WRITER_BOOKS_H
#define WRITER_BOOKS_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOOKS_RECORD_BYTES 922u

static const char *const books_titles[] = {"The Art of Streaming XML for Engineers", "Buffers & Bandwidth: A Practical Guide",
                                           "Parsing at the Speed of Memory", "A Field Guide to <Markup> and Its Uses"};
static const char *const books_authors[] = {"Ada Lovelace", "Grace Hopper", "Edsger Wybe Dijkstra", "Barbara Jane Liskov"};
static const char *const books_publishers[] = {"O'Reilly & Associates", "Addison-Wesley Professional",
                                               "No Starch Press of San Francisco", "The Pragmatic Bookshelf"};
static const char *const books_sentences[] = {
    "This book explains how documents of any size can be processed in constant memory, one chunk at a time, without ever holding the whole input.",
    "Each chapter builds a working component & measures it against the tools engineers already trust in production today.",
    "By the end the reader can write parsers and serializers that run close to the limits of the hardware they run on, day after day.",
    "Examples cover logs, feeds and dumps measured in gigabytes, where 'load it all' is simply not an option for anyone.",
};
static const char *const books_chapters[] = {"Getting Started with Streams", "Streams & Buffers in Practice",
                                             "Escaping <Text> Correctly", "Non-blocking Output and Retries",
                                             "Measuring Speed Honestly", "Putting It All Together"};

/* One record's strings. */
typedef struct books_record {
    char id[24], title[96], isbn[32], date[16], desc[512];
    const char *author, *publisher, *chapter[3];
    char number[3][8];
} books_record;

/* Records are built once into a table of BOOKS_DISTINCT and cycled through, so
 * that the programs time the writers, not snprintf; only the id changes. */
#define BOOKS_DISTINCT 1024u

static void books_make(books_record *r, unsigned long i) {
    snprintf(r->id, sizeof r->id, "%lu", i + 1);
    snprintf(r->title, sizeof r->title, "%s, Volume %lu", books_titles[i % 4], i / 4 + 1);
    snprintf(r->isbn, sizeof r->isbn, "978-%lu-%05lu-%03lu-%lu", i % 10, (i * 7919) % 100000, (i * 31) % 1000, i % 7);
    snprintf(r->date, sizeof r->date, "%04lu-%02lu-%02lu", 1990 + i % 35, 1 + i % 12, 1 + i % 28);
    snprintf(r->desc, sizeof r->desc, "%s %s %s", books_sentences[i % 4], books_sentences[(i + 1) % 4],
             books_sentences[(i + 2) % 4]);
    r->author = books_authors[(i / 3) % 4];
    r->publisher = books_publishers[(i / 5) % 4];
    for (int k = 0; k < 3; k++) {
        r->chapter[k] = books_chapters[(i + (unsigned long)k) % 6];
        snprintf(r->number[k], sizeof r->number[k], "%d", k + 1);
    }
}

static books_record *books_table(void) {
    static books_record table[BOOKS_DISTINCT];
    for (unsigned long i = 0; i < BOOKS_DISTINCT; i++) books_make(&table[i], i);
    return table;
}

/* The id of record i (decimal i + 1) into r->id, without snprintf. */
static inline const char *books_id(books_record *r, unsigned long i) {
    char tmp[24];
    int n = 0;
    unsigned long v = i + 1;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int k = 0; k < n; k++) r->id[k] = tmp[n - 1 - k];
    r->id[n] = '\0';
    return r->id;
}

/* The numbers of record i, for the record-writing benchmark (writer_records*.c):
 * computed per record, as a program writing rows of a table would have them,
 * and formatted by the writer under test. */
typedef struct books_numbers {
    unsigned long id;     /* <book id="..."> */
    long price_cents;     /* <price>19.99</price>: two fraction digits */
    long pages;           /* <pages>352</pages> */
    long year;            /* <year>2004</year> */
    long rating_tenths;   /* <rating>4.5</rating>: one fraction digit */
    long stock;           /* <stock>-3</stock>: may be negative */
    long chapter_pages[3];/* <chapter number="k" pages="...">: number is k + 1 */
} books_numbers;

static inline void books_numbers_of(unsigned long i, books_numbers *n) {
    n->id = i + 1;
    n->price_cents = 499 + (long)((i * 7919) % 9500);
    n->pages = 80 + (long)((i * 31) % 900);
    n->year = 1950 + (long)(i % 75);
    n->rating_tenths = 10 + (long)(i % 41);
    n->stock = (long)(i % 200) - 50;
    for (int k = 0; k < 3; k++) n->chapter_pages[k] = 5 + (long)((i * 13 + (unsigned long)k * 7) % 95);
}

/* Arguments of both programs: MIB (document size) and OUT ("-null" or a file). */
static void books_args(int argc, char **argv, unsigned long *records, const char **out) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MIB OUT|-null\n", argv[0]);
        exit(2);
    }
    unsigned long mib = strtoul(argv[1], NULL, 10);
    *records = mib * 1048576ul / BOOKS_RECORD_BYTES;
    *out = argv[2];
}

#endif
