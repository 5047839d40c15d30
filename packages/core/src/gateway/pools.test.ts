import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SpendNotification } from '@tollgate/policy';
import { createGateway, createMemoryStore, StoreUnavailableError, type Gateway, type PolicyFileInput, type StateStore, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { billingRegistry, billingUpstream } from './__tests__/billing-upstream.js';

const open: Array<{ close(): Promise<void> }> = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2030-01-15T10:00:01Z'));
});
afterEach(async () => {
  vi.useRealTimers();
  for (const o of open.splice(0).reverse()) await o.close();
});

type Who = { user: string; team?: string; bu?: string; application?: string };

async function setup(policy: PolicyFileInput, people: Who[], options: { store?: StateStore; notify?: (n: SpendNotification) => void; gateways?: number } = {}) {
  const keys = await Promise.all(people.map(() => createVirtualKey()));
  const upstream = billingUpstream();
  const records: UsageRecord[] = [];
  const store = options.store ?? createMemoryStore({ sweepIntervalMs: 0 });
  const gateways: Gateway[] = Array.from({ length: options.gateways ?? 1 }, () =>
    createGateway({
      registry: billingRegistry(),
      policy,
      identity: { virtual_keys: people.map((p, i) => ({ hash: keys[i]!.hash, principal: p })) },
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
      usage: (r) => void records.push(r),
      ...(options.notify === undefined ? {} : { notify: (n: SpendNotification) => options.notify!(n) }),
    }),
  );
  open.push(store, ...gateways);
  const key = (user: string) => keys[people.findIndex((p) => p.user === user)]!.key;
  const post = async (user: string, extra: Record<string, unknown> = {}, gateway = 0) => {
    const res = await gateways[gateway]!.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key(user)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100, ...extra }),
      }),
    );
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const budget = async (user: string | null) => {
    const res = await gateways[0]!.handle(
      new Request('http://gw/v1/tollgate/budget', { headers: user === null ? {} : { authorization: `Bearer ${key(user)}` } }),
    );
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  return { gateways, store, upstream, records, post, budget };
}

const month = '2030-01';
type Rule = NonNullable<NonNullable<PolicyFileInput['spend']>['rules']>[number];
const block = (id: string, match: Record<string, unknown>, message?: string): Rule =>
  ({
    id,
    matches: [{ match: { scope: 'all', window: 'monthly', ...match }, actions: [{ type: 'block', ...(message === undefined ? {} : { message }) }] }],
  }) as Rule;
const payments: Who[] = ['ann', 'ben', 'cat', 'dan'].map((user, i) => ({ user, team: i < 2 ? 'search' : 'ads', bu: 'payments' }));

describe('pooled caps through the gateway', () => {
  it('four people of one BU racing 40 requests: the BU cap and every person’s cap hold, and refusals say why', async () => {
    // Each call's worst case is 10 prompt-bound tokens... at $10/Mtok out: 100 tokens = 1,000 µ$ plus the prompt bound.
    const policy = {
      spend: {
        rules: [
          block('bu-cap', { bus: ['payments'], per: 'bu', at_or_above_usd: '0.012' }, 'The payments budget is spent; ask #finops.'),
          block('person', { at_or_above_usd: '0.004' }),
        ],
      },
    } satisfies PolicyFileInput;
    const { post, records, store, upstream } = await setup(policy, payments);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => post(payments[i % 4]!.user)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    const counters = await store.getCounters([`c:bu:payments:${month}:gpt-chat`, ...payments.map((p) => `c:user:${p.user}:${month}:gpt-chat`)]);
    expect(counters[`c:bu:payments:${month}:gpt-chat`]).toBeLessThanOrEqual(12_000);
    for (const p of payments) expect(counters[`c:user:${p.user}:${month}:gpt-chat`]).toBeLessThanOrEqual(4_000);
    // Nothing billed went unrecorded: the BU counter is the sum of what the upstream billed.
    expect(counters[`c:bu:payments:${month}:gpt-chat`]).toBe(upstream.state.billedMicros);
    const refusedByBu = results.find((r) => r.status === 429 && r.text.includes('payments budget'));
    expect(refusedByBu).toBeDefined();
    expect(JSON.parse(refusedByBu!.text).error).toMatchObject({ message: 'The payments budget is spent; ask #finops.', code: 'insufficient_quota' });
    expect(refusedByBu!.headers.get('x-should-retry')).toBe('false');
    expect(refusedByBu!.headers.get('x-tollgate-budget-rule')).toBe('bu-cap');
    const reasons = new Set(records.filter((r) => r.status === 'rejected').map((r) => r.reason));
    expect([...reasons].every((r) => r === 'spend_limit:bu-cap' || r === 'spend_limit:person')).toBe(true);
    expect(reasons.has('spend_limit:bu-cap')).toBe(true);
  });

  it('charges the caller and every pool it belongs to, so a pooled rule added later already sees the spend', async () => {
    const people: Who[] = [{ user: 'ann', team: 'search', bu: 'payments', application: 'crm' }];
    const { post, store, gateways } = await setup({ spend: { rules: [block('person', { at_or_above_usd: '100' })] } }, people);
    expect((await post('ann')).status).toBe(200);
    const keys = ['user:ann', 'team:search', 'bu:payments', 'app:crm', 'org'].flatMap((p) => [
      `c:${p}:${month}:gpt-chat`,
      `c:${p}:2030-01-15T10:gpt-chat`,
      `c:${p}:2030-01-15T06/6h:gpt-chat`,
    ]);
    const values = await store.getCounters(keys);
    const cost = values[`c:user:ann:${month}:gpt-chat`]!;
    expect(cost).toBeGreaterThan(0);
    for (const k of keys) expect(values[k], k).toBe(cost);
    // A team cap added now already counts this month's team spend.
    gateways[0]!.reload({ policy: { spend: { rules: [block('team', { per: 'team', at_or_above_usd: (cost / 1e6).toFixed(6) })] } } });
    const refused = await post('ann');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-tollgate-budget-remaining-usd')).toBe('0');
  });

  it('every answer carries the tightest cap, and a crossed message action reaches the caller', async () => {
    const policy = {
      spend: {
        rules: [
          block('bu-cap', { per: 'bu', at_or_above_usd: '1000' }),
          block('person', { at_or_above_usd: '0.5' }),
          {
            id: 'heads-up',
            matches: [
              {
                match: { per: 'team', scope: 'all', window: 'monthly', at_or_above_usd: '0.000001' },
                actions: [{ type: 'message', text: 'Your team has started spending — see the dashboard.' }],
              },
            ],
          },
        ],
      },
    } satisfies PolicyFileInput;
    const { post } = await setup(policy, payments);
    const first = await post('ann');
    expect(first.headers.get('x-tollgate-budget-rule')).toBe('person');
    expect(first.headers.get('x-tollgate-budget-limit-usd')).toBe('0.5');
    expect(first.headers.get('x-tollgate-budget-remaining-usd')).toBe('0.5');
    expect(first.headers.get('x-tollgate-budget-reset')).toBe('2030-02-01T00:00:00.000Z');
    expect(first.headers.get('x-tollgate-budget-message')).toBeNull();
    const second = await post('ben'); // same team: the team has spent now
    expect(second.headers.get('x-tollgate-budget-message')).toBe('Your team has started spending %E2%80%94 see the dashboard.');
    expect(decodeURIComponent(second.headers.get('x-tollgate-budget-message')!)).toBe('Your team has started spending — see the dashboard.');
    expect(Number(second.headers.get('x-tollgate-budget-remaining-usd'))).toBe(0.5);
    expect((await post('cat')).headers.get('x-tollgate-budget-message')).toBeNull(); // another team
  });

  it('a store that cannot make a multi-pool reservation fails closed, with nothing reserved', async () => {
    const inner = createMemoryStore({ sweepIntervalMs: 0 });
    const split: StateStore = {
      ...inner,
      reserve: async (r) => {
        if (r.constraints.some((c) => c.key.includes(':bu:'))) throw new StoreUnavailableError('keys under two hash tags');
        return inner.reserve(r);
      },
      admit: async () => null, // keys it cannot take in one step
      close: () => inner.close(),
    };
    const { post, records, upstream } = await setup(
      { spend: { rules: [block('bu-cap', { per: 'bu', at_or_above_usd: '10' }), block('person', { at_or_above_usd: '1' })] } },
      payments,
      { store: split },
    );
    const refused = await post('ann');
    expect(refused.status).toBe(503);
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'store_unavailable:spend' });
    expect(upstream.state.calls).toBe(0);
    expect(await inner.getHeld([`spend:person:all:user:ann:${month}`, `spend:bu-cap:all:bu:payments:${month}`])).toEqual({
      [`spend:person:all:user:ann:${month}`]: 0,
      [`spend:bu-cap:all:bu:payments:${month}`]: 0,
    });
  });

  it('a pooled notify fires once per pool and window, across gateways sharing the store', async () => {
    const notes: SpendNotification[] = [];
    const policy = {
      spend: {
        rules: [
          {
            id: 'bu-watch',
            matches: [{ match: { per: 'bu', scope: 'all', window: 'monthly', at_or_above_usd: '0.001' }, actions: [{ type: 'notify', to: ['finops'] }] }],
          },
        ],
      },
    } satisfies PolicyFileInput;
    const { post } = await setup(policy, payments, { notify: (n) => notes.push(n), gateways: 2 });
    for (let i = 0; i < 8; i++) expect((await post(payments[i % 4]!.user, {}, i % 2)).status).toBe(200);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({
      ruleId: 'bu-watch',
      per: 'bu',
      pool: 'payments',
      poolKey: 'bu:payments',
      key: `notify:bu-watch#0:bu:payments:${month}`,
      to: ['finops'],
    });
  });

  it('shadow pooled caps record would_block and refuse nothing', async () => {
    const { post, records } = await setup(
      { spend: { rules: [{ ...block('bu-cap', { per: 'bu', at_or_above_usd: '0.000001' }), enforcement: 'shadow' }] } },
      payments,
    );
    expect((await post('ann')).status).toBe(200);
    expect((await post('ben')).status).toBe(200);
    expect(records[1]).toMatchObject({ status: 'ok', would_block: ['bu-cap'] });
  });
});

describe('rolling windows through the gateway', () => {
  it('a rolling 24 h team cap does not reset at midnight; spend drops out a day later', async () => {
    vi.setSystemTime(new Date('2030-01-15T22:30:00Z'));
    const { post } = await setup(
      {
        spend: {
          rules: [
            {
              id: 'team-24h',
              matches: [{ match: { per: 'team', scope: 'all', window: 'rolling_24h', at_or_above_usd: '0.0015' }, actions: [{ type: 'block' }] }],
            },
          ],
        },
      },
      payments,
    );
    expect((await post('ann')).status).toBe(200); // ~1,010 µ$ of 1,500
    vi.setSystemTime(new Date('2030-01-16T00:30:00Z')); // past midnight: a calendar day would have reset
    const refused = await post('ben');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-tollgate-budget-reset')).toBe('2030-01-16T01:00:00.000Z');
    vi.setSystemTime(new Date('2030-01-16T22:59:00Z')); // 24 h 29 min later: the 22:00 bucket still counts whole
    expect((await post('ben')).status).toBe(429);
    vi.setSystemTime(new Date('2030-01-16T23:00:01Z')); // 22:00 on the 15th has dropped out
    expect((await post('ben')).status).toBe(200);
  });
});

describe('in-flight limits', () => {
  it('holds a place per request until it ends; the next is refused with concurrency_limit and retry-after', async () => {
    const { post, upstream, records } = await setup({ rate_limits: [{ id: 'team-inflight', per: 'team', concurrent: 2 }] }, payments);
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const first = post('ann');
    const second = post('ben', { stream: true });
    while (upstream.state.calls < 2) await new Promise((r) => setTimeout(r, 1));
    upstream.state.gate = null; // later calls answer at once
    const third = await post('ann');
    expect(third.status).toBe(429);
    expect(JSON.parse(third.text).error.message).toBe('Too many requests in flight for this team (limit 2); retry when one finishes.');
    expect(third.headers.get('retry-after')).toBe('1');
    expect((await post('cat')).status).toBe(200); // another team has its own places
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200); // the stream was read to its end
    expect((await post('ann')).status).toBe(200);
    expect(records.find((r) => r.reason !== null)).toMatchObject({ status: 'rejected', reason: 'concurrency_limit:team-inflight', http_status: 429 });
  });

  it('a shadow in-flight limit counts and reports, never refuses', async () => {
    const { post, upstream, records } = await setup({ rate_limits: [{ id: 'watch', concurrent: 1, enforcement: 'shadow' }] }, payments);
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const first = post('ann');
    while (upstream.state.calls < 1) await new Promise((r) => setTimeout(r, 1));
    const second = post('ann');
    while (upstream.state.calls < 2) await new Promise((r) => setTimeout(r, 1));
    upstream.state.gate = null;
    release();
    expect([(await first).status, (await second).status]).toEqual([200, 200]);
    expect(records.map((r) => r.would_block)).toContainEqual(['concurrency_limit:watch']);
  });
});

describe('in-flight limits in shadow', () => {
  it('a replica trying the limit in shadow holds its places apart: it never uses up the enforced one', async () => {
    const rule = { id: 'one-at-a-time', concurrent: 1 };
    const store = createMemoryStore({ sweepIntervalMs: 0 });
    const shadowSide = await setup({ enforcement: 'shadow', rate_limits: [rule] }, payments, { store });
    const enforced = await setup({ rate_limits: [rule] }, payments, { store });
    let release!: () => void;
    shadowSide.upstream.state.gate = new Promise<void>((r) => (release = r));
    const held = shadowSide.post('ann');
    while (shadowSide.upstream.state.calls < 1) await new Promise((r) => setTimeout(r, 1));
    expect((await enforced.post('ann')).status).toBe(200);
    release();
    expect((await held).status).toBe(200);
  });
});

describe('GET /v1/tollgate/budget', () => {
  it('answers the caller’s own caps and pools, with spend, holds and what is left', async () => {
    const policy = {
      spend: {
        rules: [
          block('bu-cap', { bus: ['payments'], per: 'bu', at_or_above_usd: '5000' }),
          block('person', { at_or_above_usd: '200' }),
          block('team', { per: 'team', at_or_above_usd: '900' }),
          { ...block('watch', { per: 'org', at_or_above_usd: '1' }), enforcement: 'shadow' },
        ],
      },
    } satisfies PolicyFileInput;
    const people: Who[] = [...payments, { user: 'rex', bu: 'research' }];
    const { post, budget } = await setup(policy, people);
    expect((await post('ann')).status).toBe(200);
    const spent = 0.00101; // 10 prompt tokens at $1/Mtok + 100 output at $10/Mtok
    const mine = await budget('ann');
    expect(mine.status).toBe(200);
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(mine.body).toEqual({
      limits: [
        {
          rule: 'bu-cap',
          per: 'bu',
          pool: 'payments',
          scope: 'all',
          window: 'monthly',
          limit_usd: '5000',
          spent_usd: String(spent),
          reserved_usd: '0',
          remaining_usd: String(5000 - spent),
          resets_at: '2030-02-01T00:00:00.000Z',
        },
        {
          rule: 'person',
          per: 'user',
          pool: 'ann',
          scope: 'all',
          window: 'monthly',
          limit_usd: '200',
          spent_usd: String(spent),
          reserved_usd: '0',
          remaining_usd: String(200 - spent),
          resets_at: '2030-02-01T00:00:00.000Z',
        },
        {
          rule: 'team',
          per: 'team',
          pool: 'search',
          scope: 'all',
          window: 'monthly',
          limit_usd: '900',
          spent_usd: String(spent),
          reserved_usd: '0',
          remaining_usd: String(900 - spent),
          resets_at: '2030-02-01T00:00:00.000Z',
        },
      ],
    });
    const rex = await budget('rex');
    expect(rex.body.limits.map((l: Record<string, string>) => `${l.rule}:${l.pool}:${l.spent_usd}`)).toEqual(['person:rex:0']);
    const cat = await budget('cat');
    expect(cat.body.limits.map((l: Record<string, string>) => `${l.rule}:${l.pool}:${l.spent_usd}`)).toEqual([
      `bu-cap:payments:${spent}`,
      'person:cat:0',
      'team:ads:0',
    ]);
    expect((await budget(null)).status).toBe(401);
  });

  it('shows what requests in flight hold', async () => {
    const { post, budget, upstream } = await setup({ spend: { rules: [block('bu-cap', { per: 'bu', at_or_above_usd: '1' })] } }, payments);
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const running = post('ann');
    while (upstream.state.calls < 1) await new Promise((r) => setTimeout(r, 1));
    const during = await budget('ben');
    expect(Number(during.body.limits[0].reserved_usd)).toBeGreaterThanOrEqual(0.00101);
    release();
    expect((await running).status).toBe(200);
    expect((await budget('ben')).body.limits[0].reserved_usd).toBe('0');
  });
});

describe('budget header values', async () => {
  const { headerText, headerValue } = await import('./budget-headers.js');
  it('keep printable ASCII, percent-encode the rest and %, never throw', () => {
    expect(headerText('50% of €5 spent')).toBe('50%25 of %E2%82%AC5 spent');
    expect(decodeURIComponent(headerText('50% of €5 spent'))).toBe('50% of €5 spent');
    expect(headerText('a\r\nb')).toBe('a%0D%0Ab');
    expect(headerText('bad \uD800 pair')).toBe('bad %EF%BF%BD pair');
    expect(headerValue('\uDC00rule')).toBe('%EF%BF%BDrule');
  });
});
