/** IR content parts → Anthropic content blocks (shared by request and response encoding). */
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../ir/content.js';
import type { ConversionWarning } from '../ir/warning.js';
import { sourceFromUrl } from '../shared/data-uri.js';
import { isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy, signatureDropped } from '../shared/warnings.js';
import { FORMAT, withCache } from './schemas.js';
import { base64ToUtf8 } from './text-base64.js';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** An IR media source → an Anthropic `source`. Data URIs become base64 sources. */
export function encodeSource(source: MediaSource): JsonObject {
  if (source.kind === 'url') {
    const parsed = source.url.startsWith('data:') ? sourceFromUrl(source.url) : source;
    if (parsed.kind === 'base64') return { type: 'base64', media_type: parsed.mediaType, data: parsed.data };
    return { type: 'url', url: source.url };
  }
  if (source.kind === 'file_id') return { type: 'file', file_id: source.fileId };
  return { type: 'base64', media_type: source.mediaType, data: source.data };
}

export function encodeText(part: TextPart): JsonObject {
  return withCache({ type: 'text', text: part.text }, part.cacheControl);
}

export function encodeImage(part: ImagePart, path: string, warnings: ConversionWarning[]): JsonObject {
  if (part.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'Anthropic has no image detail setting'));
  return withCache({ type: 'image', source: encodeSource(part.source) }, part.cacheControl);
}

function mediaTypeOf(source: MediaSource): string | undefined {
  const resolved = source.kind === 'url' && source.url.startsWith('data:') ? sourceFromUrl(source.url) : source;
  return resolved.mediaType;
}

/** A file part → a `document` block (PDF or plain text), or an `image` block for image files. */
export function encodeFile(part: FilePart, path: string, warnings: ConversionWarning[]): JsonObject | undefined {
  const mediaType = mediaTypeOf(part.source);
  if (mediaType !== undefined && IMAGE_TYPES.has(mediaType)) {
    return withCache({ type: 'image', source: encodeSource(part.source) }, part.cacheControl);
  }
  let source: JsonObject;
  if (part.source.kind === 'base64' && part.source.mediaType === 'text/plain') {
    const text = base64ToUtf8(part.source.data);
    if (text === undefined) {
      warnings.push(dropped(path, 'the text file is not valid base64'));
      return undefined;
    }
    source = { type: 'text', media_type: 'text/plain', data: text };
  } else if (mediaType === undefined || mediaType === 'application/pdf' || part.source.kind !== 'base64') {
    source = encodeSource(part.source);
  } else {
    warnings.push(dropped(path, `Anthropic documents accept PDF and plain text, not ${mediaType}`));
    return undefined;
  }
  const block: JsonObject = { type: 'document', source };
  if (part.filename !== undefined) block['title'] = part.filename;
  return withCache(block, part.cacheControl);
}

export function encodeToolResult(part: ToolResultPart, path: string, warnings: ConversionWarning[]): JsonObject {
  const block: JsonObject = { type: 'tool_result', tool_use_id: part.toolCallId };
  const only = part.content[0];
  if (part.content.length === 1 && only !== undefined && only.type === 'text' && only.cacheControl === undefined) {
    block['content'] = only.text;
  } else if (part.content.length > 0) {
    const inner: JsonObject[] = [];
    part.content.forEach((c, i) => {
      const p = `${path}.content[${i}]`;
      if (c.type === 'text') inner.push(encodeText(c));
      else if (c.type === 'image') inner.push(encodeImage(c, p, warnings));
      else {
        const doc = encodeFile(c, p, warnings);
        if (doc !== undefined) inner.push(doc);
      }
    });
    block['content'] = inner;
  }
  if (part.isError !== undefined) block['is_error'] = part.isError;
  return withCache(block, part.cacheControl);
}

/** Tool call arguments (JSON text) → the `input` object Anthropic requires. */
export function encodeToolInput(args: string, path: string, warnings: ConversionWarning[]): JsonObject {
  if (args.trim().length === 0) return {};
  const parsed = parseJson(args);
  if (parsed.ok && isObject(parsed.value)) return parsed.value;
  warnings.push(lossy(path, `${path}: the tool call arguments are not a JSON object; sent as an empty input.`));
  return {};
}

/**
 * A tool call → `tool_use`. In a response, a Gemini thought signature rides in the id the client
 * echoes back (restored on its next request); a request to Anthropic never carries it.
 */
export function encodeToolUse(part: ToolCallPart, path: string, warnings: ConversionWarning[], forRequest = true): JsonObject {
  if (part.thoughtSignature !== undefined && forRequest) warnings.push(signatureDropped(`${path}.thoughtSignature`, 'google', FORMAT));
  const id = forRequest ? part.id : foldSignature(part.id, part.thoughtSignature);
  return withCache({ type: 'tool_use', id, name: part.name, input: encodeToolInput(part.arguments, path, warnings) }, part.cacheControl);
}

/**
 * A reasoning part → `thinking` / `redacted_thinking`. Only values Anthropic issued can go back:
 * in a request, unsigned or foreign reasoning is dropped (Anthropic rejects it); in a response
 * shown to a client, foreign reasoning text is kept as thinking with an empty signature.
 */
export function encodeReasoning(part: ReasoningPart, path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject | undefined {
  const fromAnthropic = part.issuer === 'anthropic';
  if (part.redactedData !== undefined) {
    if (fromAnthropic) return withCache({ type: 'redacted_thinking', data: part.redactedData }, part.cacheControl);
    warnings.push(signatureDropped(`${path}.redactedData`, part.issuer ?? 'an unknown vendor', FORMAT));
    return undefined;
  }
  if (part.encryptedContent !== undefined) warnings.push(signatureDropped(`${path}.encryptedContent`, part.issuer ?? 'openai', FORMAT));
  if (fromAnthropic && part.signature !== undefined) {
    return withCache({ type: 'thinking', thinking: part.text, signature: part.signature }, part.cacheControl);
  }
  if (part.signature !== undefined) warnings.push(signatureDropped(`${path}.signature`, part.issuer ?? 'an unknown vendor', FORMAT));
  if (forRequest) {
    if (part.text.length > 0 || part.signature === undefined) {
      warnings.push(lossy(path, `${path}: Anthropic rejects thinking without an Anthropic signature; the reasoning was dropped.`));
    }
    return undefined;
  }
  if (part.text.length === 0) return undefined;
  return { type: 'thinking', thinking: part.text, signature: '' };
}

/** One assistant part → an Anthropic block, or nothing (with a warning where content is lost). */
export function encodeAssistantPart(part: AssistantContentPart, path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject | undefined {
  switch (part.type) {
    case 'text':
      if (part.text.length === 0 && forRequest) return undefined; // Anthropic rejects empty text blocks
      return encodeText(part);
    case 'tool_call':
      return encodeToolUse(part, path, warnings, forRequest);
    case 'reasoning':
      return encodeReasoning(part, path, warnings, forRequest);
    case 'refusal':
      warnings.push(lossy(path, `${path}: Anthropic has no refusal block; the refusal was sent as text.`));
      return { type: 'text', text: part.text };
    case 'image':
      warnings.push(dropped(path, 'Anthropic assistant turns cannot hold images'));
      return undefined;
  }
}
