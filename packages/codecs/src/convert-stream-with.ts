import type { Codec, StreamDecoder, StreamEncoder, StreamFrameReader, StreamWrite } from './codec.js';
import { errorInfo, isTimeoutError, type ErrorInfo } from './errors/gateway-error.js';
import type { StreamEvent } from './ir/stream-event.js';
import { sseEvent, type SseMessage } from './sse/parse.js';
import { createFrameReader, pendingOutput } from './stream-framing.js';

export interface ConvertStreamOptions {
  /** The model name to show the client in the converted stream. */
  model?: string;
  /**
   * Whether the client asked for usage in the stream (OpenAI `stream_options.include_usage`).
   * Default true. With an identity plan and `false`, the usage chunk the gateway asked the
   * upstream for is removed again.
   */
  includeUsage?: boolean;
  /** Sees every canonical event of the stream (usage, tool calls), in order, synchronously. */
  onEvent?: (event: StreamEvent) => void;
  /** The largest single upstream event accepted. Default 8 MiB. */
  maxEventBytes?: number;
  /**
   * Called once when the converted stream is over: `done` once its last chunk was handed on,
   * `cancelled` when its consumer cancelled it first.
   */
  onClose?: (how: 'done' | 'cancelled') => void;
  /**
   * Rewrites canonical events before they are encoded (and before `onEvent` sees them): it may
   * emit any number of events for each one, an `error` to end the stream. With a transform the
   * stream is always decoded and encoded again, also when both formats are the same.
   */
  transform?: (event: StreamEvent, emit: (event: StreamEvent) => void) => void;
}

/** `options.onClose`, at most once. */
function closer(options: ConvertStreamOptions): (how: 'done' | 'cancelled') => void {
  let called = false;
  return (how) => {
    if (called) return;
    called = true;
    options.onClose?.(how);
  };
}

/** A byte source: a web `ReadableStream`, or any async iterable of chunks (a Node stream, say). */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

interface Pull {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/** One reading interface over either kind of source. */
function pullFrom(source: ByteSource): Pull {
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') return (source as ReadableStream<Uint8Array>).getReader() as Pull;
  return new IteratorPull((source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]());
}

class IteratorPull implements Pull {
  constructor(private readonly iterator: AsyncIterator<Uint8Array>) {}

  read(): ReturnType<Pull['read']> {
    return this.iterator.next() as ReturnType<Pull['read']>;
  }

  async cancel(): Promise<void> {
    await this.iterator.return?.();
  }
}

/** What a converted stream's producer writes to: a web stream's controller is one. */
interface ChunkSink {
  enqueue(chunk: Uint8Array): void;
  close(): void;
}

/**
 * A pull-driven producer of chunks: `pull` adds output (or closes) when asked, `cancel` gives the
 * source up. The same producer backs a web `ReadableStream` (`convertStreamWith`) or a plain
 * async iterator (`convertStreamChunks`), which a server writing to a socket reads without the
 * web stream's machinery.
 */
interface ChunkSource {
  pull(sink: ChunkSink): Promise<void>;
  cancel(reason?: unknown): Promise<void>;
}

function toReadableStream(source: ChunkSource): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ pull: (controller) => source.pull(controller), cancel: (reason) => source.cancel(reason) }, { highWaterMark: 0 });
}

/**
 * Under this key, an iterator of `convertStreamChunks` offers its chunks as a web stream made
 * directly on the conversion (what `convertStreamWith` returns) — a function answering undefined
 * once the iterator was used. Either the iterator or the stream is then the reader. A caller
 * that would otherwise wrap the iterator in a stream (the gateway's `handle`) spares an iterator
 * step per chunk.
 */
const CHUNK_STREAM = Symbol.for('tollgate.chunkStream');

/**
 * The chunks of a source as an async iterator, read as a web stream would be: one pull at a
 * time, only when asked; a failure of `pull` fails this and every later `next()`; `return()`
 * ends the iteration at once — a `next()` still waiting for the source ends too, and what the
 * source gives after that is dropped — and cancels the source if it had not ended.
 */
function toChunks(source: ChunkSource): AsyncIterableIterator<Uint8Array> {
  return new ChunkIterator(source);
}

const OVER: IteratorResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

interface Waiter {
  resolve(result: IteratorResult<Uint8Array>): void;
  reject(error: unknown): void;
}

/** `toChunks`'s iterator: one object per stream (it is also the sink the source writes to). */
class ChunkIterator implements AsyncIterableIterator<Uint8Array>, ChunkSink {
  /** Set once the iterator was used: from then on it is the only reader of `source`. */
  private started = false;
  /** Set when the source was handed out as a web stream instead: the iterator yields nothing. */
  private streamed = false;
  private readonly queue: Uint8Array[] = [];
  private closed = false;
  private returned = false;
  private failure: { error: unknown } | null = null;
  /** Whether a pull is under way (one at a time). */
  private pulling = false;
  /** The `next()` calls waiting for a pull, first first: each gets its own result. */
  private readonly waiters: Waiter[] = [];
  private readonly pulled = (): void => {
    this.pulling = false;
    this.serve();
  };
  private readonly pullFailed = (error: unknown): void => {
    this.pulling = false;
    if (!this.returned) this.failure = { error };
    this.serve();
  };

  constructor(private readonly source: ChunkSource) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    return this;
  }

  /** As a web stream's controller: what the source gives. */
  enqueue(chunk: Uint8Array): void {
    if (!this.returned) this.queue.push(chunk);
  }

  close(): void {
    this.closed = true;
  }

  /** What `next()` gives now, or null when it has to wait for a pull. Throws a pull's failure. */
  private ready(): IteratorResult<Uint8Array> | null {
    if (this.returned || this.streamed) return OVER;
    if (this.queue.length > 0) return { done: false, value: this.queue.shift()! };
    if (this.failure !== null) throw this.failure.error;
    if (this.closed) return OVER;
    return null;
  }

  /** Hand what the pull gave to the waiters in order; pull again while one is left without. */
  private serve(): void {
    const waiters = this.waiters;
    while (waiters.length > 0) {
      let result: IteratorResult<Uint8Array> | null;
      try {
        result = this.ready();
      } catch (error) {
        waiters.shift()!.reject(error);
        continue;
      }
      if (result === null) return this.pull();
      waiters.shift()!.resolve(result);
    }
  }

  private pull(): void {
    this.pulling = true;
    this.source.pull(this).then(this.pulled, this.pullFailed);
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    this.started = true;
    // A pull under way (another next() asked first) is waited for; return() ends the wait.
    if (!this.pulling) {
      let result: IteratorResult<Uint8Array> | null;
      try {
        result = this.ready();
      } catch (error) {
        return Promise.reject(error);
      }
      if (result !== null) return Promise.resolve(result);
    } else if (this.returned || this.streamed) return Promise.resolve(OVER);
    return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.pulling) this.pull();
    });
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.started = true;
    if (this.returned || this.streamed) return OVER;
    this.returned = true;
    this.queue.length = 0;
    // A next() still waiting for the pull ends now; what the pull gives is dropped.
    for (const waiter of this.waiters.splice(0)) waiter.resolve(OVER);
    if (!this.closed && this.failure === null) {
      this.closed = true;
      await this.source.cancel();
    }
    return OVER;
  }

  /** See `CHUNK_STREAM`. */
  [CHUNK_STREAM](): ReadableStream<Uint8Array> | undefined {
    if (this.started) return undefined;
    this.started = this.streamed = true;
    return toReadableStream(this.source);
  }
}

/**
 * Convert a stream of the `source` codec's format into the `target` codec's, chunk by chunk.
 * Pull-based: nothing is read from the source until the consumer asks, so a slow consumer slows
 * the upstream read. Holds at most one incomplete event. Failures become the target format's
 * in-stream error event; a source that ends without its terminal event is reported as an
 * error, never as a clean finish. The same format on both sides is the identity plan.
 */
export function convertStreamWith(readable: ByteSource, source: Codec, target: Codec, options: ConvertStreamOptions = {}): ReadableStream<Uint8Array> {
  return toReadableStream(converter(readable, source, target, options));
}

/**
 * `convertStreamWith` as an async iterator of chunks instead of a web stream, for a server that
 * writes them to a socket itself: the same conversion, pull-driven the same way; `return()`
 * cancels the source as cancelling the stream would.
 */
export function convertStreamChunks(readable: ByteSource, source: Codec, target: Codec, options: ConvertStreamOptions = {}): AsyncIterableIterator<Uint8Array> {
  return toChunks(converter(readable, source, target, options));
}

function converter(readable: ByteSource, source: Codec, target: Codec, options: ConvertStreamOptions): ChunkSource {
  const same = source.format === target.format;
  const transform = options.transform !== undefined;
  if (same && !transform && !needsRewrite(source, options)) return passthrough(readable, source, options);
  const decoder = source.createStreamDecoder();
  const sink: StreamEncoder = same && !transform ? identityRewriter(source, options) : target.createStreamEncoder(encoderOptions(options));
  return fused(readable, source, decoder, sink, options);
}

function encoderOptions(options: ConvertStreamOptions) {
  const out: { model?: string; includeUsage?: boolean } = {};
  if (options.model !== undefined) out.model = options.model;
  if (options.includeUsage !== undefined) out.includeUsage = options.includeUsage;
  return out;
}

function needsRewrite(codec: Codec, options: ConvertStreamOptions): boolean {
  return options.includeUsage === false && codec.identityFilter !== undefined;
}

/** An encoder for the identity plan with rewriting: it is driven by raw messages, not events. */
function identityRewriter(codec: Codec, options: ConvertStreamOptions): StreamEncoder & { raw(m: SseMessage, write: StreamWrite): void } {
  const filter = codec.identityFilter!.bind(codec);
  const target = codec.createStreamEncoder(encoderOptions(options));
  return {
    raw(message, write) {
      // A bare JSON body outside SSE framing (Google's error at the end of a failed stream) goes on as it came.
      if (message.outOfBand === true) {
        write(`${message.data}\n`);
        return;
      }
      const kept = filter(message, { includeUsage: options.includeUsage !== false });
      if (kept !== null) write(sseEvent(kept.data, kept.event));
    },
    encode(event, write) {
      // Only errors the gateway itself detected reach here (oversize, cut stream, read failure).
      if (event.type === 'error') target.encode(event, write);
    },
    end() {},
  };
}

/**
 * The identity plan: bytes pass through unchanged while a side decoder watches them (feeding
 * `onEvent`). When the upstream fails — the connection breaks, or the stream ends before its
 * terminal event — the format's own in-stream error is appended, so the client sees an error,
 * never a clean finish. Pull-based like `fused`.
 */
function passthrough(readable: ByteSource, codec: Codec, options: ConvertStreamOptions): ChunkSource {
  const onEvent = options.onEvent;
  const decoder = codec.createStreamDecoder();
  const sse = codec.streamFraming === undefined;
  let watching = true;
  let upstreamError = false;
  /** The stream's terminal event went by: what the upstream sends after it (or never) does not matter. */
  let terminal = false;
  const see = (event: StreamEvent) => {
    if (event.type === 'error') upstreamError = true;
    else if (event.type === 'message_stop') terminal = true;
    onEvent?.(event);
  };
  const reader = createFrameReader(
    codec,
    (message) => {
      if (watching) decoder.push(message, see);
    },
    (error) => {
      // A frame the gateway cannot read (oversized, corrupt) is the upstream's to send; metering
      // stops watching, bytes still flow.
      watching = false;
      onEvent?.({ type: 'error', error });
    },
    sizeOption(options),
  );
  const upstream = pullFrom(readable);
  const close = closer(options);
  /** The last bytes relayed (SSE only), so an appended error event starts on its own line. */
  let tail = '';
  let closed = false;
  const errorBytes = (error: ErrorInfo): Uint8Array => {
    const out = pendingOutput();
    if (sse && !(/(\n\n|\r\n\r\n|\r\r)$/.test(tail) || tail === '')) out.write('\n\n');
    codec.createStreamEncoder(encoderOptions(options)).encode({ type: 'error', error }, out.write);
    return out.take();
  };
  return {
    async pull(controller) {
      try {
        if (closed) return;
        let result: Awaited<ReturnType<Pull['read']>>;
        try {
          result = await upstream.read();
        } catch (cause) {
          closed = true;
          const error = readFailure(cause);
          onEvent?.({ type: 'error', error });
          if (!upstreamError) controller.enqueue(errorBytes(error));
          controller.close();
          close('done');
          return;
        }
        if (result.done) {
          closed = true;
          reader.end();
          let ended: ErrorInfo | null = null;
          if (watching) {
            decoder.end((event) => {
              const before = upstreamError;
              see(event);
              if (event.type === 'error' && !before) ended = event.error;
            });
          }
          if (ended !== null) controller.enqueue(errorBytes(ended));
          controller.close();
          close('done');
          return;
        }
        controller.enqueue(result.value);
        if (sse) tail = (tail + String.fromCharCode(...result.value.subarray(Math.max(0, result.value.byteLength - 4)))).slice(-4);
        reader.feed(result.value);
        if (terminal) {
          // Complete: end the client's stream now, whatever the upstream does with the rest of
          // its body (trailers that never end, a close that never comes).
          closed = true;
          controller.close();
          close('done');
          void upstream.cancel().catch(() => {});
        }
      } catch (error) {
        // A failure of the translation itself: the stream errors, and its end is still reported.
        closed = true;
        close('done');
        void upstream.cancel().catch(() => {});
        throw error;
      }
    },
    cancel(reason) {
      closed = true;
      close('cancelled');
      return upstream.cancel(reason);
    },
  };
}

/** The error event for an upstream read that failed mid-stream: a timeout says so. */
function readFailure(cause: unknown): ErrorInfo {
  return isTimeoutError(cause)
    ? errorInfo('upstream_timeout', 'The upstream stopped sending mid-stream and the gateway gave up waiting.')
    : errorInfo('upstream_error', 'The upstream connection failed mid-stream.', { status: 502 });
}

function sizeOption(options: ConvertStreamOptions): { maxEventBytes?: number } {
  return options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes };
}

function fused(
  readable: ByteSource,
  source: Codec,
  decoder: StreamDecoder,
  sink: StreamEncoder & { raw?: (m: SseMessage, write: StreamWrite) => void },
  options: ConvertStreamOptions,
): ChunkSource {
  return new Fused(readable, source, decoder, sink, options);
}

/** The decode–encode plan: one object per stream, with the few callbacks its parts are handed. */
class Fused implements ChunkSource {
  private readonly onEvent: ((event: StreamEvent) => void) | undefined;
  private readonly onClose: ((how: 'done' | 'cancelled') => void) | undefined;
  private readonly transform: ConvertStreamOptions['transform'];
  private readonly out = pendingOutput();
  /** `out.write`, as encoders are handed it. */
  private readonly write: StreamWrite;
  /** What was written before an error, handed on as its own chunk so the error travels alone. */
  private beforeError: Uint8Array | null = null;
  private finished = false;
  /** `onClose` was called (it is called at most once). */
  private closeReported = false;
  /** The stream's terminal event went by (see `passthrough`). */
  private terminal = false;
  private readonly upstream: Pull;
  private readonly reader: StreamFrameReader;
  /** Where decoded events go: `encode`, or through the transform first. */
  private readonly emit: (event: StreamEvent) => void;
  private readonly encodeEvent = (event: StreamEvent): void => this.encode(event);
  private readonly observeEvent = (event: StreamEvent): void => {
    if (event.type === 'message_stop') this.terminal = true;
    if (this.onEvent !== undefined) this.onEvent(event);
  };

  constructor(
    readable: ByteSource,
    source: Codec,
    private readonly decoder: StreamDecoder,
    private readonly sink: StreamEncoder & { raw?: (m: SseMessage, write: StreamWrite) => void },
    options: ConvertStreamOptions,
  ) {
    this.onEvent = options.onEvent;
    this.onClose = options.onClose;
    this.transform = options.transform;
    this.write = this.out.write;
    this.emit = this.transform === undefined ? this.encodeEvent : (event) => this.transformed(event);
    this.reader = createFrameReader(
      source,
      (message) => this.message(message),
      (error) => this.emit({ type: 'error', error }),
      sizeOption(options),
    );
    this.upstream = pullFrom(readable);
  }

  private close(how: 'done' | 'cancelled'): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.onClose?.(how);
  }

  private encode(event: StreamEvent): void {
    if (this.finished) return;
    if (event.type === 'message_stop') this.terminal = true;
    if (this.onEvent !== undefined) this.onEvent(event);
    if (event.type === 'error' && !this.out.empty) {
      // A client may look at each chunk on its own (@google/genai does, for a bare error body).
      this.beforeError = this.out.take();
    }
    this.sink.encode(event, this.write);
    if (event.type === 'error') this.finished = true;
  }

  private transformed(event: StreamEvent): void {
    if (!this.finished) this.transform!(event, this.encodeEvent);
  }

  private message(message: SseMessage): void {
    if (this.finished) return;
    if (this.sink.raw !== undefined) {
      // The decoder still runs so that a cut stream is noticed at the end (and for onEvent).
      this.decoder.push(message, this.observeEvent);
      this.sink.raw(message, this.write);
    } else {
      this.decoder.push(message, this.emit);
    }
  }

  private letGo(): void {
    this.upstream.cancel().catch(ignore);
  }

  async pull(controller: ChunkSink): Promise<void> {
    const out = this.out;
    try {
      // Read until there is something to hand on, so one pull yields output or the end.
      while (out.empty && this.beforeError === null) {
        if (this.finished) {
          controller.close();
          this.close('done');
          this.letGo();
          return;
        }
        let result: Awaited<ReturnType<Pull['read']>>;
        try {
          result = await this.upstream.read();
        } catch (cause) {
          this.emit({ type: 'error', error: readFailure(cause) });
          break;
        }
        if (result.done) {
          this.reader.end();
          const sink = this.sink;
          if (sink.raw !== undefined) {
            // A stream that ended without its terminal event gets the format's error event.
            this.decoder.end((event) => {
              this.observeEvent(event);
              if (event.type === 'error' && !this.finished) sink.encode(event, this.write);
            });
          } else {
            this.decoder.end(this.emit);
          }
          if (!this.finished) sink.end(this.write);
          this.finished = true;
          if (out.empty && this.beforeError === null) {
            controller.close();
            this.close('done');
            return;
          }
          break;
        }
        this.reader.feed(result.value);
        if (this.terminal && !this.finished) {
          // Complete: the client's stream ends with this read (see `passthrough`).
          this.sink.end(this.write);
          this.finished = true;
        }
      }
      if (this.beforeError !== null) controller.enqueue(this.beforeError);
      this.beforeError = null;
      if (!out.empty) controller.enqueue(out.take());
      if (this.finished) {
        controller.close();
        this.close('done');
        // After an error event nothing more is read: let the source go (a no-op once it ended).
        this.letGo();
      }
    } catch (error) {
      // A failure of the translation itself: the stream errors, and its end is still reported.
      this.finished = true;
      this.close('done');
      this.letGo();
      throw error;
    }
  }

  cancel(reason?: unknown): Promise<void> {
    this.finished = true;
    this.close('cancelled');
    return this.upstream.cancel(reason);
  }
}

function ignore(): void {}

/** A TransformStream from a codec's stream bytes (SSE or its own framing) to canonical events. */
export function decodeStreamWith(codec: Codec, options: { maxEventBytes?: number } = {}): TransformStream<Uint8Array, StreamEvent> {
  const decoder = codec.createStreamDecoder();
  let queue: StreamEvent[] = [];
  let stopped = false;
  const push = (event: StreamEvent) => {
    if (!stopped) queue.push(event);
    if (event.type === 'error') stopped = true;
  };
  const reader = createFrameReader(
    codec,
    (message) => {
      if (!stopped) decoder.push(message, push);
    },
    (error) => push({ type: 'error', error }),
    options,
  );
  const drain = (controller: TransformStreamDefaultController<StreamEvent>) => {
    for (const event of queue) controller.enqueue(event);
    queue = [];
  };
  return new TransformStream<Uint8Array, StreamEvent>({
    transform(chunk, controller) {
      reader.feed(chunk);
      drain(controller);
    },
    flush(controller) {
      reader.end();
      if (!stopped) decoder.end(push);
      drain(controller);
    },
  });
}

/** A TransformStream from canonical events to a codec's stream bytes (SSE or its own framing). */
export function encodeStreamWith(codec: Codec, options: { model?: string; includeUsage?: boolean } = {}): TransformStream<StreamEvent, Uint8Array> {
  const sink = codec.createStreamEncoder(options);
  const out = pendingOutput();
  const flushOut = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (!out.empty) controller.enqueue(out.take());
  };
  return new TransformStream<StreamEvent, Uint8Array>({
    transform(event, controller) {
      sink.encode(event, out.write);
      flushOut(controller);
    },
    flush(controller) {
      sink.end(out.write);
      flushOut(controller);
    },
  });
}
