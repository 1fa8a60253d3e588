"""Compares an ns-2 wireless trace (old CMU format) with tcplab's by the shape of their lines:
times blanked, and some of ns-2's lines left out (by default 2-11, two-node-tcp.tcl's ARP
exchange, which tcplab does not model yet). Prints how many lines agree before the first
difference, and that difference. A diagnostic for issue 42 (see PLAN.md), not a conformance
test: `python -m tcplab.tracediff` compares traces as they are.

    ns two-node-tcp.tcl ns2.tr
    tcplab run two-node-tcp.toml (with [output] trace = ["ns2"]), or tcplab-sim ... --trace ns2
    python conformance/ns2-wifi/shape.py ns2.tr OUT/trace.tr [--skip 2-11]
"""

from __future__ import annotations

import argparse


def shapes(path: str, skip: set[int]) -> list[str]:
    out = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if number in skip:
                continue
            fields = line.rstrip("\n").split(" ")
            if len(fields) > 1:
                fields[1] = "T"
            out.append(" ".join(fields))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ns2")
    ap.add_argument("tcplab")
    ap.add_argument("--skip", default="2-11", help="ns-2's lines left out, FIRST-LAST ('' for none)")
    args = ap.parse_args()
    skip: set[int] = set()
    if args.skip:
        first, last = (int(x) for x in args.skip.split("-"))
        skip = set(range(first, last + 1))
    a, b = shapes(args.ns2, skip), shapes(args.tcplab, set())
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    print(f"{n} lines agree (times blanked, ns-2's lines {args.skip or 'none'} left out)")
    if n < min(len(a), len(b)):
        print(f"  ns-2:   {a[n]}")
        print(f"  tcplab: {b[n]}")


if __name__ == "__main__":
    main()
