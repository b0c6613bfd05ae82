// The resident program's messages, kept on flash. On the device's engine
// every string literal a parsed program names stays on the heap until the
// engine stops (literal storage), and the resident program is parsed at
// every boot: its log and error sentences took about 6 KB of heap for good.
// So the build takes each of them out of the resident code (an esbuild
// plugin, module by module) and writes them to the cold section; the code
// reads one back when it is used: `__m(7)` (src/cold.ts, message()).
//
// Only prose is taken: a string of MIN_LENGTH characters or more holding a
// space, used inside a function (module-level code may run before the reader
// is installed) and only as a value (concatenated, passed, returned, thrown):
// never a property key or name (o['a b']), text of the wire or of a payload
// (see DATA), a directive, an operand of a comparison, or the
// argument of a search (indexOf, includes, ...), where the text itself
// decides what the program does. Modules that speak when the messages
// cannot be read (no program on flash, another build there: the entry, the
// cold loader and the config store) keep theirs, and so do the modules that
// write the wire and the payloads, whose text is data, not a message (an
// HTTP head, an XML reading), used on every request: both are listed in
// src/residency.json, "messagesInCode". So do the boot's
// own sentences of guidance (KEEP_TEXT): a board whose messages cannot be
// read still says what it is, why it runs the console only and what to
// type; the runtime's other lines (a restart's reason, the supervisor's
// and the boot state's reports) are read from flash like every other.
import { transform, type Plugin } from 'esbuild';
import { parse } from 'acorn';
import { fullAncestor } from 'acorn-walk';
import type { Node } from 'acorn';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';

/** The global a taken message is read through. */
export const READER = '__m';
export const MIN_LENGTH = 12;
/**
 * Sentences that stay in the code wherever they are: what the boot says of
 * the board and of its mode, legible when the messages cannot be read.
 * Measured on the device's engine, taking the runtime's and the boot
 * state's other sentences lowered a running agent's floor by 1.1 KB.
 */
export const KEEP_TEXT: ReadonlySet<string> = new Set([
  'pico-data-agent ',
  'agent: console only: ',
  'console only: ',
  'not configured: set ',
  'maintenance boot: agent and watchdog off until the next reboot; flash or copy files now',
  'checking the saved configuration; the agent starts after a restart',
  'saved configuration invalid (see the errors above); fix with set() and save()',
  'type resume() to start the agent, or fix the config first (config(), set(), save())',
  "type help() for the commands, e.g. set('wifi.ssid', 'my-net')",
  'config: the saved configuration is invalid (',
  ' errors above); starting with the console only',
]);
/** Characters of protocol and markup: a string holding one is data wherever it is (belt and braces with the modules that keep theirs). */
const DATA = /[\r\n<>"=]/;
/** Methods whose string argument decides what the program does, not what it says. */
const SEARCHES = new Set(['indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith', 'split', 'replace', 'replaceAll', 'match', 'matchAll', 'search', 'test', 'exec']);
const COMPARISONS = new Set(['==', '===', '!=', '!==', '<', '>', '<=', '>=', 'in', 'instanceof']);

/**
 * Entry width in the index that starts the messages' section: 5 hex digits
 * of offset (from the section's start) and 3 of length.
 */
export const ENTRY = 8;

type AnyNode = Node & Record<string, unknown>;

/**
 * What a settled table gives a message the survey's code did not read (the
 * bundler dropped the code that says it): never a message's number, and
 * found in the code if it was kept after all (the build checks: readerIds).
 */
export const UNREAD = 999999;

/**
 * Messages of one build. A table numbers each new text as it is asked for
 * it (id), until it is settled: then it knows every message and refuses a
 * new one. The bundler loads modules in parallel, in an order that changes
 * from run to run, so a build must not keep the numbers they get as they
 * come: it first surveys each module's messages (messagesPlugin on an
 * unsettled table records them, numbered as they come), then settles the
 * table, numbering them module by module in the order of their paths and,
 * within a module, in the order the module names them. The same sources
 * give the same numbers. A message whose code the bundler dropped (a
 * function nothing calls) is left out of the table.
 */
export class MessageTable {
  readonly list: string[] = [];
  private index = new Map<string, number>();
  /** Each surveyed module's messages, by its path under src/. */
  private surveyed = new Map<string, string[]>();
  /** Once settled: the surveyed messages that no code reads. */
  private unread = new Set<string>();
  private done = false;
  id(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      if (this.unread.has(s)) return UNREAD;
      if (this.done) throw new Error(`messages: ${JSON.stringify(s)} was not in the survey of the first pass; the passes loaded other code`);
      i = this.list.length;
      this.list.push(s);
      this.index.set(s, i);
    }
    return i;
  }
  get settled(): boolean {
    return this.done;
  }
  /** Records the messages of one module (its path under src/), in the order it names them. */
  survey(path: string, messages: string[]): void {
    if (this.done) throw new Error(`messages: ${path} surveyed after the table was settled`);
    this.surveyed.set(path, messages);
  }
  /**
   * Numbers the surveyed messages by module path, then order within the
   * module, and takes no new message after. `read`: the numbers the survey's
   * code still reads (readerIds); the other messages are left out. Without
   * it, every surveyed message is kept.
   */
  settle(read?: Set<number>): void {
    const kept = read ? new Set([...read].map((i) => this.list[i])) : undefined;
    this.list.length = 0;
    this.index.clear();
    const paths = [...this.surveyed.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const p of paths) {
      for (const s of this.surveyed.get(p) as string[]) {
        if (!kept || kept.has(s)) this.id(s);
        else this.unread.add(s);
      }
    }
    this.done = true;
  }
  /**
   * The section: the index (ENTRY chars a message), then each message as a
   * JSON string, printable ASCII, with no '*' followed by '/' (it sits in
   * the block comment of the cold section).
   */
  text(): string {
    const bodies = this.list.map((s) =>
      JSON.stringify(s)
        .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
        .replace(/\//g, '\\/'),
    );
    let at = this.list.length * ENTRY;
    let index = '';
    for (const b of bodies) {
      if (b.length > 0xfff || at > 0xfffff) throw new Error(`messages: the section outgrew its index (${at} B, a message of ${b.length} B)`);
      index += at.toString(16).padStart(5, '0') + b.length.toString(16).padStart(3, '0');
      at += b.length;
    }
    return index + bodies.join('');
  }
}

/** True when the literal is prose used as a value, which the reader may stand in for. */
function isMessage(node: AnyNode, ancestors: AnyNode[]): boolean {
  const v = node['value'];
  if (typeof v !== 'string' || v.length < MIN_LENGTH || !v.includes(' ') || DATA.test(v) || KEEP_TEXT.has(v)) return false;
  const parent = ancestors[ancestors.length - 2];
  if (!parent) return false;
  if ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && parent['key'] === node) return false;
  if (parent.type === 'ExpressionStatement' && parent['directive'] !== undefined) return false;
  if (parent.type === 'BinaryExpression' && COMPARISONS.has(parent['operator'] as string)) return false;
  if (parent.type === 'SwitchCase' || parent.type === 'ImportDeclaration' || parent.type === 'ExportNamedDeclaration' || parent.type === 'ExportAllDeclaration') return false;
  if (parent.type === 'MemberExpression') return false;
  if (parent.type === 'CallExpression' || parent.type === 'NewExpression') {
    const callee = parent['callee'] as AnyNode;
    if (callee.type === 'MemberExpression' && !callee['computed'] && SEARCHES.has((callee['property'] as AnyNode)['name'] as string)) return false;
    if (callee.type === 'Identifier' && callee['name'] === 'RegExp') return false;
  }
  // Inside a function: module-level code runs as the program starts.
  return ancestors.some((a) => a !== node && (a.type === 'FunctionDeclaration' || a.type === 'FunctionExpression' || a.type === 'ArrowFunctionExpression'));
}

/** `code` (one module, as JavaScript) with its messages read through READER. */
export function takeMessages(code: string, table: MessageTable): string {
  const ast = parse(code, { ecmaVersion: 2022, sourceType: 'module' });
  const edits: { start: number; end: number; text: string }[] = [];
  fullAncestor(ast, (n, _s, ancestors) => {
    const node = n as AnyNode;
    if (node.type === 'Literal' && isMessage(node, ancestors as AnyNode[])) {
      edits.push({ start: node.start, end: node.end, text: `${READER}(${table.id(node['value'] as string)})` });
    }
  });
  edits.sort((a, b) => b.start - a.start);
  let out = code;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/**
 * The esbuild plugin: every src/ module outside `keep` (paths under src/
 * whose strings all stay in their code), its messages taken into
 * `table`. While the table is not settled it surveys them (MessageTable):
 * that pass's numbers change from run to run, and its code is good for
 * nothing but what does not depend on them.
 */
export function messagesPlugin(table: MessageTable, keep: readonly string[]): Plugin {
  return {
    name: 'messages',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
        const rel = relative(`${process.cwd()}${sep}src`, args.path).split(sep).join('/');
        if (keep.includes(rel) || rel.startsWith('..')) return undefined;
        const js = await transform(readFileSync(args.path, 'utf8'), { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: args.path });
        if (!table.settled) {
          const own = new MessageTable();
          takeMessages(js.code, own);
          table.survey(rel, own.list);
        }
        return { contents: takeMessages(js.code, table), loader: 'js', resolveDir: args.path.slice(0, args.path.lastIndexOf(sep)) };
      });
    },
  };
}

/**
 * The numbers a program reads messages by: every number in the arguments of
 * a call of READER (the minifier may merge two calls into one, as in
 * `__m(a?3:4)`). A number there that is not a message's (`__m(a>9?3:4)`)
 * only keeps one more message.
 */
export function readerIds(code: string): Set<number> {
  const out = new Set<number>();
  fullAncestor(parse(code, { ecmaVersion: 2019, sourceType: 'script' }), (n, _s, ancestors) => {
    const node = n as AnyNode;
    if (node.type !== 'Literal' || typeof node['value'] !== 'number') return;
    const inCall = (ancestors as AnyNode[]).some((a, i) => {
      if (a.type !== 'CallExpression') return false;
      const callee = a['callee'] as AnyNode;
      const inside = ancestors[i + 1];
      return callee.type === 'Identifier' && callee['name'] === READER && inside !== undefined && inside !== callee;
    });
    if (inCall) out.add(node['value']);
  });
  return out;
}

/** The global reader, in front of the resident program: "#<id>" until the program installs the real one. */
export const READER_STUB = `function ${READER}(i){return ${READER}.r?${READER}.r(i):"#"+i}`;
