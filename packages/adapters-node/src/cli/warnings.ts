/**
 * Warnings `validate` and `serve` print about a valid policy: entries that can apply to nobody
 * (a population naming nobody, a pool no configured caller can be in, a population none of the
 * configured keys is in). The policy stays valid; the lines say what is probably a mistake.
 */
import { identitySources, type IdentityConfigInput } from '@tollgate/core';
import { parsePolicy, policyWarnings, type Policy, type PolicyFileInput } from '@tollgate/policy';
import { formatViolations, type Violation } from './load.js';

/** The warnings of `policy` (as its file parses to) given the config's identity section (when known). */
export function policyWarningList(policy: PolicyFileInput | Policy | undefined, file: string, identity?: IdentityConfigInput | null): Violation[] {
  if (policy === undefined) return [];
  const parsed = parsePolicy(policy);
  if (!parsed.ok) return [];
  const sources = identity === undefined ? undefined : identitySources(identity ?? {});
  return policyWarnings(parsed.policy, sources).map((w) => ({ file, path: w.path, message: w.message }));
}

/** `tollgate: warning — …` and one indented line per warning, or '' when there are none. */
export function formatWarnings(warnings: readonly Violation[]): string {
  if (warnings.length === 0) return '';
  return `tollgate: warning — ${warnings.length} policy ${warnings.length === 1 ? 'entry applies' : 'entries apply'} to no caller:\n${formatViolations(warnings)}\n`;
}
