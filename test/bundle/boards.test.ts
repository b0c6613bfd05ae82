// A device bundle carries only the board it is built for: the other board's
// data would cost heap for nothing. A configuration for the other board is
// refused with a line that says which build to flash.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build/build';
import { toSaved } from '../../src/config/saved';
import { testConfig } from '../fakes/config';
import { createKalumaSim } from './kaluma-sim';

const built: Record<string, { code: string; inputs: string[] }> = {};
beforeAll(async () => {
  for (const board of ['pico-w', 'pico2-w']) {
    const r = await buildBundle({ board, outfile: `dist/boards-${board}.js` });
    built[board] = { code: readFileSync(r.outfile, 'utf8'), inputs: r.inputs.map((i) => i.path) };
  }
});

describe('one board per bundle', () => {
  it('builds each board with its own data only', () => {
    expect(built['pico-w']!.inputs.filter((p) => /board/.test(p)).sort()).toEqual(['only-board:pico-w', 'src/board.ts']);
    expect(built['pico2-w']!.inputs.filter((p) => /board/.test(p)).sort()).toEqual(['only-board:pico2-w', 'src/board.ts']);
    // The Pico 2 W's watchdog maximum is its own; neither bundle carries a
    // board's heap size (a build-only field: scripts/build/build.ts, BOARD_BUILD_ONLY).
    expect(built['pico-w']!.code).not.toContain('watchdogMaxMs:16777');
    expect(built['pico2-w']!.code).toContain('watchdogMaxMs:16777');
    for (const b of ['pico-w', 'pico2-w']) {
      expect(built[b]!.code).not.toContain('heapBytes');
      expect(built[b]!.code).not.toMatch(/184312|393208/);
    }
  });

  it('defaults to the board it was built for', () => {
    // config() is cold code, read from the Pico 2 W's program area (sector 16).
    const k = createKalumaSim({ program: new TextEncoder().encode(built['pico2-w']!.code), programSector: 16 });
    k.run(built['pico2-w']!.code);
    k.run('config()');
    expect(k.out).toContain('board = pico2-w');
  });

  it('refuses a configuration for the other board, saying which build to flash', async () => {
    const cfg = testConfig('http://192.168.1.10:8080');
    cfg.board = 'pico2-w';
    const k = createKalumaSim({ files: new Map([['/config.json', new TextEncoder().encode(JSON.stringify(toSaved(cfg)))]]), program: new TextEncoder().encode(built['pico-w']!.code) });
    k.run(built['pico-w']!.code);
    // The check runs once the boot is done (the first boot after a config is flashed).
    await k.advance(2000);
    expect(k.errors).toContain('config: board: this build is for pico-w; flash the pico2-w build (npm run build -- --board pico2-w)');
    expect(k.out).toContain('agent: console only: saved configuration invalid (see the errors above); fix with set() and save()');
    expect(k.resets).toBe(0);
    expect(k.requests).toEqual([]);
  });
});
