/** Token counting and embeddings endpoints of the formats that have them, and translation between them. */
import { describe, expect, it } from 'vitest';
import { GatewayError } from './errors/gateway-error.js';
import { countTokensCodecs, embeddingsCodecs } from './kinds.js';
import { base64ToVector, vectorToBase64 } from './shared/float-base64.js';

type Json = Record<string, any>;

const count = (format: keyof typeof countTokensCodecs) => countTokensCodecs[format]!;
const embed = (format: keyof typeof embeddingsCodecs) => embeddingsCodecs[format]!;

describe('count_tokens codecs', () => {
  it('which formats count, which embed', () => {
    expect(Object.keys(countTokensCodecs).sort()).toEqual(['anthropic_messages', 'bedrock_converse', 'gemini_generate_content', 'openai_responses']);
    expect(Object.keys(embeddingsCodecs).sort()).toEqual(['gemini_generate_content', 'openai_chat']);
  });

  const claudeCode = {
    model: 'claude-sonnet-4-5',
    system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'List the files.' }],
  };

  it('Anthropic → each upstream: a request its counting endpoint takes (no output bound, no stream)', () => {
    const { request } = count('anthropic_messages').decodeRequest(structuredClone(claudeCode));
    const anthropic = count('anthropic_messages').encodeRequest(request, { model: 'claude-sonnet-4-5' });
    expect(anthropic.warnings).toEqual([]);
    expect(anthropic.body).toEqual({
      model: 'claude-sonnet-4-5',
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'List the files.' }] }],
      tools: claudeCode.tools,
    });
    const gemini = count('gemini_generate_content').encodeRequest(request, { model: 'gemini-2.5-pro' }).body as Json;
    expect(gemini.generateContentRequest).toMatchObject({
      model: 'models/gemini-2.5-pro',
      systemInstruction: { parts: [{ text: 'You are Claude Code.' }] },
      contents: [{ role: 'user', parts: [{ text: 'List the files.' }] }],
    });
    expect(gemini.generateContentRequest.tools[0].functionDeclarations[0].name).toBe('Bash');
    const bedrock = count('bedrock_converse').encodeRequest(request, { model: 'us.anthropic.claude-sonnet-4-5-v1:0' }).body as Json;
    expect(Object.keys(bedrock)).toEqual(['input']);
    expect(Object.keys(bedrock.input.converse).sort()).toEqual(['messages', 'system', 'toolConfig']);
    const openai = count('openai_responses').encodeRequest(request, { model: 'gpt-5' }).body as Json;
    expect(openai).toMatchObject({ model: 'gpt-5', instructions: 'You are Claude Code.' });
    expect(openai.max_output_tokens).toBeUndefined();
    expect(openai.stream).toBeUndefined();
  });

  it('each answer read and written in its format', () => {
    expect(count('anthropic_messages').decodeResponse({ input_tokens: 2095 })).toBe(2095);
    expect(count('openai_responses').decodeResponse({ object: 'response.input_tokens', input_tokens: 11 })).toBe(11);
    expect(count('gemini_generate_content').decodeResponse({ totalTokens: 31, promptTokensDetails: [] })).toBe(31);
    expect(count('bedrock_converse').decodeResponse({ inputTokens: 7 })).toBe(7);
    expect(count('anthropic_messages').encodeResponse(5)).toEqual({ input_tokens: 5 });
    expect(count('openai_responses').encodeResponse(5)).toEqual({ object: 'response.input_tokens', input_tokens: 5 });
    expect(count('gemini_generate_content').encodeResponse(5)).toEqual({ totalTokens: 5 });
    expect(count('bedrock_converse').encodeResponse(5)).toEqual({ inputTokens: 5 });
    expect(() => count('anthropic_messages').decodeResponse({ type: 'message' })).toThrow(/no input_tokens/);
  });

  it('Gemini takes bare contents or a whole generateContentRequest; Bedrock takes input.converse only', () => {
    const bare = count('gemini_generate_content').decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { model: 'gemini-2.5-pro' });
    expect(bare.request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    const whole = count('gemini_generate_content').decodeRequest(
      { generateContentRequest: { model: 'models/x', contents: [{ parts: [{ text: 'hi' }] }], systemInstruction: { parts: [{ text: 'sys' }] } } },
      { model: 'x' },
    );
    expect(whole.request.system).toEqual([{ type: 'text', text: 'sys' }]);
    const converse = count('bedrock_converse').decodeRequest(
      { input: { converse: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } } },
      { model: 'm' },
    );
    expect(converse.request.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    expect(() => count('bedrock_converse').decodeRequest({ input: { invokeModel: { body: 'x' } } })).toThrow(GatewayError);
    expect(() => count('bedrock_converse').decodeRequest({ messages: [] })).toThrow(/input/);
  });
});

describe('embeddings codecs', () => {
  it('OpenAI input shapes: a string, strings, token ids; base64 asked for by the SDKs', () => {
    const e = embed('openai_chat');
    expect(e.decodeRequest({ model: 'm', input: 'hello' }).request).toEqual({ model: 'm', inputs: ['hello'], batch: false });
    expect(e.decodeRequest({ model: 'm', input: ['a', 'b'], dimensions: 256, encoding_format: 'base64', user: 'u' }).request).toEqual({
      model: 'm',
      inputs: ['a', 'b'],
      batch: true,
      dimensions: 256,
      encoding: 'base64',
      user: 'u',
    });
    expect(e.decodeRequest({ model: 'm', input: [1, 2, 3] }).request.inputs).toEqual([[1, 2, 3]]);
    expect(() => e.decodeRequest({ model: 'm', input: [] })).toThrow(/input/);
    expect(() => e.decodeRequest({ model: 'm', input: 'x', encoding_format: 'hex' })).toThrow(/encoding_format/);
  });

  it('base64 vectors are little-endian float32, exactly', () => {
    const v = [0.5, -1.25, 3.0000001192092896, 0];
    expect(base64ToVector(vectorToBase64(v))).toEqual(v.map((x) => Math.fround(x)));
    expect(vectorToBase64([1])).toBe('AACAPw==');
    expect(base64ToVector('AAA=')).toBeUndefined();
  });

  it('OpenAI ⇄ Gemini: inputs, dimensions, task type; the answer in the shape and encoding the client asked for', () => {
    const { request } = embed('openai_chat').decodeRequest({
      model: 'text-embedding-3-small',
      input: ['one', 'two'],
      dimensions: 768,
      encoding_format: 'base64',
    });
    const gemini = embed('gemini_generate_content').encodeRequest(request, { model: 'gemini-embedding-001' });
    expect(gemini.body).toEqual({
      requests: [
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'one' }] }, outputDimensionality: 768 },
        { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'two' }] }, outputDimensionality: 768 },
      ],
    });
    const answer = embed('gemini_generate_content').decodeResponse({ embeddings: [{ values: [0.25, 0.5] }, { values: [1, 2] }] });
    expect(answer.usage).toBeNull();
    const shown = embed('openai_chat').encodeResponse(answer, request, { model: 'text-embedding-3-small' }).body as Json;
    expect(shown.data.map((d: Json) => base64ToVector(d.embedding))).toEqual([
      [0.25, 0.5],
      [1, 2],
    ]);
    expect(shown).toMatchObject({ object: 'list', model: 'text-embedding-3-small' });

    const single = embed('gemini_generate_content').decodeRequest(
      { content: { parts: [{ text: 'q' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 3 },
      { model: 'gemini-embedding-001' },
    );
    expect(single.request).toEqual({ model: 'gemini-embedding-001', inputs: ['q'], batch: false, taskType: 'RETRIEVAL_QUERY', dimensions: 3 });
    const toOpenai = embed('openai_chat').encodeRequest(single.request, { model: 'text-embedding-3-large' });
    expect(toOpenai.body).toEqual({ model: 'text-embedding-3-large', input: 'q', dimensions: 3, encoding_format: 'float' });
    expect(toOpenai.warnings.map((w) => w.path)).toEqual(['taskType']);
    const openaiAnswer = embed('openai_chat').decodeResponse({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2, 0.3] }],
      model: 'text-embedding-3-large',
      usage: { prompt_tokens: 1, total_tokens: 1 },
    });
    expect(openaiAnswer.usage?.input).toBe(1);
    expect(embed('gemini_generate_content').encodeResponse(openaiAnswer, single.request).body).toEqual({ embedding: { values: [0.1, 0.2, 0.3] } });
  });

  it('Gemini batches are answered as batches; token-id input cannot go to Gemini', () => {
    const batch = embed('gemini_generate_content').decodeRequest(
      {
        requests: [
          { model: 'models/g', content: { parts: [{ text: 'a' }] } },
          { model: 'models/g', content: { parts: [{ text: 'b' }] } },
        ],
      },
      { model: 'g' },
    );
    expect(batch.request).toMatchObject({ inputs: ['a', 'b'], batch: true });
    expect(embed('gemini_generate_content').encodeResponse({ model: '', vectors: [[1], [2]], usage: null }, batch.request).body).toEqual({
      embeddings: [{ values: [1] }, { values: [2] }],
    });
    const tokens = embed('openai_chat').decodeRequest({ model: 'm', input: [[1, 2]] }).request;
    expect(() => embed('gemini_generate_content').encodeRequest(tokens, { model: 'g' })).toThrow(/token ids/);
    expect(() => embed('gemini_generate_content').decodeRequest({ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } })).toThrow(
      /only text parts/,
    );
  });

  it('a hostile upstream: a non-vector embedding or no data is an upstream error, not a crash', () => {
    expect(() => embed('openai_chat').decodeResponse({ data: [{ embedding: 'not base64!!' }] })).toThrow(GatewayError);
    expect(() => embed('openai_chat').decodeResponse({ object: 'list' })).toThrow(/no data/);
    expect(() => embed('gemini_generate_content').decodeResponse({ embeddings: [{ values: ['x'] }] })).toThrow(GatewayError);
  });
});
