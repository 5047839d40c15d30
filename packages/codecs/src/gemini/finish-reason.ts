import type { FinishReason, UnifiedFinishReason } from '../ir/finish-reason.js';
import { FINISH_REASONS } from './schemas.js';

const TO_UNIFIED: Record<string, UnifiedFinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  MISSING_THOUGHT_SIGNATURE: 'error',
  LANGUAGE: 'other',
  OTHER: 'other',
  IMAGE_OTHER: 'other',
  NO_IMAGE: 'other',
  FINISH_REASON_UNSPECIFIED: 'other',
};

const FROM_UNIFIED: Record<UnifiedFinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP', // Gemini ends a turn with function calls as STOP
  stop_sequence: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  pause: 'STOP',
  error: 'OTHER',
  other: 'OTHER',
};

/**
 * Gemini `finishReason` → unified, raw value kept. A turn that stopped with function calls is
 * `tool_calls` (Gemini says STOP), so clients of other formats run the tools.
 */
export function decodeFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (raw === null || raw === undefined) return { unified: hasToolCalls ? 'tool_calls' : 'other', raw: null };
  const unified = TO_UNIFIED[raw] ?? 'other';
  return { unified: unified === 'stop' && hasToolCalls ? 'tool_calls' : unified, raw };
}

/** Unified → Gemini `finishReason`; the raw value is kept when it is a Gemini reason of the same meaning. */
export function encodeFinishReason(reason: FinishReason): string {
  const raw = reason.raw;
  if (raw !== null && (FINISH_REASONS as readonly string[]).includes(raw)) {
    const unified = TO_UNIFIED[raw];
    if (unified === reason.unified || (raw === 'STOP' && reason.unified === 'tool_calls')) return raw;
  }
  return FROM_UNIFIED[reason.unified];
}
