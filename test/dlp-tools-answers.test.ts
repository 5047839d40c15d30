/**
 * The tool-call output guard on what a decoder does not keep: an OpenAI Chat answer's other
 * choices (`n: 2`) and custom tool calls, a Gemini answer's other candidates. A whole answer
 * relayed as the upstream's own bytes carries them all, so the guard checks them all; a
 * guarded stream is re-encoded from what was checked. In-process through `gateway.fetch`,
 * against loopback upstreams answering with the wire bodies set per test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type PolicyFileInput, type UsageRecord } from '@tollgate/core';
import { keysFor } from './support/gateway-fixture.js';
import { ECHO_SECRETS, echoModel, echoRegistry } from './support/echo-upstream.js';
import { startMockUpstream } from './support/mock-upstream.js';
import { chunkedResponse } from './support/http-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

type Call = { type: 'function'; name: string } | { type: 'custom'; name: string };
const wireCall = (c: Call, i: number) =>
  c.type === 'function'
    ? { id: `call_${i}`, type: 'function', function: { name: c.name, arguments: '{"to":"x"}' } }
    : { id: `call_${i}`, type: 'custom', custom: { name: c.name, input: 'cat /etc/passwd' } };

/** A Chat answer with one choice per entry: text for null, else the tool calls. */
function chatAnswer(choices: Array<Call[] | null>) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'echo-1',
    choices: choices.map((calls, index) =>
      calls === null
        ? { index, finish_reason: 'stop', message: { role: 'assistant', content: 'fine' } }
        : { index, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: calls.map(wireCall) } },
    ),
    usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
  };
}

/** The same answer streamed: each choice's deltas under its own `index`, then [DONE]. */
function chatStream(choices: Array<Call[] | null>): string[] {
  const chunk = (choice: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'echo-1', choices: [choice] })}\n\n`;
  const out: string[] = [];
  choices.forEach((calls, index) => {
    if (calls === null) out.push(chunk({ index, delta: { role: 'assistant', content: 'fine' } }), chunk({ index, delta: {}, finish_reason: 'stop' }));
    else {
      calls.forEach((c, i) => {
        const w = wireCall(c, i) as Record<string, unknown>;
        out.push(chunk({ index, delta: { role: 'assistant', tool_calls: [{ index: i, ...w }] } }));
      });
      out.push(chunk({ index, delta: {}, finish_reason: 'tool_calls' }));
    }
  });
  out.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'echo-1', choices: [], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } })}\n\n`,
    'data: [DONE]\n\n',
  );
  return out;
}

/** A Gemini answer with one candidate per entry: text for null, else function calls. */
function geminiAnswer(candidates: Array<string[] | null>) {
  return {
    candidates: candidates.map((calls, index) => ({
      index,
      finishReason: 'STOP',
      content: { role: 'model', parts: calls === null ? [{ text: 'fine' }] : calls.map((name) => ({ functionCall: { name, args: { to: 'x' } } })) },
    })),
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  };
}

/** A Responses answer carrying these output items. */
function responsesAnswer(output: unknown[], tools: unknown[] = []) {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'echo-1',
    output,
    tools,
    usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 },
  };
}

/** The same answer streamed item by item, ending with the whole response. */
function responsesStream(output: unknown[]): string[] {
  const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const whole = responsesAnswer(output);
  return [
    event({ type: 'response.created', sequence_number: 0, response: { ...whole, status: 'in_progress', output: [], usage: null } }),
    ...output.flatMap((item, i) => [
      event({ type: 'response.output_item.added', sequence_number: 2 * i + 1, output_index: i, item }),
      event({ type: 'response.output_item.done', sequence_number: 2 * i + 2, output_index: i, item }),
    ]),
    event({ type: 'response.completed', sequence_number: 2 * output.length + 1, response: whole }),
  ];
}

/** An Anthropic answer with these content blocks. */
function anthropicAnswer(content: unknown[]) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'echo-1',
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 5 },
  };
}

/** The same answer streamed, each block whole at its content_block_start. */
function anthropicStream(content: unknown[]): string[] {
  const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  return [
    event({ type: 'message_start', message: { ...anthropicAnswer([]), stop_reason: null } }),
    ...content.flatMap((block, index) => [event({ type: 'content_block_start', index, content_block: block }), event({ type: 'content_block_stop', index })]),
    event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }),
    event({ type: 'message_stop' }),
  ];
}

async function gatewayOver(policy: unknown) {
  const answer: { chat: Array<Call[] | null>; gemini: Array<string[] | null>; responses: unknown[]; anthropic: unknown[] } = {
    chat: [null],
    gemini: [null],
    responses: [],
    anthropic: [],
  };
  const upstream = await startMockUpstream({
    [echoModel('openai_responses')]: (_r, body) =>
      body.stream === true ? chunkedResponse(responsesStream(answer.responses), {}, 0) : Response.json(responsesAnswer(answer.responses)),
    [echoModel('anthropic_messages')]: (_r, body) =>
      body.stream === true ? chunkedResponse(anthropicStream(answer.anthropic), {}, 0) : Response.json(anthropicAnswer(answer.anthropic)),
    [echoModel('openai_chat')]: (_r, body) => (body.stream === true ? chunkedResponse(chatStream(answer.chat), {}, 0) : Response.json(chatAnswer(answer.chat))),
    [echoModel('gemini_generate_content')]: () => Response.json(geminiAnswer(answer.gemini)),
  });
  const ids = await keysFor({ user: 'alice', tier: 'normal', bu: 'payments' });
  const records: UsageRecord[] = [];
  const gateway = createGateway({
    registry: echoRegistry(upstream.url, ['echo']),
    policy: policy as PolicyFileInput,
    identity: ids.identity,
    secrets: ECHO_SECRETS,
    usage: (r) => void records.push(r),
  });
  cleanups.push(async () => {
    await gateway.close();
    await upstream.close();
  });
  const key = ids.keys.alice!;
  const post = (path: string, body: Record<string, unknown>) =>
    gateway.fetch(`http://gw${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  return { answer, records, post };
}

const POLICY = { tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*', 'shell'] }] } };
const WEATHER = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
const chat = (extra: Record<string, unknown> = {}) => ({
  model: echoModel('openai_chat'),
  n: 2,
  messages: [{ role: 'user', content: 'hi' }],
  tools: WEATHER,
  ...extra,
});
const fn = (name: string): Call => ({ type: 'function', name });

describe('whole answers: every choice and every kind of tool call is guarded', () => {
  it.each([
    ['a second choice calling an undeclared tool', [null, [fn('wire_money')]], 'wire_money'],
    ['a second choice calling a declared tool the lists do not allow', [[fn('get_weather')], [fn('run_sql')]], 'run_sql'],
    ['a custom tool call the request did not declare', [[{ type: 'custom', name: 'shell' }]], 'shell'],
    ['a tool call of a kind the gateway cannot name', [[{ type: 'custom', name: '' }]], 'unnamed'],
  ] as Array<[string, Array<Call[] | null>, string]>)('withholds %s: 502', async (_name, choices, tool) => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.chat = choices;
    const res = await post('/v1/chat/completions', chat());
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(text).not.toContain('"tool_calls"');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: `tool_call_blocked:${tool}` });
  });

  it('relays every choice as the upstream sent it when each calls only what is declared and allowed', async () => {
    const { answer, post } = await gatewayOver(POLICY);
    answer.chat = [[fn('get_weather')], null, [fn('get_weather')]];
    const res = await post('/v1/chat/completions', chat({ n: 3 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(chatAnswer(answer.chat));
  });

  it('relays a declared, allowed custom tool call', async () => {
    const { answer, post } = await gatewayOver(POLICY);
    answer.chat = [[{ type: 'custom', name: 'shell' }]];
    const res = await post('/v1/chat/completions', chat({ n: 1, tools: [{ type: 'custom', custom: { name: 'shell' } }] }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(chatAnswer(answer.chat));
  });

  it('reports in shadow mode and relays', async () => {
    const { answer, records, post } = await gatewayOver({ enforcement: 'shadow', ...POLICY });
    answer.chat = [null, [fn('wire_money')]];
    expect((await post('/v1/chat/completions', chat())).status).toBe(200);
    expect(records[0]!.would_block).toContain('tool_call_blocked:wire_money');
  });

  it('withholds a Gemini answer whose second candidate calls an undeclared tool', async () => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.gemini = [null, ['wire_money']];
    const res = await post(`/v1beta/models/${echoModel('gemini_generate_content')}:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { candidateCount: 2 },
      tools: [{ functionDeclarations: [{ name: 'get_weather' }] }],
    });
    expect(res.status).toBe(502);
    expect(records[0]).toMatchObject({ reason: 'tool_call_blocked:wire_money' });
  });
});

describe('streams under a tool guard', () => {
  /** The SSE text a client reads (the gateway's in-stream error included). */
  const read = async (res: Response) => res.text();

  it('never hand on a second choice’s undeclared tool call', async () => {
    const { answer, post } = await gatewayOver(POLICY);
    answer.chat = [null, [fn('wire_money')]];
    const res = await post('/v1/chat/completions', chat({ stream: true }));
    expect(res.status).toBe(200);
    const text = await read(res);
    expect(text).toContain('fine');
    expect(text).not.toContain('wire_money');
  });

  it('stop at a custom tool call with an in-stream error', async () => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.chat = [[{ type: 'custom', name: 'shell' }]];
    const res = await post('/v1/chat/completions', chat({ n: 1, stream: true }));
    const text = await read(res);
    expect(text).not.toContain('/etc/passwd');
    expect(text).toContain('withheld');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'tool_call_blocked:unnamed' });
  });
});

const message = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [] }],
});
const customCall = (name: string) => ({ id: 'ctc_1', type: 'custom_tool_call', status: 'completed', call_id: 'call_1', name, input: 'cat /etc/passwd' });
const shellCall = {
  id: 'lsh_1',
  type: 'local_shell_call',
  status: 'completed',
  call_id: 'call_2',
  action: { type: 'exec', command: ['cat', '/etc/passwd'], env: {} },
};
const computerCall = { id: 'cu_1', type: 'computer_call', status: 'completed', call_id: 'call_3', action: { type: 'screenshot' }, pending_safety_checks: [] };
const responsesRequest = (extra: Record<string, unknown> = {}) => ({
  model: echoModel('openai_responses'),
  input: 'hi',
  tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
  ...extra,
});

describe('OpenAI Responses answers: every output item the client runs is guarded', () => {
  it.each([
    ['a custom tool call the request did not declare', [message('ok'), customCall('shell')], {}, 'shell'],
    ['a custom tool call of another name than the one declared', [customCall('wire_money')], { tools: [{ type: 'custom', name: 'shell' }] }, 'wire_money'],
    ['a local shell call the request did not declare', [shellCall], {}, 'local_shell'],
    ['a computer call the request did not declare', [computerCall], {}, 'computer_use_preview'],
    ['a call item of a kind the gateway cannot name', [{ id: 'x_1', type: 'teleport_call', call_id: 'c' }], {}, 'unnamed'],
  ] as Array<[string, unknown[], Record<string, unknown>, string]>)('withholds %s: 502, relayed as bytes', async (_name, output, extra, tool) => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.responses = output;
    const res = await post('/v1/responses', responsesRequest(extra));
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(text).not.toContain('/etc/passwd');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: `tool_call_blocked:${tool}` });
  });

  it('withholds a translated answer (OpenAI Chat client) whose Responses upstream called an undeclared custom tool', async () => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.responses = [message('ok'), customCall('shell')];
    const res = await post('/v1/chat/completions', chat({ n: 1, model: echoModel('openai_responses') }));
    expect(res.status).toBe(502);
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'tool_call_blocked:shell' });
  });

  it('relays the upstream bytes when each call item is declared and allowed', async () => {
    const policy = { tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*', 'shell', 'local_shell'] }] } };
    const { answer, post } = await gatewayOver(policy);
    answer.responses = [customCall('shell'), shellCall];
    const res = await post('/v1/responses', responsesRequest({ tools: [{ type: 'custom', name: 'shell' }, { type: 'local_shell' }] }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(responsesAnswer(answer.responses));
  });

  it.each([
    ['a Responses client (same format)', '/v1/responses', () => responsesRequest({ stream: true })],
    ['an OpenAI Chat client (translated)', '/v1/chat/completions', () => chat({ n: 1, stream: true, model: echoModel('openai_responses') })],
  ])('stops a stream at a custom tool call for %s with an in-stream error', async (_name, path, body) => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.responses = [message('ok'), customCall('shell')];
    const res = await post(path, body());
    const text = await res.text();
    expect(text).not.toContain('/etc/passwd');
    expect(text).toContain('withheld');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'tool_call_blocked:unnamed' });
  });

  it('stops a Responses stream at a local shell call', async () => {
    const { answer, records, post } = await gatewayOver(POLICY);
    answer.responses = [shellCall];
    const text = await (await post('/v1/responses', responsesRequest({ stream: true }))).text();
    expect(text).not.toContain('/etc/passwd');
    expect(text).toContain('withheld');
    expect(records[0]).toMatchObject({ reason: 'tool_call_blocked:unnamed' });
  });
});

describe('Anthropic answers: server and MCP tool calls are held to the request and the lists', () => {
  const anthropic = (extra: Record<string, unknown> = {}) => ({
    model: echoModel('anthropic_messages'),
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }],
    ...extra,
  });
  const mcpUse = { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'drop_table', server_name: 'db', input: { table: 'users' } };
  const MCP_POLICY = { tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*', 'mcp', 'web_search'] }] } };

  it('withholds an MCP tool call when the request declared no MCP server: 502', async () => {
    const { answer, records, post } = await gatewayOver(MCP_POLICY);
    answer.anthropic = [{ type: 'text', text: 'ok' }, mcpUse];
    const res = await post('/v1/messages', anthropic());
    const text = await res.text();
    expect(res.status).toBe(502);
    expect(text).not.toContain('drop_table');
    expect(records[0]).toMatchObject({ status: 'rejected', reason: 'tool_call_blocked:mcp' });
  });

  it('withholds a server tool call the request did not declare: 502', async () => {
    const { answer, records, post } = await gatewayOver(MCP_POLICY);
    answer.anthropic = [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } }];
    const res = await post('/v1/messages', anthropic());
    expect(res.status).toBe(502);
    expect(records[0]).toMatchObject({ reason: 'tool_call_blocked:web_search' });
  });

  it('refuses the request itself when the lists do not allow its MCP servers: 403', async () => {
    const { records, post } = await gatewayOver(POLICY);
    const res = await post('/v1/messages', anthropic({ mcp_servers: [{ type: 'url', url: 'https://db.example/mcp', name: 'db' }] }));
    expect(res.status).toBe(403);
    expect(records[0]).toMatchObject({ reason: 'tool_not_allowed:mcp' });
  });

  it('relays the upstream bytes when the MCP servers and server tools are declared and allowed', async () => {
    const { answer, post } = await gatewayOver(MCP_POLICY);
    answer.anthropic = [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } }, mcpUse];
    const res = await post(
      '/v1/messages',
      anthropic({
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        mcp_servers: [{ type: 'url', url: 'https://db.example/mcp', name: 'db' }],
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(anthropicAnswer(answer.anthropic));
  });

  it('never relays a streamed MCP tool call under a tool guard', async () => {
    const { answer, post } = await gatewayOver(MCP_POLICY);
    answer.anthropic = [{ type: 'text', text: 'ok' }, mcpUse];
    const text = await (await post('/v1/messages', anthropic({ stream: true }))).text();
    expect(text).toContain('ok');
    expect(text).not.toContain('drop_table');
  });
});
