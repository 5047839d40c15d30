import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMicros, parseUsdMicros } from './index.js';

describe('exact USD parsing', () => {
  it.each([
    ['90', 90_000_000],
    ['12.5', 12_500_000],
    ['0.000001', 1],
    ['0.30', 300_000],
    ['0', 0],
    ['100.123456', 100_123_456],
    ['9007199254.740991', 9_007_199_254_740_991],
  ])('%s USD is %i micros', (s, micros) => {
    expect(parseUsdMicros(s)).toBe(micros);
  });

  it.each(['-1', '1.0000001', '1e3', ' 1', '1 ', '', '.5', '5.', '01', '+1', '0x10', 'NaN', '9007199254.740992'])('rejects %j', (s) => {
    expect(parseUsdMicros(s)).toBeUndefined();
  });

  it('formats micros back to the shortest exact string', () => {
    expect(formatMicros(12_500_000)).toBe('12.5');
    expect(formatMicros(1)).toBe('0.000001');
    expect(formatMicros(90_000_000)).toBe('90');
  });

  it('round-trips every integer amount', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (m) => parseUsdMicros(formatMicros(m)) === m));
  });

  it('agrees with integer arithmetic on whole and fractional parts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_000_000 }), fc.integer({ min: 0, max: 999_999 }), (whole, frac) => {
        const s = `${whole}.${String(frac).padStart(6, '0')}`;
        return parseUsdMicros(s) === whole * 1_000_000 + frac;
      }),
    );
  });
});
