import { describe, expect, it } from 'vitest';
import type { StateStore } from '../store/types.js';
import type { Metrics } from './instruments.js';
import { instrumentStore } from './store.js';

/** A query that runs each time `then` is called, as a query builder returned without `await` does. */
class LazyQuery<T> implements PromiseLike<T> {
  constructor(private readonly run: () => Promise<T>) {}
  then<A = T, B = never>(onOk?: ((v: T) => A | PromiseLike<A>) | null, onError?: ((e: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return this.run().then(onOk, onError);
  }
}

function metrics(): { m: Metrics; durations: string[] } {
  const durations: string[] = [];
  const m = {
    storeDuration: { record: (_s: number, attrs: Record<string, string>) => void durations.push(Object.values(attrs).join('/')) },
    settleRetries: { add() {} },
    holds: { count: 0, micros: 0, sweep() {} },
  } as unknown as Metrics;
  return { m, durations };
}

describe('a store seen through telemetry', () => {
  it('asks a store that answers with lazy thenables once per call, and times each call once', async () => {
    const runs = { settle: 0, release: 0 };
    const store = {
      settle: () => new LazyQuery(async () => (runs.settle++, true)),
      release: () => new LazyQuery(async () => void runs.release++),
    } as unknown as StateStore;
    const { m, durations } = metrics();
    const wrapped = instrumentStore(store, m);
    await expect(wrapped.settle({ id: 'r1' } as never)).resolves.toBe(true);
    await wrapped.release('r2');
    expect(runs).toEqual({ settle: 1, release: 1 });
    expect(durations).toEqual(['settle', 'release']);
  });

  it('answers with the store’s rejection, timed with its error class', async () => {
    const store = { release: () => Promise.reject(new TypeError('gone')) } as unknown as StateStore;
    const { m, durations } = metrics();
    await expect(instrumentStore(store, m).release('r1')).rejects.toThrow('gone');
    expect(durations).toEqual(['release/TypeError']);
  });
});
