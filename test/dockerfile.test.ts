/**
 * The Dockerfile, checked without Docker (this test cannot build images): it builds from
 * node:20-slim, copies only files that exist and that .dockerignore lets through, packs the
 * packages the runtime installs (with the Redis and Postgres clients adapters-node takes as
 * optional peers, at the ranges it declares), runs as a non-root user, and its command is
 * `tollgate serve --config /etc/tollgate/tollgate.yaml` — which starts, as run here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO, spawnTs } from './cli-support.js';

const text = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
/** Instructions, with continuation lines joined and comments dropped. */
const lines = text
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const stages = lines.reduce<string[][]>((acc, l) => (l.startsWith('FROM ') ? [...acc, [l]] : (acc.at(-1)!.push(l), acc)), []);
const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
  .split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'));
const adaptersNode = JSON.parse(readFileSync(join(REPO, 'packages/adapters-node/package.json'), 'utf8')) as {
  bin: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const json = (instruction: string, name: string) =>
  JSON.parse(
    lines
      .filter((l) => l.startsWith(`${instruction} `))
      .at(-1)!
      .slice(name.length + 1),
  ) as string[];

describe('Dockerfile', () => {
  it('builds and runs on node:20-slim', () => {
    expect(stages.map((s) => s[0])).toEqual(['FROM node:20-slim AS build', 'FROM node:20-slim']);
  });

  it('copies from the build context only files that exist and are not ignored', () => {
    const copies = lines.filter((l) => l.startsWith('COPY ') && !l.includes('--from='));
    expect(copies.length).toBeGreaterThan(3);
    for (const copy of copies) {
      const [, ...args] = copy.split(/\s+/);
      for (const source of args.slice(0, -1)) {
        expect(existsSync(join(REPO, source)), source).toBe(true);
        const top = source.replace(/^\.\//, '').split('/')[0]!;
        expect(ignored, `${source} is excluded by .dockerignore`).not.toContain(top);
      }
    }
  });

  it('packs the packages the image installs, with the Redis and Postgres clients at the declared ranges', () => {
    const build = stages[0]!.join('\n');
    for (const name of ['@tollgate/policy', '@tollgate/codecs', '@tollgate/core', '@tollgate/adapters-node']) expect(build).toContain(`-w ${name}`);
    const install = stages[1]!.find((l) => l.startsWith('RUN npm install'))!;
    expect(install).toContain('--omit=dev');
    expect(install).toContain(`ioredis@${adaptersNode.peerDependencies.ioredis}`);
    expect(install).toContain(`pg@${adaptersNode.peerDependencies.pg}`);
    expect(adaptersNode.bin.tollgate).toBe('./bin/tollgate.js');
  });

  it('runs as a non-root user: tollgate serve --config /etc/tollgate/tollgate.yaml', () => {
    const runtime = stages[1]!;
    const user = runtime.findIndex((l) => l.startsWith('USER '));
    expect(runtime[user]).toBe('USER node');
    expect(user).toBeLessThan(runtime.findIndex((l) => l.startsWith('ENTRYPOINT ')));
    expect(json('ENTRYPOINT', 'ENTRYPOINT')).toEqual(['tollgate']);
    expect(json('CMD', 'CMD').slice(0, 3)).toEqual(['serve', '--config', '/etc/tollgate/tollgate.yaml']);
  });

  it("the image's command starts the service (here on loopback, with the example config)", async () => {
    const args = json('CMD', 'CMD').map((a) =>
      a === '/etc/tollgate/tollgate.yaml' ? join(REPO, 'examples/service/tollgate.yaml') : a === '0.0.0.0' ? '127.0.0.1' : a,
    );
    const p = spawnTs([CLI, ...args, '--port', '0']);
    try {
      const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      p.kill('SIGTERM');
      expect((await p.exited).code).toBe(0);
    } finally {
      p.kill('SIGKILL');
    }
  });
});
