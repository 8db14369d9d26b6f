/* libxml2_count: the benchmark peer of `stax count`, on libxml2.
 *
 *   libxml2_count [FILE|-]
 *
 * Reads FILE (stdin when absent or "-") in 64 KiB chunks into a SAX2 push
 * parser and prints "elements=N attributes=M" like `stax count`. No tree is
 * built: only startElementNs and characters handlers are set. SAX2 reports
 * namespace declarations apart from attributes; they are added back so the
 * count matches a parser without namespace processing (xmlns is an attribute
 * in XML 1.0). XML_PARSE_HUGE lifts libxml2's size limits for large dumps.
 * Exit 1 if the document is not well-formed, 2 on usage or I/O errors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { CHUNK = 64 * 1024 };

typedef struct counts {
    uint64_t elements;
    uint64_t attributes;
    uint64_t text_bytes;
} counts;

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    counts *c = ((xmlParserCtxtPtr)ctx)->_private;
    (void)localname, (void)prefix, (void)uri, (void)namespaces, (void)nb_defaulted, (void)attributes;
    c->elements++;
    c->attributes += (uint64_t)nb_attributes + (uint64_t)nb_namespaces;
}

static void on_text(void *ctx, const xmlChar *s, int len) {
    counts *c = ((xmlParserCtxtPtr)ctx)->_private;
    (void)s;
    c->text_bytes += (uint64_t)len;
}

/* Errors are reported once, after parsing, from the context's last error. */
static void on_error(void *ud, xmlErrorPtr err) {
    (void)ud, (void)err;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "-";
    if (argc > 2) {
        fputs("usage: libxml2_count [FILE|-]\n", stderr);
        return 2;
    }
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "libxml2_count: %s: %s\n", path, strerror(errno));
        return 2;
    }
    LIBXML_TEST_VERSION

    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.characters = on_text;
    sax.cdataBlock = on_text;
    sax.serror = on_error;

    counts c = {0, 0, 0};
    static char buf[CHUNK];
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, path);
    if (!ctxt) {
        fputs("libxml2_count: cannot create a parser\n", stderr);
        return 2;
    }
    ctxt->_private = &c;
    xmlCtxtUseOptions(ctxt, XML_PARSE_HUGE | XML_PARSE_NONET);

    int failed = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fprintf(stderr, "libxml2_count: %s: %s\n", path, strerror(errno));
            xmlFreeParserCtxt(ctxt);
            return 2;
        }
        if (xmlParseChunk(ctxt, buf, (int)n, n == 0) != 0 || !ctxt->wellFormed) {
            failed = 1;
            break;
        }
        if (n == 0) break;
    }
    if (failed) {
        xmlErrorPtr e = xmlCtxtGetLastError(ctxt);
        fprintf(stderr, "%s:%d:%d: %s", path, e ? e->line : 0, e ? e->int2 : 0,
                e && e->message ? e->message : "not well-formed\n");
        xmlFreeParserCtxt(ctxt);
        return 1;
    }
    xmlFreeParserCtxt(ctxt);
    xmlCleanupParser();
    if (fd != STDIN_FILENO) close(fd);
    printf("elements=%llu attributes=%llu\n", (unsigned long long)c.elements,
           (unsigned long long)c.attributes);
    return 0;
}
