"""A study's report: what `tcplab reproduce` writes once the runs are measured (tcplab.studies).

- Each paper table in the paper's own shape (its rows by its columns), once per reading: per
  cell the paper's value, tcplab's (with its 95% interval where the seeds vary), the difference
  in % and ns-2.35's for the same scenario, with the seed it ran said.
- A figure per table and measure (one unit on each y axis), with a panel per paper column
  (small multiples) sized so that every label is readable at 100%.
- The study's own account of itself (its README's paragraphs), the readings, the claims, and
  the cells no reading explains.
- In quick form a warning on top and no claim verdicts: shortened runs are not the paper's.

report.md, report.html (tcplab.report's page) and the figures (PNG and SVG) go to one folder.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import tcplab
from tcplab import fingerprint, report
from tcplab import sweep as sw
from tcplab.plot import pyplot, save
from tcplab.paper import Cell, column_of, fmt, quantity

# the colours of the bars: the paper grey, tcplab's readings blue, ns-2 orange
PAPER, NS2 = "#8c8c8c", "#e6852e"
READINGS = ("#1f5fa8", "#8fb8e3")
WIDTH_IN = 10.0  # a figure's widest: within the page's 1200-px column at 100%, in inches of 96 px


@dataclass
class Shown:
    """One reading of the study as the report shows it: its values, its runs and its numbers."""
    name: str  # "best" or "literal"
    values: dict
    sweep: sw.Sweep
    ours: dict = None  # (table, row, column) -> (mean, ci, min, max)
    ns2: dict = None  # (table, row, column) -> value
    claims: list = None


@dataclass
class StudyReport:
    study: dict
    name: str
    quick: bool
    result: sw.SweepResult
    tables: list  # (the table's study.toml entry, its cells)
    shown: list[Shown]  # the headline reading first
    unknowns: list
    best: dict | None
    unexplained: list  # (cell, relative difference, likeliest reason)
    series: list  # (a [[figures]] entry, its samples as a DataFrame)
    about: list[tuple[str, list[str]]]  # the study README's paragraphs: (heading, blocks)
    typos: dict  # (table, row, column) -> why the paper's value looks like a typo


def write(out: Path, rep: StudyReport) -> None:
    """The figures, report.md and report.html of `rep` into `out`."""
    figures = {t["id"]: table_figures(t, cells, rep.shown, out) for t, cells in rep.tables}
    series = [(f, _draw_series(f, data, out)) for f, data in rep.series]
    _write_markdown(out, rep, figures, series)
    _write_html(out, rep, figures, series)


# --------------------------------------------------------------------------------------
# The paper's tables, in their own shape
# --------------------------------------------------------------------------------------

def _number(v: float | None, c: Cell) -> str:
    """A value of cell `c` with the decimals the paper prints it with, so it reads beside it."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    return fmt(v) if c.paper is None else fingerprint.printed_like(v, c)


def _delta(ours: float | None, paper: float | None) -> str:
    if ours is None or paper is None or not paper or math.isnan(ours):
        return "–"
    return f"{round((ours / paper - 1) * 100, 2) + 0.0:+.2f}%"  # + 0.0: no "-0.00%"


def _seeds(r: Shown) -> list[int]:
    return sorted({run.seed for run in r.sweep.runs})


def by_measure(table: dict, cells: list[Cell]) -> dict[str, list[Cell]]:
    """A table's cells by what they measure (measure_of), in the table's order."""
    measures: dict[str, list[Cell]] = {}
    for c in cells:
        measures.setdefault(measure_of(c, table), []).append(c)
    return measures


def blocks(table: dict, cells: list[Cell]) -> list[tuple[str, list[Cell]]]:
    """A table's cells as the page shows them: (measure, cells) per measure when its rows
    carry the measures ("Tahoe throughput (kb/s)", "Tahoe delay (s)" across environments), so
    each block is variants by environments in one unit; else the table whole ("", cells)."""
    measures = by_measure(table, cells)
    if len(measures) > 1 and not all(len({c.column for c in mc}) == 1 for mc in measures.values()):
        return list(measures.items())
    return [("", cells)]


def grid(cells: list[Cell], r: Shown, typos: dict, split: bool = False) -> dict:
    """Paper cells under one reading as the page's table section: the paper's rows by its
    columns, each column a group of paper, tcplab, Δ (and ns-2.35 when it ran). `split`: the
    cells are one measure's block, their rows named without it ("Tahoe")."""
    label = _item if split else (lambda c: c.row)
    rows, columns = list(dict.fromkeys(map(label, cells))), list(dict.fromkeys(c.column for c in cells))
    at = {(label(c), c.column): c for c in cells}
    sub = ["paper", "tcplab", "Δ"] + (["ns-2"] if r.ns2 else [])
    out_rows = []
    for row in rows:
        line = [row]
        for col in columns:
            c = at.get((row, col))
            if c is None:
                line += [""] * len(sub)
                continue
            k = (c.table, c.row, c.column)
            mean, ci, _, _ = r.ours.get(k, (None, 0.0, None, None))
            ours = _number(mean, c) + (f" ± {_number(ci, c)}" if mean is not None and ci and ci > 0 else "")
            paper = (c.printed or fmt(c.paper)) + (" †" if k in typos else "")
            line += [paper, ours, _delta(mean, c.paper)] + ([_number(r.ns2.get(k), c)] if r.ns2 else [])
        out_rows.append(line)
    return {"columns": [""] + sub * len(columns), "groups": [["", 1]] + [[col, len(sub)] for col in columns],
            "rows": out_rows, "deltas": [1 + i * len(sub) + 2 for i in range(len(columns))]}


def grid_notes(cells: list[Cell], r: Shown, typos: dict) -> list[str]:
    """What the numbers of a table under one reading are: tcplab's over how many seeds (and
    whether they vary), Δ's colours, ns-2's run, the typo marks."""
    seeds = _seeds(r)
    cis = [r.ours[k][1] for k in ((c.table, c.row, c.column) for c in cells) if k in r.ours]
    if len(seeds) <= 1:
        notes = [f"tcplab: one run per cell (seed {seeds[0] if seeds else '?'}), so no interval."]
    elif all(ci == 0 for ci in cis):
        notes = [f"tcplab: the mean of {len(seeds)} seeds. Deterministic here: the seeds give identical runs, so no interval."]
    else:
        notes = [f"tcplab: the mean of {len(seeds)} seeds ± the 95% confidence interval (Student's t); "
                 "no ± where the seeds give identical values."]
    notes.append("Δ: tcplab against the paper; within 1% green, within 5% amber, beyond red.")
    if r.ns2:
        notes.append(f"ns-2: ns-2.35, one run of the same scenario at seed {seeds[0]}, measured as tcplab's under this reading"
                     + (" (tcplab's value is the mean over its seeds)." if len(seeds) > 1 else "."))
    if any((c.table, c.row, c.column) in typos for c in cells):
        notes.append("†: the paper's value looks like a typo (see the cells no reading explains, below).")
    return notes


def _grid_markdown(g: dict) -> list[str]:
    """The grid as a Markdown table: Markdown has no grouped header, so each column's name
    carries its group ("E/E paper")."""
    names, i = [], 0
    for label, span in g["groups"]:
        names += [f"{label} {c}".strip() for c in g["columns"][i:i + span]]
        i += span
    names[0] = "row"
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    return lines + ["| " + " | ".join(row) + " |" for row in g["rows"]]


# --------------------------------------------------------------------------------------
# A figure per table and measure
# --------------------------------------------------------------------------------------

_UNIT = re.compile(r"\s*\(([^()\s]{1,8})\)\s*$")  # "(kb/s)", "(%)": no "(all three)"
_NAMES = {"throughput": "throughput", "share": "share", "delay": "delay", "efficiency": "efficiency",
          "jain_fairness": "Jain's fairness index", "packets_sent": "packets sent", "packets_new": "packets sent",
          "recovery_s": "recovery time", "disruption_s": "disruption"}


def measure_of(c: Cell, table: dict) -> str:
    """What a cell measures, with its unit: "throughput (kb/s)", "delay (s)", "share (%)",
    from its column's or row's "(unit)" or the table's `unit`. Cells of one measure share a
    y axis; no axis mixes two."""
    what = _NAMES.get(quantity(c), quantity(c).replace("_", " "))
    if c.normalise:
        what = ("normalised " if c.normalise == "max" else "inversely normalised ") + what
    for label in (c.column, c.row):
        m = _UNIT.search(label)
        if m:
            return f"{what} ({m.group(1)})"
    return f"{what} ({table['unit']})" if table.get("unit") else what


def _item(c: Cell) -> str:
    """A row's label on a figure's axis, without the measure a row label may end with
    ("Vegas/Tahoe: Vegas throughput (kb/s)" -> "Vegas/Tahoe: Vegas")."""
    m = _UNIT.search(c.row)
    if not m:
        return c.row
    words = c.row[:m.start()].split()
    return " ".join(words[:-1]) if len(words) > 1 else c.row


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def table_figures(table: dict, cells: list[Cell], shown: list[Shown], out: Path) -> list[tuple[str, list[str]]]:
    """The table's figures: (what it shows, file names). A panel per paper column and measure
    (small multiples), each a group of bars per row: the paper's value, tcplab's under each
    reading with its 95% interval, and ns-2.35's under the headline one. When a table's
    columns are its measures (delay, throughput, efficiency) one figure holds them, each panel
    with its own axis; when each measure spans several columns (environments) it gets a figure
    of its own, its panels on one scale."""
    plt = pyplot()
    if plt is None:
        return []
    parts = blocks(table, cells)
    if len(parts) == 1:  # one measure, or one per column: one figure, a panel per column
        measures = by_measure(table, cells)
        return [(", ".join(measures), _bars(plt, table, measures, shown, out / f"table-{table['id']}"))]
    return [(m, _bars(plt, table, {m: mc}, shown, out / f"table-{table['id']}-{_slug(m)}")) for m, mc in parts]


def _bars(plt, table: dict, measures: dict[str, list[Cell]], shown: list[Shown], stem: Path) -> list[str]:
    cells = [c for mc in measures.values() for c in mc]
    panels = list(dict.fromkeys((m, c.column) for m, mc in measures.items() for c in mc))
    items = list(dict.fromkeys(_item(c) for c in cells))
    at = {(c.column, _item(c)): c for c in cells}
    key = lambda c: (c.table, c.row, c.column)  # noqa: E731
    series = [("paper", PAPER, lambda c: (c.paper, None))]
    for r, colour in zip(shown, READINGS):
        ci = " (95% CI)" if any(r.ours.get(key(c), (0, 0))[1] for c in cells) else ""
        series.append((f"tcplab, {r.name} reading{ci}" if len(shown) > 1 else f"tcplab{ci}", colour,
                       lambda c, r=r: r.ours.get(key(c), (None, None))[:2]))
    if shown[0].ns2:
        series.append((f"ns-2.35, {shown[0].name} reading" if len(shown) > 1 else "ns-2.35", NS2,
                       lambda c: (shown[0].ns2.get(key(c)), None)))
    bars = len(items) * len(series)
    needed = 0.11 * bars + 1.0  # inches: a bar wide enough to see, and the axis's labels
    cols = 2 if len(panels) > 1 and needed <= WIDTH_IN / 2 else 1
    panel_w = WIDTH_IN / 2 if cols == 2 else min(WIDTH_IN, max(6.0, 1.3 * needed))
    rows = math.ceil(len(panels) / cols)
    longest = max(len(i) for i in items)
    slanted = 0.075 * longest * len(items) > panel_w - 1.0  # labels that would run into each other lie at 30°
    panel_h = 2.8 + (0.06 * longest if slanted else 0.3)
    with plt.rc_context({"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "xtick.labelsize": 9,
                         "ytick.labelsize": 9, "legend.fontsize": 9}):
        fig, axes = plt.subplots(rows, cols, figsize=(panel_w * cols, panel_h * rows + 0.8), squeeze=False,
                                 layout="constrained")
        width = 0.8 / len(series)
        for i, (ax, (measure, column)) in enumerate(zip(axes.flat, panels)):
            for n, (label, colour, value) in enumerate(series):
                xs, hs, errs = [], [], []
                for j, item in enumerate(items):
                    c = at.get((column, item))
                    v, err = value(c) if c is not None else (None, None)
                    if v is not None and not (isinstance(v, float) and math.isnan(v)):
                        xs.append(j + (n - (len(series) - 1) / 2) * width)
                        hs.append(v)
                        errs.append(err or 0.0)
                ax.bar(xs, hs, width, yerr=errs if any(errs) else None, label=label, color=colour,
                       capsize=2 if any(errs) else 0, error_kw={"linewidth": 0.8})
            ax.set_xticks(range(len(items)))
            ax.set_xticklabels(items, rotation=30 if slanted else 0, ha="right" if slanted else "center")
            ax.set_title(column if column.lower() not in measure.lower() else "")
            if i % cols == 0 or panels[i - 1][0] != measure:  # a row's panels of one measure share its label
                ax.set_ylabel(measure)
            ax.grid(axis="y", linewidth=0.4, alpha=0.5)
            ax.set_axisbelow(True)
        for measure in measures:  # one measure, one scale: its panels compare at a glance
            same = [ax for ax, (m, _) in zip(axes.flat, panels) if m == measure]
            top = max(ax.get_ylim()[1] for ax in same)
            for ax in same:
                ax.set_ylim(min(0.0, ax.get_ylim()[0]), top)
        for ax in list(axes.flat)[len(panels):]:
            ax.set_visible(False)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.suptitle(f"{table['title'].split(':')[0]}: {', '.join(measures)}", fontsize=11)
        fig.legend(handles, labels, loc="outside lower center", ncol=len(series) if panel_w * cols >= 8 else 2, frameon=False)
        return save(plt, fig, stem)


# --------------------------------------------------------------------------------------
# Figures over time
# --------------------------------------------------------------------------------------

def _sampled_every(data) -> str:
    """The sampling interval the samples show (their runs' median step), for the caption."""
    steps = data.sort_values("time").groupby(["run", "flow"])["time"].diff().dropna()
    if steps.empty:
        return "–"
    s = float(steps.median())
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def _series_caption(f: dict, data, seed: int) -> str:
    what = "Data delivered in order, cumulative" if f.get("series") == "cumulative" else "Goodput"
    runs = ", ".join(dict.fromkeys(data["run"]))
    return (f"{what} per flow, sampled every {_sampled_every(data)}; one run each at seed {seed}: {runs}. "
            f"The samples are in figure-{f['id']}.csv.")


def _series_panels(f: dict, data):
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
    data, ylabel, groups = _series_panels(f, data)
    cols = min(2, len(groups))
    rows = math.ceil(len(groups) / cols)
    size = (8.0, 4.5) if len(groups) == 1 else (WIDTH_IN, 3.2 * rows + 0.5)
    with plt.rc_context({"font.size": 10, "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9}):
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
            ax.set_title(group[0] if len(group) == 1 else "")
            ax.set_xlabel("time (s)")
            ax.set_ylabel(ylabel)
            ax.legend(ncol=2 if len(ax.get_lines()) > 6 else 1)
        for ax in list(axes.flat)[len(groups):]:
            ax.set_visible(False)
        fig.suptitle(f["title"], fontsize=11)
        fig.tight_layout()
        return save(plt, fig, out / f"figure-{f['id']}")


def _series_charts(f: dict, data) -> list[dict]:
    """A `[[figures]]` entry's samples as the page's interactive charts: one per panel, or one overlay."""
    data, ylabel, groups = _series_panels(f, data)
    out = []
    for i, group in enumerate(groups):
        rows = data[data["run"].isin(group)]
        rows = rows.assign(line=rows["run"] + ": " + rows["flow"] if len(group) > 1 else rows["flow"])
        out.append({"kind": "chart", "id": f"figure-{f['id']}-{i}", "title": group[0] if len(group) == 1 else "",
                    "xlabel": "time (s)", "ylabel": ylabel, "series": report.lines(rows, "time", "value", "line")})
    return out


# --------------------------------------------------------------------------------------
# The rest of the report: header, readings, errors per column, claims, the study's account
# --------------------------------------------------------------------------------------

def about(readme: Path) -> list[tuple[str, list[str]]]:
    """The study README's paragraphs that open with a bold heading ("**Known differences.**"),
    each as (heading, its blocks: paragraphs and tables, as Markdown)."""
    if not readme.is_file():
        return []
    out: list[tuple[str, list[str]]] = []
    for block in re.split(r"\n\s*\n", readme.read_text()):
        m = re.match(r"\*\*(.+?)\.?\*\*\s*", block)
        if m:
            out.append((m.group(1), [block[m.end():].strip()] if block[m.end():].strip() else []))
        elif out and not block.startswith("    "):  # a command block is the README's, not the report's
            out[-1][1].append(block.strip())
    return out


def _plain(markdown: str) -> str:
    """A paragraph's Markdown as the page's plain text (its own page shows no Markdown)."""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", markdown)
    return re.sub(r"\*\*|`", "", " ".join(text.split()))


def _md_table(block: str) -> tuple[list[str], list[list[str]]]:
    lines = [ln.strip().strip("|").split("|") for ln in block.splitlines() if ln.strip().startswith("|")]
    cells = [[_plain(c.strip()) for c in ln] for ln in lines if not set("".join(ln)) <= set("-: ")]
    return cells[0], cells[1:]


def _header(rep: StudyReport) -> list[str]:
    seeds = sorted({r["seed"] for r in rep.result.rows})
    return [
        f"study `{rep.name}`{' (quick form)' if rep.quick else ''}, tcplab {tcplab.__version__}, {date.today().isoformat()}",
        f"{len(rep.result.rows)} runs ({len(rep.result.failed)} failed), seeds {seeds[0]}..{seeds[-1]}" if seeds else "no runs",
    ]


def quick_warning(rep: StudyReport) -> str | None:
    if not rep.quick:
        return None
    q = rep.study.get("quick", {})
    changes = [f"{k} {', '.join(map(str, v))}" for k, v in q.get("grid", {}).items()]
    if "seeds" in q:
        changes.append(f"{q['seeds']} seed{'s' if q['seeds'] != 1 else ''}")
    return ("Quick form: NOT comparable with the paper. The runs are cut short for a check of the pipeline "
            f"({'; '.join(changes) or 'as [quick] sets'}), so the numbers and their differences are not the paper's "
            "and the claims are not judged. Run without --quick for the study.")


def _readings_lines(rep: StudyReport) -> list[str]:
    """What each reading takes for the paper's unknowns."""
    if not rep.unknowns:
        return ["The study declares no unknowns: it is run as its scenarios say."]
    lines = []
    cells = [c for _, tc in rep.tables for c in tc]
    if not any(c.paper for c in cells):
        lines.append("The paper prints no values to compare with, so no reading can be calibrated: the literal reading is shown.")
    elif rep.best is None or len(rep.shown) == 1:
        lines.append("No calibrated reading yet (`tcplab calibrate " + rep.name + "` finds one): the literal reading is shown.")
    else:
        seeds = _seeds(rep.shown[0])
        lines.append(f"The best reading `tcplab calibrate` found (mean relative error {rep.best.get('score', math.nan):.3%} "
                     f"over the paper's columns, calibrated on {rep.best.get('runs', '?')} runs at {rep.best.get('seeds', '?')} "
                     f"seed(s) per reading) is the headline, run here at seed{'s' if len(seeds) > 1 else ''} "
                     f"{', '.join(map(str, seeds))}; the literal reading, as the scenarios and the paper's captions say, is "
                     "beside it. The cells the fingerprint takes for typos do not count in the search's objective.")
    lines += ["", "| unknown | group | " + " | ".join(f"{r.name} reading" for r in rep.shown) + " |",
              "|---|---|" + "---|" * len(rep.shown)]
    for u in rep.unknowns:
        lines.append(f"| {u.name} | {u.group} | " + " | ".join(u.label(r.values.get(u.name, u.values[0])) for r in rep.shown) + " |")
    return lines


def _column_errors(cells: list[Cell], r: Shown) -> dict[str, float]:
    """Mean relative error per paper column (table, quantity, column) under one reading."""
    errs: dict[str, list[float]] = {}
    for c in cells:
        k = (c.table, c.row, c.column)
        if c.paper and k in r.ours:
            errs.setdefault(column_of(c), []).append(abs(r.ours[k][0] / c.paper - 1))
    return {col: sum(v) / len(v) for col, v in errs.items()}


def _claim_lines(rep: StudyReport) -> list[tuple[str, str]]:
    """Each claim with its verdicts under every reading, as (claim, verdicts); in quick form
    none is judged."""
    if not rep.shown[0].claims:
        return []
    if rep.quick:
        return [(text, "not judged in quick form") for text, _, _ in rep.shown[0].claims]
    return [(text, "; ".join(f"{r.name} reading: **{r.claims[i][1]}** ({r.claims[i][2]})" for r in rep.shown))
            for i, (text, _, _) in enumerate(rep.shown[0].claims)]


def _write_markdown(out: Path, rep: StudyReport, figures: dict, series: list) -> None:
    study = rep.study
    lines = [f"# {study.get('title', rep.name)}", "", *[f"_{h}_  " for h in _header(rep)], ""]
    if quick_warning(rep):
        lines += [f"> **{quick_warning(rep)}**", ""]
    if study.get("citation"):
        lines += [f"Paper: {study['citation']}", ""]
    if rep.about:
        lines += ["## About this study", ""]
        for heading, paras in rep.about:
            lines += [f"**{heading}.** " + (paras[0] if paras else ""), ""] + [b + "\n" for b in paras[1:]]
    lines += ["## Readings", "", *_readings_lines(rep), ""]
    cells = [c for _, tc in rep.tables for c in tc]
    errors = [_column_errors(cells, r) for r in rep.shown]
    if errors[0]:
        lines += ["Mean relative error per paper column:", "",
                  "| column | " + " | ".join(f"{r.name} reading" for r in rep.shown) + " |",
                  "|---|" + "---|" * len(rep.shown)]
        lines += [f"| {col} | " + " | ".join(f"{e.get(col, math.nan):.2%}" for e in errors) + " |" for col in errors[0]]
        lines += [""]
    for t, tc in rep.tables:
        lines += [f"## {t['title']}", ""]
        for r in rep.shown:
            if len(rep.shown) > 1:
                lines += [f"### {r.name.capitalize()} reading", ""]
            for measure, bc in blocks(t, tc):
                lines += ([f"**{measure}**", ""] if measure else []) + _grid_markdown(grid(bc, r, rep.typos, bool(measure))) + [""]
            lines += [f"_{n}_  " for n in grid_notes(tc, r, rep.typos)] + [""]
        lines += [f"![{t['title']}: {m}]({f})" for m, files in figures[t["id"]] for f in files if f.endswith(".svg")] + [""]
    seed = min((r.seed for r in rep.shown[-1].sweep.runs), default=1)
    for (f, files), (_, data) in zip(series, rep.series):
        lines += [f"## {f['title']}", "", _series_caption(f, data, seed), ""]
        lines += [f"![{f['title']}]({p})" for p in files if p.endswith(".svg")] + [""]
    claims = _claim_lines(rep)
    if claims:
        lines += ["## The paper's claims", ""] + [f"- {text}: {verdicts}" for text, verdicts in claims] + [""]
    if rep.unexplained:
        lines += [f"## Cells the {rep.shown[0].name} reading leaves more than 2% from the paper", ""]
        lines += [f"- {c.table}, {c.row}, {c.column}: paper {c.printed or fmt(c.paper)}, {off * 100:+.1f}%: {why}"
                  for c, off, why in rep.unexplained] + [""]
    if rep.result.failed:
        lines += ["## Failed runs", ""] + [f"- {r['case']} seed {r['seed']}: {r['error']}" for r in rep.result.failed] + [""]
    (out / "report.md").write_text("\n".join(lines))


def _write_html(out: Path, rep: StudyReport, figures: dict, series: list) -> None:
    """report.html: the run report's page (tcplab.report) with the study's sections."""
    def inline(f: str) -> dict:
        svg = (out / f).read_text()
        return {"kind": "svg", "svg": svg[svg.find("<svg"):]}

    sections = []
    if rep.about:
        sections.append({"kind": "heading", "text": "About this study"})
        for heading, paras in rep.about:
            for i, b in enumerate(paras or [""]):
                if b.startswith("|"):
                    columns, rows = _md_table(b)
                    sections.append({"kind": "table", "id": f"about-{_slug(heading)}-{i}", "title": "", "columns": columns, "rows": rows})
                else:
                    sections.append({"kind": "paragraph", "text": (f"{heading}. " if i == 0 else "") + _plain(b)})
    sections.append({"kind": "heading", "text": "Readings"})
    sections += [{"kind": "paragraph", "text": _plain(ln)} for ln in _readings_lines(rep) if ln and not ln.startswith("|")]
    if rep.unknowns:
        sections.append({"kind": "table", "id": "readings", "title": "",
                         "columns": ["unknown", "group", *[f"{r.name} reading" for r in rep.shown]],
                         "rows": [[u.name, u.group, *[u.label(r.values.get(u.name, u.values[0])) for r in rep.shown]]
                                  for u in rep.unknowns]})
    cells = [c for _, tc in rep.tables for c in tc]
    errors = [_column_errors(cells, r) for r in rep.shown]
    if errors[0]:
        sections.append({"kind": "table", "id": "column-errors", "title": "Mean relative error per paper column",
                         "columns": ["column", *[f"{r.name} reading" for r in rep.shown]],
                         "rows": [[col, *[f"{e.get(col, math.nan):.2%}" for e in errors]] for col in errors[0]]})
    for t, tc in rep.tables:
        sections.append({"kind": "heading", "text": t["title"]})
        for r in rep.shown:
            parts = blocks(t, tc)
            for i, (measure, bc) in enumerate(parts):
                title = " · ".join(x for x in (f"{r.name.capitalize()} reading" if len(rep.shown) > 1 else "", measure) if x)
                last = i == len(parts) - 1
                sections.append({"kind": "table", "id": "-".join(x for x in (t["id"], r.name if len(rep.shown) > 1 else "", _slug(measure)) if x),
                                 "title": title, **grid(bc, r, rep.typos, bool(measure)),
                                 "notes": grid_notes(tc, r, rep.typos) if last else []})
        sections += [inline(f) for _, files in figures[t["id"]] for f in files if f.endswith(".svg")]
    seed = min((r.seed for r in rep.shown[-1].sweep.runs), default=1)
    for f, data in rep.series:
        sections += [{"kind": "heading", "text": f["title"]}, {"kind": "paragraph", "text": _series_caption(f, data, seed)}]
        sections += _series_charts(f, data)
    if rep.shown[0].claims:
        if rep.quick:
            items = [{"text": text, "verdict": "not judged", "detail": "quick form: the runs are not the paper's"}
                     for text, _, _ in rep.shown[0].claims]
        else:
            items = []
            for i, (text, verdict, detail) in enumerate(rep.shown[0].claims):
                others = "; ".join(f"{r.name} reading: {r.claims[i][1]} ({r.claims[i][2]})" for r in rep.shown[1:])
                items.append({"text": text, "verdict": verdict,
                              "detail": f"{rep.shown[0].name} reading: {detail}" + (f". {others}" if others else "")})
        sections += [{"kind": "heading", "text": "The paper's claims"}, {"kind": "claims", "items": items}]
    if rep.unexplained:
        sections += [{"kind": "heading", "text": f"Cells the {rep.shown[0].name} reading leaves more than 2% from the paper"},
                     {"kind": "table", "id": "unexplained", "title": "", "columns": ["table", "row", "column", "paper", "Δ", "likeliest reason"],
                      "deltas": [4], "rows": [[c.table, c.row, c.column, c.printed or fmt(c.paper), f"{off * 100:+.2f}%", why]
                                              for c, off, why in rep.unexplained]}]
    meta = [h.replace("`", "") for h in _header(rep)]
    notes = [f"Paper: {rep.study['citation']}"] if rep.study.get("citation") else []
    data = {"title": rep.study.get("title", rep.name), "meta": meta, "notes": notes, "sections": sections}
    if quick_warning(rep):
        sections.insert(0, {"kind": "paragraph", "text": quick_warning(rep), "warning": True})
    (out / "report.html").write_text(report.render(data), encoding="utf-8")
