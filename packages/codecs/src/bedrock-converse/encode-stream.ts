/**
 * Canonical stream events → ConverseStream event-stream frames (written as bytes). Blocks are
 * renumbered densely (a block with nothing to show a Bedrock client takes no index); the usage is
 * held until `message_stop` and sent in the closing `metadata` event, after `messageStop`.
 */
import type { StreamEncoder, StreamEncoderOptions, StreamWrite } from '../codec.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { stopReasonFor } from './encode-response.js';
import { streamException } from './errors.js';
import { createEventStreamTextFramer } from './event-stream.js';
import { eventFrame as frameOf, eventHeaders, exceptionFrame } from './framing.js';
import { encodeUsage } from './usage.js';

type BlockStart = Extract<StreamEvent, { type: 'block_start' }>['block'];

interface Block {
  /** The contentBlockIndex the client sees. */
  at: number;
  start: BlockStart;
  open: boolean;
}

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  void options; // Converse streams name no model
  let started = false;
  let closed = false;
  let stopSent = false;
  let nextAt = 0;
  let toolCalls = false;
  let usage: Usage | undefined;
  const blocks = new Map<number, Block>();
  // Frames are written one after another into buffers of this stream's own.
  const framer = createEventStreamTextFramer();
  const deltaHeaders = eventHeaders('contentBlockDelta');
  const eventFrame = (type: string, payload: unknown) => frameOf(type, payload, framer);
  /** A delta whose payload is `{"contentBlockIndex":at,"delta":{<prefix>STRING<suffix>}}`, the JSON written directly. */
  const stringDelta = (write: StreamWrite, block: Block, prefix: string, value: string, suffix: string) => {
    write(framer.frame(deltaHeaders, `{"contentBlockIndex":${block.at},"delta":{${prefix}${JSON.stringify(value)}${suffix}}}`));
  };

  const start = (write: StreamWrite) => {
    if (started) return;
    started = true;
    write(eventFrame('messageStart', { role: 'assistant' }));
  };
  const stopBlock = (write: StreamWrite, block: Block) => {
    if (!block.open) return;
    block.open = false;
    write(eventFrame('contentBlockStop', { contentBlockIndex: block.at }));
  };
  const delta = (write: StreamWrite, block: Block, value: unknown) => {
    write(eventFrame('contentBlockDelta', { contentBlockIndex: block.at, delta: value }));
  };
  const sendStop = (write: StreamWrite, reason: FinishReason) => {
    if (stopSent) return;
    stopSent = true;
    for (const block of blocks.values()) stopBlock(write, block);
    write(eventFrame('messageStop', { stopReason: stopReasonFor(reason, toolCalls) }));
  };

  const onBlockStart = (write: StreamWrite, index: number, s: BlockStart) => {
    start(write);
    // Opaque reasoning of another vendor has nothing a Bedrock client can show or send back.
    if (s.kind === 'reasoning' && s.redactedData !== undefined && s.issuer !== 'anthropic') return;
    const block: Block = { at: nextAt++, start: s, open: true };
    blocks.set(index, block);
    if (s.kind === 'tool_call') {
      toolCalls = true;
      write(
        eventFrame('contentBlockStart', {
          contentBlockIndex: block.at,
          start: { toolUse: { toolUseId: foldSignature(s.id, s.thoughtSignature), name: s.name } },
        }),
      );
    } else if (s.kind === 'reasoning' && s.redactedData !== undefined) {
      delta(write, block, { reasoningContent: { redactedContent: s.redactedData } });
    }
  };

  return {
    encode(event: StreamEvent, write: StreamWrite) {
      if (closed) return;
      switch (event.type) {
        case 'message_start':
          if (event.usage !== undefined) usage = event.usage;
          start(write);
          return;
        case 'block_start':
          return onBlockStart(write, event.index, event.block);
        case 'text_delta': {
          const block = blocks.get(event.index);
          if (block !== undefined && block.open && event.text.length > 0) stringDelta(write, block, '"text":', event.text, '');
          return;
        }
        case 'reasoning_delta': {
          const block = blocks.get(event.index);
          if (block !== undefined && block.open && event.text.length > 0) delta(write, block, { reasoningContent: { text: event.text } });
          return;
        }
        case 'tool_args_delta': {
          const block = blocks.get(event.index);
          if (block !== undefined && block.open && event.delta.length > 0) stringDelta(write, block, '"toolUse":{"input":', event.delta, '}');
          return;
        }
        case 'signature': {
          const block = blocks.get(event.index);
          // Only Claude's signatures can go back to Bedrock; others are never shown.
          if (block === undefined || !block.open || block.start.kind !== 'reasoning' || event.issuer !== 'anthropic') return;
          delta(write, block, { reasoningContent: { signature: event.signature } });
          return;
        }
        case 'block_stop': {
          const block = blocks.get(event.index);
          if (block !== undefined) stopBlock(write, block);
          return;
        }
        case 'finish':
          start(write);
          sendStop(write, event.finishReason);
          return;
        case 'usage':
          usage = event.usage;
          return;
        case 'message_stop':
          start(write);
          sendStop(write, { unified: 'stop', raw: null });
          write(eventFrame('metadata', { usage: encodeUsage(usage), metrics: { latencyMs: 0 } }));
          closed = true;
          return;
        case 'error': {
          const exception = streamException(event.error);
          write(exceptionFrame(exception.type, exception.body));
          closed = true;
          return;
        }
      }
    },
    end() {
      // A stream that ends without message_stop or error is reported by the converter (decoder.end).
    },
  };
}
