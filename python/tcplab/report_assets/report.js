// The report page of a run or a study (tcplab.report): draws the sections of the JSON in
// <script id="data"> in order. No libraries and nothing fetched: the page works offline, and a
// committed study page stays a few hundred kB (an inlined charting library would add 1-5 MB).
"use strict";

const DATA = JSON.parse(document.getElementById("data").textContent);
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];
const FONT = "system-ui, sans-serif";
// Inside each chart's own <svg>, so that an exported chart looks as it does on the page.
const CHART_STYLE = `text { font-family: ${FONT}; } .tick { font-size: 11px; fill: #444; }
  .label { font-size: 12px; fill: #222; } .grid { stroke: #eee; } .axis { stroke: #888; }`;
const CHARTS = {};  // chart id -> {view, reset(), zoom(), svg()}: the buttons' and the tests' handle

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

// One colour per group (a flow's name) on the whole page: the flows take the palette in their
// order, so flow i has the same colour in every chart and line kind; other groups come after.
const COLOUR_OF = new Map((DATA.flows || []).map((f, i) => [f, i]));
function colour(group) {
  if (!COLOUR_OF.has(group)) COLOUR_OF.set(group, COLOUR_OF.size);
  return COLOURS[COLOUR_OF.get(group) % COLOURS.length];
}

// Width in px of `text` at `px` size, for laying out what is drawn before it is in the DOM.
const MEASURE = document.createElement("canvas").getContext("2d");
function textWidth(text, px) {
  MEASURE.font = `${px}px ${FONT}`;
  return MEASURE.measureText(text).width;
}

function header(root) {
  el("h1", {}, root, DATA.title);
  for (const line of DATA.meta || []) el("p", {class: "meta"}, root, line);
  if ((DATA.warnings || []).length) {
    const box = el("div", {class: "warning", id: "warnings", role: "alert"}, root);
    el("strong", {}, box, "\u26A0 Check these flows");
    const list = el("ul", {}, box);
    for (const w of DATA.warnings) el("li", {}, list, w);
  }
  for (const note of DATA.notes || []) el("p", {class: "note"}, root, note);
}

function table(root, t) {
  if (t.title) el("h3", {}, root, t.title);
  const wrap = el("div", {class: "table-wrap"}, root);
  const table = el("table", t.groups ? {id: `table-${t.id}`, class: "grouped"} : {id: `table-${t.id}`}, wrap);
  const thead = el("thead", {}, table);
  if (t.groups) {  // a row of group labels above the columns they span
    const row = el("tr", {class: "groups"}, thead);
    for (const [label, span] of t.groups) el("th", {colspan: span, scope: "colgroup"}, row, label);
  }
  const head = el("tr", {}, thead);
  t.columns.forEach((c, i) => el("th", t.titles && t.titles[i] ? {title: t.titles[i], class: "defined"} : {}, head, c));
  const body = el("tbody", {}, table);
  const deltas = new Set(t.deltas || []);
  for (const r of t.rows) {
    const tr = el("tr", {}, body);
    // a difference coloured by its size; a long text (a reason, a definition) wraps
    r.forEach((v, i) => el("td", deltas.has(i) ? {class: off(v)} : typeof v === "string" && v.length > 60 ? {class: "long"} : {}, tr, fmt(v)));
  }
  for (const n of t.notes || []) el("p", {class: "table-note"}, root, n);
}

// A difference from the paper ("+1.25%") as a class: near (within 1%), off (5%), far.
function off(v) {
  const d = Math.abs(parseFloat(String(v)));
  return isNaN(d) ? "" : d <= 1 ? "near" : d <= 5 ? "off" : "far";
}

// What each number means: term and definition, and where all of them are written at length.
function definitions(root, s) {
  const list = el("dl", {class: "definitions"}, root);
  for (const [term, text] of s.items) {
    el("dt", {}, list, term);
    el("dd", {}, list, text);
  }
  const more = el("p", {class: "note"}, root, "Every number tcplab reports is defined in ");
  if (s.href) el("a", {href: s.href}, more, "docs/metrics.md");
  else more.appendChild(document.createTextNode("docs/metrics.md of the tcplab sources"));
  more.appendChild(document.createTextNode("."));
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

// The path of a series' markers at pixel positions: dots for segments sent, crosses for
// retransmissions, rings for drops (shapes tell them apart, the colour tells the flow).
function markers(kind, pts) {
  let d = "";
  for (const [x, y] of pts) {
    d += kind === "cross" ? `M${x - 3.5},${y - 3.5}l7,7m0,-7l-7,7`
       : kind === "ring" ? `M${x - 4.5},${y}a4.5,4.5 0 1,0 9,0a4.5,4.5 0 1,0 -9,0`
       : `M${x - 1},${y}h2`;
  }
  return d;
}

// A series drawn into `g` with the scales sx, sy: a line (stepped or dashed) or markers.
function drawSeries(g, s, sx, sy) {
  const stroke = colour(s.group ?? s.name);
  const pts = s.x.map((x, k) => [sx(x), sy(s.y[k])]);
  if (s.points) {
    el("svg:path", {d: markers(s.points, pts), stroke, fill: "none",
                    "stroke-width": s.points === "dot" ? 2 : s.points === "ring" ? 1.6 : 1.4}, g);
    return;
  }
  const line = [];
  pts.forEach(([x, y], k) => {
    if (s.step && k > 0) line.push(`${x},${pts[k - 1][1]}`);
    line.push(`${x},${y}`);
  });
  el("svg:polyline", {points: line.join(" "), fill: "none", stroke, "stroke-width": 1.5,
                      "stroke-dasharray": s.dash ? "6,4" : "none"}, g);
}

// A small picture of how a series is drawn, for legends.
function swatch(s, parent, x = 0, y = 0) {
  const g = el("svg:g", {transform: `translate(${x},${y})`}, parent);
  const one = {...s, x: [0], y: [0]};
  if (s.points) drawSeries(g, one, () => 11, () => 6);
  else drawSeries(g, {...one, x: [0, 1], y: [0, 0], step: false}, v => 2 + v * 18, () => 6);
  return g;
}

// The data's extent over all series, with a little room above.
function extent(all) {
  let x0 = Infinity, x1 = -Infinity, y0 = 0, y1 = -Infinity;
  for (const s of all) {
    for (const v of s.x) { x0 = Math.min(x0, v); x1 = Math.max(x1, v); }
    for (const v of s.y) { y0 = Math.min(y0, v); y1 = Math.max(y1, v); }
  }
  if (!isFinite(x0)) { x0 = 0; x1 = 1; }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  return {x0, x1, y0, y1: y1 + (y1 - y0) * 0.05};
}

// One chart: lines or markers of several series; hover readout; legend toggles; drag a box to
// zoom, the wheel to zoom on x, shift+drag to pan, double-click or Reset to see it all; SVG
// and PNG downloads of what is shown.
function chart(root, c) {
  const box = el("div", {class: "chart", id: `chart-${c.id}`}, root);
  const bar = el("div", {class: "chart-bar"}, box);
  el("h3", {}, bar, c.title || "");
  const tools = el("span", {class: "tools"}, bar);
  const W = Math.max(600, Math.floor(box.clientWidth - 2) || 1000), H = 320, L = 64, R = 16, T = 12, B = 46;
  const svg = el("svg:svg", {xmlns: SVG, viewBox: `0 0 ${W} ${H}`, width: W, height: H}, box);
  el("svg:style", {}, svg, CHART_STYLE);
  const clip = `clip-${document.querySelectorAll("clipPath").length}`;
  el("svg:rect", {x: L, y: T, width: W - L - R, height: H - T - B}, el("svg:clipPath", {id: clip}, svg));
  el("svg:rect", {x: 0, y: 0, width: W, height: H, fill: "#fff"}, svg);
  const axes = el("svg:g", {}, svg), area = el("svg:g", {"clip-path": `url(#${clip})`}, svg);
  const all = c.series.filter(s => s.x.length);
  const groups = all.map(() => el("svg:g", {class: "series"}, area));
  const full = extent(all);
  let view = {...full};
  const sx = v => L + (v - view.x0) / (view.x1 - view.x0) * (W - L - R);
  const sy = v => H - B - (v - view.y0) / (view.y1 - view.y0) * (H - T - B);
  const fromPx = (px, py) => [view.x0 + (px - L) / (W - L - R) * (view.x1 - view.x0),
                              view.y0 + (H - B - py) / (H - T - B) * (view.y1 - view.y0)];
  function draw() {
    axes.textContent = "";
    for (const t of ticks(view.x0, view.x1)) {
      el("svg:line", {x1: sx(t), x2: sx(t), y1: T, y2: H - B, class: "grid"}, axes);
      el("svg:text", {x: sx(t), y: H - B + 16, "text-anchor": "middle", class: "tick"}, axes, fmt(t));
    }
    for (const t of ticks(view.y0, view.y1, 5)) {
      el("svg:line", {x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: "grid"}, axes);
      el("svg:text", {x: L - 6, y: sy(t) + 4, "text-anchor": "end", class: "tick"}, axes, fmt(t));
    }
    el("svg:line", {x1: L, x2: L, y1: T, y2: H - B, class: "axis"}, axes);
    el("svg:line", {x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis"}, axes);
    el("svg:text", {x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle", class: "label"}, axes, c.xlabel);
    el("svg:text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle", class: "label",
                    transform: `rotate(-90 14 ${(T + H - B) / 2})`}, axes, c.ylabel);
    all.forEach((s, i) => { groups[i].textContent = ""; drawSeries(groups[i], s, sx, sy); });
  }
  function zoom(v) {
    if (v.x1 - v.x0 > (full.x1 - full.x0) * 1e-9 && v.y1 > v.y0) { view = v; draw(); }
    CHARTS[c.id].view = view;
  }
  const legend = el("div", {class: "legend-row"}, box);
  all.forEach((s, i) => {
    const item = el("span", {class: "legend"}, legend);
    swatch(s, el("svg:svg", {width: 22, height: 12, class: "swatch"}, item));
    item.appendChild(document.createTextNode(` ${s.name}`));
    item.addEventListener("click", () => {
      groups[i].style.display = item.classList.toggle("off") ? "none" : "";
    });
  });
  const exported = () => chartSVG(svg, c, all.filter((s, i) => groups[i].style.display !== "none"), W, H);
  CHARTS[c.id] = {view, zoom, reset: () => zoom({...full}), svg: exported};
  el("span", {class: "hint"}, tools, "drag: zoom · wheel: zoom time · shift+drag: pan");
  for (const [text, act] of [["Reset", () => zoom({...full})],
                             ["SVG", () => download(`${c.id}.svg`, new Blob([exported()], {type: "image/svg+xml"}))],
                             ["PNG", () => downloadPNG(`${c.id}.png`, exported(), W, H)]]) {
    el("button", {type: "button"}, tools, text).addEventListener("click", act);
  }
  draw();
  pointer(svg, box, {W, H, L, R, T, B, c, all, fromPx, sx, sy, get view() { return view; }, zoom});
}

// The chart's mouse: a box drawn while dragging (zoom on release), shift+drag pans, the wheel
// zooms the time axis about the pointer, a double-click resets; hover shows each series' value.
function pointer(svg, box, k) {
  const {W, H, L, R, T, B, c, all, fromPx} = k;
  const at = ev => { const r = svg.getBoundingClientRect(); return [(ev.clientX - r.left) / r.width * W, (ev.clientY - r.top) / r.height * H]; };
  const inside = ([x, y]) => x >= L && x <= W - R && y >= T && y <= H - B;
  const rule = el("svg:line", {y1: T, y2: H - B, stroke: "#999", "stroke-dasharray": "3,3", visibility: "hidden", class: "hover"}, svg);
  const band = el("svg:rect", {fill: "rgba(31,119,180,0.12)", stroke: "#1f77b4", visibility: "hidden", class: "hover"}, svg);
  const tip = el("div", {class: "tip"}, box);
  let drag = null;
  svg.addEventListener("mousedown", ev => {
    const p = at(ev);
    if (ev.button !== 0 || !inside(p)) return;
    ev.preventDefault();
    drag = {p, pan: ev.shiftKey};
  });
  window.addEventListener("mousemove", ev => {
    if (!drag) return;
    const p = at(ev).map((v, i) => Math.max(i ? T : L, Math.min(i ? H - B : W - R, v)));
    if (drag.pan) {  // move the view by what the pointer moved since the last event
      const [ax, ay] = fromPx(...drag.p), [bx, by] = fromPx(...p), v = k.view;
      k.zoom({x0: v.x0 - (bx - ax), x1: v.x1 - (bx - ax), y0: v.y0 - (by - ay), y1: v.y1 - (by - ay)});
      drag.p = p;
      return;
    }
    const [x0, x1] = [drag.p[0], p[0]].sort((a, b) => a - b), [y0, y1] = [drag.p[1], p[1]].sort((a, b) => a - b);
    Object.entries({x: x0, y: y0, width: x1 - x0, height: y1 - y0, visibility: "visible"}).forEach(([a, v]) => band.setAttribute(a, v));
  });
  window.addEventListener("mouseup", ev => {
    if (!drag) return;
    const start = drag;
    drag = null;
    band.setAttribute("visibility", "hidden");
    if (start.pan) return;
    const p = at(ev).map((v, i) => Math.max(i ? T : L, Math.min(i ? H - B : W - R, v)));
    const [ax, ay] = fromPx(...start.p), [bx, by] = fromPx(...p);
    if (Math.abs(p[0] - start.p[0]) < 5) return;  // a click, not a box
    const tall = Math.abs(p[1] - start.p[1]) >= 5;  // a flat box zooms time only
    k.zoom({x0: Math.min(ax, bx), x1: Math.max(ax, bx),
            y0: tall ? Math.min(ay, by) : k.view.y0, y1: tall ? Math.max(ay, by) : k.view.y1});
  });
  svg.addEventListener("wheel", ev => {
    const p = at(ev);
    if (!inside(p)) return;
    ev.preventDefault();
    const [x] = fromPx(...p), f = ev.deltaY > 0 ? 1.25 : 0.8, v = k.view;
    k.zoom({...v, x0: x - (x - v.x0) * f, x1: x + (v.x1 - x) * f});
  }, {passive: false});
  svg.addEventListener("dblclick", () => CHARTS[c.id].reset());
  svg.addEventListener("mousemove", ev => {
    const p = at(ev);
    if (!inside(p) || drag) { rule.setAttribute("visibility", "hidden"); tip.style.display = "none"; return; }
    const [xv] = fromPx(...p);
    rule.setAttribute("x1", p[0]); rule.setAttribute("x2", p[0]); rule.setAttribute("visibility", "visible");
    tip.textContent = "";
    el("div", {}, tip, `${c.xlabel}: ${fmt(Number(xv.toPrecision(5)))}`);
    for (const s of all) {
      if (!s.x.length || s.x[0] > xv) continue;
      let lo = 0, hi = s.x.length - 1;  // the last sample at or before the pointer
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (s.x[mid] <= xv) lo = mid; else hi = mid - 1; }
      el("div", {style: `color: ${colour(s.group ?? s.name)}`}, tip, `${s.name}: ${fmt(s.y[lo])}`);
    }
    const r = svg.getBoundingClientRect();
    tip.style.display = "block";
    tip.style.left = `${Math.min(ev.clientX - r.left + 14, r.width - 220)}px`;
    tip.style.top = `${ev.clientY - r.top + 40}px`;
  });
  svg.addEventListener("mouseleave", () => { rule.setAttribute("visibility", "hidden"); tip.style.display = "none"; });
}

// The chart as a stand-alone SVG document: what is shown, with its title above and a legend of
// the visible series below, so that the file says what it is.
function chartSVG(svg, c, shown, W, H) {
  const copy = svg.cloneNode(true);
  copy.querySelectorAll(".hover").forEach(e => e.remove());
  const top = c.title ? 26 : 0, legend = el("svg:g", {}, copy);
  let x = 64, y = H + top + 8;
  for (const s of shown) {
    const w = 28 + textWidth(s.name, 12);
    if (x + w > W - 16) { x = 64; y += 20; }
    swatch(s, legend, x, y);
    el("svg:text", {x: x + 26, y: y + 10, class: "label"}, legend, s.name);
    x += w + 16;
  }
  const height = y + 24;
  // the clip path moves with the group it clips: it is in that group's coordinates
  for (const child of [...copy.children].filter(e => e !== legend && !["style", "clipPath"].includes(e.tagName))) {
    child.setAttribute("transform", `translate(0,${top})`);
  }
  if (c.title) el("svg:text", {x: 64, y: 18, class: "label", "font-weight": "bold"}, copy, c.title);
  copy.insertBefore(el("svg:rect", {width: W, height, fill: "#fff"}), copy.firstChild);
  Object.entries({viewBox: `0 0 ${W} ${height}`, height, width: W}).forEach(([a, v]) => copy.setAttribute(a, v));
  return new XMLSerializer().serializeToString(copy);
}

// Saves `blob` under `name` through a link clicked at once and dropped.
function download(name, blob) {
  const a = el("a", {href: URL.createObjectURL(blob), download: name}, document.body);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// The SVG drawn on a canvas at twice its size, saved as PNG.
function downloadPNG(name, text, W, H) {
  const img = new Image();
  img.onload = () => {
    const h = img.naturalHeight || H, canvas = document.createElement("canvas");
    Object.assign(canvas, {width: W * 2, height: h * 2});
    canvas.getContext("2d").drawImage(img, 0, 0, W * 2, h * 2);
    canvas.toBlob(blob => download(name, blob), "image/png");
  };
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
}

// Grey for an idle link direction, through orange to red when busy all the time.
function utilColour(u) {
  const c = Math.max(0, Math.min(1, u));
  const mix = (a, b) => Math.round(a + (b - a) * c);
  return `rgb(${mix(190, 214)},${mix(190, 39)},${mix(190, 40)})`;
}

// Pixel centres and box sizes of the nodes: layers as columns (lr) or rows (tb), nodes spread
// within their layer, every gap wide enough for the labels (measured), the picture growing
// (and the box scrolling) when the width is not enough.
function place(topo, width) {
  const M = 40, BOX_H = 26, GAP = 24;
  const size = topo.nodes.map(n => [Math.ceil(textWidth(n.name, 13)) + 18, BOX_H]);
  const layers = [];
  topo.nodes.forEach((n, i) => (layers[n.layer] ||= []).push(i));
  const across = layers.map(ids => Math.max(...ids.map(i => size[i][0])));
  const most = Math.max(...layers.map(ids => ids.length));
  let W, H, at;
  if (topo.orient === "lr") {
    const used = across.reduce((a, b) => a + b, 0);
    W = Math.max(width, used + 90 * (layers.length - 1) + 2 * M);
    H = Math.max(320, most * (BOX_H + 70) + 2 * M);
    const gap = layers.length > 1 ? (W - 2 * M - used) / (layers.length - 1) : 0;
    const x = [];
    across.reduce((left, w, k) => { x[k] = left + w / 2; return left + w + gap; }, M);
    at = n => [x[n.layer], M + (n.rank + 0.5) / layers[n.layer].length * (H - 2 * M)];
  } else {
    const widest = Math.max(...layers.map(ids => ids.reduce((a, i) => a + size[i][0] + GAP, 0)));
    W = Math.max(width, widest + 2 * M);
    H = Math.max(320, layers.length * 110 + M);
    at = n => [M + (n.rank + 0.5) / layers[n.layer].length * (W - 2 * M), M + n.layer * 110];
  }
  return {W, H, size, xy: topo.nodes.map(at)};
}

// Hides the texts that would overlap a node, a queue or a text kept before them (the busiest first);
// each stays readable in its line's tooltip.
function declutter(texts, keep) {
  const boxes = keep.map(e => e.getBBox());
  const hits = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  for (const t of texts) {
    t.removeAttribute("visibility");
    if (!t.textContent) continue;
    const b = t.getBBox();
    if (boxes.some(o => hits(b, o))) t.setAttribute("visibility", "hidden");
    else boxes.push(b);
  }
}

// The network, a slider over the sample times, and play/pause at a chosen speed.
function topology(root, topo) {
  const box = el("div", {id: "topology"}, root);
  const controls = el("div", {id: "controls"}, box);
  const play = el("button", {type: "button", id: "play"}, controls, "\u25B6 Play");
  const speed = el("select", {id: "speed", title: "simulated seconds per second"}, controls);
  for (const v of [0.25, 0.5, 1, 2, 5, 10, 20]) el("option", v === 1 ? {value: v, selected: ""} : {value: v}, speed, `${v}\u00D7`);
  const slider = el("input", {id: "time", type: "range", min: 0, max: Math.max(0, topo.times.length - 1), value: 0, step: 1}, controls);
  const label = el("span", {id: "time-label"}, controls);
  if (!topo.times.length) {
    slider.disabled = play.disabled = speed.disabled = true;
    label.textContent = "no samples (set output.interval)";
  }
  const scroll = el("div", {class: "scroll"}, box);
  const {W, H, size, xy} = place(topo, Math.floor(box.clientWidth - 2) || 1000);
  const svg = el("svg:svg", {viewBox: `0 0 ${W} ${H}`, width: W, height: H}, scroll);
  const parts = [];  // per link direction: its line, queue fill and label
  const boxes = [];
  for (const link of topo.links) {
    [[link.a, link.b], [link.b, link.a]].forEach(([from, to], i) => {
      const dir = link.dirs[i];
      const [x1, y1] = xy[from], [x2, y2] = xy[to];
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = -(y2 - y1) / len * 4, ny = (x2 - x1) / len * 4;  // each direction on its own side
      const line = el("svg:line", {x1: x1 + nx, y1: y1 + ny, x2: x2 + nx, y2: y2 + ny, "stroke-width": 4,
                                   stroke: utilColour(0), "data-link": dir.name}, svg);
      el("svg:title", {}, line, `${dir.name}: ${fmt(link.rate_bps / 1e6)} Mb/s, ${fmt(link.delay_s * 1e3)} ms, queue limit ${dir.limit} packets`);
      // the queue sits at the sending end, a third of the way along, clear of the node's box
      const qx = x1 + (x2 - x1) * 0.33 + nx * 3, qy = y1 + (y2 - y1) * 0.33 + ny * 3;
      boxes.push(el("svg:rect", {x: qx - 15, y: qy - 4, width: 30, height: 8, class: "qbar"}, svg));
      const fill = el("svg:rect", {x: qx - 15, y: qy - 4, width: 0, height: 8, class: "qfill", "data-queue": dir.name}, svg);
      const text = el("svg:text", {x: qx, y: qy + (ny >= 0 ? 18 : -8), "text-anchor": "middle", class: "wire"}, svg, "");
      parts.push({dir, line, fill, text});
    });
  }
  topo.nodes.forEach((node, n) => {
    const g = el("svg:g", {class: "node"}, svg);
    const [x, y] = xy[n], [w, h] = size[n];
    boxes.push(el("svg:rect", {x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 6}, g));
    el("svg:text", {x, y: y + 4.5}, g, node.name);
  });
  el("p", {class: "note"}, box, "Line colour: how busy the link direction was over the sample (grey idle, red busy all the time); "
     + "bar: its queue against its limit; text: packets queued, packets on the wire, utilisation. Hover a line for its link.");
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
      p.busy = q * 1e6 + wire;
    }
    declutter([...parts].sort((a, b) => (b.busy || 0) - (a.busy || 0)).map(p => p.text), boxes);
  }
  slider.addEventListener("input", () => { show(Number(slider.value)); });
  playback(play, speed, slider, topo.times);
  show(0);
}

// Play moves the slider through the samples at `speed` simulated seconds per real second,
// stopping at the end; pause (or dragging the slider) stops it.
function playback(button, speed, slider, times) {
  let timer = null, clock = 0, last = 0;
  const stop = () => { clearInterval(timer); timer = null; button.textContent = "\u25B6 Play"; };
  button.addEventListener("click", () => {
    if (timer) return stop();
    if (Number(slider.value) >= times.length - 1) slider.value = 0;
    clock = times[Number(slider.value)];
    last = performance.now();
    button.textContent = "\u275A\u275A Pause";
    timer = setInterval(() => {
      const now = performance.now();
      clock += (now - last) / 1e3 * Number(speed.value);
      last = now;
      let i = Number(slider.value);
      while (i < times.length - 1 && times[i + 1] <= clock) i++;
      if (i !== Number(slider.value)) {
        slider.value = i;
        slider.dispatchEvent(new Event("input"));
      }
      if (i >= times.length - 1) stop();
    }, 40);
  });
  slider.addEventListener("pointerdown", () => timer && stop());
}

const SECTIONS = {
  heading: (root, s) => el("h2", {}, root, s.text),
  paragraph: (root, s) => el("p", s.warning ? {class: "warning", role: "alert"} : {}, root, s.text),
  svg: figure, table, chart, claims, topology, definitions,
};

function main() {
  const root = el("main", {}, document.body);
  header(root);
  for (const s of DATA.sections) SECTIONS[s.kind](root, s);
  document.body.dataset.ready = "1";
}

main();
