import { appendFile } from 'node:fs/promises';
import type { UsageRecord, UsageSink } from '@tollgate/core';
import { Batcher, type SinkStats } from './batcher.js';

export type { SinkStats } from './batcher.js';

const NEWLINE = 0x0a;

export type JsonLinesTarget = 'stdout' | { path: string } | NodeJS.WritableStream;

export interface JsonLinesSinkOptions {
  /** Records held before new ones are dropped (default 10 000). */
  maxQueue?: number;
  /** Records per write (default 500). */
  batchSize?: number;
  /** Flush period in ms, at most 1000 (default 1000). */
  flushIntervalMs?: number;
  /** Give up on a stream write that has not completed after this long (default 5000 ms). */
  writeTimeoutMs?: number;
  /** Write failures (default: one console warning until a write succeeds again). */
  onError?: (error: unknown) => void;
}

export interface JsonLinesSink extends UsageSink {
  stats(): SinkStats;
}

/**
 * Usage records as JSON lines, one record per line, on stdout, appended to a file, or to any
 * writable stream. `write` never blocks nor throws: records are buffered (bounded; a full
 * buffer drops and counts) and written at least every second, on `flush()` and on `close()`.
 * Files are opened in append mode per write, so rotating them needs no signal. Streams handed
 * in are not ended on close; their errors are reported, not thrown.
 */
export function createJsonLinesSink(target: JsonLinesTarget = 'stdout', options: JsonLinesSinkOptions = {}): JsonLinesSink {
  const writeTimeoutMs = options.writeTimeoutMs ?? 5000;
  let warned = false;
  const onError =
    options.onError ??
    ((error: unknown) => {
      if (warned) return;
      warned = true;
      const message = error instanceof Error ? error.message : String(error);
      console.warn(`[tollgate] usage sink (JSON lines): ${message}; failed records are counted`);
    });

  let send: (data: Buffer) => Promise<void>;
  let detach = (): void => {};
  if (typeof target === 'object' && 'path' in target && typeof target.path === 'string') {
    const path = target.path;
    send = (data) => appendFile(path, data);
  } else {
    const stream: NodeJS.WritableStream = target === 'stdout' ? process.stdout : (target as NodeJS.WritableStream);
    // A caller's own stream gets each batch as text, as it always has (an object-mode stream
    // or one that keeps strings would not expect a Buffer); stdout takes the bytes.
    const asText = target !== 'stdout';
    // A stream error must reach the counters, never crash the process.
    stream.on('error', onError);
    detach = () => void stream.off('error', onError);
    send = (data) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`write did not complete within ${writeTimeoutMs} ms`)), writeTimeoutMs);
        timer.unref();
        try {
          stream.write(asText ? data.toString('utf8') : data, (error?: Error | null) => {
            clearTimeout(timer);
            if (error) reject(error);
            else resolve();
          });
        } catch (error) {
          clearTimeout(timer);
          reject(error);
        }
      });
  }

  // Each line waits as its UTF-8 bytes, not as a string: a queued string outlives a young-
  // generation collection or two and is copied into the old one (at 1,000 records a second and
  // ~2 KB each, megabytes the collector copies and later marks), and a batch joined into one
  // string is ~1 MB more to allocate and encode. The bytes live outside the JS heap.
  const batcher = new Batcher<Buffer>({
    maxQueue: options.maxQueue ?? 10_000,
    batchSize: options.batchSize ?? 500,
    flushIntervalMs: options.flushIntervalMs ?? 1000,
    onError,
    send: async (lines) => {
      await send(lines.length === 1 ? lines[0]! : Buffer.concat(lines));
      warned = false;
    },
  });

  return {
    write(record: UsageRecord): void {
      if (batcher.isClosed) {
        batcher.drop();
        return;
      }
      let line: Buffer;
      try {
        // Encoded straight into a buffer one byte longer: `${json}\n` would be a second string
        // of the same length, made flat (copied) before it is encoded.
        const json = String(JSON.stringify(record));
        line = Buffer.allocUnsafe(Buffer.byteLength(json, 'utf8') + 1);
        line.write(json, 0, 'utf8');
        line[line.length - 1] = NEWLINE;
      } catch {
        batcher.drop();
        return;
      }
      batcher.push(line);
    },
    flush: () => batcher.flush(),
    async close(): Promise<void> {
      await batcher.close();
      detach();
    },
    stats: () => batcher.stats(),
  };
}
