"""pcap captures read by tshark: well-formed, the retransmissions tcplab counts, and the packets
of the ns-2 trace, in order, with their sequence numbers in bytes.

tshark comes from Debian's `tshark` package (scripts/test.sh installs it)."""

import subprocess

import pytest
from support import needs_tshark

import tcplab
from tcplab import sweep

pytestmark = needs_tshark

SEGMENT = 1000  # ns-2's packetSize_ default: the bytes each seqno stands for
RED_MARKING = {"setbit": True, "thresh": 2, "maxthresh": 6, "bytes": False, "queue_in_bytes": False}


def lossy_dumbbell(protocol: str, ip: str, **tcp) -> dict:
    """Two flows through an 8-packet bottleneck queue that also loses 1% of what reaches it:
    drops, fast retransmits and timeouts, for Vegas too. With ECN, the queue is RED and marks."""
    link = lambda a, b, rate, delay, **kw: {"from": a, "to": b, "bandwidth": rate, "delay": delay, **kw}
    return {
        "name": f"lossy-{protocol}-{ip}",
        "duration": "15s",
        "nodes": ["s1", "s2", "r1", "r2", "k1", "k2"],
        "tcp": {"window": 40, **tcp},
        "links": [
            link("s1", "r1", "10Mb", "2ms"), link("s2", "r1", "10Mb", "3ms"),
            link("r1", "r2", "1.5Mb", "20ms", queue_limit=8,
                 **({"queue": "red", "red": RED_MARKING} if tcp.get("ecn") else {})),
            link("r2", "k1", "10Mb", "2ms"), link("r2", "k2", "10Mb", "2ms"),
        ],
        "flows": [
            {"name": "A", "from": "s1", "to": "k1", "protocol": protocol},
            {"name": "B", "from": "s2", "to": "k2", "protocol": protocol, "start": "0.3s"},
        ],
        "losses": [{"link": "r1->r2", "model": "uniform", "rate": 0.01}],
        "output": {"pcap_ip": ip},
    }


def tshark(path, *args: str) -> str:
    done = subprocess.run(["tshark", "-r", str(path), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def fields(path, *names: str, filter: str = "") -> list[list[str]]:
    out = tshark(path, *(["-Y", filter] if filter else []), "-T", "fields", "-E", "separator=\t",
                 *[a for n in names for a in ("-e", n)])
    return [line.split("\t") for line in out.splitlines()]


CASES = [("reno", "ipv4", {}), ("sack1", "ipv4", {}), ("vegas", "ipv6", {}),
         ("newreno", "ipv6", {"timestamps": True}), ("sack1", "ipv6", {"timestamps": True}),
         ("newreno", "ipv4", {"ecn": True})]


@pytest.fixture(scope="module", params=CASES, ids=lambda c: "-".join([c[0], c[1], *c[2]]))
def captured(request, tmp_path_factory):
    protocol, ip, tcp = request.param
    out = tmp_path_factory.mktemp(f"pcap-{protocol}-{ip}")
    res = tcplab.run(lossy_dumbbell(protocol, ip, **tcp), out=out, trace=["pcap", "ns2"])
    return res, out, ip, tcp


def test_every_link_is_captured_and_well_formed(captured):
    res, out, ip, _ = captured
    files = sorted(p.name for p in (out / "pcap").iterdir())
    assert files == ["r1-r2.pcap", "r2-k1.pcap", "r2-k2.pcap", "s1-r1.pcap", "s2-r1.pcap"]
    for f in (out / "pcap").iterdir():
        expert = tshark(f, "-q", "-z", "expert,warn")
        assert "Malformed" not in expert and "Errors" not in expert, f"{f.name}:\n{expert}"
        versions = {(v4 or v6)[:1] for v4, v6 in fields(f, "ip.version", "ipv6.version")}
        assert versions == {"4" if ip == "ipv4" else "6"}, f.name


def test_tshark_counts_our_retransmissions(captured):
    """At each sender's link, tshark marks as retransmissions exactly the segments tcplab
    retransmitted (the link carries both directions, so tshark sees the duplicate ACKs)."""
    res, out, _, _ = captured
    for flow, link in (("A", "s1-r1"), ("B", "s2-r1")):
        ours = next(f for f in res.summary["flows"] if f["name"] == flow)["packets_retransmitted"]
        marked = fields(out / "pcap" / f"{link}.pcap", "frame.number",
                        filter="tcp.analysis.retransmission or tcp.analysis.fast_retransmission"
                               " or tcp.analysis.spurious_retransmission or tcp.analysis.out_of_order")
        assert ours > 5, "the scenario must lose packets"
        assert len(marked) == ours, flow


def test_packets_match_the_ns2_trace(captured):
    """Every packet the ns-2 trace shows leaving either end of a link is in the link's capture,
    in order, at the same time, with seqno x segment as its byte number (seqno + 1 as the ACK's
    next expected byte) and the trace's ECN flags (ECT, CE, ECN-echo, CWR)."""
    res, out, ip, tcp = captured
    nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]
    trace = [line.split() for line in (out / "trace.tr").read_text().splitlines()]
    prefix = "ip" if ip == "ipv4" else "ipv6"
    on = lambda v: v in ("1", "True")
    marks = {"N": 0, "E": 0, "C": 0, "A": 0}
    for a, b in (("s1", "r1"), ("r1", "r2")):
        ends = {nodes.index(a), nodes.index(b)}
        sent = [t for t in trace if t[0] == "-" and {int(t[2]), int(t[3])} == ends]
        frames = fields(out / "pcap" / f"{a}-{b}.pcap", "frame.time_epoch", "tcp.seq_raw", "tcp.ack_raw",
                        "tcp.len", "tcp.flags.syn", f"{prefix}.src", "tcp.options.timestamp.tsval",
                        f"{prefix}.dsfield.ecn" if ip == "ipv4" else "ipv6.tclass.ecn", "tcp.flags.ece",
                        "tcp.flags.cwr")
        assert len(frames) == len(sent) > 1000
        for t, (when, seq, ack, length, syn, src, tsval, ecn, ece, cwr) in zip(sent, frames):
            assert float(when) == pytest.approx(float(t[1]), abs=1e-6), t
            kind, flags, seqno, node = t[4], t[6], int(t[10]), int(t[8].split(".")[0])
            if kind == "tcp" and on(syn):
                assert (seqno, int(seq)) == (0, SEGMENT - 1), t  # the SYN, one byte before segment 1
            elif kind == "tcp":
                assert (int(seq), int(length)) == (seqno * SEGMENT, SEGMENT), t
            else:
                assert kind == "ack" and int(ack) == (seqno + 1) * SEGMENT, t
            assert src == (f"10.0.0.{node + 1}" if ip == "ipv4" else f"fd00::{node + 1:x}"), t
            assert (tsval != "") == bool(tcp.get("timestamps")), t
            assert int(ecn) == (3 if flags[4] == "E" else 2 if flags[6] == "N" else 0), t
            assert (on(ece), on(cwr)) == (flags[0] == "C", flags[3] == "A"), t
            for f in marks:
                marks[f] += f in flags
    if tcp.get("ecn"):
        assert all(marks.values()), marks  # every kind of mark was met


def test_mobile_ipv6_capture_has_tunnels_and_signalling(tmp_path):
    """The HMIPv6 handover study, captured: IPv6 only, binding updates and acknowledgements
    at their simulated size, packets tunnelled to the care-of address, nothing malformed."""
    from pathlib import Path
    scenario = Path(__file__).parents[2] / "scenarios" / "yew2011-handover" / "vegas.toml"
    tcplab.run(scenario, out=tmp_path, trace="pcap", until="30s")
    ha = tmp_path / "pcap" / "ha-n1.pcap"
    signalling = fields(ha, "mip6.mhtype", "frame.len", filter="mipv6")
    assert {("5", "72"), ("6", "56")} <= {tuple(s) for s in signalling}, signalling
    assert fields(ha, "frame.number", filter="ipv6.nxt == 41"), "HA-to-CoA tunnel"
    for f in (tmp_path / "pcap").iterdir():
        expert = tshark(f, "-q", "-z", "expert,warn")
        assert "Malformed" not in expert and "Errors" not in expert, f"{f.name}:\n{expert}"
        assert {(v4 or v6)[:1] for v4, v6 in fields(f, "ip.version", "ipv6.version")} <= {"6"}


def test_pcap_ipv4_is_refused_with_mobile_ipv6(tmp_path):
    from pathlib import Path
    doc = sweep.read_scenario(Path(__file__).parents[2] / "scenarios" / "yew2011-handover" / "vegas.toml")
    doc.setdefault("output", {})["pcap_ip"] = "ipv4"
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(doc)
    assert e.value.path == "output.pcap_ip"
