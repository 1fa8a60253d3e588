"""What `tcplab conformance linux` measures in a flow's series: pure functions of arrays.

Each takes the samples of one flow (times in seconds, windows in segments, rates in any unit)
and returns a number, or None when the series does not hold the event it measures (a run too
short for two reductions, a flow that never entered ProbeRTT). Nothing here reads a file or
knows where a series came from: the same function measures tcplab, ns-3 and the kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median
from typing import Sequence

#: The quantiles two cwnd series are compared at (5% to 95%): see median_relative_error.
QUANTILES = tuple(q / 20 for q in range(1, 20))


def window(times: Sequence[float], values: Sequence[float], start: float, end: float) -> tuple[list, list]:
    """The samples with start <= time <= end."""
    kept = [(t, v) for t, v in zip(times, values) if start <= t <= end and not math.isnan(v)]
    return [t for t, _ in kept], [v for _, v in kept]


def rate_between(times: Sequence[float], cumulative: Sequence[float], start: float, end: float) -> float:
    """The mean rate of a cumulative counter (bytes delivered) from `start` to `end`, per
    second: its growth between the last samples at or before each end, over their distance."""
    before = [(t, c) for t, c in zip(times, cumulative) if t <= start]
    upto = [(t, c) for t, c in zip(times, cumulative) if t <= end]
    if not upto:
        return 0.0
    (t0, c0), (t1, c1) = (before[-1] if before else upto[0]), upto[-1]
    return (c1 - c0) / (t1 - t0) if t1 > t0 else 0.0


def jain(values: Sequence[float]) -> float | None:
    """Jain's fairness index, (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one has all."""
    squares = sum(v * v for v in values)
    return (sum(values) ** 2 / (len(values) * squares)) if values and squares > 0 else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile (0..1) by linear interpolation between the sorted values."""
    if not values:
        return None
    s = sorted(values)
    x = q * (len(s) - 1)
    lo = math.floor(x)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (x - lo)


def relative_error(ours: float | None, reference: float | None) -> float | None:
    """|ours - reference| / reference; None when either is missing or the reference is 0."""
    if ours is None or reference is None or reference == 0:
        return None
    return abs(ours - reference) / abs(reference)


def median_relative_error(ours: Sequence[float], reference: Sequence[float]) -> float | None:
    """The median, over the quantiles 5% to 95%, of the relative error of `ours`' quantile
    against `reference`'s. Two sawtooths of the same shape but another phase (two runs never
    lose their packets at the same instant) compare sample by sample as badly as two different
    ones; their distributions, which this compares, are the same."""
    if not ours or not reference:
        return None
    errors = [relative_error(percentile(ours, q), percentile(reference, q)) for q in QUANTILES]
    errors = [e for e in errors if e is not None]
    return median(errors) if errors else None


@dataclass
class Reduction:
    """One multiplicative decrease of a window: its peak (time, value) and the trough it fell to."""
    time: float
    peak: float
    trough: float

    @property
    def depth(self) -> float:
        """The fraction of the peak given up: 0.5 for Reno's halving, 0.3 for CUBIC's beta 0.7."""
        return (self.peak - self.trough) / self.peak


def reductions(times: Sequence[float], cwnd: Sequence[float], min_drop: float = 0.15,
               merge_within: float = 0.0) -> list[Reduction]:
    """The window's reductions: each time it falls more than `min_drop` of its running peak.
    A reduction's trough is the lowest window before it grows again by `min_drop` / 2 of that
    trough (the kernel's window falls over a round of recovery, PRR's, not in one sample, and
    wobbles by a segment on its way up); the next peak is sought from there. A reduction whose
    peak comes within `merge_within` seconds of the previous one's is the same recovery (a
    NewReno sender's window inflates and deflates in it): the two are one, from the first peak
    to the lowest trough."""
    found: list[Reduction] = []
    peak = trough = None  # indices
    for i, w in enumerate(cwnd):
        if trough is None:
            if peak is None or w >= cwnd[peak]:
                peak = i
            elif w <= cwnd[peak] * (1 - min_drop):
                trough = i
        elif w < cwnd[trough]:
            trough = i
        elif w > cwnd[trough] * (1 + min_drop / 2):
            found.append(Reduction(times[peak], cwnd[peak], cwnd[trough]))
            peak, trough = i, None
    if trough is not None:  # the series ends falling or at the bottom: the reduction happened
        found.append(Reduction(times[peak], cwnd[peak], cwnd[trough]))
    merged: list[Reduction] = []
    for r in found:
        if merged and r.time - merged[-1].time <= merge_within:
            merged[-1].trough = min(merged[-1].trough, r.trough)
        else:
            merged.append(r)
    return merged


def median_interval(times: Sequence[float]) -> float | None:
    """The median gap between successive event times; None with fewer than two events."""
    gaps = [b - a for a, b in zip(times, times[1:])]
    return median(gaps) if gaps else None


def sawtooth(times: Sequence[float], cwnd: Sequence[float], min_drop: float = 0.15,
             merge_within: float = 0.0) -> dict:
    """Reno's and CUBIC's sawtooth: the median period between reductions (seconds) and their
    median depth (fraction of the peak), with the number of reductions seen."""
    found = reductions(times, cwnd, min_drop, merge_within)
    return {"reductions": len(found), "period_s": median_interval([r.time for r in found]),
            "depth": median([r.depth for r in found]) if found else None}


def rising_edges(times: Sequence[float], flags: Sequence[bool]) -> list[float]:
    """The times at which `flags` turns true (a first sample that is true counts)."""
    return [t for k, (t, f) in enumerate(zip(times, flags)) if f and (k == 0 or not flags[k - 1])]


def rolling_median(times: Sequence[float], values: Sequence[float], span: float) -> list[float]:
    """Each sample's median over the samples within `span` / 2 of it (both sides)."""
    out, lo, hi = [], 0, 0
    for t in times:
        while times[lo] < t - span / 2:
            lo += 1
        while hi < len(times) and times[hi] <= t + span / 2:
            hi += 1
        out.append(median(values[lo:hi]))
    return out


def probe_cycle_period(times: Sequence[float], pacing_rate: Sequence[float], span: float = 2.0,
                       threshold: float = 1.125) -> float | None:
    """BBR's bandwidth-probing cycle: the median time between the starts of its probing phases,
    where the pacing rate (pacing gain x bandwidth estimate) rises above `threshold` times its
    median over `span` seconds around it. The gains are 1.25, 0.75 and six of 1 (Linux's
    tcp_bbr: eight phases of a min RTT each), so the probe stands 25% above the cruising rate and
    the threshold sits half way; the rolling median follows the estimate as flows come and go."""
    if not times:
        return None
    base = rolling_median(times, pacing_rate, span)
    starts = rising_edges(times, [r > threshold * b for r, b in zip(pacing_rate, base)])
    return median_interval(starts)


def probe_rtt_interval(times: Sequence[float], cwnd: Sequence[float], floor: float = 4.0,
                       hold: float = 0.15) -> dict:
    """BBR's ProbeRTT: the median time between its starts, with the number of entries. ProbeRTT
    holds the window at `floor` (tcp_bbr's bbr_cwnd_min_target, 4 segments) for 200 ms and a
    round; a window that falls that low after losses and climbs straight back is not it, so a
    dip counts when it stays at or under the floor for `hold` seconds."""
    entries, start = [], None
    for k, (t, w) in enumerate(zip(times, cwnd)):
        if w <= floor:
            if start is None:
                start = t if k > 0 else math.inf  # a series that starts there did not dip
            if t - start >= hold and (not entries or entries[-1] != start):
                entries.append(start)
        else:
            start = None
    return {"entries": len(entries), "interval_s": median_interval(entries)}
