/* Input encodings (encoding.c). */
#ifndef STAX_ENCODING_H
#define STAX_ENCODING_H

#include "stax_internal.h"

/* ------------------------------------------------------------- input encodings (encoding.c)
 * Transcoding of the input to UTF-8; docs/encodings.md has the rules. */
enum {
    STAX__ENC_UTF8 = 1,
    STAX__ENC_UTF16LE,
    STAX__ENC_UTF16BE,
    STAX__ENC_LATIN1,
    STAX__ENC_ASCII,
    STAX__ENC_CP1252,
    STAX__ENC_TABLE,      /* the caller's 256-entry table */
    STAX__ENC_UTF32LE,
    STAX__ENC_UTF32BE,
    STAX__ENC_HOOK,       /* the caller's decoder (stax_reader_options.decoder) */
    STAX__ENC_EBCDIC,     /* detected only: "<?xm" in EBCDIC, for the caller's decoder */
    STAX__ENC_UTF16 = 100,/* by name only: "UTF-16", endianness from the BOM */
    STAX__ENC_UTF32,      /* by name only: "UTF-32", endianness from the BOM */
    STAX__ENC_SBCS = 128  /* STAX__ENC_SBCS + k: built-in single-byte table k (encoding_tables.h) */
};
#define STAX__DEC_ERROR (-1)

/* The caller's decoder in use (STAX__ENC_HOOK): its functions, its state
 * (from open; closed by stax__decoder_close), its name for messages, and
 * status: 0; STAX__HOOK_ENDED once it was told the input ended and wrote
 * all it had; or after STAX__DEC_ERROR the status it gave (STAX_E_ENCODING,
 * STAX_E_TRUNCATED, or another: msg says what). Small: every reader holds
 * one, in every build (STAX_READER_MIN_MEMORY is one number a target). */
#define STAX__HOOK_ENDED 1
typedef struct stax__hook {
    const stax_decoder *fns;
    void *state;
    const char *msg;
    int status;
    char name[24];         /* as declared (clipped to 23 bytes) */
} stax__hook;

typedef struct stax__decoder {
    int enc;               /* STAX__ENC_* (resolved: never STAX__ENC_UTF16) */
    const uint32_t *table; /* STAX__ENC_TABLE: code point of each byte; > 0x10FFFF or a
                              surrogate = invalid byte (0xFFFFFFFF by convention) */
    unsigned char pend[4]; /* bytes of a unit split across calls */
    unsigned npend;
    unsigned err_pend;     /* after STAX__DEC_ERROR: bytes of the bad unit that came from
                              earlier calls (it starts that many bytes before src) */
    int table_ascii;       /* set by stax__decoder_init: table maps 0..0x7F to themselves */
    stax__hook hook;       /* STAX__ENC_HOOK: the caller's decoder */
} stax__decoder;

/* Zero d and set it up for enc (and table, for STAX__ENC_TABLE). Setting the
 * fields by hand on a zeroed struct works too; init lets a table take the
 * ASCII fast path. */
STAXINT void stax__decoder_init(stax__decoder *d, int enc, const uint32_t *table);

/* Set d up for the caller's decoder fns: open(ud, name) is asked for a
 * state. 0, or -1 when it refuses the name, or the build leaves decoders
 * out (d is then left as stax__decoder_init with 0 leaves it). */
STAXINT int stax__decoder_open(stax__decoder *d, const stax_decoder *fns, void *ud, const char *name, size_t len);

/* Close the caller's decoder, if d has one open (any decoder: a no-op). */
STAXINT void stax__decoder_close(stax__decoder *d);


/* Encoding by name (ASCII case-insensitive, with the usual aliases). Returns
 * STAX__ENC_*, STAX__ENC_UTF16 for "UTF-16" without endianness, or -1. */
STAXINT int stax__encoding_by_name(const char *name, size_t len);

/* Whether name[0, len) is z, ASCII case-insensitive (not with
 * STAX_NO_EXTRA_ENCODINGS, where nothing needs it). */
STAXINT int stax__encoding_same(const char *name, size_t len, const char *z);

/* The canonical name of an encoding ("UTF-16LE", ...), for messages. */
STAXINT const char *stax__encoding_name(int enc);

/* XML 1.0 Appendix F on the first n bytes. Returns the encoding and sets
 * *bom_len (3 for the UTF-8 BOM, 2 for a UTF-16 BOM, 4 for a UTF-32 BOM, else 0); 0 when more
 * bytes are needed (only if n < 4 and !at_end); STAX__ENC_EBCDIC for "<?xm" in
 * EBCDIC (no decoder of stax's: the caller's may read it); -1 for two UCS-4 orders;
 * STAX__ENC_UTF8 (no BOM) by default. UTF-32 is found by its BOM (4 bytes)
 * or by '<' in its first unit; the other two UCS-4 byte orders are -1. */
STAXINT int stax__encoding_detect(const unsigned char *p, size_t n, int at_end, size_t *bom_len);

/* The encoding to decode with, from what detection found (detected, bom_len)
 * and the encoding declaration (declared: from stax__encoding_by_name, or 0
 * when there is none). Returns a resolved STAX__ENC_*, or -1 when the two
 * contradict (a BOM and a declaration naming another encoding; UTF-16 bytes
 * declared as an 8-bit encoding or the other way round). */
STAXINT int stax__encoding_resolve(int detected, size_t bom_len, int declared);

/* Transcode src[0, n) to UTF-8 in dst[0, cap) (cap >= 8). Whole units only: a
 * unit cut by the end of src goes to d->pend and is completed by the next
 * call. Stops early when dst is nearly full. Returns 0 with *consumed (bytes
 * of src used, those moved into pend included) and *produced; or
 * STAX__DEC_ERROR with *consumed = offset of the bad unit in src (0 if it
 * began in pend; d->err_pend says how many bytes before src) and *produced =
 * bytes written before it; the decoder is then spent. The output is valid
 * UTF-8 (except for STAX__ENC_UTF8, copied as is); Char checks are the reader's. */
STAXINT int stax__decode(stax__decoder *d, const char *src, size_t n, size_t *consumed, char *dst, size_t cap,
                         size_t *produced);

/* Input ended: STAX__DEC_ERROR if a partial unit is pending, else 0. */
STAXINT int stax__decode_finish(const stax__decoder *d);

/* The same for any decoder: STAX__DEC_ERROR if a partial unit is pending (d->err_pend:
 * its length, for the caller's decoder), else 0. The caller's decoder is
 * told and may write its last output to dst[0, cap) (*produced): call again
 * while it writes some. */
STAXINT int stax__decode_end(stax__decoder *d, char *dst, size_t cap, size_t *produced);

/* The name of d's encoding, for messages. */
static inline const char *stax__decoder_name(const stax__decoder *d) {
#ifndef STAX_NO_EXTRA_ENCODINGS
    if (d->enc == STAX__ENC_HOOK) return d->hook.name;
#endif
    return stax__encoding_name(d->enc);
}

#endif /* STAX_ENCODING_H */
