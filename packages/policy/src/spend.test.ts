import { describe, expect, it } from 'vitest';
import { NOW, alice, bob, dave, policy, registry, usd } from './__tests__/fixtures.js';
import { decideSpend, type Markers, type Principal, type SpendCounters, type SpendInput } from './index.js';

const rules = policy({
  timezone: 'UTC',
  spend: {
    rules: [
      {
        id: 'frontier-monthly',
        weight: 60,
        matches: [
          { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '90', tiers: ['normal'] }, actions: [{ type: 'notify', to: ['user', 'manager'] }] },
          {
            match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100', tiers: ['normal'] },
            actions: [{ type: 'block', message: 'Monthly frontier budget reached' }],
          },
        ],
      },
      {
        id: 'opus-daily',
        weight: 80,
        matches: [
          {
            match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '20' },
            actions: [
              { type: 'pause', hours: 4 },
              { type: 'message', text: 'Opus paused for 4 hours' },
            ],
          },
        ],
      },
      {
        id: 'tiering',
        weight: 50,
        matches: [
          {
            match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '80' },
            actions: [{ type: 'substitute', to: ['claude-haiku', 'gpt-5-mini'] }, { type: 'no_promote' }],
          },
        ],
      },
      {
        id: 'global-cap',
        weight: 10,
        matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '500', exempt_users: ['dave'] }, actions: [{ type: 'block' }] }],
      },
      { id: 'watch', enforcement: 'shadow', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '30' }, actions: [{ type: 'block' }] }] },
    ],
  },
  business_units: {
    research: { spend_overrides: [{ rule: 'frontier-monthly', scope: 'frontier', window: 'monthly', at_or_above_usd: '150' }] },
  },
});

/** Counters from USD strings: `{ '2026-11': { 'claude-opus': '95' } }`. */
function spent(byWindow: Record<string, Record<string, string>>): SpendCounters {
  return Object.fromEntries(Object.entries(byWindow).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([m, a]) => [m, usd(a)]))]));
}

function decide(principal: Principal, model: string, counters: SpendCounters, extra: Partial<SpendInput> = {}) {
  return decideSpend({ policy: rules, registry, principal, model, counters, now: NOW, ...extra });
}

const MONTH_END_S = 36 * 3600; // Sunday 29 Nov 12:00 UTC → 1 Dec 00:00 UTC

describe('decideSpend reads like the policy', () => {
  it('under every threshold: allowed, with the hard caps the store must enforce', () => {
    const d = decide(alice, 'claude-opus', spent({ '2026-11': { 'claude-opus': '10' } }));
    expect(d.allowed).toBe(true);
    expect(d.reasons).toEqual([]);
    expect(d.hardCaps.map((c) => [c.key, c.limitMicros, c.usedMicros, c.models])).toEqual([
      ['spend:frontier-monthly:frontier:user:alice:2026-11', usd('100'), usd('10'), ['claude-opus', 'claude-sonnet', 'gpt-5']],
      ['spend:global-cap:all:user:alice:2026-11', usd('500'), usd('10'), Object.keys(registry.models)],
    ]);
    expect(d.shadowCaps.map((c) => c.key)).toEqual(['spend:watch:all:user:alice:2026-11-29']);
    expect(d.hardCaps[0]).toMatchObject({
      window: 'monthly',
      windowKey: '2026-11',
      windowEndsAt: Date.UTC(2026, 11, 1),
      reason: 'spend_limit:frontier-monthly',
    });
  });

  it('sums the scope over its models: 50 on opus + 40 on gpt-5 crosses the 90 notice', () => {
    const d = decide(alice, 'claude-sonnet', spent({ '2026-11': { 'claude-opus': '50', 'gpt-5': '40', 'claude-haiku': '300' } }));
    expect(d.allowed).toBe(true);
    expect(d.notifications).toEqual([
      expect.objectContaining({
        key: 'notify:frontier-monthly#0:user:alice:2026-11',
        to: ['user', 'manager'],
        thresholdMicros: usd('90'),
        usedMicros: usd('90'),
        shadow: false,
      }),
    ]);
    expect(d.substitute).toMatchObject({ ruleId: 'tiering', to: ['claude-haiku', 'gpt-5-mini'], latchKey: 'latch:tiering:frontier:user:alice:2026-11' });
    expect(d.latches.map((l) => l.key)).toEqual(['latch:tiering:frontier:user:alice:2026-11']);
    expect(d.noPromote).toBe(true);
  });

  it('notifies once per crossing: a set marker silences the notice', () => {
    const markers: Markers = { 'notify:frontier-monthly#0:user:alice:2026-11': NOW - 1000 };
    expect(decide(alice, 'claude-opus', spent({ '2026-11': { 'gpt-5': '95' } }), { markers }).notifications).toEqual([]);
  });

  it('at 100 the cap blocks frontier models, not others', () => {
    const counters = spent({ '2026-11': { 'gpt-5': '100' } });
    const d = decide(alice, 'claude-opus', counters);
    expect(d).toMatchObject({
      allowed: false,
      enforced: true,
      reasons: ['spend_limit:frontier-monthly'],
      retryAfterS: MONTH_END_S,
      limiting: {
        ruleId: 'frontier-monthly',
        reason: 'spend_limit:frontier-monthly',
        scope: 'frontier',
        window: 'monthly',
        windowKey: '2026-11',
        limitMicros: usd('100'),
        usedMicros: usd('100'),
      },
      messages: [{ ruleId: 'frontier-monthly', text: 'Monthly frontier budget reached' }],
    });
    expect(decide(alice, 'claude-haiku', counters).allowed).toBe(true);
  });

  it('a BU override raises the platform threshold for that BU only', () => {
    const counters = spent({ '2026-11': { 'gpt-5': '120' } });
    expect(decide(alice, 'gpt-5', counters).allowed).toBe(false);
    const d = decide(bob, 'gpt-5', counters);
    expect(d.allowed).toBe(true);
    expect(d.hardCaps.find((c) => c.ruleId === 'frontier-monthly')?.limitMicros).toBe(usd('150'));
    expect(decide(bob, 'gpt-5', spent({ '2026-11': { 'gpt-5': '150' } })).reasons).toEqual(['spend_limit:frontier-monthly']);
  });

  it('exempt users are outside an entry', () => {
    const counters = spent({ '2026-11': { 'claude-haiku': '600' } });
    expect(decide(alice, 'claude-haiku', counters).reasons).toEqual(['spend_limit:global-cap']);
    expect(decide(dave, 'claude-haiku', counters).allowed).toBe(true);
    expect(decide(dave, 'claude-haiku', counters).hardCaps).toEqual([]);
  });

  it('pauses for N hours once per entry and window', () => {
    const counters = spent({ '2026-11-29': { 'claude-opus': '20' } });
    const first = decide(alice, 'claude-opus', counters);
    expect(first).toMatchObject({ allowed: false, reasons: ['paused:opus-daily'], retryAfterS: 4 * 3600 });
    expect(first.pauses).toEqual([
      { key: 'pause:opus-daily#0:user:alice:2026-11-29', ruleId: 'opus-daily', until: NOW + 4 * 3_600_000, expiresAt: Date.UTC(2026, 10, 30) },
    ]);
    expect(first.messages).toEqual([{ ruleId: 'opus-daily', text: 'Opus paused for 4 hours' }]);
    const key = 'pause:opus-daily#0:user:alice:2026-11-29';
    const during = decide(alice, 'claude-opus', counters, { markers: { [key]: NOW + 3_600_000 }, now: NOW + 1000 });
    expect(during).toMatchObject({ allowed: false, reasons: ['paused:opus-daily'], pauses: [] });
    const after = decide(alice, 'claude-opus', counters, { markers: { [key]: NOW + 3_600_000 }, now: NOW + 3_600_000 });
    expect(after.allowed).toBe(true);
    // A pause never outlasts its window.
    const late = decide(alice, 'claude-opus', counters, { now: Date.UTC(2026, 10, 29, 22) });
    expect(late.pauses[0]?.until).toBe(Date.UTC(2026, 10, 30));
  });

  it('pauses once for each entry of a rule: a second scope or threshold is not silenced by the first', () => {
    const twoEntries = policy({
      timezone: 'UTC',
      spend: {
        rules: [
          {
            id: 'p',
            matches: [
              { match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '20' }, actions: [{ type: 'pause', hours: 1 }] },
              { match: { scope: 'claude-haiku', window: 'daily', at_or_above_usd: '5' }, actions: [{ type: 'pause', hours: 2 }] },
            ],
          },
        ],
      },
    });
    const d = (model: string, markers: Markers) =>
      decideSpend({
        policy: twoEntries,
        registry,
        principal: alice,
        model,
        counters: spent({ '2026-11-29': { 'claude-opus': '20', 'claude-haiku': '5' } }),
        now: NOW,
        markers,
      });
    // Opus paused and its pause already over: haiku's own pause still comes, once.
    const opusServed = { 'pause:p#0:user:alice:2026-11-29': NOW - 1 };
    const haiku = d('claude-haiku', opusServed);
    expect(haiku).toMatchObject({ allowed: false, reasons: ['paused:p'], retryAfterS: 2 * 3600 });
    expect(haiku.pauses.map((p) => p.key)).toEqual(['pause:p#1:user:alice:2026-11-29']);
    expect(d('claude-haiku', { ...opusServed, 'pause:p#1:user:alice:2026-11-29': NOW - 1 }).allowed).toBe(true);
    expect(d('claude-opus', opusServed).allowed).toBe(true);
  });

  it('evaluates in precedence order: the heavier rule limits', () => {
    const d = decide(alice, 'claude-opus', spent({ '2026-11': { 'claude-opus': '100' }, '2026-11-29': { 'claude-opus': '25' } }));
    expect(d.reasons).toEqual(['paused:opus-daily', 'spend_limit:frontier-monthly']);
    expect(d.limiting?.ruleId).toBe('opus-daily');
    expect(d.retryAfterS).toBe(MONTH_END_S); // every blocker must clear
  });

  it('shadow rules report would-block and never block', () => {
    const d = decide(alice, 'claude-haiku', spent({ '2026-11-29': { 'claude-haiku': '31' } }));
    expect(d).toMatchObject({ allowed: true, wouldBlock: ['watch'], reasons: [] });
  });

  it('shadow mode computes everything and blocks nothing', () => {
    const counters = spent({ '2026-11': { 'gpt-5': '100' }, '2026-11-29': { 'claude-opus': '25', 'gpt-5': '10' } });
    const d = decide(alice, 'claude-opus', counters, { enforcement: 'shadow' });
    expect(d).toMatchObject({ allowed: true, enforced: false, reasons: [], hardCaps: [], noPromote: false, messages: [] });
    expect(d.wouldBlock).toEqual(['opus-daily', 'frontier-monthly', 'watch']);
    expect(d.shadowCaps.map((c) => c.ruleId)).toEqual(['frontier-monthly', 'global-cap', 'watch']);
    expect(d.pauses.map((p) => p.key)).toEqual(['shadow:pause:opus-daily#0:user:alice:2026-11-29']);
    expect(d.notifications.every((n) => n.shadow)).toBe(true);
    expect(d.substitute).toBeUndefined();
  });

  it('a rule added mid-month already sees the month', () => {
    const counters = spent({ '2026-11': { 'claude-sonnet': '60' } });
    expect(decide(alice, 'claude-sonnet', counters).allowed).toBe(true);
    const stricter = policy({
      spend: { rules: [{ id: 'new', matches: [{ match: { scope: 'sonnet', window: 'monthly', at_or_above_usd: '50' }, actions: [{ type: 'block' }] }] }] },
    });
    expect(decideSpend({ policy: stricter, registry, principal: alice, model: 'claude-sonnet', counters, now: NOW }).reasons).toEqual(['spend_limit:new']);
  });

  it('a known worst-case cost refuses what would pass the cap', () => {
    const counters = spent({ '2026-11': { 'gpt-5': '99.5' } });
    expect(decide(alice, 'gpt-5', counters, { costMicros: usd('0.5') }).allowed).toBe(true);
    expect(decide(alice, 'gpt-5', counters, { costMicros: usd('0.500001') }).reasons).toEqual(['spend_limit:frontier-monthly']);
  });

  it('a new window starts from zero', () => {
    const counters = spent({ '2026-11': { 'gpt-5': '100' } });
    expect(decide(alice, 'gpt-5', counters, { now: Date.UTC(2026, 11, 1) }).allowed).toBe(true);
  });

  it('reports utilization per limit and the governing one', () => {
    const d = decide(alice, 'claude-opus', spent({ '2026-11': { 'claude-opus': '50' }, '2026-11-29': { 'claude-opus': '15' } }));
    expect(d.utilization.map((u) => [u.ruleId, u.action, u.ratio, u.enforced])).toEqual([
      ['opus-daily', 'pause', 0.75, true],
      ['frontier-monthly', 'block', 0.5, true],
      ['global-cap', 'block', 0.1, true],
      ['watch', 'block', 0.5, false],
    ]);
    // The tightest hard cap (least left), not the fullest entry: the pause at 75% is not a cap.
    expect(d.governing).toMatchObject({ ruleId: 'frontier-monthly', action: 'block', remainingMicros: usd('50') });
    const pauses = policy({
      spend: { rules: [{ id: 'p', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '20' }, actions: [{ type: 'pause', hours: 1 }] }] }] },
    });
    expect(
      decideSpend({ policy: pauses, registry, principal: bob, model: 'gpt-5', counters: spent({ '2026-11-29': { 'gpt-5': '15' } }), now: NOW }).governing,
    ).toMatchObject({ ruleId: 'p', action: 'pause', ratio: 0.75 });
  });

  it('fails closed when it cannot evaluate', () => {
    expect(decide(alice, 'gpt-9', {}).reasons).toEqual(['model_not_found']);
    expect(decide(alice, 'gpt-5', { '2026-11': { 'gpt-5': -1 } }).reasons).toEqual(['spend_error:invalid_counter']);
    expect(decide(alice, 'gpt-5', { '2026-11': { 'gpt-5': Number.NaN } }, { enforcement: 'shadow' }).allowed).toBe(false);
    expect(decide(alice, 'gpt-5', {}, { now: Number.NaN }).reasons).toEqual(['spend_error:invalid_now']);
  });

  it('ignores counters of models the registry does not know', () => {
    expect(decide(alice, 'gpt-5', spent({ '2026-11': { 'retired-model': '1000' } })).allowed).toBe(true);
  });
});
