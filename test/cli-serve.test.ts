/**
 * `tollgate serve` as a real process: health and readiness, a proxied SDK call to a mock
 * upstream, usage as JSON lines on stdout, SIGTERM draining a long stream to its end (and a
 * drain timeout cutting an endless one), and refusing to start on an invalid registry.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { startSlowUpstream, type SlowUpstream } from '../packages/adapters-node/src/__tests__/slow-upstream.js';
import { serviceGate } from '../packages/adapters-node/src/testing/services.js';
import { CLI, jsonLines, runCli, spawnTs, type Spawned } from './cli-support.js';

const redis = await serviceGate('redis');
const postgres = await serviceGate('postgres');

let upstream: MockUpstream;
let slow: SlowUpstream;
let key: string;
let identity: unknown;
const TICKS = 30;

function registryFor(replayUrl: string, slowUrl: string) {
  const base = testRegistry(replayUrl);
  const slowModel = (provider: string) => ({
    brand: 'openai',
    entry_formats: ['openai_chat'],
    capabilities: { max_output_tokens: 1000 },
    deployments: [
      { id: `${provider}@openai`, provider, format: 'openai_chat', upstream_model: 'gpt-4o-mini', pricing: { unit: 'usd_per_mtok', input: '1', output: '1' } },
    ],
  });
  return {
    ...base,
    providers: {
      ...base.providers,
      long: { base_url: `${slowUrl}/long`, credential: 'openai' },
      endless: { base_url: `${slowUrl}/endless`, credential: 'openai' },
    },
    operations: [
      ...base.operations,
      { provider: 'long', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
      { provider: 'endless', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' },
    ],
    models: { ...base.models, 'long-model': slowModel('long'), 'endless-model': slowModel('endless') },
  };
}

function writeService(config: Record<string, unknown>, registry: unknown = registryFor(upstream.url, slow.url)): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-serve-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(registry));
  writeFileSync(join(dir, 'tollgate.yaml'), stringify({ listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', identity, ...config }));
  return join(dir, 'tollgate.yaml');
}

async function serve(config: Record<string, unknown>): Promise<{ p: Spawned; url: string; file: string }> {
  const file = writeService(config);
  const p = spawnTs([CLI, 'serve', '--config', file], { env: SECRETS });
  const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { p, url: url!, file };
}

const client = (url: string) => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });

beforeAll(async () => {
  upstream = await startMockUpstream({ openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json') });
  slow = await startSlowUpstream({ tickMs: 50, ticks: TICKS });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  key = ids.keys.alice!;
  identity = ids.identity;
});

afterAll(async () => {
  await upstream?.close();
  await slow?.close();
});

describe('tollgate serve', () => {
  it('answers /healthz and /readyz, proxies SDK calls, writes usage as JSON lines, and drains a long stream on SIGTERM', async () => {
    const { p, url } = await serve({ usage: 'stdout', drain_timeout_s: 20 });
    try {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      const answer = await client(url).chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0]!.message.content).toBeTypeOf('string');
      expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRETS.OPENAI_API_KEY}`);
      // Usage sinks flush at least every second.
      await p.waitFor('stdout', /"status":"ok"/, 3000);

      // A long stream is open when SIGTERM arrives: it runs to its end, then the process exits 0.
      const stream = await client(url).chat.completions.create({ model: 'long-model', messages: [{ role: 'user', content: 'count' }], stream: true });
      let text = '';
      let finish: string | null = null;
      let signalled = false;
      let readyDuringDrain = 0;
      let healthDuringDrain = 0;
      let newRequestDuringDrain = 0;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (!signalled && text.includes('tick2 ')) {
          signalled = true;
          p.kill('SIGTERM');
          await p.waitFor('stderr', /draining/);
          readyDuringDrain = (await fetch(`${url}/readyz`)).status;
          healthDuringDrain = (await fetch(`${url}/healthz`)).status;
          newRequestDuringDrain = (
            await fetch(`${url}/v1/chat/completions`, {
              method: 'POST',
              headers: { authorization: `Bearer ${key}` },
              body: '{"model":"gpt-mini","messages":[]}',
            })
          ).status;
        }
      }
      expect(signalled).toBe(true);
      expect(readyDuringDrain).toBe(503);
      expect(healthDuringDrain).toBe(200);
      expect(newRequestDuringDrain).toBe(503);
      expect(text).toContain(`tick${TICKS - 1} `);
      expect(finish).toBe('stop');

      const { code } = await p.exited;
      expect(code).toBe(0);
      const records = jsonLines(p.stdout());
      const long = records.find((r) => r.model === 'long-model');
      expect(long).toMatchObject({ status: 'ok', stream: true });
      expect(records.filter((r) => r.status === 'ok')).toHaveLength(2);
      expect(p.stderr()).toMatch(/stopped/);
    } finally {
      p.kill('SIGKILL');
    }
  });

  it('cuts streams still open at the drain timeout, records them as cancelled, and exits 0', async () => {
    const { p, url } = await serve({ usage: 'stdout', drain_timeout_s: 1 });
    try {
      const before = slow.calls.length;
      const stream = await client(url).chat.completions.create({ model: 'endless-model', messages: [{ role: 'user', content: 'go' }], stream: true });
      const started = Date.now();
      let chunks = 0;
      await (async () => {
        for await (const _ of stream) if (++chunks === 3) p.kill('SIGTERM');
      })().catch(() => {});
      const { code } = await p.exited;
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
      const call = slow.calls[before]!;
      await call.closed;
      expect(call.cut).toBe(true);
      const record = jsonLines(p.stdout()).find((r) => r.model === 'endless-model');
      expect(record).toMatchObject({ status: 'cancelled', reason: 'client_cancelled' });
      expect(p.stderr()).toMatch(/drain timeout — cutting 1 open request/);
    } finally {
      p.kill('SIGKILL');
    }
  });

  it('refuses to start on an invalid registry, listing every violation (exit 1)', async () => {
    const registry = registryFor(upstream.url, slow.url) as Record<string, unknown>;
    const models = registry.models as Record<string, { deployments: Array<Record<string, unknown>> }>;
    models['gpt-mini']!.deployments[0]!.provider = 'nowhere';
    delete (models['claude-opus']!.deployments[0] as Record<string, unknown>).pricing;
    const config = writeService({}, registry);
    const r = await runCli(['serve', '--config', config], { env: SECRETS });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to start — .*tollgate\.yaml has \d+ violations?:/);
    expect(r.stderr).toMatch(/registry\.yaml: models\.claude-opus\.deployments\[0\]/);
    expect(r.stderr).not.toMatch(/listening/);
  });

  it('reloads the registry and policy on SIGHUP, and keeps the last good revision when an edit is invalid', async () => {
    const { p, url, file } = await serve({ usage: 'stdout' });
    const registryFile = join(dirname(file), 'registry.yaml');
    const models = async () => (await client(url).models.list()).data.map((m) => m.id);
    try {
      expect(await models()).not.toContain('gpt-mini-2');
      // Add a model: served once the signal is handled.
      const registry = registryFor(upstream.url, slow.url) as Record<string, unknown>;
      const byId = registry.models as Record<string, { deployments: Array<Record<string, unknown>> }>;
      registry.models = { ...byId, 'gpt-mini-2': { ...byId['gpt-mini']!, deployments: [{ ...byId['gpt-mini']!.deployments[0]!, id: 'mini2@openai' }] } };
      writeFileSync(registryFile, stringify(registry));
      p.kill('SIGHUP');
      await p.waitFor('stderr', /reloaded — \d+ models/);
      expect(await models()).toContain('gpt-mini-2');
      const answer = await client(url).chat.completions.create({ model: 'gpt-mini-2', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0]!.message.content).toBeTypeOf('string');
      // A policy file added to the config is applied too: the model is now denied (404, like an unknown one).
      writeFileSync(join(dirname(file), 'policy.yaml'), stringify({ access: { models: { 'gpt-mini-2': { allow_leaders: ['nobody'] } } } }));
      writeFileSync(file, readFileSync(file, 'utf8') + 'policy: ./policy.yaml\n');
      p.kill('SIGHUP');
      await p.waitFor('stderr', /reloaded — .*policy sha256:/);
      const denied = await client(url)
        .chat.completions.create({ model: 'gpt-mini-2', messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(OpenAI.NotFoundError);
      // An invalid edit: reported, nothing changes, the gateway keeps serving.
      writeFileSync(
        registryFile,
        stringify({
          ...registry,
          models: {
            ...(registry.models as object),
            broken: {
              brand: 'openai',
              entry_formats: ['openai_chat'],
              deployments: [{ id: 'b@x', provider: 'nowhere', format: 'openai_chat', upstream_model: 'x' }],
            },
          },
        }),
      );
      p.kill('SIGHUP');
      await p.waitFor('stderr', /reload refused — keeping registry/);
      expect(p.stderr()).toMatch(/registry\.yaml: models\.broken/);
      expect(await models()).toContain('gpt-mini');
      expect(await models()).not.toContain('broken');
      const still = await client(url).chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(still.choices[0]!.message.content).toBeTypeOf('string');
    } finally {
      p.kill('SIGKILL');
    }
  });

  it('swaps the identity section on SIGHUP: a key added works, a key removed is refused, a bad edit changes nothing', async () => {
    const { p, url, file } = await serve({ usage: 'stdout' });
    const bob = await keysFor({ user: 'bob', tier: 'normal' });
    const ask = (apiKey: string) =>
      new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
    const writeIdentity = (value: unknown) => {
      const config = readFileSync(file, 'utf8').split('\n');
      const start = config.findIndex((line) => line.startsWith('identity:'));
      const end = config.findIndex((line, i) => i > start && /^\S/.test(line));
      config.splice(start, (end === -1 ? config.length : end) - start, ...stringify({ identity: value }).trimEnd().split('\n'));
      writeFileSync(file, config.join('\n'));
    };
    try {
      expect(await ask(bob.keys.bob!).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
      writeIdentity(bob.identity);
      p.kill('SIGHUP');
      await p.waitFor('stderr', /reloaded — \d+ models, 1 key, 0 JWT issuer\(s\)/);
      const answer = await ask(bob.keys.bob!);
      expect(answer.choices[0]!.message.content).toBeTypeOf('string');
      await p.waitFor('stdout', /"bob"/);
      expect(jsonLines(p.stdout()).find((r) => (r.principal as { id?: string } | undefined)?.id === 'bob')).toMatchObject({ status: 'ok', model: 'gpt-mini' });
      // alice is no longer in the config: refused like an unknown key.
      expect(await ask(key).catch((e: unknown) => e)).toBeInstanceOf(OpenAI.AuthenticationError);
      // A malformed key hash: reported against the config file, bob's key keeps working.
      writeIdentity({ virtual_keys: [{ hash: 'sha256:nothex', principal: { user: 'eve' } }] });
      p.kill('SIGHUP');
      await p.waitFor('stderr', /reload refused — keeping registry/);
      expect(p.stderr()).toMatch(/tollgate\.yaml: identity\.virtual_keys\[0\]\.hash/);
      expect((await ask(bob.keys.bob!)).choices[0]!.message.content).toBeTypeOf('string');
    } finally {
      p.kill('SIGKILL');
    }
  });

  it('exits 1 when it cannot listen; --host and --port override the config', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await runCli(['serve', '--config', writeService({ listen: { host: '127.0.0.1', port } })], { env: SECRETS });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cannot start: .*EADDRINUSE/);
      // --host and --port override the config's listen (what the Docker image does with --host 0.0.0.0).
      const p = spawnTs([CLI, 'serve', '--config', writeService({ listen: { host: '127.0.0.1', port } }), '--host', '127.0.0.1', '--port', '0'], {
        env: SECRETS,
      });
      try {
        const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
        expect(url).not.toBe(`http://127.0.0.1:${port}`);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
      } finally {
        p.kill('SIGKILL');
      }
      const bad = await runCli(['serve', '--config', writeService({}), '--port', '99999']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--port must be a whole number from 0 to 65535/);
    } finally {
      blocker.close();
    }
  });
});

describe('tollgate serve with other stores and sinks', () => {
  it('appends usage to a file named relative to the config, flushed before exit', async () => {
    const { p, url, file } = await serve({ usage: 'file:./usage.jsonl' });
    try {
      const res = await client(url)
        .chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      p.kill('SIGTERM');
      expect((await p.exited).code).toBe(0);
      const records = jsonLines(readFileSync(join(dirname(file), 'usage.jsonl'), 'utf8'));
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ request_id: res.response.headers.get('x-tollgate-request-id'), status: 'ok' });
      expect(p.stdout()).toBe('');
    } finally {
      p.kill('SIGKILL');
    }
  });

  describe.skipIf(redis.skip || postgres.skip)('on Redis and Postgres', () => {
    beforeAll(() => {
      redis.assertUp();
      postgres.assertUp();
    });

    it('keeps state in Redis under its key prefix and writes one Postgres row per request, rejections included', async () => {
      const prefix = `tg-cli-${randomUUID().slice(0, 8)}:`;
      const { p, url } = await serve({ store: { url: redis.url, key_prefix: prefix, reservation_ttl_s: 60 }, usage: postgres.url });
      const ids: string[] = [];
      try {
        const ok = await client(url)
          .chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] })
          .withResponse();
        ids.push(ok.response.headers.get('x-tollgate-request-id')!);
        const missing = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }),
        });
        expect(missing.status).toBe(404);
        ids.push(missing.headers.get('x-tollgate-request-id')!);
        p.kill('SIGTERM');
        expect((await p.exited).code).toBe(0);
      } finally {
        p.kill('SIGKILL');
      }
      const r = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await r.connect();
        expect((await r.keys(`${prefix}*`)).length).toBeGreaterThan(0);
      } finally {
        r.disconnect();
      }
      const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
      try {
        const rows = await pool.query<{ request_id: string; status: string }>(
          `SELECT request_id, record->>'status' AS status FROM tollgate_usage WHERE request_id = ANY($1) ORDER BY ts`,
          [ids],
        );
        expect(rows.rows).toEqual([
          { request_id: ids[0], status: 'ok' },
          { request_id: ids[1], status: 'rejected' },
        ]);
      } finally {
        await pool.end();
      }
    });
  });
});
