/**
 * `tollgate serve` as a real process, issue 23: the service config's `upstream:` bounds and
 * trust applied to real upstream calls (a scripted hostile upstream), their validation, and
 * `--workers N` (one listener, one shared store, every worker drained on SIGTERM).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PRIVATE_CA, startHostileUpstream, type HostileUpstream } from '../packages/adapters-node/src/__tests__/hostile-upstream.js';
import { startSlowUpstream, type SlowUpstream } from '../packages/adapters-node/src/__tests__/slow-upstream.js';
import type { ServiceConfig } from '../packages/adapters-node/src/cli/config.js';
import { workerShare } from '../packages/adapters-node/src/cli/workers.js';
import { keysFor } from './support/gateway-fixture.js';
import { CLI, jsonLines, runCli, spawnTs, type Spawned } from './cli-support.js';

let hostile: HostileUpstream;
let slow: SlowUpstream;
let key: string;
let identity: unknown;
const ENV = { ANTHROPIC_API_KEY: 'sk-ant-hostile', OPENAI_API_KEY: 'sk-openai-slow' };

function registry() {
  const anthropic = (scenario: string, base = hostile.url) => ({
    base_url: `${base}/${scenario}`,
    credential: 'anthropic',
    headers: { 'anthropic-version': '2023-06-01' },
  });
  const model = (provider: string, format = 'anthropic_messages') => ({
    brand: format === 'openai_chat' ? 'openai' : 'anthropic',
    entry_formats: ['openai_chat'],
    capabilities: { max_output_tokens: 1000 },
    deployments: [{ id: `${provider}@x`, provider, format, upstream_model: 'm', pricing: { unit: 'usd_per_mtok', input: '1', output: '1' } }],
  });
  const providers: Record<string, unknown> = {
    ok: anthropic('ok'),
    drip: anthropic('header-drip'),
    midway: anthropic('stops-midway'),
    tls: anthropic('ok', hostile.tlsUrl),
    long: { base_url: `${slow.url}/long`, credential: 'openai' },
  };
  return {
    wire_formats: { openai_chat: { family: 'chat' }, anthropic_messages: { family: 'chat' } },
    entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
    converters: [{ from: 'openai_chat', to: 'anthropic_messages' }],
    credentials: { anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' }, openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
    providers,
    operations: Object.keys(providers).map((provider) => ({
      provider,
      format: provider === 'long' ? 'openai_chat' : 'anthropic_messages',
      family: 'chat',
      path: provider === 'long' ? '/v1/chat/completions' : '/v1/messages',
    })),
    models: { ok: model('ok'), drip: model('drip'), midway: model('midway'), tls: model('tls'), long: model('long', 'openai_chat') },
  };
}

function writeService(config: Record<string, unknown>, policy?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-upstream-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(registry()));
  writeFileSync(join(dir, 'ca.pem'), PRIVATE_CA);
  if (policy !== undefined) writeFileSync(join(dir, 'policy.yaml'), stringify(policy));
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({
      listen: { host: '127.0.0.1', port: 0 },
      registry: './registry.yaml',
      ...(policy === undefined ? {} : { policy: './policy.yaml' }),
      identity,
      usage: 'stdout',
      ...config,
    }),
  );
  return join(dir, 'tollgate.yaml');
}

async function serve(config: Record<string, unknown>, args: string[] = [], policy?: unknown): Promise<{ p: Spawned; url: string }> {
  const p = spawnTs([CLI, 'serve', '--config', writeService(config, policy), ...args], { env: ENV });
  const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
  return { p, url: url! };
}

const client = (url: string) => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
const ask = (url: string, model: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });

beforeAll(async () => {
  hostile = await startHostileUpstream({ dripMs: 25 });
  slow = await startSlowUpstream({ tickMs: 40, ticks: 25 });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  key = ids.keys.alice!;
  identity = ids.identity;
});

afterAll(async () => {
  await hostile?.close();
  await slow?.close();
});

describe('tollgate serve: the upstream section', () => {
  it('refuses bad upstream bounds and an unreadable ca_file, every violation listed (exit 1)', async () => {
    const file = writeService({
      upstream: { connect_timeout_s: 0, headers_timeout_s: 'soon', idle_timeout_s: -1, http2: 'yes', ca_file: './missing.pem', surprise: 1 },
    });
    const r = await runCli(['validate', '--config', file], { env: ENV });
    expect(r.code).toBe(1);
    for (const path of ['upstream.connect_timeout_s', 'upstream.headers_timeout_s', 'upstream.idle_timeout_s', 'upstream.http2', 'upstream.surprise'])
      expect(r.stderr).toContain(`${path}:`);
    const good = writeService({
      upstream: {
        connect_timeout_s: 2,
        headers_timeout_s: 30,
        idle_timeout_s: 30,
        attempt_timeout_s: 600,
        max_connections_per_origin: 16,
        http2: true,
        ca_file: './ca.pem',
      },
    });
    expect((await runCli(['validate', '--config', good], { env: ENV })).code).toBe(0);
    const missing = writeService({ upstream: { ca_file: './missing.pem' } });
    const m = await runCli(['validate', '--config', missing], { env: ENV });
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/upstream\.ca_file: .*missing\.pem: file not found/);
  });

  it('applies the head and idle bounds (504 upstream_timeout; the in-stream timeout error) and trusts ca_file', async () => {
    const { p, url } = await serve({ upstream: { headers_timeout_s: 0.3, idle_timeout_s: 0.3, ca_file: './ca.pem' } });
    try {
      let started = performance.now();
      const drip = await ask(url, 'drip');
      await drip.text();
      expect(drip.status).toBe(504);
      expect(performance.now() - started).toBeLessThan(2500);
      started = performance.now();
      const midway = await ask(url, 'midway');
      expect(midway.status).toBe(200);
      expect(await midway.text()).toMatch(/"code":"timeout"/);
      expect(performance.now() - started).toBeLessThan(2500);
      const tls = await ask(url, 'tls');
      expect(tls.status).toBe(200);
      expect(await tls.text()).toContain('[DONE]');
      await p.waitFor('stdout', /"model":"tls"/, 5000);
      const records = jsonLines(p.stdout());
      expect(records.find((r) => r.model === 'drip')).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504 });
      expect(records.find((r) => r.model === 'midway')).toMatchObject({ status: 'upstream_error', reason: 'stream_upstream_timeout' });
      expect(records.find((r) => r.model === 'tls')).toMatchObject({ status: 'ok' });
    } finally {
      p.kill('SIGKILL');
    }
  });
});

describe('tollgate serve --workers N', () => {
  it('refuses a worker count that is not a whole number from 1 (exit 2)', async () => {
    const file = writeService({});
    for (const n of ['0', 'two', '1.5']) {
      const r = await runCli(['serve', '--config', file, '--workers', n], { env: ENV });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--workers must be a whole number/);
    }
  });

  it('shares upstream.max_connections_per_origin out among the workers, and refuses fewer connections than workers', async () => {
    const file = writeService({ upstream: { max_connections_per_origin: 2 } });
    const r = await runCli(['serve', '--config', file, '--workers', '3'], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('refusing to start — --workers 3 with upstream.max_connections_per_origin 2');
    const config = { upstream: { max_connections_per_origin: 5 } } as unknown as ServiceConfig;
    expect(workerShare(config, 2).upstream.max_connections_per_origin).toBe(2);
    expect(workerShare(config, 1)).toBe(config);
    expect(workerShare({ upstream: {} } as unknown as ServiceConfig, 4).upstream.max_connections_per_origin).toBeUndefined();
  });

  it('shares one listener and one memory store: a rate limit holds across workers; SIGTERM drains every worker', async () => {
    const policy = { rate_limits: [{ id: 'three-a-minute', match: { users: ['alice'] }, rpm: 3 }] };
    const { p, url } = await serve({ drain_timeout_s: 20 }, ['--workers', '2'], policy);
    try {
      expect(p.stderr()).toMatch(/— 2 workers,/);
      // Connections alternate between the workers; the limit is one, wherever a request lands.
      // The limit counts per calendar minute: six requests that straddle a minute's end would
      // see two windows (five 200s), so start them with at least 20 s of the minute left.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify({ model: 'ok', messages: [{ role: 'user', content: 'hi' }] }),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    } finally {
      p.kill('SIGKILL');
    }
    // Two long streams open (one per worker, on separate connections) when SIGTERM comes: both finish.
    const { p: q, url: url2 } = await serve({ drain_timeout_s: 20 }, ['--workers', '2']);
    try {
      const streams = await Promise.all(
        [0, 1].map(() => client(url2).chat.completions.create({ model: 'long', messages: [{ role: 'user', content: 'count' }], stream: true })),
      );
      const texts = ['', ''];
      let signalled = false;
      await Promise.all(
        streams.map(async (stream, i) => {
          for await (const chunk of stream) {
            texts[i] += chunk.choices[0]?.delta.content ?? '';
            if (!signalled && texts.every((t) => t.includes('tick1 '))) {
              signalled = true;
              q.kill('SIGTERM');
            }
          }
        }),
      );
      expect(signalled).toBe(true);
      for (const t of texts) expect(t).toContain('tick24 ');
      const { code } = await q.exited;
      expect(code).toBe(0);
      expect(q.stderr()).toMatch(/tollgate: stopped — 2 requests, 2 usage records written, 0 lost \(2 workers\)/);
      const records = jsonLines(q.stdout()).filter((r) => r.model === 'long');
      expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
    } finally {
      q.kill('SIGKILL');
    }
  }, 90_000);
});
