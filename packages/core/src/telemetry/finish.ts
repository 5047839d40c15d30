/**
 * The SDK's share of one request, done after its answer (`Telemetry.deferred`) with the times
 * measured while it ran: each upstream attempt's duration and CLIENT span end, the SERVER span's
 * attributes and end (the span itself is made here, backdated, when no upstream call needed it),
 * and the request's metrics.
 */
import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { UpstreamTarget } from '../gateway/upstream.js';
import type { UsageRecord } from '../gateway/usage-record.js';
import type { Telemetry } from './instruments.js';
import { OTHER } from './labels.js';
import { ATTR, brandProvider, metricReason, operationName, providerName, reasonClass } from './semconv.js';

/** One upstream attempt as measured (performance-clock milliseconds; -1: never happened). */
export interface FinishedAttempt {
  target: UpstreamTarget;
  n: number;
  startedAt: number;
  /** When the answer's head arrived. */
  headAt: number;
  endedAt: number;
  status: number;
  error: string | null;
  span: Span | null;
}

export type RequestEnd = { type: 'recorded'; record: UsageRecord; endedAt: number } | { type: 'unrecorded'; status: number; endedAt: number };

/** What `finishRequest` needs of the request's observer. */
export interface ObservedRequest {
  /** The SERVER span, made now (backdated to the arrival) if no upstream call made it. */
  serverSpan(tel: Telemetry): Span | null;
  brand(model: string): string | undefined;
  /** A performance-clock time as the wall-clock milliseconds spans are given. */
  wallTime(t: number): number;
}

export function finishRequest(tel: Telemetry, request: ObservedRequest, attempts: readonly FinishedAttempt[], end: RequestEnd): void {
  if (end.type === 'unrecorded') {
    const span = request.serverSpan(tel);
    if (span === null) return;
    span.updateName('list_models');
    span.setAttribute('http.response.status_code', end.status);
    span.end(request.wallTime(end.endedAt));
    return;
  }
  const record = end.record;
  const last = attempts[attempts.length - 1];
  if (last !== undefined && last.error === null && record.status !== 'ok' && record.status !== 'cancelled' && record.reason !== null)
    last.error = reasonClass(record.reason);
  for (const a of attempts) finishAttempt(tel, request, a, a === last ? record : null, record.kind ?? null);
  const provider = providerFor(record, last, request);
  endServerSpan(request.serverSpan(tel), record, provider, request.wallTime(end.endedAt));
  if (tel.metrics !== null) recordMetrics(tel, record, provider);
}

function providerFor(record: UsageRecord, last: FinishedAttempt | undefined, request: ObservedRequest): string {
  if (record.upstream_format !== null) return providerName(record.upstream_format, last?.target.baseUrl);
  return record.model === null ? OTHER : brandProvider(request.brand(record.model));
}

function finishAttempt(tel: Telemetry, request: ObservedRequest, a: FinishedAttempt, record: UsageRecord | null, kind: string | null): void {
  const t = a.target;
  const errorType = a.error === null ? null : tel.errorTypes.value(a.error);
  const m = tel.metrics;
  if (m !== null) {
    const attrs = cached(m.attributes, `c\u0000${kind ?? ''}\u0000${t.deploymentId}\u0000${t.upstreamModel}\u0000${errorType ?? ''}`, () => {
      const x: Attributes = {
        [ATTR.operation]: operationName(t.upstreamFormat, kind),
        [ATTR.provider]: providerName(t.upstreamFormat, t.baseUrl),
        [ATTR.requestModel]: t.upstreamModel,
        [ATTR.deployment]: t.deploymentId,
      };
      if (errorType !== null) x[ATTR.errorType] = errorType;
      return x;
    });
    m.clientDuration.record((a.endedAt - a.startedAt) / 1000, attrs);
  }
  const span = a.span;
  if (span === null) return;
  span.setAttributes({ [ATTR.deployment]: t.deploymentId, [ATTR.providerId]: t.providerId, 'tollgate.attempt': a.n });
  if (a.status > 0) span.setAttribute('http.response.status_code', a.status);
  if (errorType !== null) {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: a.error ?? undefined });
  }
  if (record !== null) setUsageAttributes(span, record);
  span.end(request.wallTime(a.endedAt));
}

function endServerSpan(span: Span | null, record: UsageRecord, provider: string, endedAt: number): void {
  if (span === null) return;
  const op = operationName(record.entry_format, record.kind);
  // Span names stay low-cardinality (trace backends index them): the catalog model, never a
  // model name a client typed (that is on `gen_ai.request.model`, cut to a sane length).
  span.updateName(record.model === null ? op : `${op} ${record.model}`);
  // What an on-call engineer looks a request up by; the rest is in its usage record (same request id).
  const attributes: Attributes = {
    [ATTR.operation]: op,
    [ATTR.provider]: provider,
    'tollgate.request_id': record.request_id,
    [ATTR.status]: record.status,
    'http.response.status_code': record.http_status,
    'tollgate.attempts': record.attempts,
  };
  if (record.requested_model !== null) attributes[ATTR.requestModel] = clip(record.requested_model);
  if (record.model !== null) attributes[ATTR.responseModel] = record.model;
  if (record.reason !== null) attributes[ATTR.reason] = clip(record.reason);
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
  span.end(endedAt);
}

function recordMetrics(tel: Telemetry, record: UsageRecord, provider: string): void {
  const m = tel.metrics!;
  const model = record.model ?? OTHER;
  const entry = record.entry_format ?? OTHER;
  const status = record.status;
  const reason = tel.reasons.value(metricReason(record.reason));
  const requested = record.substituted_from ?? model;
  m.requests.add(`${status}\u0000${reason}\u0000${entry}\u0000${model}`, 1, () => ({
    [ATTR.status]: status,
    [ATTR.reason]: reason,
    [ATTR.entryFormat]: entry,
    [ATTR.model]: model,
  }));

  // Attribute sets are made once per distinct combination and reused: bounded, and cheap per request.
  const errorType = status === 'ok' ? null : tel.errorTypes.value(record.reason === null ? status : reasonClass(record.reason));
  const server = cached(
    m.attributes,
    `s\u0000${record.kind ?? ''}\u0000${entry}\u0000${provider}\u0000${requested}\u0000${model}\u0000${errorType ?? ''}`,
    () => {
      const a: Attributes = {
        [ATTR.operation]: operationName(record.entry_format, record.kind),
        [ATTR.provider]: provider,
        [ATTR.requestModel]: requested,
        [ATTR.responseModel]: model,
        [ATTR.entryFormat]: entry,
      };
      if (errorType !== null) a[ATTR.errorType] = errorType;
      return a;
    },
  );
  m.serverDuration.record(record.duration_ms / 1000, server);

  if (status === 'ok' && record.stream && record.ttfb_ms !== null) {
    const ok = cached(m.attributes, `t\u0000${record.kind ?? ''}\u0000${entry}\u0000${provider}\u0000${requested}\u0000${model}`, () => ({
      [ATTR.operation]: operationName(record.entry_format, record.kind),
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
      cached(m.attributes, `u\u0000${record.kind ?? ''}\u0000${deployment}\u0000${provider}\u0000${upstreamModel}\u0000${type}`, () => ({
        [ATTR.operation]: operationName(record.upstream_format, record.kind),
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
      if (n > 0)
        m.tokens.add(`${model}\u0000${deployment}\u0000${type}`, n, () => ({ [ATTR.model]: model, [ATTR.deployment]: deployment, [ATTR.tokenType]: type }));
    }
  }
  for (const [direction, found] of [
    ['request', record.dlp],
    ['response', record.dlp_response],
  ] as const) {
    for (const [entity, { action, count }] of Object.entries(found ?? {})) {
      if (count <= 0) continue;
      const e = tel.dlpEntities.value(entity);
      const a = DLP_ACTIONS.has(action) ? action : OTHER;
      m.dlp.add(`${direction}\u0000${e}\u0000${a}`, count, () => ({ [ATTR.dlpDirection]: direction, [ATTR.dlpEntity]: e, [ATTR.dlpAction]: a }));
    }
  }
  for (const id of record.policy_prompts ?? []) {
    const p = tel.prompts.value(id);
    m.prompts.add(p, 1, () => ({ [ATTR.prompt]: p }));
  }
  const cost = record.cost_micros?.total ?? 0;
  if (cost > 0) {
    const d = deployment ?? OTHER;
    m.spend.add(`${model}\u0000${d}\u0000${provider}`, cost, () => ({ [ATTR.model]: model, [ATTR.deployment]: d, [ATTR.provider]: provider }));
  }
}

const DLP_ACTIONS = new Set(['allow', 'log', 'pseudonymize', 'redact', 'block']);

/** At most 256 characters of a value a client chose. */
const MAX_CLIENT_VALUE = 256;
function clip(value: string): string {
  return value.length <= MAX_CLIENT_VALUE ? value : `${value.slice(0, MAX_CLIENT_VALUE)}…`;
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
