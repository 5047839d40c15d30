import { GatewayError, type CodecTable, type ErrorInfo, type WireFormat } from '@tollgate/codecs/base';
import { errorCodec } from './codecs.js';
import type { GatewayReply, GatewayRequest } from './request.js';

const COMPLETE_BODY = Symbol.for('tollgate.completeBody');
const TAKE_CHUNKS = Symbol.for('tollgate.takeChunks');

const textEncoder = new TextEncoder();

/** A reply whose whole body the gateway holds (non-stream answers, errors): JSON text. */
export function completeReply(status: number, body: string, headers: Record<string, string>): GatewayReply {
  return { status, headers, body };
}

/**
 * A reply whose body is an event stream produced chunk by chunk. Its `body` is a web stream,
 * made on first access; a server adapter that writes to a socket itself can instead take the
 * chunks as an async iterator (`takeChunks`), sparing the web stream's machinery per call. One or
 * the other: whichever is asked for first.
 */
export function streamReply(status: number, headers: Record<string, string>, chunks: AsyncIterableIterator<Uint8Array>): GatewayReply {
  const reply = { status, headers } as GatewayReply & { [STREAM_STATE]: StreamState };
  Object.defineProperty(reply, 'body', STREAM_BODY);
  Object.defineProperty(reply, STREAM_STATE, { value: { chunks, stream: undefined, taken: false, replaced: null } satisfies StreamState });
  Object.defineProperty(reply, TAKE_CHUNKS, { value: takeStreamChunks });
  return reply;
}

/**
 * A stream reply's state, under a non-enumerable key: a copy made with `{ ...reply }` has the
 * stream as its `body` and cannot take the chunks. A proxy or an object inheriting from the
 * reply reads the same state. Every reply is given its accessor, state and hand-off the same
 * way, with the same functions, so all share one hidden class. Not an object literal with
 * `get body()`: each evaluation of such a literal makes new accessor functions, so V8 gives
 * every reply a map of its own, and those maps (old-generation objects) keep each reply's whole
 * request alive through young collections until a full one (serve-gc in BENCHMARKS.md).
 */
interface StreamState {
  readonly chunks: AsyncIterableIterator<Uint8Array>;
  stream: ReadableStream<Uint8Array> | undefined;
  taken: boolean;
  replaced: { body: GatewayReply['body'] } | null;
}

const STREAM_STATE = Symbol('tollgate.streamState');

type StreamReply = { readonly [STREAM_STATE]: StreamState };

const STREAM_BODY: PropertyDescriptor = {
  /** The event stream; none once an adapter took the chunks (they are being written elsewhere). */
  get(this: StreamReply): GatewayReply['body'] {
    const state = this[STREAM_STATE];
    if (state.replaced !== null) return state.replaced.body;
    if (state.taken) return null;
    return (state.stream ??= directStream(state.chunks) ?? iteratorStream(state.chunks));
  },
  /** A wrapper may still put another body in its place, as on any plain reply. */
  set(this: StreamReply, body: GatewayReply['body']) {
    this[STREAM_STATE].replaced = { body };
  },
  enumerable: true,
  configurable: true,
};

function takeStreamChunks(this: StreamReply): AsyncIterator<Uint8Array> | undefined {
  const state = this[STREAM_STATE];
  if (state.stream !== undefined || state.taken || state.replaced !== null) return undefined;
  state.taken = true;
  return state.chunks;
}

/**
 * The chunks of a stream reply as an async iterator, if it is one whose `body` was never asked
 * for (then it never will be: write the chunks, and call `return()` to stop early — the upstream
 * is cancelled and the usage record says so). Undefined for any other reply.
 */
export function takeChunks(reply: GatewayReply): AsyncIterator<Uint8Array> | undefined {
  return (reply as { [TAKE_CHUNKS]?: () => AsyncIterator<Uint8Array> | undefined })[TAKE_CHUNKS]?.();
}

const CHUNK_STREAM = Symbol.for('tollgate.chunkStream');

/**
 * The web stream a conversion's chunk iterator (`convertStreamChunks`) offers in its place:
 * read directly on the conversion, without an iterator step per chunk. Undefined for another
 * iterator.
 */
function directStream(chunks: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> | undefined {
  return (chunks as { [CHUNK_STREAM]?: () => ReadableStream<Uint8Array> | undefined })[CHUNK_STREAM]?.();
}

/** An async iterator as a byte stream: pulled when read, `return()` when cancelled. */
function iteratorStream(chunks: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A reply as a Fetch `Response`. A whole body is also attached under a well-known symbol, so a
 * server adapter handed the `Response` can still write it in one call instead of reading the
 * body stream back; any other consumer just reads the body as usual.
 */
export function replyToResponse(reply: GatewayReply): Response {
  const whole = typeof reply.body === 'string' ? textEncoder.encode(reply.body) : reply.body;
  const response = new Response(whole as BodyInit | null, { status: reply.status, headers: reply.headers });
  if (whole instanceof Uint8Array) Object.defineProperty(response, COMPLETE_BODY, { value: whole });
  return response;
}

/** The bytes of a response made from a whole-body reply, if it is one and its body is unread. */
export function completeBodyOf(response: Response): Uint8Array | undefined {
  if (response.bodyUsed) return undefined;
  return (response as unknown as { [COMPLETE_BODY]?: Uint8Array })[COMPLETE_BODY];
}

/**
 * Render a canonical error as a reply in the caller's wire format (among the gateway's codecs;
 * OpenAI's shape, or the first codec's, when it has none for that format).
 */
export function errorReply(
  codecs: CodecTable,
  error: ErrorInfo | GatewayError,
  format: WireFormat | null,
  extraHeaders: Record<string, string> = {},
): GatewayReply {
  const info = GatewayError.isInstance(error) ? error.toInfo() : error;
  const rendered = errorCodec(codecs, format).renderError(info);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(rendered.headers ?? {})) headers[name.toLowerCase()] = value;
  for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  if (info.retryAfterS !== undefined && headers['retry-after'] === undefined) headers['retry-after'] = String(info.retryAfterS);
  return completeReply(rendered.status, JSON.stringify(rendered.body), headers);
}

/** Which format a request that matched no entry route most likely speaks, for its error body. */
export function guessFormat(request: Pick<GatewayRequest, 'headers'>, pathname: string): WireFormat {
  if (pathname.includes(':generateContent') || pathname.includes(':streamGenerateContent') || pathname.startsWith('/v1beta/')) {
    return 'gemini_generate_content';
  }
  if (request.headers.has('anthropic-version') || request.headers.has('x-api-key') || pathname.endsWith('/messages')) {
    return 'anthropic_messages';
  }
  return 'openai_chat';
}
