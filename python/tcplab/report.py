"""The report page of one run: `tcplab report RESULT_DIR` writes RESULT_DIR/report.html, one
self-contained file (its script, style and data inline; nothing fetched) with

- a warning naming flows that delivered nothing or were starved (below 1% of their fair share);
- the summary tables (flows, links) in kb/s, ms, packets and %, each column defined;
- interactive charts (hover for values, click a legend entry to hide a line, zoom, pan,
  download): cwnd and ssthresh, goodput, data delivered, queues, segments sent with
  retransmissions and drops, and the one-way delay distribution, as far as the folder's files
  allow (see tcplab.plot), each flow in one colour throughout;
- the network drawn in layers, with a time slider and play/pause: each link direction's
  utilisation (colour), queue fill (bar) and packets on the wire, at every `output.interval`
  sample: the view NAM gives.

A study's report (tcplab.studies) is the same page with other sections.
"""

from __future__ import annotations

import html
import json
import math
import os
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
        page = render(page_data(run, metrics_href(out)))
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as e:
            raise ScenarioError("--out", f"cannot write {out}: {e.strerror or e}") from None
    return out


def metrics_href(out: Path) -> str | None:
    """docs/metrics.md of the source tree tcplab runs from, relative to the page at `out` (a study's
    committed page finds it in the same tree); None where tcplab runs from an installed wheel."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    if not docs.is_dir():
        return None
    return Path(os.path.relpath(docs / "metrics.md", out.resolve().parent)).as_posix()


def render(data: dict) -> str:
    """The page: the shared style and script, and `data` for them to show: its `title`, `meta`
    and `notes` lines, `warnings` (shown boxed on top), `flows` (flow names: flow i takes the
    i-th colour), then its `sections` in order, each a dict with a `kind`:

    - heading (text), paragraph (text; `warning`: true draws it as a warning box);
    - table (title, columns, rows; id for the element), and optionally:
      `titles`: each column's definition, its header's tooltip;
      `groups`: [[label, span], ...], a header row above `columns` whose spans add up to the
      column count (columns grouped by environment: ["E/E", 4] over paper | tcplab | Δ | ns-2);
      `deltas`: indices of columns of differences ("+1.25%"), coloured by their size: |Δ| ≤ 1%
      green, ≤ 5% amber, above red (a light background, dark text of the same hue);
      `notes`: lines of small print under the table;
    - chart (id, title, xlabel, ylabel, series: name, x, y, and `step`, `dash` or `points`:
      "dot", "cross" or "ring"; `group`: series of one group (a flow) share a colour on the
      whole page, and a series without one is its own group); every chart zooms (drag a box,
      the wheel on x), pans (shift+drag), resets and downloads as SVG or PNG;
    - svg (svg: a figure's markup, inlined);
    - claims (items: text, verdict, detail);
    - definitions (items: [term, text]; href: where docs/metrics.md is, or None);
    - topology (orient, nodes with layer and rank, links, times, state: see `topology`)."""
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


def page_data(run: plot.RunFolder, metrics_href: str | None = None) -> dict:
    """The sections of a run's page; `metrics_href` is where docs/metrics.md is from the page."""
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
        meta.append(f"Jain's fairness {s['jain_fairness']:.3f}")
    flows = s.get("flows", [])
    shares = fair_shares(run.scenario, s.get("duration_s", 0)) if run.scenario else {}
    sections = []
    if topo is not None:
        sections += [{"kind": "heading", "text": "Network"}, {"kind": "topology", **topo}]
    over_time = charts(run)
    if over_time:
        sections += [{"kind": "heading", "text": "Over time"}] + [{"kind": "chart", **c} for c in over_time]
    if flows:
        sections += [{"kind": "heading", "text": "Flows"}, flow_table(flows, shares)]
    if s.get("links"):
        sections += [{"kind": "heading", "text": "Links"}, link_table(s["links"])]
    if flows or s.get("links"):
        sections += [{"kind": "heading", "text": "What the numbers mean"},
                     {"kind": "definitions", "href": metrics_href,
                      "items": [[h.replace("|", ": "), d] for _, h, _, d in FLOW_COLUMNS + LINK_COLUMNS] + [
                          ["fair share (kb/s)", FAIR_SHARE], ["Jain's fairness", JAIN]]}]
    return {"title": f"tcplab: {s['name']}", "meta": [" · ".join(meta)], "notes": notes,
            "warnings": starved(flows, shares), "flows": [f["name"] for f in flows], "sections": sections}


# The summary's columns as the page shows them: (key, header with its unit, value -> shown, definition);
# "group|header" puts the header under a group's (and the group says the unit).
# The definitions say what crates/net (metrics.rs, sim.rs) counts; docs/metrics.md says it at length.
_KBPS, _MS, _PCT = (lambda v: round(v / 1e3, 1)), (lambda v: round(v * 1e3, 2)), (lambda v: round(v * 100, 1))
_ACTIVE = "over the flow's active time: from its start to its stop, or to the end of the run"
FLOW_COLUMNS = [
    ("name", "flow", None, "The flow's name in the scenario."),
    ("protocol", "protocol", None, "The TCP variant, or udp for a constant-bit-rate source."),
    ("goodput_bps", "goodput (kb/s)", _KBPS,
     "New application bytes handed to the receiving application in order (duplicates and headers not "
     f"counted), × 8, {_ACTIVE}."),
    ("throughput_bps", "throughput (kb/s)", _KBPS,
     f"Bytes on the wire (headers and duplicates included) of the data packets that reached the receiver, × 8, {_ACTIVE}."),
    ("delay_mean_s", "one-way delay (ms)|mean", _MS,
     "Mean one-way delay of the delivered data packets: from the sender's timestamp to the arrival at the receiving agent."),
    ("delay_p50_s", "one-way delay (ms)|p50", _MS, "Median one-way delay (nearest rank) of the delivered data packets."),
    ("delay_p95_s", "one-way delay (ms)|p95", _MS, "95th percentile (nearest rank) of the one-way delay."),
    ("delay_p99_s", "one-way delay (ms)|p99", _MS, "99th percentile (nearest rank) of the one-way delay."),
    ("delay_max_s", "one-way delay (ms)|max", _MS, "Largest one-way delay of a delivered data packet."),
    ("rtt_mean_s", "RTT mean (ms)", _MS,
     "Mean of the TCP sender's RTT samples as its estimator takes them; blank without any (UDP, or no ACK timed)."),
    ("packets_sent", "data packets|sent", None,
     "Data packets the sender sent: TCP segments (the SYN and retransmissions included) or CBR packets."),
    ("packets_delivered", "data packets|delivered", None, "Data packets that reached the receiving agent, duplicates included."),
    ("packets_dropped", "data packets|dropped", None, "Data packets lost on the way: queue overflows and error models."),
    ("packets_retransmitted", "data packets|retransmitted", None, "Segments the TCP sender sent again."),
    ("packets_in_flight", "data packets|in flight", None, "Data packets still in the network at the end: sent − delivered − dropped."),
    ("efficiency", "efficiency (%)", _PCT, "Data packets delivered ÷ data packets sent (0 when none was sent)."),
    ("acks_sent", "ACKs sent (packets)", None, "ACKs the receiver sent."),
]
LINK_COLUMNS = [
    ("name", "link direction", None, "A link's one direction, sender -> receiver: each has its own queue."),
    ("arrivals", "arrivals (packets)", None, "Packets that came to the direction's queue."),
    ("departures", "departures (packets)", None, "Packets whose transmission on the link began."),
    ("drops", "drops (packets)", None, "Packets the queue (or the link's error model) dropped."),
    ("queue_mean_pkts", "queue mean (packets)", lambda v: round(v, 2),
     "Time-average of the packets waiting (the one being sent not counted) over the whole run."),
    ("queue_max_pkts", "queue max (packets)", None, "Most packets waiting at once."),
    ("utilization", "utilisation (%)", _PCT,
     "Share of the run the link spent transmitting (a transmission running past the end counts up to the end)."),
]
FAIR_SHARE = ("This page's own figure, not tcplab's: the flow's max-min fair share of the links on its "
              "(hop-count shortest) path, every flow sending all the run, a CBR flow asking no more than its rate.")
JAIN = "Jain's fairness index over all flows' goodputs, (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one takes all."
STARVED = 0.01  # a flow below this fraction of its fair share is called starved


def _shown(rows: list[dict], columns: list) -> tuple[list, list, list]:
    """Headers, their definitions and the rows of a summary table in human units; a key tcplab adds
    later and this page does not know yet is shown as it is, under its own name."""
    known = {k for k, *_ in columns}
    extra = [k for k in rows[0] if k not in known and k not in ("from", "to", "profile")]
    cols = [c for c in columns if c[0] in rows[0]] + [(k, k, None, "") for k in extra]
    out = []
    for r in rows:
        row = []
        for key, _, conv, _ in cols:
            v = r.get(key)
            if key == "rtt_mean_s" and not v:
                v = None  # no samples: an empty cell, not "0 ms"
            row.append(_cell(conv(v) if conv and isinstance(v, (int, float)) else v))
        out.append(row)
    return [h for _, h, _, _ in cols], [d for *_, d in cols], out


def _grouped(section: dict) -> dict:
    """A table whose "group|header" columns get a header row of the groups above them."""
    cols = section["columns"]
    if any("|" in c for c in cols):
        section["groups"] = []
        for c in cols:
            label = c.split("|")[0] if "|" in c else ""
            if section["groups"] and section["groups"][-1][0] == label:
                section["groups"][-1][1] += 1
            else:
                section["groups"].append([label, 1])
        section["columns"] = [c.split("|")[-1] for c in cols]
    return section


def flow_table(flows: list[dict], shares: dict) -> dict:
    """The flows table: human units, each header defined, and the fair share where it is known."""
    columns, titles, rows = _shown(flows, FLOW_COLUMNS)
    columns.insert(2, "path")
    titles.insert(2, "Where the flow's data goes: sender -> receiver.")
    for f, row in zip(flows, rows):
        row.insert(2, f"{f.get('from')} -> {f.get('to')}")
    if shares:
        at = columns.index("goodput (kb/s)") + 1
        columns.insert(at, "fair share (kb/s)")
        titles.insert(at, FAIR_SHARE)
        for f, row in zip(flows, rows):
            share = shares.get(f["name"])
            row.insert(at, None if share is None else round(share / 1e3, 1))
    return _grouped({"kind": "table", "id": "flows", "title": "", "columns": columns, "titles": titles, "rows": rows})


def link_table(links: list[dict]) -> dict:
    columns, titles, rows = _shown(links, LINK_COLUMNS)
    return {"kind": "table", "id": "links", "title": "", "columns": columns, "titles": titles, "rows": rows}


def paths(sc: dict) -> dict[str, list[tuple[int, int]]]:
    """Each flow's path as link directions (from, to): hop-count shortest, as tcplab routes, ties
    to the lower node number; flows over a wireless LAN (no wired path) are left out."""
    n = len(sc["nodes"])
    adj = [[] for _ in range(n)]
    for link in sc["links"]:
        adj[link["from"]].append(link["to"])
        adj[link["to"]].append(link["from"])
    out = {}
    for f in sc["flows"]:
        dist = [-1] * n  # hops to the destination, breadth first
        dist[f["to"]], todo = 0, [f["to"]]
        for v in todo:
            for w in adj[v]:
                if dist[w] < 0:
                    dist[w] = dist[v] + 1
                    todo.append(w)
        if dist[f["from"]] < 0:
            continue
        path, v = [], f["from"]
        while v != f["to"]:
            w = min(w for w in adj[v] if dist[w] == dist[v] - 1)
            path.append((v, w))
            v = w
        out[f["name"]] = path
    return out


def fair_shares(sc: dict, duration: float) -> dict[str, float]:
    """Each flow's max-min fair share in b/s (progressive filling): all flows' rates grow together
    until a link direction is full or a CBR flow reaches its rate; those flows keep that rate and the
    rest go on. Flows that never start within the run are left out."""
    capacity = {}
    for link in sc["links"]:
        capacity[(link["from"], link["to"])] = capacity[(link["to"], link["from"])] = float(link["bandwidth_bps"])
    demand = {f["name"]: f.get("rate_bps") or math.inf for f in sc["flows"] if f.get("start_s", 0) < duration}
    route = {k: v for k, v in paths(sc).items() if k in demand and v}
    rate, active = dict.fromkeys(route, 0.0), set(route)
    while active:
        users = {}
        for name in active:
            for hop in route[name]:
                users.setdefault(hop, []).append(name)
        left = {hop: capacity[hop] - sum(rate[f] for f in route if hop in route[f]) for hop in users}
        step = min([left[h] / len(users[h]) for h in users] + [demand[f] - rate[f] for f in active])
        for name in active:
            rate[name] += step
        full = {h for h in users if left[h] - step * len(users[h]) <= 1e-9 * capacity[h]}
        active = {f for f in active if demand[f] - rate[f] > 1e-9 * rate[f] and not full & set(route[f])}
    return rate


def starved(flows: list[dict], shares: dict) -> list[str]:
    """Warnings for flows that delivered nothing, or got less than STARVED of their fair share."""
    out = []
    # a flow that never started within the run (not in `shares`) has nothing to deliver yet
    nothing = [f["name"] for f in flows if not f.get("goodput_bps") and (not shares or f["name"] in shares)]
    if nothing:
        out.append(f"Delivered nothing: {', '.join(nothing)} (goodput 0 kb/s).")
    low = [f"{f['name']} ({f['goodput_bps'] / 1e3:.1f} kb/s of a fair share of {shares[f['name']] / 1e3:.1f} kb/s)"
           for f in flows if f.get("goodput_bps") and shares.get(f["name"])
           and f["goodput_bps"] < STARVED * shares[f["name"]]]
    if low:
        out.append(f"Starved (below {STARVED:.0%} of their max-min fair share): {', '.join(low)}.")
    return out


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


def lines(frame, x: str, y: str, by: str, suffix: str = "", until: float | None = None, **style) -> list[dict]:
    """Chart series of `frame`, one per value of column `by` (named after it, with `suffix`); the
    value is the series' `group` too: the page gives a group one colour in every chart. `until`:
    a log of changes (the cwnd trace writes a line only when cwnd moves) holds its last value
    to that time, so a window that settles does not look like a flow that stopped."""
    out = []
    for name, rows in frame.groupby(by, sort=False):
        xs, ys = _thin(rows[x], rows[y])
        if until is not None and xs and xs[-1] < until:
            xs, ys = xs + [float(until)], ys + [ys[-1]]
        out.append({"name": f"{name}{suffix}", "group": str(name), "x": xs, "y": ys, **style})
    return out


def charts(run: plot.RunFolder) -> list[dict]:
    """The interactive charts the folder's files allow."""
    out = []
    cwnd = run.series("cwnd")
    step = cwnd is not None
    end = run.summary["duration_s"] if step else None  # a log of changes holds to the run's end
    if cwnd is None:
        cwnd = run.series("tcp")
    if cwnd is not None and not cwnd.empty:
        top = float(cwnd["cwnd"].max()) * 1.3 or 1.0
        capped = cwnd.assign(ssthresh=cwnd["ssthresh"].clip(upper=top))
        out.append({"id": "cwnd", "title": "cwnd and ssthresh", "xlabel": "time (s)", "ylabel": "segments",
                    "series": lines(capped, "time", "cwnd", "flow", " cwnd", until=end, step=step)
                    + lines(capped, "time", "ssthresh", "flow", " ssthresh", until=end, step=step, dash=True)})
    flows = run.series("flows")
    if flows is not None and not flows.empty:
        flows = flows.assign(mbps=flows["goodput_bps"] / 1e6, mb=flows["delivered_bytes"] / 1e6)
        every = (run.scenario or {}).get("interval_s")
        out.append({"id": "goodput", "xlabel": "time (s)", "ylabel": "Mb/s",
                    "title": f"Goodput per {every:g} s interval" if every else "Goodput per interval",
                    "series": lines(flows, "time", "mbps", "flow", step=True)})
        out.append({"id": "delivered", "title": "Data delivered", "xlabel": "time (s)", "ylabel": "MB",
                    "series": lines(flows, "time", "mb", "flow")})
    links = run.series("links")
    if links is not None and not links.empty:
        busy = links.groupby("link")["queue_pkts"].max()
        queued = links[links["link"].isin(busy[busy > 0].index)]
        if not queued.empty:
            out.append({"id": "queue", "title": "Queue length", "xlabel": "time (s)", "ylabel": "packets",
                        "series": [{**q, "group": f"link {q['name']}"} for q in lines(queued, "time", "queue_pkts", "link")]})
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
                    seq.append({"name": f"{f['name']} {name}", "group": f["name"], "x": xs, "y": ys, "points": mark})
        if seq:
            out.append({"id": "sequence", "title": "Segments sent", "xlabel": "time (s)", "ylabel": "segment",
                        "series": seq})
        delays = plot.one_way_delays(run)
        if delays:
            cdf = []
            for name, d in delays.items():
                xs, ys = _thin(d * 1e3, [(i + 1) / len(d) for i in range(len(d))])
                cdf.append({"name": name, "group": name, "x": xs, "y": ys, "step": True})
            out.append({"id": "delay", "title": "One-way delay distribution", "xlabel": "delay (ms)",
                        "ylabel": "fraction of packets", "series": cdf})
    return out


def layout(n: int, edges: list[tuple[int, int]], routes: list[list[tuple[int, int]]]) -> tuple[str, list[int], list[int]]:
    """The network drawn in layers: (orientation, each node's layer, its rank within the layer).

    Where the flows' data crosses every link one way only ("lr"), the layers follow the data from
    left to right: a node's layer is its longest path from a source over the links the flows use,
    and a source sits just left of the first node it feeds, so a dumbbell keeps its senders left,
    its bottleneck in the middle and its receivers right, and a parking lot stays a line. Otherwise
    (data both ways, as in a tree whose leaves talk to each other: "tb") the layers go top to bottom
    by hops from the core, the node nearest to all others. Within a layer, nodes are ordered by the
    median rank of their neighbours in the layers before (and then after), busier nodes first among
    equals (a backbone stays straight), a few times over, which undoes most crossings. The same network always gets the same picture."""
    adj = [set() for _ in range(n)]
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    hops = {hop for route in routes for hop in route}
    layer = _flow_layers(n, hops) if hops and not any((b, a) in hops for a, b in hops) else None
    orient = "lr" if layer is not None else "tb"
    if layer is None:
        layer = _core_layers(n, adj)
    top = max([v for v in layer if v is not None], default=-1)
    todo = [v for v in range(n) if layer[v] is not None]
    for v in todo:  # nodes no flow crosses hang off a placed neighbour, outwards
        for w in sorted(adj[v]):
            if layer[w] is None:
                out = -1 if layer[v] * 2 <= top else 1
                layer[w] = layer[v] + out if 0 <= layer[v] + out <= top else layer[v] - out
                todo.append(w)
    layer = [top + 1 if v is None else v for v in layer]  # unlinked (radio) nodes: a layer of their own
    rank = _order(n, adj, layer)
    return orient, layer, rank


def _flow_layers(n: int, hops: set) -> list | None:
    """Longest path from a source over the directed `hops`, sources pulled right; None on a cycle."""
    succ, preds = [[] for _ in range(n)], [0] * n
    for a, b in sorted(hops):
        succ[a].append(b)
        preds[b] += 1
    on = {v for hop in hops for v in hop}
    layer = [None] * n
    ready = [v for v in sorted(on) if preds[v] == 0]
    for v in ready:
        layer[v] = layer[v] or 0
        for w in succ[v]:
            layer[w] = max(layer[w] or 0, layer[v] + 1)
            preds[w] -= 1
            if preds[w] == 0:
                ready.append(w)
    if len(ready) < len(on):
        return None
    for v in on:
        if all(b != v for _, b in hops):  # a source: next to what it feeds, not stuck at the left edge
            layer[v] = min(layer[w] for w in succ[v]) - 1
    return layer


def _core_layers(n: int, adj: list[set]) -> list:
    """Hops from the core: the node with the least eccentricity (ties: more links, then lower number)."""
    def bfs(root):
        dist = {root: 0}
        todo = [root]
        for v in todo:
            for w in sorted(adj[v]):
                if w not in dist:
                    dist[w] = dist[v] + 1
                    todo.append(w)
        return dist
    linked = [v for v in range(n) if adj[v]]
    if not linked:
        return [None] * n
    reach = {v: bfs(v) for v in linked}
    core = min(linked, key=lambda v: (-len(reach[v]), max(reach[v].values()), -len(adj[v]), v))
    return [reach[core].get(v) for v in range(n)]


def _order(n: int, adj: list[set], layer: list[int], sweeps: int = 4) -> list[int]:
    """Each node's rank within its layer, by median sweeps down and up the layers."""
    layers = [[v for v in range(n) if layer[v] == k] for k in range(max(layer, default=-1) + 1)]
    rank = [0] * n
    for nodes in layers:
        for i, v in enumerate(nodes):
            rank[v] = i
    for sweep in range(sweeps * 2):
        down = sweep % 2 == 0
        for nodes in layers[1:] if down else layers[-2::-1]:
            def centre(v):
                near = sorted(rank[w] for w in adj[v] if (layer[w] < layer[v] if down else layer[w] > layer[v]))
                return (near[(len(near) - 1) // 2] if near else rank[v], -len(adj[v]), rank[v])
            nodes.sort(key=centre)
            for i, v in enumerate(nodes):
                rank[v] = i
    return rank


def topology(run: plot.RunFolder) -> dict | None:
    """Nodes, links and, per sample time, each link direction's queue, packets on the wire and
    utilisation (the links series); None without scenario.json."""
    sc = run.scenario
    if sc is None:
        return None
    nodes = sc["nodes"]
    edges = [(link["from"], link["to"]) for link in sc["links"]]
    orient, layer, rank = layout(len(nodes), edges, list(paths(sc).values()))
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
    return {"orient": orient, "nodes": [{"name": nm, "layer": k, "rank": r} for nm, k, r in zip(nodes, layer, rank)],
            "links": links, "times": times, "state": state}
