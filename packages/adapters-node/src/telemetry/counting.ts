/**
 * Exporters that count what they sent and what was lost, and say so once per outage: the first
 * failed export is logged with its cause, the recovery with how many were lost in between.
 * Nothing here ever throws into the gateway: a collector that is down only costs its data.
 */
import { TraceFlags } from '@opentelemetry/api';
import type { ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { AggregationTemporality, InstrumentType, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface ExportCounts {
  /** Items (spans, or metric data points) the collector accepted. */
  exported: number;
  /** Items lost to failed exports. */
  failed: number;
}

/**
 * Counts the sampled spans that ended, beside the batch processor: what it drops when its queue
 * is full (a collector that hangs or is slower than the traffic) never reaches an exporter, so
 * only this count shows it — spans lost = ended − exported.
 */
export class EndedSpans implements SpanProcessor {
  count = 0;

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.count++;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Reports the first failure of an outage and the recovery after it. */
class Outage {
  private lostSinceDown = 0;
  private down = false;

  constructor(
    private readonly what: string,
    private readonly log: (line: string) => void,
  ) {}

  ok(): void {
    if (!this.down) return;
    this.down = false;
    this.log(`tollgate: telemetry: ${this.what} recovered (${this.lostSinceDown} lost while it failed)`);
    this.lostSinceDown = 0;
  }

  failed(lost: number, error: unknown): void {
    this.lostSinceDown += lost;
    if (this.down) return;
    this.down = true;
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a non-Error failure is named as it stringifies
    const message = error instanceof Error ? error.message : error === undefined ? 'unknown error' : String(error);
    this.log(`tollgate: telemetry: ${this.what} failed (${message}); traffic is unaffected, lost data is counted`);
  }
}

/** ExportResultCode.SUCCESS, typed as that member without loading @opentelemetry/core's code. */
const SUCCESS = 0 as ExportResultCode.SUCCESS;

export function countingSpanExporter(inner: SpanExporter, what: string, log: (line: string) => void, counts: ExportCounts): SpanExporter {
  const outage = new Outage(what, log);
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      try {
        inner.export(spans, (result) => {
          if (result.code === SUCCESS) {
            counts.exported += spans.length;
            outage.ok();
          } else {
            counts.failed += spans.length;
            outage.failed(spans.length, result.error);
          }
          done(result);
        });
      } catch (error) {
        counts.failed += spans.length;
        outage.failed(spans.length, error);
        done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush === undefined ? {} : { forceFlush: () => inner.forceFlush!() }),
  };
}

function points(metrics: ResourceMetrics): number {
  let n = 0;
  for (const scope of metrics.scopeMetrics) for (const m of scope.metrics) n += m.dataPoints.length;
  return n;
}

export function countingMetricExporter(inner: PushMetricExporter, what: string, log: (line: string) => void, counts: ExportCounts): PushMetricExporter {
  const outage = new Outage(what, log);
  const wrapped: PushMetricExporter = {
    export(metrics: ResourceMetrics, done: (result: ExportResult) => void) {
      const n = points(metrics);
      try {
        inner.export(metrics, (result) => {
          if (result.code === SUCCESS) {
            counts.exported += n;
            outage.ok();
          } else {
            counts.failed += n;
            outage.failed(n, result.error);
          }
          done(result);
        });
      } catch (error) {
        counts.failed += n;
        outage.failed(n, error);
        done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
      }
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
  if (inner.selectAggregationTemporality !== undefined) {
    wrapped.selectAggregationTemporality = (type: InstrumentType): AggregationTemporality => inner.selectAggregationTemporality!(type);
  }
  if (inner.selectAggregation !== undefined) wrapped.selectAggregation = (type: InstrumentType) => inner.selectAggregation!(type);
  return wrapped;
}
