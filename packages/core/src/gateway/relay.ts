import { convertStreamChunks, type Codec, type Issuer, type StreamEvent, type WireFormat } from '@tollgate/codecs/base';
import type { RequestContext } from './context.js';
import type { BodySource } from './request.js';
import { utf8Length } from './sizing.js';

export type StreamOutcome = 'completed' | 'cancelled' | 'failed';

export interface RelayOptions {
  /** The codecs of the upstream's format and of the caller's. */
  upstreamCodec: Codec;
  entryCodec: Codec;
  /** The model name the client asked for, shown in the converted stream. */
  clientModel?: string;
  includeUsage: boolean;
  /** The stream is translated (not relayed as it came): opaque values the client cannot carry are counted. */
  translated?: boolean;
  /** Called exactly once when the stream ends, whatever the reason. Must not throw. */
  onEnd(outcome: StreamOutcome): void;
  maxEventBytes?: number;
  /** The client's signal: an abort before the stream's outcome was seen is its cancel (`noteClientAbort`). */
  clientSignal?: AbortSignal;
  /** Rewrites events before they are encoded (the output guard). */
  transform?: (event: StreamEvent, emit: (event: StreamEvent) => void) => void;
}

/**
 * The vendor whose opaque reasoning values (signatures, redacted or encrypted reasoning) each
 * format can carry back: Chat Completions carries none.
 */
const OPAQUE_CARRIER: Readonly<Record<WireFormat, Issuer | null>> = {
  openai_chat: null,
  openai_responses: 'openai',
  anthropic_messages: 'anthropic',
  anthropic_vertex: 'anthropic',
  gemini_generate_content: 'google',
  bedrock_converse: 'anthropic',
};

/** Watches canonical events as they pass: usage, tools invoked, output relayed, upstream errors. */
export function tapEvents(ctx: RequestContext, translated = false, clientSignal: AbortSignal | null = null): (event: StreamEvent) => void {
  const toolBlocks = new Set<number>();
  const carrier = ctx.entryFormat === null ? null : OPAQUE_CARRIER[ctx.entryFormat];
  // Gemini thought signatures on tool calls travel folded into the call ids: never a drop.
  const drops = (issuer: Issuer | undefined) => translated && issuer !== undefined && issuer !== carrier;
  return (event) => {
    switch (event.type) {
      case 'signature':
        if (drops(event.issuer) && !toolBlocks.has(event.index)) ctx.streamDrops++;
        break;
      case 'usage':
        ctx.usage = event.usage;
        break;
      case 'block_start':
        if (event.block.kind === 'tool_call') {
          toolBlocks.add(event.index);
          ctx.toolsInvoked.add(event.block.name);
        } else if (
          event.block.kind === 'reasoning' &&
          (event.block.redactedData !== undefined || event.block.encryptedContent !== undefined) &&
          drops(event.block.issuer)
        ) {
          ctx.streamDrops++;
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
        ctx.noteClientAbort(clientSignal);
        ctx.streamCompleted = true;
        break;
      case 'error':
        ctx.noteClientAbort(clientSignal);
        ctx.streamError = event.error.code;
        break;
      default:
        break;
    }
  };
}

/**
 * Relay an upstream stream to the client through the codecs, chunk by chunk. Pull-based, so a
 * slow client slows the upstream read; a client cancel (`return()`) cancels the upstream within
 * one chunk. The converted chunks are handed on as is: the taps ride on the event and close hooks.
 */
export function relayStream(upstream: BodySource, ctx: RequestContext, options: RelayOptions): AsyncIterableIterator<Uint8Array> {
  const tap = tapEvents(ctx, options.translated === true, options.clientSignal ?? null);
  const convertOptions: Parameters<typeof convertStreamChunks>[3] = {
    includeUsage: options.includeUsage,
    onEvent(event) {
      ctx.markFirstByte();
      tap(event);
    },
    onClose(how) {
      if (how === 'cancelled') {
        if (ctx.streamError === null && !ctx.streamCompleted) ctx.clientCancelled = true;
        options.onEnd('cancelled');
      } else options.onEnd(ctx.streamCompleted && ctx.streamError === null ? 'completed' : 'failed');
    },
  };
  if (options.clientModel !== undefined) convertOptions.model = options.clientModel;
  if (options.maxEventBytes !== undefined) convertOptions.maxEventBytes = options.maxEventBytes;
  if (options.transform !== undefined) convertOptions.transform = options.transform;
  return convertStreamChunks(upstream, options.upstreamCodec, options.entryCodec, convertOptions);
}
