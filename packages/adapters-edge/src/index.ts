/**
 * @tollgate/adapters-edge — the gateway as a Fetch-API handler for Cloudflare Workers, Deno,
 * Bun and Next.js / Vercel route handlers. Imports no Node module and uses no Node global.
 *
 * State is per isolate unless a shared `store` is given; a policy with hard spend caps is
 * refused on a per-isolate store unless `allowPerIsolateCaps` is set.
 */
export { createEdgeHandler, type EdgeHandler, type EdgeHandlerOptions, type WaitUntil } from './handler.js';
export { createWorker, type EdgeWorker, type WorkerConfigure, type WorkerContext } from './worker.js';
export { createIsolateStore } from './isolate-store.js';
export { envSecrets } from './secrets.js';
export { hardCapRules } from './hard-caps.js';
// What an edge app needs from core, so it imports from this package alone.
export { GatewayConfigError } from '@tollgate/core';
export type { Gateway, GatewayOptions, IdentityOptions, SecretsOption, StateStore, UsageOption, UsageRecord, UsageSink } from '@tollgate/core';
