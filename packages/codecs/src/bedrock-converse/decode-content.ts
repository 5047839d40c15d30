/**
 * Converse content blocks → IR content parts (shared by request and response decoding). A
 * `cachePoint` block is a breakpoint after the block before it: it becomes that part's
 * `cacheControl`.
 */
import { utf8ToBase64 } from '../anthropic-messages/text-base64.js';
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import { asArray, asString, isObject, type JsonObject } from '../shared/guards.js';
import { baseCallId, unfoldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy } from '../shared/warnings.js';
import { bad, cachePointOf, DOCUMENT_FORMATS, IMAGE_FORMATS, memberOf, type DecodeContext } from './schemas.js';

/** A Converse media `source` (`bytes` or `s3Location`; documents also `text`) → IR media source. */
function decodeSource(source: unknown, mediaType: string, path: string, ctx: DecodeContext, allowText: boolean): MediaSource | undefined {
  if (!isObject(source)) return bad(ctx, path, 'must be an object with bytes or s3Location');
  const bytes = asString(source['bytes']);
  if (bytes !== undefined) return { kind: 'base64', mediaType, data: bytes };
  const s3 = source['s3Location'];
  if (isObject(s3) && typeof s3['uri'] === 'string') {
    if (s3['bucketOwner'] !== undefined) ctx.warnings.push(dropped(`${path}.s3Location.bucketOwner`, 'no canonical form'));
    return { kind: 'url', url: s3['uri'], mediaType };
  }
  const text = asString(source['text']);
  if (allowText && text !== undefined) return { kind: 'base64', mediaType: 'text/plain', data: utf8ToBase64(text) };
  return bad(ctx, path, 'must hold bytes (base64) or an s3Location');
}

function decodeImage(image: unknown, path: string, ctx: DecodeContext): ImagePart | undefined {
  if (!isObject(image)) return bad(ctx, path, 'must be an object');
  const format = asString(image['format']);
  const mediaType = format === undefined ? undefined : IMAGE_FORMATS[format];
  if (mediaType === undefined) return bad(ctx, `${path}.format`, `must be one of ${Object.keys(IMAGE_FORMATS).join(', ')}`);
  const source = decodeSource(image['source'], mediaType, `${path}.source`, ctx, false);
  return source === undefined ? undefined : { type: 'image', source };
}

function decodeDocument(document: unknown, path: string, ctx: DecodeContext): FilePart | undefined {
  if (!isObject(document)) return bad(ctx, path, 'must be an object');
  const format = asString(document['format']) ?? 'txt';
  const mediaType = DOCUMENT_FORMATS[format];
  if (mediaType === undefined) return bad(ctx, `${path}.format`, `must be one of ${Object.keys(DOCUMENT_FORMATS).join(', ')}`);
  const source = decodeSource(document['source'], mediaType, `${path}.source`, ctx, true);
  if (source === undefined) return undefined;
  const part: FilePart = { type: 'file', source };
  const name = asString(document['name']);
  if (name !== undefined) part.filename = name;
  for (const key of ['context', 'citations']) if (document[key] !== undefined) ctx.warnings.push(dropped(`${path}.${key}`, 'no canonical form'));
  return part;
}

/** The content of a `toolResult`: text, JSON (as its text), images and documents. */
function decodeToolResultContent(content: unknown, path: string, ctx: DecodeContext): ToolResultPart['content'] {
  const list = asArray(content);
  if (list === undefined) {
    if (content !== undefined) bad(ctx, path, 'must be an array');
    return [];
  }
  const out: ToolResultPart['content'] = [];
  list.forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(item)) return void bad(ctx, p, 'must be an object');
    const member = memberOf(item);
    if (member === 'text' && typeof item['text'] === 'string') out.push({ type: 'text', text: item['text'] });
    else if (member === 'json') out.push({ type: 'text', text: JSON.stringify(item['json']) });
    else if (member === 'image') {
      const image = decodeImage(item['image'], `${p}.image`, ctx);
      if (image !== undefined) out.push(image);
    } else if (member === 'document') {
      const doc = decodeDocument(item['document'], `${p}.document`, ctx);
      if (doc !== undefined) out.push(doc);
    } else ctx.warnings.push(dropped(p, `a ${member ?? 'malformed'} item in a tool result has no canonical form`));
  });
  return out;
}

type Part = UserContentPart | ToolResultPart | AssistantContentPart;

/** Mark the part a cache point follows; a cache point with nothing before it is reported. */
function applyCachePoint(parts: Part[], block: JsonObject, path: string, ctx: DecodeContext): void {
  const last = parts[parts.length - 1];
  const cache = cachePointOf(block);
  if (last === undefined || cache === undefined) {
    ctx.warnings.push(dropped(path, 'a cache point with no content before it'));
    return;
  }
  if (last.type !== 'refusal') last.cacheControl = cache;
}

/** The blocks of a user turn → user content and tool results, in order. */
export function decodeUserBlocks(blocks: unknown[], path: string, ctx: DecodeContext): Array<UserContentPart | ToolResultPart> {
  const out: Array<UserContentPart | ToolResultPart> = [];
  blocks.forEach((block, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(block)) return void bad(ctx, p, 'must be a content block object');
    const member = memberOf(block);
    switch (member) {
      case 'text':
        if (typeof block['text'] !== 'string') return void bad(ctx, `${p}.text`, 'must be a string');
        out.push({ type: 'text', text: block['text'] });
        return;
      case 'image': {
        const image = decodeImage(block['image'], `${p}.image`, ctx);
        if (image !== undefined) out.push(image);
        return;
      }
      case 'document': {
        const doc = decodeDocument(block['document'], `${p}.document`, ctx);
        if (doc !== undefined) out.push(doc);
        return;
      }
      case 'toolResult': {
        const result = block['toolResult'];
        if (!isObject(result) || typeof result['toolUseId'] !== 'string') return void bad(ctx, `${p}.toolResult.toolUseId`, 'must be a string');
        const part: ToolResultPart = {
          type: 'tool_result',
          toolCallId: baseCallId(result['toolUseId']),
          content: decodeToolResultContent(result['content'], `${p}.toolResult.content`, ctx),
        };
        if (result['status'] === 'error') part.isError = true;
        else if (result['status'] === 'success') part.isError = false;
        out.push(part);
        return;
      }
      case 'cachePoint':
        applyCachePoint(out, block, p, ctx);
        return;
      case 'guardContent': {
        const guarded = block['guardContent'];
        const inner = isObject(guarded) && isObject(guarded['text']) ? asString(guarded['text']['text']) : undefined;
        if (inner !== undefined) {
          ctx.warnings.push(lossy(p, `${p}: guardrail-scoped text was sent as plain text.`));
          out.push({ type: 'text', text: inner });
        } else ctx.warnings.push(dropped(p, 'guard content other than text has no canonical form'));
        return;
      }
      default:
        ctx.warnings.push(lossy(p, `${p}: a ${member ?? 'malformed'} block in a user turn has no canonical form; it was dropped.`));
    }
  });
  return out;
}

/** One `reasoningContent` block → a reasoning part (Claude's signature or redacted thinking). */
function decodeReasoning(value: unknown, path: string, ctx: DecodeContext): AssistantContentPart | undefined {
  if (!isObject(value)) return bad(ctx, path, 'must be an object');
  const redacted = asString(value['redactedContent']);
  if (redacted !== undefined) return { type: 'reasoning', text: '', redactedData: redacted, issuer: 'anthropic' };
  const text = isObject(value['reasoningText']) ? value['reasoningText'] : undefined;
  if (text === undefined || typeof text['text'] !== 'string') return bad(ctx, `${path}.reasoningText.text`, 'must be a string');
  const part: AssistantContentPart = { type: 'reasoning', text: text['text'], issuer: 'anthropic' };
  const signature = asString(text['signature']);
  if (signature !== undefined && signature.length > 0) part.signature = signature;
  return part;
}

/** The blocks of an assistant turn (request history or response content). */
export function decodeAssistantBlocks(blocks: unknown[], path: string, ctx: DecodeContext): AssistantContentPart[] {
  const out: AssistantContentPart[] = [];
  blocks.forEach((block, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(block)) return void bad(ctx, p, 'must be a content block object');
    const member = memberOf(block);
    switch (member) {
      case 'text':
        if (typeof block['text'] !== 'string') return void bad(ctx, `${p}.text`, 'must be a string');
        out.push({ type: 'text', text: block['text'] });
        return;
      case 'toolUse': {
        const use = block['toolUse'];
        if (!isObject(use) || typeof use['toolUseId'] !== 'string' || typeof use['name'] !== 'string') {
          return void bad(ctx, `${p}.toolUse`, 'must have a toolUseId and a name');
        }
        // An id the gateway gave out may carry a Gemini thought signature: it goes back on the call.
        const unfolded = unfoldSignature(use['toolUseId']);
        const input = use['input'] === undefined ? {} : use['input'];
        const part: AssistantContentPart = { type: 'tool_call', id: unfolded.id, name: use['name'], arguments: JSON.stringify(input) };
        if (unfolded.thoughtSignature !== undefined) part.thoughtSignature = unfolded.thoughtSignature;
        out.push(part);
        return;
      }
      case 'reasoningContent': {
        const part = decodeReasoning(block['reasoningContent'], `${p}.reasoningContent`, ctx);
        if (part !== undefined) out.push(part);
        return;
      }
      case 'image': {
        const image = decodeImage(block['image'], `${p}.image`, ctx);
        if (image !== undefined) out.push(image);
        return;
      }
      case 'cachePoint':
        applyCachePoint(out, block, p, ctx);
        return;
      default:
        ctx.warnings.push(lossy(p, `${p}: a ${member ?? 'malformed'} block has no canonical form; it was skipped.`));
    }
  });
  return out;
}

/** `system` blocks → IR system text (cache points mark the text before them). */
export function decodeSystem(value: unknown, ctx: DecodeContext): TextPart[] {
  if (value === undefined || value === null) return [];
  const list = asArray(value);
  if (list === undefined) return bad(ctx, 'system', 'must be an array of system content blocks') ?? [];
  const out: TextPart[] = [];
  list.forEach((block, i) => {
    const p = `system[${i}]`;
    if (!isObject(block)) return void bad(ctx, p, 'must be an object');
    const member = memberOf(block);
    if (member === 'text' && typeof block['text'] === 'string') out.push({ type: 'text', text: block['text'] });
    else if (member === 'cachePoint') {
      const last = out[out.length - 1];
      const cache = cachePointOf(block);
      if (last !== undefined && cache !== undefined) last.cacheControl = cache;
      else ctx.warnings.push(dropped(p, 'a cache point with no system text before it'));
    } else ctx.warnings.push(dropped(p, `a ${member ?? 'malformed'} system block has no canonical form`));
  });
  return out;
}
