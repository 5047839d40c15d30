/**
 * What the garbage collector makes of one request (not part of `npm run bench`): the raw byte
 * pipe and `tollgate serve` (built packages, the serve benchmark's config), each run with V8's
 * `--trace-gc-nvp` under GC_CONNS (default 8) closed-loop connections for GC_SECONDS (default 5)
 * after a warm-up, streamed (GC_MODES=stream,non-stream for both). Prints per request: KiB
 * allocated in the young generation, KiB that survived two young collections and were promoted
 * to the old one (they then cost a scavenge copy each and a major collection to free), the
 * main-thread scavenge pause (µs) and the number of major collections. Byte counts hold steady
 * under other load where CPU times do not, so a change to the hot path can be judged on a busy
 * machine. GC_FLAGS adds node flags to tollgate (e.g. `--max-semi-space-size=32`); GC_ROUNDS
 * (default 1) repeats the whole set.
 * Run: node --import tsx test/bench/serve/gc.ts
 */
import { closedLoop, type Shot } from './load.ts';
import { buildPackages, startService, startUpstream, TOLLGATE_BIN, UPSTREAM_KEY, writeTollgateSetup, type Service } from './targets.ts';

const conns = Number(process.env.GC_CONNS ?? 8);
const seconds = Number(process.env.GC_SECONDS ?? 5);
const modes = (process.env.GC_MODES ?? 'stream').split(',');
const extraFlags = (process.env.GC_FLAGS ?? '').split(' ').filter(Boolean);

/** Sums of the young-generation collections (`gc=s`) and a count of the major ones in a `--trace-gc-nvp` log. */
class GcLog {
  private text = '';
  private from = 0;
  feed = (chunk: string): void => {
    this.text += chunk;
  };
  /** Count only what is printed from now on. */
  mark(): void {
    this.from = this.text.length;
  }
  totals(): { allocated: number; promoted: number; pauseMs: number; scavenges: number; majors: number } {
    const t = { allocated: 0, promoted: 0, pauseMs: 0, scavenges: 0, majors: 0 };
    for (const line of this.text.slice(this.from).split('\n')) {
      if (/ gc=(mc|mmc|ms) /.test(line)) t.majors++;
      if (!line.includes(' gc=s ')) continue;
      const field = (name: string) => Number(new RegExp(` ${name}=([0-9.]+)`).exec(line)?.[1] ?? 0);
      t.scavenges++;
      t.allocated += field('allocated');
      t.promoted += field('promoted');
      t.pauseMs += field('pause');
    }
    return t;
  }
}

const upstream = await startUpstream();
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const setup = await writeTollgateSetup(upstreamUrl, [0]);
buildPackages();

async function start(name: string): Promise<{ service: Service; log: GcLog; shot: (stream: boolean) => Shot }> {
  const log = new GcLog();
  if (name === 'pipe') {
    const service = await startService({
      name,
      args: ['--trace-gc-nvp', '--import', 'tsx', 'test/bench/serve/pipe.ts', upstreamUrl],
      portFrom: /listening (\d+)/,
      onOutput: log.feed,
    });
    const shot = (stream: boolean): Shot => ({
      port: service.port,
      path: '/d0/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', stream, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] }),
      expect: stream ? ['message_stop'] : ['beginner-friendly'],
    });
    return { service, log, shot };
  }
  const service = await startService({
    name,
    args: ['--trace-gc-nvp', ...extraFlags, TOLLGATE_BIN, 'serve', '--config', setup.config],
    env: { ANTHROPIC_API_KEY: UPSTREAM_KEY },
    portFrom: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    readyPath: '/readyz',
    timeoutMs: 45_000,
    onOutput: log.feed,
  });
  const shot = (stream: boolean): Shot => ({
    port: service.port,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${setup.key}` },
    body: JSON.stringify({
      model: 'bench-d0',
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Say hello.' }],
    }),
    expect: stream ? ['"Hello"', '[DONE]'] : ['chat.completion'],
  });
  return { service, log, shot };
}

try {
  for (let round = 0; round < Number(process.env.GC_ROUNDS ?? 1); round++) {
    for (const name of ['pipe', 'tollgate serve']) {
      const { service, log, shot } = await start(name);
      try {
        for (const mode of modes) {
          const stream = mode === 'stream';
          // Warm-up: the JIT, and the young generation grown to its working size.
          await closedLoop(shot(stream), { connections: 16, warmupMs: 0, durationMs: 3000 });
          log.mark();
          const r = await closedLoop(shot(stream), { connections: conns, warmupMs: 0, durationMs: seconds * 1000 });
          const t = log.totals();
          const per = (x: number) => x / Math.max(1, r.completed);
          console.log(
            `r${round} ${mode} ${conns}c ${name.padEnd(14)} ${Math.round(r.rps)} req/s, per request: ${(per(t.allocated) / 1024).toFixed(1)} KiB allocated, ` +
              `${(per(t.promoted) / 1024).toFixed(2)} KiB promoted, ${(per(t.pauseMs) * 1000).toFixed(1)} µs scavenge pause; ` +
              `${t.scavenges} scavenges, ${t.majors} major collections, errors ${r.errors}`,
          );
        }
      } finally {
        await service.stop();
      }
    }
  }
} finally {
  await upstream.stop();
}
