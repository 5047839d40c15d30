import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

let upstream: MockUpstream;
let keys: Record<string, string>;
let records: UsageRecord[];
let gateway: ReturnType<typeof createGateway>;

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text-then-tool-use-input-json-delta.sse', 'anthropic-messages/response-cache-read.json'),
    openai: replay('openai-chat/stream-tool-call-include-usage.sse', 'openai-chat/response-tool-calls.json'),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  keys = ids.keys;
  records = [];
  gateway = createGateway({
    registry: testRegistry(upstream.url),
    identity: ids.identity,
    secrets: SECRETS,
    usage: (r) => void records.push(r),
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const lastRecord = () => records[records.length - 1]!;
/**
 * The recorded Anthropic answers bill a cached system prompt of about 1,500 tokens; a request
 * must carry that much for the usage to be believed (the gateway holds reported usage to the
 * request's prompt bound).
 */
const SYSTEM = { role: 'system', content: 'You are a careful assistant. '.repeat(80) } as const;

describe('OpenAI SDK → Anthropic upstream, in-process through gateway.fetch', () => {
  it('streams a translated answer: text, tool arguments and usage as the SDK assembles them', async () => {
    const client = new OpenAI({ apiKey: keys.alice, baseURL: 'http://tollgate.local/v1', fetch: gateway.fetch, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'claude-sonnet-latest',
      messages: [SYSTEM, { role: 'user', content: 'What is the weather in San Francisco?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call.type).toBe('function');
    if (call.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBeTypeOf('string');
    expect(() => JSON.parse(call.function.arguments)).not.toThrow();
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
    expect(final.model).toBe('claude-sonnet-latest');

    const rec = lastRecord();
    expect(rec.status).toBe('ok');
    expect(rec.entry_format).toBe('openai_chat');
    expect(rec.upstream_format).toBe('anthropic_messages');
    expect(rec.model).toBe('claude-sonnet');
    expect(rec.requested_model).toBe('claude-sonnet-latest');
    expect(rec.deployment).toBe('sonnet@anthropic');
    expect(rec.usage?.measured).toBe(true);
    expect(rec.tools_declared).toEqual(['get_weather']);
    expect(rec.tools_invoked.length).toBeGreaterThan(0);
    expect(rec.stream).toBe(true);
  });

  it('sends the brokered credential upstream, never the caller key', async () => {
    const client = new OpenAI({ apiKey: keys.alice, baseURL: 'http://tollgate.local/v1', fetch: gateway.fetch, maxRetries: 0 });
    await client.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    const seen = upstream.requests[upstream.requests.length - 1]!;
    expect(seen.path).toBe('/anthropic/v1/messages');
    expect(seen.headers['x-api-key']).toBe(SECRETS.ANTHROPIC_API_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(keys.alice!);
    const sent = JSON.parse(seen.body) as Record<string, unknown>;
    expect(sent.model).toBe('claude-sonnet-4-5');
    // The client sent no max_tokens: the gateway set the model's output bound upstream.
    expect(sent.max_tokens).toBe(64000);
  });

  it('prices a non-stream answer exactly from its measured usage', async () => {
    const client = new OpenAI({ apiKey: keys.alice, baseURL: 'http://tollgate.local/v1', fetch: gateway.fetch, maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'claude-sonnet', messages: [SYSTEM, { role: 'user', content: 'What is Python?' }] });
    expect(res.choices[0]!.message.content).toContain('Python');
    // Anthropic {input 3, cache_read 1111, cache_creation 418, output 33} → OpenAI prompt_tokens 1532, cached 1111.
    expect(res.usage?.prompt_tokens).toBe(1532);
    expect(res.usage?.prompt_tokens_details?.cached_tokens).toBe(1111);
    const rec = lastRecord();
    expect(rec.usage).toEqual({ input: 3, output: 33, cache_read: 1111, cache_write: 418, cache_write_1h: 0, reasoning: 0, measured: true });
    // 3×3 = 9; 33×15 = 495; 1111×0.30 = 333.3 → 334; 418×3.75 = 1567.5 → 1568.
    expect(rec.cost_micros).toEqual({ input: 9, output: 495, cache_read: 334, cache_write: 1568, cache_write_1h: 0, total: 2406 });
    expect(rec.registry_revision).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('Anthropic SDK → OpenAI upstream', () => {
  it('streams a translated tool call the SDK assembles into a tool_use block', async () => {
    const client = new Anthropic({ apiKey: keys.alice, baseURL: 'http://tollgate.local', fetch: gateway.fetch, maxRetries: 0 });
    const message = await client.messages.stream({ model: 'gpt-mini', max_tokens: 256, messages: [{ role: 'user', content: 'weather?' }] }).finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    const tool = message.content.find((b) => b.type === 'tool_use');
    expect(tool).toBeDefined();
    expect(typeof (tool as { input: unknown }).input).toBe('object');
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const seen = upstream.requests[upstream.requests.length - 1]!;
    expect(seen.path).toBe('/openai/v1/chat/completions');
    expect(seen.headers.authorization).toBe(`Bearer ${SECRETS.OPENAI_API_KEY}`);
    expect(seen.headers['x-api-key']).toBeUndefined();
    const rec = lastRecord();
    expect(rec.entry_format).toBe('anthropic_messages');
    expect(rec.upstream_format).toBe('openai_chat');
    expect(rec.usage?.measured).toBe(true);
    expect(rec.cost_micros?.total).toBeGreaterThan(0);
  });
});
