"""One measured task of bench/python.sh, run in a process of its own:

    python3 bench/python_task.py TASK FILE        (titles-*, records-*: FILE is the document)
    python3 bench/python_task.py stanzas-LIB N    (N stanzas; prints stanzas a second)

titles-LIB: the text of every <title> of a mixed-dump document (its
namespace urn:stax:bench); records-LIB: every <row> of a record document as
a dict of its children's text (stax.records' dicts). LIB: stax, lxml, etree
(xml.etree.ElementTree's C iterparse), expat (pyexpat with handlers).
stanzas-LIB: a message with a body, a chat state and a delay, serialized:
stax (stax.stanza of a domish element), domish (its toXml), lxml
(lxml.etree.tostring), etree (ElementTree.tostring), stax-lxml and
stax-etree (stax.tostring of those trees). Prints a count, so that the
work cannot be skipped."""
import sys
import timeit

NS = "{urn:stax:bench}"


def titles_stax(path):
    import stax

    n = 0
    for t in stax.select(path, "//title"):
        n += len(t)
    return n


def titles_lxml(path):
    from lxml import etree

    n = 0
    for _, e in etree.iterparse(path, tag=NS + "title"):
        n += len(e.text or "")
        e.clear()
    return n


def titles_etree(path):
    import xml.etree.ElementTree as ET

    n = 0
    for _, e in ET.iterparse(path):
        if e.tag == NS + "title":
            n += len(e.text or "")
        if e.tag == NS + "page":
            e.clear()
    return n


def titles_expat(path):
    import xml.parsers.expat

    st = {"in": False, "buf": [], "n": 0}
    p = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        if name == "title":
            st["in"] = True
            st["buf"] = []

    def end(name):
        if name == "title":
            st["in"] = False
            st["n"] += len("".join(st["buf"]))

    def chars(data):
        if st["in"]:
            st["buf"].append(data)

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    with open(path, "rb") as f:
        p.ParseFile(f)
    return st["n"]


def records_stax(path):
    import stax

    n = 0
    for d in stax.records(path, "//row"):
        n += len(d)
    return n


def records_lxml(path):
    from lxml import etree

    n = 0
    for _, e in etree.iterparse(path, tag="row"):
        d = {"@" + k: v for k, v in e.attrib.items()}
        for c in e:
            d[c.tag] = c.text or ""
        n += len(d)
        e.clear()
        while e.getprevious() is not None:
            del e.getparent()[0]
    return n


def records_etree(path):
    import xml.etree.ElementTree as ET

    n = 0
    root = None
    for ev, e in ET.iterparse(path, events=("start", "end")):
        if root is None:
            root = e
        if ev == "end" and e.tag == "row":
            d = {"@" + k: v for k, v in e.attrib.items()}
            for c in e:
                d[c.tag] = c.text or ""
            n += len(d)
            root.clear()
    return n


def records_expat(path):
    import xml.parsers.expat

    st = {"d": None, "child": None, "buf": [], "n": 0}
    p = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        if name == "row":
            st["d"] = {"@" + k: v for k, v in attrs.items()}
        elif st["d"] is not None:
            st["child"] = name
            st["buf"] = []

    def end(name):
        if name == "row":
            st["n"] += len(st["d"])
            st["d"] = None
        elif st["d"] is not None and name == st["child"]:
            st["d"][name] = "".join(st["buf"])
            st["child"] = None

    def chars(data):
        if st["child"] is not None:
            st["buf"].append(data)

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    with open(path, "rb") as f:
        p.ParseFile(f)
    return st["n"]


def domish_message():
    from twisted.words.xish import domish

    m = domish.Element(("jabber:client", "message"))
    m["to"] = "juliet@example.com/balcony"
    m["from"] = "romeo@example.net/orchard"
    m["type"] = "chat"
    m["id"] = "ktx72v49"
    m.addElement("body", content="Art thou not Romeo, & a Montague? <yes>")
    m.addElement(("http://jabber.org/protocol/chatstates", "active"))
    delay = m.addElement(("urn:xmpp:delay", "delay"))
    delay["from"] = "capulet.com"
    delay["stamp"] = "2002-09-10T23:08:25Z"
    delay.addContent("Offline storage")
    return m


def tree_message(etree, nsmap):
    kw = {"nsmap": {None: "jabber:client"}} if nsmap else {}
    m = etree.Element("{jabber:client}message", **kw)
    for k, v in (("to", "juliet@example.com/balcony"), ("from", "romeo@example.net/orchard"), ("type", "chat"),
                 ("id", "ktx72v49")):
        m.set(k, v)
    b = etree.SubElement(m, "{jabber:client}body")
    b.text = "Art thou not Romeo, & a Montague? <yes>"
    kw = {"nsmap": {None: "http://jabber.org/protocol/chatstates"}} if nsmap else {}
    etree.SubElement(m, "{http://jabber.org/protocol/chatstates}active", **kw)
    kw = {"nsmap": {None: "urn:xmpp:delay"}} if nsmap else {}
    d = etree.SubElement(m, "{urn:xmpp:delay}delay", **kw)
    d.set("from", "capulet.com")
    d.set("stamp", "2002-09-10T23:08:25Z")
    d.text = "Offline storage"
    return m


def stanzas(lib, n):
    if lib == "stax":
        import stax

        m = domish_message()
        f = lambda: stax.stanza(m, "jabber:client")  # noqa: E731
    elif lib == "domish":
        m = domish_message()
        f = lambda: m.toXml(defaultUri="jabber:client")  # noqa: E731
    elif lib in ("lxml", "stax-lxml"):
        from lxml import etree

        m = tree_message(etree, True)
        if lib == "lxml":
            f = lambda: etree.tostring(m)  # noqa: E731
        else:
            import stax

            f = lambda: stax.tostring(m)  # noqa: E731
    else:
        import xml.etree.ElementTree as ET

        ET.register_namespace("", "jabber:client")
        m = tree_message(ET, False)
        if lib == "etree":
            f = lambda: ET.tostring(m)  # noqa: E731
        else:
            import stax

            f = lambda: stax.tostring(m)  # noqa: E731
    size = len(f())
    best = min(timeit.repeat(f, number=n, repeat=5))
    print("%s %.0f stanzas/s %.1f MB/s (%d bytes each)" % (lib, n / best, n / best * size / 1e6, size))


def main():
    task, arg = sys.argv[1], sys.argv[2]
    if task.startswith("stanzas-"):
        stanzas(task[len("stanzas-"):], int(arg))
    else:
        print(globals()[task.replace("-", "_")](arg))


if __name__ == "__main__":
    main()
