"""The standard figures of one run, from its result folder (what `tcplab run --out DIR` writes).

    tcplab plot DIR

writes DIR/plots/NAME.png and .svg for each figure its files allow (series-NAME.parquet or
.csv, trace.tr, scenario.json):

- cwnd:       cwnd and ssthresh against time (the cwnd series, every change, from the cwnd
              trace; else the tcp series, sampled at `output.interval`);
- sequence:   each TCP flow's segments against time as they leave the sender, retransmissions
              and drops marked (trace.tr, the ns-2 trace);
- throughput: goodput per interval and data delivered (the flows series);
- queue:      queue length of every link direction that queued anything (the links series);
- delay:      the distribution of one-way packet delays per flow (trace.tr).
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import tcplab
from tcplab import ScenarioError

FIGURES = ("cwnd", "sequence", "throughput", "queue", "delay")


def pyplot():
    """matplotlib's pyplot without a display, or None when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: smaller, searchable
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save(plt, fig, stem: Path) -> list[str]:
    """Writes `fig` as stem.png and stem.svg; returns the file names."""
    names = []
    try:
        for ext in ("png", "svg"):
            p = stem.with_name(f"{stem.name}.{ext}")
            fig.savefig(p, dpi=120)
            names.append(p.name)
    except OSError as e:  # a folder that cannot be written to, a full disk
        raise ScenarioError("--out", f"cannot write {p}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
    return names


def _text(v) -> bool:
    return isinstance(v, str)


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _number(v) -> bool:
    return (isinstance(v, float) and math.isfinite(v)) or _whole(v)


def _rows(v) -> bool:
    return isinstance(v, list) and all(isinstance(row, dict) for row in v)


def _first_bad(doc: dict, fields: dict, at: str = "") -> str | None:
    """The path of the first of `fields` (name: test) that `doc` lacks or fails, if any."""
    return next((f"{at}{name}" for name, ok in fields.items() if not ok(doc.get(name))), None)


# What the figures and the report page read of a folder's JSON files, checked when it is opened:
# a file damaged or from elsewhere is refused naming the field, not met half-way through a page.
SUMMARY_FIELDS = {"name": _text, "seed": _whole, "duration_s": _number, "flows": _rows, "links": _rows,
                  "jain_fairness": lambda v: v is None or _number(v)}


def _scenario_problem(sc: dict) -> str | None:
    nodes = sc.get("nodes")
    if not (isinstance(nodes, list) and all(map(_text, nodes))):
        return "nodes"
    for table in ("links", "flows"):
        if not _rows(sc.get(table)):
            return table

    def node(v) -> bool:
        return _whole(v) and 0 <= v < len(nodes)

    link = {"from": node, "to": node, "bandwidth_bps": _number, "delay_s": _number, "reverse_limit": _whole,
            "queue": lambda q: isinstance(q, dict) and _whole(q.get("limit"))}
    flow = {"name": _text, "fid": _whole, "from": node, "to": node}
    for table, fields in (("links", link), ("flows", flow)):
        for i, row in enumerate(sc[table]):
            if bad := _first_bad(row, fields, f"{table}[{i}]."):
                return bad
    return None


# The columns of each series the figures and the page draw: numbers, but for the names.
SERIES_COLUMNS = {"cwnd": ("time", "flow", "cwnd", "ssthresh"), "tcp": ("time", "flow", "cwnd", "ssthresh"),
                  "flows": ("time", "flow", "goodput_bps", "delivered_bytes"),
                  "links": ("time", "link", "queue_pkts")}
NAME_COLUMNS = ("flow", "link")


class RunFolder:
    """The files of one run's result folder, read on demand. A file that is not as `tcplab run`
    writes it is a ScenarioError naming it (and the field, or the line)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not (self.path / "summary.json").is_file():
            raise ScenarioError(str(path), "has no summary.json (give a folder written by `tcplab run --out`)")
        self.summary = self._json("summary.json", lambda doc: _first_bad(doc, SUMMARY_FIELDS))
        self.scenario = self._json("scenario.json", _scenario_problem) if (self.path / "scenario.json").is_file() else None
        self._trace = None

    def _json(self, name: str, problem) -> dict:
        file = str(self.path / name)

        def finite(constant: str):
            raise ValueError(f"{constant} is not a number JSON allows")

        try:
            doc = json.loads(tcplab._read_file(file).text, parse_constant=finite)
        except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
            raise ScenarioError(file, f"not valid JSON: {e}") from None
        if not isinstance(doc, dict):
            raise ScenarioError(file, "not a JSON object, as tcplab run writes it")
        if bad := problem(doc):
            raise ScenarioError(file, f"{bad}: missing or not as tcplab run writes it")
        return doc

    def series(self, name: str):
        """series-NAME.parquet (or .csv) as a DataFrame, or None."""
        import pandas as pd

        parquet, csv = self.path / f"series-{name}.parquet", self.path / f"series-{name}.csv"
        file, read = (parquet, pd.read_parquet) if parquet.is_file() else (csv, pd.read_csv)
        if not file.is_file():
            return None
        try:
            frame = read(file)
        except Exception as e:  # noqa: BLE001 - whatever the parser raises, the file is damaged
            raise ScenarioError(str(file), f"cannot be read as tcplab run writes it: {e}") from None
        for column in SERIES_COLUMNS.get(name, ()):
            numbers = column in NAME_COLUMNS or frame.empty or pd.api.types.is_numeric_dtype(frame.get(column))
            if column not in frame or not numbers:
                raise ScenarioError(str(file), f"{column}: missing or not as tcplab run writes it")
        return frame

    def trace(self):
        """The wired events of trace.tr as a DataFrame (ev, time, src/dst node of the link,
        type, size, fid, seq, uid, packet's source and destination node), or None."""
        if self._trace is None and (self.path / "trace.tr").is_file():
            self._trace = read_trace(self.path / "trace.tr")
        return self._trace

    def tcp_flows(self) -> list[dict]:
        """The TCP flows of the scenario (name, fid, source and destination node ids)."""
        if self.scenario is None:
            return []
        return [{"name": f["name"], "fid": f["fid"], "from": f["from"], "to": f["to"]}
                for f in self.scenario["flows"] if f.get("transport") == "tcp"]


def read_trace(path: Path):
    """Wired-trace lines (`+ - r d`) of an ns-2 trace; wireless and event lines are skipped. A
    wired line whose numbers are not numbers is a ScenarioError naming its line."""
    import pandas as pd

    import io

    names = ["ev", "time", "a", "b", "type", "size", "flags", "fid", "src", "dst", "seq", "uid"]
    wired = re.compile(r"^[-+rd] \S+ \d+ \d+ ")  # wireless lines have _node_ there
    kept, numbers = [], []  # each wired line's number in the file, and its first 12 fields
    try:
        # Lines end at "\n" alone, so that the numbers are the editor's; a stray "\r" stays in
        # its field, and a line ending "\r\n" loses both.
        with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
            for n, line in enumerate(f, 1):
                if wired.match(line):
                    kept.append(n)
                    numbers.append(" ".join(line.rstrip("\r\n").split(" ", 12)[:12]))
    except OSError as e:
        raise ScenarioError(str(path), f"cannot be read: {e.strerror or e}") from None
    # quotes and "\r" are characters, not quoting and line ends
    raw = pd.read_csv(io.StringIO("\n".join(numbers) + "\n"), sep=" ", header=None, names=names, dtype=str,
                      keep_default_na=False, quoting=csv.QUOTE_NONE, lineterminator="\n")
    out = {name: raw[name] for name in ("ev", "type")}
    for name in ("time", "a", "b", "size", "fid", "seq", "uid", "src", "dst"):
        text = raw[name].str.split(".").str[0] if name in ("src", "dst") else raw[name]  # the node of N.port
        value = pd.to_numeric(text, errors="coerce")
        bad = value.isna() | (value.abs() >= 2**53)
        if bad.any():
            i = int(bad.to_numpy().argmax())
            token = raw[name].iloc[i]
            shown = repr(token if len(token) <= 40 else token[:40] + "...")
            raise ScenarioError(str(path), f"line {kept[i]}: {name} {shown} is not as tcplab writes it")
        out[name] = value.astype(float if name == "time" else "int64")
    return pd.DataFrame(out)[["ev", "time", "a", "b", "type", "size", "fid", "seq", "uid", "src", "dst"]]


def plot(result_dir: str | Path, out: str | Path | None = None) -> tuple[list[Path], dict[str, str]]:
    """Draws every figure the folder's files allow into `out` (default RESULT_DIR/plots).
    Returns the files written and, for each figure left out, why."""
    with tcplab._holding(result_dir, str(result_dir), shared=True):  # not while a run writes it
        run = RunFolder(result_dir)
        plt = pyplot()
        if plt is None:
            raise ScenarioError("plot", "needs matplotlib (pip install matplotlib)")
        out = Path(out) if out is not None else run.path / "plots"
        tcplab._make_out_dir(out)
        written, skipped = [], {}
        for name in FIGURES:
            why = globals()[f"_{name}"](run, plt, out / name)
            if isinstance(why, str):
                skipped[name] = why
            else:
                written += [out / f for f in why]
    return written, skipped


def _by_flow(ax, frame, x: str, y: str, label: str = "", **style):
    for flow, rows in frame.groupby("flow", sort=False):
        ax.plot(rows[x], rows[y], label=f"{flow}{label}", **style)


def _cwnd(run: RunFolder, plt, stem: Path):
    changes, sampled = run.series("cwnd"), run.series("tcp")
    frame = changes if changes is not None else sampled
    if frame is None or frame.empty:
        return "needs the cwnd trace (--trace cwnd) or output.interval"
    fig, ax = plt.subplots(figsize=(8, 4))
    step = {"drawstyle": "steps-post"} if changes is not None else {}
    _by_flow(ax, frame, "time", "cwnd", " cwnd", **step)
    _by_flow(ax, frame, "time", "ssthresh", " ssthresh", linestyle="--", alpha=0.7, **step)
    top = frame["cwnd"].max()
    ax.set_ylim(0, top * 1.3 if top > 0 else 1)  # ssthresh starts out near infinite
    ax.set(xlabel="time (s)", ylabel="segments", title=f"{run.summary['name']}: cwnd and ssthresh")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return save(plt, fig, stem)


def segments(trace, flow: dict):
    """A TCP flow's segments as they leave its sender (time, seq, retransmitted: a seqno not
    above one sent before), and its segments dropped anywhere (time, seq)."""
    data = trace[(trace["fid"] == flow["fid"]) & (trace["type"] == "tcp") & (trace["src"] == flow["from"])]
    sent = data[(data["ev"] == "-") & (data["a"] == flow["from"])]
    sent = sent.assign(retransmitted=sent["seq"] <= sent["seq"].cummax().shift(fill_value=-1))
    return sent[["time", "seq", "retransmitted"]], data[data["ev"] == "d"][["time", "seq"]]


def _sequence(run: RunFolder, plt, stem: Path):
    trace, flows = run.trace(), run.tcp_flows()
    if trace is None or not flows:
        return "needs the ns-2 trace (--trace ns2) of a run with TCP flows"
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for f in flows:
        sent, dropped = segments(trace, f)
        if sent.empty:
            continue
        again = sent["retransmitted"]
        line, = ax.plot(sent["time"][~again], sent["seq"][~again], ".", markersize=2, label=f"{f['name']} sent")
        ax.plot(sent["time"][again], sent["seq"][again], "x", color=line.get_color(), markersize=5,
                label=f"{f['name']} retransmitted")
        ax.plot(dropped["time"], dropped["seq"], "o", mfc="none", color="black", markersize=5,
                label=f"{f['name']} dropped")
    ax.set(xlabel="time (s)", ylabel="segment", title=f"{run.summary['name']}: segments sent")
    ax.legend(fontsize=7, markerscale=2)
    fig.tight_layout()
    return save(plt, fig, stem)


def _throughput(run: RunFolder, plt, stem: Path):
    flows = run.series("flows")
    if flows is None or flows.empty:
        return "needs output.interval"
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    flows = flows.assign(goodput_mbps=flows["goodput_bps"] / 1e6, delivered_mb=flows["delivered_bytes"] / 1e6)
    _by_flow(top, flows, "time", "goodput_mbps", drawstyle="steps-pre")
    top.set(ylabel="goodput (Mb/s)", title=f"{run.summary['name']}: throughput")
    _by_flow(bottom, flows, "time", "delivered_mb")
    bottom.set(xlabel="time (s)", ylabel="delivered (MB)")
    top.legend(fontsize=7)
    fig.tight_layout()
    return save(plt, fig, stem)


def _queue(run: RunFolder, plt, stem: Path):
    links = run.series("links")
    if links is None or links.empty:
        return "needs output.interval"
    busy = links.groupby("link")["queue_pkts"].max()
    busy = busy[busy > 0].index
    if busy.empty:
        return "no link queued any packet at the sample times"
    fig, ax = plt.subplots(figsize=(8, 4))
    for link in busy:
        rows = links[links["link"] == link]
        ax.plot(rows["time"], rows["queue_pkts"], label=link)
    ax.set(xlabel="time (s)", ylabel="packets waiting", title=f"{run.summary['name']}: queues")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(plt, fig, stem)


def one_way_delays(run: RunFolder) -> dict[str, "object"]:
    """Per TCP or UDP flow: each delivered data packet's delay from entering the network at its
    source to arriving at its destination (trace.tr), in seconds."""
    trace = run.trace()
    if trace is None or run.scenario is None:
        return {}
    out = {}
    for f in run.scenario["flows"]:
        data = trace[(trace["fid"] == f["fid"]) & trace["type"].isin(["tcp", "cbr"])]
        left = data[(data["ev"] == "+") & (data["a"] == f["from"])].drop_duplicates("uid").set_index("uid")["time"]
        came = data[(data["ev"] == "r") & (data["b"] == f["to"])].drop_duplicates("uid").set_index("uid")["time"]
        delays = (came - left.reindex(came.index)).dropna()
        if len(delays):
            out[f["name"]] = delays.sort_values().to_numpy()
    return out


def _delay(run: RunFolder, plt, stem: Path):
    delays = one_way_delays(run)
    if not delays:
        return "needs the ns-2 trace (--trace ns2) of a run that delivered packets"
    fig, ax = plt.subplots(figsize=(8, 4))
    for name, d in delays.items():
        ax.plot(d * 1e3, [(i + 1) / len(d) for i in range(len(d))], drawstyle="steps-post", label=name)
    ax.set(xlabel="one-way delay (ms)", ylabel="fraction of packets", ylim=(0, 1.02),
           title=f"{run.summary['name']}: delay distribution")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(plt, fig, stem)
