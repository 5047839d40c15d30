/**
 * DLP on the edge: the DLP matrix (test/support/dlp-matrix.ts) through `createEdgeHandler` of
 * `@tollgate/adapters-edge` behind a loopback server; and the minimal bundle
 * (`@tollgate/adapters-edge/minimal`, built on `@tollgate/core/minimal`), which carries no DLP
 * engine: it refuses a policy with DLP keys unless given `dlpEngine` of `@tollgate/core/dlp`,
 * and enforces it when given.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEdgeHandler } from '@tollgate/adapters-edge';
import { createEdgeHandler as createMinimalEdgeHandler, GatewayConfigError } from '@tollgate/adapters-edge/minimal';
import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
import { geminiCodec } from '@tollgate/codecs/gemini';
import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
import { openaiResponsesCodec } from '@tollgate/codecs/openai-responses';
import type { PolicyFileInput, UsageRecord } from '@tollgate/core';
import { dlpEngine } from '@tollgate/core/dlp';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoModel, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { MATRIX_POLICY, MATRIX_PRINCIPAL, MATRIX_VARIANTS, PII, describeDlpMatrix, type MatrixTarget } from './support/dlp-matrix.js';
import { startServer, type TestServer } from './support/http-server.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { sdkClients } from './support/sdk-ask.js';

let upstream: MockUpstream;
let server: TestServer;
let target: MatrixTarget;
let key: string;
let identity: Awaited<ReturnType<typeof keysFor>>['identity'];
const seen: Seen[] = [];
const records: UsageRecord[] = [];
const closers: Array<() => Promise<void>> = [];
const codecs = [openaiChatCodec, openaiResponsesCodec, anthropicMessagesCodec, geminiCodec];

beforeAll(async () => {
  upstream = await startMockUpstream(echoScenarios(MATRIX_VARIANTS, seen));
  const ids = await keysFor(MATRIX_PRINCIPAL);
  key = ids.keys.alice!;
  identity = ids.identity;
  const handler = createEdgeHandler({
    registry: echoRegistry(upstream.url, Object.keys(MATRIX_VARIANTS)),
    policy: MATRIX_POLICY,
    identity,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
  });
  closers.push(() => handler.close({ drainMs: 100 }));
  server = await startServer((request) => handler(request));
  target = { clients: sdkClients(key, server.url), records: () => records as unknown as Array<Record<string, unknown>>, seen };
});

afterAll(async () => {
  await server?.close();
  for (const close of closers) await close();
  await upstream?.close();
});

describeDlpMatrix('edge handler', () => target);

describe('edge handler, minimal bundle', () => {
  const options = () => ({ registry: echoRegistry(upstream.url, ['echo']), identity, secrets: ECHO_SECRETS, codecs });

  it('refuses a policy with DLP keys without the DLP engine, naming the way out', () => {
    for (const dlp of [
      { default: { email: 'redact' } },
      { use_cases: [{ id: 'u', actions: { email: 'log' } }] },
      { scan_responses: true },
      { custom: [{ id: 'ticket', pattern: 'TKT-[0-9]+' }] },
    ]) {
      let error: unknown;
      try {
        createMinimalEdgeHandler({ ...options(), policy: { dlp } as PolicyFileInput });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(dlp)).toBeInstanceOf(GatewayConfigError);
      expect((error as GatewayConfigError).message).toMatch(/dlpEngine.*@tollgate\/core\/dlp/);
    }
    // No DLP key: no engine needed.
    const plain = createMinimalEdgeHandler({ ...options(), policy: { tools: { allow_lists: [] } } });
    closers.push(() => plain.close({ drainMs: 100 }));
  });

  it('enforces the policy when given dlpEngine: the original never leaves and comes back in the answer', async () => {
    const minimalRecords: UsageRecord[] = [];
    const handler = createMinimalEdgeHandler({
      ...options(),
      policy: { dlp: { default: { email: 'pseudonymize', credit_card: 'block' } } },
      dlp: { engine: dlpEngine },
      usage: (r) => void minimalRecords.push(r),
    });
    closers.push(() => handler.close({ drainMs: 100 }));
    const openai = new OpenAI({ apiKey: key, baseURL: 'http://edge/v1', fetch: (input, init) => handler(new Request(input, init)), maxRetries: 0 });
    const from = seen.length;
    for (const stream of [false, true]) {
      let text = '';
      if (stream) {
        const s = await openai.chat.completions.create({
          model: echoModel('anthropic_messages'),
          stream: true,
          messages: [{ role: 'user', content: 'mail jane.doe@acme.io' }],
        });
        for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? '';
      } else {
        text =
          (await openai.chat.completions.create({ model: echoModel('anthropic_messages'), messages: [{ role: 'user', content: 'mail jane.doe@acme.io' }] }))
            .choices[0]!.message.content ?? '';
      }
      expect(text).toBe('You said: mail jane.doe@acme.io');
    }
    const blocked = await openai.chat.completions
      .create({ model: echoModel('anthropic_messages'), messages: [{ role: 'user', content: PII }] })
      .catch((e: unknown) => e);
    expect(blocked).toBeInstanceOf(OpenAI.BadRequestError);
    expect(seen.slice(from)).toHaveLength(2);
    for (const s of seen.slice(from)) expect(JSON.stringify(s.body)).not.toContain('jane.doe');
    expect(minimalRecords.map((r) => r.reason)).toEqual([null, null, 'dlp_block:credit_card']);
  });
});
