/** Canonical stream events → Chat Completions SSE text, as `openai` SDK clients expect it. */
import type { StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo, type ErrorInfo } from '../errors/gateway-error.js';
import type { BlockStart, StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import { sseEvent } from '../sse/parse.js';
import { foldSignature } from '../shared/tool-call-id.js';
import type { JsonObject } from '../shared/guards.js';
import { errorBody } from './errors.js';
import { encodeFinishReason } from './finish-reason.js';
import { chatCompletionId } from './schemas.js';
import { encodeUsage } from './usage.js';

type Write = (text: string) => void;

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  const includeUsage = options.includeUsage ?? true;
  let id = chatCompletionId(undefined);
  let model = options.model ?? '';
  let created = 0;
  let started = false;
  let finished = false;
  let closed = false;
  let usage: Usage | undefined;
  /** Block kinds by IR index, and the OpenAI `tool_calls[].index` of each tool block. */
  const kinds = new Map<number, BlockStart['kind']>();
  const toolIndex = new Map<number, number>();

  // The envelope is the same on every chunk; only `choices` (and `usage`) differ.
  let prefix = '';
  const setPrefix = () => {
    prefix = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)}`;
  };
  setPrefix();

  const chunk = (write: Write, delta: JsonObject, finishReason: string | null = null) => {
    const choice = JSON.stringify([{ index: 0, delta, finish_reason: finishReason }]);
    write(sseEvent(`${prefix},"choices":${choice}}`));
  };

  const start = (write: Write, event?: Extract<StreamEvent, { type: 'message_start' }>) => {
    started = true;
    if (event !== undefined) {
      id = chatCompletionId(event.id);
      if (options.model === undefined) model = event.model;
      created = event.created ?? 0;
      if (event.usage !== undefined) usage = event.usage;
    }
    setPrefix();
    chunk(write, { role: 'assistant', content: '' });
  };

  const error = (write: Write, info: ErrorInfo) => {
    closed = true;
    write(sseEvent(JSON.stringify(errorBody(info))));
  };

  return {
    encode(event: StreamEvent, write: Write) {
      if (closed) return;
      if (event.type === 'message_start') {
        if (!started) start(write, event);
        return;
      }
      if (event.type === 'error') return error(write, event.error);
      if (!started) start(write);
      switch (event.type) {
        case 'block_start': {
          kinds.set(event.index, event.block.kind);
          if (event.block.kind === 'tool_call') {
            const k = toolIndex.size;
            toolIndex.set(event.index, k);
            chunk(write, {
              tool_calls: [
                {
                  index: k,
                  id: foldSignature(event.block.id, event.block.thoughtSignature),
                  type: 'function',
                  function: { name: event.block.name, arguments: '' },
                },
              ],
            });
          }
          return;
        }
        case 'text_delta':
          if (event.text === '') return;
          chunk(write, kinds.get(event.index) === 'refusal' ? { refusal: event.text } : { content: event.text });
          return;
        case 'reasoning_delta':
          if (event.text !== '') chunk(write, { reasoning_content: event.text });
          return;
        case 'tool_args_delta': {
          const k = toolIndex.get(event.index);
          if (k === undefined || event.delta === '') return;
          chunk(write, { tool_calls: [{ index: k, function: { arguments: event.delta } }] });
          return;
        }
        case 'finish':
          if (finished) return;
          finished = true;
          chunk(write, {}, encodeFinishReason(event.finishReason));
          return;
        case 'usage':
          usage = event.usage;
          return;
        case 'message_stop':
          if (!finished) {
            finished = true;
            chunk(write, {}, toolIndex.size > 0 ? 'tool_calls' : 'stop');
          }
          if (includeUsage && usage !== undefined) {
            write(sseEvent(`${prefix},"choices":[],"usage":${JSON.stringify(encodeUsage(usage))}}`));
          }
          closed = true;
          write(sseEvent('[DONE]'));
          return;
        // Signatures have no place in Chat Completions; block ends are implicit.
        case 'signature':
        case 'block_stop':
          return;
      }
    },
    end(write: Write) {
      if (closed) return;
      error(write, errorInfo('stream_incomplete', 'The upstream stream ended before it was complete.', { status: 502 }));
    },
  };
}
