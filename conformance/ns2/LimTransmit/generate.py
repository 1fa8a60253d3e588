"""Writes the tcplab scenarios of ns-2.35's test-suite-LimTransmit.tcl, one file per test.

Run from anywhere: python conformance/ns2/LimTransmit/generate.py
                   python conformance/ns2/LimTransmit/generate.py --experiment DIR

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
* useHeaders_ false: ns-2 sends data packets of size_ (1000 B) without adding the 40-byte
  header (TcpAgent::output), but the SYN still has tcpip_base_hdr_size_ (40 B). tcplab always
  adds the header, so the scenario asks for a 960-byte payload: the wire sizes (1000 and 40)
  are then exactly ns-2's, and nothing else in the Sack1 sender depends on the payload size.
* rfc2988_ false changes rtt_timeout() only when t_rtxcur_ < minrto_ and the timer is backed
  off; with tcpTick_ 0.5, t_rtxcur_ = (t_srtt_ + 8 t_rttvar_) >> 3 ticks >= 2 ticks = 1 s =
  minrto_ (t_srtt_ >= 8, t_rttvar_ >= 1), so tcplab's rfc2988_ rule gives the same timeouts.
* SYN_immediate_ack_ false cannot be expressed: tcplab's delayed-ACK sink always ACKs seqno 0
  at once (ns-2 DelAckSink::recv with SYN_immediate_ack_ true). ns-2 here delays the ACK of
  the SYN by interval_ (100 ms). So every test is skipped for now.

--experiment DIR writes the scenarios anyway (as if SYN_immediate_ack_ were true), for a
comparison against a copy of the suite with that line removed; see the report.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SYN_ACK = ("Agent/TCPSink set SYN_immediate_ack_ false: the DelAck sink must delay the ACK of "
           "seqno 0 (the SYN) like any in-order segment; tcplab always ACKs it at once")
ECN_MARK = ("ErrorModel/List with markecn_ true (sets CE on the listed packets instead of "
            "dropping them) is not expressible")

# test: (drop list on r1->k1 for fid 1, singledup_, ecn_, reasons it cannot run yet)
TESTS = {
    "onedrop_sack": ([1], 0, False, [SYN_ACK]),
    "onedrop_SA_sack": ([1], 1, False, [SYN_ACK]),
    "onedrop_ECN_sack": ([1], 0, True, [SYN_ACK, ECN_MARK]),
    "nodrop_sack": ([1000], 0, False, [SYN_ACK]),  # packet 1000 is never sent: no drop
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
# useHeaders_ false: 1000-byte data packets on the wire (see generate.py)
packet_size = "960B"

[[losses]]
link = "r1->k1"
flows = ["tcp1"]
packets = {drops}

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
    for test, (drops, singledup, ecn, blockers) in TESTS.items():
        if experiment is not None:
            blockers = [b for b in blockers if b != SYN_ACK]
        if blockers:
            skipped[test] = "; ".join(blockers)
            continue
        text = TEMPLATE.format(test=test, drops=drops, singledup=singledup,
                               ecn="true" if ecn else "false")
        (out / f"{test}.toml").write_text(text)
    lines = ["# Tests of test-suite-LimTransmit.tcl that tcplab does not run, and why.",
             "# Written by generate.py.", "[skipped]"]
    lines += [f'{t} = "{why}"' for t, why in sorted(skipped.items())]
    (out / "skipped.toml").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
