/**
 * Spawning the `tollgate` CLI and the quickstart from source for tests: Node resolves the
 * workspace packages to their sources (the `@tollgate/source` export condition) and tsx
 * compiles them, so no build is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(REPO, 'packages/adapters-node/src/cli/main.ts');
/** tsx's loader by URL, so a child may run from any working directory. */
const TSX = pathToFileURL(join(createRequire(join(REPO, 'package.json')).resolve('tsx/package.json'), '..', 'dist/loader.mjs')).href;

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in the stream's output so far or to come. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): void;
}

export function spawnTs(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Spawned {
  const child = spawn(process.execPath, ['--conditions=@tollgate/source', '--import', TSX, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, NODE_OPTIONS: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (c: Buffer) => {
    out.stdout += c.toString('utf8');
    for (const w of [...waiters]) w();
  });
  child.stderr.on('data', (c: Buffer) => {
    out.stderr += c.toString('utf8');
    for (const w of [...waiters]) w();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of [...waiters]) w();
    }),
  );
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    exited,
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    waitFor(stream, pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out[stream].match(pattern);
          if (match !== null) {
            done();
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`process exited before ${pattern} appeared on ${stream}:\n${out.stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern} on ${stream}:\n${out.stderr}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          const i = waiters.indexOf(check);
          if (i >= 0) waiters.splice(i, 1);
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** Run the CLI to completion. */
export async function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  const p = spawnTs([CLI, ...args], options);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** The JSON lines printed so far on a stream. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
