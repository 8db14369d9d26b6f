/* docs/api.md, "External entities": a resolver over a small catalog in
 * memory. The DTD is handed over as a buffer, a chapter by a read function
 * giving a few bytes at a time; anything not in the catalog is declined,
 * and its reference reported. An error inside an entity names it. */
#include "stax.h"

#include <stdio.h>
#include <string.h>

static const char *const catalog[][2] = {
    {"book.dtd", "<!ATTLIST book lang CDATA 'en'>\n"
                 "<!ENTITY ch1 SYSTEM 'ch1.xml'>\n"
                 "<!ENTITY logo SYSTEM 'http://example.com/logo.xml'>"},
    {"ch1.xml", "<?xml encoding='ISO-8859-1'?><chapter>Caf\xe9</chapter>"},
    {"bad.xml", "<p>one<p>two</p>"},
};

typedef struct cursor {
    const char *p;
    size_t left;
} cursor;

static ptrdiff_t read_some(void *ctx, void *buf, size_t cap) {
    cursor *c = ctx;
    size_t n = c->left < cap ? c->left : cap;
    if (n > 16) n = 16; /* as a file or a socket might */
    memcpy(buf, c->p, n);
    c->p += n;
    c->left -= n;
    return (ptrdiff_t)n;
}

static int resolve(void *ud, const stax_entity_request *req, stax_entity_input *in) {
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++) {
        if (!stax_str_eq(req->sysid, catalog[i][0])) continue;
        if (req->kind == STAX_ENTITY_GENERAL) { /* by a read function */
            cursor *c = ud;
            c->p = catalog[i][1];
            c->left = strlen(catalog[i][1]);
            in->read = read_some;
            in->read_ctx = c;
        } else { /* as a buffer */
            in->data = catalog[i][1];
            in->len = strlen(catalog[i][1]);
        }
        return STAX_OK;
    }
    printf("declined %.*s\n", (int)req->sysid.len, req->sysid.ptr);
    return STAX_DECLINE;
}

static void run(const char *doc) {
    cursor cur;
    stax_reader_options opt = {0};
    opt.resolve = resolve;
    opt.resolve_ud = &cur;
    stax_reader *r = stax_reader_new(&opt);
    const stax_batch *b;
    int st;
    stax_reader_feed(r, doc, strlen(doc));
    while ((st = stax_reader_next(r, &b)) == STAX_OK || st == STAX_NEED_INPUT) {
        if (st == STAX_NEED_INPUT) {
            stax_reader_end(r);
            continue;
        }
        for (size_t i = 0; i < b->count; i++) {
            stax_str name = stax_ev_name(b, i), text = stax_ev_text(b, i), lang;
            switch (stax_ev_type(b, i)) {
            case STAX_EV_START:
                printf("start %.*s", (int)name.len, name.ptr);
                if (stax_ev_attr_get(b, i, "lang", &lang)) printf(" lang=%.*s", (int)lang.len, lang.ptr);
                printf("\n");
                break;
            case STAX_EV_TEXT: printf("text %.*s\n", (int)text.len, text.ptr); break;
            case STAX_EV_ENTITY_REF: printf("not read: &%.*s;\n", (int)name.len, name.ptr); break;
            }
        }
    }
    if (st == STAX_END) {
        printf("well-formed\n");
    } else {
        stax_pos p = stax_reader_error_pos(r);
        printf("%llu:%llu: %s\n", (unsigned long long)p.line, (unsigned long long)p.column, stax_reader_message(r));
    }
    stax_reader_free(r);
}

int main(void) {
    run("<!DOCTYPE book SYSTEM 'book.dtd'>\n<book>&ch1;&logo;</book>");
    run("<!DOCTYPE book SYSTEM 'book.dtd' [<!ENTITY bad SYSTEM 'bad.xml'>]>\n<book>&bad;</book>");
    return 0;
}
