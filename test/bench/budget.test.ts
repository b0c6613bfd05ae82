// Size and wire budgets, printed and enforced: the bundle's bytecode lives in
// the same 180 KB heap as the data, and every byte on air costs power.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build';
import { API_KEY, HOST_HEADER, measureWire } from '../../scripts/bench/wire';

const board = JSON.parse(readFileSync('boards/pico-w.json', 'utf8')) as { bundleBudgetBytes: number };

describe('budgets', () => {
  it('keeps the device bundle within the pico-w budget', async () => {
    const budget = board.bundleBudgetBytes;
    const r = await buildBundle({ outfile: 'dist/budget-agent.js' });
    console.log(`bundle ${r.bytes} B, pico-w budget ${budget} B (${((r.bytes / budget) * 100).toFixed(1)} %)`);
    expect(r.budgetBytes).toBe(budget);
    expect(r.bytes, `bundle ${r.bytes} B is over the pico-w budget of ${budget} B`).toBeLessThanOrEqual(budget);
  });

  it('sends a Value write within 15 % of the smallest request the spec allows', async () => {
    const rows = await measureWire();
    for (const w of rows) console.log(`${w.format}: ${w.sent} B sent, ${w.minimal} B minimal, ratio ${w.ratio.toFixed(3)}`);
    const value = rows.find((w) => w.format === 'Value')!;
    // The capture is the client's real output, not an echo of the minimum.
    expect(value.request.startsWith(`GET /api/updatedevicevalue/${API_KEY}/12/4821/21.50 HTTP/1.0\r\n`)).toBe(true);
    expect(value.request).toContain(`\r\nHost: ${HOST_HEADER}\r\n`);
    expect(value.ratio, `Value write: ${value.sent} B sent for ${value.minimal} B minimal`).toBeLessThanOrEqual(1.15);
  });
});
