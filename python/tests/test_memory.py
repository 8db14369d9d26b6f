"""Memory stays flat: peak RSS does not grow with the document streamed."""
import os
import subprocess
import sys

import pytest

from conftest import GEN

CHILD = r"""
import resource, sys, stax
what = sys.argv[1]
src = sys.stdin.buffer
if what == "select":
    n = sum(1 for _ in stax.select(src, "//row/customer"))
elif what == "columns":
    n = sum(1 for _ in stax.select(src, "//row", "id,email,note"))
elif what == "records":
    n = sum(1 for _ in stax.records(src, "//row"))
elif what == "elements":
    n = sum(1 for _ in stax.records(src, "//row", element=True))
elif what == "batches":
    n = sum(len(b.kinds) for b in stax.Reader(src))
else:
    n = stax.count(src)["elements"]
assert n > 0
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_kib(what, mib):
    gen = subprocess.Popen([GEN, "-s", "record", str(mib)], stdout=subprocess.PIPE)
    out = subprocess.run([sys.executable, "-c", CHILD, what], stdin=gen.stdout, stdout=subprocess.PIPE,
                         env=dict(os.environ), check=True).stdout
    gen.stdout.close()
    gen.wait()
    return int(out)


@pytest.mark.parametrize("what", ["count", "select", "columns", "records", "elements", "batches"])
def test_flat_rss_from_a_pipe(what):
    small, big = peak_kib(what, 4), peak_kib(what, 48)
    assert big - small < 4096, (what, small, big)  # 12 times the document, not 4 MiB more
