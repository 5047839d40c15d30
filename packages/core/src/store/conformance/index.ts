import { describe, it } from 'vitest';
import { createFakeClock } from '../clock.js';
import type { StateStore } from '../types.js';
import { admitTests } from './admit.js';
import { concurrencyTests } from './concurrency.js';
import type { StoreTestContext } from './context.js';
import { holdTimeTests } from './hold-time.js';
import { keyTests } from './keys.js';
import { miscTests } from './misc.js';
import { poolTests } from './pools.js';
import { rateAdjustmentTests, rateRoomTests, rateTests } from './rate.js';
import { reserveTests } from './reserve.js';
import { retryTests } from './retry.js';
import { settleTests } from './settle.js';

/**
 * The behaviour every StateStore must show, as vitest tests. Imports vitest, so it is reachable
 * only through `@tollgate/core/testing`, never from the main entry.
 */

export type { StoreTestContext } from './context.js';

export type MakeStore = (opts: { now: () => number }) => Promise<StateStore> | StateStore;

export interface StoreConformanceOptions {
  /**
   * The store keeps its own clock (Redis server time) and ignores `now`: tests then use short
   * real TTLs and wait. Requires that nothing else sweeps the backend while the suite runs.
   */
  realClock?: boolean;
  /** Hold/marker TTL used with `realClock` (default 400 ms); raise it for a slow backend. */
  realTtlMs?: number;
  /**
   * Whether the store implements the optional `admit` (default true: its tests run and fail
   * when it is missing). A store without it passes `false`; the gateway then makes the
   * separate calls.
   */
  admit?: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Register the conformance tests for a store. `makeStore` is called once per test and the store
 * it returns is closed after the test; keys are random per test so a shared backend can run
 * the suite repeatedly and concurrently with other suites.
 */
export function describeStoreConformance(name: string, makeStore: MakeStore, options: StoreConformanceOptions = {}): void {
  const realClock = options.realClock ?? false;
  const ttl = realClock ? (options.realTtlMs ?? 400) : 10_000;
  const timeout = realClock ? 12 * ttl + 10_000 : 10_000;

  const test = (title: string, body: (t: StoreTestContext) => Promise<void>): void => {
    it(
      title,
      async () => {
        const clock = createFakeClock();
        const store = await makeStore({ now: realClock ? () => Date.now() : clock.now });
        const prefix = `tg-conformance:{${crypto.randomUUID()}}:`;
        const advance = async (ms: number): Promise<void> => {
          if (realClock) await sleep(ms);
          else clock.advance(ms);
        };
        try {
          await body({ store, k: (n) => prefix + n, advance, ttl, realClock });
        } finally {
          await store.close();
        }
      },
      timeout,
    );
  };

  describe(`StateStore conformance: ${name}`, () => {
    describe('reserve', () => reserveTests(test));
    describe('holds over time', () => holdTimeTests(test));
    describe('settle and release', () => settleTests(test));
    describe('concurrency', () => concurrencyTests(test));
    describe('renew until settle, settle retries', () => retryTests(test));
    describe('rate buckets', () => rateTests(test));
    describe('rate reconciliation at settle', () => rateAdjustmentTests(test));
    describe('rate room (zero-cost hits)', () => rateRoomTests(test));
    describe('markers, isolation, sweep', () => miscTests(test));
    describe('keys as the gateway names them', () => keyTests(test));
    describe('pooled caps, in-flight and soft limits, bucket counters', () => poolTests(test, options.admit ?? true));
    if (options.admit ?? true) describe('admit: rate, counters and reservation in one step', () => admitTests(test));
  });
}
