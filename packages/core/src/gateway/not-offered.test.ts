/**
 * A model asked for through an API it is not offered on: a caller who may use it learns where
 * it is offered; a caller who may not gets exactly the answer an unknown model gets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type UsageRecord } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { anthropicUpstream, registry } from './__tests__/anthropic-upstream.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

async function setup() {
  const alice = await createVirtualKey();
  const bob = await createVirtualKey();
  const records: UsageRecord[] = [];
  const upstream = anthropicUpstream();
  const gateway = createGateway({
    registry: registry({ geminiRoute: true, geminiDeployment: true }),
    // bob's business unit may not use gemini-flash.
    policy: { access: { models: { 'gemini-flash': { block_bus: ['research'] } } } },
    identity: {
      virtual_keys: [
        { hash: alice.hash, principal: { user: 'alice', bu: 'payments' } },
        { hash: bob.hash, principal: { user: 'bob', bu: 'research' } },
      ],
    },
    secrets: { ANTHROPIC_API_KEY: 'sk-ant', GEMINI_API_KEY: 'g' },
    fetch: upstream.fetch,
    usage: (r) => void records.push(r),
  });
  open.push(gateway);
  const messages = (key: string, model: string) =>
    gateway.handle(
      new Request('http://gw.test/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
  return { alice: alice.key, bob: bob.key, messages, records, upstream };
}

describe('a model not offered through the API called', () => {
  it('tells a caller who may use it that it is not offered there, and where it is', async () => {
    const { alice, messages, records, upstream } = await setup();
    const res = await messages(alice, 'gemini-flash');
    expect(res.status).toBe(404);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toBe(
      "The model 'gemini-flash' is not offered through the Anthropic Messages API here; it is offered through OpenAI Chat Completions (/v1/chat/completions).",
    );
    expect(records.at(-1)).toMatchObject({ status: 'rejected', reason: 'format_not_offered', model: 'gemini-flash' });
    expect(upstream.seen).toHaveLength(0);
  });

  it('answers a caller who may not use it exactly as for a model that does not exist', async () => {
    const { bob, messages, records } = await setup();
    const denied = await messages(bob, 'gemini-flash');
    const unknown = await messages(bob, 'no-such-model');
    expect(denied.status).toBe(unknown.status);
    const text = (r: Response) => r.text().then((t) => t.replaceAll('gemini-flash', 'X').replaceAll('no-such-model', 'X'));
    expect(await text(denied)).toBe(await text(unknown));
    expect(records.map((r) => r.reason)).toEqual(['access_denied', 'model_not_found']);
  });
});
