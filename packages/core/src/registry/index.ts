export { loadRegistry } from './load.js';
export { resolveEntry, resolveModel, candidates, countCandidates, isRegistry } from './resolve.js';
export { KIND_FORMATS } from './formats.js';
export { pickWeighted } from './weighted.js';
export { listModels } from './discovery.js';
export type { DiscoveryFormat, OpenAIModelList, AnthropicModelList, GeminiModelList, ModelListByFormat } from './discovery.js';
export { registryRevision } from './revision.js';
export { DEFAULT_WIRE_FORMATS, DEFAULT_ENTRY_ROUTES } from './formats.js';
export { formatRegistryIssues } from './issues.js';
export { RegistrySchema } from './schema.js';
export type { RegistryFile, RegistryFileInput } from './schema.js';
export { registryJsonSchema } from './json-schema.js';
export { credentialSecrets } from './credentials.js';
export type {
  AwsSigV4Credential,
  GoogleServiceAccountCredential,
  Candidate,
  Capabilities,
  ConversionPlan,
  Converter,
  Credential,
  Deployment,
  EntryMatch,
  EntryRoute,
  LoadRegistryResult,
  Model,
  Operation,
  OperationKind,
  TokenizerName,
  Provider,
  Registry,
  RegistryIssue,
  Visibility,
  WireFormatInfo,
} from './types.js';
export {
  priceUsage,
  worstCaseCost,
  maxWorstCase,
  parsePricing,
  effectiveRates,
  parseDecimal,
  formatDecimal,
  compareDecimal,
  isDecimal,
  RATE_KINDS,
} from '../pricing/index.js';
export type {
  PricedCandidate,
  EffectiveRates,
  Decimal,
  CostMicros,
  Pricing,
  PricingInput,
  PriceInput,
  RateKind,
  Rates,
  RatesInput,
  TokenBounds,
} from '../pricing/index.js';
