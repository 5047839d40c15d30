import { stableUnitInterval } from '../util/stable-hash.js';
import type { Candidate } from './types.js';

/**
 * Sticky weighted choice. Among the head of the list — the candidates tied with the first on
 * priority and conversion plan, the order `candidates()` returns never being overridden by
 * weight — pick one in proportion to weight with weighted rendezvous hashing of
 * the sticky key (say, principal and session key; or a function that makes it, called only when
 * there is a choice), and return the list with it first
 * and the others in their order.
 *
 * Deterministic: the same key always picks the same deployment, so a conversation keeps
 * hitting a warm prompt cache; adding or removing a deployment moves only the keys that
 * must move. Weight-0 candidates are picked only when the whole head weighs 0.
 */
export function pickWeighted<C extends Pick<Candidate, 'deployment' | 'plan'>>(list: readonly C[], sticky: string | (() => string)): C[] {
  const first = list[0];
  if (first === undefined) return [];
  let headEnd = 1;
  while (headEnd < list.length && list[headEnd]!.deployment.priority === first.deployment.priority && list[headEnd]!.plan === first.plan) {
    headEnd++;
  }
  if (headEnd === 1) return [...list];
  // Only a choice between several needs the key (it can be long: built from the conversation).
  const stickyKey = typeof sticky === 'string' ? sticky : sticky();
  let best = -1;
  let bestScore = -Infinity;
  for (let i = 0; i < headEnd; i++) {
    const weight = list[i]!.deployment.weight;
    if (weight <= 0) continue;
    // Weighted rendezvous: the largest -w / ln(u) wins with probability w / Σw.
    const u = stableUnitInterval(`${stickyKey}\u0000${list[i]!.deployment.id}`);
    const score = -weight / Math.log(u);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  if (best <= 0) return [...list];
  return [list[best]!, ...list.slice(0, best), ...list.slice(best + 1)];
}
