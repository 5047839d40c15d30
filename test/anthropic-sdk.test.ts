/**
 * The real `@anthropic-ai/sdk` against a loopback server that serves recorded Anthropic streams
 * re-encoded through the anthropic_messages codec (wire → IR → wire, chunk by chunk).
 */
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec as codec } from '../packages/codecs/src/anthropic-messages/index.js';
import { errorInfo } from '../packages/codecs/src/errors/gateway-error.js';
import type { StreamEvent } from '../packages/codecs/src/ir/stream-event.js';
import { emptyUsage } from '../packages/codecs/src/ir/usage.js';
import { createSseReader } from '../packages/codecs/src/sse/parse.js';
import { fixtureJson, fixtureText } from './support/fixtures.js';
import { chunkedResponse, startServer, type TestServer } from './support/http-server.js';

/** Anthropic SSE bytes → IR → Anthropic SSE bytes, one input chunk at a time. */
function translate(readable: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = codec.createStreamDecoder();
  const encoder = codec.createStreamEncoder();
  const text = new TextDecoder();
  const bytes = new TextEncoder();
  let out = '';
  let finished = false;
  const write = (t: string | Uint8Array) => {
    out += typeof t === 'string' ? t : new TextDecoder().decode(t);
  };
  const emit = (event: StreamEvent) => {
    if (finished) return;
    encoder.encode(event, write);
    if (event.type === 'error') finished = true;
  };
  const reader = createSseReader(
    (m) => !finished && decoder.push(m, emit),
    () => emit({ type: 'error', error: errorInfo('upstream_error', 'too large') }),
  );
  const flush = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out.length > 0) controller.enqueue(bytes.encode(out));
    out = '';
  };
  return readable.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        reader.feed(text.decode(chunk, { stream: true }));
        flush(controller);
      },
      flush(controller) {
        reader.feed(text.decode());
        reader.end();
        if (!finished) decoder.end(emit);
        if (!finished) encoder.end(write);
        flush(controller);
      },
    }),
  );
}

/** Split text into chunks of varying small sizes (deterministic). */
function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0, n = 1; i < text.length; n = (n * 7 + 3) % 97 || 1) {
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function sse(events: StreamEvent[]): string {
  const encoder = codec.createStreamEncoder({ model: 'claude-via-gateway' });
  let out = '';
  const text = (t: string | Uint8Array) => (typeof t === 'string' ? t : new TextDecoder().decode(t));
  for (const e of events) encoder.encode(e, (t) => (out += text(t)));
  encoder.end((t) => (out += text(t)));
  return out;
}

let server: TestServer;
let client: Anthropic;
/** Hand-built IR streams, keyed by the model name the client asks for. */
const irStreams: Record<string, StreamEvent[]> = {};

beforeAll(async () => {
  server = await startServer(async (request) => {
    const body = (await request.json()) as { model: string; stream?: boolean };
    const [kind, name] = body.model.split(':') as [string, string];
    if (kind === 'fixture') {
      const upstream = chunkedResponse(chunks(fixtureText(`anthropic-messages/${name}`)));
      return new Response(translate(upstream.body!), { headers: { 'content-type': 'text/event-stream' } });
    }
    if (kind === 'ir') return chunkedResponse(chunks(sse(irStreams[name]!)));
    if (kind === 'response') {
      const decoded = codec.decodeResponse(fixtureJson(`anthropic-messages/${name}`));
      return Response.json(codec.encodeResponse(decoded.response).body);
    }
    const rendered = codec.renderError(
      name === 'quota' ? errorInfo('quota_exceeded', 'Spend limit reached.') : errorInfo('rate_limited', 'Slow down.', { retryAfterS: 1 }),
    );
    return Response.json(rendered.body, { status: rendered.status, headers: rendered.headers ?? {} });
  });
  client = new Anthropic({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

const stream = (model: string) => client.messages.stream({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] });

describe('@anthropic-ai/sdk reads re-encoded Anthropic streams', () => {
  it('stream-text: text and usage', async () => {
    const message = await stream('fixture:stream-text.sse').finalMessage();
    expect(message.id).toBe('msg_01T8kTq7cYyYJeQ5DxcVUc6D');
    expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it('stream-thinking: thinking text and the exact signature', async () => {
    const original = fixtureText('anthropic-messages/stream-thinking.sse');
    const signature = /"signature_delta","signature":"([^"]+)"/.exec(original)![1];
    const message = await stream('fixture:stream-thinking.sse').finalMessage();
    const [thinking, text] = message.content;
    expect(thinking).toMatchObject({ type: 'thinking', signature });
    expect(thinking!.type === 'thinking' && thinking!.thinking).toContain('Pelé (play on pelican)');
    expect(text!.type).toBe('text');
    expect(message.usage.output_tokens).toBe(133);
  });

  it('stream-text-then-tool-use-input-json-delta: tool input assembled from fragments', async () => {
    const message = await stream('fixture:stream-text-then-tool-use-input-json-delta.sse').finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: "I'll check the current weather in Paris for you." },
      { type: 'tool_use', id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 377, output_tokens: 65 });
  });

  it('stream-thinking-then-tool-use and stream-tool-use-parallel: tool calls with empty input', async () => {
    const a = await stream('fixture:stream-thinking-then-tool-use.sse').finalMessage();
    expect(a.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(a.content[1]).toMatchObject({ id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', input: {} });
    const b = await stream('fixture:stream-tool-use-parallel.sse').finalMessage();
    expect(b.content).toEqual([
      { type: 'tool_use', id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', input: {} },
      { type: 'tool_use', id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', input: {} },
    ]);
  });

  it('stream-redacted-thinking: redacted blocks keep their data', async () => {
    const original = fixtureText('anthropic-messages/stream-redacted-thinking.sse');
    const data = [...original.matchAll(/"type":"redacted_thinking","data":"([^"]+)"/g)].map((m) => m[1]);
    const message = await stream('fixture:stream-redacted-thinking.sse').finalMessage();
    expect(message.content.slice(0, 2)).toEqual(data.map((d) => ({ type: 'redacted_thinking', data: d })));
    expect(message.content[2]!.type).toBe('text');
  });

  it('stream-prompt-cache-usage: server tool blocks skipped, cache usage exact', async () => {
    const message = await stream('fixture:stream-prompt-cache-usage.sse').finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'The sum of the squares of the numbers 1 through 12 is **650**.' }]);
    expect(message.usage).toMatchObject({ input_tokens: 6, output_tokens: 198, cache_read_input_tokens: 6289, cache_creation_input_tokens: 3337 });
  });

  it('the mid-stream overloaded error makes the SDK throw', async () => {
    const s = stream('fixture:stream-error-overloaded-midstream.sse');
    const error = await s.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('a stream cut before message_stop makes the SDK throw, not finish cleanly', async () => {
    irStreams['cut'] = [
      { type: 'message_start', id: 'msg_cut', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
    ];
    await expect(stream('ir:cut').finalMessage()).rejects.toBeInstanceOf(APIError);
  });

  it('interleaved text and parallel tool calls (as OpenAI sends them) arrive as whole tool_use blocks', async () => {
    irStreams['interleaved'] = [
      { type: 'message_start', id: 'chatcmpl-9', model: 'gpt-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Checking ' },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_1', name: 'weather' } },
      { type: 'tool_args_delta', index: 1, delta: '{"city"' },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'call_2', name: 'weather' } },
      { type: 'tool_args_delta', index: 2, delta: '{"city":"Oslo"' },
      { type: 'text_delta', index: 0, text: 'both.' },
      { type: 'tool_args_delta', index: 1, delta: ':"Paris"}' },
      { type: 'tool_args_delta', index: 2, delta: '}' },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_stop', index: 1 },
      { type: 'block_stop', index: 2 },
      { type: 'usage', usage: { ...emptyUsage(), input: 388, cacheRead: 512, output: 64 } },
      { type: 'message_stop' },
    ];
    const message = await stream('ir:interleaved').finalMessage();
    expect(message.id).toBe('msg_chatcmpl-9');
    expect(message.model).toBe('claude-via-gateway');
    expect(message.content).toEqual([
      { type: 'text', text: 'Checking ' },
      { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      // Buffered behind the open call_1, in the order their content first arrived.
      { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Oslo' } },
      { type: 'text', text: 'both.' },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 388, cache_read_input_tokens: 512, output_tokens: 64 });
  });
});

describe('@anthropic-ai/sdk reads re-encoded responses and rendered errors', () => {
  it('a non-stream response round-trips through the codec', async () => {
    const message = await client.messages.create({
      model: 'response:response-tool-use-parallel.json',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content.filter((b) => b.type === 'tool_use').map((b) => (b.type === 'tool_use' ? b.input : null))).toEqual([
      { name: 'Alice' },
      { name: 'Bob' },
      { name: 'Charlie' },
      { name: 'Daisy' },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('a rendered rate limit and a spent budget raise the SDK error for 429', async () => {
    const rate = await client.messages.create({ model: 'error:rate', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(Anthropic.RateLimitError);
    expect((rate as APIError).headers?.get('retry-after')).toBe('1');
    const quota = await client.messages.create({ model: 'error:quota', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(Anthropic.RateLimitError);
    expect((quota as APIError).message).toMatch(/budget is exhausted/);
  });
});
