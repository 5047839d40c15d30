/** IR messages → `input` items of a Responses request. */
import type { AssistantContentPart, ReasoningPart, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { AssistantMessage, Message } from '../ir/message.js';
import type { ConversionWarning } from '../ir/warning.js';
import { urlFromSource } from '../shared/data-uri.js';
import type { JsonObject } from '../shared/guards.js';
import { dropped, lossy, signatureDropped } from '../shared/warnings.js';
import { FORMAT } from './schemas.js';

export function encodeInput(messages: Message[], warnings: ConversionWarning[]): JsonObject[] {
  const out: JsonObject[] = [];
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.role === 'user') out.push({ role: 'user', content: userContent(message.content, `${path}.content`, warnings) });
    else if (message.role === 'assistant') out.push(...assistantItems(message, path, warnings));
    else message.content.forEach((result, k) => out.push(toolOutput(result, `${path}.content[${k}]`, warnings)));
  });
  return out;
}

/** System parts → `instructions` (one string). */
export function encodeInstructions(system: TextPart[], warnings: ConversionWarning[]): string | undefined {
  if (system.length === 0) return undefined;
  system.forEach((part, i) => {
    if (part.cacheControl !== undefined) warnings.push(dropped(`system[${i}].cacheControl`, 'OpenAI Responses has no cache_control'));
  });
  return system.map((part) => part.text).join('\n\n');
}

function noCache(part: { cacheControl?: unknown }, path: string, warnings: ConversionWarning[]): void {
  if (part.cacheControl !== undefined) warnings.push(dropped(`${path}.cacheControl`, 'OpenAI Responses has no cache_control'));
}

/** A lone text part is sent as a string, as most clients write it. */
function userContent(parts: UserContentPart[], path: string, warnings: ConversionWarning[]): string | JsonObject[] {
  parts.forEach((part, j) => noCache(part, `${path}[${j}]`, warnings));
  const only = parts[0];
  if (parts.length === 0) return '';
  if (parts.length === 1 && only !== undefined && only.type === 'text') return only.text;
  const out: JsonObject[] = [];
  parts.forEach((part, j) => {
    const encoded = inputPart(part, `${path}[${j}]`, warnings);
    if (encoded !== undefined) out.push(encoded);
  });
  return out;
}

function inputPart(part: UserContentPart, path: string, warnings: ConversionWarning[]): JsonObject | undefined {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  const source = part.source;
  if (part.type === 'image') {
    const image: JsonObject = { type: 'input_image', detail: part.detail ?? 'auto' };
    if (source.kind === 'file_id') image.file_id = source.fileId;
    else image.image_url = urlFromSource(source);
    return image;
  }
  const file: JsonObject = { type: 'input_file' };
  if (source.kind === 'file_id') file.file_id = source.fileId;
  else if (source.kind === 'url') file.file_url = source.url;
  else if (source.mediaType.startsWith('image/')) {
    return { type: 'input_image', detail: 'auto', image_url: urlFromSource(source) };
  } else {
    file.file_data = urlFromSource(source);
    if (part.filename === undefined) warnings.push(lossy(path, 'OpenAI Responses wants a filename with inline file data; none was given.'));
  }
  if (part.filename !== undefined) file.filename = part.filename;
  return file;
}

/** Reasoning the Responses API will accept back: its own items (an id or encrypted content). */
function isOpenAiReasoning(part: ReasoningPart): boolean {
  if (part.issuer !== undefined) return part.issuer === 'openai';
  return part.itemId !== undefined || part.encryptedContent !== undefined;
}

/**
 * An assistant message → items in order: runs of text and refusals become one message item,
 * reasoning parts of one item id one reasoning item, each tool call a function_call item.
 */
function assistantItems(message: AssistantMessage, path: string, warnings: ConversionWarning[]): JsonObject[] {
  const out: JsonObject[] = [];
  let texts: Array<Extract<AssistantContentPart, { type: 'text' | 'refusal' }>> = [];
  let reasoning: { id: string | undefined; item: JsonObject } | undefined;
  const flushTexts = () => {
    if (texts.length === 0) return;
    const only = texts[0];
    if (texts.length === 1 && only !== undefined && only.type === 'text') out.push({ role: 'assistant', content: only.text });
    else {
      const content = texts.map((p) => (p.type === 'text' ? { type: 'output_text', text: p.text } : { type: 'refusal', refusal: p.text }));
      out.push({ role: 'assistant', content });
    }
    texts = [];
  };
  message.content.forEach((part, j) => {
    const partPath = `${path}.content[${j}]`;
    if (part.type !== 'reasoning') reasoning = undefined;
    if (part.type !== 'text' && part.type !== 'refusal') flushTexts();
    switch (part.type) {
      case 'text':
        noCache(part, partPath, warnings);
        texts.push(part);
        return;
      case 'refusal':
        texts.push(part);
        return;
      case 'reasoning': {
        if (!isOpenAiReasoning(part)) {
          reasoning = undefined;
          if (part.signature !== undefined || part.redactedData !== undefined || part.encryptedContent !== undefined) {
            warnings.push(signatureDropped(partPath, part.issuer ?? 'another vendor', FORMAT));
          } else if (part.text !== '') {
            warnings.push(dropped(partPath, 'OpenAI Responses only takes back reasoning items it issued'));
          }
          return;
        }
        const summary = part.text === '' ? [] : [{ type: 'summary_text', text: part.text }];
        if (reasoning !== undefined && part.itemId !== undefined && reasoning.id === part.itemId) {
          (reasoning.item.summary as JsonObject[]).push(...summary);
          if (part.encryptedContent !== undefined) reasoning.item.encrypted_content = part.encryptedContent;
          return;
        }
        const item: JsonObject = { type: 'reasoning' };
        if (part.itemId !== undefined) item.id = part.itemId;
        item.summary = summary;
        if (part.encryptedContent !== undefined) item.encrypted_content = part.encryptedContent;
        reasoning = { id: part.itemId, item };
        out.push(item);
        return;
      }
      case 'tool_call': {
        if (part.thoughtSignature !== undefined) warnings.push(signatureDropped(`${partPath}.thoughtSignature`, 'google', FORMAT));
        const item: JsonObject = { type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments };
        if (part.itemId !== undefined) item.id = part.itemId;
        out.push(item);
        return;
      }
      case 'image':
        warnings.push(dropped(partPath, 'OpenAI Responses assistant messages carry no images'));
        return;
    }
  });
  flushTexts();
  return out;
}

function toolOutput(result: ToolResultPart, path: string, warnings: ConversionWarning[]): JsonObject {
  if (result.isError === true) {
    warnings.push(lossy(`${path}.isError`, 'OpenAI Responses tool outputs have no error flag; the result is sent as plain output.'));
  }
  return { type: 'function_call_output', call_id: result.toolCallId, output: userContent(result.content, `${path}.content`, warnings) };
}
