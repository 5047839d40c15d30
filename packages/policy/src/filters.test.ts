import { describe, expect, it } from 'vitest';
import { NOW, alice, bob, policy, registry, usd, user } from './__tests__/fixtures.js';
import { decideDlp, decideSpend, decideSubstitution, decideTools, defaultMaxTokens, stricterDlpAction } from './index.js';

describe('budget-tier substitution', () => {
  const rules = policy({
    access: { models: { 'claude-haiku': { allow_bus: ['research'] } } },
    spend: {
      rules: [
        {
          id: 'tiers',
          matches: [
            { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '80' }, actions: [{ type: 'substitute', to: ['claude-haiku', 'gpt-5-mini'] }] },
          ],
        },
        { id: 'mini-cap', matches: [{ match: { scope: 'gpt-5-mini', window: 'monthly', at_or_above_usd: '5' }, actions: [{ type: 'block' }] }] },
      ],
    },
  });
  const over = { '2026-11': { 'gpt-5': usd('85') } };
  const spend = (principal = alice, counters: Record<string, Record<string, number>> = over, markers = {}) =>
    decideSpend({ policy: rules, registry, principal, model: 'gpt-5', counters, markers, now: NOW });

  it('keeps the model below the tier', () => {
    expect(decideSubstitution({ policy: rules, registry, principal: alice, model: 'gpt-5', spend: spend(alice, {}), now: NOW })).toEqual({
      type: 'keep',
      model: 'gpt-5',
    });
  });

  it('picks the first candidate the caller may use (narrow only)', () => {
    expect(decideSubstitution({ policy: rules, registry, principal: bob, model: 'gpt-5', spend: spend(bob), now: NOW })).toMatchObject({
      type: 'substitute',
      from: 'gpt-5',
      to: 'claude-haiku',
      ruleId: 'tiers',
    });
    // alice (payments) may not use haiku: the next candidate.
    expect(decideSubstitution({ policy: rules, registry, principal: alice, model: 'gpt-5', spend: spend(), now: NOW })).toMatchObject({
      type: 'substitute',
      to: 'gpt-5-mini',
    });
  });

  it('skips candidates over their own budget when counters are given, and refuses when none is left', () => {
    const counters = { '2026-11': { 'gpt-5': usd('85'), 'gpt-5-mini': usd('5') } };
    expect(decideSubstitution({ policy: rules, registry, principal: alice, model: 'gpt-5', spend: spend(alice, counters), counters, now: NOW })).toEqual({
      type: 'refuse',
      from: 'gpt-5',
      ruleId: 'tiers',
      reason: 'spend_limit:tiers',
    });
  });

  it('skips a candidate the caller says cannot serve the request (eligible), asking only after access', () => {
    const asked: string[] = [];
    const eligible = (m: string) => (asked.push(m), m !== 'claude-haiku');
    expect(decideSubstitution({ policy: rules, registry, principal: bob, model: 'gpt-5', spend: spend(bob), now: NOW, eligible })).toMatchObject({
      type: 'substitute',
      to: 'gpt-5-mini',
    });
    expect(asked).toEqual(['claude-haiku', 'gpt-5-mini']);
    asked.length = 0;
    // alice may not use haiku: it is never asked about.
    expect(
      decideSubstitution({ policy: rules, registry, principal: alice, model: 'gpt-5', spend: spend(), now: NOW, eligible: (m) => (asked.push(m), false) }),
    ).toEqual({ type: 'refuse', from: 'gpt-5', ruleId: 'tiers', reason: 'spend_limit:tiers' });
    expect(asked).toEqual(['gpt-5-mini']);
  });

  it('stays latched until the window rolls over', () => {
    const latch = { 'latch:tiers:frontier:user:alice:2026-11': NOW - 1 };
    expect(spend(alice, {}, latch).substitute?.ruleId).toBe('tiers');
    expect(spend(alice, {}, latch).latches).toEqual([]);
    const december = decideSpend({ policy: rules, registry, principal: alice, model: 'gpt-5', counters: {}, markers: latch, now: Date.UTC(2026, 11, 1) });
    expect(december.substitute).toBeUndefined();
  });
});

describe('tool allow-lists', () => {
  const rules = policy({
    tools: {
      allow_lists: [
        { id: 'payments', match: { bus: ['payments'] }, allow: ['get_weather', 'search_*'] },
        { id: 'frontier-safe', match: { scope: 'frontier' }, allow: ['search_web', 'get_weather'] },
      ],
    },
  });

  it('every matching list must allow a tool', () => {
    const d = decideTools({ policy: rules, registry, principal: alice, model: 'claude-opus', tools: ['get_weather', 'search_web', 'search_docs', 'run_sql'] });
    expect(d.tools.map((t) => [t.name, t.allowed, t.deniedBy])).toEqual([
      ['get_weather', true, []],
      ['search_web', true, []],
      ['search_docs', false, ['frontier-safe']],
      ['run_sql', false, ['payments', 'frontier-safe']],
    ]);
    expect(d).toMatchObject({ allowed: false, denied: ['search_docs', 'run_sql'], reasons: ['tool_not_allowed:frontier-safe', 'tool_not_allowed:payments'] });
  });

  it('no matching list allows everything; shadow only reports', () => {
    expect(decideTools({ policy: rules, registry, principal: bob, model: 'claude-haiku', tools: ['run_sql'] }).allowed).toBe(true);
    expect(decideTools({ policy: rules, registry, principal: alice, model: 'claude-haiku', tools: ['run_sql'], enforcement: 'shadow' })).toMatchObject({
      allowed: true,
      enforced: false,
      denied: [],
      wouldDeny: ['run_sql'],
    });
  });
});

describe('DLP action per entity type per use case', () => {
  const rules = policy({
    dlp: {
      default: { credit_card: 'block', email: 'redact', '*': 'log' },
      use_cases: [
        { id: 'support', match: { applications: ['helpdesk'] }, actions: { email: 'allow', phone: 'redact' } },
        { id: 'research', match: { bus: ['research'] }, actions: { '*': 'allow', credit_card: 'redact' } },
      ],
    },
  });

  it.each([
    ['a payments user', alice, undefined, { credit_card: 'block', email: 'redact', ssn: 'log' }, null],
    ['helpdesk', user('h', { application: 'helpdesk' }), undefined, { credit_card: 'block', email: 'allow', ssn: 'log', phone: 'redact' }, 'support'],
    ['research', bob, undefined, { credit_card: 'redact', email: 'allow', ssn: 'allow' }, 'research'],
    ['an explicit use case', alice, 'support', { email: 'allow' }, 'support'],
  ] as const)('%s', (_l, principal, useCase, actions, expected) => {
    const d = decideDlp({ policy: rules, principal, entities: Object.keys(actions), ...(useCase ? { useCase } : {}) });
    expect(d.actions).toEqual(actions);
    expect(d.useCase).toBe(expected);
    expect(d.blocked).toBe(Object.values(actions).includes('block'));
  });

  it('an unknown use case fails closed', () => {
    expect(decideDlp({ policy: rules, principal: alice, entities: [], useCase: 'nope' })).toMatchObject({ blocked: true, reasons: ['dlp_unknown_use_case'] });
  });

  it('with no DLP policy everything is allowed; actions order by strictness', () => {
    expect(decideDlp({ policy: policy({}), principal: alice, entities: ['email'] }).actions).toEqual({ email: 'allow' });
    expect(stricterDlpAction('redact', 'log')).toBe('redact');
    expect(stricterDlpAction('allow', 'block')).toBe('block');
  });
});

describe('default_max_tokens', () => {
  it('is the policy bound, capped by the model maximum, else the model maximum', () => {
    expect(defaultMaxTokens(policy({ default_max_tokens: 4096 }), 64000)).toBe(4096);
    expect(defaultMaxTokens(policy({ default_max_tokens: 4096 }), 1024)).toBe(1024);
    expect(defaultMaxTokens(policy({}), 64000)).toBe(64000);
    expect(defaultMaxTokens(policy({}))).toBeUndefined();
  });
});
