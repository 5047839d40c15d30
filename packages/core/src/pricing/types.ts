import type { Decimal } from './decimal.js';

/** The token kinds that carry a price, named as in the registry file and the usage record. */
export type RateKind = 'input' | 'output' | 'cache_read' | 'cache_write' | 'cache_write_1h';

export const RATE_KINDS: readonly RateKind[] = ['input', 'output', 'cache_read', 'cache_write', 'cache_write_1h'];

/** Prices in USD per million tokens, each exact. */
export type Rates = { readonly [K in RateKind]?: Decimal };

/** A deployment's prices, parsed exactly (see `parsePricing`). */
export interface Pricing extends Rates {
  readonly unit: 'usd_per_mtok';
  readonly input: Decimal;
  readonly output: Decimal;
  /** Above this many prompt tokens the `long` rates apply. Present exactly when `long` is. */
  readonly threshold_tokens?: number;
  readonly long?: Rates;
}

/** A price as written in a registry file: a decimal string ("0.30") or a number (0.3). */
export type PriceInput = string | number;

export type RatesInput = { readonly [K in RateKind]?: PriceInput };

/** Pricing as written in a registry file. */
export interface PricingInput extends RatesInput {
  readonly unit: 'usd_per_mtok';
  readonly input: PriceInput;
  readonly output: PriceInput;
  readonly threshold_tokens?: number;
  readonly long?: RatesInput;
}

/** `cost_micros` of the usage record: integer micro-USD per token kind, and their sum. */
export interface CostMicros {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cache_write_1h: number;
  total: number;
}

/** Upper bounds on a request's tokens, for admission. */
export interface TokenBounds {
  /** Every prompt token, whatever kind it turns out to be (input, cache read or write). */
  promptTokens: number;
  /** The output bound (`max_tokens`, as sent upstream). */
  outputTokens: number;
}
