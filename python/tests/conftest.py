"""Fixtures of the package's tests: the stax tool and the document generator
of the build under test (STAX_TOOL, STAX_GEN; `make test-python` sets them),
and small generated documents of each shape."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("STAX_TOOL", os.path.join(ROOT, "build", "stax"))
GEN = os.environ.get("STAX_GEN", os.path.join(ROOT, "build", "gen"))
FIXTURES = os.path.join(ROOT, "fixtures")


def tool(*args, input=None):
    """The tool's (exit code, stdout bytes, stderr str)."""
    p = subprocess.run([TOOL] + list(args), input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode()


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a few seconds (still run by make test-python)")


@pytest.fixture(scope="session")
def docs(tmp_path_factory):
    """{shape: path} of generated documents, 0.25 MiB each (mixed-dump: 1 MiB)."""
    d = tmp_path_factory.mktemp("gen")
    out = {}
    for shape, mib in (("mixed-dump", "1"), ("record", "0.25"), ("attrs", "0.25"), ("text", "0.25"),
                       ("deep", "0.25"), ("mixed", "0.25"), ("nonascii", "0.25")):
        p = d / (shape + ".xml")
        with open(p, "wb") as f:
            subprocess.run([GEN, "-s", shape, mib, "7"], stdout=f, check=True)
        out[shape] = str(p)
    return out
