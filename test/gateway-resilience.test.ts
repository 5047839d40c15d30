import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createGateway, type UsageRecord } from '@tollgate/core';
import { fixtureText } from './support/fixtures.js';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { chunkedResponse } from './support/http-server.js';
import { replay, startMockUpstream, status, type Scenario } from './support/mock-upstream.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(scenarios: Record<string, Scenario>, names: Parameters<typeof testRegistry>[1] = {}, extra: Record<string, unknown> = {}) {
  const upstream = await startMockUpstream(scenarios);
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: testRegistry(upstream.url, names),
    identity: ids.identity,
    secrets: SECRETS,
    usage: (r) => void records.push(r),
    ...extra,
  });
  cleanups.push(async () => {
    await gateway.close({ drainMs: 100 });
    await upstream.close();
  });
  const openai = new OpenAI({ apiKey: ids.keys.alice, baseURL: 'http://tollgate.local/v1', fetch: gateway.fetch, maxRetries: 0 });
  return { upstream, records, gateway, openai, key: ids.keys.alice! };
}

/** Wait until the gateway has written `n` records (streams record when they end). */
async function until(records: UsageRecord[], n: number): Promise<void> {
  for (let i = 0; i < 200 && records.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  expect(records.length).toBe(n);
}

describe('failover and circuit breaking', () => {
  it('fails over to the next deployment on a 503 before anything is committed', async () => {
    const { openai, records, upstream } = await setup(
      {
        down: status(503, { type: 'error', error: { type: 'api_error', message: 'unavailable' } }),
        backup: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
      },
      { anthropic: 'down', anthropicBackup: 'backup' },
    );
    const res = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toContain('Python');
    expect(upstream.hits('down')).toBe(1);
    expect(upstream.hits('backup')).toBe(1);
    expect(records[0]!.attempts).toBe(2);
    expect(records[0]!.deployment).toBe('sonnet@backup');
    expect(records[0]!.status).toBe('ok');
  });

  it('with no attempt left, a 503 is the answer: the caller sees that upstream error, the backup is not called', async () => {
    const { openai, records, upstream } = await setup(
      {
        down: status(503, { type: 'error', error: { type: 'overloaded_error', message: 'try again soon' } }),
        backup: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
      },
      { anthropic: 'down', anthropicBackup: 'backup' },
      { failover: { maxAttempts: 1 } },
    );
    const err = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect((err as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(503);
    expect((err as Error).message).toContain('try again soon');
    expect(upstream.hits('down')).toBe(1);
    expect(upstream.hits('backup')).toBe(0);
    expect(records[0]).toMatchObject({ status: 'upstream_error', attempts: 1 });
  });

  it('an attempt that runs out of time fails over; with none left it is a 504 upstream_timeout, in the caller’s format', async () => {
    // What any transport's time bound looks like from here: a TimeoutError (as `AbortSignal.timeout` aborts with).
    const timingOut = (url: string, init: RequestInit) =>
      url.includes('/down/')
        ? Promise.reject(new TypeError('fetch failed', { cause: new DOMException('The operation timed out.', 'TimeoutError') }))
        : globalThis.fetch(url, init);
    const scenarios = { backup: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json') };
    const failover = await setup(scenarios, { anthropic: 'down', anthropicBackup: 'backup' }, { fetch: timingOut });
    const res = await failover.openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).toContain('Python');
    expect(failover.records[0]).toMatchObject({ status: 'ok', attempts: 2, deployment: 'sonnet@backup' });

    const last = await setup(scenarios, { anthropic: 'down', anthropicBackup: 'backup' }, { fetch: timingOut, failover: { maxAttempts: 1 } });
    const err = await last.openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(last.records[0]).toMatchObject({ status: 'upstream_error', reason: 'upstream_timeout', http_status: 504, attempts: 1 });
  });

  it('does not fail over on a 400: the caller gets the upstream error, scrubbed, in its own format', async () => {
    const { openai, records, upstream } = await setup(
      {
        bad: status(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'messages: bad thing for org-abcdef123456 (key sk-ant-api03-secretsecret)' },
        }),
        backup: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
      },
      { anthropic: 'bad', anthropicBackup: 'backup' },
    );
    const err = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const message = (err as Error).message;
    expect(message).toContain('messages: bad thing');
    expect(message).not.toContain('org-abcdef123456');
    expect(message).not.toContain('sk-ant-api03');
    expect(upstream.hits('backup')).toBe(0);
    expect(records[0]!.status).toBe('upstream_error');
  });

  it('opens the breaker after consecutive failures and stops calling the dead deployment', async () => {
    const { openai, upstream } = await setup(
      {
        down: status(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
        backup: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json'),
      },
      { anthropic: 'down', anthropicBackup: 'backup' },
      { breaker: { failureThreshold: 2, cooldownMs: 60_000 } },
    );
    for (let i = 0; i < 5; i++) await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: `hi ${i}` }] });
    expect(upstream.hits('down')).toBe(2);
    expect(upstream.hits('backup')).toBe(5);
  });
});

describe('streams: cancellation and upstream failure after commit', () => {
  it('aborts the upstream when the client cancels mid-stream, and still records the request as cancelled, never free', async () => {
    let upstreamCancelled = false;
    const slow: Scenario = () => {
      const text = fixtureText('anthropic-messages/stream-thinking.sse');
      const events = text.split('\n\n').map((e) => `${e}\n\n`);
      let i = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (i >= events.length) {
              // Hold the connection open: the client must cancel.
              await new Promise((r) => setTimeout(r, 5000));
              controller.close();
              return;
            }
            await new Promise((r) => setTimeout(r, i < 4 ? 0 : 50));
            controller.enqueue(new TextEncoder().encode(events[i++]!.replace('"type":"message_stop"', '"type":"ping"')));
          },
          cancel() {
            upstreamCancelled = true;
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    };
    const { openai, records } = await setup({ anthropic: slow });
    const controller = new AbortController();
    const stream = await openai.chat.completions.create(
      { model: 'claude-sonnet', messages: [{ role: 'user', content: 'think' }], stream: true },
      { signal: controller.signal },
    );
    let chunks = 0;
    await expect(
      (async () => {
        for await (const _ of stream) {
          chunks++;
          if (chunks === 3) controller.abort();
        }
      })(),
    ).rejects.toThrow();
    await until(records, 1);
    const rec = records[0]!;
    expect(rec.status).toBe('cancelled');
    expect(rec.usage?.measured).toBe(false);
    expect(rec.cost_micros!.total).toBeGreaterThan(0);
    for (let i = 0; i < 100 && !upstreamCancelled; i++) await new Promise((r) => setTimeout(r, 10));
    expect(upstreamCancelled).toBe(true);
  });

  it('turns an upstream error inside a 200 stream into the caller format’s in-stream error, which the SDK raises', async () => {
    const { openai, records } = await setup({
      anthropic: () => chunkedResponse([fixtureText('anthropic-messages/stream-error-overloaded-midstream.sse')]),
    });
    const stream = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const run = async () => {
      // Read the stream to its failure; what arrived before it is not asserted here.
      for await (const _chunk of stream);
    };
    await expect(run()).rejects.toThrow(/overloaded/i);
    await until(records, 1);
    expect(records[0]!.status).toBe('upstream_error');
    expect(records[0]!.usage?.measured).toBe(false);
  });

  it('reports a stream cut before its terminal event as an error, not a clean finish', async () => {
    const text = fixtureText('anthropic-messages/stream-text.sse');
    const cut = text.slice(0, text.indexOf('event: message_delta'));
    const { openai, records } = await setup({ anthropic: () => chunkedResponse([cut]) });
    const client = new Anthropic({ apiKey: 'unused', baseURL: 'http://x', fetch: async () => new Response() });
    void client;
    const stream = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], stream: true });
    await expect(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    ).rejects.toThrow();
    await until(records, 1);
    expect(records[0]!.status).toBe('upstream_error');
  });
});

describe('identity plan', () => {
  it('passes an Anthropic stream to an Anthropic client byte for byte', async () => {
    const { records, gateway, key } = await setup({
      anthropic: replay('anthropic-messages/stream-thinking.sse', 'anthropic-messages/response-thinking.json', { chunkSize: 17 }),
    });
    const res = await gateway.handle(
      new Request('http://gw/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet', max_tokens: 2048, stream: true, messages: [{ role: 'user', content: 'think' }] }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(fixtureText('anthropic-messages/stream-thinking.sse'));
    await until(records, 1);
    expect(records[0]!.usage?.measured).toBe(true);
    expect(records[0]!.upstream_format).toBe('anthropic_messages');
  });
});

describe('identity plan for OpenAI Chat', () => {
  it('asks the upstream for usage, meters it, and removes the usage chunk the client did not ask for', async () => {
    const { records, gateway, key, upstream } = await setup({
      openai: replay('openai-chat/stream-tool-call-include-usage.sse', 'openai-chat/response-text.json', { chunkSize: 23 }),
    });
    const res = await gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-mini', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'weather?' }] }),
      }),
    );
    const text = await res.text();
    const sent = JSON.parse(upstream.requests[0]!.body) as { model: string; stream_options?: { include_usage?: boolean } };
    expect(sent.model).toBe('gpt-4o-mini');
    expect(sent.stream_options?.include_usage).toBe(true);
    expect(text).not.toContain('"usage":{');
    expect(text).toContain('data: [DONE]');
    await until(records, 1);
    expect(records[0]!.usage?.measured).toBe(true);
    expect(records[0]!.usage?.output).toBeGreaterThan(0);
  });
});

describe('JWT identity', () => {
  it('accepts a token signed by a key in a locally served JWKS and rejects a forged one', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const upstream = await startMockUpstream({ anthropic: replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json') });
    const records: UsageRecord[] = [];
    const gateway = createGateway({
      registry: testRegistry(upstream.url),
      identity: { jwt: [{ issuer: 'https://idp.example', audience: 'tollgate', jwks: { keys: [jwk] }, claims: { tier: 'tier', bu: 'bu' } }] },
      secrets: SECRETS,
      usage: (r) => void records.push(r),
    });
    cleanups.push(async () => {
      await gateway.close();
      await upstream.close();
    });
    const token = await new SignJWT({ tier: 'normal', bu: 'payments' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://idp.example')
      .setAudience('tollgate')
      .setSubject('bob')
      .setExpirationTime('5m')
      .sign(privateKey);
    const ok = new OpenAI({ apiKey: token, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
    await ok.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] });
    expect(records[0]!.principal).toMatchObject({ kind: 'user', id: 'bob', tier: 'normal', bu: 'payments' });
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('https://idp.example')
      .setAudience('tollgate')
      .setSubject('mallory')
      .setExpirationTime('5m')
      .sign(other.privateKey);
    const bad = new OpenAI({ apiKey: forged, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });
});
