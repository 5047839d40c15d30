/**
 * `@tollgate/core/minimal` carries no content engine: a policy with tool allow lists or prompts
 * is refused — at start and on reload — unless the engine of `@tollgate/core/content` is
 * passed, and enforced when it is. `@tollgate/core` passes it by default.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { createGateway as createMinimalGateway, GatewayConfigError, type Gateway, type PolicyFileInput } from '@tollgate/core/minimal';
import { contentEngine } from '@tollgate/core/content';
import { createGateway } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { ANTHROPIC_SECRET, anthropicUpstream, registry } from '../gateway/__tests__/anthropic-upstream.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

const TOOLS = { tools: { allow_lists: [{ id: 'lookups', match: {}, allow: ['get_*'] }] } } satisfies PolicyFileInput;
const PROMPTS = { prompts: [{ id: 'conduct', version: 3, text: 'Be kind.' }] } satisfies PolicyFileInput;

async function options() {
  const { key, hash } = await createVirtualKey();
  const upstream = anthropicUpstream();
  return {
    key,
    upstream,
    options: {
      registry: registry(),
      identity: { virtual_keys: [{ hash, principal: { user: 'alice' } }] },
      secrets: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET },
      fetch: upstream.fetch,
      codecs: [openaiChatCodec, anthropicMessagesCodec],
    },
  };
}

function refusal(make: () => unknown): GatewayConfigError {
  try {
    make();
  } catch (error) {
    if (error instanceof GatewayConfigError) return error;
    throw error;
  }
  throw new Error('not refused');
}

const ENGINE_NAMED = /content: \{ engine: contentEngine \}.*'@tollgate\/core\/content'/;

function chat(key: string, body: Record<string, unknown>): Request {
  return new Request('https://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

describe('@tollgate/core/minimal and the content engine', () => {
  it.each([
    ['tools.allow_lists', TOOLS],
    ['prompts', PROMPTS],
  ] as const)('refuses a policy with %s without the engine', async (path, policy) => {
    const { options: o } = await options();
    const error = refusal(() => createMinimalGateway({ ...o, policy }));
    expect(error.source).toBe('policy');
    expect(error.errors).toEqual([{ path, message: expect.stringMatching(ENGINE_NAMED) }]);
  });

  it('names both when the policy has both', async () => {
    const { options: o } = await options();
    const error = refusal(() => createMinimalGateway({ ...o, policy: { ...TOOLS, ...PROMPTS } }));
    expect(error.errors.map((e) => e.path)).toEqual(['tools.allow_lists', 'prompts']);
  });

  it('takes a policy whose tool allow lists and prompts are empty', async () => {
    const { options: o } = await options();
    const gateway = createMinimalGateway({ ...o, policy: { tools: { allow_lists: [] }, prompts: [] } });
    open.push(gateway);
    expect(gateway.policyRevision).not.toBeNull();
  });

  it('refuses it on reload too, keeping the last good policy', async () => {
    const { options: o } = await options();
    const gateway = createMinimalGateway({ ...o, policy: { tools: { allow_lists: [] } } });
    open.push(gateway);
    const before = gateway.policyRevision;
    expect(() => gateway.reload({ policy: PROMPTS })).toThrow(GatewayConfigError);
    expect(() => gateway.reload({ policy: TOOLS })).toThrow(GatewayConfigError);
    expect(gateway.policyRevision).toBe(before);
  });

  it('enforces both with the engine (and @tollgate/core has it by default)', async () => {
    for (const make of [(o: Parameters<typeof createMinimalGateway>[0]) => createMinimalGateway({ ...o, content: { engine: contentEngine } }), createGateway]) {
      const { key, upstream, options: o } = await options();
      const gateway = make({ ...o, policy: { ...TOOLS, ...PROMPTS } });
      open.push(gateway);
      const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

      const refused = await gateway.handle(chat(key, { tools: [tool('delete_account')] }));
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("The tool 'delete_account' is not allowed");
      expect(upstream.seen).toHaveLength(0);

      const allowed = await gateway.handle(chat(key, { tools: [tool('get_weather')] }));
      expect(allowed.status).toBe(200);
      expect(JSON.stringify(upstream.seen[0]!.body.system)).toContain('Be kind.');
    }
  });
});
