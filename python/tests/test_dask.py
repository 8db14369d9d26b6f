"""stax.dask on a LocalCluster of two worker processes: every result is the serial one."""
import pathlib

import pytest

import stax

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow  # a cluster of two processes: about 10 s in all (make test runs it)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c) as cl:
        yield cl


def test_imported_only_when_used():
    import subprocess
    import sys
    code = ("import stax, sys; assert 'stax.dask' not in sys.modules and 'distributed' not in sys.modules; "
            "stax.dask.count; assert 'stax.dask' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("shape", ["mixed-dump", "record", "deep", "attrs", "nonascii"])
def test_check_and_count_are_serial(client, docs, shape):
    path = docs[shape]
    for parts in (2, 5):
        assert stax.dask.count(client, path, parts=parts) == stax.count(path)
        assert stax.dask.last_run["ranges"] == parts
        assert stax.dask.check(client, path, parts=parts) is None
    assert stax.dask.count(client, path, parts=3, namespaces=True) == stax.count(path, namespaces=True)


@pytest.mark.parametrize("shape,path,columns", [
    ("mixed-dump", "//title", None),
    ("mixed-dump", "//page", "title,revision/contributor/username"),
    ("record", "/dataset/row/email", None),
    ("deep", "//*[3]", None),
])
def test_select_is_serial(client, docs, shape, path, columns):
    doc = docs[shape]
    want = list(stax.select(doc, path, columns))
    assert want
    for parts in (2, 6):
        assert stax.dask.select(client, doc, path, columns, parts=parts) == want


def test_errors_are_the_serial_ones(client, docs, tmp_path):
    data = pathlib.Path(docs["record"]).read_bytes()
    at = data.rfind(b"<email>", 0, len(data) * 3 // 4)
    bad = tmp_path / "bad.xml"
    bad.write_bytes(data[:at] + b"<email>x</emial>" + data[at + 7:])
    with pytest.raises(stax.XMLError) as serial:
        stax.check(str(bad))
    for parts in (2, 4):
        for run in (stax.dask.check, stax.dask.count):
            with pytest.raises(stax.XMLError) as e:
                run(client, bad, parts=parts)
            assert (e.value.line, e.value.column, e.value.offset, e.value.message) == \
                (serial.value.line, serial.value.column, serial.value.offset, serial.value.message)
            assert str(e.value) == str(serial.value)


def test_wrong_guesses_cost_time_not_correctness(client, tmp_path):
    """Ranges that start at another depth than the first cut's: their guessed
    context is wrong, and the merge reads them again from the real one."""
    flat = b"".join(b"<a><b>%d</b></a>" % i for i in range(10000))
    body = flat + b"<w>" + flat + b"</w>"  # the first cut at depth 1, the last ones inside <w>
    doc = tmp_path / "uneven.xml"
    doc.write_bytes(b"<r>" + body + b"</r>")
    assert stax.dask.count(client, doc, parts=7) == stax.count(str(doc))
    assert stax.dask.last_run["reread_from"] is not None
    assert stax.dask.select(client, doc, "//w/a/b", parts=7) == list(stax.select(str(doc), "//w/a/b"))
