"""The benchmark harness: its scenarios, the parsers of each simulator's output, and one small
benchmark run against ns-2. No timings are checked here: they belong to `tcplab bench`."""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
from pathlib import Path

import pytest
from support import REPO, needs_ns

import tcplab
from tcplab import ScenarioError, bench, cli

needs_time = pytest.mark.skipif(not os.access(bench.GNU_TIME, os.X_OK) and not os.environ.get("CI"),
                                reason="GNU time is not installed (bash bench/install.sh --no-ns3)")


def test_every_benchmark_is_a_valid_scenario_and_the_generated_ones_are_current():
    benchmarks = bench.load()
    assert [b.id for b in benchmarks] == ["S1-vegas", "S1-reno", "S2", "S3", "S3-cubic", "S3-modern-cubic", "S3-60s", "S3-300", "S4",
                                          "S5", "S5-ns2", "S6-ext"]
    for b in benchmarks:
        tcplab.validate(b.scenario)
    spec = importlib.util.spec_from_file_location("generate", REPO / "bench" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert (REPO / "bench" / "s3-dumbbell.toml").read_text() == generate.dumbbell(100, "30s")
    assert (REPO / "bench" / "s3-dumbbell-300.toml").read_text() == generate.dumbbell(300, "30s")
    assert (REPO / "bench" / "s3-cubic.toml").read_text() == generate.dumbbell(100, "30s", ca="cubic")
    assert (REPO / "bench" / "s3-modern-cubic.toml").read_text() == generate.dumbbell(100, "30s", modern="cubic")
    assert (REPO / "bench" / "s4-fattree.toml").read_text() == generate.fat_tree(8, 8, "10s")
    assert (REPO / "bench" / "s6-ext.toml").read_text() == generate.ext_broadcasts(200, "60s")
    s4 = tcplab.validate(REPO / "bench" / "s4-fattree.toml")
    assert len(s4["flows"]) >= 1000 and len(s4["nodes"]) == 128 + 80


def test_selection_names_variants_and_refuses_unknown_ids():
    benchmarks = bench.load()
    assert [b.id for b in bench.select(benchmarks, ["S3"])] == ["S3", "S3-cubic", "S3-modern-cubic", "S3-60s", "S3-300"]
    assert [b.id for b in bench.select(benchmarks, ["S1", "S5"])] == ["S1-vegas", "S1-reno", "S5", "S5-ns2"]
    with pytest.raises(ScenarioError) as e:
        bench.run(only=["S9"], against=[])
    assert e.value.path == "--only"


def test_a_sweep_is_timed_serially_and_in_parallel_with_the_same_results():
    spec = {**bench.load_sweeps()[0], "grid": {"tcp.window": [200, 400]}, "seeds": 2, "id": "tiny"}
    spec["scenario"] = str(REPO / "scenarios" / "yew2011-wired" / "ee-reno.toml")
    w = bench.time_sweep(spec, 2)
    assert w["runs"] == 4 and w["same_results"] and w["serial_s"] > 0 and w["parallel_s"] > 0


def test_delivered_packets_are_read_the_same_way_from_each_simulator():
    normalized = tcplab.validate(REPO / "scenarios" / "yew2011-wired" / "ee-vegas.toml")
    # Vegas sends no SYN: ack_ 99 means segments 0..99 arrived
    assert bench._ns2_delivered("flow 0 ack 99 sent 120\nflow 1 ack -1 sent 0\nother text\n", normalized) == 100
    reno = tcplab.validate(REPO / "scenarios" / "yew2011-wired" / "ee-reno.toml")
    assert bench._ns2_delivered("flow 0 ack 99 sent 120\n", reno) == 99  # segment 0 is the SYN
    assert bench._ns3_delivered("flow 0 rx_bytes 3000\nflow 1 rx_bytes 1499\n", 1500) == 2
    summary = {"flows": [{"name": "A", "goodput_bps": 1500 * 8 * 10 / 100.0}, {"name": "B", "goodput_bps": 0.0}]}
    assert bench._tcplab_delivered(summary, normalized) == 10


def test_speedups_are_taken_turn_by_turn():
    # the turns' ratios are 9, 4 and 3: their median is 4, where the ratio of the medians
    # (9 over 2) would be 4.5; the table gives their range beside it
    ours = [bench.Sample(w, 1, 10) for w in (1.0, 2.0, 3.0)]
    theirs = [bench.Sample(w, 1, 10) for w in (9.0, 8.0, 9.0)]
    turns = bench._paired_speedups(theirs, ours)
    assert turns == [9.0, 4.0, 3.0]
    row = {"id": "S9", "mode": "off", "sim": "ns2", "error": None, "wall_s": 8.0, "rss_mb": 1, "delivered": 10,
           "agrees": True, "speedup": statistics.median(turns), "speedups": turns, "events_per_s": None, "packets_per_s": None}
    assert "| S9 | off | ns2 | 8.00 | 1 | 10 | 4.0x (3.0-9.0) |" in bench.table({"rows": [row], "scaling": []})
    one = dict(row, speedups=[4.0], speedup=4.0)
    assert "| 4.0x |" in bench.table({"rows": [one], "scaling": []})


@needs_time
def test_scaling_is_the_median_of_paired_runs():
    benchmarks = {b.id: b for b in bench.load()}
    vegas, reno = benchmarks["S1-vegas"], benchmarks["S1-reno"]
    reno.scaling = {"of": "S1-vegas", "at_most": 1000.0}
    log = []
    s = bench._scaling(reno, vegas, 3, log.append)
    assert (s["id"], s["of"], s["at_most"], s["holds"]) == ("S1-reno", "S1-vegas", 1000.0, True)
    assert len(s["ratios"]) == 3 and all(r > 0 for r in s["ratios"])
    assert s["ratio"] == sorted(s["ratios"])[1]
    assert len(log) == 3 and log[0].startswith("S1-reno against S1-vegas, pair 1/3: ")
    assert "| S1-reno | S1-vegas | " in bench.table({"rows": [], "scaling": [s]})


@needs_ns
@needs_time
def test_a_small_benchmark_agrees_with_ns2_and_reports_ratios(capfd):
    results = bench.run(only=["S1-reno"], against=["ns2"], reps=1, trace=False)
    rows = {r["sim"]: r for r in results["rows"]}
    assert set(rows) == {"tcplab", "ns2"}
    # tcplab and ns-2 run this scenario identically; ns-2's count is its sender's ack_, behind
    # the receiver's by the ACKs still on their way at the end
    assert 0 <= rows["tcplab"]["delivered"] - rows["ns2"]["delivered"] <= 20
    assert rows["ns2"]["delivered"] > 10_000
    assert rows["ns2"]["agrees"] and rows["ns2"]["speedup"] > 0
    assert rows["tcplab"]["events_per_s"] > 0 and rows["tcplab"]["packets_per_s"] > 0
    assert all(r["rss_mb"] > 1 for r in rows.values())
    # the binary timed is built from the current sources, with a profile when rustc's
    # llvm-profdata is here (scripts/build-sim.sh adds it when rustup can)
    binary = bench.native_runner()
    sources = [p for c in ("cli", "net", "des", "cc") for p in (bench.BENCH.parent / "crates" / c / "src").rglob("*.rs") if p.is_file()]
    assert binary.exists() and binary.stat().st_mtime >= max(p.stat().st_mtime for p in sources)
    sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
    profdata = list(Path(sysroot).glob("lib/rustlib/*/bin/llvm-profdata"))
    assert results["build"] == bench.build_kind(binary) == ("profile-guided" if profdata else "plain")
    assert "| S1-reno | off | ns2 |" in bench.table(results)
    # the report names the commit timed, when the sources are a git checkout
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert results["commit"] in (head.stdout.strip(), head.stdout.strip() + "-dirty")
    assert cli.main(["bench", "--only", "S1-reno", "--against", "", "--reps", "1", "--no-trace", "--json"]) == 0
    assert '"sim": "tcplab"' in capfd.readouterr().out
    assert cli.main(["bench", "--against", "ns4"]) == 2


@needs_time
def test_a_simulator_asked_for_but_not_installed_is_named_as_left_out(monkeypatch):
    monkeypatch.setattr(bench, "ns3_program", lambda: None)  # as without libns3-dev
    logs: list[str] = []
    results = bench.run(only=["S1-reno"], against=["ns3"], reps=1, trace=False, log=logs.append)
    assert [r["sim"] for r in results["rows"]] == ["tcplab"]
    assert list(results["left_out"]) == ["ns3"] and "bench/install.sh" in results["left_out"]["ns3"]
    assert any(line.startswith("ns3 left out: ns-3 cannot be built here") for line in logs)
    assert "ns3 left out: ns-3 cannot be built here" in bench.table(results)
    which = bench.shutil.which
    monkeypatch.setattr(bench.shutil, "which", lambda name: None if name == "ns" else which(name))  # no Debian ns
    results = bench.run(only=["S1-reno"], against=["ns2"], reps=1, trace=False)
    assert [r["sim"] for r in results["rows"]] == ["tcplab"]
    assert results["left_out"]["ns2"].startswith("ns-2 is not installed")
