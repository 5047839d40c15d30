import type { Usage } from '@tollgate/codecs/base';
import { ceilTimes } from './decimal.js';
import { effectiveRates, toPricing } from './parse-pricing.js';
import type { CostMicros, Pricing, PricingInput } from './types.js';

/**
 * The cost of measured (or estimated) usage in integer micro-USD, as the usage record's
 * `cost_micros`: for each token kind, tokens × USD per million tokens is micro-USD, rounded up
 * to a whole micro-USD; `total` is the sum of the rounded components. When the prompt tokens
 * (input + cache reads + cache writes of both TTLs) exceed `threshold_tokens`, the `long`
 * rates apply. Reasoning tokens are part of `output` and are not priced again.
 *
 * Exact: prices are decimals and the arithmetic is on BigInts.
 */
export function priceUsage(pricing: Pricing | PricingInput, usage: Usage): CostMicros {
  const p = toPricing(pricing);
  const input = tokenCount(usage.input, 'input');
  const output = tokenCount(usage.output, 'output');
  const cacheRead = tokenCount(usage.cacheRead, 'cacheRead');
  const cacheWrite = tokenCount(usage.cacheWrite, 'cacheWrite');
  const cacheWrite1h = tokenCount(usage.cacheWrite1h, 'cacheWrite1h');
  const prompt = input + cacheRead + cacheWrite + cacheWrite1h;
  const long = p.threshold_tokens !== undefined && prompt > BigInt(p.threshold_tokens);
  const rates = effectiveRates(p, long);
  const cost = {
    input: ceilTimes(input, rates.input),
    output: ceilTimes(output, rates.output),
    cache_read: ceilTimes(cacheRead, rates.cache_read),
    cache_write: ceilTimes(cacheWrite, rates.cache_write),
    cache_write_1h: ceilTimes(cacheWrite1h, rates.cache_write_1h),
  };
  const total = cost.input + cost.output + cost.cache_read + cost.cache_write + cost.cache_write_1h;
  return {
    input: toNumber(cost.input),
    output: toNumber(cost.output),
    cache_read: toNumber(cost.cache_read),
    cache_write: toNumber(cost.cache_write),
    cache_write_1h: toNumber(cost.cache_write_1h),
    total: toNumber(total),
  };
}

/**
 * A token count as a BigInt. Counts are whole numbers; a fractional count (an estimate) is
 * rounded up so the cost stays an upper bound. Negative or non-finite counts are a bug
 * upstream of pricing and throw a RangeError.
 */
export function tokenCount(value: number, name: string): bigint {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`token count ${name} must be a non-negative number, got ${value}`);
  return BigInt(Math.ceil(value));
}

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** Micro-USD amounts stay far below 2^53 in practice; beyond it the record could not be exact. */
export function toNumber(micros: bigint): number {
  if (micros > MAX_EXACT) throw new RangeError(`cost ${micros} micro-USD exceeds the exact integer range`);
  return Number(micros);
}
