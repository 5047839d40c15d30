/**
 * The OpenTelemetry SDK of `tollgate serve`, built from the service config's `telemetry`
 * section: a Prometheus endpoint on its own listener, OTLP export of traces and metrics, W3C
 * Trace Context propagation. Nothing is registered globally: the providers go to the gateway
 * (`createGateway({ telemetry })`), so several services can live in one process.
 *
 * The standard `OTEL_*` variables work as the SDK defines them: `OTEL_SDK_DISABLED`,
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_*` (endpoint, headers,
 * protocol, timeout, compression; the config's values win where it sets them),
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`none` turns one signal off),
 * `OTEL_TRACES_SAMPLER*`, `OTEL_BSP_*`, `OTEL_METRIC_EXPORT_INTERVAL` / `_TIMEOUT`, `OTEL_PROPAGATORS`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TextMapPropagator } from '@opentelemetry/api';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
  getBooleanFromEnv,
  getNumberFromEnv,
  getStringFromEnv,
  getStringListFromEnv,
} from '@opentelemetry/core';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TelemetryOptions } from '@tollgate/core';
import type { ServiceConfig } from '../cli/config.js';
import { EndedSpans, countingMetricExporter, countingSpanExporter, type ExportCounts } from './counting.js';

export type TelemetryConfig = NonNullable<ServiceConfig['telemetry']>;

export interface ServiceTelemetry {
  /** What to hand to `createGateway`. */
  options: TelemetryOptions;
  /** `http://host:port/metrics`, or null when not configured or not listening. */
  metricsUrl: string | null;
  /** For the start-up line. */
  describe: string;
  /**
   * Spans: exported, failed (exports the collector refused or that timed out) and ended (sampled
   * spans handed to the exporter's queue, or dropped by it when full): lost = ended − exported.
   */
  stats(): { spans: ExportCounts & { ended: number }; metrics: ExportCounts };
  /** Flush what is pending (bounded) and stop. */
  shutdown(timeoutMs?: number): Promise<void>;
}

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The OTLP protocol of a signal: the config's, else the signal's or the general `OTEL_*` variable, else the spec's default. */
export function otlpProtocol(configured: OtlpProtocol | undefined, signal: 'TRACES' | 'METRICS'): string {
  return configured ?? getStringFromEnv(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
}

function propagatorFromEnv(): TextMapPropagator {
  const names = getStringListFromEnv('OTEL_PROPAGATORS') ?? ['tracecontext', 'baggage'];
  const list: TextMapPropagator[] = [];
  for (const name of names) {
    if (name === 'tracecontext') list.push(new W3CTraceContextPropagator());
    else if (name === 'baggage') list.push(new W3CBaggagePropagator());
  }
  return new CompositePropagator({ propagators: list });
}

/** A URL as log lines show it: credentials in it (`https://user:token@collector`) hidden. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '***';
    u.password = '';
    return u.toString();
  } catch {
    return 'the configured OTLP endpoint';
  }
}

const signalUrl = (endpoint: string, path: string) => `${endpoint.replace(/\/+$/, '')}/${path}`;

async function otlpExporters(otlp: NonNullable<TelemetryConfig['otlp']>) {
  const headers = otlp.headers;
  const tracesProtocol = otlpProtocol(otlp.protocol, 'TRACES');
  const metricsProtocol = otlpProtocol(otlp.protocol, 'METRICS');
  for (const p of [tracesProtocol, metricsProtocol]) {
    if (p !== 'http/protobuf' && p !== 'http/json') throw new Error(`OTLP protocol ${JSON.stringify(p)} is not supported: use http/protobuf or http/json`);
  }
  const config = (path: string) => ({
    ...(otlp.endpoint === undefined ? {} : { url: signalUrl(otlp.endpoint, path) }),
    ...(headers === undefined ? {} : { headers }),
  });
  const traces: SpanExporter =
    tracesProtocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config('v1/traces'))
      : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config('v1/traces'));
  const metrics: PushMetricExporter =
    metricsProtocol === 'http/json'
      ? new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter(config('v1/metrics'))
      : new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter(config('v1/metrics'));
  const where = shownUrl(otlp.endpoint ?? getStringFromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4318');
  return { traces, metrics, where, tracesProtocol, metricsProtocol };
}

/** Serve the Prometheus exporter's text on `GET /metrics` from a listener of our own. */
async function metricsListener(exporter: PrometheusExporter, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      exporter.getMetricsRequestHandler(req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Start the SDK. A metrics port that cannot be bound or a collector that cannot be reached never
 * stops the service: each is reported once on `log`, and traffic goes on.
 */
export async function startTelemetry(config: TelemetryConfig, log: (line: string) => void): Promise<ServiceTelemetry | null> {
  if (getBooleanFromEnv('OTEL_SDK_DISABLED')) {
    log('tollgate: telemetry: OTEL_SDK_DISABLED is set — metrics and traces are off');
    return null;
  }
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': config.service_name ?? 'tollgate' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const readers: MetricReader[] = [];
  const counts = { spans: { exported: 0, failed: 0 }, metrics: { exported: 0, failed: 0 } };
  const ended = new EndedSpans();
  const parts: string[] = [];
  let tracerProvider: BasicTracerProvider | undefined;
  let metricsServer: Server | null = null;
  let metricsUrl: string | null = null;

  if (config.prometheus !== undefined) {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    readers.push(exporter);
    const { host, port } = config.prometheus;
    try {
      metricsServer = await metricsListener(exporter, host, port);
      const address = metricsServer.address() as AddressInfo;
      metricsUrl = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`;
      parts.push(`prometheus ${metricsUrl}`);
    } catch (error) {
      log(
        `tollgate: telemetry: cannot serve metrics on ${host}:${port} (${error instanceof Error ? error.message : String(error)}); serving traffic without /metrics`,
      );
      parts.push('prometheus unavailable');
    }
  }

  if (config.otlp !== undefined) {
    const otlp = await otlpExporters(config.otlp);
    if (getStringFromEnv('OTEL_METRICS_EXPORTER') !== 'none') {
      const interval = Math.max(100, getNumberFromEnv('OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000);
      readers.push(
        new PeriodicExportingMetricReader({
          exporter: countingMetricExporter(otlp.metrics, `OTLP metric export to ${otlp.where}`, log, counts.metrics),
          exportIntervalMillis: interval,
          // An export may not outlast the interval (the SDK refuses that).
          exportTimeoutMillis: Math.min(interval, getNumberFromEnv('OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000),
        }),
      );
    }
    if (getStringFromEnv('OTEL_TRACES_EXPORTER') !== 'none') {
      tracerProvider = new BasicTracerProvider({
        resource,
        spanProcessors: [ended, new BatchSpanProcessor(countingSpanExporter(otlp.traces, `OTLP trace export to ${otlp.where}`, log, counts.spans))],
      });
    }
    parts.push(
      `otlp ${otlp.where} (traces ${tracerProvider === undefined ? 'off' : otlp.tracesProtocol}, metrics ${readers.some((r) => r instanceof PeriodicExportingMetricReader) ? otlp.metricsProtocol : 'off'})`,
    );
  }

  const meterProvider = readers.length === 0 ? undefined : new MeterProvider({ resource, readers });
  const options: TelemetryOptions = { propagator: propagatorFromEnv() };
  if (meterProvider !== undefined) options.meterProvider = meterProvider;
  if (tracerProvider !== undefined) options.tracerProvider = tracerProvider;

  return {
    options,
    metricsUrl,
    describe: parts.join(', '),
    stats: () => ({ spans: { ...counts.spans, ended: ended.count }, metrics: { ...counts.metrics } }),
    async shutdown(timeoutMs = 5000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stop = Promise.allSettled([meterProvider?.shutdown(), tracerProvider?.shutdown()]);
      await Promise.race([stop, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      if (metricsServer !== null) {
        const server = metricsServer;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
    },
  };
}
