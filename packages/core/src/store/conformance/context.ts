import type { SpendConstraint, StateStore } from '../types.js';

/** What each test gets: a fresh store, unique keys and a way to let time pass. */
export interface StoreTestContext {
  store: StateStore;
  /** A key unique to this test; all keys of a test share one `{hash tag}` (Redis Cluster). */
  k: (name: string) => string;
  /** Let `ms` pass: moves the fake clock, or sleeps with `realClock`. */
  advance: (ms: number) => Promise<void>;
  /** A TTL the test can wait out: 10 s of fake time, or `realTtlMs` of real time. */
  ttl: number;
  realClock: boolean;
}

export type Register = (title: string, body: (t: StoreTestContext) => Promise<void>) => void;

/** Long enough that nothing a test reserves with it expires during the test. */
export const LONG = 10 * 60_000;

export const cap = (key: string, limit: number, counters: string[]): SpendConstraint => ({ key, limit, counters });
