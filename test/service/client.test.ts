import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createNodeSockets } from '../../host/ports/sockets';
import { createHttpClient } from '../../src/net/http';
import type { HttpClient, HttpResult } from '../../src/net/types';
import type { Timers } from '../../src/ports/ports';
import { createServiceClient, maskSecret } from '../../src/service/client';
import { createServiceOps } from '../../src/service/reads';
import type { Call, DeviceRef, Outcome, ServiceClient } from '../../src/service/client';
import type { ServiceOps } from '../../src/service/reads';
import { encodeSegment } from '../../src/service/url';

const KEY = 'Zq7/k?e#y%20 é😀-0123456789abcdef';
const PASSWORD = 'p@ss w/rd?#%é😀';
const SECRETS = [KEY, PASSWORD, encodeSegment(KEY), encodeSegment(PASSWORD), encodeURIComponent(KEY), KEY.slice(0, 12), PASSWORD.slice(0, 6)];
const DEV: DeviceRef = { apiKey: KEY, deviceId: 5, devicePin: 77 };
const DATE = 'Sun, 22 Nov 2026 08:05:00 GMT';

const timers: Timers = {
  setTimeout: (cb, ms) => setTimeout(cb, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

interface Seen {
  method: string;
  url: string;
  segments: string[];
  body: string;
  headers: IncomingMessage['headers'];
}

type Reply = (req: Seen, res: ServerResponse) => void;

let server: Server;
let port = 0;
let seen: Seen[] = [];
let reply: Reply = (_q, res) => res.end('ok');
let logs: string[] = [];

beforeAll(async () => {
  server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url || '';
      const s: Seen = {
        method: req.method || '',
        url,
        segments: url.split('/').slice(1).map((x) => decodeURIComponent(x)),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
      };
      seen.push(s);
      res.setHeader('Date', DATE);
      reply(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

afterEach(() => {
  seen = [];
  logs = [];
  reply = (_q, res) => res.end('ok');
});

function http(o: { timeoutMs?: number; maxResponseBytes?: number } = {}): HttpClient {
  return createHttpClient({ sockets: createNodeSockets(), timers, ...o });
}

function client(base = '', o: { timeoutMs?: number; maxResponseBytes?: number; p?: number } = {}): ServiceOps {
  const r = createServiceOps({
    http: http(o),
    baseUrl: 'http://127.0.0.1:' + (o.p || port) + base,
    log: { info: (l) => logs.push(l), error: (l) => logs.push('E ' + l) },
  });
  if (!r.ok) throw new Error(r.error);
  return r.client;
}

function text(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return (_q, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** Nothing secret in any message the client produced. */
function expectNoSecrets(...outcomes: Outcome<unknown>[]): void {
  const messages = outcomes.map((o) => (o.kind === 'ok' ? o.note : o.reason)).concat(logs);
  for (const m of messages) for (const s of SECRETS) expect(m).not.toContain(s);
}

describe('createServiceClient', () => {
  it('refuses a bad base URL', () => {
    expect(createServiceClient({ http: http(), baseUrl: 'https://x' })).toEqual({
      ok: false,
      error: 'service.url: https is not supported (no TLS on the device); use http:// or a local TLS gateway',
    });
  });
});

describe('what a call holds through the reply', () => {
  it("hands the body to the HTTP layer and keeps no reference to it while the reply is awaited (a batch's 2.2 KB on the device)", async () => {
    let sent: string | undefined;
    let answer: (r: HttpResult) => void = () => undefined;
    const fake: HttpClient = {
      request: (req) => {
        sent = req.body;
        return new Promise<HttpResult>((resolve) => (answer = resolve));
      },
      stats: () => http().stats(),
    };
    const made = createServiceClient({ http: fake, baseUrl: 'http://data.example.net/' });
    if (!made.ok) throw new Error(made.error);
    const call: Call<undefined> = {
      op: 'updatedevicejson', segments: [['apiKey', 'k'], ['deviceId', '5'], ['devicePin', '77']], secrets: ['k'],
      body: '[{"seq":1}]', contentType: 'application/json', read: () => ({ ok: true, value: undefined, note: 'ok' }),
    };
    const done = made.client.call(call);
    expect(sent).toBe('[{"seq":1}]');
    expect(call.body).toBeUndefined();
    answer({ kind: 'response', status: 200, reason: 'OK', headers: {}, body: 'Value updated', bytesSent: 40 });
    expect(await done).toMatchObject({ kind: 'ok', status: 200 });
  });
});

describe('maskSecret', () => {
  it('shows the first 4 characters and the length', () => {
    expect(maskSecret('abcdefghijklmnopqrstuvwxyz012345')).toBe('abcd…(32)');
    expect(maskSecret('abcdefg')).toBe('…(7)');
    expect(maskSecret('')).toBe('…(0)');
  });
});

describe('requests on the wire', () => {
  it('writes a value with every input as a path segment under the prefix', async () => {
    reply = text(200, 'Value updated');
    const r = await client('/openioe/').writeValue(DEV, '21.50');
    expect(r).toEqual({ kind: 'ok', status: 200, value: undefined, note: 'HTTP 200 OK, text 13 bytes: Value updated', bytesSent: expect.any(Number), date: DATE });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.segments).toEqual(['openioe', 'api', 'updatedevicevalue', KEY, '5', '77', '21.50']);
    expect(seen[0]?.url).toBe('/openioe/api/updatedevicevalue/' + encodeSegment(KEY) + '/5/77/21.50');
    expect(r.bytesSent).toBeGreaterThan(seen[0]!.url.length);
  });

  it.each(['a/b', 'q?x=1', 'h#1', '100%', '%2F', 'a b', 'é', '😀', '../..', 'x\ud800y'])('keeps the value %j in its own segment', async (v) => {
    const r = await client('/p').writeValue(DEV, v);
    expect(r.kind).toBe('ok');
    expect(seen[0]?.url).not.toMatch(/[?# ]/);
    expect(seen[0]?.segments).toEqual(['p', 'api', 'updatedevicevalue', KEY, '5', '77', v.replace('\ud800', '\ufffd')]);
  });

  it('posts JSON and XML bodies with their content types and byte lengths', async () => {
    const c = client();
    const json = '{"temp":21.50,"name":"é"}';
    const xml = '<reading seq="1"><temp unit="&#xB0;C">21.50</temp></reading>';
    expect((await c.writeJson(DEV, json)).kind).toBe('ok');
    expect((await c.writeXml(DEV, xml)).kind).toBe('ok');
    expect(seen.map((s) => [s.method, s.segments, s.body, s.headers['content-type'], s.headers['content-length']])).toEqual([
      ['POST', ['api', 'updatedevicejson', KEY, '5', '77'], json, 'application/json', String(Buffer.byteLength(json))],
      ['POST', ['api', 'updatedevicexml', KEY, '5', '77'], xml, 'application/xml', String(Buffer.byteLength(xml))],
    ]);
  });

  it('reads with GET on the three read paths', async () => {
    const c = client('/svc');
    reply = (q, res) => {
      const op = q.segments[2];
      res.end(op === 'showdevicevalue' ? ' 21.50\n' : op === 'showdevicejson' ? '{"temp":21.5}' : '<data>21.50 &amp; more</data>');
    };
    const v = await c.readValue(DEV);
    const j = await c.readJson(DEV);
    const x = await c.readXml(DEV);
    expect([v.kind === 'ok' && v.value, j.kind === 'ok' && j.value, x.kind === 'ok' && x.value]).toEqual(['21.50', { temp: 21.5 }, '21.50 & more']);
    expect(seen.map((s) => s.method + ' ' + s.segments.join('|'))).toEqual([
      'GET svc|api|showdevicevalue|' + KEY + '|5|77',
      'GET svc|api|showdevicejson|' + KEY + '|5|77',
      'GET svc|api|showdevicexml|' + KEY + '|5|77',
    ]);
    expectNoSecrets(v, j, x);
  });

  it('generates a key from e-mail and password segments', async () => {
    reply = text(200, '{"APIKey":"NEWKEY0123456789abcdef"}');
    const r = await client().generateApiKey('me+x@example.test', PASSWORD);
    expect(r).toEqual({
      kind: 'ok',
      status: 200,
      value: { apiKey: 'NEWKEY0123456789abcdef' },
      note: 'HTTP 200 OK, json 35 bytes (fields: APIKey), key in APIKey',
      bytesSent: expect.any(Number),
      date: DATE,
    });
    expect(seen[0]?.segments).toEqual(['api', 'generateapikey', 'me+x@example.test', PASSWORD]);
    expectNoSecrets(r);
  });

  it('creates a device with name, scheme and format segments', async () => {
    reply = text(200, '{"DeviceID":12,"DevicePIN":3456}');
    const r = await client().createDevice(KEY, 'Greenhouse /?#% é😀', 'None', 'JSON');
    expect(r.kind === 'ok' && r.value).toEqual({ deviceId: 12, devicePin: 3456 });
    expect(seen[0]?.segments).toEqual(['api', 'createuserdevice', KEY, 'Greenhouse /?#% é😀', 'None', 'JSON']);
    expect(logs).toEqual([]);
  });
});

describe('reply shapes', () => {
  it.each([
    ['{"apikey":"abcDEF123456"}', 'abcDEF123456'],
    ['<result><api_key>abcDEF123456</api_key></result>', 'abcDEF123456'],
    ['API Key: abcDEF123456', 'abcDEF123456'],
    ['abcDEF123456', 'abcDEF123456'],
  ])('finds the key in %s and never echoes it', async (body, key) => {
    reply = text(200, body);
    const r = await client().generateApiKey('me@example.test', PASSWORD);
    expect(r.kind === 'ok' && r.value.apiKey).toBe(key);
    expect(r.kind === 'ok' && r.note).not.toContain(key);
    expect(logs).toEqual([]);
  });

  it('rejects a key reply without a key and logs its shape', async () => {
    reply = text(200, 'Key generated, check your mail');
    const r = await client().generateApiKey('me@example.test', PASSWORD);
    expect(r).toEqual({
      kind: 'reject',
      reason: 'HTTP 200 OK: no API key in the reply (text 30 bytes, no key found)',
      status: 200,
      bytesSent: expect.any(Number),
    });
    expect(logs).toEqual([
      'service: unexpected reply to /api/generateapikey/me%40example.test/' +
        '\u2026(' + PASSWORD.length + ')' +
        ': HTTP 200 OK: no API key in the reply (text 30 bytes, no key found)',
    ]);
    expectNoSecrets(r);
  });

  it('accepts a create reply that lacks the PIN but says so', async () => {
    reply = text(200, 'Device created. DeviceID: 44');
    const r = await client().createDevice(KEY, 'dev', 'None', 'Value');
    expect(r.kind === 'ok' && r.value).toEqual({ deviceId: 44, devicePin: undefined });
    expect(r.kind === 'ok' && r.note).toBe('HTTP 200 OK, text 28 bytes, DeviceID 44, DevicePIN missing');
    expect(logs).toEqual([
      'service: unexpected reply to /api/createuserdevice/' + maskSecret(KEY) + '/dev/None/Value: HTTP 200 OK, text 28 bytes, DeviceID 44, DevicePIN missing',
    ]);
  });

  it.each([
    ['{"error":"Invalid API key"}', 'HTTP 200 OK: field error is set (json 27 bytes: {"error":"Invalid API key"})'],
    ['<response><error>bad pin</error></response>', 'HTTP 200 OK: element error is set (xml 43 bytes: <response><error>bad pin</error></response>)'],
    ['Invalid device', 'HTTP 200 OK: text reads as an error (text 14 bytes: Invalid device)'],
  ])('holds on a 2xx write whose body is an error naming the key or the device: %s', async (body, reason) => {
    reply = text(200, body);
    const r = await client().writeValue(DEV, '1');
    expect(r).toEqual({ kind: 'hold', reason, status: 200, bytesSent: expect.any(Number) });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(reason);
  });

  it('accepts an empty 204 write', async () => {
    reply = text(204, '');
    const r = await client().writeJson(DEV, '{}');
    expect(r).toMatchObject({ kind: 'ok', status: 204, note: 'HTTP 204 No Content, empty 0 bytes' });
  });

  it('reads: empty JSON is {}, invalid JSON and non-data XML are rejected', async () => {
    const c = client();
    reply = text(200, '');
    expect(await c.readJson(DEV)).toMatchObject({ kind: 'ok', value: {}, note: 'HTTP 200 OK, empty body, taken as {}' });
    reply = text(200, '{"temp":');
    expect(await c.readJson(DEV)).toMatchObject({ kind: 'reject', reason: 'HTTP 200 OK: invalid JSON (text 8 bytes: {"temp":)' });
    reply = text(200, '<value>1</value>');
    expect(await c.readXml(DEV)).toMatchObject({ kind: 'reject', reason: 'HTTP 200 OK: root element is value, not data (xml 16 bytes: <value>1</value>)' });
    expect(logs).toHaveLength(2);
  });
});

describe('a 400 about the record', () => {
  it("is rejected even when a parser's words name a token (Unexpected token in JSON), not held", async () => {
    reply = text(400, 'Unexpected token } in JSON at position 5');
    const r = await client().writeJson(DEV, '{}');
    expect(r.kind).toBe('reject');
  });
});

describe('status classes', () => {
  it.each([
    [301, 'hold'],
    [400, 'reject'],
    [401, 'hold'],
    [403, 'hold'],
    [404, 'hold'],
    [405, 'hold'],
    [409, 'hold'],
    [410, 'hold'],
    [413, 'reject'],
    [422, 'reject'],
    [408, 'retry'],
    [425, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
  ])('%i -> %s, with the body summarised and the echoed path masked', async (status, kind) => {
    reply = (q, res) => {
      res.writeHead(status, { Location: '/elsewhere' });
      res.end('no route ' + q.url);
    };
    const r = await client().writeValue(DEV, '1');
    expect(r.kind).toBe(kind);
    expect(r.kind !== 'ok' && r.status).toBe(status);
    expect(r.kind !== 'ok' && r.reason).toMatch(new RegExp('^HTTP ' + status + ' [A-Za-z]'));
    expect(r.kind !== 'ok' && r.reason).toContain('no route /api/updatedevicevalue/' + maskSecret(KEY) + '/5/***/1');
    expect(r).not.toHaveProperty('retryAfterMs');
    expectNoSecrets(r);
  });

  it('takes Retry-After in seconds', async () => {
    reply = text(429, 'slow down', { 'Retry-After': '30' });
    expect(await client().readValue(DEV)).toEqual({
      kind: 'retry',
      reason: 'HTTP 429 Too Many Requests: text 9 bytes: slow down',
      status: 429,
      retryAfterMs: 30000,
      bytesSent: expect.any(Number),
    });
  });

  it('takes Retry-After as a date against the Date header, capped at an hour', async () => {
    reply = text(503, '', { 'Retry-After': 'Sun, 22 Nov 2026 08:07:00 GMT' });
    expect(await client().readValue(DEV)).toMatchObject({ kind: 'retry', status: 503, retryAfterMs: 120000 });
    reply = text(503, '', { 'Retry-After': '999999' });
    expect(await client().readValue(DEV)).toMatchObject({ kind: 'retry', status: 503, retryAfterMs: 3600000 });
  });
});

describe('network failures', () => {
  it('retries when the connection is refused', async () => {
    const closed = createNetServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const p = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await client('', { p }).writeValue(DEV, '1');
    expect(r.kind).toBe('retry');
    expect(r.kind === 'retry' && r.reason).toMatch(/^connect: /);
    expectNoSecrets(r);
  });

  it('retries after a timeout', async () => {
    reply = () => undefined;
    const r = await client('', { timeoutMs: 300 }).writeValue(DEV, '1');
    expect(r).toEqual({ kind: 'retry', reason: 'timeout: response', bytesSent: expect.any(Number) });
    expect(r.bytesSent).toBeGreaterThan(0);
  });

  it('retries after a reset mid-reply', async () => {
    reply = (_q, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('partial', () => res.socket?.destroy());
    };
    const r = await client().writeValue(DEV, '1');
    expect(r).toEqual({ kind: 'retry', reason: 'reset: closed mid-response', bytesSent: expect.any(Number) });
  });

  it('rejects a reply over the size limit', async () => {
    reply = text(200, 'x'.repeat(4000));
    const r = await client('', { maxResponseBytes: 1024 }).readValue(DEV);
    expect(r.kind).toBe('reject');
    expect(r.kind === 'reject' && r.reason).toMatch(/^too-large: /);
  });

  describe('with a server that does not speak HTTP', () => {
    let raw: NetServer;
    afterEach(async () => {
      await new Promise<void>((r) => raw.close(() => r()));
    });
    it('retries after a protocol failure', async () => {
      // resume() so the server sees the client's close and can shut down.
      raw = createNetServer((s) => s.resume().end('SSH-2.0-nope\r\n\r\n'));
      await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
      const r = await client('', { p: (raw.address() as AddressInfo).port }).writeValue(DEV, '1');
      expect(r).toEqual({ kind: 'retry', reason: 'protocol: bad status line', bytesSent: expect.any(Number) });
    });
  });

  it('turns a throwing HTTP layer into a retry, never a rejection', async () => {
    const broken: HttpClient = {
      request: () => Promise.reject(new Error('boom at /api/x/' + KEY)),
      stats: () => ({ exchanges: 0, failures: {} }),
    };
    const c = createServiceOps({ http: broken, baseUrl: 'http://127.0.0.1:1' });
    if (!c.ok) throw new Error(c.error);
    const r = await c.client.readJson(DEV);
    expect(r).toEqual({ kind: 'retry', reason: 'http client failed: Error: boom at /api/x/' + maskSecret(KEY), bytesSent: 0 });
  });
});

describe('inputs refused before any I/O', () => {
  it.each<[string, (c: ServiceOps) => Promise<Outcome<unknown>>, string]>([
    ['fractional id', (c) => c.writeValue({ ...DEV, deviceId: 1.5 }, '1'), 'deviceId must be a whole number from 0 (got 1.5)'],
    ['negative pin', (c) => c.readValue({ ...DEV, devicePin: -1 }), 'devicePin must be a whole number from 0 (got -1)'],
    ['NaN id', (c) => c.readJson({ ...DEV, deviceId: NaN }), 'deviceId must be a whole number from 0 (got NaN)'],
    ['empty key', (c) => c.readXml({ ...DEV, apiKey: '' }), 'apiKey is empty'],
    ['empty data', (c) => c.writeValue(DEV, ''), 'data is empty'],
    ['dot data', (c) => c.writeValue(DEV, '..'), 'data must not be "." or ".."'],
    ['empty json', (c) => c.writeJson(DEV, ' '), 'json is empty'],
    ['invalid json', (c) => c.writeJson(DEV, '{"a":1'), 'json is not valid JSON'],
    ['empty xml', (c) => c.writeXml(DEV, ''), 'xml is empty'],
    ['broken xml', (c) => c.writeXml(DEV, '<a><b></a>'), 'xml is not well-formed: </a> does not close <b>'],
    ['text as xml', (c) => c.writeXml(DEV, '21.5'), 'xml is not well-formed: text outside the root element'],
    ['empty password', (c) => c.generateApiKey('me@example.test', ''), 'password is empty'],
    ['empty email', (c) => c.generateApiKey('', PASSWORD), 'email is empty'],
    ['empty name', (c) => c.createDevice(KEY, '', 'None', 'JSON'), 'name is empty'],
    ['bad format', (c) => c.createDevice(KEY, 'd', 'None', 'CSV' as 'JSON'), 'format must be one of Value, JSON, XML'],
  ])('%s', async (_name, call, reason) => {
    const r = await call(client());
    expect(r).toEqual({ kind: 'reject', reason, bytesSent: 0 });
    expect(seen).toEqual([]);
  });
});

describe("the uplink's own encodings", () => {
  const writer = (): ServiceClient => {
    const r = createServiceClient({ http: http(), baseUrl: 'http://127.0.0.1:' + port });
    if (!r.ok) throw new Error(r.error);
    return r.client;
  };

  it('a JSON body made by this program is sent as it is, not parsed again to check it', async () => {
    const parse = JSON.parse;
    let parsed = 0;
    JSON.parse = ((t: string, r?: (k: string, v: unknown) => unknown): unknown => (parsed++, parse(t, r) as unknown)) as typeof JSON.parse;
    try {
      expect(await writer().writeJson(DEV, '[{"seq":1,"temp":21.5}]', true)).toMatchObject({ kind: 'ok' });
    } finally {
      JSON.parse = parse;
    }
    expect(seen).toHaveLength(1);
    // The reply ('ok') is not JSON either: nothing was parsed.
    expect(parsed).toBe(0);
  });

  it('json: the check is skipped only when the caller says it made the text', async () => {
    expect(await writer().writeJson(DEV, '{"a":1')).toMatchObject({ kind: 'reject', bytesSent: 0 });
    expect(seen).toEqual([]);
    await writer().writeJson(DEV, '{"a":1', true);
    expect(seen).toHaveLength(1);
  });

  // The check's regular expression would stay compiled on the device's heap
  // in the resident program, whose only XML is its own encoder's.
  it("xml: the write client leaves the check to the console's client, which refuses a broken text before any I/O", async () => {
    expect(await client().writeXml(DEV, '<a><b></a>')).toEqual({ kind: 'reject', reason: 'xml is not well-formed: </a> does not close <b>', bytesSent: 0 });
    expect(seen).toEqual([]);
    await writer().writeXml(DEV, '<a><b></a>');
    expect(seen).toHaveLength(1);
  });
});

describe('secrets in messages', () => {
  it.each([
    [200, 'Invalid '],
    [200, '{"error":"'],
    [401, 'Denied '],
    [500, 'Crash '],
  ])('never shows the password when a %i reply echoes the path', async (status, prefix) => {
    reply = (q, res) => {
      res.writeHead(status);
      res.end(prefix + q.url + ' ' + decodeURIComponent(q.url) + (prefix.charAt(0) === '{' ? '"}' : ''));
    };
    const r = await client().generateApiKey('me@example.test', PASSWORD);
    expect(r.kind).not.toBe('ok');
    // An account password shows by length only, not even its first characters.
    expect(r.kind !== 'ok' && r.reason).toContain('/\u2026(' + PASSWORD.length + ')');
    expect(r.kind !== 'ok' && r.reason).not.toContain('p@ss');
    expectNoSecrets(r);
  });

  it('never shows a generated key that the reply quotes twice', async () => {
    reply = text(200, '{"APIKey":"SECRETKEY0123456789","message":"your key is SECRETKEY0123456789"}');
    const r = await client().generateApiKey('me@example.test', PASSWORD);
    expect(r.kind === 'ok' && r.value.apiKey).toBe('SECRETKEY0123456789');
    expect(r.kind === 'ok' && r.note).toBe('HTTP 200 OK, json 76 bytes (fields: APIKey, message), key in APIKey');
  });
});
