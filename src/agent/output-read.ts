// One read of an output's source and what it does to the output. Loaded per
// read and let go, so between reads only outputs.ts stays on the heap.
import type { OutputConfig } from '../config/types';
import type { Platform } from '../ports/ports';
import type { ServiceClient } from '../service/client';
import { devSegments, maskSecret } from '../service/client';
import { describeBody, errorSignal } from '../service/parse';
import type { WriteOutcome } from './uplink';
import type { OutputsInside, ReadSource, Slot } from './outputs';
import { show } from './outputs';

/**
 * The level `raw` asks for, or why it is refused. Strings are trimmed;
 * nothing is guessed: '1.0' is not a digital level, '50%' or '0x10' not a duty.
 */
export function levelOf(c: OutputConfig, raw: unknown): number | string {
  let t = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
  if (c.kind === 'digital') {
    if (t === true || t === 1 || t === '1' || t === 'on' || t === 'true') return 1;
    if (t === false || t === 0 || t === '0' || t === 'off' || t === 'false') return 0;
    return 'not 0/1, on/off or true/false';
  }
  // Number() alone would take '' as 0 and read hex, octal and binary.
  if (typeof t === 'string' && t && t.indexOf('x') < 0 && t.indexOf('o') < 0 && t.indexOf('b') < 0) t = Number(t);
  if (typeof t !== 'number' || !isFinite(t)) return 'not a number';
  const d = t / (c.scale || 1);
  return d >= 0 && d <= 1 ? d : 'duty ' + d + ' is outside 0..1';
}

/**
 * Reads `s`'s source over `client` and applies it: an accepted value sets
 * the output (a change only) and ends its failsafe; a failure or a refused
 * value is counted and logged when it differs from the last one, and the
 * output keeps its level. Then the outputs' timer is set again. Nothing of
 * this is kept after it returns.
 */
export const readSource: ReadSource = async function (x: OutputsInside, s: Slot, p: Pick<Platform, 'clock' | 'log'>, client: Pick<ServiceClient, 'call'>, key: string): Promise<WriteOutcome> {
  const c = s.c;
  const r = await client.call({
    op: c.field ? 'showdevicejson' : 'showdevicevalue',
    segments: devSegments({ apiKey: key, deviceId: c.sourceId, devicePin: c.sourcePin }),
    secrets: [key],
    // A Value device's text unless it reads as an error (the spec's rule); a
    // JSON device's field, `a.b` walking nested objects.
    read(body) {
      const t = body.trim();
      const f = c.field;
      if (!f) {
        const e = errorSignal(t);
        return e ? { ok: false, error: e, note: describeBody(body) } : { ok: true, value: t, note: '' };
      }
      let v: unknown;
      try {
        v = JSON.parse(t || '{}');
      } catch {
        return { ok: false, error: 'invalid JSON', note: describeBody(body) };
      }
      // The whole name first: an I2C part's reading is written as 'air.temperature'.
      const o = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
      if (o && Object.prototype.hasOwnProperty.call(o, f)) return { ok: true, value: o[f], note: '' };
      const path = f.split('.');
      for (let i = 0; i < path.length; i++) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[path[i] as string] : undefined;
      return { ok: true, value: v, note: '' };
    },
  });
  // Stopped meanwhile: the pins are closed.
  if (x.off) return r;
  if (r.kind !== 'ok') {
    s.failures++;
    // Logged only when it changes: a source down for an hour logs once.
    if (r.reason !== s.lastError) p.log.error('output ' + c.name + ': source not read: ' + r.reason);
    s.lastError = r.reason;
  } else {
    s.reads++;
    const v = levelOf(c, r.value);
    if (typeof v === 'number') {
      s.goodAt = p.clock.uptimeMs();
      s.safe = false;
      x.drive(s, v, 'source ' + c.sourceId);
    } else {
      s.refused++;
      // As JSON (one line); anything longer than a short word masked: it could be a key.
      const raw = r.value;
      let what = 'no field ' + c.field;
      if (raw !== undefined) {
        what = JSON.stringify(raw);
        if (what.length > 13) what = maskSecret(what);
      }
      const e = 'refused ' + what + ': ' + v;
      if (e !== s.lastError) p.log.error('output ' + c.name + ': ' + e + '; keeping ' + show(c, s.level));
      s.lastError = e;
    }
  }
  x.arm();
  return r;
};
