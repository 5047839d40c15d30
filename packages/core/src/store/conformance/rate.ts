import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function rateTests(test: Register): void {
  const HOUR = 3_600_000;

  test('admits up to the limit per window and refuses with a retry-after', async ({ store, k }) => {
    const bucket = { key: k('rpm'), limit: 5, windowMs: HOUR, cost: 1 };
    for (let i = 0; i < 5; i++) expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
    const refused = await store.hitRate([bucket]);
    expect(refused).toMatchObject({ ok: false, key: bucket.key });
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(HOUR);
  });

  test('cost is counted in units (token buckets)', async ({ store, k }) => {
    const tpm = (cost: number) => ({ key: k('tpm'), limit: 100, windowMs: HOUR, cost });
    expect(await store.hitRate([tpm(60)])).toMatchObject({ ok: true });
    expect(await store.hitRate([tpm(41)])).toMatchObject({ ok: false, key: k('tpm') });
    expect(await store.hitRate([tpm(40)])).toMatchObject({ ok: true });
    expect(await store.hitRate([tpm(1)])).toMatchObject({ ok: false });
  });

  test('a full bucket admits again once its window rolls over', async ({ store, k, advance, realClock }) => {
    const windowMs = realClock ? 1000 : 60_000;
    // With a real clock a window may roll over between two calls; try a fresh bucket then.
    for (let attempt = 0; ; attempt++) {
      const bucket = { key: k(`rpm${attempt}`), limit: 3, windowMs, cost: 3 };
      expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
      const refused = await store.hitRate([{ ...bucket, cost: 1 }]);
      if (refused.ok && realClock && attempt < 3) continue;
      expect(refused).toMatchObject({ ok: false, key: bucket.key });
      if (refused.ok) return;
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(windowMs);
      await advance(refused.retryAfterMs + (realClock ? 50 : 0));
      expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
      return;
    }
  });

  test('is all-or-nothing across buckets', async ({ store, k }) => {
    const a = (cost: number) => ({ key: k('a'), limit: 10, windowMs: HOUR, cost });
    const b = { key: k('b'), limit: 1, windowMs: HOUR, cost: 1 };
    expect(await store.hitRate([a(1), b])).toMatchObject({ ok: true });
    const refused = await store.hitRate([a(1), b]);
    expect(refused).toMatchObject({ ok: false, key: b.key });
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(await store.hitRate([a(9)])).toMatchObject({ ok: true }); // the refused call took nothing from a
    expect(await store.hitRate([a(1)])).toMatchObject({ ok: false, key: k('a') });
  });

  test('buckets are isolated per key', async ({ store, k }) => {
    const bucket = (key: string) => ({ key, limit: 1, windowMs: HOUR, cost: 1 });
    expect(await store.hitRate([bucket(k('x'))])).toMatchObject({ ok: true });
    expect(await store.hitRate([bucket(k('x'))])).toMatchObject({ ok: false });
    expect(await store.hitRate([bucket(k('y'))])).toMatchObject({ ok: true });
  });
}

/** Token buckets take the worst case at admission; the settle moves them to what was used. */
export function rateAdjustmentTests(test: Register): void {
  const HOUR = 3_600_000;

  test('reports the window start each bucket was counted in', async ({ store, k }) => {
    const result = await store.hitRate([
      { key: k('a'), limit: 10, windowMs: HOUR, cost: 1 },
      { key: k('b'), limit: 10, windowMs: 60_000, cost: 1 },
    ]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.windows).toHaveLength(2);
    expect(result.windows![0]! % HOUR).toBe(0);
    expect(result.windows![1]! % 60_000).toBe(0);
    expect(result.windows![1]!).toBeGreaterThanOrEqual(result.windows![0]!);
  });

  test('a settle gives back the tokens a request did not use, once, and never below zero', async ({ store, k }) => {
    const tpm = (cost: number) => ({ key: k('tpm'), limit: 1000, windowMs: HOUR, cost });
    const taken = await store.hitRate([tpm(900)]);
    expect(taken.ok).toBe(true);
    const start = taken.ok ? taken.windows![0]! : 0;
    expect(await store.hitRate([tpm(200)])).toMatchObject({ ok: false });
    const settle = { id: k('r'), charges: [], rate: [{ key: k('tpm'), windowMs: HOUR, start, delta: -850 }] };
    expect(await store.settle(settle)).toBe(true);
    // 50 used: 950 free. A repeated settle gives nothing back twice.
    expect(await store.settle(settle)).toBe(false);
    expect(await store.hitRate([tpm(950)])).toMatchObject({ ok: true });
    expect(await store.hitRate([tpm(1)])).toMatchObject({ ok: false });
    // A request that used more than it took adds the difference; a give-back past zero stops at zero.
    await store.settle({ id: k('more'), charges: [], rate: [{ key: k('tpm'), windowMs: HOUR, start, delta: -5000 }] });
    expect(await store.hitRate([tpm(1000)])).toMatchObject({ ok: true });
    await store.settle({ id: k('over'), charges: [], rate: [{ key: k('tpm'), windowMs: HOUR, start, delta: 10 }] });
    expect(await store.hitRate([tpm(1)])).toMatchObject({ ok: false });
  });

  test('a settle does not touch a bucket that has moved on to a later window', async ({ store, k, advance, realClock }) => {
    const windowMs = realClock ? 1000 : 60_000;
    const tpm = (cost: number) => ({ key: k('tpm'), limit: 100, windowMs, cost });
    const taken = await store.hitRate([tpm(30)]);
    const start = taken.ok ? taken.windows![0]! : 0;
    await advance(windowMs + (realClock ? 50 : 0));
    const now = await store.hitRate([tpm(100)]);
    expect(now).toMatchObject({ ok: true });
    await store.settle({ id: k('r'), charges: [], rate: [{ key: k('tpm'), windowMs, start, delta: -30 }] });
    // The old window's give-back did not free room in the new one (unless it rolled over again).
    const after = await store.hitRate([tpm(1)]);
    if (after.ok && realClock) expect(after.windows![0]!).toBeGreaterThan(now.ok ? now.windows![0]! : 0);
    else expect(after).toMatchObject({ ok: false });
  });

  test('a settle charges counters, drops its hold and corrects buckets in one step', async ({ store, k }) => {
    const taken = await store.hitRate([{ key: k('tpm'), limit: 100, windowMs: HOUR, cost: 80 }]);
    const start = taken.ok ? taken.windows![0]! : 0;
    await store.reserve({ id: k('r'), amount: 50, ttlMs: LONG, constraints: [cap(k('cap'), 100, [k('c')])] });
    expect(await store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 7 }], rate: [{ key: k('tpm'), windowMs: HOUR, start, delta: -70 }] })).toBe(
      true,
    );
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 7 });
    expect(await store.getHeld([k('cap')])).toEqual({ [k('cap')]: 0 });
    expect(await store.hitRate([{ key: k('tpm'), limit: 100, windowMs: HOUR, cost: 90 }])).toMatchObject({ ok: true });
  });
}

/** A zero-cost hit: does the bucket have room left? It takes nothing. */
export function rateRoomTests(test: Register): void {
  test('a zero-cost hit is refused when the window is full and takes nothing otherwise', async ({ store, k }) => {
    const bucket = (cost: number) => ({ key: k('rpm'), limit: 2, windowMs: 3_600_000, cost });
    expect(await store.hitRate([bucket(0)])).toMatchObject({ ok: true });
    expect(await store.hitRate([bucket(1)])).toMatchObject({ ok: true });
    expect(await store.hitRate([bucket(0)])).toMatchObject({ ok: true });
    expect(await store.hitRate([bucket(1)])).toMatchObject({ ok: true });
    const refused = await store.hitRate([bucket(0)]);
    expect(refused).toMatchObject({ ok: false, key: k('rpm') });
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
  });
}
