import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function miscTests(test: Register): void {
  test('setOnce sets a marker once per key', async ({ store, k }) => {
    expect(await store.hasMarker(k('m1'))).toBe(false);
    expect(await store.setOnce(k('m1'), LONG)).toBe(true);
    expect(await store.setOnce(k('m1'), LONG)).toBe(false);
    expect(await store.hasMarker(k('m1'))).toBe(true);
    expect(await store.hasMarker(k('m2'))).toBe(false);
    expect(await store.setOnce(k('m2'), LONG)).toBe(true);
  });

  test('a marker expires after its TTL', async ({ store, k, advance, ttl }) => {
    expect(await store.setOnce(k('m'), ttl)).toBe(true);
    await advance(ttl / 2);
    expect(await store.hasMarker(k('m'))).toBe(true);
    expect(await store.setOnce(k('m'), ttl)).toBe(false);
    await advance(ttl);
    expect(await store.hasMarker(k('m'))).toBe(false);
    expect(await store.setOnce(k('m'), ttl)).toBe(true);
  });

  test('counters and holds are isolated per key; absent ones read 0', async ({ store, k }) => {
    const a = cap(k('a'), 100, [k('c1')]);
    const b = cap(k('b'), 100, [k('c2')]);
    await store.reserve({ id: k('r1'), amount: 100, ttlMs: LONG, constraints: [a] });
    await store.settle({ id: k('r1'), charges: [{ counter: k('c1'), amount: 100 }] });
    await store.reserve({ id: k('r2'), amount: 40, ttlMs: LONG, constraints: [cap(k('other'), 1000, [k('c1')])] });

    const counters = await store.getCounters([k('c1'), k('c2'), k('absent')]);
    expect(counters).toEqual({ [k('c1')]: 100, [k('c2')]: 0, [k('absent')]: 0 });
    expect(await store.getHeld([a.key, b.key, k('other')])).toEqual({ [a.key]: 0, [b.key]: 0, [k('other')]: 40 });
    expect(await store.getCounters([])).toEqual({});
    expect(await store.getHeld([])).toEqual({});
    expect(await store.reserve({ id: k('r3'), amount: 100, ttlMs: LONG, constraints: [b] })).toEqual({ ok: true });
    expect(await store.reserve({ id: k('r4'), amount: 1, ttlMs: LONG, constraints: [a] })).toMatchObject({
      ok: false,
      committed: 100,
      held: 0,
    });
  });

  test('sweep removes expired holds and counts them', async ({ store, k, advance, ttl }) => {
    const c = (name: string) => cap(k(name), 1000, [k(`c:${name}`)]);
    for (const name of ['a', 'b', 'c']) {
      await store.reserve({ id: k(`short-${name}`), amount: 10, ttlMs: ttl, constraints: [c(name)] });
    }
    await store.reserve({ id: k('long'), amount: 10, ttlMs: LONG, constraints: [c('a')] });
    await advance(ttl * 1.5);
    expect(await store.sweep()).toBeGreaterThanOrEqual(3);
    expect(await store.getHeld([k('a'), k('b'), k('c')])).toEqual({ [k('a')]: 10, [k('b')]: 0, [k('c')]: 0 });
    expect(await store.renew(k('long'), LONG)).toBe(true);
    expect(await store.renew(k('short-a'), LONG)).toBe(false);
  });
}
