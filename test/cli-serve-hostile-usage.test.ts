/**
 * A hostile upstream reporting absurd usage (a count that prices past 2^53 micro-USD) in a
 * stream: `tollgate serve` once died of the unhandled rejection, taking every request in flight
 * with it. It now stays up, keeps serving, and records the usage held to the request's bounds.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { keysFor } from './support/gateway-fixture.js';
import { CLI, jsonLines, spawnTs } from './cli-support.js';

let upstream: Server;
let upstreamUrl: string;
beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
      const chunk = (v: unknown) => `data: ${JSON.stringify(v)}\n\n`;
      res.end(
        chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' }, finish_reason: null }] }) +
          chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
          chunk({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1e15, total_tokens: 1e15 } }) +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const a = upstream.address() as { port: number };
  upstreamUrl = `http://127.0.0.1:${a.port}`;
});
afterAll(() => upstream?.close());

it('tollgate serve survives a stream whose reported usage is absurd', async () => {
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  const dir = mkdtempSync(join(tmpdir(), 'tg-hostile-usage-'));
  writeFileSync(
    join(dir, 'registry.yaml'),
    stringify({
      wire_formats: { openai_chat: { family: 'chat' } },
      entry_routes: [{ path: '/v1/chat/completions', format: 'openai_chat' }],
      converters: [],
      credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
      providers: { openai: { base_url: upstreamUrl, credential: 'openai' } },
      operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/chat/completions' }],
      models: {
        m: {
          brand: 'openai',
          entry_formats: ['openai_chat'],
          capabilities: { max_output_tokens: 1000 },
          deployments: [
            { id: 'm@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'm', pricing: { unit: 'usd_per_mtok', input: '15', output: '15' } },
          ],
        },
      },
    }),
  );
  writeFileSync(
    join(dir, 'tollgate.yaml'),
    stringify({ listen: { host: '127.0.0.1', port: 0 }, registry: './registry.yaml', identity: ids.identity, usage: 'stdout' }),
  );
  const p = spawnTs([CLI, 'serve', '--config', join(dir, 'tollgate.yaml')], { env: { OPENAI_API_KEY: 'sk-x' } });
  const [, url] = await p.waitFor('stderr', /listening on (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
  const call = async () => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ids.keys.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
    });
    return { status: res.status, text: await res.text() };
  };
  try {
    expect((await call()).text).toContain('"hi"');
    // Still serving afterwards.
    expect(await call()).toMatchObject({ status: 200 });
    await expect.poll(() => jsonLines(p.stdout()).filter((r) => r['schema'] !== undefined).length, { timeout: 5000 }).toBe(2);
    expect(p.child.exitCode).toBeNull();
    for (const record of jsonLines(p.stdout()).filter((r) => r['schema'] !== undefined)) {
      expect(record).toMatchObject({ status: 'ok', usage: { output: 50, measured: false } });
      // 50 output tokens and a prompt of a few dozen at $15/Mtok: well under a thousand micro-USD.
      expect((record['cost_micros'] as { total: number }).total).toBeLessThan(1000);
    }
  } finally {
    p.kill();
    await p.exited;
  }
});
