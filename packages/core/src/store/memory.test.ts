import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeClock, describeStoreConformance } from '../testing.js';
import { createMemoryStore } from './memory.js';
import { StoreUnavailableError, type SpendConstraint } from './types.js';

describeStoreConformance('memory', ({ now }) => createMemoryStore({ now, sweepIntervalMs: 0 }));
// The suite's real-clock path (the one the Redis store takes), exercised against the memory store.
describeStoreConformance('memory, real clock', () => createMemoryStore({ sweepIntervalMs: 0 }), {
  realClock: true,
  realTtlMs: 200,
});

const cap = (key: string, limit: number, counters: string[] = [`c:${key}`]): SpendConstraint => ({
  key,
  limit,
  counters,
});

describe('createMemoryStore specifics', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('sweep returns exactly the number of expired holds it removed', async () => {
    const clock = createFakeClock();
    const store = createMemoryStore({ now: clock.now, sweepIntervalMs: 0 });
    for (const id of ['a', 'b', 'c']) await store.reserve({ id, amount: 1, ttlMs: 100, constraints: [cap(id, 10)] });
    await store.reserve({ id: 'd', amount: 1, ttlMs: 1000, constraints: [cap('a', 10)] });
    clock.advance(100);
    expect(await store.sweep()).toBe(3);
    expect(await store.sweep()).toBe(0);
    expect(await store.getHeld(['a'])).toEqual({ a: 1 });
  });

  it('runs a background sweeper, unref()s it and stops it on close', async () => {
    vi.useFakeTimers();
    const fakeSetInterval = globalThis.setInterval;
    const unref = vi.fn();
    const spy = vi
      .spyOn(globalThis, 'setInterval')
      .mockImplementation(((fn: () => void, ms: number) => Object.assign(fakeSetInterval(fn, ms), { unref })) as unknown as typeof setInterval);
    const store = createMemoryStore({ now: () => Date.now(), sweepIntervalMs: 1000 });
    expect(spy).toHaveBeenCalledWith(expect.any(Function), 1000);
    expect(unref).toHaveBeenCalledOnce();

    await store.reserve({ id: 'r', amount: 5, ttlMs: 500, constraints: [cap('k', 10)] });
    vi.advanceTimersByTime(1000);
    expect(await store.sweep()).toBe(0); // the background sweep already removed it

    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts no timer when sweepIntervalMs is 0, and one (30 s) by default', async () => {
    vi.useFakeTimers();
    const quiet = createMemoryStore({ sweepIntervalMs: 0 });
    expect(vi.getTimerCount()).toBe(0);
    const swept = createMemoryStore();
    expect(vi.getTimerCount()).toBe(1);
    await Promise.all([quiet.close(), swept.close(), swept.close()]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects every operation after close() with StoreUnavailableError', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    await store.close();
    const calls: Array<Promise<unknown>> = [
      store.reserve({ id: 'r', amount: 1, ttlMs: 1, constraints: [] }),
      store.renew('r', 1),
      store.settle({ id: 'r', charges: [] }),
      store.release('r'),
      store.getCounters(['c']),
      store.getHeld(['k']),
      store.hitRate([]),
      store.setOnce('m', 1),
      store.hasMarker('m'),
      store.sweep(),
    ];
    for (const call of calls) {
      await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(call).rejects.toThrow(/closed/);
    }
    await expect(store.close()).resolves.toBeUndefined();
  });

  it('rejects malformed arguments', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const ok = { id: 'r', amount: 1, ttlMs: 1000, constraints: [cap('k', 10)] };
    await expect(store.reserve({ ...ok, amount: -1 })).rejects.toThrow(RangeError);
    await expect(store.reserve({ ...ok, amount: 1.5 })).rejects.toThrow(/safe integer/);
    await expect(store.reserve({ ...ok, ttlMs: 0 })).rejects.toThrow(RangeError);
    await expect(store.reserve({ ...ok, id: '' })).rejects.toThrow(RangeError);
    await expect(store.reserve({ ...ok, constraints: [cap('k', Number.NaN)] })).rejects.toThrow(RangeError);
    await expect(store.settle({ id: 'r', charges: [{ counter: 'c', amount: -5 }] })).rejects.toThrow(RangeError);
    await expect(store.hitRate([{ key: 'b', limit: 1, windowMs: 0, cost: 1 }])).rejects.toThrow(RangeError);
    await expect(store.setOnce('m', Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    // A rejected settle changed nothing.
    expect(await store.settle({ id: 'r', charges: [{ counter: 'c', amount: 5 }] })).toBe(true);
    expect(await store.getCounters(['c'])).toEqual({ c: 5 });
    expect(() => createMemoryStore({ settledTtlMs: -1 })).toThrow(RangeError);
    await store.close();
  });

  it('forgets a settled id after settledTtlMs', async () => {
    const clock = createFakeClock();
    const store = createMemoryStore({ now: clock.now, sweepIntervalMs: 0, settledTtlMs: 1000 });
    const settle = () => store.settle({ id: 'r', charges: [{ counter: 'c', amount: 3 }] });
    expect(await settle()).toBe(true);
    clock.advance(999);
    expect(await settle()).toBe(false);
    clock.advance(1);
    expect(await settle()).toBe(true);
    expect(await store.getCounters(['c'])).toEqual({ c: 6 });
  });

  it('counts a constraint key named twice once, and a rate key named twice twice', async () => {
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const k = cap('k', 10);
    expect(await store.reserve({ id: 'r', amount: 6, ttlMs: 1000, constraints: [k, k] })).toEqual({ ok: true });
    expect(await store.getHeld(['k'])).toEqual({ k: 6 });
    await store.release('r');
    const b = { key: 'b', limit: 3, windowMs: 60_000, cost: 2 };
    expect(await store.hitRate([b, b])).toMatchObject({ ok: false, key: 'b' });
    expect(await store.hitRate([b])).toMatchObject({ ok: true });
    expect(await store.hitRate([b])).toMatchObject({ ok: false });
  });

  it('a counter keeps its TTL when charged without one, and refreshes it when charged with one', async () => {
    const clock = createFakeClock();
    const store = createMemoryStore({ now: clock.now, sweepIntervalMs: 0 });
    await store.settle({ id: 'a', charges: [{ counter: 'c', amount: 1 }], counterTtlMs: 1000 });
    clock.advance(500);
    await store.settle({ id: 'b', charges: [{ counter: 'c', amount: 1 }] });
    clock.advance(500);
    expect(await store.getCounters(['c'])).toEqual({ c: 0 });
    await store.settle({ id: 'c', charges: [{ counter: 'c', amount: 1 }], counterTtlMs: 1000 });
    clock.advance(900);
    await store.settle({ id: 'd', charges: [{ counter: 'c', amount: 1 }], counterTtlMs: 1000 });
    clock.advance(900);
    expect(await store.getCounters(['c'])).toEqual({ c: 2 });
  });

  it('renewing a hold many times keeps its index small', async () => {
    const clock = createFakeClock();
    const store = createMemoryStore({ now: clock.now, sweepIntervalMs: 0 });
    const constraints = [cap('a', 1e9), cap('b', 1e9), cap('c', 1e9)];
    await store.reserve({ id: 'r', amount: 1, ttlMs: 60_000, constraints });
    for (let i = 0; i < 10_000; i++) {
      clock.advance(10);
      expect(await store.renew('r', 60_000)).toBe(true);
    }
    // Behaviour is what the suite checks; here only that nothing went wrong on the way.
    expect(await store.getHeld(['a', 'b', 'c'])).toEqual({ a: 1, b: 1, c: 1 });
    clock.advance(60_000);
    expect(await store.getHeld(['a', 'b', 'c'])).toEqual({ a: 0, b: 0, c: 0 });
  });
});
