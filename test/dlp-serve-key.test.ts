/**
 * `tollgate serve`'s DLP surrogate secret (`dlp.surrogate_key_env`): processes and workers given
 * the same secret send the same surrogate for a value, another secret sends another, and a
 * named secret that is missing or short stops the start. Real processes, an echo upstream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoModel, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { CLI, runCli, spawnTs, type Spawned } from './cli-support.js';

const SECRET_A = 'a-surrogate-secret-of-enough-length-0001';
const SECRET_B = 'another-surrogate-secret-long-enough-0002';
const EMAIL = 'jane.doe@acme.io';

let upstream: MockUpstream;
let dir: string;
let key: string;
const seen: Seen[] = [];
const running: Spawned[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(echoScenarios({ echo: {} }, seen));
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  key = ids.keys.alice!;
  dir = mkdtempSync(join(tmpdir(), 'tollgate-dlp-key-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(echoRegistry(upstream.url, ['echo'])));
  writeFileSync(join(dir, 'policy.yaml'), stringify({ dlp: { default: { email: 'pseudonymize' } } }));
  const base = { listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', policy: './policy.yaml', identity: ids.identity, usage: 'none' };
  writeFileSync(join(dir, 'keyed.yaml'), stringify({ ...base, dlp: { surrogate_key_env: 'TG_TEST_DLP_SECRET' } }));
  writeFileSync(join(dir, 'unkeyed.yaml'), stringify(base));
});

afterAll(async () => {
  for (const p of running) p.kill('SIGKILL');
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(config: string, env: Record<string, string>, args: string[] = []): Promise<{ url: string; process: Spawned }> {
  const p = spawnTs([CLI, 'serve', '--config', join(dir, config), ...args], { env: { ...ECHO_SECRETS, ...env } });
  running.push(p);
  const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  return { url: url!, process: p };
}

/** What the upstream received in place of the email, for one request on a connection of its own. */
async function surrogateVia(url: string): Promise<string> {
  const from = seen.length;
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ model: echoModel('openai_chat'), messages: [{ role: 'user', content: `Write to ${EMAIL} today.` }] }),
  });
  const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  expect(response.status).toBe(200);
  // The answer echoes the prompt: the original is back in it.
  expect(answer.choices[0]!.message.content).toContain(EMAIL);
  const sent = JSON.stringify(seen.slice(from).map((s) => s.body));
  expect(sent).not.toContain(EMAIL);
  const surrogate = /Write to (\S+) today/.exec(sent)?.[1];
  expect(surrogate).toMatch(/@/);
  return surrogate!;
}

describe('serve: dlp.surrogate_key_env', () => {
  it('gives one value one surrogate across processes and workers sharing the secret, another under another secret', async () => {
    const [a, b, c, workers] = await Promise.all([
      serve('keyed.yaml', { TG_TEST_DLP_SECRET: SECRET_A }),
      serve('keyed.yaml', { TG_TEST_DLP_SECRET: SECRET_A }),
      serve('keyed.yaml', { TG_TEST_DLP_SECRET: SECRET_B }),
      serve('keyed.yaml', { TG_TEST_DLP_SECRET: SECRET_A }, ['--workers', '2']),
    ]);
    const first = await surrogateVia(a.url);
    expect(await surrogateVia(a.url)).toBe(first);
    expect(await surrogateVia(b.url)).toBe(first);
    expect(await surrogateVia(c.url)).not.toBe(first);
    // Fresh connections, spread over both workers by the shared listener.
    const fromWorkers = await Promise.all(Array.from({ length: 6 }, () => surrogateVia(workers.url)));
    expect(new Set(fromWorkers)).toEqual(new Set([first]));
  }, 60_000);

  it('refuses to start when the named variable is unset or shorter than 32 characters', async () => {
    const unset = await runCli(['serve', '--config', join(dir, 'keyed.yaml')], { env: { ...ECHO_SECRETS, TG_TEST_DLP_SECRET: '' } });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('refusing to start — dlp.surrogate_key_env names TG_TEST_DLP_SECRET, which is not set in the environment');
    const short = await runCli(['serve', '--config', join(dir, 'keyed.yaml')], { env: { ...ECHO_SECRETS, TG_TEST_DLP_SECRET: 'too-short' } });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('TG_TEST_DLP_SECRET holds 9 characters; the surrogate secret needs at least 32');
  }, 30_000);

  it('warns at start when a pseudonymizing policy runs on several workers without the secret', async () => {
    const { process: p } = await serve('unkeyed.yaml', {}, ['--workers', '2']);
    expect(p.stderr()).toContain('the policy pseudonymizes and --workers 2 has no dlp.surrogate_key_env');
    const single = await serve('unkeyed.yaml', {});
    expect(single.process.stderr()).not.toContain('surrogate_key_env');
  }, 60_000);

  it('refuses a key that is not a variable name, as validation', async () => {
    writeFileSync(join(dir, 'bad.yaml'), stringify({ registry: './registry.yaml', dlp: { surrogate_key_env: 'my secret', extra: 1 } }));
    const result = await runCli(['validate', '--config', join(dir, 'bad.yaml')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain('the name of an environment variable');
    expect(result.stderr + result.stdout).toMatch(/extra/);
  }, 30_000);
});
