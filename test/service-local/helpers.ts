// Shared helpers for the local service tests: a service on 127.0.0.1 port 0
// with a temp data dir, and raw HTTP exchanges over a plain socket so the
// tests see exactly what a minimal device client would.

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { startService } from '../../host/service/server';
import type { DashboardState } from '../../host/service/dashboard';
import type { RunningService, ServiceOptions } from '../../host/service/server';

export interface RawResponse {
  status: number;
  reason: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  raw: Buffer;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dds-test-'));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Starts a service; `cleanup` closes every one started and removes their dirs. */
export function serviceHarness() {
  const running: RunningService[] = [];
  const dirs: string[] = [];
  return {
    dir(): string {
      const d = tempDir();
      dirs.push(d);
      return d;
    },
    async start(o: Partial<ServiceOptions> & { dataDir: string }): Promise<RunningService> {
      const s = await startService({ host: '127.0.0.1', port: 0, ...o });
      running.push(s);
      return s;
    },
    async cleanup(): Promise<void> {
      for (const s of running.splice(0)) await s.close();
      for (const d of dirs.splice(0)) removeDir(d);
    },
  };
}

export function parseResponse(raw: Buffer): RawResponse {
  const sep = raw.indexOf('\r\n\r\n');
  if (sep < 0) throw new Error(`no header end in response: ${JSON.stringify(raw.toString('latin1'))}`);
  const head = raw.subarray(0, sep).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(head[0] ?? '');
  if (!m) throw new Error(`bad status line: ${head[0]}`);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), reason: m[2] ?? '', headers, body: raw.subarray(sep + 4).toString('utf8'), raw };
}

/**
 * Sends `request` as-is and reads until the response is complete (by its
 * Content-Length), then closes the socket like the device client does.
 * Resolves 'dropped' when the server closes the connection with no answer.
 */
export function rawExchange(port: number, request: string | Buffer): Promise<RawResponse | 'dropped'> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (v: RawResponse | 'dropped' | Error): void => {
      if (done) return;
      done = true;
      sock.destroy();
      if (v instanceof Error) reject(v);
      else resolve(v);
    };
    const tryComplete = (): void => {
      const buf = Buffer.concat(chunks);
      const sep = buf.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const res = parseResponse(buf);
      const len = res.headers['content-length'];
      if (len !== undefined && buf.length - sep - 4 >= Number(len)) {
        finish(parseResponse(buf.subarray(0, sep + 4 + Number(len))));
      }
    };
    sock.on('data', (c: Buffer) => {
      chunks.push(c);
      tryComplete();
    });
    sock.on('end', () => {
      const buf = Buffer.concat(chunks);
      finish(buf.length === 0 ? 'dropped' : parseResponse(buf));
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
        const buf = Buffer.concat(chunks);
        finish(buf.length === 0 ? 'dropped' : parseResponse(buf));
      } else finish(err);
    });
    sock.setTimeout(10000, () => finish(new Error('timeout waiting for the response')));
    sock.write(request);
  });
}

/** A minimal request: request line + Host (+ Content-Type/Length for a body). */
export async function call(
  port: number,
  method: string,
  target: string,
  body?: string | Buffer,
  contentType = 'application/json',
): Promise<RawResponse> {
  let head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
  const bodyBuf = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (bodyBuf) head += `Content-Type: ${contentType}\r\nContent-Length: ${bodyBuf.length}\r\n`;
  const req = bodyBuf ? Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), bodyBuf]) : head + '\r\n';
  const res = await rawExchange(port, req);
  if (res === 'dropped') throw new Error(`${method} ${target}: connection dropped`);
  return res;
}

export const enc = encodeURIComponent;

/** Creates an account (first use) and one device; returns what a client needs. */
export async function provision(
  port: number,
  format: 'Value' | 'JSON' | 'XML',
  email = 'owner@example.com',
  password = 'secret',
  name = `dev-${format}`,
): Promise<{ key: string; id: number; pin: number }> {
  const k = await call(port, 'GET', `/api/generateapikey/${enc(email)}/${enc(password)}`);
  if (k.status !== 200) throw new Error(`generateapikey: ${k.status} ${k.body}`);
  const key = (JSON.parse(k.body) as { APIKey: string }).APIKey;
  const d = await call(port, 'GET', `/api/createuserdevice/${key}/${enc(name)}/None/${format}`);
  if (d.status !== 200) throw new Error(`createuserdevice: ${d.status} ${d.body}`);
  const dev = JSON.parse(d.body) as { DeviceID: number; DevicePIN: number };
  return { key, id: dev.DeviceID, pin: dev.DevicePIN };
}

/** The dashboard's state as the page reads it (GET /dashboard/state, which must answer 200). */
export async function dashboardState(svc: RunningService): Promise<DashboardState> {
  const r = await call(svc.port, 'GET', '/dashboard/state');
  if (r.status !== 200) throw new Error(`GET /dashboard/state: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as DashboardState;
}
