// Outputs through the whole boot: a saved config with an output is checked,
// the runtime hands the outputs' part to the agent (and its loader, for each
// read's code), status() and the health report show the output, and the pin
// follows the control device.
import { describe, expect, it } from 'vitest';
import { healthReport } from '../../src/agent/health';
import type { SimPins } from '../../host/ports/pins';
import { testConfig } from '../fakes/config';
import { provisionControl, provisionHealth, setControl } from '../fakes/provision';
import { Board, provisioned, sharedService } from './harness';

const service = sharedService();

describe('an output in the saved config', () => {
  it('drives its pin from the control device; status() and the health report show it', async () => {
    const board = new Board();
    const cfg = await provisionHealth(service.svc.url, await provisioned(service.svc.url, testConfig()));
    const control = await provisionControl(service.svc.url, cfg, 'control', 'Value', 'on');
    cfg.outputs = [{ name: 'pump', kind: 'digital', pin: 16, sourceId: control.id, sourcePin: control.pin, field: '', pollMs: 5000, safe: 0, failsafeMs: 600000, invert: false }];
    board.save(cfg);
    const b = board.boot();
    expect(b.rt.mode()).toBe('running');
    const pin = () => (b.p.pins as SimPins).outputs().find((x) => x.pin === 16);
    // Made once the boot is done (cold code on the board), safe (off) until the first read.
    expect(pin()).toBeUndefined();
    expect(b.out()).not.toContain('output pump: GP16 -> off (safe level until the first good read)');
    await b.run(1);
    expect(b.out()).toContain('output pump: GP16 -> off (safe level until the first good read)');
    await b.run(3000);
    expect(pin()?.level).toBe(1);
    expect(b.out()).toContain('output pump: off -> on (source ' + control.id + ')');
    await setControl(service.svc.url, cfg.service.apiKey, control, 'maybe');
    await b.run(6000);
    const n = b.out().length;
    b.cmd.status!();
    // The console wraps a long line; its continuations start with two spaces.
    const shown = b.out().slice(n).join('\n').replace(/\n {2}/g, ' ');
    expect(shown).toMatch(new RegExp('\\noutput    pump GP16 on, source ' + control.id + ', good read \\d+ s ago, [23] reads, 0 failed, 1 refused; last: refused "maybe": not 0/1, on/off or true/false\\n'));
    const r = JSON.parse(healthReport(b.rt)) as { outputs: Record<string, unknown> };
    expect(r.outputs).toEqual({ pump: { level: 1, safe: false, goodS: expect.any(Number), reads: expect.any(Number), failed: 0, refused: 1 } });
    // The part that keeps the outputs loaded once; a read's code through the
    // same loader, once for each read.
    const o = b.rt.outputs()!.list[0]!;
    expect(b.loads).toEqual({ outputs: 1, 'output-read': o.reads + o.failures });
    b.rt.stop();
  });

  it('makes no outputs where the config has none', async () => {
    const board = new Board();
    board.save(await provisioned(service.svc.url, testConfig()));
    const b = board.boot();
    await b.run(2000);
    expect(b.rt.outputs()).toBeUndefined();
    expect((b.p.pins as SimPins).outputs()).toEqual([]);
    expect(b.loads).toEqual({});
    b.rt.stop();
  });
});
