"""tcplab: a packet-level TCP congestion-control simulator (Rust core, Python front end).

    >>> import tcplab
    >>> res = tcplab.run("python/tests/data/dumbbell.toml", seed=3, trace=["cwnd"])
    >>> res.flows[["name", "goodput_bps", "delay_p95_s"]]
    >>> res.series["cwnd"]            # time, flow, cwnd, ssthresh
    >>> res.save("results/dumbbell")  # summary.json
    >>> res.plot()                    # a matplotlib Figure of its series
    >>> sw = tcplab.sweep.run("python/tests/data/dumbbell.toml", grid={"tcp.window": [8, 16]}, seeds=5)
    >>> sw.aggregate("goodput_bps")   # mean and 95% CI per case and flow (docs/sweeps.md)

The scenario format is described in docs/scenarios.md.  All simulation work is done by the
compiled extension ``tcplab._core``; this module turns scenarios given as files, TOML text or
dicts into what the core expects, drives the run in chunks and wraps the result.
"""

from __future__ import annotations

# The standard library under private names: `dir(tcplab)` (a notebook's completion) shows
# tcplab's own API, not json, os or Path.
import contextlib as _contextlib
import fcntl as _fcntl
import importlib as _importlib
import json as _json
import math as _math
import os as _os
import re as _re
import shutil as _shutil
import stat as _stat
import time as _time
from collections.abc import Mapping as _Mapping
from pathlib import Path as _Path
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import NamedTuple as _NamedTuple

if _TYPE_CHECKING:  # the names the annotations use, for type checkers (py.typed) only
    import os
    from pathlib import Path
    from typing import Any, Callable, Iterable, Mapping

__all__ = ["run", "validate", "estimate", "sweep", "Result", "ScenarioError", "InternalError", "InvariantError",
           "CoreMissingError", "TRACES", "__version__", "emulate"]


def __getattr__(name: str):
    # __version__ is the core's (the Cargo workspace version), read when first asked for:
    # importlib.metadata would add 40 ms to every start of the command line.
    if name == "__version__":
        try:
            return _load_core().__version__
        except CoreMissingError:
            return "0+unknown"
    # tcplab.sweep without `import tcplab.sweep`; imported when first asked for, as it is the
    # command line's (sqlite3, the status line) and `tcplab run` need not pay for it
    if name == "sweep":
        return _importlib.import_module("tcplab.sweep")
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the public API and the module's own dunders: not the private helpers, nor the submodules
    # that tcplab's own commands import (cli, status, ...)
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__") and n.endswith("__")})

#: writers that can be asked for on top of a scenario's own ``output.trace``
TRACES = ("ns2", "cwnd", "pcap", "nam", "rtt")
SERIES_FORMATS = ("parquet", "csv")

# Wall-clock time one ``advance`` call should take.  Short enough that Ctrl-C (handled by
# Python between calls, since the core runs with the GIL released) and progress updates feel
# immediate, long enough that the per-call overhead is negligible.
_CHUNK_WALL_S = 0.1
# At most this many events per call into the core, whatever stretch of simulated time they
# fill: between calls Python takes Ctrl-C and SIGTERM (a fraction of a second of computing).
_CHUNK_EVENTS = 1 << 20


class ScenarioError(ValueError):
    """A scenario or run option is invalid.

    ``path`` names the offending field (``links[0].bandwidth``, ``flows[1].protocol``,
    ``--until``), or the file name when the file itself cannot be read or parsed;
    ``message`` says what is wrong.  ``source`` is the scenario file, when there is one.
    """

    def __init__(self, path: str, message: str, source: str | None = None):
        super().__init__(path, message)
        self.path = path
        self.message = message
        self.source = source

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class InternalError(RuntimeError):
    """tcplab's core failed where it never should (a Rust panic): a bug in tcplab. The message
    says what failed and how to report it."""


REPORT_A_BUG = ("this is a bug in tcplab: please report it with the scenario, the seed and this "
                "message (an issue in tcplab's repository)")


class InvariantError(InternalError):
    """A run checked with ``check=True`` broke one of its invariants (tcplab_net::check):
    ``violations`` counts them, ``first`` lists the first ones with their times. This is a bug
    in tcplab (or in a model): please report it with the scenario."""

    def __init__(self, name: str, violations: int, first: list[str]):
        shown = "\n  ".join(first)
        super().__init__(f"{name}: {violations} broken invariants; {REPORT_A_BUG}. The first:\n  {shown}")
        self.violations = violations
        self.first = first


class CoreMissingError(ImportError):
    """The compiled extension ``tcplab._core`` is not built / not importable."""


def _load_core():
    # (Not named _core: importing the submodule tcplab._core sets that attribute.)
    # Imported lazily so that ``import tcplab`` and ``tcplab --help`` work without the
    # extension, with a clear error (CoreMissingError) when it is missing.
    try:
        return _importlib.import_module("tcplab._core")
    except ImportError as e:
        raise CoreMissingError(
            f"the compiled extension tcplab._core is not available ({e}); "
            "build it with scripts/setup.sh (maturin develop)"
        ) from e


def folder_name(name: str, default: str = "scenario") -> str:
    """A scenario's or sweep's name as one harmless path component, for its default results
    folder: names are free text, and a name must never lead a write outside `results/`."""
    # a lone surrogate (a file name's undecodable byte) is a character like any other to drop
    return _load_core().folder_name(name.encode("utf-8", "replace").decode(), default)


class _Translate:
    """Context manager turning ``_core.ScenarioError`` into tcplab's own ScenarioError, and a
    panic of the core into InternalError."""

    def __init__(self, core, inp: "_Input"):
        self.core = core
        self.source = inp.source
        self.from_dict = inp.format == "json" and inp.source is None  # our JSON text, not the user's

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        if exc is not None and isinstance(exc, self.core.ScenarioError):
            path, message = exc.args
            if self.from_dict:  # where in our JSON text means nothing to the user: the path says where
                message = _re.sub(r" at line \d+ column \d+$", "", str(message))
            raise ScenarioError(str(path), str(message), self.source) from None
        if exc is not None and type(exc).__name__ == "PanicException":  # pyo3's, a BaseException
            where = f" on {self.source}" if self.source else ""
            raise InternalError(f"the core failed{where}: {exc}; {REPORT_A_BUG}") from exc
        return False


# --------------------------------------------------------------------------------------
# Scenario input: path, TOML text or dict  ->  what the core takes
# --------------------------------------------------------------------------------------

class _Input(_NamedTuple):
    text: str
    format: str  # "toml" or "json"
    source: str | None = None  # the file it came from


def _looks_like_path(s: str) -> bool:
    if "\n" in s or not s.strip():
        return False
    if _os.path.exists(s) or s.lower().endswith((".toml", ".json")):
        return True
    # TOML needs '=' (a key/value pair) or '[' (a table); a bare word is a file name.
    return "=" not in s and "[" not in s


def _scenario_input(scenario: Any) -> _Input:
    if isinstance(scenario, _Mapping):
        return _Input(_json.dumps(_jsonable(scenario, "")), "json")
    if isinstance(scenario, _os.PathLike) or (isinstance(scenario, str) and _looks_like_path(scenario)):
        return _read_file(_os.fspath(scenario))
    if isinstance(scenario, str):
        return _Input(scenario, "toml")
    raise TypeError(
        f"scenario must be a file path, TOML text or a dict, not {type(scenario).__name__}"
    )


def _make_out_dir(path: str | os.PathLike) -> None:
    """Creates the output folder `path` and its parents as needed; an error names --out."""
    try:
        _os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise ScenarioError("--out", f"cannot create directory {_os.fspath(path)}: {e.strerror or e}") from None


@_contextlib.contextmanager
def _holding(folder: str | os.PathLike | None, path: str, shared: bool = False):
    """Holds a run's `folder` while a command writes it (`run`: alone) or reads it (`plot`,
    `report`: `shared` with each other), with a lock on the folder itself that ends with the
    command however it ends. A command on a folder held otherwise is refused at once: two runs
    into one folder left traces of one and the summary of the other."""
    try:
        fd = None if folder is None else _os.open(folder, _os.O_RDONLY)
    except OSError:  # no such folder, or one that cannot be read: the command's checks say which
        fd = None
    if fd is None:
        yield
        return
    try:
        try:
            _fcntl.flock(fd, (_fcntl.LOCK_SH if shared else _fcntl.LOCK_EX) | _fcntl.LOCK_NB)
        except BlockingIOError:
            held = "is being written by another tcplab run" if shared else "is in use by another tcplab command"
            named = "" if path == _os.fspath(folder) else f"{_os.fspath(folder)} "
            raise ScenarioError(path, f"{named}{held}: wait for it to end, or choose another folder") from None
        except OSError:
            pass  # a file system without locks (some network ones): go on unheld, as before
        yield
    finally:
        _os.close(fd)


# What a run writes into its folder, and what `tcplab plot` and `report` make of it there.
_RUN_FILES = ("summary.json", "scenario.json", "trace.tr", "cwnd.tr", "trace.nam", "pcap/*.pcap",
              "series-*.parquet", "series-*.csv", "report.html", "plots/*.png", "plots/*.svg")


@_contextlib.contextmanager
def _replacing(folder: str | None):
    """Sets aside the _RUN_FILES an earlier run left in `folder` while this one starts (the core
    opens its files): dropped once it has, put back if it cannot start. Kept, those this run
    does not write again would lie beside its own as if one run had written them all."""
    if folder is None:
        yield
        return
    here, aside = _Path(folder), _Path(folder, ".tcplab-earlier")
    _shutil.rmtree(aside, ignore_errors=True)  # a run killed as it started left it
    _move(_RUN_FILES, here, aside)
    try:
        yield
    except BaseException:
        _move(_RUN_FILES, aside, here)
        raise
    finally:
        _shutil.rmtree(aside, ignore_errors=True)


def _move(patterns: Iterable[str], src: Path, dst: Path) -> None:
    for pattern in patterns:
        for f in src.glob(pattern):
            if not f.is_file():
                continue  # a folder in a file's place is the core's to refuse, never to move
            to = dst / f.relative_to(src)
            to.parent.mkdir(parents=True, exist_ok=True)
            _os.replace(f, to)
            if f.parent != src and not any(f.parent.iterdir()):
                f.parent.rmdir()  # pcap/, plots/: no empty folder left either


# The most tcplab reads of one input file (a scenario, a sweep, a study, a run's summary.json):
# far more than any real one holds, and a bound on `tcplab validate /dev/zero`.
MAX_FILE_BYTES = 64 << 20


def _read_file(path: str) -> _Input:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
            regular = _stat.S_ISREG(_os.fstat(f.fileno()).st_mode)
    except FileNotFoundError:
        raise ScenarioError(path, "no such file", path) from None
    except IsADirectoryError:
        raise ScenarioError(path, "is a directory, not a file", path) from None
    except OSError as e:
        raise ScenarioError(path, f"cannot read file: {e.strerror or e}", path) from None
    if len(data) > MAX_FILE_BYTES:
        what = "is larger" if regular else "is not a regular file, and gives more"
        raise ScenarioError(path, f"{what} than 64 MiB, the most tcplab reads from one file", path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(path, f"not UTF-8 text (byte {e.start})", path) from None
    # The core names the scenario after the file's stem unless it has a `name`.
    return _Input(text, "json" if path.lower().endswith(".json") else "toml", path)


def _jsonable(value: Any, path: str, depth: int = 0) -> Any:
    """Check that a dict scenario maps onto JSON, naming the field that does not."""
    if depth > 32:  # a scenario is a few tables deep; this is a loop or a mistake
        raise ScenarioError(path, "is nested deeper than any scenario field")
    if type(value) in (bool, float, int, str, type(None)):  # most values: a sweep checks 100,000s of scenarios
        return _leaf(value, path)
    if isinstance(value, _Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(path or "scenario", f"key {k!r} is not a string")
            out[_text(k, path or "scenario")] = _jsonable(v, f"{path}.{k}" if path else k, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    return _leaf(value, path)


def _leaf(value: Any, path: str) -> Any:
    if isinstance(value, float) and not _math.isfinite(value):
        raise ScenarioError(path, f"{value} is not a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        raise ScenarioError(path, "is a whole number too large for any field")
    if isinstance(value, str):
        return _text(value, path)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise ScenarioError(path, f"a {type(value).__name__} cannot be used in a scenario")


def _text(s: str, path: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ScenarioError(path, "is not text that UTF-8 can hold (a lone surrogate)") from None
    return s


# --------------------------------------------------------------------------------------
# Run options
# --------------------------------------------------------------------------------------

def _seed_option(seed: Any) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed)
    # Checked here: a huge int would fail in PyO3's conversion (the core takes an i64) with
    # an OverflowError instead of a ScenarioError.
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ScenarioError("--seed", f"{seed!r} is not an integer between 0 and 2^63-1")
    return seed


def _until_option(until: Any) -> str | None:
    if until is None or isinstance(until, str):
        return until  # the core parses time strings ("5s", "250ms", "2.5")
    if isinstance(until, bool) or not isinstance(until, (int, float)) or not _math.isfinite(until):
        raise ScenarioError("--until", f"{until!r} is not a time")
    if isinstance(until, int):
        return str(until)
    # Fixed-point with picosecond resolution: the core's parser need not know exponents.
    return f"{until:.12f}".rstrip("0").rstrip(".")


def _meant(name: Any, known: Iterable[str]) -> str:
    """": did you mean 'x'?" for the one known name close to `name` (as the core says it for
    a scenario's fields), else ""."""
    import difflib

    near = difflib.get_close_matches(str(name).lower(), list(known), n=2, cutoff=0.75)
    return f": did you mean {near[0]!r}?" if len(near) == 1 or (near and near[0] == str(name).lower()) else ""


def _trace_option(trace: str | Iterable[str]) -> list[str]:
    names = [trace] if isinstance(trace, str) else list(trace)
    out: list[str] = []
    for t in names:
        if t not in TRACES:
            raise ScenarioError("--trace", f"{t!r} is not a trace{_meant(t, TRACES)} (try {', '.join(TRACES)})")
        if t not in out:
            out.append(t)
    return out


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------

def validate(scenario: Any) -> dict:
    """Check a scenario without running it and return it as tcplab understands it.

    The result has every default filled in (each TCP flow's full set of ns-2 knobs, queue
    parameters), node references as ids (positions in ``nodes``), times in seconds (``*_s``),
    rates in bit/s and sizes in bytes. Raises :class:`ScenarioError` naming the first
    offending field.
    """
    inp = _scenario_input(scenario)
    core = _load_core()
    with _Translate(core, inp):
        return _json.loads(core.normalize(inp.text, inp.format, inp.source))


def estimate(scenario: Any, *, until: str | float | None = None, trace: str | Iterable[str] = (),
             out: str | os.PathLike | None = None) -> dict:
    """Estimate what running a scenario will cost, without running it.

    Returns a dict: ``estimate`` (``events``, ``data_packets``, ``acks``, ``link_hops``,
    ``radio_hops``, and ``memory`` and ``disk`` as parts ``{what, field, bytes}``, largest
    first), ``machine`` (bytes of ``memory`` available and of ``disk`` free at ``out``, None
    where unknown) and ``refused``: None, or the ``[field, message]`` :func:`run` would raise.

    The estimate shares each link max-min fairly among the flows active together, each asking
    its window per round trip. It errs on the high side, most of all over 802.11.
    """
    inp = _scenario_input(scenario)
    core = _load_core()
    with _Translate(core, inp):
        out_dir = None if out is None else _os.fspath(out)
        return _json.loads(core.estimate(inp.text, inp.format, _until_option(until), out_dir, _trace_option(trace), inp.source))


def emulate(scenario: Any, *, duration: str | float | None = None, command: str | None = None,
            out: str | os.PathLike | None = None, trace: str | Iterable[str] = (), seed: int | None = None,
            realtime: bool = True) -> dict:
    """Run a scenario as an emulation: each of its ``[[hosts]]`` is a real Linux network
    namespace (``tl-NAME``) joined to its node by a veth pair, and the scenario's network runs
    in real time between them. Needs root. It runs until ``duration`` (default the scenario's),
    until ``command`` (a shell command run in the root namespace once the hosts are up, with
    ``TCPLAB_NS_<HOST>`` naming each host's namespace) exits, or until SIGINT/SIGTERM; the
    namespaces, veth pairs and processes it created are removed before it returns. Commands
    also see ``TCPLAB_EMU_T0`` (the run's time 0 on CLOCK_MONOTONIC) and ``TCPLAB_PYTHON``
    (this interpreter, for ``$TCPLAB_PYTHON -m tcplab.realtcp``). With ``realtime`` (the
    default) the network runs at real-time priority (SCHED_FIFO), ahead of the machine's other
    work; the commands it starts run at the normal priority.

    Returns a dict: ``emulation`` (``lateness``: ``events``, ``max_ms``, ``p99_ms``,
    ``late_over_1ms``; ``faithful``; ``realtime``, whether the priority was granted; per-host frame counts; ``ended_by``; ``command_exit``) and
    ``result`` (the simulation's summary, as :func:`run` has it). Raises OSError with one line
    when it cannot run here (not root, ``ip`` or ``ethtool`` missing).
    """
    inp = _scenario_input(scenario)
    core = _load_core()
    with _Translate(core, inp):
        out_dir = None if out is None else _os.fspath(out)
        if out_dir is not None:
            _make_out_dir(out_dir)
        import sys as _sys

        if _sys.executable:
            _os.environ.setdefault("TCPLAB_PYTHON", _sys.executable)
        raw = core.emulate(inp.text, inp.format, _until_option(duration), command, out_dir, _trace_option(trace),
                           inp.source, _seed_option(seed), realtime)
    return _json.loads(raw)


def run(
    scenario: Any,
    *,
    seed: int | None = None,
    until: str | float | None = None,
    out: str | os.PathLike | None = None,
    trace: str | Iterable[str] = (),
    progress: Callable[[float, float], Any] | None = None,
    series_format: str = "parquet",
    check: bool | None = None,
    limits: bool = True,
    timeout: float | None = None,
    max_events: int | None = None,
) -> "Result":
    """Run a scenario and return its :class:`Result`.

    scenario: path of a .toml/.json file, TOML text, or a dict with the same structure.
    seed:     overrides the scenario's ``seed``.
    until:    stop at this simulated time instead of the scenario's ``duration`` ("5s", 2.5, ...).
    out:      directory for the trace files, summary.json, scenario.json (the scenario as run,
              every default filled in) and the series' files (created if needed).
    trace:    extra writers on top of the scenario's ``output.trace``: "ns2", "cwnd", "pcap", "nam", "rtt".
    progress: called as ``progress(now, end)`` (simulated seconds) between chunks of work.
    series_format: "parquet" (the default) or "csv", for the series' files in ``out``.
    check:    check the run's invariants as it goes, and raise :class:`InvariantError` if any
              broke (default: on when the environment sets TCPLAB_CHECK=1, as the tests do).
    limits:   refuse, with a :class:`ScenarioError` that says why, a run estimated far beyond
              this machine (see :func:`estimate`); False runs it anyway.
    timeout:  stop the run, with a :class:`ScenarioError`, once it has taken more than this many
              seconds of wall time (checked between chunks of work; a sweep's ``run_timeout``).
    max_events: stop the run, with a :class:`ScenarioError` at ``max_events``, once it needs more
              than this many events: a budget that, unlike wall time, stops a run at the same
              point on every machine (limits or not). Whatever this says, a run is stopped past
              100 times its estimated events, or when its simulated time stands still, unless
              ``limits`` is False.
    """
    inp = _scenario_input(scenario)
    max_events = _events_option(max_events, "max_events")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < _math.inf):
        raise ScenarioError("run_timeout", f"{timeout!r} is not a number of seconds")
    seed = _seed_option(seed)
    until = _until_option(until)
    traces = _trace_option(trace)
    if series_format not in SERIES_FORMATS:
        raise ScenarioError("--series", f"{series_format!r} is not a series format (try {' or '.join(SERIES_FORMATS)})")
    out_dir = None
    created: list[str] = []  # directories made here, removed again if the run cannot start
    if out is not None:
        out_dir = _os.fspath(out)
        d = _os.path.abspath(out_dir)
        while not _os.path.exists(d):
            created.append(d)
            d = _os.path.dirname(d)
        _make_out_dir(out_dir)

    core = _load_core()
    with _Translate(core, inp), _holding(out_dir, "--out"):
        try:
            try:
                if check is None:
                    check = _os.environ.get("TCPLAB_CHECK") == "1"
                with _replacing(out_dir):
                    sim = core.Simulation(inp.text, inp.format, seed, until, out_dir, traces, inp.source, check, limits,
                                          max_events)
            except BaseException:
                for d in created:  # innermost first; rmdir leaves anything non-empty alone
                    try:
                        _os.rmdir(d)
                    except OSError:
                        break
                raise
            raw = _drive(sim, progress, timeout=timeout)
        except OSError as e:
            # The core could not write its outputs (read-only directory, disk full): a
            # problem of the user's environment, not a bug.
            raise ScenarioError("--out", f"cannot write the outputs: {e}") from None
        raw = _json.loads(raw)
        if (raw.get("check") or {}).get("violations"):
            raise InvariantError(raw["summary"]["name"], raw["check"]["violations"], raw["check"]["first"])
        result = Result(raw, out_dir=out_dir)
        if out_dir is not None:  # still held: the folder is this run's until its last file
            normalized = _json.loads(core.normalize(inp.text, inp.format, inp.source))
            as_run = _Path(out_dir, "scenario.json")  # the scenario as run, for `tcplab plot` and `tcplab report`
            try:
                result.save(out_dir, series_format)
                as_run.write_text(_json.dumps(normalized, indent=2) + "\n", encoding="utf-8")
            except OSError as e:  # save names the file it failed on
                why = _os.strerror(e.errno) if e.errno else e
                raise ScenarioError("--out", f"cannot write {e.filename or as_run}: {why}") from None
    return result


def _events_option(n: Any, path: str) -> int | None:
    """A count of events (``max_events``): a whole number from 1, or None for no budget."""
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n < 2**64:
        raise ScenarioError(path, f"{n!r} is not a number of events (a whole number from 1)")
    return n


def _drive(sim, progress, clock: Callable[[], float] = _time.perf_counter, timeout: float | None = None) -> str:
    """Advance ``sim`` to its end in chunks of about _CHUNK_WALL_S wall time, and of at most
    _CHUNK_EVENTS events, each; past ``timeout`` seconds of wall time, stop with a ScenarioError."""
    end = sim.end
    started = clock() if timeout is not None else None  # read only then: a test's clock pairs its reads
    # Start small and adapt: simulation speed depends on the scenario by orders of magnitude.
    step = end / 1000 if end > 0 else 0.0
    min_step = end * 1e-9
    if progress is not None:
        progress(sim.now, end)
    while sim.now < end:
        target = min(sim.now + step, end)
        t0 = clock()
        reached = sim.advance(target, _CHUNK_EVENTS)
        spent = clock() - t0
        if progress is not None:
            progress(sim.now, end)
        if timeout is not None and clock() - started > timeout:
            raise ScenarioError("run_timeout", f"the run took longer than {timeout:g} s of wall time and was stopped "
                                f"at simulated time {sim.now:g} s of {end:g} s")
        if not reached:
            continue  # cut short by the events' count: the same stretch goes on
        if target >= end:
            break  # finish() takes care of anything float rounding left over
        if spent < _CHUNK_WALL_S / 2:
            step *= 2
        elif spent > _CHUNK_WALL_S * 2:
            step = max(step / 2, min_step)
    raw = sim.finish()
    if progress is not None:
        progress(end, end)
    return raw


_FLOW_COLUMNS = [
    "name", "protocol", "profile", "from", "to", "goodput_bps", "throughput_bps", "delay_mean_s",
    "delay_p50_s", "delay_p95_s", "delay_p99_s", "delay_max_s", "rtt_mean_s", "packets_sent",
    "packets_delivered", "packets_dropped", "packets_retransmitted", "packets_in_flight",
    "efficiency", "acks_sent",
]
# The parts of a handover's disruption, in order (docs/mobility.md).
_HANDOVER_PARTS = ["part_until_link_lost_s", "part_l2_handoff_s", "part_movement_detection_s", "part_dad_s",
                   "part_binding_s", "part_resumption_s"]
_RADIO_COLUMNS = [
    "wlan", "node", "rts", "cts", "data", "acks", "retries", "retry_drops", "queue_drops",
    "collisions",
]
_LINK_COLUMNS = [
    "name", "from", "to", "arrivals", "departures", "drops", "queue_mean_pkts",
    "queue_max_pkts", "utilization",
]


def _frame(rows: list, columns: list[str]):
    import pandas as pd  # imported lazily: it is slow to import and the CLI rarely needs it

    if not rows:
        return pd.DataFrame(columns=columns)
    return pd.DataFrame.from_records(rows)  # keeps the core's column order


class Result:
    """The outcome of :func:`run`.

    summary       the summary dict, as the core produced it (what summary.json holds)
    flows, links  pandas DataFrames with one row per flow / per link direction
    series        dict of DataFrames for the time series: "cwnd" (with the cwnd trace), "flows"
                  and "links" (per-interval goodput and queue length) and "tcp" (each TCP
                  sender's cwnd, ssthresh, srtt, in-flight and pacing rate), with `output.interval`;
                  "rtt" (every RTT sample, with the rtt trace)
    jain_fairness Jain's fairness index over the flows' goodput
    """

    def __init__(self, raw: dict, out_dir: str | None = None):
        self.summary: dict = raw["summary"]
        self._series_raw: dict = raw.get("series") or {}
        self.events: int | None = raw.get("events")  # events the core dispatched
        self.out_dir = out_dir

    @property
    def name(self) -> str:
        return self.summary["name"]

    @property
    def jain_fairness(self) -> float | None:
        return self.summary.get("jain_fairness")

    @property
    def flows(self):
        return _frame(self.summary.get("flows", []), _FLOW_COLUMNS)

    @property
    def links(self):
        return _frame(self.summary.get("links", []), _LINK_COLUMNS)

    @property
    def handovers(self):
        """One row per handover and flow towards its mobile node: the timeline (absolute times)
        and the flow's disruption, its parts, packets lost and recovery time (docs/mobility.md)."""
        import pandas as pd

        rows = []
        for h in self.summary.get("handovers", []):
            base = {k: v for k, v in h.items() if k != "flows"}
            for f in h.get("flows") or [{}]:
                row = {**base, **{k: v for k, v in f.items() if k != "parts_s"}}
                for name, value in zip(_HANDOVER_PARTS, f.get("parts_s") or [None] * 6):
                    row[name] = value
                rows.append(row)
        return pd.DataFrame(rows)

    @property
    def radios(self):
        """The MAC counters of every radio of the wireless LANs (an empty frame without any)."""
        return _frame(self.summary.get("radios", []), _RADIO_COLUMNS)

    @property
    def series(self) -> dict:
        import pandas as pd

        return {k: pd.DataFrame(v) for k, v in self._series_raw.items()}

    def summary_json(self) -> str:
        # The core emits keys in a fixed order and json round-trips floats exactly, so this
        # is byte-identical for equal runs.
        return _json.dumps(self.summary, indent=2, sort_keys=False) + "\n"

    def save(self, directory: str | os.PathLike, series_format: str = "parquet") -> Path:
        """Write summary.json into ``directory`` (created if needed), and each series as
        series-NAME.parquet (or .csv with ``series_format="csv"``): flows, links and tcp with
        `output.interval`, cwnd and rtt with those traces. Returns summary.json's path; an
        OSError's ``filename`` is the file it failed on."""
        d = _Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        p = path = d / "summary.json"
        try:
            p.write_text(self.summary_json(), encoding="utf-8")
            for name in ("flows", "links", "tcp", "cwnd", "rtt"):
                if name in self._series_raw:
                    frame, path = self.series[name], d / f"series-{name}.{series_format}"
                    if series_format == "csv":
                        frame.to_csv(path, index=False)
                    else:
                        frame.to_parquet(path, index=False)
        except OSError as e:
            e.filename = str(path)  # a failed write (a full disk) or pyarrow's open does not say
            raise
        return p

    def plot(self, what: str | Iterable[str] | None = None, *, figsize: tuple[float, float] | None = None):
        """A matplotlib Figure of the run's series, one panel each, a flow in one colour across
        them: "cwnd" (cwnd, and ssthresh dashed, per TCP flow: every change with the cwnd trace,
        else sampled at `output.interval`), "goodput" (Mb/s per interval, per flow) and "queue"
        (packets queued, per link direction that queued any), the last two with
        `output.interval`. ``what`` names the panels (default: every one the run has). In a
        notebook the returned Figure shows as the cell's value; ``fig.savefig("run.png")``
        writes it. Needs matplotlib (``pip install matplotlib``)."""
        from matplotlib.figure import Figure  # not pyplot: no global figure, so a notebook shows it once

        series = self._series_raw
        panels = {
            "cwnd": "cwnd" if "cwnd" in series else "tcp" if "tcp" in series else None,
            "goodput": "flows" if "flows" in series else None,
            "queue": "links" if "links" in series else None,
        }
        wanted = [n for n, s in panels.items() if s] if what is None else [what] if isinstance(what, str) else list(what)
        for n in wanted:
            if n not in panels:
                raise ValueError(f"{n!r} is not a panel of Result.plot (one of {', '.join(panels)})")
            if panels[n] is None:
                need = "the cwnd trace (trace=['cwnd']) or output.interval" if n == "cwnd" else "output.interval"
                raise ValueError(f"this run has no {n} series to plot: it needs {need} (e.g. "
                                 "tcplab.run(scenario, trace=['cwnd']), or the scenario's output = {interval = '100ms'})")
        if not wanted:
            raise ValueError("this run has no series to plot: run it with trace=['cwnd'], or set output.interval in "
                             "the scenario (output = {interval = '100ms'}) for cwnd, goodput and queue samples")
        fig = Figure(figsize=figsize or (8, 2.6 * len(wanted) + 0.6), layout="constrained")
        axes = fig.subplots(len(wanted), 1, sharex=True, squeeze=False)[:, 0]
        colours: dict[str, str] = {}  # flow -> its colour, the same in every panel

        def colour(flow: str) -> str:
            return colours.setdefault(flow, f"C{len(colours) % 10}")

        frames = self.series
        for ax, n in zip(axes, wanted):
            frame = frames[panels[n]]
            if n == "cwnd":
                step = {"drawstyle": "steps-post"} if panels[n] == "cwnd" else {}  # every change: a step
                for flow, rows in frame.groupby("flow", sort=False):
                    ax.plot(rows["time"], rows["cwnd"], color=colour(flow), label=f"{flow} cwnd", **step)
                    ax.plot(rows["time"], rows["ssthresh"], color=colour(flow), linestyle="--", alpha=0.6,
                            label=f"{flow} ssthresh", **step)
                top = frame["cwnd"].max() if not frame.empty else 0
                ax.set_ylim(0, top * 1.3 if top > 0 else 1)  # ssthresh starts out near infinite
                ax.set_ylabel("cwnd (segments)")
            elif n == "goodput":
                for flow, rows in frame.groupby("flow", sort=False):
                    # a sample covers the interval that ends at its time
                    ax.plot(rows["time"], rows["goodput_bps"] / 1e6, color=colour(flow), label=flow, drawstyle="steps-pre")
                ax.set_ylabel("goodput (Mb/s)")
            else:
                queued = frame.groupby("link", sort=False)["queue_pkts"].max()
                for link in queued[queued > 0].index:
                    rows = frame[frame["link"] == link]
                    ax.plot(rows["time"], rows["queue_pkts"], label=link)
                ax.set_ylabel("queue (packets)")
            if ax.lines:
                ax.legend(fontsize=8, ncol=2, loc="upper right")
            ax.grid(alpha=0.3)
        axes[-1].set_xlabel("time (s)")
        fig.suptitle(str(self.name))
        return fig

    def __repr__(self) -> str:
        return (
            f"<tcplab.Result {self.name!r}: {len(self.summary.get('flows', []))} flows, "
            f"jain_fairness={self.jain_fairness}>"
        )

    def _repr_html_(self) -> str:
        """Jupyter shows a result as its flow and link tables."""
        import html
        jain = "n/a" if self.jain_fairness is None else f"{self.jain_fairness:.4f}"
        title = f"<b>{html.escape(str(self.name))}</b>: Jain's fairness {jain}"
        return f"{title}<br>{self.flows.to_html(index=False)}<br>{self.links.to_html(index=False)}"
