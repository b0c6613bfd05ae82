// The table of resident modules handed to cold code (src/shared.ts) is
// written by hand, as plain objects; a value export missing from it would
// reach a cold module as undefined. The build refuses that too; this says
// which one, without building.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { valueExports } from '../../scripts/build';
import { sharedTable } from '../../src/shared';

const SHARED = sharedTable();

describe('src/shared.ts', () => {
  it.each(Object.keys(SHARED))('lists every value export of src/%s.ts, and the module\'s own functions', async (key) => {
    const listed: Record<string, unknown> = { ...SHARED[key] };
    expect(Object.keys(listed).sort()).toEqual(valueExports(`src/${key}.ts`).sort());
    const mod = (await import(/* @vite-ignore */ pathToFileURL(resolve(`src/${key}.ts`)).href)) as Record<string, unknown>;
    for (const name of Object.keys(listed)) expect(listed[name], name).toBe(mod[name]);
  });

  it('holds no getters: each entry is a plain data property', () => {
    for (const key of Object.keys(SHARED)) {
      for (const d of Object.values(Object.getOwnPropertyDescriptors(SHARED[key]))) expect('get' in d && d.get !== undefined).toBe(false);
    }
  });
});
