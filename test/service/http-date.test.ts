import { describe, expect, it } from 'vitest';
import { parseHttpDate, parseRetryAfter } from '../../src/service/http-date';

describe('parseHttpDate', () => {
  it('parses IMF-fixdate', () => {
    expect(parseHttpDate('Sun, 22 Nov 2026 08:05:00 GMT')).toBe(Date.UTC(2026, 10, 22, 8, 5, 0));
    expect(parseHttpDate('Thu, 01 Jan 1970 00:00:01 GMT')).toBe(1000);
  });

  it.each(['22 Nov 2026 08:05:00 GMT', 'Sun, 22 Foo 2026 08:05:00 GMT', 'Sun, 22 Nov 2026 25:05:00 GMT', 'Sun, 00 Nov 2026 08:05:00 GMT', 'Sun, 22 Nov 2026 08:05:00 UTC', ''])(
    'rejects %j',
    (s) => {
      expect(parseHttpDate(s)).toBeUndefined();
    },
  );
});

describe('parseRetryAfter', () => {
  const date = 'Sun, 22 Nov 2026 08:05:00 GMT';
  it('takes seconds', () => {
    expect(parseRetryAfter('120', undefined)).toBe(120000);
    expect(parseRetryAfter(' 0 ', undefined)).toBe(0);
  });
  it('caps at one hour', () => {
    expect(parseRetryAfter('86400', undefined)).toBe(3600000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 08:05:00 GMT', date)).toBe(3600000);
  });
  it('measures a date against the Date header', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:06:30 GMT', date)).toBe(90000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:04:00 GMT', date)).toBe(0);
  });
  it('gives undefined when it cannot tell', () => {
    expect(parseRetryAfter(undefined, date)).toBeUndefined();
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:06:30 GMT', undefined)).toBeUndefined();
    expect(parseRetryAfter('-5', date)).toBeUndefined();
    expect(parseRetryAfter('soon', date)).toBeUndefined();
  });
});
