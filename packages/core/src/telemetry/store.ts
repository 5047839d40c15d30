/**
 * A state store seen through telemetry: every round trip timed by operation (and its error
 * class when it fails), the holds this gateway made counted while they live, and a settle
 * tried again for an id whose settle failed counted as a retry — whoever retries it.
 */
import type { AdmitRequest, ReserveRequest, SettleRequest, StateStore } from '../store/types.js';
import type { Metrics } from './instruments.js';
import { OTHER } from './labels.js';
import { ATTR } from './semconv.js';

interface Hold {
  micros: number;
  expiresAt: number;
}

/** Distinct (operation, error class) series of `tollgate.store.duration` at most. */
const MAX_ERROR_SERIES = 100;

/** Bounded memory of ids whose settle failed (a retry is counted when one comes back). */
const MAX_FAILED = 10_000;

/**
 * `later` takes the histogram records (the SDK's work) off the request's path: they are handed
 * over after the answer, with the times measured here.
 */
export function instrumentStore(store: StateStore, m: Metrics, later: (work: () => void) => void = (work) => work()): StateStore {
  const holds = new Map<string, Hold>();
  const failedSettles = new Set<string>();
  const okAttrs = new Map<string, Record<string, string>>();
  const errAttrs = new Map<string, Record<string, string>>();
  const attrsFor = (operation: string, error: string | null) => {
    const table = error === null ? okAttrs : errAttrs;
    let key = error === null ? operation : `${operation}\u0000${error}`;
    let a = table.get(key);
    // A store whose errors carry ever new names cannot grow the metric: past the cap, `_OTHER`.
    if (a === undefined && error !== null && errAttrs.size >= MAX_ERROR_SERIES) {
      error = OTHER;
      key = `${operation}\u0000${error}`;
      a = table.get(key);
    }
    if (a === undefined) {
      a = error === null ? { [ATTR.storeOperation]: operation } : { [ATTR.storeOperation]: operation, [ATTR.errorType]: error };
      table.set(key, a);
    }
    return a;
  };
  /**
   * The round trip is timed by a reaction of its own on the store's promise, which the caller
   * gets as it is: no promise and no microtask hop added to the request's path. Registered
   * before the caller's, the reaction runs first, so `after` sees a success before the caller does.
   * A store's own promise is used as it is; anything else it returns that is only thenable (a
   * query builder that runs its query on every `then`, say) is adopted once into a promise, so
   * the store is asked once whoever reacts to the answer.
   */
  const timed = <T>(operation: string, answer: Promise<T>, after?: (result: T) => void): Promise<T> => {
    const t = performance.now();
    const pending = Promise.resolve(answer);
    void pending.then(
      (result) => {
        const seconds = (performance.now() - t) / 1000;
        later(() => m.storeDuration.record(seconds, attrsFor(operation, null)));
        if (after !== undefined) {
          try {
            after(result);
          } catch {
            // Bookkeeping for the gauges never fails a store call.
          }
        }
      },
      (error: unknown) => {
        const seconds = (performance.now() - t) / 1000;
        const name = error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : OTHER;
        later(() => m.storeDuration.record(seconds, attrsFor(operation, name)));
      },
    );
    return pending;
  };
  // Counted as they come and go; a hold nobody settled expires in the store after its TTL, and
  // stops being counted then too (checked when the gauges are read).
  m.holds.sweep = () => {
    const now = Date.now();
    for (const [id, hold] of holds) if (hold.expiresAt <= now) gone(id);
  };
  const held = (request: ReserveRequest) => {
    const before = holds.get(request.id);
    if (before !== undefined) gone(request.id);
    holds.set(request.id, { micros: request.amount, expiresAt: Date.now() + request.ttlMs });
    m.holds.count++;
    m.holds.micros += request.amount;
  };
  const gone = (id: string) => {
    const hold = holds.get(id);
    if (hold === undefined) return;
    holds.delete(id);
    m.holds.count--;
    m.holds.micros -= hold.micros;
  };

  // Calls go through `call` so a store that throws synchronously still answers with a rejection.
  const call = <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return f();
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const wrapped: StateStore = {
    reserve: (request) =>
      timed(
        'reserve',
        call(() => store.reserve(request)),
        (result) => result.ok && held(request),
      ),
    renew: (id, ttlMs) =>
      timed(
        'renew',
        call(() => store.renew(id, ttlMs)),
        (alive) => {
          const hold = holds.get(id);
          if (hold === undefined) return;
          if (alive) hold.expiresAt = Date.now() + ttlMs;
          else gone(id);
        },
      ),
    settle: (request: SettleRequest) => {
      if (failedSettles.delete(request.id)) m.settleRetries.add(1);
      return timed(
        'settle',
        call(() => store.settle(request)),
        () => gone(request.id),
      ).catch((error: unknown) => {
        if (failedSettles.size >= MAX_FAILED) failedSettles.clear();
        failedSettles.add(request.id);
        throw error;
      });
    },
    release: (id) =>
      timed(
        'release',
        call(() => store.release(id)),
        () => gone(id),
      ),
    getCounters: (keys) =>
      timed(
        'get_counters',
        call(() => store.getCounters(keys)),
      ),
    getHeld: (keys) =>
      timed(
        'get_held',
        call(() => store.getHeld(keys)),
      ),
    hitRate: (buckets) =>
      timed(
        'hit_rate',
        call(() => store.hitRate(buckets)),
      ),
    setOnce: (key, ttlMs) =>
      timed(
        'set_once',
        call(() => store.setOnce(key, ttlMs)),
      ),
    hasMarker: (key) =>
      timed(
        'has_marker',
        call(() => store.hasMarker(key)),
      ),
    sweep: () => store.sweep(),
    close: () => store.close(),
  };
  if (store.admit !== undefined) {
    const admit = store.admit.bind(store);
    wrapped.admit = (request: AdmitRequest) =>
      timed(
        'admit',
        call(() => admit(request)),
        (result) => {
          if (result !== null && 'counters' in result && result.reserve?.ok === true && request.reserve !== null) held(request.reserve);
        },
      );
  }
  return wrapped;
}
