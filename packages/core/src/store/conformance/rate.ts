import { expect } from 'vitest';
import type { Register } from './context.js';

export function rateTests(test: Register): void {
  const HOUR = 3_600_000;

  test('admits up to the limit per window and refuses with a retry-after', async ({ store, k }) => {
    const bucket = { key: k('rpm'), limit: 5, windowMs: HOUR, cost: 1 };
    for (let i = 0; i < 5; i++) expect(await store.hitRate([bucket])).toEqual({ ok: true });
    const refused = await store.hitRate([bucket]);
    expect(refused).toMatchObject({ ok: false, key: bucket.key });
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(HOUR);
  });

  test('cost is counted in units (token buckets)', async ({ store, k }) => {
    const tpm = (cost: number) => ({ key: k('tpm'), limit: 100, windowMs: HOUR, cost });
    expect(await store.hitRate([tpm(60)])).toEqual({ ok: true });
    expect(await store.hitRate([tpm(41)])).toMatchObject({ ok: false, key: k('tpm') });
    expect(await store.hitRate([tpm(40)])).toEqual({ ok: true });
    expect(await store.hitRate([tpm(1)])).toMatchObject({ ok: false });
  });

  test('a full bucket admits again once its window rolls over', async ({ store, k, advance, realClock }) => {
    const windowMs = realClock ? 1000 : 60_000;
    // With a real clock a window may roll over between two calls; try a fresh bucket then.
    for (let attempt = 0; ; attempt++) {
      const bucket = { key: k(`rpm${attempt}`), limit: 3, windowMs, cost: 3 };
      expect(await store.hitRate([bucket])).toEqual({ ok: true });
      const refused = await store.hitRate([{ ...bucket, cost: 1 }]);
      if (refused.ok && realClock && attempt < 3) continue;
      expect(refused).toMatchObject({ ok: false, key: bucket.key });
      if (refused.ok) return;
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(windowMs);
      await advance(refused.retryAfterMs + (realClock ? 50 : 0));
      expect(await store.hitRate([bucket])).toEqual({ ok: true });
      return;
    }
  });

  test('is all-or-nothing across buckets', async ({ store, k }) => {
    const a = (cost: number) => ({ key: k('a'), limit: 10, windowMs: HOUR, cost });
    const b = { key: k('b'), limit: 1, windowMs: HOUR, cost: 1 };
    expect(await store.hitRate([a(1), b])).toEqual({ ok: true });
    const refused = await store.hitRate([a(1), b]);
    expect(refused).toMatchObject({ ok: false, key: b.key });
    if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(await store.hitRate([a(9)])).toEqual({ ok: true }); // the refused call took nothing from a
    expect(await store.hitRate([a(1)])).toMatchObject({ ok: false, key: k('a') });
  });

  test('buckets are isolated per key', async ({ store, k }) => {
    const bucket = (key: string) => ({ key, limit: 1, windowMs: HOUR, cost: 1 });
    expect(await store.hitRate([bucket(k('x'))])).toEqual({ ok: true });
    expect(await store.hitRate([bucket(k('x'))])).toMatchObject({ ok: false });
    expect(await store.hitRate([bucket(k('y'))])).toEqual({ ok: true });
  });
}
