/** Anthropic Messages SSE events → canonical stream events. Synchronous, tolerant, never throws. */
import type { StreamDecoder } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import type { SseMessage } from '../sse/parse.js';
import { asNumber, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { decodeErrorObject } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { decodeUsage } from './usage.js';

type Emit = (event: StreamEvent) => void;

/** Block kinds the IR carries; every other Anthropic block (server tools, their results) is skipped. */
type Kind = 'text' | 'reasoning' | 'tool_call';

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let done = false;
  let usage: Usage | undefined;
  let nextIndex = 0;
  /** Anthropic block index → IR block (index and kind); absent for skipped blocks. */
  const blocks = new Map<number, { index: number; kind: Kind; open: boolean }>();

  const fail = (emit: Emit, message: string) => {
    done = true;
    emit({ type: 'error', error: errorInfo('upstream_error', message, { status: 502 }) });
  };

  /** Some upstreams (and proxies) skip message_start; the IR always has one. */
  const ensureStarted = (emit: Emit) => {
    if (started) return;
    started = true;
    emit({ type: 'message_start', id: '', model: '' });
  };

  const onMessageStart = (data: JsonObject, emit: Emit) => {
    if (started) return;
    started = true;
    const message = isObject(data['message']) ? data['message'] : {};
    const event: StreamEvent & { type: 'message_start' } = {
      type: 'message_start',
      id: asString(message['id']) ?? '',
      model: asString(message['model']) ?? '',
    };
    if (isObject(message['usage'])) {
      usage = decodeUsage(message['usage']);
      event.usage = usage;
    }
    emit(event);
    if (usage !== undefined) emit({ type: 'usage', usage });
  };

  const onBlockStart = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['index']);
    const block = data['content_block'];
    if (at === undefined || !isObject(block)) return;
    ensureStarted(emit);
    const index = nextIndex;
    switch (block['type']) {
      case 'text': {
        blocks.set(at, { index, kind: 'text', open: true });
        nextIndex++;
        emit({ type: 'block_start', index, block: { kind: 'text' } });
        const text = asString(block['text']);
        if (text !== undefined && text.length > 0) emit({ type: 'text_delta', index, text });
        return;
      }
      case 'thinking': {
        blocks.set(at, { index, kind: 'reasoning', open: true });
        nextIndex++;
        emit({ type: 'block_start', index, block: { kind: 'reasoning', issuer: 'anthropic' } });
        const text = asString(block['thinking']);
        if (text !== undefined && text.length > 0) emit({ type: 'reasoning_delta', index, text });
        const signature = asString(block['signature']);
        if (signature !== undefined && signature.length > 0) emit({ type: 'signature', index, signature, issuer: 'anthropic' });
        return;
      }
      case 'redacted_thinking': {
        const redactedData = asString(block['data']) ?? '';
        blocks.set(at, { index, kind: 'reasoning', open: true });
        nextIndex++;
        emit({ type: 'block_start', index, block: { kind: 'reasoning', redactedData, issuer: 'anthropic' } });
        return;
      }
      case 'tool_use': {
        const id = asString(block['id']) ?? '';
        const name = asString(block['name']) ?? '';
        blocks.set(at, { index, kind: 'tool_call', open: true });
        nextIndex++;
        emit({ type: 'block_start', index, block: { kind: 'tool_call', id, name, issuer: 'anthropic' } });
        const input = block['input'];
        if (isObject(input) && Object.keys(input).length > 0) emit({ type: 'tool_args_delta', index, delta: JSON.stringify(input) });
        return;
      }
      default:
        blocks.delete(at); // server_tool_use, web_search_tool_result, …: skipped with their deltas
    }
  };

  const onBlockDelta = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['index']);
    const block = at === undefined ? undefined : blocks.get(at);
    const delta = data['delta'];
    if (block === undefined || !block.open || !isObject(delta)) return;
    const index = block.index;
    switch (delta['type']) {
      case 'text_delta': {
        const text = asString(delta['text']);
        if (block.kind === 'text' && text !== undefined && text.length > 0) emit({ type: 'text_delta', index, text });
        return;
      }
      case 'input_json_delta': {
        const json = asString(delta['partial_json']);
        if (block.kind === 'tool_call' && json !== undefined && json.length > 0) emit({ type: 'tool_args_delta', index, delta: json });
        return;
      }
      case 'thinking_delta': {
        const text = asString(delta['thinking']);
        if (block.kind === 'reasoning' && text !== undefined && text.length > 0) emit({ type: 'reasoning_delta', index, text });
        return;
      }
      case 'signature_delta': {
        const signature = asString(delta['signature']);
        if (block.kind === 'reasoning' && signature !== undefined && signature.length > 0) {
          emit({ type: 'signature', index, signature, issuer: 'anthropic' });
        }
        return;
      }
      default:
        return; // citations_delta and future delta types carry nothing the IR holds
    }
  };

  const onBlockStop = (data: JsonObject, emit: Emit) => {
    const at = asNumber(data['index']);
    const block = at === undefined ? undefined : blocks.get(at);
    if (block === undefined || !block.open) return;
    block.open = false;
    emit({ type: 'block_stop', index: block.index });
  };

  const onMessageDelta = (data: JsonObject, emit: Emit) => {
    ensureStarted(emit);
    const delta = isObject(data['delta']) ? data['delta'] : {};
    if (typeof delta['stop_reason'] === 'string') {
      emit({
        type: 'finish',
        finishReason: decodeFinishReason(delta['stop_reason']),
        stopSequence: asString(delta['stop_sequence']) ?? null,
      });
    }
    if (isObject(data['usage'])) {
      usage = decodeUsage(data['usage'], usage);
      emit({ type: 'usage', usage });
    }
  };

  return {
    push(message: SseMessage, emit: Emit) {
      if (done) return;
      const parsed = parseJson(message.data);
      if (!parsed.ok || !isObject(parsed.value)) {
        if (message.event === 'ping' || message.data.trim().length === 0) return;
        fail(emit, 'The upstream sent a stream event that is not a valid JSON object.');
        return;
      }
      const data = parsed.value;
      const type = asString(data['type']) ?? message.event;
      switch (type) {
        case 'message_start':
          return onMessageStart(data, emit);
        case 'content_block_start':
          return onBlockStart(data, emit);
        case 'content_block_delta':
          return onBlockDelta(data, emit);
        case 'content_block_stop':
          return onBlockStop(data, emit);
        case 'message_delta':
          return onMessageDelta(data, emit);
        case 'message_stop':
          ensureStarted(emit);
          done = true;
          for (const block of blocks.values()) {
            if (!block.open) continue;
            block.open = false;
            emit({ type: 'block_stop', index: block.index });
          }
          emit({ type: 'message_stop' });
          return;
        case 'error':
          done = true;
          emit({ type: 'error', error: decodeErrorObject(data['error']) });
          return;
        default:
          return; // ping and event types this codec does not know
      }
    },
    end(emit: Emit) {
      if (done) return;
      done = true;
      emit({
        type: 'error',
        error: errorInfo('stream_incomplete', 'The upstream stream ended before the message was complete.'),
      });
    },
  };
}
