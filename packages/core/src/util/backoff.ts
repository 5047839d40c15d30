/**
 * Retries with exponential backoff, for the settles a store failed (gateway/holds.ts). It
 * replaces p-retry, whose code (with is-network-error) was 3.7 KiB minified, 1.2 KiB gzipped of
 * every edge Worker for the dozen lines used here: the schedule is p-retry 7's for the options
 * below (attempt n waits round(r × minDelayMs × factor^(n-1)) ms, r in [1, 2) with `randomize`,
 * capped by maxDelayMs and by what is left of maxRetryMs), and a differential test holds it to
 * the library for the options the gateway uses (backoff.test.ts; the edge bundle bench prints
 * both sizes).
 */

export interface RetryOptions {
  /** The first wait; each next one is `factor` times longer. */
  minDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** Default 2. */
  factor?: number;
  /** Multiply each wait by a random factor in [1, 2). Default false. */
  randomize?: boolean;
  /** No attempt starts after this long from the first; a failure past it is final. */
  maxRetryMs: number;
  /** Stops the retries (waits included); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Whether a failure may be retried (default: every one). */
  shouldRetry?: (error: Error) => boolean;
  /** Do not keep the process alive for a wait (Node). */
  unref?: boolean;
}

function wait(ms: number, signal: AbortSignal | undefined, unref: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (unref) (timer as { unref?: () => void }).unref?.();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Run `attempt` until it resolves, `shouldRetry` refuses a failure, or `maxRetryMs` is spent
 * (then the last failure is thrown). A thrown value that is not an Error is handed on as a
 * TypeError. Unlike p-retry it does not itself refuse TypeErrors that are not network errors:
 * `shouldRetry` decides (the gateway's refuses every TypeError and RangeError).
 */
export async function retry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { signal, factor = 2 } = options;
  const started = performance.now();
  for (let n = 1; ; n++) {
    let error: Error;
    try {
      signal?.throwIfAborted();
      const result = await attempt(n);
      signal?.throwIfAborted();
      return result;
    } catch (thrown) {
      error = thrown instanceof Error ? thrown : new TypeError(`a value that is not an Error was thrown: ${String(thrown)}`);
    }
    const left = options.maxRetryMs - (performance.now() - started);
    if (left <= 0 || !(options.shouldRetry?.(error) ?? true)) throw error;
    const delay = Math.min(Math.round((options.randomize ? Math.random() + 1 : 1) * options.minDelayMs * factor ** (n - 1)), options.maxDelayMs, left);
    signal?.throwIfAborted();
    if (delay > 0) await wait(delay, signal, options.unref ?? false);
    signal?.throwIfAborted();
  }
}
