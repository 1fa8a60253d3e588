"""`tcplab report`: the run's page, opened in Debian's headless chromium (through selenium and
chromium-driver, which scripts/test.sh installs). A screenshot of the page is kept in
test-artifacts/ (or $TCPLAB_TEST_ARTIFACTS)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from support import needs_browser, opened
from test_plot import LOSSY

import tcplab
from tcplab import cli

REPO = Path(__file__).resolve().parents[2]
pytestmark = needs_browser


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    tcplab.run(LOSSY, out=out, trace=["ns2", "cwnd"])
    assert cli.main(["report", str(out)]) == 0
    return out


def test_the_page_renders_without_errors_and_needs_nothing_else(page, browser):
    b = opened(browser, page / "report.html")
    errors = [e for e in b.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    # self-contained: nothing to fetch
    assert b.execute_script("return document.querySelectorAll('[src], [href], link, img').length") == 0
    artifacts = Path(os.environ.get("TCPLAB_TEST_ARTIFACTS", REPO / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    assert b.save_screenshot(str(artifacts / "report.png"))


def test_tables_charts_and_network_are_drawn(page, browser):
    b = opened(browser, page / "report.html")
    count = lambda css: b.execute_script(f"return document.querySelectorAll({css!r}).length")
    assert count("#table-flows tbody tr") == 3 and count("#table-links tbody tr") == 10
    for chart in ("cwnd", "goodput", "delivered", "queue", "sequence", "delay"):
        assert count(f"#chart-{chart} svg polyline, #chart-{chart} svg path") > 0, chart
    assert count("#topology line[data-link]") == 10 and count("#topology .node") == 6


def test_the_slider_moves_the_queues(page, browser):
    """Moving the time slider shows each sample's queue: the bottleneck's fill follows
    the links series."""
    b = opened(browser, page / "report.html")
    links = pd.read_parquet(page / "series-links.parquet")
    queue = links[links["link"] == "r1->r2"]["queue_pkts"].tolist()
    empty, full = queue.index(0), max(range(len(queue)), key=lambda i: queue[i])
    assert queue[full] > 0
    slider = b.find_element("id", "time")
    shown = {}
    for i in (empty, full):
        b.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, i)
        fill = b.find_element("css selector", 'rect[data-queue="r1->r2"]')
        shown[i] = (int(fill.get_attribute("data-packets")), float(fill.get_attribute("width")))
        assert b.find_element("id", "time-label").text == f"t = {links['time'].unique()[i]:g} s"
    assert shown[empty] == (0, 0.0)
    assert shown[full][0] == queue[full] and shown[full][1] > 0


def test_legend_hides_a_line_and_hover_reads_values(page, browser):
    from selenium.webdriver.common.action_chains import ActionChains

    b = opened(browser, page / "report.html")
    legend = b.find_elements("css selector", "#chart-goodput .legend")
    assert [e.text.strip("\u25a0 ") for e in legend] == ["A", "B", "C"]
    legend[0].click()
    hidden = b.execute_script("return [...document.querySelectorAll('#chart-goodput g.series')].map(g => g.style.display)")
    assert hidden == ["none", "", ""]
    svg = b.find_element("css selector", "#chart-goodput svg")
    ActionChains(b).move_to_element(svg).perform()
    tip = b.find_element("css selector", "#chart-goodput .tip")
    assert tip.is_displayed() and "A:" in tip.text and "time (s)" in tip.text


def test_a_folder_with_the_summary_only_still_gets_a_page(tmp_path, browser):
    tcplab.run({**LOSSY, "output": {}}, out=tmp_path)
    (tmp_path / "scenario.json").unlink()
    assert cli.main(["report", str(tmp_path)]) == 0
    b = opened(browser, tmp_path / "report.html")
    assert [e for e in b.get_log("browser") if e["level"] == "SEVERE"] == []
    notes = b.execute_script("return [...document.querySelectorAll('.note')].map(n => n.textContent)")
    assert any("scenario.json" in n for n in notes) and any("--trace ns2" in n for n in notes)


# Names as an attacker or a slip of the keyboard would write them: each would end the page's
# data early, or make the parser swallow the rest of the page, if it reached it unescaped.
HOSTILE = ["<!--<script>", "</script><b>bold</b>", "a&amp;b\u2028c", "]]>'\"\\\u202e", "\x1b[31mred\r"]


def test_names_the_page_shows_are_text_however_they_look(tmp_path, browser):
    """Issue 35: a flow named `<!--<script>` blanked the page. Every name of the scenario
    (scenario, nodes, flows) is shown as the text it is, and the page's script runs."""
    nodes = [f"{n}{h}" for n, h in zip(("s1", "s2", "r1", "r2", "k1", "k2"), HOSTILE + ["k2"])]
    rename = dict(zip(LOSSY["nodes"], nodes))
    scenario = {**LOSSY, "name": HOSTILE[0], "nodes": nodes,
                "links": [{**link, "from": rename[link["from"]], "to": rename[link["to"]]} for link in LOSSY["links"]],
                "flows": [{**f, "name": h, "from": rename[f["from"]], "to": rename[f["to"]]}
                          for f, h in zip(LOSSY["flows"], HOSTILE)]}
    tcplab.run(scenario, out=tmp_path, trace=["ns2", "cwnd"])
    assert cli.main(["report", str(tmp_path)]) == 0
    b = opened(browser, tmp_path / "report.html")
    assert [e for e in b.get_log("browser") if e["level"] == "SEVERE"] == []
    assert b.execute_script("return document.body.dataset.ready") == "1", "the script ran to its end"
    assert b.execute_script("return document.querySelectorAll('script').length") == 2, "no element came from a name"
    assert b.execute_script("return document.querySelectorAll('main b').length") == 0
    assert b.find_element("css selector", "h1").text == f"tcplab: {HOSTILE[0]}"
    flows = b.execute_script("return [...document.querySelectorAll('#table-flows tbody tr')]"
                             ".map(tr => tr.cells[0].textContent)")
    assert flows == HOSTILE[:3]
    legend = b.find_elements("css selector", "#chart-goodput .legend")
    assert [e.get_attribute("textContent").strip("\u25a0 ") for e in legend] == HOSTILE[:3]
    shown = b.execute_script("return [...document.querySelectorAll('#topology .node')].map(n => n.textContent)")
    assert sorted(shown) == sorted(nodes)
