/* The DTD: the internal subset, and through the resolver the external
 * subset and external parameter entities. Every markup declaration is parsed
 * and checked for well-formedness; entities, attribute-list declarations and
 * notations are kept for the reader (dtd_ prefix for file-local names).
 *
 * A subset is parsed whole (the internal one once the DOCTYPE token is
 * complete, the external one once read), so this is a recursive-descent
 * parser over contiguous text. Parameter-entity references switch the parser
 * to the entity's text, one level of d->levels per entity (never C
 * recursion): between declarations (DeclSep), inside declarations of the
 * external subset and external parameter entities, where the text counts
 * with a space before and after it (4.4.8), and inside entity values there
 * (4.4.5). An error inside a parameter entity is reported at the outermost
 * reference in the internal subset (or at the DOCTYPE, for the external
 * subset), and its message says where in the innermost external entity. */
#include "stax_internal.h"

#include <stdarg.h>
#ifndef STAX_NO_DTD /* else omitted.c stands in */

struct stax__dtd_chunk {
    stax__dtd_chunk *next;
    size_t size;
};

#define DTD_CHUNK 1024u
/* The alignment of the records in the chunks: what their fields need (no
 * record holds anything wider than a pointer, a size_t or a uint64_t). */
#define DTD_ALIGN 8u

/* ================================================================ errors */

/* The kinds of levels of text. */
enum { DL_INTERNAL, /* the internal subset */
       DL_EXTERNAL, /* the external subset */
       DL_DECLSEP,  /* a parameter entity referenced between declarations */
       DL_INDECL,   /* ... inside a declaration ("included as PE") */
       DL_LITERAL   /* ... inside an entity value ("included in literal") */
};

/* One level of text: the subset (level 0), or a parameter entity's text. */
struct stax__dtd_level {
    const char *p, *end; /* where it stands while a level above it is read */
    const char *ref;     /* the '%' that entered it, in the level below */
    stax__entity *ent;   /* its entity, or NULL */
    stax__xtext *xt;     /* its external text, or NULL */
    stax_str base;       /* xt's base, copied into the region once a declaration needs it */
    int kind;            /* DL_* */
    int ext;             /* external context: references inside declarations, conditional sections */
    uint32_t sections;   /* INCLUDE sections open when it was entered */
};

typedef struct dtd_ctx {
    stax__dtd *d;
    const char *p, *end;  /* the text being read: the top level's */
    stax__dtd_level lv0;  /* level 0: the subset; the levels above are d->levels */
    uint32_t top;         /* the top level */
    uint32_t floor;       /* in a declaration: dtd_ws leaves no level at or below it */
    uint32_t sections;    /* INCLUDE sections open */
} dtd_ctx;

/* Where an error at `at` is reported in the document: in the internal
 * subset, at the outermost parameter-entity reference when it lies in an
 * entity; in the external subset, anywhere there (the reader reports the
 * DOCTYPE for a byte outside its token). */
static stax__dtd_level *dtd_lv(dtd_ctx *c, uint32_t k) { return k ? &c->d->levels[k - 1] : &c->lv0; }

static const char *dtd_anchor(dtd_ctx *c, const char *at) {
    return c->top && dtd_lv(c, 0)->kind == DL_INTERNAL ? dtd_lv(c, 1)->ref : at;
}

/* Name the innermost external entity in the message, with the line and
 * column of `at` in it (or of the reference that led out of it). */
static void dtd_where(dtd_ctx *c, const char *at) {
    for (uint32_t k = c->top + 1; k-- > 0;) {
        if (!dtd_lv(c, k)->xt) continue;
        stax__ext_where(dtd_lv(c, k)->xt, k == c->top ? at : dtd_lv(c, k + 1)->ref, c->d->err->msg, sizeof c->d->err->msg);
        return;
    }
}

static int dtd_fail(dtd_ctx *c, const char *at, int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int dtd_fail(dtd_ctx *c, const char *at, int code, const char *fmt, ...) {
    stax__dtd *d = c->d;
    if (d->status) return d->status;
    va_list ap;
    va_start(ap, fmt);
    stax__vfmt(d->err->msg, sizeof d->err->msg, fmt, ap);
    va_end(ap);
    d->status = code;
    d->err->code = code;
    d->err->at = dtd_anchor(c, at);
    dtd_where(c, at);
    if (code == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return code;
}
#ifdef STAX_NO_MESSAGES /* short messages: the sentences are not compiled in */
#define dtd_fail(c, at, code, ...) (STAX__NO_MESSAGE(__VA_ARGS__), dtd_fail((c), (at), (code), "%s", ""))
#endif

/* An error already in d->err (from entities.c): anchored like dtd_fail's.
 * where: name the external entity it is in (the loader's own errors already do). */
static int dtd_fail_err(dtd_ctx *c, int where) {
    stax__dtd *d = c->d;
    if (d->status) return d->status;
    const char *at = d->err->at;
    d->status = d->err->code;
    d->err->at = dtd_anchor(c, at);
    if (where) dtd_where(c, at);
    if (d->status == STAX_E_INTERNAL) STAX__INTERNAL_HIT();
    return d->status;
}

/* The region refused an allocation: the DTD is over max_dtd. */
static int dtd_too_big(dtd_ctx *c, const char *at) {
    return dtd_fail(c, at, STAX_E_LIMIT_DTD, "DTD larger than max_dtd (%zu bytes)", c->d->max);
}

static int dtd_clip(size_t n) { return n > 64 ? 64 : (int)n; }

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

/* The size of the chunks strings and records are kept in: DTD_CHUNK, or an
 * eighth of a small region (so that it holds declarations, not one chunk),
 * but never less than a record and its name. */
static size_t dtd_chunk_size(const stax__dtd *d) {
    size_t c = d->max / 8;
    return c > DTD_CHUNK ? DTD_CHUNK : c < 128 ? 128 : c;
}

static char *dtd_store(stax__dtd *d, const char *s, size_t n) {
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
static void *dtd_record(stax__dtd *d, size_t n) {
    size_t pad = (size_t)(-(uintptr_t)d->cur & (DTD_ALIGN - 1));
    if (d->cur && pad + n <= d->cur_left) {
        d->cur += pad;
        d->cur_left -= pad;
    } else {
        d->cur_left = 0; /* a new chunk, which starts aligned */
    }
    void *p = dtd_store(d, NULL, n);
    if (p && ((uintptr_t)p & (DTD_ALIGN - 1))) return NULL; /* cannot happen: chunks start aligned */
    return p;
}

/* Give back the last `unused` bytes of the latest dtd_store. */
static void dtd_unstore(stax__dtd *d, size_t unused) {
    if (!unused) return; /* (an empty string was never in the chunks) */
    d->cur -= unused;
    d->cur_left += unused;
}

/* Store a public or system id with its line ends normalized (2.11): the
 * subset text is raw, and the caller must see LF only. */
static char *dtd_store_id(stax__dtd *d, const char *s, size_t n, size_t *out_len) {
    char *o = dtd_store(d, NULL, n);
    if (!o) return NULL;
    stax__out w = stax__out_make(o, n);
    stax__out_eol(&w, s, n);
    if (w.over) return NULL; /* cannot happen: normalizing never lengthens */
    *out_len = (size_t)(w.p - o);
    dtd_unstore(d, n - *out_len); /* give back what normalizing saved */
    return o;
}

static int dtd_is_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Store a public id normalized (4.2.2): runs of white space one space,
 * none at either end. */
static char *dtd_store_pubid(stax__dtd *d, const char *s, size_t n, size_t *out_len) {
    char *o = dtd_store(d, NULL, n);
    if (!o) return NULL;
    stax__out w = stax__out_make(o, n);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && dtd_is_ws(s[j])) j++;
        if (j > i && i > 0 && j < n) stax__out_byte(&w, ' ');
        for (i = j; j < n && !dtd_is_ws(s[j]); j++) continue;
        stax__out_put(&w, s + i, j - i);
        i = j;
    }
    if (w.over) return NULL; /* cannot happen: normalizing never lengthens */
    *out_len = (size_t)(w.p - o);
    dtd_unstore(d, n - *out_len);
    return o;
}

static int dtd_grow(stax__dtd *d, void **arr, size_t *cap, size_t elem, size_t need) {
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

/* Count entity text the DTD parser goes through (parameter entities, and
 * entities in default values), so that nested references cannot make it
 * work without bound even when they expand to nothing. */
static int dtd_expand(dtd_ctx *c, const char *at, size_t n) {
    stax__dtd *d = c->d;
    d->expanded += n + 1;
    if (d->expanded > d->expand_budget) {
        stax__expand_fail(d->err, at, d->expanded, d->input, d->threshold, (uint32_t)d->amplification);
        return dtd_fail_err(c, 1);
    }
    return 0;
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

uint32_t stax__dtd_clear_stamps(stax__dtd *d) {
    for (stax__dtd_elem_def *el = d->elem_list; el; el = el->next)
        for (stax__attdef *a = el->first; a; a = a->next) a->stamp = 0;
    return 1;
}

/* ================================================================ keeping declarations
 * The one way a declaration enters the tables: from the parser, and from
 * reader_context.c when it rebuilds a saved DTD (the strings already kept
 * with stax__dtd_keep). NULL or -1 when the region is full. */

char *stax__dtd_keep(stax__dtd *d, const char *s, size_t n) { return dtd_store(d, s, n); }

static int dtd_plain_text(const char *s, size_t n);

stax__entity *stax__dtd_add_entity(stax__dtd *d, const stax__entity *e) {
    stax__entity *rec = (stax__entity *)dtd_record(d, sizeof *rec);
    if (!rec || dtd_hash_insert(d, &d->ent_hash, &d->ent_hash_cap, d->n_ents,
                                dtd_hash(d, e->name.ptr, e->name.len, e->pe), rec, dtd_ent_rehash))
        return NULL;
    *rec = *e;
    rec->busy = 0;
    rec->plain = !e->external && !e->pe && dtd_plain_text(e->value.ptr, e->value.len);
    d->n_ents++;
    return rec;
}

int stax__dtd_add_unparsed(stax__dtd *d, const stax__entity *e) {
    if (dtd_grow(d, (void **)&d->unparsed, &d->cap_unp, sizeof *d->unparsed, d->n_unp + 1)) return -1;
    stax_decl *u = &d->unparsed[d->n_unp++];
    u->name = e->name;
    u->pubid = e->pubid;
    u->sysid = e->sysid;
    u->notation = e->notation;
    return 0;
}

stax__dtd_elem_def *stax__dtd_add_elem(stax__dtd *d, stax_str name) {
    char *kept = dtd_store(d, name.ptr, name.len);
    stax__dtd_elem_def *el = kept && d->n_elems < UINT32_MAX - 1 ? (stax__dtd_elem_def *)dtd_record(d, sizeof *el) : NULL;
    if (!el) return NULL;
    memset(el, 0, sizeof *el);
    el->name.ptr = kept;
    el->name.len = name.len;
    el->id = (uint32_t)d->n_elems;
    if (dtd_hash_insert(d, &d->elem_hash, &d->elem_hash_cap, d->n_elems, dtd_hash(d, kept, name.len, 7), el,
                        dtd_elem_rehash))
        return NULL;
    el->next = d->elem_list;
    d->elem_list = el;
    d->elem_lens |= (uint64_t)1 << (name.len & 63);
    d->n_elems++;
    return el;
}

/* Appended at the end of the element's list, keeping declaration order. */
int stax__dtd_add_attdef(stax__dtd *d, stax__dtd_elem_def *el, const stax__attdef *a) {
    stax__attdef *rec = (stax__attdef *)dtd_record(d, sizeof *rec);
    if (!rec) return -1;
    *rec = *a;
    rec->next = NULL;
    rec->elem = el;
    rec->stamp = 0;
    if (dtd_hash_insert(d, &d->att_hash, &d->att_hash_cap, d->n_atts, dtd_att_hash(d, el, a->name.ptr, a->name.len),
                        rec, dtd_att_rehash))
        return -1;
    d->n_atts++;
    if (!el->last) el->first = rec;
    else el->last->next = rec;
    el->last = rec;
    return 0;
}

int stax__dtd_add_notation(stax__dtd *d, const stax_decl *n) {
    if (dtd_grow(d, (void **)&d->notations, &d->cap_not, sizeof *d->notations, d->n_not + 1)) return -1;
    d->notations[d->n_not++] = *n;
    return 0;
}

int stax__dtd_add_pi(stax__dtd *d, const stax_dtd_pi *pi) {
    if (dtd_grow(d, (void **)&d->pis, &d->cap_pis, sizeof *d->pis, d->n_pis + 1)) return -1;
    d->pis[d->n_pis++] = *pi;
    return 0;
}

/* ================================================================ lexical helpers */


static int dtd_pe_ref(dtd_ctx *c, int kind, int *entered);
static void dtd_leave(dtd_ctx *c);

/* A parameter-entity reference starts at c->p: '%' and a name start. */
static int dtd_at_pe_ref(dtd_ctx *c) {
    if (*c->p != '%' || c->p + 1 >= c->end) return 0;
    unsigned char ch = (unsigned char)c->p[1];
    return ch >= 0x80 || (stax__class[ch] & STAX__C_NSTART);
}

/* Skip whitespace inside a declaration; returns how much was skipped (> 0
 * when there was any). In the external subset and external parameter
 * entities, parameter-entity references are whitespace too: the parser goes
 * on in the entity's text, with a space before and after it (4.4.8). */
static size_t dtd_ws(dtd_ctx *c) {
    size_t n = 0;
    for (;;) {
        while (c->p < c->end && dtd_is_ws(*c->p)) c->p++, n++;
        if (c->d->status) return n;
        if (c->p >= c->end) {
            if (c->top <= c->floor) return n;
            dtd_leave(c);
            n++; /* the space after the entity's text */
            continue;
        }
        if (!dtd_at_pe_ref(c)) return n;
        int entered;
        if (!dtd_lv(c, c->top)->ext) {
            dtd_fail(c, c->p, STAX_E_DTD, "a parameter-entity reference is not allowed inside a declaration of the internal subset");
            return n;
        }
        if (dtd_pe_ref(c, DL_INDECL, &entered)) return n;
        n++; /* the space before it (an entity not read is a space too) */
    }
}

static int dtd_need_ws(dtd_ctx *c, const char *what) {
    if (!dtd_ws(c)) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required %s", what);
    return 0;
}

static int dtd_lit(dtd_ctx *c, const char *kw) {
    size_t n = strlen(kw);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, kw, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A Name (nmtoken: any NameChar first). Returns 0 and sets *out, or an error. */
static int dtd_name(dtd_ctx *c, stax_str *out, int nmtoken, const char *what) {
    const char *s = c->p;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x80) {
            if (!(stax__class[ch] & STAX__C_NAME)) break;
            c->p++;
            continue;
        }
        uint32_t cp;
        int l = stax__utf8_decode((const unsigned char *)c->p, (size_t)(c->end - c->p), &cp);
        if (l <= 0 || !stax__is_name_char(cp)) break;
        c->p += l;
    }
    size_t n = (size_t)(c->p - s);
    if (n == 0) return dtd_fail(c, s, STAX_E_DTD, "%s expected", what);
    if (!nmtoken && stax__check_name(s, n)) return dtd_fail(c, s, STAX_E_NAME, "invalid %s '%.*s'", what, dtd_clip(n), s);
    out->ptr = s;
    out->len = n;
    return 0;
}

static int dtd_quoted(dtd_ctx *c, stax_str *out, const char *what) {
    if (c->p >= c->end || (*c->p != '"' && *c->p != '\'')) return dtd_fail(c, c->p, STAX_E_DTD, "quoted %s expected", what);
    char q = *c->p++;
    const char *e = (const char *)memchr(c->p, q, (size_t)(c->end - c->p));
    if (!e) return dtd_fail(c, c->p - 1, STAX_E_DTD, "unterminated %s", what);
    out->ptr = c->p;
    out->len = (size_t)(e - c->p);
    c->p = e + 1;
    return 0;
}

static int dtd_pubid_ok(stax_str s) {
    for (size_t i = 0; i < s.len; i++) {
        unsigned char ch = (unsigned char)s.ptr[i];
        if (!stax__is_pubid_char(ch)) return 0;
    }
    return 1;
}

/* ExternalID (SYSTEM/PUBLIC), or for notations also a PublicID alone. Returns
 * 1 if none is there, 0 on success, or an error. */
static int dtd_external_id(dtd_ctx *c, stax_str *pub, stax_str *sys, int notation) {
    int is_pub;
    if (dtd_lit(c, "SYSTEM")) is_pub = 0;
    else if (dtd_lit(c, "PUBLIC")) is_pub = 1;
    else return 1;
    if (dtd_need_ws(c, "after SYSTEM or PUBLIC")) return c->d->status;
    if (is_pub) {
        const char *at = c->p;
        if (dtd_quoted(c, pub, "public id")) return c->d->status;
        if (!dtd_pubid_ok(*pub)) return dtd_fail(c, at, STAX_E_DTD, "character not allowed in a public id");
        size_t ws = dtd_ws(c);
        if (notation && (c->p >= c->end || (*c->p != '"' && *c->p != '\''))) return 0;
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before the system id");
    }
    if (dtd_quoted(c, sys, "system id")) return c->d->status;
    return 0; /* a fragment id ('#') is an error only for validity: accepted */
}

static int dtd_chars_ok(dtd_ctx *c, const char *s, size_t n) {
    int err = 0;
    size_t bad = stax__check_chars(s, n, &err);
    if (bad != n) return dtd_fail(c, s + bad, err, "character not allowed in the DTD");
    return 0;
}

/* ================================================================ declarations */

/* Replacement text that reads in content as one TEXT of itself: characters
 * only, none that text parsing looks at ('<', '&', CR, ']'). */
static int dtd_plain_text(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '<' || ch == '&' || ch == '\r' || ch == ']' || (ch < 0x20 && ch != '\t' && ch != '\n')) return 0;
    }
    int err = 0;
    return stax__check_chars(s, n, &err) == n;
}

/* The replacement text of an entity value from c->p on (4.5): character
 * references expanded, general entity references kept as written, and in
 * external context parameter-entity references included in literal (4.4.5):
 * their text read in place, as if written there. Stops at the end of the
 * level `bottom`. */
static int dtd_value_text(dtd_ctx *c, uint32_t bottom, stax__out *o) {
    for (;;) {
        if (c->p >= c->end) {
            if (c->top == bottom) return 0;
            dtd_leave(c);
            continue;
        }
        char ch = *c->p;
        if (ch == '%') {
            int entered;
            if (!dtd_lv(c, c->top)->ext)
                return dtd_fail(c, c->p, STAX_E_DTD,
                                "a parameter-entity reference is not allowed inside a declaration of the internal subset");
            if (dtd_pe_ref(c, DL_LITERAL, &entered)) return c->d->status;
            continue;
        }
        if (ch == '\r') { /* line ends were not normalized in the DOCTYPE token */
            stax__out_byte(o, '\n');
            c->p += (c->p + 1 < c->end && c->p[1] == '\n') ? 2 : 1;
            continue;
        }
        if (ch != '&') {
            stax__out_byte(o, ch);
            c->p++;
            continue;
        }
        const char *amp = c->p, *semi = (const char *)memchr(amp, ';', (size_t)(c->end - amp));
        if (!semi) return dtd_fail(c, amp, STAX_E_DTD, "reference without ';' in an entity value");
        size_t rl = (size_t)(semi - amp) + 1;
        if (rl > 1 && amp[1] == '#') {
            long v = stax__charref_value(amp, rl);
            if (v < 0) return dtd_fail(c, amp, STAX_E_CHARREF, "invalid character reference in an entity value");
            char u[4];
            stax__out_put(o, u, (size_t)stax__utf8_encode((uint32_t)v, u));
        } else {
            if (stax__check_name(amp + 1, rl - 2))
                return dtd_fail(c, amp, STAX_E_NAME, "invalid entity reference in an entity value");
            stax__out_put(o, amp, rl); /* general entity references are bypassed: kept as written */
        }
        c->p += rl;
        if (o->over) return 0;
    }
}

/* Replacement text of an EntityValue literal, stored in the region. */
static int dtd_entity_value(dtd_ctx *c, stax_str lit, stax_str *out) {
    stax__dtd *d = c->d;
    if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
    if (lit.len == 0) {
        out->ptr = "";
        out->len = 0;
        return 0;
    }
    /* Without parameter entities the value is never longer than the literal
     * (a window of its size checks it); with them, the largest free piece of
     * the region is the window, and the value keeps what it used. */
    int pe = dtd_lv(c, c->top)->ext && memchr(lit.ptr, '%', lit.len);
    size_t got = lit.len;
    /* the levels the references may enter first: the window takes the rest */
    if (pe && dtd_grow(d, (void **)&d->levels, &d->cap_levels, sizeof *d->levels, d->max_depth)) return dtd_too_big(c, lit.ptr);
    char *buf = !pe ? dtd_store(d, NULL, lit.len) : d->mem.block ? (char *)stax__mem_alloc_upto(&d->mem, SIZE_MAX, &got) : NULL;
    if (!buf) return dtd_too_big(c, lit.ptr);
    stax__out o = stax__out_make(buf, got);
    const char *p = c->p, *end = c->end;
    uint32_t bottom = c->top;
    c->p = lit.ptr;
    c->end = lit.ptr + lit.len;
    int rc = dtd_value_text(c, bottom, &o);
    while (c->top > bottom) dtd_leave(c);
    c->p = p;
    c->end = end;
    if (!rc && o.over)
        rc = pe ? dtd_too_big(c, lit.ptr) : dtd_fail(c, lit.ptr, STAX_E_INTERNAL, "internal error: an entity value grew when decoded");
    size_t used = rc ? 0 : (size_t)(o.p - buf);
    out->ptr = buf;
    out->len = used;
    if (!pe) {
        dtd_unstore(d, got - used); /* give back what the expansion did not use */
    } else if (!used) {
        stax__mem_free(&d->mem, buf, got);
        out->ptr = "";
    } else {
        out->ptr = (const char *)stax__mem_realloc(&d->mem, buf, got, used); /* shrinks in place */
    }
    return rc;
}

/* The base of the external declarations read now: that of the innermost
 * external entity, copied into the region once (empty: the document's). */
static int dtd_decl_base(dtd_ctx *c, stax_str *base) {
    base->ptr = "";
    base->len = 0;
    for (uint32_t k = c->top + 1; k-- > 0;) {
        stax__dtd_level *l = dtd_lv(c, k);
        if (!l->xt) continue;
        if (!l->base.ptr && !(l->base.ptr = dtd_store(c->d, l->xt->base.ptr, l->xt->base.len))) return -1;
        l->base.len = l->xt->base.len;
        *base = l->base;
        return 0;
    }
    return 0;
}

static int dtd_entity_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax__entity e;
    memset(&e, 0, sizeof e);
    if (dtd_need_ws(c, "after <!ENTITY")) return d->status;
    if (c->p < c->end && *c->p == '%') {
        e.pe = 1;
        c->p++;
        if (dtd_need_ws(c, "after '%'")) return d->status;
    }
    if (dtd_name(c, &e.name, 0, "entity name")) return d->status;
    if (d->no_colons && memchr(e.name.ptr, ':', e.name.len))
        return dtd_fail(c, e.name.ptr, STAX_E_NAMESPACE, "an entity name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the entity name")) return d->status;
    stax_str lit;
    if (c->p < c->end && (*c->p == '"' || *c->p == '\'')) {
        if (dtd_quoted(c, &lit, "entity value")) return d->status;
        if (!d->skip_decls && dtd_entity_value(c, lit, &e.value)) return d->status;
        if (d->skip_decls && dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
    } else {
        int rc = dtd_external_id(c, &e.pubid, &e.sysid, 0);
        if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "entity value or external id expected") : rc;
        e.external = 1;
        size_t ws = dtd_ws(c);
        if (dtd_lit(c, "NDATA")) {
            if (!ws) return dtd_fail(c, c->p - 5, STAX_E_DTD, "whitespace required before NDATA");
            if (e.pe) return dtd_fail(c, c->p - 5, STAX_E_DTD, "a parameter entity cannot be unparsed (NDATA)");
            if (dtd_need_ws(c, "after NDATA")) return d->status;
            if (dtd_name(c, &e.notation, 0, "notation name")) return d->status;
            e.unparsed = 1;
        }
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the entity declaration");
    c->p++;
    if (d->skip_decls || stax__dtd_entity(d, e.name.ptr, e.name.len, e.pe)) return 0; /* the first declaration wins */
    e.ext_decl = c->floor > 0 || dtd_lv(c, 0)->kind != DL_INTERNAL;
    if (e.external && !e.unparsed && dtd_decl_base(c, &e.base)) return dtd_too_big(c, c->p);
    /* keep copies: the subset text lives in the caller's chunk */
    e.name.ptr = dtd_store(d, e.name.ptr, e.name.len);
    if (e.pubid.len) e.pubid.ptr = dtd_store_pubid(d, e.pubid.ptr, e.pubid.len, &e.pubid.len);
    if (e.sysid.len) e.sysid.ptr = dtd_store_id(d, e.sysid.ptr, e.sysid.len, &e.sysid.len);
    if (e.notation.len) e.notation.ptr = dtd_store(d, e.notation.ptr, e.notation.len);
    if (!e.name.ptr || (e.pubid.len && !e.pubid.ptr) || (e.sysid.len && !e.sysid.ptr) ||
        (e.notation.len && !e.notation.ptr))
        return dtd_too_big(c, c->p);
    if (!e.pubid.len) e.pubid.ptr = "";
    if (!e.sysid.len) e.sysid.ptr = "";
    if (!e.value.len) e.value.ptr = "";
    if (!stax__dtd_add_entity(d, &e) || (e.unparsed && stax__dtd_add_unparsed(d, &e))) return dtd_too_big(c, c->p);
    return 0;
}

/* A content particle list: ( cp ( '|' cp )* ) or ( cp ( ',' cp )* ), nested. */
static int dtd_children(dtd_ctx *c, int depth) {
    if (depth > 64) return dtd_fail(c, c->p, STAX_E_LIMIT_DTD, "content model nested more than 64 groups deep");
    char sep = 0;
    for (;;) {
        dtd_ws(c);
        if (c->p < c->end && *c->p == '(') {
            c->p++;
            if (dtd_children(c, depth + 1)) return c->d->status;
        } else {
            stax_str n;
            if (dtd_name(c, &n, 0, "element name in a content model")) return c->d->status;
        }
        if (c->p < c->end && (*c->p == '?' || *c->p == '*' || *c->p == '+')) c->p++;
        dtd_ws(c);
        if (c->p >= c->end) return dtd_fail(c, c->p, STAX_E_DTD, "unterminated content model");
        char ch = *c->p++;
        if (ch == ')') break;
        if (ch != '|' && ch != ',') return dtd_fail(c, c->p - 1, STAX_E_DTD, "'|', ',' or ')' expected in a content model");
        if (sep && ch != sep) return dtd_fail(c, c->p - 1, STAX_E_DTD, "'|' and ',' mixed in one group");
        sep = ch;
    }
    if (c->p < c->end && (*c->p == '?' || *c->p == '*' || *c->p == '+')) c->p++;
    return 0;
}

/* With namespaces on, the names of element types and attributes in the DTD
 * are QNames (Namespaces 1.0, section 5). */
static int dtd_qname(dtd_ctx *c, stax_str name, const char *what) {
#ifndef STAX_NO_NAMESPACES
    stax_str prefix, local;
    if (!c->d->no_colons || stax__qname_split(name, &prefix, &local) == 0) return 0;
    return dtd_fail(c, name.ptr, STAX_E_NAMESPACE, "%s '%.*s' is not a QName (namespaces are on)", what,
                    dtd_clip(name.len), name.ptr);
#else
    (void)c, (void)name, (void)what;
    return 0;
#endif
}

static int dtd_element_decl(dtd_ctx *c) {
    stax_str name;
    if (dtd_need_ws(c, "after <!ELEMENT") || dtd_name(c, &name, 0, "element name") ||
        dtd_qname(c, name, "the element type") || dtd_need_ws(c, "after the element name"))
        return c->d->status;
    if (dtd_lit(c, "EMPTY") || dtd_lit(c, "ANY")) {
    } else if (c->p < c->end && *c->p == '(') {
        c->p++;
        dtd_ws(c);
        if (dtd_lit(c, "#PCDATA")) { /* Mixed */
            int names = 0;
            for (;;) {
                dtd_ws(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p != '|') return dtd_fail(c, c->p, STAX_E_DTD, "'|' or ')' expected in mixed content");
                c->p++;
                dtd_ws(c);
                stax_str n;
                if (dtd_name(c, &n, 0, "element name in mixed content")) return c->d->status;
                names++;
            }
            if (c->p < c->end && *c->p == '*') c->p++;
            else if (names) return dtd_fail(c, c->p, STAX_E_DTD, "mixed content with element names must end with ')*'");
        } else {
            if (dtd_children(c, 0)) return c->d->status;
        }
    } else {
        return dtd_fail(c, c->p, STAX_E_DTD, "EMPTY, ANY or a content model expected");
    }
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the element declaration");
    c->p++;
    return 0;
}

/* Normalize a default value (3.3.3) with the reader's normalizer, in place
 * in the region: the largest free piece of it (at most max_token bytes) is
 * the window, and the value keeps what it used. */
static int dtd_attr_default(dtd_ctx *c, stax_str lit, int type, stax_str *out) {
    stax__dtd *d = c->d;
    size_t got = 0;
    /* Without a reference the value is never longer than the literal: it
     * goes to the chunks like any string (finding the largest free piece
     * walks the whole region, which thousands of defaults make quadratic). */
    int plain = !memchr(lit.ptr, '&', lit.len);
    char *buf = plain ? dtd_store(d, NULL, got = lit.len)
                : d->mem.block ? (char *)stax__mem_alloc_upto(&d->mem, d->max_token, &got) : NULL;
    if (!buf) return dtd_too_big(c, lit.ptr);
    stax__attnorm a;
    a.dtd = d;
    a.max_name = d->max_name;
    a.frames = d->frames;
    a.n_frames = d->max_depth;
    a.max_depth = d->max_depth;
    a.expanded = &d->expanded;
    a.budget = d->expand_budget;
    a.input = d->input;
    a.threshold = d->threshold;
    a.amplification = (uint32_t)d->amplification; /* set from a uint32_t option */
    a.max_out = d->max_token;
    a.max_token = d->max_token;
    a.raw = 1;
    a.tokenized = type != STAX__AT_CDATA;
    a.in_dtd = 1;
    stax__out o = stax__out_make(buf, got);
    int rc = stax__attr_normalize(&a, lit.ptr, lit.len, &o, d->err);
    size_t len = rc ? 0 : (size_t)(o.p - buf);
    if (plain) {
        dtd_unstore(d, got - len);
        if (rc == STAX__ROOM) return dtd_fail(c, lit.ptr, STAX_E_INTERNAL, "internal error: a default value grew");
    } else if (rc || !len) {
        stax__mem_free(&d->mem, buf, got);
    } else {
        buf = (char *)stax__mem_realloc(&d->mem, buf, got, len); /* shrinks in place */
    }
    if (rc) return rc == STAX__ROOM ? dtd_too_big(c, lit.ptr) : dtd_fail_err(c, 1);
    out->ptr = len ? buf : "";
    out->len = len;
    return 0;
}

/* Give back the default of a definition that is not kept (the first one
 * wins): it is the latest thing stored. */
static void dtd_attr_default_drop(stax__dtd *d, stax_str lit, stax_str value) {
    if (!value.len) return;
    if (!memchr(lit.ptr, '&', lit.len)) dtd_unstore(d, value.len);
    else stax__mem_free(&d->mem, (void *)(uintptr_t)value.ptr, value.len);
}

static int dtd_attlist_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_str elem;
    if (dtd_need_ws(c, "after <!ATTLIST") || dtd_name(c, &elem, 0, "element name") ||
        dtd_qname(c, elem, "the element type"))
        return d->status;
    stax__dtd_elem_def *el = NULL;
    for (;;) {
        size_t ws = dtd_ws(c);
        if (c->p < c->end && *c->p == '>') {
            c->p++;
            return 0;
        }
        if (!ws) return dtd_fail(c, c->p, STAX_E_DTD, "whitespace required before an attribute definition");
        stax__attdef a;
        memset(&a, 0, sizeof a);
        if (dtd_name(c, &a.name, 0, "attribute name") || dtd_qname(c, a.name, "the attribute name") ||
            dtd_need_ws(c, "after the attribute name"))
            return d->status;
        static const char *const types[] = {"CDATA", "IDREFS", "IDREF", "ID", "ENTITY", "ENTITIES", "NMTOKENS", "NMTOKEN", "NOTATION"};
        static const unsigned char tcode[] = {STAX__AT_CDATA, STAX__AT_IDREFS, STAX__AT_IDREF, STAX__AT_ID, STAX__AT_ENTITY,
                                              STAX__AT_ENTITIES, STAX__AT_NMTOKENS, STAX__AT_NMTOKEN, STAX__AT_NOTATION};
        int t = -1;
        for (int k = 0; k < 9 && t < 0; k++) {
            size_t kl = strlen(types[k]);
            if ((size_t)(c->end - c->p) >= kl && memcmp(c->p, types[k], kl) == 0 &&
                (c->p + kl >= c->end || !(stax__class[(unsigned char)c->p[kl]] & STAX__C_NAME))) {
                t = k;
                c->p += kl;
            }
        }
        if (t >= 0) a.type = tcode[t];
        else a.type = STAX__AT_ENUM;
        if (a.type == STAX__AT_NOTATION || a.type == STAX__AT_ENUM) {
            if (a.type == STAX__AT_NOTATION && dtd_need_ws(c, "after NOTATION")) return d->status;
            if (c->p >= c->end || *c->p != '(') return dtd_fail(c, c->p, STAX_E_DTD, "attribute type expected");
            c->p++;
            for (;;) {
                dtd_ws(c);
                stax_str tok;
                if (dtd_name(c, &tok, a.type == STAX__AT_ENUM, "enumerated value")) return d->status;
                dtd_ws(c);
                if (c->p < c->end && *c->p == ')') {
                    c->p++;
                    break;
                }
                if (c->p >= c->end || *c->p != '|') return dtd_fail(c, c->p, STAX_E_DTD, "'|' or ')' expected in an enumeration");
                c->p++;
            }
        }
        if (dtd_need_ws(c, "after the attribute type")) return d->status;
        stax_str lit = {0, 0};
        if (dtd_lit(c, "#REQUIRED")) a.deflt = STAX__DEF_REQUIRED;
        else if (dtd_lit(c, "#IMPLIED")) a.deflt = STAX__DEF_IMPLIED;
        else {
            a.deflt = STAX__DEF_VALUE;
            if (dtd_lit(c, "#FIXED")) {
                a.deflt = STAX__DEF_FIXED;
                if (dtd_need_ws(c, "after #FIXED")) return d->status;
            }
            if (dtd_quoted(c, &lit, "default value")) return d->status;
            if (dtd_chars_ok(c, lit.ptr, lit.len)) return d->status;
        }
        if (c->p < c->end && !dtd_is_ws(*c->p) && *c->p != '>' && !(dtd_lv(c, c->top)->ext && dtd_at_pe_ref(c)))
            return dtd_fail(c, c->p, STAX_E_DTD, "whitespace or '>' expected after an attribute definition");
        if (d->skip_decls) {
            if (lit.ptr && memchr(lit.ptr, '<', lit.len))
                return dtd_fail(c, (const char *)memchr(lit.ptr, '<', lit.len), STAX_E_SYNTAX, "'<' is not allowed in an attribute value");
            continue;
        }
        if (lit.ptr && dtd_attr_default(c, lit, a.type, &a.value)) return d->status;
        /* the first definition of an attribute wins */
        if (!el) el = (stax__dtd_elem_def *)stax__dtd_elem(d, elem.ptr, elem.len); /* (a record of this DTD's) */
        if (el) {
            if (stax__dtd_attdef(d, el, a.name.ptr, a.name.len)) {
                if (lit.ptr) dtd_attr_default_drop(d, lit, a.value);
                continue;
            }
        } else if (!(el = stax__dtd_add_elem(d, elem))) {
            return dtd_too_big(c, c->p);
        }
        a.name.ptr = dtd_store(d, a.name.ptr, a.name.len);
        if (!a.value.ptr) a.value.ptr = "";
        if (!a.name.ptr || stax__dtd_add_attdef(d, el, &a)) return dtd_too_big(c, c->p);
    }
}

static int dtd_notation_decl(dtd_ctx *c) {
    stax__dtd *d = c->d;
    stax_decl n;
    memset(&n, 0, sizeof n);
    if (dtd_need_ws(c, "after <!NOTATION") || dtd_name(c, &n.name, 0, "notation name")) return d->status;
    if (d->no_colons && memchr(n.name.ptr, ':', n.name.len))
        return dtd_fail(c, n.name.ptr, STAX_E_NAMESPACE, "a notation name may not contain a colon with namespaces on");
    if (dtd_need_ws(c, "after the notation name")) return d->status;
    int rc = dtd_external_id(c, &n.pubid, &n.sysid, 1);
    if (rc) return rc > 0 ? dtd_fail(c, c->p, STAX_E_DTD, "SYSTEM or PUBLIC expected in a notation") : rc;
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '>') return dtd_fail(c, c->p, STAX_E_DTD, "'>' expected to end the notation declaration");
    c->p++;
    for (size_t i = 0; i < d->n_not; i++)
        if (d->notations[i].name.len == n.name.len && memcmp(d->notations[i].name.ptr, n.name.ptr, n.name.len) == 0)
            return 0;
    n.name.ptr = dtd_store(d, n.name.ptr, n.name.len);
    n.pubid.ptr = n.pubid.len ? dtd_store_pubid(d, n.pubid.ptr, n.pubid.len, &n.pubid.len) : "";
    n.sysid.ptr = n.sysid.len ? dtd_store_id(d, n.sysid.ptr, n.sysid.len, &n.sysid.len) : (n.sysid.ptr ? "" : NULL);
    n.notation.ptr = "";
    if (!n.name.ptr || !n.pubid.ptr || (n.sysid.len && !n.sysid.ptr) || stax__dtd_add_notation(d, &n))
        return dtd_too_big(c, c->p);
    return 0;
}

static int dtd_pi(dtd_ctx *c) {
    const char *start = c->p - 2;
    stax_str target;
    if (dtd_name(c, &target, 0, "processing instruction target")) return c->d->status;
    if (target.len == 3 && (target.ptr[0] | 32) == 'x' && (target.ptr[1] | 32) == 'm' && (target.ptr[2] | 32) == 'l')
        return dtd_fail(c, start, STAX_E_SYNTAX, "the PI target 'xml' is reserved");
    if (c->d->no_colons && memchr(target.ptr, ':', target.len))
        return dtd_fail(c, target.ptr, STAX_E_NAMESPACE, "a PI target may not contain a colon with namespaces on");
    const char *e = NULL;
    for (const char *q = c->p; q + 1 < c->end; q++)
        if (q[0] == '?' && q[1] == '>') {
            e = q;
            break;
        }
    if (!e) return dtd_fail(c, start, STAX_E_DTD, "unterminated processing instruction");
    if (c->p < e && !dtd_is_ws(*c->p)) return dtd_fail(c, c->p, STAX_E_SYNTAX, "whitespace required after the PI target");
    if (dtd_chars_ok(c, c->p, (size_t)(e - c->p))) return c->d->status;
    /* kept, line ends normalized, for the reader to report */
    stax__dtd *d = c->d;
    while (c->p < e && dtd_is_ws(*c->p)) c->p++;
    size_t dl = (size_t)(e - c->p), o = 0;
    char *t = dtd_store(d, target.ptr, target.len), *data = dl ? dtd_store_id(d, c->p, dl, &o) : (char *)"";
    stax_dtd_pi pi;
    pi.target.ptr = t;
    pi.target.len = target.len;
    pi.data.ptr = data;
    pi.data.len = o;
    if (!data || !t || stax__dtd_add_pi(d, &pi)) return dtd_too_big(c, start);
    c->p = e + 2;
    return 0;
}

static int dtd_comment(dtd_ctx *c) {
    const char *start = c->p - 4;
    for (const char *q = c->p; q + 1 < c->end; q++) {
        if (q[0] != '-' || q[1] != '-') continue;
        if (q + 2 < c->end && q[2] == '>') {
            if (dtd_chars_ok(c, c->p, (size_t)(q - c->p))) return c->d->status;
            c->p = q + 3;
            return 0;
        }
        return dtd_fail(c, q, STAX_E_SYNTAX, "'--' is not allowed inside a comment");
    }
    return dtd_fail(c, start, STAX_E_DTD, "unterminated comment");
}

/* ================================================================ levels of text */

/* Go on in the text of parameter entity e, referenced at ref ('%'): its
 * value, or, for an external one, its text read through the resolver.
 * *entered is 0 when it is not read (no resolver, or declined). */
static int dtd_enter(dtd_ctx *c, stax__entity *e, const char *ref, int kind, int *entered) {
    stax__dtd *d = c->d;
    *entered = 0;
    if (e->busy) return dtd_fail(c, ref, STAX_E_ENTITY, "parameter entity '%.*s' refers to itself", dtd_clip(e->name.len), e->name.ptr);
    if (c->top + 1 > d->max_depth)
        return dtd_fail(c, ref, STAX_E_LIMIT_ENTITY, "parameter entities nested deeper than max_entity_depth (%lu)",
                        (unsigned long)d->max_depth);
    stax__xtext *xt = NULL;
    const char *text = e->value.ptr;
    size_t len = e->value.len;
    if (e->external) {
        if (!d->ext) return 0;
        int rc = stax__ext_open(d->ext, STAX_ENTITY_PARAMETER, e->name, e->pubid, e->sysid, e->base, &xt, d->err);
        if (rc == STAX_DECLINE) return 0;
        if (rc) {
            d->err->at = ref;
            return dtd_fail_err(c, 0);
        }
        d->input += xt->raw;
        d->expand_budget = stax__expand_budget(d->threshold, (uint32_t)d->amplification, d->input);
        text = xt->text + xt->body;
        len = xt->len - xt->body;
    }
    if (dtd_expand(c, ref, len)) {
        if (xt) stax__ext_close(d->ext, xt);
        return d->status;
    }
    if (dtd_grow(d, (void **)&d->levels, &d->cap_levels, sizeof *d->levels, (size_t)c->top + 1)) {
        if (xt) stax__ext_close(d->ext, xt);
        return dtd_too_big(c, ref);
    }
    dtd_lv(c, c->top)->p = c->p;
    dtd_lv(c, c->top)->end = c->end;
    stax__dtd_level *l = dtd_lv(c, ++c->top);
    memset(l, 0, sizeof *l);
    l->ref = ref;
    l->ent = e;
    l->xt = xt;
    l->kind = kind;
    l->ext = xt || dtd_lv(c, c->top - 1)->ext;
    l->sections = c->sections;
    c->p = text;
    c->end = text + len;
    e->busy = 1;
    *entered = 1;
    return 0;
}

/* The top level's text is used up: back to the level below. */
static void dtd_leave(dtd_ctx *c) {
    stax__dtd_level *l = dtd_lv(c, c->top);
    l->ent->busy = 0;
    if (l->xt) stax__ext_close(c->d->ext, l->xt);
    c->top--;
    c->p = dtd_lv(c, c->top)->p;
    c->end = dtd_lv(c, c->top)->end;
}

/* A parameter-entity reference at c->p ('%'), entered as a level of `kind`
 * when it is read. One that is undeclared, or external and not read, makes
 * later entity and attribute-list declarations unprocessed (5.1). */
static int dtd_pe_ref(dtd_ctx *c, int kind, int *entered) {
    stax__dtd *d = c->d;
    const char *at = c->p++;
    stax_str name;
    *entered = 0;
    if (dtd_name(c, &name, 0, "parameter entity name")) return d->status;
    if (c->p >= c->end || *c->p != ';') return dtd_fail(c, c->p, STAX_E_DTD, "';' expected after a parameter-entity reference");
    c->p++;
    d->has_pe_ref = 1;
    stax__entity *e = stax__dtd_entity(d, name.ptr, name.len, 1);
    if (!e) {
        if (d->standalone) return dtd_fail(c, at, STAX_E_ENTITY, "undefined parameter entity '%.*s'", dtd_clip(name.len), name.ptr);
        d->skip_decls = 1; /* it may have held declarations */
        return 0;
    }
    if (dtd_enter(c, e, at, kind, entered)) return d->status;
    if (!*entered && !d->standalone) d->skip_decls = 1;
    return 0;
}

/* A conditional section (external context), after "<![": INCLUDE opens a
 * section that "]]>" closes later; IGNORE skips its text, nested sections
 * included, to its "]]>" in the same entity. */
static int dtd_cond(dtd_ctx *c, const char *at) {
    int include;
    dtd_ws(c);
    if (dtd_lit(c, "INCLUDE")) include = 1;
    else if (dtd_lit(c, "IGNORE")) include = 0;
    else return dtd_fail(c, c->p, STAX_E_DTD, "INCLUDE or IGNORE expected in a conditional section");
    dtd_ws(c);
    if (c->p >= c->end || *c->p != '[') return dtd_fail(c, c->p, STAX_E_DTD, "'[' expected after INCLUDE or IGNORE");
    c->p++;
    if (include) {
        c->sections++;
        return 0;
    }
    for (uint32_t nest = 1; c->p < c->end;) {
        if (c->end - c->p >= 3 && c->p[0] == '<' && c->p[1] == '!' && c->p[2] == '[') {
            nest++;
            c->p += 3;
        } else if (c->end - c->p >= 3 && c->p[0] == ']' && c->p[1] == ']' && c->p[2] == '>') {
            c->p += 3;
            if (--nest == 0) return 0;
        } else {
            c->p++;
        }
    }
    return dtd_fail(c, at, STAX_E_DTD, "an IGNORE section does not end");
}

/* extSubsetDecl / intSubset ::= (markupdecl | conditionalSect | DeclSep)*,
 * from c->p to the end of level 0. */
static int dtd_decls(dtd_ctx *c) {
    for (;;) {
        while (c->p < c->end && dtd_is_ws(*c->p)) c->p++;
        if (c->p >= c->end) {
            if (c->top == 0)
                return c->sections ? dtd_fail(c, c->p, STAX_E_DTD, "a conditional section does not end") : 0;
            stax__dtd_level *l = dtd_lv(c, c->top);
            if (l->kind == DL_DECLSEP && c->sections != l->sections) {
                stax_str n = l->ent->name;
                return dtd_fail(c, c->p, STAX_E_DTD, "conditional sections are not properly nested in parameter entity '%.*s'",
                                dtd_clip(n.len), n.ptr);
            }
            dtd_leave(c);
            continue;
        }
        const char *at = c->p;
        int rc, entered;
        c->floor = c->top;
        if (*c->p == '%') {
            rc = dtd_pe_ref(c, DL_DECLSEP, &entered);
        } else if (dtd_lit(c, "<!ENTITY")) {
            rc = dtd_entity_decl(c);
        } else if (dtd_lit(c, "<!ELEMENT")) {
            rc = dtd_element_decl(c);
        } else if (dtd_lit(c, "<!ATTLIST")) {
            rc = dtd_attlist_decl(c);
        } else if (dtd_lit(c, "<!NOTATION")) {
            rc = dtd_notation_decl(c);
        } else if (dtd_lit(c, "<!--")) {
            rc = dtd_comment(c);
        } else if (dtd_lit(c, "<?")) {
            rc = dtd_pi(c);
        } else if (dtd_lit(c, "<![")) {
            rc = dtd_lv(c, c->top)->ext ? dtd_cond(c, at)
                                   : dtd_fail(c, at, STAX_E_DTD, "conditional sections are not allowed in the internal subset");
        } else if (c->sections && dtd_lit(c, "]]>")) {
            c->sections--;
            rc = 0;
        } else {
            rc = dtd_fail(c, at, STAX_E_DTD, "markup declaration expected in the DTD");
        }
        if (rc) return rc;
    }
}

/* Parse level 0 (set up by the caller) to its end; every level entered is
 * left again, also after an error. */
static int dtd_run(dtd_ctx *c) {
    stax__dtd *d = c->d;
    /* the same rule as expansion in content: free up to the threshold, then
     * at most amplification bytes per byte of the subsets and external entities */
    d->expand_budget = stax__expand_budget(d->threshold, (uint32_t)d->amplification, d->input);
    int rc = dtd_decls(c);
    while (c->top > 0) dtd_leave(c);
    stax__mem_free(&d->mem, d->levels, d->cap_levels * sizeof *d->levels); /* the region's again */
    d->levels = NULL;
    d->cap_levels = 0;
    return rc;
}

static int dtd_start(stax__dtd *d, dtd_ctx *c, int kind, stax__xtext *xt) {
    memset(c, 0, sizeof *c);
    c->d = d;
    dtd_lv(c, 0)->ent = NULL;
    dtd_lv(c, 0)->kind = kind;
    dtd_lv(c, 0)->xt = xt;
    dtd_lv(c, 0)->ext = kind == DL_EXTERNAL;
    if (stax__dtd_reserve(d))
        return dtd_fail(c, NULL, STAX_E_NOMEM, "out of memory (max_dtd: %zu bytes for the DTD)", d->max);
    return 0;
}

int stax__dtd_parse(stax__dtd *d, const char *p, size_t n) {
    dtd_ctx c;
    if (dtd_start(d, &c, DL_INTERNAL, NULL)) return d->status;
    c.p = p;
    c.end = p + n;
    d->input += n;
    return dtd_run(&c);
}

int stax__dtd_parse_external(stax__dtd *d, stax_str name, stax_str pubid, stax_str sysid) {
    static const stax_str doc = {"", 0};
    dtd_ctx c;
    stax__xtext *xt;
    if (!d->ext) return 0;
    if (dtd_start(d, &c, DL_EXTERNAL, NULL)) return d->status;
    int rc = stax__ext_open(d->ext, STAX_ENTITY_SUBSET, name, pubid, sysid, doc, &xt, d->err);
    if (rc == STAX_DECLINE) return 0;
    if (rc) return dtd_fail_err(&c, 0);
    c.lv0.xt = xt;
    c.p = xt->text + xt->body;
    c.end = xt->text + xt->len;
    d->input += xt->raw;
    rc = dtd_run(&c);
    stax__ext_close(d->ext, xt);
    return rc;
}
#else
typedef int stax__dtd_left_out; /* ISO C: a translation unit is not empty */
#endif /* STAX_NO_DTD */
