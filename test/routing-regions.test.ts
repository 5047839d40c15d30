/**
 * Deployment regions as a routing constraint, through real SDK clients: the policy's region
 * rules keep a population's requests (and their failover) on deployments in its regions, a
 * caller narrows further with `x-tollgate-region` (never widening the policy), discovery lists
 * only models served where the caller may go, and the record says where a request was served.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, status } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const POLICY: PolicyFileInput = {
  regions: [
    { id: 'eu-residency', match: { bus: ['eu-payments'] }, allow: ['eu'] },
    { id: 'trial', match: { users: ['alice'] }, allow: ['eu'], enforcement: 'shadow' },
  ],
};

/** claude-sonnet in us (priority 1) and eu (priority 2); claude-opus in us only; gpt-mini names no region. */
function registry(url: string) {
  const base = testRegistry(url);
  const sonnet = base.models['claude-sonnet'];
  const opus = base.models['claude-opus'];
  return {
    ...base,
    models: {
      ...base.models,
      'claude-sonnet': {
        ...sonnet,
        deployments: [
          { ...sonnet.deployments[0]!, region: 'us' },
          { ...sonnet.deployments[1]!, region: 'eu' },
        ],
      },
      'claude-opus': { ...opus, deployments: [{ ...opus.deployments[0]!, region: 'us' }] },
    },
  };
}

async function setup(policy: PolicyFileInput = POLICY) {
  const backup = { failing: false };
  const anthropic = replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json');
  const unavailable = status(503, { type: 'error', error: { type: 'overloaded_error', message: 'down' } });
  const upstream = await startMockUpstream({
    anthropic,
    'anthropic-backup': (request, body) => (backup.failing ? unavailable(request, body) : anthropic(request, body)),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
  });
  const ids = await keysFor({ user: 'alice', bu: 'payments' }, { user: 'eve', bu: 'eu-payments' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({ registry: registry(upstream.url), policy, identity: ids.identity, secrets: SECRETS, usage: (r) => void records.push(r) });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const openai = (user: string, headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: ids.keys[user]!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0, defaultHeaders: headers });
  const anthropicClient = (user: string, headers: Record<string, string> = {}) =>
    new Anthropic({ apiKey: ids.keys[user]!, baseURL: 'http://gw', fetch: gateway.fetch, maxRetries: 0, defaultHeaders: headers });
  return { upstream, records, openai, anthropic: anthropicClient, backup };
}

const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });

describe('policy region rules', () => {
  it('serve an EU caller from the EU deployment, and record the region', async () => {
    const { openai, anthropic, upstream, records } = await setup();
    await openai('eve').chat.completions.create(ask('claude-sonnet'));
    await anthropic('eve').messages.create({ ...ask('claude-sonnet'), max_tokens: 50 });
    expect(upstream.hits('anthropic')).toBe(0);
    expect(upstream.hits('anthropic-backup')).toBe(2);
    expect(records.map((r) => [r.deployment, r.region])).toEqual([
      ['sonnet@backup', 'eu'],
      ['sonnet@backup', 'eu'],
    ]);
  });

  it('never fail over out of the region: the EU deployment down is an error, not a US answer', async () => {
    const { openai, upstream, backup, records } = await setup();
    backup.failing = true;
    const error = await openai('eve')
      .chat.completions.create(ask('claude-sonnet'))
      .catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(503);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]).toMatchObject({ status: 'upstream_error', deployment: 'sonnet@backup', region: 'eu' });
  });

  it('refuse a model with no deployment in the caller’s regions with 403, naming them, before any upstream call', async () => {
    const { openai, anthropic, upstream, records } = await setup();
    const opus = await openai('eve')
      .chat.completions.create(ask('claude-opus'))
      .catch((e: unknown) => e);
    expect(opus).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((opus as Error).message).toMatch(/The model 'claude-opus' is not served in a region this caller may use \(eu\)/);
    // A deployment that names no region is in none.
    const mini = await anthropic('eve')
      .messages.create({ ...ask('gpt-mini'), max_tokens: 50 })
      .catch((e: unknown) => e);
    expect(mini).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(upstream.hits('anthropic') + upstream.hits('openai')).toBe(0);
    expect(records.map((r) => [r.status, r.reason, r.http_status])).toEqual([
      ['rejected', 'region:eu-residency', 403],
      ['rejected', 'region:eu-residency', 403],
    ]);
  });

  it('list only the models served in the caller’s regions', async () => {
    const { openai } = await setup();
    const ids = async (client: OpenAI) => (await client.models.list()).data.map((m) => m.id).sort();
    expect(await ids(openai('eve'))).toEqual(['claude-sonnet']);
    expect(await ids(openai('alice'))).toEqual(['claude-opus', 'claude-sonnet', 'gpt-mini']);
    expect(await ids(openai('alice', { 'x-tollgate-region': 'eu' }))).toEqual(['claude-sonnet']);
  });

  it('in shadow, narrow nothing and report a rule that would have left no deployment', async () => {
    const { openai, records } = await setup();
    await openai('alice').chat.completions.create(ask('claude-opus'));
    await openai('alice').chat.completions.create(ask('claude-sonnet'));
    expect(records.map((r) => [r.status, r.region, r.would_block])).toEqual([
      ['ok', 'us', ['region:trial']],
      ['ok', 'us', []],
    ]);
  });
});

describe('x-tollgate-region', () => {
  it('lets a caller narrow to a region, and refuses with 400 when the model has none there', async () => {
    const { openai, upstream, records } = await setup({});
    await openai('alice', { 'x-tollgate-region': 'eu' }).chat.completions.create(ask('claude-sonnet'));
    await openai('alice', { 'x-tollgate-region': ' ap , eu ' }).chat.completions.create(ask('claude-sonnet'));
    await openai('alice').chat.completions.create(ask('claude-sonnet'));
    const ap = await openai('alice', { 'x-tollgate-region': 'ap' })
      .chat.completions.create(ask('claude-sonnet'))
      .catch((e: unknown) => e);
    expect(ap).toBeInstanceOf(OpenAI.BadRequestError);
    expect((ap as Error).message).toMatch(/no deployment in the region asked for in x-tollgate-region \(ap\)/);
    expect(upstream.hits('anthropic-backup')).toBe(2);
    expect(records.map((r) => [r.region, r.reason])).toEqual([
      ['eu', null],
      ['eu', null],
      ['us', null],
      [null, 'region_unavailable'],
    ]);
  });

  it('never widens what the policy allows', async () => {
    const { openai, upstream, records } = await setup();
    const us = await openai('eve', { 'x-tollgate-region': 'us' })
      .chat.completions.create(ask('claude-sonnet'))
      .catch((e: unknown) => e);
    expect(us).toBeInstanceOf(OpenAI.BadRequestError);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]!.reason).toBe('region_unavailable');
  });
});
