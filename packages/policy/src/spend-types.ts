/** Inputs and outputs of `decideSpend`. */
import type { Instant, SpendWindow } from './calendar.js';
import type { CounterValues } from './counters.js';
import type { Enforcement, Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';

/**
 * One principal's settled spend in micro-USD: window key → model id → micros, e.g.
 * `{ '2026-11': { 'claude-opus': 41_000_000 }, '2026-11-29': { … } }`. Window keys of different
 * windows never collide (`windowKey` formats differ), so one flat map serves every window.
 * Missing entries are 0. This is what a store returns for c(principal, model, window): one
 * hash per window key, read once per request. Callers may include live reservations if they
 * want pre-checks to see them; the store's atomic check counts them either way.
 */
export type SpendCounters = Readonly<Record<string, Readonly<Record<string, number>> | undefined>>;

/**
 * One-shot markers already set, by key → value (epoch ms). A pause marker's value is the
 * instant the pause ends; notification and latch markers only need to exist.
 */
export type Markers = Readonly<Record<string, number | undefined>>;

export interface SpendInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** Canonical model id (after alias resolution). */
  model: string;
  /** Nested counters, or (fastest) values laid out by `counterLayout`. */
  counters: SpendCounters | CounterValues;
  markers?: Markers;
  now: Instant;
  /** Overrides the policy's `enforcement`. */
  enforcement?: Enforcement;
  /**
   * The request's worst-case cost, when known: a block entry then also refuses when
   * used + cost would pass its threshold. The store repeats this check atomically.
   */
  costMicros?: number;
}

/** A limit the store enforces atomically: reserve X only if sum(counters) + reserved + X ≤ limit. */
export interface HardCap {
  /** Stable constraint key: `spend:<rule id>:<scope>:<principal key>:<window key>` (see `principalKey`). */
  key: string;
  ruleId: string;
  principalId: string;
  /** `principalKey(principal)`: whose counters these are (kind, issuer and id). */
  principalKey: string;
  /** The counters to sum: c(principalKey, m, windowKey) for m in `models`. */
  models: readonly string[];
  scope: string;
  window: SpendWindow;
  windowKey: string;
  /** When the window rolls over (epoch ms): a TTL for holds and counters. */
  windowEndsAt: number;
  limitMicros: number;
  usedMicros: number;
  /** `spend_limit:<rule id>`. */
  reason: string;
}

export interface Utilization {
  ruleId: string;
  action: 'block' | 'pause';
  scope: string;
  window: SpendWindow;
  windowKey: string;
  limitMicros: number;
  usedMicros: number;
  remainingMicros: number;
  /** used / limit, for status headers. */
  ratio: number;
  resetsAt: number;
  enforced: boolean;
}

export interface PauseMarker {
  /** `pause:<rule id>:<principal key>:<window key>` (`shadow:` prefixed in shadow). Set if absent. */
  key: string;
  ruleId: string;
  /** The value to store: when the pause ends (never after the window's end). */
  until: number;
  expiresAt: number;
}

export interface SpendNotification {
  /** `notify:<rule id>#<entry>:<principal key>:<window key>`: set if absent; send only if it was set. */
  key: string;
  ruleId: string;
  to: readonly string[];
  principalId: string;
  scope: string;
  window: SpendWindow;
  windowKey: string;
  thresholdMicros: number;
  usedMicros: number;
  expiresAt: number;
  /** From a shadow rule or shadow mode: report, do not send to users. */
  shadow: boolean;
}

export interface SpendSubstitution {
  ruleId: string;
  /** Candidates in order; pick with `decideSubstitution`. */
  to: readonly string[];
  /** `latch:<rule id>:<scope>:<principal key>:<window key>`: latched until the window rolls over. */
  latchKey: string;
  expiresAt: number;
}

export interface LatchMarker {
  key: string;
  ruleId: string;
  expiresAt: number;
}

export interface SpendDecision {
  allowed: boolean;
  /** False when the decision was made in shadow mode (nothing blocks). */
  enforced: boolean;
  /** The first blocking entry in precedence order. */
  limiting?: { ruleId: string; reason: string; scope: string; window: SpendWindow; windowKey: string; limitMicros: number; usedMicros: number };
  /** Seconds until every blocking limit has reset or pause ended. */
  retryAfterS?: number;
  /** Block and pause entries that apply, in precedence order. */
  utilization: Utilization[];
  /** The enforced limit nearest to its cap (highest ratio): the one status headers show. */
  governing?: Utilization;
  notifications: SpendNotification[];
  messages: { ruleId: string; text: string }[];
  pauses: PauseMarker[];
  latches: LatchMarker[];
  /** Hard caps the store must enforce atomically (enforced block entries only). */
  hardCaps: HardCap[];
  /** Block entries of shadow rules or shadow mode: the store may check them to report, never to refuse. */
  shadowCaps: HardCap[];
  /** Rule ids that would have blocked had they been enforced (the record's `would_block`). */
  wouldBlock: string[];
  /** Stable reason codes of what blocked: `spend_limit:<id>`, `paused:<id>`, `model_not_found`, `spend_error:<what>`. */
  reasons: string[];
  /** Budget-tier substitution to apply, when an entry's `substitute` is active. */
  substitute?: SpendSubstitution;
  /** A `no_promote` action is active: never route to a dearer model or deployment than requested. */
  noPromote: boolean;
}
