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

from pathlib import Path

HERE = Path(__file__).resolve().parent

# test: (drop list on r1->k1 for fid 1, singledup_, ecn_ (and markecn_), reasons it cannot run)
TESTS = {
    "onedrop_sack": ([1], 0, False, []),
    "onedrop_SA_sack": ([1], 1, False, []),
    "onedrop_ECN_sack": ([1], 0, True, []),
    "nodrop_sack": ([1000], 0, False, []),  # packet 1000 is never sent: no drop
}

TEMPLATE = """\
# ns-2.35 test-suite-LimTransmit.tcl, test {test}: Sack1, drops {drops} on r1->k1.
# Written by conformance/ns2/LimTransmit/generate.py; compare with `tcplab conformance ns2`.
name = "{test}"
duration = "6s"
nodes = ["s1", "s2", "r1", "k1"]

[tcp]
window = 28
tcp_tick = "0.5s"
precision_reduce = false
rtxcur_init = "6s"
minrto = "1s"
singledup = {singledup}
bug_fix = false
ecn = {ecn}
rfc2988 = false
use_headers = false

[tcpsink]
syn_immediate_ack = false

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
delay = "100ms"
queue_limit = 8

[[flows]]
name = "tcp1"
fid = 1
from = "s1"
to = "k1"
protocol = "sack1"
sink = "sack1_delack"
packets = 7
packet_size = "1000B"

[[losses]]
link = "r1->k1"
flows = ["tcp1"]
packets = {drops}
action = "{action}"

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
    for test, (drops, singledup, ecn, blockers) in TESTS.items():
        if blockers:
            skipped[test] = "; ".join(blockers)
            continue
        text = TEMPLATE.format(test=test, drops=drops, singledup=singledup,
                               ecn="true" if ecn else "false",
                               action="mark" if ecn else "drop")
        (out / f"{test}.toml").write_text(text)
    lines = ["# Tests of test-suite-LimTransmit.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (out / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
