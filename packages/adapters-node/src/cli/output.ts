/** Tables for the money commands, as an aligned text table, CSV (RFC 4180) or JSON. */

export type OutputFormat = 'table' | 'csv' | 'json';

export function parseFormat(value: string | undefined): OutputFormat {
  const f = value ?? 'table';
  if (f !== 'table' && f !== 'csv' && f !== 'json') throw new Error(`--format must be table, csv or json, got ${JSON.stringify(f)}`);
  return f;
}

/** Micro-USD as exact dollars with six decimals (`1448` → `0.001448`). */
export function usd(micros: number): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`not an integer micro-USD amount: ${micros}`);
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0')}`;
}

const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Rows as text: columns in order; numbers right-aligned in a table. */
export function renderRows(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>, format: Exclude<OutputFormat, 'json'>): string {
  if (format === 'csv') return [columns, ...rows].map((r) => r.map((c) => csvCell(String(c))).join(',')).join('\n') + '\n';
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r: ReadonlyArray<string | number>) =>
    r
      .map((c, i) => (typeof c === 'number' || /^-?\d+(\.\d+)?$/.test(String(c)) ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}
