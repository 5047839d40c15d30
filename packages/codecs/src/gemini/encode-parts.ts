/** IR content parts → Gemini `parts` (shared by request and response encoding). */
import type { AssistantContentPart, FilePart, ImagePart, MediaSource, ToolResultPart, UserContentPart } from '../ir/content.js';
import type { ConversionWarning } from '../ir/warning.js';
import { sourceFromUrl } from '../shared/data-uri.js';
import { isObject, parseJson, type JsonObject } from '../shared/guards.js';
import { isSyntheticCallId } from '../shared/tool-call-id.js';
import { dropped, lossy, signatureDropped } from '../shared/warnings.js';
import { FORMAT } from './schemas.js';

const EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

function guessMediaType(url: string): string | undefined {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : EXTENSIONS[ext];
}

/** An IR media source → `inlineData` (bytes, data URIs) or `fileData` (URLs, file handles). */
export function encodeMedia(source: MediaSource, filename?: string): JsonObject {
  const resolved = source.kind === 'url' && source.url.startsWith('data:') ? sourceFromUrl(source.url) : source;
  if (resolved.kind === 'base64') {
    const inline: JsonObject = { mimeType: resolved.mediaType, data: resolved.data };
    return { inlineData: inline };
  }
  const uri = resolved.kind === 'url' ? resolved.url : resolved.fileId;
  const file: JsonObject = {};
  const mediaType = resolved.mediaType ?? (resolved.kind === 'url' ? guessMediaType(uri) : undefined);
  if (mediaType !== undefined) file['mimeType'] = mediaType;
  file['fileUri'] = uri;
  if (filename !== undefined) file['displayName'] = filename;
  return { fileData: file };
}

function cacheDropped(part: { cacheControl?: unknown }, path: string, warnings: ConversionWarning[]): void {
  if (part.cacheControl !== undefined) warnings.push(dropped(`${path}.cacheControl`, 'Gemini has no cache breakpoints (it caches implicitly)'));
}

function mediaPart(part: ImagePart | FilePart, path: string, warnings: ConversionWarning[]): JsonObject {
  cacheDropped(part, path, warnings);
  if (part.type === 'image' && part.detail !== undefined) warnings.push(dropped(`${path}.detail`, 'Gemini has no image detail setting'));
  return encodeMedia(part.source, part.type === 'file' ? part.filename : undefined);
}

export function encodeUserParts(parts: UserContentPart[], path: string, warnings: ConversionWarning[]): JsonObject[] {
  const out: JsonObject[] = [];
  parts.forEach((part, i) => {
    const at = `${path}[${i}]`;
    if (part.type === 'text') {
      cacheDropped(part, at, warnings);
      if (part.text.length > 0) out.push({ text: part.text });
    } else out.push(mediaPart(part, at, warnings));
  });
  return out;
}

/** Tool call arguments (JSON text) → the `args` object Gemini requires. */
function encodeArgs(args: string, path: string, warnings: ConversionWarning[]): JsonObject {
  if (args.trim().length === 0) return {};
  const parsed = parseJson(args);
  if (parsed.ok && isObject(parsed.value)) return parsed.value;
  warnings.push(lossy(path, `${path}: the tool call arguments are not a JSON object; sent as empty args.`));
  return {};
}

/** A `functionCall` part. Ids the Gemini codec made up are left out, so Gemini matches by order. */
export function functionCallPart(id: string, name: string, args: JsonObject, signature: string | undefined): JsonObject {
  const call: JsonObject = {};
  if (!isSyntheticCallId(id) && id.length > 0) call['id'] = id;
  call['name'] = name;
  call['args'] = args;
  const part: JsonObject = { functionCall: call };
  if (signature !== undefined) part['thoughtSignature'] = signature;
  return part;
}

/**
 * A model turn's parts. Google reasoning keeps its signature; a google reasoning part with no text
 * is a signature that belongs on the next part. Other vendors' opaque values never go to Google
 * (dropped with a warning); their visible reasoning is shown as thoughts in a response, and
 * dropped from a request (Gemini would take it as its own thinking).
 */
export function encodeModelParts(parts: AssistantContentPart[], path: string, warnings: ConversionWarning[], forRequest: boolean): JsonObject[] {
  const out: JsonObject[] = [];
  let pending: string | undefined;
  const push = (part: JsonObject) => {
    if (pending !== undefined && part['thoughtSignature'] === undefined) {
      part['thoughtSignature'] = pending;
      pending = undefined;
    }
    out.push(part);
  };
  const flushPending = () => {
    if (pending !== undefined) out.push({ text: '', thoughtSignature: pending });
    pending = undefined;
  };
  parts.forEach((part, i) => {
    const at = `${path}[${i}]`;
    switch (part.type) {
      case 'text':
        cacheDropped(part, at, warnings);
        if (part.text.length > 0 || pending !== undefined) push({ text: part.text });
        return;
      case 'refusal':
        warnings.push(lossy(at, `${at}: Gemini has no refusal part; the refusal was sent as text.`));
        push({ text: part.text });
        return;
      case 'image':
        push(mediaPart(part, at, warnings));
        return;
      case 'tool_call':
        cacheDropped(part, at, warnings);
        if (pending !== undefined && part.thoughtSignature !== undefined) flushPending();
        push(functionCallPart(part.id, part.name, encodeArgs(part.arguments, at, warnings), part.thoughtSignature));
        return;
      case 'reasoning': {
        cacheDropped(part, at, warnings);
        const google = part.issuer === 'google';
        if (part.redactedData !== undefined || part.encryptedContent !== undefined) {
          warnings.push(signatureDropped(at, part.issuer ?? 'another vendor', FORMAT));
        }
        if (google && part.signature !== undefined && part.text.length === 0 && part.redactedData === undefined) {
          flushPending();
          pending = part.signature;
          return;
        }
        if (!google && part.signature !== undefined) warnings.push(signatureDropped(`${at}.signature`, part.issuer ?? 'another vendor', FORMAT));
        if (!google && forRequest) {
          if (part.text.length > 0) warnings.push(lossy(at, `${at}: reasoning from another vendor is not sent to Gemini; it was dropped.`));
          return;
        }
        if (part.text.length === 0 && !(google && part.signature !== undefined)) return;
        flushPending();
        const thought: JsonObject = { text: part.text, thought: true };
        if (google && part.signature !== undefined) thought['thoughtSignature'] = part.signature;
        out.push(thought);
        return;
      }
    }
  });
  flushPending();
  return out;
}

/** A tool result → a `functionResponse` part (text as `response`, images and files as `parts`). */
export function encodeToolResult(result: ToolResultPart, path: string, warnings: ConversionWarning[], names: Map<string, string>): JsonObject {
  cacheDropped(result, path, warnings);
  let name = result.toolName ?? names.get(result.toolCallId);
  if (name === undefined) {
    name = 'unknown_function';
    warnings.push(lossy(`${path}.toolName`, `${path}: no function call with id ${result.toolCallId} was found; Gemini needs the function name.`));
  }
  const texts: string[] = [];
  const media: JsonObject[] = [];
  result.content.forEach((part, i) => {
    if (part.type === 'text') texts.push(part.text);
    else media.push(mediaPart(part, `${path}.content[${i}]`, warnings));
  });
  const text = texts.join('');
  let response: JsonObject;
  if (result.isError === true) response = { error: text };
  else {
    const parsed = parseJson(text);
    response = parsed.ok && isObject(parsed.value) ? parsed.value : { output: text };
  }
  const fn: JsonObject = {};
  if (!isSyntheticCallId(result.toolCallId) && result.toolCallId.length > 0) fn['id'] = result.toolCallId;
  fn['name'] = name;
  fn['response'] = response;
  if (media.length > 0) fn['parts'] = media;
  return { functionResponse: fn };
}
