/**
 * What telemetry costs in-process: the governed pipeline's added p50 (`gateway.handle` minus the
 * codecs alone doing the same translation, as gateway.bench measures it) with no OpenTelemetry
 * SDK installed (the global no-op providers: the gateway makes no telemetry call), with
 * telemetry turned off explicitly, and with a real SDK installed and exporting — metrics read
 * every second and spans batched, both sent over OTLP/HTTP (protobuf) to a loopback collector.
 * Calls alternate the gateways one by one, in a fresh random order each pass, so the machine's
 * drift and what ran just before hit them alike.
 *
 * After each call the loop yields to the event loop (outside the timed window), as an app's
 * real I/O does between calls: without it a loop of in-process calls to a mock upstream never
 * leaves the microtask queue, so no timer runs — the SDK's metric reader and span batches never
 * export and its span queue overflows — and work the gateway leaves for after the answer would
 * pile up unmeasured. The time of the whole cycle (the call and the yield, in which that work
 * runs) is reported too: what the gateway costs per request, on the answer's path or not.
 * Targets: SDK ≤ 1.2× the added p50 without; no SDK unchanged (≈ 1.0× telemetry: false).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { ProxyTracerProvider, createNoopMeter, type MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { convertRequest, convertResponse, convertStream } from '../../packages/codecs/src/index.ts';
import { createGateway, createVirtualKey, type Gateway } from '../../packages/core/src/index.ts';
import { testRegistry } from '../support/gateway-fixture.ts';
import { FIXTURES_DIR } from '../support/fixtures.ts';

const responseJson = readFileSync(`${FIXTURES_DIR}anthropic-messages/response-cache-read.json`, 'utf8');
const streamText = readFileSync(`${FIXTURES_DIR}anthropic-messages/stream-text-then-tool-use-input-json-delta.sse`, 'utf8');
const streamBytes = new TextEncoder().encode(streamText);

function upstreamResponse(stream: boolean): Response {
  if (!stream) return new Response(responseJson, { headers: { 'content-type': 'application/json' } });
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < streamBytes.length; i += 512) controller.enqueue(streamBytes.subarray(i, i + 512));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

const body = (stream: boolean) =>
  JSON.stringify({ model: 'claude-sonnet', max_tokens: 512, stream, messages: [{ role: 'user', content: 'What is the weather in Paris?' }] });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** A seeded generator (mulberry32): the same sequence of orders in every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Fisher–Yates shuffle of `items`. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** One turn of the event loop: timers, I/O callbacks and immediates queued so far run. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A loopback OTLP/HTTP collector that takes everything and keeps nothing. */
async function startCollector() {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => void (bytes += c.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, stats: () => ({ requests, bytes }), close: () => new Promise<void>((r) => server.close(() => r())) };
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { key, hash } = await createVirtualKey();
  const collector = await startCollector();
  const meterProvider = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${collector.url}/v1/metrics` }),
        exportIntervalMillis: 1000,
        exportTimeoutMillis: 1000,
      }),
    ],
  });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }))] });

  const noMeters: ApiMeterProvider = { getMeter: () => createNoopMeter() };
  const make = (telemetry: Parameters<typeof createGateway>[0]['telemetry'] | 'default'): Gateway =>
    createGateway({
      registry: testRegistry('http://upstream.invalid'),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
      policy: {
        spend: {
          rules: [{ id: 'monthly', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000000' }, actions: [{ type: 'block' }] }] }],
        },
        rate_limits: [{ id: 'rpm', rpm: 100_000_000 }],
      },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-bench', OPENAI_API_KEY: 'sk-bench' },
      fetch: async (_input, init) =>
        upstreamResponse(JSON.parse(typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as Uint8Array)).stream === true),
      usage: () => {},
      ...(telemetry === 'default' ? {} : { telemetry }),
    });
  const propagator = new W3CTraceContextPropagator();
  const gateways = {
    none: make('default'),
    off: make(false),
    sdk: make({ meterProvider, tracerProvider, propagator }),
    metrics: make({ meterProvider, tracerProvider: new ProxyTracerProvider(), propagator }),
    traces: make({ meterProvider: noMeters, tracerProvider, propagator }),
  };
  const request = (stream: boolean) =>
    new Request('http://gw/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body(stream),
    });
  const codecsAlone = async (stream: boolean) => {
    const converted = convertRequest(JSON.parse(body(stream)), 'openai_chat', 'anthropic_messages', { model: 'claude-sonnet-4-5' });
    JSON.stringify(converted.body);
    const upstream = upstreamResponse(stream);
    if (stream) await new Response(convertStream(upstream.body!, 'anthropic_messages', 'openai_chat', { model: 'claude-sonnet' })).arrayBuffer();
    else JSON.stringify(convertResponse(JSON.parse(await upstream.text()), 'anthropic_messages', 'openai_chat', { model: 'claude-sonnet' }).body);
  };

  const lines: string[] = [];
  for (const stream of [false, true]) {
    const times: Record<'base' | keyof typeof gateways, number[]> = { base: [], none: [], off: [], sdk: [], metrics: [], traces: [] };
    const cycles: Record<keyof typeof times, number[]> = { base: [], none: [], off: [], sdk: [], metrics: [], traces: [] };
    /** One call: its latency (µs) is returned; the cycle with the yield after it is kept in `cycles`. */
    const once = async (which: keyof typeof times) => {
      let latency: number;
      let t: number;
      if (which === 'base') {
        t = performance.now();
        await codecsAlone(stream);
        latency = (performance.now() - t) * 1000;
      } else {
        const req = request(stream);
        t = performance.now();
        const res = await gateways[which].handle(req);
        await res.arrayBuffer();
        latency = (performance.now() - t) * 1000;
      }
      await yieldToLoop();
      cycles[which].push((performance.now() - t) * 1000);
      return latency;
    };
    const order = ['base', 'none', 'off', 'sdk', 'metrics', 'traces'] as const;
    const random = seeded(stream ? 2 : 1);
    for (let i = 0; i < 3000; i++) for (const w of order) await once(w); // JIT warm-up
    // 12 rounds of 500 calls each, all of them interleaved call by call.
    const rounds: Record<keyof typeof gateways, number[]> = { none: [], off: [], sdk: [], metrics: [], traces: [] };
    const cycleRounds: Record<keyof typeof gateways, number[]> = { none: [], off: [], sdk: [], metrics: [], traces: [] };
    /** Each round's added p50 over the one without SDK in that round: the machine's drift between rounds cancels. */
    const ratioRounds: Record<keyof typeof gateways, number[]> = { none: [], off: [], sdk: [], metrics: [], traces: [] };
    for (let round = 0; round < 12; round++) {
      const r: Record<keyof typeof times, number[]> = { base: [], none: [], off: [], sdk: [], metrics: [], traces: [] };
      for (const w of order) cycles[w].length = 0;
      // A fresh order for every pass: none of them always runs right after the same other (a
      // rotation keeps the cyclic order, so `none` would always follow the codecs baseline).
      for (let i = 0; i < 500; i++) for (const w of shuffled(order, random)) r[w].push(await once(w));
      const base = median(r.base);
      const baseCycle = median(cycles.base);
      const none = median(r.none) - base;
      for (const w of ['none', 'off', 'sdk', 'metrics', 'traces'] as const) {
        rounds[w].push(median(r[w]) - base);
        cycleRounds[w].push(median(cycles[w]) - baseCycle);
        ratioRounds[w].push((median(r[w]) - base) / none);
      }
      for (const w of order) times[w].push(...r[w]);
    }
    const added = {
      none: median(rounds.none),
      off: median(rounds.off),
      sdk: median(rounds.sdk),
      metrics: median(rounds.metrics),
      traces: median(rounds.traces),
    };
    const ratio = { off: median(ratioRounds.off), sdk: median(ratioRounds.sdk), metrics: median(ratioRounds.metrics), traces: median(ratioRounds.traces) };
    const cycle = { none: median(cycleRounds.none), sdk: median(cycleRounds.sdk) };
    const label = stream ? 'stream' : 'non-stream';
    lines.push(
      `${label}, OpenAI Chat → Anthropic, governed: in-process added p50 with no SDK installed ${added.none.toFixed(0)} µs, ` +
        `with telemetry: false ${added.off.toFixed(0)} µs (${(1 / ratio.off).toFixed(2)}×, target ≈ 1.0: unchanged), ` +
        `with an SDK installed and exporting over OTLP ${added.sdk.toFixed(0)} µs (${ratio.sdk.toFixed(2)}× without, target ≤ 1.2×; ` +
        `metrics alone ${added.metrics.toFixed(0)} µs, ${ratio.metrics.toFixed(2)}×; traces alone ${added.traces.toFixed(0)} µs, ${ratio.traces.toFixed(2)}×); ` +
        `per request with the work after the answer (call + one event-loop turn): ${cycle.none.toFixed(0)} µs with no SDK, ${cycle.sdk.toFixed(0)} µs with the SDK (${(cycle.sdk / cycle.none).toFixed(2)}×; not a target)`,
    );
  }
  await meterProvider.forceFlush();
  await tracerProvider.forceFlush();
  const sent = collector.stats();
  lines.push(
    `the loopback collector took ${sent.requests.toLocaleString('en-US')} OTLP exports (${(sent.bytes / 1024 / 1024).toFixed(1)} MiB) during the run: the SDK really exported`,
  );
  for (const g of Object.values(gateways)) await g.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  await collector.close();
  return { name: 'telemetry: in-process overhead of OpenTelemetry', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(`- ${line}`);
}
