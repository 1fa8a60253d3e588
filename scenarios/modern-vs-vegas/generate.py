"""Writes the scenarios of the study modern-vs-vegas (experiments/modern-vs-vegas/).

    python scenarios/modern-vs-vegas/generate.py

Two topologies, every flow in the rfc profile:
- the wired dumbbell of Yew, Ong and Ahmad (scenarios/yew2011-wired/, environment E/E): each
  controller alone (`wired-<c>.toml`) and each pair sharing the 2 Mb/s bottleneck, a controller
  against itself included (`wired-<a>-<b>.toml`: flow A runs <a>, flow B <b>, 0.5 s later);
- the 802.11b Mobile IPv6/HMIPv6 handover topology (scenarios/yew2011-handover/, with the RED
  queues marking ECN of scenarios/yew2013-enhanced/) with each controller as the mobile node's
  one flow (`handover-<c>.toml`).
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = HERE.parent
CONTROLLERS = ["cubic", "bbr", "vegas", "enhanced-vegas"]

# The enhanced Vegas as the yew2013-enhanced-vegas study runs it: packet spacing (RTT/cwnd
# between segments, the latest RTT), progressive cwnd P1 and the ECN congestion measure.
ENHANCED = ('protocol = "vegas"\n'
            'pacing = { rtt = "latest" }\n'
            'vegas = { progressive = "p1", congestion_measure = true }\n')


def flow(name: str, controller: str, frm: str, to: str, start: str | None = None, packet_size: str | None = None) -> str:
    text = f'\n[[flows]]\nname = "{name}"\nfrom = "{frm}"\nto = "{to}"\n'
    text += ENHANCED if controller == "enhanced-vegas" else f'protocol = "{controller}"\n'
    if packet_size:
        text += f'packet_size = "{packet_size}"\n'
    if start:
        text += f'start = "{start}"\n'
    return text


def wired_base() -> str:
    """The E/E dumbbell of scenarios/yew2011-wired/ee-*.toml up to its first flow."""
    text = (SCENARIOS / "yew2011-wired" / "ee-vegas.toml").read_text()
    body = text[text.index("nodes ="):text.index("[[flows]]")]
    return body.replace("[tcp]\nwindow = 17\n\n", "")  # no window limit: the calibrated reading's


def handover_base() -> str:
    """The handover topology of scenarios/yew2013-enhanced/thesis-1.toml up to its flow, its
    enhancements' tables removed (each flow sets its own)."""
    text = (SCENARIOS / "yew2013-enhanced" / "thesis-1.toml").read_text()
    body = text[text.index("profile ="):text.index("[[flows]]")]
    start, end = body.index("[pacing]"), body.index("[positions]")
    return body[:start] + body[end:]


HEADER_WIRED = """# Written by scenarios/modern-vs-vegas/generate.py: {what}
# on the wired dumbbell of Yew, Ong and Ahmad (002_561d73994d48847d.txt, environment E/E:
# 10 Mb/s 10 ms access links, a 2 Mb/s 50 ms bottleneck with a 50-packet DropTail queue), every
# flow in the rfc profile.
# Our choices: 100 s, 1500-byte payloads (the paper's), no receive-window limit, flow B 0.5 s
# after flow A; the enhanced Vegas as yew2013-enhanced-vegas runs it (spacing, P1, the congestion
# measure) but on this DropTail queue, which marks nothing: its measure reads its own backlog.
"""

HEADER_HANDOVER = """# Written by scenarios/modern-vs-vegas/generate.py: {what}
# as the mobile node's flow on the 802.11b HMIPv6 topology of Yew, Ong and Ahmad (000_3bee746e20d1e1b9.txt, scenarios/yew2011-handover/)
# with the RED queues marking ECN of scenarios/yew2013-enhanced/ and every flow ECN-capable; two
# handovers (home to AR1 at about 5 s, AR1 to AR2 at about 80 s).
# Our choices: those of yew2011-handover (positions, IPv6, 100 ms scan and association, DAD 1 s),
# 1448-byte payloads for every controller (Linux's MSS; Vegas's default would be ns-2's 1000 B),
# and each controller's own other defaults (Linux's for CUBIC and BBR: IW 10, minimum RTO 200 ms).
"""


def main() -> None:
    written = []
    base = wired_base()
    for c in CONTROLLERS:
        name = f"wired-{c}"
        text = HEADER_WIRED.format(what=f"{c} alone") + f'name = "{name}"\nduration = "100s"\nprofile = "rfc"\n' + base
        text += flow("A", c, "s1", "k1", packet_size="1500B")
        written.append((name, text))
    for a, b in combinations_with_replacement(CONTROLLERS, 2):
        name = f"wired-{a}-{b}"
        text = HEADER_WIRED.format(what=f"{a} (A) against {b} (B)") + f'name = "{name}"\nduration = "100s"\nprofile = "rfc"\n' + base
        text += flow("A", a, "s1", "k1", packet_size="1500B") + flow("B", b, "s2", "k2", start="0.5s", packet_size="1500B")
        written.append((name, text))
    base = handover_base()
    for c in CONTROLLERS:
        name = f"handover-{c}"
        text = HEADER_HANDOVER.format(what=c) + f'name = "{name}"\nduration = "100s"\n' + base
        text += flow("ftp", c, "cn", "mn", packet_size="1448B")
        written.append((name, text))
    for old in HERE.glob("*.toml"):
        old.unlink()
    for name, text in written:
        (HERE / f"{name}.toml").write_text(text)
    print(f"{len(written)} scenarios in {HERE}")


if __name__ == "__main__":
    main()
