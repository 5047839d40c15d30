import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from './clock.js';
import { createMemoryStore } from './memory.js';
import type { SpendConstraint } from './types.js';

/**
 * Model-based check of the indexed memory store against a naive one that scans every hold
 * on every read: after any sequence of operations both agree on every answer.
 */

const KEYS = ['k0', 'k1', 'k2'];
const LIMITS = [100, 150, 80];
const COUNTERS = [['c0'], ['c0', 'c1'], ['c2']];
const constraint = (i: number): SpendConstraint => ({ key: KEYS[i]!, limit: LIMITS[i]!, counters: COUNTERS[i]! });

type Op =
  | { op: 'reserve'; id: number; amount: number; ttl: number; keys: number[] }
  | { op: 'renew'; id: number; ttl: number }
  | { op: 'settle'; id: number; counter: number; amount: number }
  | { op: 'release'; id: number }
  | { op: 'advance'; ms: number }
  | { op: 'sweep' };

const id = fc.integer({ min: 0, max: 5 });
const ttl = fc.integer({ min: 1, max: 100 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('reserve' as const),
    id,
    amount: fc.integer({ min: 0, max: 60 }),
    ttl,
    keys: fc.subarray([0, 1, 2, 1]),
  }),
  fc.record({ op: fc.constant('renew' as const), id, ttl }),
  fc.record({ op: fc.constant('settle' as const), id, counter: fc.integer({ min: 0, max: 2 }), amount: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ op: fc.constant('release' as const), id }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 60 }) }),
  fc.constant({ op: 'sweep' as const }),
);

class NaiveStore {
  holds = new Map<string, { amount: number; expiresAt: number; keys: string[] }>();
  counters = new Map<string, number>();
  settled = new Set<string>();
  constructor(private readonly now: () => number) {}

  held(key: string): number {
    let sum = 0;
    for (const h of this.holds.values()) if (h.expiresAt > this.now() && h.keys.includes(key)) sum += h.amount;
    return sum;
  }
  live(id: string) {
    const h = this.holds.get(id);
    return h !== undefined && h.expiresAt > this.now() ? h : undefined;
  }
  reserve(id: string, amount: number, ttlMs: number, constraints: SpendConstraint[]) {
    if (this.live(id)) return 'throws';
    for (const c of constraints) {
      const committed = [...new Set(c.counters)].reduce((s, k) => s + (this.counters.get(k) ?? 0), 0);
      const held = this.held(c.key);
      if (committed + held + amount > c.limit) return { ok: false, key: c.key, limit: c.limit, committed, held };
    }
    this.holds.set(id, { amount, expiresAt: this.now() + ttlMs, keys: constraints.map((c) => c.key) });
    return { ok: true };
  }
}

async function run(ops: Op[]): Promise<void> {
  const clock = createFakeClock(0);
  const store = createMemoryStore({ now: clock.now, sweepIntervalMs: 0 });
  const model = new NaiveStore(clock.now);
  for (const o of ops) {
    const rid = 'id' in o ? `r${o.id}` : '';
    switch (o.op) {
      case 'reserve': {
        const cs = o.keys.map(constraint);
        const want = model.reserve(rid, o.amount, o.ttl, cs);
        const got = await store.reserve({ id: rid, amount: o.amount, ttlMs: o.ttl, constraints: cs }).catch(() => 'throws');
        expect(got).toEqual(want);
        break;
      }
      case 'renew': {
        const h = model.live(rid);
        if (h) h.expiresAt = clock.now() + o.ttl;
        expect(await store.renew(rid, o.ttl)).toBe(h !== undefined);
        break;
      }
      case 'settle': {
        const first = !model.settled.has(rid);
        if (first) {
          model.settled.add(rid);
          model.holds.delete(rid);
          const c = `c${o.counter}`;
          model.counters.set(c, (model.counters.get(c) ?? 0) + o.amount);
        }
        expect(await store.settle({ id: rid, charges: [{ counter: `c${o.counter}`, amount: o.amount }] })).toBe(first);
        break;
      }
      case 'release':
        model.holds.delete(rid);
        await store.release(rid);
        break;
      case 'advance':
        clock.advance(o.ms);
        break;
      case 'sweep':
        await store.sweep();
        break;
    }
    const held = await store.getHeld(KEYS);
    expect(held).toEqual(Object.fromEntries(KEYS.map((k) => [k, model.held(k)])));
  }
  await store.close();
}

describe('memory store against a naive model', () => {
  it('agrees on every reserve, renew, settle and held sum', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), run), { numRuns: 300 });
  });
});
