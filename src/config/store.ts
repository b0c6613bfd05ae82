// The configuration on flash, written to a .tmp file and renamed so a power
// cut leaves the old or the new file; a broken file boots on defaults.
// The checker is cold code, so 'config.ok' keeps the checked configuration
// under the line `<crc32 of config.json> <checker id> <crc32 of the JSON>`:
// a file changed behind the board's back, or another checker, is checked again.

import type { FileStore, Log } from '../ports/ports';
import { crc32 } from '../queue/crc32';
import { decodeUtf8 } from '../utf8';
import { defaultConfig } from './defaults';
import type { AgentConfig } from './types';

/** What checking a saved file gives (src/config/validate.ts). */
export type Validated = { ok: true; config: AgentConfig } | { ok: false; errors: string[] };

/** The checker, and the saved (console) form of a configuration. */
export interface ConfigCodec {
  check(raw: unknown): Validated;
  text(c: AgentConfig): string;
}

/** The checker, or why it is unavailable; undefined: not now (load() then reports the file as unchecked). */
export type CodecSource = () => ConfigCodec | string | undefined;

export interface LoadedConfig {
  config: AgentConfig;
  source: 'file' | 'defaults';
  /** What is wrong with the saved file: the agent then runs the console only. */
  errors: string[];
  /** The saved file needs the checker, which was not to be loaded now: load() again later. */
  unchecked?: true;
}

export interface ConfigStore {
  load(): LoadedConfig;
  /** An error line on I/O failure, else undefined. */
  save(config: AgentConfig): string | undefined;
  /** Writes only when different from the stored copy, to spare flash. */
  saveLastKnownGood(config: AgentConfig): string | undefined;
  loadLastKnownGood(): AgentConfig | undefined;
}

/** Bytes read at a time when checking the last-known-good copy (a const enum: no binding on the heap). */
const enum K {
  LkgWindow = 512,
}
// Kaluma's storage keys are never read here: on Kaluma 1.2.1 every storage read
// overruns the C heap (docs/architecture.md, The ports and the runtime's defects).
export function createConfigStore(o: { files: FileStore; codec: CodecSource; checker: string; log?: Log; path?: string }): ConfigStore {
  const path = o.path || 'config.json';
  const base = path.replace(/\.json$/, '');
  const okPath = base + '.ok';
  const lkgPath = base + '.lkg.json';
  const { files } = o;
  // Which saved text is the running one (0 none, one more per load or save);
  // the text itself stays on flash, not on every running agent's heap.
  let current = 0;

  /** The configuration (and which saved text) last known to be the last-known-good copy on flash. */
  let lkgOf: AgentConfig | undefined;
  let lkgSaved = 0;

  // Helpers used once are written in place: a function each would stay on the heap with the store.

  /** Replaces p by the UTF-8 of `s`, followed by `more` and `last` when given (written as they are, with no copy of the whole). */
  const writeAtomic = (p: string, s: string, more?: Uint8Array, last?: Uint8Array): string | undefined => {
    const tmp = p + '.tmp';
    try {
      files.write(tmp, new TextEncoder().encode(s));
      if (more) files.append(tmp, more);
      if (last) files.append(tmp, last);
      files.rename(tmp, p);
      return undefined;
    } catch (e) {
      try {
        files.remove(tmp);
      } catch {
        // The next save overwrites the leftover anyway.
      }
      return p + ': not saved (' + (e instanceof Error ? e.message : String(e)) + ')';
    }
  };

  const stampOf = (saved: Uint8Array): string => crc32(saved, 0, saved.length).toString(16) + ' ' + o.checker;

  /** Records `config` as the checked form of the saved bytes. */
  const writeOk = (saved: Uint8Array, config: AgentConfig): string | undefined => {
    const json = JSON.stringify(config);
    const b = new TextEncoder().encode(json);
    return writeAtomic(okPath, stampOf(saved) + ' ' + crc32(b, 0, b.length).toString(16) + '\n' + json);
  };

  /** Writes both files for `config`, whose saved form is `text`. */
  const store = (text: string, config: AgentConfig): string | undefined => {
    const e = writeAtomic(path, text) || writeOk(new TextEncoder().encode(text), config);
    if (!e) current++;
    return e;
  };

  return {
    load() {
      const errors: string[] = [];
      let config: AgentConfig | undefined;
      let saved: Uint8Array | undefined;
      try {
        saved = files.read(path);
      } catch (e) {
        errors.push(path + ': unreadable (' + (e instanceof Error ? e.message : String(e)) + ')');
      }
      const text = saved && decodeUtf8(saved);
      if (saved && text === undefined) errors.push(path + ': not UTF-8 text');
      if (saved && text !== undefined) {
        // The boot path: the CRC runs over the bytes as read; only the JSON is decoded.
        try {
          const b = files.read(okPath);
          const nl = b === undefined ? -1 : b.indexOf(10);
          if (b !== undefined && nl >= 0 && decodeUtf8(b.subarray(0, nl)) === stampOf(saved) + ' ' + crc32(b, nl + 1, b.length).toString(16)) {
            const json = decodeUtf8(b.subarray(nl + 1));
            if (json !== undefined) config = JSON.parse(json) as AgentConfig;
          }
        } catch {
          config = undefined;
        }
        const codec = config ? undefined : o.codec();
        if (!config && !codec) return { config: defaultConfig(), source: 'defaults', errors, unchecked: true };
        if (!config && codec) {
          if (typeof codec === 'string') errors.push(path + ': not checked yet, and the checker is unavailable (' + codec + ')');
          else {
            let raw: unknown;
            try {
              raw = JSON.parse(text);
            } catch (e) {
              errors.push(path + ': unreadable or not JSON (' + (e instanceof Error ? e.message : String(e)) + ')');
            }
            const r = raw === undefined ? undefined : codec.check(raw);
            if (r && r.ok) {
              config = r.config;
              // Not fatal: the file is checked again at the next boot.
              const e = writeOk(saved, config);
              if (e && o.log) o.log.error('config: ' + e);
            } else if (r) for (const e of r.errors) errors.push(e);
          }
        }
        if (config) current++;
      }
      const source = config ? 'file' : 'defaults';
      if (o.log) {
        if (saved && source === 'defaults') o.log.error('config: ' + path + ' is invalid; running on defaults until fixed');
        for (const e of errors) o.log.error('config: ' + e);
      }
      return { config: config || defaultConfig(), source, errors };
    },
    save(c) {
      const codec = o.codec();
      if (!codec || typeof codec === 'string') return path + ': not saved (' + (codec || 'the checker is not available yet') + ')';
      // What is kept as checked is what a boot would make of the saved text.
      const text = codec.text(c);
      const r = codec.check(JSON.parse(text));
      return r.ok ? store(text, r.config) : path + ': not saved (' + r.errors.join('; ') + ')';
    },
    saveLastKnownGood(c) {
      // Asked after every delivery: nothing is made again once on flash. The
      // copy is written in parts, with no string of the whole on the heap:
      //   {"stamp":"<n> <crc>","saved":<the n saved bytes>,"config":<JSON>}
      // where crc covers everything after the stamp's part.
      if (!current || (c === lkgOf && current === lkgSaved)) return undefined;
      let saved: Uint8Array | undefined;
      try {
        saved = files.read(path);
      } catch {
        saved = undefined;
      }
      if (!saved) return path + ': unreadable; no last-known-good copy made';
      const tail = new TextEncoder().encode(',"config":' + JSON.stringify(c) + '}');
      const crc = crc32(tail, 0, tail.length, crc32(saved, 0, saved.length));
      const head = '{"stamp":"' + saved.length + ' ' + crc.toString(16) + '","saved":';
      const size = head.length + saved.length + tail.length;
      // The same copy is on flash when its stamp, size and CRC say so.
      let same = false;
      try {
        if (files.size(lkgPath) === size && decodeUtf8(files.readAt(lkgPath, 0, head.length)) === head) {
          let got = 0;
          for (let at = head.length; at < size; at += K.LkgWindow) {
            const w = files.readAt(lkgPath, at, K.LkgWindow);
            got = crc32(w, 0, w.length, got);
          }
          same = got === crc;
        }
      } catch {
        same = false;
      }
      const e = same ? undefined : writeAtomic(lkgPath, head, saved, tail);
      if (!e) {
        lkgOf = c;
        lkgSaved = current;
      }
      return e;
    },
    loadLastKnownGood() {
      try {
        const b = files.read(lkgPath);
        const got = b && (JSON.parse(decodeUtf8(b) || '') as { stamp?: unknown; saved?: unknown; config?: AgentConfig });
        if (!b || !got || !got.config || !Array.isArray(got.config.devices) || typeof got.config.agent !== 'object') return undefined;
        // The saved bytes follow the stamp (a copy made before stamps holds a string).
        let saved = got.saved;
        if (typeof got.stamp === 'string') {
          const at = 20 + got.stamp.length;
          const sp = got.stamp.indexOf(' ');
          if (crc32(b, at, b.length) !== parseInt(got.stamp.slice(sp + 1), 16)) return undefined;
          saved = decodeUtf8(b.subarray(at, at + parseInt(got.stamp, 10)));
        }
        if (typeof saved !== 'string') return undefined;
        // A copy an earlier firmware made knows no outputs, nor a configuration's device: it had none.
        if (!Array.isArray(got.config.outputs)) got.config.outputs = [];
        if (!got.config.remote) got.config.remote = { id: 0, pin: 0, pollMs: 900000 };
        // Going back puts its saved form back too, checked as it was.
        return store(saved, got.config) ? undefined : got.config;
      } catch {
        return undefined;
      }
    },
  };
}
