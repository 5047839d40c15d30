export * from './registry/index.js';
export * from './identity/index.js';
export { createMemoryStore, StoreUnavailableError, checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from './store/index.js';
export type {
  MemoryStoreOptions,
  StateStore,
  SpendConstraint,
  ReserveRequest,
  ReserveResult,
  SettleRequest,
  RateBucket,
  RateResult,
} from './store/index.js';
export * from './gateway/index.js';
export { GatewayError, type ErrorCode, type ErrorInfo, type WireFormat } from '@tollgate/codecs';
