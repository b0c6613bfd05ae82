// A configuration device's document (issue 36): what the dashboard shows of
// it and the check it passes before the dashboard writes it.
//
// The document has the nested shape of `flash.sh --config`. A board merges
// it over its own configuration, leaving out the keys it never takes from
// the service (wifi.*, service.url, service.apiKey, remote.*), and checks the
// result with src/config/validate.ts. The dashboard runs the same checker on
// the document without those keys, before anything is written: every broken
// rule is one line naming its key, and the ignored keys are listed apart, as
// a note, not an error.
//
// PINs and secrets never reach the page: each is shown as KEPT, and a KEPT
// sent back is replaced by the value the stored document holds at the same
// place (a device or output by its name), so editing the document never
// needs them; a new entry's PIN is typed as a number.

import { validateConfig } from '../../src/config/validate';
import type { AgentConfig } from '../../src/config/types';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the page shows in place of a PIN or secret; sent back, it keeps the stored value. */
export const KEPT = '(kept)';

/** The keys a document may hold. */
const KEYS = ['board', 'wifi', 'service', 'agent', 'health', 'sensors', 'devices', 'outputs', 'remote'];
/** The sections holding keys a board never takes from the service; of `service`, only url and apiKey. */
const IGNORED_SECTIONS = ['wifi', 'service', 'remote'];
const SERVICE_IGNORED = ['url', 'apiKey'];

export const IGNORED_RULE = 'ignored by boards (never taken from the service)';

/** Whether a parsed JSON value reads as a configuration document: a non-empty object of configuration keys only. */
export function looksLikeConfig(v: unknown): boolean {
  if (!isObj(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => KEYS.includes(k));
}

/** One place that holds a PIN or a secret: its key as error lines name it, and how to reach it. */
interface Slot {
  key: string;
  holder: Obj;
  field: string;
}

/** Every PIN or secret a document holds (present or not), by the key a checker's line would name. */
function slots(doc: Obj): Slot[] {
  const out: Slot[] = [];
  const section = (name: string, field: string): void => {
    const s = doc[name];
    if (isObj(s)) out.push({ key: `${name}.${field}`, holder: s, field });
  };
  section('wifi', 'password');
  section('service', 'apiKey');
  section('health', 'pin');
  section('remote', 'pin');
  const list = (name: string, what: string, field: string, key: string): void => {
    const l = doc[name];
    if (!Array.isArray(l)) return;
    for (const e of l) if (isObj(e) && typeof e.name === 'string') out.push({ key: `${what}.${e.name}.${key}`, holder: e, field });
  };
  list('devices', 'device', 'devicePin', 'pin');
  list('outputs', 'output', 'sourcePin', 'sourcePin');
  return out;
}

/** A parsed document with every PIN and secret replaced by KEPT (a copy). */
export function maskDocument(doc: unknown): unknown {
  if (!isObj(doc)) return doc;
  const copy = JSON.parse(JSON.stringify(doc)) as Obj;
  for (const s of slots(copy)) if (s.holder[s.field] !== undefined) s.holder[s.field] = KEPT;
  return copy;
}

/** A stored document's text as the page may show it: masked and indented, or '' when none. */
export function documentForPage(content: string | undefined): string {
  if (content === undefined) return '';
  try {
    return JSON.stringify(maskDocument(JSON.parse(content)), null, 2);
  } catch {
    return '';
  }
}

/**
 * The document as a board takes it, and the keys it leaves out, named as a
 * board's report names them: every key of wifi and remote, service.url and
 * service.apiKey; a section that is not an object, whole. A copy: `doc` is
 * not changed.
 */
export function takeOutIgnored(doc: Obj): { rest: Obj; ignored: string[] } {
  const rest: Obj = { ...doc };
  const ignored: string[] = [];
  for (const sec of IGNORED_SECTIONS) {
    const v = rest[sec];
    if (v === undefined) continue;
    if (isObj(v)) {
      const left: Obj = {};
      for (const k of Object.keys(v)) {
        if (sec === 'service' && !SERVICE_IGNORED.includes(k)) left[k] = v[k];
        else ignored.push(`${sec}.${k}`);
      }
      if (Object.keys(left).length > 0) {
        rest[sec] = left;
        continue;
      }
    } else ignored.push(sec);
    delete rest[sec];
  }
  return { rest, ignored };
}

/** The keys of a document that boards leave out. */
export function ignoredKeys(doc: Obj): string[] {
  return takeOutIgnored(doc).ignored;
}

export interface DocumentCheck {
  /** One line per broken rule, naming the key and the rule; none when the document may be written. */
  errors: string[];
  /** Keys boards ignore (a note, not an error). */
  ignored: string[];
  /** When there are no errors: the text to store (compact JSON, PINs and secrets restored). */
  text?: string;
  /** When there are no errors: the checked configuration (defaults filled in), the ignored keys left out. */
  config?: AgentConfig;
}

export interface CheckLimits {
  /** The service's largest JSON body (its maxBodyBytes). */
  maxBytes: number;
}

/**
 * Checks a document as typed on the page: JSON, KEPT values restored from the
 * stored document, size, then src/config/validate.ts on it without the keys
 * boards ignore. `stored`: the device's current content, if any.
 */
export function checkDocument(typed: string, stored: string | undefined, limits: CheckLimits): DocumentCheck {
  let doc: unknown;
  try {
    doc = JSON.parse(typed);
  } catch (err) {
    return { errors: [`document: not JSON (${err instanceof Error ? err.message : String(err)})`], ignored: [] };
  }
  if (!isObj(doc)) return { errors: ['document: must be a JSON object, in the shape of flash.sh --config'], ignored: [] };
  const errors: string[] = [];
  let before: Obj | undefined;
  try {
    const s = stored === undefined ? undefined : (JSON.parse(stored) as unknown);
    before = isObj(s) ? s : undefined;
  } catch {
    before = undefined;
  }
  const old = new Map<string, unknown>();
  if (before) for (const s of slots(before)) if (s.holder[s.field] !== undefined) old.set(s.key, s.holder[s.field]);
  for (const s of slots(doc)) {
    if (s.holder[s.field] !== KEPT) continue;
    if (old.has(s.key)) s.holder[s.field] = old.get(s.key);
    else errors.push(`${s.key}: "${KEPT}" keeps the stored value, and the stored document has none here; give the value`);
  }
  if (errors.length > 0) return { errors, ignored: ignoredKeys(doc) };
  const { rest, ignored } = takeOutIgnored(doc);
  const text = JSON.stringify(doc);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) errors.push(`document: ${bytes} bytes as compact JSON, over the service's limit of ${limits.maxBytes} bytes`);
  const v = validateConfig(rest);
  if (!v.ok) return { errors: errors.concat(v.errors), ignored };
  // The board's own rules for a change from the service (src/agent/remote-apply.ts): the
  // trial that takes a bad document back stays on, and the next read still fits.
  const agent = rest.agent;
  if (isObj(agent) && agent.lkgRevertMs === 0) {
    errors.push('agent.lkgRevertMs: 0 (off) cannot come from the service: the trial that reverts a bad document needs it');
  }
  const most = v.config.agent.maxResponseBytes;
  if (most < bytes + 1024) {
    errors.push(`agent.maxResponseBytes: must hold this document and its reply's head for the next read (at least ${bytes + 1024})` +
      (isObj(agent) && agent.maxResponseBytes !== undefined ? '' : `; the document does not set it, and its default is ${most}`));
  }
  if (errors.length > 0) return { errors, ignored };
  return { errors, ignored, text, config: v.config };
}
