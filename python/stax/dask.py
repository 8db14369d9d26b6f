"""stax.dask: one file's check, count and select as byte ranges read by
tasks on a dask.distributed cluster, merged in order into exactly the serial
result (docs/python.md, "Many machines").

The ranges are the library's (stax_parallel_cuts, the ranges of `stax --part
K/N`): range 0 holds the prolog and is read from the start; every other is
read from a guessed context, the one at the first cut moved to the range's
start. The merge walks the ranges in order and takes a range's result only
when the context it started from is the real end of the range before (and,
for select, the select's state too); from the first range that is not, the
rest of the document is read on the client from the real context. A wrong
guess costs time, never correctness. Every worker reads the file by its path:
the path must name the same file on the workers as on the client.
"""
import mmap
import os

from . import _stax, XMLError, SelectError  # noqa: F401

NEED_INPUT, END = 1, 2

# What the last call did: ranges read, and the range from which the rest was
# read again on the client (None: every guess was right).
last_run = {"ranges": 0, "reread_from": None}


def _map(path):
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def _namespaces(options, ns):
    return bool(ns) or bool(options.get("namespaces"))


def _cut(path, n, namespaces):
    mm = _map(path)
    return _stax.cuts(mm, n, namespaces=namespaces)


def _read(path, start, end, ctx, command, args, select_state, options):
    """One range, as `stax --part` reads it: bytes [start, end] (the '<' at
    end included) from ctx, or to the end of the file and ended."""
    mm = _map(path)
    size = len(mm)
    upto = end + 1 if end < size else size
    view = memoryview(mm)
    try:
        part = view[start:upto]
        try:
            r = _stax.range_read(part, end >= size, ctx, command, *args, select_state, **options)
        finally:
            part.release()
    finally:
        view.release()
    r["start"] = start
    return r


def _range_task(path, k, cuts, guess, command, args, select_state, options):
    start, end = cuts[k], cuts[k + 1]
    ctx = _stax.context_move(guess, (start, 1, 1)) if k else None
    try:
        r = _read(path, start, end, ctx, command, args, select_state, options)
    except (SelectError, MemoryError) as e:  # read again serially by the merge
        r = {"status": -1000, "message": str(e), "context": None, "select_state": None, "result": None}
    r["start_context"] = ctx
    r["start_select"] = select_state
    return r


def _same_select(a, b):
    if a is None or b is None:
        return a is b
    tail = _stax.SELECT_STATE_TAIL  # the capacities, which may differ
    return len(a) == len(b) and a[:-tail] == b[:-tail]


def _raise(path, r):
    off, line, col = r["position"]
    e = XMLError("%s:%d:%d: %s (byte %d)" % (path, line, col, r["message"], off))
    e.line, e.column, e.offset, e.message, e.code, e.filename = line, col, off, r["message"], r["status"], path
    raise e


def _workers(client):
    try:
        return max(1, len(client.scheduler_info()["workers"]))
    except Exception:
        return 1


def _run(client, path, command, args, parts, options):
    path = os.path.abspath(os.fspath(path))
    ns = args[2] if command == "select" else None
    n = parts or 2 * _workers(client)
    cuts, guess = _cut(path, n, _namespaces(options, ns))
    if not guess:
        n = 1  # no cut: range 0 is the whole document
        cuts = [cuts[0], cuts[-1]]
    last_run.update(ranges=n, reread_from=None)
    first = None
    select_guess = None
    if command == "select":
        # the select's state at the first cut: range 0 read here (the
        # reader's guess is the library's; the select's needs the events)
        first = _read(path, cuts[0], cuts[1], None, command, args, None, options)
        select_guess = first["select_state"]
    futures = []
    for k in range(n):
        if k == 0 and first is not None:
            futures.append(None)
        elif k and cuts[k] == cuts[k + 1]:
            futures.append(None)  # an empty range: nothing to read
        else:
            futures.append(client.submit(_range_task, path, k, cuts, guess, command, args, select_guess, options,
                                         pure=False))
    results = []
    real = real_select = None
    status = NEED_INPUT
    last = None
    try:
        for k in range(n):
            start = cuts[k]
            if k and start == cuts[k + 1]:
                continue
            r = first if k == 0 and first is not None else futures[k].result()
            right = k == 0 or (real is not None and _stax.context_position(real)[0] == start and
                               _stax.context_equal(real, r["start_context"]) and
                               (command != "select" or _same_select(real_select, r["start_select"])))
            done = r["status"] == END or (r["status"] == NEED_INPUT and r["context"] is not None and
                                          (command != "select" or r["select_state"] is not None))
            if right and (done or (k == 0 and r["status"] < 0 and r["status"] != -1000)):
                results.append(r["result"])
                status, last = r["status"], r
                if status != NEED_INPUT:
                    break
                at = _stax.context_position(real) if k else (0, 1, 1)
                off, line, col = _stax.context_position(r["context"])
                if line == 1:
                    col += at[2] - 1
                line += at[1] - 1
                real = _stax.context_move(r["context"], (off, line, col))
                real_select = r["select_state"]
                continue
            # from here on serially, from the real context
            last_run["reread_from"] = k
            last = _read(path, start, 1 << 62, real, command, args, real_select, options)
            results.append(last["result"])
            status = last["status"]
            break
    finally:
        for f in futures:
            if f is not None:
                f.cancel()
    if status < 0:
        _raise(path, last)
    if status != END:
        raise RuntimeError("stax.dask: the ranges do not reach the end of the document")
    return results


def check(client, path, parts=None, **options):
    """stax.check(path) as ranges on the client's workers: None, or XMLError."""
    _run(client, path, "check", (None, None, None), parts, options)


def count(client, path, parts=None, **options):
    """stax.count(path) as ranges on the client's workers (the serial dict)."""
    total = {}
    for c in _run(client, path, "count", (None, None, None), parts, options):
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    return total


def select(client, path, xpath, columns=None, namespaces=None, parts=None, **options):
    """list(stax.select(path, xpath, columns, namespaces)) as ranges on the
    client's workers: the serial values (or tuples), in order."""
    if columns is not None and not isinstance(columns, str):
        columns = ",".join(columns)
    if "first" in options:
        raise TypeError("stax.dask.select: first= is serial (stax.select)")
    out = []
    for values in _run(client, path, "select", (xpath, columns, namespaces), parts, options):
        out.extend(values)
    return out
