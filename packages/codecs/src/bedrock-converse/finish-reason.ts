import type { FinishReason, UnifiedFinishReason } from '../ir/finish-reason.js';
import { STOP_REASONS } from './schemas.js';

const TO_UNIFIED: Record<string, UnifiedFinishReason> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  stop_sequence: 'stop_sequence',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
  model_context_window_exceeded: 'length',
};

const FROM_UNIFIED: Record<UnifiedFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  stop_sequence: 'stop_sequence',
  content_filter: 'content_filtered',
  pause: 'end_turn',
  error: 'malformed_model_output',
  other: 'end_turn',
};

/** Converse `stopReason` → unified finish reason, raw value kept. */
export function decodeFinishReason(raw: unknown): FinishReason {
  if (typeof raw !== 'string') return { unified: 'other', raw: null };
  return { unified: TO_UNIFIED[raw] ?? 'other', raw };
}

/** Unified finish reason → Converse `stopReason` (the raw value when it is one that means the same). */
export function encodeFinishReason(reason: FinishReason): string {
  const raw = reason.raw;
  if (raw !== null && (STOP_REASONS as readonly string[]).includes(raw) && TO_UNIFIED[raw] === reason.unified) return raw;
  return FROM_UNIFIED[reason.unified];
}
