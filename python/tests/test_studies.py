"""Studies: `tcplab reproduce` runs a study's quick form and writes its report."""

from __future__ import annotations

import html.parser

import pytest
from support import needs_browser, needs_ns, opened

from tcplab import cli, paper, studies


def test_list_names_every_study(capfd):
    assert cli.main(["reproduce", "--list"]) == 0
    assert "yew2011-wired" in capfd.readouterr().out
    assert "yew2011-wired" in studies.list_studies()


def test_unknown_study_is_a_user_error(capfd):
    assert cli.main(["reproduce", "no-such-study"]) == 2
    assert "no such study" in capfd.readouterr().err


@pytest.fixture(scope="module")
def wired_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("yew2011-wired") / "report"
    assert cli.main(["reproduce", "yew2011-wired", "--quick", "--out", str(out)]) == 0
    return out


def grids(md: str) -> list[tuple[list[str], list[list[str]]]]:
    """The report's paper tables: (header, rows) of each Markdown table whose first column is
    "row" (the paper's rows by its columns, each column's paper, tcplab, Δ and ns-2)."""
    out, inside = [], False
    for ln in md.splitlines():
        if ln.startswith("| row |"):
            out.append(([c.strip() for c in ln.strip("|").split("|")], []))
            inside = True
        elif inside and ln.startswith("| "):
            out[-1][1].append([c.strip() for c in ln.strip("|").split("|")])
        elif not ln.startswith("|"):
            inside = False
    return out


def paper_cells(md: str) -> list[tuple[str, str, list[str]]]:
    """Every cell of the report's paper tables: (row, column, [paper, tcplab, Δ(, ns-2)])."""
    cells = []
    for header, rows in grids(md):
        columns = list(dict.fromkeys(h.rsplit(" ", 1)[0] for h in header[1:] if h.endswith(" paper")))
        width = (len(header) - 1) // len(columns)
        for r in rows:
            for i, col in enumerate(columns):
                values = r[1 + i * width:1 + (i + 1) * width]
                if any(values):
                    cells.append((r[0], col, values))
    return cells


@needs_ns
def test_quick_yew2011_wired_report(wired_report):
    out = wired_report
    md = (out / "report.md").read_text()
    assert "Quick form: NOT comparable with the paper" in md.split("## ")[0], "the warning is on top"
    # every cell of the paper's two tables in the paper's shape (variants by environments, a
    # block per measure), under the calibrated reading and the literal one
    cells = paper_cells(md)
    assert len(cells) == 136 * 2
    header = grids(md)[0][0]
    assert header == ["row"] + [f"{env} {what}" for env in ("E/E", "E/F", "F/F", "F/E") for what in ("paper", "tcplab", "Δ", "ns-2")]
    assert [r[0] for r in grids(md)[0][1]] == ["Tahoe", "Reno", "NewReno", "Vegas", "SACK"]
    assert ("Vegas", "E/E") in [(r, c) for r, c, v in cells if v[0] == "0.205"]
    # tcplab and ns-2 agree on these scenarios trace for trace, so the columns are equal, and
    # tcplab's value is printed to the paper's digits
    for row, col, (printed, ours, delta, ns2) in cells:
        assert ours == ns2 and delta.endswith("%"), (row, col)
        assert len(ours.split(".")[-1]) == len(printed.rstrip(" †").split(".")[-1]), (row, col, printed, ours)
    assert "_tcplab: one run per cell (seed 1), so no interval._" in md
    assert "| window | setup | large enough never to bind (1000) | 17 packets |" in md
    assert "**supported**" not in md and md.count("not judged in quick form") == 5, "quick runs judge no claim"
    assert "What no reading explains." in md, "the study README's account is in the report"
    assert "shared/seeds" not in md
    figures = sorted(p.name for p in out.glob("table-*.svg"))
    assert figures == ["table-V-delay-s.svg", "table-V-throughput-kb-s.svg", "table-VI-delay-s.svg",
                       "table-VI-share.svg", "table-VI-throughput-kb-s.svg"], "a figure per table and measure"
    page = (out / "report.html").read_text()
    html.parser.HTMLParser().feed(page)
    # the figures ride in the page's data, its < written \u003c (report.render)
    assert page.count("\\u003csvg") == 5 and "http" not in page.split("\\u003csvg")[0], "a self-contained page"


@needs_browser
def test_the_study_page_is_the_report_page(wired_report, browser):
    """The study's report.html is tcplab's report page: in chromium, both tables in the paper's
    shape under both readings, a figure per measure with one unit per axis and labels of 9 px
    or more, the five claims, and no errors."""
    b = opened(browser, wired_report / "report.html")
    assert [e for e in b.get_log("browser") if e["level"] == "SEVERE"] == []
    count = lambda css: b.execute_script(f"return document.querySelectorAll({css!r}).length")  # noqa: E731
    # Table V: two blocks (throughput, delay) of 5 variants; Table VI: three of 8 rows; both readings
    assert count("table[id^='table-V-'] tbody tr") == 2 * 2 * 5
    assert count("table[id^='table-VI-'] tbody tr") == 2 * 3 * 8
    assert count("#table-V-best-throughput-kb-s thead tr.groups th") == 5
    assert count(".figure svg") == 5 and count(".claims li") == 5
    assert count("[src], [href], link, img") == 0
    assert count("#table-readings tbody tr") == 10
    assert count("table[id^='table-VI-'] td.near") + count("table[id^='table-VI-'] td.off") + count("table[id^='table-VI-'] td.far") == 96 * 2
    # every label of every figure at 9 px or more as drawn, and one unit on each y axis
    smallest = b.execute_script("""
        let m = Infinity;
        for (const t of document.querySelectorAll('.figure svg text')) {
          const h = t.getBoundingClientRect().height;
          if (h > 0) m = Math.min(m, h);
        }
        return m;""")
    assert smallest >= 9, smallest
    ylabels = b.execute_script("""
        return [...document.querySelectorAll('.figure svg text')].filter(t => /\\(.*\\)$/.test(t.textContent)
          && t.getAttribute('transform') && t.getAttribute('transform').includes('rotate(-90')).map(t => t.textContent);""")
    assert ylabels and all(y.count("(") == 1 for y in ylabels), ylabels


@pytest.mark.parametrize("study", sorted(studies.list_studies()))
def test_every_study_has_a_quick_form_that_reports(tmp_path, study):
    out = studies.reproduce(study, quick=True, out=tmp_path / study, progress=False)
    md = (out / "report.md").read_text()
    cells = paper.cells(studies.EXPERIMENTS / study)
    shown = 2 if (studies.EXPERIMENTS / study / "reading.toml").exists() else 1
    assert len(paper_cells(md)) == len(cells) * shown, "every published number has its cell, under each reading"
    assert "(0 failed)" in md and "Quick form: NOT comparable" in md
    doc = paper.read_toml(studies.EXPERIMENTS / study / "study.toml")
    for t in doc["tables"]:
        assert list(out.glob(f"table-{t['id']}.svg")) or list(out.glob(f"table-{t['id']}-*.svg"))
    for f in doc.get("figures", []):
        samples = (out / f"figure-{f['id']}.csv").read_text().splitlines()
        assert samples[0] == "run,time,flow,goodput_bps,delivered_bytes" and len(samples) > 10
        assert (out / f"figure-{f['id']}.svg").exists() and f["title"] in md


def test_a_cell_takes_the_case_that_sets_the_fewest_other_fields():
    from tcplab.sweep import Run

    def run(case, params, key, goodput):
        return Run(case, 1, params, {"name": "s"}, key), {"flows": [{"name": "f", "goodput_bps": goodput}]}

    made = [run("a size=512", {"size": 512}, "k1", 1.0), run("a size=512 delay=9ms", {"size": 512, "delay": "9ms"}, "k2", 5.0),
            run("a size=64", {"size": 64}, "k3", 7.0)]
    runs, summaries = [r for r, _ in made], {r.key: s for r, s in made}
    shapes = lambda r: ({"f": 1.0}, 1.0)  # noqa: E731
    cell = paper.Cell("T", "r", "c", 1.0, "s", "goodput_bps", "f", "sum", 2.0, {"size": 512})
    assert studies.cell_values(cell, {}, runs, summaries, shapes) == [2.0]
    both = paper.Cell("T", "r", "c", 1.0, "s", "goodput_bps", "f", "sum", 1.0, {"size": 512, "delay": "9ms"})
    assert studies.cell_values(both, {}, runs, summaries, shapes) == [5.0]


def test_claims_compare_rows_or_a_threshold():
    values = {("T", "a", "x"): 1.0, ("T", "b", "x"): 3.0, ("T", "a", "y"): 5.0, ("T", "b", "y"): 2.0}
    study = {"claims": [
        {"text": "a lowest in x", "table": "T", "kind": "lowest", "rows": ["a", "b"], "columns": ["x"], "expect": "a"},
        {"text": "a lowest in both", "table": "T", "kind": "lowest", "rows": ["a", "b"], "expect": "a"},
        {"text": "all above 0.5", "table": "T", "kind": "above", "rows": ["a", "b"], "threshold": 0.5},
        {"text": "x above 2", "table": "T", "kind": "above", "rows": ["a", "b"], "columns": ["x"], "threshold": 2},
        {"text": "y below 6", "table": "T", "kind": "below", "rows": ["a", "b"], "columns": ["y"], "threshold": 6},
    ]}
    verdicts = [v for _, v, _ in studies._claims(study, values)]
    assert verdicts == ["supported", "not supported", "supported", "not supported", "supported"]


def test_a_difference_from_the_paper_is_signed_and_never_minus_zero():
    from tcplab import study_report

    assert study_report._delta(101.0, 100.0) == "+1.00%"
    assert study_report._delta(99.0, 100.0) == "-1.00%"
    assert study_report._delta(99.99999, 100.0) == "+0.00%", "a rounding to zero is not negative"
    assert study_report._delta(None, 100.0) == "–" and study_report._delta(1.0, 0.0) == "–"
