// The console form of a value, also how filters and points are saved.
import type { Field } from './schema';
import { FILTER_PARAMS, T, mask } from './schema';
import type { FilterSpec } from './types';

/**
 * A device's PIN (device.*.pin, health.pin, output.*.sourcePin): with the
 * key, it reads and writes the device's data. A later key ending in '.pin'
 * or 'Pin' is taken for one too; only the GPIO numbers (sensor.*.pin,
 * output.*.pin) are not PINs.
 */
function isDevicePin(f: Field): boolean {
  const k = f.key_;
  if (k.slice(-3) === 'Pin') return true;
  return k.slice(-4) === '.pin' && k !== 'sensor.*.pin' && k !== 'output.*.pin';
}

/**
 * The console form of a value: 'median:5,ewma:0.3', '0:0,3.3:100', 'temp,hum'.
 * A password shows only whether it is set, a PIN only whether it differs
 * from its default (health.pin 0: no health device); another secret its
 * first characters and its length.
 */
export function formatValue(f: Field, v: unknown): string {
  if (f.password_) return v ? '(set)' : '(unset)';
  if (isDevicePin(f)) return v === f.default_ ? '(unset)' : '***';
  if (f.secret_) return mask(String(v));
  const s = plain(f, v);
  return s === '' ? "''" : s;
}

function plain(f: Field, v: unknown): string {
  if (f.type_ === T.Filters) {
    return (v as FilterSpec[])
      .map((s) => {
        const o = s as unknown as Record<string, unknown>;
        return [s.type as string].concat((FILTER_PARAMS[s.type] || []).map((p) => String(o[p]))).join(':');
      })
      .join(',');
  }
  if (f.type_ === T.Points) return (v as number[][]).map((p) => p.join(':')).join(',');
  if (f.type_ === T.Names) return (v as string[]).join(',');
  return String(v);
}

