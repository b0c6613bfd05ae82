// What the Kaluma 1.2.1 engine cannot run, checked on the built bundle.
// Syntax: the bundle must parse as an ES2019 strict script (that rejects ?.,
// ??=, #private, static blocks, BigInt literals, import/export). Built-ins
// and console methods the engine lacks are found by walking the tree.
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
    ast = parse(code, { ecmaVersion: 2019, sourceType: 'script', locations: true });
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
  return problems;
}
