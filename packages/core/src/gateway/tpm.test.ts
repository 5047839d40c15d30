import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  // One second into a minute: every call of a test falls in one rate window.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-01T00:00:01Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup(rateLimits: NonNullable<PolicyFileInput['rate_limits']>) {
  const { key, hash } = await createVirtualKey();
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const store = createMemoryStore({ sweepIntervalMs: 0 });
  const gateway: Gateway = createGateway({
    registry: billingRegistry({ maxOutputTokens: 64_000 }),
    policy: { rate_limits: rateLimits },
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: upstream.fetch,
    store,
    usage: (r) => void records.push(r),
  });
  open.push(store, gateway);
  const post = async (extra: Record<string, unknown> = {}) => {
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], ...extra }),
      }),
    );
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  return { upstream, records, post };
}

describe('token limits bite on the tokens used', () => {
  it('reconciles each call’s worst case (64k injected max tokens) to its ~50 used tokens: ten calls fit a 400k TPM', async () => {
    const { post, upstream, records } = await setup([{ id: 'tpm', tpm: 400_000 }]);
    upstream.state.outputTokens = 40;
    for (let i = 0; i < 10; i++) expect((await post()).status).toBe(200);
    expect(upstream.state.bodies[0]).toMatchObject({ max_completion_tokens: 64_000 });
    expect(records.every((r) => r.status === 'ok')).toBe(true);
  });

  it('counts what heavy calls used, and refuses with the tokens type and a retry-after that ends with the window', async () => {
    const { post, upstream, records } = await setup([{ id: 'tpm', tpm: 100_000 }]);
    upstream.state.outputTokens = 30_000;
    const calls = [];
    for (let i = 0; i < 4; i++) calls.push(await post({ max_completion_tokens: 30_000 }));
    // Three calls use 90k; the fourth's worst case (30k + its prompt) does not fit the minute.
    expect(calls.map((c) => c.status)).toEqual([200, 200, 200, 429]);
    const refused = calls[3]!;
    expect(refused.body.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(refused.body.error.message).toMatch(/tokens per minute \(limit 100000\)/);
    expect(refused.headers.get('retry-after')).toBe('59');
    expect(Number(refused.headers.get('retry-after-ms'))).toBe(59_000);
    expect(records[3]).toMatchObject({ status: 'rejected', reason: 'rate_limit:tpm' });
  });

  it('says a request that can never fit the token limit is too large, and asks clients not to retry', async () => {
    const { post, upstream } = await setup([{ id: 'tpm', tpm: 1_000 }]);
    const refused = await post({ max_completion_tokens: 5_000 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe('tokens');
    expect(refused.body.error.message).toMatch(/^Request too large for the token rate limit/);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(upstream.state.calls).toBe(0);
  });

  it('names the requests limit as such', async () => {
    const { post } = await setup([{ id: 'rpm', rpm: 2 }]);
    expect((await post({ max_completion_tokens: 10 })).status).toBe(200);
    expect((await post({ max_completion_tokens: 10 })).status).toBe(200);
    const refused = await post({ max_completion_tokens: 10 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe('requests');
    expect(refused.body.error.message).toMatch(/requests per minute \(limit 2\)/);
    expect(refused.headers.get('retry-after')).toBe('59');
  });

  it('gives the tokens back when the upstream fails the call', async () => {
    const { post, upstream } = await setup([{ id: 'tpm', tpm: 50_000 }]);
    upstream.state.outputTokens = 10;
    // The first call's upstream fails: it used nothing, so its 30k worst case is given back.
    upstream.state.failNext = true;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post({ max_completion_tokens: 30_000 })).status);
    expect(statuses[0]).toBeGreaterThanOrEqual(500);
    expect(statuses.slice(1)).toEqual([200, 200]);
  });

  it('gives the tokens back when a spend cap refuses after the buckets were taken', async () => {
    const { key, hash } = await createVirtualKey();
    const upstream = billingUpstream();
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const gateway = createGateway({
      registry: billingRegistry({ maxOutputTokens: 64_000 }),
      policy: {
        rate_limits: [{ id: 'tpm', tpm: 50_000 }],
        spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'gpt-resp', window: 'daily', at_or_above_usd: '0.01' }, actions: [{ type: 'block' }] }] }] },
      },
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
    });
    open.push(store, gateway);
    const send = async (model: string) =>
      (
        await gateway.handle(
          new Request(`http://gw/v1/${model === 'gpt-resp' ? 'responses' : 'chat/completions'}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(
              model === 'gpt-resp'
                ? { model, input: 'hi', max_output_tokens: 30_000 }
                : { model, messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 30_000 },
            ),
          }),
        )
      ).status;
    upstream.state.outputTokens = 10;
    // $0.30 worst case over a $0.01 cap: refused by spend, after the 30k tokens were taken.
    expect(await send('gpt-resp')).toBe(429);
    expect(await send('gpt-chat')).toBe(200);
  });
});
