// The table of resident modules handed to cold code (src/shared.ts) is
// written by hand, as rows of values read by number, with SHARED_NAMES
// naming each row's values in order; a value export missing from it, or a
// row out of step with its names, would reach a cold module as the wrong
// function or as undefined. The build refuses a missing export too; this
// says which one, without building.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { valueExports } from '../../scripts/build/build';
import { SHARED_NAMES, sharedTable } from '../../src/shared';

const TABLE = sharedTable();
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
