import type { MeterProvider, TextMapPropagator, TracerProvider } from '@opentelemetry/api';
import type { HeaderReader } from '../gateway/request.js';
import type { RequestTiming } from '../gateway/timing.js';
import type { StateStore } from '../store/types.js';

/**
 * Where the gateway's metrics and spans go (`createGateway({ telemetry })`). Each part defaults
 * to the global one of `@opentelemetry/api`, as registered by the host's OpenTelemetry SDK
 * (register it before creating the gateway); with no SDK installed everything is a no-op and
 * costs nothing on the request path. `false` turns telemetry off whatever is installed.
 */
export interface TelemetryOptions {
  /**
   * What instruments the gateway: `openTelemetry` of `@tollgate/core/telemetry`.
   * `createGateway` of `@tollgate/core` passes it by default; the one of `@tollgate/core/minimal`
   * has no telemetry unless given it (and refuses `telemetry` options without it), so a bundle
   * that wants none carries none of OpenTelemetry.
   */
  engine?: TelemetryEngine;
  /** Metrics (GenAI semantic conventions and tollgate's own). Default: the global meter provider. */
  meterProvider?: MeterProvider;
  /** One SERVER span per request, one CLIENT span per upstream attempt. Default: the global tracer provider. */
  tracerProvider?: TracerProvider;
  /**
   * Reads the caller's trace context (`traceparent`) and writes it on upstream calls.
   * Default: the global propagator (W3C Trace Context once an SDK registered it).
   */
  propagator?: TextMapPropagator;
}

export type TelemetryOption = TelemetryOptions | false;

/** What the observable instruments read when a reader collects. */
export interface TelemetrySources {
  /** Usage records: handed to the sink, written, queued, dropped, failed. */
  usage(): { handed: number; written: number; queued: number; dropped: number; failed: number };
  /** Circuit breaker state per enabled deployment: 0 closed, 1 open, 2 half-open (probing). */
  breakers(): Iterable<[deployment: string, state: 0 | 1 | 2]>;
}

/** Telemetry as the gateway uses it, made once per gateway by a `TelemetryEngine`. */
export interface GatewayTelemetry {
  /** The store the gateway works with: `store` itself, or a view of it whose round trips are measured. */
  store(store: StateStore): StateStore;
  /** One request's timings, with its spans and metrics. */
  request(headers: HeaderReader | null, brandOf: (model: string) => string | undefined): RequestTiming;
  /** A settle never succeeded (retried out, or cut by `close`). */
  settleFailed(): void;
  /**
   * Resolves once what the requests left for after their answers (span ends, metric records) has
   * been handed to the SDK; null when nothing is pending. For `waitUntil` on edge runtimes.
   */
  pending(): Promise<void> | null;
  /** Hand what is pending to the SDK now (on `close`). */
  flush(): void;
  /** Start reading the gateway's state for the observable instruments. */
  observe(sources: TelemetrySources): void;
  /** Stop the observable callbacks (the gateway closed). */
  shutdown(): void;
}

/** Makes a gateway's telemetry from its options; null when there is nothing to record (no SDK installed). */
export type TelemetryEngine = (options: TelemetryOptions) => GatewayTelemetry | null;
