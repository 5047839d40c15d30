/**
 * OpenAI Chat Completions wire shapes and the small hand-written guards used on the per-chunk
 * path. The types describe what tollgate writes; what it reads is checked field by field.
 */
import type { CacheControl } from '../ir/cache-control.js';
import { isObject, type JsonObject } from '../shared/guards.js';

export const FORMAT = 'openai_chat' as const;

/** Every documented top-level Chat Completions request field. */
export const KNOWN_REQUEST_FIELDS = [
  'messages',
  'model',
  'audio',
  'frequency_penalty',
  'function_call',
  'functions',
  'logit_bias',
  'logprobs',
  'max_completion_tokens',
  'max_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning_effort',
  'response_format',
  'safety_identifier',
  'seed',
  'service_tier',
  'stop',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
  'verbosity',
  'web_search_options',
] as const;

/**
 * Documented fields with no IR home. They travel in `request.vendor` and are re-emitted when
 * the target is openai_chat again.
 */
export const VENDOR_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'audio',
  'logit_bias',
  'logprobs',
  'modalities',
  'n',
  'prediction',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'store',
  'top_logprobs',
  'verbosity',
  'web_search_options',
]);

export const KNOWN_REQUEST_FIELD_SET: ReadonlySet<string> = new Set(KNOWN_REQUEST_FIELDS);

export interface WireCacheControl {
  type: 'ephemeral';
  ttl?: string;
}

export type WireContentPart =
  | { type: 'text'; text: string; cache_control?: WireCacheControl }
  | { type: 'image_url'; image_url: { url: string; detail?: string }; cache_control?: WireCacheControl }
  | { type: 'input_audio'; input_audio: { data: string; format: string }; cache_control?: WireCacheControl }
  | {
      type: 'file';
      file: { file_data?: string; file_id?: string; filename?: string };
      cache_control?: WireCacheControl;
    };

export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type WireMessage =
  | { role: 'system' | 'developer'; content: string | WireContentPart[]; name?: string }
  | { role: 'user'; content: string | WireContentPart[]; name?: string }
  | {
      role: 'assistant';
      content: string | WireContentPart[] | null;
      refusal?: string | null;
      reasoning_content?: string;
      tool_calls?: WireToolCall[];
      name?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string | WireContentPart[] };

export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface WireChunkChoice {
  index: number;
  delta: JsonObject;
  finish_reason: string | null;
}

export interface WireChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: WireChunkChoice[];
  usage?: WireUsage;
}

/** An OpenAI error body: `{ error: { message, type, param, code } }`. */
export interface WireErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * The `{ "error": {...} }` envelope, as OpenAI sends it inside a 200 stream. The `openai` SDK
 * raises on any chunk whose `error` is truthy, so the decoder treats it the same way.
 */
export function isErrorChunk(value: JsonObject): boolean {
  return Boolean(value.error);
}

/** A `tool_calls[i]` entry of a stream delta. */
export interface ToolCallDelta {
  index?: number;
  id?: string;
  name?: string;
  arguments?: string;
}

export function toolCallDelta(value: unknown): ToolCallDelta | undefined {
  if (!isObject(value)) return undefined;
  const out: ToolCallDelta = {};
  if (typeof value.index === 'number') out.index = value.index;
  if (typeof value.id === 'string' && value.id !== '') out.id = value.id;
  const fn = value.function;
  if (isObject(fn)) {
    if (typeof fn.name === 'string' && fn.name !== '') out.name = fn.name;
    if (typeof fn.arguments === 'string') out.arguments = fn.arguments;
  }
  return out;
}

/** OpenAI ids look like `chatcmpl-…`; anything else gets the prefix. */
export function chatCompletionId(id: string | undefined): string {
  if (id === undefined || id === '') return 'chatcmpl-tollgate';
  return id.startsWith('chatcmpl-') ? id : `chatcmpl-${id}`;
}

/** `cache_control` on a content part, as some OpenAI-compatible servers accept it. */
export function decodeCacheControl(value: unknown): CacheControl | undefined {
  if (!isObject(value) || value.type !== 'ephemeral') return undefined;
  const out: CacheControl = { type: 'ephemeral' };
  if (value.ttl === '5m' || value.ttl === '1h') out.ttl = value.ttl;
  return out;
}

export function encodeCacheControl(value: CacheControl): WireCacheControl {
  return value.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: value.ttl };
}
