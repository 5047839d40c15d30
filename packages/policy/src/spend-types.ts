/** Inputs and outputs of `decideSpend`. */
import type { Instant, SpendWindow } from './calendar.js';
import type { CounterValues } from './counters.js';
import type { SpendPer } from './keys.js';
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

/** The counters of the caller's pools, by `per` (`{ bu: …, org: … }`), for nested counters. Missing pools count 0. */
export type PoolCounters = Readonly<Partial<Record<Exclude<SpendPer, 'user'>, SpendCounters>>>;

export interface SpendInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** Canonical model id (after alias resolution). */
  model: string;
  /**
   * Nested counters of the caller itself (with `pools` for its pools' counters), or (fastest)
   * values laid out by `counterLayout`, which hold the pools' counters too.
   */
  counters: SpendCounters | CounterValues;
  /** With nested `counters`: the counters of the pools pooled entries compare with. */
  pools?: PoolCounters;
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
  /** Stable constraint key: `spend:<rule id>:<scope>:<pool key>:<window key>` (see `poolKey`). */
  key: string;
  ruleId: string;
  /** The caller's id (whatever the pool). */
  principalId: string;
  /**
   * Whose counters these are: `principalKey(principal)` for `per: user`, else the pool's key
   * (`bu:payments`, `org`; see `poolKey`). Every member of a pool shares the cap and its holds.
   */
  principalKey: string;
  per: SpendPer;
  /** The pool's name: the caller's id, its team, BU, …, or `org`. */
  pool: string;
  /** The counters to sum: c(principalKey, m, k) for m in `models` and k in `windowKeys`. */
  models: readonly string[];
  scope: string;
  window: SpendWindow;
  /** The key of the holds (`2026-11`; for a rolling window its name). */
  windowKey: string;
  /** The counter window keys summed: `[windowKey]`, or a rolling window's buckets. */
  windowKeys: readonly string[];
  /** When the window rolls over (epoch ms): a TTL for holds and counters. */
  windowEndsAt: number;
  limitMicros: number;
  usedMicros: number;
  /** `spend_limit:<rule id>`. */
  reason: string;
  /** The entry's `message`: what the caller reads when this cap refuses. */
  message?: string;
}

export interface Utilization {
  ruleId: string;
  action: 'block' | 'pause';
  per: SpendPer;
  /** The pool's name (see `HardCap.pool`) and key (`HardCap.principalKey`). */
  pool: string;
  poolKey: string;
  scope: string;
  window: SpendWindow;
  windowKey: string;
  limitMicros: number;
  usedMicros: number;
  remainingMicros: number;
  /** used / limit, for status headers. */
  ratio: number;
  /** When the window rolls over (a rolling window: when its oldest bucket next drops out). */
  resetsAt: number;
  enforced: boolean;
  /** The entry's `message` (block and pause entries). */
  message?: string;
}

export interface PauseMarker {
  /** `pause:<rule id>#<entry index>:<pool key>:<window key>` (`shadow:` prefixed in shadow). Set if absent. */
  key: string;
  ruleId: string;
  /** The value to store: when the pause ends (never after the window's end). */
  until: number;
  expiresAt: number;
}

export interface SpendNotification {
  /** `notify:<rule id>#<entry>:<pool key>:<window key>`: set if absent; send only if it was set (once per pool and window). */
  key: string;
  ruleId: string;
  to: readonly string[];
  /** The caller whose request found the threshold crossed. */
  principalId: string;
  per: SpendPer;
  /** The pool's name and key (the caller's own for `per: user`). */
  pool: string;
  poolKey: string;
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
  /** `latch:<rule id>:<scope>:<pool key>:<window key>`: latched until the window rolls over. */
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
  limiting?: {
    ruleId: string;
    reason: string;
    per: SpendPer;
    pool: string;
    scope: string;
    window: SpendWindow;
    windowKey: string;
    limitMicros: number;
    usedMicros: number;
    resetsAt: number;
  };
  /** Seconds until every blocking limit has reset or pause ended. */
  retryAfterS?: number;
  /** Block and pause entries that apply, in precedence order. */
  utilization: Utilization[];
  /**
   * The tightest enforced hard cap (least remaining; ties: the fuller one), or without hard
   * caps the enforced pause entry nearest its threshold: what the budget headers show.
   */
  governing?: Utilization;
  notifications: SpendNotification[];
  /**
   * Text for the caller, in precedence order: the `message` of each block or pause entry that
   * refuses, and the `text` of each `message` action whose threshold is crossed.
   */
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
