// What a new document of the configuration's device does (the cold module
// 'remote-apply', loaded only when a read found a document not seen before,
// and let go once it is settled; src/agent/remote-read.ts is the read).
//
// A new document is merged over the running configuration's saved form
// (the nested shape of flash.sh --config), without the keys never taken
// from the service, checked by save()'s checker and, when valid and
// different, saved as a change on trial: the last-known-good rule reverts
// it if it delivers nothing for agent.lkgRevertMs. The checker is loaded
// only when the merge changes something; when it has no room beside the
// running agent, the document is kept on flash and the board restarts into
// a boot without the agent that checks it (src/runtime.ts). Every outcome
// is kept with the document's CRC (remote.seen), so a document is acted on,
// and its error logged, once.
import type { ConfigCodec } from '../config/store';
import type { AgentConfig } from '../config/types';
import { parseHttpDate } from '../service/http-date';
import type { LoadCold } from './outputs';
import type { ApplyRemote, RemoteJob, RemoteRt } from './remote';
import { R, canonical, crcHex, docCrc, isObj, noteSource, readSeen, readText, replaceFile } from './remote-state';
import type { Seen } from './remote-state';

type Obj = Record<string, unknown>;

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
 * No room for the checker beside the agent (`why`): the document is kept on
 * flash and the board restarts into a boot without the agent that checks it.
 */
function keep(rt: RemoteRt, seen: Seen, text: string, why: string): void {
  const files = rt.p.files;
  const e = replaceFile(files, R.Pending, text) || replaceFile(files, R.Wait, '1');
  if (e) return rt.p.log.error(why + '; ' + e + '; trying again at the next read');
  seen.outcome = R.PendingOutcome;
  replaceFile(files, R.Seen, JSON.stringify(seen));
  rt.p.log.info(why + '; restarting to check it without the agent');
  rt.restart('restart: to check a configuration from the service');
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
    if (m && !m.ok && x) return void keep(rt, seen, text, say + ': ' + m.error);
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
 * With `x` (the running agent's poll, src/agent/remote-read.ts): settles
 * the document `text` it read. Without: the document a restart kept for
 * this boot without the agent; the change to save, if any.
 */
export const applyRemote: ApplyRemote = function (rt, load, x, text, date) {
  if (x) return void settle(rt, load, x, text as string, date);
  const t = readText(rt.p.files, R.Pending);
  return t === undefined ? undefined : settle(rt, load, undefined, t, undefined);
};
