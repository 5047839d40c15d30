/**
 * Chat Completions stream chunks → canonical stream events, one SSE message at a time.
 *
 * Tolerant by design: invalid JSON, a non-object chunk or an `{ "error": … }` chunk become one
 * `error` event (and the stream stops there); unknown shapes are ignored; a stream that ends
 * before `data: [DONE]` is reported as `stream_incomplete`. Handles the deviations real servers
 * produce: usage on a chunk that still has choices, text and tool calls in one delta, empty
 * `choices`, choices without a delta.
 */
import type { StreamDecoder } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { SseMessage } from '../sse/parse.js';
import { asNumber, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { decodeError } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { isErrorChunk, toolCallDelta } from './schemas.js';
import { decodeUsage } from './usage.js';

type Emit = (event: StreamEvent) => void;
type TextKind = 'text' | 'refusal' | 'reasoning';

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let finished = false;
  /** [DONE] seen or an error emitted: nothing more is decoded. */
  let stopped = false;
  let nextIndex = 0;
  /** The open text-like block (text, refusal, reasoning): another kind of block closes it. */
  let current: { key: TextKind; index: number } | undefined;
  /**
   * Tool calls by their wire `index`. They stay open until the finish: servers may interleave
   * argument fragments of parallel calls, and a fragment must reach its block before it stops.
   */
  const tools = new Map<number | string, number>();
  const openTools: number[] = [];

  const fail = (emit: Emit, message: string) => {
    stopped = true;
    emit({ type: 'error', error: errorInfo('upstream_error', message, { status: 502 }) });
  };

  const closeCurrent = (emit: Emit) => {
    if (current === undefined) return;
    emit({ type: 'block_stop', index: current.index });
    current = undefined;
  };

  const closeAll = (emit: Emit) => {
    closeCurrent(emit);
    for (const index of openTools) emit({ type: 'block_stop', index });
    openTools.length = 0;
  };

  const textBlock = (emit: Emit, kind: TextKind): number => {
    if (current !== undefined && current.key === kind) return current.index;
    closeCurrent(emit);
    const index = nextIndex++;
    emit({ type: 'block_start', index, block: { kind } });
    current = { key: kind, index };
    return index;
  };

  const toolDelta = (emit: Emit, key: number | string, id: string | undefined, name: string | undefined, args: string | undefined) => {
    let index = tools.get(key);
    if (index === undefined) {
      closeCurrent(emit);
      index = nextIndex++;
      tools.set(key, index);
      openTools.push(index);
      emit({ type: 'block_start', index, block: { kind: 'tool_call', id: id ?? `call_${key}`, name: name ?? '' } });
    }
    // Arguments for an earlier call that arrive after the next one started (never seen from
    // OpenAI itself) go to the block they belong to, which is still open: nothing is lost.
    if (args !== undefined && args !== '') emit({ type: 'tool_args_delta', index, delta: args });
  };

  const delta = (emit: Emit, d: JsonObject) => {
    const reasoning = asString(d.reasoning_content) ?? asString(d.reasoning);
    if (reasoning !== undefined && reasoning !== '') {
      emit({ type: 'reasoning_delta', index: textBlock(emit, 'reasoning'), text: reasoning });
    }
    const content = asString(d.content);
    if (content !== undefined && content !== '') emit({ type: 'text_delta', index: textBlock(emit, 'text'), text: content });
    const refusal = asString(d.refusal);
    if (refusal !== undefined && refusal !== '') emit({ type: 'text_delta', index: textBlock(emit, 'refusal'), text: refusal });
    if (Array.isArray(d.tool_calls)) {
      d.tool_calls.forEach((raw, position) => {
        const call = toolCallDelta(raw);
        if (call !== undefined) toolDelta(emit, call.index ?? position, call.id, call.name, call.arguments);
      });
    }
    if (isObject(d.function_call)) {
      // Legacy function calling: one call, no id.
      toolDelta(emit, 'function_call', undefined, asString(d.function_call.name), asString(d.function_call.arguments));
    }
  };

  const finish = (emit: Emit, raw: unknown) => {
    closeAll(emit);
    finished = true;
    emit({ type: 'finish', finishReason: decodeFinishReason(raw) });
  };

  const start = (emit: Emit, chunk: JsonObject) => {
    started = true;
    const event: StreamEvent = { type: 'message_start', id: asString(chunk.id) ?? '', model: asString(chunk.model) ?? '' };
    const created = asNumber(chunk.created);
    if (created !== undefined) event.created = created;
    emit(event);
  };

  const done = (emit: Emit) => {
    stopped = true;
    if (!started) start(emit, {});
    if (!finished) {
      closeAll(emit);
      finished = true;
      emit({ type: 'finish', finishReason: { unified: tools.size > 0 ? 'tool_calls' : 'stop', raw: null } });
    }
    emit({ type: 'message_stop' });
  };

  return {
    push(message: SseMessage, emit: Emit) {
      if (stopped) return;
      const data = message.data;
      if (data.trim() === '[DONE]') return done(emit);
      const parsed = parseJson(data);
      if (!parsed.ok) return fail(emit, 'The upstream sent a stream chunk that is not valid JSON.');
      const chunk = parsed.value;
      if (!isObject(chunk)) return fail(emit, 'The upstream sent a stream chunk that is not a JSON object.');
      if (isErrorChunk(chunk) || message.event === 'error') {
        stopped = true;
        emit({ type: 'error', error: decodeError(0, chunk) });
        return;
      }
      if (!started) start(emit, chunk);
      if (Array.isArray(chunk.choices)) {
        for (const choice of chunk.choices) {
          // n > 1 is not representable in one canonical stream: only the first choice is kept.
          if (!isObject(choice) || (choice.index !== undefined && choice.index !== 0) || finished) continue;
          if (isObject(choice.delta)) delta(emit, choice.delta);
          if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finish(emit, choice.finish_reason);
        }
      }
      if (isObject(chunk.usage)) {
        const usage = decodeUsage(chunk.usage);
        if (usage !== null) emit({ type: 'usage', usage });
      }
    },
    end(emit: Emit) {
      if (stopped) return;
      stopped = true;
      emit({
        type: 'error',
        error: errorInfo('stream_incomplete', 'The upstream stream ended before it was complete.', { status: 502 }),
      });
    },
  };
}
