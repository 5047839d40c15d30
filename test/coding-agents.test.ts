/**
 * Coding agents through the gateway: the request shapes of Claude Code (Anthropic Messages:
 * cache_control on system and messages, tools, thinking with signatures, `anthropic-beta`
 * headers, a count_tokens call before every turn, `/v1/models`) and of Codex (OpenAI Responses:
 * `store: false`, reasoning items with `encrypted_content`, function calls, the full input every
 * turn), replayed with the real Anthropic and OpenAI SDKs against Anthropic-, OpenAI-, Gemini- and
 * Bedrock-backed models.
 *
 * Each backend is a scripted vendor: it reads the gateway's request with its own format's codec,
 * answers turn 1 with its own reasoning (Claude's signed thinking, OpenAI's encrypted reasoning,
 * Gemini's thought signature on the call) and a tool call, and on turn 2 checks that its own state
 * came back before answering. Asserted for every pair: every turn succeeds; usage is exact (what
 * the client sees and what is recorded, against what the backend reported); the backend gets back
 * what it needs — or, where the client's format cannot carry it, the answer says so in
 * `x-tollgate-warnings` and the record counts it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type UsageRecord, type RegistryFileInput } from '@tollgate/core';
import { codecs, countTokensCodecs, type Request as IRRequest, type StreamEvent, type Usage } from '@tollgate/codecs';
import { pendingOutput } from '../packages/codecs/src/stream-framing.js';
import { AWS_KEYS } from './support/aws.js';
import { keysFor, SECRETS } from './support/gateway-fixture.js';
import { startServer, type TestServer } from './support/http-server.js';
import { startMockUpstream, type MockUpstream } from './support/mock-upstream.js';

type Json = Record<string, any>;
type Backend = 'anthropic_messages' | 'openai_responses' | 'gemini_generate_content' | 'bedrock_converse';

const BACKENDS: Array<{ format: Backend; model: string; upstream: string; provider: string }> = [
  { format: 'anthropic_messages', model: 'claude-agent', upstream: 'claude-sonnet-4-5', provider: 'anthropic' },
  { format: 'openai_responses', model: 'gpt-agent', upstream: 'gpt-5-codex', provider: 'openai' },
  { format: 'gemini_generate_content', model: 'gemini-agent', upstream: 'gemini-2.5-pro', provider: 'google' },
  { format: 'bedrock_converse', model: 'bedrock-agent', upstream: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', provider: 'bedrock' },
];

/** Each backend's own opaque state, distinctive enough to find. */
const STATE = {
  signature: 'EqQBClaudeSignatureOfTheReasoning==',
  encrypted: 'gAAAAABopenaiEncryptedReasoningBlob',
  thought: 'CiQBgeminiThoughtSignatureOnTheCall==',
};
const COUNT = 4242;
/** What every backend reports for each turn, in canonical kinds (each format reports what it can). */
const USAGE: Usage = { input: 1000, output: 50, cacheRead: 200, cacheWrite: 30, cacheWrite1h: 0, reasoning: 20, measured: true };

/** What the backends saw on turn 2: did their own state come back? */
const sawState: Array<{ backend: Backend; back: boolean }> = [];

function callId(format: Backend): string {
  return {
    anthropic_messages: 'toolu_01AgentCall',
    openai_responses: 'call_agent01',
    gemini_generate_content: 'gcall_agent_0',
    bedrock_converse: 'tooluse_AgentCall01',
  }[format];
}

/** Turn 1: the vendor's own reasoning and a Bash call; turn 2 (a tool result came back): the answer. */
function answerEvents(format: Backend, model: string, final: boolean): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'message_start', id: `resp_${format}`, model, usage: { ...USAGE, output: 1, reasoning: 0 } }];
  if (final) {
    events.push(
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'There are 2 files: README.md and src.' },
      { type: 'block_stop', index: 0 },
    );
  } else {
    const issuer = format === 'openai_responses' ? 'openai' : format === 'gemini_generate_content' ? 'google' : 'anthropic';
    const reasoning: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'reasoning', issuer };
    if (format === 'openai_responses') Object.assign(reasoning, { itemId: 'rs_agent01', encryptedContent: STATE.encrypted });
    events.push({ type: 'block_start', index: 0, block: reasoning }, { type: 'reasoning_delta', index: 0, text: 'I should list the files first.' });
    if (issuer === 'anthropic') events.push({ type: 'signature', index: 0, signature: STATE.signature, issuer });
    if (issuer === 'openai') events.push({ type: 'signature', index: 0, signature: STATE.encrypted, issuer });
    events.push({ type: 'block_stop', index: 0 });
    const call: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'tool_call', id: callId(format), name: 'Bash', issuer };
    if (format === 'gemini_generate_content') call.thoughtSignature = STATE.thought;
    if (format === 'openai_responses') call.itemId = 'fc_agent01';
    events.push({ type: 'block_start', index: 1, block: call });
    if (format === 'gemini_generate_content') events.push({ type: 'signature', index: 1, signature: STATE.thought, issuer: 'google' });
    events.push({ type: 'tool_args_delta', index: 1, delta: '{"command":"ls"}' }, { type: 'block_stop', index: 1 });
  }
  events.push(
    { type: 'finish', finishReason: { unified: final ? 'stop' : 'tool_calls', raw: null } },
    { type: 'usage', usage: USAGE },
    { type: 'message_stop' },
  );
  return events;
}

/** Did the backend's own state from turn 1 come back in this request? */
function ownStateBack(format: Backend, ir: IRRequest): boolean {
  const parts = ir.messages.flatMap((m) => (m.role === 'assistant' ? m.content : []));
  if (format === 'openai_responses') return parts.some((p) => p.type === 'reasoning' && p.encryptedContent === STATE.encrypted);
  if (format === 'gemini_generate_content') return parts.some((p) => p.type === 'tool_call' && p.thoughtSignature === STATE.thought);
  return parts.some((p) => p.type === 'reasoning' && p.signature === STATE.signature);
}

/** A scripted vendor for `format`, answering in its own wire format. */
function agentBackend(format: Backend, upstreamModel: string) {
  return async (request: Request, body: Json) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const counting = /count_tokens$|input_tokens$|:countTokens$|count-tokens$/.test(path);
    const options = { model: upstreamModel, stream: /:streamGenerateContent$|converse-stream$/.test(path) || body['stream'] === true };
    if (counting) {
      countTokensCodecs[format]!.decodeRequest(body, options);
      return Response.json(countTokensCodecs[format]!.encodeResponse(COUNT));
    }
    const ir = codecs[format].decodeRequest(body, options).request;
    const final = ir.messages.at(-1)?.role === 'tool';
    if (final) sawState.push({ backend: format, back: ownStateBack(format, ir) });
    const encoder = codecs[format].createStreamEncoder({ model: upstreamModel });
    const out = pendingOutput();
    for (const event of answerEvents(format, upstreamModel, final)) encoder.encode(event, out.write);
    encoder.end(out.write);
    const type = codecs[format].streamFraming?.contentType ?? 'text/event-stream';
    return new Response(out.take().slice(), { headers: { 'content-type': type } });
  };
}

function registry(url: string): RegistryFileInput {
  const ops: RegistryFileInput['operations'] = [
    { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages' },
    { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
    { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses' },
    { provider: 'openai', format: 'openai_responses', family: 'responses', path: '/v1/responses/input_tokens', kind: 'count_tokens' },
    {
      provider: 'google',
      format: 'gemini_generate_content',
      family: 'chat',
      path: '/v1beta/models/{model}:generateContent',
      stream_path: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
    },
    { provider: 'google', format: 'gemini_generate_content', family: 'chat', path: '/v1beta/models/{model}:countTokens', kind: 'count_tokens' },
    { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/converse', stream_path: '/model/{model}/converse-stream' },
    { provider: 'bedrock', format: 'bedrock_converse', family: 'chat', path: '/model/{model}/count-tokens', kind: 'count_tokens' },
  ];
  const models: Json = {};
  for (const b of BACKENDS) {
    models[b.model] = {
      brand: b.provider,
      entry_formats: ['anthropic_messages', 'openai_responses'],
      capabilities: { tools: true, reasoning: true, max_output_tokens: 32000 },
      deployments: [
        {
          id: `${b.model}@${b.provider}`,
          provider: b.provider,
          format: b.format,
          upstream_model: b.upstream,
          pricing: { unit: 'usd_per_mtok', input: '3', output: '15', cache_read: '0.3', cache_write: '3.75' },
        },
      ],
    };
  }
  const converters = (['anthropic_messages', 'openai_responses'] as const).flatMap((from) =>
    BACKENDS.filter((b) => b.format !== from).map((b) => ({ from, to: b.format })),
  );
  return {
    wire_formats: {
      anthropic_messages: { family: 'chat' },
      openai_responses: { family: 'responses' },
      gemini_generate_content: { family: 'chat' },
      bedrock_converse: { family: 'chat' },
    },
    entry_routes: [
      { path: '/v1/messages', format: 'anthropic_messages' },
      { path: '/v1/messages/count_tokens', format: 'anthropic_messages', kind: 'count_tokens' },
      { path: '/v1/responses', format: 'openai_responses' },
      { path: '/v1/responses/input_tokens', format: 'openai_responses', kind: 'count_tokens' },
    ],
    converters,
    credentials: {
      anthropic: { kind: 'header', header: 'x-api-key', secret: 'ANTHROPIC_API_KEY' },
      openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' },
      google: { kind: 'header', header: 'x-goog-api-key', secret: 'GEMINI_API_KEY' },
      aws: { kind: 'aws_sigv4', region: 'us-east-1', service: 'bedrock', access_key_id: 'AWS_ACCESS_KEY_ID', secret_access_key: 'AWS_SECRET_ACCESS_KEY' },
    },
    providers: {
      anthropic: { base_url: `${url}/anthropic`, credential: 'anthropic', headers: { 'anthropic-version': '2023-06-01' } },
      openai: { base_url: `${url}/openai`, credential: 'openai' },
      google: { base_url: `${url}/google`, credential: 'google' },
      bedrock: { base_url: `${url}/bedrock`, credential: 'aws' },
    },
    operations: ops,
    models,
  };
}

let upstream: MockUpstream;
let gateway: ReturnType<typeof createGateway>;
let server: TestServer;
let key: string;
const records: UsageRecord[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(Object.fromEntries(BACKENDS.map((b) => [b.provider, agentBackend(b.format, b.upstream)])));
  const ids = await keysFor({ user: 'dev' });
  key = ids.keys.dev!;
  gateway = createGateway({
    registry: registry(upstream.url),
    identity: ids.identity,
    secrets: { ...SECRETS, GEMINI_API_KEY: 'g-key', ...AWS_KEYS },
    usage: (r) => void records.push(r),
  });
  server = await startServer((request) => gateway.handle(request));
});

afterAll(async () => {
  await gateway.close();
  await server.close();
  await upstream.close();
});

/** The usage a backend of `format` reports, as the gateway reads it back (each format reports what it can). */
function reported(format: Backend): Usage {
  const encoder = codecs[format].createStreamEncoder({});
  const out = pendingOutput();
  for (const e of answerEvents(format, 'm', true)) encoder.encode(e, out.write);
  let usage: Usage | null = null;
  const decoder = codecs[format].createStreamDecoder();
  const reader = (codecs[format].streamFraming?.createReader ?? null)?.(
    (m) => decoder.push(m, (e) => e.type === 'usage' && (usage = e.usage)),
    () => {},
  );
  const bytes = out.take();
  if (reader !== undefined && reader !== null) {
    reader.feed(bytes);
    reader.end();
  } else {
    for (const block of new TextDecoder().decode(bytes).split(/\r?\n\r?\n/)) {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data !== '') decoder.push({ data, ...(event === undefined ? {} : { event }) }, (e) => e.type === 'usage' && (usage = e.usage));
    }
  }
  return usage!;
}

const generated = () => records.filter((r) => (r.kind ?? 'generate') === 'generate');
const lastGenerated = async () => {
  for (let i = 0; i < 100 && generated().length === 0; i++) await new Promise((r) => setTimeout(r, 5));
  return generated().at(-1)!;
};
async function settled(count: number): Promise<void> {
  for (let i = 0; i < 200 && generated().length < count; i++) await new Promise((r) => setTimeout(r, 5));
}

/** Where each pair's answer must say the client could not carry the backend's state. */
const CARRIES: Record<'claude_code' | 'codex', Record<Backend, boolean>> = {
  claude_code: { anthropic_messages: true, bedrock_converse: true, gemini_generate_content: true, openai_responses: false },
  codex: { openai_responses: true, gemini_generate_content: true, anthropic_messages: false, bedrock_converse: false },
};

const CLAUDE_CODE_SYSTEM = [
  { type: 'text' as const, text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' as const } },
  { type: 'text' as const, text: 'Working directory: /repo. Platform: linux.' },
];
const CLAUDE_CODE_TOOLS = [
  {
    name: 'Bash',
    description: 'Run a shell command',
    input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
  },
  {
    name: 'Read',
    description: 'Read a file',
    input_schema: { type: 'object' as const, properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    cache_control: { type: 'ephemeral' as const },
  },
];
const BETA = { 'anthropic-beta': 'interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14' };

describe.each(BACKENDS)('Claude Code → $model ($format)', ({ format, model }) => {
  it('lists the model, counts before each turn, runs a thinking tool loop; usage exact; nothing needed lost, or said so', async () => {
    const client = new Anthropic({ apiKey: key, baseURL: server.url, maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toContain(model);

    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'What files are here?', cache_control: { type: 'ephemeral' } }] },
    ];
    const turn = async () => {
      const count = await client.messages.countTokens(
        { model, system: CLAUDE_CODE_SYSTEM, tools: CLAUDE_CODE_TOOLS, messages, thinking: { type: 'enabled', budget_tokens: 4000 } },
        { headers: BETA },
      );
      expect(count.input_tokens).toBe(COUNT);
      const before = generated().length;
      const stream = client.messages.stream(
        {
          model,
          max_tokens: 32000,
          system: CLAUDE_CODE_SYSTEM,
          tools: CLAUDE_CODE_TOOLS,
          messages,
          thinking: { type: 'enabled', budget_tokens: 4000 },
          metadata: { user_id: 'user_dev_account__session_42' },
        },
        { headers: BETA },
      );
      const { response } = await stream.withResponse();
      const message = await stream.finalMessage();
      await settled(before + 1);
      return { message, headers: response.headers, record: await lastGenerated() };
    };

    const first = await turn();
    expect(first.message.stop_reason).toBe('tool_use');
    const call = first.message.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(call).toMatchObject({ name: 'Bash', input: { command: 'ls' } });
    expect(first.message.content.some((b) => b.type === 'thinking')).toBe(true);
    const usage = reported(format);
    // Exact: what the backend reported, in Anthropic's kinds; the record holds the same.
    expect(first.message.usage).toMatchObject({
      input_tokens: usage.input,
      output_tokens: usage.output,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheWrite + usage.cacheWrite1h,
    });
    expect(first.record).toMatchObject({
      status: 'ok',
      model,
      usage: { input: usage.input, output: usage.output, cache_read: usage.cacheRead, cache_write: usage.cacheWrite, measured: true },
    });

    messages.push({ role: 'assistant', content: first.message.content });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'README.md\nsrc' }] });
    const second = await turn();
    expect(second.message.stop_reason).toBe('end_turn');
    expect(second.message.content.find((b) => b.type === 'text')).toMatchObject({ text: 'There are 2 files: README.md and src.' });
    expect(second.record).toMatchObject({ status: 'ok', usage: { input: usage.input, output: usage.output } });
    expect(sawState.at(-1)).toEqual({ backend: format, back: CARRIES.claude_code[format] });
    if (!CARRIES.claude_code[format]) {
      expect(second.headers.get('x-tollgate-warnings')).toMatch(/^\d+; /);
      expect(second.record.translation_warnings).toBeGreaterThan(0);
    }
    if (format === 'anthropic_messages') {
      // The same format: bytes as Claude Code sent them, beta header included.
      expect(upstream.requests.at(-1)!.headers['anthropic-beta']).toBe(BETA['anthropic-beta']);
      expect(second.record.translation_warnings).toBe(0);
    }
    expect(records.filter((r) => r.kind === 'count_tokens' && r.model === model).map((r) => [r.counted_tokens, r.cost_micros?.total])).toEqual([
      [COUNT, 0],
      [COUNT, 0],
    ]);
  });
});

const CODEX_TOOLS: OpenAI.Responses.FunctionTool[] = [
  {
    type: 'function',
    name: 'shell',
    description: 'Runs a shell command and returns its output.',
    parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'], additionalProperties: false },
    strict: false,
  },
];

describe.each(BACKENDS)('Codex → $model ($format)', ({ format, model }) => {
  it('store: false, the full input every turn with reasoning items and calls; usage exact; nothing needed lost, or said so', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What files are here?' }] }];
    const turn = async () => {
      const count = await client.responses.inputTokens.count({ model, input, instructions: 'You are Codex, a coding agent.', tools: CODEX_TOOLS });
      expect(count.input_tokens).toBe(COUNT);
      const before = generated().length;
      const { data: stream, response } = await client.responses
        .create({
          model,
          instructions: 'You are Codex, a coding agent.',
          input,
          tools: CODEX_TOOLS,
          tool_choice: 'auto',
          parallel_tool_calls: false,
          reasoning: { effort: 'medium', summary: 'auto' },
          store: false,
          stream: true,
          include: ['reasoning.encrypted_content'],
          prompt_cache_key: 'codex-session-42',
        })
        .withResponse();
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
      await settled(before + 1);
      return { completed: completed!, headers: response.headers, record: await lastGenerated() };
    };

    const first = await turn();
    const call = first.completed.output.find((i): i is OpenAI.Responses.ResponseFunctionToolCall => i.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'Bash', arguments: '{"command":"ls"}' });
    expect(first.completed.output.some((i) => i.type === 'reasoning')).toBe(true);
    const usage = reported(format);
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite + usage.cacheWrite1h;
    expect(first.completed.usage).toMatchObject({
      input_tokens: prompt,
      output_tokens: usage.output,
      input_tokens_details: { cached_tokens: usage.cacheRead },
    });
    expect(first.record).toMatchObject({
      status: 'ok',
      model,
      usage: { input: usage.input, output: usage.output, cache_read: usage.cacheRead, measured: true },
    });

    // Codex sends everything again: its input, the output items (reasoning with encrypted content, the call), the call's output.
    input.push(...(first.completed.output as OpenAI.Responses.ResponseInputItem[]));
    input.push({ type: 'function_call_output', call_id: call.call_id, output: 'README.md\nsrc' });
    const second = await turn();
    const text = second.completed.output
      .flatMap((i) => (i.type === 'message' ? i.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : [])) : []))
      .join('');
    expect(text).toBe('There are 2 files: README.md and src.');
    expect(second.record).toMatchObject({ status: 'ok', usage: { input: usage.input, output: usage.output } });
    expect(sawState.at(-1)).toEqual({ backend: format, back: CARRIES.codex[format] });
    if (!CARRIES.codex[format]) {
      expect(second.headers.get('x-tollgate-warnings')).toMatch(/signature|lossy|dropped/);
      expect(second.record.translation_warnings).toBeGreaterThan(0);
      // The first answer's signed reasoning could not be shown to a Responses client: counted in
      // the record on top of that turn's request-side drops, which its header named.
      expect(first.record.translation_warnings).toBe(Number(first.headers.get('x-tollgate-warnings')!.split(';')[0]) + 1);
    }
    if (format === 'openai_responses') expect(second.record.translation_warnings).toBe(0);
  });
});
