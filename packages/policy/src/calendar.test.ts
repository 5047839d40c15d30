import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { windowBounds, windowKey, windowKeys, type SpendWindow } from './index.js';

const iso = (t: number): string => new Date(t).toISOString();
const H = 3_600_000;

describe('calendar windows', () => {
  it.each([
    // [window, now (UTC), zone, key, start, end]
    ['daily', '2026-03-08T12:00:00Z', 'America/New_York', '2026-03-08', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z'],
    ['daily', '2026-11-01T12:00:00Z', 'America/New_York', '2026-11-01', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z'],
    ['daily', '2026-03-29T12:00:00Z', 'Europe/London', '2026-03-29', '2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z'],
    ['daily', '2026-10-25T12:00:00Z', 'Europe/London', '2026-10-25', '2026-10-24T23:00:00.000Z', '2026-10-26T00:00:00.000Z'],
    // Chile skips local midnight: the day starts at 01:00.
    ['daily', '2026-09-06T12:00:00Z', 'America/Santiago', '2026-09-06', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z'],
    ['daily', '2026-03-08T12:00:00Z', 'Asia/Kolkata', '2026-03-08', '2026-03-07T18:30:00.000Z', '2026-03-08T18:30:00.000Z'],
    ['weekly', '2026-11-29T12:00:00Z', 'UTC', '2026-W48', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['weekly', '2026-11-30T00:00:00Z', 'UTC', '2026-W49', '2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z'],
    ['weekly', '2027-01-01T12:00:00Z', 'UTC', '2026-W53', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['weekly', '2026-01-01T12:00:00Z', 'UTC', '2026-W01', '2025-12-29T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
    ['weekly', '2026-03-10T12:00:00Z', 'America/New_York', '2026-W11', '2026-03-09T04:00:00.000Z', '2026-03-16T04:00:00.000Z'],
    ['monthly', '2026-11-30T23:59:00Z', 'America/New_York', '2026-11', '2026-11-01T04:00:00.000Z', '2026-12-01T05:00:00.000Z'],
    ['monthly', '2026-12-01T04:59:59.999Z', 'America/New_York', '2026-11', '2026-11-01T04:00:00.000Z', '2026-12-01T05:00:00.000Z'],
    ['monthly', '2026-12-01T05:00:00Z', 'America/New_York', '2026-12', '2026-12-01T05:00:00.000Z', '2027-01-01T05:00:00.000Z'],
    ['monthly', '2028-02-29T12:00:00Z', 'UTC', '2028-02', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ['monthly', '2026-03-31T23:30:00Z', 'Europe/London', '2026-04', '2026-03-31T23:00:00.000Z', '2026-04-30T23:00:00.000Z'],
    ['quarterly', '2027-01-01T12:00:00Z', 'UTC', '2027-Q1', '2027-01-01T00:00:00.000Z', '2027-04-01T00:00:00.000Z'],
    ['yearly', '2026-12-31T23:00:00Z', 'Pacific/Auckland', '2027', '2026-12-31T11:00:00.000Z', '2027-12-31T11:00:00.000Z'],
  ] as const)('%s at %s in %s is %s [%s, %s)', (window, now, tz, key, start, end) => {
    const b = windowBounds(window, new Date(now), tz);
    expect({ key: b.key, start: iso(b.start), end: iso(b.end) }).toEqual({ key, start, end });
  });

  it('gives every window key at once, with distinct formats', () => {
    const keys = windowKeys(Date.UTC(2026, 10, 29, 12), 'Europe/London');
    expect(keys).toEqual({ daily: '2026-11-29', weekly: '2026-W48', monthly: '2026-11', quarterly: '2026-Q4', yearly: '2026' });
    expect(new Set(Object.values(keys)).size).toBe(5);
  });

  it('accepts Date and epoch ms alike', () => {
    expect(windowKey('monthly', new Date(Date.UTC(2026, 0, 31, 23)), 'Europe/Paris')).toBe('2026-02');
    expect(windowKey('monthly', Date.UTC(2026, 0, 31, 22, 59), 'Europe/Paris')).toBe('2026-01');
  });

  const zones = ['UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago', 'Pacific/Chatham'];
  const windows: SpendWindow[] = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'];
  const instants = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) });

  it('contains now, and the next window starts where this one ends', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), fc.constantFrom(...windows), (t, tz, w) => {
        const b = windowBounds(w, t, tz);
        const next = windowBounds(w, b.end, tz);
        const before = windowBounds(w, b.start - 1, tz);
        return b.start <= t && t < b.end && next.start === b.end && next.key !== b.key && before.end === b.start && before.key !== b.key;
      }),
      { numRuns: 300 },
    );
  });

  it('daily windows last 23, 24 or 25 hours (30 min shifts on Lord Howe) and start at a local day', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), (t, tz) => {
        const b = windowBounds('daily', t, tz);
        const hours = (b.end - b.start) / H;
        const local = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(b.start);
        return [23, 23.5, 24, 24.5, 25].includes(hours) && local === b.key;
      }),
      { numRuns: 300 },
    );
  });
});
