"""Limits: what a run will cost, estimated before it starts, and the refusal of runs far beyond
the machine (tcplab_net::budget), from Python and from the command line."""

from __future__ import annotations

import json

import pytest

import tcplab
from support import DUMBBELL, REPO, dumbbell_doc
from tcplab import ScenarioError, cli

S3 = REPO / "bench" / "s3-dumbbell.toml"


@pytest.fixture(autouse=True)
def at_most_64_gb(monkeypatch):
    """On a machine with more memory than the long dumbbell is estimated to need, its refusal
    would not come and the test would run it for 10^7 s: cap what runs may take."""
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", "64GB")


def long_dumbbell() -> dict:
    """The dumbbell for 10^7 s with a 40 Mb/s bottleneck: the estimate puts its packets' delays
    at about 400 GB (the vectors' headroom included), in fewer events than the limit (10^12)."""
    doc = dumbbell_doc()
    doc["duration"] = "10000000s"
    for link in doc["links"]:
        link["bandwidth"] = "40Mb" if link["bandwidth"] == "2Mb" else "100Mb"
    doc["tcp"]["window"] = 1000
    return doc


def test_the_estimate_counts_what_a_run_does():
    e = tcplab.estimate(DUMBBELL)
    run = tcplab.run(DUMBBELL)
    est = e["estimate"]
    delivered = sum(f["packets_delivered"] for f in run.summary["flows"])
    assert 0.8 < est["data_packets"] / delivered < 1.6
    assert 0.8 < est["events"] / run.events < 1.6
    assert [p["what"] for p in est["memory"]] == ["packet delays", "routing tables"] and est["disk"] == []
    assert e["refused"] is None
    assert e["machine"]["memory"] > 0


def test_a_memory_budget_that_is_not_a_size_is_named(monkeypatch, capsys):
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", "lots")
    for call in (tcplab.run, tcplab.estimate):
        with pytest.raises(ScenarioError) as err:
            call(DUMBBELL)
        assert (err.value.path, err.value.message) == ("TCPLAB_MAX_MEMORY", '"lots" is not a size (try "1500B", "64KB", "1MiB")')
    assert cli.main(["run", str(DUMBBELL)]) == 2
    assert capsys.readouterr().err.startswith("tcplab: error: TCPLAB_MAX_MEMORY: ")
    assert tcplab.run(DUMBBELL, limits=False).summary["flows"], "--no-limits asks for no budget"
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", " ")  # set to nothing: no budget
    assert tcplab.estimate(DUMBBELL)["refused"] is None


def test_traces_and_their_disk_are_in_the_estimate(tmp_path):
    e = tcplab.estimate(S3, until="1s", trace=["ns2", "pcap"], out=tmp_path)
    assert [p["what"] for p in e["estimate"]["disk"]] == ["ns-2 trace", "pcap captures"]
    assert e["machine"]["disk"] > 0, "the free space where the traces would go"


def test_a_run_beyond_the_machine_is_refused_before_it_starts(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(ScenarioError) as err:
        tcplab.run(long_dumbbell(), out=out)
    assert err.value.path == "duration"
    assert "memory" in err.value.message and "--no-limits" in err.value.message and "limits=False" in err.value.message
    assert not out.exists(), "a refused run leaves nothing behind"
    # the estimate says the same without trying
    refused = tcplab.estimate(long_dumbbell())["refused"]
    assert refused == [err.value.path, err.value.message]


def test_a_memory_budget_refuses_what_fits_the_machine_and_limits_false_runs_it(monkeypatch):
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", "1kB")
    assert tcplab.estimate(DUMBBELL)["machine"]["memory"] == 1000
    with pytest.raises(ScenarioError, match="TCPLAB_MAX_MEMORY allows 1.0 kB"):
        tcplab.run(DUMBBELL)
    assert tcplab.run(DUMBBELL, limits=False).summary["flows"]
    # a traced cwnd is what outgrows the budget: the error names output.trace
    monkeypatch.setenv("TCPLAB_MAX_MEMORY", "100kB")
    tcplab.run(DUMBBELL)
    with pytest.raises(ScenarioError) as err:
        tcplab.run(DUMBBELL, trace="cwnd")
    assert err.value.path == "output.trace" and "cwnd series" in err.value.message


def test_cli_run_refuses_every_scenario_before_running_any(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({**long_dumbbell(), "name": "big"}))
    assert cli.main(["run", str(DUMBBELL), str(big)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{big}: duration: the run would need" in err
    assert not (tmp_path / "results").exists(), "the first scenario did not run either"
    assert cli.main(["run", str(DUMBBELL), "--no-limits"]) == 0


def test_cli_estimate_reports_and_says_what_would_be_refused(tmp_path, capsys):
    big = tmp_path / "big.json"
    big.write_text(json.dumps(long_dumbbell()))
    assert cli.main(["estimate", str(DUMBBELL), str(big), "--trace", "ns2", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("within this machine's limits") == 1 and out.count("refused: duration:") == 1
    assert "ns-2 trace" in out and "available" in out and "free at" in out
    assert cli.main(["estimate", str(DUMBBELL), "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["name"] == "dumbbell" and report["estimate"]["events"] > 0
    assert cli.main(["estimate", str(tmp_path / "missing.toml")]) == 2


def two_nodes(flow: dict, **extra) -> dict:
    """One flow over one link: 100 Mb/s, no delay, for 2.5 s."""
    return {"duration": "2.5s", "nodes": ["a", "b"],
            "links": [{"from": "a", "to": "b", "bandwidth": "100Mb", "delay": "0s"}],
            "flows": [{"from": "a", "to": "b", **flow}], **extra}


def test_runs_that_could_run_away_end_with_a_result_or_one_line(tmp_path, capsys):
    # a pacer's wait too short for the clock once froze time at about 2.05 s
    paced = two_nodes({"protocol": "reno", "tcp": {"window": 64}}, pacing={"rtt": "min"})
    assert tcplab.run(paced).flows["packets_delivered"][0] > 1000
    # ns-2's estimator overflows its 32-bit ticks (ns-2 crashes): stopped, naming the field,
    # limits or not
    fine_tick = two_nodes({"protocol": "reno", "tcp": {"minrto": 0, "tcp_tick": "10ps"}})
    fine_tick["links"][0].update(bandwidth="2Mb", delay="20ms")
    for limits in (True, False):
        with pytest.raises(ScenarioError) as err:
            tcplab.run(fine_tick, limits=limits)
        assert err.value.path == "flows[0].tcp.tcp_tick" and "coarser" in err.value.message
    path = tmp_path / "tick.json"
    path.write_text(json.dumps(fine_tick))
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcplab: error: flows[0].tcp.tcp_tick: ") and err.count("\n") == 1, err
    # a timer capped below the round trip: refused before it starts, naming the cap
    capped = two_nodes({"protocol": "newreno", "profile": "rfc", "tcp": {"minrto": 0, "maxrto": "1ps"}})
    capped["links"][0].update(bandwidth="2Mb", delay="20ms")
    with pytest.raises(ScenarioError) as err:
        tcplab.run(capped)
    assert err.value.path == "flows[0].tcp.maxrto" and "again and again" in err.value.message
    assert tcplab.estimate(capped)["refused"][0] == "flows[0].tcp.maxrto"


def test_a_budget_of_events_stops_a_run_the_same_way_everywhere(tmp_path, capsys):
    whole = tcplab.run(DUMBBELL)
    assert tcplab.run(DUMBBELL, max_events=whole.events).summary == whole.summary, "a budget it fits changes nothing"
    for limits in (True, False):
        with pytest.raises(ScenarioError) as err:
            tcplab.run(DUMBBELL, max_events=1000, limits=limits)
        assert err.value.path == "max_events" and "more than the 1000 events" in err.value.message
    for bad in (0, -5, 1.5, True, "1000"):
        with pytest.raises(ScenarioError, match="max_events"):
            tcplab.run(DUMBBELL, max_events=bad)
    assert cli.main(["run", str(DUMBBELL), "--out", str(tmp_path), "--max-events", "1000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcplab: error: max_events: ") and err.count("\n") == 1, err
    assert cli.main(["run", str(DUMBBELL), "--max-events", "lots"]) == 2
    assert "--max-events" in capsys.readouterr().err
