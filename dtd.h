/* The DTD module (dtd_store.c, dtd.c): its records and tables, and the subset parser. */
#ifndef STAX_DTD_H
#define STAX_DTD_H

#include "stax_internal.h"

/* ------------------------------------------------------------- DTD (dtd.c)
 * The internal subset, parsed whole when the DOCTYPE token is complete. Names
 * and values live in one region of max_dtd bytes (a fixed block of its own)
 * and never move, so events may point into them. */
/* An entity as the DTD keeps it: a record of its region (dtd_store.c) that
 * never moves, so that events and frames may point into it. Its head is the
 * fields below; its body, packed after them, the value's length (LEB128),
 * the name's bytes (where name points), the value's bytes, or with
 * STAX__ENT_FAR (a long value) how far from the record's start they are
 * (an int32_t), and for an external entity its public id, system id,
 * notation and base (four stax_str). Nothing in the body is aligned: read it
 * with the functions below. A one-byte entity with a six-byte name is 25
 * bytes on 64-bit targets (21 on 32-bit), and the next record starts at the
 * next multiple of 8. */
typedef struct stax__ent_head {
    const char *ptr;
    uint32_t len;
    uint32_t next; /* the entity declared after it (after the last: the first): its offset in the
                      region + 1 (here, in the room a 64-bit pointer leaves beside len) */
} stax__ent_head;

typedef struct stax__entity {
    stax__ent_head name; /* the name: ptr and len (stax__ent_name) */
    unsigned char flags; /* STAX__ENT_* */
} stax__entity;

enum { /* (a context holds the first four as they are: reader_context.c) */
    STAX__ENT_PE = 1,
    STAX__ENT_EXTERNAL = 2,
    STAX__ENT_UNPARSED = 4,
    STAX__ENT_EXT_DECL = 8, /* declared in the external subset or in a parameter entity */
    STAX__ENT_PLAIN = 16,   /* internal, and its text is plain: no markup, reference, CR or ']' */
    STAX__ENT_BUSY = 32,    /* being expanded */
    STAX__ENT_FAR = 64      /* its value is not in the record */
};
#define STAX__ENT_BODY (offsetof(stax__entity, flags) + 1)

/* A declaration to add (stax__dtd_add_entity), or an entity read whole (stax__ent_ids). */
typedef struct stax__entity_decl {
    stax_str name, value, pubid, sysid, notation;
    stax_str base;  /* external: where it was declared (stax_entity_request.base) */
    unsigned flags; /* STAX__ENT_* */
} stax__entity_decl;

static inline stax_str stax__ent_value(const stax__entity *e) {
    const unsigned char *p = (const unsigned char *)e + STAX__ENT_BODY;
    size_t n = 0;
    for (unsigned shift = 0;; shift += 7) {
        n |= (size_t)(*p & 0x7F) << shift;
        if (!(*p++ & 0x80)) break;
    }
    p += e->name.len;
    stax_str v;
    v.ptr = (const char *)p;
    v.len = n;
    if (e->flags & STAX__ENT_FAR) {
        int32_t back;
        memcpy(&back, p, sizeof back);
        v.ptr = (const char *)e + back;
    }
    return v;
}
static inline stax_str stax__ent_name(const stax__entity *e) {
    stax_str s;
    s.ptr = e->name.ptr;
    s.len = e->name.len;
    return s;
}
static inline int stax__ent_is(const stax__entity *e, unsigned flag) { return (e->flags & flag) != 0; }
static inline void stax__ent_busy(stax__entity *e, int busy) {
    e->flags = (unsigned char)(busy ? e->flags | STAX__ENT_BUSY : e->flags & ~STAX__ENT_BUSY);
}

enum { STAX__AT_CDATA, STAX__AT_ID, STAX__AT_IDREF, STAX__AT_IDREFS, STAX__AT_ENTITY, STAX__AT_ENTITIES,
       STAX__AT_NMTOKEN, STAX__AT_NMTOKENS, STAX__AT_NOTATION, STAX__AT_ENUM };
enum { STAX__DEF_REQUIRED, STAX__DEF_IMPLIED, STAX__DEF_FIXED, STAX__DEF_VALUE };

typedef struct stax__attdef {
    stax_str name, value; /* value: the default, already normalized */
    unsigned char type, deflt;
    const struct stax__dtd_elem_def *elem; /* its element */
    struct stax__attdef *next;             /* the next attdef of the same element, or NULL */
    uint32_t stamp;       /* the reader's number of the last start tag that gave it */
} stax__attdef;

typedef struct stax__dtd_elem_def {
    stax_str name;
    stax__attdef *first, *last;          /* its attdefs, in declaration order, or NULL */
    struct stax__dtd_elem_def *next;     /* every element with an ATTLIST, latest first */
    uint32_t id;                         /* its number, for the attdefs' hash */
} stax__dtd_elem_def;

typedef struct stax__dtd_chunk stax__dtd_chunk;
typedef struct stax__frame stax__frame;
typedef struct stax__ext stax__ext;
typedef struct stax__dtd_level stax__dtd_level;

typedef struct stax__dtd {
    stax__mem *outer;            /* the reader's memory, where the region comes from */
    stax__mem mem;               /* the region, once reserved */
    void *region;
    size_t max;                  /* max_dtd: the region's size */
    stax__err *err;              /* where errors are written (the reader's) */
    stax__frame *frames;         /* max_depth frames for entity text in default values */
    stax__dtd_level *levels;     /* while parsing: the parameter entities being read, in the region */
    size_t cap_levels;
    stax__ext *ext;              /* external entities, or NULL without a resolver */
    int status;                  /* the error, once one happened */
    stax__dtd_chunk *chunks;
    char *cur;
    size_t cur_left;
    /* Entities, attdefs and elements are records in the chunks, which never
     * move; the hash tables (open addressing, 0 = empty) hold their offsets
     * in the region + 1 (the region is at most 4 GiB - 1). */
    size_t n_ents, n_atts, n_elems;
    uint32_t *ent_hash;          /* stax__entity */
    size_t ent_hash_cap;
    uint32_t *att_hash;          /* stax__attdef, by element and name */
    size_t att_hash_cap;
    uint32_t *elem_hash;         /* stax__dtd_elem_def: elements with an ATTLIST */
    size_t elem_hash_cap;
    stax__dtd_elem_def *elem_list;
    uint64_t elem_lens;          /* bit (length & 63) of every element name with an ATTLIST */
    stax__hash_key key;          /* of the tables */
    stax_decl *notations, *unparsed;
    size_t n_not, cap_not, n_unp, cap_unp;
#ifndef STAX__SMALL
    uint32_t *not_hash;          /* notations: index + 1 (the array moves as it grows) */
    size_t not_hash_cap;
#endif
    stax_dtd_pi *pis;
    size_t n_pis, cap_pis;
    int has_pe_ref;   /* a parameter-entity reference occurs in the internal subset */
    int skip_decls;   /* an unread parameter entity was referenced: later ENTITY/ATTLIST are not processed (5.1) */
    int standalone;   /* standalone="yes" */
    unsigned char has_external; /* the DOCTYPE names an external subset */
    unsigned char no_colons;    /* namespaces on: entity names, notation names and PI targets have no colon */
    uint32_t ent_last; /* the entity declared last (its offset in the region + 1; 0: none): the
                          entities are a ring in declaration order (its name.next), which a
                          context saves (chars and this in the room of two ints: the reader is no
                          larger) */
    uint32_t max_depth;   /* entity nesting limit */
    uint32_t max_name;
    size_t max_token;     /* a default value's length after expansion */
    stax__meter meter;    /* entity text the DTD parser goes through; its input: the subsets'
                             length, and the bytes of the external entities read */
    uint64_t amplification, threshold; /* the meter's limits */
} stax__dtd;

STAXINT void stax__dtd_init(stax__dtd *d, stax__mem *outer, const stax_reader_options *o, stax__frame *frames,
                            stax__err *err);
/* Take the region (max_dtd bytes) from the outer memory now: 0, or STAX_E_NOMEM. */
STAXINT int stax__dtd_reserve(stax__dtd *d);
STAXINT void stax__dtd_free(stax__dtd *d);
/* Forget every declaration, keeping the region (for stax_reader_reset). */
STAXINT void stax__dtd_reset(stax__dtd *d, const stax_reader_options *o);
/* Parse the internal subset [p, p+n). Returns 0 or an error (d->status, in *d->err). */
STAXINT int stax__dtd_parse(stax__dtd *d, const char *p, size_t n);
/* Read and parse the external subset through d->ext (name: the DOCTYPE's).
 * Returns 0 (also when it was declined) or an error. */
STAXINT int stax__dtd_parse_external(stax__dtd *d, stax_str name, stax_str pubid, stax_str sysid);
/* The tables (dtd_store.c). Strings and records live in chunks of the
 * region and never move: n bytes (a copy of s, or uninitialized for NULL),
 * or NULL when the region is full. */
STAXINT char *stax__dtd_store(stax__dtd *d, const char *s, size_t n);
/* A record of n bytes, aligned for any field a record holds. */
STAXINT void *stax__dtd_record(stax__dtd *d, size_t n);
/* Give back the last `unused` bytes of the latest stax__dtd_store. */
STAXINT void stax__dtd_unstore(stax__dtd *d, size_t unused);
/* The value built in win (got bytes from stax__mem_alloc_upto, used of them
 * written) kept like a stored string, the window given back; never NULL. */
STAXINT char *stax__dtd_settle(stax__dtd *d, char *win, size_t got, size_t used);
/* Give back a value that is not kept (a declaration after the first): the
 * latest string stored, or a window stax__dtd_settle kept. */
STAXINT void stax__dtd_drop(stax__dtd *d, const char *s, size_t n);
/* A public or system id with line ends normalized (2.11), or a public id
 * normalized (4.2.2); *out_len its length. */
STAXINT char *stax__dtd_store_id(stax__dtd *d, const char *s, size_t n, size_t *out_len);
STAXINT char *stax__dtd_store_pubid(stax__dtd *d, const char *s, size_t n, size_t *out_len);
/* Grow the array *arr of *cap elements of elem bytes to hold need: 0 or -1. */
STAXINT int stax__dtd_grow(stax__dtd *d, void **arr, size_t *cap, size_t elem, size_t need);
STAXINT stax__entity *stax__dtd_entity(const stax__dtd *d, const char *name, size_t len, int pe);
/* Every field of entity e (its flags, name, value and ids) into *out. */
STAXINT void stax__ent_ids(const stax__entity *e, stax__entity_decl *out);
/* The entities in declaration order: the first (NULL: none), and the one
 * declared after e (NULL: e is the last). */
STAXINT stax__entity *stax__ent_first(const stax__dtd *d);
STAXINT stax__entity *stax__ent_next(const stax__dtd *d, const stax__entity *e);
/* The element with an ATTLIST named [name, name+len): its index, or -1. */
STAXINT const stax__dtd_elem_def *stax__dtd_elem(const stax__dtd *d, const char *name, size_t len);
/* The definition of attribute `name` of element elem: its index in atts, or UINT32_MAX. */
STAXINT stax__attdef *stax__dtd_attdef(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len);
/* Whether a notation named [name, name+len) is declared (by a hash table;
 * builds for size compare with each notation in dtd.c: the table is 150
 * bytes of code on the M0+, and their regions hold few declarations). */
#ifndef STAX__SMALL
STAXINT int stax__dtd_has_notation(const stax__dtd *d, const char *name, size_t len);
#endif
/* Set every stamp to 0 (when the reader's counter wraps); returns the next stamp, 1. */
STAXINT uint32_t stax__dtd_clear_stamps(stax__dtd *d);
/* Declarations into the tables (the parser's way, also reader_context.c's):
 * strings kept in the region with stax__dtd_store first. NULL or -1 when the
 * region is full. stax__dtd_add_entity copies the name into the record, and
 * the value, the ids and the base stay where they are (the value must be in
 * the region, or empty). It works out STAX__ENT_PLAIN itself (e->flags gives
 * the others but busy). */
STAXINT stax__entity *stax__dtd_add_entity(stax__dtd *d, const stax__entity_decl *e);
STAXINT int stax__dtd_add_unparsed(stax__dtd *d, const stax__entity *e);
STAXINT stax__dtd_elem_def *stax__dtd_add_elem(stax__dtd *d, stax_str name);
STAXINT int stax__dtd_add_attdef(stax__dtd *d, stax__dtd_elem_def *el, const stax__attdef *a);
STAXINT int stax__dtd_add_notation(stax__dtd *d, const stax_decl *n);
STAXINT int stax__dtd_add_pi(stax__dtd *d, const stax_dtd_pi *pi);
/* Whether WFC: Entity Declared applies to an undeclared reference (else it is
 * only a validity error, and the reference is reported, not expanded). */
static inline int stax__dtd_wfc_declared(const stax__dtd *d) {
#ifdef STAX_NO_DTD
    (void)d;
    return 1; /* no DTD is read: only the predefined entities exist */
#else
    return d->standalone || (!d->has_external && !d->has_pe_ref);
#endif
}

#endif /* STAX_DTD_H */
