import type { AnalogIn } from '../ports/ports';

/**
 * Mean of `count` ADC reads, or undefined as soon as one read is NaN or
 * outside [0, 1]: a broken read must not be averaged into a plausible value.
 */
export function readMeanFraction(input: AnalogIn, count: number): number | undefined {
  const n = count >= 1 ? Math.floor(count) : 1;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const f = input.readFraction();
    if (!(f >= 0 && f <= 1)) return undefined;
    sum += f;
  }
  return sum / n;
}
