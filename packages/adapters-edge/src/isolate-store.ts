import { createMemoryStore, type MemoryStoreOptions, type StateStore } from '@tollgate/core/minimal';

/**
 * The per-isolate default store: `createMemoryStore()`, made on first use rather than at
 * construction. Its state lives in one isolate (one Worker instance, one Deno or Bun process,
 * one serverless function instance) and is lost when the isolate goes away; isolates do not
 * see each other's counters. Creating it lazily matters on Cloudflare Workers, where timers
 * (the store's sweeper) may only be set while handling a request, so the handler can be made
 * at module scope.
 */
export function createIsolateStore(options: MemoryStoreOptions = {}): StateStore {
  let store: StateStore | undefined;
  let closed = false;
  const get = (): StateStore => (store ??= createMemoryStore(options));
  return {
    reserve: (request) => get().reserve(request),
    renew: (id, ttlMs) => get().renew(id, ttlMs),
    settle: (request) => get().settle(request),
    release: (id) => get().release(id),
    getCounters: (keys) => get().getCounters(keys),
    getHeld: (keys) => get().getHeld(keys),
    hitRate: (buckets) => get().hitRate(buckets),
    // The memory store has it: one synchronous step.
    admit: (request) => get().admit!(request),
    setOnce: (key, ttlMs) => get().setOnce(key, ttlMs),
    hasMarker: (key) => get().hasMarker(key),
    sweep: () => (store === undefined ? Promise.resolve(0) : store.sweep()),
    async close() {
      if (closed) return;
      closed = true;
      // A store never used is still made (without a sweeper) and closed, so later calls fail like any closed store's.
      store ??= createMemoryStore({ ...options, sweepIntervalMs: 0 });
      await store.close();
    },
  };
}
