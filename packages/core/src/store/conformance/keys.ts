import { principalKey, type Principal } from '@tollgate/policy';
import { expect } from 'vitest';
import { counterKey, keyTag } from '../../gateway/keys.js';
import { LONG, type Register } from './context.js';

/** The keys the gateway builds for one principal (one rule, one model, one window), as in admission. */
function keysOf(p: Principal, tenant: string) {
  const tag = keyTag(p, () => tenant);
  const pkey = principalKey(p);
  return {
    counter: tag + counterKey(pkey, '2026-11', 'claude-sonnet'),
    cap: `${tag}spend:monthly:all:${pkey}:2026-11`,
    bucket: `${tag}rate:rpm:${pkey}:rpm`,
  };
}

/** Keys as the gateway names them: per principal kind and issuer, under a tenant's hash tag. */
export function keyTests(test: Register): void {
  test('kind namespace: a user, an application and a JWT user named alice share no counter, hold or bucket', async ({ store, k }) => {
    // The tenant tag is this test's own, so a shared backend keeps runs apart.
    const tenant = k('tenant').replace(/[{}]/g, '');
    const principals: Principal[] = [
      { kind: 'application', id: 'alice', application: 'alice' },
      { kind: 'user', id: 'alice' },
      { kind: 'user', id: 'alice', issuer: 'https://idp.example/' },
    ];
    const keys = principals.map((p) => keysOf(p, tenant));
    expect(new Set(keys.flatMap((x) => [x.counter, x.cap, x.bucket])).size).toBe(9);
    for (const [i, x] of keys.entries()) {
      const bucket = { key: x.bucket, limit: 1, windowMs: 3_600_000, cost: 1 };
      const reserve = { id: k(`r${i}`), amount: 100, ttlMs: LONG, constraints: [{ key: x.cap, limit: 100, counters: [x.counter] }] };
      if (store.admit !== undefined) {
        // Every key of a principal lives under its tenant's tag: one atomic step, never split.
        const result = await store.admit({ buckets: [bucket], counters: [x.counter], reserve });
        expect(result).toMatchObject({ rate: { ok: true }, counters: { [x.counter]: 0 }, reserve: { ok: true } });
      } else {
        expect(await store.hitRate([bucket])).toMatchObject({ ok: true });
        expect(await store.getCounters([x.counter])).toEqual({ [x.counter]: 0 });
        expect(await store.reserve(reserve)).toEqual({ ok: true });
      }
      expect(await store.settle({ id: k(`r${i}`), charges: [{ counter: x.counter, amount: 100 }] })).toBe(true);
    }
    expect(await store.getCounters(keys.map((x) => x.counter))).toEqual(Object.fromEntries(keys.map((x) => [x.counter, 100])));
    expect(await store.getHeld(keys.map((x) => x.cap))).toEqual(Object.fromEntries(keys.map((x) => [x.cap, 0])));
    // Each cap is full and each bucket taken, for that principal only.
    for (const [i, x] of keys.entries()) {
      expect(
        await store.reserve({ id: k(`again${i}`), amount: 1, ttlMs: LONG, constraints: [{ key: x.cap, limit: 100, counters: [x.counter] }] }),
      ).toMatchObject({ ok: false, committed: 100 });
      expect(await store.hitRate([{ key: x.bucket, limit: 1, windowMs: 3_600_000, cost: 1 }])).toMatchObject({ ok: false, key: x.bucket });
    }
  });
}
