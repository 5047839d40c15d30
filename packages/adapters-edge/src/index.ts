/**
 * @tollgate/adapters-edge — the gateway as a Fetch-API handler for Cloudflare Workers, Deno,
 * Bun and Next.js route handlers. Imports no Node module and uses no Node global.
 *
 * State is per isolate unless a shared `store` is given; a policy with hard spend caps is
 * refused on a per-isolate store unless `allowPerIsolateCaps` is set.
 *
 * Everything in `@tollgate/adapters-edge/minimal`, with the `createEdgeHandler` and
 * `createWorker` that speak every wire format by default (an explicit export takes precedence
 * over `export *`).
 */
export * from './minimal.js';
export { createEdgeHandler, createWorker } from './create.js';
