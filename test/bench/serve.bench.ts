/**
 * Comparative load benchmark of `tollgate serve` (issue 9; issue 7's serve benchmark): one mock
 * Anthropic upstream in its own process, reached four ways, all doing OpenAI Chat → Anthropic
 * except the floor:
 *
 * - direct: the client sends the Anthropic request to the upstream itself (the floor);
 * - raw byte pipe (one connection only): node:http passing the same Anthropic request's bytes
 *   through unchanged — what one more process and two more hops cost on this machine;
 * - bare proxy: node:http + fetch translating with `@tollgate/codecs` only (no governance);
 * - Portkey: `@portkey-ai/gateway` from the npm registry, `x-portkey-provider: anthropic` and
 *   `x-portkey-custom-host` pointing at the mock upstream;
 * - tollgate serve: the CLI with governance on (virtual key, a policy with a spend cap and a
 *   rate limit, usage to a JSON-lines file), memory store; and, when a Redis answers on
 *   127.0.0.1:6379, the same with the Redis store (round trips to Redis counted per request).
 *
 * Closed-loop load at 1 and 32 connections against a zero-latency and a 20 ms upstream;
 * non-stream and streamed. Every process listens on 127.0.0.1 and cannot connect elsewhere.
 *
 * Environment: SERVE_BENCH_SECONDS (measured seconds per case and peer, default 1.5; at one
 * connection each peer runs at least long enough for SERVE_BENCH_LOW_LOAD_ANSWERS answers,
 * default 450, so a p50 at 20 ms per answer rests on hundreds of answers, not seventy),
 * SERVE_BENCH_REDIS=0 (skip the Redis-backed tollgate), SERVE_BENCH_PROFILE=<dir> (run
 * tollgate serve with --cpu-prof into that folder), SERVE_BENCH_DELAYS (default "0,20"),
 * SERVE_BENCH_ROUNDS (default 3), SERVE_BENCH_SKIP=portkey,proxy,pipe,tollgate-redis (peers to
 * leave out), SERVE_BENCH_MODES=stream and SERVE_BENCH_CONNS=8 (only those cases: the other
 * targets then read n/a; SERVE_BENCH_WARMUP=5 warms each peer up five times as long, as the
 * cases left out would have; SERVE_BENCH_WARMUP_ANSWERS=10000 goes on warming up until each peer
 * answered that many in each mode), SERVE_BENCH_TRANSPORTS=undici,undici-request,fetch (tollgate serve
 * again on each of these upstream transports, test/bench/serve/tollgate-transport.ts).
 */
import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { connect } from 'node:net';
import { pathToFileURL } from 'node:url';
import { closedLoop, pool, probe, type LoadResult, type Shot } from './serve/load.ts';
import {
  machineBusyMs,
  portkeyInstall,
  startPortkey,
  startPipe,
  startProxy,
  startTollgate,
  startTollgateTransport,
  startUpstream,
  UPSTREAM_KEY,
  usageLines,
  writeTollgateSetup,
  FROM_SOURCE,
  type Service,
  type TollgateSetup,
} from './serve/targets.ts';

/** The fixed peers, and `transport:<name>` for tollgate serve on another upstream transport (SERVE_BENCH_TRANSPORTS). */
type PeerId = 'direct' | 'pipe' | 'proxy' | 'portkey' | 'tollgate' | 'tollgate-redis' | 'tollgate-2w' | 'tollgate-redis-2w' | `transport:${string}`;
const FIXED_LABEL: Record<string, string> = {
  direct: 'direct',
  pipe: 'raw byte pipe (no parsing)',
  proxy: 'bare proxy (codecs)',
  portkey: 'Portkey',
  tollgate: 'tollgate serve',
  'tollgate-redis': 'tollgate serve, Redis store',
  'tollgate-2w': 'tollgate serve --workers 2 (memory store held by the primary)',
  'tollgate-redis-2w': 'tollgate serve --workers 2, Redis store',
};
/** What each transport name stands for in the table. */
const TRANSPORT_LABEL: Record<string, string> = {
  'undici-request': 'undici Agent#request',
  fetch: 'global fetch',
  undici: 'undici dispatch + streaming handler',
  default: 'createNodeUpstream() (again)',
};
const LABEL = new Proxy(FIXED_LABEL, {
  get: (fixed, id: string) => fixed[id] ?? `tollgate serve, upstream: ${TRANSPORT_LABEL[id.slice('transport:'.length)] ?? id.slice('transport:'.length)}`,
}) as Record<PeerId, string>;
/** The connection counts of every case; the raw pipe runs the first two only. */
const CONNS = [1, 8, 32];
/** SERVE_BENCH_CONNS=8 / SERVE_BENCH_MODES=stream: only these cases (a focused look at one target). */
const ONLY_CONNS = (process.env.SERVE_BENCH_CONNS ?? '')
  .split(',')
  .filter((c) => c !== '')
  .map(Number);
const ONLY_MODES = (process.env.SERVE_BENCH_MODES ?? '').split(',').filter((m) => m !== '');
const runsCase = (stream: boolean, conns: number) =>
  (ONLY_CONNS.length === 0 || ONLY_CONNS.includes(conns)) && (ONLY_MODES.length === 0 || ONLY_MODES.includes(stream ? 'stream' : 'non-stream'));

interface Peer {
  id: PeerId;
  service?: Service;
  /** Why it could not be started. */
  startError?: string;
  shot(delay: number, stream: boolean): Shot;
  /** Only these upstream delays (the Redis variant runs the zero-latency cases only). */
  delays?: number[];
  /** Only these connection counts (the raw pipe runs the low-load cases only). */
  conns?: number[];
  setup?: TollgateSetup;
}

interface Case {
  delay: number;
  stream: boolean;
  conns: number;
  peer: PeerId;
  result?: LoadResult;
  failure?: string;
  load1: number;
  /** Cores busy with other processes (not this benchmark's) while the case ran. */
  others: number;
  /** CPU time of the peer's own process per answered request, µs (the upstream's for direct). */
  cpuUs?: number;
}

/**
 * JIT warm-up per peer, as a multiple of the default (~2 s): SERVE_BENCH_WARMUP. A focused run
 * (SERVE_BENCH_MODES / SERVE_BENCH_CONNS) has no earlier cases to warm tollgate's code up: give
 * it more, or its first rounds run on unoptimized code.
 */
const WARMUP_SCALE = Number(process.env.SERVE_BENCH_WARMUP ?? 1);

/**
 * At least this many answers per peer and mode in the JIT warm-up: SERVE_BENCH_WARMUP_ANSWERS
 * (default 0: time only). tollgate serve's CPU per streamed request keeps falling for its first
 * ~9,000 streams (2.1 ms → 0.5–0.6 ms at 8 connections), which a time-based warm-up on a busy
 * machine does not reach; the raw pipe is warm after a few hundred.
 */
const WARMUP_ANSWERS = Number(process.env.SERVE_BENCH_WARMUP_ANSWERS ?? 0);

/** Rounds per case (peers interleaved within each); SERVE_BENCH_ROUNDS. */
const ROUNDS = Number(process.env.SERVE_BENCH_ROUNDS ?? 3);

/** At one connection, answers per peer and case the measured time must allow for (all rounds). */
const LOW_LOAD_ANSWERS = Number(process.env.SERVE_BENCH_LOW_LOAD_ANSWERS ?? 450);

/**
 * Measured time per round: the case's share of SERVE_BENCH_SECONDS, longer at one connection
 * when that would give too few answers (an answer takes at least the upstream's delay).
 */
export function roundMs(seconds: number, conns: number, delayMs: number): number {
  const base = (seconds * 1000) / ROUNDS;
  if (conns !== 1) return base;
  return Math.max(base, Math.ceil(LOW_LOAD_ANSWERS / ROUNDS) * (delayMs + 1));
}

const PROMPT = 'What is Python? Answer in one sentence.';

function openaiBody(model: string, stream: boolean): string {
  return JSON.stringify({ model, max_tokens: 512, stream, messages: [{ role: 'user', content: PROMPT }] });
}

function anthropicBody(stream: boolean): string {
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 512, stream, messages: [{ role: 'user', content: PROMPT }] });
}

/** What every successful answer must contain: the replayed text, and a finished OpenAI stream. */
const EXPECT_OPENAI = (stream: boolean) => (stream ? ['"Hello"', '[DONE]'] : ['beginner-friendly', 'chat.completion']);

function redisAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: 6379 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Delete the keys the Redis-backed run left (its own prefix only). */
function redisDeletePrefix(prefix: string): Promise<string> {
  const script = "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1])) do n = n + redis.call('DEL', k) end return n";
  const args = ['EVAL', script, '0', `${prefix}*`];
  const command = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: 6379 });
    const done = (answer: string) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(3000, () => done('timeout'));
    socket.once('error', (e) => done(e.message));
    socket.once('connect', () => socket.write(command));
    socket.once('data', (d) => done(d.toString().trim()));
  });
}

const ms = (x: number) => (Number.isNaN(x) ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(1));
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const ratio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');

export async function run(): Promise<{ name: string; lines: string[] }> {
  const seconds = Number(process.env.SERVE_BENCH_SECONDS ?? 1.5);
  const delays = (process.env.SERVE_BENCH_DELAYS ?? '0,20').split(',').map(Number);
  const profileDir = process.env.SERVE_BENCH_PROFILE;
  const started = performance.now();
  const lines: string[] = [];
  const notes: string[] = [];
  const load0 = loadavg();

  const upstream = await startUpstream();
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  const useRedis = process.env.SERVE_BENCH_REDIS !== '0' && (await redisAnswers());
  const setup = await writeTollgateSetup(upstreamUrl, delays);
  const redisPrefix = `tgbench${process.pid}:`;
  const redisSetup = useRedis ? await writeTollgateSetup(upstreamUrl, delays, { url: 'redis://127.0.0.1:6379', key_prefix: redisPrefix }) : undefined;
  let portkey: ReturnType<typeof portkeyInstall> | { error: string };
  try {
    portkey = portkeyInstall();
  } catch (error) {
    portkey = { error: `@portkey-ai/gateway is not installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); run npm ci` };
  }
  const pk = 'error' in portkey ? null : portkey;

  const peers: Peer[] = [
    {
      id: 'direct',
      service: upstream,
      shot: (d, stream) => ({
        port: upstream.port,
        path: `/d${d}/v1/messages`,
        headers: { 'content-type': 'application/json', 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' },
        body: anthropicBody(stream),
        expect: stream ? ['"Hello"', 'message_stop'] : ['beginner-friendly'],
      }),
    },
    {
      id: 'pipe',
      conns: CONNS.slice(0, 2),
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: `/d${d}/v1/messages`,
          headers: { 'content-type': 'application/json', 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' },
          body: anthropicBody(stream),
          expect: stream ? ['"Hello"', 'message_stop'] : ['beginner-friendly'],
        };
      },
    },
    {
      id: 'proxy',
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: `/d${d}/v1/chat/completions`,
          headers: { 'content-type': 'application/json' },
          body: openaiBody('claude-sonnet-4-5', stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    },
    {
      id: 'portkey',
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: '/v1/chat/completions',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${UPSTREAM_KEY}`,
            'x-portkey-provider': 'anthropic',
            'x-portkey-custom-host': `${upstreamUrl}/d${d}/v1`,
          },
          body: openaiBody('claude-sonnet-4-5', stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    },
    {
      id: 'tollgate',
      setup,
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${setup.key}` },
          body: openaiBody(`bench-d${d}`, stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    },
  ];
  // Other upstream transports under the same tollgate serve (issue 23's comparison).
  const transports = (process.env.SERVE_BENCH_TRANSPORTS ?? '').split(',').filter((t) => t !== '');
  const transportSetups = new Map<string, TollgateSetup>();
  for (const transport of transports) {
    const tSetup = await writeTollgateSetup(upstreamUrl, delays);
    transportSetups.set(transport, tSetup);
    peers.push({
      id: `transport:${transport}`,
      setup: tSetup,
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tSetup.key}` },
          body: openaiBody(`bench-d${d}`, stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    });
  }
  // Issue 23: two workers sharing the listener (zero-latency cases only), against one.
  const workersSetup = await writeTollgateSetup(upstreamUrl, delays);
  peers.push({
    id: 'tollgate-2w',
    setup: workersSetup,
    delays: [delays[0]!],
    shot: function (d, stream) {
      return {
        port: this.service!.port,
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${workersSetup.key}` },
        body: openaiBody(`bench-d${d}`, stream),
        expect: EXPECT_OPENAI(stream),
      };
    },
  });
  const redisWorkersSetup = useRedis
    ? await writeTollgateSetup(upstreamUrl, delays, { url: 'redis://127.0.0.1:6379', key_prefix: `${redisPrefix}2w:` })
    : undefined;
  if (redisWorkersSetup !== undefined) {
    peers.push({
      id: 'tollgate-redis-2w',
      setup: redisWorkersSetup,
      delays: [delays[0]!],
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${redisWorkersSetup.key}` },
          body: openaiBody(`bench-d${d}`, stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    });
  }
  if (redisSetup !== undefined) {
    peers.push({
      id: 'tollgate-redis',
      setup: redisSetup,
      delays: [delays[0]!],
      shot: function (d, stream) {
        return {
          port: this.service!.port,
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${redisSetup.key}` },
          body: openaiBody(`bench-d${d}`, stream),
          expect: EXPECT_OPENAI(stream),
        };
      },
    });
  }

  const starts: Record<string, () => Promise<Service>> = {
    pipe: () => startPipe(upstreamUrl),
    proxy: () => startProxy(upstreamUrl),
    portkey: () => (pk === null ? Promise.reject(new Error((portkey as { error: string }).error)) : startPortkey()),
    tollgate: () => startTollgate(setup, 'tollgate serve', profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
    'tollgate-redis': () => startTollgate(redisSetup!, 'tollgate serve (Redis)', [], { TOLLGATE_BENCH_COUNT_WRITES_TO: '6379' }),
    'tollgate-2w': () => startTollgate(workersSetup, 'tollgate serve --workers 2', [], {}, ['--workers', '2']),
    'tollgate-redis-2w': () => startTollgate(redisWorkersSetup!, 'tollgate serve --workers 2 (Redis)', [], {}, ['--workers', '2']),
  };
  for (const transport of transports)
    starts[`transport:${transport}`] = () => startTollgateTransport(transportSetups.get(transport)!, transport, `tollgate serve (${transport})`);
  // SERVE_BENCH_SKIP=portkey,proxy,…: leave peers out (a focused comparison runs more rounds in the same time).
  const skip = new Set((process.env.SERVE_BENCH_SKIP ?? '').split(',').filter((p) => p !== '' && p !== 'direct' && p !== 'tollgate'));
  for (let i = peers.length - 1; i >= 0; i--) if (skip.has(peers[i]!.id)) peers.splice(i, 1);
  // Started one after another: each start-up (tsx, registry load) takes a core for a while.
  for (const peer of peers) {
    if (peer.id === 'direct') continue;
    try {
      peer.service = await starts[peer.id]!();
    } catch (error) {
      peer.startError = error instanceof Error ? error.message : String(error);
    }
  }

  /** CPU used by this benchmark's own processes (the load generator and every child), ms. */
  const oursMs = () => {
    const self = process.cpuUsage();
    let sum = (self.user + self.system) / 1000;
    for (const peer of peers) if (peer.id !== 'direct' && peer.service !== undefined) sum += peer.service.cpuMs();
    return sum + upstream.cpuMs();
  };
  let othersRun: number;
  const runStart = { wall: performance.now(), machine: machineBusyMs(), ours: oursMs() };
  const cases: Case[] = [];
  const failures = new Map<string, string>();
  const key = (peer: PeerId, d: number, stream: boolean) => `${peer}/${d}/${stream}`;
  try {
    // One checked request per peer and case kind: a peer that answers wrongly is reported, not timed.
    for (const peer of peers) {
      for (const d of peer.delays ?? delays) {
        for (const stream of [false, true]) {
          if (peer.service === undefined) {
            failures.set(key(peer.id, d, stream), `did not start: ${peer.startError}`);
            continue;
          }
          const error = await probe(peer.shot(d, stream));
          if (error !== undefined) failures.set(key(peer.id, d, stream), error);
        }
      }
    }
    // JIT warm-up: the first thousands of requests through each process run cold code
    // (SERVE_BENCH_WARMUP_ANSWERS: go on until that many answers, within two minutes).
    for (const peer of peers) {
      for (const stream of [false, true]) {
        if (peer.service === undefined || failures.has(key(peer.id, delays[0]!, stream))) continue;
        const until = performance.now() + 120_000;
        let answers = 0;
        for (;;) {
          const r = await closedLoop(peer.shot(delays[0]!, stream), { connections: 16, warmupMs: 0, durationMs: (stream ? 800 : 1200) * WARMUP_SCALE });
          answers += r.completed;
          if (answers >= WARMUP_ANSWERS || r.completed === 0 || performance.now() >= until) break;
        }
      }
    }
    // Each case runs in ROUNDS short rounds, the peers interleaved in a rotating order inside
    // each round, so a burst of load from elsewhere on the machine hits them alike.
    for (const d of delays) {
      for (const stream of [false, true]) {
        for (const conns of CONNS) {
          if (!runsCase(stream, conns)) continue;
          const inCase = peers.filter(
            (peer) => (peer.delays === undefined || peer.delays.includes(d)) && (peer.conns === undefined || peer.conns.includes(conns)),
          );
          const rounds = new Map<PeerId, LoadResult[]>();
          const cpu = new Map<PeerId, number>();
          const load1 = loadavg()[0]!;
          const before = { wall: performance.now(), machine: machineBusyMs(), ours: oursMs() };
          for (let round = 0; round < ROUNDS; round++) {
            for (let i = 0; i < inCase.length; i++) {
              const peer = inCase[(i + round) % inCase.length]!;
              if (failures.has(key(peer.id, d, stream))) continue;
              const cpu0 = peer.service!.cpuMs();
              const r = await closedLoop(peer.shot(d, stream), { connections: conns, warmupMs: 200, durationMs: roundMs(seconds, conns, d) });
              cpu.set(peer.id, (cpu.get(peer.id) ?? 0) + peer.service!.cpuMs() - cpu0);
              rounds.set(peer.id, [...(rounds.get(peer.id) ?? []), r]);
            }
          }
          const others = (machineBusyMs() - before.machine - (oursMs() - before.ours)) / (performance.now() - before.wall);
          for (const peer of inCase) {
            const c: Case = { delay: d, stream, conns, peer: peer.id, load1, others };
            const failed = failures.get(key(peer.id, d, stream));
            if (failed !== undefined) c.failure = failed;
            else {
              c.result = pool(rounds.get(peer.id)!);
              if (c.result.completed > 0) c.cpuUs = (cpu.get(peer.id)! * 1000) / c.result.completed;
              if (c.result.errors > 0 && c.result.errors >= 0.01 * (c.result.n + c.result.errors)) {
                c.failure = `${c.result.errors} errors in ${c.result.n + c.result.errors} requests: ${c.result.firstError}`;
              }
            }
            cases.push(c);
          }
        }
      }
    }
    othersRun = (machineBusyMs() - runStart.machine - (oursMs() - runStart.ours)) / (performance.now() - runStart.wall);
  } finally {
    for (const peer of peers) if (peer.id !== 'direct') await peer.service?.stop();
    await upstream.stop();
    if (redisSetup !== undefined) await redisDeletePrefix(redisPrefix);
  }

  // ---- report ----
  const get = (peer: PeerId, d: number, stream: boolean, conns: number) =>
    cases.find((c) => c.peer === peer && c.delay === d && c.stream === stream && c.conns === conns);
  const ok = (c: Case | undefined): LoadResult | undefined => (c?.failure === undefined ? c?.result : undefined);
  const load1 = loadavg();
  lines.push(
    `mock Anthropic upstream in its own process (replays response-cache-read.json / stream-text.sse; streams in two bursts, the first up to the first text delta); ` +
      `variants d0 (no latency) and d20 (20 ms before the first byte and again before the rest of a stream)`,
  );
  lines.push(
    `peers: direct = the client sends the Anthropic request itself (floor); raw byte pipe = node:http passing that Anthropic request's bytes through unchanged (1 connection only: what one more process and two more hops cost here); bare proxy = node:http + fetch translating with @tollgate/codecs only (${FROM_SOURCE ? 'its sources, through tsx' : 'the built package'}); ` +
      (pk === null
        ? 'Portkey = not installed; '
        : `Portkey = @portkey-ai/gateway ${pk.version} (node build/start-server.js --headless, @hono/node-server ${pk.honoNodeServer}); `) +
      `tollgate serve = ${FROM_SOURCE ? 'the CLI from source through tsx (SERVE_BENCH_FROM_SOURCE=1)' : 'the `tollgate` command on the packages built from the working tree just before (`npm run build`)'}, virtual key + spend cap + rate limit + usage to a JSON-lines file, memory store` +
      (redisSetup !== undefined
        ? '; and the same on the Redis store (127.0.0.1:6379), zero-latency cases only'
        : ' (Redis not reachable: Redis variant skipped)'),
  );
  lines.push(
    `closed loop; per case and peer ${seconds} s measured in ${ROUNDS} rounds (0.2 s warm-up each; at 1 connection at least ${LOW_LOAD_ANSWERS} answers' worth: ${((roundMs(seconds, 1, 20) * ROUNDS) / 1000).toFixed(1)} s at d20), the peers interleaved in a rotating order within every round; ~${(2 * WARMUP_SCALE).toFixed(0)} s of JIT warm-up per peer first${WARMUP_ANSWERS > 0 ? ` (and at least ${WARMUP_ANSWERS} answers in each mode)` : ''}; every answer checked (status 200 + expected content); ` +
      `the machine is shared: other processes kept ${Number.isNaN(othersRun) ? '?' : othersRun.toFixed(2)} of its ${cpus().length} cores busy on average while the cases ran (column "others’ cores": per case); ` +
      `load average (1/5/15 min) at start ${load0.map((x) => x.toFixed(2)).join(' / ')}, at end ${load1.map((x) => x.toFixed(2)).join(' / ')}; ` +
      `total ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const peer of peers)
    if (peer.startError !== undefined) lines.push(`**${LABEL[peer.id]} failed to start**: ${peer.startError.replace(/\s+/g, ' ').slice(0, 600)}`);
  const seen = new Set<string>();
  for (const c of cases) {
    if (c.failure === undefined || seen.has(`${c.peer}/${c.delay}/${c.stream}`)) continue;
    seen.add(`${c.peer}/${c.delay}/${c.stream}`);
    lines.push(`**${LABEL[c.peer]} FAILS d${c.delay} ${c.stream ? 'stream' : 'non-stream'}**: ${c.failure.replace(/\s+/g, ' ').slice(0, 400)}`);
  }

  // Table: one row per case and peer.
  lines.push(
    '| upstream | mode | conns | peer | req/s | × direct | p50 ms | p99 ms | added p50 ms | added p99 ms | TTFB p50 ms | TTFB over direct ms | CPU µs/req | n | errors | others’ cores | load1 |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const c of cases) {
    const base = ok(get('direct', c.delay, c.stream, c.conns));
    const r = c.result;
    const row = [`d${c.delay}`, c.stream ? 'stream' : 'non-stream', String(c.conns), LABEL[c.peer]];
    if (c.failure !== undefined && (r === undefined || r.n === 0)) row.push('FAILED', '', '', '', '', '', '', '', '', '', String(r?.errors ?? '—'));
    else if (r !== undefined) {
      row.push(
        (c.failure !== undefined ? 'FAILED ' : '') + int(r.rps),
        base === undefined ? '—' : ratio(r.rps / base.rps),
        ms(r.p50),
        ms(r.p99),
        base === undefined || c.peer === 'direct' ? '—' : ms(r.p50 - base.p50),
        base === undefined || c.peer === 'direct' ? '—' : ms(r.p99 - base.p99),
        c.stream ? ms(r.ttfbP50) : '—',
        c.stream && base !== undefined && c.peer !== 'direct' ? ms(r.ttfbP50 - base.ttfbP50) : '—',
        c.cpuUs === undefined || Number.isNaN(c.cpuUs) ? '—' : int(c.cpuUs),
        String(r.n),
        String(r.errors),
      );
    }
    row.push(Number.isNaN(c.others) ? '—' : c.others.toFixed(2), c.load1.toFixed(2));
    lines.push(`| ${row.join(' | ')} |`);
  }

  // Targets, as ratios in the same run.
  const verdicts: boolean[] = [];
  const verdict = (pass: boolean) => {
    verdicts.push(pass);
    return pass ? 'OK' : 'MISSED';
  };
  const why = (peer: PeerId, d: number, stream: boolean, conns: number) => {
    const c = get(peer, d, stream, conns);
    return c === undefined ? 'not run' : `${LABEL[peer]} failed: ${(c.failure ?? '').replace(/\s+/g, ' ').slice(0, 160)}`;
  };
  const d0 = delays[0]!;
  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'non-stream';
    const t = ok(get('tollgate', d0, stream, 32));
    const p = ok(get('portkey', d0, stream, 32));
    const b = ok(get('proxy', d0, stream, 32));
    if (t !== undefined && p !== undefined)
      lines.push(
        `saturated throughput d${d0} ${mode}, 32 conns: tollgate ${int(t.rps)} req/s vs Portkey ${int(p.rps)} req/s = ${ratio(t.rps / p.rps)} (target ≥ 2×) ${verdict(t.rps / p.rps >= 2)}${b === undefined ? '' : `; tollgate vs bare proxy ${ratio(t.rps / b.rps)}`}`,
      );
    else lines.push(`saturated throughput d${d0} ${mode}: n/a — ${t === undefined ? why('tollgate', d0, stream, 32) : why('portkey', d0, stream, 32)}`);
    const tc = get('tollgate', d0, stream, 32)?.cpuUs;
    const pc = get('portkey', d0, stream, 32)?.cpuUs;
    const bc = get('proxy', d0, stream, 32)?.cpuUs;
    if (t !== undefined && p !== undefined && tc !== undefined && pc !== undefined && !Number.isNaN(tc))
      lines.push(
        `CPU per request d${d0} ${mode}, 32 conns (the peer's own process; less sensitive to other load than req/s): tollgate ${int(tc)} µs vs Portkey ${int(pc)} µs = ${ratio(tc / pc)}` +
          (bc === undefined ? '' : `; bare proxy ${int(bc)} µs (tollgate ${ratio(tc / bc)} of it)`),
      );
    if (t !== undefined && p !== undefined)
      lines.push(
        `p99 at saturation d${d0} ${mode}, 32 conns: tollgate ${ms(t.p99)} ms vs Portkey ${ms(p.p99)} ms = ${ratio(t.p99 / p.p99)} (target ≤ 1×) ${verdict(t.p99 <= p.p99)}`,
      );
  }
  for (const d of delays) {
    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'non-stream';
      const base = ok(get('direct', d, stream, 1));
      const t = ok(get('tollgate', d, stream, 1));
      const p = ok(get('portkey', d, stream, 1));
      if (base === undefined || t === undefined || p === undefined) {
        lines.push(
          `added latency d${d} ${mode}, 1 conn: n/a — ${base === undefined ? why('direct', d, stream, 1) : t === undefined ? why('tollgate', d, stream, 1) : why('portkey', d, stream, 1)}`,
        );
        continue;
      }
      const at = t.p50 - base.p50;
      const ap = p.p50 - base.p50;
      const floor = ok(get('pipe', d, stream, 1));
      lines.push(
        `added latency (p50 over direct) d${d} ${mode}, 1 conn: tollgate +${ms(at)} ms vs Portkey +${ms(ap)} ms = ${ratio(at / ap)} (target ≤ 0.5×) ${verdict(at <= 0.5 * ap)}` +
          (floor === undefined
            ? ''
            : `; a raw byte pipe adds +${ms(floor.p50 - base.p50)} ms of it` +
              // What each adds beyond one more process and two more hops: less sensitive to how dear a wake-up is on the machine that day.
              `; beyond the pipe: tollgate +${ms(t.p50 - floor.p50)} ms vs Portkey +${ms(p.p50 - floor.p50)} ms = ${ratio((t.p50 - floor.p50) / (p.p50 - floor.p50))} (for context, not a target)`),
      );
    }
    const base = ok(get('direct', d, true, 1));
    const t = ok(get('tollgate', d, true, 1));
    const p = ok(get('portkey', d, true, 1));
    const b = ok(get('proxy', d, true, 1));
    if (base !== undefined && t !== undefined) {
      const over = t.ttfbP50 - base.ttfbP50;
      lines.push(
        `streamed time to first byte over direct d${d}, 1 conn (p50): tollgate +${ms(over)} ms (target ≤ 2 ms) ${verdict(over <= 2)}` +
          (b === undefined ? '' : `; bare proxy +${ms(b.ttfbP50 - base.ttfbP50)} ms`) +
          (p === undefined ? `; Portkey n/a (${why('portkey', d, true, 1)})` : `; Portkey +${ms(p.ttfbP50 - base.ttfbP50)} ms`),
      );
    } else lines.push(`streamed time to first byte d${d}: n/a — ${base === undefined ? why('direct', d, true, 1) : why('tollgate', d, true, 1)}`);
  }

  // Issue 23: streamed first byte and throughput under moderate load, against the raw pipe.
  for (const d of delays) {
    const conns = CONNS[1]!;
    const base = ok(get('direct', d, true, conns));
    const t = ok(get('tollgate', d, true, conns));
    const pipe = ok(get('pipe', d, true, conns));
    if (base === undefined || t === undefined || pipe === undefined) {
      lines.push(
        `streamed first byte at ${conns} conns d${d}: n/a — ${base === undefined ? why('direct', d, true, conns) : t === undefined ? why('tollgate', d, true, conns) : why('pipe', d, true, conns)}`,
      );
      continue;
    }
    const tAdd = t.ttfbP50 - base.ttfbP50;
    const pAdd = pipe.ttfbP50 - base.ttfbP50;
    const target = d === delays[0];
    const two = ok(get('tollgate-2w', d, true, conns));
    lines.push(
      `streamed time to first byte over direct at ${conns} conns d${d} (p50): tollgate +${ms(tAdd)} ms vs raw pipe +${ms(pAdd)} ms = ${ratio(tAdd / pAdd)}` +
        (target ? ` (target ≤ 1.5×) ${verdict(tAdd <= 1.5 * pAdd)}` : ' (for context)') +
        `; streamed throughput tollgate ${int(t.rps)} vs raw pipe ${int(pipe.rps)} req/s = ${ratio(t.rps / pipe.rps)}` +
        (target ? ` (target ≥ 0.6×) ${verdict(t.rps >= 0.6 * pipe.rps)}` : ' (for context)') +
        (two === undefined
          ? ''
          : `; with --workers 2: +${ms(two.ttfbP50 - base.ttfbP50)} ms (${ratio((two.ttfbP50 - base.ttfbP50) / pAdd)}), ${int(two.rps)} req/s (${ratio(two.rps / pipe.rps)})`),
    );
  }
  // Issue 23: one worker against two, same store kind, zero latency.
  for (const [one, two, store] of [
    ['tollgate', 'tollgate-2w', 'memory'],
    ['tollgate-redis', 'tollgate-redis-2w', 'Redis'],
  ] as const) {
    const parts: string[] = [];
    for (const stream of [false, true]) {
      for (const conns of CONNS.slice(1)) {
        const a = ok(get(one, d0, stream, conns));
        const b = ok(get(two, d0, stream, conns));
        if (a === undefined || b === undefined) continue;
        const ca = get(one, d0, stream, conns)?.cpuUs;
        const cb = get(two, d0, stream, conns)?.cpuUs;
        parts.push(
          `${stream ? 'stream' : 'non-stream'} ${conns} conns ${int(a.rps)} vs ${int(b.rps)} req/s (${ratio(b.rps / a.rps)}), CPU ${ca === undefined ? '?' : int(ca)} vs ${cb === undefined ? '?' : int(cb)} µs/req`,
        );
      }
    }
    if (parts.length > 0) lines.push(`workers, ${store} store, d${d0}: 1 vs 2 — ${parts.join('; ')}`);
  }

  // Issue 23: other upstream transports against tollgate serve's own, same run (not targets: inputs to a choice).
  for (const peer of peers) {
    if (!peer.id.startsWith('transport:')) continue;
    const parts: string[] = [];
    for (const stream of [false, true]) {
      const own = ok(get('tollgate', d0, stream, 32));
      const other = ok(get(peer.id, d0, stream, 32));
      if (own !== undefined && other !== undefined)
        parts.push(`saturated d${d0} ${stream ? 'stream' : 'non-stream'} ${int(other.rps)} vs ${int(own.rps)} req/s (${ratio(other.rps / own.rps)})`);
    }
    for (const d of delays) {
      for (const stream of [false, true]) {
        const base = ok(get('direct', d, stream, 1));
        const own = ok(get('tollgate', d, stream, 1));
        const other = ok(get(peer.id, d, stream, 1));
        if (base === undefined || own === undefined || other === undefined) continue;
        const diff = other.p50 - own.p50;
        parts.push(
          `added p50 at 1 conn d${d} ${stream ? 'stream' : 'non-stream'} +${ms(other.p50 - base.p50)} vs +${ms(own.p50 - base.p50)} ms (${diff >= 0 ? '+' : '−'}${Math.abs(diff).toFixed(3)} ms)`,
        );
      }
    }
    lines.push(`${LABEL[peer.id]} vs tollgate serve's default transport: ${parts.length === 0 ? 'n/a' : parts.join('; ')}`);
  }

  // Governance actually ran: one usage record per governed request.
  for (const peer of peers) {
    if (peer.setup === undefined || peer.service === undefined) continue;
    const out = peer.service.output();
    // The CLI's last line, e.g. "tollgate: stopped — 9104 requests, 9104 usage records written, 0 lost".
    const stopLine = /tollgate: stopped.*/.exec(out)?.[0];
    const served = stopLine === undefined ? null : /(\d+) requests/.exec(stopLine);
    const records = usageLines(peer.setup);
    let line = `${LABEL[peer.id]}: ${records.toLocaleString('en-US')} usage records in the JSON-lines file for ${served === null ? 'an unknown number of' : Number(served[1]).toLocaleString('en-US')} requests served${stopLine === undefined ? ` (no shutdown line: ${peer.service.exited() ?? 'still running?'})` : ` ("${stopLine.trim()}")`}`;
    const writes = /bench-writes 6379 (\d+)/.exec(out);
    if (writes !== null && served !== null && Number(served[1]) > 0)
      line += `; ${(Number(writes[1]) / Number(served[1])).toFixed(2)} Redis round trips (socket writes) per request`;
    lines.push(line);
  }
  if (pk?.honoNodeServer.startsWith('1.13.') === true)
    notes.push(
      `Portkey runs on @hono/node-server ${pk.honoNodeServer}, pinned for it in package.json "overrides": with the version its own range resolves to (≥ 1.14), ` +
        'every streamed request through it fails on Node with "TypeError: immutable" (a fetch Response\'s headers reused; Portkey-AI/gateway#1389) — a failure of the stock install, not of this setup',
    );
  if (pk !== null && pk.firstChunkDelayMs !== null)
    notes.push(
      `Portkey's stream transformer waits ${pk.firstChunkDelayMs} ms before writing its first chunk (a setTimeout in its build): that sets its streamed time to first byte`,
    );
  for (const peer of peers) {
    const refused = [...(peer.service?.output() ?? '').matchAll(/loopback-only: refused a connection to (\S+)/g)].map((m) => m[1]);
    if (refused.length > 0)
      notes.push(`**${LABEL[peer.id]} tried to connect off the machine** (refused by the loopback-only guard): ${[...new Set(refused)].join(', ')}`);
  }
  if (profileDir !== undefined) notes.push(`CPU profile of tollgate serve written to ${profileDir}`);
  lines.push(...notes);
  for (const peer of peers) if (peer.setup !== undefined) rmSync(peer.setup.dir, { recursive: true, force: true });
  lines.push(
    `targets: ${verdicts.length === 0 ? 'NONE EVALUATED' : verdicts.every(Boolean) ? 'all met' : `${verdicts.filter((v) => !v).length} of ${verdicts.length} MISSED`}`,
  );
  return { name: 'serve: tollgate serve vs Portkey vs a bare proxy vs direct (OpenAI Chat → Anthropic, HTTP load)', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(line.startsWith('|') ? line : `- ${line}`);
}
