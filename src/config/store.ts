// The configuration on flash. Writes go to '<path>.tmp' and are renamed over
// the file (atomic on LittleFS), so a power cut leaves the old or the new
// file, never half of one. A missing or broken file never stops the boot:
// the agent starts on defaults with the console, and the errors say why.

import type { FileStore, Log } from '../ports/ports';
import { decodeUtf8 } from '../utf8';
import { toSaved } from './saved';
import type { AgentConfig } from './types';
import { defaultConfig, validateConfig } from './validate';

export interface LoadedConfig {
  config: AgentConfig;
  source: 'file' | 'defaults';
  /** What is wrong with the saved file: the agent then runs the console only. */
  errors: string[];
}

export interface ConfigStore {
  load(): LoadedConfig;
  /** An error line on I/O failure, else undefined. */
  save(config: AgentConfig): string | undefined;
  /** Writes only when different from the stored copy, to spare flash. */
  saveLastKnownGood(config: AgentConfig): string | undefined;
  loadLastKnownGood(): AgentConfig | undefined;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

// Kaluma's storage keys (WIFI_SSID, ...) are never read here: on the board
// every storage read overruns the C heap, so they are imported once, by a
// person, with the console's importWifi().
export function createConfigStore(o: { files: FileStore; log?: Log; path?: string }): ConfigStore {
  const path = o.path || 'config.json';
  const lkgPath = path.replace(/\.json$/, '') + '.lkg.json';
  const { files } = o;

  const text = (c: AgentConfig): string => JSON.stringify(toSaved(c), null, 2) + '\n';

  /** The file's JSON, undefined when missing, or a one-line reason. */
  const readJson = (p: string): { raw: unknown } | { error: string } | undefined => {
    try {
      const bytes = files.read(p);
      if (bytes === undefined) return undefined;
      const s = decodeUtf8(bytes);
      if (s === undefined) return { error: p + ': not UTF-8 text' };
      return { raw: JSON.parse(s) as unknown };
    } catch (e) {
      return { error: p + ': unreadable or not JSON (' + message(e) + ')' };
    }
  };

  const writeAtomic = (p: string, s: string): string | undefined => {
    const tmp = p + '.tmp';
    try {
      files.write(tmp, new TextEncoder().encode(s));
      files.rename(tmp, p);
      return undefined;
    } catch (e) {
      try {
        files.remove(tmp);
      } catch {
        // The next save overwrites the leftover anyway.
      }
      return p + ': not saved (' + message(e) + ')';
    }
  };

  return {
    load() {
      const errors: string[] = [];
      let config: AgentConfig | undefined;
      const got = readJson(path);
      if (got && 'error' in got) errors.push(got.error);
      if (got && 'raw' in got) {
        const r = validateConfig(got.raw);
        if (r.ok) config = r.config;
        else for (const e of r.errors) errors.push(e);
      }
      const source = config ? 'file' : 'defaults';
      if (o.log) {
        if (got && source === 'defaults') o.log.error('config: ' + path + ' is invalid; running on defaults until fixed');
        for (const e of errors) o.log.error('config: ' + e);
      }
      return { config: config || defaultConfig(), source, errors };
    },
    save: (c) => writeAtomic(path, text(c)),
    saveLastKnownGood(c) {
      const s = text(c);
      let stored: string | undefined;
      try {
        const bytes = files.read(lkgPath);
        stored = bytes && decodeUtf8(bytes);
      } catch {
        stored = undefined;
      }
      return s === stored ? undefined : writeAtomic(lkgPath, s);
    },
    loadLastKnownGood() {
      const got = readJson(lkgPath);
      if (!got || 'error' in got) return undefined;
      const r = validateConfig(got.raw);
      return r.ok ? r.config : undefined;
    },
  };
}
