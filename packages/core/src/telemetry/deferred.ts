/**
 * Telemetry work that need not delay an answer: recording metrics and ending spans with the
 * times measured during the request. Queued while the request runs and handed to the SDK on the
 * next turn of the event loop (one turn for everything queued meanwhile), so the answer is not
 * kept waiting on the SDK's own work (attribute-set hashing, span processing).
 *
 * Bounded: a caller that never yields to the event loop (a loop of in-process calls to a mock
 * upstream never leaves the microtask queue) gets the queue run in line once it holds `max`
 * items. `drain()` runs it at once: a metric collection and `gateway.close()` call it, so what
 * they see is complete.
 */

type Schedule = (run: () => void) => void;

/** `setImmediate` where it exists (Node, Bun): after this turn's I/O; elsewhere a zero-delay timer. */
function defaultSchedule(): Schedule {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  if (immediate !== undefined) return (run) => void immediate(run);
  return (run) => void setTimeout(run, 0);
}

export class DeferredWork {
  private queue: Array<() => void> = [];
  private scheduled = false;
  private readonly schedule: Schedule;
  /** Resolvers of `idle()` callers waiting for the queue to be run. */
  private waiting: Array<() => void> = [];

  constructor(
    private readonly max = 4096,
    schedule?: Schedule,
  ) {
    this.schedule = schedule ?? defaultSchedule();
  }

  /** Queue `work` for the next turn of the event loop. It never throws into the caller. */
  add(work: () => void): void {
    this.queue.push(work);
    if (this.queue.length >= this.max) {
      this.drain();
      return;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.schedule(this.run);
    }
  }

  /** Run everything queued now. */
  drain(): void {
    while (this.queue.length > 0) {
      const work = this.queue;
      this.queue = [];
      for (const w of work) {
        try {
          w();
        } catch {
          // Telemetry never fails a request, nor the work queued after it.
        }
      }
    }
    const waiting = this.waiting;
    if (waiting.length > 0) {
      this.waiting = [];
      for (const resolve of waiting) resolve();
    }
  }

  /** Resolves once what is queued now has been handed to the SDK (at once when nothing is). */
  idle(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  get pending(): number {
    return this.queue.length;
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.drain();
  };
}
