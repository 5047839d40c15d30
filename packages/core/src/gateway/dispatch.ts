import { GatewayError, isTimeoutError } from '@tollgate/codecs/base';
import type { Breakers } from './breaker.js';
import { cancelBody, type UpstreamFetch, type UpstreamResponse } from './request.js';
import type { UpstreamCall, UpstreamTarget } from './upstream.js';

export interface FailoverOptions {
  /** Attempts across candidates, the first included. Default 3. */
  maxAttempts?: number;
  /** Overall deadline for getting response headers from some candidate. Default 60 s. */
  deadlineMs?: number;
}

/** Hooks into each upstream attempt (timings, spans, trace context): `RequestTiming` is one. */
export interface AttemptObserver {
  /** The call is built and about to be sent; its headers may still be added to. */
  attemptStarted(target: UpstreamTarget, headers: Headers): void;
  /** The call failed before an answer. */
  attemptFailed(error: unknown): void;
  /** An answer's head arrived; `final` false when it is dropped for another attempt. */
  attemptAnswered(status: number, final: boolean): void;
}

export interface DispatchResult {
  target: UpstreamTarget;
  response: UpstreamResponse;
  attempts: number;
}

/** A failed attempt that may move on to the next candidate. */
class Retryable extends Error {
  constructor(
    readonly target: UpstreamTarget,
    readonly response: UpstreamResponse | null,
    readonly failure: unknown,
    /** Whether another attempt follows: decided once, where the failure is seen. */
    readonly willRetry: boolean,
  ) {
    super('retryable upstream failure');
  }
}

/** What `dispatch` calls, how, and on whose behalf. */
export interface DispatchOptions {
  /** The candidates, in order of preference. */
  targets: readonly UpstreamTarget[];
  /** The request to send to a candidate (called once per attempt). */
  build: (target: UpstreamTarget) => Promise<UpstreamCall>;
  fetch: UpstreamFetch;
  breakers: Breakers;
  failover: FailoverOptions;
  /** The client's signal: once aborted, no further attempt is made. */
  clientSignal: AbortSignal;
  observer?: AttemptObserver | null;
}

/**
 * Call the candidates in order until one answers. Failover happens only before anything is
 * committed downstream (this function returns before the body is read), bounded in attempts
 * and time, and only on connection errors, 503, 529, or a 429 when a different deployment
 * remains. Anything else (including other 4xx/5xx) is returned as the answer.
 */
export async function dispatch({
  targets,
  build,
  fetch: fetchImpl,
  breakers,
  failover: options,
  clientSignal,
  observer,
}: DispatchOptions): Promise<DispatchResult> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const deadline = Date.now() + (options.deadlineMs ?? 60_000);
  const open = targets.filter((t) => breakers.allow(t.deploymentId));
  // With every breaker open, try the preferred candidate anyway rather than fail outright.
  const queue = open.length > 0 ? open : targets.slice(0, 1);
  let index = 0;
  let attempts = 0;
  let last: Retryable | null = null;

  const anotherAttempt = () => index < queue.length && attempts < maxAttempts && Date.now() < deadline && !clientSignal.aborted;
  const attempt = async (): Promise<DispatchResult> => {
    const target = queue[index++];
    if (target === undefined) throw last ?? new Error('no candidate');
    attempts++;
    let response: UpstreamResponse;
    try {
      const call = await build(target);
      observer?.attemptStarted(target, call.init.headers);
      response = await fetchImpl(call.url, call.init);
    } catch (cause) {
      observer?.attemptFailed(cause);
      if (clientSignal.aborted) {
        breakers.abandon(target.deploymentId);
        throw new GatewayError('cancelled', 'The client cancelled the request.', { cause });
      }
      if (GatewayError.isInstance(cause)) throw cause;
      breakers.failure(target.deploymentId);
      throw (last = new Retryable(target, null, cause, anotherAttempt()));
    }
    const status = response.status;
    if (status === 503 || status === 529 || status >= 500) breakers.failure(target.deploymentId);
    else breakers.success(target.deploymentId);
    let others = false;
    for (let i = index; i < queue.length && !others; i++) others = queue[i]!.deploymentId !== target.deploymentId;
    if (status === 503 || status === 529 || (status === 429 && others)) {
      // Only when another attempt will follow: otherwise this answer is the answer.
      if (anotherAttempt()) {
        observer?.attemptAnswered(status, false);
        void cancelBody(response.body).catch(() => {});
        throw (last = new Retryable(target, response, null, true));
      }
    }
    observer?.attemptAnswered(status, true);
    return { target, response, attempts };
  };

  try {
    // Next candidate only after a retryable failure, within the attempt and time bounds, and
    // never once the client has gone (no delay between attempts: it is another deployment).
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof Retryable) || !error.willRetry) throw error;
      }
    }
  } catch (failure) {
    // A discarded answer always has a next attempt after it: what ends the loop is a connection
    // failure, or an attempt that ran out of time (504: the upstream did not answer in time).
    if (failure instanceof Retryable) {
      if (isTimeoutError(failure.failure)) {
        throw new GatewayError('upstream_timeout', 'The upstream did not answer in time.', {
          detail: `deployment ${failure.target.deploymentId}: ${String(failure.failure)}`,
          cause: failure.failure,
        });
      }
      throw new GatewayError('upstream_error', 'The upstream could not be reached.', {
        detail: `deployment ${failure.target.deploymentId}: ${String(failure.failure)}`,
        cause: failure.failure,
      });
    }
    if (GatewayError.isInstance(failure)) throw failure;
    if (clientSignal.aborted) throw new GatewayError('cancelled', 'The client cancelled the request.');
    throw GatewayError.from(failure);
  }
}
