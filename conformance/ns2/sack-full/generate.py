"""Writes the tcplab scenarios of ns-2.35's test-suite-sack-full.tcl (FullTcp/Sack).

Run from anywhere: python conformance/ns2/sack-full/generate.py

What the suite does:
* Globals: tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6.0,
  useHeaders_ false, windowInit_ 1, singledup_ 0, minrto_ 0, syn_ false (FullTcp sets it back),
  delay_growth_ false; RED bytes_ false, queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5,
  maxthresh_ 15. all.tr traces every link, with TCP headers.
* makeproto: a FullTcp/Sack pair (the second listening), both with the test's window and fid;
  FTP on the first from the given time. Some tests set `bugFix_ false` on the first agent, or
  `Agent/TCP set maxburst_ 4` (and sack5: `window_ 50`, `bugFix_ false`) before creating them.
* Topologies: net0 (s1-r1, s2-r1 8Mb 5ms; r1-k1 800Kb 100ms, limit 6), net1 (10Mb 5ms; 1.5Mb
  100ms, limit 19; s1-r1 3ms in the sack5 tests), net2 (s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED limit 25, s3-r2
  4ms, s4-r2 5ms).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, NODES6, action_toml, flow_toml, four_node_links, knobs_toml,  # noqa: E402
                    link_toml, net2_links, output_toml, scenario_toml, tables_toml, write_suite)

GLOBALS = {"tcp_tick": "100ms", "rfc2988": False, "precision_reduce": False, "rtxcur_init": "6s",
           "use_headers": False, "window_init": 1, "singledup": 0, "minrto": "0s", "syn": False,
           "delay_growth": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5, "maxthresh": 15}


def net0(limit=6):
    return four_node_links(("8Mb", "5ms"), ("800kb", "100ms"), queue_limit=limit)


def net1_s1_3ms():
    """net1 (10Mb 5ms access, 1.5Mb 100ms limit 19) after `$ns delay s1 r1 3ms` both ways."""
    return tables_toml(link_toml("s1", "r1", "10Mb", "3ms"), link_toml("s2", "r1", "10Mb", "5ms"),
                       link_toml("r1", "k1", "1.5Mb", "100ms", queue_limit=19))


def pair(name, fid, src, dst, window, start=None, tcp=None, peer=None):
    """makeproto: a FullTcp/Sack agent on src, one listening on dst, FTP from `start`."""
    return flow_toml(name, fid, src, dst, "fulltcp_sack", start=start,
                     tcp={"window": window, **(tcp or {})}, peer={"window": window, **(peer or {})})


def test(name, about, duration, nodes, links, *flows, knobs=None):
    return scenario_toml("sack-full", f"{name}: {about}", name, duration, nodes,
                         knobs_toml("tcp", {**GLOBALS, **(knobs or {})}), links, *flows,
                         output_toml(tcp_header=True))


def scenarios() -> dict[str, str]:
    burst4 = {"maxburst": 4}
    no_fix = {"bug_fix": False}
    s = {
        "sack1": test("sack1", "window 14", "5s", NODES4, net0(), pair("tcp1", 0, "s1", "k1", 14, "1s")),
        "sack1z": test("sack1z", "window 14, maxburst_ 4", "5s", NODES4, net0(),
                       pair("tcp1", 0, "s1", "k1", 14, "0s"), knobs=burst4),
        "sack1a": test("sack1a", "window 20", "5s", NODES4, net0(), pair("tcp1", 0, "s1", "k1", 20, "0s")),
        "sack1aa": test("sack1aa", "window 20, maxburst_ 4", "5s", NODES4, net0(),
                        pair("tcp1", 0, "s1", "k1", 20, "0s"), knobs=burst4),
        "sack1b": test("sack1b", "window 26", "5s", NODES4, net0(), pair("tcp1", 0, "s1", "k1", 26, "0s")),
        "sack1c": test("sack1c", "window 27", "5s", NODES4, net0(), pair("tcp1", 0, "s1", "k1", 27, "0s")),
        "sack3": test("sack3", "two connections, bugFix_ false", "4s", NODES4, net0(8),
                      pair("tcp1", 0, "s1", "k1", 100, "950ms", tcp=no_fix),
                      pair("tcp2", 1, "s2", "k1", 16, "500ms", tcp=no_fix)),
        "sackB2": test("sackB2", "two connections, windows 50 and 20", "8s", NODES4, net0(9),
                       pair("tcp1", 0, "s1", "k1", 50, "1s"), pair("tcp2", 1, "s2", "k1", 20, "1s")),
    }
    for name, knobs in [("sack5", {"window": 50, "bug_fix": False}), ("sack5a", burst4)]:
        s[name] = test(name, "two connections, the second produces 100 at 1.75 s", "6s", NODES4,
                       net1_s1_3ms(), pair("tcp1", 0, "s1", "k1", 50, "1s", tcp=no_fix),
                       pair("tcp2", 1, "s2", "k1", 50, tcp=no_fix),
                       action_toml("1.75s", "tcp2", "produce", packets=100), knobs=knobs)
    for name, knobs in [("sackB4", None), ("sackB4a", burst4)]:
        links = net2_links(queue="red", queue_limit=29, reverse_queue_limit=25, red=RED)
        s[name] = test(name, "over RED", "2s", NODES6, links, pair("tcp1", 0, "s1", "r2", 40, "0s"),
                       knobs=knobs)
    return s


def main() -> None:
    write_suite(HERE, scenarios(), {})


if __name__ == "__main__":
    main()
