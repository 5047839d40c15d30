/**
 * `@tollgate/core/testing`: helpers for tests. Imports vitest (an optional peer dependency),
 * so it never belongs in production code.
 */
export { createFakeClock } from './store/clock.js';
export type { FakeClock } from './store/clock.js';
export { describeStoreConformance } from './store/conformance/index.js';
export type { MakeStore, StoreConformanceOptions, StoreTestContext } from './store/conformance/index.js';
