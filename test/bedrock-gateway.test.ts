/**
 * Amazon Bedrock through the gateway: OpenAI, Anthropic and AWS SDK clients reach a Bedrock
 * upstream (a loopback mock that checks every SigV4 signature with the AWS SDK's own signer and
 * replays recorded Converse traffic), and an AWS SDK client reaches other vendors. Usage is
 * metered from Bedrock's answers; broken streams and Bedrock errors reach each client in its own
 * format; the AWS keys never leave the gateway.
 */
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type UsageRecord, type RegistryFileInput } from '@tollgate/core';
import { concat, recordedStream, smithyExceptionFrame, splitFrames } from '../packages/codecs/src/bedrock-converse/__tests__/smithy.js';
import { AWS_KEYS, mockBedrock, type BedrockMock } from './support/aws.js';
import { fixtureText } from './support/fixtures.js';
import { keysFor, PRICING_SONNET, SECRETS } from './support/gateway-fixture.js';
import { startServer, type TestServer } from './support/http-server.js';
import { replay, startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

const KEYS = { accessKeyId: AWS_KEYS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_KEYS.AWS_SECRET_ACCESS_KEY, sessionToken: AWS_KEYS.AWS_SESSION_TOKEN };
const TOOL_STREAM = () => recordedStream('bedrock-converse/stream-tool-use.eventstream');
const frames = splitFrames(TOOL_STREAM());

let upstream: MockUpstream;
let bedrock: BedrockMock;
let gateway: ReturnType<typeof createGateway>;
let server: TestServer;
let keys: Record<string, string>;
const records: UsageRecord[] = [];
const mocks: Record<string, BedrockMock> = {};

const PRICING_NOVA = { unit: 'usd_per_mtok', input: '0.035', output: '0.14', cache_read: '0.00875' } as const;

function registry(url: string): RegistryFileInput {
  const bedrockProvider = (path: string) => ({ base_url: `${url}/${path}`, credential: 'aws' });
  const op = (provider: string) => ({
    provider,
    format: 'bedrock_converse',
    family: 'chat' as const,
    path: '/model/{model}/converse',
    stream_path: '/model/{model}/converse-stream',
  });
  const nova = (id: string, provider: string, extra: Record<string, unknown> = {}) => ({
    brand: 'amazon',
    entry_formats: ['openai_chat', 'anthropic_messages', 'bedrock_converse'],
    capabilities: { tools: true, max_output_tokens: 5000 },
    deployments: [{ id: `${id}@bedrock`, provider, format: 'bedrock_converse', upstream_model: 'us.amazon.nova-micro-v1:0', pricing: PRICING_NOVA }],
    ...extra,
  });
  return {
    wire_formats: { openai_chat: { family: 'chat' }, anthropic_messages: { family: 'chat' }, bedrock_converse: { family: 'chat' } },
    entry_routes: [
      { path: '/v1/chat/completions', format: 'openai_chat' },
      { path: '/v1/messages', format: 'anthropic_messages' },
      { path: '/model/{model}/converse', format: 'bedrock_converse' },
      { path: '/model/{model}/converse-stream', format: 'bedrock_converse', stream: true },
    ],
    converters: [
      { from: 'openai_chat', to: 'bedrock_converse' },
      { from: 'anthropic_messages', to: 'bedrock_converse' },
      { from: 'bedrock_converse', to: 'anthropic_messages' },
    ],
    credentials: {
      aws: {
        kind: 'aws_sigv4',
        region: 'us-east-1',
        service: 'bedrock',
        access_key_id: 'AWS_ACCESS_KEY_ID',
        secret_access_key: 'AWS_SECRET_ACCESS_KEY',
        session_token: 'AWS_SESSION_TOKEN',
      },
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
    },
    providers: {
      bedrock: bedrockProvider('bedrock'),
      'bedrock-throttle': bedrockProvider('bedrock-throttle'),
      'bedrock-badcrc': bedrockProvider('bedrock-badcrc'),
      'bedrock-invalid': bedrockProvider('bedrock-invalid'),
      anthropic: { base_url: `${url}/anthropic`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
    },
    operations: [
      op('bedrock'),
      op('bedrock-throttle'),
      op('bedrock-badcrc'),
      op('bedrock-invalid'),
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
    ],
    models: {
      'nova-micro': nova('nova', 'bedrock', { aliases: ['us.amazon.nova-micro-v1:0'] }),
      'nova-throttled': nova('throttled', 'bedrock-throttle'),
      'nova-corrupt': nova('corrupt', 'bedrock-badcrc'),
      'nova-wrong-id': nova('wrong', 'bedrock-invalid'),
      'claude-sonnet': {
        brand: 'anthropic',
        entry_formats: ['bedrock_converse', 'anthropic_messages'],
        capabilities: { tools: true, max_output_tokens: 64000 },
        deployments: [
          { id: 'sonnet@anthropic', provider: 'anthropic', format: 'anthropic_messages', upstream_model: 'claude-sonnet-4-5', pricing: PRICING_SONNET },
        ],
      },
    },
  };
}

beforeAll(async () => {
  bedrock = mockBedrock(KEYS, { stream: TOOL_STREAM });
  mocks['bedrock-throttle'] = mockBedrock(KEYS, {
    stream: () => concat([...frames.slice(0, 4), smithyExceptionFrame('throttlingException', 'Too many tokens, please wait before trying again.')]),
  });
  mocks['bedrock-badcrc'] = mockBedrock(KEYS, {
    stream: () => {
      const bad = frames[4]!.slice();
      bad[bad.length - 6] = bad[bad.length - 6]! ^ 0x55;
      return concat([...frames.slice(0, 4), bad, ...frames.slice(5)]);
    },
  });
  mocks['bedrock-invalid'] = mockBedrock(KEYS, {
    status: 400,
    json: fixtureText('bedrock-converse/error-400-validation.json'),
    errorType: 'ValidationException',
  });
  upstream = await startMockUpstream({
    bedrock: bedrock.scenario,
    'bedrock-throttle': mocks['bedrock-throttle'].scenario,
    'bedrock-badcrc': mocks['bedrock-badcrc'].scenario,
    'bedrock-invalid': mocks['bedrock-invalid'].scenario,
    anthropic: replay('anthropic-messages/stream-thinking-then-tool-use.sse', 'anthropic-messages/response-thinking.json'),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal' });
  keys = ids.keys;
  gateway = createGateway({
    registry: registry(upstream.url),
    identity: ids.identity,
    secrets: { ...SECRETS, ...AWS_KEYS },
    usage: (r) => void records.push(r),
  });
  server = await startServer((request) => gateway.handle(request));
});

afterAll(async () => {
  await gateway.close();
  await server.close();
  await upstream.close();
});

const last = () => records[records.length - 1]!;

/** A stream's record is written when its settle completes, a moment after the client's last read. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
}
const openai = () => new OpenAI({ apiKey: keys.alice, baseURL: `${server.url}/v1`, maxRetries: 0 });
/** The AWS SDK client, its virtual key as the Bedrock API key (bearer), over HTTP/1.1 to the loopback gateway. */
const awsClient = (token: string) =>
  new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: server.url,
    token: { token },
    authSchemePreference: ['httpBearerAuth'],
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
const aws = () => awsClient(keys.alice!);

describe('clients of other formats → a Bedrock upstream, signed with SigV4', () => {
  it('OpenAI SDK, whole answer: translated, signed (verified by the AWS SDK signer), metered from Bedrock usage', async () => {
    const before = bedrock.checks.length;
    const answer = await openai().chat.completions.create({
      model: 'nova-micro',
      messages: [
        { role: 'system', content: 'You are a chatbot.' },
        { role: 'user', content: 'Hello!' },
      ],
    });
    expect(answer.choices[0]!.message.content).toContain('How can I assist you today?');
    expect(answer.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 30 });
    expect(bedrock.checks.slice(before)).toEqual([
      { ok: true, signedHeaders: expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']), region: 'us-east-1', service: 'bedrock' },
    ]);
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/bedrock/model/us.amazon.nova-micro-v1:0/converse');
    expect(JSON.parse(seen.body)).toMatchObject({
      system: [{ text: 'You are a chatbot.' }],
      messages: [{ role: 'user', content: [{ text: 'Hello!' }] }],
      inferenceConfig: { maxTokens: 5000 },
    });
    const rec = last();
    expect(rec).toMatchObject({
      status: 'ok',
      entry_format: 'openai_chat',
      upstream_format: 'bedrock_converse',
      deployment: 'nova@bedrock',
      upstream_model: 'us.amazon.nova-micro-v1:0',
    });
    expect(rec.usage).toMatchObject({ input: 7, output: 30, measured: true });
    // 7 × 0.035 + 30 × 0.14 per million tokens, each rounded up to a whole micro-USD.
    expect(rec.cost_micros).toMatchObject({ input: 1, output: 5, total: 6 });
  });

  it('OpenAI SDK, streamed: the recorded ConverseStream as Chat chunks, the tool call assembled, usage exact', async () => {
    const stream = openai().chat.completions.stream({
      model: 'nova-micro',
      messages: [{ role: 'user', content: 'What is the temperature of the capital of France?' }],
      tools: [{ type: 'function', function: { name: 'get_temperature', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function).toMatchObject({ name: 'get_temperature', arguments: '{"city":"Paris"}' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.usage).toMatchObject({ prompt_tokens: 471, completion_tokens: 91 });
    expect(upstream.requests.at(-1)!.path).toBe('/bedrock/model/us.amazon.nova-micro-v1:0/converse-stream');
    expect(upstream.requests.at(-1)!.headers['accept']).toBe('application/vnd.amazon.eventstream');
    expect(last()).toMatchObject({ status: 'ok', stream: true, usage: { input: 471, output: 91, measured: true }, tools_invoked: ['get_temperature'] });
  });

  it('Anthropic SDK, streamed: Bedrock reached through the anthropic_messages entry', async () => {
    const client = new Anthropic({ apiKey: keys.alice, baseURL: server.url, maxRetries: 0 });
    const message = await client.messages
      .stream({ model: 'nova-micro', max_tokens: 1000, messages: [{ role: 'user', content: 'Temperature in the capital of France?' }] })
      .finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_temperature', input: { city: 'Paris' } });
    expect(message.usage).toMatchObject({ input_tokens: 471, output_tokens: 91 });
  });

  it('an exception frame mid-stream reaches the OpenAI client as a stream error; the record says so', async () => {
    const stream = await openai().chat.completions.create({ model: 'nova-throttled', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      })(),
    ).rejects.toThrow(/Too many tokens/);
    expect(text).toBe('<thinking> To find the temperature');
    await until(() => last().deployment === 'throttled@bedrock');
    expect(last()).toMatchObject({ status: 'upstream_error', reason: 'stream_rate_limited', deployment: 'throttled@bedrock' });
  });

  it('a frame with a bad CRC: the client gets an error event, never a clean finish', async () => {
    const stream = await openai().chat.completions.create({ model: 'nova-corrupt', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const finishes: unknown[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      })(),
    ).rejects.toThrow(/corrupt event-stream frame/);
    expect(finishes).toEqual([]);
    await until(() => last().deployment === 'corrupt@bedrock');
    expect(last()).toMatchObject({ status: 'upstream_error', reason: 'stream_upstream_error' });
  });

  it('Bedrock’s 400 for an invalid model id reaches an OpenAI client as its own 404', async () => {
    const error = await openai()
      .chat.completions.create({ model: 'nova-wrong-id', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('The provided model identifier is invalid.');
  });

  it('keys AWS rejects: a 502 that blames the gateway, not the caller; the keys are read again for the next call', async () => {
    const reads: string[] = [];
    const bob = await keysFor({ user: 'bob' });
    const gw = createGateway({
      registry: registry(upstream.url),
      identity: bob.identity,
      secrets: (name) => (reads.push(name), name === 'AWS_SECRET_ACCESS_KEY' ? 'not-the-secret' : ((AWS_KEYS as Record<string, string>)[name] ?? '')),
    });
    const client = new OpenAI({ apiKey: bob.keys.bob, baseURL: 'http://gw.local/v1', fetch: gw.fetch, maxRetries: 0 });
    for (let i = 0; i < 2; i++) {
      const error = (await client.chat.completions
        .create({ model: 'nova-micro', messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
      expect(error.status).toBe(502);
      expect(error.message).toContain('rejected the gateway credentials');
      expect(error.message).not.toContain('signature');
    }
    expect(bedrock.checks.at(-1)).toEqual({ ok: false, reason: 'signature mismatch' });
    // Dropped after the 403: each call read the three keys again.
    expect(reads.filter((n) => n === 'AWS_SECRET_ACCESS_KEY')).toHaveLength(2);
    await gw.close();
  });

  it('the AWS keys never reach a client or a record', () => {
    const everything = JSON.stringify(records) + JSON.stringify(upstream.requests.map((r) => r.path));
    for (const secret of Object.values(AWS_KEYS)) expect(everything).not.toContain(secret);
    for (const r of upstream.requests.filter((r) => r.path.startsWith('/bedrock'))) {
      expect(r.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE000000001\//);
      expect(r.headers['authorization']).not.toContain(AWS_KEYS.AWS_SECRET_ACCESS_KEY);
    }
  });
});

describe('the AWS SDK (BedrockRuntimeClient) as a client of the gateway', () => {
  it('Converse: identity to Bedrock, the virtual key as its bearer token, the upstream call re-signed by the gateway', async () => {
    const before = bedrock.checks.length;
    const out = await aws().send(
      new ConverseCommand({
        modelId: 'us.amazon.nova-micro-v1:0',
        system: [{ text: 'You are a chatbot.' }],
        messages: [{ role: 'user', content: [{ text: 'Hello!' }] }],
        inferenceConfig: {},
      }),
    );
    expect(out.output?.message?.content?.[0]?.text).toContain('How can I assist you today?');
    expect(out.usage).toMatchObject({ inputTokens: 7, outputTokens: 30 });
    expect(bedrock.checks.slice(before).map((c) => c.ok)).toEqual([true]);
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers['authorization']).not.toContain(keys.alice!);
    expect(last()).toMatchObject({
      status: 'ok',
      entry_format: 'bedrock_converse',
      upstream_format: 'bedrock_converse',
      model: 'nova-micro',
      requested_model: 'us.amazon.nova-micro-v1:0',
    });
  });

  it('ConverseStream: the recorded event stream relayed byte for byte, read by the SDK', async () => {
    // The request the stream was recorded for (Bedrock billed its 471 input tokens, tool prompt included).
    const recorded = JSON.parse(fixtureText('bedrock-converse/request-converse-stream-tools.json')) as Omit<
      ConstructorParameters<typeof ConverseStreamCommand>[0],
      'modelId'
    >;
    const out = await aws().send(new ConverseStreamCommand({ modelId: 'nova-micro', ...recorded }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of out.stream!) events.push(event);
    const text = events.flatMap((e) => (e.contentBlockDelta?.delta?.text === undefined ? [] : [e.contentBlockDelta.delta.text])).join('');
    expect(text.startsWith('<thinking> To find the temperature')).toBe(true);
    expect(events.find((e) => e.contentBlockStart)?.contentBlockStart?.start?.toolUse?.name).toBe('get_temperature');
    expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('tool_use');
    expect(events.find((e) => e.metadata)?.metadata?.usage).toMatchObject({ inputTokens: 471, outputTokens: 91 });
    expect(last()).toMatchObject({ status: 'ok', stream: true, entry_format: 'bedrock_converse', usage: { input: 471, output: 91 } });
  });

  it('ConverseStream against an Anthropic upstream: Claude’s thinking with its signature and the tool call, as Bedrock frames', async () => {
    const out = await aws().send(
      new ConverseStreamCommand({
        modelId: 'claude-sonnet',
        messages: [{ role: 'user', content: [{ text: 'Weather?' }] }],
        inferenceConfig: { maxTokens: 2048 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1024 } },
      }),
    );
    const events: ConverseStreamOutput[] = [];
    for await (const event of out.stream!) events.push(event);
    const signature = events.find((e) => e.contentBlockDelta?.delta?.reasoningContent?.signature !== undefined);
    expect(signature).toBeDefined();
    expect(events.some((e) => e.contentBlockDelta?.delta?.reasoningContent?.text)).toBe(true);
    expect(events.find((e) => e.contentBlockStart)?.contentBlockStart?.start?.toolUse?.name).toBeTypeOf('string');
    expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('tool_use');
    const sent = JSON.parse(upstream.requests.at(-1)!.body);
    expect(sent).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(last()).toMatchObject({ status: 'ok', entry_format: 'bedrock_converse', upstream_format: 'anthropic_messages' });
  });

  it('errors reach the AWS SDK as the exceptions it knows', async () => {
    const error = (await aws()
      .send(new ConverseCommand({ modelId: 'no-such-model', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))
      .catch((e: unknown) => e)) as Error & { name: string; $metadata: { httpStatusCode: number } };
    expect(error.name).toBe('ResourceNotFoundException');
    expect(error.$metadata.httpStatusCode).toBe(404);
    const denied = (await awsClient('tg_not-a-real-key-0000000000000000000000')
      .send(new ConverseCommand({ modelId: 'nova-micro', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }))
      .catch((e: unknown) => e)) as Error & { name: string };
    expect(denied.name).toBe('UnrecognizedClientException');
  });
});

describe('Bedrock’s own fields: what they cost, which tools they run', () => {
  it('a system tool reaches Bedrock; a hard-capped caller’s is refused naming it; a tool allow list sees it', async () => {
    const ids = await keysFor({ user: 'free' }, { user: 'capped' }, { user: 'listed', bu: 'ops' });
    const seen: UsageRecord[] = [];
    const gw = createGateway({
      registry: registry(upstream.url),
      policy: {
        spend: {
          rules: [
            {
              id: 'capped-daily',
              matches: [{ match: { users: ['capped'], scope: 'all', window: 'daily', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }],
            },
          ],
        },
        tools: { allow_lists: [{ id: 'ops', match: { bus: ['ops'] }, allow: ['get_weather'] }] },
      },
      identity: ids.identity,
      secrets: { ...SECRETS, ...AWS_KEYS },
      usage: (r) => void seen.push(r),
    });
    const tools = [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }, { systemTool: { name: 'nova_grounding' } }];
    const body = { messages: [{ role: 'user', content: [{ text: 'News today?' }] }], inferenceConfig: { maxTokens: 100 }, toolConfig: { tools } };
    const post = (key: string) =>
      gw.handle(
        new Request('http://gw/model/nova-micro/converse', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );

    const ok = await post(ids.keys.free!);
    expect(ok.status).toBe(200);
    expect(JSON.parse(upstream.requests.at(-1)!.body).toolConfig.tools).toEqual(tools);

    const sent = upstream.requests.length;
    const capped = await post(ids.keys.capped!);
    expect(capped.status).toBe(400);
    expect(((await capped.json()) as { message: string }).message).toContain('toolConfig.tools.systemTool.nova_grounding');
    const listed = await post(ids.keys.listed!);
    expect(listed.status).toBe(403);
    expect(upstream.requests.length).toBe(sent);
    expect(seen.map((r) => r.reason)).toEqual([null, 'unbounded_cost:toolConfig.tools.systemTool.nova_grounding', 'tool_not_allowed:nova_grounding']);
    await gw.close();
  });
});

describe('policy prompts for Bedrock Converse callers', () => {
  it('a prompt matched to the bedrock_converse entry format reaches Bedrock before the client’s own system prompt; other formats do not get it', async () => {
    const ids = await keysFor({ user: 'alice' });
    const seen: UsageRecord[] = [];
    const gw = createGateway({
      registry: registry(upstream.url),
      policy: { prompts: [{ id: 'conduct', version: 1, match: { formats: ['bedrock_converse'] }, text: 'Never reveal card numbers.' }] },
      identity: ids.identity,
      secrets: { ...SECRETS, ...AWS_KEYS },
      usage: (r) => void seen.push(r),
    });
    const own = await startServer((request) => gw.handle(request));
    try {
      const client = new BedrockRuntimeClient({
        region: 'us-east-1',
        endpoint: own.url,
        token: { token: ids.keys.alice! },
        authSchemePreference: ['httpBearerAuth'],
        maxAttempts: 1,
        requestHandler: new NodeHttpHandler(),
      });
      const checks = bedrock.checks.length;
      const out = await client.send(
        new ConverseCommand({ modelId: 'nova-micro', system: [{ text: 'You are a chatbot.' }], messages: [{ role: 'user', content: [{ text: 'Hello!' }] }] }),
      );
      expect(out.output?.message?.content?.[0]?.text).toContain('How can I assist you today?');
      // Re-encoded with the prompt first, and signed again for what was sent.
      expect(JSON.parse(upstream.requests.at(-1)!.body).system).toEqual([{ text: 'Never reveal card numbers.' }, { text: 'You are a chatbot.' }]);
      expect(bedrock.checks.slice(checks).map((c) => c.ok)).toEqual([true]);
      expect(seen.at(-1)).toMatchObject({ status: 'ok', entry_format: 'bedrock_converse', policy_prompts: ['conduct@1'] });

      const openaiClient = new OpenAI({ apiKey: ids.keys.alice, baseURL: `${own.url}/v1`, maxRetries: 0 });
      await openaiClient.chat.completions.create({ model: 'nova-micro', messages: [{ role: 'user', content: 'Hello!' }] });
      expect(JSON.parse(upstream.requests.at(-1)!.body).system).toBeUndefined();
      expect(seen.at(-1)).toMatchObject({ status: 'ok', entry_format: 'openai_chat', policy_prompts: [] });
    } finally {
      await gw.close();
      await own.close();
    }
  });
});
