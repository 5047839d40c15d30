/**
 * The processes of the serve benchmark: the mock upstream, the bare proxy, Portkey's gateway
 * and `tollgate serve`, each a child process on 127.0.0.1 with the loopback-only guard
 * preloaded. Every child is stopped by its own pid (SIGTERM, then SIGKILL after a grace period),
 * also when the benchmark process exits early.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { createVirtualKey } from '../../../packages/core/src/index.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const GUARD = fileURLToPath(new URL('./loopback-only.mjs', import.meta.url));
/** The CLI from source (through tsx), and the `tollgate` command as installed (the built packages). */
export const TOLLGATE_CLI = join(ROOT, 'packages/adapters-node/src/cli/main.ts');
export const TOLLGATE_BIN = join(ROOT, 'packages/adapters-node/bin/tollgate.js');

/**
 * How `tollgate serve` is run: by default the `tollgate` command on the built packages, as a
 * user runs it — built first from the working tree (`npm run build`) unless every package's
 * build is newer than its sources, so the figures are never those of a stale build. SERVE_BENCH_FROM_SOURCE=1 runs the sources through tsx instead (no
 * build; tsx adds a little per-call overhead, e.g. its function-name helpers).
 */
export const FROM_SOURCE = process.env.SERVE_BENCH_FROM_SOURCE === '1';

/** Newest modification time under a folder (ms), skipping node_modules. */
function newest(dir: string): number {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

/** Whether every package's build is newer than its sources. */
function buildIsFresh(): boolean {
  const packages = join(ROOT, 'packages');
  for (const name of readdirSync(packages)) {
    const dist = join(packages, name, 'dist/index.js');
    if (!existsSync(dist) || statSync(dist).mtimeMs < Math.max(newest(join(packages, name, 'src')), statSync(join(packages, name, 'package.json')).mtimeMs))
      return false;
  }
  return true;
}

let built = false;
export function buildPackages(): void {
  if (FROM_SOURCE || built || buildIsFresh()) return;
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed: ${(result.stderr || result.stdout).slice(-1500)}`);
  built = true;
}
export const UPSTREAM_KEY = 'sk-ant-bench-upstream-key';

export interface Service {
  name: string;
  port: number;
  pid: number;
  /** The last few KiB the process printed (stdout and stderr). */
  output(): string;
  /** CPU time (user + system) the process has used so far, ms (Linux /proc; NaN elsewhere). */
  cpuMs(): number;
  /** Whether it has exited, and how. */
  exited(): string | null;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
});

interface StartOptions {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** Find the port in what the process prints. */
  portFrom?: RegExp;
  /** Or: a known port, ready once `readyPath` answers 2xx (or any HTTP answer when unset). */
  port?: number;
  readyPath?: string;
  timeoutMs?: number;
  /** Everything the process prints, as it comes (the service keeps only the last 8 KiB). */
  onOutput?: (text: string) => void;
}

const CLOCK_TICKS_PER_S = 100; // USER_HZ: 100 on every Linux this runs on

/** CPU time of a process and every process under it (the workers of `serve --workers`), ms. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state is [0], utime is [11], stime is [12].
    let ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
    for (const child of childPids(pid)) {
      const c = processCpuMs(child);
      if (!Number.isNaN(c)) ms += c;
    }
    return ms;
  } catch {
    return Number.NaN;
  }
}

function childPids(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

/** CPU time the whole machine has been busy (all cores, every process), ms (Linux /proc/stat). */
export function machineBusyMs(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: busy = all but idle and iowait.
    const busy = cpu.slice(0, 8).reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!;
    return (busy * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

async function httpStatus(port: number, path: string): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

export async function startService(options: StartOptions): Promise<Service> {
  const child = spawn(process.execPath, ['--import', GUARD, ...options.args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let tail = '';
  // Set by the exit handler: typed by assertion so the loop below does not narrow it to null.
  let exit = null as string | null;
  const onOutput = options.onOutput;
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    onOutput?.(text);
    tail = (tail + text).slice(-8192);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exitedPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = signal === null ? `exit code ${code}` : `signal ${signal}`;
      running.delete(child);
      resolve();
    }),
  );
  const service: Service = {
    name: options.name,
    port: options.port ?? 0,
    pid: child.pid ?? -1,
    output: () => tail,
    cpuMs: () => processCpuMs(child.pid ?? -1),
    exited: () => exit,
    async stop() {
      if (exit !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (exit !== null) throw new Error(`${options.name} exited while starting (${exit}): ${tail.slice(-1500)}`);
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${options.name} did not become ready within ${options.timeoutMs ?? 30_000} ms: ${tail.slice(-1500)}`);
    }
    if (options.portFrom !== undefined && service.port === 0) {
      const m = options.portFrom.exec(tail);
      if (m !== null) service.port = Number(m[1]);
    }
    if (service.port !== 0) {
      const status = await httpStatus(service.port, options.readyPath ?? '/');
      if (status !== null && (options.readyPath === undefined || (status >= 200 && status < 300))) return service;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A free loopback port (for a program that cannot report the one it was given). */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function startUpstream(): Promise<Service> {
  return startService({ name: 'mock upstream', args: ['--import', 'tsx', 'test/bench/serve/upstream.ts'], portFrom: /listening (\d+)/, readyPath: '/stats' });
}

export function startProxy(upstream: string, nodeFlags: string[] = []): Promise<Service> {
  buildPackages();
  return startService({
    name: 'bare proxy',
    args: [...nodeFlags, ...(FROM_SOURCE ? ['--conditions=@tollgate/source'] : []), '--import', 'tsx', 'test/bench/serve/proxy.ts', upstream],
    env: { ANTHROPIC_API_KEY: UPSTREAM_KEY },
    portFrom: /listening (\d+)/,
  });
}

/** The raw byte pipe (test/bench/serve/pipe.ts): the floor any proxy process adds. */
export function startPipe(upstream: string): Promise<Service> {
  return startService({ name: 'raw byte pipe', args: ['--import', 'tsx', 'test/bench/serve/pipe.ts', upstream], portFrom: /listening (\d+)/ });
}

/** Where Portkey's gateway is installed, and which @hono/node-server it runs on. */
export function portkeyInstall(): { entry: string; version: string; honoNodeServer: string; firstChunkDelayMs: number | null } {
  const require = createRequire(join(ROOT, 'package.json'));
  const pkgPath = require.resolve('@portkey-ai/gateway/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; bin: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
  // Node's resolution: Portkey's own node_modules first, then the folders above it.
  let honoNodeServer = 'not found';
  for (let dir = join(pkgPath, '..'); ; dir = join(dir, '..')) {
    const candidate = join(dir, 'node_modules/@hono/node-server/package.json');
    if (existsSync(candidate)) {
      honoNodeServer = (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
      break;
    }
    if (dir === join(dir, '..')) break;
  }
  const entry = join(pkgPath, '..', bin);
  // Its streaming handler sleeps before the first chunk: `l?(l=!1,await new Promise((e=>setTimeout(e,25))))`.
  const delay = /\(\w=!1,await new Promise\(\(\w=>setTimeout\(\w,(\d+)\)\)\)\)/.exec(existsSync(entry) ? readFileSync(entry, 'utf8') : '');
  return { entry, version: pkg.version, honoNodeServer, firstChunkDelayMs: delay === null ? null : Number(delay[1]) };
}

export async function startPortkey(nodeFlags: string[] = []): Promise<Service> {
  const { entry } = portkeyInstall();
  const port = await freePort();
  // --headless: no UI routes or log stream. It binds to every interface by default; the
  // loopback-only guard binds it to 127.0.0.1 and refuses any non-loopback connection.
  return startService({ name: 'Portkey gateway', args: [...nodeFlags, entry, `--port=${port}`, '--headless'], port, timeoutMs: 30_000 });
}

export interface TollgateSetup {
  dir: string;
  config: string;
  key: string;
  usageFile: string;
}

/** Setup folders made by this process: removed when it exits, however the script ends. */
const setupDirs: string[] = [];
process.on('exit', () => {
  for (const dir of setupDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Write a governed `tollgate serve` setup into a new temp folder: a registry with one model per
 * upstream latency variant (`bench-d0`, `bench-d20`), a policy with a three-level monthly spend
 * cap (the user's, its BU's and the organisation's: one reservation against all three) and a
 * rate limit, one virtual key, usage as JSON lines in a file, the given store.
 */
export async function writeTollgateSetup(
  upstream: string,
  delays: number[],
  store: string | { url: string; key_prefix: string } = 'memory',
): Promise<TollgateSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-serve-bench-'));
  setupDirs.push(dir);
  const { key, hash } = await createVirtualKey();
  const pricing = { unit: 'usd_per_mtok', input: '3', output: '15', cache_read: '0.30', cache_write: '3.75' };
  const providers: Record<string, unknown> = {};
  const operations: unknown[] = [];
  const models: Record<string, unknown> = {};
  for (const d of delays) {
    providers[`anthropic-d${d}`] = { base_url: `${upstream}/d${d}`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } };
    operations.push({ provider: `anthropic-d${d}`, format: 'anthropic_messages', family: 'chat', path: '/v1/messages' });
    models[`bench-d${d}`] = {
      brand: 'anthropic',
      entry_formats: ['openai_chat', 'anthropic_messages'],
      capabilities: { tools: true, max_output_tokens: 64000 },
      deployments: [
        {
          id: `bench-d${d}@anthropic`,
          provider: `anthropic-d${d}`,
          format: 'anthropic_messages',
          upstream_model: 'claude-sonnet-4-5',
          priority: 1,
          weight: 100,
          pricing,
        },
      ],
    };
  }
  const registry = {
    wire_formats: { openai_chat: { family: 'chat' }, anthropic_messages: { family: 'chat' } },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
    ],
    converters: [
      { from: 'openai_chat', to: 'anthropic_messages' },
      { from: 'anthropic_messages', to: 'openai_chat' },
    ],
    credentials: { anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' } },
    providers,
    operations,
    models,
  };
  const policy = {
    spend: {
      rules: [
        { id: 'bench-monthly-cap', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1000000' }, actions: [{ type: 'block' }] }] },
        { id: 'bench-bu-cap', matches: [{ match: { per: 'bu', scope: 'all', window: 'monthly', at_or_above_usd: '5000000' }, actions: [{ type: 'block' }] }] },
        {
          id: 'bench-org-cap',
          matches: [{ match: { per: 'org', scope: 'all', window: 'monthly', at_or_above_usd: '10000000' }, actions: [{ type: 'block' }] }],
        },
      ],
    },
    rate_limits: [{ id: 'bench-rpm', rpm: 100_000_000 }],
  };
  const config = {
    listen: { host: '127.0.0.1', port: 0 },
    registry: './registry.yaml',
    policy: './policy.yaml',
    identity: { virtual_keys: [{ hash, principal: { user: 'bench', tier: 'normal', bu: 'perf' } }] },
    store,
    usage: 'file:./usage.jsonl',
    secrets: 'env',
    drain_timeout_s: 5,
  };
  writeFileSync(join(dir, 'registry.yaml'), stringify(registry));
  writeFileSync(join(dir, 'policy.yaml'), stringify(policy));
  writeFileSync(join(dir, 'tollgate.yaml'), stringify(config));
  return { dir, config: join(dir, 'tollgate.yaml'), key, usageFile: join(dir, 'usage.jsonl') };
}

export async function startTollgate(
  setup: TollgateSetup,
  name = 'tollgate serve',
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
  cliArgs: string[] = [],
  /** Another build's `tollgate` command (bin/tollgate.js of another checkout), to compare builds in one run. */
  bin?: string,
): Promise<Service> {
  if (bin === undefined) buildPackages();
  const command = bin !== undefined ? [bin] : FROM_SOURCE ? ['--conditions=@tollgate/source', '--import', 'tsx', TOLLGATE_CLI] : [TOLLGATE_BIN];
  return startService({
    name,
    args: [...nodeFlags, ...command, 'serve', '--config', setup.config, ...cliArgs],
    env: { ANTHROPIC_API_KEY: UPSTREAM_KEY, ...env },
    portFrom: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    readyPath: '/readyz',
    timeoutMs: 45_000,
  });
}

/** Usage records written to the JSON-lines file (after the service has stopped and flushed). */
export function usageLines(setup: TollgateSetup): number {
  if (!existsSync(setup.usageFile)) return 0;
  const text = readFileSync(setup.usageFile, 'utf8');
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * `tollgate serve` on the built packages with another upstream transport
 * (test/bench/serve/tollgate-transport.ts): `default`, `undici-request`, `fetch`, or the name of
 * a transport factory the package exports.
 */
export async function startTollgateTransport(setup: TollgateSetup, transport: string, name: string, nodeFlags: string[] = []): Promise<Service> {
  buildPackages();
  return startService({
    name,
    args: [
      ...nodeFlags,
      ...(FROM_SOURCE ? ['--conditions=@tollgate/source'] : []),
      '--import',
      'tsx',
      'test/bench/serve/tollgate-transport.ts',
      transport,
      '--config',
      setup.config,
    ],
    env: { ANTHROPIC_API_KEY: UPSTREAM_KEY },
    portFrom: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    readyPath: '/readyz',
    timeoutMs: 45_000,
  });
}
