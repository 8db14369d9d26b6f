#!/usr/bin/python3
"""stax select against lxml's XPath 1.0: queries with predicates, generated
from each document's own names and values, on build/gen shapes and fixtures.

    /usr/bin/python3 tools/select-oracle.py [--stax build/stax] [--gen build/gen] [-v]

Each query runs through lxml and through `stax select -0` (then again with
--chunk 7 and with -j 2); the output is each match's XPath string value, in
document order (an element's string(), an attribute's value, a text node's
text). A query stax refuses (exit status 2, "not supported") counts as
refused; one lxml cannot evaluate is not asked. Any difference fails (exit
status 1). Prints how many queries agree, are refused and disagree.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

from lxml import etree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lit(v):
    """An XPath literal for v (None when v holds both quotes)."""
    if "'" not in v:
        return "'" + v + "'"
    if '"' not in v:
        return '"' + v + '"'
    return None


def num(v):
    try:
        f = float(v.strip())
    except ValueError:
        return None
    if f != f or abs(f) > 1e12:
        return None
    return f


def fmt(f):
    return ("%d" % f) if f == int(f) else ("%.2f" % f)


def facts(doc, ns):
    """Per element name: its child element names, its attribute names, and
    sample values of its children and attributes. Names in a namespace are
    written with a prefix of ns (URI -> prefix), which the queries bind."""
    kids, attrs, values, names = {}, {}, {}, []

    def local(el):
        return qname(el.tag, ns)

    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        name = local(el)
        if name is None:
            continue
        names.append(name)
        k = kids.setdefault(name, {})
        for c in el:
            if isinstance(c.tag, str) and local(c):
                cn = local(c)
                k[cn] = k.get(cn, 0) + 1
                if len(c) == 0 and c.text and len(values.setdefault((name, cn), [])) < 6:
                    values[(name, cn)].append(c.text)
        a = attrs.setdefault(name, set())
        for an, av in el.attrib.items():
            if an.startswith("{"):
                continue
            a.add(an)
            if len(values.setdefault((name, "@" + an), [])) < 6:
                values[(name, "@" + an)].append(av)
    return kids, attrs, values, names


def qname(t, ns):
    if not t.startswith("{"):
        return t
    uri, name = t[1:].split("}", 1)
    if uri not in ns:
        ns[uri] = "p%d" % len(ns)
    return ns[uri] + ":" + name


def queries(doc, rng, limit, ns):
    kids, attrs, values, names = facts(doc, ns)
    freq = {}
    for n in names:
        freq[n] = freq.get(n, 0) + 1
    els = sorted(freq, key=lambda n: -freq[n])[:12]
    out = []
    for e in els:
        cs = sorted(kids.get(e, {}))
        ats = sorted(attrs.get(e, ()))
        c = rng.choice(cs) if cs else None
        d = rng.choice(cs) if cs else None
        a = rng.choice(ats) if ats else None
        t = rng.choice(cs) if cs else None
        uri = next((u for u, p in ns.items() if e.startswith(p + ":")), "")
        ln = e.split(":")[-1]
        qs = [
            f"//{e}[position()=2]", f"//{e}[last()]", f"//{e}[position()<last()]", f"//{e}[2]",
            f"//{e}[position() mod 2 = 1]", f"//{e}[last()-1]", f"//{e}[true()]", f"//{e}[false()]",
            f"//{e}[name()='{e}']", f"//{e}[local-name()='{ln}']", f"//{e}[namespace-uri()='{uri}']",
            f"//{e}[namespace-uri(*)='{uri}']", f"//{e}[local-name(*)!='{ln}']",
            f"//{e}[text()]", f"//{e}[node()]", f"//{e}[*]", f"//{e}[not(*)]", f"//{e}[count(*)>2]",
            f"//{e}[string-length()>20]", f"//{e}[normalize-space()='']", f"/descendant::{e}",
            f"//{e}[count(.//text())>1]", f"//{e}[starts-with(normalize-space(.),'A')]",
            f"//{e}/self::node()", f"//{e}[self::{e}]", f"//*[self::{e}][1]", f"//*/self::{e}",
        ]
        if c:
            qs += [
                f"//{e}[{c}]", f"//{e}[not({c})]", f"//{e}[{c}][2]", f"//{e}[2][{c}]", f"//{e}[{c}][last()]",
                f"//{e}[count({c})=1]", f"//{e}[count({c})>1]", f"//{e}[string({c})='']",
                f"//{e}[string-length({c})>5]", f"//{e}[contains({c},'a')]", f"//{e}[starts-with({c},'S')]",
                f"//{e}[name(*)='{c}']", f"//{e}[local-name(*[1])='{c}']", f"//{e}[child::{c}]",
                f"//{e}/child::{c}", f"//{e}[descendant::{c}]", f"//{e}[.//{c}]", f"//{e}[./{c}]",
                f"//{e}[{c}/text()]", f"//{e}[{c}=../{e}]" if False else f"//{e}[{c}={c}]",
                f"//{e}[{c} != {c}]", f"//{e}/descendant-or-self::node()/{c}", f"//{e}/./{c}",
                f"//*/self::{e}[{c}]", f"//{e}/*/self::{c}", f"//{e}/self::{e}/{c}[last()]",
                f"//{e}[{c}[2]]", f"//{e}[*[1]/self::{c}]", f"//{e}[count(*[3])=1]", f"//{e}[.//{c}[1]]",
            ]
            qs += [f"//{e}[{c}]|//{e}[last()]", f"//{e}[not({c})]|//{e}[2]", f"//{e}[{c}]//text()|//{e}/*[1]"]
            if a:
                qs += [f"//{e}[{c}]/@{a}|//{e}[@{a}][1]/@*"]
            if t:
                qs += [f"//{e}[{c}]/{t}|//{e}[{c}][1]/{t}", f"//{e}[not({c})]/{t}", f"//{e}[{c}][1]/{t}", f"//{e}[{c}]/{t}/text()"]
            if d and d != c:
                qs += [f"//{e}[{c} and {d}]", f"//{e}[{c} or {d}]", f"//{e}[{c} and not({d})]", f"//{e}[{c}={d}]",
                       f"//{e}[{c}<{d}]", f"//{e}[count({c})=count({d})]"]
            for v in values.get((e, c), [])[:3]:
                L = lit(v)
                if L is None:
                    continue
                qs += [f"//{e}[{c}={L}]", f"//{e}[{c}!={L}]", f"//{e}[{L}={c}]", f"//{e}[{c}={L}]/{t}",
                       f"//{e}[normalize-space({c})=normalize-space({L})]", f"//{e}[contains({c},{lit(v[1:4]) or L})]",
                       f"//{e}[starts-with({c},{lit(v[:2]) or L})]", f"//{e}[string-length({c})={len(v)}]",
                       f"//{e}[{c}={L} or {c}!={L}]", f"//{e}[not({c}={L})]", f"//{e}[.//text()={L}]",
                       f"//{e}[{c}={L}][last()]", f"//{e}[{c}={L}]/@*", f"//{e}/{c}[.={L}]"]
                n = num(v)
                if n is not None:
                    h = fmt(n)
                    qs += [f"//{e}[{c}>{h}]", f"//{e}[{c}>={h}]", f"//{e}[{c}<{h}]", f"//{e}[{c}<={h}]",
                           f"//{e}[{c}={h}]", f"//{e}[{c}!={h}]", f"//{e}[number({c})>{h} div 2]",
                           f"//{e}[{c}*2>{h}]", f"//{e}[{c}+1>{h}]", f"//{e}[{c} - 1 < {h}]", f"//{e}[-{c}<-{h}]",
                           f"//{e}[{c} mod 2 = 1]", f"//{e}[{c} div 10 >= 1]", f"//{e}[{h}<{c}]",
                           f"//{e}[{c}>{h}]/{t}", f"//{e}[{c}>{h}][2]/{t}", f"//{e}/{c}[.>{h}]",
                           f"//{e}[{c}>{h} and {c}<{h}+100]"]
        if a:
            qs += [f"//{e}[@{a}]", f"//{e}[not(@{a})]", f"//{e}/attribute::{a}", f"//{e}[@{a}][last()]",
                   f"//{e}[@{a} or {c or a}]", f"//{e}[string-length(@{a})>3]", f"//{e}[name(@*)='{a}']"]
            for v in values.get((e, "@" + a), [])[:2]:
                L = lit(v)
                if L is None:
                    continue
                qs += [f"//{e}[@{a}={L}]", f"//{e}[@{a}!={L}]", f"//{e}[@*={L}]", f"//{e}[contains(@{a},{lit(v[:3]) or L})]"]
                n = num(v)
                if n is not None:
                    qs += [f"//{e}[@{a}>{fmt(n)}]", f"//{e}[@{a}<={fmt(n)}]/@{a}"]
                if c:
                    qs += [f"//{e}[@{a}={L} and {c}]", f"//{e}[{c} or @{a}={L}]/@{a}"]
        out += qs
    if set(els) <= set("rabc"):  # the random trees: candidates inside candidates
        out += ["//a[b]//c", "//a[.//b=1]", "//a[b][last()]//text()", "//b[not(c)]/a[@x]", "//a[.//a]",
                "//*[a=b]", "//a[c>1]/b|//b[a<2]/@y", "//a[b[2]]/c", "//b[.//c][1]//a", "//c[../b]" if False else "//c[text()>2]",
                "//a[b or c][2]/*", "//a[not(.//c)]", "//*[@x=1][.//b]/@y", "//a[count(.//a)>1]", "//b[a][last()]",
                "//a//b[c]//a", "//*[count(*)=2][position()<3]", "//a[string(b)=string(c)]", "//a[b=1 and c=2]",
                "//*[.//@x=2]", "//*[.//@x='1']", "//a[b//@y]", "//a[b]/b[c]/c", "//b[*][last()-1]", "//c[1][a]", "//a[starts-with(.,'1')]",
                "//b[sum]" if False else "//b[normalize-space()='']", "//a[b>c]", "//*[self::a or self::b][c]"]
    rng.shuffle(out)
    seen, uniq = set(), []
    for q in out:
        if q not in seen:
            seen.add(q)
            uniq.append(q)
    return uniq[:limit]


def string_value(r):
    if isinstance(r, etree._Element):
        if not isinstance(r.tag, str):
            return None  # a comment or PI: stax has no such match
        return r.xpath("string()")
    return str(r)


def expected(doc, q, ns):
    try:
        res = doc.xpath(q, namespaces={p: u for u, p in ns.items()})
    except etree.XPathError:
        return None
    if not isinstance(res, list):
        return None
    vals = []
    for r in res:
        v = string_value(r)
        if v is None:
            return None
        vals.append(v)
    return vals


def run_stax(stax, args, q, path, ns):
    binds = []
    for u, p in ns.items():
        binds += ["-N", "%s=%s" % (p, u)]
    p = subprocess.run([stax, "select", "-0", "--quiet"] + binds + args + [q, path], capture_output=True)
    if p.returncode == 2:
        return "refused" if b"not supported" in p.stderr else ("error", p.stderr.decode("utf-8", "replace"))
    vals = p.stdout.decode("utf-8").split("\0")
    return vals[:-1] if vals and vals[-1] == "" else vals


def documents(gen, tmp):
    docs = []
    for k, shape in enumerate(["record", "attrs", "mixed", "text", "deep", "mixed-dump"]):
        path = os.path.join(tmp, shape + ".xml")
        with open(path, "wb") as f:
            subprocess.run([gen, "-s", shape, "0.01", str(k + 1)], stdout=f, check=True)
        docs.append(path)
    # random trees of a few names nested in each other: candidates inside candidates
    rng = random.Random(7)
    for k in range(3):
        def tree(depth):
            out = []
            for _ in range(rng.randint(0, 4 if depth < 5 else 0)):
                n = rng.choice("abc")
                attrs = "".join(' %s="%d"' % (a, rng.randint(0, 3)) for a in "xy" if rng.random() < 0.4)
                text = str(rng.randint(0, 5)) if rng.random() < 0.5 else ""
                out.append("<%s%s>%s%s</%s>" % (n, attrs, text, tree(depth + 1), n))
                if rng.random() < 0.3:
                    out.append(str(rng.randint(0, 9)))
            return "".join(out)
        path = os.path.join(tmp, "nested%d.xml" % k)
        with open(path, "w") as f:
            f.write("<r>" + tree(0) + tree(0) + "</r>")
        docs.append(path)
    for name in ["osm.xml", "simple.xml", "attrs.xml", "mixed.xml", "cdata.xml", "whitespace.xml", "entity-refs.xml",
                 "unicode.xml", "deep.xml", "comments-pis.xml"]:
        path = os.path.join(ROOT, "fixtures", name)
        if os.path.exists(path):
            docs.append(path)
    return docs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stax", default=os.path.join(ROOT, "build/stax"))
    ap.add_argument("--gen", default=os.path.join(ROOT, "build/gen"))
    ap.add_argument("--per-doc", type=int, default=70)
    ap.add_argument("-v", action="store_true")
    o = ap.parse_args()
    rng = random.Random(53)
    agree = refused = disagree = skipped = 0
    refusals = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in documents(o.gen, tmp):
            # An empty CDATA section is no text node in XPath's data model (nor in
            # stax); libxml2 makes one: lxml reads the document without them.
            with open(path, "rb") as f:
                data = f.read().replace(b"<![CDATA[]]>", b"")
            try:
                doc = etree.fromstring(data, etree.XMLParser(resolve_entities=True, load_dtd=True), base_url=path)
                doc = doc.getroottree()
            except etree.XMLSyntaxError:
                continue
            ns = {}
            for q in queries(doc, rng, o.per_doc, ns):
                want = expected(doc, q, ns)
                if want is None:
                    skipped += 1
                    continue
                bad = None
                for args in ([], ["--chunk", "7"], ["-j", "2"]):
                    got = run_stax(o.stax, args, q, path, ns)
                    if got == "refused":
                        refusals[q.split("[")[0]] = refusals.get(q.split("[")[0], 0) + 1
                        if o.v:
                            print("refused: %s  %s" % (os.path.basename(path), q))
                        bad = "refused"
                        break
                    if got != want:
                        bad = (args, got)
                        break
                if bad == "refused":
                    refused += 1
                elif bad:
                    disagree += 1
                    args, got = bad
                    print("DISAGREE %s %s %s\n  lxml: %r\n  stax: %r" % (os.path.basename(path), " ".join(args), q,
                                                                      want[:5], got[:5] if isinstance(got, list) else got))
                else:
                    agree += 1
    print("select oracle: %d queries agree with lxml, %d refused, %d disagree (%d not asked: lxml could not)" %
          (agree, refused, disagree, skipped))
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
