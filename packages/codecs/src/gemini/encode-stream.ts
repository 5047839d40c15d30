/**
 * Canonical stream events → Gemini `alt=sse` chunks, as `@google/genai` reads them.
 *
 * One `data:` chunk (CRLF CRLF framed, like Google's) per text or thought delta. A function call
 * is written whole when its block stops (Gemini never streams arguments), so only that call's
 * arguments are buffered. The last chunk carries `finishReason` and `usageMetadata`; the stream
 * then simply ends. Google signatures ride on the next part of their block; other vendors'
 * signatures are never sent to a Gemini client. An error ends the stream as Google's do: the
 * error body itself, pretty-printed, outside SSE framing and with no blank line after it; that
 * is what `@google/genai` turns into an `ApiError` (or, when it arrives in one read with the
 * chunks before it, into its "incomplete JSON segment" error) instead of a quiet end.
 */
import type { StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import { isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { functionCallPart } from './encode-parts.js';
import { errorBody } from './errors.js';
import { encodeFinishReason } from './finish-reason.js';
import { sseData } from './schemas.js';
import { encodeUsage } from './usage.js';

type Write = (text: string) => void;

interface Block {
  kind: 'text' | 'reasoning' | 'tool_call';
  /** A google signature waiting for the block's next part. */
  signature: string | undefined;
  stopped: boolean;
  tool?: { id: string; name: string; args: string };
}

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  let done = false;
  let responseId = '';
  let model = options.model ?? '';
  let usage: Usage | undefined;
  let finishReason: FinishReason | undefined;
  const blocks = new Map<number, Block>();

  const chunk = (write: Write, parts: JsonObject[], finish?: string) => {
    const candidate: JsonObject = { content: { parts, role: 'model' } };
    if (finish !== undefined) candidate['finishReason'] = finish;
    candidate['index'] = 0;
    const body: JsonObject = { candidates: [candidate] };
    if (usage !== undefined) body['usageMetadata'] = encodeUsage(usage);
    body['modelVersion'] = model;
    body['responseId'] = responseId;
    write(sseData(JSON.stringify(body)));
  };

  const withSignature = (block: Block, part: JsonObject): JsonObject => {
    if (block.signature !== undefined) {
      part['thoughtSignature'] = block.signature;
      block.signature = undefined;
    }
    return part;
  };

  /** Write what a block still holds: a whole function call, or a signature with no part to ride on. */
  const flushBlock = (write: Write, block: Block) => {
    if (block.tool !== undefined) {
      const parsed = parseJson(block.tool.args.trim().length === 0 ? '{}' : block.tool.args);
      const args = parsed.ok && isObject(parsed.value) ? parsed.value : {};
      chunk(write, [functionCallPart(block.tool.id, block.tool.name, args, block.signature)]);
      block.tool = undefined;
      block.signature = undefined;
    } else if (block.signature !== undefined) {
      chunk(write, [withSignature(block, block.kind === 'reasoning' ? { text: '', thought: true } : { text: '' })]);
    }
  };

  const error = (write: Write, event: Extract<StreamEvent, { type: 'error' }>) => {
    done = true;
    write(`${JSON.stringify(errorBody(event.error), null, 2)}\n`);
  };

  return {
    encode(event: StreamEvent, write: Write) {
      if (done) return;
      switch (event.type) {
        case 'message_start':
          responseId = event.id;
          if (options.model === undefined) model = event.model;
          if (event.usage !== undefined) usage = event.usage;
          return;
        case 'block_start': {
          const b = event.block;
          const block: Block = { kind: b.kind === 'refusal' ? 'text' : b.kind, signature: undefined, stopped: false };
          if (b.kind === 'tool_call') {
            block.tool = { id: b.id, name: b.name, args: '' };
            block.signature = b.thoughtSignature;
          }
          blocks.set(event.index, block);
          return;
        }
        case 'text_delta':
        case 'reasoning_delta': {
          const block = blocks.get(event.index);
          if (block === undefined || block.kind === 'tool_call' || event.text.length === 0) return;
          chunk(write, [withSignature(block, block.kind === 'reasoning' ? { text: event.text, thought: true } : { text: event.text })]);
          return;
        }
        case 'tool_args_delta': {
          const tool = blocks.get(event.index)?.tool;
          if (tool !== undefined) tool.args += event.delta;
          return;
        }
        case 'signature': {
          const block = blocks.get(event.index);
          if (block === undefined || event.issuer !== 'google') return; // never hand one vendor's signature to another
          if (block.tool === undefined && block.kind === 'tool_call') return; // the call was already written
          block.signature = event.signature;
          return;
        }
        case 'block_stop': {
          const block = blocks.get(event.index);
          if (block === undefined || block.stopped) return;
          block.stopped = true;
          flushBlock(write, block);
          return;
        }
        case 'finish':
          finishReason = event.finishReason;
          return;
        case 'usage':
          usage = event.usage;
          return;
        case 'message_stop': {
          done = true;
          for (const block of blocks.values()) flushBlock(write, block);
          const hasTools = [...blocks.values()].some((b) => b.kind === 'tool_call');
          const reason = finishReason ?? { unified: hasTools ? 'tool_calls' : 'stop', raw: null };
          chunk(write, [{ text: '' }], encodeFinishReason(reason));
          return;
        }
        case 'error':
          error(write, event);
          return;
      }
    },
    end(write: Write) {
      if (done) return;
      error(write, { type: 'error', error: errorInfo('stream_incomplete', 'The upstream stream ended before the response was complete.') });
    },
  };
}
