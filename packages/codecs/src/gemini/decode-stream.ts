/**
 * Gemini `alt=sse` chunks → canonical stream events. Synchronous, tolerant, never throws.
 *
 * Every chunk is a whole GenerateContentResponse holding the next parts. Consecutive text parts
 * extend one text block, thought parts one reasoning block; each functionCall part is a complete
 * call (block_start, one arguments delta, block_stop). A `thoughtSignature` becomes a `signature`
 * event on the block of its part (and, on a function call, also rides on its block_start). There
 * is no terminal sentinel: the stream ends after the chunk with `finishReason`, so `end()` then
 * emits `message_stop`; an end before any finishReason is `stream_incomplete`.
 */
import type { StreamDecoder } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import type { SseMessage } from '../sse/parse.js';
import { asArray, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { callId, newCallIds, type CallIds } from './decode-parts.js';
import { blockedPrompt, blockedText } from './decode-response.js';
import { decodeErrorObject } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { field, objectField, stringField } from './schemas.js';
import { decodeUsage } from './usage.js';

type Emit = (event: StreamEvent) => void;

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let finished = false;
  let stopped = false;
  let nextIndex = 0;
  let sawToolCall = false;
  let current: { kind: 'text' | 'reasoning'; index: number } | undefined;
  let ids: CallIds = newCallIds();
  let lastUsage: Usage | undefined;

  const fail = (emit: Emit, message: string) => {
    stopped = true;
    emit({ type: 'error', error: errorInfo('upstream_error', message, { status: 502 }) });
  };

  const closeCurrent = (emit: Emit) => {
    if (current === undefined) return;
    emit({ type: 'block_stop', index: current.index });
    current = undefined;
  };

  const block = (emit: Emit, kind: 'text' | 'reasoning'): number => {
    if (current !== undefined && current.kind === kind) return current.index;
    closeCurrent(emit);
    const index = nextIndex++;
    emit({ type: 'block_start', index, block: kind === 'reasoning' ? { kind: 'reasoning', issuer: 'google' } : { kind: 'text' } });
    current = { kind, index };
    return index;
  };

  const onPart = (emit: Emit, part: JsonObject) => {
    const sig = stringField(part, 'thoughtSignature');
    const signature = sig !== undefined && sig.length > 0 ? sig : undefined;
    const call = objectField(part, 'functionCall');
    if (call !== undefined) {
      const name = asString(call['name']) ?? '';
      closeCurrent(emit);
      sawToolCall = true;
      const index = nextIndex++;
      const start: StreamEvent = { type: 'block_start', index, block: { kind: 'tool_call', id: callId(ids, name, asString(call['id'])), name } };
      if (signature !== undefined && start.block.kind === 'tool_call') start.block.thoughtSignature = signature;
      emit(start);
      if (signature !== undefined) emit({ type: 'signature', index, signature, issuer: 'google' });
      emit({ type: 'tool_args_delta', index, delta: JSON.stringify(isObject(call['args']) ? call['args'] : {}) });
      emit({ type: 'block_stop', index });
      return;
    }
    const text = part['text'];
    if (typeof text !== 'string') return; // inline images, executable code, …: nothing the IR streams
    const thought = part['thought'] === true;
    if (text.length === 0 && signature === undefined) return;
    const index = block(emit, thought ? 'reasoning' : 'text');
    if (signature !== undefined) emit({ type: 'signature', index, signature, issuer: 'google' });
    if (text.length > 0) emit(thought ? { type: 'reasoning_delta', index, text } : { type: 'text_delta', index, text });
  };

  const onChunk = (emit: Emit, chunk: JsonObject) => {
    if (!started) {
      started = true;
      const id = asString(chunk['responseId']) ?? '';
      ids = newCallIds(id.length > 0 ? id : undefined);
      emit({ type: 'message_start', id, model: asString(chunk['modelVersion']) ?? '' });
    }
    // The usage of a chunk already counts its parts: it goes first, so an encoder writing this
    // chunk's content can carry it.
    const usage = decodeUsage(field(chunk, 'usageMetadata'));
    if (usage !== null && !sameUsage(usage, lastUsage)) {
      lastUsage = usage;
      emit({ type: 'usage', usage });
    }
    const candidates = asArray(chunk['candidates']) ?? [];
    const candidate = isObject(candidates[0]) ? candidates[0] : undefined;
    if (candidate !== undefined && !finished) {
      const content = isObject(candidate['content']) ? candidate['content'] : {};
      for (const part of asArray(content['parts']) ?? []) if (isObject(part)) onPart(emit, part);
      const reason = stringField(candidate, 'finishReason');
      if (reason !== undefined && reason.length > 0) {
        closeCurrent(emit);
        finished = true;
        emit({ type: 'finish', finishReason: decodeFinishReason(reason, sawToolCall) });
      }
    }
    const blocked = blockedPrompt(chunk);
    if (candidate === undefined && blocked !== undefined && !finished) {
      closeCurrent(emit);
      const index = nextIndex++;
      emit({ type: 'block_start', index, block: { kind: 'refusal' } });
      emit({ type: 'text_delta', index, text: blockedText(blocked) });
      emit({ type: 'block_stop', index });
      finished = true;
      emit({ type: 'finish', finishReason: { unified: 'content_filter', raw: asString(blocked['blockReason']) ?? null } });
    }
  };

  return {
    push(message: SseMessage, emit: Emit) {
      if (stopped) return;
      if (message.data.trim().length === 0) return;
      const parsed = parseJson(message.data);
      if (!parsed.ok || !isObject(parsed.value)) {
        fail(emit, 'The upstream sent a stream chunk that is not a valid JSON object.');
        return;
      }
      const chunk = parsed.value;
      if (isObject(chunk['error'])) {
        stopped = true;
        emit({ type: 'error', error: decodeErrorObject(chunk['error']) });
        return;
      }
      onChunk(emit, chunk);
    },
    end(emit: Emit) {
      if (stopped) return;
      stopped = true;
      if (!finished) {
        emit({ type: 'error', error: errorInfo('stream_incomplete', 'The upstream stream ended before the response was complete.') });
        return;
      }
      closeCurrent(emit);
      emit({ type: 'message_stop' });
    },
  };
}

function sameUsage(a: Usage, b: Usage | undefined): boolean {
  return (
    b !== undefined &&
    a.input === b.input &&
    a.output === b.output &&
    a.cacheRead === b.cacheRead &&
    a.cacheWrite === b.cacheWrite &&
    a.cacheWrite1h === b.cacheWrite1h &&
    a.reasoning === b.reasoning
  );
}
