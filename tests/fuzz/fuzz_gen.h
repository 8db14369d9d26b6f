/* A generator of XML documents for the fuzz targets: it reads its input as a
 * sequence of choices in a grammar of XML 1.0 with an internal DTD subset,
 * namespaces and encodings, and writes the document those choices make.
 * The same choices always give the same document; an input that runs out
 * makes every further choice 0, which is always the shortest, most benign
 * one (so short inputs give small, mostly well-formed documents).
 *
 * What it writes (fuzz_gen.c has the grammar):
 *   - an XML declaration (version, encoding name, standalone), a BOM
 *   - a DOCTYPE with or without an external id, with an internal subset of
 *     every declaration kind: ENTITY (general and parameter; internal,
 *     external, unparsed), ATTLIST (every type, enumerations, #REQUIRED,
 *     #IMPLIED, #FIXED, defaults built from text, character references and
 *     entity references), ELEMENT (EMPTY, ANY, mixed, nested children
 *     models), NOTATION, PIs, comments, parameter-entity references (and
 *     parameter entities whose text is declarations)
 *   - chains of entities, each referencing the one before many times, the
 *     innermost starting or ending with spaces, referenced in content and in
 *     attribute values of every declared type
 *   - a body: nested elements with attributes, text, references of every
 *     kind, CDATA, comments, PIs; namespace declarations on many levels
 *     (prefixes, default namespace, undeclaring it, rebinding)
 *   - one of UTF-8 (with or without BOM), UTF-16 LE/BE (with or without BOM),
 *     ISO-8859-1, windows-1252, US-ASCII, with characters of that repertoire
 *   - now and then a fault: a bad byte sequence for the encoding, a
 *     forbidden character, an undeclared or recursive entity, a broken
 *     declaration, a duplicate attribute, an unbound prefix.
 */
#ifndef FUZZ_GEN_H
#define FUZZ_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz_buf {
    uint8_t *p;
    size_t len, cap;
} fz_buf;

void fz_buf_add(fz_buf *b, const void *p, size_t n);
void fz_buf_free(fz_buf *b);

/* The document the choices make, appended to out (encoded). */
void fz_gen_document(const uint8_t *choices, size_t n, fz_buf *out);

/* A piece for splicing into another document (fuzz_reader's mutator), in
 * UTF-8: kind 0 a markup declaration, 1 an element, 2 a reference or
 * character data for content, 3 an attribute. It may refer to entities named
 * e0..e3 and c0..c3, notations n0..n1, prefixes p and q. */
void fz_gen_piece(const uint8_t *choices, size_t n, int kind, fz_buf *out);

#endif
