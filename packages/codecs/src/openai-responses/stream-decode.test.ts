import { describe, expect, it } from 'vitest';
import { fixtureFiles, fixtureText } from '../../../../test/support/fixtures.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { assemble as assembleIr } from '../openai-chat/__tests__/harness.js';
import { decodeText } from './__tests__/harness.js';

const stream = (name: string) => decodeText(fixtureText(`openai-responses/${name}`));

/** Fold canonical events into per-block content. */
function blocks(events: StreamEvent[]) {
  const out: Array<Record<string, unknown> & { kind: string; text: string; args: string; stopped: boolean }> = [];
  for (const e of events) {
    if (e.type === 'block_start') {
      expect(e.index).toBe(out.length);
      out.push({ ...e.block, text: '', args: '', stopped: false });
    } else if (e.type === 'text_delta' || e.type === 'reasoning_delta') out[e.index]!.text += e.text;
    else if (e.type === 'tool_args_delta') out[e.index]!.args += e.delta;
    else if (e.type === 'signature') out[e.index]!.signature = e.signature;
    else if (e.type === 'block_stop') out[e.index]!.stopped = true;
  }
  return out;
}

/** Every `data:` payload of a fixture of a given type. */
function payloads(name: string, type: string): Array<Record<string, any>> {
  return fixtureText(`openai-responses/${name}`)
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, any>)
    .filter((p) => p.type === type);
}

const usage = (u: Partial<Record<string, number>>) => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
  measured: true,
  ...u,
});
const SSE = (...events: Array<Record<string, unknown>>) => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
const created = { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5', created_at: 7, status: 'in_progress', output: [] } };

describe('openai_responses stream fixtures', () => {
  const files = fixtureFiles('openai-responses', '.sse');

  it('finds the four stream fixtures', () => {
    expect(files).toHaveLength(4);
  });

  it.each(files)('%s: follows the canonical event grammar and ends in exactly one terminal event', (file) => {
    const events = decodeText(fixtureText(file));
    const folded = assembleIr(events);
    expect(folded.end).toBeDefined();
    expect(events.filter((e) => e.type === 'message_stop' || e.type === 'error')).toHaveLength(1);
  });

  it('stream-text: message_start, one text block, stop, usage', () => {
    const events = stream('stream-text.sse');
    expect(events[0]).toEqual({
      type: 'message_start',
      id: 'resp_0dbef2d9d14a548c00696d5e6f5080819086a0a3791c4d6b0c',
      model: 'gpt-5.2-2025-12-11',
      created: 1768775279,
    });
    expect(blocks(events)).toEqual([{ kind: 'text', text: '2+2 = 4', args: '', stopped: true }]);
    expect(events.slice(-3)).toEqual([
      { type: 'finish', finishReason: { unified: 'stop', raw: 'completed' } },
      { type: 'usage', usage: usage({ input: 20, output: 10 }) },
      { type: 'message_stop' },
    ]);
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(6);
  });

  it('stream-function-call-reasoning: encrypted reasoning, then a function call with its item id', () => {
    const events = stream('stream-function-call-reasoning.sse');
    const [added] = payloads('stream-function-call-reasoning.sse', 'response.output_item.added');
    const [done] = payloads('stream-function-call-reasoning.sse', 'response.output_item.done');
    expect(added!.item.encrypted_content).not.toBe(done!.item.encrypted_content);
    expect(blocks(events)).toEqual([
      {
        kind: 'reasoning',
        issuer: 'openai',
        itemId: 'rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405',
        encryptedContent: added!.item.encrypted_content,
        signature: done!.item.encrypted_content, // the final encrypted content, from output_item.done
        text: '',
        args: '',
        stopped: true,
      },
      {
        kind: 'tool_call',
        id: 'call_CWXgs68YprAjp6t0371hiPOI',
        name: 'final_result',
        itemId: 'fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042',
        issuer: 'openai',
        text: '',
        args: '{"result":6666}',
        stopped: true,
      },
    ]);
    expect(events.filter((e) => e.type === 'tool_args_delta')).toHaveLength(6);
    expect(events.find((e) => e.type === 'signature')).toMatchObject({ index: 0, issuer: 'openai' });
    expect(events.slice(-3)).toEqual([
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'completed' } },
      { type: 'usage', usage: usage({ input: 53, output: 469, reasoning: 448 }) },
      { type: 'message_stop' },
    ]);
  });

  it('stream-reasoning-summary-text: one reasoning block per summary part, all of one item, then the answer', () => {
    const events = stream('stream-reasoning-summary-text.sse');
    const summaries = payloads('stream-reasoning-summary-text.sse', 'response.reasoning_summary_text.done').map((p) => p.text as string);
    const [answer] = payloads('stream-reasoning-summary-text.sse', 'response.output_text.done');
    const folded = blocks(events);
    expect(summaries).toHaveLength(4);
    expect(folded.map((b) => b.kind)).toEqual(['reasoning', 'reasoning', 'reasoning', 'reasoning', 'text']);
    expect(folded.slice(0, 4).map((b) => b.text)).toEqual(summaries);
    expect(new Set(folded.slice(0, 4).map((b) => b.itemId))).toEqual(new Set(['rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff']));
    expect(folded.slice(1, 4).every((b) => b.encryptedContent === undefined)).toBe(true);
    expect(folded[0]!.encryptedContent).toMatch(/^gAAAAA/);
    expect(folded[3]!.signature).toMatch(/^gAAAAA/); // the last block carries the final encrypted content
    expect(folded[4]!.text).toBe(answer!.text);
    expect(events.find((e) => e.type === 'usage')).toEqual({ type: 'usage', usage: usage({ input: 13, output: 1680, reasoning: 1408 }) });
  });

  it('stream-error-insufficient-quota: the error event becomes one canonical quota error', () => {
    const events = stream('stream-error-insufficient-quota.sse');
    expect(events).toEqual([
      { type: 'message_start', id: 'resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424', model: 'gpt-5-nano-2025-08-07', created: 1763474589 },
      { type: 'error', error: { code: 'quota_exceeded', status: 429, message: expect.stringContaining('You exceeded your current quota') } },
    ]);
  });
});

describe('openai_responses stream decoding of other shapes', () => {
  it('a server that sends no deltas: items are completed from output_item.done', () => {
    const events = decodeText(
      SSE(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: {
            id: 'msg_1',
            type: 'message',
            content: [
              { type: 'output_text', text: 'Hi' },
              { type: 'refusal', refusal: 'no' },
            ],
          },
        },
        { type: 'response.output_item.done', output_index: 1, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' } },
        { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [] } },
      ),
    );
    expect(blocks(events)).toEqual([
      { kind: 'text', text: 'Hi', args: '', stopped: true },
      { kind: 'refusal', text: 'no', args: '', stopped: true },
      { kind: 'tool_call', id: 'call_1', name: 'f', itemId: 'fc_1', issuer: 'openai', text: '', args: '{"a":1}', stopped: true },
    ]);
    expect(events.at(-2)).toEqual({ type: 'finish', finishReason: { unified: 'tool_calls', raw: 'completed' } });
  });

  it('only response.created and response.completed: the output is decoded from the final response', () => {
    const output = [
      {
        id: 'rs_1',
        type: 'reasoning',
        summary: [
          { type: 'summary_text', text: 'a' },
          { type: 'summary_text', text: 'b' },
        ],
        encrypted_content: 'E',
      },
      { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'answer' }] },
      { id: 'ws_1', type: 'web_search_call', status: 'completed' },
    ];
    const events = decodeText(
      SSE(created, { type: 'response.completed', response: { id: 'resp_1', status: 'completed', output, usage: { input_tokens: 9, output_tokens: 3 } } }),
    );
    expect(assembleIr(events)).toMatchObject({ text: 'answer', reasoning: 'ab', finish: 'stop', end: 'message_stop' });
    expect(blocks(events).map((b) => [b.kind, b.itemId, b.encryptedContent])).toEqual([
      ['reasoning', 'rs_1', 'E'],
      ['reasoning', 'rs_1', undefined],
      ['text', undefined, undefined],
    ]);
  });

  it('deltas whose .done text says more: only the missing rest is added', () => {
    const events = decodeText(
      SSE(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } },
        { type: 'response.content_part.added', output_index: 0, content_index: 0, item_id: 'msg_1', part: { type: 'output_text', text: '' } },
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: 'Hel' },
        { type: 'response.output_text.done', output_index: 0, content_index: 0, item_id: 'msg_1', text: 'Hello' },
        { type: 'response.content_part.done', output_index: 0, content_index: 0, item_id: 'msg_1', part: { type: 'output_text', text: 'Hello' } },
        { type: 'response.output_item.done', output_index: 0, item: { id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'Hello' }] } },
        { type: 'response.completed', response: { status: 'completed' } },
      ),
    );
    expect(events.filter((e) => e.type === 'text_delta')).toEqual([
      { type: 'text_delta', index: 0, text: 'Hel' },
      { type: 'text_delta', index: 0, text: 'lo' },
    ]);
  });

  it.each([
    ['max_output_tokens', 'length'],
    ['content_filter', 'content_filter'],
  ])('response.incomplete (%s) finishes as %s', (reason, unified) => {
    const events = decodeText(SSE(created, { type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason }, output: [] } }));
    expect(events.slice(-2)).toEqual([{ type: 'finish', finishReason: { unified, raw: reason } }, { type: 'message_stop' }]);
  });

  it('response.failed without an error event is still one canonical error', () => {
    const events = decodeText(
      SSE(created, { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'The model failed.' } } }),
    );
    expect(events.at(-1)).toEqual({ type: 'error', error: { code: 'upstream_error', message: 'The model failed.', status: 502 } });
    const documented = decodeText(SSE(created, { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null, sequence_number: 1 }));
    expect(documented.at(-1)).toEqual({ type: 'error', error: { code: 'rate_limited', message: 'Slow down.', status: 429 } });
  });

  it('ignores unknown events and items, tolerates a [DONE] after the terminal event', () => {
    const events = decodeText(
      SSE(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { id: 'ws_1', type: 'web_search_call' } },
        { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws_1' },
        { type: 'response.output_text.annotation.added', output_index: 0, item_id: 'ws_1' },
        { type: 'keepalive' },
        { type: 'response.brand_new_event', output_index: 9 },
        { type: 'response.output_item.done', output_index: 0, item: { id: 'ws_1', type: 'web_search_call' } },
        {
          type: 'response.completed',
          response: { status: 'completed', usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 3 }, output_tokens: 1 } },
        },
      ) + 'data: [DONE]\n\n',
    );
    expect(events.map((e) => e.type)).toEqual(['message_start', 'finish', 'usage', 'message_stop']);
    expect(events[2]).toEqual({ type: 'usage', usage: usage({ input: 2, cacheRead: 3, output: 1 }) });
  });

  it('refusal parts stream as refusal blocks', () => {
    const events = decodeText(
      SSE(
        created,
        { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_1', type: 'message', content: [] } },
        { type: 'response.content_part.added', output_index: 0, content_index: 0, item_id: 'msg_1', part: { type: 'refusal', refusal: '' } },
        { type: 'response.refusal.delta', output_index: 0, content_index: 0, item_id: 'msg_1', delta: "I can't" },
        { type: 'response.refusal.done', output_index: 0, content_index: 0, item_id: 'msg_1', refusal: "I can't help." },
        { type: 'response.completed', response: { status: 'completed' } },
      ),
    );
    expect(assembleIr(events)).toMatchObject({ refusal: "I can't help.", text: '', end: 'message_stop' });
  });
});
