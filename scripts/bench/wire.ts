// Exact request bytes the agent puts on the wire for one write of each
// format, next to the smallest request the spec allows for the same data.
import { createHttpClient } from '../../src/net/http';
import type { SocketFactory, Timers } from '../../src/ports/ports';
import { createServiceClient } from '../../src/service/client';
import { encodeJson, encodeXml } from '../../src/service/encode';
import type { DeviceConfig, Reading } from '../../src/model';

const REPLY = new TextEncoder().encode('HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nValue updated');

/** A socket that records what is written and answers each request with 200 once it is complete. */
export function scriptedSockets(): { sockets: SocketFactory; sent: string[] } {
  const sent: string[] = [];
  const sockets: SocketFactory = {
    connect(_host, _port, h) {
      let req = '';
      let answered = false;
      let closed = false;
      void Promise.resolve().then(() => h.onConnect());
      return {
        write(bytes) {
          req += Buffer.from(bytes).toString('latin1');
          const head = req.indexOf('\r\n\r\n');
          if (head < 0 || answered) return;
          const len = /\r\nContent-Length: (\d+)/i.exec(req.slice(0, head));
          if (req.length - head - 4 < (len ? Number(len[1]) : 0)) return;
          answered = true;
          sent.push(req);
          void Promise.resolve().then(() => {
            if (closed) return;
            h.onData(REPLY);
          });
        },
        destroy() {
          closed = true;
        },
      };
    },
  };
  return { sockets, sent };
}

export const immediateTimers: Timers = {
  setTimeout: (cb, ms) => setTimeout(cb, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

export const BASE = 'http://192.168.1.10:8080';
export const HOST = '192.168.1.10:8080';
export const KEY = '3f0c9a1e0b6d4c2e8f7a5b3c1d9e0f2a';
export const REF = { apiKey: KEY, deviceId: 12, devicePin: 4821 };

function readings(): Reading[] {
  const r = (sensorId: string, value: number, unit: string, decimals?: number): Reading => ({ sensorId, value, unit, seq: 812, uptimeMs: 3600000, bootId: 3, decimals });
  return [r('temp', 21.5, 'C'), r('light', 0.43, 'V'), r('door', 1, '', 0)];
}

export interface WireRow {
  format: string;
  sent: number;
  minimal: number;
  ratio: number;
  request: string;
}

/** One write per format through the real HTTP and service clients. */
export async function measureWire(): Promise<WireRow[]> {
  const { sockets, sent } = scriptedSockets();
  const made = createServiceClient({ http: createHttpClient({ sockets, timers: immediateTimers }), baseUrl: BASE });
  if (!made.ok) throw new Error(made.error);
  const c = made.client;
  const dev = (format: DeviceConfig['format']): DeviceConfig => ({ name: 'd', deviceId: 12, devicePin: 4821, format, sensors: ['temp', 'light', 'door'] });
  const json = encodeJson(dev('JSON'), readings());
  const xml = encodeXml(dev('XML'), readings());
  if (!json.ok || !xml.ok) throw new Error('encoding failed');
  const rows: WireRow[] = [];
  const add = (format: string, request: string, minimal: string): void => {
    rows.push({ format, sent: Buffer.byteLength(request, 'latin1'), minimal: Buffer.byteLength(minimal, 'utf8'), ratio: 0, request });
  };
  await c.writeValue(REF, '21.50');
  add('Value', sent[0]!, `GET /api/updatedevicevalue/${KEY}/12/4821/21.50 HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  // The smallest POST the spec allows: request line, Host, the body's length, the body.
  const post = (op: string, body: string): string =>
    `POST /api/${op}/${KEY}/12/4821 HTTP/1.1\r\nHost: ${HOST}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  await c.writeJson(REF, json.text);
  add('JSON', sent[1]!, post('updatedevicejson', json.text));
  await c.writeXml(REF, xml.text);
  add('XML', sent[2]!, post('updatedevicexml', xml.text));
  for (const r of rows) r.ratio = r.sent / r.minimal;
  return rows;
}
