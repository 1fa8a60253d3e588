"""Writes the tcplab scenarios of ns-2.35's test-suite-ecn.tcl, one file per test.

Run from anywhere: python conformance/ns2/ecn/generate.py

The suite is read from Debian's ns2-examples (TCPLAB_NS2_EXAMPLES overrides the folder) and cut
into its `Class Test/<name>` blocks; each block's init (class-level `Queue/RED set` and
`Agent/TCP set`, `set net_`) and run body (`ecnsetup`, `drop_pkt`, `drop_pkts`, ...) are read with
a few regular expressions and turned into a scenario, or into a reason in skipped.toml.

What the suite does (test-suite-ecn.tcl):
* Globals: `Queue/RED set bytes_ false`, `queue_in_bytes_ false` (packet mode) and
  `Agent/TCPSink set SYN_immediate_ack_ false` (`[tcpsink] syn_immediate_ack = false`, read only
  by the DelAck sinks of the *_delack tests); everything else is ns-2.35's default, which is
  tcplab's default too (RED thresh_/maxthresh_/q_weight_ automatic, gentle_, wait_, use_mark_p_
  with mark_p_ 0.1, linterm_ 10; TCP syn_, windowInit_ 2, tcpTick_ 10 ms, minrto_ 200 ms ...).
* Every test writes all.tr with `trace-all` (`$self next pktTraceFile`), no TCP header fields.
* Topologies: makenodes always creates s1 s2 r1 r2 s3 s4 r3 (ids 0..6, r3 unused in net2);
  net2(-lossy): s1-r1 10Mb 2ms, s2-r1 10Mb 3ms, r1-r2 1.5Mb 20ms RED (limit 25 both ways),
  s3-r2 10Mb 4ms, s4-r2 10Mb 5ms; net3-lossy replaces the last two by r2-r3 100Mb 0ms RED
  (limit 100), s3-r3 and s4-r3. `ecnsetup` then changes the r1-r2 delay to 10 ms (RED computed
  its automatic q_weight_ from 20 ms when the link was made, but both delays give ns-2's minimum
  RTT of 100 ms, so the weight is the same) and sets setbit_ on r1->r2.
* `-lossy`: an ErrorModule Fid at the head of r1->r2 whose ErrorModel/Periodic (unit pkt,
  default_drop_ 0) is bound to fid 0. `drop_pkt N` sets offset_ N, period_ 10000: the N-th fid-0
  packet (1-based, so index N-1 from 0) is dropped, and with burstlen_ B the B-1 packets after it
  too; the next period is never reached. `drop_pkts L` adds an ErrorModel/List bound to fid 1
  (tcp1 has fid 1 in those tests). Both are [[losses]] on r1->r2 counting tcp1's packets only.
  `$lossmodel set markecn_ true` / `$errmodel1 set markecn_ true` make that model CE-mark the
  packets it picks and forward them (`action = "mark"`). drop_pkts2 L (net3-lossy) adds an
  ErrorModel/List bound to fid 1 to the ErrorModule of r2->r3 (markecn_ false: drops).
* ecnsetup: one FTP over TCP (Tahoe, Reno, Newreno or Sack1) s1 -> s3, window_ 30, ecn_ 1, from
  0 s, run until `stoptime`, with TCPSink/DelAck (TCPSink/Sack1/DelAck) when its 4th argument is
  1; `second_tcp Tahoe T` adds a Tahoe s1 -> s3 with fid 2 from T.
* Class-level knobs the tests set: bugFix_, slow_start_restart_, timerfix_ (all [tcp] knobs).
"""

import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import (NODES4, flow_toml, four_node_links, knobs_toml, link_toml,  # noqa: E402
                    loss_toml, net2_links, output_toml, scenario_toml, tables_toml, write_suite)

SUITE = Path(os.environ.get("TCPLAB_NS2_EXAMPLES", "/usr/share/doc/ns2/examples/tcl")) / "test" / "test-suite-ecn.tcl"

PROTOCOL = {"Tahoe": "tahoe", "Reno": "reno", "Newreno": "newreno", "Sack1": "sack1"}
SINK = {"Tahoe": "tcpsink", "Reno": "tcpsink", "Newreno": "tcpsink", "Sack1": "sack1"}
DELACK_SINK = {"Tahoe": "delack", "Reno": "delack", "Newreno": "delack", "Sack1": "sack1_delack"}
# Class-level Agent/TCP settings the tests make, as scenario [tcp] knobs (None: not expressible).
TCP_KNOBS = {"bugFix_": ("bug_fix", {"false": False}),
             "slow_start_restart_": ("slow_start_restart", {"false": False}),
             "timerfix_": ("timerfix", {"false": False, "true": True})}

# makenodes: s1 s2 r1 r2 s3 s4 r3 for both net2 and net3
NODES7 = ["s1", "s2", "r1", "r2", "s3", "s4", "r3"]


def tcl_value(v):
    """A Tcl value (true, false, 100, 0.5) as a Python one."""
    if v in ("true", "false"):
        return v == "true"
    return float(v) if "." in v else int(v)


def flow(name, fid, src, dst, tcptype, sink, start, **tcp):
    return flow_toml(name, fid, src, dst, PROTOCOL[tcptype], sink=sink, start=f"{start}s", tcp=tcp)


def blocks(text):
    """{test: (init body, run body)} with comment lines removed and run aliases resolved."""
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    parts = re.split(r"^Class Test/(\S+) -superclass TestSuite\s*$", text, flags=re.M)
    raw = {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}
    out = {}
    for name, body in raw.items():
        init = re.search(rf"Test/{re.escape(name)} instproc init \{{\}} \{{(.*?)\n\}}", body, re.S).group(1)
        alias = re.search(r"instproc run \{\} \[Test/(\S+) info instbody run", init)
        src = raw[alias.group(1)] if alias else body
        owner = alias.group(1) if alias else name
        run = re.search(rf"Test/{re.escape(owner)} instproc run \{{\}} \{{(.*?)\n\}}", src, re.S).group(1)
        out[name] = (init, run)
    return out


def red_knobs(init, setbit):
    """[links.red] for the suite's RED queues: packet mode plus the test's class-level settings."""
    red = {"bytes": False, "queue_in_bytes": False}
    for k, v in re.findall(r"Queue/RED set (\w+)_ (\S+)", init):
        red[k] = tcl_value(v)
    if setbit:
        # ecnsetup sets setbit_ on r1->r2; the reverse queue only carries ACKs, which are not
        # ECN-capable, so setting it on both directions changes nothing.
        red["setbit"] = True
    return red


def ecnsetup_scenario(test, init, run):
    """A scenario for a test built on ecnsetup, or a reason why there is none."""
    m = re.search(r"ecnsetup (\w+) ([\d.]+)(?: (\d+))?(?: (\d+))?", run)
    tcptype, stop, fid1, delack = m.group(1), float(m.group(2)), int(m.group(3) or 0), int(m.group(4) or 0)
    net = re.search(r"set net_\s+(\S+)", init).group(1).replace("-lossy", "")
    mark = bool(re.search(r"(lossmodel|errmodel1) set markecn_ true", run))
    assert not re.search(r"errmodel2 set markecn_ true", run), test
    tcp = {}
    for k, v in re.findall(r"Agent/TCP set (\w+) (\S+)", init):
        if TCP_KNOBS.get(k) is None:
            return None, f"Agent/TCP set {k} {v} has no scenario knob"
        tcp[TCP_KNOBS[k][0]] = TCP_KNOBS[k][1][v]

    # Losses on r1->r2, counted over tcp1's packets from 0.
    if "drop_pkts " in run:
        drops = [int(x) for x in re.search(r"drop_pkts \{([\d ]+)\}", run).group(1).split()]
        assert fid1 == 1, test  # the List model is bound to fid 1
    else:
        offset = int(re.search(r"(?:drop_pkt|offset_) (\d+)", run).group(1))
        burst = re.search(r"burstlen_ (\d+)", run)
        burst = int(burst.group(1)) if burst else 1
        drops = list(range(offset - 1, offset - 1 + max(burst, 1)))
        assert fid1 == 0, test  # the Periodic model is bound to fid 0

    r1r2 = {"queue": "red", "queue_limit": 25, "red": red_knobs(init, setbit=True)}
    if net == "net2":
        links = net2_links("10ms", **r1r2)
    else:
        links = tables_toml(
            link_toml("s1", "r1", "10Mb", "2ms"), link_toml("s2", "r1", "10Mb", "3ms"),
            link_toml("r1", "r2", "1.5Mb", "10ms", **r1r2),
            link_toml("r2", "r3", "100Mb", "0ms", **dict(r1r2, queue_limit=100)),
            link_toml("s3", "r3", "10Mb", "4ms"), link_toml("s4", "r3", "10Mb", "5ms"))
    sink = (DELACK_SINK if delack else SINK)[tcptype]
    flows = [flow("tcp1", fid1, "s1", "s3", tcptype, sink, 0.0, window=30, ecn=True)]
    second = re.search(r"second_tcp (\w+) ([\d.]+)", run)
    if second:
        flows.append(flow("tcp2", 2, "s1", "s3", second.group(1), SINK[second.group(1)],
                          float(second.group(2)), window=30, ecn=True))
    losses = [loss_toml("r1->r2", ["tcp1"], drops, action="mark" if mark else None)]
    second_list = re.search(r"drop_pkts2 \{([\d ]+)\}", run)
    if second_list:
        assert net == "net3" and fid1 == 1, test
        drops2 = [int(x) for x in second_list.group(1).split()]
        losses.append(loss_toml("r2->r3", ["tcp1"], drops2))
    return render(test, stop, NODES7, tcp, links, flows, losses), None


def render(test, stop, nodes, tcp, links, flows, losses=()):
    return scenario_toml("ecn", test, test, f"{stop}s", nodes, knobs_toml("tcp", tcp),
                         knobs_toml("tcpsink", {"syn_immediate_ack": False}), links, *flows,
                         *losses, output_toml())


def ecn_test(init):
    """Test/ecn: two Reno ECN flows over net2 (r1-r2 keeps 20 ms), window_ 15, 10 s."""
    links = net2_links(queue="red", queue_limit=25, red=red_knobs(init, setbit=True))
    flows = [flow("tcp1", 0, "s1", "s3", "Reno", "tcpsink", 0.0, window=15, ecn=True),
             flow("tcp2", 1, "s2", "s3", "Reno", "tcpsink", 3.0, window=15, ecn=True)]
    return render("ecn", 10.0, NODES7, {}, links, flows)


def ecn1_test():
    """Test/ecn1: net6 (setbit_ true in the topology), Tahoe with ECN and Tahoe without, 10 s."""
    red = {"bytes": False, "queue_in_bytes": False, "setbit": True}
    links = four_node_links(("8Mb", "5ms"), ("800Kb", "20ms"), queue="red", queue_limit=25, red=red)
    flows = [flow("tcp1", 0, "s1", "k1", "Tahoe", "tcpsink", 0.0, window=30, ecn=True),
             flow("tcp2", 1, "s2", "k1", "Tahoe", "tcpsink", 3.0, window=20, ecn=False)]
    return render("ecn1", 10.0, NODES4, {}, links, flows)


def main() -> None:
    scenarios, skipped = {}, {}
    for test, (init, run) in blocks(SUITE.read_text()).items():
        if test == "ecn":
            text, why = ecn_test(init), None
        elif test == "ecn1":
            text, why = ecn1_test(), None
        else:
            text, why = ecnsetup_scenario(test, init, run)
        if text is None:
            skipped[test] = why.replace('"', "'")
        else:
            scenarios[test] = text
    write_suite(HERE, scenarios, skipped)


if __name__ == "__main__":
    main()
