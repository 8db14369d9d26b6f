/* Namespaces 1.0: the stack of in-scope prefix bindings (ns_ prefix for
 * file-local names). The reader (reader_batch.c) splits QNames and checks the
 * namespace constraints; this file keeps the bindings and their strings. */
#include "stax_internal.h"

struct stax__ns_chunk {
    stax__ns_chunk *prev;
    size_t size;
};

#define NS_CHUNK 4096u
#define NS_NONE UINT32_MAX
/* Up to this many bindings in scope a lookup walks them all (cheaper than a
 * hash); beyond, it walks one hash bucket. */
#define NS_WALK 16u

void stax__ns_init(stax__ns *ns, stax__mem *mem) {
    memset(ns, 0, sizeof *ns);
    ns->mem = mem;
    stax__hash_key_init(&ns->key, ns);
}

static uint32_t ns_hash(const stax__ns *ns, stax_str prefix) {
    uint64_t h = stax__hash(&ns->key, prefix.ptr, prefix.len);
    return (uint32_t)(h ^ (h >> 32));
}

static void ns_free_chunks_after(stax__ns *ns, stax__ns_chunk *keep) {
    while (ns->chunk && ns->chunk != keep) {
        stax__ns_chunk *c = ns->chunk;
        ns->chunk = c->prev;
        stax__mem_free(ns->mem, c, sizeof *c + c->size);
    }
}

void stax__ns_free(stax__ns *ns) {
    if (!ns->mem) return;
    ns_free_chunks_after(ns, NULL);
    stax__mem_free(ns->mem, ns->b, ns->cap * sizeof *ns->b);
    stax__mem_free(ns->mem, ns->heads, ns->cap * sizeof *ns->heads);
    memset(ns, 0, sizeof *ns);
}

static char *ns_store(stax__ns *ns, const char *s, size_t n) {
    if (!ns->chunk || n > ns->left) {
        size_t size = n > NS_CHUNK ? n : NS_CHUNK;
        stax__ns_chunk *c = stax__mem_alloc(ns->mem, sizeof *c + size);
        if (!c) return NULL;
        c->prev = ns->chunk;
        c->size = size;
        ns->chunk = c;
        ns->left = size;
    }
    char *out = (char *)(ns->chunk + 1) + (ns->chunk->size - ns->left);
    if (n) memcpy(out, s, n);
    ns->left -= n;
    return out;
}

int stax__ns_push(stax__ns *ns, stax_str prefix, stax_str uri, uint32_t depth) {
    if (ns->n == ns->cap) {
        /* twice the bindings and twice the buckets; the chains are rebuilt
         * oldest first, so each stays newest first */
        size_t ncap = ns->cap ? ns->cap * 2 : 16;
        if (ncap > NS_NONE) return -1;
        uint32_t *nh = stax__mem_alloc(ns->mem, ncap * sizeof *nh);
        if (!nh) return -1;
        stax__ns_binding *nb = stax__mem_realloc(ns->mem, ns->b, ns->cap * sizeof *nb, ncap * sizeof *nb);
        if (!nb) {
            stax__mem_free(ns->mem, nh, ncap * sizeof *nh);
            return -1;
        }
        stax__mem_free(ns->mem, ns->heads, ns->cap * sizeof *ns->heads);
        ns->b = nb;
        ns->heads = nh;
        ns->cap = ncap;
        for (size_t i = 0; i < ncap; i++) nh[i] = NS_NONE;
        for (size_t i = 0; i < ns->n; i++) {
            uint32_t *head = &nh[nb[i].hash & (ncap - 1)];
            nb[i].next = *head;
            *head = (uint32_t)i;
        }
    }
    stax__ns_binding *b = &ns->b[ns->n];
    b->prefix.ptr = ns_store(ns, prefix.ptr, prefix.len);
    b->uri.ptr = ns_store(ns, uri.ptr, uri.len);
    if (!b->prefix.ptr || !b->uri.ptr) return -1;
    b->prefix.len = prefix.len;
    b->uri.len = uri.len;
    b->depth = depth;
    b->mark_chunk = ns->chunk;
    b->mark_left = ns->left;
    b->hash = ns_hash(ns, prefix);
    uint32_t *head = &ns->heads[b->hash & (ns->cap - 1)];
    b->next = *head;
    *head = (uint32_t)ns->n;
    ns->n++;
    return 0;
}

void stax__ns_pop(stax__ns *ns, uint32_t depth) {
    while (ns->n && ns->b[ns->n - 1].depth >= depth) {
        const stax__ns_binding *b = &ns->b[--ns->n];
        ns->heads[b->hash & (ns->cap - 1)] = b->next; /* it was the newest of its bucket */
    }
}

void stax__ns_reclaim(stax__ns *ns) {
    if (ns->n == 0) {
        ns_free_chunks_after(ns, NULL);
        ns->left = 0;
        return;
    }
    const stax__ns_binding *last = &ns->b[ns->n - 1];
    ns_free_chunks_after(ns, last->mark_chunk);
    ns->left = last->mark_left;
}

static int ns_found(const stax__ns_binding *b, stax_str prefix, stax_str *uri) {
    if (prefix.len && !b->uri.len) return -1; /* cannot happen in 1.0; kept for safety */
    *uri = b->uri;
    return 0;
}

int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri) {
    if (ns->n <= NS_WALK) {
        for (size_t i = ns->n; i-- > 0;) {
            const stax__ns_binding *b = &ns->b[i];
            if (b->prefix.len == prefix.len && memcmp(b->prefix.ptr, prefix.ptr, prefix.len) == 0)
                return ns_found(b, prefix, uri);
        }
    } else {
        uint32_t h = ns_hash(ns, prefix);
        for (uint32_t i = ns->heads[h & (ns->cap - 1)]; i != NS_NONE; i = ns->b[i].next) {
            const stax__ns_binding *b = &ns->b[i];
            if (b->hash == h && b->prefix.len == prefix.len && memcmp(b->prefix.ptr, prefix.ptr, prefix.len) == 0)
                return ns_found(b, prefix, uri);
        }
    }
    if (prefix.len == 3 && memcmp(prefix.ptr, "xml", 3) == 0) {
        uri->ptr = STAX__XML_NS;
        uri->len = sizeof STAX__XML_NS - 1;
        return 0;
    }
    if (prefix.len == 0) { /* no default namespace declared */
        uri->ptr = "";
        uri->len = 0;
        return 0;
    }
    return -1;
}
