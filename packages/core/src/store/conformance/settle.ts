import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function settleTests(test: Register): void {
  test('settle replaces the hold with the charge and is idempotent', async ({ store, k }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r1'), amount: 100, ttlMs: LONG, constraints: [c] });
    expect(await store.settle({ id: k('r1'), charges: [{ counter: k('c'), amount: 37 }] })).toBe(true);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 37 });

    expect(await store.settle({ id: k('r1'), charges: [{ counter: k('c'), amount: 50 }] })).toBe(false);
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 37 });
    expect(await store.renew(k('r1'), LONG)).toBe(false);

    expect(await store.reserve({ id: k('r2'), amount: 63, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
    const full = await store.reserve({ id: k('r3'), amount: 1, ttlMs: LONG, constraints: [c] });
    expect(full).toMatchObject({ ok: false, committed: 37, held: 63 });
  });

  test('settle after the hold lapsed still charges (a cancellation is never free)', async (t) => {
    const { store, k, advance, ttl } = t;
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r'), amount: 50, ttlMs: ttl, constraints: [c] });
    await advance(ttl * 1.5);
    expect(await store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 20 }] })).toBe(true);
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 20 });
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
  });

  test('committed counters with a TTL expire', async ({ store, k, advance, ttl }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r'), amount: 100, ttlMs: LONG, constraints: [c] });
    await store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 100 }], counterTtlMs: ttl });
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 100 });
    expect(await store.reserve({ id: k('r2'), amount: 1, ttlMs: LONG, constraints: [c] })).toMatchObject({ ok: false });
    await advance(ttl * 1.5);
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 0 });
    expect(await store.reserve({ id: k('r2'), amount: 100, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
  });

  test('release drops a hold without charging', async ({ store, k }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r1'), amount: 80, ttlMs: LONG, constraints: [c] });
    await store.release(k('r1'));
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 0 });
    expect(await store.renew(k('r1'), LONG)).toBe(false);
    await store.release(k('r1'));
    await store.release(k('never-reserved'));
    expect(await store.reserve({ id: k('r2'), amount: 100, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
  });
}
