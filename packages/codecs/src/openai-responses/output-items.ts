/** Builders for Responses output items and the response object, shared by the response and stream encoders. */
import type { AssistantContentPart, ReasoningPart } from '../ir/content.js';
import type { ConversionWarning } from '../ir/warning.js';
import type { JsonObject } from '../shared/guards.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { dropped, signatureDropped } from '../shared/warnings.js';
import { FORMAT, outputItemId, type WireOutputItem, type WireOutputText, type WireRefusal, type WireUsage } from './schemas.js';

export type MessagePartKind = 'output_text' | 'refusal';

export function contentPart(kind: MessagePartKind, text: string): WireOutputText | WireRefusal {
  return kind === 'refusal' ? { type: 'refusal', refusal: text } : { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function messageItem(id: string, parts: Array<WireOutputText | WireRefusal>, status: string): WireOutputItem {
  return { id, type: 'message', status, role: 'assistant', content: parts };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: string): WireOutputItem {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name };
}

export function reasoningItem(id: string, summaries: string[], encrypted: string | undefined): WireOutputItem {
  const item: WireOutputItem = { id, type: 'reasoning', summary: summaries.map((text) => ({ type: 'summary_text', text })) };
  if (encrypted !== undefined) item.encrypted_content = encrypted;
  return item;
}

export interface ResponseFields {
  id: string;
  model: string;
  createdAt: number;
  status: string;
  output: unknown[];
  usage: WireUsage | null;
  incompleteDetails?: JsonObject | null;
  error?: JsonObject | null;
}

/**
 * A response object. The fields a Responses client types as required are always present; the
 * request echoes the encoder cannot know (instructions, tools, temperature) carry neutral values.
 */
export function responseObject(fields: ResponseFields): JsonObject {
  return {
    id: fields.id,
    object: 'response',
    created_at: fields.createdAt,
    status: fields.status,
    error: fields.error ?? null,
    incomplete_details: fields.incompleteDetails ?? null,
    instructions: null,
    metadata: null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    usage: fields.usage,
  };
}

/** Reasoning a client of the Responses API may be shown (and, if it is OpenAI's, sent back). */
export function visibleReasoning(part: ReasoningPart, path: string, warnings: ConversionWarning[]): { own: boolean; show: boolean } {
  const own = part.issuer === 'openai' || (part.issuer === undefined && (part.itemId !== undefined || part.encryptedContent !== undefined));
  if (!own && (part.signature !== undefined || part.redactedData !== undefined || part.encryptedContent !== undefined)) {
    warnings.push(signatureDropped(path, part.issuer ?? 'another vendor', FORMAT));
  }
  return { own, show: own || part.text !== '' };
}

/**
 * IR content → output items, in order: runs of text and refusals form one message item, reasoning
 * parts of one item id one reasoning item, each tool call a function_call item. Absent ids are
 * derived from the response id and the output index.
 */
export function outputItems(content: AssistantContentPart[], responseId: string, warnings: ConversionWarning[]): WireOutputItem[] {
  const out: WireOutputItem[] = [];
  let message: Array<WireOutputText | WireRefusal> | undefined;
  let reasoning: { key: string | undefined; item: Extract<WireOutputItem, { type: 'reasoning' }> } | undefined;
  content.forEach((part, i) => {
    const path = `content[${i}]`;
    if (part.type !== 'text' && part.type !== 'refusal') message = undefined;
    if (part.type !== 'reasoning') reasoning = undefined;
    switch (part.type) {
      case 'text':
      case 'refusal': {
        if (message === undefined) {
          message = [];
          out.push(messageItem(outputItemId('msg', responseId, out.length), message, 'completed'));
        }
        message.push(contentPart(part.type === 'text' ? 'output_text' : 'refusal', part.text));
        return;
      }
      case 'reasoning': {
        const { own, show } = visibleReasoning(part, path, warnings);
        if (!show) {
          reasoning = undefined;
          return;
        }
        const key = own ? part.itemId : undefined;
        if (reasoning !== undefined && key !== undefined && reasoning.key === key) {
          if (part.text !== '') reasoning.item.summary.push({ type: 'summary_text', text: part.text });
          if (part.encryptedContent !== undefined) reasoning.item.encrypted_content = part.encryptedContent;
          return;
        }
        const id = key ?? outputItemId('rs', responseId, out.length);
        const item = reasoningItem(id, part.text === '' ? [] : [part.text], own ? part.encryptedContent : undefined);
        if (item.type === 'reasoning') reasoning = { key, item };
        out.push(item);
        return;
      }
      case 'tool_call':
        // A Gemini thought signature rides in the call id the client echoes back (restored on the next request).
        out.push(
          functionCallItem(
            part.itemId ?? outputItemId('fc', responseId, out.length),
            foldSignature(part.id, part.thoughtSignature),
            part.name,
            part.arguments === '' ? '{}' : part.arguments,
            'completed',
          ),
        );
        return;
      case 'image':
        warnings.push(dropped(path, 'OpenAI Responses output carries no images here'));
        return;
    }
  });
  return out;
}
