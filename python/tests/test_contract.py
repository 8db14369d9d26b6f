"""check, count and select give what the tool gives, on every source kind."""
import csv
import io
import os
import pathlib
import socket
import threading

import pytest

import stax
from conftest import tool

BAD = [
    (b"<a><b></a>", "end tag"),
    (b"<a>", None),
    (b"<a x='1' x='2'/>", None),
    (b"<a>&nope;</a>", None),
    (b"\n\n  <a>\xff</a>", None),
    (b"", None),
]


def counts_of(out):
    return {k: int(v) for k, v in (kv.split("=") for kv in out.decode().split())}


def test_count_equals_the_tool(docs):
    for shape, path in docs.items():
        rc, out, _ = tool("count", path)
        assert rc == 0
        assert stax.count(path) == counts_of(out), shape


def test_count_with_namespaces_and_options(docs):
    path = docs["mixed-dump"]
    rc, out, _ = tool("--namespaces", "count", path)
    assert stax.count(path, namespaces=True) == counts_of(out)
    assert stax.count(path, chunk=7, memory=1 << 20) == counts_of(tool("count", path)[1])


def test_sources_give_the_same(docs):
    path = docs["record"]
    data = pathlib.Path(path).read_bytes()
    want = stax.count(path)
    assert stax.count(pathlib.Path(path)) == want
    assert stax.count(data) == want
    assert stax.count(bytearray(data)) == want
    assert stax.count(memoryview(data)) == want
    assert stax.count(io.BytesIO(data)) == want
    assert stax.count(io.BytesIO(data), chunk=1) == want
    with open(path, "rb") as f:
        assert stax.count(f) == want
    with open(path, "rb", buffering=0) as f:
        assert stax.count(f, chunk=4093) == want

    class ReadOnly:  # read() without readinto
        def __init__(self):
            self.f = io.BytesIO(data)

        def read(self, n):
            return self.f.read(min(n, 1000))

    assert stax.count(ReadOnly()) == want


def test_socket_file(docs):
    data = pathlib.Path(docs["record"]).read_bytes()
    a, b = socket.socketpair()

    def send():
        for i in range(0, len(data), 3000):
            a.sendall(data[i:i + 3000])
        a.close()

    t = threading.Thread(target=send)
    t.start()
    with b.makefile("rb") as f:
        got = stax.count(f)
    t.join()
    b.close()
    assert got == stax.count(data)


def test_check(docs):
    for path in docs.values():
        assert stax.check(path) is None


@pytest.mark.parametrize("doc,_", BAD)
def test_check_errors_are_the_tools(tmp_path, doc, _):
    p = tmp_path / "bad.xml"
    p.write_bytes(doc)
    rc, _out, err = tool("check", str(p))
    assert rc == 1
    with pytest.raises(stax.XMLError) as e:
        stax.check(str(p))
    x = e.value
    assert err.strip() == str(x)  # FILE:LINE:COL: message
    assert err.strip().endswith("%d:%d: %s (byte %d)" % (x.line, x.column, x.message, x.offset))
    assert isinstance(x.offset, int) and x.filename == str(p) and x.code < 0
    for chunk in (1, 2, 5):
        with pytest.raises(stax.XMLError) as e2:
            stax.check(io.BytesIO(doc), chunk=chunk)
        assert (e2.value.line, e2.value.column, e2.value.offset, e2.value.message) == (x.line, x.column, x.offset,
                                                                                        x.message)


def test_error_offset_is_the_byte():
    with pytest.raises(stax.XMLError) as e:
        stax.check(b"<a>\n  <b></c></a>")
    assert (e.value.line, e.value.column, e.value.offset) == (2, 6, 9)
    assert isinstance(e.value, ValueError)


def test_options_are_the_librarys():
    deep = b"<a>" * 20 + b"</a>" * 20
    stax.check(deep)
    with pytest.raises(stax.XMLError) as e:
        stax.check(deep, max_depth=10)
    assert "max_depth" in e.value.message
    with pytest.raises(TypeError):
        stax.check(deep, no_such_option=1)
    with pytest.raises(OSError):
        stax.check("/nonexistent/file.xml")


SELECTS = [
    ("mixed-dump", ["//title", "//page/revision/id", "//node/@lat", "//contributor/id", "//username|//ip"]),
    ("record", ["//row/customer", "/dataset/row[2]/id", "//@name"]),
    ("attrs", ["//node/@id", "//tag/@v"]),
    ("nonascii", ["//p"]),
    ("mixed", ["//a/@href", "//b"]),
]


def lines(out, sep=b"\n"):
    parts = out.split(sep)
    assert parts[-1] == b""
    return [p.decode() for p in parts[:-1]]


@pytest.mark.parametrize("shape,paths", SELECTS)
def test_select_values_are_the_tools(docs, shape, paths):
    path = docs[shape]
    for p in paths:
        rc, out, err = tool("select", "-0", p, path)
        assert rc in (0, 1), err
        got = list(stax.select(path, p))
        assert got == lines(out, b"\0"), p
        assert list(stax.select(pathlib.Path(path).read_bytes(), p, chunk=777)) == got


def test_select_xml_and_first(docs):
    path = docs["record"]
    rc, out, _ = tool("select", "-0", "--xml", "//row[3]", path)
    assert list(stax.select(path, "//row[3]", xml=True)) == lines(out, b"\0")
    rc, out, _ = tool("select", "--first", "5", "//id", path)
    assert list(stax.select(path, "//id", first=5)) == lines(out)


def test_select_count(docs):
    path = docs["mixed-dump"]
    rc, out, _ = tool("select", "--count", "//page|//title|//nothing", path)
    assert stax.select_count(path, "//page|//title|//nothing") == [int(x) for x in out.split()]


@pytest.mark.parametrize("shape,path,columns", [
    ("record", "//row", "id,customer,city,note"),
    ("mixed-dump", "//page", "title,revision/id,revision/contributor/username,@nothing"),
    ("attrs", "//node", "@id,@lat,tag/@k"),
])
def test_select_columns_are_the_csv_rows(docs, shape, path, columns):
    doc = docs[shape]
    rc, out, _ = tool("select", "--csv", columns, path, doc)
    assert rc == 0
    want = [tuple(r) for r in csv.reader(io.StringIO(out.decode(), newline=""))]
    assert list(stax.select(doc, path, columns)) == want
    assert list(stax.select(doc, path, columns.split(","))) == want
    rc, out, _ = tool("select", "--csv", columns, "--join", "|", path, doc)
    want = [tuple(r) for r in csv.reader(io.StringIO(out.decode(), newline=""))]
    assert list(stax.select(open(doc, "rb"), path, columns, join="|")) == want


def test_select_namespaces(docs):
    doc = docs["mixed-dump"]
    rc, out, _ = tool("select", "-0", "-N", "d=urn:stax:bench", "//d:page/d:title", doc)
    got = list(stax.select(doc, "//d:page/d:title", namespaces={"d": "urn:stax:bench"}))
    assert got == lines(out, b"\0") and got
    assert list(stax.select(doc, "//page/title", namespaces=True)) == []


def test_select_errors():
    with pytest.raises(stax.SelectError):
        stax.select(b"<a/>", "//[")
    it = stax.select(b"<a><b>1</b><b>2</b><c></a>", "//b")
    assert next(it) == "1" and next(it) == "2"  # the values before the error
    with pytest.raises(stax.XMLError):
        next(it)


def test_select_streams_a_pipe(tmp_path):
    """Matches come out before the input ends: a live stream."""
    r, w = os.pipe()
    os.write(w, b"<log><e>1</e><e>2</e>")
    with os.fdopen(r, "rb", buffering=0) as f:
        it = stax.select(f, "//e", chunk=16)
        assert next(it) == "1"
        assert next(it) == "2"
        os.write(w, b"<e>3</e></log>")
        os.close(w)
        assert list(it) == ["3"]


@pytest.mark.parametrize("path", ["//d:page[2]/d:revision", "//d:contributor", "//d:text/@xml:space"])
def test_select_xml_with_namespaces_is_the_tools(docs, path):
    doc = docs["mixed-dump"]
    rc, out, err = tool("select", "-0", "--xml", "-N", "d=urn:stax:bench", path, doc)
    assert rc == 0, err
    got = list(stax.select(doc, path, namespaces={"d": "urn:stax:bench"}, xml=True))
    assert got == lines(out, b"\0")


def test_select_limits_are_the_librarys(docs):
    doc = docs["mixed-dump"]
    rc, out, err = tool("select", "--max-held", "64", "//page|//title", doc)
    assert rc == 2
    it = stax.select(doc, "//page|//title", max_held=64)
    with pytest.raises(stax.SelectError) as e:
        list(it)
    assert err.strip().endswith(str(e.value))  # FILE: before the tool's line
