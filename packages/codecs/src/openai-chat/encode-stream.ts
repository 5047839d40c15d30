/** Canonical stream events → Chat Completions SSE text, as `openai` SDK clients expect it. */
import type { StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo, type ErrorInfo } from '../errors/gateway-error.js';
import type { BlockStart, StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import { sseEvent } from '../sse/parse.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { errorBody } from './errors.js';
import { encodeFinishReason } from './finish-reason.js';
import { chatCompletionId } from './schemas.js';
import { encodeUsage } from './usage.js';

type Write = (text: string) => void;

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  return new ChatStreamEncoder(options);
}

/** One object per stream; chunks are written as text directly, the same bytes `JSON.stringify` gives. */
class ChatStreamEncoder implements StreamEncoder {
  private readonly includeUsage: boolean;
  private id = chatCompletionId(undefined);
  private model: string;
  private created = 0;
  private started = false;
  private finished = false;
  private closed = false;
  private usage: Usage | undefined;
  /** Block kinds by IR index, kept once a block other than text started (only refusals matter). */
  private kinds: Map<number, BlockStart['kind']> | null = null;
  /** The OpenAI `tool_calls[].index` of each tool block. */
  private toolIndex: Map<number, number> | null = null;
  /** The envelope is the same on every chunk; only `choices` (and `usage`) differ. */
  private prefix = '';

  constructor(private readonly options: StreamEncoderOptions) {
    this.includeUsage = options.includeUsage ?? true;
    this.model = options.model ?? '';
    this.setPrefix();
  }

  private setPrefix(): void {
    this.prefix = `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.created},"model":${JSON.stringify(this.model)}`;
  }

  /** One chunk whose delta is `delta` (JSON text), as `JSON.stringify([{ index: 0, delta, finish_reason }])` would frame it. */
  private chunk(write: Write, delta: string, finishReason: string | null = null): void {
    const reason = finishReason === null ? 'null' : JSON.stringify(finishReason);
    write(`data: ${this.prefix},"choices":[{"index":0,"delta":${delta},"finish_reason":${reason}}]}\n\n`);
  }

  private start(write: Write, event?: Extract<StreamEvent, { type: 'message_start' }>): void {
    this.started = true;
    if (event !== undefined) {
      this.id = chatCompletionId(event.id);
      if (this.options.model === undefined) this.model = event.model;
      this.created = event.created ?? 0;
      if (event.usage !== undefined) this.usage = event.usage;
    }
    this.setPrefix();
    this.chunk(write, '{"role":"assistant","content":""}');
  }

  private error(write: Write, info: ErrorInfo): void {
    this.closed = true;
    write(sseEvent(JSON.stringify(errorBody(info))));
  }

  encode(event: StreamEvent, write: Write): void {
    if (this.closed) return;
    if (event.type === 'message_start') {
      if (!this.started) this.start(write, event);
      return;
    }
    if (event.type === 'error') return this.error(write, event.error);
    if (!this.started) this.start(write);
    switch (event.type) {
      case 'block_start': {
        const kind = event.block.kind;
        if (kind !== 'text' || this.kinds !== null) (this.kinds ??= new Map()).set(event.index, kind);
        if (event.block.kind === 'tool_call') {
          const toolIndex = (this.toolIndex ??= new Map());
          const k = toolIndex.size;
          toolIndex.set(event.index, k);
          this.chunk(
            write,
            JSON.stringify({
              tool_calls: [
                {
                  index: k,
                  id: foldSignature(event.block.id, event.block.thoughtSignature),
                  type: 'function',
                  function: { name: event.block.name, arguments: '' },
                },
              ],
            }),
          );
        }
        return;
      }
      case 'text_delta':
        if (event.text === '') return;
        this.chunk(
          write,
          this.kinds?.get(event.index) === 'refusal' ? `{"refusal":${JSON.stringify(event.text)}}` : `{"content":${JSON.stringify(event.text)}}`,
        );
        return;
      case 'reasoning_delta':
        if (event.text !== '') this.chunk(write, `{"reasoning_content":${JSON.stringify(event.text)}}`);
        return;
      case 'tool_args_delta': {
        const k = this.toolIndex?.get(event.index);
        if (k === undefined || event.delta === '') return;
        this.chunk(write, `{"tool_calls":[{"index":${k},"function":{"arguments":${JSON.stringify(event.delta)}}}]}`);
        return;
      }
      case 'finish':
        if (this.finished) return;
        this.finished = true;
        this.chunk(write, '{}', encodeFinishReason(event.finishReason));
        return;
      case 'usage':
        this.usage = event.usage;
        return;
      case 'message_stop':
        if (!this.finished) {
          this.finished = true;
          this.chunk(write, '{}', (this.toolIndex?.size ?? 0) > 0 ? 'tool_calls' : 'stop');
        }
        if (this.includeUsage && this.usage !== undefined) {
          write(sseEvent(`${this.prefix},"choices":[],"usage":${JSON.stringify(encodeUsage(this.usage))}}`));
        }
        this.closed = true;
        write(sseEvent('[DONE]'));
        return;
      // Signatures have no place in Chat Completions; block ends are implicit.
      case 'signature':
      case 'block_stop':
        return;
    }
  }

  end(write: Write): void {
    if (this.closed) return;
    this.error(write, errorInfo('stream_incomplete', 'The upstream stream ended before it was complete.', { status: 502 }));
  }
}
