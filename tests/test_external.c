/* External entities through the resolver hook (stax_reader_options.resolve):
 * the external subset, external parameter entities and external parsed
 * entities in content, handed over as a buffer or by a read function in
 * pieces of any size; declining; errors inside them with their positions
 * and messages; every limit (max_external and max_external_text among
 * them); text declarations and encodings; conditional sections and
 * parameter-entity references inside declarations; fixed blocks without
 * malloc, and allocation failure. Every document runs at every chunk size
 * of the harness, and with the entities handed over whole, as a buffer and
 * by read functions giving 1, 2, 3, 7 or all bytes a call. */
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================ a resolver over files in memory */

typedef struct xfile {
    const char *path; /* where it is: resolved system ids are looked up here */
    const char *data;
    size_t len;       /* 0: strlen(data) */
} xfile;

typedef struct xres {
    const xfile *files; /* ended by a NULL path */
    int read_fn;        /* hand the bytes over by a read function, else as a buffer */
    size_t piece;       /* read function: at most this many bytes a call (0: as many as asked) */
    int decline;        /* decline every request */
    int fail;           /* < 0: return it, with `message` */
    const char *message;
    size_t fail_after;  /* read function: fail once this many bytes were given (0: never) */
    int bad;            /* 1: NULL data with a length; 2: return an unknown status */
    /* what happened */
    unsigned calls, dones;
    int open;           /* an entity handed over and not yet done */
    char log[4096];     /* one line per request: KIND name sysid [base] */
    size_t loglen;
    const char *cur;    /* the read function's entity */
    size_t cur_len, cur_pos;
    char path[256];     /* the resolved path, given back as the base */
} xres;

static ptrdiff_t xres_read(void *ctx, void *buf, size_t cap) {
    xres *x = ctx;
    if (x->fail_after && x->cur_pos >= x->fail_after) return -1;
    size_t n = x->cur_len - x->cur_pos;
    if (n > cap) n = cap;
    if (x->piece && n > x->piece) n = x->piece;
    memcpy(buf, x->cur + x->cur_pos, n);
    x->cur_pos += n;
    return (ptrdiff_t)n;
}

static void xres_done(void *ctx) {
    xres *x = ctx;
    cr_assert(x->open, "done called for no entity, or twice");
    x->open = 0;
    x->dones++;
}

/* Relative system ids resolve against the directory of the base (the
 * document's: ""), as a file system would. */
static int xres_resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    static const char *const kinds[] = {"?", "GENERAL", "PARAMETER", "SUBSET"};
    xres *x = ud;
    cr_assert(!x->open, "a request while an entity is still open");
    cr_assert(req->kind >= 1 && req->kind <= 3);
    cr_assert_null(in->data);
    cr_assert_null(in->read);
    x->calls++;
    int n = snprintf(x->log + x->loglen, sizeof x->log - x->loglen, "%s %.*s %.*s%s%.*s\n", kinds[req->kind],
                     (int)req->name.len, req->name.ptr, (int)req->sysid.len, req->sysid.ptr, req->base.len ? " base=" : "",
                     (int)req->base.len, req->base.ptr);
    if (n > 0) x->loglen += (size_t)n;
    if (x->decline) return STAX_DECLINE;
    if (x->fail) {
        in->message = x->message;
        return x->fail;
    }
    if (x->bad == 2) return 7;
    size_t dir = req->base.len;
    while (dir > 0 && req->base.ptr[dir - 1] != '/') dir--;
    snprintf(x->path, sizeof x->path, "%.*s%.*s", (int)dir, req->base.ptr, (int)req->sysid.len, req->sysid.ptr);
    const xfile *f = x->files;
    while (f && f->path && strcmp(f->path, x->path)) f++;
    if (!f || !f->path) {
        in->message = "no such file";
        return STAX_E_IO;
    }
    size_t len = f->len ? f->len : strlen(f->data);
    if (x->read_fn) {
        x->cur = f->data;
        x->cur_len = len;
        x->cur_pos = 0;
        in->read = xres_read;
        in->read_ctx = x;
    } else {
        in->data = x->bad == 1 ? NULL : f->data;
        in->len = len;
    }
    in->done = xres_done;
    in->done_ctx = x;
    in->base.ptr = x->path;
    in->base.len = strlen(x->path);
    x->open = 1;
    return STAX_OK;
}

static stax_reader_options xopts(xres *x) {
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.resolve = xres_resolve;
    o.resolve_ud = x;
    return o;
}

/* The ways an entity is handed over: as a buffer, by read functions giving
 * 1, 2, 3 and 7 bytes a call, and as many as asked. */
static const struct {
    int read_fn;
    size_t piece;
} supplies[] = {{0, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 7}, {1, 0}};

/* doc with these files gives `want` (positions and messages included) at
 * every chunk size and every way of handing the entities over; each entity
 * handed over is done with once. opt may set options (resolve is set here).
 * last_line: only the status line is compared, with the first strlen(want)
 * bytes of it (an error may end a batch early, so the events before it
 * depend on the chunk size). */
static void run_all(const char *doc, const xfile *files, const stax_reader_options *opt, const char *want, int last_line) {
    for (size_t k = 0; k < sizeof supplies / sizeof supplies[0]; k++) {
        xres x;
        memset(&x, 0, sizeof x);
        x.files = files;
        x.read_fn = supplies[k].read_fn;
        x.piece = supplies[k].piece;
        stax_reader_options o = opt ? *opt : xopts(&x);
        o.resolve = xres_resolve;
        o.resolve_ud = &x;
        for (size_t c = 0; c < stax_test_chunk_count; c++) {
            x.calls = x.dones = 0;
            char *d = stax_test_events_ex(doc, strlen(doc), stax_test_chunk_sizes[c], &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE,
                                          NULL);
            const char *got = last_line ? stax_test_last_line(d) : d;
            cr_assert(last_line ? strncmp(got, want, strlen(want)) == 0 : strcmp(got, want) == 0,
                      "read_fn %d, piece %zu, chunk %zu:\ngot:\n%s\nwant:\n%s", x.read_fn, x.piece,
                      stax_test_chunk_sizes[c], got, want);
            cr_assert_eq(x.dones, x.fail || x.decline || x.bad == 2 ? 0 : x.calls, "%u requests, %u done", x.calls, x.dones);
            cr_assert(!x.open, "an entity was never done with");
            int guard = stax_test_forbid_malloc; /* the dump is the harness's */
            stax_test_forbid_malloc = 0;
            free(d);
            stax_test_forbid_malloc = guard;
        }
    }
}

static void expect_with(const char *doc, const xfile *files, const stax_reader_options *opt, const char *want) {
    run_all(doc, files, opt, want, 0);
}

static void expect(const char *doc, const xfile *files, const char *want) { run_all(doc, files, NULL, want, 0); }

static void expect_error_with(const char *doc, const xfile *files, const stax_reader_options *opt, const char *want) {
    run_all(doc, files, opt, want, 1);
}

static void expect_error(const char *doc, const xfile *files, const char *want) {
    expect_error_with(doc, files, NULL, want);
}

/* The requests the reader made for doc (whole, entities as buffers). */
static void expect_requests(const char *doc, const xfile *files, const char *want) {
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    stax_reader_options o = xopts(&x);
    char *d = stax_test_events(doc, strlen(doc), 0, &o, NULL);
    cr_assert_str_eq(x.log, want, "events:\n%s", d);
    free(d);
}

/* ================================================================ handing over */

Test(external, general_entity_in_content) {
    static const xfile files[] = {{"e.xml", "<b k='v'>text</b>tail", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY e SYSTEM 'e.xml'>]>\n<d>a&e;z</d>", files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e.xml'>\" @1:1:0\n"
           "START d @2:1:42\n"
           "TEXT \"a\" @2:4:45\n"
           "START b k=\"v\" @2:5:46\n"
           "TEXT \"text\" @2:5:46\n"
           "END b @2:5:46\n"
           "TEXT \"tail\" @2:5:46\n"
           "TEXT \"z\" @2:8:49\n"
           "END d @2:9:50\n"
           "END-OF-DOCUMENT\n");
}

Test(external, external_subset_and_parameter_entities) {
    static const xfile files[] = {
        {"d.dtd", "<!ENTITY % p SYSTEM 'p.ent'>%p;<!ATTLIST d b CDATA 'from-subset'>", 0},
        {"p.ent", "<!ATTLIST d a CDATA 'from-pe'><!ENTITY g 'general'>", 0},
        {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd'><d>&g;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:1:0\n"
           "START d a=\"from-pe\"* b=\"from-subset\"* @1:28:27\n"
           "TEXT \"general\" @1:31:30\n"
           "END d @1:34:33\n"
           "END-OF-DOCUMENT\n");
}

Test(external, internal_subset_first) {
    /* the internal subset's declarations come first, and win */
    static const xfile files[] = {{"d.dtd", "<!ENTITY e 'external'><!ATTLIST d a CDATA 'x'>", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd' [<!ENTITY e 'internal'><!ATTLIST d a CDATA 'y'>]><d>&e;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" subset=\"<!ENTITY e 'internal'><!ATTLIST d a CDATA 'y'>\" @1:1:0\n"
           "START d a=\"y\"* @1:77:76\n"
           "TEXT \"internal\" @1:80:79\n"
           "END d @1:83:82\n"
           "END-OF-DOCUMENT\n");
}

Test(external, requests_and_bases) {
    /* a relative system id is resolved against where it was declared
     * (4.2.2): the document for the internal subset, else the base the
     * resolver gave for the external entity that held the declaration */
    static const xfile files[] = {
        {"dtd/main.dtd", "<!ENTITY % mod SYSTEM 'mods/m.ent'>%mod;", 0},
        {"dtd/mods/m.ent", "<!ENTITY e SYSTEM '../text/e.xml'>", 0},
        {"dtd/mods/../text/e.xml", "E", 0},
        {"local.xml", "L", 0},
        {NULL, NULL, 0}};
    expect_requests("<!DOCTYPE d PUBLIC '-//X//DTD d//EN' 'dtd/main.dtd' [<!ENTITY l SYSTEM 'local.xml'>]><d>&e;&l;&e;</d>",
                    files,
                    "SUBSET d dtd/main.dtd\n"
                    "PARAMETER mod mods/m.ent base=dtd/main.dtd\n"
                    "GENERAL e ../text/e.xml base=dtd/mods/m.ent\n"
                    "GENERAL l local.xml\n"
                    "GENERAL e ../text/e.xml base=dtd/mods/m.ent\n");
}

Test(external, request_public_id_normalized) {
    static const xfile files[] = {{"e", "x", 0}, {NULL, NULL, 0}};
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    stax_reader_options o = xopts(&x);
    const char *doc = "<!DOCTYPE d [<!ENTITY e PUBLIC '  -//A\n  B//EN ' 'e'>]><d>&e;</d>";
    char *d = stax_test_events(doc, strlen(doc), 0, &o, NULL);
    cr_assert_str_eq(d, "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e PUBLIC '  -//A\\n  B//EN ' 'e'>\"\n"
                        "START d\nTEXT \"x\"\nEND d\nEND-OF-DOCUMENT\n");
    free(d);
}

Test(external, decline_keeps_what_happens_without_a_resolver) {
    /* a general entity is reported; a parameter entity not read stops the
     * processing of later entity and attribute-list declarations (5.1); the
     * subset is not read */
    const char *doc = "<!DOCTYPE d SYSTEM 'd.dtd' [<!ENTITY % p SYSTEM 'p'>%p;<!ATTLIST d a CDATA 'v'>"
                      "<!ENTITY e SYSTEM 'e'>]><d>&e;</d>";
    const char *want = "DOCTYPE d pub=\"\" sys=\"d.dtd\" subset=\"<!ENTITY % p SYSTEM 'p'>%p;<!ATTLIST d a CDATA 'v'>"
                       "<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
                       "START d @1:104:103\n"
                       "ENTITY_REF e @1:107:106\n"
                       "END d @1:110:109\n"
                       "END-OF-DOCUMENT\n";
    /* without a resolver */
    stax_test_expect_events(doc, strlen(doc), NULL, STAX_DUMP_POS, want);
    xres x;
    memset(&x, 0, sizeof x);
    x.decline = 1;
    stax_reader_options o = xopts(&x);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS, want);
    cr_assert_eq(x.dones, 0);
    /* the entity reference is reported with its ids */
    const char *doc2 = "<!DOCTYPE d [<!ENTITY e PUBLIC '-//E' 'e.xml'>]><d>&e;</d>";
    stax_test_expect_events(doc2, strlen(doc2), &o, 0,
                            "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e PUBLIC '-//E' 'e.xml'>\"\n"
                            "START d\n"
                            "ENTITY_REF e pub=\"-//E\" sys=\"e.xml\"\n"
                            "END d\n"
                            "END-OF-DOCUMENT\n");
}

Test(external, resolver_error_stops_the_reader) {
    const char *doc = "<!DOCTYPE d [<!ENTITY e SYSTEM 'e.xml'>]>\n<d>\n  &e;</d>";
    xres x;
    memset(&x, 0, sizeof x);
    x.fail = STAX_E_IO;
    x.message = "permission denied";
    stax_reader_options o = xopts(&x);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE,
                            "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e.xml'>\" @1:1:0\n"
                            "START d @2:1:42\n"
                            "TEXT \"\\n  \" ws @2:4:45\n"
                            "ERROR IO @3:3:48: cannot read it: permission denied (in entity 'e' \"e.xml\")\n");
    x.message = NULL;
    x.fail = STAX_E_NOMEM;
    stax_test_expect_status(doc, strlen(doc), &o, "ERROR NOMEM @3:3:48");
    /* the external subset: at the DOCTYPE, with no DOCTYPE event */
    x.fail = STAX_E_IO;
    x.message = "gone";
    const char *doc2 = "<?xml version='1.0'?>\n<!DOCTYPE d SYSTEM 'd.dtd'><d/>";
    stax_test_expect_events(doc2, strlen(doc2), &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE,
                            "XMLDECL 1.0 enc=\"\" sa=- @1:1:0\n"
                            "ERROR IO @2:1:22: cannot read it: gone (in the external subset \"d.dtd\")\n");
}

Test(external, read_function_error_and_bad_hand_over) {
    static const xfile files[] = {{"e.ent", "abc\ndef", 0}, {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d [<!ENTITY e SYSTEM 'e.ent'>]><d>&e;</d>";
    const char *head = "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e.ent'>\" @1:1:0\n"
                       "START d @1:42:41\n";
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    x.read_fn = 1;
    x.piece = 2;
    x.fail_after = 4;
    stax_reader_options o = xopts(&x);
    stax_test_buf want = {0};
    stax_test_buf_printf(&want, "%sERROR IO @1:45:44: read error (in entity 'e' \"e.ent\")\n", head);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE, want.p);
    cr_assert_eq(x.dones, x.calls, "done is called after a failed read too");
    stax_test_buf_free(&want);
    memset(&x, 0, sizeof x);
    x.files = files;
    x.bad = 1;
    stax_test_buf_printf(&want, "%sERROR USAGE @1:45:44: the resolver gave 7 bytes at NULL (in entity 'e' \"e.ent\")\n", head);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE, want.p);
    stax_test_buf_free(&want);
    x.bad = 2;
    stax_test_buf_printf(&want, "%sERROR USAGE @1:45:44: the resolver returned 7 (in entity 'e' \"e.ent\")\n", head);
    stax_test_expect_events(doc, strlen(doc), &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE, want.p);
    stax_test_buf_free(&want);
}

/* ================================================================ text declarations and encodings */

Test(external, text_declarations) {
    static const xfile files[] = {{"a", "<?xml encoding='UTF-8'?>A", 0},
                                  {"b", "<?xml version=\"1.0\" encoding=\"us-ascii\" ?>B", 0},
                                  {"c", "<?xml\nversion='1.0'\nencoding='ISO-8859-1'?>\xe9", 0},
                                  {"d", "\xef\xbb\xbf<?xml encoding='utf-8'?>D", 0},
                                  {"e", "<?xml-stylesheet href='x'?>E", 0},
                                  {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY a SYSTEM 'a'><!ENTITY b SYSTEM 'b'><!ENTITY c SYSTEM 'c'><!ENTITY d SYSTEM 'd'>"
           "<!ENTITY e SYSTEM 'e'>]><d>&a;&b;&c;&d;&e;</d>",
           files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY a SYSTEM 'a'><!ENTITY b SYSTEM 'b'><!ENTITY c SYSTEM 'c'>"
           "<!ENTITY d SYSTEM 'd'><!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
           "START d @1:126:125\n"
           "TEXT \"A\" @1:129:128\n"
           "TEXT \"B\" @1:132:131\n"
           "TEXT \"\xc3\xa9\" @1:135:134\n"
           "TEXT \"D\" @1:138:137\n"
           "PI xml-stylesheet \"href='x'\" @1:141:140\n"
           "TEXT \"E\" @1:141:140\n"
           "END d @1:144:143\n"
           "END-OF-DOCUMENT\n");
}

/* doc's only entity e (in content, at 1:45:44) is `text`: the error it gives. */
static void expect_entity_error(const char *text, size_t len, const char *want) {
    xfile files[] = {{"e.ent", text, len}, {NULL, NULL, 0}};
    expect_error("<!DOCTYPE d [<!ENTITY e SYSTEM 'e.ent'>]><d>&e;</d>", files, want);
}

#define ENTITY_ERROR(text, want) expect_entity_error(text, sizeof text - 1, "ERROR " want)

Test(external, bad_text_declarations) {
    ENTITY_ERROR("<?xml version='1.0'?>x",
                 "SYNTAX @1:45:44: the text declaration of an external entity needs an encoding (in entity 'e' \"e.ent\", "
                 "line 1, column 20)");
    ENTITY_ERROR("<?xml encoding='UTF-8' standalone='yes'?>x",
                 "SYNTAX @1:45:44: standalone is not allowed in the text declaration of an external entity (in entity 'e' "
                 "\"e.ent\", line 1, column 24)");
    ENTITY_ERROR("<?xml encoding='UTF-8' x?>x",
                 "SYNTAX @1:45:44: unexpected text in the text declaration (in entity 'e' \"e.ent\", line 1, column 24)");
    ENTITY_ERROR("<?xml standalone='yes'?>x",
                 "SYNTAX @1:45:44: standalone is not allowed in the text declaration of an external entity (in entity 'e' "
                 "\"e.ent\", line 1, column 7)");
    ENTITY_ERROR("<?xml version='1.1' encoding='UTF-8'?>x",
                 "SYNTAX @1:45:44: an entity of XML version '1.1' in an XML 1.0 document (in entity 'e' \"e.ent\", line 1, "
                 "column 16)");
    ENTITY_ERROR("<?xml encoding='UTF-8'",
                 "TRUNCATED @1:45:44: the text declaration does not end ('?>' expected) (in entity 'e' \"e.ent\", line 1, "
                 "column 23)");
    /* the position counts the declaration's bytes before the bad one, however they were handed over */
    ENTITY_ERROR("<?xml version='1.0'\xff\xff encoding='UTF-8'?>x",
                 "SYNTAX @1:45:44: byte 0xFF in the text declaration (in entity 'e' \"e.ent\", line 1, column 20)");
    ENTITY_ERROR("<?xml\n version='1.0'\n  \xc3\xa9 encoding='UTF-8'?>x",
                 "SYNTAX @1:45:44: byte 0xC3 in the text declaration (in entity 'e' \"e.ent\", line 3, column 3)");
    ENTITY_ERROR("<?xml encoding='UTF 8'?>x",
                 "SYNTAX @1:45:44: invalid encoding name (in entity 'e' \"e.ent\", line 1, column 17)");
    ENTITY_ERROR("<?xml encoding='EBCDIC-X'?>x",
                 "UNSUPPORTED @1:45:44: encoding 'EBCDIC-X' is not supported (in entity 'e' \"e.ent\", line 1, column 17)");
    ENTITY_ERROR("\xef\xbb\xbf<?xml encoding='ISO-8859-1'?>x",
                 "ENCODING @1:45:44: the declared encoding 'ISO-8859-1' contradicts the entity's bytes, which are UTF-8 (by "
                 "its byte order mark) (in entity 'e' \"e.ent\", line 1, column 17)");
    /* a text declaration is only allowed at the start */
    ENTITY_ERROR("x<?xml encoding='UTF-8'?>",
                 "SYNTAX @1:45:44: the XML declaration is only allowed at the very start of the document (in entity 'e' "
                 "\"e.ent\", line 1, column 2)");
}

Test(external, utf16_and_single_byte_entities) {
    /* "<?xml encoding='UTF-16'?>\xe9!" in UTF-16LE and BE with BOMs, a
     * windows-1251 entity, a UTF-8 BOM without a declaration */
    static const char le[] = "\xff\xfe<\0?\0x\0m\0l\0 \0e\0n\0c\0o\0d\0i\0n\0g\0=\0'\0U\0T\0F\0-\0001\0006\0'\0?\0>\0\xe9\0!\0";
    static const char be[] = "\xfe\xff\0<\0?\0x\0m\0l\0 \0e\0n\0c\0o\0d\0i\0n\0g\0=\0'\0U\0T\0F\0-\0001\0006\0'\0?\0>\0\xe9\0!";
    static const xfile files[] = {{"le", le, sizeof le - 1},
                                  {"be", be, sizeof be - 1},
                                  {"cy", "<?xml encoding='windows-1251'?>\xc4\xe0", 0},
                                  {"bom", "\xef\xbb\xbf\xc3\xa9", 0},
                                  {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY le SYSTEM 'le'><!ENTITY be SYSTEM 'be'><!ENTITY cy SYSTEM 'cy'>"
           "<!ENTITY bom SYSTEM 'bom'>]><d>&le;&be;&cy;&bom;</d>",
           files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY le SYSTEM 'le'><!ENTITY be SYSTEM 'be'><!ENTITY cy SYSTEM 'cy'>"
           "<!ENTITY bom SYSTEM 'bom'>\" @1:1:0\n"
           "START d @1:114:113\n"
           "TEXT \"\xc3\xa9!\" @1:117:116\n"
           "TEXT \"\xc3\xa9!\" @1:121:120\n"
           "TEXT \"\xd0\x94\xd0\xb0\" @1:125:124\n"
           "TEXT \"\xc3\xa9\" @1:129:128\n"
           "END d @1:134:133\n"
           "END-OF-DOCUMENT\n");
}

Test(external, encoding_errors_in_entities) {
    ENTITY_ERROR("ab\ncd\xff", "ENCODING @1:45:44: invalid UTF-8 byte 0xFF (in entity 'e' \"e.ent\", line 2, column 3)");
    ENTITY_ERROR("ab\r\ncd\x01", "CHAR @1:45:44: character U+0001 is not allowed in XML (in entity 'e' \"e.ent\", line 2, column 3)");
    ENTITY_ERROR("<?xml encoding='US-ASCII'?>\nx\x80",
                 "ENCODING @1:45:44: invalid byte sequence for US-ASCII (in entity 'e' \"e.ent\", line 2, column 2)");
    ENTITY_ERROR("\xff\xfe<\0a", "TRUNCATED @1:45:44: the entity ends inside a UTF-16LE character (in entity 'e' \"e.ent\", "
                                 "line 1, column 2)");
    ENTITY_ERROR("\0\0\0<\0\0", "TRUNCATED @1:45:44: the entity ends inside a UTF-32BE character (in entity 'e' \"e.ent\", "
                            "line 1, column 2)");
    ENTITY_ERROR("\0\0<\0", "UNSUPPORTED @1:45:44: the entity is in EBCDIC or in UCS-4 of byte order 2143 or 3412, which stax "
                            "does not read (in entity 'e' \"e.ent\")");
}

static const uint32_t *rot_table(void *ud, const char *name, size_t len) {
    static uint32_t t[256];
    (void)ud;
    if (len != 5 || memcmp(name, "x-rot", 5) != 0) return NULL;
    for (uint32_t i = 0; i < 256; i++) t[i] = i;
    t['a'] = 'b';
    return t;
}

Test(external, unknown_encoding_hook_applies_to_entities) {
    static const xfile files[] = {{"e", "<?xml encoding='x-rot'?>aa", 0}, {NULL, NULL, 0}};
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.unknown_encoding = rot_table;
    expect_with("<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d>&e;</d>", files, &o,
                "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
                "START d @1:38:37\n"
                "TEXT \"bb\" @1:41:40\n"
                "END d @1:44:43\n"
                "END-OF-DOCUMENT\n");
}

Test(external, line_ends_normalized_char_refs_kept) {
    static const xfile files[] = {{"e", "a\r\nb\rc&#13;d", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d>&e;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
           "START d @1:38:37\n"
           "TEXT \"a\\nb\\nc\\rd\" @1:41:40\n"
           "END d @1:44:43\n"
           "END-OF-DOCUMENT\n");
}

/* ================================================================ well-formedness in entities */

Test(external, errors_inside_entities_name_them) {
    ENTITY_ERROR("<a>\n  <b></a>",
                 "TAG_MISMATCH @1:45:44: end tag 'a' does not match start tag 'b' (in entity 'e' \"e.ent\", line 2, column 6)");
    ENTITY_ERROR("<a>", "SYNTAX @1:45:44: the replacement text of entity 'e' is not well-balanced: an element starts or ends "
                        "in it but not both (in entity 'e' \"e.ent\", line 1, column 4)");
    ENTITY_ERROR("text\n<a", "SYNTAX @1:45:44: markup does not end inside the replacement text of entity 'e' (in entity 'e' "
                             "\"e.ent\", line 2, column 1)");
    ENTITY_ERROR("x &undeclared; y",
                 "ENTITY @1:45:44: undefined entity 'undeclared' (in entity 'e' \"e.ent\", line 1, column 3)");
    ENTITY_ERROR("<a b='1' b='2'/>",
                 "DUP_ATTR @1:45:44: attribute 'b' given twice (in entity 'e' \"e.ent\", line 1, column 10)");
    ENTITY_ERROR("&e;", "ENTITY @1:45:44: entity 'e' refers to itself (in entity 'e' \"e.ent\", line 1, column 1)");
}

Test(external, error_in_a_nested_entity_names_the_innermost) {
    static const xfile files[] = {{"a", "<x>\n&b;</x>", 0}, {"b", "ok\n\n  </y>", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY a SYSTEM 'a'><!ENTITY b SYSTEM 'b'>]><d>&a;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY a SYSTEM 'a'><!ENTITY b SYSTEM 'b'>\" @1:1:0\n"
           "START d @1:60:59\n"
           "START x @1:63:62\n"
           "TEXT \"\\n\" ws @1:63:62\n"
           "TEXT \"ok\\n\\n  \" @1:63:62\n"
           "ERROR SYNTAX @1:63:62: end tag 'y' in the replacement text of an entity closes an element opened outside it "
           "(in entity 'b' \"b\", line 3, column 3)\n");
}

Test(external, errors_in_the_external_subset) {
    static const xfile files[] = {{"d.dtd", "<!ELEMENT d ANY>\n<!ATTLIST d\n  a CDATA #BOGUS>", 0},
                                  {"p.dtd", "<!ENTITY % q SYSTEM 'q.ent'>\n\n %q;", 0},
                                  {"q.ent", "<!ENTITY x 'y'>\n<!ELEMENT>", 0},
                                  {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", files,
           "ERROR DTD @1:1:0: quoted default value expected (in the external subset \"d.dtd\", line 3, column 11)\n");
    expect("<!DOCTYPE d SYSTEM 'p.dtd'><d/>", files,
           "ERROR DTD @1:1:0: whitespace required after <!ELEMENT (in parameter entity 'q' \"q.ent\", line 2, column 10)\n");
    /* an external parameter entity referenced from the internal subset: at the reference */
    expect("<!DOCTYPE d [\n<!ENTITY % q SYSTEM 'q.ent'> %q;]><d/>", files,
           "ERROR DTD @2:30:43: whitespace required after <!ELEMENT (in parameter entity 'q' \"q.ent\", line 2, column 10)\n");
}

Test(external, standalone_documents_may_not_use_external_declarations) {
    static const xfile files[] = {{"d.dtd", "<!ENTITY e 'ext'>", 0}, {NULL, NULL, 0}};
    expect("<?xml version='1.0' standalone='yes'?><!DOCTYPE d SYSTEM 'd.dtd'><d>&e;</d>", files,
           "XMLDECL 1.0 enc=\"\" sa=yes @1:1:0\n"
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:39:38\n"
           "START d @1:66:65\n"
           "ERROR ENTITY @1:69:68: entity 'e' is declared in the external subset or a parameter entity, which a "
           "standalone document may not use\n");
    /* also one declared in a parameter entity of the internal subset */
    stax_test_expect_status(STAX_DOC("<?xml version='1.0' standalone='yes'?><!DOCTYPE d [<!ENTITY % p '<!ENTITY e \"v\">'>%p;]>"
                                     "<d>&e;</d>"),
                            NULL, "ERROR ENTITY @1:91:90");
    /* not standalone: fine */
    expect("<?xml version='1.0' standalone='no'?><!DOCTYPE d SYSTEM 'd.dtd'><d>&e;</d>", files,
           "XMLDECL 1.0 enc=\"\" sa=no @1:1:0\n"
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:38:37\n"
           "START d @1:65:64\n"
           "TEXT \"ext\" @1:68:67\n"
           "END d @1:71:70\n"
           "END-OF-DOCUMENT\n");
}

Test(external, no_external_entity_in_attribute_values) {
    static const xfile files[] = {{"e", "x", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d a='&e;'/>", files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
           "ERROR ENTITY @1:44:43: reference to external entity 'e' in an attribute value\n");
}

/* ================================================================ the DTD read from entities */

Test(external, conditional_sections) {
    static const xfile files[] = {
        {"d.dtd",
         "<![INCLUDE[<!ATTLIST d a CDATA 'in'>]]>\n"
         "<![ IGNORE [<!ATTLIST d a CDATA 'ignored'> <![ INCLUDE [ <!ELEMENT bogus ]]> %undeclared; ]]>\n"
         "<![%yes;[<!ATTLIST d b CDATA 'by-pe'> <![%no;[<!ATTLIST d c CDATA 'no'>]]>]]>\n"
         "<![INCLUDE[]]><![IGNORE[]]>",
         0},
        {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd' [<!ENTITY % yes 'INCLUDE'><!ENTITY % no 'IGNORE'>]><d/>", files,
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" subset=\"<!ENTITY % yes 'INCLUDE'><!ENTITY % no 'IGNORE'>\" @1:1:0\n"
           "START d a=\"in\"* b=\"by-pe\"* / @1:79:78\n"
           "END d @1:79:78\n"
           "END-OF-DOCUMENT\n");
}

Test(external, conditional_section_errors) {
    static const xfile files[] = {{"open", "<![INCLUDE[<!ELEMENT d ANY>", 0},
                                  {"ign", "<![IGNORE[ <![ ]]>", 0},
                                  {"kw", "<![MAYBE[]]>", 0},
                                  {"close", "]]>", 0},
                                  {"pe", "<!ENTITY % p '<![INCLUDE['> %p; ]]>", 0},
                                  {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'open'><d/>", files,
           "ERROR DTD @1:1:0: a conditional section does not end (in the external subset \"open\", line 1, column 28)\n");
    expect("<!DOCTYPE d SYSTEM 'ign'><d/>", files,
           "ERROR DTD @1:1:0: an IGNORE section does not end (in the external subset \"ign\", line 1, column 1)\n");
    expect("<!DOCTYPE d SYSTEM 'kw'><d/>", files,
           "ERROR DTD @1:1:0: INCLUDE or IGNORE expected in a conditional section (in the external subset \"kw\", line 1, "
           "column 4)\n");
    expect("<!DOCTYPE d SYSTEM 'close'><d/>", files,
           "ERROR DTD @1:1:0: markup declaration expected in the DTD (in the external subset \"close\", line 1, column 1)\n");
    expect("<!DOCTYPE d SYSTEM 'pe'><d/>", files,
           "ERROR DTD @1:1:0: conditional sections are not properly nested in parameter entity 'p' (in the external "
           "subset \"pe\", line 1, column 29)\n");
    /* never in the internal subset */
    stax_test_expect_status(STAX_DOC("<!DOCTYPE d [<![INCLUDE[]]>]><d/>"), NULL, "ERROR DTD @1:14:13");
}

Test(external, parameter_entities_inside_declarations) {
    static const xfile files[] = {
        {"d.dtd",
         "<!ENTITY % type 'CDATA'><!ENTITY % def \"'v1'\"><!ENTITY % name 'd'>\n"
         "<!ATTLIST%name;a1 %type;%def;>\n"                       /* the spaces 4.4.8 adds */
         "<!ENTITY % att 'a2 CDATA %def;'><!ATTLIST d %att;>\n"    /* a reference inside a reference */
         "<!ENTITY % model '(#PCDATA|e)*'><!ELEMENT d %model;>\n"
         "<!ENTITY % lit \"in 'literal' %def;\"><!ENTITY g \"[%lit;]\">\n" /* included in literal (4.4.5) */
         "<!ENTITY % empty ''><!ATTLIST d a3 CDATA %empty; 'v3'>",
         0},
        {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd'><d>&g;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:1:0\n"
           "START d a1=\"v1\"* a2=\"v1\"* a3=\"v3\"* @1:28:27\n"
           "TEXT \"[in 'literal' 'v1']\" @1:31:30\n"
           "END d @1:34:33\n"
           "END-OF-DOCUMENT\n");
}

Test(external, parameter_entities_in_declarations_of_the_internal_subset_refused) {
    stax_test_expect_status(STAX_DOC("<!DOCTYPE d [<!ENTITY % t 'CDATA'><!ATTLIST d a %t; #IMPLIED>]><d/>"), NULL,
                            "ERROR DTD @1:49:48");
    stax_test_expect_status(STAX_DOC("<!DOCTYPE d [<!ENTITY % t 'x'><!ENTITY g '%t;'>]><d/>"), NULL, "ERROR DTD @1:43:42");
}

Test(external, external_parameter_entity_inside_a_declaration) {
    /* xmltest valid/not-sa/003: an external parameter entity (here with a
     * text declaration) referenced inside an ATTLIST */
    static const xfile files[] = {{"d.dtd", "<!ENTITY % e SYSTEM 'e.ent'><!ATTLIST d a CDATA %e; 'v'>", 0},
                                  {"e.ent", "<?xml encoding='UTF-8'?>", 0},
                                  {NULL, NULL, 0}};
    expect("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", files,
           "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:1:0\n"
           "START d a=\"v\"* / @1:28:27\n"
           "END d @1:28:27\n"
           "END-OF-DOCUMENT\n");
}

/* ================================================================ limits */

Test(external, limit_max_entity_depth) {
    static const xfile files[] = {{"1", "&e2;", 0}, {"2", "&e3;", 0}, {"3", "deep", 0}, {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d [<!ENTITY e1 SYSTEM '1'><!ENTITY e2 SYSTEM '2'><!ENTITY e3 SYSTEM '3'>]><d>&e1;</d>";
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.max_entity_depth = 3;
    expect_with(doc, files, &o,
                "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e1 SYSTEM '1'><!ENTITY e2 SYSTEM '2'><!ENTITY e3 SYSTEM '3'>\" "
                "@1:1:0\n"
                "START d @1:85:84\n"
                "TEXT \"deep\" @1:88:87\n"
                "END d @1:92:91\n"
                "END-OF-DOCUMENT\n");
    o.max_entity_depth = 2;
    expect_with(doc, files, &o,
                "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e1 SYSTEM '1'><!ENTITY e2 SYSTEM '2'><!ENTITY e3 SYSTEM '3'>\" "
                "@1:1:0\n"
                "START d @1:85:84\n"
                "ERROR LIMIT_ENTITY @1:88:87: entity references nested deeper than max_entity_depth (2) (in entity 'e2' "
                "\"2\", line 1, column 1)\n");
    /* parameter entities in the DTD */
    static const xfile pes[] = {{"d.dtd", "<!ENTITY % a SYSTEM 'a'><!ENTITY % b SYSTEM 'b'>%a;", 0},
                                {"a", "%b;", 0},
                                {"b", "<!ENTITY x 'y'>", 0},
                                {NULL, NULL, 0}};
    o.max_entity_depth = 1;
    expect_with("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", pes, &o,
                "ERROR LIMIT_ENTITY @1:1:0: parameter entities nested deeper than max_entity_depth (1) (in parameter "
                "entity 'a' \"a\", line 1, column 1)\n");
}

Test(external, limit_amplification) {
    /* each byte of the entity gives 1000: over the amplification once past
     * the threshold, external bytes counting as input */
    static char ent[600];
    memset(ent, 0, sizeof ent);
    for (int i = 0; i < 100; i++) memcpy(ent + 5 * i, "&k;\n ", 5);
    static xfile files[] = {{"e", ent, 0}, {NULL, NULL, 0}};
    char k[1001];
    memset(k, 'k', 1000);
    k[1000] = '\0';
    char doc[1200];
    snprintf(doc, sizeof doc, "<!DOCTYPE d [<!ENTITY k '%s'><!ENTITY e SYSTEM 'e'>]><d>&e;</d>", k);
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.entity_threshold = 50000;
    o.entity_amplification = 30;
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    o.resolve = xres_resolve;
    o.resolve_ud = &x;
    stax_test_expect_status(doc, strlen(doc), &o, "ERROR LIMIT_ENTITY @1:1055:1054");
    o.entity_amplification = 100;
    stax_test_expect_status(doc, strlen(doc), &o, "END-OF-DOCUMENT");
}

Test(external, limit_max_dtd) {
    static char dtd[4000];
    size_t n = 0;
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(dtd + n, sizeof dtd - n, "<!ENTITY e%02d 'value %d'>", i, i);
    static xfile files[] = {{"d.dtd", dtd, 0}, {NULL, NULL, 0}};
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.max_dtd = 2048;
    expect_error_with("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", files, &o,
                      "ERROR LIMIT_DTD @1:1:0: DTD larger than max_dtd (2048 bytes) (in the external subset \"d.dtd\", line 1, "
                      "column ");
    o.max_dtd = 65536;
    expect_with("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", files, &o,
                "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:1:0\n"
                "START d / @1:28:27\n"
                "END d @1:28:27\n"
                "END-OF-DOCUMENT\n");
}

Test(external, limit_max_external) {
    static const xfile files[] = {{"e", "0123456789", 0}, {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d>&e;&e;&e;</d>";
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.max_external = 30;
    expect_with(doc, files, &o,
                "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
                "START d @1:38:37\n"
                "TEXT \"0123456789\" @1:41:40\n"
                "TEXT \"0123456789\" @1:44:43\n"
                "TEXT \"0123456789\" @1:47:46\n"
                "END d @1:50:49\n"
                "END-OF-DOCUMENT\n");
    o.max_external = 29;
    expect_with(doc, files, &o,
                "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
                "START d @1:38:37\n"
                "TEXT \"0123456789\" @1:41:40\n"
                "TEXT \"0123456789\" @1:44:43\n"
                "ERROR LIMIT_ENTITY @1:47:46: external entities over max_external (29 bytes read in all) (in entity 'e' "
                "\"e\")\n");
}

Test(external, limit_max_external_text) {
    /* each text costs its bytes, its base and a record (96 bytes on 64-bit
     * targets, about 50 on 32-bit ones), at a 16-byte boundary: 1115 holds
     * one entity of 1000 bytes, not one inside another, on either */
    static char big[1001];
    memset(big, 'x', 1000);
    static xfile files[] = {{"big", big, 0}, {"outer", "<o>&big;</o>", 0}, {NULL, NULL, 0}};
    const char *decls = "<!DOCTYPE d [<!ENTITY big SYSTEM 'big'><!ENTITY outer SYSTEM 'outer'>]>";
    char doc[256];
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.max_external_text = 1115;
    snprintf(doc, sizeof doc, "%s<d>&big;&big;</d>", decls);
    expect_error_with(doc, files, &o, "END-OF-DOCUMENT");
    snprintf(doc, sizeof doc, "%s<d>&outer;</d>", decls);
    expect_error_with(doc, files, &o,
                      "ERROR LIMIT_ENTITY @1:75:74: external entity larger than max_external_text (1115 bytes, shared with "
                      "the entities it is read in) (in entity 'big' \"big\")");
    o.max_external_text = 900;
    snprintf(doc, sizeof doc, "%s<d>&big;</d>", decls);
    expect_error_with(doc, files, &o,
                      "ERROR LIMIT_ENTITY @1:75:74: external entity larger than max_external_text (900 bytes, shared with "
                      "the entities it is read in) (in entity 'big' \"big\")");
}

/* ================================================================ memory */

Test(external, fixed_block_never_calls_malloc) {
    static _Alignas(16) unsigned char block[256 * 1024];
    static const xfile files[] = {{"d.dtd", "<!ENTITY % p SYSTEM 'p'>%p;<![INCLUDE[<!ATTLIST d a CDATA 'v'>]]>", 0},
                                  {"p", "<!ENTITY e SYSTEM 'e'>", 0},
                                  {"e", "<?xml encoding='ISO-8859-1'?><b>\xe9</b>", 0},
                                  {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d SYSTEM 'd.dtd'><d>&e;&e;</d>";
    const char *want = "DOCTYPE d pub=\"\" sys=\"d.dtd\" @1:1:0\n"
                       "START d a=\"v\"* @1:28:27\n"
                       "START b @1:31:30\n"
                       "TEXT \"\xc3\xa9\" @1:31:30\n"
                       "END b @1:31:30\n"
                       "START b @1:34:33\n"
                       "TEXT \"\xc3\xa9\" @1:34:33\n"
                       "END b @1:34:33\n"
                       "END d @1:37:36\n"
                       "END-OF-DOCUMENT\n";
    for (size_t blk = 64 * 1024; blk <= sizeof block; blk *= 2) {
        stax_reader_options o;
        memset(&o, 0, sizeof o);
        o.memory = block;
        o.memory_size = blk;
        stax_test_forbid_malloc = 1;
        expect_with(doc, files, &o, want);
        stax_test_forbid_malloc = 0;
        cr_assert_eq(stax_test_forbidden_calls, 0);
    }
    /* the size the options need, exactly */
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.resolve = xres_resolve;
    o.max_external_text = 4096;
    /* every option set: a zero one would be sized from the block */
    o.max_token = 4096, o.max_text = 1024, o.max_dtd = 16384, o.read_buffer = 1024, o.max_depth = 64, o.max_name = 64;
    o.batch_events = 16, o.max_attrs = 16, o.max_entity_depth = 4, o.max_ns_bytes = 1024;
    size_t need = stax_reader_memory_size(&o);
    cr_assert_gt(need, 4096 + 1024);
    cr_assert_leq(need, sizeof block);
    o.max_external_text = 0; /* the default is 1 MiB: far more */
    cr_assert_gt(stax_reader_memory_size(&o), need + 1000000);
    o.max_external_text = 4096;
    o.memory = block;
    o.memory_size = need;
    expect_with(doc, files, &o, want);
    o.memory_size = need - 16;
    cr_assert_null(stax_reader_new(&o));
}

typedef struct failing_alloc {
    size_t calls, fail_at;
} failing_alloc;

static void *fail_alloc(void *ud, void *p, size_t old, size_t n) {
    failing_alloc *a = ud;
    (void)old;
    if (n == 0) {
        free(p);
        return NULL;
    }
    if (++a->calls == a->fail_at) return NULL;
    return realloc(p, n);
}

Test(external, allocation_failure_at_every_call) {
    static const xfile files[] = {{"d.dtd", "<!ENTITY % p SYSTEM 'p'>%p;<!ATTLIST d a CDATA 'v'>", 0},
                                  {"p", "<!ENTITY e SYSTEM 'e'>", 0},
                                  {"e", "<b>text</b>", 0},
                                  {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d SYSTEM 'd.dtd'><d>&e;</d>";
    int succeeded = 0;
    for (size_t n = 1; n < 200 && !succeeded; n++) {
        failing_alloc a = {0, n};
        xres x;
        memset(&x, 0, sizeof x);
        x.files = files;
        stax_reader_options o = xopts(&x);
        o.alloc = fail_alloc;
        o.alloc_ud = &a;
        stax_reader *r = stax_reader_new(&o);
        if (!r) continue;
        stax_reader_feed(r, doc, strlen(doc));
        const stax_batch *b;
        int st;
        while ((st = stax_reader_next(r, &b)) == STAX_OK) continue;
        if (st == STAX_NEED_INPUT) {
            stax_reader_end(r);
            while ((st = stax_reader_next(r, &b)) == STAX_OK) continue;
        }
        cr_assert(st == STAX_END || st == STAX_E_NOMEM, "allocation %zu failing: %s (%s)", n, stax_test_status_name(st),
                  stax_reader_message(r));
        cr_assert_eq(x.dones, x.calls, "allocation %zu failing: %u requests, %u done", n, x.calls, x.dones);
        succeeded = st == STAX_END;
        stax_reader_free(r);
    }
    cr_assert(succeeded, "never read the document");
}

/* ================================================================ the reader around it */

Test(external, small_batches_and_reset) {
    static const xfile files[] = {{"e", "<x/><y>1</y>", 0}, {NULL, NULL, 0}};
    const char *doc = "<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d>&e;-&e;</d>";
    const char *want = "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:0\n"
                       "START d @1:38:37\n"
                       "START x / @1:41:40\n"
                       "END x @1:41:40\n"
                       "START y @1:41:40\n"
                       "TEXT \"1\" @1:41:40\n"
                       "END y @1:41:40\n"
                       "TEXT \"-\" @1:44:43\n"
                       "START x / @1:45:44\n"
                       "END x @1:45:44\n"
                       "START y @1:45:44\n"
                       "TEXT \"1\" @1:45:44\n"
                       "END y @1:45:44\n"
                       "END d @1:48:47\n"
                       "END-OF-DOCUMENT\n";
    stax_reader_options o;
    memset(&o, 0, sizeof o);
    o.batch_events = 2;
    expect_with(doc, files, &o, want);
    /* a reader reset keeps reading external entities */
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    o = xopts(&x);
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    for (int round = 0; round < 2; round++) {
        stax_test_cursor c;
        stax_test_cursor_open(&c, r, doc, strlen(doc));
        unsigned starts = 0;
        while (stax_test_cursor_next(&c)) starts += stax_ev_type(c.b, c.i) == STAX_EV_START;
        cr_assert_eq(c.status, STAX_END, "round %d: %s", round, stax_reader_message(r));
        cr_assert_eq(starts, 5);
        cr_assert_eq(stax_reader_reset(r), STAX_OK);
    }
    cr_assert_eq(x.calls, 4);
    cr_assert_eq(x.dones, 4);
    stax_reader_free(r);
}

static ptrdiff_t pull_doc(void *ctx, void *buf, size_t cap) {
    const char **p = ctx;
    size_t n = strlen(*p);
    if (n > cap) n = cap;
    if (n > 3) n = 3;
    memcpy(buf, *p, n);
    *p += n;
    return (ptrdiff_t)n;
}

Test(external, pull_source) {
    static const xfile files[] = {{"d.dtd", "<!ENTITY e SYSTEM 'e'>", 0}, {"e", "in<i/>e", 0}, {NULL, NULL, 0}};
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    x.read_fn = 1;
    stax_reader_options o = xopts(&x);
    stax_reader *r = stax_reader_new(&o);
    const char *doc = "<!DOCTYPE d SYSTEM 'd.dtd'><d>&e;</d>";
    cr_assert_eq(stax_reader_set_source(r, pull_doc, &doc), STAX_OK);
    char *d = stax_test_pull_events(r, &o, 0);
    cr_assert_str_eq(d, "DOCTYPE d pub=\"\" sys=\"d.dtd\"\n"
                        "START d\n"
                        "TEXT \"in\"\n"
                        "START i /\n"
                        "END i\n"
                        "TEXT \"e\"\n"
                        "END d\n"
                        "END-OF-DOCUMENT\n");
    free(d);
    stax_reader_free(r);
}

Test(external, empty_entity) {
    static const xfile files[] = {{"e", "", 0}, {"t", "<?xml encoding='UTF-8'?>", 0}, {NULL, NULL, 0}};
    expect("<!DOCTYPE d [<!ENTITY e SYSTEM 'e'><!ENTITY t SYSTEM 't'>]><d>&e;&t;</d>", files,
           "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'><!ENTITY t SYSTEM 't'>\" @1:1:0\n"
           "START d @1:60:59\n"
           "END d @1:69:68\n"
           "END-OF-DOCUMENT\n");
}

Test(external, namespaces_and_a_utf16_document) {
    /* a UTF-16LE document (transcoded windows) reading a UTF-8 entity that
     * uses a prefix bound outside it */
    static const xfile files[] = {{"e", "<p:x a='1'/>", 0}, {NULL, NULL, 0}};
    const char *ascii = "<!DOCTYPE d [<!ENTITY e SYSTEM 'e'>]><d xmlns:p='urn:p'>&e;</d>";
    size_t n = strlen(ascii);
    char doc[256];
    doc[0] = (char)0xFF, doc[1] = (char)0xFE;
    for (size_t i = 0; i < n; i++) doc[2 + 2 * i] = ascii[i], doc[3 + 2 * i] = 0;
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    stax_reader_options o = xopts(&x);
    o.flags = STAX_READ_NAMESPACES;
    stax_test_expect_events(doc, 2 + 2 * n, &o, STAX_DUMP_POS,
                            "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:2\n"
                            "START d xmlns:p=\"urn:p\" @1:38:76\n"
                            "START p:x a=\"1\" / @1:57:114\n"
                            "END p:x @1:57:114\n"
                            "END d @1:60:120\n"
                            "END-OF-DOCUMENT\n");
    /* an unbound prefix in the entity */
    static const xfile bad[] = {{"e", "\n<q:x/>", 0}, {NULL, NULL, 0}};
    x.files = bad;
    stax_test_expect_events(doc, 2 + 2 * n, &o, STAX_DUMP_POS | STAX_DUMP_MESSAGE,
                            "DOCTYPE d pub=\"\" sys=\"\" subset=\"<!ENTITY e SYSTEM 'e'>\" @1:1:2\n"
                            "START d xmlns:p=\"urn:p\" @1:38:76\n"
                            "TEXT \"\\n\" ws @1:57:114\n"
                            "ERROR NAMESPACE @1:57:114: unbound prefix 'q' (in entity 'e' \"e\", line 2, column 2)\n");
}

/* ================================================================ what a declaration keeps in max_dtd */

/* The events of doc read whole, with dtd as the file d.dtd and max_dtd. */
static char *read_with_subset(const char *doc, const char *dtd, size_t max_dtd) {
    xfile files[] = {{"d.dtd", dtd, 0}, {NULL, NULL, 0}};
    xres x;
    memset(&x, 0, sizeof x);
    x.files = files;
    stax_reader_options o = xopts(&x);
    o.max_dtd = max_dtd;
    return stax_test_events_ex(doc, strlen(doc), 0, &o, 0, NULL);
}

/* Whether the external subset dtd fits max_dtd: a read of a document that
 * uses it, whole, ends (LIMIT_DTD is the only other way it can end). */
static int subset_fits(const char *dtd, size_t max_dtd) {
    char *d = read_with_subset("<!DOCTYPE d SYSTEM 'd.dtd'><d/>", dtd, max_dtd);
    int fits = strstr(d, "END-OF-DOCUMENT") != NULL;
    cr_assert(fits || strstr(d, "LIMIT_DTD"), "%s", d);
    free(d);
    return fits;
}

/* The smallest max_dtd (to 16 bytes) that holds the subset. */
static size_t smallest_max_dtd(const char *dtd) {
    size_t lo = 256, hi = (size_t)4 << 20;
    cr_assert(subset_fits(dtd, hi));
    while (hi - lo > 16) {
        size_t mid = lo + (hi - lo) / 2;
        if (subset_fits(dtd, mid)) hi = mid;
        else lo = mid;
    }
    return hi;
}

/* n declarations, each printed by fmt with its number (twice), after head. */
static char *numbered(const char *head, const char *fmt, size_t n) {
    size_t cap = strlen(head) + n * (strlen(fmt) + 24) + 1, o = (size_t)snprintf(NULL, 0, "%s", head);
    char *s = malloc(cap);
    cr_assert_not_null(s);
    memcpy(s, head, o + 1);
    for (size_t i = 0; i < n; i++) o += (size_t)snprintf(s + o, cap - o, fmt, i, i);
    return s;
}

/* A value built from parameter entities keeps its bytes in max_dtd, as a
 * literal of the same value does: each such value kept apart in the region
 * (as the window it was built in) cost 32 bytes more, and made every later
 * window walk past all of them, quadratic in the declarations. */
Test(external, values_built_from_parameter_entities_keep_what_a_literal_keeps) {
    static const struct {
        const char *built, *literal;
    } pairs[] = {
        {"<!ENTITY e%zu '%%p;'>", "<!ENTITY e%zu 'v'>"},
        {"<!ENTITY e%zu 'a%%p;%zu'>", "<!ENTITY e%zu 'av%zu'>"},
        {"<!ATTLIST x%zu a CDATA 'x&#38;y%zu'>", "<!ATTLIST x%zu a CDATA 'x-y%zu'>"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        char *built = numbered("<!ENTITY % p 'v'>", pairs[k].built, 1000);
        char *literal = numbered("<!ENTITY % p 'v'>", pairs[k].literal, 1000);
        size_t need = smallest_max_dtd(literal);
        /* (and the parameter entities' levels, which the first reference
         * needs, stay: some 1.3 KB) */
        cr_assert(subset_fits(built, need + 2048), "%s: needs more than %zu + 2048 bytes", pairs[k].built, need);
        free(built);
        free(literal);
    }
}

/* A declaration after the first of its name keeps nothing: 5,000 of them,
 * values built from parameter entities or with references, fit in 8 KiB. */
Test(external, redeclarations_keep_nothing) {
    static const char *const decls[] = {"<!ENTITY e '[%%p;%%p;]%zu'>", "<!ATTLIST d a CDATA 'x&#38;y%zu'>",
                                        "<!ENTITY e 'v%zu'>", "<!ATTLIST d a CDATA 'xy%zu'>"};
    for (size_t k = 0; k < sizeof decls / sizeof decls[0]; k++) {
        char *dtd = numbered("<!ENTITY % p 'v'>", decls[k], 5000);
        cr_assert(subset_fits(dtd, 8192), "%s", decls[k]);
        free(dtd);
    }
}

/* At the smallest max_dtd that holds it, a long value built from parameter
 * entities is the last thing to fit: the chunks have no room left for its
 * copy, and the window it was built in is kept as the value (the same
 * text either way). */
Test(external, a_value_built_in_a_nearly_full_region_keeps_its_window) {
    static char dtd[256], want[1100];
    snprintf(dtd, sizeof dtd, "<!ENTITY %% p '%0100d'><!ENTITY big '[%%p;%%p;%%p;%%p;%%p;%%p;%%p;%%p;%%p;%%p;]'>", 0);
    size_t need = smallest_max_dtd(dtd);
    char *d = read_with_subset("<!DOCTYPE d SYSTEM 'd.dtd'><d>&big;</d>", dtd, need);
    size_t w = (size_t)snprintf(want, sizeof want, "TEXT \"[");
    for (int i = 0; i < 1000; i++) want[w++] = '0';
    snprintf(want + w, sizeof want - w, "]\"\n");
    cr_assert(strstr(d, want), "max_dtd %zu:\n%s", need, d);
    free(d);
}

/* A redeclaration whose value was built in a window the region kept (its
 * chunks had no room left for the copy) gives the window back: at every
 * max_dtd from the smallest that holds the DTD without the redeclaration,
 * the DTD with it holds too, and the value is the first declaration's. */
Test(external, a_redeclared_value_in_a_kept_window_is_given_back) {
    static char without[4096], with[4096], want[1100];
    static const char refs[] = "[%p;%p;%p;%p;%p;%p;%p;%p;%p;%p;]";
    char zeros[1001];
    memset(zeros, '0', 1000);
    zeros[1000] = 0;
    snprintf(without, sizeof without, "<!ENTITY %% p '%0100d'><!ENTITY big '%s'><!ENTITY t '%s'>", 0, refs, zeros);
    snprintf(with, sizeof with, "<!ENTITY %% p '%0100d'><!ENTITY big '%s'><!ENTITY big 'x%s'><!ENTITY t '%s'>", 0, refs, refs,
             zeros);
    size_t need = smallest_max_dtd(without);
    size_t w = (size_t)snprintf(want, sizeof want, "TEXT \"[");
    for (int i = 0; i < 1000; i++) want[w++] = '0';
    snprintf(want + w, sizeof want - w, "]\"\n");
    for (size_t max = need; max <= need + 2048; max += 8) {
        char *d = read_with_subset("<!DOCTYPE d SYSTEM 'd.dtd'><d>&big;</d>", with, max);
        cr_assert(strstr(d, want), "max_dtd %zu (the DTD without the redeclaration: %zu):\n%s", max, need, d);
        free(d);
    }
}
