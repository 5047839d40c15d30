/**
 * `tollgate serve` readiness against real backends: `/readyz` is 503 with a JSON reason while
 * the configured Redis store or Postgres usage sink cannot be reached and 200 once it can;
 * start-up says what is wrong and what it means (for Postgres: records are queued, up to a
 * bound); `/healthz` stays 200 throughout.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { serviceGate } from '../testing/services.js';
import { loadService } from './load.js';
import { startService, type RunningService } from './service.js';

const redis = await serviceGate('redis');
const postgres = await serviceGate('postgres');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const REGISTRY = {
  wire_formats: { openai_chat: { family: 'chat' } },
  entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
  providers: { openai: { base_url: 'http://127.0.0.1:9' } },
  operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
  models: {
    mini: {
      brand: 'openai',
      entry_formats: ['openai_chat'],
      deployments: [
        { id: 'mini@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'm', pricing: { unit: 'usd_per_mtok', input: '1', output: '1' } },
      ],
    },
  },
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP relay on `port` to the real service at `url`: the backend "comes back" on that port. */
async function relay(port: number, url: string, defaultPort: number): Promise<Server> {
  const target = new URL(url);
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || defaultPort), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

const withPort = (url: string, port: number) => {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
};

const running: RunningService[] = [];
const relays: Server[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.shutdown();
  for (const r of relays.splice(0)) await new Promise<void>((resolve) => r.close(() => resolve()));
});

async function start(config: Record<string, unknown>): Promise<{ service: RunningService; logs: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-ready-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(REGISTRY));
  writeFileSync(join(dir, 'tollgate.yaml'), stringify({ registry: './registry.yaml', listen: { port: 0 }, drain_timeout_s: 1, ...config }));
  const loaded = await loadService(join(dir, 'tollgate.yaml'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const logs: string[] = [];
  const service = await startService(loaded.service, { log: (line) => logs.push(line) });
  running.push(service);
  return { service, logs };
}

const probe = async (url: string, path: string) => {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: (await res.json()) as { status: string; checks?: Record<string, { ok: boolean; error?: string; [k: string]: unknown }> } };
};

async function eventually(check: () => Promise<boolean>, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(100);
  }
}

describe('tollgate serve readiness', () => {
  it('with nothing remote to reach (memory store, no sink): ready at once', async () => {
    const { service } = await start({ store: 'memory', usage: 'none' });
    expect(await probe(service.url, '/readyz')).toEqual({ status: 200, body: { status: 'ready', checks: {} } });
    expect((await probe(service.url, '/healthz')).status).toBe(200);
  });

  it('a Redis store that cannot be reached: says so at start, /readyz 503 with the reason, /healthz 200', async () => {
    const port = await freePort();
    const { service, logs } = await start({ store: `redis://127.0.0.1:${port}`, usage: 'none' });
    const text = logs.join('\n');
    expect(text).toMatch(
      new RegExp(
        `store redis://127\\.0\\.0\\.1:${port}/? cannot be reached \\(.*ECONNREFUSED.*\\); requests under a spend cap, or a rate limit with on_store_error: closed, are refused \\(503\\)`,
      ),
    );
    expect(text).toMatch(/listening on .* — not ready: store cannot be reached/);
    const ready = await probe(service.url, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('not_ready');
    expect(ready.body.checks?.store).toMatchObject({ ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
    expect((await probe(service.url, '/healthz')).status).toBe(200);
  });

  describe.skipIf(redis.skip)('against a real Redis', () => {
    it('turns ready once Redis can be reached, and logs it', async () => {
      redis.assertUp();
      const port = await freePort();
      const { service, logs } = await start({ store: { url: withPort(redis.url, port), key_prefix: `tg-ready-${randomUUID().slice(0, 8)}:` }, usage: 'none' });
      expect((await probe(service.url, '/readyz')).status).toBe(503);
      relays.push(await relay(port, redis.url, 6379));
      await eventually(async () => (await probe(service.url, '/readyz')).status === 200);
      expect((await probe(service.url, '/readyz')).body.checks?.store).toMatchObject({ ok: true });
      expect(logs.join('\n')).toMatch(/store .* can be reached again/);
    });
  });

  it('a Postgres sink that cannot be reached: says records are queued (and the bound), /readyz 503 with the queue', async () => {
    const port = await freePort();
    const { service, logs } = await start({ usage: `postgres://postgres@127.0.0.1:${port}/test` });
    expect(logs.join('\n')).toMatch(
      /usage sink postgres:\/\/postgres@127\.0\.0\.1:\d+\/test cannot be reached \(.*\); usage records are queued in memory \(up to 10000\) and written once it can be reached; past that, new records are dropped and counted/,
    );
    await fetch(`${service.url}/v1/chat/completions`, { method: 'POST', body: '{}' }); // 401, recorded
    await eventually(async () => (await probe(service.url, '/readyz')).body.checks?.usage?.queued === 1);
    const ready = await probe(service.url, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks?.usage).toMatchObject({ ok: false, queued: 1, dropped: 0, failed: 0 });
    expect((await probe(service.url, '/healthz')).status).toBe(200);
  });

  describe.skipIf(postgres.skip)('against a real Postgres', () => {
    it('turns ready once Postgres can be reached, and writes the records queued meanwhile', async () => {
      postgres.assertUp();
      const port = await freePort();
      const { service, logs } = await start({ usage: withPort(postgres.url, port) });
      const res = await fetch(`${service.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
      const id = res.headers.get('x-tollgate-request-id')!;
      expect((await probe(service.url, '/readyz')).status).toBe(503);
      relays.push(await relay(port, postgres.url, 5432));
      await eventually(async () => (await probe(service.url, '/readyz')).status === 200);
      await eventually(async () => (await probe(service.url, '/readyz')).body.checks?.usage?.queued === 0);
      expect(logs.join('\n')).toMatch(/usage sink .* can be reached again/);
      const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
      try {
        const rows = await pool.query<{ status: string }>(`SELECT record->>'status' AS status FROM tollgate_usage WHERE request_id = $1`, [id]);
        expect(rows.rows).toEqual([{ status: 'rejected' }]);
      } finally {
        await pool.end();
      }
    });
  });

  describe.skipIf(redis.skip || postgres.skip)('with both reachable', () => {
    it('is ready and says so for each', async () => {
      redis.assertUp();
      postgres.assertUp();
      const { service, logs } = await start({ store: { url: redis.url, key_prefix: `tg-ready-${randomUUID().slice(0, 8)}:` }, usage: postgres.url });
      expect(logs.join('\n')).not.toMatch(/cannot be reached/);
      const ready = await probe(service.url, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toMatchObject({ store: { ok: true }, usage: { ok: true, queued: 0 } });
    });
  });
});
