import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../../test/support/fixtures.js';
import { convertResponse } from '../convert.js';
import { errorInfo } from '../errors/gateway-error.js';
import { bedrockConverseCodec as codec } from './index.js';

type Json = Record<string, any>;

describe('bedrock_converse responses', () => {
  it('the recorded Converse answer: text, stop reason, usage', () => {
    const { response, warnings } = codec.decodeResponse(fixtureJson('bedrock-converse/response-converse.json'));
    expect(warnings).toEqual([]);
    expect(response.content).toEqual([
      { type: 'text', text: "Hello! How can I assist you today? Whether you have questions, need information, or just want to chat, I'm here to help." },
    ]);
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(response.usage).toEqual({ input: 7, output: 30, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true });
  });

  it('the recorded cache hit: cache reads apart from input, as Bedrock counts them', () => {
    const { response } = codec.decodeResponse(fixtureJson('bedrock-converse/response-converse-cache-read.json'));
    expect(response.usage).toMatchObject({ input: 2, output: 5, cacheRead: 1322, cacheWrite: 0 });
    // To an OpenAI client: cached tokens inside prompt_tokens, as OpenAI reports them.
    const openai = convertResponse(fixtureJson('bedrock-converse/response-converse-cache-read.json'), 'bedrock_converse', 'openai_chat', { model: 'nova' })
      .body as Json;
    expect(openai.usage).toMatchObject({ prompt_tokens: 1324, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1322 } });
  });

  it('cache writes split by TTL (cacheDetails), both ways', () => {
    const usage = {
      inputTokens: 10,
      outputTokens: 3,
      totalTokens: 213,
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: 200,
      cacheDetails: [
        { ttl: '1h', inputTokens: 50 },
        { ttl: '5m', inputTokens: 150 },
      ],
    };
    const body = { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn', usage, metrics: { latencyMs: 1 } };
    const { response } = codec.decodeResponse(body);
    expect(response.usage).toMatchObject({ cacheWrite: 150, cacheWrite1h: 50 });
    expect(codec.encodeResponse(response).body.usage).toEqual(usage);
    const anthropic = convertResponse(body, 'bedrock_converse', 'anthropic_messages').body as Json;
    expect(anthropic.usage).toMatchObject({
      cache_creation_input_tokens: 200,
      cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 50 },
    });
  });

  it('reasoning with its signature, redacted reasoning and tool use reach an Anthropic client whole, and come back', () => {
    const body = {
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'think', signature: 'SIG' } } },
            { reasoningContent: { redactedContent: 'UkVE' } },
            { toolUse: { toolUseId: 'tooluse_9', name: 'f', input: { a: 1 } } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      metrics: { latencyMs: 5 },
    };
    const anthropic = convertResponse(body, 'bedrock_converse', 'anthropic_messages', { model: 'claude' });
    expect(anthropic.warnings).toEqual([]);
    expect((anthropic.body as Json).content).toEqual([
      { type: 'thinking', thinking: 'think', signature: 'SIG' },
      { type: 'redacted_thinking', data: 'UkVE' },
      { type: 'tool_use', id: 'tooluse_9', name: 'f', input: { a: 1 } },
    ]);
    expect((anthropic.body as Json).stop_reason).toBe('tool_use');
  });

  it('an answer from another vendor: Bedrock shape, tool_use stop when calls were made, foreign signatures dropped', () => {
    const gemini = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'x', thought: true, thoughtSignature: 'GSIG' }, { functionCall: { name: 'f', args: { a: 1 } } }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 2 },
    };
    const { body, warnings } = convertResponse(gemini, 'gemini_generate_content', 'bedrock_converse');
    const b = body as Json;
    expect(b.stopReason).toBe('tool_use');
    expect(b.output.message.content[0]).toEqual({ reasoningContent: { reasoningText: { text: 'x' } } });
    expect(b.output.message.content[1].toolUse).toMatchObject({ name: 'f', input: { a: 1 } });
    expect(JSON.stringify(b)).not.toContain('GSIG');
    expect(warnings.map((w) => w.code)).toContain('signature_dropped');
    expect(b.usage).toEqual({ inputTokens: 10, outputTokens: 6, totalTokens: 16 });
    expect(b.metrics).toEqual({ latencyMs: 0 });
  });

  it('Bedrock-only response fields are kept for a Bedrock client and reported elsewhere', () => {
    const body = {
      output: { message: { role: 'assistant', content: [{ text: 'hi' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      metrics: { latencyMs: 3 },
      trace: { guardrail: {} },
    };
    const { response } = codec.decodeResponse(body);
    expect(codec.encodeResponse(response).body.trace).toEqual({ guardrail: {} });
    expect(convertResponse(body, 'bedrock_converse', 'openai_chat').warnings.map((w) => [w.code, w.path])).toEqual([['dropped_field', 'trace']]);
  });
});

describe('bedrock_converse errors', () => {
  it('the recorded 400: the exception name from x-amzn-errortype; an invalid model id is model_not_found', () => {
    const body = fixtureJson('bedrock-converse/error-400-validation.json');
    const headers = new Headers({ 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' });
    expect(codec.decodeError(400, body, headers)).toMatchObject({ code: 'model_not_found', message: 'The provided model identifier is invalid.' });
    expect(codec.decodeError(400, { message: 'messages: too long' }, headers)).toEqual({ code: 'invalid_request', status: 400, message: 'messages: too long' });
  });

  it('exception names map to canonical codes; without a header, the status decides', () => {
    const code = (name: string | null, status: number) =>
      codec.decodeError(status, { message: 'm' }, new Headers(name === null ? {} : { 'x-amzn-errortype': name })).code;
    expect(code('ThrottlingException', 429)).toBe('rate_limited');
    expect(code('ServiceQuotaExceededException', 400)).toBe('quota_exceeded');
    expect(code('ModelTimeoutException', 408)).toBe('upstream_timeout');
    expect(code('ServiceUnavailableException', 503)).toBe('unavailable');
    expect(code('ModelErrorException', 424)).toBe('upstream_error');
    expect(code(null, 429)).toBe('rate_limited');
    expect(codec.decodeError(400, { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' }).code).toBe('invalid_request');
  });

  it('the gateway credentials are AWS’s business: their messages are never relayed', () => {
    const info = codec.decodeError(
      403,
      { message: 'The security token included in the request is invalid. AKIAEXAMPLE' },
      new Headers({ 'x-amzn-errortype': 'UnrecognizedClientException' }),
    );
    expect(info.code).toBe('authentication_failed');
    expect(info.message).not.toContain('AKIA');
  });

  it('rendered for an AWS client: { message } and the exception header; a spent budget is not retried', () => {
    expect(codec.renderError(errorInfo('rate_limited', 'slow down', { retryAfterS: 3 }))).toEqual({
      status: 429,
      body: { message: 'slow down' },
      headers: { 'x-amzn-errortype': 'ThrottlingException', 'retry-after': '3' },
    });
    const quota = codec.renderError(errorInfo('quota_exceeded', 'Budget exhausted.'));
    expect(quota.status).toBe(400);
    expect(quota.headers).toMatchObject({ 'x-amzn-errortype': 'ServiceQuotaExceededException', 'x-should-retry': 'false' });
  });
});
