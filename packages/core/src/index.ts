// `@tollgate/core`: everything in `@tollgate/core/minimal` (listed by name; test/public-api.test.ts
// checks that none is missing), except that `createGateway` speaks every wire format by default and
// `createIdentityResolver` verifies JWTs by default.
export {
  createMemoryStore, StoreUnavailableError, checkBuckets, checkDuration, checkKey, checkReserve, checkSettle,
  GatewayError, createPolicyReplay, policyRevisionOf, loadRegistry, resolveEntry, resolveModel, candidates,
  countCandidates, isRegistry, KIND_FORMATS, pickWeighted, listModels, registryRevision, DEFAULT_WIRE_FORMATS,
  DEFAULT_ENTRY_ROUTES, formatRegistryIssues, RegistrySchema, registryJsonSchema, credentialSecrets,
  priceUsage, worstCaseCost, maxWorstCase, parsePricing, effectiveRates, parseDecimal, formatDecimal,
  compareDecimal, isDecimal, RATE_KINDS, createVirtualKey, hashVirtualKey, isVirtualKeyShape,
  VIRTUAL_KEY_PREFIX, extractCredential, CREDENTIAL_HEADERS, CREDENTIAL_QUERY_PARAM, isJwtShape,
  IdentityConfigSchema, parseIdentityConfig, JWT_ALGORITHMS, DEFAULT_JWT_ALGORITHMS, identitySources,
  pairedReply, pendingTelemetry, GatewayConfigError, RequestTiming, promptTokenBound, chargeKeys, counterKey,
  keyTag, completeBodyOf, replyToResponse, takeChunks, clientStalledError, isClientStalled,
} from './minimal.js';
export type {
  AdmitRequest, AdmitResult, MemoryStoreOptions, StateStore, SpendConstraint, ReserveRequest, ReserveResult,
  SettleRequest, RateBucket, RateAdjustment, RateResult, ErrorCode, ErrorInfo, WireFormat, Codec,
  PolicyReplay, ReplayHandle, ReplayOutcome, ReplayRequest, DiscoveryFormat, OpenAIModelList,
  AnthropicModelList, GeminiModelList, ModelListByFormat, RegistryFile, RegistryFileInput, AwsSigV4Credential,
  GoogleServiceAccountCredential, Candidate, Capabilities, ConversionPlan, Converter, Credential, Deployment,
  EntryMatch, EntryRoute, LoadRegistryResult, Model, Operation, OperationKind, TokenizerName, Provider,
  Registry, RegistryIssue, Visibility, WireFormatInfo, PricedCandidate, EffectiveRates, Decimal, CostMicros,
  Pricing, PricingInput, PriceInput, RateKind, Rates, RatesInput, TokenBounds, AuthMethod, AuthResult,
  IdentityLookup, IdentityOptions, IdentityResolver, IdentityResolverOptions, CredentialResult,
  CredentialSource, JwtEngine, JwtOutcome, JwtVerifier, FetchLike, JwksOptions, IdentityConfig,
  IdentityConfigInput, JwtAlgorithm, DlpOptions, Gateway, GatewayOptions, GatewayStats, MinimalGatewayOptions,
  PolicyFileInput, UsageStats, GatewayReply, GatewayRequest, ReplyOptions, HeaderReader, UpstreamFetch,
  UpstreamResponse, BodySource, ConfigIssue, RequestFilter, FilterContext, UsageRecord, UsageSink,
  UsageSinkStats, UsageOption, RecordPrincipal, RecordUsage, RecordStatus, RecordDecision, RecordSpendRule,
  RecordDlp, GatewayTelemetry, TelemetryEngine, TelemetryOptions, TelemetryOption, TelemetrySources,
  UpstreamAttempt, SecretsOption, UpstreamSigner, AwsSigV4Signer, AwsKeys, SignableCall,
  GoogleServiceAccountSigner, AccessToken, TokenCounter, SizingOptions, SettleRetryOptions, BreakerOptions,
  FailoverOptions, TenantOf,
} from './minimal.js';
export { createGateway } from './gateway/all-codecs.js';
export { createIdentityResolver } from './identity/with-jwt.js';
export { awsSigV4Signer } from './gateway/aws-sigv4.js';
export { googleServiceAccountSigner } from './gateway/google-service-account.js';
export { operationKinds, type OperationKinds } from './gateway/kinds.js';
