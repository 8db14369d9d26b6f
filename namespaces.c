/* Namespaces 1.0: the stack of in-scope prefix bindings (ns_ prefix for
 * file-local names). The reader (reader_batch.c) splits QNames and checks the
 * namespace constraints; this file keeps the bindings and their strings.
 *
 * All of it lives in one buffer of at most max_ns_bytes: the strings grow up
 * from its start, the binding records down from its end. Events of the
 * current batch may point at the strings of bindings that went out of scope,
 * so those are only reclaimed between batches (stax__ns_reclaim), when the
 * strings still in scope are moved together again. The bytes in scope, and so
 * whether a push fits, therefore never depend on where batches end. */
#include "namespaces.h"
#ifndef STAX_NO_NAMESPACES /* else omitted.c stands in */

#define NS_NONE UINT32_MAX
/* Up to this many bindings in scope a lookup walks them all (cheaper than a
 * hash); beyond, it walks one hash bucket. */
#define NS_WALK 16u
/* What the fast path's fields (stax__ns: dflt, top) want, left out of builds
 * for size, which read namespaces the general way alone. */
#ifdef STAX__SMALL
#define NS_FAST(stmts)
#else
#define NS_FAST(stmts) do { stmts; } while (0)
#endif


#define NS_REC sizeof(stax__ns_rec)

size_t stax__ns_cost(size_t prefix_len, size_t uri_len) { return prefix_len + uri_len + NS_REC; }

size_t stax__ns_buckets(size_t max_bytes) {
    size_t most = max_bytes / NS_REC, b = 16;
    while (b < most / 2 && b < ((size_t)1 << 24)) b *= 2;
    return b;
}

#define ns_rec stax__ns_rec_at

int stax__ns_init(stax__ns *ns, stax__mem *mem, size_t max_bytes) {
    memset(ns, 0, sizeof *ns);
    ns->mem = mem;
    ns->max = max_bytes;
    ns->nbuckets = stax__ns_buckets(max_bytes);
    ns->dflt = NS_NONE;
    stax__hash_key_init(&ns->key, ns);
    ns->heads = (uint32_t *)stax__mem_alloc(mem, ns->nbuckets * sizeof *ns->heads);
    if (!ns->heads) return -1;
    for (size_t i = 0; i < ns->nbuckets; i++) ns->heads[i] = NS_NONE;
    if (mem->block) { /* a fixed block: the whole buffer now, never grown */
        ns->cap = stax__ns_buffer_size(max_bytes);
        ns->buf = (char *)stax__mem_alloc(mem, ns->cap);
        if (!ns->buf) return -1;
    }
    return 0;
}

void stax__ns_free(stax__ns *ns) {
    if (!ns->mem) return;
    stax__mem_free(ns->mem, ns->buf, ns->cap);
    stax__mem_free(ns->mem, ns->heads, ns->nbuckets * sizeof *ns->heads);
    memset(ns, 0, sizeof *ns);
}

void stax__ns_reset(stax__ns *ns) {
    ns->low = ns->live = ns->n = ns->clean = 0;
    ns->dflt = NS_NONE;
    ns->top = 0;
    for (size_t i = 0; i < ns->nbuckets; i++) ns->heads[i] = NS_NONE;
}

static uint32_t ns_hash(const stax__ns *ns, stax_str prefix) {
    uint64_t h = stax__hash(&ns->key, prefix.ptr, prefix.len);
    return (uint32_t)(h ^ (h >> 32));
}

/* The buffer for a budget of max bytes: records stay aligned. */
size_t stax__ns_buffer_size(size_t max_bytes) {
    return max_bytes > SIZE_MAX - 15 ? SIZE_MAX : (max_bytes + 15) & ~(size_t)15;
}

/* Room for `need` more bytes: 1 when the bindings in scope would pass the
 * budget; else make the buffer hold them, growing it (allocator only, and
 * only when nothing points into it), 0, 1 (full of strings not reclaimed
 * yet), or STAX_E_NOMEM. */
static int ns_room(stax__ns *ns, size_t need, int can_grow) {
    size_t in_scope = ns->live + ns->n * NS_REC, used = ns->low + ns->n * NS_REC;
    if (in_scope > ns->max || need > ns->max - in_scope) return 1;
    if (ns->cap - used >= need) return 0;
    size_t top = stax__ns_buffer_size(ns->max);
    if (!can_grow || ns->mem->block || need > top - used) return 1;
    size_t ncap = ns->cap ? ns->cap : 1024;
    while (ncap - used < need) ncap = ncap > top / 2 ? top : ncap * 2;
    if (ncap > top) ncap = top;
    char *nb = (char *)stax__mem_realloc(ns->mem, ns->buf, ns->cap, ncap);
    if (!nb) return STAX_E_NOMEM;
    /* the records move to the new end */
    memmove(nb + ncap - ns->n * NS_REC, nb + ns->cap - ns->n * NS_REC, ns->n * NS_REC);
    ns->buf = nb;
    ns->cap = ncap;
    return 0;
}

int stax__ns_push(stax__ns *ns, stax_str prefix, stax_str uri, uint32_t depth, int can_grow) {
    size_t need = stax__ns_cost(prefix.len, uri.len);
    if (need < NS_REC || ns->n >= NS_NONE) return 1;
    int rc = ns_room(ns, need, can_grow);
    if (rc) return rc;
    stax__out o = stax__out_make(ns->buf + ns->low, ns->cap - ns->low - (ns->n + 1) * NS_REC);
    stax__out_put(&o, prefix.ptr, prefix.len);
    stax__out_put(&o, uri.ptr, uri.len);
    if (o.over) return 1; /* cannot happen: ns_room made room */
    if (ns->clean == ns->n && ns->low == ns->live) ns->clean++; /* still packed from the start */
    stax__ns_rec *b = ns_rec(ns, ns->n);
    b->off = ns->low;
    b->prefix_len = prefix.len;
    b->uri_len = uri.len;
    b->depth = depth;
    b->hash = ns_hash(ns, prefix);
    uint32_t *head = &ns->heads[b->hash & (ns->nbuckets - 1)];
    b->next = *head;
    *head = (uint32_t)ns->n;
    NS_FAST(b->prev_dflt = ns->dflt; if (!prefix.len) ns->dflt = (uint32_t)ns->n; ns->top = depth);
    ns->n++;
    ns->low += prefix.len + uri.len;
    ns->live += prefix.len + uri.len;
    return 0;
}

void stax__ns_pop(stax__ns *ns, uint32_t depth) {
    while (ns->n && ns_rec(ns, ns->n - 1)->depth >= depth) {
        const stax__ns_rec *b = ns_rec(ns, --ns->n);
        ns->heads[b->hash & (ns->nbuckets - 1)] = b->next; /* it was the newest of its bucket */
        ns->live -= b->prefix_len + b->uri_len;
        NS_FAST(ns->dflt = b->prev_dflt);
    }
    NS_FAST(ns->top = ns->n ? ns_rec(ns, ns->n - 1)->depth : 0);
    if (ns->clean > ns->n) ns->clean = ns->n;
}

void stax__ns_reclaim(stax__ns *ns) {
    if (ns->low != ns->live) { /* strings of bindings that left scope lie between those in scope */
        size_t dst = 0;
        if (ns->clean) {
            const stax__ns_rec *c = ns_rec(ns, ns->clean - 1);
            dst = c->off + c->prefix_len + c->uri_len;
        }
        for (size_t i = ns->clean; i < ns->n; i++) {
            stax__ns_rec *b = ns_rec(ns, i);
            size_t len = b->prefix_len + b->uri_len;
            if (b->off != dst) memmove(ns->buf + dst, ns->buf + b->off, len);
            b->off = dst;
            dst += len;
        }
        ns->low = dst;
    }
    ns->clean = ns->n;
}

size_t stax__ns_bytes(const stax__ns *ns) { return ns->live + ns->n * NS_REC; }

void stax__ns_binding(const stax__ns *ns, size_t i, stax_str *prefix, stax_str *uri, uint32_t *depth) {
    const stax__ns_rec *b = ns_rec(ns, i);
    prefix->ptr = ns->buf + b->off;
    prefix->len = b->prefix_len;
    uri->ptr = ns->buf + b->off + b->prefix_len;
    uri->len = b->uri_len;
    *depth = b->depth;
}

static int ns_match(const stax__ns *ns, const stax__ns_rec *b, stax_str prefix, stax_str *uri) {
    if (b->prefix_len != prefix.len || memcmp(ns->buf + b->off, prefix.ptr, prefix.len) != 0) return 0;
    uri->ptr = ns->buf + b->off + b->prefix_len;
    uri->len = b->uri_len;
    return 1;
}

int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri) {
    if (ns->n <= NS_WALK) {
        for (size_t i = ns->n; i-- > 0;)
            if (ns_match(ns, ns_rec(ns, i), prefix, uri)) return prefix.len && !uri->len ? -1 : 0;
    } else {
        uint32_t h = ns_hash(ns, prefix);
        for (uint32_t i = ns->heads[h & (ns->nbuckets - 1)]; i != NS_NONE; i = ns_rec(ns, i)->next) {
            const stax__ns_rec *b = ns_rec(ns, i);
            if (b->hash == h && ns_match(ns, b, prefix, uri)) return prefix.len && !uri->len ? -1 : 0;
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
#else
typedef int stax__namespaces_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_NAMESPACES */

/* Split a QName into prefix and local part. Returns 0, or -1 if it is not a
 * QName of Namespaces 1.0 (one colon at most, both parts NCNames; the name
 * itself was checked as a Name). */
int stax__qname_split(stax_str name, stax_str *prefix, stax_str *local) {
    const char *c = (const char *)memchr(name.ptr, ':', name.len);
    prefix->ptr = name.ptr;
    prefix->len = 0;
    *local = name;
    if (!c) return 0;
    size_t k = (size_t)(c - name.ptr);
    if (k == 0 || k + 1 >= name.len || memchr(c + 1, ':', name.len - k - 1)) return -1;
    uint32_t cp;
    if (stax__utf8_decode((const unsigned char *)c + 1, name.len - k - 1, &cp) <= 0 || !stax__is_name_start(cp)) return -1;
    prefix->len = k;
    local->ptr = c + 1;
    local->len = name.len - k - 1;
    return 0;
}
