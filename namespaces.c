/* Namespaces 1.0: the stack of in-scope prefix bindings (ns_ prefix for
 * file-local names). The reader (reader_batch.c) splits QNames and checks the
 * namespace constraints; this file keeps the bindings and their strings. */
#include "stax_internal.h"

struct stax__ns_chunk {
    stax__ns_chunk *prev;
    size_t size;
};

#define NS_CHUNK 4096u

void stax__ns_init(stax__ns *ns, stax__mem *mem) {
    memset(ns, 0, sizeof *ns);
    ns->mem = mem;
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
        size_t ncap = ns->cap ? ns->cap * 2 : 16;
        stax__ns_binding *nb = stax__mem_realloc(ns->mem, ns->b, ns->cap * sizeof *nb, ncap * sizeof *nb);
        if (!nb) return -1;
        ns->b = nb;
        ns->cap = ncap;
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
    ns->n++;
    return 0;
}

void stax__ns_pop(stax__ns *ns, uint32_t depth) {
    while (ns->n && ns->b[ns->n - 1].depth >= depth) ns->n--;
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

int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri) {
    for (size_t i = ns->n; i-- > 0;) {
        const stax__ns_binding *b = &ns->b[i];
        if (b->prefix.len == prefix.len && memcmp(b->prefix.ptr, prefix.ptr, prefix.len) == 0) {
            if (prefix.len && !b->uri.len) return -1; /* cannot happen in 1.0; kept for safety */
            *uri = b->uri;
            return 0;
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
