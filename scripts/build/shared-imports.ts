// A cold module or a part reads what it imports from the resident program's
// shared table (scripts/build/build.ts, fromResident): `var m = __shared[4],
// a = m[0], b = m[1], ...`, one binding per export of that module whether
// the code uses it or not; the bundler keeps them all, as a property read
// might have effects. Such code is text in the program and bytecode while
// it is parsed (the agent's part: at every boot, in the resident budget),
// for nothing. This drops the ones nothing reads. (A binding that no inner
// function reads lives in a register, measured on the device's engine: the
// ones kept cost no heap once the module's start-up has run.)
import { parse } from 'acorn';
import { fullAncestor } from 'acorn-walk';
import type { Node } from 'acorn';

type AnyNode = Node & Record<string, unknown>;

/** True for a row of the table: `P[3]` (P the shared table parameter). */
function isRow(n: AnyNode, param: string): boolean {
  const obj = n['object'] as AnyNode;
  return n.type === 'MemberExpression' && obj.type === 'Identifier' && obj['name'] === param;
}

/** True for a row, or a value of one: `P[3][1]`, or `x[1]` where x is a binding of a row. */
function readsShared(init: AnyNode | null, param: string, tables: Set<string>): boolean {
  if (!init || init.type !== 'MemberExpression') return false;
  if (isRow(init, param)) return true;
  const obj = init['object'] as AnyNode;
  return obj.type === 'MemberExpression' ? isRow(obj, param) : obj.type === 'Identifier' && tables.has(obj['name'] as string);
}

/**
 * `code`: a function expression whose parameter `param` is the shared table.
 * Returns it without the top-level `var` bindings read from that table that
 * no code refers to (repeated: a module object nothing reads any more goes too).
 */
export function dropUnusedShared(code: string, param: string): { code: string; dropped: string[] } {
  const dropped: string[] = [];
  for (;;) {
    const ast = parse(code, { ecmaVersion: 2019, sourceType: 'script' }) as unknown as AnyNode;
    const stmt = (ast['body'] as AnyNode[])[0] as AnyNode;
    const fn = stmt.type === 'ExpressionStatement' ? (stmt['expression'] as AnyNode) : undefined;
    if (!fn || fn.type !== 'FunctionExpression') throw new Error('dropUnusedShared: the code must be one function expression');
    // How often each name is referred to (declarations included; property
    // names and object keys are not identifiers the walker visits).
    const uses = new Map<string, number>();
    fullAncestor(ast as unknown as Node, (n) => {
      const node = n as AnyNode;
      if (node.type === 'Identifier') uses.set(node['name'] as string, (uses.get(node['name'] as string) ?? 0) + 1);
    });
    const tables = new Set<string>();
    const edits: { start: number; end: number; text: string }[] = [];
    for (const s of (fn['body'] as AnyNode)['body'] as AnyNode[]) {
      if (s.type !== 'VariableDeclaration') continue;
      const decls = s['declarations'] as AnyNode[];
      const keep: AnyNode[] = [];
      for (const d of decls) {
        const id = d['id'] as AnyNode;
        const init = d['init'] as AnyNode | null;
        const shared = id.type === 'Identifier' && readsShared(init, param, tables);
        if (shared && init && isRow(init, param)) tables.add(id['name'] as string);
        if (shared && uses.get(id['name'] as string) === 1) dropped.push(id['name'] as string);
        else keep.push(d);
      }
      if (keep.length === decls.length) continue;
      const kind = s['kind'] as string;
      edits.push({ start: s.start, end: s.end, text: keep.length ? kind + ' ' + keep.map((d) => code.slice(d.start, d.end)).join(',') + ';' : '' });
    }
    if (!edits.length) return { code, dropped };
    for (const e of edits.reverse()) code = code.slice(0, e.start) + e.text + code.slice(e.end);
  }
}
