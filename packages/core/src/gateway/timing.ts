/**
 * One request's timings, kept for every request: the `server-timing` header (time in the
 * gateway, in upstream calls, to the upstream's first byte) and each upstream attempt's start,
 * head and end. Telemetry (`@tollgate/core/telemetry`) extends it with spans and metrics; the
 * gateway itself needs nothing more, so a bundle without telemetry carries only this.
 */
import type { AttemptObserver } from './dispatch.js';
import type { UpstreamTarget } from './upstream.js';
import type { UsageRecord } from './usage-record.js';

/** One upstream attempt as timed. */
export interface UpstreamAttempt {
  target: UpstreamTarget;
  /** 1 for the first attempt of the request. */
  n: number;
  startedAt: number;
  /** When the answer's head arrived (-1: not yet, or it never did). */
  headAt: number;
  /** When the gateway was done reading it (-1: not yet). */
  endedAt: number;
  /** The answer's status (0: none). */
  status: number;
  /** It failed before an answer (a connection error, a timeout, a cancel), with `cause`. */
  failed: boolean;
  cause: unknown;
  /** Its duration was counted (and, with telemetry, its span ended). */
  closed: boolean;
}

const fmt = (ms: number) => (Math.round(ms * 10) / 10).toString();

export class RequestTiming implements AttemptObserver {
  readonly startedAt = performance.now();
  protected current: UpstreamAttempt | null = null;
  /** Time spent in upstream attempts already over. */
  private upstreamMs = 0;
  /** When the answer that is relayed had its head (-1: none yet). */
  private answeredAt = -1;
  private finished = false;

  /** An upstream call is about to be sent (its headers may still be added to). */
  attemptStarted(target: UpstreamTarget, headers: Headers): void {
    const n = this.current === null ? 1 : this.current.n + 1;
    this.current = { target, n, startedAt: performance.now(), headAt: -1, endedAt: -1, status: 0, failed: false, cause: undefined, closed: false };
    this.onAttemptStarted(this.current, headers);
  }

  /** The attempt failed before an answer (connection error, timeout, cancel). */
  attemptFailed(error: unknown): void {
    const a = this.current;
    if (a === null || a.closed) return;
    a.failed = true;
    a.cause = error;
    this.endAttempt(a, performance.now());
  }

  /** The attempt answered with a head; `final` false when that answer is dropped for another attempt. */
  attemptAnswered(status: number, final: boolean): void {
    const a = this.current;
    if (a === null || a.closed) return;
    a.headAt = performance.now();
    a.status = status;
    if (final) this.answeredAt = a.headAt;
    else this.endAttempt(a, a.headAt);
  }

  /** The gateway is done reading the answering attempt's body (or gave it up). */
  upstreamDone(): void {
    const a = this.current;
    if (a !== null && !a.closed && a.endedAt < 0) a.endedAt = performance.now();
  }

  /** The `server-timing` header: time in the gateway, in upstream calls, and to the upstream's first byte. */
  serverTiming(): string {
    const now = performance.now();
    let upstream = this.upstreamMs;
    const a = this.current;
    if (a !== null && !a.closed) upstream += (a.endedAt >= 0 ? a.endedAt : a.headAt >= 0 ? a.headAt : now) - a.startedAt;
    const ttfb = this.answeredAt >= 0 ? this.answeredAt - this.startedAt : null;
    const total = now - this.startedAt;
    const parts = [`gateway;dur=${fmt(Math.max(0, total - upstream))}`, `upstream;dur=${fmt(upstream)}`];
    if (ttfb !== null) parts.push(`ttfb;dur=${fmt(ttfb)}`);
    return parts.join(', ');
  }

  /** The request's usage record was written: its last attempt is over (once). */
  recorded(record: UsageRecord): void {
    if (this.finished) return;
    this.finished = true;
    const a = this.current;
    if (a !== null && !a.closed) this.endAttempt(a, a.endedAt >= 0 ? a.endedAt : performance.now(), record);
    this.onRecorded(record);
  }

  /** A request that writes no usage record (model discovery, a refusal while closing). */
  unrecorded(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.onUnrecorded(status);
  }

  private endAttempt(a: UpstreamAttempt, at: number, record?: UsageRecord): void {
    if (a.closed) return;
    a.closed = true;
    if (a.endedAt < 0) a.endedAt = at;
    this.upstreamMs += a.endedAt - a.startedAt;
    this.onAttemptEnded(a, record);
  }

  // Hooks for telemetry; each is called once per attempt or request, and must never throw.
  /** An attempt began (`headers` are the upstream call's, for a `traceparent`). */
  protected onAttemptStarted(_attempt: UpstreamAttempt, _headers: Headers): void {}
  /** An attempt is over (`record` when the request's record ended it). */
  protected onAttemptEnded(_attempt: UpstreamAttempt, _record: UsageRecord | undefined): void {}
  protected onRecorded(_record: UsageRecord): void {}
  protected onUnrecorded(_status: number): void {}
}
