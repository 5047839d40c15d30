/**
 * One request as telemetry sees it. On the request's path it only takes times (always, for
 * `server-timing`) and, when tracing, starts what must exist before an upstream call: the CLIENT
 * span whose context the call carries as `traceparent`, and the SERVER span that is its parent.
 * Everything else — span attributes and ends, metric records — is handed to the SDK after the
 * answer (`Telemetry.deferred`), with the times measured here. Never throws into the request path.
 */
import { SpanKind, context, propagation, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { HeaderReader } from '../gateway/request.js';
import type { UpstreamTarget } from '../gateway/upstream.js';
import type { UsageRecord } from '../gateway/usage-record.js';
import { finishRequest, type FinishedAttempt } from './finish.js';
import type { Telemetry } from './instruments.js';
import { OTHER } from './labels.js';
import { ATTR, operationName, providerName } from './semconv.js';

const headerGetter = {
  get: (carrier: HeaderReader, key: string) => carrier.get(key) ?? undefined,
  keys: () => [] as string[],
};
const headerSetter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

interface Address {
  address: string;
  port: number;
}
const addresses = new Map<string, Address | null>();

/** `server.address` / `server.port` of a deployment's base URL, parsed once. */
function addressOf(baseUrl: string): Address | null {
  let a = addresses.get(baseUrl);
  if (a === undefined) {
    try {
      const u = new URL(baseUrl);
      a = { address: u.hostname, port: u.port !== '' ? Number(u.port) : u.protocol === 'http:' ? 80 : 443 };
    } catch {
      a = null;
    }
    if (addresses.size >= 1024) addresses.clear();
    addresses.set(baseUrl, a);
  }
  return a;
}

const fmt = (ms: number) => (Math.round(ms * 10) / 10).toString();

export class RequestObserver {
  readonly startedAt = performance.now();
  /** The context active when the request arrived (in-process: the caller's), when tracing or propagating. */
  private readonly active: Context | null = null;
  /** The parent of the SERVER span: the caller's `traceparent` continued, else the active context. */
  private parentContext: Context | null = null;
  /** The SERVER span: started with the request's arrival time when the first upstream call needs a parent, else after the answer. */
  private span: Span | null = null;
  private readonly attempts: FinishedAttempt[] = [];
  private current: FinishedAttempt | null = null;
  /** Time spent in upstream attempts already over. */
  private upstreamMs = 0;
  /** When the answer that is relayed had its head (-1: none yet). */
  private answeredAt = -1;
  private finished = false;

  constructor(
    private readonly tel: Telemetry | null,
    private readonly headers: HeaderReader | null,
    private readonly brandOf: (model: string) => string | undefined,
  ) {
    if (tel === null) return;
    try {
      this.active = context.active();
    } catch {
      this.active = null;
    }
  }

  /** The SERVER span's parent, read from the caller's headers on first need. */
  private parent(tel: Telemetry): Context {
    if (this.parentContext === null) {
      const active = this.active ?? context.active();
      this.parentContext = this.headers === null ? active : tel.propagator.extract(active, this.headers, headerGetter);
    }
    return this.parentContext;
  }

  /** The SERVER span, started now (backdated to the request's arrival) if it is not yet. */
  serverSpan(tel: Telemetry): Span | null {
    if (this.span === null && tel.tracer !== null) {
      this.span = tel.tracer.startSpan('chat', { kind: SpanKind.SERVER, startTime: this.startedAt }, this.parent(tel));
    }
    return this.span;
  }

  /** An upstream call is about to be sent: time it, and give it a span and a `traceparent`. */
  attemptStarted(target: UpstreamTarget, headers: Headers): void {
    const a: FinishedAttempt = { target, n: this.attempts.length + 1, startedAt: performance.now(), headAt: -1, endedAt: -1, status: 0, error: null, span: null };
    this.attempts.push(a);
    this.current = a;
    const tel = this.tel;
    if (tel === null) return;
    try {
      const parent = this.parent(tel);
      let ctx = parent;
      if (tel.tracer !== null) {
        const server = this.serverSpan(tel)!;
        const serverContext = trace.setSpan(parent, server);
        // What a sampler may decide on is given at creation (the spec's list); the rest is set after the answer.
        const operation = operationName(target.upstreamFormat);
        const attributes: Attributes = {
          [ATTR.operation]: operation,
          [ATTR.provider]: providerName(target.upstreamFormat, target.baseUrl),
          [ATTR.requestModel]: target.upstreamModel,
        };
        const address = addressOf(target.baseUrl);
        if (address !== null) {
          attributes[ATTR.serverAddress] = address.address;
          attributes[ATTR.serverPort] = address.port;
        }
        const span = tel.tracer.startSpan(`${operation} ${target.upstreamModel}`, { kind: SpanKind.CLIENT, attributes, startTime: a.startedAt }, serverContext);
        a.span = span;
        ctx = trace.setSpan(serverContext, span);
      }
      // Trace context only: baggage (the caller's, or the host's own) is free-form data, and the
      // gateway sends a provider nothing from the caller it was not configured to send.
      tel.propagator.inject(propagation.deleteBaggage(ctx), headers, headerSetter);
    } catch {
      // Telemetry never fails a request.
    }
  }

  /** The attempt failed before an answer (connection error, timeout, cancel). */
  attemptFailed(error: unknown): void {
    const a = this.current;
    if (a === null || a.endedAt >= 0) return;
    a.error = errorName(error);
    this.endAttempt(a, performance.now());
  }

  /** The attempt answered with a head; `final` false when that answer is dropped for another attempt. */
  attemptAnswered(status: number, final: boolean): void {
    const a = this.current;
    if (a === null || a.endedAt >= 0) return;
    a.headAt = performance.now();
    a.status = status;
    if (status < 200 || status > 299) a.error = String(status);
    if (final) this.answeredAt = a.headAt;
    else this.endAttempt(a, a.headAt);
  }

  /** The gateway is done reading the answering attempt's body (or gave it up). */
  upstreamDone(): void {
    const a = this.current;
    if (a !== null && a.endedAt < 0) this.endAttempt(a, performance.now());
  }

  private endAttempt(a: FinishedAttempt, at: number): void {
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

  /** The request's usage record was written: its spans and metrics go to the SDK after the answer (once). */
  recorded(record: UsageRecord): void {
    if (this.finished) return;
    this.finished = true;
    const tel = this.tel;
    const a = this.current;
    if (tel === null && (a === null || a.endedAt >= 0)) return;
    const endedAt = performance.now();
    if (a !== null && a.endedAt < 0) this.endAttempt(a, endedAt);
    if (tel === null) return;
    tel.deferred.add(() => finishRequest(tel, this, this.attempts, { type: 'recorded', record, endedAt }));
  }

  /** A request that writes no usage record (model discovery, a refusal while closing): its span ends after the answer. */
  unrecorded(status: number): void {
    if (this.finished) return;
    this.finished = true;
    const tel = this.tel;
    if (tel === null || tel.tracer === null) return;
    const endedAt = performance.now();
    tel.deferred.add(() => finishRequest(tel, this, this.attempts, { type: 'unrecorded', status, endedAt }));
  }

  /** `gen_ai.provider.name` for a request refused before a deployment was chosen: its model's brand. */
  brand(model: string): string | undefined {
    return this.brandOf(model);
  }
}

/** A low-cardinality class for an error thrown by an upstream call. */
function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z_]{1,48}$/.test(code)) return code;
    const cause = (error as { cause?: { code?: unknown } }).cause;
    if (typeof cause?.code === 'string' && /^[A-Za-z_]{1,48}$/.test(cause.code)) return cause.code;
    if (error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name)) return error.name;
  }
  return OTHER;
}
