/**
 * Test harness for openai_chat: the shared stream driver (`src/__tests__/harness.ts`) bound to this
 * format's decoder and encoder, and folds canonical events the way a Chat Completions client would, checking the grammar.
 */
import type { StreamEvent } from '../../ir/stream-event.js';
import { createSseReader } from '../../sse/parse.js';
import { streamHarness } from '../../__tests__/harness.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

export { bytes, sliceAt, type PipeOptions } from '../../__tests__/harness.js';

export const harness = streamHarness({ createStreamDecoder, createStreamEncoder });
export const { decodeChunks, decodeText, encodeEvents, reencodeChunks, reencodeText } = harness;

/** The name test/openai-chat-sdk.test.ts knows `reencodeChunks` by. */
export const translateChunks = reencodeChunks;

/** The JSON payloads of an SSE text (`[DONE]` kept as the string). */
export function payloads(sse: string): unknown[] {
  const out: unknown[] = [];
  const reader = createSseReader(
    (m) => out.push(m.data === '[DONE]' ? '[DONE]' : JSON.parse(m.data)),
    () => {},
  );
  reader.feed(sse);
  reader.end();
  return out;
}

export interface Assembled {
  id?: string;
  model?: string;
  created?: number;
  text: string;
  reasoning: string;
  refusal: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish?: string;
  finishRaw?: string | null;
  usage?: unknown;
  end?: 'message_stop' | 'error';
  error?: unknown;
}

/**
 * Fold canonical events into what a client would assemble, checking the event grammar on the
 * way: one message_start first, deltas only inside open blocks, every block stopped before the
 * finish, nothing after the terminal event.
 */
export function assemble(events: StreamEvent[]): Assembled {
  const out: Assembled = { text: '', reasoning: '', refusal: '', toolCalls: [] };
  const open = new Map<number, { kind: string; call?: { id: string; name: string; arguments: string } }>();
  const seen = new Set<number>();
  events.forEach((event, i) => {
    if (out.end !== undefined) throw new Error(`event ${i} (${event.type}) after the terminal event`);
    if (i === 0 && event.type !== 'message_start' && event.type !== 'error') throw new Error(`first event is ${event.type}`);
    switch (event.type) {
      case 'message_start':
        if (i !== 0) throw new Error('message_start twice');
        out.id = event.id;
        out.model = event.model;
        if (event.created !== undefined) out.created = event.created;
        break;
      case 'block_start': {
        if (seen.has(event.index)) throw new Error(`block ${event.index} started twice`);
        seen.add(event.index);
        const block: { kind: string; call?: { id: string; name: string; arguments: string } } = { kind: event.block.kind };
        if (event.block.kind === 'tool_call') {
          block.call = { id: event.block.id, name: event.block.name, arguments: '' };
          out.toolCalls.push(block.call);
        }
        open.set(event.index, block);
        break;
      }
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_args_delta': {
        const block = open.get(event.index);
        if (block === undefined) throw new Error(`${event.type} for block ${event.index} that is not open`);
        if (event.type === 'tool_args_delta') block.call!.arguments += event.delta;
        else if (event.type === 'reasoning_delta') out.reasoning += event.text;
        else if (block.kind === 'refusal') out.refusal += event.text;
        else out.text += event.text;
        break;
      }
      case 'block_stop':
        if (!open.delete(event.index)) throw new Error(`block_stop for block ${event.index} that is not open`);
        break;
      case 'finish':
        if (open.size > 0) throw new Error('finish with open blocks');
        out.finish = event.finishReason.unified;
        out.finishRaw = event.finishReason.raw;
        break;
      case 'usage':
        out.usage = event.usage;
        break;
      case 'message_stop':
        if (out.finish === undefined) throw new Error('message_stop without finish');
        out.end = 'message_stop';
        break;
      case 'error':
        out.end = 'error';
        out.error = event.error;
        break;
      case 'signature':
        break;
    }
  });
  return out;
}
