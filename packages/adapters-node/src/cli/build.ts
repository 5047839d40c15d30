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

export interface ServiceParts {
  store: StateStore;
  usage: UsageSink | undefined;
  /** Human-readable, for the start-up line. */
  describe: { store: string; usage: string };
}

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

export async function buildStore(store: ServiceConfig['store']): Promise<{ store: StateStore; describe: string }> {
  if (store === 'memory') return { store: createMemoryStore(), describe: 'memory' };
  const spec = typeof store === 'string' ? { url: store } : store;
  const { createRedisStore } = await import('../redis.js');
  return {
    store: createRedisStore({ url: spec.url, ...(spec.key_prefix === undefined ? {} : { keyPrefix: spec.key_prefix }) }),
    describe: `redis ${redactUrl(spec.url)}`,
  };
}

/** `stdout`: where `usage: stdout` goes (a worker of `serve --workers` writes through the primary). */
export async function buildUsage(usage: ServiceConfig['usage'], dir: string, stdout: NodeJS.WritableStream = process.stdout): Promise<{ usage: UsageSink | undefined; describe: string }> {
  if (usage === 'none') return { usage: undefined, describe: 'none' };
  if (usage === 'stdout' || usage.startsWith('file:')) {
    const { createJsonLinesSink } = await import('../sinks/json-lines.js');
    if (usage === 'stdout') return { usage: createJsonLinesSink(stdout === process.stdout ? 'stdout' : stdout), describe: 'JSON lines on stdout' };
    const path = usageFilePath(usage, dir);
    return { usage: createJsonLinesSink({ path }), describe: `JSON lines in ${path}` };
  }
  const { createPostgresSink } = await import('../postgres.js');
  return { usage: createPostgresSink({ connectionString: usage }), describe: `postgres ${redactUrl(usage)}` };
}

/** Parts made elsewhere (a worker of `serve --workers` gets its store from the primary), and where stdout is. */
export interface PartOverrides {
  store?: { store: StateStore; describe: string };
  usage?: { usage: UsageSink | undefined; describe: string };
  stdout?: NodeJS.WritableStream;
}

export async function buildParts(config: ServiceConfig, dir: string, overrides: PartOverrides = {}): Promise<ServiceParts> {
  const store = overrides.store ?? (await buildStore(config.store));
  try {
    const usage = overrides.usage ?? (await buildUsage(config.usage, dir, overrides.stdout));
    return { store: store.store, usage: usage.usage, describe: { store: store.describe, usage: usage.describe } };
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
