import { describe, expect, it } from 'vitest';
import { renderRows, usd } from './output.js';
import { notARecord } from './usage-source.js';

describe('money output', () => {
  it('writes micro-USD as exact dollars', () => {
    expect(usd(0)).toBe('0.000000');
    expect(usd(1448)).toBe('0.001448');
    expect(usd(12_345_678_901)).toBe('12345.678901');
    expect(usd(-5)).toBe('-0.000005');
    expect(() => usd(0.5)).toThrow(RangeError);
  });

  it('quotes CSV cells that need it and aligns tables', () => {
    expect(renderRows(['user', 'spend_usd'], [['a,"b"', '1.000000']], 'csv')).toBe('user,spend_usd\n"a,""b""",1.000000\n');
    expect(
      renderRows(
        ['user', 'n'],
        [
          ['alice', 12],
          ['bo', 3],
        ],
        'table',
      ),
    ).toBe('user   n\n-----  --\nalice  12\nbo      3\n');
  });
});

describe('what counts as a usage record', () => {
  const good = { schema: 1, request_id: 'req_1', ts: '2026-12-01T00:00:00.000Z', status: 'ok', cost_micros: { total: 3 } };
  it('accepts a record and names why anything else is not one', () => {
    expect(notARecord(good)).toBeNull();
    expect(notARecord([1])).toBe('not a JSON object');
    expect(notARecord({ log: 'access' })).toBe('an access-log line');
    expect(notARecord({ ...good, schema: 2 })).toBe('unknown schema 2');
    expect(notARecord({ ...good, ts: 'yesterday' })).toBe('no valid ts');
    expect(notARecord({ ...good, status: 'fine' })).toBe('no valid status');
    expect(notARecord({ ...good, cost_micros: { total: 1.5 } })).toBe('cost_micros.total is not a non-negative integer');
    expect(notARecord({ ...good, cost_micros: { total: -1 } })).toBe('cost_micros.total is not a non-negative integer');
    const usage = { input: 1, output: 2, cache_read: 0, cache_write: 0, cache_write_1h: 0, reasoning: 0, measured: true };
    expect(notARecord({ ...good, usage })).toBeNull();
    expect(notARecord({ ...good, usage: { ...usage, output: '2' } })).toBe('usage.output is not a non-negative integer');
    expect(notARecord({ ...good, model: 3 })).toBe('model is not a string');
    expect(notARecord({ ...good, principal: { kind: 'user', id: 7 } })).toBe('principal.id is not a string');
    expect(notARecord({ ...good, decision: { worst_case_micros: 1, token_bound: 1, spend: [], rate: [], at_ms: -4 } })).toBe(
      'decision.at_ms is not a non-negative number',
    );
  });
});
