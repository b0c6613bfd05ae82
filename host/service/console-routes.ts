// The dashboard's requests beyond its page, state and set-value (issue 36):
//   POST /dashboard/check-config {deviceId, document}  -> 200 {errors, ignored}; writes nothing
//   POST /dashboard/set-config   {deviceId, document}  -> the API's answer, or 422 with one line per error
//   GET  /dashboard/history?deviceId=N[&format=csv]    -> the kept writes, as JSON or as a CSV download
//   GET  /favicon.ico                                   -> the page's icon
// server.ts runs the dashboard's access checks (access.ts: Host 421, Origin
// 403, token 401) before any of these, reads the body (JSON only, 415
// otherwise) and sends the answer. A document is written only when valid,
// through the API's own updatedevicejson with the owner's key and the
// device's PIN looked up here, the path a board's read comes back through.

import { deflateSync } from 'node:zlib';

import { crc32 } from '../../src/queue/crc32';
import { checkDocument } from './config-doc';
import { boardWritten, chartedField, chartedOf } from './dashboard';
import type { BoardPanel } from './dashboard';
import { readFleet } from './fleet';
import type { Fleet } from './fleet';
import { historyCsv, historyOf } from './history';
import type { Device, HistoryEntry, Store } from './store';

export interface RouteAnswer {
  status: number;
  body: string | Buffer;
  type: string;
  headers?: Record<string, string>;
}

export interface RouteContext {
  store: Store;
  /** The service's largest POST body: a document must fit in it. */
  maxBody: number;
  board(): BoardPanel | null;
  /** An API request made inside the service, through its own path parsing and operation code. */
  dispatch(method: 'GET' | 'POST', path: string, body?: Buffer): { status: number; body: string; type: string };
}

export interface Route {
  method: 'GET' | 'POST';
  /** Served without the token and without the Origin check, like the page (it holds no data). */
  page?: boolean;
  run(ctx: RouteContext, input: { query: URLSearchParams; body: unknown }): RouteAnswer;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

const text = (status: number, body: string): RouteAnswer => ({ status, body, type: TEXT });

/** The device a request names in `deviceId` (a whole number from 1), or the 400 answer. */
function deviceOf(store: Store, v: unknown): Device | RouteAnswer {
  const id = typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : v;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return text(400, 'deviceId: must be a whole number from 1');
  const dev = store.devices.get(id);
  return dev ?? text(400, `deviceId: no device ${id}`);
}

const BODY_RULE = 'body: must be a JSON object {"deviceId": <number>, "document": <the configuration as JSON text>}';

/** The configuration device and the typed document a check or write names, or the 400 answer. */
function documentRequest(ctx: RouteContext, body: unknown): { dev: Device; typed: string; fleet: Fleet } | RouteAnswer {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return text(400, BODY_RULE);
  const b = body as Record<string, unknown>;
  const dev = deviceOf(ctx.store, b.deviceId);
  if (!('id' in dev)) return dev;
  if (dev.format !== 'JSON') return text(400, `deviceId: device ${dev.id} holds ${dev.format}; a configuration is a JSON device`);
  const fleet = readFleet(ctx.store, Date.now(), ctx.maxBody);
  const why = boardWritten(fleet, ctx.board()).get(dev.id);
  if (why) return text(400, `deviceId: device ${dev.id} holds ${why}; a configuration needs a JSON device of its own`);
  if (typeof b.document !== 'string') return text(400, 'document: must be a string, the configuration as JSON text');
  return { dev, typed: b.document, fleet };
}

const isAnswer = (x: object): x is RouteAnswer => 'status' in x;

export const CONSOLE_ROUTES: Record<string, Route> = {
  '/dashboard/check-config': {
    method: 'POST',
    run(ctx, { body }) {
      const r = documentRequest(ctx, body);
      if (isAnswer(r)) return r;
      const c = checkDocument(r.typed, r.dev.content, { maxBytes: ctx.maxBody });
      return { status: 200, body: JSON.stringify({ errors: c.errors, ignored: c.ignored }), type: JSON_TYPE };
    },
  },

  '/dashboard/set-config': {
    method: 'POST',
    run(ctx, { body }) {
      const r = documentRequest(ctx, body);
      if (isAnswer(r)) return r;
      const c = checkDocument(r.typed, r.dev.content, { maxBytes: ctx.maxBody });
      // Nothing is written unless every rule holds: one line per broken rule.
      if (c.errors.length > 0 || c.text === undefined) return text(422, c.errors.join('\n'));
      const acc = ctx.store.accounts.get(r.dev.owner);
      if (!acc) return text(400, `deviceId: device ${r.dev.id} has no account`);
      const a = ctx.dispatch('POST', `/api/updatedevicejson/${encodeURIComponent(acc.apiKey)}/${r.dev.id}/${r.dev.pin}`, Buffer.from(c.text, 'utf8'));
      const note = a.status === 200 && c.ignored.length > 0 ? `; ignored by boards: ${c.ignored.join(', ')}` : '';
      return { status: a.status, body: a.body + note, type: a.type };
    },
  },

  '/dashboard/history': {
    method: 'GET',
    run(ctx, { query }) {
      const dev = deviceOf(ctx.store, query.get('deviceId'));
      if (!('id' in dev)) return dev;
      const format = query.get('format') ?? 'json';
      if (format !== 'json' && format !== 'csv') return text(400, 'format: must be json or csv');
      const fleet = readFleet(ctx.store, Date.now(), ctx.maxBody);
      const health = fleet.reports.has(dev.id);
      const field = chartedField(dev, health);
      const numberOf = (e: HistoryEntry): number | null => {
        const n = chartedOf(dev, e, health);
        return n && n.field === field ? n.value : null;
      };
      const h = historyOf(dev, field, fleet.unitOf(dev, field), numberOf, fleet.configs.has(dev.id));
      if (format === 'json') return { status: 200, body: JSON.stringify(h), type: JSON_TYPE };
      return {
        status: 200,
        body: historyCsv(h),
        type: 'text/csv; charset=utf-8; header=present',
        headers: { 'Content-Disposition': `attachment; filename="device-${dev.id}-history.csv"` },
      };
    },
  },

  '/favicon.ico': {
    method: 'GET',
    page: true,
    run() {
      return { status: 200, body: favicon(), type: 'image/png', headers: { 'Cache-Control': 'max-age=86400' } };
    },
  },
};

let icon: Buffer | undefined;

/** A 16 x 16 PNG: a blue tile with a white rising line, the dashboard's chart in small. */
function favicon(): Buffer {
  if (icon) return icon;
  const size = 16;
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    const row = y * (size * 4 + 1);
    raw[row] = 0; // no filter
    for (let x = 0; x < size; x++) {
      // The line rises from the lower left to the upper right, two pixels thick.
      const onLine = x >= 2 && x <= 13 && Math.abs(13 - y - Math.round((x - 2) * 0.8)) <= 1;
      const p = row + 1 + x * 4;
      const [r, g, b] = onLine ? [255, 255, 255] : [26, 111, 208];
      raw[p] = r;
      raw[p + 1] = g;
      raw[p + 2] = b;
      raw[p + 3] = 255;
    }
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td, 0, td.length));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  icon = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return icon;
}
