// No secret in any log line, whatever the path's shape (issue 35, row 5):
// requests that reach an operation, and those that miss it (404, 405, 400)
// with the password, key or PIN in a path bent every way a client or a
// prober might bend it. The log is searched for each secret as it was sent,
// and decoded.

import { afterEach, describe, expect, it } from 'vitest';

import { call, enc, provision, serviceHarness } from './helpers';
import { send } from './security-helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

const PASSWORD = 'Tr0ub4dor-Zq7';
const EMAIL = 'ops@example.com';

/** Every way of reading a line: raw, and percent-decoded once, twice and thrice (leniently). */
function readings(line: string): string[] {
  const out = [line];
  let s = line;
  for (let i = 0; i < 3; i++) {
    s = s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    out.push(s);
  }
  return out.map((x) => x.toLowerCase());
}

function expectNoSecret(lines: string[], secrets: string[], shape: string): void {
  for (const line of lines) {
    // The status and the time at the end are not part of the path.
    const text = line.replace(/ -> \d{3}( \d+ms)?$/, '');
    for (const r of readings(text)) {
      for (const secret of secrets) expect(r.includes(secret.toLowerCase()), `${shape}: ${line} holds ${secret}`).toBe(false);
    }
  }
}

describe('the request log', () => {
  it('never holds the password, whatever the shape of a generateapikey path', async () => {
    const log: string[] = [];
    const svc = await h.start({ dataDir: h.dir(), log: (l) => void log.push(l) });
    expect((await call(svc.port, 'GET', `/api/generateapikey/${enc(EMAIL)}/${PASSWORD}`)).status).toBe(200);
    const e = enc(EMAIL);
    const p = PASSWORD;
    const pEnc = [...p].map((c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
    const shapes = [
      `/api/generateapikey/${e}/${p}`,
      `/api/generateapikey/${e}/${p}/`,
      `/api/generateapikey/${e}/${p}?x=1`,
      `//api/generateapikey/${e}/${p}`,
      `/api//generateapikey/${e}/${p}`,
      `/api/generateapikey//${e}/${p}`,
      `/api/generateapikey/${e}//${p}`,
      `/dashboard/../api/generateapikey/${e}/${p}`,
      `/api/./generateapikey/${e}/${p}`,
      `/api/generateapikey/${e}/${p}/..`,
      `/api/generateapikey/${e}/${p}/extra`,
      `/api/generateapikey/${p}`,
      `/x/api/generateapikey/${e}/${p}`,
      `/apix/generateapikey/${e}/${p}`,
      `/API/GenerateApiKey/${e}/${p}`,
      `/api/GENERATEAPIKEY/${e}/${p}`,
      `/api/%67enerateapikey/${e}/${p}`,
      `/api/generateapikey%2F${e}%2F${p}`,
      `/api%2Fgenerateapikey%2F${e}%2F${p}`,
      `/api%2fgenerateapikey%2f${e}%2f${p}`,
      `/api/generateapikey%252F${e}%252F${p}`,
      `/api\\generateapikey\\${e}\\${p}`,
      `/api/generateapikey/${e}%2F${p}`,
      `/api/generateapikey/${e}/${pEnc}`,
      `/api/generateapikey/${e}/%${p}`,
      `/generateapikey/${e}/${p}`,
      `/${e}/generateapikey/${p}`,
      `/apigenerateapikey/${e}/${p}`,
      `/api;/generateapikey/${e}/${p}`,
      `http://127.0.0.1/api/generateapikey/${e}/${p}`,
      `http://127.0.0.1//api/generateapikey/${e}/${p}`,
    ];
    for (const target of shapes) {
      for (const method of ['GET', 'POST']) {
        log.length = 0;
        const r = await send(svc.port, { method, target, body: method === 'POST' ? '{}' : undefined });
        expect(r.status, target).toBeLessThan(500);
        expect(log.length, target).toBeGreaterThan(0);
        expectNoSecret(log, [PASSWORD], `${method} ${target}`);
      }
    }
  });

  it('never holds the key or the PIN, whatever the shape of a device operation path', async () => {
    const log: string[] = [];
    const svc = await h.start({ dataDir: h.dir(), log: (l) => void log.push(l) });
    const d = await provision(svc.port, 'Value', EMAIL, PASSWORD);
    const j = await provision(svc.port, 'JSON', EMAIL, PASSWORD);
    // PINs are 4 to 6 digits: searched as a path segment, a key as itself (and any 8 of its characters).
    const secretsOf = (x: { key: string; pin: number }): string[] => [x.key, x.key.slice(0, 8), x.key.slice(-8), `/${x.pin}`, `\\${x.pin}`, `%2f${x.pin}`];
    const k = d.key;
    const tails = [`${d.id}/${d.pin}/7`, `${d.id}/${d.pin}`];
    const shapes: string[] = [];
    for (const op of ['updatedevicevalue', 'showdevicevalue', 'showdevicejson', 'UpdateDeviceValue']) {
      for (const t of tails) {
        shapes.push(
          `/api/${op}/${k}/${t}`,
          `//api/${op}/${k}/${t}`,
          `/api//${op}/${k}/${t}`,
          `/api/${op}//${k}/${t}`,
          `/api/${op}/${k}//${t}`,
          `/dashboard/../api/${op}/${k}/${t}`,
          `/api/${op}/${k}/${t}/extra`,
          `/api/${op}%2F${k}%2F${t.replace(/\//g, '%2F')}`,
          `/api/${op}/${k}%2F${t.replace(/\//g, '%2F')}`,
          `/api/x/${k}/${t}`,
          `/x/${op}/${k}/${t}`,
          `/api\\${op}\\${k}\\${t.replace(/\//g, '\\')}`,
          `/api/${op}/${k}/${t.replace(/\//g, '%252F')}`,
        );
      }
    }
    shapes.push(`/api/${k}/${d.id}/${d.pin}`, `/${k}/api/${d.id}/${d.pin}`);
    for (const target of shapes) {
      for (const method of ['GET', 'POST']) {
        log.length = 0;
        await send(svc.port, { method, target, body: method === 'POST' ? '{}' : undefined });
        expect(log.length, target).toBeGreaterThan(0);
        expectNoSecret(log, secretsOf(d), `${method} ${target}`);
      }
    }
    // createuserdevice holds the key only.
    for (const target of [`/api/createuserdevice/${k}/n/None/Value`, `//api/createuserdevice/${k}/n/None/Value`, `/api/createuserdevice//${k}/n/None/Value`, `/api/createuserdevice%2F${k}%2Fn%2FNone%2FValue`, `/x/createuserdevice/${k}/n/None/Value/x`]) {
      log.length = 0;
      await send(svc.port, { target });
      expectNoSecret(log, [k, k.slice(0, 8), k.slice(-8)], target);
    }
    // JSON writes and reads under another device's key: the same.
    log.length = 0;
    await send(svc.port, { method: 'POST', target: `//api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, body: '{"a":1}' });
    await send(svc.port, { method: 'POST', target: `/api/updatedevicejson/${j.key}/${j.id}/${j.pin}`, body: '{"a":1}' });
    expectNoSecret(log, secretsOf(j), 'updatedevicejson');
    // The usual shape keeps what helps reading the log: the operation, the device and the key's start.
    log.length = 0;
    await call(svc.port, 'GET', `/api/updatedevicevalue/${k}/${d.id}/${d.pin}/21.5`);
    expect(log).toEqual([expect.stringMatching(new RegExp(`^GET /api/updatedevicevalue/${k.slice(0, 4)}…/${d.id}/…/21\\.5 -> 200 \\d+ms$`))]);
  });

  it('holds neither in the lines of refused and dropped requests (injected faults)', async () => {
    const log: string[] = [];
    const faults = { dropShare: 1 };
    const svc = await h.start({ dataDir: h.dir(), log: (l) => void log.push(l), faults });
    await expect(call(svc.port, 'GET', `/api/generateapikey/${enc(EMAIL)}/${PASSWORD}`)).rejects.toThrow(/dropped/);
    expectNoSecret(log, [PASSWORD], 'dropped');
    expect(log.some((l) => l.startsWith('fault: dropping'))).toBe(true);
  });
});
