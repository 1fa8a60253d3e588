"""Sweeps: many runs of scenarios over a grid of fields and seeds, stored as they finish.

A sweep file (TOML) names its cases and how each varies:

    name = "window-vs-delay"
    scenarios = ["../scenarios/dumbbell.toml"]   # files (globs), relative to the sweep file
    seeds = 5                                     # seeds 1..5, or a list [1, 7, 9]

    [grid]                                        # every combination, applied to every scenario
    "tcp.window" = [20, 50]
    "links[2].delay" = ["10ms", "50ms"]

Each run is the scenario with the grid's values set, at one seed. Its key is a hash of the
normalised scenario (every default filled in), the seed and the tcplab version, so the same run is
never computed twice: a finished run is written at once, in its own transaction, to a SQLite
store (`results.sqlite` in the output folder), and running the sweep again computes only what is
missing. A run that fails is stored with its error and the sweep goes on; so is a run that takes
longer than the sweep's `run_timeout` (none by default). A seed, grid value or case given twice is
refused: the statistics count distinct runs.

Runs go to a pool of local processes (every core by default) or, given a scheduler address, to a
Dask distributed cluster; a worker that dies is replaced and its runs are done again. The same
scenario and seed give the same bytes whichever way they run.

From Python, `tcplab.sweep.run(scenario, grid=..., seeds=...)` takes a scenario dict or file (or a
list of them) as well as a sweep file; a sweep whose every run failed raises SweepError with the
first run's error, one where some did warns (docs/sweeps.md, "From Python").
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import itertools
import json
import logging
import math
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple

import tcplab
from tcplab import ScenarioError
from tcplab.status import StatusLine

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["Sweep", "Run", "load", "run", "build", "Store", "SweepResult", "SweepError", "FailedRunsWarning",
           "confidence_interval", "t_quantile"]


@dataclass(frozen=True)
class Run:
    """One run of a sweep: a case (scenario file + grid point) at one seed."""
    case: str
    seed: int
    params: dict  # the grid's values, by field path
    scenario: dict  # the scenario document with those values set
    key: str  # hash of the normalised scenario, the seed and the tcplab version


@dataclass
class Sweep:
    name: str
    runs: list[Run] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # the varied field paths
    run_timeout: float | None = None  # wall seconds a run may take (None: no limit)
    max_events: int | None = None  # events a run may take (None: no budget of the sweep's own)


# --------------------------------------------------------------------------------------
# Reading a sweep
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+|\*|[A-Za-z_]\w*=[^\]]+)\]")
_PATH = re.compile(r"[^.\[\]]+(?:\[(?:\d+|\*|[A-Za-z_]\w*=[^\]]+)\]|\.[^.\[\]]+)*")  # the tokens, nothing between
# More seeds than this is a mistake, not a sweep (the list alone would fill the memory).
MAX_SEEDS = 1_000_000
# Seconds of checking a sweep's cases before it shows on the status line (a small sweep's does not).
CHECKING_DELAY_S = 1.0
_WALL = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(s|min|h)?\s*")
_WALL_UNITS = {None: 1, "s": 1, "min": 60, "h": 3600}


def wall_seconds(value: Any, path: str) -> float:
    """A wall-clock time (`run_timeout`, `--run-timeout`) in seconds: a number of seconds, or a
    string such as "90s", "10min" or "2h"."""
    m = _WALL.fullmatch(value) if isinstance(value, str) else None
    secs = float(m[1]) * _WALL_UNITS[m[2]] if m else value
    if isinstance(secs, bool) or not isinstance(secs, (int, float)) or not 0 < secs < math.inf:
        raise ScenarioError(path, f"{value!r} is not a wall time (seconds, or e.g. \"90s\", \"10min\", \"2h\")")
    return float(secs)


def is_field_path(path: str) -> bool:
    return bool(_PATH.fullmatch(path)) and not path.startswith("*")


def set_field(doc: dict, path: str, value: Any) -> None:
    """Sets ``doc[path] = value`` for a path like ``links[2].delay`` or ``tcp.window``, or
    ``flows[*].packet_size`` for every item of a list, or ``flows[protocol=sack1].sink`` for the
    items whose field has that value (none is no change: a setting that applies to some
    scenarios of a study only); tables on the way are created, list items must exist."""
    tokens = [name or _item(idx) for name, idx in _TOKEN.findall(path)]
    if not is_field_path(path):
        raise ScenarioError(path, "is not a field path (e.g. links[2].delay)")
    _set(doc, tokens, path, value)


def _item(index: str) -> int | str | tuple[str, str]:
    """A list index token: a number, "*", or a (field, value) selector."""
    if index == "*" or index.isdigit():
        return index if index == "*" else int(index)
    field, value = index.split("=", 1)
    return field, value


def _selected(item: Any, selector: tuple[str, str]) -> bool:
    """Whether a list item's field, as its text, is the selector's value."""
    field, value = selector
    return isinstance(item, dict) and field in item and str(item[field]) == value


def _set(node: Any, tokens: list, path: str, value: Any) -> None:
    key, rest = tokens[0], tokens[1:]
    if isinstance(key, tuple):
        if not isinstance(node, list):
            raise ScenarioError(path, f"[{key[0]}={key[1]}] selects in a list, and the scenario has none there")
        keys = [i for i, item in enumerate(node) if _selected(item, key)]
    elif key == "*" or isinstance(key, int):
        if not isinstance(node, list) or (key != "*" and key >= len(node)):
            raise ScenarioError(path, f"has no item [{key}] in the scenario")
        if key == "*" and not node:
            raise ScenarioError(path, "has no items in the scenario")
        keys = range(len(node)) if key == "*" else [key]
    elif not isinstance(node, dict):
        raise ScenarioError(path, f"{key!r} is not inside a table")
    else:
        keys = [key]
    for k in keys:
        if not rest:
            node[k] = value
            continue
        if isinstance(k, str) and k not in node:
            node[k] = {}
        _set(node[k], rest, path, value)


def read_scenario(path: Path) -> dict:
    """A scenario file (TOML, or JSON as `tcplab run` takes it) as a document, named after the
    file unless it names itself."""
    inp = tcplab._read_file(os.fspath(path))  # errors name the file
    try:
        doc = json.loads(inp.text) if inp.format == "json" else tomllib.loads(inp.text)
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise ScenarioError(str(path), f"not valid {inp.format.upper()}: {e}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(str(path), "is not a scenario (a JSON object of fields)")
    doc.setdefault("name", Path(path).stem)
    return doc


def _version() -> str:
    return tcplab.__version__


def run_key(normalized: dict, seed: int) -> str:
    blob = json.dumps({"scenario": normalized, "seed": seed, "tcplab": _version()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def load(path: str | os.PathLike, progress: bool = False) -> Sweep:
    """Reads and checks a sweep file; every run's scenario is validated (errors name the field).
    With ``progress``, a sweep whose checking takes more than a second shows it on stderr."""
    path = Path(path)
    text = tcplab._read_file(os.fspath(path)).text  # errors name the file
    try:
        spec = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(str(path), f"not valid TOML: {e}") from None
    return build(spec, path.parent, default_name=path.stem, progress=progress)


def build(spec: dict, base: Path, default_name: str = "sweep", progress: bool = False) -> Sweep:
    """A sweep from its TOML document: `scenarios` and `grid`, or several `[[parts]]`, each with
    its own `scenarios` and `grid` (for studies whose tables vary different fields). A seed, a
    grid value or a case given twice is refused: the statistics count distinct runs."""
    allowed = {"name", "scenarios", "seeds", "grid", "parts", "run_timeout", "max_events"}
    for k in spec:
        if k not in allowed:
            raise ScenarioError(k, f"unknown field (a sweep has {', '.join(sorted(allowed))})")
    name = spec.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise ScenarioError("name", "is the sweep's name, a non-empty string")
    seeds = spec.get("seeds", 1)
    if isinstance(seeds, bool) or not (isinstance(seeds, int) or isinstance(seeds, list)):
        raise ScenarioError("seeds", "is a count or a list of seeds")
    if (seeds if isinstance(seeds, int) else len(seeds)) > MAX_SEEDS:
        raise ScenarioError("seeds", f"asks for more than {MAX_SEEDS} seeds")
    seed_list = list(range(1, seeds + 1)) if isinstance(seeds, int) else seeds
    if not seed_list or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in seed_list):
        raise ScenarioError("seeds", "needs at least one seed, each a whole number from 1")
    twice = _repeated(seed_list)
    if twice is not None:
        raise ScenarioError("seeds", f"lists seed {twice} more than once: the same seed gives the same run, "
                            "and the statistics count distinct runs")
    run_timeout = wall_seconds(spec["run_timeout"], "run_timeout") if "run_timeout" in spec else None
    if "parts" in spec:
        if "scenarios" in spec or "grid" in spec:
            raise ScenarioError("parts", "replaces scenarios and grid: give one or the other")
        parts = spec["parts"]
        if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
            raise ScenarioError("parts", "is a list of tables, each with scenarios and a grid")
        paths = [f"parts[{i}]." for i in range(len(parts))]
    else:
        parts, paths = [{"scenarios": spec.get("scenarios"), "grid": spec.get("grid", {})}], [""]
    sweep = Sweep(name=name, run_timeout=run_timeout, max_events=tcplab._events_option(spec.get("max_events"), "max_events"))
    plans = [_part_plan(part, at, base) for part, at in zip(parts, paths)]
    checking = _Progress(sum(len(files) * math.prod(len(points) for _, points in axes) for files, axes in plans),
                         enabled=progress, what="cases checked", delay=CHECKING_DELAY_S)
    # each scenario name's file (where, as found): a sweep tells its cases by name
    named: dict[str, tuple[Path, Path]] = {}
    cases: dict[str, str] = {}  # each case, and the part it comes from: a case counts once
    try:
        for (files, axes), at in zip(plans, paths):
            sweep.runs += _part_runs(files, axes, at, seed_list, sweep, named, cases, checking)
    finally:
        checking.close()
    return sweep


def _repeated(values: list) -> Any:
    """The first value of `values` that is there twice (compared as JSON: tables and lists by
    their contents), or None."""
    seen = set()
    for v in values:
        k = json.dumps(v, sort_keys=True, default=str)
        if k in seen:
            return v
        seen.add(k)
    return None


def _shown(value: Any) -> Any:
    """A grid value as the case's name and the tables show it: a table or a list as its JSON
    text (a table's column needs values it can compare and group), others as they are."""
    return json.dumps(value, sort_keys=True, default=str) if isinstance(value, (dict, list)) else value


def _grid_axes(grid: dict, at: str) -> list[tuple[list[str], list[tuple]]]:
    """The grid's axes: each key is one field, or several joined by commas whose values are
    varied together (`"links[2].delay, links[2].queue_limit" = [["16ms", 16], ["71ms", 62]]`),
    for pairs such as an RTT and the buffer sized for it. Each axis: its fields, its points."""
    axes, seen = [], set()
    for key, values in grid.items():
        names = [n.strip() for n in key.split(",")]
        if seen & set(names) or len(set(names)) < len(names):
            raise ScenarioError(f"{at}.{key}", "varies a field another key (or this one) varies too")
        seen.update(names)
        if len(names) > 1 and (not all(names) or not all(isinstance(v, list) and len(v) == len(names) for v in values)):
            raise ScenarioError(f"{at}.{key}", f"varies {len(names)} fields together: each value is a list of {len(names)}")
        twice = _repeated(values)
        if twice is not None:
            raise ScenarioError(f"{at}.{key}", f"lists {_shown(twice)} more than once: each value is one case, and the "
                                "statistics count distinct runs")
        axes.append((names, [(v,) for v in values] if len(names) == 1 else [tuple(v) for v in values]))
    return axes


@dataclass(frozen=True)
class Given:
    """A scenario given as a document (a dict from Python), not as a file: named in errors by
    its place in the sweep's `scenarios`, as a file is by its name."""
    name: str  # "scenarios[0]"; "" for a part's only scenario (what run() makes of one dict)
    doc: dict

    def __str__(self) -> str:
        return self.name or "the scenario"


def _from(f: Path | Given) -> str:
    """Where a case's error comes from, before its message: the scenario file's name, or a
    document's place among several (nothing for a sweep of one document)."""
    return f"{f.name}: " if f.name else ""


def _document(f: Path | Given) -> dict:
    """A part's scenario as a document of its own (the grid's values are set into it)."""
    if isinstance(f, Given):
        doc = json.loads(json.dumps(tcplab._jsonable(f.doc, "")))  # a deep copy; a field JSON cannot hold is named
        doc.setdefault("name", "scenario")  # as tcplab.run names a dict without one
        return doc
    return read_scenario(f)


def _part_plan(part: dict, at: str, base: Path) -> tuple[dict[Any, Path | Given], list]:
    """A part's scenarios (files, each as found, by where it is: a file matched twice is one;
    documents given inline, by their contents) and its grid's axes."""
    for k in part:
        if k not in ("scenarios", "grid"):
            raise ScenarioError(f"{at}{k}", "unknown field (a part has scenarios and grid)")
    patterns = part.get("scenarios")
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, (str, dict)) for p in patterns):
        raise ScenarioError(f"{at}scenarios", "is required: a list of scenario files (globs allowed) or tables")
    files: dict[Any, Path | Given] = {}
    for i, pat in enumerate(patterns):
        if isinstance(pat, dict):  # a scenario itself (tcplab.sweep.run's dicts)
            label = "" if len(patterns) == 1 else f"{at}scenarios[{i}]"
            try:
                text = json.dumps(tcplab._jsonable(pat, ""), sort_keys=True)
            except ScenarioError as e:  # a value JSON cannot hold: named by its path in what was given
                raise ScenarioError(".".join(p for p in (label, e.path) if p) or "scenario", e.message) from None
            files.setdefault(("given", text), Given(label, pat))
            continue
        matches = sorted(m for m in glob.glob(str(base / pat)) if os.path.isfile(m))  # not folders
        if not matches:
            raise ScenarioError(f"{at}scenarios[{i}]", f"{pat!r} matches no file")
        for m in matches:
            files.setdefault(Path(m).resolve(), Path(m))
    grid = part.get("grid", {})
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        raise ScenarioError(f"{at}grid", "maps field paths to non-empty lists of values")
    return files, _grid_axes(grid, f"{at}grid")


def _part_runs(files: dict[Any, Path | Given], axes: list, at: str, seed_list: list[int], sweep: Sweep,
               named: dict[str, tuple[Path, Path]], cases: dict[str, str], checking: "_Progress") -> list[Run]:
    fields = [f for names, _ in axes for f in names]
    sweep.fields += [f for f in fields if f not in sweep.fields]
    runs = []
    seeds_fit = set()  # the generators the seeds were checked against: a seed's range is its generator's
    for where, f in files.items():
        doc = _document(f)
        for point in itertools.product(*(values for _, values in axes)):
            params = dict(zip(fields, (v for values in point for v in values)))
            scenario = json.loads(json.dumps(doc))  # a deep copy
            for p, v in params.items():
                try:
                    set_field(scenario, p, v)
                except ScenarioError as e:
                    raise ScenarioError(f"{at}grid.{p}", f"{_from(f)}{e.message}") from None
            # the name as run, the grid's included: one name, one scenario file
            other, shown = named.setdefault(str(scenario["name"]), (where, f))
            if other != where:
                raise ScenarioError(f"{at}grid.name" if "name" in params else f"{at}scenarios",
                                    f"{shown} and {f} are both named {scenario['name']!r}: a sweep tells its cases "
                                    "by their scenarios' names")
            case = str(scenario["name"]) + "".join(f" {p}={_shown(v)}" for p, v in params.items())
            if case in cases:
                first = cases[case]
                raise ScenarioError(f"{at}grid" if first == at else at.rstrip("."),
                                    f"repeats the case {case!r}{'' if first == at else ' of ' + first.rstrip('.')}: "
                                    "each case is run once, and the statistics count distinct runs")
            cases[case] = at
            try:
                normalized = tcplab.validate(scenario)
            except ScenarioError as e:
                raise _case_error(e, f, case, params, at) from None
            if normalized.get("rng") not in seeds_fit:
                try:
                    tcplab.validate({**scenario, "seed": max(seed_list)})  # within the range of its rng
                except ScenarioError as e:
                    raise ScenarioError("seeds", f"{case}: {e.message}") from None
                seeds_fit.add(normalized.get("rng"))
            for seed in seed_list:
                runs.append(Run(case, seed, params, scenario, run_key(normalized, seed)))
            checking.update()
    return runs


def _case_error(e: ScenarioError, f: Path | Given, case: str, params: dict, at: str) -> ScenarioError:
    """A case's scenario refused, in the sweep file's terms: named by the grid field that set
    the refused value, or else by the scenario's own field; with the file and the case."""
    for p in params:
        under = re.escape(p).replace(r"\[\*\]", r"\[\d+\]") + r"(?:[.\[].*)?"  # the field, or a field inside it
        if re.fullmatch(under, e.path):
            return ScenarioError(f"{at}grid.{p}", f"{_from(f)}{case}: {e.message}")
    return ScenarioError(e.path, f"{_from(f)}{case}: {e.message}")


# --------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------

class Store:
    """Finished runs on disk: one SQLite row per run, each written in its own transaction."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        tcplab._make_out_dir(self.path.parent)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, sweep TEXT, case_name TEXT,"
            " seed INTEGER, params TEXT, summary TEXT, error TEXT, version TEXT, wall_s REAL)"
        )
        self.db.commit()

    def done(self, retry_failed: bool = False) -> set[str]:
        """The keys of the runs stored whole, the failed ones too unless `retry_failed`: a row
        damaged on disk is missing, and its run is made again."""
        return {r["key"] for r in self.rows() if not (retry_failed and r["error"])}

    def put(self, sweep: str, run: Run, summary: dict | None, error: str | None, wall_s: float) -> None:
        with self.db:  # one transaction: the row is there whole or not at all
            self.db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run.key, sweep, run.case, run.seed, json.dumps(run.params, sort_keys=True),
                 None if summary is None else json.dumps(summary, sort_keys=True), error, _version(), wall_s),
            )

    def rows(self, keys: Iterable[str] | None = None) -> list[dict]:
        cur = self.db.execute("SELECT key, case_name, seed, params, summary, error FROM runs")
        wanted = None if keys is None else set(keys)
        out = []
        for key, case, seed, params, summary, error in cur:
            if wanted is None or key in wanted:
                row = _whole(key, case, seed, params, summary, error)
                if row is not None:
                    out.append(row)
        return out

    def close(self) -> None:
        self.db.close()


def _whole(key, case, seed, params, summary, error) -> dict | None:
    """A stored run as `Store.put` wrote it, or None when its row is damaged (by hand, or by
    the disk): not JSON, or a summary without what the sweep's tables read from it."""
    try:
        row = {"key": key, "case": case, "seed": seed, "params": json.loads(params),
               "summary": None if summary is None else json.loads(summary), "error": error}
        s = row["summary"]
        if s is None:
            return row if isinstance(error, str) else None
        s["jain_fairness"], [f["name"] for f in s["flows"]]  # what SweepResult's tables read
        for h in s.get("handovers", []):
            h["from"], h["to"], [f["flow"] for f in h.get("flows", [])]
        return row
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------

class RunLimits(NamedTuple):
    """What each run of a sweep may take: `_run_one`'s arguments after the scenario and seed."""
    limits: bool  # the estimate's limits and the guards (tcplab.run's limits)
    timeout: float | None  # wall seconds (run_timeout)
    max_events: int | None


def _run_one(scenario: dict, seed: int, limits: bool = True,
             timeout: float | None = None, max_events: int | None = None) -> tuple[dict | None, str | None, float]:
    """Runs one scenario at one seed in a worker: (summary, None, wall s) or (None, error, wall s)."""
    t0 = time.perf_counter()
    try:
        res = tcplab.run(scenario, seed=seed, limits=limits, timeout=timeout, max_events=max_events)
        return res.summary, None, time.perf_counter() - t0
    except ScenarioError as e:
        return None, f"{e.path}: {e.message}", time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        return None, f"{type(e).__name__}: {e}", time.perf_counter() - t0


class _Progress:
    """The sweep's status line: runs done (or cases checked) and the time left; nothing until
    `delay` seconds have passed."""

    def __init__(self, total: int, stream=None, enabled: bool = True, what: str = "runs", delay: float = 0.0):
        self.total, self.done, self.failed = total, 0, 0
        self.t0 = time.perf_counter()
        self.line, self.enabled, self.what, self.delay = StatusLine(stream), enabled, what, delay

    def update(self, ok: bool = True) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        spent = time.perf_counter() - self.t0
        if not self.enabled or spent < self.delay:
            return
        left = (self.total - self.done) * spent / self.done
        failed = f", {self.failed} failed" if self.failed else ""
        self.line.show(f"tcplab: sweep: {self.done}/{self.total} {self.what}{failed}, about {left:.0f} s left",
                       last=self.done == self.total)

    def close(self) -> None:
        self.line.close()


class _Reported(_Progress):
    """Each finished run told to the caller's function, as (done, total), instead of a line."""

    def __init__(self, total: int, report: Callable[[int, int], Any]):
        self.total, self.done, self.failed, self.report = total, 0, 0, report

    def update(self, ok: bool = True) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self.report(self.done, self.total)

    def close(self) -> None:
        pass


class SweepError(RuntimeError):
    """Every run of a sweep failed. ``first`` is the first failed run's error as its worker gave
    it (``max_events: the run needed more than ...``); ``result`` is the SweepResult, whose
    ``failed`` rows hold each run's case, seed and error."""

    def __init__(self, message: str, first: str, result: "SweepResult"):
        super().__init__(message)
        self.first = first
        self.result = result


class FailedRunsWarning(UserWarning):
    """Some runs of a sweep failed (the others are in its tables); ``SweepResult.failed`` has
    them, and ``retry_failed=True`` runs them again."""


ON_FAILURE = ("raise", "warn", "keep")


def run(sweep: Any, out: str | os.PathLike | None = None, *, grid: dict | None = None, seeds: int | Iterable[int] | None = None,
        name: str | None = None, workers: int | None = None, scheduler: str | None = None, retry_failed: bool = False,
        progress: bool | Callable[[int, int], Any] = True, limits: bool = True, run_timeout: float | str | None = None,
        max_events: int | None = None, on_failure: str | None = None) -> "SweepResult":
    """Runs what is missing from the sweep's store (``out/results.sqlite``) and returns all of
    its results.

    ``sweep`` is a scenario (a dict as :func:`tcplab.run` takes it, or a .toml/.json scenario
    file), a list of scenarios, a sweep file (one with ``scenarios`` or ``parts``), a sweep's
    document as a dict, or a :class:`Sweep`. ``grid`` maps field paths to their values, as a
    sweep file's ``[grid]`` (``{"tcp.window": [17, 32], "flows[*].packet_size": [512, 1024]}``),
    and ``seeds`` is a count (seeds 1..n) or a list; given with a sweep file, they replace its
    own. ``name`` names the sweep (default: the scenario's own name and "-sweep" when there is
    one scenario, else "sweep"); ``out`` defaults to ``results/<name>``.

    ``workers`` local processes (default: every core; the caller's script is not imported in
    them, so it needs no ``if __name__ == "__main__":`` guard), or a Dask cluster at
    ``scheduler`` (``tcp://host:port``). ``progress``: a status line on stderr, or a function
    called as ``progress(done, total)`` after each run. A run estimated far beyond its machine
    is recorded as failed with the reason, unless ``limits`` is False (see :func:`tcplab.run`).
    A run that takes more than ``run_timeout`` (seconds, or "10min"; default: the sweep's own
    ``run_timeout``, or no limit) of wall time is stopped and recorded as failed, and so is one
    that needs more than ``max_events`` events (default: the sweep's own ``max_events``).

    A failed run is stored with its error, and running the sweep again does not run it again
    unless ``retry_failed``. ``on_failure`` says what the call does when runs failed, now or
    in an earlier call: "raise" (the default) raises :class:`SweepError` with the first run's
    error when every run failed, and warns (:class:`FailedRunsWarning`, naming how many and the
    first error) when some did; "warn" only warns; "keep" says nothing (for callers that report
    ``failed`` themselves: the command line, the studies, calibration)."""
    if workers is not None:
        check_workers(workers)
    if on_failure is not None and on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure={on_failure!r} is not one of {', '.join(map(repr, ON_FAILURE))}")
    timeout = wall_seconds(run_timeout, "run_timeout") if run_timeout is not None else None
    policy = on_failure or "raise"
    sweep = _as_sweep(sweep, grid, seeds, name, progress is True)
    timeout = timeout or sweep.run_timeout
    budget = RunLimits(limits, timeout, tcplab._events_option(max_events, "max_events") or sweep.max_events)
    out = Path(out if out is not None else Path("results") / tcplab.folder_name(sweep.name, "sweep"))
    store = None
    try:
        store = Store(out / "results.sqlite")
        have = store.done(retry_failed)
        todo = [r for r in sweep.runs if r.key not in have]
        bar = _Reported(len(todo), progress) if callable(progress) else _Progress(len(todo), enabled=progress and bool(todo))
        try:
            if scheduler:
                _run_dask(sweep, todo, store, bar, scheduler, budget)
            elif todo:
                _run_local(sweep, todo, store, bar, workers or os.cpu_count() or 1, budget)
        finally:
            bar.close()
        result = SweepResult(sweep, store.rows(r.key for r in sweep.runs))
    except sqlite3.Error as e:  # not SQLite, a store of another shape, a full disk
        raise ScenarioError("--out", f"cannot keep the results in {out / 'results.sqlite'}: {e}") from None
    finally:
        if store is not None:
            store.close()
    if policy != "keep":
        _failures(result, {r.key for r in todo}, policy)
    return result


def _failures(result: "SweepResult", ran: set[str], policy: str) -> None:
    """Says that runs failed: raises SweepError when every run did (unless `policy` is "warn"),
    else warns, naming how many, the first error, and the runs stored failed by an earlier call
    (not `ran` now), which retry_failed runs again."""
    import warnings

    failed = result.failed
    if not failed:
        return
    first = failed[0]
    earlier = sum(r["key"] not in ran for r in failed)
    again = (f"; {'all' if earlier == len(failed) else earlier} of them failed in an earlier run of the sweep and "
             "were not run again (retry_failed=True runs them again)") if earlier else ""
    count = f"all {len(failed)}" if len(failed) == len(result.rows) else f"{len(failed)} of {len(result.rows)}"
    what = (f"{count} runs of sweep {result.sweep.name!r} failed{again}. "
            f"The first, {first['case']} seed {first['seed']}: {first['error']}")
    if policy == "raise" and len(failed) == len(result.rows):
        raise SweepError(what, first["error"], result)
    # stacklevel 3: the line of the caller's script that called run()
    warnings.warn(what, FailedRunsWarning, stacklevel=3)


def _as_sweep(given: Any, grid: dict | None, seeds: Any, name: str | None, progress: bool) -> Sweep:
    """A Sweep from what run() was given: a Sweep as it is; a sweep file or document as its
    runs, with `grid` and `seeds` over its own; one scenario or a list of them (dicts, files) as
    a sweep of `grid` and `seeds`."""
    if isinstance(given, Sweep):
        if grid is not None or seeds is not None or name is not None:
            raise TypeError("grid, seeds and name are a Sweep's own: give them when it is built, or give run() "
                            "its scenario instead")
        return given
    over: dict[str, Any] = {}  # what the caller sets, over a sweep file's own
    if grid is not None:
        over["grid"] = _grid_option(grid)
    if seeds is not None:
        over["seeds"] = seeds if isinstance(seeds, int) else list(seeds)
    if name is not None:
        over["name"] = name
    if isinstance(given, (list, tuple)):
        entries = [_scenario_entry(s, f"scenarios[{i}]") for i, s in enumerate(given)]
        if not entries:
            raise ScenarioError("scenarios", "is an empty list: give run() at least one scenario")
        return build({"name": "sweep", "seeds": 1, "scenarios": entries, **over}, Path.cwd(), progress=progress)
    doc, base, stem = _read_given(given)
    if "scenarios" in doc or "parts" in doc:  # a sweep's document: its own cases and grid
        if "grid" in over and "parts" in doc:
            raise ScenarioError("grid", "cannot be given for a sweep of parts: each part has its own grid")
        return build({**doc, **over}, base, default_name=stem or "sweep", progress=progress)
    # the scenario's name, as tcplab.run gives it, names the sweep: "<name>-sweep", so that its
    # store (results/<name>-sweep/) is not the folder `tcplab run` writes the scenario's run to
    own = doc.get("name", stem)
    entry = str(Path(given).absolute()) if stem is not None else doc  # a file is read as a sweep reads its files
    spec = {"name": f"{own}-sweep" if isinstance(own, str) and own else "sweep", "seeds": 1,
            "scenarios": [glob.escape(entry) if isinstance(entry, str) else entry], **over}
    return build(spec, base, progress=progress)


def _read_given(given: Any) -> tuple[dict, Path, str | None]:
    """A document given to run(): a dict, a file (its stem too) or TOML text; with the folder
    its scenario paths are relative to."""
    if isinstance(given, dict):
        return given, Path.cwd(), None
    if isinstance(given, os.PathLike) or (isinstance(given, str) and tcplab._looks_like_path(given)):
        path = Path(given)
        inp = tcplab._read_file(os.fspath(path))  # errors name the file
        return _parsed(inp.text, inp.format, str(path)), path.parent, path.stem
    if isinstance(given, str):
        return _parsed(given, "toml", "scenario"), Path.cwd(), None
    raise TypeError(f"a sweep runs a scenario (a dict, a file or TOML text), a list of them, a sweep file or a "
                    f"Sweep, not a {type(given).__name__}")


def _parsed(text: str, fmt: str, where: str) -> dict:
    try:
        doc = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as e:
        raise ScenarioError(where, f"not valid {fmt.upper()}: {e}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(where, "is not a scenario or a sweep (a table of fields)")
    return doc


def _scenario_entry(given: Any, at: str) -> dict | str:
    """One item of a list of scenarios given to run(): a document, or a scenario file's path
    (as a sweep's `scenarios` takes it: a pattern, so escaped)."""
    if isinstance(given, dict):
        return given
    if isinstance(given, (str, os.PathLike)):
        doc, _, stem = _read_given(given)
        if "scenarios" in doc or "parts" in doc:
            raise ScenarioError(at, f"{os.fspath(given) if stem is not None else 'the text'} is a sweep, not a "
                                "scenario: give run() a sweep on its own")
        return glob.escape(str(Path(given).absolute())) if stem is not None else doc
    raise ScenarioError(at, f"a {type(given).__name__} is not a scenario (a dict or a file)")


def _grid_option(grid: Any) -> dict:
    """A grid given from Python as a sweep file's: field path -> list of values. Tuples,
    ranges and arrays are lists too; numpy's numbers are Python's."""
    if not isinstance(grid, dict):
        raise ScenarioError("grid", f"maps field paths to lists of values, not a {type(grid).__name__}")
    out = {}
    for key, values in grid.items():
        if hasattr(values, "tolist"):  # a numpy array or a pandas Series
            values = values.tolist()
        if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
            raise ScenarioError(f"grid.{key}", f"is a list of the values to try, not {values!r}")
        out[key] = [v.item() if hasattr(v, "item") and not isinstance(v, (list, dict)) else v for v in values]
    return out


def check_workers(workers: int) -> int:
    """A number of local worker processes: 1 to 4 per core (more would only share the cores,
    each process with its own memory)."""
    most = 4 * (os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= most:
        raise ScenarioError("--workers", f"{workers!r} is not a number of processes for this machine "
                            f"(1 to {most}: 4 per core)")
    return workers


WORKER_DEATHS = 3
# Seconds past run_timeout after which the sweep stops a local worker whose run has not stopped
# itself (the run checks its time between chunks of work; a chunk that does not end is not seen).
# Counted from the run's hand-out, so it covers a new worker's start too.
RUN_TIMEOUT_GRACE_S = 10.0


def _worker(conn) -> None:
    """A local worker process's loop (started by tcplab._worker, which ignores Ctrl-C and ends
    the process once the sweep has gone): runs what it is sent, one run at a time, until told
    to stop."""
    try:
        while (job := conn.recv()) is not None:
            conn.send(_run_one(*job))
    except (EOFError, OSError):  # the sweep's end of the pipe is closed: nobody to run for
        pass


def _start_worker(worker=_worker) -> tuple[Any, Any]:
    """A new local worker process and the parent's end of its connection. Not multiprocessing's
    spawn: that imports the caller's main module again in each worker (tcplab._worker)."""
    from tcplab import _worker as workers

    return workers.start(worker)


def _hand_out(r: Run, budget: RunLimits, idle: list[tuple[Any, Any]], start) -> tuple[Any, Any]:
    """Sends run `r` to an idle worker, or to a new one (`start()`) if none is idle. An idle
    worker that died between runs (killed while it waited) takes no run down: its connection
    refuses the run, and the next worker gets it. A new worker that dies before it reads the
    run is the run's death, which the caller counts when the connection ends."""
    job = (r.scenario, r.seed, *budget)
    while idle:
        conn, proc = idle.pop()
        try:
            conn.send(job)
            return conn, proc
        except OSError:  # BrokenPipeError: nobody reads the other end any more
            conn.close()
            proc.join()
    conn, proc = start()
    try:
        conn.send(job)
    except OSError:
        pass  # died at start: the caller reads the end of the connection
    return conn, proc


def _run_local(sweep: Sweep, todo: list[Run], store: Store, bar: _Progress, workers: int, budget: RunLimits,
               worker=_worker) -> None:
    timeout = budget.timeout
    if workers == 1:
        for r in todo:
            summary, error, wall = _run_one(r.scenario, r.seed, *budget)
            store.put(sweep.name, r, summary, error, wall)
            bar.update(error is None)
        return
    from multiprocessing.connection import wait

    # Each worker holds one run at a time, so a worker that dies (killed, out of memory) takes
    # only its own run down: the run goes to a fresh worker, and a run whose workers die
    # WORKER_DEATHS times is recorded as failed, to be retried with retry_failed. A worker that
    # dies between runs takes none down (`_hand_out`). A run still going RUN_TIMEOUT_GRACE_S
    # past its timeout has not stopped itself: its worker is killed, and the run recorded as failed.
    queue = list(reversed(todo))
    deaths: dict[str, int] = {}
    busy: dict[Any, tuple[Any, Run, float]] = {}  # connection -> (process, its run, when it went out)
    idle: list[tuple[Any, Any]] = []  # (connection, process)
    overdue = math.inf if timeout is None else timeout + RUN_TIMEOUT_GRACE_S

    def hand_out(r: Run) -> None:
        conn, proc = _hand_out(r, budget, idle, lambda: _start_worker(worker))
        busy[conn] = (proc, r, time.monotonic())

    try:
        while queue or busy:
            while queue and len(busy) < workers:
                hand_out(queue.pop())
            first = min(t for _, _, t in busy.values())
            for conn in wait(list(busy), None if timeout is None else max(0.0, first + overdue - time.monotonic())):
                proc, r, _ = busy.pop(conn)
                try:
                    summary, error, wall = conn.recv()
                except (EOFError, OSError):  # the worker died with the run
                    conn.close()
                    proc.join()
                    deaths[r.key] = deaths.get(r.key, 0) + 1
                    if deaths[r.key] < WORKER_DEATHS:
                        queue.append(r)
                        continue
                    summary, error, wall = None, f"its worker process died {WORKER_DEATHS} times (last exit status {proc.exitcode})", 0.0
                else:
                    idle.append((conn, proc))
                    if queue:  # its next run first: the worker runs while the result is stored
                        hand_out(queue.pop())
                store.put(sweep.name, r, summary, error, wall)
                bar.update(error is None)
            for conn in [c for c, (_, _, t) in busy.items() if time.monotonic() - t > overdue]:
                proc, r, t = busy.pop(conn)
                proc.kill()
                proc.join()
                conn.close()
                store.put(sweep.name, r, None, f"run_timeout: the run took longer than {timeout:g} s of wall time and "
                          f"did not stop; its worker process was stopped after {overdue:g} s", time.monotonic() - t)
                bar.update(False)
    finally:
        # Done, or Ctrl-C / SIGTERM: what is stored stays; runs under way are abandoned.
        for proc, _, _ in busy.values():
            proc.terminate()
        for conn, _ in idle:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc in [p for p, _, _ in busy.values()] + [p for _, p in idle]:
            proc.join(timeout=5)


DASK_CONNECT_S = 30


def _answers(scheduler: str) -> None:
    """Returns once a Dask scheduler at `scheduler` has answered, or raises (TimeoutError after
    about DASK_CONNECT_S): `Client` alone waits without end on a port that takes the connection
    but does not speak Dask. A refused connection is an OSError at once, where Dask would try
    again until its deadline; a port that answers in another protocol (an SSH banner) is one too."""
    import asyncio
    import socket
    import threading

    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend
    from distributed.security import Security

    scheme, where = parse_address(scheduler)
    get_backend(scheme)  # ValueError: an unknown address scheme
    if scheme in ("tcp", "tls"):
        try:
            socket.create_connection(parse_host_port(where), timeout=DASK_CONNECT_S).close()
        except OSError as e:
            raise OSError(e.strerror or str(e) or type(e).__name__) from None

    async def in_time():
        try:  # connect's own deadline covers reaching the port; ours, its answer too
            comm = await asyncio.wait_for(
                connect(scheduler, timeout=DASK_CONNECT_S, **Security().get_connection_args("client")),
                DASK_CONNECT_S + 5)
        except asyncio.TimeoutError:  # not yet the built-in TimeoutError on Python 3.10
            raise TimeoutError() from None
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001 - its bytes read as Dask's (2.82 EiB to allocate for a frame)
            raise OSError(f"it answers, but not as a Dask scheduler ({type(e).__name__})") from None
        comm.abort()

    failed: list[BaseException] = []

    def handshake():
        try:
            asyncio.run(in_time())
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            failed.append(e)

    # a thread of its own: the caller may be running an event loop (a notebook); a daemon, so
    # that Ctrl-C during the wait is not held up by it
    thread = threading.Thread(target=handshake, daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


@contextlib.contextmanager
def _silenced(logger: str):
    """Nothing logged by `logger` while the block runs."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        log.setLevel(level)


def _run_dask(sweep: Sweep, todo: list[Run], store: Store, bar: _Progress, scheduler: str, budget: RunLimits) -> None:
    try:
        from concurrent.futures import CancelledError

        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError as e:
        raise RuntimeError("a Dask scheduler needs the `distributed` package (pip install 'dask[distributed]')") from e
    if not todo:
        return
    try:
        _answers(scheduler)
        client = Client(scheduler, timeout=f"{DASK_CONNECT_S}s")
    except (ValueError, TypeError, ImportError, OSError) as e:  # a malformed address or scheme, nobody there
        why = str(e) or f"no answer in {DASK_CONNECT_S} s"
        raise ScenarioError("--scheduler", f"cannot reach a Dask scheduler at {scheduler!r}: {why}") from None
    # the client logs a lost scheduler, with a traceback as it closes: the sweep says it in one line
    with _silenced("distributed.client"), client:
        # one map, not a submit per run: Dask then holds the runs back and hands each worker
        # thread one at a time, so a worker that dies takes only its own run down
        futures = client.map(_run_one, [r.scenario for r in todo], [r.seed for r in todo],
                             *([b] * len(todo) for b in budget), key=[f"tcplab-{r.key}" for r in todo], pure=False)
        runs = dict(zip(futures, todo))
        for fut in as_completed(futures):
            try:
                summary, error, wall = fut.result()
            except KilledWorker as e:  # Dask gave up on the run after its workers died
                summary, error, wall = None, f"its Dask workers died: {e}", 0.0
            except (OSError, CancelledError) as e:  # the scheduler went away, and its runs with it
                raise ScenarioError("--scheduler", f"lost the Dask scheduler at {scheduler!r} ({e}); the runs "
                                    "finished are stored, and running the sweep again does the rest") from None
            store.put(sweep.name, runs[fut], summary, error, wall)
            bar.update(error is None)


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------

def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom (any df > 0,
    whole or not; ``math.inf`` gives the normal's), to about 1e-12: ``t_quantile(0.975, 10)`` is
    2.228138852. Without scipy: the tail of t is a regularised incomplete beta function, which
    this inverts by bisection (for df up to 1e5; past that, the Cornish-Fisher series about the
    normal quantile, exact to far below a double's precision there)."""
    if not 0 < p < 1 or math.isnan(p):
        raise ValueError(f"p = {p!r} is not a probability strictly between 0 and 1")
    if not df > 0:
        raise ValueError(f"df = {df!r} is not a positive number of degrees of freedom")
    if p < 0.5:
        return -t_quantile(1 - p, df)  # t is symmetric
    if p == 0.5:
        return 0.0
    if df > _T_SERIES_DF:
        return _t_series(p, df)
    q = 1 - p  # the upper tail to reach; 1 - p is exact for p >= 0.5 (Sterbenz)
    lo, hi = 0.0, 1.0
    while _t_tail(hi, df) > q:  # bracket: the tail falls as t grows
        lo, hi = hi, hi * 2
        if hi > 1e300:
            return math.inf  # p so close to 1, with df so small, that the quantile is not a double
    # bisection: each step keeps the quantile inside [lo, hi], whatever the tail's slope
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break  # adjacent doubles
        if _t_tail(mid, df) > q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# Beyond this many degrees of freedom the incomplete beta function's continued fraction needs
# thousands of terms and lgamma's differences lose digits; the series is exact there instead.
_T_SERIES_DF = 1e5


def _t_series(p: float, df: float) -> float:
    """Cornish-Fisher expansion of t's quantile about the normal's (Abramowitz and Stegun
    26.7.5): its first neglected term is of order df**-5."""
    import statistics

    z = statistics.NormalDist().inv_cdf(p)
    if math.isinf(df):
        return z
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def _t_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0: half the regularised incomplete beta I_x(df/2, 1/2) at
    x = df / (df + t^2), its complement given as it is computed (t^2 / (df + t^2)), not as 1 - x,
    which would lose every digit of a small one."""
    d = df + t * t
    return 0.5 * _beta_inc(df / 2, 0.5, df / d, t * t / d)


def _beta_inc(a: float, b: float, x: float, y: float) -> float:
    """The regularised incomplete beta function I_x(a, b), with y = 1 - x: its continued
    fraction (Numerical Recipes' betacf, by modified Lentz), on the side of x where it
    converges quickly (I_x(a, b) = 1 - I_y(b, a))."""
    if x <= 0:
        return 0.0
    if y <= 0:
        return 1.0
    log_front = a * math.log(x) + b * math.log(y) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1 - math.exp(log_front) * _beta_fraction(b, a, y) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny, eps = 1e-300, 1e-16
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):  # converges in about sqrt(max(a, b)) terms: a few hundred at df = 1e5
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),  # the even step, then the odd
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < eps:
            break
    return h


def confidence_interval(values: Iterable[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (Student's t, exact for any
    number of values); 0 for one value."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    mean = sum(xs) / n
    if n == 1 or max(xs) == min(xs):
        return mean, 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, _t95(n - 1) * sd / math.sqrt(n)


@functools.lru_cache(maxsize=1024)
def _t95(df: int) -> float:
    # a table's groups mostly share their number of seeds: one bisection each
    return t_quantile(0.975, df)


# What a sweep's table can summarise: each number of a flow's summary, and its run's fairness.
METRICS = tuple(c for c in tcplab._FLOW_COLUMNS if c not in ("name", "protocol", "profile", "from", "to")) + (
    "jain_fairness",)


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ScenarioError("--metric", f"{metric!r} is not a flow metric{tcplab._meant(metric, METRICS)} "
                                        f"(one of {', '.join(METRICS)})")
    return metric


class SweepResult:
    """The runs of a sweep as tidy tables."""

    def __init__(self, sweep: Sweep, stored: list[dict]):
        """`stored`: the store's entries for the sweep's keys. Each run of the sweep gets its
        own row, in sweep order: two cases that set the same scenario (a field set to its
        default) share one stored result but keep their own case and fields."""
        self.sweep = sweep
        by_key = {r["key"]: r for r in stored}
        self.rows = [{**by_key[r.key], "case": r.case, "seed": r.seed, "params": r.params, "scenario": r.scenario["name"]}
                     for r in sweep.runs if r.key in by_key]

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if r["error"]]

    def _finished(self):
        """Each finished run's summary, with the columns every table starts with: case, scenario
        name, seed and the varied fields."""
        for r in self.rows:
            if r["summary"] is not None:
                params = {p: _shown(v) for p, v in r["params"].items()}  # a table or a list as its JSON text
                yield r["summary"], {"case": r["case"], "scenario": r["scenario"], "seed": r["seed"], **params}

    @property
    def flows(self):
        """One row per run and flow: case, scenario name, seed, the varied fields, then the
        flow's summary."""
        import pandas as pd

        out = []
        for summary, head in self._finished():
            for f in summary["flows"]:
                out.append({**head, "flow": f["name"], **{k: v for k, v in f.items() if k != "name"},
                            "jain_fairness": summary["jain_fairness"]})
        return pd.DataFrame(out)

    @property
    def handovers(self):
        """One row per run, handover (0 for the first) and flow towards the mobile node: case,
        scenario, seed, the varied fields, then the handover's effect on the flow."""
        import pandas as pd

        out = []
        for summary, head in self._finished():
            for k, h in enumerate(summary.get("handovers", [])):
                for f in h.get("flows", []):
                    out.append({**head, "handover": k, "from": h["from"], "to": h["to"],
                                **{key: v for key, v in f.items() if key not in ("flow", "parts_s")}, "flow": f["flow"]})
        return pd.DataFrame(out)

    def aggregate(self, metric: str = "goodput_bps"):
        """Per case and flow: the mean of ``metric`` (one of METRICS) over the seeds, its 95%
        CI, min and max."""
        import pandas as pd

        check_metric(metric)
        df = self.flows
        if df.empty:
            return df
        keys = ["case", *self.sweep.fields, "flow", "protocol"]
        rows = []
        for group, g in df.groupby(keys, sort=False, dropna=False):
            mean, half = confidence_interval(g[metric])
            rows.append({**dict(zip(keys, group)), "runs": len(g), "mean": mean, "ci95": half,
                         "min": g[metric].min(), "max": g[metric].max()})
        return pd.DataFrame(rows)

    def plot(self, x: str, metric: str = "goodput_bps", *, flows: str | Iterable[str] | None = None,
             figsize: tuple[float, float] | None = None):
        """A matplotlib Figure of ``metric``'s mean over the seeds, with its 95% confidence
        interval as error bars, against the grid field ``x``: one line per flow of each other
        case (scenario and the other grid fields' values). ``flows`` keeps only the flows of
        those names. Rates in bit/s are drawn in Mb/s. In a notebook the returned Figure shows
        as the cell's value; ``fig.savefig("sweep.png")`` writes it. Needs matplotlib."""
        from matplotlib.figure import Figure  # not pyplot: no global figure, so a notebook shows it once

        check_metric(metric)
        if x not in self.sweep.fields:
            varied = ", ".join(self.sweep.fields) or "none: the sweep has no grid"
            raise ValueError(f"{x!r} is not a field the sweep varies (those are: {varied})")
        df = self.flows
        if df.empty:
            raise ValueError("the sweep has no finished runs to plot (see .failed)")
        keep = [flows] if isinstance(flows, str) else None if flows is None else list(flows)
        if keep is not None:
            df = df[df["flow"].isin(keep)]
            if df.empty:
                raise ValueError(f"no flow of the sweep is named {' or '.join(map(repr, keep))}")
        df = df[df[x].notna()]  # the runs of parts that do not vary x
        # where x's values are numbers the axis is numeric; else each value in sweep order
        values = list(dict.fromkeys(df[x]))
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        position = {v: (v if numeric else i) for i, v in enumerate(values)}
        others = [f for f in self.sweep.fields if f != x and f in df.columns]
        scale, unit = (1e-6, " (Mb/s)") if metric.endswith("_bps") else (1.0, "")
        fig = Figure(figsize=figsize or (8, 4.5), layout="constrained")
        ax = fig.subplots()
        line_keys = ["scenario", *others, "flow", "protocol"]
        for key, g in df.groupby(line_keys, sort=False, dropna=False):
            head = dict(zip(line_keys, key))
            points = []
            for v, at in g.groupby(x, sort=False):
                mean, half = confidence_interval(at[metric])
                points.append((position[v], mean * scale, half * scale))
            points.sort()
            label = " ".join([str(head["scenario"]), *(f"{f}={head[f]}" for f in others if head[f] == head[f]),
                              f"{head['flow']} ({head['protocol']})"])
            ax.errorbar([p[0] for p in points], [p[1] for p in points], yerr=[p[2] for p in points],
                        marker="o", capsize=3, label=label)
        if not numeric:
            ax.set_xticks(range(len(values)), [str(v) for v in values])
        ax.set_xlabel(x)
        ax.set_ylabel(f"{metric}{unit}, mean and 95% CI")
        ax.set_title(f"{self.sweep.name}: {metric} against {x}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        return fig
