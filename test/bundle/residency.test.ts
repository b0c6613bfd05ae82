// The residency table (src/residency.json) against a real build: the cold
// modules built are the table's, and each class is where the bundler put
// its code; a table that says otherwise is refused, in a line naming the
// module.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuildResult } from '../../scripts/build/build';
import { checkResidency, loadResidency, type ModuleClass, type Residency } from '../../scripts/build/residency';
import { MESSAGES } from '../../src/cold';

const R = loadResidency();
let built: BuildResult;

beforeAll(async () => {
  built = await buildBundle({ outfile: 'dist/residency-test/agent.js' });
});

/** The table with module `m` in class `c` (or left out). */
function moved(m: string, c: ModuleClass | undefined): Residency {
  const modules = { ...R.modules };
  if (c === undefined) delete modules[m];
  else modules[m] = c;
  return { ...R, modules };
}

describe('the table and the build agree', () => {
  it('builds the cold modules the table names, each with its size in the build manifest', () => {
    const manifest = JSON.parse(readFileSync('dist/residency-test/agent.cold.json', 'utf8')) as { modules: { name: string; bytes: number }[] };
    const names = manifest.modules.map((m) => m.name).filter((n) => n !== MESSAGES);
    expect(names).toEqual(Object.keys(R.cold).sort());
    for (const m of manifest.modules) expect(m.bytes, m.name).toBeGreaterThan(0);
    expect(built.cold.map((c) => c.name)).toEqual([...names, MESSAGES]);
  });

  it('finds every module where its class says', () => {
    expect(checkResidency(R, built.placement, true)).toEqual([]);
  });

  it.each([
    ['resident code classed cold', 'runtime.ts', 'cold', /^cold code imported by the resident program: src\/runtime\.ts;/],
    ['a module the resident program imports left out', 'cold.ts', undefined, /^src\/cold\.ts: not in src\/residency\.json; add each with its class \(where the bundler put it: cold\.ts resident\)$/],
    ["a module of the agent part left out", 'agent/sampler.ts', undefined, /^src\/agent\/sampler\.ts: not in src\/residency\.json; add each with its class \(where the bundler put it: agent\/sampler\.ts part:agent\)$/],
    ['a module of cold code left out', 'config/edit.ts', undefined, /^src\/config\/edit\.ts: not in src\/residency\.json; add each with its class \(where the bundler put it: config\/edit\.ts cold\)$/],
    ["the agent part's code classed resident", 'agent/uplink.ts', 'resident', /^part 'agent' carries src\/agent\/uplink\.ts \(resident\): src\/residency\.json must class it part:agent$/],
    ['cold code classed resident', 'config/schema.ts', 'resident', /^src\/residency\.json: src\/config\/schema\.ts is classed resident, but only cold code carries it \(check, config, keys, show\)$/],
    ['code of no program classed cold', 'console/commands.ts', 'cold', /^src\/residency\.json: src\/console\/commands\.ts is classed cold, but no program of the device imports it$/],
    ['resident code classed types', 'config/store.ts', 'types', /^src\/config\/store\.ts: classed types, but the device carries code of it$/],
    ['resident code classed part', 'agent/led.ts', 'part:agent', /^src\/residency\.json: src\/agent\/led\.ts is classed part:agent, but the resident program imports it$/],
  ] as const)('names %s', (_what, m, c, rule) => {
    const problems = checkResidency(moved(m, c), built.placement, true);
    expect(problems.some((p) => rule.test(p)), problems.join('\n')).toBe(true);
  });

  it('names a cold module the table has and the build has not', () => {
    const cold = { ...R.cold, extra: { from: 'config/edit.ts', export: 'x', about: 'a test' } };
    expect(checkResidency({ ...R, cold }, built.placement, true)).toContainEqual(expect.stringMatching(/^cold modules built \(.*\) are not those of src\/residency\.json \(.*extra.*\)$/));
  });

  it('refuses to build when the resident program imports a module the table leaves out', async () => {
    await expect(buildBundle({ residency: moved('config/store.ts', undefined), outfile: 'dist/residency-test/unclassed.js' })).rejects.toThrow(
      /^src\/config\/store\.ts: not in src\/residency\.json; add each with its class \(where the bundler put it: config\/store\.ts resident\)$/m,
    );
  });
});
