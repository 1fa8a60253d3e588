"""Writes the scenarios of Elsadig and Fouad's gap study (shared/seeds/003_0913345c8440c33a.txt):
Table 1 (one stream over a satellite link) and Table 2 (three streams started 60 s apart).

Run from anywhere: python scenarios/elsadig2014/generate.py

The paper gives the topology (Fig. 6: terminals on two gateways, 5 ms access links of the
bottleneck's bandwidth), the ideal window (91 packets) and, in passing, a 2 Mb/s bandwidth, but
not the bottleneck delay D or the run length. Our choices: 2 Mb/s everywhere and D = 180 ms, so
that the bandwidth-delay product is 91 packets of 1040 bytes; Table 1's runs last 100 s (its
throughputs, read as kb/s, are 72-89% of the link); Table 2's streams run 180 s each, 60 s
apart.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

HEAD = """\
# Written by scenarios/elsadig2014/generate.py: Elsadig and Fouad's satellite gateway network
# (003_0913345c8440c33a.txt, Fig. 6), {what}
name = "{name}"
duration = "{duration}"
nodes = [{nodes}]

[tcp]
window = {window}
{pacing}"""

LINK = """
[[links]]
from = "{a}"
to = "{b}"
bandwidth = "2Mb"
delay = "{delay}"{queue}
"""

FLOW = """
[[flows]]
name = "{name}"
from = "s{i}"
to = "k{i}"
protocol = "{protocol}"
start = "{start}s"{stop}
"""


def scenario(name, what, protocol, window, queue, burst, streams, duration):
    nodes = ", ".join(f'"{n}"' for n in [*(f"s{i}" for i in range(1, streams + 1)), "g1", "g2", *(f"k{i}" for i in range(1, streams + 1))])
    pacing = f'\n[pacing]\nrtt = "initial"\ndepth = {burst}\n' if burst else ""
    text = HEAD.format(what=what, name=name, duration=duration, nodes=nodes, window=window, pacing=pacing)
    for i in range(1, streams + 1):
        text += LINK.format(a=f"s{i}", b="g1", delay="5ms", queue="")
    text += LINK.format(a="g1", b="g2", delay="180ms", queue=f"\nqueue_limit = {queue}")
    for i in range(1, streams + 1):
        text += LINK.format(a="g2", b=f"k{i}", delay="5ms", queue="")
    for i in range(1, streams + 1):
        start = 60 * (i - 1)
        stop = f'\nstop = "{start + 180}s"' if streams > 1 else ""
        text += FLOW.format(name=f"stream{i}", i=i, protocol=protocol, start=start, stop=stop)
    return text


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    files = {}
    # Table 1: classic TCP (ns-2's Agent/TCP), one stream, 100 s
    for window, queue, burst in [(91, 100, 0), (91, 10, 0), (91, 10, 1), (100, 10, 1), (91, 10, 2)]:
        gaps = f"gaps with bursts of {burst}" if burst else "no gaps"
        name = f"single-w{window}-q{queue}-" + (f"gaps{burst}" if burst else "plain")
        files[name] = scenario(name, f"Table 1: one classic TCP stream, maximum window {window}, queue {queue}, {gaps}.",
                               "tahoe", window, queue, burst, 1, "100s")
    # Table 2: three streams 60 s apart, each 180 s; windows "auto assigned": large
    for protocol, label in [("tahoe", "classic TCP"), ("reno", "TCP-Reno"), ("fack", "TCP-FACK")]:
        for burst in (0, 2):
            name = f"shared-{protocol}-" + ("gaps2" if burst else "plain")
            files[name] = scenario(name, f"Table 2: three {label} streams 60 s apart, {'gaps with bursts of 2' if burst else 'no gaps'}.",
                                   protocol, 1000, 10, burst, 3, "300s")
    for name, text in files.items():
        (HERE / f"{name}.toml").write_text(text)
    print(f"wrote {len(files)} scenarios to {HERE}")


if __name__ == "__main__":
    main()
