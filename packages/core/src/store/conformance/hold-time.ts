import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

export function holdTimeTests(test: Register): void {
  test('a hold stops counting as soon as its TTL passes, without a sweep', async (t) => {
    const { store, k, advance, ttl } = t;
    const c = cap(k('cap'), 100, [k('c')]);
    expect(await store.reserve({ id: k('r1'), amount: 60, ttlMs: ttl, constraints: [c] })).toEqual({ ok: true });

    await advance(t.realClock ? ttl / 2 : ttl - 1);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 60 });
    const refused = await store.reserve({ id: k('r2'), amount: 41, ttlMs: LONG, constraints: [c] });
    expect(refused).toMatchObject({ ok: false, held: 60 });

    await advance(t.realClock ? ttl : 2);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.renew(k('r1'), LONG)).toBe(false);
    expect(await store.reserve({ id: k('r2'), amount: 100, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
  });

  test('renew extends a live hold and fails for a gone one', async ({ store, k, advance, ttl }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r'), amount: 25, ttlMs: ttl, constraints: [c] });
    await advance(ttl * 0.75);
    expect(await store.renew(k('r'), ttl)).toBe(true);
    await advance(ttl * 0.75); // past the original expiry, before the renewed one
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 25 });
    await advance(ttl * 0.5);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.renew(k('r'), ttl)).toBe(false);
    expect(await store.renew(k('never-reserved'), ttl)).toBe(false);
  });

  test('an id whose hold expired may be reserved again', async ({ store, k, advance, ttl }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r'), amount: 10, ttlMs: ttl, constraints: [c] });
    await advance(ttl * 1.5);
    expect(await store.reserve({ id: k('r'), amount: 10, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 10 });
  });
}
