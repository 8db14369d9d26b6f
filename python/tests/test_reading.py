"""Reader batches (by index and as columns) and records (dicts, elements)."""
import io
import pathlib
import xml.etree.ElementTree as ET

import pytest

import stax


def events_by_index(source, **opts):
    out = []
    for b in stax.Reader(source, **opts):
        for i in range(len(b)):
            out.append((b.kind(i), b.name(i), b.text(i), b.attributes(i), b.pos(i), b.depth(i)))
    return out


def test_batches_by_index_and_columns_agree(docs):
    path = docs["mixed-dump"]
    n = 0
    for b in stax.Reader(path, batch_events=64):
        kinds, names, texts = b.kinds, b.names, b.texts
        offs, lines, cols, depths = b.offsets, b.lines, b.columns, b.depths
        attrs = b.attributes_column
        assert len(kinds) == len(b) <= 64
        for i in range(len(b)):
            k = b.kind(i)
            assert kinds[i] == k
            assert (names[i] if names[i] is not None else "") == b.name(i)
            assert (texts[i] if texts[i] is not None else "") == b.text(i)
            assert (offs[i], lines[i], cols[i]) == b.pos(i)
            assert depths[i] == b.depth(i)
            assert attrs[i] == (b.attributes(i) if k == stax.START else None)
            assert b[i] == (k, b.name(i), b.text(i), b.attributes(i), b.pos(i), b.depth(i))
            n += 1
    assert n > 1000


def test_events_do_not_depend_on_the_chunks(docs):
    path = docs["nonascii"]
    data = pathlib.Path(path).read_bytes()[:20000]
    data = data[:data.rfind(b"\n  <doc")] + b"\n</corpus>"  # a smaller document of the same shape
    whole = [e for e in events_by_index(data) if e[0] != stax.TEXT]
    for chunk in (1, 3, 1000):
        got = [e for e in events_by_index(io.BytesIO(data), chunk=chunk) if e[0] != stax.TEXT]
        assert got == whole


def test_events_and_counts_agree(docs):
    path = docs["attrs"]
    ev = events_by_index(path)
    c = stax.count(path)
    assert sum(1 for e in ev if e[0] == stax.START) == c["elements"]
    assert sum(len(e[3]) for e in ev) == c["attributes"]


def test_event_fields():
    doc = b'<?xml version="1.0"?>\n<!DOCTYPE r>\n<r a="1"><!--c--><?p d?><x/>t<![CDATA[<c>]]></r>'
    ev = events_by_index(doc)
    kinds = [e[0] for e in ev]
    assert kinds == [stax.XMLDECL, stax.DOCTYPE, stax.START, stax.COMMENT, stax.PI, stax.START, stax.END, stax.TEXT,
                     stax.CDATA, stax.END]
    assert ev[2][3] == [("a", "1")] and ev[2][4] == (35, 3, 1)
    assert ev[3][2] == "c" and ev[4][1:3] == ("p", "d") and ev[8][2] == "<c>"
    b = next(iter(stax.Reader(doc)))
    assert b.flags(5) & stax.EMPTY


def test_namespaces():
    doc = b'<r xmlns="urn:a" xmlns:p="urn:p"><p:x p:y="1"><z/></p:x></r>'
    r = stax.Reader(doc, namespaces=True, batch_events=2)
    got, bound = [], []
    for b in r:
        for i in range(len(b)):
            if b.kind(i) == stax.START:
                got.append((b.uri(i), b.local(i), b.prefix(i)))
        bound.append((r.depth, r.ns_lookup("p")))  # after the batch's last event
    assert got == [("urn:a", "r", ""), ("urn:p", "x", "p"), ("urn:a", "z", "")]
    assert all(u == ("urn:p" if d else None) for d, u in bound) and any(d for d, _ in bound)


def test_a_batch_is_valid_until_the_next():
    r = stax.Reader(b"<r>" + b"<x/>" * 1000 + b"</r>", batch_events=16)
    first = next(r)
    assert 0 < len(first) <= 16
    next(r)
    with pytest.raises(RuntimeError):
        first.kind(0)
    with pytest.raises(IndexError):
        next(r).kind(99)


def test_reader_errors():
    r = stax.Reader(b"<a><b></a>")
    with pytest.raises(stax.XMLError) as e:
        list(r)
    assert e.value.line == 1 and e.value.column == 7
    with pytest.raises(stax.XMLError):
        next(r)  # sticky


def dict_of(e):
    """The dict stax.records gives, from an ElementTree element."""
    d = {"@" + k: v for k, v in e.attrib.items()}
    for c in e:
        v = "".join(c.itertext())
        if c.tag in d:
            d[c.tag] = d[c.tag] + [v] if isinstance(d[c.tag], list) else [d[c.tag], v]
        else:
            d[c.tag] = v
    own = (e.text or "") + "".join(c.tail or "" for c in e)
    if own.strip():
        d["#text"] = own
    return d


@pytest.mark.parametrize("shape,path,tag", [("record", "//row", "row"), ("mixed-dump", "//contributor", "contributor"),
                                            ("attrs", "//node", "node"), ("mixed", "//p", "p")])
def test_records_as_dicts_are_iterparses(docs, shape, path, tag):
    doc = docs[shape]
    want = []
    for _, e in ET.iterparse(doc):
        if e.tag.rsplit("}", 1)[-1] == tag:
            want.append(dict_of(e))
    got = list(stax.records(doc, path))
    # ElementTree names by URI, stax (without namespaces=True) as written
    want = [{k.rsplit("}", 1)[-1]: v for k, v in d.items()} for d in want]
    assert got == want and got


def test_records_as_elements_are_iterparses(docs):
    doc = docs["record"]
    want = [ET.tostring(e) for _, e in ET.iterparse(doc) if e.tag == "row"]
    got = [ET.tostring(e) for e in stax.records(doc, "//row", element=True)]
    assert [ET.canonicalize(x) for x in got] == [ET.canonicalize(x) for x in want]
    doc = docs["mixed-dump"]
    want = [ET.canonicalize(ET.tostring(e)) for _, e in ET.iterparse(doc) if e.tag == "{urn:stax:bench}revision"]
    got = [ET.canonicalize(ET.tostring(e))
           for e in stax.records(doc, "//b:revision", element=True, namespaces={"b": "urn:stax:bench"})]
    assert got == want and got


def test_records_nested_and_lxml():
    doc = b"<r><s a='1'><s a='2'><t>x</t></s><t>y</t></s></r>"
    got = list(stax.records(doc, "//s"))
    assert got == [{"@a": "2", "t": "x"}, {"@a": "1", "s": "x", "t": "y"}]
    lxml = pytest.importorskip("lxml.etree")
    el = list(stax.records(doc, "//s", element=lxml.Element))
    assert [lxml.tostring(e) for e in el][1] == b'<s a="1"><s a="2"><t>x</t></s><t>y</t></s>'


def test_records_errors():
    it = stax.records(b"<r><s/><s/><x></r>", "//s")
    assert next(it) == {} and next(it) == {}
    with pytest.raises(stax.XMLError):
        next(it)


def test_one_thread_at_a_time():
    """An object reading without the GIL (a path: here a pipe's) refuses a
    second thread instead of sharing its reader."""
    import os
    import threading
    import time

    r, w = os.pipe()
    for make in (lambda p: stax.Reader(p), lambda p: stax.select(p, "//x"), lambda p: stax.records(p, "//x")):
        obj = make("/dev/fd/%d" % r)
        got = []
        t = threading.Thread(target=lambda: got.append(next(obj)))  # blocks in read(2), the GIL released
        t.start()
        time.sleep(0.2)
        with pytest.raises(RuntimeError, match="another thread"):
            next(obj)
        os.write(w, b"<r><x>1</x></r>")
        t.join()
        assert got
    os.close(w)
    os.close(r)
