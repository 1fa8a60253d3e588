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

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, flow_toml, knobs_toml, link_toml, net2_links,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)

GLOBAL_TCP = {"precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "100ms", "window_init": 1,
              "singledup": 0, "minrto": "0s", "syn": False, "delay_growth": False, "rfc2988": False,
              "use_headers": False}

# The suite's class-level RED settings.
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0,
       "maxthresh": 15.0, "use_mark_p": False}


def net2(red):
    return net2_links(queue="red", queue_limit=25, red=red)


def net3(red):
    return tables_toml(
        link_toml("s1", "r1", "10Mb", "0ms"), link_toml("s2", "r1", "10Mb", "1ms"),
        link_toml("r1", "r2", "1.5Mb", "10ms", queue="red", queue_limit=100, red=red),
        link_toml("s3", "r2", "10Mb", "2ms"), link_toml("s4", "r2", "10Mb", "3ms"))


def scenario(test, about, links, flows, stop, tcp=None):
    """flows: (name, fid, from, to, protocol, start, window, packetSize_, ecn)."""
    return scenario_toml(
        "red", f"{test}: {about}", test, f"{stop}s", NODES6,
        knobs_toml("tcp", {**GLOBAL_TCP, **(tcp or {})}), links,
        *(flow_toml(name, fid, src, dst, protocol,
                    sink="sack1" if protocol == "sack1" else "tcpsink", start=f"{start}s",
                    packet_size=f"{size}B", tcp={"window": window, "ecn": True if ecn else None})
          for name, fid, src, dst, protocol, start, window, size, ecn in flows),
        output_toml())


def tests() -> dict[str, str]:
    # net2 tests (mainSim and its copies): two FTPs s1->s3 (fid 0, from 0 s) and s2->s3 (fid 1,
    # from 3 s), window_ 15, 10 s. linterm_ 50 is set on both r1-r2 queues.
    net2_red = dict(RED, linterm=50.0)

    def two(protocol):
        return [("tcp1", 0, "s1", "s3", protocol, 0.0, 15, 1000, False),
                ("tcp2", 1, "s2", "s3", protocol, 3.0, 15, 1000, False)]

    out = {
        "red1": scenario("red1", "RED, without ECN (mainSim Reno)", net2(net2_red), two("reno"),
                         10.0),
        # red2 sets thresh_ 5, maxthresh_ 10, q_weight_ 0.003 on r1->r2 only; tcplab's [links.red]
        # covers both directions, and r2->r1 carries only 40-byte ACKs on a 1.5 Mb/s link, whose
        # queue never holds 2 packets, so its RED never reaches a decision (nor a random draw).
        "red2": scenario("red2", "RED, without ECN, with different parameters",
                         net2(dict(net2_red, thresh=5.0, maxthresh=10.0, q_weight=0.003)),
                         two("reno"), 10.0),
        "q_weight": scenario("q_weight", "RED, q_weight 0.002 (mainSim Sack1)", net2(net2_red),
                             two("sack1"), 10.0),
        # q_weight_ 0: ns-2 computes 1 - exp(-1/ptc), ptc = link rate / (8 * mean_pktsize_);
        # maxthresh_ 0 means 3 * thresh_.
        "q_weight_auto": scenario(
            "q_weight_auto", "RED, q_weight_ and maxthresh_ automatic (mainSim Sack1)",
            net2(dict(net2_red, q_weight=0.0, maxthresh=0.0)), two("sack1"), 10.0),
        # Test/ecn: `Queue/RED set setbit_ true` and `Agent/TCP set old_ecn_ 1` in init; two Reno
        # flows with ecn_ 1, window_ 15, as mainSim.
        "ecn": scenario("ecn", "RED with ECN, old_ecn_ 1", net2(dict(net2_red, setbit=True)),
                        [("tcp1", 0, "s1", "s3", "reno", 0.0, 15, 1000, True),
                         ("tcp2", 1, "s2", "s3", "reno", 3.0, 15, 1000, True)], 10.0,
                        tcp={"old_ecn": True}),
    }

    # net3 "congested" tests: the run body sets, before the topology, Agent/TCP packetSize_ 1500,
    # window_ 75 (1000 in congested1/2), ecn_ 1, Queue/RED bytes_ true, gentle_ false (true in
    # congested1/2), setbit_ true. Sack1 flows, 5 s.
    net3_red = dict(RED, bytes=True, gentle=False, setbit=True)
    one = [("tcp1", 0, "s1", "s3", "sack1", 0.0, 75, 1500, True)]
    both = [("tcp1", 0, "s1", "s3", "sack1", 0.0, 1000, 1500, True),
            ("tcp2", 0, "s2", "s4", "sack1", 0.2, 1000, 1500, True)]
    out["congested"] = scenario("congested", "RED, not gentle, ECN", net3(net3_red), one, 5.0)
    out["congested1_mark_p"] = scenario(
        "congested1_mark_p", "RED, gentle, ECN, mark_p_ 1.0",
        net3(dict(net3_red, gentle=True, use_mark_p=True, mark_p=1.0)), both, 5.0)
    # mark_p_ 2.0: RED marks every ECN-capable packet it picks, even where p would be >= 1.
    out["congested_mark_p"] = scenario(
        "congested_mark_p", "RED, not gentle, ECN, mark_p_ 2.0",
        net3(dict(net3_red, use_mark_p=True, mark_p=2.0)), one, 5.0)
    out["congested2_mark_p"] = scenario(
        "congested2_mark_p", "RED, gentle, ECN, mark_p_ 2.0",
        net3(dict(net3_red, gentle=True, use_mark_p=True, mark_p=2.0)), both, 5.0)

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
    for test, about, knobs, ecn in (
            ("ungentle", "RED, not gentle", {"gentle": False}, False),
            ("gentle", "RED, gentle", {"gentle": True}, False),
            ("gentleEcn", "RED, gentle, with ECN", {"gentle": True, "setbit": True}, True),
            ("gentleEcn1", "RED, gentle, with ECN, mark_p_ 0.1",
             {"gentle": True, "setbit": True, "mark_p": 0.1, "use_mark_p": True}, True),
            ("ungentleBadParams", "RED, not gentle, bad RED parameters",
             {"gentle": False, "linterm": 50.0, "maxthresh": 10.0}, False),
            ("gentleBadParams", "RED, gentle, bad RED parameters",
             {"gentle": True, "linterm": 50.0, "maxthresh": 10.0}, False)):
        out[test] = scenario(test, about, net3(dict(RED, **knobs)), eight(ecn), 40.0,
                             tcp={"timerfix": False})

    # red_twoway on net2: Reno window_ 15, FTPs s1->s3 (fid 0) from 0, s2->s4 (fid 1) from 2,
    # s3->s1 (fid 2) from 3.5, and a Telnet with interval_ 0 (tcplib's interarrival times) on
    # s4->s2 (fid 3) from 1; created in that order. Its queue trace and tcpDump write elsewhere.
    def reno(name, fid, src, dst, start, **fields):
        return flow_toml(name, fid, src, dst, "reno", sink="tcpsink", start=f"{start}s",
                         **fields, packet_size="1000B", tcp={"window": 15})
    out["red_twoway"] = scenario_toml(
        "red", "red_twoway: RED, two-way traffic, queue in packets; a tcplib Telnet", "red_twoway",
        "10.0s", NODES6, knobs_toml("tcp", GLOBAL_TCP), net2(net2_red),
        reno("tcp1", 0, "s1", "s3", 0.0), reno("tcp2", 1, "s2", "s4", 2.0),
        reno("tcp3", 2, "s3", "s1", 3.5), reno("tcp4", 3, "s4", "s2", 1.0, app="telnet", interval=0),
        output_toml())
    # red_twowaybytes: red_twoway with `Queue/RED set ns1_compat_ true` (class-level, in init)
    # and bytes_ and queue_in_bytes_ true on the r1->r2 queue only (set after setTopo).
    out["red_twowaybytes"] = scenario_toml(
        "red", "red_twowaybytes: RED, two-way traffic, r1->r2 queue in bytes; a tcplib Telnet",
        "red_twowaybytes", "10.0s", NODES6, knobs_toml("tcp", GLOBAL_TCP),
        net2_links(queue="red", queue_limit=25,
                   red=dict(net2_red, ns1_compat=True, bytes=True, queue_in_bytes=True),
                   reverse_red={"bytes": False, "queue_in_bytes": False}),
        reno("tcp1", 0, "s1", "s3", 0.0), reno("tcp2", 1, "s2", "s4", 2.0),
        reno("tcp3", 2, "s3", "s1", 3.5), reno("tcp4", 3, "s4", "s2", 1.0, app="telnet", interval=0),
        output_toml())
    return out


FLOWS = ("writes no all.tr (noTraceFiles): flow-monitor statistics of CBR/LossMonitor and TCP "
         "flows over 500 s")
SKIPPED = {
    "flows_unforced": FLOWS,
    "flows_forced": FLOWS,
    "flows_combined": FLOWS,
}


def main() -> None:
    write_suite(HERE, tests(), SKIPPED)


if __name__ == "__main__":
    main()
