/* Long inputs: runs of megabytes with no tag in them, tokens near max_token,
 * DTDs of thousands of declarations, thousands of namespace bindings. The
 * reader's promises must hold there as they do on the small fixtures:
 *   - the events (every field and position, and the status) never depend
 *     on the chunk sizes, from 1 byte to 2 MiB and the whole document in one
 *     feed (suite long_chunks);
 *   - in a fixed block with the options sized from it, at the block sizes of
 *     the fixed-block sweep (conformance --fixed-sweep, and
 *     hardening::fixed_block_outcome_is_monotonic): the chunk size never
 *     decides, never STAX_E_NOMEM, and a document that streams in a block
 *     streams in every larger one (suite long_fixed);
 *   - the documents of the defect reports that broke them (suite long_repro).
 * The events are compared by a digest (stax_test_digest): a hash of their
 * dump lines, so no run keeps megabytes of dump.
 *
 * The largest long_chunks documents (about 3 MB: text, comments, PIs, CDATA,
 * attribute values, namespaces on many elements) have their full size only
 * with STAX_TEST_FULL=1, which `make unit` sets in the native gcc build
 * only (harness.h: elsewhere the full sizes take minutes); without it they
 * are a tenth of that. The DTDs, the fixed-block sweep and
 * the reproducers are the same either way. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef stax_test_buf sbuf;
#define sb_put stax_test_buf_put
#define sb_puts stax_test_buf_puts
#define sb_printf stax_test_buf_printf
#define sb_free stax_test_buf_free

/* The chunk sizes of the long runs (0: the whole document in one feed).
 * 1150 and the sizes around 1 MiB are those of the defect reports; 4096 the
 * carry's step; 2 MiB past the carry's largest size (max_token). */
static const size_t long_chunks[] = {0, 1, 2, 3, 7, 1000, 1150, 4096, 65536, 1000000, 1048576, 1500000, 2097152};
#define N_LONG_CHUNKS (sizeof long_chunks / sizeof long_chunks[0])
/* Byte-by-byte feeding only up to this size (one feed, one malloc'd copy and
 * one next() a byte). */
#define ONE_BYTE_MAX ((size_t)512 * 1024)

static int quick(void) { return !stax_test_full(); }

/* ================================================================ the shapes */

typedef void (*build_fn)(sbuf *b, size_t n);

static void repeat(sbuf *b, const char *s, size_t n) {
    size_t l = strlen(s);
    for (size_t i = 0; i < n; i++) sb_put(b, s, l);
}

static const char internal_e[] = "<!DOCTYPE r [<!ENTITY e \"x\">]><r>";

/* Text with references to an internal entity: 'w &e; ' n times (the report's
 * document: no tag for 6n bytes). */
static void text_entity(sbuf *b, size_t n) {
    sb_puts(b, internal_e);
    repeat(b, "w &e; ", n);
    sb_puts(b, "</r>");
}

/* Nothing but references: '&e;' n times. */
static void entity_only(sbuf *b, size_t n) {
    sb_puts(b, internal_e);
    repeat(b, "&e;", n);
    sb_puts(b, "</r>");
}

/* Text with character and predefined references, non-ASCII and line ends. */
static void text_charref(sbuf *b, size_t n) {
    sb_puts(b, "<r>");
    repeat(b, "a&#233;b&#x20AC; &amp;\xC3\xA9&lt;\r\n", n);
    sb_puts(b, "</r>");
}

/* Three tokens of about n bytes each (below max_token), text between. */
static void three_tokens(sbuf *b, size_t n, const char *open, const char *unit, const char *close) {
    sb_puts(b, "<r>");
    for (int k = 0; k < 3; k++) {
        sb_puts(b, open);
        repeat(b, unit, n / strlen(unit));
        sb_puts(b, close);
        sb_puts(b, "t");
    }
    sb_puts(b, "</r>");
}

/* Comments, with '-' and line ends (no "--"). */
static void comments(sbuf *b, size_t n) { three_tokens(b, n, "<!--", "c -\r\n", "-->"); }

/* PIs, with '?' and '>' (no "?>"). */
static void pis(sbuf *b, size_t n) { three_tokens(b, n, "<?pi ", "d ?\n> ", "?>"); }

/* CDATA of about 3n bytes in one section, with ']' and ']]' but no ']]>'. */
static void cdata(sbuf *b, size_t n) {
    sb_puts(b, "<r><![CDATA[");
    repeat(b, "c<&]]]x\r\n", n / 3);
    sb_puts(b, "]]></r>");
}

/* Three elements, each with one attribute value of about n bytes (n well
 * below max_token: the decoded value takes room in the tag's too) with
 * references (entity, character, predefined), tabs and line ends. */
static void attr_refs(sbuf *b, size_t n) {
    sb_puts(b, "<!DOCTYPE r [<!ENTITY e \"x&#38;#38;y\"><!ATTLIST e t NMTOKENS #IMPLIED>]><r>");
    for (int k = 0; k < 3; k++) {
        sb_puts(b, k == 2 ? "<e t=\"" : "<e a=\"");
        repeat(b, k == 2 ? " v&#x41; " : "v &e; &#38;&lt;\t\n", k == 2 ? n / 9 : n / 16);
        sb_puts(b, "\"/>");
    }
    sb_puts(b, "</r>");
}

/* n one-byte internal entities, each referenced in content and in an
 * attribute value. */
static void dtd_entities(sbuf *b, size_t n) {
    sb_puts(b, "<!DOCTYPE r [");
    for (size_t i = 0; i < n; i++) sb_printf(b, "<!ENTITY e%zu \"%c\">", i, (char)('a' + i % 26));
    sb_puts(b, "]><r>");
    for (size_t i = 0; i < n; i++) sb_printf(b, "&e%zu;<x a='&e%zu;'/>", i, n - 1 - i);
    sb_puts(b, "</r>");
}

/* n ATTLISTs (one element type each, a default, and a tokenized type that
 * normalizes), each element used once. */
static void dtd_attlists(sbuf *b, size_t n) {
    sb_puts(b, "<!DOCTYPE r [");
    for (size_t i = 0; i < n; i++)
        sb_printf(b, "<!ATTLIST e%zu d CDATA 'v%zu' t NMTOKEN #IMPLIED>", i, i);
    sb_puts(b, "]><r>");
    for (size_t i = 0; i < n; i++) sb_printf(b, "<e%zu t='  n%zu '/>", i, i);
    sb_puts(b, "</r>");
}

/* With namespaces: n elements, each declaring its own prefix and using it
 * on a child and an attribute. */
static void ns_many_elements(sbuf *b, size_t n) {
    sb_puts(b, "<r xmlns='urn:d'>");
    for (size_t i = 0; i < n; i++) sb_printf(b, "<e xmlns:p%zu='urn:%zu'><p%zu:x p%zu:a='1'/></e>", i, i, i, i);
    sb_puts(b, "</r>");
}

/* With namespaces (and limits raised for it): n prefixes declared on one
 * element, then each used. */
static void ns_one_element(sbuf *b, size_t n) {
    sb_puts(b, "<r");
    for (size_t i = 0; i < n; i++) sb_printf(b, " xmlns:p%zu='urn:x:%zu'", i, i);
    sb_puts(b, ">");
    for (size_t i = 0; i < n; i++) sb_printf(b, "<p%zu:x p%zu:a='%zu'/>", i, n - 1 - i, i);
    sb_puts(b, "</r>");
}

typedef struct shape {
    const char *name;
    build_fn build;
    size_t n_long;  /* long_chunks: about 3 MB, past 2 MiB and past max_token */
    size_t n_sweep; /* long_fixed: past the tokens of the largest block swept */
    unsigned flags; /* STAX_READ_* */
    int raise;      /* raise max_ns, max_attrs, max_ns_bytes (long_chunks only) */
    int big;        /* about 3 MB: a tenth of it without STAX_TEST_FULL=1 */
    int splits;     /* only text: streams in every block from TEXT_BLOCK_MIN (else a token may be over max_token) */
} shape;

static const shape shapes[] = {
    {"text_entity", text_entity, 500000, 50000, 0, 0, 1, 1},
    {"entity_only", entity_only, 1000000, 100000, 0, 0, 1, 1},
    {"text_charref", text_charref, 120000, 12000, 0, 0, 1, 1},
    {"comments", comments, 1000000, 60000, 0, 0, 1, 0},
    {"pis", pis, 1000000, 60000, 0, 0, 1, 0},
    {"cdata", cdata, 1000000, 100000, 0, 0, 1, 1},
    {"attr_refs", attr_refs, 600000, 60000, 0, 0, 1, 0},
    {"dtd_entities", dtd_entities, 5000, 300, 0, 0, 0, 0},
    {"dtd_attlists", dtd_attlists, 3000, 300, 0, 0, 0, 0},
    {"ns_many_elements", ns_many_elements, 60000, 3000, STAX_READ_NAMESPACES, 0, 1, 0},
    {"ns_one_element", ns_one_element, 2000, 20, STAX_READ_NAMESPACES, 1, 0, 0},
};

static const shape *find_shape(const char *name) {
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (strcmp(shapes[i].name, name) == 0) return &shapes[i];
    cr_assert_fail("no shape %s", name);
    return NULL;
}

/* ================================================================ the checks */

/* The digest of one run; free with free(). */
static char *digest(const sbuf *doc, size_t chunk, const stax_reader_options *opt, int *status) {
    return stax_test_digest(doc->p, doc->len, chunk, opt, STAX_DUMP_POS | STAX_DUMP_MESSAGE, status);
}

/* The long document of a shape, accepted as one feed, gives the same digest
 * at every chunk size of long_chunks. */
static void check_long_chunks(const char *name) {
    const shape *s = find_shape(name);
    size_t n = s->big && quick() ? s->n_long / 10 : s->n_long;
    sbuf doc = {0};
    s->build(&doc, n);
    stax_reader_options opt = {0};
    opt.flags = s->flags;
    if (s->raise) {
        opt.max_ns = (uint32_t)(2 * n);
        opt.max_attrs = (uint32_t)(2 * n);
        opt.max_ns_bytes = 64 * n + 4096;
    }
    int st;
    char *ref = digest(&doc, 0, &opt, &st);
    cr_assert_str_eq(stax_test_last_line(ref), "END-OF-DOCUMENT", "%s (%zu bytes) as one feed:\n%s", name, doc.len,
                     ref);
    for (size_t k = 1; k < N_LONG_CHUNKS; k++) {
        size_t c = long_chunks[k];
        if (c == 1 && doc.len > ONE_BYTE_MAX) continue;
        char *d = digest(&doc, c, &opt, &st);
        cr_assert_str_eq(d, ref, "%s (%zu bytes) at chunk size %zu:\n%sas one feed:\n%s", name, doc.len, c, d, ref);
        free(d);
    }
    free(ref);
    sb_free(&doc);
}

/* The block sizes of the fixed-block sweep: from the smallest block (for the
 * shape's flags, stax_reader_memory_min) up
 * by a quarter each step (as conformance --fixed-sweep), to 2 MiB (past its
 * 512 KiB: the smallest block that holds a DTD of 300 declarations is
 * larger). */
#define SWEEP_MAX ((size_t)2048 * 1024)
/* Text (split into pieces of max_text) streams in every block from here up,
 * whatever its length; the smallest blocks may hold no DTD. */
#define TEXT_BLOCK_MIN ((size_t)16384)
static const size_t sweep_chunks[] = {0, 7, 1000, 1150, 4096, 65536};
#define N_SWEEP_CHUNKS (sizeof sweep_chunks / sizeof sweep_chunks[0])

/* In every block of the sweep (when the run is not full, harness.h: every
 * 4th block and the largest), with the options sized from the block: the
 * same digest at every chunk size of sweep_chunks (so the chunk size never
 * decides), never STAX_E_NOMEM, and once the document streams in a block, it
 * streams in every larger one; text shapes stream in every block from
 * TEXT_BLOCK_MIN up. The largest block must accept the document. */
static void check_fixed(const char *name) {
    const shape *s = find_shape(name);
    sbuf doc = {0};
    s->build(&doc, s->n_sweep);
    unsigned char *blk = (unsigned char *)malloc(SWEEP_MAX + 16);
    cr_assert_not_null(blk);
    int streamed = 0;
    size_t first = 0;
    stax_reader_options least = {0};
    least.flags = s->flags;
    size_t step = 0;
    for (size_t n = stax_reader_memory_min(&least); n <= SWEEP_MAX; n = n * 5 / 4, step++) {
        if (!stax_test_sampled(step) && n * 5 / 4 <= SWEEP_MAX) continue; /* a sample: the largest block always */
        stax_reader_options o = {0};
        o.flags = s->flags;
        o.memory = blk + (n % 3) * 5; /* and a few alignments */
        o.memory_size = n;
        int st;
        char *ref = digest(&doc, 0, &o, &st);
        cr_assert_neq(st, STAX_E_NOMEM, "%s (%zu bytes), block of %zu as one feed:\n%s", name, doc.len, n, ref);
        int ok = st == STAX_END;
        if (s->splits && n >= TEXT_BLOCK_MIN)
            cr_assert(ok, "%s (%zu bytes), block of %zu, as one feed: not accepted:\n%s", name, doc.len, n, ref);
        if (streamed)
            cr_assert(ok, "%s (%zu bytes) streams in a block of %zu but not in %zu:\n%s", name, doc.len, first, n,
                      ref);
        if (ok && !streamed) first = n;
        streamed |= ok;
        for (size_t k = 1; k < N_SWEEP_CHUNKS; k++) {
            char *d = digest(&doc, sweep_chunks[k], &o, &st);
            if (ok)
                cr_assert_str_eq(d, ref, "%s (%zu bytes), block of %zu, at chunk size %zu:\n%sas one feed:\n%s", name,
                                 doc.len, n, sweep_chunks[k], d, ref);
            else /* only the status must agree: events before an error may end a batch early */
                cr_assert_str_eq(stax_test_last_line(d), stax_test_last_line(ref),
                                 "%s (%zu bytes), block of %zu, at chunk size %zu:\n%sas one feed:\n%s", name,
                                 doc.len, n, sweep_chunks[k], d, ref);
            free(d);
        }
        free(ref);
    }
    cr_assert(streamed, "%s (%zu bytes) streams in no block up to %zu bytes", name, doc.len, SWEEP_MAX);
    free(blk);
    sb_free(&doc);
}

/* ================================================================ long_chunks */

Test(long_chunks, text_entity, .timeout = 300) { check_long_chunks("text_entity"); }
Test(long_chunks, entity_only, .timeout = 300) { check_long_chunks("entity_only"); }
Test(long_chunks, text_charref, .timeout = 300) { check_long_chunks("text_charref"); }
Test(long_chunks, comments, .timeout = 300) { check_long_chunks("comments"); }
Test(long_chunks, pis, .timeout = 300) { check_long_chunks("pis"); }
Test(long_chunks, cdata, .timeout = 300) { check_long_chunks("cdata"); }
Test(long_chunks, attr_refs, .timeout = 300) { check_long_chunks("attr_refs"); }
Test(long_chunks, dtd_entities, .timeout = 300) { check_long_chunks("dtd_entities"); }
Test(long_chunks, dtd_attlists, .timeout = 300) { check_long_chunks("dtd_attlists"); }
Test(long_chunks, ns_many_elements, .timeout = 300) { check_long_chunks("ns_many_elements"); }
Test(long_chunks, ns_one_element, .timeout = 300) { check_long_chunks("ns_one_element"); }

/* ================================================================ long_fixed */

Test(long_fixed, text_entity, .timeout = 300) { check_fixed("text_entity"); }
Test(long_fixed, entity_only, .timeout = 300) { check_fixed("entity_only"); }
Test(long_fixed, text_charref, .timeout = 300) { check_fixed("text_charref"); }
Test(long_fixed, comments, .timeout = 300) { check_fixed("comments"); }
Test(long_fixed, pis, .timeout = 300) { check_fixed("pis"); }
Test(long_fixed, cdata, .timeout = 300) { check_fixed("cdata"); }
Test(long_fixed, attr_refs, .timeout = 300) { check_fixed("attr_refs"); }
Test(long_fixed, dtd_entities, .timeout = 300) { check_fixed("dtd_entities"); }
Test(long_fixed, dtd_attlists, .timeout = 300) { check_fixed("dtd_attlists"); }
Test(long_fixed, ns_many_elements, .timeout = 300) { check_fixed("ns_many_elements"); }
Test(long_fixed, ns_one_element, .timeout = 300) { check_fixed("ns_one_element"); }

/* ================================================================ long_repro */

/* `stax check --memory 16K --chunk 1150` on 'w &e; ' 400 times: accepted,
 * with the events of one feed (and of the allocator: no text is split at
 * this size). */
Test(long_repro, memory_16k_chunk_1150) {
    sbuf doc = {0};
    text_entity(&doc, 400);
    unsigned char *blk = (unsigned char *)malloc(16384);
    cr_assert_not_null(blk);
    stax_reader_options o = {0};
    o.memory = blk;
    o.memory_size = 16384;
    /* the same limits with an allocator (the block's max_text cuts the text
     * into other pieces than the default one would) */
    stax_reader_options h;
    cr_assert_eq(stax_reader_effective_options(&o, &h, NULL), STAX_OK);
    h.memory = NULL;
    h.memory_size = 0;
    int st;
    char *heap = digest(&doc, 0, &h, &st);
    cr_assert_eq(st, STAX_END, "with the allocator:\n%s", heap);
    char *d = digest(&doc, 1150, &o, &st);
    cr_assert_str_eq(d, heap, "a block of 16 KiB, chunks of 1150:\n%swith the allocator:\n%s", d, heap);
    free(d);
    free(heap);
    free(blk);
    sb_free(&doc);
}

/* '&e;' a million times (3 MB) at chunk sizes from 1,000,000 to 2,000,000
 * (the report's range), with the default options: accepted, with the events
 * of one feed. */
Test(long_repro, million_refs_chunk_1m, .timeout = 300) {
    sbuf doc = {0};
    entity_only(&doc, 1000000);
    int st;
    char *ref = digest(&doc, 0, NULL, &st);
    cr_assert_eq(st, STAX_END, "as one feed:\n%s", ref);
    static const size_t chunks[] = {1048576, 1000000, 1234567, 1999999, 2000000};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        if (!stax_test_sampled(k)) continue; /* sampled: the two ends of the range */
        char *d = digest(&doc, chunks[k], NULL, &st);
        cr_assert_str_eq(d, ref, "chunks of %zu:\n%sas one feed:\n%s", chunks[k], d, ref);
        free(d);
    }
    free(ref);
    sb_free(&doc);
}

/* 4,096 and 4,097 one-byte entities (a 76 KB DTD, far below max_dtd's
 * 1 MiB): both accepted. */
Test(long_repro, entities_4097) {
    for (size_t n = 4096; n <= 4097; n++) {
        sbuf doc = {0};
        sb_puts(&doc, "<!DOCTYPE r [");
        for (size_t i = 0; i < n; i++) sb_printf(&doc, "<!ENTITY e%zu \"x\">", i);
        sb_puts(&doc, "]><r>&e0;</r>");
        int st;
        char *d = digest(&doc, 0, NULL, &st);
        cr_assert_eq(st, STAX_END, "%zu entities (%zu bytes):\n%s", n, doc.len, d);
        free(d);
        sb_free(&doc);
    }
}

/* One attribute declared again and again with a default (40,000 times, a
 * DTD of 960 KB in a DOCTYPE under max_token): only the first declaration
 * binds (XML 1.0 3.3), so what the DTD keeps is one attribute, far below
 * max_dtd, and the document is accepted, whole and in chunks. (Today each
 * declaration's default stays in the DTD's store, which makes the time grow
 * with the square of the count and runs out of max_dtd at 785 KB.) */
Test(long_repro, attlist_redeclared_40000, .timeout = 300) {
    sbuf doc = {0};
    sb_puts(&doc, "<!DOCTYPE r [");
    repeat(&doc, "<!ATTLIST c x CDATA \"v\">", 40000);
    sb_puts(&doc, "]><r><c/></r>");
    int st;
    char *ref = digest(&doc, 0, NULL, &st);
    cr_assert_eq(st, STAX_END, "%zu bytes as one feed:\n%s", doc.len, ref);
    char *d = digest(&doc, 65536, NULL, &st);
    cr_assert_str_eq(d, ref, "chunks of 65536:\n%sas one feed:\n%s", d, ref);
    free(d);
    free(ref);
    sb_free(&doc);
}
