import { describe, expect, it } from 'vitest';
import { alice, bob, policy, registry } from './__tests__/fixtures.js';
import { decideRegions, parsePolicy, type RegistryView } from './index.js';

/** The shared view, with where each model is served. */
const served: RegistryView = {
  models: Object.fromEntries(
    Object.entries(registry.models).map(([id, m]) => [id, { ...m, deployments: [{ region: 'us' }, { region: id.startsWith('claude') ? 'eu' : null }] }]),
  ),
};

describe('region rules: validation', () => {
  it('refuses an unknown region (with the regions there are), a duplicate id, an unknown scope and a rule that matches nobody', () => {
    const r = parsePolicy(
      {
        regions: [
          { id: 'eu', match: { bus: ['payments'] }, allow: ['eu', 'europe'] },
          { id: 'eu', match: { scope: 'frontierr' }, allow: ['us'] },
          { id: 'none', match: { users: [] }, allow: ['us'] },
          { id: 'empty', allow: [] },
        ],
      },
      { registry: served },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byPath = Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
    expect(byPath['regions[0].allow[1]']).toMatch(/^unknown region "europe": the registry's deployments are in us, eu/);
    expect(byPath['regions[1].id']).toMatch(/duplicate region rule id "eu"/);
    expect(byPath['regions[1].match.scope']).toMatch(/unknown scope "frontierr".*frontier/);
    expect(byPath['regions[2].match']).toMatch(/matches nobody/);
    expect(byPath['regions[3].allow']).toMatch(/at least one region/);
  });

  it('checks region names only against a view that carries deployments', () => {
    expect(parsePolicy({ regions: [{ id: 'x', allow: ['anywhere'] }] }, { registry }).ok).toBe(true);
    expect(parsePolicy({ regions: [{ id: 'x', allow: ['anywhere'] }] }, { registry: served }).ok).toBe(false);
  });
});

describe('decideRegions', () => {
  const p = policy({
    regions: [
      { id: 'payments-eu', match: { bus: ['payments'] }, allow: ['eu'] },
      { id: 'frontier-west', match: { scope: 'frontier' }, allow: ['eu', 'us'] },
      { id: 'trial', match: { bus: ['research'] }, allow: ['eu'], enforcement: 'shadow' },
    ],
  });

  it('returns every rule whose population and scope match, in file order', () => {
    expect(decideRegions({ policy: p, registry, principal: alice, model: 'claude-opus' }).rules).toEqual([
      { ruleId: 'payments-eu', allow: ['eu'], enforced: true, reason: 'region:payments-eu' },
      { ruleId: 'frontier-west', allow: ['eu', 'us'], enforced: true, reason: 'region:frontier-west' },
    ]);
    expect(decideRegions({ policy: p, registry, principal: alice, model: 'gemini-flash' }).rules.map((r) => r.ruleId)).toEqual(['payments-eu']);
    expect(decideRegions({ policy: p, registry, principal: bob, model: 'gemini-flash' }).rules).toEqual([
      { ruleId: 'trial', allow: ['eu'], enforced: false, reason: 'region:trial' },
    ]);
  });

  it('enforces nothing in shadow mode', () => {
    const d = decideRegions({ policy: p, registry, principal: alice, model: 'claude-opus', enforcement: 'shadow' });
    expect(d.rules.map((r) => r.enforced)).toEqual([false, false]);
  });
});
