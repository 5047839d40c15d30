import { describe, expect, it } from 'vitest';
import type { Usage } from '@tollgate/codecs';
import { parsePricing } from './parse-pricing.js';
import { priceUsage, toNumber } from './price-usage.js';
import type { PricingInput } from './types.js';

const usage = (u: Partial<Usage>): Usage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  measured: true,
  ...u,
});

const sonnet: PricingInput = {
  unit: 'usd_per_mtok',
  input: '3',
  output: '15',
  cache_read: '0.30',
  cache_write: '3.75',
  cache_write_1h: '6',
  threshold_tokens: 200000,
  long: { input: '6', output: '22.50', cache_read: '0.60', cache_write: '7.50', cache_write_1h: '12' },
};

describe('priceUsage', () => {
  it('reproduces the usage-record example of docs/usage-records.md', () => {
    expect(priceUsage(sonnet, usage({ input: 120, output: 57, cacheRead: 400, cacheWrite: 30 }))).toEqual({
      input: 360,
      output: 855,
      cache_read: 120,
      cache_write: 113,
      cache_write_1h: 0,
      total: 1448,
    });
  });

  it('accepts parsed pricing and file-shaped pricing alike', () => {
    const u = usage({ input: 1000, output: 10, cacheWrite1h: 5 });
    expect(priceUsage(parsePricing(sonnet)!, u)).toEqual(priceUsage(sonnet, u));
  });

  it('rounds each component up, and total is the sum of the rounded components', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '0.1', output: '0.1', cache_read: '0.1', cache_write: '0.1', cache_write_1h: '0.1' };
    expect(priceUsage(p, usage({ input: 1, output: 1, cacheRead: 1, cacheWrite: 1, cacheWrite1h: 1 }))).toEqual({
      input: 1,
      output: 1,
      cache_read: 1,
      cache_write: 1,
      cache_write_1h: 1,
      total: 5, // not ⌈0.5⌉ = 1
    });
  });

  it('is exact where floats are not: 3 tokens at "0.1" and 10 at 0.1', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '0.1', output: 0.1 };
    // 3 × 0.1 = 0.30000000000000004 in floats; exactly 0.3 → 1.
    expect(priceUsage(p, usage({ input: 3 })).input).toBe(1);
    // 10 × 0.1 is exactly 1 micro-USD (a float ceil of 1.0000000000000002 would give 2).
    expect(priceUsage(p, usage({ output: 10 })).output).toBe(1);
    expect(priceUsage(p, usage({ input: 30, output: 30 }))).toMatchObject({ input: 3, output: 3, total: 6 });
  });

  it('prices 3.75 exactly', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '3.75', output: '3.75' };
    expect(priceUsage(p, usage({ input: 4, output: 2 }))).toMatchObject({ input: 15, output: 8, total: 23 });
    expect(priceUsage(p, usage({ input: 1_000_000 })).input).toBe(3_750_000);
  });

  it('switches to the long tier when prompt tokens exceed the threshold', () => {
    const at = usage({ input: 199_000, cacheRead: 500, cacheWrite: 300, cacheWrite1h: 200, output: 100 });
    expect(priceUsage(sonnet, at)).toEqual({ input: 597_000, output: 1_500, cache_read: 150, cache_write: 1_125, cache_write_1h: 1_200, total: 600_975 });
    const above = usage({ input: 199_000, cacheRead: 500, cacheWrite: 300, cacheWrite1h: 201, output: 100 });
    expect(priceUsage(sonnet, above)).toEqual({
      input: 1_194_000,
      output: 2_250,
      cache_read: 300,
      cache_write: 2_250,
      cache_write_1h: 2_412,
      total: 1_201_212,
    });
  });

  it('counts 1-hour cache writes toward the threshold', () => {
    const u = usage({ input: 1, cacheWrite1h: 200_000 });
    expect(priceUsage(sonnet, u).input).toBe(6);
  });

  it('falls back to the base rate for kinds the long tier does not name', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '1.25', output: '10', threshold_tokens: 10, long: { input: '2.50', output: '15' } };
    expect(priceUsage(p, usage({ input: 11, output: 1 }))).toMatchObject({ input: 28, output: 15 });
  });

  it('charges unnamed cache rates at the input rate (1-hour writes at the cache-write rate)', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '2', output: '8', cache_write: '2.5' };
    expect(priceUsage(p, usage({ cacheRead: 1000, cacheWrite: 1000, cacheWrite1h: 1000 }))).toMatchObject({
      cache_read: 2000,
      cache_write: 2500,
      cache_write_1h: 2500,
    });
  });

  it('does not price reasoning tokens again (they are part of output)', () => {
    expect(priceUsage(sonnet, usage({ output: 100, reasoning: 80 })).total).toBe(1500);
  });

  it('prices zero usage at zero', () => {
    expect(priceUsage(sonnet, usage({})).total).toBe(0);
  });

  it('rejects negative or non-finite token counts and invalid pricing', () => {
    expect(() => priceUsage(sonnet, usage({ input: -1 }))).toThrow(RangeError);
    expect(() => priceUsage(sonnet, usage({ output: Number.NaN }))).toThrow(RangeError);
    expect(() => priceUsage({ unit: 'usd_per_mtok', input: '-1', output: '1' }, usage({}))).toThrow(TypeError);
  });
});

describe('toNumber', () => {
  it('keeps amounts up to 2^53 - 1 micro-USD exact and refuses larger ones', () => {
    expect(toNumber(0n)).toBe(0);
    expect(toNumber(9_007_199_254_740_991n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toNumber(9_007_199_254_740_992n)).toThrow(RangeError);
  });
});
