import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Response } from '../ir/response.js';
import { emptyUsage, promptTokens } from '../ir/usage.js';
import { decodeFinishReason, encodeFinishReason } from './finish-reason.js';
import { anthropicMessagesCodec as codec } from './index.js';

type Body = Record<string, unknown>;

function ir(partial: Partial<Response>): Response {
  return { id: 'x', model: 'm', content: [], finishReason: { unified: 'stop', raw: 'stop' }, usage: null, ...partial };
}

describe('anthropic_messages response fixtures', () => {
  const files = fixtureFiles('anthropic-messages', '.json').filter((f) => f.includes('/response-'));

  it('finds the response fixtures', () => {
    expect(files.length).toBe(4);
  });

  it.each(files)('%s: wire → IR → wire is the same JSON', (file) => {
    const body = fixtureJson<Body>(file);
    const decoded = codec.decodeResponse(body);
    expect(decoded.warnings).toEqual([]);
    const encoded = codec.encodeResponse(decoded.response);
    expect(encoded.warnings).toEqual([]);
    expect(encoded.body).toEqual(body);
  });

  it('response-thinking: thinking text and signature, then text', () => {
    const body = fixtureJson<{ content: Array<{ signature?: string }> }>('anthropic-messages/response-thinking.json');
    const { response } = codec.decodeResponse(body);
    expect(response.id).toBe('msg_01TGA8SWcHTTn5674cmicbnJ');
    expect(response.model).toBe('claude-sonnet-4-5-20250929');
    const [thinking, text] = response.content;
    expect(thinking).toEqual({
      type: 'reasoning',
      text: 'This is a straightforward question about pedestrian safety. I should provide clear, practical advice about crossing the street safely.',
      signature: body.content[0]!.signature,
      issuer: 'anthropic',
    });
    expect(text?.type === 'text' && text.text.startsWith("Here's how to cross the street safely")).toBe(true);
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(response.usage).toEqual({ ...emptyUsage(), input: 43, output: 321 });
  });

  it('response-redacted-thinking: redacted data kept as Anthropic-issued reasoning', () => {
    const body = fixtureJson<{ content: Array<{ data?: string }> }>('anthropic-messages/response-redacted-thinking.json');
    const { response } = codec.decodeResponse(body);
    expect(response.content[0]).toEqual({ type: 'reasoning', text: '', redactedData: body.content[0]!.data, issuer: 'anthropic' });
    expect(response.content[1]!.type).toBe('text');
  });

  it('response-tool-use-parallel: text and four tool calls, stop_reason tool_use', () => {
    const { response } = codec.decodeResponse(fixtureJson('anthropic-messages/response-tool-use-parallel.json'));
    const calls = response.content.filter((p) => p.type === 'tool_call');
    expect(calls.map((c) => (c.type === 'tool_call' ? [c.id, c.name, JSON.parse(c.arguments)] : null))).toEqual([
      ['toolu_0167cfEnoQaPviGdVXA95zcu', 'retrieve_entity_info', { name: 'Alice' }],
      ['toolu_01EEe2V5HD1Ac4rKiUR4HD2T', 'retrieve_entity_info', { name: 'Bob' }],
      ['toolu_01XFyAjstT3966qvRynZyVPo', 'retrieve_entity_info', { name: 'Charlie' }],
      ['toolu_013mnQZbgtK2oe3Mo3XKJsx3', 'retrieve_entity_info', { name: 'Daisy' }],
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
    expect(response.usage).toMatchObject({ input: 423, output: 202 });
  });

  it('response-cache-read: non-overlapping usage with the 5-minute / 1-hour split', () => {
    const { response } = codec.decodeResponse(fixtureJson('anthropic-messages/response-cache-read.json'));
    expect(response.usage).toEqual({ input: 3, output: 33, cacheRead: 1111, cacheWrite: 418, cacheWrite1h: 0, reasoning: 0, measured: true });
    expect(promptTokens(response.usage!)).toBe(3 + 1111 + 418);
    expect(response.vendor).toEqual({ format: 'anthropic_messages', fields: { usage: { inference_geo: 'not_available', service_tier: 'standard' } } });
  });
});

describe('anthropic_messages usage', () => {
  it('decodes the issue example: {input 120, cache_read 400, cache_creation 30, output 57}', () => {
    const { response } = codec.decodeResponse({
      id: 'msg_1',
      content: [],
      stop_reason: 'end_turn',
      usage: { input_tokens: 120, cache_read_input_tokens: 400, cache_creation_input_tokens: 30, output_tokens: 57 },
    });
    expect(response.usage).toEqual({ input: 120, output: 57, cacheRead: 400, cacheWrite: 30, cacheWrite1h: 0, reasoning: 0, measured: true });
    expect(promptTokens(response.usage!)).toBe(550);
  });

  it('encodes the issue example from OpenAI: {prompt 900, cached 512, completion 64} → {input 388, cache_read 512, output 64}', () => {
    const usage = { ...emptyUsage(), input: 900 - 512, cacheRead: 512, output: 64 };
    expect(codec.encodeResponse(ir({ usage })).body['usage']).toEqual({
      input_tokens: 388,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 512,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 64,
    });
  });

  it('uses the TTL breakdown when given, and sums it when encoding', () => {
    const { response } = codec.decodeResponse({
      content: [],
      usage: {
        input_tokens: 5,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 1,
      },
    });
    expect(response.usage).toMatchObject({ cacheWrite: 100, cacheWrite1h: 200 });
    expect(codec.encodeResponse(response).body['usage']).toMatchObject({
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    });
  });

  it('reads thinking tokens from output_tokens_details when present (output still includes them)', () => {
    const { response } = codec.decodeResponse({ content: [], usage: { input_tokens: 1, output_tokens: 92, output_tokens_details: { thinking_tokens: 53 } } });
    expect(response.usage).toMatchObject({ output: 92, reasoning: 53 });
  });

  it('encodes a missing usage as zeros', () => {
    expect(codec.encodeResponse(ir({ usage: null })).body['usage']).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });
});

describe('anthropic_messages finish reasons', () => {
  const pairs: Array<[string, string]> = [
    ['end_turn', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['stop_sequence', 'stop_sequence'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'pause'],
  ];

  it.each(pairs)('%s ⇄ %s, raw kept', (raw, unified) => {
    expect(decodeFinishReason(raw)).toEqual({ unified, raw });
    expect(encodeFinishReason({ unified: unified as never, raw: 'from-another-format' })).toBe(raw);
  });

  it('model_context_window_exceeded → length, and back to itself when raw says so', () => {
    expect(decodeFinishReason('model_context_window_exceeded')).toEqual({ unified: 'length', raw: 'model_context_window_exceeded' });
    expect(encodeFinishReason({ unified: 'length', raw: 'model_context_window_exceeded' })).toBe('model_context_window_exceeded');
    expect(encodeFinishReason({ unified: 'length', raw: 'length' })).toBe('max_tokens');
    expect(decodeFinishReason('something_new')).toEqual({ unified: 'other', raw: 'something_new' });
  });

  it('keeps the stop sequence, and says tool_use when a "stop" turn carries tool calls', () => {
    const stopSeq = codec.encodeResponse(ir({ finishReason: { unified: 'stop_sequence', raw: 'stop' }, stopSequence: '###' })).body;
    expect(stopSeq).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '###' });
    const tools = codec.encodeResponse(
      ir({ finishReason: { unified: 'stop', raw: 'STOP' }, content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{}' }] }),
    ).body;
    expect(tools['stop_reason']).toBe('tool_use');
  });
});

describe('anthropic_messages response encoding from other formats', () => {
  it('prefixes ids with msg_, uses the client model name, maps content', () => {
    const { body, warnings } = codec.encodeResponse(
      ir({
        id: 'chatcmpl-123',
        content: [
          { type: 'reasoning', text: 'thought', issuer: 'openai', encryptedContent: 'e' },
          { type: 'text', text: 'hi' },
          { type: 'refusal', text: 'no' },
          { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
        ],
      }),
      { model: 'claude-sonnet' },
    );
    expect(body['id']).toBe('msg_chatcmpl-123');
    expect(body['model']).toBe('claude-sonnet');
    expect(body['content']).toEqual([
      { type: 'thinking', thinking: 'thought', signature: '' },
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'no' },
      { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['signature_dropped', 'lossy_conversion']);
    expect(codec.encodeResponse(ir({ id: 'msg_abc' })).body['id']).toBe('msg_abc');
  });

  it('skips server tool blocks with a warning when decoding', () => {
    const { response, warnings } = codec.decodeResponse({
      id: 'msg_1',
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'text', text: 'found', citations: [{ type: 'web_search_result_location', url: 'u' }] },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    expect(response.content).toEqual([{ type: 'text', text: 'found' }]);
    expect(warnings.map((w) => w.path)).toEqual(['content[0]', 'content[1]', 'content[2].citations']);
  });

  it('throws a canonical error for an error body or a body that is not a message', () => {
    expect(() => codec.decodeResponse('nope')).toThrow(GatewayError);
    try {
      codec.decodeResponse(fixtureJson('anthropic-messages/error-400-invalid-request.json'));
      throw new Error('expected a throw');
    } catch (error) {
      expect(GatewayError.isInstance(error) && error.code).toBe('invalid_request');
    }
  });
});

describe('anthropic_messages answerToolCalls', () => {
  it('names tool, server tool and MCP tool calls as the request names their tools', () => {
    const body = {
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'a', name: 'get_weather', input: {} },
        { type: 'server_tool_use', id: 'b', name: 'web_search', input: {} },
        { type: 'server_tool_use', id: 'c', name: 'bash_code_execution', input: {} },
        { type: 'web_search_tool_result', tool_use_id: 'b', content: [] },
        { type: 'mcp_tool_use', id: 'd', name: 'drop_table', server_name: 'db', input: {} },
        { type: 'tool_use', id: 'e', input: {} },
      ],
    };
    expect(codec.answerToolCalls!(body)).toEqual(['get_weather', 'web_search', 'code_execution', 'mcp', null]);
    expect(codec.answerToolCalls!({ content: 'x' })).toEqual([]);
  });
});
