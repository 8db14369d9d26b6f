#!/usr/bin/env python3
"""Instructions executed per machine instruction of one function: callgrind's
per-instruction counts beside objdump's disassembly, to see what the compiler
made of a hot loop (spills to the stack, constants built again, stores that
could be one) where callgrind_annotate gives only source lines.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        build/stax count FILE
    python3 bench/cg_asm.py cg.out build/stax stax__rd_fast [MIN]

Prints "count  address: instruction" for each instruction of the function
(those executed at least MIN times, default 0) and, last, the total. The
counts are the function's own (a call's callee is not added to its call
instruction). The binary must be the one callgrind ran.
"""
import re
import subprocess
import sys


def counts_by_address(path):
    """Instructions executed at each address, from a callgrind file written
    with --dump-instr=yes (positions "instr line", addresses relative to the
    line before when they start with + or -, "*" for the same one)."""
    counts = {}
    last = 0
    after_calls = False
    pos = re.compile(r"^([+-]?(?:0x[0-9a-fA-F]+|\d+)|\*)\s+(\S+)(?:\s+(\d+))?")
    with open(path) as f:
        for line in f:
            if line.startswith("calls="):
                after_calls = True  # the next cost line is the call's inclusive cost
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            m = pos.match(line)
            if not m:
                continue
            a = m.group(1)
            if a == "*":
                addr = last
            elif a[0] == "+":
                addr = last + int(a[1:], 0)
            elif a[0] == "-":
                addr = last - int(a[1:], 0)
            else:
                addr = int(a, 0)
            last = addr
            if after_calls:
                after_calls = False
                continue
            if m.group(3) is None:
                continue
            counts[addr] = counts.get(addr, 0) + int(m.group(3))
    return counts


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().split("\n\n")[1])
    cg, binary, func = sys.argv[1:4]
    least = int(sys.argv[4]) if len(sys.argv) == 5 else 0
    counts = counts_by_address(cg)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True,
                         check=True).stdout
    current, total, seen = None, 0, False
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.*)>:", line)
        if m:
            current = m.group(2)
            continue
        if current != func:
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if not m:
            continue
        seen = True
        c = counts.get(int(m.group(1), 16), 0)
        total += c
        if c >= least:
            print(f"{c:10d}  {m.group(1)}: {m.group(2)}")
    if not seen:
        sys.exit(f"cg_asm: no function {func} in {binary}")
    print(f"{total:10d}  total")


if __name__ == "__main__":
    main()
