// Kaluma 1.2.1's TextDecoder writes past its string on bytes that are not
// well-formed UTF-8 (docs/architecture.md, The ports and the runtime's defects), where Node's quietly puts
// U+FFFD in. engineDecoder() makes Node's decoder fail the test instead, for
// the rest of the current test, so code that would crash the board fails here.
import { onTestFinished, vi } from 'vitest';

import { hex, wellFormed } from './utf8-check';

export { hex, wellFormed };

/**
 * Until the test ends, TextDecoder#decode throws on malformed input, and the
 * test fails at its end even when the code under test caught that throw.
 * Returns the hex of every input the decoder saw.
 */
export function engineDecoder(): string[] {
  const seen: string[] = [];
  const bad: string[] = [];
  const real = Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'decode')!.value as TextDecoder['decode'];
  const spy = vi.spyOn(TextDecoder.prototype, 'decode').mockImplementation(function (this: TextDecoder, input?: AllowSharedBufferSource) {
    const b = input as Uint8Array;
    seen.push(hex(b));
    if (wellFormed(b)) return real.call(this, input);
    bad.push(hex(b));
    throw new Error('the engine would corrupt its heap: TextDecoder#decode(' + hex(b) + ')');
  });
  onTestFinished(() => {
    spy.mockRestore();
    if (bad.length) throw new Error('TextDecoder#decode got bytes that are not UTF-8: ' + bad.join(' | '));
  });
  return seen;
}
