/** Anthropic content blocks → IR content parts (shared by request and response decoding). */
import { GatewayError } from '../errors/gateway-error.js';
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, TextPart, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { baseCallId, unfoldSignature } from '../shared/tool-call-id.js';
import { dropped, lossy } from '../shared/warnings.js';
import { cacheOf, isBlock, type WireBlock } from './schemas.js';
import { utf8ToBase64 } from './text-base64.js';

/** How to react to a malformed block: a client request is rejected, an upstream response tolerated. */
export interface DecodeContext {
  strict: boolean;
  warnings: ConversionWarning[];
}

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `${param}: ${message}`, { param });
}

function bad(ctx: DecodeContext, path: string, message: string): undefined {
  if (ctx.strict) throw invalid(path, message);
  ctx.warnings.push(dropped(path, message));
  return undefined;
}

function requireString(ctx: DecodeContext, block: JsonObject, key: string, path: string): string | undefined {
  const value = asString(block[key]);
  if (value === undefined) bad(ctx, `${path}.${key}`, 'must be a string');
  return value;
}

/** An Anthropic `source` → IR media source. */
export function decodeSource(source: unknown, path: string, ctx: DecodeContext): MediaSource | undefined {
  if (!isObject(source)) return bad(ctx, path, 'must be an object');
  switch (source['type']) {
    case 'base64': {
      const data = requireString(ctx, source, 'data', path);
      const mediaType = requireString(ctx, source, 'media_type', path);
      return data === undefined || mediaType === undefined ? undefined : { kind: 'base64', mediaType, data };
    }
    case 'url': {
      const url = requireString(ctx, source, 'url', path);
      return url === undefined ? undefined : { kind: 'url', url };
    }
    case 'file': {
      const fileId = requireString(ctx, source, 'file_id', path);
      return fileId === undefined ? undefined : { kind: 'file_id', fileId };
    }
    case 'text': {
      // Plain-text documents travel in the IR as base64 text/plain and come back as a text source.
      const data = requireString(ctx, source, 'data', path);
      return data === undefined ? undefined : { kind: 'base64', mediaType: 'text/plain', data: utf8ToBase64(data) };
    }
    default:
      ctx.warnings.push(dropped(path, `source type ${String(source['type'])} has no canonical form`));
      return undefined;
  }
}

function decodeText(block: WireBlock, path: string, ctx: DecodeContext): TextPart | undefined {
  const text = requireString(ctx, block, 'text', path);
  if (text === undefined) return undefined;
  if (Array.isArray(block['citations']) && block['citations'].length > 0) {
    ctx.warnings.push(dropped(`${path}.citations`, 'citations have no canonical form'));
  }
  return { type: 'text', text, ...cacheOf(block) };
}

function decodeImage(block: WireBlock, path: string, ctx: DecodeContext): ImagePart | undefined {
  const source = decodeSource(block['source'], `${path}.source`, ctx);
  return source === undefined ? undefined : { type: 'image', source, ...cacheOf(block) };
}

function decodeDocument(block: WireBlock, path: string, ctx: DecodeContext): FilePart | undefined {
  const raw = block['source'];
  if (isObject(raw) && raw['type'] === 'content') {
    ctx.warnings.push(dropped(path, 'documents with a content-block source have no canonical form'));
    return undefined;
  }
  const source = decodeSource(raw, `${path}.source`, ctx);
  if (source === undefined) return undefined;
  if (source.kind === 'url' && source.mediaType === undefined) source.mediaType = 'application/pdf';
  const part: FilePart = { type: 'file', source, ...cacheOf(block) };
  const title = asString(block['title']);
  if (title !== undefined) part.filename = title;
  if (block['context'] !== undefined && block['context'] !== null) ctx.warnings.push(dropped(`${path}.context`, 'no canonical form'));
  if (block['citations'] !== undefined && block['citations'] !== null) ctx.warnings.push(dropped(`${path}.citations`, 'no canonical form'));
  return part;
}

/** The inner content of a tool result: a string or text/image/document blocks. */
function decodeToolResultContent(content: unknown, path: string, ctx: DecodeContext): ToolResultPart['content'] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    bad(ctx, path, 'must be a string or an array of content blocks');
    return [];
  }
  const out: ToolResultPart['content'] = [];
  content.forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!isBlock(item)) return void bad(ctx, p, 'must be a content block with a type');
    let part: TextPart | ImagePart | FilePart | undefined;
    if (item.type === 'text') part = decodeText(item, p, ctx);
    else if (item.type === 'image') part = decodeImage(item, p, ctx);
    else if (item.type === 'document') part = decodeDocument(item, p, ctx);
    else ctx.warnings.push(dropped(p, `a ${item.type} block in a tool result has no canonical form`));
    if (part !== undefined) out.push(part);
  });
  return out;
}

/** One block of a user turn: user content, a tool result, or nothing (dropped with a warning). */
export function decodeUserBlock(block: unknown, path: string, ctx: DecodeContext): UserContentPart | ToolResultPart | undefined {
  if (!isBlock(block)) return bad(ctx, path, 'must be a content block with a type');
  switch (block.type) {
    case 'text':
      return decodeText(block, path, ctx);
    case 'image':
      return decodeImage(block, path, ctx);
    case 'document':
      return decodeDocument(block, path, ctx);
    case 'tool_result': {
      const toolCallId = requireString(ctx, block, 'tool_use_id', path);
      if (toolCallId === undefined) return undefined;
      const part: ToolResultPart = {
        type: 'tool_result',
        toolCallId: baseCallId(toolCallId),
        content: decodeToolResultContent(block['content'], `${path}.content`, ctx),
        ...cacheOf(block),
      };
      if (block['is_error'] === true) part.isError = true;
      else if (block['is_error'] === false) part.isError = false;
      return part;
    }
    default:
      ctx.warnings.push(lossy(path, `${path}: a ${block.type} block in a user turn has no canonical form; it was dropped.`));
      return undefined;
  }
}

/** One block of an assistant turn (request history or response content). */
export function decodeAssistantBlock(block: unknown, path: string, ctx: DecodeContext): AssistantContentPart | undefined {
  if (!isBlock(block)) return bad(ctx, path, 'must be a content block with a type');
  switch (block.type) {
    case 'text':
      return decodeText(block, path, ctx);
    case 'tool_use': {
      const id = requireString(ctx, block, 'id', path);
      const name = requireString(ctx, block, 'name', path);
      if (id === undefined || name === undefined) return undefined;
      const input = block['input'] === undefined ? {} : block['input'];
      // An id the gateway gave out may carry a Gemini thought signature: it goes back on the call.
      const unfolded = unfoldSignature(id);
      const part: AssistantContentPart = { type: 'tool_call', id: unfolded.id, name, arguments: JSON.stringify(input), ...cacheOf(block) };
      if (unfolded.thoughtSignature !== undefined) part.thoughtSignature = unfolded.thoughtSignature;
      return part;
    }
    case 'thinking': {
      const text = requireString(ctx, block, 'thinking', path);
      if (text === undefined) return undefined;
      const signature = asString(block['signature']);
      return {
        type: 'reasoning',
        text,
        ...(signature !== undefined && signature.length > 0 ? { signature } : {}),
        issuer: 'anthropic',
        ...cacheOf(block),
      };
    }
    case 'redacted_thinking': {
      const data = requireString(ctx, block, 'data', path);
      if (data === undefined) return undefined;
      return { type: 'reasoning', text: '', redactedData: data, issuer: 'anthropic', ...cacheOf(block) };
    }
    default:
      // server_tool_use, web_search_tool_result, mcp_tool_use, container_upload, …
      ctx.warnings.push(lossy(path, `${path}: a ${block.type} block has no canonical form; it was skipped.`));
      return undefined;
  }
}
