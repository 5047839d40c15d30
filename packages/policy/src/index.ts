/**
 * @tollgate/policy — pure decisions over plain data: no I/O, no clock reads, no randomness.
 * `now` is always an input; the gateway gathers state and performs effects.
 */
export type { Principal, PopulationSpec } from './principal.js';
export { ORG_POOL, SPEND_PERS, keySegment, poolKey, poolKeys, poolName, principalKey, type SpendPer } from './keys.js';
export { ALL_TAG, isKnownScope, modelTags, modelsInScope, type RegistryView } from './registry-view.js';
export { MICROS_PER_USD, formatMicros, parseUsdMicros } from './money.js';
export {
  CALENDAR_WINDOWS,
  ROLLING,
  SPEND_WINDOWS,
  bucketCharges,
  isRollingWindow,
  isValidTimeZone,
  rollingBounds,
  windowBounds,
  windowKey,
  windowKeys,
  type BucketCharge,
  type CalendarWindow,
  type Instant,
  type RollingWindow,
  type SpendWindow,
  type WindowBounds,
} from './calendar.js';
export type {
  AccessRule,
  BusinessUnit,
  DlpAction,
  DlpCustomPattern,
  DlpPolicy,
  DlpUseCase,
  PolicyPrompt,
  PromptMatch,
  Enforcement,
  LimitedAccess,
  Pilot,
  PilotEnforcement,
  Policy,
  RateLimitRule,
  RateMatch,
  RegionRule,
  RosterMember,
  SpendAction,
  SpendActionType,
  SpendEntry,
  SpendMatch,
  SpendOverride,
  SpendRule,
  ToolAllowList,
} from './policy-types.js';
export type { PolicyIssue } from './issues.js';
export { parsePolicy, type ParsePolicyOptions, type ParsePolicyResult } from './parse.js';
export type { PolicyFileInput } from './schema.js';
export type { DlpValidation } from './checks.js';
export { PROMPT_FORMATS } from './runtime-schema.js';
/** English zod messages for schemas written with zod/mini (which loads no locale); an error locale configured before is left alone. */
export { useEnglishErrors } from './zod-locale.js';
export { allowedModels, decideAccess, type AccessDecision, type AccessDenial, type AccessInput, type AccessLayer } from './access.js';
export { decideSpend } from './spend.js';
export { counterLayout, type CounterGroup, type CounterLayout, type CounterSlot, type CounterValues } from './counters.js';
export type {
  HardCap,
  LatchMarker,
  Markers,
  PauseMarker,
  PoolCounters,
  SpendCounters,
  SpendDecision,
  SpendInput,
  SpendNotification,
  SpendSubstitution,
  Utilization,
} from './spend-types.js';
export { budgetStatus, type BudgetInput, type BudgetLine, type BudgetStatus } from './budget.js';
export { policyWarnings, type PrincipalSources } from './warnings.js';
export { decideRate, type ConcurrencyConstraint, type RateConstraint, type RateDecision, type RateInput } from './rate.js';
export { decideSubstitution, type SubstitutionDecision, type SubstitutionInput } from './substitution.js';
export { decideTools, type ToolVerdict, type ToolsDecision, type ToolsInput } from './tools.js';
export { decidePrompts, type PromptsInput } from './prompts.js';
export { decideRegions, type RegionLimit, type RegionsDecision, type RegionsInput } from './regions.js';
export { decideDlp, stricterDlpAction, type DlpDecision, type DlpInput } from './dlp.js';
export { BUILTIN_DLP_ENTITIES, type BuiltinDlpEntity } from './dlp-entities.js';
export { whatIf, type CounterTable, type WhatIfBlock, type WhatIfOptions, type WhatIfResult } from './what-if.js';
export { defaultMaxTokens } from './limits.js';
export { closestName, didYouMean } from './suggest.js';
export { schemaHints, type SchemaHints } from './hints.js';
