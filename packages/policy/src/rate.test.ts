import { describe, expect, it } from 'vitest';
import { alice, bob, policy, registry, user } from './__tests__/fixtures.js';
import { decideRate } from './index.js';

const rules = policy({
  rate_limits: [
    { id: 'alice-rate', match: { users: ['alice'] }, rpm: 100, tpm: 200000 },
    { id: 'normal-tier', match: { tiers: ['normal'] }, rpm: 60, on_store_error: 'open' },
    { id: 'frontier-normal', match: { tiers: ['normal'], scope: 'frontier' }, rpm: 10, tpm: 50000 },
    { id: 'vip', match: { users: ['vic'] }, unlimited: true },
    { id: 'trial', match: { tiers: ['trial'] }, rpm: 5, enforcement: 'shadow' },
  ],
});

const vic = user('vic', { tier: 'vip' });

describe('decideRate', () => {
  it('the most restrictive matching rule wins per kind', () => {
    const d = decideRate({ policy: rules, registry, principal: alice, model: 'claude-haiku', tokens: 1200 });
    expect(d.matched).toEqual(['alice-rate', 'normal-tier']);
    expect(d.limiting).toEqual({ requests: 'normal-tier', tokens: 'alice-rate' });
    expect(d.constraints).toEqual([
      {
        key: 'rate:normal-tier:user:alice:rpm',
        ruleId: 'normal-tier',
        kind: 'requests',
        per: 'user',
        limit: 60,
        windowMs: 60000,
        amount: 1,
        onStoreError: 'open',
        reason: 'rate_limit:normal-tier',
      },
      {
        key: 'rate:alice-rate:user:alice:tpm',
        ruleId: 'alice-rate',
        kind: 'tokens',
        per: 'user',
        limit: 200000,
        windowMs: 60000,
        amount: 1200,
        onStoreError: 'closed',
        reason: 'rate_limit:alice-rate',
      },
    ]);
  });

  it('a scoped rule counts only its own requests, and every stated cap holds', () => {
    const d = decideRate({ policy: rules, registry, principal: alice, model: 'claude-opus' });
    expect(d.limiting).toEqual({ requests: 'frontier-normal', tokens: 'frontier-normal' });
    expect(d.constraints.map((c) => c.key)).toEqual([
      'rate:normal-tier:user:alice:rpm',
      'rate:frontier-normal:user:alice:rpm',
      'rate:alice-rate:user:alice:tpm',
      'rate:frontier-normal:user:alice:tpm',
    ]);
    expect(d.constraints.find((c) => c.kind === 'tokens')?.amount).toBeUndefined();
  });

  it('without a model only unscoped rules apply', () => {
    expect(decideRate({ policy: rules, registry, principal: bob }).matched).toEqual(['normal-tier']);
  });

  it('unlimited is an audited no-cap that neither narrows nor widens', () => {
    const d = decideRate({ policy: rules, registry, principal: vic, model: 'gpt-5' });
    expect(d).toMatchObject({ constraints: [], unlimited: ['vip'], matched: ['vip'] });
    const both = policy({
      rate_limits: [
        { id: 'u', match: {}, unlimited: true },
        { id: 'cap', match: {}, rpm: 3 },
      ],
    });
    expect(decideRate({ policy: both, registry, principal: vic }).constraints.map((c) => c.limit)).toEqual([3]);
  });

  it('shadow rules and shadow mode count and report, never refuse', () => {
    const trial = user('tina', { tier: 'trial' });
    expect(decideRate({ policy: rules, registry, principal: trial })).toMatchObject({
      constraints: [],
      shadowConstraints: [{ key: 'rate:trial:user:tina:rpm', limit: 5 }],
    });
    const d = decideRate({ policy: rules, registry, principal: alice, enforcement: 'shadow' });
    expect(d.enforced).toBe(false);
    expect(d.constraints).toEqual([]);
    expect(d.shadowConstraints.map((c) => c.ruleId)).toEqual(['normal-tier', 'alice-rate']);
  });
});
