/**
 * The semantic content of a response or stream, independent of how a format splits it into
 * blocks: text, refusal, reasoning text, tool calls (arguments parsed), opaque vendor values,
 * finish reason, usage, and how the stream ended.
 */
import type { ErrorInfo } from '../../errors/gateway-error.js';
import type { AssistantContentPart } from '../../ir/content.js';
import type { FinishReason } from '../../ir/finish-reason.js';
import type { Message } from '../../ir/message.js';
import type { StreamEvent } from '../../ir/stream-event.js';
import type { Usage } from '../../ir/usage.js';
import type { Issuer } from '../../ir/wire-format.js';

export interface ToolCallView {
  id: string;
  name: string;
  args: unknown;
  thoughtSignature?: string;
}

/** An opaque vendor value (thinking signature, redacted thinking, encrypted reasoning, thought signature). */
export interface Opaque {
  kind: 'signature' | 'redacted' | 'encrypted' | 'thought_signature';
  issuer: Issuer | 'unknown';
  value: string;
}

export interface Semantic {
  text: string;
  refusal: string;
  reasoningText: string;
  toolCalls: ToolCallView[];
  opaque: Opaque[];
}

export function parseArgs(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return { unparsable: text };
  }
}

export function semanticOf(content: AssistantContentPart[]): Semantic {
  const out: Semantic = { text: '', refusal: '', reasoningText: '', toolCalls: [], opaque: [] };
  for (const part of content) {
    switch (part.type) {
      case 'text':
        out.text += part.text;
        break;
      case 'refusal':
        out.refusal += part.text;
        break;
      case 'reasoning': {
        out.reasoningText += part.text;
        const issuer = part.issuer ?? 'unknown';
        if (part.signature !== undefined) out.opaque.push({ kind: issuer === 'google' ? 'thought_signature' : 'signature', issuer, value: part.signature });
        if (part.redactedData !== undefined) out.opaque.push({ kind: 'redacted', issuer, value: part.redactedData });
        if (part.encryptedContent !== undefined) out.opaque.push({ kind: 'encrypted', issuer, value: part.encryptedContent });
        break;
      }
      case 'tool_call': {
        const call: ToolCallView = { id: part.id, name: part.name, args: parseArgs(part.arguments) };
        if (part.thoughtSignature !== undefined) {
          call.thoughtSignature = part.thoughtSignature;
          out.opaque.push({ kind: 'thought_signature', issuer: 'google', value: part.thoughtSignature });
        }
        out.toolCalls.push(call);
        break;
      }
      case 'image':
        break;
    }
  }
  return out;
}

/** The assistant content of every assistant message of a request, in order. */
export function assistantSemantic(messages: Message[]): Semantic {
  return semanticOf(messages.flatMap((m) => (m.role === 'assistant' ? m.content : [])));
}

export interface StreamView extends Semantic {
  finish?: FinishReason;
  usage?: Usage;
  /** How the stream ended: `message_stop` (clean), `error`, or `none` (the decoder emitted neither). */
  terminal: 'message_stop' | 'error' | 'none';
  error?: ErrorInfo;
  /** Grammar problems: events after the terminal one, deltas for blocks never started. */
  problems: string[];
}

/** Canonical stream events → their semantic content (blocks assembled by index). */
export function streamView(events: StreamEvent[]): StreamView {
  const view: StreamView = { text: '', refusal: '', reasoningText: '', toolCalls: [], opaque: [], terminal: 'none', problems: [] };
  const blocks = new Map<number, { kind: string; issuer?: Issuer; call?: { view: ToolCallView; args: string } }>();
  const calls: Array<{ view: ToolCallView; args: string }> = [];
  for (const event of events) {
    if (view.terminal !== 'none') view.problems.push(`${event.type} after ${view.terminal}`);
    switch (event.type) {
      case 'block_start': {
        const b = event.block;
        if (b.kind === 'tool_call') {
          const call = { view: { id: b.id, name: b.name, args: {} } as ToolCallView, args: '' };
          if (b.thoughtSignature !== undefined) call.view.thoughtSignature = b.thoughtSignature;
          calls.push(call);
          blocks.set(event.index, { kind: 'tool_call', call });
        } else if (b.kind === 'reasoning') {
          const issuer = b.issuer;
          blocks.set(event.index, issuer === undefined ? { kind: 'reasoning' } : { kind: 'reasoning', issuer });
          if (b.redactedData !== undefined) view.opaque.push({ kind: 'redacted', issuer: issuer ?? 'unknown', value: b.redactedData });
          if (b.encryptedContent !== undefined) view.opaque.push({ kind: 'encrypted', issuer: issuer ?? 'unknown', value: b.encryptedContent });
        } else blocks.set(event.index, { kind: b.kind });
        break;
      }
      case 'text_delta': {
        const block = blocks.get(event.index);
        if (block === undefined) view.problems.push(`text_delta for unknown block ${event.index}`);
        else if (block.kind === 'refusal') view.refusal += event.text;
        else view.text += event.text;
        break;
      }
      case 'reasoning_delta':
        if (blocks.get(event.index)?.kind !== 'reasoning') view.problems.push(`reasoning_delta for block ${event.index}`);
        view.reasoningText += event.text;
        break;
      case 'tool_args_delta': {
        const call = blocks.get(event.index)?.call;
        if (call === undefined) view.problems.push(`tool_args_delta for block ${event.index}`);
        else call.args += event.delta;
        break;
      }
      case 'signature': {
        const block = blocks.get(event.index);
        if (block === undefined) {
          view.problems.push(`signature for unknown block ${event.index}`);
          break;
        }
        if (block.call !== undefined) {
          // A thought signature on a function call: the same value may also ride on block_start.
          if (block.call.view.thoughtSignature === undefined) block.call.view.thoughtSignature = event.signature;
          break;
        }
        const kind = event.issuer === 'google' ? 'thought_signature' : event.issuer === 'openai' ? 'encrypted' : 'signature';
        // An OpenAI signature event is the item's final encrypted content: it replaces the one at block_start.
        if (kind === 'encrypted') view.opaque = view.opaque.filter((o) => o.kind !== 'encrypted' || o.value === event.signature);
        if (!view.opaque.some((o) => o.kind === kind && o.value === event.signature)) view.opaque.push({ kind, issuer: event.issuer, value: event.signature });
        break;
      }
      case 'finish':
        view.finish = event.finishReason;
        break;
      case 'usage':
        view.usage = event.usage;
        break;
      case 'message_stop':
        view.terminal = 'message_stop';
        break;
      case 'error':
        view.terminal = 'error';
        view.error = event.error;
        break;
      case 'message_start':
      case 'block_stop':
        break;
    }
  }
  for (const call of calls) {
    call.view.args = parseArgs(call.args);
    view.toolCalls.push(call.view);
    if (call.view.thoughtSignature !== undefined) view.opaque.push({ kind: 'thought_signature', issuer: 'google', value: call.view.thoughtSignature });
  }
  return view;
}

/** Every form in which an opaque value could leak into a wire body (raw, and base64url as folded into ids). */
export function leakForms(value: string): string[] {
  const url = value.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return [...new Set([value, url])].filter((v) => v.length >= 8);
}
