/**
 * Test harness for openai_responses: the shared stream driver (`src/__tests__/harness.ts`) bound to this
 * format's decoder and encoder, and assembles Responses SSE strictly, the way the `openai` SDK's ResponseStream does,
 * checking the grammar on the way.
 */
import { parseSse as parseSseAs, streamHarness } from '../../__tests__/harness.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

export { bytes, sliceAt, type PipeOptions } from '../../__tests__/harness.js';

export const harness = streamHarness({ createStreamDecoder, createStreamEncoder });
export const { decodeChunks, decodeText, encodeEvents, reencodeChunks, reencodeText } = harness;

export type Json = Record<string, any>;

/** Parse SSE text into `{ event, data }` with `data` JSON-parsed. */
export function parseSse(text: string): Array<{ event: string | undefined; data: Json }> {
  return parseSseAs<Json>(text);
}

export interface Assembled {
  /** The snapshot built from the events, as the SDK builds it. */
  snapshot: Json;
  /** The response object of the terminal event. */
  final?: Json;
  terminal?: 'response.completed' | 'response.incomplete' | 'response.failed';
  error?: Json;
  types: string[];
}

/** JSON with sorted keys, for order-independent comparison. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

/** OpenAI re-encrypts reasoning for each event that carries it, so only its presence is compared. */
function withoutEncrypted(output: Json[]): Json[] {
  return output.map((item) => (item.encrypted_content === undefined ? item : { ...item, encrypted_content: typeof item.encrypted_content }));
}

function at(list: unknown, index: unknown, what: string): Json {
  if (!Array.isArray(list) || typeof index !== 'number' || list[index] === undefined) throw new Error(`missing ${what} at index ${String(index)}`);
  return list[index] as Json;
}

/**
 * Assemble a Responses stream strictly. Throws when: an event name differs from its payload type;
 * sequence numbers are not 0, 1, 2, …; an event names an output item, content part or summary part
 * that was not added, or an item id that does not match its output index; a `.done` text differs
 * from its deltas; anything follows the terminal event; the terminal response's output differs
 * from the assembled one.
 */
export function assemble(text: string, options: { sequence?: boolean } = {}): Assembled {
  const events = parseSse(text);
  const out: Assembled = { snapshot: {}, types: [] };
  let expectSeq = 0;
  let errorSeen = false;
  for (const { event, data } of events) {
    const type = data.type as string;
    out.types.push(type);
    if (event !== undefined && event !== type) throw new Error(`event name ${event} != payload type ${type}`);
    if (options.sequence !== false) {
      if (data.sequence_number !== expectSeq) throw new Error(`${type}: sequence_number ${String(data.sequence_number)}, expected ${expectSeq}`);
      expectSeq++;
    }
    if (out.terminal !== undefined) throw new Error(`${type} after ${out.terminal}`);
    if (type === 'error') {
      if (errorSeen) throw new Error('two error events');
      errorSeen = true;
      out.error = data;
      continue;
    }
    if (errorSeen && type !== 'response.failed') throw new Error(`${type} after error`);
    if (type === 'response.created') {
      if (out.types.length !== 1) throw new Error('response.created is not first');
      out.snapshot = structuredClone(data.response);
      continue;
    }
    if (out.types[0] !== 'response.created') throw new Error(`${type} before response.created`);
    const snap = out.snapshot;
    const item = typeof data.output_index === 'number' ? snap.output[data.output_index] : undefined;
    if (item !== undefined && data.item_id !== undefined && item.id !== data.item_id) throw new Error(`${type}: item_id ${data.item_id} != ${item.id}`);
    switch (type) {
      case 'response.in_progress':
        break;
      case 'response.output_item.added':
        if (data.output_index !== snap.output.length) throw new Error(`output_item.added at ${data.output_index}, expected ${snap.output.length}`);
        snap.output.push(structuredClone(data.item));
        break;
      case 'response.output_item.done': {
        const added = at(snap.output, data.output_index, 'output');
        if (added.id !== data.item.id || added.type !== data.item.type) throw new Error('output_item.done for another item');
        if (canonical({ ...added, status: undefined }) !== canonical({ ...data.item, status: undefined }) && added.type !== 'reasoning') {
          throw new Error(`output_item.done differs from the assembled item: ${JSON.stringify(added).slice(0, 200)}`);
        }
        snap.output[data.output_index] = structuredClone(data.item);
        break;
      }
      case 'response.content_part.added': {
        const msg = at(snap.output, data.output_index, 'output');
        if (data.content_index !== msg.content.length) throw new Error('content_part.added out of order');
        msg.content.push(structuredClone(data.part));
        break;
      }
      case 'response.content_part.done': {
        const msg = at(snap.output, data.output_index, 'output');
        const part = at(msg.content, data.content_index, 'content');
        if (canonical(part) !== canonical(data.part)) throw new Error('content_part.done differs from the deltas');
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const part = at(at(snap.output, data.output_index, 'output').content, data.content_index, 'content');
        if (type === 'response.output_text.delta') part.text += data.delta;
        else part.refusal += data.delta;
        break;
      }
      case 'response.output_text.done':
      case 'response.refusal.done': {
        const part = at(at(snap.output, data.output_index, 'output').content, data.content_index, 'content');
        const expected = type === 'response.output_text.done' ? part.text : part.refusal;
        if (expected !== (data.text ?? data.refusal)) throw new Error(`${type} differs from the deltas`);
        break;
      }
      case 'response.function_call_arguments.delta':
        at(snap.output, data.output_index, 'output').arguments += data.delta;
        break;
      case 'response.function_call_arguments.done':
        if (at(snap.output, data.output_index, 'output').arguments !== data.arguments) throw new Error('arguments.done differs from the deltas');
        break;
      case 'response.reasoning_summary_part.added': {
        const rs = at(snap.output, data.output_index, 'output');
        if (data.summary_index !== rs.summary.length) throw new Error('summary part out of order');
        rs.summary.push(structuredClone(data.part));
        break;
      }
      case 'response.reasoning_summary_text.delta':
        at(at(snap.output, data.output_index, 'output').summary, data.summary_index, 'summary').text += data.delta;
        break;
      case 'response.reasoning_summary_text.done':
      case 'response.reasoning_summary_part.done': {
        const part = at(at(snap.output, data.output_index, 'output').summary, data.summary_index, 'summary');
        const expected = type === 'response.reasoning_summary_text.done' ? data.text : data.part.text;
        if (part.text !== expected) throw new Error(`${type} differs from the deltas`);
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        out.terminal = type;
        out.final = data.response;
        if (type !== 'response.failed' && canonical(withoutEncrypted(data.response.output)) !== canonical(withoutEncrypted(snap.output))) {
          throw new Error(`${type} output differs from the assembled output`);
        }
        break;
      default:
        break;
    }
  }
  return out;
}

/** The text an SDK would show as `output_text`. */
export function outputText(response: Json): string {
  return (response.output as Json[])
    .filter((i) => i.type === 'message')
    .flatMap((i) => (i.content as Json[]).filter((c) => c.type === 'output_text').map((c) => c.text as string))
    .join('');
}
