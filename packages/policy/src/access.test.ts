import { describe, expect, it } from 'vitest';
import { NOW, alice, bob, dave, policy, registry, user } from './__tests__/fixtures.js';
import { allowedModels, decideAccess, type Principal } from './index.js';

const rules = policy({
  timezone: 'UTC',
  access: {
    models: {
      'claude-opus': { deny_leaders: ['carol'], exempt_users: ['dave'] },
      'gpt-5': { allow_leaders: ['bob-mgr'] },
      frontier: { block_bus: ['interns'] },
      'gemini-flash': { allow_bus: ['research'] },
    },
  },
  business_units: {
    payments: { models: { openai: 'off', 'gpt-5-mini': 'on' } },
    research: { models: { 'claude-haiku': 'off' } },
    interns: { models: { 'claude-opus': 'on' } }, // cannot re-enable the platform's block_bus
  },
  limited_access: {
    'claude-sonnet': { members: ['alice', { user: 'erin', expires: '2026-11-30' }, { user: 'frank', expires: '2026-11-28' }, { application: 'helpdesk' }] },
  },
  pilots: [
    { id: 'haiku-pilot', models: ['claude-haiku'], cohort: { tiers: ['pilot'] }, enforcement: 'authoritative', starts: '2026-11-01', ends: '2026-12-31' },
    { id: 'mini-shadow', models: ['gpt-5-mini'], cohort: { users: ['alice'] }, enforcement: 'shadow' },
    { id: 'flash-off', models: ['gemini-flash'], cohort: { users: ['nobody'] }, enforcement: 'off' },
  ],
});

const carol = user('carol', { leaders: ['ceo'] });
const intern = user('ivan', { bu: 'interns', leaders: ['carol', 'ceo'] });
const ted = user('ted', { leaders: ['bob-mgr', 'ceo'] });
const pilotUser = user('pia', { tier: 'pilot', bu: 'sales' });
const erin = user('erin', { bu: 'sales' });
const frank = user('frank', { bu: 'sales' });
const helpdesk: Principal = { kind: 'application', id: 'helpdesk' };
const viaHelpdesk = user('gus', { bu: 'sales', application: 'helpdesk' });
const DEC_1 = Date.UTC(2026, 11, 1, 0, 0);
const JAN_1 = Date.UTC(2027, 0, 1, 0, 0);

describe('decideAccess reads like the policy', () => {
  it.each([
    // who, model, now, allowed, denial detail
    ['alice (under carol)', alice, 'claude-opus', NOW, false, 'deny_leaders:claude-opus'],
    ['dave (under carol, exempt)', dave, 'claude-opus', NOW, true, undefined],
    ['carol herself', carol, 'claude-opus', NOW, false, 'deny_leaders:claude-opus'],
    ['bob (under bob-mgr)', bob, 'gpt-5', NOW, true, undefined],
    ['alice (not under bob-mgr)', alice, 'gpt-5', NOW, false, 'allow_leaders:gpt-5'],
    ['an intern, any frontier model', intern, 'claude-sonnet', NOW, false, 'block_bus:frontier'],
    ['an intern whose BU toggles opus on', user('iris', { bu: 'interns' }), 'claude-opus', NOW, false, 'block_bus:frontier'],
    ['bob (research) on gemini-flash', bob, 'gemini-flash', NOW, true, undefined],
    ['alice (payments) on gemini-flash', alice, 'gemini-flash', NOW, false, 'allow_bus:gemini-flash'],
    ['ted (payments, under bob-mgr) on gpt-5: BU turned openai off', ted, 'gpt-5', NOW, false, 'bu_toggle:payments:openai'],
    ['ted on gpt-5-mini: the BU turned the model back on', ted, 'gpt-5-mini', NOW, true, undefined],
    ['bob on claude-haiku: research turned it off', bob, 'claude-haiku', NOW, false, 'bu_toggle:research:claude-haiku'],
    ['alice on claude-haiku during the pilot', alice, 'claude-haiku', NOW, false, 'pilot:haiku-pilot'],
    ['a pilot-tier user on claude-haiku', pilotUser, 'claude-haiku', NOW, true, undefined],
    ['alice on claude-haiku after the pilot', alice, 'claude-haiku', JAN_1, true, undefined],
    ['alice on claude-sonnet (roster)', alice, 'claude-sonnet', NOW, true, undefined],
    ['erin on claude-sonnet on her last day', erin, 'claude-sonnet', DEC_1 - 1, true, undefined],
    ['erin on claude-sonnet once expired', erin, 'claude-sonnet', DEC_1, false, 'roster:claude-sonnet'],
    ['frank (expired) on claude-sonnet', frank, 'claude-sonnet', NOW, false, 'roster:claude-sonnet'],
    ['bob (not on the roster) on claude-sonnet', bob, 'claude-sonnet', NOW, false, 'roster:claude-sonnet'],
    ['the helpdesk application on claude-sonnet', helpdesk, 'claude-sonnet', NOW, true, undefined],
    ['a user calling through helpdesk on claude-sonnet', viaHelpdesk, 'claude-sonnet', NOW, true, undefined],
  ] as const)('%s → %s', (_label, who, model, now, allowed, detail) => {
    const d = decideAccess({ policy: rules, registry, principal: who, model, now });
    expect({ allowed: d.allowed, detail: d.denial?.detail, reason: d.reason }).toEqual({ allowed, detail, reason: allowed ? undefined : 'access_denied' });
  });

  it('answers model_not_found for unknown or missing models, even in shadow mode', () => {
    for (const model of ['gpt-9', null, undefined, 'toString']) {
      const d = decideAccess({ policy: rules, registry, principal: alice, model, now: NOW, enforcement: 'shadow' });
      expect(d).toMatchObject({ allowed: false, reason: 'model_not_found' });
    }
  });

  it('shadow pilots report would-deny without denying', () => {
    expect(decideAccess({ policy: rules, registry, principal: ted, model: 'gpt-5-mini', now: NOW })).toEqual({
      allowed: true,
      enforced: true,
      wouldDeny: [{ layer: 'pilot', detail: 'pilot:mini-shadow' }],
    });
    expect(decideAccess({ policy: rules, registry, principal: alice, model: 'gpt-5-mini', now: NOW }).wouldDeny).toEqual([]);
  });

  it('shadow mode evaluates every layer and blocks nothing', () => {
    const d = decideAccess({ policy: rules, registry, principal: intern, model: 'claude-opus', now: NOW, enforcement: 'shadow' });
    expect(d.allowed).toBe(true);
    expect(d.enforced).toBe(false);
    expect(d.wouldDeny.map((x) => x.detail)).toEqual(['deny_leaders:claude-opus', 'block_bus:frontier']);
    const fromFile = policy({ enforcement: 'shadow', access: { models: { all: { allow_bus: ['x'] } } } });
    expect(decideAccess({ policy: fromFile, registry, principal: alice, model: 'gpt-5', now: NOW })).toMatchObject({ allowed: true, enforced: false });
  });

  it('lists the models a caller may use (for discovery)', () => {
    expect(allowedModels({ policy: rules, registry, principal: alice, now: NOW })).toEqual(['claude-sonnet', 'gpt-5-mini']);
    expect(allowedModels({ policy: rules, registry, principal: pilotUser, now: NOW })).toEqual(['claude-opus', 'claude-haiku', 'gpt-5-mini']);
  });

  it('an empty policy admits every known model', () => {
    const open = policy({});
    for (const model of Object.keys(registry.models)) {
      expect(decideAccess({ policy: open, registry, principal: alice, model, now: NOW }).allowed).toBe(true);
    }
  });
});
