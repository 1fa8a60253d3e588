"""Writes the tcplab scenarios of ns-2.35's test-suite-rfc2581.tcl, one file per test.

Run from anywhere: python conformance/ns2/rfc2581/generate.py
                   python conformance/ns2/rfc2581/generate.py --experiment DIR

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
* useHeaders_ false: ns-2 sends data packets of size_ (1000 B) without adding the 40-byte
  header (TcpAgent::output; syn_ is false so there is no SYN). tcplab always adds the header,
  so the scenario asks for a 960-byte payload: the wire size is then exactly ns-2's 1000 B.
* rfc2988_ false differs from tcplab's rfc2988_ rule only when t_rtxcur_ < minrto_; with
  minrto_ 0 that never happens.
* SYN_immediate_ack_ false cannot be expressed: with syn_ false seqno 0 is the first data
  segment, which ns-2's DelAckSink then delays by interval_ (ACK at 1.221 s, not 1.021 s);
  tcplab always ACKs seqno 0 at once. RFC2581_immediate_ack_ false (noImmediate* tests)
  cannot be expressed either: tcplab's delayed-ACK sink always ACKs a gap filler at once.
  So every test is skipped for now.

--experiment DIR writes the immediate* scenarios anyway (as if SYN_immediate_ack_ were true),
for a comparison against a copy of the suite with that line removed; see the report.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SYN_ACK = ("Agent/TCPSink set SYN_immediate_ack_ false: the DelAck sink must delay the ACK of "
           "seqno 0 (here the first data segment, syn_ false) like any in-order segment; "
           "tcplab always ACKs it at once")
NO_2581 = ("Agent/TCPSink set RFC2581_immediate_ack_ false: the DelAck sink must delay the ACK "
           "of an in-order segment that fills a gap; tcplab always ACKs it at once")

VARIANTS = {  # suite name: (tcplab protocol, sink)
    "": ("tahoe", "delack"),
    "Reno": ("reno", "delack"),
    "NewReno": ("newreno", "delack"),
    "Sack": ("sack1", "sack1_delack"),
}

TEMPLATE = """\
# ns-2.35 test-suite-rfc2581.tcl, test {test}: {protocol}, drops [3, 4] on r1->k1.
# Written by conformance/ns2/rfc2581/generate.py; compare with `tcplab conformance ns2`.
name = "{test}"
duration = "3s"
nodes = ["s1", "s2", "r1", "k1"]

[tcp]
window = 28
precision_reduce = false
rtxcur_init = "6s"
tcp_tick = "0.1s"
minrto = "0s"
syn = false
delay_growth = false
singledup = 0
window_init = 1

[[links]]
from = "s1"
to = "r1"
bandwidth = "8Mb"
delay = "0ms"

[[links]]
from = "s2"
to = "r1"
bandwidth = "8Mb"
delay = "0ms"

[[links]]
from = "r1"
to = "k1"
bandwidth = "800kb"
delay = "10ms"
queue_limit = 8

[[flows]]
name = "tcp1"
fid = 1
from = "s1"
to = "k1"
protocol = "{protocol}"
sink = "{sink}"
delack_interval = "200ms"
start = "1s"
packets = 10
# useHeaders_ false: 1000-byte data packets on the wire (see generate.py)
packet_size = "960B"

[[losses]]
link = "r1->k1"
flows = ["tcp1"]
packets = [3, 4]

[output]
trace = ["ns2"]
tcp_header = true
"""


def main() -> None:
    experiment = Path(sys.argv[2]) if sys.argv[1:2] == ["--experiment"] else None
    out = experiment or HERE
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.toml"):
        old.unlink()
    skipped = {}
    for suffix, (protocol, sink) in VARIANTS.items():
        for immediate in (True, False):
            test = ("immediateAck" if immediate else "noImmediateAck") + suffix
            blockers = [] if experiment is not None else [SYN_ACK]
            if not immediate:
                blockers.append(NO_2581)
            if blockers:
                skipped[test] = "; ".join(blockers)
                continue
            text = TEMPLATE.format(test=test, protocol=protocol, sink=sink)
            (out / f"{test}.toml").write_text(text)
    lines = ["# Tests of test-suite-rfc2581.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (out / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
