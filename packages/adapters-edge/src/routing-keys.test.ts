/**
 * The registry and policy keys that steer routing, on the edge handler (an OpenAI SDK client
 * whose fetch is the handler): capabilities, context fit, regions (policy and header), shadow
 * rate limits — the same walk as in-process and `tollgate serve`.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVirtualKey, type UsageRecord } from '@tollgate/core';
import { createEdgeHandler, type EdgeHandler } from './index.js';
import { OPENAI_SECRET, edgeRegistry, fakeUpstream } from './__tests__/fixture.js';

const open: EdgeHandler[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close({ drainMs: 100 })));
});

async function setup() {
  const base = edgeRegistry();
  const mini = base.models['gpt-mini'];
  const deployment = mini.deployments[0]!;
  const registry = {
    ...base,
    models: {
      'gpt-mini': {
        ...mini,
        capabilities: { tools: false, reasoning: false, context_window: 20, max_output_tokens: 1000 },
        deployments: [
          { ...deployment, region: 'us' },
          { ...deployment, id: 'mini@openai-eu', priority: 2, region: 'eu' },
        ],
      },
    },
  };
  const upstream = fakeUpstream();
  const alice = await createVirtualKey();
  const eve = await createVirtualKey();
  const records: UsageRecord[] = [];
  const handler = createEdgeHandler({
    registry,
    policy: {
      regions: [{ id: 'eu-only', match: { bus: ['eu'] }, allow: ['eu'] }],
      rate_limits: [{ id: 'trial', rpm: 1, enforcement: 'shadow' }],
    },
    identity: {
      virtual_keys: [
        { hash: alice.hash, principal: { user: 'alice' } },
        { hash: eve.hash, principal: { user: 'eve', bu: 'eu' } },
      ],
    },
    secrets: { OPENAI_API_KEY: OPENAI_SECRET },
    fetch: upstream.fetch,
    usage: (r) => void records.push(r),
  });
  open.push(handler);
  const client = (key: string, headers: Record<string, string> = {}) =>
    new OpenAI({
      apiKey: key,
      baseURL: 'https://gateway.test/v1',
      maxRetries: 0,
      defaultHeaders: headers,
      fetch: (url, init) => handler(new Request(url, init)),
    });
  return { upstream, records, alice: client(alice.key), aliceIn: (region: string) => client(alice.key, { 'x-tollgate-region': region }), eve: client(eve.key) };
}

const hi = { model: 'gpt-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('routing keys on the edge', () => {
  it('refuses what the model cannot do or fit, narrows by region, and counts shadow rate limits', async () => {
    const { alice, aliceIn, eve, upstream, records } = await setup();
    const tools = await alice.chat.completions
      .create({ ...hi, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] })
      .catch((e: unknown) => e);
    expect((tools as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
    const reasoning = await alice.chat.completions.create({ ...hi, reasoning_effort: 'low' }).catch((e: unknown) => e);
    expect((reasoning as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('reasoning_effort');
    const long = await alice.chat.completions.create({ ...hi, messages: [{ role: 'user', content: 'word '.repeat(21) }] }).catch((e: unknown) => e);
    expect((long as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    const elsewhere = await aliceIn('ap')
      .chat.completions.create(hi)
      .catch((e: unknown) => e);
    expect(elsewhere).toBeInstanceOf(OpenAI.BadRequestError);
    expect(upstream.seen).toHaveLength(0);

    await alice.chat.completions.create(hi);
    await aliceIn('eu').chat.completions.create(hi);
    await eve.chat.completions.create(hi);
    await vi.waitFor(() => expect(records).toHaveLength(7));
    expect(records.map((r) => [r.reason, r.region, r.would_block])).toEqual([
      ['capability:tools', null, []],
      ['capability:reasoning', null, []],
      ['context_length_exceeded', null, []],
      ['region_unavailable', null, []],
      [null, 'us', []],
      [null, 'eu', ['rate_limit:trial']],
      [null, 'eu', []],
    ]);
  });
});
