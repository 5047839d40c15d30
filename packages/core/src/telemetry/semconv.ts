/**
 * Names, units and bucket boundaries of the OpenTelemetry semantic conventions for generative
 * AI (metrics and spans) that tollgate emits, and tollgate's own instruments. The GenAI names
 * are the spec's; tollgate's own live under `tollgate.`.
 */

/** `gen_ai.client.token.usage` ({token}): the spec's recommended boundaries. */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** `gen_ai.client.operation.duration` and `gen_ai.server.request.duration` (s). */
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** `gen_ai.server.time_to_first_token` (s). */
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];
/** `gen_ai.server.time_per_output_token` (s). */
export const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5];
/** `tollgate.store.duration` (s): a store round trip is sub-millisecond to a few ms; slow ones matter. */
export const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  clientDuration: 'gen_ai.client.operation.duration',
  serverDuration: 'gen_ai.server.request.duration',
  timeToFirstToken: 'gen_ai.server.time_to_first_token',
  timePerOutputToken: 'gen_ai.server.time_per_output_token',
  requests: 'tollgate.requests',
  spend: 'tollgate.spend.micro_usd',
  tokens: 'tollgate.tokens',
  reservationsHeld: 'tollgate.reservations.held',
  reservedMicros: 'tollgate.reservations.held.micro_usd',
  settleRetries: 'tollgate.settle.retries',
  settleFailures: 'tollgate.settle.failures',
  usageRecords: 'tollgate.usage.records',
  usageQueued: 'tollgate.usage.queued',
  storeDuration: 'tollgate.store.duration',
  breakerState: 'tollgate.breaker.state',
  dlpActions: 'tollgate.dlp.actions',
  policyPrompts: 'tollgate.policy_prompts',
} as const;

export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  tokenType: 'gen_ai.token.type',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  entryFormat: 'tollgate.entry_format',
  deployment: 'tollgate.deployment',
  status: 'tollgate.status',
  reason: 'tollgate.reason',
  model: 'tollgate.model',
  providerId: 'tollgate.provider',
  storeOperation: 'tollgate.store.operation',
  outcome: 'tollgate.outcome',
  dlpEntity: 'tollgate.dlp.entity',
  dlpAction: 'tollgate.dlp.action',
  dlpDirection: 'tollgate.dlp.direction',
  prompt: 'tollgate.prompt',
} as const;

/** `gen_ai.operation.name` by the caller's (or upstream's) wire format. */
export function operationName(format: string | null, kind?: string | null): string {
  // `embeddings` is the spec's own name; counting has none, so it is named for what it is.
  if (kind === 'embed') return 'embeddings';
  if (kind === 'count_tokens') return 'count_tokens';
  return format === 'gemini_generate_content' ? 'generate_content' : 'chat';
}

/**
 * `gen_ai.provider.name` by the upstream's wire format and address: the flavour of the API
 * spoken, as the spec asks (an OpenAI-compatible local pool is `openai`). The registry's own
 * provider id goes in `tollgate.provider`.
 */
export function providerName(upstreamFormat: string | null, baseUrl?: string): string {
  switch (upstreamFormat) {
    case 'anthropic_messages':
      return 'anthropic';
    case 'anthropic_vertex':
      return 'gcp.vertex_ai';
    case 'openai_chat':
    case 'openai_responses':
      return 'openai';
    case 'gemini_generate_content':
      return baseUrl !== undefined && baseUrl.includes('aiplatform.googleapis.com') ? 'gcp.vertex_ai' : 'gcp.gemini';
    case 'bedrock_converse':
      return 'aws.bedrock';
    default:
      return '_OTHER';
  }
}

/** A model's brand as `gen_ai.provider.name`, for requests refused before a deployment was chosen. */
export function brandProvider(brand: string | null | undefined): string {
  switch (brand) {
    case 'anthropic':
      return 'anthropic';
    case 'openai':
      return 'openai';
    case 'google':
    case 'gemini':
      return 'gcp.gemini';
    default:
      return '_OTHER';
  }
}

/**
 * Reason classes whose detail is not the operator's: a tool name the client declared
 * (`tool_not_allowed:<name>`) or the model called (`tool_call_blocked:<name>`). On a metric they
 * are their class alone; the name is on the span and in the record.
 */
const FOREIGN_DETAIL = new Set(['tool_not_allowed', 'tool_call_blocked']);

/** A reason as a metric label: rule ids, entity types and codes kept; names a client or model chose dropped. */
export function metricReason(reason: string | null): string | null {
  if (reason === null) return null;
  const cls = reasonClass(reason);
  return FOREIGN_DETAIL.has(cls) ? cls : reason;
}

/** The class of a reason code (`spend_limit:frontier` → `spend_limit`), for `error.type`. */
export function reasonClass(reason: string): string {
  const colon = reason.indexOf(':');
  return colon < 0 ? reason : reason.slice(0, colon);
}
