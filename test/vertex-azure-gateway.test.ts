/**
 * Google Vertex AI with a service account, and Azure OpenAI, through the gateway with the real
 * SDKs. The Vertex upstream accepts only tokens minted by a loopback token endpoint that verifies
 * each JWT grant; the Azure upstream checks its api-key header and api-version query.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type UsageRecord, type RegistryFileInput } from '@tollgate/core';
import { awsSigV4Signer } from '@tollgate/core/aws-sigv4';
import { createGoogleServiceAccountSigner } from '@tollgate/core/google-service-account';
import { fixtureText } from './support/fixtures.js';
import { keysFor } from './support/gateway-fixture.js';
import { checkGrant, testServiceAccount, type TestServiceAccount } from './support/google-sa.js';
import { startServer, type TestServer } from './support/http-server.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

type Json = Record<string, any>;

let upstream: MockUpstream;
let tokenServer: TestServer;
let account: TestServiceAccount;
let denied: TestServiceAccount;
let hanging: TestServiceAccount;
let keys: Record<string, string>;
let identity: Awaited<ReturnType<typeof keysFor>>['identity'];
const records: UsageRecord[] = [];
/** Tokens the token endpoint minted (and the Vertex mock accepts), and ones revoked since. */
const minted = new Set<string>();
const revoked = new Set<string>();
let exchanges = 0;

const AZURE_KEY = 'azure-openai-key-0001';

function vertexScenario() {
  return async (request: Request, body: Json) => {
    const auth = request.headers.get('authorization') ?? '';
    const token = auth.replace(/^Bearer /, '');
    if (!minted.has(token) || revoked.has(token)) {
      return Response.json({ error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } }, { status: 401 });
    }
    const path = new URL(request.url).pathname;
    if (path.includes('/publishers/anthropic/'))
      return replay('anthropic-messages/stream-text.sse', 'anthropic-messages/response-cache-read.json')(request, {
        ...body,
        stream: path.endsWith(':streamRawPredict'),
      });
    if (path.endsWith(':streamGenerateContent'))
      return new Response(fixtureText('gemini/stream-text.sse'), { headers: { 'content-type': 'text/event-stream' } });
    return new Response(fixtureText('gemini/response-cached-content.json'), { headers: { 'content-type': 'application/json' } });
  };
}

function registry(url: string): RegistryFileInput {
  const gemini = (credential: string) => ({ base_url: `${url}/vertex/v1/projects/acme-prod/locations/us-central1/publishers/google/models`, credential });
  return {
    wire_formats: {
      openai_chat: { family: 'chat' },
      anthropic_messages: { family: 'chat' },
      anthropic_vertex: { family: 'chat' },
      gemini_generate_content: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
      { path: '/v1beta/models/{model}:generateContent', format: 'gemini_generate_content' },
      { path: '/v1beta/models/{model}:streamGenerateContent', format: 'gemini_generate_content', stream: true },
    ],
    converters: [
      { from: 'openai_chat', to: 'gemini_generate_content' },
      { from: 'openai_chat', to: 'anthropic_vertex' },
      { from: 'anthropic_messages', to: 'anthropic_vertex' },
      { from: 'anthropic_messages', to: 'openai_chat' },
    ],
    credentials: {
      'vertex-sa': { kind: 'google_service_account', secret: 'VERTEX_SA_KEY' },
      'vertex-sa-denied': { kind: 'google_service_account', secret: 'VERTEX_SA_KEY_DENIED' },
      'vertex-sa-hanging': { kind: 'google_service_account', secret: 'VERTEX_SA_KEY_HANGING', scopes: ['https://www.googleapis.com/auth/cloud-platform'] },
      azure: { kind: 'header', header: 'api-key', secret: 'AZURE_OPENAI_API_KEY' },
    },
    providers: {
      'vertex-gemini': gemini('vertex-sa'),
      'vertex-gemini-denied': gemini('vertex-sa-denied'),
      'vertex-gemini-hanging': gemini('vertex-sa-hanging'),
      'vertex-claude': { base_url: `${url}/vertex/v1/projects/acme-prod/locations/us-east5/publishers/anthropic/models`, credential: 'vertex-sa' },
      azure: { base_url: `${url}/azure`, credential: 'azure' },
    },
    operations: [
      ...['vertex-gemini', 'vertex-gemini-denied', 'vertex-gemini-hanging'].map((provider) => ({
        provider,
        format: 'gemini_generate_content',
        family: 'chat' as const,
        path: '/{model}:generateContent',
        stream_path: '/{model}:streamGenerateContent?alt=sse',
      })),
      { provider: 'vertex-claude', format: 'anthropic_vertex', family: 'chat', path: '/{model}:rawPredict', stream_path: '/{model}:streamRawPredict' },
      { provider: 'azure', format: 'openai_chat', family: 'chat', path: '/openai/deployments/{model}/chat/completions?api-version=2024-10-21' },
    ],
    models: {
      'gemini-pro': {
        brand: 'google',
        entry_formats: ['gemini_generate_content', 'openai_chat'],
        deployments: [
          {
            id: 'gemini@vertex',
            provider: 'vertex-gemini',
            format: 'gemini_generate_content',
            upstream_model: 'gemini-2.5-pro',
            pricing: { unit: 'usd_per_mtok', input: '1.25', output: '10', cache_read: '0.31' },
          },
        ],
      },
      'gemini-denied': {
        brand: 'google',
        entry_formats: ['gemini_generate_content'],
        deployments: [
          {
            id: 'denied@vertex',
            provider: 'vertex-gemini-denied',
            format: 'gemini_generate_content',
            upstream_model: 'gemini-2.5-pro',
            pricing: { unit: 'usd_per_mtok', input: '1', output: '1' },
          },
        ],
      },
      'gemini-hanging': {
        brand: 'google',
        entry_formats: ['gemini_generate_content'],
        deployments: [
          {
            id: 'hanging@vertex',
            provider: 'vertex-gemini-hanging',
            format: 'gemini_generate_content',
            upstream_model: 'gemini-2.5-pro',
            pricing: { unit: 'usd_per_mtok', input: '1', output: '1' },
          },
        ],
      },
      'claude-vertex': {
        brand: 'anthropic',
        entry_formats: ['anthropic_messages', 'openai_chat'],
        deployments: [
          {
            id: 'claude@vertex',
            provider: 'vertex-claude',
            format: 'anthropic_vertex',
            upstream_model: 'claude-sonnet-4-5@20250929',
            pricing: { unit: 'usd_per_mtok', input: '3', output: '15', cache_read: '0.30', cache_write: '3.75' },
          },
        ],
      },
      'gpt-4o': {
        brand: 'openai',
        entry_formats: ['openai_chat', 'anthropic_messages'],
        deployments: [
          {
            id: 'gpt-4o@azure',
            provider: 'azure',
            format: 'openai_chat',
            upstream_model: 'gpt-4o-prod',
            pricing: { unit: 'usd_per_mtok', input: '2.5', output: '10' },
          },
        ],
      },
    },
  };
}

function gatewayFor(extra: Partial<Parameters<typeof createGateway>[0]> = {}) {
  return createGateway({
    registry: registry(upstream.url),
    identity,
    secrets: { VERTEX_SA_KEY: account.keyJson, VERTEX_SA_KEY_DENIED: denied.keyJson, VERTEX_SA_KEY_HANGING: hanging.keyJson, AZURE_OPENAI_API_KEY: AZURE_KEY },
    usage: (r) => void records.push(r),
    ...extra,
  });
}

let gateway: ReturnType<typeof createGateway>;
let server: TestServer;

beforeAll(async () => {
  tokenServer = await startServer(async (request) => {
    const path = new URL(request.url).pathname;
    const form = await request.text();
    if (path === '/hang') return new Promise<Response>(() => {});
    const who = path === '/denied' ? denied : account;
    const check = await checkGrant(form, who, `${tokenServer.url}${path}`);
    if (path === '/denied' || !check.ok) return Response.json({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }, { status: 400 });
    exchanges++;
    const token = `ya29.vertex-${exchanges}-${crypto.randomUUID()}`;
    minted.add(token);
    return Response.json({ access_token: token, expires_in: 3599, token_type: 'Bearer' });
  });
  account = await testServiceAccount(`${tokenServer.url}/token`);
  denied = await testServiceAccount(`${tokenServer.url}/denied`);
  hanging = await testServiceAccount(`${tokenServer.url}/hang`);
  upstream = await startMockUpstream({
    vertex: vertexScenario(),
    azure: async (request, body) => {
      const url = new URL(request.url);
      if (request.headers.get('api-key') !== AZURE_KEY || url.searchParams.get('api-version') !== '2024-10-21') {
        return Response.json({ error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } }, { status: 401 });
      }
      return replay('openai-chat/stream-tool-call-include-usage.sse', 'openai-chat/response-text.json')(request, body);
    },
  });
  const ids = await keysFor({ user: 'alice' });
  keys = ids.keys;
  identity = ids.identity;
  gateway = gatewayFor();
  server = await startServer((request) => gateway.handle(request));
});

afterAll(async () => {
  await gateway.close();
  await server.close();
  await upstream.close();
  await tokenServer.close();
});

const last = () => records[records.length - 1]!;
const google = () => new GoogleGenAI({ apiKey: keys.alice!, httpOptions: { baseUrl: server.url } });

describe('Vertex AI with a google_service_account credential', () => {
  it('Gemini on Vertex from the Google SDK: a token minted from the key, presented as Bearer, reused for the next calls', async () => {
    const before = exchanges;
    const answer = await google().models.generateContent({ model: 'gemini-pro', contents: 'What is the capital of France?' });
    expect(answer.text).toBe('Paris.');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/vertex/v1/projects/acme-prod/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent');
    expect(seen.headers['authorization']).toMatch(/^Bearer ya29\.vertex-/);
    expect(seen.headers['x-goog-api-key']).toBeUndefined();
    const stream = await google().models.generateContentStream({ model: 'gemini-pro', contents: 'Hello' });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)!.path).toMatch(/:streamGenerateContent\?alt=sse$/);
    expect(exchanges - before).toBe(1);
    expect(last()).toMatchObject({ status: 'ok', deployment: 'gemini@vertex' });
  });

  it('Claude on Vertex from the Anthropic SDK: the same credential, the raw envelope', async () => {
    const client = new Anthropic({ apiKey: keys.alice, baseURL: server.url, maxRetries: 0 });
    const message = await client.messages.create({ model: 'claude-vertex', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/vertex/v1/projects/acme-prod/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict');
    expect(JSON.parse(seen.body)).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
    expect(seen.headers['authorization']).toMatch(/^Bearer ya29\.vertex-/);
  });

  it('many concurrent calls on a fresh gateway: one token exchange', async () => {
    const fresh = gatewayFor();
    const before = exchanges;
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        fresh.handle(
          new Request('http://gw.local/v1beta/models/gemini-pro:generateContent', {
            method: 'POST',
            headers: { 'x-goog-api-key': keys.alice!, 'content-type': 'application/json' },
            body,
          }),
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    await Promise.all(answers.map((a) => a.text()));
    expect(exchanges - before).toBe(1);
    await fresh.close();
  });

  it('Vertex rejects the token (401): the caller gets a 502 that blames the gateway; the next call mints a new one', async () => {
    const fresh = gatewayFor();
    const ask = () =>
      fresh.handle(
        new Request('http://gw.local/v1beta/models/gemini-pro:generateContent', {
          method: 'POST',
          headers: { 'x-goog-api-key': keys.alice!, 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
        }),
      );
    expect((await ask()).status).toBe(200);
    const current = upstream.requests.at(-1)!.headers['authorization']!.replace('Bearer ', '');
    revoked.add(current);
    const rejected = await ask();
    expect(rejected.status).toBe(502);
    expect(JSON.stringify(await rejected.json())).not.toContain(current);
    const before = exchanges;
    expect((await ask()).status).toBe(200);
    expect(exchanges - before).toBe(1);
    expect(upstream.requests.at(-1)!.headers['authorization']).not.toBe(`Bearer ${current}`);
    await fresh.close();
  });

  it('a token endpoint that answers 400 (a key Google no longer accepts): a 502 in the caller’s format, no secret in it, no upstream call', async () => {
    const before = upstream.hits('vertex');
    const error = (await google()
      .models.generateContent({ model: 'gemini-denied', contents: 'hi' })
      .catch((e: unknown) => e)) as Error & { status?: number };
    expect(error.status).toBe(502);
    expect(error.message).toContain('could not obtain an access token');
    expect(error.message).not.toContain('PRIVATE KEY');
    expect(error.message).not.toContain(denied.clientEmail);
    expect(upstream.hits('vertex')).toBe(before);
    expect(last()).toMatchObject({ status: 'upstream_error', reason: 'upstream:upstream_error', deployment: null });
    expect(JSON.stringify(last())).not.toContain('ya29');
  });

  it('a token endpoint that hangs: the call fails after the token timeout, not forever', async () => {
    const fresh = gatewayFor({ signers: [awsSigV4Signer, createGoogleServiceAccountSigner({ tokenTimeoutMs: 300 })] });
    const started = Date.now();
    const answer = await fresh.handle(
      new Request('http://gw.local/v1beta/models/gemini-hanging:generateContent', {
        method: 'POST',
        headers: { 'x-goog-api-key': keys.alice!, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
      }),
    );
    expect(answer.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(((await answer.json()) as Json).error.status).toBe('INTERNAL');
    await fresh.close({ drainMs: 100 });
  });
});

describe('Azure OpenAI: the api-key header and the api-version query', () => {
  it('OpenAI SDK → an Azure deployment: its path, the api-version kept, the key in api-key, never a bearer', async () => {
    const client = new OpenAI({ apiKey: keys.alice, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toBeTypeOf('string');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/azure/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe(AZURE_KEY);
    expect(seen.headers['authorization']).toBeUndefined();
    expect(seen.body).not.toContain(keys.alice!);
  });

  it('streamed, and from an Anthropic client (translated), the same way', async () => {
    const client = new OpenAI({ apiKey: keys.alice, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'weather?' }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(upstream.requests.at(-1)!.path).toBe('/azure/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21');
    const anthropic = new Anthropic({ apiKey: keys.alice, baseURL: server.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.type).toBe('message');
    expect(upstream.requests.at(-1)!.headers['api-key']).toBe(AZURE_KEY);
    expect(last()).toMatchObject({ status: 'ok', deployment: 'gpt-4o@azure', upstream_model: 'gpt-4o-prod' });
  });
});
