// The headers every answer carries (issue 35, row 7): a Content-Security-Policy
// that forbids framing, nosniff, X-Frame-Options and Referrer-Policy; on the
// page a script-src that lets only its own script run (by hash), and no inline
// event handlers. That the page still works under it and cannot be framed is
// checked in a browser (security-dashboard.browser.test.ts).

import { createHash } from 'node:crypto';

import { afterEach, describe, expect, it } from 'vitest';

import { DASHBOARD_HTML } from '../../host/service/dashboard';
import { call, provision, rawExchange, serviceHarness } from './helpers';
import type { RawResponse } from './helpers';
import { send } from './security-helpers';

const h = serviceHarness();
afterEach(() => h.cleanup());

function directives(csp: string | undefined): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) m.set(name.toLowerCase(), values);
  }
  return m;
}

function expectHardened(r: RawResponse, what: string): void {
  const csp = directives(r.headers['content-security-policy']);
  expect(csp.get('frame-ancestors'), what).toEqual(["'none'"]);
  expect(csp.get('default-src'), what).toEqual(["'none'"]);
  expect(r.headers['x-content-type-options'], what).toBe('nosniff');
  expect(r.headers['x-frame-options'], what).toBe('DENY');
  expect(r.headers['referrer-policy'], what).toBe('no-referrer');
}

describe('security headers', () => {
  it('are on every answer: page, state, API, refusals and what the HTTP parser rejects', async () => {
    const svc = await h.start({ dataDir: h.dir(), maxBodyBytes: 100 });
    const v = await provision(svc.port, 'Value');
    const answers: [string, RawResponse][] = [
      ['page', await call(svc.port, 'GET', '/')],
      ['state', await call(svc.port, 'GET', '/dashboard/state')],
      ['api 200', await call(svc.port, 'GET', `/api/showdevicevalue/${v.key}/${v.id}/${v.pin}`)],
      ['api 401', await call(svc.port, 'GET', `/api/showdevicevalue/nokey/${v.id}/${v.pin}`)],
      ['404', await call(svc.port, 'GET', '/nope')],
      ['405', await call(svc.port, 'PUT', '/')],
      ['413', await call(svc.port, 'POST', `/api/updatedevicejson/${v.key}/${v.id}/${v.pin}`, 'x'.repeat(200))],
      ['415', await call(svc.port, 'POST', '/dashboard/set-value', '{}', 'text/plain')],
      ['421', await send(svc.port, { target: '/', headers: { Host: `evil.example:${svc.port}` } })],
      ['403', await send(svc.port, { target: '/dashboard/state', headers: { Origin: 'null' } })],
    ];
    const parserRefusals = [
      ['431', `GET /${'a'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['400', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: z\r\n\r\n'],
    ];
    for (const [what, raw] of parserRefusals) {
      const r = await rawExchange(svc.port, raw as string);
      if (r === 'dropped') throw new Error(`${what}: dropped`);
      expect(r.status).toBe(Number(what));
      answers.push([what as string, r]);
    }
    for (const [what, r] of answers) expectHardened(r, what);
  });

  it("lets the page run only its own script and style, by hash, with nothing inline elsewhere", async () => {
    const svc = await h.start({ dataDir: h.dir() });
    const page = await call(svc.port, 'GET', '/');
    const csp = directives(page.headers['content-security-policy']);
    const hash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(DASHBOARD_HTML)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(DASHBOARD_HTML)?.[1] ?? '';
    expect(script.length).toBeGreaterThan(1000);
    expect(csp.get('script-src')).toEqual([hash(script)]);
    expect(csp.get('style-src')).toEqual([hash(style)]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-/);
    // One script and one style element, no handler or style attribute, no javascript: URL.
    expect(page.body.match(/<script/g)).toHaveLength(1);
    expect(page.body.match(/<style/g)).toHaveLength(1);
    expect(page.body).not.toMatch(/\son[a-z]+\s*=/i);
    expect(page.body).not.toMatch(/\sstyle\s*=/i);
    expect(page.body).not.toMatch(/javascript:/i);
  });
});
