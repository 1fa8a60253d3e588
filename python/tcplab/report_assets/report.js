// The report page of a run or a study (tcplab.report): draws the sections of the JSON in
// <script id="data"> in order. No libraries and nothing fetched: the page works offline.
"use strict";

const DATA = JSON.parse(document.getElementById("data").textContent);
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];

function el(tag, attrs = {}, parent = null, text = null) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function fmt(v) {
  if (v === null || v === undefined) return "";
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(3) : String(Number(v.toPrecision(6)));
}

// Round tick positions covering [lo, hi].
function ticks(lo, hi, n = 6) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw);
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

function header(root) {
  el("h1", {}, root, DATA.title);
  for (const line of DATA.meta || []) el("p", {class: "meta"}, root, line);
  for (const note of DATA.notes || []) el("p", {class: "note"}, root, note);
}

function table(root, t) {
  if (t.title) el("h3", {}, root, t.title);
  const table = el("table", {id: `table-${t.id}`}, root);
  const head = el("tr", {}, el("thead", {}, table));
  for (const c of t.columns) el("th", {}, head, c);
  const body = el("tbody", {}, table);
  const deltas = new Set(t.deltas || []);
  for (const r of t.rows) {
    const tr = el("tr", {}, body);
    r.forEach((v, i) => el("td", deltas.has(i) ? {class: off(v)} : {}, tr, fmt(v)));
  }
}

// A difference from the paper ("+1.25%") as a class: near (within 1%), off (5%), far.
function off(v) {
  const d = Math.abs(parseFloat(String(v)));
  return isNaN(d) ? "" : d <= 1 ? "near" : d <= 5 ? "off" : "far";
}

// A figure drawn elsewhere (matplotlib's SVG), inlined.
function figure(root, s) {
  const box = el("div", {class: "figure"}, root);
  box.innerHTML = s.svg;
}

function claims(root, s) {
  const list = el("ul", {class: "claims"}, root);
  for (const c of s.items) {
    const li = el("li", {}, list, `${c.text}: `);
    el("b", {class: c.verdict === "supported" ? "ok" : "no"}, li, c.verdict);
    li.appendChild(document.createTextNode(` (${c.detail})`));
  }
}

// One chart: lines (or points) of several series, hover readout, legend toggles.
function chart(root, c) {
  const box = el("div", {class: "chart", id: `chart-${c.id}`, style: "position: relative"}, root);
  el("h3", {}, box, c.title);
  const W = 1000, H = 320, L = 60, R = 15, T = 10, B = 40;
  const svg = el("svg:svg", {viewBox: `0 0 ${W} ${H}`, width: "100%"}, box);
  const all = c.series.filter(s => s.x.length);
  let x0 = Infinity, x1 = -Infinity, y0 = 0, y1 = -Infinity;
  for (const s of all) {
    for (const v of s.x) { x0 = Math.min(x0, v); x1 = Math.max(x1, v); }
    for (const v of s.y) { y0 = Math.min(y0, v); y1 = Math.max(y1, v); }
  }
  if (!isFinite(x0)) { x0 = 0; x1 = 1; }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  y1 += (y1 - y0) * 0.05;
  const sx = v => L + (v - x0) / (x1 - x0) * (W - L - R);
  const sy = v => H - B - (v - y0) / (y1 - y0) * (H - T - B);
  for (const t of ticks(x0, x1)) {
    el("svg:line", {x1: sx(t), x2: sx(t), y1: T, y2: H - B, class: "grid"}, svg);
    el("svg:text", {x: sx(t), y: H - B + 14, "text-anchor": "middle", class: "tick"}, svg, fmt(t));
  }
  for (const t of ticks(y0, y1, 5)) {
    el("svg:line", {x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: "grid"}, svg);
    el("svg:text", {x: L - 5, y: sy(t) + 3, "text-anchor": "end", class: "tick"}, svg, fmt(t));
  }
  el("svg:line", {x1: L, x2: L, y1: T, y2: H - B, class: "axis"}, svg);
  el("svg:line", {x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis"}, svg);
  el("svg:text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "tick"}, svg, c.xlabel);
  el("svg:text", {x: 12, y: (T + H - B) / 2, "text-anchor": "middle", class: "tick",
                  transform: `rotate(-90 12 ${(T + H - B) / 2})`}, svg, c.ylabel);
  const legend = el("div", {}, box);
  all.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const g = el("svg:g", {class: "series"}, svg);
    if (s.points) {
      let d = "";
      for (let k = 0; k < s.x.length; k++) {
        const px = sx(s.x[k]), py = sy(s.y[k]);
        d += s.points === "cross" ? `M${px - 3},${py - 3}L${px + 3},${py + 3}M${px - 3},${py + 3}L${px + 3},${py - 3}`
           : s.points === "ring" ? `M${px - 4},${py}a4,4 0 1,0 8,0a4,4 0 1,0 -8,0`
           : `M${px - 1},${py}h2`;
      }
      el("svg:path", {d, stroke: s.points === "ring" ? "#000" : colour, fill: "none",
                      "stroke-width": s.points === "dot" ? 2 : 1.2}, g);
    } else {
      let pts = [];
      for (let k = 0; k < s.x.length; k++) {
        if (s.step && k > 0) pts.push(`${sx(s.x[k])},${sy(s.y[k - 1])}`);
        pts.push(`${sx(s.x[k])},${sy(s.y[k])}`);
      }
      el("svg:polyline", {points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 1.4,
                          "stroke-dasharray": s.dash ? "5,3" : "none"}, g);
    }
    const item = el("span", {class: "legend"}, legend);
    el("span", {style: `color: ${colour}`}, item, "\u25A0 ");
    item.appendChild(document.createTextNode(s.name));
    item.addEventListener("click", () => {
      const off = item.classList.toggle("off");
      g.style.display = off ? "none" : "";
    });
  });
  // hover: a vertical rule and each series' value at the nearest sample before the pointer
  const rule = el("svg:line", {y1: T, y2: H - B, stroke: "#999", "stroke-dasharray": "3,3", visibility: "hidden"}, svg);
  const tip = el("div", {class: "tip"}, box);
  svg.addEventListener("mousemove", ev => {
    const r = svg.getBoundingClientRect();
    const px = (ev.clientX - r.left) / r.width * W;
    if (px < L || px > W - R) { rule.setAttribute("visibility", "hidden"); tip.style.display = "none"; return; }
    const xv = x0 + (px - L) / (W - L - R) * (x1 - x0);
    rule.setAttribute("x1", px); rule.setAttribute("x2", px); rule.setAttribute("visibility", "visible");
    const rows = [`${c.xlabel}: ${fmt(Number(xv.toPrecision(5)))}`];
    for (const s of all) {
      let lo = 0, hi = s.x.length - 1;
      if (!s.x.length || s.x[0] > xv) continue;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (s.x[mid] <= xv) lo = mid; else hi = mid - 1; }
      rows.push(`${s.name}: ${fmt(s.y[lo])}`);
    }
    tip.innerHTML = "";
    rows.forEach(t => el("div", {}, tip, t));
    tip.style.display = "block";
    tip.style.left = `${Math.min(ev.clientX - r.left + 12, r.width - 180)}px`;
    tip.style.top = `${ev.clientY - r.top + 30}px`;
  });
  svg.addEventListener("mouseleave", () => { rule.setAttribute("visibility", "hidden"); tip.style.display = "none"; });
}

// Grey for an idle link direction, through orange to red when busy all the time.
function utilColour(u) {
  const c = Math.max(0, Math.min(1, u));
  const mix = (a, b) => Math.round(a + (b - a) * c);
  return `rgb(${mix(190, 214)},${mix(190, 39)},${mix(190, 40)})`;
}

// The network, and a slider over the sample times.
function topology(root, topo) {
  const box = el("div", {id: "topology"}, root);
  const controls = el("div", {id: "controls"}, box);
  const slider = el("input", {id: "time", type: "range", min: 0, max: Math.max(0, topo.times.length - 1), value: 0, step: 1}, controls);
  const label = el("span", {id: "time-label"}, controls);
  if (!topo.times.length) {
    slider.disabled = true;
    label.textContent = "no samples (set output.interval)";
  }
  const W = 1000, H = 560, M = 60;
  const svg = el("svg:svg", {viewBox: `0 0 ${W} ${H}`, width: "100%"}, box);
  const px = n => M + topo.nodes[n].x * (W - 2 * M);
  const py = n => M + topo.nodes[n].y * (H - 2 * M);
  const parts = [];  // per link direction: its line, queue fill and label
  for (const link of topo.links) {
    const ends = [[link.a, link.b], [link.b, link.a]];
    ends.forEach(([from, to], i) => {
      const dir = link.dirs[i];
      const x1 = px(from), y1 = py(from), x2 = px(to), y2 = py(to);
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = -(y2 - y1) / len * 4, ny = (x2 - x1) / len * 4;  // each direction on its own side
      const line = el("svg:line", {x1: x1 + nx, y1: y1 + ny, x2: x2 + nx, y2: y2 + ny, "stroke-width": 4,
                                   stroke: utilColour(0), "data-link": dir.name}, svg);
      el("svg:title", {}, line, `${dir.name}: ${fmt(link.rate_bps / 1e6)} Mb/s, ${fmt(link.delay_s * 1e3)} ms, queue ${dir.limit}`);
      // the queue sits at the sending end, a quarter of the way along
      const qx = x1 + (x2 - x1) * 0.25 + nx * 3, qy = y1 + (y2 - y1) * 0.25 + ny * 3;
      el("svg:rect", {x: qx - 15, y: qy - 4, width: 30, height: 8, class: "qbar"}, svg);
      const fill = el("svg:rect", {x: qx - 15, y: qy - 4, width: 0, height: 8, class: "qfill", "data-queue": dir.name}, svg);
      const text = el("svg:text", {x: qx, y: qy - 7, "text-anchor": "middle", class: "wire"}, svg, "");
      parts.push({dir, line, fill, text});
    });
  }
  topo.nodes.forEach((node, n) => {
    const g = el("svg:g", {class: "node"}, svg);
    el("svg:circle", {cx: px(n), cy: py(n), r: 13}, g);
    el("svg:text", {x: px(n), y: py(n) + 4}, g, node.name);
  });
  function show(i) {
    if (topo.times.length) label.textContent = `t = ${fmt(topo.times[i])} s`;
    for (const p of parts) {
      const s = topo.state[p.dir.name];
      if (!s) continue;
      const q = s.queue[i], util = s.util[i], wire = s.wire[i];
      p.line.setAttribute("stroke", utilColour(util));
      p.fill.setAttribute("width", 30 * Math.min(1, q / Math.max(1, p.dir.limit)));
      p.fill.setAttribute("data-packets", q);
      p.text.textContent = q || wire ? `q ${q} · ${wire} on wire · ${Math.round(util * 100)}%` : "";
    }
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  show(0);
}

const SECTIONS = {
  heading: (root, s) => el("h2", {}, root, s.text),
  paragraph: (root, s) => el("p", {}, root, s.text),
  svg: figure, table, chart, claims, topology,
};

function main() {
  const root = el("main", {}, document.body);
  header(root);
  for (const s of DATA.sections) SECTIONS[s.kind](root, s);
  document.body.dataset.ready = "1";
}

main();
