/**
 * What the gateway reads of a request. A Fetch `Request` is one; a server adapter may hand the
 * gateway a plain object with these fields instead, which spares it constructing a `Request`
 * (and a second stream around the body) for every call — on Node that is a large share of the
 * per-request cost. The body may also be any async iterable of chunks, or bytes some earlier
 * middleware already read.
 */
/** What the gateway reads of request headers (a `Headers` is one): lookups by lowercase name. */
export interface HeaderReader {
  get(name: string): string | null;
  has(name: string): boolean;
}

export interface GatewayRequest {
  readonly method: string;
  /** The absolute URL (origin + path + query). */
  readonly url: string;
  readonly headers: HeaderReader;
  /** Aborted when the client goes away: the upstream call is cancelled with it. */
  readonly signal: AbortSignal;
  readonly body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | null;
}

/** A body the gateway reads: a web stream, or any async iterable of chunks (a Node stream, say). */
export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/**
 * What the gateway reads of an upstream's answer. A Fetch `Response` is one; an upstream
 * transport may answer with a plain object instead (the Node adapter's does), whose body can be
 * any async iterable of chunks. The gateway gives a body up by calling its iterator's `return()`
 * (possibly before any `next()`, or while one is pending): that must release the connection.
 */
export interface UpstreamResponse {
  readonly status: number;
  /** A `Headers` is one; the gateway only looks headers up by name. */
  readonly headers: HeaderReader;
  readonly body: BodySource | null;
}

/**
 * The gateway's answer before it becomes a Fetch `Response`: what a server adapter writes to its
 * socket (`gateway.reply`). `handle` is `reply` turned into a `Response`; an adapter that writes
 * the reply itself spares a `Response`, a `Headers` and a body stream per call.
 */
export interface GatewayReply {
  readonly status: number;
  /** Lowercase names, one value each (the gateway sets no repeated header). */
  readonly headers: Record<string, string>;
  /**
   * The whole body when the gateway holds it (non-stream answers and errors: JSON text, to be
   * sent as UTF-8, or bytes), a byte stream for event streams (cancel it when the client goes
   * away: the upstream call is aborted and the usage record says so), or none.
   */
  readonly body: string | Uint8Array | ReadableStream<Uint8Array> | null;
}

/** Options of `gateway.reply`. */
export interface ReplyOptions {
  /**
   * Take the work that need not delay a whole (non-stream) answer — settling its reservation
   * and writing its usage record — and run it once the answer is on its way: the Node adapters
   * run it right after writing the reply; a Worker could hand it to `ctx.waitUntil`. The work
   * settles at once (the same client's next request is admitted against this answer's cost)
   * and writes the record once the I/O already waiting has been taken. Without
   * it, that work is done before `reply` resolves. `close()` waits for it either way.
   */
  defer?(work: () => Promise<void>): void;
}

/**
 * How the gateway calls upstreams: `globalThis.fetch` is one. The call is always a `POST` with a
 * `Headers`, `redirect: 'error'`, the client's signal, and a body in memory: the client's own
 * bytes (a `Uint8Array`) when they go upstream unchanged, JSON text (a `string`, sent as UTF-8)
 * when the gateway wrote the body. The answer's headers are only looked up by name.
 */
export type UpstreamFetch = (url: string, init: RequestInit & { headers: Headers }) => Promise<UpstreamResponse>;

/** Stop reading a body the gateway will not use (the connection is released or closed). */
export async function cancelBody(body: BodySource | null, reason?: unknown): Promise<void> {
  if (body === null) return;
  if (typeof (body as ReadableStream<Uint8Array>).cancel === 'function') await (body as ReadableStream<Uint8Array>).cancel(reason);
  else await (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]().return?.();
}

/**
 * Read a body chunk by chunk: `take` gets each chunk and returns false to stop early (the rest
 * is cancelled). Resolves true when the body was read to its end.
 */
export async function eachChunk(body: BodySource, take: (chunk: Uint8Array) => boolean): Promise<boolean> {
  if (typeof (body as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      if (!take(value)) {
        await reader.cancel().catch(() => {});
        return false;
      }
    }
  }
  const iterator: AsyncIterator<Uint8Array, unknown> = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  for (;;) {
    const { done, value } = await iterator.next();
    if (done === true) return true;
    if (!take(value)) {
      await iterator.return?.();
      return false;
    }
  }
}
