/**
 * What the two OpenAI formats (Chat Completions, Responses) share: the same content, function-tool
 * and JSON-schema semantics under different item grammars and nesting.
 */
import type { MediaSource, ToolResultPart } from '../ir/content.js';
import type { Message } from '../ir/message.js';
import type { ResponseFormat } from '../ir/request.js';
import type { ToolDefinition } from '../ir/tool.js';
import { sourceFromUrl } from './data-uri.js';
import { invalid } from './fields.js';
import { asString, isObject, type JsonObject } from './guards.js';

/** A function definition (`name`, `description`, `parameters`, `strict`) → an IR tool; `path` names it in errors. */
export function functionTool(fn: JsonObject, path: string): ToolDefinition {
  const name = asString(fn.name);
  if (name === undefined) invalid(`${path}.name must be a string.`, `${path}.name`);
  if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) {
    invalid(`${path}.parameters must be a JSON Schema object.`, `${path}.parameters`);
  }
  // Omitted parameters mean a function that takes no arguments.
  const parameters = isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} };
  const tool: ToolDefinition = { type: 'function', name, parameters };
  const description = asString(fn.description);
  if (description !== undefined) tool.description = description;
  if (typeof fn.strict === 'boolean') tool.strict = fn.strict;
  return tool;
}

type JsonSchemaFormat = Extract<ResponseFormat, { type: 'json_schema' }>;

/** A `json_schema` response format from its spec (`name`, `description`, `strict`) and schema. */
export function jsonSchemaFormat(spec: JsonObject, schema: JsonObject): JsonSchemaFormat {
  const out: JsonSchemaFormat = { type: 'json_schema', schema };
  const name = asString(spec.name);
  if (name !== undefined) out.name = name;
  const description = asString(spec.description);
  if (description !== undefined) out.description = description;
  if (typeof spec.strict === 'boolean') out.strict = spec.strict;
  return out;
}

/** The spec of a `json_schema` response format (OpenAI requires a name: `response` is what its SDK helpers default to). */
export function jsonSchemaSpec(format: JsonSchemaFormat): JsonObject {
  const spec: JsonObject = { name: format.name ?? 'response' };
  if (format.description !== undefined) spec.description = format.description;
  spec.schema = format.schema;
  if (format.strict !== undefined) spec.strict = format.strict;
  return spec;
}

/** Consecutive tool results become one IR tool message. */
export function pushToolResult(messages: Message[], part: ToolResultPart): void {
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === 'tool') last.content.push(part);
  else messages.push({ role: 'tool', content: [part] });
}

/** Tool-call arguments are JSON text, kept exactly; a client that sent an object gets it serialised. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '{}';
  return JSON.stringify(value);
}

/** `file_data`: a data URI, or bare base64 whose media type is guessed from the filename. */
export function fileDataSource(data: string, filename: string | undefined): MediaSource {
  return data.startsWith('data:') ? sourceFromUrl(data) : { kind: 'base64', mediaType: guessMediaType(filename), data };
}

function guessMediaType(filename: string | undefined): string {
  const ext = filename?.toLowerCase().split('.').pop();
  if (ext === 'txt') return 'text/plain';
  if (ext === 'png') return 'image/png';
  if (ext === 'jpg' || ext === 'jpeg') return 'image/jpeg';
  return 'application/pdf';
}

const AUDIO_FORMATS: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

/** The media type of an `input_audio.format`. */
export function audioMediaType(format: string): string {
  return AUDIO_FORMATS[format] ?? `audio/${format}`;
}

/** The `input_audio.format` for a media type, when OpenAI accepts it. */
export function audioFormat(mediaType: string): string | undefined {
  const type = mediaType.toLowerCase();
  if (type === 'audio/wav' || type === 'audio/x-wav' || type === 'audio/wave') return 'wav';
  if (type === 'audio/mpeg' || type === 'audio/mp3') return 'mp3';
  return undefined;
}
