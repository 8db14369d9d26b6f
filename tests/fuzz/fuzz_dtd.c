/* libFuzzer target for the DTD and everything that uses it: structured
 * documents.
 *
 * Input: the 10-byte option header of fuzz_reader, then choices for the
 * grammar generator (fuzz_gen.c), which writes a document with an internal
 * subset of every declaration kind and a body that uses it (entities in
 * content and in attribute values of every declared type, defaults,
 * namespaces), in one of the supported encodings. The document is then
 * checked exactly as fuzz_reader checks its input (fz_check_input).
 *
 * FUZZ_DTD_SAVE=FILE writes header + document to FILE: an input for
 * fuzz_reader, which is how findings are saved in tests/fuzz/crashes/.
 * FUZZ_DUMP=1 prints the document and the events. */
#include "fuzz_check.h"
#include "fuzz_gen.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *save;
    static int init;
    if (!init) {
        fz_init();
        save = getenv("FUZZ_DTD_SAVE");
        init = 1;
    }
    const uint8_t *h = fz_header(&data, &size);
    fz_buf doc = {0};
    fz_gen_document(data, size, &doc);
    if (save) {
        FILE *f = fopen(save, "wb");
        if (!f || fwrite(h, 1, FZ_HDR, f) != FZ_HDR || (doc.len && fwrite(doc.p, 1, doc.len, f) != doc.len) ||
            fclose(f) != 0)
            abort();
    }
    if (fz_dump) fprintf(stderr, "document (%zu bytes):\n%.*s\n", doc.len, (int)doc.len, doc.len ? (const char *)doc.p : "");
    fz_check_input(h, doc.p ? doc.p : (const uint8_t *)"", doc.len);
    fz_buf_free(&doc);
    return 0;
}
