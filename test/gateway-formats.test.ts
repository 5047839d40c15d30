import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { startServer, type TestServer } from './support/http-server.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

/** The test registry plus every entry format, a Vertex provider (raw plan) and cross-family converters. */
function allFormatsRegistry(upstream: string) {
  const r = testRegistry(upstream);
  return {
    ...r,
    wire_formats: {
      ...r.wire_formats,
      openai_responses: { family: 'responses' },
      gemini_generate_content: { family: 'chat' },
      anthropic_vertex: { family: 'chat' },
    },
    entry_routes: [
      ...r.entry_routes,
      { path: '/v1/responses', format: 'openai_responses' },
      { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
      { path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true },
    ],
    converters: [
      ...r.converters,
      { from: 'openai_responses', to: 'anthropic_messages' },
      { from: 'gemini_generate_content', to: 'openai_chat' },
      { from: 'anthropic_messages', to: 'anthropic_vertex' },
    ],
    credentials: { ...r.credentials, vertex: { kind: 'bearer', secret: 'VERTEX_TOKEN' } },
    providers: { ...r.providers, vertex: { base_url: `${upstream}/vertex`, credential: 'vertex' } },
    operations: [
      ...r.operations,
      {
        provider: 'vertex',
        format: 'anthropic_vertex',
        family: 'chat',
        path: '/v1/projects/p/locations/us-east5/publishers/anthropic/models/{model}:rawPredict',
        stream_path: '/v1/projects/p/locations/us-east5/publishers/anthropic/models/{model}:streamRawPredict',
      },
    ],
    models: {
      ...r.models,
      'claude-sonnet': { ...r.models['claude-sonnet'], entry_formats: ['openai_chat', 'anthropic_messages', 'openai_responses'] },
      'gpt-mini': { ...r.models['gpt-mini'], entry_formats: ['openai_chat', 'anthropic_messages', 'gemini_generate_content'] },
      'claude-vertex': {
        brand: 'anthropic',
        entry_formats: ['anthropic_messages'],
        tags: ['claude'],
        capabilities: { max_output_tokens: 8192 },
        deployments: [
          {
            id: 'sonnet@vertex',
            provider: 'vertex',
            format: 'anthropic_vertex',
            upstream_model: 'claude-sonnet-4-5@20250929',
            pricing: { unit: 'usd_per_mtok', input: '3', output: '15' },
          },
        ],
      },
    },
  } satisfies RegistryFileInput;
}

let upstream: MockUpstream;
let server: TestServer;
let key: string;
const records: UsageRecord[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-thinking-then-tool-use.sse', 'anthropic-messages/response-thinking.json'),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
    vertex: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  key = ids.keys.alice!;
  const gateway = createGateway({
    registry: allFormatsRegistry(upstream.url),
    identity: ids.identity,
    secrets: { ...SECRETS, VERTEX_TOKEN: 'ya29.vertex-token' },
    usage: (r) => void records.push(r),
    cacheShaping: { ttl: '1h' },
  });
  server = await startServer((req) => gateway.handle(req));
});

afterAll(async () => {
  await server.close();
  await upstream.close();
});

describe('every client format reaches any model the registry allows', () => {
  it('a Responses client streams from an Anthropic model: reasoning, function call and usage assembled by the SDK', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const final = await client.responses
      .stream({
        model: 'claude-sonnet',
        // The recorded answer bills a cached system prompt of ~1,500 tokens: the request carries as much.
        instructions: 'You are a careful assistant. '.repeat(80),
        input: 'What is the weather in Paris?',
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }],
      })
      .finalResponse();
    const call = final.output.find((o) => o.type === 'function_call');
    expect(call).toBeDefined();
    expect(() => JSON.parse((call as { arguments: string }).arguments)).not.toThrow();
    expect(final.output.some((o) => o.type === 'reasoning')).toBe(true);
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
    const rec = records.at(-1)!;
    expect(rec.entry_format).toBe('openai_responses');
    expect(rec.upstream_format).toBe('anthropic_messages');
    expect(rec.usage?.measured).toBe(true);
  });

  it('refuses stateful Responses features an Anthropic model cannot honour, clearly, before any upstream call', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const before = upstream.hits('anthropic');
    const err = await client.responses.create({ model: 'claude-sonnet', input: 'and then?', previous_response_id: 'resp_123' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('previous_response_id');
    expect(upstream.hits('anthropic')).toBe(before);
  });

  it('a Google GenAI client reaches an OpenAI model, streamed and not', async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: server.url } });
    const res = await ai.models.generateContent({ model: 'gpt-mini', contents: 'Say hello' });
    expect(res.text?.length ?? 0).toBeGreaterThan(0);
    expect(res.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    let text = '';
    for await (const chunk of await ai.models.generateContentStream({ model: 'gpt-mini', contents: 'Say hello' })) text += chunk.text ?? '';
    expect(text.length).toBeGreaterThan(0);
    const rec = records.at(-1)!;
    expect(rec.entry_format).toBe('gemini_generate_content');
    expect(rec.upstream_format).toBe('openai_chat');
    expect(rec.stream).toBe(true);
  });

  it('uses the raw plan for Anthropic on Vertex: envelope changed, content and cache_control untouched, model in the path', async () => {
    const body = {
      model: 'claude-vertex',
      max_tokens: 100,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
    };
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/vertex/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict');
    expect(seen.headers.authorization).toBe('Bearer ya29.vertex-token');
    const sent = JSON.parse(seen.body) as Record<string, unknown>;
    expect(sent.model).toBeUndefined();
    expect(sent.anthropic_version).toBe('vertex-2023-10-16');
    expect(sent.messages).toEqual(body.messages);
    expect(sent.system).toEqual(body.system);
  });

  it('shapes the prompt cache for Anthropic upstreams when enabled, keeping the client’s own breakpoints', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({
      model: 'claude-sonnet',
      messages: [
        { role: 'system', content: 'You are a weather bot.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const sent = JSON.parse(upstream.requests.at(-1)!.body) as {
      system: Array<{ cache_control?: unknown }>;
      tools: Array<{ cache_control?: unknown }>;
      messages: Array<{ content: Array<{ cache_control?: unknown }> }>;
    };
    expect(sent.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(sent.system.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(sent.messages.at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
  });
});
