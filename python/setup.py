"""Build the stax package: the extension stax._stax compiles the library's
single file in (docs/python.md). Offline: `pip install --no-build-isolation
./python`, or `make python` from the repository.

The single file is STAX_SINGLE_H when set; else, in a checkout, the one
`make single` writes (build/stax.h, made here if missing or older than the
sources); else python/stax_single/stax.h (where a source archive of the
package keeps a copy)."""
import os
import subprocess
import sys

from setuptools import Extension, setup

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)


def single_dir():
    given = os.environ.get("STAX_SINGLE_H")
    if given:
        return os.path.dirname(os.path.abspath(given))
    if os.path.exists(os.path.join(root, "Makefile")) and os.path.exists(os.path.join(root, "tools", "amalgamate.sh")):
        subprocess.check_call(["make", "-s", "-C", root, "single"], stdout=sys.stderr)
        return os.path.join(root, "build")
    return os.path.join(here, "stax_single")


def version():
    with open(os.path.join(single_dir(), "stax.h")) as f:
        parts = {}
        for line in f:
            for k in ("MAJOR", "MINOR", "PATCH"):
                if line.startswith("#define STAX_VERSION_%s " % k):
                    parts[k] = line.split()[2]
            if len(parts) == 3:
                break
    return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])


inc = single_dir()
setup(
    name="stax",
    version=version(),
    description="Streaming XML at C speed in constant memory: check, count, select, records, batches, a writer",
    packages=["stax"],
    ext_modules=[
        Extension(
            "stax._stax",
            sources=[os.path.relpath(os.path.join(here, "src", "_stax.c"), os.getcwd())],
            include_dirs=[inc],
            depends=[os.path.join(inc, "stax.h")],
            define_macros=[("_GNU_SOURCE", None)],
            extra_compile_args=["-std=c11", "-O2", "-Wno-unused-function"],
        )
    ],
    python_requires=">=3.9",
)
