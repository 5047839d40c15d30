export type {
  AdmitRequest,
  AdmitResult,
  RateBucket,
  RateAdjustment,
  RateResult,
  ReserveRequest,
  ReserveResult,
  SettleRequest,
  SpendConstraint,
  StateStore,
} from './types.js';
export { StoreUnavailableError } from './types.js';
export { createMemoryStore } from './memory.js';
export type { MemoryStoreOptions } from './memory.js';
/** Argument checks for StateStore implementations, so every store rejects the same malformed calls. */
export { checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from './validate.js';
