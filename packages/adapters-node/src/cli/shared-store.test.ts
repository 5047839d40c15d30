import { createMemoryStore } from '@tollgate/core';
import { describeStoreConformance } from '@tollgate/core/testing';
import { describe, expect, it } from 'vitest';
import { createChannelStore, serveStore, type Channel } from './shared-store.js';

/** Two ends of a message channel that copies every message as JSON, as the cluster IPC does, one turn later. */
function channelPair(): { primary: Channel; worker: Channel; close(): void } {
  const listeners = { primary: new Set<(m: unknown) => void>(), worker: new Set<(m: unknown) => void>() };
  const closers = new Set<() => void>();
  let open = true;
  const end = (from: 'primary' | 'worker'): Channel => {
    const to = from === 'primary' ? 'worker' : 'primary';
    return {
      send(message) {
        if (!open) throw new Error('channel closed');
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        setImmediate(() => {
          for (const l of listeners[to]) l(copy);
        });
      },
      onMessage(listener) {
        listeners[from].add(listener);
        return () => listeners[from].delete(listener);
      },
      onClose(listener) {
        closers.add(listener);
        return () => closers.delete(listener);
      },
    };
  };
  return {
    primary: end('primary'),
    worker: end('worker'),
    close() {
      open = false;
      for (const c of closers) c();
    },
  };
}

// The whole store contract, through the channel: what a worker's gateway sees.
describeStoreConformance('memory store shared over a channel (serve --workers)', ({ now }) => {
  const pair = channelPair();
  const backing = createMemoryStore({ now, sweepIntervalMs: 0 });
  serveStore(backing, pair.primary);
  const store = createChannelStore(pair.worker);
  const close = store.close;
  store.close = async () => {
    await close();
    await backing.close();
  };
  return store;
});

describe('createChannelStore', () => {
  it('two workers share one set of limits: a cap admits exactly what fits, whoever asks', async () => {
    const backing = createMemoryStore({ sweepIntervalMs: 0 });
    const workers = [channelPair(), channelPair()].map((pair) => {
      serveStore(backing, pair.primary);
      return createChannelStore(pair.worker);
    });
    const constraints = [{ key: 'cap:team', limit: 1000, counters: ['spent:team'] }];
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => workers[i % 2]!.reserve({ id: `r${i}`, amount: 100, ttlMs: 60_000, constraints })));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    await backing.close();
  });

  it('fails calls as StoreUnavailableError once the primary is gone (spend caps fail closed)', async () => {
    const pair = channelPair();
    const store = createChannelStore(pair.worker);
    // Nobody serves: the call waits until the channel closes.
    const pendingCall = store.hitRate([{ key: 'b', limit: 1, windowMs: 1000, cost: 1 }]);
    pair.close();
    await expect(pendingCall).rejects.toMatchObject({ name: 'StoreUnavailableError' });
    await expect(store.getCounters(['x'])).rejects.toMatchObject({ name: 'StoreUnavailableError' });
  });
});
