/**
 * Capabilities and context fit as routing data, seen through the real SDK of every client
 * format: a request that declares tools or asks for reasoning reaches only a model that can
 * take them (`capabilities.tools`, `capabilities.reasoning`), a prompt that cannot fit a
 * model's `context_window` is refused with the format's context-length error, and a
 * budget-tier substitute that cannot take the request is passed over.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, createMemoryStore, type Gateway, type PolicyFileInput, type RegistryFileInput, type UsageRecord } from '@tollgate/core';
import { CLIENT_FORMATS, ECHO_SECRETS, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { keysFor } from './support/gateway-fixture.js';
import { startServer, type TestServer } from './support/http-server.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';
import { ask, isFailure, sdkClients, type Clients } from './support/sdk-ask.js';

/** A model served by the OpenAI Chat echo, with `capabilities` of its own. */
function withModel(registry: RegistryFileInput, id: string, capabilities: Record<string, unknown>): RegistryFileInput {
  const base = registry.models['echo.openai_chat']!;
  const deployment = base.deployments![0]!;
  return {
    ...registry,
    models: { ...registry.models, [id]: { ...base, aliases: [], tags: ['extra'], capabilities, deployments: [{ ...deployment, id: `${id}@echo` }] } },
  };
}

let upstream: MockUpstream;
let server: TestServer;
let clients: Clients;
let gateway: Gateway;
const seen: Seen[] = [];
const records: UsageRecord[] = [];
const WINDOW = 40;

function registry(): RegistryFileInput {
  let r = echoRegistry(upstream.url, ['echo']);
  r = withModel(r, 'plain', { tools: false, reasoning: false, max_output_tokens: 100 });
  r = withModel(r, 'small', { tools: true, reasoning: true, context_window: WINDOW, max_output_tokens: 100 });
  return r;
}

beforeAll(async () => {
  upstream = await startMockUpstream(echoScenarios({ echo: {} }, seen));
  const ids = await keysFor({ user: 'alice' });
  gateway = createGateway({ registry: registry(), identity: ids.identity, secrets: ECHO_SECRETS, usage: (r) => void records.push(r) });
  server = await startServer((request) => gateway.handle(request));
  clients = sdkClients(ids.keys.alice!, server.url, gateway.fetch);
});
afterAll(async () => {
  await gateway?.close();
  await server?.close();
  await upstream?.close();
});
beforeEach(() => {
  seen.length = 0;
  records.length = 0;
});

describe('capabilities.tools', () => {
  it.each(CLIENT_FORMATS)('%s: tools for a model with tools: false are a 400 naming tools, never sent', async (format) => {
    const refused = await ask(clients, format, { model: 'plain', text: 'weather?', stream: false, tools: ['get_weather'] });
    expect(isFailure(refused) && refused.status).toBe(400);
    expect(String((refused as { error: Error }).error.message)).toMatch(/does not support tools/);
    expect(seen).toEqual([]);
    expect(records.at(-1)).toMatchObject({ status: 'rejected', reason: 'capability:tools', http_status: 400 });
    // Without tools the same model answers; a model with tools: true takes them.
    expect(isFailure(await ask(clients, format, { model: 'plain', text: 'hello', stream: false }))).toBe(false);
    expect(isFailure(await ask(clients, format, { model: 'echo.openai_chat', text: 'weather?', stream: false, tools: ['get_weather'] }))).toBe(false);
  });

  it('answers an OpenAI client in its own shape: code unsupported_parameter, param tools', async () => {
    const error = await clients.openai.chat.completions
      .create({
        model: 'plain',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('unsupported_parameter');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tools');
  });
});

describe('capabilities.reasoning', () => {
  it('refuses reasoning parameters for a model with reasoning: false, in each format, naming the parameter', async () => {
    const chat = await clients.openai.chat.completions
      .create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' })
      .catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('reasoning_effort');
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('unsupported_parameter');

    const responses = await clients.openai.responses.create({ model: 'plain', input: 'hi', reasoning: { effort: 'low' } }).catch((e: unknown) => e);
    expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('reasoning');

    const anthropic = await clients.anthropic.messages
      .create({ model: 'plain', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(anthropic).toBeInstanceOf(Anthropic.BadRequestError);
    expect((anthropic as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/does not support reasoning; remove 'thinking'/);

    const gemini = await clients.gemini.models
      .generateContent({ model: 'plain', contents: 'hi', config: { thinkingConfig: { thinkingBudget: 512 } } })
      .catch((e: unknown) => e);
    expect(gemini).toBeInstanceOf(ApiError);
    expect((gemini as ApiError).status).toBe(400);

    expect(seen).toEqual([]);
    expect(records.map((r) => r.reason)).toEqual(['capability:reasoning', 'capability:reasoning', 'capability:reasoning', 'capability:reasoning']);
  });

  it('lets through a request that turns reasoning off, and reasoning to a model that has it', async () => {
    await clients.openai.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'none' });
    await clients.anthropic.messages.create({ model: 'plain', max_tokens: 100, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'hi' }] });
    await clients.gemini.models.generateContent({ model: 'plain', contents: 'hi', config: { thinkingConfig: { thinkingBudget: 0 } } });
    await clients.openai.chat.completions.create({ model: 'small', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' });
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });
});

describe('capabilities.context_window', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

  it('refuses a prompt that cannot fit with the context-length error each SDK knows', async () => {
    const text = words(WINDOW + 5);
    const chat = await clients.openai.chat.completions.create({ model: 'small', messages: [{ role: 'user', content: text }] }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
    expect((chat as Error).message).toMatch(/maximum context length is 40 tokens\. However, your messages resulted in at least 45 tokens/);

    const responses = await clients.openai.responses.create({ model: 'small', input: text }).catch((e: unknown) => e);
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');

    const anthropic = await clients.anthropic.messages
      .create({ model: 'small', max_tokens: 10, messages: [{ role: 'user', content: text }] })
      .catch((e: unknown) => e);
    expect(anthropic).toBeInstanceOf(Anthropic.BadRequestError);
    expect((anthropic as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: at least 45 tokens > 40 maximum' },
    });

    const gemini = await clients.gemini.models.generateContent({ model: 'small', contents: text }).catch((e: unknown) => e);
    expect(gemini).toBeInstanceOf(ApiError);
    expect((gemini as ApiError).status).toBe(400);
    expect((gemini as ApiError).message).toMatch(/input token count \(at least 45\) exceeds the maximum number of tokens allowed \(40\)/);

    expect(seen).toEqual([]);
    expect(records.map((r) => [r.reason, r.http_status])).toEqual(Array(4).fill(['context_length_exceeded', 400]));
  });

  it('sends a prompt that may fit: long text with few words is left to the upstream to measure', async () => {
    // 400 characters but one word: more than 40 tokens perhaps, but the gateway cannot know it.
    const answer = await clients.openai.chat.completions.create({ model: 'small', messages: [{ role: 'user', content: 'x'.repeat(400) }] });
    expect(answer.choices[0]!.message.content).toContain('x'.repeat(400));
    // Exactly the window, system prompt included, fits.
    await clients.anthropic.messages.create({ model: 'small', max_tokens: 10, system: words(10), messages: [{ role: 'user', content: words(WINDOW - 10) }] });
    expect(records.map((r) => r.status)).toEqual(['ok', 'ok']);
  });
});

describe('budget-tier substitution passes over a model that cannot take the request', () => {
  it('skips a substitute without tools for a request with tools, and uses it for one without', async () => {
    const ids = await keysFor({ user: 'bob' });
    const policy: PolicyFileInput = {
      spend: {
        rules: [
          {
            id: 'tier',
            matches: [
              {
                match: { scope: 'echo.anthropic_messages', window: 'daily', at_or_above_usd: '0.000001' },
                actions: [{ type: 'substitute', to: ['plain', 'echo.gemini_generate_content'] }],
              },
            ],
          },
        ],
      },
    };
    const local: UsageRecord[] = [];
    const store = createMemoryStore();
    const g = createGateway({ registry: registry(), policy, identity: ids.identity, secrets: ECHO_SECRETS, store, usage: (r) => void local.push(r) });
    try {
      const openai = new OpenAI({ apiKey: ids.keys.bob!, baseURL: 'http://gw/v1', fetch: g.fetch, maxRetries: 0 });
      const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } }];
      await openai.chat.completions.create({ model: 'echo.anthropic_messages', messages: [{ role: 'user', content: 'one' }] });
      const withTools = await openai.chat.completions
        .create({ model: 'echo.anthropic_messages', messages: [{ role: 'user', content: 'two' }], tools })
        .withResponse();
      expect(withTools.response.headers.get('x-tollgate-model-fallback')).toBe('echo.anthropic_messages -> echo.gemini_generate_content');
      await openai.chat.completions.create({ model: 'echo.anthropic_messages', messages: [{ role: 'user', content: 'three' }] });
      expect(local.map((r) => [r.model, r.substituted_from])).toEqual([
        ['echo.anthropic_messages', null],
        ['echo.gemini_generate_content', 'echo.anthropic_messages'],
        ['plain', 'echo.anthropic_messages'],
      ]);
    } finally {
      await g.close();
      await store.close();
    }
  });
});
