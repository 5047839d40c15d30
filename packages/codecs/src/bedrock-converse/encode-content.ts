/**
 * IR content parts → Converse content blocks (shared by request and response encoding). A part
 * with `cacheControl` is followed by a `cachePoint` block.
 */
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, ReasoningPart, TextPart, ToolCallPart, ToolResultPart } from '../ir/content.js';
import type { ConversionWarning } from '../ir/warning.js';
import { sourceFromUrl } from '../shared/data-uri.js';
import { isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { foldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy, signatureDropped } from '../shared/warnings.js';
import { cachePointBlock, DOCUMENT_FORMATS, documentName, formatOf, FORMAT, IMAGE_FORMATS } from './schemas.js';

/** A block and, when the part carries a cache breakpoint, the cache point after it. */
function withCachePoint(block: JsonObject, part: { cacheControl?: TextPart['cacheControl'] }): JsonObject[] {
  return part.cacheControl === undefined ? [block] : [block, cachePointBlock(part.cacheControl)];
}

/** An IR source → a Converse `source` (base64 `bytes` or an S3 location). Other URLs have no form. */
function encodeSource(source: MediaSource, path: string, warnings: ConversionWarning[]): { source: JsonObject; mediaType?: string } | undefined {
  const resolved = source.kind === 'url' && source.url.startsWith('data:') ? sourceFromUrl(source.url) : source;
  if (resolved.kind === 'base64') return { source: { bytes: resolved.data }, mediaType: resolved.mediaType };
  if (resolved.kind === 'url' && resolved.url.startsWith('s3://')) {
    const out: { source: JsonObject; mediaType?: string } = { source: { s3Location: { uri: resolved.url } } };
    if (resolved.mediaType !== undefined) out.mediaType = resolved.mediaType;
    return out;
  }
  warnings.push(dropped(path, resolved.kind === 'url' ? 'Bedrock takes inline bytes or s3:// locations, not web URLs' : 'Bedrock has no file ids'));
  return undefined;
}

export function encodeImage(part: ImagePart, path: string, warnings: ConversionWarning[]): JsonObject[] {
  if (part.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'Bedrock has no image detail setting'));
  const encoded = encodeSource(part.source, path, warnings);
  if (encoded === undefined) return [];
  const format = formatOf(IMAGE_FORMATS, encoded.mediaType) ?? (encoded.mediaType === undefined ? 'jpeg' : undefined);
  if (format === undefined) {
    warnings.push(dropped(path, `Bedrock images are png, jpeg, gif or webp, not ${encoded.mediaType}`));
    return [];
  }
  return withCachePoint({ image: { format, source: encoded.source } }, part);
}

/** A file part → a `document` block, or an `image` block for image files. */
export function encodeFile(part: FilePart, path: string, index: number, warnings: ConversionWarning[]): JsonObject[] {
  const media = part.source.kind === 'url' && part.source.url.startsWith('data:') ? sourceFromUrl(part.source.url).mediaType : part.source.mediaType;
  if (formatOf(IMAGE_FORMATS, media) !== undefined)
    return encodeImage({ type: 'image', source: part.source, ...(part.cacheControl === undefined ? {} : { cacheControl: part.cacheControl }) }, path, warnings);
  const format = formatOf(DOCUMENT_FORMATS, media ?? 'application/pdf');
  if (format === undefined) {
    warnings.push(dropped(path, `Bedrock documents are ${Object.keys(DOCUMENT_FORMATS).join(', ')}, not ${media}`));
    return [];
  }
  const encoded = encodeSource(part.source, path, warnings);
  if (encoded === undefined) return [];
  return withCachePoint({ document: { format, name: documentName(part.filename, index), source: encoded.source } }, part);
}

export function encodeText(part: TextPart): JsonObject[] {
  return withCachePoint({ text: part.text }, part);
}

export function encodeToolResult(part: ToolResultPart, path: string, warnings: ConversionWarning[]): JsonObject[] {
  const content: JsonObject[] = [];
  part.content.forEach((c, i) => {
    const p = `${path}.content[${i}]`;
    if (c.cacheControl !== undefined) warnings.push(dropped(`${p}.cacheControl`, 'Bedrock has no cache point inside a tool result'));
    if (c.type === 'text') content.push({ text: c.text });
    else if (c.type === 'image') content.push(...encodeImage({ ...c, cacheControl: undefined }, p, warnings).slice(0, 1));
    else content.push(...encodeFile({ ...c, cacheControl: undefined }, p, i, warnings).slice(0, 1));
  });
  // Bedrock rejects a tool result with no content.
  if (content.length === 0) content.push({ text: '' });
  const result: JsonObject = { toolUseId: part.toolCallId, content };
  if (part.isError === true) result['status'] = 'error';
  else if (part.isError === false) result['status'] = 'success';
  return withCachePoint({ toolResult: result }, part);
}

/** Tool call arguments (JSON text) → the `input` document Converse requires. */
function encodeToolInput(args: string, path: string, warnings: ConversionWarning[]): JsonObject {
  if (args.trim().length === 0) return {};
  const parsed = parseJson(args);
  if (parsed.ok && isObject(parsed.value)) return parsed.value;
  warnings.push(lossy(path, `${path}: the tool call arguments are not a JSON object; sent as an empty input.`));
  return {};
}

/**
 * A tool call → `toolUse`. In a response, a Gemini thought signature rides in the id the client
 * echoes back (restored on its next request); a request to Bedrock never carries it.
 */
export function encodeToolUse(part: ToolCallPart, path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject[] {
  if (part.thoughtSignature !== undefined && forRequest) warnings.push(signatureDropped(`${path}.thoughtSignature`, 'google', FORMAT));
  const toolUseId = forRequest ? part.id : foldSignature(part.id, part.thoughtSignature);
  return withCachePoint({ toolUse: { toolUseId, name: part.name, input: encodeToolInput(part.arguments, path, warnings) } }, part);
}

/**
 * A reasoning part → `reasoningContent`. Only Claude's own values can go back to a model: in a
 * request, unsigned or foreign reasoning is dropped (Bedrock's Claude rejects it); in a response
 * shown to a client, foreign reasoning text is kept without a signature.
 */
export function encodeReasoning(part: ReasoningPart, path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject[] {
  const own = part.issuer === 'anthropic';
  if (part.redactedData !== undefined) {
    if (own) return withCachePoint({ reasoningContent: { redactedContent: part.redactedData } }, part);
    warnings.push(signatureDropped(`${path}.redactedData`, part.issuer ?? 'an unknown vendor', FORMAT));
    return [];
  }
  if (part.encryptedContent !== undefined) warnings.push(signatureDropped(`${path}.encryptedContent`, part.issuer ?? 'openai', FORMAT));
  if (own && part.signature !== undefined) {
    return withCachePoint({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }, part);
  }
  if (part.signature !== undefined) warnings.push(signatureDropped(`${path}.signature`, part.issuer ?? 'an unknown vendor', FORMAT));
  if (forRequest) {
    if (part.text.length > 0 || part.signature === undefined) {
      warnings.push(lossy(path, `${path}: Bedrock rejects earlier reasoning without Claude's signature; the reasoning was dropped.`));
    }
    return [];
  }
  if (part.text.length === 0) return [];
  return [{ reasoningContent: { reasoningText: { text: part.text } } }];
}

/** One assistant part → Converse blocks (none, with a warning, where content is lost). */
export function encodeAssistantPart(part: AssistantContentPart, path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject[] {
  switch (part.type) {
    case 'text':
      if (part.text.length === 0 && forRequest) return []; // Bedrock rejects empty text blocks
      return encodeText(part);
    case 'tool_call':
      return encodeToolUse(part, path, warnings, forRequest);
    case 'reasoning':
      return encodeReasoning(part, path, warnings, forRequest);
    case 'refusal':
      warnings.push(lossy(path, `${path}: Bedrock has no refusal block; the refusal was sent as text.`));
      return [{ text: part.text }];
    case 'image':
      if (forRequest) {
        warnings.push(dropped(path, 'Bedrock assistant turns in a request cannot hold images'));
        return [];
      }
      return encodeImage(part, path, warnings);
  }
}
