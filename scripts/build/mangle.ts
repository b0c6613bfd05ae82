// Readable property names in the source, short ones on the device: each
// property name a program names is a string the engine keeps on the heap for
// good. A property whose name ends in one '_' after a lowercase start
// (`secret_`, `bodyEnd_`) belongs to one of the program's own shapes: never
// JSON (on the wire or on flash), never a name the runtime's modules or the
// host read. The device build renames every such property to a short name.
//
// The resident program, its parts and every cold module are separate builds
// that hand each other these objects, so they all take their names from ONE
// cache. It is made in one pass over every module of src/ (sorted), before
// any of them: each name is chosen against every property name that stays as
// it is, and the same sources give the same names at every build. A build
// that meets a name the pass did not (so would choose one of its own) fails.
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The naming convention of the properties the build shortens. */
export const MANGLED = /^[a-z][A-Za-z0-9]*_$/;

/** Every module of `dir` and below, sorted: .ts files other than declarations. */
export function sourceFiles(dir = 'src'): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name).split('\\').join('/');
    if (e.isDirectory()) out.push(...sourceFiles(path));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

let made: { key: string; cache: Promise<Record<string, string>> } | undefined;

/**
 * The cache every program of a build takes its names from: original name ->
 * short name. Made again only when a module of src/ or a board changed.
 */
export function mangleCache(): Promise<Record<string, string>> {
  const files = sourceFiles();
  const hash = createHash('sha256');
  const boards = readdirSync('boards').filter((b) => b.endsWith('.json')).sort().map((b) => `boards/${b}`);
  for (const f of files.concat(boards)) {
    hash.update(f + '\0').update(readFileSync(f)).update('\0');
  }
  const key = hash.digest('hex');
  if (made?.key !== key) made = { key, cache: fillCache(files) };
  return made.cache;
}

/** The cache made afresh from `files` (the modules of src/, sorted). */
export async function fillCache(files: string[]): Promise<Record<string, string>> {
  // One program of every module: its namespace kept whole, none shaken off,
  // so every property name of src/ is seen (the boards' data too, through
  // src/boards.ts). Kaluma's modules and the like stay outside.
  const contents = files.map((f, i) => `import * as m${i} from './${f}';`).join('\n') + `\nexport { ${files.map((_, i) => `m${i}`).join(', ')} };\n`;
  const r = await build({
    stdin: { contents, resolveDir: process.cwd(), sourcefile: 'every-module.ts', loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2019',
    minify: true,
    treeShaking: false,
    write: false,
    logLevel: 'silent',
    mangleProps: MANGLED,
    mangleCache: {},
    plugins: [{ name: 'outside', setup: (b) => void b.onResolve({ filter: /^[^./]/ }, (a) => ({ path: a.path, external: true })) }],
  });
  // A string that spells a renamed property ('secret_' in o, o['secret_'])
  // is not renamed with it: on the device the two would part.
  const cache = r.mangleCache ?? {};
  const text = r.outputFiles?.[0]?.text ?? '';
  const quoted = Object.keys(cache).filter((k) => ['"', "'", '`'].some((q) => text.includes(q + k + q)));
  if (quoted.length) throw new Error(`src/ spells ${quoted.join(', ')} as a string, which the build does not rename with the property: use the property itself`);
  // Sorted by original name, so the cache reads the same whatever order the bundler kept.
  return Object.fromEntries(Object.keys(cache).sort().map((k) => [k, cache[k] as string]));
}

/**
 * The build's hook: the shared cache for this program, and a failure when the
 * program holds a property of the convention the cache lacks.
 */
export function mangling(): Plugin {
  return {
    name: 'mangle',
    async setup(b) {
      const cache = await mangleCache();
      b.initialOptions.mangleProps = MANGLED;
      b.initialOptions.mangleCache = { ...cache };
      b.onEnd((r) => {
        const added = Object.keys(r.mangleCache ?? {}).filter((k) => !(k in cache));
        if (!added.length) return undefined;
        return { errors: [{ text: `properties no module of src/ names, which this program alone would name its own way: ${added.join(', ')}` }] };
      });
    },
  };
}
