import type { SpendAction, SpendEntry, SpendOverride } from './policy-types.js';

const kinds = (actions: readonly SpendAction[]): string => [...new Set(actions.map((a) => a.type))].sort().join('+');

/**
 * The platform entry a BU override supersedes: the rule's entry with the override's scope and
 * window — and its action types when the override lists actions; without actions, the one
 * such entry, or else the one such entry with a `block` action.
 */
export function overrideTarget(
  matches: readonly (SpendEntry | undefined)[],
  o: Pick<SpendOverride, 'scope' | 'window' | 'actions'>,
): { index: number } | { error: 'none' | 'ambiguous'; count: number } {
  const hits: number[] = [];
  matches.forEach((e, i) => {
    if (e === undefined || e.match.scope !== o.scope || e.match.window !== o.window) return;
    if (o.actions !== undefined && kinds(e.actions) !== kinds(o.actions)) return;
    hits.push(i);
  });
  if (hits.length === 1) return { index: hits[0] as number };
  if (hits.length === 0) return { error: 'none', count: 0 };
  if (o.actions === undefined) {
    const blocking = hits.filter((i) => matches[i]?.actions.some((a) => a.type === 'block'));
    if (blocking.length === 1) return { index: blocking[0] as number };
  }
  return { error: 'ambiguous', count: hits.length };
}
