// A local stand-in for the Device Data Service: the eight operations under
// /api/, a dashboard at /, a durable journal, and optional injected faults.
// Decisions where the spec is silent are listed in NOTES.md beside this file.

import { EventEmitter } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

import { dashboardAccess } from './access';
import type { DashboardAccess } from './access';
import { CONSOLE_ROUTES } from './console-routes';
import type { Route, RouteContext } from './console-routes';
import { DASHBOARD_CSP, DASHBOARD_HTML, boardWritten, dashboardState } from './dashboard';
import type { BoardPanel } from './dashboard';
import { readFleet, refusalsOf } from './fleet';
import { Store, StoreRefusal } from './store';
import type { Account, Device, Format, StoreOptions } from './store';
import { maskPath as maskWith } from './log-mask';
import type { MaskedOperation } from './log-mask';
import { checkXml, escapeXmlText } from './xml';

export interface FaultOptions {
  /** Delay before every /api/ request is handled. */
  latencyMs?: number;
  /** 0..1: share of /api/ requests answered 503 or 429 (with Retry-After: 1) and not carried out. */
  errorShare?: number;
  /** 0..1: share of /api/ requests whose connection is destroyed without an answer. */
  dropShare?: number;
  /**
   * While set, writes (to `deviceId` only, when given) are answered with this
   * status and body and not carried out: a refused key or device. Read at
   * every request, so a test can set and clear it while the service runs.
   */
  refuse?: { status: number; body: string; deviceId?: number };
}

export interface ServiceOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /**
   * Default '127.0.0.1'. On any address but loopback (0.0.0.0, ::, a LAN
   * address) the dashboard needs the token made at start (RunningService).
   */
  host?: string;
  dataDir: string;
  faults?: FaultOptions;
  /** Largest accepted POST body. Default 16384. */
  maxBodyBytes?: number;
  /** Per-device history kept in memory. Default 1000. */
  historyLimit?: number;
  /** The store's limits and journal settings (store.ts StoreOptions); its defaults when absent. */
  store?: Omit<StoreOptions, 'dataDir' | 'log'>;
  log?: (line: string) => void;
  /**
   * Extra state for the dashboard's "Simulated board" panel (npm start hands
   * the simulated pins here). Asked for on each dashboard poll; the service
   * knows nothing of the agent beyond what this returns.
   */
  board?: () => BoardPanel | undefined;
  /** How long a client may take; defaults in DEFAULT_TIMEOUTS. */
  timeouts?: Partial<Timeouts>;
}

export interface Timeouts {
  /** From a connection's first byte to the end of a request's head. */
  headersMs: number;
  /** From a connection's first byte to the end of a whole request, body included. */
  requestMs: number;
  /** An idle kept-alive connection between requests. */
  keepAliveMs: number;
}

/** Generous for a board on a slow link, short enough that idle or dribbling clients cannot hold sockets. */
export const DEFAULT_TIMEOUTS: Timeouts = { headersMs: 10000, requestMs: 30000, keepAliveMs: 5000 };

export interface WriteEvent {
  deviceId: number;
  deviceName: string;
  format: Format;
  content: string;
  /** Server time of the write, ISO 8601. */
  at: string;
}

export interface RunningService {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Emits 'write' with a WriteEvent after each durable write. */
  events: EventEmitter;
  /** Listening beyond loopback: the dashboard's state and set-value need `dashboardToken`. */
  exposed: boolean;
  /** When exposed, the token (random per start), sent as `Authorization: Bearer <token>`; the page takes it from `/?token=`. */
  dashboardToken: string | undefined;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';

const REASONS: Record<number, string> = {
  400: 'bad request',
  401: 'invalid API key',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  408: 'request timeout',
  409: 'format mismatch',
  413: 'body too large',
  415: 'unsupported media type',
  421: 'misdirected request',
  429: 'too many requests',
  431: 'request header too large',
  500: 'internal error',
  503: 'service unavailable',
};

/** Same body for an unknown device, a device of another account and a wrong pin. */
const NO_DEVICE = 'device not found';

interface Operation extends MaskedOperation {
  method: 'GET' | 'POST';
}

// `secret`: the params the log masks (log-mask.ts), by position.
const KEY_PIN = { 0: 'key', 2: 'hide' } as const;
const OPERATIONS: Record<string, Operation> = {
  generateapikey: { method: 'GET', params: 2, secret: { 1: 'hide' } },
  createuserdevice: { method: 'GET', params: 4, secret: { 0: 'key' } },
  updatedevicevalue: { method: 'GET', params: 4, secret: KEY_PIN },
  updatedevicejson: { method: 'POST', params: 3, secret: KEY_PIN },
  updatedevicexml: { method: 'POST', params: 3, secret: KEY_PIN },
  showdevicevalue: { method: 'GET', params: 3, secret: KEY_PIN },
  showdevicejson: { method: 'GET', params: 3, secret: KEY_PIN },
  showdevicexml: { method: 'GET', params: 3, secret: KEY_PIN },
};

const FORMAT_OF_OP: Record<string, Format> = {
  updatedevicevalue: 'Value',
  showdevicevalue: 'Value',
  updatedevicejson: 'JSON',
  showdevicejson: 'JSON',
  updatedevicexml: 'XML',
  showdevicexml: 'XML',
};

/**
 * On every answer (the dashboard page replaces the policy with its own,
 * DASHBOARD_CSP): nothing in it may load or run anything, no page may frame
 * it, no browser may read it as another type, and no Referer leaves it.
 */
const HARDENING: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

function send(res: http.ServerResponse, status: number, body: string | Buffer, type = TEXT, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', buf.length);
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(HARDENING)) res.setHeader(k, v);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(buf);
}

/** Path without query or fragment; absolute-form targets reduced to their path. */
function pathOf(target: string): string {
  let p = target;
  const cut = p.search(/[?#]/);
  if (cut >= 0) p = p.slice(0, cut);
  if (!p.startsWith('/')) {
    const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(p);
    p = m ? (m[1] ?? '/') : p;
  }
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'malformed percent-encoding in path');
  }
}

function parseInteger(name: string, s: string): number {
  if (!/^[0-9]{1,9}$/.test(s)) throw new HttpError(400, `${name} must be a non-negative integer`);
  return Number(s);
}

/** A path as the log may show it: no key, PIN or password, whatever its shape. */
function maskPath(path: string): string {
  return maskWith(path, OPERATIONS);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    // Refused as soon as it is known to be too large: announced so, before
    // any of it is read, or once more than `max` came. What follows is read
    // and dropped (up to a cap, then the socket goes) so that a client still
    // writing its body is not reset before it reads the 413.
    const refuse = (): void => {
      over = true;
      chunks.length = 0;
      let dropped = 0;
      const cap = Math.max(max * 4, 1 << 20);
      req.on('data', (c: Buffer) => {
        dropped += c.length;
        if (dropped > cap) req.socket.destroy();
      });
      reject(new HttpError(413, REASONS[413] as string, { Connection: 'close' }));
    };
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > max) {
      refuse();
      return;
    }
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > max) refuse();
      else chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks, size));
    });
    req.on('error', reject);
  });
}

/** What an operation answers: status, body and its type. */
interface Answer {
  status: number;
  body: string;
  type: string;
}

/** The timeouts with their defaults; a bad one is refused with one line naming it. */
function timeoutsOf(given: Partial<Timeouts> | undefined): Timeouts {
  const t = { ...DEFAULT_TIMEOUTS, ...given };
  for (const [name, ms] of Object.entries(t)) {
    if (!Number.isSafeInteger(ms) || ms < 1) throw new Error(`timeouts.${name}: must be a whole number of milliseconds from 1`);
  }
  if (t.headersMs > t.requestMs) throw new Error('timeouts.headersMs: must not be over timeouts.requestMs (a request includes its head)');
  return t;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function startService(o: ServiceOptions): Promise<RunningService> {
  const log = o.log ?? (() => {});
  const maxBody = o.maxBodyBytes ?? 16384;
  const faults = o.faults ?? {};
  const store = new Store({ historyLimit: o.historyLimit, ...o.store, dataDir: o.dataDir, log });
  const events = new EventEmitter();
  let closed = false;

  function deviceFor(params: string[]): { acc: Account; dev: Device } {
    const [key, idText, pinText] = params as [string, string, string];
    const id = parseInteger('DeviceID', idText);
    const pin = parseInteger('DevicePIN', pinText);
    const acc = store.accountByKey(key);
    if (!acc) throw new HttpError(401, REASONS[401] as string);
    const dev = store.devices.get(id);
    if (!dev || dev.owner !== acc.email || dev.pin !== pin) throw new HttpError(404, NO_DEVICE);
    return { acc, dev };
  }

  function checkFormat(dev: Device, op: string): void {
    const want = FORMAT_OF_OP[op];
    if (want !== dev.format) {
      throw new HttpError(409, `format mismatch: device ${dev.id} holds ${dev.format}, this operation is for ${want}`);
    }
  }

  function recordWrite(dev: Device, content: string): void {
    const at = store.write(dev, content);
    const ev: WriteEvent = { deviceId: dev.id, deviceName: dev.name, format: dev.format, content, at };
    try {
      events.emit('write', ev);
    } catch (err) {
      // A listener's failure must not turn a durable write into an error answer.
      log(`write listener failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The operation a path names, checked against the method; throws the API's 404/405. */
  function operationOf(method: string | undefined, path: string): { op: string; spec: Operation; rawSegs: string[] } {
    const rawSegs = path.slice('/api/'.length).split('/');
    const op = (rawSegs[0] ?? '').toLowerCase();
    const spec = OPERATIONS[op];
    if (!spec || rawSegs.length - 1 !== spec.params) throw new HttpError(404, REASONS[404] as string);
    if (method !== spec.method) throw new HttpError(405, REASONS[405] as string, { Allow: spec.method });
    return { op, spec, rawSegs };
  }

  /**
   * Carries out one operation once the transport is done with it (faults
   * applied, body read): segment decoding, key, device, pin, format and
   * content checks, the write. Throws HttpError for every refusal.
   */
  function perform(op: string, rawSegs: string[], body: Buffer | undefined): Answer {
    try {
      return performOp(op, rawSegs, body);
    } catch (err) {
      // The store's limits (accounts, devices per account, record size).
      if (err instanceof StoreRefusal) throw new HttpError(err.status, err.message);
      throw err;
    }
  }

  function performOp(op: string, rawSegs: string[], body: Buffer | undefined): Answer {
    const params = rawSegs.slice(1).map(decodeSegment);
    if (params.some((p) => p === '')) throw new HttpError(400, 'empty path parameter');

    switch (op) {
      case 'generateapikey': {
        const email = (params[0] as string).trim().toLowerCase();
        const password = params[1] as string;
        if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new HttpError(400, 'emailid is not an e-mail address');
        const key = store.apiKeyFor(email, password);
        if (key === undefined) throw new HttpError(401, 'invalid credentials');
        return { status: 200, body: JSON.stringify({ APIKey: key }), type: JSON_TYPE };
      }
      case 'createuserdevice': {
        const [key, name, cryptoName, formatText] = params as [string, string, string, string];
        const acc = store.accountByKey(key);
        if (!acc) throw new HttpError(401, REASONS[401] as string);
        const format = (['Value', 'JSON', 'XML'] as const).find((f) => f.toLowerCase() === formatText.toLowerCase());
        if (!format) throw new HttpError(400, 'DataFormat must be one of Value, JSON, XML');
        const dev = store.createDevice(acc, name, cryptoName, format);
        return {
          status: 200,
          body: JSON.stringify({ DeviceID: dev.id, DevicePIN: dev.pin, DeviceName: dev.name, CryptoName: dev.crypto, DataFormat: dev.format }),
          type: JSON_TYPE,
        };
      }
      case 'updatedevicevalue': {
        const { dev } = deviceFor(params.slice(0, 3));
        checkFormat(dev, op);
        const data = params[3] as string;
        // Over HTTP the request head's 16 KiB limit comes first; this holds
        // for writes dispatched in-process (the dashboard's) as well.
        if (Buffer.byteLength(data, 'utf8') > maxBody) throw new HttpError(413, `Data too large: over ${maxBody} bytes`);
        recordWrite(dev, data);
        return { status: 200, body: 'Value updated', type: TEXT };
      }
      case 'updatedevicejson':
      case 'updatedevicexml': {
        const { dev } = deviceFor(params);
        checkFormat(dev, op);
        let text: string;
        try {
          text = utf8.decode(body);
        } catch {
          throw new HttpError(400, 'body is not valid UTF-8');
        }
        if (text.trim() === '') throw new HttpError(400, 'empty body');
        if (op === 'updatedevicejson') {
          try {
            JSON.parse(text);
          } catch {
            throw new HttpError(400, 'malformed JSON');
          }
        } else {
          const r = checkXml(text);
          if (!r.ok) throw new HttpError(400, `malformed XML: ${r.error} at offset ${r.offset}`);
        }
        recordWrite(dev, text);
        return { status: 200, body: op === 'updatedevicejson' ? 'JSON updated' : 'XML updated', type: TEXT };
      }
      case 'showdevicevalue': {
        const { dev } = deviceFor(params);
        checkFormat(dev, op);
        return { status: 200, body: dev.content ?? '', type: TEXT };
      }
      case 'showdevicejson': {
        const { dev } = deviceFor(params);
        checkFormat(dev, op);
        return { status: 200, body: dev.content ?? '{}', type: JSON_TYPE };
      }
      case 'showdevicexml': {
        const { dev } = deviceFor(params);
        checkFormat(dev, op);
        return { status: 200, body: `<data>${escapeXmlText(dev.content ?? '')}</data>`, type: XML_TYPE };
      }
    }
    throw new HttpError(404, REASONS[404] as string);
  }

  async function api(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
    const { op, spec, rawSegs } = operationOf(req.method, path);

    if (faults.latencyMs && faults.latencyMs > 0) await sleep(faults.latencyMs);
    if (closed) {
      res.destroy();
      return;
    }
    if (faults.dropShare && Math.random() < faults.dropShare) {
      log(`fault: dropping ${req.method} ${maskPath(path)}`);
      res.destroy();
      req.socket.destroy();
      return;
    }
    if (faults.errorShare && Math.random() < faults.errorShare) {
      const status = Math.random() < 0.5 ? 503 : 429;
      throw new HttpError(status, REASONS[status] as string, { 'Retry-After': '1' });
    }

    const body = spec.method === 'POST' ? await readBody(req, maxBody) : undefined;
    if (closed) {
      res.destroy();
      return;
    }
    const no = faults.refuse;
    if (no && op.startsWith('updatedevice') && (no.deviceId === undefined || rawSegs[2] === String(no.deviceId))) {
      log(`fault: refusing ${req.method} ${maskPath(path)} with ${no.status}`);
      send(res, no.status, no.body);
      return;
    }
    const a = perform(op, rawSegs, body);
    send(res, a.status, a.body, a.type);
  }

  /**
   * An API request made from inside the service (the dashboard's writes):
   * the same path parsing and operation code as a request from the network,
   * without the transport's injected faults. Never throws an HttpError: its
   * answer is returned as the network would get it.
   */
  function dispatch(method: 'GET' | 'POST', path: string, body?: Buffer): Answer {
    let a: Answer;
    try {
      const { op, rawSegs } = operationOf(method, path);
      a = perform(op, rawSegs, body);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      a = { status: err.status, body: err.message, type: TEXT };
    }
    log(`dashboard: ${method} ${maskPath(path)} -> ${a.status}`);
    return a;
  }

  /**
   * A dashboard POST's JSON body, or undefined once the service is closing
   * (the request is dropped): 415 unless it is application/json (a page on
   * another site cannot send that without a CORS preflight this service never
   * grants, nor pass the Origin check of access.ts, before this), 400 `bad`
   * unless it parses. A value of maxBody bytes may take six times that as
   * JSON escapes.
   */
  async function jsonBody(req: http.IncomingMessage, res: http.ServerResponse, bad: string): Promise<{ value: unknown } | undefined> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') throw new HttpError(415, 'Content-Type: must be application/json');
    const raw = await readBody(req, maxBody * 6 + 1024);
    if (closed) {
      res.destroy();
      return undefined;
    }
    try {
      return { value: JSON.parse(utf8.decode(raw)) as unknown };
    } catch {
      throw new HttpError(400, bad);
    }
  }

  /**
   * POST /dashboard/set-value {deviceId, value}: stores a value in a Value
   * device through the API's own updatedevicevalue, with the owner's key and
   * the device's PIN looked up here so the page never holds them.
   */
  async function setValue(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.method !== 'POST') throw new HttpError(405, REASONS[405] as string, { Allow: 'POST' });
    const body = await jsonBody(req, res, 'body: must be a JSON object {"deviceId": <number>, "value": <string>}');
    if (!body) return;
    const input = body.value;
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      throw new HttpError(400, 'body: must be a JSON object {"deviceId": <number>, "value": <string>}');
    }
    const { deviceId, value } = input as Record<string, unknown>;
    if (typeof deviceId !== 'number' || !Number.isSafeInteger(deviceId) || deviceId < 1) {
      throw new HttpError(400, 'deviceId: must be a whole number from 1');
    }
    const dev = store.devices.get(deviceId);
    if (!dev) throw new HttpError(400, `deviceId: no device ${deviceId}`);
    if (dev.format !== 'Value') throw new HttpError(400, `deviceId: device ${deviceId} holds ${dev.format}; only Value devices are set here`);
    // A board's readings: its next write would replace the value (the page shows no form there).
    const fleet = readFleet(store, Date.now(), maxBody);
    const written = boardWritten(fleet, boardPanel()).get(dev.id);
    if (written) throw new HttpError(400, `deviceId: device ${deviceId} holds ${written}; the dashboard does not set it`);
    const acc = store.accounts.get(dev.owner);
    if (!acc) throw new HttpError(400, `deviceId: device ${deviceId} has no account`);
    if (typeof value !== 'string') throw new HttpError(400, 'value: must be a string');
    if (value === '') throw new HttpError(400, 'value: must not be empty (the API refuses an empty Data segment)');
    let segment: string;
    try {
      segment = encodeURIComponent(value);
    } catch {
      throw new HttpError(400, 'value: must be valid text (it holds a lone surrogate)');
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > maxBody) throw new HttpError(400, `value: ${bytes} bytes, over the API's limit of ${maxBody} bytes (UTF-8)`);
    const a = dispatch('GET', `/api/updatedevicevalue/${encodeURIComponent(acc.apiKey)}/${dev.id}/${dev.pin}/${segment}`);
    // Stored: say which outputs reading the device will refuse the value (fleet.ts).
    const refused = a.status === 200 ? refusalsOf(fleet, dev.id, value) : [];
    send(res, a.status, refused.length > 0 ? `${a.body}; ${refused.join('; ')}` : a.body, a.type);
  }

  const routeContext: RouteContext = { store, maxBody, board: boardPanel, dispatch };

  /** A request of console-routes.ts: method, a JSON body for a POST, then the route's own answer. */
  async function consoleRoute(req: http.IncomingMessage, res: http.ServerResponse, route: Route): Promise<void> {
    if (req.method !== route.method) throw new HttpError(405, REASONS[405] as string, { Allow: route.method });
    let body: unknown;
    if (route.method === 'POST') {
      const got = await jsonBody(req, res, 'body: must be JSON');
      if (!got) return;
      body = got.value;
    }
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const a = route.run(routeContext, { query, body });
    send(res, a.status, a.body, a.type, a.headers);
  }

  function boardPanel(): BoardPanel | null {
    if (!o.board) return null;
    try {
      return o.board() ?? null;
    } catch (err) {
      // The panel is extra: its failure must not take the dashboard down.
      log(`dashboard: board state failed: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = pathOf(req.url ?? '/');
    const route = Object.prototype.hasOwnProperty.call(CONSOLE_ROUTES, path) ? CONSOLE_ROUTES[path] : undefined;
    if (path === '/' || path.startsWith('/dashboard/') || route) {
      // Set once listening, before the first request can arrive.
      const no = (access as DashboardAccess).refusal(req, path === '/' || (route !== undefined && route.page === true));
      if (no) throw new HttpError(no.status, no.message, no.headers);
    }
    if (path === '/' || path === '/dashboard/state') {
      if (req.method !== 'GET') throw new HttpError(405, REASONS[405] as string, { Allow: 'GET' });
      if (path === '/') send(res, 200, DASHBOARD_HTML, 'text/html; charset=utf-8', { 'Content-Security-Policy': DASHBOARD_CSP });
      else send(res, 200, JSON.stringify(dashboardState(store, Date.now(), boardPanel(), maxBody)), JSON_TYPE);
      return;
    }
    if (path === '/dashboard/set-value') return setValue(req, res);
    if (route) return consoleRoute(req, res, route);
    if (path.startsWith('/api/')) return api(req, res, path);
    throw new HttpError(404, REASONS[404] as string);
  }

  const t = timeoutsOf(o.timeouts);
  // Lenient on a missing Host: Node's own refusal would be sent chunked (the
  // dashboard refuses it in access.ts). The head and request timeouts are
  // checked every quarter of headersMs, at most every second.
  const server = http.createServer({
    requireHostHeader: false,
    headersTimeout: t.headersMs,
    requestTimeout: t.requestMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(t.headersMs / 4))),
  }, (req, res) => {
    const started = Date.now();
    res.on('finish', () => {
      log(`${req.method} ${maskPath(pathOf(req.url ?? '/'))} -> ${res.statusCode} ${Date.now() - started}ms`);
    });
    handle(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) {
        send(res, err.status, err.message, TEXT, err.headers);
        return;
      }
      log(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      send(res, 500, REASONS[500] as string, TEXT, { Connection: 'close' });
    });
  });

  server.keepAliveTimeout = t.keepAliveMs;

  // Answer unparsable and timed-out requests ourselves so even those carry
  // Content-Length, Date and the hardening headers; not when an answer has
  // begun on that socket (as Node's own handler does).
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const current = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
    if (!socket.writable || current?.headersSent) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = REASONS[status] as string;
    const hardening = Object.entries(HARDENING).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nDate: ${new Date().toUTCString()}\r\n` +
        `Content-Type: ${TEXT}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${hardening}Connection: close\r\n\r\n${body}`,
    );
  });

  let access: DashboardAccess | undefined;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const bound = server.address() as AddressInfo;
      access = dashboardAccess(bound.address, bound.port);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  return {
    url: `http://${hostForUrl}:${addr.port}`,
    port: addr.port,
    events,
    exposed: (access as DashboardAccess).exposed,
    dashboardToken: (access as DashboardAccess).token,
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
