/**
 * The body of one upstream answer as the gateway reads it: an async iterator of chunks, filled
 * by the transport as bytes arrive and bounded twice — by bytes and by chunk count — so a
 * hostile upstream that sends a body a byte at a time cannot make a stream hold thousands of
 * tiny buffers (each costs far more than its byte). When either bound is reached `push` says
 * stop and the transport pauses the connection until the consumer catches up (`onRoom`). A
 * consumer that finds several chunks waiting gets them joined into one, so a body cut into tiny
 * pieces costs the relay one pass per read, not one per piece.
 */

export interface BodyQueueLimits {
  /** Bytes that may wait unread before the connection is paused. */
  maxBytes: number;
  /** Chunks that may wait unread before the connection is paused. */
  maxChunks: number;
}

export const DEFAULT_BODY_LIMITS: BodyQueueLimits = { maxBytes: 64 * 1024, maxChunks: 64 };

const done: IteratorResult<Uint8Array> = { done: true, value: undefined };

export class BodyQueue implements AsyncIterableIterator<Uint8Array> {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private given = false;
  /** Whether `push` said stop (the producer waits for `onRoom`). */
  private full = false;
  /** `next()` calls waiting for a chunk or the end, first first. */
  private waiters: Array<{ resolve(result: IteratorResult<Uint8Array>): void; reject(error: unknown): void }> = [];
  /** Set by the producer: called when the consumer made room after `push` said stop. */
  onRoom: (() => void) | null = null;
  /** Set by the producer: called once when the consumer gives the body up before its end. */
  onGiveUp: (() => void) | null = null;

  constructor(private readonly limits: BodyQueueLimits = DEFAULT_BODY_LIMITS) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Whether the end (or a failure, or the consumer's giving up) is known. */
  get settled(): boolean {
    return this.ended || this.failure !== null || this.given;
  }

  /** What waits unread (for tests and bounds checks). */
  get buffered(): { bytes: number; chunks: number } {
    return { bytes: this.bytes, chunks: this.chunks.length };
  }

  /** Add a chunk; false when a bound is reached (the producer should pause until `onRoom`). */
  push(chunk: Buffer): boolean {
    if (this.settled) return true;
    if (chunk.byteLength === 0) return !this.full;
    // Someone is waiting (the usual case while streaming): the chunk goes straight to them.
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve({ done: false, value: chunk });
      return !this.full;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.byteLength;
    if (this.bytes >= this.limits.maxBytes || this.chunks.length >= this.limits.maxChunks) this.full = true;
    return !this.full;
  }

  end(): void {
    if (this.settled) return;
    this.ended = true;
    this.wake();
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.failure = { error };
    this.wake();
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.chunks.length > 0) return Promise.resolve({ done: false, value: this.take() });
    if (this.given) return Promise.resolve(done);
    if (this.failure !== null) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve(done);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  return(): Promise<IteratorResult<Uint8Array>> {
    if (!this.given) {
      const early = !this.ended && this.failure === null;
      this.given = true;
      this.chunks = [];
      this.bytes = 0;
      this.wake();
      if (early) this.onGiveUp?.();
    }
    return Promise.resolve(done);
  }

  /** Everything waiting, as one chunk. */
  private take(): Buffer {
    const chunks = this.chunks;
    const chunk = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.bytes);
    this.chunks = [];
    this.bytes = 0;
    if (this.full) {
      this.full = false;
      this.onRoom?.();
    }
    return chunk;
  }

  /** Settle every waiting `next()`: the end, the failure, or done after `return()`. */
  private wake(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (this.failure !== null && !this.given) w.reject(this.failure.error);
      else w.resolve(done);
    }
  }
}
