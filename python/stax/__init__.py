"""stax: streaming XML at C speed in constant memory (docs/python.md).

A *source* is a path (str or os.PathLike), a bytes-like object, or a binary
file object (anything with readinto or read: a file, a socket's makefile('rb'),
a pipe), read in chunks. Reader options are keyword arguments with the
library's names (max_depth, max_token, namespaces, skip_ws, encoding, ...),
plus chunk (bytes fed at a time) and memory (a fixed block for the reader).
"""
import sys as _sys

from . import _stax
from ._stax import (  # noqa: F401  (the public names)
    Batch,
    Reader,
    Writer,
    START,
    END,
    TEXT,
    CDATA,
    COMMENT,
    PI,
    DOCTYPE,
    XMLDECL,
    ENTITY_REF,
    EMPTY,
    WHITESPACE,
    CONTINUED,
    STANDALONE_YES,
    STANDALONE_NO,
    HAS_SUBSET,
    LIBRARY_VERSION,
)

__all__ = [
    "XMLError", "SelectError", "WriterError", "check", "count", "select", "select_count", "records", "Reader",
    "Batch", "Writer", "tostring", "stanza",
]
__version__ = LIBRARY_VERSION


class XMLError(ValueError):
    """The document is not well-formed (or over a limit, or unreadable).

    line, column (from 1, in characters) and offset (bytes, from 0) say where;
    message what; code is the library's status; filename the path, if any."""

    line = column = offset = code = 0
    message = ""
    filename = None


class SelectError(ValueError):
    """A path the select refuses, or a select limit (max_held, max_state)."""


class WriterError(ValueError):
    """A call the writer refused (a bad name, a call out of order, ...); code is the status."""

    code = 0


def _register():
    """The Comment and PI factories tostring knows: ElementTree's, and lxml's once it is imported."""
    import xml.etree.ElementTree as ET

    comment, pi = [ET.Comment], [ET.ProcessingInstruction]
    lx = _sys.modules.get("lxml.etree")
    if lx is not None:
        comment.append(lx.Comment)
        pi.append(lx.ProcessingInstruction)
    _stax._set_classes(XMLError, SelectError, WriterError, tuple(comment), tuple(pi), ET._namespace_map)
    return lx is not None


_stax._set_classes(XMLError, SelectError, WriterError, (), (), None)
_registered = [False, False]  # ElementTree's, lxml's


def check(source, **options):
    """None when source is well-formed, else XMLError (`stax check`)."""
    return _stax.check(source, **options)


def count(source, **options):
    """The counts `stax count` prints, as a dict of ints: elements, attributes,
    text, cdata, comments, pis, text_bytes."""
    return _stax.count(source, **options)


def _columns(columns):
    if columns is None or isinstance(columns, str):
        return columns
    return ",".join(columns)


def select(source, path, columns=None, namespaces=None, **options):
    """The matches of path (`stax select PATH`) as an iterator of str; with
    columns (a str of relative paths by commas, or a list of them), an
    iterator of tuples, the fields of `stax select --csv COLUMNS`.

    namespaces: {prefix: uri} for the path (names then match by URI and
    local name; `-N` in the tool), or True. Select options: xml (values as
    XML, `--xml`), join (a column's every match joined by it, `--join`),
    first (stop after so many matches), max_held, max_state, xml_memory."""
    return _stax.select(source, path, _columns(columns), namespaces, **options)


def select_count(source, path, namespaces=None, **options):
    """The number of matches of each path of the union, a list (`stax select --count`)."""
    return _stax.select_count(source, path, namespaces, **options)


def records(source, path, element=False, namespaces=None, **options):
    """Each element path matches, built on its own when it ends, in constant
    memory: a dict (attributes as "@name", each child element's string value
    under its name, a list when the name repeats, the element's own text as
    "#text" when it is not only whitespace), or with element=True an
    xml.etree.ElementTree element (element= a factory, such as
    lxml.etree.Element, builds with it instead)."""
    factory = None
    if element is True:
        import xml.etree.ElementTree as ET

        factory = ET.Element
    elif element:
        factory = element
    return _stax.records(source, path, factory, namespaces, **options)


def tostring(element, encoding=None, with_tail=True):
    """An ElementTree or lxml element as XML bytes (encoding="unicode": str),
    through the library's writer; namespaces ("{uri}local" names) get the
    prefixes lxml's nsmap or ElementTree's registry give, else ns0, ns1, ..."""
    if not _registered[0] or (not _registered[1] and "lxml.etree" in _sys.modules):
        _registered[1] = _register()
        _registered[0] = True
    return _stax.tostring(element, encoding, with_tail)


# stanza(element, default_ns=''): a domish-shaped element (name, uri,
# defaultUri, attributes, children, localPrefixes: twisted's
# domish.Element) as XML bytes, as domish serializes it inside a stream whose
# default namespace is default_ns. The C function itself, positional only: it
# runs once per stanza, and a Python wrapper cost a sixth of it.
stanza = _stax.stanza


def __getattr__(name):
    if name == "dask":  # imported only when used
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError("module 'stax' has no attribute %r" % name)
