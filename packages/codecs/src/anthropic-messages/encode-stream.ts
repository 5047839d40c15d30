/**
 * Canonical stream events → Anthropic Messages SSE, as `@anthropic-ai/sdk` expects it.
 *
 * Anthropic content blocks are strictly sequential (start, deltas, stop, next block); canonical
 * blocks may interleave (OpenAI sends text and tool calls in one delta, parallel tool calls by
 * index). So exactly one Anthropic block is open at a time, and:
 * - a text or reasoning block may be closed whenever another block needs to write; a later delta
 *   for it opens a continuation block of the same kind;
 * - a tool_use block, once open, stays open until its canonical block_stop (or the finish), so its
 *   arguments are never split across two tool_use blocks. While it is open, content for other
 *   blocks is buffered per block and written, in order, when it closes.
 * Blocks open lazily on their first content, so empty foreign reasoning never shows up.
 */
import type { StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { BlockStart, StreamEvent } from '../ir/stream-event.js';
import { emptyUsage, type Usage } from '../ir/usage.js';
import { sseEvent } from '../sse/parse.js';
import { foldSignature } from '../shared/tool-call-id.js';
import type { JsonObject } from '../shared/guards.js';
import { messageId, stopReasonFor } from './encode-response.js';
import { errorBody } from './errors.js';
import { encodeDeltaUsage, encodeUsage } from './usage.js';

type Write = (text: string) => void;

interface Block {
  start: BlockStart;
  kind: 'text' | 'thinking' | 'redacted' | 'tool_use';
  /** Canonical block_stop seen. */
  stopped: boolean;
  /** Opened on the Anthropic side at least once (a tool_use block only ever opens once). */
  opened: boolean;
  /** Waiting in the queue behind an open tool_use block. */
  queued: boolean;
  /** Content not yet written (text, thinking or tool arguments). */
  buffer: string;
  signature: string | undefined;
}

const DELTA_TYPE = { text: 'text_delta', thinking: 'thinking_delta', tool_use: 'input_json_delta' } as const;
const DELTA_FIELD = { text: 'text', thinking: 'thinking', tool_use: 'partial_json' } as const;

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  let started = false;
  let done = false;
  let nextIndex = 0;
  let current: { block: Block; index: number } | null = null;
  const blocks = new Map<number, Block>();
  const queue: Block[] = [];
  let finishReason: FinishReason | undefined;
  let stopSequence: string | null = null;
  let usage: Usage | undefined;
  let sawToolUse = false;

  const emit = (write: Write, type: string, data: JsonObject) => write(sseEvent(JSON.stringify(data), type));

  const start = (write: Write, id: string, model: string, startUsage: Usage | undefined) => {
    started = true;
    if (startUsage !== undefined) usage = startUsage;
    emit(write, 'message_start', {
      type: 'message_start',
      message: {
        id: messageId(id),
        type: 'message',
        role: 'assistant',
        model: options.model ?? model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: encodeUsage(startUsage ?? emptyUsage()),
      },
    });
  };

  /** A tool_use block that is still receiving arguments blocks every other block. */
  const blocked = () => current !== null && current.block.kind === 'tool_use' && !current.block.stopped;

  const closeCurrent = (write: Write) => {
    if (current === null) return;
    emit(write, 'content_block_stop', { type: 'content_block_stop', index: current.index });
    current = null;
  };

  const open = (write: Write, block: Block) => {
    closeCurrent(write);
    const index = nextIndex++;
    let contentBlock: JsonObject;
    const s = block.start;
    if (s.kind === 'tool_call') {
      contentBlock = { type: 'tool_use', id: foldSignature(s.id, s.thoughtSignature), name: s.name, input: {} };
      sawToolUse = true;
    } else if (block.kind === 'redacted') contentBlock = { type: 'redacted_thinking', data: s.kind === 'reasoning' ? (s.redactedData ?? '') : '' };
    else if (block.kind === 'thinking') contentBlock = { type: 'thinking', thinking: '', signature: '' };
    else contentBlock = { type: 'text', text: '' };
    emit(write, 'content_block_start', { type: 'content_block_start', index, content_block: contentBlock });
    block.opened = true;
    current = { block, index };
  };

  /** Write the block's buffered content into the open Anthropic block (which must be it). */
  const flushInto = (write: Write, block: Block) => {
    if (current === null || current.block !== block) return;
    if (block.buffer.length > 0 && block.kind !== 'redacted') {
      const kind = block.kind;
      emit(write, 'content_block_delta', {
        type: 'content_block_delta',
        index: current.index,
        delta: { type: DELTA_TYPE[kind], [DELTA_FIELD[kind]]: block.buffer },
      });
    }
    block.buffer = '';
    if (block.signature !== undefined && block.kind === 'thinking') {
      emit(write, 'content_block_delta', {
        type: 'content_block_delta',
        index: current.index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    }
    block.signature = undefined;
  };

  /** Write queued blocks, in order, for as long as no tool_use block is open and unfinished. */
  const drain = (write: Write, force: boolean) => {
    while (queue.length > 0 && (force || !blocked())) {
      const block = queue.shift()!;
      block.queued = false;
      if (block.kind === 'tool_use' && block.opened) continue;
      open(write, block);
      flushInto(write, block);
      if (block.stopped || force) closeCurrent(write);
    }
  };

  /** New content for a block: write it now, or buffer it behind the open tool_use block. */
  const content = (write: Write, block: Block) => {
    if (current !== null && current.block === block) return flushInto(write, block);
    if (block.queued) return;
    if (blocked()) {
      block.queued = true;
      queue.push(block);
      return;
    }
    if (block.kind === 'tool_use' && block.opened) {
      block.buffer = ''; // arguments after the block was closed cannot be placed; dropped
      return;
    }
    open(write, block);
    flushInto(write, block);
  };

  /** Close everything: the content is complete (finish, message_stop). */
  const flushAll = (write: Write) => {
    if (current !== null) {
      current.block.stopped = true;
      closeCurrent(write);
    }
    drain(write, true);
    // A tool call with no arguments that never saw its block_stop still reaches the client.
    for (const block of blocks.values()) {
      if (block.kind !== 'tool_use' || block.opened) continue;
      open(write, block);
      closeCurrent(write);
    }
  };

  const onBlockStart = (write: Write, index: number, s: BlockStart) => {
    let kind: Block['kind'];
    if (s.kind === 'tool_call') kind = 'tool_use';
    else if (s.kind === 'reasoning') {
      if (s.redactedData !== undefined && s.issuer !== 'anthropic') return; // foreign opaque reasoning: nothing to show
      kind = s.redactedData !== undefined ? 'redacted' : 'thinking';
    } else kind = 'text';
    const block: Block = { start: s, kind, stopped: false, opened: false, queued: false, buffer: '', signature: undefined };
    blocks.set(index, block);
    if (kind === 'redacted') content(write, block);
  };

  const onBlockStop = (write: Write, index: number) => {
    const block = blocks.get(index);
    if (block === undefined || block.stopped) return;
    block.stopped = true;
    if (current !== null && current.block === block) {
      closeCurrent(write);
      drain(write, false);
      return;
    }
    // Never opened: an empty tool call still has to reach the client; empty text or thinking need not.
    if (!block.opened && !block.queued && block.kind === 'tool_use') content(write, block);
  };

  const onDelta = (write: Write, index: number, kind: Block['kind'], text: string) => {
    const block = blocks.get(index);
    if (block === undefined || block.kind !== kind || text.length === 0) return;
    block.buffer += text;
    content(write, block);
  };

  const finishMessage = (write: Write) => {
    flushAll(write);
    const stopReason = finishReason === undefined ? (sawToolUse ? 'tool_use' : 'end_turn') : stopReasonFor(finishReason, sawToolUse);
    emit(write, 'message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: stopReason === 'stop_sequence' ? stopSequence : null },
      usage: encodeDeltaUsage(usage ?? emptyUsage()),
    });
    emit(write, 'message_stop', { type: 'message_stop' });
  };

  return {
    encode(event: StreamEvent, write: Write) {
      if (done) return;
      if (event.type === 'error') {
        done = true;
        emit(write, 'error', errorBody(event.error));
        return;
      }
      if (event.type === 'message_start') {
        if (!started) start(write, event.id, event.model, event.usage);
        return;
      }
      if (!started) start(write, '', '', undefined);
      switch (event.type) {
        case 'block_start':
          return onBlockStart(write, event.index, event.block);
        case 'text_delta': // refusal blocks stream as text too
          return onDelta(write, event.index, 'text', event.text);
        case 'reasoning_delta':
          return onDelta(write, event.index, 'thinking', event.text);
        case 'tool_args_delta':
          return onDelta(write, event.index, 'tool_use', event.delta);
        case 'signature': {
          const block = blocks.get(event.index);
          if (block === undefined || block.kind !== 'thinking' || event.issuer !== 'anthropic') return;
          block.signature = event.signature;
          content(write, block);
          return;
        }
        case 'block_stop':
          return onBlockStop(write, event.index);
        case 'finish':
          finishReason = event.finishReason;
          stopSequence = event.stopSequence ?? null;
          flushAll(write);
          return;
        case 'usage':
          usage = event.usage;
          return;
        case 'message_stop':
          done = true;
          finishMessage(write);
          return;
      }
    },
    end(write: Write) {
      if (done) return;
      done = true;
      emit(write, 'error', errorBody(errorInfo('stream_incomplete', 'The upstream stream ended before the message was complete.')));
    },
  };
}
