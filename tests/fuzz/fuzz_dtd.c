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
 * Long inputs: choices that start with FZ_LONG_MAGIC and its parameters
 * (fuzz_check.h) make the generated document long, one span of it repeated
 * up to 4 MiB, read in chunks of up to 2 MiB. The mutator is libFuzzer's,
 * but for one mutation in 16 that turns an input into a long one or changes
 * its parameters (fz_long_mutate).
 *
 * FUZZ_DTD_SAVE=FILE writes header + document to FILE: an input for
 * fuzz_reader, which is how findings are saved in tests/fuzz/crashes/ (a
 * long document as it is read, whole: large; with FUZZ_DTD_SAVE_LONG=1 the
 * document before the repetition, behind the long-mode magic and
 * parameters, which fuzz_reader reads the same way but for the chunk size,
 * set then by its header).
 * FUZZ_DUMP=1 prints the document and the events. */
#include "fuzz_check.h"
#include "fuzz_gen.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static void save_doc(const char *path, const uint8_t *h, const fz_long *lp, const fz_buf *doc) {
    uint8_t magic = FZ_LONG_MAGIC;
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(h, 1, FZ_HDR, f) != FZ_HDR ||
        (lp && (fwrite(&magic, 1, 1, f) != 1 || fwrite(lp->q, 1, FZ_LONG_PARAMS, f) != FZ_LONG_PARAMS)) ||
        (doc->len && fwrite(doc->p, 1, doc->len, f) != doc->len) || fclose(f) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *save;
    static int init, save_long;
    if (!init) {
        fz_init();
        save = getenv("FUZZ_DTD_SAVE");
        save_long = getenv("FUZZ_DTD_SAVE_LONG") && strcmp(getenv("FUZZ_DTD_SAVE_LONG"), "1") == 0;
        init = 1;
    }
    const uint8_t *h = fz_header(&data, &size);
    fz_long lp;
    fz_long_take(&data, &size, &lp);
    fz_buf doc = {0};
    fz_gen_document(data, size, &doc);
    if (save && lp.on && save_long) save_doc(save, h, &lp, &doc);
    size_t chunk;
    fz_long_apply(&lp, &doc, FZ_LONG_MAX, &chunk);
    if (save && !(lp.on && save_long)) save_doc(save, h, NULL, &doc);
    if (fz_dump) fprintf(stderr, "document (%zu bytes):\n%.*s\n", doc.len, (int)doc.len, doc.len ? (const char *)doc.p : "");
    fz_check_input_chunk(h, doc.p ? doc.p : (const uint8_t *)"", doc.len, chunk);
    fz_buf_free(&doc);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    return fz_long_or_libfuzzer_mutate(data, size, max_size, seed);
}
