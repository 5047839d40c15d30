/**
 * `policyWarnings`: entries of a valid policy that can apply to nobody — a population that
 * names nobody, or (given who can call) a pool no caller belongs to, or a population none of
 * the configured keys is in. Not violations: the policy is valid and such an entry is inert,
 * but it is most likely a mistake, so `tollgate validate` and `serve` print them.
 */
import { nobody } from './checks.js';
import { IssueList, type PolicyIssue } from './issues.js';
import { poolKey, type SpendPer } from './keys.js';
import type { Policy } from './policy-types.js';
import { compilePopulation, type Principal, type PopulationSpec } from './principal.js';

/** Who can call a gateway, as far as its configuration says. */
export interface PrincipalSources {
  /** The principals configured one by one (virtual keys, application keys). */
  principals: readonly Principal[];
  /** Whether callers beyond `principals` may exist (JWT issuers, a key lookup function). */
  others: boolean;
  /**
   * Principal attributes (`team`, `bu`, `application`, `workflow`, `platform`, `tier`,
   * `leaders`) those other callers may carry (the claims JWT issuers map), or `true` when
   * anything is possible (a key lookup function).
   */
  open: readonly string[] | true;
}

/** The principal attribute a pool is made of. */
const ATTRIBUTE: Record<Exclude<SpendPer, 'user' | 'org'>, string> = {
  team: 'team',
  bu: 'bu',
  application: 'application',
  workflow: 'workflow',
  platform: 'platform',
};

function entryWarnings(
  matchPath: readonly PropertyKey[],
  perPath: readonly PropertyKey[],
  m: PopulationSpec,
  per: SpendPer,
  sources: PrincipalSources | undefined,
  issues: IssueList,
): void {
  const why = nobody(m);
  if (why !== null) return issues.add(matchPath, `${why}: the entry applies to no caller`);
  if (sources === undefined) return;
  if (per !== 'user' && per !== 'org') {
    const attribute = ATTRIBUTE[per];
    const anyStatic = sources.principals.some((p) => poolKey(p, per) !== null);
    const anyOpen = sources.open === true || sources.open.includes(attribute);
    if (!anyStatic && !anyOpen) {
      return issues.add(
        perPath,
        `per: ${per}, but no caller can have a ${attribute}: no configured key names one and no JWT issuer maps claims.${attribute}; the entry applies to no caller`,
      );
    }
  }
  if (!sources.others && sources.principals.length > 0) {
    const pop = compilePopulation(m);
    if (!sources.principals.some((p) => poolKey(p, per) !== null && pop.matches(p))) {
      issues.add(
        matchPath,
        `none of the ${sources.principals.length} configured keys is in this population${per === 'user' ? '' : ` and in a per: ${per} pool`}: the entry applies to no caller`,
      );
    }
  }
}

/** Spend entries and rate limits of `policy` that can apply to no caller (given `sources`, when known). */
export function policyWarnings(policy: Policy, sources?: PrincipalSources): PolicyIssue[] {
  const issues = new IssueList();
  (policy.spend?.rules ?? []).forEach((rule, r) => {
    rule.matches.forEach((entry, e) =>
      entryWarnings(
        ['spend', 'rules', r, 'matches', e, 'match'],
        ['spend', 'rules', r, 'matches', e, 'match', 'per'],
        entry.match,
        entry.match.per ?? 'user',
        sources,
        issues,
      ),
    );
  });
  (policy.rate_limits ?? []).forEach((rule, i) => {
    if (rule.unlimited === true) return;
    entryWarnings(['rate_limits', i, 'match'], ['rate_limits', i, 'per'], rule.match ?? {}, rule.per ?? 'user', sources, issues);
  });
  return issues.items;
}
