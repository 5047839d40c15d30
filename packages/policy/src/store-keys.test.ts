/**
 * Decisions keep the store keys they name (cap keys per entry and pool until the window moves
 * on, rate keys per rule and pool): the keys must be what they would be if made afresh.
 */
import { describe, expect, it } from 'vitest';
import { policy, registry, user } from './__tests__/fixtures.js';
import { decideRate, decideSpend } from './index.js';

const caps = policy({
  timezone: 'UTC',
  spend: {
    rules: [
      { id: 'monthly', matches: [{ match: { scope: 'all', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] },
      { id: 'bu-daily', matches: [{ match: { per: 'bu', scope: 'all', window: 'daily', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] },
      { id: 'rolling', matches: [{ match: { scope: 'all', window: 'rolling_24h', at_or_above_usd: '100' }, actions: [{ type: 'block' }] }] },
    ],
  },
  rate_limits: [{ id: 'rpm', rpm: 10, tpm: 1000, concurrent: 2 }],
});

const capKeys = (id: string, now: number) =>
  decideSpend({ policy: caps, registry, principal: user(id, { bu: `bu-${id}` }), model: 'claude-haiku', now, counters: {} }).hardCaps.map((c) => c.key);

describe('store keys kept between decisions', () => {
  it('names the new window in cap keys once it rolls over (month, day, rolling bucket)', () => {
    const end = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    expect(capKeys('alice', end)).toEqual([
      'spend:monthly:all:user:alice:2026-11',
      'spend:bu-daily:all:bu:bu-alice:2026-11-30',
      'spend:rolling:all:user:alice:rolling_24h',
    ]);
    expect(capKeys('alice', end + 1)).toEqual([
      'spend:monthly:all:user:alice:2026-12',
      'spend:bu-daily:all:bu:bu-alice:2026-12-01',
      'spend:rolling:all:user:alice:rolling_24h',
    ]);
    expect(capKeys('alice', end)).toEqual([
      'spend:monthly:all:user:alice:2026-11',
      'spend:bu-daily:all:bu:bu-alice:2026-11-30',
      'spend:rolling:all:user:alice:rolling_24h',
    ]);
  });

  it('names each caller its own keys, for more callers than are kept', () => {
    const now = Date.UTC(2026, 10, 29, 12);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 1_100; i++) {
        const id = `u${i}`;
        expect(capKeys(id, now)[1]).toBe(`spend:bu-daily:all:bu:bu-${id}:2026-11-29`);
        const rate = decideRate({ policy: caps, registry, principal: user(id), model: 'claude-haiku', tokens: 7 });
        expect(rate.constraints.map((c) => [c.key, c.reason, c.amount])).toEqual([
          [`rate:rpm:user:${id}:rpm`, 'rate_limit:rpm', 1],
          [`rate:rpm:user:${id}:tpm`, 'rate_limit:rpm', 7],
        ]);
        expect(rate.concurrency.map((c) => [c.key, c.reason])).toEqual([[`conc:rpm:user:${id}`, 'concurrency_limit:rpm']]);
      }
    }
  });
});
