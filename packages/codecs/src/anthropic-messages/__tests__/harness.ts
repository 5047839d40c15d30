/**
 * Test harness for anthropic_messages: the shared stream driver (`src/__tests__/harness.ts`) bound to this
 * format's decoder and encoder, and assembles Anthropic SSE strictly, the way `@anthropic-ai/sdk` does.
 */
import { parseSse, streamHarness } from '../../__tests__/harness.js';
import { createStreamDecoder } from '../decode-stream.js';
import { createStreamEncoder } from '../encode-stream.js';

export { bytes, parseSse, sliceAt, type PipeOptions } from '../../__tests__/harness.js';

export const harness = streamHarness({ createStreamDecoder, createStreamEncoder });
export const { decodeChunks, decodeText, encodeEvents, reencodeChunks, reencodeText } = harness;

export interface Assembled {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stop_reason: unknown;
  stop_sequence: unknown;
  usage: Record<string, unknown>;
  error?: Record<string, unknown>;
}

/**
 * Assemble an Anthropic stream the way `@anthropic-ai/sdk` does (MessageStream), strictly:
 * it throws on an out-of-order event, a delta for a block that is not open, or a wrong delta type.
 */
export function assemble(text: string, options: { skipUnknownBlocks?: boolean } = {}): Assembled {
  let message: Assembled | undefined;
  let open: number | null = null;
  const skipped = new Set<number>();
  const json = new Map<number, string>();
  const events = parseSse(text);
  for (const { event, data } of events) {
    if (event !== data['type']) throw new Error(`event name ${String(event)} != payload type ${String(data['type'])}`);
    if (data['type'] === 'ping') continue;
    if (data['type'] === 'error') {
      if (message === undefined) throw new Error('error before message_start');
      message.error = data['error'] as Record<string, unknown>;
      return message;
    }
    if (data['type'] === 'message_start') {
      if (message !== undefined) throw new Error('second message_start');
      const m = data['message'] as Record<string, unknown>;
      message = { ...(m as unknown as Assembled), content: [], usage: { ...(m['usage'] as Record<string, unknown>) } };
      continue;
    }
    if (message === undefined) throw new Error(`${String(data['type'])} before message_start`);
    const index = data['index'] as number;
    switch (data['type']) {
      case 'content_block_start': {
        const block = data['content_block'] as Record<string, unknown>;
        const known = ['text', 'thinking', 'redacted_thinking', 'tool_use'].includes(block['type'] as string);
        if (options.skipUnknownBlocks === true && !known) {
          skipped.add(index);
          break;
        }
        if (open !== null) throw new Error(`block ${index} started while ${open} is open`);
        if (index !== message.content.length + skipped.size) throw new Error(`block index ${index} out of order`);
        message.content.push({ ...block });
        open = index;
        break;
      }
      case 'content_block_delta': {
        if (skipped.has(index)) break;
        if (open !== index) throw new Error(`delta for block ${index} while ${String(open)} is open`);
        const block = message.content[message.content.length - 1]!;
        const delta = data['delta'] as Record<string, unknown>;
        if (delta['type'] === 'text_delta' && block['type'] === 'text') block['text'] = `${block['text'] as string}${delta['text'] as string}`;
        else if (delta['type'] === 'thinking_delta' && block['type'] === 'thinking')
          block['thinking'] = `${block['thinking'] as string}${delta['thinking'] as string}`;
        else if (delta['type'] === 'signature_delta' && block['type'] === 'thinking') block['signature'] = delta['signature'];
        else if (delta['type'] === 'input_json_delta' && block['type'] === 'tool_use')
          json.set(index, (json.get(index) ?? '') + (delta['partial_json'] as string));
        else if (delta['type'] === 'citations_delta') break;
        else throw new Error(`delta ${String(delta['type'])} for a ${String(block['type'])} block`);
        break;
      }
      case 'content_block_stop': {
        if (skipped.has(index)) break;
        if (open !== index) throw new Error(`stop for block ${index} while ${String(open)} is open`);
        const block = message.content[message.content.length - 1]!;
        const args = json.get(index);
        if (block['type'] === 'tool_use' && args !== undefined && args.length > 0) block['input'] = JSON.parse(args);
        open = null;
        break;
      }
      case 'message_delta': {
        const delta = data['delta'] as Record<string, unknown>;
        message.stop_reason = delta['stop_reason'];
        message.stop_sequence = delta['stop_sequence'];
        Object.assign(message.usage, data['usage'] as Record<string, unknown>);
        break;
      }
      case 'message_stop':
        if (open !== null) throw new Error('message_stop with an open block');
        return message;
      default:
        break;
    }
  }
  throw new Error('stream ended without message_stop or error');
}
