/** Gemini `parts` → IR content parts (shared by request and response decoding). */
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, ToolResultPart, UserContentPart } from '../ir/content.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { syntheticCallId } from '../shared/tool-call-id.js';
import { dropped, lossy } from '../shared/warnings.js';
import { bad, field, objectField, stringField, type DecodeContext } from './schemas.js';

/**
 * Call ids across one request or response. Gemini often sends function calls without ids: they
 * get stable ids from their position (`gcall_<scope>_<n>`), and results without ids are matched
 * to calls by name, in order.
 */
export interface CallIds {
  scope?: string;
  next: number;
  calls: Array<{ id: string; name: string; answered: boolean }>;
}

export function newCallIds(scope?: string): CallIds {
  return scope === undefined ? { next: 0, calls: [] } : { scope, next: 0, calls: [] };
}

export function callId(ids: CallIds, name: string, wireId: string | undefined): string {
  const id = wireId !== undefined && wireId.length > 0 ? wireId : syntheticCallId(ids.next++, ids.scope);
  ids.calls.push({ id, name, answered: false });
  return id;
}

function resultId(ids: CallIds, name: string, wireId: string | undefined): string {
  if (wireId !== undefined && wireId.length > 0) {
    const call = ids.calls.find((c) => c.id === wireId);
    if (call !== undefined) call.answered = true;
    return wireId;
  }
  const call = ids.calls.find((c) => !c.answered && c.name === name);
  if (call !== undefined) {
    call.answered = true;
    return call.id;
  }
  return syntheticCallId(ids.next++, ids.scope === undefined ? 'result' : `${ids.scope}-result`);
}

const FILES_API = /^https:\/\/generativelanguage\.googleapis\.com\/.*\/files\//;

/** `inlineData` / `fileData` → an image or file part. */
function decodeMedia(part: JsonObject, path: string, ctx: DecodeContext): ImagePart | FilePart | undefined {
  const inline = objectField(part, 'inlineData');
  let source: MediaSource;
  let name: string | undefined;
  if (inline !== undefined) {
    const mediaType = stringField(inline, 'mimeType');
    const data = asString(inline['data']);
    if (mediaType === undefined || data === undefined) return bad(ctx, `${path}.inlineData`, 'needs string mimeType and data');
    source = { kind: 'base64', mediaType, data };
    name = stringField(inline, 'displayName');
  } else {
    const file = objectField(part, 'fileData') ?? {};
    const uri = stringField(file, 'fileUri');
    if (uri === undefined) return bad(ctx, `${path}.fileData.fileUri`, 'must be a string');
    const mediaType = stringField(file, 'mimeType');
    source = /^https?:\/\//.test(uri) && !FILES_API.test(uri) ? { kind: 'url', url: uri } : { kind: 'file_id', fileId: uri };
    if (mediaType !== undefined) source.mediaType = mediaType;
    name = stringField(file, 'displayName');
  }
  const mediaType = source.mediaType ?? '';
  if (mediaType.startsWith('image/')) return { type: 'image', source };
  const out: FilePart = { type: 'file', source };
  if (name !== undefined) out.filename = name;
  return out;
}

function dropOthers(part: JsonObject, path: string, ctx: DecodeContext, known: readonly string[]): void {
  for (const key of Object.keys(part)) {
    if (known.includes(key)) continue;
    ctx.warnings.push(lossy(`${path}.${key}`, `${path}.${key}: a Gemini part field with no canonical form; it was dropped.`));
  }
}

const MEDIA_KEYS = ['inlineData', 'inline_data', 'fileData', 'file_data'];
const MODEL_KEYS = ['text', 'thought', 'thoughtSignature', 'thought_signature', 'functionCall', 'function_call', ...MEDIA_KEYS];

/** One part of a model turn (request history or response). */
export function decodeModelPart(raw: unknown, path: string, ctx: DecodeContext, ids: CallIds): AssistantContentPart[] {
  if (!isObject(raw)) return bad(ctx, path, 'must be an object') ?? [];
  const signature = stringField(raw, 'thoughtSignature');
  const sig = signature !== undefined && signature.length > 0 ? signature : undefined;
  /** A signature on a part that has no field for it travels as an empty google reasoning part before it. */
  const marker = (): AssistantContentPart[] => (sig === undefined ? [] : [{ type: 'reasoning', text: '', signature: sig, issuer: 'google' }]);
  dropOthers(raw, path, ctx, MODEL_KEYS);

  const call = objectField(raw, 'functionCall');
  if (call !== undefined) {
    const name = asString(call['name']);
    if (name === undefined) return bad(ctx, `${path}.functionCall.name`, 'must be a string') ?? [];
    const args = call['args'];
    if (args !== undefined && args !== null && !isObject(args)) return bad(ctx, `${path}.functionCall.args`, 'must be an object') ?? [];
    const part: AssistantContentPart = {
      type: 'tool_call',
      id: callId(ids, name, asString(call['id'])),
      name,
      arguments: JSON.stringify(args ?? {}),
    };
    if (sig !== undefined) part.thoughtSignature = sig;
    return [part];
  }
  if (field(raw, 'inlineData') !== undefined || field(raw, 'fileData') !== undefined) {
    const media = decodeMedia(raw, path, ctx);
    if (media === undefined) return marker();
    if (media.type === 'image') return [...marker(), media];
    ctx.warnings.push(dropped(path, 'a model turn cannot hold a file that is not an image'));
    return marker();
  }
  const text = raw['text'];
  if (text !== undefined && typeof text !== 'string') return bad(ctx, `${path}.text`, 'must be a string') ?? [];
  if (raw['thought'] === true) {
    const part: AssistantContentPart = { type: 'reasoning', text: text ?? '', issuer: 'google' };
    if (sig !== undefined) part.signature = sig;
    return [part];
  }
  if (text === undefined || text.length === 0) return marker();
  return [...marker(), { type: 'text', text }];
}

/** A user turn's parts: user content, and tool results (functionResponse) split out. */
export function decodeUserParts(parts: unknown[], path: string, ctx: DecodeContext, ids: CallIds): { content: UserContentPart[]; results: ToolResultPart[] } {
  const content: UserContentPart[] = [];
  const results: ToolResultPart[] = [];
  parts.forEach((raw, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(raw)) return void bad(ctx, at, 'must be an object');
    const response = objectField(raw, 'functionResponse');
    if (response !== undefined) {
      const result = decodeFunctionResponse(response, `${at}.functionResponse`, ctx, ids);
      if (result !== undefined) results.push(result);
      return;
    }
    dropOthers(raw, at, ctx, ['text', 'thought', 'thoughtSignature', 'thought_signature', ...MEDIA_KEYS]);
    if (field(raw, 'inlineData') !== undefined || field(raw, 'fileData') !== undefined) {
      const media = decodeMedia(raw, at, ctx);
      if (media !== undefined) content.push(media);
      return;
    }
    const text = raw['text'];
    if (typeof text === 'string') content.push({ type: 'text', text });
    else if (text !== undefined) bad(ctx, `${at}.text`, 'must be a string');
  });
  return { content, results };
}

/** `functionResponse.response` as tool result text: `{output: "…"}` / `{error: "…"}` unwrap, other objects are JSON. */
function decodeFunctionResponse(response: JsonObject, path: string, ctx: DecodeContext, ids: CallIds): ToolResultPart | undefined {
  const name = asString(response['name']);
  if (name === undefined) return bad(ctx, `${path}.name`, 'must be a string');
  const value = response['response'];
  const content: ToolResultPart['content'] = [];
  let isError: boolean | undefined;
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && typeof value['output'] === 'string') content.push({ type: 'text', text: value['output'] });
    else if (keys.length === 1 && typeof value['error'] === 'string') {
      content.push({ type: 'text', text: value['error'] });
      isError = true;
    } else content.push({ type: 'text', text: JSON.stringify(value) });
  } else if (value !== undefined && value !== null) {
    return bad(ctx, `${path}.response`, 'must be an object');
  }
  const inner = field(response, 'parts');
  if (Array.isArray(inner)) {
    inner.forEach((p, i) => {
      if (!isObject(p)) return;
      const media =
        objectField(p, 'inlineData') !== undefined || objectField(p, 'fileData') !== undefined ? decodeMedia(p, `${path}.parts[${i}]`, ctx) : undefined;
      if (media !== undefined) content.push(media);
    });
  }
  const part: ToolResultPart = { type: 'tool_result', toolCallId: resultId(ids, name, asString(response['id'])), toolName: name, content };
  if (isError !== undefined) part.isError = isError;
  for (const key of Object.keys(response)) {
    if (!['id', 'name', 'response', 'parts'].includes(key)) ctx.warnings.push(dropped(`${path}.${key}`, 'no canonical form'));
  }
  return part;
}
