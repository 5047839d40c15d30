/**
 * `@tollgate/core/minimal`: the same API as `@tollgate/core`, except that `createGateway`
 * requires `codecs`, the wire formats it reads and writes, and imports no codec itself — so a
 * bundle (a Worker) holds only the codecs listed:
 *
 *   import { createGateway } from '@tollgate/core/minimal';
 *   import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
 *   import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
 *   const gateway = createGateway({ registry, identity, codecs: [openaiChatCodec, anthropicMessagesCodec] });
 *
 * The gateway refuses to start when an entry route or enabled deployment of the registry has a
 * format with no codec in the list.
 */
export * from './registry/index.js';
export * from './identity/index.js';
export { createMemoryStore, StoreUnavailableError, checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from './store/index.js';
export type {
  AdmitRequest,
  AdmitResult,
  MemoryStoreOptions,
  StateStore,
  SpendConstraint,
  ReserveRequest,
  ReserveResult,
  SettleRequest,
  RateBucket,
  RateAdjustment,
  RateResult,
} from './store/index.js';
export * from './gateway/index.js';
export { GatewayError, type ErrorCode, type ErrorInfo, type WireFormat } from '@tollgate/codecs/base';
export type { Codec } from '@tollgate/codecs/base';
export { createPolicyReplay, policyRevisionOf } from './replay/replay.js';
export type { PolicyReplay, ReplayHandle, ReplayOutcome, ReplayRequest } from './replay/replay.js';
