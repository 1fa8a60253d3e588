"""Calibration: find the reading of a paper's unstated setup and measures that reproduces its tables.

`tcplab calibrate STUDY` searches the setup unknowns of the study's study.toml (tcplab.readings)
as sweeps (every run stored in results/STUDY-calibrate/results.sqlite, so a search resumes; on
every core or a Dask cluster), and scores every reading of the measurement unknowns on every
setup's runs, which needs no runs of its own.

The objective is the mean relative error per paper column (a table's quantity in one of its
columns: "VI throughput E/F"), the columns weighted equally so that small values count as much as
large ones; a cell's error is capped at 100% and the cells the fingerprint finds to be typos are
left out, so that a few misprints do not steer the search. Ties go to the reading with more cells
exact at the paper's printed precision.

The search: the fingerprint prunes candidates it rules out (packet sizes no column's granularity
allows), then coordinate descent from the literal reading: each setup unknown in turn tries all
its candidates (one sweep), keeps the best, until a full pass changes nothing; then descents
again (RESTARTS) from the best readings with other values of the unknowns that matter most
(restart_points), all within the budget of runs. Only
the runs that cells with published values read are made. Then the residuals of the best reading: throughput cells off by whole packet
counts point at start times and durations.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable

import tcplab
from tcplab import ScenarioError
from tcplab import readings as rd
from tcplab import paper, studies
from tcplab import sweep as sw
from tcplab.status import StatusLine

CAP = 1.0  # a cell's relative error counts at most this much: a typo does not steer the search
MAX_PRODUCT = 4096  # measurement readings tried exhaustively up to this many; beyond, coordinate descent
RESTARTS = 8  # descents begun again from other basins once the first has converged, budget allowing


@dataclass
class Score:
    """How far a reading is from the paper."""
    error: float  # mean over columns of each column's mean relative error
    exact: int  # cells equal to the paper at its printed precision
    columns: dict[str, float]  # per paper column

    def better_than(self, other: "Score | None") -> bool:
        if other is None:
            return True
        a, b = round(self.error, 9), round(other.error, 9)
        return a < b or (a == b and self.exact > other.exact)


@dataclass
class Trial:
    values: dict  # every unknown's value
    score: Score


@dataclass
class Search:
    """What a calibration keeps: the study, its unknowns, the runs asked for and their results."""
    name: str
    study_dir: Path
    cells: list
    unknowns: list
    sweep: sw.Sweep  # the study's sweep at the search's seeds
    typos: set = field(default_factory=set)  # (table, row, column) left out of the objective
    asked: set = field(default_factory=set)  # run keys the search has asked for
    summaries: dict = field(default_factory=dict)  # run key -> summary
    shapes: studies.Shapes = field(default_factory=studies.Shapes)
    trials: list = field(default_factory=list)
    failed: dict = field(default_factory=dict)  # run key -> what failed (its cells count as 100% off)
    _cache: dict = field(default_factory=dict)  # (cell index, knobs, run keys) -> mean value
    concerning: list = field(init=False)  # each cell's measurement unknowns: knobs() need test no other

    def __post_init__(self):
        self.concerning = [[u for u in self.measurement if u.concerns(c)] for c in self.cells]

    @property
    def setup(self) -> list:
        return [u for u in self.unknowns if u.group == "setup"]

    @property
    def measurement(self) -> list:
        return [u for u in self.unknowns if u.group == "measurement"]


def exact(cell, value: float) -> bool:
    """Whether `value` prints as the paper's value at its precision."""
    from tcplab.fingerprint import last_digit

    return abs(value - cell.paper) <= 0.5 * last_digit(cell) + 1e-12 * abs(cell.paper)


def score_values(s: Search, values: dict, runs: list[sw.Run]) -> Score:
    """The reading's score: every cell under its measurement knobs, over the runs' seeds."""
    cols: dict[str, list[float]] = {}
    n_exact = 0
    by_cell = _cell_runs(s, runs)
    for i, c in enumerate(s.cells):
        if not c.paper or c.normalise:
            continue
        mine = by_cell[i]
        knobs = rd.knobs(s.concerning[i], values, c)
        key = (i, tuple(sorted(knobs.items(), key=lambda kv: kv[0])), tuple(r.key for r in mine))
        if key not in s._cache:
            vals = studies.cell_values(c, knobs, mine, s.summaries, s.shapes)
            s._cache[key] = sum(vals) / len(vals) if vals else None
        v = s._cache[key]
        if v is None:
            err = CAP
        else:
            err = min(CAP, abs(v / c.paper - 1))
            n_exact += exact(c, v)
        if (c.table, c.row, c.column) not in s.typos:
            cols.setdefault(paper.column_of(c), []).append(err)
    columns = {k: sum(v) / len(v) for k, v in cols.items()}
    return Score(sum(columns.values()) / len(columns) if columns else math.inf, n_exact, columns)


def _cell_runs(s: Search, runs: list[sw.Run]) -> list[list[sw.Run]]:
    memo = {}
    out = []
    for c in s.cells:
        k = (c.scenario, tuple(sorted(c.params.items())))
        if k not in memo:
            memo[k] = studies.runs_of(c, runs)
        out.append(memo[k])
    return out


def best_measurement(s: Search, setup_values: dict, runs: list[sw.Run]) -> Trial:
    """The measurement reading that scores best on one setup reading's runs: every combination
    when there are few, else coordinate descent from the literal one."""
    ms = s.measurement
    base = {**setup_values, **rd.literal(ms)}
    if not ms:
        return Trial(base, score_values(s, base, runs))
    if math.prod(len(u.values) for u in ms) <= MAX_PRODUCT:
        best = None
        for combo in itertools.product(*(u.values for u in ms)):
            values = {**setup_values, **{u.name: v for u, v in zip(ms, combo)}}
            sc = score_values(s, values, runs)
            if best is None or sc.better_than(best.score):
                best = Trial(values, sc)
        return best
    best = Trial(base, score_values(s, base, runs))
    changed = True
    while changed:
        changed = False
        for u in ms:
            for v in u.values:
                values = {**best.values, u.name: v}
                sc = score_values(s, values, runs)
                if sc.better_than(best.score):
                    best, changed = Trial(values, sc), True
    return best


# --------------------------------------------------------------------------------------
# Running readings
# --------------------------------------------------------------------------------------

@dataclass
class Runner:
    """Runs readings' sweeps into the search's store, within its budget of runs."""
    out: Path
    budget: int
    workers: int | None = None
    scheduler: str | None = None
    progress: Callable[[int], None] = lambda done: None  # runs of the batch under way done so far

    def runs(self, s: Search, values: dict) -> list[sw.Run]:
        """The reading's runs that some cell with a published value reads (a study's sweep may
        hold runs for tables the paper prints no number in)."""
        runs = rd.apply_setup(s.sweep, s.unknowns, values).runs
        wanted = {r.case for c in s.cells if c.paper and not c.normalise for r in studies.runs_of(c, runs)}
        return [r for r in runs if r.case in wanted]

    def run(self, s: Search, batch: list[dict]) -> list[tuple[dict, list[sw.Run]]]:
        """Runs the readings of `batch` that fit the budget (in order), in one sweep; returns
        those readings with their runs."""
        fitting, todo = [], {}
        for values in batch:
            runs = self.runs(s, values)
            new = {r.key: r for r in runs if r.key not in s.asked and r.key not in todo}
            if len(s.asked) + len(todo) + len(new) > self.budget:
                continue
            todo.update(new)
            fitting.append((values, runs))
        if todo:
            sweep = sw.Sweep(name=s.sweep.name, runs=list(todo.values()), fields=s.sweep.fields,
                             run_timeout=s.sweep.run_timeout, max_events=s.sweep.max_events)
            result = sw.run(sweep, self.out, workers=self.workers, scheduler=self.scheduler, retry_failed=True,
                            on_failure="keep",  # a failed reading is scored as such
                            progress=lambda done, total: self.progress(done))
            for row in result.rows:
                if row["summary"] is None:
                    s.failed[row["key"]] = f"{row['case']} seed {row['seed']}: {row['error']}"
                else:
                    s.summaries[row["key"]] = studies.with_run_metrics(row["summary"])
            s.asked.update(todo)
        return fitting


def calibrate(name: str, *, budget: int = 2000, seeds: int = 1, out: str | Path | None = None,
              workers: int | None = None, scheduler: str | None = None, save: bool = True,
              progress: bool = True) -> dict:
    """Searches study `name`'s unknowns for the reading closest to its paper's tables; returns
    the result (values, score, errors per column, exact cells, runs) and, with `save`, writes it
    to the study's reading.toml."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ScenarioError("--budget", f"{budget!r} is not a number of runs (a whole number from 1)")
    study_dir, study, sweep = studies.study_sweep(name, seeds=seeds)
    us = rd.unknowns(study)
    if not us:
        raise ScenarioError(f"{name}: unknowns", "the study declares no unknowns to search ([[unknowns]] in study.toml)")
    cells = paper.cells(study_dir)
    if not any(c.paper and not c.normalise for c in cells):
        raise ScenarioError(f"{name}: paper.toml", "holds no published value to calibrate against (every cell's `paper` is empty)")
    from tcplab import fingerprint as fpm

    fp = fpm.fingerprint(study_dir)
    s = Search(name, study_dir, cells, us, sweep, typos=set(fp.typo_cells()))
    pruned = prune(us, fp)
    out = Path(out) if out is not None else Path("results") / f"{name}-calibrate"
    line = StatusLine() if progress else None

    def show(text: str, last: bool = False) -> None:
        if line is not None:
            line.show(text, last)

    t0 = time.monotonic()
    where = ["the literal reading"]

    def status(step: str | None = None, running: int = 0) -> None:
        where[0] = step or where[0]
        done = len(s.asked) + running
        best = min((t.score.error for t in s.trials), default=None)
        rate = (time.monotonic() - t0) / done if done else 0.0
        left = f", at most {_minutes(rate * (budget - done))} left" if done else ""
        shown = "best –" if best is None else f"best {best:.3%}"
        show(f"calibrate {name}: {done}/{budget} runs, {shown} ({where[0]}){left}")

    runner = Runner(out, budget, workers, scheduler, progress=lambda running: status(running=running))

    tried: dict[str, Trial] = {}  # each setup reading once, however often a pass comes back to it

    def trial(batch: list[dict]) -> list[Trial]:
        seen = lambda values: json.dumps(values, sort_keys=True)  # noqa: E731
        done = [tried[seen(v)] for v in batch if seen(v) in tried]
        for values, runs in runner.run(s, [v for v in batch if seen(v) not in tried]):
            t = tried[seen(values)] = best_measurement(s, values, runs)
            s.trials.append(t)
            done.append(t)
        return done

    try:
        status("the literal reading")
        first = trial([rd.literal(s.setup)])
        if not first:
            raise ScenarioError("--budget", f"{budget} runs do not cover the literal reading ({len(runner.runs(s, rd.literal(s.setup)))} runs)")
        best = first[0]
        # the literal reading's own score: its setup under its own measures, not the best ones
        literal = score_values(s, rd.literal(us), runner.runs(s, rd.literal(s.setup)))
        rounds, starts = 0, 0

        def descend(start: Trial) -> Trial:
            """Coordinate descent: each setup unknown in turn tries all its candidates (one
            sweep) and keeps the best, until a pass changes nothing."""
            nonlocal rounds
            here, changed = start, True
            while changed:
                changed, rounds = False, rounds + 1
                for u in s.setup:
                    status(f"start {starts + 1}, pass {rounds}, {u.name}")
                    at = setup_of(here)
                    for t in trial([{**at, u.name: v} for v in pruned[u.name] if v != at[u.name]]):
                        if t.score.better_than(here.score):
                            here, changed = t, True
            return here

        def setup_of(t: Trial) -> dict:
            return {k: t.values[k] for k in rd.literal(s.setup)}

        # from the literal reading, then from other basins, budget allowing
        begun = {json.dumps(setup_of(best), sort_keys=True)}
        best = descend(best)
        begun.add(json.dumps(setup_of(best), sort_keys=True))
        while starts < RESTARTS and len(s.asked) < budget:
            fresh = [t for t in restart_points(s, best) if json.dumps(setup_of(t), sort_keys=True) not in begun]
            if not fresh:
                break
            starts += 1
            begun.add(json.dumps(setup_of(fresh[0]), sort_keys=True))
            found = descend(fresh[0])
            begun.add(json.dumps(setup_of(found), sort_keys=True))
            if found.score.better_than(best.score):
                best = found
        status("done")
    finally:
        if line is not None:
            line.close()
    result = {
        "study": name, "values": best.values,
        "labels": {u.name: u.label(best.values[u.name]) + (" (literal)" if best.values[u.name] == u.values[0] else "") for u in us},
        "score": best.score.error, "exact": best.score.exact,
        "cells": sum(1 for c in s.cells if c.paper and not c.normalise), "runs": len(s.asked), "budget": budget,
        "seeds": seeds, "tcplab": tcplab.__version__, "date": date.today().isoformat(),
        "errors": {col: (literal.columns.get(col, math.nan), err) for col, err in best.score.columns.items()},
        "literal_score": literal.error, "readings_tried": len(s.trials), "passes": rounds, "restarts": starts,
        "failed": sorted(s.failed.values()),
        "pruned": {u.name: [u.label(v) for v in u.values if v not in pruned[u.name]] for u in s.setup},
        "hints": residual_hints(s, best, fp),
    }
    if save:
        result["saved"] = str(rd.save_best(study_dir, us, result))
    _write_log(out, s, result, fp)
    return result


def restart_points(s: Search, best: Trial) -> list[Trial]:
    """Where a descent may begin again, in turns: for the unknowns that matter most first (those
    whose values' best scores lie furthest apart), each of their other values, best first, with
    the other unknowns literal (as the first pass tried it: another basin, not the best one
    moved) and then as the best reading tried with it; and the best readings tried. A runner-up
    value of a decisive unknown may lead, with the others moved to suit it, somewhere better
    than the first descent went."""
    def key(t: Trial):
        return round(t.score.error, 9), -t.score.exact

    literal = rd.literal(s.setup)
    by_value: dict[str, dict[str, Trial]] = {}  # each unknown's values' best trials
    alone: dict[str, dict[str, Trial]] = {}  # each unknown's values with the others literal
    for t in s.trials:
        for u in s.setup:
            v = json.dumps(t.values[u.name], sort_keys=True)
            here = by_value.setdefault(u.name, {})
            if v not in here or key(t) < key(here[v]):
                here[v] = t
            if all(t.values[o.name] == literal[o.name] for o in s.setup if o is not u):
                alone.setdefault(u.name, {})[v] = t
    spread = {n: max(t.score.error for t in vs.values()) - min(t.score.error for t in vs.values())
              for n, vs in by_value.items()}
    basins = []
    for u in sorted(s.setup, key=lambda u: -spread.get(u.name, 0.0)):
        mine = json.dumps(best.values[u.name], sort_keys=True)
        for v, t in sorted(((v, t) for v, t in by_value.get(u.name, {}).items() if v != mine), key=lambda vt: key(vt[1])):
            basins += [x for x in (alone.get(u.name, {}).get(v), t) if x is not None]
    # taken in turns with the best readings tried: a near runner-up may sit in a better basin too
    runners_up = sorted(s.trials, key=key)
    return [t for pair in itertools.zip_longest(basins, runners_up) for t in pair if t is not None]


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def prune(us: list, fp) -> dict[str, list]:
    """Each setup unknown's candidates the fingerprint leaves: a packet size is kept when its
    bytes, or its bytes with the 40 B of TCP/IP headers (52 with timestamps), are a size the
    granularity of some throughput group allows. The literal value always stays."""
    sizes = {round(g["size_bytes"]) for g in fp.granularity if g.get("size_bytes") and g.get("fits", 0) * 2 > g.get("cells", 0)}
    out = {}
    for u in us:
        if u.group != "setup":
            continue
        keep = list(u.values)
        if sizes and all(f.endswith("packet_size") for f in u.fields):
            keep = [v for i, v in enumerate(u.values)
                    if i == 0 or (_bytes(v) is not None and {_bytes(v), _bytes(v) + 40, _bytes(v) + 52} & sizes)]
        out[u.name] = keep
    return out


def _bytes(v: Any) -> int | None:
    """A packet size value ("1500B", 1500) in bytes, or None."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str) and v.endswith("B") and v[:-1].isdigit():
        return int(v[:-1])
    return None


def residual_hints(s: Search, best: Trial, fp) -> list[str]:
    """Throughput rows whose residuals under the best reading are whole packet counts of the
    fingerprint's size: the runs differ by whole packets, which start times or durations explain."""
    runs = rd.apply_setup(s.sweep, s.unknowns, best.values).runs
    by_cell = _cell_runs(s, runs)
    size_of = {(g["table"], g.get("row")): g for g in fp.granularity if g.get("row") is not None}
    rows: dict[tuple, list[float]] = {}
    for i, c in enumerate(s.cells):
        g = size_of.get((c.table, c.row))
        if not c.paper or paper.quantity(c) != "throughput" or g is None:
            continue
        vals = studies.cell_values(c, rd.knobs(s.unknowns, best.values, c), by_cell[i], s.summaries, s.shapes)
        if vals:
            bits = (sum(vals) / len(vals) - c.paper) / c.scale * g["duration_s"]
            rows.setdefault((c.table, c.row, round(g["size_bytes"])), []).append(bits / 8 / g["size_bytes"])
    hints = []
    for (table, row, size), packets in rows.items():
        whole = [p for p in packets if abs(p) >= 0.9 and abs(p - round(p)) < 0.05]
        if len(whole) >= max(2, len(packets) // 2):
            hints.append(f"Table {table}, {row}: {len(whole)} of {len(packets)} cells are off by whole packets of {size} B "
                         f"({', '.join(f'{round(p):+d}' for p in whole)}): a start time or a duration differs")
    return hints


def _write_log(out: Path, s: Search, result: dict, fp) -> None:
    """calibration.md beside the search's store: the fingerprint, the unknowns, how the search
    went, and the best reading's error per column."""
    from tcplab import fingerprint as fpm

    lines = [f"# Calibration of {s.name}", "",
             f"_tcplab {result['tcplab']}, {result['date']}: {result['runs']} runs of a budget of {result['budget']}, "
             f"{result['seeds']} seed(s), {result['readings_tried']} setup readings in {result['passes']} passes, "
             f"{result['restarts']} restarts_", "",
             "## Fingerprint", "", "```", fpm.render(fp).rstrip(), "```", "",
             "## Best reading", "",
             f"Mean relative error over the paper's columns: **{result['score']:.3%}** (literal reading: "
             f"{result['literal_score']:.3%}); {result['exact']} of {result['cells']} cells exact at the paper's printed precision.",
             "", "| unknown | group | best | literal |", "|---|---|---|---|"]
    for u in s.unknowns:
        lines.append(f"| {u.name} | {u.group} | {u.label(result['values'][u.name])} | {u.label(u.values[0])} |")
    lines += ["", "| paper column | literal | best |", "|---|---|---|"]
    lines += [f"| {col} | {lit:.3%} | {best:.3%} |" for col, (lit, best) in result["errors"].items()]
    if any(result["pruned"].values()):
        lines += ["", "Pruned by the fingerprint: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in result["pruned"].items() if v)]
    if result["hints"]:
        lines += ["", "## Residuals", ""] + [f"- {h}" for h in result["hints"]]
    if result["failed"]:
        lines += ["", f"## Failed runs ({len(result['failed'])}: their cells count as 100% off)", ""]
        lines += [f"- {f}" for f in result["failed"][:50]]
    lines += ["", "## Readings tried", "", "Each setup reading with the measurement reading that scores best on its runs.", "",
              "| error | exact | setup | measurement |", "|---|---|---|---|"]
    for t in sorted(s.trials, key=lambda t: (t.score.error, -t.score.exact))[:30]:
        lines.append(f"| {t.score.error:.3%} | {t.score.exact} | "
                     + " | ".join(", ".join(f"{n} = {v}" for n, v in rd.shown(s.unknowns, t.values, g)) for g in ("setup", "measurement"))
                     + " |")
    tcplab._make_out_dir(out)
    (out / "calibration.md").write_text("\n".join(lines) + "\n")
