import type { RateAdjustment, SettleRequest, StateStore } from '../store/types.js';
import { retry } from '../util/backoff.js';

/** How settles the store failed are retried (`GatewayOptions.settleRetry`). */
export interface SettleRetryOptions {
  /** First retry after this long; each next one waits twice as long (with jitter). Default 250 ms. */
  minDelayMs?: number;
  /** The longest wait between two attempts. Default 5 s. */
  maxDelayMs?: number;
  /**
   * How long a settle is retried before it counts as failed (`stats().settleFailures`): keep it
   * below the store's memory of settled ids (15 min by default), so a retry of a settle whose
   * answer was lost is still recognised as a repeat. Default 10 min.
   */
  maxRetryMs?: number;
  /** Settles waiting for a retry at most; past it a failed settle counts as failed at once. Default 10,000. */
  maxPending?: number;
}

export interface HoldStats {
  /** Settles waiting for a retry now. */
  pending: number;
  /** Attempts made after a first failed one. */
  retries: number;
  /** Settles that never succeeded (retried for `maxRetryMs`, over `maxPending`, or cut by `close`). */
  failed: number;
  /** Renewals the store refused or failed. */
  renewFailures: number;
}

interface Pending {
  request: SettleRequest;
  controller: AbortController;
  done: Promise<void>;
}

/** Errors that retrying cannot fix: a malformed call. */
const permanent = (error: unknown): boolean => error instanceof RangeError || error instanceof TypeError;

/**
 * The holds of one gateway, from admission until their settle succeeds:
 *
 * - **Renewal.** Every hold is renewed while its request runs, whatever its kind (a whole
 *   answer, a stream still waiting for its first byte, a settle still being retried): one
 *   timer for the gateway renews each hold about every quarter of the TTL, so a hold never gets
 *   within half a TTL of expiring while its request lives. A request shorter than that costs
 *   no renewal at all.
 * - **Settle retries.** A settle is tried at once; when the store fails it, it goes to an outbox
 *   and is retried with exponential backoff (util/backoff.ts) while its hold is still renewed, so the
 *   money it stands for keeps counting against the cap. Settles are idempotent in the store, so
 *   a retry of one whose answer was lost charges nothing twice.
 * - **Drain.** `drain` (on `close`) retries what is still in the outbox at once, until it is
 *   empty or the deadline passes; what is left counts as failed.
 */
export class HoldKeeper {
  /** Live hold id → when it was last renewed (or made), on the keeper's clock. */
  private readonly live = new Map<string, number>();
  private readonly outbox = new Map<string, Pending>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing = false;
  /** Set by `drain`: from then on a failed settle is retried only until this deadline. */
  private deadline: number | undefined;
  private readonly draining = new Set<Promise<void>>();
  private readonly stats: HoldStats = { pending: 0, retries: 0, failed: 0, renewFailures: 0 };
  private readonly retry: Required<SettleRetryOptions>;

  constructor(
    private readonly store: StateStore,
    private readonly ttlMs: number,
    retry: SettleRetryOptions = {},
    /** Told of each settle that never succeeded (telemetry). */
    private readonly onFailed: () => void = () => {},
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.retry = {
      minDelayMs: retry.minDelayMs ?? 250,
      maxDelayMs: retry.maxDelayMs ?? 5_000,
      maxRetryMs: retry.maxRetryMs ?? 10 * 60_000,
      maxPending: retry.maxPending ?? 10_000,
    };
  }

  /** Renewals run this often; each hold is renewed once it is this old. */
  private get period(): number {
    return Math.max(50, Math.floor(this.ttlMs / 4));
  }

  /** A hold was made for request `id`: keep it alive until it is settled or released. */
  track(id: string): void {
    this.live.set(id, this.clock());
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.renewDue(), this.period);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  private stopIfIdle(): void {
    if (this.live.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private untrack(id: string): void {
    this.live.delete(id);
    this.stopIfIdle();
  }

  /** Renew every hold last renewed a period ago or more (one pass at a time). */
  async renewDue(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const now = this.clock();
      const due: string[] = [];
      for (const [id, at] of this.live) if (now - at >= this.period) due.push(id);
      await Promise.all(
        due.map(async (id) => {
          try {
            const renewed = await this.store.renew(id, this.ttlMs);
            if (renewed && this.live.has(id)) this.live.set(id, this.clock());
            if (!renewed) this.stats.renewFailures++;
          } catch {
            // The store is away: the next pass tries again, within half a TTL of margin.
            this.stats.renewFailures++;
          }
        }),
      );
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Drop a hold without charging (refused, or failed before any upstream answer). With `rate`
   * (the tokens the request took at admission, given back), it is a settle without charges,
   * retried like any settle. Never throws.
   */
  async release(id: string, rate: RateAdjustment[] = []): Promise<void> {
    if (rate.length > 0) {
      await this.settle({ id, charges: [], rate });
      return;
    }
    this.untrack(id);
    await this.store.release(id).catch(() => {});
  }

  /**
   * Settle now; when the store fails, queue the settle for retries (the hold stays renewed
   * meanwhile) and return: the caller's answer and record do not wait for the store. Resolves
   * true when the first attempt succeeded.
   */
  async settle(request: SettleRequest): Promise<boolean> {
    try {
      await this.store.settle(request);
      this.untrack(request.id);
      return true;
    } catch (error) {
      this.enqueue(request, error);
      return false;
    }
  }

  /**
   * A settle that could not even be made (a fault of the gateway's own): it counts as failed, and
   * its hold stays in the store until its TTL, no longer renewed.
   */
  abandon(id: string): void {
    if (this.live.has(id)) this.fail(id);
  }

  private enqueue(request: SettleRequest, error: unknown): void {
    const id = request.id;
    if (permanent(error) || this.outbox.has(id) || this.outbox.size >= this.retry.maxPending) {
      this.fail(id);
      return;
    }
    if (this.deadline !== undefined) {
      // Closing: retried briefly, until the drain deadline.
      const last = this.lastTries(request, this.deadline);
      this.draining.add(last);
      void last.finally(() => this.draining.delete(last));
      return;
    }
    const controller = new AbortController();
    const entry: Pending = {
      request,
      controller,
      done: retry(
        async () => {
          this.stats.retries++;
          await this.store.settle(request);
        },
        {
          minDelayMs: this.retry.minDelayMs,
          maxDelayMs: this.retry.maxDelayMs,
          randomize: true,
          maxRetryMs: this.retry.maxRetryMs,
          signal: controller.signal,
          shouldRetry: (e) => !permanent(e),
          unref: true,
        },
      ).then(
        () => this.settled(id),
        () => {
          // Aborted by `drain` (which takes over), or out of time or retries.
          if (!controller.signal.aborted) this.fail(id);
        },
      ),
    };
    this.outbox.set(id, entry);
    this.stats.pending = this.outbox.size;
  }

  private settled(id: string): void {
    this.outbox.delete(id);
    this.stats.pending = this.outbox.size;
    this.untrack(id);
  }

  private fail(id: string): void {
    this.outbox.delete(id);
    this.stats.pending = this.outbox.size;
    this.stats.failed++;
    this.onFailed();
    // Its hold stays in the store until its TTL: the cap is not shrunk, only held up.
    this.untrack(id);
  }

  /** Now, on the keeper's clock (what `drain` deadlines are measured in). */
  now(): number {
    return this.clock();
  }

  /** Attempts at once and then with short backoff until `deadline`; then it counts as failed. */
  private async lastTries(request: SettleRequest, deadline: number): Promise<void> {
    const id = request.id;
    this.outbox.set(id, { request, controller: new AbortController(), done: Promise.resolve() });
    this.stats.pending = this.outbox.size;
    try {
      await retry(
        async (attempt) => {
          if (attempt > 1) this.stats.retries++;
          await this.store.settle(request);
        },
        {
          minDelayMs: 25,
          maxDelayMs: 500,
          maxRetryMs: Math.max(0, deadline - this.clock()),
          shouldRetry: (error) => !permanent(error),
          unref: true,
        },
      );
      this.settled(id);
    } catch {
      this.fail(id);
    }
  }

  /**
   * On close: retry every queued settle at once and then with short backoff, until the outbox
   * is empty or `deadline` (on the keeper's clock, see `now`) passes; each gets at least one
   * attempt, and settles that fail while draining join in. What is left counts as failed.
   * Renewal stops afterwards.
   */
  async drain(deadline: number): Promise<void> {
    this.deadline = deadline;
    const entries = [...this.outbox.values()];
    for (const entry of entries) entry.controller.abort();
    await Promise.all(entries.map((entry) => entry.done));
    await Promise.all(entries.map((entry) => this.lastTries(entry.request, deadline)));
    while (this.draining.size > 0) await Promise.all([...this.draining]);
    this.live.clear();
    this.stopIfIdle();
  }

  snapshot(): HoldStats {
    return { ...this.stats };
  }

  /** Hold ids renewed now (for tests). */
  get tracked(): number {
    return this.live.size;
  }
}
