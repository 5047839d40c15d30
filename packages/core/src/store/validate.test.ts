import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.js';

describe('store argument checks', () => {
  it('name the counter, constraint or bucket a malformed value belongs to', async () => {
    const store = createMemoryStore();
    await expect(store.settle({ id: 'r1', charges: [{ counter: 'c:user:a:2026-11:m', amount: -1 }] })).rejects.toThrow(
      'tollgate store: charge to c:user:a:2026-11:m must be a non-negative safe integer, got -1',
    );
    await expect(store.settle({ id: 'r2', charges: [{ counter: 'c:x', amount: 1, ttlMs: 0 }] })).rejects.toThrow(
      'ttlMs of c:x must be a positive finite number',
    );
    await expect(store.reserve({ id: 'r3', amount: 1, ttlMs: 1000, constraints: [{ key: 'spend:cap', limit: 10, counters: ['c:x', ''] }] })).rejects.toThrow(
      'tollgate store: counter of spend:cap must be a non-empty string, got ',
    );
    await expect(store.reserve({ id: 'r4', amount: 1, ttlMs: 1000, constraints: [{ key: 'spend:cap', limit: Number.NaN, counters: [] }] })).rejects.toThrow(
      'limit of spend:cap must be a non-negative number, got NaN',
    );
    await expect(store.hitRate([{ key: 'rpm:a', limit: 10, windowMs: 60_000, cost: 1.5 }])).rejects.toThrow(
      'cost on rpm:a must be a non-negative safe integer, got 1.5',
    );
    await expect(store.settle({ id: '', charges: [] })).rejects.toThrow('tollgate store: settle id must be a non-empty string');
  });
});
