"""Writes the tcplab scenarios of ns-2.35's test-suite-rfc2581.tcl, one file per test.

Run from anywhere: python conformance/ns2/rfc2581/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-rfc2581.tcl, framework misc.tcl and
topologies.tcl) runs one connection s1 -> k1 (fid 1, window_ 28) over s1-r1 (8 Mb/s, 0 ms) and
r1-k1 (800 kb/s, 10 ms, queue limit 8), `$ftp1 produce 10` at 1 s, drops packets 3 and 4 of
fid 1 on r1 -> k1, and traces every link with TCP header fields until 3 s (openTrace 3.0 calls
cleanup, which halts; traceQueues writes out.tr, not all.tr). Senders and sinks:
Tahoe = Agent/TCP + TCPSink/DelAck, Reno = TCP/Reno + TCPSink/DelAck,
NewReno = TCP/Newreno + TCPSink/DelAck, Sack = TCP/Sack1 + TCPSink/Sack1/DelAck; the sink's
interval_ is 200 ms. immediate* tests set `Agent/TCPSink set RFC2581_immediate_ack_ true`,
noImmediate* tests false.
Global knobs: precisionReduce_ false, rtxcur_init_ 6, updated_rttvar_ false (unused by
ns-2.35's one-way TCP), tcpTick_ 0.1, useHeaders_ false, minrto_ 0, syn_ false,
delay_growth_ false, rfc2988_ false, singledup_ 0, windowInit_ 1, and
`Agent/TCPSink set SYN_immediate_ack_ false`. Node ids: s1 0, s2 1, r1 2, k1 3
(NodeTopology/4nodes).

How the knobs map:
* useHeaders_ false: `use_headers = false` with the real packetSize_ (1000 B); syn_ is false, so
  seqno 0 is a 1000-byte data packet too.
* rfc2988_ false: `rfc2988 = false`.
* `[tcpsink] syn_immediate_ack = false` (with syn_ false seqno 0 is the first data segment, which
  the DelAck sink then delays by interval_) and `rfc2581_immediate_ack` true or false.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

VARIANTS = {  # suite name: (tcplab protocol, sink)
    "": ("tahoe", "delack"),
    "Reno": ("reno", "delack"),
    "NewReno": ("newreno", "delack"),
    "Sack": ("sack1", "sack1_delack"),
}

# The suite's global Agent/TCP knobs (and window_ 28).
GLOBAL_TCP = {"window": 28, "precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "0.1s",
              "minrto": "0s", "syn": False, "delay_growth": False, "singledup": 0, "window_init": 1,
              "rfc2988": False, "use_headers": False}


def scenario(test, protocol, sink, immediate):
    return scenario_toml(
        "rfc2581", f"{test}: {protocol}, drops [3, 4] on r1->k1", test, "3s", NODES4,
        knobs_toml("tcp", GLOBAL_TCP),
        knobs_toml("tcpsink", {"syn_immediate_ack": False, "rfc2581_immediate_ack": immediate}),
        net4_links(delay="10ms"),
        flow_toml("tcp1", 1, "s1", "k1", protocol, sink=sink, delack_interval="200ms", start="1s",
                  packets=10, packet_size="1000B"),
        loss_toml("r1->k1", ["tcp1"], [3, 4]), output_toml(tcp_header=True))


def main() -> None:
    scenarios = {}
    for suffix, (protocol, sink) in VARIANTS.items():
        for immediate in (True, False):
            test = ("immediateAck" if immediate else "noImmediateAck") + suffix
            scenarios[test] = scenario(test, protocol, sink, immediate)
    write_suite(HERE, scenarios, {})


if __name__ == "__main__":
    main()
