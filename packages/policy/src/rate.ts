/**
 * `decideRate`: RPM and TPM rules. Among matching rules that count the same requests (same
 * `scope`), the most restrictive wins per kind, so one bucket per kind and scope is checked;
 * rules of different scopes count different requests, so each keeps its own bucket and every
 * stated cap holds. `unlimited: true` is an explicit, audited no-cap that neither narrows nor
 * widens. The output is the bucket constraints the store checks and counts atomically.
 */
import { compiled, type CompiledRate } from './compile.js';
import type { Enforcement, Policy } from './policy-types.js';
import { principalKey } from './keys.js';
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
  /** `rate:<rule id>:<principal key>:rpm|tpm` (see `principalKey`). */
  key: string;
  ruleId: string;
  kind: 'requests' | 'tokens';
  limit: number;
  windowMs: number;
  /** What this request counts: 1 request, or the token estimate when given. */
  amount?: number;
  /** Store unreachable: `closed` refuses (the default), `open` admits. */
  onStoreError: 'open' | 'closed';
  /** `rate_limit:<rule id>`. */
  reason: string;
}

export interface RateDecision {
  /** False in shadow mode: `constraints` is then empty and `shadowConstraints` says what would apply. */
  enforced: boolean;
  /** The buckets the store must check atomically before admitting (one per kind and scope). */
  constraints: RateConstraint[];
  /** Buckets of shadow rules or shadow mode: count and report, never refuse. */
  shadowConstraints: RateConstraint[];
  /** The tightest rule per kind. */
  limiting: { requests?: string; tokens?: string };
  /** Matching `unlimited: true` rules (for audit). */
  unlimited: string[];
  /** Every matching rule id, in file order. */
  matched: string[];
}

const WINDOW_MS = 60_000;

function constraint(r: CompiledRate, kind: 'requests' | 'tokens', pkey: string, tokens: number | undefined): RateConstraint {
  const c: RateConstraint = {
    key: `rate:${r.keyId}:${pkey}:${kind === 'requests' ? 'rpm' : 'tpm'}`, ruleId: r.id, kind,
    limit: (kind === 'requests' ? r.rpm : r.tpm) as number, windowMs: WINDOW_MS, onStoreError: r.onStoreError,
    reason: `rate_limit:${r.id}`,
  };
  if (kind === 'requests') c.amount = 1;
  else if (tokens !== undefined) c.amount = tokens;
  return c;
}

/** The tightest rule per kind and scope among `rules` (ties: file order), scope groups in first-seen order. */
function tightest(rules: readonly CompiledRate[], kind: 'rpm' | 'tpm'): CompiledRate[] {
  const best = new Map<string | null, CompiledRate>();
  for (const r of rules) {
    const v = r[kind];
    if (v === undefined) continue;
    const cur = best.get(r.scope);
    if (cur === undefined || v < (cur[kind] as number)) best.set(r.scope, r);
  }
  return [...best.values()];
}

function overall(rules: readonly CompiledRate[], kind: 'rpm' | 'tpm'): string | undefined {
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
  const pkey = principalKey(p);
  const live: CompiledRate[] = [];
  const shadow: CompiledRate[] = [];
  const d: RateDecision = { enforced, constraints: [], shadowConstraints: [], limiting: {}, unlimited: [], matched: [] };
  for (const r of rules) {
    if (!r.pop.matches(p)) continue;
    d.matched.push(r.id);
    if (r.unlimited) d.unlimited.push(r.id);
    else (enforced && !r.shadow ? live : shadow).push(r);
  }
  const rpm = tightest(live, 'rpm');
  const tpm = tightest(live, 'tpm');
  for (const r of rpm) d.constraints.push(constraint(r, 'requests', pkey, input.tokens));
  for (const r of tpm) d.constraints.push(constraint(r, 'tokens', pkey, input.tokens));
  const requests = overall(rpm, 'rpm');
  const tokens = overall(tpm, 'tpm');
  if (requests !== undefined) d.limiting.requests = requests;
  if (tokens !== undefined) d.limiting.tokens = tokens;
  for (const r of tightest(shadow, 'rpm')) d.shadowConstraints.push(constraint(r, 'requests', pkey, input.tokens));
  for (const r of tightest(shadow, 'tpm')) d.shadowConstraints.push(constraint(r, 'tokens', pkey, input.tokens));
  return d;
}
