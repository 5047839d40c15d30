import { describe, expect, it } from 'vitest';
import type { SpendDecision } from '@tollgate/policy';
import { budgetHeaders, decisionHeaders } from './budget-headers.js';

describe('budgetHeaders', () => {
  it('describes each cap it is given, also when calls for different caps alternate', () => {
    const monthly = { ruleId: 'team-monthly', limitMicros: 100_000_000, remainingMicros: 25_500_000, resetsAt: Date.UTC(2026, 11, 1) };
    const daily = { ruleId: 'équipe/daily', limitMicros: 5_000_000, remainingMicros: 6_000_000, resetsAt: Date.UTC(2026, 10, 2) };
    const first = budgetHeaders(monthly);
    expect(first).toEqual({
      'x-tollgate-budget-rule': 'team-monthly',
      'x-tollgate-budget-limit-usd': '100',
      'x-tollgate-budget-remaining-usd': '25.5',
      'x-tollgate-budget-reset': '2026-12-01T00:00:00.000Z',
      'x-tollgate-budget-utilization': '0.7450',
    });
    expect(budgetHeaders(daily)).toEqual({
      'x-tollgate-budget-rule': '%C3%A9quipe%2Fdaily',
      'x-tollgate-budget-limit-usd': '5',
      'x-tollgate-budget-remaining-usd': '5',
      'x-tollgate-budget-reset': '2026-11-02T00:00:00.000Z',
      'x-tollgate-budget-utilization': '0.0000',
    });
    expect(budgetHeaders({ ...monthly, remainingMicros: 0 })).toEqual({
      ...first,
      'x-tollgate-budget-remaining-usd': '0',
      'x-tollgate-budget-utilization': '1.0000',
    });
    expect(budgetHeaders({ ...monthly, resetsAt: Date.UTC(2027, 0, 1), limitMicros: 150_000_000 })['x-tollgate-budget-reset']).toBe('2027-01-01T00:00:00.000Z');
    expect(budgetHeaders({ ...monthly, limitMicros: 150_000_000 })['x-tollgate-budget-limit-usd']).toBe('150');
  });

  it('describes the governing cap and each distinct message of a decision, nothing for none', () => {
    const governing = {
      ruleId: 'team-monthly',
      limitMicros: 100_000_000,
      remainingMicros: 25_500_000,
      resetsAt: Date.UTC(2026, 11, 1),
      usedMicros: 74_500_000,
    };
    const decision = (over: Partial<SpendDecision>) => ({ messages: [], ...over }) as unknown as SpendDecision;
    expect(decisionHeaders(null)).toEqual({});
    expect(decisionHeaders(decision({}))).toEqual({});
    expect(decisionHeaders(decision({ governing } as Partial<SpendDecision>))).toEqual(budgetHeaders(governing));
    const messages = [
      { ruleId: 'a', text: 'Budget at 80%' },
      { ruleId: 'b', text: 'Ask ops — 50% used' },
      { ruleId: 'c', text: 'Budget at 80%' },
    ];
    expect(decisionHeaders(decision({ messages }), { 'x-other': '1' })).toEqual({
      'x-other': '1',
      'x-tollgate-budget-message': 'Budget at 80%25 | Ask ops %E2%80%94 50%25 used',
    });
  });
});
