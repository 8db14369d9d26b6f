#!/usr/bin/env python3
"""Adversarial documents for bench/adversarial.sh: shapes that are hard for a
streaming reader (long runs with no tag, many short entities, references in
attribute values, long comments and PIs, many namespace bindings, deep
nesting with attribute defaults), each built by repeating one unit.

    python3 bench/adversarial.py -l                list the shapes
    python3 bench/adversarial.py SHAPE KIB FILE    write SHAPE, about KIB KiB, to FILE

The same arguments always give the same bytes; twice the KiB gives twice the
units (the prologue, at most a few hundred KiB, stays). Every document is
well-formed, with namespaces as well (the ns-* shapes are read with them).
"""
import sys


def text_refs():
    # One run of text with no tag: the carry holds it all.
    return '<!DOCTYPE r [<!ENTITY e "x">]><r>', "w &e; ", "</r>"


def text_refs_utf8():
    # The same with a character of two bytes in each piece of text: its UTF-8
    # is checked by blocks, which each reference that ends a piece starts again.
    return '<!DOCTYPE r [<!ENTITY e "x">]><r>', "w\u00e9 &e; ", "</r>"


def skipped_refs():
    # References to entities never declared, after a parameter entity reference
    # (not an error then: each is an ENTITY_REF event), in UTF-8 text.
    return '<!DOCTYPE r [<!ENTITY % p ""> %p;]><r>', "w\u00e9 &u; ", "</r>"


def entities():
    # 4,000 one-byte entities (a DTD that fits max_dtd), each referenced in turn.
    decl = "".join('<!ENTITY e%d "%s">' % (i, chr(97 + i % 26)) for i in range(4000))
    unit = "".join("<p>&e%d;t&e%d;</p>" % (i, (i * 7) % 4000) for i in range(4000))
    return "<!DOCTYPE r [" + decl + "]><r>", unit, "</r>"


def attr_refs():
    # Attribute values made of references (entity, character, predefined).
    unit = '<e a="v &e; &#38;&lt;&#x20AC;" b="&e;&e;&e;&e;" c="&#9;x&#10;&amp;"/>\n'
    return '<!DOCTYPE r [<!ENTITY e "xy">]><r>', unit, "</r>"


def comments_pis():
    # Comments and PIs of 100 KB each: longer than a read, held whole.
    body = "c - ? > " * 12500
    unit = "<!--" + body + "--><?pi " + body + "?>\n"
    return "<r>", unit, "</r>"


def ns_many_elements():
    # Each element declares its own prefix and uses it below.
    unit = "".join('<e xmlns:p%d="urn:x:%d"><p%d:x p%d:a="1"/></e>' % (i, i, i, i) for i in range(1000))
    return '<r xmlns="urn:d">', unit, "</r>"


def ns_one_element():
    # 60 declarations on one element (max_ns is 64), then each prefix used.
    decls = "".join(' xmlns:p%d="urn:x:%d"' % (i, i) for i in range(60))
    uses = "".join('<p%d:x p%d:a="%d"/>' % (i, 59 - i, i) for i in range(60))
    return "<r>", "<e" + decls + ">" + uses + "</e>\n", "</r>"


def deep_defaults():
    # 1,000 levels (max_depth is 1,024) of an element with 4 defaulted attributes.
    dtd = ('<!DOCTYPE r [<!ATTLIST d a CDATA "1" b CDATA " two " c NMTOKEN " x "'
           ' xmlns:p CDATA "urn:p" p:q CDATA "v">]>')
    unit = "<d>" * 1000 + "t" + "</d>" * 1000 + "\n"
    return dtd + "<r>", unit, "</r>"


SHAPES = {
    "text-refs": text_refs,
    "text-refs-utf8": text_refs_utf8,
    "skipped-refs": skipped_refs,
    "entities": entities,
    "attr-refs": attr_refs,
    "comments-pis": comments_pis,
    "ns-many-elements": ns_many_elements,
    "ns-one-element": ns_one_element,
    "deep-defaults": deep_defaults,
}


def main(argv):
    if len(argv) == 2 and argv[1] == "-l":
        print("\n".join(SHAPES))
        return 0
    if len(argv) != 4 or argv[1] not in SHAPES or not argv[2].isdigit() or int(argv[2]) < 1:
        sys.stderr.write("usage: adversarial.py -l | SHAPE KIB FILE (shapes: %s)\n" % " ".join(SHAPES))
        return 2
    head, unit, tail = SHAPES[argv[1]]()
    units = max(1, int(argv[2]) * 1024 // len(unit.encode("utf-8")))
    per = max(1, (1 << 20) // len(unit))  # units written at a time: about 1 MiB
    block = unit * per
    with open(argv[3], "w", encoding="utf-8", newline="") as f:
        f.write(head)
        left = units
        while left >= per:
            f.write(block)
            left -= per
        f.write(unit * left)
        f.write(tail)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
