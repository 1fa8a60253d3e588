"""Writes the tcplab scenarios of ns-2.35's test-suite-frto.tcl, one file per test.

Run from anywhere: python conformance/ns2/frto/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-frto.tcl, framework misc.tcl and
topologies.tcl) runs one connection s1 -> k1 (fid 1, window_ 28), `$ftp1 produce 35` at 1 s,
with a drop list for fid 1 on r1 -> k1, and traces every link with TCP header fields until 6 s
(openTrace 6.0). Senders and sinks: Tahoe = Agent/TCP + TCPSink/DelAck,
Reno = TCP/Reno + TCPSink/DelAck, Newreno = TCP/Newreno + TCPSink/DelAck,
Sack1 = TCP/Sack1 + TCPSink/Sack1/DelAck; the sink's interval_ is 200 ms.
Topology net4: s1-r1 and s2-r1 8 Mb/s 0 ms, r1-k1 800 kb/s 10 ms, queue limit 8 both ways.
Topology net4delay (delaySpikesSack, dropsNDelaySpikes, spikeNDupAck): 2 Mb/s 5 ms access links,
r1-k1 800 kb/s 20 ms, and a Delayer on s1 -> r1 that blocks the link from 1.5 s for 1 s.
Global knobs: tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6,
updated_rttvar_ false (unused by ns-2.35's one-way TCP), useHeaders_ false, windowInit_ 1,
singledup_ 0, minrto_ 0, syn_ false, delay_growth_ false, partial_ack_ true (Sack1's),
frto_enabled_ true, sfrto_enabled_ true, and `Agent/TCPSink set SYN_immediate_ack_ false`;
each test sets `Agent/TCPSink set RFC2581_immediate_ack_`. Node ids: s1 0, s2 1, r1 2, k1 3
(NodeTopology/4nodes).

How the knobs map:
* frto_enabled_ and sfrto_enabled_ true: `frto = true`, `sfrto = true` (in Tahoe, Reno and
  Newreno, TcpAgent, both arm the same F-RTO; Sack1 adds SACK-based F-RTO with sfrto_enabled_).
* partial_ack_ true: Sack1's `partial_ack = true` (Sack1 binds it; the class default on
  Agent/TCP reaches Agent/TCP/Sack1).
* useHeaders_ false: `use_headers = false` with the real packetSize_ (1000 B); syn_ is false, so
  seqno 0 is a 1000-byte data packet too.
* `[tcpsink] syn_immediate_ack = false` and `rfc2581_immediate_ack` as the test sets it.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, four_node_links, knobs_toml, loss_toml,  # noqa: E402
                    net4_links, output_toml, scenario_toml, table_toml, tables_toml, write_suite)

# The suite's global Agent/TCP knobs (and window_ 28).
GLOBAL_TCP = {"window": 28, "precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "0.1s",
              "minrto": "0s", "syn": False, "delay_growth": False, "singledup": 0, "window_init": 1,
              "rfc2988": False, "use_headers": False, "frto": True, "sfrto": True}

# test: (protocol, sink, drop list, RFC2581_immediate_ack_, topology with the Delayer)
TESTS = {
    "immediateAck": ("tahoe", "delack", [3, 4], True, False),
    "immediateAckReno": ("reno", "delack", [3, 4], True, False),
    "immediateAckNewReno": ("newreno", "delack", [5, 6], True, False),
    "noImmediateAckNewReno": ("newreno", "delack", [5, 6], False, False),
    "noImmediateAckSack": ("sack1", "sack1_delack", [3, 4], False, False),
    "delaySpikesSack": ("sack1", "sack1_delack", [30], False, True),
    "dropsNDelaySpikes": ("sack1", "sack1_delack", [17, 18, 30], True, True),
    "spikeNDupAck": ("sack1", "sack1_delack", [13, 30], True, True),
}


def net4delay() -> str:
    """net4delay: the access links at 2 Mb/s 5 ms, r1-k1 800 kb/s 20 ms (limit 8 both ways), and
    the Delayer on s1 -> r1 blocked from 1.5 s (`$ns after 1.5`) for 1 s."""
    spike = table_toml("[[delay_spikes]]", {"link": "s1->r1", "at": "1.5s", "length": "1s"})
    return tables_toml(four_node_links(("2Mb", "5ms"), ("800Kb", "20ms"), queue_limit=8), spike)


def scenario(test, protocol, sink, drops, immediate, delayer):
    tcp = dict(GLOBAL_TCP, partial_ack=True) if protocol == "sack1" else GLOBAL_TCP
    return scenario_toml(
        "frto", f"{test}: {protocol}, drops {drops} on r1->k1" + (", a delay spike on s1->r1"
                                                                   if delayer else ""),
        test, "6s", NODES4,
        knobs_toml("tcp", tcp),
        knobs_toml("tcpsink", {"syn_immediate_ack": False, "rfc2581_immediate_ack": immediate}),
        net4delay() if delayer else net4_links(delay="10ms"),
        flow_toml("tcp1", 1, "s1", "k1", protocol, sink=sink, delack_interval="200ms", start="1s",
                  packets=35, packet_size="1000B"),
        loss_toml("r1->k1", ["tcp1"], drops), output_toml(tcp_header=True))


def main() -> None:
    scenarios = {test: scenario(test, *how) for test, how in TESTS.items()}
    write_suite(HERE, scenarios, {})


if __name__ == "__main__":
    main()
