/**
 * The gateway's instruments, made once per gateway from `@opentelemetry/api` providers. With no
 * SDK installed the global providers are no-ops: then `createTelemetry` answers null and the
 * request path makes no telemetry call at all.
 */
import {
  ProxyTracerProvider,
  createNoopMeter,
  metrics,
  propagation,
  trace,
  type Attributes,
  type BatchObservableCallback,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  type ObservableCounter,
  type ObservableGauge,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { DeferredWork } from './deferred.js';
import { BoundedLabel } from './labels.js';
import type { TelemetryOption, TelemetrySources } from './options.js';
import { ATTR, DURATION_BUCKETS, METRIC, STORE_BUCKETS, TOKEN_BUCKETS, TPOT_BUCKETS, TTFT_BUCKETS } from './semconv.js';

const SCOPE = 'tollgate';
const SCOPE_VERSION = '0.1.0';

/**
 * A monotonic sum kept by the gateway and read by an observable counter when a reader
 * collects: one map lookup per request instead of the SDK hashing an attribute set.
 */
export class Tally {
  readonly series = new Map<string, { attributes: Attributes; value: number }>();

  add(key: string, value: number, attributes: () => Attributes): void {
    const s = this.series.get(key);
    if (s !== undefined) s.value += value;
    else this.series.set(key, { attributes: attributes(), value });
  }
}

export interface Metrics {
  tokenUsage: Histogram;
  clientDuration: Histogram;
  serverDuration: Histogram;
  timeToFirstToken: Histogram;
  timePerOutputToken: Histogram;
  /** Requests by status, reason, entry format and model (read by `tollgate.requests`). */
  requests: Tally;
  /** Micro-USD by model, deployment and provider (read by `tollgate.spend.micro_usd`). */
  spend: Tally;
  /** Tokens by model, deployment and kind, cache and reasoning included (read by `tollgate.tokens`). */
  tokens: Tally;
  /** Values DLP acted on, by direction, entity type and action (read by `tollgate.dlp.actions`). */
  dlp: Tally;
  /** Requests a policy prompt was placed in, by prompt (read by `tollgate.policy_prompts`). */
  prompts: Tally;
  /** Attribute sets of the histograms, made once per distinct key. */
  attributes: Map<string, Attributes>;
  settleRetries: Counter;
  settleFailures: Counter;
  storeDuration: Histogram;
  /** Live holds of this gateway, for the observable gauges (`sweep` drops the expired ones first). */
  holds: { count: number; micros: number; sweep(): void };
}

export interface Telemetry {
  /** Null when the tracer provider is a no-op. */
  readonly tracer: Tracer | null;
  readonly propagator: TextMapPropagator;
  /** Null when the meter provider is a no-op. */
  readonly metrics: Metrics | null;
  /** Guards for labels that come from reason codes. */
  readonly reasons: BoundedLabel;
  readonly errorTypes: BoundedLabel;
  /** Guards for DLP entity types (custom ones and a recognizer's come from configuration) and policy prompts. */
  readonly dlpEntities: BoundedLabel;
  readonly prompts: BoundedLabel;
  /** SDK calls left for after the answer (metric records, span ends), run on the next event-loop turn. */
  readonly deferred: DeferredWork;
  /** Start reading the gateway's state for the observable instruments. */
  observe(sources: TelemetrySources): void;
  /** Stop the observable callbacks (the gateway closed). */
  shutdown(): void;
}

const NOOP_METER_CLASS = createNoopMeter().constructor;
const NOOP_TRACER_PROVIDER_CLASS = new ProxyTracerProvider().getDelegate().constructor;

function isNoopMeter(meter: Meter): boolean {
  return meter.constructor === NOOP_METER_CLASS;
}

function isNoopTracerProvider(provider: TracerProvider): boolean {
  const real = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  return real.constructor === NOOP_TRACER_PROVIDER_CLASS;
}

function makeMetrics(meter: Meter): Metrics {
  return {
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      description: 'Number of input and output tokens used, per upstream call.',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    clientDuration: meter.createHistogram(METRIC.clientDuration, {
      description: 'GenAI operation duration: each upstream attempt, from sending it to the end of its answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    serverDuration: meter.createHistogram(METRIC.serverDuration, {
      description: 'Gateway request duration, from arrival to the last byte of the answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    timeToFirstToken: meter.createHistogram(METRIC.timeToFirstToken, {
      description: 'Time to the first token of a successful streamed answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: TTFT_BUCKETS },
    }),
    timePerOutputToken: meter.createHistogram(METRIC.timePerOutputToken, {
      description: 'Time per output token after the first, for successful streamed answers.',
      unit: 's',
      advice: { explicitBucketBoundaries: TPOT_BUCKETS },
    }),
    requests: new Tally(),
    spend: new Tally(),
    tokens: new Tally(),
    dlp: new Tally(),
    prompts: new Tally(),
    attributes: new Map(),
    settleRetries: meter.createCounter(METRIC.settleRetries, { description: 'Settlements tried again after the store failed one.', unit: '{settle}' }),
    settleFailures: meter.createCounter(METRIC.settleFailures, {
      description: 'Settlements the store could not complete in the end (the hold expires after its TTL).',
      unit: '{settle}',
    }),
    storeDuration: meter.createHistogram(METRIC.storeDuration, {
      description: 'State store round trips, by operation.',
      unit: 's',
      advice: { explicitBucketBoundaries: STORE_BUCKETS },
    }),
    holds: { count: 0, micros: 0, sweep: () => {} },
  };
}

/** The gateway's telemetry, or null when there is nowhere for it to go. */
export function createTelemetry(option: TelemetryOption | undefined): Telemetry | null {
  if (option === false) return null;
  const meterProvider: MeterProvider = option?.meterProvider ?? metrics.getMeterProvider();
  const tracerProvider: TracerProvider = option?.tracerProvider ?? trace.getTracerProvider();
  const meter = meterProvider.getMeter(SCOPE, SCOPE_VERSION);
  const tracer = isNoopTracerProvider(tracerProvider) ? null : tracerProvider.getTracer(SCOPE, SCOPE_VERSION);
  const m = isNoopMeter(meter) ? null : makeMetrics(meter);
  if (m === null && tracer === null) return null;

  let observers: { callback: BatchObservableCallback; observables: Array<ObservableCounter | ObservableGauge> } | null = null;
  const deferred = new DeferredWork();
  return {
    tracer,
    propagator: option?.propagator ?? propagation,
    metrics: m,
    reasons: new BoundedLabel(500),
    errorTypes: new BoundedLabel(200),
    dlpEntities: new BoundedLabel(200),
    prompts: new BoundedLabel(200),
    deferred,
    observe(sources) {
      if (m === null || observers !== null) return;
      const requests = meter.createObservableCounter(METRIC.requests, { description: 'Requests handled, by outcome and reason.', unit: '{request}' });
      const spend = meter.createObservableCounter(METRIC.spend, {
        description: 'Recorded spend in micro-USD (actual or estimated cost).',
        unit: '{micro_usd}',
      });
      const tokens = meter.createObservableCounter(METRIC.tokens, {
        description:
          'Tokens by kind: input (cache included), output (reasoning included), and their parts tollgate.cache_read, tollgate.cache_write, tollgate.cache_write_1h, tollgate.reasoning.',
        unit: '{token}',
      });
      const records = meter.createObservableCounter(METRIC.usageRecords, {
        description: 'Usage records by outcome: handed to the sink, written, dropped (queue full or sink closed), failed (the backend refused).',
        unit: '{record}',
      });
      const dlp = meter.createObservableCounter(METRIC.dlpActions, {
        description: 'Values DLP acted on (log, pseudonymize, redact, block), by direction (request, response), entity type and action.',
        unit: '{value}',
      });
      const prompts = meter.createObservableCounter(METRIC.policyPrompts, {
        description: 'Requests a policy prompt was placed in, by prompt (id@version).',
        unit: '{request}',
      });
      const queued = meter.createObservableGauge(METRIC.usageQueued, { description: 'Usage records waiting in the sink or in flight.', unit: '{record}' });
      const held = meter.createObservableGauge(METRIC.reservationsHeld, { description: 'Spend reservations this gateway holds now.', unit: '{reservation}' });
      const heldMicros = meter.createObservableGauge(METRIC.reservedMicros, {
        description: 'Micro-USD this gateway holds in reservations now.',
        unit: '{micro_usd}',
      });
      const breaker = meter.createObservableGauge(METRIC.breakerState, {
        description: 'Circuit breaker per deployment: 0 closed, 1 open (refusing), 2 half-open (one probe let through).',
        unit: '1',
      });
      const callback: BatchObservableCallback = (result) => {
        // What requests left for after their answers goes in first, so a collection is complete
        // (the SDK reads the observable instruments before the histograms).
        deferred.drain();
        for (const s of m.requests.series.values()) result.observe(requests, s.value, s.attributes);
        for (const s of m.spend.series.values()) result.observe(spend, s.value, s.attributes);
        for (const s of m.tokens.series.values()) result.observe(tokens, s.value, s.attributes);
        for (const s of m.dlp.series.values()) result.observe(dlp, s.value, s.attributes);
        for (const s of m.prompts.series.values()) result.observe(prompts, s.value, s.attributes);
        let usage: ReturnType<TelemetrySources['usage']> | null = null;
        try {
          usage = sources.usage();
        } catch {
          // A sink whose stats throw reports nothing this time.
        }
        if (usage !== null) {
          for (const outcome of ['handed', 'written', 'dropped', 'failed'] as const) {
            result.observe(records, usage[outcome], { [ATTR.outcome]: outcome } satisfies Attributes);
          }
          result.observe(queued, usage.queued);
        }
        m.holds.sweep();
        result.observe(held, m.holds.count);
        result.observe(heldMicros, m.holds.micros);
        for (const [deployment, state] of sources.breakers()) result.observe(breaker, state, { [ATTR.deployment]: deployment });
      };
      const observables = [requests, spend, tokens, dlp, prompts, records, queued, held, heldMicros, breaker];
      meter.addBatchObservableCallback(callback, observables);
      observers = { callback, observables };
    },
    shutdown() {
      if (observers === null) return;
      meter.removeBatchObservableCallback(observers.callback, observers.observables);
      observers = null;
    },
  };
}
