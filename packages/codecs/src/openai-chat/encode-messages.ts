/** IR system parts and messages → `messages[]` of a Chat Completions request. */
import type { AssistantContentPart, FilePart, ImagePart, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { AssistantMessage, Message } from '../ir/message.js';
import type { ConversionWarning } from '../ir/warning.js';
import { urlFromSource } from '../shared/data-uri.js';
import type { JsonObject } from '../shared/guards.js';
import { audioFormat } from '../shared/openai-content.js';
import { dropped, lossy, signatureDropped } from '../shared/warnings.js';
import { encodeCacheControl, FORMAT, type WireContentPart, type WireToolCall } from './schemas.js';

export function encodeMessages(system: TextPart[], messages: Message[], warnings: ConversionWarning[]): JsonObject[] {
  const out: JsonObject[] = [];
  // One system message per part keeps a round trip of several system messages exact.
  for (const part of system) out.push({ role: 'system', content: textContent([part]) });
  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.role === 'user') {
      const wire: JsonObject = { role: 'user', content: userContent(message.content, `${path}.content`, warnings) };
      if (message.name !== undefined) wire.name = message.name;
      out.push(wire);
    } else if (message.role === 'assistant') {
      out.push(assistantMessage(message, path, warnings));
    } else {
      // OpenAI takes one `tool` message per result.
      message.content.forEach((result, k) => out.push(toolMessage(result, `${path}.content[${k}]`, warnings)));
    }
  });
  return out;
}

function textPart(part: TextPart): WireContentPart {
  return part.cacheControl === undefined
    ? { type: 'text', text: part.text }
    : { type: 'text', text: part.text, cache_control: encodeCacheControl(part.cacheControl) };
}

/** A lone plain text part is sent as a string, the form every OpenAI-compatible server takes. */
function textContent(parts: TextPart[]): string | WireContentPart[] {
  const only = parts[0];
  if (parts.length === 1 && only !== undefined && only.cacheControl === undefined) return only.text;
  return parts.map(textPart);
}

function userContent(parts: UserContentPart[], path: string, warnings: ConversionWarning[]): string | WireContentPart[] {
  if (parts.every((p): p is TextPart => p.type === 'text')) return parts.length === 0 ? '' : textContent(parts);
  const out: WireContentPart[] = [];
  parts.forEach((part, j) => {
    const encoded = mediaPart(part, `${path}[${j}]`, warnings);
    if (encoded !== undefined) out.push(encoded);
  });
  return out;
}

function mediaPart(part: UserContentPart, path: string, warnings: ConversionWarning[]): WireContentPart | undefined {
  if (part.type === 'text') return textPart(part);
  const encoded = part.type === 'image' ? imagePart(part, path, warnings) : filePart(part, path, warnings);
  if (encoded !== undefined && part.cacheControl !== undefined) encoded.cache_control = encodeCacheControl(part.cacheControl);
  return encoded;
}

function imagePart(part: ImagePart, path: string, warnings: ConversionWarning[]): WireContentPart | undefined {
  const url = urlFromSource(part.source);
  if (url === null) {
    warnings.push(dropped(path, 'OpenAI Chat images take a URL or data URI, not a file id'));
    return undefined;
  }
  const image: { url: string; detail?: string } = { url };
  if (part.detail !== undefined) image.detail = part.detail;
  return { type: 'image_url', image_url: image };
}

function filePart(part: FilePart, path: string, warnings: ConversionWarning[]): WireContentPart | undefined {
  const source = part.source;
  if (source.kind === 'file_id') {
    const file: { file_id: string; filename?: string } = { file_id: source.fileId };
    if (part.filename !== undefined) file.filename = part.filename;
    return { type: 'file', file };
  }
  if (source.kind === 'url') {
    warnings.push(dropped(path, 'OpenAI Chat cannot fetch files from a URL'));
    return undefined;
  }
  const format = audioFormat(source.mediaType);
  if (format !== undefined) return { type: 'input_audio', input_audio: { data: source.data, format } };
  if (source.mediaType.startsWith('image/')) return { type: 'image_url', image_url: { url: `data:${source.mediaType};base64,${source.data}` } };
  const file: { file_data: string; filename?: string } = { file_data: `data:${source.mediaType};base64,${source.data}` };
  if (part.filename !== undefined) file.filename = part.filename;
  return { type: 'file', file };
}

function assistantMessage(message: AssistantMessage, path: string, warnings: ConversionWarning[]): JsonObject {
  const texts: TextPart[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: WireToolCall[] = [];
  message.content.forEach((part: AssistantContentPart, j) => {
    const partPath = `${path}.content[${j}]`;
    switch (part.type) {
      case 'text':
        texts.push(part);
        break;
      case 'refusal':
        refusals.push(part.text);
        break;
      case 'reasoning':
        if (part.signature !== undefined || part.redactedData !== undefined || part.encryptedContent !== undefined) {
          warnings.push(signatureDropped(partPath, part.issuer ?? 'another vendor', FORMAT));
        } else if (part.text !== '') {
          reasoning.push(part.text);
        }
        break;
      case 'tool_call':
        if (part.thoughtSignature !== undefined) warnings.push(signatureDropped(`${partPath}.thoughtSignature`, 'google', FORMAT));
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      case 'image':
        warnings.push(dropped(partPath, 'OpenAI Chat assistant messages carry no images'));
        break;
    }
  });
  const wire: JsonObject = { role: 'assistant', content: texts.length === 0 ? null : textContent(texts) };
  if (refusals.length > 0) wire.refusal = refusals.join('');
  if (reasoning.length > 0) wire.reasoning_content = reasoning.join('\n\n');
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  if (message.name !== undefined) wire.name = message.name;
  return wire;
}

function toolMessage(result: ToolResultPart, path: string, warnings: ConversionWarning[]): JsonObject {
  const texts: TextPart[] = [];
  result.content.forEach((part, j) => {
    if (part.type === 'text') texts.push(part);
    else warnings.push(lossy(`${path}.content[${j}]`, `OpenAI Chat tool results carry only text; a ${part.type} part was dropped.`));
  });
  if (result.isError === true) {
    warnings.push(lossy(`${path}.isError`, 'OpenAI Chat tool results have no error flag; the result is sent as plain content.'));
  }
  return { role: 'tool', tool_call_id: result.toolCallId, content: texts.length === 0 ? '' : textContent(texts) };
}
