import { describe, expect, it } from 'vitest';
import { decideRate } from './rate.js';
import { decideSpend } from './spend.js';
import { keySegment, principalKey } from './keys.js';
import type { Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';

const registry: RegistryView = { models: { 'gpt-5': { tags: ['frontier'] } } };
const NOW = Date.UTC(2026, 10, 29, 12);

const policy: Policy = {
  spend: {
    rules: [
      {
        id: 'cap{x}',
        matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '10' }, actions: [{ type: 'block' }, { type: 'pause', hours: 1 }] }],
      },
    ],
  },
  rate_limits: [{ id: 'r:1', rpm: 5, tpm: 100 }],
};

const keysOf = (p: Principal) => {
  const spend = decideSpend({ policy, registry, principal: p, model: 'gpt-5', counters: {}, now: NOW });
  const rate = decideRate({ policy, registry, principal: p, model: 'gpt-5', tokens: 10 });
  return [...spend.hardCaps.map((c) => c.key), ...rate.constraints.map((c) => c.key)];
};

describe('store keys carry the principal kind and issuer', () => {
  it('gives a user, an application and JWT users of two issuers with one id four disjoint key sets', () => {
    const principals: Principal[] = [
      { kind: 'user', id: 'alice' },
      { kind: 'application', id: 'alice', application: 'alice' },
      { kind: 'user', id: 'alice', issuer: 'https://idp-a.example' },
      { kind: 'user', id: 'alice', issuer: 'https://idp-b.example' },
    ];
    const sets = principals.map(keysOf);
    for (const keys of sets) expect(keys).toHaveLength(3);
    const all = sets.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(sets[0]).toEqual(['spend:cap%7Bx%7D:all:user:alice:2026-11', 'rate:r%3A1:user:alice:rpm', 'rate:r%3A1:user:alice:tpm']);
    expect(sets[2]![0]).toBe('spend:cap%7Bx%7D:all:user@https%3A//idp-a.example:alice:2026-11');
  });

  it('escapes separators and hash-tag braces, so no id can forge another principal’s key or a Redis slot', () => {
    expect(keySegment('plain-id_1.2')).toBe('plain-id_1.2');
    expect(keySegment('a:b{c}@d%e')).toBe('a%3Ab%7Bc%7D%40d%25e');
    // `user:a` + id `b` would otherwise equal kind `user` + id `a:b`.
    expect(principalKey({ kind: 'user', id: 'a:b' })).not.toBe(principalKey({ kind: 'user', id: 'a', issuer: 'b' }));
    for (const key of keysOf({ kind: 'user', id: '{tenant}', issuer: '{x}' })) expect(key).not.toMatch(/[{}]/);
  });

  it('names the marker keys of pauses by kind too', () => {
    const spent = { '2026-11': { 'gpt-5': 10_000_000 } };
    const user = decideSpend({ policy, registry, principal: { kind: 'user', id: 'bob' }, model: 'gpt-5', counters: spent, now: NOW });
    const app = decideSpend({ policy, registry, principal: { kind: 'application', id: 'bob' }, model: 'gpt-5', counters: spent, now: NOW });
    expect(user.pauses.map((p) => p.key)).toEqual(['pause:cap%7Bx%7D#0:user:bob:2026-11']);
    expect(app.pauses.map((p) => p.key)).toEqual(['pause:cap%7Bx%7D#0:application:bob:2026-11']);
  });
});
