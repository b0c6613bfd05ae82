// Size and wire budgets, printed and enforced: the bundle's bytecode lives in
// the same 180 KB heap as the data, and every byte on air costs power.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../scripts/build';
import { measureWire } from '../../scripts/bench/wire';

describe('budgets', () => {
  it('keeps the device bundle inside the pico-w budget', async () => {
    const budget = (JSON.parse(readFileSync('boards/pico-w.json', 'utf8')) as { bundleBudgetBytes: number }).bundleBudgetBytes;
    const r = await buildBundle({ outfile: 'dist/budget-agent.js' });
    console.log(`bundle ${r.bytes} B, budget ${budget} B (${Math.round((r.bytes / budget) * 100)} %)`);
    expect(r.bytes).toBeLessThanOrEqual(budget);
  });

  it('sends a value write within 15 % of the smallest request the spec allows', async () => {
    const rows = await measureWire();
    for (const r of rows) console.log(`${r.format}: ${r.sent} B sent, ${r.minimal} B minimal, ratio ${r.ratio.toFixed(3)}`);
    const value = rows.find((r) => r.format === 'Value')!;
    expect(value.request).toBe(`GET /api/updatedevicevalue/3f0c9a1e0b6d4c2e8f7a5b3c1d9e0f2a/12/4821/21.50 HTTP/1.1\r\nHost: 192.168.1.10:8080\r\n\r\n`);
    expect(value.ratio).toBeLessThanOrEqual(1.15);
  });
});
