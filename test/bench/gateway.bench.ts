/**
 * In-process overhead of the governed pipeline: `gateway.handle` (identity, policy, reservation,
 * translation, pricing, settlement, usage record) against an in-memory upstream, compared with
 * the codecs alone doing the same translation in the same run. The `Request` handed to the
 * gateway is the caller's and is built before the clock starts; req/s is over the timed calls.
 * And memory with 1,000 concurrent slow stream consumers.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { convertRequest, convertResponse, convertStream } from '../../packages/codecs/src/index.ts';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../packages/adapters-node/src/redis.ts';
import { createGateway, createMemoryStore, createVirtualKey, type StateStore } from '../../packages/core/src/index.ts';
import { HoldKeeper } from '../../packages/core/src/gateway/holds.ts';
import { testRegistry } from '../support/gateway-fixture.ts';
import { FIXTURES_DIR } from '../support/fixtures.ts';

const responseJson = readFileSync(`${FIXTURES_DIR}anthropic-messages/response-cache-read.json`, 'utf8');
const streamText = readFileSync(`${FIXTURES_DIR}anthropic-messages/stream-text-then-tool-use-input-json-delta.sse`, 'utf8');
const encoder = new TextEncoder();
const streamBytes = encoder.encode(streamText);

function upstreamResponse(stream: boolean): Response {
  if (!stream) return new Response(responseJson, { headers: { 'content-type': 'application/json' } });
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < streamBytes.length; i += 512) controller.enqueue(streamBytes.subarray(i, i + 512));
        controller.close();
      },
    }),
    { headers: { 'content-type': 'text/event-stream' } },
  );
}

const body = (stream: boolean) =>
  JSON.stringify({ model: 'claude-sonnet', max_tokens: 512, stream, messages: [{ role: 'user', content: 'What is the weather in Paris?' }] });

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/**
 * Times `fn` on what `prepare` made for it: the caller's own input (a `Request` to hand to the
 * gateway, say) is built before the clock starts, as it is not the gateway's work.
 */
async function measure<T>(
  prepare: () => T,
  fn: (input: T) => Promise<unknown>,
  n: number,
  warm = false,
): Promise<{ perSec: number; p50: number; p99: number }> {
  // JIT warm-up: the first thousands of requests run cold code (once, before the first round).
  if (!warm) for (let i = 0; i < 4000; i++) await fn(prepare());
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const input = prepare();
    const t = performance.now();
    await fn(input);
    const took = performance.now() - t;
    total += took;
    times.push(took * 1000);
  }
  return { perSec: n / (total / 1000), p50: percentile(times, 50), p99: percentile(times, 99) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { key, hash } = await createVirtualKey();
  let records = 0;
  const gateway = createGateway({
    registry: testRegistry('http://upstream.invalid'),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
    policy: {
      spend: {
        rules: [{ id: 'monthly', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000000' }, actions: [{ type: 'block' }] }] }],
      },
      // A token limit too: every call reserves its worst case and is reconciled at settle.
      rate_limits: [{ id: 'rpm', rpm: 100_000_000, tpm: 1_000_000_000_000 }],
    },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-bench', OPENAI_API_KEY: 'sk-bench' },
    fetch: async (_input, init) =>
      upstreamResponse(JSON.parse(typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as Uint8Array)).stream === true),
    usage: () => void records++,
  });
  const request = (stream: boolean) =>
    new Request('http://gw/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body(stream),
    });

  const viaGateway = async (req: Request) => {
    const res = await gateway.handle(req);
    await res.arrayBuffer();
  };
  const codecsAlone = async (stream: boolean) => {
    const parsed: unknown = JSON.parse(body(stream));
    const converted = convertRequest(parsed, 'openai_chat', 'anthropic_messages', { model: 'claude-sonnet-4-5' });
    JSON.stringify(converted.body);
    const upstream = upstreamResponse(stream);
    if (stream) await new Response(convertStream(upstream.body!, 'anthropic_messages', 'openai_chat', { model: 'claude-sonnet' })).arrayBuffer();
    else JSON.stringify(convertResponse(JSON.parse(await upstream.text()), 'anthropic_messages', 'openai_chat', { model: 'claude-sonnet' }).body);
  };

  const lines: string[] = [];
  for (const stream of [false, true]) {
    // Alternating rounds, so drift (GC, JIT, other processes) falls on both alike: the added
    // p50 is the median over rounds of (gateway p50 − codecs p50) in the same round.
    const rounds = 7;
    const n = 500;
    const warmBase = () => codecsAlone(stream);
    await measure(() => null, warmBase, 0);
    await measure(() => request(stream), viaGateway, 0);
    const added50: number[] = [];
    const added99: number[] = [];
    let baseTotal = 0;
    let gwTotal = 0;
    for (let round = 0; round < rounds; round++) {
      const base = await measure(() => null, warmBase, n, true);
      const gw = await measure(() => request(stream), viaGateway, n, true);
      added50.push(gw.p50 - base.p50);
      added99.push(gw.p99 - base.p99);
      baseTotal += n / base.perSec;
      gwTotal += n / gw.perSec;
    }
    const basePerSec = (rounds * n) / baseTotal;
    const gwPerSec = (rounds * n) / gwTotal;
    const label = stream ? 'stream' : 'non-stream';
    lines.push(
      `${label}, OpenAI Chat → Anthropic, governed (virtual key, spend cap reservation, request and token rate limits reconciled at settle, hold tracked for renewal, pricing, record; \`gateway.handle\` on a \`Request\` built before the clock starts): ` +
        `${Math.round(gwPerSec).toLocaleString('en-US')} req/s vs codecs alone ${Math.round(basePerSec).toLocaleString('en-US')} req/s (${(gwPerSec / basePerSec).toFixed(2)}×); ` +
        `added p50 ${median(added50).toFixed(0)} µs (target ≤ 100 µs; median of ${rounds} alternating rounds of ${n}, rounds ${Math.min(...added50).toFixed(0)}–${Math.max(...added50).toFixed(0)} µs), added p99 ${median(added99).toFixed(0)} µs`,
    );
  }

  // 1,000 concurrent slow consumers: each reads one chunk and stops reading; the upstream
  // offers an endless stream. Backpressure must keep memory bounded.
  const slowGateway = createGateway({
    registry: testRegistry('http://upstream.invalid'),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-bench', OPENAI_API_KEY: 'sk-bench' },
    fetch: async () => {
      const head = encoder.encode(streamText.slice(0, streamText.indexOf('event: content_block_delta')));
      const delta = encoder.encode(
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(200) } })}\n\n`,
      );
      let sent = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(sent++ === 0 ? head : delta);
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    },
  });
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  const readers: Array<ReadableStreamDefaultReader<Uint8Array>> = [];
  for (let i = 0; i < 1000; i++) {
    const res = await slowGateway.handle(request(true));
    const reader = res.body!.getReader();
    await reader.read();
    readers.push(reader);
  }
  await new Promise((r) => setTimeout(r, 500));
  (globalThis as { gc?: () => void }).gc?.();
  const during = process.memoryUsage().rss;
  await new Promise((r) => setTimeout(r, 1000));
  const later = process.memoryUsage().rss;
  for (const r of readers) await r.cancel();
  await slowGateway.close({ drainMs: 1000 });
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  lines.push(
    `1,000 concurrent slow consumers of endless upstream streams: RSS +${mb(during - before)} MB after they stalled, ` +
      `+${mb(later - during)} MB more one second later (bounded: ≈ ${((during - before) / 1000 / 1024).toFixed(0)} KiB per open stream, not growing)`,
  );
  await gateway.close();
  lines.push(`usage records written during the run: ${records.toLocaleString('en-US')}`);
  lines.push(...(await renewalCost()));
  lines.push(...(await redisRoundTrips(key, hash)));
  return { name: 'gateway: in-process overhead', lines };
}

/**
 * What keeping holds alive costs: one pass of the gateway's renewal timer over 1,000 live holds
 * on the memory store (and on Redis when one answers). A hold is renewed once per TTL/4; a
 * request shorter than that is never renewed (its cost per request is tracking it: two Map
 * operations, inside the figures above).
 */
async function renewalCost(): Promise<string[]> {
  const lines: string[] = [];
  const stores: Array<[string, StateStore, () => Promise<void>]> = [['memory store', createMemoryStore({ sweepIntervalMs: 0 }), async () => {}]];
  if (await redisUp()) {
    const prefix = `tgbench-gw${process.pid}:`;
    const store = createRedisStore({ keyPrefix: prefix, sweepIntervalMs: 0 });
    stores.push(['Redis (127.0.0.1)', store, () => deletePrefix(prefix)]);
  }
  for (const [name, store, cleanup] of stores) {
    let t = 0;
    const keeper = new HoldKeeper(
      store,
      300_000,
      {},
      () => {},
      () => t,
    );
    const n = 1000;
    const constraints = [{ key: 'spend:bench', limit: Number.MAX_SAFE_INTEGER, counters: ['c:bench'] }];
    await Promise.all(Array.from({ length: n }, (_, i) => store.reserve({ id: `hold-${i}`, amount: 1, ttlMs: 300_000, constraints })));
    for (let i = 0; i < n; i++) keeper.track(`hold-${i}`);
    const passes: number[] = [];
    for (let round = 0; round < 5; round++) {
      t += 75_000;
      const started = performance.now();
      await keeper.renewDue();
      passes.push(performance.now() - started);
    }
    const ms = percentile(passes, 50);
    lines.push(
      `renewal, ${name}: one pass over ${n.toLocaleString('en-US')} live holds ${ms.toFixed(1)} ms median of 5 (${((ms * 1000) / n).toFixed(1)} µs per hold; each live hold is renewed once per TTL/4, 75 s at the default 5 min TTL)`,
    );
    await keeper.drain(t);
    await store.close();
    await cleanup();
  }
  return lines;
}

/** Store round trips per request on Redis, counted at the client: the common path, and a call that outlives a renewal period. */
async function redisRoundTrips(key: string, hash: string): Promise<string[]> {
  if (!(await redisUp())) return ['Redis round trips per request: not measured (no Redis on 127.0.0.1:6379)'];
  const prefix = `tgbench-rt${process.pid}:`;
  const client = new Redis('redis://127.0.0.1:6379', { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  let commands = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
    commands++;
    return send(command, stream);
  };
  const store = createRedisStore({ client, keyPrefix: prefix, sweepIntervalMs: 0 });
  const ttl = 400;
  let hold: Promise<void> | null = null;
  const gateway = createGateway({
    registry: testRegistry('http://upstream.invalid'),
    identity: { virtual_keys: [{ hash, principal: { user: 'alice', tier: 'normal' } }] },
    policy: {
      spend: {
        rules: [{ id: 'monthly', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000000' }, actions: [{ type: 'block' }] }] }],
      },
      rate_limits: [{ id: 'rpm', rpm: 100_000_000, tpm: 1_000_000_000_000 }],
    },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant-bench', OPENAI_API_KEY: 'sk-bench' },
    store,
    reservationTtlMs: ttl,
    fetch: async (_input, init) => {
      if (hold !== null) await hold;
      return upstreamResponse(JSON.parse(typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as Uint8Array)).stream === true);
    },
  });
  const call = async (stream: boolean) => {
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body(stream),
      }),
    );
    await res.arrayBuffer();
  };
  await call(false); // scripts loaded, connection up
  const n = 500;
  commands = 0;
  for (let i = 0; i < n; i++) await call(i % 2 === 1);
  const common = commands / n;
  // A call whose upstream takes 2.5 TTLs: its hold is renewed meanwhile.
  commands = 0;
  hold = new Promise<void>((resolve) => setTimeout(resolve, ttl * 2.5));
  await call(false);
  hold = null;
  const held = commands;
  await gateway.close();
  await store.close();
  await client.quit();
  await deletePrefix(prefix);
  return [
    `Redis round trips per request, in-process, spend cap + request and token limits (commands sent by the client over ${n} requests, half streamed): ${common.toFixed(2)} (admit, then settle with the token reconciliation); a call held 2.5 × the reservation TTL upstream: ${held} (the same two, plus one renewal per TTL/4 while it waits)`,
  ];
}

async function redisUp(): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(6379, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function deletePrefix(prefix: string): Promise<void> {
  const admin = new Redis('redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, found] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) await admin.del(...found);
  } while (cursor !== '0');
  await admin.quit();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(`- ${line}`);
}
