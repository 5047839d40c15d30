import { convertStreamWith, type Codec, type StreamEvent } from '@tollgate/codecs/base';
import type { RequestContext } from './context.js';
import { utf8Length } from './sizing.js';

export type StreamOutcome = 'completed' | 'cancelled' | 'failed';

export interface RelayOptions {
  /** The codecs of the upstream's format and of the caller's. */
  upstreamCodec: Codec;
  entryCodec: Codec;
  /** The model name the client asked for, shown in the converted stream. */
  clientModel?: string;
  includeUsage: boolean;
  /** Called exactly once when the stream ends, whatever the reason. Must not throw. */
  onEnd(outcome: StreamOutcome): void;
  maxEventBytes?: number;
}

/** Watches canonical events as they pass: usage, tools invoked, output relayed, upstream errors. */
export function tapEvents(ctx: RequestContext): (event: StreamEvent) => void {
  const toolBlocks = new Set<number>();
  return (event) => {
    switch (event.type) {
      case 'usage':
        ctx.usage = event.usage;
        break;
      case 'block_start':
        if (event.block.kind === 'tool_call') {
          toolBlocks.add(event.index);
          ctx.toolsInvoked.add(event.block.name);
        }
        break;
      case 'text_delta':
      case 'reasoning_delta':
        ctx.outputDeltas++;
        ctx.outputBytes += utf8Length(event.text);
        break;
      case 'tool_args_delta':
        ctx.outputDeltas++;
        ctx.outputBytes += utf8Length(event.delta);
        break;
      case 'message_stop':
        ctx.streamCompleted = true;
        break;
      case 'error':
        ctx.streamError = event.error.code;
        break;
      default:
        break;
    }
  };
}

/**
 * Relay an upstream stream to the client through the codecs, chunk by chunk. Pull-based, so a
 * slow client slows the upstream read; a client cancel cancels the upstream within one chunk.
 */
export function relayStream(upstream: ReadableStream<Uint8Array>, ctx: RequestContext, options: RelayOptions): ReadableStream<Uint8Array> {
  const convertOptions: Parameters<typeof convertStreamWith>[3] = { includeUsage: options.includeUsage, onEvent: tapEvents(ctx) };
  if (options.clientModel !== undefined) convertOptions.model = options.clientModel;
  if (options.maxEventBytes !== undefined) convertOptions.maxEventBytes = options.maxEventBytes;
  const converted = convertStreamWith(upstream, options.upstreamCodec, options.entryCodec, convertOptions);
  const reader = converted.getReader();
  let ended = false;
  const end = (outcome: StreamOutcome) => {
    if (ended) return;
    ended = true;
    options.onEnd(outcome);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch {
          end('failed');
          controller.error(new Error('upstream stream failed'));
          return;
        }
        if (result.done) {
          controller.close();
          end(ctx.streamCompleted && ctx.streamError === null ? 'completed' : 'failed');
          return;
        }
        ctx.markFirstByte();
        controller.enqueue(result.value);
      },
      async cancel(reason) {
        if (ctx.streamError === null && !ctx.streamCompleted) ctx.clientCancelled = true;
        end('cancelled');
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
