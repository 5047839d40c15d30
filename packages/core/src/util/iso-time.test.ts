import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('writes what Date#toISOString writes', () => {
    const samples = [0, -0, 0.5, -0.5, 1, 9, 10, 99, 100, 999, 999.9, 1000, 1_764_646_274_000, 1_764_646_274_007, 1_764_646_274_070, 1_764_646_274_700];
    samples.push(253_402_300_799_999, 253_402_300_800_000, -1, -62_198_755_200_001, 8.64e15);
    let x = 12345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      // Spread over the years and, every other one, a run of close instants (the cached second).
      samples.push(i % 2 === 0 ? (x / 2 ** 31) * 4e14 : 1_764_646_274_000 + (x % 3000) + (x % 7) / 7);
    }
    for (const ms of samples) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws as Date does for an instant that is no time', () => {
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) {
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });
});
