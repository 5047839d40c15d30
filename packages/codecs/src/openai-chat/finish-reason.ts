import type { FinishReason, UnifiedFinishReason } from '../ir/finish-reason.js';

const DECODE: Record<string, UnifiedFinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

/** An OpenAI `finish_reason` in canonical form; the raw value is kept. */
export function decodeFinishReason(raw: unknown): FinishReason {
  if (typeof raw !== 'string') return { unified: 'other', raw: null };
  return { unified: DECODE[raw] ?? 'other', raw };
}

const ENCODE: Record<UnifiedFinishReason, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  // Chat Completions has no separate value for these; a clean stop is what clients expect.
  stop_sequence: 'stop',
  pause: 'stop',
  error: 'stop',
  other: 'stop',
};

/** The OpenAI `finish_reason` for a canonical one. */
export function encodeFinishReason(reason: FinishReason): string {
  return ENCODE[reason.unified] ?? 'stop';
}
