/* Stand-ins for the parts a build leaves out, so that the stages that call
 * them need no #if of their own:
 *   STAX_NO_DTD         no internal subset is read: a DOCTYPE with one is
 *                       STAX_E_UNSUPPORTED, and a reference to an entity other
 *                       than the five predefined ones is an error (implies
 *                       STAX_NO_EXTERNAL: what is external is declared there)
 *   STAX_NO_EXTERNAL    no resolver: opt->resolve is refused (STAX_E_USAGE)
 *   STAX_NO_NAMESPACES  STAX_READ_NAMESPACES is refused (STAX_E_USAGE)
 * (reader_batch.c refuses the options; docs/embedded.md lists the switches). */
#include "entities.h"
#include "external.h"
#include "namespaces.h"

#ifdef STAX_NO_DTD
void stax__dtd_init(stax__dtd *d, stax__mem *outer, const stax_reader_options *o, stax__frame *frames,
                    stax__err *err) {
    (void)o;
    memset(d, 0, sizeof *d);
    d->outer = outer;
    d->err = err;
    d->frames = frames;
}

int stax__dtd_reserve(stax__dtd *d) {
    (void)d;
    return 0;
}

void stax__dtd_free(stax__dtd *d) { (void)d; }

void stax__dtd_reset(stax__dtd *d, const stax_reader_options *o) {
    stax__dtd keep = *d;
    stax__dtd_init(d, keep.outer, o, keep.frames, keep.err);
}

/* An internal subset of nothing but white space declares nothing: it is
 * read; any declaration is refused at its first byte. */
int stax__dtd_parse(stax__dtd *d, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!(stax__class[(unsigned char)p[i]] & STAX__C_WS))
            return stax__err_set(d->err, STAX_E_UNSUPPORTED, p + i,
                                 "this build reads no internal DTD subset (STAX_NO_DTD)");
    return 0;
}

int stax__dtd_parse_external(stax__dtd *d, stax_str name, stax_str pubid, stax_str sysid) {
    (void)d, (void)name, (void)pubid, (void)sysid;
    return 0;
}

stax__entity *stax__dtd_entity(const stax__dtd *d, const char *name, size_t len, int pe) {
    (void)d, (void)name, (void)len, (void)pe;
    return NULL;
}

void stax__ent_ids(const stax__entity *e, stax__entity_decl *out) { /* (there is no entity to ask) */
    (void)e;
    memset(out, 0, sizeof *out);
}

const stax__dtd_elem_def *stax__dtd_elem(const stax__dtd *d, const char *name, size_t len) {
    (void)d, (void)name, (void)len;
    return NULL;
}

stax__attdef *stax__dtd_attdef(const stax__dtd *d, const stax__dtd_elem_def *elem, const char *name, size_t len) {
    (void)d, (void)elem, (void)name, (void)len;
    return NULL;
}

uint32_t stax__dtd_clear_stamps(stax__dtd *d) {
    (void)d;
    return 1;
}
#endif /* STAX_NO_DTD */

#ifdef STAX_NO_EXTERNAL
size_t stax__ext_buffer_size(const stax_reader_options *o) {
    (void)o;
    return 0;
}

void stax__ext_init(stax__ext *x, stax__mem *mem, const stax_reader_options *o) {
    (void)o;
    memset(x, 0, sizeof *x);
    x->mem = mem;
    x->release = SIZE_MAX;
}

int stax__ext_reserve(stax__ext *x) {
    (void)x;
    return 0;
}

void stax__ext_free(stax__ext *x) { (void)x; }

void stax__ext_reset(stax__ext *x) { x->release = SIZE_MAX; }

int stax__ext_open(stax__ext *x, int kind, stax_str name, stax_str pubid, stax_str sysid, stax_str base,
                   stax__xtext **out, stax__err *err) {
    (void)x, (void)kind, (void)name, (void)pubid, (void)sysid, (void)base, (void)err;
    *out = NULL;
    return STAX_DECLINE;
}

void stax__ext_close(stax__ext *x, const stax__xtext *t) { (void)x, (void)t; }

void stax__ext_close_later(stax__ext *x, const stax__xtext *t) { (void)x, (void)t; }

void stax__ext_where(const stax__xtext *t, const char *at, char *msg, size_t cap) {
    (void)t, (void)at, (void)msg, (void)cap;
}
#endif /* STAX_NO_EXTERNAL */

#ifdef STAX_NO_NAMESPACES
size_t stax__ns_cost(size_t prefix_len, size_t uri_len) { return prefix_len + uri_len; }

size_t stax__ns_buckets(size_t max_bytes) {
    (void)max_bytes;
    return 0;
}

size_t stax__ns_buffer_size(size_t max_bytes) {
    (void)max_bytes;
    return 0;
}

int stax__ns_init(stax__ns *ns, stax__mem *mem, size_t max_bytes) {
    (void)max_bytes;
    memset(ns, 0, sizeof *ns);
    ns->mem = mem;
    return -1; /* never called: the option is refused */
}

void stax__ns_free(stax__ns *ns) { (void)ns; }

void stax__ns_reset(stax__ns *ns) { (void)ns; }

int stax__ns_push(stax__ns *ns, stax_str prefix, stax_str uri, uint32_t depth, int can_grow) {
    (void)ns, (void)prefix, (void)uri, (void)depth, (void)can_grow;
    return 1;
}

void stax__ns_pop(stax__ns *ns, uint32_t depth) { (void)ns, (void)depth; }

void stax__ns_reclaim(stax__ns *ns) { (void)ns; }

size_t stax__ns_bytes(const stax__ns *ns) {
    (void)ns;
    return 0;
}

int stax__ns_lookup(const stax__ns *ns, stax_str prefix, stax_str *uri) {
    (void)ns, (void)prefix, (void)uri;
    return -1;
}
#endif /* STAX_NO_NAMESPACES */

#if !defined(STAX_NO_DTD) && !defined(STAX_NO_EXTERNAL) && !defined(STAX_NO_NAMESPACES)
typedef int stax__nothing_left_out; /* ISO C: a translation unit is not empty */
#endif
