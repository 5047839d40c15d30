/**
 * Model access on Anthropic `fallbacks`: each model it names may answer the request upstream,
 * so while the policy has access rules each must be one the caller may use — else the request
 * is refused as an access refusal is (404 in Anthropic's format, nothing sent). In-process
 * through `gateway.fetch`, against loopback Anthropic echo upstreams.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type PolicyFileInput, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoModel, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { startMockUpstream } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const ALLOWED = echoModel('anthropic_messages', 'open');
const FORBIDDEN = echoModel('anthropic_messages', 'closed');
/** The upstream model only the forbidden model serves. */
const FORBIDDEN_UPSTREAM = 'claude-closed-1';

async function gatewayOver(policy: unknown) {
  const seen: Seen[] = [];
  const upstream = await startMockUpstream(echoScenarios({ open: {}, closed: {} }, seen));
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  const registry = echoRegistry(upstream.url, ['open', 'closed']) as RegistryFileInput & {
    models: Record<string, { deployments: Array<{ upstream_model: string }> }>;
  };
  registry.models[FORBIDDEN]!.deployments[0]!.upstream_model = FORBIDDEN_UPSTREAM;
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry,
    policy: policy as PolicyFileInput,
    identity: ids.identity,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
  });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const post = (fallbacks?: unknown, model = ALLOWED) =>
    gateway.fetch('http://gw/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': ids.keys.alice!, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...(fallbacks === undefined ? {} : { fallbacks }) }),
    });
  return { seen, records, post };
}

const BLOCKED = { access: { models: { [FORBIDDEN]: { block_bus: ['payments'] } } } };

describe('Anthropic fallbacks under model access rules', () => {
  it.each([
    ['the registry id of a model the caller may not use', FORBIDDEN, FORBIDDEN, 'access_denied'],
    ['an upstream model only a forbidden model serves', FORBIDDEN_UPSTREAM, FORBIDDEN_UPSTREAM, 'access_denied'],
    ['a model the registry does not know', 'claude-unknown-9', 'claude-unknown-9', 'model_not_found'],
  ])('refuse %s: 404 as for the model itself, nothing sent', async (_name, fallback, shown, reason) => {
    const { seen, records, post } = await gatewayOver(BLOCKED);
    const direct = await post(undefined, FORBIDDEN);
    expect(direct.status).toBe(404);
    const res = await post([{ model: ALLOWED }, { model: fallback }]);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: `The model '${shown}' does not exist or you do not have access to it.` },
    });
    expect(seen).toEqual([]);
    expect(records[1]).toMatchObject({ status: 'rejected', http_status: 404, reason });
  });

  it('refuse an entry that names no model', async () => {
    const { seen, post } = await gatewayOver(BLOCKED);
    expect((await post([{ speed: 'fast' }])).status).toBe(404);
    expect(seen).toEqual([]);
  });

  it('relay fallbacks naming models the caller may use (by id or upstream model), as sent', async () => {
    const { seen, post } = await gatewayOver(BLOCKED);
    const fallbacks = [{ model: ALLOWED }, { model: 'echo-1' }];
    expect((await post(fallbacks)).status).toBe(200);
    expect(seen[0]!.body['fallbacks']).toEqual(fallbacks);
  });

  it('report in shadow mode and relay', async () => {
    const { seen, records, post } = await gatewayOver({ enforcement: 'shadow', ...BLOCKED });
    expect((await post([{ model: FORBIDDEN }])).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(records[0]!.would_block).toContain(`block_bus:${FORBIDDEN}`);
  });

  it('are not checked when the policy has no access rules', async () => {
    const { seen, post } = await gatewayOver({});
    expect((await post([{ model: 'claude-unknown-9' }])).status).toBe(200);
    expect(seen).toHaveLength(1);
  });
});
