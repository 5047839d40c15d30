/**
 * OpenAI Responses wire shapes, ids and the small hand-written guards used on the per-event
 * path. The types describe what tollgate writes; what it reads is checked field by field.
 */
import { asString, isObject, type JsonObject } from '../shared/guards.js';

export const FORMAT = 'openai_responses' as const;

/** Every documented top-level Responses request field (`POST /v1/responses`). */
export const KNOWN_REQUEST_FIELDS = [
  'background',
  'conversation',
  'include',
  'input',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'model',
  'parallel_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'reasoning',
  'safety_identifier',
  'service_tier',
  'store',
  'stream',
  'stream_options',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'truncation',
  'user',
] as const;

export const KNOWN_REQUEST_FIELD_SET: ReadonlySet<string> = new Set(KNOWN_REQUEST_FIELDS);

/**
 * Documented fields with no IR home. They travel in `request.vendor` and are re-emitted when
 * the target is openai_responses again. (`tools`, `tool_choice`, `text`, `reasoning` and `input`
 * also leave their non-IR remainder there; see decode-request.ts.)
 */
export const VENDOR_REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'background',
  'conversation',
  'include',
  'max_tool_calls',
  'previous_response_id',
  'prompt',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'store',
  'stream_options',
  'top_logprobs',
  'truncation',
]);

/** Wire fields of a response object the IR maps; every other top-level field is a vendor field. */
export const RESPONSE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'object',
  'created_at',
  'status',
  'model',
  'output',
  'output_text',
  'usage',
  'incomplete_details',
  'error',
]);

export interface WireUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface WireOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface WireRefusal {
  type: 'refusal';
  refusal: string;
}

export interface WireSummaryText {
  type: 'summary_text';
  text: string;
}

export type WireOutputItem =
  | { id: string; type: 'message'; status: string; role: 'assistant'; content: Array<WireOutputText | WireRefusal> }
  | { id: string; type: 'function_call'; status: string; arguments: string; call_id: string; name: string }
  | { id: string; type: 'reasoning'; summary: WireSummaryText[]; encrypted_content?: string };

/** A non-IR item of `input` or `output`, kept with its position for a same-format round trip. */
export interface KeptItem {
  at: number;
  item: JsonObject;
}

/** `resp_…` ids stay as they are; any other id (a message id, a completion id) gets the prefix. */
export function responseId(id: string | undefined): string {
  if (id === undefined || id === '') return 'resp_tollgate';
  return id.startsWith('resp_') ? id : `resp_${id}`;
}

/**
 * A deterministic output item id (`msg_…`, `fc_…`, `rs_…`) for an item the source did not name,
 * derived from the response id and the item's output index: no clock, no randomness.
 */
export function outputItemId(prefix: 'msg' | 'fc' | 'rs', response: string, outputIndex: number): string {
  const base = response.replace(/^(resp_)?(msg_|chatcmpl-)?/, '');
  return `${prefix}_${base === '' ? 'tollgate' : base}_${outputIndex}`;
}

/** Kept items re-inserted at their recorded positions. */
export function spliceKept(items: unknown[], kept: unknown): unknown[] {
  if (!Array.isArray(kept) || kept.length === 0) return items;
  const out = [...items];
  for (const entry of kept) {
    if (!isObject(entry) || !isObject(entry.item)) continue;
    const at = typeof entry.at === 'number' ? Math.max(0, Math.min(out.length, entry.at)) : out.length;
    out.splice(at, 0, entry.item);
  }
  return out;
}

/** The text of a `summary_text`, `output_text` or `input_text` part; undefined for anything else. */
export function partText(part: unknown): string | undefined {
  return isObject(part) ? asString(part.text) : undefined;
}

export function summaryTexts(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const part of value) {
    const text = partText(part);
    if (text !== undefined) out.push(text);
  }
  return out;
}
