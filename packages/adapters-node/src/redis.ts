/**
 * `@tollgate/adapters-node/redis`: the Redis state store (ioredis, an optional peer).
 */
export { createRedisStore } from './redis/store.js';
export type { RedisStore, RedisStoreOptions } from './redis/store.js';
export { hashTagFromKey } from './redis/keys.js';
export type { HashTagOption } from './redis/keys.js';
