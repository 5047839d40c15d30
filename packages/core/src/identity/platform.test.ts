import { describe, expect, it } from 'vitest';
import { MAX_TAGS, pickTags } from './claims.js';
import { createIdentityResolver } from './with-jwt.js';
import { ISSUER, bearer, makeKey, sign } from './__tests__/fixtures.js';

const PLATFORM_ISSUER = 'https://agents.example.com';

async function setup(allowed_tags?: string[]) {
  const key = await makeKey('p', 'ES256');
  const resolver = createIdentityResolver({
    jwt: [
      {
        issuer: PLATFORM_ISSUER,
        audience: 'tollgate',
        jwks: { keys: [key.publicJwk] },
        platform: 'agent-hub',
        claims: { tier: 'tier' },
        ...(allowed_tags ? { allowed_tags } : {}),
      },
    ],
  });
  const token = (claims: Record<string, unknown>) => sign(key, { iss: PLATFORM_ISSUER, ...claims });
  return { resolver, token };
}

describe('identity: platform-minted tokens', () => {
  it('takes the user from sub and the platform as an attribution', async () => {
    const { resolver, token } = await setup();
    const r = await resolver.authenticate(bearer(await token({ sub: 'alice', tier: 'normal', platform: 'spoofed', tags: { team: 'x' } })));
    expect(r).toEqual({ ok: true, method: 'jwt', principal: { kind: 'user', id: 'alice', issuer: PLATFORM_ISSUER, tier: 'normal', platform: 'agent-hub' } });
  });

  it('keeps only allow-listed, short string tags, and tags never become authority', async () => {
    const { resolver, token } = await setup(['team', 'workflow_run', 'tier', 'bu', 'leaders']);
    const r = await resolver.authenticate(
      bearer(
        await token({
          sub: 'alice',
          tier: 'normal',
          tags: { team: 'search', workflow_run: 'r-42', tier: 'unlimited', bu: 'exec', leaders: 'ceo', secret: 'nope', long: 'x'.repeat(65) },
        }),
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.principal.tier).toBe('normal');
    expect(r.principal.bu).toBeUndefined();
    expect(r.principal.leaders).toBeUndefined();
    expect(r.principal.tags).toEqual({ team: 'search', workflow_run: 'r-42', tier: 'unlimited', bu: 'exec', leaders: 'ceo' });
  });

  it('bounds the number and size of tags', () => {
    const allowed = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const raw = Object.fromEntries(allowed.map((k) => [k, 'v']));
    expect(Object.keys(pickTags(raw, allowed) ?? {})).toHaveLength(MAX_TAGS);
    expect(pickTags({ a: 'x'.repeat(64), b: 'x'.repeat(65), c: 3, d: '' }, ['a', 'b', 'c', 'd'])).toEqual({ a: 'x'.repeat(64) });
    expect(pickTags(['a'], ['0'])).toBeUndefined();
    expect(pickTags('a=b', ['a'])).toBeUndefined();
    expect(pickTags({ a: 'b' }, [])).toBeUndefined();
  });

  it('does not accept a platform token from another issuer entry', async () => {
    const { resolver } = await setup(['team']);
    const other = await makeKey('p', 'ES256');
    const r = await resolver.authenticate(bearer(await sign(other, { iss: PLATFORM_ISSUER })));
    expect(r.ok).toBe(false);
    const unknown = await resolver.authenticate(bearer(await sign(other, { iss: ISSUER })));
    expect(unknown.ok).toBe(false);
  });
});
