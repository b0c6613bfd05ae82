// Cold code's strings, taken out of its code. On the device's engine every
// string literal and property name a parsed program names stays in the
// engine's literal storage until the engine stops, even after the code that
// named it is freed: a cold module would leave its strings on the heap for
// good. So the build replaces each of them with a read from a table (`__s[i]`)
// that the loader makes at run time with JSON.parse, as ordinary strings the
// collector frees with the module.
import { parse } from 'acorn';
import { fullAncestor } from 'acorn-walk';
import type { Node } from 'acorn';

/** The parameter the module's code reads its strings from. */
export const STRINGS_PARAM = '__s';

interface Edit {
  start: number;
  end: number;
  text: string;
}

type AnyNode = Node & Record<string, unknown>;

/**
 * The strings a program names: string literals and identifiers (property
 * names, globals, variables). Once it is parsed the engine keeps them all.
 */
export function namesIn(code: string): Set<string> {
  const out = new Set<string>();
  fullAncestor(parse(code, { ecmaVersion: 2019, sourceType: 'script' }), (n) => {
    const node = n as AnyNode;
    if (node.type === 'Literal' && typeof node['value'] === 'string') out.add(node['value']);
    else if (node.type === 'Identifier') out.add(node['name'] as string);
    // The walker does not visit a dotted property's name or an object key
    // (a.kind, {kind: 1}): they are names the engine keeps all the same.
    else if (node.type === 'MemberExpression' && !node['computed']) out.add((node['property'] as AnyNode)['name'] as string);
    else if ((node.type === 'Property' || node.type === 'MethodDefinition') && !node['computed']) {
      const k = node['key'] as AnyNode;
      if (k.type === 'Identifier') out.add(k['name'] as string);
      else if (k.type === 'Literal' && typeof k['value'] === 'string') out.add(k['value']);
    }
  });
  return out;
}

/**
 * `code`: a script (the module's function expression). Returns the code with
 * every string literal, dotted property name and literal object key read
 * from `__s`, and the table, in order of first use. Strings in `keep` (what
 * the resident program names already) stay as they are: they cost the
 * engine nothing more, and a direct name makes less bytecode than a read.
 */
export function externalizeStrings(code: string, keep: Set<string> = new Set()): { code: string; table: string[] } {
  const ast = parse(code, { ecmaVersion: 2019, sourceType: 'script' });
  const table: string[] = [];
  const index = new Map<string, number>();
  const edits: Edit[] = [];
  const ref = (s: string): string | undefined => {
    if (keep.has(s)) return undefined;
    let i = index.get(s);
    if (i === undefined) {
      i = table.length;
      table.push(s);
      index.set(s, i);
    }
    return `${STRINGS_PARAM}[${i}]`;
  };
  const keyName = (k: AnyNode): string | undefined =>
    k.type === 'Identifier' ? (k['name'] as string) : k.type === 'Literal' && typeof k['value'] === 'string' ? (k['value']) : undefined;

  fullAncestor(ast, (n, _state, ancestors) => {
    const node = n as AnyNode;
    const parent = ancestors[ancestors.length - 2] as AnyNode | undefined;
    if (node.type === 'Literal' && typeof node['value'] === 'string') {
      // Keys are handled with their property; directives must stay literal.
      if (parent && (parent.type === 'Property' || parent.type === 'MethodDefinition') && parent['key'] === node && !parent['computed']) return;
      if (parent && parent.type === 'ExpressionStatement' && parent['directive'] !== undefined) return;
      // After a keyword (case"a", return"b", in"c"), a name needs a space.
      const glue = /[\w$]/.test(code[node.start - 1] ?? '') ? ' ' : '';
      const r = ref(node['value']);
      if (r) edits.push({ start: node.start, end: node.end, text: glue + r });
    } else if (node.type === 'MemberExpression' && !node['computed']) {
      const p = node['property'] as AnyNode;
      if (code[p.start - 1] !== '.') throw new Error(`cold code: unexpected member expression at ${p.start}`);
      const r = ref(p['name'] as string);
      if (r) edits.push({ start: p.start - 1, end: p.end, text: `[${r}]` });
    } else if ((node.type === 'Property' || node.type === 'MethodDefinition') && !node['computed']) {
      const k = node['key'] as AnyNode;
      const name = keyName(k);
      // __proto__ as a key sets the prototype; computed, it would not.
      if (name === undefined || name === '__proto__' || (node.type === 'MethodDefinition' && name === 'constructor')) return;
      const r = ref(name);
      if (!r) return;
      if (node['shorthand']) edits.push({ start: k.start, end: k.start, text: `[${r}]:` });
      else edits.push({ start: k.start, end: k.end, text: `[${r}]` });
    }
  });

  edits.sort((a, b) => b.start - a.start);
  let out = code;
  let last = Infinity;
  for (const e of edits) {
    if (e.end > last) throw new Error(`cold code: overlapping string edits at ${e.start}`);
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    last = e.start;
  }
  try {
    parse(out, { ecmaVersion: 2019, sourceType: 'script' });
  } catch (e) {
    const at = Number(/\((\d+):(\d+)\)/.exec(String(e))?.[2] ?? 0);
    throw new Error(`cold code: the strings taken out broke it (${String(e)}): ...${out.slice(Math.max(0, at - 80), at + 40)}...`);
  }
  return { code: out, table };
}

/** The table as the loader reads it: JSON on one line, ASCII, no '*' followed by '/'. */
export function tableText(table: string[]): string {
  return JSON.stringify(table)
    .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    .replace(/\//g, '\\/');
}
