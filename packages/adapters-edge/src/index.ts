/**
 * @tollgate/adapters-edge — the gateway as a Fetch-API handler for Cloudflare Workers, Deno,
 * Bun and Next.js route handlers. Imports no Node module and uses no Node global.
 *
 * State is per isolate unless a shared `store` is given; a policy with hard spend caps is
 * refused on a per-isolate store unless `allowPerIsolateCaps` is set.
 *
 * Everything in `@tollgate/adapters-edge/minimal` (listed by name; test/public-api.test.ts checks
 * that none is missing), except that `createEdgeHandler` and `createWorker` speak every wire
 * format by default.
 */
export { createIsolateStore, envSecrets, hardCapRules, GatewayConfigError } from './minimal.js';
export type {
  EdgeHandler,
  EdgeHandlerOptions,
  MinimalEdgeHandlerOptions,
  WaitUntil,
  EdgeWorker,
  MinimalWorkerConfigure,
  WorkerConfigure,
  WorkerContext,
  Codec,
  Gateway,
  GatewayOptions,
  IdentityOptions,
  PolicyFileInput,
  RegistryFileInput,
  SecretsOption,
  StateStore,
  UsageOption,
  UsageRecord,
  UsageSink,
} from './minimal.js';
export { createEdgeHandler, createWorker } from './create.js';
