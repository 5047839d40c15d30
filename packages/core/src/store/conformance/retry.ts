import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

/** What the gateway relies on to keep holds alive until settle, and to retry settles. */
export function retryTests(test: Register): void {
  test('renew-until-settle: a hold renewed every quarter TTL outlives many TTLs and counts until settled', async ({ store, k, advance, ttl }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    expect(await store.reserve({ id: k('r'), amount: 60, ttlMs: ttl, constraints: [c] })).toEqual({ ok: true });
    // Renewed as the gateway does (about every quarter TTL), so a loaded machine's real-clock
    // run has three quarters of a TTL of slack between renewals.
    for (let i = 0; i < 10; i++) {
      await advance(ttl / 4);
      expect(await store.renew(k('r'), ttl)).toBe(true);
    }
    // 2.5 TTLs after it was made, the hold still counts.
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 60 });
    expect(await store.reserve({ id: k('other'), amount: 41, ttlMs: LONG, constraints: [c] })).toMatchObject({ ok: false, held: 60 });
    expect(await store.settle({ id: k('r'), charges: [{ counter: k('c'), amount: 25 }] })).toBe(true);
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.reserve({ id: k('other'), amount: 75, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
  });

  test('settle-retry: a settle repeated after its answer was lost charges once, and renew cannot bring its hold back', async ({ store, k }) => {
    const c = cap(k('cap'), 100, [k('c')]);
    await store.reserve({ id: k('r'), amount: 50, ttlMs: LONG, constraints: [c] });
    const charge = { id: k('r'), charges: [{ counter: k('c'), amount: 30 }], counterTtlMs: LONG };
    expect(await store.settle(charge)).toBe(true);
    // The gateway never saw that answer and retries, several times, renewing the hold meanwhile.
    for (let i = 0; i < 3; i++) {
      expect(await store.renew(k('r'), LONG)).toBe(false);
      expect(await store.settle(charge)).toBe(false);
    }
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 30 });
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
  });

  test('settle-retry: a renew racing its settle never leaves the hold behind', async ({ store, k }) => {
    const c = cap(k('cap'), 1000, [k('c')]);
    for (let i = 0; i < 10; i++) await store.reserve({ id: k(`r${i}`), amount: 10, ttlMs: LONG, constraints: [c] });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [
        store.renew(k(`r${i}`), LONG),
        store.settle({ id: k(`r${i}`), charges: [{ counter: k('c'), amount: 1 }] }),
        store.renew(k(`r${i}`), LONG),
      ]).flat(),
    );
    expect(await store.getHeld([c.key])).toEqual({ [c.key]: 0 });
    expect(await store.getCounters([k('c')])).toEqual({ [k('c')]: 10 });
  });
}
