/**
 * The real `openai` SDK against a loopback server that serves what the openai_chat codec
 * produces: streams encoded from canonical events or translated from recorded OpenAI streams,
 * responses and errors. What the SDK assembles is what a client of the gateway would see.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorInfo } from '../packages/codecs/src/errors/gateway-error.js';
import type { StreamEvent } from '../packages/codecs/src/ir/stream-event.js';
import { emptyUsage } from '../packages/codecs/src/ir/usage.js';
import { encodeEvents, translateChunks, bytes } from '../packages/codecs/src/openai-chat/__tests__/harness.js';
import { openaiChatCodec as codec } from '../packages/codecs/src/openai-chat/index.js';
import { fixtureJson, fixtureText } from './support/fixtures.js';
import { startServer, type TestServer } from './support/http-server.js';

/** What the next request gets: SSE text (sent in small pieces), a JSON body, or an error. */
type Reply = { sse: string } | { json: Record<string, unknown>; status?: number; headers?: Record<string, string> };
let reply: Reply = { sse: '' };
let server: TestServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startServer(() => {
    if ('sse' in reply) {
      // Odd-sized byte pieces, so events and UTF-8 sequences straddle network chunks.
      const data = bytes(reply.sse);
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= data.length) return controller.close();
          controller.enqueue(data.slice(offset, offset + 37));
          offset += 37;
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    }
    return new Response(JSON.stringify(reply.json), {
      status: reply.status ?? 200,
      headers: { 'content-type': 'application/json', ...(reply.headers ?? {}) },
    });
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'tg_test', maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

const params = { model: 'claude-sonnet', messages: [{ role: 'user' as const, content: 'hi' }] };

const anthropicLike: StreamEvent[] = [
  { type: 'message_start', id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-4-5', created: 1700000000 },
  { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
  { type: 'reasoning_delta', index: 0, text: 'The user greets me.' },
  { type: 'signature', index: 0, signature: 'EqQBCgIYAhIM', issuer: 'anthropic' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { kind: 'text' } },
  { type: 'text_delta', index: 1, text: 'Hello — let me check the ' },
  { type: 'text_delta', index: 1, text: 'weather 🌦️.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_01A', name: 'get_weather' } },
  { type: 'tool_args_delta', index: 2, delta: '{"location":' },
  { type: 'tool_args_delta', index: 2, delta: ' "San Francisco, CA"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_01B', name: 'get_time' } },
  { type: 'tool_args_delta', index: 3, delta: '{"tz":"PST"}' },
  { type: 'block_stop', index: 3 },
  { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' } },
  { type: 'usage', usage: { ...emptyUsage(), input: 120, cacheRead: 400, cacheWrite: 30, output: 57 } },
  { type: 'message_stop' },
];

describe('openai SDK ← openai_chat stream encoder', () => {
  it('assembles text, parallel tool calls and usage from canonical events', async () => {
    reply = { sse: encodeEvents(anthropicLike, { model: 'claude-sonnet' }) };
    const stream = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    expect(final.id).toBe('chatcmpl-msg_01XFDUDYJgAACzvnptvVoYEL');
    expect(final.model).toBe('claude-sonnet');
    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Hello — let me check the weather 🌦️.');
    expect(choice.message.tool_calls).toEqual([
      { id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"location": "San Francisco, CA"}' } },
      { id: 'toolu_01B', type: 'function', function: { name: 'get_time', arguments: '{"tz":"PST"}' } },
    ]);
    expect(final.usage).toMatchObject({ prompt_tokens: 550, completion_tokens: 57, total_tokens: 607, prompt_tokens_details: { cached_tokens: 400 } });
  });

  it('raises an in-stream error event as an APIError', async () => {
    const events: StreamEvent[] = [...anthropicLike.slice(0, 7), { type: 'error', error: errorInfo('overloaded', 'The upstream is overloaded; try again.') }];
    reply = { sse: encodeEvents(events) };
    const stream = await client.chat.completions.create({ ...params, stream: true });
    let text = '';
    let caught: unknown;
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    } catch (error) {
      caught = error;
    }
    expect(text).toBe('Hello — let me check the ');
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    const error = caught as InstanceType<typeof OpenAI.APIError>;
    expect(error.message).toContain('The upstream is overloaded; try again.');
    expect(error.code).toBe('overloaded');
    expect(error.type).toBe('server_error');

    reply = { sse: encodeEvents(events) };
    await expect(client.chat.completions.stream(params).finalChatCompletion()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('raises when the stream was cut (stream_incomplete)', async () => {
    reply = { sse: encodeEvents(anthropicLike.slice(0, 11)) };
    await expect(client.chat.completions.stream(params).finalChatCompletion()).rejects.toMatchObject({ code: 'stream_incomplete' });
  });
});

describe('openai SDK ← recorded OpenAI streams through decode → encode', () => {
  it('stream-tool-calls-parallel.sse: both tool calls and usage', async () => {
    reply = { sse: translateChunks([bytes(fixtureText('openai-chat/stream-tool-calls-parallel.sse'))]) };
    const final = await client.chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls.map((c) => c.type === 'function' && [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['call_JMW1whyEaYG438VE1OIflxA2', 'GetWeatherArgs', { city: 'Edinburgh', country: 'GB', units: 'c' }],
      ['call_DNYTawLBoN8fj3KN6qU9N1Ou', 'get_stock_price', { ticker: 'AAPL', exchange: 'NASDAQ' }],
    ]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.usage).toMatchObject({ prompt_tokens: 149, completion_tokens: 60, total_tokens: 209 });
  });

  it('stream-text.sse: the text, and no usage when the client did not ask', async () => {
    const text = fixtureText('openai-chat/stream-text.sse');
    reply = { sse: translateChunks([bytes(text)], { includeUsage: false }) };
    const stream = await client.chat.completions.create({ ...params, stream: true });
    let content = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      expect(chunk.usage ?? undefined).toBeUndefined();
      content += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(content).toMatch(/^Hi there! How can I help today\?.*you’re curious about\.$/);
    expect(finish).toBe('stop');
  });
});

describe('openai SDK ← openai_chat responses and errors', () => {
  it('reads a response re-encoded from the recorded tool-call response', async () => {
    const { response } = codec.decodeResponse(fixtureJson('openai-chat/response-tool-calls.json'));
    reply = { json: codec.encodeResponse(response).body };
    const completion = await client.chat.completions.create(params);
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ location: 'Boston, MA', unit: 'fahrenheit' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 162, completion_tokens: 287, completion_tokens_details: { reasoning_tokens: 256 } });
  });

  it('raises RateLimitError with retry-after, and a non-retryable quota error', async () => {
    const limited = codec.renderError(errorInfo('rate_limited', 'Too many requests.', { retryAfterS: 3 }));
    reply = { json: limited.body, status: limited.status, headers: limited.headers ?? {} };
    const error = await client.chat.completions.create(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'requests' });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');

    const quota = codec.renderError(errorInfo('quota_exceeded', 'Monthly budget reached.'));
    reply = { json: quota.body, status: quota.status, headers: quota.headers ?? {} };
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'tg_test', maxRetries: 2 });
    const before = server.requests.length;
    const quotaError = await retrying.chat.completions.create(params).catch((e: unknown) => e);
    expect(quotaError).toMatchObject({ status: 429, code: 'insufficient_quota' });
    // x-should-retry: false stops the SDK from retrying a spend cap.
    expect(server.requests.length - before).toBe(1);
  });

  it('raises NotFoundError for model_not_found', async () => {
    const rendered = codec.renderError(errorInfo('model_not_found', 'The model `nope` does not exist.', { param: 'model' }));
    reply = { json: rendered.body, status: rendered.status };
    await expect(client.chat.completions.create(params)).rejects.toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });
});
