"""Writes the tcplab scenarios of ns-2.35's test-suite-ecn-ack.tcl, one file per test.

Run from anywhere: python conformance/ns2/ecn-ack/generate.py

What the suite does (test-suite-ecn-ack.tcl):
* No global changes: ns-2.35's defaults throughout, which are tcplab's. Every test writes
  all.tr with `trace-all`, TCP header fields shown (show_tcphdr_ 1).
* Topology net2 (NODES6): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both
  ways), s3-r2 10Mb 4ms, s4-r2 10Mb 5ms. The -lossy variants put an ErrorModule Fid with an
  ErrorModel/Periodic (unit pkt) bound to fid 0 at the head of a link: net2-lossy on r1->r2,
  net2A-lossy on r2->r1, net2B-lossy on r2->r1 and on r1->s1. `drop_pkt N` sets offset_ N,
  period_ 10000 (drops the N-th fid-0 packet through it, from 1); `mark_pkt`/`mark_pkt1` do the
  same with markecn_ true (CE-marks it and forwards it); `drop_more_pkts N P` sets the r1->s1
  model to offset_ N, period_ P. `set_lossylink`/`set_lossylink1` add an ErrorModule to r1->r2
  / r2->r1 in net2 whose only model is the ErrorModel/List of `drop_pkts L` (fid 0, from 0).
* ecn_ack, ecn_ack_fulltcp (`ecnsetup`): r1-r2 delay 10 ms, RED setbit_ (also class-level, both
  ways) and limit_ 50 on r1->r2; an FTP from 0 s over a one-way Sack1 (TCPSink/Sack1, fid 0) or
  a FullTcp/Sack pair (fid 1, the s3 end listening), window_ 35, ecn_ 1 (both FullTcp ends);
  2 s.
* synack*: class-level Agent/TCP ecn_ 1 (and window_ 8 in some), one connection s1 -> s4 with
  fid 0: a one-way Agent/TCP (Tahoe) and TCPSink, its FTP producing 20 packets at 0 s; or a
  FullTcp/Sack pair, the s4 end listening, the s1 end producing 5 (or 1) packets at 0 s and the
  s4 end 20 at 0.03 s. The tests differ in what happens to the SYN or SYN/ACK and in
  max_connects_, TCPSink's and FullTcp's ecn_syn_, FullTcp's ecn_syn_wait_, windowInitOption_.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES6, action_toml, flow_toml, knobs_toml, net2_links, output_toml,  # noqa: E402
                    scenario_toml, table_toml, write_suite)


def periodic(link: str, offset: int, period: int = 10000, mark: bool = False) -> str:
    """An ErrorModel/Periodic bound to fid 0 (the flow's packets) on `link`."""
    return table_toml("[[losses]]", {"link": link, "flows": ["tcp1"], "model": "periodic",
                                     "offset": float(offset), "period": float(period),
                                     "action": "mark" if mark else None})


def listed(link: str, packets: list[int]) -> str:
    """The ErrorModel/List of drop_pkts on `link`."""
    return table_toml("[[losses]]", {"link": link, "flows": ["tcp1"], "packets": packets})


def render(test: str, about: str, duration: str, tcp: dict, flow: str, *tables: str,
           sink: dict | None = None, delay: str = "20ms", **r1r2) -> str:
    links = net2_links(delay, queue="red", queue_limit=r1r2.pop("queue_limit", 25),
                       reverse_queue_limit=r1r2.pop("reverse_queue_limit", None), **r1r2)
    return scenario_toml("ecn-ack", f"{test}: {about}", test, duration, NODES6,
                         knobs_toml("tcp", tcp), knobs_toml("tcpsink", sink or {}), links, flow,
                         *tables, output_toml(tcp_header=True))


def ecn_ack(test: str, full: bool) -> str:
    """ecnsetup: one FTP over a window of 35 with ECN, 2 s, nothing dropped or marked."""
    ecn = {"window": 35, "ecn": True}
    if full:
        flow = flow_toml("tcp1", 1, "s1", "s3", "fulltcp_sack", start="0s", tcp=ecn, peer=ecn)
    else:
        flow = flow_toml("tcp1", 0, "s1", "s3", "sack1", sink="sack1", start="0s", tcp=ecn)
    return render(test, "one FTP with ECN, nothing marked", "2.0s", {}, flow,
                  periodic("r1->r2", 20000), delay="10ms", queue_limit=50,
                  reverse_queue_limit=25, red={"setbit": True})


def one_way(test: str, about: str, duration: str, *losses: str, tcp: dict | None = None,
            sink: dict | None = None) -> str:
    """A one-way Agent/TCP (window_ 8, ECN) s1 -> s4 whose FTP produces 20 packets at 0 s."""
    flow = flow_toml("tcp1", 0, "s1", "s4", "tahoe", sink="tcpsink", packets=20, start="0s",
                     tcp={"window": 8})
    return render(test, about, duration, {"ecn": True, **(tcp or {})}, flow, *losses, sink=sink)


def two_way(test: str, about: str, duration: str, *losses: str, tcp: dict, produce: int = 5) -> str:
    """A FullTcp/Sack pair s1 -> s4 (s4 listening): s1 produces `produce` packets at 0 s, s4 20
    at 0.03 s."""
    flow = flow_toml("tcp1", 0, "s1", "s4", "fulltcp_sack")
    acts = [action_toml("0s", "tcp1", "produce", packets=produce),
            action_toml("30ms", "tcp1", "produce", end="to", packets=20)]
    return render(test, about, duration, tcp, flow, *losses, *acts)


def scenarios() -> dict[str, str]:
    w8 = {"ecn": True, "window": 8}
    syn = {"ecn": True, "ecn_syn": True}
    s = {
        "ecn_ack": ecn_ack("ecn_ack", False),
        "ecn_ack_fulltcp": ecn_ack("ecn_ack_fulltcp", True),
        "synack": one_way("synack", "nothing dropped or marked", "10.0s", periodic("r1->r2", 1000)),
        "synack_fulltcp": two_way("synack_fulltcp", "FullTcp, nothing dropped or marked", "10.0s",
                                  periodic("r1->r2", 1000), tcp=w8),
        "synack0": one_way("synack0", "the SYN dropped", "10.0s", periodic("r1->r2", 1)),
        "synack0A": one_way("synack0A", "the SYN dropped, rtxcur_init_ 6", "10.0s",
                            periodic("r1->r2", 1), tcp={"rtxcur_init": "6s"}),
        "synack-4": one_way("synack-4", "four SYNs dropped, max_connects_ -1", "200.0s",
                            listed("r1->r2", [0, 1, 2, 3]), tcp={"max_connects": -1}),
        "synack-4-maxconnect": one_way("synack-4-maxconnect", "four SYNs dropped, max_connects_ 5",
                                       "200.0s", listed("r1->r2", [0, 1, 2, 3]),
                                       tcp={"max_connects": 5}),
        "synack-5-maxconnect": one_way("synack-5-maxconnect", "five SYNs dropped, max_connects_ 5",
                                       "200.0s", listed("r1->r2", [0, 1, 2, 3, 4]),
                                       tcp={"max_connects": 5}),
        "synack-15": one_way("synack-15", "fifteen SYNs dropped, max_connects_ -1", "3000.0s",
                             listed("r1->r2", list(range(15))), tcp={"max_connects": -1}),
        "synack1": one_way("synack1", "the SYN/ACK dropped", "5.0s", periodic("r2->r1", 1)),
        "synack0_fulltcp": two_way("synack0_fulltcp", "FullTcp, the SYN/ACK not dropped", "5.0s",
                                   periodic("r2->r1", 1000), tcp=w8),
        "synack1_fulltcp": two_way("synack1_fulltcp", "FullTcp, the SYN/ACK dropped", "5.0s",
                                   periodic("r2->r1", 1), tcp=w8),
        "synack2": one_way("synack2", "the SYN/ACK marked, TCPSink ecn_syn_", "2.0s",
                           periodic("r2->r1", 1, mark=True), sink={"ecn_syn": True}),
        "synack_many_fulltcp": two_way("synack_many_fulltcp", "FullTcp, four SYN/ACKs dropped, no ECN",
                                       "20.0s", listed("r2->r1", [0, 1, 2, 3]),
                                       tcp={"ecn": False}, produce=1),
    }
    for name, wait in [("synack2_fulltcp", 0), ("synack2a_fulltcp", 1), ("synack2b_fulltcp", 2)]:
        s[name] = two_way(name, f"FullTcp, the SYN/ACK marked, ecn_syn_wait_ {wait}", "2.0s",
                          periodic("r2->r1", 1, mark=True), tcp={**syn, "ecn_syn_wait": wait})
    for name, wait, mark, more in [("synack3_fulltcp", 0, True, None), ("synack3b_fulltcp", None, False, None),
                                   ("synack3a_fulltcp", 1, True, None), ("synack3c_fulltcp", 2, True, None),
                                   ("synack3g_fulltcp", 2, True, 1), ("synack3h_fulltcp", 2, True, 1000)]:
        about = "the SYN/ACK marked" if mark else "nothing marked"
        losses = [periodic("r2->r1", 1 if mark else 1000, mark=True)]
        if more:
            about += f", the r1->s1 packets from the 2nd dropped with period_ {more}"
            losses.append(periodic("r1->s1", 2, more))
        s[name] = two_way(name, f"FullTcp, one packet, {about}", "20.0s" if more else "2.0s", *losses,
                          tcp={**syn, "ecn_syn_wait": wait}, produce=1)
    s["synack4c_fulltcp"] = two_way("synack4c_fulltcp", "FullTcp, the SYN/ACK marked, ecn_syn_wait_ 2, windowInitOption_ 2",
                                    "2.0s", periodic("r2->r1", 1, mark=True),
                                    tcp={**syn, "ecn_syn_wait": 2, "window_init_option": 2}, produce=1)
    for name, wait in [("synack3d_fulltcp", None), ("synack3f_fulltcp", 2)]:
        s[name] = two_way(name, "FullTcp, one packet, the SYN/ACK dropped", "5.0s",
                          periodic("r2->r1", 1), tcp={**syn, "ecn_syn_wait": wait}, produce=1)
    return s


def main() -> None:
    write_suite(HERE, scenarios(), {})


if __name__ == "__main__":
    main()
