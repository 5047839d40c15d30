/**
 * Amazon Bedrock Converse wire shapes (`POST /model/{modelId}/converse` and `/converse-stream`)
 * and the small hand-written guards used to read them. The model travels in the URL; the body
 * has no `model` and no `stream`.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { CacheControl } from '../ir/cache-control.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';

export const FORMAT = 'bedrock_converse' as const;

/** Top-level request fields that map onto the canonical IR (wholly or in part). */
export const IR_REQUEST_FIELDS = [
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'requestMetadata',
  'serviceTier',
] as const;

/**
 * Documented top-level fields with no IR home. They travel in `request.vendor` and are re-emitted
 * when encoding to bedrock_converse (dropped with a warning for other formats).
 */
export const VENDOR_REQUEST_FIELDS = ['guardrailConfig', 'promptVariables', 'additionalModelResponseFieldPaths', 'performanceConfig', 'outputConfig'] as const;

export const KNOWN_REQUEST_FIELDS: readonly string[] = [...IR_REQUEST_FIELDS, ...VENDOR_REQUEST_FIELDS];

/** Converse `stopReason` values, as documented. */
export const STOP_REASONS = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'guardrail_intervened',
  'content_filtered',
  'malformed_model_output',
  'malformed_tool_use',
  'model_context_window_exceeded',
] as const;

/** Image formats and their media types. */
export const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** Document formats and their media types. */
export const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  txt: 'text/plain',
  md: 'text/markdown',
};

/** The Converse format name for a media type (`image/png` → `png`), or undefined. */
export function formatOf(table: Readonly<Record<string, string>>, mediaType: string | undefined): string | undefined {
  if (mediaType === undefined) return undefined;
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  if (type === 'image/jpg') return 'jpeg';
  for (const [format, media] of Object.entries(table)) if (media === type) return format;
  return undefined;
}

/** How to react to malformed input: a client request is rejected, an upstream response tolerated. */
export interface DecodeContext {
  strict: boolean;
  warnings: ConversionWarning[];
}

export function invalid(param: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `${param}: ${message}`, { param });
}

/** Reject (strict) or drop with a warning (tolerant). Always returns undefined. */
export function bad(ctx: DecodeContext, path: string, message: string): undefined {
  if (ctx.strict) throw invalid(path, message);
  ctx.warnings.push(dropped(path, message));
  return undefined;
}

/** A `cachePoint` block → the IR's cache breakpoint; undefined when the block is not one. */
export function cachePointOf(block: JsonObject): CacheControl | undefined {
  const point = block['cachePoint'];
  if (!isObject(point)) return undefined;
  const ttl = asString(point['ttl']);
  return ttl === '1h' || ttl === '5m' ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

/** The IR's cache breakpoint → a `cachePoint` block. */
export function cachePointBlock(cache: CacheControl): JsonObject {
  return { cachePoint: cache.ttl === undefined ? { type: 'default' } : { type: 'default', ttl: cache.ttl } };
}

/** The single key of a Converse union member (`{ text: … }` → `text`), or undefined. */
export function memberOf(block: unknown): string | undefined {
  if (!isObject(block)) return undefined;
  const keys = Object.keys(block);
  return keys.length === 1 ? keys[0] : keys.find((k) => k !== 'cachePoint');
}

/** A Bedrock document name: letters, digits, single spaces, hyphens, parentheses, brackets. */
export function documentName(name: string | undefined, index: number): string {
  const clean = (name ?? '')
    .replace(/\.[A-Za-z0-9]+$/, '')
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > 0 ? clean.slice(0, 200) : `document-${index + 1}`;
}
