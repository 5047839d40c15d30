/**
 * Codec throughput for every ordered pair of the five wire formats: a long stream (text and
 * tool-argument deltas) in each source format, translated to each other format, compared with a
 * floor measured in the same run on the same bytes: eventsource-parser + JSON.parse +
 * JSON.stringify of every event, no translation. The source streams are produced by the codecs
 * themselves (the synthetic Anthropic stream converted into each format). Identity pairs are not
 * measured: the identity plan relays the bytes unchanged.
 */
import { pathToFileURL } from 'node:url';
import { createParser } from 'eventsource-parser';
import { createEventStreamReader } from '../../packages/codecs/src/bedrock-converse/event-stream.ts';
import { codecs, convertStream, WIRE_FORMATS, type WireFormat } from '../../packages/codecs/src/index.ts';

const encoder = new TextEncoder();

/** An Anthropic stream with `n` deltas: text first, then a tool call's argument fragments. */
export function anthropicStream(n: number): string {
  const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let s = ev('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    },
  });
  const textDeltas = Math.floor(n * 0.7);
  s += ev('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  for (let i = 0; i < textDeltas; i++)
    s += ev('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ` word${i % 97} and «more»` } });
  s += ev('content_block_stop', { type: 'content_block_stop', index: 0 });
  s += ev('content_block_start', {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_bench', name: 'get_weather', input: {} },
  });
  s += ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"items": [' } });
  for (let i = 0; i < n - textDeltas; i++)
    s += ev('content_block_delta', {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: `${i === 0 ? '' : ','}{"city": "Paris ${i}"}` },
    });
  s += ev('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ']}' } });
  s += ev('content_block_stop', { type: 'content_block_stop', index: 1 });
  s += ev('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: n } });
  s += ev('message_stop', { type: 'message_stop' });
  return s;
}

function chunks(input: string | Uint8Array, size = 16 * 1024): Uint8Array[] {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input;
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function source(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]);
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

/**
 * The floor for a binary source (Bedrock's AWS event stream): the same bytes through the frame
 * reader (length prefix, both CRC32 checks, headers), JSON.parse and JSON.stringify, no translation.
 */
async function frameFloor(parts: Uint8Array[]): Promise<number> {
  const text = new TextDecoder();
  let out = '';
  const reader = createEventStreamReader(
    (message) => {
      out += `data: ${JSON.stringify(JSON.parse(text.decode(message.body)))}\n\n`;
    },
    (problem) => {
      throw new Error(problem);
    },
    8 * 1024 * 1024,
  );
  return drain(
    source(parts).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          reader.feed(chunk);
          if (out.length > 0) {
            controller.enqueue(encoder.encode(out));
            out = '';
          }
        },
      }),
    ),
  );
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
async function timePair(a: () => Promise<unknown>, b: () => Promise<unknown>, rounds: number, runsPerRound: number): Promise<[number, number]> {
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

/** Rounds of alternating floor and conversion runs per pair: 20 pairs must fit in about a minute on two busy cores. */
const ROUNDS = 7;
const RUNS_PER_ROUND = 4;

interface PairResult {
  from: WireFormat;
  to: WireFormat;
  mbps: number;
  floorMbps: number;
  ratio: number;
}

async function pair(stream: Uint8Array, from: WireFormat, to: WireFormat): Promise<PairResult> {
  const parts = chunks(stream);
  const bytes = stream.byteLength;
  const base = codecs[from].streamFraming === undefined ? floor : frameFloor;
  const [floorMs, convMs] = await timePair(
    () => base(parts),
    () => drain(convertStream(source(parts), from, to)),
    ROUNDS,
    RUNS_PER_ROUND,
  );
  const rate = (ms: number) => mb(bytes) / (ms / 1000);
  return { from, to, mbps: rate(convMs), floorMbps: rate(floorMs), ratio: floorMs / convMs };
}

const SHORT: Record<WireFormat, string> = {
  openai_chat: 'openai_chat',
  openai_responses: 'openai_responses',
  anthropic_messages: 'anthropic_messages',
  anthropic_vertex: 'anthropic_vertex',
  gemini_generate_content: 'gemini',
  bedrock_converse: 'bedrock',
};

/** Rows: from; columns: to; each cell the translation's MB/s (of source bytes) and its ratio to the floor. */
function table(results: PairResult[]): string {
  const cell = (from: WireFormat, to: WireFormat) => {
    if (from === to) return '(identity)';
    const r = results.find((x) => x.from === from && x.to === to)!;
    return `${r.mbps.toFixed(1)} MB/s · ${r.ratio.toFixed(2)}×${r.ratio < 0.6 ? ' ⚠' : ''}`;
  };
  return [
    'translation throughput (MB/s of source stream bytes) and ratio to the floor, per pair (rows: from, columns: to):',
    '',
    `  | from ＼ to | ${WIRE_FORMATS.map((f) => SHORT[f]).join(' | ')} |`,
    `  |---|${WIRE_FORMATS.map(() => '--:').join('|')}|`,
    ...WIRE_FORMATS.map((from) => `  | **${SHORT[from]}** | ${WIRE_FORMATS.map((to) => cell(from, to)).join(' | ')} |`),
  ].join('\n');
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
  const marks = new Map([
    [Math.floor(parts.length * 0.1), 0],
    [Math.floor(parts.length * 0.9), 0],
  ]);
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

async function convertBytes(text: string, from: WireFormat, to: WireFormat): Promise<Uint8Array> {
  return new Uint8Array(await new Response(convertStream(source(chunks(text)), from, to)).arrayBuffer());
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const events = 4_000;
  const anthropic = anthropicStream(events);
  // The same stream in every format, produced by the codecs themselves.
  const streams = new Map<WireFormat, Uint8Array>();
  for (const format of WIRE_FORMATS)
    streams.set(format, format === 'anthropic_messages' ? encoder.encode(anthropic) : await convertBytes(anthropic, 'anthropic_messages', format));
  const results: PairResult[] = [];
  for (const from of WIRE_FORMATS) {
    for (const to of WIRE_FORMATS) if (from !== to) results.push(await pair(streams.get(from)!, from, to));
  }
  const worst = results.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const floors = WIRE_FORMATS.map((f) => {
    const rs = results
      .filter((r) => r.from === f)
      .map((r) => r.floorMbps)
      .sort((a, b) => a - b);
    return `${SHORT[f]} ${rs[Math.floor(rs.length / 2)]!.toFixed(1)}`;
  });
  const sizes = WIRE_FORMATS.map((f) => `${SHORT[f]} ${mb(streams.get(f)!.byteLength).toFixed(2)} MB`);
  const lines = [
    `stream of ${events.toLocaleString('en-US')} deltas in each format (${sizes.join(', ')}), 16 KiB chunks; ${ROUNDS} alternating rounds of ${RUNS_PER_ROUND} runs per pair, medians`,
    table(results),
    `floor (eventsource-parser — for Bedrock's binary event stream, the frame reader with both CRC checks — + JSON.parse + JSON.stringify, no translation), MB/s by source: ${floors.join(', ')}`,
    `lowest ratio to floor: ${worst.ratio.toFixed(2)}× (${SHORT[worst.from]} → ${SHORT[worst.to]}); ${results.filter((r) => r.ratio >= 0.6).length} of ${results.length} pairs at or above the 0.6× target`,
    await memory('anthropic_messages', 'openai_chat', anthropicStream),
  ];
  return { name: 'codecs: stream translation, every pair', lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await run();
  console.log(`# ${result.name}`);
  for (const line of result.lines) console.log(`- ${line}`);
}
