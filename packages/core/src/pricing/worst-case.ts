import { ceilTimes, maxDecimal, type Decimal } from './decimal.js';
import { effectiveRates, toPricing, type EffectiveRates } from './parse-pricing.js';
import { tokenCount, toNumber } from './price-usage.js';
import type { Pricing, PricingInput, TokenBounds } from './types.js';

/**
 * An upper bound, in integer micro-USD, on what `priceUsage` can charge for a request whose
 * prompt has at most `promptTokens` tokens and whose output at most `outputTokens`, for the
 * spend reservation. It is a true bound, not an estimate:
 *
 * - every prompt token is priced at the highest prompt rate (input, cache read, cache write,
 *   1-hour cache write), since the bound cannot know how the vendor will split the prompt;
 * - once the prompt bound passes `threshold_tokens`, the actual prompt may land in either
 *   tier, so each rate is the higher of the base and the long rate;
 * - `priceUsage` rounds each of up to four prompt components up separately, so when that
 *   highest rate is fractional the bound adds the at most 3 micro-USD those roundings can add
 *   beyond one rounding of the whole.
 */
export function worstCaseCost(pricing: Pricing | PricingInput, bounds: TokenBounds): number {
  const p = toPricing(pricing);
  const prompt = tokenCount(bounds.promptTokens, 'promptTokens');
  const output = tokenCount(bounds.outputTokens, 'outputTokens');
  const base = effectiveRates(p, false);
  let promptRate = maxPromptRate(base);
  let outputRate = maxDecimal(base.output);
  if (p.threshold_tokens !== undefined && prompt > BigInt(p.threshold_tokens)) {
    const long = effectiveRates(p, true);
    promptRate = maxDecimal(promptRate, maxPromptRate(long));
    outputRate = maxDecimal(outputRate, long.output);
  }
  const slack = promptRate.scale > 0 && prompt > 1n ? (prompt < 4n ? prompt : 4n) - 1n : 0n;
  return toNumber(ceilTimes(prompt, promptRate) + slack + ceilTimes(output, outputRate));
}

/** Effective rates are frozen (a registry's kept per pricing): their highest prompt rate is found once. */
const PROMPT_RATE = new WeakMap<EffectiveRates, Decimal>();

function maxPromptRate(rates: EffectiveRates): Decimal {
  let max = PROMPT_RATE.get(rates);
  if (max === undefined) {
    max = maxDecimal(rates.input, rates.cache_read, rates.cache_write, rates.cache_write_1h);
    if (Object.isFrozen(rates)) PROMPT_RATE.set(rates, max);
  }
  return max;
}

/** Anything that carries a deployment's pricing: a routing candidate, say. */
export interface PricedCandidate {
  readonly deployment: { readonly id?: string; readonly pricing?: Pricing | PricingInput | null };
}

/**
 * The reservation for a request that may fail over along `candidates`: the worst case of the
 * dearest one. 0 for an empty list. A candidate without pricing throws (an enabled deployment
 * is always priced; an unpriced one would make budgets silently ineffective).
 */
export function maxWorstCase(candidates: readonly PricedCandidate[], bounds: TokenBounds): number {
  let max = 0;
  for (const candidate of candidates) {
    const pricing = candidate.deployment.pricing;
    if (pricing === undefined || pricing === null) {
      throw new TypeError(`deployment ${candidate.deployment.id ?? '(unnamed)'} has no pricing`);
    }
    const cost = worstCaseCost(pricing, bounds);
    if (cost > max) max = cost;
  }
  return max;
}
