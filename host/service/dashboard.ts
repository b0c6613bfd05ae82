// The dashboard: a JSON state for polling and one self-contained HTML page
// (inline CSS and script allowed by their hashes in DASHBOARD_CSP, an SVG line
// chart drawn by hand, nothing fetched from elsewhere). It never shows API
// keys or PINs, and masks e-mails. Who may use it: access.ts.
// Value devices get a form that stores a value through the service's own API
// (POST /dashboard/set-value, server.ts); a simulated board (npm start) adds
// a panel of the pins it drives.

import { createHash } from 'node:crypto';

import type { Device, HistoryEntry, Store } from './store';
import { firstXmlNumber, numericText } from './xml';

export interface DashboardDevice {
  id: number;
  name: string;
  format: string;
  crypto: string;
  owner: string;
  writes: number;
  lastValue: string | null;
  lastSeen: string | null;
  /** Name of the charted field ('' for Value devices), null when nothing numeric was seen. */
  field: string | null;
  /** [epoch ms, value] for the charted field, oldest first. */
  points: [number, number][];
}

/** A board's latest health report (src/agent/health.ts), as its JSON device holds it. */
export interface HealthRow {
  /** The device the board reports to. */
  id: number;
  name: string;
  board: string;
  uid: string;
  fw: string;
  boot: number;
  uptimeS: number;
  /** Seconds since the report arrived. */
  ageS: number;
  intervalS: number;
  heapUsed: number | null;
  outboxDepth: number | null;
  dropped: number | null;
  /** No report for more than two intervals. */
  silent: boolean;
}

/** One pin the simulated board drives, or an output its config names. */
export interface BoardOutputRow {
  /** GPIO number. */
  gpio: number;
  /** The output's name in the board's config; '' for a pin driven by nothing configured. */
  name: string;
  kind: 'digital' | 'pwm';
  /** digital 0/1, pwm the duty 0..1; null while the pin is not driven. */
  level: number | null;
  /** pwm: the frequency. */
  freqHz: number | null;
  /** Writes since the pin was opened. */
  writes: number;
  /** The program holds the pin as an output now. */
  open: boolean;
}

/** Extra state of a simulated board (npm start), from ServiceOptions.board. */
export interface BoardPanel {
  /** A one-line description, e.g. the board name and where its files are. */
  title: string;
  outputs: BoardOutputRow[];
}

export interface DashboardState {
  now: string;
  devices: DashboardDevice[];
  /** The simulated board's panel; null when the service runs without one. */
  board: BoardPanel | null;
  /** One row per board reporting its health, by board id. */
  health: HealthRow[];
}

/** The health report in a JSON device's content, or undefined when it holds something else. */
function healthOf(content: string | undefined): Record<string, unknown> | undefined {
  if (!content || content.charAt(0) !== '{' || content.indexOf('"intervalS"') < 0) return undefined;
  try {
    const r = JSON.parse(content) as Record<string, unknown>;
    return typeof r.fw === 'string' && typeof r.board === 'string' && typeof r.intervalS === 'number' && typeof r.uptimeS === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const MAX_POINTS = 300;
const MAX_VALUE_CHARS = 200;

type Numeric = { field: string; value: number } | null;
const numericCache = new WeakMap<HistoryEntry, Numeric>();

function firstJsonNumber(v: unknown, key: string): Numeric {
  if (typeof v === 'number') return Number.isFinite(v) ? { field: key, value: v } : null;
  if (typeof v === 'string') {
    const n = numericText(v);
    return n === undefined ? null : { field: key, value: n };
  }
  if (Array.isArray(v)) {
    for (const item of v) {
      const r = firstJsonNumber(item, key);
      if (r) return r;
    }
    return null;
  }
  if (v && typeof v === 'object') {
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      const r = firstJsonNumber(item, k);
      if (r) return r;
    }
  }
  return null;
}

/** The first numeric field of a stored content, per the device's format. */
export function numericOf(format: string, content: string): Numeric {
  if (format === 'Value') {
    const n = numericText(content);
    return n === undefined ? null : { field: '', value: n };
  }
  if (format === 'JSON') {
    try {
      return firstJsonNumber(JSON.parse(content), '');
    } catch {
      return null;
    }
  }
  return firstXmlNumber(content) ?? null;
}

function cachedNumeric(dev: Device, e: HistoryEntry): Numeric {
  let r = numericCache.get(e);
  if (r === undefined) {
    r = numericOf(dev.format, e.content);
    numericCache.set(e, r);
  }
  return r;
}

export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at >= 0 ? email.slice(0, at) : email;
  const domain = at >= 0 ? email.slice(at) : '';
  return (local.slice(0, 1) || '?') + '***' + domain;
}

export function dashboardState(store: Store, nowMs = Date.now(), board: BoardPanel | null = null): DashboardState {
  const devices: DashboardDevice[] = [];
  const health: HealthRow[] = [];
  for (const dev of store.devices.values()) {
    const h = dev.format === 'JSON' ? healthOf(dev.content) : undefined;
    if (h && dev.lastAt) {
      const ageS = Math.max(0, Math.round((nowMs - Date.parse(dev.lastAt)) / 1000));
      const heap = (h.heap || {}) as Record<string, unknown>;
      const box = (h.outbox || {}) as Record<string, unknown>;
      health.push({
        id: dev.id, name: dev.name, board: h.board as string, uid: typeof h.uid === 'string' ? h.uid : '', fw: h.fw as string,
        boot: num(h.boot) ?? 0, uptimeS: h.uptimeS as number, ageS, intervalS: h.intervalS as number,
        heapUsed: num(heap.used), outboxDepth: num(box.depth), dropped: num(box.dropped),
        silent: ageS > 2 * (h.intervalS as number),
      });
    }
    let field: string | null = null;
    const points: [number, number][] = [];
    const hist = dev.history;
    for (let i = Math.max(0, hist.length - MAX_POINTS); i < hist.length; i++) {
      const e = hist[i] as HistoryEntry;
      const n = cachedNumeric(dev, e);
      if (!n) continue;
      if (field === null) field = n.field;
      if (n.field !== field) continue; // keep one series per chart
      points.push([Date.parse(e.at), n.value]);
    }
    const content = dev.content;
    devices.push({
      id: dev.id,
      name: dev.name,
      format: dev.format,
      crypto: dev.crypto,
      owner: maskEmail(dev.owner),
      writes: dev.writes,
      lastValue: content === undefined ? null : content.length > MAX_VALUE_CHARS ? content.slice(0, MAX_VALUE_CHARS) + '…' : content,
      lastSeen: dev.lastAt ?? null,
      field,
      points,
    });
  }
  devices.sort((a, b) => a.id - b.id);
  health.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : a.id - b.id));
  return { now: new Date(nowMs).toISOString(), devices, health, board };
}

// The page's style and script, inline (the page stays one self-contained file)
// and allowed by their hashes in the page's Content-Security-Policy: nothing
// else may run or style it, and no element carries a handler or a style.
const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
#status { color: #666; margin-bottom: 1em; }
#status.offline { color: #b00; }
#devices { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 1em; }
.device { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .8em 1em; }
.device h2 { font-size: 1.05em; margin: 0 0 .3em; }
.device dl { display: grid; grid-template-columns: auto 1fr; gap: .1em .8em; margin: 0 0 .5em; }
.device dt { color: #777; }
.device dd { margin: 0; overflow-wrap: anywhere; font-family: ui-monospace, monospace; }
.chart { width: 100%; height: 90px; background: #f4f7fb; border-radius: 4px; }
.chart polyline { fill: none; stroke: #1a6fd0; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
.chart text { font-size: 10px; fill: #555; }
#empty { color: #777; }
#health, #board { border-collapse: collapse; margin: 0 0 1.2em; background: #fff; }
#health th, #health td, #board th, #board td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; font-family: ui-monospace, monospace; }
#health th, #board th { font-family: system-ui, sans-serif; color: #555; background: #f0f0f0; }
#health tr.silent td { color: #b00; background: #fff4f4; }
#board-title { color: #666; margin: 0 0 .4em; }
#board tr.high td.output-level { color: #17692b; font-weight: bold; }
#board tr.released td, #board tr.idle td { color: #999; }
.set-form { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: 0 0 .5em; }
.set-value { font-family: ui-monospace, monospace; width: 9em; }
.set-answer { font-size: .9em; color: #555; overflow-wrap: anywhere; }
.set-answer.ok { color: #17692b; }
.set-answer.error { color: #b00; }
`;

const SCRIPT = `
"use strict";
var NS = "http://www.w3.org/2000/svg";
var W = 320, H = 90, PAD = 4;
// Beyond loopback the service wants its token on every state and set-value
// request. The start URL carries it (/?token=...): kept for this tab (a reload
// still works) and taken out of the address bar, so it is not shown, bookmarked
// or shared by accident.
var TOKEN = (function () {
  var m = /[?&]token=([A-Za-z0-9_-]+)/.exec(location.search);
  var t = m ? m[1] : null;
  try {
    if (t) sessionStorage.setItem("dds-token", t);
    else t = sessionStorage.getItem("dds-token");
  } catch (e) { /* no storage: the token lives as long as the page */ }
  if (m) history.replaceState(null, "", location.pathname);
  return t;
})();
function withToken(headers) {
  if (TOKEN) headers.Authorization = "Bearer " + TOKEN;
  return headers;
}
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function svgEl(tag, attrs) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
function card(d) {
  var c = el("section", "device");
  c.setAttribute("data-device-id", String(d.id));
  var h = el("h2", "device-title");
  h.appendChild(el("span", "device-name"));
  h.appendChild(document.createTextNode(" #" + d.id));
  c.appendChild(h);
  var dl = el("dl");
  [["Format", "device-format"], ["Last value", "last-value"], ["Last seen", "last-seen"], ["Writes", "write-count"]].forEach(function (p) {
    dl.appendChild(el("dt", "", p[0]));
    dl.appendChild(el("dd", p[1]));
  });
  c.appendChild(dl);
  if (d.format === "Value") c.appendChild(setForm(d));
  var svg = svgEl("svg", { "class": "chart", viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none" });
  svg.appendChild(svgEl("polyline", { points: "" }));
  var lo = svgEl("text", { "class": "chart-min", x: 3, y: H - 3 });
  var hi = svgEl("text", { "class": "chart-max", x: 3, y: 11 });
  svg.appendChild(lo); svg.appendChild(hi);
  c.appendChild(svg);
  return c;
}
// Stores a value through the service's own API (POST /dashboard/set-value
// looks up the key and PIN; the page never holds them) and shows the answer.
function setForm(d) {
  var f = el("form", "set-form");
  f.setAttribute("data-device-id", String(d.id));
  var input = el("input", "set-value");
  input.type = "text";
  input.name = "value";
  input.autocomplete = "off";
  input.placeholder = "new value";
  input.setAttribute("aria-label", "New value for device " + d.id);
  var button = el("button", "set-button", "Set");
  button.type = "submit";
  var answer = el("span", "set-answer");
  f.appendChild(input); f.appendChild(button); f.appendChild(answer);
  f.addEventListener("submit", function (ev) {
    ev.preventDefault();
    button.disabled = true;
    answer.className = "set-answer pending";
    answer.textContent = "…";
    fetch("/dashboard/set-value", {
      method: "POST", cache: "no-store", headers: withToken({ "Content-Type": "application/json" }),
      body: JSON.stringify({ deviceId: d.id, value: input.value })
    }).then(function (r) {
      return r.text().then(function (t) {
        answer.className = "set-answer " + (r.ok ? "ok" : "error");
        answer.textContent = r.ok ? "ok: " + t : "error " + r.status + ": " + t;
      });
    }).catch(function (e) {
      answer.className = "set-answer error";
      answer.textContent = "error: " + e.message;
    }).then(function () { button.disabled = false; });
  });
  return f;
}
function draw(svg, points) {
  var line = svg.querySelector("polyline");
  var lo = svg.querySelector(".chart-min"), hi = svg.querySelector(".chart-max");
  svg.setAttribute("data-points", String(points.length));
  if (points.length === 0) { line.setAttribute("points", ""); lo.textContent = ""; hi.textContent = ""; return; }
  var t0 = points[0][0], t1 = points[points.length - 1][0];
  var v0 = Infinity, v1 = -Infinity;
  points.forEach(function (p) { if (p[1] < v0) v0 = p[1]; if (p[1] > v1) v1 = p[1]; });
  var dt = t1 - t0 || 1, dv = v1 - v0 || 1;
  var n = points.length;
  line.setAttribute("points", points.map(function (p, i) {
    var x = n === 1 ? W / 2 : PAD + (t1 === t0 ? i / (n - 1) : (p[0] - t0) / dt) * (W - 2 * PAD);
    var y = v1 === v0 ? H / 2 : H - PAD - ((p[1] - v0) / dv) * (H - 2 * PAD);
    return x.toFixed(1) + "," + y.toFixed(1);
  }).join(" "));
  lo.textContent = String(v0);
  hi.textContent = String(v1);
}
function ago(iso, now) {
  if (!iso) return "never";
  var s = Math.max(0, Math.round((Date.parse(now) - Date.parse(iso)) / 1000));
  var t = new Date(iso).toLocaleTimeString();
  return t + " (" + (s < 60 ? s + " s" : s < 3600 ? Math.round(s / 60) + " min" : Math.round(s / 3600) + " h") + " ago)";
}
function render(state) {
  var box = document.getElementById("devices");
  document.getElementById("empty").hidden = state.devices.length > 0;
  state.devices.forEach(function (d) {
    var c = box.querySelector('[data-device-id="' + d.id + '"]');
    if (!c) { c = card(d); box.appendChild(c); }
    c.setAttribute("data-format", d.format);
    c.querySelector(".device-name").textContent = d.name;
    c.querySelector(".device-format").textContent = d.format + (d.field ? " (chart: " + d.field + ")" : "");
    c.querySelector(".last-value").textContent = d.lastValue === null ? "—" : d.lastValue;
    c.querySelector(".last-seen").textContent = ago(d.lastSeen, state.now);
    c.querySelector(".write-count").textContent = String(d.writes);
    draw(c.querySelector(".chart"), d.points);
  });
}
function dur(s) {
  return s < 120 ? s + " s" : s < 7200 ? Math.round(s / 60) + " min" : Math.round(s / 3600) + " h";
}
function renderHealth(rows) {
  document.getElementById("health-box").hidden = rows.length === 0;
  var body = document.querySelector("#health tbody");
  body.textContent = "";
  rows.forEach(function (r) {
    var tr = el("tr", r.silent ? "silent" : "ok");
    tr.setAttribute("data-device-id", String(r.id));
    [r.board + (r.uid ? " " + r.uid : ""), r.name + " #" + r.id, r.fw, String(r.boot), dur(r.uptimeS), dur(r.ageS) + " ago",
     r.heapUsed === null ? "—" : r.heapUsed + " B", r.outboxDepth === null ? "—" : String(r.outboxDepth),
     r.dropped === null ? "—" : String(r.dropped), r.silent ? "SILENT" : "ok"].forEach(function (t, i) {
      tr.appendChild(el("td", i === 9 ? "health-state" : "", t));
    });
    body.appendChild(tr);
  });
}
function level(o) {
  if (o.level === null) return "not driven";
  var t = o.kind === "pwm" ? String(Math.round(o.level * 1000) / 10) + "%" : o.level ? "ON" : "off";
  return o.open ? t : t + " (released)";
}
function renderBoard(b) {
  document.getElementById("board-box").hidden = !b;
  if (!b) return;
  document.getElementById("board-title").textContent = b.title;
  document.getElementById("board-empty").hidden = b.outputs.length > 0;
  var body = document.querySelector("#board tbody");
  body.textContent = "";
  b.outputs.forEach(function (o) {
    var tr = el("tr", o.level === null ? "idle" : !o.open ? "released" : o.level > 0 ? "high" : "low");
    tr.setAttribute("data-gpio", String(o.gpio));
    tr.setAttribute("data-level", o.level === null ? "" : String(o.level));
    [["output-gpio", "GP" + o.gpio], ["output-name", o.name || "—"],
     ["output-kind", o.kind + (o.kind === "pwm" && o.freqHz !== null ? " " + o.freqHz + " Hz" : "")],
     ["output-level", level(o)], ["output-writes", String(o.writes)]].forEach(function (p) {
      tr.appendChild(el("td", p[0], p[1]));
    });
    body.appendChild(tr);
  });
}
function poll() {
  var st = document.getElementById("status");
  fetch("/dashboard/state", { cache: "no-store", headers: withToken({}) }).then(function (r) {
    if (r.status === 401) throw new Error("this dashboard needs its token: open the URL the service printed at its start, /?token=...");
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.json();
  }).then(function (s) {
    render(s);
    renderHealth(s.health || []);
    renderBoard(s.board || null);
    st.className = "";
    st.textContent = s.devices.length + " device(s), updated " + new Date(s.now).toLocaleTimeString();
  }).catch(function (e) {
    st.className = "offline";
    st.textContent = "service unreachable (" + e.message + ")";
  }).then(function () { setTimeout(poll, 1000); });
}
poll();
`;

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Device Data Service</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Device Data Service</h1>
<div id="status">loading…</div>
<section id="board-box" hidden>
<h2>Simulated board</h2>
<p id="board-title"></p>
<table id="board"><thead><tr><th>Pin</th><th>Output</th><th>Kind</th><th>Level</th><th>Writes</th></tr></thead><tbody></tbody></table>
<p id="board-empty" hidden>No outputs configured or driven.</p>
</section>
<section id="health-box" hidden>
<h2>Board health</h2>
<table id="health"><thead><tr><th>Board</th><th>Device</th><th>Firmware</th><th>Boot</th><th>Up</th><th>Last report</th><th>Heap used</th><th>Outbox</th><th>Dropped</th><th>State</th></tr></thead><tbody></tbody></table>
</section>
<p id="empty" hidden>No devices yet.</p>
<div id="devices"></div>
<script>${SCRIPT}</script>
</body>
</html>
`;

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page's policy: its own script and style only (by hash), requests to
 * this service only, no form posts, no <base>, and no page may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `script-src ${hashOf(SCRIPT)}`,
  `style-src ${hashOf(STYLE)}`,
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
