/**
 * `retry` against p-retry 7, the library it replaces (for its bytes in every edge Worker):
 * for the options the gateway's settle retries use — any delays, cap, randomization, retry
 * budget, attempts that take time, failures that are retried or permanent (RangeError,
 * TypeError, a thrown non-Error), an abort at any moment — both make their attempts at the same
 * times and end the same way at the same time. Timers, the clock and Math.random are faked
 * and seeded alike for both.
 */
import fc from 'fast-check';
import pRetry from 'p-retry';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { retry } from './backoff.js';

type Step = 'ok' | 'fail' | 'range' | 'type' | 'network' | 'non-error';

interface Case {
  steps: Step[];
  minDelayMs: number;
  maxDelayMs: number;
  randomize: boolean;
  maxRetryMs: number;
  /** How long each attempt takes. */
  attemptMs: number;
  /** When the signal aborts (null: never). */
  abortAt: number | null;
  seed: number;
}

interface Trace {
  attempts: number[];
  outcome: string;
  endedAt: number;
}

/** The gateway's rule (gateway/holds.ts): a malformed call is not retried. */
const permanent = (e: unknown) => e instanceof RangeError || e instanceof TypeError;

function fail(step: Step): unknown {
  switch (step) {
    case 'fail':
      return new Error('store unreachable');
    case 'range':
      return new RangeError('bad amount');
    case 'type':
      return new TypeError('x is not a function');
    case 'network':
      return new TypeError('fetch failed');
    default:
      return 'a string';
  }
}

function describeError(e: unknown): string {
  if (e instanceof Error && e.name === 'AbortError') return 'aborted';
  // A thrown non-Error reaches the caller as a TypeError of either's own wording.
  if (e instanceof TypeError && /Non-error|not an Error/.test(e.message)) return 'TypeError(non-error)';
  return e instanceof Error ? `${e.constructor.name}(${e.message})` : `thrown ${String(e)}`;
}

async function run(impl: 'retry' | 'p-retry', c: Case): Promise<Trace> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'], now: 0 });
  let seed = c.seed;
  vi.spyOn(Math, 'random').mockImplementation(() => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  });
  const controller = new AbortController();
  if (c.abortAt !== null) setTimeout(() => controller.abort(), c.abortAt);
  const attempts: number[] = [];
  const attempt = async (n: number) => {
    attempts.push(performance.now());
    if (c.attemptMs > 0) await new Promise((r) => setTimeout(r, c.attemptMs));
    const step = c.steps[Math.min(n, c.steps.length) - 1]!;
    if (step !== 'ok') throw fail(step);
    return `done on attempt ${n}`;
  };
  const pending =
    impl === 'retry'
      ? retry(attempt, {
          minDelayMs: c.minDelayMs,
          maxDelayMs: c.maxDelayMs,
          randomize: c.randomize,
          maxRetryMs: c.maxRetryMs,
          signal: controller.signal,
          shouldRetry: (e) => !permanent(e),
          unref: true,
        })
      : pRetry(attempt, {
          retries: Number.POSITIVE_INFINITY,
          minTimeout: c.minDelayMs,
          maxTimeout: c.maxDelayMs,
          factor: 2,
          randomize: c.randomize,
          maxRetryTime: c.maxRetryMs,
          signal: controller.signal,
          shouldRetry: ({ error }) => !permanent(error),
          unref: true,
        });
  let outcome: string | undefined;
  let endedAt = -1;
  pending.then(
    (v) => ((outcome = `resolved ${v}`), (endedAt = performance.now())),
    (e: unknown) => ((outcome = `rejected ${describeError(e)}`), (endedAt = performance.now())),
  );
  for (let i = 0; outcome === undefined && i < 100_000; i++) await vi.advanceTimersToNextTimerAsync();
  vi.useRealTimers();
  vi.restoreAllMocks();
  return { attempts, outcome: outcome ?? 'never settled', endedAt };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const step = fc.constantFrom<Step>('ok', 'fail', 'fail', 'fail', 'range', 'type', 'network', 'non-error');
const cases: fc.Arbitrary<Case> = fc
  .record({
    steps: fc.array(step, { minLength: 1, maxLength: 12 }),
    minDelayMs: fc.integer({ min: 1, max: 400 }),
    extraDelayMs: fc.integer({ min: 0, max: 5000 }),
    randomize: fc.boolean(),
    maxRetryMs: fc.integer({ min: 0, max: 20_000 }),
    attemptMs: fc.constantFrom(0, 0, 1, 40),
    abortAt: fc.option(fc.integer({ min: 0, max: 8000 }), { nil: null }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
  })
  .map(({ extraDelayMs, ...c }) => ({ ...c, maxDelayMs: c.minDelayMs + extraDelayMs }));

describe('retry, differentially against p-retry', () => {
  it('attempts at the same times and ends the same way, for any schedule, failure mix and abort', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const ours = await run('retry', c);
        const theirs = await run('p-retry', c);
        expect(theirs.outcome).not.toBe('never settled');
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 300 },
    );
  });

  it('waits minDelayMs, then twice as long each time up to maxDelayMs, until the budget is spent', async () => {
    const c: Case = { steps: ['fail'], minDelayMs: 250, maxDelayMs: 2000, randomize: false, maxRetryMs: 6000, attemptMs: 0, abortAt: null, seed: 1 };
    const ours = await run('retry', c);
    expect(ours.attempts).toEqual([0, 250, 750, 1750, 3750, 5750, 6000]);
    expect(ours).toEqual({ attempts: ours.attempts, outcome: 'rejected Error(store unreachable)', endedAt: 6000 });
    expect(await run('p-retry', c)).toEqual(ours);
  });

  it('stops at the first permanent failure, and with the abort reason once aborted', async () => {
    const permanentCase: Case = {
      steps: ['fail', 'range'],
      minDelayMs: 10,
      maxDelayMs: 10,
      randomize: true,
      maxRetryMs: 1000,
      attemptMs: 0,
      abortAt: null,
      seed: 7,
    };
    expect(await run('retry', permanentCase)).toMatchObject({ attempts: [0, expect.any(Number)], outcome: 'rejected RangeError(bad amount)' });
    const aborted: Case = { steps: ['fail'], minDelayMs: 100, maxDelayMs: 100, randomize: false, maxRetryMs: 10_000, attemptMs: 0, abortAt: 250, seed: 7 };
    expect(await run('retry', aborted)).toEqual({ attempts: [0, 100, 200], outcome: 'rejected aborted', endedAt: 250 });
  });
});
