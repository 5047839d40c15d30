/**
 * Gemini `generateContent` wire shapes and the small hand-written guards used to read them. No
 * schema library: these run on the per-chunk path too.
 *
 * Google's REST API parses proto3 JSON, which accepts both lowerCamelCase (`systemInstruction`)
 * and the proto field names (`system_instruction`); clients send either (the Python SDK writes
 * `parameters_json_schema`). `field()` reads both; the encoder always writes lowerCamelCase.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { ConversionWarning } from '../ir/warning.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';
import { dropped } from '../shared/warnings.js';

export const FORMAT = 'gemini_generate_content' as const;

/** Top-level request fields that map onto the canonical IR. */
export const IR_REQUEST_FIELDS = ['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig'] as const;

/**
 * Documented top-level fields with no IR home. They travel in `request.vendor` and are re-emitted
 * when encoding to Gemini (dropped with a warning for other formats). `labels` and
 * `modelArmorConfig` are Vertex AI's.
 */
export const VENDOR_REQUEST_FIELDS = ['safetySettings', 'cachedContent', 'labels', 'modelArmorConfig'] as const;

export const KNOWN_REQUEST_FIELDS: readonly string[] = [...IR_REQUEST_FIELDS, ...VENDOR_REQUEST_FIELDS];

/** Gemini finish reasons, as documented (Gemini API and Vertex AI). */
export const FINISH_REASONS = [
  'FINISH_REASON_UNSPECIFIED',
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_OTHER',
  'NO_IMAGE',
  'IMAGE_RECITATION',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
] as const;

/** `systemInstruction` → `system_instruction`. */
export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A field by its lowerCamelCase name, or by its proto (snake_case) name. */
export function field(obj: JsonObject, key: string): unknown {
  const value = obj[key];
  if (value !== undefined) return value;
  const snake = snakeCase(key);
  return snake === key ? undefined : obj[snake];
}

/** The lowerCamelCase name of a wire key (`function_declarations` → `functionDeclarations`). */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A copy of an object with every key in lowerCamelCase (one level). With `path` (a client's
 * request), an object that spells one field both ways (`maxOutputTokens` and
 * `max_output_tokens`) is refused: Google may read either, and the gateway must size the one
 * that is sent.
 */
export function camelKeys(obj: JsonObject, path?: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    const camel = camelCase(key);
    if (camel in out) {
      if (path !== undefined) {
        const at = path === '' ? key : `${path}.${key}`;
        throw invalid(at, `is the same field as ${camel === key ? snakeCase(key) : camel}; send it once`);
      }
      if (key !== camel) continue;
    }
    out[camel] = value;
  }
  return out;
}

export function stringField(obj: JsonObject, key: string): string | undefined {
  return asString(field(obj, key));
}

export function objectField(obj: JsonObject, key: string): JsonObject | undefined {
  const value = field(obj, key);
  return isObject(value) ? value : undefined;
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

/** The SSE framing Google uses for `alt=sse`: a `data:` line and a CRLF CRLF separator. */
export function sseData(json: string): string {
  return `data: ${json}\r\n\r\n`;
}
