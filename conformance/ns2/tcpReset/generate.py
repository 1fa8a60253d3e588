"""Writes the tcplab scenarios of ns-2.35's test-suite-tcpReset.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcpReset/generate.py

The suite (framework misc.tcl; trace-all to all.tr without TCP header fields; the per-queue trace
of r1's links goes to out.tr and is not compared) sets, for every test:
  Agent/TCP tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6, minrto_ 1,
  useHeaders_ false, windowInit_ 1, singledup_ 0, syn_ false, delay_growth_ false
  (updated_rttvar_ false is read by no C++ code in ns-2.35);
  Agent/TCPSink SYN_immediate_ack_ false; Queue/RED bytes_ false, queue_in_bytes_ false,
  q_weight_ 0.002, thresh_ 5, maxthresh_ 15, and setbit_ true in Topology/net6.
Topology net6 (NodeTopology/4nodes: s1 s2 r1 k1): s1-r1 and s2-r1 8Mb 5ms, r1-k1 800Kb 20ms
RED, limit 25 both ways.
Each test: one connection s1 -> k1, fid 1, window_ 5; its FTP `produce 10` at 0; at time R the
sender's `reset` and then the sink's (actions reset and reset_sink); `producemore 20` at P; the
run halts at T (openTrace). tcpDump only reads the sender's variables.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, action_toml, flow_toml, four_node_links, knobs_toml,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

GLOBAL_TCP = {"tcp_tick": "100ms", "rfc2988": False, "precision_reduce": False, "rtxcur_init": "6s",
              "minrto": "1s", "use_headers": False, "window_init": 1, "singledup": 0, "syn": False,
              "delay_growth": False}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5.0, "maxthresh": 15.0,
       "setbit": True}
AGENTS = {"tahoe": "TCP", "newreno": "TCP/Newreno", "sack1": "TCP/Sack1", "reno": "TCP/Reno"}
SINKS = {"tcpsink": "TCPSink", "delack": "TCPSink/DelAck", "sack1": "TCPSink/Sack1"}


def reset_test(test, protocol, sink, reset_at, more_at, stop) -> str:
    about = (f"{test}: {AGENTS[protocol]} -> {SINKS[sink]}, window_ 5, produce 10 at 0, both reset "
             f"at {reset_at}, producemore 20 at {more_at}")
    actions = [action_toml(reset_at, "tcp1", "reset"), action_toml(reset_at, "tcp1", "reset_sink"),
               action_toml(more_at, "tcp1", "producemore", packets=20)]
    return scenario_toml(
        "tcpReset", about, test, stop, NODES4,
        knobs_toml("tcp", GLOBAL_TCP), knobs_toml("tcpsink", {"syn_immediate_ack": False}),
        four_node_links(("8Mb", "5ms"), ("800Kb", "20ms"), queue="red", queue_limit=25, red=RED),
        flow_toml("tcp1", 1, "s1", "k1", protocol, sink=sink, packets=10, tcp={"window": 5}),
        *actions, output_toml())


def tests() -> dict:
    cases = {
        "reset": ("tahoe", "tcpsink", "1.1s", "1.5s", "3s"),
        "resetDelAck": ("tahoe", "delack", "1.1s", "1.5s", "3s"),
        "resetDelAck1": ("tahoe", "delack", "0.41s", "5.0s", "10s"),
        "reset1": ("tahoe", "tcpsink", "0.2s", "0.201s", "3s"),
        "resetDelAck2": ("tahoe", "delack", "0.32s", "0.321s", "3s"),
        "resetDelAck3": ("tahoe", "delack", "0.32s", "0.321s", "10s"),
        "resetNewreno": ("newreno", "tcpsink", "0.2s", "0.201s", "3s"),
        "resetSack1": ("sack1", "sack1", "0.2s", "0.201s", "3s"),
        "resetReno": ("reno", "tcpsink", "0.2s", "0.201s", "3s"),
    }
    return {test: reset_test(test, *case) for test, case in cases.items()}


def main() -> None:
    write_suite(HERE, tests(), {})


if __name__ == "__main__":
    main()
