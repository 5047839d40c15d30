import { describe, expect, it } from 'vitest';
import { IdentityConfigSchema, parseIdentityConfig } from './schema.js';

const hash = 'sha256:' + 'a'.repeat(64);
const hash2 = 'sha256:' + 'b'.repeat(64);
const jwk = { kty: 'RSA', n: 'abc', e: 'AQAB' };
const errorsOf = (input: unknown): string => {
  const r = IdentityConfigSchema.safeParse(input);
  return r.success ? '' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
};

describe('identity: config schema', () => {
  it('accepts the documented shape (docs/service-config.md) and normalizes hashes', () => {
    const cfg = parseIdentityConfig({
      virtual_keys: [
        { hash: hash.toUpperCase().replace('SHA256', 'sha256'), principal: { user: 'alice', tier: 'normal', bu: 'payments', leaders: ['ceo', 'vp'] } },
      ],
      jwt: [{ issuer: 'https://idp.example.com', audience: 'tollgate', jwks_url: 'https://idp.example.com/jwks' }],
      applications: [{ id: 'bot', hash: hash2 }],
    });
    expect(cfg.virtual_keys?.[0]?.hash).toBe(hash);
    expect(parseIdentityConfig({})).toEqual({});
  });

  it('rejects unknown keys at every level', () => {
    expect(errorsOf({ virtual_key: [] })).toMatch(/virtual_key/);
    expect(errorsOf({ virtual_keys: [{ hash, principal: { user: 'a', role: 'admin' } }] })).toMatch(/role/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks: { keys: [jwk] }, audiences: ['x'] }] })).toMatch(/audiences/);
    expect(errorsOf({ applications: [{ id: 'x', hash, leaders: [] }] })).toMatch(/leaders/);
  });

  it('refuses none and HS* algorithms, private or symmetric JWKs, and plain http', () => {
    const base = { issuer: 'i', audience: 'a', jwks: { keys: [jwk] } };
    expect(errorsOf({ jwt: [{ ...base, algorithms: ['none'] }] })).toMatch(/algorithms/);
    expect(errorsOf({ jwt: [{ ...base, algorithms: ['HS256'] }] })).toMatch(/algorithms/);
    expect(errorsOf({ jwt: [{ ...base, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }] })).toMatch(/jwks/);
    expect(errorsOf({ jwt: [{ ...base, jwks: { keys: [{ ...jwk, d: 'private' }] } }] })).toMatch(/public keys only/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks_url: 'http://idp.example.com/jwks' }] })).toMatch(/https/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks_url: 'http://127.0.0.1:8080/jwks' }] })).toBe('');
    // A malformed URL is a listed violation, not a thrown TypeError.
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks_url: '' }] })).toMatch(/jwks_url/);
  });

  it('requires exactly one key source and keeps tags to platform tokens', () => {
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a' }] })).toMatch(/exactly one/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks_url: 'https://x/j', jwks: { keys: [jwk] } }] })).toMatch(/exactly one/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks: { keys: [jwk] }, allowed_tags: ['team'] }] })).toMatch(/platform/);
    expect(errorsOf({ jwt: [{ issuer: 'i', audience: 'a', jwks: { keys: [jwk] }, platform: 'p', claims: { platform: 'plat' } }] })).toMatch(/claims\.platform/);
  });

  it('rejects malformed and duplicate hashes and duplicate application ids', () => {
    expect(errorsOf({ virtual_keys: [{ hash: 'sha256:xyz', principal: { user: 'a' } }] })).toMatch(/64 hex/);
    expect(errorsOf({ virtual_keys: [{ hash, principal: { user: 'a' } }], applications: [{ id: 'b', hash }] })).toMatch(/duplicate key hash/);
    expect(
      errorsOf({
        applications: [
          { id: 'b', hash },
          { id: 'b', hash: hash2 },
        ],
      }),
    ).toMatch(/duplicate application id/);
  });

  it('reports every violation in one error', () => {
    expect(() => parseIdentityConfig({ virtual_keys: [{ hash: 'x', principal: {} }], jwt: [{}] })).toThrow(
      /virtual_keys\[0\]\.hash[\s\S]*virtual_keys\[0\]\.principal\.user[\s\S]*jwt\[0\]\.issuer/,
    );
  });
});
