"""Writes paper.toml of the study modern-vs-vegas: the cells of its tables, each tied to a
scenario of scenarios/modern-vs-vegas/, a flow and a metric. It is our own study, so no cell has a
published value except the reference lines the papers' Vegas gives where it applies.

    python experiments/modern-vs-vegas/cells.py
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTROLLERS = {"cubic": "CUBIC", "bbr": "BBR", "vegas": "Vegas", "enhanced-vegas": "enhanced Vegas"}

# Yew, Ong and Ahmad 2011 (experiments/yew2011-wired/paper.toml), Table V, E/E: two Vegas flows
# on this dumbbell (ns-2's Vegas, whose packets carry no header), their summed throughput in kb/s:
# bytes on the wire at the receivers (the fingerprint of experiments/yew2011-wired shows it).
PAPER_VEGAS_PAIR_KBPS = ("1983.240", "Table V of Yew, Ong and Ahmad 2011, E/E: two ns-2 Vegas flows, bytes on the wire over 100 s")


def cell(table: str, row: str, column: str, scenario: str, metric: str, *, flow: str | None = None,
         aggregate: str = "sum", scale: float = 1.0, handover: int | None = None, printed: tuple | None = None) -> str:
    text = f'\n[[cells]]\ntable = "{table}"\nrow = "{row}"\ncolumn = "{column}"\n'
    if printed:
        text += f'printed = "{printed[0]}"  # {printed[1]}\n'
    text += f'scenario = "{scenario}"\nmetric = "{metric}"\n'
    text += f'flow = "{flow}"\n' if flow else f'aggregate = "{aggregate}"\n'
    if scale != 1.0:
        text += f"scale = {scale}\n"
    if handover is not None:
        text += f"handover = {handover}\n"
    return text


def main() -> None:
    out = ["# Written by experiments/modern-vs-vegas/cells.py: the cells of the study's tables (its own\n"
           "# numbers; `printed` only where a paper's Vegas result is a reference line)."]
    for c, label in CONTROLLERS.items():
        s = f"wired-{c}"
        out.append(cell("wired-alone", label, "goodput (kb/s)", s, "goodput_bps", flow="A", scale=0.001))
        out.append(cell("wired-alone", label, "delay (ms)", s, "delay_mean_s", flow="A", scale=1000))
        out.append(cell("wired-alone", label, "retransmitted (packets)", s, "packets_retransmitted", flow="A"))
    for a, b in combinations_with_replacement(CONTROLLERS, 2):
        s, row = f"wired-{a}-{b}", f"{CONTROLLERS[a]} vs {CONTROLLERS[b]}"
        out.append(cell("wired-pairs", row, "A (kb/s)", s, "goodput_bps", flow="A", scale=0.001))
        out.append(cell("wired-pairs", row, "B (kb/s)", s, "goodput_bps", flow="B", scale=0.001))
        out.append(cell("wired-pairs", row, "total (kb/s)", s, "goodput_bps", scale=0.001))
        ref = PAPER_VEGAS_PAIR_KBPS if a == b == "vegas" else None
        out.append(cell("wired-pairs", row, "total on the wire (kb/s)", s, "throughput_bps", scale=0.001, printed=ref))
        out.append(cell("wired-pairs-fairness", row, "Jain's index", s, "jain_fairness", flow="A"))
        out.append(cell("wired-pairs-delay", row, "A delay (ms)", s, "delay_mean_s", flow="A", scale=1000))
        out.append(cell("wired-pairs-delay", row, "B delay (ms)", s, "delay_mean_s", flow="B", scale=1000))
        out.append(cell("wired-pairs-retransmissions", row, "A (packets)", s, "packets_retransmitted", flow="A"))
        out.append(cell("wired-pairs-retransmissions", row, "B (packets)", s, "packets_retransmitted", flow="B"))
    for c, label in CONTROLLERS.items():
        s = f"handover-{c}"
        out.append(cell("handover", label, "goodput (kb/s)", s, "goodput_bps", flow="ftp", scale=0.001))
        out.append(cell("handover", label, "delay (ms)", s, "delay_mean_s", flow="ftp", scale=1000))
        out.append(cell("handover-retransmissions", label, "retransmitted (packets)", s, "packets_retransmitted", flow="ftp"))
        for i, name in enumerate(("1st", "2nd")):
            out.append(cell("handover-recovery", label, f"{name} handover recovery (s)", s, "recovery_s",
                            aggregate="mean", handover=i))
            out.append(cell("handover-disruption", label, f"{name} handover disruption (s)", s, "disruption_s",
                            aggregate="mean", handover=i))
    (HERE / "paper.toml").write_text("\n".join(out))
    print(f"{sum(t.count('[[cells]]') for t in out)} cells in {HERE / 'paper.toml'}")


if __name__ == "__main__":
    main()
