import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOW, alice, bob, policy, registry, usd } from './__tests__/fixtures.js';
import { counterLayout, decideSpend, type CounterValues, type SpendCounters } from './index.js';

const rules = policy({
  timezone: 'Europe/London',
  spend: {
    rules: [
      { id: 'frontier-month', matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] },
      { id: 'haiku-day', matches: [{ match: { scope: 'claude-haiku', window: 'daily', at_or_above_usd: '5' }, actions: [{ type: 'notify', to: ['user'] }] }] },
    ],
  },
});

describe('counterLayout: the counters a decision can read, as one vector', () => {
  it('names, per (per, window) pair in use, the window keys × the models its scopes cover, in slot order', () => {
    const layout = counterLayout({ policy: rules, registry, now: NOW });
    expect(layout).toMatchObject({ timezone: 'Europe/London', size: 4 });
    expect(layout.groups).toEqual([
      { per: 'user', window: 'daily', windowKeys: ['2026-11-29'], models: ['claude-haiku'], offset: 0 },
      { per: 'user', window: 'monthly', windowKeys: ['2026-11'], models: ['claude-opus', 'claude-sonnet', 'gpt-5'], offset: 1 },
    ]);
    expect(layout.slots[2]).toEqual({ per: 'user', perIdx: 0, windowKey: '2026-11', model: 'claude-sonnet' });
    expect(counterLayout({ policy: rules, registry, now: NOW + 1000 })).toBe(layout); // memoised within the day
  });

  const vectorOf = (counters: SpendCounters, now = NOW): CounterValues => {
    const layout = counterLayout({ policy: rules, registry, now });
    return { layout, values: layout.slots.map(({ windowKey, model }) => counters[windowKey]?.[model] ?? 0) };
  };

  it('decides exactly like nested counters', () => {
    const cells = fc.array(
      fc.tuple(fc.constantFrom('2026-11', '2026-11-29', '2026-10'), fc.constantFrom(...Object.keys(registry.models)), fc.integer({ min: 0, max: 150_000_000 })),
    );
    fc.assert(
      fc.property(cells, fc.constantFrom(...Object.keys(registry.models)), fc.constantFrom(alice, bob), (cs, model, principal) => {
        const nested: Record<string, Record<string, number>> = {};
        for (const [k, m, v] of cs) (nested[k] ??= {})[m] = v;
        const a = decideSpend({ policy: rules, registry, principal, model, counters: nested, now: NOW });
        const b = decideSpend({ policy: rules, registry, principal, model, counters: vectorOf(nested), now: NOW });
        expect(b).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });

  it('fails closed on a stale, foreign or short vector', () => {
    const base = { policy: rules, registry, principal: alice, model: 'gpt-5' };
    const november = vectorOf({ '2026-11': { 'gpt-5': usd('1') } });
    expect(decideSpend({ ...base, counters: november, now: Date.UTC(2026, 11, 1, 12) }).reasons).toEqual(['spend_error:stale_counters']);
    const other = policy({
      spend: { rules: [{ id: 'x', matches: [{ match: { scope: 'all', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] }] },
    });
    expect(decideSpend({ ...base, policy: other, counters: november, now: NOW }).reasons).toEqual(['spend_error:counter_layout']);
    expect(decideSpend({ ...base, counters: { layout: november.layout, values: [1, 2] }, now: NOW }).reasons).toEqual(['spend_error:invalid_counter']);
    const holes = { layout: november.layout, values: Array.from({ length: 4 }, (_, i) => (i === 3 ? Number.NaN : 0)) };
    expect(decideSpend({ ...base, counters: holes, now: NOW }).reasons).toEqual(['spend_error:invalid_counter']);
  });
});
