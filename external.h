/* External entities through the resolver (external.c). */
#ifndef STAX_EXTERNAL_H
#define STAX_EXTERNAL_H

#include "dtd.h"

/* ------------------------------------------------------------- external entities (external.c)
 * The resolver hook's side of the reader: the caller is asked for an
 * entity, its bytes are read whole (from a buffer or a read function),
 * decoded to UTF-8 by its BOM and text declaration, checked (UTF-8, Char)
 * and their line ends normalized, into one buffer where the texts of the
 * entities open at once lie stack-wise, each after its record and its base. */
typedef struct stax__xtext {
    const char *text;  /* the entity's text: UTF-8, Chars checked, line ends normalized */
    size_t len;
    size_t body;       /* where its content starts: after the text declaration */
    stax_str base;     /* the base the resolver gave (in the buffer), or the system id */
    stax_str name, sysid; /* for messages: the declaration's strings */
    int kind;          /* STAX_ENTITY_* */
    uint64_t raw;      /* bytes handed over */
    size_t mark;       /* the buffer's length before it: its length again once it is closed */
} stax__xtext;

struct stax__ext {
    stax_resolve_fn fn;
    void *ud;
    const uint32_t *(*unknown_encoding)(void *ud, const char *name, size_t len);
    void *unknown_ud;
    const stax_decoder *decoder; /* the caller's decoder (stax_reader_options.decoder; not
                                    with STAX_NO_EXTRA_ENCODINGS) */
    void *decoder_ud;
    stax__mem *mem;
    stax__buf text;     /* [0, max_text + slack): the texts; then `scratch` bytes for a read function */
    size_t max_text;    /* max_external_text */
    size_t scratch;     /* read_buffer */
    size_t release;     /* SIZE_MAX, or the length to cut the buffer to at the next batch */
    uint64_t bytes, max_bytes; /* bytes handed over so far, and max_external */
};

/* Bytes the buffer takes for these options (0 without a resolver; SIZE_MAX on overflow). */
STAXINT size_t stax__ext_buffer_size(const stax_reader_options *o);
STAXINT void stax__ext_init(stax__ext *x, stax__mem *mem, const stax_reader_options *o);
/* Take the buffer now (fixed block): 0, or STAX_E_NOMEM. */
STAXINT int stax__ext_reserve(stax__ext *x);
STAXINT void stax__ext_free(stax__ext *x);
/* Forget every entity and the byte count, keeping the buffer. */
STAXINT void stax__ext_reset(stax__ext *x);
/* Ask the resolver for an entity and read it: 0 and *out (in the buffer);
 * STAX_DECLINE; or an error in *err (the message says where in the entity). */
STAXINT int stax__ext_open(stax__ext *x, int kind, stax_str name, stax_str pubid, stax_str sysid, stax_str base,
                           stax__xtext **out, stax__err *err);
/* Give the entity's text back now (the DTD), or at the next batch (content,
 * whose events may point into it: stax__ext_release then). */
STAXINT void stax__ext_close(stax__ext *x, const stax__xtext *t);
STAXINT void stax__ext_close_later(stax__ext *x, const stax__xtext *t);
static inline void stax__ext_release(stax__ext *x) {
    if (STAX_UNLIKELY(x->release != SIZE_MAX)) {
        x->text.len = x->release;
        x->release = SIZE_MAX;
    }
}
/* Append " (in entity 'x' \"sysid\", line L, column C)" to msg for the byte
 * at `at` of t's text (without line and column when at lies elsewhere). */
STAXINT void stax__ext_where(const stax__xtext *t, const char *at, char *msg, size_t cap);

#endif /* STAX_EXTERNAL_H */
