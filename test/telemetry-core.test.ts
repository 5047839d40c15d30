/**
 * The gateway's telemetry in-process, with a real OpenTelemetry SDK: GenAI semantic-convention
 * metrics and tollgate's own after real traffic (ok, rejected, streamed, cancelled, failed over),
 * bounded label sets, one SERVER span per request with a CLIENT span per upstream attempt, the
 * caller's `traceparent` continued and the upstream call carrying one; `server-timing` and the
 * request id on every answer; with no SDK, nothing at all.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { createGateway, createMemoryStore, type PolicyFileInput, type StateStore, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, status, type Scenario } from './support/mock-upstream.js';
import { seriesOf, testSdk } from './support/otel.js';
import { createTelemetry } from '../packages/core/src/telemetry/instruments.js';
import { instrumentStore } from '../packages/core/src/telemetry/store.js';
import { TOKEN_BUCKETS, DURATION_BUCKETS, TTFT_BUCKETS } from '../packages/core/src/telemetry/semconv.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';

async function setup(options: { policy?: unknown; store?: StateStore; anthropic?: Scenario } = {}) {
  const traceparents: Array<string | null> = [];
  const capture =
    (scenario: Scenario): Scenario =>
    (request, body) => {
      traceparents.push(request.headers.get('traceparent'));
      return scenario(request, body);
    };
  const upstream = await startMockUpstream({
    anthropic: capture(options.anthropic ?? replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json')),
    'anthropic-backup': capture(replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json')),
    openai: capture(replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json', { chunkSize: 512, delayMs: 5 })),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  const sdk = testSdk();
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: testRegistry(upstream.url),
    policy: options.policy as PolicyFileInput | undefined,
    identity: ids.identity,
    secrets: SECRETS,
    ...(options.store === undefined ? {} : { store: options.store }),
    usage: (r) => void records.push(r),
    telemetry: sdk.telemetry,
  });
  cleanups.push(async () => {
    await gateway.close({ drainMs: 1000 });
    await sdk.shutdown();
    await upstream.close();
  });
  const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ids.keys.alice!}`, ...headers },
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      }),
    );
  return { gateway, sdk, records, post, traceparents, upstream, key: ids.keys.alice! };
}

// As large as the prompt the replayed answers billed (~1,500 cached tokens): usage past a request's bounds is not believed.
const SYSTEM = { role: 'system', content: 'You are a careful assistant. '.repeat(80) };
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [SYSTEM, { role: 'user', content: 'hello' }], ...extra });

describe('metrics after real traffic', () => {
  it('records the GenAI and tollgate series for ok, rejected, streamed and cancelled requests, with bounded labels', async () => {
    const cap = {
      spend: {
        rules: [{ id: 'opus-cap', matches: [{ match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'block' }] }] }],
      },
    };
    const { post, sdk, records } = await setup({ policy: cap });

    const ok = await post(chat('claude-sonnet'));
    expect(ok.status).toBe(200);
    await ok.json();
    const streamed = await post(chat('gpt-mini', { stream: true, stream_options: { include_usage: true } }));
    await streamed.text();
    const rejected = await post(chat('claude-opus'));
    expect(rejected.status).toBe(429);
    await rejected.text();
    const unknown = await post(chat('no-such-model'));
    expect(unknown.status).toBe(404);
    const controller = new AbortController();
    const cancelled = await post(chat('gpt-mini', { stream: true }), {}, controller.signal);
    const reader = cancelled.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    await expect.poll(() => records.length).toBe(5);
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok', 'rejected', 'rejected', 'cancelled']);

    const all = await sdk.series();
    // Requests by status and reason.
    const requests = seriesOf(all, 'tollgate.requests');
    const count = (status: string, reason: string) =>
      seriesOf(requests, 'tollgate.requests', { 'tollgate.status': status, 'tollgate.reason': reason }).reduce((n, s) => n + s.value, 0);
    expect(count('ok', 'none')).toBe(2);
    expect(count('rejected', 'spend_limit:opus-cap')).toBe(1);
    expect(count('rejected', 'model_not_found')).toBe(1);
    expect(count('cancelled', 'client_cancelled')).toBe(1);
    for (const s of requests)
      expect(Object.keys(s.attributes).sort()).toEqual(['tollgate.entry_format', 'tollgate.model', 'tollgate.reason', 'tollgate.status']);
    // The unknown model is not a label: a client's free text never becomes one.
    expect(requests.some((s) => s.attributes['tollgate.model'] === 'no-such-model')).toBe(false);

    // gen_ai.client.token.usage: input (cache included) and output per upstream call, with the spec's buckets.
    const tokens = seriesOf(all, 'gen_ai.client.token.usage', { 'tollgate.deployment': 'sonnet@anthropic' });
    const okRecord = records[0]!;
    const input = seriesOf(tokens, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'input' })[0]!;
    expect(input.unit).toBe('{token}');
    expect(input.boundaries).toEqual(TOKEN_BUCKETS);
    expect(input.sum).toBe(okRecord.usage!.input + okRecord.usage!.cache_read + okRecord.usage!.cache_write + okRecord.usage!.cache_write_1h);
    expect(seriesOf(tokens, 'gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' })[0]!.sum).toBe(okRecord.usage!.output);
    expect(input.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.token.type': 'input',
      'tollgate.deployment': 'sonnet@anthropic',
    });
    // Every token kind, cache and reasoning included, as a tollgate counter by model and deployment.
    const kinds = seriesOf(all, 'tollgate.tokens', { 'tollgate.model': 'claude-sonnet', 'tollgate.deployment': 'sonnet@anthropic' });
    const kind = (t: string) => kinds.find((s) => s.attributes['gen_ai.token.type'] === t)?.value;
    expect(kind('tollgate.cache_read')).toBe(okRecord.usage!.cache_read);
    expect(kind('tollgate.cache_write')).toBe(okRecord.usage!.cache_write);
    expect(kind('output')).toBe(okRecord.usage!.output);
    expect(kind('input')).toBe(input.sum);

    // gen_ai.client.operation.duration per upstream attempt (3 calls reached an upstream).
    const client = seriesOf(all, 'gen_ai.client.operation.duration');
    expect(client.reduce((n, s) => n + s.value, 0)).toBe(3);
    expect(client[0]!.unit).toBe('s');
    expect(client[0]!.boundaries).toEqual(DURATION_BUCKETS);
    expect(
      seriesOf(client, 'gen_ai.client.operation.duration', { 'gen_ai.provider.name': 'openai', 'tollgate.deployment': 'mini@openai' }).length,
    ).toBeGreaterThan(0);

    // gen_ai.server.request.duration per request, error.type on the refused and cancelled ones.
    const server = seriesOf(all, 'gen_ai.server.request.duration');
    expect(server.reduce((n, s) => n + s.value, 0)).toBe(5);
    expect(seriesOf(server, 'gen_ai.server.request.duration', { 'error.type': 'spend_limit' })[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-opus',
      'tollgate.entry_format': 'openai_chat',
    });
    expect(seriesOf(server, 'gen_ai.server.request.duration', { 'error.type': 'client_cancelled' }).length).toBe(1);
    expect(server.filter((s) => s.attributes['error.type'] === undefined).reduce((n, s) => n + s.value, 0)).toBe(2);

    // Time to first token and per output token: the successful stream only.
    const ttft = seriesOf(all, 'gen_ai.server.time_to_first_token');
    expect(ttft.map((s) => [s.attributes['gen_ai.response.model'], s.value])).toEqual([['gpt-mini', 1]]);
    expect(ttft[0]!.boundaries).toEqual(TTFT_BUCKETS);
    expect(seriesOf(all, 'gen_ai.server.time_per_output_token').reduce((n, s) => n + s.value, 0)).toBe(1);

    // Spend in micro-USD by model: exactly the records' costs.
    const spend = seriesOf(all, 'tollgate.spend.micro_usd');
    const byModel = (m: string) => seriesOf(spend, 'tollgate.spend.micro_usd', { 'tollgate.model': m }).reduce((n, s) => n + s.value, 0);
    const costOf = (m: string) => records.filter((r) => r.model === m).reduce((n, r) => n + (r.cost_micros?.total ?? 0), 0);
    expect(byModel('claude-sonnet')).toBe(costOf('claude-sonnet'));
    expect(byModel('gpt-mini')).toBe(costOf('gpt-mini'));
    expect(byModel('gpt-mini')).toBeGreaterThan(0);

    // Store round trips by operation; live holds back to zero; usage records handed and written.
    const store = seriesOf(all, 'tollgate.store.duration');
    const operations = new Set(store.map((s) => s.attributes['tollgate.store.operation']));
    for (const op of ['admit', 'settle']) expect(operations.has(op), op).toBe(true);
    expect(store[0]!.boundaries).toEqual([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);
    expect(seriesOf(all, 'tollgate.reservations.held')[0]!.value).toBe(0);
    expect(seriesOf(all, 'tollgate.usage.records', { 'tollgate.outcome': 'handed' })[0]!.value).toBe(5);
    expect(seriesOf(all, 'tollgate.usage.records', { 'tollgate.outcome': 'written' })[0]!.value).toBe(5);
    expect(seriesOf(all, 'tollgate.breaker.state', { 'tollgate.deployment': 'sonnet@anthropic' })[0]!.value).toBe(0);

    // No metric anywhere carries a principal, a key or a request id.
    for (const s of all) {
      for (const value of Object.values(s.attributes)) {
        expect(String(value)).not.toMatch(/alice|req_|tg_/);
      }
    }
  });
});

describe('DLP and policy prompts', () => {
  it('counts the values DLP acted on by entity and action, and the requests each policy prompt was placed in', async () => {
    const policy = {
      dlp: { default: { email: 'redact', phone: 'log' }, custom: [{ id: 'employee_id', pattern: 'EMP-[0-9]{6}' }] },
      prompts: [{ id: 'conduct', version: 3, match: {}, text: 'Be kind.' }],
    } satisfies PolicyFileInput;
    const { post, sdk, records } = await setup({ policy });
    const text = 'mail alice@example.com or bob@example.com, call +14155552671, badge EMP-123456';
    const res = await post({ model: 'claude-sonnet', messages: [{ role: 'user', content: text }] });
    expect(res.status).toBe(200);
    await res.text();
    await expect.poll(() => records.length).toBe(1);
    expect(records[0]!.dlp).toMatchObject({ email: { action: 'redact', count: 2 }, phone: { action: 'log', count: 1 } });
    const all = await sdk.series();
    const dlp = seriesOf(all, 'tollgate.dlp.actions');
    const count = (entity: string, action: string) =>
      seriesOf(dlp, 'tollgate.dlp.actions', { 'tollgate.dlp.entity': entity, 'tollgate.dlp.action': action, 'tollgate.dlp.direction': 'request' })[0]?.value;
    expect(count('email', 'redact')).toBe(2);
    expect(count('phone', 'log')).toBe(1);
    for (const s of dlp) expect(Object.keys(s.attributes).sort()).toEqual(['tollgate.dlp.action', 'tollgate.dlp.direction', 'tollgate.dlp.entity']);
    // Never a value found.
    expect(JSON.stringify(dlp)).not.toMatch(/example\.com|4155552671|EMP-/);
    expect(seriesOf(all, 'tollgate.policy_prompts', { 'tollgate.prompt': 'conduct@3' })[0]?.value).toBe(1);
  });
});

describe('reasons that name what a client or model chose', () => {
  it('a refused tool is counted under tool_not_allowed, whatever the client named it', async () => {
    const policy = { tools: { allow_lists: [{ id: 'weather-only', match: { users: ['alice'] }, allow: ['get_weather'] }] } } satisfies PolicyFileInput;
    const { post, sdk, records } = await setup({ policy });
    const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });
    for (const name of ['steal_keys', 'rm_rf', 'x_1', 'x_2']) {
      const res = await post(chat('claude-sonnet', { tools: [tool(name)] }));
      expect(res.status).toBe(403);
      await res.text();
    }
    await expect.poll(() => records.length).toBe(4);
    expect(records.map((r) => r.reason)).toEqual(['tool_not_allowed:steal_keys', 'tool_not_allowed:rm_rf', 'tool_not_allowed:x_1', 'tool_not_allowed:x_2']);
    const requests = seriesOf(await sdk.series(), 'tollgate.requests');
    expect(requests.map((s) => [s.attributes['tollgate.reason'], s.value])).toEqual([['tool_not_allowed', 4]]);
    await expect.poll(() => sdk.spans().length).toBe(4);
    expect(
      sdk
        .spans()
        .map((s) => s.attributes['tollgate.reason'])
        .sort(),
    ).toEqual(records.map((r) => r.reason).sort());
  });
});

describe('traces', () => {
  it('continues the caller’s traceparent: SERVER span, CLIENT child per attempt, traceparent sent upstream', async () => {
    const { post, sdk, traceparents, records } = await setup({
      anthropic: status(503, { type: 'error', error: { type: 'overloaded_error', message: 'busy' } }),
    });
    const res = await post(chat('claude-sonnet'), { traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01` });
    expect(res.status).toBe(200);
    await res.json();
    await expect.poll(() => sdk.spans().length).toBe(3);
    const spans = sdk.spans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const clients = spans
      .filter((s) => s.kind === SpanKind.CLIENT)
      .sort((a, b) => (a.attributes['tollgate.attempt'] as number) - (b.attributes['tollgate.attempt'] as number));
    expect(server.spanContext().traceId).toBe(INCOMING_TRACE);
    expect(server.parentSpanContext?.spanId).toBe(INCOMING_SPAN);
    expect(server.name).toBe('chat claude-sonnet');
    const record = records[0]!;
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet',
      'gen_ai.response.model': 'claude-sonnet',
      'tollgate.request_id': record.request_id,
      'tollgate.principal.id': 'alice',
      'tollgate.status': 'ok',
      'tollgate.deployment': 'sonnet@backup',
      'tollgate.attempts': 2,
      'tollgate.cost_micros': record.cost_micros!.total,
      'gen_ai.usage.output_tokens': record.usage!.output,
      'http.response.status_code': 200,
    });
    expect(
      clients.map((c) => [c.name, c.attributes['tollgate.deployment'], c.attributes['http.response.status_code'], c.attributes['error.type'] ?? null]),
    ).toEqual([
      ['chat claude-sonnet-4-5', 'sonnet@anthropic', 503, '503'],
      ['chat claude-sonnet-4-5', 'sonnet@backup', 200, null],
    ]);
    for (const c of clients) {
      expect(c.spanContext().traceId).toBe(INCOMING_TRACE);
      expect(c.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(c.attributes['server.address']).toBe('127.0.0.1');
    }
    expect(clients[1]!.attributes['gen_ai.usage.output_tokens']).toBe(record.usage!.output);
    // Each upstream call carried its own CLIENT span as parent.
    expect(traceparents).toEqual(clients.map((c) => `00-${INCOMING_TRACE}-${c.spanContext().spanId}-01`));
  });

  it('starts a new trace without a traceparent, and ends a refused request’s span with its reason', async () => {
    const { post, sdk } = await setup();
    const res = await post(chat('no-such-model'));
    expect(res.status).toBe(404);
    await expect.poll(() => sdk.spans().length).toBe(1);
    const [span] = sdk.spans();
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.parentSpanContext).toBeUndefined();
    expect(span!.attributes).toMatchObject({ 'tollgate.status': 'rejected', 'tollgate.reason': 'model_not_found', 'gen_ai.request.model': 'no-such-model' });
  });
});

describe('the SDK’s work comes after the answer', () => {
  it('an answer is handed back before its spans end and its metrics are recorded; a collection right after it still sees them', async () => {
    const { gateway, sdk, records, key } = await setup();
    const answer = await gateway.reply(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(chat('claude-sonnet')),
      }),
    );
    expect(answer.status).toBe(200);
    // The record is written (no `defer` was offered), but the SDK has not been called yet.
    expect(records).toHaveLength(1);
    expect(sdk.spans()).toHaveLength(0);
    // A metric collection hands over what is pending first: nothing is missing from it.
    const all = await sdk.series();
    expect(seriesOf(all, 'gen_ai.server.request.duration').reduce((n, s) => n + s.value, 0)).toBe(1);
    expect(seriesOf(all, 'gen_ai.client.operation.duration').reduce((n, s) => n + s.value, 0)).toBe(1);
    expect(seriesOf(all, 'tollgate.store.duration').length).toBeGreaterThan(0);
    expect(sdk.spans()).toHaveLength(2);
  });

  it('spans carry the times measured during the request: the SERVER span spans the request, the CLIENT span its upstream call', async () => {
    const { post, sdk, records } = await setup();
    const res = await post(chat('gpt-mini', { stream: true }));
    await res.text();
    await expect.poll(() => sdk.spans().length).toBe(2);
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    const server = sdk.spans().find((s) => s.kind === SpanKind.SERVER)!;
    const client = sdk.spans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(ms(server.startTime)).toBeLessThanOrEqual(ms(client.startTime));
    expect(ms(client.endTime)).toBeLessThanOrEqual(ms(server.endTime));
    // The stream is paced (5 ms per chunk): the client span lasts as long as the upstream stream did.
    expect(ms(client.duration)).toBeGreaterThan(5);
    expect(Math.abs(ms(server.duration) - records[0]!.duration_ms)).toBeLessThan(5);
    expect(new Date(ms(server.startTime)).toISOString().slice(0, 16)).toBe(records[0]!.ts.slice(0, 16));
  });

  it('a CLIENT span stays inside its SERVER span when the wall clock moves between their starts', async () => {
    const { post, sdk } = await setup();
    // Each read of the wall clock is 3 ms later than the last (a clock being slewed, or reads a
    // millisecond apart): times taken on the performance clock keep their measured order anyway.
    const real = Date.now.bind(Date);
    let reads = 0;
    const now = vi.spyOn(Date, 'now').mockImplementation(() => real() + 3 * reads++);
    try {
      const res = await post(chat('gpt-mini', { stream: true }));
      await res.text();
      await expect.poll(() => sdk.spans().length).toBe(2);
    } finally {
      now.mockRestore();
    }
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    const server = sdk.spans().find((s) => s.kind === SpanKind.SERVER)!;
    const client = sdk.spans().find((s) => s.kind === SpanKind.CLIENT)!;
    expect(ms(server.startTime)).toBeLessThanOrEqual(ms(client.startTime));
    expect(ms(client.endTime)).toBeLessThanOrEqual(ms(server.endTime));
  });

  it('close() hands everything pending to the SDK', async () => {
    const { post, sdk, gateway } = await setup();
    const res = await post(chat('no-such-model'));
    await res.text();
    await gateway.close();
    expect(sdk.spans()).toHaveLength(1);
  });
});

describe('what the upstream call carries', () => {
  it('the trace context, never the caller’s baggage (with a baggage propagator installed too)', async () => {
    const seen: Array<Record<string, string | null>> = [];
    const upstream = await startMockUpstream({
      openai: (request, body) => {
        seen.push({ traceparent: request.headers.get('traceparent'), baggage: request.headers.get('baggage') });
        return replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json')(request, body);
      },
    });
    const ids = await keysFor({ user: 'alice', tier: 'normal' });
    const sdk = testSdk();
    const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      identity: ids.identity,
      secrets: SECRETS,
      usage: () => {},
      telemetry: { ...sdk.telemetry, propagator },
    });
    cleanups.push(async () => {
      await gateway.close({ drainMs: 1000 });
      await sdk.shutdown();
      await upstream.close();
    });
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${ids.keys.alice!}`,
          traceparent: `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01`,
          baggage: 'user.email=alice%40example.com,tenant=acme',
        },
        body: JSON.stringify(chat('gpt-mini')),
      }),
    );
    expect(res.status).toBe(200);
    await res.text();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.traceparent).toMatch(new RegExp(`^00-${INCOMING_TRACE}-[0-9a-f]{16}-01$`));
    expect(seen[0]!.baggage).toBeNull();
  });
});

describe('a hostile client and the spans', () => {
  it('a model name the client made up is never a span name, and is cut to 256 characters on the span', async () => {
    const { post, sdk } = await setup();
    const made = ['ignore-previous-instructions-', 'x'.repeat(10_000)].join('');
    for (const model of [made, `${made}-2`, 'claude-sonnet']) await (await post(chat(model))).text();
    await expect.poll(() => sdk.spans().filter((s) => s.kind === SpanKind.SERVER).length).toBe(3);
    const servers = sdk.spans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers.map((s) => s.name).sort()).toEqual(['chat', 'chat', 'chat claude-sonnet']);
    for (const s of servers) expect(String(s.attributes['gen_ai.request.model']).length).toBeLessThanOrEqual(257);
    expect(servers.find((s) => s.attributes['tollgate.reason'] === 'model_not_found')!.attributes['gen_ai.request.model']).toBe(`${made.slice(0, 256)}…`);
  });
});

describe('server-timing and the request id on every answer', () => {
  it('ok, streamed, refused and not-found answers all carry them', async () => {
    const { post, gateway } = await setup();
    const answers = [
      await post(chat('claude-sonnet')),
      await post(chat('gpt-mini', { stream: true })),
      await post(chat('no-such-model')),
      await gateway.handle(new Request('http://gw/nowhere', { method: 'POST', body: '{}' })),
    ];
    for (const res of answers) {
      await res.text();
      expect(res.headers.get('x-tollgate-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
      expect(res.headers.get('server-timing')).toMatch(/^gateway;dur=\d+(\.\d)?, upstream;dur=\d+(\.\d)?/);
    }
    expect(answers[0]!.headers.get('server-timing')).toMatch(/ttfb;dur=/);
    expect(answers[1]!.headers.get('server-timing')).toMatch(/ttfb;dur=/);
    const upstream = Number(/upstream;dur=([\d.]+)/.exec(answers[0]!.headers.get('server-timing')!)![1]);
    expect(upstream).toBeGreaterThan(0);
    expect(answers[2]!.headers.get('server-timing')).toMatch(/upstream;dur=0(,|$)/);
  });
});

describe('store and settle telemetry', () => {
  it('counts a settle the store failed and the retry of it, and times failed round trips by error class', async () => {
    const inner = createMemoryStore();
    let failures = 1;
    const store: StateStore = Object.assign(Object.create(inner) as StateStore, {
      settle: async (request: Parameters<StateStore['settle']>[0]) => {
        if (failures-- > 0) throw Object.assign(new Error('blip'), { name: 'StoreUnavailableError' });
        return inner.settle(request);
      },
    });
    const cap = {
      spend: { rules: [{ id: 'big', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000' }, actions: [{ type: 'block' }] }] }] },
    };
    const { post, sdk, gateway } = await setup({ policy: cap, store });
    const res = await post(chat('claude-sonnet'));
    await res.text();
    // The gateway retries the settle until the store takes it: nothing fails in the end.
    await expect.poll(() => gateway.stats().settleRetries).toBeGreaterThanOrEqual(1);
    await expect.poll(() => gateway.stats().settlesPending).toBe(0);
    expect(gateway.stats().settleFailures).toBe(0);
    const all = await sdk.series();
    expect(seriesOf(all, 'tollgate.settle.retries')[0]!.value).toBe(1);
    expect(seriesOf(all, 'tollgate.settle.failures')).toEqual([]);
    expect(seriesOf(all, 'tollgate.store.duration', { 'tollgate.store.operation': 'settle', 'error.type': 'StoreUnavailableError' })[0]!.value).toBe(1);
    // The retried settle replaced the hold.
    expect(seriesOf(all, 'tollgate.reservations.held')[0]!.value).toBe(0);
    await inner.close();
  });

  it('counts a settle that never succeeded once the drain time is up, its hold still counted until its TTL', async () => {
    const inner = createMemoryStore();
    const store: StateStore = Object.assign(Object.create(inner) as StateStore, {
      settle: async () => {
        throw Object.assign(new Error('down'), { name: 'StoreUnavailableError' });
      },
    });
    const cap = {
      spend: { rules: [{ id: 'big', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000' }, actions: [{ type: 'block' }] }] }] },
    };
    const { post, sdk, gateway } = await setup({ policy: cap, store });
    const res = await post(chat('claude-sonnet'));
    await res.text();
    expect(gateway.stats().settlesPending).toBe(1);
    // While it is retried, its hold is kept (renewed) and counted.
    expect(seriesOf(await sdk.series(), 'tollgate.reservations.held')[0]!.value).toBe(1);
    await gateway.close({ drainMs: 300 });
    expect(gateway.stats()).toMatchObject({ settleFailures: 1, settlesPending: 0 });
    expect(seriesOf(await sdk.series(), 'tollgate.settle.failures')[0]!.value).toBe(1);
    await inner.close();
  });

  it('a settle tried again for an id whose settle failed counts as a retry, whoever retries it', async () => {
    const sdk = testSdk();
    const m = createTelemetry(sdk.telemetry)!.metrics!;
    const inner = createMemoryStore();
    let failures = 2;
    const flaky: StateStore = Object.assign(Object.create(inner) as StateStore, {
      settle: async (request: Parameters<StateStore['settle']>[0]) => {
        if (failures-- > 0) throw new Error('blip');
        return inner.settle(request);
      },
    });
    const store = instrumentStore(flaky, m);
    expect(await store.reserve({ id: 'r1', amount: 500, ttlMs: 60_000, constraints: [{ key: 'k', limit: 1000, counters: ['c'] }] })).toEqual({ ok: true });
    const settle = () => store.settle({ id: 'r1', charges: [{ counter: 'c', amount: 100 }] });
    await expect(settle()).rejects.toThrow('blip');
    await expect(settle()).rejects.toThrow('blip');
    expect(await settle()).toBe(true);
    const all = await sdk.series();
    expect(seriesOf(all, 'tollgate.settle.retries')[0]!.value).toBe(2);
    expect({ count: m.holds.count, micros: m.holds.micros }).toEqual({ count: 0, micros: 0 });
    await inner.close();
    await sdk.shutdown();
  });
});

describe('a store whose errors carry ever new names', () => {
  it('cannot grow tollgate.store.duration without bound', async () => {
    const sdk = testSdk();
    const m = createTelemetry(sdk.telemetry)!.metrics!;
    const inner = createMemoryStore();
    let n = 0;
    const odd: StateStore = Object.assign(Object.create(inner) as StateStore, {
      hasMarker: async () => {
        const name = `Failure${String.fromCharCode(65 + (n % 26))}${String.fromCharCode(65 + (Math.floor(n / 26) % 26))}`;
        n++;
        throw Object.assign(new Error('odd'), { name });
      },
    });
    const store = instrumentStore(odd, m);
    for (let i = 0; i < 500; i++) await store.hasMarker('k').catch(() => {});
    const series = seriesOf(await sdk.series(), 'tollgate.store.duration', { 'tollgate.store.operation': 'has_marker' });
    expect(series.length).toBeLessThanOrEqual(101);
    expect(series.reduce((c, s) => c + s.value, 0)).toBe(500);
    expect(series.some((s) => s.attributes['error.type'] === '_OTHER')).toBe(true);
    await inner.close();
    await sdk.shutdown();
  });
});

describe('without an SDK', () => {
  it('the global no-op providers give no telemetry at all, and telemetry: false turns it off', () => {
    expect(createTelemetry(undefined)).toBeNull();
    expect(createTelemetry(false)).toBeNull();
    const sdk = testSdk();
    expect(createTelemetry(sdk.telemetry)).not.toBeNull();
    void sdk.shutdown();
  });
});
