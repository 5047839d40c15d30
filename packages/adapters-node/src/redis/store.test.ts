import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { StoreUnavailableError, type SpendConstraint, type StateStore } from '@tollgate/core';
import { describeStoreConformance } from '@tollgate/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { serviceGate } from '../testing/services.js';
import { hashTagFromKey } from './keys.js';
import { createRedisStore, type RedisStoreOptions } from './store.js';

const redis = await serviceGate('redis');
const RUN = crypto.randomUUID().slice(0, 8);
const LONG = 10 * 60_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const cap = (key: string, limit: number, counters: string[]): SpendConstraint => ({ key, limit, counters });

/** The first `{...}` of a key decides its Redis Cluster slot (the whole key when there is none). */
const slotTag = (key: string): string => {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(redis.skip)('Redis store', () => {
  const prefixes: string[] = [];
  const stores: StateStore[] = [];
  let admin: Redis;

  /** A store under a prefix unique to this run; keys are deleted after the file. */
  const makeStore = (name: string, options: RedisStoreOptions = {}): StateStore => {
    const keyPrefix = `tg-test:${RUN}:${name}:`;
    if (!prefixes.includes(keyPrefix)) prefixes.push(keyPrefix);
    const store = createRedisStore({ url: redis.url, keyPrefix, sweepIntervalMs: 0, ...options });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    redis.assertUp();
    admin = new Redis(redis.url, { lazyConnect: true });
  });

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    if (admin === undefined) return;
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await admin.del(...keys);
      } while (cursor !== '0');
    }
    await admin.quit();
  });

  describeStoreConformance('redis, one hash tag', () => makeStore('conf-fixed'), { realClock: true });
  describeStoreConformance('redis, a hash tag per key', () => makeStore('conf-tagged', { hashTag: hashTagFromKey() }), {
    realClock: true,
  });

  describe.each([
    ['one hash tag', {}],
    ['a hash tag per tenant', { hashTag: hashTagFromKey() }],
  ])('atomicity (%s)', (mode, options) => {
    it('60 concurrent reserves across 3 constraints from two clients never over-admit', async () => {
      const name = `atomic-${mode.replaceAll(' ', '-')}`;
      const a = makeStore(name, options);
      const b = makeStore(name, options);
      const t = `{tenant-${crypto.randomUUID()}}`;
      const team = cap(`${t}:team`, 1000, [`${t}:c:team`]);
      const workflow = cap(`${t}:wf`, 1200, [`${t}:c:wf`]);
      const users = [0, 1, 2].map((u) => cap(`${t}:user:${u}`, 400, [`${t}:c:user:${u}`, `${t}:c:team`]));

      // Some spend is already committed: 100 on the team counter (so it counts for every user too).
      expect(await a.reserve({ id: `${t}:seed`, amount: 100, ttlMs: LONG, constraints: [team] })).toEqual({ ok: true });
      expect(await b.settle({ id: `${t}:seed`, charges: [{ counter: `${t}:c:team`, amount: 100 }] })).toBe(true);

      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 === 0 ? a : b).reserve({
            id: `${t}:r${i}`,
            amount: 25,
            ttlMs: LONG,
            constraints: [users[i % 3]!, team, workflow],
          }),
        ),
      );
      const admitted = results.map((r, i) => (r.ok ? i : -1)).filter((i) => i >= 0);
      // Team: 100 committed + 25 × n ≤ 1000 → n = 36; each user: 100 + 25 × n ≤ 400 → 12 (36 in all).
      expect(admitted).toHaveLength(36);
      for (const u of [0, 1, 2]) expect(admitted.filter((i) => i % 3 === u)).toHaveLength(12);
      for (const r of results) if (!r.ok) expect(r.committed + r.held + 25).toBeGreaterThan(r.limit);

      const held = await a.getHeld([team.key, workflow.key, ...users.map((u) => u.key)]);
      expect(held).toEqual({
        [team.key]: 900,
        [workflow.key]: 900,
        [users[0]!.key]: 300,
        [users[1]!.key]: 300,
        [users[2]!.key]: 300,
      });

      // Settle every admitted request from alternating clients, each twice: charged once.
      const settles = await Promise.all(
        admitted.flatMap((i) => [a, b].map((s) => s.settle({ id: `${t}:r${i}`, charges: [{ counter: `${t}:c:team`, amount: 10 }] }))),
      );
      expect(settles.filter(Boolean)).toHaveLength(36);
      expect(await b.getCounters([`${t}:c:team`])).toEqual({ [`${t}:c:team`]: 100 + 360 });
      expect(await b.getHeld([team.key, workflow.key])).toEqual({ [team.key]: 0, [workflow.key]: 0 });
    });
  });

  describe('server clock', () => {
    afterEach(() => vi.restoreAllMocks());

    it('holds expire by the Redis clock, not the replica clock', async () => {
      const store = makeStore('clock');
      const c = cap('cap', 100, ['c']);
      // The replica's clock is an hour off in either direction: nothing changes.
      vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 3_600_000);
      expect(await store.reserve({ id: 'r1', amount: 60, ttlMs: 500, constraints: [c] })).toEqual({ ok: true });

      const [seconds, micros] = await admin.time();
      const serverNow = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const expiry = Number(await admin.zscore(`tg-test:${RUN}:clock:{tg}:h:cap`, 'r1'));
      expect(expiry).toBeGreaterThan(serverNow);
      expect(expiry).toBeLessThanOrEqual(serverNow + 500);

      vi.spyOn(Date, 'now').mockReturnValue(Date.now() - 7_200_000);
      expect(await store.getHeld(['cap'])).toEqual({ cap: 60 });
      expect(await store.reserve({ id: 'r2', amount: 41, ttlMs: LONG, constraints: [c] })).toMatchObject({ ok: false });
      vi.restoreAllMocks();

      await sleep(700);
      // Stopped counting without a sweep, and the record is gone by Redis' own expiry.
      expect(await store.getHeld(['cap'])).toEqual({ cap: 0 });
      expect(await store.renew('r1', LONG)).toBe(false);
      expect(await admin.exists(`tg-test:${RUN}:clock:{tg}:r:r1`)).toBe(0);
      expect(await store.reserve({ id: 'r2', amount: 100, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
    });

    it('keys without live holds are tidied and large amounts stay exact', async () => {
      const store = makeStore('exact');
      const big = 2 ** 52 + 1;
      const c = cap('cap', Number.MAX_SAFE_INTEGER, ['c']);
      expect(await store.reserve({ id: 'r', amount: big, ttlMs: LONG, constraints: [c] })).toEqual({ ok: true });
      expect(await store.getHeld(['cap'])).toEqual({ cap: big });
      expect(await store.settle({ id: 'r', charges: [{ counter: 'c', amount: big }] })).toBe(true);
      expect(await store.getCounters(['c'])).toEqual({ c: big });
      expect(await admin.exists(`tg-test:${RUN}:exact:{tg}:h:cap`, `tg-test:${RUN}:exact:{tg}:a:cap`)).toBe(0);
      // No limit at all travels as 'inf'.
      expect(await store.reserve({ id: 'r2', amount: 5, ttlMs: LONG, constraints: [cap('open', Infinity, ['c'])] })).toEqual({
        ok: true,
      });
      expect(await store.hitRate([{ key: 'b', limit: Infinity, windowMs: 1000, cost: 3 }])).toMatchObject({ ok: true });
    });
  });

  it('keys one script touches all share one hash tag (Redis Cluster)', async () => {
    const store = makeStore('cluster-names', { hashTag: hashTagFromKey() });
    const prefix = `tg-test:${RUN}:cluster-names:`;
    const monitor = await new Redis(redis.url).monitor();
    const events: Array<{ args: string[]; lua: boolean }> = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => events.push({ args, lua: source === 'lua' }));
    try {
      await sleep(50);
      for (const tenant of ['{acme}', '{globex}']) {
        const user = cap(`${tenant}:user:ann`, 1000, [`${tenant}:c:ann`]);
        const team = cap(`${tenant}:team:eng`, 1000, [`${tenant}:c:ann`, `${tenant}:c:bob`]);
        const wf = cap(`${tenant}:wf:bot`, 1000, [`${tenant}:c:ann`]);
        await store.reserve({ id: `${tenant}-1`, amount: 10, ttlMs: LONG, constraints: [user, team, wf] });
        await store.reserve({ id: `${tenant}-3`, amount: 10, ttlMs: LONG, constraints: [user, team] });
        await store.renew(`${tenant}-1`, LONG);
        await store.settle({ id: `${tenant}-1`, charges: [{ counter: `${tenant}:c:ann`, amount: 3 }] });
        await store.release(`${tenant}-3`);
        await store.getHeld([user.key, team.key, wf.key]);
        await store.getCounters([`${tenant}:c:ann`, `${tenant}:c:bob`]);
        await store.hitRate([
          { key: `${tenant}:rpm`, limit: 10, windowMs: 60_000, cost: 1 },
          { key: `${tenant}:tpm`, limit: 100, windowMs: 60_000, cost: 20 },
        ]);
        await store.setOnce(`${tenant}:paused`, LONG);
        await store.admit!({
          buckets: [{ key: `${tenant}:rpm`, limit: 10, windowMs: 60_000, cost: 1 }],
          counters: [`${tenant}:c:ann`],
          reserve: { id: `${tenant}-4`, amount: 5, ttlMs: LONG, constraints: [user, team] },
        });
        // Expires before the sweep below (nothing else reads these caps after this).
        await store.reserve({ id: `${tenant}-2`, amount: 10, ttlMs: 50, constraints: [user, team, wf] });
      }
      await sleep(100);
      expect(await store.sweep()).toBeGreaterThanOrEqual(2);
      await expect(store.reserve({ id: 'x', amount: 1, ttlMs: LONG, constraints: [cap('{acme}:u', 10, ['{globex}:c'])] })).rejects.toThrow(
        /share one hash tag/,
      );
      await sleep(100);
    } finally {
      monitor.disconnect();
    }

    // Group what each script ran: a script's commands are contiguous and end at its EVALSHA.
    // MONITOR sees every client: the Redis tests of other files (other workers, each with its
    // own RUN) run scripts at the same time, so their keys are left out.
    const foreign = (key: string) => key.startsWith('tg-test:') && !key.startsWith(`tg-test:${RUN}:`);
    const scripts: string[][] = [];
    let current: string[] = [];
    for (const e of events) {
      if (e.lua) {
        if (e.args[0]?.toUpperCase() !== 'TIME' && e.args[1] !== undefined && !foreign(e.args[1])) current.push(e.args[1]);
        continue;
      }
      if (e.args[0]?.toUpperCase() === 'EVALSHA') {
        const numkeys = Number(e.args[2]);
        current.push(...e.args.slice(3, 3 + numkeys).filter((k) => !foreign(k)));
      }
      if (current.some((k) => k.startsWith(prefix))) scripts.push(current);
      current = [];
    }
    expect(scripts.length).toBeGreaterThanOrEqual(20);
    // MONITOR shows the commands run inside scripts, keys built in Lua included (renew names only r:<id>).
    expect(events.filter((e) => e.lua).length).toBeGreaterThan(50);
    expect(scripts.some((keys) => keys[0]!.includes('}:r:{acme}-1') && keys.some((k) => k.includes('}:h:')))).toBe(true);
    const tagsSeen = new Set<string>();
    for (const keys of scripts) {
      const tags = new Set(keys.map(slotTag));
      expect(tags.size, `one script touched ${keys.join(', ')}`).toBe(1);
      for (const key of keys) expect(key.startsWith(prefix)).toBe(true);
      tagsSeen.add([...tags][0]!);
    }
    expect(tagsSeen).toEqual(new Set(['acme', 'globex']));
  });

  it('admit is one round trip; with keys under several hash tags it makes the separate calls instead', async () => {
    const fixed = makeStore('admit-trips');
    const prefix = `tg-test:${RUN}:admit-trips:`;
    const request = (id: string) => ({
      buckets: [{ key: 'rpm', limit: 100, windowMs: 60_000, cost: 1 }],
      counters: ['c:ann', 'c:bob'],
      reserve: { id, amount: 5, ttlMs: LONG, constraints: [cap('user:ann', 1000, ['c:ann'])] },
    });
    await fixed.admit!(request('warm')); // loads the script
    const monitor = await new Redis(redis.url).monitor();
    const sent: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((a) => a.startsWith(prefix))) sent.push(args);
    });
    try {
      await sleep(50);
      await fixed.settle({ id: 'earlier', charges: [{ counter: 'c:ann', amount: 40 }] });
      await sleep(100); // MONITOR reports the settle a moment later
      sent.length = 0;
      expect(await fixed.admit!(request('one'))).toMatchObject({ rate: { ok: true }, counters: { 'c:ann': 40, 'c:bob': 0 }, reserve: { ok: true } });
      await sleep(100);
      expect(sent.map((args) => args[0]!.toUpperCase())).toEqual(['EVALSHA']);
    } finally {
      monitor.disconnect();
    }

    // Keys under two hash tags: not one script. Null, and nothing was taken or held.
    const tagged = makeStore('admit-split', { hashTag: hashTagFromKey() });
    const split = await tagged.admit!({
      buckets: [{ key: '{acme}:rpm', limit: 1, windowMs: 60_000, cost: 1 }],
      counters: ['{globex}:c'],
      reserve: { id: 'r-split', amount: 5, ttlMs: LONG, constraints: [cap('{globex}:cap', 20, ['{globex}:c'])] },
    });
    expect(split).toBeNull();
    expect(await tagged.getHeld(['{globex}:cap'])).toEqual({ '{globex}:cap': 0 });
    expect(await tagged.hitRate([{ key: '{acme}:rpm', limit: 1, windowMs: 60_000, cost: 1 }])).toMatchObject({ ok: true });
  });

  it('with a hash tag per key, a reservation that was not made leaves no pointer behind', async () => {
    const store = makeStore('admit-pointers', { hashTag: hashTagFromKey() });
    const prefix = `tg-test:${RUN}:admit-pointers:`;
    const limit = cap('{acme}:cap', 10, ['{acme}:c']);
    const bucket = { key: '{acme}:rpm', limit: 1, windowMs: 60_000, cost: 1 };
    expect(await store.admit!({ buckets: [bucket], counters: [], reserve: { id: 'ok-1', amount: 5, ttlMs: LONG, constraints: [limit] } })).toMatchObject({
      reserve: { ok: true },
    });
    // Refused by the bucket, then by the cap: neither may leave its p:<id> key.
    expect(await store.admit!({ buckets: [bucket], counters: [], reserve: { id: 'rate-2', amount: 5, ttlMs: LONG, constraints: [limit] } })).toMatchObject({
      rate: { ok: false },
    });
    expect(await store.admit!({ buckets: [], counters: [], reserve: { id: 'cap-3', amount: 6, ttlMs: LONG, constraints: [limit] } })).toMatchObject({
      reserve: { ok: false },
    });
    expect(await store.reserve({ id: 'cap-4', amount: 6, ttlMs: LONG, constraints: [limit] })).toMatchObject({ ok: false });
    const pointers = await admin.keys(`${prefix}p:*`);
    expect(pointers).toEqual([`${prefix}p:ok-1`]);
  });

  it('with a hash tag per key, a bucket correction tagged apart from the charges is left out, never splitting the settle', async () => {
    const store = makeStore('settle-split', { hashTag: hashTagFromKey() });
    const taken = await store.hitRate([{ key: '{acme}:tpm', limit: 100, windowMs: 60_000, cost: 90 }]);
    const start = taken.ok ? taken.windows![0]! : 0;
    expect(await store.reserve({ id: 's1', amount: 5, ttlMs: LONG, constraints: [cap('{globex}:cap', 20, ['{globex}:c'])] })).toEqual({ ok: true });
    const settled = await store.settle({
      id: 's1',
      charges: [{ counter: '{globex}:c', amount: 3 }],
      rate: [{ key: '{acme}:tpm', windowMs: 60_000, start, delta: -80 }],
    });
    expect(settled).toBe(true);
    expect(await store.getCounters(['{globex}:c'])).toEqual({ '{globex}:c': 3 });
    expect(await store.getHeld(['{globex}:cap'])).toEqual({ '{globex}:cap': 0 });
    // The bucket kept what it took (unless its window rolled over meanwhile).
    const after = await store.hitRate([{ key: '{acme}:tpm', limit: 100, windowMs: 60_000, cost: 20 }]);
    if (after.ok) expect(after.windows![0]!).toBeGreaterThan(start);
    // Under one tag, the correction goes through.
    expect(await store.settle({ id: 's2', charges: [], rate: [{ key: '{acme}:tpm', windowMs: 60_000, start, delta: -80 }] })).toBe(true);
  });

  describe('Redis unreachable', () => {
    it('rejects every call quickly with StoreUnavailableError', async () => {
      const port = await freePort();
      const errors: unknown[] = [];
      const store = createRedisStore({
        url: `redis://127.0.0.1:${port}`,
        sweepIntervalMs: 0,
        connectTimeoutMs: 300,
        onError: (e) => errors.push(e),
      });
      stores.push(store);
      const started = Date.now();
      const c = cap('cap', 100, ['c']);
      const calls: Array<() => Promise<unknown>> = [
        () => store.reserve({ id: 'r', amount: 1, ttlMs: 1000, constraints: [c] }),
        () => store.renew('r', 1000),
        () => store.settle({ id: 'r', charges: [{ counter: 'c', amount: 1 }] }),
        () => store.release('r'),
        () => store.getCounters(['c']),
        () => store.getHeld(['cap']),
        () => store.hitRate([{ key: 'b', limit: 1, windowMs: 1000, cost: 1 }]),
        () => store.setOnce('m', 1000),
        () => store.hasMarker('m'),
        () => store.sweep(),
      ];
      for (const fn of calls) await expect(fn()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(errors.length).toBeGreaterThan(0);
      await store.close();
      await expect(store.getCounters(['c'])).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it('recovers by itself when Redis comes back, without a restart', async () => {
      const port = await freePort();
      const start = (): ChildProcess =>
        spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
          stdio: 'ignore',
        });
      const stop = async (child: ChildProcess): Promise<void> => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      };
      const eventually = async (fn: () => Promise<unknown>, ms = 4000): Promise<void> => {
        const deadline = Date.now() + ms;
        for (;;) {
          try {
            await fn();
            return;
          } catch (error) {
            if (Date.now() > deadline) throw error;
            await sleep(50);
          }
        }
      };
      let server = start();
      const spawnFailed = await Promise.race([new Promise<boolean>((resolve) => server.once('error', () => resolve(true))), sleep(200).then(() => false)]);
      if (spawnFailed) {
        console.warn('[tollgate tests] redis-server is not on PATH; skipping the reconnect test');
        return;
      }
      const store = createRedisStore({ url: `redis://127.0.0.1:${port}`, sweepIntervalMs: 0, onError: () => {} });
      stores.push(store);
      const c = cap('cap', 100, ['c']);
      try {
        await eventually(() => store.reserve({ id: 'r1', amount: 10, ttlMs: LONG, constraints: [c] }));
        expect(await store.getHeld(['cap'])).toEqual({ cap: 10 });

        await stop(server);
        const before = Date.now();
        await expect(store.reserve({ id: 'r2', amount: 10, ttlMs: LONG, constraints: [c] })).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.hitRate([{ key: 'b', limit: 1, windowMs: 1000, cost: 1 }])).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - before).toBeLessThan(1500);

        server = start();
        // Same store, same client: it reconnects on its own (the new server starts empty).
        await eventually(() => store.reserve({ id: 'r3', amount: 10, ttlMs: LONG, constraints: [c] }));
        expect(await store.getHeld(['cap'])).toEqual({ cap: 10 });
      } finally {
        await store.close();
        await stop(server);
      }
    });
  });

  it('rejects malformed calls before any round trip', async () => {
    const store = makeStore('validate');
    await expect(store.reserve({ id: '', amount: 1, ttlMs: 1, constraints: [] })).rejects.toThrow(RangeError);
    await expect(store.reserve({ id: 'r', amount: 1.5, ttlMs: 1, constraints: [] })).rejects.toThrow(RangeError);
    await expect(store.settle({ id: 'r', charges: [{ counter: 'c', amount: -1 }] })).rejects.toThrow(RangeError);
    await expect(store.hitRate([{ key: 'b', limit: 1, windowMs: 0, cost: 1 }])).rejects.toThrow(RangeError);
    expect(() => createRedisStore({ url: redis.url, keyPrefix: 'a{b}:' })).toThrow(/braces/);
  });
});
