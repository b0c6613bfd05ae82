// The cold-code loader (docs/architecture.md, How cold code works). The build
// puts the modules in front of the program, inside one comment the runtime
// skips, so they cost no heap until a command reads one back, checks it, runs
// it and drops it:
//   /*PDA-COLD <build> <name>:<offset>:<length>:<crc32 hex>:<code length> ...\n
//   <module code>\n<its strings, a JSON array>\n ... */
// (offsets from the mark). A module's strings come as a JSON table, since the
// engine keeps every string a parsed program names until it stops.
import type { ProgramStore } from './ports/ports';
import { crc32 } from './queue/crc32';
import type { Shared } from './shared';
import { decodeUtf8 } from './utf8';

// A const enum is inlined by the build; a module-level const stays on the heap.
// The exports below are for the build and the tests.
const enum K {
  Mark = '/*PDA-COLD ',
  /** The header line is read in one piece of this size; the build keeps it shorter. */
  HeadMax = 1024,
  Messages = 'msg',
  /** Width of one entry of the messages' index: 5 hex digits of offset, 3 of length. */
  Entry = 8,
  Reflash = '; flash the board again with ./flash.sh',
  /** How far into the program area the section is looked for: text put before the program (a test harness's own code) may push it. */
  SearchMax = 65536,
  Window = 512,
  /** A module's text is read in pieces of about this many characters, joined once (text(), below). */
  Piece = 6144,
  /** COLD_HEAP_PER_BYTE, below. */
  HeapPerByte = 3.5,
}

export const COLD_MARK: string = K.Mark;
/** The header line is read in one piece of this size; the build keeps it shorter. */
export const COLD_HEAD_MAX: number = K.HeadMax;

export type ColdResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface ColdLoader {
  /** The module's default export, freshly evaluated; drop it when done. */
  load<T>(this: void, name: string): ColdResult<T>;
  /** Why the module would not load now (not there, or not enough heap), or undefined when it would. */
  fits(this: void, name: string): string | undefined;
  /** The resident program's message `i` (scripts/build/messages.ts), or "#i" when the messages cannot be read. */
  message(this: void, i: number): string;
  /** Why the messages cannot be read, or undefined when they can (the first call checks them). */
  messagesError(this: void): string | undefined;
}

/** The cold section's entry that holds the resident program's messages. */
export const MESSAGES: string = K.Messages;
/**
 * Heap a command needs while its module is read, parsed and run, per byte of
 * the module (its text, strings, bytecode, the parser's tables and what the
 * command makes); measured (docs/measurements/2026-11-code-notes.md).
 */
export const COLD_HEAP_PER_BYTE: number = K.HeapPerByte;

/**
 * `build` is this program's build id; only cold code of the same build is
 * run. `shared`: the resident modules cold code uses (src/shared.ts).
 */
export function createColdLoader(o: {
  program: ProgramStore;
  build: string;
  /** Made for each load and let go after it (src/shared.ts). */
  shared: () => Shared;
  /** Free heap now (undefined: unknown): a module that would not fit is refused, as running out stops the engine. */
  room?: () => number | undefined;
}): ColdLoader {
  let base = -1;

  function find(name: string): ColdResult<number[]> {
    // Where the section starts: the mark at the start of a line, found once.
    let why = 'the program on flash carries no cold code';
    search: for (let at = 0; base < 0 && at < (K.SearchMax as number); at += K.Window - K.Mark.length) {
      const w = o.program.read(at, K.Window);
      if (!w || (at === 0 && w[0] === 0xff)) {
        why = 'no program on flash to read it from (program run from a file?)';
        break;
      }
      for (let i = 0; i + K.Mark.length <= w.length; i++) {
        if (w[i] === 0) break search;
        let k = 0;
        while (k < K.Mark.length && w[i + k] === K.Mark.charCodeAt(k)) k++;
        if (k === K.Mark.length && (at + i === 0 || w[i - 1] === 10)) {
          base = at + i;
          break search;
        }
      }
    }
    if (base < 0) return { ok: false, error: why + K.Reflash };
    const from = base;
    const head = o.program.read(from, K.HeadMax);
    let end = 0;
    while (head && end < head.length && head[end] !== 10) end++;
    const line = head && end < head.length ? decodeUtf8(head.subarray(0, end)) : undefined;
    if (line === undefined) return { ok: false, error: 'the cold code header is damaged' + K.Reflash };
    const parts = line.slice(K.Mark.length).split(' ');
    if (parts[0] !== o.build) return { ok: false, error: 'the program on flash is build ' + parts[0] + ', this one is ' + o.build + K.Reflash };
    for (let i = 1; i < parts.length; i++) {
      const f = (parts[i] as string).split(':');
      if (f[0] === name) return { ok: true, value: [from + Number(f[1]), Number(f[2]), parseInt(f[3] as string, 16), Number(f[4])] };
    }
    return { ok: false, error: 'build ' + o.build + ' has no module ' + name };
  }

  /**
   * The module's source and its strings, once its CRC holds: read a window at
   * a time into one buffer, since bytes read whole stay on the heap through the
   * parse (the parser makes few objects, so the engine skips its collections).
   */
  function text(at: number[]): [string, unknown] | undefined {
    const from = at[0] as number;
    const n = at[3] as number;
    const buf = new Uint8Array(K.Window);
    let c = 0;
    // Bytes [start, end) of the module as text; undefined when unreadable or not UTF-8.
    // Grown by += up to K.Piece characters, then kept as a piece and joined
    // once at the end: a big module grown whole needs room for a second copy
    // of itself at each window, which a fragmented heap may not have; joined
    // whole, every module would hold its text twice (docs/heap-history.md).
    const piece = (start: number, end: number): string | undefined => {
      const parts: string[] = [];
      let s = '';
      for (let k = start; k < end; ) {
        let m = Math.min(K.Window, end - k);
        const w = o.program.read(from + k, m, buf);
        if (!w || w.length < m) return undefined;
        // A window that is not the last ends before the character that
        // runs on past it: at a byte that is not a continuation byte.
        if (k + m < end) {
          m--;
          while (m > 0 && ((w[m] as number) & 0xc0) === 0x80) m--;
          if (!m) return undefined;
        }
        c = crc32(w, 0, m, c);
        const t = decodeUtf8(w.subarray(0, m));
        if (t === undefined) return undefined;
        s += t;
        if (s.length >= (K.Piece as number)) {
          parts.push(s);
          s = '';
        }
        k += m;
      }
      if (!parts.length) return s;
      parts.push(s);
      return parts.join('');
    };
    // The code with the newline after it (which the CRC covers, and which
    // evaluates as nothing), then the strings: no copy of either to trim it.
    const code = piece(0, n + 1);
    const strings = code === undefined ? undefined : piece(n + 1, at[1] as number);
    return strings === undefined || c !== at[2] ? undefined : [code as string, JSON.parse(strings)];
  }

  // Where the messages' section starts, once checked; -1: not looked for yet.
  let msgAt = -1;
  let msgCount = 0;
  let msgError: string | undefined;
  function messagesError(): string | undefined {
    if (msgAt !== -1) return msgError;
    // Failing from here on: the errors below may be messages themselves.
    msgAt = -2;
    const at = find(K.Messages);
    if (!at.ok) return (msgError = at.error);
    // The whole section's CRC, a window at a time.
    let c = 0;
    const [from, length] = at.value as [number, number];
    for (let k = 0; k < length; k += K.Window) {
      const w = o.program.read(from + k, Math.min(K.Window, length - k));
      if (!w) return (msgError = 'the messages cannot be read' + K.Reflash);
      c = crc32(w, 0, w.length, c);
    }
    if (c !== at.value[2]) return (msgError = 'the messages are corrupt on flash (CRC)' + K.Reflash);
    msgAt = from;
    msgCount = at.value[3] as number;
    return (msgError = undefined);
  }

  /** Where the module is, once it is known to fit now; else the one-line reason. */
  function where(name: string): number[] | string {
    const at = find(name);
    if (!at.ok) return 'cold code ' + name + ': ' + at.error;
    const need = Math.ceil(K.HeapPerByte * (at.value[1] as number));
    const room = o.room ? o.room() : undefined;
    if (room !== undefined && room < need) {
      return 'cold code ' + name + ': not enough free heap now (' + room + ' B free, about ' + need + ' B needed); try again in a minute, or after maintenance(), which boots without the agent';
    }
    return at.value;
  }
  function fits(name: string): string | undefined {
    const at = where(name);
    return typeof at === 'string' ? at : undefined;
  }

  return {
    messagesError,
    message(i: number): string {
      if (messagesError() !== undefined || !(i >= 0 && i < msgCount)) return '#' + i;
      const e = o.program.read(msgAt + i * K.Entry, K.Entry);
      const entry = e && decodeUtf8(e);
      const off = entry ? parseInt(entry.slice(0, 5), 16) : NaN;
      const len = entry ? parseInt(entry.slice(5), 16) : NaN;
      const b = off >= 0 && len > 0 ? o.program.read(msgAt + off, len) : undefined;
      const t = b && decodeUtf8(b);
      try {
        const s: unknown = t ? JSON.parse(t) : undefined;
        return typeof s === 'string' ? s : '#' + i;
      } catch {
        return '#' + i;
      }
    },
    fits,
    load<T>(name: string): ColdResult<T> {
      const at = where(name);
      if (typeof at === 'string') return { ok: false, error: at };
      let got: [string, unknown] | undefined;
      let make: unknown;
      try {
        got = text(at);
        if (got === undefined) return { ok: false, error: 'cold code ' + name + ': corrupt on flash (CRC)' + K.Reflash };
        // Indirect eval: global scope, nothing of this closure visible to it.
        make = (0, eval)(got[0]);
      } catch (e) {
        return { ok: false, error: 'cold code ' + name + ': ' + String(e) + K.Reflash };
      }
      const strings = got[1];
      // The source goes before the module runs; only its bytecode stays.
      got = undefined;
      if (typeof make !== 'function') return { ok: false, error: 'cold code ' + name + ': not a module' + K.Reflash };
      return { ok: true, value: (make as (s: Shared, t: unknown) => T)(o.shared(), strings) };
    },
  };
}
