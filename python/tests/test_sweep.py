"""Sweeps: reading sweep files, running them serially, in local processes and on Dask, and
resuming after a crash with exactly one stored result per run."""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import REPO, FakeTTY, _free_port, dask_cluster, needs_dask, worker_hung_by_seed_2, worker_killed_by_seed_2

import tcplab
from tcplab import ScenarioError, cli
from tcplab import sweep as sw

LOSSY = REPO / "scenarios" / "yew2011-wired"


def write_sweep(tmp_path: Path, seeds: int = 2, duration: str = "10s", extra: str = "") -> Path:
    p = tmp_path / "sweep.toml"
    p.write_text(
        f'name = "t"\nscenarios = ["{LOSSY}/lossy-reno.toml", "{LOSSY}/lossy-vegas.toml"]\nseeds = {seeds}\n'
        f'[grid]\n"links[2].queue_limit" = [6, 10]\n"duration" = ["{duration}"]\n{extra}'
    )
    return p


def summaries(result: sw.SweepResult) -> dict:
    return {(r["case"], r["seed"]): r["summary"] for r in result.rows}


def test_set_field_walks_tables_and_lists():
    doc = {"links": [{"delay": "1ms"}, {"delay": "2ms"}]}
    sw.set_field(doc, "links[1].delay", "5ms")
    sw.set_field(doc, "tcp.window", 30)
    assert doc == {"links": [{"delay": "1ms"}, {"delay": "5ms"}], "tcp": {"window": 30}}
    with pytest.raises(ScenarioError, match="no item"):
        sw.set_field(doc, "links[5].delay", "1ms")
    with pytest.raises(ScenarioError, match="not a field path"):
        sw.set_field(doc, "[0]", 1)
    sw.set_field(doc, "links[*].queue_limit", 9)
    assert [link["queue_limit"] for link in doc["links"]] == [9, 9]
    with pytest.raises(ScenarioError, match="no item"):
        sw.set_field(doc, "tcp[*].x", 1)
    with pytest.raises(ScenarioError, match="no items"):
        sw.set_field({"flows": []}, "flows[*].packet_size", 1)


@pytest.mark.parametrize("text, path", [
    ('scenarios = ["x.toml"]', "scenarios[0]"),
    ('scenarios = [""]', "scenarios[0]"),  # the sweep's own folder: not a file
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = 0', "seeds"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nsurprise = 1', "surprise"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"links[9].delay" = ["1ms"]', "grid.links[9].delay"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"links[2].bandwidth" = ["fast"]', "grid.links[2].bandwidth"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"duration, tcp.window" = [["1s", 4], ["2s"]]', "grid.duration, tcp.window"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = 1000000000000', "seeds"),  # not a list in memory
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = [2, 2147483647]', "seeds"),  # beyond ns-2's generator
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"links[0]..delay" = ["1ms"]', "grid.links[0]..delay"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"duration, duration" = [["1s", "2s"]]', "grid.duration, duration"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"tcp.window" = [4]\n"duration, tcp.window" = [["1s", 4]]',
     "grid.duration, tcp.window"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nrun_timeout = "soon"', "run_timeout"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nrun_timeout = 0', "run_timeout"),
    # the same run twice would count as two independent runs in the statistics (issue 35 item 8)
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = [1, 1, 1, 1, 3]', "seeds"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"links[2].queue_limit" = [6, 10, 6]', "grid.links[2].queue_limit"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"duration, tcp.window" = [["1s", 4], ["1s", 4]]',
     "grid.duration, tcp.window"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"tcp" = [{{window = 4}}, {{window = 4}}]', "grid.tcp"),
    (f'[[parts]]\nscenarios = ["{LOSSY}/lossy-reno.toml"]\ngrid = {{ duration = ["2s"] }}\n'
     f'[[parts]]\nscenarios = ["{LOSSY}/lossy-*.toml"]\ngrid = {{ duration = ["2s"] }}', "parts[1]"),
    # a grid's "name" over two scenarios would merge them into one case (issue 35 item 9)
    (f'scenarios = ["{LOSSY}/lossy-reno.toml", "{LOSSY}/lossy-vegas.toml"]\n[grid]\nname = ["X"]', "grid.name"),
    (f'scenarios = ["{LOSSY}/lossy-reno.toml", "{LOSSY}/lossy-vegas.toml"]\n[grid]\n"name, duration" = [["X", "1s"]]',
     "grid.name"),
])
def test_a_bad_sweep_names_the_field(tmp_path, text, path):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ScenarioError) as e:
        sw.load(p)
    assert e.value.path == path


def test_duplicates_are_refused_with_what_repeats(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = [1, 1, 1, 1, 3]')
    with pytest.raises(ScenarioError, match="lists seed 1 more than once"):
        sw.load(p)
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml", "{LOSSY}/lossy-vegas.toml"]\n[grid]\nname = ["X"]')
    with pytest.raises(ScenarioError, match="lossy-reno.toml and .*lossy-vegas.toml are both named 'X'"):
        sw.load(p)
    # one scenario renamed by the grid is one case per name: that stays
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\nname = ["X", "Y"]')
    assert [r.case for r in sw.load(p).runs] == ["X name=X", "Y name=Y"]


def test_grid_errors_are_in_the_sweep_files_terms(tmp_path):
    """A grid value the scenario refuses is named by its grid field, with the scenario file and
    the case; no place in tcplab's internal JSON text (issue 35 item 12)."""
    p = tmp_path / "s.toml"
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"tcp.window" = [4, "x"]')
    with pytest.raises(ScenarioError) as e:
        sw.load(p)
    assert e.value.path == "grid.tcp.window"
    assert e.value.message.startswith("lossy-reno.toml: lossy-reno tcp.window=x: ") and "column" not in e.value.message
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"flows[*].protocol" = [{{a = 1}}]')
    with pytest.raises(ScenarioError) as e:
        sw.load(p)
    assert e.value.path == "grid.flows[*].protocol" and "column" not in e.value.message


def test_progress_may_be_a_function_told_of_each_run(tmp_path):
    told = []
    res = sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), tmp_path / "out", workers=2,
                 progress=lambda done, total: told.append((done, total)))
    assert not res.failed and told == [(1, 4), (2, 4), (3, 4), (4, 4)]
    told.clear()
    sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), tmp_path / "out", progress=lambda d, t: told.append((d, t)))
    assert told == [], "stored runs are not run again"


def test_json_scenarios_are_taken_as_tcplab_run_takes_them(tmp_path):
    doc = sw.tomllib.loads((LOSSY / "lossy-reno.toml").read_text())
    (tmp_path / "reno.json").write_text(json.dumps(doc))
    (tmp_path / "s.toml").write_text('scenarios = ["reno.json"]\n[grid]\nduration = ["1s"]')
    res = sw.run(tmp_path / "s.toml", tmp_path / "out", workers=1, progress=False)
    ref = sw.run(sw.build({"scenarios": [str(LOSSY / "lossy-reno.toml")], "grid": {"duration": ["1s"]}}, tmp_path),
                 tmp_path / "ref", workers=1, progress=False)
    assert not res.failed and [r["summary"] for r in res.rows] == [r["summary"] for r in ref.rows]
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "s.toml").write_text('scenarios = ["bad.json"]')
    with pytest.raises(ScenarioError, match="not valid JSON") as e:
        sw.load(tmp_path / "s.toml")
    assert e.value.path == str(tmp_path / "bad.json")


def test_a_grid_value_that_is_a_table_is_a_case_of_its_own(tmp_path):
    """A table (or a list) as a grid value shows as its JSON text in the tables, which group
    by it; before, the sweep ran every run, then failed with `unhashable type: 'dict'`."""
    p = tmp_path / "s.toml"
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = 2\n[grid]\nduration = ["1s"]\n'
                 '"tcp" = [{window = 4}, {window = 8}]\n"output.trace" = [[]]')
    res = sw.run(p, tmp_path / "out", workers=1, progress=False)
    table = res.aggregate()
    assert sorted(set(table["tcp"])) == ['{"window": 4}', '{"window": 8}'] and set(table["runs"]) == {2}
    assert set(table["output.trace"]) == {"[]"}


def test_a_seed_the_scenario_sets_is_named_as_its_own(tmp_path):
    (tmp_path / "a.toml").write_text((LOSSY / "lossy-reno.toml").read_text().replace("seed = 1", "seed = 2147483647"))
    (tmp_path / "s.toml").write_text('scenarios = ["a.toml"]')
    with pytest.raises(ScenarioError) as e:
        sw.load(tmp_path / "s.toml")
    assert e.value.path == "seed"


def test_two_scenarios_of_one_name_are_refused(tmp_path):
    """Their cases would be one: the table would mix their runs."""
    (tmp_path / "alt").mkdir()
    text = (LOSSY / "lossy-reno.toml").read_text()
    (tmp_path / "a.toml").write_text(text)
    (tmp_path / "alt" / "a.toml").write_text(text.replace('bandwidth = "2Mb"', 'bandwidth = "5Mb"'))
    (tmp_path / "s.toml").write_text('scenarios = ["a.toml", "alt/a.toml"]')
    with pytest.raises(ScenarioError) as e:
        sw.load(tmp_path / "s.toml")
    assert e.value.path == "scenarios" and "both named 'lossy-reno'" in e.value.message
    (tmp_path / "s.toml").write_text('scenarios = ["a.toml", "a*.toml"]\nseeds = 2')  # the same file twice is one
    assert [(r.case, r.seed) for r in sw.load(tmp_path / "s.toml").runs] == [("lossy-reno", 1), ("lossy-reno", 2)]


def test_files_that_are_not_text_are_named(tmp_path):
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    p = tmp_path / "sweep.toml"
    p.write_text('scenarios = ["binary.toml"]')
    with pytest.raises(ScenarioError, match="not UTF-8 text") as e:
        sw.load(p)
    assert e.value.path == str(tmp_path / "binary.toml")
    with pytest.raises(ScenarioError, match="is a directory") as e:
        sw.load(tmp_path)
    assert e.value.path == str(tmp_path)


def test_fields_joined_by_commas_vary_together(tmp_path):
    p = tmp_path / "paired.toml"
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n'
                 '"links[2].delay, links[2].queue_limit" = [["10ms", 6], ["40ms", 20]]\n"tcp.window" = [8, 16]\n')
    sweep = sw.load(p)
    assert sweep.fields == ["links[2].delay", "links[2].queue_limit", "tcp.window"]
    points = [(r.params["links[2].delay"], r.params["links[2].queue_limit"], r.params["tcp.window"]) for r in sweep.runs]
    assert points == [("10ms", 6, 8), ("10ms", 6, 16), ("40ms", 20, 8), ("40ms", 20, 16)]
    assert all(r.scenario["links"][2]["queue_limit"] == r.params["links[2].queue_limit"] for r in sweep.runs)


def test_cases_that_set_the_same_scenario_share_a_run_but_keep_their_rows(tmp_path):
    scenario = LOSSY / "lossy-reno.toml"
    own = sw.tomllib.loads(scenario.read_text())["links"][2].get("queue_limit", 50)
    p = tmp_path / "same.toml"
    # the second part sets links[2].queue_limit to the scenario's own value: one run for two cases
    p.write_text(f'seeds = 1\n[[parts]]\nscenarios = ["{scenario}"]\ngrid = {{ duration = ["2s"] }}\n'
                 f'[[parts]]\nscenarios = ["{scenario}"]\ngrid = {{ duration = ["2s"], "links[2].queue_limit" = [{own}] }}\n')
    sweep = sw.load(p)
    assert len(sweep.runs) == 2 and sweep.runs[0].key == sweep.runs[1].key
    res = sw.run(sweep, tmp_path / "out", workers=1, progress=False)
    assert [r["case"] for r in res.rows] == [r.case for r in sweep.runs]
    flows = res.flows
    assert flows["links[2].queue_limit"].isna().sum() == flows["links[2].queue_limit"].notna().sum() > 0


def test_parallel_equals_serial_and_resuming_runs_only_what_is_missing(tmp_path, monkeypatch):
    spec = write_sweep(tmp_path)
    serial = sw.run(spec, tmp_path / "serial", workers=1, progress=False)
    assert len(serial.rows) == 8 and not serial.failed
    parallel = sw.run(spec, tmp_path / "parallel", workers=2, progress=False)
    assert summaries(parallel) == summaries(serial)
    # a second run of the same sweep computes nothing
    calls = []
    real = sw._run_one
    monkeypatch.setattr(sw, "_run_one", lambda s, seed, *rest: calls.append(seed) or real(s, seed, *rest))
    again = sw.run(spec, tmp_path / "serial", workers=1, progress=False)
    assert calls == [] and summaries(again) == summaries(serial)
    # a third seed adds exactly the new runs
    more = sw.run(write_sweep(tmp_path, seeds=3), tmp_path / "serial", workers=1, progress=False)
    assert len(calls) == 4 and len(more.rows) == 12
    table = more.aggregate("goodput_bps")
    assert set(table["runs"]) == {3} and (table["ci95"] >= 0).all()


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    spec = write_sweep(tmp_path)
    real = sw._run_one
    monkeypatch.setattr(sw, "_run_one", lambda s, seed, *rest: (None, "boom", 0.0) if seed == 2 else real(s, seed, *rest))
    with pytest.warns(sw.FailedRunsWarning, match=r"^4 of 8 runs of sweep '[ts]' failed"):
        res = sw.run(spec, tmp_path / "out", workers=1, progress=False)
    assert len(res.failed) == 4 and len(res.rows) == 8
    assert all(r["error"] == "boom" for r in res.failed)
    monkeypatch.setattr(sw, "_run_one", real)
    retried = sw.run(spec, tmp_path / "out", workers=1, progress=False, retry_failed=True)
    assert not retried.failed


def test_a_run_beyond_the_machine_is_recorded_as_refused_and_no_limits_runs_it(tmp_path, monkeypatch):
    # a memory budget of 100 kB: the 100 s runs keep more packet delays than that, the 1 s ones
    # fit (workers inherit the budget from the environment)
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", "100kB")
    spec = tmp_path / "sweep.toml"
    spec.write_text(f'name = "t"\nscenarios = ["{LOSSY}/lossy-reno.toml"]\nseeds = 1\n[grid]\nduration = ["1s", "100s"]\n')
    with pytest.warns(sw.FailedRunsWarning, match=r"^1 of 2 runs of sweep '[ts]' failed"):
        res = sw.run(spec, tmp_path / "out", workers=2, progress=False)
    assert len(res.rows) == 2 and len(res.failed) == 1
    (refused,) = res.failed
    assert refused["params"] == {"duration": "100s"}
    assert refused["error"].startswith("duration: the run would need about") and "--no-limits" in refused["error"]
    # over the limit on purpose, and retried as such
    anyway = sw.run(spec, tmp_path / "out", workers=2, progress=False, retry_failed=True, limits=False)
    assert not anyway.failed and len(anyway.rows) == 2
    # from the command line
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "cli"), "--workers", "1"]) == 1
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "cli"), "--workers", "1", "--retry-failed", "--no-limits"]) == 0


def test_cli_sweep_prints_means_and_writes_csv(tmp_path, capfd):
    assert cli.main(["sweep", str(write_sweep(tmp_path)), "--out", str(tmp_path / "o"), "--workers", "1"]) == 0
    out = capfd.readouterr().out
    assert "ci95" in out and "results:" in out
    assert (tmp_path / "o" / "results.csv").read_text().startswith("case,scenario,seed,")
    assert cli.main(["sweep", str(tmp_path / "missing.toml")]) == 2


def test_an_unknown_metric_is_refused_before_any_run(tmp_path, capfd):
    out = tmp_path / "o"
    assert cli.main(["sweep", str(write_sweep(tmp_path)), "--out", str(out), "--metric", "nosuch"]) == 2
    assert capfd.readouterr().err.startswith("tcplab: error: --metric: 'nosuch' is not a flow metric (one of goodput_bps")
    assert not out.exists()
    res = sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), out, workers=1, progress=False)
    for metric in sw.METRICS:  # each is a number in every flow's row
        assert res.aggregate(metric)["mean"].notna().all(), metric
    with pytest.raises(ScenarioError, match="--metric"):
        res.aggregate("name")


def test_sigkill_at_ten_random_points_keeps_every_stored_result_whole(tmp_path):
    """Killed with SIGKILL ten times at random points (and resumed each time), a sweep's store
    only ever holds complete results, each equal to the uninterrupted sweep's, and one per run."""
    spec = write_sweep(tmp_path, seeds=10, duration="300s")  # runs long beside start-up
    reference = sw.run(spec, tmp_path / "reference", workers=1, progress=False)
    expected = _stored_summaries(tmp_path / "reference" / "results.sqlite")
    out, db = tmp_path / "killed", tmp_path / "killed" / "results.sqlite"
    rng = random.Random(7)
    t0 = time.time()
    assert _sweep_process(spec, tmp_path / "timing", workers=1).wait() == 0
    whole = time.time() - t0  # a whole sweep, start-up included: the kills fall in it
    kills_mid_run, part_done = 0, 0
    for _ in range(10):
        proc = _sweep_process(spec, out, workers=1)
        time.sleep(rng.random() * whole / 2)  # so that a few restarts do not finish it
        running = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills_mid_run += running
        stored = _stored_summaries(db)
        assert all(stored[k] == expected[k] for k in stored), "a stored result differs or is partial"
        part_done += 0 < len(stored) < len(expected)
    assert kills_mid_run >= 3 and part_done >= 1, "kills must land while the sweep runs, part way through"
    resumed = sw.run(spec, out, workers=1, progress=False)
    assert _stored_summaries(db) == expected and summaries(resumed) == summaries(reference)


def _sweep_process(spec, out, workers: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "TCPLAB_PROGRESS": "0"}
    cmd = [sys.executable, "-m", "tcplab", "sweep", str(spec), "--out", str(out), "--workers", str(workers)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_for_rows(proc, db, rows: int, timeout: float = 120) -> int:
    """Waits until the store holds `rows` runs (or the sweep ends); returns how many it holds."""
    deadline, stored = time.time() + timeout, 0
    while time.time() < deadline and proc.poll() is None:
        try:
            with sqlite3.connect(db) as c:
                stored = c.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        except sqlite3.OperationalError:
            stored = 0
        if stored >= rows:
            break
        time.sleep(0.01)
    return stored


def _is_worker(pid: int) -> bool:
    """Whether process `pid` is a sweep's local worker (tcplab._worker marks its command line)."""
    from tcplab._worker import MARK

    try:
        return MARK in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:  # gone meanwhile
        return False


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the workers through /proc")
def test_a_local_worker_that_dies_is_replaced_and_its_runs_redone(tmp_path):
    spec = write_sweep(tmp_path, seeds=6, duration="300s")
    reference = sw.run(spec, tmp_path / "reference", workers=1, progress=False)
    out = tmp_path / "killed"
    proc = _sweep_process(spec, out, workers=2)
    stored = _wait_for_rows(proc, out / "results.sqlite", 2)
    workers = [p for p in _children(proc.pid) if _is_worker(p)]
    assert workers and stored < len(reference.rows), "the sweep must be under way"
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    res = sw.run(spec, out, workers=1, progress=False)  # nothing left to run
    assert not res.failed and summaries(res) == summaries(reference)


def test_a_worker_killed_between_runs_is_replaced_without_costing_a_run(tmp_path):
    """An idle worker that was killed refuses the next run (its pipe is broken): a new worker
    takes the run. Before, the broken pipe ended the whole sweep with status 1."""
    dead_conn, dead = sw._start_worker()
    dead.kill()
    dead.join()
    run = sw.load(write_sweep(tmp_path, seeds=1)).runs[0]
    conn, proc = sw._hand_out(run, sw.RunLimits(True, None, None), [(dead_conn, dead)], lambda: sw._start_worker())
    try:
        assert proc is not dead and proc.is_alive()
        summary, error, _ = conn.recv()
        assert error is None and summary["flows"], "the new worker ran the run"
    finally:
        conn.send(None)
        proc.join(timeout=30)


def test_a_run_that_kills_every_worker_it_meets_fails_alone(tmp_path):
    spec = sw.load(write_sweep(tmp_path, seeds=3))
    store = sw.Store(tmp_path / "out" / "results.sqlite")
    try:
        bar = sw._Progress(len(spec.runs), enabled=False)
        sw._run_local(spec, spec.runs, store, bar, 2, sw.RunLimits(True, None, None), worker=worker_killed_by_seed_2)
        rows = store.rows(r.key for r in spec.runs)
    finally:
        store.close()
    failed = [r for r in rows if r["error"]]
    assert len(rows) == 12 and {r["seed"] for r in failed} == {2} and len(failed) == 4
    assert all(r["error"] == f"its worker process died {sw.WORKER_DEATHS} times (last exit status -9)" for r in failed)
    reference = sw.run(write_sweep(tmp_path, seeds=3), tmp_path / "reference", workers=1, progress=False)
    ok = {(r["case"], r["seed"]): r["summary"] for r in rows if not r["error"]}
    assert ok == {k: v for k, v in summaries(reference).items() if k[1] != 2}


def test_sigterm_stops_a_sweep_keeping_what_it_finished(tmp_path):
    spec = write_sweep(tmp_path, seeds=6, duration="60s")
    out = tmp_path / "terminated"
    proc = _sweep_process(spec, out, workers=2)
    stored = _wait_for_rows(proc, out / "results.sqlite", 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM and "terminated" in err, err
    assert stored >= 2
    with sqlite3.connect(out / "results.sqlite") as c:
        rows = c.execute("SELECT summary, error FROM runs").fetchall()
    assert len(rows) >= stored and all(s and json.loads(s)["flows"] and e is None for s, e in rows)
    resumed = sw.run(spec, out, workers=1, progress=False)
    reference = sw.run(spec, tmp_path / "reference", workers=1, progress=False)
    assert summaries(resumed) == summaries(reference)


def _stored_summaries(db: Path) -> dict[str, str]:
    """Each run's summary exactly as the store holds it (JSON text), by run key. A store killed
    before it made its file or its table holds nothing."""
    if not db.exists():
        return {}
    with sqlite3.connect(db) as c:
        if not c.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone():
            return {}
        return dict(c.execute("SELECT key, summary FROM runs"))


@needs_dask
def test_dask_cluster_gives_the_same_results_and_survives_a_dead_worker(tmp_path):
    spec = write_sweep(tmp_path, seeds=6, duration="100s")
    local = sw.run(spec, tmp_path / "local", workers=2, progress=False)
    with dask_cluster(2) as (address, procs):
        # kill one worker once the sweep is under way; its runs go to the other
        import threading

        stored_at_kill = []

        def kill_later():
            db = tmp_path / "dask" / "results.sqlite"
            count = 0
            for _ in range(20000):
                try:
                    with sqlite3.connect(db) as conn:
                        count = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
                    if count >= 2:
                        break
                except sqlite3.OperationalError:
                    pass
                time.sleep(0.002)
            procs[1].send_signal(signal.SIGKILL)
            stored_at_kill.append(count)

        killer = threading.Thread(target=kill_later)
        killer.start()
        remote = sw.run(spec, tmp_path / "dask", scheduler=address, progress=False)
        killer.join()
        assert procs[1].poll() is not None and stored_at_kill[0] < len(local.rows), "a worker dies mid-sweep"
        assert not remote.failed and len(remote.rows) == len(local.rows)
        assert summaries(remote) == summaries(local)
        # the same bytes three ways: serially, in local processes, on Dask
        serial = sw.run(spec, tmp_path / "serial", workers=1, progress=False)
        stored = [_stored_summaries(tmp_path / d / "results.sqlite") for d in ("serial", "local", "dask")]
        assert stored[0] == stored[1] == stored[2] and len(stored[0]) == len(serial.rows)


@needs_dask
def test_a_run_that_kills_its_dask_workers_fails_alone(tmp_path):
    """Dask gives up on a run whose workers die (at once here: no retries, and one run per
    worker thread, so no other run is on the worker that dies); the run is stored as failed,
    as a local run would be, and the others finish."""
    config = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0", "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0"}
    with dask_cluster(1, config, ("--preload", "dask_kills_seed_2")) as (address, _):
        with pytest.warns(sw.FailedRunsWarning, match=r"^4 of 8 runs of sweep '[ts]' failed"):
            res = sw.run(write_sweep(tmp_path, seeds=2, duration="1s"), tmp_path / "out", scheduler=address, progress=False)
    failed = [r for r in res.rows if r["error"]]
    assert len(res.rows) == 8 and {r["seed"] for r in failed} == {2} and len(failed) == 4
    assert all("its Dask workers died" in r["error"] for r in failed)


@pytest.mark.parametrize("name", ["../../outside", "/etc/cron.d/x", "..", "a/../../b"])
def test_a_sweep_name_never_leads_outside_results(tmp_path, monkeypatch, name):
    """Sweep files are data: whatever their name, the default results folder is one plain
    folder under results/."""
    monkeypatch.chdir(tmp_path)
    spec = sw.build({"name": name, "scenarios": [f"{LOSSY}/lossy-reno.toml"], "grid": {"duration": ["2s"]}}, REPO)
    sw.run(spec, workers=1, progress=False)
    made = [p for p in tmp_path.rglob("results.sqlite")]
    assert len(made) == 1 and made[0].parent.parent == tmp_path / "results", made
    with pytest.raises(ScenarioError) as e:
        sw.build({"name": 5, "scenarios": [f"{LOSSY}/lossy-reno.toml"]}, REPO)
    assert e.value.path == "name"


def test_the_sweeps_status_line_counts_runs_and_leaves_the_terminal_clean(tmp_path, monkeypatch):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), tmp_path / "out", workers=1, progress=True)
    shown = tty.getvalue()
    assert shown.startswith("\rtcplab: sweep: 1/4 runs, about ") and shown.endswith("\r\x1b[K"), shown
    assert "\rtcplab: sweep: 4/4 runs, about 0 s left\x1b[K" in shown, "the last count always shows"


def test_a_worker_gets_its_next_run_before_the_last_result_is_stored(tmp_path, monkeypatch):
    """The parent stores a result (a SQLite commit) while the worker that sent it already runs
    its next run: at the k-th store, k + 2 runs have gone out to the 2 workers."""
    handed, at_put = [], []
    hand_out = sw._hand_out
    monkeypatch.setattr(sw, "_hand_out", lambda r, *a: handed.append(r) or hand_out(r, *a))

    class Store(sw.Store):
        def put(self, *args):
            at_put.append(len(handed))
            super().put(*args)

    spec = sw.load(write_sweep(tmp_path, seeds=2, duration="1s"))
    store = Store(tmp_path / "out" / "results.sqlite")
    try:
        sw._run_local(spec, spec.runs, store, sw._Progress(len(spec.runs), enabled=False), 2, sw.RunLimits(True, None, None))
    finally:
        store.close()
    assert len(spec.runs) == 8 and sorted(r.key for r in handed) == sorted(r.key for r in spec.runs)
    assert at_put == [min(k + 2, 8) for k in range(1, 9)]


def test_an_interrupted_sweep_erases_its_status_line(tmp_path, monkeypatch):
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    run_one, calls = sw._run_one, []

    def interrupted_at_the_second(*job):
        calls.append(job)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return run_one(*job)

    monkeypatch.setattr(sw, "_run_one", interrupted_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), tmp_path / "out", workers=1, progress=True)
    assert tty.getvalue().startswith("\rtcplab: sweep: 1/4 runs") and tty.getvalue().endswith("\x1b[K\r\x1b[K")


@needs_dask
def test_a_scheduler_that_cannot_be_reached_is_named(tmp_path):
    with pytest.raises(ScenarioError, match="unknown address scheme") as e:
        sw.run(write_sweep(tmp_path, seeds=1), tmp_path / "out", scheduler="bogus://x", progress=False)
    assert e.value.path == "--scheduler"


@needs_dask
def test_a_port_that_does_not_speak_dask_is_named_in_time(tmp_path, monkeypatch):
    """A port that takes connections but never answers (not a Dask scheduler) is refused once
    the connection time is up, where Dask's client alone would wait without end."""
    monkeypatch.setattr(sw, "DASK_CONNECT_S", 1)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ScenarioError, match="cannot reach a Dask scheduler at .*: no answer in 1 s") as e:
            sw.run(write_sweep(tmp_path, seeds=1), tmp_path / "out", scheduler=address, progress=False)
    assert e.value.path == "--scheduler"


def _killer_after_the_first_result(db: Path, proc):
    """A thread that kills `proc` once the store `db` holds a run."""
    import threading

    def kill():
        for _ in range(20000):
            try:
                with sqlite3.connect(db) as conn:
                    if conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] >= 1:
                        break
            except sqlite3.OperationalError:
                pass
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)

    killer = threading.Thread(target=kill)
    killer.start()
    return killer


@needs_dask
def test_a_scheduler_lost_mid_sweep_is_named_and_the_finished_runs_kept(tmp_path):
    spec = write_sweep(tmp_path, seeds=3, duration="100s")
    with dask_cluster(1) as (address, procs):
        killer = _killer_after_the_first_result(tmp_path / "out" / "results.sqlite", procs[0])
        with pytest.raises(ScenarioError, match="lost the Dask scheduler") as e:
            sw.run(spec, tmp_path / "out", scheduler=address, progress=False)
        killer.join()
    assert e.value.path == "--scheduler"
    kept = _stored_summaries(tmp_path / "out" / "results.sqlite")
    assert 1 <= len(kept) < 12, "what finished before is stored"


@needs_dask
def test_a_lost_scheduler_is_one_line_on_the_command_line(tmp_path):
    """Issue 35 item 11: Dask's client logged a traceback of 35 lines, as it closed, before the
    sweep's own line."""
    spec = write_sweep(tmp_path, seeds=3, duration="3000s")
    out = tmp_path / "out"
    with dask_cluster(1) as (address, procs):
        env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "TCPLAB_PROGRESS": "0"}
        proc = subprocess.Popen([sys.executable, "-m", "tcplab", "sweep", str(spec), "--out", str(out), "--scheduler", address],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        killer = _killer_after_the_first_result(out / "results.sqlite", procs[0])
        _, err = proc.communicate(timeout=120)
        killer.join()
    assert proc.returncode == 2 and err.startswith("tcplab: error: --scheduler: lost the Dask scheduler at "), err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize("store", [b"not a database", "CREATE TABLE runs (key TEXT)"])
def test_a_store_that_cannot_keep_the_results_is_named(tmp_path, store):
    out = tmp_path / "out"
    out.mkdir()
    if isinstance(store, bytes):
        (out / "results.sqlite").write_bytes(store)
    else:
        with sqlite3.connect(out / "results.sqlite") as c:
            c.execute(store)
    with pytest.raises(ScenarioError, match="cannot keep the results in") as e:
        sw.run(write_sweep(tmp_path, seeds=1, duration="1s"), out, workers=1, progress=False)
    assert e.value.path == "--out"


# A run that genuinely takes long: about a minute of computing (1.3 GB of packet delays by its
# end, within the limits), stopped by a run_timeout of seconds long before that.
LONG = "1000000s"


def test_a_run_past_its_time_limit_stops_itself():
    doc = sw.read_scenario(LOSSY / "lossy-reno.toml")
    doc["duration"] = LONG
    t0 = time.monotonic()
    with pytest.raises(ScenarioError) as e:
        tcplab.run(doc, timeout=1)
    assert time.monotonic() - t0 < 30
    assert e.value.path == "run_timeout"
    assert re.fullmatch(r"the run took longer than 1 s of wall time and was stopped at simulated time [\d.e+]+ s "
                        r"of 1e\+06 s", e.value.message), e.value.message
    with pytest.raises(ScenarioError, match="is not a number of seconds"):
        tcplab.run(doc, timeout=-1)


def test_a_sweeps_run_timeout_stores_a_long_run_as_failed_and_goes_on(tmp_path, capfd):
    """Issue 35 item 4: a run that takes too long no longer holds its worker for good."""
    spec = tmp_path / "s.toml"
    spec.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nrun_timeout = "2s"\n[grid]\nduration = ["1s", "{LONG}"]\n')
    assert sw.load(spec).run_timeout == 2.0
    t0 = time.monotonic()
    with pytest.warns(sw.FailedRunsWarning, match=r"^1 of 2 runs of sweep '[ts]' failed"):
        res = sw.run(spec, tmp_path / "out", workers=2, progress=False)
    assert time.monotonic() - t0 < 60
    (failed,) = res.failed
    assert failed["params"] == {"duration": LONG} and failed["error"].startswith("run_timeout: the run took longer than 2 s")
    assert len(res.rows) == 2
    # the command line's --run-timeout over the file's, in its own terms; serially too
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "cli"), "--workers", "1", "--run-timeout", "1.5s"]) == 1
    err = capfd.readouterr().err
    assert f"run failed: lossy-reno duration={LONG} seed 1: run_timeout: the run took longer than 1.5 s" in err
    assert cli.main(["sweep", str(spec), "--run-timeout", "soon"]) == 2
    assert capfd.readouterr().err.startswith("tcplab: error: --run-timeout: 'soon' is not a wall time")
    assert [sw.wall_seconds(v, "x") for v in (90, "90", "1.5s", "10min", "2h")] == [90, 90, 1.5, 600, 7200]


def test_a_sweeps_max_events_stores_a_run_that_needs_more_as_failed(tmp_path, capfd):
    """A budget of events: a run past it is stopped and stored as failed, with the same
    verdict on every machine; the file's budget, the command line's over it."""
    spec = tmp_path / "s.toml"
    spec.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nmax_events = 20000\n[grid]\nduration = ["1s", "100s"]\n')
    assert sw.load(spec).max_events == 20000
    with pytest.warns(sw.FailedRunsWarning, match=r"^1 of 2 runs of sweep '[ts]' failed"):
        res = sw.run(spec, tmp_path / "out", workers=2, progress=False)
    (failed,) = res.failed
    assert failed["params"] == {"duration": "100s"}
    assert failed["error"].startswith("max_events: the run needed more than the 20000 events"), failed["error"]
    assert len(res.rows) == 2
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "cli"), "--workers", "1", "--max-events", "100"]) == 1
    assert capfd.readouterr().err.count("run failed: ") == 2, "both past 100 events"
    for bad in ("0", "many"):
        assert cli.main(["sweep", str(spec), "--max-events", bad]) == 2
        assert capfd.readouterr().err.startswith("tcplab: error: --max-events: ")
    spec.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\nmax_events = -1\n')
    with pytest.raises(ScenarioError, match="max_events"):
        sw.load(spec)


def test_a_run_that_does_not_stop_itself_is_stopped_by_the_sweep(tmp_path, monkeypatch):
    """The parent's backstop: a worker whose run goes past run_timeout and its grace (stuck
    where the run cannot look at its clock) is killed, its run stored as failed, and the sweep
    and its count go on. (The grace covers a new worker's start, slow on a loaded machine.)"""
    monkeypatch.setattr(sw, "RUN_TIMEOUT_GRACE_S", 4.0)
    spec = sw.load(write_sweep(tmp_path, seeds=3, duration="1s"))
    store = sw.Store(tmp_path / "out" / "results.sqlite")
    bar = sw._Progress(len(spec.runs), enabled=False)
    try:
        sw._run_local(spec, spec.runs, store, bar, 2, sw.RunLimits(True, 1.0, None), worker=worker_hung_by_seed_2)
        rows = store.rows(r.key for r in spec.runs)
    finally:
        store.close()
    failed = [r for r in rows if r["error"]]
    assert len(rows) == 12 and bar.done == 12 and {r["seed"] for r in failed} == {2} and len(failed) == 4
    assert all(r["error"] == "run_timeout: the run took longer than 1 s of wall time and did not stop; its worker "
               "process was stopped after 5 s" for r in failed)


def test_workers_die_with_their_sweep(tmp_path):
    """Issue 35 item 11: a sweep killed with SIGKILL leaves no worker running (before, they ran
    their runs to the end, then printed BrokenPipeError tracebacks)."""
    spec = write_sweep(tmp_path, seeds=4, duration=LONG)
    out = tmp_path / "out"
    proc = _sweep_process(spec, out, workers=2)
    workers = []
    for _ in range(600):
        workers = [p for p in _children(proc.pid) if _is_worker(p)]
        if len(workers) == 2:
            break
        time.sleep(0.1)
    assert len(workers) == 2, "the sweep's workers are under way"
    proc.kill()
    _, err = proc.communicate(timeout=30)  # stderr ends once the workers, which share it, are gone
    assert "Traceback" not in err and "Error" not in err, err
    assert not [p for p in workers if _is_worker(p)]


@pytest.mark.parametrize("damage", ["summary = 'not json'", "summary = '5'", "summary = '{\"flows\": [1]}'",
                                    "summary = '{\"flows\": []}'", "params = NULL", "summary = NULL",
                                    "summary = '{\"jain_fairness\": 1, \"flows\": [], \"handovers\": [{}]}'"])
def test_a_damaged_row_of_the_store_is_run_again(tmp_path, damage):
    """A row damaged on disk is taken as missing: its run is made again and the row replaced
    (before: JSONDecodeError, TypeError or KeyError)."""
    spec = write_sweep(tmp_path, seeds=1, duration="1s")
    out = tmp_path / "out"
    reference = sw.run(spec, out, workers=1, progress=False)
    with sqlite3.connect(out / "results.sqlite") as c:
        c.execute(f"UPDATE runs SET {damage} WHERE key = ?", (reference.rows[1]["key"],))
    again = sw.run(spec, out, workers=1, progress=False)
    assert summaries(again) == summaries(reference) and not again.failed
    assert _stored_summaries(out / "results.sqlite") == {r["key"]: json.dumps(r["summary"], sort_keys=True)
                                                        for r in reference.rows}


def test_workers_beyond_the_machine_are_refused(tmp_path):
    with pytest.raises(ScenarioError, match=r"1000000 is not a number of processes for this machine \(1 to \d+") as e:
        sw.run(write_sweep(tmp_path, seeds=1), tmp_path / "out", workers=1_000_000, progress=False)
    assert e.value.path == "--workers" and not (tmp_path / "out").exists()


def test_a_large_sweep_shows_its_checking(tmp_path, monkeypatch):
    """Checking every case takes a while for a large sweep (a 100,000-case one took a minute
    in silence): a status line counts the cases checked, once a second has passed."""
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.setattr(sw, "CHECKING_DELAY_S", 0.0)
    p = tmp_path / "s.toml"
    p.write_text(f'scenarios = ["{LOSSY}/lossy-reno.toml"]\n[grid]\n"tcp.window" = [{", ".join(map(str, range(1, 41)))}]')
    assert len(sw.load(p, progress=True).runs) == 40
    shown = tty.getvalue()
    assert shown.startswith("\rtcplab: sweep: 1/40 cases checked, about ") and shown.endswith("\r\x1b[K"), shown
    assert "40/40 cases checked" in shown


@contextlib.contextmanager
def _server(greeting: bytes | None):
    """A local TCP port that takes connections and says `greeting` (or nothing) first."""
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            if greeting:
                c.sendall(greeting)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        srv.close()


@needs_dask
def test_a_port_that_speaks_another_protocol_is_named(tmp_path):
    """An SSH server's banner, read as Dask's frame lengths, asked for 2.82 EiB (MemoryError)."""
    with _server(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n") as address:
        with pytest.raises(ScenarioError, match="cannot reach a Dask scheduler at .*: it answers, but not as a Dask "
                                                r"scheduler \(MemoryError\)") as e:
            sw.run(write_sweep(tmp_path, seeds=1), tmp_path / "out", scheduler=address, progress=False)
    assert e.value.path == "--scheduler"


@needs_dask
def test_a_refused_connection_is_named_at_once(tmp_path):
    """Dask tries a refused connection again until its deadline (30 s), then says 'Timed out'."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.monotonic()
    with pytest.raises(ScenarioError, match="cannot reach a Dask scheduler at .*: Connection refused") as e:
        sw.run(write_sweep(tmp_path, seeds=1), tmp_path / "out", scheduler=address, progress=False)
    assert e.value.path == "--scheduler" and time.monotonic() - t0 < 20
