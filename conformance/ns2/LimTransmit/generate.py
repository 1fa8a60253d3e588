"""Writes the tcplab scenarios of ns-2.35's test-suite-LimTransmit.tcl, one file per test.

Run from anywhere: python conformance/ns2/LimTransmit/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-LimTransmit.tcl, framework misc_simple.tcl)
runs one Agent/TCP/Sack1 -> Agent/TCPSink/Sack1/DelAck connection (fid 1, window_ 28) s1 -> k1
over s1-r1 (8 Mb/s, 0 ms) and r1-k1 (800 kb/s, 100 ms, queue limit 8), `$ftp1 produce 7` at 0 s,
a drop list on r1 -> k1 for fid 1, and traces every link with TCP header fields until 6 s.
Its global knobs: tcpTick_ 0.5 (set twice, 0.1 then 0.5), rfc2988_ false, precisionReduce_ false,
rtxcur_init_ 6, updated_rttvar_ false (unused by ns-2.35's one-way TCP), minrto_ 1,
singledup_ 0 (1 in onedrop_SA_sack), useHeaders_ false, bugFix_ false (set in `setup` before the
agent is made), ecn_ 1 in onedrop_ECN_sack, and `Agent/TCPSink set SYN_immediate_ack_ false`.
Node s2 carries no traffic but exists (node ids s1 0, s2 1, r1 2, k1 3).

How the knobs map:
* useHeaders_ false: `use_headers = false` with the real packetSize_ (1000 B): data packets are
  1000 bytes on the wire, the SYN (seqno 0, syn_ true) is tcpip_base_hdr_size_ = 40 bytes.
* rfc2988_ false: `rfc2988 = false`.
* SYN_immediate_ack_ false: top-level `[tcpsink] syn_immediate_ack = false` (the DelAck sink
  delays the ACK of the SYN like any in-order segment).
* onedrop_ECN_sack: `drop_pkts $list ECN` sets markecn_ true on the ErrorModel/List: the listed
  packets get CE and go on (`action = "mark"`), and the class default ecn_ 1 is set.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

# test: (drop list on r1->k1 for fid 1, singledup_, ecn_ (and markecn_), reasons it cannot run)
TESTS = {
    "onedrop_sack": ([1], 0, False, []),
    "onedrop_SA_sack": ([1], 1, False, []),
    "onedrop_ECN_sack": ([1], 0, True, []),
    "nodrop_sack": ([1000], 0, False, []),  # packet 1000 is never sent: no drop
}


def scenario(test, drops, singledup, ecn):
    tcp = {"window": 28, "tcp_tick": "0.5s", "precision_reduce": False, "rtxcur_init": "6s",
           "minrto": "1s", "singledup": singledup, "bug_fix": False, "ecn": ecn,
           "rfc2988": False, "use_headers": False}
    return scenario_toml(
        "LimTransmit", f"{test}: Sack1, drops {drops} on r1->k1", test, "6s", NODES4,
        knobs_toml("tcp", tcp), knobs_toml("tcpsink", {"syn_immediate_ack": False}), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", "sack1", sink="sack1_delack", packets=7,
                  packet_size="1000B"),
        loss_toml("r1->k1", ["tcp1"], drops, action="mark" if ecn else "drop"),
        output_toml(tcp_header=True))


def main() -> None:
    scenarios, skipped = {}, {}
    for test, (drops, singledup, ecn, blockers) in TESTS.items():
        if blockers:
            skipped[test] = "; ".join(blockers)
        else:
            scenarios[test] = scenario(test, drops, singledup, ecn)
    write_suite(HERE, scenarios, skipped)


if __name__ == "__main__":
    main()
