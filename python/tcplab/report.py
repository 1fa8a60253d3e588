"""The report page of one run: `tcplab report RESULT_DIR` writes RESULT_DIR/report.html, one
self-contained file (its script, style and data inline; nothing fetched) with

- the summary tables (flows, links);
- interactive charts (hover for values, click a legend entry to hide a line): cwnd and
  ssthresh, goodput, data delivered, queues, segments sent with retransmissions and drops, and
  the one-way delay distribution, as far as the folder's files allow (see tcplab.plot);
- the network drawn with a time slider: each link direction's utilisation (colour), queue fill
  (bar) and packets on the wire, at every `output.interval` sample: the view NAM gives.

A study's report (tcplab.studies) is the same page with other sections.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import tcplab
from tcplab import ScenarioError, plot

ASSETS = Path(__file__).with_name("report_assets")
MAX_POINTS = 4000  # per chart line: enough for a screen, small enough for a page
# The page's data as JSON inside its <script>: names are the user's, and "</script>" or "<!--"
# in one would end the element early or make the parser swallow the rest of the page, so no
# "<", ">" or "&" is left as it is (JSON.parse reads \u003c as "<"); nor the line separators
# older JavaScript parsers took for line ends.
_SCRIPT_SAFE = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}


def report(result_dir: str | Path, out: str | Path | None = None) -> Path:
    """Writes the report page of the run in `result_dir`; returns its path."""
    with tcplab._holding(result_dir, str(result_dir), shared=True):  # not while a run writes it
        run = plot.RunFolder(result_dir)
        out = Path(out) if out is not None else run.path / "report.html"
        if out.exists() and out.suffix.lower() not in (".html", ".htm"):  # the run's summary.json, say
            raise ScenarioError("--out", f"{out} exists and is not a page (.html): it is left as it is")
        page = render(page_data(run))
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as e:
            raise ScenarioError("--out", f"cannot write {out}: {e.strerror or e}") from None
    return out


def render(data: dict) -> str:
    """The page: the shared style and script, and `data` for them to show: its `title`, `meta`
    and `notes` lines, then its `sections` in order, each a dict with a `kind`:

    - heading (text), paragraph (text);
    - table (title, columns, rows; id for the element);
    - chart (id, title, xlabel, ylabel, series: name, x, y, and `step`, `dash` or `points`:
      "dot", "cross" or "ring");
    - svg (svg: a figure's markup, inlined);
    - claims (items: text, verdict, detail);
    - topology (nodes, links, times, state: see `topology`)."""
    title = data["title"]
    style = (ASSETS / "report.css").read_text()
    script = (ASSETS / "report.js").read_text()
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).translate(_SCRIPT_SAFE)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{style}</style></head>\n<body>\n"
        f"<script id=\"data\" type=\"application/json\">{payload}</script>\n"
        f"<script>{script}</script>\n</body></html>\n"
    )


def page_data(run: plot.RunFolder) -> dict:
    s = run.summary
    topo = topology(run)
    notes = []
    if topo is None:
        notes.append("No scenario.json: the network is not drawn (run with tcplab run --out).")
    elif not topo["times"]:
        notes.append("The network's time slider needs samples: set output.interval.")
    if run.trace() is None:
        notes.append("Segments sent and the delay distribution need the ns-2 trace (--trace ns2).")
    meta = [f"seed {s.get('seed')}", f"{s.get('duration_s'):g} s simulated"]
    if s.get("jain_fairness") is not None:
        meta.append(f"Jain's fairness {s['jain_fairness']:.6g}")
    sections = []
    if topo is not None:
        sections += [{"kind": "heading", "text": "Network"}, {"kind": "topology", **topo}]
    over_time = charts(run)
    if over_time:
        sections += [{"kind": "heading", "text": "Over time"}] + [{"kind": "chart", **c} for c in over_time]
    for title, rows in (("Flows", s.get("flows", [])), ("Links", s.get("links", []))):
        if rows:
            sections += [{"kind": "heading", "text": title}, table(title.lower(), rows)]
    return {"title": f"tcplab: {s['name']}", "meta": [" · ".join(meta)], "notes": notes, "sections": sections}


def table(id: str, rows: list[dict], title: str = "") -> dict:
    """A table section of `rows` (dicts with the same keys)."""
    columns = list(rows[0]) if rows else []
    return {"kind": "table", "id": id, "title": title, "columns": columns,
            "rows": [[_cell(r.get(c)) for c in columns] for r in rows]}


def _cell(v):
    if isinstance(v, float):
        return None if not math.isfinite(v) else float(f"{v:.6g}")
    return v if isinstance(v, (int, str, type(None))) else json.dumps(v)


def _thin(xs, ys) -> tuple[list, list]:
    """At most MAX_POINTS of a line, evenly spaced, the last kept."""
    xs, ys = list(xs), list(ys)
    step = max(1, math.ceil(len(xs) / MAX_POINTS))
    keep = list(range(0, len(xs), step))
    if keep and keep[-1] != len(xs) - 1:
        keep.append(len(xs) - 1)
    return [float(f"{xs[i]:.9g}") for i in keep], [float(f"{ys[i]:.6g}") for i in keep]


def lines(frame, x: str, y: str, by: str, suffix: str = "", **style) -> list[dict]:
    """Chart series of `frame`, one per value of column `by` (named after it, with `suffix`)."""
    out = []
    for name, rows in frame.groupby(by, sort=False):
        xs, ys = _thin(rows[x], rows[y])
        out.append({"name": f"{name}{suffix}", "x": xs, "y": ys, **style})
    return out


def charts(run: plot.RunFolder) -> list[dict]:
    """The interactive charts the folder's files allow."""
    out = []
    cwnd = run.series("cwnd")
    step = cwnd is not None
    if cwnd is None:
        cwnd = run.series("tcp")
    if cwnd is not None and not cwnd.empty:
        top = float(cwnd["cwnd"].max()) * 1.3 or 1.0
        capped = cwnd.assign(ssthresh=cwnd["ssthresh"].clip(upper=top))
        out.append({"id": "cwnd", "title": "cwnd and ssthresh", "xlabel": "time (s)", "ylabel": "segments",
                    "series": lines(capped, "time", "cwnd", "flow", " cwnd", step=step)
                    + lines(capped, "time", "ssthresh", "flow", " ssthresh", step=step, dash=True)})
    flows = run.series("flows")
    if flows is not None and not flows.empty:
        flows = flows.assign(mbps=flows["goodput_bps"] / 1e6, mb=flows["delivered_bytes"] / 1e6)
        out.append({"id": "goodput", "title": "Goodput per interval", "xlabel": "time (s)", "ylabel": "Mb/s",
                    "series": lines(flows, "time", "mbps", "flow", step=True)})
        out.append({"id": "delivered", "title": "Data delivered", "xlabel": "time (s)", "ylabel": "MB",
                    "series": lines(flows, "time", "mb", "flow")})
    links = run.series("links")
    if links is not None and not links.empty:
        busy = links.groupby("link")["queue_pkts"].max()
        queued = links[links["link"].isin(busy[busy > 0].index)]
        if not queued.empty:
            out.append({"id": "queue", "title": "Queue length", "xlabel": "time (s)", "ylabel": "packets",
                        "series": lines(queued, "time", "queue_pkts", "link")})
    trace = run.trace()
    if trace is not None:
        seq = []
        for f in run.tcp_flows():
            sent, dropped = plot.segments(trace, f)
            for part, name, mark in ((sent[~sent["retransmitted"]], "sent", "dot"),
                                     (sent[sent["retransmitted"]], "retransmitted", "cross"),
                                     (dropped, "dropped", "ring")):
                if len(part):
                    xs, ys = _thin(part["time"], part["seq"])
                    seq.append({"name": f"{f['name']} {name}", "x": xs, "y": ys, "points": mark})
        if seq:
            out.append({"id": "sequence", "title": "Segments sent", "xlabel": "time (s)", "ylabel": "segment",
                        "series": seq})
        delays = plot.one_way_delays(run)
        if delays:
            cdf = []
            for name, d in delays.items():
                xs, ys = _thin(d * 1e3, [(i + 1) / len(d) for i in range(len(d))])
                cdf.append({"name": name, "x": xs, "y": ys, "step": True})
            out.append({"id": "delay", "title": "One-way delay distribution", "xlabel": "delay (ms)",
                        "ylabel": "fraction of packets", "series": cdf})
    return out


def layout(n: int, edges: list[tuple[int, int]], iterations: int = 300) -> list[tuple[float, float]]:
    """Node positions in [0, 1]^2 by a spring embedding (Fruchterman-Reingold) from a fixed
    start on a circle: the same graph always gets the same picture."""
    import numpy as np

    if n == 0:
        return []
    angle = 2 * np.pi * np.arange(n) / n
    pos = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    k, temp = np.sqrt(4.0 / n), 0.2
    a, b = (np.array([e[i] for e in edges], dtype=int) for i in (0, 1))
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.maximum(np.linalg.norm(delta, axis=2), 1e-6)
        disp = (delta / dist[..., None] * (k * k / dist)[..., None]).sum(axis=1)  # all repel
        if len(edges):
            pull = pos[a] - pos[b]
            d = np.maximum(np.linalg.norm(pull, axis=1), 1e-6)
            force = pull * (d / k)[:, None]  # linked nodes attract
            np.add.at(disp, a, -force)
            np.add.at(disp, b, force)
        length = np.maximum(np.linalg.norm(disp, axis=1), 1e-9)
        pos += disp / length[:, None] * np.minimum(length, temp)[:, None]
        temp = max(temp * 0.98, 0.002)
    pos -= pos.min(axis=0)
    pos /= max(pos.max(), 1e-9)
    return [(float(x), float(y)) for x, y in pos]


def topology(run: plot.RunFolder) -> dict | None:
    """Nodes, links and, per sample time, each link direction's queue, packets on the wire and
    utilisation (the links series); None without scenario.json."""
    sc = run.scenario
    if sc is None:
        return None
    nodes = sc["nodes"]
    edges = [(link["from"], link["to"]) for link in sc["links"]]
    pos = layout(len(nodes), edges)
    links = []
    for link in sc["links"]:
        a, b = link["from"], link["to"]
        links.append({"a": a, "b": b, "rate_bps": link["bandwidth_bps"], "delay_s": link["delay_s"],
                      "dirs": [{"name": f"{nodes[a]}->{nodes[b]}", "limit": link["queue"]["limit"]},
                               {"name": f"{nodes[b]}->{nodes[a]}", "limit": link["reverse_limit"]}]})
    frame = run.series("links")
    times, state = [], {}
    if frame is not None and not frame.empty and "utilization" in frame:
        times = sorted(set(frame["time"].tolist()))
        for name, rows in frame.groupby("link", sort=False):
            state[name] = {"queue": rows["queue_pkts"].tolist(), "wire": rows["in_flight_pkts"].tolist(),
                           "util": [round(u, 4) for u in rows["utilization"].tolist()]}
    return {"nodes": [{"name": nm, "x": round(x, 4), "y": round(y, 4)} for nm, (x, y) in zip(nodes, pos)],
            "links": links, "times": times, "state": state}
