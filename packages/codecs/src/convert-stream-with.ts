import type { Codec, StreamDecoder, StreamEncoder, StreamWrite } from './codec.js';
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
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    return {
      read: () => reader.read() as ReturnType<Pull['read']>,
      cancel: (reason) => reader.cancel(reason),
    };
  }
  const iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  return {
    read: () => iterator.next() as ReturnType<Pull['read']>,
    cancel: async () => {
      await iterator.return?.();
    },
  };
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
  /** Set once the iterator was used: from then on it is the only reader of `source`. */
  let started = false;
  /** Set when the source was handed out as a web stream instead: the iterator yields nothing. */
  let streamed = false;
  const queue: Uint8Array[] = [];
  const over: IteratorResult<Uint8Array> = { done: true, value: undefined };
  let closed = false;
  let returned = false;
  let failure: { error: unknown } | null = null;
  /** Whether a pull is under way (one at a time). */
  let pulling = false;
  /** The `next()` calls waiting for a pull, first first: each gets its own result. */
  const waiters: Array<{ resolve(result: IteratorResult<Uint8Array>): void; reject(error: unknown): void }> = [];
  const sink: ChunkSink = {
    enqueue: (chunk) => {
      if (!returned) queue.push(chunk);
    },
    close: () => void (closed = true),
  };
  /** What `next()` gives now, or null when it has to wait for a pull. Throws a pull's failure. */
  const ready = (): IteratorResult<Uint8Array> | null => {
    if (returned || streamed) return over;
    if (queue.length > 0) return { done: false, value: queue.shift()! };
    if (failure !== null) throw failure.error;
    if (closed) return over;
    return null;
  };
  /** Hand what the pull gave to the waiters in order; pull again while one is left without. */
  const serve = () => {
    while (waiters.length > 0) {
      let result: IteratorResult<Uint8Array> | null;
      try {
        result = ready();
      } catch (error) {
        waiters.shift()!.reject(error);
        continue;
      }
      if (result === null) return pull();
      waiters.shift()!.resolve(result);
    }
  };
  const pulled = () => {
    pulling = false;
    serve();
  };
  const pullFailed = (error: unknown) => {
    pulling = false;
    if (!returned) failure = { error };
    serve();
  };
  const pull = () => {
    pulling = true;
    source.pull(sink).then(pulled, pullFailed);
  };
  const iterator: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]: () => iterator,
    next(): Promise<IteratorResult<Uint8Array>> {
      started = true;
      // A pull under way (another next() asked first) is waited for; return() ends the wait.
      if (!pulling) {
        let result: IteratorResult<Uint8Array> | null;
        try {
          result = ready();
        } catch (error) {
          return Promise.reject(error);
        }
        if (result !== null) return Promise.resolve(result);
      } else if (returned || streamed) return Promise.resolve(over);
      return new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
        waiters.push({ resolve, reject });
        if (!pulling) pull();
      });
    },
    async return(): Promise<IteratorResult<Uint8Array>> {
      started = true;
      if (returned || streamed) return over;
      returned = true;
      queue.length = 0;
      // A next() still waiting for the pull ends now; what the pull gives is dropped.
      for (const waiter of waiters.splice(0)) waiter.resolve(over);
      if (!closed && failure === null) {
        closed = true;
        await source.cancel();
      }
      return over;
    },
  };
  Object.defineProperty(iterator, CHUNK_STREAM, {
    value: (): ReadableStream<Uint8Array> | undefined => {
      if (started) return undefined;
      started = streamed = true;
      return toReadableStream(source);
    },
  });
  return iterator;
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
  const onEvent = options.onEvent;
  const out = pendingOutput();
  /** What was written before an error, handed on as its own chunk so the error travels alone. */
  let beforeError: Uint8Array | null = null;
  let finished = false;
  /** The stream's terminal event went by (see `passthrough`). */
  let terminal = false;
  const write = out.write;
  const observe = (event: StreamEvent) => {
    if (event.type === 'message_stop') terminal = true;
    if (onEvent !== undefined) onEvent(event);
  };
  const encode = (event: StreamEvent) => {
    if (finished) return;
    if (event.type === 'message_stop') terminal = true;
    if (onEvent !== undefined) onEvent(event);
    if (event.type === 'error' && !out.empty) {
      // A client may look at each chunk on its own (@google/genai does, for a bare error body).
      beforeError = out.take();
    }
    sink.encode(event, write);
    if (event.type === 'error') finished = true;
  };
  const transform = options.transform;
  const emit =
    transform === undefined
      ? encode
      : (event: StreamEvent) => {
          if (!finished) transform(event, encode);
        };
  const reader = createFrameReader(
    source,
    (message) => {
      if (finished) return;
      if (sink.raw !== undefined) {
        // The decoder still runs so that a cut stream is noticed at the end (and for onEvent).
        decoder.push(message, observe);
        sink.raw(message, write);
      } else {
        decoder.push(message, emit);
      }
    },
    (error) => emit({ type: 'error', error }),
    sizeOption(options),
  );
  const upstream = pullFrom(readable);
  const close = closer(options);

  return {
    async pull(controller) {
      try {
        // Read until there is something to hand on, so one pull yields output or the end.
        while (out.empty && beforeError === null) {
          if (finished) {
            controller.close();
            close('done');
            void upstream.cancel().catch(() => {});
            return;
          }
          let result: Awaited<ReturnType<Pull['read']>>;
          try {
            result = await upstream.read();
          } catch (cause) {
            emit({ type: 'error', error: readFailure(cause) });
            break;
          }
          if (result.done) {
            reader.end();
            if (sink.raw !== undefined) {
              // A stream that ended without its terminal event gets the format's error event.
              decoder.end((event) => {
                observe(event);
                if (event.type === 'error' && !finished) sink.encode(event, write);
              });
            } else {
              decoder.end(emit);
            }
            if (!finished) sink.end(write);
            finished = true;
            if (out.empty && beforeError === null) {
              controller.close();
              close('done');
              return;
            }
            break;
          }
          reader.feed(result.value);
          if (terminal && !finished) {
            // Complete: the client's stream ends with this read (see `passthrough`).
            sink.end(write);
            finished = true;
          }
        }
        if (beforeError !== null) controller.enqueue(beforeError);
        beforeError = null;
        if (!out.empty) controller.enqueue(out.take());
        if (finished) {
          controller.close();
          close('done');
          // After an error event nothing more is read: let the source go (a no-op once it ended).
          void upstream.cancel().catch(() => {});
        }
      } catch (error) {
        // A failure of the translation itself: the stream errors, and its end is still reported.
        finished = true;
        close('done');
        void upstream.cancel().catch(() => {});
        throw error;
      }
    },
    cancel(reason) {
      finished = true;
      close('cancelled');
      return upstream.cancel(reason);
    },
  };
}

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
