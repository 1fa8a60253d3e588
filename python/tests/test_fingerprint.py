"""Fingerprints: what a paper's published numbers reveal before any run, on synthetic tables of
known granularity and on the yew2011-wired study."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from support import REPO

from tcplab import fingerprint as fpm
from tcplab import paper

# A dumbbell whose grid varies the bottleneck's delay: one table-column per value. Flow A is
# Reno (1040 B packets on the wire), flow B ns-2's Vegas (1000 B: no header) starting 1 s late,
# so the duration less its start is 49 s.
SCENARIO = """
name = "net"
duration = "50s"
nodes = ["s1", "s2", "r1", "r2", "k1", "k2"]

[[links]]
from = "s1"
to = "r1"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
from = "s2"
to = "r1"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
from = "r1"
to = "r2"
bandwidth = "1Mb"
delay = "40ms"
queue_limit = 20

[[links]]
from = "r2"
to = "k1"
bandwidth = "10Mb"
delay = "10ms"

[[links]]
from = "r2"
to = "k2"
bandwidth = "10Mb"
delay = "10ms"

[[flows]]
name = "A"
from = "s1"
to = "k1"
protocol = "reno"
packet_size = "1000B"

[[flows]]
name = "B"
from = "s2"
to = "k2"
protocol = "vegas"
packet_size = "1000B"
start = "1s"
"""
DELAYS = ["40ms", "41ms", "42ms", "43ms", "44ms", "45ms"]


def _toml_value(v) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, str):
        return json.dumps(v)
    return repr(v)


def write_study(tmp_path: Path, cells: list[dict]) -> Path:
    """A study folder: the dumbbell, a sweep over DELAYS, and these cells (each with its
    column's grid value unless it names its own params)."""
    (tmp_path / "net.toml").write_text(SCENARIO)
    grid = ", ".join(json.dumps(d) for d in DELAYS)
    (tmp_path / "study.toml").write_text(f'title = "synthetic"\n\n[sweep]\nscenarios = ["net.toml"]\nseeds = 1\n'
                                         f'grid = {{ "links[2].delay" = [{grid}] }}\n')
    lines = []
    for c in cells:
        c = {"scenario": "net", "metric": "goodput_bps", "scale": 0.001, **c}
        c.setdefault("params", {"links[2].delay": c["column"]})
        lines += ["[[cells]]"] + [f"{k} = {_toml_value(v)}" for k, v in c.items() if v is not None] + [""]
    (tmp_path / "paper.toml").write_text("\n".join(lines))
    return tmp_path


def kbps(packets: int, size: int, duration: float, syn_bytes: int = 0) -> float:
    """A throughput in kb/s as a paper prints it with 3 decimals."""
    return round((packets * size + syn_bytes) * 8 / duration / 1000, 3)


def tput_cells(row: str, flow: str | None, values: list[float], **extra) -> list[dict]:
    return [{"table": "T", "row": row, "column": col, "paper": v, "flow": flow, **extra} for col, v in zip(DELAYS, values)]


def groups(fp: fpm.Fingerprint, how: str, name: str) -> list[dict]:
    return [g for g in fp.granularity if g.get(how) == name]


def finding(findings: list[fpm.Finding], **data) -> fpm.Finding:
    hits = [f for f in findings if all(f.data.get(k) == v for k, v in data.items())]
    assert len(hits) == 1, (data, [f.text for f in findings])
    return hits[0]


# --------------------------------------------------------------------------------------
# 1. Granularity
# --------------------------------------------------------------------------------------

def test_granularity_recovers_size_syn_and_duration(tmp_path):
    rng = random.Random(1)
    a = [kbps(rng.randrange(3000, 6000), 1040, 50, syn_bytes=40) for _ in DELAYS]  # on the wire, a SYN, the run
    b = [kbps(rng.randrange(3000, 6000), 1000, 49) for _ in DELAYS]  # payload only, from B's start
    both = [kbps(rng.randrange(6000, 12000), 1040, 50, syn_bytes=80) for _ in DELAYS]  # a sum of two flows
    study = write_study(tmp_path, tput_cells("A throughput (kb/s)", "A", a) + tput_cells("B throughput (kb/s)", "B", b)
                        + tput_cells("total throughput (kb/s)", None, both, aggregate="sum"))
    fp = fpm.fingerprint(study)
    (ga,) = groups(fp, "row", "A throughput (kb/s)")
    assert (ga["size_bytes"], ga["syn"], ga["syns"], ga["duration_s"]) == (1040, True, 1, 50)
    assert (ga["fits"], ga["cells"]) == (6, 6) and ga["chance"] < 0.1
    assert ga["size_rule"] == "packet_size + 40 B of headers"
    (gb,) = groups(fp, "row", "B throughput (kb/s)")
    assert (gb["size_bytes"], gb["syn"], gb["duration_s"], gb["fits"]) == (1000, False, 49, 6)
    (gt,) = groups(fp, "row", "total throughput (kb/s)")
    assert (gt["size_bytes"], gt["syn"], gt["syns"], gt["duration_s"], gt["fits"]) == (1040, True, 2, 50, 6)
    text = finding(fp.granularity_findings, row="A throughput (kb/s)").text
    assert "6/6 cells are whole packets of 1040 B (packet_size + 40 B of headers) + 1 SYN of 40 B over 50 s" in text
    assert not fp.typos


def test_a_column_of_two_granularities_is_told_apart(tmp_path):
    # three rows of each flow: every column mixes 1040 B + a SYN over 50 s with 1000 B over 49 s,
    # whose common divisor, 40 B, fits them all and says nothing
    rng = random.Random(5)
    cells = []
    for r in range(3):
        cells += tput_cells(f"A{r} (kb/s)", "A", [kbps(rng.randrange(3000, 6000), 1040, 50, 40) for _ in DELAYS])
        cells += tput_cells(f"B{r} (kb/s)", "B", [kbps(rng.randrange(3000, 6000), 1000, 49) for _ in DELAYS])
    fp = fpm.fingerprint(write_study(tmp_path, cells))
    columns = [g for g in fp.granularity if "column" in g]
    assert len(columns) == len(DELAYS)
    for g in columns:
        sizes = {(g["size_bytes"], g["syn"], g["duration_s"]), (g["second"]["size_bytes"], g["second"]["syn"], g["second"]["duration_s"])}
        assert sizes == {(1040, True, 50), (1000, False, 49)}
        assert g["fits"] == 3 and (g["second"]["fits"], g["second"]["of"]) == (3, 3)
    assert not fp.typos


def test_random_values_do_not_fit(tmp_path):
    rng = random.Random(2)
    rows = [f"noise {i} (kb/s)" for i in range(5)]
    cells = [c for r in rows for c in tput_cells(r, "A", [round(rng.uniform(300, 900), 3) for _ in DELAYS])]
    fp = fpm.fingerprint(write_study(tmp_path, cells))
    assert not fp.granularity, "no size and time stand out for random values, in rows or columns"
    for r in rows:
        text = finding(fp.granularity_findings, row=r).text
        assert "no packet size stands out" in text or "no packet size and duration" in text
    assert not fp.typos


def test_a_misfit_among_whole_packets_is_a_likely_typo(tmp_path):
    rng = random.Random(3)
    good = [kbps(rng.randrange(3000, 6000), 1040, 50, syn_bytes=40) for _ in DELAYS]
    # the fourth value printed with its last two digits swapped
    printed = f"{good[3]:.3f}"
    assert printed[-1] != printed[-2]
    swapped = float(printed[:-2] + printed[-1] + printed[-2])
    assert abs((swapped * 1000 * 50 / 8 - 40) / 1040 - round((swapped * 1000 * 50 / 8 - 40) / 1040)) * 1040 > 10
    values = good[:3] + [swapped] + good[4:]
    fp = fpm.fingerprint(write_study(tmp_path, tput_cells("A throughput (kb/s)", "A", values)))
    (g,) = groups(fp, "row", "A throughput (kb/s)")
    assert (g["size_bytes"], g["syn"], g["duration_s"], g["fits"], g["cells"]) == (1040, True, 50, 5, 6)
    (typo,) = fp.typos
    assert typo.cells[0]["column"] == DELAYS[3]
    assert typo.data["reason"] == "not whole packets" and typo.data["swapped"] == [good[3]]
    assert "5/5 cells like it" in typo.text and "two adjacent digits swapped" in typo.text


# --------------------------------------------------------------------------------------
# 2. Shares
# --------------------------------------------------------------------------------------

def share_study(tmp_path: Path, of: str, rows: tuple[str, str] = ("A share (%)", "B share (%)")) -> tuple[Path, list, list]:
    rng = random.Random(4)
    a = [kbps(rng.randrange(1000, 2500), 1040, 50, 40) for _ in DELAYS[:4]]
    b = [kbps(rng.randrange(2000, 3500), 1040, 50, 40) for _ in DELAYS[:4]]
    if of == "capacity":  # of the 1 Mb/s bottleneck
        sa, sb = [round(v / 10, 3) for v in a], [round(v / 10, 3) for v in b]
    else:
        sa = [round(100 * x / (x + y), 3) for x, y in zip(a, b)]
        sb = [round(100 * y / (x + y), 3) for x, y in zip(a, b)]
    cells = (tput_cells("A throughput (kb/s)", "A", a) + tput_cells("B throughput (kb/s)", "B", b)
             + tput_cells(rows[0], "A", sa, scale=1e-4) + tput_cells(rows[1], "B", sb, scale=1e-4))
    return write_study(tmp_path, cells), sa, a


def test_shares_of_the_capacity(tmp_path):
    study, _, _ = share_study(tmp_path, "capacity")
    fp = fpm.fingerprint(study)
    (summary,) = fp.shares
    assert summary.data["mode"] == "capacity" and summary.data["capacity_fits"] == 8 and summary.data["total_fits"] == 0
    assert summary.data["capacity_bps"] == [1e6]
    assert "of the link capacity, 1000 kb/s" in summary.text
    assert not fp.typos


def test_shares_of_the_total(tmp_path):
    study, _, _ = share_study(tmp_path, "total")
    fp = fpm.fingerprint(study)
    (summary,) = fp.shares
    assert summary.data["mode"] == "total" and summary.data["total_fits"] == 8 and summary.data["capacity_fits"] == 0
    assert not fp.typos


def test_a_cell_that_says_what_it_is_a_share_of(tmp_path, monkeypatch):
    # rows that do not say "share": the cells' own `share` field marks them
    study, _, _ = share_study(tmp_path, "total", rows=("A part (%)", "B part (%)"))
    cells = paper.cells

    def marked(study_dir):
        out = cells(study_dir)
        for c in out:
            if "part" in c.row:
                c.share = "total"
        return out

    monkeypatch.setattr(paper, "cells", marked)
    fp = fpm.fingerprint(study)
    (summary,) = fp.shares
    assert summary.data["mode"] == "total" and summary.data["cells"] == 8


def test_a_share_with_two_digits_swapped(tmp_path):
    study, sa, a = share_study(tmp_path, "capacity")
    text = (study / "paper.toml").read_text()
    right = f"{sa[1]:.3f}"
    i = next(i for i in range(len(right) - 1) if right[i].isdigit() and right[i + 1].isdigit() and right[i] != right[i + 1])
    wrong = right[:i] + right[i + 1] + right[i] + right[i + 2:]
    (study / "paper.toml").write_text(text.replace(f"paper = {sa[1]!r}\n", f"paper = {float(wrong)!r}\n", 1))
    fp = fpm.fingerprint(study)
    (typo,) = fp.typos
    assert typo.data["reason"] == "share arithmetic" and typo.data["mode"] == "capacity"
    assert typo.data["swapped"] == [float(right)]
    assert typo.cells[0]["column"] == DELAYS[1] and typo.cells[1]["paper"] == a[1]
    assert "two adjacent digits swapped" in typo.text
    assert fp.shares[0].data["breaks"] == 1


# --------------------------------------------------------------------------------------
# 3. Delays
# --------------------------------------------------------------------------------------

def test_delays_against_the_paths_one_way_bounds(tmp_path):
    # flow A's path: 10 Mb/s 10 ms, 1 Mb/s 40 ms (queue 20), 10 Mb/s 10 ms; 1040 B packets
    tx = [1040 * 8 / 10e6, 1040 * 8 / 1e6, 1040 * 8 / 10e6]
    lower = 0.060 + sum(tx)
    upper = lower + 50 * tx[0] + 20 * tx[1] + 50 * tx[2]
    cells = [{"table": "D", "row": "A delay (s)", "column": "40ms", "paper": 0.1, "flow": "A"},
             {"table": "D", "row": "A delay (s)", "column": "41ms", "paper": 0.05, "flow": "A"},
             {"table": "D", "row": "A delay (s)", "column": "42ms", "paper": 0.5, "flow": "A"},
             {"table": "D", "row": "mean delay (s)", "column": "40ms", "paper": 0.5, "aggregate": "mean"}]
    for c in cells:  # the grid moves the bottleneck's delay: these cells all take 40 ms
        c.update(metric="delay_mean_s", scale=1.0, params={"links[2].delay": "40ms"})
    fp = fpm.fingerprint(write_study(tmp_path, cells))
    summary = finding(fp.delays, table="D", within=1)
    assert (summary.data["above"], summary.data["below"]) == (2, 1)
    below = finding(fp.delays, verdict="below")
    assert below.cells[0]["paper"] == 0.05
    assert below.data["lower_s"] == pytest.approx(lower) and below.data["upper_s"] == pytest.approx(upper)
    above = [f for f in fp.delays if f.data.get("verdict") == "above"]
    assert [f.cells[0]["row"] for f in above] == ["A delay (s)", "mean delay (s)"]
    assert all(f.data["multiple"] == 2 for f in above), "0.5 s is within twice the one-way bound"
    assert "within 2× it (two flows' sum or a round trip)" in above[0].text
    assert "may be their sum" in above[1].text and "may be their sum" not in above[0].text


# --------------------------------------------------------------------------------------
# 4. Identical rows and columns
# --------------------------------------------------------------------------------------

def test_identical_columns(tmp_path):
    rows = {"r1": (1.5, 1.5, 1.5), "r2": (2.25, 2.25, 9.0), "r3": (3.125, 3.125, 3.125), "r4": (4.0, 4.0, 5.0)}
    cells = [{"table": "I", "row": r, "column": col, "paper": v, "metric": "packets_sent", "scale": 1.0}
             for r, vals in rows.items() for col, v in zip(DELAYS, vals)]
    fp = fpm.fingerprint(write_study(tmp_path, cells))
    whole = finding(fp.identical, columns=DELAYS[:2])
    assert whole.data["rows"] == 4 and "must come from identical runs (or were copied)" in whole.text
    assert "their grid values differ (links[2].delay)" in whole.text
    part = finding(fp.identical, columns=[DELAYS[0], DELAYS[2]])
    assert (part.data["equal"], part.data["common"]) == (2, 4)
    assert len(fp.identical) == 3  # and the second column against the third, as the first


# --------------------------------------------------------------------------------------
# The yew2011-wired study
# --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def wired():
    return fpm.fingerprint(REPO / "experiments" / "yew2011-wired")


def best_of(fp: fpm.Fingerprint, table: str, row: str) -> dict:
    return finding(fp.granularity_findings, table=table, row=row).data


def test_yew2011_wired_vegas_is_1500_bytes_without_syn(wired):
    for pair in ("Tahoe", "Reno", "NewReno", "SACK"):
        best = best_of(wired, "VI", f"Vegas/{pair}: Vegas throughput (kb/s)")
        assert (best["size_bytes"], best["size_rule"], best["syn"], best["duration_s"]) == (1500, "packet_size", False, 100)
        assert best["fits"] == best["cells"] == 4
    standing = {g["row"] for g in wired.granularity if g["table"] == "VI" and "Vegas throughput" in g.get("row", "")}
    assert {"Vegas/Tahoe: Vegas throughput (kb/s)", "Vegas/Reno: Vegas throughput (kb/s)"} <= standing


def test_yew2011_wired_loss_based_flows_are_1540_bytes_and_a_syn(wired):
    for variant in ("Tahoe", "Reno", "NewReno", "SACK"):
        (g,) = [g for g in wired.granularity if g["table"] == "VI" and g.get("row") == f"Vegas/{variant}: {variant} throughput (kb/s)"]
        assert (g["size_bytes"], g["syn"], g["syns"], g["duration_s"], g["fits"], g["cells"]) == (1540, True, 1, 100, 4, 4)
    # Table V's rows are sums of two flows: two SYNs (1900.613 kb/s over 100 s = 15427 x 1540 B + 80 B)
    (g,) = [g for g in wired.granularity if g["table"] == "V" and g.get("row") == "Tahoe throughput (kb/s)"]
    assert (g["size_bytes"], g["syn"], g["syns"], g["duration_s"], g["fits"]) == (1540, True, 2, 100, 4)
    # the two cells of Table V that are no whole packets, while every cell like them around them is
    flagged = {(t.cells[0]["row"], t.cells[0]["column"]) for t in wired.typos if t.data["reason"] == "not whole packets"}
    assert flagged == {("NewReno throughput (kb/s)", "F/E"), ("SACK throughput (kb/s)", "E/F")}


def test_yew2011_wired_ef_and_fe_are_identical_in_table_vi(wired):
    same = finding(wired.identical, table="VI", columns=["E/F", "F/E"])
    assert same.data["rows"] == 24 and "their scenarios differ" in same.text
    part = finding(wired.identical, table="V", columns=["E/F", "F/E"])
    assert part.data["equal"] >= 5


def test_yew2011_wired_share_typo_is_a_digit_swap(wired):
    (summary,) = wired.shares
    assert summary.data["mode"] == "capacity" and summary.data["capacity_bps"] == [2e6]
    swaps = [t for t in wired.typos if t.data["reason"] == "share arithmetic" and t.data["printed"] == 3.684]
    assert {t.cells[0]["column"] for t in swaps} == {"E/F", "F/E"}
    assert all(t.data["swapped"] == [3.864] for t in swaps)
    assert "77.280" in swaps[0].text or "77.28" in swaps[0].text


def test_yew2011_wired_table_v_delays_are_sums(wired):
    for variant in ("Tahoe", "Reno", "NewReno", "SACK"):
        cells = [f for f in wired.delays if f.cells and f.cells[0]["row"] == f"{variant} delay (s)" and f.data.get("verdict")]
        assert len(cells) == 4
        for f in cells:
            assert f.data["verdict"] == "above" and f.data["value_s"] > f.data["upper_s"] and f.data["multiple"] == 2
            assert f.data["per_flow"]["ratio"] == pytest.approx(2, abs=0.1)
            assert f.data["per_flow"]["tables"] == ["VI"]
    vegas = finding(wired.delays, table="V", within=4)
    assert vegas.data["above"] == 16
    assert finding(wired.delays, table="VI").data["within"] == 32


def test_every_study_fingerprints_and_renders():
    for study in sorted((REPO / "experiments").glob("*/study.toml")):
        fp = fpm.fingerprint(study.parent)
        text = fpm.render(fp)
        for section in ("Granularity", "Shares", "Delays", "Identical", "Likely typos"):
            assert f"\n{section}\n" in text, study.parent.name
        json.dumps(fp.to_json())
