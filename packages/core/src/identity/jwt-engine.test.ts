/**
 * JWT verification is an opt-in of `@tollgate/core/minimal`, as DLP and telemetry are: `jwt`
 * entries are refused without the engine — at start, on reload, and by its
 * `createIdentityResolver` — and verified with `jwtEngine` of `@tollgate/core/jwt`, as
 * `@tollgate/core` verifies them by default.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import * as minimal from '@tollgate/core/minimal';
import { jwtEngine } from '@tollgate/core/jwt';
import { createGateway, createIdentityResolver } from '../index.js';
import { ANTHROPIC_SECRET, anthropicUpstream, registry } from '../gateway/__tests__/anthropic-upstream.js';
import { AUDIENCE, ISSUER, bearer, makeKey, sign } from './__tests__/fixtures.js';

const open: minimal.Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close({ drainMs: 100 })));
});

async function setup() {
  const key = await makeKey('k1', 'ES256');
  const identity = { jwt: [{ issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [key.publicJwk] } }] };
  const upstream = anthropicUpstream();
  const options: minimal.MinimalGatewayOptions = {
    registry: registry(),
    identity,
    secrets: { ANTHROPIC_API_KEY: ANTHROPIC_SECRET },
    fetch: upstream.fetch,
    codecs: [openaiChatCodec, anthropicMessagesCodec],
  };
  return { key, identity, options, token: () => sign(key, { sub: 'alice' }) };
}

const chat = (token: string) =>
  new Request('https://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }),
  });

function refusal(make: () => unknown): minimal.GatewayConfigError {
  try {
    make();
  } catch (error) {
    if (error instanceof minimal.GatewayConfigError) return error;
    throw error;
  }
  throw new Error('not refused');
}

const NAMES_THE_IMPORT = /jwt: \{ engine: jwtEngine \}.*'@tollgate\/core\/jwt'/;

describe('@tollgate/core/minimal and JWT', () => {
  it('refuses jwt entries without the engine, naming the import', async () => {
    const { options } = await setup();
    const error = refusal(() => minimal.createGateway(options));
    expect(error.source).toBe('identity');
    expect(error.errors).toEqual([{ path: 'identity', message: expect.stringMatching(NAMES_THE_IMPORT) }]);
    expect(() => minimal.createIdentityResolver(options.identity)).toThrow(NAMES_THE_IMPORT);
  });

  it('refuses them on reload too, keeping the last good identity', async () => {
    const { identity, options } = await setup();
    const gateway = minimal.createGateway({ ...options, identity: { virtual_keys: [] } });
    open.push(gateway);
    expect(() => gateway.reload({ identity })).toThrow(minimal.GatewayConfigError);
    const answer = await gateway.handle(chat('tg_' + 'x'.repeat(40)));
    expect(answer.status).toBe(401);
  });

  it('verifies tokens with the engine, as @tollgate/core does by default', async () => {
    const { options, token } = await setup();
    for (const gateway of [minimal.createGateway({ ...options, jwt: { engine: jwtEngine } }), createGateway(options)]) {
      open.push(gateway);
      expect((await gateway.handle(chat(await token()))).status).toBe(200);
      // A token of another key is still refused.
      const other = await makeKey('k1', 'ES256');
      expect((await gateway.handle(chat(await sign(other, { sub: 'alice' })))).status).toBe(401);
    }
  });

  it('createIdentityResolver: the minimal one with the engine, the root one by default', async () => {
    const { identity, token } = await setup();
    for (const resolver of [minimal.createIdentityResolver(identity, { jwtEngine }), createIdentityResolver(identity)]) {
      const r = await resolver.authenticate(bearer(await token()));
      expect(r).toMatchObject({ ok: true, method: 'jwt', principal: { kind: 'user', id: 'alice', issuer: ISSUER } });
    }
  });
});
