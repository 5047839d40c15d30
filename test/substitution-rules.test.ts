/**
 * A budget-tier substitute is served under its own rules: rate limits, tool allow lists and
 * policy prompts scoped to the model that serves apply to a request substituted to it exactly
 * as to one asked for it by name. A real OpenAI SDK client against loopback upstreams.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type PolicyFileInput, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor } from './support/gateway-fixture.js';
import { replay, startMockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function registry(url: string): RegistryFileInput {
  const price = (input: string, output: string) => ({ unit: 'usd_per_mtok' as const, input, output });
  const model = (id: string, provider: string, pricing: ReturnType<typeof price>) => ({
    brand: 'openai',
    entry_formats: ['openai_chat'],
    capabilities: { max_output_tokens: 1000, tools: true },
    deployments: [{ id, provider, format: 'openai_chat', upstream_model: 'm', priority: 1, pricing }],
  });
  return {
    wire_formats: { openai_chat: { family: 'chat' } },
    entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
    credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
    providers: { vendor: { base_url: `${url}/vendor`, credential: 'openai' }, cheap: { base_url: `${url}/cheap`, credential: 'openai' } },
    operations: ['vendor', 'cheap'].map((provider) => ({ provider, format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' })),
    models: { mid: model('mid@vendor', 'vendor', price('1', '4')), 'mid-cheap': model('cheap@vendor', 'cheap', price('0.5', '2')) },
  };
}

/** From the second request of the day on, `mid` is served as `mid-cheap`. */
const TIER = {
  rules: [
    { id: 'tier', matches: [{ match: { scope: 'mid', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'substitute', to: ['mid-cheap'] }] }] },
  ],
};

async function setup(policy: Record<string, unknown>) {
  const seen: Array<{ provider: string; body: Record<string, unknown> }> = [];
  const ok = replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json');
  const upstream = await startMockUpstream(
    Object.fromEntries(
      ['vendor', 'cheap'].map((provider) => [
        provider,
        (request: Request, body: Record<string, unknown>) => {
          seen.push({ provider, body });
          return ok(request, body);
        },
      ]),
    ),
  );
  const ids = await keysFor({ user: 'alice' });
  const records: UsageRecord[] = [];
  const store = createMemoryStore();
  const gateway = createGateway({
    registry: registry(upstream.url),
    policy: { spend: TIER, ...policy } as PolicyFileInput,
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
  const ask = (model: string, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
    openai.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'hi' }], ...extra })
      .withResponse()
      .then(
        (r) => ({ status: r.response.status, fallback: r.response.headers.get('x-tollgate-model-fallback') }),
        (e: unknown) => ({ status: (e as { status?: number }).status ?? 0, fallback: null }),
      );
  return { ask, records, seen };
}

const TOOL = (name: string) => ({ tools: [{ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } }] });

describe('budget-tier substitutes are served under their own rules', () => {
  it('counts a substituted request against a rate limit scoped to the substitute', async () => {
    const { ask, records } = await setup({ rate_limits: [{ id: 'cheap-rpm', match: { scope: 'mid-cheap' }, rpm: 1 }] });
    expect((await ask('mid')).status).toBe(200); // served as mid: crosses the tier
    expect(await ask('mid')).toEqual({ status: 200, fallback: 'mid -> mid-cheap' }); // the one mid-cheap request of the minute
    expect((await ask('mid')).status).toBe(429);
    expect((await ask('mid-cheap')).status).toBe(429);
    expect(records.map((r) => [r.http_status, r.model, r.reason])).toEqual([
      [200, 'mid', null],
      [200, 'mid-cheap', null],
      [429, 'mid-cheap', 'rate_limit:cheap-rpm'],
      [429, 'mid-cheap', 'rate_limit:cheap-rpm'],
    ]);
    // A limit covering both models counts a substituted request once.
    const both = await setup({ rate_limits: [{ id: 'all-rpm', rpm: 2 }] });
    expect((await both.ask('mid')).status).toBe(200);
    expect((await both.ask('mid')).status).toBe(200);
    expect((await both.ask('mid')).status).toBe(429);
  });

  it("applies the substitute's tool allow lists, not the requested model's", async () => {
    const { ask, seen, records } = await setup({
      tools: { allow_lists: [{ id: 'cheap-tools', match: { scope: 'mid-cheap' }, allow: ['safe'] }] },
    });
    expect((await ask('mid', TOOL('danger'))).status).toBe(200); // mid has no list
    expect((await ask('mid', TOOL('danger'))).status).toBe(403); // served as mid-cheap: not allowed there
    expect(await ask('mid', TOOL('safe'))).toEqual({ status: 200, fallback: 'mid -> mid-cheap' });
    expect(seen.map((s) => s.provider)).toEqual(['vendor', 'cheap']);
    expect(records.map((r) => [r.http_status, r.reason])).toEqual([
      [200, null],
      [403, 'tool_not_allowed:danger'],
      [200, null],
    ]);
  });

  it("gives a substituted request's tokens back when the substitute's own rules refuse it", async () => {
    const { ask, records } = await setup({
      rate_limits: [{ id: 'tokens', tpm: 3000 }],
      tools: { allow_lists: [{ id: 'cheap-tools', match: { scope: 'mid-cheap' }, allow: ['safe'] }] },
    });
    expect((await ask('mid')).status).toBe(200);
    // Each worst case (~1,000 tokens) is counted at admission; refused by mid-cheap's list, it goes back.
    expect((await ask('mid', TOOL('danger'))).status).toBe(403);
    expect((await ask('mid', TOOL('danger'))).status).toBe(403);
    expect(await ask('mid', TOOL('safe'))).toEqual({ status: 200, fallback: 'mid -> mid-cheap' });
    expect(records.map((r) => r.http_status)).toEqual([200, 403, 403, 200]);
  });

  it("puts the substitute's policy prompts before the system prompt, not the requested model's", async () => {
    const { ask, seen, records } = await setup({
      prompts: [
        { id: 'for-mid', version: 1, match: { scope: 'mid' }, text: 'You serve mid.' },
        { id: 'for-cheap', version: 1, match: { scope: 'mid-cheap' }, text: 'You serve mid-cheap.' },
      ],
    });
    await ask('mid');
    await ask('mid');
    const system = (i: number) => JSON.stringify((seen[i]!.body.messages as unknown[])[0]);
    expect(system(0)).toContain('You serve mid.');
    expect(system(1)).toContain('You serve mid-cheap.');
    expect(system(1)).not.toContain('You serve mid.');
    expect(records.map((r) => [r.model, r.policy_prompts])).toEqual([
      ['mid', ['for-mid@1']],
      ['mid-cheap', ['for-cheap@1']],
    ]);
  });
});
