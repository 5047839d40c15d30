import type { RateBucket, ReserveRequest, SettleRequest } from './types.js';

/** Argument checks shared by stores: a malformed call is a bug, so it rejects rather than guessing. */

/**
 * The checks name what they check as `what`, and `of` the key it belongs to (`limit of` +
 * `spend:cap`): the label is put together only when a check fails, not on every call.
 */
const fail = (what: string, value: unknown, rule: string, of?: string): never => {
  throw new RangeError(`tollgate store: ${of === undefined ? what : `${what} ${of}`} must be ${rule}, got ${String(value)}`);
};

export function checkKey(what: string, value: unknown, of?: string): void {
  if (typeof value !== 'string' || value.length === 0) fail(what, value, 'a non-empty string', of);
}

/** Money and token counts: integers, so sums stay exact. */
export function checkAmount(what: string, value: unknown, of?: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(what, value, 'a non-negative safe integer', of);
  }
}

export function checkLimit(what: string, value: unknown, of?: string): void {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) fail(what, value, 'a non-negative number', of);
}

export function checkDuration(what: string, value: unknown, of?: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(what, value, 'a positive finite number of milliseconds', of);
  }
}

export function checkReserve(request: ReserveRequest): void {
  checkKey('reserve id', request.id);
  checkAmount('reserve amount', request.amount);
  checkDuration('reserve ttlMs', request.ttlMs);
  if (!Array.isArray(request.constraints)) fail('reserve constraints', request.constraints, 'an array');
  for (const c of request.constraints) {
    checkKey('constraint key', c.key);
    checkLimit('limit of', c.limit, c.key);
    if (!Array.isArray(c.counters)) fail('counters of', c.counters, 'an array', c.key);
    for (const counter of c.counters) checkKey('counter of', counter, c.key);
    if (c.amount !== undefined) checkAmount('amount held on', c.amount, c.key);
    if (c.soft !== undefined && typeof c.soft !== 'boolean') fail('soft of', c.soft, 'a boolean', c.key);
  }
}

export function checkSettle(request: SettleRequest): void {
  checkKey('settle id', request.id);
  if (!Array.isArray(request.charges)) fail('settle charges', request.charges, 'an array');
  for (const charge of request.charges) {
    checkKey('charge counter', charge.counter);
    checkAmount('charge to', charge.amount, charge.counter);
    if (charge.ttlMs !== undefined) checkDuration('ttlMs of', charge.ttlMs, charge.counter);
  }
  if (request.counterTtlMs !== undefined) checkDuration('settle counterTtlMs', request.counterTtlMs);
  if (request.rate !== undefined) {
    if (!Array.isArray(request.rate)) fail('settle rate', request.rate, 'an array');
    for (const a of request.rate) {
      checkKey('rate adjustment key', a.key);
      checkDuration('windowMs of', a.windowMs, a.key);
      if (typeof a.start !== 'number' || !Number.isSafeInteger(a.start)) fail('window start of', a.start, 'a whole number of milliseconds', a.key);
      if (typeof a.delta !== 'number' || !Number.isSafeInteger(a.delta)) fail('delta of', a.delta, 'a safe integer', a.key);
    }
  }
}

export function checkBuckets(buckets: readonly RateBucket[]): void {
  if (!Array.isArray(buckets)) fail('rate buckets', buckets, 'an array');
  for (const b of buckets) {
    checkKey('rate bucket key', b.key);
    checkLimit('limit of', b.limit, b.key);
    checkDuration('windowMs of', b.windowMs, b.key);
    checkAmount('cost on', b.cost, b.key);
  }
}
