export { priceUsage } from './price-usage.js';
export { worstCaseCost, maxWorstCase } from './worst-case.js';
export type { PricedCandidate } from './worst-case.js';
export { parsePricing, effectiveRates } from './parse-pricing.js';
export type { EffectiveRates } from './parse-pricing.js';
export { parseDecimal, formatDecimal, compareDecimal, isDecimal } from './decimal.js';
export type { Decimal } from './decimal.js';
export { RATE_KINDS } from './types.js';
export type { CostMicros, Pricing, PricingInput, PriceInput, RateKind, Rates, RatesInput, TokenBounds } from './types.js';
