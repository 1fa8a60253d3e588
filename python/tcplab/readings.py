"""Readings: what a paper left unstated, declared as data, and one choice for each unknown.

A study's `study.toml` lists its unknowns, each with its candidate values; the first value is the
literal reading (what the committed scenarios and paper.toml already say):

    [[unknowns]]
    name = "window"
    group = "setup"                      # needs runs: sets scenario fields
    field = "tcp.window"                 # or fields = [...], set together (each value a list)
    scenarios = ["ee-*"]                 # optional: only in the scenarios so named (globs)
    values = [17, 11, 20, 1000]
    labels = ["17 packets", "17 kB of 1500 B", "ns-2's default", "never binds"]   # optional
    why = "Table II's window is \"17kB\""                                             # optional

    [[unknowns]]
    name = "throughput counts"
    group = "measurement"                # needs no runs: how a cell is computed from a run
    measure = "bytes"                    # the knob it sets (MEASURES), or a list of knobs set
                                         # together (each value then a list: ["packets_delivered", 3])
    cells = { metric = "goodput_bps" }   # the cells it concerns (by cell field; globs on text)
    values = ["goodput", "wire"]

A reading maps each unknown's name to one of its values. The literal one reproduces what
`tcplab reproduce` ran before calibration; `tcplab calibrate` writes the best one it finds to
`reading.toml` beside study.toml, and `tcplab reproduce` runs both.
"""

from __future__ import annotations

import copy
import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tcplab
from tcplab import ScenarioError
from tcplab import sweep as sw
from tcplab.paper import read_toml

# The measurement knobs, and the values each takes (None: any value of the kind named).
MEASURES: dict[str, str] = {
    "bytes": '"goodput" (data delivered in order) or "wire" (every data packet that reached the receiver: headers, SYN and duplicates included)',
    "over": '"active" (the flow\'s start to stop), "run" (the whole run) or a number of seconds',
    "combine": '"each" (the cell\'s flow, or its own aggregate), or over every flow of the run: "sum", "mean" or "pooled" (the flows\' amounts over their summed time, or packets)',
    "share": '"capacity" (of the cell\'s capacity) or "total" (of all the run\'s flows)',
    "metric": "a summary metric, or packets_new (sent, retransmissions left out)",
    "unit": "a power of ten the printed value is off by (1: printed ten times ours)",
}
_CHOICES = {"bytes": ("goodput", "wire"), "combine": ("each", "sum", "mean", "pooled"), "share": ("capacity", "total")}
CELL_FIELDS = ("table", "row", "column", "metric", "flow", "scenario")
READING_FILE = "reading.toml"


@dataclass(frozen=True)
class Unknown:
    name: str
    group: str  # "setup" or "measurement"
    values: list
    labels: list[str]
    fields: list[str] = field(default_factory=list)  # setup: the scenario fields it sets
    scenarios: list[str] = field(default_factory=lambda: ["*"])  # setup: in the scenarios so named (globs)
    measures: list[str] = field(default_factory=list)  # measurement: the knobs it sets
    cells: dict = field(default_factory=dict)  # measurement: which cells, by cell field
    why: str = ""

    def label(self, value: Any) -> str:
        return self.labels[self.values.index(value)] if value in self.values else _text(value)

    def knobs(self, value: Any) -> dict[str, Any]:
        """A measurement unknown's value as the knobs it sets."""
        return dict(zip(self.measures, value if len(self.measures) > 1 else [value]))

    def concerns(self, cell) -> bool:
        """Whether a measurement unknown applies to this cell (every filter field matches one
        of its patterns)."""
        for key, pats in self.cells.items():
            got = getattr(cell, key)
            if not any(fnmatch.fnmatchcase("" if got is None else str(got), p) for p in pats):
                return False
        return True


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def unknowns(study: dict) -> list[Unknown]:
    """The study's declared unknowns, checked: errors name the field (`unknowns[2].values`)."""
    raw = study.get("unknowns", [])
    if not isinstance(raw, list) or not all(isinstance(u, dict) for u in raw):
        raise ScenarioError("unknowns", "is a list of tables ([[unknowns]])")
    out, names = [], set()
    for i, u in enumerate(raw):
        at = f"unknowns[{i}]"
        allowed = {"name", "group", "field", "fields", "scenarios", "measure", "cells", "values", "labels", "why"}
        for k in u:
            if k not in allowed:
                raise ScenarioError(f"{at}.{k}", f"unknown field (an unknown has {', '.join(sorted(allowed))})")
        name = u.get("name")
        if not isinstance(name, str) or not name or name in names:
            raise ScenarioError(f"{at}.name", "is required: a name no other unknown has")
        names.add(name)
        values = u.get("values")
        if not isinstance(values, list) or len(values) < 2:
            raise ScenarioError(f"{at}.values", "lists the candidates, at least two, the literal reading first")
        if sw._repeated(values) is not None:
            raise ScenarioError(f"{at}.values", f"lists {_text(sw._repeated(values))} twice")
        labels = u.get("labels", [_text(v) for v in values])
        if not isinstance(labels, list) or len(labels) != len(values) or not all(isinstance(x, str) for x in labels):
            raise ScenarioError(f"{at}.labels", f"gives one text per value ({len(values)})")
        group = u.get("group")
        if group == "setup":
            fields = u.get("fields", [u["field"]] if "field" in u else None)
            if not isinstance(fields, list) or not fields or not all(isinstance(f, str) for f in fields):
                raise ScenarioError(f"{at}.field", "names the scenario field (or fields) the unknown sets")
            if len(fields) > 1 and not all(isinstance(v, list) and len(v) == len(fields) for v in values):
                raise ScenarioError(f"{at}.values", f"sets {len(fields)} fields together: each value is a list of {len(fields)}")
            for f in fields:
                if not sw.is_field_path(f):
                    raise ScenarioError(f"{at}.field", f"{f!r} is not a field path (e.g. links[2].delay, flows[name=B].start)")
            scenarios = u.get("scenarios", ["*"])
            scenarios = [scenarios] if isinstance(scenarios, str) else scenarios
            if not isinstance(scenarios, list) or not scenarios or not all(isinstance(x, str) for x in scenarios):
                raise ScenarioError(f"{at}.scenarios", "names the scenarios it applies to (globs on their names)")
            out.append(Unknown(name, group, values, labels, fields=fields, scenarios=scenarios, why=u.get("why", "")))
        elif group == "measurement":
            knobs = u.get("measure")
            knobs = knobs if isinstance(knobs, list) else [knobs]
            for knob in knobs:
                if knob not in MEASURES:
                    raise ScenarioError(f"{at}.measure", f"{knob!r} is not a measurement ({', '.join(MEASURES)})")
            if len(set(knobs)) < len(knobs):
                raise ScenarioError(f"{at}.measure", "names a knob twice")
            for v in values:
                if len(knobs) > 1 and not (isinstance(v, list) and len(v) == len(knobs)):
                    raise ScenarioError(f"{at}.values", f"sets {len(knobs)} knobs together: each value is a list of {len(knobs)}")
                for knob, one in zip(knobs, v if len(knobs) > 1 else [v]):
                    _check_knob(knob, one, f"{at}.values")
            cells = u.get("cells", {})
            if not isinstance(cells, dict) or any(k not in CELL_FIELDS for k in cells):
                raise ScenarioError(f"{at}.cells", f"selects cells by {', '.join(CELL_FIELDS)}")
            cells = {k: v if isinstance(v, list) else [v] for k, v in cells.items()}
            out.append(Unknown(name, group, values, labels, measures=knobs, cells=cells, why=u.get("why", "")))
        else:
            raise ScenarioError(f"{at}.group", f"{group!r} is not \"setup\" (needs runs) or \"measurement\" (needs none)")
    return out


def _check_knob(knob: str, v: Any, at: str) -> None:
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    ok = {"over": v in ("active", "run") or (number and v > 0),
          "metric": isinstance(v, str) and bool(v),
          "unit": isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 9}.get(knob, v in _CHOICES.get(knob, ()))
    if not ok:
        raise ScenarioError(at, f"{_text(v)} is not a value of {knob}: {MEASURES[knob]}")


def literal(us: list[Unknown]) -> dict[str, Any]:
    return {u.name: u.values[0] for u in us}


def knobs(us: list[Unknown], reading: dict[str, Any], cell) -> dict[str, Any]:
    """The measurement knobs the reading sets for one cell (later unknowns win)."""
    out = {}
    for u in us:
        if u.group == "measurement" and u.concerns(cell):
            out.update(u.knobs(reading.get(u.name, u.values[0])))
    return out


def apply_setup(sweep: sw.Sweep, us: list[Unknown], reading: dict[str, Any]) -> sw.Sweep:
    """The sweep with the reading's setup values set in every run's scenario (each run keyed
    anew: a value the scenario already had gives the same key, so the same stored run)."""
    setup = [u for u in us if u.group == "setup"]
    for u in setup:
        clash = set(u.fields) & set(sweep.fields)
        if clash:
            raise ScenarioError(f"unknowns.{u.name}", f"sets {', '.join(sorted(clash))}, which the study's sweep varies")
    out = sw.Sweep(name=sweep.name, fields=list(sweep.fields), run_timeout=sweep.run_timeout, max_events=sweep.max_events)
    checked: dict[str, str] = {}  # the key of each scenario as set, validated once for all its seeds
    for r in sweep.runs:
        doc = copy.deepcopy(r.scenario)
        for u in setup:
            if not any(fnmatch.fnmatchcase(str(doc.get("name", "")), p) for p in u.scenarios):
                continue
            value = reading.get(u.name, u.values[0])
            for f, v in zip(u.fields, value if len(u.fields) > 1 else [value]):
                try:
                    sw.set_field(doc, f, v)
                except ScenarioError as e:
                    raise ScenarioError(f"unknowns.{u.name}", f"{r.case}: {e.path}: {e.message}") from None
        blob = json.dumps(doc, sort_keys=True)
        for p, v in r.params.items():  # a grid's value the setup overwrote (through a selector, say)
            sw.set_field(doc, p, v)
        if json.dumps(doc, sort_keys=True) != blob:
            raise ScenarioError("unknowns", f"{r.case}: the reading sets a field the study's sweep varies "
                                f"({', '.join(r.params)}): confine the unknown with `scenarios`")
        if blob not in checked:
            try:
                checked[blob] = json.dumps(tcplab.validate(doc), sort_keys=True)
            except ScenarioError as e:
                shown_values = ", ".join(f"{n} = {v}" for n, v in shown(us, reading))
                raise ScenarioError(f"unknowns ({shown_values})", f"{r.case}: {e.path}: {e.message}") from None
        out.runs.append(sw.Run(r.case, r.seed, r.params, doc, sw.run_key(json.loads(checked[blob]), r.seed)))
    return out


def shown(us: list[Unknown], reading: dict[str, Any], group: str | None = None) -> list[tuple[str, str]]:
    """(name, value as labelled) of each unknown of the reading (of one group)."""
    return [(u.name, u.label(reading.get(u.name, u.values[0]))) for u in us if group in (None, u.group)]


# --------------------------------------------------------------------------------------
# The best reading, kept beside the study
# --------------------------------------------------------------------------------------

def load_best(study_dir: Path, us: list[Unknown]) -> dict | None:
    """The calibrated reading (`reading.toml`), or None before calibration. A value no longer
    among its unknown's candidates is refused, naming it: the study changed since."""
    path = study_dir / READING_FILE
    if not path.exists():
        return None
    doc = read_toml(path)
    values = doc.get("values", {})
    by_name = {u.name: u for u in us}
    for name, v in values.items():
        if name not in by_name:
            raise ScenarioError(f"{path}: values.{name}", "is not an unknown of the study (calibrate again)")
        if v not in by_name[name].values:
            raise ScenarioError(f"{path}: values.{name}", f"{_text(v)} is not among its candidates (calibrate again)")
    return {**doc, "values": {**literal(us), **values}}


def save_best(study_dir: Path, us: list[Unknown], result: dict) -> Path:
    """Writes the best reading as TOML: its values, its score and error per paper column, and
    how it was found. Values are written as JSON, which TOML reads the same for these kinds."""
    lines = ["# The best reading `tcplab calibrate` found for this study: what the paper left unstated,",
             "# one value for each unknown of study.toml. `tcplab reproduce` runs it beside the literal one.", ""]
    for key in ("score", "exact", "cells", "runs", "budget", "seeds", "tcplab", "date"):
        if key in result:
            lines.append(f"{key} = {json.dumps(result[key])}")
    lines += ["", "[values]"]
    for u in us:
        v = result["values"][u.name]
        lines.append(f"{json.dumps(u.name)} = {json.dumps(v)}  # {u.label(v)}" + (" (literal)" if v == u.values[0] else ""))
    lines += ["", "# mean relative error per paper column: literal reading, best reading", "[errors]"]
    for col, (lit, best) in result["errors"].items():
        lines.append(f"{json.dumps(col)} = [{lit:.6g}, {best:.6g}]")
    path = study_dir / READING_FILE
    path.write_text("\n".join(lines) + "\n")
    return path
