import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(
  policy?: unknown,
  users = [
    { user: 'alice', tier: 'normal', bu: 'payments', leaders: ['vp', 'ceo'] },
    { user: 'carol-report', tier: 'normal', bu: 'research', leaders: ['carol', 'ceo'] },
  ],
) {
  const upstream: MockUpstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
  });
  const ids = await keysFor(...users);
  const records: UsageRecord[] = [];
  const store = createMemoryStore();
  const gateway = createGateway({
    registry: testRegistry(upstream.url),
    policy: policy as PolicyFileInput | undefined,
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
  const post = (key: string | null, body: unknown, path = '/v1/chat/completions', headers: Record<string, string> = {}) =>
    gateway.handle(
      new Request(`http://gw${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
  return { upstream, keys: ids.keys, records, gateway, store, post };
}

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hello' }], ...extra });

describe('access: unknown and denied answer alike', () => {
  it('gives a denied model exactly the 404 of an unknown one, and records the real reason', async () => {
    const { post, keys, records, upstream } = await setup({ access: { models: { 'claude-opus': { deny_leaders: ['carol'] } } } });
    const denied = await post(keys['carol-report']!, chat('claude-opus'));
    const unknown = await post(keys['carol-report']!, chat('claude-opus-nonexistent'));
    expect(denied.status).toBe(404);
    expect(unknown.status).toBe(404);
    const deniedBody = (await denied.json()) as { error: { message: string; code: string } };
    const unknownBody = (await unknown.json()) as { error: { message: string; code: string } };
    expect(deniedBody.error.code).toBe('model_not_found');
    expect(deniedBody.error.message.replace('claude-opus', 'X')).toBe(unknownBody.error.message.replace('claude-opus-nonexistent', 'X'));
    expect(records.map((r) => r.reason)).toEqual(['access_denied', 'model_not_found']);
    expect(records.every((r) => r.status === 'rejected')).toBe(true);
    expect(upstream.hits('anthropic')).toBe(0);
    // Someone outside carol's organisation may use it.
    const allowed = await post(keys.alice!, chat('claude-opus'));
    expect(allowed.status).toBe(200);
  });

  it('lists only the models the caller may use', async () => {
    const { gateway, keys } = await setup({ access: { models: { 'claude-opus': { deny_leaders: ['carol'] } } } });
    const list = async (key: string) =>
      (
        (await (await gateway.handle(new Request('http://gw/v1/models', { headers: { authorization: `Bearer ${key}` } }))).json()) as {
          data: Array<{ id: string }>;
        }
      ).data.map((m) => m.id);
    expect(await list(keys['carol-report']!)).not.toContain('claude-opus');
    expect(await list(keys.alice!)).toContain('claude-opus');
  });
});

describe('authentication and bad input, in the caller’s own format', () => {
  it('answers a wrong key with 401 in OpenAI shape and in Anthropic shape', async () => {
    const { post, records } = await setup();
    const openai = await post('tg_wrongwrongwrongwrongwrongwrongwrong', chat('claude-sonnet'));
    expect(openai.status).toBe(401);
    expect(((await openai.json()) as { error: { type: string } }).error.type).toBeTypeOf('string');
    const anthropic = await post(null, { model: 'claude-sonnet', max_tokens: 10, messages: [] }, '/v1/messages', {
      'x-api-key': 'tg_nopenopenopenopenopenopenopenopenope',
      'anthropic-version': '2023-06-01',
    });
    expect(anthropic.status).toBe(401);
    const body = (await anthropic.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('authentication_error');
    expect(records.map((r) => r.reason)).toEqual(['authentication_failed', 'authentication_failed']);
  });

  it('never takes identity from caller-set headers', async () => {
    const { post } = await setup();
    const res = await post(null, chat('claude-sonnet'), '/v1/chat/completions', { 'x-tollgate-user': 'alice', 'x-user-id': 'alice' });
    expect(res.status).toBe(401);
  });

  it('answers malformed JSON with a 400 in the caller’s format, and records it', async () => {
    const { post, keys, records, upstream } = await setup();
    const bad = await post(keys.alice!, '{"model": "claude-sonnet", "messages": [');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const badAnthropic = await post(keys.alice!, '{not json', '/v1/messages', { 'anthropic-version': '2023-06-01' });
    expect(badAnthropic.status).toBe(400);
    expect(((await badAnthropic.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    const noMessages = await post(keys.alice!, { model: 'claude-sonnet' });
    expect(noMessages.status).toBe(400);
    expect(records.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(upstream.hits('anthropic')).toBe(0);
  });

  it('refuses a body over the cap with 413', async () => {
    const upstream = await startMockUpstream({});
    const ids = await keysFor({ user: 'alice' });
    const gateway = createGateway({ registry: testRegistry(upstream.url), identity: ids.identity, secrets: SECRETS, maxRequestBytes: 1024 });
    cleanups.push(async () => {
      await gateway.close();
      await upstream.close();
    });
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${ids.keys.alice}` },
        body: JSON.stringify(chat('claude-sonnet', { messages: [{ role: 'user', content: 'x'.repeat(5000) }] })),
      }),
    );
    expect(res.status).toBe(413);
  });
});

describe('rate limits and spend caps', () => {
  it('answers a rate limit with 429 and a short retry-after, before any upstream call', async () => {
    const { post, keys, records, upstream } = await setup({ rate_limits: [{ id: 'alice-rate', match: { users: ['alice'] }, rpm: 2 }] });
    expect((await post(keys.alice!, chat('gpt-mini'))).status).toBe(200);
    expect((await post(keys.alice!, chat('gpt-mini'))).status).toBe(200);
    const limited = await post(keys.alice!, chat('gpt-mini'));
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(records[2]!.reason).toBe('rate_limit:alice-rate');
    expect(upstream.hits('openai')).toBe(2);
  });

  it('keeps recorded spend under a hard cap with 50 concurrent requests; refused ones never reach the upstream', async () => {
    // Each request's worst case: prompt bound × $15/Mtok + max_tokens 100 × $75/Mtok (opus),
    // about 8,800 micro-USD; the recorded stream reports input 10, output 4 (450 micro-USD).
    const { post, keys, records, upstream, store } = await setup({
      spend: {
        rules: [{ id: 'opus-daily', matches: [{ match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '0.05' }, actions: [{ type: 'block' }] }] }],
      },
    });
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(keys.alice!, chat('claude-opus', { max_tokens: 100, stream: true }))));
    const ok = responses.filter((r) => r.status === 200).length;
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(ok + refused.length).toBe(50);
    for (const r of refused) {
      expect(r.headers.get('x-should-retry')).toBe('false');
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    }
    for (const r of responses) if (r.status === 200) await r.text();
    expect(upstream.hits('anthropic')).toBe(ok);
    const spent = records.filter((r) => r.status === 'ok').reduce((sum, r) => sum + r.cost_micros!.total, 0);
    expect(records.filter((r) => r.status === 'ok')).toHaveLength(ok);
    expect(spent).toBeLessThanOrEqual(50_000);
    expect(records.filter((r) => r.reason === 'spend_limit:opus-daily')).toHaveLength(refused.length);
    // Holds are all settled: nothing stays reserved.
    const held = await store.getHeld(records.map((r) => r.request_id));
    expect(Object.values(held).every((v) => v === 0)).toBe(true);
  });

  it('shadow mode reports what it would block and blocks nothing', async () => {
    const { post, keys, records } = await setup({
      enforcement: 'shadow',
      spend: { rules: [{ id: 'tiny', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '0.000001' }, actions: [{ type: 'block' }] }] }] },
    });
    const res = await post(keys.alice!, chat('gpt-mini'));
    expect(res.status).toBe(200);
    await res.text();
    expect(records[0]!.would_block).toContain('tiny');
  });
});
