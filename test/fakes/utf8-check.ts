// Node's own answer to "is this well-formed UTF-8", for fakes that stand in
// for Kaluma's decoder (no vitest here: the bench uses it too).

/** Well-formed exactly when decoding and encoding again gives the same bytes. */
export function wellFormed(b: Uint8Array): boolean {
  return Buffer.from(Buffer.from(b).toString('utf8'), 'utf8').equals(Buffer.from(b));
}

export const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
