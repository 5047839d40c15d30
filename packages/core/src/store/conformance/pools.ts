import { expect } from 'vitest';
import { LONG, cap, type Register } from './context.js';

/**
 * Pooled caps and in-flight limits: one reservation against a caller's own cap and its team's,
 * BU's and organisation's (each pool's counters shared by its members), an in-flight limit that
 * holds one unit per request whatever the amount, shadow (soft) limits, and bucket counters
 * that live shorter than the calendar ones.
 */
export function poolTests(test: Register, admit: boolean): void {
  /** Caps of one caller of a BU: its own, its team's, its BU's and the organisation's. */
  const pools = (k: (n: string) => string, user: string, limits: { user: number; team: number; bu: number; org: number }) => [
    cap(k(`spend:user:${user}`), limits.user, [k(`c:user:${user}:a`), k(`c:user:${user}:b`)]),
    cap(k('spend:team:search'), limits.team, [k('c:team:search:a'), k('c:team:search:b')]),
    cap(k('spend:bu:payments'), limits.bu, [k('c:bu:payments:a'), k('c:bu:payments:b')]),
    cap(k('spend:org'), limits.org, [k('c:org:a'), k('c:org:b')]),
  ];
  const charges = (k: (n: string) => string, user: string, model: 'a' | 'b', amount: number) =>
    [`c:user:${user}:${model}`, `c:team:search:${model}`, `c:bu:payments:${model}`, `c:org:${model}`].map((c) => ({ counter: k(c), amount }));

  test('a reservation across four pools is all or nothing: a full BU refuses it and nothing is held anywhere', async ({ store, k }) => {
    const limits = { user: 1000, team: 1000, bu: 300, org: 5000 };
    await store.settle({ id: k('earlier'), charges: charges(k, 'bob', 'a', 250) });
    const mine = pools(k, 'ann', limits);
    const refused = await store.reserve({ id: k('r1'), amount: 60, ttlMs: LONG, constraints: mine });
    expect(refused).toMatchObject({ ok: false, key: mine[2]!.key, limit: 300, committed: 250, held: 0 });
    expect(await store.getHeld(mine.map((c) => c.key))).toEqual(Object.fromEntries(mine.map((c) => [c.key, 0])));
    expect(await store.reserve({ id: k('r2'), amount: 50, ttlMs: LONG, constraints: mine })).toEqual({ ok: true });
    expect(await store.getHeld(mine.map((c) => c.key))).toEqual(Object.fromEntries(mine.map((c) => [c.key, 50])));
    // Settle touches every pool: the hold goes from each, the cost lands on each pool's counter.
    expect(await store.settle({ id: k('r2'), charges: charges(k, 'ann', 'b', 20) })).toBe(true);
    expect(await store.getHeld(mine.map((c) => c.key))).toEqual(Object.fromEntries(mine.map((c) => [c.key, 0])));
    expect(await store.getCounters([k('c:bu:payments:a'), k('c:bu:payments:b'), k('c:user:ann:b')])).toEqual({
      [k('c:bu:payments:a')]: 250,
      [k('c:bu:payments:b')]: 20,
      [k('c:user:ann:b')]: 20,
    });
  });

  test('four members racing 40 reservations never pass a pool’s cap nor their own', async ({ store, k }) => {
    const limits = { user: 300, team: 100_000, bu: 700, org: 100_000 };
    const users = ['ann', 'ben', 'cat', 'dan'];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.reserve({ id: k(`r${i}`), amount: 40, ttlMs: LONG, constraints: pools(k, users[i % 4]!, limits) })),
    );
    const admitted = results.map((r, i) => (r.ok ? users[i % 4]! : null)).filter((u) => u !== null);
    expect(admitted).toHaveLength(17); // floor(700 / 40)
    for (const u of users) expect(admitted.filter((x) => x === u).length * 40).toBeLessThanOrEqual(300);
    expect(await store.getHeld([k('spend:bu:payments')])).toEqual({ [k('spend:bu:payments')]: 680 });
  });

  test('an in-flight limit holds one unit per request while a cap holds the amount', async ({ store, k }) => {
    const spend = cap(k('spend'), 1000, [k('c')]);
    const inflight = { key: k('conc'), limit: 2, counters: [], amount: 1 };
    const reserve = (id: string) => store.reserve({ id: k(id), amount: 100, ttlMs: LONG, constraints: [spend, inflight] });
    expect(await reserve('r1')).toEqual({ ok: true });
    expect(await reserve('r2')).toEqual({ ok: true });
    expect(await store.getHeld([spend.key, inflight.key])).toEqual({ [spend.key]: 200, [inflight.key]: 2 });
    expect(await reserve('r3')).toMatchObject({ ok: false, key: inflight.key, limit: 2, committed: 0, held: 2 });
    expect(await store.getHeld([spend.key])).toEqual({ [spend.key]: 200 });
    // The end of a request (its settle, or a release) frees its place.
    await store.settle({ id: k('r1'), charges: [{ counter: k('c'), amount: 10 }] });
    expect(await reserve('r3')).toEqual({ ok: true });
    await store.release(k('r2'));
    expect(await store.getHeld([spend.key, inflight.key])).toEqual({ [spend.key]: 100, [inflight.key]: 1 });
  });

  test('a place held by a request whose replica died frees itself after the TTL; a renewed one stays', async ({ store, k, advance, ttl }) => {
    const inflight = { key: k('conc'), limit: 2, counters: [], amount: 1 };
    const reserve = (id: string) => store.reserve({ id: k(id), amount: 0, ttlMs: ttl, constraints: [inflight] });
    expect(await reserve('dead')).toEqual({ ok: true });
    expect(await reserve('live')).toEqual({ ok: true });
    expect(await reserve('third')).toMatchObject({ ok: false, key: inflight.key });
    await advance(ttl * 0.6);
    expect(await store.renew(k('live'), ttl)).toBe(true);
    await advance(ttl * 0.6);
    expect(await store.getHeld([inflight.key])).toEqual({ [inflight.key]: 1 });
    expect(await reserve('third')).toEqual({ ok: true });
    expect(await reserve('fourth')).toMatchObject({ ok: false, key: inflight.key });
  });

  test('a soft limit counts holds but never refuses: passing it is reported', async ({ store, k }) => {
    const hard = cap(k('spend'), 1000, [k('c')]);
    const shadow = { key: k('shadow-conc'), limit: 1, counters: [], amount: 1, soft: true };
    const reserve = (id: string) => store.reserve({ id: k(id), amount: 100, ttlMs: LONG, constraints: [hard, shadow] });
    const first = await reserve('r1');
    expect(first.ok).toBe(true);
    expect(first.ok && (first.over ?? [])).toEqual([]);
    expect(await reserve('r2')).toEqual({ ok: true, over: [shadow.key] });
    expect(await store.getHeld([shadow.key, hard.key])).toEqual({ [shadow.key]: 2, [hard.key]: 200 });
    // A hard limit still refuses, soft ones beside it notwithstanding.
    expect(await store.reserve({ id: k('r3'), amount: 900, ttlMs: LONG, constraints: [shadow, hard] })).toMatchObject({ ok: false, key: hard.key });
  });

  test('a charge with its own TTL expires on it; the others keep the settle’s', async ({ store, k, advance, ttl }) => {
    await store.settle({
      id: k('r'),
      counterTtlMs: LONG,
      charges: [
        { counter: k('c:bucket'), amount: 5, ttlMs: ttl },
        { counter: k('c:month'), amount: 7 },
      ],
    });
    expect(await store.getCounters([k('c:bucket'), k('c:month')])).toEqual({ [k('c:bucket')]: 5, [k('c:month')]: 7 });
    await advance(ttl * 1.5);
    expect(await store.getCounters([k('c:bucket'), k('c:month')])).toEqual({ [k('c:bucket')]: 0, [k('c:month')]: 7 });
  });

  test('rejects a malformed per-constraint amount or charge TTL', async ({ store, k }) => {
    await expect(store.reserve({ id: k('r'), amount: 1, ttlMs: LONG, constraints: [{ key: k('x'), limit: 1, counters: [], amount: -1 }] })).rejects.toThrow(
      RangeError,
    );
    await expect(store.settle({ id: k('s'), charges: [{ counter: k('c'), amount: 1, ttlMs: 0 }] })).rejects.toThrow(RangeError);
  });

  if (!admit) return;

  test('admit reserves across pools and in-flight limits in the same step, reporting soft limits passed', async ({ store, k }) => {
    const mine = pools(k, 'ann', { user: 1000, team: 1000, bu: 1000, org: 1000 });
    const inflight = { key: k('conc'), limit: 1, counters: [], amount: 1 };
    const shadow = { key: k('shadow'), limit: 0, counters: [], amount: 1, soft: true };
    const counters = mine.flatMap((c) => c.counters);
    const result = await store.admit!({ buckets: [], counters, reserve: { id: k('r1'), amount: 30, ttlMs: LONG, constraints: [...mine, inflight, shadow] } });
    expect(result).toMatchObject({ rate: { ok: true }, reserve: { ok: true, over: [shadow.key] } });
    expect(await store.getHeld([mine[2]!.key, inflight.key, shadow.key])).toEqual({ [mine[2]!.key]: 30, [inflight.key]: 1, [shadow.key]: 1 });
    const second = await store.admit!({ buckets: [], counters, reserve: { id: k('r2'), amount: 30, ttlMs: LONG, constraints: [...mine, inflight] } });
    expect(second).toMatchObject({ reserve: { ok: false, key: inflight.key } });
    expect(await store.getHeld([mine[0]!.key])).toEqual({ [mine[0]!.key]: 30 });
  });
}
