/**
 * The real `openai` SDK (`client.responses.stream()` → `finalResponse()`, `client.responses.create()`)
 * against a loopback server that serves what the openai_responses codec produces: recorded
 * Responses streams re-encoded through decode → encode, Anthropic streams converted with
 * `convertStream`, re-encoded responses and rendered errors.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertResponse } from '../packages/codecs/src/convert.js';
import { convertStream } from '../packages/codecs/src/convert-stream.js';
import { errorInfo } from '../packages/codecs/src/errors/gateway-error.js';
import type { StreamEvent } from '../packages/codecs/src/ir/stream-event.js';
import { bytes, encodeEvents, reencodeText } from '../packages/codecs/src/openai-responses/__tests__/harness.js';
import { openaiResponsesCodec as codec } from '../packages/codecs/src/openai-responses/index.js';
import { fixtureJson, fixtureText } from './support/fixtures.js';
import { startServer, type TestServer } from './support/http-server.js';

type Json = Record<string, any>;

/** What the next request gets: SSE text, an Anthropic stream to convert, a JSON body, or an error. */
type Reply = { sse: string } | { anthropic: string } | { json: Json; status?: number; headers?: Record<string, string> };
let reply: Reply = { sse: '' };
let server: TestServer;
let client: OpenAI;

/** The bytes in odd-sized pieces, so events and UTF-8 sequences straddle network chunks. */
function pieces(text: string): ReadableStream<Uint8Array> {
  const data = bytes(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) return controller.close();
      controller.enqueue(data.slice(offset, offset + 41));
      offset += 41;
    },
  });
}

beforeAll(async () => {
  server = await startServer(() => {
    const sse = { headers: { 'content-type': 'text/event-stream' } };
    if ('sse' in reply) return new Response(pieces(reply.sse), sse);
    if ('anthropic' in reply)
      return new Response(convertStream(pieces(reply.anthropic), 'anthropic_messages', 'openai_responses', { model: 'claude-haiku' }), sse);
    return new Response(JSON.stringify(reply.json), { status: reply.status ?? 200, headers: { 'content-type': 'application/json', ...(reply.headers ?? {}) } });
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'tg_test', maxRetries: 0 });
});

afterAll(async () => {
  await server.close();
});

const params = { model: 'gpt-5', input: 'hi' };

describe('openai SDK responses.stream() ← recorded Responses streams through decode → encode', () => {
  it('stream-reasoning-summary-text.sse: four summary parts, the answer, usage', async () => {
    const text = fixtureText('openai-responses/stream-reasoning-summary-text.sse');
    reply = { sse: reencodeText(text) };
    const deltas: string[] = [];
    const stream = client.responses.stream(params).on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    const answer = fixtureText('openai-responses/stream-reasoning-summary-text.sse').match(/"type":"response\.output_text\.done".*?"text":(".*?(?<!\\)")/)![1]!;
    expect(final.output_text).toBe(JSON.parse(answer));
    expect(deltas.join('')).toBe(final.output_text);
    const reasoning = final.output[0]!;
    expect(reasoning.type === 'reasoning' && reasoning.summary.map((s) => s.text.split('\n')[0])).toEqual([
      '**Providing street crossing instructions**',
      '**Explaining street crossing safety**',
      '**Sharing street crossing safety tips**',
      '**Providing safe crossing advice**',
    ]);
    expect(reasoning).toMatchObject({ id: 'rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff', encrypted_content: expect.stringMatching(/^gAAAAA/) });
    expect(final.usage).toMatchObject({ input_tokens: 13, output_tokens: 1680, output_tokens_details: { reasoning_tokens: 1408 }, total_tokens: 1693 });
    expect(final).toMatchObject({ id: 'resp_68c42d0fb418819dbfa579f69406b49508fbf9b1584184ff', status: 'completed', model: 'o3-mini-2025-01-31' });
  });

  it('stream-function-call-reasoning.sse: the function call with its ids and arguments', async () => {
    reply = { sse: reencodeText(fixtureText('openai-responses/stream-function-call-reasoning.sse')) };
    const argDeltas: string[] = [];
    const final = await client.responses
      .stream(params)
      .on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta))
      .finalResponse();
    const call = final.output[1]!;
    expect(call).toMatchObject({
      id: 'fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042',
      type: 'function_call',
      status: 'completed',
      arguments: '{"result":6666}',
      call_id: 'call_CWXgs68YprAjp6t0371hiPOI',
      name: 'final_result',
    });
    expect(argDeltas).toHaveLength(6);
    expect(final.usage).toMatchObject({ input_tokens: 53, output_tokens: 469, output_tokens_details: { reasoning_tokens: 448 } });
  });

  it('responses.create({ stream: true }) yields the events with increasing sequence numbers', async () => {
    reply = { sse: reencodeText(fixtureText('openai-responses/stream-text.sse')) };
    const stream = await client.responses.create({ ...params, stream: true });
    const seen: number[] = [];
    let text = '';
    for await (const event of stream) {
      seen.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') expect(event.response.usage).toMatchObject({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
    }
    expect(text).toBe('2+2 = 4');
    expect(seen).toEqual(seen.map((_, i) => i));
  });

  it('stream-error-insufficient-quota.sse: the in-stream error makes the SDK throw', async () => {
    reply = { sse: reencodeText(fixtureText('openai-responses/stream-error-insufficient-quota.sse')) };
    const error = await client.responses
      .stream(params)
      .finalResponse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ code: 'insufficient_quota', type: 'insufficient_quota' });
    expect((error as Error).message).toContain('You exceeded your current quota');
  });
});

describe('openai SDK responses.stream() ← Anthropic streams converted with convertStream', () => {
  it('stream-thinking-then-tool-use.sse: the thinking as a reasoning summary, the tool call, usage', async () => {
    reply = { anthropic: fixtureText('anthropic-messages/stream-thinking-then-tool-use.sse') };
    const final = await client.responses.stream(params).finalResponse();
    expect(final.model).toBe('claude-haiku');
    expect(final.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    const [reasoning, call] = final.output;
    expect(reasoning!.type === 'reasoning' && reasoning.summary[0]!.text).toMatch(/^The user wants me to:\n1\. Use the fixed_version tool/);
    expect(call).toMatchObject({ type: 'function_call', call_id: 'toolu_01825dXWLSoJwCst1qTsiWdb', name: 'fixed_version', arguments: '{}' });
    expect(final.usage).toMatchObject({ input_tokens: 598, output_tokens: 92, output_tokens_details: { reasoning_tokens: 53 } });
  });

  it('stream-text-then-tool-use-input-json-delta.sse: text, then arguments assembled from fragments', async () => {
    reply = { anthropic: fixtureText('anthropic-messages/stream-text-then-tool-use-input-json-delta.sse') };
    const final = await client.responses.stream(params).finalResponse();
    expect(final.output_text).toBe("I'll check the current weather in Paris for you.");
    const call = final.output.find((i) => i.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather' });
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ location: 'Paris' });
    expect(final.status).toBe('completed');
  });

  it('stream-error-overloaded-midstream.sse: the SDK throws the overloaded error', async () => {
    reply = { anthropic: fixtureText('anthropic-messages/stream-error-overloaded-midstream.sse') };
    const error = await client.responses
      .stream(params)
      .finalResponse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ code: 'overloaded' });
  });

  it('an error event and a cut stream from canonical events also make the SDK throw', async () => {
    const events: StreamEvent[] = [
      { type: 'message_start', id: 'msg_1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
    ];
    reply = { sse: encodeEvents([...events, { type: 'error', error: errorInfo('rate_limited', 'Too many requests.') }]) };
    await expect(client.responses.stream(params).finalResponse()).rejects.toMatchObject({
      code: 'rate_limit_exceeded',
      message: expect.stringContaining('Too many requests.'),
    });
    reply = { sse: encodeEvents(events) };
    await expect(client.responses.stream(params).finalResponse()).rejects.toMatchObject({ code: 'stream_incomplete' });
  });
});

describe('openai SDK responses.create() ← re-encoded and converted responses, rendered errors', () => {
  it('response-reasoning-summary.json re-encoded: output_text, reasoning summary, usage', async () => {
    const body = fixtureJson<Json>('openai-responses/response-reasoning-summary.json');
    reply = { json: codec.encodeResponse(codec.decodeResponse(body).response).body };
    const response = await client.responses.create(params);
    expect(response.output_text).toBe(body.output[1].content[0].text);
    const reasoning = response.output[0]!;
    expect(reasoning.type === 'reasoning' && reasoning.summary[0]!.text).toBe(body.output[0].summary[0].text);
    expect(response.usage).toMatchObject({ input_tokens: 34, output_tokens: 226, output_tokens_details: { reasoning_tokens: 59 } });
  });

  it('an Anthropic parallel tool-use response converted: both function calls', async () => {
    const anthropic = fixtureJson<Json>('anthropic-messages/response-tool-use-parallel.json');
    reply = { json: convertResponse(anthropic, 'anthropic_messages', 'openai_responses', { model: 'claude' }).body };
    const response = await client.responses.create(params);
    const calls = response.output.filter((i) => i.type === 'function_call');
    expect(calls.map((c) => c.type === 'function_call' && [c.call_id, c.name, JSON.parse(c.arguments)])).toEqual(
      anthropic.content.filter((b: Json) => b.type === 'tool_use').map((b: Json) => [b.id, b.name, b.input]),
    );
  });

  it('rendered errors raise the matching SDK errors; a spend cap is not retried', async () => {
    const unsupported = codec.renderError(
      errorInfo('unsupported_feature', 'previous_response_id needs an OpenAI Responses upstream.', { param: 'previous_response_id' }),
    );
    reply = { json: unsupported.body, status: unsupported.status };
    await expect(client.responses.create(params)).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'previous_response_id' });

    const quota = codec.renderError(errorInfo('quota_exceeded', 'Monthly budget reached.'));
    reply = { json: quota.body, status: quota.status, headers: quota.headers ?? {} };
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'tg_test', maxRetries: 2 });
    const before = server.requests.length;
    await expect(retrying.responses.create(params)).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(server.requests.length - before).toBe(1);
  });
});
