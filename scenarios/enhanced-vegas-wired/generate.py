"""Writes the enhanced-Vegas ablations on the wired part of Yew, Ong and Ahmad's topology
(shared/seeds/000_3bee746e20d1e1b9.txt, Fig. 3 and Table I), plus FAST and gap pacing beside them.

Run from anywhere: python scenarios/enhanced-vegas-wired/generate.py
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

HEADER = """\
# Written by scenarios/enhanced-vegas-wired/generate.py.
# The wired part of Yew, Ong and Ahmad's topology (000_3bee746e20d1e1b9.txt, Fig. 3, Table I):
# CN - N1 100 Mb/s 2 ms, N1 - MAP 2 Mb/s 50 ms (the bottleneck), MAP - AR1 1 Mb/s 2 ms (the
# paper's stand-in rate for the 802.11b hop; the mobile node and its handovers are not here).
# {what}
# Our choices where the paper is silent: 100 s, one FTP flow from CN to AR1, 50-packet queues,
# RED queues with ECN marking where the congestion measure is on (it needs marks to read).
name = "{name}"
duration = "100s"
profile = "{profile}"
nodes = ["cn", "n1", "map", "ar1"]
{tables}
[[links]]
from = "cn"
to = "n1"
bandwidth = "100Mb"
delay = "2ms"

[[links]]
from = "n1"
to = "map"
bandwidth = "2Mb"
delay = "50ms"{queue}

[[links]]
from = "map"
to = "ar1"
bandwidth = "1Mb"
delay = "2ms"{queue}

[[flows]]
from = "cn"
to = "ar1"
protocol = "{protocol}"
"""

RED = '\nqueue = "red"\n[links.red]\nsetbit = true'
SPACING = '[pacing]\nrtt = "latest"\n'

# name: (what it is, profile, protocol, extra top-level tables, RED queues)
CASES = {
    "vegas": ("Standard TCP Vegas (rfc profile: alpha 2, beta 4, gamma 1).", "rfc", "vegas", "", False),
    "vegas-spacing": ("Vegas with packet spacing: RTT/cwnd between segments.", "rfc", "vegas", SPACING, False),
    "vegas-spacing-progressive": ("Vegas with packet spacing and progressive cwnd (P1).", "rfc", "vegas",
                                  SPACING + '\n[vegas]\nprogressive = "p1"\n', False),
    "enhanced-vegas": ("Enhanced Vegas: spacing, progressive cwnd (P1) and the ECN congestion measure.", "rfc", "vegas",
                       SPACING + '\n[vegas]\nprogressive = "p1"\ncongestion_measure = true\n\n[tcp]\necn = true\n', True),
    "fast": ("FAST TCP (alpha 20 segments, gamma 0.5, an update per RTT) beside Vegas.", "rfc", "fast", "", False),
    "ns2-vegas-spacing": ("ns-2's Agent/TCP/Vegas (ns-2 profile) with packet spacing.", "ns2", "vegas", SPACING, False),
    "ns2-reno-gaps": ("ns-2's Agent/TCP/Reno with leaky-bucket gaps: bursts of 2, RTT measured once (003's static mode).",
                      "ns2", "reno", '[pacing]\nrtt = "initial"\ndepth = 2\n', False),
}


def main() -> None:
    for old in HERE.glob("*.toml"):
        old.unlink()
    for name, (what, profile, protocol, tables, red) in CASES.items():
        text = HEADER.format(what=what, name=name, profile=profile, protocol=protocol,
                             tables="\n" + tables if tables else "", queue=RED if red else "")
        (HERE / f"{name}.toml").write_text(text)
    print(f"wrote {len(CASES)} scenarios to {HERE}")


if __name__ == "__main__":
    main()
