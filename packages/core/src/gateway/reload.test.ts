import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, GatewayConfigError, type Gateway, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { anthropicUpstream, registry } from './__tests__/anthropic-upstream.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

/** The test registry plus `claude-fast`, another model on the same Anthropic deployment. */
function registryWithFast() {
  const base = registry();
  const sonnet = base.models['claude-sonnet'];
  return { ...base, models: { ...base.models, 'claude-fast': { ...sonnet, deployments: [{ ...sonnet.deployments[0]!, id: 'fast@anthropic' }] } } };
}

async function setup() {
  const { key, hash } = await createVirtualKey();
  const upstream = anthropicUpstream();
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: registry(),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal', leaders: ['carol'] } }] },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-upstream' },
    fetch: upstream.fetch,
    usage: (r) => void records.push(r),
  });
  open.push(gateway);
  const chat = async (model: string, extra: Record<string, unknown> = {}) =>
    gateway.handle(
      new Request('http://gateway.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
      }),
    );
  return { gateway, chat, records };
}

describe('gateway.reload: a changed registry, policy or identity, without a restart', () => {
  it('serves a model added to the registry from the next request on, and records the new revision', async () => {
    const { gateway, chat, records } = await setup();
    const before = gateway.registry.revision;
    expect((await chat('claude-fast')).status).toBe(404);
    const result = gateway.reload({ registry: registryWithFast() });
    expect(result.registryRevision).not.toBe(before);
    expect(gateway.registry.revision).toBe(result.registryRevision);
    const res = await chat('claude-fast');
    expect(res.status).toBe(200);
    expect(records[records.length - 1]).toMatchObject({ status: 'ok', model: 'claude-fast', registry_revision: result.registryRevision });
  });

  it('keeps the last good revision when the new registry is invalid, and lists what is wrong', async () => {
    const { gateway, chat } = await setup();
    const before = gateway.registry.revision;
    const base = registry();
    const sonnet = base.models['claude-sonnet'];
    // A deployment on a provider the registry does not declare.
    const broken = { ...base, models: { 'claude-sonnet': { ...sonnet, deployments: [{ ...sonnet.deployments[0]!, provider: 'nowhere' }] } } };
    let error: unknown;
    try {
      gateway.reload({ registry: broken });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect((error as GatewayConfigError).source).toBe('registry');
    expect((error as GatewayConfigError).message).toMatch(/nowhere/);
    expect(gateway.registry.revision).toBe(before);
    expect((await chat('claude-sonnet')).status).toBe(200);
  });

  it('applies a new policy (a denied model answers like an unknown one), and policy: null removes it', async () => {
    const { gateway, chat, records } = await setup();
    expect(gateway.policyRevision).toBeNull();
    const { policyRevision } = gateway.reload({ policy: { access: { models: { 'claude-sonnet': { deny_leaders: ['carol'] } } } } });
    expect(policyRevision).toMatch(/^sha256:/);
    expect((await chat('claude-sonnet')).status).toBe(404);
    expect(records[records.length - 1]).toMatchObject({ status: 'rejected', policy_revision: policyRevision });
    gateway.reload({ policy: null });
    expect(gateway.policy).toBeNull();
    expect((await chat('claude-sonnet')).status).toBe(200);
  });

  it('refuses a registry the current policy no longer fits (checked together), changing nothing', async () => {
    const { gateway, chat } = await setup();
    gateway.reload({ registry: registryWithFast(), policy: { access: { models: { 'claude-fast': { deny_leaders: ['carol'] } } } } });
    const revision = gateway.registry.revision;
    expect(() => gateway.reload({ registry: registry() })).toThrow(GatewayConfigError);
    expect(gateway.registry.revision).toBe(revision);
    expect((await chat('claude-fast')).status).toBe(404);
  });

  it('swaps the virtual keys whole: a key added authenticates, a key left out no longer does', async () => {
    const { gateway, chat, records } = await setup();
    const second = await createVirtualKey();
    const withKey = (key: string) =>
      gateway.handle(
        new Request('http://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }),
        }),
      );
    expect((await withKey(second.key)).status).toBe(401);
    gateway.reload({ identity: { virtual_keys: [{ hash: second.hash, principal: { user: 'bob', tier: 'normal' } }] } });
    expect((await withKey(second.key)).status).toBe(200);
    expect(records[records.length - 1]).toMatchObject({ status: 'ok', principal: { id: 'bob' } });
    // alice's key was not in the new identity: refused like any unknown key.
    expect((await chat('claude-sonnet')).status).toBe(401);
  });

  it('keeps the current keys when the new identity is invalid, and says it is the identity', async () => {
    const { gateway, chat } = await setup();
    let error: unknown;
    try {
      gateway.reload({ identity: { virtual_keys: [{ hash: 'not-a-hash', principal: { user: 'bob' } }] }, registry: registryWithFast() });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayConfigError);
    expect((error as GatewayConfigError).source).toBe('identity');
    // Nothing changed: not the keys, and not the registry that came with them.
    expect((await chat('claude-sonnet')).status).toBe(200);
    expect((await chat('claude-fast')).status).toBe(404);
  });

  it('lets a stream that started before a reload finish on the revision it started with', async () => {
    const { gateway, chat, records } = await setup();
    const before = gateway.registry.revision;
    const res = await chat('claude-sonnet', { stream: true });
    gateway.reload({ registry: registryWithFast() });
    const text = await res.text();
    expect(text).toContain('Hello from');
    const record = records.find((r) => r.stream);
    expect(record).toMatchObject({ status: 'ok', registry_revision: before });
  });
});

describe('a notify action needs a notify callback', () => {
  const notifying: PolicyFileInput = {
    spend: {
      rules: [{ id: 'watch', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'notify', to: ['user'] }] }] }],
    },
  };

  it('refuses the policy at start without one, naming each notify action; starts with one', () => {
    const start = (extra: object) => createGateway({ registry: registry(), policy: notifying, identity: {}, secrets: {}, ...extra });
    let refused: unknown;
    try {
      start({});
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GatewayConfigError);
    expect((refused as GatewayConfigError).errors).toEqual([
      { path: 'spend.rules[0].matches[0].actions[0]', message: expect.stringContaining('a notify action needs somewhere to go') },
    ]);
    const gateway = start({ notify: () => {} });
    open.push(gateway);
    expect(gateway.policy).not.toBeNull();
  });

  it('refuses a reload that adds one to a gateway without a callback, and keeps the last policy', async () => {
    const { gateway } = await setup();
    const overridden: PolicyFileInput = {
      ...notifying,
      business_units: {
        payments: { spend_overrides: [{ rule: 'watch', scope: 'all', window: 'monthly', at_or_above_usd: '2', actions: [{ type: 'notify', to: ['bu'] }] }] },
      },
    };
    expect(() => gateway.reload({ policy: overridden })).toThrow(GatewayConfigError);
    try {
      gateway.reload({ policy: overridden });
    } catch (error) {
      expect((error as GatewayConfigError).errors.map((e) => e.path)).toEqual([
        'spend.rules[0].matches[0].actions[0]',
        'business_units.payments.spend_overrides[0].actions[0]',
      ]);
    }
    expect(gateway.policy).toBeNull();
  });
});

describe('checkPolicy: a host refuses a policy it cannot enforce', () => {
  const capped: PolicyFileInput = {
    spend: { rules: [{ id: 'cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] }] },
  };
  const noCaps = (policy: Gateway['policy']) => ((policy?.spend?.rules ?? []).length > 0 ? [{ path: 'store', message: 'this host holds no spend caps' }] : []);

  it('refuses at start and on reload, with the same error, keeping the last good policy', () => {
    const start = (policy: PolicyFileInput | null) => createGateway({ registry: registry(), policy, identity: {}, secrets: {}, checkPolicy: noCaps });
    expect(() => start(capped)).toThrow(
      expect.objectContaining({ source: 'options', errors: [{ path: 'store', message: 'this host holds no spend caps' }] }) as Error,
    );
    const gateway = start(null);
    open.push(gateway);
    expect(() => gateway.reload({ policy: capped })).toThrow(
      expect.objectContaining({ source: 'options', errors: [{ path: 'store', message: 'this host holds no spend caps' }] }) as Error,
    );
    expect(gateway.policy).toBeNull();
    expect(gateway.policyRevision).toBeNull();
    // What it accepts goes through.
    expect(gateway.reload({ policy: { access: { models: { 'claude-sonnet': { deny_leaders: ['carol'] } } } } }).policyRevision).toMatch(/^sha256:/);
  });
});
