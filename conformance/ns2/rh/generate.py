"""Writes the tcplab scenario of ns-2.35's test-suite-rh.tcl (one test, test_sackRH).

Run from anywhere: python conformance/ns2/rh/generate.py

What the suite does (test-suite-rh.tcl), with the answers to its two stdin prompts left empty
(the conformance run gives ns no input, so `gets stdin` reads "": no drops, no ECN marks):
* Globals: tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6.0, minrto_ 1,
  useHeaders_ false, windowInit_ 1, singledup_ 0; test_sackRH adds bugFix_ true (the default)
  and old_ecn_ 1. RED: bytes_ and queue_in_bytes_ false, q_weight_ 0.002, thresh_ 5,
  maxthresh_ 15, setbit_ true.
* Topology net2-lossy: makenodes creates s1 s2 r1 r2 s3 s4 a1..a6 b1..b6 (ids 0..17), then
  s1-r1 10Mb 2ms, s2-r1 10Mb 15ms, r1-r2 1.5Mb 30ms RED (limit 40 both ways), s3-r2 4ms,
  s4-r2 5ms and the links of a1..a6 to r1 and b1..b6 to r2 (no traffic). netsetup keeps the
  30 ms and sets maxthresh_ 20 and setbit_ true on r1->r2; r2->r1 keeps maxthresh_ 15, which
  tcplab cannot set apart, but only ACKs cross it and its average queue never reaches thresh_ 5,
  so RED there never draws. The ErrorModules of -lossy bind fid 0, which no packet carries.
* Four FTPs s1 -> s3, all fid 1, each `produce 150`: SackRH with a plain TCPSink at 0 s,
  SackRH with TCPSink/Sack1 at 3 s, Newreno at 6 s and Reno at 9 s (TCPSink); window_ 100,
  ecn_ 1, rtxcur_init_ 3.0 each, and `ssthresh_ 30` at 0.2 s (`ssthresh` below: every flow
  starts later or is still below 30 then). The run stops at 12 s; all.tr is compared.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (flow_toml, knobs_toml, link_toml, output_toml, scenario_toml,  # noqa: E402
                    write_suite)

NODES = ["s1", "s2", "r1", "r2", "s3", "s4"] + [f"a{i}" for i in range(1, 7)] + [f"b{i}" for i in range(1, 7)]
# the links of the a and b nodes, in createlinks' order
EXTRA = [("a1", "r1", "3ms"), ("b1", "r2", "23ms"), ("a2", "r1", "2ms"), ("b2", "r2", "22ms"),
         ("a3", "r1", "3ms"), ("b3", "r2", "33ms"), ("a4", "r1", "4ms"), ("b4", "r2", "15ms"),
         ("a5", "r1", "3ms"), ("b5", "r2", "12ms"), ("a6", "r1", "2ms"), ("b6", "r2", "27ms")]
# (tcplab protocol, sink, start) of tcpsetup's four calls
FLOWS = [("sackrh", "tcpsink", "0.0s"), ("sackrh", "sack1", "3.0s"), ("newreno", "tcpsink", "6.0s"),
         ("reno", "tcpsink", "9.0s")]


def test_sackRH() -> str:
    tcp = {"tcp_tick": "100ms", "rfc2988": False, "precision_reduce": False, "minrto": "1s",
           "use_headers": False, "window_init": 1, "singledup": 0, "old_ecn": True}
    red = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5, "maxthresh": 20,
           "setbit": True}
    links = [link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "15ms"),
             link_toml("r1", "r2", "1.5Mb", "30ms", queue="red", queue_limit=40, red=red),
             link_toml("s3", "r2", "10Mb", "4ms"), link_toml("s4", "r2", "10Mb", "5ms")]
    links += [link_toml(a, b, "10Mb", d) for a, b, d in EXTRA]
    flows = [flow_toml(f"tcp{i + 1}", 1, "s1", "s3", protocol, sink=sink, start=start, packets=150,
                       tcp={"window": 100, "ecn": True, "rtxcur_init": "3s", "ssthresh": 30})
             for i, (protocol, sink, start) in enumerate(FLOWS)]
    return scenario_toml("rh", "test_sackRH: SackRH (plain sink), SackRH, Newreno, Reno in turn, "
                         "no drops", "test_sackRH", "12.0s", NODES,
                         knobs_toml("tcp", tcp), *links, *flows, output_toml())


def main() -> None:
    write_suite(HERE, {"test_sackRH": test_sackRH()}, {})


if __name__ == "__main__":
    main()
