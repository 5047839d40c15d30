import { StoreUnavailableError } from '@tollgate/core';

/** Server replies that mean "not now" rather than "wrong call". */
const TRANSIENT_REPLIES = ['LOADING', 'READONLY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'BUSY', 'NOREPLICAS', 'OOM'];

const isReplyError = (error: unknown): error is Error => error instanceof Error && (error.name === 'ReplyError' || error.constructor?.name === 'ReplyError');

/**
 * Map a failed Redis call: connection-level failures (refused, closed, timed out, offline)
 * and transient server states become `StoreUnavailableError`, so the gateway applies its
 * failure semantics (spend caps closed, rate limits per rule); any other server reply is a
 * bug and stays a plain error.
 */
export function toStoreError(error: unknown, op: string): Error {
  if (error instanceof StoreUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isReplyError(error) && !TRANSIENT_REPLIES.some((p) => message.startsWith(p))) {
    return new Error(`tollgate redis store: ${op} failed: ${message}`, { cause: error });
  }
  return new StoreUnavailableError(`tollgate redis store: ${op} failed, Redis is unavailable: ${message}`, {
    cause: error,
  });
}
