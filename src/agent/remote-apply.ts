// One read of the configuration's device and what a new document does
// (the cold module 'remote-apply', loaded for each read and let go).
//
// A document is new when its content (the CRC of its text as canonical
// JSON) differs from the last one seen. It is then merged over the running
// configuration's saved form (the nested shape of flash.sh --config),
// without the keys never taken from the service, checked by save()'s
// checker and, when valid and different, saved as a change on trial: the
// last-known-good rule reverts it if it delivers nothing for
// agent.lkgRevertMs. The checker is loaded only then; when it has no room
// beside the running agent, the document is kept on flash and the board
// restarts into a boot without the agent that checks it (src/runtime.ts).
// Every outcome is kept with the document's CRC (remote.seen), so a
// document is acted on, and its error logged, once.
import type { ConfigCodec } from '../config/store';
import type { AgentConfig } from '../config/types';
import { devSegments } from '../service/client';
import { parseHttpDate } from '../service/http-date';
import type { LoadCold } from './outputs';
import type { PollRemote, RemoteJob, RemoteRt } from './remote';
import { R, crcHex, noteSource, readSeen, readText, replaceFile } from './remote-state';
import type { Seen } from './remote-state';
import type { WriteOutcome } from './uplink';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/**
 * Takes out of `doc` the keys never taken from the service: wifi.* (secrets;
 * a wrong network cuts the board off for good), service.url and
 * service.apiKey (the key travels in every request's path, so another URL
 * would hand it to that host), and remote.* (the way back to a fixed
 * document). Returns the keys taken out, as the document named them.
 */
export function takeOut(doc: Obj): string[] {
  const out: string[] = [];
  const secs = ['wifi', 'service', 'remote'];
  for (let i = 0; i < secs.length; i++) {
    const sec = secs[i] as string;
    const v = doc[sec];
    if (v === undefined) continue;
    if (isObj(v)) {
      for (const k in v) {
        if (sec === 'service' && k !== 'url' && k !== 'apiKey') continue;
        out.push(sec + '.' + k);
        delete v[k];
      }
      if (Object.keys(v).length) continue;
    } else out.push(sec);
    delete doc[sec];
  }
  return out;
}

/** `doc` merged into `base`: objects key by key, anything else (a value, a list of sensors) in its place. */
export function mergeOver(base: Obj, doc: Obj): Obj {
  for (const k in doc) {
    const v = doc[k];
    // Own properties only, and made own even when named __proto__ (the
    // checker then names it as an unknown key): nothing reaches a prototype.
    const b = Object.prototype.hasOwnProperty.call(base, k) ? base[k] : undefined;
    Object.defineProperty(base, k, { value: isObj(v) && isObj(b) ? mergeOver(b, v) : v, enumerable: true, writable: true, configurable: true });
  }
  return base;
}

/**
 * The rules of a change from the service beyond the checker's, each broken
 * one as '<key>: <rule>': the document may not turn the last-known-good
 * rule off (the trial is what takes a bad document back), and the next
 * read must still fit agent.maxResponseBytes (or no fixed document could
 * ever be read).
 */
export function remoteRule(doc: Obj, next: { agent: { maxResponseBytes: number } }, size: number): string | undefined {
  const a = doc.agent;
  if (isObj(a) && a.lkgRevertMs === 0) return 'agent.lkgRevertMs: 0 (off) cannot come from the service: the trial that reverts a bad document needs it';
  if (next.agent.maxResponseBytes < size + 1024) return 'agent.maxResponseBytes: must hold this document and its reply\'s head for the next read (at least ' + (size + 1024) + ')';
  return undefined;
}

/**
 * A checked change `next` (the saved form of `c`) from the service, as a
 * change on trial: noted and flagged before the save, so a power cut after
 * it leaves the new configuration on trial and named, or the old one. Saved
 * here with `save` (the board then restarts into it); else by the caller.
 * The error, or undefined.
 */
function applyChange(rt: RemoteRt, seen: Seen, c: AgentConfig, next: string, save: boolean): string | undefined {
  const files = rt.p.files;
  const made = docCrc(next);
  let e = noteSource(files, made, 'service') || replaceFile(files, R.Wait, '1');
  if (!e) {
    try {
      files.write(R.Trial, new Uint8Array([49]));
    } catch (err) {
      e = String(err);
    }
  }
  if (save) e = e || rt.apply(c);
  if (e) {
    files.remove(R.Trial);
    return e;
  }
  seen.outcome = 'applied';
  seen.cfg = made;
  seen.min = Math.round(c.agent.lkgRevertMs / 60000);
  return undefined;
}

/**
 * What a new document `text` does, and its outcome kept with its CRC. With
 * `x` (the running agent's poll): a change is saved here, and one the
 * checker cannot check beside the agent restarts the board into a boot that
 * does. Without it (that boot), a change is handed back for the caller to
 * save once this code and its checker are let go: the save loads the
 * checker again, and the two side by side have no room on a Pico W. The
 * document stays on flash until then.
 */
function settle(rt: RemoteRt, load: LoadCold, x: RemoteJob | undefined, text: string, date: string | undefined): AgentConfig | undefined {
  const p = rt.p;
  const files = p.files;
  const cfg = rt.config();
  const crc = docCrc(text);
  const prev = readSeen(files);
  // Settled before (a restart came between the outcome and its last step):
  // nothing more; in a boot that checks a kept document, an applied one
  // whose save did not happen is done again.
  if (prev && prev.id === cfg.remote.id && prev.crc === crc && prev.outcome !== (R.PendingOutcome as string)) {
    let made: Uint8Array | undefined;
    try {
      made = files.read('config.json');
    } catch {
      made = undefined;
    }
    if (x || prev.outcome !== 'applied' || (made && crcHex(made) === prev.cfg)) {
      if (x) x.seen = crc;
      files.remove(R.Pending);
      return undefined;
    }
  }
  // When it was read: the reply's Date, or, for a kept document, when the read that kept it was.
  const at = date === undefined ? (prev && prev.crc === crc ? prev.at : null) : parseHttpDate(date);
  const seen: Seen = { id: cfg.remote.id, crc, outcome: 'unchanged', ignored: [], at: at === undefined ? null : at };
  const say = 'remote: document ' + crc;
  let change: AgentConfig | undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = undefined;
  }
  if (!isObj(doc)) seen.outcome = 'unreadable: ' + (doc === undefined ? 'not JSON' : 'not a JSON object');
  else {
    seen.ignored = takeOut(doc);
    // Merged over the saved form on flash (the running configuration's),
    // a document that changes nothing there needs no checker: a blank
    // device (the spec's {}), or the first document provision() wrote.
    let same = false;
    try {
      const saved = readText(files, 'config.json') || '{}';
      same = canonical(JSON.stringify(mergeOver(JSON.parse(saved) as Obj, doc))) === canonical(saved);
    } catch {
      same = false;
    }
    let m = same ? undefined : load<ConfigCodec>('check');
    if (m && !m.ok && x) {
      // No room beside the agent: the boot without it checks the document.
      const e = replaceFile(files, R.Pending, text) || replaceFile(files, R.Wait, '1');
      if (e) return void p.log.error(say + ': ' + m.error + '; ' + e + '; trying again at the next read');
      seen.outcome = R.PendingOutcome;
      replaceFile(files, R.Seen, JSON.stringify(seen));
      p.log.info(say + ': ' + m.error + '; restarting to check it without the agent');
      return void rt.restart('restart: to check a configuration from the service');
    }
    if (m && !m.ok) seen.outcome = 'unreadable: ' + m.error;
    else if (m) {
      let codec: ConfigCodec | undefined = m.value;
      const now = codec.text(cfg);
      const v = codec.check(mergeOver(JSON.parse(now) as Obj, doc));
      const rule = v.ok ? remoteRule(doc, v.config, text.length) : v.errors[0] + (v.errors.length > 1 ? ' (and ' + (v.errors.length - 1) + ' more)' : '');
      const next = v.ok ? codec.text(v.config) : now;
      // The checker goes before save() loads its own: the two never on the heap together.
      m = codec = undefined;
      if (rule) seen.outcome = 'refused: ' + rule;
      else if (v.ok && next !== now) {
        // On flash until it is settled: a power cut from here on leaves it to the next boot to finish.
        const e = (x && replaceFile(files, R.Pending, text)) || applyChange(rt, seen, v.config, next, !!x);
        if (e) return void p.log.error(say + ' not applied: ' + e + '; trying again at the next read');
        if (!x) change = v.config;
      }
    }
  }
  replaceFile(files, R.Seen, JSON.stringify(seen));
  if (x) x.seen = crc;
  if (!change) files.remove(R.Pending);
  const left = seen.ignored.length ? ' (left out: ' + seen.ignored.join(', ') + ')' : '';
  if (seen.outcome === 'applied') p.log.info(say + ' applied' + left + '; on trial until it delivers');
  else if (seen.outcome === 'unchanged') p.log.info(say + ': the running configuration already' + left);
  else p.log.error(say + ' ' + seen.outcome);
  return change;
}

/**
 * Reads the device through the uplink (x, client), or takes the kept
 * document (a boot without the agent: then the change to save, if any).
 */
export const pollRemote: PollRemote = function (rt, load, x, client) {
  const files = rt.p.files;
  if (!x || !client) {
    const t = readText(files, R.Pending);
    return t === undefined ? undefined : settle(rt, load, undefined, t, undefined);
  }
  const cfg = rt.config();
  const key = cfg.service.apiKey;
  // The period after an apply is over.
  files.remove(R.Wait);
  return client
    .call<string>({
      op: 'showdevicejson',
      segments: devSegments({ apiKey: key, deviceId: cfg.remote.id, devicePin: cfg.remote.pin }),
      secrets: [key],
      read: (body) => ({ ok: true, value: canonical(body), note: '' }),
    })
    .then((r): WriteOutcome => {
      if (x.off) return r;
      // Not read now: again after the backoff.
      if (r.kind === 'retry') x.due = true;
      else if (r.kind !== 'ok') {
        // Refused (the device or its PIN): said once, kept until it reads again.
        const why = 'unreadable: ' + r.reason;
        if (x.seen !== why) {
          x.seen = why;
          const prev = readSeen(files);
          if (!prev || prev.id !== cfg.remote.id || prev.outcome !== why) {
            rt.p.log.error('remote: device ' + cfg.remote.id + ' not read: ' + r.reason);
            replaceFile(files, R.Seen, JSON.stringify({ id: cfg.remote.id, crc: null, outcome: why, ignored: [], at: null }));
          }
        }
      } else if (docCrc(r.value) !== x.seen) settle(rt, load, x, r.value, r.date);
      return r;
    });
};
