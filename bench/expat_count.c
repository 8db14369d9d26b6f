/* expat_count: the benchmark peer of `stax count`, on expat.
 *
 *   expat_count [-n] [FILE|-]
 *
 * Reads FILE (stdin when absent or "-") in 64 KiB chunks and prints
 * "elements=N attributes=M" like `stax count`. Namespace processing is off
 * (as in stax count by default), so xmlns attributes count as attributes;
 * -n turns it on (XML_ParserCreateNS, as `stax count --namespaces`), and
 * then expat does not report xmlns attributes.
 * A character-data handler is set too, so that expat delivers text as stax
 * does; chunks are read straight into expat's own buffer (XML_GetBuffer),
 * its fastest way in. Exit 1 if the document is not well-formed, 2 on
 * usage or I/O errors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <expat.h>
#include <fcntl.h>
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

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
    counts *c = ud;
    (void)name;
    c->elements++;
    for (const XML_Char **a = atts; *a; a += 2) c->attributes++;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len) {
    counts *c = ud;
    (void)s;
    c->text_bytes += (uint64_t)len;
}

int main(int argc, char **argv) {
    int ns = argc > 1 && strcmp(argv[1], "-n") == 0;
    const char *path = argc > 1 + ns ? argv[1 + ns] : "-";
    if (argc > 2 + ns) {
        fputs("usage: expat_count [-n] [FILE|-]\n", stderr);
        return 2;
    }
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "expat_count: %s: %s\n", path, strerror(errno));
        return 2;
    }

    counts c = {0, 0, 0};
    XML_Parser p = ns ? XML_ParserCreateNS(NULL, ' ') : XML_ParserCreate(NULL);
    if (!p) {
        fputs("expat_count: out of memory\n", stderr);
        return 2;
    }
    XML_SetUserData(p, &c);
    XML_SetStartElementHandler(p, on_start);
    XML_SetCharacterDataHandler(p, on_text);

    for (;;) {
        void *buf = XML_GetBuffer(p, CHUNK);
        if (!buf) {
            fputs("expat_count: out of memory\n", stderr);
            return 2;
        }
        ssize_t n = read(fd, buf, CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fprintf(stderr, "expat_count: %s: %s\n", path, strerror(errno));
            XML_ParserFree(p);
            return 2;
        }
        if (XML_ParseBuffer(p, (int)n, n == 0) != XML_STATUS_OK) {
            fprintf(stderr, "%s:%lu:%lu: %s\n", path, (unsigned long)XML_GetCurrentLineNumber(p),
                    (unsigned long)XML_GetCurrentColumnNumber(p) + 1,
                    XML_ErrorString(XML_GetErrorCode(p)));
            XML_ParserFree(p);
            return 1;
        }
        if (n == 0) break;
    }
    XML_ParserFree(p);
    if (fd != STDIN_FILENO) close(fd);
    printf("elements=%llu attributes=%llu\n", (unsigned long long)c.elements,
           (unsigned long long)c.attributes);
    return 0;
}
