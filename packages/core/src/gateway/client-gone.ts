import { GatewayError } from '@tollgate/codecs/base';

const STALLED = 'client_stalled';

/**
 * What a server adapter aborts a request's signal with when its client stopped reading the
 * answer for too long and is being disconnected: the stream's record then says
 * `client_stalled` rather than `client_cancelled` (either way its usage is settled from what
 * was relayed).
 */
export function clientStalledError(stalledMs: number): GatewayError {
  return new GatewayError('cancelled', 'The client stopped reading the answer.', { detail: `${STALLED}: nothing taken for ${stalledMs} ms` });
}

/** Whether a signal's abort reason is `clientStalledError`'s. */
export function isClientStalled(reason: unknown): boolean {
  return GatewayError.isInstance(reason) && reason.code === 'cancelled' && reason.detail?.startsWith(STALLED) === true;
}
