"""A first probe of infrastructure WLANs beyond ns-2's two suites (issue 42, PLAN.md step 5):
random WLANs of 3-7 stations in a 150 m square with one or two access points, active and
passive scans (some starting late), RTS/CTS on or off, 2 or 11 Mb/s, one or two CBR/UDP or
TCP flows, `x` lines on; each run in ns-2 as tcplab.ns2 translates it and in tcplab, and the
first differing line printed. A narrower draw than the WLAN fuzz's infrastructure mode
(`conformance/difffuzz.py --wlan --infra`, which adds hidden terminals, moves and error models);
kept because PLAN.md's step-5 cases are numbered by it.

    PYTHONPATH=python .venv/bin/python conformance/ns2-wifi/infra_probe.py FIRST LAST OUT_DIR
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import tcplab
from tcplab.ns2 import run_ns2
from tcplab.tracediff import diff_traces


def infra_scenario(i: int) -> dict:
    r = random.Random(f"infra-{i}")
    nodes = [f"w{k}" for k in range(r.randint(3, 7))]
    positions: dict[str, list[float]] = {}
    for name in nodes:
        while (xy := [float(r.randint(50, 200)), float(r.randint(50, 200))]) in positions.values():
            pass
        positions[name] = xy
    aps = r.sample(nodes, r.choice([1, 1, 2]))
    scans = []
    for name in (n for n in nodes if n not in aps):
        if r.random() < 0.85:
            scan = {"node": name, "type": r.choice(["active", "passive"])}
            if r.random() < 0.3:
                scan["at"] = f"{r.choice([0.5, 1, 1.5])}s"
            scans.append(scan)
    wlan = {"nodes": nodes, "access_points": aps, "scans": scans, "rts_threshold": r.choice([3000, 3000, 0])}
    if r.random() < 0.5:
        wlan["beacon_interval"] = r.choice(["0.1s", "0.2s", "0.05s"])
    if r.random() < 0.5:
        wlan["data_rate"] = r.choice(["2Mb", "11Mb"])
    duration = r.choice([3, 4, 5])
    flows = []
    for f in range(r.choice([1, 2])):
        a, b = r.sample(nodes, 2)
        flow = {"name": f"f{f}", "from": a, "to": b, "start": f"{r.choice([1.5, 2, 2.5])}s"}
        if r.random() < 0.6:
            flow.update(protocol="udp", rate=r.choice(["64kb", "200kb"]), packet_size=512)
        else:
            flow["protocol"] = r.choice(["reno", "tahoe"])
        flows.append(flow)
    return {"name": f"infra{i}", "duration": f"{duration}s", "nodes": nodes, "positions": positions,
            "wlans": [wlan], "flows": flows, "output": {"trace": ["ns2"], "eot_trace": True}}


def main(first: int, last: int, out: Path) -> None:
    same = 0
    for i in range(first, last):
        s = infra_scenario(i)
        theirs = run_ns2(s, str(out / f"{i}" / "ns2"), cwnd=False)["trace"]
        tcplab.run(s, out=out / f"{i}" / "tcplab")
        d = diff_traces(str(out / f"{i}" / "tcplab" / "trace.tr"), theirs)
        same += d.identical
        print(i, "identical" if d.identical else
              f"{d.equal_prefix} lines agree, then\n  tcplab: {d.line_a}\n  ns-2:   {d.line_b}", flush=True)
    print(f"{same} of {last - first} identical")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
