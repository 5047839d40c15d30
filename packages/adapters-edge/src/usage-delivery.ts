import type { UsageOption, UsageRecord, UsageSink } from '@tollgate/core';

/** Unclaimed records remembered at most (records of requests that had no `waitUntil`). */
const MAX_UNCLAIMED = 256;

type Deliver = () => Promise<void>;

/** A record written with no sink: nothing to wait for once written (a stream still waits for the write, which follows its settle). */
const WRITTEN: Deliver = () => Promise.resolve();

const settled = (value: unknown): Promise<void> =>
  value instanceof Promise
    ? value.then(
        () => {},
        () => {},
      )
    : Promise.resolve();

/**
 * Ties each request's usage record to the platform's `waitUntil`, so an isolate is not frozen
 * or torn down before the record is delivered. The gateway writes the record of a plain JSON
 * answer (or a rejection) before it returns the response, and the record of a stream after the
 * stream ends and is settled; both carry the request id the response shows in
 * `x-tollgate-request-id`. Wraps `options.usage`: records pass through unchanged, and the
 * promise handed to `waitUntil` resolves once the record's sink call settled (a function sink)
 * or the sink flushed (a sink object).
 */
/** Content types of streamed answers, whose record is written when the stream ends: SSE, and Bedrock's event stream. */
const STREAMED = ['text/event-stream', 'application/vnd.amazon.eventstream'];

export class UsageDelivery {
  private readonly unclaimed = new Map<string, Deliver>();
  private readonly waiting = new Map<string, (deliver: Deliver) => void>();
  private inFlight = 0;

  /**
   * `options.usage` wrapped so deliveries can be awaited. Without a sink, records are still
   * watched: a stream's record is written after its settle, so waiting for it keeps the isolate
   * alive until the spend is counted in the store.
   */
  wrap(option: UsageOption | undefined): UsageOption {
    if (option === undefined) return (record: UsageRecord) => this.delivered(record.request_id, WRITTEN);
    if (typeof option === 'function') {
      const fn = option;
      return (record: UsageRecord) => {
        let result: void | Promise<void> | undefined;
        try {
          result = fn(record);
          return result;
        } finally {
          const done = settled(result);
          this.delivered(record.request_id, () => done);
        }
      };
    }
    const sink: UsageSink = option;
    return {
      write: (record) => {
        try {
          sink.write(record);
        } finally {
          this.delivered(record.request_id, () => sink.flush().catch(() => {}));
        }
      },
      flush: () => sink.flush(),
      close: () => sink.close(),
    };
  }

  /** A request with a `waitUntil` starts: records seen from now on are kept for it to claim. */
  begin(): void {
    this.inFlight++;
  }

  end(): void {
    this.inFlight--;
    if (this.inFlight === 0) this.unclaimed.clear();
  }

  /**
   * The promise to hand to `waitUntil` for this response: its record delivered (already
   * written, or — for an event stream — written when the stream ends). Null when there is no
   * record to wait for (a response without a request id, or model discovery).
   */
  after(response: Response): Promise<void> | null {
    const id = response.headers.get('x-tollgate-request-id');
    if (id === null) return null;
    const deliver = this.unclaimed.get(id);
    if (deliver !== undefined) {
      this.unclaimed.delete(id);
      return deliver === WRITTEN ? null : deliver();
    }
    if (response.body === null || !STREAMED.some((type) => (response.headers.get('content-type') ?? '').startsWith(type))) return null;
    return new Promise<Deliver>((resolve) => this.waiting.set(id, resolve)).then((d) => d());
  }

  private delivered(id: string, deliver: Deliver): void {
    const waiter = this.waiting.get(id);
    if (waiter !== undefined) {
      this.waiting.delete(id);
      waiter(deliver);
      return;
    }
    if (this.inFlight === 0) return;
    this.unclaimed.set(id, deliver);
    if (this.unclaimed.size > MAX_UNCLAIMED) {
      const oldest = this.unclaimed.keys().next().value;
      if (oldest !== undefined) this.unclaimed.delete(oldest);
    }
  }
}
