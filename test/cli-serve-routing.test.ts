/**
 * The routing keys through `tollgate serve` as a real process, with the OpenAI SDK: capability
 * and context refusals, a policy region rule and the caller's `x-tollgate-region`, shadow rate
 * limits in `would_block`, and `tollgate validate` refusing a region no deployment is in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { CLI, jsonLines, runCli, spawnTs } from './cli-support.js';

let upstream: MockUpstream;
beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    'anthropic-backup': replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json'),
  });
});
afterAll(async () => {
  await upstream?.close();
});

function registry() {
  const base = testRegistry(upstream.url);
  const sonnet = base.models['claude-sonnet'];
  const mini = base.models['gpt-mini'];
  return {
    ...base,
    models: {
      ...base.models,
      'claude-sonnet': {
        ...sonnet,
        deployments: [
          { ...sonnet.deployments[0]!, region: 'us' },
          { ...sonnet.deployments[1]!, region: 'eu' },
        ],
      },
      'gpt-mini': {
        ...mini,
        capabilities: { tools: false, reasoning: false, context_window: 30, max_output_tokens: 1000 },
        deployments: [{ ...mini.deployments[0]!, region: 'us' }],
      },
    },
  };
}

const POLICY = {
  regions: [{ id: 'eu-residency', match: { bus: ['eu-payments'] }, allow: ['eu'] }],
  rate_limits: [{ id: 'trial', rpm: 1, enforcement: 'shadow' }],
};

function writeService(identity: unknown, policy: unknown = POLICY): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-routing-'));
  writeFileSync(join(dir, 'registry.yaml'), stringify(registry()));
  writeFileSync(join(dir, 'policy.yaml'), stringify(policy));
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({ listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', policy: './policy.yaml', identity, usage: 'stdout' }),
  );
  return join(dir, 'tollgate.yaml');
}

describe('routing keys under tollgate serve', () => {
  it('refuses, narrows and reports as in-process, in the caller’s format, and records it', async () => {
    const ids = await keysFor({ user: 'alice', bu: 'payments' }, { user: 'eve', bu: 'eu-payments' });
    const p = spawnTs([CLI, 'serve', '--config', writeService(ids.identity)], { env: SECRETS });
    try {
      const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const client = (user: string, headers: Record<string, string> = {}) =>
        new OpenAI({ apiKey: ids.keys[user]!, baseURL: `${url}/v1`, maxRetries: 0, defaultHeaders: headers });
      const hi = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });

      const tools = await client('alice')
        .chat.completions.create({ ...hi('gpt-mini'), tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] })
        .catch((e: unknown) => e);
      expect((tools as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
      const long = await client('alice')
        .chat.completions.create({ ...hi('gpt-mini'), messages: [{ role: 'user', content: 'a '.repeat(31) }] })
        .catch((e: unknown) => e);
      expect((long as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
      const outside = await client('eve')
        .chat.completions.create(hi('gpt-mini'))
        .catch((e: unknown) => e);
      expect(outside).toBeInstanceOf(OpenAI.PermissionDeniedError);
      await client('eve').chat.completions.create(hi('claude-sonnet'));
      await client('alice', { 'x-tollgate-region': 'eu' }).chat.completions.create(hi('claude-sonnet'));
      await client('alice').chat.completions.create(hi('claude-sonnet'));
      expect(upstream.hits('anthropic-backup')).toBe(2);

      // Usage sinks flush at least every second: wait for the sixth record.
      await p.waitFor('stdout', /(?:"request_id"[\s\S]*){6}/, 5000);
      const records = jsonLines(p.stdout());
      expect(records.map((r) => [r.reason, r.region, r.would_block])).toEqual([
        ['capability:tools', null, []],
        ['context_length_exceeded', null, []],
        ['region:eu-residency', null, []],
        [null, 'eu', []],
        [null, 'eu', []],
        [null, 'us', ['rate_limit:trial']],
      ]);
    } finally {
      p.kill('SIGKILL');
    }
  });

  it('validate refuses a region rule naming a region no deployment is in', async () => {
    const ids = await keysFor({ user: 'alice' });
    const file = writeService(ids.identity, { regions: [{ id: 'eu', allow: ['europe'] }] });
    const r = await runCli(['validate', '--config', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/regions\[0\]\.allow\[0\]: unknown region "europe": the registry's deployments are in us, eu/);
  });
});
