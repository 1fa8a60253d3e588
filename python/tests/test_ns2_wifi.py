"""tcplab's 802.11 MAC against ns-2.35's: the same two-node TCP transfer over a WLAN with ns-2's
defaults (conformance/ns2-wifi/), compared on goodput and on the MAC frames sent per data frame.

ns-2 comes from Debian's `ns2` package (conformance/install-ns2.sh); without it this test is
skipped, except under CI, which installs it.
"""

from __future__ import annotations

import collections
import subprocess
from pathlib import Path

import pytest
from support import needs_ns

import tcplab

CASE = Path(__file__).resolve().parents[2] / "conformance" / "ns2-wifi"


def ns2_counts(trace: Path) -> tuple[collections.Counter, int]:
    """MAC frames sent, by type, and TCP data packets delivered to the receiving agent, from an
    ns-2 trace in the old CMU wireless format."""
    sent = collections.Counter()
    delivered = set()
    for line in trace.read_text().splitlines():
        f = line.split()
        if f[0] == "s" and f[3] == "MAC":
            sent[f[6]] += 1
        elif f[0] == "r" and f[3] == "AGT" and f[6] == "tcp":
            delivered.add(int(f[-4][1:]) if f[-4].startswith("[") else int(f[-4]))
    return sent, len(delivered)


@needs_ns
def test_two_node_tcp_matches_ns2(tmp_path):
    trace = tmp_path / "ns2.tr"
    subprocess.run(["ns", str(CASE / "two-node-tcp.tcl"), str(trace)], cwd=tmp_path, check=True,
                   capture_output=True, timeout=300)
    sent, data_packets = ns2_counts(trace)
    ns2_goodput = data_packets * 1000 * 8 / 50.0  # payload bytes over the 50 s transfer

    r = tcplab.run(CASE / "two-node-tcp.toml")
    goodput = r.flows.goodput_bps[0]
    assert abs(goodput - ns2_goodput) / ns2_goodput < 0.02, (goodput, ns2_goodput)

    ours = r.radios[["rts", "cts", "data", "acks"]].sum()
    theirs = {"rts": sent["RTS"], "cts": sent["CTS"], "data": sent["tcp"] + sent["ack"], "acks": sent["ACK"]}
    for kind in ("rts", "cts", "acks"):
        per_data = ours[kind] / ours["data"], theirs[kind] / theirs["data"]
        assert per_data[0] == pytest.approx(per_data[1], abs=0.01), (kind, per_data)
