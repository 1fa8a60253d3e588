"""What a paper's published numbers reveal before any run.

`fingerprint(study_dir)` reads a study's table cells (paper.toml) and the topology its sweep
states (study.toml's `[sweep]`), and reports:

- granularity: the packet size on the wire, SYNs counted or not and the averaging time that
  make a row's (and a table-column's) throughputs whole numbers of packets within the printed
  precision, with how many cells would fit by chance;
- shares: whether a flow's share in percent is of the link capacity or of the flows' total;
- delays: each delay against the one-way bounds of its flow's path in the stated topology;
- identical rows and columns, which must come from identical runs (or were copied);
- likely typos: a throughput that is no whole number of packets when its group is, a share
  that breaks its arithmetic (and the swap of two adjacent digits that would mend it).

A value's precision is that of its digits as printed: a cell's `printed` string when
paper.toml keeps one ("218.160"), else the float's shortest repr (218.16 has two decimals).

`render(fp)` gives it as plain text. `fp.granularity` lists, for each row or column whose
granularity stands out, a dict a calibration can prune its candidates with: table, row or
column, size_bytes, syn (and syns, how many), duration_s, fits, cells, chance (the cells
expected to fit by chance), the rules that name them (size_rule, duration_rule), the cells it
misses, and a second granularity when the group is mixed.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from pathlib import Path

import numpy as np

import tcplab
from tcplab import ScenarioError
from tcplab import paper
from tcplab import sweep as sw

__all__ = ["Finding", "Fingerprint", "fingerprint", "render"]

# Candidate packet sizes on the wire (bytes) besides those the scenario implies.
SIZES = np.arange(40, 2001)
# Bytes of a SYN (a header and no data): the extra small packet a TCP flow may count.
SYN_BYTES = 40
# Share of the cells like a misfit (in its row and column) that must be whole packets before
# it is called a likely typo; and of a group an arbitrary size over an arbitrary time must fit.
MOST = 0.8
# A group's cells are typos at this rate, a guess: a misfit costs ln(1/TYPO_RATE) of evidence.
TYPO_RATE = 0.05
# Evidence (nats) a granularity needs to stand out: odds of 20 to 1 against chance.
STANDS = math.log(20)


@dataclass
class Finding:
    kind: str  # "granularity", "share", "delay", "identical" or "typo"
    text: str  # one line
    cells: list[dict] = field(default_factory=list)  # table, row, column, scenario, flow, paper
    data: dict = field(default_factory=dict)  # the numbers behind the text


@dataclass
class Fingerprint:
    study: str
    cells: int  # cells with a published value
    granularity: list[dict] = field(default_factory=list)  # each group's best size and duration
    granularity_findings: list[Finding] = field(default_factory=list)  # one per row or column
    shares: list[Finding] = field(default_factory=list)
    delays: list[Finding] = field(default_factory=list)
    identical: list[Finding] = field(default_factory=list)
    typos: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    def typo_cells(self) -> dict[tuple, str]:
        """(table, row, column) of each cell taken for a typo (the first cell of a typo
        finding: the one it flags), with the finding's text."""
        return {(t.cells[0]["table"], t.cells[0]["row"], t.cells[0]["column"]): t.text for t in self.typos if t.cells}


# --------------------------------------------------------------------------------------
# Cells and the runs they are compared with
# --------------------------------------------------------------------------------------

@dataclass
class _Cell:
    """A cell with a published value and what its stated scenario says about it."""
    cell: paper.Cell
    doc: dict | None  # the normalised scenario of its run (None: not in the sweep)
    flows: list[dict]  # the flows it covers: its own, or all of an aggregate's

    @property
    def key(self) -> dict:
        c = self.cell
        return {"table": c.table, "row": c.row, "column": c.column, "scenario": c.scenario, "flow": c.flow,
                "paper": c.paper}


def printed(c: paper.Cell) -> str:
    """The cell's value as the paper prints it: its `printed` digits when paper.toml keeps them
    ("218.160"), else the float's shortest repr (218.16)."""
    p = c.printed
    if isinstance(p, str) and p.strip():
        return p.strip()
    if isinstance(c.paper, int):
        return str(c.paper)
    exp = Decimal(repr(float(c.paper))).as_tuple().exponent
    return f"{c.paper:.{max(0, -exp)}f}"


def last_digit(c: paper.Cell) -> float:
    """One unit of the last printed digit (218.16 -> 0.01)."""
    return float(Decimal(1).scaleb(Decimal(printed(c)).as_tuple().exponent))


def printed_like(value: float, c: paper.Cell) -> str:
    """A value with as many decimals as the cell prints."""
    return f"{value:.{max(0, -Decimal(printed(c)).as_tuple().exponent)}f}"


def _is_share(c: paper.Cell) -> bool:
    if c.share in ("capacity", "total"):
        return True
    return c.metric.endswith("_bps") and re.search(r"share|fairness", c.row, re.I) is not None


def _is_throughput(c: paper.Cell) -> bool:
    return (c.metric.endswith("_bps") and not _is_share(c) and c.normalise is None and c.handover is None
            and bool(c.scale) and c.scale > 0)


def _is_delay(c: paper.Cell) -> bool:
    return c.metric.startswith("delay") and c.normalise is None and c.handover is None and bool(c.scale) and c.scale > 0


def _load(study_dir: Path) -> tuple[list[_Cell], list[str]]:
    """The cells with a published value, each with its run's normalised scenario: the run of
    its scenario with its grid values (as the report picks it: the one setting the fewest other
    grid fields), else its scenario's first run."""
    notes = []
    study = paper.read_toml(study_dir / "study.toml")
    spec = dict(study.get("sweep", {}))
    spec["seeds"] = 1  # the topology does not change with the seed
    try:
        runs = sw.build(spec, study_dir).runs if spec.get("scenarios") or spec.get("parts") else []
    except ScenarioError as e:
        notes.append(f"the sweep could not be built ({e}): no topology")
        runs = []
    normalised: dict[str, dict] = {}

    def doc_of(c: paper.Cell) -> dict | None:
        same = [r for r in runs if r.scenario.get("name") == c.scenario]
        match = [r for r in same if all(r.params.get(k) == v for k, v in c.params.items())]
        run = min(match, key=lambda r: len(r.params), default=same[0] if same else None)
        if run is None:
            return None
        if run.key not in normalised:
            normalised[run.key] = tcplab.validate(run.scenario)
        return normalised[run.key]

    out, missing = [], set()
    for c in paper.cells(study_dir):
        if c.paper is None or isinstance(c.paper, bool):
            continue
        doc = doc_of(c)
        if doc is None:
            missing.add(c.scenario)
            flows = []
        else:
            flows = [f for f in doc["flows"] if c.flow is None or f["name"] == c.flow]
        out.append(_Cell(c, doc, flows))
    if missing:
        notes.append(f"not in the sweep, so no topology: {', '.join(sorted(missing))}")
    return out, notes


# --------------------------------------------------------------------------------------
# Flows: sizes on the wire, active times
# --------------------------------------------------------------------------------------

def _payload(f: dict) -> float:
    return float(f["params"]["packet_size"] if f["transport"] == "tcp" else f["size"])


def _header(f: dict) -> float:
    return float(f["params"].get("tcpip_base_hdr_size", 40)) if f["transport"] == "tcp" else 0.0


def _wire(f: dict) -> float:
    """A full data packet of the flow on the wire. ns-2's Vegas agent sends packet_size with no
    header; others add the TCP/IP header (and 12 bytes of timestamps when they are on)."""
    if f["transport"] != "tcp":
        return float(f["size"])
    p = f["params"]
    if f.get("profile") == "ns2" and (f.get("variant") == "vegas" or not p.get("use_headers", True)):
        return _payload(f)
    return _payload(f) + _header(f) + (12 if p.get("timestamps") else 0)


def _implied_sizes(x: _Cell) -> list[tuple[str, float]]:
    """The wire sizes the scenario implies for the cell's flows (NaN where they disagree)."""
    fl = x.flows
    if not fl:
        return []
    payloads = {_payload(f) for f in fl}
    headers = {_header(f) for f in fl}
    one = len(payloads) == 1
    p = payloads.pop() if one else math.nan
    tcp = all(f["transport"] == "tcp" for f in fl) and len(headers) == 1
    h = headers.pop() if tcp else math.nan
    return [("packet_size", p), (f"packet_size + {h:g} B of headers" if tcp else "packet_size + headers", p + h),
            (f"packet_size + {h + 12:g} B (timestamps)" if tcp else "packet_size + headers with timestamps", p + h + 12)]


def _end(f: dict, doc: dict) -> float:
    return f["stop_s"] if f["stop_s"] is not None else doc["duration_s"]


# --------------------------------------------------------------------------------------
# 1. Granularity
# --------------------------------------------------------------------------------------

@dataclass
class _Tput:
    """A throughput cell as bits per second, with the printed precision and its SYNs."""
    x: _Cell
    per_unit: float  # b/s per unit of the printed value (n / scale: a mean over n flows is their sum / n)
    tol_bps: float  # half a unit of the last printed digit, in b/s
    syns: int  # SYNs the cell may count: one per TCP flow it covers
    syn: float  # bytes of them all

    @property
    def bps(self) -> float:
        return self.x.cell.paper * self.per_unit

    def printed_as(self, value: float) -> "_Tput":
        """The same cell had it printed `value`."""
        c = self.x.cell
        return _Tput(_Cell(replace(c, paper=value), self.x.doc, self.x.flows),
                     self.per_unit, self.tol_bps, self.syns, self.syn)


def _tput(x: _Cell) -> _Tput | None:
    c = x.cell
    if x.doc is None or not x.flows:
        return None
    n = len(x.flows) if c.flow is None and c.aggregate == "mean" else 1  # a mean: the sum over n
    tcp = [f for f in x.flows if f["transport"] == "tcp"]
    syn = sum(_header(f) or SYN_BYTES for f in tcp)  # a SYN is a bare header: 40 B over IPv4
    return _Tput(x, n / c.scale, 0.5 * last_digit(c) / c.scale * n, len(tcp), syn)


def _durations(ts: list[_Tput]) -> list[tuple[str, bool, np.ndarray]]:
    """Candidate averaging times, each a value per cell: (label, the scenario's own?, seconds).
    The scenario's own: its duration, each flow's active time, the duration less each flow's
    start; then round values near the duration."""
    docs = [t.x.doc for t in ts]
    dur = np.array([d["duration_s"] for d in docs])
    out = [("the run's duration", True, dur)]
    active = []
    for t in ts:
        fl, d = t.x.flows, t.x.doc
        active.append(max(_end(f, d) for f in fl) - min(f["start_s"] for f in fl))
    out.append(("the flow's active time", True, np.array(active)))
    most = max(len(d["flows"]) for d in docs)
    for j in range(most):
        names = {d["flows"][j]["name"] for d in docs if j < len(d["flows"])}
        name = names.pop() if len(names) == 1 else f"#{j + 1}"
        label = f"the duration less {name if name.lower().startswith('flow') else 'flow ' + name}'s start"
        out.append((label, True, np.array([d["duration_s"] - (d["flows"][j]["start_s"] if j < len(d["flows"]) else 0.0)
                                           for d in docs])))
    for d in sorted(set(dur.tolist())):
        step = 0.1 * math.ceil(d / 100)  # every 0.1 s up to 100 s runs: no more than 201 values
        for v in np.round(np.arange(0.9 * d, 1.1 * d + step / 2, step), 6):
            if v > 0:
                out.append((f"{v:g} s", False, np.full(len(ts), v)))
    kept, seen = [], set()
    for label, own, vec in out:  # one candidate per distinct set of values, the scenario's first
        k = tuple(np.round(vec, 6).tolist())
        if k not in seen and np.all(vec > 0):
            seen.add(k)
            kept.append((label, own, vec))
    return kept


def _sizes(ts: list[_Tput]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Candidate wire sizes, each a value per cell: their labels, whether the scenario implies
    them, and the bytes (sizes x cells)."""
    implied = [_implied_sizes(t.x) for t in ts]
    labels, rows = [], []
    if all(implied):
        for j, (label, _) in enumerate(implied[0]):
            vec = np.array([imp[j][1] for imp in implied])
            if np.all(np.isfinite(vec)):
                labels.append(label)
                rows.append(vec)
    taken = {float(vec[0]) for vec in rows if np.all(vec == vec[0])}
    free = np.array([w for w in SIZES if float(w) not in taken], dtype=float)
    W = np.vstack(rows + [np.repeat(free[:, None], len(ts), axis=1)]) if rows else np.repeat(free[:, None], len(ts), axis=1)
    own = np.arange(len(W)) < len(rows)
    return labels + [f"{w:g} B" for w in free], own, W


def _distance(b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Bytes from b to the nearest whole number of packets of w (b and w broadcast); a
    multiply and a rint, three times faster than a modulo."""
    q = b / w
    np.subtract(q, np.rint(q), out=q)
    np.abs(q, out=q)
    q *= w
    return q


def _search(ts: list[_Tput]) -> dict | None:
    """The (size, SYNs, duration) combinations under which many of the cells are whole packets,
    ranked by evidence: per fitting cell ln(1/p), p the chance that a random value fits; less
    ln(1/TYPO_RATE) per misfit and ln of how many combinations of its kind were tried (the
    scenario's own sizes and durations are few, so they need less to stand out).

    The scenario's own sizes are all kept, over every time: they are few, and they tell a
    mixed group apart (a column of Vegas and Reno cells). An arbitrary size drops out as soon
    as it misses too many cells: half of them over the scenario's own durations, all but MOST
    over arbitrary times (hundreds of thousands of combinations, which only a near-perfect fit
    could single out). The most precise cells go first: they weed out the most."""
    ts = sorted(ts, key=lambda t: t.tol_bps / max(t.bps, 1e-300))
    m = len(ts)
    s_labels, w_own, W = _sizes(ts)
    durs = _durations(ts)
    D = np.array([vec for _, _, vec in durs])  # (T, m)
    d_own = np.array([own for _, own, _ in durs])
    bps = np.array([t.bps for t in ts])
    tol_bps = np.array([t.tol_bps for t in ts])
    synb = np.array([t.syn for t in ts])
    # a value printed twice (a column copied into another) is one observation, not two
    same = [(t.x.cell.paper, t.per_unit, t.syn, tuple(W[:3, i]), tuple(D[:3, i])) for i, t in enumerate(ts)]
    weight = np.array([1 / same.count(k) for k in same])
    # ln of the combinations tried of each kind (own size?, own duration?), both SYN choices
    n_sizes = {True: max(1, int(w_own.sum())), False: max(1, int((~w_own).sum()))}
    n_durs = {True: max(1, int(d_own.sum())), False: max(1, int((~d_own).sum()))}
    tried = np.log(np.array([[2 * n_sizes[a] * n_durs[b] for b in (False, True)] for a in (False, True)], dtype=float))
    strict = m - math.ceil(MOST * m - 1e-9)  # misses an arbitrary size over an arbitrary time may have
    # Those are tried only where they could stand out: where every cell fitting (at the
    # shortest time, the finest tolerance) would be evidence enough ...
    near = np.flatnonzero(~d_own)
    finest = (D[near].min(axis=0) if near.size else np.full(m, np.inf)) * tol_bps / 8
    could = np.sum(weight[None, :] * np.log(np.maximum(1.0, W / (2 * finest[None, :]))), axis=1)
    wide = np.flatnonzero(~w_own & (could > tried[0, 0] + STANDS))
    # ... and screened on a dense grid by the first strict + 1 cells, which they must not all miss
    missed = np.zeros((near.size, 2, wide.size), dtype=np.int16)
    for i in range(min(m, strict + 1) if near.size and wide.size else 0):
        b = bps[i] * D[near, i][:, None] / 8 - np.array([0.0, 1.0])[None, :] * synb[i]  # (T, 2)
        tol = (tol_bps[i] * D[near, i] / 8)[:, None] + 1e-9 * np.abs(b) + 1e-9
        dist = _distance(b[:, :, None], W[wide, i][None, None, :])
        missed += ~((dist <= tol[:, :, None]) & (b >= -tol)[:, :, None])
    nt, ny, ns = np.nonzero(missed <= strict)
    # the scenario's own sizes (over every time) and arbitrary sizes over its own durations
    ot, os_ = np.nonzero(w_own[None, :] | d_own[:, None])
    ti = np.concatenate([np.repeat(ot, 2), near[nt]])
    si = np.concatenate([np.repeat(os_, 2), wide[ns]])
    yi = np.concatenate([np.tile(np.array([0, 1]), ot.size), ny])
    allowed = np.where(w_own[si], m, np.where(d_own[ti], m - math.ceil(m / 2 - 1e-9), strict))
    misses = np.zeros(ti.size, dtype=np.int32)
    evidence = np.zeros(ti.size)
    chance = np.zeros(ti.size)
    closeness = np.zeros(ti.size)  # sum over fitting cells of |miss| / tolerance
    for i in range(m):
        d, w = D[ti, i], W[si, i]
        b = bps[i] * d / 8 - yi * synb[i]
        tol = tol_bps[i] * d / 8 + 1e-9 * np.abs(b) + 1e-9  # and a little for the floats' own error
        dist = _distance(b, w)
        fit = (dist <= tol) & (b >= -tol)
        p = np.minimum(1.0, 2 * tol / w)
        evidence += weight[i] * np.where(fit, -np.log(p), -math.log(1 / TYPO_RATE))
        chance += p
        closeness += np.where(fit, dist / tol, 0.0)
        misses += ~fit
        keep = misses <= allowed
        if not keep.all():
            ti, si, yi, misses, evidence, chance, closeness, allowed = (
                a[keep] for a in (ti, si, yi, misses, evidence, chance, closeness, allowed))
    if ti.size == 0:
        return None
    score = evidence - tried[w_own[si].astype(int), d_own[ti].astype(int)]
    # ties (to the floats' error) go to the closer fit, then the scenario's own, then no SYN
    order = np.lexsort((yi, ~d_own[ti], ~w_own[si], closeness, -np.round(score, 6)))
    fits = _fit_matrix(ts, W[si], D[ti], yi)  # (combinations, cells)

    def combo(k: int) -> dict:
        t, s_, y = int(ti[k]), int(si[k]), bool(yi[k])
        p = np.minimum(1.0, 2 * (tol_bps * D[t] / 8) / W[s_])
        # the evidence of the cells it fits alone: a mixed group's misses are another's fits
        alone = float(np.sum((weight * -np.log(p))[fits[k]]) - tried[int(w_own[s_]), int(d_own[t])])
        # sizes and times as the cells it fits have them (the flows' active times may differ elsewhere)
        return {"size_label": s_labels[s_], "size_implied": bool(w_own[s_]), "sizes": W[s_].tolist(),
                "size": _same(W[s_][fits[k]].tolist() or W[s_].tolist()),
                "duration_label": durs[t][0], "duration_own": bool(d_own[t]), "durations": D[t].tolist(),
                "duration": _same(D[t][fits[k]].tolist() or D[t].tolist()),
                "syn": y, "fits": m - int(misses[k]), "chance": float(chance[k]), "score": float(score[k]),
                "alone": alone, "fit": fits[k], "misses": [ts[i].x for i in range(m) if not fits[k, i]]}

    rates = W[si] / D[ti]  # bytes/s of one packet a second, per cell: only w/D shows in a throughput

    def related(j: int, k: int, where: np.ndarray) -> bool:
        # packet rates a small fraction apart on these cells (770 B, 616 B or 1820 B for 1540 B,
        # 1517 B over 98.5 s for 1540 B over 100 s): one fits wherever the other does, every
        # nth packet
        if not where.any():
            return False
        q = rates[j][where] / rates[k][where]
        return any(np.all((np.abs(q * n - np.round(q * n)) < 2e-3 * q * n) & (np.round(q * n) >= 1)) for n in range(1, 9))

    # An arbitrary size gives way to the scenario's: when it divides one of them in every cell
    # (40 B for a column of 1000 B and 1040 B packets), or when its packet rate is a fraction
    # of that of one of the scenario's sizes over the cells that one fits.
    ratio = W[w_own][None, :, :] / W[:, None, :]  # (sizes, the scenario's sizes, cells)
    divides = ((ratio >= 2) & (np.abs(ratio - np.round(ratio)) < 1e-9)).any(axis=1).all(axis=1)
    implied = [k for k in order if w_own[si[k]] and fits[k].sum() >= 2]

    def gives_way(k: int) -> bool:
        return not w_own[si[k]] and (bool(divides[si[k]]) or any(
            yi[j] == yi[k] and related(j, k, fits[j] & fits[k]) for j in implied[:50]))

    first = next((k for k in order if not gives_way(k)), order[0])
    best = combo(int(first))
    # the cells it misses may be of another granularity the scenario implies: the one fitting
    # most of them, if the fits there are unlikely by chance
    second = None
    rest = ~fits[first]
    if rest.sum() >= 2 and implied:
        rank = np.empty(order.size, dtype=int)
        rank[order] = np.arange(order.size)
        n, j = max(((int((fits[j] & rest).sum()), j) for j in implied), key=lambda c: (c[0], -rank[c[1]]))
        p = np.minimum(1.0, 2 * (tol_bps * D[ti[j]] / 8) / W[si[j]])
        # discounted by every combination of the scenario's sizes tried (all times, SYN or not)
        if n >= 2 and np.sum((weight * -np.log(p))[fits[j] & rest]) - math.log(2 * w_own.sum() * len(D)) > STANDS:
            second = combo(int(j))
            second.update(fits_rest=n, rest=int(rest.sum()), chance_rest=float(np.sum(p[rest])))

    def news(k: int) -> bool:
        # another reading of the cells the best fits: the best's own size and time with the
        # other SYN choice is news; a related rate is not
        if not (fits[k] >= fits[first]).all():
            return False
        if si[k] == si[first] and ti[k] == ti[first]:
            return True
        return not related(first, k, fits[first]) and not gives_way(k)

    alts = [combo(int(k)) for k in order[:200] if k != first and score[k] > STANDS and news(int(k))][:3]
    best["explained"] = best["fit"] | (second["fit"] if second else False)
    # it stands out on its own, or over the cells it fits while another of the scenario's sizes
    # fits most of the rest
    best["stands"] = best["score"] > STANDS or (second is not None and best["alone"] > STANDS
                                                and best["fits"] + second["fits_rest"] >= MOST * m - 1e-9)
    return {"best": best, "second": second, "alternatives": alts, "all_fit": int(np.sum(misses == 0)), "cells": ts}


def _fit_matrix(ts: list[_Tput], W: np.ndarray, D: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Whether each cell is whole packets under each combination (rows of sizes, durations and
    SYN choices, cells across)."""
    bps = np.array([t.bps for t in ts])[None, :]
    tol_bps = np.array([t.tol_bps for t in ts])[None, :]
    synb = np.array([t.syn for t in ts])[None, :]
    b = bps * D / 8 - y[:, None] * synb
    tol = tol_bps * D / 8 + 1e-9 * np.abs(b) + 1e-9
    return (_distance(b, W) <= tol) & (b >= -tol)


def _fits(t: _Tput, w: float, syn: bool, d: float) -> bool:
    return bool(_fit_matrix([t], np.array([[w]], dtype=float), np.array([[d]], dtype=float), np.array([int(syn)]))[0, 0])


def _same(values: list[float]) -> float | None:
    return values[0] if values and all(abs(v - values[0]) < 1e-9 for v in values) else None


def _describe(best: dict, ts: list[_Tput]) -> str:
    size = best["size"]
    what = f"{size:g} B" + (f" ({best['size_label']})" if best["size_implied"] else "") if size is not None else f"each run's {best['size_label']}"
    if best["syn"]:
        k = _same([float(t.syns) for t in ts])
        syn = _same([t.syn / max(1, t.syns) for t in ts]) or SYN_BYTES
        what += f" + {k:g} SYN{'s' if k != 1 else ''} of {syn:g} B" if k is not None else f" + a SYN of {syn:g} B per flow"
    return f"{what} over {_when(best)}"


def _when(best: dict) -> str:
    dur = best["duration"]
    if dur is None:
        return best["duration_label"]
    if best["duration_own"] and best["duration_label"] != "the run's duration":
        return f"{dur:g} s ({best['duration_label']})"
    return f"{dur:g} s"


def _granularity(xs: list[_Cell], fp: Fingerprint) -> None:
    ts = [t for t in (_tput(x) for x in xs if _is_throughput(x.cell)) if t is not None]
    groups: dict[tuple, list[_Tput]] = {}
    for how in ("row", "column"):
        for t in ts:
            c = t.x.cell
            groups.setdefault((how, c.table, getattr(c, how)), []).append(t)
    results: dict[tuple, dict] = {}
    seen = set()
    for key, g in groups.items():
        ids = frozenset(id(t) for t in g)
        if len(g) < 2 or ids in seen:  # one cell tells nothing; a row that is its column is said once
            continue
        seen.add(ids)
        how, table, name = key
        where = f"Table {table}, {how} '{name}'"
        found = _search(g)
        cells = [t.x.key for t in g]
        if found is None:
            fp.granularity_findings.append(Finding("granularity", f"{where}: no packet size and duration make half of its "
                                      f"{len(g)} cells whole packets", cells, {"table": table, how: name, "cells": len(g)}))
            continue
        best, g = found["best"], found["cells"]
        results[key] = found
        tol_bytes = float(np.median([t.tol_bps * d / 8 for t, d in zip(g, best["durations"])]))
        data = {"table": table, how: name, "size_bytes": best["size"], "size_rule": best["size_label"],
                "syn": best["syn"], "syns": _same([float(t.syns) for t in g]) if best["syn"] else 0,
                "duration_s": best["duration"], "duration_rule": best["duration_label"],
                "fits": best["fits"], "cells": len(g), "chance": round(best["chance"], 4), "score": round(best["score"], 2),
                "all_fit": found["all_fit"], "precision_bytes": tol_bytes,
                "misses": [x.key for x in best["misses"]]}
        second = found["second"]
        also = ""
        if second:
            also = (f"; {second['fits_rest']} of the other {second['rest']} are of {_describe(second, g)} "
                    f"({second['chance_rest']:.2g} by chance)")
            data["second"] = {"size_bytes": second["size"], "size_rule": second["size_label"], "syn": second["syn"],
                              "duration_s": second["duration"], "duration_rule": second["duration_label"],
                              "fits": second["fits_rest"], "of": second["rest"]}
        if best["stands"]:
            fp.granularity.append(data)
            text = (f"{where}: {best['fits']}/{len(g)} cells are whole packets of {_describe(best, g)} "
                    f"({best['chance']:.2g} expected by chance)") + also
            if best["misses"] and not second:
                other = "column" if how == "row" else "row"
                shown = [f"{getattr(x.cell, other)} ({printed(x.cell)})" for x in best["misses"][:3]]
                text += "; not " + ", ".join(shown) + (", …" if len(best["misses"]) > 3 else "")
            if found["alternatives"]:
                text += "; also " + ", ".join(f"{_describe(a, g)} ({a['fits']}/{len(g)})" for a in found["alternatives"][:2])
        elif 2 * tol_bytes >= max([w for t in g for _, w in _implied_sizes(t.x) if math.isfinite(w)], default=1500):
            runs = [t.x.doc["duration_s"] for t in g]
            span = f"{min(runs):g} s" if min(runs) == max(runs) else f"{min(runs):g}–{max(runs):g} s"
            tol_run = float(np.median([t.tol_bps * d / 8 for t, d in zip(g, runs)]))
            text = f"{where}: its printed precision, ±{tol_run:.0f} B over the run's {span}, is coarser than a packet"
        else:
            text = (f"{where}: no packet size stands out: the best, {_describe(best, g)}, fits {best['fits']}/{len(g)} "
                    f"with {best['chance']:.2g} expected by chance") + also
        data["alternatives"] = [{"size_rule": a["size_label"], "size_bytes": a["size"], "syn": a["syn"],
                                 "duration_s": a["duration"], "duration_rule": a["duration_label"],
                                 "fits": a["fits"], "score": round(a["score"], 2)} for a in found["alternatives"]]
        fp.granularity_findings.append(Finding("granularity", text, cells, data))
    _packet_typos(results, fp)


def _kind(x: _Cell) -> tuple:
    """What the cell's flows put on the wire: their full packet sizes (a Vegas cell and a Reno
    cell of one column are not of a kind)."""
    return tuple(sorted(_wire(f) for f in x.flows))


def _packet_typos(results: dict, fp: Fingerprint) -> None:
    """A likely typo: a cell that is no whole number of packets under the standing-out
    granularity of its row or of its column, while at least MOST of the cells of its kind in
    that row and column (itself included) are. One row or column alone is often too short to
    say: in four cells, three fitting is 75%."""
    groups: dict[int, list[tuple[tuple, dict, int]]] = {}
    for key, found in results.items():
        if found["best"]["stands"]:
            for i, t in enumerate(found["cells"]):
                groups.setdefault(id(t.x), []).append((key, found, i))

    def fits_best(found: dict, i: int) -> bool:
        return bool(found["best"]["explained"][i])

    for mine in groups.values():
        key, found, i = mine[0]
        t = found["cells"][i]
        if any(fits_best(f, j) for _, f, j in mine):
            continue
        peers: dict[int, bool] = {}  # each cell of its kind in its row and column: does it fit there?
        for _, f, _ in mine:
            for j, u in enumerate(f["cells"]):
                if u.x is not t.x and _kind(u.x) == _kind(t.x):
                    peers[id(u.x)] = peers.get(id(u.x), False) or fits_best(f, j)
        fitting = sum(peers.values())
        if not peers or fitting < MOST * (len(peers) + 1) - 1e-9:
            continue
        c, best = t.x.cell, found["best"]
        where = " and ".join(k[0] for k, _, _ in mine)
        text = (f"Table {c.table}, '{c.row}' {c.column}: {printed(c)} is no whole number of packets of "
                f"{_describe(best, [t])}, unlike {fitting}/{len(peers)} cells like it in its {where}")
        swaps = [v for v in _swaps(c) if _fits(t.printed_as(v), best["sizes"][i], best["syn"], best["durations"][i])]
        if swaps:
            text += f"; {printed_like(swaps[0], c)} (two adjacent digits swapped) would be"
        fp.typos.append(Finding("typo", text, [t.x.key], {"reason": "not whole packets", "groups": [list(k) for k, _, _ in mine],
                                                         "peers": len(peers), "peers_fitting": fitting, "swapped": swaps[:1]}))


# --------------------------------------------------------------------------------------
# Digit swaps
# --------------------------------------------------------------------------------------

def _swaps(c: paper.Cell) -> list[float]:
    """The values the cell would have with two adjacent, different printed digits swapped (not
    across its decimal point)."""
    s = printed(c)
    out = []
    for i in range(len(s) - 1):
        a, b = s[i], s[i + 1]
        if a.isdigit() and b.isdigit() and a != b:
            t = s[:i] + b + a + s[i + 2:]
            if not (t[0] == "0" and len(t) > 1 and t[1].isdigit()):  # no leading zero
                out.append(float(t))
    return out


def _per_second(scale: float) -> str:
    """The unit a throughput printed at this scale is in."""
    return {1.0: " b/s", 1e-3: " kb/s", 1e-6: " Mb/s", 1e-9: " Gb/s"}.get(float(scale), "")


# --------------------------------------------------------------------------------------
# 2. Shares
# --------------------------------------------------------------------------------------

_RATE = re.compile(r"\s*([0-9.]+)\s*([kMG]?)(b|bps|b/s)?\s*", re.I)


def _rate(v) -> float | None:
    """A capacity as b/s: a number, or a string such as "2Mb"."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    m = _RATE.fullmatch(v) if isinstance(v, str) else None
    return float(m[1]) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m[2].lower()] if m else None


def _shares(xs: list[_Cell], fp: Fingerprint) -> None:
    tput = [x for x in xs if _is_throughput(x.cell)]

    def params(c):
        return json.dumps(c.params, sort_keys=True, default=str)

    def pair(x: _Cell) -> _Cell | None:
        c = x.cell
        same = [y for y in tput if (y.cell.column, y.cell.scenario, y.cell.flow, params(y.cell)) == (c.column, c.scenario, c.flow, params(c))]
        return next((y for y in same if y.cell.table == c.table), same[0] if same else None)

    by_table: dict[str, list[dict]] = {}
    for x in xs:
        c = x.cell
        if not _is_share(c) or c.flow is None:
            continue
        y = pair(x)
        if y is None:
            continue
        t = y.cell.paper / y.cell.scale
        tol_t = 0.5 * last_digit(y.cell) / y.cell.scale
        s, tol_s = float(c.paper), 0.5 * last_digit(c)
        how = c.share
        cap = _rate(c.capacity) or (100 / c.scale if how != "total" else None)
        if cap is None and x.flows:
            cap = _bottleneck(x.doc, x.flows[0])
        # the flows' total: every flow of the scenario with a throughput in the same column
        mates = [z for z in tput if (z.cell.table, z.cell.column, z.cell.scenario, params(z.cell)) == (y.cell.table, c.column, c.scenario, params(c))
                 and z.cell.flow is not None]
        names = {z.cell.flow for z in mates}
        total = tol_total = None
        if x.doc is not None and names == {f["name"] for f in x.doc["flows"]} and len(mates) == len(names):
            total = sum(z.cell.paper / z.cell.scale for z in mates)
            tol_total = sum(0.5 * last_digit(z.cell) / z.cell.scale for z in mates)
        item = {"x": x, "y": y, "share": s, "tol": tol_s, "t": t, "tol_t": tol_t, "cap": cap, "total": total,
                "tol_total": tol_total, "how": how}
        item["capacity_ok"] = _share_fits(item, "capacity", s)
        item["total_ok"] = _share_fits(item, "total", s)
        by_table.setdefault(c.table, []).append(item)
    for table, items in by_table.items():
        n = len(items)
        n_cap = sum(i["capacity_ok"] for i in items)
        n_tot = sum(i["total_ok"] for i in items)
        caps = sorted({i["cap"] for i in items if i["cap"]})
        cap_s = "/".join(f"{v / 1e3:g} kb/s" for v in caps) or "?"
        bottlenecks = sorted({b for i in items if i["x"].flows for b in [_bottleneck(i["x"].doc, i["x"].flows[0])] if b})
        if n_cap >= n_tot and n_cap > n / 2:
            mode, text = "capacity", (f"Table {table}: shares are of the link capacity, {cap_s} (share × capacity = "
                                      f"throughput), in {n_cap}/{n} cells; of the flows' total in {n_tot}/{n}")
            if bottlenecks and caps and any(abs(b - v) > 1e-6 * v for b in bottlenecks for v in caps):
                text += f"; the stated bottleneck is {'/'.join(f'{b / 1e3:g}' for b in bottlenecks)} kb/s"
        elif n_tot > n / 2:
            mode, text = "total", (f"Table {table}: shares are of the flows' total (share = throughput / their sum) in "
                                   f"{n_tot}/{n} cells; of the capacity {cap_s} in {n_cap}/{n}")
        else:
            mode, text = None, f"Table {table}: shares match neither the capacity {cap_s} ({n_cap}/{n} cells) nor the flows' total ({n_tot}/{n})"
        # a cell that says what it is a share of is held to that, the others to the table's
        # majority; one whose base is unknown (not every flow's throughput printed) is not judged
        breaks = [_share_break(table, i, i["how"] or mode) for i in items
                  if (i["how"] or mode) and not i[f"{i['how'] or mode}_ok"] and i["cap" if (i["how"] or mode) == "capacity" else "total"]]
        if breaks:
            text += f"; {len(breaks)} break it (see Likely typos)"
        fp.shares.append(Finding("share", text, [i["x"].key for i in items],
                                 {"table": table, "mode": mode, "cells": n, "capacity_fits": n_cap, "total_fits": n_tot,
                                  "capacity_bps": caps, "breaks": len(breaks)}))
        fp.typos += breaks


def _share_fits(i: dict, mode: str, share: float) -> bool:
    """Whether a share printed `share` is the throughput's share of the capacity (or of the
    flows' total) within the printed precisions of all the numbers involved."""
    t, tol_t, tol = i["t"], i["tol_t"], i["tol"]
    if mode == "capacity":
        cap = i["cap"]
        return cap is not None and abs(share * cap / 100 - t) <= tol * cap / 100 + tol_t + 1e-9 * max(1.0, t)
    total = i["total"]
    if not total or total <= 0:
        return False
    return abs(share - 100 * t / total) <= tol + 100 * (tol_t / total + t * i["tol_total"] / total ** 2) + 1e-9


def _share_break(table: str, i: dict, mode: str) -> Finding:
    """A share that breaks its table's arithmetic, and the digit swap that would mend it: in
    the share, or else in the throughput."""
    c, y = i["x"].cell, i["y"].cell
    s, t = i["share"], i["t"]
    base = i["cap"] if mode == "capacity" else i["total"]
    expected = 100 * t / base
    u = _per_second(y.scale)
    of = f"{printed(y)}{u} of {base * y.scale:g}{u}" if mode == "capacity" else f"{printed(y)}{u} of the flows' {base * y.scale:g}{u}"
    off = s - expected
    units = abs(off) / (2 * i["tol"])
    text = (f"Table {table}, '{c.row}' {c.column}: printed {printed(c)} %, but {of} is "
            f"{printed_like(expected, c)} %")
    swaps = [v for v in _swaps(c) if _share_fits(i, mode, v)]
    data = {"table": table, "reason": "share arithmetic", "mode": mode, "printed": s, "expected": expected,
            "off_units": units, "swapped": swaps[:1], "throughput_swapped": []}
    # a unit or two off is a rounding slip: a digit swap would mend it only by coincidence
    fixed = [v for v in _swaps(y) if mode == "capacity" and units > 2.5 and _share_fits({**i, "t": v / y.scale}, mode, s)]
    if swaps:
        text += f": two adjacent digits swapped ({printed(c)} for {printed_like(swaps[0], c)})"
    elif fixed:
        data["throughput_swapped"] = fixed[:1]
        text += f"; or the throughput's digits are swapped ({printed(y)} for {printed_like(fixed[0], y)})"
    else:
        text += f" (off by {abs(off):.2g}, {units:.0f} unit{'s' if round(units) != 1 else ''} of its last digit"
        text += ": a rounding slip?)" if units <= 2.5 else ")"
    return Finding("typo", text, [i["x"].key, i["y"].key], data)


# --------------------------------------------------------------------------------------
# Paths and 3. delays
# --------------------------------------------------------------------------------------

def _hops(doc: dict) -> dict[int, list[tuple[int, dict]]]:
    """Each node's neighbours and the hop to them: links both ways (duplex, each direction with
    its own queue), and every pair of a WLAN's nodes at its data rate."""
    adj: dict[int, list[tuple[int, dict]]] = {}
    for link in doc["links"]:
        a, b = link["from"], link["to"]
        common = {"bps": link["bandwidth_bps"], "delay": link["delay_s"], "extra": 0.0, "wireless": False}
        adj.setdefault(a, []).append((b, {**common, "limit": link["queue"]["limit"]}))
        adj.setdefault(b, []).append((a, {**common, "limit": link.get("reverse_limit", link["queue"]["limit"])}))
    for w in doc.get("wlans", []):
        hop = {"bps": w["timing"]["data_rate"], "delay": 0.0, "extra": float(w["timing"].get("mac_overhead", 0)),
               "limit": w.get("queue_limit", 50), "wireless": True}
        for a in w["nodes"]:
            for b in w["nodes"]:
                if a != b:
                    adj.setdefault(a, []).append((b, hop))
    return adj


def _path(doc: dict, src: int, dst: int) -> list[dict] | None:
    """The hops of the path with the fewest hops (breadth first), or None."""
    adj = _hops(doc)
    prev: dict[int, tuple[int, dict] | None] = {src: None}
    todo = deque([src])
    while todo:
        n = todo.popleft()
        if n == dst:
            break
        for m, hop in adj.get(n, []):
            if m not in prev:
                prev[m] = (n, hop)
                todo.append(m)
    if dst not in prev:
        return None
    hops = []
    n = dst
    while prev[n] is not None:
        n, hop = prev[n]
        hops.append(hop)
    return hops[::-1]


def _bottleneck(doc: dict | None, f: dict) -> float | None:
    path = _path(doc, f["from"], f["to"]) if doc else None
    return min(h["bps"] for h in path) if path else None


def _bounds(doc: dict, f: dict) -> dict | None:
    """One-way delay bounds of the flow's path: the lower is propagation plus one transmission
    of a full packet per hop; the upper adds a full queue (queue_limit of the largest packet of
    the scenario) at every hop."""
    path = _path(doc, f["from"], f["to"])
    if path is None:
        return None
    own = _wire(f)
    largest = max(_wire(g) for g in doc["flows"])
    prop = sum(h["delay"] for h in path)
    tx = sum((own + h["extra"]) * 8 / h["bps"] for h in path)
    queued = sum(h["limit"] * (largest + h["extra"]) * 8 / h["bps"] for h in path)
    return {"lower": prop + tx, "upper": prop + tx + queued, "propagation": prop, "hops": len(path),
            "wireless": any(h["wireless"] for h in path)}


def _delays(xs: list[_Cell], fp: Fingerprint) -> None:
    per_table: dict[str, dict] = {}
    delay_cells = [x for x in xs if _is_delay(x.cell) and x.doc is not None and x.flows]
    for x in delay_cells:
        c = x.cell
        bs = [b for b in (_bounds(x.doc, f) for f in x.flows) if b]
        if not bs:
            continue
        lower, upper = min(b["lower"] for b in bs), max(b["upper"] for b in bs)
        v, tol = c.paper / c.scale, 0.5 * last_digit(c) / c.scale
        wireless = any(b["wireless"] for b in bs)
        counts = per_table.setdefault(c.table, {"within": 0, "above": 0, "below": 0, "wlan": 0, "cells": []})
        counts["cells"].append(x.key)
        where = f"Table {c.table}, '{c.row}' {c.column}"
        span = f"{lower:.3g}–{upper:.3g} s"
        data = {"table": c.table, "value_s": v, "lower_s": lower, "upper_s": upper, "wireless": wireless}
        if v < lower - tol:
            counts["below"] += 1
            data["verdict"] = "below"
            fp.delays.append(Finding("delay", f"{where}: {v:.3g} s < one-way lower bound {lower:.3g} s of its path: "
                                     "not this path's one-way delay (or not in these units)",
                                     [x.key], data))
            continue
        if wireless:
            # a WLAN's contention and retries have no bound here: only the lower bound holds
            counts["wlan"] += 1
            continue
        if v <= upper + tol:
            counts["within"] += 1
            continue
        counts["above"] += 1
        n = len(x.flows) if c.flow is None else 1
        k = next((k for k in range(2, max(4, n) + 1) if k * lower - tol <= v <= k * upper + tol), None)
        data.update(verdict="above", multiple=k)
        text = f"{where}: {v:.3g} s > one-way bound {span}"
        if k == 2:
            text += "; within 2× it (two flows' sum or a round trip)"
        elif k:
            text += f"; within {k}× it"
        if c.flow is None:
            text += f"; a {c.aggregate} over {n} flows: may be their sum"
        ratio = _per_flow_ratio(x, delay_cells)
        if ratio:
            data["per_flow"] = ratio
            text += (f"; {ratio['ratio']:.2f}× the {ratio['variant']} flows' delay in {c.column} of Table "
                     f"{'/'.join(ratio['tables'])} ({ratio['mean_s']:.3g} s)")
        fp.delays.append(Finding("delay", text, [x.key], data))
    summary = []
    for table, counts in per_table.items():
        n = len(counts["cells"])
        text = (f"Table {table}: {n} delays: {counts['within']} within the one-way bounds of their paths, "
                f"{counts['above']} above, {counts['below']} below")
        if counts["wlan"]:
            text += f", {counts['wlan']} above the lower bound of a path through a WLAN (which has no upper bound here)"
        summary.append(Finding("delay", text, counts["cells"],
                               {"table": table, **{k: counts[k] for k in ("within", "above", "below", "wlan")}}))
    fp.delays[:0] = summary


def _per_flow_ratio(x: _Cell, delay_cells: list[_Cell]) -> dict | None:
    """An aggregate delay over flows of one variant against the per-flow delays of flows of that
    variant in the same column of any table: a ratio near a whole number (2 for two flows) says
    the aggregate is a sum."""
    c = x.cell
    variants = {f.get("variant") or f["transport"] for f in x.flows}
    if c.flow is not None or len(variants) != 1:
        return None
    variant = variants.pop()
    refs = [y for y in delay_cells if y.cell.flow is not None and y.cell.column == c.column and y is not x
            and (y.flows[0].get("variant") or y.flows[0]["transport"]) == variant]
    if not refs:
        return None
    mean = sum(y.cell.paper / y.cell.scale for y in refs) / len(refs)
    ratio = (c.paper / c.scale) / mean if mean > 0 else 0
    k = round(ratio)
    if k < 2 or abs(ratio - k) > 0.1 * k:
        return None
    return {"ratio": ratio, "variant": variant, "mean_s": mean, "cells": len(refs),
            "tables": sorted({y.cell.table for y in refs})}


# --------------------------------------------------------------------------------------
# 4. Identical rows and columns
# --------------------------------------------------------------------------------------

def _identical(xs: list[_Cell], fp: Fingerprint) -> None:
    tables: dict[str, dict[tuple[str, str], _Cell]] = {}
    for x in xs:
        tables.setdefault(x.cell.table, {}).setdefault((x.cell.row, x.cell.column), x)
    for table, grid in tables.items():
        rows = list(dict.fromkeys(r for r, _ in grid))
        cols = list(dict.fromkeys(c for _, c in grid))
        same = _identical_lines(table, "column", "row", cols, rows, lambda a, b: grid.get((b, a)), fp)
        _identical_lines(table, "row", "column", rows, cols, lambda a, b: grid.get((a, b)), fp)
        # columns equal in part of their rows (at least two, and half of those they share)
        for i, a in enumerate(cols):
            for b in cols[i + 1:]:
                common = [r for r in rows if (r, a) in grid and (r, b) in grid]
                equal = [r for r in common if grid[(r, a)].cell.paper == grid[(r, b)].cell.paper]
                if {a, b} <= same.get(a, set()) or len(equal) < 2 or len(equal) < len(common) / 2:
                    continue
                shown = ", ".join(f"'{r}'" for r in equal[:3]) + (", …" if len(equal) > 3 else "")
                fp.identical.append(Finding(
                    "identical", f"Table {table}: columns {a} and {b} are equal in {len(equal)}/{len(common)} rows ({shown})",
                    [grid[(r, k)].key for r in equal for k in (a, b)],
                    {"table": table, "columns": [a, b], "equal": len(equal), "common": len(common), "rows": equal}))


def _identical_lines(table: str, what: str, across: str, names: list[str], others: list[str], get,
                     fp: Fingerprint) -> dict[str, set[str]]:
    """Classes of columns (or rows) whose values are all equal, over the same two or more rows
    (columns); returns each member's class."""
    classes: dict[tuple, list[str]] = {}
    for a in names:
        vals = tuple((o, get(a, o).cell.paper) for o in others if get(a, o) is not None)
        if len(vals) >= 2:
            classes.setdefault(vals, []).append(a)
    out = {}
    for vals, members in classes.items():
        if len(members) < 2:
            continue
        out.update({a: set(members) for a in members})
        xs = [[get(a, o) for o, _ in vals] for a in members]
        differ = _how_runs_differ(xs)
        text = (f"Table {table}: {what}s {' and '.join(members)} are equal in all {len(vals)} {across}s: must come from "
                f"identical runs (or were copied)")
        text += f", yet {differ}" if differ else ", and their stated runs are the same"
        fp.identical.append(Finding("identical", text, [x.key for group in xs for x in group],
                                    {"table": table, f"{what}s": members, across + "s": len(vals), "runs_differ": differ}))
    return out


def _how_runs_differ(groups: list[list[_Cell]]) -> str:
    """What differs between the runs of corresponding cells of two or more rows or columns: the
    grid values, or the scenarios."""
    fields, scen = set(), set()
    for cells in zip(*groups):
        params = [c.cell.params for c in cells]
        for k in set().union(*params):
            if len({json.dumps(p.get(k), sort_keys=True, default=str) for p in params}) > 1:
                fields.add(k)
        docs = [json.dumps({k: v for k, v in (c.doc or {}).items() if k != "name"}, sort_keys=True) for c in cells]
        if len(set(docs)) > 1:
            scen.add(" vs ".join(dict.fromkeys(c.cell.scenario for c in cells)))
    if fields:
        return f"their grid values differ ({', '.join(sorted(fields))})"
    if scen:
        shown = sorted(scen)
        return f"their scenarios differ ({shown[0]}" + (f", and {len(shown) - 1} more)" if len(shown) > 1 else ")")
    return ""


# --------------------------------------------------------------------------------------
# The fingerprint
# --------------------------------------------------------------------------------------

def fingerprint(study_dir: str | Path) -> Fingerprint:
    """What a study's published numbers reveal, read against its stated topology."""
    study_dir = Path(study_dir)
    xs, notes = _load(study_dir)
    fp = Fingerprint(study=study_dir.name, cells=len(xs), notes=notes)
    _granularity(xs, fp)
    _shares(xs, fp)
    _delays(xs, fp)
    _identical(xs, fp)
    return fp


def render(fp: Fingerprint) -> str:
    """The fingerprint as plain text for a terminal."""
    lines = [f"Fingerprint of {fp.study}: {fp.cells} published cells", ""]
    for title, findings in (("Granularity", fp.granularity_findings), ("Shares", fp.shares), ("Delays", fp.delays),
                            ("Identical", fp.identical), ("Likely typos", fp.typos)):
        lines.append(title)
        lines += [f"  {f.text}" for f in findings] or ["  (nothing)"]
        lines.append("")
    if fp.notes:
        lines += ["Notes"] + [f"  {n}" for n in fp.notes] + [""]
    return "\n".join(lines).rstrip() + "\n"
