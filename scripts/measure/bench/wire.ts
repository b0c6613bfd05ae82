// Bytes on the wire per write: the exact request bytes the HTTP client hands
// to its socket for one write of each format, next to the smallest request
// the spec allows for the same data. Shared by `npm run bench` and the budget
// test, so both judge the same figure.
import { stampPayload } from '../../../src/agent/stamp';
import type { DataFormat, DeviceConfig, Reading } from '../../../src/model';
import { createHttpClient } from '../../../src/net/http';
import type { Socket, SocketFactory, SocketHandlers, Timers } from '../../../src/ports/ports';
import { createServiceClient } from '../../../src/service/client';
import { encodeJson, encodeXml } from '../../../src/service/encode';

/** A realistic field setup: a LAN address with a port, a 32-character key. */
export const BASE = 'http://192.168.1.10:8080';
export const HOST_HEADER = '192.168.1.10:8080';
export const API_KEY = '3f0c9a1e0b6d4c2e8f7a5b3c1d9e0f2a';
export const DEVICE_ID = 12;
export const DEVICE_PIN = 4821;
export const VALUE_TEXT = '21.50';
/** The wall time stamped on JSON and XML bodies: known after the first reply's Date, so the usual case. */
export const WALL_MS = Date.UTC(2026, 10, 22, 8, 5, 0);

const REPLY_TEXT = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nValue updated';
const REPLY = new TextEncoder().encode(REPLY_TEXT);
export const REPLY_BYTES = REPLY.length;

export interface ScriptedSockets {
  sockets: SocketFactory;
  /** Every complete request, byte for byte, in order (unless told not to keep them). */
  requests: Uint8Array[];
  connects: number;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function latin1(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1');
}

/**
 * Sockets that connect at once, keep every byte written and answer a complete
 * request (head plus Content-Length bytes of body) with a 200. Events arrive
 * as promise callbacks, as from the board's event loop, never inside write().
 */
export function scriptedSockets(o: { keep?: boolean } = {}): ScriptedSockets {
  const keep = o.keep !== false;
  const st: ScriptedSockets = { sockets: { connect, abandoned: () => 0 }, requests: [], connects: 0 };
  function connect(_host: string, _port: number, h: SocketHandlers): Socket {
    st.connects++;
    let got: Uint8Array = new Uint8Array(0);
    let answered = false;
    let closed = false;
    void Promise.resolve().then(() => {
      if (!closed) h.onConnect();
    });
    return {
      write(data: Uint8Array | string) {
        // An ASCII request comes as a string (Socket.write): one byte a character.
        const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
        got = got.length ? concat(got, bytes) : bytes.slice();
        if (answered) return;
        const text = latin1(got);
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const cl = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
        if (got.length < end + 4 + (cl ? Number(cl[1]) : 0)) return;
        answered = true;
        if (keep) st.requests.push(got);
        void Promise.resolve().then(() => {
          if (!closed) h.onData(REPLY);
        });
      },
      release() {
        closed = true;
      },
      destroy() {
        closed = true;
      },
    };
  }
  return st;
}

/** Timers that never fire: the scripted socket answers before any deadline could matter. */
export const idleTimers: Timers = {
  setTimeout: () => 0,
  clearTimeout: () => undefined,
};

/**
 * The smallest request the spec allows (our reading of HTTP and the service
 * spec): request line and Host (the port included, as it is not 80);
 * for a POST also Content-Length and the body. No Content-Type, no
 * Connection, no User-Agent: the spec asks for none of them.
 */
export function minimalRequest(method: 'GET' | 'POST', path: string, body?: string): string {
  // HTTP/1.0 or 1.1 take the same bytes; 1.0 also asks the server to close first.
  let head = method + ' ' + path + ' HTTP/1.0\r\nHost: ' + HOST_HEADER + '\r\n';
  if (body !== undefined) head += 'Content-Length: ' + Buffer.byteLength(body, 'utf8') + '\r\n';
  return head + '\r\n' + (body ?? '');
}

export interface WireRow {
  format: DataFormat;
  /** Bytes the client wrote to the socket. */
  sent: number;
  /** Bytes of the smallest request the spec allows for the same data. */
  minimal: number;
  ratio: number;
  /** Payload bytes: the Data segment for Value, the body otherwise. */
  payload: number;
  /** The request as sent (latin1 view of the bytes). */
  request: string;
  /** Header lines beyond the minimal request, each with its byte count (CRLF included). */
  extra: { line: string; bytes: number }[];
  minimalRequest: string;
}

function device(format: DataFormat): DeviceConfig {
  return { name: 'd', deviceId: DEVICE_ID, devicePin: DEVICE_PIN, format, sensors: READING.map((r) => r.sensorId), decimals: 2 };
}

/** The seq of the record the three readings below make. */
export const READING_SEQ = 812;

/**
 * One sample round of the three test sensors as the assembler keeps them and
 * hands them to the encoder, the door a whole number. The light and door
 * values are ours; only 21.50 is given.
 */
export const READING: readonly Reading[] = [
  { sensorId: 'temp', value: 21.5, unit: 'C', uptimeMs: 3600000 },
  { sensorId: 'light', value: 1.65, unit: 'V', uptimeMs: 3600000 },
  { sensorId: 'door', value: 1, unit: '', uptimeMs: 3600000, decimals: 0 },
];
export const READING_TEXT = 'temp 21.50 C, light 1.65 V, door 1';

/** The body the uplink sends for one 3-sensor reading on a JSON or XML device, wall time known (stamped at send). */
export function bodyFor(format: 'JSON' | 'XML'): string {
  const rs = READING.map((r) => ({ ...r }));
  const e = format === 'JSON' ? encodeJson(device(format), rs, READING_SEQ) : encodeXml(device(format), rs, READING_SEQ);
  if (!e.ok) throw new Error('encoding failed: ' + e.error);
  return stampPayload(format, e.text, WALL_MS);
}

/** Header lines the client sent that the minimal request does not have. */
function extraHeaders(sent: string, minimal: string): string[] {
  const lines = (t: string): string[] => t.slice(0, t.indexOf('\r\n\r\n')).split('\r\n').slice(1);
  const min = lines(minimal);
  return lines(sent).filter((l) => min.indexOf(l) < 0);
}

/** One write per format through the real service and HTTP clients. */
export async function measureWire(): Promise<WireRow[]> {
  const s = scriptedSockets();
  const made = createServiceClient({ http: createHttpClient({ sockets: s.sockets, timers: idleTimers }), baseUrl: BASE });
  if (!made.ok) throw new Error(made.error);
  const c = made.client;
  const ref = { apiKey: API_KEY, deviceId: DEVICE_ID, devicePin: DEVICE_PIN };
  const dev = '/' + API_KEY + '/' + DEVICE_ID + '/' + DEVICE_PIN;
  const json = bodyFor('JSON');
  const xml = bodyFor('XML');
  const cases: { format: DataFormat; write: () => Promise<{ kind: string }>; minimal: string; payload: string }[] = [
    { format: 'Value', write: () => c.writeValue(ref, VALUE_TEXT), minimal: minimalRequest('GET', '/api/updatedevicevalue' + dev + '/' + VALUE_TEXT), payload: VALUE_TEXT },
    { format: 'JSON', write: () => c.writeJson(ref, json), minimal: minimalRequest('POST', '/api/updatedevicejson' + dev, json), payload: json },
    { format: 'XML', write: () => c.writeXml(ref, xml), minimal: minimalRequest('POST', '/api/updatedevicexml' + dev, xml), payload: xml },
  ];
  const rows: WireRow[] = [];
  for (const k of cases) {
    const before = s.requests.length;
    const r = await k.write();
    const sent = s.requests[before];
    if (r.kind !== 'ok' || !sent) throw new Error(k.format + ' write did not complete: ' + r.kind);
    const minimal = Buffer.byteLength(k.minimal, 'utf8');
    rows.push({
      format: k.format,
      sent: sent.length,
      minimal,
      ratio: sent.length / minimal,
      payload: Buffer.byteLength(k.payload, 'utf8'),
      request: latin1(sent),
      extra: extraHeaders(latin1(sent), k.minimal).map((line) => ({ line, bytes: line.length + 2 })),
      minimalRequest: k.minimal,
    });
  }
  return rows;
}
