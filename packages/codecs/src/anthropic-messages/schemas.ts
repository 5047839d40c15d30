/**
 * Anthropic Messages wire shapes and the small hand-written guards used to read them. No schema
 * library: these run on the per-chunk path too.
 */
import type { CacheControl } from '../ir/cache-control.js';
import { asString, isObject, type JsonObject } from '../shared/guards.js';

export const FORMAT = 'anthropic_messages' as const;

/** Top-level request fields that map onto the canonical IR. */
export const IR_REQUEST_FIELDS = [
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_k',
  'top_p',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
] as const;

/**
 * Documented top-level request fields with no IR home. They travel in `request.vendor` and are
 * re-emitted when encoding to anthropic_messages (dropped with a warning for other formats).
 * GA fields first, then fields of the beta Messages API.
 */
export const VENDOR_REQUEST_FIELDS = [
  'container',
  'mcp_servers',
  'context_management',
  'inference_geo',
  'output_config',
  'output_format',
  'cache_control',
  'speed',
  'compaction',
  'diagnostics',
  'fallbacks',
  'fallback_credit_token',
  'thread',
  'user_profile_id',
  'workspace_id',
] as const;

export const KNOWN_REQUEST_FIELDS: readonly string[] = [...IR_REQUEST_FIELDS, ...VENDOR_REQUEST_FIELDS];

export type WireRole = 'user' | 'assistant';

export interface WireCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export type WireSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string }
  | { type: 'text'; media_type: 'text/plain'; data: string };

export interface WireTextBlock {
  type: 'text';
  text: string;
  cache_control?: WireCacheControl;
}

export interface WireToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: WireCacheControl;
}

export interface WireThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
  cache_control?: WireCacheControl;
}

export interface WireRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  cache_control?: WireCacheControl;
}

export type WireBlock = JsonObject & { type: string };

export interface WireUsage {
  input_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  [extra: string]: unknown;
}

/** Stop reasons the API documents. */
export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded'] as const;

/** A content block: an object with a string `type`. */
export function isBlock(value: unknown): value is WireBlock {
  return isObject(value) && typeof value['type'] === 'string';
}

/** `cache_control` as the IR carries it, or undefined when absent or not a known shape. */
export function readCacheControl(value: unknown): CacheControl | undefined {
  if (!isObject(value) || value['type'] !== 'ephemeral') return undefined;
  const ttl = value['ttl'];
  return ttl === '5m' || ttl === '1h' ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

export function writeCacheControl(cc: CacheControl): WireCacheControl {
  return cc.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cc.ttl };
}

/** Copy `cache_control` from an IR part onto a wire block, in place. */
export function withCache<T extends object>(block: T, cc: CacheControl | undefined): T {
  if (cc !== undefined) (block as JsonObject)['cache_control'] = writeCacheControl(cc);
  return block;
}

/** Return the IR cache control of a wire block, as an optional-field object to spread. */
export function cacheOf(block: JsonObject): { cacheControl?: CacheControl } {
  const cc = readCacheControl(block['cache_control']);
  return cc === undefined ? {} : { cacheControl: cc };
}

export function stringField(obj: JsonObject, key: string): string | undefined {
  return asString(obj[key]);
}
