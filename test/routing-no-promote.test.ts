/**
 * `no_promote` seen by a real OpenAI SDK client: once a spend entry with it is crossed, the
 * request is never failed over to a deployment, nor substituted by a model, dearer than where
 * it was asked to go — a self-hosted pool with a paid vendor as overflow keeps to the pool.
 * Embeddings keep to the same rule.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type PolicyFileInput, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor } from './support/gateway-fixture.js';
import { replay, startMockUpstream, status, type Scenario } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const price = (input: string, output: string) => ({ unit: 'usd_per_mtok' as const, input, output });

function registry(url: string): RegistryFileInput {
  const providers = ['pool-a', 'vendor', 'pool-b', 'cheap', 'dear'];
  const model = (deployments: Array<[string, string, ReturnType<typeof price>]>) => ({
    brand: 'openai',
    entry_formats: ['openai_chat'],
    capabilities: { max_output_tokens: 1000 },
    deployments: deployments.map(([id, provider, pricing], i) => ({ id, provider, format: 'openai_chat', upstream_model: 'm', priority: i + 1, pricing })),
  });
  return {
    wire_formats: { openai_chat: { family: 'chat' } },
    entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
    credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
    providers: Object.fromEntries(providers.map((p) => [p, { base_url: `${url}/${p}`, credential: 'openai' }])),
    operations: providers.map((provider) => ({ provider, format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' })),
    models: {
      // The pool (cheap), a paid vendor as overflow (dearer), a second pool at the pool's price.
      pool: model([
        ['pool@a', 'pool-a', price('0.05', '0.20')],
        ['pool@vendor', 'vendor', price('0.15', '0.60')],
        ['pool@b', 'pool-b', price('0.05', '0.20')],
      ]),
      mid: model([['mid@vendor', 'vendor', price('1', '4')]]),
      'mid-dear': model([['dear@vendor', 'dear', price('2', '8')]]),
      'mid-cheap': model([['cheap@vendor', 'cheap', price('0.5', '2')]]),
    },
  };
}

async function setup(policy: PolicyFileInput) {
  const down = new Set<string>();
  const ok = replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json');
  const unavailable = status(503, { error: { message: 'overloaded', type: 'server_error', code: null } });
  const scenario =
    (name: string): Scenario =>
    (request, body) =>
      down.has(name) ? unavailable(request, body) : ok(request, body);
  const upstream = await startMockUpstream(Object.fromEntries(['pool-a', 'vendor', 'pool-b', 'cheap', 'dear'].map((n) => [n, scenario(n)])));
  const ids = await keysFor({ user: 'alice' });
  const records: UsageRecord[] = [];
  const store = createMemoryStore();
  const gateway = createGateway({
    registry: registry(upstream.url),
    policy,
    identity: ids.identity,
    secrets: SECRETS,
    store,
    usage: (r) => void records.push(r),
  });
  cleanups.push(async () => {
    await gateway.close();
    await store.close();
    await upstream.close();
  });
  const openai = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
  const ask = (model: string) => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  return { upstream, records, ask, down };
}

/** Crossed from the second request of the day on (the first one's spend crosses it). */
const tier = (scope: string, actions: unknown[]) =>
  ({
    spend: { rules: [{ id: 'pool-tier', matches: [{ match: { scope, window: 'daily', at_or_above_usd: '0.000001' }, actions }] }] },
  }) as PolicyFileInput;

describe('no_promote', () => {
  it('keeps failover off a dearer deployment once active, and on deployments that cost no more', async () => {
    const { ask, down, upstream, records } = await setup(tier('pool', [{ type: 'no_promote' }]));
    await ask('pool');
    down.add('pool-a');
    // The pool is down: the vendor overflow would cost three times as much; the second pool does not.
    await ask('pool');
    down.add('pool-b');
    const error = await ask('pool').catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(503);
    expect(upstream.hits('vendor')).toBe(0);
    expect(records.map((r) => [r.status, r.deployment, r.decision?.no_promote])).toEqual([
      ['ok', 'pool@a', false],
      ['ok', 'pool@b', true],
      ['upstream_error', 'pool@b', true],
    ]);
  });

  it('fails over to the dearer overflow while it is not active (the same registry, no rule crossed)', async () => {
    const { ask, down, records } = await setup(tier('mid', [{ type: 'no_promote' }]));
    down.add('pool-a');
    await ask('pool');
    await ask('pool');
    expect(records.map((r) => r.deployment)).toEqual(['pool@vendor', 'pool@vendor']);
  });

  it('passes over a dearer substitute for one that costs no more than the model asked for', async () => {
    const substitute = { type: 'substitute', to: ['mid-dear', 'mid-cheap'] };
    const promoting = await setup(tier('mid', [substitute]));
    await promoting.ask('mid');
    const up = await promoting.ask('mid');
    expect(up.response.headers.get('x-tollgate-model-fallback')).toBe('mid -> mid-dear');

    const keeping = await setup(tier('mid', [substitute, { type: 'no_promote' }]));
    await keeping.ask('mid');
    const down = await keeping.ask('mid');
    expect(down.response.headers.get('x-tollgate-model-fallback')).toBe('mid -> mid-cheap');
    expect(keeping.records.map((r) => [r.model, r.substituted_from])).toEqual([
      ['mid', null],
      ['mid-cheap', 'mid'],
    ]);
    expect(keeping.upstream.hits('dear')).toBe(0);
  });
});

describe('no_promote on embeddings', () => {
  async function setupEmbed(policy: PolicyFileInput) {
    const down = new Set<string>();
    const embedding: Scenario = (_request, body) =>
      Response.json({
        object: 'list',
        data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
        model: body['model'],
        usage: { prompt_tokens: 4, total_tokens: 4 },
      });
    const unavailable = status(503, { error: { message: 'overloaded', type: 'server_error', code: null } });
    const scenario =
      (name: string): Scenario =>
      (request, body) =>
        down.has(name) ? unavailable(request, body) : embedding(request, body);
    const providers = ['pool-a', 'vendor', 'pool-b'];
    const upstream = await startMockUpstream(Object.fromEntries(providers.map((n) => [n, scenario(n)])));
    const url = upstream.url;
    const ids = await keysFor({ user: 'alice' });
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: {
        wire_formats: { openai_chat: { family: 'chat' } },
        entry_routes: [{ path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' }],
        credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
        providers: Object.fromEntries(providers.map((p) => [p, { base_url: `${url}/${p}`, credential: 'openai' }])),
        operations: providers.map((provider) => ({ provider, format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' as const })),
        models: {
          embedder: {
            brand: 'openai',
            kind: 'embed',
            entry_formats: ['openai_chat'],
            deployments: [
              ['emb@a', 'pool-a', price('0.02', '0')],
              ['emb@vendor', 'vendor', price('0.13', '0')],
              ['emb@b', 'pool-b', price('0.02', '0')],
            ].map(([id, provider, pricing], i) => ({ id, provider, format: 'openai_chat', upstream_model: 'e', priority: i + 1, pricing })),
          },
        },
      } as RegistryFileInput,
      policy,
      identity: ids.identity,
      secrets: SECRETS,
      usage: (r) => void records.push(r),
    });
    cleanups.push(async () => {
      await gateway.close();
      await upstream.close();
    });
    const openai = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
    const embed = () => openai.embeddings.create({ model: 'embedder', input: 'hello' });
    return { upstream, records, embed, down };
  }

  it('keeps failover off a dearer deployment once active, and on deployments that cost no more', async () => {
    const { embed, down, upstream, records } = await setupEmbed(tier('embedder', [{ type: 'no_promote' }]));
    await embed();
    down.add('pool-a');
    await embed();
    down.add('pool-b');
    const error = await embed().catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(503);
    expect(upstream.hits('vendor')).toBe(0);
    expect(records.map((r) => [r.status, r.deployment, r.decision?.no_promote])).toEqual([
      ['ok', 'emb@a', false],
      ['ok', 'emb@b', true],
      ['upstream_error', 'emb@b', true],
    ]);
  });

  it('fails over to the dearer deployment while it is not active (nothing spent yet)', async () => {
    const { embed, down, records } = await setupEmbed(tier('embedder', [{ type: 'no_promote' }]));
    down.add('pool-a');
    await embed();
    expect(records.map((r) => [r.status, r.deployment, r.decision?.no_promote])).toEqual([['ok', 'emb@vendor', false]]);
  });
});
