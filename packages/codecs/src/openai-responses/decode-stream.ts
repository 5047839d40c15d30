/**
 * Responses SSE events → canonical stream events. Synchronous, tolerant, never throws.
 *
 * Each output_text or refusal content part, each function call and each reasoning summary part
 * becomes one canonical block. A reasoning item opens its first block at output_item.added (it
 * carries the item id and the first encrypted content) and keeps its last block open until
 * output_item.done, whose final encrypted_content arrives as a `signature` event (issuer openai).
 * `.done` events and output_item.done only add what the deltas did not already deliver (servers
 * that send no deltas still decode). A call item the client is asked to run that the IR cannot
 * carry (`custom_tool_call`, `computer_call`, `local_shell_call`, …) becomes an unnamed tool call
 * without arguments, so a tool guard withholds it rather than the stream losing it unseen. Other
 * unknown event types and items (the server's own tool calls) are ignored; invalid JSON becomes an error event; a stream that ends without response.completed,
 * response.incomplete or response.failed is reported as `stream_incomplete`.
 */
import type { StreamDecoder } from '../codec.js';
import { errorInfo } from '../errors/gateway-error.js';
import type { StreamEvent } from '../ir/stream-event.js';
import type { SseMessage } from '../sse/parse.js';
import { asNumber, asString, isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { decodeError } from './errors.js';
import { decodeFinishReason } from './finish-reason.js';
import { isOpaqueClientCall } from './tool-calls.js';
import { decodeUsage } from './usage.js';

type Emit = (event: StreamEvent) => void;

/** One canonical block and how much text of it has been emitted (to complete it from `.done`). */
interface Slot {
  index: number;
  sent: number;
  open: boolean;
}

interface ItemState {
  type: 'message' | 'function_call' | 'reasoning' | 'opaque_call' | 'other';
  /** message: content_index → slot; reasoning: summary_index → slot; function_call: 0 → slot. */
  slots: Map<number, Slot>;
  /** reasoning: the block that is open and not yet given a summary part (-1 when none). */
  spare: Slot | undefined;
  current: Slot | undefined;
  encrypted: string | undefined;
  done: boolean;
}

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  let stopped = false;
  let nextIndex = 0;
  let hasToolCalls = false;
  const items = new Map<number, ItemState>();
  const byItemId = new Map<string, number>();

  const fail = (emit: Emit, message: string) => {
    stopped = true;
    emit({ type: 'error', error: errorInfo('upstream_error', message, { status: 502 }) });
  };

  const start = (emit: Emit, response: JsonObject | undefined) => {
    if (started) return;
    started = true;
    const event: StreamEvent & { type: 'message_start' } = {
      type: 'message_start',
      id: asString(response?.id) ?? '',
      model: asString(response?.model) ?? '',
    };
    const created = asNumber(response?.created_at);
    if (created !== undefined) event.created = created;
    emit(event);
  };

  const openSlot = (emit: Emit, block: Extract<StreamEvent, { type: 'block_start' }>['block']): Slot => {
    const slot: Slot = { index: nextIndex++, sent: 0, open: true };
    emit({ type: 'block_start', index: slot.index, block });
    return slot;
  };

  const closeSlot = (emit: Emit, slot: Slot | undefined) => {
    if (slot === undefined || !slot.open) return;
    slot.open = false;
    emit({ type: 'block_stop', index: slot.index });
  };

  /** Deliver `text` as the slot's delta, or only the part of a full text not yet sent. */
  const deliver = (emit: Emit, kind: 'text' | 'reasoning' | 'args', slot: Slot, text: string, full: boolean) => {
    const delta = full ? (text.length > slot.sent ? text.slice(slot.sent) : '') : text;
    if (delta === '' || !slot.open) return;
    slot.sent += delta.length;
    if (kind === 'text') emit({ type: 'text_delta', index: slot.index, text: delta });
    else if (kind === 'reasoning') emit({ type: 'reasoning_delta', index: slot.index, text: delta });
    else emit({ type: 'tool_args_delta', index: slot.index, delta });
  };

  const itemAt = (data: JsonObject): ItemState | undefined => {
    const at = asNumber(data.output_index) ?? byItemId.get(asString(data.item_id) ?? '');
    return at === undefined ? undefined : items.get(at);
  };

  const onItemAdded = (emit: Emit, at: number, item: JsonObject): ItemState => {
    const known = items.get(at);
    if (known !== undefined) return known;
    const type =
      item.type === 'message' || item.type === 'function_call' || item.type === 'reasoning' ? item.type : isOpaqueClientCall(item) ? 'opaque_call' : 'other';
    const state: ItemState = { type, slots: new Map(), spare: undefined, current: undefined, encrypted: undefined, done: false };
    items.set(at, state);
    const itemId = asString(item.id);
    if (itemId !== undefined) byItemId.set(itemId, at);
    if (type === 'function_call') {
      hasToolCalls = true;
      const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = {
        kind: 'tool_call',
        id: asString(item.call_id) ?? itemId ?? '',
        name: asString(item.name) ?? '',
        issuer: 'openai',
      };
      if (itemId !== undefined) block.itemId = itemId;
      const slot = openSlot(emit, block);
      state.slots.set(0, slot);
      deliver(emit, 'args', slot, asString(item.arguments) ?? '', true);
    } else if (type === 'opaque_call') {
      // Its input (custom tool text, shell commands, computer actions) is not relayed as arguments.
      hasToolCalls = true;
      const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = {
        kind: 'tool_call',
        id: asString(item.call_id) ?? itemId ?? '',
        name: '',
        issuer: 'openai',
      };
      if (itemId !== undefined) block.itemId = itemId;
      state.slots.set(0, openSlot(emit, block));
    } else if (type === 'reasoning') {
      state.encrypted = asString(item.encrypted_content);
      const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'reasoning', issuer: 'openai' };
      if (itemId !== undefined) block.itemId = itemId;
      if (state.encrypted !== undefined) block.encryptedContent = state.encrypted;
      state.spare = openSlot(emit, block);
      state.current = state.spare;
    }
    return state;
  };

  /** The block of a message content part, opened on first sight. */
  const contentSlot = (emit: Emit, state: ItemState, k: number, kind: 'text' | 'refusal'): Slot => {
    let slot = state.slots.get(k);
    if (slot === undefined) {
      slot = openSlot(emit, { kind });
      state.slots.set(k, slot);
    }
    return slot;
  };

  /** The block of a reasoning summary part: the item's first block, then one new block per part. */
  const summarySlot = (emit: Emit, state: ItemState, k: number, itemId: string | undefined): Slot => {
    let slot = state.slots.get(k);
    if (slot !== undefined) return slot;
    if (state.spare !== undefined) {
      slot = state.spare;
      state.spare = undefined;
    } else {
      closeSlot(emit, state.current);
      const block: Extract<StreamEvent, { type: 'block_start' }>['block'] = { kind: 'reasoning', issuer: 'openai' };
      if (itemId !== undefined) block.itemId = itemId;
      slot = openSlot(emit, block);
    }
    state.slots.set(k, slot);
    state.current = slot;
    return slot;
  };

  const onItemDone = (emit: Emit, at: number, item: JsonObject) => {
    const state = onItemAdded(emit, at, item);
    if (state.done) return;
    state.done = true;
    if (state.type === 'message') {
      const content = Array.isArray(item.content) ? item.content : [];
      content.forEach((part, k) => {
        if (!isObject(part)) return;
        if (part.type === 'output_text') deliver(emit, 'text', contentSlot(emit, state, k, 'text'), asString(part.text) ?? '', true);
        else if (part.type === 'refusal') deliver(emit, 'text', contentSlot(emit, state, k, 'refusal'), asString(part.refusal) ?? '', true);
      });
      for (const slot of state.slots.values()) closeSlot(emit, slot);
    } else if (state.type === 'function_call') {
      const slot = state.slots.get(0);
      if (slot !== undefined) deliver(emit, 'args', slot, asString(item.arguments) ?? '', true);
      closeSlot(emit, slot);
    } else if (state.type === 'opaque_call') {
      closeSlot(emit, state.slots.get(0));
    } else if (state.type === 'reasoning') {
      const summary = Array.isArray(item.summary) ? item.summary : [];
      summary.forEach((part, k) => {
        const text = isObject(part) ? asString(part.text) : undefined;
        if (text !== undefined) deliver(emit, 'reasoning', summarySlot(emit, state, k, asString(item.id)), text, true);
      });
      const encrypted = asString(item.encrypted_content);
      if (encrypted !== undefined && encrypted !== state.encrypted && state.current !== undefined && state.current.open) {
        emit({ type: 'signature', index: state.current.index, signature: encrypted, issuer: 'openai' });
      }
      for (const slot of state.slots.values()) closeSlot(emit, slot);
      closeSlot(emit, state.current);
    }
  };

  /** Output that was never streamed item by item arrives with the terminal response. */
  const finishOutput = (emit: Emit, response: JsonObject) => {
    const output = Array.isArray(response.output) ? response.output : [];
    output.forEach((item, at) => {
      if (isObject(item) && items.get(at)?.done !== true) onItemDone(emit, at, item);
    });
    const open = [...items.values()].flatMap((s) => [...s.slots.values(), ...(s.current === undefined ? [] : [s.current])]);
    for (const slot of open.sort((a, b) => a.index - b.index)) closeSlot(emit, slot);
  };

  const onTerminal = (emit: Emit, type: string, data: JsonObject) => {
    const response = isObject(data.response) ? data.response : {};
    start(emit, response);
    stopped = true;
    finishOutput(emit, response);
    const details = isObject(response.incomplete_details) ? response.incomplete_details : {};
    emit({ type: 'finish', finishReason: decodeFinishReason(response.status ?? type.slice('response.'.length), details.reason, hasToolCalls) });
    const usage = decodeUsage(response.usage);
    if (usage !== null) emit({ type: 'usage', usage });
    emit({ type: 'message_stop' });
  };

  const onEvent = (emit: Emit, type: string, data: JsonObject) => {
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        return start(emit, isObject(data.response) ? data.response : undefined);
      case 'response.completed':
      case 'response.incomplete':
        return onTerminal(emit, type, data);
      case 'response.failed': {
        stopped = true;
        const response = isObject(data.response) ? data.response : {};
        const error = isObject(response.error) ? response.error : { message: 'The upstream response failed.' };
        emit({ type: 'error', error: decodeError(0, { error }) });
        return;
      }
      case 'error':
        stopped = true;
        emit({ type: 'error', error: decodeError(0, data) });
        return;
    }
    start(emit, undefined);
    const at = asNumber(data.output_index);
    if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      if (at === undefined || !isObject(data.item)) return;
      if (type === 'response.output_item.added') onItemAdded(emit, at, data.item);
      else onItemDone(emit, at, data.item);
      return;
    }
    const state = itemAt(data);
    if (state === undefined || state.done) return;
    const k = asNumber(data.content_index) ?? asNumber(data.summary_index) ?? 0;
    const part = isObject(data.part) ? data.part : {};
    const itemId = asString(data.item_id);
    switch (type) {
      case 'response.content_part.added':
        if (state.type !== 'message') return;
        if (part.type === 'output_text') return deliver(emit, 'text', contentSlot(emit, state, k, 'text'), asString(part.text) ?? '', true);
        if (part.type === 'refusal') return deliver(emit, 'text', contentSlot(emit, state, k, 'refusal'), asString(part.refusal) ?? '', true);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        if (state.type !== 'message') return;
        return deliver(emit, 'text', contentSlot(emit, state, k, type === 'response.refusal.delta' ? 'refusal' : 'text'), asString(data.delta) ?? '', false);
      case 'response.output_text.done':
      case 'response.refusal.done': {
        const slot = state.type === 'message' ? state.slots.get(k) : undefined;
        if (slot !== undefined) deliver(emit, 'text', slot, asString(data.text) ?? asString(data.refusal) ?? '', true);
        return;
      }
      case 'response.content_part.done': {
        const slot = state.type === 'message' ? state.slots.get(k) : undefined;
        if (slot === undefined) return;
        deliver(emit, 'text', slot, asString(part.text) ?? asString(part.refusal) ?? '', true);
        return closeSlot(emit, slot);
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        const slot = state.type === 'function_call' ? state.slots.get(0) : undefined;
        if (slot === undefined) return;
        const done = type === 'response.function_call_arguments.done';
        return deliver(emit, 'args', slot, asString(done ? data.arguments : data.delta) ?? '', done);
      }
      case 'response.reasoning_summary_part.added':
      case 'response.reasoning_summary_part.done':
        if (state.type !== 'reasoning') return;
        return deliver(emit, 'reasoning', summarySlot(emit, state, k, itemId), asString(part.text) ?? '', true);
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_summary_text.done': {
        if (state.type !== 'reasoning') return;
        const done = type === 'response.reasoning_summary_text.done';
        return deliver(emit, 'reasoning', summarySlot(emit, state, k, itemId), asString(done ? data.text : data.delta) ?? '', done);
      }
      case 'response.reasoning_text.delta': {
        // Raw reasoning (open-weight models) streams into the item's current block.
        if (state.type !== 'reasoning') return;
        const slot = state.current ?? summarySlot(emit, state, 0, itemId);
        return deliver(emit, 'reasoning', slot, asString(data.delta) ?? '', false);
      }
      default:
        return; // annotations, built-in tool progress, audio, keepalive, future event types
    }
  };

  return {
    push(message: SseMessage, emit: Emit) {
      if (stopped) return;
      if (message.data.trim() === '[DONE]') return; // some compatible servers end with it; the terminal event already came
      const parsed = parseJson(message.data);
      if (!parsed.ok) return fail(emit, 'The upstream sent a stream event that is not valid JSON.');
      if (!isObject(parsed.value)) return fail(emit, 'The upstream sent a stream event that is not a JSON object.');
      const data = parsed.value;
      const type = asString(data.type) ?? message.event;
      if (type === undefined) return;
      onEvent(emit, type, data);
    },
    end(emit: Emit) {
      if (stopped) return;
      stopped = true;
      emit({ type: 'error', error: errorInfo('stream_incomplete', 'The upstream stream ended before the response was complete.', { status: 502 }) });
    },
  };
}
