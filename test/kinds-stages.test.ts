/**
 * The stages the kinds that do not generate share with generation, with the real SDKs against
 * loopback upstreams: DLP (what a token count or an embedding sends upstream is scanned like a
 * generation's request — blocked, redacted, or in shadow mode only counted) and telemetry (a
 * SERVER span and a CLIENT span per attempt, named for the operation, `traceparent` sent on),
 * region routing, the early refusal of a large body, and an answer that stalls.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyFileInput } from '@tollgate/policy';
import { createGateway, type RegistryFileInput, type UpstreamFetch, type UsageRecord } from '@tollgate/core';
import { keysFor, SECRETS } from './support/gateway-fixture.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { seriesOf, testSdk } from './support/otel.js';

type Json = Record<string, any>;

const EMAIL = 'jane.doe@acme.io';
const CARD = '4111 1111 1111 1111';

let upstream: MockUpstream;
let keys: Record<string, string>;
let identity: Awaited<ReturnType<typeof keysFor>>['identity'];
const seen: Json[] = [];
const traceparents: Array<string | null> = [];

function registry(url: string): RegistryFileInput {
  const priced = { unit: 'usd_per_mtok', input: '1', output: '0' } as const;
  return {
    wire_formats: { openai_chat: { family: 'chat' }, anthropic_messages: { family: 'chat' }, gemini_generate_content: { family: 'chat' } },
    entry_routes: [
      { path: '/v1/messages/count_tokens', format: 'anthropic_messages', kind: 'count_tokens' },
      { path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' },
      { path: '/v1beta/models/{model}:embedContent', format: 'gemini_generate_content', kind: 'embed' },
    ],
    converters: [{ from: 'gemini_generate_content', to: 'openai_chat' }],
    credentials: {
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
      openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
    },
    providers: {
      anthropic: { base_url: `${url}/anthropic`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      openai: { base_url: `${url}/openai`, credential: 'openai' },
    },
    operations: [
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' },
    ],
    models: {
      claude: {
        brand: 'anthropic',
        entry_formats: ['anthropic_messages'],
        deployments: [
          { id: 'claude@anthropic', provider: 'anthropic', format: 'anthropic_messages', upstream_model: 'claude-sonnet-4-5', pricing: priced, region: 'eu' },
        ],
      },
      embedder: {
        brand: 'openai',
        kind: 'embed',
        entry_formats: ['openai_chat', 'gemini_generate_content'],
        deployments: [{ id: 'emb@openai', provider: 'openai', format: 'openai_chat', upstream_model: 'text-embedding-3-small', pricing: priced, region: 'us' }],
      },
    },
  };
}

function gatewayWith(policy: PolicyFileInput, telemetry?: ReturnType<typeof testSdk>['telemetry'], upstreamFetch?: UpstreamFetch) {
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: registry(upstream.url),
    policy,
    identity,
    secrets: SECRETS,
    usage: (r) => void records.push(r),
    ...(telemetry === undefined ? {} : { telemetry }),
    ...(upstreamFetch === undefined ? {} : { fetch: upstreamFetch }),
  });
  const fetch = gateway.fetch;
  return {
    gateway,
    records,
    openai: new OpenAI({ apiKey: keys.alice!, baseURL: 'http://gw/v1', fetch, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: keys.alice!, baseURL: 'http://gw', fetch, maxRetries: 0 }),
  };
}

beforeAll(async () => {
  upstream = await startMockUpstream({
    anthropic: (request, body) => (traceparents.push(request.headers.get('traceparent')), seen.push(body), Response.json({ input_tokens: 12 })),
    openai: (request, body) => {
      traceparents.push(request.headers.get('traceparent'));
      seen.push(body);
      const inputs = Array.isArray(body['input']) ? (body['input'] as unknown[]) : [body['input']];
      return Response.json({
        object: 'list',
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })),
        model: body['model'],
        usage: { prompt_tokens: 4, total_tokens: 4 },
      });
    },
  });
  ({ keys, identity } = await keysFor({ user: 'alice', bu: 'sales' }));
});

afterAll(async () => {
  await upstream.close();
});

describe('embeddings: every text input is scanned before it leaves', () => {
  it('redact: the upstream sees the marker, the caller gets a vector per input, the record counts', async () => {
    const { gateway, openai, records } = gatewayWith({ dlp: { default: { email: 'redact' } } });
    const from = seen.length;
    const out = await openai.embeddings.create({ model: 'embedder', input: [`write to ${EMAIL}`, 'plain text'], user: EMAIL });
    expect(out.data).toHaveLength(2);
    const sent = seen.slice(from);
    expect(sent).toHaveLength(1);
    expect(sent[0]!['input']).toEqual(['write to [REDACTED:EMAIL]', 'plain text']);
    expect(JSON.stringify(sent)).not.toContain(EMAIL);
    expect(records.at(-1)).toMatchObject({ kind: 'embed', status: 'ok', dlp: { email: { action: 'redact', count: 2 } } });
    await gateway.close();
  });

  it('block: 400 in the caller’s format, nothing sent, the reason recorded', async () => {
    const { gateway, openai, records } = gatewayWith({ dlp: { default: { credit_card: 'block' } } });
    const from = seen.length;
    const error = await openai.embeddings.create({ model: 'embedder', input: ['fine', `card ${CARD}`] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    // Gemini's title is a text that leaves too.
    const viaGemini = await gateway.fetch('http://gw/v1beta/models/embedder:embedContent', {
      method: 'POST',
      headers: { 'x-goog-api-key': keys.alice!, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'fine' }] }, taskType: 'RETRIEVAL_DOCUMENT', title: `card ${CARD}` }),
    });
    expect(viaGemini.status).toBe(400);
    expect(((await viaGemini.json()) as Json)['error']).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(seen.length).toBe(from);
    expect(records.map((r) => [r.kind, r.http_status, r.reason])).toEqual([
      ['embed', 400, 'dlp_block:credit_card'],
      ['embed', 400, 'dlp_block:credit_card'],
    ]);
    await gateway.close();
  });

  it('token-id inputs cannot be scanned: refused while DLP acts on the caller, sent when it does not', async () => {
    const acting = gatewayWith({ dlp: { default: { email: 'redact' } } });
    const from = seen.length;
    const error = await acting.openai.embeddings.create({ model: 'embedder', input: [[1, 2, 3]] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(seen.length).toBe(from);
    expect(acting.records.at(-1)).toMatchObject({ kind: 'embed', http_status: 400, reason: 'dlp_unscannable:token_ids' });
    await acting.gateway.close();

    // DLP for another business unit only: alice's token ids go as they are.
    const other = gatewayWith({ dlp: { use_cases: [{ id: 'research', match: { bus: ['research'] }, actions: { email: 'redact' } }] } });
    const out = await other.openai.embeddings.create({ model: 'embedder', input: [[1, 2, 3]] });
    expect(out.data).toHaveLength(1);
    expect(seen.at(-1)!['input']).toEqual([[1, 2, 3]]);
    await other.gateway.close();
  });

  it('shadow mode: sent unchanged, what would have been blocked is recorded', async () => {
    const { gateway, openai, records } = gatewayWith({ enforcement: 'shadow', dlp: { default: { credit_card: 'block' } } });
    await openai.embeddings.create({ model: 'embedder', input: `card ${CARD}` });
    expect(JSON.stringify(seen.at(-1))).toContain(CARD);
    expect(records.at(-1)).toMatchObject({ kind: 'embed', status: 'ok', would_block: ['dlp_block:credit_card'] });
    await gateway.close();
  });
});

describe('token counting: the conversation is scanned as a generation’s would be', () => {
  it('redact: the counting request carries the marker; block: 400, nothing sent', async () => {
    const redacting = gatewayWith({ dlp: { default: { email: 'redact' } } });
    const from = seen.length;
    const out = await redacting.anthropic.messages.countTokens({
      model: 'claude',
      system: `Reply to ${EMAIL}`,
      messages: [{ role: 'user', content: `Mail ${EMAIL}` }],
    });
    expect(out.input_tokens).toBe(12);
    expect(JSON.stringify(seen.slice(from))).not.toContain(EMAIL);
    expect(seen.at(-1)).toMatchObject({ system: 'Reply to [REDACTED:EMAIL]', messages: [{ content: [{ type: 'text', text: 'Mail [REDACTED:EMAIL]' }] }] });
    expect(redacting.records.at(-1)).toMatchObject({ kind: 'count_tokens', status: 'ok', dlp: { email: { action: 'redact', count: 2 } } });
    await redacting.gateway.close();

    const blocking = gatewayWith({ dlp: { default: { credit_card: 'block' } } });
    const before = seen.length;
    const error = await blocking.anthropic.messages
      .countTokens({ model: 'claude', messages: [{ role: 'user', content: `card ${CARD}` }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(seen.length).toBe(before);
    expect(blocking.records.at(-1)).toMatchObject({ kind: 'count_tokens', http_status: 400, reason: 'dlp_block:credit_card' });
    await blocking.gateway.close();
  });
});

describe('telemetry names what the request did', () => {
  it('embeddings and count_tokens: a SERVER span and a CLIENT span each, the operation named, the trace sent on, the metrics labelled', async () => {
    const sdk = testSdk();
    const { gateway, openai, anthropic } = gatewayWith({}, sdk.telemetry);
    await openai.embeddings.create({ model: 'embedder', input: 'hello' });
    await anthropic.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'hello' }] });
    await expect.poll(() => sdk.spans().length).toBe(4);
    const spans = sdk.spans().map((s) => [s.kind, s.name, s.attributes['gen_ai.operation.name'], s.attributes['gen_ai.provider.name']]);
    expect(spans).toEqual(
      expect.arrayContaining([
        [SpanKind.CLIENT, 'embeddings text-embedding-3-small', 'embeddings', 'openai'],
        [SpanKind.SERVER, 'embeddings embedder', 'embeddings', 'openai'],
        [SpanKind.CLIENT, 'count_tokens claude-sonnet-4-5', 'count_tokens', 'anthropic'],
        [SpanKind.SERVER, 'count_tokens claude', 'count_tokens', 'anthropic'],
      ]),
    );
    // The upstream calls carry the CLIENT spans' trace context.
    const clientIds = sdk
      .spans()
      .filter((s) => s.kind === SpanKind.CLIENT)
      .map((s) => s.spanContext().spanId);
    for (const id of clientIds) expect(traceparents.some((t) => t !== null && t.includes(id))).toBe(true);
    const durations = seriesOf(await sdk.series(), 'gen_ai.client.operation.duration');
    expect(durations.map((s) => s.attributes['gen_ai.operation.name']).sort()).toEqual(['count_tokens', 'embeddings']);
    await gateway.close();
    await sdk.shutdown();
  });
});

describe('a large body meets the refusals its content cannot change before it is read', () => {
  it('embed: the request-rate window is full, so an 8 MB body is refused at once, barely read', async () => {
    const { gateway, openai, records } = gatewayWith({ rate_limits: [{ id: 'rpm', rpm: 1 }] });
    await openai.embeddings.create({ model: 'embedder', input: 'first' });
    const MB = 1024 * 1024;
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += piece.byteLength;
        controller.enqueue(piece);
        if (pulled >= 8 * MB) controller.close();
      },
    });
    const res = await gateway.handle({
      method: 'POST',
      url: 'http://gw/v1/embeddings',
      headers: new Headers({ authorization: `Bearer ${keys.alice!}`, 'content-type': 'application/json', 'content-length': String(8 * MB) }),
      signal: new AbortController().signal,
      body,
    });
    expect(res.status).toBe(429);
    expect(pulled).toBeLessThan(MB);
    expect(records.at(-1)).toMatchObject({ kind: 'embed', status: 'rejected', reason: 'rate_limit:rpm' });
    await gateway.close();
  });
});

describe('regions: counts and embeddings go only where the caller’s data may go', () => {
  it('a policy region rule refuses an embedding served only elsewhere (403), lets a count through where it is served; x-tollgate-region narrows too', async () => {
    const { gateway, openai, anthropic, records } = gatewayWith({ regions: [{ id: 'eu-residency', allow: ['eu'] }] });
    const from = seen.length;
    const error = await openai.embeddings.create({ model: 'embedder', input: 'hello' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(seen.length).toBe(from);
    expect(records.at(-1)).toMatchObject({ kind: 'embed', http_status: 403, reason: 'region:eu-residency' });

    const counted = await anthropic.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'hello' }] });
    expect(counted.input_tokens).toBe(12);
    expect(records.at(-1)).toMatchObject({ kind: 'count_tokens', status: 'ok', region: 'eu' });

    const elsewhere = await anthropic.messages
      .countTokens({ model: 'claude', messages: [{ role: 'user', content: 'hello' }] }, { headers: { 'x-tollgate-region': 'us' } })
      .catch((e: unknown) => e);
    expect(elsewhere).toBeInstanceOf(Anthropic.BadRequestError);
    expect(records.at(-1)).toMatchObject({ kind: 'count_tokens', http_status: 400, reason: 'region_unavailable' });
    expect(seen.length).toBe(from + 1);
    await gateway.close();
  });
});

describe('an answer that stalls after its head', () => {
  it('embed: the transport’s time bound is a 504 upstream_timeout in the caller’s format, recorded', async () => {
    // What a transport's idle bound looks like from here: the body errors with a TimeoutError.
    const stalling: UpstreamFetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"object":"list","data":['));
            controller.error(new DOMException('The operation timed out.', 'TimeoutError'));
          },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const { gateway, openai, records } = gatewayWith({}, undefined, stalling);
    const error = await openai.embeddings.create({ model: 'embedder', input: 'hello' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect(records.at(-1)).toMatchObject({ kind: 'embed', http_status: 504, reason: 'upstream_timeout', status: 'upstream_error' });
    await gateway.close();
  });
});
