/**
 * `decideAccess`: layered, each layer only narrowing the one above —
 * catalog → platform restrictions by leader (with exempt users) → platform BU allow/block
 * lists → BU toggles → limited-access rosters → pilot cohorts.
 * Callers answer a denial exactly like an unknown model (404); the reason goes to the record.
 */
import { toEpochMs, type Instant } from './calendar.js';
import { compiled } from './compile.js';
import type { Enforcement, Policy } from './policy-types.js';
import { isUser, underLeaders, type Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';

export type AccessLayer = 'catalog' | 'leaders' | 'bus' | 'bu_toggle' | 'roster' | 'pilot';

export interface AccessInput {
  policy: Policy;
  registry: RegistryView;
  principal: Principal;
  /** Canonical model id after alias resolution; null or unknown → `model_not_found`. */
  model: string | null | undefined;
  now: Instant;
  /** Overrides the policy's `enforcement`. */
  enforcement?: Enforcement;
}

export interface AccessDenial {
  layer: AccessLayer;
  /** E.g. `deny_leaders:claude-opus`, `allow_bus:frontier`, `bu_toggle:payments:frontier`, `roster:claude-opus`, `pilot:<id>`. */
  detail: string;
}

export interface AccessDecision {
  allowed: boolean;
  /** False in shadow mode: denials are reported in `wouldDeny`, not applied. */
  enforced: boolean;
  /** `model_not_found` (catalog: also in shadow mode) or `access_denied`. */
  reason?: 'model_not_found' | 'access_denied';
  /** The first denying layer. */
  denial?: AccessDenial;
  /** What would have denied, when not enforced (shadow mode, shadow pilots). */
  wouldDeny: AccessDenial[];
}

/** Decide whether `principal` may use `model` now. */
export function decideAccess(input: AccessInput): AccessDecision {
  const c = compiled(input.policy, input.registry);
  const enforced = (input.enforcement ?? c.enforcement) !== 'shadow';
  const d: AccessDecision = { allowed: true, enforced, wouldDeny: [] };
  const mi = input.model == null ? undefined : c.modelIndex.get(input.model);
  if (mi === undefined) {
    return { allowed: false, enforced, reason: 'model_not_found', denial: { layer: 'catalog', detail: 'model_not_found' }, wouldDeny: [] };
  }
  const t = toEpochMs(input.now);
  const p = input.principal;
  if (!Number.isFinite(t)) {
    return { allowed: false, enforced, reason: 'access_denied', denial: { layer: 'catalog', detail: 'invalid_now' }, wouldDeny: [] };
  }

  for (const r of c.access.restrictions[mi] ?? []) {
    if (r.exempt === null || !isUser(p, r.exempt)) {
      if (r.denyLeaders !== null && underLeaders(p, r.denyLeaders)) deny(d, 'leaders', `deny_leaders:${r.scope}`);
      if (r.allowLeaders !== null && !underLeaders(p, r.allowLeaders)) deny(d, 'leaders', `allow_leaders:${r.scope}`);
    }
  }
  for (const r of c.access.restrictions[mi] ?? []) {
    if (r.allowBus !== null && (p.bu === undefined || !r.allowBus.has(p.bu))) deny(d, 'bus', `allow_bus:${r.scope}`);
    if (r.blockBus !== null && p.bu !== undefined && r.blockBus.has(p.bu)) deny(d, 'bus', `block_bus:${r.scope}`);
  }
  if (p.bu !== undefined) {
    const off = c.access.buOff.get(p.bu)?.get(mi);
    if (off !== undefined) deny(d, 'bu_toggle', `bu_toggle:${p.bu}:${off}`);
  }
  for (const r of c.access.rosters[mi] ?? []) {
    const userUntil = p.kind === 'user' ? r.users.get(p.id) : undefined;
    const appId = p.application ?? (p.kind === 'application' ? p.id : undefined);
    const appUntil = appId === undefined ? undefined : r.applications.get(appId);
    const until = Math.max(userUntil ?? -Infinity, appUntil ?? -Infinity);
    if (!(t < until)) deny(d, 'roster', `roster:${r.scope}`);
  }
  for (const pilot of c.access.pilots[mi] ?? []) {
    if (pilot.enforcement === 'off' || t < pilot.start || t >= pilot.end) continue;
    if (!pilot.cohort.matches(p)) deny(d, 'pilot', `pilot:${pilot.id}`, pilot.enforcement === 'shadow');
  }
  return d;
}

function deny(d: AccessDecision, layer: AccessLayer, detail: string, shadow = false): void {
  const denial = { layer, detail };
  if (!d.enforced || shadow) d.wouldDeny.push(denial);
  else if (d.allowed) {
    d.allowed = false;
    d.reason = 'access_denied';
    d.denial = denial;
  }
}

/** True when `decideAccess` would admit the call (a convenience for filters and discovery). */
export function mayUse(input: AccessInput): boolean {
  return decideAccess(input).allowed;
}

/** The registry's models `principal` may use now, in registry order (for `GET /v1/models`). */
export function allowedModels(input: Omit<AccessInput, 'model'>): string[] {
  return Object.keys(input.registry.models).filter((model) => decideAccess({ ...input, model }).allowed);
}
