/**
 * A `fetch` for the gateway's upstream calls on Node, built on tollgate's own keep-alive HTTP/1.1
 * client (`client.ts`) instead of the global (undici) `fetch`. The gateway always calls it the
 * same way — a URL string, a method, a `Headers`, a body already in memory, a signal and
 * `redirect: 'error'` — and that shape skips undici's Request/Response machinery and its wasm
 * parser, and the streams `http.request` builds per call.
 *
 * Anything else (a `Request` as input, a streamed body, redirects to follow) goes to
 * `globalThis.fetch`, so it is a drop-in `typeof fetch`. The answer is a standard `Response`
 * whose body streams with backpressure (the connection is paused while the body waits unread)
 * and is decoded when the upstream compressed it.
 */
import type { HeaderReader, UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { Client, rawHeader, type BodyQueue, type ClientAnswer } from './client.js';

export interface NodeFetchOptions {
  /**
   * Idle keep-alive sockets are closed after this long (ms). Default 4000 (as undici). An
   * upstream that says how long it keeps them (`keep-alive: timeout=N`) is trusted instead, for
   * a second less than it says (at most ten minutes, and never beyond `timeoutMs`), as undici does.
   */
  idleTimeoutMs?: number;
  /**
   * An upstream silent this long (no response head yet, or no body bytes since the last ones)
   * fails the call: before the head it is a connection failure (failover applies), after it
   * the body errors. Default 300000 (as undici's headers and body timeouts).
   */
  timeoutMs?: number;
  /** At most this many sockets per upstream origin. Default unlimited. */
  maxSocketsPerOrigin?: number;
  /** Certificate authorities to trust for https upstreams instead of Node's defaults (a private CA, say). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** The fetch used for calls this transport does not take itself. Default `globalThis.fetch`. */
  fallback?: typeof fetch;
}

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
  else if (Array.isArray(headers)) for (const [name, value] of headers) out.push(name!.toLowerCase(), value!);
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
function rawHeaderReader(raw: readonly string[], decoded: boolean): HeaderReader {
  const get = (name: string): string | null => {
    const lower = name.toLowerCase();
    return decoded && DECODED_AWAY.has(lower) ? null : rawHeader(raw, lower);
  };
  return { get, has: (name) => get(name) !== null };
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

/** The client and the one request path both transports share. */
function transport(options: NodeFetchOptions) {
  const client = new Client({
    idleTimeoutMs: options.idleTimeoutMs ?? 4000,
    timeoutMs: options.timeoutMs ?? 300_000,
    maxSocketsPerOrigin: options.maxSocketsPerOrigin ?? Number.POSITIVE_INFINITY,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const fallback = options.fallback ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));

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
 * for calls shaped like the gateway's, everything else handed to the fallback.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const t = transport(options);
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

export interface NodeUpstream extends UpstreamFetch {
  /** Close the idle connections (a later call opens new ones). */
  close(): void;
}

/**
 * The gateway's upstream transport on Node: `createGateway({ …, fetch: createNodeUpstream() })`,
 * as `tollgate serve` does. Like `createNodeFetch`, but the answer is a plain
 * `UpstreamResponse` whose body is the client's own chunk queue (an async iterable): no
 * `Response` and no web stream per call. Reading it pulls from the connection (backpressure);
 * stopping early (`return()`) closes the connection; an abort closes it too.
 */
export function createNodeUpstream(options: NodeFetchOptions = {}): NodeUpstream {
  const t = transport(options);
  // Not an async function: the answer is the transport's own promise, one turn fewer per call.
  const upstream = ((url: string, init: RequestInit & { headers: Headers }): Promise<UpstreamResponse> => {
    const call = t.own(url, init);
    if (call === null) return t.fallback(url, init);
    if (call instanceof TypeError) return Promise.reject(call);
    return t.send(call, init, (answer): UpstreamResponse => ({
      status: answer.status,
      headers: rawHeaderReader(answer.rawHeaders, answer.decoded),
      body: answer.body,
    }));
  }) as NodeUpstream;
  upstream.close = t.close;
  return upstream;
}
