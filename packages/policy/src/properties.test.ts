/** Property tests: the invariants the gateway relies on, over generated policies and counters. */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { registry } from './__tests__/fixtures.js';
import {
  decideAccess,
  decideRate,
  decideSpend,
  decideSubstitution,
  decideTools,
  formatMicros,
  windowKeys,
  type AccessRule,
  type Pilot,
  type Policy,
  type Principal,
  type SpendCounters,
  type SpendRule,
} from './index.js';

const MODELS = Object.keys(registry.models);
const SCOPES = [...MODELS, 'all', 'frontier', 'claude', 'openai', 'google', 'opus', 'haiku'];
const WINDOWS = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'erin'];
const LEADERS = ['carol', 'bob-mgr', 'ceo', 'vp'];
const BUS = ['payments', 'research', 'interns'];
const TIERS = ['normal', 'vip', 'pilot'];
const T0 = Date.UTC(2026, 10, 1);
const T1 = Date.UTC(2026, 11, 31);

const principal: fc.Arbitrary<Principal> = fc.record({
  kind: fc.constantFrom('user' as const, 'user' as const, 'application' as const),
  id: fc.constantFrom(...PEOPLE),
  tier: fc.constantFrom(...TIERS),
  bu: fc.constantFrom(...BUS),
  leaders: fc.subarray(LEADERS),
  application: fc.constantFrom(null, 'helpdesk'),
});

const some = <T>(xs: readonly T[]) => fc.option(fc.subarray([...xs], { minLength: 1 }), { nil: undefined });
const population = fc.record(
  { users: some(PEOPLE), tiers: some(TIERS), bus: some(BUS), leaders: some(LEADERS), exempt_users: some(PEOPLE) },
  { requiredKeys: [] },
);
const strip = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

const action = fc.oneof(
  fc.constant({ type: 'block' as const }),
  fc.integer({ min: 1, max: 48 }).map((hours) => ({ type: 'pause' as const, hours })),
  fc.constant({ type: 'notify' as const, to: ['user'] as string[] }),
  fc.constant({ type: 'no_promote' as const }),
);

const spendRule = (id: string): fc.Arbitrary<SpendRule> =>
  fc
    .record({
      weight: fc.integer({ min: 0, max: 100 }),
      shadow: fc.boolean(),
      matches: fc.array(
        fc.record({
          scope: fc.constantFrom(...SCOPES),
          window: fc.constantFrom(...WINDOWS),
          usd: fc.integer({ min: 1, max: 300_000_000 }),
          pop: population,
          actions: fc.array(action, { minLength: 1, maxLength: 3 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    })
    .map((r) => ({
      id,
      weight: r.weight,
      ...(r.shadow ? { enforcement: 'shadow' as const } : {}),
      matches: r.matches.map((m) => ({
        match: { ...strip(m.pop), scope: m.scope, window: m.window, at_or_above_usd: formatMicros(m.usd) },
        actions: m.actions,
      })),
    }));

const spendPolicy = fc
  .array(fc.nat(), { maxLength: 6 })
  .chain((ns) => fc.tuple(...ns.map((_, i) => spendRule(`r${i}`))).map((rules): Policy => ({ timezone: 'America/New_York', spend: { rules } })));

const instant = fc.integer({ min: T0, max: T1 });

/** Counters for every window key around `now`, and a pointwise-larger copy. */
const countersPair = fc.tuple(
  fc.array(fc.tuple(fc.constantFrom(...MODELS), fc.constantFrom(0, 1, 2, 3, 4), fc.integer({ min: 0, max: 200_000_000 }))),
  fc.array(fc.tuple(fc.constantFrom(...MODELS), fc.constantFrom(0, 1, 2, 3, 4), fc.integer({ min: 0, max: 200_000_000 }))),
);

function build(now: number, cells: readonly (readonly [string, number, number])[], base?: SpendCounters): SpendCounters {
  const keys = Object.values(windowKeys(now, 'America/New_York'));
  const out: Record<string, Record<string, number>> = {};
  for (const [k, byModel] of Object.entries(base ?? {})) out[k] = { ...byModel };
  for (const [model, w, micros] of cells) {
    const key = keys[w] as string;
    const row = (out[key] ??= {});
    row[model] = (row[model] ?? 0) + micros;
  }
  return out;
}

describe('spend properties', () => {
  it('more spend never unblocks within a window', () => {
    fc.assert(
      fc.property(spendPolicy, principal, fc.constantFrom(...MODELS), instant, countersPair, (policy, p, model, now, [a, extra]) => {
        const less = build(now, a);
        const more = build(now, extra, less);
        const d1 = decideSpend({ policy, registry, principal: p, model, counters: less, now });
        const d2 = decideSpend({ policy, registry, principal: p, model, counters: more, now });
        if (!d1.allowed && d2.allowed) return false;
        // Every rule that blocked (or would) still does.
        return d1.reasons.every((r) => d2.reasons.includes(r)) && d1.wouldBlock.every((r) => d2.wouldBlock.includes(r));
      }),
      { numRuns: 300 },
    );
  });

  it('shadow never blocks', () => {
    fc.assert(
      fc.property(spendPolicy, principal, fc.constantFrom(...MODELS), instant, countersPair, (policy, p, model, now, [a]) => {
        const d = decideSpend({ policy, registry, principal: p, model, counters: build(now, a), now, enforcement: 'shadow' });
        return d.allowed && d.reasons.length === 0 && d.hardCaps.length === 0 && d.pauses.every((x) => x.key.startsWith('shadow:'));
      }),
      { numRuns: 200 },
    );
  });

  it('adding a rule never unblocks', () => {
    fc.assert(
      fc.property(spendPolicy, spendRule('extra'), principal, fc.constantFrom(...MODELS), instant, countersPair, (policy, extra, p, model, now, [a]) => {
        const counters = build(now, a);
        const wider: Policy = { ...policy, spend: { rules: [...(policy.spend?.rules ?? []), extra] } };
        const before = decideSpend({ policy, registry, principal: p, model, counters, now });
        const after = decideSpend({ policy: wider, registry, principal: p, model, counters, now });
        return before.allowed || !after.allowed;
      }),
      { numRuns: 200 },
    );
  });
});

const accessRule: fc.Arbitrary<AccessRule> = fc
  .record(
    {
      deny_leaders: some(LEADERS),
      allow_leaders: some(LEADERS),
      exempt_users: some(PEOPLE),
      bus: fc.option(fc.tuple(fc.boolean(), fc.subarray(BUS, { minLength: 1 })), { nil: undefined }),
    },
    { requiredKeys: [] },
  )
  .map(({ bus, ...rest }) => strip({ ...rest, ...(bus === undefined ? {} : bus[0] ? { allow_bus: bus[1] } : { block_bus: bus[1] }) }));

const pilot = (id: string): fc.Arbitrary<Pilot> =>
  fc
    .record({
      models: fc.subarray(SCOPES, { minLength: 1, maxLength: 3 }),
      cohort: fc.record({ users: some(PEOPLE), tiers: some(TIERS), bus: some(BUS) }, { requiredKeys: [] }).map(strip),
      enforcement: fc.constantFrom('off' as const, 'shadow' as const, 'authoritative' as const),
      starts: fc.option(fc.constantFrom('2026-11-10', '2026-12-01'), { nil: undefined }),
    })
    .map((p) => strip({ id, ...p }));

/** One narrowing addition: an access entry on a fresh scope, a BU toggle off, a roster, or a pilot. */
type Narrowing =
  | { kind: 'access'; scope: string; rule: AccessRule }
  | { kind: 'toggle'; bu: string; scope: string }
  | { kind: 'roster'; scope: string; members: string[] }
  | { kind: 'pilot'; pilot: Pilot };

const narrowing: fc.Arbitrary<Narrowing> = fc.oneof(
  fc.record({ kind: fc.constant('access' as const), scope: fc.constantFrom(...SCOPES), rule: accessRule }),
  fc.record({ kind: fc.constant('toggle' as const), bu: fc.constantFrom(...BUS), scope: fc.constantFrom(...SCOPES) }),
  fc.record({ kind: fc.constant('roster' as const), scope: fc.constantFrom(...SCOPES), members: fc.subarray(PEOPLE) }),
  fc.record({ kind: fc.constant('pilot' as const), pilot: pilot('extra-pilot') }),
);

function apply(base: Policy, n: Narrowing): Policy {
  switch (n.kind) {
    case 'access': {
      const models = base.access?.models ?? {};
      if (Object.hasOwn(models, n.scope)) return base; // keys are unique: only add fresh scopes
      return { ...base, access: { models: { ...models, [n.scope]: n.rule } } };
    }
    case 'toggle': {
      const units = base.business_units ?? {};
      const unit = units[n.bu] ?? {};
      if (Object.hasOwn(unit.models ?? {}, n.scope)) return base;
      return { ...base, business_units: { ...units, [n.bu]: { ...unit, models: { ...unit.models, [n.scope]: 'off' } } } };
    }
    case 'roster': {
      const rosters = base.limited_access ?? {};
      if (Object.hasOwn(rosters, n.scope)) return base;
      return { ...base, limited_access: { ...rosters, [n.scope]: { members: n.members } } };
    }
    case 'pilot':
      return { ...base, pilots: [...(base.pilots ?? []), n.pilot] };
  }
}

const accessPolicy: fc.Arbitrary<Policy> = fc
  .array(narrowing, { maxLength: 5 })
  .map((ns) => ns.reduce<Policy>((p, n) => apply(p, n), { timezone: 'Europe/London' }));

describe('access properties', () => {
  it('adding a narrowing rule never widens access', () => {
    fc.assert(
      fc.property(accessPolicy, narrowing, principal, fc.constantFrom(...MODELS), instant, (base, n, p, model, now) => {
        const narrower = apply(base, n);
        const after = decideAccess({ policy: narrower, registry, principal: p, model, now }).allowed;
        return !after || decideAccess({ policy: base, registry, principal: p, model, now }).allowed;
      }),
      { numRuns: 400 },
    );
  });

  it('shadow never denies a known model', () => {
    fc.assert(
      fc.property(
        accessPolicy,
        principal,
        fc.constantFrom(...MODELS),
        instant,
        (policy, p, model, now) => decideAccess({ policy, registry, principal: p, model, now, enforcement: 'shadow' }).allowed,
      ),
      { numRuns: 200 },
    );
  });

  it('a substitution never leaves the allow-list', () => {
    const sub = fc.record({
      scope: fc.constantFrom('frontier', 'claude-opus', 'gpt-5'),
      to: fc.subarray(['claude-haiku', 'gpt-5-mini', 'gemini-flash'], { minLength: 1 }),
    });
    fc.assert(
      fc.property(accessPolicy, sub, principal, instant, (base, s, p, now) => {
        const policy: Policy = {
          ...base,
          spend: {
            rules: [
              { id: 'tier', matches: [{ match: { scope: s.scope, window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'substitute', to: s.to }] }] },
            ],
          },
        };
        const model = s.scope === 'frontier' ? 'claude-sonnet' : s.scope;
        const counters = { [windowKeys(now, 'Europe/London').monthly]: { [model]: 5_000_000 } };
        const spend = decideSpend({ policy, registry, principal: p, model, counters, now });
        const d = decideSubstitution({ policy, registry, principal: p, model, spend, now });
        if (d.type !== 'substitute') return d.type === 'refuse';
        return s.to.includes(d.to) && decideAccess({ policy, registry, principal: p, model: d.to, now }).allowed;
      }),
      { numRuns: 300 },
    );
  });
});

describe('rate and tool properties', () => {
  const rate = fc
    .array(fc.record({ pop: population, rpm: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }), tpm: fc.integer({ min: 1, max: 1e6 }) }), {
      maxLength: 6,
    })
    .map((rs): Policy => ({ rate_limits: rs.map((r, i) => strip({ id: `r${i}`, match: strip(r.pop), rpm: r.rpm, tpm: r.tpm })) }));

  it('the applied limit is the minimum over matching rules, and shadow applies none', () => {
    fc.assert(
      fc.property(rate, principal, (policy, p) => {
        const d = decideRate({ policy, registry, principal: p });
        const matching = (policy.rate_limits ?? []).filter((r) => d.matched.includes(r.id));
        const minRpm = Math.min(...matching.map((r) => r.rpm ?? Infinity));
        const rpm = d.constraints.find((c) => c.kind === 'requests')?.limit ?? Infinity;
        return rpm === minRpm && decideRate({ policy, registry, principal: p, enforcement: 'shadow' }).constraints.length === 0;
      }),
      { numRuns: 200 },
    );
  });

  it('adding an allow-list never allows more tools', () => {
    const list = (id: string) =>
      fc.record({ pop: population, allow: fc.subarray(['a', 'b', 'c', 'x*', '*']) }).map((l) => ({ id, match: strip(l.pop), allow: l.allow }));
    fc.assert(
      fc.property(fc.array(list('l'), { maxLength: 3 }), list('extra'), principal, fc.subarray(['a', 'b', 'c', 'xy', 'z']), (lists, extra, p, tools) => {
        const before = decideTools({ policy: { tools: { allow_lists: lists } }, registry, principal: p, model: 'gpt-5', tools });
        const after = decideTools({ policy: { tools: { allow_lists: [...lists, extra] } }, registry, principal: p, model: 'gpt-5', tools });
        return after.tools.every((t, i) => !t.allowed || before.tools[i]?.allowed === true);
      }),
      { numRuns: 200 },
    );
  });
});
