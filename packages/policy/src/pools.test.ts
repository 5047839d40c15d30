import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOW, policy, registry, usd, user } from './__tests__/fixtures.js';
import {
  budgetStatus,
  counterLayout,
  decideRate,
  decideSpend,
  parsePolicy,
  policyWarnings,
  poolKey,
  poolKeys,
  principalKey,
  rollingBounds,
  whatIf,
  type CounterValues,
  type PoolCounters,
  type Principal,
  type SpendCounters,
} from './index.js';

const ann = user('ann', { team: 'search' });
const ben = user('ben', { team: 'search' });
const cal = user('cal', { team: 'ads', bu: 'payments' });
const noTeam = user('nat'); // payments, no team
const outsider = user('olly', { bu: 'research', team: 'search' });
const app: Principal = { kind: 'application', id: 'crm', application: 'crm', bu: 'payments' };
const viaApp = user('vic', { application: 'crm' });

const budgets = policy({
  spend: {
    rules: [
      {
        id: 'payments-frontier',
        weight: 50,
        matches: [
          {
            match: { bus: ['payments'], per: 'bu', scope: 'frontier', window: 'monthly', at_or_above_usd: '5000' },
            actions: [{ type: 'block', message: 'The payments frontier budget is spent; ask #finops.' }],
          },
          {
            match: { bus: ['payments'], per: 'bu', scope: 'frontier', window: 'monthly', at_or_above_usd: '4000' },
            actions: [{ type: 'notify', to: ['finops'] }],
          },
        ],
      },
      { id: 'per-person', weight: 40, matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '200' }, actions: [{ type: 'block' }] }] },
      {
        id: 'team-daily',
        weight: 30,
        matches: [{ match: { per: 'team', scope: 'all', window: 'daily', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }],
      },
      {
        id: 'crm',
        weight: 20,
        matches: [{ match: { per: 'application', scope: 'all', window: 'monthly', at_or_above_usd: '300' }, actions: [{ type: 'block' }] }],
      },
      { id: 'org', weight: 10, matches: [{ match: { per: 'org', scope: 'all', window: 'yearly', at_or_above_usd: '100000' }, actions: [{ type: 'block' }] }] },
      {
        id: 'org-shadow',
        enforcement: 'shadow',
        matches: [{ match: { per: 'org', scope: 'all', window: 'daily', at_or_above_usd: '10' }, actions: [{ type: 'block' }] }],
      },
    ],
  },
});

const $ = (byWindow: Record<string, Record<string, string>>): SpendCounters =>
  Object.fromEntries(Object.entries(byWindow).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([m, a]) => [m, usd(a)]))]));

const decide = (principal: Principal, model: string, counters: SpendCounters, pools: PoolCounters = {}, extra = {}) =>
  decideSpend({ policy: budgets, registry, principal, model, counters, pools, now: NOW, ...extra });

describe('pools: whose counter a threshold is compared with', () => {
  it('keys pools apart from principals and from each other, escaped', () => {
    expect(poolKeys(cal)).toEqual(['user:cal', 'team:ads', 'bu:payments', null, null, null, 'org']);
    expect(poolKey(app, 'application')).toBe('app:crm');
    expect(principalKey(app)).toBe('application:crm'); // the application's own counters are not its pool's
    expect(poolKey(viaApp, 'application')).toBe('app:crm');
    expect(poolKey(user('x', { team: 'a:b{c}' }), 'team')).toBe('team:a%3Ab%7Bc%7D');
    expect(poolKey(user('x', { team: '' }), 'team')).toBeNull();
  });

  it('a BU cap is compared with the BU counter; each person still has their own', () => {
    const d = decide(ann, 'gpt-5', $({ '2026-11': { 'gpt-5': '150' } }), { bu: $({ '2026-11': { 'claude-opus': '4900' } }) });
    expect(d.allowed).toBe(true);
    expect(d.hardCaps.map((c) => [c.key, c.per, c.pool, c.principalKey, c.usedMicros, c.limitMicros])).toEqual([
      ['spend:payments-frontier:frontier:bu:payments:2026-11', 'bu', 'payments', 'bu:payments', usd('4900'), usd('5000')],
      ['spend:per-person:frontier:user:ann:2026-11', 'user', 'ann', 'user:ann', usd('150'), usd('200')],
      ['spend:team-daily:all:team:search:2026-11-29', 'team', 'search', 'team:search', 0, usd('100')],
      ['spend:org:all:org:2026', 'org', 'org', 'org', 0, usd('100000')],
    ]);
    // The tightest cap is the BU's: $50 left of the person's $200 but only $100 of the BU's.
    expect(d.governing).toMatchObject({ ruleId: 'per-person', remainingMicros: usd('50') });
    const tight = decide(ann, 'gpt-5', $({}), { bu: $({ '2026-11': { 'claude-opus': '4990' } }) });
    expect(tight.governing).toMatchObject({ ruleId: 'payments-frontier', per: 'bu', pool: 'payments', remainingMicros: usd('10') });
  });

  it('a spent BU budget refuses everyone in it, with the entry’s message; others are untouched', () => {
    const bu = { bu: $({ '2026-11': { 'claude-sonnet': '5000' } }) };
    const d = decide(ben, 'claude-opus', $({}), bu);
    expect(d).toMatchObject({
      allowed: false,
      reasons: ['spend_limit:payments-frontier'],
      limiting: {
        ruleId: 'payments-frontier',
        per: 'bu',
        pool: 'payments',
        limitMicros: usd('5000'),
        usedMicros: usd('5000'),
        resetsAt: Date.UTC(2026, 11, 1),
      },
      messages: [{ ruleId: 'payments-frontier', text: 'The payments frontier budget is spent; ask #finops.' }],
    });
    expect(decide(outsider, 'claude-opus', $({}), bu).allowed).toBe(true); // research is not in the pool
    expect(decide(ben, 'claude-haiku', $({}), bu).allowed).toBe(true); // not in the scope
  });

  it('the worst case counts against every pool: admitted only if it fits all of them', () => {
    const pools = { bu: $({ '2026-11': { 'gpt-5': '4999' } }) };
    expect(decide(ann, 'gpt-5', $({}), pools, { costMicros: usd('1') }).allowed).toBe(true);
    expect(decide(ann, 'gpt-5', $({}), pools, { costMicros: usd('1.000001') }).reasons).toEqual(['spend_limit:payments-frontier']);
  });

  it('a caller without the attribute is not covered by an entry pooled that way', () => {
    const d = decide(noTeam, 'gpt-5', $({}), { bu: $({}) });
    expect(d.hardCaps.map((c) => c.ruleId)).toEqual(['payments-frontier', 'per-person', 'org']);
    expect(decide(app, 'gpt-5', $({})).hardCaps.map((c) => c.ruleId)).toEqual(['payments-frontier', 'per-person', 'crm', 'org']);
  });

  it('an application pool spans the application key and the users acting through it', () => {
    const pools = { application: $({ '2026-11': { 'gemini-flash': '300' } }) };
    expect(decide(viaApp, 'gemini-flash', $({}), pools).reasons).toEqual(['spend_limit:crm']);
    expect(decide(app, 'gemini-flash', $({}), pools).reasons).toEqual(['spend_limit:crm']);
  });

  it('notifies once per pool and window: the marker names the pool, not the caller', () => {
    const bu = { bu: $({ '2026-11': { 'gpt-5': '4100' } }) };
    const [n] = decide(ann, 'gpt-5', $({}), bu).notifications;
    expect(n).toMatchObject({
      key: 'notify:payments-frontier#1:bu:payments:2026-11',
      per: 'bu',
      pool: 'payments',
      poolKey: 'bu:payments',
      principalId: 'ann',
      to: ['finops'],
    });
    expect(decide(ben, 'gpt-5', $({}), bu, { markers: { [n!.key]: NOW } }).notifications).toEqual([]);
  });

  it('shadow pooled entries report would_block, never refuse', () => {
    const d = decide(ann, 'gpt-5', $({}), { org: $({ '2026-11-29': { 'gpt-5': '11' } }) });
    expect(d).toMatchObject({ allowed: true, wouldBlock: ['org-shadow'] });
    expect(d.shadowCaps.map((c) => c.key)).toEqual(['spend:org-shadow:all:org:2026-11-29']);
    const shadowAll = decide(ann, 'gpt-5', $({}), { bu: $({ '2026-11': { 'gpt-5': '5000' } }) }, { enforcement: 'shadow' });
    expect(shadowAll).toMatchObject({ allowed: true, enforced: false, hardCaps: [] });
    expect(shadowAll.wouldBlock).toContain('payments-frontier');
  });

  it('decides exactly alike over a counter vector (pools included) and nested counters', () => {
    const models = Object.keys(registry.models);
    const cells = fc.array(
      fc.tuple(
        fc.constantFrom('user', 'team', 'bu', 'application', 'org'),
        fc.constantFrom('2026-11', '2026-11-29', '2026'),
        fc.constantFrom(...models),
        fc.integer({ min: 0, max: 6_000_000_000 }),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(cells, fc.constantFrom(...models), fc.constantFrom(ann, cal, noTeam, app, viaApp, outsider), (cs, model, principal) => {
        const nested: Record<string, Record<string, Record<string, number>>> = {};
        for (const [per, k, m, v] of cs) ((nested[per] ??= {})[k] ??= {})[m] = v;
        const { user: own, ...pools } = nested;
        const a = decideSpend({ policy: budgets, registry, principal, model, counters: own ?? {}, pools, now: NOW, costMicros: 1000 });
        const layout = counterLayout({ policy: budgets, registry, now: NOW });
        const vec: CounterValues = { layout, values: layout.slots.map((s) => nested[s.per]?.[s.windowKey]?.[s.model] ?? 0) };
        expect(decideSpend({ policy: budgets, registry, principal, model, counters: vec, now: NOW, costMicros: 1000 })).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });
});

describe('rolling windows', () => {
  const rolling = policy({
    spend: {
      rules: [
        {
          id: 'day',
          matches: [
            {
              match: { per: 'team', scope: 'all', window: 'rolling_24h', at_or_above_usd: '10' },
              actions: [
                { type: 'block', message: 'slow down' },
                { type: 'message', text: 'team over $10 in 24 h' },
              ],
            },
          ],
        },
        { id: 'week', matches: [{ match: { scope: 'frontier', window: 'rolling_7d', at_or_above_usd: '50' }, actions: [{ type: 'block' }] }] },
      ],
    },
  });
  const at = Date.UTC(2026, 10, 29, 17, 20);

  it('sums hour buckets: the current hour and the 24 before it; seven days in six-hour buckets', () => {
    const day = rollingBounds('rolling_24h', at);
    expect(day.counterKeys).toHaveLength(25);
    expect(day.counterKeys[0]).toBe('2026-11-28T17');
    expect(day.counterKeys[24]).toBe('2026-11-29T17');
    expect(day).toMatchObject({ key: 'rolling_24h', start: Date.UTC(2026, 10, 28, 17), end: Date.UTC(2026, 10, 29, 18) });
    const week = rollingBounds('rolling_7d', at);
    expect(week.counterKeys).toHaveLength(29);
    expect(week.counterKeys[0]).toBe('2026-11-22T12/6h');
    expect(week.counterKeys[28]).toBe('2026-11-29T12/6h');
  });

  it('does not reset at midnight, and forgets spend once its bucket drops out', () => {
    const team = { team: $({ '2026-11-28T23': { 'gpt-5': '6' }, '2026-11-29T00': { 'gpt-5': '4' } }) };
    const d = decideSpend({ policy: rolling, registry, principal: ann, model: 'gpt-5', counters: {}, pools: team, now: at });
    expect(d).toMatchObject({
      allowed: false,
      reasons: ['spend_limit:day'],
      retryAfterS: 40 * 60,
      messages: [
        { ruleId: 'day', text: 'slow down' },
        { ruleId: 'day', text: 'team over $10 in 24 h' },
      ],
    });
    expect(d.limiting).toMatchObject({ per: 'team', pool: 'search', window: 'rolling_24h', windowKey: 'rolling_24h', resetsAt: Date.UTC(2026, 10, 29, 18) });
    const cap = decideSpend({ policy: rolling, registry, principal: ann, model: 'gpt-5', counters: {}, pools: {}, now: at }).hardCaps[0]!;
    expect(cap.key).toBe('spend:day:all:team:search:rolling_24h');
    expect(cap.windowKeys).toHaveLength(25);
    // A day later the 23:00 bucket has dropped out: 4 of 10 left.
    const later = decideSpend({ policy: rolling, registry, principal: ann, model: 'gpt-5', counters: {}, pools: team, now: Date.UTC(2026, 10, 30, 0, 5) });
    expect(later.allowed).toBe(true);
    expect(later.governing).toMatchObject({ usedMicros: usd('4') });
  });

  it('reads rolling buckets through the counter vector too; the vector goes stale on the hour', () => {
    const layout = counterLayout({ policy: rolling, registry, now: at });
    expect(layout.groups.map((g) => [g.per, g.window, g.windowKeys.length, g.models.length])).toEqual([
      ['user', 'rolling_7d', 29, 3],
      ['team', 'rolling_24h', 25, 6],
    ]);
    expect(layout.validTo).toBe(Date.UTC(2026, 10, 29, 18));
    const values = layout.slots.map((s) => (s.per === 'user' && s.windowKey === '2026-11-23T06/6h' && s.model === 'gpt-5' ? usd('50') : 0));
    const d = decideSpend({ policy: rolling, registry, principal: ann, model: 'gpt-5', counters: { layout, values }, now: at });
    expect(d.reasons).toEqual(['spend_limit:week']);
    expect(
      decideSpend({ policy: rolling, registry, principal: ann, model: 'gpt-5', counters: { layout, values }, now: Date.UTC(2026, 10, 29, 18) }).reasons,
    ).toEqual(['spend_error:stale_counters']);
  });
});

describe('rate limits per pool, and in-flight limits', () => {
  const limits = policy({
    rate_limits: [
      { id: 'person', rpm: 60, concurrent: 4 },
      { id: 'search-team', match: { teams: ['search'] }, per: 'team', rpm: 600, concurrent: 8 },
      { id: 'team-tight', per: 'team', concurrent: 3 },
      { id: 'bu', per: 'bu', tpm: 1_000_000 },
      { id: 'watch', per: 'org', concurrent: 100, enforcement: 'shadow' },
    ],
  });

  it('keys buckets and in-flight counts by pool; the tightest per pool wins; callers outside a pool are not subject', () => {
    const d = decideRate({ policy: limits, registry, principal: ann, model: 'gpt-5', tokens: 100 });
    expect(d.constraints.map((c) => [c.key, c.per, c.limit])).toEqual([
      ['rate:person:user:ann:rpm', 'user', 60],
      ['rate:search-team:team:search:rpm', 'team', 600],
      ['rate:bu:bu:payments:tpm', 'bu', 1_000_000],
    ]);
    expect(d.concurrency).toEqual([
      { key: 'conc:person:user:ann', ruleId: 'person', limit: 4, per: 'user', onStoreError: 'closed', reason: 'concurrency_limit:person' },
      { key: 'conc:team-tight:team:search', ruleId: 'team-tight', limit: 3, per: 'team', onStoreError: 'closed', reason: 'concurrency_limit:team-tight' },
    ]);
    expect(d.limiting).toEqual({ requests: 'person', tokens: 'bu', concurrent: 'team-tight' });
    expect(d.shadowConcurrency.map((c) => c.key)).toEqual(['conc:watch:org']);
    const solo = decideRate({ policy: limits, registry, principal: noTeam, model: 'gpt-5' });
    expect(solo.matched).toEqual(['person', 'bu', 'watch']);
  });

  it('in shadow mode in-flight limits are reported, not enforced', () => {
    const d = decideRate({ policy: limits, registry, principal: ann, model: 'gpt-5', enforcement: 'shadow' });
    expect(d.concurrency).toEqual([]);
    expect(d.shadowConcurrency.map((c) => c.ruleId)).toEqual(['person', 'team-tight', 'watch']);
  });
});

describe('validation of pooled budgets and limits', () => {
  const errors = (raw: unknown) => {
    const r = parsePolicy(raw, { registry });
    return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
  };
  const entry = (match: Record<string, unknown>, actions: unknown[] = [{ type: 'block' }]) => ({
    spend: { rules: [{ id: 'r', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '1', ...match }, actions }] }] },
  });

  it('refuses an unknown per, naming the path and the choices', () => {
    expect(errors(entry({ per: 'department' }))).toEqual([
      'spend.rules[0].matches[0].match.per: "department" is not one of "user", "team", "bu", "application", "workflow", "platform", "org"',
    ]);
    expect(errors({ rate_limits: [{ id: 'x', per: 'teams', rpm: 1 }] })[0]).toMatch(
      /^rate_limits\[0\]\.per: "teams" is not one of .*\(did you mean "team"\?\)$/,
    );
  });

  it('refuses teams on a pool that does not follow teams', () => {
    expect(errors(entry({ per: 'bu', teams: ['search'] }))).toEqual([
      'spend.rules[0].matches[0].match.teams: teams cannot narrow a per: bu pool: it counts the whole business unit, whatever the team; use per: team (a pool per team) or per: user',
    ]);
    expect(errors(entry({ per: 'org', teams: ['search'] }))[0]).toMatch(/whole organisation/);
    expect(errors({ rate_limits: [{ id: 'x', per: 'application', match: { teams: ['a'] }, rpm: 1 }] })[0]).toMatch(
      /^rate_limits\[0\]\.match\.teams: teams cannot narrow a per: application pool/,
    );
    expect(errors(entry({ per: 'team', teams: ['search'] }))).toEqual([]);
    expect(errors(entry({ teams: ['search'] }))).toEqual([]);
  });

  it('refuses concurrent: 0 and concurrent beside unlimited', () => {
    expect(errors({ rate_limits: [{ id: 'x', concurrent: 0 }] })).toEqual(['rate_limits[0].concurrent: must be positive']);
    expect(errors({ rate_limits: [{ id: 'x', concurrent: 2.5 }] })).toEqual(['rate_limits[0].concurrent: must be an integer']);
    expect(errors({ rate_limits: [{ id: 'x', concurrent: 2, unlimited: true }] })).toEqual([
      'rate_limits[0].unlimited: unlimited: true cannot also set rpm, tpm or concurrent',
    ]);
    expect(errors({ rate_limits: [{ id: 'x', concurrent: 2 }] })).toEqual([]);
  });

  it('refuses a rolling window on actions that need a calendar', () => {
    expect(
      errors(
        entry({ window: 'rolling_24h', scope: 'frontier' }, [
          { type: 'pause', hours: 1 },
          { type: 'notify', to: ['a'] },
          { type: 'substitute', to: ['claude-haiku'] },
          { type: 'block' },
          { type: 'message', text: 'x' },
          { type: 'no_promote' },
        ]),
      ),
    ).toEqual([
      'spend.rules[0].matches[0].actions[0].type: a pause action needs a calendar window (it pauses once per window, until the window ends at the latest), not rolling_24h; use daily, weekly, monthly, quarterly or yearly',
      'spend.rules[0].matches[0].actions[1].type: a notify action needs a calendar window (it notifies once per window), not rolling_24h; use daily, weekly, monthly, quarterly or yearly',
      'spend.rules[0].matches[0].actions[2].type: a substitute action needs a calendar window (it substitutes until the window rolls over), not rolling_24h; use daily, weekly, monthly, quarterly or yearly',
    ]);
  });

  it('orders caps per pool: a BU cap and a per-person cap of one scope do not constrain each other', () => {
    const raw = {
      spend: {
        rules: [
          {
            id: 'r',
            matches: [
              { match: { scope: 'all', window: 'daily', at_or_above_usd: '500', per: 'bu' }, actions: [{ type: 'block' }] },
              { match: { scope: 'all', window: 'monthly', at_or_above_usd: '200' }, actions: [{ type: 'block' }] },
            ],
          },
        ],
      },
    };
    expect(errors(raw)).toEqual([]);
    expect(
      errors({
        spend: {
          rules: [
            {
              id: 'r',
              matches: [
                { match: { scope: 'all', window: 'rolling_24h', at_or_above_usd: '500' }, actions: [{ type: 'block' }] },
                { match: { scope: 'all', window: 'monthly', at_or_above_usd: '200' }, actions: [{ type: 'block' }] },
              ],
            },
          ],
        },
      })[0],
    ).toMatch(/the rolling_24h cap "500" is above the monthly cap "200"/);
  });
});

describe('budgetStatus: the caps a caller is under', () => {
  it('lists its own enforced caps and pools, with spend, and nobody else’s', () => {
    const s = budgetStatus({
      policy: budgets,
      registry,
      principal: ann,
      counters: $({ '2026-11': { 'gpt-5': '12' } }),
      pools: { bu: $({ '2026-11': { 'gpt-5': '40' } }) },
      now: NOW,
    });
    expect(s.ok && s.lines.map((l) => [l.ruleId, l.per, l.pool, l.scope, l.window, l.usedMicros, l.limitMicros, l.capKey])).toEqual([
      ['payments-frontier', 'bu', 'payments', 'frontier', 'monthly', usd('40'), usd('5000'), 'spend:payments-frontier:frontier:bu:payments:2026-11'],
      ['per-person', 'user', 'ann', 'frontier', 'monthly', usd('12'), usd('200'), 'spend:per-person:frontier:user:ann:2026-11'],
      ['team-daily', 'team', 'search', 'all', 'daily', 0, usd('100'), 'spend:team-daily:all:team:search:2026-11-29'],
      ['org', 'org', 'org', 'all', 'yearly', 0, usd('100000'), 'spend:org:all:org:2026'],
    ]);
    const other = budgetStatus({ policy: budgets, registry, principal: outsider, counters: {}, now: NOW });
    expect(other.ok && other.lines.map((l) => `${l.ruleId}:${l.pool}`)).toEqual(['per-person:olly', 'team-daily:search', 'org:org']);
    expect(budgetStatus({ policy: budgets, registry, principal: ann, counters: {}, now: NOW, enforcement: 'shadow' })).toEqual({ ok: true, lines: [] });
  });
});

describe('whatIf with pools', () => {
  it('reads pool counters by pool key', () => {
    const r = whatIf(budgets, {}, [ann, outsider], NOW, { registry, models: ['gpt-5'], pools: { 'bu:payments': $({ '2026-11': { 'gpt-5': '5000' } }) } });
    expect(r.principalsBlocked).toEqual(['ann']);
    expect(r.byReason).toEqual({ 'spend_limit:payments-frontier': 1 });
  });
});

describe('policyWarnings: entries that can apply to nobody', () => {
  const raw = {
    spend: {
      rules: [
        {
          id: 'r',
          matches: [
            { match: { per: 'team', scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'block' }] },
            { match: { users: [], scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'block' }] },
            { match: { bus: ['nobody-here'], scope: 'all', window: 'monthly', at_or_above_usd: '1' }, actions: [{ type: 'block' }] },
          ],
        },
      ],
    },
    rate_limits: [{ id: 'w', per: 'workflow', rpm: 5 }],
  };
  const p = policy(raw);

  it('without identity: only populations that name nobody', () => {
    expect(policyWarnings(p).map((w) => w.path)).toEqual(['spend.rules[0].matches[1].match']);
  });

  it('with the configured keys: pools no key can be in, populations no key is in', () => {
    const keys = [user('a', { bu: 'payments' }), user('b')];
    expect(policyWarnings(p, { principals: keys, others: false, open: [] }).map((w) => `${w.path}: ${w.message}`)).toEqual([
      'spend.rules[0].matches[0].match.per: per: team, but no caller can have a team: no configured key names one and no JWT issuer maps claims.team; the entry applies to no caller',
      'spend.rules[0].matches[1].match: "users: []" matches nobody: the entry applies to no caller',
      'spend.rules[0].matches[2].match: none of the 2 configured keys is in this population: the entry applies to no caller',
      'rate_limits[0].per: per: workflow, but no caller can have a workflow: no configured key names one and no JWT issuer maps claims.workflow; the entry applies to no caller',
    ]);
    // A JWT issuer mapping claims.team (or a lookup) may bring teams: no warning for the pool then.
    expect(policyWarnings(p, { principals: keys, others: true, open: ['team', 'bu'] }).map((w) => w.path)).toEqual([
      'spend.rules[0].matches[1].match',
      'rate_limits[0].per',
    ]);
    expect(policyWarnings(p, { principals: keys, others: true, open: true }).map((w) => w.path)).toEqual(['spend.rules[0].matches[1].match']);
  });
});
