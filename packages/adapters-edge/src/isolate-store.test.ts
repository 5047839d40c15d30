import { describe, expect, it, vi } from 'vitest';
import { describeStoreConformance } from '@tollgate/core/testing';
import { createIsolateStore } from './isolate-store.js';

describeStoreConformance('isolate store', ({ now }) => createIsolateStore({ now, sweepIntervalMs: 0 }));

describe('createIsolateStore', () => {
  it('makes the memory store (and its sweeper timer) on first use, not at construction', async () => {
    const spy = vi.spyOn(globalThis, 'setInterval');
    const store = createIsolateStore({ sweepIntervalMs: 60_000 });
    expect(spy).not.toHaveBeenCalled();
    await store.getCounters(['a']);
    expect(spy).toHaveBeenCalledTimes(1);
    await store.close();
    spy.mockRestore();
  });

  it('closes even when never used, and fails like a closed store afterwards', async () => {
    const store = createIsolateStore();
    expect(await store.sweep()).toBe(0);
    await store.close();
    await store.close();
    await expect(store.getCounters(['a'])).rejects.toThrow(/closed/);
  });
});
