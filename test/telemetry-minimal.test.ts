/**
 * Telemetry is an opt-in of `@tollgate/core/minimal`, as DLP is: without `telemetry.engine` the
 * minimal gateway records no span and no metric even with an SDK registered globally (and
 * bundles none of OpenTelemetry), refuses telemetry options that name no engine, and with
 * `openTelemetry` of `@tollgate/core/telemetry` records what `@tollgate/core` records by
 * default. `server-timing` is on every answer either way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind, metrics, propagation, trace } from '@opentelemetry/api';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { createGateway } from '@tollgate/core';
import {
  createGateway as createMinimalGateway,
  GatewayConfigError,
  createVirtualKey,
  pendingTelemetry,
  type Gateway,
  type MinimalGatewayOptions,
} from '@tollgate/core/minimal';
import { openTelemetry } from '@tollgate/core/telemetry';
import { ANTHROPIC_SECRET, anthropicUpstream, registry } from '../packages/core/src/gateway/__tests__/anthropic-upstream.js';
import { seriesOf, testSdk } from './support/otel.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

async function setup() {
  const { key, hash } = await createVirtualKey();
  const upstream = anthropicUpstream();
  const sdk = testSdk();
  cleanups.push(() => sdk.shutdown());
  const options: MinimalGatewayOptions = {
    registry: registry(),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET },
    fetch: upstream.fetch,
    codecs: [openaiChatCodec, anthropicMessagesCodec],
  };
  const call = async (gateway: Gateway) => {
    cleanups.push(() => gateway.close({ drainMs: 100 }));
    const response = await gateway.handle(
      new Request('https://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
        body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(response.status).toBe(200);
    await response.json();
    // Spans and metrics are handed to the SDK after the answer.
    await pendingTelemetry(gateway);
    return response;
  };
  return { sdk, options, upstream, call };
}

/** Register the test SDK as the global providers for one test. */
function registerGlobally(sdk: ReturnType<typeof testSdk>): void {
  metrics.setGlobalMeterProvider(sdk.telemetry.meterProvider);
  trace.setGlobalTracerProvider(sdk.telemetry.tracerProvider);
  propagation.setGlobalPropagator(sdk.telemetry.propagator);
  cleanups.push(async () => {
    metrics.disable();
    trace.disable();
    propagation.disable();
  });
}

describe('@tollgate/core/minimal and telemetry', () => {
  it('records nothing without an engine, even with an SDK registered globally; @tollgate/core records by default', async () => {
    const { sdk, options, upstream, call } = await setup();
    registerGlobally(sdk);

    const minimalGateway = createMinimalGateway(options);
    const minimal = await call(minimalGateway);
    expect(pendingTelemetry(minimalGateway)).toBeNull();
    expect(minimal.headers.get('server-timing')).toMatch(/^gateway;dur=[\d.]+, upstream;dur=[\d.]+, ttfb;dur=[\d.]+$/);
    expect(upstream.seen[0]!.headers.get('traceparent')).toBeNull();

    const full = await call(createGateway(options));
    expect(full.headers.get('server-timing')).toMatch(/^gateway;dur=/);
    expect(upstream.seen[1]!.headers.get('traceparent')).toMatch(new RegExp(`^00-${TRACE}-`));
    // One request's spans and metrics: the root entry's; the minimal one recorded none.
    expect(
      sdk
        .spans()
        .map((s) => s.kind)
        .sort(),
    ).toEqual([1, 2]); // SERVER, CLIENT
    const durations = seriesOf(await sdk.series(), 'gen_ai.server.request.duration');
    expect(durations.map((d) => d.value)).toEqual([1]);
  });

  it('refuses telemetry options without an engine, naming the import', async () => {
    const { sdk, options } = await setup();
    for (const telemetry of [sdk.telemetry, {}]) {
      let error: unknown;
      try {
        createMinimalGateway({ ...options, telemetry });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayConfigError);
      expect((error as GatewayConfigError).source).toBe('options');
      expect((error as GatewayConfigError).errors).toEqual([
        { path: 'telemetry', message: expect.stringMatching(/telemetry: \{ engine: openTelemetry \}.*'@tollgate\/core\/telemetry'/) },
      ]);
    }
    // `false` and no telemetry at all are fine.
    cleanups.push(() => createMinimalGateway({ ...options, telemetry: false }).close());
  });

  it('with openTelemetry: spans, trace context and metrics, as @tollgate/core has them', async () => {
    const { sdk, options, upstream, call } = await setup();
    await call(createMinimalGateway({ ...options, telemetry: { engine: openTelemetry, ...sdk.telemetry } }));
    const spans = sdk.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const client = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(client.attributes).toMatchObject({ 'gen_ai.request.model': 'claude-sonnet-4-5', 'tollgate.deployment': 'sonnet@anthropic', 'tollgate.attempt': 1 });
    expect(upstream.seen[0]!.headers.get('traceparent')).toBe(`00-${TRACE}-${client.spanContext().spanId}-01`);
    const all = await sdk.series();
    expect(seriesOf(all, 'gen_ai.server.request.duration')).toHaveLength(1);
    expect(seriesOf(all, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' })[0]!.sum).toBe(4);
    expect(seriesOf(all, 'tollgate.requests', { 'tollgate.status': 'ok' })[0]!.value).toBe(1);
  });
});
