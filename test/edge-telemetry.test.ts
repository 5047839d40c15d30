/**
 * The edge handler with and without an OpenTelemetry SDK. The gateway hands spans and metrics to
 * the SDK after the answer; on a platform that stops a request's work once its answer is sent, the
 * handler gives the platform's `waitUntil` a promise that covers that work too, so awaiting what
 * `waitUntil` got is enough to see every span (a stream's included, once it ended).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import type { UsageRecord } from '@tollgate/core';
import { createEdgeHandler, type EdgeHandler } from '@tollgate/adapters-edge';
import { OPENAI_SECRET, aliceIdentity, chatRequest, edgeRegistry, fakeUpstream, streamedText } from '../packages/adapters-edge/src/__tests__/fixture.js';
import { seriesOf, testSdk } from './support/otel.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A Worker's `ctx`: collects what it is handed. */
function workerCtx() {
  const promises: Array<Promise<unknown>> = [];
  return { promises, waitUntil: (p: Promise<unknown>) => void promises.push(p), settled: () => Promise.all(promises) };
}

async function setup(options: { sdk: boolean; usage: boolean }) {
  const upstream = fakeUpstream();
  const { key, identity } = await aliceIdentity();
  const sdk = testSdk();
  const records: UsageRecord[] = [];
  const handler: EdgeHandler = createEdgeHandler({
    registry: edgeRegistry(),
    identity,
    secrets: { OPENAI_API_KEY: OPENAI_SECRET },
    fetch: upstream.fetch,
    ...(options.usage ? { usage: (r: UsageRecord) => void records.push(r) } : {}),
    telemetry: options.sdk ? sdk.telemetry : false,
  });
  cleanups.push(async () => {
    await handler.close({ drainMs: 100 });
    await sdk.shutdown();
  });
  return { handler, key, sdk, records, upstream };
}

describe('adapters-edge with an OpenTelemetry SDK', () => {
  for (const usage of [true, false]) {
    it(`waitUntil covers the spans of a whole answer and of a stream (usage sink ${usage ? 'given' : 'absent'})`, async () => {
      const { handler, key, sdk, upstream } = await setup({ sdk: true, usage });
      const ctx = workerCtx();
      const whole = await handler(chatRequest(key), {}, ctx);
      expect(whole.status).toBe(200);
      await whole.text();
      await ctx.settled();
      expect(sdk.spans().filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(1);

      const streamed = await handler(chatRequest(key, { stream: true }), {}, ctx);
      expect((await streamedText(streamed)).text).toBe('Hello from the edge');
      if (usage) {
        await ctx.settled();
        expect(sdk.spans().filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(2);
      }
      // The upstream calls carried the CLIENT spans' trace context.
      expect(upstream.seen.every((s) => /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/.test(s.headers.get('traceparent') ?? ''))).toBe(true);
      const all = await sdk.series();
      expect(seriesOf(all, 'gen_ai.server.request.duration').reduce((n, s) => n + s.value, 0)).toBe(2);
    });
  }
});

describe('adapters-edge without an SDK', () => {
  it('serves, sends no traceparent, and hands waitUntil nothing for telemetry', async () => {
    const { handler, key, upstream } = await setup({ sdk: false, usage: false });
    const ctx = workerCtx();
    const response = await handler(chatRequest(key), {}, ctx);
    expect(response.status).toBe(200);
    await response.text();
    expect(ctx.promises).toHaveLength(0);
    expect(upstream.seen[0]!.headers.get('traceparent')).toBeNull();
    expect(response.headers.get('server-timing')).toMatch(/^gateway;dur=/);
  });
});
