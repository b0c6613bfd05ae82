// Adds the wall-clock time to a payload at send time, so readings taken before
// the clock was known leave dated. The encoders leave room for ts last in a
// JSON object and on the XML root element.
import type { DataFormat } from '../model';

export function stampPayload(format: DataFormat, payload: string, wallMs: number | undefined): string {
  if (wallMs === undefined || format === 'Value') return payload;
  if (format === 'JSON') {
    if (payload.indexOf('"ts":') >= 0 || payload.charAt(payload.length - 1) !== '}') return payload;
    return payload.slice(0, -1) + ',"ts":"' + new Date(wallMs).toISOString() + '"}';
  }
  const end = payload.indexOf('>');
  if (end < 0 || payload.slice(0, end).indexOf(' ts=') >= 0) return payload;
  const at = payload.charAt(end - 1) === '/' ? end - 1 : end;
  return payload.slice(0, at) + ' ts="' + new Date(wallMs).toISOString() + '"' + payload.slice(at);
}
