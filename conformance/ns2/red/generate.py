"""Writes the tcplab scenarios of ns-2.35's test-suite-red.tcl, one file per test.

Run from anywhere: python conformance/ns2/red/generate.py

What the suite (Debian ns2-examples, tcl/test/test-suite-red.tcl) sets for every test:
* Agent/TCP: precisionReduce_ false, rtxcur_init_ 6, tcpTick_ 0.1, windowInit_ 1, singledup_ 0,
  minrto_ 0, syn_ false, delay_growth_ false, rfc2988_ false, SetCWRonRetransmit_ true (tcplab's
  behaviour); updated_rttvar_ false (no C++ code reads it); useHeaders_ false
  (`use_headers = false` with the real packetSize_: data packets are packetSize_ bytes).
* Queue/RED: bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15,
  use_mark_p_ false (the rest ns-2.35's defaults: gentle_ true, wait_ true, linterm_ 10,
  mean_pktsize_ 500, mark_p_ 0.1, setbit_ false).
* trace-all into all.tr (every link, no TCP header fields), except the flows_* tests.

Topologies: net2 = s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both ways,
linterm_ 50 on both queues), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms. net3 = s1-r1 10Mb 0ms, s2-r1 10Mb 1ms,
r1-r2 1.5Mb 10ms RED (limit 100), s3-r2 10Mb 2ms, s4-r2 10Mb 3ms; net3 makes the r1-r2 duplex
link twice (`duplex-link r1 r2` then `duplex-link r2 r1`): the second pair replaces the first in
ns-2's link_ table, so routes, queue-limit and the trace only ever see one duplex link.

The ungentle family (ungentle, gentle, gentleEcn, gentleEcn1, ungentleBadParams,
gentleBadParams) sets its Queue/RED knobs in init (before the topology), then in run, after
setTopo, `Agent/TCP set packetSize_ 1500, window_ 50, timerfix_ false` (they apply: the agents
come later) and `Queue/RED set bytes_ true` (no effect: the RED queues already exist). Its flow
monitor on r1->r2 (attach-fmon) only counts; it writes nothing to all.tr.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

GLOBAL_TCP = """\
[tcp]
precision_reduce = false
rtxcur_init = "6s"
tcp_tick = "100ms"
window_init = 1
singledup = 0
minrto = "0s"
syn = false
delay_growth = false
rfc2988 = false
use_headers = false
"""

NET2 = [("s1", "r1", "10Mb", "2ms"), ("s2", "r1", "10Mb", "3ms"), ("r1", "r2", "1.5Mb", "20ms"),
        ("s3", "r2", "10Mb", "4ms"), ("s4", "r2", "10Mb", "5ms")]
NET3 = [("s1", "r1", "10Mb", "0ms"), ("s2", "r1", "10Mb", "1ms"), ("r1", "r2", "1.5Mb", "10ms"),
        ("s3", "r2", "10Mb", "2ms"), ("s4", "r2", "10Mb", "3ms")]
NODES = ["s1", "s2", "r1", "r2", "s3", "s4"]

# The suite's class-level RED settings.
RED = {"bytes": "false", "queue_in_bytes": "false", "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0, "use_mark_p": "false"}


def scenario(test, about, net, red, limit, flows, stop, tcp=None):
    """flows: (name, fid, from, to, protocol, start, window, packetSize_, ecn)."""
    lines = [f"# ns-2.35 test-suite-red.tcl, test {test}: {about}",
             "# Written by conformance/ns2/red/generate.py; compare with `tcplab conformance ns2`.",
             f'name = "{test}"', f'duration = "{stop}s"',
             "nodes = [" + ", ".join(f'"{n}"' for n in NODES) + "]", "",
             GLOBAL_TCP + "".join(f"{k} = {v}\n" for k, v in (tcp or {}).items())]
    for a, b, bw, delay in net:
        lines += ["[[links]]", f'from = "{a}"', f'to = "{b}"', f'bandwidth = "{bw}"', f'delay = "{delay}"']
        if (a, b) == ("r1", "r2"):
            lines += ['queue = "red"', f"queue_limit = {limit}", "[links.red]"]
            lines += [f"{k} = {v}" for k, v in red.items()]
        lines.append("")
    for name, fid, src, dst, protocol, start, window, size, ecn in flows:
        sink = "sack1" if protocol == "sack1" else "tcpsink"
        lines += ["[[flows]]", f'name = "{name}"', f"fid = {fid}", f'from = "{src}"', f'to = "{dst}"',
                  f'protocol = "{protocol}"', f'sink = "{sink}"', f'start = "{start}s"',
                  f'packet_size = "{size}B"',
                  "[flows.tcp]", f"window = {window}"]
        if ecn:
            lines.append("ecn = true")
        lines.append("")
    lines += ["[output]", 'trace = ["ns2"]', ""]
    (HERE / f"{test}.toml").write_text("\n".join(lines))


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()

    # net2 tests (mainSim and its copies): two FTPs s1->s3 (fid 0, from 0 s) and s2->s3 (fid 1,
    # from 3 s), window_ 15, 10 s. linterm_ 50 is set on both r1-r2 queues.
    net2_red = dict(RED, linterm=50.0)

    def two(protocol):
        return [("tcp1", 0, "s1", "s3", protocol, 0.0, 15, 1000, False),
                ("tcp2", 1, "s2", "s3", protocol, 3.0, 15, 1000, False)]

    scenario("red1", "RED, without ECN (mainSim Reno).", NET2, net2_red, 25, two("reno"), 10.0)
    # red2 sets thresh_ 5, maxthresh_ 10, q_weight_ 0.003 on r1->r2 only; tcplab's [links.red]
    # covers both directions, and r2->r1 carries only 40-byte ACKs on a 1.5 Mb/s link, whose
    # queue never holds 2 packets, so its RED never reaches a decision (nor a random draw).
    scenario("red2", "RED, without ECN, with different parameters.", NET2,
             dict(net2_red, thresh=5.0, maxthresh=10.0, q_weight=0.003), 25, two("reno"), 10.0)
    scenario("q_weight", "RED, q_weight 0.002 (mainSim Sack1).", NET2, net2_red, 25, two("sack1"), 10.0)
    # q_weight_ 0: ns-2 computes 1 - exp(-1/ptc), ptc = link rate / (8 * mean_pktsize_);
    # maxthresh_ 0 means 3 * thresh_.
    scenario("q_weight_auto", "RED, q_weight_ and maxthresh_ automatic (mainSim Sack1).", NET2,
             dict(net2_red, q_weight=0.0, maxthresh=0.0), 25, two("sack1"), 10.0)
    # Test/ecn: `Queue/RED set setbit_ true` and `Agent/TCP set old_ecn_ 1` in init; two Reno
    # flows with ecn_ 1, window_ 15, as mainSim.
    scenario("ecn", "RED with ECN, old_ecn_ 1.", NET2, dict(net2_red, setbit="true"), 25,
             [("tcp1", 0, "s1", "s3", "reno", 0.0, 15, 1000, True),
              ("tcp2", 1, "s2", "s3", "reno", 3.0, 15, 1000, True)], 10.0,
             tcp={"old_ecn": "true"})

    # net3 "congested" tests: the run body sets, before the topology, Agent/TCP packetSize_ 1500,
    # window_ 75 (1000 in congested1/2), ecn_ 1, Queue/RED bytes_ true, gentle_ false (true in
    # congested1/2), setbit_ true. Sack1 flows, 5 s.
    net3_red = dict(RED, bytes="true", gentle="false", setbit="true")
    one = [("tcp1", 0, "s1", "s3", "sack1", 0.0, 75, 1500, True)]
    scenario("congested", "RED, not gentle, ECN.", NET3, net3_red, 100, one, 5.0)
    both = [("tcp1", 0, "s1", "s3", "sack1", 0.0, 1000, 1500, True),
            ("tcp2", 0, "s2", "s4", "sack1", 0.2, 1000, 1500, True)]
    scenario("congested1_mark_p", "RED, gentle, ECN, mark_p_ 1.0.", NET3,
             dict(net3_red, gentle="true", use_mark_p="true", mark_p=1.0), 100, both, 5.0)
    # mark_p_ 2.0: RED marks every ECN-capable packet it picks, even where p would be >= 1.
    scenario("congested_mark_p", "RED, not gentle, ECN, mark_p_ 2.0.", NET3,
             dict(net3_red, use_mark_p="true", mark_p=2.0), 100, one, 5.0)
    scenario("congested2_mark_p", "RED, gentle, ECN, mark_p_ 2.0.", NET3,
             dict(net3_red, gentle="true", use_mark_p="true", mark_p=2.0), 100, both, 5.0)

    # The ungentle family on net3: eight Sack1 flows, 40 s; packetSize_ 1500 (tcp2 1000, tcp4
    # 512, tcp8 2000), window_ 50, timerfix_ false; ecn_ 1 in the *Ecn* tests.
    def eight(ecn):
        return [("tcp1", 0, "s1", "s3", "sack1", 0.0, 50, 1500, ecn),
                ("tcp2", 1, "s2", "s3", "sack1", 1.0, 50, 1000, ecn),
                ("tcp3", 2, "s1", "s3", "sack1", 5.0, 50, 1500, ecn),
                ("tcp4", 3, "s2", "s3", "sack1", 6.0, 50, 512, ecn),
                ("tcp5", 4, "s1", "s3", "sack1", 9.0, 50, 1500, ecn),
                ("tcp6", 5, "s2", "s3", "sack1", 10.0, 50, 1500, ecn),
                ("tcp7", 6, "s4", "s2", "sack1", 13.0, 50, 1500, ecn),
                ("tcp8", 7, "s3", "s1", "sack1", 14.0, 50, 2000, ecn)]
    ungentle_tcp = {"timerfix": "false"}
    for test, about, knobs, ecn in (
            ("ungentle", "RED, not gentle.", {"gentle": "false"}, False),
            ("gentle", "RED, gentle.", {"gentle": "true"}, False),
            ("gentleEcn", "RED, gentle, with ECN.", {"gentle": "true", "setbit": "true"}, True),
            ("gentleEcn1", "RED, gentle, with ECN, mark_p_ 0.1.",
             {"gentle": "true", "setbit": "true", "mark_p": 0.1, "use_mark_p": "true"}, True),
            ("ungentleBadParams", "RED, not gentle, bad RED parameters.",
             {"gentle": "false", "linterm": 50.0, "maxthresh": 10.0}, False),
            ("gentleBadParams", "RED, gentle, bad RED parameters.",
             {"gentle": "true", "linterm": 50.0, "maxthresh": 10.0}, False)):
        scenario(test, about, NET3, dict(RED, **knobs), 100, eight(ecn), 40.0, tcp=ungentle_tcp)

    telnet = ("Application/Telnet with interval_ 0 (tcplib's telnet interarrival distribution, "
              "tcplib-telnet.cc) on tcp4 is not modelled")
    skipped = {
        "red_twoway": telnet,
        "red_twowaybytes": telnet + "; also bytes_/queue_in_bytes_ true on r1->r2 only (r2->r1 "
                                    "stays in packets): [links.red] covers both directions",
        "flows_unforced": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
        "flows_forced": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
        "flows_combined": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
    }
    lines = ["# Tests of test-suite-red.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (HERE / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
