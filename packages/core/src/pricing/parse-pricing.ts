import { isDecimal, parseDecimal, type Decimal } from './decimal.js';
import { RATE_KINDS, type RateKind, type Pricing, type PricingInput, type Rates, type RatesInput } from './types.js';

/**
 * Parse a pricing block exactly. Returns `undefined` when a price is not a non-negative
 * decimal, a required rate is missing, or `threshold_tokens` and `long` do not come together.
 * (The registry loader reports each of these as a located violation; this is the quiet form.)
 */
export function parsePricing(input: PricingInput): Pricing | undefined {
  if (typeof input !== 'object' || input === null || input.unit !== 'usd_per_mtok') return undefined;
  const base = parseRates(input);
  if (base === undefined || base.input === undefined || base.output === undefined) return undefined;
  const hasThreshold = input.threshold_tokens !== undefined;
  if (hasThreshold !== (input.long !== undefined)) return undefined;
  if (hasThreshold && !(Number.isSafeInteger(input.threshold_tokens) && input.threshold_tokens >= 0)) {
    return undefined;
  }
  let long: Rates | undefined;
  if (input.long !== undefined) {
    long = parseRates(input.long);
    if (long === undefined) return undefined;
  }
  const pricing: Pricing = {
    unit: 'usd_per_mtok',
    ...base,
    input: base.input,
    output: base.output,
    ...(hasThreshold ? { threshold_tokens: input.threshold_tokens, long: Object.freeze(long) } : {}),
  };
  return Object.freeze(pricing);
}

function parseRates(input: RatesInput): Rates | undefined {
  const out: { -readonly [K in RateKind]?: Decimal } = {};
  for (const kind of RATE_KINDS) {
    const raw = input[kind];
    if (raw === undefined) continue;
    const d = parseDecimal(raw);
    if (d === undefined) return undefined;
    out[kind] = d;
  }
  return Object.freeze(out);
}

/** The parsed form of either shape (parsed pricing passes through unchanged). */
export function toPricing(pricing: Pricing | PricingInput): Pricing {
  if (isDecimal(pricing.input)) return pricing as Pricing;
  const parsed = parsePricing(pricing as PricingInput);
  if (parsed === undefined) throw new TypeError('invalid pricing: prices must be non-negative decimals');
  return parsed;
}

/** The rates that apply in one tier, with every kind filled in. */
export type EffectiveRates = { readonly [K in keyof Rates]-?: Decimal };

/**
 * The rates of the base or the long tier. The long tier falls back to the base rate for kinds
 * it does not name. Kinds a pricing names nowhere fall back conservatively: cache reads and
 * cache writes to the input rate, 1-hour cache writes to the cache-write rate.
 */
export function effectiveRates(pricing: Pricing, long: boolean): EffectiveRates {
  let tiers = TIERS.get(pricing);
  if (tiers === undefined) {
    tiers = [computeRates(pricing, false), computeRates(pricing, true)];
    if (Object.isFrozen(pricing)) TIERS.set(pricing, tiers);
  }
  return long ? tiers[1] : tiers[0];
}

/** Frozen (registry) pricing never changes, so its tiers are computed once. */
const TIERS = new WeakMap<Pricing, [EffectiveRates, EffectiveRates]>();

function computeRates(pricing: Pricing, long: boolean): EffectiveRates {
  const tier: Rates = long && pricing.long !== undefined ? { ...stripUndefined(pricing), ...stripUndefined(pricing.long) } : pricing;
  const input = tier.input ?? pricing.input;
  const cacheWrite = tier.cache_write ?? input;
  return Object.freeze({
    input,
    output: tier.output ?? pricing.output,
    cache_read: tier.cache_read ?? input,
    cache_write: cacheWrite,
    cache_write_1h: tier.cache_write_1h ?? cacheWrite,
  });
}

function stripUndefined(rates: Rates): Rates {
  const out: { -readonly [K in RateKind]?: Decimal } = {};
  for (const kind of RATE_KINDS) {
    const d = rates[kind];
    if (d !== undefined) out[kind] = d;
  }
  return out;
}
