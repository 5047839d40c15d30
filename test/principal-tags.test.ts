/**
 * Platform tags (`jwt[].tags_claim`, `allowed_tags`) through a real OpenAI SDK client: a
 * platform mints a token for its user with tags; the usage record carries the allow-listed
 * ones in `principal.tags` (attribution for reports), and they grant nothing.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const ISSUER = 'https://agents.example.com';

describe('platform tags in the usage record', () => {
  it('records the allow-listed tags read from tags_claim, and only those; other principals record {}', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'p1', alg: 'ES256', use: 'sig' };
    const upstream = await startMockUpstream({ openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json') });
    const virtual = await keysFor({ user: 'bob' });
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      // A tag named bu is not the principal's business unit: claude-opus stays closed to alice.
      policy: { access: { models: { 'claude-opus': { allow_bus: ['exec'] } } } },
      identity: {
        ...virtual.identity,
        jwt: [
          { issuer: ISSUER, audience: 'tollgate', jwks: { keys: [jwk] }, platform: 'agent-hub', tags_claim: 'ctx.labels', allowed_tags: ['team', 'run', 'bu'] },
        ],
      },
      secrets: SECRETS,
      usage: (r) => void records.push(r),
    });
    cleanups.push(async () => {
      await gateway.close();
      await upstream.close();
    });
    const token = await new SignJWT({
      sub: 'alice',
      ctx: { labels: { team: 'search', run: 'r-42', bu: 'exec', secret: 'never-recorded' } },
      tags: { team: 'wrong-claim' },
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'p1' })
      .setIssuer(ISSUER)
      .setAudience('tollgate')
      .setExpirationTime('5m')
      .sign(privateKey);
    const ask = (key: string, model = 'gpt-mini') =>
      new OpenAI({ apiKey: key, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 }).chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'hi' }],
      });

    await ask(token);
    const opus = await ask(token, 'claude-opus').catch((e: unknown) => e);
    await ask(virtual.keys.bob!);
    expect(opus).toBeInstanceOf(OpenAI.NotFoundError);
    expect(records.map((r) => [r.principal?.id, r.principal?.platform, r.principal?.bu, r.principal?.tags])).toEqual([
      ['alice', 'agent-hub', null, { team: 'search', run: 'r-42', bu: 'exec' }],
      ['alice', 'agent-hub', null, { team: 'search', run: 'r-42', bu: 'exec' }],
      ['bob', null, null, {}],
    ]);
    expect(records[1]!.reason).toBe('access_denied');
    expect(JSON.stringify(records)).not.toContain('never-recorded');
  });
});
