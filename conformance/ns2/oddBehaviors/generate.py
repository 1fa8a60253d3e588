"""Writes the tcplab scenarios of ns-2.35's test-suite-oddBehaviors.tcl, one file per test.

Run from anywhere: python conformance/ns2/oddBehaviors/generate.py

The suite runs one TCP connection s1 -> k1 (fid 1) over Topology/net4: s1-r1 and s2-r1 8 Mb/s
0 ms, r1-k1 800 kb/s 100 ms with queue limit 8 both ways. The sender has window_ 50 and an FTP
from 0 s; an ErrorModel/List on r1 -> k1 drops the listed packets of fid 1 (counted from 0);
all.tr traces every link with TCP header fields until 2 s. Globals: singledup_ 0 (1 in
onedrop_sack1) and bugFix_ false (set by the setup, before the agents exist); the rest are
ns-2.35's defaults.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

TESTS = {  # test: (about, protocol, singledup_)
    "onedrop_reno": ("Reno, inflated window after Fast Retransmit", "reno", 0),
    "onedrop_sack": ("Sack1, no inflated window after Fast Retransmit", "sack1", 0),
    "onedrop_sack1": ("Sack1, Limited Transmit (singledup_ 1)", "sack1", 1),
}


def scenario(test: str) -> str:
    about, protocol, singledup = TESTS[test]
    return scenario_toml(
        "oddBehaviors", f"{test}: {about}, packet 3 dropped", test, "2s", NODES4,
        knobs_toml("tcp", {"singledup": singledup, "bug_fix": False}), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", protocol, start="0s", tcp={"window": 50}),
        loss_toml("r1->k1", ["tcp1"], [3]), output_toml(tcp_header=True))


def main() -> None:
    write_suite(HERE, {test: scenario(test) for test in TESTS}, {})


if __name__ == "__main__":
    main()
