"""The TCP-Linux controller sweep's table and figure: per module, each flow's goodput over its
time on the link (the first from 0 s, the second from 20 s), their mean one-way delay, and Jain's
fairness index between the two.

    .venv/bin/python experiments/linux-controllers/figure.py [OUT_DIR]

Runs (or reuses, from OUT_DIR's store) sweep.toml, then writes OUT_DIR/controllers.md
(the table) and OUT_DIR/controllers.png (the figure). OUT_DIR defaults to
results/linux-controllers.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import tcplab.sweep  # noqa: E402

HERE = Path(__file__).resolve().parent
FIELD = "flows[*].tcp.ca"


def table(result) -> list[dict]:
    """One row per module: each flow's goodput (Mb/s), their mean delay (ms), Jain's index."""
    flows = result.flows
    rows = []
    for ca in flows[FIELD].drop_duplicates():
        f = flows[flows[FIELD] == ca].set_index("flow")
        rows.append({
            "module": ca,
            "first_mbps": f.loc["first", "goodput_bps"] / 1e6,
            "second_mbps": f.loc["second", "goodput_bps"] / 1e6,
            "delay_ms": 1e3 * (f["delay_mean_s"] * f["packets_delivered"]).sum() / f["packets_delivered"].sum(),
            "jain": f["jain_fairness"].iloc[0],
        })
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| module | first flow (Mb/s) | second flow (Mb/s) | mean one-way delay (ms) | Jain's index |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['module']} | {r['first_mbps']:.2f} | {r['second_mbps']:.2f} | {r['delay_ms']:.1f} "
              f"| {r['jain']:.3f} |" for r in rows]
    return "\n".join(lines) + "\n"


def figure(rows: list[dict], path: Path) -> None:
    names = [r["module"] for r in rows]
    x = range(len(rows))
    fig, axes = plt.subplots(3, 1, figsize=(10, 9), sharex=True)
    axes[0].bar([i - 0.2 for i in x], [r["first_mbps"] for r in rows], 0.4, label="first flow (from 0 s)")
    axes[0].bar([i + 0.2 for i in x], [r["second_mbps"] for r in rows], 0.4, label="second flow (from 20 s)")
    axes[0].set_ylabel("goodput (Mb/s)")
    axes[0].legend()
    axes[1].bar(x, [r["delay_ms"] for r in rows], color="tab:gray")
    axes[1].set_ylabel("mean one-way delay (ms)")
    axes[2].bar(x, [r["jain"] for r in rows], color="tab:green")
    axes[2].set_ylabel("Jain's index")
    axes[2].set_ylim(0.5, 1.0)
    axes[2].set_xticks(list(x), names, rotation=45)
    fig.suptitle("ns-2.35 TCP-Linux modules, two flows on a 20 Mb/s, 40 ms dumbbell (60 s)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "results/linux-controllers")
    result = tcplab.sweep.run(HERE / "sweep.toml", out=out)
    rows = table(result)
    (out / "controllers.md").write_text(markdown(rows))
    figure(rows, out / "controllers.png")
    print(markdown(rows), end="")
    print(f"wrote {out / 'controllers.md'} and {out / 'controllers.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
