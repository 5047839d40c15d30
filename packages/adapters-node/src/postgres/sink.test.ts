import { connect, createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageRecord } from '../testing/records.js';
import { serviceGate } from '../testing/services.js';
import { createPostgresSink, type PostgresSinkOptions } from './sink.js';

const postgres = await serviceGate('postgres');
const RUN = crypto.randomUUID().replaceAll('-', '').slice(0, 10);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.skipIf(postgres.skip)('createPostgresSink', () => {
  let admin: pg.Pool;
  const tables: string[] = [];
  const schemas: string[] = [];
  let n = 0;

  /** A sink on a table unique to this test; the table is dropped after the file. */
  const makeSink = (options: PostgresSinkOptions = {}) => {
    const table = options.table ?? `tollgate_usage_${RUN}_${++n}`;
    if (!table.includes('.')) tables.push(table);
    return { table, sink: createPostgresSink({ connectionString: postgres.url, ...options, table }) };
  };
  const rows = async (table: string) =>
    (await admin.query<{ request_id: string; ts: Date; record: Record<string, unknown> }>(`SELECT * FROM ${table} ORDER BY ts, request_id`)).rows;

  beforeAll(() => {
    postgres.assertUp();
    admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
  });

  afterAll(async () => {
    if (admin === undefined) return;
    for (const table of tables) await admin.query(`DROP TABLE IF EXISTS "${table}"`);
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('creates the table if missing: request_id primary key, ts, record jsonb, an index on ts', async () => {
    const { table, sink } = makeSink();
    const record = usageRecord();
    sink.write(record);
    await sink.close();
    const columns = await admin.query<{ column_name: string; data_type: string; is_nullable: string }>(
      `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    expect(columns.rows).toEqual([
      { column_name: 'request_id', data_type: 'text', is_nullable: 'NO' },
      { column_name: 'ts', data_type: 'timestamp with time zone', is_nullable: 'NO' },
      { column_name: 'record', data_type: 'jsonb', is_nullable: 'NO' },
    ]);
    const indexes = await admin.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = $1`, [table]);
    const defs = indexes.rows.map((r) => r.indexdef);
    expect(defs.some((d) => d.includes('UNIQUE') && d.includes('(request_id)'))).toBe(true);
    expect(defs.some((d) => d.includes('(ts)'))).toBe(true);

    const [row] = await rows(table);
    expect(row!.request_id).toBe(record.request_id);
    expect(row!.ts.toISOString()).toBe(record.ts);
    expect(row!.record).toEqual(record);
  });

  it('writes each record once: a duplicate request_id is ignored, in one batch or across batches', async () => {
    const { table, sink } = makeSink({ batchSize: 40 });
    const records = Array.from({ length: 250 }, () => usageRecord());
    for (const r of records) sink.write(r);
    // Duplicates: some land in the same batch as their original, some in later batches.
    for (const r of records.slice(0, 30)) sink.write({ ...r, status: 'error' });
    await sink.flush();
    for (const r of records.slice(200, 220)) sink.write(r);
    await sink.close();
    const stored = await rows(table);
    expect(stored).toHaveLength(250);
    expect(new Set(stored.map((r) => r.request_id))).toEqual(new Set(records.map((r) => r.request_id)));
    expect(stored.every((r) => r.record.status === 'ok')).toBe(true); // the first write wins
    expect(sink.stats()).toEqual({ written: 250, dropped: 0, failed: 0, queued: 0, duplicates: 50 });
  });

  it('a second sink (another replica) on the same table creates nothing twice and writes once', async () => {
    const { table, sink: a } = makeSink();
    const { sink: b } = makeSink({ table });
    const record = usageRecord();
    a.write(record);
    b.write(record);
    await Promise.all([a.close(), b.close()]);
    expect(await rows(table)).toHaveLength(1);
    expect(a.stats().written + b.stats().written).toBe(1);
  });

  it('flushes on close', async () => {
    const { table, sink } = makeSink({ flushIntervalMs: 1000 });
    for (let i = 0; i < 10; i++) sink.write(usageRecord());
    expect(sink.stats().queued).toBe(10);
    await sink.close();
    expect(await rows(table)).toHaveLength(10);
    expect(sink.stats()).toMatchObject({ written: 10, queued: 0 });
  });

  it('flushes by itself every second at most, and at once when a batch is full', async () => {
    const { table, sink } = makeSink({ batchSize: 5 });
    sink.write(usageRecord());
    await sleep(1400);
    expect(await rows(table)).toHaveLength(1);
    for (let i = 0; i < 5; i++) sink.write(usageRecord());
    await sleep(300);
    expect(await rows(table)).toHaveLength(6);
    await sink.close();
  });

  it('drops and counts records when the queue is full or the sink is closed; write never throws', async () => {
    const { table, sink } = makeSink({ maxQueue: 5 });
    for (let i = 0; i < 8; i++) sink.write(usageRecord());
    expect(sink.stats()).toMatchObject({ dropped: 3, queued: 5 });
    sink.write({ ...usageRecord(), request_id: '' });
    sink.write({ ...usageRecord(), attempts: 1n } as unknown as ReturnType<typeof usageRecord>);
    await sink.close();
    sink.write(usageRecord());
    expect(sink.stats()).toEqual({ written: 5, dropped: 6, failed: 0, queued: 0, duplicates: 0 });
    expect(await rows(table)).toHaveLength(5);
  });

  it('keeps records queued while the database is unreachable, never throws, and counts what is left at close', async () => {
    const port = await freePort();
    const errors: unknown[] = [];
    const sink = createPostgresSink({
      connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
      table: 'tollgate_usage',
      maxAttempts: 2,
      batchSize: 2,
      onError: (e) => errors.push(e),
    });
    for (let i = 0; i < 3; i++) sink.write(usageRecord());
    const started = Date.now();
    await expect(sink.flush()).resolves.toBeUndefined();
    expect(sink.stats()).toEqual({ written: 0, dropped: 0, failed: 0, queued: 3, duplicates: 0 });
    expect(errors.length).toBeGreaterThan(0);
    await expect(sink.ping()).rejects.toThrow();
    sink.write(usageRecord());
    await expect(sink.close()).resolves.toBeUndefined();
    // One failed batch at close counts everything left: no retry per batch on the way out.
    expect(sink.stats()).toEqual({ written: 0, dropped: 0, failed: 4, queued: 0, duplicates: 0 });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('writes the records it queued during an outage once the database can be reached, and only drops past maxQueue', async () => {
    const port = await freePort();
    const table = `tollgate_usage_${RUN}_${++n}`;
    tables.push(table);
    const sink = createPostgresSink({
      connectionString: postgres.url.replace(/:\d+\//, `:${port}/`),
      table,
      maxQueue: 4,
      flushIntervalMs: 200,
      onError: () => {},
    });
    const records = Array.from({ length: 5 }, () => usageRecord());
    for (const r of records) sink.write(r);
    await sink.flush();
    expect(sink.stats()).toMatchObject({ written: 0, dropped: 1, failed: 0, queued: 4 });
    // The database comes back on the port the sink was given.
    const target = new URL(postgres.url);
    const proxy = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
    try {
      for (let i = 0; i < 100 && sink.stats().written < 4; i++) await sleep(100);
      await expect(sink.ping()).resolves.toBeUndefined();
      expect(sink.stats()).toMatchObject({ written: 4, dropped: 1, failed: 0, queued: 0 });
      expect((await rows(table)).map((r) => r.request_id).sort()).toEqual(
        records
          .slice(0, 4)
          .map((r) => r.request_id)
          .sort(),
      );
      await sink.close();
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it('a bad row fails alone: the rest of its batch is written', async () => {
    const errors: unknown[] = [];
    const { table, sink } = makeSink({ onError: (e) => errors.push(e) });
    const good = [usageRecord(), usageRecord(), usageRecord()];
    sink.write(good[0]!);
    sink.write(usageRecord({ reason: 'nul \u0000 byte' })); // jsonb refuses \u0000
    sink.write(good[1]!);
    sink.write(good[2]!);
    await sink.close();
    expect((await rows(table)).map((r) => r.request_id).sort()).toEqual(good.map((r) => r.request_id).sort());
    expect(sink.stats()).toMatchObject({ written: 3, failed: 1 });
    expect(errors).toHaveLength(1);
  });

  it('takes a schema-qualified table and an existing pool, which it leaves open', async () => {
    const schema = `tg_${RUN}`;
    schemas.push(schema);
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
    const sink = createPostgresSink({ pool, table: `${schema}.usage` });
    sink.write(usageRecord());
    await sink.close();
    expect(await rows(`"${schema}"."usage"`)).toHaveLength(1);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it('refuses a table name that is not an identifier, and a flush interval over one second', () => {
    expect(() => createPostgresSink({ connectionString: postgres.url, table: 'usage; DROP TABLE x' })).toThrow(RangeError);
    expect(() => createPostgresSink({ connectionString: postgres.url, flushIntervalMs: 2000 })).toThrow(RangeError);
  });
});
