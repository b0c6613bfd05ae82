// The table of resident modules handed to cold code (src/shared.ts) is
// written from src/residency.json, as rows of values read by number, with
// sharedRows naming each row's values in order; a value export missing from
// it, or a row out of step with its names, would reach a cold module as the
// wrong function or as undefined.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadResidency, sharedRows, valueExports } from '../../scripts/build/residency';
import { sharedTable } from '../../src/shared';

const TABLE = sharedTable();
const ROWS = sharedRows(loadResidency());
const SHARED_NAMES: Record<string, readonly string[]> = Object.fromEntries(ROWS.map((r) => [r.path.replace(/\.ts$/, ''), r.names]));
const KEYS = Object.keys(SHARED_NAMES);

describe('src/shared.ts', () => {
  it('has one row per named module, each as long as its names', () => {
    expect(TABLE.length).toBe(KEYS.length);
    KEYS.forEach((key, i) => expect(TABLE[i]?.length, key).toBe(SHARED_NAMES[key]?.length));
  });

  it.each(KEYS.map((k, i) => [k, i] as const))('lists every value export of src/%s.ts, in the order of its row (row %i)', async (key, i) => {
    const names = SHARED_NAMES[key] as readonly string[];
    expect([...names].sort()).toEqual(valueExports(`src/${key}.ts`).sort());
    const mod = (await import(/* @vite-ignore */ pathToFileURL(resolve(`src/${key}.ts`)).href)) as Record<string, unknown>;
    names.forEach((name, j) => expect(TABLE[i]?.[j], name).toBe(mod[name]));
  });

  it('holds plain arrays: no getters, no holes', () => {
    for (const row of TABLE) {
      expect(Array.isArray(row)).toBe(true);
      for (const d of Object.values(Object.getOwnPropertyDescriptors(row))) expect('get' in d && d.get !== undefined).toBe(false);
    }
  });
});
