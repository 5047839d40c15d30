import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UsageRecord } from '@tollgate/core';
import { createWorker, envSecrets, type EdgeHandlerOptions } from './index.js';
import { OPENAI_SECRET, aliceIdentity, cappedPolicy, chatRequest, edgeRegistry, fakeUpstream, streamedText } from './__tests__/fixture.js';

interface Env {
  OPENAI_API_KEY: string;
  USAGE_KV?: object;
}

afterEach(() => vi.restoreAllMocks());

function ctx() {
  const promises: Promise<unknown>[] = [];
  return { promises, waitUntil: (p: Promise<unknown>) => void promises.push(p), passThroughOnException: () => {} };
}

describe('createWorker', () => {
  it('builds the gateway on the first request from env, reads secrets from env, and reuses it', async () => {
    const upstream = fakeUpstream();
    const { key, identity } = await aliceIdentity();
    const records: UsageRecord[] = [];
    const configure = vi.fn((_env: Env): EdgeHandlerOptions => ({
      registry: edgeRegistry(),
      identity,
      fetch: upstream.fetch,
      usage: (r) => void records.push(r),
    }));
    const worker = createWorker(configure);
    expect(configure).not.toHaveBeenCalled();
    const env: Env = { OPENAI_API_KEY: OPENAI_SECRET, USAGE_KV: {} };
    const c = ctx();
    const [first, second] = await Promise.all([worker.fetch(chatRequest(key, { stream: true }), env, c), worker.fetch(chatRequest(key), env, c)]);
    expect(configure).toHaveBeenCalledTimes(1);
    expect(configure).toHaveBeenCalledWith(env);
    expect((await streamedText(first)).text).toBe('Hello from the edge');
    expect(((await second.json()) as { choices: unknown[] }).choices).toHaveLength(1);
    expect(upstream.seen.map((s) => s.headers.get('authorization'))).toEqual([`Bearer ${OPENAI_SECRET}`, `Bearer ${OPENAI_SECRET}`]);
    // ctx.waitUntil got one delivery promise per request, and they settle once both records are in.
    expect(c.promises).toHaveLength(2);
    await Promise.all(c.promises);
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('keeps secrets given in the options over env', async () => {
    const upstream = fakeUpstream();
    const { key, identity } = await aliceIdentity();
    const worker = createWorker<Env>(() => ({ registry: edgeRegistry(), identity, fetch: upstream.fetch, secrets: { OPENAI_API_KEY: 'from-options' } }));
    await (await worker.fetch(chatRequest(key), { OPENAI_API_KEY: OPENAI_SECRET })).text();
    expect(upstream.seen[0]!.headers.get('authorization')).toBe('Bearer from-options');
  });

  it('accepts an async configure (e.g. a registry read from KV)', async () => {
    const upstream = fakeUpstream();
    const { key, identity } = await aliceIdentity();
    const worker = createWorker<Env>(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return { registry: edgeRegistry(), identity, fetch: upstream.fetch };
    });
    expect((await worker.fetch(chatRequest(key), { OPENAI_API_KEY: OPENAI_SECRET })).status).toBe(200);
  });

  it('answers 500 and logs the reason when the configuration is refused (hard caps on a per-isolate store), then tries again', async () => {
    const { key, identity } = await aliceIdentity();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const configure = vi.fn(() => ({ registry: edgeRegistry(), identity, policy: cappedPolicy(), notify: () => {} }));
    const worker = createWorker<Env>(configure);
    const response = await worker.fetch(chatRequest(key), { OPENAI_API_KEY: OPENAI_SECRET }, ctx());
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('gateway_misconfigured');
    expect(String(errors.mock.calls[0]?.[1])).toContain('mini-cap');
    await worker.fetch(chatRequest(key), { OPENAI_API_KEY: OPENAI_SECRET });
    expect(configure).toHaveBeenCalledTimes(2);
  });
});

describe('envSecrets', () => {
  it('reads non-empty strings from env and refuses bindings and empty values', async () => {
    const secrets = envSecrets({ A: 'a', EMPTY: '', KV: { get() {} } }) as (name: string) => string;
    expect(secrets('A')).toBe('a');
    expect(() => secrets('EMPTY')).toThrow('The secret EMPTY is not set.');
    expect(() => secrets('KV')).toThrow('The secret KV is not set.');
    expect(() => secrets('MISSING')).toThrow('The secret MISSING is not set.');
  });
});
