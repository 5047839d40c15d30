import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpendConstraint } from '@tollgate/core';
import { describeStoreConformance } from '@tollgate/core/testing';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceGate } from '../testing/services.js';
import { hashTagFromKey } from './keys.js';
import { createRedisStore } from './store.js';

/**
 * A real three-node Redis Cluster, started for this file: the store with a hash tag per key
 * passes the conformance suite there, and reservations across user, team and workflow caps
 * of two tenants (two slots) stay atomic. Needs redis-server and redis-cli on PATH.
 */

const redis = await serviceGate('redis');
const hasBinaries = ['redis-server', 'redis-cli'].every((bin) => spawnSync(bin, ['--version']).status === 0);
if (!redis.skip && !hasBinaries) {
  console.warn('[tollgate tests] skipping the Redis Cluster tests: redis-server or redis-cli is not on PATH');
}
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const LONG = 10 * 60_000;

const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A port whose cluster bus port (+10000) is free too. */
async function clusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (taken.includes(port)) continue;
    if ((await canListen(port)) && (await canListen(port + 10_000))) return port;
  }
}

describe.skipIf(redis.skip || !hasBinaries)('Redis store on a Redis Cluster', () => {
  const nodes: ChildProcess[] = [];
  const ports: number[] = [];
  let dir = '';
  let cluster: Cluster;
  let second: Cluster;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-cluster-'));
    for (let i = 0; i < 3; i++) ports.push(await clusterPort(ports));
    for (const port of ports) {
      nodes.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--dir',
            dir,
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) {
      for (
        let i = 0;
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .trim() !== 'PONG';
        i++
      ) {
        if (i > 100) throw new Error(`cluster node ${port} did not start`);
        await sleep(50);
      }
    }
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout.toString()}${create.stderr.toString()}`);
    for (let i = 0; ; i++) {
      const ok = ports.every((p) =>
        spawnSync('redis-cli', ['-p', String(p), 'cluster', 'info'])
          .stdout.toString()
          .includes('cluster_state:ok'),
      );
      if (ok) break;
      if (i > 100) throw new Error('the cluster did not become ready');
      await sleep(50);
    }
    const connect = async (): Promise<Cluster> => {
      const client = new Cluster([{ host: '127.0.0.1', port: ports[0]! }], { redisOptions: { maxRetriesPerRequest: 1 } });
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', reject);
      });
      return client;
    };
    cluster = await connect();
    second = await connect();
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled([cluster?.quit(), second?.quit()]);
    await Promise.all(
      nodes.map(async (node) => {
        const exited = new Promise((resolve) => node.once('exit', resolve));
        node.kill('SIGKILL');
        await exited;
      }),
    );
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('the cluster refuses a script whose keys span slots (so the tests below mean something)', async () => {
    // Declared keys in two slots.
    await expect(cluster.eval('return 1', 2, '{acme}:a', '{globex}:b')).rejects.toThrow(/CROSSSLOT/);
    // A key built inside the script that lives on another node.
    const slots = await cluster.cluster('SLOTS');
    const nodeOf = async (key: string): Promise<number> => {
      const slot = Number(await cluster.cluster('KEYSLOT', key));
      return slots.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    };
    let other = 0;
    while ((await nodeOf(`{t${other}}`)) === (await nodeOf('{acme}'))) other++;
    await expect(cluster.eval("redis.call('SET', KEYS[1], 1) return redis.call('SET', ARGV[1], 1)", 1, '{acme}:a', `{t${other}}:b`)).rejects.toThrow();
  });

  describeStoreConformance('redis cluster, a hash tag per key', () => createRedisStore({ client: cluster, hashTag: hashTagFromKey(), sweepIntervalMs: 0 }), {
    realClock: true,
  });

  it('reservations across user, team and workflow caps of two tenants stay atomic', async () => {
    const a = createRedisStore({ client: cluster, hashTag: hashTagFromKey(), keyPrefix: 'tg-cluster:' });
    const b = createRedisStore({ client: second, hashTag: hashTagFromKey(), keyPrefix: 'tg-cluster:' });
    try {
      const run = crypto.randomUUID().slice(0, 8);
      const tenants = [`{acme-${run}}`, `{globex-${run}}`];
      const caps = tenants.map((t) => ({
        team: { key: `${t}:team`, limit: 500, counters: [`${t}:c`] } satisfies SpendConstraint,
        wf: { key: `${t}:wf`, limit: 10_000, counters: [`${t}:c`] } satisfies SpendConstraint,
        users: [0, 1].map((u) => ({ key: `${t}:user:${u}`, limit: 300, counters: [`${t}:c:${u}`] }) satisfies SpendConstraint),
      }));
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => {
          const c = caps[i % 2]!;
          return (i % 3 === 0 ? a : b).reserve({
            id: `r-${run}-${i}`,
            amount: 20,
            ttlMs: LONG,
            constraints: [c.users[Math.floor(i / 2) % 2]!, c.team, c.wf],
          });
        }),
      );
      // Each tenant: 30 attempts, team 500 / 20 = 25, each user 300 / 20 = 15 → 25 admitted.
      for (const t of [0, 1]) expect(results.filter((r, i) => r.ok && i % 2 === t)).toHaveLength(25);
      for (const [t, c] of caps.entries()) {
        expect(await a.getHeld([c.team.key, c.wf.key])).toEqual({ [c.team.key]: 500, [c.wf.key]: 500 });
        const id = results.findIndex((r, i) => r.ok && i % 2 === t);
        expect(await b.renew(`r-${run}-${id}`, LONG)).toBe(true);
        expect(await b.settle({ id: `r-${run}-${id}`, charges: [{ counter: `${tenants[t]}:c`, amount: 7 }] })).toBe(true);
        expect(await a.settle({ id: `r-${run}-${id}`, charges: [{ counter: `${tenants[t]}:c`, amount: 7 }] })).toBe(false);
        expect(await a.getHeld([c.team.key])).toEqual({ [c.team.key]: 480 });
        expect(await a.getCounters([`${tenants[t]}:c`])).toEqual({ [`${tenants[t]}:c`]: 7 });
      }
      // Keys of two tenants in one call (different slots) are refused up front, not sent.
      await expect(a.reserve({ id: `x-${run}`, amount: 1, ttlMs: LONG, constraints: [caps[0]!.team, caps[1]!.team] })).rejects.toThrow(/share one hash tag/);
      expect(await a.getCounters([`${tenants[0]}:c`, `${tenants[1]}:c`])).toEqual({
        [`${tenants[0]}:c`]: 7,
        [`${tenants[1]}:c`]: 7,
      });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
