"""Writes the tcplab scenarios of ns-2.35's test-suite-testReno-full.tcl (FullTcp variants).

Run from anywhere: python conformance/ns2/testReno-full/generate.py

What the suite does: tcpTick_ 0.1, rfc2988_ false, precisionReduce_ false, rtxcur_init_ 6.0,
useHeaders_ false, windowInit_ 1, singledup_ 0, minrto_ 0, syn_ false, delay_growth_ false, and
bugFix_ false before the agents are made. Topology net4 (s1-r1, s2-r1 8Mb 0ms; r1-k1 800Kb
100ms, limit 8) with a drop list on r1 -> k1 for fid 1. A FullTcp pair s1 -> k1 (fid 1, the k1
one listening), the s1 agent's window as the test sets it, FTP from 1 s, until 4.01 s.
misc_simple.tcl's `$ns eventtrace-all` (the suite's name matches "testReno") puts the agents' event
lines in all.tr too.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links, output_toml,  # noqa: E402
                    scenario_toml, write_suite)

GLOBALS = {"tcp_tick": "100ms", "rfc2988": False, "precision_reduce": False, "rtxcur_init": "6s",
           "use_headers": False, "window_init": 1, "singledup": 0, "minrto": "0s", "syn": False,
           "delay_growth": False, "bug_fix": False}
# test: (protocol, window, drops)
TESTS = {
    "Tahoe_FullTCP": ("fulltcp_tahoe", 5, [15, 18]),
    "Reno_FullTCP": ("fulltcp", 5, [15, 18]),
    "NewReno_FullTCP": ("fulltcp_newreno", 5, [15, 18]),
    "Tahoe_FullTCP2": ("fulltcp_tahoe", 8, [17]),
    "Reno_FullTCP2": ("fulltcp", 8, [17]),
    "NewReno_FullTCP2": ("fulltcp_newreno", 8, [17]),
}
SKIPPED = {
    "Reno_BayFullTCP": "Agent/TCP/BayFullTcp (baytcp/, with Agent/BayTcpApp/FtpClient and FtpServer) is not modelled",
    "Reno_BayFullTCP2": "Agent/TCP/BayFullTcp (baytcp/, with Agent/BayTcpApp/FtpClient and FtpServer) is not modelled",
}


def scenario(test: str, protocol: str, window: int, drops: list[int]) -> str:
    return scenario_toml(
        "testReno-full", f"{test}: {protocol}, window {window}, drops {drops} on r1->k1", test, "4.01s",
        NODES4, knobs_toml("tcp", GLOBALS), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", protocol, start="1s", tcp={"window": window}),
        loss_toml("r1->k1", ["tcp1"], drops), output_toml(tcp_header=True, events=True))


def main() -> None:
    write_suite(HERE, {t: scenario(t, *args) for t, args in TESTS.items()}, SKIPPED)


if __name__ == "__main__":
    main()
