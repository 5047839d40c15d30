import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { errorInfo, GatewayError, type ErrorCode } from '../errors/gateway-error.js';
import type { Response } from '../ir/response.js';
import { emptyUsage } from '../ir/usage.js';
import { openaiChatCodec as codec } from './index.js';

type Body = Record<string, unknown>;

/** Fields a wire → IR → wire trip may add or drop without changing meaning. */
function normalise(body: Body): Body {
  const copy = JSON.parse(JSON.stringify(body)) as Body;
  for (const choice of copy.choices as Array<Record<string, Record<string, unknown>>>) {
    if (Array.isArray(choice.message!.annotations) && choice.message!.annotations.length === 0) delete choice.message!.annotations;
    if (choice.logprobs === undefined) choice.logprobs = null as never;
  }
  const usage = copy.usage as Record<string, Record<string, unknown>> | undefined;
  if (usage !== undefined) {
    // OpenAI's detail counters with no canonical kind are not carried.
    for (const key of ['audio_tokens', 'accepted_prediction_tokens', 'rejected_prediction_tokens']) {
      delete usage.completion_tokens_details?.[key];
      delete usage.prompt_tokens_details?.[key];
    }
    if (usage.prompt_tokens_details?.cache_write_tokens === 0) delete usage.prompt_tokens_details.cache_write_tokens;
  }
  return copy;
}

describe('openai_chat response fixtures', () => {
  const files = fixtureFiles('openai-chat', '.json').filter((f) => f.includes('/response-'));

  it.each(files)('%s round-trips wire → IR → wire', (file) => {
    const body = fixtureJson<Body>(file);
    const { response, warnings } = codec.decodeResponse(body);
    expect(warnings).toEqual([]);
    const encoded = codec.encodeResponse(response).body;
    expect(normalise(encoded)).toEqual(normalise(body));
  });

  it('decodes a text response with reasoning tokens', () => {
    const { response } = codec.decodeResponse(fixtureJson('openai-chat/response-text.json'));
    expect(response.id).toBe('chatcmpl-C4Gm9xikLXbgE8He0BHWeoM03aa72');
    expect(response.model).toBe('gpt-5-nano-2025-08-07');
    expect(response.created).toBe(1755133833);
    expect(response.content).toHaveLength(1);
    expect(response.content[0]).toMatchObject({ type: 'text' });
    expect((response.content[0] as { text: string }).text).toMatch(/^Hi there! How can I help you today\?/);
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(response.usage).toEqual({ input: 8, output: 377, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 320, measured: true });
  });

  it('decodes tool calls with the exact argument text', () => {
    const { response } = codec.decodeResponse(fixtureJson('openai-chat/response-tool-calls.json'));
    expect(response.content).toEqual([
      {
        type: 'tool_call',
        id: 'call_8fxy20OEu9ulvvaa5b5CzVA4',
        name: 'get_current_weather',
        arguments: '{"location":"Boston, MA","unit":"fahrenheit"}',
      },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool_calls', raw: 'tool_calls' });
    expect(response.usage).toMatchObject({ input: 162, output: 287, reasoning: 256 });
  });

  it('subtracts cached tokens from input', () => {
    const { response } = codec.decodeResponse(fixtureJson('openai-chat/response-cached-tokens.json'));
    expect(response.usage).toEqual({ input: 8, output: 4, cacheRead: 4012, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true });
  });
});

describe('openai_chat usage', () => {
  it('OpenAI {prompt 900, cached 512, completion 64} is IR {input 388, cacheRead 512, output 64}', () => {
    const { response } = codec.decodeResponse({
      id: 'chatcmpl-x',
      model: 'gpt-4o',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 900, completion_tokens: 64, total_tokens: 964, prompt_tokens_details: { cached_tokens: 512 } },
    });
    expect(response.usage).toMatchObject({ input: 388, cacheRead: 512, cacheWrite: 0, output: 64, measured: true });
  });

  it('Anthropic {input 120, cache_read 400, cache_creation 30, output 57} is OpenAI {prompt 550, cached 400, completion 57}', () => {
    const response: Response = {
      id: 'msg_01abc',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'hi' }],
      finishReason: { unified: 'stop', raw: 'end_turn' },
      usage: { ...emptyUsage(), input: 120, cacheRead: 400, cacheWrite: 30, output: 57 },
    };
    const { body } = codec.encodeResponse(response, { model: 'claude-sonnet' });
    expect(body).toMatchObject({
      id: 'chatcmpl-msg_01abc',
      object: 'chat.completion',
      created: 0,
      model: 'claude-sonnet',
      usage: { prompt_tokens: 550, completion_tokens: 57, total_tokens: 607, prompt_tokens_details: { cached_tokens: 400 } },
    });
  });
});

describe('openai_chat finish reasons and content', () => {
  const cases: Array<[Response['finishReason'], string]> = [
    [{ unified: 'stop', raw: 'end_turn' }, 'stop'],
    [{ unified: 'length', raw: 'max_tokens' }, 'length'],
    [{ unified: 'tool_calls', raw: 'tool_use' }, 'tool_calls'],
    [{ unified: 'content_filter', raw: 'refusal' }, 'content_filter'],
    [{ unified: 'stop_sequence', raw: 'stop_sequence' }, 'stop'],
    [{ unified: 'pause', raw: 'pause_turn' }, 'stop'],
    [{ unified: 'other', raw: 'weird' }, 'stop'],
  ];

  it.each(cases)('%o → %s', (finishReason, wire) => {
    const response: Response = { id: 'x', model: 'm', content: [], finishReason, usage: null };
    const body = codec.encodeResponse(response).body as { choices: Array<{ finish_reason: string }> };
    expect(body.choices[0]!.finish_reason).toBe(wire);
  });

  it('decodes function_call and content_filter, keeping raw', () => {
    const decode = (reason: string) =>
      codec.decodeResponse({ id: 'chatcmpl-1', model: 'm', choices: [{ index: 0, message: { content: '' }, finish_reason: reason }] }).response.finishReason;
    expect(decode('function_call')).toEqual({ unified: 'tool_calls', raw: 'function_call' });
    expect(decode('content_filter')).toEqual({ unified: 'content_filter', raw: 'content_filter' });
    expect(decode('something_new')).toEqual({ unified: 'other', raw: 'something_new' });
  });

  it('encodes reasoning (dropping the signature with a warning), refusal and tool calls', () => {
    const response: Response = {
      id: 'chatcmpl-keep',
      model: 'm',
      created: 123,
      content: [
        { type: 'reasoning', text: 'hmm', signature: 'sig', issuer: 'anthropic' },
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        { type: 'refusal', text: 'no' },
        { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{"x":1}' },
      ],
      finishReason: { unified: 'tool_calls', raw: 'tool_use' },
      usage: null,
    };
    const { body, warnings } = codec.encodeResponse(response);
    expect(body.id).toBe('chatcmpl-keep');
    expect(body.created).toBe(123);
    expect(body.usage).toBeUndefined();
    expect((body.choices as Array<{ message: unknown }>)[0]!.message).toEqual({
      role: 'assistant',
      content: 'ab',
      refusal: 'no',
      reasoning_content: 'hmm',
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }],
    });
    expect(warnings.map((w) => w.code)).toEqual(['signature_dropped']);
    const back = codec.decodeResponse(body).response;
    expect(back.content.map((p) => p.type)).toEqual(['reasoning', 'text', 'refusal', 'tool_call']);
  });

  it('throws a canonical upstream_error for a body that is not a response', () => {
    for (const body of [null, 'text', { object: 'chat.completion' }]) {
      let thrown: unknown;
      try {
        codec.decodeResponse(body);
      } catch (error) {
        thrown = error;
      }
      expect(GatewayError.isInstance(thrown) && thrown.code).toBe('upstream_error');
    }
  });
});

describe('openai_chat answerToolCalls', () => {
  it('names the tool calls of every choice, of every kind; null for one it cannot name', () => {
    const message = (m: Body) => ({ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, ...m } });
    const body = {
      choices: [
        message({ tool_calls: [{ id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] }),
        message({
          tool_calls: [
            { id: 'b', type: 'custom', custom: { name: 'shell', input: 'ls' } },
            { id: 'c', type: 'mystery' },
          ],
        }),
        message({ function_call: { name: 'legacy', arguments: '{}' } }),
      ],
    };
    expect(codec.answerToolCalls!(body)).toEqual(['get_weather', 'shell', null, 'legacy']);
    expect(codec.answerToolCalls!({ choices: [message({ content: 'hi' })] })).toEqual([]);
  });
});

describe('openai_chat errors', () => {
  const expected: Array<[ErrorCode, number, string, string | null]> = [
    ['invalid_request', 400, 'invalid_request_error', null],
    ['authentication_failed', 401, 'invalid_request_error', 'invalid_api_key'],
    ['permission_denied', 403, 'invalid_request_error', 'permission_denied'],
    ['model_not_found', 404, 'invalid_request_error', 'model_not_found'],
    ['request_too_large', 413, 'invalid_request_error', 'request_too_large'],
    ['rate_limited', 429, 'requests', 'rate_limit_exceeded'],
    ['quota_exceeded', 429, 'insufficient_quota', 'insufficient_quota'],
    ['upstream_error', 502, 'server_error', null],
    ['internal', 500, 'server_error', null],
    ['overloaded', 503, 'server_error', 'overloaded'],
    ['unavailable', 503, 'server_error', 'service_unavailable'],
  ];

  it.each(expected)('%s renders as HTTP %i %s/%s', (code, status, type, wireCode) => {
    const rendered = codec.renderError(errorInfo(code, 'Something happened.', { param: 'p' }));
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: { message: 'Something happened.', type, param: 'p', code: wireCode } });
  });

  it('sets retry-after, and x-should-retry: false on a quota error', () => {
    expect(codec.renderError(errorInfo('rate_limited', 'slow down', { retryAfterS: 1.2 })).headers).toEqual({ 'retry-after': '2' });
    expect(codec.renderError(errorInfo('quota_exceeded', 'budget')).headers).toEqual({ 'x-should-retry': 'false' });
    expect(codec.renderError(errorInfo('invalid_request', 'bad')).headers).toBeUndefined();
  });

  it('decodes the recorded error bodies', () => {
    expect(codec.decodeError(400, fixtureJson('openai-chat/error-400-unsupported-parameter.json'))).toEqual({
      code: 'invalid_request',
      status: 400,
      param: 'max_tokens',
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    });
    expect(codec.decodeError(404, fixtureJson('openai-chat/error-404-model-not-found.json'))).toEqual({
      code: 'model_not_found',
      status: 404,
      message: 'The model `gpt-4.1-nano-wrong` does not exist or you do not have access to it.',
    });
  });

  it('decodes other shapes and scrubs account details', () => {
    const quota = codec.decodeError(429, {
      error: { message: 'You exceeded your current quota in organization org-AbCdEf123456.', type: 'insufficient_quota', code: 'insufficient_quota' },
    });
    expect(quota.code).toBe('quota_exceeded');
    expect(quota.message).toBe('You exceeded your current quota in organization org-***.');
    const key = codec.decodeError(401, JSON.stringify({ error: { message: 'Incorrect API key provided: sk-proj-abc123XYZ.', code: 'invalid_api_key' } }));
    expect(key.code).toBe('authentication_failed');
    expect(key.message).not.toContain('abc123');
    expect(codec.decodeError(429, { error: { message: 'Rate limit', code: 'rate_limit_exceeded' } }).code).toBe('rate_limited');
    expect(codec.decodeError(503, '<html>down</html>')).toMatchObject({ code: 'unavailable', status: 503 });
    expect(codec.decodeError(500, undefined)).toMatchObject({ code: 'upstream_error', status: 500, message: 'The upstream returned HTTP 500.' });
    expect(codec.decodeError(502, { error: 'bad gateway' })).toMatchObject({ code: 'upstream_error', message: 'bad gateway' });
  });
});
