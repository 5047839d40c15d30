import { describe, expect, it } from 'vitest';
import { NOW, alice, bob, dave, policy, registry, usd } from './__tests__/fixtures.js';
import { whatIf } from './index.js';

describe('whatIf', () => {
  const draft = policy({
    enforcement: 'shadow', // a draft is evaluated as enforced anyway
    access: { models: { 'claude-opus': { deny_leaders: ['carol'] } } },
    spend: {
      rules: [{ id: 'frontier-cap', matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] }],
    },
  });
  const counters = {
    alice: { '2026-11': { 'gpt-5': usd('120') } },
    bob: { '2026-11': { 'gpt-5': usd('20') } },
  };

  it('says who would be blocked now, where and why, with no effects', () => {
    const r = whatIf(draft, counters, [alice, bob, dave], NOW, { registry, models: ['claude-opus', 'gpt-5', 'claude-haiku'] });
    expect(r.evaluated).toBe(9);
    expect(r.blocked).toEqual([
      { principalId: 'alice', model: 'claude-opus', stage: 'access', reasons: ['access_denied', 'deny_leaders:claude-opus'] },
      { principalId: 'alice', model: 'gpt-5', stage: 'spend', reasons: ['spend_limit:frontier-cap'], retryAfterS: 36 * 3600 },
      { principalId: 'dave', model: 'claude-opus', stage: 'access', reasons: ['access_denied', 'deny_leaders:claude-opus'] },
    ]);
    expect(r.byReason).toEqual({ access_denied: 2, 'spend_limit:frontier-cap': 1 });
    expect(r.principalsBlocked).toEqual(['alice', 'dave']);
  });

  it('tries every registry model by default', () => {
    expect(whatIf(draft, {}, [bob], NOW, { registry }).evaluated).toBe(Object.keys(registry.models).length);
  });
});
