/**
 * Usage records for the money commands (`report`, `what-if`, `explain`): read from a JSON-lines
 * file (`file:PATH`, what the `file:` and `stdout` sinks write) or a Postgres usage table
 * (`postgres://…`, the Postgres sink's `tollgate_usage`). Read as a stream, never whole: a file
 * line by line, a table in pages ordered by (ts, request_id). What is not a usage record — a
 * malformed line, an access-log line, a foreign row — is skipped and counted with where it was,
 * and the rest is still read.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { UsageRecord } from '@tollgate/core';
import { usageFilePath } from './build.js';

export interface ReadOptions {
  /** Only records with ts ≥ since (ISO-8601). */
  since?: Date;
  /** Only records with ts < until. */
  until?: Date;
  /** Postgres table (default `tollgate_usage`). */
  table?: string;
  /** Only this request (a table is asked by its key). */
  requestId?: string;
}

export interface Skipped {
  /** Lines or rows that were not usage records. */
  count: number;
  /** The first few, with where they were and why: `line 12: not JSON`. */
  examples: string[];
}

export interface UsageSource {
  /** What is read, for messages (passwords hidden). */
  describe: string;
  records(): AsyncIterable<UsageRecord>;
  skipped: Skipped;
}

const STATUSES = new Set(['ok', 'rejected', 'upstream_error', 'cancelled', 'error']);
const MAX_EXAMPLES = 5;

/** Why a value is not a usage record this version can read, or null when it is one. */
export function notARecord(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  if ((r as { log?: unknown }).log === 'access') return 'an access-log line';
  if (r.schema !== 1) return r.schema === undefined ? 'no "schema" (not a tollgate usage record)' : `unknown schema ${JSON.stringify(r.schema)}`;
  if (typeof r.request_id !== 'string' || r.request_id === '') return 'no request_id';
  if (typeof r.ts !== 'string' || Number.isNaN(Date.parse(r.ts))) return 'no valid ts';
  if (typeof r.status !== 'string' || !STATUSES.has(r.status)) return 'no valid status';
  // Every field the commands add up, group by or replay is checked: a foreign or damaged line
  // must not turn a total into text, NaN or a negative amount.
  const cost = r.cost_micros as { total?: unknown } | null | undefined;
  if (cost !== null && cost !== undefined && !isCount(cost.total)) return 'cost_micros.total is not a non-negative integer';
  if (r.usage !== null && r.usage !== undefined) {
    if (typeof r.usage !== 'object' || Array.isArray(r.usage)) return 'usage is not an object';
    const u = r.usage as Record<string, unknown>;
    for (const k of TOKEN_KINDS) if (!isCount(u[k])) return `usage.${k} is not a non-negative integer`;
  }
  for (const k of ['model', 'requested_model', 'substituted_from', 'deployment', 'provider'] as const) {
    if (r[k] !== null && r[k] !== undefined && typeof r[k] !== 'string') return `${k} is not a string`;
  }
  const p = r.principal;
  if (p !== null && p !== undefined) {
    if (typeof p !== 'object' || Array.isArray(p)) return 'principal is not an object';
    const q = p as Record<string, unknown>;
    if (typeof q.id !== 'string') return 'principal.id is not a string';
    for (const k of ['kind', 'tier', 'bu', 'team', 'application', 'platform', 'workflow'] as const) {
      if (q[k] !== null && q[k] !== undefined && typeof q[k] !== 'string') return `principal.${k} is not a string`;
    }
    if (q.leaders !== undefined && (!Array.isArray(q.leaders) || !q.leaders.every((l) => typeof l === 'string')))
      return 'principal.leaders is not a list of names';
  }
  if (r.duration_ms !== undefined && !(typeof r.duration_ms === 'number' && r.duration_ms >= 0)) return 'duration_ms is not a non-negative number';
  if (r.reserved_micros !== undefined && r.reserved_micros !== null && !isCount(r.reserved_micros)) return 'reserved_micros is not a non-negative integer';
  const d = r.decision;
  if (d !== null && d !== undefined) {
    if (typeof d !== 'object' || Array.isArray(d)) return 'decision is not an object';
    const x = d as Record<string, unknown>;
    if (!isCount(x.worst_case_micros) || !isCount(x.token_bound) || !Array.isArray(x.spend) || !Array.isArray(x.rate))
      return 'decision is not one this version can read';
    if (x.at_ms !== undefined && !(typeof x.at_ms === 'number' && x.at_ms >= 0)) return 'decision.at_ms is not a non-negative number';
  }
  return null;
}

const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write', 'cache_write_1h', 'reasoning'] as const;
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function skip(skipped: Skipped, where: string, why: string): void {
  skipped.count++;
  if (skipped.examples.length < MAX_EXAMPLES) skipped.examples.push(`${where}: ${why}`);
}

function inRange(record: UsageRecord, options: ReadOptions): boolean {
  const at = Date.parse(record.ts);
  if (options.since !== undefined && at < options.since.getTime()) return false;
  if (options.until !== undefined && at >= options.until.getTime()) return false;
  return options.requestId === undefined || record.request_id === options.requestId;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (url)';
  }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$/;

/** `file:PATH` or `postgres://…`; a bad spec throws with a message for the user. */
export function openUsageSource(spec: string, options: ReadOptions = {}, cwd = process.cwd()): UsageSource {
  const skipped: Skipped = { count: 0, examples: [] };
  if (spec.startsWith('file:')) {
    const path = usageFilePath(spec, cwd);
    return {
      describe: path,
      skipped,
      async *records() {
        const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
        let n = 0;
        for await (const line of lines) {
          n++;
          if (line.trim() === '') continue;
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            skip(skipped, `line ${n}`, 'not JSON');
            continue;
          }
          const why = notARecord(value);
          if (why !== null) {
            skip(skipped, `line ${n}`, why);
            continue;
          }
          if (inRange(value as UsageRecord, options)) yield value as UsageRecord;
        }
      },
    };
  }
  if (/^postgres(ql)?:\/\//.test(spec)) {
    const table = options.table ?? 'tollgate_usage';
    if (!IDENT.test(table)) throw new Error(`--table must be an identifier or schema.identifier, got ${JSON.stringify(table)}`);
    const quoted = table
      .split('.')
      .map((p) => `"${p}"`)
      .join('.');
    return {
      describe: `${redact(spec)} table ${table}`,
      skipped,
      async *records() {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: spec, connectionTimeoutMillis: 5000 });
        await client.connect();
        try {
          // Keyset pages in (ts, request_id) order: bounded memory whatever the table's size.
          let after: { ts: Date; id: string } | null = null;
          const where: string[] = [];
          const params: unknown[] = [];
          if (options.since !== undefined) {
            params.push(options.since);
            where.push(`ts >= $${params.length}`);
          }
          if (options.until !== undefined) {
            params.push(options.until);
            where.push(`ts < $${params.length}`);
          }
          if (options.requestId !== undefined) {
            params.push(options.requestId);
            where.push(`request_id = $${params.length}`);
          }
          for (;;) {
            const pageParams = [...params];
            const pageWhere = [...where];
            if (after !== null) {
              pageParams.push(after.ts, after.id);
              pageWhere.push(`(ts, request_id) > ($${pageParams.length - 1}, $${pageParams.length})`);
            }
            const sql = `SELECT request_id, ts, record::text AS record FROM ${quoted}${pageWhere.length > 0 ? ` WHERE ${pageWhere.join(' AND ')}` : ''} ORDER BY ts, request_id LIMIT 2000`;
            const page = await client.query<{ request_id: string; ts: Date; record: string | null }>(sql, pageParams);
            for (const row of page.rows) {
              let value: unknown;
              try {
                value = row.record === null ? null : JSON.parse(row.record);
              } catch {
                value = null;
              }
              const why = notARecord(value);
              if (why !== null) skip(skipped, `row ${row.request_id}`, why);
              else if ((value as UsageRecord).request_id !== row.request_id) skip(skipped, `row ${row.request_id}`, 'its record names another request_id');
              else yield value as UsageRecord;
            }
            if (page.rows.length < 2000) break;
            const last = page.rows[page.rows.length - 1]!;
            after = { ts: last.ts, id: last.request_id };
          }
        } finally {
          await client.end().catch(() => {});
        }
      },
    };
  }
  throw new Error(`--usage must be file:PATH or a postgres:// URL, got ${JSON.stringify(spec)}`);
}
