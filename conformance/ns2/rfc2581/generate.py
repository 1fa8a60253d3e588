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

from pathlib import Path

HERE = Path(__file__).resolve().parent

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
rfc2988 = false
use_headers = false

[tcpsink]
syn_immediate_ack = false
rfc2581_immediate_ack = {immediate}

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
packet_size = "1000B"

[[losses]]
link = "r1->k1"
flows = ["tcp1"]
packets = [3, 4]

[output]
trace = ["ns2"]
tcp_header = true
"""


def main() -> None:
    out = HERE
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.toml"):
        old.unlink()
    skipped = {}
    for suffix, (protocol, sink) in VARIANTS.items():
        for immediate in (True, False):
            test = ("immediateAck" if immediate else "noImmediateAck") + suffix
            text = TEMPLATE.format(test=test, protocol=protocol, sink=sink,
                                   immediate="true" if immediate else "false")
            (out / f"{test}.toml").write_text(text)
    lines = ["# Tests of test-suite-rfc2581.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (out / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
