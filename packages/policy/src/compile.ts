/**
 * A policy bound to a registry view, indexed for the hot path: per model, the spend entries
 * and rate rules that can apply, in precedence order; scopes as model-index lists. Compiled
 * once per (policy, registry) pair and memoised, so treat both as immutable.
 */
import { compileAccess, type CompiledAccess } from './compile-access.js';
import { ROLLING, SPEND_WINDOWS, isRollingWindow, type SpendWindow } from './calendar.js';
import { parseUsdMicros } from './money.js';
import { overrideTarget } from './overrides.js';
import type { Enforcement, Policy, SpendAction } from './policy-types.js';
import { SPEND_PERS, keySegment, type SpendPer } from './keys.js';
import { compilePopulation, type Population } from './principal.js';
import { ALL_TAG, type RegistryView } from './registry-view.js';

export interface CompiledScope {
  name: string;
  /** Model indices the scope covers. */
  models: Int32Array;
  /** Model ids the scope covers (frozen; shared by every hard cap of the scope). */
  ids: readonly string[];
}

/**
 * The counters of one (per, window) pair some spend entry uses: the window keys of the window
 * (one for a calendar window, its buckets for a rolling one) × the models the entries' scopes
 * cover. Groups are laid out one after another in a counter vector.
 */
export interface CompiledGroup {
  per: SpendPer;
  /** Index in `SPEND_PERS`. */
  perIdx: number;
  window: SpendWindow;
  /** Index in `SPEND_WINDOWS`. */
  windowIdx: number;
  /** Model indices the group reads, in registry order. */
  models: Int32Array;
  ids: readonly string[];
  /** Window keys per decision: 1, or a rolling window's bucket count. */
  windowKeys: number;
  /** Where the group starts in a counter vector: `offset + k * ids.length + i` is (window key k, model i). */
  offset: number;
}

export interface CompiledSpendEntry {
  ruleId: string;
  entryIndex: number;
  /** Rule-level shadow. */
  shadow: boolean;
  scope: CompiledScope;
  scopeIdx: number;
  window: SpendWindow;
  windowIdx: number;
  rolling: boolean;
  per: SpendPer;
  perIdx: number;
  /** The entry's (per, window) group, and the positions of its scope's models in the group. */
  groupIdx: number;
  groupSlots: Int32Array;
  thresholdMicros: number;
  actions: readonly SpendAction[];
  pop: Population;
  /** `${ruleId}#${entryIndex}`: what a BU override names. */
  entryKey: string;
  /** `spend_limit:<rule id>` and `paused:<rule id>`, built once. */
  limitReason: string;
  pausedReason: string;
  /** `spend:<rule id>:<scope>:`, the hard-cap key before `<principal key>:<window key>`. */
  capPrefix: string;
  /** The rule id, the entry key and the scope as store-key segments (escaped). */
  markerRule: string;
  markerEntry: string;
  markerScope: string;
  /** Index of the entry's population among the policy's distinct spend populations. */
  popIdx: number;
}

export interface CompiledOverride {
  thresholdMicros: number;
  actions: readonly SpendAction[];
}

export interface CompiledRate {
  id: string;
  /** The id as a store-key segment (escaped). */
  keyId: string;
  pop: Population;
  scope: string | null;
  per: SpendPer;
  perIdx: number;
  /** Rules of one group count the same requests of the same pool: one number per `(per, scope)`. */
  group: number;
  rpm: number | undefined;
  tpm: number | undefined;
  concurrent: number | undefined;
  unlimited: boolean;
  onStoreError: 'open' | 'closed';
  shadow: boolean;
  /** `rate_limit:<id>` and `concurrency_limit:<id>`, built once. */
  rateReason: string;
  concurrencyReason: string;
}

export interface CompiledToolList {
  id: string;
  pop: Population;
  /** Model indices in scope, or null for every model. */
  models: ReadonlySet<number> | null;
  exact: ReadonlySet<string>;
  prefixes: readonly string[];
  any: boolean;
}

export interface CompiledPolicy {
  readonly policy: Policy;
  readonly registry: RegistryView;
  readonly timezone: string;
  readonly enforcement: Enforcement;
  readonly modelIds: readonly string[];
  readonly modelIndex: ReadonlyMap<string, number>;
  readonly scopes: readonly CompiledScope[];
  /** Every spend entry, in precedence order. */
  readonly spendEntries: readonly CompiledSpendEntry[];
  /** Per model index: spend entries whose scope covers the model, in precedence order. */
  readonly spendByModel: readonly (readonly CompiledSpendEntry[])[];
  /** BU → entry key → override. */
  readonly overrides: ReadonlyMap<string, ReadonlyMap<string, CompiledOverride>>;
  /** Per model index (plus one trailing list for "no model"): rate rules that can apply. */
  readonly rateByModel: readonly (readonly CompiledRate[])[];
  /** Some rate limit sets `concurrent`. */
  readonly concurrent: boolean;
  readonly access: CompiledAccess;
  readonly tools: readonly CompiledToolList[];
  /** How many distinct populations spend entries use. */
  readonly populations: number;
  /** The (per, window) pairs spend entries use, in `SPEND_PERS` then `SPEND_WINDOWS` order. */
  readonly groups: readonly CompiledGroup[];
  /** Counter vector length: the sum of the groups' window keys × models. */
  readonly counterSize: number;
  /** True when some spend entry uses a rolling window (counter vectors then go stale every hour). */
  readonly rolling: boolean;
}

function micros(usd: string): number {
  const m = parseUsdMicros(usd);
  if (m === undefined) throw new TypeError(`invalid USD amount "${usd}": parse the policy with parsePolicy first`);
  return m;
}

export function compilePolicy(policy: Policy, registry: RegistryView): CompiledPolicy {
  const timezone = policy.timezone ?? 'UTC';
  const modelIds = Object.keys(registry.models);
  const modelIndex = new Map(modelIds.map((id, i) => [id, i] as const));
  const tags = modelIds.map((id) => new Set([ALL_TAG, ...(registry.models[id]?.tags ?? [])]));

  const scopes: CompiledScope[] = [];
  const scopeIndex = new Map<string, number>();
  const scopeOf = (name: string): number => {
    let i = scopeIndex.get(name);
    if (i === undefined) {
      const exact = modelIndex.get(name);
      const idx = exact !== undefined ? [exact] : modelIds.flatMap((_, m) => (tags[m]?.has(name) ? [m] : []));
      i = scopes.length;
      scopes.push({ name, models: Int32Array.from(idx), ids: Object.freeze(idx.map((m) => modelIds[m] as string)) });
      scopeIndex.set(name, i);
    }
    return i;
  };
  const scopeModels = (name: string): readonly number[] => Array.from(scopes[scopeOf(name)]?.models ?? []);

  // Spend entries in precedence order: weight (higher first), then file order.
  const rules = (policy.spend?.rules ?? []).map((rule, order) => ({ rule, order }));
  rules.sort((a, b) => (b.rule.weight ?? 0) - (a.rule.weight ?? 0) || a.order - b.order);
  const entries: CompiledSpendEntry[] = [];
  const byKey = new Map<string, CompiledSpendEntry>();
  const popIndex = new Map<string, number>();
  for (const { rule } of rules) {
    rule.matches.forEach((entry, entryIndex) => {
      const scopeIdx = scopeOf(entry.match.scope);
      const per = entry.match.per ?? 'user';
      const c: CompiledSpendEntry = {
        ruleId: rule.id,
        entryIndex,
        shadow: rule.enforcement === 'shadow',
        scope: scopes[scopeIdx] as CompiledScope,
        scopeIdx,
        window: entry.match.window,
        windowIdx: SPEND_WINDOWS.indexOf(entry.match.window),
        rolling: isRollingWindow(entry.match.window),
        per,
        perIdx: SPEND_PERS.indexOf(per),
        groupIdx: 0,
        groupSlots: new Int32Array(0),
        thresholdMicros: micros(entry.match.at_or_above_usd),
        actions: entry.actions,
        pop: compilePopulation(entry.match),
        entryKey: `${rule.id}#${entryIndex}`,
        limitReason: `spend_limit:${rule.id}`,
        pausedReason: `paused:${rule.id}`,
        capPrefix: `spend:${keySegment(rule.id)}:${keySegment(entry.match.scope)}:`,
        markerRule: keySegment(rule.id),
        markerEntry: `${keySegment(rule.id)}#${entryIndex}`,
        markerScope: keySegment(entry.match.scope),
        popIdx: 0,
      };
      let popIdx = popIndex.get(c.pop.key);
      if (popIdx === undefined) popIndex.set(c.pop.key, (popIdx = popIndex.size));
      c.popIdx = popIdx;
      entries.push(c);
      if (!byKey.has(c.entryKey)) byKey.set(c.entryKey, c);
    });
  }
  const spendByModel: CompiledSpendEntry[][] = modelIds.map(() => []);
  for (const e of entries) for (const m of e.scope.models) spendByModel[m]?.push(e);
  const groups = compileGroups(entries, modelIds);

  const overrides = new Map<string, Map<string, CompiledOverride>>();
  for (const [bu, unit] of Object.entries(policy.business_units ?? {})) {
    const map = new Map<string, CompiledOverride>();
    for (const o of unit.spend_overrides ?? []) {
      const rule = (policy.spend?.rules ?? []).find((r) => r.id === o.rule);
      const target = rule === undefined ? undefined : overrideTarget(rule.matches, o);
      if (target === undefined || 'error' in target) continue; // parsePolicy reports these
      const e = byKey.get(`${o.rule}#${target.index}`);
      if (e !== undefined && !map.has(e.entryKey)) {
        map.set(e.entryKey, { thresholdMicros: micros(o.at_or_above_usd), actions: o.actions ?? e.actions });
      }
    }
    if (map.size > 0) overrides.set(bu, map);
  }

  const rateGroups = new Map<string, number>();
  const rateGroup = (key: string): number => {
    let g = rateGroups.get(key);
    if (g === undefined) rateGroups.set(key, (g = rateGroups.size));
    return g;
  };
  const rates: CompiledRate[] = (policy.rate_limits ?? []).map((r) => ({
    id: r.id,
    keyId: keySegment(r.id),
    pop: compilePopulation(r.match ?? {}),
    scope: r.match?.scope ?? null,
    per: r.per ?? 'user',
    perIdx: SPEND_PERS.indexOf(r.per ?? 'user'),
    group: rateGroup(JSON.stringify([r.per ?? 'user', r.match?.scope ?? null])),
    rpm: r.rpm,
    tpm: r.tpm,
    concurrent: r.concurrent,
    unlimited: r.unlimited === true,
    onStoreError: r.on_store_error ?? 'closed',
    shadow: r.enforcement === 'shadow',
    rateReason: `rate_limit:${r.id}`,
    concurrencyReason: `concurrency_limit:${r.id}`,
  }));
  const rateByModel: CompiledRate[][] = modelIds.map((_, m) => rates.filter((r) => r.scope === null || scopeModels(r.scope).includes(m)));
  rateByModel.push(rates.filter((r) => r.scope === null));

  const tools: CompiledToolList[] = (policy.tools?.allow_lists ?? []).map((t) => {
    const patterns = t.allow;
    return {
      id: t.id,
      pop: compilePopulation(t.match ?? {}),
      models: t.match?.scope === undefined ? null : new Set(scopeModels(t.match.scope)),
      exact: new Set(patterns.filter((p) => !p.endsWith('*'))),
      prefixes: patterns.filter((p) => p.endsWith('*') && p !== '*').map((p) => p.slice(0, -1)),
      any: patterns.includes('*'),
    };
  });

  return {
    policy,
    registry,
    timezone,
    enforcement: policy.enforcement ?? 'enforce',
    modelIds,
    modelIndex,
    scopes,
    spendEntries: entries,
    spendByModel,
    overrides,
    rateByModel,
    concurrent: rates.some((r) => r.concurrent !== undefined),
    tools,
    access: compileAccess(policy, timezone, modelIds, scopeModels),
    populations: popIndex.size,
    groups,
    counterSize: groups.reduce((n, g) => n + g.windowKeys * g.ids.length, 0),
    rolling: groups.some((g) => isRollingWindow(g.window)),
  };
}

/** Group entries by (per, window); each group reads the models its entries' scopes cover. */
function compileGroups(entries: readonly CompiledSpendEntry[], modelIds: readonly string[]): CompiledGroup[] {
  const byPair = new Map<number, CompiledSpendEntry[]>();
  for (const e of entries) {
    const pair = e.perIdx * SPEND_WINDOWS.length + e.windowIdx;
    const list = byPair.get(pair);
    if (list === undefined) byPair.set(pair, [e]);
    else list.push(e);
  }
  const groups: CompiledGroup[] = [];
  let offset = 0;
  for (const pair of [...byPair.keys()].sort((a, b) => a - b)) {
    const members = byPair.get(pair) as CompiledSpendEntry[];
    const first = members[0] as CompiledSpendEntry;
    const covered = new Set<number>();
    for (const e of members) for (const m of e.scope.models) covered.add(m);
    const models = Int32Array.from([...covered].sort((a, b) => a - b));
    const position = new Map(Array.from(models, (m, i) => [m, i] as const));
    const windowKeys = first.rolling ? ROLLING[first.window as 'rolling_24h' | 'rolling_7d'].buckets : 1;
    const g: CompiledGroup = {
      per: first.per,
      perIdx: first.perIdx,
      window: first.window,
      windowIdx: first.windowIdx,
      models,
      ids: Object.freeze(Array.from(models, (m) => modelIds[m] as string)),
      windowKeys,
      offset,
    };
    for (const e of members) {
      e.groupIdx = groups.length;
      e.groupSlots = Int32Array.from(e.scope.models, (m) => position.get(m) as number);
    }
    offset += windowKeys * models.length;
    groups.push(g);
  }
  return groups;
}

const cache = new WeakMap<Policy, WeakMap<RegistryView, CompiledPolicy>>();

/** The compiled form of (policy, registry), memoised by object identity. */
export function compiled(policy: Policy, registry: RegistryView): CompiledPolicy {
  let inner = cache.get(policy);
  if (inner === undefined) {
    inner = new WeakMap();
    cache.set(policy, inner);
  }
  let c = inner.get(registry);
  if (c === undefined) {
    c = compilePolicy(policy, registry);
    inner.set(registry, c);
  }
  return c;
}
