/**
 * Real Bun and Deno for the edge tests. Their binaries come from the npm registry as root
 * devDependencies (`bun`, `deno`): each package's postinstall links the binary of the
 * platform package it depends on (`@oven/bun-<os>-<arch>`, `@deno/<os>-<arch>[-glibc]`) into
 * place; when install scripts were not run, the binary is still inside that platform package.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './bundle.js';

export type Runtime = 'bun' | 'deno';

export interface RuntimeBinary {
  path: string;
  version: string;
}

function candidates(runtime: Runtime): string[] {
  const nm = join(ROOT, 'node_modules');
  const { platform, arch } = process;
  if (runtime === 'bun') {
    const a = arch === 'arm64' ? 'aarch64' : arch;
    const os = platform === 'win32' ? 'windows' : platform;
    const exe = platform === 'win32' ? 'bun.exe' : 'bun';
    return [
      join(nm, 'bun/bin/bun.exe'),
      ...[`${os}-${a}`, `${os}-${a}-baseline`, `${os}-${a}-musl`, `${os}-${a}-musl-baseline`].map((p) => join(nm, `@oven/bun-${p}/bin/${exe}`)),
    ];
  }
  const exe = platform === 'win32' ? 'deno.exe' : 'deno';
  return [join(nm, `deno/${exe}`), ...[`${platform}-${arch}-glibc`, `${platform}-${arch}`].map((p) => join(nm, `@deno/${p}/${exe}`))];
}

/**
 * The runtime's binary, or an error saying every place looked at and why each failed. The
 * runtime tests call this in `beforeAll`, so a missing runtime fails them loudly.
 */
export function findRuntime(runtime: Runtime): RuntimeBinary {
  const tried: string[] = [];
  for (const path of candidates(runtime)) {
    if (!existsSync(path)) {
      tried.push(`${path}: absent`);
      continue;
    }
    const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } });
    const version = run.stdout?.trim().split('\n')[0] ?? '';
    if (run.status === 0 && version !== '') return { path, version };
    tried.push(`${path}: ${run.error?.message ?? `exit ${run.status}: ${(run.stderr ?? '').trim().slice(0, 200)}`}`);
  }
  throw new Error(
    `${runtime} cannot run here. It comes from the npm package "${runtime}" (a root devDependency: run npm ci at the repository root). Tried:\n  ${tried.join('\n  ')}`,
  );
}

export interface RuntimeServer {
  url: string;
  child: ChildProcess;
  /** Everything the server printed so far. */
  stdout(): string;
  stderr(): string;
  /** Usage records the server printed. */
  usage(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** The command line that runs a bundled server entry under the runtime, allowed only loopback and the environment. */
export function runtimeArgs(runtime: Runtime, script: string): string[] {
  return runtime === 'bun' ? ['run', script] : ['run', '--allow-net=127.0.0.1', '--allow-env', '--no-prompt', script];
}

/** Start a bundled server entry under the runtime and wait for its `LISTENING <port>` line. */
export async function startRuntimeServer(
  runtime: Runtime,
  binary: string,
  script: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<RuntimeServer> {
  const child = spawn(binary, runtimeArgs(runtime, script), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${runtime} did not start within ${timeoutMs} ms.\nstdout: ${out}\nstderr: ${err}`)), timeoutMs);
    const check = () => {
      const m = /LISTENING (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${runtime} exited (${code}) before listening.\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stdout: () => out,
    stderr: () => err,
    usage: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('USAGE '))
        .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Run a bundled entry to completion (for entries that must refuse to start). */
export function runToExit(runtime: Runtime, binary: string, script: string, env: Record<string, string>, timeoutMs = 30_000) {
  return spawnSync(binary, runtimeArgs(runtime, script), {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1', ...env },
  });
}
