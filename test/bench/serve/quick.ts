/**
 * A quick look at one case of the serve benchmark while working on the hot path (not part of
 * `npm run bench`): mock upstream, bare proxy, tollgate serve (and optionally Portkey), closed
 * loop at QUICK_CONNS connections for QUICK_SECONDS each, non-stream and stream; prints req/s and
 * CPU µs per request of each peer's process, and (QUICK_ROUNDS rounds) the median p50 added over direct (for streams also the time to first byte); QUICK_DELAY=20 uses the upstream that answers after 20 ms; QUICK_PIPE=1 adds the raw byte pipe, QUICK_PROXY=0 leaves the bare proxy out, QUICK_WARMUP=<s> warms every peer up that long in each mode. QUICK_PROFILE=<dir> writes a CPU profile of
 * tollgate serve there, QUICK_PROFILE_PROXY=<dir> one of the bare proxy. To compare builds or
 * settings side by side in one run, QUICK_VARIANTS=base:,other:ENV=value;NODE_FLAGS=--flag starts
 * one tollgate serve per variant (its own environment; NODE_FLAGS are given to node, ARGS to
 * `tollgate serve`, e.g. `2w:ARGS=--workers 2`; BIN another checkout's packages/adapters-node/bin/tollgate.js,
 * built, to compare two builds: `base:BIN=/path/to/main/packages/adapters-node/bin/tollgate.js,new:`), and
 * QUICK_NODE_FLAGS goes to every variant; QUICK_DUMP=1 prints what each variant wrote.
 * Run: node --import tsx test/bench/serve/quick.ts
 */
import { closedLoop, type Shot } from './load.ts';
import { startPipe, startPortkey, startProxy, startTollgate, startUpstream, UPSTREAM_KEY, writeTollgateSetup, type Service } from './targets.ts';

const conns = Number(process.env.QUICK_CONNS ?? 32);
const seconds = Number(process.env.QUICK_SECONDS ?? 4);
const withPortkey = process.env.QUICK_PORTKEY === '1';
const withPipe = process.env.QUICK_PIPE === '1';
const profile = process.env.QUICK_PROFILE;
const modes = (process.env.QUICK_MODES ?? 'non-stream,stream').split(',');
const rounds = Number(process.env.QUICK_ROUNDS ?? 2);
const delay = Number(process.env.QUICK_DELAY ?? 0);
const added = new Map<string, number[]>();

function openaiBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Say hello.' }],
  });
}
const expect = (stream: boolean) => (stream ? ['"Hello"', '[DONE]'] : ['chat.completion']);

const upstream = await startUpstream();
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const setup = await writeTollgateSetup(upstreamUrl, [delay]);
const peers: Array<{ name: string; service: Service; shot: (stream: boolean) => Shot }> = [];
const anthropicBody = (stream: boolean) =>
  JSON.stringify({ model: 'claude-sonnet-4-5', stream, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
peers.push({
  name: 'direct',
  service: upstream,
  shot: (s) => ({
    port: upstream.port,
    path: `/d${delay}/v1/messages`,
    headers: { 'content-type': 'application/json', 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' },
    body: anthropicBody(s),
    expect: s ? ['message_stop'] : ['beginner-friendly'],
  }),
});
if (withPipe) {
  const pipe = await startPipe(upstreamUrl);
  peers.push({ name: 'pipe', service: pipe, shot: (s) => ({ ...peers[0]!.shot(s), port: pipe.port }) });
}
if (process.env.QUICK_PROXY !== '0') {
  const proxy = await startProxy(
    upstreamUrl,
    process.env.QUICK_PROFILE_PROXY === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.QUICK_PROFILE_PROXY}`],
  );
  peers.push({
    name: 'bare proxy',
    service: proxy,
    shot: (s) => ({
      port: proxy.port,
      path: `/d${delay}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body: openaiBody('claude-sonnet-4-5', s),
      expect: expect(s),
    }),
  });
}
// QUICK_VARIANTS=name:ENV=v;ENV2=w,name2:… runs one tollgate serve per variant, each with its own environment.
const variants = (process.env.QUICK_VARIANTS ?? 'tollgate:').split(',').map((v) => {
  const [name, env = ''] = v.split(':');
  return {
    name: name!,
    env: Object.fromEntries(
      env
        .split(';')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
    ),
  };
});
for (const variant of variants) {
  const tollgate = await startTollgate(
    setup,
    variant.name,
    [
      ...(profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]),
      ...(process.env.QUICK_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      ...(variant.env.NODE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    { TG_NAME: variant.name, ...variant.env },
    (variant.env.ARGS ?? '').split(' ').filter(Boolean),
    variant.env.BIN,
  );
  peers.push({
    name: variant.name,
    service: tollgate,
    shot: (s) => ({
      port: tollgate.port,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${setup.key}` },
      body: openaiBody(`bench-d${delay}`, s),
      expect: expect(s),
    }),
  });
}
if (withPortkey) {
  const pk = await startPortkey();
  peers.push({
    name: 'portkey',
    service: pk,
    shot: (s) => ({
      port: pk.port,
      path: '/v1/chat/completions',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${UPSTREAM_KEY}`,
        'x-portkey-provider': 'anthropic',
        'x-portkey-custom-host': `${upstreamUrl}/d${delay}/v1`,
      },
      body: openaiBody('claude-sonnet-4-5', s),
      expect: expect(s),
    }),
  });
}
// JIT warm-up (QUICK_WARMUP seconds per peer and mode, default 1.5 s of non-stream only): tollgate's code needs thousands of requests to be optimized.
const warmup = process.env.QUICK_WARMUP === undefined ? null : Number(process.env.QUICK_WARMUP);
for (const p of peers) {
  if (warmup === null) await closedLoop(p.shot(false), { connections: 16, warmupMs: 0, durationMs: 1500 });
  else for (const mode of modes) await closedLoop(p.shot(mode === 'stream'), { connections: 16, warmupMs: 0, durationMs: warmup * 1000 });
}
let direct = 0;
let directTtfb = 0;
for (const mode of modes) {
  const stream = mode === 'stream';
  for (let round = 0; round < rounds; round++) {
    // Direct first (the baseline of the round), the others in a rotating order: none always runs after the same one.
    const others = peers.slice(1);
    const order = [peers[0]!, ...others.slice(round % others.length), ...others.slice(0, round % others.length)];
    for (const p of order) {
      const cpu0 = p.service.cpuMs();
      const r = await closedLoop(p.shot(stream), { connections: conns, warmupMs: 200, durationMs: seconds * 500 });
      const cpu = p.service.cpuMs() - cpu0;
      if (p.name === 'direct') {
        direct = r.p50;
        directTtfb = r.ttfbP50;
      }
      if (p.name !== 'direct') added.set(`${mode} ${p.name}`, [...(added.get(`${mode} ${p.name}`) ?? []), r.p50 - direct]);
      if (p.name !== 'direct' && stream)
        added.set(`${mode} ${p.name} first byte`, [...(added.get(`${mode} ${p.name} first byte`) ?? []), r.ttfbP50 - directTtfb]);
      const plus = p.name === 'direct' ? '' : ` (+${(r.p50 - direct).toFixed(3)})`;
      const ttfb = stream ? ` ttfb ${r.ttfbP50.toFixed(3)}${p.name === 'direct' ? '' : ` (+${(r.ttfbP50 - directTtfb).toFixed(3)})`}` : '';
      console.log(
        `${mode} ${conns}c r${round} ${p.name.padEnd(10)} ${Math.round(r.rps)} req/s p50 ${r.p50.toFixed(3)}${plus}${ttfb} p99 ${r.p99.toFixed(2)} ms cpu ${Math.round((cpu * 1000) / r.completed)} µs/req errors ${r.errors} ${r.firstError ?? ''}`,
      );
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of added) console.log(`median added p50 ${name}: +${median(xs).toFixed(3)} ms over ${xs.length} rounds`);
if (process.env.QUICK_DUMP === '1') for (const p of peers) if (variants.some((v) => v.name === p.name)) console.log(`--- ${p.name}\n${p.service.output()}`);
for (const p of peers) if (p.service !== upstream) await p.service.stop();
await upstream.stop();
