/**
 * `@tollgate/adapters-node/postgres`: the Postgres usage sink (pg, an optional peer).
 */
export { createPostgresSink } from './postgres/sink.js';
export type { PostgresSink, PostgresSinkOptions, PostgresSinkStats } from './postgres/sink.js';
