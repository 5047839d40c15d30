import { GatewayConfigError, pendingTelemetry, type Codec, type ConfigIssue, type Gateway, type GatewayOptions } from '@tollgate/core/minimal';
import { hardCapRules, perIsolateCapMessage } from './hard-caps.js';
import { createIsolateStore } from './isolate-store.js';
import { defaultSecrets } from './secrets.js';
import { UsageDelivery } from './usage-delivery.js';

/** Keeps an isolate alive until a promise settles: Workers' `ctx.waitUntil`, Next.js `after`, Vercel's `waitUntil`. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * `createGateway`'s options, plus what the edge needs.
 *
 * State: without `store`, governance state (spend counters, reservations, rate buckets,
 * pause markers) lives in a memory store **per isolate** — one Worker instance, one Deno or
 * Bun process, one serverless function instance. Isolates do not share it and it is lost when
 * the isolate goes away. Pass `store` where the platform offers a shared one (any
 * `StateStore`: e.g. one backed by a Durable Object, or a Redis reachable over HTTP).
 */
export interface EdgeHandlerOptions extends GatewayOptions {
  /**
   * Accept hard spend caps (`block` rules) held by the per-isolate memory store. Without it, a
   * policy with hard caps and no `store` is refused at start: a per-isolate cap is no cap.
   */
  allowPerIsolateCaps?: boolean;
  /**
   * A path prefix removed before routing, when the handler is mounted below the root (a
   * Next.js route at `app/api/tollgate/[...path]/route.ts` has `basePath: '/api/tollgate'`).
   */
  basePath?: string;
  /**
   * Keeps the isolate alive until each request's usage record is delivered (e.g. Next.js
   * `after`), and, with an OpenTelemetry SDK, until the request's spans and metrics — handed to
   * the SDK just after the answer — are handed over. When absent, a platform argument with a
   * `waitUntil` method is used (a Worker's `ctx`, a Netlify or Vercel edge context).
   */
  waitUntil?: WaitUntil;
}

/** `createEdgeHandler`'s options in `@tollgate/adapters-edge/minimal`: the codec list is required. */
export interface MinimalEdgeHandlerOptions extends EdgeHandlerOptions {
  codecs: readonly Codec[];
}

/**
 * A Fetch-API handler: `(request) => Promise<Response>`. Extra arguments are what the platform
 * passes (a Worker's `env` and `ctx`, Deno's connection info, Bun's server, Next.js's route
 * context); only an object with a `waitUntil` method among them is used.
 */
export interface EdgeHandler {
  (request: Request, ...platform: unknown[]): Promise<Response>;
  /** The gateway behind the handler (stats, registry, policy). */
  readonly gateway: Gateway;
  /** Stop taking requests, let open streams finish (bounded), flush usage, close the per-isolate store. */
  close(options?: { drainMs?: number }): Promise<void>;
}

/** The `createGateway` a handler is built with: `@tollgate/core`'s (every codec) or `@tollgate/core/minimal`'s. */
export type GatewayFactory = (options: GatewayOptions) => Gateway;

/** `createEdgeHandler` (see `create.ts` and `minimal.ts`) with the gateway made by `createGateway`. */
export function buildEdgeHandler(options: EdgeHandlerOptions, createGateway: GatewayFactory): EdgeHandler {
  const { allowPerIsolateCaps = false, basePath, waitUntil, ...gatewayOptions } = options;
  const base = normaliseBasePath(basePath);
  const perIsolate = gatewayOptions.store === undefined;
  const store = gatewayOptions.store ?? createIsolateStore();
  const delivery = new UsageDelivery();
  const usage = delivery.wrap(gatewayOptions.usage);
  const secrets = gatewayOptions.secrets ?? defaultSecrets();
  // A per-isolate cap is no cap: refused at start and on every reload (the last good policy stays).
  const ownCheck = gatewayOptions.checkPolicy;
  const checkPolicy =
    perIsolate && !allowPerIsolateCaps
      ? (policy: Gateway['policy']): readonly ConfigIssue[] => {
          const caps = hardCapRules(policy);
          const issues = caps.length > 0 ? [{ path: 'store', message: perIsolateCapMessage(caps) }] : [];
          return ownCheck === undefined ? issues : [...issues, ...ownCheck(policy)];
        }
      : ownCheck;
  const gateway = createGateway({
    ...gatewayOptions,
    store,
    usage,
    ...(secrets === undefined ? {} : { secrets }),
    ...(checkPolicy === undefined ? {} : { checkPolicy }),
  });
  let closed = false;

  /** The spans and metrics the gateway hands to an OpenTelemetry SDK after the answer, kept alive too. */
  const withTelemetry = (first: Promise<void> | null): Promise<void> | null => {
    if (first === null) return pendingTelemetry(gateway);
    return first.then(() => pendingTelemetry(gateway) ?? undefined);
  };

  const handler = async (request: Request, ...platform: unknown[]): Promise<Response> => {
    const routed = base === '' ? request : withoutBase(request, base);
    const schedule = closed ? undefined : (waitUntil ?? platformWaitUntil(platform));
    if (schedule === undefined) return gateway.handle(routed);
    delivery.begin();
    try {
      const response = await gateway.handle(routed);
      // A stream's record (and its telemetry) comes when the stream ends: waited for through its delivery.
      const pending = withTelemetry(delivery.after(response));
      if (pending !== null) schedule(pending);
      return response;
    } finally {
      delivery.end();
    }
  };

  return Object.assign(handler, {
    gateway,
    async close(closeOptions?: { drainMs?: number }) {
      closed = true;
      await gateway.close(closeOptions);
      if (perIsolate) await store.close().catch(() => {});
    },
  });
}

function normaliseBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  if (!basePath.startsWith('/') || basePath.includes('?') || basePath.includes('#')) {
    throw new GatewayConfigError('options', [{ path: 'basePath', message: 'a path prefix starting with "/", e.g. "/api/tollgate"' }]);
  }
  return basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
}

/** The request with the base path removed from its URL; unchanged when the path is not below it. */
function withoutBase(request: Request, base: string): Request {
  const url = new URL(request.url);
  const rest = url.pathname.slice(base.length);
  if (!url.pathname.startsWith(base) || (rest !== '' && !rest.startsWith('/'))) return request;
  url.pathname = rest === '' ? '/' : rest;
  return new Request(url, request);
}

/** The first platform argument with a `waitUntil` method (a Worker's `ctx`, an edge context). */
function platformWaitUntil(platform: readonly unknown[]): WaitUntil | undefined {
  for (const arg of platform) {
    if (typeof arg === 'object' && arg !== null && typeof (arg as { waitUntil?: unknown }).waitUntil === 'function') {
      const target = arg as { waitUntil(promise: Promise<unknown>): void };
      return (promise) => target.waitUntil(promise);
    }
  }
  return undefined;
}
