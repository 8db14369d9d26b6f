/* Namespace bindings (namespaces.c). */
#ifndef STAX_NAMESPACES_H
#define STAX_NAMESPACES_H

#include "stax_internal.h"

/* ------------------------------------------------------------- namespaces (namespaces.c)
 * In-scope bindings as a stack in one buffer of at most max_ns_bytes: each
 * costs its prefix, its URI and a record (stax__ns_cost). Bindings are also
 * chained per hash bucket, newest first, so that a prefix is found without
 * walking every binding in scope; a binding is always the head of its bucket
 * when it goes out of scope, since bindings leave in stack order. */
typedef struct stax__ns_rec {
    size_t off;            /* the prefix at buf + off, the URI right after it */
    size_t prefix_len, uri_len;
    uint32_t depth;        /* element depth that declared it */
    uint32_t hash;         /* of the prefix */
    uint32_t next;         /* the next older binding in the same bucket, or UINT32_MAX */
    uint32_t prev_dflt;    /* stax__ns's dflt before it was bound, restored when it leaves */
} stax__ns_rec;

typedef struct stax__ns {
    stax__mem *mem;
    char *buf;       /* strings from the start, records from the end */
    size_t cap, max; /* allocated, and max_ns_bytes */
    size_t low;      /* string bytes written (in scope, and out of scope in this batch) */
    size_t live;     /* string bytes of the bindings in scope */
    size_t n;        /* bindings in scope */
    size_t clean;    /* the first `clean` bindings' strings are packed from the start */
    uint32_t *heads; /* nbuckets (a power of two), UINT32_MAX when empty */
    size_t nbuckets;
    stax__hash_key key;
    /* For the fast path (kept in every build, so that a reader's size is
     * the same in each; maintained where the fast path reads namespaces,
     * not in builds for size): the binding that is the default namespace in
     * scope (UINT32_MAX: none), and the depth of the newest binding (0:
     * none), which tells an end tag whether it has bindings to drop. */
    uint32_t dflt, top;
} stax__ns;

/* Bytes one binding takes, and the bucket count for a budget. */
STAXINT size_t stax__ns_cost(size_t prefix_len, size_t uri_len);
STAXINT int stax__qname_split(stax_str name, stax_str *prefix, stax_str *local);
STAXINT size_t stax__ns_buckets(size_t max_bytes);
STAXINT size_t stax__ns_buffer_size(size_t max_bytes);
/* 0, or -1 when the memory cannot be had. In a fixed block the whole buffer is taken now. */
STAXINT int stax__ns_init(stax__ns *ns, stax__mem *mem, size_t max_bytes);
STAXINT void stax__ns_free(stax__ns *ns);
/* No binding in scope any more, the memory kept (for stax_reader_reset). */
STAXINT void stax__ns_reset(stax__ns *ns);
/* Bind prefix to uri at depth. 0; 1 when the bindings would pass max_ns_bytes
 * or, with can_grow 0, the buffer is full (strings that left scope are not
 * reclaimed yet); STAX_E_NOMEM when the allocator refuses. can_grow: nothing
 * points into the strings, so the buffer may move. */
STAXINT int stax__ns_push(stax__ns *ns, stax_str prefix, stax_str uri, uint32_t depth, int can_grow);
STAXINT void stax__ns_pop(stax__ns *ns, uint32_t depth); /* drops the bindings of depth >= depth */
/* Between batches: the strings of bindings that left scope are given back. */
STAXINT void stax__ns_reclaim(stax__ns *ns);
/* Bytes the bindings in scope take. */
STAXINT size_t stax__ns_bytes(const stax__ns *ns);
/* 0 and *uri (the xml prefix is always bound), or -1 if prefix is unbound. */
STAXINT int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri);
/* Binding i in scope (0: the oldest), for reader_context.c. */
/* Binding i's record (0: the oldest). */
static inline stax__ns_rec *stax__ns_rec_at(const stax__ns *ns, size_t i) {
    return (stax__ns_rec *)(void *)(ns->buf + ns->cap - (i + 1) * sizeof(stax__ns_rec));
}

/* The default namespace in scope ("" when none), as stax__ns_lookup gives
 * it for the empty prefix (not in builds for size: dflt is not kept). */
static inline stax_str stax__ns_default(const stax__ns *ns) {
    stax_str uri = {"", 0};
    if (ns->dflt != UINT32_MAX) {
        const stax__ns_rec *b = stax__ns_rec_at(ns, ns->dflt);
        uri.ptr = ns->buf + b->off; /* (its prefix is empty) */
        uri.len = b->uri_len;
    }
    return uri;
}
STAXINT void stax__ns_binding(const stax__ns *ns, size_t i, stax_str *prefix, stax_str *uri, uint32_t *depth);

#define STAX__XML_NS "http://www.w3.org/XML/1998/namespace"
#define STAX__XMLNS_NS "http://www.w3.org/2000/xmlns/"

#endif /* STAX_NAMESPACES_H */
