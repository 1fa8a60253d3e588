"""Writes the `vegas` conformance suite: Vegas dumbbells from the papers, run by tcplab and by
ns-2.35 (through tcplab's own Tcl translation, tcplab.ns2) and compared trace for trace.

Run from anywhere: python conformance/ns2/vegas/generate.py

- yew2011-*: the wired dumbbell of Yew, Ong and Ahmad (shared/seeds/002_561d73994d48847d.txt,
  Table II): 2 Mb/s 50 ms bottleneck, queue 50, window 17, 1500-byte packets, senders and
  receivers on Ethernet (10 Mb/s, 10 ms) or Fast Ethernet (100 Mb/s, 1 ms); Vegas against
  Vegas, Tahoe, Reno, NewReno and Sack1 in each of the four access environments; 100 s.
- lossy-*: the same (Ethernet on both sides) with an 8-packet bottleneck queue.
- sharma2013-*: the three-flow dumbbell of Sharma and Garg (004_0fd57f42190efbac.txt):
  100 Mb/s links, 1 ms access, bottleneck delay 8, 18, 48 or 98 ms (10 to 100 ms end to end),
  Vegas window 200, 500 or 1000 packets. The paper's flows run over 0-100 s, 20-80 s and
  40-60 s; here time is scaled by 1/20 (0-5 s, 1-4 s, 2-3 s), since a trace of 100 s at
  100 Mb/s runs to gigabytes on each side while 5 s exercises the same mechanisms.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ACCESS = {"e": ("10Mb", "10ms"), "f": ("100Mb", "1ms")}


def link(a: str, b: str, bw: str, delay: str, limit: int | None = None) -> str:
    extra = f"queue_limit = {limit}\n" if limit else ""
    return f'[[links]]\nfrom = "{a}"\nto = "{b}"\nbandwidth = "{bw}"\ndelay = "{delay}"\n{extra}'


def flow(name: str, src: str, dst: str, protocol: str, extra: str = "") -> str:
    return f'[[flows]]\nname = "{name}"\nfrom = "{src}"\nto = "{dst}"\nprotocol = "{protocol}"\n{extra}'


def yew(env: str, other: str, queue: int) -> str:
    (sbw, sdl), (rbw, rdl) = ACCESS[env[0]], ACCESS[env[1]]
    parts = ['duration = "100s"', 'nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]', "", "[tcp]", "window = 17", ""]
    parts += [link("s1", "r1", sbw, sdl), link("s2", "r1", sbw, sdl), link("r1", "r2", "2Mb", "50ms", queue),
              link("r2", "k1", rbw, rdl), link("r2", "k2", rbw, rdl)]
    parts += [flow("A", "s1", "k1", "vegas", 'packet_size = "1500B"\n'),
              flow("B", "s2", "k2", other, 'packet_size = "1500B"\nstart = "0.5s"\n')]
    return "\n".join(parts)


def sharma(bottleneck_delay: int, window: int) -> str:
    parts = ['duration = "5s"', 'nodes = ["s1", "s2", "s3", "s0", "d0", "d1", "d2", "d3"]', "",
             "[tcp]", f"window = {window}", ""]
    parts += [link(f"s{i}", "s0", "100Mb", "1ms") for i in (1, 2, 3)]
    parts += [link("s0", "d0", "100Mb", f"{bottleneck_delay}ms")]
    parts += [link("d0", f"d{i}", "100Mb", "1ms") for i in (1, 2, 3)]
    times = {1: 'start = "0s"\n', 2: 'start = "1s"\nstop = "4s"\n', 3: 'start = "2s"\nstop = "3s"\n'}
    parts += [flow(f"flow{i}", f"s{i}", f"d{i}", "vegas", times[i]) for i in (1, 2, 3)]
    return "\n".join(parts)


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    scenarios = {}
    for env in ("ee", "ef", "ff", "fe"):
        for other in ("vegas", "tahoe", "reno", "newreno", "sack1"):
            scenarios[f"yew2011-{env}-vegas-{other}"] = yew(env, other, 50)
    for other in ("vegas", "tahoe", "reno", "newreno", "sack1"):
        scenarios[f"lossy-ee-vegas-{other}"] = yew("ee", other, 8)
    for delay in (8, 18, 48, 98):
        for window in (200, 500, 1000):
            scenarios[f"sharma2013-{delay + 2}ms-w{window}"] = sharma(delay, window)
    header = "# Written by conformance/ns2/vegas/generate.py; compared with `tcplab conformance ns2 --suite vegas`.\n"
    for name, body in scenarios.items():
        (HERE / f"{name}.toml").write_text(f'{header}name = "{name}"\n{body}')
    (HERE / "suite.toml").write_text(
        "# tcplab's own suite: ns-2 runs each scenario as tcplab.ns2 translates it to Tcl.\n"
        'reference = "translate"\n')


if __name__ == "__main__":
    main()
