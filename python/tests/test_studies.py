"""Studies: `tcplab reproduce` runs a study's quick form and writes its report."""

from __future__ import annotations

import html.parser

import pytest
from support import needs_browser, needs_ns, opened

from tcplab import cli, studies


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


def cell_rows(md: str) -> list[list[str]]:
    """The rows of the report's paper tables (those under a "| row | column | paper" header)."""
    rows, inside = [], False
    for ln in md.splitlines():
        if ln.startswith("| row | column | paper"):
            inside = True
        elif inside and ln.startswith("| "):
            rows.append([c.strip() for c in ln.strip("|").split("|")])
        elif not ln.startswith("|"):
            inside = False
    return rows


@needs_ns
def test_quick_yew2011_wired_report(wired_report):
    out = wired_report
    md = (out / "report.md").read_text()
    # every cell of the paper's two tables, under the calibrated reading and the literal one,
    # with tcplab's and ns-2's values beside each
    rows = cell_rows(md)
    assert len(rows) == 136
    assert "| tcplab, best reading (mean ± 95% CI, min to max) | Δ best | tcplab, literal reading" in md
    assert ["Vegas delay (s)", "E/E", "0.205"] in [r[:3] for r in rows]
    assert all("–" not in r[7:] for r in rows), "ns-2 ran every wired scenario, under both readings"
    # tcplab and ns-2 agree on these scenarios trace for trace, so the columns are equal
    for r in rows:
        assert r[3].split(" ± ")[0] == r[7] and r[5].split(" ± ")[0] == r[8], r
        assert r[4].endswith("%") and r[6].endswith("%"), r
    assert "| window | setup | large enough never to bind (1000) | 17 packets |" in md
    assert md.count("**supported**") + md.count("**not supported**") == 10, "five claims, each under both readings"
    for f in ("table-V.png", "table-V.svg", "table-VI.png", "table-VI.svg", "report.html"):
        assert (out / f).stat().st_size > 0
    page = (out / "report.html").read_text()
    html.parser.HTMLParser().feed(page)
    # the figures ride in the page's data, its < written \u003c (report.render)
    assert page.count("\\u003csvg") == 2 and "http" not in page.split("\\u003csvg")[0], "a self-contained page"


@needs_browser
def test_the_study_page_is_the_report_page(wired_report, browser):
    """The study's report.html is tcplab's report page: in chromium, both tables with every
    cell, both figures, the five claims, and no errors."""
    b = opened(browser, wired_report / "report.html")
    assert [e for e in b.get_log("browser") if e["level"] == "SEVERE"] == []
    count = lambda css: b.execute_script(f"return document.querySelectorAll({css!r}).length")
    assert count("#table-V tbody tr") + count("#table-VI tbody tr") == 136
    assert count(".figure svg") == 2 and count(".claims li") == 5
    assert count("[src], [href], link, img") == 0
    # the readings side by side, each cell's difference from the paper coloured by its size
    assert count("#table-readings tbody tr") == 10
    assert count("#table-VI td.near") + count("#table-VI td.off") + count("#table-VI td.far") == 96 * 2


@pytest.mark.parametrize("study", sorted(studies.list_studies()))
def test_every_study_has_a_quick_form_that_reports(tmp_path, study):
    out = studies.reproduce(study, quick=True, out=tmp_path / study, progress=False)
    md = (out / "report.md").read_text()
    cells = studies._cells(studies.EXPERIMENTS / study)
    assert len(cell_rows(md)) == len(cells), "every published number has its row"
    assert "(0 failed)" in md
    doc = studies.tomllib.loads((studies.EXPERIMENTS / study / "study.toml").read_text())
    for t in doc["tables"]:
        assert (out / f"table-{t['id']}.svg").exists()
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
    cell = studies.Cell("T", "r", "c", 1.0, "s", "goodput_bps", "f", "sum", 2.0, {"size": 512})
    assert studies.cell_values(cell, {}, runs, summaries, shapes) == [2.0]
    both = studies.Cell("T", "r", "c", 1.0, "s", "goodput_bps", "f", "sum", 1.0, {"size": 512, "delay": "9ms"})
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
