import { describe, expect, it } from 'vitest';
import type { HardCap, Principal } from '@tollgate/policy';
import { capCounters, chargeKeys } from './keys.js';

const alice: Principal = { kind: 'user', id: 'alice', bu: 'payments' };
const HOUR = 3_600_000;
const at = Date.UTC(2026, 10, 30, 22, 10);

describe('chargeKeys', () => {
  it('charges the same counters for calls in the same hour, and a caller may change the list it got', () => {
    const first = chargeKeys('', alice, 'claude-sonnet', at, 'UTC');
    const counters = first.map((c) => c.counter);
    expect(counters).toContain('c:user:alice:2026-11:claude-sonnet');
    expect(counters).toContain('c:bu:payments:2026-11-30:claude-sonnet');
    first.length = 0;
    expect(chargeKeys('', alice, 'claude-sonnet', at + 60_000, 'UTC').map((c) => c.counter)).toEqual(counters);
  });

  it('moves on with the hour bucket, the day, the model, the tag and the time zone', () => {
    const keys = (t: number, model = 'm', tag = '', tz = 'UTC') => chargeKeys(tag, alice, model, t, tz).map((c) => c.counter);
    const now = keys(at);
    const nextHour = keys(at + HOUR);
    expect(nextHour).not.toEqual(now);
    expect(nextHour.filter((k) => !now.includes(k)).length).toBeGreaterThan(0);
    // 22:10 UTC on 30 November is 1 December in Tokyo: the month changes.
    expect(keys(at, 'm', '', 'Asia/Tokyo')).toContain('c:user:alice:2026-12:m');
    expect(keys(at + 2 * HOUR)).toContain('c:user:alice:2026-12:m');
    expect(keys(at, 'other')).toContain('c:user:alice:2026-11:other');
    expect(keys(at, 'm', '{acme}:').every((k) => k.startsWith('{acme}:c:'))).toBe(true);
    // Back to the first hour: the first hour's keys again.
    expect(keys(at)).toEqual(now);
  });
});

describe('chargeKeys, kept between calls', () => {
  it('names the same counters as a first call would, at every instant, across day, week, month, bucket and DST boundaries', () => {
    const zones = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];
    // Boundaries and the milliseconds either side of them, then instants at random, in order and out of it.
    const edges = [
      Date.UTC(2026, 11, 31, 23, 0),
      Date.UTC(2027, 0, 1, 0, 0),
      Date.UTC(2027, 0, 1, 5, 0),
      Date.UTC(2027, 2, 14, 7, 0), // New York springs forward
      Date.UTC(2027, 3, 3, 15, 0), // Lord Howe falls back half an hour
      Date.UTC(2027, 2, 31, 18, 30), // midnight in Kolkata
      Date.UTC(2027, 5, 30, 18, 0), // a six-hour bucket and a quarter
    ].flatMap((t) => [t - 1, t, t + 1]);
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    const instants = [...edges, ...Array.from({ length: 200 }, () => Date.UTC(2027, 0, 1) + Math.floor(random() * 400 * 24 * HOUR))];
    for (const tz of zones) {
      for (const t of [...instants, ...instants.slice().reverse()]) {
        for (const tag of ['', '{acme}:']) {
          const kept = chargeKeys(tag, alice, 'm', t, tz);
          const fresh = chargeKeys(tag, { ...alice }, 'm', t, tz);
          expect(kept).toEqual(fresh);
        }
      }
    }
  });
});

describe('capCounters', () => {
  const cap = (windowKeys: readonly string[], models: readonly string[], principalKey = 'user:alice'): HardCap =>
    ({ principalKey, windowKeys, models }) as unknown as HardCap;

  it('names every model and window key of the cap for its pool, under the tag', () => {
    const windows = Object.freeze(['2026-11']);
    const models = Object.freeze(['a', 'b']);
    expect(capCounters(cap(windows, models), '')).toEqual(['c:user:alice:2026-11:a', 'c:user:alice:2026-11:b']);
    expect(capCounters(cap(windows, models, 'bu:payments'), '{t}:')).toEqual(['{t}:c:bu:payments:2026-11:a', '{t}:c:bu:payments:2026-11:b']);
    expect(capCounters(cap(windows, models), '')).toEqual(['c:user:alice:2026-11:a', 'c:user:alice:2026-11:b']);
    expect(capCounters(cap(Object.freeze(['2026-12']), models), '')).toEqual(['c:user:alice:2026-12:a', 'c:user:alice:2026-12:b']);
  });
});
