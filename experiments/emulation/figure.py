"""The worked example of docs/emulation.md: the kernel's CUBIC (a real Linux host running
tcplab.realtcp) and a simulated ns-2 Vegas flow share a 10 Mb/s, 40 ms dumbbell
(scenarios/emulation/cubic-vegas.toml). Runs the emulation (as root, 60 s of wall time) and
draws each flow's cwnd, goodput and smoothed RTT against time.

    .venv/bin/python experiments/emulation/figure.py [OUT_DIR] [--reuse]

OUT_DIR (default results/cubic-vegas) receives what `tcplab emulate --out` writes: the
simulated flow's series-tcp and series-flows, and the real flow's in OUT_DIR/cubic/. With
--reuse it only redraws from them. The figure goes to docs/figures/emulation-cubic-vegas.png,
and its figures to OUT_DIR/figures.json.
"""

import json
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "emulation" / "cubic-vegas.toml"
FIGURE = ROOT / "docs" / "figures" / "emulation-cubic-vegas.png"


def run(out: Path) -> dict:
    cmd = [sys.executable, "-m", "tcplab", "emulate", str(SCENARIO), "--out", str(out)]
    print("$", " ".join(cmd), flush=True)
    done = subprocess.run(cmd)
    if done.returncode not in (0, 3):  # 3: ran, but fell behind the wall clock (reported)
        raise SystemExit(done.returncode)
    return json.loads((out / "emulation.json").read_text())


def load(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both flows' tcp and flows series, the simulated one's and the real one's together."""
    tcp = pd.concat([pd.read_parquet(out / "series-tcp.parquet"), pd.read_parquet(out / "cubic" / "series-tcp.parquet")])
    flows = pd.concat([pd.read_parquet(out / "series-flows.parquet"),
                       pd.read_parquet(out / "cubic" / "series-flows.parquet")])
    return tcp, flows


def draw(tcp: pd.DataFrame, flows: pd.DataFrame, emu: dict) -> dict:
    colours = {"vegas": "tab:blue", "cubic": "tab:red"}
    labels = {"vegas": "Vegas (simulated, ns-2 agent)", "cubic": "CUBIC (real, Linux kernel)"}
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(8, 7.5), layout="constrained")
    figures = {}
    for flow, colour in colours.items():
        t = tcp[tcp["flow"] == flow]
        f = flows[flows["flow"] == flow]
        axes[0].plot(t["time"], t["cwnd"], color=colour, lw=0.8, label=labels[flow])
        # goodput per 100 ms, and its 1 s moving average
        axes[1].plot(f["time"], f["goodput_bps"] / 1e6, color=colour, lw=0.4, alpha=0.35)
        axes[1].plot(f["time"], f["goodput_bps"].rolling(10, min_periods=1).mean() / 1e6, color=colour, lw=1.2,
                     label=labels[flow])
        axes[2].plot(t["time"], t["srtt_s"] * 1e3, color=colour, lw=0.8, label=labels[flow])
        shared = f[(f["time"] > 15) & (f["time"] <= 50)]
        figures[flow] = {"goodput_mbps_15_50s": round(shared["goodput_bps"].mean() / 1e6, 3),
                         "cwnd_median_15_50s": float(t[(t["time"] > 15) & (t["time"] <= 50)]["cwnd"].median()),
                         "srtt_ms_median_15_50s": round(
                             float(t[(t["time"] > 15) & (t["time"] <= 50)]["srtt_s"].median()) * 1e3, 2)}
    vegas_alone = flows[(flows["flow"] == "vegas") & (flows["time"] > 2) & (flows["time"] <= 10)]
    figures["vegas"]["goodput_mbps_2_10s_alone"] = round(vegas_alone["goodput_bps"].mean() / 1e6, 3)
    axes[0].set_ylabel("cwnd (segments)")
    axes[1].set_ylabel("goodput (Mb/s)")
    axes[2].set_ylabel("smoothed RTT (ms)")
    axes[2].set_xlabel("time (s)")
    axes[1].set_ylim(0, 11)
    for ax in axes:
        ax.axvspan(10, 50, color="0.92", zorder=0)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", fontsize=8)
    late = emu["emulation"]["lateness"]
    fig.suptitle("Real CUBIC and simulated Vegas, 10 Mb/s, 40 ms bottleneck, 100-packet DropTail "
                 f"(tcplab emulate; lateness p99 {late['p99_ms']:.2f} ms)", fontsize=9)
    FIGURE.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURE, dpi=110)
    figures["lateness"] = late
    figures["faithful"] = emu["emulation"]["faithful"]
    return figures


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--reuse"]
    out = Path(args[0]) if args else ROOT / "results" / "cubic-vegas"
    emu = json.loads((out / "emulation.json").read_text()) if "--reuse" in sys.argv else run(out)
    figures = draw(*load(out), emu)
    (out / "figures.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    print(f"figure: {FIGURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
