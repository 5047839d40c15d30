/**
 * The gateway's upstream transport on Node: `createGateway({ …, fetch: createNodeUpstream() })`,
 * as `tollgate serve` does. Direct HTTP/1.1 calls go over tollgate's built-in client
 * (`client.ts`, via `upstream-fetch.ts`); calls through a proxy (`HTTPS_PROXY`, `HTTP_PROXY`,
 * `NO_PROXY`), HTTP/2 to upstreams that offer it, and every call when `client: 'undici'`, go
 * over undici's `Dispatcher#dispatch` with a streaming handler — undici's pools, llhttp parser,
 * TLS and proxy agents. Either way the answer is a plain `UpstreamResponse` whose body is a
 * bounded chunk queue: no `Request`/`Response` objects and no stream per call.
 *
 * Every call is bounded in time, whichever client carries it: opening a connection
 * (`connectTimeoutMs`), the final response head (`headersTimeoutMs`, a hard deadline from the
 * start of the call that interim 1xx heads and a head sent a byte at a time cannot extend),
 * silence (`bodyIdleTimeoutMs`, not counted while the gateway itself is not reading) and the
 * whole exchange (`attemptTimeoutMs`). A call that runs out of time fails with an error named
 * `TimeoutError` (before the head: the call rejects, and the gateway fails over; after it: the
 * body fails). And in memory: the body's unread part is bounded by bytes and by chunk count,
 * past which the connection is paused until the gateway reads on.
 */
import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';
import { Agent, EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import type { HeaderReader, UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { BodyQueue, type BodyQueueLimits } from './body-queue.js';
import { Deadlines, UpstreamTimeoutError } from './deadlines.js';
import { resolveOptions, type NodeUpstreamOptions, type ResolvedOptions } from './options.js';
import { fetchOver, ownTransport, upstreamAnswer, type NodeFetch } from './upstream-fetch.js';

export { UpstreamTimeoutError } from './deadlines.js';
export type { NodeUpstreamOptions } from './options.js';
export type { NodeFetch } from './upstream-fetch.js';

export interface NodeUpstream extends UpstreamFetch {
  /**
   * Close the connections: calls under way get a second to finish, then are cut. Later calls
   * fail (make a new transport for them).
   */
  close(): Promise<void>;
  /** The undici dispatcher the calls go through (shared by `createNodeFetch` callers, tests). */
  readonly dispatcher: Dispatcher;
}

/** undici's dispatcher for the options: an Agent (pools per origin), behind the proxies in force. */
export function buildDispatcher(o: ResolvedOptions): Dispatcher {
  const tls = o.ca === undefined ? {} : { ca: o.ca };
  const agentOptions: Agent.Options = {
    connect: { ...tls, timeout: o.connectTimeoutMs },
    // undici's own head and body timers (its head timer restarts on each interim head; the
    // hard deadline is this transport's), and heads as large as the built-in client takes.
    headersTimeout: Math.min(o.headersTimeoutMs, 2_147_483_647),
    bodyTimeout: Math.min(o.bodyIdleTimeoutMs, 2_147_483_647),
    keepAliveTimeout: o.keepAliveTimeoutMs,
    // An upstream's `keep-alive: timeout=N` trusted for a second less, at most ten minutes (as the built-in client).
    keepAliveTimeoutThreshold: 1000,
    keepAliveMaxTimeout: 600_000,
    maxHeaderSize: 64 * 1024,
    ...(o.maxSocketsPerOrigin === undefined ? {} : { connections: o.maxSocketsPerOrigin }),
    ...(o.http2 ? { allowH2: true } : {}),
  };
  if (o.proxy === null) return new Agent(agentOptions);
  return new EnvHttpProxyAgent({
    ...agentOptions,
    // Empty strings: no proxy for that scheme (undici would read the environment again for undefined).
    httpProxy: o.proxy.http,
    httpsProxy: o.proxy.https,
    noProxy: o.proxy.noProxy,
    // TLS to the upstream through a tunnel, and the tunnel's own connect, bounded alike.
    requestTls: { ...tls, timeout: o.connectTimeoutMs },
    proxyTls: { timeout: o.connectTimeoutMs },
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

/**
 * A header from undici's raw head (`[name, value, …]` as bytes, names in the case the upstream
 * sent them; `name` lowercase), repeated ones joined with `, `.
 */
function rawHeader(raw: readonly Buffer[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== name.length || key.toString('latin1').toLowerCase() !== name) continue;
    const value = raw[i + 1]!.toString('latin1');
    found = found === null ? value : `${found}, ${value}`;
  }
  return found;
}

/** The head as the gateway reads it: lookups by name, straight from the raw head. */
function headerReader(raw: readonly Buffer[], decoded: boolean): HeaderReader {
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

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The fixed parts of every call of one transport. */
interface Bounds {
  headersMs: number;
  attemptMs: number;
  limits: BodyQueueLimits;
  deadlines: Deadlines;
}

/**
 * One call: undici's handler, and the promise of the answer's head. The head resolves the call;
 * the body goes to a `BodyQueue` the gateway reads.
 *
 * It implements the handler interface undici's own core calls (`onConnect`, `onHeaders`,
 * `onData`, `onComplete`, `onError`; typed as deprecated in favour of the controller-based one,
 * which undici adapts onto these at the cost of a controller and a parsed header object per
 * answer — measurable on the gateway's hot path, BENCHMARKS.md).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private abortCall: ((error?: Error) => void) | null = null;
  private resumeCall: (() => void) | null = null;
  private body: BodyQueue | null = null;
  private decoder: Decoder | null = null;
  private answered = false;
  private over = false;
  /** Why the call was given up before undici could take an abort. */
  private pendingAbort: Error | null = null;
  private readonly started = performance.now();
  /** When the current bound runs out (`performance.now()` ms): the head's, then the whole call's. */
  deadline: number;
  private onAbort: (() => void) | null = null;

  constructor(
    private readonly bounds: Bounds,
    private readonly resolve: (answer: UpstreamResponse) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly redirectError: boolean,
  ) {
    this.deadline = this.started + Math.min(bounds.headersMs, bounds.attemptMs);
    bounds.deadlines.add(this);
    if (signal !== undefined) {
      this.onAbort = () => this.giveUp(abortReason(signal) as Error);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abortCall = abort;
    if (this.pendingAbort !== null) abort(this.pendingAbort);
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // Interim heads (102, 103…) change nothing: the deadline for the final head still runs.
    if (status < 200 || this.over) return true;
    if (this.redirectError && REDIRECT.has(status)) {
      const location = rawHeader(rawHeaders, 'location');
      if (location !== null) {
        this.giveUp(networkError(new Error(`unexpected redirect (${status}) to ${location}`)));
        return false;
      }
    }
    this.answered = true;
    // From the head on, only the whole call's deadline is left.
    this.deadline = this.started + this.bounds.attemptMs;
    this.resumeCall = resume;
    const hasBody = !NULL_BODY.has(status);
    const decoder = hasBody ? decoderFor(rawHeader(rawHeaders, 'content-encoding') ?? undefined) : null;
    const body = hasBody ? new BodyQueue(this.bounds.limits) : null;
    this.body = body;
    if (body !== null) {
      body.onRoom = () => {
        if (this.decoder !== null) this.decoder.resume();
        else resume();
      };
      body.onGiveUp = () => this.giveUp(new Error('the gateway gave the body up'));
      if (decoder !== null) this.decode(decoder, body);
    }
    this.resolve({
      // Statuses outside what a response can carry are the upstream's fault.
      status: status > 599 ? 502 : status,
      headers: headerReader(rawHeaders, decoder !== null),
      body,
    });
    return true;
  }

  /** A chunk of the body; false pauses the connection until the body has room again. */
  onData(chunk: Buffer): boolean {
    if (this.over) return true;
    if (this.decoder !== null) return this.decoder.write(chunk);
    return this.body === null || this.body.push(chunk);
  }

  onComplete(): void {
    if (this.over) return;
    this.finish();
    if (this.decoder !== null) this.decoder.end();
    else this.body?.end();
  }

  onError(error: Error): void {
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
    if (this.abortCall !== null) this.abortCall(error);
    else this.pendingAbort = error;
  }

  /** The current bound ran out (called by `Deadlines`). */
  expire(): void {
    const head = !this.answered && this.bounds.headersMs < this.bounds.attemptMs;
    this.giveUp(new UpstreamTimeoutError(head ? 'headers' : 'attempt', head ? this.bounds.headersMs : this.bounds.attemptMs));
  }

  private finish(): void {
    this.over = true;
    this.bounds.deadlines.delete(this);
    if (this.onAbort !== null) {
      this.signal!.removeEventListener('abort', this.onAbort);
      this.onAbort = null;
    }
  }

  /** A compressed body: the raw bytes go through the decoder, what it gives goes to the body. */
  private decode(decoder: Decoder, body: BodyQueue): void {
    this.decoder = decoder;
    decoder.on('data', (chunk: Buffer) => {
      if (!body.push(chunk)) decoder.pause();
    });
    decoder.on('drain', () => this.resumeCall?.());
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

/** Close gracefully, then cut what is still running after `graceMs`. */
export async function closeDispatcher(dispatcher: Dispatcher, graceMs = 1000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = await Promise.race([
    dispatcher.close().then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    }),
  ]);
  clearTimeout(timer);
  if (!closed) await dispatcher.destroy();
}

/** A fetch over undici's dispatcher (undici's own `fetch`; a global `Request` passed on as its parts). */
function undiciFetchOver(dispatcher: Dispatcher): typeof fetch {
  const call = (input: string | URL, init: object) => undiciFetch(input, { ...init, dispatcher } as Parameters<typeof undiciFetch>[1]) as unknown as Promise<Response>;
  return ((input: string | URL | Request, init: RequestInit = {}) => {
    // A `Request` of the global fetch is not undici's own class: pass on what it holds.
    if (input instanceof Request) {
      const { url, method, headers, body, signal, redirect } = input;
      const from: Record<string, unknown> = { method, headers, signal, redirect };
      if (body !== null) Object.assign(from, { body, duplex: 'half' });
      return call(url, { ...from, ...(init as object) });
    }
    return call(input, init);
  }) as typeof fetch;
}

/** Both clients, and which one takes a call. */
function transports(options: NodeUpstreamOptions) {
  const o = resolveOptions(options);
  const dispatcher = buildDispatcher(o);
  const viaUndici = undiciFetchOver(dispatcher);
  const own = o.client === 'builtin' ? ownTransport(o, viaUndici) : null;
  // A proxy in force: undici decides per origin (NO_PROXY); HTTP/2: undici negotiates it.
  const ownTakes = (url: string) => own !== null && o.proxy === null && !(o.http2 && url.startsWith('https:'));
  const bounds: Bounds = {
    headersMs: o.headersTimeoutMs,
    attemptMs: o.attemptTimeoutMs,
    limits: o.bodyLimits,
    deadlines: new Deadlines(Deadlines.tickFor(Math.min(o.headersTimeoutMs, o.attemptTimeoutMs))),
  };
  const close = async () => {
    own?.close();
    await closeDispatcher(dispatcher);
  };
  return { dispatcher, viaUndici, own, ownTakes, bounds, close };
}

/**
 * The gateway's upstream transport on Node (see the top of this file): pass it as
 * `createGateway({ …, fetch: createNodeUpstream() })`. Calls not shaped like the gateway's (a
 * streamed body, redirects to follow) go to undici's `fetch` over the same connections.
 */
export function createNodeUpstream(options: NodeUpstreamOptions = {}): NodeUpstream {
  const t = transports(options);
  const { dispatcher, bounds } = t;

  const upstream = ((url: string, init: RequestInit & { headers: Headers }): Promise<UpstreamResponse> => {
    if (t.ownTakes(url)) {
      const call = t.own!.own(url, init);
      if (call instanceof TypeError) return Promise.reject(call);
      if (call !== null) return t.own!.send(call, init, upstreamAnswer);
    }
    const body = bodyBytes(init.body);
    if (body === undefined || (init.redirect !== 'error' && init.redirect !== 'manual')) {
      // Not the gateway's shape of call: undici's fetch over the same connections.
      return t.viaUndici(url, init) as unknown as Promise<UpstreamResponse>;
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
        exchange.onError(error as Error);
      }
    });
  }) as NodeUpstream;
  upstream.close = t.close;
  Object.defineProperty(upstream, 'dispatcher', { value: dispatcher });
  return upstream;
}

/**
 * The same transport as a drop-in `fetch` answering with standard `Response`s: the built-in
 * client's for the calls it takes, undici's `fetch` over the same connections for the rest. The
 * hard head and whole-call deadlines apply to the built-in client's calls; pass a `signal`
 * (`AbortSignal.timeout(ms)`) to bound the others.
 */
export function createNodeFetch(options: NodeUpstreamOptions = {}): NodeFetch {
  const t = transports(options);
  const own = t.own === null ? null : fetchOver(t.own);
  const nodeFetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return own !== null && t.ownTakes(url) ? own(input, init) : t.viaUndici(input, init);
  }) as NodeFetch;
  nodeFetch.close = () => void t.close();
  return nodeFetch;
}
