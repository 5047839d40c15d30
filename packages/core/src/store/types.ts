/**
 * The state store: where governance state lives (spend counters, reservations, rate buckets,
 * one-shot markers). Policy says which limits apply and what a request may cost at most; the
 * store does the arithmetic atomically. The embedded default is in memory; the Redis store in
 * @tollgate/adapters-node shares state across replicas. Both pass the conformance suite in
 * `@tollgate/core/testing`.
 *
 * All money is integer micro-USD. Keys are opaque strings chosen by the gateway.
 */

/**
 * A limit a reservation is made against: committed spend on `counters` plus live holds on `key`
 * plus what this reservation holds on it may not pass `limit`. A hard spend cap holds the
 * reservation's amount; an in-flight limit (no counters) holds one unit per request.
 */
export interface SpendConstraint {
  /** Stable key of this limit (e.g. `spend:<rule>:<pool>:<window key>`); holds are tracked per key. */
  key: string;
  /** The cap: micro-USD for a spend cap, requests for an in-flight limit. */
  limit: number;
  /** Counter keys whose committed sum counts against the cap (one per model and window key in scope; none for an in-flight limit). */
  counters: readonly string[];
  /** What this reservation holds on this key (default: the reservation's `amount`). A safe integer ≥ 0. */
  amount?: number;
  /**
   * Soft: the hold counts on the key, but passing `limit` never refuses the reservation; the
   * key is reported in `ReserveResult.over` instead (a shadow limit).
   */
  soft?: boolean;
}

export interface ReserveRequest {
  /** Reservation id (the request id). Reserving an id that is already held is an error. */
  id: string;
  /** Worst-case cost in micro-USD. */
  amount: number;
  /** The hold expires (stops counting) this long after the store's clock at reserve/renew. */
  ttlMs: number;
  constraints: SpendConstraint[];
}

export type ReserveResult =
  | {
      ok: true;
      /** Soft constraints this reservation took past their limit (absent or empty: none). */
      over?: string[];
    }
  | {
      ok: false;
      /** The first constraint that could not take the amount. */
      key: string;
      limit: number;
      /** Committed spend on its counters. */
      committed: number;
      /** Live holds on it, excluding this request. */
      held: number;
    };

export interface SettleRequest {
  id: string;
  /**
   * Actual (or estimated) cost per counter key, added to the committed counters; `ttlMs`, when
   * given, is how long this counter lives after the store's clock (instead of `counterTtlMs`).
   */
  charges: Array<{ counter: string; amount: number; ttlMs?: number }>;
  /** Committed counters expire this long after the store's clock (window length + slack). */
  counterTtlMs?: number;
  /**
   * Rate buckets to correct, with the charges and only once (a repeated settle changes
   * nothing): a token bucket took the worst case at admission and is moved to what was used.
   */
  rate?: RateAdjustment[];
}

/**
 * Move what a bucket counted in one window by `delta` units (negative gives units back; the
 * bucket never goes below 0). Nothing happens when the bucket has moved on to a later window.
 */
export interface RateAdjustment {
  key: string;
  windowMs: number;
  /** The start of the window the units were taken in, as the store reported it (`RateResult.windows`). */
  start: number;
  delta: number;
}

/** A rate bucket: at most `limit` units per fixed window of `windowMs`. */
export interface RateBucket {
  key: string;
  limit: number;
  windowMs: number;
  /**
   * Units this request takes (1 for requests, the token bound for tokens). 0 takes nothing and
   * asks whether the bucket has any room left: it is refused when the window is full.
   */
  cost: number;
}

export type RateResult =
  | {
      ok: true;
      /** The start (store clock, ms) of the window each bucket was counted in, in bucket order. */
      windows?: number[];
    }
  | { ok: false; key: string; retryAfterMs: number };

/** Admission in one step: rate buckets, then the spend counters, then a reservation. */
export interface AdmitRequest {
  /** Taken first, all or nothing (as `hitRate`); when any is full nothing else happens. */
  buckets: readonly RateBucket[];
  /** Read once the buckets are taken (as `getCounters`). */
  counters: readonly string[];
  /** Made once the buckets are taken (as `reserve`); null for none. */
  reserve: ReserveRequest | null;
}

export type AdmitResult =
  { rate: Extract<RateResult, { ok: false }> } | { rate: Extract<RateResult, { ok: true }>; counters: Record<string, number>; reserve: ReserveResult | null };

export interface StateStore {
  /** Reserve `amount` only if, for every constraint, committed + held + amount ≤ limit. All or nothing. */
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /** Extend a live hold (a streaming request is still running). False when the hold is gone. */
  renew(id: string, ttlMs: number): Promise<boolean>;
  /**
   * Replace the hold with the actual cost: removes the hold and adds the charges to the
   * counters. Idempotent: settling the same id again changes nothing and returns false.
   */
  settle(request: SettleRequest): Promise<boolean>;
  /** Drop a hold without charging (the request was refused before it reached an upstream). */
  release(id: string): Promise<void>;
  /** Committed values of counters (0 when absent). */
  getCounters(keys: readonly string[]): Promise<Record<string, number>>;
  /** Live holds (sum) per constraint key, for status and tests. */
  getHeld(keys: readonly string[]): Promise<Record<string, number>>;
  /** Take `cost` from every bucket, or from none when any would pass its limit. */
  hitRate(buckets: readonly RateBucket[]): Promise<RateResult>;
  /**
   * Optional: `hitRate`, `getCounters` and `reserve` as one atomic step (one round trip for a
   * remote store). A reservation refused by a cap leaves the buckets taken, as the separate
   * calls would. Null when the store cannot do this request in one step (its keys live apart):
   * nothing was taken, and the gateway makes the separate calls, as it does without `admit`.
   */
  admit?(request: AdmitRequest): Promise<AdmitResult | null>;
  /** Set a one-shot marker; true when this call set it, false when it was already set. */
  setOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Whether a marker is set. */
  hasMarker(key: string): Promise<boolean>;
  /** Tidy expired holds (they stop counting at once anyway); returns how many were removed. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

/** Thrown (or rejected) by a store that cannot reach its backend. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
