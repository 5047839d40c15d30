import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { emptyUsage } from '../ir/usage.js';
import { assemble, decodeText, encodeEvents, outputText, parseSse, reencodeText } from './__tests__/harness.js';

const anthropicLike: StreamEvent[] = [
  { type: 'message_start', id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-4-5', created: 1700000000 },
  { type: 'block_start', index: 0, block: { kind: 'reasoning', issuer: 'anthropic' } },
  { type: 'reasoning_delta', index: 0, text: 'The user greets me.' },
  { type: 'signature', index: 0, signature: 'EqQBCgIYAhIM', issuer: 'anthropic' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { kind: 'text' } },
  { type: 'text_delta', index: 1, text: 'Hello — let me check the ' },
  { type: 'text_delta', index: 1, text: 'weather 🌦️.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'toolu_01A', name: 'get_weather' } },
  { type: 'tool_args_delta', index: 2, delta: '{"location":' },
  { type: 'tool_args_delta', index: 2, delta: ' "San Francisco, CA"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { kind: 'tool_call', id: 'toolu_01B', name: 'get_time' } },
  { type: 'tool_args_delta', index: 3, delta: '{"tz":"PST"}' },
  { type: 'block_stop', index: 3 },
  { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' } },
  { type: 'usage', usage: { ...emptyUsage(), input: 120, cacheRead: 400, cacheWrite: 30, output: 57 } },
  { type: 'message_stop' },
];

const start: StreamEvent = { type: 'message_start', id: 'resp_1', model: 'gpt-5' };
const stop: StreamEvent[] = [{ type: 'finish', finishReason: { unified: 'stop', raw: 'completed' } }, { type: 'message_stop' }];

describe('openai_responses stream encoder', () => {
  it('encodes reasoning, text and parallel tool calls as output items a Responses client assembles', () => {
    const sse = encodeEvents(anthropicLike, { model: 'claude-sonnet' });
    const out = assemble(sse);
    expect(out.terminal).toBe('response.completed');
    expect(out.types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    const final = out.final!;
    expect(final).toMatchObject({
      id: 'resp_msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'response',
      model: 'claude-sonnet',
      status: 'completed',
      created_at: 1700000000,
    });
    expect(final.output).toEqual([
      { id: 'rs_01XFDUDYJgAACzvnptvVoYEL_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user greets me.' }] },
      {
        id: 'msg_01XFDUDYJgAACzvnptvVoYEL_1',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello — let me check the weather 🌦️.', annotations: [], logprobs: [] }],
      },
      {
        id: 'fc_01XFDUDYJgAACzvnptvVoYEL_2',
        type: 'function_call',
        status: 'completed',
        arguments: '{"location": "San Francisco, CA"}',
        call_id: 'toolu_01A',
        name: 'get_weather',
      },
      { id: 'fc_01XFDUDYJgAACzvnptvVoYEL_3', type: 'function_call', status: 'completed', arguments: '{"tz":"PST"}', call_id: 'toolu_01B', name: 'get_time' },
    ]);
    // input_tokens include cache reads and writes; output_tokens include reasoning.
    expect(final.usage).toEqual({
      input_tokens: 550,
      input_tokens_details: { cached_tokens: 400, cache_write_tokens: 30 },
      output_tokens: 57,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 607,
    });
    expect(sse).not.toContain('EqQBCgIYAhIM'); // Anthropic's signature never reaches an OpenAI client
    const done = parseSse(sse)
      .filter((e) => e.data.type === 'response.function_call_arguments.done')
      .map((e) => e.data.arguments);
    expect(done).toEqual(['{"location": "San Francisco, CA"}', '{"tz":"PST"}']);
  });

  it('is deterministic: the same events give the same bytes', () => {
    expect(encodeEvents(anthropicLike)).toBe(encodeEvents(anthropicLike));
  });

  it('interleaved tool calls (OpenAI Chat parallel calls) stay separate items', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'call_a', name: 'a' } },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'call_b', name: 'b' } },
      { type: 'tool_args_delta', index: 0, delta: '{"x":' },
      { type: 'tool_args_delta', index: 1, delta: '{"y":2}' },
      { type: 'tool_args_delta', index: 0, delta: '1}' },
      { type: 'block_stop', index: 1 },
      { type: 'block_stop', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_calls' } },
      { type: 'message_stop' },
    ];
    const out = assemble(encodeEvents(events)).final!;
    expect(out.output.map((i: any) => [i.id, i.call_id, i.arguments])).toEqual([
      ['fc_1_0', 'call_a', '{"x":1}'],
      ['fc_1_1', 'call_b', '{"y":2}'],
    ]);
  });

  it('consecutive text blocks share a message item; text after a tool call starts a new one', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'a' },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'refusal' } },
      { type: 'text_delta', index: 1, text: 'no' },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'c', name: 'f' } },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'text' } },
      { type: 'text_delta', index: 3, text: 'b' },
      { type: 'block_stop', index: 3 },
      ...stop,
    ];
    const out = assemble(encodeEvents(events)).final!;
    expect(out.output.map((i: any) => [i.type, i.content ?? i.arguments])).toEqual([
      [
        'message',
        [
          { type: 'output_text', text: 'a', annotations: [], logprobs: [] },
          { type: 'refusal', refusal: 'no' },
        ],
      ],
      ['function_call', '{}'], // a call without arguments still gets valid JSON
      ['message', [{ type: 'output_text', text: 'b', annotations: [], logprobs: [] }]],
    ]);
  });

  it('OpenAI reasoning keeps its item id and encrypted content; foreign opaque or empty reasoning does not show', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', redactedData: 'opaque', issuer: 'anthropic' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'reasoning', itemId: 'rs_A', encryptedContent: 'E0', issuer: 'openai' } },
      { type: 'reasoning_delta', index: 2, text: 'one' },
      { type: 'block_stop', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'reasoning', itemId: 'rs_A', issuer: 'openai' } },
      { type: 'reasoning_delta', index: 3, text: 'two' },
      { type: 'signature', index: 3, signature: 'E1', issuer: 'openai' },
      { type: 'block_stop', index: 3 },
      ...stop,
    ];
    const sse = encodeEvents(events);
    const out = assemble(sse);
    expect(out.final!.output).toEqual([
      {
        id: 'rs_A',
        type: 'reasoning',
        summary: [
          { type: 'summary_text', text: 'one' },
          { type: 'summary_text', text: 'two' },
        ],
        encrypted_content: 'E1',
      },
    ]);
    const added = parseSse(sse).find((e) => e.data.type === 'response.output_item.added')!.data;
    expect(added.item).toEqual({ id: 'rs_A', type: 'reasoning', summary: [], encrypted_content: 'E0' });
    expect(sse).not.toContain('opaque');
  });

  it('an OpenAI reasoning item with neither summary nor encrypted content keeps its place', () => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', itemId: 'rs_B', issuer: 'openai' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'ok' },
      { type: 'block_stop', index: 1 },
      ...stop,
    ];
    const out = assemble(encodeEvents(events)).final!;
    expect(out.output.map((i: any) => [i.id, i.type])).toEqual([
      ['rs_B', 'reasoning'],
      ['msg_1_1', 'message'],
    ]);
    expect(out.output[0]).toEqual({ id: 'rs_B', type: 'reasoning', summary: [] });
  });

  it.each([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ] as const)('finish %s ends with response.incomplete (%s)', (unified, reason) => {
    const events: StreamEvent[] = [
      start,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'cut' },
      { type: 'finish', finishReason: { unified, raw: null } },
      { type: 'message_stop' },
    ];
    const out = assemble(encodeEvents(events));
    expect(out.terminal).toBe('response.incomplete');
    expect(out.final).toMatchObject({ status: 'incomplete', incomplete_details: { reason }, usage: null });
    expect(outputText(out.final!)).toBe('cut');
  });

  it('an error event becomes `error` (with code, message and the nested error the SDK raises on), then response.failed', () => {
    const events: StreamEvent[] = [...anthropicLike.slice(0, 7), { type: 'error', error: errorInfo('overloaded', 'The upstream is overloaded; try again.') }];
    const sse = encodeEvents(events);
    const out = assemble(sse);
    expect(out.error).toEqual({
      type: 'error',
      sequence_number: expect.any(Number),
      code: 'overloaded',
      message: 'The upstream is overloaded; try again.',
      param: null,
      error: { type: 'server_error', code: 'overloaded', message: 'The upstream is overloaded; try again.', param: null },
    });
    expect(out.terminal).toBe('response.failed');
    expect(out.final).toMatchObject({ status: 'failed', error: { code: 'overloaded', message: 'The upstream is overloaded; try again.' } });
    expect(out.types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(encodeEvents([...events, ...stop])).toBe(sse); // nothing after the error
  });

  it('a stream cut before message_stop ends with stream_incomplete', () => {
    const out = assemble(encodeEvents(anthropicLike.slice(0, 11)));
    expect(out.error).toMatchObject({ code: 'stream_incomplete', error: { type: 'server_error', code: 'stream_incomplete' } });
    expect(out.terminal).toBe('response.failed');
    expect(assemble(encodeEvents([])).types).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
  });

  it('events before message_start still open with response.created; the model option names the model', () => {
    const out = assemble(
      encodeEvents([{ type: 'block_start', index: 0, block: { kind: 'text' } }, { type: 'text_delta', index: 0, text: 'x' }, ...stop], { model: 'm1' }),
    );
    expect(out.final).toMatchObject({ id: 'resp_tollgate', model: 'm1', output: [{ id: 'msg_tollgate_0' }] });
  });
});

describe('openai_responses streams round trip (wire → IR → wire, IR → wire → IR)', () => {
  const files = fixtureFiles('openai-responses', '.sse');

  it.each(files)('%s: the same event sequence, items, ids, texts and usage', (file) => {
    const text = fixtureText(file);
    const original = assemble(text);
    const again = assemble(reencodeText(text));
    expect(again.types).toEqual(original.types);
    expect(again.terminal).toBe(original.terminal);
    const strip = (output: any[]) => output.map((item) => (item.type === 'message' ? { ...item, id: 'msg' } : item));
    if (original.terminal !== 'response.failed') {
      expect(strip(again.final!.output)).toEqual(strip(original.snapshot.output));
      expect(again.final!.usage).toEqual(original.final!.usage);
      expect(again.final!.id).toBe(original.final!.id);
      expect(again.final!.model).toBe(original.final!.model);
    } else {
      expect(again.error).toMatchObject({ code: 'insufficient_quota', error: { type: 'insufficient_quota', code: 'insufficient_quota' } });
      expect(again.error!.message).toBe(original.error!.error.message);
    }
  });

  it.each(files)('%s: decoding the re-encoded stream gives the same canonical events', (file) => {
    const text = fixtureText(file);
    expect(decodeText(reencodeText(text))).toEqual(decodeText(text));
  });
});
