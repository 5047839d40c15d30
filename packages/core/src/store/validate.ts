import type { RateBucket, ReserveRequest, SettleRequest } from './types.js';

/** Argument checks shared by stores: a malformed call is a bug, so it rejects rather than guessing. */

const fail = (what: string, value: unknown, rule: string): never => {
  throw new RangeError(`tollgate store: ${what} must be ${rule}, got ${String(value)}`);
};

export function checkKey(what: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) fail(what, value, 'a non-empty string');
}

/** Money and token counts: integers, so sums stay exact. */
export function checkAmount(what: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(what, value, 'a non-negative safe integer');
  }
}

export function checkLimit(what: string, value: unknown): void {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) fail(what, value, 'a non-negative number');
}

export function checkDuration(what: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(what, value, 'a positive finite number of milliseconds');
  }
}

export function checkReserve(request: ReserveRequest): void {
  checkKey('reserve id', request.id);
  checkAmount('reserve amount', request.amount);
  checkDuration('reserve ttlMs', request.ttlMs);
  if (!Array.isArray(request.constraints)) fail('reserve constraints', request.constraints, 'an array');
  for (const c of request.constraints) {
    checkKey('constraint key', c.key);
    checkLimit(`limit of ${c.key}`, c.limit);
    if (!Array.isArray(c.counters)) fail(`counters of ${c.key}`, c.counters, 'an array');
    for (const counter of c.counters) checkKey(`counter of ${c.key}`, counter);
    if (c.amount !== undefined) checkAmount(`amount held on ${c.key}`, c.amount);
    if (c.soft !== undefined && typeof c.soft !== 'boolean') fail(`soft of ${c.key}`, c.soft, 'a boolean');
  }
}

export function checkSettle(request: SettleRequest): void {
  checkKey('settle id', request.id);
  if (!Array.isArray(request.charges)) fail('settle charges', request.charges, 'an array');
  for (const charge of request.charges) {
    checkKey('charge counter', charge.counter);
    checkAmount(`charge to ${charge.counter}`, charge.amount);
    if (charge.ttlMs !== undefined) checkDuration(`ttlMs of ${charge.counter}`, charge.ttlMs);
  }
  if (request.counterTtlMs !== undefined) checkDuration('settle counterTtlMs', request.counterTtlMs);
  if (request.rate !== undefined) {
    if (!Array.isArray(request.rate)) fail('settle rate', request.rate, 'an array');
    for (const a of request.rate) {
      checkKey('rate adjustment key', a.key);
      checkDuration(`windowMs of ${a.key}`, a.windowMs);
      if (typeof a.start !== 'number' || !Number.isSafeInteger(a.start)) fail(`window start of ${a.key}`, a.start, 'a whole number of milliseconds');
      if (typeof a.delta !== 'number' || !Number.isSafeInteger(a.delta)) fail(`delta of ${a.key}`, a.delta, 'a safe integer');
    }
  }
}

export function checkBuckets(buckets: readonly RateBucket[]): void {
  if (!Array.isArray(buckets)) fail('rate buckets', buckets, 'an array');
  for (const b of buckets) {
    checkKey('rate bucket key', b.key);
    checkLimit(`limit of ${b.key}`, b.limit);
    checkDuration(`windowMs of ${b.key}`, b.windowMs);
    checkAmount(`cost on ${b.key}`, b.cost);
  }
}
