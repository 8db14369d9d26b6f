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

/* End of input: the document must be complete. */
static int rd_finish(stax_reader *r) {
    if (r->depth > 0)
        return stax__rd_fail_at(r, STAX_E_TRUNCATED, r->pos, "the input ends inside element '%.*s'",
                          stax__clip(r->stack.len - rd_stack_at(r, r->depth - 1), 64), r->stack.ptr + rd_stack_at(r, r->depth - 1));
    if (r->doc != DOC_EPILOG) return stax__rd_fail_at(r, STAX_E_STRUCTURE, r->pos, "no root element");
    r->done = 1;
    return STAX_END;
}

/* Where the driver stands, worked out from the state at each step (the
 * state says it once: the carry's bytes, the entity stack, the window). */
enum rd_mode {
    RM_DETECT,     /* the input's encoding is not known yet */
    RM_SWITCH,     /* the XML declaration named an 8-bit encoding: decode from here */
    RM_ENTITY_END, /* an entity's text is used up: back to the window it interrupted */
    RM_CARRY,      /* a token straddles chunks: extend it from the window */
    RM_WINDOW,     /* tokens in the window: the caller's chunk, decoded input or entity text */
    RM_REFILL,     /* a window of decoded input is used up: decode more */
    RM_DRY         /* the window is used up */
};

static enum rd_mode rd_mode_of(const stax_reader *r) {
    if (STAX_UNLIKELY(!r->enc)) return RM_DETECT;
    if (STAX_UNLIKELY(r->switch_enc)) return RM_SWITCH;
    if (r->n_ent) return r->in_pos < r->in_len ? RM_WINDOW : RM_ENTITY_END;
    if (r->carry.len) return RM_CARRY;
    if (r->in_pos < r->in_len) return RM_WINDOW;
    return r->enc > STAX__ENC_UTF8 ? RM_REFILL : RM_DRY;
}

/* The window is used up and nothing is pending: more input, or the end. */
static int rd_dry(stax_reader *r) {
    if (!r->ended) return r->batch.count ? STAX_OK : STAX_NEED_INPUT;
    if (r->batch.count) return STAX_OK;
    return rd_finish(r);
}

/* The token at the window's position, the general way: framed, then parsed.
 * An rd_step. */
static int rd_general_token(stax_reader *r) {
    const char *tok = r->in + r->in_pos;
    size_t avail = r->in_len - r->in_pos;
    stax__rd_frame_start(r, &r->fr, (unsigned char)tok[0]);
    r->tok_pos = r->n_ent ? r->ent_pos : r->pos;
    ptrdiff_t end = stax__rd_frame_end(r, &r->fr, tok, avail);
    if (end < 0) return RD_FAIL;
    if (end == 0 && r->n_ent) {
        /* entity text is complete in memory: only text may run to its end */
        if (r->fr.kind != K_TEXT) {
            stax__rd_fail_at(r, STAX_E_SYNTAX, r->ent_pos, "markup does not end inside the replacement text of entity '%.*s'",
                             stax__clip(r->ents[r->n_ent - 1].e->name.len, 64), r->ents[r->n_ent - 1].e->name.ptr);
            return RD_FAIL;
        }
        end = (ptrdiff_t)avail;
    }
    if (end == 0) {
        int behind = rd_behind(r);
        if (r->ended && !behind && r->fr.kind != K_TEXT) /* it runs past the end of input: the carry reports it */
            return stax__rd_stash(r) ? RD_FAIL : RD_NEXT;
        if (r->ended && !behind) {
            end = (ptrdiff_t)avail, r->tok_at_eof = 1; /* text up to the end of input */
        } else if (r->batch.count) {
            r->stash_deferred = 1;
            return RD_BATCH;
        } else { /* the carry holds it now: the next step extends it, or waits for input */
            return stax__rd_stash(r) ? RD_FAIL : RD_NEXT;
        }
    }
    int room = stax__rd_room(r, (size_t)end);
    if (room < 0) return RD_FAIL;
    if (room) return RD_BATCH;
    size_t used = stax__rd_parse(r, &r->fr, tok, (size_t)end, 0);
    int at_eof = r->tok_at_eof;
    r->tok_at_eof = 0;
    if (used == RD_RETRY) return RD_BATCH; /* the batch ends before the token */
    if (!used) return RD_FAIL;
    stax__rd_consume(r, tok, used);
    stax__rd_frame_consumed(r, &r->fr, (size_t)end, used, at_eof);
    r->in_pos += used;
    if (STAX_UNLIKELY(r->switch_enc) && r->batch.count) return RD_BATCH; /* switch with an empty batch */
    if (r->push_ent && stax__rd_push_entity(r)) return RD_FAIL;
    return RD_NEXT;
}

/* ---------------------------------------------------------------- the carry */

/* Hand back to the window up to `extra` bytes at the end of the carry, as
 * many of them as were taken from it (*taken). */
static void rd_carry_give_back(stax_reader *r, size_t *taken, size_t extra) {
    size_t back = extra < *taken ? extra : *taken;
    r->in_pos -= back;
    r->carry.len -= back;
    *taken -= back;
}

/* The end of the input in the carry: text ends there, anything else is cut off. */
static ptrdiff_t rd_carry_at_end(stax_reader *r) {
    if (r->fr.kind == K_TEXT) {
        r->tok_at_eof = 1;
        return (ptrdiff_t)rd_carry_len(r);
    }
    stax_pos at = r->tok_pos;
    rd_advance(r, &at, rd_carry_ptr(r), rd_carry_len(r));
    return stax__rd_fail_at(r, STAX_E_TRUNCATED, at, "the input ends inside %s",
                      r->fr.kind == K_COMMENT ? "a comment"
                      : r->fr.kind == K_PI ? "a processing instruction"
                      : r->fr.kind == K_CDATA || r->fr.kind == K_CDATA_CONT ? "a CDATA section"
                      : r->fr.kind == K_DOCTYPE ? "the DOCTYPE"
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
    r->tok_pos = r->pos; /* the carry always starts at the first unconsumed byte */
    size_t taken = 0;    /* bytes at the end of the carry copied from the window at in_pos - taken */
    r->tok_at_eof = 0;
    ptrdiff_t end;
    while ((end = stax__rd_frame_end(r, &r->fr, rd_carry_ptr(r), rd_carry_len(r))) == 0) {
        size_t avail = r->in_len - r->in_pos;
        if (!avail) {
            if (!r->ended || rd_behind(r)) return RD_WAIT;
            end = rd_carry_at_end(r);
            break;
        }
        size_t len = rd_carry_len(r), step = len > 4096 ? len : 4096;
        if (step > avail) step = avail;
        if (step > r->carry_max - len) step = r->carry_max - len;
        if (!step) return rd_internal(r, "a token is still undecided when the carry is full"), RD_FAIL;
        if (stax__rd_carry_append(r, r->in + r->in_pos, step)) return RD_FAIL;
        r->in_pos += step;
        taken += step;
    }
    if (end < 0) return RD_FAIL;
    size_t tl = (size_t)end;
    rd_carry_give_back(r, &taken, rd_carry_len(r) - tl);
    int room = stax__rd_room(r, tl);
    size_t used = 0;
    if (room < 0) return RD_FAIL;
    if (!room && (used = stax__rd_parse(r, &r->fr, rd_carry_ptr(r), tl, 1)) == RD_RETRY) room = 1;
    if (room) { /* the token is framed again on the next call */
        r->tok_at_eof = 0;
        stax__rd_frame_start(r, &r->fr, (unsigned char)*rd_carry_ptr(r));
        return RD_BATCH;
    }
    int at_eof = r->tok_at_eof;
    r->tok_at_eof = 0;
    if (!used) return RD_FAIL;
    stax__rd_consume(r, rd_carry_ptr(r), used);
    stax__rd_frame_consumed(r, &r->fr, tl, used, at_eof); /* what is left of the token stays: it is the next one */
    if (r->push_ent && stax__rd_push_entity(r)) return RD_FAIL;
    r->carry_off += used;
    if (r->carry_off == r->carry.len) r->carry.len = r->carry_off = 0;
    else stax__rd_frame_start(r, &r->fr, (unsigned char)*rd_carry_ptr(r));
    return RD_NEXT;
}

/* Fill the batch. Returns STAX_OK (batch ready), STAX_NEED_INPUT, STAX_END or an error. */
static int rd_fill(stax_reader *r) {
    for (;;) {
        int rc;
        if (STAX_UNLIKELY(r->push_ent)) { /* an external entity, read on an empty batch */
            if (r->batch.count) return STAX_OK;
            if (stax__rd_push_entity(r)) return r->status;
            continue;
        }
        switch (rd_mode_of(r)) {
        case RM_DETECT:
            rc = stax__rd_detect(r);
            if (rc == RD_FAIL) return r->status;
            if (rc == RD_WAIT) return STAX_NEED_INPUT;
            if (r->carry.len) stax__rd_frame_start(r, &r->fr, (unsigned char)*rd_carry_ptr(r)); /* the first bytes, gathered */
            continue;
        case RM_SWITCH: {
            int e = r->switch_enc;
            r->switch_enc = 0;
            /* bytes kept in the carry after the declaration were not decoded yet
             * (at most the 3 the declaration's framing may have looked past it) */
            char pre[64];
            size_t pre_len = rd_carry_len(r);
            if (pre_len > sizeof pre) return rd_internal(r, "more than a few bytes carried after the declaration");
            if (pre_len) memcpy(pre, rd_carry_ptr(r), pre_len);
            r->carry.len = r->carry_off = 0;
            if (stax__rd_start_transcoding(r, e, r->switch_table, pre, pre_len)) return r->status;
            continue;
        }
        case RM_ENTITY_END:
            if (stax__rd_pop_entity(r)) return r->status;
            continue;
        case RM_REFILL:
            if (r->batch.count) return STAX_OK; /* the batch may point into the window */
            rc = stax__rd_refill(r);
            if (rc == RD_FAIL) return r->status;
            if (rc == RD_NEXT) continue;
            return rd_dry(r);
        case RM_DRY:
            if (r->batch.count >= r->opt.batch_events) return STAX_OK;
            return rd_dry(r);
        case RM_CARRY:
            rc = rd_resume_carry(r);
            if (rc == RD_FAIL) return r->status;
            if (rc == RD_BATCH) return STAX_OK;
            if (rc == RD_NEXT) continue; /* an entity may have started, or the carry may hold more */
            if (r->enc > STAX__ENC_UTF8 && (r->raw_pos < r->raw_len || r->dec_err || r->ended)) {
                if (r->batch.count) return STAX_OK;
                rc = stax__rd_refill(r);
                if (rc == RD_FAIL) return r->status;
                if (rc == RD_NEXT) continue;
                if (!r->ended) return STAX_NEED_INPUT;
                /* nothing more will come: let the carry path see the end of input */
                if (rd_resume_carry(r) == RD_FAIL) return r->status;
                continue;
            }
            return r->batch.count ? STAX_OK : STAX_NEED_INPUT;
        case RM_WINDOW:
            if (r->batch.count >= r->opt.batch_events) return STAX_OK;
#ifndef STAX_NO_FAST_PATH /* the general path alone gives the same events */
            if (r->enc == STAX__ENC_UTF8 && !r->n_ent && r->win_nocr && !r->rest && !r->dtd.n_atts) {
                int k = stax__rd_fast(r);
                if (k < 0) return r->status;
                if (k > 0) {
                    if (r->batch.count + 2 > r->opt.batch_events) return STAX_OK;
                    continue;
                }
            }
#endif
            rc = rd_general_token(r);
            if (rc == RD_NEXT) continue;
            return rc == RD_BATCH ? STAX_OK : r->status;
        }
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
    if (o->encoding && stax__encoding_by_name(o->encoding, strlen(o->encoding)) < 0)
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
    stax__err_init(&r->err, r->err_msg, sizeof r->err_msg);
    r->mem = m;
    r->opt = o;
    r->pos.line = 1;
    r->pos.column = 1;
    r->tok_pos = r->pos; /* errors before the first token are at 1:1 */
#ifndef STAX_NO_STDIO
    r->fd = -1;
#endif
    if (o.encoding) r->forced = stax__encoding_by_name(o.encoding, strlen(o.encoding));
    r->simd = stax__simd_level();
    r->ev_cap = o.batch_events;
    r->attr_cap = sz[L_ATTRS] / sizeof(stax_attr);
    r->carry_max = sz[L_CARRY];
    r->arena_max = sz[L_ARENA];
    r->stack_max = sz[L_STACK];
    /* in the order of rd_layout */
    r->events = (stax_event *)stax__mem_alloc(&r->mem, sz[L_EVENTS]);
    r->attrs = (stax_attr *)stax__mem_alloc(&r->mem, sz[L_ATTRS]);
    if (!r->events || !r->attrs) goto fail;
    r->batch.events = r->events;
    r->batch.attrs = r->attrs;
    if (o.flags & STAX_READ_NAMESPACES) {
        r->ev_ns = (stax_qname *)stax__mem_alloc(&r->mem, sz[L_EV_NS]);
        r->attr_ns = (stax_qname *)stax__mem_alloc(&r->mem, sz[L_ATTR_NS]);
        r->attr_at = (size_t *)stax__mem_alloc(&r->mem, sz[L_ATTR_AT]);
        if (!r->ev_ns || !r->attr_ns || !r->attr_at) goto fail;
        r->batch.ev_ns = r->ev_ns;
        r->batch.attr_ns = r->attr_ns;
    }
    r->ents = (stax__frame *)stax__mem_alloc(&r->mem, sz[L_ENTS]);
    if (!r->ents) goto fail;
    stax__dtd_init(&r->dtd, &r->mem, &o, r->ents, &r->err);
    stax__ext_init(&r->ext, &r->mem, &o);
    if (o.resolve) r->dtd.ext = &r->ext;
    if (o.flags & STAX_READ_NAMESPACES) {
        r->dtd.no_colons = 1;
        if (stax__ns_init(&r->ns, &r->mem, o.max_ns_bytes)) goto fail;
    }
    if (r->mem.block) { /* everything now, so that reading never runs out */
        if (stax__rd_reserve(r, &r->carry, sz[L_CARRY], sz[L_CARRY]) || stax__rd_reserve(r, &r->arena, sz[L_ARENA], sz[L_ARENA]) ||
            stax__rd_reserve(r, &r->stack, sz[L_STACK], sz[L_STACK]))
            goto fail;
        r->stack_off = (size_t *)stax__mem_alloc(&r->mem, sz[L_STACK_OFF]);
        r->rbuf = (char *)stax__mem_alloc(&r->mem, sz[L_RBUF]);
        r->tbuf = (char *)stax__mem_alloc(&r->mem, sz[L_TBUF]);
        if (!r->stack_off || !r->rbuf || !r->tbuf || stax__dtd_reserve(&r->dtd) || stax__ext_reserve(&r->ext)) goto fail;
        r->stack_off_cap = o.max_depth;
        r->rbuf_cap = r->tbuf_cap = o.read_buffer;
    }
    return r;
fail:
    stax_reader_free(r);
    return NULL;
}

void stax_reader_free(stax_reader *r) {
    if (!r) return;
    stax__dtd_free(&r->dtd);
    stax__ns_free(&r->ns);
    stax__ext_free(&r->ext);
    stax__mem m = r->mem;
    size_t sz[L_COUNT];
    rd_layout(&r->opt, sz);
    stax__mem_free(&m, r->ev_ns, sz[L_EV_NS]);
    stax__mem_free(&m, r->attr_ns, sz[L_ATTR_NS]);
    stax__mem_free(&m, r->attr_at, sz[L_ATTR_AT]);
    stax__mem_free(&m, r->events, sz[L_EVENTS]);
    stax__mem_free(&m, r->attrs, sz[L_ATTRS]);
    stax__mem_free(&m, r->ents, sz[L_ENTS]);
    stax__buf_free(&m, &r->arena);
    stax__buf_free(&m, &r->carry);
    stax__buf_free(&m, &r->stack);
    stax__mem_free(&m, r->stack_off, (size_t)r->stack_off_cap * sizeof *r->stack_off);
    stax__mem_free(&m, r->rbuf, r->rbuf_cap);
    stax__mem_free(&m, r->tbuf, r->tbuf_cap);
    stax__mem_free(&m, r, sizeof *r);
}

size_t stax_reader_memory_peak(const stax_reader *r) { return r ? r->mem.peak : 0; }

int stax_reader_reset(stax_reader *r) {
    if (!r) return STAX_E_USAGE;
    stax_reader k = *r; /* what is kept: the memory, the options, every buffer */
    memset(r, 0, sizeof *r);
    stax__err_init(&r->err, r->err_msg, sizeof r->err_msg);
    r->mem = k.mem;
    r->opt = k.opt;
    r->simd = k.simd;
    r->forced = k.forced;
    r->pos.line = r->pos.column = 1;
    r->tok_pos = r->pos;
#ifndef STAX_NO_STDIO
    r->fd = -1;
#endif
    r->carry = k.carry;
    r->carry.len = 0;
    r->carry_max = k.carry_max;
    r->arena = k.arena;
    r->arena.len = 0;
    r->arena_max = k.arena_max;
    r->stack = k.stack;
    r->stack.len = 0;
    r->stack_max = k.stack_max;
    r->stack_off = k.stack_off;
    r->stack_off_cap = k.stack_off_cap;
    r->events = k.events;
    r->ev_cap = k.ev_cap;
    r->attrs = k.attrs;
    r->attr_cap = k.attr_cap;
    r->batch.events = k.events;
    r->batch.attrs = k.attrs;
    r->ents = k.ents;
    r->ext = k.ext;
    stax__ext_reset(&r->ext);
    r->tbuf = k.tbuf;
    r->tbuf_cap = k.tbuf_cap;
    r->rbuf = k.rbuf;
    r->rbuf_cap = k.rbuf_cap;
    r->dtd = k.dtd;
    r->dtd.err = &r->err; /* the reader's own, now at the same place */
    stax__dtd_reset(&r->dtd, &r->opt);
    if (k.ev_ns) {
        r->ev_ns = k.ev_ns;
        r->attr_ns = k.attr_ns;
        r->attr_at = k.attr_at;
        r->batch.ev_ns = k.ev_ns;
        r->batch.attr_ns = k.attr_ns;
        r->ns = k.ns;
        stax__ns_reset(&r->ns);
    }
    return STAX_OK;
}

/* A new chunk: the window itself, or (transcoding) the raw input behind it. */
static void rd_set_input(stax_reader *r, const char *data, size_t len) {
    r->fed = 1;
    if (r->enc > STAX__ENC_UTF8) {
        r->raw_base += r->raw_len;
        r->raw = data;
        r->raw_len = len;
        r->raw_pos = 0;
        return;
    }
    r->in = data;
    r->in_len = len;
    r->in_pos = 0;
    r->win_nocr = len && !memchr(data, '\r', len);
}

int stax_reader_feed(stax_reader *r, const void *data, size_t len) {
    if (!r) return STAX_E_USAGE;
    if (r->status < 0) return r->status;
    if (r->fed || r->ended || r->src || (!data && len)) {
        return stax__rd_fail_at(r, STAX_E_USAGE, r->pos,
                          r->src ? "stax_reader_feed on a reader with a pull source"
                          : r->ended ? "stax_reader_feed after stax_reader_end"
                          : !data ? "stax_reader_feed with NULL data"
                                  : "stax_reader_feed before the reader asked for more input");
    }
    rd_set_input(r, (const char *)data, len);
    return STAX_OK;
}

/* No chunk follows the one fed last (or, when none is being read, none at all). */
static int rd_end(stax_reader *r) {
    r->ended = 1;
    if (!r->fed) rd_set_input(r, NULL, 0); /* else the chunk being read is the last one */
    return STAX_OK;
}

int stax_reader_end(stax_reader *r) {
    if (!r) return STAX_E_USAGE;
    if (r->status < 0) return r->status;
    if (r->src || r->ended)
        return stax__rd_fail_at(r, STAX_E_USAGE, r->pos,
                          r->src ? "stax_reader_end on a reader with a pull source" : "stax_reader_end called twice");
    return rd_end(r);
}

static int rd_pull(stax_reader *r) {
    if (!r->rbuf) {
        r->rbuf = (char *)stax__mem_alloc(&r->mem, r->opt.read_buffer);
        if (!r->rbuf) return stax__rd_nomem(r);
        r->rbuf_cap = r->opt.read_buffer;
    }
    ptrdiff_t n = r->src(r->src_ctx, r->rbuf, r->rbuf_cap);
    if (n < 0) return stax__rd_fail_at(r, STAX_E_IO, r->pos, "read error from the input source");
    if (n == 0) return rd_end(r);
    rd_set_input(r, r->rbuf, (size_t)n > r->rbuf_cap ? r->rbuf_cap : (size_t)n);
    return STAX_OK;
}

int stax_reader_next(stax_reader *r, const stax_batch **out) {
    if (!r || !out) return STAX_E_USAGE;
    *out = &r->batch;
    r->batch.count = 0;
    r->attr_len = 0;
    r->arena.len = 0;
    stax__ext_release(&r->ext); /* the texts of external entities that ended in the last batch */
    if (r->ev_ns) stax__ns_reclaim(&r->ns);
    if (r->status < 0) return r->status;
    if (r->done) return STAX_END;
    for (;;) {
        if (!r->fed) {
            if (!r->src) return stax__rd_fail_at(r, STAX_E_USAGE, r->pos, "stax_reader_next before any input was fed");
            if (rd_pull(r)) return r->status;
        }
        if (r->stash_deferred && stax__rd_stash(r)) return r->status;
        int st = rd_fill(r);
        if (st < 0 && r->batch.count) return STAX_OK; /* the error comes with the next call */
        if (st == STAX_NEED_INPUT) {
            r->fed = 0;
            if (r->src) continue;
        }
        if (st == STAX_END && r->batch.count) return STAX_OK;
        return st;
    }
}

static int rd_set_source(stax_reader *r, stax_read_fn fn, void *ctx) {
    if (!r || !fn) return STAX_E_USAGE;
    if (r->fed || r->src || r->pos.offset || r->carry.len)
        return stax__rd_fail_at(r, STAX_E_USAGE, r->pos, "a pull source must be set before any input");
    r->src = fn;
    r->src_ctx = ctx;
    return STAX_OK;
}

int stax_reader_set_source(stax_reader *r, stax_read_fn fn, void *ctx) { return rd_set_source(r, fn, ctx); }

#ifndef STAX_NO_STDIO
static ptrdiff_t rd_read_fd(void *ctx, void *buf, size_t cap) {
    stax_reader *r = (stax_reader *)ctx;
    for (;;) {
        ssize_t n = read(r->fd, buf, cap);
        if (n >= 0) return (ptrdiff_t)n;
        if (errno != EINTR) return -1;
    }
}

static ptrdiff_t rd_read_file(void *ctx, void *buf, size_t cap) {
    stax_reader *r = (stax_reader *)ctx;
    size_t n = fread(buf, 1, cap, r->file);
    if (n == 0 && ferror(r->file)) return -1;
    return (ptrdiff_t)n;
}

int stax_reader_set_fd(stax_reader *r, int fd) {
    if (!r || fd < 0) return STAX_E_USAGE;
    r->fd = fd;
    return rd_set_source(r, rd_read_fd, r);
}

int stax_reader_set_file(stax_reader *r, FILE *f) {
    if (!r || !f) return STAX_E_USAGE;
    r->file = f;
    return rd_set_source(r, rd_read_file, r);
}
#endif

int stax_reader_status(const stax_reader *r) { return r ? r->status : STAX_E_USAGE; }

const char *stax_reader_message(const stax_reader *r) {
    if (!r) return "no reader";
    return r->status < 0 ? r->err.msg : "";
}

stax_pos stax_reader_error_pos(const stax_reader *r) {
    stax_pos none = {0, 0, 0};
    return r && r->status < 0 ? r->err_pos : none;
}

uint32_t stax_reader_depth(const stax_reader *r) { return r ? r->depth : 0; }

size_t stax_reader_notations(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->dtd.notations : NULL;
    return r ? r->dtd.n_not : 0;
}

int stax_reader_ns_lookup(const stax_reader *r, stax_str prefix, stax_str *uri) {
    if (!r || !r->ev_ns || !uri) return -1;
    return stax__ns_lookup(&r->ns, prefix, uri);
}

size_t stax_reader_dtd_pis(const stax_reader *r, const stax_dtd_pi **out) {
    if (!out) return 0;
    *out = r ? r->dtd.pis : NULL;
    return r ? r->dtd.n_pis : 0;
}

size_t stax_reader_unparsed_entities(const stax_reader *r, const stax_decl **out) {
    if (!out) return 0;
    *out = r ? r->dtd.unparsed : NULL;
    return r ? r->dtd.n_unp : 0;
}
