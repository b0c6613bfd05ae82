// What the dashboard knows of the boards behind the devices (issue 36), read
// from what the service holds and nothing else:
// - a device whose latest value is a health report (src/agent/health.ts) is a
//   board: one row of the fleet table;
// - a JSON device whose document reads as a configuration, or that a board's
//   report names as its remote.id, is a configuration device: a card that
//   edits it (config-doc.ts);
// - a configuration's devices are devices boards write their readings to (no
//   Set form), as are health-report devices, a device a board reports as held
//   (by its name, in that board's account) and any device whose latest write
//   carries the seq/uptime_ms fields of a board's readings;
// - a configuration's outputs read their source device: tied to the board
//   whose report names that configuration (its remote.id; without one, the
//   board reporting to the configuration's health.id), each output's counts of
//   reads and refused values are shown on the source device's card, where
//   values are set.

import { levelOf } from '../../src/agent/output-read';
import { quantitiesOf } from '../../src/config/schema';
import type { AgentConfig, OutputConfig } from '../../src/config/types';
import { crc32 } from '../../src/queue/crc32';
import { UNITS } from '../../src/sensors/i2c/kinds';
import { checkDocument, documentForPage, looksLikeConfig } from './config-doc';
import type { DocumentCheck } from './config-doc';
import type { Device, Store } from './store';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The health report in a JSON device's content, or undefined when it holds something else. */
export function healthOf(content: string | undefined): Obj | undefined {
  if (!content || content.charAt(0) !== '{' || content.indexOf('"intervalS"') < 0) return undefined;
  try {
    const r = JSON.parse(content) as Obj;
    return typeof r.fw === 'string' && typeof r.board === 'string' && typeof r.intervalS === 'number' && typeof r.uptimeS === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a stored write is a board's readings: JSON or XML carrying seq and uptime_ms. */
export function isReadings(format: string, content: string | undefined): boolean {
  if (!content) return false;
  if (format === 'XML') return /\bseq\s*=\s*["']/.test(content) && /\buptime_ms\s*=\s*["']/.test(content);
  if (format !== 'JSON' || content.indexOf('"uptime_ms"') < 0) return false;
  try {
    const v = JSON.parse(content) as unknown;
    const first = Array.isArray(v) ? (v[0] as unknown) : v;
    return isObj(first) && first.seq !== undefined && first.uptime_ms !== undefined;
  } catch {
    return false;
  }
}

/** CRC-32 of a text's UTF-8 bytes, as a board reports one (lower-case hex, no padding). */
export function crcOf(text: string): string {
  const b = Buffer.from(text, 'utf8');
  return crc32(b, 0, b.length).toString(16);
}

/** An object with its own keys in sorted order (each made own, even __proto__), for canonicalText's stringify. */
function sortedKeys(this: unknown, _key: string, v: unknown): unknown {
  if (!isObj(v)) return v;
  const o: Obj = {};
  for (const k of Object.keys(v).sort()) Object.defineProperty(o, k, { value: v[k], enumerable: true, writable: true, configurable: true });
  return o;
}

/** A document's content as a board compares it: compact JSON with every object's keys sorted (its text trimmed when not JSON). */
export function canonicalText(text: string): string {
  const t = text.trim();
  try {
    return JSON.stringify(JSON.parse(t), sortedKeys);
  } catch {
    return t;
  }
}

/** The CRC a board reports for a document it read (src/agent/remote-apply.ts): of its canonical text. */
export function documentCrc(text: string): string {
  return crcOf(canonicalText(text));
}

/** The last document a board saw, as its report says. */
export interface RemoteView {
  id: number | null;
  crc: string | null;
  outcome: string;
  ignored: string[];
  atS: number | null;
}

/** One board: its latest health report, read. */
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
  mode: string | null;
  heapUsed: number | null;
  heapPeak: number | null;
  heapTotal: number | null;
  outboxDepth: number | null;
  dropped: number | null;
  /** CRC of the board's config.json, and where that configuration came from. */
  configCrc: string | null;
  configSource: string | null;
  remote: RemoteView | null;
  lastReset: string | null;
  /** Devices whose writes the service refuses, by their names in the board's configuration. */
  held: { device: string; status: number | null; reason: string }[];
  error: string | null;
  /** No report for more than two intervals. */
  silent: boolean;
}

/** A board using a configuration device, and whether it runs the stored document. */
export interface ConfigUser {
  /** The board's health device. */
  healthId: number;
  board: string;
  crc: string | null;
  outcome: string;
  /** The CRC the board reports is the stored document's. */
  current: boolean;
}

/** A configuration device's card: the document (PINs and secrets shown as KEPT) and its check. */
export interface ConfigCard {
  document: string;
  /** CRC of the stored document as a board reports it (documentCrc), '' before the first write. */
  crc: string;
  errors: string[];
  ignored: string[];
  users: ConfigUser[];
}

/** An output that reads a device, with what its board last reported of it. */
export interface OutputReader {
  /** The board ('pico-w E661…'), or 'configuration #N' when no board reports that configuration. */
  board: string;
  healthId: number | null;
  configId: number;
  output: string;
  kind: string;
  /** What the output takes: '0/1 (on/off)' or a duty's range. */
  takes: string;
  reads: number | null;
  failed: number | null;
  refused: number | null;
  level: number | null;
  /** Seconds since that report, null without one. */
  ageS: number | null;
}

interface Reader {
  view: OutputReader;
  c: Pick<OutputConfig, 'kind' | 'scale' | 'field'>;
}

interface ConfigInfo {
  dev: Device;
  doc: Obj | undefined;
  check: DocumentCheck;
  users: number[];
}

/** Everything the dashboard shows about boards, configurations and outputs, for one poll. */
export interface Fleet {
  rows: HealthRow[];
  /** Health devices by id, with their parsed report. */
  reports: Map<number, Obj>;
  configs: Map<number, ConfigInfo>;
  /** Devices boards write their readings to, with why the dashboard says so. */
  written: Map<number, string>;
  readers: Map<number, Reader[]>;
  /** A unit for a device's charted field, where one is known. */
  unitOf(dev: Device, field: string | null): string | null;
  card(id: number): ConfigCard | undefined;
}

// Parsing every device's latest content once per write, not once per poll.
const parsed = new WeakMap<Device, { writes: number; value: unknown }>();
function latestJson(dev: Device): unknown {
  if (dev.format !== 'JSON' || dev.content === undefined) return undefined;
  const c = parsed.get(dev);
  if (c && c.writes === dev.writes) return c.value;
  let value: unknown;
  try {
    value = JSON.parse(dev.content) as unknown;
  } catch {
    value = undefined;
  }
  parsed.set(dev, { writes: dev.writes, value });
  return value;
}
const checked = new WeakMap<Device, { writes: number; check: DocumentCheck }>();
function storedCheck(dev: Device, maxBytes: number): DocumentCheck {
  const c = checked.get(dev);
  if (c && c.writes === dev.writes) return c.check;
  const check = dev.content === undefined ? { errors: [], ignored: [] } : checkDocument(dev.content, dev.content, { maxBytes });
  checked.set(dev, { writes: dev.writes, check });
  return check;
}

function remoteOf(v: unknown): RemoteView | null {
  if (!isObj(v)) return null;
  return {
    id: num(v.id),
    crc: str(v.crc),
    outcome: str(v.outcome) ?? '',
    ignored: Array.isArray(v.ignored) ? v.ignored.filter((k): k is string => typeof k === 'string') : [],
    atS: num(v.atS),
  };
}

function rowOf(dev: Device, h: Obj, nowMs: number): HealthRow {
  const ageS = Math.max(0, Math.round((nowMs - Date.parse(dev.lastAt as string)) / 1000));
  const heap = isObj(h.heap) ? h.heap : {};
  const box = isObj(h.outbox) ? h.outbox : {};
  const held: HealthRow['held'] = [];
  if (isObj(h.held)) {
    for (const [device, x] of Object.entries(h.held)) {
      const o = isObj(x) ? x : {};
      held.push({ device, status: num(o.status), reason: str(o.reason) ?? '' });
    }
  }
  return {
    id: dev.id,
    name: dev.name,
    board: h.board as string,
    uid: str(h.uid) ?? '',
    fw: h.fw as string,
    boot: num(h.boot) ?? 0,
    uptimeS: h.uptimeS as number,
    ageS,
    intervalS: h.intervalS as number,
    mode: str(h.mode),
    heapUsed: num(heap.used),
    heapPeak: num(heap.peak),
    heapTotal: num(heap.total),
    outboxDepth: num(box.depth),
    dropped: num(box.dropped),
    configCrc: str(h.config),
    configSource: str(h.configSource),
    remote: remoteOf(h.remote),
    lastReset: str(h.lastReset),
    held,
    error: str(h.error),
    silent: ageS > 2 * (h.intervalS as number),
  };
}

const boardLabel = (r: HealthRow): string => r.board + (r.uid ? ' ' + r.uid : '');

/** What an output takes, for a person. */
function takes(kind: string, scale: number): string {
  if (kind === 'digital') return '0/1, on/off or true/false';
  return scale === 1 ? 'duty 0..1' : `0..${scale}, duty = value / ${scale}`;
}

export function readFleet(store: Store, nowMs: number, maxBytes: number): Fleet {
  const rows: HealthRow[] = [];
  const reports = new Map<number, Obj>();
  const configs = new Map<number, ConfigInfo>();
  const written = new Map<number, string>();
  const readers = new Map<number, Reader[]>();
  const named = new Map<number, number[]>(); // configuration device id -> health devices naming it

  for (const dev of store.devices.values()) {
    if (dev.format !== 'JSON') continue;
    const h = healthOf(dev.content);
    if (!h || !dev.lastAt) continue;
    const row = rowOf(dev, h, nowMs);
    rows.push(row);
    reports.set(dev.id, h);
    written.set(dev.id, `the health reports of board ${boardLabel(row)}`);
    const rid = row.remote ? row.remote.id : null;
    if (rid !== null) named.set(rid, (named.get(rid) ?? []).concat(dev.id));
    // A held device, by its name in the board's configuration, among the devices of the board's account.
    for (const x of row.held) {
      for (const d of store.devices.values()) {
        if (d.owner === dev.owner && d.name === x.device && !written.has(d.id)) written.set(d.id, `readings of board ${boardLabel(row)} (held: ${x.device})`);
      }
    }
  }
  rows.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : a.id - b.id));
  const rowById = new Map(rows.map((r) => [r.id, r]));

  for (const dev of store.devices.values()) {
    if (dev.format !== 'JSON' || reports.has(dev.id)) continue;
    const v = latestJson(dev);
    const users = named.get(dev.id) ?? [];
    if (!looksLikeConfig(v) && users.length === 0) continue;
    configs.set(dev.id, { dev, doc: isObj(v) ? v : undefined, check: storedCheck(dev, maxBytes), users });
  }

  const unitsOf = new Map<number, Map<string, string>>(); // device id -> field -> unit
  for (const [cid, info] of configs) {
    const doc = info.doc;
    if (!doc) continue;
    const cfg: AgentConfig | undefined = info.check.config;
    // Each sensor's unit, from the checked configuration (its defaults filled in) or as written.
    const sensorUnits = new Map<string, string>();
    const sensors = cfg ? cfg.sensors : Array.isArray(doc.sensors) ? (doc.sensors as Obj[]) : [];
    for (const s of sensors as unknown as Obj[]) {
      if (!isObj(s) || typeof s.name !== 'string') continue;
      if (typeof s.unit === 'string') sensorUnits.set(s.name, s.unit);
      for (const q of (typeof s.kind === 'string' && quantitiesOf(s.kind)) || []) sensorUnits.set(`${s.name}.${q}`, UNITS[q] ?? '');
    }
    const devices = Array.isArray(doc.devices) ? doc.devices : [];
    for (const d of devices) {
      if (!isObj(d) || typeof d.deviceId !== 'number') continue;
      if (!written.has(d.deviceId)) written.set(d.deviceId, `readings of device ${String(d.name)} in configuration #${cid}`);
      const m = unitsOf.get(d.deviceId) ?? new Map<string, string>();
      const carried = Array.isArray(d.sensors) ? d.sensors : typeof d.sensors === 'string' ? d.sensors.split(',').map((x) => x.trim()) : [];
      for (const n of carried) {
        if (typeof n !== 'string') continue;
        for (const [k, u] of sensorUnits) if (k === n || k.startsWith(n + '.')) m.set(k, u);
        // A Value device carries one reading: its unit is the device's.
        if (d.format === 'Value' && sensorUnits.has(n)) m.set('', sensorUnits.get(n) as string);
      }
      unitsOf.set(d.deviceId, m);
    }
    const outputs = Array.isArray(doc.outputs) ? doc.outputs : [];
    // The boards running it: those whose report names it as their remote.id, else
    // the one reporting to the health device it names (a board set up with it).
    const hid = isObj(doc.health) && typeof doc.health.id === 'number' && reports.has(doc.health.id) ? doc.health.id : undefined;
    const runners = info.users.length > 0 ? info.users : hid !== undefined ? [hid] : [];
    const users = runners.length > 0 ? runners : [null];
    for (const o of outputs) {
      if (!isObj(o) || typeof o.sourceId !== 'number' || typeof o.name !== 'string') continue;
      const kind = o.kind === 'pwm' ? 'pwm' : 'digital';
      const scale = typeof o.scale === 'number' && o.scale > 0 ? o.scale : 1;
      const field = typeof o.field === 'string' ? o.field : '';
      for (const hid of users) {
        const row = hid === null ? undefined : rowById.get(hid);
        const rep = hid === null ? undefined : reports.get(hid);
        const outs = rep && isObj(rep.outputs) ? rep.outputs : {};
        const mine = isObj(outs[o.name]) ? (outs[o.name] as Obj) : undefined;
        const view: OutputReader = {
          board: row ? boardLabel(row) : `configuration #${cid}`,
          healthId: row ? row.id : null,
          configId: cid,
          output: o.name,
          kind,
          takes: takes(kind, scale),
          reads: mine ? num(mine.reads) : null,
          failed: mine ? num(mine.failed) : null,
          refused: mine ? num(mine.refused) : null,
          level: mine ? num(mine.level) : null,
          ageS: row && mine ? row.ageS : null,
        };
        readers.set(o.sourceId, (readers.get(o.sourceId) ?? []).concat({ view, c: { kind, scale, field } }));
      }
    }
  }

  // Any device whose latest write is a board's readings.
  for (const dev of store.devices.values()) {
    if (!written.has(dev.id) && isReadings(dev.format, dev.content)) written.set(dev.id, 'readings of a board (its writes carry seq and uptime_ms)');
  }

  return {
    rows,
    reports,
    configs,
    written,
    readers,
    unitOf(dev, field) {
      if (reports.has(dev.id)) return field === 'heap.used' ? 'B' : null;
      const m = unitsOf.get(dev.id);
      const u = m ? m.get(field ?? '') : undefined;
      if (u !== undefined) return u;
      if (dev.format === 'XML' && field && dev.content) {
        const x = new RegExp(`<${field.replace(/[^A-Za-z0-9_.-]/g, '')}\\b[^>]*\\bunit="([^"]*)"`).exec(dev.content);
        if (x) return x[1] as string;
      }
      const rs = readers.get(dev.id);
      if (rs && rs.length > 0 && dev.format === 'Value') {
        const r = (rs[0] as Reader).view;
        return r.kind === 'digital' ? 'level 0/1' : r.takes;
      }
      return null;
    },
    card(id) {
      const info = configs.get(id);
      if (!info) return undefined;
      const crc = info.dev.content === undefined ? '' : documentCrc(info.dev.content);
      const users: ConfigUser[] = [];
      for (const hid of info.users) {
        const row = rowById.get(hid);
        if (!row || !row.remote) continue;
        users.push({ healthId: hid, board: boardLabel(row), crc: row.remote.crc, outcome: row.remote.outcome, current: crc !== '' && row.remote.crc === crc });
      }
      return { document: documentForPage(info.dev.content), crc, errors: info.check.errors, ignored: info.check.ignored, users };
    },
  };
}

/**
 * What the outputs reading `deviceId` would do with `value`: one clause per
 * output that refuses it ('output relay of board pico-w E661… refuses it: not
 * 0/1, on/off or true/false'), none when all take it or none reads the device.
 */
export function refusalsOf(fleet: Fleet, deviceId: number, value: string): string[] {
  const out: string[] = [];
  for (const r of fleet.readers.get(deviceId) ?? []) {
    if (r.c.field) continue; // reads a JSON field, not this Value device's text
    const level = levelOf(r.c as OutputConfig, value);
    if (typeof level === 'string') out.push(`output ${r.view.output} of ${r.view.board.startsWith('configuration') ? r.view.board : 'board ' + r.view.board} refuses it: ${level}`);
  }
  return out;
}
