// Size and wire budgets, printed and enforced: the bundle's bytecode lives in
// the same 180 KB heap as the data, and every byte on air costs power.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build/build';
import { API_KEY, HOST_HEADER, measureWire } from '../../scripts/measure/bench/wire';

const board = JSON.parse(readFileSync('boards/pico-w.json', 'utf8')) as { bundleBudgetBytes: number; residentBudgetBytes: number };

describe('budgets', () => {
  it('keeps the resident program and the whole artifact within the pico-w budgets', async () => {
    const budget = board.residentBudgetBytes;
    const r = await buildBundle({ outfile: 'dist/budget-agent.js' });
    console.log(`resident ${r.residentBytes} B, pico-w budget ${budget} B (${((r.residentBytes / budget) * 100).toFixed(1)} %); cold ${r.coldBytes} B; whole ${r.bytes} B of ${board.bundleBudgetBytes} B`);
    expect([r.residentBudgetBytes, r.budgetBytes]).toEqual([budget, board.bundleBudgetBytes]);
    expect(r.residentBytes, `resident program ${r.residentBytes} B is over the pico-w budget of ${budget} B`).toBeLessThanOrEqual(budget);
    expect(r.bytes, `artifact ${r.bytes} B is over the pico-w budget of ${board.bundleBudgetBytes} B`).toBeLessThanOrEqual(board.bundleBudgetBytes);
    // The cold section really is in front: the resident part parses on its own.
    expect(r.residentBytes + r.coldBytes).toBe(r.bytes);
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
