"""Readings, measurement definitions and the calibration search (tcplab.readings, studies.measure,
tcplab.calibrate)."""

import json
import math

import pytest

import tcplab
from support import dask_cluster, dumbbell_doc, needs_dask
from tcplab import ScenarioError, calibrate, paper, readings, studies
from tcplab import sweep as sw


# --------------------------------------------------------------------------------------
# Field selectors and declared unknowns
# --------------------------------------------------------------------------------------

def test_a_selector_sets_the_items_whose_field_matches_and_none_is_no_change():
    doc = {"flows": [{"name": "A", "protocol": "vegas"}, {"name": "B", "protocol": "sack1"}]}
    sw.set_field(doc, "flows[protocol=sack1].sink", "tcpsink")
    sw.set_field(doc, "flows[name=A].start", "0.1s")
    sw.set_field(doc, "flows[protocol=reno].sink", "delack")
    assert doc["flows"] == [{"name": "A", "protocol": "vegas", "start": "0.1s"},
                            {"name": "B", "protocol": "sack1", "sink": "tcpsink"}]
    with pytest.raises(ScenarioError, match=r"selects in a list"):
        sw.set_field({"tcp": {}}, "tcp[a=b].window", 1)


@pytest.mark.parametrize("unknown, path", [
    ({"name": "w", "group": "setup", "field": "tcp.window", "values": [17]}, "unknowns[0].values"),
    ({"name": "w", "group": "setup", "field": "tcp.window", "values": [17, 17]}, "unknowns[0].values"),
    ({"name": "w", "group": "setup", "field": "tcp..window", "values": [17, 20]}, "unknowns[0].field"),
    ({"name": "w", "group": "setup", "fields": ["a", "b"], "values": [1, 2]}, "unknowns[0].values"),
    ({"name": "w", "group": "guess", "field": "tcp.window", "values": [1, 2]}, "unknowns[0].group"),
    ({"name": "m", "group": "measurement", "measure": "bytes", "values": ["goodput", "bits"]}, "unknowns[0].values"),
    ({"name": "m", "group": "measurement", "measure": "speed", "values": [1, 2]}, "unknowns[0].measure"),
    ({"name": "m", "group": "measurement", "measure": "unit", "cells": {"colour": "x"}, "values": [0, 1]}, "unknowns[0].cells"),
    ({"name": "w", "group": "setup", "field": "tcp.window", "values": [1, 2], "labels": ["one"]}, "unknowns[0].labels"),
    ({"name": "w", "group": "setup", "field": "tcp.window", "values": [1, 2], "window": 3}, "unknowns[0].window"),
])
def test_a_bad_unknown_is_refused_naming_its_field(unknown, path):
    with pytest.raises(ScenarioError) as e:
        readings.unknowns({"unknowns": [unknown]})
    assert e.value.path == path


def _cell(**kw):
    base = dict(table="T", row="r", column="c", paper=1.0, scenario="s", metric="goodput_bps", flow=None,
                aggregate="sum", scale=1.0, params={})
    return paper.Cell(**{**base, **kw})


def test_a_measurement_unknown_may_set_several_knobs_together():
    us = readings.unknowns({"unknowns": [
        {"name": "as packets", "group": "measurement", "measure": ["metric", "unit"], "cells": {"table": "1"},
         "values": [["goodput_bps", 0], ["packets_delivered", 3]]}]})
    assert readings.knobs(us, {"as packets": ["packets_delivered", 3]}, _cell(table="1")) == {"metric": "packets_delivered", "unit": 3}
    with pytest.raises(ScenarioError) as e:
        readings.unknowns({"unknowns": [{"name": "x", "group": "measurement", "measure": ["metric", "unit"],
                                         "values": [["goodput_bps", 0], "packets_delivered"]}]})
    assert e.value.path == "unknowns[0].values"


def test_measurement_unknowns_concern_the_cells_they_select():
    us = readings.unknowns({"unknowns": [
        {"name": "v", "group": "measurement", "measure": "combine", "cells": {"table": "V", "metric": "delay*"},
         "values": ["mean", "sum"]},
        {"name": "share", "group": "measurement", "measure": "share", "cells": {"row": ["*share*", "*fairness*"]},
         "values": ["capacity", "total"]}]})
    reading = {"v": "sum", "share": "total"}
    assert readings.knobs(us, reading, _cell(table="V", metric="delay_mean_s")) == {"combine": "sum"}
    assert readings.knobs(us, reading, _cell(table="VI", metric="delay_mean_s")) == {}
    assert readings.knobs(us, reading, _cell(row="A fairness (%)")) == {"share": "total"}


# --------------------------------------------------------------------------------------
# Measures, by hand
# --------------------------------------------------------------------------------------

FLOWS = {  # two flows of a 100 s run: A active 100 s, B active 50 s
    "A": {"goodput_bps": 800.0, "throughput_bps": 1000.0, "delay_mean_s": 0.1, "packets_delivered": 30,
          "packets_sent": 12, "packets_retransmitted": 2},
    "B": {"goodput_bps": 400.0, "throughput_bps": 600.0, "delay_mean_s": 0.4, "packets_delivered": 10,
          "packets_sent": 5, "packets_retransmitted": 0},
}
TIMES = {"A": 100.0, "B": 50.0}


@pytest.mark.parametrize("cell, knobs, value", [
    (_cell(flow="A"), {}, 800.0),  # the literal reading: the cell's own metric
    (_cell(flow="A"), {"bytes": "wire"}, 1000.0),
    (_cell(flow="B"), {"over": "run"}, 400.0 * 50 / 100),  # B's bits over the whole run
    (_cell(flow="B"), {"bytes": "wire", "over": 25}, 600.0 * 50 / 25),
    (_cell(), {}, 1200.0),  # an aggregate cell sums
    (_cell(aggregate="mean"), {}, 600.0),
    (_cell(flow="A"), {"combine": "pooled"}, (800.0 * 100 + 400.0 * 50) / 150),  # all bytes over all active time
    (_cell(flow="A"), {"combine": "mean"}, 600.0),
    (_cell(flow="A"), {"combine": "each"}, 800.0),
    (_cell(metric="delay_mean_s", aggregate="mean"), {"combine": "pooled"}, (0.1 * 30 + 0.4 * 10) / 40),
    (_cell(metric="delay_mean_s", aggregate="mean"), {"combine": "sum"}, 0.5),
    (_cell(flow="B", share="capacity", capacity=2000.0, scale=100), {}, 20.0),
    (_cell(flow="B", share="capacity", capacity=2000.0, scale=100), {"share": "total"}, 100 * 400 / 1200),
    (_cell(flow="A", metric="packets_sent"), {"metric": "packets_new"}, 10.0),
    (_cell(flow="A", scale=0.001), {"unit": 1}, 8.0),
])
def test_each_measure_gives_the_value_computed_by_hand(cell, knobs, value):
    assert studies.measure(cell, knobs, FLOWS, TIMES, 100.0) == pytest.approx(value)


def test_the_measures_agree_with_the_packet_trace(tmp_path):
    """Throughput on the wire (every data packet received, SYN, headers and duplicates) over the
    whole run, goodput over the active time, and the mean one-way delay, counted by hand from the
    ns-2 trace of a lossy run."""
    doc = dumbbell_doc()
    doc["duration"] = "5s"
    doc["links"][2]["queue_limit"] = 6  # losses, so duplicates and retransmissions
    doc["flows"] = doc["flows"][:1]
    doc["flows"][0]["start"] = "0.5s"
    res = tcplab.run(doc, out=tmp_path, trace="ns2")
    norm = tcplab.validate(doc)
    flow = norm["flows"][0]
    wire, sent, delays = 0, {}, []
    for line in (tmp_path / "trace.tr").read_text().splitlines():
        p = line.split()
        if p[4] != "tcp":
            continue
        if p[0] == "+" and int(p[2]) == flow["from"] and p[11] not in sent:
            sent[p[11]] = float(p[1])
        elif p[0] == "r" and int(p[3]) == flow["to"]:
            wire += int(p[5])
            delays.append(float(p[1]) - sent[p[11]])
    f = {x["name"]: x for x in res.summary["flows"]}
    times = {flow["name"]: 5.0 - 0.5}
    cell = _cell(flow=flow["name"])
    assert studies.measure(cell, {"bytes": "wire", "over": "run"}, f, times, 5.0) == pytest.approx(wire * 8 / 5.0)
    assert studies.measure(cell, {"bytes": "wire"}, f, times, 5.0) == pytest.approx(wire * 8 / 4.5)
    assert res.summary["flows"][0]["packets_retransmitted"] > 0
    delay = _cell(flow=flow["name"], metric="delay_mean_s")
    assert studies.measure(delay, {}, f, times, 5.0) == pytest.approx(sum(delays) / len(delays), rel=1e-9)


# --------------------------------------------------------------------------------------
# The search, on a study tcplab made itself
# --------------------------------------------------------------------------------------

HIDDEN = {"window": 30, "start": ["0s", "1s"], "counts": "wire", "over": "run"}


def _synthetic_study(root, paper_values):
    """A study whose paper is tcplab itself under the HIDDEN reading: two Reno flows on the
    test dumbbell at three bottleneck delays; the paper prints each flow's throughput in kb/s to
    three decimals and each flow's delay in ms to one."""
    d = root / "synthetic"
    d.mkdir(parents=True)
    doc = dumbbell_doc()
    doc["duration"] = "8s"
    doc["name"] = "db"
    doc["flows"] = doc["flows"][:2]  # the two TCP flows
    for f in doc["flows"]:
        f.pop("start", None)
    doc["flows"][1]["start"] = "0.5s"
    doc["tcp"] = {"window": 20}
    (d / "db.json").write_text(json.dumps(doc))
    study = {
        "title": "synthetic",
        "sweep": {"scenarios": ["db.json"], "seeds": 1, "grid": {"links[2].delay": ["10ms", "30ms", "60ms"]}},
        "tables": [{"id": "1", "title": "T1"}],
        "unknowns": [
            {"name": "window", "group": "setup", "field": "tcp.window", "values": [20, 10, 30, 1000]},
            {"name": "start", "group": "setup", "fields": ["flows[0].start", "flows[1].start"],
             "values": [["0s", "0.5s"], ["0s", "0s"], ["0s", "1s"], ["0.5s", "1s"]]},
            {"name": "counts", "group": "measurement", "measure": "bytes", "cells": {"metric": "goodput_bps"},
             "values": ["goodput", "wire"]},
            {"name": "over", "group": "measurement", "measure": "over", "cells": {"metric": "goodput_bps"},
             "values": ["active", "run"]},
        ],
    }
    (d / "study.toml").write_text(_toml(study))
    cells = []
    names = [f["name"] for f in doc["flows"]]
    for delay in ["10ms", "30ms", "60ms"]:
        for flow in names:
            for metric, scale, digits in (("goodput_bps", 0.001, 3), ("delay_mean_s", 1000, 1)):
                cell = {"table": "1", "row": f"{flow} {metric}", "column": delay, "scenario": "db", "metric": metric,
                        "flow": flow, "scale": scale, "params": {"links[2].delay": delay}}
                v = paper_values(cell)
                cells.append({**cell, "paper": round(v, digits), "printed": f"{v:.{digits}f}"})
    (d / "paper.toml").write_text(_toml({"cells": cells}))
    return d


def _toml(doc: dict) -> str:
    """A small TOML writer for the test's documents (tables, arrays of tables, JSON values)."""
    lines = []

    def table(prefix, t):
        scalars = {k: v for k, v in t.items() if not isinstance(v, dict) and not (isinstance(v, list) and v and isinstance(v[0], dict))}
        for k, v in scalars.items():
            lines.append(f"{json.dumps(k)} = {_value(v)}")
        for k, v in t.items():
            if isinstance(v, dict):
                lines.append(f"[{prefix}{json.dumps(k)}]")
                table(f"{prefix}{json.dumps(k)}.", v)
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    lines.append(f"[[{prefix}{json.dumps(k)}]]")
                    table(f"{prefix}{json.dumps(k)}.", item)

    table("", doc)
    return "\n".join(lines) + "\n"


def _value(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return json.dumps(v)


def test_the_search_recovers_the_hidden_reading_of_a_synthetic_study(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    # the paper's numbers: tcplab's runs under the hidden reading
    hidden_runs = {}

    def paper_values(cell):
        doc = json.loads((tmp_path / "synthetic" / "db.json").read_text())
        sw.set_field(doc, "tcp.window", HIDDEN["window"])
        sw.set_field(doc, "flows[0].start", HIDDEN["start"][0])
        sw.set_field(doc, "flows[1].start", HIDDEN["start"][1])
        sw.set_field(doc, "links[2].delay", cell["params"]["links[2].delay"])
        key = cell["params"]["links[2].delay"]
        if key not in hidden_runs:
            hidden_runs[key] = (tcplab.run(doc).summary, tcplab.validate(doc))
        summary, norm = hidden_runs[key]
        flows = {f["name"]: f for f in summary["flows"]}
        times = {f["name"]: norm["duration_s"] - f["start_s"] for f in norm["flows"]}
        c = _cell(**{k: v for k, v in cell.items() if k not in ("paper",)})
        knobs = {"bytes": HIDDEN["counts"], "over": HIDDEN["over"]} if c.metric == "goodput_bps" else {}
        return studies.measure(c, knobs, flows, times, norm["duration_s"])

    study_dir = _synthetic_study(tmp_path, paper_values)
    result = calibrate.calibrate("synthetic", budget=60, out=tmp_path / "search", progress=False)
    assert result["values"] == {"window": 30, "start": ["0s", "1s"], "counts": "wire", "over": "run"}
    assert result["score"] < 1e-3 < result["literal_score"]  # no more than the printed rounding
    # the literal reading is scored as it is, measures and all: goodput over each flow's time
    assert result["literal_score"] == pytest.approx(
        sum(lit for lit, _ in result["errors"].values()) / len(result["errors"]))
    assert result["exact"] == result["cells"] == 12
    assert result["runs"] <= 60
    # the reading is written beside the study, and read back as it was found
    best = readings.load_best(study_dir, readings.unknowns(paper.read_toml(study_dir / "study.toml")))
    assert best["values"] == result["values"]
    # a search again asks for the same runs, all stored: the same answer
    again = calibrate.calibrate("synthetic", budget=60, out=tmp_path / "search", progress=False, save=False)
    assert again["values"] == result["values"] and again["runs"] == result["runs"]
    log = (tmp_path / "search" / "calibration.md").read_text()
    assert "| window | setup | 30 | 20 |" in log


def test_a_budget_too_small_for_the_literal_reading_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    _synthetic_study(tmp_path, lambda cell: 1.0)
    with pytest.raises(ScenarioError, match="do not cover the literal reading") as e:
        calibrate.calibrate("synthetic", budget=2, out=tmp_path / "search", progress=False)
    assert e.value.path == "--budget"


def test_printed_precision_decides_what_is_exact():
    from tcplab.fingerprint import last_digit

    c = _cell(paper=218.16, printed="218.160")
    assert last_digit(c) == pytest.approx(1e-3)  # three decimals
    assert calibrate.exact(c, 218.1604) and not calibrate.exact(c, 218.1606)
    assert last_digit(_cell(paper=88.2)) == pytest.approx(1e-1)  # one decimal
    assert calibrate.exact(_cell(paper=88.2), 88.24)
    assert not math.isnan(calibrate.Score(0.1, 3, {}).error)


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------

def test_fingerprint_reads_the_paper_without_a_run(capfd):
    from tcplab import cli

    assert cli.main(["calibrate", "yew2011-wired", "--fingerprint"]) == 0
    out = capfd.readouterr().out
    assert "Table VI, row 'Vegas/Tahoe: Tahoe throughput (kb/s)': 4/4 cells are whole packets of 1540 B" in out
    assert cli.main(["calibrate", "yew2011-wired", "--fingerprint", "--json"]) == 0
    doc = json.loads(capfd.readouterr().out)
    assert doc["cells"] == 136 and any(g["size_bytes"] == 1500 and not g["syn"] for g in doc["granularity"])


@pytest.mark.parametrize("argv, path", [
    (["calibrate", "yew2011-wired", "--budget", "0"], "--budget"),
    (["calibrate", "yew2011-wired", "--budget", "many"], "--budget"),
    (["calibrate", "yew2011-wired", "--seeds", "-1"], "--seeds"),
    (["calibrate", "no-such-study"], "no-such-study"),
    (["calibrate"], "STUDY"),
])
def test_bad_calibrate_options_are_named(capfd, argv, path):
    from tcplab import cli

    assert cli.main(argv) == 2
    assert f"{path}:" in capfd.readouterr().err


def test_a_study_without_published_values_cannot_be_calibrated(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    study_dir = _synthetic_study(tmp_path, lambda cell: 1.0)
    text = (study_dir / "paper.toml").read_text()
    (study_dir / "paper.toml").write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith(('"paper"', '"printed"'))))
    with pytest.raises(ScenarioError, match="no published value") as e:
        calibrate.calibrate("synthetic", budget=60, out=tmp_path / "search", progress=False)
    assert e.value.path == "synthetic: paper.toml"
    assert not (study_dir / readings.READING_FILE).exists()


def test_a_stale_reading_is_refused_naming_the_value(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    study_dir = _synthetic_study(tmp_path, lambda cell: 1.0)
    us = readings.unknowns(paper.read_toml(study_dir / "study.toml"))
    (study_dir / readings.READING_FILE).write_text('[values]\n"window" = 64\n')
    with pytest.raises(ScenarioError, match="not among its candidates") as e:
        readings.load_best(study_dir, us)
    assert e.value.path.endswith("values.window")


def test_an_unknown_may_not_set_a_field_the_sweep_varies(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    study_dir = _synthetic_study(tmp_path, lambda cell: 1.0)
    _, study, sweep = studies.study_sweep("synthetic")
    us = readings.unknowns({"unknowns": [{"name": "delay", "group": "setup", "field": "links[2].delay", "values": ["1ms", "2ms"]}]})
    with pytest.raises(ScenarioError, match="which the study's sweep varies"):
        readings.apply_setup(sweep, us, {"delay": "2ms"})
    # the same field through a selector is caught too
    us = readings.unknowns({"unknowns": [{"name": "delay", "group": "setup", "field": "links[from=r1].delay", "values": ["1ms", "2ms"]}]})
    with pytest.raises(ScenarioError, match="sets a field the study's sweep varies"):
        readings.apply_setup(sweep, us, {"delay": "2ms"})
    # only in the scenarios it names
    us = readings.unknowns({"unknowns": [{"name": "w", "group": "setup", "field": "tcp.window", "values": [20, 5],
                                          "scenarios": ["other-*"]}]})
    assert [r.key for r in readings.apply_setup(sweep, us, {"w": 5}).runs] == [r.key for r in sweep.runs]


def test_residuals_in_whole_packets_point_at_the_setup(tmp_path, monkeypatch):
    """A hidden start time no candidate has: the best reading's measures are right (every
    residual is whole packets of the fingerprint's size), so the hint points at the setup."""
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)

    def paper_values(cell):
        doc = json.loads((tmp_path / "synthetic" / "db.json").read_text())
        sw.set_field(doc, "tcp.window", 30)
        sw.set_field(doc, "flows[1].start", "0.7s")
        sw.set_field(doc, "links[2].delay", cell["params"]["links[2].delay"])
        summary, norm = tcplab.run(doc).summary, tcplab.validate(doc)
        flows = {f["name"]: f for f in summary["flows"]}
        c = _cell(**{k: v for k, v in cell.items() if k != "paper"})
        knobs = {"bytes": "wire", "over": "run"} if c.metric == "goodput_bps" else {}
        return studies.measure(c, knobs, flows, {f["name"]: norm["duration_s"] - f["start_s"] for f in norm["flows"]},
                               norm["duration_s"])

    _synthetic_study(tmp_path, paper_values)
    result = calibrate.calibrate("synthetic", budget=60, out=tmp_path / "search", progress=False, save=False)
    assert result["values"]["counts"] == "wire" and result["values"]["over"] == "run"
    assert any("off by whole packets of 1040 B" in h and "a start time or a duration differs" in h for h in result["hints"])


@needs_dask
def test_a_search_on_dask_finds_what_it_finds_locally(tmp_path, monkeypatch):
    """The same runs on a Dask cluster: the same reading, score and runs as on local cores."""
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    _synthetic_study(tmp_path, lambda cell: 1000.0 if cell["metric"] == "goodput_bps" else 30.0)
    local = calibrate.calibrate("synthetic", budget=40, out=tmp_path / "local", progress=False, save=False)
    with dask_cluster(2) as (address, _):
        remote = calibrate.calibrate("synthetic", budget=40, out=tmp_path / "dask", scheduler=address, progress=False,
                                     save=False)
    keep = ("values", "score", "exact", "runs", "errors")
    assert {k: remote[k] for k in keep} == {k: local[k] for k in keep}


def test_a_search_makes_only_the_runs_its_cells_read_and_counts_the_failed(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "EXPERIMENTS", tmp_path)
    study_dir = _synthetic_study(tmp_path, lambda cell: 1000.0 if cell["metric"] == "goodput_bps" else 30.0)
    doc = paper.read_toml(study_dir / "study.toml")
    doc["sweep"]["grid"]["links[2].delay"].append("90ms")  # a column the paper prints nothing in
    # a tick too fine for ns-2's estimator: the run stops, as ns-2 would crash
    doc["unknowns"].append({"name": "tick", "group": "setup", "field": "tcp.tcp_tick", "values": ["10ms", "10ps"]})
    (study_dir / "study.toml").write_text(_toml(doc))
    result = calibrate.calibrate("synthetic", budget=200, out=tmp_path / "search", progress=False, save=False)
    stored = [r["params"] for r in sw.Store(tmp_path / "search" / "results.sqlite").rows()]
    assert stored and all(p["links[2].delay"] != "90ms" for p in stored)
    failed = len(result["failed"])  # three cases for each reading with the fine tick
    assert result["values"]["tick"] == "10ms" and failed and failed % 3 == 0
    assert all("tcp_tick" in f for f in result["failed"])
    assert f"## Failed runs ({failed}: their cells count as 100% off)" in (tmp_path / "search" / "calibration.md").read_text()


def test_the_mean_rtt_is_the_senders_samples(tmp_path):
    """The round trip a paper may mean by delay: the mean of the RTT samples the sender takes
    (the rtt series lists every one)."""
    res = tcplab.run(dumbbell_doc(), trace="rtt")
    samples = res.series["rtt"]
    for f in res.summary["flows"]:
        mine = samples[samples["flow"] == f["name"]]
        if f["protocol"] == "udp":
            assert f["rtt_mean_s"] == 0 and mine.empty
        else:
            assert len(mine) > 10 and f["rtt_mean_s"] == pytest.approx(mine["rtt_s"].mean(), rel=1e-12)
