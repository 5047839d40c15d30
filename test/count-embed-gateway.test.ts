/**
 * Token counting and embeddings through the gateway, with the real SDKs: Anthropic
 * `messages.countTokens`, OpenAI `responses.inputTokens.count` and `embeddings.create`, Google
 * `models.countTokens` and `models.embedContent`, against loopback upstreams that count and embed
 * (Anthropic, OpenAI, Gemini, and a SigV4-checking Bedrock), a local count with the declared
 * tokenizer, and the refusals: no way to count, a rate limit, a spend cap. Admitted answers (and
 * upstream errors) carry the budget status, as a generation's do.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyFileInput } from '@tollgate/policy';
import { createGateway, type UsageRecord, type RegistryFileInput } from '@tollgate/core';
import { openaiTokenizers } from '@tollgate/core/tokenizers';
import { AWS_KEYS, checkSigV4 } from './support/aws.js';
import { keysFor, SECRETS } from './support/gateway-fixture.js';
import { startServer, type TestServer } from './support/http-server.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

type Json = Record<string, any>;

/** A made-up but deterministic embedding of a text: what the mocks answer. */
const vectorOf = (text: string) => [text.length / 100, (text.charCodeAt(0) % 10) / 10, 0.5];

let upstream: MockUpstream;
let gateway: ReturnType<typeof createGateway>;
let server: TestServer;
let keys: Record<string, string>;
const records: UsageRecord[] = [];
const seen: Record<string, Json[]> = {};

const note = (name: string, body: Json) => ((seen[name] ??= []).push(body), body);

function registry(url: string): RegistryFileInput {
  const priced = { unit: 'usd_per_mtok', input: '1', output: '2' } as const;
  type ModelIn = RegistryFileInput['models'][string];
  type DeploymentIn = NonNullable<ModelIn['deployments']>[number];
  const gen = (entry: string[], deployment: Omit<DeploymentIn, 'pricing'>, extra: Partial<ModelIn> = {}): ModelIn => ({
    brand: 'x',
    entry_formats: entry,
    deployments: [{ pricing: priced, ...deployment }],
    ...extra,
  });
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      openai_responses: { family: 'responses' },
      anthropic_messages: { family: 'chat' },
      gemini_generate_content: { family: 'chat' },
      bedrock_converse: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/messages', format: 'anthropic_messages' },
      { path: '/v1/messages/count_tokens', format: 'anthropic_messages', kind: 'count_tokens' },
      { path: '/v1/responses/input_tokens', format: 'openai_responses', kind: 'count_tokens' },
      { path: '/v1beta/models/{model}:countTokens', format: 'gemini_generate_content', kind: 'count_tokens' },
      { path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' },
      { path: '/v1beta/models/{model}:batchEmbedContents', format: 'gemini_generate_content', kind: 'embed' },
      { path: '/v1beta/models/{model}:embedContent', format: 'gemini_generate_content', kind: 'embed' },
    ],
    converters: [
      { from: 'anthropic_messages', to: 'gemini_generate_content' },
      { from: 'anthropic_messages', to: 'bedrock_converse' },
      { from: 'anthropic_messages', to: 'openai_responses' },
      { from: 'anthropic_messages', to: 'openai_chat' },
      { from: 'openai_responses', to: 'anthropic_messages' },
      { from: 'gemini_generate_content', to: 'anthropic_messages' },
      { from: 'openai_chat', to: 'gemini_generate_content' },
      { from: 'gemini_generate_content', to: 'openai_chat' },
    ],
    credentials: {
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
      openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
      google: { kind: 'header', header: 'x-goog-api-key', secret: 'GEMINI_API_KEY' },
      aws: { kind: 'aws_sigv4', region: 'us-west-2', service: 'bedrock', access_key_id: 'AWS_ACCESS_KEY_ID', secret_access_key: 'AWS_SECRET_ACCESS_KEY' },
    },
    providers: {
      anthropic: { base_url: `${url}/anthropic`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      openai: { base_url: `${url}/openai`, credential: 'openai' },
      google: { base_url: `${url}/google`, credential: 'google' },
      bedrock: { base_url: `${url}/bedrock`, credential: 'aws' },
      // Nothing answers there: every call is a 404.
      gone: { base_url: `${url}/gone`, credential: 'openai' },
    },
    operations: [
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
      {
        provider: 'google',
        format: 'gemini_generate_content',
        family: 'chat',
        path: '/v1beta/models/{model}:generateContent',
        stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
      },
      { provider: 'google', format: 'gemini_generate_content', family: 'chat', path: '/v1beta/models/{model}:countTokens', kind: 'count_tokens' },
      { provider: 'google', format: 'gemini_generate_content', family: 'chat', path: '/v1beta/models/{model}:batchEmbedContents', kind: 'embed' },
      { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/converse', stream_path: '/model/{model}/converse-stream' },
      { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/count-tokens', kind: 'count_tokens' },
      { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses' },
      { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses/input_tokens', kind: 'count_tokens' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' },
      { provider: 'gone', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' },
    ],
    models: {
      claude: gen(['anthropic_messages', 'openai_responses', 'gemini_generate_content'], {
        id: 'claude@anthropic',
        provider: 'anthropic',
        format: 'anthropic_messages',
        upstream_model: 'claude-sonnet-4-5',
      }),
      'gemini-pro': gen(['anthropic_messages', 'gemini_generate_content'], {
        id: 'gemini@google',
        provider: 'google',
        format: 'gemini_generate_content',
        upstream_model: 'gemini-2.5-pro',
      }),
      nova: gen(['anthropic_messages'], { id: 'nova@bedrock', provider: 'bedrock', format: 'bedrock_converse', upstream_model: 'us.amazon.nova-pro-v1:0' }),
      'gpt-5': gen(['anthropic_messages', 'openai_responses'], { id: 'gpt5@openai', provider: 'openai', format: 'openai_responses', upstream_model: 'gpt-5' }),
      'gpt-local': gen(
        ['anthropic_messages'],
        { id: 'local@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'gpt-4o' },
        { tokenizer: 'o200k_base' },
      ),
      mystery: gen(['anthropic_messages'], { id: 'mystery@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'mystery-1' }),
      'text-embedding-3-small': {
        brand: 'openai',
        kind: 'embed',
        entry_formats: ['openai_chat', 'gemini_generate_content'],
        deployments: [
          {
            id: 'emb@openai',
            provider: 'openai',
            format: 'openai_chat',
            upstream_model: 'text-embedding-3-small',
            pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' },
          },
        ],
      },
      'gone-embedding': {
        brand: 'openai',
        kind: 'embed',
        entry_formats: ['openai_chat'],
        deployments: [
          { id: 'emb@gone', provider: 'gone', format: 'openai_chat', upstream_model: 'e', pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' } },
        ],
      },
      'gemini-embedding': {
        brand: 'google',
        kind: 'embed',
        entry_formats: ['openai_chat', 'gemini_generate_content'],
        deployments: [
          {
            id: 'emb@google',
            provider: 'google',
            format: 'gemini_generate_content',
            upstream_model: 'gemini-embedding-001',
            pricing: { unit: 'usd_per_mtok', input: '0.15', output: '0' },
          },
        ],
      },
    },
  };
}

const policy: PolicyFileInput = {
  rate_limits: [{ id: 'carol-rpm', match: { users: ['carol'] }, rpm: 2 }],
  spend: {
    rules: [
      {
        id: 'dave-embed-cap',
        matches: [{ match: { users: ['dave'], scope: 'gemini-embedding', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'block' }] }],
      },
      {
        id: 'erin-budget',
        matches: [
          {
            match: { users: ['erin'], scope: 'text-embedding-3-small', window: 'monthly', at_or_above_usd: '0.000001' },
            actions: [{ type: 'message', text: 'embeddings are being counted' }],
          },
          { match: { users: ['erin'], scope: 'text-embedding-3-small', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] },
          { match: { users: ['erin'], scope: 'gone-embedding', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] },
          { match: { users: ['erin'], scope: 'claude', window: 'monthly', at_or_above_usd: '50' }, actions: [{ type: 'block' }] },
        ],
      },
    ],
  },
};

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: (request, body) => {
      if (!new URL(request.url).pathname.endsWith('/count_tokens')) return new Response('not here', { status: 404 });
      note('anthropic', body);
      return Response.json({ input_tokens: 1000 + JSON.stringify(body.messages).length });
    },
    openai: (request, body) => {
      const path = new URL(request.url).pathname;
      note(`openai${path}`, body);
      if (path.endsWith('/responses/input_tokens')) return Response.json({ object: 'response.input_tokens', input_tokens: 77 });
      if (path.endsWith('/embeddings')) {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return Response.json({
          object: 'list',
          data: inputs.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })),
          model: body.model,
          usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length },
        });
      }
      return new Response('not here', { status: 404 });
    },
    google: (request, body) => {
      const path = new URL(request.url).pathname;
      note(`google${path.slice(path.lastIndexOf(':'))}`, body);
      if (path.endsWith(':countTokens')) return Response.json({ totalTokens: 31 });
      if (path.endsWith(':batchEmbedContents'))
        return Response.json({ embeddings: (body.requests as Json[]).map((r) => ({ values: vectorOf(r.content.parts[0].text) })) });
      return new Response('not here', { status: 404 });
    },
    bedrock: async (request, body) => {
      const bytes = new Uint8Array(await request.clone().arrayBuffer());
      const check = await checkSigV4(request, bytes, { accessKeyId: AWS_KEYS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_KEYS.AWS_SECRET_ACCESS_KEY });
      if (!check.ok || !new URL(request.url).pathname.endsWith('/count-tokens')) return new Response('{"message":"no"}', { status: 403 });
      note('bedrock', body);
      return Response.json({ inputTokens: 9 });
    },
  });
  const ids = await keysFor({ user: 'alice' }, { user: 'carol' }, { user: 'dave' }, { user: 'erin' });
  keys = ids.keys;
  gateway = createGateway({
    registry: registry(upstream.url),
    policy,
    identity: ids.identity,
    secrets: { ...SECRETS, GEMINI_API_KEY: 'g-key', ...AWS_KEYS },
    usage: (r) => void records.push(r),
    tokenizers: openaiTokenizers,
  });
  server = await startServer((request) => gateway.handle(request));
});

afterAll(async () => {
  await gateway.close();
  await server.close();
  await upstream.close();
});

const last = () => records[records.length - 1]!;
const anthropic = (key = keys.alice!) => new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
const openai = (key = keys.alice!) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
const google = () => new GoogleGenAI({ apiKey: keys.alice!, httpOptions: { baseUrl: server.url } });

const CLAUDE_CODE_COUNT = {
  system: [{ type: 'text' as const, text: 'You are Claude Code, an interactive CLI tool.', cache_control: { type: 'ephemeral' as const } }],
  tools: [
    {
      name: 'Bash',
      description: 'Run a shell command',
      input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
    },
  ],
  messages: [
    { role: 'user' as const, content: 'List the files here.' },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_1', content: 'README.md\nsrc' }] },
  ],
};

describe('count_tokens: the deployment’s own count operation, translated both ways', () => {
  it('Anthropic SDK → Anthropic: identity of the counting request (no max_tokens), free, recorded', async () => {
    const out = await anthropic().messages.countTokens({ model: 'claude', ...CLAUDE_CODE_COUNT });
    const sent = seen['anthropic']!.at(-1)!;
    expect(sent).toMatchObject({ model: 'claude-sonnet-4-5', tools: [{ name: 'Bash' }] });
    expect(sent.max_tokens).toBeUndefined();
    expect(out.input_tokens).toBe(1000 + JSON.stringify(sent.messages).length);
    expect(last()).toMatchObject({
      kind: 'count_tokens',
      status: 'ok',
      counted_tokens: out.input_tokens,
      deployment: 'claude@anthropic',
      cost_micros: { total: 0 },
      usage: { input: 0, output: 0 },
    });
  });

  it('Anthropic SDK → Gemini :countTokens (a whole generateContentRequest), Bedrock CountTokens (signed), OpenAI input_tokens', async () => {
    expect((await anthropic().messages.countTokens({ model: 'gemini-pro', ...CLAUDE_CODE_COUNT })).input_tokens).toBe(31);
    expect(seen['google:countTokens']!.at(-1)!.generateContentRequest).toMatchObject({
      model: 'models/gemini-2.5-pro',
      systemInstruction: { parts: [{ text: 'You are Claude Code, an interactive CLI tool.' }] },
    });
    expect((await anthropic().messages.countTokens({ model: 'nova', ...CLAUDE_CODE_COUNT })).input_tokens).toBe(9);
    expect(Object.keys(seen['bedrock']!.at(-1)!.input.converse).sort()).toEqual(['messages', 'system', 'toolConfig']);
    expect(upstream.requests.at(-1)!.path).toBe('/bedrock/model/us.amazon.nova-pro-v1:0/count-tokens');
    expect((await anthropic().messages.countTokens({ model: 'gpt-5', ...CLAUDE_CODE_COUNT })).input_tokens).toBe(77);
    expect(seen['openai/openai/v1/responses/input_tokens']!.at(-1)).toMatchObject({
      model: 'gpt-5',
      instructions: 'You are Claude Code, an interactive CLI tool.',
    });
    expect(records.slice(-3).map((r) => [r.kind, r.upstream_format, r.counted_tokens, r.cost_micros?.total])).toEqual([
      ['count_tokens', 'gemini_generate_content', 31, 0],
      ['count_tokens', 'bedrock_converse', 9, 0],
      ['count_tokens', 'openai_responses', 77, 0],
    ]);
  });

  it('OpenAI SDK responses.inputTokens.count and Google SDK models.countTokens, each answered in its own shape', async () => {
    const o = await openai().responses.inputTokens.count({ model: 'gpt-5', input: 'Hello there', instructions: 'Be brief.' });
    expect(o).toMatchObject({ object: 'response.input_tokens', input_tokens: 77 });
    const viaClaude = await openai().responses.inputTokens.count({ model: 'claude', input: 'Hello there' });
    expect(viaClaude.input_tokens).toBeGreaterThan(1000);
    const g = await google().models.countTokens({ model: 'claude', contents: 'How many tokens is this?' });
    expect(g.totalTokens).toBe(1000 + JSON.stringify(seen['anthropic']!.at(-1)!.messages).length);
  });

  it('no count operation, but a declared tokenizer: counted locally with o200k_base, no upstream call', async () => {
    const before = upstream.requests.length;
    const out = await anthropic().messages.countTokens({
      model: 'gpt-local',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Count these words, please.' }],
    });
    expect(upstream.requests.length).toBe(before);
    // The tokenizer's count of each text plus OpenAI's chat framing: 3 per message, 3 for the reply.
    expect(out.input_tokens).toBe(o200kCount('Be brief.') + o200kCount('Count these words, please.') + 2 * 3 + 3);
    expect(last()).toMatchObject({ kind: 'count_tokens', status: 'ok', deployment: null, counted_tokens: out.input_tokens, cost_micros: { total: 0 } });
  });

  it('no way to count: 404 count_tokens_unsupported, never a made-up number', async () => {
    const error = await anthropic()
      .messages.countTokens({ model: 'mystery', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(last()).toMatchObject({ kind: 'count_tokens', status: 'rejected', reason: 'count_tokens_unsupported', http_status: 404, counted_tokens: null });
    // Media the local tokenizer cannot count: refused too.
    const image = await anthropic()
      .messages.countTokens({
        model: 'gpt-local',
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      })
      .catch((e: unknown) => e);
    expect(image).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('counting is rate-limited like any request', async () => {
    const client = anthropic(keys.carol);
    await client.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'a' }] });
    await client.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'b' }] });
    const limited = await client.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'c' }] }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(last()).toMatchObject({ kind: 'count_tokens', status: 'rejected', reason: 'rate_limit:carol-rpm' });
  });

  it('an embedding model is not reached through a count or generation route', async () => {
    const error = await anthropic()
      .messages.countTokens({ model: 'text-embedding-3-small', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(last().reason).toBe('kind_not_offered');
  });
});

describe('embeddings: priced per input token, reserved, recorded, translated OpenAI ⇄ Gemini', () => {
  it('OpenAI SDK (base64 by default) → OpenAI: the vectors the upstream gave, usage and cost from its count', async () => {
    const out = await openai().embeddings.create({ model: 'text-embedding-3-small', input: ['first text', 'second'] });
    expect(out.data.map((d) => d.embedding.map((x) => Number(x.toFixed(5))))).toEqual(
      ['first text', 'second'].map((t) => vectorOf(t).map((x) => Number(Math.fround(x).toFixed(5)))),
    );
    expect(out.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(seen['openai/openai/v1/embeddings']!.at(-1)).toMatchObject({
      model: 'text-embedding-3-small',
      input: ['first text', 'second'],
      encoding_format: 'float',
    });
    expect(last()).toMatchObject({
      kind: 'embed',
      status: 'ok',
      usage: { input: 6, output: 0, measured: true },
      cost_micros: { input: 1, output: 0, total: 1 },
    });
    expect(last().reserved_micros).toBe(0); // no policy cap applies to alice
  });

  it('OpenAI SDK → Gemini: batchEmbedContents with outputDimensionality; Gemini reports no usage, so the bound is charged, unmeasured', async () => {
    const out = await openai().embeddings.create({ model: 'gemini-embedding', input: 'a query', dimensions: 3, encoding_format: 'float' });
    expect(out.data[0]!.embedding).toEqual(vectorOf('a query'));
    expect(seen['google:batchEmbedContents']!.at(-1)).toEqual({
      requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a query' }] }, outputDimensionality: 3 }],
    });
    // 7 bytes + 8 per input = 15 tokens at $0.15 per million: 2.25 micro-USD, rounded up.
    expect(last()).toMatchObject({
      kind: 'embed',
      upstream_format: 'gemini_generate_content',
      usage: { input: 15, measured: false },
      cost_micros: { total: 3 },
    });
  });

  it('Google SDK embedContent → OpenAI: task type dropped (OpenAI has none), the answer in Gemini’s shape', async () => {
    const out = await google().models.embedContent({
      model: 'text-embedding-3-small',
      contents: ['one', 'two'],
      config: { taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 3 },
    });
    expect(out.embeddings!.map((e) => e.values)).toEqual([vectorOf('one'), vectorOf('two')]);
    expect(seen['openai/openai/v1/embeddings']!.at(-1)).toEqual({
      model: 'text-embedding-3-small',
      input: ['one', 'two'],
      dimensions: 3,
      encoding_format: 'float',
    });
    expect(last()).toMatchObject({
      kind: 'embed',
      entry_format: 'gemini_generate_content',
      upstream_format: 'openai_chat',
      usage: { input: 6, measured: true },
    });
  });

  it('a spend cap refuses an embedding before the upstream is called', async () => {
    const before = upstream.requests.length;
    const error = await openai(keys.dave)
      .embeddings.create({ model: 'gemini-embedding', input: 'x'.repeat(5000) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(upstream.requests.length).toBe(before);
    expect(last()).toMatchObject({ kind: 'embed', status: 'rejected', reason: 'spend_limit:dave-embed-cap' });
  });

  it('a generation route does not reach an embedding model', async () => {
    const error = await anthropic()
      .messages.create({ model: 'text-embedding-3-small', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect(last()).toMatchObject({ kind: 'generate', reason: 'kind_not_offered' });
  });
});

describe('the budget status reaches the caller on counts and embeddings, as on generation', () => {
  it('an admitted embedding carries the tightest cap and, once crossed, the message text; a count carries its cap', async () => {
    const client = openai(keys.erin);
    const first = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }).withResponse();
    expect(first.response.headers.get('x-tollgate-budget-rule')).toBe('erin-budget');
    expect(first.response.headers.get('x-tollgate-budget-limit-usd')).toBe('100');
    expect(first.response.headers.get('x-tollgate-budget-message')).toBeNull();
    // The first answer's spend crossed the message threshold.
    const second = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' }).withResponse();
    expect(second.response.headers.get('x-tollgate-budget-rule')).toBe('erin-budget');
    expect(second.response.headers.get('x-tollgate-budget-message')).toBe('embeddings are being counted');
    expect(Number(second.response.headers.get('x-tollgate-budget-remaining-usd'))).toBeLessThan(100);

    const count = await anthropic(keys.erin)
      .messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(count.data.input_tokens).toBeGreaterThan(0);
    expect(count.response.headers.get('x-tollgate-budget-rule')).toBe('erin-budget');
    expect(count.response.headers.get('x-tollgate-budget-limit-usd')).toBe('50');
  });

  it('an upstream error on an admitted embedding carries the budget status too, in the caller’s format', async () => {
    const error = await openai(keys.erin)
      .embeddings.create({ model: 'gone-embedding', input: 'hello' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const headers = (error as InstanceType<typeof OpenAI.APIError>).headers!;
    expect(headers.get('x-tollgate-budget-rule')).toBe('erin-budget');
    expect(headers.get('x-tollgate-budget-limit-usd')).toBe('100');
    expect(last()).toMatchObject({ kind: 'embed', status: 'upstream_error', deployment: 'emb@gone' });
  });
});
