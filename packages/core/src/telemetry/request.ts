/**
 * One request as telemetry sees it: its timings (`RequestTiming`, kept for every request for
 * `server-timing`), its SERVER span, a CLIENT span per upstream attempt (whose context the
 * upstream call carries as `traceparent`), and the metrics recorded once its usage record is
 * written. Never throws into the request path.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { HeaderReader } from '../gateway/request.js';
import type { UsageRecord } from '../gateway/usage-record.js';
import { RequestTiming, type UpstreamAttempt as Attempt } from '../gateway/timing.js';
import type { Telemetry } from './instruments.js';
import { OTHER } from './labels.js';
import { ATTR, brandProvider, operationName, providerName, reasonClass } from './semconv.js';

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

const SERVER = { kind: SpanKind.SERVER } as const;

/** The error label of an attempt: what failed it, its status when not 2xx, else the request's reason (from its record). */
function attemptError(a: Attempt, record: UsageRecord | undefined): string | null {
  if (a.failed) return errorName(a.cause);
  if (a.status !== 0 && (a.status < 200 || a.status > 299)) return String(a.status);
  if (record !== undefined && record.status !== 'ok' && record.status !== 'cancelled' && record.reason !== null) return reasonClass(record.reason);
  return null;
}

/** A request's timings (`RequestTiming`) with its spans, trace context and metrics. */
export class RequestObserver extends RequestTiming {
  private parent: Context = ROOT_CONTEXT;
  private span: Span | null = null;
  /** Each attempt's CLIENT span, while it is open. */
  private readonly spans = new WeakMap<Attempt, Span>();

  constructor(
    private readonly tel: Telemetry,
    headers: HeaderReader | null,
    private readonly brandOf: (model: string) => string | undefined,
  ) {
    super();
    try {
      this.parent = headers === null ? context.active() : tel.propagator.extract(context.active(), headers, headerGetter);
      if (tel.tracer !== null) this.span = tel.tracer.startSpan('chat', SERVER, this.parent);
    } catch {
      this.span = null;
    }
  }

  /** An upstream call is about to be sent: give it a span and a `traceparent`. */
  protected override onAttemptStarted(a: Attempt, headers: Headers): void {
    const tel = this.tel;
    const target = a.target;
    try {
      const parent = this.span === null ? this.parent : trace.setSpan(this.parent, this.span);
      let ctx = parent;
      if (tel.tracer !== null) {
        const address = addressOf(target.baseUrl);
        const attributes: Attributes = {
          [ATTR.operation]: operationName(target.upstreamFormat),
          [ATTR.provider]: providerName(target.upstreamFormat, target.baseUrl),
          [ATTR.requestModel]: target.upstreamModel,
          [ATTR.deployment]: target.deploymentId,
          [ATTR.providerId]: target.providerId,
          'tollgate.attempt': a.n,
        };
        if (address !== null) {
          attributes[ATTR.serverAddress] = address.address;
          attributes[ATTR.serverPort] = address.port;
        }
        const span = tel.tracer.startSpan(
          `${attributes[ATTR.operation] as string} ${target.upstreamModel}`,
          { kind: SpanKind.CLIENT, attributes },
          parent,
        );
        this.spans.set(a, span);
        ctx = trace.setSpan(parent, span);
      }
      tel.propagator.inject(ctx, headers, headerSetter);
    } catch {
      // Telemetry never fails a request.
    }
  }

  /** The request's usage record was written: end its spans and record its metrics. */
  protected override onRecorded(record: UsageRecord): void {
    const tel = this.tel;
    try {
      this.endServerSpan(record);
      if (tel.metrics !== null) this.recordMetrics(tel, record);
    } catch {
      // Telemetry never fails a request.
    }
  }

  /** A request that writes no usage record (model discovery, a refusal while closing): end its span. */
  protected override onUnrecorded(status: number): void {
    const span = this.span;
    if (span === null) return;
    span.updateName('list_models');
    span.setAttribute('http.response.status_code', status);
    span.end();
  }

  protected override onAttemptEnded(a: Attempt, record: UsageRecord | undefined): void {
    const tel = this.tel;
    try {
      const t = a.target;
      const m = tel.metrics;
      const error = attemptError(a, record);
      const errorType = error === null ? null : tel.errorTypes.value(error);
      if (m !== null) {
        const attrs = cached(m.attributes, `c\u0000${t.deploymentId}\u0000${t.upstreamModel}\u0000${errorType ?? ''}`, () => {
          const x: Attributes = {
            [ATTR.operation]: operationName(t.upstreamFormat),
            [ATTR.provider]: providerName(t.upstreamFormat, t.baseUrl),
            [ATTR.requestModel]: t.upstreamModel,
            [ATTR.deployment]: t.deploymentId,
          };
          if (errorType !== null) x[ATTR.errorType] = errorType;
          return x;
        });
        m.clientDuration.record((a.endedAt - a.startedAt) / 1000, attrs);
      }
      const span = this.spans.get(a);
      if (span !== undefined) {
        this.spans.delete(a);
        if (record !== undefined) setUsageAttributes(span, record);
        if (a.status > 0) span.setAttribute('http.response.status_code', a.status);
        if (errorType !== null) {
          span.setAttribute(ATTR.errorType, errorType);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error ?? undefined });
        }
        span.end(a.endedAt);
      }
    } catch {
      // Telemetry never fails a request.
    }
  }

  private endServerSpan(record: UsageRecord): void {
    const span = this.span;
    if (span === null) return;
    const op = operationName(record.entry_format);
    span.updateName(`${op} ${record.model ?? record.requested_model ?? ''}`.trim());
    // What an on-call engineer looks a request up by; the rest is in its usage record (same request id).
    const attributes: Attributes = {
      [ATTR.operation]: op,
      [ATTR.provider]: this.providerFor(record),
      'tollgate.request_id': record.request_id,
      [ATTR.status]: record.status,
      'http.response.status_code': record.http_status,
      'tollgate.attempts': record.attempts,
    };
    if (record.requested_model !== null) attributes[ATTR.requestModel] = record.requested_model;
    if (record.model !== null) attributes[ATTR.responseModel] = record.model;
    if (record.reason !== null) attributes[ATTR.reason] = record.reason;
    if (record.deployment !== null) attributes[ATTR.deployment] = record.deployment;
    if (record.substituted_from !== null) attributes['tollgate.substituted_from'] = record.substituted_from;
    if (record.principal !== null) attributes['tollgate.principal.id'] = record.principal.id;
    if (record.cost_micros !== null) attributes['tollgate.cost_micros'] = record.cost_micros.total;
    if (record.would_block.length > 0) attributes['tollgate.would_block'] = record.would_block;
    span.setAttributes(attributes);
    setUsageAttributes(span, record);
    if (record.status === 'error' || record.status === 'upstream_error') {
      span.setAttribute(ATTR.errorType, record.reason === null ? OTHER : reasonClass(record.reason));
      span.setStatus({ code: SpanStatusCode.ERROR, message: record.reason ?? record.status });
    }
    span.end();
  }

  private providerFor(record: UsageRecord): string {
    if (record.upstream_format !== null) {
      const a = this.current;
      return providerName(record.upstream_format, a?.target.baseUrl);
    }
    return record.model === null ? OTHER : brandProvider(this.brandOf(record.model));
  }

  private recordMetrics(tel: Telemetry, record: UsageRecord): void {
    const m = tel.metrics!;
    const model = record.model ?? OTHER;
    const entry = record.entry_format ?? OTHER;
    const status = record.status;
    const reason = tel.reasons.value(record.reason);
    const provider = this.providerFor(record);
    const requested = record.substituted_from ?? model;
    m.requests.add(`${status}\u0000${reason}\u0000${entry}\u0000${model}`, 1, () => ({ [ATTR.status]: status, [ATTR.reason]: reason, [ATTR.entryFormat]: entry, [ATTR.model]: model }));

    // Attribute sets are made once per distinct combination and reused: bounded, and cheap per request.
    const errorType = status === 'ok' ? null : tel.errorTypes.value(record.reason === null ? status : reasonClass(record.reason));
    const serverKey = `s\u0000${entry}\u0000${provider}\u0000${requested}\u0000${model}\u0000${errorType ?? ''}`;
    const server = cached(m.attributes, serverKey, () => {
      const a: Attributes = {
        [ATTR.operation]: operationName(record.entry_format),
        [ATTR.provider]: provider,
        [ATTR.requestModel]: requested,
        [ATTR.responseModel]: model,
        [ATTR.entryFormat]: entry,
      };
      if (errorType !== null) a[ATTR.errorType] = errorType;
      return a;
    });
    m.serverDuration.record(record.duration_ms / 1000, server);

    if (status === 'ok' && record.stream && record.ttfb_ms !== null) {
      const ok = cached(m.attributes, `t\u0000${entry}\u0000${provider}\u0000${requested}\u0000${model}`, () => ({
        [ATTR.operation]: operationName(record.entry_format),
        [ATTR.provider]: provider,
        [ATTR.requestModel]: requested,
        [ATTR.responseModel]: model,
        [ATTR.entryFormat]: entry,
      }));
      m.timeToFirstToken.record(record.ttfb_ms / 1000, ok);
      const output = record.usage?.output ?? 0;
      if (output > 1 && record.duration_ms > record.ttfb_ms) m.timePerOutputToken.record((record.duration_ms - record.ttfb_ms) / 1000 / (output - 1), ok);
    }

    const usage = record.usage;
    const deployment = record.deployment;
    if (usage !== null && deployment !== null) {
      const upstreamModel = record.upstream_model ?? model;
      const tokens = (type: string) =>
        cached(m.attributes, `u\u0000${deployment}\u0000${provider}\u0000${upstreamModel}\u0000${type}`, () => ({
          [ATTR.operation]: operationName(record.upstream_format),
          [ATTR.provider]: provider,
          [ATTR.requestModel]: upstreamModel,
          [ATTR.deployment]: deployment,
          [ATTR.tokenType]: type,
        }));
      // `input` counts every prompt token, cached or not (as the spec asks).
      const prompt = usage.input + usage.cache_read + usage.cache_write + usage.cache_write_1h;
      m.tokenUsage.record(prompt, tokens('input'));
      m.tokenUsage.record(usage.output, tokens('output'));
      // Totals by every token kind, cache and reasoning included (parts of input and output): a
      // counter kept by the gateway, since each histogram record costs the SDK microseconds.
      const kinds: Array<[string, number]> = [
        ['input', prompt],
        ['output', usage.output],
        ['tollgate.cache_read', usage.cache_read],
        ['tollgate.cache_write', usage.cache_write],
        ['tollgate.cache_write_1h', usage.cache_write_1h],
        ['tollgate.reasoning', usage.reasoning],
      ];
      for (const [type, n] of kinds) {
        if (n > 0) m.tokens.add(`${model}\u0000${deployment}\u0000${type}`, n, () => ({ [ATTR.model]: model, [ATTR.deployment]: deployment, [ATTR.tokenType]: type }));
      }
    }
    const cost = record.cost_micros?.total ?? 0;
    if (cost > 0) {
      const d = deployment ?? OTHER;
      m.spend.add(`${model}\u0000${d}\u0000${provider}`, cost, () => ({ [ATTR.model]: model, [ATTR.deployment]: d, [ATTR.provider]: provider }));
    }
  }
}

/** The attribute set for `key`, made on first use (label values are bounded, so the map is). */
function cached(map: Map<string, Attributes>, key: string, make: () => Attributes): Attributes {
  let a = map.get(key);
  if (a === undefined) {
    a = make();
    if (map.size < 20_000) map.set(key, a);
  }
  return a;
}

function setUsageAttributes(span: Span, record: UsageRecord): void {
  const u = record.usage;
  if (u === null) return;
  span.setAttributes({
    'gen_ai.usage.input_tokens': u.input + u.cache_read + u.cache_write + u.cache_write_1h,
    'gen_ai.usage.output_tokens': u.output,
    'gen_ai.usage.cache_read.input_tokens': u.cache_read,
    'gen_ai.usage.cache_creation.input_tokens': u.cache_write + u.cache_write_1h,
    'gen_ai.usage.reasoning.output_tokens': u.reasoning,
    'tollgate.usage.measured': u.measured,
  });
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
