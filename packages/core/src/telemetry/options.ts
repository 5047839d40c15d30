import type { MeterProvider, TextMapPropagator, TracerProvider } from '@opentelemetry/api';

/**
 * Where the gateway's metrics and spans go (`createGateway({ telemetry })`). Each part defaults
 * to the global one of `@opentelemetry/api`, as registered by the host's OpenTelemetry SDK
 * (register it before creating the gateway); with no SDK installed everything is a no-op and
 * costs nothing on the request path. `false` turns telemetry off whatever is installed.
 */
export interface TelemetryOptions {
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
