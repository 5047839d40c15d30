import { createGateway } from '@tollgate/core';
import { buildEdgeHandler, type EdgeHandler, type EdgeHandlerOptions } from './handler.js';
import { buildWorker, type EdgeWorker, type WorkerConfigure } from './worker.js';

/**
 * Create the gateway as a Fetch-API handler for Cloudflare Workers (`export default { fetch:
 * handler }`), `Deno.serve(handler)`, `Bun.serve({ fetch: handler })` and Next.js / Vercel
 * route handlers (`export const POST = handler`). It speaks every wire format unless
 * `options.codecs` lists fewer, so every codec is in the bundle; `createEdgeHandler` of
 * `@tollgate/adapters-edge/minimal` bundles only the codecs it is given.
 *
 * Refuses to start (throws `GatewayConfigError`) on an invalid registry, policy or identity,
 * and on a policy with hard spend caps when no shared `store` is given, unless
 * `allowPerIsolateCaps` is set. Without `secrets`, provider secrets are read from the process
 * environment, or `Deno.env`, where the runtime has one; on Workers pass `secrets` (or use
 * `createWorker`, which reads them from `env`).
 *
 * Safe to call at module scope on Workers: the per-isolate store (and its sweeper timer) is
 * made on the first request.
 */
export function createEdgeHandler(options: EdgeHandlerOptions): EdgeHandler {
  return buildEdgeHandler(options, createGateway);
}

/**
 * A Cloudflare Worker (module syntax) around the gateway. Workers hand over secrets and
 * bindings only with each request, in `env`, so the gateway is built on the first request from
 * `configure(env)` and reused by every later request of the isolate. Without `secrets` in the
 * options, provider secrets are read from `env` by name. Each request's usage record is kept
 * alive with `ctx.waitUntil`. Every wire format is bundled: `createWorker` of
 * `@tollgate/adapters-edge/minimal` bundles only the codecs listed.
 *
 * State lives per isolate unless `store` is given (see `EdgeHandlerOptions`). A configuration
 * the gateway refuses (an invalid registry or policy, hard caps on a per-isolate store) is
 * logged with `console.error` and answered with a 500 in OpenAI's error shape; the next
 * request tries again.
 */
export function createWorker<Env = Record<string, unknown>>(configure: WorkerConfigure<Env>): EdgeWorker<Env> {
  return buildWorker(configure, createEdgeHandler);
}
