import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { convertResponse } from '../convert.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Response } from '../ir/response.js';
import { answerToolCalls, decodeResponse, encodeResponse } from './index.js';

type Json = Record<string, any>;

describe('gemini_generate_content response decoding (fixtures)', () => {
  it('response-cached-content: promptTokenCount includes the cached tokens; thoughts are output', () => {
    const { response } = decodeResponse(fixtureJson('gemini/response-cached-content.json'));
    expect(response).toMatchObject({
      id: '_VQYaqvRGbW6qtsPg4TDoAg',
      model: 'gemini-2.5-flash',
      content: [{ type: 'text', text: 'Paris.' }],
      finishReason: { unified: 'stop', raw: 'STOP' },
    });
    // prompt 3520 = 8 uncached + 3512 cached; output = 2 candidates + 42 thoughts.
    expect(response.usage).toEqual({ input: 8, output: 44, cacheRead: 3512, cacheWrite: 0, cacheWrite1h: 0, reasoning: 42, measured: true });
  });

  it('response-finish-max-tokens: MAX_TOKENS is length', () => {
    const { response } = decodeResponse(fixtureJson('gemini/response-finish-max-tokens.json'));
    expect(response.content).toEqual([{ type: 'text', text: 'The capital of France is' }]);
    expect(response.finishReason).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
    expect(response.usage).toMatchObject({ input: 15, output: 5, reasoning: 0 });
  });

  it('response-finish-max-tokens-no-content: a candidate without parts, thinking used the budget', () => {
    const { response } = decodeResponse(fixtureJson('gemini/response-finish-max-tokens-no-content.json'));
    expect(response.content).toEqual([]);
    expect(response.finishReason).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
    expect(response.usage).toMatchObject({ input: 15, output: 2, reasoning: 2 });
  });

  it('response-finish-safety: SAFETY is content_filter, safety ratings kept for Gemini', () => {
    const body = fixtureJson<Json>('gemini/response-finish-safety.json');
    const { response } = decodeResponse(body);
    expect(response.content).toEqual([]);
    expect(response.finishReason).toEqual({ unified: 'content_filter', raw: 'SAFETY' });
    expect(response.vendor?.fields['candidates']).toEqual([{ safetyRatings: body['candidates'][0]['safetyRatings'] }]);
    expect((convertResponse(body, 'gemini_generate_content', 'openai_chat').body as Json)['choices'][0]['finish_reason']).toBe('content_filter');
    expect(convertResponse(body, 'gemini_generate_content', 'anthropic_messages').body['stop_reason']).toBe('refusal');
  });

  it('response-prompt-blocked: no candidates → content_filter with a refusal other formats can show', () => {
    const body = fixtureJson<Json>('gemini/response-prompt-blocked.json');
    const { response } = decodeResponse(body);
    expect(response.content).toEqual([{ type: 'refusal', text: 'The prompt violated Prompt Injection and Jailbreak filters.' }]);
    expect(response.finishReason).toEqual({ unified: 'content_filter', raw: 'MODEL_ARMOR' });
    expect(response.usage).toBeNull(); // only a traffic type: the gateway estimates
    expect(response.created).toBe(Math.floor(Date.parse('2026-05-27T16:53:45.443719Z') / 1000));
    const openai = convertResponse(body, 'gemini_generate_content', 'openai_chat').body as Json;
    expect(openai['choices'][0]).toMatchObject({
      message: { content: null, refusal: 'The prompt violated Prompt Injection and Jailbreak filters.' },
      finish_reason: 'content_filter',
    });
    const anthropic = convertResponse(body, 'gemini_generate_content', 'anthropic_messages').body as Json;
    expect(anthropic['stop_reason']).toBe('refusal');
    expect(anthropic['content']).toEqual([{ type: 'text', text: 'The prompt violated Prompt Injection and Jailbreak filters.' }]);
    // Back to Gemini it is the same blocked answer.
    expect(encodeResponse(response).body).toEqual(body);
  });

  it('response-function-call-thought-signature: STOP with a function call is tool_calls; the signature stays on the call', () => {
    const body = fixtureJson<Json>('gemini/response-function-call-thought-signature.json');
    const { response } = decodeResponse(body);
    expect(response.content).toEqual([
      {
        type: 'tool_call',
        id: 'gcall_g5YoaezOBeyrqtsPwYqL2Q8_0',
        name: 'get_capital',
        arguments: '{"country":"France"}',
        thoughtSignature: body['candidates'][0]['content']['parts'][0]['thoughtSignature'],
      },
    ]);
    expect(response.finishReason).toEqual({ unified: 'tool_calls', raw: 'STOP' });
    expect(response.usage).toMatchObject({ input: 57, output: 139, reasoning: 124 });
    expect(response.vendor?.fields['candidates']).toEqual([{ finishMessage: 'Model generated function call(s).', index: 0 }]);
  });

  it('response-parallel-function-calls: three calls, only the first signed, distinct stable ids', () => {
    const body = fixtureJson<Json>('gemini/response-parallel-function-calls.json');
    const { response } = decodeResponse(body);
    const calls = response.content.filter((p) => p.type === 'tool_call');
    expect(calls.map((c) => c.type === 'tool_call' && [c.id, c.name, c.thoughtSignature !== undefined])).toEqual([
      ['gcall_wOd8abGuO5rgz7IP5tLEGA_0', 'generate_topic', true],
      ['gcall_wOd8abGuO5rgz7IP5tLEGA_1', 'generate_topic', false],
      ['gcall_wOd8abGuO5rgz7IP5tLEGA_2', 'generate_topic', false],
    ]);
    const anthropic = convertResponse(body, 'gemini_generate_content', 'anthropic_messages').body as Json;
    expect(anthropic['stop_reason']).toBe('tool_use');
    expect(anthropic['content'].map((b: Json) => b['type'])).toEqual(['tool_use', 'tool_use', 'tool_use']);
    expect(anthropic['content'].every((b: Json) => /^[a-zA-Z0-9_-]+$/.test(b['id']))).toBe(true);
  });

  it('response-thinking-parts: thought parts are google reasoning; the signature on the answer rides before it', () => {
    const body = fixtureJson<Json>('gemini/response-thinking-parts.json');
    const parts = body['candidates'][0]['content']['parts'];
    const { response } = decodeResponse(body);
    expect(response.content).toEqual([
      { type: 'reasoning', text: parts[0]['text'], issuer: 'google' },
      { type: 'reasoning', text: '', signature: parts[1]['thoughtSignature'], issuer: 'google' },
      { type: 'text', text: parts[1]['text'] },
    ]);
    expect(response.usage).toMatchObject({ input: 29, output: 1737, reasoning: 1001 });
    const anthropic = convertResponse(body, 'gemini_generate_content', 'anthropic_messages');
    expect((anthropic.body as Json)['content'].map((b: Json) => b['type'])).toEqual(['thinking', 'text']);
    expect(JSON.stringify(anthropic.body)).not.toContain(parts[1]['thoughtSignature']);
    expect(anthropic.warnings).toContainEqual(expect.objectContaining({ code: 'signature_dropped' }));
  });

  it.each(fixtureFiles('gemini', '.json').filter((f) => f.includes('/response-')))('%s round-trips through the IR unchanged', (file) => {
    const body = fixtureJson<Json>(file);
    const { response } = decodeResponse(body);
    const again = encodeResponse(response).body as Json;
    const expected = structuredClone(body);
    // An absent or empty candidate content comes back as { role: 'model' }.
    for (const c of expected['candidates'] ?? []) if (c['content'] === undefined || c['content']['parts'] === undefined) c['content'] = { role: 'model' };
    expect(again).toEqual(expected);
  });
});

describe('gemini_generate_content answerToolCalls', () => {
  it('names the function calls of every candidate', () => {
    const candidate = (parts: Json[]) => ({ content: { role: 'model', parts } });
    const body = {
      candidates: [
        candidate([{ text: 'hi' }, { functionCall: { name: 'get_weather', args: {} } }]),
        candidate([{ functionCall: { name: 'wire_money' } }, { functionCall: {} }]),
      ],
    };
    expect(answerToolCalls(body)).toEqual(['get_weather', 'wire_money', null]);
  });
});

describe('gemini_generate_content response encoding', () => {
  it('an Anthropic response (thinking, tool use, cache usage) as Gemini', () => {
    const body = convertResponse(fixtureJson('anthropic-messages/response-cache-read.json'), 'anthropic_messages', 'gemini_generate_content').body as Json;
    const source = fixtureJson<Json>('anthropic-messages/response-cache-read.json');
    const u = source['usage'];
    expect(body['usageMetadata']).toMatchObject({
      promptTokenCount: u['input_tokens'] + u['cache_read_input_tokens'] + (u['cache_creation_input_tokens'] ?? 0),
      cachedContentTokenCount: u['cache_read_input_tokens'],
      candidatesTokenCount: u['output_tokens'],
    });
    const thinking = convertResponse(fixtureJson('anthropic-messages/response-thinking.json'), 'anthropic_messages', 'gemini_generate_content');
    const parts = (thinking.body as Json)['candidates'][0]['content']['parts'] as Json[];
    expect(parts[0]).toMatchObject({ thought: true });
    expect(parts.some((p) => p['thoughtSignature'] !== undefined)).toBe(false); // an Anthropic signature never goes to a Gemini client
    expect(thinking.warnings).toContainEqual(expect.objectContaining({ code: 'signature_dropped' }));
    const tools = convertResponse(fixtureJson('anthropic-messages/response-tool-use-parallel.json'), 'anthropic_messages', 'gemini_generate_content')
      .body as Json;
    const calls = (tools['candidates'][0]['content']['parts'] as Json[]).filter((p) => p['functionCall'] !== undefined);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls[0]!['functionCall']).toEqual({ id: expect.stringMatching(/^toolu_/), name: expect.any(String), args: expect.any(Object) });
    expect(tools['candidates'][0]['finishReason']).toBe('STOP');
  });

  it('usage: reasoning is thoughtsTokenCount, the rest of output is candidates', () => {
    const response: Response = {
      id: 'r',
      model: 'm',
      content: [{ type: 'text', text: 'x' }],
      finishReason: { unified: 'length', raw: 'length' },
      usage: { input: 10, output: 30, cacheRead: 5, cacheWrite: 2, cacheWrite1h: 1, reasoning: 20, measured: true },
    };
    expect(encodeResponse(response, { model: 'alias' }).body).toEqual({
      candidates: [{ content: { parts: [{ text: 'x' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }],
      usageMetadata: { promptTokenCount: 18, candidatesTokenCount: 10, cachedContentTokenCount: 5, thoughtsTokenCount: 20, totalTokenCount: 48 },
      modelVersion: 'alias',
      responseId: 'r',
    });
  });

  it('finish reasons keep the raw Gemini value when it means the same', () => {
    const finish = (unified: Response['finishReason']['unified'], raw: string | null) =>
      (encodeResponse({ id: '', model: '', content: [], finishReason: { unified, raw }, usage: null }).body as Json)['candidates'][0]['finishReason'];
    expect(finish('content_filter', 'RECITATION')).toBe('RECITATION');
    expect(finish('error', 'MALFORMED_FUNCTION_CALL')).toBe('MALFORMED_FUNCTION_CALL');
    expect(finish('content_filter', 'refusal')).toBe('SAFETY');
    expect(finish('tool_calls', 'tool_use')).toBe('STOP');
    expect(finish('stop_sequence', 'stop_sequence')).toBe('STOP');
    expect(decodeResponse({ candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL' }] }).response.finishReason).toEqual({
      unified: 'error',
      raw: 'MALFORMED_FUNCTION_CALL',
    });
    expect(decodeResponse({ candidates: [{ finishReason: 'BLOCKLIST' }] }).response.finishReason.unified).toBe('content_filter');
  });

  it('an error body or a non-object is a canonical error, not a response', () => {
    expect(() => decodeResponse('nope')).toThrow(GatewayError);
    let error: unknown;
    try {
      decodeResponse(fixtureJson('gemini/error-429-resource-exhausted.json'));
    } catch (e) {
      error = e;
    }
    expect(GatewayError.isInstance(error) && error.code).toBe('rate_limited');
  });

  it('tolerates odd upstream parts (wrong types, unknown fields) with warnings', () => {
    const { response, warnings } = decodeResponse({
      candidates: [{ content: { parts: [{ text: 3 }, 'x', { executableCode: { code: 'print(1)' } }, { text: 'ok' }] } }, { content: {} }],
    });
    expect(response.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(warnings.length).toBeGreaterThanOrEqual(4);
  });
});
