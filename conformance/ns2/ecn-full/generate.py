"""Writes the tcplab scenarios of ns-2.35's test-suite-ecn-full.tcl, one file per test.

Run from anywhere: python conformance/ns2/ecn-full/generate.py

The suite is test-suite-ecn.tcl with two-way FullTcp agents: it is read from Debian's
ns2-examples (TCPLAB_NS2_EXAMPLES overrides the folder) and cut into its `Class Test/<name>`
blocks by ecn/generate.py's `blocks`; each block's class-level settings and its run body
(`ecnsetup`, `drop_pkt`, `drop_pkts`, ...) become a scenario, or a reason in skipped.toml.

What the suite does (test-suite-ecn-full.tcl):
* Globals: precisionReduce_ false, rtxcur_init_ 6.0, tcpTick_ 0.1, rfc2988_ false, minrto_ 0,
  useHeaders_ false, windowInit_ 1, singledup_ 0, syn_ false, delay_growth_ false,
  SetCWRonRetransmit_ true (ns-2's default, tcplab's too), FullTcp segsize_ 960; RED in packet
  mode with q_weight_ 0.002, thresh_ 5, maxthresh_ 15 (the tests may change the thresholds).
  Every test writes all.tr with `trace-all`, no TCP header fields.
* Topologies as in test-suite-ecn.tcl (NODES7): net2-lossy (RED r1-r2, limit 25) or net3-lossy
  (r2-r3 100Mb 0ms RED, limit 100); `ecnsetup` sets the r1-r2 delay to 10 ms and setbit_ on
  r1->r2. An ErrorModule Fid heads r1->r2 (and r2->r3 in net3) with an ErrorModel/Periodic
  (unit pkt) bound to fid 0.
* `drop_pkt N`: offset_ N, period_ 10000 (the periodic model, burstlen_ as the test sets it);
  `drop_pkts L` adds an ErrorModel/List bound to fid 1 (the tests' tcp1 then has fid 1), and
  `drop_pkts2 L` one on r2->r3. Both count tcp1's packets on that link, its SYN and handshake
  ACK included. markecn_ true makes the model CE-mark the packets it picks.
* ecnsetup: a FullTcp pair (FullTcp, /Tahoe, /Newreno, /Sack) s1 -> s3, the s3 end listening
  with ecn_ 1 (and interval_ 100ms when delack is 1), the s1 end window_ 30, ecn_ 1, FTP from
  0 s; `second_tcp Tahoe T` adds a one-way Agent/TCP s1 -> s3 with fid 2 and a TCPSink, window_
  30, ecn_ 1, FTP from T.
"""

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (flow_toml, knobs_toml, link_toml, net2_links, output_toml,  # noqa: E402
                    scenario_toml, table_toml, tables_toml, write_suite)
from ecn.generate import NODES7, blocks, tcl_value  # noqa: E402

SUITE = Path(os.environ.get("TCPLAB_NS2_EXAMPLES", "/usr/share/doc/ns2/examples/tcl")) / "test" / "test-suite-ecn-full.tcl"

PROTOCOL = {"Tahoe": "fulltcp_tahoe", "Reno": "fulltcp", "Newreno": "fulltcp_newreno", "Sack": "fulltcp_sack"}
GLOBALS = {"precision_reduce": False, "rtxcur_init": "6s", "tcp_tick": "100ms", "rfc2988": False,
           "minrto": "0s", "use_headers": False, "window_init": 1, "singledup": 0, "syn": False,
           "delay_growth": False, "segsize": 960}
RED = {"bytes": False, "queue_in_bytes": False, "q_weight": 0.002, "thresh": 5, "maxthresh": 15,
       "setbit": True}
# Class-level Agent/TCP settings the tests make, as [tcp] knobs.
TCP_KNOBS = {"bugFix_": "bug_fix", "old_ecn_": "old_ecn", "timerfix_": "timerfix",
             "slow_start_restart_": "slow_start_restart", "rfc2988_": "rfc2988"}


def periodic(link: str, offset: int, burst: int | None, mark: bool) -> str:
    """The ErrorModel/Periodic of drop_pkt (offset_ N, period_ 10000) on `link`."""
    return table_toml("[[losses]]", {"link": link, "flows": ["tcp1"], "model": "periodic",
                                     "offset": float(offset), "period": 10000.0,
                                     "burst": float(burst) if burst else None,
                                     "action": "mark" if mark else None})


def listed(link: str, packets: list[int], mark: bool) -> str:
    """An ErrorModel/List (drop_pkts) on `link`."""
    return table_toml("[[losses]]", {"link": link, "flows": ["tcp1"], "packets": packets,
                                     "action": "mark" if mark else None})


def scenario(test: str, init: str, run: str) -> tuple[str | None, str | None]:
    """A scenario for an ecnsetup test, or a reason why there is none."""
    m = re.search(r"ecnsetup (\w+) ([\d.]+)(?: (\d+))?(?: (\d+))?", run)
    tcptype, stop, fid1, delack = m.group(1), float(m.group(2)), int(m.group(3) or 0), int(m.group(4) or 0)
    net = re.search(r"set net_\s+(\S+)", init).group(1).replace("-lossy", "")
    tcp = dict(GLOBALS)
    red = dict(RED)
    settings = init + "\n" + run[:m.start()]  # what is set before ecnsetup makes the agents
    for k, v in re.findall(r"Agent/TCP set (\w+) (\S+)", settings):
        if k not in TCP_KNOBS:
            return None, f"Agent/TCP set {k} {v} has no scenario knob"
        tcp[TCP_KNOBS[k]] = tcl_value(v)
    for k, v in re.findall(r"Queue/RED set (\w+)_ (\S+)", settings):
        red[k] = tcl_value(v)

    losses = []
    if "drop_pkts " in run:
        assert fid1 == 1, test  # the List model is bound to fid 1
        drops = [int(x) for x in re.search(r"drop_pkts \{([\d ]+)\}", run).group(1).split()]
        losses.append(listed("r1->r2", drops, "errmodel1 set markecn_ true" in run))
    else:
        assert fid1 == 0, test  # the Periodic model is bound to fid 0
        offset = int(re.search(r"(?:drop_pkt|offset_) (\d+)", run).group(1))
        burst = re.search(r"burstlen_ (\d+)", run)
        losses.append(periodic("r1->r2", offset, int(burst.group(1)) if burst else None,
                               "lossmodel set markecn_ true" in run))
    second_list = re.search(r"drop_pkts2 \{([\d ]+)\}", run)
    if second_list:
        assert net == "net3" and fid1 == 1 and "errmodel2 set markecn_ true" not in run, test
        losses.append(listed("r2->r3", [int(x) for x in second_list.group(1).split()], False))

    r1r2 = {"queue": "red", "queue_limit": 25, "red": red}
    if net == "net2":
        links = net2_links("10ms", **r1r2)
    else:
        links = tables_toml(
            link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "3ms"),
            link_toml("r1", "r2", "1.5Mb", "10ms", **r1r2),
            # setbit_ is set on r1->r2 only
            link_toml("r2", "r3", "100Mb", "0ms", queue="red", queue_limit=100,
                      red={k: v for k, v in red.items() if k != "setbit"}),
            link_toml("s3", "r3", "10Mb", "4ms"), link_toml("s4", "r3", "10Mb", "5ms"))
    peer = {"ecn": True, "interval": "100ms" if delack else None}
    flows = [flow_toml("tcp1", fid1, "s1", "s3", PROTOCOL[tcptype], start="0s",
                       tcp={"window": 30, "ecn": True}, peer=peer)]
    second = re.search(r"second_tcp (\w+) ([\d.]+)", run)
    if second:
        assert second.group(1) == "Tahoe", test
        flows.append(flow_toml("tcp2", 2, "s1", "s3", "tahoe", sink="tcpsink",
                               start=f"{float(second.group(2))}s", tcp={"window": 30, "ecn": True}))
    return scenario_toml("ecn-full", test, test, f"{stop}s", NODES7, knobs_toml("tcp", tcp),
                         links, *flows, *losses, output_toml()), None


def main() -> None:
    scenarios, skipped = {}, {}
    for test, (init, run) in blocks(SUITE.read_text()).items():
        text, why = scenario(test, init, run)
        if text is None:
            skipped[test] = why.replace('"', "'")
        else:
            scenarios[test] = text
    write_suite(HERE, scenarios, skipped)


if __name__ == "__main__":
    main()
