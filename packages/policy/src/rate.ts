/**
 * `decideRate`: RPM, TPM and concurrency rules. Among matching rules that count the same
 * requests of the same pool (same `scope` and `per`), the most restrictive wins per kind, so
 * one bucket per kind, scope and pool is checked; rules of different scopes or pools count
 * different requests, so each keeps its own bucket and every stated cap holds. `unlimited:
 * true` is an explicit, audited no-cap that neither narrows nor widens. The output is the
 * bucket constraints the store checks and counts atomically, and the in-flight limits the
 * store holds with the request's reservation.
 */
import { compiled, type CompiledRate } from './compile.js';
import type { Enforcement, Policy } from './policy-types.js';
import { poolKeys, type SpendPer } from './keys.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';

export interface RateInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** Canonical model id; without it only unscoped rules apply. */
  model?: string | null;
  /** The request's token estimate, copied into token constraints as `amount`. */
  tokens?: number;
  /** Overrides the policy's `enforcement`. */
  enforcement?: Enforcement;
}

export interface RateConstraint {
  /** `rate:<rule id>:<pool key>:rpm|tpm` (see `poolKey`; the caller's principal key for `per: user`). */
  key: string;
  ruleId: string;
  kind: 'requests' | 'tokens';
  per: SpendPer;
  limit: number;
  windowMs: number;
  /** What this request counts: 1 request, or the token estimate when given. */
  amount?: number;
  /** Store unreachable: `closed` refuses (the default), `open` admits. */
  onStoreError: 'open' | 'closed';
  /** `rate_limit:<rule id>`. */
  reason: string;
}

/**
 * An in-flight limit: the request holds one unit of `key` from admission until it settles (a
 * stream until it ends), and is admitted only while fewer than `limit` units are held.
 */
export interface ConcurrencyConstraint {
  /** `conc:<rule id>:<pool key>`. */
  key: string;
  ruleId: string;
  limit: number;
  per: SpendPer;
  onStoreError: 'open' | 'closed';
  /** `concurrency_limit:<rule id>`. */
  reason: string;
}

export interface RateDecision {
  /** False in shadow mode: `constraints` is then empty and `shadowConstraints` says what would apply. */
  enforced: boolean;
  /** The buckets the store must check atomically before admitting (one per kind, scope and pool). */
  constraints: RateConstraint[];
  /** Buckets of shadow rules or shadow mode: count and report, never refuse. */
  shadowConstraints: RateConstraint[];
  /** In-flight limits to hold with the request (one per scope and pool). */
  concurrency: ConcurrencyConstraint[];
  /** In-flight limits of shadow rules or shadow mode: held and reported, never refusing. */
  shadowConcurrency: ConcurrencyConstraint[];
  /** The tightest rule per kind. */
  limiting: { requests?: string; tokens?: string; concurrent?: string };
  /** Matching `unlimited: true` rules (for audit). */
  unlimited: string[];
  /** Every matching rule id, in file order. */
  matched: string[];
}

const WINDOW_MS = 60_000;

interface RuleKeys {
  rpm: string;
  tpm: string;
  conc: string;
}

const ruleKeys = new WeakMap<CompiledRate, Map<string, RuleKeys>>();

/** A rule's store keys for one pool key, made once (they do not depend on time); at most 1,024 pool keys per rule are kept. */
function keysOf(r: CompiledRate, pkey: string): RuleKeys {
  let byPool = ruleKeys.get(r);
  if (byPool === undefined) ruleKeys.set(r, (byPool = new Map<string, RuleKeys>()));
  let keys = byPool.get(pkey);
  if (keys === undefined) {
    keys = { rpm: `rate:${r.keyId}:${pkey}:rpm`, tpm: `rate:${r.keyId}:${pkey}:tpm`, conc: `conc:${r.keyId}:${pkey}` };
    if (byPool.size >= 1024) byPool.clear();
    byPool.set(pkey, keys);
  }
  return keys;
}

function constraint(r: CompiledRate, kind: 'requests' | 'tokens', pkey: string, tokens: number | undefined): RateConstraint {
  const keys = keysOf(r, pkey);
  const c: RateConstraint = {
    key: kind === 'requests' ? keys.rpm : keys.tpm,
    ruleId: r.id,
    kind,
    per: r.per,
    limit: (kind === 'requests' ? r.rpm : r.tpm) as number,
    windowMs: WINDOW_MS,
    onStoreError: r.onStoreError,
    reason: r.rateReason,
  };
  if (kind === 'requests') c.amount = 1;
  else if (tokens !== undefined) c.amount = tokens;
  return c;
}

function concurrency(r: CompiledRate, pkey: string): ConcurrencyConstraint {
  return {
    key: keysOf(r, pkey).conc,
    ruleId: r.id,
    limit: r.concurrent as number,
    per: r.per,
    onStoreError: r.onStoreError,
    reason: r.concurrencyReason,
  };
}

type Kind = 'rpm' | 'tpm' | 'concurrent';

/** The tightest rule per kind, scope and pool among `rules` (ties: file order), groups in first-seen order. */
function tightest(rules: readonly CompiledRate[], kind: Kind): CompiledRate[] {
  const out: CompiledRate[] = [];
  for (const r of rules) {
    const v = r[kind];
    if (v === undefined) continue;
    let i = 0;
    while (i < out.length && (out[i] as CompiledRate).group !== r.group) i++;
    if (i === out.length) out.push(r);
    else if (v < ((out[i] as CompiledRate)[kind] as number)) out[i] = r;
  }
  return out;
}

function overall(rules: readonly CompiledRate[], kind: Kind): string | undefined {
  let best: CompiledRate | undefined;
  for (const r of rules) if (best === undefined || (r[kind] as number) < (best[kind] as number)) best = r;
  return best?.id;
}

/** Decide which rate buckets apply to this request. */
export function decideRate(input: RateInput): RateDecision {
  const c = compiled(input.policy, input.registry);
  const enforced = (input.enforcement ?? c.enforcement) !== 'shadow';
  const mi = input.model == null ? undefined : c.modelIndex.get(input.model);
  const rules = c.rateByModel[mi ?? c.modelIds.length] ?? [];
  const p = input.principal;
  const pools = poolKeys(p);
  const live: CompiledRate[] = [];
  const shadow: CompiledRate[] = [];
  const d: RateDecision = {
    enforced,
    constraints: [],
    shadowConstraints: [],
    concurrency: [],
    shadowConcurrency: [],
    limiting: {},
    unlimited: [],
    matched: [],
  };
  for (const r of rules) {
    // A caller outside the rule's pool (no team for per: team, …) is not subject to it.
    if (pools[r.perIdx] === null || !r.pop.matches(p)) continue;
    d.matched.push(r.id);
    if (r.unlimited) d.unlimited.push(r.id);
    else (enforced && !r.shadow ? live : shadow).push(r);
  }
  if (live.length > 0) {
    const rpm = tightest(live, 'rpm');
    const tpm = tightest(live, 'tpm');
    for (const r of rpm) d.constraints.push(constraint(r, 'requests', pools[r.perIdx] as string, input.tokens));
    for (const r of tpm) d.constraints.push(constraint(r, 'tokens', pools[r.perIdx] as string, input.tokens));
    const requests = overall(rpm, 'rpm');
    const tokens = overall(tpm, 'tpm');
    if (requests !== undefined) d.limiting.requests = requests;
    if (tokens !== undefined) d.limiting.tokens = tokens;
    if (c.concurrent) {
      const conc = tightest(live, 'concurrent');
      for (const r of conc) d.concurrency.push(concurrency(r, pools[r.perIdx] as string));
      const concurrent = overall(conc, 'concurrent');
      if (concurrent !== undefined) d.limiting.concurrent = concurrent;
    }
  }
  if (shadow.length === 0) return d;
  for (const r of tightest(shadow, 'rpm')) d.shadowConstraints.push(constraint(r, 'requests', pools[r.perIdx] as string, input.tokens));
  for (const r of tightest(shadow, 'tpm')) d.shadowConstraints.push(constraint(r, 'tokens', pools[r.perIdx] as string, input.tokens));
  for (const r of tightest(shadow, 'concurrent')) d.shadowConcurrency.push(concurrency(r, pools[r.perIdx] as string));
  return d;
}
