"""Writes the tcplab scenarios of ns-2.35's test-suite-tcp.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcp/generate.py

The suite (framework misc.tcl + topologies.tcl; trace-all to all.tr, no TCP header fields; the
extra per-queue trace of r1's links goes to out.tr and is not compared) sets, for every test:
  Agent/TCP tcpTick_ 0.1, precisionReduce_ false, rtxcur_init_ 6, windowInit_ 1, singledup_ 0,
  minrto_ 0, syn_ false, delay_growth_ false, rfc2988_ true (the default), useHeaders_ false
  (`use_headers = false` with the real packetSize_), updated_rttvar_ false (read by no C++ code
  in ns-2.35: no effect);
  Agent/TCPSink SYN_immediate_ack_ false (`[tcpsink] syn_immediate_ack = false`; read only by
  TCPSink/DelAck);
  Queue/RED bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15.
A test's init sets class defaults (timerfix_, rttvar_exp_, timestamps_, T_SRTT_BITS, old_ecn_,
rfc2988_, QOption_ ...) before the agents are made, so they are global `[tcp]` knobs here.

Topologies (node ids = creation order, NodeTopology/4nodes: s1 s2 r1 k1; 6nodes: s1 s2 r1 r2
s3 s4):
  net0: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 100ms DropTail, limit 6 both ways
  net2: s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both ways),
        s3-r2 10Mb 4ms, s4-r2 10Mb 5ms
  net4: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 10ms DropTail, limit 2 both ways
  net6: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 20ms RED (setbit_ true), limit 25 both ways
  net8: s1-s2 1000Mb 0ms, s2-r1 9.6Kb 1ms, r1-k1 800Kb 10ms RED (setbit_ true), limit 25
The topology is built in TestSuite init, before a test's `run` sets class defaults; the
`Agent/TCP set ...` lines in `run` still precede create-connection, so they apply.
drop_pkts L: an ErrorModel/List (unit pkt) bound to fid 1 in an ErrorModule Fid on r1->k1.
Run length: openTrace T schedules cleanup (halt) at T.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

GLOBAL_TCP = {"tcp_tick": "100ms", "precision_reduce": False, "rtxcur_init": "6s",
              "window_init": 1, "singledup": 0, "minrto": "0s", "syn": False,
              "delay_growth": False, "use_headers": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0}
NODES4 = ["s1", "s2", "r1", "k1"]
NODES6 = ["s1", "s2", "r1", "r2", "s3", "s4"]


def links(net: str, changes: dict | None = None) -> list[dict]:
    """The topology's links; `changes` maps a link index to fields to override."""
    def link(a, b, bw, d, **kw):
        return {"from": a, "to": b, "bandwidth": bw, "delay": d, **kw}
    red = {"queue": "red", "queue_limit": 25, "red": dict(RED, setbit=True)}
    if net == "net8":
        out = [link("s1", "s2", "1000Mb", "0ms"), link("s2", "r1", "9.6Kb", "1ms"),
               link("r1", "k1", "800Kb", "10ms", **red)]
    elif net == "net2":
        out = [link("s1", "r1", "10Mb", "2ms"), link("s2", "r1", "10Mb", "3ms"),
               link("r1", "r2", "1.5Mb", "20ms", queue="red", queue_limit=25, red=dict(RED)),
               link("s3", "r2", "10Mb", "4ms"), link("s4", "r2", "10Mb", "5ms")]
    else:
        bottleneck = {"net0": ("100ms", {"queue_limit": 6}), "net4": ("10ms", {"queue_limit": 2}),
                      "net6": ("20ms", red)}[net]
        out = [link("s1", "r1", "8Mb", "5ms"), link("s2", "r1", "8Mb", "5ms"),
               link("r1", "k1", "800Kb", bottleneck[0], **bottleneck[1])]
    for i, fields in (changes or {}).items():
        out[i].update(fields)
    return out


def flow(name, fid, src, protocol, dst="k1", **extra) -> dict:
    return {"name": name, "fid": fid, "from": src, "to": dst, "protocol": protocol, **extra}


def scenario(test, comment, duration, links_, flows, tcp=None, drops=None, actions=None,
             nodes=None) -> dict:
    losses = []
    if drops:
        bound = [f["name"] for f in flows if f["fid"] == 1]  # drop_pkts binds fid 1
        losses = [{"link": "r1->k1", "flows": bound, "packets": drops}]
    return {"comment": comment, "name": test, "duration": duration, "nodes": nodes or NODES4,
            "tcp": dict(GLOBAL_TCP, **(tcp or {})), "tcpsink": {"syn_immediate_ack": False},
            "links": links_, "flows": flows, "losses": losses, "actions": actions or [],
            "output": {"trace": ["ns2"]}}


def timers_a(test, comment, tcp=None) -> dict:
    """timersA's body: produce 1600 at 0; its producemore at 25.3 s and later fall after the
    halt at 3.5 s."""
    return scenario(
        test, f"{test}: Tahoe s1->k1 fid 1, window_ 5, produce 1600, drops {{2 7 9 10 11}}; {comment}",
        "3.5s", links("net4"), [flow("tcp1", 1, "s1", "tahoe", packets=1600, tcp={"window": 5})],
        tcp=tcp, drops=[2, 7, 9, 10, 11])


def timers_n(test, tick, window, duration, packets=None) -> dict:
    """timers1-5: Reno s1->r2 + TCPSink/DelAck (fid 0) on net2, `$ns queue-limit r1 r2 29`
    (r2->r1 stays 25), tcpTick_ set in run before the agent is made."""
    extra = {"packets": packets} if packets else {}
    what = f"produce {packets}" if packets else "FTP start"
    return scenario(
        test, f"{test}: Reno s1->r2 DelAck sink, tcpTick_ {tick}, window_ {window}, {what} at 0",
        duration, links("net2", {2: {"queue_limit": 29, "reverse_queue_limit": 25}}),
        [flow("tcp1", 0, "s1", "reno", dst="r2", sink="delack", tcp={"window": window}, **extra)],
        tcp={"tcp_tick": tick}, nodes=NODES6)


def run1(test, comment, fid, stoptime, drops=None) -> dict:
    """run1: Tahoe s1->k1 with packetSize_ 100 and window_ 25 (class-level, set in run),
    `produce 100` at 0, `producemore 100` at 2.4 and 2.5."""
    more = [{"at": t, "flow": "tcp1", "do": "producemore", "packets": 100}
            for t in ("2.4s", "2.5s")]
    return scenario(
        test, comment, stoptime, links("net6"),
        [flow("tcp1", fid, "s1", "tahoe", packets=100, packet_size=100, tcp={"window": 25})],
        drops=drops, actions=more)


def tests() -> tuple[dict, dict]:
    out = {
        # One ECN-capable connection (old_ecn_ 1, class-level) and one without.
        "ecn": scenario(
            "ecn", "ecn: Tahoe s1->k1 window_ 30 ecn_ 1 from 0, Tahoe s2->k1 window_ 20 from 3.0",
            "10s", links("net6"),
            [flow("tcp1", 0, "s1", "tahoe", tcp={"window": 30, "ecn": True}),
             flow("tcp2", 1, "s2", "tahoe", start="3s", tcp={"window": 20, "ecn": False})],
            tcp={"old_ecn": True}),
        # First and second packets dropped: the initial RTO and its backoff.
        "timers": scenario(
            "timers", "timers: Tahoe s2->k1 fid 1, window_ 3, FTP at 0.09, drops {0 1}", "25s",
            links("net4"), [flow("tcp1", 1, "s2", "tahoe", start="0.09s", tcp={"window": 3})],
            drops=[0, 1]),
        "timersA": timers_a("timersA", "timerfix_ false", {"timerfix": False}),
        "timersAfix": timers_a("timersAfix", "timerfix_ true"),
        "timersA1": timers_a("timersA1", "rttvar_exp_ 3, timerfix_ false",
                             {"rttvar_exp": 3, "timerfix": False}),
        "timersA2": timers_a("timersA2", "timestamps_ true, tcpTick_ 0.001, timerfix_ false",
                             {"timestamps": True, "tcp_tick": "1ms", "timerfix": False}),
        "timersA3": timers_a("timersA3", "timestamps_, tcpTick_ 0.001, T_SRTT_BITS 5, "
                             "T_RTTVAR_BITS 4, timerfix_ false",
                             {"timestamps": True, "tcp_tick": "1ms", "srtt_bits": 5,
                              "rttvar_bits": 4, "timerfix": False}),
        "timers1": timers_n("timers1", "100ms", 40, "4s", packets=180),
        "timers2": timers_n("timers2", "500ms", 40, "4s", packets=180),
        "timers3": timers_n("timers3", "1ms", 40, "4s", packets=180),
        "timers4": timers_n("timers4", "1ms", 10, "2s"),
        "timers5": timers_n("timers5", "1ms", 2, "2s"),
        # RTO backoff up to maxrto_ 60 s: window_ 1, packets 10..19 dropped.
        "timers_backoffs": scenario(
            "timers_backoffs", "timers_backoffs: Tahoe s1->k1 fid 1, window_ 1, produce 30, drops 10..19",
            "400s", links("net6"),
            [flow("tcp1", 1, "s1", "tahoe", packets=30, tcp={"window": 1})],
            drops=list(range(10, 20))),
        # net0 with `$ns delay s2 r1 200ms` (both ways) and queue-limit 10 on r1-k1 (both ways).
        "stats1": scenario(
            "stats1", "stats1: Reno s1->k1 window_ 30 and Tahoe s2->k1 window_ 3, both from 1.0",
            "10.1s", links("net0", {1: {"delay": "200ms"}, 2: {"queue_limit": 10}}),
            [flow("tcp1", 0, "s1", "reno", start="1s", tcp={"window": 30}),
             flow("tcp2", 1, "s2", "tahoe", start="1s", tcp={"window": 3})]),
        # QOption_ 0 is ns-2's default.
        "quiescent_100ms": run1("quiescent_100ms", "quiescent_100ms: Tahoe after a quiescent "
                                "period, QOption_ 0", 0, "30.1s"),
        "quiescentB": run1("quiescentB", "quiescentB: Tahoe, lossy r1->k1 drops {2} of fid 1, "
                           "QOption_ 0", 1, "3s", drops=[2]),
        # Class-level syn_ true, delay_growth_ true, windowInitOption_ 2, minrto_ 1 in run.
        "dialup": scenario(
            "dialup", "dialup: Sack1 s1->k1, 1500-byte packets over 9.6 kb/s", "30.01s",
            links("net8"), [flow("tcp1", 0, "s1", "sack1", packet_size=1500)],
            tcp={"syn": True, "delay_growth": True, "window_init_option": 2, "minrto": "1s"}),
        "dialup1": scenario(
            "dialup1", "dialup1: dialup with rfc2988_ false", "30.01s",
            links("net8"), [flow("tcp1", 0, "s1", "sack1", packet_size=1500)],
            tcp={"syn": True, "delay_growth": True, "window_init_option": 2, "minrto": "1s",
                 "rfc2988": False}),
    }
    qopt = ("Agent/TCP QOption_ 1 (TCP quiescence option: tcp.cc TcpAgent::send_much/"
            "process_qoption_after_send) is not a tcplab knob")
    skipped = {"quiescentB_qoption": qopt}
    for t in ("quiescent_100ms_fine", "quiescent_100ms_coarse", "quiescent_1ms_fine",
              "quiescent_1ms_coarse", "quiescent_500ms_fine", "quiescent_500ms_coarse"):
        skipped[t] = ("Agent/TCP QOption_ 1, control_increase_ 1 and EnblRTTCtr_ (quiescence "
                      "option, tcp.cc process_qoption_after_send/ack; opencwnd's "
                      "control_increase_ test) are not tcplab knobs")
    for t in ("underutilized_100ms", "underutilized_100ms_control", "underutilized_100ms_control_Q",
              "underutilized_100ms_Q", "underutilized_100ms_control_Reno",
              "underutilized_100ms_control_Newreno", "underutilized_100ms_control_Sack"):
        why = ("Application/Telnet (interval_ 0.0005, changed to 0.01 at 0.045 s and back at "
               "2.2 s, stop at 2.5 s; exponential interarrivals) is not modelled")
        knobs = [k for k, on in (("QOption_ 1", t.endswith("Q")),
                                 ("control_increase_ 1", "control" in t)) if on]
        if knobs:
            why += "; also Agent/TCP " + " and ".join(knobs) + " (not tcplab knobs)"
        skipped[t] = why
    return out, skipped


# ----- a small TOML writer for these dicts -----

def value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(v)


def table(header: str, d: dict) -> list[str]:
    lines = [header]
    subs = []
    for k, v in d.items():
        if isinstance(v, dict):
            subs.append((k, v))
        else:
            lines.append(f"{k} = {value(v)}")
    for k, v in subs:
        if v:
            lines += [""] + table(f"[{header.strip('[]')}.{k}]", v)
    return lines


def to_toml(s: dict) -> str:
    lines = [f"# ns-2.35 test-suite-tcp.tcl, test {s['comment']}.",
             "# Written by conformance/ns2/tcp/generate.py; compare with `tcplab conformance ns2`."]
    lines += [f"{k} = {value(s[k])}" for k in ("name", "duration", "nodes")]
    lines += [""] + table("[tcp]", s["tcp"])
    lines += [""] + table("[tcpsink]", s["tcpsink"])
    for key in ("links", "flows", "losses", "actions"):
        for item in s[key]:
            lines += [""] + table(f"[[{key}]]", item)
    lines += [""] + table("[output]", s["output"])
    return "\n".join(lines) + "\n"


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    out, skipped = tests()
    for test, s in out.items():
        (HERE / f"{test}.toml").write_text(to_toml(s))
    lines = ["# Tests of test-suite-tcp.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (HERE / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
