/** Redis argument helpers; the argument checks are core's, shared by every store. */
export { checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from '@tollgate/core';

/** Whole milliseconds, at least 1, as Redis wants them. */
export const wholeMs = (ms: number): number => Math.max(1, Math.ceil(ms));

/** A limit as a script argument; no limit (Infinity) travels as 'inf'. */
export const limitArg = (limit: number): string => (Number.isFinite(limit) ? String(limit) : 'inf');
