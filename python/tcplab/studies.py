"""Studies: a paper's experiments as one command, with a report beside the paper's numbers.

Each study is a folder `experiments/<name>/` with:

- `README.md`: the citation, what is reproduced and the known differences;
- `study.toml`: the title, the sweep (`[sweep]`: scenarios, grid, seeds; `[quick]`: what
  `--quick` changes), and the paper's claims (`[[claims]]`);
- `paper.toml`: the paper's published numbers (`[[cells]]`), each tied to the scenario, flow and
  metric it is compared with. They are data for comparison only: nothing is computed from them.

`reproduce` runs the sweep (resuming a stored one), measures each cell under each reading, and
has tcplab.study_report write `report.md`, `report.html` (one self-contained page) and the
figures: every cell beside the paper's value and, for wired scenarios when ns-2 is installed,
ns-2.35's for the same scenario.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import tcplab
from tcplab import ScenarioError
from tcplab import sweep as sw
from tcplab import fingerprint, readings, study_report
from tcplab.paper import RATES, Cell, cells as paper_cells, fmt, read_toml
from tcplab.study_report import Shown

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def list_studies() -> dict[str, str]:
    """Study name -> title."""
    out = {}
    for p in sorted(EXPERIMENTS.glob("*/study.toml")):
        out[p.parent.name] = read_toml(p).get("title", "")
    return out


# --------------------------------------------------------------------------------------
# A cell's value in a run, under a reading's measurement knobs
# --------------------------------------------------------------------------------------

def measure(cell: Cell, knobs: dict, flows: dict[str, dict], times: dict[str, float], duration: float) -> float | None:
    """The cell's value in one run. `flows`: each flow's metrics (a summary's flow, or a
    handover's effect on it); `times`: each flow's active seconds; `duration`: the run's. The
    knobs (readings.MEASURES) default to the cell's own fields, the literal reading."""
    metric = knobs.get("metric", cell.metric)
    if metric in RATES and "bytes" in knobs:
        metric = "goodput_bps" if knobs["bytes"] == "goodput" else "throughput_bps"
    over = knobs.get("over", "active")

    def amount(name: str) -> tuple[float, float] | None:
        """(value, weight): a rate over its denominator (its time), else the value over its packets."""
        f = flows.get(name)
        v = None if f is None else (f.get("packets_sent", 0) - f.get("packets_retransmitted", 0)
                                    if metric == "packets_new" else f.get(metric))
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        if metric in RATES:
            t = times.get(name, duration)
            span = t if over == "active" else duration if over == "run" else float(over)
            return v * t / span if span > 0 else 0.0, span
        return float(v), float(f.get("packets_delivered") or 1)

    how = knobs.get("combine", "each")
    if how == "each":  # the cell's flow, or its own aggregate over the flows
        how = "sum" if cell.flow is not None else cell.aggregate
        names = [cell.flow] if cell.flow is not None else list(flows)
    else:  # every flow of the run, whatever flow the cell names
        names = list(flows)
    got = [a for a in map(amount, names) if a is not None]
    if not got:
        return None
    if how == "sum":
        v = sum(x for x, _ in got)
    elif how == "mean":
        v = sum(x for x, _ in got) / len(got)
    else:  # pooled: all the flows' amounts over their summed weights
        weight = sum(w for _, w in got)
        v = sum(x * w for x, w in got) / weight if weight else 0.0
    share = knobs.get("share", cell.share)
    if share == "capacity" and cell.capacity:
        v /= cell.capacity
    elif share is not None:
        total = sum(x for x, _ in (amount(n) or (0.0, 0.0) for n in flows))
        v = v / total if total else 0.0
    return v * cell.scale * 10.0 ** knobs.get("unit", 0)


def runs_of(cell: Cell, runs: list[sw.Run]) -> list[sw.Run]:
    """The cell's runs, one per seed: those of its scenario with its grid values; when several
    cases match, the case that sets the fewest other grid fields (a sweep's parts can vary a
    field the cell does not name)."""
    match = [r for r in runs if r.scenario.get("name") == cell.scenario
             and all(r.params.get(k) == v for k, v in cell.params.items())]
    if not match:
        return []
    case = min(match, key=lambda r: len(r.params)).case
    return [r for r in match if r.case == case]


class Shapes:
    """Each run's flows' active seconds and duration, from its scenario as normalised (once
    per scenario: every seed shares it)."""

    def __init__(self):
        self._seen: dict[str, tuple[dict[str, float], float]] = {}

    def __call__(self, run: sw.Run) -> tuple[dict[str, float], float]:
        key = json.dumps(run.scenario, sort_keys=True)
        if key not in self._seen:
            norm = tcplab.validate(run.scenario)
            end = norm["duration_s"]
            times = {f["name"]: max(0.0, min(f["stop_s"] if f["stop_s"] is not None else end, end) - f["start_s"])
                     for f in norm["flows"]}
            self._seen[key] = times, end
        return self._seen[key]


def with_run_metrics(summary: dict) -> dict:
    """A stored summary whose flows also carry the run's own metrics (Jain's index), which
    cells name as they name a flow's."""
    return {**summary, "flows": [{**f, "jain_fairness": summary["jain_fairness"]} for f in summary["flows"]]}


def cell_values(cell: Cell, knobs: dict, runs: list[sw.Run], summaries: dict[str, dict], shapes: Shapes) -> list[float]:
    """The cell's value in each of its runs that finished (`summaries` by run key)."""
    out = []
    for r in runs_of(cell, runs):
        s = summaries.get(r.key)
        if s is None:
            continue
        if cell.handover is not None:
            hs = s.get("handovers", [])
            if cell.handover >= len(hs):
                continue
            flows = {f["flow"]: f for f in hs[cell.handover].get("flows", [])}
        else:
            flows = {f["name"]: f for f in s["flows"]}
        times, duration = shapes(r)
        v = measure(cell, knobs, flows, times, duration)
        if v is not None:
            out.append(v)
    return out


def _normalise(cells: list[Cell], ours: dict, ns2: dict) -> None:
    """Rescales the cells with `normalise` in place, column by column over the cells that share
    their table, column and `normalise`: "max" divides by the largest mean (normalised
    throughput), "inverse" gives 1 minus that (inversely normalised delay: 0 for the longest)."""
    groups: dict[tuple, list[tuple]] = {}
    for c in cells:
        if c.normalise:
            if c.normalise not in ("max", "inverse"):
                raise ScenarioError(f"cells.{c.table}.{c.row}.normalise", f"{c.normalise!r} is not \"max\" or \"inverse\"")
            groups.setdefault((c.table, c.column, c.normalise), []).append((c.table, c.row, c.column))
    for (_, _, how), keys in groups.items():
        for values, mean_of in ((ours, lambda v: v[0]), (ns2, lambda v: v)):
            present = [k for k in keys if k in values]
            top = max((mean_of(values[k]) for k in present), default=0.0)
            if top <= 0:
                continue
            for k in present:
                v = values[k]
                if isinstance(v, tuple):
                    mean, ci, lo, hi = (x / top for x in v)
                    values[k] = (mean, ci, lo, hi) if how == "max" else (1 - mean, ci, 1 - hi, 1 - lo)
                else:
                    values[k] = v / top if how == "max" else 1 - v / top


# --------------------------------------------------------------------------------------
# ns-2's numbers for the same scenarios
# --------------------------------------------------------------------------------------

def ns2_flow_metrics(scenario: dict, trace: str) -> dict[str, dict]:
    """Per flow, from ns-2's wired trace: goodput (the data delivered in order, as tcplab counts
    it: for TCP the segments up to the first one never delivered, for CBR every packet, over the
    flow's active time), throughput (the bytes of every data packet received, duplicates and
    headers included, over the same time), the mean one-way delay of delivered data, and the
    data packets sent and delivered."""
    norm = tcplab.validate(scenario)
    flows = norm["flows"]
    by_fid = {f["fid"]: f for f in flows}
    sent: dict[int, float] = {}
    delays: dict[int, list[float]] = {f["fid"]: [] for f in flows}
    seqs: dict[int, set] = {f["fid"]: set() for f in flows}
    counts: dict[int, list[int]] = {f["fid"]: [0, 0] for f in flows}  # data sent, delivered
    wire: dict[int, int] = {f["fid"]: 0 for f in flows}  # bytes of every data packet received, duplicates too
    with open(trace) as fh:
        for line in fh:
            p = line.split()
            if len(p) < 12 or p[4] not in ("tcp", "cbr"):
                continue
            ev, t, a, b, fid, uid = p[0], float(p[1]), int(p[2]), int(p[3]), int(p[7]), int(p[11])
            f = by_fid.get(fid)
            if f is None:
                continue
            if ev == "+" and a == f["from"] and uid not in sent:
                sent[uid] = t
                counts[fid][0] += 1
            elif ev == "r" and b == f["to"]:
                counts[fid][1] += 1
                wire[fid] += int(p[5])
                if uid in sent:
                    delays[fid].append(t - sent.pop(uid))
                seqs[fid].add(int(p[10]))
    out = {}
    for f in flows:
        start = f["start_s"]
        stop = f["stop_s"] if f["stop_s"] is not None else norm["duration_s"]
        got = seqs[f["fid"]]
        if f["transport"] == "tcp":
            payload = f["params"]["packet_size"]
            in_order = 0
            while in_order in got:
                in_order += 1
            # every agent but Vegas opens with a 40-byte SYN (seqno 0) that carries no data
            data = in_order - (1 if in_order and f["variant"] != "vegas" and f["params"]["syn"] else 0)
        else:
            payload, data = f["size"], len(got)
        d = delays[f["fid"]]
        out[f["name"]] = {"goodput_bps": data * payload * 8 / max(stop - start, 1e-9),
                          "throughput_bps": wire[f["fid"]] * 8 / max(stop - start, 1e-9),
                          "delay_mean_s": sum(d) / len(d) if d else math.nan,
                          "packets_sent": counts[f["fid"]][0], "packets_delivered": counts[f["fid"]][1]}
    return out


def _ns2_values(cells: list[Cell], us: list, values: dict, runs: list[sw.Run], max_duration: float) -> dict[tuple, float]:
    """The ns-2 value of every cell whose scenario ns-2 can run (wired, at most `max_duration`
    simulated seconds: ns-2 writes a full packet trace), under a reading's measurement, from the
    cell's first seed's run; empty without ns-2."""
    if shutil.which("ns") is None:
        return {}
    from tcplab import ns2

    shapes = Shapes()
    metrics: dict[str, dict] = {}
    out = {}
    for c in cells:
        mine = runs_of(c, runs) if c.handover is None else []
        if not mine:
            continue
        r = min(mine, key=lambda r: r.seed)
        if r.key not in metrics:
            metrics[r.key] = {}  # decided once per run: empty if ns-2 cannot run it
            doc = r.scenario
            if not (doc.get("wlans") or doc.get("profile") == "rfc" or tcplab.validate(doc)["duration_s"] > max_duration):
                with tempfile.TemporaryDirectory() as tmp:
                    try:
                        res = ns2.run_ns2(doc, tmp, cwnd=False)
                        metrics[r.key] = ns2_flow_metrics(doc, res["trace"])
                    except (ns2.NS2Error, ValueError):
                        pass
        m = metrics[r.key]
        if not m or any(c.metric not in f for f in m.values()):
            continue
        times, duration = shapes(r)
        v = measure(c, readings.knobs(us, values, c), m, times, duration)
        if v is not None:
            out[(c.table, c.row, c.column)] = v
    return out


# --------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------

def _claims(study: dict, values: dict[tuple, float]) -> list[tuple[str, str, str]]:
    """Each claim with "supported"/"not supported" and the numbers that decide it. A claim is
    `kind = "lowest"` or `"highest"`: among `rows` (row labels of `table`) the `expect` row has
    the lowest (highest) value in every column (or in `columns`); or `kind = "above"` or
    `"below"`: every one of those cells is above (below) `threshold`."""
    out = []
    for c in study.get("claims", []):
        table, rows, kind = c["table"], c["rows"], c["kind"]
        columns = c.get("columns") or sorted({k[2] for k in values if k[0] == table and k[1] in rows})
        ok, detail = True, []
        for col in columns:
            present = {r: values[(table, r, col)] for r in rows if (table, r, col) in values}
            if not present:
                continue
            best = (min if kind in ("lowest", "above") else max)(present, key=present.get)
            if kind in ("above", "below"):
                ok &= present[best] > c["threshold"] if kind == "above" else present[best] < c["threshold"]
                detail.append(f"{col}: {'lowest' if kind == 'above' else 'highest'} {best} {fmt(present[best])}")
            else:
                ok &= best == c["expect"]
                detail.append(f"{col}: {best} {fmt(present[best])}")
        verdict = "supported" if ok and detail else "not supported"
        out.append((c["text"], verdict, "; ".join(detail)))
    return out


# --------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------
# Figures over time
# --------------------------------------------------------------------------------------

def _series_figures(study: dict, study_dir: Path, quick: bool, seed: int, out: Path, log: Callable[[str], None]) -> list[tuple[dict, object]]:
    """The study's `[[figures]]`: goodput (or data delivered, `series = "cumulative"`) of each
    flow against time, one run per panel at the sweep's first seed, sampled every `interval`.
    `overlay = true` draws every panel's run on one axes (the paper's curves for several RTTs);
    `flows` picks the flows drawn. In quick form `[quick.figures]` is set on every run. The
    samples go to `figure-<id>.csv` beside the report."""
    figures = study.get("figures", [])
    if not figures:
        return []
    import pandas as pd

    quick_set = study.get("quick", {}).get("figures", {}) if quick else {}
    done = []
    for i, f in enumerate(figures):
        at = f"figures[{i}]"
        path = study_dir / f.get("scenario", "")
        if not path.is_file():
            raise ScenarioError(f"{at}.scenario", f"{f.get('scenario')!r} is not a scenario file")
        base = sw.read_scenario(path)
        frames = []
        for j, panel in enumerate(f.get("panels", [])):
            doc = json.loads(json.dumps(base))  # a deep copy
            settings = {**f.get("set", {}), **panel.get("set", {}), "output.interval": f.get("interval", "1s"), **quick_set}
            for field, value in settings.items():
                try:
                    sw.set_field(doc, field, value)
                except ScenarioError as e:
                    raise ScenarioError(f"{at}.panels[{j}].set.{field}", e.message) from None
            samples = tcplab.run(doc, seed=seed).series["flows"]
            if f.get("flows"):
                samples = samples[samples["flow"].isin(f["flows"])]
            frames.append(samples.assign(run=panel.get("label", f"run {j + 1}")))
        if not frames:
            raise ScenarioError(f"{at}.panels", "needs at least one panel (a label and the fields it sets)")
        data = pd.concat(frames, ignore_index=True)[["run", "time", "flow", "goodput_bps", "delivered_bytes"]]
        data.to_csv(out / f"figure-{f['id']}.csv", index=False)
        log(f"figure {f['id']}: {len(frames)} runs")
        done.append((f, data))
    return done


def study_sweep(name: str, *, quick: bool = False, seeds: int | None = None) -> tuple[Path, dict, sw.Sweep]:
    """The study's folder, its study.toml and its sweep (in quick form, or with `seeds`)."""
    study_dir = EXPERIMENTS / name
    if not (study_dir / "study.toml").exists():
        raise ScenarioError(name, f"no such study{tcplab._meant(name, list_studies())} (try: {', '.join(list_studies())})")
    study = read_toml(study_dir / "study.toml")
    spec = dict(study["sweep"])
    if quick:
        q = study.get("quick", {})
        if "parts" in spec:
            spec["parts"] = [{**p, "grid": {**p.get("grid", {}), **q.get("grid", {})}} for p in spec["parts"]]
        else:
            spec["grid"] = {**spec.get("grid", {}), **q.get("grid", {})}
        if "seeds" in q:
            spec["seeds"] = q["seeds"]
    if seeds is not None:
        spec["seeds"] = seeds
    spec["name"] = name + ("-quick" if quick else "")
    return study_dir, study, sw.build(spec, study_dir, default_name=name)


def merged(name: str, sweeps: list[sw.Sweep]) -> sw.Sweep:
    """One sweep of every run of `sweeps`, each distinct run once."""
    out = sw.Sweep(name=name, fields=list(sweeps[0].fields), run_timeout=sweeps[0].run_timeout, max_events=sweeps[0].max_events)
    seen = set()
    for s in sweeps:
        for r in s.runs:
            if r.key not in seen:
                seen.add(r.key)
                out.runs.append(r)
    return out


def ours_values(cells: list[Cell], us: list, values: dict, runs: list[sw.Run], summaries: dict[str, dict],
                shapes: Shapes) -> dict[tuple, tuple[float, float, float, float]]:
    """Each cell's (mean, 95% CI, min, max) over its seeds' runs under a reading's measurement."""
    out = {}
    for c in cells:
        vals = cell_values(c, readings.knobs(us, values, c), runs, summaries, shapes)
        if vals:
            out[(c.table, c.row, c.column)] = (*sw.confidence_interval(vals), min(vals), max(vals))
    return out


def reproduce(name: str, *, quick: bool = False, seeds: int | None = None, out: str | Path | None = None,
              scheduler: str | None = None, workers: int | None = None, progress: bool = True,
              log: Callable[[str], None] = lambda s: None, run_timeout: float | str | None = None,
              max_events: int | None = None) -> Path:
    """Runs study `name` and writes its report; returns the report's folder. With a calibrated
    reading (reading.toml), it runs that reading and the literal one, and shows both."""
    study_dir, study, sweep = study_sweep(name, quick=quick, seeds=seeds)
    us = readings.unknowns(study)
    literal = readings.literal(us)
    best = readings.load_best(study_dir, us)
    shown = [Shown("literal", literal, sweep)]
    if best is not None and best["values"] != literal:
        # at the seeds it was calibrated at (a paper's tables are often one run each), unless
        # told, or in quick form (whose seeds both readings share)
        keep = quick or seeds is not None or "seeds" not in best
        base = sweep if keep else study_sweep(name, quick=quick, seeds=best["seeds"])[2]
        shown.insert(0, Shown("best", best["values"], readings.apply_setup(base, us, best["values"])))
    every = merged(sweep.name, [r.sweep for r in shown])
    out = Path(out) if out else Path("results") / sweep.name
    log(f"{len(every.runs)} runs into {out}" + (" (the best reading and the literal one)" if len(shown) > 1 else ""))
    result = sw.run(every, out, workers=workers, scheduler=scheduler, progress=progress, run_timeout=run_timeout,
                    on_failure="keep",  # the report lists its failed runs
                    max_events=max_events)
    summaries = {r["key"]: with_run_metrics(r["summary"]) for r in result.rows if r["summary"] is not None}
    cells, shapes = paper_cells(study_dir), Shapes()
    for r in shown:
        r.ours = ours_values(cells, us, r.values, r.sweep.runs, summaries, shapes)
        r.ns2 = _ns2_values(cells, us, r.values, r.sweep.runs, study.get("ns2_max_duration", 1000.0)) if study.get("ns2", True) else {}
        _normalise(cells, r.ours, r.ns2)
        r.claims = _claims(study, {k: v[0] for k, v in r.ours.items()})
    log("ns-2.35 " + ("compared" if shown[0].ns2 else "not compared (not installed, or no wired scenario short enough)"))
    first_seed = min((r.seed for r in shown[-1].sweep.runs), default=1)
    series = _series_figures(study, study_dir, quick, first_seed, out, log)
    typos = fingerprint.fingerprint(study_dir).typo_cells()
    unexplained = [] if quick else _unexplained(cells, shown[0], typos)  # quick runs are not the paper's
    tables = [(t, [c for c in cells if c.table == t["id"]]) for t in study.get("tables", [])]
    study_report.write(out, study_report.StudyReport(
        study, name, quick, result, tables, shown, us, best, unexplained, series,
        study_report.about(study_dir / "README.md"), typos))
    return out


def _unexplained(cells: list[Cell], headline: Shown, typos: dict) -> list[tuple[Cell, float, str]]:
    """The cells the headline reading leaves more than 2% from the paper, each with the likeliest
    reason: a typo the table's own arithmetic shows (`typos`), or else what no declared unknown covers."""
    out = []
    for c in cells:
        k = (c.table, c.row, c.column)
        if not c.paper or k not in headline.ours:
            continue
        off = headline.ours[k][0] / c.paper - 1
        if abs(off) > 0.02:
            why = typos.get(k) or ("a setup or measure no declared unknown covers: an older ns-2, the author's own "
                                   "code, or an unstated change to the scenario")
            out.append((c, off, why))
    return out
