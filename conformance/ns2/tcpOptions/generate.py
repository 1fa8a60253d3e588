"""Writes the tcplab scenarios of ns-2.35's test-suite-tcpOptions.tcl, one file per test.

Run from anywhere: python conformance/ns2/tcpOptions/generate.py

The suite runs one TCP connection s1 -> k1 (fid 1, window_ 50) over Topology/net4 or net4a:
s1-r1 and s2-r1 8 Mb/s 0 ms, r1-k1 800 kb/s 100 ms with queue limit 8 both ways; all.tr traces
every link with TCP header fields. Its globals: precisionReduce_ false, rtxcur_init_ 6,
minrto_ 1, singledup_ 0. Three setups:
* setup (onedrop_*): FTP from 0 s, an ErrorModel/List on r1 -> k1 drops the listed packets of
  fid 1 (counted from 0; the FullTcp tests count the SYN and the handshake's ACK too), until
  2 s. bugFix_ false. The numdup4 tests set Agent/TCP numdupacks_ 4 (one-way agents) or
  Agent/TCP/FullTcp tcprexmtthresh_ 4 (both FullTcp ends).
* setup1 (maxburst_*, net4a): maxburst_ 3, aggressive_maxburst_ 0 (1 in the *1 tests),
  `produce 22` at 0 s; two ErrorModel/Lists with delay_pkt_ on k1 -> r1 delay the ACKs 8-12 by
  100 s (past the end) and ACK 13 by 20 ms, until 2 s. bugFix_ false.
* setup2 (timeouts*): FTP from 0 s, drops as in setup, until 8 s (timeouts) or 5 s (timeoutsA);
  bugFix_ stays true unless the test clears it; timestamps_ and ts_resetRTO_ as the test sets
  them, exitFastRetrans_ false in the noexitFR tests.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, knobs_toml, loss_toml, net4_links,  # noqa: E402
                    output_toml, scenario_toml, tables_toml, write_suite)

GLOBALS = {"precision_reduce": False, "rtxcur_init": "6s", "minrto": "1s", "singledup": 0}
ONE_WAY = {"tahoe": "tahoe", "reno": "reno", "newreno": "newreno", "sack": "sack1"}
FULL = {"tahoe": "fulltcp_tahoe", "reno": "fulltcp", "newreno": "fulltcp_newreno", "sack": "fulltcp_sack"}
TIMEOUT_DROPS = [7, 8, 9, 10, 11, 12, 13, 14, 21]
TIMEOUT_A_DROPS = [20, 21, 22, 23, 24, 25, 26, 31, 41]


def scenario(test: str, about: str, protocol: str, duration: str, knobs: dict, losses: str,
             packets: int | None = None) -> str:
    return scenario_toml(
        "tcpOptions", f"{test}: {about}", test, duration, NODES4,
        knobs_toml("tcp", {**GLOBALS, **knobs}), net4_links(),
        flow_toml("tcp1", 1, "s1", "k1", protocol, start="0s", packets=packets, tcp={"window": 50}),
        losses, output_toml(tcp_header=True))


def scenarios() -> dict[str, str]:
    s = {}
    for variant in ONE_WAY:
        for numdup in (3, 4):
            name = f"onedrop_{'numdup4_' if numdup == 4 else ''}{variant}"
            s[name] = scenario(name, f"{variant}, numdupacks_ {numdup}, packet 3 dropped",
                               ONE_WAY[variant], "2s", {"bug_fix": False, "numdupacks": numdup},
                               loss_toml("r1->k1", ["tcp1"], [3]))
            name += "_full"
            s[name] = scenario(name, f"{variant} Full TCP, tcprexmtthresh_ {numdup}, packet 4 dropped",
                               FULL[variant], "2s", {"bug_fix": False, "tcprexmtthresh": numdup},
                               loss_toml("r1->k1", ["tcp1"], [4]))
    delayed_acks = tables_toml(
        loss_toml("k1->r1", ["tcp1"], [8, 9, 10, 11, 12], action="delay", delay="100s"),
        loss_toml("k1->r1", ["tcp1"], [13], action="delay", delay="20ms"))
    for variant in ONE_WAY:
        for aggressive in (False, True):
            name = f"maxburst_{variant}{'1' if aggressive else ''}"
            s[name] = scenario(name, f"{variant}, maxburst_ 3, aggressive_maxburst_ {int(aggressive)}",
                               ONE_WAY[variant], "2s",
                               {"bug_fix": False, "maxburst": 3, "aggressive_maxburst": aggressive},
                               delayed_acks, packets=22)
    timeouts = {  # suffix: (about, knobs)
        "": ("bugFix_ true", {}),
        "1": ("bugFix_ false", {"bug_fix": False}),
        "2": ("timestamps_, ts_resetRTO_", {"timestamps": True, "ts_reset_rto": True}),
        "3": ("timestamps_", {"timestamps": True}),
        "_noexitFR": ("exitFastRetrans_ false", {"exit_fast_retrans": False}),
    }
    for variant in ONE_WAY:
        for suffix, (about, knobs) in timeouts.items():
            if suffix == "_noexitFR" and variant not in ("reno", "newreno"):
                continue
            name = f"timeouts_{variant}{suffix}"
            s[name] = scenario(name, f"{variant}, {about}, packets {TIMEOUT_DROPS} dropped",
                               ONE_WAY[variant], "8s", knobs,
                               loss_toml("r1->k1", ["tcp1"], TIMEOUT_DROPS))
    for suffix, (about, knobs) in (("", ("bugFix_ true", {})), ("1", ("bugFix_ false", {"bug_fix": False}))):
        name = f"timeoutsA_tahoe{suffix}"
        s[name] = scenario(name, f"tahoe, {about}, packets {TIMEOUT_A_DROPS} dropped", "tahoe", "5s",
                           knobs, loss_toml("r1->k1", ["tcp1"], TIMEOUT_A_DROPS))
    return s


def main() -> None:
    write_suite(HERE, scenarios(), {})


if __name__ == "__main__":
    main()
