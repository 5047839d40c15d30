import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { convertRequest } from '../convert.js';
import { GatewayError } from '../errors/gateway-error.js';
import { bedrockConverseCodec as codec } from './index.js';

type Json = Record<string, any>;

const requests = fixtureFiles('bedrock-converse', '.json').filter((f) => f.includes('/request-'));

describe('bedrock_converse requests', () => {
  it.each(requests)('%s: decodes completely, and encodes back to a body that decodes the same', (file) => {
    const body = fixtureJson<Json>(file);
    const decoded = codec.decodeRequest(body, { model: 'us.amazon.nova-micro-v1:0', stream: file.includes('stream') });
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.warnings).toEqual([]);
    expect(decoded.request.model).toBe('us.amazon.nova-micro-v1:0');
    const encoded = codec.encodeRequest(decoded.request);
    expect(encoded.warnings).toEqual([]);
    expect(codec.decodeRequest(encoded.body, { model: 'us.amazon.nova-micro-v1:0', stream: decoded.request.stream }).request).toEqual(decoded.request);
  });

  it('the recorded tool request: system, tools with their schemas, sampling', () => {
    const { request } = codec.decodeRequest(fixtureJson('bedrock-converse/request-converse-stream-tools.json'), { stream: true });
    expect(request.stream).toBe(true);
    expect(request.system).toEqual([{ type: 'text', text: 'You are a helpful chatbot.' }]);
    expect(request.topP).toBe(0.5);
    expect(request.tools.map((t) => t.name)).toEqual(['get_capital', 'get_temperature']);
    expect(request.tools[0]!.parameters).toMatchObject({ type: 'object', required: ['country'] });
  });

  const conversation: Json = {
    system: [{ text: 'Be terse.' }, { cachePoint: { type: 'default', ttl: '1h' } }],
    messages: [
      { role: 'user', content: [{ text: 'Weather in Paris?' }, { cachePoint: { type: 'default' } }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Call the tool.', signature: 'SIG==' } } },
          { reasoningContent: { redactedContent: 'UkVEQUNURUQ=' } },
          { text: 'Checking.' },
          { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ json: { temp: 21 } }, { text: 'sunny' }], status: 'success' } },
          { text: 'And tomorrow?' },
          { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
          { document: { format: 'pdf', name: 'report', source: { s3Location: { uri: 's3://bucket/report.pdf' } } } },
        ],
      },
    ],
    inferenceConfig: { maxTokens: 2048, temperature: 0.2, stopSequences: ['END'] },
    toolConfig: {
      tools: [
        { toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } },
        { cachePoint: { type: 'default' } },
      ],
      toolChoice: { tool: { name: 'get_weather' } },
    },
    additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 }, top_k: 5, anthropic_beta: ['interleaved-thinking-2025-05-14'] },
    requestMetadata: { team: 'payments' },
    guardrailConfig: { guardrailIdentifier: 'gr-1', guardrailVersion: '1' },
  };

  it('messages, reasoning with its signature, tool use and results, cache points, media: into the IR', () => {
    const { request, unclassified, warnings } = codec.decodeRequest(structuredClone(conversation), { model: 'm' });
    expect(unclassified).toEqual([]);
    expect(warnings).toEqual([]);
    expect(request.system).toEqual([{ type: 'text', text: 'Be terse.', cacheControl: { type: 'ephemeral', ttl: '1h' } }]);
    expect(request.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?', cacheControl: { type: 'ephemeral' } }] });
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'Call the tool.', signature: 'SIG==', issuer: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: 'UkVEQUNURUQ=', issuer: 'anthropic' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(request.messages[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool_result',
          toolCallId: 'tooluse_1',
          isError: false,
          content: [
            { type: 'text', text: '{"temp":21}' },
            { type: 'text', text: 'sunny' },
          ],
        },
      ],
    });
    expect(request.messages[3]!.content).toEqual([
      { type: 'text', text: 'And tomorrow?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'file', filename: 'report', source: { kind: 'url', url: 's3://bucket/report.pdf', mediaType: 'application/pdf' } },
    ]);
    expect(request).toMatchObject({
      maxTokens: 2048,
      temperature: 0.2,
      stopSequences: ['END'],
      topK: 5,
      toolChoice: { type: 'tool', name: 'get_weather' },
      metadata: { team: 'payments' },
    });
    expect(request.reasoning).toEqual({ enabled: true, budgetTokens: 1024 });
    expect(request.tools[0]!.cacheControl).toEqual({ type: 'ephemeral' });
    expect(request.vendor?.fields).toEqual({
      additionalModelRequestFields: { anthropic_beta: ['interleaved-thinking-2025-05-14'] },
      guardrailConfig: conversation.guardrailConfig,
    });
  });

  it('a Bedrock body survives decode → encode: every block, cache point and vendor field', () => {
    const { request } = codec.decodeRequest(structuredClone(conversation), { model: 'm' });
    const { body, warnings } = codec.encodeRequest(request);
    expect(warnings).toEqual([]);
    // JSON tool results come back as their text: Converse takes either.
    const expected = structuredClone(conversation);
    expected.messages[2].content[0].toolResult.content[0] = { text: '{"temp":21}' };
    expect(body).toEqual(expected);
  });

  it('an Anthropic client reaches Bedrock with thinking, signatures, cache_control and tool results intact', () => {
    const anthropic = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'SIG' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny', is_error: false }] },
      ],
    };
    const { body, warnings } = convertRequest(anthropic, 'anthropic_messages', 'bedrock_converse');
    expect(warnings).toEqual([]);
    expect(body).toEqual({
      system: [{ text: 'Be terse.' }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'hmm', signature: 'SIG' } } },
            { toolUse: { toolUseId: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        { role: 'user', content: [{ toolResult: { toolUseId: 'toolu_1', content: [{ text: 'sunny' }], status: 'success' } }] },
      ],
      inferenceConfig: { maxTokens: 4096 },
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } },
    });
  });

  it('what Bedrock cannot take is dropped with a warning, never silently', () => {
    const openai = {
      model: 'gpt-4o',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
          ],
        },
      ],
      seed: 7,
      user: 'alice',
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'none',
      parallel_tool_calls: false,
    };
    const { body, warnings } = convertRequest(openai, 'openai_chat', 'bedrock_converse');
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'hi' }] }]);
    expect(warnings.map((w) => w.path).sort()).toEqual(['messages[0].content[1]', 'parallel_tool_calls', 'seed', 'tool_choice', 'user'].sort());
  });

  it('malformed client bodies are 400s naming the parameter', () => {
    const bad = (body: unknown, param: string) => {
      try {
        codec.decodeRequest(body);
        throw new Error('accepted');
      } catch (e) {
        expect(GatewayError.isInstance(e) && e.code).toBe('invalid_request');
        expect((e as GatewayError).param).toBe(param);
      }
    };
    bad('nope', 'body');
    bad({ messages: 'x' }, 'messages');
    bad({ messages: [{ role: 'system', content: [] }] }, 'messages[0].role');
    bad({ messages: [], inferenceConfig: { maxTokens: -1 } }, 'inferenceConfig.maxTokens');
    bad({ messages: [], inferenceConfig: { topK: 3 } }, 'inferenceConfig.topK');
    bad({ messages: [{ role: 'user', content: [{ image: { format: 'bmp', source: { bytes: 'AA' } } }] }] }, 'messages[0].content[0].image.format');
    bad({ messages: [], toolConfig: { tools: [{ toolSpec: { name: 'f' } }] } }, 'toolConfig.tools[0].toolSpec.inputSchema.json');
    bad({ messages: [], toolConfig: { tools: [], toolChoice: { none: {} } } }, 'toolConfig.toolChoice');
  });

  it('an unknown top-level field is unclassified and reported', () => {
    const decoded = codec.decodeRequest({ messages: [], frobnicate: 1 });
    expect(decoded.unclassified).toEqual(['frobnicate']);
    expect(decoded.warnings.map((w) => w.code)).toEqual(['unclassified_field']);
  });

  it('every documented top-level field is classified', () => {
    const body = {
      messages: [],
      system: [],
      inferenceConfig: {},
      toolConfig: { tools: [] },
      additionalModelRequestFields: {},
      requestMetadata: {},
      serviceTier: { type: 'priority' },
      guardrailConfig: {},
      promptVariables: {},
      additionalModelResponseFieldPaths: [],
      performanceConfig: { latency: 'optimized' },
      outputConfig: {},
    };
    expect(Object.keys(body).sort()).toEqual([...codec.knownRequestFields].sort());
    expect(codec.decodeRequest(body).unclassified).toEqual([]);
  });
});
