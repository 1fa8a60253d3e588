"""Writes the tcplab scenarios of ns-2.35's test-suite-red.tcl, one file per test.

Run from anywhere: python conformance/ns2/red/generate.py

What the suite (Debian ns2-examples, tcl/test/test-suite-red.tcl) sets for every test:
* Agent/TCP: precisionReduce_ false, rtxcur_init_ 6, tcpTick_ 0.1, windowInit_ 1, singledup_ 0,
  minrto_ 0, syn_ false, delay_growth_ false, SetCWRonRetransmit_ true (tcplab's behaviour);
  updated_rttvar_ false (no C++ code reads it); rfc2988_ false (with minrto_ 0 rtt_timeout()
  gives the same value either way, and rtt_backoff() only differs once t_backoff_ reaches 64);
  useHeaders_ false: data packets are packetSize_ bytes on the wire, no 40-byte TCP/IP header.
  tcplab always adds tcpip_base_hdr_size (at least 1), so a flow's payload is written as
  packetSize_ - 40 to give ns-2's wire size (with syn_ false no 40-byte SYN is sent).
* Queue/RED: bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5, maxthresh_ 15,
  use_mark_p_ false (the rest ns-2.35's defaults: gentle_ true, wait_ true, linterm_ 10,
  mean_pktsize_ 500, mark_p_ 0.1, setbit_ false).
* trace-all into all.tr (every link, no TCP header fields), except the flows_* tests.

Topologies: net2 = s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both ways,
linterm_ 50 on both queues), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms. net3 = s1-r1 10Mb 0ms, s2-r1 10Mb 1ms,
r1-r2 1.5Mb 10ms RED (limit 100), s3-r2 10Mb 2ms, s4-r2 10Mb 3ms; net3 makes the r1-r2 duplex
link twice (`duplex-link r1 r2` then `duplex-link r2 r1`): the second pair replaces the first in
ns-2's link_ table, so routes, queue-limit and the trace only ever see one duplex link.
"""

import math
from pathlib import Path

HERE = Path(__file__).resolve().parent

HEADER = 40  # ns-2 tcpip_base_hdr_size_, which tcplab adds and useHeaders_ false does not

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
"""

NET2 = [("s1", "r1", "10Mb", "2ms"), ("s2", "r1", "10Mb", "3ms"), ("r1", "r2", "1.5Mb", "20ms"),
        ("s3", "r2", "10Mb", "4ms"), ("s4", "r2", "10Mb", "5ms")]
NET3 = [("s1", "r1", "10Mb", "0ms"), ("s2", "r1", "10Mb", "1ms"), ("r1", "r2", "1.5Mb", "10ms"),
        ("s3", "r2", "10Mb", "2ms"), ("s4", "r2", "10Mb", "3ms")]
NODES = ["s1", "s2", "r1", "r2", "s3", "s4"]

# The suite's class-level RED settings.
RED = {"bytes": "false", "queue_in_bytes": "false", "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0, "use_mark_p": "false"}


def scenario(test, about, net, red, limit, flows, stop):
    """flows: (name, fid, from, to, protocol, start, window, packetSize_, ecn)."""
    lines = [f"# ns-2.35 test-suite-red.tcl, test {test}: {about}",
             "# Written by conformance/ns2/red/generate.py; compare with `tcplab conformance ns2`.",
             f'name = "{test}"', f'duration = "{stop}s"',
             "nodes = [" + ", ".join(f'"{n}"' for n in NODES) + "]", "", GLOBAL_TCP]
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
                  f'packet_size = "{size - HEADER}B"  # {size} bytes on the wire (useHeaders_ false)',
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
    # q_weight_ 0 means 1 - exp(-1/ptc), ptc = 1.5e6 / (8 * mean_pktsize_ 500) = 375 packets/s;
    # scenario validation refuses 0, so the weight ns-2 computes is written out (same libm exp,
    # and repr() round-trips the double). maxthresh_ 0 means 3 * thresh_.
    auto_q_w = 1.0 - math.exp(-1.0 / (1.5e6 / (8.0 * 500)))
    scenario("q_weight_auto", "RED, q_weight_ and maxthresh_ automatic (mainSim Sack1).", NET2,
             dict(net2_red, q_weight=repr(auto_q_w), maxthresh=0.0), 25, two("sack1"), 10.0)

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

    timerfix = "Agent/TCP set timerfix_ false (newack() restarts the rtx timer before the RTT update) has no scenario knob"
    skipped = {
        "ecn": "Agent/TCP set old_ecn_ 1 (open cwnd on every ECN-Echo ACK after the first of a burst) has no scenario knob",
        "red_twoway": "Application/Telnet with interval_ 0 (tcplib telnet interarrival distribution) is not modelled",
        "red_twowaybytes": "Application/Telnet with interval_ 0 (tcplib telnet interarrival distribution) is not modelled; also ns1_compat_ and per-direction RED knobs",
        "flows_unforced": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
        "flows_forced": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
        "flows_combined": "writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP flows over 500 s",
    }
    # mark_p_ 2.0 (mark every ECN-capable packet RED picks, even at probability 1) is outside
    # the 0..1 range scenario validation accepts; mark_p 1.0 is not the same (p1 = 1 drops).
    for test in ("congested_mark_p", "congested2_mark_p"):
        skipped[test] = "Queue/RED set mark_p_ 2.0 is rejected by scenario validation (mark_p must be in 0..1)"
    for test in ("ungentle", "gentle", "gentleEcn", "gentleEcn1", "ungentleBadParams", "gentleBadParams"):
        skipped[test] = timerfix
    lines = ["# Tests of test-suite-red.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (HERE / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
