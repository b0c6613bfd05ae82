// The residency table (src/residency.json): every file of src/ in one class,
// the table well formed, and what is written from it (src/shared.ts, the
// docs' table) the same as the table says.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  coldEntrySource, DOC_BEGIN, DOC_END, DOC_FILE, generated, loadResidency, parseResidency, type Residency, residencySection, srcFiles, unclassified,
} from '../scripts/build/residency';
import { TABLE } from '../src/parts/table';
import { readFileSync } from 'node:fs';

const R = loadResidency();
const exists = (): boolean => true;
/** The table as written, loosely typed, so that a test can break it. */
interface Json { modules: Record<string, unknown>; parts: Record<string, unknown>; cold: Record<string, Record<string, unknown>>; messagesInCode: unknown[] }
/** The table as JSON, changed by `edit`. */
const changed = (edit: (j: Json) => unknown): unknown => {
  const j = JSON.parse(JSON.stringify(R)) as Json;
  edit(j);
  return j;
};

describe('every file of src/ in one class', () => {
  it('classes each .ts file of src/', () => {
    expect(unclassified(R, srcFiles())).toEqual([]);
  });

  it('names a file the table leaves out', () => {
    const without = changed((j) => delete j.modules['runtime.ts']) as Residency;
    expect(unclassified(without, srcFiles())).toEqual(['runtime.ts']);
    expect(unclassified(R, [...srcFiles(), 'agent/i2c.ts'])).toEqual(['agent/i2c.ts']);
  });

  it('finds the files of folders below src/, and only .ts files', () => {
    const files = srcFiles();
    expect(files).toContain('ports/kaluma/sockets.ts');
    expect(files).toContain('engine.d.ts');
    expect(files.every((f) => f.endsWith('.ts'))).toBe(true);
  });
});

describe('the table is well formed', () => {
  it('takes the table of this tree', () => {
    expect(parseResidency(JSON.parse(readFileSync('src/residency.json', 'utf8')), exists)).toMatchObject({ parts: R.parts, cold: R.cold, messagesInCode: R.messagesInCode });
  });

  it.each([
    ['an unknown class', (j: Json) => (j.modules['runtime.ts'] = 'warm'), /^modules\.runtime\.ts: must be one of resident, shared, cold, types, host or part:<a name of parts> \(got "warm"\)$/],
    ['a part no part is named', (j: Json) => (j.modules['runtime.ts'] = 'part:console'), /^modules\.runtime\.ts: must be one of/],
    ['a path outside src/', (j: Json) => (j.modules['../host/start.ts'] = 'host'), /^modules\.\.\.\/host\/start\.ts: must be a \.ts file's path under src\/$/],
    ['a cold module taken from resident code', (j: Json) => (j.cold['state']!['from'] = 'runtime.ts'), /^cold\.state\.from: must name a module of class cold$/],
    ['a cold module with both kinds of value', (j: Json) => (j.cold['state']!['export'] = 'x'), /^cold\.state: must have one of export and commands$/],
    ['a cold module named as the messages', (j: Json) => (j.cold['msg'] = j.cold['state']!), /^cold\.msg: a cold module's name/],
    ['a cold module that says nothing of itself', (j: Json) => delete j.cold['state']!['about'], /^cold\.state\.about: must say what the module does$/],
    ['kept as a word', (j: Json) => (j.cold['outputs']!['kept'] = 'yes'), /^cold\.outputs\.kept: must be true or false$/],
    ['a part whose entry is not its own', (j: Json) => (j.parts['agent'] = 'runtime.ts'), /^parts\.agent: must name a module of class part:agent$/],
    ['cold code keeping its messages', (j: Json) => j.messagesInCode.push('config/edit.ts'), /^messagesInCode: "config\/edit\.ts" must be a module of class resident, shared or part/],
  ])('refuses %s in one line naming the field', (_what, edit, rule) => {
    expect(parseResidency(changed(edit), exists)).toMatch(rule);
  });

  it("leaves out the line of a file that is gone, and refuses a cold module made of one", () => {
    const r = parseResidency(R, (p) => p !== 'version.ts') as Residency;
    expect(Object.keys(r.modules)).toEqual(Object.keys(R.modules).filter((m) => m !== 'version.ts'));
    expect(parseResidency(R, (p) => p !== 'config/codec.ts')).toBe('cold.check.from: must name a module of class cold');
  });

  it('names only files of src/ (the build leaves out a line whose file is gone; here it fails)', () => {
    const written = JSON.parse(readFileSync('src/residency.json', 'utf8')) as { modules: Record<string, string> };
    expect(Object.keys(written.modules).filter((m) => !(m in R.modules))).toEqual([]);
  });
});

describe('what the build makes from the table', () => {
  it('makes each cold module of an export, or of a command table run through console/run.ts', () => {
    expect(coldEntrySource({ from: 'console/cmd-config.ts', commands: 'stateCommands', about: '' })).toBe(
      "import { stateCommands } from './console/cmd-config';\nimport { run } from './console/run';\nexport default run(stateCommands);\n",
    );
    expect(coldEntrySource({ from: 'config/codec.ts', export: 'CODEC', about: '' })).toBe("export { CODEC as default } from './config/codec';\n");
  });

  it.each(Object.entries(R.cold))("finds cold module '%s''s value in its module", async (_name, e) => {
    const mod = (await import(/* @vite-ignore */ pathToFileURL(resolve('src', e.from)).href)) as Record<string, unknown>;
    const value = mod[(e.commands ?? e.export) as string];
    // A command table is a function of the console's context; an export is what the module is.
    if (e.commands !== undefined) expect(typeof value).toBe('function');
    else expect(['function', 'object']).toContain(typeof value);
  });

  it("has the host's parts table hold the table's parts (the device build writes its own from the table)", () => {
    expect(Object.keys(TABLE).sort()).toEqual(Object.keys(R.parts).sort());
  });

  it('keeps src/shared.ts and the docs\' table as the table says (npm run residency writes them)', () => {
    for (const g of generated(R)) expect(g.have, `${g.file} is stale: run npm run residency`).toBe(g.want);
    expect(generated(R).map((g) => g.file)).toEqual(['src/shared.ts', DOC_FILE]);
  });

  it('shows each module in the docs\' table under its class', () => {
    const doc = readFileSync(DOC_FILE, 'utf8');
    const section = doc.slice(doc.indexOf(DOC_BEGIN), doc.indexOf(DOC_END));
    expect(section).toBe(DOC_BEGIN + '\n' + residencySection(R));
    for (const m of Object.keys(R.modules)) expect(section).toContain('`' + m + '`');
    for (const c of Object.keys(R.cold)) expect(section).toContain(`| ${c} |`);
  });
});
