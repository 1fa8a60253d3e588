"""Studies: a paper's experiments as one command, with a report beside the paper's numbers.

Each study is a folder `experiments/<name>/` with:

- `README.md`: the citation, what is reproduced and the known differences;
- `study.toml`: the title, the sweep (`[sweep]`: scenarios, grid, seeds; `[quick]`: what
  `--quick` changes), and the paper's claims (`[[claims]]`);
- `paper.toml`: the paper's published numbers (`[[cells]]`), each tied to the scenario, flow and
  metric it is compared with. They are data for comparison only: nothing is computed from them.

`reproduce` runs the sweep (resuming a stored one), then writes `report.md`, `report.html` (one
self-contained page) and a figure per table (PNG and SVG). Every cell shows the paper's value,
tcplab's (the mean over seeds with its 95% confidence interval) and, for wired scenarios when
ns-2 is installed, ns-2.35's for the same scenario.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Callable

import tcplab
from tcplab import ScenarioError
from tcplab import sweep as sw
from tcplab import report
from tcplab.plot import pyplot, save

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def list_studies() -> dict[str, str]:
    """Study name -> title."""
    out = {}
    for p in sorted(EXPERIMENTS.glob("*/study.toml")):
        out[p.parent.name] = _toml(p).get("title", "")
    return out


def _toml(path: Path) -> dict:
    """A study's TOML file; a STUDY may be any folder, so errors name the file (and reads are
    bounded, as every input's: tcplab._read_file)."""
    try:
        return tomllib.loads(tcplab._read_file(str(path)).text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(str(path), f"not valid TOML: {e}") from None


@dataclass
class Cell:
    table: str
    row: str
    column: str
    paper: float | None
    scenario: str
    metric: str
    flow: str | None  # a flow name, or None for an aggregate over the flows
    aggregate: str  # "sum" or "mean" over flows when flow is None
    scale: float
    params: dict  # the sweep grid's values of the run it is compared with ({} for any)
    handover: int | None = None  # a handover's effect (0: the first) instead of a flow metric
    normalise: str | None = None  # "max": over the column's largest mean; "inverse": 1 - that


def _cells(study_dir: Path) -> list[Cell]:
    doc = _toml(study_dir / "paper.toml")
    cells = []
    for c in doc.get("cells", []):
        cells.append(Cell(table=c["table"], row=c["row"], column=c["column"], paper=c.get("paper"),
                          scenario=c["scenario"], metric=c.get("metric", "goodput_bps"), flow=c.get("flow"),
                          aggregate=c.get("aggregate", "sum"), scale=c.get("scale", 1.0),
                          params=c.get("params", {}), handover=c.get("handover"), normalise=c.get("normalise")))
    return cells


def _value(flows, cell: Cell, fields: list[str]) -> list[float]:
    """The cell's value in each seed's run. When several cases match the cell's scenario and
    grid values, it is the case that sets the fewest other grid fields (a sweep's parts can vary
    a field the cell does not name)."""
    if cell.handover is not None:
        if flows.empty or "handover" not in flows.columns:
            return []
        flows = flows[flows["handover"] == cell.handover]
    rows = flows[flows["scenario"] == cell.scenario]
    for field, value in cell.params.items():
        rows = rows[rows[field] == value]
    if rows["case"].nunique() > 1:
        other = [f for f in fields if f in rows.columns and f not in cell.params]
        setting = rows[other].notna().sum(axis=1)
        rows = rows[rows["case"] == rows.loc[setting.idxmin(), "case"]]
    if cell.flow is not None:
        rows = rows[rows["flow"] == cell.flow]
    out = []
    for _, g in rows.groupby("seed"):
        vals = g[cell.metric].dropna()
        if vals.empty:
            continue
        v = vals.sum() if (cell.flow is not None or cell.aggregate == "sum") else vals.mean()
        out.append(float(v) * cell.scale)
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
    flow's active time), the mean one-way delay of delivered data, and the data packets sent and
    delivered."""
    norm = tcplab.validate(scenario)
    flows = norm["flows"]
    by_fid = {f["fid"]: f for f in flows}
    sent: dict[int, float] = {}
    delays: dict[int, list[float]] = {f["fid"]: [] for f in flows}
    seqs: dict[int, set] = {f["fid"]: set() for f in flows}
    counts: dict[int, list[int]] = {f["fid"]: [0, 0] for f in flows}  # data sent, delivered
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
                          "delay_mean_s": sum(d) / len(d) if d else math.nan,
                          "packets_sent": counts[f["fid"]][0], "packets_delivered": counts[f["fid"]][1]}
    return out


def _ns2_values(cells: list[Cell], runs: list[sw.Run], max_duration: float) -> dict[tuple, float]:
    """The ns-2 value of every cell whose scenario ns-2 can run (wired, at most `max_duration`
    simulated seconds: ns-2 writes a full packet trace); empty without ns-2."""
    if shutil.which("ns") is None:
        return {}
    from tcplab import ns2

    def run_of(c: Cell) -> sw.Run | None:
        # as `_value`: the matching run that sets the fewest other grid fields
        match = [r for r in runs if r.scenario["name"] == c.scenario and all(r.params.get(k) == v for k, v in c.params.items())]
        return min(match, key=lambda r: len(r.params), default=None)

    metrics: dict[str, dict] = {}
    for c in cells:
        r = run_of(c) if c.handover is None else None
        if r is None or r.key in metrics:
            continue
        doc = r.scenario
        metrics[r.key] = {}  # decided once per run: empty if ns-2 cannot run it
        if doc.get("wlans") or doc.get("profile") == "rfc" or tcplab.validate(doc)["duration_s"] > max_duration:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                res = ns2.run_ns2(doc, tmp, cwnd=False)
                metrics[r.key] = ns2_flow_metrics(doc, res["trace"])
            except (ns2.NS2Error, ValueError):
                continue
    out = {}
    for c in cells:
        if c.handover is not None:
            continue
        r = run_of(c)
        m = metrics.get(r.key) if r else None
        if not m or any(c.metric not in f for f in m.values()):
            continue
        vals = [m[c.flow][c.metric]] if c.flow else [f[c.metric] for f in m.values()]
        v = sum(vals) if (c.flow is not None or c.aggregate == "sum") else sum(vals) / len(vals)
        out[(c.table, c.row, c.column)] = v * c.scale
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
                detail.append(f"{col}: {'lowest' if kind == 'above' else 'highest'} {best} {_fmt(present[best])}")
            else:
                ok &= best == c["expect"]
                detail.append(f"{col}: {best} {_fmt(present[best])}")
        verdict = "supported" if ok and detail else "not supported"
        out.append((c["text"], verdict, "; ".join(detail)))
    return out


# --------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------

def _fmt(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return f"{v:.4g}" if abs(v) < 1000 else f"{v:.0f}"


def _figure(table: str, title: str, cells: list[Cell], ours: dict, ns2: dict, out: Path) -> list[str]:
    """A grouped bar chart of the table: paper, tcplab (with its 95% CI) and ns-2."""
    plt = pyplot()
    if plt is None:
        return []
    labels = [f"{c.row}\n{c.column}" for c in cells]
    x = range(len(cells))
    width = 0.27
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(cells)), 4.2))
    key = lambda c: (c.table, c.row, c.column)  # noqa: E731
    paper = [c.paper if c.paper is not None else math.nan for c in cells]
    mean = [ours.get(key(c), (math.nan, 0))[0] for c in cells]
    ci = [ours.get(key(c), (math.nan, 0))[1] for c in cells]
    ax.bar([i - width for i in x], paper, width, label="paper", color="#999999")
    ax.bar(list(x), mean, width, yerr=ci, label="tcplab (95% CI)", color="#1f77b4", capsize=2)
    if ns2:
        ax.bar([i + width for i in x], [ns2.get(key(c), math.nan) for c in cells], width, label="ns-2.35", color="#ff7f0e")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=90, fontsize=6)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(plt, fig, out / f"table-{table}")


# --------------------------------------------------------------------------------------
# Figures over time
# --------------------------------------------------------------------------------------

def _series_figures(study: dict, study_dir: Path, quick: bool, seed: int, out: Path, log: Callable[[str], None]) -> list[tuple[dict, list[str]]]:
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
        done.append((f, _draw_series(f, data, out)))
    return done


def _figure_panels(f: dict, data):
    """A `[[figures]]` entry's samples ready to draw: with the plotted `value` (goodput, or data
    delivered, in kb or Mb), its axis label, and the runs of each panel (one, or all overlaid)."""
    cumulative = f.get("series", "goodput") == "cumulative"
    column = "delivered_bytes" if cumulative else "goodput_bps"
    bits = data[column] * (8 if cumulative else 1)
    div, unit = (1e6, "Mb") if bits.max() >= 1e6 else (1e3, "kb")
    ylabel = f"data delivered ({unit})" if cumulative else f"goodput ({unit}/s)"
    runs = list(dict.fromkeys(data["run"]))
    return data.assign(value=bits / div), ylabel, [runs] if f.get("overlay") else [[r] for r in runs]


def _draw_series(f: dict, data, out: Path) -> list[str]:
    plt = pyplot()
    if plt is None:
        return []
    data, ylabel, groups = _figure_panels(f, data)
    cols = min(3, len(groups))
    rows = math.ceil(len(groups) / cols)
    size = (8.0, 4.5) if len(groups) == 1 else (4.2 * cols, 3.0 * rows + 0.4)
    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False, sharey=True)
    for ax, group in zip(axes.flat, groups):
        lines = sum(data[data["run"] == r]["flow"].nunique() for r in group)
        if lines > 10:  # past the default cycle's ten colours, a colour scale keeps curves apart
            ax.set_prop_cycle(color=[plt.cm.viridis(i / (lines - 1)) for i in range(lines)])
        for r in group:
            d = data[data["run"] == r]
            for flow, g in d.groupby("flow", sort=False):
                label = r if len(group) > 1 and d["flow"].nunique() == 1 else (f"{r}: {flow}" if len(group) > 1 else flow)
                ax.plot(g["time"], g["value"], label=label, linewidth=0.9)
        ax.set_title(group[0] if len(group) == 1 else "", fontsize=8)
        ax.set_xlabel("time (s)", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, ncol=2 if len(ax.get_lines()) > 6 else 1)
    for ax in list(axes.flat)[len(groups):]:
        ax.set_visible(False)
    fig.suptitle(f["title"], fontsize=9)
    fig.tight_layout()
    return save(plt, fig, out / f"figure-{f['id']}")


def reproduce(name: str, *, quick: bool = False, seeds: int | None = None, out: str | Path | None = None,
              scheduler: str | None = None, workers: int | None = None, progress: bool = True,
              log: Callable[[str], None] = lambda s: None, run_timeout: float | str | None = None,
              max_events: int | None = None) -> Path:
    """Runs study `name` and writes its report; returns the report's folder."""
    study_dir = EXPERIMENTS / name
    if not (study_dir / "study.toml").exists():
        raise ScenarioError(name, f"no such study (try: {', '.join(list_studies())})")
    study = _toml(study_dir / "study.toml")
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
    sweep = sw.build(spec, study_dir, default_name=name)
    out = Path(out) if out else Path("results") / spec["name"]
    log(f"{len(sweep.runs)} runs into {out}")
    result = sw.run(sweep, out, workers=workers, scheduler=scheduler, progress=progress, run_timeout=run_timeout,
                    max_events=max_events)
    flows, handovers = result.flows, result.handovers
    cells = _cells(study_dir)
    ours: dict[tuple, tuple[float, float]] = {}
    for c in cells:
        vals = _value(handovers if c.handover is not None else flows, c, sweep.fields)
        if vals:
            ours[(c.table, c.row, c.column)] = (*sw.confidence_interval(vals), min(vals), max(vals))
    ns2 = _ns2_values(cells, sweep.runs, study.get("ns2_max_duration", 1000.0)) if study.get("ns2", True) else {}
    _normalise(cells, ours, ns2)
    log("ns-2.35 " + ("compared" if ns2 else "not compared (not installed, or no wired scenario short enough)"))
    claims = _claims(study, {k: v[0] for k, v in ours.items()})
    tables = []
    for t in study.get("tables", []):
        tc = [c for c in cells if c.table == t["id"]]
        figs = _figure(t["id"], t["title"], tc, ours, ns2, out)
        tables.append((t, tc, figs))
    first_seed = min((r.seed for r in sweep.runs), default=1)
    figures = _series_figures(study, study_dir, quick, first_seed, out, log)
    _write_markdown(out, study, name, quick, result, tables, ours, ns2, claims, figures)
    _write_html(out, study, name, quick, result, tables, ours, ns2, claims, figures)
    return out


def _cell_row(c: Cell, ours: dict, ns2: dict) -> list[str]:
    k = (c.table, c.row, c.column)
    mean, ci, lo, hi = ours.get(k, (None, None, None, None))
    ours_s = "–" if mean is None else f"{_fmt(mean)} ± {_fmt(ci)}"
    if mean is not None and hi > lo:
        ours_s += f" ({_fmt(lo)} to {_fmt(hi)})"
    return [c.row, c.column, _fmt(c.paper), ours_s, _fmt(ns2.get(k))]


def _header(study: dict, name: str, quick: bool, result: sw.SweepResult) -> list[str]:
    seeds = sorted({r["seed"] for r in result.rows})
    return [
        f"study `{name}`{' (quick form)' if quick else ''}, tcplab {tcplab.__version__}, {date.today().isoformat()}",
        f"{len(result.rows)} runs ({len(result.failed)} failed), seeds {seeds[0]}..{seeds[-1]}" if seeds else "no runs",
    ]


def _figure_caption(f: dict) -> str:
    what = "Data delivered in order, cumulative" if f.get("series") == "cumulative" else "Goodput"
    runs = ", ".join(p.get("label", "") for p in f.get("panels", []))
    return f"{what}, sampled every {f.get('interval', '1s')}, one run each (first seed): {runs}. Samples in figure-{f['id']}.csv."


def _write_markdown(out: Path, study, name, quick, result, tables, ours, ns2, claims, figures) -> None:
    lines = [f"# {study.get('title', name)}", "", *[f"_{h}_  " for h in _header(study, name, quick, result)], ""]
    if study.get("citation"):
        lines += [f"Paper: {study['citation']}", ""]
    for t, tc, figs in tables:
        lines += [f"## {t['title']}", "", "| row | column | paper | tcplab (mean ± 95% CI, min to max) | ns-2.35 |", "|---|---|---|---|---|"]
        lines += ["| " + " | ".join(_cell_row(c, ours, ns2)) + " |" for c in tc]
        lines += [""] + [f"![{t['title']}]({f})" for f in figs if f.endswith(".svg")] + [""]
    for f, figs in figures:
        lines += [f"## {f['title']}", "", _figure_caption(f), ""]
        lines += [f"![{f['title']}]({p})" for p in figs if p.endswith(".svg")] + [""]
    if claims:
        lines += ["## The paper's claims", ""]
        lines += [f"- {text}: **{verdict}** ({detail})" for text, verdict, detail in claims] + [""]
    if result.failed:
        lines += ["## Failed runs", ""] + [f"- {r['case']} seed {r['seed']}: {r['error']}" for r in result.failed] + [""]
    (out / "report.md").write_text("\n".join(lines))


def _write_html(out: Path, study, name, quick, result, tables, ours, ns2, claims, figures) -> None:
    """report.html: the run report's page (tcplab.report) with the study's sections: each table
    with its figure, the figures over time as interactive charts, the claims."""
    import pandas as pd

    def inline(f: str) -> dict:
        svg = (out / f).read_text()
        return {"kind": "svg", "svg": svg[svg.find("<svg"):]}

    sections = []
    for t, tc, figs in tables:
        sections += [{"kind": "heading", "text": t["title"]},
                     {"kind": "table", "id": t["id"], "title": "",
                      "columns": ["row", "column", "paper", "tcplab (mean ± 95% CI, min to max)", "ns-2.35"],
                      "rows": [_cell_row(c, ours, ns2) for c in tc]}]
        sections += [inline(f) for f in figs if f.endswith(".svg")]
    for f, _ in figures:
        sections += [{"kind": "heading", "text": f["title"]}, {"kind": "paragraph", "text": _figure_caption(f)}]
        sections += _figure_charts(f, pd.read_csv(out / f"figure-{f['id']}.csv"))
    if claims:
        sections += [{"kind": "heading", "text": "The paper's claims"},
                     {"kind": "claims", "items": [{"text": t, "verdict": v, "detail": d} for t, v, d in claims]}]
    meta = [h.replace("`", "") for h in _header(study, name, quick, result)]
    notes = [f"Paper: {study['citation']}"] if study.get("citation") else []
    page = report.render({"title": study.get("title", name), "meta": meta, "notes": notes, "sections": sections})
    (out / "report.html").write_text(page, encoding="utf-8")


def _figure_charts(f: dict, data) -> list[dict]:
    """A `[[figures]]` entry's samples as interactive charts: one per panel, or one overlay."""
    data, ylabel, groups = _figure_panels(f, data)
    out = []
    for i, group in enumerate(groups):
        rows = data[data["run"].isin(group)]
        rows = rows.assign(line=rows["run"] + ": " + rows["flow"] if len(group) > 1 else rows["flow"])
        out.append({"kind": "chart", "id": f"figure-{f['id']}-{i}", "title": group[0] if len(group) == 1 else "",
                    "xlabel": "time (s)", "ylabel": ylabel,
                    "series": report.lines(rows, "time", "value", "line")})
    return out
