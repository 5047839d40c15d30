import { HoldBook } from './holds.js';
import type { AdmitRequest, AdmitResult, RateBucket, RateResult, ReserveRequest, ReserveResult, SettleRequest, StateStore } from './types.js';
import { StoreUnavailableError } from './types.js';
import { checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from './validate.js';

export interface MemoryStoreOptions {
  /** The store's clock in ms (default `Date.now`). Inject a fake one in tests. */
  now?: () => number;
  /** Period of the background sweeper in ms; 0 disables it (default 30 000). */
  sweepIntervalMs?: number;
  /** How long a settled id is remembered so a repeated settle is a no-op (default 15 min). */
  settledTtlMs?: number;
}

const DEFAULT_SWEEP_MS = 30_000;
const DEFAULT_SETTLED_TTL_MS = 15 * 60_000;

interface Counter {
  value: number;
  /** Infinity when the counter has no TTL. */
  expiresAt: number;
}

interface Window {
  start: number;
  windowMs: number;
  used: number;
}

/**
 * The embedded state store. Single-threaded: every operation runs its check and its write in
 * one synchronous step (no await in between), so concurrent callers are atomic. Each call
 * costs O(keys it names); expired holds, counters and markers stop counting when read, and
 * the background sweeper only frees their memory. Pass one instance to several gateways to
 * share state within a process.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): StateStore {
  const clock = options.now ?? Date.now;
  const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_MS;
  const settledTtlMs = options.settledTtlMs ?? DEFAULT_SETTLED_TTL_MS;
  checkDuration('settledTtlMs', settledTtlMs);

  const holds = new HoldBook();
  const counters = new Map<string, Counter>();
  const windows = new Map<string, Window>();
  const markers = new Map<string, number>();
  /** Settled id → when it is forgotten. Insertion order is expiry order (constant TTL). */
  const settled = new Map<string, number>();
  let closed = false;

  const open = (op: string): number => {
    if (closed) throw new StoreUnavailableError(`tollgate memory store is closed (${op} after close())`);
    return clock();
  };

  const counterValue = (key: string, now: number): number => {
    const c = counters.get(key);
    if (c === undefined) return 0;
    if (c.expiresAt <= now) {
      counters.delete(key);
      return 0;
    }
    return c.value;
  };

  const committed = (keys: readonly string[], now: number): number => {
    let sum = 0;
    // A key named twice counts once. Few keys (the usual cap) are checked without a set.
    if (keys.length <= 16) {
      for (let i = 0; i < keys.length; i++) if (keys.indexOf(keys[i]!) === i) sum += counterValue(keys[i]!, now);
      return sum;
    }
    for (const key of new Set(keys)) sum += counterValue(key, now);
    return sum;
  };

  const windowUsed = (b: RateBucket, start: number): number => {
    const w = windows.get(b.key);
    return w !== undefined && w.start === start && w.windowMs === b.windowMs ? w.used : 0;
  };

  const forgetSettled = (now: number): void => {
    for (const [id, until] of settled) {
      if (until > now) break;
      settled.delete(id);
    }
  };

  const tidy = (now: number): number => {
    const removed = holds.sweep(now);
    forgetSettled(now);
    for (const [key, c] of counters) if (c.expiresAt <= now) counters.delete(key);
    for (const [key, w] of windows) if (w.start + w.windowMs <= now) windows.delete(key);
    for (const [key, until] of markers) if (until <= now) markers.delete(key);
    return removed;
  };

  /** `reserve` at `now`, synchronously (checked by the caller). */
  const reserveAt = (request: ReserveRequest, now: number): ReserveResult => {
    if (holds.get(request.id, now) !== undefined) {
      throw new Error(`tollgate store: reservation ${request.id} is already held`);
    }
    const keys = new Map<string, number>();
    const over: string[] = [];
    for (const c of request.constraints) {
      const amount = c.amount ?? request.amount;
      const spent = committed(c.counters, now);
      const held = holds.held(c.key, now);
      if (spent + held + amount > c.limit) {
        if (c.soft !== true) return { ok: false, key: c.key, limit: c.limit, committed: spent, held };
        if (!over.includes(c.key)) over.push(c.key);
      }
      if (!keys.has(c.key)) keys.set(c.key, amount);
    }
    holds.add(request.id, now + request.ttlMs, [...keys.keys()], [...keys.values()]);
    return over.length === 0 ? { ok: true } : { ok: true, over };
  };

  /** `hitRate` at `now`, synchronously (checked by the caller). */
  const hitRateAt = (buckets: readonly RateBucket[], now: number): RateResult => {
    const starts: number[] = [];
    // Units this call already takes from a key, so a key named twice is counted twice.
    const pending = new Map<string, number>();
    for (const b of buckets) {
      const start = Math.floor(now / b.windowMs) * b.windowMs;
      const taken = pending.get(b.key) ?? 0;
      const used = windowUsed(b, start) + taken;
      if (used + b.cost > b.limit || (b.cost === 0 && used >= b.limit)) {
        return { ok: false, key: b.key, retryAfterMs: Math.max(1, Math.ceil(start + b.windowMs - now)) };
      }
      pending.set(b.key, taken + b.cost);
    }
    for (const b of buckets) {
      const start = Math.floor(now / b.windowMs) * b.windowMs;
      windows.set(b.key, { start, windowMs: b.windowMs, used: windowUsed(b, start) + b.cost });
      starts.push(start);
    }
    return { ok: true, windows: starts };
  };

  const countersAt = (keys: readonly string[], now: number): Record<string, number> => Object.fromEntries(keys.map((key) => [key, counterValue(key, now)]));

  let timer: ReturnType<typeof setInterval> | undefined;
  if (sweepIntervalMs > 0) {
    timer = setInterval(() => {
      if (!closed) tidy(clock());
    }, sweepIntervalMs);
    (timer as unknown as { unref?: () => void }).unref?.();
  }

  return {
    async reserve(request: ReserveRequest): Promise<ReserveResult> {
      const now = open('reserve');
      checkReserve(request);
      return reserveAt(request, now);
    },

    async renew(id: string, ttlMs: number): Promise<boolean> {
      const now = open('renew');
      checkKey('renew id', id);
      checkDuration('renew ttlMs', ttlMs);
      const hold = holds.get(id, now);
      if (hold === undefined) return false;
      holds.renew(hold, now + ttlMs);
      return true;
    },

    async settle(request: SettleRequest): Promise<boolean> {
      const now = open('settle');
      checkSettle(request);
      forgetSettled(now);
      const until = settled.get(request.id);
      if (until !== undefined && until > now) return false;
      // The hold goes whether live or lapsed; the charge is owed either way.
      const hold = holds.find(request.id);
      if (hold !== undefined) holds.remove(hold);
      for (const { counter, amount, ttlMs } of request.charges) {
        const previous = counters.get(counter);
        const alive = previous !== undefined && previous.expiresAt > now;
        const ttl = ttlMs ?? request.counterTtlMs;
        const expiresAt = ttl !== undefined ? now + ttl : alive ? previous.expiresAt : Infinity;
        const value = (alive ? previous.value : 0) + amount;
        if (previous === undefined) counters.set(counter, { value, expiresAt });
        else {
          // Updated in place: a counter is the store's own, never handed out.
          previous.value = value;
          previous.expiresAt = expiresAt;
        }
      }
      for (const a of request.rate ?? []) {
        const w = windows.get(a.key);
        if (w !== undefined && w.start === a.start && w.windowMs === a.windowMs) w.used = Math.max(0, w.used + a.delta);
      }
      settled.delete(request.id);
      settled.set(request.id, now + settledTtlMs);
      return true;
    },

    async release(id: string): Promise<void> {
      open('release');
      checkKey('release id', id);
      const hold = holds.find(id);
      if (hold !== undefined) holds.remove(hold);
    },

    async getCounters(keys: readonly string[]): Promise<Record<string, number>> {
      return countersAt(keys, open('getCounters'));
    },

    async getHeld(keys: readonly string[]): Promise<Record<string, number>> {
      const now = open('getHeld');
      return Object.fromEntries(keys.map((key) => [key, holds.held(key, now)]));
    },

    async hitRate(buckets: readonly RateBucket[]): Promise<RateResult> {
      const now = open('hitRate');
      checkBuckets(buckets);
      return hitRateAt(buckets, now);
    },

    async admit(request: AdmitRequest): Promise<AdmitResult> {
      const now = open('admit');
      checkBuckets(request.buckets);
      if (request.reserve !== null) checkReserve(request.reserve);
      // A reservation id already held is an error before anything is taken.
      if (request.reserve !== null && holds.get(request.reserve.id, now) !== undefined) {
        throw new Error(`tollgate store: reservation ${request.reserve.id} is already held`);
      }
      const rate = hitRateAt(request.buckets, now);
      if (!rate.ok) return { rate };
      const counters = countersAt(request.counters, now);
      return { rate, counters, reserve: request.reserve === null ? null : reserveAt(request.reserve, now) };
    },

    async setOnce(key: string, ttlMs: number): Promise<boolean> {
      const now = open('setOnce');
      checkKey('marker key', key);
      checkDuration('marker ttlMs', ttlMs);
      const until = markers.get(key);
      if (until !== undefined && until > now) return false;
      markers.set(key, now + ttlMs);
      return true;
    },

    async hasMarker(key: string): Promise<boolean> {
      const now = open('hasMarker');
      const until = markers.get(key);
      if (until === undefined) return false;
      if (until > now) return true;
      markers.delete(key);
      return false;
    },

    async sweep(): Promise<number> {
      return tidy(open('sweep'));
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      holds.clear();
      counters.clear();
      windows.clear();
      markers.clear();
      settled.clear();
    },
  };
}
