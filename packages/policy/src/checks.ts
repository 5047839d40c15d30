/**
 * Cross-entry checks of a policy file, run on every entry that passed the schema so that one
 * run reports every violation: duplicate ids, scopes and models unknown to the registry,
 * caps out of order across windows, BU overrides that supersede nothing or do not raise.
 */
import { policyInstant, type SpendWindow } from './calendar.js';
import type { IssueList } from './issues.js';
import { parseUsdMicros } from './money.js';
import type {
  AccessRule, BusinessUnit, DlpUseCase, LimitedAccess, Pilot, RateLimitRule, SpendRule, ToolAllowList,
} from './policy-types.js';
import { compilePopulation } from './principal.js';
import { isKnownScope, modelsInScope, type RegistryView } from './registry-view.js';

/** The entries that passed the schema; arrays keep positions (`undefined` where invalid). */
export interface SalvagedPolicy {
  timezone: string;
  access: Record<string, AccessRule>;
  limitedAccess: Record<string, LimitedAccess>;
  pilots: (Pilot | undefined)[];
  businessUnits: Record<string, BusinessUnit>;
  spendRules: (SpendRule | undefined)[];
  rateLimits: (RateLimitRule | undefined)[];
  toolLists: (ToolAllowList | undefined)[];
  dlpUseCases: (DlpUseCase | undefined)[];
}

type Path = readonly PropertyKey[];

function duplicateIds(items: readonly ({ id: string } | undefined)[], at: Path, what: string, issues: IssueList): void {
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    if (item === undefined) return;
    const seen = first.get(item.id);
    if (seen === undefined) first.set(item.id, i);
    else issues.add([...at, i, 'id'], `duplicate ${what} id "${item.id}" (first used at index ${seen})`);
  });
}

function scope(registry: RegistryView | undefined, s: string, path: Path, issues: IssueList): void {
  if (registry !== undefined && !isKnownScope(registry, s)) {
    issues.add(path, `unknown scope "${s}": not a model id or a tag in the registry`);
  }
}

const WINDOW_RANK: Record<SpendWindow, number> = { daily: 0, weekly: 1, monthly: 2, quarterly: 3, yearly: 4 };
const actionKey = (types: readonly string[]): string => [...new Set(types)].sort().join('+');

function spendChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  // Block caps of one scope and population must not shrink as the window grows.
  const caps = new Map<string, { window: SpendWindow; micros: number; usd: string; path: Path }[]>();
  p.spendRules.forEach((rule, r) => {
    rule?.matches.forEach((entry, e) => {
      const at: Path = ['spend', 'rules', r, 'matches', e];
      const m = entry.match;
      scope(registry, m.scope, [...at, 'match', 'scope'], issues);
      const inScope = registry === undefined ? [] : modelsInScope(registry, m.scope);
      entry.actions.forEach((a, k) => {
        if (a.type !== 'substitute') return;
        a.to.forEach((model, j) => {
          if (registry === undefined) return;
          if (!Object.hasOwn(registry.models, model)) issues.add([...at, 'actions', k, 'to', j], `unknown model "${model}"`);
          else if (inScope.includes(model)) {
            issues.add([...at, 'actions', k, 'to', j], `substitute "${model}" is inside the entry's own scope "${m.scope}"`);
          }
        });
      });
      if (!entry.actions.some((a) => a.type === 'block')) return;
      const key = `${m.scope}\u0000${compilePopulation(m).key}`;
      const list = caps.get(key) ?? [];
      list.push({ window: m.window, micros: parseUsdMicros(m.at_or_above_usd) ?? 0, usd: m.at_or_above_usd, path: [...at, 'match', 'at_or_above_usd'] });
      caps.set(key, list);
    });
  });
  for (const list of caps.values()) {
    for (const a of list) {
      for (const b of list) {
        if (WINDOW_RANK[a.window] < WINDOW_RANK[b.window] && a.micros > b.micros) {
          issues.add(a.path, `the ${a.window} cap "${a.usd}" is above the ${b.window} cap "${b.usd}" for the same scope and population; caps must not shrink as the window grows`);
        }
      }
    }
  }
}

function overrideChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  const rules = new Map<string, SpendRule>();
  for (const r of p.spendRules) if (r !== undefined && !rules.has(r.id)) rules.set(r.id, r);
  for (const [bu, unit] of Object.entries(p.businessUnits)) {
    for (const s of Object.keys(unit.models ?? {})) scope(registry, s, ['business_units', bu, 'models', s], issues);
    const superseded = new Set<string>();
    unit.spend_overrides?.forEach((o, i) => {
      const at: Path = ['business_units', bu, 'spend_overrides', i];
      scope(registry, o.scope, [...at, 'scope'], issues);
      const rule = rules.get(o.rule);
      if (rule === undefined) return issues.add([...at, 'rule'], `unknown spend rule "${o.rule}"`);
      const wanted = o.actions === undefined ? undefined : actionKey(o.actions.map((a) => a.type));
      const hits = rule.matches
        .map((entry, e) => ({ entry, e }))
        .filter(({ entry }) => entry.match.scope === o.scope && entry.match.window === o.window)
        .filter(({ entry }) => wanted === undefined || actionKey(entry.actions.map((a) => a.type)) === wanted);
      if (hits.length === 0) {
        return issues.add(at, `rule "${o.rule}" has no ${o.window} entry for scope "${o.scope}"${wanted ? ` with actions ${wanted}` : ''} to override`);
      }
      if (hits.length > 1) {
        return issues.add(at, `rule "${o.rule}" has ${hits.length} ${o.window} entries for scope "${o.scope}"; give actions to choose one`);
      }
      const hit = hits[0] as { entry: SpendRule['matches'][number]; e: number };
      const key = `${o.rule}#${hit.e}`;
      if (superseded.has(key)) issues.add(at, `a second override of the same entry of rule "${o.rule}"`);
      superseded.add(key);
      const platform = parseUsdMicros(hit.entry.match.at_or_above_usd) ?? 0;
      if ((parseUsdMicros(o.at_or_above_usd) ?? 0) <= platform) {
        issues.add([...at, 'at_or_above_usd'], `an override must raise the threshold above the platform's "${hit.entry.match.at_or_above_usd}"`);
      }
    });
  }
}

/** Runs every cross-entry check, adding to `issues`. */
export function checkPolicy(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  duplicateIds(p.spendRules, ['spend', 'rules'], 'spend rule', issues);
  duplicateIds(p.rateLimits, ['rate_limits'], 'rate limit', issues);
  duplicateIds(p.pilots, ['pilots'], 'pilot', issues);
  duplicateIds(p.toolLists, ['tools', 'allow_lists'], 'tool allow-list', issues);
  duplicateIds(p.dlpUseCases, ['dlp', 'use_cases'], 'DLP use case', issues);
  for (const s of Object.keys(p.access)) scope(registry, s, ['access', 'models', s], issues);
  for (const s of Object.keys(p.limitedAccess)) scope(registry, s, ['limited_access', s], issues);
  p.pilots.forEach((pilot, i) => {
    if (pilot === undefined) return;
    pilot.models.forEach((s, j) => scope(registry, s, ['pilots', i, 'models', j], issues));
    if (pilot.starts !== undefined && pilot.ends !== undefined &&
        policyInstant(pilot.ends, p.timezone, 'end') <= policyInstant(pilot.starts, p.timezone, 'start')) {
      issues.add(['pilots', i, 'ends'], `the pilot ends ("${pilot.ends}") before it starts ("${pilot.starts}")`);
    }
  });
  p.rateLimits.forEach((r, i) => {
    if (r?.match?.scope !== undefined) scope(registry, r.match.scope, ['rate_limits', i, 'match', 'scope'], issues);
  });
  p.toolLists.forEach((t, i) => {
    if (t?.match?.scope !== undefined) scope(registry, t.match.scope, ['tools', 'allow_lists', i, 'match', 'scope'], issues);
  });
  spendChecks(p, registry, issues);
  overrideChecks(p, registry, issues);
}
