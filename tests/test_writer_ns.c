/* The namespace-aware writer: stax_writer_start_ns, stax_writer_attr_ns and
 * stax_writer_inherit_ns declare what is not in scope and nothing else; the
 * output read back by the reader with namespaces on gives the same namespace
 * names and local names; the same bytes through a blocking sink. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "harness.h"
#include "stax.h"

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_script.h"

#define STREAMS "http://etherx.jabber.org/streams"
#define XML_NS "http://www.w3.org/XML/1998/namespace"

static stax_writer *mem_writer(unsigned flags) {
    stax_writer *w = new_writer(0, 0, flags);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    return w;
}

static void expect_memory(stax_writer *w, const char *want) {
    stax_str m = stax_writer_memory(w);
    cr_assert(m.len == strlen(want) && memcmp(m.ptr, want, m.len) == 0, "got  %.*s\nwant %s", (int)m.len, m.ptr,
              want);
}

Test(writer_ns, stanza_inherits_the_stream_scope) {
    stax_writer *w = mem_writer(STAX_WRITE_FRAGMENT | STAX_WRITE_SELF_CLOSE);
    cr_assert_eq(stax_writer_inherit_ns_z(w, "", "jabber:client"), STAX_OK);
    cr_assert_eq(stax_writer_inherit_ns_z(w, "stream", STREAMS), STAX_OK);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(stax_writer_start_ns_z(w, "jabber:client", "message", NULL), STAX_OK);
        cr_assert_eq(stax_writer_attr_ns_z(w, NULL, "to", NULL, "juliet@example.com"), STAX_OK);
        cr_assert_eq(stax_writer_attr_ns_z(w, XML_NS, "lang", NULL, "en"), STAX_OK);
        cr_assert_eq(stax_writer_start_ns_z(w, "jabber:client", "body", NULL), STAX_OK);
        cr_assert_eq(stax_writer_text_z(w, "hi & bye"), STAX_OK);
        cr_assert_eq(stax_writer_end(w), STAX_OK);
        cr_assert_eq(stax_writer_start_ns_z(w, "http://jabber.org/protocol/chatstates", "active", NULL), STAX_OK);
        cr_assert_eq(stax_writer_end(w), STAX_OK);
        cr_assert_eq(stax_writer_start_ns_z(w, "urn:xmpp:delay", "delay", NULL), STAX_OK);
        cr_assert_eq(stax_writer_attr_ns_z(w, "", "stamp", NULL, "2002-09-10T23:08:25Z"), STAX_OK);
        cr_assert_eq(stax_writer_end(w), STAX_OK);
        cr_assert_eq(stax_writer_start_ns_z(w, STREAMS, "error", "s"), STAX_OK); /* in scope as stream: */
        cr_assert_eq(stax_writer_end(w), STAX_OK);
        cr_assert_eq(stax_writer_end(w), STAX_OK);
    }
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    const char *one = "<message to=\"juliet@example.com\" xml:lang=\"en\"><body>hi &amp; bye</body>"
                      "<active xmlns=\"http://jabber.org/protocol/chatstates\"/>"
                      "<delay xmlns=\"urn:xmpp:delay\" stamp=\"2002-09-10T23:08:25Z\"/><stream:error/></message>";
    char want[1024];
    snprintf(want, sizeof want, "%s%s", one, one);
    expect_memory(w, want);
    stax_writer_free(w);
}

Test(writer_ns, declared_once_then_in_scope) {
    stax_writer *w = mem_writer(STAX_WRITE_SELF_CLOSE);
    stax_writer_start_ns_z(w, "urn:a", "r", "a");
    stax_writer_start_ns_z(w, "urn:a", "c", NULL);   /* a: in scope */
    stax_writer_attr_ns_z(w, "urn:a", "x", NULL, "1"); /* a: in scope */
    stax_writer_start_ns_z(w, "urn:a", "d", "zz");   /* another hint: a is in scope, used */
    stax_writer_end(w);
    stax_writer_end(w);
    stax_writer_start_ns_z(w, "urn:b", "e", NULL);   /* the default namespace */
    stax_writer_start_ns_z(w, "urn:b", "f", NULL);
    stax_writer_attr_ns_z(w, "urn:b", "y", "b", "2"); /* attributes need a prefix */
    stax_writer_attr_ns_z(w, "urn:b", "z", NULL, "3");
    stax_writer_end(w);
    stax_writer_start_ns_z(w, NULL, "g", NULL); /* no namespace under a default one */
    stax_writer_start_ns_z(w, NULL, "h", NULL);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<a:r xmlns:a=\"urn:a\"><a:c a:x=\"1\"><a:d/></a:c><e xmlns=\"urn:b\">"
                     "<f xmlns:b=\"urn:b\" b:y=\"2\" b:z=\"3\"/><g xmlns=\"\"><h/></g></e></a:r>");
    stax_writer_free(w);
}

Test(writer_ns, redeclared_in_a_nested_scope_and_back) {
    stax_writer *w = mem_writer(STAX_WRITE_SELF_CLOSE);
    stax_writer_start_ns_z(w, "urn:a", "r", "p");
    stax_writer_start_ns_z(w, "urn:b", "c", "p"); /* p shadowed inside c */
    stax_writer_start_ns_z(w, "urn:a", "d", "p"); /* p is urn:b here: declared again */
    stax_writer_end(w);
    stax_writer_end(w);
    stax_writer_start_ns_z(w, "urn:a", "e", "p"); /* p is urn:a again */
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<p:r xmlns:p=\"urn:a\"><p:c xmlns:p=\"urn:b\"><p:d xmlns:p=\"urn:a\"/></p:c><p:e/></p:r>");
    stax_writer_free(w);
}

Test(writer_ns, attribute_hint_collisions_generate_prefixes) {
    stax_writer *w = mem_writer(STAX_WRITE_SELF_CLOSE);
    stax_writer_start_ns_z(w, "urn:a", "r", "p");
    stax_writer_ns_z(w, "ns1", "urn:other"); /* ns1 is taken by hand */
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:b", "x", "p", "1"), STAX_OK); /* p is urn:a: taken */
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:c", "y", NULL, "2"), STAX_OK);
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:b", "z", NULL, "3"), STAX_OK); /* ns2 is urn:b now */
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:d", "w", "q", "4"), STAX_OK); /* a free hint is used */
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:b", "x", "q", "5"), STAX_E_DUP_ATTR); /* {urn:b}x again */
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:a", "x", NULL, "6"), STAX_OK); /* {urn:a}x is another */
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<p:r xmlns:p=\"urn:a\" xmlns:ns1=\"urn:other\" xmlns:ns2=\"urn:b\" ns2:x=\"1\" "
                     "xmlns:ns3=\"urn:c\" ns3:y=\"2\" ns2:z=\"3\" xmlns:q=\"urn:d\" q:w=\"4\" p:x=\"6\"/>");
    stax_writer_free(w);
}

Test(writer_ns, declarations_by_hand_and_by_attribute_count) {
    stax_writer *w = mem_writer(STAX_WRITE_SELF_CLOSE);
    stax_writer_start_z(w, "r");
    stax_writer_attr_z(w, "xmlns", "urn:d");
    stax_writer_attr_z(w, "xmlns:x", "urn:x");
    stax_writer_start_ns_z(w, "urn:d", "a", NULL);
    stax_writer_attr_ns_z(w, "urn:x", "k", NULL, "v");
    stax_writer_end(w);
    cr_assert_eq(stax_writer_ns_z(w, "x", "urn:y"), STAX_E_STATE); /* the tag is closed */
    stax_writer_start_z(w, "s");
    cr_assert_eq(stax_writer_ns_z(w, "x", "urn:y"), STAX_OK);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:x", "t", "x"), STAX_OK); /* x is urn:y here */
    cr_assert_eq(stax_writer_ns_z(w, "x", "urn:z"), STAX_E_DUP_ATTR);    /* declared on this tag */
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<r xmlns=\"urn:d\" xmlns:x=\"urn:x\"><a x:k=\"v\"/><s xmlns:x=\"urn:y\">"
                     "<x:t xmlns:x=\"urn:x\"/></s></r>");
    stax_writer_free(w);
}

Test(writer_ns, refusals_say_why_and_write_nothing) {
    stax_writer *w = mem_writer(0);
    cr_assert_eq(stax_writer_start_ns_z(w, "", "a", "p"), STAX_E_INVALID);
    cr_assert_str_eq(stax_writer_message(w),
                     "stax_writer_start_ns: a prefix for the empty namespace name (no namespace has no prefix)");
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "a:b", NULL), STAX_E_INVALID);
    cr_assert_str_eq(stax_writer_message(w), "stax_writer_start_ns: the local name is not an NCName");
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "a", "xml"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_start_ns_z(w, XML_NS, "a", "x"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "a", "xmlns"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_start_ns_z(w, "http://www.w3.org/2000/xmlns/", "a", NULL), STAX_E_INVALID);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "a", "1p"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_inherit_ns_z(w, "p", ""), STAX_E_INVALID);
    cr_assert_eq(stax_writer_attr_ns_z(w, "urn:a", "a", NULL, "v"), STAX_E_STATE);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "r", NULL), STAX_OK);
    cr_assert_eq(stax_writer_attr_ns_z(w, "", "xmlns", NULL, "v"), STAX_E_INVALID);
    cr_assert_eq(stax_writer_inherit_ns_z(w, "p", "urn:p"), STAX_E_STATE);
    cr_assert_str_eq(stax_writer_message(w),
                     "stax_writer_inherit_ns: inherited bindings come before the first element opens");
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<r xmlns=\"urn:a\"></r>");
    stax_writer_free(w);
}

Test(writer_ns, the_limit_is_ns_size) {
    stax_writer_options o = {0};
    o.ns_size = 64; /* four bindings of 0 bytes, or fewer longer ones */
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, NULL, 0), STAX_OK);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:aaaaaaaa", "r", "a"), STAX_OK);      /* 16 + 13 */
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:bbbbbbbbbbbbbbbb", "r", "b"), STAX_E_LIMIT_NS); /* + 16 + 21 */
    cr_assert_str_eq(stax_writer_message(w),
                     "stax_writer_start_ns: the namespace bindings in scope are full (ns_size 64 bytes)");
    cr_assert_eq(stax_writer_ns_z(w, "b", "urn:bbbbbbbbbbbbbbbb"), STAX_E_LIMIT_NS); /* by hand too */
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "r", "b"), STAX_OK);
    cr_assert_eq(stax_writer_end(w), STAX_OK); /* its binding is gone */
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:ccc", "r", "c"), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<a:r xmlns:a=\"urn:aaaaaaaa\"><b:r xmlns:b=\"urn:a\"></b:r><c:r xmlns:c=\"urn:ccc\"></c:r></a:r>");
    stax_writer_options eff;
    cr_assert_eq(stax_writer_effective_options(NULL, &eff, NULL), STAX_OK);
    cr_assert_eq(eff.ns_size, 65536);
    stax_writer_free(w);
}

Test(writer_ns, fixed_block_needs_ns_size) {
    static char block[16384];
    stax_writer_options o = {0};
    o.memory = block;
    o.memory_size = sizeof block;
    stax_writer *w = stax_writer_new(&o);
    cr_assert_not_null(w);
    static char out[256];
    cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "r", NULL), STAX_E_USAGE);
    cr_assert_str_eq(stax_writer_message(w), "stax_writer_start_ns: no namespace memory: a fixed block needs ns_size");
    cr_assert_eq(stax_writer_start_z(w, "r"), STAX_OK);
    cr_assert_eq(stax_writer_ns_z(w, "a", "urn:a"), STAX_OK); /* by hand: written, not kept */
    stax_writer_free(w);
    o.ns_size = 256;
    size_t need = stax_writer_memory_size(&(stax_writer_options){.buffer_size = 256, .ns_size = 256});
    cr_assert_eq(need, stax_writer_memory_size(&(stax_writer_options){.buffer_size = 256}) + 256);
    o.buffer_size = 256;
    o.memory_size = need;
    w = stax_writer_new(&o);
    cr_assert_not_null(w);
    cr_assert_eq(stax_writer_set_memory(w, out, sizeof out), STAX_OK);
    cr_assert_eq(stax_writer_inherit_ns_z(w, "", "jabber:client"), STAX_OK);
    cr_assert_eq(stax_writer_start_ns_z(w, "jabber:client", "r", NULL), STAX_OK);
    cr_assert_eq(stax_writer_start_ns_z(w, "urn:a", "s", "a"), STAX_OK);
    cr_assert_eq(stax_writer_finish(w), STAX_OK);
    expect_memory(w, "<r><a:s xmlns:a=\"urn:a\"></a:s></r>");
    cr_assert_leq(stax_writer_memory_peak(w), need);
    stax_writer_free(w);
}

/* ================================================================ round trip */

static const char *rt_uris[] = {"", "urn:a", "urn:b", "urn:c&<\"'", "jabber:client"};
static const char *rt_hints[] = {NULL, "", "a", "b", "p", "ns1", "ns2"};
static const char *rt_locals[] = {"x", "y", "z", "message"};
#define RT_N(a) (sizeof(a) / sizeof(a[0]))

typedef struct rt_name {
    const char *uri, *local;
} rt_name;

/* What was written: the expanded name of each start tag's element and
 * attributes, in document order. */
typedef struct rt_log {
    rt_name names[4096];
    int is_attr[4096];
    size_t n;
} rt_log;

static void rt_add(rt_log *lg, const char *uri, const char *local, int attr) {
    cr_assert(lg->n < 4096);
    lg->names[lg->n].uri = uri;
    lg->names[lg->n].local = local;
    lg->is_attr[lg->n] = attr;
    lg->n++;
}

/* Repeat a call while it blocks (the retry rule). */
#define RT_CALL(st, call)                                                                                              \
    do {                                                                                                               \
        while ((st = (call)) == STAX_WOULD_BLOCK) {                                                                    \
        }                                                                                                              \
    } while (0)

/* A random namespaced fragment written through w; the log of expanded names. */
static void rt_write(stax_writer *w, uint32_t seed, rt_log *lg) {
    uint32_t rng = seed * 2654435761u + 3;
    int st;
    lg->n = 0;
    RT_CALL(st, stax_writer_inherit_ns_z(w, "", "jabber:client"));
    cr_assert_eq(st, STAX_OK);
    int depth = 0, tag = 0;
    for (int i = 0; i < 300; i++) {
        uint32_t r = rng_next(&rng) % 100;
        const char *uri = rt_uris[rng_next(&rng) % RT_N(rt_uris)];
        const char *hint = rt_hints[rng_next(&rng) % RT_N(rt_hints)];
        if (!*uri) hint = NULL; /* no namespace has no prefix (refused: writer_ns.refusals_say_why) */
        const char *local = rt_locals[rng_next(&rng) % RT_N(rt_locals)];
        if (tag && r < 35) {
            RT_CALL(st, stax_writer_attr_ns_z(w, uri, local, hint, "v&<"));
            if (st == STAX_E_DUP_ATTR) continue; /* {uri}local is on the tag already */
            cr_assert_eq(st, STAX_OK, "%s", stax_writer_message(w));
            rt_add(lg, uri, local, 1);
        } else if (r < 65 && depth < 8) {
            RT_CALL(st, stax_writer_start_ns_z(w, uri, local, hint));
            cr_assert_eq(st, STAX_OK, "%s", stax_writer_message(w));
            rt_add(lg, uri, local, 0);
            depth++;
            tag = 1;
        } else if (depth > 0) {
            RT_CALL(st, stax_writer_end(w));
            cr_assert_eq(st, STAX_OK);
            depth--;
            tag = 0;
        } else {
            RT_CALL(st, stax_writer_text_z(w, "t"));
            tag = 0;
        }
    }
    RT_CALL(st, stax_writer_finish(w));
    cr_assert_eq(st, STAX_OK);
}

static int rt_is(stax_str s, const char *z) { return s.len == strlen(z) && memcmp(s.ptr, z, s.len) == 0; }

/* Read the fragment back inside <stream xmlns="jabber:client"> with
 * namespaces on; the expanded names must be the log's. */
static void rt_read(const char *p, size_t n, const rt_log *lg) {
    const char *open = "<stream xmlns=\"jabber:client\">", *close = "</stream>";
    size_t lo = strlen(open), lc = strlen(close);
    char *doc = malloc(lo + n + lc);
    memcpy(doc, open, lo);
    memcpy(doc + lo, p, n);
    memcpy(doc + lo + n, close, lc);
    stax_reader_options o = {0};
    o.flags = STAX_READ_NAMESPACES;
    stax_reader *r = stax_reader_new(&o);
    cr_assert_not_null(r);
    cr_assert_eq(stax_reader_feed(r, doc, lo + n + lc), STAX_OK);
    cr_assert_eq(stax_reader_end(r), STAX_OK);
    const stax_batch *b;
    int st, skipped = 0;
    size_t k = 0;
    while ((st = stax_reader_next(r, &b)) == STAX_OK) {
        for (size_t i = 0; i < b->count; i++) {
            if (stax_ev_type(b, i) != STAX_EV_START) continue;
            if (!skipped) { /* the wrapper */
                skipped = 1;
                continue;
            }
            cr_assert(k < lg->n && !lg->is_attr[k]);
            stax_qname q = stax_ev_qname(b, i);
            cr_assert(rt_is(q.uri, lg->names[k].uri) && rt_is(q.local, lg->names[k].local),
                      "element %zu: {%.*s}%.*s, want {%s}%s", k, (int)q.uri.len, q.uri.ptr, (int)q.local.len,
                      q.local.ptr, lg->names[k].uri, lg->names[k].local);
            k++;
            for (size_t a = 0; a < stax_ev_attr_count(b, i); a++) {
                stax_qname aq = stax_ev_attr_qname(b, i, a);
                if (rt_is(aq.prefix, "xmlns") || (aq.prefix.len == 0 && rt_is(aq.local, "xmlns"))) continue;
                cr_assert(k < lg->n && lg->is_attr[k]);
                cr_assert(rt_is(aq.uri, lg->names[k].uri) && rt_is(aq.local, lg->names[k].local),
                          "attribute %zu: {%.*s}%.*s, want {%s}%s", k, (int)aq.uri.len, aq.uri.ptr,
                          (int)aq.local.len, aq.local.ptr, lg->names[k].uri, lg->names[k].local);
                cr_assert(rt_is(stax_ev_attr_value(b, i, a), "v&<"));
                k++;
            }
        }
    }
    cr_assert_eq(st, STAX_END, "%s\n%.*s", stax_reader_message(r), (int)n, p);
    cr_assert_eq(k, lg->n);
    stax_reader_free(r);
    free(doc);
}

Test(writer_ns, round_trip_through_the_reader) {
    static rt_log lg, lg2;
    for (uint32_t seed = 1; seed <= 150; seed++) {
        stax_writer *w = mem_writer(STAX_WRITE_FRAGMENT | (seed % 2 ? STAX_WRITE_SELF_CLOSE : 0));
        rt_write(w, seed, &lg);
        stax_str m = stax_writer_memory(w);
        rt_read(m.ptr, m.len, &lg);
        /* the same calls through a sink that takes random amounts */
        capture c = {0};
        c.random = 1;
        c.rng = seed;
        c.buffer = STAX_WRITER_MIN_BUFFER;
        stax_writer *b = new_writer(STAX_WRITER_MIN_BUFFER, 0,
                                    STAX_WRITE_FRAGMENT | (seed % 2 ? STAX_WRITE_SELF_CLOSE : 0));
        cr_assert_eq(stax_writer_set_sink(b, cap_sink, &c), STAX_OK);
        rt_write(b, seed, &lg2);
        expect_same(c.p, c.len, m.ptr, m.len, "blocking sink");
        stax_writer_free(b);
        stax_writer_free(w);
        free(c.p);
    }
}
