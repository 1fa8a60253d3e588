"""`tcplab plot`: the standard figures of a result folder, and the data behind them agreeing with
the run's own counters."""

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

import tcplab
from tcplab import cli, plot

LOSSY = {
    "name": "lossy", "duration": "12s", "nodes": ["s1", "s2", "r1", "r2", "k1", "k2"],
    "tcp": {"window": 40},
    "links": [
        {"from": "s1", "to": "r1", "bandwidth": "10Mb", "delay": "2ms"},
        {"from": "s2", "to": "r1", "bandwidth": "10Mb", "delay": "3ms"},
        {"from": "r1", "to": "r2", "bandwidth": "1.5Mb", "delay": "20ms", "queue_limit": 8},
        {"from": "r2", "to": "k1", "bandwidth": "10Mb", "delay": "2ms"},
        {"from": "r2", "to": "k2", "bandwidth": "10Mb", "delay": "2ms"},
    ],
    "flows": [
        {"name": "A", "from": "s1", "to": "k1", "protocol": "sack1"},
        {"name": "B", "from": "s2", "to": "k2", "protocol": "reno", "start": "0.3s"},
        {"name": "C", "from": "s1", "to": "k2", "protocol": "udp", "rate": "200kb", "start": "1s"},
    ],
    "output": {"interval": "0.1s"},
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("lossy")
    tcplab.run(LOSSY, out=out, trace=["ns2", "cwnd"])
    return out


def test_every_figure_is_drawn_as_png_and_svg(folder, capsys):
    assert cli.main(["plot", str(folder)]) == 0
    printed = capsys.readouterr().out.split()
    names = sorted(f"{n}.{ext}" for n in plot.FIGURES for ext in ("png", "svg"))
    assert sorted(p.split("/")[-1] for p in printed) == names
    for n in plot.FIGURES:
        assert (folder / "plots" / f"{n}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        svg = ET.parse(folder / "plots" / f"{n}.svg").getroot()
        assert svg.tag.endswith("svg") and "lossy" in ET.tostring(svg, encoding="unicode")


def test_the_sequence_figure_marks_what_the_run_counted(folder):
    run = plot.RunFolder(folder)
    summary = {f["name"]: f for f in run.summary["flows"]}
    for f in run.tcp_flows():
        sent, dropped = plot.segments(run.trace(), f)
        s = summary[f["name"]]
        assert (len(sent), int(sent["retransmitted"].sum()), len(dropped)) == (
            s["packets_sent"], s["packets_retransmitted"], s["packets_dropped"])
        assert s["packets_retransmitted"] > 5


def test_the_delay_distribution_is_the_runs(folder):
    run = plot.RunFolder(folder)
    summary = {f["name"]: f for f in run.summary["flows"]}
    delays = plot.one_way_delays(run)
    assert set(delays) == {"A", "B", "C"}
    for name, d in delays.items():
        s = summary[name]
        assert len(d) == s["packets_delivered"]
        # the trace prints times to the microsecond
        assert d.mean() == pytest.approx(s["delay_mean_s"], abs=1e-6)
        assert d.max() == pytest.approx(s["delay_max_s"], abs=1e-6)


def test_what_a_folder_lacks_is_said_not_drawn(tmp_path, capsys):
    tcplab.run({**LOSSY, "output": {}}, out=tmp_path)
    assert cli.main(["plot", str(tmp_path), "--out", str(tmp_path / "figs")]) == 0
    err = capsys.readouterr().err
    for n in plot.FIGURES:
        assert f"no {n} figure" in err
    assert list((tmp_path / "figs").iterdir()) == []


def test_a_folder_without_a_run_is_refused(tmp_path, capsys):
    (tmp_path / "x.json").write_text(json.dumps({}))
    assert cli.main(["plot", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


@pytest.mark.parametrize("file, content, says", [
    ("summary.json", b"{garbage", "not valid JSON"),
    ("summary.json", b"\xff\xfe", "not UTF-8 text"),
    ("summary.json", b"[]", "not a JSON object"),
    ("summary.json", b'{"name": 3}', "name: missing or not as tcplab run writes it"),
    ("summary.json", b'{"name": "x", "seed": 1, "duration_s": NaN}', "NaN is not a number JSON allows"),
    ("summary.json", b'{"name": "x", "seed": 1, "duration_s": 2, "flows": [], "links": [], "jain_fairness": "x"}',
     "jain_fairness: missing"),
    ("scenario.json", b'{"nodes": ["a"], "links": [{"from": 0}], "flows": []}', "links[0].to: missing"),
    ("scenario.json", b'{"nodes": ["a"], "links": [], "flows": [{"name": "A", "fid": 1, "from": 0, "to": 9}]}',
     "flows[0].to: missing"),
    ("series-links.parquet", b"garbage", "cannot be read as tcplab run writes it"),
    ("trace.tr", b"+ 1.0 0 2 tcp 1000 ------- 1 0.0 4.0 zz 3\n", "seq 'zz' is not as tcplab writes it"),
    ("trace.tr", b"+ 1.0 0 2 tcp 1000 ------- 1 0.0 4.0 99999999999999999999 3\n", "seq '99999999999999999999'"),
    ("trace.tr", b'+ 1.0 0 2 "tcp 1000 ------- 1 0.0 4.0 zz 3\n', "seq 'zz'"),  # a quote is no quoting
])
@pytest.mark.parametrize("command", ["plot", "report"])
def test_a_damaged_file_is_refused_naming_it(folder, tmp_path, capsys, file, content, says, command):
    damaged = tmp_path / "run"
    shutil.copytree(folder, damaged, ignore=shutil.ignore_patterns("plots", "report.html"))
    with open(damaged / file, "ab" if file == "trace.tr" else "wb") as f:
        f.write(content)
    assert cli.main([command, str(damaged), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tcplab: error: {damaged / file}: ") and says in err, err
    if file == "trace.tr":
        lines = len((folder / file).read_text().splitlines())
        assert f"line {lines + 1}: " in err, "the line is named"


def test_lines_are_numbered_as_an_editor_numbers_them(folder, tmp_path, capsys):
    damaged = tmp_path / "run"
    shutil.copytree(folder, damaged, ignore=shutil.ignore_patterns("plots"))
    with open(damaged / "trace.tr", "ab") as f:
        f.write(b"+ 1.0 0 2 tcp 1000 ---\r---- 1 0.0 4.0 7 3\r\n")  # a stray "\r" in flags, and CRLF
        f.write(b"+ 1.0 0 2 tcp 1000 ------- 1 0.0 4.0 zz 3\n")
    assert cli.main(["plot", str(damaged), "--out", str(tmp_path / "out")]) == 2
    lines = len((folder / "trace.tr").read_text().splitlines())
    assert f"line {lines + 2}: seq 'zz'" in capsys.readouterr().err


def test_a_series_without_the_columns_drawn_is_refused(folder, tmp_path, capsys):
    damaged = tmp_path / "run"
    shutil.copytree(folder, damaged, ignore=shutil.ignore_patterns("plots"))
    (damaged / "series-flows.parquet").unlink()
    (damaged / "series-flows.csv").write_text("time,flow,goodput\n0.1,A,5\n")
    assert cli.main(["report", str(damaged), "--out", str(tmp_path / "page.html")]) == 2
    assert f"{damaged / 'series-flows.csv'}: goodput_bps: missing" in capsys.readouterr().err


def test_a_report_never_overwrites_what_is_not_a_page(folder, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(folder, run)
    summary = (run / "summary.json").read_bytes()
    assert cli.main(["report", str(run), "--out", str(run / "summary.json")]) == 2
    assert capsys.readouterr().err.startswith(f"tcplab: error: --out: {run / 'summary.json'} exists and is not a page")
    assert (run / "summary.json").read_bytes() == summary
    assert cli.main(["report", str(run), "--out", str(tmp_path / "page.html")]) == 0
    assert cli.main(["report", str(run), "--out", str(tmp_path / "page.html")]) == 0, "a page is written again"


def test_a_figure_that_cannot_be_written_is_named(folder, tmp_path, capsys):
    figures = tmp_path / "figures"
    (figures / "cwnd.png").mkdir(parents=True)  # a folder where the figure would go
    assert cli.main(["plot", str(folder), "--out", str(figures)]) == 2
    assert capsys.readouterr().err.startswith(f"tcplab: error: --out: cannot write {figures / 'cwnd.png'}")
