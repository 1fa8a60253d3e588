"""Writes the tcplab scenarios of ns-2.35's test-suite-newreno.tcl, one file per test.

Run from anywhere: python conformance/ns2/newreno/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-newreno.tcl) runs one TCP connection
s1 -> k1 over s1-r1 (8 Mb/s, 0 ms) and r1-k1 (800 kb/s), with an FTP from 1 s and a drop list
on r1 -> k1 (an ErrorModel/List bound to fid 1: the n-th packet of flow 1 entering the link,
counted from 0), and traces every link with TCP header fields (`Trace set show_tcphdr_ 1`)
until `cleanupAll` (6 s; 10 s or 20 s in the impatient/slow tests). Three topologies:
net4 (r1-k1 100 ms, queue limit 8), net4a (100 ms, limit 80), net4b (200 ms, limit 8).
Node s2 carries no traffic but exists (node ids s1 0, s2 1, r1 2, k1 3).

Its global knobs: precisionReduce_ false, rtxcur_init_ 6, minrto_ 1, and for Newreno
newreno_changes1_ 0 and partial_window_deflation_ 0. (updated_rttvar_ false is also set, but
ns-2.35's C++ never reads that variable.) Each test then sets class defaults (`Agent/TCP set
...`) in its init or run procedure, always before the agent is created, so they all apply.

The reordering tests (newreno5*, reno5*, sack5, on net4a) set the class defaults `ErrorModel set
delay_pkt_ true; ErrorModel set delay_ 0.05` (and `drop_ false`, an OTcl variable no C++ code
binds) and put an ErrorModule Fid with an ErrorModel/List {25} (reno5a: {25 31 35 40}) on
s1->r1 for fid 1: those data packets are delayed 50 ms, not dropped (`action = "delay"`).
setup's own drop list there is {100000}, never reached. newreno_rto_loss_ackf also drops ACKs
23-26 of fid 1 on k1->r1 (drop_acks). The *_ts/_tsh tests set `Agent/TCPSink set
ts_echo_rfc1323_ true` (`[tcpsink] ts_echo_rfc1323 = true`).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

# ns-2 drop lists used by several tests
D3 = [14, 26, 28]                                   # "three drops"
D1 = [14, 15, 16, 17, 18, 19, 20, 21, 25]           # "#1, many drops"
D1A = [24, 25, 26, 27, 28, 29, 31, 33, 36]          # "#1A"
D2 = [24, 25, 26, 28, 31, 35, 40, 45, 46, 47, 48]   # "#2, multiple fast retransmits"
RTO_LOSS = list(range(15, 31)) + [37]
RTO_DUP = D2 + [51]

# Knob sets, named as the suite's Tcl (tcplab names on the right-hand side).
NOBF = {"bug_fix": False}                           # Agent/TCP set bugFix_ false
LT, NOLT = {"singledup": 1}, {"singledup": 0}       # Agent/TCP set singledup_ 1 / 0
NC1 = {"newreno_changes1": 1}                       # Agent/TCP/Newreno set newreno_changes1_ 1
PWD = {"partial_window_deflation": 1}               # ... partial_window_deflation_ 1
ERF = {"exit_recovery_fix": 1}                      # ... exit_recovery_fix_ 1
B = {**NC1, **PWD, **ERF}                           # the "_B" tests set all three


LC = {"less_careful": True}                         # Agent/TCP set lessCareful_ true
BFACK = {"bug_fix_ack": True}                       # Agent/TCP set bugFix_ack_ true
BFTS = {"bug_fix_ts": True}                         # Agent/TCP set bugFix_ts_ true
TS = {"timestamps": True}                           # Agent/TCP set timestamps_ true
RFC2582 = {**NC1, **PWD}                            # $self rfc2582


def t(protocol, drops, *knobs, topo="net4", stop=6, window=28, losses=(), sink=None):
    """One test: its agent, drop list, the class defaults it sets, and setup's other args;
    `losses` are extra [[losses]] tables, `sink` the [tcpsink] knobs."""
    merged = {}
    for k in knobs:
        merged.update(k)
    return dict(protocol=protocol, drops=drops, knobs=merged, topo=topo, stop=stop, window=window,
                losses=list(losses), sink=sink or {})


def reorder(packets):
    """drop_pkts1 under `ErrorModel set delay_pkt_ true; ... delay_ 0.05`: s1->r1, fid 1."""
    return [{"link": "s1->r1", "flows": ["tcp1"], "packets": packets, "action": "delay",
             "delay": "50ms"}]


TESTS = {
    "reno": t("reno", D3, LT, NOBF),
    "reno_noLT": t("reno", D3, NOLT, NOBF),
    "newreno": t("newreno", D3, LT, NOBF),
    "newreno_noLT": t("newreno", D3, NOLT, NOBF),
    "newreno_B": t("newreno", D3, LT, NOBF, B),
    "newreno_B_noLT": t("newreno", D3, NOLT, NOBF, B),
    "reno1": t("reno", D1, NOBF),
    "newreno1": t("newreno", D1, NOBF),
    "newreno1_BF": t("newreno", D1),
    "newreno1_A": t("newreno", D1, LT, NOBF, NC1),
    "newreno1_A_noLT": t("newreno", D1, NOLT, NOBF, NC1),
    "newreno1_A_BF": t("newreno", D1, LT, NC1),
    "newreno1_B0": t("newreno", D1, NOBF, PWD, ERF),
    "newreno1_B": t("newreno", D1, LT, NOBF, B),
    "newreno1_B_BF": t("newreno", D1, LT, B),
    # runs Test/reno's body: a Reno agent with drops {14 26 28}
    "newreno1_B_noLT": t("reno", D3, NOLT, NOBF),
    "newreno1A_A": t("newreno", D1A, LT, NOBF, NC1),
    "newreno1A_A_BF": t("newreno", D1A, LT, NC1),
    # despite its name this test does not set lessCareful_: the same as newreno1A_A_BF
    "newreno1A_A_BF_LC": t("newreno", D1A, LT, NC1),
    "newreno1A_A_noLT": t("newreno", D1A, NOLT, NOBF, NC1),
    "reno2": t("reno", D2, LT, NOBF),
    "reno2_noLT": t("reno", D2, NOLT, NOBF),
    "reno2_bugfix": t("reno", D2, LT),
    "reno2_bugfix_noLT": t("reno", D2, NOLT),
    "newreno2_A": t("newreno", D2, LT, NOBF, NC1),
    "newreno2_A_noLT": t("newreno", D2, NOLT, NOBF, NC1),
    "newreno2_A_bugfix": t("newreno", D2, NC1),
    "newreno2_B": t("newreno", D2, LT, NOBF, B),
    "newreno2_B_noLT": t("newreno", D2, NOLT, NOBF, B),
    "newreno2_B_bugfix": t("newreno", D2, B),
    "newreno6": t("newreno", D3 + [33], LT, NOBF),
    "newreno_rto_loss": t("newreno", RTO_LOSS, RFC2582),
    "newreno_rto_dup": t("newreno", RTO_DUP),
    "newreno_rto_dup_ts": t("newreno", RTO_DUP, TS),
    # Less Careful variants (newreno1_B_BF_LC, like newreno1A_A_BF_LC, does not set lessCareful_)
    "newreno1_A_BF_LC": t("newreno", D1, LT, NC1, LC),
    "newreno1_B_BF_LC": t("newreno", D1, LT, B),
    "newreno2_A_bugfix_LC": t("newreno", D2, NC1, LC),
    "newreno2_B_bugfix_LC": t("newreno", D2, B, LC),
    # ACK and timestamp heuristics
    "newreno_rto_loss_ack": t("newreno", RTO_LOSS, BFACK, RFC2582),
    "newreno_rto_dup_ack": t("newreno", RTO_DUP, BFACK),
    "newreno_rto_loss_ackf": t("newreno", list(range(15, 31)) + [43], BFACK, RFC2582,
                               losses=[{"link": "k1->r1", "flows": ["tcp1"],
                                        "packets": [23, 24, 25, 26]}]),
    "newreno_rto_loss_ts": t("newreno", RTO_LOSS, TS, RFC2582, sink={"ts_echo_rfc1323": True}),
    "newreno_rto_loss_tsh": t("newreno", RTO_LOSS, BFTS, TS, RFC2582,
                              sink={"ts_echo_rfc1323": True}),
    "newreno_rto_dup_tsh": t("newreno", RTO_DUP, TS, BFTS),
}
# reordering: (agent, delayed packets, class defaults); bugFix_ true/false, singledup_ 1/0
BF = {"bug_fix": True}
for name, proto, delayed, knobs in [
        ("newreno5", "newreno", [25], (BF, LT)), ("newreno5_LC", "newreno", [25], (BF, LC, LT)),
        ("newreno5_noLT", "newreno", [25], (BF, NOLT)),
        ("newreno5_noLT_LC", "newreno", [25], (BF, LC, NOLT)),
        ("newreno5_noBF", "newreno", [25], (NOBF, LT)),
        ("newreno5_noLT_noBF", "newreno", [25], (NOBF, NOLT)),
        ("sack5", "sack1", [25], (BF, LT)),
        ("reno5", "reno", [25], (BF, LT)), ("reno5_noBF", "reno", [25], (NOBF, LT)),
        ("reno5_noLT_noBF", "reno", [25], (NOBF, NOLT)),
        ("reno5a", "reno", [25, 31, 35, 40], (BF, LT)),
        ("reno5a_noLT_noBF", "reno", [25, 31, 35, 40], (NOBF, NOLT))]:
    TESTS[name] = t(proto, [100000], *knobs, topo="net4a", losses=reorder(delayed))
# impatient (newreno_changes1_ 1) / slow-but-steady (0) pairs on net4b: setup ... 1 stop window
for n, drops, stop, window in [(1, list(range(15, 28)), 10, 16), (2, list(range(15, 20)), 10, 16),
                               (3, [15, 16, 17, 18, 19, 22, 27], 10, 16),
                               (4, list(range(30, 56)), 20, 32)]:
    for name, nc1 in (("impatient", 1), ("slow", 0)):
        TESTS[f"{name}{n}"] = t("newreno", drops, {"newreno_changes1": nc1}, PWD, LT,
                                topo="net4b", stop=stop, window=window)

SKIPPED: dict[str, str] = {}

# The suite's class defaults, set before any test ($tcp1 set window_ comes from setup's argument).
GLOBALS = {"precision_reduce": False, "rtxcur_init": "6s", "minrto": "1s",
           "newreno_changes1": 0, "partial_window_deflation": 0}

TOPOLOGIES = {"net4": ("100ms", 8), "net4a": ("100ms", 80), "net4b": ("200ms", 8)}


def scenario(test, s):
    # the suite's globals, then what the test sets (later settings win, as in the Tcl)
    tcp = {"window": s["window"], **GLOBALS, **s["knobs"]}
    delay, limit = TOPOLOGIES[s["topo"]]
    return scenario_toml(
        "newreno", f"{test}: {s['protocol']} on {s['topo']}, drops {s['drops']} on r1->k1", test,
        f"{s['stop']}s", NODES4, knobs_toml("tcp", tcp), net4_links(delay, limit),
        flow_toml("tcp1", 1, "s1", "k1", s["protocol"], start="1s", tcpsink=s["sink"]),
        loss_toml("r1->k1", ["tcp1"], s["drops"]), *(loss_toml(**loss) for loss in s["losses"]),
        output_toml(tcp_header=True))


def main() -> None:
    write_suite(HERE, {test: scenario(test, s) for test, s in TESTS.items()}, SKIPPED)


if __name__ == "__main__":
    main()
