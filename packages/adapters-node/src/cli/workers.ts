/**
 * `tollgate serve --workers N`: N worker processes (node:cluster) sharing one listener, each with
 * its own gateway over one shared store — the config's Redis, or, for `store: memory`, a memory
 * store the primary process holds and the workers reach over IPC (`shared-store.ts`), so spend
 * caps and rate limits hold across workers. Usage records on stdout go through the primary, so
 * lines from several workers never interleave; files and Postgres take each worker's writes.
 *
 * The primary starts the workers and reports once all listen; on SIGTERM/SIGINT it tells every
 * worker to drain (stop accepting, let open streams finish up to `drain_timeout_s`, flush usage),
 * waits for them, then closes the shared store and exits; SIGHUP makes every worker reload. A
 * worker that dies is replaced (a crash loop stops the service).
 */
import cluster, { type Worker } from 'node:cluster';
import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { createMemoryStore, type StateStore } from '@tollgate/core';
import type { ServiceConfig } from './config.js';
import type { LoadedService } from './load.js';
import { startService, type RunningService } from './service.js';
import { createChannelStore, serveStore, type Channel } from './shared-store.js';

/** Messages between the primary and a worker, besides the store's. */
type Control =
  | { t: 'tg-listening'; url: string; line: string }
  | { t: 'tg-usage'; d: string }
  | { t: 'tg-stopped'; requests: number; written: number; failed: number }
  | { t: 'tg-shutdown' }
  | { t: 'tg-reload' };

const isControl = (m: unknown): m is Control =>
  typeof m === 'object' && m !== null && typeof (m as Control).t === 'string' && (m as Control).t.startsWith('tg-');

export const WORKER_ENV = 'TOLLGATE_WORKER_ID';
/** How many workers the primary runs (each worker's share of per-service limits). */
const WORKER_COUNT_ENV = 'TOLLGATE_WORKER_COUNT';
/** A worker's exit code when the gateway refused the configuration (EX_CONFIG): no restart. */
export const WORKER_CONFIG_EXIT = 78;

/**
 * One worker's part of the service config: `upstream.max_connections_per_origin` bounds the
 * service, so each of `count` workers opens at most its share (the primary refuses fewer
 * connections than workers).
 */
export function workerShare(config: ServiceConfig, count: number): ServiceConfig {
  const limit = config.upstream.max_connections_per_origin;
  if (limit === undefined || !(count > 1)) return config;
  return { ...config, upstream: { ...config.upstream, max_connections_per_origin: Math.max(1, Math.floor(limit / count)) } };
}

/** Whether this process is a worker of `serve --workers`. */
export function isServeWorker(): boolean {
  return cluster.isWorker && process.env[WORKER_ENV] !== undefined;
}

function workerChannel(worker: Worker): Channel {
  return {
    send: (message) => {
      // A worker that just died cannot take its answer: nothing to do.
      if (worker.isConnected()) worker.send(message as Parameters<Worker['send']>[0]);
    },
    onMessage(listener) {
      worker.on('message', listener);
      return () => void worker.off('message', listener);
    },
    onClose(listener) {
      worker.on('disconnect', listener);
      return () => void worker.off('disconnect', listener);
    },
  };
}

function primaryChannel(): Channel {
  return {
    send: (message) => void process.send!(message as Parameters<NonNullable<typeof process.send>>[0]),
    onMessage(listener) {
      process.on('message', listener);
      return () => void process.off('message', listener);
    },
    onClose(listener) {
      process.on('disconnect', listener);
      return () => void process.off('disconnect', listener);
    },
  };
}

export interface PrimaryIo {
  err: (text: string) => void;
  out: (text: string) => void;
}

/** Restarts tolerated within `CRASH_WINDOW_MS` before the service gives up. */
const MAX_RESTARTS = 5;
const CRASH_WINDOW_MS = 30_000;

/**
 * Run the primary: fork `count` workers (running this same command line), share the store,
 * relay stdout usage, report, and drain them all on SIGTERM. Resolves when the service stopped:
 * 0 after a clean drain, 1 when workers could not be kept running.
 */
export function runPrimary(service: LoadedService, count: number, io: PrimaryIo): Promise<number> {
  const config = service.config;
  const shared: StateStore | null = config.store === 'memory' ? createMemoryStore() : null;
  const workers = new Map<Worker, { id: number; listening: boolean }>();
  const totals = { requests: 0, written: 0, failed: 0 };
  let stopping = false;
  let announced = false;
  const restarts: number[] = [];
  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));

  const fork = (id: number) => {
    const worker = cluster.fork({ [WORKER_ENV]: String(id), [WORKER_COUNT_ENV]: String(count) });
    workers.set(worker, { id, listening: false });
    if (shared !== null) serveStore(shared, workerChannel(worker));
    worker.on('message', (message: unknown) => {
      if (!isControl(message)) return;
      const state = workers.get(worker);
      switch (message.t) {
        case 'tg-usage':
          process.stdout.write(message.d);
          return;
        case 'tg-listening':
          if (state !== undefined) state.listening = true;
          if (!announced && [...workers.values()].every((w) => w.listening)) {
            announced = true;
            io.err(`${message.line.replace(/ — /, ` — ${count} workers, `)}\n`);
          }
          return;
        case 'tg-stopped':
          totals.requests += message.requests;
          totals.written += message.written;
          totals.failed += message.failed;
          return;
        default:
          return;
      }
    });
    worker.on('exit', (code, signal) => {
      workers.delete(worker);
      if (stopping) {
        if (workers.size === 0) void stopped();
        return;
      }
      if (code === WORKER_CONFIG_EXIT) {
        io.err(`tollgate: worker ${id} refused the configuration — stopping\n`);
        void stop(1);
        return;
      }
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - CRASH_WINDOW_MS) restarts.shift();
      io.err(`tollgate: worker ${id} exited (${signal ?? `code ${code}`})${restarts.length > MAX_RESTARTS ? '' : ' — starting another'}\n`);
      if (restarts.length > MAX_RESTARTS) {
        io.err(`tollgate: ${restarts.length} worker exits within ${CRASH_WINDOW_MS / 1000} s — stopping\n`);
        void stop(1);
        return;
      }
      fork(id);
    });
  };

  let exitCode = 0;
  const stopped = async () => {
    await shared?.close().catch(() => {});
    io.err(`tollgate: stopped — ${totals.requests} requests, ${totals.written} usage records written, ${totals.failed} lost (${count} workers)\n`);
    finish(exitCode);
  };

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    io.err(`tollgate: draining ${workers.size} worker(s), waiting up to ${config.drain_timeout_s} s\n`);
    for (const worker of workers.keys()) worker.send({ t: 'tg-shutdown' } satisfies Control);
    if (workers.size === 0) return stopped();
    // A worker that does not finish draining in time (plus the time to flush and close) is killed.
    const timer = setTimeout(
      () => {
        for (const worker of workers.keys()) worker.process.kill('SIGKILL');
      },
      config.drain_timeout_s * 1000 + 10_000,
    );
    timer.unref();
  };

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      io.err(`tollgate: ${signal} again — exiting without draining\n`);
      for (const worker of workers.keys()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    signalled = true;
    io.err(`tollgate: ${signal} received\n`);
    void stop(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => {
    io.err('tollgate: SIGHUP received — every worker reloads the registry, policy and identity\n');
    for (const worker of workers.keys()) worker.send({ t: 'tg-reload' } satisfies Control);
  });

  for (let id = 1; id <= count; id++) fork(id);
  return done;
}

/** A worker's stdout (usage records, access log): each batch goes to the primary, which writes it whole. */
function stdoutThroughPrimary(): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      process.send!({ t: 'tg-usage', d: chunk.toString() } satisfies Control, undefined, {}, (error) => callback(error ?? null));
    },
  });
}

/**
 * Run one worker: the service with its share of the primary's store (and stdout), reporting to
 * the primary, draining when told (or on its own SIGTERM) and when the primary goes away.
 */
export async function runWorker(service: LoadedService, err: (text: string) => void, listen: { host?: string; port?: number } = {}): Promise<void> {
  const id = process.env[WORKER_ENV]!;
  const channel = primaryChannel();
  // Each worker exports its own telemetry (OTLP): it is told apart by its instance id.
  const instance = `service.instance.id=${hostname()}-${process.pid}`;
  process.env.OTEL_RESOURCE_ATTRIBUTES = process.env.OTEL_RESOURCE_ATTRIBUTES ? `${process.env.OTEL_RESOURCE_ATTRIBUTES},${instance}` : instance;
  const config = workerShare(service.config, Number(process.env[WORKER_COUNT_ENV] ?? 1));
  const prefix = (line: string) => line.replace(/^tollgate:/, `tollgate[worker ${id}]:`);
  let listeningLine = '';
  const running: RunningService = await startService(
    { ...service, config },
    {
      ...listen,
      log: (line) => {
        // The primary says "listening" once, for all workers.
        if (line.startsWith('tollgate: listening on')) listeningLine = line;
        else err(`${prefix(line)}\n`);
      },
      parts: {
        ...(config.store === 'memory'
          ? { store: { store: createChannelStore(channel), describe: 'memory (shared by the workers, held by the primary)' } }
          : {}),
        stdout: stdoutThroughPrimary(),
      },
    },
  );
  channel.send({ t: 'tg-listening', url: running.url, line: listeningLine } satisfies Control);

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= running
      .shutdown()
      .then(() => {
        const stats = running.gateway.stats();
        const report: Control = { t: 'tg-stopped', requests: stats.requests, written: stats.usageWritten, failed: stats.usageFailed };
        return new Promise<void>((resolve) => {
          if (!process.connected) return resolve();
          process.send!(report, undefined, {}, () => resolve());
        });
      })
      .finally(() => process.exit(0)));
  channel.onMessage((message) => {
    if (!isControl(message)) return;
    if (message.t === 'tg-shutdown') void stop();
    else if (message.t === 'tg-reload')
      void running.reload().catch((error: unknown) => err(`${prefix(`tollgate: reload failed: ${error instanceof Error ? error.message : String(error)}`)}\n`));
  });
  // Its own SIGTERM/SIGINT (Ctrl-C reaches the whole process group) drains it too; the primary's lead decides.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // A hangup reaches the whole group too: the primary forwards it (as `tg-reload`), once.
  process.on('SIGHUP', () => {});
  channel.onClose(() => void stop());
}
