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
missing. A run that fails is stored with its error and the sweep goes on.

Runs go to a pool of local processes (every core by default) or, given a scheduler address, to a
Dask distributed cluster; a worker that dies is replaced and its runs are done again. The same
scenario and seed give the same bytes whichever way they run.
"""

from __future__ import annotations

import glob
import hashlib
import itertools
import json
import math
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import tcplab
from tcplab import ScenarioError
from tcplab.status import StatusLine

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["Sweep", "Run", "load", "run", "Store", "SweepResult", "confidence_interval"]


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


# --------------------------------------------------------------------------------------
# Reading a sweep
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")
_PATH = re.compile(r"[^.\[\]]+(?:\[(?:\d+|\*)\]|\.[^.\[\]]+)*")  # the tokens, nothing between
# More seeds than this is a mistake, not a sweep (the list alone would fill the memory).
MAX_SEEDS = 1_000_000


def set_field(doc: dict, path: str, value: Any) -> None:
    """Sets ``doc[path] = value`` for a path like ``links[2].delay`` or ``tcp.window``, or
    ``flows[*].packet_size`` for every item of a list; tables on the way are created, list
    items must exist."""
    tokens = [name or (idx if idx == "*" else int(idx)) for name, idx in _TOKEN.findall(path)]
    if not _PATH.fullmatch(path) or tokens[0] == "*":
        raise ScenarioError(path, "is not a field path (e.g. links[2].delay)")
    _set(doc, tokens, path, value)


def _set(node: Any, tokens: list, path: str, value: Any) -> None:
    key, rest = tokens[0], tokens[1:]
    if key == "*" or isinstance(key, int):
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
    """A scenario file (TOML) as a document, named after the file unless it names itself."""
    text = tcplab._read_file(os.fspath(path)).text  # errors name the file
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(str(path), f"not valid TOML: {e}") from None
    doc.setdefault("name", Path(path).stem)
    return doc


def _version() -> str:
    return tcplab.__version__


def run_key(normalized: dict, seed: int) -> str:
    blob = json.dumps({"scenario": normalized, "seed": seed, "tcplab": _version()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def load(path: str | os.PathLike) -> Sweep:
    """Reads and checks a sweep file; every run's scenario is validated (errors name the field)."""
    path = Path(path)
    text = tcplab._read_file(os.fspath(path)).text  # errors name the file
    try:
        spec = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(str(path), f"not valid TOML: {e}") from None
    return build(spec, path.parent, default_name=path.stem)


def build(spec: dict, base: Path, default_name: str = "sweep") -> Sweep:
    """A sweep from its TOML document: `scenarios` and `grid`, or several `[[parts]]`, each with
    its own `scenarios` and `grid` (for studies whose tables vary different fields)."""
    allowed = {"name", "scenarios", "seeds", "grid", "parts"}
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
    if "parts" in spec:
        if "scenarios" in spec or "grid" in spec:
            raise ScenarioError("parts", "replaces scenarios and grid: give one or the other")
        parts = spec["parts"]
        if not isinstance(parts, list) or not parts or not all(isinstance(p, dict) for p in parts):
            raise ScenarioError("parts", "is a list of tables, each with scenarios and a grid")
        paths = [f"parts[{i}]." for i in range(len(parts))]
    else:
        parts, paths = [{"scenarios": spec.get("scenarios"), "grid": spec.get("grid", {})}], [""]
    sweep = Sweep(name=name)
    named: dict[str, Path] = {}  # each scenario name's file: a sweep tells its cases by name
    for part, at in zip(parts, paths):
        for k in part:
            if k not in ("scenarios", "grid"):
                raise ScenarioError(f"{at}{k}", "unknown field (a part has scenarios and grid)")
        for f in _part_runs(part, at, base, seed_list, sweep, named):
            sweep.runs.append(f)
    return sweep


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
        if len(names) == 1:
            axes.append((names, [(v,) for v in values]))
            continue
        if not all(names) or not all(isinstance(v, list) and len(v) == len(names) for v in values):
            raise ScenarioError(f"{at}.{key}", f"varies {len(names)} fields together: each value is a list of {len(names)}")
        axes.append((names, [tuple(v) for v in values]))
    return axes


def _part_runs(part: dict, at: str, base: Path, seed_list: list[int], sweep: Sweep, named: dict[str, Path]) -> list[Run]:
    patterns = part.get("scenarios")
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) for p in patterns):
        raise ScenarioError(f"{at}scenarios", "is required: a list of scenario files (globs allowed)")
    files: dict[Path, Path] = {}  # each file as found, by where it is: a file matched twice is one
    for i, pat in enumerate(patterns):
        matches = sorted(m for m in glob.glob(str(base / pat)) if os.path.isfile(m))  # not folders
        if not matches:
            raise ScenarioError(f"{at}scenarios[{i}]", f"{pat!r} matches no file")
        for m in matches:
            files.setdefault(Path(m).resolve(), Path(m))
    grid = part.get("grid", {})
    if not isinstance(grid, dict) or not all(isinstance(v, list) and v for v in grid.values()):
        raise ScenarioError(f"{at}grid", "maps field paths to non-empty lists of values")
    axes = _grid_axes(grid, f"{at}grid")
    fields = [f for names, _ in axes for f in names]
    sweep.fields += [f for f in fields if f not in sweep.fields]
    runs = []
    for where, f in files.items():
        doc = read_scenario(f)
        other = named.setdefault(str(doc["name"]), f)
        if other.resolve() != where:
            raise ScenarioError(f"{at}scenarios", f"{other} and {f} are both named {doc['name']!r}: a sweep tells its "
                                "cases by their scenarios' names")
        for point in itertools.product(*(values for _, values in axes)):
            params = dict(zip(fields, (v for values in point for v in values)))
            scenario = json.loads(json.dumps(doc))  # a deep copy
            for p, v in params.items():
                try:
                    set_field(scenario, p, v)
                except ScenarioError as e:
                    raise ScenarioError(f"{at}grid.{p}", f"{f.name}: {e.message}") from None
            case = scenario["name"] + "".join(f" {p}={v}" for p, v in params.items())
            try:
                normalized = tcplab.validate(scenario)
            except ScenarioError as e:
                raise ScenarioError(e.path, f"{case}: {e.message}") from None
            try:
                tcplab.validate({**scenario, "seed": max(seed_list)})  # within the range of its rng
            except ScenarioError as e:
                raise ScenarioError("seeds", f"{case}: {e.message}") from None
            for seed in seed_list:
                runs.append(Run(case, seed, params, scenario, run_key(normalized, seed)))
    return runs


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
        q = "SELECT key FROM runs" + (" WHERE error IS NULL" if retry_failed else "")
        return {k for (k,) in self.db.execute(q)}

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
                out.append({"key": key, "case": case, "seed": seed, "params": json.loads(params),
                            "summary": None if summary is None else json.loads(summary), "error": error})
        return out

    def close(self) -> None:
        self.db.close()


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------

def _run_one(scenario: dict, seed: int, limits: bool = True) -> tuple[dict | None, str | None, float]:
    """Runs one scenario at one seed in a worker: (summary, None, wall s) or (None, error, wall s)."""
    t0 = time.perf_counter()
    try:
        res = tcplab.run(scenario, seed=seed, limits=limits)
        return res.summary, None, time.perf_counter() - t0
    except ScenarioError as e:
        return None, f"{e.path}: {e.message}", time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - a failed run is recorded, the sweep goes on
        return None, f"{type(e).__name__}: {e}", time.perf_counter() - t0


class _Progress:
    """The sweep's status line: runs done and the time left."""

    def __init__(self, total: int, stream=None, enabled: bool = True):
        self.total, self.done, self.failed = total, 0, 0
        self.t0 = time.perf_counter()
        self.line, self.enabled = StatusLine(stream), enabled

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if not self.enabled:
            return
        rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
        left = (self.total - self.done) / rate if rate > 0 else math.inf
        failed = f", {self.failed} failed" if self.failed else ""
        self.line.show(f"tcplab: sweep: {self.done}/{self.total} runs{failed}, about {left:.0f} s left",
                       last=self.done == self.total)

    def close(self) -> None:
        self.line.close()


def run(sweep: Sweep | str | os.PathLike, out: str | os.PathLike | None = None, *,
        workers: int | None = None, scheduler: str | None = None, retry_failed: bool = False,
        progress: bool = True, limits: bool = True) -> "SweepResult":
    """Runs what is missing from the sweep's store (``out/results.sqlite``) and returns all of
    its results. ``workers`` local processes (default: every core), or a Dask cluster at
    ``scheduler`` (``tcp://host:port``). A run estimated far beyond its machine is recorded as
    failed with the reason, unless ``limits`` is False (see :func:`tcplab.run`)."""
    if not isinstance(sweep, Sweep):
        sweep = load(sweep)
    out = Path(out if out is not None else Path("results") / tcplab.folder_name(sweep.name, "sweep"))
    store = None
    try:
        store = Store(out / "results.sqlite")
        have = store.done(retry_failed)
        todo = [r for r in sweep.runs if r.key not in have]
        bar = _Progress(len(todo), enabled=progress and bool(todo))
        try:
            if scheduler:
                _run_dask(sweep, todo, store, bar, scheduler, limits)
            elif todo:
                _run_local(sweep, todo, store, bar, workers or os.cpu_count() or 1, limits)
        finally:
            bar.close()
        return SweepResult(sweep, store.rows(r.key for r in sweep.runs))
    except sqlite3.Error as e:  # not SQLite, a store of another shape, a full disk
        raise ScenarioError("--out", f"cannot keep the results in {out / 'results.sqlite'}: {e}") from None
    finally:
        if store is not None:
            store.close()


WORKER_DEATHS = 3


def _worker(conn) -> None:
    """A local worker process: runs what it is sent, one run at a time, until told to stop."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while (job := conn.recv()) is not None:
        conn.send(_run_one(*job))


def _start_worker(ctx, worker=_worker) -> tuple[Any, Any]:
    """A new local worker process and the parent's end of its connection."""
    conn, child = ctx.Pipe()
    proc = ctx.Process(target=worker, args=(child,), daemon=True)
    proc.start()
    child.close()
    return conn, proc


def _hand_out(r: Run, limits: bool, idle: list[tuple[Any, Any]], start) -> tuple[Any, Any]:
    """Sends run `r` to an idle worker, or to a new one (`start()`) if none is idle. An idle
    worker that died between runs (killed while it waited) takes no run down: its connection
    refuses the run, and the next worker gets it. A new worker that dies before it reads the
    run is the run's death, which the caller counts when the connection ends."""
    job = (r.scenario, r.seed, limits)
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


def _run_local(sweep: Sweep, todo: list[Run], store: Store, bar: _Progress, workers: int, limits: bool,
               worker=_worker) -> None:
    if workers == 1:
        for r in todo:
            summary, error, wall = _run_one(r.scenario, r.seed, limits)
            store.put(sweep.name, r, summary, error, wall)
            bar.update(error is None)
        return
    import multiprocessing
    from multiprocessing.connection import wait

    # Each worker holds one run at a time, so a worker that dies (killed, out of memory) takes
    # only its own run down: the run goes to a fresh worker, and a run whose workers die
    # WORKER_DEATHS times is recorded as failed, to be retried with retry_failed. A worker that
    # dies between runs takes none down (`_hand_out`).
    ctx = multiprocessing.get_context("spawn")  # workers start clean whatever the parent holds
    queue = list(reversed(todo))
    deaths: dict[str, int] = {}
    busy: dict[Any, tuple[Any, Run]] = {}  # connection -> (process, its run)
    idle: list[tuple[Any, Any]] = []  # (connection, process)
    try:
        while queue or busy:
            while queue and len(busy) < workers:
                r = queue.pop()
                conn, proc = _hand_out(r, limits, idle, lambda: _start_worker(ctx, worker))
                busy[conn] = (proc, r)
            for conn in wait(list(busy)):
                proc, r = busy.pop(conn)
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
                        nxt = queue.pop()
                        conn, proc = _hand_out(nxt, limits, idle, lambda: _start_worker(ctx, worker))
                        busy[conn] = (proc, nxt)
                store.put(sweep.name, r, summary, error, wall)
                bar.update(error is None)
    finally:
        # Done, or Ctrl-C / SIGTERM: what is stored stays; runs under way are abandoned.
        for proc, _ in busy.values():
            proc.terminate()
        for conn, _ in idle:
            try:
                conn.send(None)
            except OSError:
                pass
        for proc in [p for p, _ in busy.values()] + [p for _, p in idle]:
            proc.join(timeout=5)


DASK_CONNECT_S = 30


def _answers(scheduler: str) -> None:
    """Returns once a Dask scheduler at `scheduler` has answered, or raises (TimeoutError after
    about DASK_CONNECT_S): `Client` alone waits without end on a port that takes the connection
    but does not speak Dask."""
    import asyncio
    import threading

    from distributed.comm import connect
    from distributed.security import Security

    async def in_time():
        try:  # connect's own deadline covers reaching the port; ours, its answer too
            comm = await asyncio.wait_for(
                connect(scheduler, timeout=DASK_CONNECT_S, **Security().get_connection_args("client")),
                DASK_CONNECT_S + 5)
        except asyncio.TimeoutError:  # not yet the built-in TimeoutError on Python 3.10
            raise TimeoutError() from None
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


def _run_dask(sweep: Sweep, todo: list[Run], store: Store, bar: _Progress, scheduler: str, limits: bool) -> None:
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
    with client:
        # one map, not a submit per run: Dask then holds the runs back and hands each worker
        # thread one at a time, so a worker that dies takes only its own run down
        futures = client.map(_run_one, [r.scenario for r in todo], [r.seed for r in todo], [limits] * len(todo),
                             key=[f"tcplab-{r.key}" for r in todo], pure=False)
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

# Two-sided 95% quantiles of Student's t, by degrees of freedom (then about 1.96).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]


def confidence_interval(values: Iterable[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (Student's t); 0 for one value."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    mean = sum(xs) / n
    if n == 1 or max(xs) == min(xs):
        return mean, 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    t = _T95[n - 2] if n - 2 < len(_T95) else 1.96
    return mean, t * sd / math.sqrt(n)


# What a sweep's table can summarise: each number of a flow's summary, and its run's fairness.
METRICS = tuple(c for c in tcplab._FLOW_COLUMNS if c not in ("name", "protocol", "profile", "from", "to")) + (
    "jain_fairness",)


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ScenarioError("--metric", f"{metric!r} is not a flow metric (one of {', '.join(METRICS)})")
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
                yield r["summary"], {"case": r["case"], "scenario": r["scenario"], "seed": r["seed"], **r["params"]}

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
