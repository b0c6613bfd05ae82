// Builds the device bundle: one ASCII IIFE for Kaluma 1.2.1 (es2019, the
// highest target whose output the engine parses), Kaluma's built-in modules
// left to the runtime's require. Prints the size and the board's budget.
import { build, type Plugin } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';

export const KALUMA_MODULES = [
  'events', 'gpio', 'led', 'button', 'pwm', 'adc', 'i2c', 'spi', 'uart', 'graphics', 'at',
  'storage', 'wifi', 'stream', 'net', 'http', 'url', 'rp2', 'rtc', 'path', 'flash', 'fs',
  'vfs_lfs', 'vfs_fat', 'sdcard', 'wdt', 'pico_cyw43',
];

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
        contents: 'export const BOARDS = [' + readFileSync(`boards/${args.path}.json`, 'utf8') + '];',
        loader: 'js',
      }));
    },
  };
}

export interface BuildResult {
  outfile: string;
  bytes: number;
  budgetBytes: number | undefined;
  inputs: { path: string; bytes: number }[];
}

export async function buildBundle(o: { board?: string; outfile?: string; entry?: string } = {}): Promise<BuildResult> {
  const board = o.board ?? 'pico-w';
  const outfile = o.outfile ?? 'dist/agent.js';
  mkdirSync(dirname(outfile), { recursive: true });
  const r = await build({
    entryPoints: [o.entry ?? 'src/main.ts'],
    bundle: true,
    format: 'iife',
    platform: 'neutral',
    target: 'es2019',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    external: KALUMA_MODULES,
    plugins: [onlyBoard(board)],
    outfile,
    metafile: true,
    logLevel: 'warning',
  });
  const meta = r.metafile;
  writeFileSync(outfile.replace(/\.js$/, '.meta.json'), JSON.stringify(meta));
  const out = Object.values(meta.outputs)[0];
  const inputs = out
    ? Object.entries(out.inputs).map(([path, v]) => ({ path, bytes: v.bytesInOutput })).sort((a, b) => b.bytes - a.bytes)
    : [];
  let budgetBytes: number | undefined;
  try {
    const b = JSON.parse(readFileSync(`boards/${board}.json`, 'utf8')) as { bundleBudgetBytes?: number };
    budgetBytes = b.bundleBudgetBytes;
  } catch {
    budgetBytes = undefined;
  }
  return { outfile, bytes: readFileSync(outfile).length, budgetBytes, inputs };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const boardAt = args.indexOf('--board');
  const board = boardAt >= 0 ? args[boardAt + 1] : undefined;
  const r = await buildBundle({ board });
  const budget = r.budgetBytes === undefined ? 'no budget known' : `budget ${r.budgetBytes} bytes for ${board ?? 'pico-w'}`;
  console.log(`${r.outfile}: ${r.bytes} bytes (${budget})`);
  if (r.budgetBytes !== undefined && r.bytes > r.budgetBytes) {
    console.error(`bundle is ${r.bytes} bytes, over the budget of ${r.budgetBytes}: cut code before flashing`);
    process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main();
