/**
 * An OpenTelemetry SDK for tests: a meter provider read on demand and a tracer provider that
 * keeps finished spans in memory, with W3C Trace Context propagation. Nothing global is set.
 */
import type { Attributes } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Series {
  name: string;
  unit: string;
  attributes: Attributes;
  /** A counter's or gauge's value, or a histogram's count. */
  value: number;
  /** Histograms: sum and bucket boundaries. */
  sum?: number;
  boundaries?: number[];
}

export function testSdk() {
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const propagator = new W3CTraceContextPropagator();
  return {
    telemetry: { meterProvider, tracerProvider, propagator },
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    async series(): Promise<Series[]> {
      const { resourceMetrics } = await reader.collect();
      const out: Series[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          for (const point of metric.dataPoints as Array<DataPoint<number | Histogram>>) {
            const v = point.value;
            if (typeof v === 'number') out.push({ name: metric.descriptor.name, unit: metric.descriptor.unit, attributes: point.attributes, value: v });
            else
              out.push({
                name: metric.descriptor.name,
                unit: metric.descriptor.unit,
                attributes: point.attributes,
                value: v.count,
                sum: v.sum ?? 0,
                boundaries: v.buckets.boundaries,
              });
          }
        }
      }
      return out;
    },
    async shutdown() {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
    },
  };
}

/** The series of one metric whose attributes include `match`. */
export function seriesOf(all: Series[], name: string, match: Attributes = {}): Series[] {
  return all.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.attributes[k] === v));
}
