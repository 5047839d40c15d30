/**
 * The built-in client's side of the Node upstream transport: calls shaped like the gateway's — a
 * URL string, a method, a `Headers`, a body already in memory, a signal and `redirect: 'error'`
 * — go over tollgate's own keep-alive HTTP/1.1 client (`client.ts`), which skips undici's
 * Request/Response machinery, its wasm parser and the stream per socket read; at one connection
 * behind an upstream with latency that measured a tenth of a millisecond and more per call
 * (BENCHMARKS.md, issue 23). `createNodeUpstream` (upstream.ts) decides which calls come here.
 *
 * `createNodeFetch` is the same client as a drop-in `fetch` (standard `Response`s); what it does
 * not take itself (a `Request` as input, a streamed body, redirects to follow) goes to the
 * fallback.
 */
import type { HeaderReader, UpstreamResponse } from '@tollgate/core';
import { Client, rawHeader, type BodyQueue, type ClientAnswer } from './client.js';
import type { ResolvedOptions } from './options.js';

export interface NodeFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Close the idle sockets (and refuse nothing: a later call opens new ones). */
  close(): void;
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

function bodyBytes(body: RequestInit['body']): Uint8Array | string | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined; // a stream, a Blob, FormData…: not this transport's case
}

/** The request head as a flat `[name, value, …]` list of lowercase names. */
function flatHeaders(headers: RequestInit['headers']): string[] {
  const out: string[] = [];
  if (headers instanceof Headers) headers.forEach((value, name) => void out.push(name, value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) out.push(name.toLowerCase(), value);
  else if (headers !== undefined) for (const [name, value] of Object.entries(headers)) out.push(name.toLowerCase(), value);
  return out;
}

/** What a decoded body no longer has: its encoding and its encoded length. */
const DECODED_AWAY = new Set(['content-encoding', 'content-length']);

function responseHeaders(raw: readonly string[], decoded: boolean): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (decoded && DECODED_AWAY.has(name.toLowerCase())) continue;
    headers.append(name, raw[i + 1]!);
  }
  return headers;
}

/**
 * The response head as the gateway reads it (lookups by name), straight from the raw list: no
 * `Headers` is built.
 */
class RawHeaderReader implements HeaderReader {
  constructor(
    private readonly raw: readonly string[],
    private readonly decoded: boolean,
  ) {}

  get(name: string): string | null {
    const lower = name.toLowerCase();
    return this.decoded && DECODED_AWAY.has(lower) ? null : rawHeader(this.raw, lower);
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** `fetch` reports network failures as a TypeError whose `cause` is the underlying error. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/**
 * A body as a byte `ReadableStream`: pulled from the queue, which pauses the connection while it
 * is full. It fails as fetch's bodies do: with the signal's reason when aborted, else a TypeError.
 */
function webBody(body: BodyQueue, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<Uint8Array>;
        try {
          next = await body.next();
        } catch (error) {
          throw signal?.aborted === true ? error : networkError(error);
        }
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await body.return();
      },
    },
    { highWaterMark: 0 },
  );
}

/** A call this transport takes: where, what, how. */
interface Call {
  url: URL;
  body: Uint8Array | string | null;
  method: string;
}

/** The methods fetch writes in upper case whatever case they were given in. */
const NORMALIZED = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

function normalizedMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED.has(upper) ? upper : method;
}

const parsedUrls = new Map<string, URL>();

/**
 * A URL parsed once per distinct string: the gateway calls a few deployment URLs over and over.
 * Only read afterwards, never changed. A URL carrying a query (a key in it, say) is not kept.
 */
function parsedUrl(input: string): URL {
  let url = parsedUrls.get(input);
  if (url === undefined) {
    url = new URL(input);
    if (url.search !== '') return url;
    if (parsedUrls.size >= 256) parsedUrls.clear();
    parsedUrls.set(input, url);
  }
  return url;
}

/** A call of the built-in client's: the send path, what it takes, and its fallback. */
export type OwnTransport = ReturnType<typeof ownTransport>;

/** The built-in client and the one request path both `createNodeFetch` and `createNodeUpstream` use. */
export function ownTransport(options: ResolvedOptions, fallback: typeof fetch) {
  const client = new Client({
    idleTimeoutMs: options.keepAliveTimeoutMs,
    timeoutMs: options.bodyIdleTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    attemptTimeoutMs: options.attemptTimeoutMs,
    bodyLimits: options.bodyLimits,
    maxSocketsPerOrigin: options.maxSocketsPerOrigin ?? Number.POSITIVE_INFINITY,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });

  /**
   * Send a call; resolves with `shape` of the answer's head (its body still to read). Network
   * failures reject with fetch's TypeError, an abort with the signal's reason.
   */
  function send<T>({ url, body, method }: Call, init: RequestInit, shape: (answer: ClientAnswer) => T): Promise<T> {
    const signal = init.signal ?? undefined;
    const secure = url.protocol === 'https:';
    return client.request(
      {
        secure,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        method,
        path: url.pathname + url.search,
        headers: flatHeaders(init.headers),
        body,
        signal,
      },
      (answer) => {
        const status = answer.status;
        const location = REDIRECT.has(status) ? rawHeader(answer.rawHeaders, 'location') : null;
        if (location !== null && init.redirect === 'error') {
          void answer.body?.return();
          throw networkError(new Error(`unexpected redirect (${status}) to ${location}`));
        }
        if (answer.body !== null && NULL_BODY.has(status)) {
          void answer.body.return();
          answer = { ...answer, body: null };
        }
        return shape(status < 200 || status > 599 ? { ...answer, status: 502 } : answer);
      },
      (error) => {
        if (signal?.aborted === true) return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
        // An invalid header is the caller's error (fetch throws the TypeError itself); anything else is the network's.
        return error instanceof TypeError ? error : networkError(error);
      },
    );
  }

  /** The call this transport takes itself, or null when it belongs to the fallback. */
  function own(input: string | URL | Request, init: RequestInit): Call | null | TypeError {
    if (input instanceof Request || (init.redirect !== 'error' && init.redirect !== 'manual')) return null;
    const body = bodyBytes(init.body);
    if (body === undefined) return null;
    let url: URL;
    try {
      url = typeof input === 'string' ? parsedUrl(input) : input;
    } catch (cause) {
      return new TypeError(`Failed to parse URL from ${String(input)}`, { cause });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    // What fetch refuses, refused alike.
    if (url.username !== '' || url.password !== '') return new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.origin}`);
    const method = normalizedMethod(init.method ?? 'GET');
    if (body !== null && (method === 'GET' || method === 'HEAD')) return new TypeError('Request with GET/HEAD method cannot have body.');
    return { url, body, method };
  }

  return { send, own, fallback, close: () => client.close() };
}

/**
 * A keep-alive `fetch` over tollgate's HTTP/1.1 client: a drop-in `fetch` (standard `Response`s)
 * for calls shaped like the gateway's, everything else handed to `fallback`.
 */
export function fetchOver(t: OwnTransport): NodeFetch {
  const nodeFetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const call = t.own(input, init);
    if (call === null) return t.fallback(input, init);
    if (call instanceof TypeError) throw call;
    return t.send(
      call,
      init,
      (answer) =>
        new Response(answer.body === null ? null : webBody(answer.body, init.signal ?? undefined), {
          status: answer.status,
          statusText: answer.statusText,
          headers: responseHeaders(answer.rawHeaders, answer.decoded),
        }),
    );
  }) as NodeFetch;
  nodeFetch.close = t.close;
  return nodeFetch;
}

/** The built-in client's answer as the gateway reads it: no `Response`, the body its own chunk queue. */
export function upstreamAnswer(answer: ClientAnswer): UpstreamResponse {
  return { status: answer.status, headers: new RawHeaderReader(answer.rawHeaders, answer.decoded), body: answer.body };
}
