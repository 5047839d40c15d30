/**
 * Turn a loaded service config into gateway options: the state store and the usage sink.
 * Redis and Postgres are imported only when the config names them, so a memory/stdout
 * service needs neither ioredis nor pg installed.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryStore, type StateStore, type UsageSink } from '@tollgate/core';
import type { ServiceConfig } from './config.js';
import type { NodeUpstreamOptions } from '../http/upstream.js';
import type { Dependency } from './readiness.js';

export interface ServiceParts {
  store: StateStore;
  usage: UsageSink | undefined;
  /** Human-readable, for the start-up line. */
  describe: { store: string; usage: string };
  /** The backends readiness checks: Redis and Postgres (memory, stdout and files need none). */
  dependencies: Dependency[];
}

/** Where connection errors of the store and the sink are logged (once per outage). */
export type PartsLog = (line: string) => void;

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(url)';
  }
}

/** `file:./usage.jsonl` (relative to the config's folder), `file:/abs/path` or `file:///abs/path`. */
export function usageFilePath(spec: string, dir: string): string {
  if (spec.startsWith('file://')) return fileURLToPath(spec);
  const path = spec.slice('file:'.length);
  return isAbsolute(path) ? path : resolve(dir, path);
}

export async function buildStore(store: ServiceConfig['store']): Promise<{ store: StateStore; describe: string; dependency?: Dependency }> {
  if (store === 'memory') return { store: createMemoryStore(), describe: 'memory' };
  const spec = typeof store === 'string' ? { url: store } : store;
  const { createRedisStore } = await import('../redis.js');
  // Outages are reported by the readiness checks (they say what it means for traffic).
  const redis = createRedisStore({ url: spec.url, onError: () => {}, ...(spec.key_prefix === undefined ? {} : { keyPrefix: spec.key_prefix }) });
  const target = redactUrl(spec.url);
  return {
    store: redis,
    describe: `redis ${target}`,
    dependency: {
      name: 'store',
      target,
      ping: () => redis.ping(),
      whileDown: 'requests under a spend cap, or a rate limit with on_store_error: closed, are refused (503)',
    },
  };
}

/** `stdout`: where `usage: stdout` goes (a worker of `serve --workers` writes through the primary). */
export async function buildUsage(
  usage: ServiceConfig['usage'],
  dir: string,
  log: PartsLog = () => {},
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<{ usage: UsageSink | undefined; describe: string; dependency?: Dependency }> {
  if (usage === 'none') return { usage: undefined, describe: 'none' };
  if (usage === 'stdout' || usage.startsWith('file:')) {
    const { createJsonLinesSink } = await import('../sinks/json-lines.js');
    if (usage === 'stdout') return { usage: createJsonLinesSink(stdout === process.stdout ? 'stdout' : stdout), describe: 'JSON lines on stdout' };
    const path = usageFilePath(usage, dir);
    return { usage: createJsonLinesSink({ path }), describe: `JSON lines in ${path}` };
  }
  const { createPostgresSink } = await import('../postgres.js');
  const target = redactUrl(usage);
  let warned = false;
  const sink = createPostgresSink({
    connectionString: usage,
    onError: (error) => {
      // Unreachable is reported by the readiness checks; a row the database refuses is logged here.
      const text = error instanceof Error ? error.message : String(error);
      if (!warned) log(`tollgate: usage sink ${target}: ${text}`);
      warned = true;
    },
  });
  return {
    usage: sink,
    describe: `postgres ${target}`,
    dependency: {
      name: 'usage',
      target,
      ping: async () => {
        await sink.ping();
        warned = false;
      },
      whileDown: `usage records are queued in memory (up to ${sink.maxQueue}) and written once it can be reached; past that, new records are dropped and counted`,
      detail: () => {
        const { queued, dropped, failed } = sink.stats();
        return { queued, dropped, failed };
      },
    },
  };
}

/** Parts made elsewhere (a worker of `serve --workers` gets its store from the primary), and where stdout is. */
export interface PartOverrides {
  store?: { store: StateStore; describe: string };
  stdout?: NodeJS.WritableStream;
}

export async function buildParts(config: ServiceConfig, dir: string, log: PartsLog = () => {}, overrides: PartOverrides = {}): Promise<ServiceParts> {
  const store: { store: StateStore; describe: string; dependency?: Dependency } = overrides.store ?? (await buildStore(config.store));
  try {
    const usage = await buildUsage(config.usage, dir, log, overrides.stdout);
    const dependencies = [store.dependency, usage.dependency].filter((d): d is Dependency => d !== undefined);
    return { store: store.store, usage: usage.usage, describe: { store: store.describe, usage: usage.describe }, dependencies };
  } catch (error) {
    await store.store.close().catch(() => {});
    throw error;
  }
}

/** The upstream transport's options from the config's `upstream:` section (seconds → ms). */
export function upstreamOptions(upstream: ServiceConfig['upstream'], ca: string | undefined): NodeUpstreamOptions {
  return {
    connectTimeoutMs: upstream.connect_timeout_s * 1000,
    headersTimeoutMs: upstream.headers_timeout_s * 1000,
    bodyIdleTimeoutMs: upstream.idle_timeout_s * 1000,
    attemptTimeoutMs: upstream.attempt_timeout_s * 1000,
    http2: upstream.http2,
    ...(upstream.max_connections_per_origin === undefined ? {} : { maxSocketsPerOrigin: upstream.max_connections_per_origin }),
    ...(ca === undefined ? {} : { ca }),
  };
}
