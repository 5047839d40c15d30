/**
 * The gateway's upstream transport on Node, on undici: `createGateway({ …, fetch:
 * createNodeUpstream() })`, as `tollgate serve` does. Calls go through `Dispatcher#dispatch`
 * with a streaming handler — undici's connection pools, its llhttp parser, TLS, proxies
 * (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) and, when asked for, HTTP/2 — and the answer is a
 * plain `UpstreamResponse` whose body is a bounded chunk queue: no `Request`/`Response` objects
 * and no web or Node stream per call.
 *
 * Every call is bounded in time: opening a connection (`connectTimeoutMs`), the final response
 * head (`headersTimeoutMs`, a hard deadline from the start of the call that interim 1xx heads
 * and a head sent a byte at a time cannot extend), silence in the body (`bodyIdleTimeoutMs`,
 * not counted while the gateway itself is not reading) and the whole exchange
 * (`attemptTimeoutMs`). A call that runs out of time fails with an error named `TimeoutError`
 * (before the head: the call rejects, and the gateway fails over; after it: the body fails).
 * And in memory: the body's unread bytes are bounded by bytes and by chunk count, past which
 * the connection is paused until the gateway reads on.
 */
import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';
import { Agent, EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import type { HeaderReader, UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { BodyQueue, DEFAULT_BODY_LIMITS, type BodyQueueLimits } from './body-queue.js';

export interface NodeUpstreamOptions {
  /** Opening a connection (TCP, a proxy's tunnel, TLS) may take this long (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /**
   * The final response head must have arrived this long after the call began (ms): waiting for
   * a connection, connecting, sending, interim 1xx heads and a slow head all count, and none
   * extends it. Default 300 000 (a non-stream answer's head comes after the whole completion).
   */
  headersTimeoutMs?: number;
  /**
   * The body may be silent this long between bytes (ms); time the gateway itself does not read
   * (a slow client holding the stream back) does not count. Default 300 000.
   */
  bodyIdleTimeoutMs?: number;
  /** One call, from its start to the answer's last byte, may take this long (ms). Default 3 600 000. */
  attemptTimeoutMs?: number;
  /**
   * Idle keep-alive connections are closed after this long (ms). Default 4000. An upstream
   * that says how long it keeps them (`keep-alive: timeout=N`) is trusted instead, for a second
   * less than it says, at most ten minutes.
   */
  keepAliveTimeoutMs?: number;
  /** At most this many connections per upstream origin; calls beyond wait for one. Default unlimited. */
  maxSocketsPerOrigin?: number;
  /** Certificate authorities to trust for https upstreams instead of Node's defaults (a private CA, say). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Speak HTTP/2 to https upstreams that offer it (ALPN), HTTP/1.1 to the others. Default false. */
  http2?: boolean;
  /**
   * Proxies: `'env'` (default) reads `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (or their
   * lowercase forms) as curl does; an object names them; `'none'` connects directly.
   */
  proxy?: 'env' | 'none' | { http?: string; https?: string; noProxy?: string };
  /** Bounds of a body's unread part: bytes and chunks (defaults 64 KiB and 64). */
  bodyLimits?: Partial<BodyQueueLimits>;
}

export interface NodeUpstream extends UpstreamFetch {
  /** Close the idle connections; calls under way finish (a later call opens new ones). */
  close(): Promise<void>;
  /** The undici dispatcher the calls go through (shared by `createNodeFetch` callers, tests). */
  readonly dispatcher: Dispatcher;
}

const DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 300_000,
  bodyIdleTimeoutMs: 300_000,
  attemptTimeoutMs: 3_600_000,
  keepAliveTimeoutMs: 4000,
};

/** A time bound that ran out. Named `TimeoutError`, as `AbortSignal.timeout`'s reason. */
export class UpstreamTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(
    /** Which bound: `connect`, `headers`, `body` (idle) or `attempt`. */
    readonly bound: 'connect' | 'headers' | 'body' | 'attempt',
    ms: number,
  ) {
    super(
      bound === 'headers'
        ? `the upstream sent no response head within ${ms} ms`
        : bound === 'attempt'
          ? `the upstream call took longer than ${ms} ms`
          : bound === 'body'
            ? `the upstream sent nothing for ${ms} ms`
            : `no connection to the upstream within ${ms} ms`,
    );
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`createNodeUpstream: ${name} must be a positive number of milliseconds, got ${value}`);
  return Math.ceil(value);
}

/** The dispatcher: an Agent (pools per origin), behind the proxies the options name. */
export function buildDispatcher(options: NodeUpstreamOptions, timeouts: { connect: number; headers: number; body: number; keepAlive: number }): Dispatcher {
  const tls = options.ca === undefined ? {} : { ca: options.ca };
  const agentOptions: Agent.Options = {
    connect: { ...tls, timeout: timeouts.connect },
    headersTimeout: timeouts.headers,
    bodyTimeout: timeouts.body,
    keepAliveTimeout: timeouts.keepAlive,
    keepAliveMaxTimeout: 600_000,
    ...(options.maxSocketsPerOrigin === undefined || !Number.isFinite(options.maxSocketsPerOrigin) ? {} : { connections: options.maxSocketsPerOrigin }),
    ...(options.http2 === true ? { allowH2: true } : {}),
  };
  const proxy = options.proxy ?? 'env';
  if (proxy === 'none') return new Agent(agentOptions);
  const env = process.env;
  const named =
    proxy === 'env'
      ? { http: env.http_proxy ?? env.HTTP_PROXY, https: env.https_proxy ?? env.HTTPS_PROXY, noProxy: env.no_proxy ?? env.NO_PROXY }
      : proxy;
  if ((named.http ?? '') === '' && (named.https ?? '') === '') return new Agent(agentOptions);
  return new EnvHttpProxyAgent({
    ...agentOptions,
    // Empty strings: no proxy for that scheme (undici reads the environment for undefined).
    httpProxy: named.http ?? '',
    httpsProxy: named.https ?? '',
    noProxy: named.noProxy ?? '',
    // TLS to the upstream through a tunnel, and the tunnel's own connect, bounded alike.
    requestTls: { ...tls, timeout: timeouts.connect },
    proxyTls: { timeout: timeouts.connect },
  } as EnvHttpProxyAgent.Options);
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** What a decoded body no longer has: its encoding and its encoded length. */
const DECODED_AWAY = new Set(['content-encoding', 'content-length']);

type Decoder = Gunzip | Inflate | BrotliDecompress;

function decoderFor(encoding: string | undefined): Decoder | null {
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

type ParsedHeaders = Record<string, string | string[] | undefined>;

function headerValue(headers: ParsedHeaders, name: string): string | null {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/** The head as the gateway reads it: lookups by name (undici's names are lowercase). */
function headerReader(headers: ParsedHeaders, decoded: boolean): HeaderReader {
  const get = (name: string): string | null => {
    const lower = name.toLowerCase();
    return decoded && DECODED_AWAY.has(lower) ? null : headerValue(headers, lower);
  };
  return { get, has: (name) => get(name) !== null };
}

/** `fetch` reports network failures as a TypeError whose `cause` is the underlying error. */
function networkError(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The fixed parts of every call of one transport. */
interface Bounds {
  headersMs: number;
  attemptMs: number;
  limits: BodyQueueLimits;
}

/**
 * One call: undici's handler, and the promise of the answer's head. The head resolves the call;
 * the body goes to a `BodyQueue` the gateway reads.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private body: BodyQueue | null = null;
  private decoder: Decoder | null = null;
  private answered = false;
  private over = false;
  /** Why the call was given up before undici handed over its controller. */
  private pendingAbort: Error | null = null;
  private timer: ReturnType<typeof setTimeout> | null;
  /** Which deadline `timer` is: the head's, or the whole call's. */
  private timerBound: 'headers' | 'attempt';
  private readonly started = performance.now();
  private onAbort: (() => void) | null = null;

  constructor(
    private readonly bounds: Bounds,
    private readonly resolve: (answer: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly redirectError: boolean,
  ) {
    // One timer at a time: the nearer of the two deadlines.
    this.timerBound = bounds.headersMs < bounds.attemptMs ? 'headers' : 'attempt';
    this.timer = setTimeout(() => this.expire(this.timerBound), Math.min(bounds.headersMs, bounds.attemptMs));
    if (signal !== undefined) {
      this.onAbort = () => this.giveUp(abortReason(signal) as Error);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort !== null) controller.abort(this.pendingAbort);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: ParsedHeaders, statusText?: string): void {
    // Interim heads (102, 103…) change nothing: the deadline for the final head still runs.
    if (status < 200 || this.over) return;
    void statusText;
    if (this.redirectError && REDIRECT.has(status)) {
      const location = headerValue(headers, 'location');
      if (location !== null) return this.giveUp(networkError(new Error(`unexpected redirect (${status}) to ${location}`)));
    }
    this.answered = true;
    // From the head on, only the whole call's deadline is left.
    if (this.timerBound === 'headers') {
      this.clearTimer();
      this.timerBound = 'attempt';
      this.timer = setTimeout(() => this.expire('attempt'), Math.max(1, this.bounds.attemptMs - (performance.now() - this.started)));
    }
    const decoder = NULL_BODY.has(status) ? null : decoderFor(headerValue(headers, 'content-encoding') ?? undefined);
    const body = NULL_BODY.has(status) ? null : new BodyQueue(this.bounds.limits);
    this.body = body;
    if (body !== null) {
      body.onRoom = () => {
        if (this.decoder !== null) this.decoder.resume();
        else controller.resume();
      };
      body.onGiveUp = () => this.giveUp(new Error('the gateway gave the body up'));
      if (decoder !== null) this.decode(decoder, body, controller);
    }
    this.resolve({
      // Statuses outside what a response can carry are the upstream's fault.
      status: status > 599 ? 502 : status,
      headers: headerReader(headers, decoder !== null),
      body,
    });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.over) return;
    if (this.decoder !== null) {
      if (!this.decoder.write(chunk)) controller.pause();
    } else if (this.body !== null && !this.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (this.over) return;
    this.finish();
    if (this.decoder !== null) this.decoder.end();
    else this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.over) return;
    this.finish();
    this.fail(error);
  }

  /** Fail whatever is not over: the call before the head, the body after it. */
  private fail(error: unknown): void {
    if (!this.answered) {
      this.answered = true;
      const signal = this.signal;
      this.reject(signal?.aborted === true ? abortReason(signal) : error instanceof TypeError ? error : networkError(error));
    } else if (this.decoder !== null) {
      this.decoder.destroy();
      this.body?.fail(error);
    } else this.body?.fail(error);
  }

  /** Stop the call: `error` is what the caller sees (the signal's reason when it was aborted). */
  private giveUp(error: Error): void {
    if (this.over) return;
    this.finish();
    this.fail(error);
    if (this.controller !== null) this.controller.abort(error);
    else this.pendingAbort = error;
  }

  private expire(bound: 'headers' | 'attempt'): void {
    this.timer = null;
    this.giveUp(new UpstreamTimeoutError(bound, bound === 'headers' ? this.bounds.headersMs : this.bounds.attemptMs));
  }

  private clearTimer(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private finish(): void {
    this.over = true;
    this.clearTimer();
    if (this.onAbort !== null) {
      this.signal!.removeEventListener('abort', this.onAbort);
      this.onAbort = null;
    }
  }

  /** A compressed body: the raw bytes go through the decoder, what it gives goes to the body. */
  private decode(decoder: Decoder, body: BodyQueue, controller: Dispatcher.DispatchController): void {
    this.decoder = decoder;
    decoder.on('data', (chunk: Buffer) => {
      if (!body.push(chunk)) decoder.pause();
    });
    decoder.on('drain', () => controller.resume());
    decoder.once('end', () => body.end());
    decoder.once('error', (error) => {
      body.fail(error);
      if (!this.over) this.giveUp(error);
    });
  }
}

/** Parsed deployment URLs: the gateway calls a few over and over. One with a query (a key in it) is not kept. */
const parsedUrls = new Map<string, { origin: string; path: string }>();

function target(input: string): { origin: string; path: string } {
  let found = parsedUrls.get(input);
  if (found === undefined) {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch failed: unsupported protocol ${url.protocol}`);
    if (url.username !== '' || url.password !== '') throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url.origin}`);
    found = { origin: url.origin, path: url.pathname + url.search };
    if (url.search !== '') return found;
    if (parsedUrls.size >= 256) parsedUrls.clear();
    parsedUrls.set(input, found);
  }
  return found;
}

/** The request head as a flat `[name, value, …]` list. */
function flatHeaders(headers: RequestInit['headers']): string[] {
  const out: string[] = [];
  if (headers instanceof Headers) headers.forEach((value, name) => void out.push(name, value));
  else if (Array.isArray(headers)) for (const [name, value] of headers) out.push(name!.toLowerCase(), value!);
  else if (headers !== undefined) for (const [name, value] of Object.entries(headers)) out.push(name.toLowerCase(), value);
  return out;
}

function bodyBytes(body: RequestInit['body']): Uint8Array | string | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return undefined; // a stream, a Blob, FormData…: undici's fetch takes it
}

export function createUndiciUpstream(options: NodeUpstreamOptions = {}): NodeUpstream {
  const timeouts = {
    connect: positive('connectTimeoutMs', options.connectTimeoutMs, DEFAULTS.connectTimeoutMs),
    headers: positive('headersTimeoutMs', options.headersTimeoutMs, DEFAULTS.headersTimeoutMs),
    body: positive('bodyIdleTimeoutMs', options.bodyIdleTimeoutMs, DEFAULTS.bodyIdleTimeoutMs),
    keepAlive: positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs),
  };
  const bounds: Bounds = {
    headersMs: timeouts.headers,
    attemptMs: positive('attemptTimeoutMs', options.attemptTimeoutMs, DEFAULTS.attemptTimeoutMs),
    limits: {
      maxBytes: positive('bodyLimits.maxBytes', options.bodyLimits?.maxBytes, DEFAULT_BODY_LIMITS.maxBytes),
      maxChunks: positive('bodyLimits.maxChunks', options.bodyLimits?.maxChunks, DEFAULT_BODY_LIMITS.maxChunks),
    },
  };
  const dispatcher = buildDispatcher(options, timeouts);

  const upstream = ((url: string, init: RequestInit & { headers: Headers }): Promise<UpstreamResponse> => {
    const body = bodyBytes(init.body);
    if (body === undefined || (init.redirect !== 'error' && init.redirect !== 'manual')) {
      // Not the gateway's shape of call: undici's fetch over the same connections.
      return undiciFetch(url, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<UpstreamResponse>;
    }
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted === true) return reject(abortReason(signal));
      let where: { origin: string; path: string };
      try {
        where = target(url);
      } catch (error) {
        return reject(error instanceof TypeError ? error : new TypeError(`Failed to parse URL from ${url}`, { cause: error }));
      }
      const method = (init.method ?? 'GET').toUpperCase();
      if (body !== null && (method === 'GET' || method === 'HEAD')) return reject(new TypeError('Request with GET/HEAD method cannot have body.'));
      const exchange = new Exchange(bounds, resolve, reject, signal, init.redirect === 'error');
      try {
        dispatcher.dispatch({ origin: where.origin, path: where.path, method: method as Dispatcher.HttpMethod, headers: flatHeaders(init.headers), body }, exchange);
      } catch (error) {
        exchange.onResponseError(null as unknown as Dispatcher.DispatchController, error as Error);
      }
    });
  }) as NodeUpstream;
  upstream.close = () => dispatcher.close();
  Object.defineProperty(upstream, 'dispatcher', { value: dispatcher });
  return upstream;
}
