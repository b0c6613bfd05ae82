// `npm start` as a person runs it: the local service, provisioning through
// the agent's own path, deliveries of all three formats within seconds, the
// console on stdin, and a clean stop on Ctrl-C (SIGINT) that leaves nothing
// running. A second start on the same data resumes instead of provisioning;
// a config saved before outputs existed still starts, and --fresh adds them.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { watchOutput } from '../fakes/child';

const loader = pathToFileURL(join(dirname(realpathSync('node_modules/.bin/tsx')), 'loader.mjs')).href;
const data = mkdtempSync(join(tmpdir(), 'start-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));

function start(...extra: string[]): { proc: ChildProcessWithoutNullStreams; out: () => string; waitFor: (re: RegExp) => Promise<RegExpMatchArray> } {
  const proc = spawn(process.execPath, ['--import', loader, 'host/start.ts', '--port', '0', '--data', data, '--interval-ms', '1000', ...extra], { stdio: 'pipe' });
  const { out, waitFor } = watchOutput(proc);
  return { proc, out, waitFor };
}

const exited = (p: ChildProcessWithoutNullStreams): Promise<number | null> => new Promise((r) => p.once('exit', (code) => r(code)));
const portOpen = (port: number): Promise<boolean> =>
  new Promise((r) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), r(true)));
    s.once('error', () => r(false));
  });

describe('npm start', () => {
  it('delivers value, JSON and XML writes, answers console commands and stops cleanly on Ctrl-C', async () => {
    const a = start();
    const [, port] = await a.waitFor(/Device Data Service \(local\) at http:\/\/127\.0\.0\.1:(\d+)\/api\//);
    await a.waitFor(/provisioned XML device sim_xml: DeviceID 3/);
    await a.waitFor(/delivered {2}sim_value .*HTTP 200 {2}\d+\.\d\d/);
    await a.waitFor(/delivered {2}sim_json .*HTTP 200 {2}\{"temp":/);
    await a.waitFor(/delivered {2}sim_xml .*HTTP 200 {2}<reading /);
    // The simulated board's I2C parts (a BME280, an SHT4x and a BH1750 on bus 0), read
    // through the device build's cold modules as a board reads them.
    await a.waitFor(/delivered {2}sim_json .*HTTP 200 {2}\{.*"air\.temperature":2\d\.\d\d,"air\.humidity":\d+\.\d\d,"air\.pressure":10\d\d\.\d\d,"leaf\.te/);
    a.proc.stdin.write('status()\n');
    await a.waitFor(/outbox {4}\d+ queued/);
    expect(a.out()).toMatch(/i2c {7}air \(bme280 at 0x76, bus 0\): \d+ reads?, 0 failed/);
    // Its configuration device, made with its first document (the board's config without wifi, service, remote).
    expect(a.out()).toMatch(/provisioned JSON device sim_config for the board's configuration/);
    expect(a.out()).toMatch(/remote {4}device \d+/);
    expect(a.out()).not.toMatch(/sim_config: its first document was not written/);
    expect(a.out()).toMatch(/agent {5}0\.1\.0, running/);
    const code = exited(a.proc);
    a.proc.kill('SIGINT');
    expect(await code).toBe(0);
    expect(a.out()).toMatch(/stopped\n$/);
    expect(await portOpen(Number(port))).toBe(false);

    // Same data directory: the board and the service resume, nothing is provisioned again.
    const b = start();
    await b.waitFor(/resuming the simulated board/);
    await b.waitFor(/delivered {2}sim_json/);
    expect(b.out()).not.toMatch(/provisioned/);
    const code2 = exited(b.proc);
    b.proc.kill('SIGINT');
    expect(await code2).toBe(0);
  });

  it('starts from a config saved before outputs existed, and --fresh adds the relay on GP16 driven by sim_control', async () => {
    // The data of the test above, its config as an earlier version saved it: no outputs.
    const file = join(data, 'sim', 'files', 'config.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(saved.outputs).toEqual([expect.objectContaining({ name: 'relay', kind: 'digital', pin: 16, pollMs: 5000 })]);
    delete saved.outputs;
    writeFileSync(file, JSON.stringify(saved, null, 2) + '\n');

    const a = start();
    const [, url] = await a.waitFor(/Device Data Service \(local\) at (http:\/\/127\.0\.0\.1:\d+)\/api\//);
    await a.waitFor(/resuming the simulated board/);
    await a.waitFor(/its config drives no outputs: start with --fresh for the relay on GP16/);
    await a.waitFor(/delivered {2}sim_json .*HTTP 200/);
    expect(a.out()).not.toMatch(/provisioned|GP16 relay/);
    const state = (await (await fetch(`${url}/dashboard/state`)).json()) as { board: { title: string; outputs: unknown[] } | null };
    expect(state.board).toMatchObject({ title: expect.stringMatching(/simulated by npm start$/), outputs: [] });
    const code = exited(a.proc);
    a.proc.kill('SIGINT');
    expect(await code).toBe(0);

    const b = start('--fresh');
    const [, url2] = await b.waitFor(/Device Data Service \(local\) at (http:\/\/127\.0\.0\.1:\d+)\/api\//);
    const [, id] = await b.waitFor(/provisioned Value device sim_control \(stored value 0\) for the relay on GP16: DeviceID (\d+)/);
    await b.waitFor(/GP16 relay: digital output, off/);
    const state2 = (await (await fetch(`${url2}/dashboard/state`)).json()) as {
      board: { outputs: { gpio: number; name: string; kind: string; level: number | null; open: boolean }[] };
      devices: { id: number; name: string; format: string; lastValue: string | null }[];
    };
    expect(state2.board.outputs).toEqual([expect.objectContaining({ gpio: 16, name: 'relay', kind: 'digital', level: 0, open: true })]);
    expect(state2.devices.find((d) => d.id === Number(id))).toMatchObject({ name: 'sim_control', format: 'Value', lastValue: '0' });
    const code2 = exited(b.proc);
    b.proc.kill('SIGINT');
    expect(await code2).toBe(0);
  });
});
