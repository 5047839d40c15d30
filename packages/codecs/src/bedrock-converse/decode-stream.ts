/**
 * ConverseStream events → canonical stream events. Synchronous, tolerant, never throws.
 *
 * Converse opens tool-use blocks with `contentBlockStart`; text and reasoning blocks begin with
 * their first delta. `messageStop` (the stop reason) comes before `metadata` (the usage), so the
 * canonical `message_stop` is emitted after the usage: on `metadata`, or at the end of input when
 * the stream closed right after `messageStop`.
 */
import type { StreamDecoder } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { SseMessage } from '../sse/parse.js';
import { asNumber, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { decodeStreamException } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { decodeUsage } from './usage.js';

type Emit = (event: StreamEvent) => void;
type Kind = 'text' | 'reasoning' | 'tool_call';

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let done = false;
  /** `messageStop` seen: the next `metadata` (or the end) completes the stream. */
  let stopped = false;
  let nextIndex = 0;
  /** Converse block index → IR block; absent for skipped blocks. */
  const blocks = new Map<number, { index: number; kind: Kind; open: boolean }>();

  const fail = (emit: Emit, message: string) => {
    done = true;
    emit({ type: 'error', error: errorInfo('upstream_error', message, { status: 502 }) });
  };
  const ensureStarted = (emit: Emit) => {
    if (started) return;
    started = true;
    emit({ type: 'message_start', id: '', model: '' });
  };
  const closeAll = (emit: Emit) => {
    for (const block of blocks.values()) {
      if (!block.open) continue;
      block.open = false;
      emit({ type: 'block_stop', index: block.index });
    }
  };
  const finish = (emit: Emit) => {
    done = true;
    closeAll(emit);
    emit({ type: 'message_stop' });
  };
  /** The IR block for a Converse index, opened as `kind` on first use. */
  const blockFor = (at: number, kind: Kind, emit: Emit, start?: Extract<StreamEvent, { type: 'block_start' }>['block']) => {
    const existing = blocks.get(at);
    if (existing !== undefined) return existing.open && existing.kind === kind ? existing : undefined;
    ensureStarted(emit);
    const block = { index: nextIndex++, kind, open: true };
    blocks.set(at, block);
    emit({ type: 'block_start', index: block.index, block: start ?? (kind === 'text' ? { kind: 'text' } : { kind: 'reasoning', issuer: 'anthropic' }) });
    return block;
  };

  const onBlockStart = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['contentBlockIndex']);
    const start = isObject(data['start']) ? data['start'] : undefined;
    const use = start !== undefined && isObject(start['toolUse']) ? start['toolUse'] : undefined;
    if (at === undefined || use === undefined) return; // other starts (tool results of server tools …) are skipped
    blockFor(at, 'tool_call', emit, { kind: 'tool_call', id: asString(use['toolUseId']) ?? '', name: asString(use['name']) ?? '', issuer: 'anthropic' });
  };

  const onBlockDelta = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['contentBlockIndex']);
    const delta = data['delta'];
    if (at === undefined || !isObject(delta)) return;
    const text = asString(delta['text']);
    if (text !== undefined) {
      const block = blockFor(at, 'text', emit);
      if (block !== undefined && text.length > 0) emit({ type: 'text_delta', index: block.index, text });
      return;
    }
    if (isObject(delta['toolUse'])) {
      const input = asString(delta['toolUse']['input']);
      const block = blocks.get(at);
      if (block !== undefined && block.open && block.kind === 'tool_call' && input !== undefined && input.length > 0) {
        emit({ type: 'tool_args_delta', index: block.index, delta: input });
      }
      return;
    }
    const reasoning = delta['reasoningContent'];
    if (isObject(reasoning)) {
      const redacted = asString(reasoning['redactedContent']);
      if (redacted !== undefined) {
        if (!blocks.has(at)) blockFor(at, 'reasoning', emit, { kind: 'reasoning', redactedData: redacted, issuer: 'anthropic' });
        return;
      }
      const block = blockFor(at, 'reasoning', emit);
      if (block === undefined) return;
      const thought = asString(reasoning['text']);
      if (thought !== undefined && thought.length > 0) emit({ type: 'reasoning_delta', index: block.index, text: thought });
      const signature = asString(reasoning['signature']);
      if (signature !== undefined && signature.length > 0) emit({ type: 'signature', index: block.index, signature, issuer: 'anthropic' });
    }
    // citation and image deltas carry nothing the IR holds
  };

  const onBlockStop = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['contentBlockIndex']);
    const block = at === undefined ? undefined : blocks.get(at);
    if (block === undefined || !block.open) return;
    block.open = false;
    emit({ type: 'block_stop', index: block.index });
  };

  return {
    push(message: SseMessage, emit: Emit) {
      if (done) return;
      if (message.exception === true) {
        done = true;
        emit({ type: 'error', error: decodeStreamException(message.event, message.data) });
        return;
      }
      const parsed = parseJson(message.data);
      if (!parsed.ok || !isObject(parsed.value)) {
        fail(emit, 'The upstream sent a stream event that is not a valid JSON object.');
        return;
      }
      const data = parsed.value;
      switch (message.event) {
        case 'messageStart':
          ensureStarted(emit);
          return;
        case 'contentBlockStart':
          return onBlockStart(data, emit);
        case 'contentBlockDelta':
          return onBlockDelta(data, emit);
        case 'contentBlockStop':
          return onBlockStop(data, emit);
        case 'messageStop':
          ensureStarted(emit);
          closeAll(emit);
          stopped = true;
          emit({ type: 'finish', finishReason: decodeFinishReason(data['stopReason']) });
          return;
        case 'metadata':
          ensureStarted(emit);
          if (isObject(data['usage'])) emit({ type: 'usage', usage: decodeUsage(data['usage']) });
          if (stopped) finish(emit);
          return;
        default:
          return; // event types this codec does not know
      }
    },
    end(emit: Emit) {
      if (done) return;
      if (stopped) {
        // The answer is whole; only the usage report is missing.
        finish(emit);
        return;
      }
      done = true;
      emit({ type: 'error', error: errorInfo('stream_incomplete', 'The upstream stream ended before the message was complete.') });
    },
  };
}
