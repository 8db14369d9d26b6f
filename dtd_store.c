/* The DTD's tables: the region every declaration is kept in (strings and
 * records in chunks), and the hash tables of entities, elements and
 * attribute definitions with their insertion and lookup. The parser
 * (dtd.c) and the entity expansion (entities.c) sit above it. */
#include "dtd.h"

#ifndef STAX_NO_DTD /* else omitted.c stands in */

struct stax__dtd_chunk {
    stax__dtd_chunk *next;
    size_t size;
};

#define DTD_CHUNK 1024u
/* The alignment of the records in the chunks: what their fields need (no
 * record holds anything wider than a pointer, a size_t or a uint64_t). */
#define DTD_ALIGN 8u

/* ================================================================ storage
 * Everything the DTD keeps lives in one region of max_dtd bytes, a fixed
 * block of its own (carved from the reader's block, or allocated with the
 * reader's allocator at the first internal subset): the limit is exactly
 * what fits there, whatever the allocator. */

int stax__dtd_reserve(stax__dtd *d) {
    if (d->region) return 0;
    d->region = stax__mem_alloc(d->outer, d->max);
    if (!d->region) return STAX_E_NOMEM;
    if (stax__mem_init(&d->mem, NULL, NULL, d->region, d->max)) d->mem.block = NULL; /* too small: holds nothing */
    return 0;
}

static void *dtd_alloc(stax__dtd *d, size_t n) { return d->mem.block ? stax__mem_alloc(&d->mem, n) : NULL; }

/* The size of the chunks strings and records are kept in: DTD_CHUNK, a
 * 1024th of a large region (so that a region never holds more than about
 * a thousand chunks, which every allocation in it may walk), an eighth of a
 * small one (so that it holds declarations, not one chunk), but never less
 * than a record and its name. */
static size_t dtd_chunk_size(const stax__dtd *d) {
    size_t c = d->max / 1024 > DTD_CHUNK ? d->max / 1024 : DTD_CHUNK;
    if (c > d->max / 8) c = d->max / 8;
    return c < 128 ? 128 : c;
}

char *stax__dtd_store(stax__dtd *d, const char *s, size_t n) {
    static char empty[1];
    if (n == 0) return empty; /* never NULL, and no arithmetic on a NULL cursor */
    if (n > d->cur_left) {
        size_t size = n > dtd_chunk_size(d) ? n : dtd_chunk_size(d);
        stax__dtd_chunk *ch = size <= SIZE_MAX - sizeof *ch ? (stax__dtd_chunk *)dtd_alloc(d, sizeof *ch + size) : NULL;
        if (!ch && size > n) ch = (stax__dtd_chunk *)dtd_alloc(d, sizeof *ch + (size = n)); /* the last bytes of the region */
        if (!ch) return NULL;
        ch->next = d->chunks;
        ch->size = size;
        d->chunks = ch;
        d->cur = (char *)(ch + 1);
        d->cur_left = size;
    }
    char *out = d->cur;
    if (s) memcpy(out, s, n);
    d->cur += n;
    d->cur_left -= n;
    return out;
}

/* A record (an entity, an attdef, an element) of n bytes, aligned, in the
 * chunks: it never moves, and nothing is copied when the tables grow. */
void *stax__dtd_record(stax__dtd *d, size_t n) {
    size_t pad = (size_t)(-(uintptr_t)d->cur & (DTD_ALIGN - 1));
    if (d->cur && pad + n <= d->cur_left) {
        d->cur += pad;
        d->cur_left -= pad;
    } else {
        d->cur_left = 0; /* a new chunk, which starts aligned */
    }
    void *p = stax__dtd_store(d, NULL, n);
    if (p && ((uintptr_t)p & (DTD_ALIGN - 1))) return NULL; /* cannot happen: chunks start aligned */
    return p;
}

/* Give back the last `unused` bytes of the latest dtd_store. */
void stax__dtd_unstore(stax__dtd *d, size_t unused) {
    if (!unused) return; /* (an empty string was never in the chunks) */
    d->cur -= unused;
    d->cur_left += unused;
}

/* A value built in a window of the region (stax__mem_alloc_upto: the
 * largest free piece, because references may make it longer than its
 * literal, and what they enter may store meanwhile) goes to the chunks like
 * any string, and the window is given back. Kept as a piece of its own, each
 * such value would stay one more piece for every later window to walk:
 * quadratic in the declarations. Where the chunks have no room (the region
 * nearly full), the window, shrunk to the value, is kept. */
char *stax__dtd_settle(stax__dtd *d, char *win, size_t got, size_t used) {
    /* the value, shrunk to its bytes: where the shrink put it (the region
     * shrinks in place, but nothing here relies on it); 0 bytes: freed */
    char *v = (char *)stax__mem_realloc(&d->mem, win, got, used);
    char *k = stax__dtd_store(d, v, used); /* (0 bytes: "", v not read; else NULL only when the region is full) */
    if (!k) return v;
    if (used) stax__mem_free(&d->mem, v, used);
    return k;
}

/* A stored value ends at the cursor; a kept window never does (it is a
 * piece of its own, and the cursor is inside the chunk's piece). */
void stax__dtd_drop(stax__dtd *d, const char *s, size_t n) {
    if (!n) return;
    if (s + n == d->cur) stax__dtd_unstore(d, n);
    else stax__mem_free(&d->mem, (void *)(uintptr_t)s, n);
}

/* Store a public or system id with its line ends normalized (2.11): the
 * subset text is raw, and the caller must see LF only. */
char *stax__dtd_store_id(stax__dtd *d, const char *s, size_t n, size_t *out_len) {
    char *o = stax__dtd_store(d, NULL, n);
    if (!o) return NULL;
    stax__out w = stax__out_make(o, n);
    stax__out_eol(&w, s, n);
    if (w.over) return NULL; /* cannot happen: normalizing never lengthens */
    *out_len = (size_t)(w.p - o);
    stax__dtd_unstore(d, n - *out_len); /* give back what normalizing saved */
    return o;
}


/* Store a public id normalized (4.2.2): runs of white space one space,
 * none at either end. */
char *stax__dtd_store_pubid(stax__dtd *d, const char *s, size_t n, size_t *out_len) {
    char *o = stax__dtd_store(d, NULL, n);
    if (!o) return NULL;
    stax__out w = stax__out_make(o, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && stax__is_ws((unsigned char)s[j])) j++;
        if (j > i && i > 0 && j < n) stax__out_byte(&w, ' ');
        for (i = j; j < n && !stax__is_ws((unsigned char)s[j]); j++) continue;
        stax__out_put(&w, s + i, j - i);
        i = j;
    }
    if (w.over) return NULL; /* cannot happen: normalizing never lengthens */
    *out_len = (size_t)(w.p - o);
    stax__dtd_unstore(d, n - *out_len);
    return o;
}

int stax__dtd_grow(stax__dtd *d, void **arr, size_t *cap, size_t elem, size_t need) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 4;
    while (ncap < need) ncap *= 2;
    if (ncap > SIZE_MAX / elem || !d->mem.block) return -1;
    void *p = stax__mem_realloc(&d->mem, *arr, *cap * elem, ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Names hash under the DTD's key (see stax__hash); salt keeps parameter and
 * general entities of one name apart. */
static uint32_t dtd_hash(const stax__dtd *d, const char *s, size_t n, int salt) {
    uint64_t h = stax__hash(&d->key, s, n);
    return (uint32_t)(h ^ (h >> 32)) ^ (uint32_t)salt * 0x9e3779b9u;
}

/* Insert rec into an open-addressing table of records keyed by their names.
 * The table doubles at half full; when the region has no room for the
 * larger table it goes on at up to seven eighths full before it fails, so
 * that growing never refuses what the region still holds. */
static int dtd_hash_insert(stax__dtd *d, void ***tab, size_t *cap, size_t count, uint32_t h, void *rec,
                           uint32_t (*rehash)(const stax__dtd *, const void *)) {
    if ((count + 1) * 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        void **nt = ncap <= SIZE_MAX / sizeof(void *) ? (void **)dtd_alloc(d, ncap * sizeof(void *)) : NULL;
        if (nt) {
            memset(nt, 0, ncap * sizeof(void *));
            for (size_t i = 0; i < *cap; i++) {
                if (!(*tab)[i]) continue;
                size_t k = rehash(d, (*tab)[i]) & (ncap - 1);
                while (nt[k]) k = (k + 1) & (ncap - 1);
                nt[k] = (*tab)[i];
            }
            stax__mem_free(&d->mem, *tab, *cap * sizeof(void *));
            *tab = nt;
            *cap = ncap;
        } else if ((count + 1) * 8 > *cap * 7) {
            return -1;
        }
    }
    size_t k = h & (*cap - 1);
    while ((*tab)[k]) k = (k + 1) & (*cap - 1);
    (*tab)[k] = rec;
    return 0;
}

static uint32_t dtd_ent_rehash(const stax__dtd *d, const void *rec) {
    const stax__entity *e = (const stax__entity *)rec;
    return dtd_hash(d, e->name.ptr, e->name.len, e->pe);
}
static uint32_t dtd_elem_rehash(const stax__dtd *d, const void *rec) {
    const stax__dtd_elem_def *e = (const stax__dtd_elem_def *)rec;
    return dtd_hash(d, e->name.ptr, e->name.len, 7);
}
/* Attribute definitions hash by their name and their element. */
static uint32_t dtd_att_hash(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len) {
    return dtd_hash(d, name, len, 11) ^ (elem->id * 0x85ebca6bu);
}
static uint32_t dtd_att_rehash(const stax__dtd *d, const void *rec) {
    const stax__attdef *a = (const stax__attdef *)rec;
    return dtd_att_hash(d, a->elem, a->name.ptr, a->name.len);
}

/* Notations hash by name; the table holds index + 1 into the array (not in
 * builds for size: stax__dtd_has_notation). */
#ifndef STAX__SMALL
static uint32_t dtd_not_rehash(const stax__dtd *d, const void *rec) {
    const stax_decl *n = &d->notations[(uintptr_t)rec - 1];
    return dtd_hash(d, n->name.ptr, n->name.len, 13);
}
#endif

/* The plain entities: internal general ones whose value has no markup, no
 * reference and nothing to normalize, emitted as text without entering them. */
static int dtd_plain_text(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '<' || ch == '&' || ch == '\r' || ch == ']' || (ch < 0x20 && ch != '\t' && ch != '\n')) return 0;
    }
    int err = 0;
    return stax__check_chars(s, n, &err) == n;
}

/* ================================================================ insertion
 * The one way a declaration enters the tables: from the parser (dtd.c), and
 * from reader_context.c when it rebuilds a saved DTD (its strings already in
 * the region through stax__dtd_store). NULL or -1 when the region is full. */

stax__entity *stax__dtd_add_entity(stax__dtd *d, const stax__entity *e) {
    stax__entity *rec = (stax__entity *)stax__dtd_record(d, sizeof *rec);
    if (!rec) return NULL;
    *rec = *e;
    rec->busy = 0;
    rec->plain = !e->external && !e->pe && dtd_plain_text(e->value.ptr, e->value.len);
    if (dtd_hash_insert(d, &d->ent_hash, &d->ent_hash_cap, d->n_ents, dtd_ent_rehash(d, rec), rec, dtd_ent_rehash))
        return NULL;
    d->n_ents++;
    return rec;
}

int stax__dtd_add_unparsed(stax__dtd *d, const stax__entity *e) {
    if (stax__dtd_grow(d, (void **)&d->unparsed, &d->cap_unp, sizeof *d->unparsed, d->n_unp + 1)) return -1;
    stax_decl *u = &d->unparsed[d->n_unp++];
    u->name = e->name;
    u->pubid = e->pubid;
    u->sysid = e->sysid;
    u->notation = e->notation;
    return 0;
}

stax__dtd_elem_def *stax__dtd_add_elem(stax__dtd *d, stax_str name) {
    char *kept = stax__dtd_store(d, name.ptr, name.len);
    stax__dtd_elem_def *el =
        kept && d->n_elems < UINT32_MAX - 1 ? (stax__dtd_elem_def *)stax__dtd_record(d, sizeof *el) : NULL;
    if (!el) return NULL;
    memset(el, 0, sizeof *el);
    el->name.ptr = kept;
    el->name.len = name.len;
    el->id = (uint32_t)d->n_elems;
    if (dtd_hash_insert(d, &d->elem_hash, &d->elem_hash_cap, d->n_elems, dtd_elem_rehash(d, el), el, dtd_elem_rehash))
        return NULL;
    el->next = d->elem_list;
    d->elem_list = el;
    d->elem_lens |= (uint64_t)1 << (name.len & 63);
    d->n_elems++;
    return el;
}

/* Appended at the end of the element's list, keeping declaration order. */
int stax__dtd_add_attdef(stax__dtd *d, stax__dtd_elem_def *el, const stax__attdef *a) {
    stax__attdef *rec = (stax__attdef *)stax__dtd_record(d, sizeof *rec);
    if (!rec) return -1;
    *rec = *a;
    rec->next = NULL;
    rec->elem = el;
    rec->stamp = 0;
    if (dtd_hash_insert(d, &d->att_hash, &d->att_hash_cap, d->n_atts, dtd_att_rehash(d, rec), rec, dtd_att_rehash))
        return -1;
    d->n_atts++;
    if (!el->last) el->first = rec;
    else el->last->next = rec;
    el->last = rec;
    return 0;
}

int stax__dtd_add_notation(stax__dtd *d, const stax_decl *n) {
    if (stax__dtd_grow(d, (void **)&d->notations, &d->cap_not, sizeof *d->notations, d->n_not + 1)) return -1;
    d->notations[d->n_not] = *n;
#ifndef STAX__SMALL
    void *rec = (void *)(uintptr_t)(d->n_not + 1);
    if (dtd_hash_insert(d, &d->not_hash, &d->not_hash_cap, d->n_not, dtd_not_rehash(d, rec), rec, dtd_not_rehash))
        return -1;
#endif
    d->n_not++;
    return 0;
}

int stax__dtd_add_pi(stax__dtd *d, const stax_dtd_pi *pi) {
    if (stax__dtd_grow(d, (void **)&d->pis, &d->cap_pis, sizeof *d->pis, d->n_pis + 1)) return -1;
    d->pis[d->n_pis++] = *pi;
    return 0;
}

void stax__dtd_init(stax__dtd *d, stax__mem *outer, const stax_reader_options *o, stax__frame *frames,
                    stax__err *err) {
    memset(d, 0, sizeof *d);
    d->outer = outer;
    d->err = err;
    d->frames = frames;
    stax__hash_key_init(&d->key, d);
    d->max = o->max_dtd;
    d->max_depth = o->max_entity_depth;
    d->amplification = o->entity_amplification;
    d->threshold = o->entity_threshold;
    d->max_token = o->max_token;
    d->max_name = o->max_name;
}


void stax__dtd_reset(stax__dtd *d, const stax_reader_options *o) {
    stax__dtd keep = *d;
    int no_colons = d->no_colons;
    stax__dtd_init(d, keep.outer, o, keep.frames, keep.err);
    d->no_colons = no_colons;
    d->ext = keep.ext;
    if (keep.region) { /* the region stays, emptied */
        d->region = keep.region;
        if (stax__mem_init(&d->mem, NULL, NULL, d->region, d->max)) d->mem.block = NULL;
    }
}

void stax__dtd_free(stax__dtd *d) {
    if (d->region) stax__mem_free(d->outer, d->region, d->max);
    d->region = NULL;
}

stax__entity *stax__dtd_entity(const stax__dtd *d, const char *name, size_t len, int pe) {
    if (!d->ent_hash_cap) return NULL;
    size_t k = dtd_hash(d, name, len, pe) & (d->ent_hash_cap - 1);
    for (void *v; (v = d->ent_hash[k]) != NULL; k = (k + 1) & (d->ent_hash_cap - 1)) {
        stax__entity *e = (stax__entity *)v;
        if (e->pe == pe && e->name.len == len && memcmp(e->name.ptr, name, len) == 0) return e;
    }
    return NULL;
}

const stax__dtd_elem_def *stax__dtd_elem(const stax__dtd *d, const char *name, size_t len) {
    if (!d->elem_hash_cap) return NULL;
    size_t k = dtd_hash(d, name, len, 7) & (d->elem_hash_cap - 1);
    for (void *v; (v = d->elem_hash[k]) != NULL; k = (k + 1) & (d->elem_hash_cap - 1)) {
        const stax__dtd_elem_def *e = (const stax__dtd_elem_def *)v;
        if (e->name.len == len && memcmp(e->name.ptr, name, len) == 0) return e;
    }
    return NULL;
}

stax__attdef *stax__dtd_attdef(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len) {
    if (!d->att_hash_cap) return NULL;
    size_t k = dtd_att_hash(d, elem, name, len) & (d->att_hash_cap - 1);
    for (void *v; (v = d->att_hash[k]) != NULL; k = (k + 1) & (d->att_hash_cap - 1)) {
        stax__attdef *a = (stax__attdef *)v;
        if (a->elem == elem && a->name.len == len && memcmp(a->name.ptr, name, len) == 0) return a;
    }
    return NULL;
}

#ifndef STAX__SMALL
int stax__dtd_has_notation(const stax__dtd *d, const char *name, size_t len) {
    if (!d->not_hash_cap) return 0;
    size_t k = dtd_hash(d, name, len, 13) & (d->not_hash_cap - 1);
    for (void *v; (v = d->not_hash[k]) != NULL; k = (k + 1) & (d->not_hash_cap - 1)) {
        const stax_decl *n = &d->notations[(uintptr_t)v - 1];
        if (n->name.len == len && memcmp(n->name.ptr, name, len) == 0) return 1;
    }
    return 0;
}
#endif

uint32_t stax__dtd_clear_stamps(stax__dtd *d) {
    for (stax__dtd_elem_def *el = d->elem_list; el; el = el->next)
        for (stax__attdef *a = el->first; a; a = a->next) a->stamp = 0;
    return 1;
}

#else
typedef int stax__dtd_store_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_DTD */
