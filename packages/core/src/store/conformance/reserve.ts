import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function reserveTests(test: Register): void {
  test('is all-or-nothing across three constraints', async ({ store, k }) => {
    const user = cap(k('user'), 100, [k('c:user')]);
    const org = cap(k('org'), 1000, [k('c:org')]);
    const team = cap(k('team'), 50, [k('c:team')]);
    const constraints = [user, org, team];
    const keys = [user.key, org.key, team.key];

    const refused = await store.reserve({ id: k('r1'), amount: 60, ttlMs: LONG, constraints });
    expect(refused).toMatchObject({ ok: false, key: team.key, limit: 50, committed: 0, held: 0 });
    expect(await store.getHeld(keys)).toEqual({ [user.key]: 0, [org.key]: 0, [team.key]: 0 });

    expect(await store.reserve({ id: k('r2'), amount: 40, ttlMs: LONG, constraints })).toEqual({ ok: true });
    expect(await store.getHeld(keys)).toEqual({ [user.key]: 40, [org.key]: 40, [team.key]: 40 });

    const again = await store.reserve({ id: k('r3'), amount: 20, ttlMs: LONG, constraints });
    expect(again).toMatchObject({ ok: false, key: team.key, limit: 50, committed: 0, held: 40 });
    expect(await store.getHeld(keys)).toEqual({ [user.key]: 40, [org.key]: 40, [team.key]: 40 });
  });

  test('reports the first constraint, in order, that cannot take the amount', async ({ store, k }) => {
    const a = cap(k('a'), 10, [k('ca')]);
    const b = cap(k('b'), 10, [k('cb')]);
    const ab = await store.reserve({ id: k('r1'), amount: 20, ttlMs: LONG, constraints: [a, b] });
    const ba = await store.reserve({ id: k('r2'), amount: 20, ttlMs: LONG, constraints: [b, a] });
    expect(ab).toMatchObject({ ok: false, key: a.key });
    expect(ba).toMatchObject({ ok: false, key: b.key });
  });

  test('admits committed + held + amount == limit and refuses one more', async ({ store, k }) => {
    const limit = cap(k('cap'), 100, [k('c1'), k('c2')]);
    expect(await store.reserve({ id: k('r0'), amount: 30, ttlMs: LONG, constraints: [limit] })).toEqual({ ok: true });
    await store.settle({
      id: k('r0'),
      charges: [
        { counter: k('c1'), amount: 10 },
        { counter: k('c2'), amount: 20 },
      ],
    });
    expect(await store.reserve({ id: k('r1'), amount: 20, ttlMs: LONG, constraints: [limit] })).toEqual({ ok: true });

    const over = await store.reserve({ id: k('r2'), amount: 51, ttlMs: LONG, constraints: [limit] });
    expect(over).toMatchObject({ ok: false, key: limit.key, limit: 100, committed: 30, held: 20 });
    expect(await store.reserve({ id: k('r2'), amount: 50, ttlMs: LONG, constraints: [limit] })).toEqual({ ok: true });
    const full = await store.reserve({ id: k('r3'), amount: 1, ttlMs: LONG, constraints: [limit] });
    expect(full).toMatchObject({ ok: false, key: limit.key, limit: 100, committed: 30, held: 70 });
    expect(await store.getHeld([limit.key])).toEqual({ [limit.key]: 70 });
  });

  test('rejects reserving an id that is already held', async ({ store, k }) => {
    const c = cap(k('cap'), 1000, [k('c')]);
    await store.reserve({ id: k('r'), amount: 10, ttlMs: LONG, constraints: [c] });
    await expect(store.reserve({ id: k('r'), amount: 10, ttlMs: LONG, constraints: [c] })).rejects.toThrow();
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 10 });
    await store.release(k('r'));
    expect(await store.reserve({ id: k('r'), amount: 10, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
  });

  test('a reservation without constraints can be renewed and settled', async ({ store, k }) => {
    expect(await store.reserve({ id: k('r'), amount: 5, ttlMs: LONG, constraints: [] })).toEqual({ ok: true });
    expect(await store.renew(k('r'), LONG)).toBe(true);
    expect(await store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 5 }] })).toBe(true);
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 5 });
  });
}
