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
/* The largest region: the tables hold offsets in it, and an entity the
 * distance to its value, in 32 bits. */
#define DTD_MAX_REGION ((size_t)INT32_MAX)

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

/* A record's slot in a table: its offset in the region + 1; and back. */
static uint32_t dtd_off(const stax__dtd *d, const void *rec) {
    return (uint32_t)((const char *)rec - (const char *)d->region) + 1;
}
static void *dtd_at(const stax__dtd *d, uint32_t v) { return (char *)d->region + (v - 1); }

/* Insert v (not 0) into an open-addressing table of count values. The table
 * doubles when count reaches full / 8 of it (a power of two); when the
 * region has no room for the larger table it goes on at up to seven eighths
 * full before it fails, so that growing never refuses what the region still
 * holds. */
static int dtd_hash_insert(stax__dtd *d, uint32_t **tab, size_t *cap, size_t count, unsigned full, uint32_t h,
                           uint32_t v, uint32_t (*rehash)(const stax__dtd *, uint32_t)) {
    if ((count + 1) * 8 > *cap * full) {
        size_t ncap = *cap ? *cap * 2 : 8;
        uint32_t *nt = ncap <= SIZE_MAX / sizeof *nt ? (uint32_t *)dtd_alloc(d, ncap * sizeof *nt) : NULL;
        if (nt) {
            memset(nt, 0, ncap * sizeof *nt);
            for (size_t i = 0; i < *cap; i++) {
                if (!(*tab)[i]) continue;
                size_t k = rehash(d, (*tab)[i]) & (ncap - 1);
                while (nt[k]) k = (k + 1) & (ncap - 1);
                nt[k] = (*tab)[i];
            }
            stax__mem_free(&d->mem, *tab, *cap * sizeof **tab);
            *tab = nt;
            *cap = ncap;
        } else if ((count + 1) * 8 > *cap * 7) {
            return -1;
        }
    }
    size_t k = h & (*cap - 1);
    while ((*tab)[k]) k = (k + 1) & (*cap - 1);
    (*tab)[k] = v;
    return 0;
}
/* How full the tables go before they double, in eighths: the entities' to
 * three quarters (a DTD may declare thousands of them, and each slot is 4
 * bytes of max_dtd), the others, looked up at every start tag with an
 * ATTLIST, to half. */
#define DTD_FULL_ENTS 6u
#define DTD_FULL 4u

static uint32_t dtd_ent_rehash(const stax__dtd *d, uint32_t v) {
    const stax__entity *e = (const stax__entity *)dtd_at(d, v);
    return dtd_hash(d, e->name.ptr, e->name.len, stax__ent_is(e, STAX__ENT_PE));
}
static uint32_t dtd_elem_rehash(const stax__dtd *d, uint32_t v) {
    const stax__dtd_elem_def *e = (const stax__dtd_elem_def *)dtd_at(d, v);
    return dtd_hash(d, e->name.ptr, e->name.len, 7);
}
/* Attribute definitions hash by their name and their element. */
static uint32_t dtd_att_hash(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len) {
    return dtd_hash(d, name, len, 11) ^ (elem->id * 0x85ebca6bu);
}
static uint32_t dtd_att_rehash(const stax__dtd *d, uint32_t v) {
    const stax__attdef *a = (const stax__attdef *)dtd_at(d, v);
    return dtd_att_hash(d, a->elem, a->name.ptr, a->name.len);
}

/* Notations hash by name; the table holds index + 1 into the array (not in
 * builds for size: stax__dtd_has_notation). */
#ifndef STAX__SMALL
static uint32_t dtd_not_rehash(const stax__dtd *d, uint32_t v) {
    const stax_decl *n = &d->notations[v - 1];
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

/* ================================================================ entities
 * An entity is one record (dtd.h): its head, then the value's length, the
 * name, the value (or how far back it is) and an external entity's ids,
 * packed. A short value, the latest string stored (the parser builds it in
 * the region just before), moves into the record; a longer one stays where
 * it is. So an entity keeps its strings and 18 bytes (on 64-bit targets),
 * and an 8-byte alignment; nothing twice. */

static size_t dtd_uint_len(size_t v) {
    size_t n = 1;
    while (v >>= 7) n++;
    return n;
}

static unsigned char *dtd_put_uint(unsigned char *p, size_t v) {
    for (; v >= 0x80; v >>= 7) *p++ = (unsigned char)(v | 0x80);
    *p++ = (unsigned char)v;
    return p;
}

/* An external entity's public id, system id, notation and base: the last
 * four fields of stax__entity_decl, copied as they are. */
#define DTD_ENT_IDS (4 * sizeof(stax_str))
typedef char dtd_ent_ids_together[offsetof(stax__entity_decl, base) - offsetof(stax__entity_decl, pubid) == 3 * sizeof(stax_str) &&
                                          sizeof(stax__entity_decl) >= offsetof(stax__entity_decl, pubid) + DTD_ENT_IDS
                                      ? 1
                                      : -1];
#define DTD_ENT_INLINE 64u                  /* the longest value moved into its record */

stax__entity *stax__dtd_add_entity(stax__dtd *d, const stax__entity_decl *e) {
    size_t nl = e->name.len, vl = e->value.len, ext = (e->flags & STAX__ENT_EXTERNAL) ? DTD_ENT_IDS : 0;
    if (nl > d->max || vl > d->max) return NULL;
    char moved[DTD_ENT_INLINE];
    const char *v = e->value.ptr;
    int far = vl > DTD_ENT_INLINE || v + vl != d->cur; /* (an empty value is "inline") */
    if (!far && vl) {
        memcpy(moved, v, vl);
        stax__dtd_unstore(d, vl);
        v = moved;
    }
    size_t body = dtd_uint_len(vl) + nl + (far ? sizeof(int32_t) : vl) + ext;
    unsigned char *rec = (unsigned char *)stax__dtd_record(d, STAX__ENT_BODY + body);
    if (!rec) return NULL;
    stax__entity *r = (stax__entity *)(void *)rec;
    unsigned char *p = dtd_put_uint(rec + STAX__ENT_BODY, vl);
    memcpy(p, e->name.ptr, nl);
    r->name.ptr = (const char *)p;
    r->name.len = (uint32_t)nl;
    p += nl;
    if (far) { /* in the region, which is at most DTD_MAX_REGION bytes */
        int32_t back = (int32_t)(v - (const char *)rec);
        memcpy(p, &back, sizeof back);
        p += sizeof back;
    } else if (vl) {
        memcpy(p, v, vl);
        v = (const char *)p;
        p += vl;
    }
    unsigned flags = e->flags & (STAX__ENT_PE | STAX__ENT_EXTERNAL | STAX__ENT_UNPARSED | STAX__ENT_EXT_DECL);
    if (far) flags |= STAX__ENT_FAR;
    if (!(flags & (STAX__ENT_EXTERNAL | STAX__ENT_PE)) && dtd_plain_text(v, vl)) flags |= STAX__ENT_PLAIN;
    r->flags = (unsigned char)flags;
    if (ext) memcpy(p, &e->pubid, DTD_ENT_IDS); /* pubid, sysid, notation, base */
    if (dtd_hash_insert(d, &d->ent_hash, &d->ent_hash_cap, d->n_ents, DTD_FULL_ENTS,
                        dtd_hash(d, r->name.ptr, nl, (flags & STAX__ENT_PE) != 0), dtd_off(d, r), dtd_ent_rehash))
        return NULL;
    uint32_t self = dtd_off(d, r);
    stax__entity *last = d->ent_last ? (stax__entity *)dtd_at(d, d->ent_last) : r;
    r->name.next = last == r ? self : last->name.next; /* the first (itself, alone) */
    last->name.next = self;
    d->ent_last = self;
    d->n_ents++;
    return r;
}

void stax__ent_ids(const stax__entity *e, stax__entity_decl *out) {
    memset(out, 0, sizeof *out);
    out->flags = e->flags;
    out->name = stax__ent_name(e);
    out->value = stax__ent_value(e);
    if (stax__ent_is(e, STAX__ENT_EXTERNAL)) {
        size_t after = stax__ent_is(e, STAX__ENT_FAR) ? sizeof(int32_t) : out->value.len;
        memcpy(&out->pubid, e->name.ptr + e->name.len + after, DTD_ENT_IDS);
    } else {
        out->pubid.ptr = out->sysid.ptr = out->notation.ptr = out->base.ptr = "";
    }
}

stax__entity *stax__ent_first(const stax__dtd *d) {
    return d->ent_last ? (stax__entity *)dtd_at(d, ((const stax__entity *)dtd_at(d, d->ent_last))->name.next) : NULL;
}

stax__entity *stax__ent_next(const stax__dtd *d, const stax__entity *e) {
    return dtd_off(d, e) == d->ent_last ? NULL : (stax__entity *)dtd_at(d, e->name.next);
}

/* ================================================================ insertion
 * The one way a declaration enters the tables: from the parser (dtd.c), and
 * from reader_context.c when it rebuilds a saved DTD (its strings already in
 * the region through stax__dtd_store). NULL or -1 when the region is full. */

int stax__dtd_add_unparsed(stax__dtd *d, const stax__entity *e) {
    if (stax__dtd_grow(d, (void **)&d->unparsed, &d->cap_unp, sizeof *d->unparsed, d->n_unp + 1)) return -1;
    stax__entity_decl all;
    stax__ent_ids(e, &all);
    stax_decl *u = &d->unparsed[d->n_unp++];
    u->name = all.name;
    u->pubid = all.pubid;
    u->sysid = all.sysid;
    u->notation = all.notation;
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
    if (dtd_hash_insert(d, &d->elem_hash, &d->elem_hash_cap, d->n_elems, DTD_FULL, dtd_hash(d, kept, name.len, 7),
                        dtd_off(d, el), dtd_elem_rehash))
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
    if (dtd_hash_insert(d, &d->att_hash, &d->att_hash_cap, d->n_atts, DTD_FULL, dtd_att_hash(d, el, rec->name.ptr, rec->name.len),
                        dtd_off(d, rec), dtd_att_rehash))
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
    if (d->n_not >= UINT32_MAX - 1 ||
        dtd_hash_insert(d, &d->not_hash, &d->not_hash_cap, d->n_not, DTD_FULL, dtd_hash(d, n->name.ptr, n->name.len, 13),
                        (uint32_t)(d->n_not + 1), dtd_not_rehash))
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
    d->max = o->max_dtd < DTD_MAX_REGION ? o->max_dtd : DTD_MAX_REGION; /* (32-bit offsets) */
    d->max_depth = o->max_entity_depth;
    d->amplification = o->entity_amplification;
    d->threshold = o->entity_threshold;
    d->max_token = o->max_token;
    d->max_name = o->max_name;
}


void stax__dtd_reset(stax__dtd *d, const stax_reader_options *o) {
    stax__dtd keep = *d;
    unsigned char no_colons = d->no_colons;
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
    for (uint32_t v; (v = d->ent_hash[k]) != 0; k = (k + 1) & (d->ent_hash_cap - 1)) {
        stax__entity *e = (stax__entity *)dtd_at(d, v);
        if (stax__ent_is(e, STAX__ENT_PE) == (pe != 0) && e->name.len == len && memcmp(e->name.ptr, name, len) == 0)
            return e;
    }
    return NULL;
}

const stax__dtd_elem_def *stax__dtd_elem(const stax__dtd *d, const char *name, size_t len) {
    if (!d->elem_hash_cap) return NULL;
    size_t k = dtd_hash(d, name, len, 7) & (d->elem_hash_cap - 1);
    for (uint32_t v; (v = d->elem_hash[k]) != 0; k = (k + 1) & (d->elem_hash_cap - 1)) {
        const stax__dtd_elem_def *e = (const stax__dtd_elem_def *)dtd_at(d, v);
        if (e->name.len == len && memcmp(e->name.ptr, name, len) == 0) return e;
    }
    return NULL;
}

stax__attdef *stax__dtd_attdef(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len) {
    if (!d->att_hash_cap) return NULL;
    size_t k = dtd_att_hash(d, elem, name, len) & (d->att_hash_cap - 1);
    for (uint32_t v; (v = d->att_hash[k]) != 0; k = (k + 1) & (d->att_hash_cap - 1)) {
        stax__attdef *a = (stax__attdef *)dtd_at(d, v);
        if (a->elem == elem && a->name.len == len && memcmp(a->name.ptr, name, len) == 0) return a;
    }
    return NULL;
}

#ifndef STAX__SMALL
int stax__dtd_has_notation(const stax__dtd *d, const char *name, size_t len) {
    if (!d->not_hash_cap) return 0;
    size_t k = dtd_hash(d, name, len, 13) & (d->not_hash_cap - 1);
    for (uint32_t v; (v = d->not_hash[k]) != 0; k = (k + 1) & (d->not_hash_cap - 1)) {
        const stax_decl *n = &d->notations[v - 1];
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
