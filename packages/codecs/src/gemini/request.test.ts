import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { convertRequest } from '../convert.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Request } from '../ir/request.js';
import { decodeRequest, encodeRequest, geminiCodec } from './index.js';

type Json = Record<string, any>;

/** A body as proto3 JSON would read it: every key in lowerCamelCase. */
function camel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camel);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(v)]));
}

/** Gemini reads schema types case-insensitively; the codec writes JSON Schema's lower case. */
function lowerTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerTypes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'type' && typeof v === 'string' ? v.toLowerCase() : lowerTypes(v)]));
}

/** `parameters_json_schema` and `parameters` say the same thing when the schema fits the subset. */
function sameTools(body: Json): Json {
  const out = camel(lowerTypes(body)) as Json;
  for (const tool of out['tools'] ?? []) {
    for (const decl of tool['functionDeclarations'] ?? []) {
      if (decl['description'] === '') delete decl['description'];
    }
  }
  delete out['systemInstruction']?.['role'];
  return out;
}

describe('gemini_generate_content request decoding (fixtures)', () => {
  it('request-with-tools: system instruction, a JSON Schema tool (snake_case key), temperature 0', () => {
    const { request, warnings, unclassified } = decodeRequest(fixtureJson('gemini/request-with-tools.json'), { model: 'gemini-2.5-pro' });
    expect(unclassified).toEqual([]);
    expect(warnings).toEqual([]);
    expect(request.model).toBe('gemini-2.5-pro');
    expect(request.stream).toBe(false);
    expect(request.system).toEqual([{ type: 'text', text: 'You are a helpful chatbot.' }]);
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'What is the capital of France?' }] }]);
    expect(request.temperature).toBe(0);
    expect(request.tools).toEqual([
      {
        type: 'function',
        name: 'get_capital',
        description: 'Get the capital of a country.',
        parameters: {
          additionalProperties: false,
          properties: { country: { description: 'The country name.', type: 'string' } },
          required: ['country'],
          type: 'object',
        },
      },
    ]);
    expect(request.vendor).toEqual({ format: 'gemini_generate_content', fields: { generationConfig: { responseModalities: ['TEXT'] } } });
  });

  it('request-function-response: the model turn keeps id and thoughtSignature; the result becomes a tool message', () => {
    const body = fixtureJson<Json>('gemini/request-function-response.json');
    const { request } = decodeRequest(body, { model: 'gemini-3-pro-preview', stream: true });
    expect(request.stream).toBe(true);
    const sig = body['contents'][1]['parts'][0]['thoughtSignature'];
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is the capital of the user country? Call the tool' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'pyd_ai_29bf73b69e02448588e15893d47a3e7e', name: 'get_country', arguments: '{}', thoughtSignature: sig }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'pyd_ai_29bf73b69e02448588e15893d47a3e7e',
            toolName: 'get_country',
            content: [{ type: 'text', text: '{"return_value":"Mexico"}' }],
          },
        ],
      },
    ]);
  });

  it('request-stream-thinking: includeThoughts and an OBJECT-typed parameters schema become JSON Schema', () => {
    const { request } = decodeRequest(fixtureJson('gemini/request-stream-thinking.json'), { model: 'gemini-2.5-pro', stream: true });
    expect(request.reasoning).toEqual({ includeThoughts: true });
    expect(request.tools[0]).toEqual({ type: 'function', name: 'dummy', parameters: { properties: {}, type: 'object' } });
  });

  it('request-cached-content: cachedContent and responseModalities travel as Gemini vendor fields', () => {
    const { request, unclassified } = decodeRequest(fixtureJson('gemini/request-cached-content.json'));
    expect(unclassified).toEqual([]);
    expect(request.vendor?.fields).toEqual({
      cachedContent: 'cachedContents/7lf5him5ev4iemi1yjv2gwli5bhpz3yidzejwllo',
      generationConfig: { responseModalities: ['TEXT'] },
    });
    const other = encodeRequest(request).body;
    expect(other['cachedContent']).toBe('cachedContents/7lf5him5ev4iemi1yjv2gwli5bhpz3yidzejwllo');
    const openai = convertRequest(fixtureJson('gemini/request-cached-content.json'), 'gemini_generate_content', 'openai_chat', { model: 'gpt-4o' });
    expect(
      openai.warnings
        .filter((w) => w.code === 'dropped_field')
        .map((w) => w.path)
        .sort(),
    ).toEqual(['cachedContent', 'generationConfig']);
  });

  it.each(fixtureFiles('gemini', '.json').filter((f) => f.includes('/request-')))('%s re-encodes to the same request (no model in the body)', (file) => {
    const body = fixtureJson<Json>(file);
    const decoded = decodeRequest(body, { model: 'm' });
    const encoded = encodeRequest(decoded.request, { model: 'm' });
    expect(encoded.body['model']).toBeUndefined();
    expect(sameTools(encoded.body)).toEqual(sameTools(body));
    // And once more through the IR: a fixed point.
    expect(encodeRequest(decodeRequest(encoded.body).request).body).toEqual(encoded.body);
  });
});

describe('gemini_generate_content request fields', () => {
  const base = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

  it('generationConfig maps onto the IR and back', () => {
    const generationConfig = {
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      candidateCount: 1,
      responseMimeType: 'application/json',
      responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING', nullable: true } } },
      thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
    };
    const { request } = decodeRequest({ ...base, generationConfig });
    expect(request).toMatchObject({
      maxTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stopSequences: ['END'],
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: ['string', 'null'] } } } },
      reasoning: { enabled: true, budgetTokens: 2048, includeThoughts: true },
    });
    expect(request.vendor?.fields).toEqual({ generationConfig: { candidateCount: 1 } });
    expect(encodeRequest(request).body['generationConfig']).toEqual({
      ...generationConfig,
      responseSchema: { type: 'object', properties: { a: { type: 'string', nullable: true } } },
    });
  });

  it('thinkingConfig: budget 0 is off, -1 is dynamic, thinkingLevel is an effort', () => {
    const reasoning = (thinkingConfig: Json) => decodeRequest({ ...base, generationConfig: { thinkingConfig } }).request.reasoning;
    expect(reasoning({ thinkingBudget: 0 })).toEqual({ enabled: false });
    expect(reasoning({ thinkingBudget: -1 })).toEqual({ enabled: true });
    expect(reasoning({ thinkingLevel: 'high' })).toEqual({ effort: 'high' });
    expect(reasoning({ thinking_level: 'LOW' })).toEqual({ effort: 'low' });
    const roundTrip = (thinkingConfig: Json) =>
      encodeRequest(decodeRequest({ ...base, generationConfig: { thinkingConfig } }).request).body['generationConfig'];
    expect(roundTrip({ thinkingLevel: 'high', includeThoughts: true })).toEqual({ thinkingConfig: { thinkingLevel: 'high', includeThoughts: true } });
    expect(roundTrip({ thinkingBudget: 0 })).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });

  it('reasoning from other formats becomes a thinking budget (with a warning for an effort)', () => {
    const fromAnthropic = convertRequest(
      { model: 'c', max_tokens: 4000, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled', budget_tokens: 2000 } },
      'anthropic_messages',
      'gemini_generate_content',
    );
    expect(fromAnthropic.body['generationConfig']).toEqual({ maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 2000, includeThoughts: true } });
    const fromOpenai = convertRequest(
      { model: 'o', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(fromOpenai.body['generationConfig']).toEqual({ thinkingConfig: { thinkingBudget: 2048 } });
    expect(fromOpenai.warnings).toContainEqual(expect.objectContaining({ code: 'lossy_conversion', path: 'reasoning.effort' }));
  });

  it('toolConfig ⇄ tool choice', () => {
    const choice = (functionCallingConfig: Json) => decodeRequest({ ...base, toolConfig: { functionCallingConfig } }).request.toolChoice;
    expect(choice({ mode: 'AUTO' })).toEqual({ type: 'auto' });
    expect(choice({ mode: 'NONE' })).toEqual({ type: 'none' });
    expect(choice({ mode: 'ANY' })).toEqual({ type: 'required' });
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['f'] })).toEqual({ type: 'tool', name: 'f' });
    const tools = [{ functionDeclarations: [{ name: 'f' }, { name: 'g' }] }];
    const two = decodeRequest({ ...base, tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f', 'g'] } } });
    expect(two.request.toolChoice).toEqual({ type: 'required' });
    expect(two.warnings).toContainEqual(expect.objectContaining({ code: 'lossy_conversion' }));
    expect(encodeRequest(two.request).body['toolConfig']).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f', 'g'] } });
    const toOpenai = convertRequest(
      {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
      },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(toOpenai.body['toolConfig']).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
  });

  it('parts: inlineData and fileData ⇄ media sources', () => {
    const { request } = decodeRequest({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'look' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
            { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
            { file_data: { mime_type: 'image/jpeg', file_uri: 'https://example.com/cat.jpg' } },
            { inline_data: { mime_type: 'audio/wav', data: 'UklGRg==' } },
          ],
        },
      ],
    });
    expect(request.messages[0]!.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'file', source: { kind: 'file_id', fileId: 'https://generativelanguage.googleapis.com/v1beta/files/abc', mediaType: 'application/pdf' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'audio/wav', data: 'UklGRg==' } },
    ]);
    expect(encodeRequest(request).body['contents']).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'look' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'application/pdf', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.jpg' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
        ],
      },
    ]);
    // A data URI from an OpenAI client becomes inline bytes.
    const fromOpenai = convertRequest(
      { model: 'x', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] },
      'openai_chat',
      'gemini_generate_content',
    );
    expect(fromOpenai.body['contents']).toEqual([{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }]);
  });

  it('function calls without ids get stable positional ids; results match by name and order', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'go' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'a', args: { n: 1 } } }, { functionCall: { name: 'b', args: {} } }, { functionCall: { name: 'a', args: { n: 2 } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'a', response: { output: 'one' } } },
            { functionResponse: { name: 'a', response: { error: 'two failed' } } },
            { functionResponse: { name: 'b', response: { x: 1 } } },
          ],
        },
      ],
    };
    const first = decodeRequest(body).request;
    expect(decodeRequest(body).request).toEqual(first); // deterministic
    const calls = first.messages[1]!.content.map((p) => (p.type === 'tool_call' ? [p.id, p.name, p.arguments] : null));
    expect(calls).toEqual([
      ['gcall_0', 'a', '{"n":1}'],
      ['gcall_1', 'b', '{}'],
      ['gcall_2', 'a', '{"n":2}'],
    ]);
    expect(first.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool_result', toolCallId: 'gcall_0', toolName: 'a', content: [{ type: 'text', text: 'one' }] },
        { type: 'tool_result', toolCallId: 'gcall_2', toolName: 'a', content: [{ type: 'text', text: 'two failed' }], isError: true },
        { type: 'tool_result', toolCallId: 'gcall_1', toolName: 'b', content: [{ type: 'text', text: '{"x":1}' }] },
      ],
    });
    // Made-up ids never reach Gemini: it matches by order again.
    expect(encodeRequest(first).body['contents']).toEqual(body.contents);
    // Another format sees consistent ids on both sides.
    const anthropic = convertRequest(body, 'gemini_generate_content', 'anthropic_messages', { model: 'c' }).body as Json;
    expect(anthropic['messages'][1]['content'].map((b: Json) => b['id'])).toEqual(['gcall_0', 'gcall_1', 'gcall_2']);
    expect(anthropic['messages'][2]['content'].map((b: Json) => b['tool_use_id'])).toEqual(['gcall_0', 'gcall_2', 'gcall_1']);
  });

  it('tool results from other formats get their function name from the matching call', () => {
    const out = convertRequest(fixtureJson('openai-chat/request-with-tool-result.json'), 'openai_chat', 'gemini_generate_content').body as Json;
    const contents = out['contents'] as Json[];
    const call = contents.find((c) => c['role'] === 'model')!['parts'][0];
    const result = contents.find((c) => c['parts'].some((p: Json) => p['functionResponse'] !== undefined))!['parts'][0]['functionResponse'];
    expect(result['name']).toBe(call['functionCall']['name']);
    expect(result['id']).toBe(call['functionCall']['id']);
    expect(contents.map((c) => c['role'])).toEqual(['user', 'model', 'user']);
  });

  it('thought parts in history are google reasoning; a signature on a text part rides before it', () => {
    const { request } = decodeRequest({
      contents: [
        { role: 'user', parts: [{ text: 'q' }] },
        {
          role: 'model',
          parts: [
            { text: 'thinking…', thought: true, thoughtSignature: 'AAAA' },
            { text: 'answer', thoughtSignature: 'BBBB' },
          ],
        },
        { role: 'user', parts: [{ text: 'more' }] },
      ],
    });
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'thinking…', signature: 'AAAA', issuer: 'google' },
      { type: 'reasoning', text: '', signature: 'BBBB', issuer: 'google' },
      { type: 'text', text: 'answer' },
    ]);
    expect((encodeRequest(request).body['contents'] as Json[])[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'thinking…', thought: true, thoughtSignature: 'AAAA' },
        { text: 'answer', thoughtSignature: 'BBBB' },
      ],
    });
  });

  it("never sends another vendor's signatures to Gemini", () => {
    const request: Request = {
      system: [],
      tools: [],
      stream: false,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'claude thinks', signature: 'anthropic-sig', issuer: 'anthropic' },
            { type: 'reasoning', text: '', redactedData: 'opaque', issuer: 'anthropic' },
            { type: 'reasoning', text: '', encryptedContent: 'enc', issuer: 'openai' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    };
    const { body, warnings } = encodeRequest(request);
    expect(JSON.stringify(body)).not.toMatch(/anthropic-sig|opaque|enc"|claude thinks/);
    expect((body['contents'] as Json[])[1]).toEqual({ role: 'model', parts: [{ text: 'answer' }] });
    expect(warnings.filter((w) => w.code === 'signature_dropped')).toHaveLength(3);
  });

  it('built-in tools, safety settings and labels stay Gemini-only', () => {
    const body = {
      ...base,
      tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: {} } }], codeExecution: {} }],
      safetySettings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_NONE' }],
      labels: { team: 'a' },
    };
    const decoded = decodeRequest(body);
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.request.tools.map((t) => t.name)).toEqual(['f']);
    expect(decoded.warnings.filter((w) => w.code === 'unsupported_feature')).toHaveLength(2);
    const again = encodeRequest(decoded.request).body;
    expect(again['tools']).toEqual([
      { functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: {} } }] },
      { googleSearch: {} },
      { codeExecution: {} },
    ]);
    expect(again['safetySettings']).toEqual(body.safetySettings);
    const openai = convertRequest(body, 'gemini_generate_content', 'openai_chat', { model: 'x' });
    expect((openai.body['tools'] as unknown[]).length).toBe(1);
    expect(openai.warnings.map((w) => w.path)).toEqual(expect.arrayContaining(['safetySettings', 'labels', 'tools']));
  });

  it('unknown top-level fields are unclassified, never silently dropped', () => {
    const decoded = decodeRequest({ ...base, surprise: 1 });
    expect(decoded.unclassified).toEqual(['surprise']);
    expect(decoded.warnings).toContainEqual(expect.objectContaining({ code: 'unclassified_field', path: 'surprise' }));
    expect(encodeRequest(decoded.request).body['surprise']).toBe(1);
  });

  it('every known field is classified', () => {
    const sample: Json = {
      model: 'models/gemini-2.5-flash',
      contents: base.contents,
      systemInstruction: { parts: [{ text: 's' }] },
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 1 },
      safetySettings: [],
      cachedContent: 'cachedContents/x',
      labels: {},
      modelArmorConfig: {},
    };
    for (const field of geminiCodec.knownRequestFields) expect(sample).toHaveProperty(field);
    const decoded = decodeRequest(sample);
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.request.model).toBe('gemini-2.5-flash');
    expect(decodeRequest(sample, { model: 'from-url' }).request.model).toBe('from-url');
  });

  it('rejects malformed client requests with invalid_request', () => {
    const bad = [
      null,
      [],
      {},
      { contents: 'hi' },
      { contents: [{ role: 'system', parts: [{ text: 'x' }] }] },
      { contents: [{ role: 'user', parts: 'x' }] },
      { contents: [{ role: 'user', parts: [{ text: 3 }] }] },
      { contents: [{ role: 'model', parts: [{ functionCall: { args: {} } }] }] },
      { contents: [{ role: 'user', parts: [{ inlineData: { data: 'x' } }] }] },
      { ...base, generationConfig: { maxOutputTokens: 1.5 } },
      { ...base, generationConfig: { stopSequences: [1] } },
      { ...base, tools: [{ functionDeclarations: [{ description: 'no name' }] }] },
    ];
    for (const body of bad) {
      let error: unknown;
      try {
        decodeRequest(body);
      } catch (e) {
        error = e;
      }
      expect(GatewayError.isInstance(error), JSON.stringify(body)).toBe(true);
      expect((error as GatewayError).code).toBe('invalid_request');
    }
  });
});
