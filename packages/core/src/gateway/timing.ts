/**
 * One request's timings, kept for every request: the `server-timing` header (time in the
 * gateway, in upstream calls, to the upstream's first byte) and each upstream attempt's start,
 * head and end. Telemetry (`@tollgate/core/telemetry`) extends it with spans and metrics; the
 * gateway itself needs nothing more, so a bundle without telemetry carries only this.
 */
import type { AttemptObserver } from './dispatch.js';
import type { UpstreamTarget } from './upstream.js';
import type { UsageRecord } from './usage-record.js';

/** One upstream attempt as timed (performance-clock milliseconds; -1: not yet, or never). */
export interface UpstreamAttempt {
  target: UpstreamTarget;
  /** 1 for the first attempt of the request. */
  n: number;
  startedAt: number;
  /** When the answer's head arrived. */
  headAt: number;
  /** When it was over: failed, dropped for another attempt, or its body read (or given up). */
  endedAt: number;
  /** The answer's status (0: none). */
  status: number;
  /** It failed before an answer (a connection error, a timeout, a cancel), with `cause`. */
  failed: boolean;
  cause: unknown;
}

const fmt = (ms: number) => (Math.round(ms * 10) / 10).toString();

export class RequestTiming implements AttemptObserver {
  readonly startedAt = performance.now();
  protected readonly attempts: UpstreamAttempt[] = [];
  protected current: UpstreamAttempt | null = null;
  /** Time spent in upstream attempts already over. */
  private upstreamMs = 0;
  /** When the answer that is relayed had its head (-1: none yet). */
  private answeredAt = -1;
  private finished = false;
  /** A request that does not generate (`count_tokens`, `embed`): set by its walk, named in spans and metrics. */
  kind: string | null = null;

  /** An upstream call is about to be sent (its headers may still be added to). */
  attemptStarted(target: UpstreamTarget, headers: Headers): void {
    const a: UpstreamAttempt = {
      target,
      n: this.attempts.length + 1,
      startedAt: performance.now(),
      headAt: -1,
      endedAt: -1,
      status: 0,
      failed: false,
      cause: undefined,
    };
    this.attempts.push(a);
    this.current = a;
    this.onAttemptStarted(a, headers);
  }

  /** The attempt failed before an answer (connection error, timeout, cancel). */
  attemptFailed(error: unknown): void {
    const a = this.current;
    if (a === null || a.endedAt >= 0) return;
    a.failed = true;
    a.cause = error;
    this.endAttempt(a, performance.now());
  }

  /** The attempt answered with a head; `final` false when that answer is dropped for another attempt. */
  attemptAnswered(status: number, final: boolean): void {
    const a = this.current;
    if (a === null || a.endedAt >= 0) return;
    a.headAt = performance.now();
    a.status = status;
    if (final) this.answeredAt = a.headAt;
    else this.endAttempt(a, a.headAt);
  }

  /** The gateway is done reading the answering attempt's body (or gave it up). */
  upstreamDone(): void {
    const a = this.current;
    if (a !== null && a.endedAt < 0) this.endAttempt(a, performance.now());
  }

  private endAttempt(a: UpstreamAttempt, at: number): void {
    a.endedAt = at;
    this.upstreamMs += at - a.startedAt;
  }

  /** The `server-timing` header: time in the gateway, in upstream calls, and to the upstream's first byte. */
  serverTiming(): string {
    const now = performance.now();
    let upstream = this.upstreamMs;
    const a = this.current;
    if (a !== null && a.endedAt < 0) upstream += (a.headAt >= 0 ? a.headAt : now) - a.startedAt;
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
    let endedAt = -1;
    if (a !== null && a.endedAt < 0) this.endAttempt(a, (endedAt = performance.now()));
    this.onRecorded(record, endedAt);
  }

  /** A request that writes no usage record (model discovery, a refusal while closing). */
  unrecorded(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.onUnrecorded(status);
  }

  // Hooks for telemetry, each called once per attempt or request; they must never throw.
  /** An attempt began (`headers` are the upstream call's, for a `traceparent`). */
  protected onAttemptStarted(_attempt: UpstreamAttempt, _headers: Headers): void {}
  /** The record was written; `endedAt` is when the last attempt was closed by it (-1: it was over already). */
  protected onRecorded(_record: UsageRecord, _endedAt: number): void {}
  protected onUnrecorded(_status: number): void {}
}
