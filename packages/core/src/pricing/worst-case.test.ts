import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPricing } from './parse-pricing.js';
import { priceUsage } from './price-usage.js';
import type { PricingInput } from './types.js';
import { maxWorstCase, worstCaseCost } from './worst-case.js';

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

describe('worstCaseCost', () => {
  it('prices every prompt token at the highest prompt rate', () => {
    // 1000 × 6 (1-hour write) + 100 × 15; 6 is whole, so no rounding slack.
    expect(worstCaseCost(sonnet, { promptTokens: 1000, outputTokens: 100 })).toBe(6000 + 1500);
    expect(worstCaseCost({ unit: 'usd_per_mtok', input: '3', output: '15' }, { promptTokens: 1000, outputTokens: 100 })).toBe(4500);
  });

  it('uses long-tier rates once the prompt bound passes the threshold', () => {
    expect(worstCaseCost(sonnet, { promptTokens: 200_000, outputTokens: 0 })).toBe(1_200_000);
    expect(worstCaseCost(sonnet, { promptTokens: 200_001, outputTokens: 1000 })).toBe(2_400_012 + 22_500);
  });

  it('covers a cheaper long tier too (the actual prompt may fall under the threshold)', () => {
    const odd: PricingInput = { unit: 'usd_per_mtok', input: '4', output: '10', threshold_tokens: 100, long: { input: '2', output: '5' } };
    expect(worstCaseCost(odd, { promptTokens: 1000, outputTokens: 1000 })).toBe(4000 + 10000);
  });

  it('adds the rounding slack of up to four prompt components when the rate is fractional', () => {
    const p: PricingInput = { unit: 'usd_per_mtok', input: '0.1', output: '0.1', cache_read: '0.1', cache_write: '0.1', cache_write_1h: '0.1' };
    const w = worstCaseCost(p, { promptTokens: 4, outputTokens: 1 });
    const actual = priceUsage(p, { input: 1, cacheRead: 1, cacheWrite: 1, cacheWrite1h: 1, output: 1, reasoning: 0, measured: true });
    expect(actual.total).toBe(5);
    expect(w).toBeGreaterThanOrEqual(actual.total);
    expect(w).toBe(1 + 3 + 1);
  });

  it('is an upper bound on priceUsage for every split of the prompt', () => {
    const rate = fc.oneof(fc.constantFrom('0', '0.1', '0.3', '3', '3.75', '0.125', '22.50'), fc.double({ min: 0, max: 100, noNaN: true }));
    const pricing = fc
      .record({
        input: rate,
        output: rate,
        cache_read: fc.option(rate, { nil: undefined }),
        cache_write: fc.option(rate, { nil: undefined }),
        cache_write_1h: fc.option(rate, { nil: undefined }),
        long: fc.option(fc.record({ input: rate, output: rate, cache_read: rate, cache_write: rate, cache_write_1h: rate }), { nil: undefined }),
        threshold_tokens: fc.integer({ min: 0, max: 5000 }),
      })
      .map(({ long, threshold_tokens, ...base }): PricingInput => ({
        unit: 'usd_per_mtok',
        ...Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined)),
        input: base.input,
        output: base.output,
        ...(long === undefined ? {} : { long, threshold_tokens }),
      }));
    const tokens = fc.integer({ min: 0, max: 3000 });
    fc.assert(
      fc.property(
        pricing,
        tokens,
        tokens,
        tokens,
        tokens,
        tokens,
        fc.integer({ min: 0, max: 100 }),
        (p, input, cacheRead, cacheWrite, cacheWrite1h, output, extra) => {
          const actual = priceUsage(p, { input, cacheRead, cacheWrite, cacheWrite1h, output, reasoning: 0, measured: true });
          const bound = worstCaseCost(p, { promptTokens: input + cacheRead + cacheWrite + cacheWrite1h + extra, outputTokens: output });
          expect(bound).toBeGreaterThanOrEqual(actual.total);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('maxWorstCase', () => {
  it('answers alike for a frozen (registry) pricing asked again and again, below and past the threshold', () => {
    const frozen = Object.freeze(toPricing(sonnet));
    fc.assert(
      fc.property(fc.nat(400_000), fc.nat(100_000), (promptTokens, outputTokens) => {
        const bounds = { promptTokens, outputTokens };
        expect(worstCaseCost(frozen, bounds)).toBe(worstCaseCost(sonnet, bounds));
        expect(worstCaseCost(frozen, bounds)).toBe(worstCaseCost(frozen, bounds));
      }),
    );
  });

  it('covers the dearest candidate', () => {
    const cheap = { deployment: { id: 'cheap', pricing: { unit: 'usd_per_mtok', input: '1', output: '5' } as PricingInput } };
    const dear = { deployment: { id: 'dear', pricing: sonnet } };
    const bounds = { promptTokens: 1000, outputTokens: 100 };
    expect(maxWorstCase([cheap, dear], bounds)).toBe(7500);
    expect(maxWorstCase([cheap], bounds)).toBe(1500);
    expect(maxWorstCase([], bounds)).toBe(0);
  });

  it('refuses an unpriced candidate', () => {
    expect(() => maxWorstCase([{ deployment: { id: 'x', pricing: null } }], { promptTokens: 1, outputTokens: 1 })).toThrow(/x has no pricing/);
  });
});
