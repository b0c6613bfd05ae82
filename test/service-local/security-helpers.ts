// Requests with chosen headers (Host, Origin, Authorization ...) for the
// security tests: what a browser tricked by DNS rebinding, a page on another
// site or a client on the network would send.

import { rawExchange } from './helpers';
import type { RawResponse } from './helpers';

export interface Sent {
  method?: string;
  target: string;
  /** Header lines as given; Host defaults to 127.0.0.1:<port>, and is left out when null. */
  headers?: Record<string, string | null>;
  body?: string;
}

export async function send(port: number, s: Sent): Promise<RawResponse> {
  const headers: Record<string, string | null> = { Host: `127.0.0.1:${port}`, ...s.headers };
  const body = s.body === undefined ? undefined : Buffer.from(s.body, 'utf8');
  if (body) {
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  let head = `${s.method ?? 'GET'} ${s.target} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) if (v !== null) head += `${k}: ${v}\r\n`;
  const req = Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), body ?? Buffer.alloc(0)]);
  const r = await rawExchange(port, req);
  if (r === 'dropped') throw new Error(`${s.method ?? 'GET'} ${s.target}: connection dropped`);
  return r;
}

/** POST /dashboard/set-value as the page sends it, with extra headers. */
export function setValue(port: number, deviceId: number, value: string, headers: Record<string, string | null> = {}): Promise<RawResponse> {
  return send(port, { method: 'POST', target: '/dashboard/set-value', headers, body: JSON.stringify({ deviceId, value }) });
}
