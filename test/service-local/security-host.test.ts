// Who may use the dashboard (issue 35, rows 2 and 3), with real requests
// against the running service. On a loopback listen only a request that
// names the service as 127.0.0.1, localhost or [::1] with its port is served:
// a page on another site that rebinds its own name to 127.0.0.1 sends its own
// name as Host, and is refused (421) before anything is read or changed.
// Beyond loopback every read and write of the dashboard needs the token the
// service prints at its start; the API keeps its key in the path.

import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import type { RunningService } from '../../host/service/server';
import { watchOutput } from '../fakes/child';
import { call, provision, serviceHarness } from './helpers';
import { send, setValue } from './security-helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

async function stored(svc: RunningService, d: { key: string; id: number; pin: number }): Promise<string> {
  return (await call(svc.port, 'GET', `/api/showdevicevalue/${d.key}/${d.id}/${d.pin}`)).body;
}

describe('on loopback: DNS rebinding', () => {
  it("refuses the dashboard's page, state and set-value when Host and Origin both name another site, and changes nothing", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const victim = await provision(svc.port, 'Value', 'victim@example.com', 'pw', 'victim-relay');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${victim.key}/${victim.id}/${victim.pin}/0`);
    const evil = `rebind.evil.example:${svc.port}`;
    const foreign = { Host: evil, Origin: `http://${evil}` };

    const w = await setValue(svc.port, victim.id, '1', foreign);
    expect(w.status).toBe(421);
    expect(w.body).toMatch(/^Host: /);
    expect(w.body).not.toContain('\n');
    expect(await stored(svc, victim)).toBe('0');

    const st = await send(svc.port, { target: '/dashboard/state', headers: foreign });
    expect(st.status).toBe(421);
    expect(st.body).not.toContain('victim');
    const page = await send(svc.port, { target: '/', headers: { Host: evil } });
    expect(page.status).toBe(421);
    expect(page.body).not.toContain('<html');
    expect((await send(svc.port, { target: '/dashboard/state', headers: { Host: evil } })).status).toBe(421);
  });

  it('serves 127.0.0.1, localhost and [::1] with the port only', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const p = svc.port;
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `LocalHost:${p}`, `[::1]:${p}`]) {
      expect((await send(p, { target: '/dashboard/state', headers: { Host: host } })).status, host).toBe(200);
    }
    const refused = ['127.0.0.1', 'localhost', `127.0.0.1:${p + 1}`, `127.0.0.1.evil.example:${p}`, `localhost.evil.example:${p}`, `0.0.0.0:${p}`, `[::2]:${p}`, `${p}`, ''];
    for (const host of refused) {
      expect((await send(p, { target: '/dashboard/state', headers: { Host: host } })).status, JSON.stringify(host)).toBe(421);
    }
    expect((await send(p, { target: '/dashboard/state', headers: { Host: null } })).status).toBe(421);
  });

  it('takes Origin: null as foreign (403), as any origin but the page itself', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const v = await provision(svc.port, 'Value');
    for (const origin of ['null', 'http://evil.example', `http://localhost:${svc.port + 1}`, `https://127.0.0.1:${svc.port}`, 'garbage']) {
      const r = await setValue(svc.port, v.id, 'x', { Origin: origin });
      expect(r.status, origin).toBe(403);
      expect(r.body).toMatch(/^Origin: /);
      expect((await send(svc.port, { target: '/dashboard/state', headers: { Origin: origin } })).status, origin).toBe(403);
    }
    expect(await stored(svc, v)).toBe('');
    // A fetch from another site is refused by its fetch metadata too.
    expect((await setValue(svc.port, v.id, 'x', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await setValue(svc.port, v.id, 'x', { 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect(await stored(svc, v)).toBe('');

    const ok = await setValue(svc.port, v.id, 'y', { Host: `localhost:${svc.port}`, Origin: `http://localhost:${svc.port}`, 'Sec-Fetch-Site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(await stored(svc, v)).toBe('y');
  });

  it('leaves the API to its own key whatever the Host', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const v = await provision(svc.port, 'Value');
    const r = await send(svc.port, { target: `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/3`, headers: { Host: 'pico.lan' } });
    expect(r.status).toBe(200);
    expect(await stored(svc, v)).toBe('3');
  });
});

describe('beyond loopback: the dashboard token', () => {
  it('refuses state and set-value without the token (401, nothing changed), serves them with it; the API keeps its key', async () => {
    const svc = await h.start({ dataDir: h.dir(), host: '0.0.0.0' });
    expect(svc.exposed).toBe(true);
    const token = svc.dashboardToken as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const v = await provision(svc.port, 'Value', 'fleet@example.com', 'pw', 'pump');
    await call(svc.port, 'GET', `/api/updatedevicevalue/${v.key}/${v.id}/${v.pin}/0`);

    const bare = await send(svc.port, { target: '/dashboard/state' });
    expect(bare.status).toBe(401);
    expect(bare.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(bare.body).toMatch(/^Authorization: /);
    expect(bare.body).not.toContain('pump');
    for (const auth of [null, 'Bearer wrong', `Bearer ${token.slice(0, -1)}`, `Bearer ${token}x`, `Basic ${token}`, token]) {
      const headers: Record<string, string> = auth === null ? {} : { Authorization: auth };
      expect((await setValue(svc.port, v.id, '1', headers)).status, String(auth)).toBe(401);
      expect((await send(svc.port, { target: '/dashboard/state', headers })).status, String(auth)).toBe(401);
    }
    expect(await stored(svc, v)).toBe('0');

    const auth = { Authorization: `Bearer ${token}` };
    const st = await send(svc.port, { target: '/dashboard/state', headers: auth });
    expect(st.status).toBe(200);
    expect(st.body).toContain('pump');
    expect((await setValue(svc.port, v.id, '1', auth)).status).toBe(200);
    expect(await stored(svc, v)).toBe('1');
    // Any name for the machine is served with the token; a foreign Origin is still refused.
    expect((await send(svc.port, { target: '/dashboard/state', headers: { ...auth, Host: `pico-service.lan:${svc.port}` } })).status).toBe(200);
    expect((await setValue(svc.port, v.id, '2', { ...auth, Origin: 'http://evil.example' })).status).toBe(403);
    expect(await stored(svc, v)).toBe('1');
  });

  it('needs no token on loopback, and makes none', async () => {
    const svc = await h.start({ dataDir: h.dir() });
    expect(svc.exposed).toBe(false);
    expect(svc.dashboardToken).toBeUndefined();
    const v = await provision(svc.port, 'Value');
    expect((await send(svc.port, { target: '/dashboard/state' })).status).toBe(200);
    expect((await setValue(svc.port, v.id, '5')).status).toBe(200);
  });
});

describe('the command line beyond loopback', () => {
  const root = path.resolve(__dirname, '../..');
  const loader = pathToFileURL(path.join(path.dirname(fs.realpathSync(path.join(root, 'node_modules/.bin/tsx'))), 'loader.mjs')).href;
  let proc: ChildProcessWithoutNullStreams | undefined;
  afterEach(() => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    proc = undefined;
  });

  it('says in its start line that the dashboard is exposed, with the URL that carries the token', async () => {
    const dir = h.dir();
    proc = spawn(process.execPath, ['--import', loader, path.join(root, 'host/service/main.ts'), '--host', '0.0.0.0', '--port', '0', '--data', dir, '--quiet'], { cwd: root, stdio: 'pipe' });
    const w = watchOutput(proc);
    const [line, port, token] = await w.waitFor(/listening on http:\/\/[^/\s]+:(\d+)\/\?token=([A-Za-z0-9_-]+) .*\n/);
    expect(line).toMatch(/exposed/);
    const p = Number(port);
    expect((await send(p, { target: '/dashboard/state' })).status).toBe(401);
    expect((await send(p, { target: '/dashboard/state', headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
