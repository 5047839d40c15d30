import type { RateBucket, ReserveRequest, SettleRequest } from '@tollgate/core';

/**
 * Argument checks, the same rules as the memory store's: a malformed call is a bug, so it
 * rejects before any round trip rather than guessing.
 */

const fail = (what: string, value: unknown, rule: string): never => {
  throw new RangeError(`tollgate store: ${what} must be ${rule}, got ${String(value)}`);
};

export function checkKey(what: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) fail(what, value, 'a non-empty string');
}

function checkAmount(what: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(what, value, 'a non-negative safe integer');
  }
}

function checkLimit(what: string, value: unknown): void {
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
  }
}

export function checkSettle(request: SettleRequest): void {
  checkKey('settle id', request.id);
  if (!Array.isArray(request.charges)) fail('settle charges', request.charges, 'an array');
  for (const charge of request.charges) {
    checkKey('charge counter', charge.counter);
    checkAmount(`charge to ${charge.counter}`, charge.amount);
  }
  if (request.counterTtlMs !== undefined) checkDuration('settle counterTtlMs', request.counterTtlMs);
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

/** Whole milliseconds, at least 1, as Redis wants them. */
export const wholeMs = (ms: number): number => Math.max(1, Math.ceil(ms));

/** A limit as a script argument; no limit (Infinity) travels as 'inf'. */
export const limitArg = (limit: number): string => (Number.isFinite(limit) ? String(limit) : 'inf');
