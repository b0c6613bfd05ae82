// What a board says about the configuration it runs: where it came from, and
// the configuration device's last document and what became of it (the health
// report, status()). Both are kept in small files on flash:
//   config.src   '<crc32 hex of a config.json> <source>' a line, newest first:
//                who saved each of the last few configurations (console,
//                service); a config.json no line names was written by
//                flash.sh --config (or by a tool on the host)
//   remote.seen  the configuration device's last document: its CRC, the
//                outcome, the keys left out, when it was seen (JSON)
// Cold code only: the health report, status(), save() and a read of the
// configuration's device each carry what they use of it.
import type { AgentConfig } from '../config/types';
import type { FileStore } from '../ports/ports';
import { crc32 } from '../queue/crc32';
import { decodeUtf8 } from '../utf8';

/** Files and limits (a const enum: put in place by the build, no binding on the heap). */
export const enum R {
  Sources = 'config.src',
  Seen = 'remote.seen',
  /** A document kept for a boot without the agent to check (the checker had no room beside the agent); src/runtime.ts names it too. */
  Pending = 'remote.json',
  /** Present after an apply or a restart to check a document: the next boot's first read waits a whole remote.pollMs. */
  Wait = 'remote.wait',
  /** The trial's flag (src/config/trial.ts, TRIAL_FILE). */
  Trial = 'config.new',
  /** Lines kept in config.src. */
  Keep = 8,
  PendingOutcome = 'pending check at next boot',
}

/** Where the configuration in force came from. */
export type ConfigSource = 'console' | 'flash.sh' | 'service' | 'defaults';

/** The configuration device's last document as remote.seen keeps it. */
export interface Seen {
  /** remote.id it was read from: another id's document says nothing of this one's. */
  id: number;
  /** CRC-32 (hex) of the document's text as its content (src/agent/remote-apply.ts, canonical); null when none could be read. */
  crc: string | null;
  outcome: string;
  /** Keys the document set that are never taken from the service. */
  ignored: string[];
  /** Wall-clock ms when it was seen (the service's Date); null when not known. */
  at: number | null;
  /** An applied document: the CRC of the config.json it made... */
  cfg?: string;
  /** ...and that configuration's agent.lkgRevertMs, in minutes. */
  min?: number;
}

/** The report's form of the configuration's device (the health report's "remote"). */
export interface RemoteShown {
  id: number;
  crc: string | null;
  outcome: string;
  ignored: string[];
  atS: number | null;
}

export const crcHex = (b: Uint8Array): string => crc32(b, 0, b.length).toString(16);

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object's own keys in order, each made own (even __proto__): JSON.stringify's replacer for canonical(). */
function sorted(this: unknown, _k: string, v: unknown): unknown {
  if (!isObj(v)) return v;
  const o: Obj = {};
  const keys = Object.keys(v).sort();
  for (let i = 0; i < keys.length; i++) Object.defineProperty(o, keys[i] as string, { value: v[keys[i] as string], enumerable: true, writable: true, configurable: true });
  return o;
}

/**
 * A document's text as its content: JSON written again with its keys in
 * order and no spacing, so neither counts; text that is not JSON as it
 * came, trimmed.
 */
export function canonical(body: string): string {
  const t = body.trim();
  try {
    return JSON.stringify(JSON.parse(t), sorted);
  } catch {
    return t;
  }
}

/** CRC-32 (hex) of a document's canonical text. */
export const docCrc = (text: string): string => crcHex(new TextEncoder().encode(text));


/** A small file's text; undefined when it is missing or unreadable. */
export function readText(files: FileStore, path: string): string | undefined {
  try {
    const b = files.read(path);
    return b && decodeUtf8(b);
  } catch {
    return undefined;
  }
}

/** Replaces a small file whole (written aside, then renamed, so a power cut leaves the old or the new one); the error, or undefined. */
export function replaceFile(files: FileStore, path: string, text: string): string | undefined {
  try {
    files.write(path + '.tmp', new TextEncoder().encode(text));
    files.rename(path + '.tmp', path);
    return undefined;
  } catch (e) {
    return path + ': not saved (' + String(e) + ')';
  }
}

export function readSeen(files: FileStore): Seen | undefined {
  try {
    const s = JSON.parse(readText(files, R.Seen) || 'null') as Seen | null;
    return s && typeof s.outcome === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

/** config.src's lines, newest first: [crc, source]. */
function sources(files: FileStore): string[][] {
  const t = readText(files, R.Sources);
  return t ? t.split('\n').map((l) => l.split(' ')) : [];
}

/** Notes that the config.json whose CRC is `crc` was saved by `source` (before it is saved: a power cut then leaves a line too many, never one short). */
export function noteSource(files: FileStore, crc: string, source: ConfigSource): string | undefined {
  const lines = [crc + ' ' + source];
  for (const l of sources(files)) if (l.length === 2 && l[0] !== crc && lines.length < (R.Keep as number)) lines.push(l.join(' '));
  return replaceFile(files, R.Sources, lines.join('\n'));
}

/** The CRC of config.json ('' when there is none, 'unreadable'), and where it came from. */
export function configOrigin(files: FileStore): { crc: string; source: ConfigSource } {
  let crc = '';
  try {
    const b = files.read('config.json');
    if (b) crc = crcHex(b);
  } catch {
    crc = 'unreadable';
  }
  let source: ConfigSource = crc && crc !== 'unreadable' ? 'flash.sh' : 'defaults';
  for (const l of sources(files)) if (l[0] === crc && (l[1] === 'console' || l[1] === 'service')) source = l[1];
  return { crc, source };
}

/**
 * The configuration device's last document as the report shows it;
 * undefined when remote.id is 0. `crc`: the config.json in force;
 * `wallMs`: the clock now when it is set. An applied document whose
 * configuration is no longer in force, with no trial running, was
 * reverted by the last-known-good rule, unless a save made later (a newer
 * line of config.src) replaced it.
 */
export function remoteShown(files: FileStore, c: Pick<AgentConfig, 'remote'>, crc: string, wallMs: number | undefined): RemoteShown | undefined {
  const id = c.remote ? c.remote.id : 0;
  if (!id) return undefined;
  const s = readSeen(files);
  if (!s || s.id !== id) return { id, crc: null, outcome: 'unreadable: not read yet', ignored: [], atS: null };
  let outcome = s.outcome;
  if (outcome === 'applied' && s.cfg && s.cfg !== crc) {
    let trial = false;
    try {
      trial = files.size(R.Trial) !== undefined;
    } catch {
      trial = false;
    }
    const order = sources(files).map((l) => l[0]);
    const now = order.indexOf(crc);
    const made = order.indexOf(s.cfg);
    if (!trial && (now < 0 || (made >= 0 && now > made))) outcome = 'reverted after ' + String(s.min) + ' min without a delivery';
  }
  return { id, crc: s.crc, outcome, ignored: s.ignored || [], atS: s.at === null || wallMs === undefined ? null : Math.max(0, Math.round((wallMs - s.at) / 1000)) };
}
