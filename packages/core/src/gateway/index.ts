export { createGateway, pairedReply, pendingTelemetry } from './create.js';
export type { ContentOptions, DlpOptions, Gateway, GatewayOptions, GatewayStats, MinimalGatewayOptions, PolicyFileInput, UsageStats } from './options.js';
export type { GatewayReply, GatewayRequest, ReplyOptions, HeaderReader, UpstreamFetch, UpstreamResponse, BodySource } from './request.js';
export { GatewayConfigError, type ConfigIssue } from './config-error.js';
export type { RequestFilter, FilterContext } from './filters.js';
export type {
  UsageRecord,
  UsageSink,
  UsageSinkStats,
  UsageOption,
  RecordPrincipal,
  RecordUsage,
  RecordStatus,
  RecordDecision,
  RecordSpendRule,
  RecordDlp,
} from './usage-record.js';
export type { GatewayTelemetry, TelemetryEngine, TelemetryOptions, TelemetryOption, TelemetrySources } from '../telemetry/options.js';
export { RequestTiming, type UpstreamAttempt } from './timing.js';
export type { SecretsOption } from './secrets.js';
export type { UpstreamSigner, AwsSigV4Signer, AwsKeys, SignableCall, GoogleServiceAccountSigner, AccessToken } from './signers.js';
export type { TokenCounter } from './token-counters.js';
export type { SizingOptions } from './sizing.js';
export type { SettleRetryOptions } from './holds.js';
export { promptTokenBound } from './sizing.js';
export type { BreakerOptions } from './breaker.js';
export type { FailoverOptions } from './dispatch.js';
export { chargeKeys, counterKey, keyTag, type TenantOf } from './keys.js';
export { completeBodyOf, replyToResponse, takeChunks } from './render.js';
export { clientStalledError, isClientStalled } from './client-gone.js';
