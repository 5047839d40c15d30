import type { UsageRecord, UsageSink } from '@tollgate/core';
import pg from 'pg';
import type { Pool } from 'pg';
import { Batcher, type SinkStats } from '../sinks/batcher.js';

export interface PostgresSinkOptions {
  /** e.g. `postgres://user@host:5432/db`; ignored when `pool` is given (default: the PG* environment). */
  connectionString?: string;
  /** An existing pool; the sink does not end it on close. */
  pool?: Pool;
  /** Table, optionally schema-qualified (default `tollgate_usage`); created if missing. */
  table?: string;
  /** Rows per INSERT (default 100). */
  batchSize?: number;
  /** Flush period in ms, at most 1000 (default 1000). */
  flushIntervalMs?: number;
  /** Records held before new ones are dropped (default 10 000). */
  maxQueue?: number;
  /** Attempts per batch before its records are counted as failed (default 3). */
  maxAttempts?: number;
  /** Failed batches and pool errors (default: one console warning until a batch succeeds again). */
  onError?: (error: unknown) => void;
}

export interface PostgresSinkStats extends SinkStats {
  /** Records whose request_id was already in the table (not written again). */
  duplicates: number;
}

export interface PostgresSink extends UsageSink {
  stats(): PostgresSinkStats;
  /**
   * Resolves when the database answers and the table exists (creating it if missing); rejects
   * with the reason otherwise. `tollgate serve` uses it for `/readyz`.
   */
  ping(): Promise<void>;
  /** Records held at most while the database cannot be reached (`maxQueue`). */
  readonly maxQueue: number;
}

interface Row {
  id: string;
  ts: string;
  json: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** `name` or `schema.name` → its quoted SQL form and the bare name (for the index). */
function tableName(table: string): { sql: string; name: string } {
  const parts = table.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) {
    throw new RangeError(`tollgate postgres sink: table must be an identifier or schema.identifier, got ${JSON.stringify(table)}`);
  }
  return { sql: parts.map((p) => `"${p}"`).join('.'), name: parts[parts.length - 1]! };
}

/** SQLSTATEs of a concurrent CREATE ... IF NOT EXISTS that lost the race: the object exists. */
const ALREADY_THERE = new Set(['42P07', '23505', '42710']);
const sqlState = (error: unknown): string =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : '';
/** Class 22 (data exception): one bad row, not a bad connection. */
const isDataError = (error: unknown): boolean => sqlState(error).startsWith('22');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Usage records into Postgres, one row per request: `request_id text primary key`,
 * `ts timestamptz`, `record jsonb`, plus an index on ts. The table is created if missing.
 * `write` never blocks nor throws: records are queued (bounded; a full queue drops and
 * counts) and inserted in batches (multi-row INSERT ... ON CONFLICT (request_id) DO NOTHING,
 * so a record written twice is stored once) at least every second, on `flush()` and on
 * `close()`. A batch is tried `maxAttempts` times; a batch with a bad row is retried row by
 * row and what still fails is counted. While the database cannot be reached, records stay
 * queued (up to `maxQueue`, then new ones are dropped and counted) and are written once it is
 * back; at `close()` what is still queued is counted as failed. Nothing is ever thrown —
 * Postgres being down never affects traffic.
 */
export function createPostgresSink(options: PostgresSinkOptions = {}): PostgresSink {
  const table = tableName(options.table ?? 'tollgate_usage');
  const maxAttempts = options.maxAttempts ?? 3;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`tollgate postgres sink: maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  let warned = false;
  const onError =
    options.onError ??
    ((error: unknown) => {
      if (warned) return;
      warned = true;
      const message = error instanceof Error ? error.message : String(error);
      console.warn(`[tollgate] usage sink (postgres ${table.name}): ${message}; failed records are counted`);
    });

  const owned = options.pool === undefined;
  const pool: Pool =
    options.pool ??
    new pg.Pool({
      connectionString: options.connectionString,
      max: 2,
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
  // An idle client's error is emitted on the pool; unhandled, it would crash the process.
  if (owned) pool.on('error', onError);

  let created: Promise<void> | undefined;
  const ensureTable = (): Promise<void> => {
    created ??= (async () => {
      const statements = [
        `CREATE TABLE IF NOT EXISTS ${table.sql} (request_id text PRIMARY KEY, ts timestamptz NOT NULL, record jsonb NOT NULL)`,
        `CREATE INDEX IF NOT EXISTS "${table.name}_ts_idx" ON ${table.sql} (ts)`,
      ];
      for (const sql of statements) {
        try {
          await pool.query(sql);
        } catch (error) {
          if (!ALREADY_THERE.has(sqlState(error))) throw error;
        }
      }
    })().catch((error: unknown) => {
      created = undefined;
      throw error;
    });
    return created;
  };

  let duplicates = 0;
  const insert = async (rows: Row[]): Promise<number> => {
    const values: string[] = [];
    const params: string[] = [];
    for (const row of rows) {
      const n = params.length;
      values.push(`($${n + 1}, $${n + 2}, $${n + 3})`);
      params.push(row.id, row.ts, row.json);
    }
    const sql = `INSERT INTO ${table.sql} (request_id, ts, record) VALUES ${values.join(', ')} ON CONFLICT (request_id) DO NOTHING`;
    const result = await pool.query(sql, params);
    return result.rowCount ?? 0;
  };

  const send = async (rows: Row[]): Promise<{ written: number; failed: number }> => {
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        await ensureTable();
        const written = await insert(rows);
        duplicates += rows.length - written;
        warned = false;
        return { written, failed: 0 };
      } catch (error) {
        lastError = error;
        if (isDataError(error)) break;
        if (attempt < maxAttempts) await sleep(100 * 2 ** (attempt - 1));
      }
    }
    if (!isDataError(lastError) || rows.length === 1) throw lastError;
    // One bad row spoils a multi-row INSERT: write the rows one by one, count the bad ones.
    onError(lastError);
    let written = 0;
    let failed = 0;
    for (const row of rows) {
      try {
        const n = await insert([row]);
        written += n;
        duplicates += 1 - n;
      } catch {
        failed++;
      }
    }
    return { written, failed };
  };

  const maxQueue = options.maxQueue ?? 10_000;
  const batcher = new Batcher<Row>({
    maxQueue,
    batchSize: options.batchSize ?? 100,
    flushIntervalMs: options.flushIntervalMs ?? 1000,
    onError,
    send,
    // Anything but a bad row (a connection, permission or server error) may pass: keep the batch.
    requeue: (error) => !isDataError(error),
  });

  return {
    write(record: UsageRecord): void {
      if (batcher.isClosed || typeof record?.request_id !== 'string' || record.request_id === '') {
        batcher.drop();
        return;
      }
      let json: string;
      try {
        json = JSON.stringify(record);
      } catch {
        batcher.drop();
        return;
      }
      const at = Date.parse(record.ts);
      batcher.push({
        id: record.request_id,
        ts: Number.isNaN(at) ? new Date().toISOString() : new Date(at).toISOString(),
        json,
      });
    },
    flush: () => batcher.flush(),
    async close(): Promise<void> {
      await batcher.close();
      if (owned) await pool.end().catch(onError);
    },
    stats: () => ({ ...batcher.stats(), duplicates }),
    async ping(): Promise<void> {
      await ensureTable();
      await pool.query('SELECT 1');
    },
    maxQueue,
  };
}
