"""The Writer, tostring for ElementTree and lxml, stanzas from domish elements."""
import io
import os
import sys
import xml.etree.ElementTree as ET

import pytest

import stax
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import python_task  # noqa: E402  (bench/python_task.py)


def c14n(b):
    return ET.canonicalize(b if isinstance(b, str) else b.decode())


def test_writer_calls():
    w = stax.Writer(indent=None)
    w.xml_decl(encoding="UTF-8")
    w.doctype("r", subset="<!ENTITY e 'x'>")
    w.start("r", {"a": 'x"<&\t'})
    w.ns("p", "urn:p")
    w.attr("p:b", "1")
    w.comment("c")
    w.pi("t", "d")
    w.start("x")
    w.text("a < b & c > d")
    w.text(42)
    w.end()
    w.element("n", -7)
    w.element("s", "text")
    w.cdata("x]]>y")
    w.raw(b"<raw/>")
    assert w.depth == 1
    w.finish()
    out = w.getvalue()
    assert out.startswith(b'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE r [<!ENTITY e \'x\'>]>')
    assert b'<r a="x&quot;&lt;&amp;&#9;" xmlns:p="urn:p" p:b="1"><!--c--><?t d?>' in out
    assert b"<x>a &lt; b &amp; c &gt; d42</x><n>-7</n><s>text</s><![CDATA[x]]]]><![CDATA[>y]]><raw/></r>" in out
    stax.check(out)


def test_writer_refusals_raise_and_change_nothing():
    w = stax.Writer()
    w.start("a")
    with pytest.raises(stax.WriterError) as e:
        w.start("1bad")
    assert "stax_writer_start" in str(e.value) and e.value.code < 0
    with pytest.raises(stax.WriterError):
        w.comment("a--b")
    with pytest.raises(stax.WriterError):
        w.text("\x01")
    w.attr("x", "1")
    with pytest.raises(stax.WriterError):
        w.attr("x", "2")
    w.finish()
    assert w.getvalue() == b'<a x="1"></a>'
    with pytest.raises(TypeError):
        stax.Writer(no_such=1)


def test_writer_to_files_and_callables(tmp_path):
    p = tmp_path / "out.xml"
    with open(p, "wb") as f, stax.Writer(f, self_close=True, indent=2) as w:
        w.start("a")
        w.element("b", "1")
        w.start("c")
    assert p.read_bytes() == b"<a>\n  <b>1</b>\n  <c/>\n</a>"
    got = []
    w = stax.Writer(got.append, buffer_size=64)
    w.start("r")
    for i in range(100):
        w.element("i", i)
    w.finish()
    assert b"".join(got).count(b"<i>") == 100 and max(map(len, got)) <= 64


def test_writer_sink_errors_are_raised():
    def sink(b):
        raise OSError("disk full")

    w = stax.Writer(sink, buffer_size=64)
    w.start("r")
    with pytest.raises(OSError, match="disk full"):
        for _ in range(100):
            w.element("i", "x" * 10)
    with pytest.raises(stax.WriterError):  # sticky
        w.finish()


def test_non_blocking_sink_and_the_retry_rule():
    """A sink that takes less than offered: the call raises BlockingIOError,
    and repeating it when the sink can take more loses and duplicates nothing."""
    taken = bytearray()
    budget = [0]

    def sink(b):
        n = min(len(b), budget[0])
        budget[0] -= n
        taken.extend(b[:n])
        return n

    w = stax.Writer(sink, buffer_size=64)
    calls = [("start", ("r",))] + [("element", ("i", str(i) * 7)) for i in range(200)] + [("finish", ())]
    blocked = 0
    for name, args in calls:
        while True:
            try:
                getattr(w, name)(*args)
                break
            except BlockingIOError:
                blocked += 1
                budget[0] += 37  # the sink can take more: the same call again
    want = stax.Writer()
    for name, args in calls:
        getattr(want, name)(*args)
    assert blocked > 10 and bytes(taken) == want.getvalue()


def test_non_blocking_pipe():
    r, wfd = os.pipe()
    os.set_blocking(wfd, False)
    f = os.fdopen(wfd, "wb", buffering=0)  # write() returns None when the pipe is full

    def sink(b):
        n = f.write(b)
        return 0 if n is None else n

    w = stax.Writer(sink)
    w.start("r")
    payload = "y" * 1000
    out = bytearray()
    for i in range(300):  # 300 KB: more than a pipe holds
        while True:
            try:
                w.element("i", payload)
                break
            except BlockingIOError:
                out += os.read(r, 1 << 16)
    while True:
        try:
            w.finish()
            break
        except BlockingIOError:
            out += os.read(r, 1 << 16)
    f.close()
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        out += b
    os.close(r)
    assert stax.count(bytes(out))["elements"] == 301


TREES = [
    "<a/>",
    "<a x='1' y='&lt;&amp;&quot;'>t<b>u</b>v<c/>w</a>",
    "<r xmlns='urn:d' xmlns:p='urn:p'><p:x p:at='1'><y/></p:x><z xml:lang='en'/></r>",
    "<r><s xmlns='urn:1'><t xmlns='urn:2'/></s><u/></r>",
    "<a>\n  <b>caf\u00e9 \u6f22 \U0001F600</b>\n</a>",
]


@pytest.mark.parametrize("doc", TREES)
def test_tostring_elementtree(doc):
    e = ET.fromstring(doc)
    got = stax.tostring(e)
    assert c14n(got) == c14n(ET.tostring(e))
    assert stax.tostring(e, encoding="unicode") == got.decode()
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True, insert_pis=True))
    e = ET.fromstring("<a><!--c--><?p d?>x</a>", parser)
    assert c14n(stax.tostring(e)) == c14n(ET.tostring(e))


@pytest.mark.parametrize("doc", TREES + ["<a><!--c--><?p d?>x</a>"])
def test_tostring_lxml(doc):
    etree = pytest.importorskip("lxml.etree")
    e = etree.fromstring(doc)
    got = stax.tostring(e)
    assert etree.tostring(etree.fromstring(got), method="c14n") == etree.tostring(e, method="c14n")


def test_tostring_tail_and_errors():
    e = ET.fromstring("<a><b>x</b> &amp; tail</a>")
    b = e[0]
    assert stax.tostring(b) == b"<b>x</b> &amp; tail"
    assert stax.tostring(b, with_tail=False) == b"<b>x</b>"
    bad = ET.Element("a")
    bad.text = "\x00"
    with pytest.raises(stax.WriterError):
        stax.tostring(bad)
    name = "d" * 100
    deep = ET.Element(name)
    cur = deep
    for _ in range(500):  # more names open than the writer's reused block holds
        cur = ET.SubElement(cur, name)
    assert stax.count(stax.tostring(deep))["elements"] == 501


def domish():
    return pytest.importorskip("twisted.words.xish.domish")


def message(d):
    """The typical stanza of the benchmarks (bench/python_task.py): a message
    with a body, a chat state and a delay."""
    return python_task.domish_message()


def canon_stanza(b, default_ns):
    """A stanza's canonical form inside a stream with that default namespace."""
    s = b if isinstance(b, str) else b.decode()
    return ET.canonicalize("<stream xmlns='%s'>%s</stream>" % (default_ns, s))


def test_stanza_is_domishs():
    d = domish()
    m = message(d)
    for dns in ("jabber:client", "", "jabber:server"):
        got = stax.stanza(m, dns)
        assert canon_stanza(got, dns) == canon_stanza(m.toXml(defaultUri=dns), dns), dns
    assert stax.stanza(m, "jabber:client").startswith(b'<message to="juliet@example.com/balcony"')
    assert b"xmlns" not in stax.stanza(m, "jabber:client").split(b">")[0]


def test_stanza_prefixes_attributes_and_raw():
    d = domish()
    e = d.Element(("urn:a", "x"), localPrefixes={"p": "urn:p"})
    e[("urn:p", "k")] = "v"
    e[("urn:q", "k")] = "w"
    e[("http://www.w3.org/XML/1998/namespace", "lang")] = "en"
    c = e.addElement(("urn:p", "child"))
    c.addRawXml("<raw>1</raw>")
    e.addElement(("", "nons"))
    for dns in ("urn:a", "urn:other", ""):
        assert canon_stanza(stax.stanza(e, dns), dns) == canon_stanza(e.toXml(defaultUri=dns), dns), dns


def test_writer_write_puts_trees_where_it_stands():
    d = domish()
    w = stax.Writer()
    w.start("stream:stream")
    w.ns("", "jabber:client")
    w.ns("stream", "http://etherx.jabber.org/streams")
    w.write(message(d), default_ns="jabber:client")
    w.write(ET.fromstring("<x xmlns='urn:x'><y/></x>"))
    w.finish()
    out = w.getvalue()
    assert out.count(b"<message ") == 1 and b"<ns0:x" in out or b'<x xmlns="urn:x"' in out
    stax.check(out, namespaces=True)


def test_writer_numbers_are_the_librarys():
    w = stax.Writer()
    w.start("r")
    w.attr("n", -5)
    w.attr("u", 2 ** 64 - 1)
    w.attr_dec("p", 1999, 2)
    w.text_dec(-5, 3)
    w.element_dec("d", 7, 0)
    w.element("big", 2 ** 63)
    w.text(-(2 ** 63))
    with pytest.raises(OverflowError):
        w.text(2 ** 64)
    with pytest.raises(stax.WriterError):
        w.text_dec(1, 20)  # more than 19 digits after the point
    w.finish()
    assert w.getvalue() == (b'<r n="-5" u="18446744073709551615" p="19.99">-0.005<d>7</d>'
                            b"<big>9223372036854775808</big>-9223372036854775808</r>")
