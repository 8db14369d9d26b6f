/* The batch layer of the reader: the public API, the options and the memory
 * layout they imply, batches, and the driver that moves between the stages
 * (reader.h lists them). */
#include "reader.h"

#include <stdarg.h>
#include <stdlib.h>
#ifndef STAX_NO_STDIO
#include <errno.h>
#include <unistd.h>
#endif

/* The end of input in a fragment or a sequence of documents
 * (rd_finish); out of line: the driver's code stays as it is for one
 * document. */
RD_NOINLINE int rd_finish_shape(stax_reader *r) {
    if (r->cfg.opt.flags & STAX_READ_FRAGMENT) return r->doc.mode = RM_DONE, STAX_END;
    if (r->doc.part == DOC_START) return r->doc.mode = RM_DONE, STAX_END; /* no document: nothing but white space */
    if (r->doc.part != DOC_EPILOG) return stax__rd_fail_at(r, STAX_E_STRUCTURE, r->doc.pos, "no root element");
    if (!rd_emit(r, STAX_EV_DOCUMENT_END, r->doc.pos)) return r->doc.status;
    r->doc.mode = RM_DONE;
    return STAX_END;
}

/* End of input: the document must be complete (a fragment: its elements
 * closed). A sequence of documents (STAX_READ_DOCUMENTS) ends its last one
 * with STAX_EV_DOCUMENT_END; one of none (an empty input, or white space)
 * has no event. */
static int rd_finish(stax_reader *r) {
    if (r->doc.depth > 0) {
        size_t at = rd_stack_at(r, r->doc.depth - 1);
        return stax__rd_fail_at(r, STAX_E_TRUNCATED, r->doc.pos, "the input ends inside element '%.*s'",
                                stax__clip(r->buf.stack.len - at, 64), r->buf.stack.ptr + at);
    }
    if (STAX_UNLIKELY(rd_shape(r))) return rd_finish_shape(r);
    if (r->doc.part != DOC_EPILOG) return stax__rd_fail_at(r, STAX_E_STRUCTURE, r->doc.pos, "no root element");
    r->doc.mode = RM_DONE;
    return STAX_END;
}

/* Read on from what comes next, once the carry or the entity stack
 * changed: an entity's text first, then the carry's bytes, then the window. */
static void rd_read_on(stax_reader *r) {
    r->doc.mode = !r->doc.n_ent && r->buf.carry.len ? RM_CARRY : RM_WINDOW;
}

/* The window is used up and nothing is pending: more input, or the end. */
static int rd_dry(stax_reader *r) {
    if (!r->doc.ended) return r->buf.batch.count ? STAX_OK : STAX_NEED_INPUT;
    if (r->buf.batch.count) return STAX_OK;
    return rd_finish(r);
}

/* The token at the window's position, the general way: framed, then parsed.
 * An rd_step. */
static int rd_general_token(stax_reader *r) {
    const char *tok = r->doc.in + r->doc.in_pos;
    size_t avail = r->doc.in_len - r->doc.in_pos;
    stax__rd_frame_start(r, &r->doc.fr, (unsigned char)tok[0]);
    r->doc.tok_pos = r->doc.n_ent ? r->doc.ent_pos : r->doc.pos;
    ptrdiff_t end = stax__rd_frame_end(r, &r->doc.fr, tok, avail);
    if (end == RD_FRAME_OVER) stax__rd_over_limit(r, &r->doc.fr, tok, avail);
    if (end < 0) return RD_FAIL;
    if (end == 0 && r->doc.n_ent) {
        /* entity text is complete in memory: only text may run to its end */
        if (r->doc.fr.kind != K_TEXT) {
            stax__rd_fail_at(r, STAX_E_SYNTAX, r->doc.ent_pos, "markup does not end inside the replacement text of entity '%.*s'",
                             stax__clip(r->buf.ents[r->doc.n_ent - 1].e->name.len, 64), r->buf.ents[r->doc.n_ent - 1].e->name.ptr);
            return RD_FAIL;
        }
        end = (ptrdiff_t)avail;
    }
    if (end == 0) {
        int behind = rd_behind(r);
        if (r->doc.ended && !behind && r->doc.fr.kind != K_TEXT) { /* it runs past the end of input: the carry reports it */
            if (stax__rd_stash(r)) return RD_FAIL;
            r->doc.mode = RM_CARRY;
            return RD_NEXT;
        }
        if (r->doc.ended && !behind) {
            end = (ptrdiff_t)avail, r->doc.fr.at_eof = 1; /* text up to the end of input */
        } else if (r->buf.batch.count) {
            r->doc.mode = RM_STASH;
            return RD_BATCH;
        } else { /* the carry holds it now: the next step extends it, or waits for input */
            if (stax__rd_stash(r)) return RD_FAIL;
            r->doc.mode = RM_CARRY;
            return RD_NEXT;
        }
    }
    int room = stax__rd_room(r, (size_t)end);
    if (room < 0) return RD_FAIL;
    if (room) return RD_BATCH;
    size_t used = stax__rd_parse(r, &r->doc.fr, tok, (size_t)end, 0);
    if (used == RD_RETRY) return RD_BATCH; /* the batch ends before the token */
    if (!used) return RD_FAIL;
    stax__rd_consume(r, tok, used);
    stax__rd_frame_consumed(r, &r->doc.fr, (size_t)end, used);
    r->doc.in_pos += used;
    if (STAX_UNLIKELY(r->doc.switch_enc)) {
        r->doc.mode = RM_SWITCH;
        return r->buf.batch.count ? RD_BATCH : RD_NEXT; /* switch with an empty batch */
    }
    if (r->doc.push_ent) { /* its text is the window now, or it waits for an empty batch */
        if (stax__rd_push_entity(r)) return RD_FAIL;
        if (r->doc.push_ent) r->doc.mode = RM_PUSH;
    }
    return RD_NEXT;
}

/* ---------------------------------------------------------------- the carry */

/* Hand back to the window up to `extra` bytes at the end of the carry, as
 * many of them as were taken from it (*taken). */
static void rd_carry_give_back(stax_reader *r, size_t *taken, size_t extra) {
    size_t back = extra < *taken ? extra : *taken;
    r->doc.in_pos -= back;
    r->buf.carry.len -= back;
    *taken -= back;
}

/* The end of the input in the carry: text ends there, anything else is cut off. */
static ptrdiff_t rd_carry_at_end(stax_reader *r) {
    if (r->doc.fr.kind == K_TEXT) {
        r->doc.fr.at_eof = 1;
        return (ptrdiff_t)rd_carry_len(r);
    }
    stax_pos at = r->doc.tok_pos;
    rd_advance(r, &at, rd_carry_ptr(r), rd_carry_len(r));
    return stax__rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside %s",
                      r->doc.fr.kind == K_COMMENT ? "a comment"
                      : r->doc.fr.kind == K_PI ? "a processing instruction"
                      : r->doc.fr.kind == K_CDATA || r->doc.fr.kind == K_CDATA_CONT ? "a CDATA section"
                      : r->doc.fr.kind == K_DOCTYPE ? "the DOCTYPE"
                      : "a tag"), -1;
}

/* The carry holds the start of a token; extend it from the window until the
 * token ends. What the carry holds is framed before more is taken, and what
 * was taken from the window past the token goes back to it: the carry holds
 * one token (or the rest of the chunk before), a byte is copied into it at
 * most twice however the batches fall, and tokens read from it move nothing.
 * RD_NEXT when a token was parsed, RD_WAIT when the window ran out,
 * RD_BATCH when the batch must end first, RD_FAIL on error. */
static int rd_resume_carry(stax_reader *r) {
    r->doc.tok_pos = r->doc.pos; /* the carry always starts at the first unconsumed byte */
    size_t taken = 0;    /* bytes at the end of the carry copied from the window at in_pos - taken */
    ptrdiff_t end;
    while ((end = stax__rd_frame_end(r, &r->doc.fr, rd_carry_ptr(r), rd_carry_len(r))) == 0) {
        size_t avail = r->doc.in_len - r->doc.in_pos;
        if (!avail) {
            if (!r->doc.ended || rd_behind(r)) return RD_WAIT;
            end = rd_carry_at_end(r);
            break;
        }
        size_t len = rd_carry_len(r), step = len > 4096 ? len : 4096;
        if (step > avail) step = avail;
        if (step > r->cfg.carry_max - len) step = r->cfg.carry_max - len;
        if (!step) return rd_internal(r, "a token is still undecided when the carry is full"), RD_FAIL;
        if (stax__rd_carry_append(r, r->doc.in + r->doc.in_pos, step)) return RD_FAIL;
        r->doc.in_pos += step;
        taken += step;
    }
    if (end == RD_FRAME_OVER) stax__rd_over_limit(r, &r->doc.fr, rd_carry_ptr(r), rd_carry_len(r));
    if (end < 0) return RD_FAIL;
    size_t tl = (size_t)end;
    rd_carry_give_back(r, &taken, rd_carry_len(r) - tl);
    int room = stax__rd_room(r, tl);
    size_t used = 0;
    if (room < 0) return RD_FAIL;
    if (!room && (used = stax__rd_parse(r, &r->doc.fr, rd_carry_ptr(r), tl, 1)) == RD_RETRY) room = 1;
    if (room) { /* the token is framed again on the next call */
        stax__rd_frame_start(r, &r->doc.fr, (unsigned char)*rd_carry_ptr(r));
        return RD_BATCH;
    }
    if (!used) return RD_FAIL;
    stax__rd_consume(r, rd_carry_ptr(r), used);
    stax__rd_frame_consumed(r, &r->doc.fr, tl, used); /* what is left of the token stays: it is the next one */
    if (r->doc.push_ent && stax__rd_push_entity(r)) return RD_FAIL;
    r->doc.carry_off += used;
    if (r->doc.carry_off == r->buf.carry.len) r->buf.carry.len = r->doc.carry_off = 0;
    else stax__rd_frame_start(r, &r->doc.fr, (unsigned char)*rd_carry_ptr(r));
    if (STAX_UNLIKELY(r->doc.switch_enc)) r->doc.mode = RM_SWITCH;
    else if (r->doc.push_ent) r->doc.mode = RM_PUSH;
    else rd_read_on(r);
    return RD_NEXT;
}

/* Fill the batch: one step of the mode at a time, each step setting the
 * mode it leaves the reader in. Returns STAX_OK (batch ready),
 * STAX_NEED_INPUT, STAX_END or an error. */
static int rd_fill(stax_reader *r) {
    for (;;) {
        int rc;
        switch ((enum rd_mode)r->doc.mode) {
        case RM_DETECT:
            rc = stax__rd_detect(r);
            if (rc == RD_FAIL) return r->doc.status;
            if (rc == RD_WAIT) return STAX_NEED_INPUT;
            if (r->buf.carry.len) stax__rd_frame_start(r, &r->doc.fr, (unsigned char)*rd_carry_ptr(r)); /* the first bytes, gathered */
            rd_read_on(r);
            continue;
        case RM_STASH:
            if (stax__rd_stash(r)) return r->doc.status;
            rd_read_on(r);
            continue;
        case RM_PUSH: /* an external entity, read on an empty batch */
            if (r->buf.batch.count) return STAX_OK;
            if (stax__rd_push_entity(r)) return r->doc.status;
            rd_read_on(r);
            continue;
        case RM_SWITCH: {
            int e = r->doc.switch_enc;
            r->doc.switch_enc = 0;
            /* bytes kept in the carry after the declaration were not decoded yet
             * (at most the 3 the declaration's framing may have looked past it) */
            char pre[64];
            size_t pre_len = rd_carry_len(r);
            if (pre_len > sizeof pre) return rd_internal(r, "more than a few bytes carried after the declaration");
            if (pre_len) memcpy(pre, rd_carry_ptr(r), pre_len);
            r->buf.carry.len = r->doc.carry_off = 0;
            if (stax__rd_start_transcoding(r, e, r->doc.switch_table, pre, pre_len)) return r->doc.status;
            r->doc.mode = RM_WINDOW;
            continue;
        }
        case RM_ENTITY_END:
            if (stax__rd_pop_entity(r)) return r->doc.status;
            rd_read_on(r);
            continue;
        case RM_REFILL:
            if (r->buf.batch.count) return STAX_OK; /* the batch may point into the window */
            rc = stax__rd_refill(r);
            /* the last chunk decoded to nothing (stax_reader_end came with it):
             * the end of input is checked now, as if it had come later */
            if (rc == RD_WAIT && r->doc.ended) rc = stax__rd_refill(r);
            if (rc == RD_FAIL) return r->doc.status;
            if (rc == RD_NEXT) {
                r->doc.mode = RM_WINDOW;
                continue;
            }
            return rd_dry(r);
        case RM_DRY:
            if (r->buf.batch.count >= r->cfg.opt.batch_events) return STAX_OK;
            return rd_dry(r);
        case RM_CARRY:
            rc = rd_resume_carry(r);
            if (rc == RD_FAIL) return r->doc.status;
            if (rc == RD_BATCH) return STAX_OK;
            if (rc == RD_NEXT) continue; /* an entity may have started, or the carry may hold more */
            if (r->doc.enc > STAX__ENC_UTF8 && (r->doc.raw_pos < r->doc.raw_len || r->doc.dec_err || r->doc.ended)) {
                if (r->buf.batch.count) return STAX_OK;
                rc = stax__rd_refill(r);
                if (rc == RD_FAIL) return r->doc.status;
                if (rc == RD_NEXT) continue;
                if (!r->doc.ended) return STAX_NEED_INPUT;
                /* nothing more will come: let the carry path see the end of input */
                if (rd_resume_carry(r) == RD_FAIL) return r->doc.status;
                continue;
            }
            return r->buf.batch.count ? STAX_OK : STAX_NEED_INPUT;
        case RM_WINDOW:
            if (STAX_UNLIKELY(r->doc.in_pos >= r->doc.in_len)) { /* used up */
                r->doc.mode = r->doc.n_ent ? RM_ENTITY_END : r->doc.enc > STAX__ENC_UTF8 ? RM_REFILL : RM_DRY;
                continue;
            }
            if (r->buf.batch.count >= r->cfg.opt.batch_events) return STAX_OK;
#ifndef STAX_NO_FAST_PATH /* the general path alone gives the same events */
            if (rd_fx_encoding_ok(r) && !r->doc.n_ent && !r->doc.rest) {
                int k = stax__rd_fast(r);
                if (k < 0) return r->doc.status;
                if (k > 0) {
                    if (r->buf.batch.count + 2 > r->cfg.opt.batch_events) return STAX_OK;
                    if (k == 1) continue;
                } /* (2: the next token is the general way's) */
            }
#endif
            rc = rd_general_token(r);
            if (rc == RD_NEXT) continue;
            return rc == RD_BATCH ? STAX_OK : r->doc.status;
        case RM_DONE: return STAX_END;
        }
        return rd_internal(r, "no such mode");
    }
}

/* ================================================================ options and memory */

#define RD_MIB ((size_t)1 << 20)

static size_t rd_clamp(size_t v, size_t lo, size_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Zero fields take the defaults of the allocator mode. */
static void rd_defaults(stax_reader_options *o) {
    if (!o->max_depth) o->max_depth = 1024;
    if (!o->max_name) o->max_name = 1024;
    if (!o->max_attrs) o->max_attrs = 256;
    if (!o->max_token) o->max_token = RD_MIB;
    if (!o->max_text) o->max_text = o->max_token < 65536 ? o->max_token : 65536;
    if (!o->batch_events) o->batch_events = 256;
    if (o->batch_events < 2) o->batch_events = 2; /* one token may give two events */
    if (!o->max_entity_depth) o->max_entity_depth = 16;
    if (!o->entity_amplification) o->entity_amplification = 100;
    if (!o->entity_threshold) o->entity_threshold = (size_t)8 << 20;
    if (!o->max_dtd) o->max_dtd = RD_MIB;
    if (!o->max_ns) o->max_ns = 64;
    if (!o->max_ns_bytes) o->max_ns_bytes = 65536;
    if (!o->read_buffer) o->read_buffer = 65536;
    if (o->read_buffer < 64) o->read_buffer = 64; /* the decoder wants a few bytes of room */
    if (!o->max_external) o->max_external = (size_t)64 << 20;
    if (!o->max_external_text) o->max_external_text = RD_MIB;
}

/* What a reader holds, in the order a fixed block is carved. */
enum { L_READER, L_EVENTS, L_ATTRS, L_EV_NS, L_ATTR_NS, L_ATTR_AT, L_ENTS, L_NS_HEADS, L_NS, L_CARRY, L_ARENA,
       L_STACK, L_STACK_OFF, L_RBUF, L_TBUF, L_DTD, L_XTEXT, L_COUNT };

static size_t rd_mul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

/* The sizes for options with defaults applied; SIZE_MAX marks an overflow. */
static void rd_layout(const stax_reader_options *o, size_t sz[L_COUNT]) {
    int ns = (o->flags & STAX_READ_NAMESPACES) != 0;
    size_t attr_cap = rd_mul(o->max_attrs, 2) < 8 ? 8 : rd_mul(o->max_attrs, 2);
    sz[L_READER] = sizeof(stax_reader);
    sz[L_EVENTS] = rd_mul(o->batch_events, sizeof(stax_event));
    sz[L_ATTRS] = rd_mul(attr_cap, sizeof(stax_attr));
    sz[L_EV_NS] = ns ? rd_mul(o->batch_events, sizeof(stax_qname)) : 0;
    sz[L_ATTR_NS] = ns ? rd_mul(attr_cap, sizeof(stax_qname)) : 0;
    sz[L_ATTR_AT] = ns ? rd_mul(attr_cap, sizeof(size_t)) : 0;
    sz[L_ENTS] = rd_mul(o->max_entity_depth, sizeof(stax__frame));
    sz[L_NS_HEADS] = ns ? rd_mul(stax__ns_buckets(o->max_ns_bytes), sizeof(uint32_t)) : 0;
    sz[L_NS] = ns ? stax__ns_buffer_size(o->max_ns_bytes) : 0;
    sz[L_CARRY] = o->max_token > SIZE_MAX - RD_CARRY_SLACK ? SIZE_MAX : o->max_token + RD_CARRY_SLACK;
    sz[L_ARENA] = o->max_token > SIZE_MAX - RD_ARENA_SLACK ? SIZE_MAX : o->max_token + RD_ARENA_SLACK;
    sz[L_STACK] = rd_mul(o->max_depth, o->max_name);
    sz[L_STACK] = sz[L_STACK] > SIZE_MAX - RD_STACK_SLACK ? SIZE_MAX : sz[L_STACK] + RD_STACK_SLACK;
    sz[L_STACK_OFF] = rd_mul(o->max_depth, sizeof(size_t));
    sz[L_RBUF] = o->read_buffer;
    sz[L_TBUF] = o->read_buffer;
#ifdef STAX_NO_DTD
    sz[L_DTD] = 0; /* no internal subset is read: nothing is kept */
#else
    sz[L_DTD] = o->max_dtd;
#endif
    sz[L_XTEXT] = stax__ext_buffer_size(o);
}

/* The block size for options with defaults applied. */
static size_t rd_block_need(const stax_reader_options *o) {
    size_t sz[L_COUNT], use[L_COUNT], k = 0;
    rd_layout(o, sz);
    for (int i = 0; i < L_COUNT; i++) {
        if (sz[i] == SIZE_MAX) return SIZE_MAX;
        if (sz[i]) use[k++] = sz[i];
    }
    return stax__mem_block_need(use, k);
}

/* The fixed-block profiles: in profile `scale` (a nominal block size: 4 KiB,
 * 8 KiB, 16 KiB, ...) a limit left zero is base + scale / div, clamped to [lo, hi];
 * then max_text is half of max_token, max_external_text (with a resolver) an
 * eighth of the profile and max_depth what an eighth of it holds in names.
 * Every value grows with scale, so a larger profile allows all a smaller one
 * did. The one table of the profiles: docs/security.md prints what it gives. */
typedef struct rd_rule {
    size_t offset, width; /* the field in stax_reader_options */
    size_t base, div, lo, hi;
} rd_rule;
#define RD_RULE(field, base, div, lo, hi) \
    { offsetof(stax_reader_options, field), sizeof(((stax_reader_options *)0)->field), (base), (div), (lo), (hi) }
static const rd_rule rd_profile_rules[] = {
    RD_RULE(batch_events, 0, 1024, 4, 32),   RD_RULE(max_attrs, 0, 1024, 4, 32),
    RD_RULE(max_entity_depth, 0, 2048, 2, 16), RD_RULE(max_token, 0, 8, 128, RD_MIB),
    RD_RULE(read_buffer, 0, 32, 64, 65536),  RD_RULE(max_ns_bytes, 0, 32, 256, 65536),
    RD_RULE(max_name, 0, 1024, 32, 256),
    /* one short declaration at least, and more with every profile (a flat floor
     * would let a larger profile's deeper entity nesting hold fewer) */
    RD_RULE(max_dtd, 64, 16, 320, RD_MIB),
};
#define RD_MIN_PROFILE ((size_t)4096) /* the smallest profile: every block gets at least its limits */

static void rd_profile(stax_reader_options *t, size_t scale) {
    for (size_t i = 0; i < sizeof rd_profile_rules / sizeof rd_profile_rules[0]; i++) {
        const rd_rule *u = &rd_profile_rules[i];
        unsigned char *f = (unsigned char *)t + u->offset;
        size_t v = rd_clamp(u->base + scale / u->div, u->lo, u->hi);
        if (u->width == sizeof(uint32_t)) {
            uint32_t cur, w = (uint32_t)v;
            memcpy(&cur, f, sizeof cur);
            if (!cur) memcpy(f, &w, sizeof w);
        } else {
            size_t cur;
            memcpy(&cur, f, sizeof cur);
            if (!cur) memcpy(f, &v, sizeof v);
        }
    }
    if (!t->max_text) t->max_text = rd_clamp(t->max_token / 2, 4, 65536);
    if (!t->max_external_text && t->resolve) t->max_external_text = rd_clamp(scale / 8, 256, RD_MIB);
    if (!t->max_depth) t->max_depth = (uint32_t)rd_clamp((scale / 8) / (t->max_name + (size_t)8), 2, 1024);
    rd_defaults(t);
}

/* Zero fields of a fixed-block reader's options take the defaults of the
 * largest profile (4 KiB, 8 KiB, 16 KiB, ...) whose layout fits the block.
 * Profiles only grow, so a larger block never gets smaller limits: what
 * streams in a block streams in every larger one. */
static void rd_fixed_defaults(stax_reader_options *o) {
    stax_reader_options user = *o, t = *o;
    rd_profile(&t, RD_MIN_PROFILE);
    for (size_t scale = 2 * RD_MIN_PROFILE; scale <= ((size_t)1 << 30); scale *= 2) {
        stax_reader_options next = user;
        rd_profile(&next, scale);
        if (rd_block_need(&next) > o->memory_size) break;
        t = next;
    }
    *o = t;
}

/* Why options are refused: the sentence, or with STAX_NO_MESSAGES a short one. */
#ifdef STAX_NO_MESSAGES
#define RD_WHY(sentence, short) short
#else
#define RD_WHY(sentence, short) sentence
#endif

/* Options with defaults applied, checked: STAX_OK, STAX_E_USAGE or STAX_E_NOMEM. */
static int rd_options(const stax_reader_options *opt, stax_reader_options *o, const char **why) {
    const char *unused; /* not static: readers are made on several threads at once */
    if (!why) why = &unused;
    *why = "";
    if (opt) *o = *opt;
    else memset(o, 0, sizeof *o);
    if (o->memory) rd_fixed_defaults(o);
    rd_defaults(o);
    if (o->max_text > o->max_token || o->max_text < 4)
        return *why = RD_WHY("max_text must be at least 4 and at most max_token", "an option is out of range"), STAX_E_USAGE;
    if (o->batch_events > (1u << 24) || o->max_attrs > (1u << 24))
        return *why = RD_WHY("batch_events and max_attrs may not be above 2^24", "an option is out of range"), STAX_E_USAGE;
    if (o->max_depth > (1u << 24) || o->max_name > (1u << 24))
        return *why = RD_WHY("max_depth and max_name may not be above 2^24", "an option is out of range"), STAX_E_USAGE;
    if (o->max_entity_depth > 1024) return *why = RD_WHY("max_entity_depth may not be above 1024", "an option is out of range"), STAX_E_USAGE;
    if (o->flags & (STAX_READ_FRAGMENT | STAX_READ_DOCUMENTS) & ~RD_SHAPES)
        return *why = RD_WHY("STAX_READ_FRAGMENT, _DOCUMENTS: left out of builds for size", "an option is out of range"), STAX_E_USAGE;
    if (RD_SHAPES && (o->flags & STAX_READ_FRAGMENT) && (o->flags & STAX_READ_DOCUMENTS))
        return *why = RD_WHY("STAX_READ_FRAGMENT and STAX_READ_DOCUMENTS exclude each other", "two input shapes"), STAX_E_USAGE;
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (o->encoding && !o->decoder && stax__encoding_by_name(o->encoding, strlen(o->encoding)) < 0)
#else /* (decoder is not used: STAX_NO_EXTRA_ENCODINGS leaves decoders out) */
    if (o->encoding && stax__encoding_by_name(o->encoding, strlen(o->encoding)) < 0)
#endif
        return *why = RD_WHY("the forced encoding is not one stax knows", "an option is out of range"), STAX_E_USAGE;
#ifdef STAX_NO_NAMESPACES
    if (o->flags & STAX_READ_NAMESPACES)
        return *why = "STAX_READ_NAMESPACES: this build leaves namespaces out (STAX_NO_NAMESPACES)", STAX_E_USAGE;
#endif
#ifdef STAX_NO_EXTERNAL
    if (o->resolve) return *why = "resolve: this build reads nothing external (STAX_NO_EXTERNAL)", STAX_E_USAGE;
#endif
    size_t need = rd_block_need(o);
    if (need == SIZE_MAX) return *why = RD_WHY("the options ask for more memory than there is", "an option is out of range"), STAX_E_USAGE;
    if (o->memory && o->memory_size < need)
        return *why = RD_WHY("the fixed block is smaller than the options need (stax_reader_memory_size)", "the fixed block is too small"), STAX_E_NOMEM;
    return STAX_OK;
}

/* The block size for opt, zero fields taking the limits of profile `scale`,
 * or with scale 0 the allocator's defaults. */
static size_t rd_size_for(const stax_reader_options *opt, size_t scale) {
    stax_reader_options o;
    if (opt) o = *opt;
    else memset(&o, 0, sizeof o);
    o.memory = NULL;
    o.memory_size = 0;
    if (scale) rd_profile(&o, scale);
    if (rd_options(&o, &o, NULL) != STAX_OK) return 0;
    return rd_block_need(&o);
}

size_t stax_reader_memory_size(const stax_reader_options *opt) { return rd_size_for(opt, 0); }

/* The smallest block a reader with these options can be made in: zero
 * fields take the smallest profile's limits, which every block that fits
 * them gets (a larger block may get a larger profile, which fits it too). */
size_t stax_reader_memory_min(const stax_reader_options *opt) { return rd_size_for(opt, RD_MIN_PROFILE); }

int stax_reader_check_options(const stax_reader_options *opt, const char **why) {
    stax_reader_options o;
    return rd_options(opt, &o, why);
}

int stax_reader_effective_options(const stax_reader_options *opt, stax_reader_options *out, const char **why) {
    stax_reader_options o;
    int st = rd_options(opt, &o, why);
    if (st == STAX_OK && out) *out = o;
    return st;
}

/* ================================================================ public API */

/* The document state of a new document: zero, but for these. */
static void rd_doc_init(stax_reader *r) {
    memset(&r->doc, 0, sizeof r->doc);
    stax__err_init(&r->doc.err, r->doc.err_msg, sizeof r->doc.err_msg);
    r->doc.pos.line = r->doc.pos.column = 1;
    r->doc.tok_pos = r->doc.pos; /* errors before the first token are at 1:1 */
    if (RD_SHAPES) r->doc.part = rd_first_part(r); /* (else DOC_START, 0) */
#ifndef STAX_NO_STDIO
    r->doc.fd = -1;
#endif
}

stax_reader *stax_reader_new(const stax_reader_options *opt) {
    stax_reader_options o;
    if (rd_options(opt, &o, NULL) != STAX_OK) return NULL;
    stax__mem m;
    if (o.memory) {
        if (stax__mem_init(&m, NULL, NULL, o.memory, o.memory_size)) return NULL;
    } else {
        stax__mem_init(&m, o.alloc, o.alloc_ud, NULL, 0);
    }
    size_t sz[L_COUNT];
    rd_layout(&o, sz);
    stax_reader *r = (stax_reader *)stax__mem_alloc(&m, sizeof *r);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->buf.mem = m;
    r->cfg.opt = o;
    rd_doc_init(r);
    if (o.encoding) r->cfg.forced = stax__encoding_by_name(o.encoding, strlen(o.encoding));
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (r->cfg.forced < 0) r->cfg.forced = STAX__ENC_HOOK; /* (only with a decoder: rd_options) */
#endif
    r->cfg.simd = stax__simd_level();
    r->cfg.text_run = stax__scan_text_run_at(r->cfg.simd);
    r->cfg.attr_cap = sz[L_ATTRS] / sizeof(stax_attr);
    r->cfg.carry_max = sz[L_CARRY];
    r->cfg.arena_max = sz[L_ARENA];
    r->cfg.stack_max = sz[L_STACK];
    /* in the order of rd_layout */
    r->buf.events = (stax_event *)stax__mem_alloc(&r->buf.mem, sz[L_EVENTS]);
    r->buf.attrs = (stax_attr *)stax__mem_alloc(&r->buf.mem, sz[L_ATTRS]);
    if (!r->buf.events || !r->buf.attrs) goto fail;
    r->buf.batch.events = r->buf.events;
    r->buf.batch.attrs = r->buf.attrs;
    if (o.flags & STAX_READ_NAMESPACES) {
        r->buf.ev_ns = (stax_qname *)stax__mem_alloc(&r->buf.mem, sz[L_EV_NS]);
        r->buf.attr_ns = (stax_qname *)stax__mem_alloc(&r->buf.mem, sz[L_ATTR_NS]);
        r->buf.attr_at = (size_t *)stax__mem_alloc(&r->buf.mem, sz[L_ATTR_AT]);
        if (!r->buf.ev_ns || !r->buf.attr_ns || !r->buf.attr_at) goto fail;
        r->buf.batch.ev_ns = r->buf.ev_ns;
        r->buf.batch.attr_ns = r->buf.attr_ns;
    }
    r->buf.ents = (stax__frame *)stax__mem_alloc(&r->buf.mem, sz[L_ENTS]);
    if (!r->buf.ents) goto fail;
    stax__dtd_init(&r->buf.dtd, &r->buf.mem, &o, r->buf.ents, &r->doc.err);
    stax__ext_init(&r->buf.ext, &r->buf.mem, &o);
    if (o.resolve) r->buf.dtd.ext = &r->buf.ext;
    if (o.flags & STAX_READ_NAMESPACES) {
        r->buf.dtd.no_colons = 1;
        if (stax__ns_init(&r->buf.ns, &r->buf.mem, o.max_ns_bytes)) goto fail;
    }
    if (r->buf.mem.block) { /* everything now, so that reading never runs out */
        if (stax__rd_reserve(r, &r->buf.carry, sz[L_CARRY], sz[L_CARRY]) ||
            stax__rd_reserve(r, &r->buf.arena, sz[L_ARENA], sz[L_ARENA]) || stax__rd_reserve(r, &r->buf.stack, sz[L_STACK], sz[L_STACK]))
            goto fail;
        r->buf.stack_off = (size_t *)stax__mem_alloc(&r->buf.mem, sz[L_STACK_OFF]);
        r->buf.rbuf = (char *)stax__mem_alloc(&r->buf.mem, sz[L_RBUF]);
        r->buf.tbuf = (char *)stax__mem_alloc(&r->buf.mem, sz[L_TBUF]);
        if (!r->buf.stack_off || !r->buf.rbuf || !r->buf.tbuf || stax__dtd_reserve(&r->buf.dtd) ||
            stax__ext_reserve(&r->buf.ext))
            goto fail;
        r->buf.stack_off_cap = o.max_depth;
        r->buf.rbuf_cap = r->buf.tbuf_cap = o.read_buffer;
    }
    return r;
fail:
    stax_reader_free(r);
    return NULL;
}

void stax_reader_free(stax_reader *r) {
    if (!r) return;
    stax__decoder_close(&r->doc.dec);
    stax__dtd_free(&r->buf.dtd);
    stax__ns_free(&r->buf.ns);
    stax__ext_free(&r->buf.ext);
    stax__mem m = r->buf.mem;
    size_t sz[L_COUNT];
    rd_layout(&r->cfg.opt, sz);
    stax__mem_free(&m, r->buf.ev_ns, sz[L_EV_NS]);
    stax__mem_free(&m, r->buf.attr_ns, sz[L_ATTR_NS]);
    stax__mem_free(&m, r->buf.attr_at, sz[L_ATTR_AT]);
    stax__mem_free(&m, r->buf.events, sz[L_EVENTS]);
    stax__mem_free(&m, r->buf.attrs, sz[L_ATTRS]);
    stax__mem_free(&m, r->buf.ents, sz[L_ENTS]);
    stax__buf_free(&m, &r->buf.arena);
    stax__buf_free(&m, &r->buf.carry);
    stax__buf_free(&m, &r->buf.stack);
    stax__mem_free(&m, r->buf.stack_off, (size_t)r->buf.stack_off_cap * sizeof *r->buf.stack_off);
    stax__mem_free(&m, r->buf.rbuf, r->buf.rbuf_cap);
    stax__mem_free(&m, r->buf.tbuf, r->buf.tbuf_cap);
    stax__mem_free(&m, r, sizeof *r);
}

size_t stax_reader_memory_peak(const stax_reader *r) { return r ? r->buf.mem.peak : 0; }

/* The buffers emptied and the modules' tables cleared, their memory kept. */
static void rd_buffers_empty(stax_reader *r) {
    r->buf.batch.count = 0;
    r->buf.arena.len = r->buf.carry.len = r->buf.stack.len = 0;
    stax__dtd_reset(&r->buf.dtd, &r->cfg.opt);
    stax__ext_reset(&r->buf.ext);
    if (r->buf.ev_ns) stax__ns_reset(&r->buf.ns);
}

int stax_reader_reset(stax_reader *r) {
    if (!r) return STAX_E_USAGE;
    stax__decoder_close(&r->doc.dec);
    rd_doc_init(r);
    rd_buffers_empty(r);
    return STAX_OK;
}

/* A new chunk: the window itself, or (transcoding) the raw input behind it. */
static void rd_set_input(stax_reader *r, const char *data, size_t len) {
    r->doc.fed = 1;
    if (r->doc.mode == RM_DRY) r->doc.mode = RM_WINDOW;
    if (r->doc.enc > STAX__ENC_UTF8) {
        r->doc.raw_base += r->doc.raw_len;
        r->doc.raw = data;
        r->doc.raw_len = len;
        r->doc.raw_pos = 0;
        return;
    }
    r->doc.in = data;
    r->doc.in_len = len;
    r->doc.in_pos = 0;
    r->doc.win_nocr = RD_WIN_UNSEARCHED; /* searched when the general way needs it */
}

int stax_reader_feed(stax_reader *r, const void *data, size_t len) {
    if (!r) return STAX_E_USAGE;
    if (r->doc.status < 0) return r->doc.status;
    if (r->doc.fed || r->doc.ended || r->doc.src || (!data && len)) {
        return stax__rd_fail_at(r, STAX_E_USAGE, r->doc.pos,
                          r->doc.src ? "stax_reader_feed on a reader with a pull source"
                          : r->doc.ended ? "stax_reader_feed after stax_reader_end"
                          : !data ? "stax_reader_feed with NULL data"
                                  : "stax_reader_feed before the reader asked for more input");
    }
    rd_set_input(r, (const char *)data, len);
    return STAX_OK;
}

/* No chunk follows the one fed last (or, when none is being read, none at all). */
static int rd_end(stax_reader *r) {
    r->doc.ended = 1;
    if (!r->doc.fed) rd_set_input(r, NULL, 0); /* else the chunk being read is the last one */
    return STAX_OK;
}

int stax_reader_end(stax_reader *r) {
    if (!r) return STAX_E_USAGE;
    if (r->doc.status < 0) return r->doc.status;
    if (r->doc.src || r->doc.ended)
        return stax__rd_fail_at(r, STAX_E_USAGE, r->doc.pos,
                          r->doc.src ? "stax_reader_end on a reader with a pull source" : "stax_reader_end called twice");
    return rd_end(r);
}

static int rd_pull(stax_reader *r) {
    if (!r->buf.rbuf) {
        r->buf.rbuf = (char *)stax__mem_alloc(&r->buf.mem, r->cfg.opt.read_buffer);
        if (!r->buf.rbuf) return stax__rd_nomem(r);
        r->buf.rbuf_cap = r->cfg.opt.read_buffer;
    }
    ptrdiff_t n = r->doc.src(r->doc.src_ctx, r->buf.rbuf, r->buf.rbuf_cap);
    if (n < 0) return stax__rd_fail_at(r, STAX_E_IO, r->doc.pos, "read error from the input source");
    if (n == 0) return rd_end(r);
    rd_set_input(r, r->buf.rbuf, (size_t)n > r->buf.rbuf_cap ? r->buf.rbuf_cap : (size_t)n);
    return STAX_OK;
}

int stax_reader_next(stax_reader *r, const stax_batch **out) {
    if (!r || !out) return STAX_E_USAGE;
    *out = &r->buf.batch;
    r->buf.batch.count = 0;
    r->doc.attr_len = 0;
    r->buf.arena.len = 0;
    if (STAX_UNLIKELY(r->buf.arena_short)) stax__rd_arena_grow(r);
    stax__ext_release(&r->buf.ext); /* the texts of external entities that ended in the last batch */
    if (r->buf.ev_ns) stax__ns_reclaim(&r->buf.ns);
    if (r->doc.status < 0) return r->doc.status;
    if (r->doc.mode == RM_DONE) return STAX_END;
    for (;;) {
        if (!r->doc.fed) {
            /* A push reader with no chunk to read (none fed yet, or the last
             * one used up) asks for one, as often as it is asked. */
            if (!r->doc.src) return STAX_NEED_INPUT;
            if (rd_pull(r)) return r->doc.status;
        }
        int st = rd_fill(r);
        if (st < 0 && r->buf.batch.count) return STAX_OK; /* the error comes with the next call */
        if (st == STAX_NEED_INPUT) {
            r->doc.fed = 0;
            if (r->doc.src) continue;
        }
        if (st == STAX_END && r->buf.batch.count) return STAX_OK;
        return st;
    }
}

static int rd_set_source(stax_reader *r, stax_read_fn fn, void *ctx) {
    if (!r || !fn) return STAX_E_USAGE;
    if (r->doc.fed || r->doc.src || r->doc.pos.offset || r->buf.carry.len)
        return stax__rd_fail_at(r, STAX_E_USAGE, r->doc.pos, "a pull source must be set before any input");
    r->doc.src = fn;
    r->doc.src_ctx = ctx;
    return STAX_OK;
}

int stax_reader_set_source(stax_reader *r, stax_read_fn fn, void *ctx) { return rd_set_source(r, fn, ctx); }

#ifndef STAX_NO_STDIO
static ptrdiff_t rd_read_fd(void *ctx, void *buf, size_t cap) {
    stax_reader *r = (stax_reader *)ctx;
    for (;;) {
        ssize_t n = read(r->doc.fd, buf, cap);
        if (n >= 0) return (ptrdiff_t)n;
        if (errno != EINTR) return -1;
    }
}

static ptrdiff_t rd_read_file(void *ctx, void *buf, size_t cap) {
    stax_reader *r = (stax_reader *)ctx;
    size_t n = fread(buf, 1, cap, r->doc.file);
    if (n == 0 && ferror(r->doc.file)) return -1;
    return (ptrdiff_t)n;
}

int stax_reader_set_fd(stax_reader *r, int fd) {
    if (!r || fd < 0) return STAX_E_USAGE;
    r->doc.fd = fd;
    return rd_set_source(r, rd_read_fd, r);
}

int stax_reader_set_file(stax_reader *r, FILE *f) {
    if (!r || !f) return STAX_E_USAGE;
    r->doc.file = f;
    return rd_set_source(r, rd_read_file, r);
}
#endif

int stax_reader_status(const stax_reader *r) { return r ? r->doc.status : STAX_E_USAGE; }

const char *stax_reader_message(const stax_reader *r) {
    if (!r) return "no reader";
    return r->doc.status < 0 ? r->doc.err.msg : "";
}

stax_pos stax_reader_error_pos(const stax_reader *r) {
    stax_pos none = {0, 0, 0};
    return r && r->doc.status < 0 ? r->doc.err_pos : none;
}

uint32_t stax_reader_depth(const stax_reader *r) { return r ? r->doc.depth : 0; }

size_t stax_reader_notations(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->buf.dtd.notations : NULL;
    return r ? r->buf.dtd.n_not : 0;
}

int stax_reader_ns_lookup(const stax_reader *r, stax_str prefix, stax_str *uri) {
    if (!r || !r->buf.ev_ns || !uri) return -1;
    return stax__ns_lookup(&r->buf.ns, prefix, uri);
}

size_t stax_reader_dtd_pis(const stax_reader *r, const stax_dtd_pi **out) {
    if (!out) return 0;
    *out = r ? r->buf.dtd.pis : NULL;
    return r ? r->buf.dtd.n_pis : 0;
}

size_t stax_reader_unparsed_entities(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->buf.dtd.unparsed : NULL;
    return r ? r->buf.dtd.n_unp : 0;
}
