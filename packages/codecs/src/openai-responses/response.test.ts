import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../../test/support/fixtures.js';
import { errorInfo, GatewayError } from '../errors/gateway-error.js';
import type { Response } from '../ir/response.js';
import { emptyUsage } from '../ir/usage.js';
import { openaiResponsesCodec as codec } from './index.js';

type Json = Record<string, any>;
const usage = (u: Partial<Record<string, number>>) => ({ ...emptyUsage(), ...u });

describe('openai_responses response fixtures', () => {
  it('response-text.json: a message with output_text, stop, usage', () => {
    const body = fixtureJson<Json>('openai-responses/response-text.json');
    const { response, warnings } = codec.decodeResponse(body);
    expect(response).toMatchObject({
      id: 'resp_0e9950da9eac6a780068fbaa1bc030819da585a6f85ddad1e6',
      model: 'gpt-4o-2024-08-06',
      created: 1761323547,
      content: [{ type: 'text', text: 'The capital of PotatoLand is Potato City.' }],
      finishReason: { unified: 'stop', raw: 'completed' },
      usage: usage({ input: 67, output: 11 }),
    });
    expect(response.vendor?.fields).toMatchObject({ billing: { payer: 'developer' }, tool_choice: 'auto', truncation: 'disabled', store: true });
    expect(warnings).toEqual([]);
  });

  it('response-function-call.json: the call with its call id and item id; finish tool_calls', () => {
    const { response } = codec.decodeResponse(fixtureJson('openai-responses/response-function-call.json'));
    expect(response.content).toEqual([
      {
        type: 'tool_call',
        id: 'call_YfwRsW8sUxDKipwyhWTzOXCA',
        name: 'get_capital',
        arguments: '{"country":"PotatoLand"}',
        itemId: 'fc_04907f5d3de791830068fbaa1b310c81958dc9c508e878c632',
      },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool_calls', raw: 'completed' });
    expect(response.usage).toEqual(usage({ input: 40, output: 18 }));
  });

  it('response-reasoning-summary.json: the reasoning summary with its encrypted content, reasoning tokens inside output', () => {
    const body = fixtureJson<Json>('openai-responses/response-reasoning-summary.json');
    const { response } = codec.decodeResponse(body);
    expect(response.content).toEqual([
      {
        type: 'reasoning',
        text: body.output[0].summary[0].text,
        itemId: 'rs_0b028a7a2aca8d68006942f4e0d380819398dfa502c33bce7b',
        encryptedContent: body.output[0].encrypted_content,
        issuer: 'openai',
      },
      { type: 'text', text: body.output[1].content[0].text },
    ]);
    expect(response.usage).toEqual(usage({ input: 34, output: 226, reasoning: 59 }));
  });

  it.each(['response-text.json', 'response-function-call.json', 'response-reasoning-summary.json'])(
    '%s: wire → IR → wire gives the same body (message item ids are derived)',
    (file) => {
      const body = fixtureJson<Json>(`openai-responses/${file}`);
      const { body: again, warnings } = codec.encodeResponse(codec.decodeResponse(body).response);
      const strip = (b: Json) => ({ ...b, output: b.output.map((i: Json) => (i.type === 'message' ? { ...i, id: 'msg' } : i)) });
      expect(strip(again)).toEqual(strip(body));
      expect(warnings).toEqual([]);
    },
  );
});

describe('openai_responses response encoding', () => {
  const response: Response = {
    id: 'msg_01',
    model: 'claude-sonnet-4-5',
    created: 1700000000,
    content: [
      { type: 'reasoning', text: 'Let me think.', signature: 'sig', issuer: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: 'opaque', issuer: 'anthropic' },
      { type: 'text', text: 'Part one. ' },
      { type: 'text', text: 'Part two.' },
      { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '' },
    ],
    finishReason: { unified: 'tool_calls', raw: 'tool_use' },
    usage: usage({ input: 10, cacheRead: 90, cacheWrite1h: 5, output: 20, reasoning: 4 }),
    vendor: { format: 'anthropic_messages', fields: { container: null } },
  };

  it('a foreign response: visible reasoning as a summary, text runs as one message, deterministic ids, usage', () => {
    const { body, warnings } = codec.encodeResponse(response, { model: 'claude-sonnet' });
    expect(body).toEqual({
      id: 'resp_msg_01',
      object: 'response',
      created_at: 1700000000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: null,
      model: 'claude-sonnet',
      output: [
        { id: 'rs_01_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Let me think.' }] },
        {
          id: 'msg_01_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Part one. ', annotations: [], logprobs: [] },
            { type: 'output_text', text: 'Part two.', annotations: [], logprobs: [] },
          ],
        },
        { id: 'fc_01_2', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'toolu_1', name: 'f' },
      ],
      parallel_tool_calls: true,
      temperature: null,
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      usage: {
        input_tokens: 105,
        input_tokens_details: { cached_tokens: 90, cache_write_tokens: 5 },
        output_tokens: 20,
        output_tokens_details: { reasoning_tokens: 4 },
        total_tokens: 125,
      },
    });
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ['signature_dropped', 'content[0]'],
      ['signature_dropped', 'content[1]'],
      ['dropped_field', 'container'],
    ]);
    expect(codec.encodeResponse(response).body).toEqual(codec.encodeResponse(response).body);
  });

  it.each([
    ['length', { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }],
    ['content_filter', { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }],
    ['stop_sequence', { status: 'completed', incomplete_details: null }],
    ['pause', { status: 'completed', incomplete_details: null }],
  ] as const)('finish %s → %j', (unified, expected) => {
    const { body } = codec.encodeResponse({ ...response, finishReason: { unified, raw: null }, usage: null });
    expect(body).toMatchObject({ ...expected, usage: null });
    // and back
    const back = codec.decodeResponse(body).response.finishReason.unified;
    expect(back).toBe(unified === 'length' || unified === 'content_filter' ? unified : 'tool_calls');
  });

  it('built-in tool output items survive a same-format round trip in place', () => {
    const body = {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'gpt-5',
      output: [
        { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } },
        {
          id: 'msg_1',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'found', annotations: [], logprobs: [] }],
        },
      ],
      usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 },
    };
    const { response: ir } = codec.decodeResponse(body);
    expect(ir.content).toEqual([{ type: 'text', text: 'found' }]);
    expect(codec.encodeResponse(ir).body.output).toEqual([body.output[0], { ...body.output[1], id: 'msg_1_0' }]);
  });
});

describe('openai_responses upstream failures and errors', () => {
  it('an error envelope or a failed response is raised as a canonical error', () => {
    const decodeThrown = (body: unknown) => {
      try {
        codec.decodeResponse(body);
      } catch (error) {
        return error;
      }
      throw new Error('no throw');
    };
    const envelope = decodeThrown(fixtureJson('openai-responses/error-400-invalid-temperature.json'));
    expect(GatewayError.isInstance(envelope)).toBe(true);
    expect(envelope).toMatchObject({ code: 'invalid_request', param: 'temperature', message: expect.stringContaining("Invalid 'temperature'") });
    expect(decodeThrown({ id: 'resp_1', status: 'failed', output: [], error: { code: 'rate_limit_exceeded', message: 'Slow down.' } })).toMatchObject({
      code: 'rate_limited',
      status: 429,
    });
    expect(decodeThrown('nope')).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(decodeThrown({ id: 'resp_1' })).toMatchObject({ code: 'upstream_error', status: 502 });
  });

  it('decodeError reads the recorded 400 with its status', () => {
    expect(codec.decodeError(400, fixtureJson('openai-responses/error-400-invalid-temperature.json'))).toEqual({
      code: 'invalid_request',
      status: 400,
      param: 'temperature',
      message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
    });
  });

  it('renderError gives the OpenAI error shape, status and headers', () => {
    expect(codec.renderError(errorInfo('quota_exceeded', 'Monthly budget reached.'))).toEqual({
      status: 429,
      body: { error: { message: 'Monthly budget reached.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
      headers: { 'x-should-retry': 'false' },
    });
    expect(
      codec.renderError(errorInfo('unsupported_feature', 'previous_response_id needs an OpenAI Responses upstream.', { param: 'previous_response_id' })),
    ).toEqual({
      status: 400,
      body: {
        error: {
          message: 'previous_response_id needs an OpenAI Responses upstream.',
          type: 'invalid_request_error',
          param: 'previous_response_id',
          code: 'unsupported_parameter',
        },
      },
    });
  });
});

describe('openai_responses answerToolCalls', () => {
  it('names every output item the client runs, as the request names its tool', () => {
    const body = {
      output: [
        { type: 'message', content: [] },
        { type: 'reasoning', summary: [] },
        { type: 'function_call', name: 'get_weather', call_id: 'a', arguments: '{}' },
        { type: 'custom_tool_call', name: 'shell', call_id: 'b', input: 'ls' },
        { type: 'custom_tool_call', name: '', call_id: 'c', input: 'ls' },
        { type: 'local_shell_call', call_id: 'd', action: { type: 'exec', command: ['ls'] } },
        { type: 'shell_call', call_id: 'e' },
        { type: 'apply_patch_call', call_id: 'f' },
        { type: 'computer_call', call_id: 'g' },
        { type: 'mcp_approval_request', server_label: 'deepwiki', name: 'ask' },
        { type: 'web_search_call', status: 'completed' },
        { type: 'teleport_call' },
      ],
    };
    expect(codec.answerToolCalls!(body)).toEqual(['get_weather', 'shell', null, 'local_shell', 'shell', 'apply_patch', 'computer_use_preview', 'mcp', null]);
    expect(codec.answerToolCalls!({ output: [{ type: 'computer_call' }], tools: [{ type: 'computer' }] })).toEqual(['computer']);
    expect(codec.answerToolCalls!({ output: 'x' })).toEqual([]);
  });
});
