/**
 * Who can call, as an identity configuration says it: the principals of its keys one by one,
 * and the attributes that JWT callers may carry (the claims each issuer maps) — what
 * `policyWarnings` needs to tell a policy entry that can apply to nobody.
 */
import type { Principal, PrincipalSources } from '@tollgate/policy';
import { parseIdentityConfig, type IdentityConfigInput } from './schema.js';

/** The sources of principals of an identity section; `lookup`: a key-hash lookup may return anyone. */
export function identitySources(identity: IdentityConfigInput | undefined, options: { lookup?: boolean } = {}): PrincipalSources {
  const config = parseIdentityConfig(identity ?? {});
  const principals: Principal[] = [];
  for (const k of config.virtual_keys ?? []) {
    const { user, leaders, ...rest } = k.principal;
    principals.push({ kind: 'user', id: user, ...rest, ...(leaders === undefined ? {} : { leaders }) });
  }
  for (const a of config.applications ?? []) {
    principals.push({
      kind: 'application',
      id: a.id,
      application: a.id,
      ...(a.bu === undefined ? {} : { bu: a.bu }),
      ...(a.tier === undefined ? {} : { tier: a.tier }),
      ...(a.team === undefined ? {} : { team: a.team }),
    });
  }
  if (options.lookup === true) return { principals, others: true, open: true };
  const open = new Set<string>();
  for (const j of config.jwt ?? []) {
    for (const [field, claim] of Object.entries(j.claims ?? {})) if (field !== 'user' && claim !== undefined) open.add(field);
    if (j.platform !== undefined) open.add('platform');
  }
  return { principals, others: (config.jwt ?? []).length > 0, open: [...open] };
}
