"""tcplab from a notebook or a plain script (issue 37): tcplab.sweep from `import tcplab`,
sweeps of scenario dicts and grids, scripts without a `__main__` guard, failures that reach the
caller, exact t quantiles, figures, and a clean `dir(tcplab)`."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
from support import REPO

import tcplab
from tcplab import ScenarioError
from tcplab import sweep as sw

DUMBBELL = REPO / "python" / "tests" / "data" / "dumbbell.toml"
PYTHON = REPO / ".venv" / "bin" / "python"


def dumbbell(duration: str = "2s") -> dict:
    doc = sw.tomllib.loads(DUMBBELL.read_text())
    doc["duration"] = duration
    return doc


def fresh(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`code` run by a new interpreter (nothing of tcplab imported yet), as a user's would."""
    python = PYTHON if PYTHON.exists() else Path(sys.executable)
    return subprocess.run([str(python), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


# --------------------------------------------------------------------------------------
# The module
# --------------------------------------------------------------------------------------

def test_sweep_is_there_after_import_tcplab_alone():
    done = fresh("import tcplab; print(tcplab.sweep.run.__module__, 'sweep' in dir(tcplab))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tcplab.sweep", "True"]


def test_dir_shows_the_public_api_only():
    done = fresh("import tcplab, json; print(json.dumps([dir(tcplab), tcplab.__all__]))")
    assert done.returncode == 0, done.stderr
    shown, public = json.loads(done.stdout)
    for stray in ("json", "os", "re", "time", "math", "Path", "Any", "Callable", "Mapping", "NamedTuple", "contextlib"):
        assert stray not in shown, stray
    assert [n for n in shown if not n.startswith("__")] == sorted(n for n in public if not n.startswith("__"))
    assert {"run", "validate", "estimate", "sweep", "Result", "ScenarioError", "InternalError"} <= set(shown)
    # everything listed is there (sweep and __version__ through the module's __getattr__)
    done = fresh("from tcplab import *; print(sweep.__name__, isinstance(__version__, str), Result.__name__)")
    assert done.returncode == 0 and done.stdout.split() == ["tcplab.sweep", "True", "Result"], done.stderr


def test_the_package_says_it_is_typed():
    assert (Path(tcplab.__file__).parent / "py.typed").is_file()
    # maturin packs every file of python/tcplab unless told not to: nothing in pyproject excludes it
    assert "exclude" not in (REPO / "pyproject.toml").read_text().split("[tool.maturin]")[1].split("\n[")[0]


# --------------------------------------------------------------------------------------
# Student's t
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("df, t", [(1, 12.706204736), (2, 4.302652730), (10, 2.228138852), (30, 2.042272456),
                                   (31, 2.039513446), (100, 1.983971519), (1000, 1.962339081)])
def test_t_quantiles_are_exact(df, t):
    assert sw.t_quantile(0.975, df) == pytest.approx(t, abs=1e-9)
    assert sw.t_quantile(0.025, df) == pytest.approx(-t, abs=1e-9)


@pytest.mark.parametrize("p", [0.55, 0.75, 0.9, 0.975, 0.995, 0.9999])
def test_t_quantiles_match_the_closed_forms_of_one_and_two_degrees(p):
    assert sw.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-11)
    assert sw.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-11)


def test_t_quantiles_fall_towards_the_normals_without_a_step():
    z = sw.t_quantile(0.975, math.inf)
    assert z == pytest.approx(1.959963984540054, abs=1e-12)
    ts = [sw.t_quantile(0.975, df) for df in (1, 5, 31, 32, 1e3, 1e4, 99_999, 100_001, 1e6, 1e9)]
    assert all(a > b for a, b in zip(ts, ts[1:])) and ts[-1] - z < 1e-8
    # the bisection below 1e5 degrees and the series above agree where they meet
    assert sw.t_quantile(0.995, 99_999.5) == pytest.approx(sw.t_quantile(0.995, 100_000.5), abs=1e-9)
    assert sw.t_quantile(0.5, 7) == 0.0 and sw.t_quantile(0.975, 3.5) == pytest.approx(2.940088638, abs=1e-8)
    with pytest.raises(ValueError):
        sw.t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        sw.t_quantile(0.9, 0)


def test_a_confidence_interval_of_many_seeds_is_not_the_normals():
    xs = [float(i % 7) for i in range(101)]  # 101 values: t with 100 degrees, not 1.96
    mean, half = sw.confidence_interval(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / 100)
    assert half == pytest.approx(1.983971519 * sd / math.sqrt(101), rel=1e-9)


# --------------------------------------------------------------------------------------
# Sweeps of dicts and grids
# --------------------------------------------------------------------------------------

def test_a_dict_sweep_with_a_list_valued_field_gives_a_tidy_table(tmp_path):
    res = tcplab.sweep.run(dumbbell(), tmp_path / "out", grid={"tcp.window": [8, 16], "output.trace": [[], ["cwnd"]]},
                           seeds=[1, 2], workers=2, progress=False)
    assert len(res.rows) == 8 and not res.failed and res.sweep.name == "dumbbell-sweep"
    table = res.aggregate("goodput_bps")
    assert list(table.columns) == ["case", "tcp.window", "output.trace", "flow", "protocol", "runs", "mean", "ci95",
                                   "min", "max"]
    assert sorted(set(table["output.trace"])) == ["[\"cwnd\"]", "[]"]  # as their JSON text
    assert len(table) == 4 * 3 and set(table["runs"]) == {2} and (table["ci95"] >= 0).all()
    assert (tmp_path / "out" / "results.sqlite").is_file()
    # a table as a grid value too
    res = tcplab.sweep.run(dumbbell(), tmp_path / "tables", grid={"tcp": [{"window": 4}, {"window": 8}]}, progress=False)
    assert sorted(set(res.aggregate()["tcp"])) == ['{"window": 4}', '{"window": 8}']


def test_a_sweep_runs_the_same_serial_or_parallel(tmp_path):
    grid = {"tcp.window": [4, 8, 16]}
    serial = tcplab.sweep.run(dumbbell(), tmp_path / "serial", grid=grid, seeds=2, workers=1, progress=False)
    parallel = tcplab.sweep.run(dumbbell(), tmp_path / "parallel", grid=grid, seeds=2, workers=3, progress=False)
    assert [(r["case"], r["seed"], r["summary"]) for r in serial.rows] == \
        [(r["case"], r["seed"], r["summary"]) for r in parallel.rows]


def test_what_a_sweep_takes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a scenario file, with a grid: named after the scenario, stored under results/<name>-sweep
    # (results/<name> is where `tcplab run` writes the scenario's own run)
    res = tcplab.sweep.run(str(DUMBBELL), grid={"duration": ["2s", "3s"]}, progress=False)
    assert [r.case for r in res.sweep.runs] == ["dumbbell duration=2s", "dumbbell duration=3s"]
    assert (tmp_path / "results" / "dumbbell-sweep" / "results.sqlite").is_file()
    # a list of scenarios, files and dicts: a sweep of their cases; unnamed, "sweep"
    other = {**dumbbell(), "name": "other"}
    res = tcplab.sweep.run([DUMBBELL, other], grid={"duration": ("2s",)}, progress=False)
    assert res.sweep.name == "sweep" and [r.case for r in res.sweep.runs] == ["dumbbell duration=2s", "other duration=2s"]
    # a sweep file: its own cases, with seeds (and a grid) given here over its own
    (tmp_path / "s.toml").write_text(f'name = "file"\nscenarios = ["{DUMBBELL}"]\nseeds = 3\n[grid]\nduration = ["2s"]\n')
    assert len(sw.load(tmp_path / "s.toml").runs) == 3
    res = tcplab.sweep.run(tmp_path / "s.toml", tmp_path / "file", seeds=[5], progress=False)
    assert [(r.case, r.seed) for r in res.sweep.runs] == [("dumbbell duration=2s", 5)]
    # what cannot be
    with pytest.raises(ScenarioError, match="is a sweep, not a scenario") as e:
        tcplab.sweep.run([other, tmp_path / "s.toml"], progress=False)
    assert e.value.path == "scenarios[1]"
    with pytest.raises(TypeError, match="a Sweep's own"):
        tcplab.sweep.run(sw.load(tmp_path / "s.toml"), grid={"duration": ["1s"]}, progress=False)
    with pytest.raises(ScenarioError) as e:
        tcplab.sweep.run(other, grid={"tcp.window": 8}, progress=False)
    assert e.value.path == "grid.tcp.window"
    with pytest.raises(ScenarioError, match="both named 'other'"):
        tcplab.sweep.run([other, {**other, "duration": "3s"}], progress=False)


def test_a_dict_sweeps_errors_name_the_users_field(tmp_path):
    doc = dumbbell()
    del doc["links"][0]["delay"]
    with pytest.raises(ScenarioError) as e:
        tcplab.sweep.run(doc, tmp_path / "out", progress=False)
    assert e.value.path == "links[0].delay" and "is required" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        tcplab.sweep.run(dumbbell(), tmp_path / "out", grid={"links[2].bandwidth": ["2Mb", "fast"]}, progress=False)
    assert e.value.path == "grid.links[2].bandwidth" and "fast" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        tcplab.sweep.run({**dumbbell(), "duration": math.inf}, tmp_path / "out", progress=False)
    assert e.value.path == "duration" and "finite" in e.value.message
    assert not (tmp_path / "out").exists(), "nothing runs, or is stored, before every case is checked"


# --------------------------------------------------------------------------------------
# Failures reach the caller
# --------------------------------------------------------------------------------------

def test_a_sweep_whose_every_run_fails_raises_with_the_workers_error(tmp_path):
    with pytest.raises(sw.SweepError) as e:
        tcplab.sweep.run(dumbbell(), tmp_path / "out", seeds=2, workers=2, max_events=100, progress=False)
    assert e.value.first.startswith("max_events: the run needed more than the 100 events")
    assert str(e.value).startswith("all 2 runs of sweep 'dumbbell-sweep' failed. The first, dumbbell seed 1: max_events:")
    assert len(e.value.result.failed) == 2
    # stored: run again, it raises again, saying so, without running them
    with pytest.raises(sw.SweepError, match=r"failed in an earlier run of the sweep and were not run again "
                                            r"\(retry_failed=True runs them again\)"):
        tcplab.sweep.run(dumbbell(), tmp_path / "out", seeds=2, progress=False)
    res = tcplab.sweep.run(dumbbell(), tmp_path / "out", seeds=2, progress=False, retry_failed=True)
    assert not res.failed and len(res.rows) == 2


def test_stored_failures_are_told_on_each_run_until_retried(tmp_path):
    grid = {"duration": ["2s", "100s"]}
    with pytest.warns(sw.FailedRunsWarning, match=r"^1 of 2 runs of sweep 'dumbbell-sweep' failed\. The first, dumbbell "
                                                  r"duration=100s seed 1: max_events: ") as told:
        res = tcplab.sweep.run(dumbbell(), tmp_path / "out", grid=grid, max_events=20000, progress=False)
    assert told[0].filename == __file__, "the warning points at the caller's line"
    assert len(res.failed) == 1 and len(res.aggregate()) == 3  # the 1 s run's flows
    with pytest.warns(sw.FailedRunsWarning, match=r"1 of 2 runs .* failed; all of them failed in an earlier run of "
                                                  r"the sweep and were not run again \(retry_failed=True"):
        tcplab.sweep.run(dumbbell(), tmp_path / "out", grid=grid, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = tcplab.sweep.run(dumbbell(), tmp_path / "out", grid=grid, retry_failed=True, progress=False)
        assert not again.failed
        # "keep" says nothing: its caller reads .failed (as the command line and the studies do)
        kept = tcplab.sweep.run(dumbbell(), tmp_path / "kept", grid=grid, max_events=20000, progress=False,
                                on_failure="keep")
        assert len(kept.failed) == 1
        assert len(sw.run(kept.sweep, tmp_path / "kept", progress=False, on_failure="keep").failed) == 1
    # a Sweep object is told of its failures as any other input is
    with pytest.warns(sw.FailedRunsWarning, match="1 of 2 runs"):
        sw.run(kept.sweep, tmp_path / "kept", progress=False)
    with pytest.warns(sw.FailedRunsWarning, match="all 1 runs"):  # "warn": never raises
        tcplab.sweep.run(dumbbell(), tmp_path / "w", grid={"duration": ["100s"]}, max_events=20000, progress=False,
                         on_failure="warn")
    with pytest.raises(ValueError, match="on_failure"):
        tcplab.sweep.run(dumbbell(), tmp_path / "w", on_failure="ignore")


SCRIPT = """\
import sys
import tcplab
import tomllib

doc = tomllib.loads(open({dumbbell!r}).read())
doc["duration"] = "2s"
# no `if __name__ == "__main__":` guard: the workers must not run this script again
res = tcplab.sweep.run(doc, "out", grid={{"tcp.window": [8, 16], "output.trace": [[], ["cwnd"]]}}, seeds=2,
                       workers=2, progress=False{extra})
table = res.aggregate()
print("ROWS", len(res.rows), len(res.failed), len(table), sorted(set(table["output.trace"])))
"""


def run_script(tmp_path: Path, extra: str = "") -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.format(dumbbell=str(DUMBBELL), extra=extra))
    python = PYTHON if PYTHON.exists() else Path(sys.executable)
    return subprocess.run([str(python), str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_a_script_without_a_main_guard_sweeps_in_parallel(tmp_path):
    done = run_script(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ROWS") == 1, "the script ran once: its workers did not import it"
    assert 'ROWS 8 0 12 [\'["cwnd"]\', \'[]\']' in done.stdout, done.stdout
    # what the workers stored is what a serial sweep of the same cases makes
    serial = tcplab.sweep.run(dumbbell(), tmp_path / "serial", grid={"tcp.window": [8, 16], "output.trace": [[], ["cwnd"]]},
                              seeds=2, workers=1, progress=False)
    stored = sw.Store(tmp_path / "out" / "results.sqlite")
    try:
        assert {r["key"]: r["summary"] for r in stored.rows()} == {r["key"]: r["summary"] for r in serial.rows}
    finally:
        stored.close()


def test_a_script_without_a_main_guard_whose_runs_fail_exits_with_their_error(tmp_path):
    done = run_script(tmp_path, extra=", max_events=100")
    assert done.returncode != 0 and "ROWS" not in done.stdout
    assert "SweepError: all 8 runs of sweep 'dumbbell-sweep' failed." in done.stderr, done.stderr
    assert "max_events: the run needed more than the 100 events" in done.stderr
    assert "died" not in done.stderr, "the workers ran the runs, and did not die starting"


def test_a_worker_must_be_importable_without_the_callers_script():
    from tcplab import _worker

    def local(conn):
        pass

    with pytest.raises(ValueError, match="importable module"):
        _worker.start(local)


# --------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------

def test_a_results_plot_is_a_figure_of_its_series():
    pytest.importorskip("matplotlib")
    doc = {**dumbbell("3s"), "output": {"interval": "100ms"}}
    fig = tcplab.run(doc, trace=["cwnd"]).plot()
    assert [ax.get_ylabel() for ax in fig.axes] == ["cwnd (segments)", "goodput (Mb/s)", "queue (packets)"]
    cwnd, goodput, _ = fig.axes
    assert [ln.get_label() for ln in cwnd.lines] == ["A cwnd", "A ssthresh", "B cwnd", "B ssthresh"]
    assert [ln.get_label() for ln in goodput.lines] == ["A", "B", "C"]
    # one colour per flow, across its lines and panels
    assert cwnd.lines[0].get_color() == cwnd.lines[1].get_color() == goodput.lines[0].get_color()
    assert cwnd.lines[2].get_color() == goodput.lines[1].get_color() != goodput.lines[0].get_color()
    png = io.BytesIO()
    fig.savefig(png, format="png")  # without pyplot, on Agg
    assert png.getvalue().startswith(b"\x89PNG")
    only = tcplab.run(dumbbell(), trace=["cwnd"]).plot()
    assert [ax.get_ylabel() for ax in only.axes] == ["cwnd (segments)"]
    with pytest.raises(ValueError, match="output.interval"):
        tcplab.run(dumbbell(), trace=["cwnd"]).plot("goodput")
    with pytest.raises(ValueError, match="no series to plot"):
        tcplab.run(dumbbell()).plot()


def test_a_sweeps_plot_draws_the_mean_and_its_interval_against_a_field(tmp_path):
    pytest.importorskip("matplotlib")
    res = tcplab.sweep.run(dumbbell(), tmp_path / "out", grid={"tcp.window": [4, 16], "links[2].delay": ["10ms", "40ms"]},
                           seeds=2, progress=False)
    fig = res.plot("tcp.window", flows=["A", "B"])
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["dumbbell links[2].delay=10ms A (reno)", "dumbbell links[2].delay=10ms B (newreno)",
                      "dumbbell links[2].delay=40ms A (reno)", "dumbbell links[2].delay=40ms B (newreno)"]
    assert ax.get_xlabel() == "tcp.window" and ax.get_ylabel() == "goodput_bps (Mb/s), mean and 95% CI"
    table = res.aggregate()
    want = table[(table["flow"] == "A") & (table["links[2].delay"] == "10ms")]["mean"] / 1e6
    (line, *_), = [c.lines for c in ax.containers[:1]]
    assert list(line.get_xdata()) == [4, 16] and list(line.get_ydata()) == pytest.approx(list(want))
    # a field of text: its values in the sweep's order
    ax = res.plot("links[2].delay", "delay_mean_s").axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["10ms", "40ms"] and len(ax.containers) == 2 * 3
    with pytest.raises(ValueError, match="not a field the sweep varies"):
        res.plot("tcp.windw")
    with pytest.raises(ScenarioError):
        res.plot("tcp.window", "goodput")
