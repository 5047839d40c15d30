/**
 * The transport's time and memory bounds against a scripted hostile upstream, through the
 * whole gateway and a real server: every scenario ends within its deadline, with the status and
 * usage record a client and an SRE expect, and leaves no socket or timer behind (counted with
 * async_hooks: every Timeout and socket created while a scenario ran must be gone after it).
 */
import { createHook } from 'node:async_hooks';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, createVirtualKey, type Gateway, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { PRIVATE_CA, startHostileUpstream, type HostileUpstream } from '../__tests__/hostile-upstream.js';
import { toNodeListener } from './listener.js';
import { createNodeUpstream, type NodeUpstream } from './upstream.js';

const HEADERS_MS = 800;
const IDLE_MS = 1000;
/** What a scenario may take beyond its deadline (a loaded 2-core machine). */
const SLACK_MS = 3000;

const SCENARIOS = ['ok', 'header-drip', 'endless-100', 'endless-103', 'trailers-forever', 'one-byte-chunks', 'stops-midway', 'reset-after-headers', 'flood'];

/**
 * Resources that must not outlive a scenario: timers and sockets (a TLS socket's TCP handle;
 * its TLSWRAP is only freed by the garbage collector, whatever happened to the connection).
 */
const TRACKED = new Set(['Timeout', 'TCPWRAP', 'TCPCONNECTWRAP']);
const live = new Map<number, { type: string; stack: string }>();
let tracking = false;
const hook = createHook({
  init(id, type) {
    if (tracking && TRACKED.has(type)) live.set(id, { type, stack: new Error().stack ?? '' });
  },
  destroy(id) {
    live.delete(id);
  },
});

/** Run `scenario` with resource tracking on; then wait until what it created is gone, and say what is left. */
async function leftBehind<T>(scenario: () => Promise<T>): Promise<{ result: T; left: string[] }> {
  live.clear();
  tracking = true;
  let result: T;
  try {
    result = await scenario();
  } finally {
    tracking = false;
  }
  const until = Date.now() + 3000;
  while (live.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return { result, left: [...live.values()].map((r) => `${r.type} ${r.stack.split('\n').slice(2, 6).join(' | ')}`) };
}

function model(id: string, deployments: Array<{ scenario: string; secure?: boolean; priority?: number }>) {
  return {
    brand: 'anthropic',
    entry_formats: ['openai_chat', 'anthropic_messages'],
    capabilities: { max_output_tokens: 1000 },
    deployments: deployments.map((d, i) => ({
      id: `${id}+${i}@${d.scenario}${d.secure === true ? '-tls' : ''}`,
      provider: `${d.scenario}${d.secure === true ? '-tls' : ''}`,
      format: 'anthropic_messages',
      upstream_model: 'claude-sonnet-4-5',
      priority: d.priority ?? 1,
      pricing: { unit: 'usd_per_mtok', input: '3', output: '15' },
    })),
  };
}

function registry(upstream: HostileUpstream) {
  const providers: Record<string, unknown> = {};
  const operations: unknown[] = [];
  for (const scenario of SCENARIOS) {
    for (const [suffix, base] of [
      ['', upstream.url],
      ['-tls', upstream.tlsUrl],
    ] as const) {
      providers[`${scenario}${suffix}`] = { base_url: `${base}/${scenario}`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } };
      operations.push({ provider: `${scenario}${suffix}`, format: 'anthropic_messages', family: 'chat', path: '/v1/messages' });
    }
  }
  return {
    wire_formats: { openai_chat: { family: 'chat' }, anthropic_messages: { family: 'chat' } },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
    ],
    converters: [{ from: 'openai_chat', to: 'anthropic_messages' }],
    credentials: { anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' } },
    providers,
    operations,
    models: {
      ...Object.fromEntries(SCENARIOS.map((s) => [`h-${s}`, model(`h-${s}`, [{ scenario: s }])])),
      'h-tls': model('h-tls', [{ scenario: 'ok', secure: true }]),
      // A head that never comes from the first, a good answer from the second.
      'h-failover': model('h-failover', [
        { scenario: 'header-drip', priority: 1 },
        { scenario: 'ok', priority: 2 },
      ]),
    },
  };
}

interface Answer {
  status: number;
  body: string;
  ms: number;
  requestId: string | null;
}

/** One client call on its own connection (closed after the answer), timed to the last byte. */
function ask(url: string, key: string, model: string, stream: boolean): Promise<Answer> {
  const body = JSON.stringify({ model, stream, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello.' }] });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/chat/completions`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, connection: 'close' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            ms: performance.now() - started,
            requestId: (res.headers['x-tollgate-request-id'] as string | undefined) ?? null,
          });
        res.on('end', done);
        res.on('aborted', done);
        res.on('error', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.each(['builtin', 'undici'] as const)('a hostile upstream, through the gateway on createNodeUpstream (client: %s)', (client) => {
  let upstream: HostileUpstream;
  let transport: NodeUpstream;
  let untrusting: NodeUpstream;
  let gateway: Gateway;
  let untrustingGateway: Gateway;
  let server: Server;
  let untrustingServer: Server;
  let url: string;
  let untrustingUrl: string;
  let key: string;
  const records: UsageRecord[] = [];

  const recordOf = async (answer: Answer): Promise<UsageRecord> => {
    const until = Date.now() + 2000;
    for (;;) {
      const found = records.find((r) => r.request_id === answer.requestId);
      if (found !== undefined) return found;
      if (Date.now() > until) throw new Error(`no usage record for ${answer.requestId}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  beforeAll(async () => {
    hook.enable();
    upstream = await startHostileUpstream({ dripMs: 25 });
    const created = await createVirtualKey();
    key = created.key;
    // Idle connections go soon, so that what is left after a scenario is what it leaked (undici
    // may open a spare connection after an aborted call: it goes when its keep-alive time is up).
    const bounds = { connectTimeoutMs: 500, headersTimeoutMs: HEADERS_MS, bodyIdleTimeoutMs: IDLE_MS, attemptTimeoutMs: 5000, keepAliveTimeoutMs: 300 };
    transport = createNodeUpstream({ ...bounds, ca: PRIVATE_CA, proxy: 'none', client });
    untrusting = createNodeUpstream({ ...bounds, proxy: 'none', client });
    const options = {
      // Built from loose data; the gateway checks it when it loads it.
      registry: registry(upstream) as unknown as RegistryFileInput,
      identity: { virtual_keys: [{ hash: created.hash, principal: { user: 'sre', tier: 'normal' } }] },
      secrets: { ANTHROPIC_API_KEY: 'sk-ant-hostile' },
      usage: (r: UsageRecord) => void records.push(r),
    };
    gateway = createGateway({ ...options, fetch: transport });
    untrustingGateway = createGateway({ ...options, fetch: untrusting });
    const listen = async (g: Gateway) => {
      const s = createServer(toNodeListener(g, { stallTimeoutMs: IDLE_MS }));
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      return { s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
    };
    ({ s: server, url } = await listen(gateway));
    ({ s: untrustingServer, url: untrustingUrl } = await listen(untrustingGateway));
  });

  afterAll(async () => {
    hook.disable();
    for (const s of [server, untrustingServer]) {
      s?.closeAllConnections();
      await new Promise<void>((r) => (s === undefined ? r() : s.close(() => r())));
    }
    await gateway?.close({ drainMs: 500 });
    await untrustingGateway?.close({ drainMs: 500 });
    await transport?.close();
    await untrusting?.close();
    await upstream?.close();
  });

  it('a well-formed upstream streams and answers whole (the baseline), and leaves nothing behind', async () => {
    const { result, left } = await leftBehind(async () => [await ask(url, key, 'h-ok', true), await ask(url, key, 'h-ok', false)]);
    expect(result[0]!.status).toBe(200);
    expect(result[0]!.body).toContain('Hello');
    expect(result[0]!.body).toContain('[DONE]');
    expect(result[1]!.status).toBe(200);
    expect(JSON.parse(result[1]!.body).choices[0].message.content).toBe('Hello world');
    expect((await recordOf(result[0]!)).status).toBe('ok');
    expect(left).toEqual([]);
  });

  for (const stream of [true, false]) {
    const mode = stream ? 'stream' : 'whole';
    it(`header drip (${mode}): 504 upstream_timeout at the head deadline, however the bytes trickle`, async () => {
      const { result, left } = await leftBehind(() => ask(url, key, 'h-header-drip', stream));
      expect(result.status).toBe(504);
      expect(result.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(result.ms).toBeLessThan(HEADERS_MS + SLACK_MS);
      // OpenAI's own code for it, in OpenAI's error shape.
      expect(JSON.parse(result.body).error.code).toBe('timeout');
      expect(await recordOf(result)).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504, attempts: 1 });
      expect(left).toEqual([]);
    });
  }

  it('endless 103 Early Hints: interim heads do not extend the head deadline (504)', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-endless-103', true));
    expect(result.status).toBe(504);
    expect(result.ms).toBeLessThan(HEADERS_MS + SLACK_MS);
    expect(await recordOf(result)).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504 });
    expect(left).toEqual([]);
  });

  it('endless 100 Continue (never asked for): skipped until the head deadline (504); undici refuses it at once (502)', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-endless-100', true));
    expect(result.ms).toBeLessThan(HEADERS_MS + SLACK_MS);
    if (client === 'builtin') {
      expect(result.status).toBe(504);
      expect(await recordOf(result)).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504 });
    } else {
      expect(result.status).toBe(502);
      expect(await recordOf(result)).toMatchObject({ status: 'upstream_error', reason: 'upstream:upstream_error', http_status: 502 });
    }
    expect(left).toEqual([]);
  });

  it('a head that never comes fails over to the next deployment within the deadline', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-failover', true));
    expect(result.status).toBe(200);
    expect(result.body).toContain('[DONE]');
    expect(result.ms).toBeLessThan(HEADERS_MS + SLACK_MS);
    expect(await recordOf(result)).toMatchObject({ status: 'ok', attempts: 2, deployment: 'h-failover+1@ok' });
    expect(left).toEqual([]);
  });

  it('trailers forever: the whole stream is relayed and ends at its last event; the upstream is let go', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-trailers-forever', true));
    expect(result.status).toBe(200);
    expect(result.body).toContain('Hello');
    expect(result.body).toContain('[DONE]');
    expect(result.body).not.toContain('error');
    expect(result.ms).toBeLessThan(IDLE_MS);
    expect(await recordOf(result)).toMatchObject({ status: 'ok', usage: { input: 12, output: 5, measured: true } });
    expect(left).toEqual([]);
  });

  for (const stream of [true, false]) {
    it(`1-byte chunks (${stream ? 'stream' : 'whole'}): the answer arrives whole and right`, async () => {
      const { result, left } = await leftBehind(() => ask(url, key, 'h-one-byte-chunks', stream));
      expect(result.status).toBe(200);
      if (stream) expect([...result.body.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('')).toBe('Hello world');
      else expect(JSON.parse(result.body).choices[0].message.content).toBe('Hello world');
      expect(await recordOf(result)).toMatchObject({ status: 'ok', usage: { output: 5, measured: true } });
      expect(left).toEqual([]);
    });
  }

  it('a stream that stops mid-way: the format’s in-stream error at the idle bound; usage estimated from what was relayed', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-stops-midway', true));
    expect(result.status).toBe(200);
    expect(result.body).toContain('Hello');
    expect(result.body).toMatch(/"code":"timeout"/);
    expect(result.ms).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(result.ms).toBeLessThan(IDLE_MS + SLACK_MS);
    const record = await recordOf(result);
    expect(record).toMatchObject({ status: 'upstream_error', reason: 'stream_upstream_timeout', http_status: 200 });
    expect(record.usage?.measured).toBe(false);
    expect(record.usage?.output).toBeGreaterThan(0);
    expect(left).toEqual([]);
  });

  it('a whole answer whose body stops mid-way: 504 upstream_timeout at the idle bound', async () => {
    const { result, left } = await leftBehind(() => ask(url, key, 'h-stops-midway', false));
    expect(result.status).toBe(504);
    expect(result.ms).toBeLessThan(IDLE_MS + SLACK_MS);
    expect(JSON.parse(result.body).error.code).toBe('timeout');
    expect(await recordOf(result)).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504 });
    expect(left).toEqual([]);
  });

  it('a reset after the head: the in-stream error of a failed connection (stream), 502 (whole)', async () => {
    const { result, left } = await leftBehind(async () => [
      await ask(url, key, 'h-reset-after-headers', true),
      await ask(url, key, 'h-reset-after-headers', false),
    ]);
    const [streamed, whole] = result;
    expect(streamed!.status).toBe(200);
    expect(streamed!.body).toContain('The upstream connection failed mid-stream.');
    expect(await recordOf(streamed!)).toMatchObject({ status: 'upstream_error', reason: 'stream_upstream_error', http_status: 200 });
    expect(whole!.status).toBe(502);
    expect(await recordOf(whole!)).toMatchObject({ status: 'upstream_error', reason: 'upstream_bad_response', http_status: 502 });
    for (const answer of result) expect(answer.ms).toBeLessThan(SLACK_MS);
    expect(left).toEqual([]);
  });

  it('TLS with a private CA: trusted when given as `ca`, refused as a connection failure (502) when not', async () => {
    const trusted = await leftBehind(() => ask(url, key, 'h-tls', true));
    expect(trusted.result.status).toBe(200);
    expect(trusted.result.body).toContain('[DONE]');
    expect(trusted.left).toEqual([]);
    const refused = await leftBehind(() => ask(untrustingUrl, key, 'h-tls', true));
    expect(refused.result.status).toBe(502);
    expect(await recordOf(refused.result)).toMatchObject({ status: 'upstream_error', reason: 'upstream:upstream_error' });
    expect(refused.left).toEqual([]);
  });

  it('a client that stops reading a stream is cut after the idle bound: the upstream is cancelled, the usage settled from what was relayed', async () => {
    const { result, left } = await leftBehind(async () => {
      const started = performance.now();
      const body = JSON.stringify({ model: 'h-flood', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello.' }] });
      const { req, requestId } = await new Promise<{ req: ReturnType<typeof httpRequest>; requestId: string | null }>((resolve, reject) => {
        const req = httpRequest(
          `${url}/v1/chat/completions`,
          { method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } },
          (res) => {
            // Read nothing from here on: the gateway's writes back up, and the stall bound runs.
            res.pause();
            resolve({ req, requestId: (res.headers['x-tollgate-request-id'] as string | undefined) ?? null });
          },
        );
        req.on('error', () => {});
        req.once('error', reject);
        req.end(body);
      });
      // A paused client cannot see its connection go: the gateway's record and the upstream tell.
      const record = await recordOf({ status: 200, body: '', ms: 0, requestId }).finally(() => req.destroy());
      return { record, ms: performance.now() - started };
    });
    expect(result.record).toMatchObject({ status: 'cancelled', reason: 'client_stalled', http_status: 200 });
    expect(result.record.usage?.measured).toBe(false);
    expect(result.record.usage?.output).toBeGreaterThan(0);
    expect(result.ms).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect(result.ms).toBeLessThan(IDLE_MS + SLACK_MS);
    expect(left).toEqual([]);
  });

  it('leaves no connection open at the upstream', async () => {
    const until = Date.now() + 3000;
    while (upstream.open() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(upstream.open()).toBe(0);
  });
});
