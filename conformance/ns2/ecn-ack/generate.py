"""Writes the tcplab scenarios of the one-way tests of ns-2.35's test-suite-ecn-ack.tcl.

Run from anywhere: python conformance/ns2/ecn-ack/generate.py

The suite (framework misc_simple.tcl; trace-all to all.tr with the TCP header fields) sets no
Agent/TCP defaults of its own: ns-2's hold (tcpTick_ 0.01, rtxcur_init_ 3, minrto_ 0.2,
windowInit_ 2, syn_ true, ...), and Queue/RED's too. A test's init sets class defaults before
the topology exists; its run sets `Agent/TCP ecn_ 1` (and `window_ 8`) before the agents
exist. The tests' Agent/TCP/FullTcp connections are someone else's (skipped.toml).

Topologies (makenodes: s1 s2 r1 r2 s3 s4, node ids 0..5): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms,
r1-r2 1.5Mb 20ms RED (limit 25 both ways), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms. net2-lossy puts an
ErrorModel/Periodic for fid 0 on r1->r2, net2A-lossy on r2->r1; drop_pkt N (mark_pkt1 N) sets
its offset_ to N and period_ to 10000: the model drops (marks CE on) the Nth packet of fid 0
that crosses it, counted from 1, and then every 10000th, which no test reaches; so here it is
packet N-1 counted from 0 (`[[losses]]`), or none when N is beyond what the test sends.
set_lossylink (net2) makes an ErrorModule on r1->r2 that drop_pkts fills with an
ErrorModel/List for fid 0.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, flow_toml, knobs_toml, link_toml, loss_toml,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)


def links(red=None, bottleneck_delay="20ms", limit=25) -> str:
    red_link = {"queue": "red", "queue_limit": limit, "reverse_queue_limit": 25, "red": red or {}}
    return tables_toml(link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "3ms"),
                       link_toml("r1", "r2", "1.5Mb", bottleneck_delay, **red_link),
                       link_toml("s3", "r2", "10Mb", "4ms"), link_toml("s4", "r2", "10Mb", "5ms"))


def ecn_ack() -> str:
    """ecnsetup Sack1: r1-r2 10 ms, its r1->r2 queue limit_ 50 (setbit_ true on every RED queue,
    from init); Sack1 s1 -> s3 fid 0, window_ 35, ecn_ 1, FTP from 0; drop_pkt 20000 on
    net2-lossy drops nothing in the 2 s (a few hundred packets)."""
    flow = flow_toml("tcp1", 0, "s1", "s3", "sack1", tcp={"window": 35, "ecn": True})
    return scenario_toml("ecn-ack", "ecn_ack: one-way Sack1 with ECN through ECN-marking RED",
                         "ecn_ack", "2.0s", NODES6,
                         links(red={"setbit": True}, bottleneck_delay="10ms", limit=50), flow,
                         output_toml(tcp_header=True))


def synack(test, about, duration, loss=None, tcp=None, sink=None) -> str:
    """Tahoe s1 -> s4 fid 0, window_ 8, ecn_ 1, `produce 20` at 0; `loss` = (link, packets,
    action) on fid 0."""
    flow = flow_toml("tcp1", 0, "s1", "s4", "tahoe", packets=20, tcp={"window": 8, "ecn": True})
    losses = loss_toml(loss[0], ["tcp1"], loss[1], action=loss[2]) if loss else ""
    return scenario_toml("ecn-ack", f"{test}: {about}", test, duration, NODES6,
                         knobs_toml("tcp", tcp or {}), knobs_toml("tcpsink", sink or {}),
                         links(), flow, losses, output_toml(tcp_header=True))


def tests() -> tuple[dict, dict]:
    out = {
        "ecn_ack": ecn_ack(),
        # drop_pkt 1000: beyond the 21 packets
        "synack": synack("synack", "ECN negotiation, nothing dropped", "10.0s"),
        "synack0": synack("synack0", "the SYN dropped (drop_pkt 1)", "10.0s",
                          loss=("r1->r2", [0], "drop")),
        "synack0A": synack("synack0A", "synack0 with rtxcur_init_ 6", "10.0s",
                           loss=("r1->r2", [0], "drop"), tcp={"rtxcur_init": "6s"}),
        "synack-4": synack("synack-4", "the SYN dropped four times (drop_pkts {0 1 2 3}), "
                           "max_connects_ -1", "200.0s", loss=("r1->r2", [0, 1, 2, 3], "drop")),
        "synack-4-maxconnect": synack("synack-4-maxconnect", "synack-4 with max_connects_ 5",
                                      "200.0s", loss=("r1->r2", [0, 1, 2, 3], "drop"),
                                      tcp={"max_connects": 5}),
        "synack-5-maxconnect": synack("synack-5-maxconnect", "the SYN dropped five times, "
                                      "max_connects_ 5: the sender gives up", "200.0s",
                                      loss=("r1->r2", [0, 1, 2, 3, 4], "drop"),
                                      tcp={"max_connects": 5}),
        "synack-15": synack("synack-15", "the SYN dropped fifteen times, max_connects_ -1",
                            "3000.0s", loss=("r1->r2", list(range(15)), "drop")),
        "synack1": synack("synack1", "the SYN/ACK dropped (drop_pkt 1 on r2->r1)", "5.0s",
                          loss=("r2->r1", [0], "drop")),
        "synack2": synack("synack2", "the SYN/ACK, ECN-capable (TCPSink ecn_syn_ true), marked "
                          "(mark_pkt1 1 on r2->r1)", "2.0s", loss=("r2->r1", [0], "mark"),
                          sink={"ecn_syn": True}),
    }
    fulltcp = "Agent/TCP/FullTcp: see issue 39's FullTcp work"
    skipped = {t: fulltcp for t in (
        "ecn_ack_fulltcp", "synack_fulltcp", "synack0_fulltcp", "synack1_fulltcp",
        "synack2_fulltcp", "synack2a_fulltcp", "synack2b_fulltcp", "synack3_fulltcp",
        "synack3b_fulltcp", "synack3a_fulltcp", "synack3c_fulltcp", "synack3d_fulltcp",
        "synack3f_fulltcp", "synack3g_fulltcp", "synack3h_fulltcp", "synack4c_fulltcp",
        "synack_many_fulltcp")}
    return out, skipped


def main() -> None:
    write_suite(HERE, *tests())


if __name__ == "__main__":
    main()
