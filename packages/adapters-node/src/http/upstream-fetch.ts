/**
 * A `fetch` for the gateway's upstream calls on Node, built on `node:http`/`node:https` with
 * keep-alive agents instead of the global (undici) `fetch`. The gateway always calls it the same
 * way — a URL string, a method, a `Headers`, a body already in memory, a signal and
 * `redirect: 'error'` — and that shape skips undici's Request/Response machinery and its wasm
 * parser: about a third of the CPU the gateway spends per request on Node (see BENCHMARKS.md).
 *
 * Anything else (a `Request` as input, a streamed body, redirects to follow) goes to
 * `globalThis.fetch`, so it is a drop-in `typeof fetch`. The answer is a standard `Response`
 * whose body streams with backpressure (the socket is paused while the stream is full) and is
 * decoded when the upstream compressed it.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip, type Inflate, type BrotliDecompress } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { HeaderReader, UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { chunkReader } from './chunks.js';

export interface NodeFetchOptions {
  /** Idle keep-alive sockets are closed after this long (ms). Default 4000 (as undici). */
  idleTimeoutMs?: number;
  /**
   * An upstream silent this long (no response head yet, or no body bytes since the last ones)
   * fails the call: before the head it is a connection failure (failover applies), after it
   * the body errors. Default 300000 (as undici's headers and body timeouts).
   */
  timeoutMs?: number;
  /** At most this many sockets per upstream origin. Default unlimited. */
  maxSocketsPerOrigin?: number;
  /** The fetch used for calls this transport does not take itself. Default `globalThis.fetch`. */
  fallback?: typeof fetch;
}

export interface NodeFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Close the idle sockets (and refuse nothing: a later call opens new ones). */
  close(): void;
}

/** How many body bytes may wait for the consumer before the upstream socket is paused. */
const BUFFERED_BYTES = 64 * 1024;

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

function bodyBytes(body: RequestInit['body']): Uint8Array | string | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined; // a stream, a Blob, FormData…: not this transport's case
}

/**
 * The request head as Node's flat `[name, value, …]` list (written as given, each still
 * validated, without per-header bookkeeping), with `host` and the body's `content-length`
 * added when the caller did not set them.
 */
function rawHeaders(headers: RequestInit['headers'], url: URL, body: Uint8Array | string | null): string[] {
  const out: string[] = [];
  let host = false;
  let length = false;
  const add = (name: string, value: string) => {
    const lower = name.toLowerCase();
    if (lower === 'host') host = true;
    else if (lower === 'content-length') length = true;
    out.push(lower, value);
  };
  if (headers instanceof Headers) headers.forEach((value, name) => add(name, value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) add(name!, value!);
  else if (headers !== undefined) for (const [name, value] of Object.entries(headers)) add(name, value);
  if (!host) out.push('host', url.host);
  if (!length && body !== null) out.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  return out;
}

function responseHeaders(raw: readonly string[], decoded: boolean): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (decoded && DECODED_AWAY.has(name.toLowerCase())) continue;
    headers.append(name, raw[i + 1]!);
  }
  return headers;
}

/** What a decoded body no longer has: its encoding and its encoded length. */
const DECODED_AWAY = new Set(['content-encoding', 'content-length']);

/** One header from Node's flat raw list (any case; repeated ones joined as `Headers` would). */
function rawHeader(raw: readonly string[], name: string): string | null {
  const lower = name.toLowerCase();
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.length !== lower.length || raw[i]!.toLowerCase() !== lower) continue;
    found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]!}`;
  }
  return found;
}

/**
 * The response head as the gateway reads it (lookups by name), straight from the raw list: no
 * `Headers` is built, and Node's parsed header object (built on first access) is never asked for.
 */
function rawHeaderReader(raw: readonly string[], decoded: boolean): HeaderReader {
  const get = (name: string): string | null => (decoded && DECODED_AWAY.has(name.toLowerCase()) ? null : rawHeader(raw, name));
  return { get, has: (name) => get(name) !== null };
}

/** `fetch` reports network failures as a TypeError whose `cause` is the underlying error. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function decoder(encoding: string | undefined): Gunzip | Inflate | BrotliDecompress | null {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return null;
  }
}

/** A Node stream as a byte `ReadableStream`: paused while the consumer is behind, destroyed on cancel. */
function webBody(source: Readable, signal: AbortSignal | undefined, onDone: () => void): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const finish = (error?: unknown) => {
          if (finished) return;
          finished = true;
          onDone();
          if (error === undefined) controller.close();
          else controller.error(error);
        };
        source.on('data', (chunk: Buffer) => {
          if (finished) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once('end', () => finish());
        source.once('error', (error) => finish(signal?.aborted === true ? abortReason(signal) : networkError(error)));
        source.once('close', () => {
          if (!finished) finish(signal?.aborted === true ? abortReason(signal) : networkError(new Error('the upstream closed the connection before the body ended')));
        });
      },
      pull() {
        if (!finished) source.resume();
      },
      cancel() {
        finished = true;
        onDone();
        source.destroy();
      },
    },
    // Up to 64 KiB may wait in the stream before the socket is paused: a bounded buffer, and no
    // pause/resume round for every chunk of a stream the consumer keeps up with.
    { highWaterMark: BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
  );
}

/** An upstream's answer as `node:http` gives it: the body as a Node stream (decoded when compressed). */
interface Answer {
  status: number;
  statusText: string;
  /** The head as Node's flat raw list, and whether the body is decoded (its encoding headers no longer apply). */
  rawHeaders: readonly string[];
  decoded: boolean;
  /** Null for a status without a body; an async iterable of Buffers otherwise. */
  source: Readable | null;
  /** Give the body up now (the connection is closed, not reused). */
  release(): void;
  /** Whether the whole body has arrived (known for an undecoded body only; false otherwise). */
  arrived(): boolean;
  /** Stop watching the signal (called once the body is over, whichever way). */
  detach(): void;
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

/** The agents and the one request path both transports share. */
function transport(options: NodeFetchOptions) {
  const agentOptions = {
    keepAlive: true,
    timeout: options.idleTimeoutMs ?? 4000,
    scheduling: 'lifo' as const,
    // Each request leaves in one write; Nagle would only ever hold a second one back.
    noDelay: true,
    ...(options.maxSocketsPerOrigin === undefined ? {} : { maxSockets: options.maxSocketsPerOrigin }),
  };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent(agentOptions);
  const timeoutMs = options.timeoutMs ?? 300_000;
  const fallback = options.fallback ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));

  function send(url: URL, init: RequestInit, body: Uint8Array | string | null): Promise<Answer> {
    const signal = init.signal ?? undefined;
    const headers = rawHeaders(init.headers, url, body);
    const secure = url.protocol === 'https:';
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      let req: ClientRequest;
      const onAbort = () => {
        req.destroy();
        if (!settled) {
          settled = true;
          reject(abortReason(signal!));
        }
      };
      const detach = () => signal?.removeEventListener('abort', onAbort);
      req = (secure ? httpsRequest : httpRequest)(
        {
          // Plain options rather than the URL object: Node need not take the URL apart again.
          host: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
          path: url.pathname + url.search,
          method: init.method ?? 'GET',
          headers,
          agent: secure ? httpsAgent : httpAgent,
        },
        (res: IncomingMessage) => {
          if (settled) {
            res.destroy();
            return;
          }
          settled = true;
          const status = res.statusCode ?? 502;
          const location = REDIRECT.has(status) ? rawHeader(res.rawHeaders, 'location') : null;
          if (location !== null && init.redirect === 'error') {
            detach();
            res.destroy();
            reject(networkError(new Error(`unexpected redirect (${status}) to ${location}`)));
            return;
          }
          const nullBody = NULL_BODY.has(status) || init.method === 'HEAD';
          const decode = nullBody ? null : decoder(rawHeader(res.rawHeaders, 'content-encoding') ?? undefined);
          let source: Readable = res;
          if (decode !== null) {
            // Errors reach whoever reads the body; unread, they must not crash the process.
            decode.on('error', () => {});
            res.once('error', (error) => decode.destroy(error));
            res.once('aborted', () => decode.destroy(new Error('the upstream closed the connection before the body ended')));
            // A decoder stopped early (the body cancelled) releases the connection too.
            decode.once('close', () => res.destroy());
            source = res.pipe(decode);
          }
          res.once('close', detach);
          if (nullBody) res.resume();
          resolve({
            status: status < 200 || status > 599 ? 502 : status,
            statusText: res.statusMessage ?? '',
            rawHeaders: res.rawHeaders,
            decoded: decode !== null,
            source: nullBody ? null : source,
            release: () => {
              source.destroy();
              res.destroy();
            },
            arrived: () => decode === null && res.complete,
            detach,
          });
        },
      );
      // Silence from the upstream (no head yet, or no body bytes for a while) ends the call.
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`the upstream sent nothing for ${timeoutMs} ms`)));
      req.on('error', (error: Error) => {
        if (settled) return;
        settled = true;
        detach();
        if (signal?.aborted === true) return reject(abortReason(signal));
        reject(networkError(error));
      });
      if (signal !== undefined) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      req.end(body ?? undefined);
    });
  }

  /** The call this transport takes itself, or null when it belongs to the fallback. */
  function own(input: string | URL | Request, init: RequestInit): { url: URL; body: Uint8Array | string | null } | null | TypeError {
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
    return { url, body };
  }

  return {
    send,
    own,
    fallback,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

/**
 * A keep-alive `fetch` over `node:http`/`node:https`: a drop-in `fetch` (standard `Response`s)
 * for calls shaped like the gateway's, everything else handed to the fallback.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const t = transport(options);
  const nodeFetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const call = t.own(input, init);
    if (call === null) return t.fallback(input, init);
    if (call instanceof TypeError) throw call;
    const answer = await t.send(call.url, init, call.body);
    const signal = init.signal ?? undefined;
    return new Response(answer.source === null ? null : webBody(answer.source, signal, answer.detach), {
      status: answer.status,
      statusText: answer.statusText,
      headers: responseHeaders(answer.rawHeaders, answer.decoded),
    });
  }) as NodeFetch;
  nodeFetch.close = t.close;
  return nodeFetch;
}

/**
 * A Node stream as the gateway reads a body (see `chunkReader`). `return()` gives the body up
 * at once — also before the first `next()`, and while a `next()` is pending — so a discarded or
 * cancelled answer never holds its connection.
 */
function nodeBody(source: Readable, release: () => void, arrived: () => boolean): AsyncIterable<Uint8Array> {
  const closedEarly = () => new Error('the upstream closed the connection before the body ended');
  return { [Symbol.asyncIterator]: () => chunkReader(source, { arrived, closedEarly, onReturn: release }) };
}

export interface NodeUpstream extends UpstreamFetch {
  /** Close the idle sockets (a later call opens new ones). */
  close(): void;
}

/**
 * The gateway's upstream transport on Node: `createGateway({ …, fetch: createNodeUpstream() })`,
 * as `tollgate serve` does. Like `createNodeFetch`, but the answer is a plain
 * `UpstreamResponse` whose body is the Node stream itself (an async iterable): no `Response` and
 * no web stream per call. Reading it pulls from the socket (backpressure); stopping early
 * (`return()`) destroys the connection; an abort destroys it too.
 */
export function createNodeUpstream(options: NodeFetchOptions = {}): NodeUpstream {
  const t = transport(options);
  // Not an async function: the answer is the transport's own promise, one turn fewer per call.
  const upstream = ((url: string, init: RequestInit & { headers: Headers }): Promise<UpstreamResponse> => {
    const call = t.own(url, init);
    if (call === null) return t.fallback(url, init);
    if (call instanceof TypeError) return Promise.reject(call);
    return t.send(call.url, init, call.body).then(
      (answer): UpstreamResponse => ({
        status: answer.status,
        headers: rawHeaderReader(answer.rawHeaders, answer.decoded),
        body: answer.source === null ? null : nodeBody(answer.source, answer.release, answer.arrived),
      }),
    );
  }) as NodeUpstream;
  upstream.close = t.close;
  return upstream;
}
