"""Tests of the Python API (tcplab.run / validate / Result / ScenarioError), on the real core."""

from __future__ import annotations

import functools
import json
import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcplab
from tcplab import sweep
from support import DUMBBELL, DUMBBELL_TEXT, dumbbell_doc, without_name

REPO = Path(__file__).resolve().parents[2]

FLOW_COLUMNS = tcplab._FLOW_COLUMNS
LINK_COLUMNS = tcplab._LINK_COLUMNS


def raises_scenario_error(call, *args, **kwargs) -> tcplab.ScenarioError:
    with pytest.raises(tcplab.ScenarioError) as ei:
        call(*args, **kwargs)
    return ei.value


def line_of(text: str, line: str) -> int:
    """1-based number of the line of ``text`` that is exactly ``line``."""
    return text.splitlines().index(line) + 1


# ======================================================================================
# Scenario inputs
# ======================================================================================

class TestInputs:
    def test_validate_returns_the_normalized_scenario(self):
        s = tcplab.validate(DUMBBELL)
        assert (s["name"], s["duration_s"], len(s["nodes"]), len(s["links"]), len(s["flows"])) == (
            "dumbbell", 5.0, 6, 5, 3)
        a = s["flows"][0]
        assert (a["variant"], a["app"]) == ("reno", "ftp")
        assert (a["sink"]["sack"], a["sink"]["delack_interval_s"], a["sink"]["syn_immediate_ack"]) == (False, None, True)
        assert a["params"]["maxrto"] == 60.0, "defaults are filled in"
        assert s["links"][0]["queue"]["limit"] == 50

    def test_path_str_pathlib_toml_text_and_dict_all_run_alike(self):
        summary = tcplab.run(DUMBBELL).summary
        assert summary["name"] == "dumbbell" and len(summary["flows"]) == 3
        for scenario in (str(DUMBBELL), DUMBBELL_TEXT, dumbbell_doc()):
            assert tcplab.run(scenario).summary == summary, type(scenario)

    def test_name_defaults_to_file_stem_toml(self, tmp_path):
        p = tmp_path / "my-scenario.toml"
        p.write_text(without_name(DUMBBELL_TEXT))
        assert tcplab.validate(p)["name"] == "my-scenario"
        assert tcplab.run(p).name == "my-scenario"

    def test_name_defaults_to_file_stem_json(self, tmp_path):
        doc = dumbbell_doc()
        del doc["name"]
        p = tmp_path / "from-json.json"
        p.write_text(json.dumps(doc, indent=2))
        assert tcplab.validate(p)["name"] == "from-json"
        assert tcplab.run(p).name == "from-json"

    def test_text_and_dict_without_name_are_called_scenario(self):
        assert tcplab.validate(without_name(DUMBBELL_TEXT))["name"] == "scenario"
        doc = dumbbell_doc()
        del doc["name"]
        assert tcplab.validate(doc)["name"] == "scenario"

    def test_explicit_name_wins_over_stem(self, tmp_path):
        p = tmp_path / "other.toml"
        p.write_text(DUMBBELL_TEXT)
        assert tcplab.validate(p)["name"] == "dumbbell"
        p = tmp_path / "other.json"
        p.write_text(json.dumps(dumbbell_doc()))
        assert tcplab.validate(p)["name"] == "dumbbell"

    @pytest.mark.parametrize("named", [True, False])
    def test_toml_syntax_error_names_the_file_and_line(self, tmp_path, named):
        base = DUMBBELL_TEXT if named else without_name(DUMBBELL_TEXT)
        text = base.replace("window = 20", "window = = 20")
        p = tmp_path / "bad.toml"
        p.write_text(text)
        e = raises_scenario_error(tcplab.validate, p)
        assert (e.path, e.source) == (str(p), str(p))
        n = line_of(text, "window = = 20")
        assert e.message.endswith(f"(line {n}, column 10)"), e.message

    def test_field_error_quotes_the_line_of_a_nameless_file(self, tmp_path):
        text = without_name(DUMBBELL_TEXT).replace('delay = "7ms"', 'delay = "7ms"\nbandwith = "1Mb"')
        p = tmp_path / "typo.toml"
        p.write_text(text)
        e = raises_scenario_error(tcplab.validate, p)
        assert e.path == "links[1].bandwith"
        n = line_of(text, 'bandwith = "1Mb"')
        assert e.message.endswith(f"(line {n}, column 1)"), e.message
        assert "did you mean `bandwidth`?" in e.message

    def test_toml_text_syntax_error(self):
        e = raises_scenario_error(tcplab.validate, 'duration = "5s"\nnodes = [\n')
        assert (e.path, e.source) == ("scenario", None)
        assert "(line 3, column 1)" in e.message

    def test_json_syntax_error_names_the_file(self, tmp_path):
        p = tmp_path / "bad.json"
        p.write_text('{\n  "duration": "5s",\n}')
        e = raises_scenario_error(tcplab.validate, p)
        assert (e.path, e.source) == (str(p), str(p))
        assert "line 3" in e.message

    def test_missing_file(self):
        e = raises_scenario_error(tcplab.run, "no/such/scenario.toml")
        assert e.path == "no/such/scenario.toml"
        assert str(e) == "no/such/scenario.toml: no such file"

    def test_bare_word_is_taken_as_a_file_name(self):
        assert raises_scenario_error(tcplab.validate, "missing").path == "missing"

    def test_directory(self, tmp_path):
        e = raises_scenario_error(tcplab.validate, tmp_path)
        assert e.path == str(tmp_path) and "directory" in e.message

    def test_binary_file(self, tmp_path):
        p = tmp_path / "bin.toml"
        p.write_bytes(b'name = "\xff\xfe"\n')
        e = raises_scenario_error(tcplab.validate, p)
        assert e.path == str(p) and "UTF-8" in e.message

    @pytest.mark.parametrize("where,value,path", [
        (("links", 1, "delay"), math.nan, "links[1].delay"),
        (("links", 0, "bandwidth"), math.inf, "links[0].bandwidth"),
        (("flows", 0, "start"), object(), "flows[0].start"),
        (("flows", 2, "rate"), {1: "x"}, "flows[2].rate"),
        (("links", 0, "queue_limit"), 10**400, "links[0].queue_limit"),  # beyond JSON's numbers
        (("flows", 0, "name"), "A\ud800", "flows[0].name"),  # a lone surrogate
        (("flows", 0, "tcp"), {"window": 20, "\udfff": 1}, "flows[0].tcp"),
        (("flows", 0, "tcp"), functools.reduce(lambda inner, _: {"a": inner}, range(1000), {}), "flows[0].tcp" + ".a" * 30),
    ])
    def test_dict_values_json_cannot_carry(self, where, value, path):
        doc = dumbbell_doc()
        table, i, key = where
        doc[table][i][key] = value
        assert raises_scenario_error(tcplab.validate, doc).path == path

    def test_not_a_scenario(self):
        with pytest.raises(TypeError):
            tcplab.run(42)


# ======================================================================================
# Errors and run options
# ======================================================================================

class TestErrorsAndOptions:
    def test_core_error_becomes_tcplab_error(self):
        doc = dumbbell_doc()
        doc["flows"][1]["to"] = "nowhere"
        e = raises_scenario_error(tcplab.run, doc)
        assert type(e) is tcplab.ScenarioError and isinstance(e, ValueError)
        assert (e.path, e.message) == ("flows[1].to", 'unknown node "nowhere"')
        assert str(e) == 'flows[1].to: unknown node "nowhere"'
        assert e.source is None

    def test_error_from_a_file_knows_its_source(self, tmp_path):
        p = tmp_path / "x.toml"
        p.write_text(DUMBBELL_TEXT.replace('to = "k1"\nprotocol', 'to = "k9"\nprotocol'))
        e = raises_scenario_error(tcplab.validate, p)
        assert (e.path, e.source) == ("flows[0].to", str(p))

    def test_field_error_in_a_dict(self):
        doc = dumbbell_doc()
        doc["links"][2]["bandwidth"] = "2 Mbs"
        e = raises_scenario_error(tcplab.run, doc)
        assert e.path == "links[2].bandwidth" and "is not a rate" in e.message

    def test_seed(self):
        assert tcplab.run(DUMBBELL).summary["seed"] == 1  # the scenario's own
        assert tcplab.run(DUMBBELL, seed=7).summary["seed"] == 7
        assert tcplab.run(DUMBBELL, seed="8").summary["seed"] == 8

    @pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "abc", True, 0, 2**31])
    def test_bad_seed(self, seed):
        # 0 and 2^31 fit no ns-2 generator (the default rng = "ns2")
        assert raises_scenario_error(tcplab.run, DUMBBELL, seed=seed).path == "--seed"

    def test_streams_take_any_seed(self):
        streams = DUMBBELL_TEXT.replace('name = "dumbbell"', 'name = "dumbbell"\nrng = "streams"')
        assert tcplab.run(streams, seed=0).summary["seed"] == 0
        assert tcplab.run(streams, seed=2**40).summary["seed"] == 2**40

    @pytest.mark.parametrize("until,duration", [
        ("2s", 2.0), ("250ms", 0.25), (2, 2.0), (0.25, 0.25), (1e-5, 1e-5), (None, 5.0),
    ])
    def test_until(self, until, duration):
        assert tcplab.run(DUMBBELL, until=until).summary["duration_s"] == duration

    @pytest.mark.parametrize("until", [math.inf, math.nan, True, [1], "soon", "-1s"])
    def test_bad_until(self, until):
        assert raises_scenario_error(tcplab.run, DUMBBELL, until=until).path == "--until"

    @pytest.mark.parametrize("trace,files", [
        ("ns2", ["scenario.json", "summary.json", "trace.tr"]),
        (["cwnd", "ns2", "cwnd"], ["cwnd.tr", "scenario.json", "series-cwnd.parquet", "summary.json", "trace.tr"]),
        ("nam", ["scenario.json", "summary.json", "trace.nam"]),
        ([], ["scenario.json", "summary.json"]),
    ])
    def test_trace(self, tmp_path, trace, files):
        tcplab.run(DUMBBELL, out=tmp_path, trace=trace)
        assert sorted(p.name for p in tmp_path.iterdir()) == files
        assert json.loads((tmp_path / "scenario.json").read_text()) == tcplab.validate(DUMBBELL)

    @pytest.mark.parametrize("trace", ["xgraph", ["ns2", "xgraph"]])
    def test_bad_trace(self, trace):
        assert raises_scenario_error(tcplab.run, DUMBBELL, trace=trace).path == "--trace"

    def test_out_that_cannot_be_a_directory(self, tmp_path):
        f = tmp_path / "file"
        f.write_text("")
        assert raises_scenario_error(tcplab.run, DUMBBELL, out=f / "sub").path == "--out"

    def test_outputs_that_cannot_be_written(self, tmp_path):
        (tmp_path / "trace.tr").mkdir()  # the core cannot create its trace file
        e = raises_scenario_error(tcplab.run, DUMBBELL, out=tmp_path, trace=["ns2"])
        assert e.path == "--out" and "cannot write" in e.message

    def test_invalid_scenario_creates_no_output_directory(self, tmp_path):
        doc = dumbbell_doc()
        doc["duration"] = "-1s"
        raises_scenario_error(tcplab.run, doc, out=tmp_path / "a" / "b")
        assert list(tmp_path.iterdir()) == []

    def test_missing_extension_is_reported_clearly(self, monkeypatch):
        monkeypatch.setitem(sys.modules, "tcplab._core", None)  # makes the import fail
        with pytest.raises(tcplab.CoreMissingError, match="setup.sh"):
            tcplab.validate(DUMBBELL)


# ======================================================================================
# Results
# ======================================================================================

class TestResult:
    def test_frames_and_fields(self):
        res = tcplab.run(DUMBBELL, trace=["cwnd"])
        s = res.summary
        assert list(s) == ["name", "seed", "duration_s", "jain_fairness", "flows", "links"]
        assert (s["name"], s["seed"], s["duration_s"]) == ("dumbbell", 1, 5.0)
        assert list(res.flows.columns) == FLOW_COLUMNS
        assert list(res.flows["name"]) == ["A", "B", "C"]
        assert list(res.flows["protocol"]) == ["reno", "newreno", "udp"]
        assert list(res.links.columns) == LINK_COLUMNS
        assert len(res.links) == 10
        assert {"r1->r2", "r2->r1", "s1->r1", "r1->s1"} <= set(res.links["name"])
        assert 0 < res.jain_fairness <= 1
        assert res.jain_fairness == s["jain_fairness"]
        for f in s["flows"]:
            assert 0 < f["packets_delivered"] <= f["packets_sent"], f
            assert 0 < f["goodput_bps"] <= 2e6, f  # the bottleneck is 2 Mb/s
            # ns-2's TCPSink acknowledges every segment it gets; UDP has no ACKs
            assert f["acks_sent"] == (f["packets_delivered"] if f["protocol"] != "udp" else 0), f
        cw = res.series["cwnd"]
        assert list(cw.columns) == ["time", "flow", "cwnd", "ssthresh"]
        assert len(cw) > 0 and set(cw["flow"]) == {"A", "B"}  # the TCP senders, by name
        assert "dumbbell" in repr(res)

    def test_runs_in_the_tests_check_their_invariants(self, monkeypatch):
        """conftest turns the checks on for every run; a run that breaks one raises
        InvariantError with what broke, and the CLI calls it an internal error."""
        import os

        assert os.environ.get("TCPLAB_CHECK") == "1"
        core = tcplab._load_core()
        real = core.Simulation

        class Broken:
            def __init__(self, *args):
                self.checked = args[7]  # (text, format, seed, until, out, traces, source, check, ...)
                self.sim = real(*args)
                self.end, self.now = self.sim.end, self.sim.now

            def advance(self, *args):
                reached = self.sim.advance(*args)
                self.now = self.sim.now
                return reached

            def finish(self):
                raw = json.loads(self.sim.finish())
                assert self.checked and raw["check"] == {"violations": 0, "first": []}
                raw["check"] = {"violations": 3, "first": ["at 1 s: link r1->r2: 9 packets waiting, over its limit"]}
                return json.dumps(raw)

        monkeypatch.setattr(core, "Simulation", Broken)
        with pytest.raises(tcplab.InvariantError) as e:
            tcplab.run(DUMBBELL)
        assert e.value.violations == 3 and "over its limit" in str(e.value)

    def test_a_panic_of_the_core_is_an_internal_error_saying_how_to_report_it(self, monkeypatch, capsys):
        from tcplab import cli

        class PanicException(BaseException):  # what pyo3 raises for a Rust panic
            pass

        def panic(*args):
            raise PanicException("index out of bounds: the len is 3 but the index is 7")

        core = tcplab._load_core()
        monkeypatch.setattr(core, "normalize", panic)
        with pytest.raises(tcplab.InternalError) as e:
            tcplab.validate(DUMBBELL)
        assert "index out of bounds" in str(e.value) and "please report" in str(e.value)
        assert cli.main(["validate", str(DUMBBELL)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("tcplab: internal error: the core failed") and "please report" in err

    def test_jupyter_shows_the_tables(self):
        page = tcplab.run(DUMBBELL)._repr_html_()
        assert page.count("<table") == 2 and "goodput_bps" in page and "r1-&gt;r2" in page

    def test_series_only_when_traced(self):
        assert tcplab.run(DUMBBELL).series == {}

    def test_interval_samples(self, tmp_path):
        doc = dumbbell_doc()
        doc["output"] = {"interval": "0.5s"}
        active = {f["name"]: (f["stop_s"] or 5.0) - f["start_s"] for f in tcplab.validate(doc)["flows"]}
        res = tcplab.run(doc, out=tmp_path)
        fl, ln = res.series["flows"], res.series["links"]
        assert list(fl.columns) == ["time", "flow", "goodput_bps", "throughput_bps", "delivered_bytes"]
        assert list(ln.columns) == ["time", "link", "queue_pkts", "in_flight_pkts", "utilization"]
        assert len(fl) == 10 * 3 and len(ln) == 10 * 10  # 5 s: 3 flows, 10 link directions
        last = fl[fl["time"] == 5.0].set_index("flow")["delivered_bytes"]
        for f in res.summary["flows"]:
            assert last[f["name"]] * 8 / active[f["name"]] == pytest.approx(f["goodput_bps"]), f["name"]
        import pandas as pd

        # Parquet by default, CSV on request: the same tables either way
        for name, frame in res.series.items():
            assert pd.read_parquet(tmp_path / f"series-{name}.parquet").equals(frame), name
        res.save(tmp_path / "csv", series_format="csv")
        saved = pd.read_csv(tmp_path / "csv" / "series-flows.csv")
        assert saved["delivered_bytes"].tolist() == fl["delivered_bytes"].tolist()
        assert pd.read_csv(tmp_path / "csv" / "series-tcp.csv").shape == res.series["tcp"].shape
        # the intervals' utilisation adds up to the run's; a 1 ms link holds few packets
        for link in res.summary["links"]:
            rows = ln[ln["link"] == link["name"]]
            assert rows["utilization"].mean() == pytest.approx(link["utilization"], abs=0.01), link["name"]
        assert ln["in_flight_pkts"].max() > 0

    def test_tcp_state_samples_agree_with_the_cwnd_trace(self):
        """The sampled cwnd and ssthresh of each TCP sender are the last values its cwnd trace
        shows at or before the sample; srtt follows the path's RTT; in flight is at most the
        receiver's window (a cut cwnd can be below it for a while)."""
        doc = dumbbell_doc()
        doc["output"] = {"interval": "0.25s", "trace": ["cwnd"]}
        res = tcplab.run(doc)
        tcp, cw = res.series["tcp"], res.series["cwnd"]
        assert list(tcp.columns) == ["time", "flow", "cwnd", "ssthresh", "srtt_s", "in_flight", "pacing_rate"]
        tcp_flows = {f["name"] for f in res.summary["flows"] if f["protocol"] != "udp"}
        assert set(tcp["flow"]) == tcp_flows and len(tcp) == 20 * len(tcp_flows)
        checked = 0
        for row in tcp.itertuples():
            before = cw[(cw["flow"] == row.flow) & (cw["time"] <= row.time)]
            if len(before):
                assert (row.cwnd, row.ssthresh) == (before["cwnd"].iloc[-1], before["ssthresh"].iloc[-1]), row
                checked += 1
        assert checked > 20
        late = tcp[tcp["time"] >= 2.0]
        assert (late["srtt_s"] > 0.01).all() and (late["srtt_s"] < 2.0).all()
        window = {f["name"]: f["params"]["window"] for f in tcplab.validate(doc)["flows"] if f["name"] in tcp_flows}
        assert (tcp["in_flight"] <= tcp["flow"].map(window)).all() and tcp["in_flight"].max() > 10
        assert (tcp["pacing_rate"] == 0).all()

    def test_rtt_samples(self):
        """Every RTT sample of each TCP sender: never below the path's propagation round trip,
        and the smoothed RTT sampled each interval stays within the samples' range."""
        doc = dumbbell_doc()
        doc["output"] = {"interval": "0.5s", "trace": ["rtt"]}
        res = tcplab.run(doc)
        rtt, tcp = res.series["rtt"], res.series["tcp"]
        assert list(rtt.columns) == ["time", "flow", "rtt_s"]
        normalized = tcplab.validate(doc)
        delay = {(lk["from"], lk["to"]): lk["delay_s"] for lk in normalized["links"]}
        hops = {"A": [(0, 2), (2, 3), (3, 4)], "B": [(1, 2), (2, 3), (3, 5)]}
        for flow, path in hops.items():
            samples = rtt[rtt["flow"] == flow]["rtt_s"]
            assert len(samples) > 20  # ns-2 times one segment per round trip
            assert samples.min() >= 2 * sum(delay[h] for h in path) - 1e-9, flow
            srtt = tcp[(tcp["flow"] == flow) & (tcp["time"] >= 2)]["srtt_s"]
            # ns-2 keeps srtt in ticks of tcp_tick
            assert samples.min() - 0.1 <= srtt.min() and srtt.max() <= samples.max() + 0.1, flow

    def test_traced_flows_and_links_choose_the_series(self):
        doc = dumbbell_doc()
        doc["output"] = {"interval": "1s", "trace": ["rtt", "cwnd"], "trace_flows": ["B"], "trace_links": ["r1->r2"]}
        res = tcplab.run(doc)
        for name in ("flows", "tcp", "rtt", "cwnd"):
            assert set(res.series[name]["flow"]) == {"B"}, name
        assert set(res.series["links"]["link"]) == {"r1->r2"}
        assert len(res.summary["flows"]) == 3, "the summary keeps every flow"
        doc["output"]["trace_flows"] = ["B", "Z"]
        assert raises_scenario_error(tcplab.run, doc).path == "output.trace_flows[1]"

    def test_a_paced_flow_reports_its_rate(self):
        doc = sweep.read_scenario(REPO / "scenarios" / "enhanced-vegas-wired" / "vegas-spacing.toml")
        doc.setdefault("output", {})["interval"] = "1s"
        tcp = tcplab.run(doc, until="10s").series["tcp"]
        late = tcp[tcp["time"] >= 5.0]
        # a paced window goes out at about cwnd segments per RTT
        assert (late["pacing_rate"] > 0).all()
        assert (late["pacing_rate"] * late["srtt_s"] / late["cwnd"]).between(0.5, 2.0).all()

    def test_empty_tables_keep_their_columns(self):
        res = tcplab.Result({"summary": {"name": "x", "flows": [], "links": []}})
        assert list(res.flows.columns) == FLOW_COLUMNS and len(res.flows) == 0
        assert list(res.links.columns) == LINK_COLUMNS
        assert res.jain_fairness is None

    def test_save_writes_the_summary_verbatim(self, tmp_path):
        res = tcplab.run(DUMBBELL)
        p = res.save(tmp_path / "a" / "b")
        assert p == tmp_path / "a" / "b" / "summary.json"
        assert p.read_text() == json.dumps(res.summary, indent=2) + "\n"

    def test_run_with_out_writes_the_summary(self, tmp_path):
        res = tcplab.run(DUMBBELL, out=tmp_path / "o", seed=4)
        assert json.loads((tmp_path / "o" / "summary.json").read_text()) == res.summary
        assert res.out_dir == str(tmp_path / "o")

    def test_same_seed_same_summary(self):
        a = tcplab.run(DUMBBELL, seed=5).summary_json()
        assert tcplab.run(DUMBBELL, seed=5).summary_json() == a
        assert json.loads(a)["seed"] == 5


# ======================================================================================
# Driving the run in chunks
# ======================================================================================

class SimClock:
    """A stand-in for the wall clock: ``cost`` seconds per simulated second of ``sim``."""

    def __init__(self, sim, cost):
        self.sim, self.cost, self.reads = sim, cost, []

    def __call__(self):
        self.reads.append(self.sim.now * self.cost)
        return self.reads[-1]

    def chunks(self):
        """The "wall time" of each advance() call (_drive reads the clock around each)."""
        return [b - a for a, b in zip(self.reads[::2], self.reads[1::2])]


class TestDriving:
    def test_a_stretch_dense_with_events_is_run_a_few_events_per_call(self, monkeypatch):
        """Each call into the core returns after _CHUNK_EVENTS events (Python takes signals
        between calls), and the run comes out the same."""
        whole = tcplab.run(DUMBBELL).summary
        calls = []
        real = tcplab._load_core().Simulation

        class Counted:
            def __init__(self, *args):
                self.sim = real(*args)
                self.end, self.finish = self.sim.end, self.sim.finish

            @property
            def now(self):
                return self.sim.now

            def advance(self, to, events):
                reached = self.sim.advance(to, events)
                calls.append(reached)
                return reached

        monkeypatch.setattr(tcplab._load_core(), "Simulation", Counted)
        monkeypatch.setattr(tcplab, "_CHUNK_EVENTS", 50)
        assert tcplab.run(DUMBBELL).summary == whole
        assert calls.count(False) > 100 and calls[-1] is True

    @pytest.mark.parametrize("cost", [1e-4, 1.0, 40.0])
    def test_chunks_adapt_to_about_a_tenth_of_a_second(self, cost):
        sim = tcplab._load_core().Simulation(DUMBBELL_TEXT, "toml")
        clock = SimClock(sim, cost)
        summary = json.loads(tcplab._drive(sim, None, clock))["summary"]
        assert summary["duration_s"] == 5.0
        chunks = clock.chunks()
        total = 5.0 * cost
        if total > 2:
            # after the first few doublings, every chunk but the last stays near the target
            steady = chunks[12:-1]
            assert steady and all(0.02 <= c <= 0.45 for c in steady), steady
        assert len(chunks) < 40 + total / 0.02

    def test_progress_sees_increasing_time_ending_at_end(self):
        calls = []
        tcplab.run(DUMBBELL, progress=lambda now, end: calls.append((now, end)))
        nows = [now for now, _ in calls]
        assert len(calls) > 2
        assert nows == sorted(nows) and len(set(nows)) > 2
        assert {end for _, end in calls} == {5.0}
        assert calls[0] == (0.0, 5.0) and calls[-1] == (5.0, 5.0)

    def test_until_shortens_the_progress_too(self):
        calls = []
        tcplab.run(DUMBBELL, until="1s", progress=lambda now, end: calls.append((now, end)))
        assert calls[-1] == (1.0, 1.0)
        assert all(now <= 1.0 for now, _ in calls)

    def test_keyboard_interrupt_between_chunks_propagates(self):
        def progress(now, end):
            if now > 1.0:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            tcplab.run(DUMBBELL, progress=progress)


# ======================================================================================
# Any value in a quantity field is accepted or rejected with that field's path
# ======================================================================================

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_quantity = st.one_of(
    _text,
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{1,3})? ?(|s|ms|us|ns|b|Kb|Mb|Gb|bps|B|KB|MB)", fullmatch=True),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from([
    ("links", 0, "bandwidth"), ("links", 2, "delay"), ("flows", 0, "start"),
    ("flows", 2, "rate"), ("flows", 1, "packet_size"), ("flows", 2, "stop"),
]), value=_quantity)
def test_any_value_is_accepted_or_rejected_with_its_path(field, value):
    """No input makes the core fail in any other way than a ScenarioError for that field."""
    table, index, key = field
    doc = dumbbell_doc()
    doc[table][index][key] = value
    try:
        tcplab.validate(doc)
    except tcplab.ScenarioError as e:
        assert e.path == f"{table}[{index}].{key}", (value, str(e))


# ======================================================================================
# The rfc profile, its controllers and pacing
# ======================================================================================

RFC = {
    "duration": "10s",
    "profile": "rfc",
    "nodes": ["s", "r", "k"],
    "links": [{"from": "s", "to": "r", "bandwidth": "10Mb", "delay": "1ms"},
              {"from": "r", "to": "k", "bandwidth": "1Mb", "delay": "20ms", "queue_limit": 30}],
    "flows": [{"name": "v", "from": "s", "to": "k", "protocol": "vegas", "vegas": {"progressive": "p1"}},
              {"name": "f", "from": "s", "to": "k", "protocol": "fast", "start": "1s"},
              {"name": "n", "from": "s", "to": "k", "protocol": "newreno", "profile": "ns2", "start": "2s",
               "pacing": {"rtt": "initial", "depth": 2}}],
}


class TestRfcProfile:
    def test_normalized_scenario_spells_out_every_algorithm_knob(self):
        v, f, n = tcplab.validate(RFC)["flows"]
        assert (v["profile"], f["profile"], n["profile"]) == ("rfc", "rfc", "ns2")
        assert v["vegas"]["progressive"] == {"mode": "p1", "gain": 0.5}
        assert v["vegas"]["slow_start"] == "every_rtt", "progressive cwnd grows every RTT in slow start"
        assert (v["vegas"]["alpha"], v["vegas"]["beta"], v["vegas"]["epoch_rtt"]) == (2.0, 4.0, "last")
        assert f["fast"] == {"alpha": 20.0, "gamma": 0.5, "period": None}
        assert n["pacing"] == {"rtt": "initial", "depth": 2.0, "gain": 1.0}
        assert "pacing" not in v
        assert v["params"]["minrto"] == 1.0 and n["params"]["minrto"] == 0.2, "each profile's defaults"

    def test_runs_deterministically_and_reports_the_profile(self):
        a, b = tcplab.run(RFC), tcplab.run(RFC)
        assert list(a.flows["profile"]) == ["rfc", "rfc", "ns2"]
        assert a.flows.equals(b.flows)
        assert (a.flows["goodput_bps"] > 0).all()
        # the three share a 1 Mb/s link (each rate is over the flow's own active time)
        active = [10, 9, 8]
        assert sum(a.flows["goodput_bps"] * active) <= 1e6 * 10


def test_random_loss_models_lose_their_share():
    doc = {"duration": "100s", "rng": "streams", "nodes": ["a", "b"],
           "links": [{"from": "a", "to": "b", "bandwidth": "10Mb", "delay": "1ms"}],
           "flows": [{"from": "a", "to": "b", "protocol": "udp", "rate": "1Mb", "packet_size": 500}]}
    models = {"uniform": {"rate": 0.1}, "ber": {"ber": 2.5e-5},
              "gilbert": {"p_good_bad": 0.01, "p_bad_good": 0.09}}
    for model, fields in models.items():
        r = tcplab.run({**doc, "losses": [{"link": "a->b", "model": model, **fields}]})
        f = r.flows.iloc[0]
        # about 10% each: 1 - (1 - 2.5e-5)^4000 = 0.095; the chain is bad 0.01/0.1 of the time
        assert 0.08 < f.packets_dropped / f.packets_sent < 0.12, model


def test_handovers_as_a_table():
    r = tcplab.run(str(__import__("pathlib").Path(__file__).resolve().parents[2] / "scenarios" / "yew2011-handover" / "vegas.toml"))
    h = r.handovers
    assert list(h["to"]) == ["ar1", "ar2"]
    parts = h[[c for c in h.columns if c.startswith("part_")]]
    assert parts.shape[1] == 6
    assert (parts.sum(axis=1) - h["disruption_s"]).abs().max() < 1e-9
    assert list(r.radios["wlan"].unique()) == ["home", "fn1", "fn2"]


def test_the_trace_names_are_the_cores():
    assert tcplab.TRACES == tuple(tcplab._load_core().TRACE_NAMES)


class TestOneRunPerFolder:
    """Issue 35: two runs into one folder both ended well, leaving trace.tr and the pcaps of
    neither and the summary of one. A run holds its folder from before the core opens its files
    until its last file is written; a second command on it is refused at once."""

    def test_a_second_run_plot_or_report_on_a_folder_being_written_is_refused(self, tmp_path, capsys):
        from tcplab import cli

        out = tmp_path / "out"
        tcplab.run(DUMBBELL, out=out, seed=3)  # a finished run for plot and report to find
        tried = []

        def meanwhile(now, end):
            if tried or now < end / 2:
                return
            e = raises_scenario_error(tcplab.run, DUMBBELL, out=out, seed=2)
            tried.append((e.path, e.message))
            for argv in (["run", str(DUMBBELL), "--out", str(out), "--seed", "2"], ["plot", str(out)], ["report", str(out)]):
                tried.append((cli.main(argv), capsys.readouterr().err))

        first = tcplab.run(DUMBBELL, out=out, seed=1, trace=["ns2", "pcap"], progress=meanwhile)
        assert tried[0] == ("--out", f"{out} is in use by another tcplab command: wait for it to end, or choose another folder")
        assert tried[1] == (2, f"tcplab: error: --out: {tried[0][1]}\n")
        for status, err in tried[2:]:
            assert (status, err) == (2, f"tcplab: error: {out}: is being written by another tcplab run: wait for it "
                                        "to end, or choose another folder\n")
        # the folder is the first run's, every file of it; and free again once it has ended
        alone = tmp_path / "alone"
        assert tcplab.run(DUMBBELL, out=alone, seed=1, trace=["ns2", "pcap"]).summary == first.summary
        for f in ("summary.json", "trace.tr", "pcap/r1-r2.pcap"):
            assert (out / f).read_bytes() == (alone / f).read_bytes(), f
        assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in alone.iterdir())
        tcplab.run(DUMBBELL, out=out, seed=2)

    def test_a_folder_is_let_go_however_the_run_ends(self, tmp_path):
        def interrupt(now, end):
            if now > 0:
                raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            tcplab.run(DUMBBELL, out=tmp_path, progress=interrupt)
        assert tcplab.run(DUMBBELL, out=tmp_path, until="0.5s").summary["duration_s"] == 0.5

    def test_a_run_replaces_what_an_earlier_one_left(self, tmp_path):
        """An earlier run's traces, pcaps, series, page and figures that this run does not write
        again are not left beside its own; while it cannot start, they stay."""
        from tcplab import cli

        doc = dumbbell_doc()
        doc["output"] = {"interval": "0.5s"}
        tcplab.run(doc, out=tmp_path, trace=["ns2", "cwnd", "pcap", "nam"], series_format="csv")
        assert cli.main(["report", str(tmp_path)]) == 0 and cli.main(["plot", str(tmp_path)]) == 0
        earlier = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
        assert {"trace.tr", "cwnd.tr", "trace.nam", "pcap/r1-r2.pcap", "series-links.csv", "report.html",
                "plots/cwnd.svg"} <= set(earlier)
        (tmp_path / "series-flows.parquet").mkdir()  # a folder where a file goes is not moved
        (tmp_path / "notes.txt").write_text("mine")  # nor a file that is not a run's
        raises_scenario_error(tcplab.run, {**doc, "duration": "-1s"}, out=tmp_path)
        raises_scenario_error(tcplab.run, DUMBBELL, out=tmp_path, until="nonsense")
        assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == sorted(
            earlier + ["series-flows.parquet", "notes.txt"])
        (tmp_path / "series-flows.parquet").rmdir()
        tcplab.run(DUMBBELL, out=tmp_path, trace=["ns2"])
        assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "scenario.json", "summary.json", "trace.tr"]


@pytest.mark.parametrize("change, path, hint", [
    (lambda d: d["links"][0].update(bandwdith=d["links"][0].pop("bandwidth")), "links[0].bandwdith",
     "did you mean `bandwidth`?"),
    (lambda d: d["flows"][0].update(protocol="Reno"), "flows[0].protocol", 'did you mean "reno"?'),
    (lambda d: d.update(tcp={"window_": 20}), "tcp.window_", "drops the trailing underscore: `window`"),
    (lambda d: d["flows"][0].update(packetSize_=1000), "flows[0].packetSize_", "ns-2's `packetSize_` is `packet_size`"),
    (lambda d: d["flows"][0].update(to="K1"), "flows[0].to", 'did you mean "k1"?'),
    (lambda d: d["links"][0].update(bandwidth="10MB"), "links[0].bandwidth",
     '"10MB" would be bytes per second (80 Mb/s); write "10Mb" for 10 Mb/s'),
])
def test_slips_get_the_name_meant(change, path, hint):
    """A typo, a capital, ns-2's spelling of a field, a byte rate: each error names the field as
    the user wrote it and what was meant."""
    doc = dumbbell_doc()
    change(doc)
    e = raises_scenario_error(tcplab.validate, doc)
    assert e.path == path and hint in e.message, e


def test_python_side_names_get_the_name_meant():
    e = raises_scenario_error(tcplab.run, dumbbell_doc(), trace="cwdn")
    assert "did you mean 'cwnd'?" in e.message
    assert "did you mean" not in raises_scenario_error(tcplab.run, dumbbell_doc(), trace="zzz").message
