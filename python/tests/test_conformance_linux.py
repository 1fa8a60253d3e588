"""The Linux anchor (tcplab conformance linux): its metrics on drawn series, its cases, the
scenarios and comparisons it builds; and, as root, one CI case end to end."""

from __future__ import annotations

import itertools
import os
import shutil

import pytest

import tcplab
from tcplab import ccmetrics as m
from tcplab import cli
from tcplab import conformance_linux as L
from tcplab.conformance import ConformanceError

STEP = 0.01  # the drawn series' sampling interval, seconds


def grid(end: float, step: float = STEP) -> list[float]:
    return [round(k * step, 9) for k in range(int(round(end / step)) + 1)]


# --- metrics on drawn series --------------------------------------------------------------------

def test_a_drawn_sawtooth_gives_its_period_and_depth():
    # Reno-like: 20 segments growing by 10 per second, halved every 2 s. The last sample before
    # each halving is at 1.99 s into the period: 20 + 10 x 1.99 = 39.9, down to 20, a depth of
    # 19.9 / 39.9 = 0.49875; the peaks are 2 s apart.
    times = grid(10.0)
    cwnd = [20 + 10 * (t % 2.0) for t in times]
    saw = m.sawtooth(times, cwnd)
    assert saw["reductions"] == 5  # at 1.99, 3.99, 5.99, 7.99 s and the series' end at 9.99
    assert saw["period_s"] == pytest.approx(2.0)
    assert saw["depth"] == pytest.approx(19.9 / 39.9)


def test_a_reduction_spread_over_a_round_is_one_reduction():
    # CUBIC's beta 0.7 applied over five samples (as PRR spreads it): 50 -> 35 in steps of 3,
    # then growth by 0.5 per sample. One reduction, depth 15 / 50 = 0.3.
    cwnd = [50.0] * 10 + [47, 44, 41, 38, 35] + [35 + 0.5 * k for k in range(1, 40)]
    times = grid(STEP * (len(cwnd) - 1))
    found = m.reductions(times, cwnd)
    assert len(found) == 1
    assert (found[0].peak, found[0].trough, found[0].depth) == (50.0, 35.0, pytest.approx(0.3))


def test_newreno_inflation_inside_one_recovery_merges():
    # tcplab's NewReno in a recovery, as sampled every 10 ms: 52 halves to 34.5, inflates to
    # 75.5 by duplicate ACKs, deflates to 26.7. Without merging that is two reductions 60 ms
    # apart; merged (within 0.2 s) one, from 52 to 26.7: depth 25.3 / 52 = 0.4865.
    cwnd = [51.5, 51.7, 51.8, 52.0, 34.5, 42.5, 50.5, 59.5, 67.5, 75.5, 26.7] + [26.7 + 0.3 * k for k in range(1, 30)]
    times = grid(STEP * (len(cwnd) - 1))
    assert len(m.reductions(times, cwnd)) == 2
    merged = m.reductions(times, cwnd, merge_within=0.2)
    assert len(merged) == 1
    assert merged[0].depth == pytest.approx((52.0 - 26.7) / 52.0)


def test_bbr_probe_cycle_from_a_drawn_pacing_rate():
    # Eight phases of 25 ms (a min RTT): gains 1.25, 0.75, then six of 1, on 100 segments/s:
    # a probe starts every 8 x 25 ms = 0.2 s. Sampled every 5 ms for 10 s.
    gains = [1.25, 0.75, 1, 1, 1, 1, 1, 1]
    times = grid(10.0, 0.005)
    rate = [100 * gains[int(round(t / 0.005)) // 5 % 8] for t in times]
    assert m.probe_cycle_period(times, rate) == pytest.approx(0.2)


def test_bbr_probe_cycle_follows_a_changing_bandwidth():
    # The same cycle while the estimate doubles at 5 s (a competing flow left): the rolling
    # median moves with it, and the probes still stand 25% above it.
    gains = [1.25, 0.75, 1, 1, 1, 1, 1, 1]
    times = grid(10.0, 0.005)
    rate = [(100 if t < 5 else 200) * gains[int(round(t / 0.005)) // 5 % 8] for t in times]
    assert m.probe_cycle_period(times, rate) == pytest.approx(0.2)


def test_probe_rtt_interval_from_cwnd_dips_to_four():
    # cwnd 50, dipping to 4 for 0.2 s at 3, 13 and 23 s: three entries 10 s apart.
    times = grid(30.0)
    cwnd = [4.0 if any(s <= t < s + 0.2 for s in (3, 13, 23)) else 50.0 for t in times]
    assert m.probe_rtt_interval(times, cwnd) == {"entries": 3, "interval_s": pytest.approx(10.0)}
    assert m.probe_rtt_interval(times, [50.0] * len(times)) == {"entries": 0, "interval_s": None}


def test_short_dips_after_losses_are_not_probe_rtt():
    # a window knocked to 3 for 50 ms every second (losses), and one real ProbeRTT at 12 s
    times = grid(20.0)
    cwnd = [4.0 if 12 <= t < 12.2 else 3.0 if t % 1.0 < 0.05 else 50.0 for t in times]
    assert m.probe_rtt_interval(times, cwnd) == {"entries": 1, "interval_s": None}


def test_jain_percentile_and_errors_by_hand():
    assert m.jain([5.0, 5.0]) == 1.0
    assert m.jain([1.0, 0.0]) == 0.5
    assert m.jain([3.0, 1.0]) == pytest.approx(16 / 20)  # (3+1)^2 / (2 x (9+1))
    assert m.jain([]) is None
    assert m.percentile([4, 1, 3, 2], 0.5) == 2.5
    assert m.percentile([1, 2, 3, 4], 0.95) == pytest.approx(3.85)  # 1 + 0.95 x 3 = 3.85
    assert m.relative_error(9.5, 10.0) == pytest.approx(0.05)
    assert m.relative_error(1.0, 0.0) is None


def test_median_relative_error_ignores_phase_not_scale():
    times = grid(10.0)
    ours = [20 + 10 * (t % 2.0) for t in times]
    shifted = [20 + 10 * ((t + 0.7) % 2.0) for t in times]  # the same sawtooth, another phase
    assert m.median_relative_error(shifted, ours) == pytest.approx(0.0, abs=0.01)
    assert m.median_relative_error([1.1 * w for w in ours], ours) == pytest.approx(0.1)


def test_rate_between_uses_the_samples_at_each_end():
    # 1000 bytes per second counted every 10 ms: 1000 from 2 to 8 s
    times = grid(10.0)
    assert m.rate_between(times, [1000 * t for t in times], 2.0, 8.0) == pytest.approx(1000)
    assert m.window([0, 1, 2, 3], [5, float("nan"), 7, 8], 1, 2) == ([2], [7])


# --- the cases ----------------------------------------------------------------------------------

def test_the_cases_cover_every_pair_of_factor_levels():
    cases, settings = L.load_cases()
    factors = {"flows": lambda c: c.flows, "rate": lambda c: c.rate, "rtt": lambda c: c.rtt,
               "queue": lambda c: c.queue}
    levels = {"flows": {1, 2, 4}, "rate": {"10Mb", "50Mb"}, "rtt": {"10ms", "20ms", "50ms", "100ms"},
              "queue": {0.5, 1.0, 2.0, "red"}}
    for (a, fa), (b, fb) in itertools.combinations(factors.items(), 2):
        seen = {(fa(c), fb(c)) for c in cases}
        assert seen == set(itertools.product(levels[a], levels[b])), (a, b)
    assert all(set(c.cc) == {"reno", "cubic", "bbr"} for c in cases)
    assert len(cases) == 16  # not the 96 of the full factorial


def test_the_stated_costs():
    cases, _ = L.load_cases()
    # durations 30+20+30+30 (10 ms), 30+30+20+30 (20 ms), 4 x 40, 4 x 60 = 620 s per controller;
    # x 3 controllers, + (1 s drain + 4 s set-up) x 48 runs = 1860 + 240 = 2100 s
    assert L.real_cost_s(cases) == 2100
    ci = L.select(cases, ci=True)
    assert [c.id for c in ci] == ["f2-10m-10ms-1bdp", "f1-10m-20ms-2bdp"]
    assert L.real_cost_s(ci) == 150  # 2 x 3 x (20 + 5): a few minutes


def case_doc(**over) -> dict:
    case = {"id": "x", "flows": 1, "rate": "10Mb", "rtt": "20ms", "queue": 1.0, "cc": ["cubic"], "duration": "20s"}
    return {"cc": {"cubic": {"tcplab": "cubic", "ns3": "Cubic"}}, "red": {"thresh": 0.25, "maxthresh": 1, "limit": 2},
            "case": [case | over]}


@pytest.mark.parametrize("over, message", [
    ({"cc": ["vegas"]}, "no [cc.vegas] table"),
    ({"queue": "codel"}, "queue must be"),
    ({"queue": 0}, "queue must be"),
    ({"rtt": "4ms"}, "not above four access delays"),
    ({"duration": "5s"}, "no steady state"),
    ({"flows": 0}, "flows must be at least 1"),
])
def test_case_mistakes_are_refused(over, message):
    with pytest.raises(ConformanceError, match=message.replace("[", r"\[").replace("]", r"\]")):
        L.parse_cases(case_doc(**over))


def test_a_repeated_id_is_refused():
    doc = case_doc()
    doc["case"].append(dict(doc["case"][0]))
    with pytest.raises(ConformanceError, match="used twice"):
        L.parse_cases(doc)


def test_an_unknown_case_is_refused():
    cases, _ = L.load_cases()
    with pytest.raises(ConformanceError, match="no case 'nope'"):
        L.select(cases, ["nope"])


# --- the scenarios ------------------------------------------------------------------------------

def one(case_id):
    cases, settings = L.load_cases()
    return next(c for c in cases if c.id == case_id), settings


def test_the_dumbbell_by_hand():
    case, settings = one("f1-10m-20ms-2bdp")
    # BDP = 10e6 x 0.020 / (8 x 1500) = 16.67 packets; 2 BDP = 33 waiting, ns-2's limit 34;
    # bottleneck delay 20/2 - 2 x 1 = 8 ms
    doc = L.simulated_scenario(case, "reno", settings)
    core = next(ln for ln in doc["links"] if ln["from"] == "r1")
    assert (core["queue_limit"], core["delay"]) == (34, "8ms")
    assert doc["flows"][0]["packet_size"] == 1448 and doc["flows"][0]["profile"] == "rfc"
    args = L.ns3_arguments(case, "bbr", settings, "s.txt")
    assert {"--coreQueue=33", "--tcp=Bbr", "--pacing=true", "--coreDelay=8000us"} <= set(args)


def test_the_steady_state_follows_the_real_senders_starts():
    case, settings = one("f2-10m-10ms-1bdp")
    # simulated flows start at 0: 5 s to the 20 s duration; real senders that started at 3.0
    # and 3.4 s: 5 s after the later (8.4 s) to 20 s after the earlier (23.0 s)
    assert L.steady_span(case, settings) == (5.0, 20.0)
    assert L.steady_span(case, settings, [3.0, 3.4]) == (pytest.approx(8.4), 23.0)


def test_red_in_packets_on_every_side():
    case, settings = one("f4-10m-20ms-red")
    # BDP 16.67: thresh 0.25 -> 4, maxthresh 1 -> 17, limit 2 -> 33 packets
    core = next(ln for ln in L.dumbbell(case, settings, "x")["links"] if ln["from"] == "r1")
    assert core["queue"] == "red" and core["queue_limit"] == 33
    assert (core["red"]["thresh"], core["red"]["maxthresh"], core["red"]["bytes"]) == (4, 17, False)
    args = set(L.ns3_arguments(case, "cubic", settings, "s.txt"))
    assert {"--queueDisc=red", "--coreQueue=33", "--redMinTh=4", "--redMaxTh=17"} <= args


def test_the_real_scenario_validates_with_unique_host_names():
    case, settings = one("f2-10m-10ms-1bdp")
    doc = L.real_scenario(case, "bbr", settings, "4194304")  # the largest pid
    tcplab.validate(doc)
    names = [h["name"] for h in doc["hosts"]]
    assert names == ["k0-4194304", "s0-4194304", "k1-4194304", "s1-4194304"]
    assert "--cc bbr --time 20" in doc["hosts"][1]["run"][0]["command"]


def test_a_controller_tcplab_lacks_is_a_row_not_an_error():
    case, settings = one("f1-10m-20ms-2bdp")
    settings.cc["cubic"] = {"tcplab": "no-such-controller", "ns3": "Cubic"}
    side = L.run_tcplab(case, "cubic", settings)
    assert side.missing == "tcplab has no cubic yet"


def test_a_simulated_row_by_a_controller_tcplab_has():
    # newreno stands in for reno until tcplab has Linux's reno: a single 10 Mb/s flow, 2 BDP
    # of queue, fills the link after its first 5 s
    case, settings = one("f1-10m-20ms-2bdp")
    settings.cc["reno"] = {"tcplab": "newreno", "ns3": "LinuxReno"}
    s = L.run_tcplab(case, "reno", settings).summary("reno", case.rtt_s)
    assert s["throughput_bps"][0] > 9e6
    assert 0 < s["queue_mean"] <= 33
    assert s["sawtooth"][0]["depth"] == pytest.approx(0.5, abs=0.05)


# --- the comparison -----------------------------------------------------------------------------

def side(rates, cwnd=40.0, faithful=None):
    flows = [L.Flow(r, 0, [0.0, 1.0], [cwnd, cwnd], [0.0, 0.0]) for r in rates]
    s = L.Side(flows=flows, queue=[10.0, 20.0], faithful=faithful)
    s.lateness = {"p99_ms": 2.5, "max_ms": 30.0}
    return s


def test_single_flow_criteria():
    case, _ = one("f1-10m-20ms-2bdp")
    linux = side([10e6], faithful=True)
    assert L.compare(case, "cubic", linux, side([9.6e6]))["verdict"] == "pass"  # 4% off
    v = L.compare(case, "cubic", linux, side([9.4e6]))  # 6% off
    assert v["verdict"] == "fail" and "throughput 6.0% off" in v["why"]
    v = L.compare(case, "cubic", linux, side([10e6], cwnd=45.0))  # 12.5% off
    assert v["verdict"] == "fail" and "cwnd 12.5% off" in v["why"]


def test_multi_flow_criteria_match_flows_by_rank():
    case, _ = one("f2-10m-10ms-1bdp")
    linux = side([4e6, 6e6], faithful=True)
    assert L.compare(case, "cubic", linux, side([6.3e6, 3.8e6]))["verdict"] == "pass"  # 5%, 5%
    v = L.compare(case, "cubic", linux, side([7e6, 3e6]))
    # Jain 100/(2 x 52) = 0.9615 against 100/(2 x 58) = 0.8621: 0.0994 apart; 25% off
    assert v["verdict"] == "fail" and "Jain 0.099 off" in v["why"] and "25.0% off" in v["why"]


def test_an_unfaithful_linux_run_is_not_judged():
    case, _ = one("f1-10m-20ms-2bdp")
    v = L.compare(case, "cubic", side([10e6], faithful=False), side([5e6]))
    assert v["verdict"] == "unfaithful"
    assert "not judged; it would fail" in v["why"] and "p99 2.50 ms" in v["why"]


def test_a_missing_side_is_missing():
    case, _ = one("f1-10m-20ms-2bdp")
    assert L.compare(case, "bbr", side([10e6], faithful=True), L.Side(missing="tcplab has no bbr yet")) == {
        "verdict": "missing", "why": "tcplab has no bbr yet"}


def test_the_cli_refuses_without_root(capsys, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cli.main(["conformance", "linux", "--ci"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "needs root" in err


# --- as root: the smallest CI case, end to end --------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("ethtool"),
                    reason="emulation needs root, ip and ethtool")
def test_the_smallest_ci_case_end_to_end(tmp_path):
    report = L.run(["f1-10m-20ms-2bdp"], ccs=["cubic"], out=tmp_path)
    (row,) = report["rows"]
    linux = row["linux"]
    # the kernel's CUBIC fills most of 10 Mb/s (1448 of every 1500 bytes are data: 9.65 Mb/s)
    assert 8.5e6 < linux["throughput_bps"][0] < 9.7e6
    assert linux["lateness"]["events"] > 0 and isinstance(linux["faithful"], bool)
    assert 0 < linux["queue_mean"] <= 33
    assert linux["sawtooth"][0]["reductions"] >= 2
    if "missing" in row["tcplab"]:
        assert row["tcplab"]["missing"] == "tcplab has no cubic yet"
    assert row["ns3"].get("missing", "").startswith("ns-3 cannot") or row["ns3"]["vs_linux"]["verdict"] in (
        "pass", "fail", "unfaithful")
    assert "f1-10m-20ms-2bdp" in L.format_table(report)


# --- several runs, and the simulated sides mirroring the real ones -----------------------------

def test_the_simulated_flows_start_as_the_real_senders_did():
    case, settings = one("f2-10m-10ms-1bdp")
    # real senders connected at 1.30 and 1.321 s: the second simulated flow starts 21 ms later
    starts = L.offsets([1.30, 1.321])
    assert starts == [0.0, pytest.approx(0.021)]
    doc = L.simulated_scenario(case, "cubic", settings, starts)
    assert "start" not in doc["flows"][0] and doc["flows"][1]["start"] == "0.021000s"
    tcplab.validate(doc)
    # ns-3's flows too, and its bytes are counted from 5 s after the later start
    args = set(L.ns3_arguments(case, "cubic", settings, "s.txt", starts))
    assert {"--starts=0.000000,0.021000", "--measureFrom=5.021"} <= args


def test_runs_pool_by_rank():
    # two runs of two flows: 4 and 6 Mb/s, then 5.5 and 4.5 (the faster first): by rank the
    # slower flows average (4 + 4.5)/2 = 4.25, the faster (6 + 5.5)/2 = 5.75; cwnd samples and
    # the queue's are pooled, retransmissions averaged (3 and 4: 3.5 rounds to 4)
    a = L.Side(flows=[L.Flow(4e6, 3, [0.0], [10.0], [0.0]), L.Flow(6e6, 0, [0.0], [14.0], [0.0])], queue=[1.0])
    b = L.Side(flows=[L.Flow(5.5e6, 0, [0.0], [13.0], [0.0]), L.Flow(4.5e6, 4, [0.0], [11.0], [0.0])], queue=[3.0])
    pooled = L.pool([a, b])
    assert [f.throughput_bps for f in pooled.flows] == [4.25e6, 5.75e6]
    assert [f.cwnd for f in pooled.flows] == [[10.0, 11.0], [14.0, 13.0]]
    assert pooled.flows[0].retransmits == 4 and pooled.queue == [1.0, 3.0]
    s = pooled.summary("reno", 0.01)
    assert [r["throughput_bps"] for r in s["runs"]] == [[4e6, 6e6], [4.5e6, 5.5e6]]
    assert s["sawtooth"][0]["reductions"] == 0
    # one run is itself; a side missing in every run is missing
    assert L.pool([a]) is a
    assert L.pool([L.Side(missing="x"), L.Side(missing="x")]).missing == "x"


def test_pooled_real_runs_keep_the_worst_lateness():
    def real(p99, faithful):
        s = L.Side(flows=[L.Flow(9e6, 0, [0.0], [10.0], [0.0])], queue=[1.0], faithful=faithful, starts=[1.0])
        s.lateness = {"p99_ms": p99, "max_ms": 2 * p99}
        return s
    pooled = L.pool([real(0.02, True), real(0.5, True)])
    assert pooled.faithful and pooled.lateness == {"p99_ms": 0.5, "max_ms": 1.0} and pooled.starts == [1.0, 1.0]
    assert L.pool([real(0.02, True), real(3.0, False)]).faithful is False


def test_reuse_needs_out(capsys):
    assert cli.main(["conformance", "linux", "--reuse"]) == 2
    assert "give --out" in capsys.readouterr().err


def test_the_markdown_table_shows_each_side_and_verdict():
    case, _ = one("f2-10m-10ms-1bdp")
    linux = side([4e6, 6e6], faithful=True)
    linux.lateness, linux.starts = {"p99_ms": 0.02, "max_ms": 1.0}, [1.0, 1.02]
    sim = side([6.3e6, 3.8e6])
    row = {"case": case.id, "cc": "cubic", "linux": linux.summary("cubic", case.rtt_s),
           "tcplab": {**sim.summary("cubic", case.rtt_s), "vs_linux": L.compare(case, "cubic", linux, sim)},
           "ns3": {"missing": "ns-3 cannot be built here (bash bench/install.sh)", "vs_linux": {"verdict": "missing",
                                                                                           "why": "ns-3 cannot be built here"}}}
    table = L.format_markdown({"rows": [row]}).splitlines()
    assert len(table) == 3 and table[0].startswith("| case | cc |")
    cells = [c.strip() for c in table[2].split("|")[1:-1]]
    assert cells[:2] == ["f2-10m-10ms-1bdp", "cubic"]
    assert cells[2].startswith("4.00/6.00; cwnd 40/40;") and cells[3] == "0.020 ms"
    # matched by rank: 3.8 against 4 is 5.0% off, 6.3 against 6 is 5.0%; Jain 100/(2 x 52) =
    # 0.9615 against 10.1²/(2 x (6.3² + 3.8²)) = 102.01/108.26 = 0.9423: 0.019 apart
    assert cells[5] == "thr 5.0%/5.0%, cwnd 0.0%/0.0%, Jain ±0.019: **pass**"
    assert cells[6].startswith("ns-3 cannot be built")
