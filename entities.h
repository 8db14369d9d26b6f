/* References, entity expansion and attribute values (entities.c), shared by the DTD and the reader. */
#ifndef STAX_ENTITIES_H
#define STAX_ENTITIES_H

#include "dtd.h"

/* The limit message of attribute values that expand past max_token (%zu: it). */
#define STAX__MSG_ATTR_EXPANDED "attribute values longer than max_token (%zu bytes) after entity expansion"

/* ------------------------------------------------------------- references and attribute values (entities.c)
 * Shared by the reader and the DTD: one parser of references, one entity
 * lookup, one attribute-value normalizer, with the same statuses, messages
 * and positions everywhere. */



/* Validate the character at p[i] (a control, or the first byte of a UTF-8
 * sequence) in p[0, n): its length, or 0 with err set. */
STAXINT size_t stax__char_at(const char *p, size_t n, size_t i, stax__err *err);

/* A reference at p[i] ('&') in p[0, n): a character (cp >= 0, the five
 * predefined entities included) or an entity name (cp < 0). end: the index
 * after ';'. stop: where scanning stopped (also after an error: the caller
 * may report a reference cut by the end of input instead). */
typedef struct stax__ref {
    long cp;
    stax_str name;
    size_t end, stop;
} stax__ref;
/* Parse the reference at p[i] ('&'). STAX__REF_NAME_LATER: an entity name is
 * not checked against the Name production (the caller checks it unless it
 * finds a declared entity of that name, whose name was checked). */
#define STAX__REF_NAME_LATER 0x1u
STAXINT int stax__ref_parse(const char *p, size_t n, size_t i, uint32_t max_name, unsigned flags, stax__ref *ref,
                            stax__err *err);
STAXINT int stax__ref_check_name(const stax__ref *ref, const char *amp, stax__err *err);

enum { STAX__REF_REPORT = 1, /* an external entity in content: read through the resolver, or reported */
       STAX__REF_SKIP = 2,   /* undeclared where that is no error: dropped (attributes) or reported */
       STAX__ROOM = 3 };     /* the output window was too small: retry with more room */

/* Where a general entity reference stands (flags of stax__general_entity). */
#define STAX__GE_ATTR 0x1u /* in an attribute value */
#define STAX__GE_DTD 0x2u  /* in a default value of the DTD (not in the document) */

/* What a reference to general entity `name` (its '&' at amp) means: 0 and
 * *out = an internal entity to expand; STAX__REF_REPORT and *out = the
 * external entity; STAX__REF_SKIP; or an error. d is NULL without a DOCTYPE.
 * e: the entity of that name, which the caller looked up (stax__dtd_entity,
 * or a cache), or NULL when there is none. */
STAXINT int stax__general_entity(const stax__dtd *d, const char *amp, stax_str name, unsigned where,
                                 stax__entity *e, stax__entity **out, stax__err *err);

/* One level of entity text being read: where the text that referenced it
 * stands. The reader's content expansion and the normalizer share them. */
struct stax__frame {
    const char *p;
    size_t n, i;
    stax__entity *e;
    uint32_t depth;          /* reader: the element depth where the entity started */
    size_t ref;              /* reader: where the reference stands in [p, p+n) */
    struct stax__xtext *xt;  /* reader: the external entity's text (NULL: an internal entity) */
    size_t rest;             /* reader: the interrupted window's stax_reader.rest and rest_flags */
    int rest_flags;
};

typedef struct stax__attnorm {
    const stax__dtd *dtd;     /* NULL without a DOCTYPE */
    uint32_t max_name;
    stax__frame *frames;      /* entity nesting: n_frames levels are left */
    uint32_t n_frames, max_depth;
    stax__meter *meter;           /* the expansion meter, its input up to date, */
    uint64_t threshold;           /* and its limits */
    uint32_t amplification;
    size_t max_out, max_token;    /* the output may be max_out bytes at most (STAX_E_LIMIT_TOKEN) */
    int raw;       /* the text is the document's own: Chars checked, CR LF is one space */
    int tokenized; /* a declared type other than CDATA: spaces collapsed and trimmed */
    int in_dtd;    /* a default value of the DTD (STAX__GE_DTD) */
} stax__attnorm;

/* Normalize the attribute value s[0, n) (3.3.3) into out, advancing out->p.
 * Returns 0; an error in *err (at: the byte in s, or the outermost reference
 * in s for faults inside entity text); or STAX__ROOM when out had less room
 * than max_out and the value did not fit (nothing is committed). */
STAXINT int stax__attr_normalize(const stax__attnorm *a, const char *s, size_t n, stax__out *out, stax__err *err);

#endif /* STAX_ENTITIES_H */
