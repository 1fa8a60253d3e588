"""Writes the tcplab scenarios of ns-2.35's test-suite-testReno.tcl, one file per test.

Run from anywhere: python conformance/ns2/testReno/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-testReno.tcl) runs one TCP connection
s1 -> k1 over s1-r1 (8 Mb/s, 0 ms) and r1-k1 (800 kb/s, 100 ms, queue limit 8), with an FTP
from 1 s, a delayed-ACK sink (TCPSink/DelAck, or TCPSink/Sack1/DelAck for Sack1), and a drop
list on r1 -> k1 (an ErrorModel/List bound to fid 1: the n-th packet of flow 1 entering the
link, counted from 0). It traces every link with TCP header fields until cleanupAll at 4.01 s.
Node s2 carries no traffic but exists (node ids s1 0, s2 1, r1 2, k1 3).

Its global knobs: tcpTick_ 0.1, precisionReduce_ false, rtxcur_init_ 6, windowInit_ 1,
singledup_ 0, minrto_ 0, syn_ false, delay_growth_ false, rfc2988_ false, useHeaders_ false
(`use_headers = false` with the real packetSize_ 1000), TCPSink SYN_immediate_ack_ false
(`[tcpsink] syn_immediate_ack = false`), and misc_simple.tcl's `$ns eventtrace-all` (switched on
when the script's name contains "testReno", so all.tr also holds TCP event lines "E ...":
`[output] events = true`). The *_without_Fast_Retransmit tests set noFastRetrans_ true.
updated_rttvar_ is never read by ns-2.35's C++.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

NO_FAST_RETRANSMIT = {"no_fast_retrans": True}

# test -> (agent, window, drops, knobs the test adds); setup's window_ is per agent
TWO_DROPS, ONE_DROP = [15, 18], [17]
TESTS = {
    "Tahoe_TCP": ("tahoe", 5, TWO_DROPS, {}),
    "Tahoe_TCP_without_Fast_Retransmit": ("tahoe", 5, TWO_DROPS, NO_FAST_RETRANSMIT),
    "Reno_TCP": ("reno", 5, TWO_DROPS, {}),
    "NewReno_TCP": ("newreno", 5, TWO_DROPS, {}),
    "Sack_TCP": ("sack1", 5, TWO_DROPS, {}),
    "Tahoe_TCP2": ("tahoe", 8, ONE_DROP, {}),
    "Tahoe_TCP2_without_Fast_Retransmit": ("tahoe", 8, ONE_DROP, NO_FAST_RETRANSMIT),
    "Reno_TCP2": ("reno", 8, ONE_DROP, {}),
    "NewReno_TCP2": ("newreno", 8, ONE_DROP, {}),
    "Sack_TCP2": ("sack1", 8, ONE_DROP, {}),
}
SINKS = {"tahoe": "delack", "reno": "delack", "newreno": "delack", "sack1": "sack1_delack"}

# The suite's global Agent/TCP knobs.
GLOBAL_TCP = {"tcp_tick": "100ms", "precision_reduce": False, "rtxcur_init": "6s", "window_init": 1,
              "singledup": 0, "minrto": "0s", "syn": False, "delay_growth": False, "rfc2988": False,
              "use_headers": False}


def scenario(test, protocol, window, drops, extra):
    return scenario_toml(
        "testReno", f"{test}: {protocol}, window {window}, drops {drops} on r1->k1", test, "4.01s",
        NODES4, knobs_toml("tcp", {**GLOBAL_TCP, **extra}),
        knobs_toml("tcpsink", {"syn_immediate_ack": False}), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", protocol, packet_size="1000B", sink=SINKS[protocol],
                  start="1s", tcp={"window": window}),
        loss_toml("r1->k1", ["tcp1"], drops), output_toml(tcp_header=True, events=True))


def main() -> None:
    scenarios = {test: scenario(test, *spec) for test, spec in TESTS.items()}
    write_suite(HERE, scenarios, {})


if __name__ == "__main__":
    main()
