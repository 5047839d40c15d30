/**
 * DLP against a client that hides data where a scanner might not look, and the answer-side
 * corners: data in fields the canonical request does not model, in every text field it does
 * model, key blocks inside tool-call arguments (JSON escapes), and shadow mode on answers.
 * In-process, against echo upstreams (test/support/echo-upstream.ts).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { codecs, type StreamEvent } from '@tollgate/codecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, UPSTREAM_FORMATS, echoModel, echoRegistry, echoScenarios, type Seen } from './support/echo-upstream.js';
import { chunkedResponse } from './support/http-server.js';
import { startMockUpstream, type MockUpstream, type Scenario } from './support/mock-upstream.js';

const VARIANTS = {
  echo: {},
  call: { tool: 'get_weather' },
  leak: { suffix: ' Mail leak@corp.example.com, card 4111 1111 1111 1111.' },
  cut: { cut: true },
  glued: { suffix: ' Pay 4111-1111-1111-1111.x@acme.io' },
  padded: { suffix: ` Card ${[...'4111111111111111'].join('\u200b')}.` },
};
const PEM =
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9mKk3fQ2xR8vT1uZ0c4YhN6wP\nq2Lm5sD8eF3gH1jK0oP9rS7tU6vW4xY2zA1bC3dE5fG\n-----END RSA PRIVATE KEY-----';

let upstream: MockUpstream;
const seen: Seen[] = [];
let key: string;
let identity: unknown;

/** A base64 blob that reads as a Google API key at its start: legit encoded data, not to be scanned. */
const BLOB = `AIza${'SyA1234567890abcdefghijklmnopqrstu'}/${'A'.repeat(60)}==`;

/** Whole answers with more than content: OpenAI Chat with log-probabilities, annotations and audio; Responses echoing the request. */
const RAW: Record<string, Scenario> = {
  // The model glues a card number to the email surrogate it was sent.
  'glue.openai_chat': (_request, body) =>
    Response.json({
      id: 'chatcmpl_1',
      object: 'chat.completion',
      created: 1,
      model: 'echo-1',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: `Card: 4111111111111111.${/[a-z0-9]+@[a-z]+\.example/.exec(JSON.stringify(body))?.[0] ?? 'none'}` },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    }),
  'raw.openai_chat': () =>
    Response.json({
      id: 'chatcmpl_1',
      object: 'chat.completion',
      created: 1,
      model: 'echo-1',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: 'Mail leak@corp.example.com',
            annotations: [
              {
                type: 'url_citation',
                url_citation: { start_index: 0, end_index: 4, url: 'https://corp.example.com/', title: 'Contact leak@corp.example.com' },
              },
            ],
            audio: { id: 'audio_1', expires_at: 1, data: 'AAAA', transcript: 'Mail leak@corp.example.com' },
          },
          logprobs: {
            content: ['Mail', ' leak', '@corp', '.example', '.com'].map((token) => ({ token, logprob: -0.1, bytes: null, top_logprobs: [] })),
            refusal: null,
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
    }),
  // A hostile upstream hides an SSN in annotation ids, beside a legit base64 blob.
  'opaque.openai_chat': () =>
    Response.json({
      id: 'chatcmpl_1',
      object: 'chat.completion',
      created: 1,
      model: 'echo-1',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: {
            role: 'assistant',
            content: 'ok',
            annotations: [
              { type: 'url_citation', id: 'SSN 536-22-1234', url_citation: { start_index: 0, end_index: 2, url: 'https://a.example/', title: 't' } },
              { type: 'file_citation', id: '536-22-1234', data: BLOB, status: 'completed' },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
    }),
  'raw.openai_responses': (_request, body) =>
    Response.json({
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'echo-1',
      instructions: body['instructions'],
      metadata: body['metadata'] ?? {},
      output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }],
      usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6 },
    }),
};

/** The email surrogate the request was sent with, from an upstream's request body. */
const surrogateIn = (body: Record<string, unknown>): string => /[a-z0-9]+@[a-z]+\.example/.exec(JSON.stringify(body))?.[0] ?? 'none';

/**
 * An Anthropic upstream answering in several text blocks (as with citations), a value split over
 * their boundaries: whole, or streamed in 1-character deltas. `long` pads the text past the DLP
 * window, so boundaries are passed while the stream is still going.
 */
function splitAnswer(parts: (body: Record<string, unknown>) => string[]): Scenario {
  return (_request, body) => {
    const texts = parts(body);
    if (body['stream'] !== true) {
      return Response.json({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'echo-1',
        content: texts.map((text) => ({ type: 'text', text })),
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 5 },
      });
    }
    const events: StreamEvent[] = [{ type: 'message_start', id: 'msg_1', model: 'echo-1' }];
    texts.forEach((text, index) => {
      events.push({ type: 'block_start', index, block: { kind: 'text' } });
      for (const ch of text) events.push({ type: 'text_delta', index, text: ch });
      events.push({ type: 'block_stop', index });
    });
    events.push(
      { type: 'usage', usage: { input: 5, output: 5, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: true } },
      { type: 'finish', finishReason: { unified: 'stop', raw: null } },
      { type: 'message_stop' },
    );
    const encoder = codecs.anthropic_messages.createStreamEncoder({ model: 'echo-1' });
    let sse = '';
    const write = (t: string | Uint8Array) => void (sse += typeof t === 'string' ? t : new TextDecoder().decode(t));
    for (const e of events) encoder.encode(e, write);
    encoder.end(write);
    const chunks: string[] = [];
    for (let i = 0; i < sse.length; i += 7) chunks.push(sse.slice(i, i + 7));
    return chunkedResponse(chunks, {}, 0);
  };
}
const PAD = 'x'.repeat(400);
const SPLIT: Record<string, Scenario> = {
  'split.anthropic_messages': splitAnswer(() => ['The card is 4111 1111', ' 1111 1111, mail jane.doe@', 'acme.io']),
  'splitlong.anthropic_messages': splitAnswer(() => [`${PAD} The card is 4111 1111`, ` 1111 1111, mail jane.doe@`, `acme.io ${PAD}`, ` end ${PAD}`]),
  // The model echoes the email surrogate it was sent, split over two blocks.
  'splitsur.anthropic_messages': splitAnswer((body) => {
    const s = surrogateIn(body);
    return [`${PAD} The card is 4111 1111`, ` 1111 1111, mail ${s.slice(0, 5)}`, `${s.slice(5)} ${PAD}`];
  }),
};

beforeAll(async () => {
  upstream = await startMockUpstream({ ...echoScenarios(VARIANTS, seen), ...RAW, ...SPLIT });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  key = ids.keys.alice!;
  identity = ids.identity;
});

afterAll(async () => {
  await upstream?.close();
});

function gatewayWith(policy: unknown): { gateway: Gateway; records: UsageRecord[]; openai: OpenAI; anthropic: Anthropic } {
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: echoRegistry(upstream.url, [...Object.keys(VARIANTS), 'raw', 'glue', 'opaque', 'split', 'splitlong', 'splitsur']),
    policy: policy as PolicyFileInput,
    identity: identity as never,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
  });
  return {
    gateway,
    records,
    openai: new OpenAI({ apiKey: key, baseURL: 'http://gw/v1', fetch: gateway.fetch, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: 'http://gw', fetch: gateway.fetch, maxRetries: 0 }),
  };
}

/** A raw OpenAI Chat request through the gateway, as a client that is not an SDK sends it. */
async function post(gateway: Gateway, body: Record<string, unknown>): Promise<Response> {
  return gateway.fetch('http://gw/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('what leaves is what was scanned', () => {
  it('a field the codec does not model is not relayed while DLP is on (identity route, nothing found elsewhere)', async () => {
    const { gateway } = gatewayWith({ dlp: { default: { credit_card: 'block', email: 'redact' } } });
    const from = seen.length;
    const res = await post(gateway, {
      model: echoModel('openai_chat'),
      messages: [{ role: 'user', content: 'hello', x_note: 'card 4111 1111 1111 1111' }],
      x_customer: { email: 'jane.doe@acme.io', card: '4111 1111 1111 1111' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tollgate-unclassified-fields')).toBe('1');
    const sent = JSON.stringify(seen.slice(from).map((s) => s.body));
    expect(sent).toContain('hello');
    expect(sent).not.toContain('4111');
    expect(sent).not.toContain('jane.doe');
    await gateway.close();
  });

  it('without DLP for the caller, the client’s bytes still go as sent (identity)', async () => {
    const { gateway } = gatewayWith({ dlp: { use_cases: [{ id: 'others', match: { bus: ['research'] }, actions: { email: 'redact' } }] } });
    const from = seen.length;
    await post(gateway, { model: echoModel('openai_chat'), messages: [{ role: 'user', content: 'hello' }], x_customer: 'kept' });
    expect(seen.slice(from).map((s) => s.body['x_customer'])).toEqual(['kept']);
    await gateway.close();
  });

  it('scans every text the request carries: end-user id, metadata, stop sequences, tool definitions, response schema', async () => {
    const email = 'jane.doe@acme.io';
    const body = {
      model: echoModel('openai_chat'),
      messages: [{ role: 'user', content: 'hello' }],
      user: email,
      metadata: { owner: email },
      stop: [`END ${email}`],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: `Ask ${email} first`,
            parameters: { type: 'object', properties: { city: { type: 'string', description: `not ${email}` } } },
          },
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'r', description: `for ${email}`, schema: { type: 'object', properties: { a: { type: 'string', enum: [email] } } } },
      },
    };
    const redacting = gatewayWith({ dlp: { default: { email: 'redact' } } });
    const from = seen.length;
    expect((await post(redacting.gateway, body)).status).toBe(200);
    const sent = JSON.stringify(seen.slice(from).map((s) => s.body));
    expect(sent).not.toContain(email);
    expect(sent.split('[REDACTED:EMAIL]').length - 1).toBe(7);
    expect(redacting.records[0]!.dlp).toEqual({ email: { action: 'redact', count: 7 } });

    const blocking = gatewayWith({ dlp: { default: { email: 'block' } } });
    for (const field of ['user', 'metadata', 'stop', 'tools', 'response_format'] as const) {
      const only = { model: body.model, messages: body.messages, [field]: body[field] };
      const res = await post(blocking.gateway, only);
      expect(res.status, field).toBe(400);
    }
    expect(blocking.records.map((r) => r.reason)).toEqual(Array(5).fill('dlp_block:email'));
    expect(seen.length).toBe(from + 1);
    await redacting.gateway.close();
    await blocking.gateway.close();
  });
});

describe('tool-call arguments are JSON', () => {
  it('a key block in history arguments is pseudonymized inside the JSON string, which stays valid; the answer’s arguments get it back', async () => {
    const { gateway, openai, records } = gatewayWith({ dlp: { default: { secret: 'pseudonymize' } } });
    const from = seen.length;
    const r = await openai.chat.completions.create({
      model: echoModel('anthropic_messages', 'call'),
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      messages: [
        { role: 'user', content: 'sign this' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ key: PEM }) } }],
        },
        { role: 'tool', tool_call_id: 'call_0', content: 'done' },
        { role: 'user', content: `again with ${PEM}` },
      ],
    });
    // The Anthropic upstream got the history call's input as an object (the arguments parsed), without the key.
    const sent = seen.slice(from)[0]!.body;
    expect(JSON.stringify(sent)).not.toContain('MIIEowIBAAKCAQEA7bq9');
    const history = (sent['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>)[1]!.content.find((c) => c['type'] === 'tool_use')!;
    const pseudonym = (history['input'] as { key: string }).key;
    expect(pseudonym).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+\n-----END RSA PRIVATE KEY-----$/);
    expect(pseudonym).not.toBe(PEM);
    // The model's own call echoes the surrogate inside its JSON arguments: the client gets the original.
    const call = r.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' ? JSON.parse(call.function.arguments) : null).toEqual({ said: `again with ${PEM}` });
    expect(r.choices[0]!.message.content).toBe(`You said: again with ${PEM}`);
    expect(records[0]!.dlp).toEqual({ secret: { action: 'pseudonymize', count: 2 } });
    await gateway.close();
  });

  it('streamed, the surrogate in the call’s arguments is restored too', async () => {
    const { gateway, openai } = gatewayWith({ dlp: { default: { secret: 'pseudonymize' } } });
    const stream = await openai.chat.completions.create({
      model: echoModel('gemini_generate_content', 'call'),
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      messages: [{ role: 'user', content: `use ${PEM}` }],
    });
    let args = '';
    for await (const chunk of stream) for (const c of chunk.choices[0]?.delta.tool_calls ?? []) args += c.function?.arguments ?? '';
    expect(JSON.parse(args)).toEqual({ said: `use ${PEM}` });
    await gateway.close();
  });
});

describe('request text that is not a JSON string value', () => {
  const CARD = '4111111111111111';
  const fn = (name: string, parameters: Record<string, unknown> = { type: 'object', properties: {} }) => ({ type: 'function', function: { name, parameters } });
  const called = (args: string, name = 'get_weather') => ({
    tools: [fn(name)],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name, arguments: args } }] },
      { role: 'tool', tool_call_id: 'call_0', content: 'done' },
    ],
  });
  const HIDDEN: Array<[string, Record<string, unknown>, string]> = [
    ['a number in history arguments', called(`{"card": ${CARD}}`), 'messages[1].content[0].arguments (outside its strings)'],
    ['a key in history arguments', called(`{"${CARD}": "x"}`), 'messages[1].content[0].arguments (a key)'],
    ['a tool name', { tools: [fn('get_weather'), fn(`get_${CARD}`)] }, 'tools[].name'],
    ['a tool name in history', called('{}', `get_${CARD}`), 'messages[1].content[0].name'],
    [
      'a number in a schema enum',
      { tools: [fn('f', { type: 'object', properties: { n: { type: 'integer', enum: [Number(CARD)] } } })] },
      'tools[0].parameters (a number)',
    ],
    [
      'a schema default and examples',
      { tools: [fn('f', { type: 'object', properties: { n: { type: 'integer', default: Number(CARD), examples: [Number(CARD)] } } })] },
      'tools[0].parameters (a number)',
    ],
    [
      'a key in schema properties',
      { tools: [fn('f', { type: 'object', properties: { [`card ${CARD}`]: { type: 'string' } } })] },
      'tools[0].parameters (a key)',
    ],
    ['a metadata key', { metadata: { [CARD]: 'x' } }, 'metadata (a key)'],
    [
      'a response format key',
      { response_format: { type: 'json_schema', json_schema: { name: 'r', schema: { type: 'object', properties: { [CARD]: { type: 'string' } } } } } },
      'response_format.schema (a key)',
    ],
  ];

  it.each(HIDDEN)('%s is found: under block, 400 and nothing sent', async (_what, extra) => {
    const { gateway, records } = gatewayWith({ dlp: { default: { credit_card: 'block' } } });
    const from = seen.length;
    const res = await post(gateway, { model: echoModel('openai_chat'), messages: [{ role: 'user', content: 'hi' }], ...extra });
    expect(res.status).toBe(400);
    expect(seen.length).toBe(from);
    expect(records[0]).toMatchObject({ reason: 'dlp_block:credit_card', dlp: { credit_card: { action: 'block' } } });
    await gateway.close();
  });

  it.each(HIDDEN)('%s cannot be rewritten: under redact or pseudonymize, 400 naming the field, nothing sent', async (_what, extra, field) => {
    for (const action of ['redact', 'pseudonymize']) {
      const { gateway, records } = gatewayWith({ dlp: { default: { credit_card: action } } });
      const from = seen.length;
      const res = await post(gateway, { model: echoModel('openai_chat'), messages: [{ role: 'user', content: 'hi' }], ...extra });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string } };
      expect(body.error.message).toContain(`(credit_card) in ${field}`);
      expect(body.error.message).not.toContain(CARD);
      expect(seen.length).toBe(from);
      expect(records[0]).toMatchObject({ reason: 'dlp_unrewritable:credit_card' });
      await gateway.close();
    }
  });

  it('in the caller’s own format (Anthropic), and only reported in shadow mode; `log` counts and sends', async () => {
    const { gateway } = gatewayWith({ dlp: { default: { credit_card: 'redact' } } });
    const res = await gateway.fetch('http://gw/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: echoModel('anthropic_messages'),
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: `get_${CARD}`, input_schema: { type: 'object', properties: {} } }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    await gateway.close();

    const shadow = gatewayWith({ enforcement: 'shadow', dlp: { default: { credit_card: 'redact' } } });
    expect(
      (await post(shadow.gateway, { model: echoModel('openai_chat'), messages: [{ role: 'user', content: 'hi' }], metadata: { [CARD]: 'x' } })).status,
    ).toBe(200);
    expect(shadow.records[0]!.would_block).toContain('dlp_unrewritable:credit_card');
    await shadow.gateway.close();

    const logging = gatewayWith({ dlp: { default: { credit_card: 'log' } } });
    const from = seen.length;
    expect((await post(logging.gateway, { model: echoModel('openai_chat'), ...called(`{"card":${CARD}}`) })).status).toBe(200);
    expect(JSON.stringify(seen.slice(from).map((s) => s.body))).toContain(CARD);
    expect(logging.records[0]!.dlp).toEqual({ credit_card: { action: 'log', count: 1 } });
    await logging.gateway.close();
  });

  it('string values in arguments are rewritten in place: numbers and layout stay as the client wrote them', async () => {
    const { gateway } = gatewayWith({ dlp: { default: { email: 'redact' } } });
    const from = seen.length;
    const args = '{"n": 12345678901234567890, "note": "mail jane.doe@acme.io"}';
    expect((await post(gateway, { model: echoModel('openai_chat'), ...called(args) })).status).toBe(200);
    const sent = seen.slice(from)[0]!.body as { messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }> };
    expect(sent.messages[1]!.tool_calls![0]!.function.arguments).toBe('{"n": 12345678901234567890, "note": "mail [REDACTED:EMAIL]"}');
    await gateway.close();
  });
});

describe('shadow mode on answers', () => {
  it('scans and counts what the model says with the action it would take, reports a block in would_block, changes nothing', async () => {
    const { gateway, openai, records } = gatewayWith({
      enforcement: 'shadow',
      dlp: { default: { email: 'block', credit_card: 'redact' }, scan_responses: true },
    });
    const whole = await openai.chat.completions.create({ model: echoModel('anthropic_messages', 'leak'), messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe('You said: hi Mail leak@corp.example.com, card 4111 1111 1111 1111.');
    const stream = await openai.chat.completions.create({
      model: echoModel('openai_responses', 'leak'),
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('You said: hi Mail leak@corp.example.com, card 4111 1111 1111 1111.');
    expect(records).toHaveLength(2);
    for (const r of records) {
      expect(r).toMatchObject({ status: 'ok', dlp_response: { email: { action: 'block', count: 1 }, credit_card: { action: 'redact', count: 1 } } });
      expect(r.would_block).toContain('dlp_block:email');
    }
    await gateway.close();
  });
});

describe('a cut stream', () => {
  it.each(UPSTREAM_FORMATS)('from %s: what the guard held is handed on (scanned and restored) before the error', async (format) => {
    // scan_responses holds back the detectors' window: here the whole (short) answer until the cut.
    const { gateway, openai, records } = gatewayWith({ dlp: { default: { email: 'pseudonymize', ipv4: 'log' }, scan_responses: true } });
    const stream = await openai.chat.completions.create({
      model: echoModel(format, 'cut'),
      stream: true,
      messages: [{ role: 'user', content: 'mail jane.doe@acme.io from 10.0.0.1' }],
    });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(text).toBe('You said: mail jane.doe@acme.io from 10.0.0.1');
    expect(records[0]).toMatchObject({ status: 'upstream_error', dlp_response: { ipv4: { action: 'log', count: 1 } } });
    await gateway.close();
  });
});

describe('what a whole answer carries beside its content', () => {
  it('with scan_responses, token log-probabilities are not relayed and annotations are scanned; unmodelled fields are not relayed', async () => {
    const { gateway } = gatewayWith({ dlp: { default: { email: 'redact' }, scan_responses: true } });
    const res = await post(gateway, { model: echoModel('openai_chat', 'raw'), messages: [{ role: 'user', content: 'hi' }], logprobs: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('leak');
    expect(text).not.toContain('@corp');
    const body = JSON.parse(text) as {
      choices: Array<{ message: { content: string; annotations: Array<{ url_citation: { title: string } }> }; logprobs: unknown }>;
    };
    expect(body.choices[0]!.message.content).toBe('Mail [REDACTED:EMAIL]');
    expect(body.choices[0]!.message.annotations[0]!.url_citation.title).toBe('Contact [REDACTED:EMAIL]');
    expect(body.choices[0]!.logprobs).toBeNull();
    await gateway.close();
  });

  it('values under id-like keys are read unless they look opaque: an SSN in an annotation id is redacted, a base64 blob kept', async () => {
    const { gateway, records } = gatewayWith({ dlp: { default: { us_ssn: 'redact', secret: 'block' }, scan_responses: true } });
    const res = await post(gateway, { model: echoModel('openai_chat', 'opaque'), messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: Array<{ message: { annotations: Array<Record<string, unknown>> } }> };
    const [first, second] = body.choices[0]!.message.annotations;
    expect(first).toMatchObject({ type: 'url_citation', id: 'SSN [REDACTED:US_SSN]' });
    expect(second).toEqual({ type: 'file_citation', id: '[REDACTED:US_SSN]', data: BLOB, status: 'completed' });
    expect(records[0]!.dlp_response).toEqual({ us_ssn: { action: 'redact', count: 2 } });
    await gateway.close();

    const blocking = gatewayWith({ dlp: { default: { us_ssn: 'block' }, scan_responses: true } });
    const withheld = await post(blocking.gateway, { model: echoModel('openai_chat', 'opaque'), messages: [{ role: 'user', content: 'hi' }] });
    expect(withheld.status).toBe(502);
    expect(await withheld.text()).not.toContain('536-22');
    expect(blocking.records[0]!.reason).toBe('dlp_block:us_ssn');
    await blocking.gateway.close();
  });

  it('surrogates in what a Responses upstream echoes (instructions, metadata) are restored for the client', async () => {
    const { gateway, openai } = gatewayWith({ dlp: { default: { email: 'pseudonymize' } } });
    const r = await openai.responses.create({
      model: echoModel('openai_responses', 'raw'),
      instructions: 'Answer jane.doe@acme.io politely.',
      input: 'hi',
      metadata: { owner: 'jane.doe@acme.io' },
    });
    expect(r.instructions).toBe('Answer jane.doe@acme.io politely.');
    expect(r.metadata).toEqual({ owner: 'jane.doe@acme.io' });
    expect(r.output_text).toBe('ok');
    await gateway.close();
  });
});

describe('overlapping values: the stricter action wins', () => {
  const policy = { dlp: { default: { credit_card: 'block', us_ssn: 'block', '*': 'log' }, scan_responses: true } };

  it.each([
    ['a card glued into an email', 'pay with 4111-1111-1111-1111.x@acme.io', 'credit_card'],
    ['an SSN glued into an email', 'my ssn 536-22-1234@acme.io', 'us_ssn'],
  ])('%s in the request is blocked, not logged as the email', async (_what, content, entity) => {
    const { gateway, records } = gatewayWith(policy);
    const from = seen.length;
    const res = await post(gateway, { model: echoModel('anthropic_messages'), messages: [{ role: 'user', content }] });
    expect(res.status).toBe(400);
    expect(seen.length).toBe(from);
    expect(records[0]).toMatchObject({ reason: `dlp_block:${entity}`, dlp: { [entity]: { action: 'block', count: 1 } } });
    await gateway.close();
  });

  it('a card glued into an email in the answer is withheld: 502 whole, in-stream error streamed', async () => {
    const { gateway, records, openai } = gatewayWith(policy);
    const whole = await openai.chat.completions
      .create({ model: echoModel('anthropic_messages', 'glued'), messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect((whole as { status: number }).status).toBe(502);
    const stream = await openai.chat.completions.create({
      model: echoModel('openai_responses', 'glued'),
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(text).not.toContain('4111');
    expect(records.map((r) => r.reason)).toEqual(['dlp_block:credit_card', 'dlp_block:credit_card']);
    await gateway.close();
  });
});

describe('disguised values: full-width, invisible and dash characters', () => {
  it.each([
    ['a card in full-width digits', 'card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11', 'credit_card'],
    ['a card with zero-width spaces', 'card 4111\u200b1111\u200b1111\u200b1111', 'credit_card'],
    ['an email with a zero-width space', 'mail jane.doe\u200b@acme.io', 'email'],
    ['an email with a full-width at sign', 'mail jane.doe\uff20acme.io', 'email'],
    ['an SSN with en dashes', 'ssn 536\u201322\u20131234', 'us_ssn'],
  ])('%s in the request is blocked', async (_what, content, entity) => {
    const { gateway, records } = gatewayWith({ dlp: { default: { credit_card: 'block', email: 'block', us_ssn: 'block' } } });
    const from = seen.length;
    const res = await post(gateway, { model: echoModel('openai_chat'), messages: [{ role: 'user', content }] });
    expect(res.status).toBe(400);
    expect(seen.length).toBe(from);
    expect(records[0]!.reason).toBe(`dlp_block:${entity}`);
    await gateway.close();
  });

  it('the original span is redacted or pseudonymized, and a surrogate is put back as the client wrote it', async () => {
    const { gateway, openai, records } = gatewayWith({ dlp: { default: { credit_card: 'pseudonymize', email: 'redact' } } });
    const card = '\uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11';
    const mail = 'jane.doe\u200b@acme.io';
    const from = seen.length;
    const whole = await openai.chat.completions.create({
      model: echoModel('anthropic_messages'),
      messages: [{ role: 'user', content: `card ${card}, mail ${mail}` }],
    });
    const sent = JSON.stringify(seen.slice(from).map((s) => s.body));
    // The card leaves as an ASCII surrogate that keeps its issuer digits; the email as the marker.
    expect(sent).toMatch(/card 4111 \d{4} \d{4} \d{4}, mail \[REDACTED:EMAIL\]/);
    expect(sent).not.toContain('\uff11');
    expect(sent).not.toContain('jane.doe');
    expect(whole.choices[0]!.message.content).toBe(`You said: card ${card}, mail [REDACTED:EMAIL]`);
    expect(records[0]!.dlp).toEqual({ credit_card: { action: 'pseudonymize', count: 1 }, email: { action: 'redact', count: 1 } });
    await gateway.close();
  });

  it('a card padded with zero-width spaces in an answer is redacted, whole and streamed in 1-character deltas', async () => {
    const { gateway, openai } = gatewayWith({ dlp: { default: { credit_card: 'redact' }, scan_responses: true } });
    const whole = await openai.chat.completions.create({ model: echoModel('openai_chat', 'padded'), messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe('You said: hi Card [REDACTED:CREDIT_CARD].');
    const stream = await openai.chat.completions.create({
      model: echoModel('anthropic_messages', 'padded'),
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('You said: hi Card [REDACTED:CREDIT_CARD].');
    await gateway.close();
  });
});

describe('a value the model glues to a surrogate', () => {
  it.each([
    ['block', 502, null],
    ['redact', 200, 'Card: [REDACTED:CREDIT_CARD].jane.doe@acme.io'],
  ] as const)('a card glued to the email surrogate is still found (credit_card: %s)', async (action, status, content) => {
    const { gateway, records } = gatewayWith({ dlp: { default: { email: 'pseudonymize', credit_card: action }, scan_responses: true } });
    const res = await post(gateway, { model: echoModel('openai_chat', 'glue'), messages: [{ role: 'user', content: 'my mail is jane.doe@acme.io' }] });
    expect(res.status).toBe(status);
    const text = await res.text();
    expect(text).not.toContain('4111111111111111');
    if (content !== null) expect((JSON.parse(text) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(content);
    expect(records[0]!.dlp_response).toEqual({ credit_card: { action, count: 1 } });
    await gateway.close();
  });
});

describe('a value split over text blocks a client may receive joined', () => {
  const redacting = { dlp: { default: { credit_card: 'redact', email: 'pseudonymize' }, scan_responses: true } };
  const blocking = { dlp: { default: { credit_card: 'block', email: 'block' }, scan_responses: true } };

  /** An OpenAI Chat client's text, whole or streamed; the error when the answer was refused. */
  async function chat(openai: OpenAI, variant: string, stream: boolean, content = 'hi'): Promise<{ text: string; error: unknown }> {
    const model = echoModel('anthropic_messages', variant);
    if (!stream) {
      const r = await openai.chat.completions.create({ model, messages: [{ role: 'user', content }] }).catch((e: unknown) => e);
      return r instanceof Error ? { text: '', error: r } : { text: (r as OpenAI.ChatCompletion).choices[0]!.message.content ?? '', error: null };
    }
    let text = '';
    const s = await openai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content }] });
    const error = await (async () => {
      for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    return { text, error: error ?? null };
  }

  /** An Anthropic client's text blocks, whole or streamed. */
  async function messages(anthropic: Anthropic, variant: string, stream: boolean): Promise<{ blocks: string[]; error: unknown }> {
    const params = { model: echoModel('anthropic_messages', variant), max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };
    try {
      const m = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      return { blocks: m.content.map((b) => (b.type === 'text' ? b.text : '')), error: null };
    } catch (error) {
      return { blocks: [], error };
    }
  }

  it.each([false, true])('Anthropic upstream → OpenAI Chat client (streamed: %s): a card and an email over three blocks are redacted', async (stream) => {
    const { gateway, openai, records } = gatewayWith(redacting);
    const short = await chat(openai, 'split', stream);
    expect(short).toEqual({ text: 'The card is [REDACTED:CREDIT_CARD], mail [REDACTED:EMAIL]', error: null });
    const long = await chat(openai, 'splitlong', stream);
    expect(long).toEqual({ text: `${PAD} The card is [REDACTED:CREDIT_CARD], mail [REDACTED:EMAIL] ${PAD} end ${PAD}`, error: null });
    // On the answer, `pseudonymize` acts as `redact`.
    for (const r of records) expect(r.dlp_response).toEqual({ credit_card: { action: 'redact', count: 1 }, email: { action: 'redact', count: 1 } });
    await gateway.close();
  });

  it.each([false, true])('Anthropic upstream → OpenAI Chat client (streamed: %s): a blocked card over blocks is withheld', async (stream) => {
    const { gateway, openai, records } = gatewayWith(blocking);
    for (const variant of ['split', 'splitlong']) {
      const { text, error } = await chat(openai, variant, stream);
      expect(error).toBeInstanceOf(Error);
      if (!stream) expect((error as { status: number }).status).toBe(502);
      expect(text).not.toContain('4111');
    }
    expect(records.map((r) => r.reason)).toEqual(['dlp_block:credit_card', 'dlp_block:credit_card']);
    await gateway.close();
  });

  it.each([false, true])('a surrogate split over blocks is restored, beside a card redacted over them (streamed: %s)', async (stream) => {
    const { gateway, openai } = gatewayWith({ dlp: { default: { credit_card: 'pseudonymize', email: 'pseudonymize' }, scan_responses: true } });
    const r = await chat(openai, 'splitsur', stream, 'my mail is jane.doe@acme.io');
    expect(r).toEqual({ text: `${PAD} The card is [REDACTED:CREDIT_CARD], mail jane.doe@acme.io ${PAD}`, error: null });
    await gateway.close();
  });

  it.each([false, true])(
    'same format, Anthropic client (streamed: %s): each block keeps its own text, a value goes into the block it starts in',
    async (stream) => {
      const { gateway, anthropic } = gatewayWith(redacting);
      // The third block is all inside the email: left empty (a stream does not open an empty text block).
      expect(await messages(anthropic, 'split', stream)).toEqual({
        blocks: ['The card is [REDACTED:CREDIT_CARD]', ', mail [REDACTED:EMAIL]', ...(stream ? [] : [''])],
        error: null,
      });
      expect(await messages(anthropic, 'splitlong', stream)).toEqual({
        blocks: [`${PAD} The card is [REDACTED:CREDIT_CARD]`, ', mail [REDACTED:EMAIL]', ` ${PAD}`, ` end ${PAD}`],
        error: null,
      });
      const blocked = gatewayWith(blocking);
      const refused = await messages(blocked.anthropic, 'splitlong', stream);
      expect(refused.error).toBeInstanceOf(Error);
      expect(blocked.records[0]!.reason).toBe('dlp_block:credit_card');
      await gateway.close();
      await blocked.gateway.close();
    },
  );
});
