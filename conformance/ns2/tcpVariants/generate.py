"""Writes the tcplab scenarios of ns-2.35's test-suite-tcpVariants.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcpVariants/generate.py

The suite (Debian ns2-examples, tcl/test/test-suite-tcpVariants.tcl) runs one TCP connection
s1 -> k1 over s1-r1 (8 Mb/s, 0 ms) and r1-k1 (800 kb/s, 100 ms, queue limit 8), with an FTP
from 1 s, window_ 28, and a drop list on r1 -> k1 (the n-th packet of flow 1 entering the link,
counted from 0), and traces every link with TCP header fields until 6 s. Its global knobs:
precisionReduce_ false, rtxcur_init_ 6, minrto_ 1, singledup_ 0 (1 in the _SA_ tests),
Newreno newreno_changes1_ 0 and partial_window_deflation_ 0. Node s2 carries no traffic but
exists (node ids s1 0, s2 1, r1 2, k1 3).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, write_suite)

DROPS = {
    "onedrop": [14],
    "twodrops": [14, 28],
    "threedrops": [14, 26, 28],
    "fourdrops": [14, 24, 26, 28],
    "multiple": [11, 12, 13, 14, 16, 17, 18, 19],
    "multiple2": [11, 12, 13, 14, 16],
}
# tcplab protocol for each suite variant that tcplab models
# (Sack1, Fack and SackRH get TCPSink/Sack1, tcplab's default sink for them, as in the suite.)
MODELLED = {"tahoe": "tahoe", "reno": "reno", "newreno": "newreno", "sack": "sack1", "fack": "fack",
            "sackRH": "sackrh"}
# the FullTcp tests' own drop lists (a SYN and the handshake's ACK come first)
FULL_DROPS = {"onedrop": [16], "twodrops": [16, 30], "threedrops": [16, 28, 30],
              "fourdrops": [16, 26, 28, 30]}
FULL = {"tahoe": "fulltcp_tahoe", "reno": "fulltcp", "newreno": "fulltcp_newreno", "sack": "fulltcp_sack"}


def scenario(test, variant, drops, singledup, protocol, extra=None):
    tcp = {"window": 28, "precision_reduce": False, "rtxcur_init": "6s", "minrto": "1s",
           "singledup": singledup, "newreno_changes1": 0, "partial_window_deflation": 0,
           **(extra or {})}
    return scenario_toml(
        "tcpVariants", f"{test}: {variant}, drops {drops} on r1->k1", test, "6s", NODES4,
        knobs_toml("tcp", tcp), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", protocol, start="1s"),
        loss_toml("r1->k1", ["tcp1"], drops), output_toml(tcp_header=True))


def main() -> None:
    scenarios, skipped = {}, {}
    for pattern, drops in DROPS.items():
        multiple = pattern.startswith("multiple")  # these have no fack, sackRH or Full TCP form
        variants = ["tahoe", "reno", "newreno", "sack"] + ([] if multiple else ["fack", "sackRH"])
        for variant in variants:
            for sa in (False, True):
                if sa and variant in ("fack", "sackRH"):
                    continue  # the suite has no _SA_ form of these
                test = f"{pattern}_{'SA_' if sa else ''}{variant}"
                scenarios[test] = scenario(test, variant, drops, 1 if sa else 0, MODELLED[variant])
        for full, protocol in FULL.items():
            if not multiple:
                # a FullTcp agent at each end, the one on k1 listening
                test = f"{pattern}_{full}_full"
                scenarios[test] = scenario(test, f"{full} Full TCP", FULL_DROPS[pattern], 0, protocol)
    for pattern in ("multiple", "multiple2"):
        # Agent/TCP set partial_ack_ 1, then the sack test's body
        test = f"{pattern}_partial_ack_sack"
        scenarios[test] = scenario(test, "sack, partial_ack_ 1", DROPS[pattern], 0, "sack1",
                                   {"partial_ack": True})
    write_suite(HERE, scenarios, skipped)


if __name__ == "__main__":
    main()
