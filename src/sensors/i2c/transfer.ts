// The drivers' one bus step (one function, not two: each costs heap in every
// driver that carries it). A failure, or an answer shorter than asked, comes
// back as one line saying what was being done ('reading trimming: no
// answer'), for the glue to log and count as it is.
import type { I2cTransfers } from '../../ports/ports';

/**
 * Writes `bytes` when given, then reads `length` bytes unless it is 0: the
 * bytes read (undefined for a write alone), or why not.
 */
export function transfer(bus: I2cTransfers, addr: number, doing: string, bytes: number[] | undefined, length: 0): string | undefined;
export function transfer(bus: I2cTransfers, addr: number, doing: string, bytes: number[] | undefined, length: number): Uint8Array | string;
export function transfer(bus: I2cTransfers, addr: number, doing: string, bytes: number[] | undefined, length: number): Uint8Array | string | undefined {
  const w = bytes && bus.write(addr, bytes);
  if (w !== undefined) return doing + ': ' + w;
  if (!length) return undefined;
  const r = bus.read(addr, length);
  if (typeof r === 'string') return doing + ': ' + r;
  return r.length < length ? doing + ': ' + r.length + ' of ' + length + ' bytes' : r;
}
