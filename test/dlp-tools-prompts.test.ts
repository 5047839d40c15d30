/**
 * DLP, tool allow lists and policy prompts with real SDK clients (openai, @anthropic-ai/sdk)
 * in-process through `gateway.fetch`, against a loopback Anthropic upstream that echoes what
 * it was sent — so what left the gateway is what the model "says", and the client sees what
 * the gateway made of it. Streams are cut into 1-character deltas and 7-byte network chunks,
 * so every surrogate is split over every chunk boundary.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type GatewayOptions, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { SECRETS, keysFor, testRegistry } from './support/gateway-fixture.js';
import { startMockUpstream, type MockUpstream, type Scenario } from './support/mock-upstream.js';
import { chunkedResponse } from './support/http-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Seen {
  body: Record<string, unknown>;
}

/** The text of the last user turn of an Anthropic request. */
function lastUserText(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  const last = messages.filter((m) => m.role === 'user').pop()!;
  return typeof last.content === 'string' ? last.content : last.content.map((c) => c.text ?? '').join('');
}

function sse(events: Array<Record<string, unknown>>): string {
  return events.map((e) => `event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/** An Anthropic upstream that answers with the user's text (and, when asked, a tool call). */
function echo(seen: Seen[], tool?: { name: string; input: Record<string, unknown> }, suffix = '') {
  return (_request: Request, body: Record<string, unknown>) => {
    seen.push({ body });
    const text = `You said: ${lastUserText(body)}${suffix}`;
    const usage = { input_tokens: 10, output_tokens: 5 };
    if (body.stream !== true) {
      const content: Array<Record<string, unknown>> = [{ type: 'text', text }];
      if (tool !== undefined) content.push({ type: 'tool_use', id: 'toolu_1', name: tool.name, input: tool.input });
      return new Response(
        JSON.stringify({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content,
          stop_reason: tool ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage,
        }),
        { headers: { 'content-type': 'application/json' } },
      );
    }
    const events: Array<Record<string, unknown>> = [
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...[...text].map((ch) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ch } })),
      { type: 'content_block_stop', index: 0 },
    ];
    if (tool !== undefined) {
      const args = JSON.stringify(tool.input);
      events.push({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: tool.name, input: {} } });
      for (let i = 0; i < args.length; i += 3)
        events.push({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: args.slice(i, i + 3) } });
      events.push({ type: 'content_block_stop', index: 1 });
    }
    events.push(
      { type: 'message_delta', delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    );
    const bytes = sse(events);
    const chunks: string[] = [];
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.slice(i, i + 7));
    return chunkedResponse(chunks, {}, 0);
  };
}

/** A gateway (DLP key set) over a loopback Anthropic upstream answering with `scenario`. */
async function gatewayOver(scenario: Scenario, policy: unknown, extra: Partial<GatewayOptions> = {}) {
  const upstream: MockUpstream = await startMockUpstream({ anthropic: scenario });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: testRegistry(upstream.url),
    policy: policy as PolicyFileInput,
    identity: ids.identity,
    secrets: SECRETS,
    usage: (r) => void records.push(r),
    dlp: { key: 'test-key' },
    ...extra,
  });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const openai = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: ids.keys.alice!, baseURL: 'http://gw', fetch: gateway.fetch, maxRetries: 0 });
  return { upstream, records, openai, anthropic };
}

async function setup(policy: unknown, tool?: { name: string; input: Record<string, unknown> }, suffix = '', extra: Partial<GatewayOptions> = {}) {
  const seen: Seen[] = [];
  return { seen, ...(await gatewayOver(echo(seen, tool, suffix), policy, extra)) };
}

const PII = 'Mail jane.doe@acme.io or call +1 415 555 2671 about card 4111 1111 1111 1111.';
const sentText = (s: Seen) => JSON.stringify(s.body.messages);

async function streamedOpenAI(openai: OpenAI, content: string): Promise<string> {
  const stream = await openai.chat.completions.create({ model: 'claude-sonnet', stream: true, messages: [{ role: 'user', content }] });
  let out = '';
  for await (const chunk of stream) out += chunk.choices[0]?.delta?.content ?? '';
  return out;
}

async function streamedAnthropic(anthropic: Anthropic, content: string): Promise<string> {
  const stream = anthropic.messages.stream({ model: 'claude-sonnet', max_tokens: 100, messages: [{ role: 'user', content }] });
  const final = await stream.finalMessage();
  return final.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('DLP pseudonymize: surrogates leave, originals come back', () => {
  const policy = { dlp: { default: { email: 'pseudonymize', phone: 'pseudonymize', credit_card: 'pseudonymize' } } };

  it.each(['openai', 'anthropic'] as const)('%s SDK, whole answer and streamed', async (sdk) => {
    const { seen, records, openai, anthropic } = await setup(policy);
    const whole =
      sdk === 'openai'
        ? (await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: PII }] })).choices[0]!.message.content
        : (await anthropic.messages.create({ model: 'claude-sonnet', max_tokens: 100, messages: [{ role: 'user', content: PII }] })).content
            .map((c) => (c.type === 'text' ? c.text : ''))
            .join('');
    expect(whole).toBe(`You said: ${PII}`);
    const streamed = sdk === 'openai' ? await streamedOpenAI(openai, PII) : await streamedAnthropic(anthropic, PII);
    expect(streamed).toBe(`You said: ${PII}`);
    for (const s of seen) {
      const sent = sentText(s);
      expect(sent).not.toContain('jane.doe@acme.io');
      expect(sent).not.toContain('555 2671');
      expect(sent).not.toContain('4111 1111 1111 1111');
      expect(sent).toMatch(/@[a-z]+\.example/);
    }
    // One value, one surrogate: both requests sent the same text upstream.
    expect(sentText(seen[0]!)).toBe(sentText(seen[1]!));
    expect(records.map((r) => r.dlp)).toEqual(
      [0, 1].map(() => ({
        email: { action: 'pseudonymize', count: 1 },
        phone: { action: 'pseudonymize', count: 1 },
        credit_card: { action: 'pseudonymize', count: 1 },
      })),
    );
    expect(JSON.stringify(records)).not.toContain('jane.doe');
  });
});

describe('DLP on upstream errors', () => {
  /** An Anthropic upstream that refuses, quoting the number it was sent (and what `extra` adds). */
  const refusing = (extra: string) => (_request: Request, body: Record<string, unknown>) => {
    const number = /\+[\d ]+\d/.exec(lastUserText(body))?.[0] ?? `none in ${lastUserText(body)}`;
    const error = { type: 'error', error: { type: 'invalid_request_error', message: `Cannot call ${number}${extra}` } };
    if (body.stream !== true) return new Response(JSON.stringify(error), { status: 400, headers: { 'content-type': 'application/json' } });
    const start = {
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 0 } },
    };
    return chunkedResponse([sse([start, error])], {}, 0);
  };

  const errorSetup = (policy: unknown, extra = '') => gatewayOver(refusing(extra), policy);

  const ask = 'Call +1 415 555 2671 please.';

  it('puts the original back in an error the upstream answers with, whole and in a stream', async () => {
    const { openai } = await errorSetup({ dlp: { default: { phone: 'pseudonymize' } } });
    const whole = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: ask }] }).catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(OpenAI.BadRequestError);
    expect((whole as Error).message).toContain('Cannot call +1 415 555 2671');
    const streamed = await streamedOpenAI(openai, ask).catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(Error);
    expect((streamed as Error).message).toContain('Cannot call +1 415 555 2671');
  });

  it('guards the error of an embeddings upstream that quotes its input, as a generation error', async () => {
    const embeddings = async (extra: string, policy: unknown) => {
      const upstream = await startMockUpstream({
        openai: (_request, body) =>
          Response.json({ error: { message: `Cannot embed ${JSON.stringify(body.input)}${extra}`, type: 'invalid_request_error' } }, { status: 400 }),
      });
      const ids = await keysFor({ user: 'alice', tier: 'normal' });
      const gateway = createGateway({
        registry: {
          wire_formats: { openai_chat: { family: 'chat' } },
          entry_routes: [{ path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' }],
          credentials: { openai: { kind: 'bearer', secret: 'OPENAI_API_KEY' } },
          providers: { openai: { base_url: `${upstream.url}/openai`, credential: 'openai' } },
          operations: [{ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' }],
          models: {
            emb: {
              brand: 'openai',
              kind: 'embed',
              entry_formats: ['openai_chat'],
              deployments: [
                {
                  id: 'emb@openai',
                  provider: 'openai',
                  format: 'openai_chat',
                  upstream_model: 'e',
                  pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' },
                },
              ],
            },
          },
        },
        policy: policy as PolicyFileInput,
        identity: ids.identity,
        secrets: SECRETS,
        dlp: { key: 'test-key' },
      });
      cleanups.push(async () => {
        await gateway.close();
        await upstream.close();
      });
      const openai = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
      return (await openai.embeddings.create({ model: 'emb', input: ask }).catch((e: unknown) => e)) as Error;
    };
    const blocked = await embeddings(' (card 4111 1111 1111 1111 on file)', {
      dlp: { default: { phone: 'pseudonymize', credit_card: 'block' }, scan_responses: true },
    });
    expect(blocked).toBeInstanceOf(OpenAI.BadRequestError);
    expect(blocked.message).toContain("The upstream's error message was withheld");
    expect(blocked.message).not.toContain('4111');
    // Without a blocked entity, the quoted input comes back as the client wrote it.
    const restored = await embeddings('', { dlp: { default: { phone: 'pseudonymize' } } });
    expect(restored).toBeInstanceOf(OpenAI.BadRequestError);
    expect(restored.message).toContain('+1 415 555 2671');
  });

  it('with scan_responses, withholds an error message holding what the policy blocks', async () => {
    const { openai, records } = await errorSetup(
      { dlp: { default: { phone: 'pseudonymize', credit_card: 'block' }, scan_responses: true } },
      ' (card 4111 1111 1111 1111 on file)',
    );
    const whole = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: ask }] }).catch((e: unknown) => e);
    expect(whole).toBeInstanceOf(OpenAI.BadRequestError);
    expect((whole as Error).message).toContain("The upstream's error message was withheld");
    expect((whole as Error).message).not.toContain('4111');
    const streamed = await streamedOpenAI(openai, ask).catch((e: unknown) => e);
    expect((streamed as Error).message).toContain("The upstream's error message was withheld");
    expect((streamed as Error).message).not.toContain('4111');
    expect(records.map((r) => r.dlp_response)).toEqual([0, 1].map(() => ({ credit_card: { action: 'block', count: 1 } })));
  });
});

describe('DLP redact, log and block', () => {
  it('redacts with markers and counts what it logs', async () => {
    const { seen, records, openai } = await setup({ dlp: { default: { email: 'redact', phone: 'log' } } });
    const answer = await streamedOpenAI(openai, PII);
    expect(sentText(seen[0]!)).toContain('[REDACTED:EMAIL]');
    expect(sentText(seen[0]!)).toContain('+1 415 555 2671');
    expect(answer).toContain('[REDACTED:EMAIL]');
    expect(records[0]!.dlp).toEqual({ email: { action: 'redact', count: 1 }, phone: { action: 'log', count: 1 } });
  });

  it.each(['openai', 'anthropic'] as const)('blocks before anything is sent: 400 in the %s format', async (sdk) => {
    const { upstream, records, openai, anthropic } = await setup({ dlp: { default: { credit_card: 'block' } } });
    const call =
      sdk === 'openai'
        ? openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: PII }] })
        : anthropic.messages.create({ model: 'claude-sonnet', max_tokens: 10, messages: [{ role: 'user', content: PII }] });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(sdk === 'openai' ? OpenAI.BadRequestError : Anthropic.BadRequestError);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]).toMatchObject({
      status: 'rejected',
      reason: 'dlp_block:credit_card',
      http_status: 400,
      dlp: { credit_card: { action: 'block', count: 1 } },
    });
  });

  it('fails closed when a recognizer throws or times out', async () => {
    const seen: Seen[] = [];
    const upstream = await startMockUpstream({ anthropic: echo(seen) });
    const ids = await keysFor({ user: 'alice' });
    const records: UsageRecord[] = [];
    for (const recognize of [() => Promise.reject(new Error('model down')), () => new Promise<never>(() => {})]) {
      const gateway = createGateway({
        registry: testRegistry(upstream.url),
        identity: ids.identity,
        secrets: SECRETS,
        usage: (r) => void records.push(r),
        policy: { dlp: { default: { person: 'redact' } } },
        dlp: { recognizers: [{ id: 'ner', entities: ['person'], timeoutMs: 50, recognize }] },
      });
      const openai = new OpenAI({ apiKey: ids.keys.alice!, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 });
      const error = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi Ann' }] }).catch((e: unknown) => e);
      expect((error as { status: number }).status).toBe(503);
      await gateway.close();
    }
    expect(seen).toEqual([]);
    expect(records.map((r) => r.reason)).toEqual(['dlp_unavailable', 'dlp_unavailable']);
    await upstream.close();
  });
});

describe('DLP on answers (scan_responses)', () => {
  it('redacts what the model says, streamed and whole', async () => {
    const policy = { dlp: { default: { ipv4: 'log', secret: 'redact', email: 'block' }, scan_responses: true } };
    const { records, openai } = await setup(policy, undefined, ' Also: key AKIAIOSFODNN7EXAMPLE.');
    const said = 'host 10.0.0.1';
    expect(await streamedOpenAI(openai, said)).toBe('You said: host 10.0.0.1 Also: key [REDACTED:SECRET].');
    const whole = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: said }] });
    expect(whole.choices[0]!.message.content).toBe('You said: host 10.0.0.1 Also: key [REDACTED:SECRET].');
    expect(records[0]!.dlp).toEqual({ ipv4: { action: 'log', count: 1 } });
    expect(records[0]!.dlp_response).toEqual({ ipv4: { action: 'log', count: 1 }, secret: { action: 'redact', count: 1 } });
    expect(records[1]!.dlp_response).toEqual(records[0]!.dlp_response);
  });

  it('withholds an answer with a blocked entity: 502 whole, in-stream error streamed', async () => {
    const policy = { dlp: { default: { email: 'block' }, scan_responses: true } };
    const { records, openai } = await setup(policy, undefined, ' Write to leak@corp.example.com');
    const whole = await openai.chat.completions.create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((whole as { status: number }).status).toBe(502);
    let relayed = '';
    const failed = await streamedOpenAI(openai, 'hi')
      .then((t) => (relayed = t))
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(relayed).not.toContain('leak@');
    expect(records.map((r) => r.reason)).toEqual(['dlp_block:email', 'dlp_block:email']);
  });
});

describe('tool allow lists', () => {
  const policy = { tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*'] }] } };
  const tools = (name: string) => [{ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } }];

  it('refuses a declared tool outside the list: 403 tool_not_allowed', async () => {
    const { upstream, records, openai } = await setup(policy);
    const error = await openai.chat.completions
      .create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'x' }], tools: tools('run_sql') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(upstream.hits('anthropic')).toBe(0);
    expect(records[0]).toMatchObject({ reason: 'tool_not_allowed:run_sql', http_status: 403 });
  });

  it('withholds an answer calling a tool the request did not declare: 502 whole, in-stream error streamed', async () => {
    const { records, openai } = await setup(policy, { name: 'get_secrets', input: { all: true } });
    const whole = await openai.chat.completions
      .create({ model: 'claude-sonnet', messages: [{ role: 'user', content: 'x' }], tools: tools('get_weather') })
      .catch((e: unknown) => e);
    expect((whole as { status: number }).status).toBe(502);
    const stream = await openai.chat.completions.create({
      model: 'claude-sonnet',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
      tools: tools('get_weather'),
    });
    const failed = await (async () => {
      for await (const chunk of stream) expect(chunk.choices[0]?.delta?.tool_calls ?? []).toEqual([]);
    })().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(records.map((r) => [r.status, r.reason])).toEqual([
      ['rejected', 'tool_call_blocked:get_secrets'],
      ['rejected', 'tool_call_blocked:get_secrets'],
    ]);
  });

  it('relays a declared, allowed tool call, its arguments restored', async () => {
    const { openai, seen } = await setup({ ...policy, dlp: { default: { email: 'pseudonymize' } } }, { name: 'get_weather', input: { city: 'Paris' } });
    const r = await openai.chat.completions.create({
      model: 'claude-sonnet',
      messages: [{ role: 'user', content: 'for bob@acme.io' }],
      tools: tools('get_weather'),
    });
    expect(r.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(r.choices[0]!.message.content).toBe('You said: for bob@acme.io');
    expect(sentText(seen[0]!)).not.toContain('bob@acme.io');
  });
});

describe('policy prompts', () => {
  it('go before the client’s own system prompt; the record names them', async () => {
    const { seen, records, anthropic } = await setup({
      prompts: [
        { id: 'conduct', version: 2, match: { bus: ['payments'] }, text: 'Never reveal card numbers.' },
        { id: 'other', version: 1, match: { bus: ['research'] }, text: 'Not for alice.' },
        { id: 'openai-only', version: 1, match: { formats: ['openai_chat'] }, text: 'Not for Anthropic clients.' },
      ],
    });
    await anthropic.messages.create({
      model: 'claude-sonnet',
      max_tokens: 10,
      system: [{ type: 'text', text: 'You are helpful.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    const system = seen[0]!.body.system as Array<{ text: string; cache_control?: unknown }>;
    expect(system.map((s) => s.text)).toEqual(['Never reveal card numbers.', 'You are helpful.']);
    expect(system[1]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(records[0]!.policy_prompts).toEqual(['conduct@2']);
  });

  it('keep the client’s Anthropic cache breakpoints where they were, never more than four (also with cache shaping on)', async () => {
    const conduct = { prompts: [{ id: 'conduct', version: 2, match: { bus: ['payments'] }, text: 'Never reveal card numbers.' }] };
    const eph = { type: 'ephemeral' as const };
    const request = {
      model: 'claude-sonnet',
      max_tokens: 10,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: {} }, cache_control: eph }],
      system: [
        { type: 'text' as const, text: 'You are helpful.', cache_control: eph },
        { type: 'text' as const, text: 'Be brief.', cache_control: eph },
      ],
      messages: [
        { role: 'user' as const, content: [{ type: 'text' as const, text: 'first', cache_control: eph }] },
        { role: 'assistant' as const, content: 'ok' },
        { role: 'user' as const, content: 'hi' },
      ],
    };
    const breakpoints = (body: unknown) => JSON.stringify(body).split('"cache_control"').length - 1;
    for (const extra of [{}, { cacheShaping: { ttl: '1h' as const } }]) {
      const { seen, anthropic } = await setup(conduct, undefined, '', extra);
      await anthropic.messages.create(request);
      await anthropic.messages.create({ ...request, system: 'You are helpful.', tools: [], messages: [{ role: 'user', content: 'hi' }] });
      const [full, bare] = seen.map((s) => s.body);
      // Four from the client: the prompt adds none, shaping has no room left.
      expect(breakpoints(full)).toBe(4);
      const system = full!.system as Array<{ text: string; cache_control?: unknown }>;
      expect(system).toEqual([
        { type: 'text', text: 'Never reveal card numbers.' },
        { type: 'text', text: 'You are helpful.', cache_control: eph },
        { type: 'text', text: 'Be brief.', cache_control: eph },
      ]);
      expect((full!.tools as Array<{ cache_control?: unknown }>)[0]!.cache_control).toEqual(eph);
      expect((full!.messages as Array<{ content: Array<{ cache_control?: unknown }> }>)[0]!.content[0]!.cache_control).toEqual(eph);
      // None from the client: the prompt is a stable prefix of system; shaping (when on) adds at most four.
      const bareSystem = bare!.system as Array<{ text: string }>;
      expect(bareSystem.map((s) => s.text)).toEqual(['Never reveal card numbers.', 'You are helpful.']);
      expect(breakpoints(bare)).toBeLessThanOrEqual(4);
      expect(breakpoints(bare)).toBe('cacheShaping' in extra ? 2 : 0);
    }
  });
});
