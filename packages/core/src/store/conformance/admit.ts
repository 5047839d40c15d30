import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

/** `admit`, for stores that have it: rate, counters and reservation in one atomic step. */
export function admitTests(test: Register): void {
  const HOUR = 3_600_000;

  test('takes the buckets, reads the counters and reserves, all in one call', async ({ store, k }) => {
    const admit = store.admit!.bind(store);
    await store.settle({ id: k('earlier'), charges: [{ counter: k('c:user'), amount: 30 }] });
    const limit = cap(k('user'), 100, [k('c:user')]);
    const bucket = { key: k('rpm'), limit: 2, windowMs: HOUR, cost: 1 };
    const result = await admit({
      buckets: [bucket],
      counters: [k('c:user'), k('c:none')],
      reserve: { id: k('r1'), amount: 50, ttlMs: LONG, constraints: [limit] },
    });
    expect(result).toEqual({ rate: { ok: true, windows: [expect.any(Number)] }, counters: { [k('c:user')]: 30, [k('c:none')]: 0 }, reserve: { ok: true } });
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 50 });
    // The bucket was taken: one unit of two is left.
    expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
    expect(await store.hitRate([bucket])).toMatchObject({ ok: false, key: bucket.key });
    // The hold settles like any other.
    expect(await store.settle({ id: k('r1'), charges: [{ counter: k('c:user'), amount: 20 }] })).toBe(true);
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 0 });
    expect(await store.getCounters([k('c:user')])).toEqual({ [k('c:user')]: 50 });
  });

  test('a full bucket stops everything: nothing read, nothing reserved', async ({ store, k }) => {
    const admit = store.admit!.bind(store);
    const limit = cap(k('user'), 100, [k('c:user')]);
    const bucket = { key: k('rpm'), limit: 1, windowMs: HOUR, cost: 1 };
    expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
    const result = await admit({ buckets: [bucket], counters: [k('c:user')], reserve: { id: k('r1'), amount: 10, ttlMs: LONG, constraints: [limit] } });
    expect(result).toMatchObject({ rate: { ok: false, key: bucket.key } });
    expect(result !== null && 'counters' in result).toBe(false);
    if (result !== null && !result.rate.ok) expect(result.rate.retryAfterMs).toBeGreaterThan(0);
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 0 });
    // The id was not taken either: it can be reserved now.
    expect(await store.reserve({ id: k('r1'), amount: 10, ttlMs: LONG, constraints: [limit] })).toEqual({ ok: true });
  });

  test('a cap that cannot take the amount refuses the reservation; the buckets stay taken and the counters are read', async ({ store, k }) => {
    const admit = store.admit!.bind(store);
    await store.settle({ id: k('earlier'), charges: [{ counter: k('c:user'), amount: 95 }] });
    const limit = cap(k('user'), 100, [k('c:user')]);
    const bucket = { key: k('rpm'), limit: 1, windowMs: HOUR, cost: 1 };
    const result = await admit({ buckets: [bucket], counters: [k('c:user')], reserve: { id: k('r1'), amount: 10, ttlMs: LONG, constraints: [limit] } });
    expect(result).toEqual({
      rate: { ok: true, windows: [expect.any(Number)] },
      counters: { [k('c:user')]: 95 },
      reserve: { ok: false, key: limit.key, limit: 100, committed: 95, held: 0 },
    });
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 0 });
    expect(await store.hitRate([bucket])).toMatchObject({ ok: false, key: bucket.key });
  });

  test('without buckets or a reservation it only reads the counters', async ({ store, k }) => {
    const admit = store.admit!.bind(store);
    await store.settle({ id: k('earlier'), charges: [{ counter: k('c'), amount: 7 }] });
    expect(await admit({ buckets: [], counters: [k('c')], reserve: null })).toEqual({
      rate: { ok: true, windows: [] },
      counters: { [k('c')]: 7 },
      reserve: null,
    });
  });

  test('reserving an id that is already held is an error, and takes nothing', async ({ store, k }) => {
    const admit = store.admit!.bind(store);
    const limit = cap(k('user'), 100, [k('c:user')]);
    const bucket = { key: k('rpm'), limit: 1, windowMs: HOUR, cost: 1 };
    expect(await store.reserve({ id: k('r1'), amount: 10, ttlMs: LONG, constraints: [limit] })).toEqual({ ok: true });
    await expect(admit({ buckets: [bucket], counters: [], reserve: { id: k('r1'), amount: 10, ttlMs: LONG, constraints: [limit] } })).rejects.toThrow(
      /already held/,
    );
    expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 10 });
  });
}
