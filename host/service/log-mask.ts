// Masks credentials in a request path before it is logged, whatever its shape.
//
// A path of the shape the API serves (/api/<operation>/<params>, the right
// count) is masked by position: the key keeps its first four characters, a
// PIN or a password nothing, the rest (e-mail, device, value) stays readable.
// Any other path is not trusted to be what it looks like (//api/..., /api//...,
// /dashboard/../api/..., encoded or doubled slashes, backslashes, an operation
// in another case or percent-encoded ...): from the first segment that names
// 'api' or an operation, even inside other text or after decoding, every
// segment is masked. Anywhere, a segment holding something shaped like a key
// is masked too.

export interface MaskedOperation {
  params: number;
  /** Param positions holding a secret: 'key' keeps its first 4 characters, 'hide' nothing. */
  secret: Partial<Record<number, 'key' | 'hide'>>;
}

const MASK = '…';

/** Lower-cased and percent-decoded up to three times, leniently: how a prober might mean it. */
function loose(segment: string): string {
  let s = segment;
  for (let i = 0; i < 3 && s.includes('%'); i++) {
    s = s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return s.toLowerCase();
}

const hasSeparator = (s: string): boolean => s.includes('/') || s.includes('\\');
const keyShaped = (s: string): boolean => /[0-9a-f]{32}/.test(s);

/** The precise mask for a path of the API's own shape, or undefined when it is not one. */
function byPosition(seg: string[], ops: Record<string, MaskedOperation>): string | undefined {
  const name = seg[2] ?? '';
  const op = /^[A-Za-z]+$/.test(name) ? ops[name.toLowerCase()] : undefined;
  if (seg[0] !== '' || seg[1] !== 'api' || !op || seg.length !== 3 + op.params) return undefined;
  // An empty or dot segment shifts what each position holds: not this shape.
  if (seg.slice(3).some((s) => s === '' || loose(s) === '.' || loose(s) === '..')) return undefined;
  const out = seg.slice(0, 3);
  for (let i = 0; i < op.params; i++) {
    const s = seg[3 + i] as string;
    const l = loose(s);
    const kind = op.secret[i];
    if (kind === 'key') out.push(/^[0-9a-f]{32}$/.test(l) ? s.slice(0, 4) + MASK : MASK);
    else if (kind === 'hide' || hasSeparator(l) || keyShaped(l)) out.push(MASK);
    else out.push(s);
  }
  return out.join('/');
}

export function maskPath(path: string, ops: Record<string, MaskedOperation>): string {
  const seg = path.split('/');
  const precise = byPosition(seg, ops);
  if (precise !== undefined) return precise;
  const names = Object.keys(ops);
  const readings = seg.map(loose);
  const from = readings.findIndex((l) => l.includes('api') || names.some((n) => l.includes(n)));
  return seg
    .map((s, i) => {
      const l = readings[i] as string;
      if (s === '') return '';
      if (keyShaped(l)) return MASK;
      if (from < 0 || i < from) return s;
      if (i === from && (l === 'api' || ops[l] !== undefined) && !s.includes('%')) return s;
      return MASK;
    })
    .join('/');
}
