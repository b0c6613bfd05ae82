// What the Kaluma 1.2.1 engine cannot run, checked on the built bundle.
// Syntax: the bundle must parse as an ES2019 strict script (that rejects ?.,
// ??=, #private, static blocks, BigInt literals, import/export). Built-ins
// and console methods the engine lacks are found by walking the tree, and so
// is a construct its parser refuses although it is ES2019 (arrowInParenLiteral).
import { parse } from 'acorn';
import { simple } from 'acorn-walk';
import type { Node } from 'acorn';

const MISSING_GLOBALS = new Set([
  'structuredClone', 'queueMicrotask', 'setImmediate', 'WeakRef', 'FinalizationRegistry',
  'AggregateError', 'Intl', 'Buffer', 'fetch', 'AbortController', 'encodeURIComponent',
  'decodeURIComponent', 'encodeURI', 'decodeURI',
]);
const MISSING_MEMBERS: Record<string, string[]> = {
  Promise: ['allSettled', 'any'],
  Object: ['hasOwn'],
  console: ['warn', 'info', 'debug', 'trace', 'table', 'dir', 'group', 'groupEnd', 'time', 'timeEnd', 'assert', 'count'],
  process: ['env', 'argv', 'exit', 'nextTick', 'hrtime', 'on', 'uptime', 'cwd'],
  module: ['exports'],
};
const MISSING_METHODS = new Set(['at', 'findLast', 'findLastIndex', 'toSorted', 'toReversed', 'toSpliced', 'normalize']);

function regexProblem(pattern: string, flags: string): string | undefined {
  if (pattern.includes('(?<')) return 'regex named group or lookbehind';
  if (/\\[pP]\{/.test(pattern)) return 'regex \\p{...} property escape';
  if (/[dv]/.test(flags)) return `regex flag ${flags}`;
  return undefined;
}

/** The child nodes of `n`, for a walk that decides itself where to stop. */
function kids(n: Node): Node[] {
  const out: Node[] = [];
  for (const v of Object.values(n)) {
    for (const x of Array.isArray(v) ? v : [v]) if (x && typeof x === 'object' && typeof (x as Node).type === 'string') out.push(x as Node);
  }
  return out;
}

/**
 * The engine's parser refuses a parenthesized expression that starts with an
 * object or array literal holding an arrow function with one unparenthesized
 * parameter, or an async one (measured on the device's engine: `e=>({b:r=>1})`,
 * `({b:r=>1}).b`, `([r=>1])`, `({b:async(r)=>1})` are SyntaxErrors; `({b:(r,s)=>1})`,
 * `({b:()=>1})`, `({b(r){}})`, `({a:g(r=>1)})` and `(0,{b:r=>1})` parse).
 * Seen from inside the parentheses it scans them as an arrow's parameter
 * list. The minifier writes `(d) => ...` as `d=>...` and an arrow returning
 * an object as `=>({...})`, so the source alone does not show it.
 */
function arrowInParenLiteral(code: string, ast: Node, at: (n: Node) => string): string[] {
  const found: string[] = [];
  const inside = (n: Node): void => {
    for (const k of kids(n)) {
      const t = k.type;
      // Their own parentheses (a nested one is checked on its own) or a body of its own.
      if (t === 'ParenthesizedExpression' || t === 'CallExpression' || t === 'NewExpression' || t === 'FunctionExpression' || t === 'BlockStatement') continue;
      if (t === 'ArrowFunctionExpression') {
        const a = k as Node & { params: Node[]; async: boolean };
        if (a.async || (a.params.length === 1 && code[a.start] !== '(')) found.push(`an arrow function '${code.slice(a.start, a.start + 12)}...' inside parentheses that open on an object or array literal: the engine's parser refuses it; make it a method (the minifier drops the parentheses of one parameter) (${at(k)})`);
      }
      inside(k);
    }
  };
  const walk = (n: Node): void => {
    if (n.type === 'ParenthesizedExpression' && /^\(\s*[[{]/.test(code.slice(n.start, n.start + 40))) inside(n);
    for (const k of kids(n)) walk(k);
  };
  walk(ast);
  return found;
}

export function checkBundle(code: string): string[] {
  const problems: string[] = [];
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 0) {
      problems.push(`NUL byte at ${i}: the program is stored NUL-terminated`);
      break;
    }
    if (c > 127) {
      problems.push(`non-ASCII character at ${i}`);
      break;
    }
  }
  let ast: Node;
  try {
    ast = parse(code, { ecmaVersion: 2019, sourceType: 'script', locations: true, preserveParens: true });
  } catch (e) {
    problems.push(`syntax the engine does not accept: ${(e as Error).message}`);
    return problems;
  }
  const at = (n: Node): string => (n.loc ? `line ${n.loc.start.line}:${n.loc.start.column}` : `offset ${n.start}`);
  simple(ast, {
    Identifier(n) {
      if (MISSING_GLOBALS.has(n.name)) problems.push(`${n.name} is missing on the device (${at(n)})`);
    },
    MemberExpression(n) {
      if (n.computed || n.property.type !== 'Identifier') return;
      const prop = n.property.name;
      if (n.object.type === 'Identifier') {
        const list = MISSING_MEMBERS[n.object.name];
        if (list && list.includes(prop)) problems.push(`${n.object.name}.${prop} is missing on the device (${at(n)})`);
      }
    },
    CallExpression(n) {
      const callee = n.callee;
      if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
        if (MISSING_METHODS.has(callee.property.name)) problems.push(`.${callee.property.name}() is missing on the device (${at(n)})`);
      }
    },
    NewExpression(n) {
      const arg = n.arguments[0];
      if (n.callee.type === 'Identifier' && n.callee.name === 'RegExp' && arg && arg.type === 'Literal' && typeof arg.value === 'string') {
        const flagArg = n.arguments[1];
        const flags = flagArg && flagArg.type === 'Literal' && typeof flagArg.value === 'string' ? flagArg.value : '';
        const p = regexProblem(arg.value, flags);
        if (p) problems.push(`${p} (${at(n)})`);
      }
    },
    Literal(n) {
      if ('regex' in n && n.regex) {
        const p = regexProblem(n.regex.pattern, n.regex.flags);
        if (p) problems.push(`${p} (${at(n)})`);
      }
    },
  });
  problems.push(...arrowInParenLiteral(code, ast, at));
  return problems;
}
