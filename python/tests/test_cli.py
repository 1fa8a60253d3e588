"""Tests of the ``tcplab`` command line, on the real core.

In-process tests call ``tcplab.cli.main(argv)``; a few run the real command in a subprocess.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tcplab
from support import DUMBBELL, DUMBBELL_TEXT, REPO, Clock, FakeTTY, dumbbell_doc
from tcplab import cli


def tcplab_cmd(*args, cwd=None, env=None, unbuffered: bool | None = None, **streams):
    """Run ``python -m tcplab ARGS`` (the same entry point as the console script), its output
    captured unless `streams` says where stdout and stderr go. `unbuffered` sets or clears
    PYTHONUNBUFFERED (None: as this process has it)."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(REPO / "python"), e.get("PYTHONPATH", "")])
    e.pop("TCPLAB_PROGRESS", None)
    if unbuffered is not None:
        e.pop("PYTHONUNBUFFERED", None)
        if unbuffered:
            e["PYTHONUNBUFFERED"] = "1"
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "tcplab", *map(str, args)],
        cwd=cwd, env=e, text=True, timeout=300, **(streams or {"capture_output": True}),
    )


@pytest.fixture(autouse=True)
def _in_tmp_dir(tmp_path, monkeypatch):
    # `tcplab run` writes to ./results by default: keep that out of the source tree.
    monkeypatch.chdir(tmp_path)


def stderr_line(err: str) -> str:
    """The single line written to stderr (fails if there are more)."""
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got:\n{err}"
    return lines[0]


# ======================================================================================
# Help, version, argument handling
# ======================================================================================

@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["validate", "--help"]])
def test_help(argv, capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main(argv)
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tcplab")


def test_run_help_lists_the_options(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    out = capsys.readouterr().out
    for opt in ("--out", "--seed", "--trace", "--until", "SCENARIO"):
        assert opt in out


def test_version(capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main(["--version"])
    assert ei.value.code == 0
    assert re.fullmatch(r"tcplab \S+\n", capsys.readouterr().out)


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as ei:
        cli.main([])
    assert ei.value.code == 2


def test_subprocess_version_and_missing_file(tmp_path):
    r = tcplab_cmd("--version")
    assert r.returncode == 0 and r.stdout.startswith("tcplab ")
    r = tcplab_cmd("validate", "nope.toml", cwd=tmp_path)
    assert r.returncode == 2
    assert stderr_line(r.stderr) == "tcplab: error: nope.toml: no such file"
    assert r.stdout == ""


def tcplab_into_a_closed_pipe(stream: str, args: list[str], cwd: Path, unbuffered: bool, env: dict | None = None):
    """Runs `python -m tcplab ARGS` with `stream` ("stdout" or "stderr") writing into a pipe
    whose reader has already gone, and the other stream captured."""
    read, write = os.pipe()
    os.close(read)
    other = "stderr" if stream == "stdout" else "stdout"
    try:
        return tcplab_cmd(*args, cwd=cwd, env=env, unbuffered=unbuffered, **{stream: write, other: subprocess.PIPE})
    finally:
        os.close(write)


@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_closed_stdout_ends_the_command_quietly(tmp_path, unbuffered):
    """`tcplab validate ... | head` where head has already gone: no output, no message, whether
    the output meets the closed pipe as it is written or when it is flushed at the end."""
    r = tcplab_into_a_closed_pipe("stdout", ["validate", str(DUMBBELL)], tmp_path, unbuffered)
    assert (r.returncode, r.stderr) == (1, "")


def test_a_command_started_with_stdout_closed_runs(tmp_path):
    """`tcplab validate X >&-`: Python has no sys.stdout, and print writes nowhere."""
    r = tcplab_cmd("validate", DUMBBELL, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   preexec_fn=lambda: os.close(1))
    assert (r.returncode, r.stderr) == (0, "")


def test_a_closed_stdout_without_a_file_descriptor_ends_quietly(monkeypatch):
    """An in-process caller whose stdout is a plain stream (no fileno) that breaks."""
    class Broken(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")
    monkeypatch.setattr(sys, "stdout", Broken())
    assert cli.main(["validate", str(DUMBBELL)]) == 1
    assert isinstance(sys.stdout, Broken), "the caller's stdout is put back"


@pytest.mark.parametrize("args", [["validate", "missing.toml"], ["--frobnicate"]])
@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_closed_stderr_keeps_the_exit_status(tmp_path, args, unbuffered):
    """`tcplab validate missing.toml 2>&1 >out.txt | head` where head has already gone: the
    message is lost, but the status still says bad input, not an internal error, whether the
    message meets the closed pipe as it is written or when stderr is flushed at exit."""
    r = tcplab_into_a_closed_pipe("stderr", args, tmp_path, unbuffered)
    assert (r.returncode, r.stdout) == (2, "")


def test_a_sweep_reports_progress_into_a_closed_stderr_and_finishes(tmp_path):
    """The sweep's progress line meets the broken pipe (at least the last one is always
    written); the sweep still stores every run and exits 0."""
    spec = tmp_path / "sweep.toml"
    spec.write_text(f'name = "t"\nscenarios = ["{DUMBBELL}"]\nseeds = 2\n[grid]\n"duration" = ["2s"]\n')
    r = tcplab_into_a_closed_pipe("stderr", ["sweep", str(spec), "--out", str(tmp_path / "o"), "--workers", "1"],
                                  tmp_path, unbuffered=False, env={"TCPLAB_PROGRESS": "1"})
    assert r.returncode == 0, r.stdout
    with open(tmp_path / "o" / "results.csv") as f:
        assert {row["seed"] for row in csv.DictReader(f)} == {"1", "2"}


def test_a_command_started_with_stderr_closed_keeps_stdout_clean(tmp_path):
    """`tcplab validate missing.toml 2>&-`: the error goes nowhere rather than to stdout."""
    r = tcplab_cmd("validate", "missing.toml", cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                   preexec_fn=lambda: os.close(2))
    assert (r.returncode, r.stdout) == (2, "")


def test_a_closed_stderr_does_not_stop_the_work(monkeypatch, tmp_path, capsys):
    """Diagnostics written mid-command to a broken stderr are dropped; the command goes on,
    and the caller's stderr is put back."""
    class Broken(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")
    monkeypatch.setattr(sys, "stderr", Broken())
    (tmp_path / "bad.toml").write_text("name = 3\n")
    assert cli.main(["validate", str(DUMBBELL), str(tmp_path / "bad.toml")]) == 2
    assert "dumbbell" in capsys.readouterr().out, "the good file was still checked and reported"
    assert isinstance(sys.stderr, Broken)


def test_a_broken_pipe_elsewhere_is_an_error(monkeypatch, capsys):
    """Only stdout's broken pipe is quiet: any other is a bug, and says so."""
    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")
    monkeypatch.setattr(cli, "cmd_validate", broken)
    assert cli.main(["validate", str(DUMBBELL)]) == 1
    assert "internal error: BrokenPipeError" in stderr_line(capsys.readouterr().err)


@pytest.mark.parametrize("args", [["validate", str(DUMBBELL)], ["run", str(DUMBBELL), "--until", "0.5s"]])
@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_full_disk_on_stdout_is_one_line_and_exit_1(tmp_path, args, unbuffered):
    """`tcplab run ... > /dev/full` (issue 35): not an internal error, one line saying why,
    whether the output meets the full disk as it is written or when flushed at the end."""
    with open("/dev/full", "w") as full:
        r = tcplab_cmd(*args, cwd=tmp_path, unbuffered=unbuffered, stdout=full, stderr=subprocess.PIPE)
    assert (r.returncode, r.stderr) == (1, "tcplab: error: cannot write to stdout: No space left on device\n")


def test_a_full_disk_on_stderr_keeps_the_exit_status(tmp_path):
    """Diagnostics that cannot be written are lost, as into a closed pipe; the status stays."""
    with open("/dev/full", "w") as full:
        r = tcplab_cmd("validate", "missing.toml", cwd=tmp_path, unbuffered=True, stdout=subprocess.PIPE, stderr=full)
    assert (r.returncode, r.stdout) == (2, "")


def test_every_input_read_is_bounded(capfd, tmp_path):
    """`tcplab validate /dev/zero` read until the kernel killed it (issue 35): every input file
    (scenario, sweep, study) is read up to 64 MiB, and refused past that, naming the file."""
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(tcplab.MAX_FILE_BYTES + 1)  # sparse: no disk taken
    study = tmp_path / "study"
    study.mkdir()
    (study / "study.toml").symlink_to("/dev/zero")
    for argv, file in ((["validate", "/dev/zero"], "/dev/zero"), (["run", str(big)], str(big)),
                       (["sweep", "/dev/urandom"], "/dev/urandom"), (["reproduce", str(study)], str(study / "study.toml"))):
        assert cli.main(argv) == 2, argv
        line = stderr_line(capfd.readouterr().err)
        regular = "is larger" if file == str(big) else "is not a regular file, and gives more"
        assert line == f"tcplab: error: {file}: {regular} than 64 MiB, the most tcplab reads from one file", line
    with open(big, "r+b") as f:
        f.truncate(tcplab.MAX_FILE_BYTES)  # as much as is read: a TOML error, not a refusal
    assert cli.main(["validate", str(big)]) == 2
    assert "64 MiB" not in capfd.readouterr().err


# ======================================================================================
# Commands
# ======================================================================================

def fail_midway(monkeypatch, exc: BaseException):
    """Make runs raise ``exc`` half-way through (after the core has simulated half the run)."""
    def drive(sim, progress, *args, **kwargs):
        sim.advance(sim.end / 2)
        raise exc

    monkeypatch.setattr(tcplab, "_drive", drive)


def test_validate_ok(capfd):
    assert cli.main(["validate", str(DUMBBELL)]) == 0
    assert capfd.readouterr() == ("ok: dumbbell (6 nodes, 5 links, 3 flows)\n", "")


def test_validate_reports_every_bad_file(capfd, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(DUMBBELL_TEXT.replace('to = "k1"\nprotocol', 'to = "k9"\nprotocol'))
    assert cli.main(["validate", str(bad), str(DUMBBELL), str(tmp_path / "gone.toml")]) == 2
    out, err = capfd.readouterr()
    assert out == "ok: dumbbell (6 nodes, 5 links, 3 flows)\n"
    assert err.splitlines() == [
        f'tcplab: error: {bad}: flows[0].to: unknown node "k9"',  # several files: file named
        f"tcplab: error: {tmp_path / 'gone.toml'}: no such file",
    ]


@pytest.mark.parametrize("command", [["run", str(DUMBBELL)], ["estimate", str(DUMBBELL)], ["sweep", "S.toml"],
                                     ["plot", "RUN"], ["report", "RUN"], ["reproduce", "yew2011-wired"]])
def test_an_empty_out_is_refused_rather_than_taken_for_the_default(capfd, monkeypatch, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli.main([*command, "--out", ""])
    assert e.value.code == 2 and "argument --out: an empty argument names no output" in capfd.readouterr().err
    assert list(tmp_path.iterdir()) == [], "nothing run, nothing written"


def test_scenario_arguments_are_files_always(capfd, tmp_path):
    """The API also takes TOML text; the command line takes files, even odd names."""
    with pytest.raises(SystemExit) as e:
        cli.main(["validate", ""])
    assert e.value.code == 2 and "argument SCENARIO: an empty argument names no file" in capfd.readouterr().err
    (tmp_path / "window=20").write_text(DUMBBELL_TEXT)  # TOML-like, and no .toml
    assert cli.main(["validate", "window=20"]) == 0


def test_run_prints_table_and_writes_default_dir(capfd, tmp_path):
    assert cli.main(["run", str(DUMBBELL), "--trace", "ns2"]) == 0
    out, err = capfd.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["scenario", "flow", "protocol"]
    for col in ("goodput kb/s", "mean delay ms", "p95 delay ms", "sent", "delivered",
                "dropped", "retrans", "efficiency", "jain"):
        assert col in lines[0]
    rows = lines[1:4]
    assert [r.split()[:3] for r in rows] == [
        ["dumbbell", "A", "reno"], ["dumbbell", "B", "newreno"], ["dumbbell", "C", "udp"]]
    assert len({len(l) for l in lines[:4]}) == 1, "columns are aligned"
    assert all(re.fullmatch(r"[01]\.\d{3}", r.split()[-1]) for r in rows), "Jain's index"
    assert lines[4] == "results: results/dumbbell"
    assert len(lines) == 5
    d = tmp_path / "results" / "dumbbell"
    assert sorted(p.name for p in d.iterdir()) == ["scenario.json", "summary.json", "trace.tr"]


def test_the_default_folder_is_the_name_made_harmless(capfd, tmp_path):
    doc = dumbbell_doc()
    doc["name"] = "../up here"
    (tmp_path / "s.json").write_text(json.dumps(doc))
    assert cli.main(["run", str(tmp_path / "s.json"), "--until", "1s"]) == 0
    assert capfd.readouterr().out.splitlines()[-1] == "results: results/.._up_here"
    assert (tmp_path / "results" / ".._up_here" / "summary.json").is_file()
    assert tcplab.folder_name("..", "sweep") == "sweep"
    assert tcplab.folder_name("sw\udcff") == "sw", "a file name's undecodable byte"


def test_run_options_take_effect(tmp_path):
    out = tmp_path / "o"
    rc = cli.main(["run", str(DUMBBELL), "--out", str(out), "--seed", "9", "--until", "2s",
                   "--trace", "cwnd", "--trace", "ns2"])
    assert rc == 0
    assert sorted(p.name for p in out.iterdir()) == ["cwnd.tr", "scenario.json", "series-cwnd.parquet", "summary.json", "trace.tr"]
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["seed"], summary["duration_s"]) == (9, 2.0)


def test_run_several_scenarios(capfd, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(DUMBBELL_TEXT.replace('name = "dumbbell"', 'name = "other one"'))
    assert cli.main(["run", str(DUMBBELL), str(other), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "dumbbell" / "summary.json").exists()
    assert (tmp_path / "r" / "other_one" / "summary.json").exists()
    out = capfd.readouterr().out
    assert out.count("\nother one  A") == 1, "one table for both scenarios"
    assert sum(line.startswith("scenario ") for line in out.splitlines()) == 1
    assert out.splitlines()[-1] == f"results: {tmp_path / 'r'}"


def test_run_names_nameless_scenarios_after_their_files(capfd, tmp_path):
    p = tmp_path / "my-run.toml"
    p.write_text(DUMBBELL_TEXT.replace('name = "dumbbell"\n', ""))
    assert cli.main(["run", str(p)]) == 0
    assert capfd.readouterr().out.splitlines()[1].split()[:2] == ["my-run", "A"]
    assert (tmp_path / "results" / "my-run" / "summary.json").exists()


def test_run_checks_all_scenarios_before_running_any(capfd, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(DUMBBELL_TEXT.replace("duration", "durations"))
    assert cli.main(["run", str(DUMBBELL), str(bad), "--out", str(tmp_path / "r")]) == 2
    line = stderr_line(capfd.readouterr().err)
    assert line.startswith(f"tcplab: error: {bad}: ")
    assert not (tmp_path / "r").exists(), "the good scenario was not run either"


def test_run_refuses_two_scenarios_with_one_name(capfd, tmp_path):
    copy = tmp_path / "copy.toml"
    copy.write_text(DUMBBELL_TEXT)
    assert cli.main(["run", str(DUMBBELL), str(copy), "--out", str(tmp_path / "r")]) == 2
    assert "dumbbell" in stderr_line(capfd.readouterr().err)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("argv,path", [
    (["--seed", "-1"], "--seed"),
    (["--seed", "x"], "--seed"),
    (["--seed", "1.5"], "--seed"),
    (["--trace", "xgraph"], "--trace"),
    (["--until", "soon"], "--until"),
    (["--until=-2s"], "--until"),
    (["--out", "/dev/null/x"], "--out"),
])
def test_bad_options_exit_2_with_one_line(capfd, tmp_path, argv, path):
    assert cli.main(["run", str(DUMBBELL), *argv]) == 2
    out, err = capfd.readouterr()
    assert stderr_line(err).startswith(f"tcplab: error: {path}: ")
    assert out == ""
    assert list(tmp_path.iterdir()) == [], "a run that cannot start leaves no directories"


@pytest.mark.parametrize("argv", [["sweep", "SPEC", "--workers", "0"], ["sweep", "SPEC", "--workers", "1000000"],
                                  ["sweep", "SPEC", "--run-timeout", "0"],
                                  ["reproduce", "yew2011-wired", "--seeds", str(10**14)],
                                  ["reproduce", "yew2011-wired", "--run-timeout", "soon"],
                                  ["sweep", "SPEC", "--max-events", "0"], ["run", "SPEC", "--max-events", "-3"],
                                  ["reproduce", "yew2011-wired", "--max-events", "lots"]])
def test_counts_out_of_range_name_their_option(capfd, tmp_path, argv):
    spec = tmp_path / "s.toml"
    spec.write_text(f'scenarios = ["{DUMBBELL}"]')
    assert cli.main([str(spec) if a == "SPEC" else a for a in argv]) == 2
    assert capfd.readouterr().err.startswith(f"tcplab: error: {argv[2]}: ")
    assert not (tmp_path / "results").exists()


def test_output_write_failure_is_a_user_error(capfd, tmp_path):
    (tmp_path / "o" / "trace.tr").mkdir(parents=True)  # the core cannot create its trace
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path / "o"), "--trace", "ns2"]) == 2
    line = stderr_line(capfd.readouterr().err)
    assert line.startswith("tcplab: error: --out: cannot write the outputs: "), line


def test_a_file_that_cannot_be_written_is_the_one_named(capfd, monkeypatch, tmp_path):
    """A series file that could not be written was reported as summary.json (issue 35): the
    message names the file that failed, whether its open failed or a write (a full disk)."""
    import pandas as pd

    doc = dumbbell_doc()
    doc["output"] = {"interval": "0.1s"}
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(doc))
    for fmt in ("csv", "parquet"):
        out = tmp_path / fmt
        (out / f"series-links.{fmt}").mkdir(parents=True)
        assert cli.main(["run", str(scenario), "--out", str(out), "--series", fmt, "--until", "1s"]) == 2
        assert stderr_line(capfd.readouterr().err) == f"tcplab: error: --out: cannot write {out}/series-links.{fmt}: Is a directory"

    def full(frame, path, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    assert cli.main(["run", str(scenario), "--out", str(tmp_path / "o"), "--series", "csv", "--until", "1s"]) == 2
    assert stderr_line(capfd.readouterr().err) == \
        f"tcplab: error: --out: cannot write {tmp_path}/o/series-flows.csv: No space left on device"


def test_unexpected_error_is_one_line_and_exit_1(capfd, monkeypatch, tmp_path):
    fail_midway(monkeypatch, RuntimeError("disk on fire\nsecond line"))
    monkeypatch.delenv("TCPLAB_DEBUG", raising=False)
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path)]) == 1
    line = stderr_line(capfd.readouterr().err)
    assert line.startswith("tcplab: internal error: RuntimeError: disk on fire second line")
    assert "report" in line and "TCPLAB_DEBUG=1" in line


def test_tcplab_debug_shows_the_traceback(capfd, monkeypatch, tmp_path):
    fail_midway(monkeypatch, RuntimeError("disk on fire"))
    monkeypatch.setenv("TCPLAB_DEBUG", "1")
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path)]) == 1
    err = capfd.readouterr().err
    assert "Traceback" in err and err.rstrip().splitlines()[-1].startswith("tcplab: internal error")


def test_rust_panic_is_handled_too(capfd, monkeypatch, tmp_path):
    class PanicException(BaseException):  # what PyO3 raises for a Rust panic
        pass

    fail_midway(monkeypatch, PanicException("index out of bounds"))
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path)]) == 1
    line = stderr_line(capfd.readouterr().err)
    assert line.startswith("tcplab: internal error: the core failed") and "index out of bounds" in line
    assert "please report it" in line


def test_keyboard_interrupt_exits_130(capfd, monkeypatch, tmp_path):
    fail_midway(monkeypatch, KeyboardInterrupt())
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path)]) == 130
    assert stderr_line(capfd.readouterr().err) == "tcplab: interrupted"


def test_missing_extension_exit_1(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tcplab._core", None)
    assert cli.main(["validate", str(DUMBBELL)]) == 1
    assert "setup.sh" in stderr_line(capsys.readouterr().err)


# ======================================================================================
# Output helpers
# ======================================================================================

def test_flow_table_formats_units_and_missing_values():
    summary = {"name": "s", "jain_fairness": 0.5, "flows": [
        {"name": "A", "protocol": "reno", "profile": "ns2", "goodput_bps": 1234567.0, "delay_mean_s": 0.0815,
         "delay_p95_s": 0.12, "packets_sent": 1000, "packets_delivered": 990,
         "packets_dropped": 10, "packets_retransmitted": 12, "efficiency": 0.98765},
        {"name": "long-name", "protocol": "udp", "profile": None, "goodput_bps": 0.0, "delay_mean_s": None,
         "delay_p95_s": None, "packets_sent": 0, "packets_delivered": 0,
         "packets_dropped": 0, "packets_retransmitted": 0, "efficiency": None},
    ]}
    lines = cli.format_flow_table([summary, {**summary, "name": "t", "jain_fairness": None}]).splitlines()
    assert lines[1].split() == ["s", "A", "reno", "ns2", "1234.6", "81.50", "120.00", "1000", "990",
                                "10", "12", "0.988", "0.500"]
    assert lines[2].split() == ["s", "long-name", "udp", "-", "0.0", "-", "-", "0", "0", "0", "0", "-", "0.500"]
    assert lines[3].split()[:2] == ["t", "A"] and lines[3].split()[-1] == "-"
    assert len(lines) == 5
    assert len({len(l) for l in lines}) == 1


def test_progress_waits_two_seconds_then_updates_every_half_second():
    clock = Clock()
    s = io.StringIO()
    p = cli.Progress("x", stream=s, enabled=True, clock=clock)
    for t, now in [(0.5, 1), (1.9, 2), (2.1, 3), (2.3, 4), (2.7, 5), (5.0, 10)]:
        clock.t = t
        p(now, 10.0)
    assert s.getvalue().splitlines() == [
        "tcplab: x:  30% (3.00 s of 10 s simulated)",
        "tcplab: x:  50% (5.00 s of 10 s simulated)",
        "tcplab: x: 100% (10.00 s of 10 s simulated)",
    ]


def test_progress_on_a_terminal_rewrites_and_erases_its_line(monkeypatch):
    monkeypatch.delenv("TCPLAB_PROGRESS", raising=False)
    clock = Clock()
    s = FakeTTY()
    p = cli.Progress("x", stream=s, clock=clock)
    assert p.enabled
    clock.t = 3.0
    p(1.0, 4.0)
    p.close()
    assert s.getvalue() == "\rtcplab: x:  25% (1.00 s of 4 s simulated)\x1b[K\r\x1b[K"


@pytest.mark.parametrize("env,tty,enabled", [
    (None, False, False), (None, True, True), ("1", False, True), ("0", True, False),
])
def test_progress_enabled_by_tty_or_env(monkeypatch, env, tty, enabled):
    if env is None:
        monkeypatch.delenv("TCPLAB_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("TCPLAB_PROGRESS", env)
    p = cli.Progress("x", stream=FakeTTY() if tty else io.StringIO())
    assert p.enabled is enabled


def test_progress_shows_during_a_long_run(capfd, monkeypatch, tmp_path):
    monkeypatch.setenv("TCPLAB_PROGRESS", "1")
    ticks = iter(range(10**6))
    monkeypatch.setattr(cli, "_clock", lambda: next(ticks))  # each reading "takes" a second
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path)]) == 0
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) > 1
    assert all(re.fullmatch(r"tcplab: dumbbell: +\d+% \(\d+\.\d\d s of 5 s simulated\)", l) for l in lines), lines
    assert lines[-1] == "tcplab: dumbbell: 100% (5.00 s of 5 s simulated)"


def hostile_names(tmp_path: Path) -> Path:
    """The dumbbell with names that would drive a terminal (issue 35): an ESC sequence that
    sets the window's title, one that colours, a CR, a bidirectional override."""
    doc = dumbbell_doc()
    doc["name"] = "dumb\x1b]0;owned\x07bell"
    doc["flows"][0]["name"] = "\x1b[31mred"
    doc["flows"][1]["name"] = "cr\rx\u202e"
    path = tmp_path / "names.json"
    path.write_text(json.dumps(doc))
    return path


def test_control_characters_of_names_reach_the_terminal_escaped(capfd, tmp_path):
    """The results table, validate's and estimate's lines and the error messages show a name's
    control characters as a repr does (\\x1b), and the table stays aligned."""
    names = hostile_names(tmp_path)
    doc = json.loads(names.read_text())
    doc["flows"][0]["to"] = "\x1b[2Jnowhere"
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    assert cli.main(["run", str(names), "--out", str(tmp_path / "o"), "--until", "1s"]) == 0
    table = capfd.readouterr().out.splitlines()[:4]
    assert [line.find(p) for line, p in zip(table, ("protocol", "reno", "newreno", "udp"))] == [39] * 4
    assert table[1].startswith("dumb\\x1b]0;owned\\x07bell  \\x1b[31mred  ")
    assert table[2].startswith("dumb\\x1b]0;owned\\x07bell  cr\\rx\\u202e  ")
    assert cli.main(["validate", str(names)]) == 0
    assert cli.main(["estimate", str(names)]) == 0
    assert cli.main(["validate", str(tmp_path / "bad.json")]) == 2
    out, err = capfd.readouterr()
    assert out.startswith("ok: dumb\\x1b]0;owned\\x07bell (6 nodes")
    assert "2Jnowhere" in err
    for text in (out, err):
        assert text.replace("\n", "").isprintable(), text


def test_a_status_line_keeps_its_own_controls_and_escapes_the_name(monkeypatch, tmp_path):
    """Through the command's guard of stderr, the progress line still rewrites itself (CR,
    erase) on a terminal, while the scenario's name in it is shown escaped."""
    monkeypatch.delenv("TCPLAB_PROGRESS", raising=False)
    ticks = iter(range(10**6))
    monkeypatch.setattr(cli, "_clock", lambda: next(ticks))
    monkeypatch.setattr(sys, "stderr", FakeTTY())
    assert cli.main(["run", str(hostile_names(tmp_path)), "--out", str(tmp_path / "o"), "--until", "1s"]) == 0
    err = sys.stderr.getvalue()
    assert err.startswith("\rtcplab: dumb\\x1b]0;owned\\x07bell: ") and err.endswith("\x1b[K\r\x1b[K"), err
    assert err.count("\x1b") == err.count("\r"), "the name's ESC is not among the controls written"


# ======================================================================================
# Malformed scenarios: exit status 2 and one stderr line naming the field
# ======================================================================================

def edit(old: str, new: str, nth: int = 0):
    """A scenario edit replacing the nth occurrence of ``old`` (which must exist)."""
    def apply(text: str) -> str:
        start = -1
        for _ in range(nth + 1):
            start = text.index(old, start + 1)
        return text[:start] + new + text[start + len(old):]
    return apply


def drop_tables(header: str):
    """A scenario edit removing every ``header`` table (the data file separates tables by blank lines)."""
    def apply(text: str) -> str:
        blocks = text.split("\n\n")
        kept = [b for b in blocks if not b.lstrip().startswith(header)]
        assert len(kept) < len(blocks)
        return "\n\n".join(kept)
    return apply


def append(extra: str):
    return lambda text: text + extra


# (id, edit, the stderr line must start with "tcplab: error: " + this, and contain these)
MALFORMED = [
    ("rate-unit", edit('bandwidth = "10Mb"', 'bandwidth = "2 Mbs"'), "links[0].bandwidth:", ["not a rate"]),
    ("rate-negative", edit('bandwidth = "10Mb"', 'bandwidth = "-10Mb"', 2), "links[3].bandwidth:", []),
    ("rate-number-unit", edit('bandwidth = "2Mb"', 'bandwidth = "2 parsecs"'), "links[2].bandwidth:", []),
    ("time-unit", edit('delay = "7ms"', 'delay = "7 fortnights"'), "links[1].delay:", ["not a time"]),
    ("time-negative", edit('delay = "20ms"', 'delay = "-20ms"'), "links[2].delay:", ["negative"]),
    ("duration-negative", edit('duration = "5s"', 'duration = "-5s"'), "duration:", []),
    ("duration-zero", edit('duration = "5s"', 'duration = "0s"'), "duration:", []),
    ("duration-wrong-type", edit('duration = "5s"', "duration = true"), "duration:", []),
    ("duration-missing", edit('duration = "5s"\n', ""), "duration:", []),
    ("nodes-missing", edit('nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]\n', ""), "nodes:", []),
    ("nodes-not-a-list", edit('nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]', 'nodes = "s1"'), "nodes:", []),
    ("nodes-duplicate", edit('"k1", "k2"]', '"k1", "k2", "r1"]'), "nodes[6]:", ["r1"]),
    ("links-missing", drop_tables("[[links]]"), "links:", []),
    ("flows-missing", drop_tables("[[flows]]"), "flows:", []),
    ("protocol-unknown", edit('protocol = "newreno"', 'protocol = "hybla"'), "flows[1].protocol:", ["hybla"]),
    ("cubic-needs-rfc", edit('protocol = "newreno"', 'protocol = "cubic"'), "flows[1].protocol:", ["rfc"]),
    ("flow-to-unknown-node", edit('to = "k1"', 'to = "k9"', 1), "flows[0].to:", ["k9"]),
    ("link-from-unknown-node", edit('from = "s2"', 'from = "s9"'), "links[1].from:", ["s9"]),
    ("link-to-itself", edit('to = "r1"', 'to = "s1"'), "links[0].to:", []),
    ("flow-from-equals-to", edit('to = "k1"', 'to = "s1"', 1), "flows[0].to:", []),
    ("flow-disconnected", lambda t: edit('"k1", "k2"]', '"k1", "k2", "island"]')(
        edit('to = "k2"', 'to = "island"', 1)(t)), "flows[1].to:", ["island"]),
    ("queue-limit-zero", edit("queue_limit = 20", "queue_limit = 0"), "links[2].queue_limit:", []),
    ("queue-unknown", edit("queue_limit = 20", 'queue_limit = 20\nqueue = "fifo"'), "links[2].queue:", ["fifo"]),
    ("red-knobs-on-droptail", edit("queue_limit = 20", "queue_limit = 20\nred = { thresh = 5 }"), "links[2].red:", []),
    ("packet-size-absurd", edit('packet_size = "1000B"', 'packet_size = "10GB"'), "flows[0].packet_size:", []),
    ("packet-size-zero", edit('packet_size = "1000B"', 'packet_size = "0B"'), "flows[0].packet_size:", []),
    ("packet-size-unit", edit('packet_size = "1000B"', 'packet_size = "1000 bits"'), "flows[0].packet_size:", []),
    ("rate-on-tcp-flow", edit('packet_size = "1000B"', 'packet_size = "1000B"\nrate = "1Mb"'), "flows[0].rate:", []),
    ("cbr-rate-bad", edit('rate = "200Kb"', 'rate = "fast"'), "flows[2].rate:", ["fast"]),
    ("packets-zero", edit('start = "0.5s"', 'start = "0.5s"\npackets = 0'), "flows[1].packets:", []),
    ("start-after-end", edit('start = "0.5s"', 'start = "9s"'), "flows[1].start:", []),
    ("stop-before-start", edit('stop = "4s"', 'stop = "0.5s"'), "flows[2].stop:", []),
    ("flow-name-duplicate", edit('name = "B"', 'name = "A"'), "flows[1].name:", []),
    ("seed-negative", edit("seed = 1", "seed = -1"), "seed:", []),
    ("profile-unknown", edit("seed = 1", 'seed = 1\nprofile = "ns3"'), "profile:", ["ns3"]),
    ("rfc-profile-has-no-tahoe-agent", edit('protocol = "reno"', 'protocol = "tahoe"\nprofile = "rfc"'), "flows[0].protocol:",
     ["ns-2 profile agent"]),
    ("fast-needs-rfc", edit('protocol = "newreno"', 'protocol = "fast"'), "flows[1].protocol:", ["rfc profile"]),
    ("ns2-knob-in-rfc-flow", edit('protocol = "newreno"', 'protocol = "newreno"\nprofile = "rfc"\ntcp = { bug_fix = false }'),
     "flows[1].tcp.bug_fix:", ["ns-2 profile knob"]),
    ("vegas-table-without-rfc-vegas", append('\n[vegas]\nalpha = 3\n'), "vegas:", ["no flow uses it"]),
    ("vegas-table-on-ns2-vegas", edit('protocol = "newreno"', 'protocol = "vegas"\nvegas = { alpha = 3 }'), "flows[1].vegas:", ["rfc profile"]),
    ("vegas-beta-below-alpha", edit('protocol = "newreno"', 'protocol = "vegas"\nprofile = "rfc"\nvegas = { alpha = 3, beta = 2 }'),
     "flows[1].vegas.beta:", ["below alpha"]),
    ("vegas-progressive-unknown", edit('protocol = "newreno"', 'protocol = "vegas"\nprofile = "rfc"\nvegas = { progressive = "p3" }'),
     "flows[1].vegas.progressive:", ["p3"]),
    ("fast-period-zero", edit('protocol = "newreno"', 'protocol = "fast"\nprofile = "rfc"\nfast = { period = "0s" }'), "flows[1].fast.period:", []),
    ("pacing-depth-below-one", append('\n[pacing]\ndepth = 0.5\n'), "pacing.depth:", []),
    ("pacing-rtt-unknown", edit('protocol = "newreno"', 'protocol = "newreno"\npacing = { rtt = "median" }'), "flows[1].pacing.rtt:", ["median"]),
    ("pacing-on-udp", edit('protocol = "udp"', 'protocol = "udp"\npacing = { depth = 2 }'), "flows[2].pacing:", ["TCP"]),
    ("pacing-with-rbp", edit('protocol = "reno"', 'protocol = "reno"\ntcp = { rbp = true }\npacing = { depth = 1 }'), "flows[0].pacing:", ["rbp"]),
    ("tcp-window-zero", edit("window = 20", "window = 0"), "tcp.window:", []),
    ("tcp-window-type", edit("window = 20", 'window = "x"'), "tcp.window:", []),
    ("unknown-field-in-link", edit('delay = "7ms"', 'delay = "7ms"\nbandwith = "1Mb"'), "links[1].bandwith:", ["unknown field"]),
    ("unknown-top-level-field", edit("seed = 1", "seed = 1\ndurration = 3"), "durration:", ["unknown field"]),
    ("loss-model-unknown", append('\n[[losses]]\nlink = "r1->r2"\nmodel = "markov"\nrate = 0.1\n'), "losses[0].model:", ["markov"]),
    ("loss-rate-above-one", append('\n[[losses]]\nlink = "r1->r2"\nmodel = "uniform"\nrate = 1.5\n'), "losses[0].rate:", []),
    ("loss-field-of-another-model", append('\n[[losses]]\nlink = "r1->r2"\nmodel = "ber"\nrate = 0.1\n'), "losses[0].rate:", ["ber model"]),
    ("gilbert-needs-its-chain", append('\n[[losses]]\nlink = "r1->r2"\nmodel = "gilbert"\np_good_bad = 0.1\n'), "losses[0].p_bad_good:", []),
    ("wlan-node-without-position", append('\n[[wlans]]\nnodes = ["s1", "r1"]\n'), "wlans[0].nodes[0]:", ["position"]),
    ("wlan-rate-not-80211b", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["s1", "r1"]\ndata_rate = "3Mb"\n'),
     "wlans[0].data_rate:", ["802.11b"]),
    ("wlan-access-point-elsewhere", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["s1", "r1"]\naccess_point = "k1"\n'),
     "wlans[0].access_point:", ["k1"]),
    ("position-of-an-unknown-node", append('\n[positions]\nzz = [0, 0]\n'), "positions.zz:", ["unknown node"]),
    ("position-of-one-number", append('\n[positions]\ns1 = [1]\n'), "positions.s1:", ["[x, y]"]),
    ("move-beyond-any-map", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["s1", "r1"]\n[[moves]]\nnode = "s1"\n'
                                   'at = 1\nto = [1e160, 0]\nspeed = 1000\n'), "moves[0].to:", ["10^7"]),
    ("move-without-speed", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["s1", "r1"]\n[[moves]]\nnode = "s1"\nat = 1\nto = [9, 9]\n'),
     "moves[0].speed:", []),
    ("mobile-node-home-agent-not-its-ap", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["r1", "s1"]\naccess_point = "r1"\n'
                                                 '[[mobile_nodes]]\nnode = "s1"\nhome_agent = "k1"\n'), "mobile_nodes[0].home_agent:", ["home link"]),
    ("mobile-node-scanning-in-no-time", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["r1", "s1"]\naccess_point = "r1"\n'
                                              '[[mobile_nodes]]\nnode = "s1"\nhome_agent = "r1"\nl2_handoff = "0s"\n'),
     "mobile_nodes[0].l2_handoff:", ["longer than zero"]),
    ("mobile-node-as-its-own-map", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["r1", "s1"]\naccess_point = "r1"\n'
                                          '[[mobile_nodes]]\nnode = "s1"\nhome_agent = "r1"\nmap = "s1"\nmap_domain = ["r1"]\n'),
     "mobile_nodes[0].map:", ["wired router"]),
    ("radio-loss-with-mark", append('\n[positions]\ns1 = [0, 0]\nr1 = [5, 0]\n[[wlans]]\nnodes = ["s1", "r1"]\n'
                                    '[[losses]]\nwlan = "wlan0"\nnode = "r1"\nmodel = "uniform"\nrate = 0.1\naction = "mark"\n'), "losses[0].action:", []),
    ("unknown-trace", append('\n[output]\ntrace = ["xgraph"]\n'), "output.trace[0]:", ["xgraph"]),
]
BAD_SYNTAX = ("toml-syntax", edit("window = 20", "window = = 20"))


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("case", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_scenarios_exit_2_naming_the_field(capfd, tmp_path, command, case):
    name, change, prefix, words = case
    p = tmp_path / "bad.toml"
    p.write_text(change(DUMBBELL_TEXT))
    extra = ["--out", str(tmp_path / "out")] if command == "run" else []
    assert cli.main([command, str(p), *extra]) == 2
    out, err = capfd.readouterr()
    line = stderr_line(err)
    assert line.startswith("tcplab: error: " + prefix), line
    for w in words:
        assert w in line, line
    assert out == ""
    assert not (tmp_path / "out").exists(), "nothing is written for an invalid scenario"


def test_malformed_table_is_big_enough():
    assert len(MALFORMED) >= 20
    assert len({c[0] for c in MALFORMED}) == len(MALFORMED)


def test_malformed_edits_apply_cleanly():
    # Every edit must change the text (catches a data-file change that breaks an edit).
    for name, change, _, _ in MALFORMED + [(*BAD_SYNTAX, "", [])]:
        assert change(DUMBBELL_TEXT) != DUMBBELL_TEXT, name


@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_toml_syntax_names_file_and_line(capfd, tmp_path, command):
    p = tmp_path / "bad.toml"
    p.write_text(BAD_SYNTAX[1](DUMBBELL_TEXT))
    assert cli.main([command, str(p)]) == 2
    out, err = capfd.readouterr()
    line = stderr_line(err)
    n = DUMBBELL_TEXT.splitlines().index("window = 20") + 1
    assert line.startswith(f"tcplab: error: {p}: ") and line.endswith(f"(line {n}, column 10)"), line
    assert out == ""


def test_malformed_json_scenario(capfd, tmp_path):
    doc = dumbbell_doc()
    doc["links"][4]["delay"] = "6 ms please"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc, indent=2))
    assert cli.main(["validate", str(p)]) == 2
    assert stderr_line(capfd.readouterr().err).startswith("tcplab: error: links[4].delay: ")


def test_bad_json_syntax_names_the_file(capfd, tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{\n  "duration": "5s",\n}')
    assert cli.main(["validate", str(p)]) == 2
    line = stderr_line(capfd.readouterr().err)
    assert line.startswith(f"tcplab: error: {p}: ") and "line 3" in line, line


# ======================================================================================
# End to end
# ======================================================================================

def test_same_seed_gives_byte_identical_outputs(tmp_path):
    outs = []
    for run_dir in ("a", "b"):
        r = tcplab_cmd("run", DUMBBELL, "--seed", "7", "--trace", "ns2", "--trace", "cwnd",
                       "--out", tmp_path / run_dir)
        assert r.returncode == 0, r.stderr
        outs.append(tmp_path / run_dir)
    a, b = outs
    for f in ("summary.json", "trace.tr", "cwnd.tr"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
        assert (a / f).stat().st_size > 0, f
    assert json.loads((a / "summary.json").read_text())["seed"] == 7


def test_console_script(tmp_path):
    # Installed by `maturin develop` next to the interpreter.
    exe = Path(sys.executable).parent / "tcplab"
    assert exe.exists(), f"{exe} missing: run scripts/setup.sh"
    r = subprocess.run([str(exe), "validate", str(DUMBBELL)], capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "ok: dumbbell (6 nodes, 5 links, 3 flows)\n")
    r = subprocess.run([str(exe), "validate", str(tmp_path / "x.toml")], capture_output=True, text=True)
    assert r.returncode == 2 and stderr_line(r.stderr).endswith("x.toml: no such file")


@pytest.mark.parametrize("command", ["run", "sweep", "plot", "report", "reproduce"])
def test_an_output_that_cannot_be_written_is_named(tmp_path, capsys, command):
    """--out names a file where a folder is wanted (or a folder under it): exit 2, naming --out."""
    taken = tmp_path / "taken"
    taken.write_text("not a folder")
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'scenarios = ["{DUMBBELL}"]\n')
    tcplab.run(DUMBBELL, out=tmp_path / "run", until="0.1s")
    args = {"run": [str(DUMBBELL)], "sweep": [str(sweep)], "plot": [str(tmp_path / "run")],
            "report": [str(tmp_path / "run")], "reproduce": ["yew2011-wired", "--quick"]}[command]
    out = taken / "page.html" if command == "report" else taken
    assert cli.main([command, *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("tcplab: error: --out: cannot "), err


@pytest.mark.parametrize("command", ["run", "sweep", "plot", "report", "reproduce"])
def test_a_default_output_that_cannot_be_written_says_it_was_the_default(tmp_path, capsys, monkeypatch, command):
    """Without --out the command picks the folder; its error says so, and how to choose another."""
    tcplab.run(DUMBBELL, out=tmp_path / "run", until="0.1s")
    sweep = tmp_path / "s.toml"
    sweep.write_text(f'scenarios = ["{DUMBBELL}"]\n')
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").write_text("not a folder")  # the default parent of run, sweep, reproduce
    (tmp_path / "run" / "plots").write_text("not a folder")
    (tmp_path / "run" / "report.html").mkdir()
    args = {"run": [str(DUMBBELL), "--until", "0.1s"], "sweep": [str(sweep)], "plot": ["run"], "report": ["run"], "reproduce": ["yew2011-wired", "--quick"]}[command]
    assert cli.main([command, *args]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("tcplab: error: --out: ") and last.endswith("(the default output; choose another with --out)"), last
    assert cli.main([command, *args, "--out", str(tmp_path / "results" / "x")]) == 2
    assert "the default output" not in capsys.readouterr().err, "a folder the user named is not called the default"


STARVED_TEXT = """
name = "starve"
duration = "5s"
nodes = ["a", "b", "r", "k"]
links = [
  { from = "a", to = "r", bandwidth = "10Mb", delay = "2ms" },
  { from = "b", to = "r", bandwidth = "10Mb", delay = "2ms" },
  { from = "r", to = "k", bandwidth = "1Mb", delay = "10ms", queue_limit = 5 },
]
flows = [
  { name = "tcp", from = "a", to = "k", protocol = "reno", start = "1s" },
  { name = "flood", from = "b", to = "k", protocol = "udp", app = "cbr", rate = "3Mb" },
]
"""


def test_run_warns_of_a_flow_locked_out(capfd, tmp_path):
    """A TCP flow that a CBR flood keeps from delivering anything is said on stderr; a fair
    dumbbell gets no warning."""
    starved, fair = tmp_path / "starve.toml", tmp_path / "fair.toml"
    starved.write_text(STARVED_TEXT)
    fair.write_text(DUMBBELL_TEXT)
    assert cli.main(["run", str(starved), "--out", str(tmp_path / "s")]) == 0
    err = capfd.readouterr().err
    assert "tcplab: warning: starve: Delivered nothing: tcp (goodput 0 kb/s)." in err
    assert cli.main(["run", str(fair), "--out", str(tmp_path / "f")]) == 0
    assert "warning" not in capfd.readouterr().err
