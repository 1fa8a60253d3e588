"""Writes the `vegas` conformance suite: Vegas dumbbells from the papers, run by tcplab and by
ns-2.35 (through tcplab's own Tcl translation, tcplab.ns2) and compared trace for trace.

Run from anywhere: python conformance/ns2/vegas/generate.py

- lossy-*: the wired dumbbell of Yew, Ong and Ahmad (shared/seeds/002_561d73994d48847d.txt,
  Table II: 2 Mb/s 50 ms bottleneck, window 17, 1500-byte packets, Ethernet access) with an
  8-packet bottleneck queue, Vegas against Vegas, Tahoe, Reno, NewReno and Sack1. (The study's
  own scenarios, scenarios/yew2011-wired, are the `yew2011` suite.)
- sharma2013-*: the three-flow dumbbell of Sharma and Garg (004_0fd57f42190efbac.txt):
  100 Mb/s links, 1 ms access, bottleneck delay 8, 18, 48 or 98 ms (10 to 100 ms end to end),
  Vegas window 200, 500 or 1000 packets. The paper's flows run over 0-100 s, 20-80 s and
  40-60 s; here time is scaled by 1/20 (0-5 s, 1-4 s, 2-3 s), since a trace of 100 s at
  100 Mb/s runs to gigabytes on each side while 5 s exercises the same mechanisms.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.dont_write_bytecode = True  # no __pycache__ folder: tcplab takes each folder here for a suite
from common import flow_toml, knobs_toml, link_toml, tables_toml, value  # noqa: E402

HEADER = "# Written by conformance/ns2/vegas/generate.py; compared with `tcplab conformance ns2 --suite vegas`."


def scenario(name: str, duration: str, nodes: list[str], *tables: str) -> str:
    head = "\n".join([HEADER, f"name = {value(name)}", f"duration = {value(duration)}", f"nodes = {value(nodes)}"])
    return tables_toml(head, *tables) + "\n"


def lossy(other: str) -> str:
    """The 002 dumbbell, Ethernet access, an 8-packet bottleneck queue: Vegas against `other`."""
    return scenario(
        f"lossy-ee-vegas-{other}", "100s", ["s1", "s2", "r1", "r2", "k1", "k2"],
        knobs_toml("tcp", {"window": 17}),
        link_toml("s1", "r1", "10Mb", "10ms"), link_toml("s2", "r1", "10Mb", "10ms"),
        link_toml("r1", "r2", "2Mb", "50ms", queue_limit=8),
        link_toml("r2", "k1", "10Mb", "10ms"), link_toml("r2", "k2", "10Mb", "10ms"),
        flow_toml("A", 0, "s1", "k1", "vegas", packet_size="1500B"),
        flow_toml("B", 1, "s2", "k2", other, packet_size="1500B", start="0.5s"))


def sharma(bottleneck_delay: int, window: int) -> str:
    """The 004 three-flow dumbbell, time scaled by 1/20."""
    times = {1: {"start": "0s"}, 2: {"start": "1s", "stop": "4s"}, 3: {"start": "2s", "stop": "3s"}}
    return scenario(
        f"sharma2013-{bottleneck_delay + 2}ms-w{window}", "5s", ["s1", "s2", "s3", "s0", "d0", "d1", "d2", "d3"],
        knobs_toml("tcp", {"window": window}),
        *[link_toml(f"s{i}", "s0", "100Mb", "1ms") for i in (1, 2, 3)],
        link_toml("s0", "d0", "100Mb", f"{bottleneck_delay}ms"),
        *[link_toml("d0", f"d{i}", "100Mb", "1ms") for i in (1, 2, 3)],
        *[flow_toml(f"flow{i}", i - 1, f"s{i}", f"d{i}", "vegas", **times[i]) for i in (1, 2, 3)])


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    files = {f"lossy-ee-vegas-{o}": lossy(o) for o in ("vegas", "tahoe", "reno", "newreno", "sack1")}
    for delay in (8, 18, 48, 98):
        for window in (200, 500, 1000):
            files[f"sharma2013-{delay + 2}ms-w{window}"] = sharma(delay, window)
    for name, text in files.items():
        (HERE / f"{name}.toml").write_text(text)
    (HERE / "suite.toml").write_text(
        "# tcplab's own suite: ns-2 runs each scenario as tcplab.ns2 translates it to Tcl.\n"
        'reference = "translate"\n')


if __name__ == "__main__":
    main()
