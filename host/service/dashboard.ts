// The dashboard, the fleet's console: a JSON state for polling and one
// self-contained HTML page (inline CSS and script allowed by their hashes in
// DASHBOARD_CSP, SVG charts drawn by hand, nothing fetched from elsewhere). It
// never shows API keys or PINs, and masks e-mails. Who may use it: access.ts.
// - one row per board (a device whose latest value is a health report);
// - a card per device: its chart (a time axis, its unit where known), its
//   history as a table with a CSV download, and for a Value device no board
//   writes, a form that stores a value through the service's own API (POST
//   /dashboard/set-value, server.ts), with what the outputs reading it did;
// - a configuration device's card edits its document as JSON, checked by the
//   board's own checker before anything is written (console-routes.ts);
// - a simulated board (npm start) adds a panel of the pins it drives.
// What is known of boards, configurations and outputs: fleet.ts.

import { createHash } from 'node:crypto';

import { readFleet } from './fleet';
import type { ConfigCard, Fleet, HealthRow, OutputReader } from './fleet';
import type { Device, HistoryEntry, Store } from './store';
import { checkXml, numericText } from './xml';

export type { ConfigCard, ConfigUser, HealthRow, OutputReader, RemoteView } from './fleet';

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
  /** The charted field's unit, where the device's configuration, its XML or its outputs tell; null when unknown. */
  unit: string | null;
  /** [epoch ms, value] for the charted field, oldest first. */
  points: [number, number][];
  /** Why a board writes this device (its readings or reports): no Set form. Null when none does, as far as the service can tell. */
  boardWrites: string | null;
  /** The outputs of boards that read this device, with their last reported counts. */
  readers: OutputReader[];
  /** A configuration device's document and its check; null for any other device. */
  config: ConfigCard | null;
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
  /** The devices the simulated board writes its readings to: their cards get no Set form. */
  writes?: number[];
}

export interface DashboardState {
  now: string;
  devices: DashboardDevice[];
  /** The simulated board's panel; null when the service runs without one. */
  board: BoardPanel | null;
  /** One row per board reporting its health, by board id. */
  health: HealthRow[];
}

const MAX_POINTS = 300;
const MAX_VALUE_CHARS = 200;

type Numeric = { field: string; value: number } | null;

/** What a board's readings carry beside them (src/service/encode.ts): counters and times, not readings to chart. */
const STAMPS = ['seq', 'uptime_ms', 'ts'];

/** The first numeric text or attribute value of an XML write, in document order, a board's stamps left out. */
function firstXmlReading(doc: string): Numeric {
  let found: Numeric = null;
  checkXml(doc, (kind, name, value) => {
    if (found || (kind === 'attr' && (STAMPS.includes(name) || name === 'unit'))) return;
    const n = numericText(value);
    if (n !== undefined) found = { field: name, value: n };
  });
  return found;
}
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
      if (STAMPS.includes(k)) continue;
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
  return firstXmlReading(content);
}

/** A health report's charted number: the heap in use after a collection. */
function heapOf(content: string): Numeric {
  try {
    const h = JSON.parse(content) as { heap?: { used?: unknown } };
    const used = h && h.heap ? h.heap.used : undefined;
    return typeof used === 'number' && Number.isFinite(used) ? { field: 'heap.used', value: used } : null;
  } catch {
    return null;
  }
}

const healthCache = new WeakMap<HistoryEntry, Numeric>();

/** The charted number of one write: a health device's heap in use, else the first numeric field. */
export function chartedOf(dev: Device, e: HistoryEntry, health: boolean): Numeric {
  const cache = health ? healthCache : numericCache;
  let r = cache.get(e);
  if (r === undefined) {
    r = health ? heapOf(e.content) : numericOf(dev.format, e.content);
    cache.set(e, r);
  }
  return r;
}

/** The charted field of a device's kept history (the first seen), null when none is numeric. */
export function chartedField(dev: Device, health: boolean): string | null {
  const hist = dev.history;
  for (let i = Math.max(0, hist.length - MAX_POINTS); i < hist.length; i++) {
    const n = chartedOf(dev, hist[i] as HistoryEntry, health);
    if (n) return n.field;
  }
  return null;
}

export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at >= 0 ? email.slice(0, at) : email;
  const domain = at >= 0 ? email.slice(at) : '';
  return (local.slice(0, 1) || '?') + '***' + domain;
}

/** Devices boards write, with the simulated board's own (npm start) added. */
export function boardWritten(fleet: Fleet, board: BoardPanel | null): Map<number, string> {
  const written = new Map(fleet.written);
  if (board && Array.isArray(board.writes)) {
    for (const id of board.writes) if (!written.has(id)) written.set(id, `readings of the simulated board (${board.title})`);
  }
  return written;
}

/** The state the page polls. `maxBytes`: the service's largest JSON body, which a document must fit. */
export function dashboardState(store: Store, nowMs = Date.now(), board: BoardPanel | null = null, maxBytes = 16384, fleet?: Fleet): DashboardState {
  const f = fleet ?? readFleet(store, nowMs, maxBytes);
  const written = boardWritten(f, board);
  const devices: DashboardDevice[] = [];
  for (const dev of store.devices.values()) {
    const health = f.reports.has(dev.id);
    let field: string | null = null;
    const points: [number, number][] = [];
    const hist = dev.history;
    // A configuration's numbers (pins, periods) are no series to chart.
    const from = f.configs.has(dev.id) ? hist.length : Math.max(0, hist.length - MAX_POINTS);
    for (let i = from; i < hist.length; i++) {
      const e = hist[i] as HistoryEntry;
      const n = chartedOf(dev, e, health);
      if (!n) continue;
      if (field === null) field = n.field;
      if (n.field !== field) continue; // keep one series per chart
      points.push([Date.parse(e.at), n.value]);
    }
    const config = f.card(dev.id) ?? null;
    // A configuration's PINs and secrets are not shown, here either.
    const content = config ? (dev.content === undefined ? undefined : JSON.stringify(JSON.parse(config.document || '{}'))) : dev.content;
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
      unit: f.unitOf(dev, field),
      points,
      boardWrites: written.get(dev.id) ?? null,
      readers: (f.readers.get(dev.id) ?? []).map((r) => r.view),
      config,
    });
  }
  devices.sort((a, b) => a.id - b.id);
  return { now: new Date(nowMs).toISOString(), devices, health: f.rows, board };
}

// The page's style and script, inline (the page stays one self-contained file)
// and allowed by their hashes in the page's Content-Security-Policy: nothing
// else may run or style it, and no element carries a handler or a style.
// Narrow screens (a phone, 420 px): tables turn into one block per row with
// each cell labelled, cards take the whole width, nothing scrolls sideways.
const STYLE = `
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #fafafa; overflow-wrap: anywhere; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
h2 { font-size: 1.1em; }
#status { color: #666; margin-bottom: 1em; }
#status.offline { color: #b00; }
#devices { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(340px, 100%), 1fr)); gap: 1em; }
.device { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .8em 1em; min-width: 0; }
.device.config-device { grid-column: 1 / -1; }
.device h2 { font-size: 1.05em; margin: 0 0 .3em; }
.device dl { display: grid; grid-template-columns: auto 1fr; gap: .1em .8em; margin: 0 0 .5em; }
.device dt { color: #777; }
.device dd { margin: 0; overflow-wrap: anywhere; font-family: ui-monospace, monospace; min-width: 0; }
.chart { display: block; width: 100%; max-width: 640px; height: auto; background: #f4f7fb; border-radius: 4px; }
.config-device .chart { display: none; }
.table-wrap { max-width: 100%; overflow-x: auto; }
.chart polyline { fill: none; stroke: #1a6fd0; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
.chart .chart-axes { fill: none; stroke: #999; stroke-width: 1; vector-effect: non-scaling-stroke; }
.chart text { font-size: 10px; fill: #555; font-family: system-ui, sans-serif; }
.chart .chart-unit { font-weight: bold; fill: #333; }
#empty { color: #777; }
table.rows { border-collapse: collapse; margin: 0 0 1.2em; background: #fff; max-width: 100%; }
table.rows th, table.rows td { border: 1px solid #ddd; padding: .25em .6em; text-align: left; font-family: ui-monospace, monospace; vertical-align: top; }
table.rows th { font-family: system-ui, sans-serif; color: #555; background: #f0f0f0; white-space: nowrap; }
table.rows td { overflow-wrap: break-word; }
#health tr.silent td { color: #b00; background: #fff4f4; }
#health td.health-remote.refused, #health td.health-remote.reverted { color: #b00; }
#health td.health-held.some { color: #a60; }
#board-title { color: #666; margin: 0 0 .4em; }
#board tr.high td.output-level { color: #17692b; font-weight: bold; }
#board tr.released td, #board tr.idle td { color: #999; }
.set-form { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: 0 0 .5em; }
.set-value { font-family: ui-monospace, monospace; width: 9em; }
.set-answer { font-size: .9em; color: #555; overflow-wrap: anywhere; }
.set-answer.ok { color: #17692b; }
.set-answer.warn, .set-answer.error, .set-refused { color: #b00; }
.set-refused { font-size: .9em; }
.board-writes { color: #666; font-size: .9em; margin: 0 0 .5em; }
.readers { margin: 0 0 .5em; padding-left: 1.2em; font-size: .9em; color: #444; }
.readers li.refused { color: #b00; }
.config { margin: 0 0 .6em; }
.config-users { margin: 0 0 .4em; padding-left: 1.2em; font-size: .9em; }
.config-users li.current { color: #17692b; }
.config-users li.refused { color: #b00; }
.config-help { color: #666; font-size: .9em; margin: .2em 0; }
.config-text { display: block; width: 100%; min-height: 14em; font: 13px/1.35 ui-monospace, monospace; }
.config-errors, .config-ignored { margin: .3em 0; padding-left: 1.2em; font-family: ui-monospace, monospace; font-size: .9em; }
.config-errors li { color: #b00; }
.config-ignored li { color: #666; }
.config-actions { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: .3em 0; }
.config-answer { font-size: .9em; color: #555; }
.config-answer.ok { color: #17692b; }
.config-answer.error { color: #b00; }
.history summary { cursor: pointer; color: #1a4f90; margin: .4em 0; }
.history-tools { display: flex; flex-wrap: wrap; gap: .4em; align-items: center; margin: .3em 0; }
.history-note, .csv-answer { color: #666; font-size: .9em; }
.history-table { width: 100%; table-layout: fixed; font-size: .9em; }
.history-table td.history-text { overflow-wrap: anywhere; }
@media (max-width: 900px) {
  body { margin: .6em; }
  table.rows { width: 100%; }
  table.rows thead { display: none; }
  table.rows, table.rows tbody, table.rows tr, table.rows td { display: block; width: 100%; }
  table.rows tr { border: 1px solid #ccc; margin: 0 0 .6em; }
  table.rows td { border: none; border-bottom: 1px solid #eee; }
  table.rows td::before { content: attr(data-label) ": "; color: #777; font-family: system-ui, sans-serif; }
}
`;

const SCRIPT = `
"use strict";
var NS = "http://www.w3.org/2000/svg";
// The chart: a 320 x 150 drawing scaled to the card's width; the plot inside
// the axes, labels left of and below them.
var W = 320, H = 150, L = 50, R = 312, T = 16, B = 116;
var HISTORY_ROWS = 100;
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
function postJson(path, body) {
  return fetch(path, {
    method: "POST", cache: "no-store", headers: withToken({ "Content-Type": "application/json" }),
    body: JSON.stringify(body)
  }).then(function (r) { return r.text().then(function (t) { return { ok: r.ok, status: r.status, text: t }; }); });
}
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function svgEl(tag, attrs, text) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function unitText(d) {
  return (d.field ? d.field : "value") + " (" + (d.unit ? d.unit : "unit not given") + ")";
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
  var note = el("p", "board-writes");
  note.hidden = true;
  c.appendChild(note);
  var readers = el("ul", "readers");
  readers.hidden = true;
  c.appendChild(readers);
  var svg = svgEl("svg", { "class": "chart", viewBox: "0 0 " + W + " " + H, role: "img" });
  svg.appendChild(svgEl("path", { "class": "chart-axes", d: "M" + L + " " + T + "V" + B + "H" + R }));
  svg.appendChild(svgEl("polyline", { points: "" }));
  svg.appendChild(svgEl("text", { "class": "chart-unit", x: 2, y: 10 }));
  svg.appendChild(svgEl("text", { "class": "chart-max", x: L - 4, y: T + 4, "text-anchor": "end" }));
  svg.appendChild(svgEl("text", { "class": "chart-min", x: L - 4, y: B, "text-anchor": "end" }));
  svg.appendChild(svgEl("text", { "class": "chart-t0", x: L, y: B + 13 }));
  svg.appendChild(svgEl("text", { "class": "chart-t1", x: R, y: B + 13, "text-anchor": "end" }));
  svg.appendChild(svgEl("text", { "class": "chart-time", x: (L + R) / 2, y: H - 4, "text-anchor": "middle" }, "time (this browser's clock)"));
  c.appendChild(svg);
  c.appendChild(historyBox(d));
  return c;
}
// The Set form: stores a value through the service's own API (POST
// /dashboard/set-value looks up the key and PIN; the page never holds them)
// and shows the answer, then what the outputs reading the device did with it.
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
  var refused = el("span", "set-refused");
  f.appendChild(input); f.appendChild(button); f.appendChild(answer); f.appendChild(refused);
  f.addEventListener("submit", function (ev) {
    ev.preventDefault();
    button.disabled = true;
    answer.className = "set-answer pending";
    answer.textContent = "…";
    refused.textContent = "";
    // What each output had refused before this value: a later report counting more refused it.
    var before = {};
    (lastDevice[d.id] ? lastDevice[d.id].readers : []).forEach(function (r) { before[readerKey(r)] = r.refused; });
    postJson("/dashboard/set-value", { deviceId: d.id, value: input.value }).then(function (r) {
      var warn = r.ok && r.text.indexOf(" refuses it: ") >= 0;
      answer.className = "set-answer " + (warn ? "warn" : r.ok ? "ok" : "error");
      answer.textContent = r.ok ? "ok: " + r.text : "error " + r.status + ": " + r.text;
      if (r.ok) f.watch = before;
    }).catch(function (e) {
      answer.className = "set-answer error";
      answer.textContent = "error: " + e.message;
    }).then(function () { button.disabled = false; });
  });
  return f;
}
function readerKey(r) { return (r.healthId === null ? "c" + r.configId : "b" + r.healthId) + ":" + r.output; }
function renderReaders(c, d) {
  var ul = c.querySelector(".readers");
  ul.hidden = d.readers.length === 0;
  ul.textContent = "";
  d.readers.forEach(function (r) {
    var li = el("li", r.refused ? "reader refused" : "reader");
    li.setAttribute("data-output", r.output);
    li.setAttribute("data-refused", r.refused === null ? "" : String(r.refused));
    var counts = r.reads === null ? "no report of it yet" :
      r.reads + " read(s), " + r.refused + " refused, " + r.failed + " failed" + (r.ageS === null ? "" : ", reported " + dur(r.ageS) + " ago");
    li.textContent = (r.healthId === null ? r.board : "board " + r.board) + ": output " + r.output + " (" + r.kind + ", takes " + r.takes + "): " + counts;
    ul.appendChild(li);
  });
  var f = c.querySelector(".set-form");
  if (!f || !f.watch) return;
  var said = [];
  d.readers.forEach(function (r) {
    var was = f.watch[readerKey(r)];
    if (r.refused !== null && was !== undefined && was !== null && r.refused > was) said.push("output " + r.output + " of " + (r.healthId === null ? r.board : "board " + r.board) + " refused a value since (" + r.refused + " refused in all)");
  });
  if (said.length) c.querySelector(".set-refused").textContent = said.join("; ");
}
function renderWrites(c, d) {
  var note = c.querySelector(".board-writes");
  note.hidden = !d.boardWrites;
  note.textContent = d.boardWrites ? "A board writes this device (" + d.boardWrites + "): no Set form, its next write would replace a value set here." : "";
  var f = c.querySelector(".set-form");
  var want = d.format === "Value" && !d.boardWrites;
  if (want && !f) c.insertBefore(setForm(d), c.querySelector(".readers"));
  if (!want && f) f.remove();
}
// A configuration device: its document as JSON, checked as it is typed by the
// board's own checker on the service, written only when valid.
function configBox(d) {
  var box = el("div", "config");
  box.appendChild(el("h3", "", "Configuration document"));
  box.appendChild(el("ul", "config-users"));
  box.appendChild(el("p", "config-help", "The nested shape of flash.sh --config. PINs and secrets show as \\"(kept)\\": left so, the stored value is kept; a new entry's PIN is typed as a number. Boards never take wifi.*, service.url, service.apiKey or remote.* from here."));
  var text = el("textarea", "config-text");
  text.spellcheck = false;
  text.setAttribute("aria-label", "Configuration document of device " + d.id);
  box.appendChild(text);
  box.appendChild(el("ul", "config-errors"));
  box.appendChild(el("ul", "config-ignored"));
  var actions = el("div", "config-actions");
  var check = el("button", "config-check", "Check");
  check.type = "button";
  var write = el("button", "config-write", "Write");
  write.type = "button";
  var answer = el("span", "config-answer");
  actions.appendChild(check); actions.appendChild(write); actions.appendChild(answer);
  box.appendChild(actions);
  var state = { dirty: false, timer: null, seq: 0 };
  box.editor = state;
  function shown(errors, ignored) {
    var ul = box.querySelector(".config-errors");
    ul.textContent = "";
    errors.forEach(function (line) { ul.appendChild(el("li", "config-error", line)); });
    var ig = box.querySelector(".config-ignored");
    ig.textContent = "";
    ignored.forEach(function (k) { ig.appendChild(el("li", "config-ignored-key", k + ": ignored by boards (never taken from the service)")); });
  }
  box.shown = shown;
  function runCheck() {
    var mine = ++state.seq;
    postJson("/dashboard/check-config", { deviceId: d.id, document: text.value }).then(function (r) {
      if (mine !== state.seq) return;
      if (!r.ok) { answer.className = "config-answer error"; answer.textContent = "error " + r.status + ": " + r.text; return; }
      var c = JSON.parse(r.text);
      shown(c.errors, c.ignored);
      answer.className = "config-answer " + (c.errors.length ? "error" : "ok");
      answer.textContent = c.errors.length ? c.errors.length + " error(s): Write stores nothing until they are fixed" : "valid: Write stores it for the boards";
    }).catch(function (e) { answer.className = "config-answer error"; answer.textContent = "error: " + e.message; });
  }
  text.addEventListener("input", function () {
    state.dirty = true;
    answer.className = "config-answer";
    answer.textContent = "checking…";
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(function () { state.timer = null; runCheck(); }, 300);
  });
  check.addEventListener("click", runCheck);
  write.addEventListener("click", function () {
    var mine = ++state.seq;
    write.disabled = true;
    answer.className = "config-answer pending";
    answer.textContent = "…";
    postJson("/dashboard/set-config", { deviceId: d.id, document: text.value }).then(function (r) {
      if (r.status === 422) {
        if (mine === state.seq) shown(r.text.split("\\n").filter(function (l) { return l; }), []);
        answer.className = "config-answer error";
        answer.textContent = "error 422: not written; fix the lines above";
        return;
      }
      answer.className = "config-answer " + (r.ok ? "ok" : "error");
      answer.textContent = r.ok ? "ok: " + r.text : "error " + r.status + ": " + r.text;
      // Written: the card follows the stored document again.
      if (r.ok) state.dirty = false;
    }).catch(function (e) {
      answer.className = "config-answer error";
      answer.textContent = "error: " + e.message;
    }).then(function () { write.disabled = false; });
  });
  return box;
}
function renderConfig(c, d) {
  var box = c.querySelector(".config");
  c.classList.toggle("config-device", !!d.config);
  if (!d.config) { if (box) box.remove(); return; }
  if (!box) { box = configBox(d); c.insertBefore(box, c.querySelector(".chart")); }
  var cfg = d.config;
  box.setAttribute("data-crc", cfg.crc);
  var users = box.querySelector(".config-users");
  users.textContent = "";
  if (cfg.users.length === 0) users.appendChild(el("li", "config-user", "No board reports this document as its remote.id yet."));
  cfg.users.forEach(function (u) {
    var li = el("li", "config-user" + (u.current ? " current" : /^refused|^reverted|^unreadable/.test(u.outcome) ? " refused" : ""));
    li.setAttribute("data-board-id", String(u.healthId));
    li.textContent = "board " + u.board + ": " + (u.outcome || "no outcome yet") + (u.crc ? " (document crc " + u.crc + ")" : "") +
      (u.current ? ": runs the stored document" : ": not the stored document yet");
    users.appendChild(li);
  });
  var ed = box.editor;
  var text = box.querySelector(".config-text");
  if (!ed.dirty && text.value !== cfg.document) text.value = cfg.document;
  if (!ed.dirty) box.shown(cfg.errors, cfg.ignored);
}
// A device's history: the kept writes as a table (the newest first) and all
// of them as a CSV file, made by the service and handed to the browser as a
// download from this page (same origin; the token goes in the request).
function historyBox(d) {
  var det = el("details", "history");
  det.appendChild(el("summary", "", "History and CSV export"));
  var tools = el("div", "history-tools");
  var csv = el("button", "csv-button", "Download CSV");
  csv.type = "button";
  tools.appendChild(csv);
  tools.appendChild(el("span", "csv-answer"));
  det.appendChild(tools);
  det.appendChild(el("p", "history-note"));
  var t = el("table", "rows history-table");
  var head = el("thead");
  var tr = el("tr");
  ["Time", "value", "Stored text"].forEach(function (h, i) { tr.appendChild(el("th", i === 1 ? "history-unit" : "", h)); });
  head.appendChild(tr);
  t.appendChild(head);
  t.appendChild(el("tbody"));
  det.appendChild(t);
  det.addEventListener("toggle", function () { if (det.open) loadHistory(det, d.id); });
  csv.addEventListener("click", function () {
    var say = det.querySelector(".csv-answer");
    say.textContent = "…";
    fetch("/dashboard/history?deviceId=" + d.id + "&format=csv", { cache: "no-store", headers: withToken({}) }).then(function (r) {
      if (!r.ok) return r.text().then(function (t) { throw new Error(r.status + " " + t); });
      return r.blob();
    }).then(function (blob) {
      var a = el("a");
      a.href = URL.createObjectURL(blob);
      a.download = "device-" + d.id + "-history.csv";
      a.hidden = true;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(a.href); }, 60000);
      say.textContent = "saved as " + a.download;
    }).catch(function (e) { say.textContent = "error: " + e.message; });
  });
  return det;
}
function loadHistory(det, id) {
  fetch("/dashboard/history?deviceId=" + id, { cache: "no-store", headers: withToken({}) }).then(function (r) {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.json();
  }).then(function (h) {
    det.loaded = h.writes;
    det.querySelector(".history-unit").textContent = (h.field ? h.field : "value") + " (" + (h.unit ? h.unit : "unit not given") + ")";
    var shown = h.rows.slice(-HISTORY_ROWS).reverse();
    det.querySelector(".history-note").textContent = h.rows.length === 0 ? "No writes yet." :
      "The newest " + shown.length + " of the " + h.kept + " writes kept (" + h.writes + " in all); the CSV has every kept write.";
    var body = det.querySelector("tbody");
    body.textContent = "";
    shown.forEach(function (r) {
      var tr = el("tr", "history-row");
      tr.setAttribute("data-at", r.at);
      [["Time", "history-time", new Date(r.at).toLocaleString()], ["Value", "history-value", r.value === null ? "—" : String(r.value)],
       ["Stored text", "history-text", r.content]].forEach(function (p) {
        var td = el("td", p[1], p[2]);
        td.setAttribute("data-label", p[0]);
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }).catch(function (e) { det.querySelector(".history-note").textContent = "history not loaded: " + e.message; });
}
function short(v) {
  var a = Math.abs(v);
  return a !== 0 && (a >= 1e6 || a < 1e-3) ? v.toPrecision(3) : String(Math.round(v * 1000) / 1000);
}
function clock(ms, span) {
  var t = new Date(ms);
  return span > 86400000 ? t.toLocaleDateString() + " " + t.toLocaleTimeString() : t.toLocaleTimeString();
}
function draw(svg, d) {
  var points = d.points;
  var line = svg.querySelector("polyline");
  var q = function (c) { return svg.querySelector("." + c); };
  svg.setAttribute("data-points", String(points.length));
  svg.setAttribute("aria-label", unitText(d) + " over time, " + points.length + " point(s)");
  q("chart-unit").textContent = points.length ? unitText(d) : "no numeric values to chart";
  if (points.length === 0) {
    line.setAttribute("points", "");
    ["chart-min", "chart-max", "chart-t0", "chart-t1"].forEach(function (c) { q(c).textContent = ""; });
    return;
  }
  var t0 = points[0][0], t1 = points[points.length - 1][0];
  var v0 = Infinity, v1 = -Infinity;
  points.forEach(function (p) { if (p[1] < v0) v0 = p[1]; if (p[1] > v1) v1 = p[1]; });
  var dt = t1 - t0 || 1, dv = v1 - v0 || 1;
  var n = points.length;
  line.setAttribute("points", points.map(function (p, i) {
    var x = n === 1 ? (L + R) / 2 : L + (t1 === t0 ? i / (n - 1) : (p[0] - t0) / dt) * (R - L);
    var y = v1 === v0 ? (T + B) / 2 : B - ((p[1] - v0) / dv) * (B - T);
    return x.toFixed(1) + "," + y.toFixed(1);
  }).join(" "));
  // The unit is the caption's (a chart's axis title), not each label's.
  q("chart-min").textContent = short(v0);
  q("chart-max").textContent = short(v1);
  q("chart-t0").textContent = clock(t0, t1 - t0);
  q("chart-t1").textContent = n === 1 ? "" : clock(t1, t1 - t0);
}
function ago(iso, now) {
  if (!iso) return "never";
  var s = Math.max(0, Math.round((Date.parse(now) - Date.parse(iso)) / 1000));
  var t = new Date(iso).toLocaleTimeString();
  return t + " (" + (s < 60 ? s + " s" : s < 3600 ? Math.round(s / 60) + " min" : Math.round(s / 3600) + " h") + " ago)";
}
var lastDevice = {};
function render(state) {
  var box = document.getElementById("devices");
  document.getElementById("empty").hidden = state.devices.length > 0;
  state.devices.forEach(function (d) {
    lastDevice[d.id] = d;
    var c = box.querySelector('[data-device-id="' + d.id + '"]');
    if (!c) { c = card(d); box.appendChild(c); }
    c.setAttribute("data-format", d.format);
    c.setAttribute("data-board-writes", d.boardWrites ? "yes" : "no");
    c.querySelector(".device-name").textContent = d.name;
    c.querySelector(".device-format").textContent = d.format + (d.field ? " (chart: " + d.field + ")" : "");
    c.querySelector(".last-value").textContent = d.lastValue === null ? "—" : d.lastValue;
    c.querySelector(".last-seen").textContent = ago(d.lastSeen, state.now);
    c.querySelector(".write-count").textContent = String(d.writes);
    renderWrites(c, d);
    renderReaders(c, d);
    renderConfig(c, d);
    draw(c.querySelector(".chart"), d);
    var det = c.querySelector(".history");
    if (det.open && det.loaded !== d.writes) { det.loaded = d.writes; loadHistory(det, d.id); }
  });
}
function dur(s) {
  return s < 120 ? s + " s" : s < 7200 ? Math.round(s / 60) + " min" : s < 172800 ? Math.round(s / 3600) + " h" : Math.round(s / 86400) + " d";
}
function remoteText(m) {
  if (!m) return "none (no remote.id)";
  return "#" + (m.id === null ? "?" : m.id) + " " + (m.crc ? "crc " + m.crc : "no document") + ": " + (m.outcome || "—") +
    (m.ignored.length ? "; ignored: " + m.ignored.join(", ") : "") + (m.atS === null ? "" : "; seen " + dur(m.atS) + " ago");
}
function renderHealth(rows) {
  document.getElementById("health-box").hidden = rows.length === 0;
  var body = document.querySelector("#health tbody");
  body.textContent = "";
  rows.forEach(function (r) {
    var tr = el("tr", r.silent ? "silent" : "ok");
    tr.setAttribute("data-device-id", String(r.id));
    tr.setAttribute("data-config-crc", r.configCrc || "");
    tr.setAttribute("data-remote-outcome", r.remote ? r.remote.outcome : "");
    var remoteCls = !r.remote ? "" : /^refused/.test(r.remote.outcome) ? " refused" : /^reverted/.test(r.remote.outcome) ? " reverted" : "";
    [["Board", "health-board", r.board + (r.uid ? " " + r.uid : "")],
     ["Device", "health-device", r.name + " #" + r.id],
     ["Firmware", "health-fw", r.fw],
     ["Boot", "health-boot", String(r.boot)],
     ["Up", "health-up", dur(r.uptimeS)],
     ["Last report", "health-age", dur(r.ageS) + " ago (every " + dur(r.intervalS) + ")"],
     ["Configuration", "health-config", (r.configCrc || "—") + " (" + (r.configSource || "source not reported") + ")"],
     ["Last document", "health-remote" + remoteCls, remoteText(r.remote)],
     ["Heap", "health-heap", r.heapUsed === null ? "—" : r.heapUsed + " B used" + (r.heapPeak === null ? "" : ", peak " + r.heapPeak + " B") + (r.heapTotal === null ? "" : " of " + r.heapTotal + " B")],
     ["Outbox", "health-outbox", r.outboxDepth === null ? "—" : r.outboxDepth + " queued" + (r.dropped ? ", " + r.dropped + " dropped" : "")],
     ["Last reset", "health-reset", r.lastReset || "—"],
     ["Held devices", "health-held" + (r.held.length ? " some" : ""), r.held.length ? r.held.map(function (x) {
       return x.device + (x.status === null ? "" : " (" + x.status + ")") + (x.reason ? ": " + x.reason : "");
     }).join("; ") : "none"],
     ["State", "health-state", r.silent ? "SILENT" : r.mode && r.mode !== "running" ? r.mode : "ok"]].forEach(function (p) {
      var td = el("td", p[1], p[2]);
      td.setAttribute("data-label", p[0]);
      tr.appendChild(td);
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
    [["output-gpio", "GP" + o.gpio, "Pin"], ["output-name", o.name || "—", "Output"],
     ["output-kind", o.kind + (o.kind === "pwm" && o.freqHz !== null ? " " + o.freqHz + " Hz" : ""), "Kind"],
     ["output-level", level(o), "Level"], ["output-writes", String(o.writes), "Writes"]].forEach(function (p) {
      var td = el("td", p[0], p[1]);
      td.setAttribute("data-label", p[2]);
      tr.appendChild(td);
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
    st.textContent = s.devices.length + " device(s), " + (s.health || []).length + " board(s), updated " + new Date(s.now).toLocaleTimeString();
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
<div class="table-wrap"><table id="board" class="rows"><thead><tr><th>Pin</th><th>Output</th><th>Kind</th><th>Level</th><th>Writes</th></tr></thead><tbody></tbody></table></div>
<p id="board-empty" hidden>No outputs configured or driven.</p>
</section>
<section id="health-box" hidden>
<h2>Boards</h2>
<div class="table-wrap"><table id="health" class="rows"><thead><tr><th>Board</th><th>Device</th><th>Firmware</th><th>Boot</th><th>Up</th><th>Last report</th><th>Configuration</th><th>Last document</th><th>Heap</th><th>Outbox</th><th>Last reset</th><th>Held devices</th><th>State</th></tr></thead><tbody></tbody></table></div>
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
