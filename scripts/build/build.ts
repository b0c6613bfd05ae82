// Builds the device bundle: one ASCII IIFE for Kaluma 1.2.1 (es2019, the
// highest target whose output the engine parses), Kaluma's built-in modules
// left to the runtime's require. Prints the size and the board's budget.
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { COLD_HEAD_MAX, COLD_MARK, MESSAGES } from '../../src/cold';
import { crc32 as crc32Range } from '../../src/queue/crc32';
import { externalizeStrings, namesIn, STRINGS_PARAM, tableText } from './cold-strings';
import { dropUnusedShared } from './shared-imports';
import { checkBundle } from './compat';
import { mangling } from './mangle';
import { MessageTable, messagesPlugin, READER, READER_STUB, readerIds, UNREAD } from './messages';
import { checkResidency, type ColdEntry, coldEntrySource, loadResidency, type Placement, type Residency, sharedRows, sharedSource, valueExports } from './residency';
import { basename, dirname, join, posix, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export const KALUMA_MODULES = [
  'events', 'gpio', 'led', 'button', 'pwm', 'adc', 'i2c', 'spi', 'uart', 'graphics', 'at',
  'storage', 'wifi', 'stream', 'net', 'http', 'url', 'rp2', 'rtc', 'path', 'flash', 'fs',
  'vfs_lfs', 'vfs_fat', 'sdcard', 'wdt', 'pico_cyw43',
];

/**
 * Fields of a board that only the build, the benchmarks and the docs read:
 * the device bundle's copy leaves them out (each a name and a value on the
 * heap for good). Top level, and under `flash`.
 */
export const BOARD_BUILD_ONLY = ['mcu', 'heapBytes', 'bundleBudgetBytes', 'residentBudgetBytes', 'totalBytes', 'firmwareBytes', 'kvSlots'];

/**
 * Fields of a board that only cold code reads, through a table of its own
 * (src/config/board-i2c.ts): the resident copy leaves them out, so they are
 * not on the heap while the agent runs.
 */
export const BOARD_COLD_ONLY = ['i2cSda'];

/** A board as the device bundle's resident program holds it: without BOARD_BUILD_ONLY and BOARD_COLD_ONLY. */
export function deviceBoard(b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) {
    if (BOARD_BUILD_ONLY.includes(k) || BOARD_COLD_ONLY.includes(k)) continue;
    out[k] = k === 'flash' ? deviceBoard(v as Record<string, unknown>) : v;
  }
  return out;
}

/**
 * src/boards.ts lists every board; a device bundle gets a stand-in that
 * holds only the one it is built for (the other's data would cost heap).
 */
function onlyBoard(board: string): Plugin {
  return {
    name: 'only-board',
    setup(b) {
      b.onResolve({ filter: /^\.\/boards$/ }, (args) => (/[\\/]src[\\/]board\.ts$/.test(args.importer) ? { path: board, namespace: 'only-board' } : undefined));
      b.onLoad({ filter: /.*/, namespace: 'only-board' }, (args) => ({
        contents: 'export const BOARDS = [' + JSON.stringify(deviceBoard(JSON.parse(readFileSync(`boards/${args.path}.json`, 'utf8')) as Record<string, unknown>)) + '];',
        loader: 'js',
      }));
    },
  };
}

export interface ColdModule {
  name: string;
  /** Byte offset of its source in the artifact. */
  offset: number;
  /** Code and string table together; the code alone. */
  bytes: number;
  codeBytes: number;
  crc: number;
  inputs: { path: string; bytes: number }[];
}

export interface BuildResult {
  outfile: string;
  /** The whole artifact: cold section plus resident program. */
  bytes: number;
  /** What the engine parses at boot (everything after the cold section). */
  residentBytes: number;
  /** The leading comment holding the cold modules (never parsed). */
  coldBytes: number;
  build: string;
  /** The config checker's id: the CRC of the cold module 'check'. */
  checker: string;
  cold: ColdModule[];
  /** The whole artifact's budget, and the resident program's (boards/*.json). */
  budgetBytes: number | undefined;
  residentBudgetBytes: number | undefined;
  /** The resident program's inputs (a part counts as its table module, src/parts/table.ts). */
  inputs: { path: string; bytes: number }[];
  /** The resident program's parts (src/parts.ts): their code's length and their own inputs. */
  parts: { name: string; bytes: number; inputs: { path: string; bytes: number }[] }[];
  /** Every module each program loaded, with its bytes there (what checkResidency reads). */
  placement: Placement;
}

/**
 * What the build id reads as while the id is being made: the build hashes
 * the artifact with this in its place (buildBundle). Same length as an id.
 */
export const STAND_IN = '00000000';

function common(board: string): BuildOptions {
  return {
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    target: 'es2019',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    external: KALUMA_MODULES,
    // Properties named `name_` get short names, the same in every program (scripts/build/mangle.ts).
    plugins: [onlyBoard(board), mangling()],
    metafile: true,
    write: false,
    logLevel: 'warning',
  };
}

function inputsOf(meta: Metafile): { path: string; bytes: number }[] {
  const out = Object.values(meta.outputs)[0];
  // Largest first; equal sizes by path, so that every build lists them alike.
  return out ? Object.entries(out.inputs).map(([path, v]) => ({ path, bytes: v.bytesInOutput })).sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : [];
}

/** What the bundler loaded for one program: each module's path and its bytes in the output (0: loaded, nothing kept). */
function placed(meta: Metafile): Record<string, number> {
  const out = Object.values(meta.outputs)[0];
  const at: Record<string, number> = {};
  // The board's data stands in for src/boards.ts (onlyBoard).
  for (const path of Object.keys(meta.inputs).sort()) at[path.startsWith('only-board:') ? 'src/boards.ts' : path] = out?.inputs[path]?.bytesInOutput ?? 0;
  return at;
}

/** The device's src/shared.ts: the table as src/residency.json says, whatever the file holds. */
function sharedPlugin(r: Residency): Plugin {
  return {
    name: 'shared',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]shared\.ts$/ }, (args) => ({ contents: sharedSource(r), loader: 'ts', resolveDir: dirname(args.path) }));
    },
  };
}

/** The name a cold module's code reads the resident program's shared modules under (src/shared.ts). */
const SHARED_PARAM = '__shared';

export { valueExports };

/**
 * In a cold module, an import of a module the resident program shares
 * (src/shared.ts) reads the resident's copy instead of bundling another.
 */
function fromResident(rows: { path: string; names: string[] }[]): Plugin {
  return {
    name: 'from-resident',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const key = relative(join(process.cwd(), 'src'), args.path).split(sep).join('/');
        const at = rows.findIndex((row) => row.path === key);
        if (at < 0) return undefined;
        // The table is read by number: its row, and the export's column.
        const names = (rows[at] as { names: string[] }).names;
        return {
          contents: `const m = ${SHARED_PARAM}[${at}];\n` + valueExports(args.path).map((n) => `export const ${n} = m[${names.indexOf(n)}];`).join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * One cold module: the source of a function expression returning the
 * module's value. Its entry is made from its line of src/residency.json;
 * a kept module (loaded once and kept while it serves) keeps its strings in
 * its code. The engine keeps a parsed literal until it stops, which costs
 * such a module nothing it would not hold anyway, while a table read
 * (`__s[i]`, and `o[__s[i]]` for a property) is more bytecode at every use.
 */
async function buildColdModule(board: string, cold: { name: string; entry: ColdEntry }, keep: Set<string>, rows: { path: string; names: string[] }[]): Promise<{ text: string; codeBytes: number; inputs: { path: string; bytes: number }[]; placed: Record<string, number> }> {
  // ESM output, wrapped by hand: a function whose body is the module and
  // whose result is its default export (the bundler's own IIFE form would
  // add an exports object and its helpers).
  const options = common(board);
  const kept = cold.entry.kept === true;
  const file = `cold module '${cold.name}', ${posix.join('src', cold.entry.from)}`;
  const stdin = { contents: coldEntrySource(cold.entry), resolveDir: join(process.cwd(), 'src'), sourcefile: `cold:${cold.name}`, loader: 'ts' as const };
  const r = await build({ ...options, format: 'esm', stdin, outfile: 'cold.js', plugins: [fromResident(rows), ...(options.plugins ?? [])] });
  const raw = r.outputFiles?.[0]?.text ?? '';
  const m = /^([\s\S]*)export\{([\w$]+) as default\};\n$/.exec(raw);
  if (!m?.[1] || !m[2] || /^import\b|[;}]import\b/.test(m[1])) throw new Error(`${file}: a cold module must have one default export and import no runtime module`);
  // A kept module has no table: no parameter for it either (a binding in its scope).
  const plain = dropUnusedShared(`(function(${SHARED_PARAM}${kept ? '' : ',' + STRINGS_PARAM}){${m[1]}return ${m[2]}})`, SHARED_PARAM).code;
  // The engine check runs here, on the names as written: once they come
  // from the string table (Object[__s[3]]) no check could see them.
  const lacking = checkBundle(plain);
  if (lacking.length) throw new Error(`${file}: ${lacking.join('; ')}`);
  const ex = kept ? { code: plain, table: [] } : externalizeStrings(plain, keep);
  const code = ex.code;
  const table = tableText(ex.table);
  // The section is one block comment: a '*/' inside would end it early.
  if (code.includes('*/')) throw new Error(`${file}: its code contains '*/', which would end the cold section early; reword it`);
  if (/[^\x20-\x7e\n\t]/.test(code + table)) throw new Error(`${file}: cold code must be printable ASCII`);
  // The code, then its strings on one line (see scripts/build/cold-strings.ts).
  return { text: code + '\n' + table, codeBytes: code.length, inputs: inputsOf(r.metafile as Metafile), placed: placed(r.metafile as Metafile) };
}

/**
 * One part of the resident program (src/parts.ts; its entry in
 * src/residency.json), bundled on its own and put into the program as a
 * function expression, so that a boot which does not need it can let its
 * code go: a function taking the shared table and returning the part's
 * default export.
 */
async function buildPart(board: string, file: string, messages: MessageTable, r0: Residency, rows: { path: string; names: string[] }[]): Promise<{ text: string; inputs: { path: string; bytes: number }[]; placed: Record<string, number> }> {
  const options = common(board);
  const r = await build({ ...options, format: 'esm', entryPoints: [file], outfile: 'part.js', plugins: [fromResident(rows), messagesPlugin(messages, r0.messagesInCode), ...(options.plugins ?? [])] });
  const raw = r.outputFiles?.[0]?.text ?? '';
  const m = /^([\s\S]*)export\{([\w$]+) as default\};\n$/.exec(raw);
  if (!m?.[1] || !m[2] || /^import\b|[;}]import\b/.test(m[1])) throw new Error(`${file}: a part must have one default export and import no runtime module`);
  // The part's scope lives as long as the agent runs: no binding nothing reads.
  return { text: dropUnusedShared(`(function(${SHARED_PARAM}){${m[1]}return ${m[2]}})`, SHARED_PARAM).code, inputs: inputsOf(r.metafile as Metafile), placed: placed(r.metafile as Metafile) };
}

/** In the device bundle, src/parts/table.ts becomes the parts' own code (see src/parts.ts). */
function partsPlugin(parts: Record<string, string>): Plugin {
  return {
    name: 'parts',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]parts[\\/]table\.ts$/ }, () => ({
        contents: 'export const TABLE = {' + Object.entries(parts).map(([k, v]) => `${k}: ${v}`).join(',') + '};\nexport const FREES = true;\n',
        loader: 'js',
      }));
    },
  };
}

/**
 * `residency`: another table than src/residency.json (a test's); `entry`:
 * another resident program than src/main.ts (a measuring tool's). Either
 * builds something other than the device's program, so only what holds for
 * any program is checked against the table (checkResidency).
 */
export async function buildBundle(o: { board?: string; outfile?: string; entry?: string; residency?: Residency } = {}): Promise<BuildResult> {
  const board = o.board ?? 'pico-w';
  const outfile = o.outfile ?? 'dist/agent.js';
  // Its metafile and manifest are named after it (agent.js: agent.meta.json, agent.cold.json).
  if (!/[^/\\]\.js$/.test(outfile)) throw new Error(`outfile: must be a file name ending in .js (got ${JSON.stringify(outfile)})`);
  mkdirSync(dirname(outfile), { recursive: true });

  const entry = o.entry ?? 'src/main.ts';
  // Where each module lives: the one table everything below reads.
  const table = o.residency ?? loadResidency();
  const rows = sharedRows(table);
  // The resident program's messages go to the cold section (scripts/build/messages.ts),
  // and so do its parts' (src/parts.ts): one table for all of them.
  const messages = new MessageTable();
  const partNames = Object.keys(table.parts).sort();
  const buildParts = (): Promise<{ text: string; inputs: { path: string; bytes: number }[]; placed: Record<string, number> }[]> =>
    Promise.all(partNames.map((n) => buildPart(board, `src/${table.parts[n] as string}`, messages, table, rows)));
  const resident = (define: Record<string, string>, parts: { text: string }[]): ReturnType<typeof build> => {
    const c = common(board);
    const partText = Object.fromEntries(partNames.map((n, i) => [n, (parts[i] as { text: string }).text]));
    return build({ ...c, entryPoints: [entry], define, outfile, banner: { js: READER_STUB }, plugins: [sharedPlugin(table), partsPlugin(partText), messagesPlugin(messages, table.messagesInCode), ...(c.plugins ?? [])] });
  };
  const define = (id: string, checker: string): Record<string, string> => ({ __BUILD__: JSON.stringify(id), __CHECKER__: JSON.stringify(checker) });

  // First a survey: the parts and the resident program built once with the
  // messages recorded, for the bundler loads modules in an order of its own
  // that changes from run to run; then the table numbers them in an order of
  // the sources, leaving out those of code the bundler dropped
  // (MessageTable.settle). The survey's
  // resident program gives the names it holds: they are in the engine's
  // literal storage for good anyway, so cold code may name them freely;
  // only its other strings go to its table (scripts/build/cold-strings.ts).
  const draft = await resident(define(STAND_IN, STAND_IN), await buildParts());
  messages.settle(readerIds(draft.outputFiles?.[0]?.text ?? ''));
  const messageText = messages.text();
  const parts = await buildParts();
  const keep = namesIn(draft.outputFiles?.[0]?.text ?? '');
  const names = Object.keys(table.cold).sort();
  if (names.includes(MESSAGES)) throw new Error(`cold.${MESSAGES}: that name is the resident program's messages; rename the module`);
  const built = await Promise.all(names.map((n) => buildColdModule(board, { name: n, entry: table.cold[n] as ColdEntry }, keep, rows)));
  const check = built[names.indexOf('check')];
  const checker = check ? crc32(Buffer.from(check.text)).toString(16) : 'none';
  // Offsets count from the artifact's first byte, so they depend on the
  // header's own length: settle it by trying until it stays the same (the
  // id is always 8 characters: the layout does not depend on its value).
  let head = '';
  let cold: ColdModule[] = [];
  const headOf = (id: string): string => COLD_MARK + id + cold.map((c) => ` ${c.name}:${c.offset}:${c.bytes}:${c.crc.toString(16)}:${c.codeBytes}`).join('') + '\n';
  for (let len = 0; head.length !== len || !cold.length; ) {
    len = head.length;
    let at = len;
    cold = [...built, { text: messageText, codeBytes: messages.list.length, inputs: [] }].map((b, i) => {
      const bytes = Buffer.from(b.text);
      const mod = { name: names[i] ?? MESSAGES, offset: at, bytes: bytes.length, codeBytes: b.codeBytes, crc: crc32(bytes), inputs: b.inputs };
      at += bytes.length + 1;
      return mod;
    });
    head = headOf(STAND_IN);
  }
  if (head.length > COLD_HEAD_MAX) throw new Error(`cold section header is ${head.length} bytes, over the loader's ${COLD_HEAD_MAX}: fewer modules`);
  const body = built.map((b) => b.text + '\n').join('') + messageText + '\n*/\n';
  // The id covers both halves: a change to either makes the other refuse it.
  // It is the artifact's own hash, taken with STAND_IN in place of the id
  // (in the header and in the resident program): the same sources give the
  // same bytes and so the same id, whenever and wherever they are built.
  const stand = await resident(define(STAND_IN, checker), parts);
  const buildId = createHash('sha256')
    .update(head + body + (stand.outputFiles?.[0]?.text ?? ''))
    .digest('hex')
    .slice(0, 8);
  const section = headOf(buildId) + body;

  const r = await resident(define(buildId, checker), parts);
  const residentText = r.outputFiles?.[0]?.text ?? '';
  if (messages.text() !== messageText) throw new Error('messages: the later passes took other messages than the survey');
  if (readerIds(residentText).has(UNREAD)) throw new Error('messages: the program reads a message the survey found unread; the passes kept other code');
  // The reader is a global: the program must not have a name of its own that shadows it.
  const draftText = (draft.outputFiles?.[0]?.text ?? '').slice(READER_STUB.length).split(`${READER}(`).join('');
  if (new RegExp(`(^|[^\\w$.])${READER}\\b`).test(draftText)) throw new Error(`the resident program names ${READER} itself, the messages' reader: rename it`);
  const inputs = inputsOf(r.metafile as Metafile);
  // The table against what the bundler put where: no cold code in the
  // resident program, no module in both a part and the rest of the program
  // (it would run twice, with two states), each class where it says.
  const placement: Placement = {
    resident: placed(r.metafile as Metafile),
    parts: Object.fromEntries(partNames.map((n, i) => [n, (parts[i] as { placed: Record<string, number> }).placed])),
    cold: Object.fromEntries(names.map((n, i) => [n, (built[i] as { placed: Record<string, number> }).placed])),
  };
  const problems = checkResidency(table, placement, !o.entry && !o.residency);
  if (problems.length) throw new Error(problems.join('\n'));
  const shared = new Set(rows.map((row) => `src/${row.path}`));
  const partInfo = parts.map((part, i) => ({ name: partNames[i] as string, bytes: part.text.length, inputs: part.inputs.filter((x) => x.bytes > 0 && !shared.has(x.path)) }));
  writeFileSync(outfile, section + residentText);
  // The metafile names the output by the path the build was given: it sits
  // next to it, so by its file name alone (the same wherever it is built).
  const meta = r.metafile as Metafile;
  const outputs = Object.fromEntries(Object.values(meta.outputs).map((v) => [basename(outfile), v]));
  writeFileSync(outfile.replace(/\.js$/, '.meta.json'), JSON.stringify({ ...meta, outputs }));
  const manifest = {
    buildId,
    residentBytes: residentText.length,
    coldBytes: section.length,
    modules: cold.map((c) => ({ name: c.name, bytes: c.bytes })),
    messages: messages.list.length,
  };
  writeFileSync(outfile.replace(/\.js$/, '.cold.json'), JSON.stringify(manifest, null, 2) + '\n');
  let budgetBytes: number | undefined;
  let residentBudgetBytes: number | undefined;
  try {
    const b = JSON.parse(readFileSync(`boards/${board}.json`, 'utf8')) as { bundleBudgetBytes?: number; residentBudgetBytes?: number };
    budgetBytes = b.bundleBudgetBytes;
    residentBudgetBytes = b.residentBudgetBytes;
  } catch {
    budgetBytes = undefined;
  }
  return {
    outfile, bytes: section.length + residentText.length, residentBytes: residentText.length, coldBytes: section.length,
    build: buildId, checker, cold, budgetBytes, residentBudgetBytes, inputs, parts: partInfo, placement,
  };
}

/** CRC-32 (IEEE) of all of `b`: the board's own function, so both ends agree by construction. */
const crc32 = (b: Uint8Array): number => crc32Range(b, 0, b.length);

/** The boards one can build for: boards/<name>.json. */
export function boardNames(): string[] {
  return readdirSync('boards').filter((f) => f.endsWith('.json') && f !== 'schema.json').map((f) => f.slice(0, -5)).sort();
}

/**
 * The command line: `--board <name>` (default pico-w) and `--out <file>.js`
 * (default dist/agent.js; its .meta.json and .cold.json go next to it).
 * Returns the options, or the one line that says what is wrong.
 */
export function parseArgs(args: string[]): { board?: string; outfile?: string } | string {
  const o: { board?: string; outfile?: string } = {};
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i] as string;
    const v = args[i + 1];
    if (flag !== '--board' && flag !== '--out') return `${flag}: unknown option; the options are --board <name> and --out <file>.js`;
    if (v === undefined || v.startsWith('--')) return `${flag}: needs a value`;
    if (flag === '--board') {
      if (!boardNames().includes(v)) return `--board: must be one of ${boardNames().join(', ')} (got ${JSON.stringify(v)})`;
      o.board = v;
    } else {
      if (!/[^/\\]\.js$/.test(v)) return `--out: must be a file name ending in .js (got ${JSON.stringify(v)})`;
      o.outfile = v;
    }
  }
  return o;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (typeof o === 'string') {
    console.error(o);
    process.exitCode = 2;
    return;
  }
  const board = o.board;
  const r = await buildBundle(o);
  const of = (n: number | undefined): string => (n === undefined ? 'no budget known' : `budget ${n}`);
  console.log(
    `${r.outfile}: ${r.bytes} bytes (${of(r.budgetBytes)}) for ${board ?? 'pico-w'}: resident ${r.residentBytes} (${of(r.residentBudgetBytes)}), ` +
      `cold ${r.coldBytes} (${r.cold.map((c) => `${c.name} ${c.bytes}`).join(', ')}), build ${r.build}`,
  );
  if (r.budgetBytes !== undefined && r.bytes > r.budgetBytes) {
    console.error(`the artifact is ${r.bytes} bytes, over the budget of ${r.budgetBytes}: cut code before flashing`);
    process.exitCode = 1;
  }
  if (r.residentBudgetBytes !== undefined && r.residentBytes > r.residentBudgetBytes) {
    console.error(`the resident program is ${r.residentBytes} bytes, over the budget of ${r.residentBudgetBytes}: cut code or make it cold before flashing`);
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main();
