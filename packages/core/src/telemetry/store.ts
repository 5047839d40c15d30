/**
 * A state store seen through telemetry: every round trip timed by operation (and its error
 * class when it fails), the holds this gateway made counted while they live, and a settle
 * tried again for an id whose settle failed counted as a retry — whoever retries it.
 */
import type { AdmitRequest, ReserveRequest, SettleRequest, StateStore } from '../store/types.js';
import type { Metrics } from './instruments.js';
import { ATTR } from './semconv.js';

interface Hold {
  micros: number;
  expiresAt: number;
}

/** Bounded memory of ids whose settle failed (a retry is counted when one comes back). */
const MAX_FAILED = 10_000;

export function instrumentStore(store: StateStore, m: Metrics): StateStore {
  const holds = new Map<string, Hold>();
  const failedSettles = new Set<string>();
  const attrs = new Map<string, Record<string, string>>();
  const attrsFor = (operation: string, error: string | null) => {
    const key = error === null ? operation : `${operation}\u0000${error}`;
    let a = attrs.get(key);
    if (a === undefined) {
      a = error === null ? { [ATTR.storeOperation]: operation } : { [ATTR.storeOperation]: operation, [ATTR.errorType]: error };
      attrs.set(key, a);
    }
    return a;
  };
  const timed = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      const result = await call();
      m.storeDuration.record((performance.now() - t) / 1000, attrsFor(operation, null));
      return result;
    } catch (error) {
      const name = error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : '_OTHER';
      m.storeDuration.record((performance.now() - t) / 1000, attrsFor(operation, name));
      throw error;
    }
  };
  const sync = () => {
    const now = Date.now();
    let count = 0;
    let micros = 0;
    for (const [id, hold] of holds) {
      // A hold nobody settled expires in the store after its TTL: stop counting it then too.
      if (hold.expiresAt <= now) holds.delete(id);
      else {
        count++;
        micros += hold.micros;
      }
    }
    m.holds.count = count;
    m.holds.micros = micros;
  };
  const held = (request: ReserveRequest) => {
    holds.set(request.id, { micros: request.amount, expiresAt: Date.now() + request.ttlMs });
    sync();
  };
  const gone = (id: string) => {
    if (holds.delete(id)) sync();
  };

  const wrapped: StateStore = {
    reserve: (request) =>
      timed('reserve', () => store.reserve(request)).then((result) => {
        if (result.ok) held(request);
        return result;
      }),
    renew: (id, ttlMs) =>
      timed('renew', () => store.renew(id, ttlMs)).then((alive) => {
        const hold = holds.get(id);
        if (hold !== undefined) {
          if (alive) hold.expiresAt = Date.now() + ttlMs;
          else gone(id);
        }
        return alive;
      }),
    settle: async (request: SettleRequest) => {
      if (failedSettles.delete(request.id)) m.settleRetries.add(1);
      try {
        const settled = await timed('settle', () => store.settle(request));
        gone(request.id);
        return settled;
      } catch (error) {
        if (failedSettles.size >= MAX_FAILED) failedSettles.clear();
        failedSettles.add(request.id);
        throw error;
      }
    },
    release: (id) => timed('release', () => store.release(id)).then(() => gone(id)),
    getCounters: (keys) => timed('get_counters', () => store.getCounters(keys)),
    getHeld: (keys) => timed('get_held', () => store.getHeld(keys)),
    hitRate: (buckets) => timed('hit_rate', () => store.hitRate(buckets)),
    setOnce: (key, ttlMs) => timed('set_once', () => store.setOnce(key, ttlMs)),
    hasMarker: (key) => timed('has_marker', () => store.hasMarker(key)),
    sweep: () => store.sweep(),
    close: () => store.close(),
  };
  if (store.admit !== undefined) {
    const admit = store.admit.bind(store);
    wrapped.admit = (request: AdmitRequest) =>
      timed('admit', () => admit(request)).then((result) => {
        if (result !== null && 'counters' in result && result.reserve?.ok === true && request.reserve !== null) held(request.reserve);
        return result;
      });
  }
  return wrapped;
}
