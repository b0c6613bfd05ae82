// The residency table (src/residency.json): where each module of src/ lives
// on the device. The build derives every list it needs from it: the cold
// modules and their entries, which of them are kept while they serve, the
// parts, the table of resident modules handed to cold code (src/shared.ts),
// and the modules whose sentences stay in their code. After a build it
// checks the table against what the bundler put where (checkResidency).
//
//   npx tsx scripts/build/residency.ts           writes src/shared.ts and the docs' table
//   npx tsx scripts/build/residency.ts --check   fails when either is not what the table says
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { I2C_KINDS } from '../../src/sensors/i2c/kinds';

export const RESIDENCY_FILE = 'src/residency.json';
/** Where the build writes the resident modules' table for the host (the device build makes the same text itself). */
export const SHARED_FILE = 'src/shared.ts';
/** The document that shows the table, between these two lines. */
export const DOC_FILE = 'docs/architecture.md';
export const DOC_BEGIN = '<!-- residency: begin (written by npm run residency from src/residency.json; do not edit) -->';
export const DOC_END = '<!-- residency: end -->';
/** The console's runner: a cold module of commands is run(<its table>). */
const RUNNER = { from: 'console/run.ts', name: 'run' };

export type ModuleClass = 'resident' | 'shared' | 'cold' | 'types' | 'host' | `part:${string}`;

export interface ColdEntry {
  /** The module under src/ whose export the cold module hands out. */
  from: string;
  /** The export itself is the module's value... */
  export?: string;
  /** ...or a console command table, run through console/run.ts. */
  commands?: string;
  /** Loaded once and kept while it serves: its strings stay in its code. */
  kept?: boolean;
  about: string;
}

export interface Residency {
  /** Every file of src/ (path under src/) and its class. */
  modules: Record<string, ModuleClass>;
  /** Each part's name and its entry under src/. */
  parts: Record<string, string>;
  /** Each cold module's name and what it is. */
  cold: Record<string, ColdEntry>;
  /** Modules whose sentences stay in their code (scripts/build/messages.ts). */
  messagesInCode: string[];
}

const CLASSES = ['resident', 'shared', 'cold', 'types', 'host'];
const NAME = /^[a-z][a-z0-9-]*$/;
const IDENT = /^[A-Za-z_$][\w$]*$/;
/** The cold section's entry of the resident program's messages (src/cold.ts, MESSAGES). */
const MESSAGES = 'msg';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where each I2C kind's driver is: the kinds table (src/sensors/i2c/kinds.ts) lists them, so the table need not. */
export const DRIVER_DIR = 'sensors/i2c/drivers';

/**
 * The rows the kinds table implies: each kind's driver, a cold module of the
 * kind's name, loaded for each step of its sensors. Adding a kind is its driver, its
 * test and its line in the kinds table; nothing here.
 */
export function driverRows(): { modules: Record<string, ModuleClass>; cold: Record<string, ColdEntry> } {
  const modules: Record<string, ModuleClass> = {};
  const cold: Record<string, ColdEntry> = {};
  for (const kind of Object.keys(I2C_KINDS)) {
    const from = `${DRIVER_DIR}/${kind}.ts`;
    modules[from] = 'cold';
    cold[kind] = { from, export: 'steps', about: `the ${kind} I2C driver's steps (src/sensors/i2c/kinds.ts lists the kinds): loaded for each step of a sensor of kind ${kind}, with the module 'i2c-go' or 'i2c-read', and let go after` };
    cold[kind + '-init'] = { from, export: 'init', about: `the ${kind} I2C driver's readying: loaded when a sensor of kind ${kind} is readied (its first step, and the first after a failure), and let go after` };
  }
  return { modules, cold };
}

/**
 * The table as it is written, checked: the table, or one line naming the
 * field and the rule it breaks. `exists` says whether a path under src/ is a
 * file: the line of a file that is gone is left out (test/residency.test.ts
 * names it), unless a cold module or a part is made of it.
 */
export function parseResidency(json: unknown, exists: (path: string) => boolean): Residency | string {
  if (!isObject(json)) return 'residency: must be an object';
  const { parts, messagesInCode } = json;
  if (!isObject(json.modules)) return 'modules: must be an object of paths under src/ and their classes';
  if (!isObject(json.cold)) return 'cold: must be an object of cold module names and their entries';
  const drivers = driverRows();
  // A table already parsed holds these rows as they are made; any other is a mistake.
  for (const k of Object.keys(drivers.cold)) {
    if (k in json.cold && JSON.stringify(json.cold[k]) !== JSON.stringify(drivers.cold[k])) return `cold.${k}: an I2C driver's entry comes from the kinds table (src/sensors/i2c/kinds.ts); remove it here`;
  }
  const cold: Record<string, unknown> = { ...json.cold, ...drivers.cold };
  const modules = Object.fromEntries(Object.entries({ ...json.modules, ...drivers.modules }).filter(([path]) => exists(path)));
  if (!isObject(parts)) return 'parts: must be an object of part names and their entries';
  if (!Array.isArray(messagesInCode)) return 'messagesInCode: must be a list of paths under src/';
  for (const [name, entry] of Object.entries(parts)) {
    if (!NAME.test(name)) return `parts.${name}: a part's name is lower case letters, digits and '-'`;
    if (typeof entry !== 'string' || modules[entry] !== `part:${name}`) return `parts.${name}: must name a module of class part:${name}`;
  }
  for (const [path, c] of Object.entries(modules)) {
    if (!/\.ts$/.test(path) || path.startsWith('/') || path.split('/').includes('..')) return `modules.${path}: must be a .ts file's path under src/`;
    const part = typeof c === 'string' && c.startsWith('part:') ? c.slice(5) : undefined;
    if (!(typeof c === 'string' && CLASSES.includes(c)) && !(part !== undefined && part in parts)) {
      return `modules.${path}: must be one of ${CLASSES.join(', ')} or part:<a name of parts> (got ${JSON.stringify(c)})`;
    }
  }
  for (const [name, e] of Object.entries(cold)) {
    const at = `cold.${name}`;
    if (!NAME.test(name) || name === MESSAGES) return `${at}: a cold module's name is lower case letters, digits and '-', and not '${MESSAGES}' (the messages' entry)`;
    if (!isObject(e)) return `${at}: must be an object (from, export or commands, about)`;
    if (typeof e.from !== 'string' || modules[e.from] !== 'cold') return `${at}.from: must name a module of class cold`;
    const kinds = ['export', 'commands'].filter((k) => e[k] !== undefined);
    if (kinds.length !== 1) return `${at}: must have one of export and commands`;
    const value = e[kinds[0] as string];
    if (typeof value !== 'string' || !IDENT.test(value)) return `${at}.${kinds[0]}: must be the name of an export of ${e.from}`;
    if (e.kept !== undefined && typeof e.kept !== 'boolean') return `${at}.kept: must be true or false`;
    if (typeof e.about !== 'string' || !e.about) return `${at}.about: must say what the module does`;
    const extra = Object.keys(e).filter((k) => !['from', 'export', 'commands', 'kept', 'about'].includes(k));
    if (extra.length) return `${at}.${extra[0]}: unknown field; the fields are from, export, commands, kept and about`;
  }
  for (const path of messagesInCode) {
    const c = typeof path === 'string' ? modules[path] : undefined;
    if (c !== 'resident' && c !== 'shared' && !(typeof c === 'string' && c.startsWith('part:'))) {
      return `messagesInCode: ${JSON.stringify(path)} must be a module of class resident, shared or part (only their messages are taken)`;
    }
  }
  return { ...json, modules, cold } as unknown as Residency;
}

/** The table of this tree; throws the one line when it is not well formed. */
export function loadResidency(file = RESIDENCY_FILE): Residency {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  const r = parseResidency(json, (p) => existsSync(join('src', p)) && statSync(join('src', p)).isFile());
  if (typeof r === 'string') throw new Error(`${file}: ${r}`);
  return r;
}

/** Every file of src/ the table must class (its .ts files), as paths under src/. */
export function srcFiles(dir = 'src'): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(join(dir, d))) {
      const p = d ? `${d}/${f}` : f;
      if (statSync(join(dir, p)).isDirectory()) walk(p);
      else if (f.endsWith('.ts')) out.push(p);
    }
  };
  walk('');
  return out.sort();
}

/** Files of `files` that the table does not class. */
export const unclassified = (r: Residency, files: string[]): string[] => files.filter((f) => !(f in r.modules));

/** The names a module exports as values (types need nothing at run time). */
export function valueExports(path: string): string[] {
  const src = readFileSync(path, 'utf8');
  const names = [...src.matchAll(/^export (?:async )?(?:function\*?|const|let|var|class) ([\w$]+)/gm)].map((m) => m[1] as string);
  if (/^export \{|^export \* |^export default/m.test(src)) throw new Error(`${path}: a shared module may export only declarations`);
  return names;
}

const byName = (a: string, b: string): number => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
};

/**
 * The shared table's rows: each shared module (by path) and its value
 * exports (by name, case aside), in the order the table holds them. Cold
 * code and the parts read it by number, `__shared[row][column]`.
 */
export function sharedRows(r: Residency): { path: string; names: string[] }[] {
  return Object.keys(r.modules)
    .filter((p) => r.modules[p] === 'shared')
    .sort()
    .map((path) => ({ path, names: valueExports(join('src', path)).sort(byName) }));
}

/** The path of `path` (under src/) as an import from `fromDir` (under src/), without '.ts'. */
function importPath(fromDir: string, path: string): string {
  const rel = posix.relative(fromDir, path.replace(/\.ts$/, ''));
  return rel.startsWith('.') ? rel : './' + rel;
}

/** src/shared.ts as the table says: the rows of values, read by number. */
export function sharedSource(r: Residency): string {
  const rows = sharedRows(r);
  return [
    '// Written by scripts/build/residency.ts from src/residency.json (the modules',
    "// of class 'shared'): do not edit; run `npm run residency`. The device build",
    '// makes the same text itself.',
    '//',
    '// Resident modules that cold code and the parts (src/parts.ts) use as they',
    "// are, instead of carrying a copy of their own: the build turns such a module's",
    '// import of one of these into a read from this table, which the loader (or the',
    "// part's caller) hands to it. Plain arrays read by number: a name would be a",
    '// string the engine keeps until it stops, a namespace import an object of',
    '// getters that costs heap for as long as the program runs.',
    ...rows.map((row) => `import { ${row.names.join(', ')} } from '${importPath('.', row.path)}';`),
    '',
    '/** Rows of values, read by number (`__shared[4][3]`). */',
    'export type Shared = readonly (readonly unknown[])[];',
    '',
    '/**',
    " * Made when asked for (a cold module's load, the agent part's start) and let",
    ' * go after: held for good, the table would take about 1 KB of heap.',
    ' */',
    'export function sharedTable(): Shared {',
    '  return [',
    ...rows.map((row) => `    [${row.names.join(', ')}],`),
    '  ];',
    '}',
    '',
  ].join('\n');
}

/** A cold module's entry: a module whose default export is the cold module's value. */
export function coldEntrySource(e: ColdEntry): string {
  const from = importPath('.', e.from);
  if (e.commands !== undefined) {
    return `import { ${e.commands} } from '${from}';\nimport { ${RUNNER.name} } from '${importPath('.', RUNNER.from)}';\nexport default ${RUNNER.name}(${e.commands});\n`;
  }
  return `export { ${e.export as string} as default } from '${from}';\n`;
}

/** What the bundler put where: each program's modules (path, bytes in its output; 0 when loaded but dropped). */
export interface Placement {
  resident: Record<string, number>;
  parts: Record<string, Record<string, number>>;
  cold: Record<string, Record<string, number>>;
}

/**
 * Problems of the table against what the bundler did, one line each. Always:
 * the resident program imports no cold, host or part code and nothing the
 * table leaves out; a part carries only its own and shared code; types have
 * no code. `complete` (a build of the whole program from the table): each
 * class is also where it says, and each cold module was built.
 */
export function checkResidency(r: Residency, at: Placement, complete: boolean): string[] {
  const problems: string[] = [];
  const classOf = (p: string): ModuleClass | undefined => r.modules[p.replace(/^src\//, '')];
  // Modules of src/ (a cold module's entry, made by the build, is none).
  const inSrc = (p: string): boolean => p.startsWith('src/') && p.endsWith('.ts');
  const resident = Object.keys(at.resident).filter(inSrc);
  // A module the table leaves out, with the class where the bundler put it suggests.
  const none = new Map<string, string>();
  for (const p of resident) if (classOf(p) === undefined) none.set(p, 'resident');
  for (const [name, mods] of Object.entries(at.parts)) for (const p of Object.keys(mods).filter(inSrc)) if (classOf(p) === undefined && !none.has(p)) none.set(p, `part:${name}`);
  for (const mods of Object.values(at.cold)) for (const p of Object.keys(mods).filter(inSrc)) if (classOf(p) === undefined && !none.has(p)) none.set(p, 'cold');
  if (none.size) problems.push(`${[...none.keys()].join(', ')}: not in ${RESIDENCY_FILE}; add each with its class (where the bundler put it: ${[...none].map(([p, c]) => `${p.slice(4)} ${c}`).join(', ')})`);
  const leaked = resident.filter((p) => classOf(p) === 'cold' || classOf(p) === 'host');
  if (leaked.length) problems.push(`cold code imported by the resident program: ${leaked.join(', ')}; reach it through the cold loader (src/cold.ts) instead`);
  for (const [name, mods] of Object.entries(at.parts)) {
    const paths = Object.keys(mods).filter(inSrc);
    const twice = paths.filter((p) => classOf(p) !== 'shared' && p in at.resident);
    if (twice.length) problems.push(`part '${name}' and the rest of the resident program both carry ${twice.join(', ')}: class it shared in ${RESIDENCY_FILE}, or import it from one side only`);
    const foreign = paths.filter((p) => classOf(p) !== undefined && classOf(p) !== 'shared' && classOf(p) !== `part:${name}` && !(p in at.resident) && (mods[p] as number) > 0);
    if (foreign.length) problems.push(`part '${name}' carries ${foreign.map((p) => `${p} (${classOf(p) as string})`).join(', ')}: ${RESIDENCY_FILE} must class it part:${name}`);
  }
  for (const [name, mods] of Object.entries(at.cold)) {
    const paths = Object.keys(mods).filter(inSrc);
    const bad = paths.filter((p) => classOf(p) === 'host');
    if (bad.length) problems.push(`cold module '${name}' carries ${bad.join(', ')}, which ${RESIDENCY_FILE} does not class for the device`);
  }
  const all = [at.resident, ...Object.values(at.parts), ...Object.values(at.cold)];
  const coded = Object.keys(r.modules).filter((m) => r.modules[m] === 'types' && all.some((x) => (x[`src/${m}`] ?? 0) > 0));
  if (coded.length) problems.push(`${coded.map((m) => `src/${m}`).join(', ')}: classed types, but the device carries code of it`);
  if (!complete) return problems;

  const builtCold = Object.keys(at.cold).sort();
  const listed = Object.keys(r.cold).sort();
  if (builtCold.join() !== listed.join()) problems.push(`cold modules built (${builtCold.join(', ')}) are not those of ${RESIDENCY_FILE} (${listed.join(', ')})`);
  const wrong: string[] = [];
  for (const [m, c] of Object.entries(r.modules)) {
    const p = `src/${m}`;
    const inResident = p in at.resident;
    const parts = Object.keys(at.parts).filter((n) => p in (at.parts[n] as Record<string, number>));
    const colds = Object.keys(at.cold).filter((n) => ((at.cold[n] as Record<string, number>)[p] ?? 0) > 0);
    const where = inResident ? 'the resident program imports it' : parts.length ? `part ${parts.join(', ')} imports it` : colds.length ? `only cold code carries it (${colds.join(', ')})` : 'no program of the device imports it';
    const fits =
      c === 'resident' || c === 'shared' ? inResident
      : c.startsWith('part:') ? !inResident && parts.includes(c.slice(5))
      : c === 'cold' ? !inResident && !parts.length && colds.length > 0
      : c === 'host' ? !inResident && !parts.length && !Object.values(at.cold).some((x) => p in x)
      : true;
    if (!fits) wrong.push(`src/${m} is classed ${c}, but ${where}`);
  }
  if (wrong.length) problems.push(...wrong.map((w) => `${RESIDENCY_FILE}: ${w}`));
  return problems;
}

const code = (s: string): string => '`' + s + '`';
const list = (r: Residency, c: ModuleClass): string => Object.keys(r.modules).filter((m) => r.modules[m] === c).sort().map(code).join(', ');

/** The table as the docs show it (between DOC_BEGIN and DOC_END). */
export function residencySection(r: Residency): string {
  const out: string[] = [];
  const inCode = (m: string): string => (r.messagesInCode.includes(m) ? ' (sentences in its code)' : '');
  out.push('Written from `src/residency.json` by `npm run residency`; a test fails when it is stale. Paths are under `src/`.', '');
  out.push('| class | where on the device | modules |', '|---|---|---|');
  const residentMods = Object.keys(r.modules).filter((m) => r.modules[m] === 'resident').sort();
  out.push(`| resident | parsed at boot, kept until the board stops | ${residentMods.map((m) => code(m) + inCode(m)).join(', ')} |`);
  const shared = Object.keys(r.modules).filter((m) => r.modules[m] === 'shared').sort();
  out.push(`| shared | resident, and handed to cold code and the parts through \`sharedTable()\` (table below) | ${shared.map((m) => code(m) + inCode(m)).join(', ')} |`);
  for (const [name, entry] of Object.entries(r.parts)) {
    const mods = Object.keys(r.modules).filter((m) => r.modules[m] === `part:${name}`).sort();
    out.push(`| part:${name} | inside the resident program as one function (entry ${code(entry)}): parsed at boot, let go on a boot that does not run it | ${mods.map((m) => code(m) + inCode(m)).join(', ')} |`);
  }
  out.push(`| cold | on flash only, outside the parsed program: code of the cold modules (table below), each read, run and let go | ${list(r, 'cold')} |`);
  out.push(`| types | no code on the device (types and declarations) | ${list(r, 'types')} |`);
  out.push(`| host | never on the device (the tests' own) | ${list(r, 'host')} |`);
  out.push('', 'The cold modules (the build makes each one\'s entry from its line):', '');
  out.push('| cold module | its value | what it is | held |', '|---|---|---|---|');
  for (const name of Object.keys(r.cold).sort()) {
    const e = r.cold[name] as ColdEntry;
    const value = e.commands !== undefined ? `${code(`run(${e.commands})`)} of ${code(e.from)}` : `${code(e.export as string)} of ${code(e.from)}`;
    out.push(`| ${name} | ${value} | ${e.about} | ${e.kept ? 'kept while it serves; its strings stay in its code' : 'per use, let go after'} |`);
  }
  out.push('', 'The shared table (`src/shared.ts`, written from the same file), read by number: `__shared[row][column]`:', '');
  out.push('| row | module | its values, by column |', '|---|---|---|');
  sharedRows(r).forEach((row, i) => out.push(`| ${i} | ${code(row.path)} | ${row.names.map(code).join(', ')} |`));
  return out.join('\n') + '\n';
}

/** `doc` with the section between its markers replaced, or undefined when it has no markers. */
export function withSection(doc: string, section: string): string | undefined {
  const a = doc.indexOf(DOC_BEGIN);
  const b = doc.indexOf(DOC_END);
  if (a < 0 || b < a) return undefined;
  return doc.slice(0, a + DOC_BEGIN.length) + '\n' + section + doc.slice(b);
}

/** The files the table writes and what they should hold, with what they hold now. */
export function generated(r: Residency): { file: string; want: string; have: string }[] {
  const doc = existsSync(DOC_FILE) ? readFileSync(DOC_FILE, 'utf8') : '';
  const want = withSection(doc, residencySection(r));
  return [
    { file: SHARED_FILE, want: sharedSource(r), have: existsSync(SHARED_FILE) ? readFileSync(SHARED_FILE, 'utf8') : '' },
    ...(want === undefined ? [] : [{ file: DOC_FILE, want, have: doc }]),
  ];
}

function main(): void {
  const check = process.argv.includes('--check');
  const r = loadResidency();
  const none = unclassified(r, srcFiles());
  if (none.length) {
    console.error(`${RESIDENCY_FILE}: ${none.map((f) => `src/${f}`).join(', ')} in no class; add each to "modules"`);
    process.exitCode = 1;
  }
  for (const g of generated(r)) {
    if (g.want === g.have) continue;
    if (check) {
      console.error(`${g.file}: not what ${RESIDENCY_FILE} says; run npm run residency`);
      process.exitCode = 1;
    } else {
      writeFileSync(g.file, g.want);
      console.log(`${g.file}: written from ${RESIDENCY_FILE}`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
