/**
 * Codec throughput: a long Anthropic stream (text and tool-argument deltas) translated to OpenAI
 * Chat, and an OpenAI Chat stream translated to Anthropic, compared with a floor measured in the
 * same run: eventsource-parser + JSON.parse + JSON.stringify of the same events, no translation.
 */
import { pathToFileURL } from 'node:url';
import { createParser } from 'eventsource-parser';
import { convertStream, type WireFormat } from '../../packages/codecs/src/index.ts';

const encoder = new TextEncoder();

/** An Anthropic stream with `n` deltas: text first, then a tool call's argument fragments. */
export function anthropicStream(n: number): string {
  const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let s = ev('message_start', {
    type: 'message_start',
    message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1200, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } },
  });
  const textDeltas = Math.floor(n * 0.7);
  s += ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < textDeltas; i++) s += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` word${i % 97} and «more»` } });
  s += ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  s += ev('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_bench', name: 'get_weather', input: {} } });
  s += ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"items": [' } });
  for (let i = 0; i < n - textDeltas; i++) s += ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: `${i === 0 ? '' : ','}{"city": "Paris ${i}"}` } });
  s += ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ']}' } });
  s += ev('content_block_stop', { type: 'content_block_stop', index: 1 });
  s += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: n } });
  s += ev('message_stop', { type: 'message_stop' });
  return s;
}

function chunks(text: string, size = 16 * 1024): Uint8Array[] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function source(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]!);
      else controller.close();
    },
  });
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

/** The floor: the same bytes through eventsource-parser, JSON.parse and JSON.stringify, no translation. */
async function floor(parts: Uint8Array[]): Promise<number> {
  const decoder = new TextDecoder();
  let out = '';
  const parser = createParser({
    onEvent(message) {
      if (message.data === '[DONE]') out += 'data: [DONE]\n\n';
      else out += `data: ${JSON.stringify(JSON.parse(message.data))}\n\n`;
    },
  });
  return drain(
    source(parts).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          if (out.length > 0) {
            controller.enqueue(encoder.encode(out));
            out = '';
          }
        },
      }),
    ),
  );
}

/** Median ms per run of `a` and `b`, measured in alternating rounds so both see the same machine state. */
async function timePair(a: () => Promise<unknown>, b: () => Promise<unknown>, rounds = 7, runsPerRound = 5): Promise<[number, number]> {
  const once = async (fn: () => Promise<unknown>) => {
    const start = performance.now();
    for (let i = 0; i < runsPerRound; i++) await fn();
    return (performance.now() - start) / runsPerRound;
  };
  await once(a);
  await once(b);
  const ta: number[] = [];
  const tb: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ta.push(await once(a));
    tb.push(await once(b));
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [median(ta), median(tb)];
}

function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}

async function pair(text: string, events: number, from: WireFormat, to: WireFormat): Promise<string> {
  const parts = chunks(text);
  const bytes = encoder.encode(text).byteLength;
  const [floorMs, convMs] = await timePair(() => floor(parts), () => drain(convertStream(source(parts), from, to)));
  const rate = (ms: number) => `${(mb(bytes) / (ms / 1000)).toFixed(1)} MB/s, ${Math.round(events / (ms / 1000)).toLocaleString('en-US')} events/s`;
  return `${from} → ${to}: ${rate(convMs)}; floor ${rate(floorMs)}; ratio to floor ${(floorMs / convMs).toFixed(2)}× (target ≥ 0.6×)`;
}

/**
 * Retained heap (after a forced GC) at 10% and at 90% of a long conversion: flat means the
 * converter holds nothing that grows with the stream. Needs `node --expose-gc`.
 */
async function memory(from: WireFormat, to: WireFormat, make: (n: number) => string): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return 'memory: run node with --expose-gc to measure retained heap';
  const parts = chunks(make(40_000));
  const reader = convertStream(source(parts), from, to).getReader();
  const marks = new Map([[Math.floor(parts.length * 0.1), 0], [Math.floor(parts.length * 0.9), 0]]);
  for (let i = 0; ; i++) {
    const { done } = await reader.read();
    if (done) break;
    if (marks.has(i)) {
      gc();
      marks.set(i, process.memoryUsage().heapUsed);
    }
  }
  const [early, late] = [...marks.values()];
  const delta = (late! - early!) / 1024;
  return `${from} → ${to}, 40,000 deltas: retained heap at 90% minus at 10% of the stream = ${delta.toFixed(0)} KiB (flat ≈ 0)`;
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const events = 4_000;
  const anthropic = anthropicStream(events);
  // The OpenAI form of the same stream, produced by the codecs themselves.
  const openai = new TextDecoder().decode(
    new Uint8Array(await new Response(convertStream(source(chunks(anthropic)), 'anthropic_messages', 'openai_chat')).arrayBuffer()),
  );
  const lines = [
    `stream of ${events.toLocaleString('en-US')} deltas (${mb(encoder.encode(anthropic).byteLength).toFixed(2)} MB Anthropic SSE), 16 KiB chunks`,
    await pair(anthropic, events, 'anthropic_messages', 'openai_chat'),
    await pair(openai, events, 'openai_chat', 'anthropic_messages'),
    await memory('anthropic_messages', 'openai_chat', anthropicStream),
  ];
  return { name: 'codecs: stream translation', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(`- ${line}`);
}
