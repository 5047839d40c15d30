import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureJson } from '../../../../test/support/fixtures.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Request } from '../ir/request.js';
import { anthropicMessagesCodec as codec } from './index.js';

type Body = Record<string, unknown>;

const decode = (body: unknown) => codec.decodeRequest(body);
const roundTrip = (body: Body) => {
  const decoded = decode(body);
  return { ...codec.encodeRequest(decoded.request), decoded };
};

/** A minimal IR request to encode. */
function ir(partial: Partial<Request>): Request {
  return { system: [], messages: [], tools: [], stream: false, maxTokens: 1000, ...partial };
}

function expectInvalid(body: unknown, param: string) {
  try {
    decode(body);
  } catch (error) {
    expect(GatewayError.isInstance(error)).toBe(true);
    const e = error as GatewayError;
    expect(e.code).toBe('invalid_request');
    expect(e.status).toBe(400);
    expect(e.param).toBe(param);
    expect(e.message).toContain(param);
    return;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('anthropic_messages request fixtures', () => {
  const files = fixtureFiles('anthropic-messages', '.json').filter((f) => f.includes('/request-'));

  it('finds the request fixtures', () => {
    expect(files.length).toBe(4);
  });

  it.each(files)('%s: wire → IR → wire is the same JSON, with nothing unclassified', (file) => {
    const body = fixtureJson<Body>(file);
    const { body: out, warnings, decoded } = roundTrip(body);
    expect(decoded.unclassified).toEqual([]);
    expect(decoded.warnings).toEqual([]);
    expect(warnings).toEqual([]);
    expect(out).toEqual(body);
  });

  it('request-parallel-tools: system string, tool with schema, tool_choice auto', () => {
    const { request } = decode(fixtureJson('anthropic-messages/request-parallel-tools.json'));
    expect(request.model).toBe('claude-haiku-4-5');
    expect(request.maxTokens).toBe(4096);
    expect(request.stream).toBe(false);
    expect(request.system).toHaveLength(1);
    expect(request.system[0]!.text).toContain('retrieve_entity_info');
    expect(request.toolChoice).toEqual({ type: 'auto' });
    expect(request.parallelToolCalls).toBeUndefined();
    expect(request.tools).toEqual([
      {
        type: 'function',
        name: 'retrieve_entity_info',
        description: 'Get the knowledge about the given entity.',
        parameters: {
          additionalProperties: false,
          properties: { name: { type: 'string' } },
          required: ['name'],
          type: 'object',
        },
      },
    ]);
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Alice, Bob, Charlie and Daisy are a family. Who is the youngest?' }] }]);
  });

  it('request-stream-thinking: thinking budget and temperature', () => {
    const { request } = decode(fixtureJson('anthropic-messages/request-stream-thinking.json'));
    expect(request.reasoning).toEqual({ enabled: true, budgetTokens: 1024 });
    expect(request.temperature).toBe(1);
    expect(request.stream).toBe(true);
    expect(request.maxTokens).toBe(8192);
  });

  it('request-with-tool-results: tool_use → tool calls, tool_result user turn → tool message', () => {
    const { request } = decode(fixtureJson('anthropic-messages/request-with-tool-results.json'));
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(request.messages[1]!.content).toEqual([
      { type: 'text', text: ' ' },
      { type: 'tool_call', id: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', name: 'pelican_name_generator', arguments: '{}' },
      { type: 'tool_call', id: 'toolu_01N8a4jWyf116qKTMqKKmjyt', name: 'pelican_name_generator', arguments: '{}' },
    ]);
    expect(request.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool_result', toolCallId: 'toolu_01LtHJmixrs9NcWQkK8hu8hj', content: [{ type: 'text', text: 'Charles' }] },
        { type: 'tool_result', toolCallId: 'toolu_01N8a4jWyf116qKTMqKKmjyt', content: [{ type: 'text', text: 'Sammy' }] },
      ],
    });
    expect(request.tools[0]!.description).toBe('');
  });
});

describe('anthropic_messages request decoding', () => {
  const base = { model: 'claude-sonnet-4-5', max_tokens: 100 };

  it('splits a user turn: tool results first as a tool message, then the rest, in order', () => {
    const { request } = decode({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }], is_error: true },
            { type: 'text', text: 'and then?' },
            { type: 'tool_result', tool_use_id: 't2' },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'tool',
        content: [
          { type: 'tool_result', toolCallId: 't1', content: [{ type: 'text', text: 'ok' }], isError: true },
          { type: 'tool_result', toolCallId: 't2', content: [] },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and then?' },
          { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
        ],
      },
    ]);
  });

  it('decodes thinking and redacted thinking as Anthropic-issued reasoning', () => {
    const { request } = decode({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'SIG==' },
            { type: 'redacted_thinking', data: 'REDACTED==' },
            { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: [1, 'ü'] } },
          ],
        },
      ],
    });
    expect(request.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
    expect(request.messages[1]!.content).toEqual([
      { type: 'reasoning', text: 'hmm', signature: 'SIG==', issuer: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: 'REDACTED==', issuer: 'anthropic' },
      { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{"a":[1,"ü"]}' },
    ]);
  });

  it('keeps cache_control (with ttl) on every block kind, tools and system blocks', () => {
    const cc = { type: 'ephemeral' };
    const cc1h = { type: 'ephemeral', ttl: '1h' };
    const body = {
      ...base,
      stream: true,
      system: [
        { type: 'text', text: 'sys1', cache_control: cc1h },
        { type: 'text', text: 'sys2' },
      ],
      tools: [{ name: 't', description: 'd', input_schema: { type: 'object' }, cache_control: cc1h }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a', cache_control: cc },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' }, cache_control: cc1h },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' }, title: 'x.pdf', cache_control: cc },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain ✓ text' }, cache_control: cc },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't', signature: 's', cache_control: cc },
            { type: 'redacted_thinking', data: 'r', cache_control: cc },
            { type: 'tool_use', id: 'toolu_1', name: 't', input: {}, cache_control: cc1h },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'r', cache_control: cc }], cache_control: cc1h }],
        },
      ],
    };
    const { body: out, warnings } = roundTrip(body);
    expect(warnings).toEqual([]);
    expect(out).toEqual(body);
    const { request } = decode(body);
    expect(request.system[0]!.cacheControl).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(request.tools[0]!.cacheControl).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(request.messages[0]!.content[0]).toEqual({ type: 'text', text: 'a', cacheControl: { type: 'ephemeral' } });
  });

  it('maps metadata.user_id, stop_sequences, top_k, top_p, service_tier, tool_choice variants', () => {
    const { request } = decode({
      ...base,
      messages: [{ role: 'user', content: 'x' }],
      metadata: { user_id: 'u-1' },
      stop_sequences: ['END'],
      top_k: 5,
      top_p: 0.9,
      service_tier: 'standard_only',
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    expect(request.user).toBe('u-1');
    expect(request.stopSequences).toEqual(['END']);
    expect(request.topK).toBe(5);
    expect(request.topP).toBe(0.9);
    expect(request.serviceTier).toBe('standard_only');
    expect(request.toolChoice).toEqual({ type: 'required' });
    expect(request.parallelToolCalls).toBe(false);
    expect(decode({ ...base, messages: [], tool_choice: { type: 'tool', name: 'f' } }).request.toolChoice).toEqual({ type: 'tool', name: 'f' });
    expect(decode({ ...base, messages: [], tool_choice: { type: 'none' } }).request.toolChoice).toEqual({ type: 'none' });
  });

  it('maps every thinking mode', () => {
    const t = (thinking: unknown) => decode({ ...base, messages: [], thinking }).request.reasoning;
    expect(t({ type: 'enabled', budget_tokens: 2048 })).toEqual({ enabled: true, budgetTokens: 2048 });
    expect(t({ type: 'disabled' })).toEqual({ enabled: false });
    expect(t({ type: 'adaptive' })).toEqual({ enabled: true });
  });

  it('carries server tools and fields with no IR home in request.vendor, and re-emits them', () => {
    const body = {
      ...base,
      stream: false,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'search' }] }],
      tools: [
        { name: 'f', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      container: 'container_1',
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'ex' }],
      inference_geo: 'us',
      output_config: { effort: 'high' },
    };
    const { request, warnings, unclassified } = decode(body);
    expect(unclassified).toEqual([]);
    expect(request.tools.map((t) => t.name)).toEqual(['f']);
    expect(request.vendor?.format).toBe('anthropic_messages');
    expect(request.vendor?.fields['tools']).toEqual([{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }]);
    expect(request.vendor?.fields['inference_geo']).toBe('us');
    expect(warnings.map((w) => [w.code, w.path])).toEqual([['unsupported_feature', 'tools[1]']]);
    expect(codec.encodeRequest(request).body).toEqual(body);
  });

  it('reports unknown top-level fields as unclassified, with a warning', () => {
    const { unclassified, warnings } = decode({ ...base, messages: [], frobnicate: 1, another_new_field: {} });
    expect(unclassified).toEqual(['frobnicate', 'another_new_field']);
    expect(warnings.filter((w) => w.code === 'unclassified_field').map((w) => w.path)).toEqual(['frobnicate', 'another_new_field']);
  });

  it('takes model and stream from options when the body has none', () => {
    const { request } = codec.decodeRequest({ max_tokens: 1, messages: [] }, { model: 'm', stream: true });
    expect(request.model).toBe('m');
    expect(request.stream).toBe(true);
  });

  it('warns about blocks with no canonical form instead of dropping them silently', () => {
    const { request, warnings } = decode({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'search_result', source: 's', title: 't', content: [] },
            { type: 'text', text: 'q' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'server_tool_use', id: 'srv', name: 'web_search', input: {} },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    });
    expect(request.messages[0]!.content).toEqual([{ type: 'text', text: 'q' }]);
    expect(request.messages[1]!.content).toEqual([{ type: 'text', text: 'a' }]);
    expect(warnings.map((w) => w.path)).toEqual(['messages[0].content[0]', 'messages[1].content[0]']);
  });

  it('rejects invalid bodies with a clear invalid_request error naming the parameter', () => {
    expectInvalid(null, 'body');
    expectInvalid([], 'body');
    expectInvalid({ ...base }, 'messages');
    expectInvalid({ ...base, messages: 'hi' }, 'messages');
    expectInvalid({ ...base, messages: [42] }, 'messages[0]');
    expectInvalid({ ...base, messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role');
    expectInvalid({ ...base, messages: [{ role: 'user', content: 7 }] }, 'messages[0].content');
    expectInvalid({ ...base, messages: [{ role: 'user', content: [{ text: 'no type' }] }] }, 'messages[0].content[0]');
    expectInvalid({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 1 }] }] }, 'messages[0].content[0].text');
    expectInvalid({ ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', name: 'f', input: {} }] }] }, 'messages[0].content[0].id');
    expectInvalid({ ...base, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] }, 'messages[0].content[0].tool_use_id');
    expectInvalid({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: 'x' }] }] }, 'messages[0].content[0].source');
    expectInvalid({ ...base, max_tokens: -1, messages: [] }, 'max_tokens');
    expectInvalid({ ...base, max_tokens: 1.5, messages: [] }, 'max_tokens');
    expectInvalid({ ...base, temperature: 'hot', messages: [] }, 'temperature');
    expectInvalid({ ...base, model: 3, messages: [] }, 'model');
    expectInvalid({ ...base, stream: 'yes', messages: [] }, 'stream');
    expectInvalid({ ...base, stop_sequences: [1], messages: [] }, 'stop_sequences');
    expectInvalid({ ...base, system: 5, messages: [] }, 'system');
    expectInvalid({ ...base, system: [{ type: 'image' }], messages: [] }, 'system[0]');
    expectInvalid({ ...base, tools: {}, messages: [] }, 'tools');
    expectInvalid({ ...base, tools: [{ input_schema: {} }], messages: [] }, 'tools[0].name');
    expectInvalid({ ...base, tools: [{ name: 'f' }], messages: [] }, 'tools[0].input_schema');
    expectInvalid({ ...base, tool_choice: { type: 'sometimes' }, messages: [] }, 'tool_choice.type');
    expectInvalid({ ...base, tool_choice: { type: 'tool' }, messages: [] }, 'tool_choice.name');
    expectInvalid({ ...base, thinking: { type: 'enabled' }, messages: [] }, 'thinking.budget_tokens');
    expectInvalid({ ...base, thinking: { type: 'maybe' }, messages: [] }, 'thinking.type');
    expectInvalid({ ...base, metadata: 'x', messages: [] }, 'metadata');
  });
});

describe('anthropic_messages request encoding', () => {
  it('merges a tool message with the user message after it, and consecutive same-role turns', () => {
    const { body, warnings } = codec.encodeRequest(
      ir({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q1' }] },
          { role: 'user', content: [{ type: 'text', text: 'q2' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{"x":1}' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c2', name: 'g', arguments: '{}' }] },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: [{ type: 'text', text: 'r1' }] }] },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c2', content: [{ type: 'text', text: 'r2' }], isError: true }] },
          { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
        ],
      }),
    );
    expect(warnings).toEqual([]);
    expect(body['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q1' },
          { type: 'text', text: 'q2' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'f', input: { x: 1 } },
          { type: 'tool_use', id: 'c2', name: 'g', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'r1' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'r2', is_error: true },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
  });

  it('drops unsigned or foreign reasoning with a warning, keeps Anthropic-signed thinking byte-exact', () => {
    const signature = 'EuYDCmMIDBgCKkC05Zda4P+Cdk/LQKE+Aol4ZY3EY4wLDrf8XcApz2Pi=';
    const { body, warnings } = codec.encodeRequest(
      ir({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'mine', signature, issuer: 'anthropic' },
              { type: 'reasoning', text: '', redactedData: 'RD', issuer: 'anthropic' },
              { type: 'reasoning', text: 'theirs', signature: 'gsig', issuer: 'google' },
              { type: 'reasoning', text: 'summary', encryptedContent: 'enc', itemId: 'rs_1', issuer: 'openai' },
              { type: 'reasoning', text: 'unsigned' },
              { type: 'text', text: 'answer' },
            ],
          },
        ],
      }),
    );
    expect((body['messages'] as Body[])[1]!['content']).toEqual([
      { type: 'thinking', thinking: 'mine', signature },
      { type: 'redacted_thinking', data: 'RD' },
      { type: 'text', text: 'answer' },
    ]);
    expect(warnings.map((w) => w.code)).toEqual(['signature_dropped', 'lossy_conversion', 'signature_dropped', 'lossy_conversion', 'lossy_conversion']);
    expect(warnings.every((w) => w.path?.startsWith('messages[1].content['))).toBe(true);
  });

  it('sends invalid tool arguments as an empty input, with a warning', () => {
    const { body, warnings } = codec.encodeRequest(
      ir({
        messages: [
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{"cut": ' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'd', name: 'f', arguments: '[1,2]' }] },
        ],
      }),
    );
    const content = (body['messages'] as Body[])[0]!['content'] as Body[];
    expect(content.map((b) => b['input'])).toEqual([{}, {}]);
    expect(warnings.map((w) => [w.code, w.path])).toEqual([
      ['lossy_conversion', 'messages[0].content[0]'],
      ['lossy_conversion', 'messages[1].content[0]'],
    ]);
  });

  it('sets max_tokens 4096 when the IR has none, with a warning', () => {
    const { body, warnings } = codec.encodeRequest({ system: [], messages: [], tools: [], stream: false });
    expect(body['max_tokens']).toBe(4096);
    expect(warnings).toEqual([expect.objectContaining({ code: 'lossy_conversion', path: 'max_tokens' })]);
  });

  it('warns about response_format and adds a JSON instruction instead of dropping it', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { body, warnings } = codec.encodeRequest(
      ir({ system: [{ type: 'text', text: 'Be nice.' }], responseFormat: { type: 'json_schema', name: 'x', schema } }),
    );
    expect(warnings).toEqual([expect.objectContaining({ code: 'unsupported_feature', path: 'response_format' })]);
    const system = body['system'] as Body[];
    expect(system[0]).toEqual({ type: 'text', text: 'Be nice.' });
    expect(system[1]!['text']).toContain(JSON.stringify(schema));
  });

  it('maps tool choice, parallel tool calls, user, stop sequences and sampling', () => {
    const tools = [{ type: 'function' as const, name: 'f', parameters: { type: 'object' } }];
    const enc = (r: Partial<Request>) => codec.encodeRequest(ir({ tools, ...r })).body;
    expect(enc({ toolChoice: { type: 'required' } })['tool_choice']).toEqual({ type: 'any' });
    expect(enc({ toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: false })['tool_choice']).toEqual({
      type: 'tool',
      name: 'f',
      disable_parallel_tool_use: true,
    });
    expect(enc({ parallelToolCalls: false })['tool_choice']).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(enc({ toolChoice: { type: 'none' } })['tool_choice']).toEqual({ type: 'none' });
    const body = enc({ user: 'alice', stopSequences: ['x'], temperature: 0.3, topP: 0.5, topK: 3 });
    expect(body).toMatchObject({ metadata: { user_id: 'alice' }, stop_sequences: ['x'], temperature: 0.3, top_p: 0.5, top_k: 3 });
    expect(body['tools']).toEqual([{ name: 'f', input_schema: { type: 'object' } }]);
  });

  it('warns about what Anthropic cannot express (seed, penalties, temperature > 1, name, service tier)', () => {
    const { body, warnings } = codec.encodeRequest(
      ir({
        seed: 1,
        frequencyPenalty: 0.1,
        presencePenalty: 0.2,
        temperature: 1.5,
        serviceTier: 'flex',
        metadata: { k: 'v' },
        messages: [{ role: 'user', name: 'bob', content: [{ type: 'text', text: 'x' }] }],
      }),
    );
    expect(body['temperature']).toBe(1);
    expect(body['service_tier']).toBeUndefined();
    expect(warnings.map((w) => w.path).sort()).toEqual(
      ['frequency_penalty', 'metadata', 'messages[0].name', 'presence_penalty', 'seed', 'service_tier', 'temperature'].sort(),
    );
  });

  it('maps reasoning to thinking: budget, disabled, adaptive, effort from other formats', () => {
    const t = (reasoning: Request['reasoning'], maxTokens = 20000) => codec.encodeRequest(ir({ reasoning, maxTokens }));
    expect(t({ enabled: true, budgetTokens: 4000 }).body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4000 });
    expect(t({ enabled: false }).body['thinking']).toEqual({ type: 'disabled' });
    expect(t({ effort: 'none' }).body['thinking']).toEqual({ type: 'disabled' });
    expect(t({ enabled: true }).body['thinking']).toEqual({ type: 'adaptive' });
    const high = t({ effort: 'high' });
    expect(high.body['thinking']).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(high.warnings[0]?.code).toBe('lossy_conversion');
    expect(t({ effort: 'high' }, 5000).body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4999 });
    expect(t({ effort: 'low' }, 1000).body['thinking']).toBeUndefined();
  });

  it('encodes media: data URIs and base64 as base64 sources, URLs, file ids, text files', () => {
    const { body, warnings } = codec.encodeRequest(
      ir({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { kind: 'url', url: 'data:image/jpeg;base64,/9j/4AA' }, detail: 'high' },
              { type: 'image', source: { kind: 'url', url: 'https://e.x/a.png' } },
              { type: 'file', source: { kind: 'file_id', fileId: 'file_1' }, filename: 'a.pdf' },
              { type: 'file', source: { kind: 'base64', mediaType: 'text/plain', data: btoa('hello') } },
              { type: 'file', source: { kind: 'base64', mediaType: 'audio/wav', data: 'UklGR' } },
            ],
          },
        ],
      }),
    );
    expect((body['messages'] as Body[])[0]!['content']).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AA' } },
      { type: 'image', source: { type: 'url', url: 'https://e.x/a.png' } },
      { type: 'document', source: { type: 'file', file_id: 'file_1' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'hello' } },
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['messages[0].content[0].detail', 'messages[0].content[4]']);
  });

  it('drops vendor fields of another format with a warning', () => {
    const { body, warnings } = codec.encodeRequest(ir({ vendor: { format: 'openai_chat', fields: { logit_bias: { 1: 2 } } } }));
    expect(body['logit_bias']).toBeUndefined();
    expect(warnings).toEqual([expect.objectContaining({ code: 'dropped_field', path: 'logit_bias' })]);
  });

  it('uses the model and stream from the options', () => {
    const { body } = codec.encodeRequest(ir({ model: 'client-name', stream: false }), { model: 'claude-upstream', stream: true });
    expect(body['model']).toBe('claude-upstream');
    expect(body['stream']).toBe(true);
  });
});
