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
import { Agent, EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import type { UpstreamFetch, UpstreamResponse } from '@tollgate/core';
import { Deadlines } from './deadlines.js';
import { abortReason, Exchange, type Bounds } from './undici-exchange.js';
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
  });
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
  else if (Array.isArray(headers)) for (const [name, value] of headers) out.push(name.toLowerCase(), value);
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
  const call = (input: string | URL, init: object) => undiciFetch(input, { ...init, dispatcher }) as unknown as Promise<Response>;
  return (input: string | URL | Request, init: RequestInit = {}) => {
    // A `Request` of the global fetch is not undici's own class: pass on what it holds.
    if (input instanceof Request) {
      const { url, method, headers, body, signal, redirect } = input;
      const from: Record<string, unknown> = { method, headers, signal, redirect };
      if (body !== null) Object.assign(from, { body, duplex: 'half' });
      return call(url, { ...from, ...(init as object) });
    }
    return call(input, init);
  };
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
      return t.viaUndici(url, init);
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
        dispatcher.dispatch({ origin: where.origin, path: where.path, method: method, headers: flatHeaders(init.headers), body }, exchange);
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
