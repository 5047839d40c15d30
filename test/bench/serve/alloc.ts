/**
 * Allocation per streamed request of `tollgate serve` (not part of `npm run bench`): CPU time
 * and latency on a shared machine swing with other load, the bytes a request allocates do not
 * (±2% between rounds where req/s moved ±30%), so this compares two builds' per-request work
 * when the machine is too busy for the serve benchmark to tell them apart. Mock upstream, 8
 * concurrent OpenAI Chat → Anthropic streams (ALLOC_CONNS), a warm-up (ALLOC_WARMUP_S, default
 * 10), then ALLOC_SECONDS (default 4) sampled with V8's sampling heap profiler (objects already
 * collected included); ALLOC_ROUNDS rounds (default 3), the variants alternating.
 * ALLOC_VARIANTS=main:/path/to/other/checkout/packages/adapters-node/bin/tollgate.js,branch:
 * (empty path: this working tree's build). Prints KiB allocated and CPU µs per request.
 * ALLOC_KEEP=<dir> keeps each heap profile there (to see where the bytes go).
 * Run: node --import tsx test/bench/serve/alloc.ts
 */
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { closedLoop } from './load.ts';
import { startTollgate, startUpstream, writeTollgateSetup } from './targets.ts';

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}
const allocated = (node: ProfileNode): number => node.selfSize + node.children.reduce((sum, child) => sum + allocated(child), 0);

const SAMPLER = fileURLToPath(new URL('./alloc-sampler.mjs', import.meta.url));
const conns = Number(process.env.ALLOC_CONNS ?? 8);
const upstream = await startUpstream();
const setup = await writeTollgateSetup(`http://127.0.0.1:${upstream.port}`, [0]);
const body = JSON.stringify({ model: 'bench-d0', stream: true, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello.' }] });
const results = new Map<string, Array<{ kib: number; cpuUs: number; rps: number }>>();
try {
  for (let round = 0; round < Number(process.env.ALLOC_ROUNDS ?? 3); round++) {
    for (const variant of (process.env.ALLOC_VARIANTS ?? 'branch:').split(',')) {
      const [name = 'branch', bin = ''] = variant.split(':');
      const out = `${setup.dir}/alloc-${name}-${round}.heapprofile`;
      const service = await startTollgate(setup, name, ['--import', SAMPLER], { ALLOC_OUT: out }, [], bin === '' ? undefined : bin);
      const shot = {
        port: service.port,
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${setup.key}` },
        body,
        expect: ['[DONE]'],
      };
      await closedLoop(shot, { connections: conns, warmupMs: 0, durationMs: Number(process.env.ALLOC_WARMUP_S ?? 10) * 1000 });
      process.kill(service.pid, 'SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const cpu0 = service.cpuMs();
      const r = await closedLoop(shot, { connections: conns, warmupMs: 0, durationMs: Number(process.env.ALLOC_SECONDS ?? 4) * 1000 });
      const cpuUs = ((service.cpuMs() - cpu0) * 1000) / r.completed;
      await service.stop();
      if (process.env.ALLOC_KEEP !== undefined) copyFileSync(out, `${process.env.ALLOC_KEEP}/alloc-${name}-${round}.heapprofile`);
      const kib = allocated((JSON.parse(readFileSync(out, 'utf8')) as { head: ProfileNode }).head) / r.completed / 1024;
      results.set(name, [...(results.get(name) ?? []), { kib, cpuUs, rps: r.rps }]);
      console.log(
        `r${round} ${name}: ${r.completed} streams, ${Math.round(r.rps)} req/s, ${kib.toFixed(1)} KiB allocated and ${Math.round(cpuUs)} µs CPU per request${r.errors > 0 ? `, ${r.errors} errors: ${r.firstError}` : ''}`,
      );
    }
  }
} finally {
  await upstream.stop();
  rmSync(setup.dir, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, rs] of results) {
  console.log(
    `${name}: median ${median(rs.map((r) => r.kib)).toFixed(1)} KiB and ${Math.round(median(rs.map((r) => r.cpuUs)))} µs CPU per request, ${Math.round(median(rs.map((r) => r.rps)))} req/s`,
  );
}
