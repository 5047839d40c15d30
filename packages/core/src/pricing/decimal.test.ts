import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ceilTimes, compareDecimal, formatDecimal, maxDecimal, parseDecimal } from './decimal.js';

describe('parseDecimal', () => {
  it.each([
    ['3', 3n, 0],
    ['0.30', 3n, 1],
    ['22.50', 225n, 1],
    ['3.75', 375n, 2],
    ['0', 0n, 0],
    ['0.000', 0n, 0],
    ['007.5', 75n, 1],
    ['0.000000001', 1n, 9],
    ['123456789012345678901234567890.1', 1234567890123456789012345678901n, 1],
  ])('string %s', (text, units, scale) => {
    expect(parseDecimal(text)).toEqual({ units, scale });
  });

  it.each([
    [0.3, '0.3'],
    [0.1, '0.1'],
    [3.75, '3.75'],
    [15, '15'],
    [1e-7, '0.0000001'],
    [2.5e-10, '0.00000000025'],
    [1.5e21, '1500000000000000000000'],
    [-0, '0'],
  ])('number %s goes through its shortest decimal string', (n, text) => {
    const d = parseDecimal(n);
    expect(d).toBeDefined();
    expect(formatDecimal(d!)).toBe(text);
  });

  it.each(['-1', '+1', '1e3', '1.', '.5', ' 1', '1 ', '', '1,5', 'NaN', '0x10', '١'])('rejects the string %j', (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });

  it.each([-1, -0.1, Number.NaN, Number.POSITIVE_INFINITY, null, undefined, {}, 1n])('rejects %s', (value) => {
    expect(parseDecimal(value)).toBeUndefined();
  });

  it('round-trips every number through its shortest decimal string', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(Number(formatDecimal(parseDecimal(n)!))).toBe(n);
      }),
    );
  });
});

describe('decimal arithmetic', () => {
  const d = (text: string) => parseDecimal(text)!;

  it('compares across scales', () => {
    expect(compareDecimal(d('0.30'), d('0.3'))).toBe(0);
    expect(compareDecimal(d('3.75'), d('6'))).toBe(-1);
    expect(compareDecimal(d('22.5'), d('22.49999999'))).toBe(1);
    expect(formatDecimal(maxDecimal(d('3'), d('3.75'), d('0.3')))).toBe('3.75');
  });

  it('ceilTimes is exact', () => {
    expect(ceilTimes(3n, d('0.1'))).toBe(1n); // 0.3 → 1
    expect(ceilTimes(10n, d('0.1'))).toBe(1n); // exactly 1, not 1.0000000000000002 → 2
    expect(ceilTimes(30n, d('3.75'))).toBe(113n); // 112.5 → 113
    expect(ceilTimes(400n, d('0.30'))).toBe(120n);
    expect(ceilTimes(0n, d('3'))).toBe(0n);
    expect(ceilTimes(7n, d('0'))).toBe(0n);
  });

  it('ceilTimes agrees with exact rational arithmetic', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 6n }), fc.integer({ min: 0, max: 12 }), (tokens, units, scale) => {
        const got = ceilTimes(tokens, { units, scale });
        const den = 10n ** BigInt(scale);
        expect(got * den >= tokens * units).toBe(true);
        expect((got - 1n) * den < tokens * units || got === 0n).toBe(true);
      }),
    );
  });
});
