/**
 * `tollgate serve` with `telemetry:` and `log: { access: stdout }`, as a real process: after real
 * SDK traffic (ok, streamed, rejected, cancelled) `/metrics` has the GenAI and tollgate series
 * with their label sets; an OTLP/HTTP receiver gets the spans with their attributes and parent
 * ids; every answer carries `server-timing` and `x-tollgate-request-id`; the access log has a
 * line per request and no prompt text; the shutdown line says what the sink and the exporters
 * did. And the bad inputs: a busy metrics port and an unreachable collector leave traffic alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadService, startService } from '@tollgate/adapters-node';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { startSlowUpstream, type SlowUpstream } from '../packages/adapters-node/src/__tests__/slow-upstream.js';
import { CLI, jsonLines, spawnTs } from './cli-support.js';

let upstream: MockUpstream;
let slow: SlowUpstream;
let key: string;
let identity: unknown;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** A minimal OTLP/HTTP JSON receiver: keeps every span and counts metric exports. */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  let metricExports = 0;
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as {
        resourceSpans?: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      if (req.url === '/v1/traces') for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      if (req.url === '/v1/metrics') metricExports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, metricExports: () => metricExports, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function registryFor(replayUrl: string, slowUrl: string) {
  const base = testRegistry(replayUrl);
  return {
    ...base,
    providers: { ...base.providers, endless: { base_url: `${slowUrl}/endless`, credential: 'openai' } },
    operations: [...base.operations, { provider: 'endless', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
    models: {
      ...base.models,
      'endless-model': {
        brand: 'openai',
        entry_formats: ['openai_chat'],
        capabilities: { max_output_tokens: 1000 },
        deployments: [
          {
            id: 'endless@openai',
            provider: 'endless',
            format: 'openai_chat',
            upstream_model: 'gpt-4o-mini',
            pricing: { unit: 'usd_per_mtok', input: '1', output: '1' },
          },
        ],
      },
    },
  };
}

function writeService(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-telemetry-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(registryFor(upstream.url, slow.url)));
  writeFileSync(
    join(dir, 'policy.yaml'),
    stringify({
      spend: {
        rules: [{ id: 'opus-cap', matches: [{ match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'block' }] }] }],
      },
    }),
  );
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({ listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', policy: './policy.yaml', identity, ...config }),
  );
  return join(dir, 'tollgate.yaml');
}

/** Prometheus text → samples: name, labels, value. */
function parseMetrics(text: string) {
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json', { chunkSize: 512 }),
  });
  slow = await startSlowUpstream({ tickMs: 30, ticks: 30 });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  key = ids.keys.alice!;
  identity = ids.identity;
});

afterAll(async () => {
  await upstream?.close();
  await slow?.close();
});

describe('tollgate serve with telemetry', () => {
  it('exposes /metrics, exports spans over OTLP, times every answer and logs every request', async () => {
    const receiver = await startReceiver();
    const file = writeService({
      usage: 'stdout',
      log: { access: 'stdout' },
      telemetry: {
        prometheus: { host: '127.0.0.1', port: 0 },
        otlp: { endpoint: receiver.url, protocol: 'http/json', headers: { 'x-team': 'sre' } },
        service_name: 'tollgate-test',
      },
    });
    const p = spawnTs([CLI, 'serve', '--config', file], { env: { ...SECRETS, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_METRIC_EXPORT_INTERVAL: '300' } });
    try {
      const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const [, metricsUrl] = await p.waitFor('stderr', /prometheus (http:\/\/127\.0\.0\.1:\d+\/metrics)/);
      const client = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
      const secret = 'the-prompt-text-must-never-be-logged';

      // ok, whole answer, with a caller's trace context.
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const ok = await client.chat.completions
        .create({ model: 'claude-sonnet', messages: [{ role: 'user', content: secret }] }, { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } })
        .withResponse();
      expect(ok.response.headers.get('server-timing')).toMatch(/^gateway;dur=[\d.]+, upstream;dur=[\d.]+, ttfb;dur=[\d.]+$/);
      expect(ok.response.headers.get('x-tollgate-request-id')).toMatch(/^req_/);
      // streamed
      const stream = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: secret }], stream: true });
      for await (const _ of stream) void _;
      // rejected by the spend cap
      const rejected = await client.chat.completions.create({ model: 'claude-opus', messages: [{ role: 'user', content: secret }] }).catch((e: unknown) => e);
      expect(rejected).toBeInstanceOf(OpenAI.RateLimitError);
      expect((rejected as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('server-timing')).toMatch(/^gateway;dur=/);
      // cancelled mid-stream by the client
      const controller = new AbortController();
      const endless = await client.chat.completions.create(
        { model: 'endless-model', messages: [{ role: 'user', content: secret }], stream: true },
        { signal: controller.signal },
      );
      let chunks = 0;
      await (async () => {
        for await (const _ of endless) if (++chunks === 3) controller.abort();
      })().catch(() => {});

      // Usage records (flushed at least every second) for all four.
      await expect.poll(() => jsonLines(p.stdout()).filter((l) => l.schema === 1).length, { timeout: 5000 }).toBe(4);
      const records = jsonLines(p.stdout()).filter((l) => l.schema === 1);
      expect(records.map((r) => r.status).sort()).toEqual(['cancelled', 'ok', 'ok', 'rejected']);

      // /metrics: the series and their label sets.
      const text = await (await fetch(metricsUrl!)).text();
      const samples = parseMetrics(text);
      const find = (name: string, labels: Record<string, string> = {}) =>
        samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      const total = (name: string, labels: Record<string, string> = {}) => find(name, labels).reduce((n, s) => n + s.value, 0);
      expect(total('tollgate_requests_total', { tollgate_status: 'ok', tollgate_reason: 'none' })).toBe(2);
      expect(total('tollgate_requests_total', { tollgate_status: 'rejected', tollgate_reason: 'spend_limit:opus-cap', tollgate_model: 'claude-opus' })).toBe(1);
      expect(total('tollgate_requests_total', { tollgate_status: 'cancelled', tollgate_reason: 'client_cancelled', tollgate_model: 'endless-model' })).toBe(1);
      const labelSet = (name: string) =>
        new Set(
          find(name).map((s) =>
            Object.keys(s.labels)
              .filter((k) => !k.startsWith('otel_scope_'))
              .sort()
              .join(','),
          ),
        );
      expect(labelSet('tollgate_requests_total')).toEqual(new Set(['tollgate_entry_format,tollgate_model,tollgate_reason,tollgate_status']));
      expect(find('gen_ai_client_token_usage_bucket', { gen_ai_token_type: 'input', tollgate_deployment: 'sonnet@anthropic', le: '1024' }).length).toBe(1);
      expect(labelSet('gen_ai_client_token_usage_count')).toEqual(
        new Set(['gen_ai_operation_name,gen_ai_provider_name,gen_ai_request_model,gen_ai_token_type,tollgate_deployment']),
      );
      const sonnet = records.find((r) => r.model === 'claude-sonnet')!.usage as { cache_read: number };
      expect(total('tollgate_tokens_total', { gen_ai_token_type: 'tollgate.cache_read', tollgate_model: 'claude-sonnet' })).toBe(sonnet.cache_read);
      expect(total('gen_ai_client_operation_duration_seconds_count') + total('gen_ai_client_operation_duration_count')).toBe(3);
      expect(total('gen_ai_server_request_duration_count')).toBe(4);
      expect(total('gen_ai_server_request_duration_count', { error_type: 'client_cancelled' })).toBe(1);
      expect(total('gen_ai_server_time_to_first_token_count', { gen_ai_response_model: 'gpt-mini' })).toBe(1);
      const spend = records.filter((r) => r.model === 'gpt-mini').reduce((n, r) => n + ((r.cost_micros as { total: number } | null)?.total ?? 0), 0);
      expect(total('tollgate_spend_micro_usd_total', { tollgate_model: 'gpt-mini' })).toBe(spend);
      expect(total('tollgate_usage_records_total', { tollgate_outcome: 'handed' })).toBe(4);
      expect(find('tollgate_reservations_held').length).toBe(1);
      expect(find('tollgate_store_duration_count', { tollgate_store_operation: 'admit' }).length).toBe(1);
      expect(find('tollgate_breaker_state', { tollgate_deployment: 'mini@openai' })[0]!.value).toBe(0);
      // No principal, key, request id or prompt text in any label.
      expect(text).not.toMatch(/alice|req_[0-9a-f]{8}|tg_|the-prompt-text/);

      // OTLP: spans with attributes and parent ids.
      await expect.poll(() => receiver.spans.filter((s) => s.kind === 2).length, { timeout: 5000 }).toBe(4);
      const attr = (s: OtlpSpan, k: string) => {
        const v = s.attributes.find((a) => a.key === k)?.value;
        return v === undefined ? undefined : (v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue);
      };
      const okServer = receiver.spans.find((s) => s.kind === 2 && s.traceId === traceId)!;
      expect(okServer.name).toBe('chat claude-sonnet');
      expect(okServer.parentSpanId).toBe('b7ad6b7169203331');
      expect(attr(okServer, 'tollgate.request_id')).toBe(ok.response.headers.get('x-tollgate-request-id'));
      expect(attr(okServer, 'tollgate.principal.id')).toBe('alice');
      const okClient = receiver.spans.find((s) => s.kind === 3 && s.traceId === traceId)!;
      expect(okClient.parentSpanId).toBe(okServer.spanId);
      expect(attr(okClient, 'gen_ai.request.model')).toBe('claude-sonnet-4-5');
      expect(upstream.requests.find((r) => r.headers.traceparent?.includes(traceId))?.headers.traceparent).toBe(`00-${traceId}-${okClient.spanId}-01`);
      const rejectedServer = receiver.spans.find((s) => s.kind === 2 && attr(s, 'tollgate.status') === 'rejected')!;
      expect(attr(rejectedServer, 'tollgate.reason')).toBe('spend_limit:opus-cap');
      await expect.poll(() => receiver.metricExports(), { timeout: 5000 }).toBeGreaterThan(0);

      // The access log: one line per request, no prompt text, no query string.
      // Lines are written at least every second.
      await expect.poll(() => jsonLines(p.stdout()).filter((l) => l.log === 'access').length, { timeout: 5000 }).toBe(4);
      const access = jsonLines(p.stdout()).filter((l) => l.log === 'access');
      expect(access.find((l) => l.request_id === ok.response.headers.get('x-tollgate-request-id'))).toMatchObject({
        method: 'POST',
        path: '/v1/chat/completions',
        status: 200,
        completed: true,
      });
      expect(access.find((l) => l.status === 429)).toBeDefined();
      expect(p.stdout()).not.toContain(secret);

      p.kill('SIGTERM');
      const { code } = await p.exited;
      expect(code).toBe(0);
      expect(p.stderr()).toMatch(
        /stopped — 4 requests; usage records: 4 handed, 4 written, 0 still queued, 0 dropped, 0 failed \(0 lost\); telemetry: \d+ spans exported, 0 lost/,
      );
    } finally {
      p.kill('SIGKILL');
      await receiver.close();
    }
  });

  it('the access log of a request the client left before its answer: 499, not completed, with the request id of its record', async () => {
    // An upstream that takes its time with a whole answer.
    const stalling = createServer((_req, res) => {
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 5000);
      res.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const stallUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    const file = writeService({ usage: 'stdout', log: { access: 'stdout' } });
    const registry = registryFor(upstream.url, slow.url);
    registry.providers.openai = { ...registry.providers.openai, base_url: `${stallUrl}/openai` };
    writeFileSync(join(file, '..', 'registry.yaml'), stringify(registry));
    const p = spawnTs([CLI, 'serve', '--config', file], { env: SECRETS });
    try {
      const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const controller = new AbortController();
      const leaving = fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 300);
      expect(await leaving).toBeInstanceOf(Error);
      await expect.poll(() => jsonLines(p.stdout()).filter((l) => l.log === 'access').length, { timeout: 5000 }).toBe(1);
      await expect.poll(() => jsonLines(p.stdout()).filter((l) => l.schema === 1).length, { timeout: 5000 }).toBe(1);
      const record = jsonLines(p.stdout()).find((l) => l.schema === 1)!;
      expect(record).toMatchObject({ status: 'cancelled', http_status: 499 });
      expect(jsonLines(p.stdout()).find((l) => l.log === 'access')).toMatchObject({ status: 499, completed: false, request_id: record.request_id });
    } finally {
      p.kill('SIGKILL');
      stalling.closeAllConnections();
      await new Promise<void>((r) => stalling.close(() => r()));
    }
  });

  it('a busy metrics port and an unreachable collector leave traffic alone, each said once', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const busyPort = (busy.address() as AddressInfo).port;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const lines: string[] = [];
    // Credentials in the endpoint never reach a log line.
    const loaded = await loadService(
      writeService({ usage: 'none', telemetry: { prometheus: { port: busyPort }, otlp: { endpoint: `http://sre:s3cret-token@127.0.0.1:${deadPort}` } } }),
    );
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const saved = { ...process.env };
    // The exporter retries a refused connection until its timeout: keep that short here.
    Object.assign(process.env, SECRETS, { OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_TIMEOUT: '500' });
    const service = await startService(loaded.service, { log: (l) => void lines.push(l) });
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT;
    try {
      expect(service.metricsUrl).toBeNull();
      expect(lines.join('\n')).toMatch(
        new RegExp(`cannot serve metrics on 127\\.0\\.0\\.1:${busyPort} \\(.*EADDRINUSE.*\\); serving traffic without /metrics`),
      );
      const client = new OpenAI({ apiKey: key, baseURL: `${service.url}/v1`, maxRetries: 0 });
      for (let i = 0; i < 3; i++) {
        const answer = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
        expect(answer.choices[0]!.message.content).toBeTypeOf('string');
      }
      await expect.poll(() => lines.filter((l) => /OTLP trace export to .* failed \(/.test(l)).length, { timeout: 8000 }).toBe(1);
      expect(lines.join('\n')).toMatch(/traffic is unaffected, lost data is counted/);
    } finally {
      await service.shutdown();
      await new Promise<void>((r) => busy.close(() => r()));
      for (const k of Object.keys(SECRETS)) if (saved[k] === undefined) delete process.env[k];
    }
    expect(lines.at(-1)).toMatch(/telemetry: 0 spans exported, [1-9]\d* lost/);
    expect(lines.join('\n')).toMatch(new RegExp(`OTLP trace export to http://\\*\\*\\*@127\\.0\\.0\\.1:${deadPort}`));
    expect(lines.join('\n')).not.toContain('s3cret-token');
  });

  it('a collector that hangs: traffic unaffected, spans the full queue dropped counted as lost, shutdown bounded', async () => {
    // Accepts connections and never answers.
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const loaded = await loadService(writeService({ usage: 'none', telemetry: { otlp: { endpoint: hangingUrl, protocol: 'http/json' } } }));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const saved = { ...process.env };
    // A queue of 2 spans, batches of 2, no timer: the third span on waits behind an export that
    // never returns (the exporter's own timeout is its default, 10 s).
    const env = { OTEL_BSP_MAX_QUEUE_SIZE: '2', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2', OTEL_BSP_SCHEDULE_DELAY: '60000' };
    Object.assign(process.env, SECRETS, env);
    const service = await startService(loaded.service, { log: (l) => void lines.push(l) });
    for (const k of Object.keys(env)) delete process.env[k];
    try {
      const client = new OpenAI({ apiKey: key, baseURL: `${service.url}/v1`, maxRetries: 0 });
      for (let i = 0; i < 6; i++) {
        const started = performance.now();
        const answer = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
        expect(answer.choices[0]!.message.content).toBeTypeOf('string');
        expect(performance.now() - started).toBeLessThan(2000);
      }
      const stopping = performance.now();
      await service.shutdown();
      // Bounded: the exporter would wait 10 s for the collector; shutdown does not.
      expect(performance.now() - stopping).toBeLessThan(8000);
    } finally {
      await service.shutdown();
      hanging.closeAllConnections();
      await new Promise<void>((r) => hanging.close(() => r()));
      for (const k of Object.keys(SECRETS)) if (saved[k] === undefined) delete process.env[k];
    }
    // 6 requests, a SERVER and a CLIENT span each: none reached the collector.
    expect(lines.at(-1)).toMatch(/telemetry: 0 spans exported, 12 lost/);
  }, 15_000);

  it('refuses a telemetry section with no exporter, and an unsupported protocol', async () => {
    for (const [telemetry, message] of [
      [{ service_name: 'x' }, /telemetry needs prometheus and\/or otlp/],
      [{ otlp: { protocol: 'grpc' } }, /gRPC is not supported/],
      [{ prometheus: { port: 70000 } }, /telemetry\.prometheus\.port/],
    ] as const) {
      const loaded = await loadService(writeService({ telemetry }));
      expect(loaded.ok).toBe(false);
      if (!loaded.ok) expect(loaded.errors.map((e) => `${e.path}: ${e.message}`).join('\n')).toMatch(message);
    }
  });
});
