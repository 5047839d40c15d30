/**
 * A small closed-loop HTTP/1.1 load generator for the serve benchmark: `connections` workers,
 * each with its own keep-alive socket, send the next request as soon as the previous answer has
 * been read to its end. Bounded twice: by time (warm-up + measured window) and by a request
 * count. Every answer is checked (status 200 and an expected substring), so a peer that fails
 * shows up as errors, never as fast responses.
 */
import { Agent, request } from 'node:http';

export interface Shot {
  /** Where to send it: 127.0.0.1 and a port (loopback only). */
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Substrings every successful answer contains (e.g. the text the mock upstream replays). */
  expect: string[];
}

export interface LoadOptions {
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Hard bound on requests sent in the whole case (warm-up included). */
  maxRequests?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
}

export interface LoadResult {
  connections: number;
  /** Answers completed (successfully) inside the measured window, per second. */
  rps: number;
  /** Successful requests started inside the measured window. */
  n: number;
  errors: number;
  firstError?: string;
  /** Every answer of the case, warm-up included (for CPU time per request). */
  completed: number;
  /** Latency to the last byte, ms. */
  p50: number;
  p99: number;
  /** Time to the first body byte, ms. */
  ttfbP50: number;
  ttfbP99: number;
  /** Measured time, ms, and the raw samples (to pool several rounds with `pool`). */
  windowMs: number;
  completedInWindow: number;
  latencies: number[];
  ttfbs: number[];
}

interface One {
  ok: boolean;
  start: number;
  end: number;
  ttfb: number;
  error?: string;
}

function once(agent: Agent, shot: Shot, body: Buffer, timeoutMs: number): Promise<One> {
  return new Promise((resolve) => {
    const start = performance.now();
    let ttfb = -1;
    let settled = false;
    const done = (one: Omit<One, 'start' | 'end'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...one, start, end: performance.now() });
    };
    const req = request(
      {
        host: '127.0.0.1',
        port: shot.port,
        method: 'POST',
        path: shot.path,
        headers: { ...shot.headers, 'content-length': String(body.length) },
        agent,
        timeout: timeoutMs,
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          if (ttfb < 0) ttfb = performance.now() - start;
          text += chunk;
        });
        res.on('end', () => {
          if (res.statusCode !== 200) done({ ok: false, ttfb, error: `HTTP ${res.statusCode}: ${text.slice(0, 300)}` });
          else if (!shot.expect.every((e) => text.includes(e))) done({ ok: false, ttfb, error: `unexpected answer: ${text.slice(0, 300)}` });
          else done({ ok: true, ttfb });
        });
        res.on('error', (error) => done({ ok: false, ttfb, error: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => done({ ok: false, ttfb, error: error.message }));
    req.end(body);
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One request, for a sanity check before loading a peer; resolves with its error, if any. */
export async function probe(shot: Shot, timeoutMs = 10_000): Promise<string | undefined> {
  const agent = new Agent({ keepAlive: false });
  try {
    return (await once(agent, shot, Buffer.from(shot.body), timeoutMs)).error;
  } finally {
    agent.destroy();
  }
}

export async function closedLoop(shot: Shot, options: LoadOptions): Promise<LoadResult> {
  const { connections, warmupMs, durationMs } = options;
  const maxRequests = options.maxRequests ?? 500_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, scheduling: 'fifo' });
  const body = Buffer.from(shot.body);
  const begin = performance.now();
  const windowStart = begin + warmupMs;
  const windowEnd = windowStart + durationMs;
  let sent = 0;
  let errors = 0;
  let firstError: string | undefined;
  let completedInWindow = 0;
  let completed = 0;
  const latencies: number[] = [];
  const ttfbs: number[] = [];

  async function worker(): Promise<void> {
    while (performance.now() < windowEnd && sent < maxRequests) {
      sent++;
      const one = await once(agent, shot, body, timeoutMs);
      if (!one.ok) {
        if (one.start >= windowStart) errors++;
        firstError ??= one.error;
        // A peer that fails fast must not turn the loop into a spin.
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      completed++;
      if (one.end >= windowStart && one.end <= windowEnd) completedInWindow++;
      if (one.start >= windowStart && one.end <= windowEnd) {
        latencies.push(one.end - one.start);
        ttfbs.push(one.ttfb);
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return summarize(connections, durationMs, completedInWindow, completed, errors, firstError, latencies, ttfbs);
}

function summarize(
  connections: number,
  windowMs: number,
  completedInWindow: number,
  completed: number,
  errors: number,
  firstError: string | undefined,
  latencies: number[],
  ttfbs: number[],
): LoadResult {
  const lat = Float64Array.from(latencies).sort();
  const tt = Float64Array.from(ttfbs).sort();
  return {
    connections,
    rps: completedInWindow / (windowMs / 1000),
    n: lat.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    completed,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    ttfbP50: percentile(tt, 50),
    ttfbP99: percentile(tt, 99),
    windowMs,
    completedInWindow,
    latencies,
    ttfbs,
  };
}

/** Several rounds of the same case as one result: throughput over the summed windows, percentiles over every sample. */
export function pool(results: LoadResult[]): LoadResult {
  const first = results.find((r) => r.firstError !== undefined)?.firstError;
  return summarize(
    results[0]?.connections ?? 0,
    results.reduce((a, r) => a + r.windowMs, 0),
    results.reduce((a, r) => a + r.completedInWindow, 0),
    results.reduce((a, r) => a + r.completed, 0),
    results.reduce((a, r) => a + r.errors, 0),
    first,
    results.flatMap((r) => r.latencies),
    results.flatMap((r) => r.ttfbs),
  );
}
