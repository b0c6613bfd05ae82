// status() names what is wrong: Wi-Fi down, the service unreachable and the
// service refusing are three states, each on the line it belongs to, not a
// "wifi down" with the cause lines later. Lines break between phrases only,
// and counts of one read in the singular.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../src/config/types';
import { testConfig } from '../fakes/config';
import { provisionHealth } from '../fakes/provision';
import { Board, DEAD_URL, provisioned, sharedService } from '../runtime/harness';
import type { Booted } from '../runtime/harness';

const service = sharedService();

function booted(cfg: AgentConfig): Booted {
  const board = new Board();
  board.save(cfg);
  return board.boot();
}

function status(b: Booted): string[] {
  const from = b.out().length;
  b.cmd.status!();
  return b.out().slice(from);
}

/** The line of one setting, its continuations joined. */
function line(lines: string[], label: string): string | undefined {
  const i = lines.findIndex((l) => l.startsWith(label.padEnd(10)));
  if (i < 0) return undefined;
  let l = lines[i]!;
  for (let j = i + 1; j < lines.length && lines[j]!.startsWith('  '); j++) l += ' ' + lines[j]!.slice(2);
  return l;
}

/** A service that answers every request with `status`. */
async function answering(status: number, body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = http.createServer((_req, res) => {
    res.statusCode = status;
    res.setHeader('Content-Type', 'text/plain');
    res.end(body);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: 'http://127.0.0.1:' + (srv.address() as AddressInfo).port, close: () => new Promise((r) => srv.close(() => r())) };
}

describe('status() names the three states apart', () => {
  it('Wi-Fi up, the service stopped: Wi-Fi is not blamed, the service is unreachable', async () => {
    const b = booted(testConfig(DEAD_URL));
    await b.run(20000);
    const lines = status(b);
    expect(line(lines, 'wifi')).toMatch(/^wifi {6}up at the last check \(field-net\), /);
    expect(line(lines, 'service')).toMatch(/^service {3}unreachable: connect: closed before connect; next try in \d+ s$/);
    // Named once, where it belongs.
    expect(lines.join('\n').match(/closed before connect/g)).toHaveLength(1);
    b.rt.stop();
  });

  it('Wi-Fi down: the Wi-Fi line says so, and the service was not tried', async () => {
    const b = booted(testConfig(DEAD_URL));
    b.p.wifi.setAp(false);
    await b.run(20000);
    const lines = status(b);
    expect(line(lines, 'wifi')).toMatch(/^wifi {6}down \(field-net\), joins 0, not seen \d+, radio resets \d+, last step: SSID not visible$/);
    expect(line(lines, 'service')).toMatch(/^service {3}not tried: Wi-Fi down; next try in \d+ s$/);
    b.rt.stop();
  });

  it('the service answering and refusing: Wi-Fi up, the service refusing, with its answer', async () => {
    const s = await answering(503, 'maintenance');
    try {
      const b = booted(testConfig(s.url));
      await b.run(20000);
      const lines = status(b);
      expect(line(lines, 'wifi')).toMatch(/^wifi {6}up/);
      expect(line(lines, 'service')).toMatch(/^service {3}refusing: HTTP 503 Service Unavailable: text 11 bytes: maintenance; next try in \d+ s$/);
      b.rt.stop();
    } finally {
      await s.close();
    }
  });

  it('all well: Wi-Fi up, the service reachable, no error line', async () => {
    const b = booted(await provisioned(service.svc.url, testConfig()));
    await b.run(20000);
    const lines = status(b);
    expect(line(lines, 'wifi')).toMatch(/^wifi {6}up \(field-net\), /);
    expect(line(lines, 'service')).toBe('service   reachable');
    expect(line(lines, 'last err')).toBeUndefined();
    b.rt.stop();
  });
});

describe('status() lines', () => {
  it('break between phrases only, and say "1 report", "1 write", "1 run"', async () => {
    const cfg = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()));
    cfg.wifi.ssid = 'a-field-network-with-a-long-name';
    cfg.devices = cfg.devices.slice(0, 1);
    const b = booted(cfg);
    await b.run(7000);
    const lines = status(b);
    for (let i = 0; i < lines.length; i++) {
      expect(lines[i]!.length).toBeLessThanOrEqual(79);
      // A continuation starts a phrase: the line before ends one.
      if (lines[i]!.startsWith('  ')) expect(lines[i - 1]).toMatch(/[,;]$/);
    }
    // Not 'radio' at the end of one line and 'resets 0' on the next.
    expect(lines).toContain('  radio resets 0, last step: none');
    expect(line(lines, 'health')).toMatch(/^health {4}device \d+, 1 report, last \d+ s ago, every 60 s$/);
    expect(line(lines, 'delivery')).toMatch(/^delivery {2}last \d+ s ago, 1 reading in 1 write, 0 retries$/);
    expect(line(lines, 'sampler')).toBe('sampler   1 run, 0 sensor errors, 0 filtered out');
    b.rt.stop();
  });
});
