/**
 * Canonical stream events → Responses SSE, as the `openai` SDK's `responses.stream()` assembles it.
 *
 * Every canonical block becomes a part of an output item: text and refusal blocks are content
 * parts of a message item (consecutive ones share the item), reasoning blocks summary parts of a
 * reasoning item (consecutive blocks with the same OpenAI item id share it), each tool call a
 * function_call item. Items are addressed by output_index, so interleaved blocks (parallel tool
 * calls) need no reordering. The `.done` events and `response.completed` repeat the full text, so
 * each item keeps its own content until the end: memory is bounded by the response itself.
 * Reasoning opens lazily, on its first text or encrypted content, so empty or foreign opaque
 * reasoning never shows up.
 */
import type { StreamEncoder, StreamEncoderOptions } from '../codec.js';
import { errorInfo, type ErrorInfo } from '../errors/gateway-error.js';
import type { FinishReason } from '../ir/finish-reason.js';
import type { BlockStart, StreamEvent } from '../ir/stream-event.js';
import type { Usage } from '../ir/usage.js';
import { sseEvent } from '../sse/parse.js';
import type { JsonObject } from '../shared/guards.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { errorEvent, responseError } from './errors.js';
import { encodeFinishReason } from './finish-reason.js';
import { contentPart, functionCallItem, messageItem, reasoningItem, responseObject, type MessagePartKind } from './output-items.js';
import { outputItemId, responseId, type WireOutputItem } from './schemas.js';
import { encodeUsage } from './usage.js';

type Write = (text: string) => void;

interface Part {
  text: string;
  done: boolean;
}

type Item = { outputIndex: number; id: string; done: boolean } & (
  | { kind: 'message'; parts: Array<Part & { kind: MessagePartKind }> }
  | { kind: 'function_call'; callId: string; name: string; args: string }
  | { kind: 'reasoning'; key: string | undefined; summaries: Part[]; encrypted: string | undefined }
);
type MessageItem = Extract<Item, { kind: 'message' }>;
type ReasoningItem = Extract<Item, { kind: 'reasoning' }>;

interface Block {
  start: BlockStart;
  item: Item | undefined;
  /** content_index or summary_index within the item; -1 until a reasoning summary part opens. */
  part: number;
  /** Reasoning issued by OpenAI (it may carry encrypted content and continue an item). */
  own: boolean;
  /** Foreign opaque reasoning with nothing to show. */
  hidden: boolean;
}

export function createStreamEncoder(options: StreamEncoderOptions = {}): StreamEncoder {
  let seq = 0;
  let started = false;
  let closed = false;
  let id = responseId(undefined);
  let model = options.model ?? '';
  let created = 0;
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  const items: Item[] = [];
  const blocks = new Map<number, Block>();
  /** The message or reasoning item that the next block of the same kind may continue. */
  let container: MessageItem | ReasoningItem | undefined;

  const emit = (write: Write, type: string, payload: JsonObject) => {
    write(sseEvent(JSON.stringify({ type, sequence_number: seq++, ...payload }), type));
  };

  const itemJson = (item: Item): WireOutputItem => {
    const status = item.done ? 'completed' : 'in_progress';
    if (item.kind === 'message')
      return messageItem(
        item.id,
        item.parts.map((p) => contentPart(p.kind, p.text)),
        status,
      );
    if (item.kind === 'function_call') return functionCallItem(item.id, item.callId, item.name, item.args, status);
    return reasoningItem(
      item.id,
      item.summaries.map((s) => s.text),
      item.encrypted,
    );
  };

  const response = (status: string, extra: { usage?: Usage; incompleteDetails?: JsonObject | null; error?: JsonObject } = {}) =>
    responseObject({
      id,
      model,
      createdAt: created,
      status,
      output: status === 'in_progress' ? [] : items.map(itemJson),
      usage: extra.usage === undefined ? null : encodeUsage(extra.usage),
      incompleteDetails: extra.incompleteDetails ?? null,
      error: extra.error ?? null,
    });

  const start = (write: Write, event?: Extract<StreamEvent, { type: 'message_start' }>) => {
    started = true;
    if (event !== undefined) {
      id = responseId(event.id);
      if (options.model === undefined) model = event.model;
      created = event.created ?? 0;
      if (event.usage !== undefined) usage = event.usage;
    }
    emit(write, 'response.created', { response: response('in_progress') });
    emit(write, 'response.in_progress', { response: response('in_progress') });
  };

  const where = (item: Item) => ({ item_id: item.id, output_index: item.outputIndex });

  const openItem = (write: Write, item: Item) => {
    items.push(item);
    emit(write, 'response.output_item.added', { output_index: item.outputIndex, item: itemJson(item) });
  };

  const closePart = (write: Write, item: MessageItem, k: number) => {
    const part = item.parts[k];
    if (part === undefined || part.done) return;
    part.done = true;
    if (part.kind === 'refusal') emit(write, 'response.refusal.done', { ...where(item), content_index: k, refusal: part.text });
    else emit(write, 'response.output_text.done', { ...where(item), content_index: k, text: part.text, logprobs: [] });
    emit(write, 'response.content_part.done', { ...where(item), content_index: k, part: contentPart(part.kind, part.text) });
  };

  const closeSummary = (write: Write, item: ReasoningItem, k: number) => {
    const summary = item.summaries[k];
    if (summary === undefined || summary.done) return;
    summary.done = true;
    emit(write, 'response.reasoning_summary_text.done', { ...where(item), summary_index: k, text: summary.text });
    const part = { type: 'summary_text', text: summary.text };
    emit(write, 'response.reasoning_summary_part.done', { ...where(item), summary_index: k, part });
  };

  function onArgsOf(write: Write, item: Extract<Item, { kind: 'function_call' }>, delta: string): void {
    item.args += delta;
    emit(write, 'response.function_call_arguments.delta', { ...where(item), delta });
  }

  const closeItem = (write: Write, item: Item) => {
    if (item.done) return;
    if (item.kind === 'message') item.parts.forEach((_, k) => closePart(write, item, k));
    else if (item.kind === 'reasoning') item.summaries.forEach((_, k) => closeSummary(write, item, k));
    else {
      // A call without arguments (an Anthropic tool_use with empty input) still gets valid JSON.
      if (item.args === '') onArgsOf(write, item, '{}');
      emit(write, 'response.function_call_arguments.done', { ...where(item), arguments: item.args });
    }
    item.done = true;
    if (container === item) container = undefined;
    emit(write, 'response.output_item.done', { output_index: item.outputIndex, item: itemJson(item) });
  };

  const closeContainer = (write: Write) => {
    if (container !== undefined) closeItem(write, container);
  };

  const closeAll = (write: Write) => {
    for (const item of items) closeItem(write, item);
  };

  /** A new content part in the open message item (or a new message item). */
  const openTextPart = (write: Write, block: Block, kind: MessagePartKind) => {
    let item: MessageItem;
    if (container?.kind === 'message') item = container;
    else {
      closeContainer(write);
      item = { kind: 'message', outputIndex: items.length, id: outputItemId('msg', id, items.length), done: false, parts: [] };
      openItem(write, item);
      container = item;
    }
    block.item = item;
    block.part = item.parts.length;
    item.parts.push({ kind, text: '', done: false });
    emit(write, 'response.content_part.added', { ...where(item), content_index: block.part, part: contentPart(kind, '') });
  };

  /** The reasoning item a block writes into, opened on first use. */
  const reasoningFor = (write: Write, block: Block): ReasoningItem => {
    if (block.item?.kind === 'reasoning' && !block.item.done) return block.item;
    const s: { itemId?: string; encryptedContent?: string } = block.start.kind === 'reasoning' ? block.start : {};
    const key = block.own ? s.itemId : undefined;
    if (key !== undefined && container?.kind === 'reasoning' && container.key === key) {
      block.item = container;
    } else {
      closeContainer(write);
      const taken = key !== undefined && items.some((i) => i.id === key);
      const itemId = key !== undefined && !taken ? key : outputItemId('rs', id, items.length);
      const encrypted = block.own ? s.encryptedContent : undefined;
      const item: ReasoningItem = { kind: 'reasoning', outputIndex: items.length, id: itemId, done: false, key, summaries: [], encrypted };
      openItem(write, item);
      container = item;
      block.item = item;
    }
    block.part = -1;
    return block.item;
  };

  const onBlockStart = (write: Write, index: number, s: BlockStart) => {
    if (blocks.has(index)) return;
    const block: Block = { start: s, item: undefined, part: -1, own: false, hidden: false };
    blocks.set(index, block);
    if (s.kind === 'text' || s.kind === 'refusal') return openTextPart(write, block, s.kind === 'text' ? 'output_text' : 'refusal');
    if (s.kind === 'tool_call') {
      closeContainer(write);
      const outputIndex = items.length;
      const itemId = s.itemId ?? outputItemId('fc', id, outputIndex);
      const item: Item = {
        kind: 'function_call',
        outputIndex,
        id: itemId,
        done: false,
        callId: foldSignature(s.id, s.thoughtSignature),
        name: s.name,
        args: '',
      };
      block.item = item;
      return openItem(write, item);
    }
    block.own = s.issuer === 'openai' || (s.issuer === undefined && (s.itemId !== undefined || s.encryptedContent !== undefined));
    block.hidden = !block.own && s.redactedData !== undefined;
    if (block.own && s.encryptedContent !== undefined) reasoningFor(write, block);
  };

  const onText = (write: Write, index: number, text: string) => {
    const block = blocks.get(index);
    if (block === undefined || text === '' || (block.start.kind !== 'text' && block.start.kind !== 'refusal')) return;
    const kind = block.start.kind === 'text' ? 'output_text' : 'refusal';
    // The item was closed by another block while this one stayed open: continue in a new item.
    if (block.item === undefined || block.item.done) openTextPart(write, block, kind);
    const item = block.item as MessageItem;
    const part = item.parts[block.part]!;
    if (part.done) return;
    part.text += text;
    if (kind === 'refusal') emit(write, 'response.refusal.delta', { ...where(item), content_index: block.part, delta: text });
    else {
      // The hot path of a streamed answer: the same JSON `emit` would build, written by hand.
      const data =
        `{"type":"response.output_text.delta","sequence_number":${seq++},"item_id":${JSON.stringify(item.id)},` +
        `"output_index":${item.outputIndex},"content_index":${block.part},"delta":${JSON.stringify(text)},"logprobs":[]}`;
      write(`event: response.output_text.delta\ndata: ${data}\n\n`);
    }
  };

  const onReasoning = (write: Write, index: number, text: string) => {
    const block = blocks.get(index);
    if (block === undefined || text === '' || block.start.kind !== 'reasoning' || block.hidden) return;
    const item = reasoningFor(write, block);
    if (block.part === -1 || item.summaries[block.part]?.done === true) {
      block.part = item.summaries.length;
      item.summaries.push({ text: '', done: false });
      const part = { type: 'summary_text', text: '' };
      emit(write, 'response.reasoning_summary_part.added', { ...where(item), summary_index: block.part, part });
    }
    item.summaries[block.part]!.text += text;
    emit(write, 'response.reasoning_summary_text.delta', { ...where(item), summary_index: block.part, delta: text });
  };

  const onArgs = (write: Write, index: number, delta: string) => {
    const item = blocks.get(index)?.item;
    if (item?.kind === 'function_call' && !item.done && delta !== '') onArgsOf(write, item, delta);
  };

  const onSignature = (write: Write, index: number, signature: string, issuer: string) => {
    const block = blocks.get(index);
    // Only OpenAI's own encrypted reasoning can go back to OpenAI.
    if (block === undefined || block.start.kind !== 'reasoning' || issuer !== 'openai') return;
    block.own = true;
    block.hidden = false;
    reasoningFor(write, block).encrypted = signature;
  };

  const onBlockStop = (write: Write, index: number) => {
    const block = blocks.get(index);
    if (block === undefined) return;
    // An OpenAI reasoning item with neither summary nor encrypted content still keeps its place.
    if (block.item === undefined && block.own && block.start.kind === 'reasoning' && block.start.itemId !== undefined) reasoningFor(write, block);
    const item = block.item;
    if (item === undefined || item.done) return;
    if (item.kind === 'message') closePart(write, item, block.part);
    else if (item.kind === 'function_call') closeItem(write, item);
    else {
      closeSummary(write, item, block.part);
      // Only an OpenAI item id lets a later block continue the item.
      if (item.key === undefined) closeItem(write, item);
    }
  };

  const fail = (write: Write, info: ErrorInfo) => {
    closed = true;
    const event = errorEvent(info, seq++);
    write(sseEvent(JSON.stringify(event), 'error'));
    emit(write, 'response.failed', { response: response('failed', { error: responseError(info), ...(usage === undefined ? {} : { usage }) }) });
  };

  return {
    encode(event: StreamEvent, write: Write) {
      if (closed) return;
      if (event.type === 'message_start') {
        if (!started) start(write, event);
        return;
      }
      if (!started) start(write);
      switch (event.type) {
        case 'error':
          return fail(write, event.error);
        case 'block_start':
          return onBlockStart(write, event.index, event.block);
        case 'text_delta':
          return onText(write, event.index, event.text);
        case 'reasoning_delta':
          return onReasoning(write, event.index, event.text);
        case 'tool_args_delta':
          return onArgs(write, event.index, event.delta);
        case 'signature':
          return onSignature(write, event.index, event.signature, event.issuer);
        case 'block_stop':
          return onBlockStop(write, event.index);
        case 'finish':
          finishReason = event.finishReason;
          return closeAll(write);
        case 'usage':
          usage = event.usage;
          return;
        case 'message_stop': {
          closeAll(write);
          closed = true;
          const { status, incomplete_details: incompleteDetails } = encodeFinishReason(finishReason);
          const type = status === 'incomplete' ? 'response.incomplete' : 'response.completed';
          emit(write, type, { response: response(status, { incompleteDetails, ...(usage === undefined ? {} : { usage }) }) });
          return;
        }
      }
    },
    end(write: Write) {
      if (closed) return;
      if (!started) start(write);
      fail(write, errorInfo('stream_incomplete', 'The upstream stream ended before the response was complete.', { status: 502 }));
    },
  };
}
