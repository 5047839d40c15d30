/**
 * Pooled budgets across replicas (issue 18): two `tollgate serve` instances sharing one real
 * Redis — four people of one business unit racing 40 requests against the BU's cap and their
 * own, an in-flight limit under a burst of streams, the budget endpoint answering from either
 * replica, one webhook POST per crossing across both — and, on Redis in process, a rolling
 * window and a reservation the store cannot make across pools (fails closed, nothing held).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createGateway, createVirtualKey, type PolicyFileInput, type RegistryFileInput } from '@tollgate/core';
import { createRedisStore } from '@tollgate/adapters-node/redis';
import { loadService, startService, type RunningService } from '@tollgate/adapters-node';
import { billingRegistry, billingUpstream } from '../packages/core/src/gateway/__tests__/billing-upstream.js';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';

const redis = await serviceGate('redis');
const prefixes: string[] = [];
const servers: Server[] = [];
const services: RunningService[] = [];

afterAll(async () => {
  for (const s of services.splice(0)) await s.shutdown();
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
  if (prefixes.length === 0 || redis.skip) return;
  const admin = new Redis(redis.url);
  for (const prefix of prefixes) {
    let cursor = '0';
    do {
      const [next, found] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (found.length > 0) await admin.del(...found);
    } while (cursor !== '0');
  }
  await admin.quit();
});

/** A node:http server around a fetch-style handler (the billing upstream, a webhook receiver). */
async function listen(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      void handler(
        new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          ...(body === undefined ? {} : { body }),
        }),
      )
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch(() => res.writeHead(500).end());
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The billing upstream of the hard-cap tests, served over HTTP: it bills every output token allowed. */
async function upstreamServer() {
  const upstream = billingUpstream();
  const url = await listen((request) => upstream.fetch(request));
  const registry = billingRegistry() as RegistryFileInput & { providers: Record<string, { base_url: string }> };
  registry.providers.openai!.base_url = url;
  return { upstream, registry: registry };
}

const PEOPLE = ['ann', 'ben', 'cat', 'dan'].map((user, i) => ({ user, team: i < 2 ? 'search' : 'ads', bu: 'payments' }));

async function keysFor(people: typeof PEOPLE) {
  const keys = await Promise.all(people.map(() => createVirtualKey()));
  return {
    keys: Object.fromEntries(people.map((p, i) => [p.user, keys[i]!.key])),
    identity: { virtual_keys: people.map((p, i) => ({ hash: keys[i]!.hash, principal: p })) },
  };
}

/** Two `tollgate serve` replicas sharing one Redis (one key prefix). */
async function replicas(policy: PolicyFileInput, registry: RegistryFileInput, identity: unknown, extra: Record<string, unknown> = {}) {
  const keyPrefix = `tg-pools:${crypto.randomUUID()}:`;
  prefixes.push(keyPrefix);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-pools-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(registry));
  writeFileSync(join(dir, 'policy.yaml'), stringify(policy));
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({
      listen: { host: '127.0.0.1', port: 0 },
      registry: './registry.yaml',
      policy: './policy.yaml',
      identity,
      store: { url: redis.url, key_prefix: keyPrefix },
      usage: 'none',
      drain_timeout_s: 2,
      ...extra,
    }),
  );
  process.env.UPSTREAM_KEY = 'sk';
  const loaded = await loadService(join(dir, 'tollgate.yaml'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const lines: string[] = [];
  const started = await Promise.all([0, 1].map(() => startService(loaded.service, { log: (l) => lines.push(l) })));
  services.push(...started);
  const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0 });
  return { urls: started.map((s) => s.url), store, lines, services: started };
}

const chat = (url: string, key: string, body: Record<string, unknown> = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100, ...body }),
  });

const month = () => new Date().toISOString().slice(0, 7);

describe.skipIf(redis.skip)('pooled budgets on two replicas sharing one Redis', () => {
  beforeAll(() => redis.assertUp());

  it('four people of one BU racing 40 requests over two replicas: recorded spend stays within the BU cap and every person’s', async () => {
    const { upstream, registry } = await upstreamServer();
    const { keys, identity } = await keysFor(PEOPLE);
    // Each call bills ~1,010 µ$ (10 prompt tokens at $1/Mtok, 100 out at $10/Mtok) and reserves its worst case.
    const policy = {
      spend: {
        rules: [
          {
            id: 'payments',
            weight: 10,
            matches: [
              {
                match: { bus: ['payments'], per: 'bu', scope: 'all', window: 'monthly', at_or_above_usd: '0.0125' },
                actions: [{ type: 'block', message: 'The payments budget is spent; ask #finops.' }],
              },
            ],
          },
          { id: 'person', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '0.0045' }, actions: [{ type: 'block' }] }] },
        ],
      },
    } satisfies PolicyFileInput;
    const { urls, store } = await replicas(policy, registry, identity);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => chat(urls[i % 2]!, keys[PEOPLE[i % 4]!.user]!).then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(4);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    expect(answers.some((a) => a.status === 429 && JSON.parse(a.body).error.message === 'The payments budget is spent; ask #finops.')).toBe(true);
    const counters = await store.getCounters([
      `c:bu:payments:${month()}:gpt-chat`,
      `c:org:${month()}:gpt-chat`,
      ...PEOPLE.map((p) => `c:user:${p.user}:${month()}:gpt-chat`),
    ]);
    const bu = counters[`c:bu:payments:${month()}:gpt-chat`]!;
    expect(bu).toBeLessThanOrEqual(12_500);
    expect(bu).toBe(upstream.state.billedMicros); // every billed call recorded, on both replicas
    expect(counters[`c:org:${month()}:gpt-chat`]).toBe(bu);
    for (const p of PEOPLE) expect(counters[`c:user:${p.user}:${month()}:gpt-chat`]).toBeLessThanOrEqual(4_500);
    expect(PEOPLE.reduce((n, p) => n + counters[`c:user:${p.user}:${month()}:gpt-chat`]!, 0)).toBe(bu);
    await store.close();
  }, 60_000);

  it('an in-flight limit per team holds under a burst of streams on both replicas, and frees as streams end', async () => {
    const { upstream, registry } = await upstreamServer();
    const { keys, identity } = await keysFor(PEOPLE);
    const { urls, store } = await replicas({ rate_limits: [{ id: 'team-streams', per: 'team', concurrent: 3 }] }, registry, identity);
    let release!: () => void;
    upstream.state.gate = new Promise<void>((r) => (release = r));
    const burst = Array.from({ length: 10 }, (_, i) => chat(urls[i % 2]!, keys[i % 2 === 0 ? 'ann' : 'ben']!, { stream: true }));
    // Until every request was either refused or reached the upstream.
    const refused: Response[] = [];
    const settledOrCalled = burst.map((p) => p.then((r) => (r.status === 429 ? refused.push(r) : undefined)));
    for (let i = 0; i < 500 && refused.length + upstream.state.calls < 10; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstream.state.calls).toBe(3);
    expect(refused).toHaveLength(7);
    const body = (await refused[0]!.json()) as { error: { message: string } };
    expect(body.error.message).toBe('Too many requests in flight for this team (limit 3); retry when one finishes.');
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    upstream.state.gate = null; // later calls answer at once; the three held streams wait for release()
    expect((await chat(urls[0]!, keys.cat!)).status).toBe(200); // the other team is not held up
    expect(await store.getHeld(['conc:team-streams:team:search'])).toEqual({ 'conc:team-streams:team:search': 3 });
    release();
    const admitted = (await Promise.all(burst)).filter((r) => r.status === 200);
    for (const r of admitted) expect(await r.text()).toContain('[DONE]');
    await Promise.all(settledOrCalled);
    for (let i = 0; i < 100 && (await store.getHeld(['conc:team-streams:team:search']))['conc:team-streams:team:search'] !== 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await store.getHeld(['conc:team-streams:team:search'])).toEqual({ 'conc:team-streams:team:search': 0 });
    expect((await chat(urls[1]!, keys.ann!, { stream: true })).status).toBe(200);
    await store.close();
  }, 60_000);

  it('the budget endpoint on either replica shows the caller’s own pools, spent on both', async () => {
    const { registry } = await upstreamServer();
    const { keys, identity } = await keysFor([...PEOPLE, { user: 'rex', team: 'labs', bu: 'research' }]);
    const policy = {
      spend: {
        rules: [
          {
            id: 'payments',
            matches: [{ match: { bus: ['payments'], per: 'bu', scope: 'all', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }],
          },
          { id: 'team', matches: [{ match: { per: 'team', scope: 'all', window: 'rolling_24h', at_or_above_usd: '10' }, actions: [{ type: 'block' }] }] },
        ],
      },
    } satisfies PolicyFileInput;
    const { urls } = await replicas(policy, registry, identity);
    expect((await chat(urls[0]!, keys.ann!)).status).toBe(200);
    expect((await chat(urls[1]!, keys.cat!)).status).toBe(200);
    const budget = async (url: string, user: string) =>
      (await (await fetch(`${url}/v1/tollgate/budget`, { headers: { authorization: `Bearer ${keys[user]}` } })).json()) as {
        limits: Array<Record<string, string>>;
      };
    const ben = await budget(urls[1]!, 'ben');
    expect(ben.limits.map((l) => [l.rule, l.per, l.pool, l.window, l.spent_usd, l.limit_usd])).toEqual([
      ['payments', 'bu', 'payments', 'monthly', '0.00202', '100'],
      ['team', 'team', 'search', 'rolling_24h', '0.00101', '10'],
    ]);
    const rex = await budget(urls[0]!, 'rex');
    expect(rex.limits.map((l) => [l.rule, l.pool, l.spent_usd])).toEqual([['team', 'labs', '0']]);
    expect(JSON.stringify(rex)).not.toContain('payments');
  }, 60_000);

  it('a webhook gets one POST per crossing across both replicas, per pool and window', async () => {
    const { registry } = await upstreamServer();
    const { keys, identity } = await keysFor([...PEOPLE, { user: 'rex', team: 'labs', bu: 'research' }]);
    const posts: Array<{ key: string | null; body: Record<string, unknown> }> = [];
    const hook = await listen(async (request) => {
      posts.push({ key: request.headers.get('idempotency-key'), body: (await request.json()) as Record<string, unknown> });
      return new Response(null, { status: 204 });
    });
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
    const { urls, services: running } = await replicas(policy, registry, identity, { notify: { webhook: `${hook}/tollgate` } });
    // The first call crosses $0.001 for payments; the racing calls after it on both replicas find it crossed.
    expect((await chat(urls[0]!, keys.ann!)).status).toBe(200);
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(urls[i % 2]!, keys[PEOPLE[i % 4]!.user]!).then((r) => r.status)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await chat(urls[1]!, keys.rex!)).status).toBe(200);
    expect((await chat(urls[0]!, keys.rex!)).status).toBe(200); // research crosses now
    for (let i = 0; i < 300 && posts.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 200)); // and nothing more arrives
    expect(posts.map((p) => p.body.pool).sort()).toEqual(['payments', 'research']);
    const payments = posts.find((p) => p.body.pool === 'payments')!;
    expect(payments.key).toBe(`notify:bu-watch#0:bu:payments:${month()}`);
    expect(payments.body).toMatchObject({ rule: 'bu-watch', per: 'bu', window: 'monthly', threshold_usd: '0.001', to: ['finops'], shadow: false });
    expect(Number(payments.body.spent_usd)).toBeGreaterThanOrEqual(0.001);
    expect(running.map((s) => s.gateway.stats().requests).reduce((a, b) => a + b)).toBe(15);
  }, 60_000);
});

describe.skipIf(redis.skip)('pooled budgets in process on Redis', () => {
  beforeAll(() => redis.assertUp());

  async function gatewayOn(policy: PolicyFileInput, storeOptions: Parameters<typeof createRedisStore>[0] = {}, clock = { now: Date.UTC(2030, 0, 15, 22, 30) }) {
    const keyPrefix = `tg-pools:${crypto.randomUUID()}:`;
    prefixes.push(keyPrefix);
    const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0, ...storeOptions });
    const upstream = billingUpstream();
    const { keys, identity } = await keysFor(PEOPLE);
    const records: Array<{ status: string; reason: string | null }> = [];
    const gateway = createGateway({
      registry: billingRegistry(),
      policy,
      identity,
      secrets: { UPSTREAM_KEY: 'sk' },
      fetch: upstream.fetch,
      store,
      now: () => clock.now,
      usage: (r) => void records.push(r),
    });
    const post = async (user: string) =>
      (
        await gateway.handle(
          new Request('http://gw/v1/chat/completions', {
            method: 'POST',
            headers: { authorization: `Bearer ${keys[user]}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-chat', messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 100 }),
          }),
        )
      ).status;
    return { store, gateway, post, records, clock, upstream };
  }

  it('a rolling 24 h team cap on Redis: no reset at midnight, spend drops out a day later', async () => {
    const { post, gateway, store, clock } = await gatewayOn({
      spend: {
        rules: [
          {
            id: 'team-24h',
            matches: [{ match: { per: 'team', scope: 'all', window: 'rolling_24h', at_or_above_usd: '0.0015' }, actions: [{ type: 'block' }] }],
          },
        ],
      },
    });
    expect(await post('ann')).toBe(200);
    clock.now = Date.UTC(2030, 0, 16, 0, 30);
    expect(await post('ben')).toBe(429);
    expect(await post('cat')).toBe(200); // another team
    clock.now = Date.UTC(2030, 0, 16, 22, 59);
    expect(await post('ben')).toBe(429);
    clock.now = Date.UTC(2030, 0, 16, 23, 0, 1);
    expect(await post('ben')).toBe(200);
    await gateway.close();
    await store.close();
  });

  it('a reservation the store cannot make across pools (keys under two hash tags) fails closed: 503, nothing held', async () => {
    const policy = {
      spend: {
        rules: [
          { id: 'bu', matches: [{ match: { per: 'bu', scope: 'all', window: 'monthly', at_or_above_usd: '10' }, actions: [{ type: 'block' }] }] },
          { id: 'person', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '10' }, actions: [{ type: 'block' }] }] },
        ],
      },
    } satisfies PolicyFileInput;
    const split = (key: string) => (key.includes(':bu:') ? 'pools' : 'people');
    const { post, records, upstream, store, gateway } = await gatewayOn(policy, { hashTag: split }, { now: Date.now() });
    expect(await post('ann')).toBe(503);
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'store_unavailable:spend' });
    expect(upstream.state.calls).toBe(0);
    const m = month();
    expect(await store.getHeld([`spend:person:all:user:ann:${m}`, `spend:bu:all:bu:payments:${m}`])).toEqual({
      [`spend:person:all:user:ann:${m}`]: 0,
      [`spend:bu:all:bu:payments:${m}`]: 0,
    });
    await gateway.close();
    await store.close();
  });
});
