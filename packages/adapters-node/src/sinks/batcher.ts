/**
 * The bounded, batching queue behind the usage sinks: `push` never blocks nor throws (a full
 * queue drops and counts), a timer drains it at least every `flushIntervalMs`, a full batch
 * drains it at once, and batches go out one at a time. A batch that fails because the backend
 * cannot be reached (`requeue`) goes back to the head of the queue and waits for the next
 * tick, so an outage costs records only once the queue is full; after `close()` such a batch,
 * and everything behind it, is counted as failed at once.
 */

export interface SinkStats {
  /** Records the backend accepted. */
  written: number;
  /** Records refused at the door: queue full, sink closed, or not serializable. */
  dropped: number;
  /** Records the backend could not take (after the sink's retries). */
  failed: number;
  /** Records waiting or in flight. */
  queued: number;
}

/** What one batch came to; `void` means every item was written. */
export type BatchOutcome = void | { written: number; failed?: number };

export interface BatcherOptions<T> {
  maxQueue: number;
  batchSize: number;
  flushIntervalMs: number;
  /** Send one batch (retrying as the sink sees fit); reject when none of it could be written. */
  send: (batch: T[]) => Promise<BatchOutcome>;
  onError: (error: unknown) => void;
  /** True for a failure that may pass by itself (the backend is unreachable): keep the batch queued. */
  requeue?: (error: unknown) => boolean;
}

const checkCount = (what: string, value: number, max = Number.MAX_SAFE_INTEGER): void => {
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new RangeError(`tollgate usage sink: ${what} must be an integer from 1 to ${max}, got ${value}`);
  }
};

/** Check the shared sink options (usage sinks flush at least every second). */
export function checkSinkOptions(o: { maxQueue: number; batchSize: number; flushIntervalMs: number }): void {
  checkCount('maxQueue', o.maxQueue);
  checkCount('batchSize', o.batchSize);
  checkCount('flushIntervalMs', o.flushIntervalMs, 1000);
}

export class Batcher<T> {
  private readonly queue: T[] = [];
  private inFlight = 0;
  /** Items ever accepted / ever taken out of the queue: flush waits for taken ≥ its mark. */
  private accepted = 0;
  private taken = 0;
  private chain: Promise<void> = Promise.resolve();
  private draining = false;
  private closed = false;
  private readonly timer: ReturnType<typeof setInterval>;
  readonly counts = { written: 0, dropped: 0, failed: 0 };

  constructor(private readonly options: BatcherOptions<T>) {
    checkSinkOptions(options);
    this.timer = setInterval(() => {
      if (this.queue.length > 0 && !this.draining) void this.drain(true);
    }, options.flushIntervalMs);
    this.timer.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(item: T): void {
    if (this.closed || this.queue.length >= this.options.maxQueue) {
      this.counts.dropped++;
      return;
    }
    this.queue.push(item);
    this.accepted++;
    if (this.queue.length >= this.options.batchSize && !this.draining) void this.drain(true);
  }

  /** Count a record that never made it into the queue. */
  drop(): void {
    this.counts.dropped++;
  }

  stats(): SinkStats {
    return { ...this.counts, queued: this.queue.length + this.inFlight };
  }

  /**
   * Resolves once everything pushed so far is written or counted as failed, or is kept queued
   * because the backend cannot be reached (it is retried every `flushIntervalMs`).
   */
  flush(): Promise<void> {
    return this.drain(false);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      clearInterval(this.timer);
    }
    await this.drain(false);
  }

  /**
   * Queue a drain up to what is accepted now. A patient (background) drain stops at the first
   * batch that fails and leaves the rest queued for the next tick; a flush goes through all.
   */
  private drain(patient: boolean): Promise<void> {
    const mark = this.accepted;
    this.draining = true;
    const next: Promise<void> = this.chain.then(async () => {
      while (this.taken < mark && this.queue.length > 0) {
        const batch = this.queue.splice(0, Math.min(this.options.batchSize, mark - this.taken));
        this.taken += batch.length;
        this.inFlight = batch.length;
        let ok = true;
        let stop = false;
        try {
          const outcome = await this.options.send(batch);
          const written = outcome ? outcome.written : batch.length;
          const failed = outcome ? (outcome.failed ?? 0) : 0;
          this.counts.written += written;
          this.counts.failed += failed;
        } catch (error) {
          ok = false;
          this.report(error);
          if (this.options.requeue?.(error) === true) {
            stop = true;
            if (this.closed) {
              // Shutting down with the backend away: what is left cannot be written.
              const rest = this.queue.splice(0, Math.max(0, mark - this.taken));
              this.taken += rest.length;
              this.counts.failed += batch.length + rest.length;
            } else {
              this.queue.unshift(...batch);
              this.taken -= batch.length;
            }
          } else {
            this.counts.failed += batch.length;
          }
        } finally {
          this.inFlight = 0;
        }
        if (stop || (!ok && patient)) break;
      }
      if (this.chain === next) {
        this.draining = false;
        if (!this.closed && this.queue.length >= this.options.batchSize) void this.drain(true);
      }
    });
    this.chain = next;
    return next;
  }

  private report(error: unknown): void {
    try {
      this.options.onError(error);
    } catch {
      // A failing error handler must not break the sink.
    }
  }
}
