/** Why generation ended, unified across formats. The vendor's own value is kept beside it. */
export type UnifiedFinishReason = 'stop' | 'length' | 'tool_calls' | 'stop_sequence' | 'content_filter' | 'pause' | 'error' | 'other';

export interface FinishReason {
  unified: UnifiedFinishReason;
  /** The value as the upstream sent it (`end_turn`, `length`, `MAX_TOKENS`, …). */
  raw: string | null;
}
