/**
 * `tollgate report`: spend, requests and tokens from usage records, grouped by the chosen keys.
 * Money is summed as integer micro-USD, so the totals are the records' own to the micro-dollar;
 * rejected requests are counted in their own column (they cost nothing and used nothing).
 */
import type { UsageRecord } from '@tollgate/core';
import { renderRows, usd, type OutputFormat } from './output.js';
import type { UsageSource } from './usage-source.js';

export const GROUP_KEYS = ['user', 'model', 'bu', 'team', 'tier', 'application', 'deployment', 'provider', 'status', 'day', 'month'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export function parseGroupKeys(value: string | undefined): GroupKey[] {
  if (value === undefined || value.trim() === '') return [];
  const keys = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const k of keys) if (!(GROUP_KEYS as readonly string[]).includes(k)) throw new Error(`--by: unknown key "${k}" (one of ${GROUP_KEYS.join(', ')})`);
  return [...new Set(keys)] as GroupKey[];
}

const NONE = '-';

function keyOf(record: UsageRecord, key: GroupKey): string {
  const p = record.principal;
  switch (key) {
    case 'user':
      return p?.id ?? NONE;
    case 'model':
      return record.model ?? NONE;
    case 'bu':
      return p?.bu ?? NONE;
    case 'team':
      return p?.team ?? NONE;
    case 'tier':
      return p?.tier ?? NONE;
    case 'application':
      return p?.application ?? (p?.kind === 'application' ? p.id : NONE);
    case 'deployment':
      return record.deployment ?? NONE;
    case 'provider':
      return record.provider ?? NONE;
    case 'status':
      return record.status;
    case 'day':
      return new Date(record.ts).toISOString().slice(0, 10);
    case 'month':
      return new Date(record.ts).toISOString().slice(0, 7);
  }
}

export interface Totals {
  /** Requests that were not rejected (ok, upstream errors, cancellations, errors). */
  requests: number;
  rejected: number;
  ok: number;
  cancelled: number;
  failed: number;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
  spend_micros: number;
  /** Records whose usage the gateway estimated (the upstream never reported it). */
  estimated: number;
}

const zero = (): Totals => ({
  requests: 0,
  rejected: 0,
  ok: 0,
  cancelled: 0,
  failed: 0,
  input: 0,
  output: 0,
  cache_read: 0,
  cache_write: 0,
  reasoning: 0,
  spend_micros: 0,
  estimated: 0,
});

function add(t: Totals, r: UsageRecord): void {
  if (r.status === 'rejected') t.rejected++;
  else {
    t.requests++;
    if (r.status === 'ok') t.ok++;
    else if (r.status === 'cancelled') t.cancelled++;
    else t.failed++;
  }
  const u = r.usage;
  if (u !== null) {
    t.input += u.input;
    t.output += u.output;
    t.cache_read += u.cache_read;
    t.cache_write += u.cache_write + u.cache_write_1h;
    t.reasoning += u.reasoning;
    if (!u.measured) t.estimated++;
  }
  const cost = r.cost_micros?.total ?? 0;
  t.spend_micros += cost;
  if (!Number.isSafeInteger(t.spend_micros)) throw new RangeError('spend total is past 2^53 micro-USD');
}

export interface Report {
  by: GroupKey[];
  rows: Array<{ keys: Record<string, string>; totals: Totals }>;
  totals: Totals;
}

export async function buildReport(source: UsageSource, by: readonly GroupKey[]): Promise<Report> {
  const groups = new Map<string, { keys: Record<string, string>; totals: Totals }>();
  const totals = zero();
  for await (const record of source.records()) {
    add(totals, record);
    const keys: Record<string, string> = {};
    for (const k of by) keys[k] = keyOf(record, k);
    const id = by.map((k) => keys[k]).join('\u0000');
    let g = groups.get(id);
    if (g === undefined) groups.set(id, (g = { keys, totals: zero() }));
    add(g.totals, record);
  }
  const rows = [...groups.values()].sort(
    (a, b) => b.totals.spend_micros - a.totals.spend_micros || by.map((k) => a.keys[k]!.localeCompare(b.keys[k]!)).find((c) => c !== 0) || 0,
  );
  return { by: [...by], rows, totals };
}

const COLUMNS = ['requests', 'rejected', 'ok', 'cancelled', 'failed', 'input', 'output', 'cache_read', 'cache_write', 'reasoning', 'spend_usd'] as const;

export function renderReport(report: Report, format: OutputFormat, source: UsageSource): string {
  if (format === 'json') {
    const withUsd = (t: Totals) => ({ ...t, spend_usd: usd(t.spend_micros) });
    return `${JSON.stringify({ source: source.describe, by: report.by, rows: report.rows.map((r) => ({ ...r.keys, ...withUsd(r.totals) })), totals: withUsd(report.totals), skipped: source.skipped }, null, 2)}\n`;
  }
  const cells = (t: Totals) => COLUMNS.map((c) => (c === 'spend_usd' ? usd(t.spend_micros) : t[c]));
  const rows = report.rows.map((r) => [...report.by.map((k) => r.keys[k]!), ...cells(r.totals)]);
  if (report.by.length > 0) rows.push([...report.by.map((_, i) => (i === 0 ? 'TOTAL' : '')), ...cells(report.totals)]);
  else rows.push(cells(report.totals));
  return renderRows([...report.by, ...COLUMNS], rows, format);
}
