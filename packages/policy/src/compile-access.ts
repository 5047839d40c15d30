/** Access-side compilation: restrictions, BU toggles, rosters and pilots indexed per model. */
import { policyInstant } from './calendar.js';
import type { Policy, PilotEnforcement } from './policy-types.js';
import { compilePopulation, type Population } from './principal.js';

export interface CompiledRestriction {
  scope: string;
  denyLeaders: ReadonlySet<string> | null;
  allowLeaders: ReadonlySet<string> | null;
  exempt: ReadonlySet<string> | null;
  allowBus: ReadonlySet<string> | null;
  blockBus: ReadonlySet<string> | null;
}

export interface CompiledRoster {
  scope: string;
  /** Member id → first instant the membership no longer holds (Infinity: no expiry). */
  users: ReadonlyMap<string, number>;
  applications: ReadonlyMap<string, number>;
}

export interface CompiledPilot {
  id: string;
  enforcement: PilotEnforcement;
  start: number;
  end: number;
  cohort: Population;
}

export interface CompiledAccess {
  restrictions: CompiledRestriction[][];
  rosters: CompiledRoster[][];
  pilots: CompiledPilot[][];
  /** BU → model index → the scope a BU toggle turned the model off with. */
  buOff: ReadonlyMap<string, ReadonlyMap<number, string>>;
}

const set = (xs: readonly string[] | undefined): ReadonlySet<string> | null => (xs === undefined ? null : new Set(xs));

/** `modelIds` are the registry's model ids by index; `scopeModels(scope)` the indices a scope covers. */
export function compileAccess(policy: Policy, tz: string, modelIds: readonly string[], scopeModels: (scope: string) => readonly number[]): CompiledAccess {
  const nModels = modelIds.length;
  const modelIndex = new Map(modelIds.map((id, i) => [id, i] as const));
  const perModel = <T>(): T[][] => Array.from({ length: nModels }, () => []);
  const restrictions = perModel<CompiledRestriction>();
  for (const [scope, a] of Object.entries(policy.access?.models ?? {})) {
    const c: CompiledRestriction = {
      scope,
      denyLeaders: set(a.deny_leaders),
      allowLeaders: set(a.allow_leaders),
      exempt: set(a.exempt_users),
      allowBus: set(a.allow_bus),
      blockBus: set(a.block_bus),
    };
    for (const m of scopeModels(scope)) restrictions[m]?.push(c);
  }

  const rosters = perModel<CompiledRoster>();
  for (const [scope, roster] of Object.entries(policy.limited_access ?? {})) {
    const users = new Map<string, number>();
    const applications = new Map<string, number>();
    for (const member of roster.members) {
      if (typeof member === 'string') {
        users.set(member, Infinity);
        continue;
      }
      const until = member.expires === undefined ? Infinity : policyInstant(member.expires, tz, 'end');
      const target = member.user !== undefined ? users : applications;
      const id = member.user ?? member.application ?? '';
      target.set(id, Math.max(target.get(id) ?? -Infinity, until));
    }
    const c: CompiledRoster = { scope, users, applications };
    for (const m of scopeModels(scope)) rosters[m]?.push(c);
  }

  const pilots = perModel<CompiledPilot>();
  for (const p of policy.pilots ?? []) {
    const c: CompiledPilot = {
      id: p.id,
      enforcement: p.enforcement,
      cohort: compilePopulation(p.cohort),
      start: p.starts === undefined ? -Infinity : policyInstant(p.starts, tz, 'start'),
      end: p.ends === undefined ? Infinity : policyInstant(p.ends, tz, 'end'),
    };
    const seen = new Set<number>();
    for (const s of p.models)
      for (const m of scopeModels(s))
        if (!seen.has(m)) {
          seen.add(m);
          pilots[m]?.push(c);
        }
  }

  // A model-id toggle beats tag toggles; among tags, `off` beats `on`.
  const buOff = new Map<string, Map<number, string>>();
  for (const [bu, unit] of Object.entries(policy.business_units ?? {})) {
    const models = unit.models ?? {};
    const exact = new Map<number, 'on' | 'off'>();
    const byTag = new Map<number, { value: 'on' | 'off'; scope: string }>();
    for (const [scope, value] of Object.entries(models)) {
      const exactModel = modelIndex.get(scope);
      if (exactModel !== undefined) {
        exact.set(exactModel, value);
        continue;
      }
      for (const m of scopeModels(scope)) if (byTag.get(m)?.value !== 'off') byTag.set(m, { value, scope });
    }
    const off = new Map<number, string>();
    for (let m = 0; m < nModels; m++) {
      const e = exact.get(m);
      if (e === 'off') off.set(m, modelIds[m] ?? '');
      else if (e === undefined && byTag.get(m)?.value === 'off') off.set(m, byTag.get(m)?.scope ?? '');
    }
    if (off.size > 0) buOff.set(bu, off);
  }
  return { restrictions, rosters, pilots, buOff };
}
