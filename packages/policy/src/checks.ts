/**
 * Cross-entry checks of a policy file, run on every entry that passed the schema so that one
 * run reports every violation: duplicate ids, scopes and models unknown to the registry,
 * caps out of order across windows, BU overrides that supersede nothing or do not raise.
 */
import { policyInstant, type SpendWindow } from './calendar.js';
import type { IssueList } from './issues.js';
import { parseUsdMicros } from './money.js';
import { overrideTarget } from './overrides.js';
import { BUILTIN_DLP_ENTITIES } from './dlp-entities.js';
import type {
  AccessRule,
  BusinessUnit,
  DlpCustomPattern,
  DlpUseCase,
  LimitedAccess,
  Pilot,
  PolicyPrompt,
  RateLimitRule,
  RegionRule,
  SpendEntry,
  ToolAllowList,
} from './policy-types.js';
import type { PopulationSpec } from './principal.js';
import { PROMPT_FORMATS } from './runtime-schema.js';
import { compilePopulation } from './principal.js';
import { aliasOwner, deploymentRegions, isKnownScope, knownScopes, modelsInScope, type RegistryView } from './registry-view.js';
import { didYouMean } from './suggest.js';

/** A spend rule whose valid entries survived, positions kept. */
export interface SalvagedRule {
  id: string | undefined;
  matches: (SpendEntry | undefined)[];
  /** Each entry's scope as written, checked even when the entry is otherwise invalid. */
  scopes: (string | undefined)[];
}

/** Ids as written (undefined where not a string), for duplicate checks of invalid entries too. */
export interface SalvagedIds {
  spendRules: (string | undefined)[];
  rateLimits: (string | undefined)[];
  pilots: (string | undefined)[];
  toolLists: (string | undefined)[];
  dlpUseCases: (string | undefined)[];
  dlpCustom: (string | undefined)[];
  regions: (string | undefined)[];
}

/** The entries that passed the schema; arrays keep positions (`undefined` where invalid). */
export interface SalvagedPolicy {
  timezone: string;
  ids: SalvagedIds;
  access: Record<string, AccessRule>;
  limitedAccess: Record<string, LimitedAccess>;
  pilots: (Pilot | undefined)[];
  businessUnits: Record<string, BusinessUnit>;
  spendRules: (SalvagedRule | undefined)[];
  rateLimits: (RateLimitRule | undefined)[];
  toolLists: (ToolAllowList | undefined)[];
  dlpUseCases: (DlpUseCase | undefined)[];
  /** `dlp.default` entries that passed the schema. */
  dlpDefault: Record<string, unknown>;
  dlpCustom: (DlpCustomPattern | undefined)[];
  prompts: (PolicyPrompt | undefined)[];
  regions: (RegionRule | undefined)[];
}

/**
 * What DLP validation needs beyond the file: the entity types recognizers plugged into the
 * gateway report, and the compiler custom patterns run on (`compileCustom` of
 * `@tollgate/policy/detectors`), which says why a pattern cannot be used.
 */
export interface DlpValidation {
  entities?: readonly string[];
  compile?: (spec: DlpCustomPattern) => { ok: true } | { ok: false; path: 'pattern' | 'flags'; message: string };
}

type Path = readonly PropertyKey[];

function duplicateIds(ids: readonly (string | undefined)[], at: Path, what: string, issues: IssueList): void {
  const first = new Map<string, number>();
  ids.forEach((id, i) => {
    if (id === undefined || id === '') return;
    const seen = first.get(id);
    if (seen === undefined) first.set(id, i);
    else issues.add([...at, i, 'id'], `duplicate ${what} id "${id}" (first used at index ${seen})`);
  });
}

function scope(registry: RegistryView | undefined, s: string, path: Path, issues: IssueList): void {
  if (registry !== undefined && !isKnownScope(registry, s)) issues.add(path, unknownScope(registry, s));
}

/** Why a scope is unknown, and what was probably meant. */
function unknownScope(registry: RegistryView, s: string): string {
  const owner = aliasOwner(registry, s);
  if (owner !== undefined) return `unknown scope "${s}": an alias of model "${owner}"; a scope names a model id or a tag`;
  return `unknown scope "${s}": not a model id or a tag in the registry${didYouMean(s, knownScopes(registry))}`;
}

/** How long windows are, for the order of caps; a rolling window ranks with the calendar window of its length. */
const WINDOW_RANK: Record<SpendWindow, number> = { daily: 0, rolling_24h: 0, weekly: 1, rolling_7d: 1, monthly: 2, quarterly: 3, yearly: 4 };

function spendChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  // Block caps of one scope and population must not shrink as the window grows.
  const caps = new Map<string, { window: SpendWindow; micros: number; usd: string; path: Path }[]>();
  p.spendRules.forEach((rule, r) => {
    rule?.scopes.forEach((s, e) => {
      if (s !== undefined) scope(registry, s, ['spend', 'rules', r, 'matches', e, 'match', 'scope'], issues);
    });
    rule?.matches.forEach((entry, e) => {
      if (entry === undefined) return;
      const at: Path = ['spend', 'rules', r, 'matches', e];
      const m = entry.match;
      substituteChecks(registry, m.scope, entry.actions, at, issues);
      if (!entry.actions.some((a) => a.type === 'block')) return;
      const key = `${m.scope}\u0000${m.per ?? 'user'}\u0000${compilePopulation(m).key}`;
      const list = caps.get(key) ?? [];
      list.push({ window: m.window, micros: parseUsdMicros(m.at_or_above_usd) ?? 0, usd: m.at_or_above_usd, path: [...at, 'match', 'at_or_above_usd'] });
      caps.set(key, list);
    });
  });
  for (const list of caps.values()) {
    for (const a of list) {
      for (const b of list) {
        if (WINDOW_RANK[a.window] < WINDOW_RANK[b.window] && a.micros > b.micros) {
          issues.add(
            a.path,
            `the ${a.window} cap "${a.usd}" is above the ${b.window} cap "${b.usd}" for the same scope and population; caps must not shrink as the window grows`,
          );
        }
      }
    }
  }
}

/** A substitute action's models must exist and lie outside the entry's own scope (else it could never act). */
function substituteChecks(
  registry: RegistryView | undefined,
  scopeName: string,
  actions: readonly SpendEntry['actions'][number][],
  at: Path,
  issues: IssueList,
): void {
  if (registry === undefined) return;
  const inScope = modelsInScope(registry, scopeName);
  actions.forEach((a, k) => {
    if (a.type !== 'substitute') return;
    a.to.forEach((model, j) => {
      if (!Object.hasOwn(registry.models, model)) {
        issues.add([...at, 'actions', k, 'to', j], `unknown model "${model}"${didYouMean(model, Object.keys(registry.models))}`);
      } else if (inScope.includes(model)) {
        issues.add([...at, 'actions', k, 'to', j], `substitute "${model}" is inside the entry's own scope "${scopeName}"`);
      }
    });
  });
}

function overrideChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  const rules = new Map<string, SalvagedRule>();
  for (const r of p.spendRules) if (r?.id !== undefined && !rules.has(r.id)) rules.set(r.id, r);
  for (const [bu, unit] of Object.entries(p.businessUnits)) {
    for (const s of Object.keys(unit.models ?? {})) scope(registry, s, ['business_units', bu, 'models', s], issues);
    const superseded = new Set<string>();
    unit.spend_overrides?.forEach((o, i) => {
      const at: Path = ['business_units', bu, 'spend_overrides', i];
      scope(registry, o.scope, [...at, 'scope'], issues);
      const rule = rules.get(o.rule);
      if (rule === undefined) return issues.add([...at, 'rule'], `unknown spend rule "${o.rule}"${didYouMean(o.rule, rules.keys())}`);
      const target = overrideTarget(rule.matches, o);
      if ('error' in target) {
        const which = o.actions === undefined ? '' : ` with actions ${o.actions.map((a) => a.type).join('+')}`;
        return issues.add(
          at,
          target.error === 'none'
            ? `rule "${o.rule}" has no ${o.window} entry for scope "${o.scope}"${which} to override`
            : `rule "${o.rule}" has ${target.count} ${o.window} entries for scope "${o.scope}"; give actions to choose one`,
        );
      }
      const entry = rule.matches[target.index] as SpendEntry;
      // The override's actions replace the entry's: its substitutes are held to the same test.
      if (o.actions !== undefined) substituteChecks(registry, o.scope, o.actions, at, issues);
      const key = `${o.rule}#${target.index}`;
      if (superseded.has(key)) issues.add(at, `a second override of the same entry of rule "${o.rule}"`);
      superseded.add(key);
      const platform = parseUsdMicros(entry.match.at_or_above_usd) ?? 0;
      if ((parseUsdMicros(o.at_or_above_usd) ?? 0) <= platform) {
        issues.add([...at, 'at_or_above_usd'], `an override must raise the threshold above the platform's "${entry.match.at_or_above_usd}"`);
      }
    });
  }
}

/** A population no principal can be in: a list that names nobody, or users who are all exempt. */
export function nobody(m: PopulationSpec): string | null {
  for (const key of ['users', 'tiers', 'teams', 'bus', 'leaders', 'applications'] as const) {
    if (m[key] !== undefined && m[key].length === 0) return `"${key}: []" matches nobody`;
  }
  if (m.users !== undefined && m.exempt_users !== undefined && m.users.every((u) => m.exempt_users!.includes(u))) {
    return 'every user it names is also in exempt_users: it matches nobody';
  }
  return null;
}

function dlpChecks(p: SalvagedPolicy, dlp: DlpValidation, issues: IssueList): void {
  duplicateIds(p.ids.dlpCustom, ['dlp', 'custom'], 'custom DLP pattern', issues);
  const builtin = new Set<string>(BUILTIN_DLP_ENTITIES);
  const known = new Set<string>([...builtin, ...(dlp.entities ?? [])]);
  p.dlpCustom.forEach((c, i) => {
    if (c === undefined) return;
    if (builtin.has(c.id)) issues.add(['dlp', 'custom', i, 'id'], `"${c.id}" is a built-in entity type; give the pattern its own id`);
    known.add(c.id);
    const compiled = dlp.compile?.(c);
    if (compiled !== undefined && !compiled.ok) issues.add(['dlp', 'custom', i, compiled.path], compiled.message);
  });
  for (const id of p.ids.dlpCustom) if (id !== undefined) known.add(id);
  const names = `the built-in ${[...builtin].join(', ')}${known.size > builtin.size ? `, or ${[...known].filter((k) => !builtin.has(k)).join(', ')}` : ''}`;
  const entity = (e: string, path: readonly PropertyKey[]) => {
    if (e !== '*' && !known.has(e)) issues.add(path, `unknown DLP entity "${e}": no detector finds it (use ${names}, a dlp.custom id, or *)`);
  };
  for (const e of Object.keys(p.dlpDefault)) entity(e, ['dlp', 'default', e]);
  p.dlpUseCases.forEach((u, i) => {
    if (u === undefined) return;
    for (const e of Object.keys(u.actions)) entity(e, ['dlp', 'use_cases', i, 'actions', e]);
    const why = nobody(u.match ?? {});
    if (why !== null) issues.add(['dlp', 'use_cases', i, 'match'], why);
  });
}

function promptChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  const seen = new Map<string, number>();
  const formats = new Set<string>(PROMPT_FORMATS);
  p.prompts.forEach((prompt, i) => {
    if (prompt === undefined) return;
    const key = `${prompt.id}@${prompt.version}`;
    const first = seen.get(key);
    if (first !== undefined) issues.add(['prompts', i, 'version'], `duplicate prompt "${key}" (first at index ${first})`);
    else seen.set(key, i);
    const m = prompt.match ?? {};
    if (m.scope !== undefined) scope(registry, m.scope, ['prompts', i, 'match', 'scope'], issues);
    m.formats?.forEach((f, j) => {
      if (!formats.has(f)) issues.add(['prompts', i, 'match', 'formats', j], `unknown wire format "${f}" (one of ${[...formats].join(', ')})`);
    });
    if (m.formats !== undefined && m.formats.length === 0) issues.add(['prompts', i, 'match', 'formats'], '"formats: []" matches no request');
    const why = nobody(m);
    if (why !== null) issues.add(['prompts', i, 'match'], why);
  });
}

/** Region rules: unique ids, known scopes, and regions some deployment is in (else the rule would refuse everything it covers). */
function regionChecks(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList): void {
  duplicateIds(p.ids.regions, ['regions'], 'region rule', issues);
  const known = registry === undefined ? undefined : deploymentRegions(registry);
  p.regions.forEach((r, i) => {
    if (r === undefined) return;
    if (r.match?.scope !== undefined) scope(registry, r.match.scope, ['regions', i, 'match', 'scope'], issues);
    const why = nobody(r.match ?? {});
    if (why !== null) issues.add(['regions', i, 'match'], `${why}: the rule would apply to no caller`);
    if (known === undefined) return;
    r.allow.forEach((region, j) => {
      if (!known.has(region)) {
        const where = known.size === 0 ? 'no deployment in the registry names a region' : `the registry's deployments are in ${[...known].join(', ')}`;
        issues.add(['regions', i, 'allow', j], `unknown region "${region}": ${where}${didYouMean(region, known)}`);
      }
    });
  });
}

/** Runs every cross-entry check, adding to `issues`. */
export function checkPolicy(p: SalvagedPolicy, registry: RegistryView | undefined, issues: IssueList, dlp: DlpValidation = {}): void {
  dlpChecks(p, dlp, issues);
  promptChecks(p, registry, issues);
  duplicateIds(p.ids.spendRules, ['spend', 'rules'], 'spend rule', issues);
  duplicateIds(p.ids.rateLimits, ['rate_limits'], 'rate limit', issues);
  duplicateIds(p.ids.pilots, ['pilots'], 'pilot', issues);
  duplicateIds(p.ids.toolLists, ['tools', 'allow_lists'], 'tool allow-list', issues);
  duplicateIds(p.ids.dlpUseCases, ['dlp', 'use_cases'], 'DLP use case', issues);
  for (const s of Object.keys(p.access)) scope(registry, s, ['access', 'models', s], issues);
  for (const s of Object.keys(p.limitedAccess)) scope(registry, s, ['limited_access', s], issues);
  p.pilots.forEach((pilot, i) => {
    if (pilot === undefined) return;
    pilot.models.forEach((s, j) => scope(registry, s, ['pilots', i, 'models', j], issues));
    if (
      pilot.starts !== undefined &&
      pilot.ends !== undefined &&
      policyInstant(pilot.ends, p.timezone, 'end') <= policyInstant(pilot.starts, p.timezone, 'start')
    ) {
      issues.add(['pilots', i, 'ends'], `the pilot ends ("${pilot.ends}") before it starts ("${pilot.starts}")`);
    }
  });
  p.rateLimits.forEach((r, i) => {
    if (r?.match?.scope !== undefined) scope(registry, r.match.scope, ['rate_limits', i, 'match', 'scope'], issues);
  });
  p.toolLists.forEach((t, i) => {
    if (t?.match?.scope !== undefined) scope(registry, t.match.scope, ['tools', 'allow_lists', i, 'match', 'scope'], issues);
    const why = t === undefined ? null : nobody(t.match ?? {});
    if (why !== null) issues.add(['tools', 'allow_lists', i, 'match'], `${why}: the list would apply to no caller`);
  });
  spendChecks(p, registry, issues);
  overrideChecks(p, registry, issues);
  regionChecks(p, registry, issues);
}
