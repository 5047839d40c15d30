import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function concurrencyTests(test: Register): void {
  test('50 concurrent reserves against one cap admit exactly floor(limit / amount)', async ({ store, k }) => {
    const c = cap(k('cap'), 1000, [k('c')]);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.reserve({ id: k(`r${i}`), amount: 30, ttlMs: LONG, constraints: [c] })));
    expect(results.filter((r) => r.ok)).toHaveLength(33);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 990 });
  });

  test('concurrent reserves across overlapping caps never over-admit', async ({ store, k }) => {
    const team = cap(k('team'), 700, [k('c:a'), k('c:b')]);
    const users = [cap(k('user:a'), 500, [k('c:a')]), cap(k('user:b'), 500, [k('c:b')])] as const;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.reserve({ id: k(`r${i}`), amount: 30, ttlMs: LONG, constraints: [users[i % 2]!, team] })),
    );
    const admitted = (u: number) => results.filter((r, i) => r.ok && i % 2 === u).length;
    expect(admitted(0) + admitted(1)).toBe(23); // floor(700 / 30); each user alone fits 16
    expect(admitted(0)).toBeLessThanOrEqual(16);
    expect(admitted(1)).toBeLessThanOrEqual(16);
    const held = await store.getHeld([team.key, users[0].key, users[1].key]);
    expect(held).toEqual({ [team.key]: 690, [users[0].key]: admitted(0) * 30, [users[1].key]: admitted(1) * 30 });
  });

  test('concurrent settles of one id charge once', async ({ store, k }) => {
    const c = cap(k('cap'), 1000, [k('c')]);
    await store.reserve({ id: k('r'), amount: 100, ttlMs: LONG, constraints: [c] });
    const results = await Promise.all(Array.from({ length: 10 }, () => store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 7 }] })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 7 });
  });

  test('50 concurrent rate hits take exactly the limit', async ({ store, k }) => {
    const bucket = { key: k('rpm'), limit: 20, windowMs: 3_600_000, cost: 1 };
    const results = await Promise.all(Array.from({ length: 50 }, () => store.hitRate([bucket])));
    expect(results.filter((r) => r.ok)).toHaveLength(20);
  });

  test('concurrent setOnce on one key succeeds once', async ({ store, k }) => {
    const results = await Promise.all(Array.from({ length: 20 }, () => store.setOnce(k('m'), LONG)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
}
