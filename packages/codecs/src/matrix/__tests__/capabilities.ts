/**
 * What each wire format can express, stated once. The matrix asserts conversions against these
 * tables: a loss is accepted only where a table says the target (or the source) cannot carry it.
 */
import type { ErrorCode } from '../../errors/gateway-error.js';
import type { Usage } from '../../ir/usage.js';
import type { Issuer, WireFormat } from '../../ir/wire-format.js';

export const SHORT: Record<WireFormat, string> = {
  openai_chat: 'openai_chat',
  openai_responses: 'openai_responses',
  anthropic_messages: 'anthropic_messages',
  anthropic_vertex: 'anthropic_vertex',
  gemini_generate_content: 'gemini',
  bedrock_converse: 'bedrock',
};

/**
 * The vendor whose opaque reasoning values (thinking signatures, redacted thinking, encrypted
 * reasoning, thought signatures) a format can carry. Chat Completions has no field for any.
 */
export const OPAQUE_CARRIER: Record<WireFormat, Issuer | undefined> = {
  openai_chat: undefined,
  openai_responses: 'openai',
  anthropic_messages: 'anthropic',
  anthropic_vertex: 'anthropic',
  gemini_generate_content: 'google',
  // Claude's signatures and redacted thinking, in Converse's reasoningContent.
  bedrock_converse: 'anthropic',
};

/** Formats that share a request grammar for reasoning (a client's reasoning can go back verbatim). */
export function sameReasoningGrammar(a: WireFormat, b: WireFormat): boolean {
  const family = (f: WireFormat) => (f === 'anthropic_vertex' ? 'anthropic_messages' : f);
  return family(a) === family(b);
}

export type UsageKind = Exclude<keyof Usage, 'measured'>;
export const USAGE_KINDS: readonly UsageKind[] = ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning'];

/**
 * The usage kinds each format reports separately. OpenAI reports cache writes (as
 * `cache_write_tokens`, what compatible servers call them) but not their TTL; Anthropic reports
 * thinking tokens in `output_tokens_details`; Gemini reports no cache writes (they count as
 * prompt tokens).
 */
export const USAGE_CAPS: Record<WireFormat, ReadonlySet<UsageKind>> = {
  openai_chat: new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning']),
  openai_responses: new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning']),
  anthropic_messages: new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning']),
  anthropic_vertex: new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h', 'reasoning']),
  gemini_generate_content: new Set(['input', 'output', 'cacheRead', 'reasoning']),
  // Converse splits cache writes by TTL (cacheDetails) but reports no reasoning count.
  bedrock_converse: new Set(['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h']),
};

/** How a format folds the kinds it cannot report into those it can. */
export function projectUsage(format: WireFormat, u: Usage): Usage {
  const caps = USAGE_CAPS[format];
  const out = { ...u };
  if (!caps.has('cacheWrite1h')) {
    out.cacheWrite += out.cacheWrite1h;
    out.cacheWrite1h = 0;
  }
  if (!caps.has('cacheWrite')) {
    out.input += out.cacheWrite;
    out.cacheWrite = 0;
  }
  if (!caps.has('reasoning')) out.reasoning = 0;
  return out;
}

/**
 * The canonical error codes a format cannot tell apart from another one: rendering `code` in the
 * format and decoding it back yields the alias. Everything not listed survives.
 */
export const ERROR_ALIASES: Record<WireFormat, Partial<Record<ErrorCode, ErrorCode>>> = {
  openai_chat: { stream_incomplete: 'upstream_error' },
  openai_responses: { stream_incomplete: 'upstream_error' },
  anthropic_messages: {
    context_length_exceeded: 'invalid_request',
    model_not_found: 'not_found',
    quota_exceeded: 'rate_limited',
    unavailable: 'upstream_error',
    upstream_timeout: 'upstream_error',
    stream_incomplete: 'upstream_error',
  },
  anthropic_vertex: {
    context_length_exceeded: 'invalid_request',
    model_not_found: 'not_found',
    quota_exceeded: 'rate_limited',
    unavailable: 'upstream_error',
    upstream_timeout: 'upstream_error',
    stream_incomplete: 'upstream_error',
  },
  gemini_generate_content: {
    context_length_exceeded: 'invalid_request',
    model_not_found: 'not_found',
    quota_exceeded: 'rate_limited',
    overloaded: 'unavailable',
    stream_incomplete: 'upstream_error',
  },
  bedrock_converse: {
    unsupported_feature: 'invalid_request',
    request_too_large: 'invalid_request',
    model_not_found: 'not_found',
    overloaded: 'unavailable',
    stream_incomplete: 'upstream_error',
    internal: 'upstream_error',
    cancelled: 'upstream_error',
  },
};

export function alias(format: WireFormat, code: ErrorCode): ErrorCode {
  return ERROR_ALIASES[format][code] ?? code;
}
