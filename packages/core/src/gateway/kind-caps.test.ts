import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import type { RegistryFileInput } from '../registry/index.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-15T10:00:01Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

/** $1 per Mtok in: an embedding of n tokens costs n micro-USD. */
const PRICED = { unit: 'usd_per_mtok', input: '1', output: '0' } as const;

function registry(): RegistryFileInput {
  const embedModel = (upstream: string) => ({
    brand: 'openai',
    kind: 'embed' as const,
    entry_formats: ['openai_chat'],
    deployments: [{ id: `${upstream}@openai`, provider: 'openai', format: 'openai_chat', upstream_model: upstream, pricing: PRICED }],
  });
  return {
    wire_formats: { openai_chat: { family: 'chat' } },
    entry_routes: [{ path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' }],
    converters: [],
    credentials: { key: { kind: 'bearer', secret: 'UPSTREAM_KEY' } },
    providers: { openai: { base_url: 'https://openai.test', credential: 'key' } },
    operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' }],
    models: { emb: embedModel('emb-large'), 'emb-cheap': embedModel('emb-small') },
  };
}

/** An embeddings upstream that bills 1,000 tokens per call. */
function embedUpstream() {
  const state = { calls: 0, billedMicros: 0, gate: null as Promise<void> | null };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = (await new Request(input, init).json()) as { input: string | string[] };
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    state.calls++;
    if (state.gate !== null) await state.gate;
    state.billedMicros += 1000;
    return new Response(
      JSON.stringify({
        object: 'list',
        model: 'emb-large',
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })),
        usage: { prompt_tokens: 1000, total_tokens: 1000 },
      }),
      { status: 200, headers: { 'content-type': 'application/json' } },
    );
  }) as typeof fetch;
  return { fetch: fetchImpl, state };
}

async function setup(policy: PolicyFileInput, options: { reservationTtlMs?: number } = {}) {
  const { key, hash } = await createVirtualKey();
  const upstream = embedUpstream();
  const records: UsageRecord[] = [];
  const store = createMemoryStore({ sweepIntervalMs: 0 });
  const gateway: Gateway = createGateway({
    registry: registry(),
    policy,
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { UPSTREAM_KEY: 'sk' },
    fetch: upstream.fetch,
    store,
    usage: (r) => void records.push(r),
    ...options,
  });
  open.push(store, gateway);
  const embed = async () => {
    const res = await gateway.handle(
      new Request('http://gw/v1/embeddings', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        // Long enough that the 1,000 tokens the upstream bills fit its bound (a token per byte).
        body: JSON.stringify({ model: 'emb', input: 'hello '.repeat(200) }),
      }),
    );
    return { status: res.status, text: await res.text() };
  };
  return { embed, store, upstream, records };
}

describe('hard caps on embeddings', () => {
  it('a budget-tier substitution never lets an embedding past the hard cap of the same entry', async () => {
    // Block at 5,000 µ$, substitute from 2,000 µ$: an embedding cannot be served by another
    // model, so once the substitution applies it is refused as `block` would, never served unreserved.
    const policy = {
      spend: {
        rules: [
          {
            id: 'emb-budget',
            matches: [
              { match: { scope: 'emb', window: 'monthly', at_or_above_usd: '0.005' }, actions: [{ type: 'block' }] },
              { match: { scope: 'emb', window: 'monthly', at_or_above_usd: '0.002' }, actions: [{ type: 'substitute', to: ['emb-cheap'] }] },
            ],
          },
        ],
      },
    } as PolicyFileInput;
    const { embed, store, upstream, records } = await setup(policy);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await embed()).status);
    const counters = await store.getCounters(['c:user:alice:2030-01:emb']);
    // Recorded spend never passes the cap, and it is all that was billed.
    expect(counters['c:user:alice:2030-01:emb']).toBeLessThanOrEqual(5_000);
    expect(counters['c:user:alice:2030-01:emb']).toBe(upstream.state.billedMicros);
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.slice(2).every((s) => s === 429)).toBe(true);
    expect(records.slice(2).every((r) => r.reason === 'spend_limit:emb-budget')).toBe(true);
  });
});

describe('in-flight limits on embeddings', () => {
  it('a slow embedding keeps its in-flight place for as long as it runs, past the hold TTL', async () => {
    vi.useRealTimers();
    const policy = { rate_limits: [{ id: 'one-at-a-time', concurrent: 1 }] } as PolicyFileInput;
    const { embed, upstream } = await setup(policy, { reservationTtlMs: 200 });
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const first = embed();
    await vi.waitFor(() => expect(upstream.state.calls).toBe(1));
    upstream.state.gate = null; // only the first call is slow
    // Three TTLs later the first call still runs: its place is still taken.
    await new Promise((r) => setTimeout(r, 600));
    const second = await embed();
    expect(second.status).toBe(429);
    release();
    expect((await first).status).toBe(200);
    expect((await embed()).status).toBe(200);
  });
});
