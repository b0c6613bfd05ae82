// A device's PIN in the client's messages: the "unexpected reply" log line
// names the request's path with the PIN masked as the key is, and a reply
// that echoes the path (as many servers' error pages do) leaves no PIN in a
// reason either, which the uplink and the outputs log. Numbers that merely
// contain the PIN's digits keep them.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';
import { createHttpClient } from '../../src/net/http';
import type { Outcome } from '../../src/service/client';
import { maskSecret } from '../../src/service/client';
import { createServiceOps } from '../../src/service/reads';
import type { ServiceOps } from '../../src/service/reads';

const KEY = 'pinTestKey0123456789abcdef';
const PIN = 48213;
const DEV = { apiKey: KEY, deviceId: 5, devicePin: PIN };

let server: Server;
let port = 0;
let answer: { status: number; body: (path: string) => string } = { status: 200, body: () => 'ok' };
let logs: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
      res.end(answer.body(req.url || ''));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  logs = [];
  answer = { status: 200, body: () => 'ok' };
});

function client(): ServiceOps {
  const timers = { setTimeout: (cb: () => void, ms: number) => setTimeout(cb, ms), clearTimeout: (id: unknown) => clearTimeout(id as NodeJS.Timeout) };
  const made = createServiceOps({
    http: createHttpClient({ sockets: createNodeSockets(), timers }),
    baseUrl: 'http://127.0.0.1:' + port + '/svc',
    log: { info: (l) => logs.push(l), error: (l) => logs.push('E ' + l) },
  });
  if (!made.ok) throw new Error(made.error);
  return made.client;
}

const said = (r: Outcome<unknown>): string => (r.kind === 'ok' ? r.note : r.reason);

describe("a device's PIN in the service client's messages", () => {
  it('masks the PIN (and the key) in the "unexpected reply" log line of a write', async () => {
    answer = { status: 200, body: () => 'Invalid device' };
    const r = await client().writeValue(DEV, '21.5');
    expect(r.kind).toBe('hold');
    expect(logs).toEqual(['service: unexpected reply to /svc/api/updatedevicevalue/' + maskSecret(KEY) + '/5/***/21.5: HTTP 200 OK: text reads as an error (text 14 bytes: Invalid device)']);
    expect(logs.join('\n') + said(r)).not.toContain(String(PIN));
  });

  it('masks the PIN in a reply that echoes the request path, in the log line and the reason', async () => {
    answer = { status: 200, body: (path) => 'Invalid device ' + path };
    const r = await client().writeJson(DEV, '{"t":1}');
    expect(r.kind).toBe('hold');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('/updatedevicejson/' + maskSecret(KEY) + '/5/***');
    expect(said(r)).toContain('/5/***');
    expect(logs.join('\n') + said(r)).not.toContain(String(PIN));
  });

  it('masks the PIN in the reason of a refusal that echoes the path (404 Cannot GET ...), as the uplink logs it', async () => {
    answer = { status: 404, body: (path) => 'Cannot GET ' + path };
    const w = await client().writeValue(DEV, '7');
    const rd = await client().readValue(DEV);
    for (const r of [w, rd]) {
      expect(r.kind).not.toBe('ok');
      expect(said(r)).toMatch(/^HTTP 404 Not Found: text \d+ bytes: Cannot GET \/svc\/api\/\w+\/pinT…\(26\)\/5\/\*\*\*/);
      expect(said(r)).not.toContain(String(PIN));
    }
  });

  it('keeps numbers that only contain the PIN: a reading of 482130 or 148213 is not masked', async () => {
    answer = { status: 500, body: () => 'cannot store 482130 or 148213; PIN 48213 refused' };
    const r = await client().writeValue(DEV, '1');
    expect(said(r)).toBe('HTTP 500 Internal Server Error: text 48 bytes: cannot store 482130 or 148213; PIN *** refused');
  });

  it("masks the PIN in a read's log line (an output's source, the console's read-back)", async () => {
    answer = { status: 200, body: () => 'no such device{' };
    const r = await client().readJson(DEV);
    expect(r.kind).toBe('reject');
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^service: unexpected reply to \/svc\/api\/showdevicejson\/pinT…\(26\)\/5\/\*\*\*: /);
  });
});
