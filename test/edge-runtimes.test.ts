/**
 * The same edge handler under real Bun and Deno (binaries from the npm packages `bun` and
 * `deno`, root devDependencies): a server entry bundled with esbuild (platform neutral) runs as
 * a child process on 127.0.0.1, and the OpenAI SDK in this process streams through it to a
 * local mock upstream replaying recorded traffic. A runtime that cannot run here fails these
 * tests with the reason; nothing is skipped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEdge, formatMessages } from './support/edge/bundle.js';
import { findRuntime, runToExit, startRuntimeServer, type Runtime, type RuntimeBinary, type RuntimeServer } from './support/edge/runtimes.js';
import { fixtureText } from './support/fixtures.js';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

const tmp = mkdtempSync(join(tmpdir(), 'tollgate-edge-runtimes-'));
let script: string;
let upstream: MockUpstream;
let keys: Record<string, string>;
let identity: unknown;

beforeAll(async () => {
  const { result, errors } = await bundleEdge({ entryPoints: { server: 'test/support/edge/server-entry.ts' } });
  if (errors.length > 0) throw new Error(`bundling the server entry failed:\n${formatMessages(errors)}`);
  script = join(tmp, 'server.mjs');
  writeFileSync(script, result.outputFiles[0]!.contents);
  upstream = await startMockUpstream({
    anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json', { chunkSize: 48 }),
    openai: replay('openai-chat/stream-text.sse', 'openai-chat/response-text.json', { chunkSize: 48 }),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  keys = ids.keys;
  identity = ids.identity;
});

afterAll(async () => {
  await upstream?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The text a recorded OpenAI Chat stream spells out. */
function recordedText(fixture: string): string {
  let text = '';
  for (const line of fixtureText(fixture).split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const event = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string | null } }> };
    text += event.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

const serverEnv = (config: Record<string, unknown>) => ({ ...SECRETS, TOLLGATE_EDGE_CONFIG: JSON.stringify(config) });

for (const runtime of ['bun', 'deno'] as const satisfies readonly Runtime[]) {
  describe(`under real ${runtime}`, () => {
    let binary: RuntimeBinary;
    let server: RuntimeServer;
    let client: OpenAI;

    beforeAll(async () => {
      binary = findRuntime(runtime);
      server = await startRuntimeServer(runtime, binary.path, script, serverEnv({ registry: testRegistry(upstream.url), identity }));
      client = new OpenAI({ apiKey: keys.alice, baseURL: `${server.url}/v1`, maxRetries: 0 });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it(`is really ${runtime}`, () => {
      const line = /RUNTIME (\w+) (\S+)/.exec(server.stdout());
      expect(line?.[1]).toBe(runtime);
      expect(binary.version).toContain(line![2]!);
    });

    it('streams an OpenAI client through a translation to an Anthropic upstream: text and usage', async () => {
      const stream = await client.chat.completions.create({
        model: 'claude-sonnet',
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | null | undefined;
      let chunks = 0;
      for await (const chunk of stream) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(chunks).toBeGreaterThan(2);
      expect(text).toBe('Hello');
      expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
      const seen = upstream.requests.filter((r) => r.path === '/anthropic/v1/messages').at(-1)!;
      expect(seen.headers['x-api-key']).toBe(SECRETS.ANTHROPIC_API_KEY);
      expect(JSON.stringify(seen)).not.toContain(keys.alice!);
      await expect
        .poll(() => server.usage().find((r) => r.model === 'claude-sonnet'), { timeout: 5_000 })
        .toMatchObject({
          status: 'ok',
          entry_format: 'openai_chat',
          upstream_format: 'anthropic_messages',
          stream: true,
          usage: { input: 10, output: 4, measured: true },
          principal: { id: 'alice' },
        });
    });

    it('streams an OpenAI client to an OpenAI upstream unchanged (identity)', async () => {
      const stream = client.chat.completions.stream({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      const final = await stream.finalChatCompletion();
      const expected = recordedText('openai-chat/stream-text.sse');
      expect(expected.length).toBeGreaterThan(20);
      expect(final.choices[0]!.message.content).toBe(expected);
      expect(final.choices[0]!.finish_reason).toBe('stop');
    });

    it('answers a non-streaming completion', async () => {
      const completion = await client.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(completion.choices[0]!.message.content).toMatch(/^Hi there!/);
      expect(completion.usage?.completion_tokens).toBe(377);
    });

    it('refuses a wrong key with 401 in OpenAI’s shape', async () => {
      const wrong = new OpenAI({ apiKey: 'tg_thisisnotakeythisisnotakeythisisnotakey', baseURL: `${server.url}/v1`, maxRetries: 0 });
      const error = await wrong.chat.completions.create({ model: 'gpt-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      const e = error as InstanceType<typeof OpenAI.AuthenticationError>;
      expect(e.status).toBe(401);
      expect(e.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
      expect(e.headers.get('x-tollgate-request-id')).toMatch(/^req_/);
    });

    it('from adapters-edge/minimal with the two codecs it needs, streams the same translation; missing one, refuses to start naming it', async () => {
      const config = { registry: testRegistry(upstream.url), identity, codecs: ['openai_chat', 'anthropic_messages'] };
      const minimal = await startRuntimeServer(runtime, binary.path, script, serverEnv(config));
      try {
        const selective = new OpenAI({ apiKey: keys.alice, baseURL: `${minimal.url}/v1`, maxRetries: 0 });
        const stream = await selective.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'Say hello' }], stream: true });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        expect(text).toBe('Hello');
      } finally {
        await minimal.stop();
      }
      const run = runToExit(runtime, binary.path, script, serverEnv({ ...config, codecs: ['openai_chat'] }));
      expect(run.status, run.stdout).not.toBe(0);
      expect(run.stdout).not.toContain('LISTENING');
      expect(run.stderr).toContain('no codec for anthropic_messages');
      expect(run.stderr).toContain("anthropicMessagesCodec from '@tollgate/codecs/anthropic-messages'");
    });

    it('refuses to start with hard caps on its per-isolate store', () => {
      const policy = {
        spend: {
          rules: [{ id: 'frontier-cap', matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] }],
        },
      };
      const run = runToExit(runtime, binary.path, script, serverEnv({ registry: testRegistry(upstream.url), identity, policy }));
      expect(run.status, run.stdout).not.toBe(0);
      expect(run.stdout).not.toContain('LISTENING');
      expect(run.stderr).toContain('frontier-cap');
      expect(run.stderr).toContain('allowPerIsolateCaps');
    });
  });
}
