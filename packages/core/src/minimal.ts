/**
 * `@tollgate/core/minimal`: the same API as `@tollgate/core`, except that `createGateway`
 * requires `codecs`, the wire formats it reads and writes, and imports no codec itself — so a
 * bundle (a Worker) holds only the codecs listed:
 *
 *   import { createGateway } from '@tollgate/core/minimal';
 *   import { openaiChatCodec } from '@tollgate/codecs/openai-chat';
 *   import { anthropicMessagesCodec } from '@tollgate/codecs/anthropic-messages';
 *   const gateway = createGateway({ registry, identity, codecs: [openaiChatCodec, anthropicMessagesCodec] });
 *
 * The gateway refuses to start when an entry route or enabled deployment of the registry has a
 * format with no codec in the list.
 */
export {
  loadRegistry, resolveEntry, resolveModel, candidates, countCandidates, isRegistry, KIND_FORMATS,
  pickWeighted, listModels, registryRevision, DEFAULT_WIRE_FORMATS, DEFAULT_ENTRY_ROUTES,
  formatRegistryIssues, RegistrySchema, registryJsonSchema, credentialSecrets, priceUsage, worstCaseCost,
  maxWorstCase, parsePricing, effectiveRates, parseDecimal, formatDecimal, compareDecimal, isDecimal,
  RATE_KINDS,
} from './registry/index.js';
export type {
  DiscoveryFormat, OpenAIModelList, AnthropicModelList, GeminiModelList, ModelListByFormat, RegistryFile,
  RegistryFileInput, AwsSigV4Credential, GoogleServiceAccountCredential, Candidate, Capabilities,
  ConversionPlan, Converter, Credential, Deployment, EntryMatch, EntryRoute, LoadRegistryResult, Model,
  Operation, OperationKind, TokenizerName, Provider, Registry, RegistryIssue, Visibility, WireFormatInfo,
  PricedCandidate, EffectiveRates, Decimal, CostMicros, Pricing, PricingInput, PriceInput, RateKind, Rates,
  RatesInput, TokenBounds,
} from './registry/index.js';
export {
  createIdentityResolver, createVirtualKey, hashVirtualKey, isVirtualKeyShape, VIRTUAL_KEY_PREFIX,
  extractCredential, CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAM, isJwtShape, IdentityConfigSchema,
  parseIdentityConfig, JWT_ALGORITHMS, DEFAULT_JWT_ALGORITHMS, identitySources,
} from './identity/index.js';
export type {
  AuthMethod, AuthResult, IdentityLookup, IdentityOptions, IdentityResolver, IdentityResolverOptions,
  CredentialResult, CredentialSource, JwtEngine, JwtOutcome, JwtVerifier, FetchLike, JwksOptions,
  IdentityConfig, IdentityConfigInput, JwtAlgorithm,
} from './identity/index.js';
export { createMemoryStore, StoreUnavailableError, checkBuckets, checkDuration, checkKey, checkReserve, checkSettle } from './store/index.js';
export type {
  AdmitRequest,
  AdmitResult,
  MemoryStoreOptions,
  StateStore,
  SpendConstraint,
  ReserveRequest,
  ReserveResult,
  SettleRequest,
  RateBucket,
  RateAdjustment,
  RateResult,
} from './store/index.js';
export {
  createGateway, pairedReply, pendingTelemetry, GatewayConfigError, RequestTiming, promptTokenBound,
  chargeKeys, counterKey, keyTag, completeBodyOf, replyToResponse, takeChunks, clientStalledError,
  isClientStalled,
} from './gateway/index.js';
export type {
  DlpOptions, Gateway, GatewayOptions, GatewayStats, MinimalGatewayOptions, PolicyFileInput, UsageStats,
  GatewayReply, GatewayRequest, ReplyOptions, HeaderReader, UpstreamFetch, UpstreamResponse, BodySource,
  ConfigIssue, RequestFilter, FilterContext, UsageRecord, UsageSink, UsageSinkStats, UsageOption,
  RecordPrincipal, RecordUsage, RecordStatus, RecordDecision, RecordSpendRule, RecordDlp, GatewayTelemetry,
  TelemetryEngine, TelemetryOptions, TelemetryOption, TelemetrySources, UpstreamAttempt, SecretsOption,
  UpstreamSigner, AwsSigV4Signer, AwsKeys, SignableCall, GoogleServiceAccountSigner, AccessToken,
  TokenCounter, SizingOptions, SettleRetryOptions, BreakerOptions, FailoverOptions, TenantOf,
} from './gateway/index.js';
export { GatewayError, type ErrorCode, type ErrorInfo, type WireFormat } from '@tollgate/codecs/base';
export type { Codec } from '@tollgate/codecs/base';
export { createPolicyReplay, policyRevisionOf } from './replay/replay.js';
export type { PolicyReplay, ReplayHandle, ReplayOutcome, ReplayRequest } from './replay/replay.js';
