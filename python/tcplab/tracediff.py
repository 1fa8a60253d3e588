"""Compare two ns-2 wired traces line by line.

A wired trace line is ``ev time from to type size flags fid src dst seq uid``
(ns-2 `$ns trace-all`; tcplab's "ns2" writer emits the same format).  The
comparison is position-wise: line i of A against line i of B, after an
optional filter keeping one link direction.  Lines are compared as
whitespace-split fields, so spacing differences do not count; `fields`
restricts the comparison to some columns (by name or 0-based index), e.g.
``fields=("ev", "from", "to", "seq")`` to ignore timing and uids.

    python -m tcplab.tracediff A.tr B.tr [--link 2 3] [--fields ev,time,seq]

prints a short report and exits 0 if the (filtered) traces are identical,
1 if they differ, 2 on a usage or file error.
"""

from __future__ import annotations

from collections.abc import Iterator

import argparse
from itertools import zip_longest
import sys
from dataclasses import dataclass

FIELD_NAMES = ("ev", "time", "from", "to", "type", "size", "flags", "fid", "src", "dst", "seq", "uid")


@dataclass
class Report:
    path_a: str
    path_b: str
    lines_a: int              # lines kept from A (after the link filter)
    lines_b: int
    compared: int             # min(lines_a, lines_b): the positions compared
    equal_prefix: int         # equal lines before the first difference
    equal_total: int          # equal lines over all compared positions
    first_diff_a: int | None  # 1-based line number *in file A* of the first difference
    first_diff_b: int | None  # the same in file B
    line_a: str | None        # the two lines there (None past the end of a file)
    line_b: str | None
    lengths_differ: bool

    @property
    def identical(self) -> bool:
        return self.first_diff_a is None and self.first_diff_b is None

    def format(self) -> str:
        if self.identical:
            return f"identical: {self.compared} lines"
        out = [
            f"A: {self.path_a} ({self.lines_a} lines)",
            f"B: {self.path_b} ({self.lines_b} lines)",
            f"compared {self.compared} lines: {self.equal_prefix} equal before the first difference, "
            f"{self.equal_total} equal in all (position-wise)",
        ]
        if self.lengths_differ:
            out.append(f"lengths differ: {self.lines_a} vs {self.lines_b} lines")
        where_a = f"line {self.first_diff_a}" if self.first_diff_a else "end of file"
        where_b = f"line {self.first_diff_b}" if self.first_diff_b else "end of file"
        out.append(f"first difference: A {where_a}, B {where_b}")
        out.append(f"  A: {self.line_a if self.line_a is not None else '<end of file>'}")
        out.append(f"  B: {self.line_b if self.line_b is not None else '<end of file>'}")
        return "\n".join(out)


def _field_indices(fields) -> list[int] | None:
    if fields is None:
        return None
    out = []
    for f in fields:
        if isinstance(f, int):
            out.append(f)
        elif f in FIELD_NAMES:
            out.append(FIELD_NAMES.index(f))
        elif isinstance(f, str) and f.isdigit():
            out.append(int(f))
        else:
            raise ValueError(f"fields: unknown field {f!r} (names: {', '.join(FIELD_NAMES)})")
    return out


def _read(path: str, link) -> Iterator[tuple[int, str, list[str]]]:
    """(1-based line number, stripped text, fields) for the kept lines, one at a time: traces
    of long runs are gigabytes, so neither file is ever held in memory."""
    want = None if link is None else (str(int(link[0])), str(int(link[1])))
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            text = raw.strip()
            if not text:
                continue
            parts = text.split()
            if want is not None and (len(parts) < 4 or (parts[2], parts[3]) != want):
                continue
            yield number, text, parts


def diff_traces(path_a: str, path_b: str, link=None, fields=None) -> Report:
    """Compare two wired traces; link=(from_id, to_id) keeps only that link direction."""
    idx = _field_indices(fields)

    def key(parts):
        if idx is None:
            return parts
        return [parts[i] if i < len(parts) else None for i in idx]

    lines_a = lines_b = equal_total = 0
    first = None  # (line of a or None, line of b or None) at the first difference
    for ra, rb in zip_longest(_read(path_a, link), _read(path_b, link)):
        lines_a += ra is not None
        lines_b += rb is not None
        if ra is not None and rb is not None and key(ra[2]) == key(rb[2]):
            equal_total += 1
        elif first is None:
            # a differing line, or the shorter file ended: the first difference
            first = (ra, rb)
            equal_prefix = min(lines_a, lines_b) - (ra is not None and rb is not None)
    compared = min(lines_a, lines_b)
    if first is None:
        equal_prefix = compared
        first = (None, None)
    ra, rb = first
    return Report(
        path_a=path_a, path_b=path_b, lines_a=lines_a, lines_b=lines_b, compared=compared,
        equal_prefix=equal_prefix, equal_total=equal_total,
        first_diff_a=ra[0] if ra else None, first_diff_b=rb[0] if rb else None,
        line_a=ra[1] if ra else None, line_b=rb[1] if rb else None,
        lengths_differ=lines_a != lines_b,
    )


def first_difference(a: list[str], b: list[str]) -> tuple[int, str | None, str | None] | None:
    """Where two lists of lines (a cwnd trace, say) first part: the 0-based index and each
    side's line there (None past its end), or None when they are equal."""
    for i, (x, y) in enumerate(zip_longest(a, b)):
        if x != y:
            return i, x, y
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tcplab.tracediff",
                                description="Compare two ns-2 wired traces line by line.")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--link", nargs=2, type=int, metavar=("FROM", "TO"),
                   help="keep only lines of this link direction (ns-2 node ids)")
    p.add_argument("--fields", help="comma-separated columns to compare, by name ("
                   + ",".join(FIELD_NAMES) + ") or 0-based index")
    args = p.parse_args(argv)
    fields = args.fields.split(",") if args.fields else None
    try:
        report = diff_traces(args.a, args.b, link=args.link, fields=fields)
    except (OSError, ValueError) as e:
        print(f"tracediff: {e}", file=sys.stderr)
        return 2
    print(report.format())
    return 0 if report.identical else 1


if __name__ == "__main__":
    sys.exit(main())
