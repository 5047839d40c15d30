/**
 * The policy file, as typed data. Keys are the file's keys (reference: docs/policy.md); sections a
 * file omits may be absent. `parsePolicy` returns this shape with defaults filled in.
 */
import type { SpendWindow } from './calendar.js';
import type { PopulationSpec } from './principal.js';

export type Enforcement = 'enforce' | 'shadow';

/** `access.models.<model id or tag>`: platform restrictions on a model or a tag of models. */
export interface AccessRule {
  /** Nobody whose reporting chain contains one of these leaders. */
  deny_leaders?: string[];
  /** When present: only callers under one of these leaders. */
  allow_leaders?: string[];
  /** Users exempt from the leader restrictions of this entry. */
  exempt_users?: string[];
  /** When present: only these business units. Exclusive with `block_bus`. */
  allow_bus?: string[];
  block_bus?: string[];
}

export type SpendAction =
  | { type: 'block'; message?: string }
  | { type: 'pause'; hours: number; message?: string }
  | { type: 'message'; text: string }
  | { type: 'notify'; to: string[] }
  | { type: 'no_promote' }
  /** Budget-tier substitution: serve the first of `to` the caller may use instead. */
  | { type: 'substitute'; to: string[] };

export type SpendActionType = SpendAction['type'];

export interface SpendMatch extends PopulationSpec {
  /** A registry tag or a model id. */
  scope: string;
  window: SpendWindow;
  /** Decimal USD as a string, e.g. "90" or "12.5". */
  at_or_above_usd: string;
}

export interface SpendEntry {
  match: SpendMatch;
  actions: SpendAction[];
}

export interface SpendRule {
  id: string;
  /** Precedence: higher first; ties keep file order. */
  weight?: number;
  /** `shadow` evaluates and reports this rule without blocking. */
  enforcement?: Enforcement;
  description?: string;
  matches: SpendEntry[];
}

export interface RateMatch extends PopulationSpec {
  /** Optional: only requests for models in this tag or model id. */
  scope?: string;
}

export interface RateLimitRule {
  id: string;
  match?: RateMatch;
  rpm?: number;
  tpm?: number;
  /** An explicit, audited no-cap: neither narrows nor widens. */
  unlimited?: boolean;
  /** What the gateway does when the store cannot be reached. Default `closed`. */
  on_store_error?: 'open' | 'closed';
  enforcement?: Enforcement;
}

/** A limited-access roster member: a user id, or `{ user | application, expires? }`. */
export type RosterMember = string | { user?: string; application?: string; expires?: string };

export interface LimitedAccess {
  members: RosterMember[];
}

export type PilotEnforcement = 'off' | 'shadow' | 'authoritative';

/** While active, only the cohort may use the pilot's models. */
export interface Pilot {
  id: string;
  /** Model ids or tags. */
  models: string[];
  cohort: Omit<PopulationSpec, 'exempt_users'>;
  enforcement: PilotEnforcement;
  /** `YYYY-MM-DD` (policy time zone) or an ISO date-time; inclusive. */
  starts?: string;
  /** `YYYY-MM-DD` (inclusive, policy time zone) or an ISO date-time (exclusive). */
  ends?: string;
  description?: string;
}

/** A BU's raised threshold for one platform entry (same rule, scope and window). */
export interface SpendOverride {
  rule: string;
  scope: string;
  window: SpendWindow;
  at_or_above_usd: string;
  /** Picks the entry by its action types when the rule has several for this scope and window. */
  actions?: SpendAction[];
}

export interface BusinessUnit {
  /** Model toggles by model id or tag. `off` narrows; `on` never re-enables a platform lock. */
  models?: Record<string, 'on' | 'off'>;
  spend_overrides?: SpendOverride[];
}

export interface ToolAllowList {
  id: string;
  match?: RateMatch;
  /** Tool names; a trailing `*` matches a prefix; `*` alone matches every tool. */
  allow: string[];
}

/**
 * What happens to a value of an entity type: `allow` (nothing), `log` (forward, count),
 * `pseudonymize` (replace with a format-preserving surrogate, restored in the answer), `redact`
 * (replace with a `[REDACTED:TYPE]` marker), `block` (the request is not sent).
 */
export type DlpAction = 'allow' | 'log' | 'pseudonymize' | 'redact' | 'block';

export interface DlpUseCase {
  id: string;
  match?: PopulationSpec;
  /** Entity type → action; the key `*` is the use case's fallback. */
  actions: Record<string, DlpAction>;
}

/** An organisation's own identifier type, matched with RE2 semantics. */
export interface DlpCustomPattern {
  /** The entity type it finds; policy actions name it. */
  id: string;
  pattern: string;
  /** Any of `i`, `m`, `s`. */
  flags?: string;
  /** The longest match a streamed answer holds back to find it across chunks. Default 128. */
  max_length?: number;
}

export interface DlpPolicy {
  /** Entity type → action for callers in no use case, and the fallback for every use case. */
  default?: Record<string, DlpAction>;
  use_cases?: DlpUseCase[];
  custom?: DlpCustomPattern[];
  /** Also scan the model's output text and tool-call arguments. Default false. */
  scan_responses?: boolean;
}

/** Where a policy prompt applies: a population, optionally a model scope and entry formats. */
export interface PromptMatch extends PopulationSpec {
  scope?: string;
  /** Entry wire formats (what the client speaks); absent: every format. */
  formats?: string[];
}

/** An operator's system prompt, put before the client's own for matching callers. */
export interface PolicyPrompt {
  id: string;
  version: string | number;
  match?: PromptMatch;
  text: string;
}

/** Where a population's requests may be served: deployments whose `region` is in `allow`. */
export interface RegionRule {
  id: string;
  /** A population, plus `scope` for the models it covers; empty: everyone, every model. */
  match?: RateMatch;
  /** Deployment regions (the registry's `deployments[].region`). */
  allow: string[];
  enforcement?: Enforcement;
}

export interface Policy {
  enforcement?: Enforcement;
  /** One IANA time zone for every daily, weekly, monthly, quarterly and yearly window. */
  timezone?: string;
  /** The output bound the gateway sets when a client sends no `max_tokens`. */
  default_max_tokens?: number;
  access?: { models?: Record<string, AccessRule> };
  limited_access?: Record<string, LimitedAccess>;
  pilots?: Pilot[];
  business_units?: Record<string, BusinessUnit>;
  spend?: { rules?: SpendRule[] };
  rate_limits?: RateLimitRule[];
  tools?: { allow_lists?: ToolAllowList[] };
  dlp?: DlpPolicy;
  prompts?: PolicyPrompt[];
  regions?: RegionRule[];
}
