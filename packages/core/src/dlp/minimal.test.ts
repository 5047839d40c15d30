/**
 * `@tollgate/core/minimal` carries no DLP engine: a policy with any DLP key is refused — at
 * start and on reload — unless the engine of `@tollgate/core/dlp` is passed, and enforced when
 * it is. `@tollgate/core` passes it by default.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { createGateway as createMinimalGateway, GatewayConfigError, type Gateway, type PolicyFileInput } from '@tollgate/core/minimal';
import { dlpEngine } from '@tollgate/core/dlp';
import { createGateway } from '../index.js';
import { createVirtualKey } from '../identity/index.js';
import { ANTHROPIC_SECRET, anthropicUpstream, registry } from '../gateway/__tests__/anthropic-upstream.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

const DLP_POLICIES = [
  { dlp: { default: { email: 'redact' } } },
  { dlp: { use_cases: [{ id: 'support', actions: { phone: 'log' } }] } },
  { dlp: { custom: [{ id: 'ticket', pattern: 'TKT-[0-9]+' }] } },
  { dlp: { scan_responses: true } },
] satisfies PolicyFileInput[];

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

describe('@tollgate/core/minimal and DLP', () => {
  it.each(DLP_POLICIES.map((p) => [Object.keys(p.dlp)[0]!, p] as const))('refuses a policy with dlp.%s without the engine', async (_key, policy) => {
    const { options: o } = await options();
    const error = refusal(() => createMinimalGateway({ ...o, policy }));
    expect(error.source).toBe('policy');
    expect(error.errors).toEqual([{ path: 'dlp', message: expect.stringMatching(/dlp: \{ engine: dlpEngine \}.*'@tollgate\/core\/dlp'/) }]);
  });

  it('refuses it on reload too, keeping the last good policy', async () => {
    const { options: o } = await options();
    const gateway = createMinimalGateway({ ...o, policy: { tools: { allow_lists: [] } } });
    open.push(gateway);
    const before = gateway.policyRevision;
    expect(() => gateway.reload({ policy: DLP_POLICIES[0] })).toThrow(GatewayConfigError);
    expect(gateway.policyRevision).toBe(before);
  });

  it('enforces it with the engine (and @tollgate/core has it by default)', async () => {
    for (const make of [(o: Parameters<typeof createMinimalGateway>[0]) => createMinimalGateway({ ...o, dlp: { engine: dlpEngine } }), createGateway]) {
      const { key, upstream, options: o } = await options();
      const gateway = make({ ...o, policy: { dlp: { default: { email: 'redact' } } } });
      open.push(gateway);
      const response = await gateway.handle(
        new Request('https://gateway.test/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'mail jane.doe@acme.io' }] }),
        }),
      );
      expect(response.status).toBe(200);
      expect(JSON.stringify(upstream.seen[0]!.body)).toContain('mail [REDACTED:EMAIL]');
      expect(JSON.stringify(upstream.seen[0]!.body)).not.toContain('jane.doe');
    }
  });
});
