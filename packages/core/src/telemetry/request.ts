/**
 * One request as telemetry sees it. On the request's path it only takes times (`RequestTiming`,
 * kept for every request for `server-timing`) and, when tracing, starts what must exist before
 * an upstream call: the CLIENT span whose context the call carries as `traceparent`, and the
 * SERVER span that is its parent.
 * Everything else — span attributes and ends, metric records — is handed to the SDK after the
 * answer (`Telemetry.deferred`), with the times measured here. Never throws into the request path.
 */
import { SpanKind, context, propagation, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { HeaderReader } from '../gateway/request.js';
import { RequestTiming, type UpstreamAttempt } from '../gateway/timing.js';
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

/** `server.address` / `server.port` of a deployment's base URL. */
function addressOf(baseUrl: string): Address | null {
  try {
    const u = new URL(baseUrl);
    return { address: u.hostname, port: u.port !== '' ? Number(u.port) : u.protocol === 'http:' ? 80 : 443 };
  } catch {
    return null;
  }
}

/**
 * A CLIENT span's name and creation attributes for one deployment, made on its first call and
 * reused while what they are made of stays the same (a reloaded registry can change it). The SDK
 * copies the attributes it is given, so one object serves every request.
 */
interface ClientShape {
  format: string;
  baseUrl: string;
  model: string;
  kind: string | null;
  name: string;
  attributes: Attributes;
}
const shapes = new Map<string, ClientShape>();

function clientShape(target: UpstreamTarget, kind: string | null): ClientShape {
  const s = shapes.get(target.deploymentId);
  if (s !== undefined && s.format === target.upstreamFormat && s.baseUrl === target.baseUrl && s.model === target.upstreamModel && s.kind === kind) return s;
  // What a sampler may decide on is given at creation (the spec's list); the rest is set after the answer.
  const operation = operationName(target.upstreamFormat, kind);
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
  const shape: ClientShape = {
    format: target.upstreamFormat,
    baseUrl: target.baseUrl,
    model: target.upstreamModel,
    kind,
    name: `${operation} ${target.upstreamModel}`,
    attributes,
  };
  if (s === undefined && shapes.size >= 1024) shapes.clear();
  shapes.set(target.deploymentId, shape);
  return shape;
}

/** An attempt as the SDK's share of the request reads it: its error label and CLIENT span. */
function finished(a: UpstreamAttempt, span: Span | undefined): FinishedAttempt {
  const error = a.failed ? errorName(a.cause) : a.status !== 0 && (a.status < 200 || a.status > 299) ? String(a.status) : null;
  return { target: a.target, n: a.n, startedAt: a.startedAt, headAt: a.headAt, endedAt: a.endedAt, status: a.status, error, span: span ?? null };
}

/** A request's timings (`RequestTiming`) with its spans, trace context and metrics. */
export class RequestObserver extends RequestTiming {
  /** The context active when the request arrived (in-process: the caller's). */
  private readonly active: Context | null = null;
  /** The parent of the SERVER span: the caller's `traceparent` continued, else the active context. */
  private parentContext: Context | null = null;
  /** The SERVER span: started with the request's arrival time when the first upstream call needs a parent, else after the answer. */
  private span: Span | null = null;
  /** The context with the SERVER span in it: the CLIENT spans' parent. */
  private serverContext: Context | null = null;
  /** Each attempt's CLIENT span, by its number (1 first). */
  private readonly spans: Array<Span | undefined> = [];
  /** Wall-clock milliseconds minus performance-clock milliseconds, read once per request (NaN: not yet). */
  private wallOffset = NaN;

  constructor(
    private readonly tel: Telemetry,
    private readonly headers: HeaderReader | null,
    private readonly brandOf: (model: string) => string | undefined,
  ) {
    super();
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

  /**
   * A performance-clock time as wall-clock milliseconds, every time of the request by the same
   * offset. Handed a performance time, the SDK corrects it by an offset each span reads for
   * itself from the millisecond wall clock, so a CLIENT span could end up to 1 ms after its
   * SERVER parent; one offset per request keeps their order as measured.
   */
  wallTime(t: number): number {
    if (Number.isNaN(this.wallOffset)) this.wallOffset = Date.now() - performance.now();
    return t + this.wallOffset;
  }

  /** The SERVER span, started now (backdated to the request's arrival) if it is not yet. */
  serverSpan(tel: Telemetry): Span | null {
    if (this.span === null && tel.tracer !== null) {
      this.span = tel.tracer.startSpan('chat', { kind: SpanKind.SERVER, startTime: this.wallTime(this.startedAt) }, this.parent(tel));
    }
    return this.span;
  }

  /** An upstream call is about to be sent: give it a span and a `traceparent`. */
  protected override onAttemptStarted(a: UpstreamAttempt, headers: Headers): void {
    const tel = this.tel;
    try {
      const parent = this.parent(tel);
      let ctx = parent;
      if (tel.tracer !== null) {
        let serverContext = this.serverContext;
        if (serverContext === null) serverContext = this.serverContext = trace.setSpan(parent, this.serverSpan(tel)!);
        const shape = clientShape(a.target, this.kind);
        const span = tel.tracer.startSpan(
          shape.name,
          { kind: SpanKind.CLIENT, attributes: shape.attributes, startTime: this.wallTime(a.startedAt) },
          serverContext,
        );
        this.spans[a.n - 1] = span;
        ctx = trace.setSpan(serverContext, span);
      }
      // Trace context only: baggage (the caller's, or the host's own) is free-form data, and the
      // gateway sends a provider nothing from the caller it was not configured to send.
      tel.propagator.inject(propagation.deleteBaggage(ctx), headers, headerSetter);
    } catch {
      // Telemetry never fails a request.
    }
  }

  /** The request's usage record was written: its spans and metrics go to the SDK after the answer. */
  protected override onRecorded(record: UsageRecord, attemptEndedAt: number): void {
    const tel = this.tel;
    const endedAt = attemptEndedAt >= 0 ? attemptEndedAt : performance.now();
    tel.deferred.add(() => finishRequest(tel, this, this.finishedAttempts(), { type: 'recorded', record, endedAt }));
  }

  /** A request that writes no usage record (model discovery, a refusal while closing): its span ends after the answer. */
  protected override onUnrecorded(status: number): void {
    const tel = this.tel;
    if (tel.tracer === null) return;
    const endedAt = performance.now();
    tel.deferred.add(() => finishRequest(tel, this, this.finishedAttempts(), { type: 'unrecorded', status, endedAt }));
  }

  private finishedAttempts(): FinishedAttempt[] {
    return this.attempts.map((a) => finished(a, this.spans[a.n - 1]));
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
