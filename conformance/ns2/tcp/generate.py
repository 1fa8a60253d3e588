"""Writes the tcplab scenarios of ns-2.35's test-suite-tcp.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcp/generate.py

The suite (framework misc.tcl + topologies.tcl; trace-all to all.tr, no TCP header fields; the
extra per-queue trace of r1's links goes to out.tr and is not compared) sets, for every test:
  Agent/TCP tcpTick_ 0.1, precisionReduce_ false, rtxcur_init_ 6, windowInit_ 1, singledup_ 0,
  minrto_ 0, syn_ false, delay_growth_ false, rfc2988_ true (the default), useHeaders_ false,
  updated_rttvar_ false (read by no C++ code in ns-2.35: no effect);
  Agent/TCPSink SYN_immediate_ack_ false (read only by TCPSink/DelAck);
  Queue/RED bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15.

useHeaders_ false: ns-2 then sends data packets of exactly packetSize_ bytes (tcp.cc
TcpAgent::output adds headersize() only when useHeaders_ is true; a SYN is always
tcpip_base_hdr_size_ = 40 bytes). tcplab always adds tcpip_base_hdr_size (>= 1) to the payload,
so the scenarios stand in payload = packetSize_ - 40, which gives the same wire size. This is
exact for the compared tests because none of them reads packetSize_ otherwise (the one
windowInitOption_ 2 test, dialup, gets 3 segments from both 1500 and 1460 bytes). A
`use_headers` knob would remove this stand-in. Caution: ns-2 sends seqno 0 without headers when
syn_ is false even with useHeaders_ true (TcpAgent::output: the `else if (useHeaders_)` branch
is skipped for seqno 0); once tcplab does the same, timers, timersAfix, timers_backoffs and
stats1 (syn_ false) need use_headers = false instead of this stand-in.

Topologies (node ids = creation order, NodeTopology/4nodes: s1 s2 r1 k1):
  net0: s1-r1 8Mb 5ms, s2-r1 8Mb 5ms, r1-k1 800Kb 100ms DropTail, limit 6 both ways
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
HDR = 40  # tcpip_base_hdr_size_, see the useHeaders_ note above

GLOBAL_TCP = {"tcp_tick": "100ms", "precision_reduce": False, "rtxcur_init": "6s",
              "window_init": 1, "singledup": 0, "minrto": "0s", "syn": False,
              "delay_growth": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0}
NODES = ["s1", "s2", "r1", "k1"]


def links(net: str, changes: dict | None = None) -> list[dict]:
    """The topology's links; `changes` maps a link index to fields to override."""
    def link(a, b, bw, d, **kw):
        return {"from": a, "to": b, "bandwidth": bw, "delay": d, **kw}
    red = {"queue": "red", "queue_limit": 25, "red": dict(RED, setbit=True)}
    if net == "net8":
        out = [link("s1", "s2", "1000Mb", "0ms"), link("s2", "r1", "9.6Kb", "1ms"),
               link("r1", "k1", "800Kb", "10ms", **red)]
    else:
        bottleneck = {"net0": ("100ms", {"queue_limit": 6}), "net4": ("10ms", {"queue_limit": 2}),
                      "net6": ("20ms", red)}[net]
        out = [link("s1", "r1", "8Mb", "5ms"), link("s2", "r1", "8Mb", "5ms"),
               link("r1", "k1", "800Kb", bottleneck[0], **bottleneck[1])]
    for i, fields in (changes or {}).items():
        out[i].update(fields)
    return out


def flow(name, fid, src, protocol, packet_size=1000, **extra) -> dict:
    return {"name": name, "fid": fid, "from": src, "to": "k1", "protocol": protocol,
            "packet_size": packet_size - HDR, **extra}


def scenario(test, comment, duration, links_, flows, tcp=None, drops=None) -> dict:
    losses = []
    if drops:
        bound = [f["name"] for f in flows if f["fid"] == 1]  # drop_pkts binds fid 1
        losses = [{"link": "r1->k1", "flows": bound, "packets": drops}]
    return {"comment": comment, "name": test, "duration": duration, "nodes": NODES,
            "tcp": dict(GLOBAL_TCP, **(tcp or {})), "links": links_, "flows": flows,
            "losses": losses, "output": {"trace": ["ns2"]}}


def tests() -> tuple[dict, dict]:
    out = {
        # First and second packets dropped: the initial RTO and its backoff.
        "timers": scenario(
            "timers", "timers: Tahoe s2->k1 fid 1, window_ 3, FTP at 0.09, drops {0 1}", "25s",
            links("net4"), [flow("tcp1", 1, "s2", "tahoe", start="0.09s", tcp={"window": 3})],
            drops=[0, 1]),
        # timersA's body with timerfix_ true (the default); producemore at 25.3 s and later
        # fall after the halt at 3.5 s.
        "timersAfix": scenario(
            "timersAfix", "timersAfix: Tahoe s1->k1 fid 1, window_ 5, produce 1600, drops {2 7 9 10 11}",
            "3.5s", links("net4"),
            [flow("tcp1", 1, "s1", "tahoe", packets=1600, tcp={"window": 5})],
            drops=[2, 7, 9, 10, 11]),
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
        # Class-level syn_ true, delay_growth_ true, windowInitOption_ 2, minrto_ 1 in run.
        "dialup": scenario(
            "dialup", "dialup: Sack1 s1->k1, 1500-byte packets over 9.6 kb/s", "30.01s",
            links("net8"), [flow("tcp1", 0, "s1", "sack1", packet_size=1500)],
            tcp={"syn": True, "delay_growth": True, "window_init_option": 2, "minrto": "1s"}),
    }
    skipped = {
        "ecn": "Agent/TCP old_ecn_ 1 is not expressible (tcp.cc recv_newack_helper opens cwnd on ECN-echo ACKs within a burst)",
        "timersA": "Agent/TCP timerfix_ false is not expressible (tcp.cc newack restarts the timer before the RTT update)",
        "timersA1": "Agent/TCP rttvar_exp_ 3 and timerfix_ false are not expressible",
        "timersA2": "Agent/TCP timerfix_ false is not expressible (and timestamps_ with useHeaders_ false: no 10-byte option in the size)",
        "timersA3": "Agent/TCP T_SRTT_BITS 5, T_RTTVAR_BITS 4 and timerfix_ false are not expressible",
        "dialup1": "Agent/TCP rfc2988_ false is not expressible (tcp.cc rtt_timeout/rtt_backoff)",
    }
    for t in ("timers1", "timers2", "timers3", "timers4", "timers5"):
        skipped[t] = ("TCPSink/DelAck with SYN_immediate_ack_ false is not expressible (tcplab always ACKs "
                      "seqno 0 at once; with syn_ false seqno 0 is data and ns-2 delays its ACK)")
    for t in ("quiescent_100ms", "quiescentB", "quiescentB_qoption"):
        skipped[t] = "FTP producemore at 2.4 s and 2.5 s (mid-run $ns at actions) is not expressible"
    for t in ("quiescent_100ms_fine", "quiescent_100ms_coarse", "quiescent_1ms_fine",
              "quiescent_1ms_coarse", "quiescent_500ms_fine", "quiescent_500ms_coarse"):
        skipped[t] = ("FTP producemore mid-run and Agent/TCP QOption_, control_increase_, EnblRTTCtr_ "
                      "are not expressible")
    for t in ("underutilized_100ms", "underutilized_100ms_control", "underutilized_100ms_control_Q",
              "underutilized_100ms_Q", "underutilized_100ms_control_Reno",
              "underutilized_100ms_control_Newreno", "underutilized_100ms_control_Sack"):
        skipped[t] = ("Application/Telnet (interval_ changed mid-run, stop at 2.5 s) and Agent/TCP "
                      "QOption_/control_increase_ are not expressible")
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
    for key in ("links", "flows", "losses"):
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
