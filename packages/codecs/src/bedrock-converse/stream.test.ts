/**
 * ConverseStream: the recorded streams through the codec, to other formats and back, and what a
 * hostile or broken upstream can send — an exception frame, a corrupt frame, a stream cut inside a
 * frame — each ending as the caller's own in-stream error, with what came before kept.
 */
import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../../test/support/fixtures.js';
import { anthropicMessagesCodec } from '../anthropic-messages/index.js';
import { convertStream, decodeStream } from '../convert-stream.js';
import { convertStreamWith } from '../convert-stream-with.js';
import type { StreamEvent } from '../ir/stream-event.js';
import { createSseReader } from '../sse/parse.js';
import { concat, recordedStream, smithy, smithyEventFrame, smithyExceptionFrame, splitFrames } from './__tests__/smithy.js';
import { bedrockConverseCodec as codec } from './index.js';

function streamOf(bytes: Uint8Array, size = 37): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function events(bytes: Uint8Array): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  const reader = streamOf(bytes).pipeThrough(decodeStream('bedrock_converse')).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function sse(bytes: Uint8Array): Array<{ event?: string; data: any }> {
  const out: Array<{ event?: string; data: any }> = [];
  const reader = createSseReader(
    (m) => out.push({ ...(m.event === undefined ? {} : { event: m.event }), data: JSON.parse(m.data) }),
    () => {},
  );
  reader.feed(new TextDecoder().decode(bytes));
  reader.end();
  return out;
}

const TOOL_USE = recordedStream('bedrock-converse/stream-tool-use.eventstream');
const REASONING = recordedStream('bedrock-converse/stream-reasoning.json');

describe('recorded ConverseStreams', () => {
  it('the tool-use stream: text, one tool call with its streamed input, tool_use stop, then the usage', async () => {
    const got = await events(TOOL_USE);
    const text = got.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    expect(text.startsWith('<thinking> To find the temperature of the capital of France,')).toBe(true);
    const start = got.find((e) => e.type === 'block_start' && e.block.kind === 'tool_call');
    expect(start).toMatchObject({ block: { kind: 'tool_call', id: 'tooluse_lAG_zP8QRHmSYOwZzzaCqA', name: 'get_temperature' } });
    const args = got.flatMap((e) => (e.type === 'tool_args_delta' ? [e.delta] : [])).join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    const tail = got.slice(-3).map((e) => e.type);
    expect(tail).toEqual(['finish', 'usage', 'message_stop']);
    expect(got.find((e) => e.type === 'finish')).toEqual({ type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' } });
    expect(got.find((e) => e.type === 'usage')).toMatchObject({ usage: { input: 471, output: 91, measured: true } });
  });

  it('the reasoning stream: reasoning text, then its signature, then the answer', async () => {
    const got = await events(REASONING);
    const reasoning = got.flatMap((e) => (e.type === 'reasoning_delta' ? [e.text] : [])).join('');
    expect(reasoning.startsWith('The user has greeted me with a simple "Hello".')).toBe(true);
    const recorded = fixtureJson<any[]>('bedrock-converse/stream-reasoning.json');
    const signature = recorded.find((f) => f.contentBlockDelta?.delta?.reasoningContent?.signature !== undefined).contentBlockDelta.delta.reasoningContent
      .signature;
    expect(got.filter((e) => e.type === 'signature')).toEqual([{ type: 'signature', index: 0, signature, issuer: 'anthropic' }]);
    expect(got.some((e) => e.type === 'text_delta')).toBe(true);
    expect(got.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('to an Anthropic client: thinking with the signature it must send back, the tool call, exact usage', async () => {
    const out = sse(await bytesOf(convertStream(streamOf(REASONING), 'bedrock_converse', 'anthropic_messages', { model: 'claude' })));
    const thinking = out.filter((m) => m.data.delta?.type === 'signature_delta');
    expect(thinking).toHaveLength(1);
    expect(out.at(-1)!.event).toBe('message_stop');
    const usage = sse(await bytesOf(convertStream(streamOf(TOOL_USE), 'bedrock_converse', 'anthropic_messages'))).find(
      (m) => m.event === 'message_delta',
    )!.data;
    expect(usage).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { input_tokens: 471, output_tokens: 91 } });
  });

  it('an Anthropic stream re-framed for a Bedrock client reads back to the same events (through the AWS reference decoder too)', async () => {
    const anthropic = concatText(await bytesOf(convertStream(streamOf(REASONING), 'bedrock_converse', 'anthropic_messages')));
    const back = await bytesOf(convertStream(streamOf(new TextEncoder().encode(anthropic)), 'anthropic_messages', 'bedrock_converse'));
    const a = await events(REASONING);
    const b = await events(back);
    const strip = (es: StreamEvent[]) => es.filter((e) => e.type !== 'message_start' && e.type !== 'usage');
    expect(strip(b)).toEqual(strip(a));
    // Every frame is valid to the AWS SDK's own codec.
    for (const frame of splitFrames(back)) expect(() => smithyDecode(frame)).not.toThrow();
  });
});

function concatText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

const smithyDecode = (frame: Uint8Array) => smithy.decode(frame);

describe('frames written for a Bedrock client', () => {
  it("text and tool-argument deltas with characters JSON must escape: each frame is the reference codec's frame of that event", async () => {
    const texts = ['plain', 'quote " and \\ backslash', 'line\nbreak\ttab\u0001', 'sep \u2028 \u2029', 'emoji 🙂 «é»', 'lone \ud800 surrogate'];
    const args = ['{"q": "a \\"b\\""', ', "n": [1, 2]', '}'];
    const ev = (data: Record<string, unknown>) => `event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`;
    const anthropic = [
      ev({
        type: 'message_start',
        message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 3, output_tokens: 1 } },
      }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ...texts.map((text) => ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
      ev({ type: 'content_block_stop', index: 0 }),
      ev({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } }),
      ...args.map((partial_json) => ev({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json } })),
      ev({ type: 'content_block_stop', index: 1 }),
      ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } }),
      ev({ type: 'message_stop' }),
    ].join('');
    const out = await bytesOf(convertStream(streamOf(new TextEncoder().encode(anthropic)), 'anthropic_messages', 'bedrock_converse'));
    const frames = splitFrames(out);
    const expected: Array<[string, unknown]> = [
      ['messageStart', { role: 'assistant' }],
      ...texts.map((text): [string, unknown] => ['contentBlockDelta', { contentBlockIndex: 0, delta: { text } }]),
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'toolu_1', name: 'search' } } }],
      ...args.map((input): [string, unknown] => ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input } } }]),
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: { inputTokens: 3, outputTokens: 9, totalTokens: 12 }, metrics: { latencyMs: 0 } }],
    ];
    expect(frames.map((f) => [smithy.decode(f).headers[':event-type']!.value, JSON.parse(new TextDecoder().decode(smithy.decode(f).body))])).toEqual(
      expected.map(([type, payload]) => [type, JSON.parse(JSON.stringify(payload))]),
    );
    expected.forEach(([type, payload], i) => expect(frames[i]).toEqual(smithyEventFrame(type, payload)));
  });
});

describe('a broken or hostile Bedrock upstream', () => {
  const frames = splitFrames(TOOL_USE);
  const head = concat(frames.slice(0, 4)); // messageStart and three text deltas

  it('an exception frame mid-stream: the canonical error, after the text already sent', async () => {
    const stream = concat([head, smithyExceptionFrame('throttlingException', 'Too many tokens, please wait.')]);
    const got = await events(stream);
    expect(got.at(-1)).toEqual({ type: 'error', error: { code: 'rate_limited', status: 429, message: 'Too many tokens, please wait.' } });
    const out = sse(await bytesOf(convertStream(streamOf(stream), 'bedrock_converse', 'anthropic_messages')));
    expect(out.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'rate_limit_error', message: 'Too many tokens, please wait.' } } });
    expect(
      out
        .filter((m) => m.data.delta?.type === 'text_delta')
        .map((m) => m.data.delta.text)
        .join(''),
    ).toBe('<thinking> To find the temperature');
    expect(out.some((m) => m.event === 'message_stop')).toBe(false);
  });

  it.each([
    ['internalServerException', 'upstream_error'],
    ['modelStreamErrorException', 'upstream_error'],
    ['validationException', 'invalid_request'],
    ['serviceUnavailableException', 'unavailable'],
  ])('%s → %s', async (type, code) => {
    const got = await events(concat([head, smithyExceptionFrame(type, 'boom')]));
    expect(got.at(-1)).toMatchObject({ type: 'error', error: { code } });
  });

  it('a frame with a bad CRC: an error event for the client, nothing after it', async () => {
    const bad = frames[4]!.slice();
    bad[bad.length - 8] = bad[bad.length - 8]! ^ 0xff;
    const stream = concat([head, bad, ...frames.slice(5)]);
    const out = sse(await bytesOf(convertStream(streamOf(stream), 'bedrock_converse', 'openai_chat')));
    expect(out.at(-1)!.data.error).toMatchObject({ message: expect.stringContaining('corrupt event-stream frame') });
    expect(out.some((m) => m.data.choices?.[0]?.finish_reason != null)).toBe(false);
  });

  it('a stream cut inside a frame: stream_incomplete, never a clean finish', async () => {
    const cut = concat([head, frames[4]!.subarray(0, 9)]);
    const got = await events(cut);
    expect(got.at(-1)).toMatchObject({ type: 'error', error: { code: 'stream_incomplete' } });
    const out = sse(await bytesOf(convertStream(streamOf(cut), 'bedrock_converse', 'anthropic_messages')));
    expect(out.at(-1)!.event).toBe('error');
  });

  it('a stream that ends between frames before messageStop: stream_incomplete', async () => {
    expect((await events(head)).at(-1)).toMatchObject({ type: 'error', error: { code: 'stream_incomplete' } });
  });

  it('a stream that ends right after messageStop (no metadata) is whole, with no usage', async () => {
    const stop = frames.findIndex((f) => new TextDecoder().decode(f).includes('messageStop'));
    const got = await events(concat(frames.slice(0, stop + 1)));
    expect(got.at(-1)).toEqual({ type: 'message_stop' });
    expect(got.some((e) => e.type === 'usage')).toBe(false);
  });

  it('a payload that is not JSON is an upstream error, not a crash', async () => {
    const junk = smithyEventFrame('contentBlockDelta', 'x');
    const broken = concat([head, new Uint8Array(junk)]);
    // a JSON string is valid JSON but not an object
    expect((await events(broken)).at(-1)).toMatchObject({ type: 'error', error: { code: 'upstream_error' } });
  });

  it('identity (a Bedrock client, a Bedrock upstream): the bytes pass unchanged; a bad frame is still noticed for metering', async () => {
    const seen: StreamEvent[] = [];
    const out = await bytesOf(convertStreamWith(streamOf(TOOL_USE), codec, codec, { onEvent: (e) => seen.push(e) }));
    expect(out).toEqual(TOOL_USE);
    expect(seen.find((e) => e.type === 'usage')).toMatchObject({ usage: { input: 471, output: 91 } });
    const bad = TOOL_USE.slice();
    bad[200] = bad[200]! ^ 1;
    const seen2: StreamEvent[] = [];
    await bytesOf(convertStreamWith(streamOf(bad), codec, codec, { onEvent: (e) => seen2.push(e) }));
    expect(seen2.some((e) => e.type === 'error')).toBe(true);
  });

  it('identity with a cut stream: the Bedrock client gets an exception frame appended', async () => {
    const out = await bytesOf(convertStreamWith(streamOf(head), codec, codec));
    const last = splitFrames(out).at(-1)!;
    expect(smithy.decode(last).headers[':message-type']).toEqual({ type: 'string', value: 'exception' });
  });

  it('an Anthropic stream that fails mid-way reaches a Bedrock client as an exception frame', async () => {
    const text = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    ].join('');
    const out = await bytesOf(convertStreamWith(streamOf(new TextEncoder().encode(text)), anthropicMessagesCodec, codec));
    const decoded = splitFrames(out).map((f) => smithy.decode(f));
    const last = decoded.at(-1)!;
    expect(last.headers[':exception-type']).toEqual({ type: 'string', value: 'serviceUnavailableException' });
    expect(JSON.parse(new TextDecoder().decode(last.body))).toEqual({ message: 'Overloaded' });
    expect(decoded.some((m) => m.headers[':event-type']?.value === 'messageStop')).toBe(false);
  });
});
