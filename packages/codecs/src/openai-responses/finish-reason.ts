import type { FinishReason } from '../ir/finish-reason.js';

/**
 * The canonical finish reason of a Responses `status` (and `incomplete_details.reason`). A
 * completed response that called functions is `tool_calls`; the raw value is the reason when the
 * response is incomplete, else the status.
 */
export function decodeFinishReason(status: unknown, incompleteReason: unknown, hasToolCalls: boolean): FinishReason {
  if (status === 'completed') return { unified: hasToolCalls ? 'tool_calls' : 'stop', raw: 'completed' };
  if (status === 'incomplete') {
    const reason = typeof incompleteReason === 'string' ? incompleteReason : null;
    if (reason === 'max_output_tokens') return { unified: 'length', raw: reason };
    if (reason === 'content_filter') return { unified: 'content_filter', raw: reason };
    return { unified: 'other', raw: reason ?? 'incomplete' };
  }
  if (status === 'failed') return { unified: 'error', raw: 'failed' };
  if (typeof status !== 'string') return { unified: hasToolCalls ? 'tool_calls' : 'other', raw: null };
  return { unified: 'other', raw: status };
}

export interface WireStatus {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

/** The Responses `status` for a canonical finish reason: only length and content filtering are incomplete. */
export function encodeFinishReason(reason: FinishReason | undefined): WireStatus {
  if (reason?.unified === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason?.unified === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}
