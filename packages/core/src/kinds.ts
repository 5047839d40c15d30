/**
 * `@tollgate/core/kinds`: what serves token counting (`kind: count_tokens`) and embeddings
 * (`kind: embed`) routes, for gateways built on `@tollgate/core/minimal`:
 *
 *   import { createGateway } from '@tollgate/core/minimal';
 *   import { operationKinds } from '@tollgate/core/kinds';
 *   createGateway({ registry, identity, codecs, kinds: operationKinds });
 *
 * `createGateway` of `@tollgate/core` includes it by default.
 */
export { operationKinds } from './gateway/kinds.js';
export type { OperationKinds } from './gateway/kinds.js';
