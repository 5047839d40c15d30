/**
 * `@tollgate/adapters-edge/minimal`: the same API as `@tollgate/adapters-edge`, except that
 * `createEdgeHandler` and `createWorker` require `codecs`, the wire formats the gateway reads
 * and writes, and import no codec themselves — so a Worker bundles only the formats it lists:
 *
 *   import { createWorker } from '@tollgate/adapters-edge/minimal';
 *   import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
 *   import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
 *   export default createWorker((env) => ({ registry, identity, codecs: [openaiChatCodec, anthropicMessagesCodec] }));
 *
 * The gateway refuses to start when an entry route or enabled deployment of the registry has a
 * format with no codec in the list (a Worker logs it and answers 500, as for any refused config).
 */
import { createGateway } from '@tollgate/core/minimal';
import { buildEdgeHandler, type EdgeHandler, type MinimalEdgeHandlerOptions } from './handler.js';
import { buildWorker, type EdgeWorker, type MinimalWorkerConfigure } from './worker.js';

export type { EdgeHandler, EdgeHandlerOptions, MinimalEdgeHandlerOptions, WaitUntil } from './handler.js';
export type { EdgeWorker, MinimalWorkerConfigure, WorkerConfigure, WorkerContext } from './worker.js';
export { createIsolateStore } from './isolate-store.js';
export { envSecrets } from './secrets.js';
export { hardCapRules } from './hard-caps.js';
// What an edge app needs from core, so it imports from this package alone (and codecs).
export { GatewayConfigError } from '@tollgate/core/minimal';
export type {
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
} from '@tollgate/core/minimal';

/**
 * `createEdgeHandler` of `@tollgate/adapters-edge` (same options, same behaviour) with the
 * codecs listed in `options.codecs` only.
 */
export function createEdgeHandler(options: MinimalEdgeHandlerOptions): EdgeHandler {
  return buildEdgeHandler(options, (gatewayOptions) => createGateway({ ...gatewayOptions, codecs: options.codecs }));
}

/**
 * `createWorker` of `@tollgate/adapters-edge` (built on the first request from `env`, secrets
 * from `env`, usage kept alive with `ctx.waitUntil`) with the codecs listed in the options only.
 */
export function createWorker<Env = Record<string, unknown>>(configure: MinimalWorkerConfigure<Env>): EdgeWorker<Env> {
  return buildWorker(configure, createEdgeHandler);
}
