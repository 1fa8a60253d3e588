"""`tcplab report`: the run's page, opened in Debian's headless chromium (through selenium and
chromium-driver, which scripts/test.sh installs). A screenshot of the page is kept in
test-artifacts/ (or $TCPLAB_TEST_ARTIFACTS)."""

from __future__ import annotations

import json
import os
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from support import needs_browser, opened
from test_plot import LOSSY

import tcplab
from tcplab import cli, report

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
    # self-contained: nothing to fetch (a link to the metrics' definitions is only followed on a click)
    assert b.execute_script("return document.querySelectorAll('[src], link, img').length") == 0
    assert b.execute_script("return [...document.querySelectorAll('[href]')].map(e => e.tagName)") == ["A"]
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


def _boxes(b, css: str) -> list[dict]:
    """The bounding boxes (getBBox, in the SVG's units) of the elements `css` selects."""
    return b.execute_script("return [...document.querySelectorAll(arguments[0])].map(e => {"
                            "const r = e.getBBox(); return {x: r.x, y: r.y, w: r.width, h: r.height,"
                            " name: e.closest('g').textContent}})", css)


def _overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    return [(a["name"], c["name"]) for i, a in enumerate(boxes) for c in boxes[i + 1:]
            if a["x"] < c["x"] + c["w"] and c["x"] < a["x"] + a["w"] and a["y"] < c["y"] + c["h"] and c["y"] < a["y"] + a["h"]]


def test_the_tables_show_human_units_each_header_defined(page, browser):
    """Issue 37: the page printed `goodput_bps 6073410`. Headers carry their unit and a definition;
    cells are in kb/s, ms, packets and %; the raw counters' names and values are gone."""
    b = opened(browser, page / "report.html")
    summary = json.loads((page / "summary.json").read_text())
    heads = b.execute_script("return [...document.querySelectorAll('#table-flows tr:last-child th')]"
                             ".map(th => [th.textContent, th.title])")
    names = [h for h, _ in heads]
    assert "goodput (kb/s)" in names and "efficiency (%)" in names and "mean" in names
    assert all(title for _, title in heads), "every column is defined in its header's tooltip"
    groups = b.execute_script("return [...document.querySelectorAll('#table-flows tr.groups th')].map(th => th.textContent)")
    assert "one-way delay (ms)" in groups and "data packets" in groups
    text = b.find_element("id", "table-flows").text
    assert "goodput_bps" not in text and "delay_mean_s" not in text
    rows = b.execute_script("return [...document.querySelectorAll('#table-flows tbody tr')].map(tr => [...tr.cells].map(c => c.textContent))")
    for f, row in zip(summary["flows"], rows):
        assert str(round(f["goodput_bps"])) not in row, "no raw b/s"
        assert float(row[names.index("goodput (kb/s)")]) == round(f["goodput_bps"] / 1e3, 1)
        assert float(row[names.index("efficiency (%)")]) == round(f["efficiency"] * 100, 1)
    terms = b.execute_script("return [...document.querySelectorAll('.definitions dt')].map(d => d.textContent)")
    assert "efficiency (%)" in terms and "goodput (kb/s)" in terms
    assert b.find_element("css selector", "a[href$='docs/metrics.md']").text == "docs/metrics.md"


def test_a_dumbbell_stays_a_dumbbell_and_no_labels_overlap(page, browser):
    b = opened(browser, page / "report.html")
    centre = {n["name"]: n["x"] + n["w"] / 2 for n in _boxes(b, "#topology .node rect")}
    assert max(centre["s1"], centre["s2"]) < centre["r1"] < centre["r2"] < min(centre["k1"], centre["k2"])
    labels = _boxes(b, "#topology .node text")
    assert len(labels) == 6 and _overlapping(labels) == []
    # nor do the link texts shown at a busy moment overlap each other or the nodes
    b.execute_script("const s = document.getElementById('time'); s.value = s.max / 2; s.dispatchEvent(new Event('input'))")
    shown = b.execute_script("return [...document.querySelectorAll('#topology text.wire')].filter(t => t.textContent &&"
                             " t.getAttribute('visibility') !== 'hidden').map(t => {const r = t.getBBox();"
                             " return {x: r.x, y: r.y, w: r.width, h: r.height, name: t.textContent}})")
    assert shown and _overlapping(shown + labels) == []


# A three-level tree of 7 routers with 8 hosts, whose flows cross the core both ways.
TREE = {"name": "tree", "duration": "3s", "nodes": ["c0", "a1", "a2", "e1", "e2", "e3", "e4"] + [f"host-{i}" for i in range(8)],
        "links": [{"from": p, "to": c, "bandwidth": "10Mb", "delay": "2ms"} for p, c in
                  [("c0", "a1"), ("c0", "a2"), ("a1", "e1"), ("a1", "e2"), ("a2", "e3"), ("a2", "e4")]]
        + [{"from": f"e{i // 2 + 1}", "to": f"host-{i}", "bandwidth": "100Mb", "delay": "1ms"} for i in range(8)],
        "flows": [{"name": "f1", "from": "host-0", "to": "host-5", "protocol": "reno"},
                  {"name": "f2", "from": "host-6", "to": "host-1", "protocol": "reno"}],
        "output": {"interval": "0.1s"}}


def test_a_tree_stays_a_tree_its_labels_apart(tmp_path, browser):
    tcplab.run(TREE, out=tmp_path)
    report.report(tmp_path)
    b = opened(browser, tmp_path / "report.html")
    middle = {n["name"]: n["y"] + n["h"] / 2 for n in _boxes(b, "#topology .node rect")}
    level = {"c0": 0, "a1": 1, "a2": 1, **{f"e{i}": 2 for i in range(1, 5)}, **{f"host-{i}": 3 for i in range(8)}}
    assert all((middle[u] < middle[v]) == (level[u] < level[v]) for u in level for v in level if level[u] != level[v])
    left = {n["name"]: n["x"] for n in _boxes(b, "#topology .node rect")}
    assert [h for h in sorted(left, key=left.get) if h.startswith("host")] == [f"host-{i}" for i in range(8)], "no crossings"
    assert _overlapping(_boxes(b, "#topology .node text")) == []


def test_layers_keep_a_parking_lot_a_line():
    """The long flow's routers share a row, each cross flow's ends sit beside its hop."""
    nodes = ["r1", "r2", "r3", "src", "dst", "x1", "y1", "x2", "y2"]
    ix = {n: i for i, n in enumerate(nodes)}
    edges = [(ix[a], ix[b]) for a, b in [("r1", "r2"), ("r2", "r3"), ("src", "r1"), ("r3", "dst"),
                                         ("x1", "r1"), ("r2", "y1"), ("x2", "r2"), ("r3", "y2")]]
    routes = [[(ix[a], ix[b]) for a, b in hops] for hops in
              ([("src", "r1"), ("r1", "r2"), ("r2", "r3"), ("r3", "dst")], [("x1", "r1"), ("r1", "r2"), ("r2", "y1")],
               [("x2", "r2"), ("r2", "r3"), ("r3", "y2")])]
    orient, layer, rank = report.layout(len(nodes), edges, routes)
    at = {n: (layer[i], rank[i]) for n, i in ix.items()}
    assert orient == "lr"
    assert [at[n][0] for n in ("src", "r1", "r2", "r3", "dst")] == [0, 1, 2, 3, 4]
    assert {at[n][1] for n in ("src", "r1", "r2", "r3", "dst")} == {0}
    assert at["x1"][0] == 0 and at["y1"][0] == 3 and at["x2"][0] == 1 and at["y2"][0] == 4


def test_play_moves_the_slider_and_pause_stops_it(page, browser):
    b = opened(browser, page / "report.html")
    slider = b.find_element("id", "time")
    b.find_element("id", "play").click()
    time.sleep(1.2)
    b.find_element("id", "play").click()
    paused = int(slider.get_attribute("value"))
    assert paused >= 5, "at 1x and 0.1 s samples, about ten a second"
    assert b.find_element("id", "time-label").text != "t = 0.1 s"
    time.sleep(0.5)
    assert int(slider.get_attribute("value")) == paused


def test_a_chart_zooms_on_a_drag_resets_and_exports(page, browser):
    from selenium.webdriver.common.action_chains import ActionChains

    b = opened(browser, page / "report.html")
    full = b.execute_script("return CHARTS.cwnd.view")
    svg = b.find_element("css selector", "#chart-cwnd > svg")
    ActionChains(b).move_to_element_with_offset(svg, -200, -60).click_and_hold() \
        .move_by_offset(250, 90).release().perform()
    zoomed = b.execute_script("return CHARTS.cwnd.view")
    assert full["x0"] < zoomed["x0"] < zoomed["x1"] < full["x1"]
    assert zoomed["y1"] < full["y1"]
    ticks = b.execute_script("return [...document.querySelectorAll('#chart-cwnd > svg text.tick')].map(t => t.textContent)")
    b.find_element("xpath", "//div[@id='chart-cwnd']//button[text()='Reset']").click()
    assert b.execute_script("return CHARTS.cwnd.view") == full
    assert ticks != b.execute_script("return [...document.querySelectorAll('#chart-cwnd > svg text.tick')].map(t => t.textContent)")
    exported = b.execute_script("return CHARTS.cwnd.svg()")
    doc = ET.fromstring(exported)
    assert doc.tag == "{http://www.w3.org/2000/svg}svg"
    words = "".join(doc.itertext())
    assert "cwnd and ssthresh" in words and "A ssthresh" in words and "time (s)" in words
    for button in ("SVG", "PNG"):
        b.find_element("xpath", f"//div[@id='chart-cwnd']//button[text()='{button}']").click()
    time.sleep(0.3)
    assert [e for e in b.get_log("browser") if e["level"] == "SEVERE"] == []


def test_each_flow_has_one_colour_in_every_chart_and_marker(page, browser):
    b = opened(browser, page / "report.html")
    strokes = lambda chart: b.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(g => g.firstChild.getAttribute('stroke'))",
        f"#chart-{chart} g.series")
    names = lambda chart: b.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent.trim())", f"#chart-{chart} .legend")
    cwnd = dict(zip(names("cwnd"), strokes("cwnd")))
    assert cwnd["A cwnd"] == cwnd["A ssthresh"] and cwnd["B cwnd"] == cwnd["B ssthresh"] and cwnd["A cwnd"] != cwnd["B cwnd"]
    goodput = dict(zip(names("goodput"), strokes("goodput")))
    assert goodput["A"] == cwnd["A cwnd"] and goodput["B"] == cwnd["B cwnd"] and len(set(goodput.values())) == 3
    seq = dict(zip(names("sequence"), strokes("sequence")))
    assert seq["A dropped"] == seq["A retransmitted"] == seq["A sent"] == cwnd["A cwnd"]
    assert seq["B dropped"] == seq["B sent"] == cwnd["B cwnd"]
    shapes = b.execute_script("return [...document.querySelectorAll('#chart-sequence g.series path')].map(p => p.getAttribute('d').slice(0, 40))")
    drops, retrans = shapes[list(seq).index("A dropped")], shapes[list(seq).index("A retransmitted")]
    assert "a" in drops and "a" not in retrans, "rings for drops, crosses for retransmissions"


STARVED = {**LOSSY, "name": "starved", "flows": [
    {"name": "meek", "from": "s1", "to": "k1", "protocol": "reno", "start": "1s", "tcp": {"window": 2}},
    {"name": "B", "from": "s2", "to": "k2", "protocol": "reno"},
    {"name": "flood", "from": "s2", "to": "k2", "protocol": "udp", "rate": "2.5Mb"}]}


def test_a_starved_flow_is_named_on_top_and_a_fair_run_has_no_warning(page, tmp_path, browser):
    tcplab.run(STARVED, out=tmp_path)
    report.report(tmp_path)
    b = opened(browser, tmp_path / "report.html")
    warning = b.find_element("id", "warnings")
    assert warning.is_displayed() and "meek" in warning.text and "flood" not in warning.text
    b = opened(browser, page / "report.html")
    assert b.find_elements("id", "warnings") == []


def test_starved_compares_goodput_with_the_max_min_fair_share():
    flows = [{"name": "a", "goodput_bps": 4_000}, {"name": "b", "goodput_bps": 600_000}, {"name": "c", "goodput_bps": 0}]
    shares = {"a": 500_000, "b": 500_000, "c": 500_000}
    out = report.starved(flows, shares)
    assert len(out) == 2 and "c" in out[0] and "a (4.0 kb/s" in out[1] and "b (" not in out[1]
    # a parking lot of 2 Mb/s hops: a 100 kb/s CBR flow on the first leaves the long flow and the
    # first cross flow 0.95 Mb/s each, and the other cross flows what the long one leaves them
    sc = {"nodes": ["r1", "r2", "r3", "r4", "s", "d"],
          "links": [{"from": a, "to": b, "bandwidth_bps": 2e6} for a, b in [(0, 1), (1, 2), (2, 3)]]
          + [{"from": 4, "to": 0, "bandwidth_bps": 1e7}, {"from": 3, "to": 5, "bandwidth_bps": 1e7}],
          "flows": [{"name": "long", "from": 4, "to": 5}] + [{"name": f"x{i}", "from": i, "to": i + 1} for i in range(3)]
          + [{"name": "cbr", "from": 0, "to": 1, "rate_bps": 1e5}]}
    shares = report.fair_shares(sc, 10)
    assert shares == pytest.approx({"cbr": 1e5, "long": 0.95e6, "x0": 0.95e6, "x1": 1.05e6, "x2": 1.05e6})


def test_a_table_groups_its_columns_colours_its_deltas_and_adds_notes(tmp_path, browser):
    page = report.render({"title": "t", "sections": [{
        "kind": "table", "id": "tv", "title": "", "groups": [["", 1], ["E/E", 4], ["F/F", 2]],
        "columns": ["variant", "paper", "tcplab", "Δ", "ns-2", "paper", "tcplab"], "deltas": [3],
        "rows": [["Reno", 1.0, 1.004, "+0.40%", 1.0, 2, 2], ["Vegas", 1.0, 1.03, "-3.00%", 1.0, 2, 2],
                 ["Tahoe", 1.0, 1.2, "+20.00%", 1.0, 2, 2]],
        "notes": ["ns-2.35: seed 1.", "Δ: tcplab against the paper."]}]})
    (tmp_path / "t.html").write_text(page)
    b = opened(browser, tmp_path / "t.html")
    assert b.execute_script("return [...document.querySelectorAll('#table-tv tr.groups th')]"
                            ".map(th => [th.textContent, th.colSpan])") == [["", 1], ["E/E", 4], ["F/F", 2]]
    assert b.execute_script("return [...document.querySelectorAll('#table-tv tbody td:nth-child(4)')].map(td => td.className)") \
        == ["near", "off", "far"]
    assert b.execute_script("return [...document.querySelectorAll('.table-note')].map(p => p.textContent)") \
        == ["ns-2.35: seed 1.", "Δ: tcplab against the paper."]


def test_text_is_large_enough_to_read(page, browser):
    b = opened(browser, page / "report.html")
    sizes = b.execute_script("return [...document.querySelectorAll('main *')].filter(e => e.childNodes.length &&"
                             " [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))"
                             ".map(e => [e.tagName, e.getAttribute('class'), parseFloat(getComputedStyle(e).fontSize)])")
    assert min(s for *_, s in sizes) >= 11
    assert all(s >= 12 for tag, cls, s in sizes if cls not in ("tick", "wire"))


def test_a_cwnd_log_holds_its_last_value_to_the_end():
    """The cwnd trace writes a line only when the window moves: a window that settled early
    is drawn on to the run's end, not as a line that stops."""
    log = pd.DataFrame({"time": [0.0, 1.0, 1.6, 0.0], "cwnd": [1.0, 4.0, 20.0, 2.0], "flow": ["A", "A", "A", "B"]})
    held = {s["name"]: (s["x"], s["y"]) for s in report.lines(log, "time", "cwnd", "flow", until=30.0)}
    assert held["A"] == ([0.0, 1.0, 1.6, 30.0], [1.0, 4.0, 20.0, 20.0])
    assert held["B"] == ([0.0, 30.0], [2.0, 2.0])
    plain = report.lines(log, "time", "cwnd", "flow")
    assert plain[0]["x"] == [0.0, 1.0, 1.6], "without `until` a series ends at its last sample"


def test_wide_tables_fit_the_page(page, browser):
    """The flows table has 18 columns: its headers wrap, so it fits the page instead of
    scrolling sideways."""
    b = opened(browser, page / "report.html")
    wide = b.execute_script("return [...document.querySelectorAll('.table-wrap')]"
                            ".filter(w => w.scrollWidth > w.clientWidth + 1).map(w => w.firstChild.id)")
    assert wide == []
