import type { FinishReason, UnifiedFinishReason } from '../ir/finish-reason.js';
import { STOP_REASONS } from './schemas.js';

const TO_UNIFIED: Record<string, UnifiedFinishReason> = {
  end_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  stop_sequence: 'stop_sequence',
  refusal: 'content_filter',
  pause_turn: 'pause',
  model_context_window_exceeded: 'length',
};

const FROM_UNIFIED: Record<UnifiedFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  stop_sequence: 'stop_sequence',
  content_filter: 'refusal',
  pause: 'pause_turn',
  error: 'end_turn',
  other: 'end_turn',
};

/** Anthropic `stop_reason` → unified finish reason, raw value kept. */
export function decodeFinishReason(raw: string | null | undefined): FinishReason {
  if (raw === null || raw === undefined) return { unified: 'other', raw: null };
  return { unified: TO_UNIFIED[raw] ?? 'other', raw };
}

/**
 * Unified finish reason → Anthropic `stop_reason`. The raw value is kept when it is an Anthropic
 * stop reason that means the same thing (e.g. `model_context_window_exceeded`).
 */
export function encodeFinishReason(reason: FinishReason): string {
  const raw = reason.raw;
  if (raw !== null && (STOP_REASONS as readonly string[]).includes(raw) && TO_UNIFIED[raw] === reason.unified) return raw;
  return FROM_UNIFIED[reason.unified];
}
