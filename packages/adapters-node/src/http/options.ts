import { DEFAULT_BODY_LIMITS, type BodyQueueLimits } from './body-queue.js';

export interface NodeUpstreamOptions {
  /** Opening a connection (TCP, a proxy's tunnel, TLS) may take this long (ms). Default 10 000. */
  connectTimeoutMs?: number;
  /**
   * The final response head must have arrived this long after the call began (ms): waiting for
   * a connection, connecting, sending, interim 1xx heads and a slow head all count, and none
   * extends it. Default 300 000 (a whole answer's head comes after the whole completion).
   */
  headersTimeoutMs?: number;
  /**
   * The upstream may be silent this long (ms) — before its head, or between body bytes; time
   * the gateway itself does not read (a slow client holding the stream back) does not count.
   * Default 300 000.
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
   * lowercase forms) when the transport is made; an object names them; `'none'` connects directly.
   */
  proxy?: 'env' | 'none' | { http?: string; https?: string; noProxy?: string };
  /** Bounds of a body's unread part: bytes and chunks (defaults 64 KiB and 64). */
  bodyLimits?: Partial<BodyQueueLimits>;
  /**
   * Which HTTP/1.1 client carries direct calls: `builtin` (default), tollgate's own, or `undici`.
   * Calls through a proxy, and HTTP/2, always go over undici.
   */
  client?: 'builtin' | 'undici';
}

/** The options with their defaults, checked. */
export interface ResolvedOptions {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  attemptTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxSocketsPerOrigin: number | undefined;
  ca: NodeUpstreamOptions['ca'];
  http2: boolean;
  /** The proxies in force (from the options or the environment), or null for none. */
  proxy: { http: string; https: string; noProxy: string } | null;
  bodyLimits: BodyQueueLimits;
  client: 'builtin' | 'undici';
}

export const UPSTREAM_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 300_000,
  bodyIdleTimeoutMs: 300_000,
  attemptTimeoutMs: 3_600_000,
  keepAliveTimeoutMs: 4000,
} as const;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0)
    throw new RangeError(`createNodeUpstream: ${name} must be a positive number, got ${String(value)}`);
  return Number.isFinite(value) ? Math.ceil(value) : value;
}

export function resolveOptions(options: NodeUpstreamOptions): ResolvedOptions {
  const proxy = options.proxy ?? 'env';
  const env = process.env;
  const named =
    proxy === 'none'
      ? {}
      : proxy === 'env'
        ? { http: env.http_proxy ?? env.HTTP_PROXY, https: env.https_proxy ?? env.HTTPS_PROXY, noProxy: env.no_proxy ?? env.NO_PROXY }
        : proxy;
  const http = named.http ?? '';
  const https = named.https ?? '';
  if (options.client !== undefined && options.client !== 'builtin' && options.client !== 'undici')
    throw new RangeError(`createNodeUpstream: client must be "builtin" or "undici", got ${String(options.client)}`);
  const max = options.maxSocketsPerOrigin;
  if (max !== undefined && max !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(max) || max < 1))
    throw new RangeError(`createNodeUpstream: maxSocketsPerOrigin must be a whole number of at least 1, got ${String(max)}`);
  return {
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs, UPSTREAM_DEFAULTS.connectTimeoutMs),
    headersTimeoutMs: positive('headersTimeoutMs', options.headersTimeoutMs, UPSTREAM_DEFAULTS.headersTimeoutMs),
    bodyIdleTimeoutMs: positive('bodyIdleTimeoutMs', options.bodyIdleTimeoutMs, UPSTREAM_DEFAULTS.bodyIdleTimeoutMs),
    attemptTimeoutMs: positive('attemptTimeoutMs', options.attemptTimeoutMs, UPSTREAM_DEFAULTS.attemptTimeoutMs),
    keepAliveTimeoutMs: positive('keepAliveTimeoutMs', options.keepAliveTimeoutMs, UPSTREAM_DEFAULTS.keepAliveTimeoutMs),
    maxSocketsPerOrigin: max === Number.POSITIVE_INFINITY ? undefined : max,
    ca: options.ca,
    http2: options.http2 === true,
    proxy: http === '' && https === '' ? null : { http, https, noProxy: named.noProxy ?? '' },
    bodyLimits: {
      maxBytes: positive('bodyLimits.maxBytes', options.bodyLimits?.maxBytes, DEFAULT_BODY_LIMITS.maxBytes),
      maxChunks: positive('bodyLimits.maxChunks', options.bodyLimits?.maxChunks, DEFAULT_BODY_LIMITS.maxChunks),
    },
    client: options.client ?? 'builtin',
  };
}
