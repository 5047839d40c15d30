export type {
  RateBucket,
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
