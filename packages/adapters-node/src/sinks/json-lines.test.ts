import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { UsageRecord } from '@tollgate/core';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { usageRecord } from '../testing/records.js';
import { createJsonLinesSink } from './json-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-jsonl-'));
let n = 0;
const file = (): string => join(dir, `usage-${++n}.jsonl`);
const lines = (path: string): UsageRecord[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as UsageRecord);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

describe('createJsonLinesSink', () => {
  it('appends one JSON line per record to a file, and flushes on close', async () => {
    const path = file();
    writeFileSync(path, `${JSON.stringify(usageRecord({ request_id: 'earlier' }))}\n`);
    const sink = createJsonLinesSink({ path });
    const records = [usageRecord(), usageRecord({ status: 'rejected', reason: 'spend_limit:cap' }), usageRecord()];
    for (const r of records) sink.write(r);
    expect(lines(path)).toHaveLength(1); // buffered: nothing written yet
    await sink.close();
    const written = lines(path);
    expect(written.map((r) => r.request_id)).toEqual(['earlier', ...records.map((r) => r.request_id)]);
    expect(written.slice(1)).toEqual(records);
    expect(sink.stats()).toEqual({ written: 3, dropped: 0, failed: 0, queued: 0 });
  });

  it('writes text outside ASCII byte for byte, across batches of one and of many records', async () => {
    const path = file();
    const sink = createJsonLinesSink({ path }, { batchSize: 2 });
    // Latin-1, a character beyond it, and one beyond the BMP (a surrogate pair in a JS string).
    // A record past Buffer's pool size (8 KiB) is encoded alike.
    const records = [
      usageRecord({ request_id: 'zoë — 東京 🚀' }),
      usageRecord({ request_id: 'ascii' }),
      usageRecord({ request_id: 'µ' }),
      usageRecord({ request_id: '東'.repeat(5000) }),
    ];
    for (const r of records) sink.write(r);
    await sink.close();
    expect(readFileSync(path, 'utf8')).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(sink.stats()).toEqual({ written: 4, dropped: 0, failed: 0, queued: 0 });
  });

  it('flushes by itself at least every flushIntervalMs, and on flush()', async () => {
    const path = file();
    const sink = createJsonLinesSink({ path }, { flushIntervalMs: 100 });
    sink.write(usageRecord());
    expect(existsSync(path)).toBe(false);
    await sleep(300);
    expect(lines(path)).toHaveLength(1);
    sink.write(usageRecord());
    await sink.flush();
    expect(lines(path)).toHaveLength(2);
    await sink.close();
  });

  it('the default interval is one second', async () => {
    const path = file();
    const sink = createJsonLinesSink({ path });
    sink.write(usageRecord());
    await sleep(1300);
    expect(lines(path)).toHaveLength(1);
    await sink.close();
  });

  it('writes a full batch at once', async () => {
    const path = file();
    const sink = createJsonLinesSink({ path }, { batchSize: 5 });
    for (let i = 0; i < 5; i++) sink.write(usageRecord());
    await sleep(100);
    expect(lines(path)).toHaveLength(5);
    await sink.close();
  });

  it('drops and counts records when the buffer is full, after close, or unserializable; never throws', async () => {
    const path = file();
    const sink = createJsonLinesSink({ path }, { maxQueue: 3 });
    for (let i = 0; i < 5; i++) sink.write(usageRecord());
    expect(sink.stats()).toEqual({ written: 0, dropped: 2, failed: 0, queued: 3 });
    sink.write({ ...usageRecord(), attempts: 1n } as unknown as UsageRecord);
    expect(sink.stats().dropped).toBe(3);
    await sink.close();
    sink.write(usageRecord());
    expect(sink.stats()).toEqual({ written: 3, dropped: 4, failed: 0, queued: 0 });
    expect(lines(path)).toHaveLength(3);
  });

  it('writes to a stream, one line per record, and leaves the stream open', async () => {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    const sink = createJsonLinesSink(stream);
    const records = [usageRecord(), usageRecord()];
    for (const r of records) sink.write(r);
    await sink.flush();
    await sink.close();
    const text = Buffer.concat(chunks).toString();
    expect(text.endsWith('\n')).toBe(true);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(records);
    expect(stream.writableEnded).toBe(false);
  });

  it('hands a caller’s object-mode stream each batch as text', async () => {
    const chunks: unknown[] = [];
    const stream = new Writable({
      objectMode: true,
      write: (chunk: unknown, _enc, cb) => {
        chunks.push(chunk);
        cb();
      },
    });
    const sink = createJsonLinesSink(stream, { batchSize: 2 });
    const records = [usageRecord({ request_id: 'é-1' }), usageRecord(), usageRecord()];
    for (const r of records) sink.write(r);
    await sink.close();
    expect(chunks.every((c) => typeof c === 'string')).toBe(true);
    expect((chunks as string[]).join('')).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('writes to stdout', async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string, cb?: (e?: Error | null) => void) => {
      out.push(String(chunk));
      cb?.();
      return true;
    }) as typeof process.stdout.write);
    const sink = createJsonLinesSink('stdout');
    const record = usageRecord();
    sink.write(record);
    await sink.close();
    expect(out.join('')).toBe(`${JSON.stringify(record)}\n`);
  });

  it('counts a failing target as failed and reports it, without throwing', async () => {
    const errors: unknown[] = [];
    const broken = new Writable({ write: (_chunk, _enc, cb) => cb(new Error('disk full')) });
    const sink = createJsonLinesSink(broken, { onError: (e) => errors.push(e) });
    sink.write(usageRecord());
    sink.write(usageRecord());
    await sink.flush();
    expect(sink.stats()).toMatchObject({ written: 0, failed: 2, queued: 0 });
    expect(errors.some((e) => e instanceof Error && e.message === 'disk full')).toBe(true);

    const missing = createJsonLinesSink({ path: join(dir, 'no-such-dir', 'usage.jsonl') }, { onError: () => {} });
    missing.write(usageRecord());
    await missing.close();
    expect(missing.stats()).toMatchObject({ written: 0, failed: 1 });
  });

  it('a stuck stream fails the write after writeTimeoutMs instead of hanging close()', async () => {
    const stuck = new Writable({ highWaterMark: 1, write: () => {} });
    const sink = createJsonLinesSink(stuck, { writeTimeoutMs: 100, onError: () => {} });
    sink.write(usageRecord());
    await sink.close();
    expect(sink.stats()).toMatchObject({ written: 0, failed: 1 });
  });

  it('rejects a flush interval over one second', () => {
    expect(() => createJsonLinesSink({ path: file() }, { flushIntervalMs: 5000 })).toThrow(RangeError);
  });
});
