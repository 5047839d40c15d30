/**
 * The `tollgate` command line: `serve`, `validate`, `key create`. Exit codes: 0 success,
 * 1 invalid configuration or a failure to start, 2 a usage error.
 */
import { parseArgs } from 'node:util';
import { GatewayConfigError } from '@tollgate/core';
import { createKeyEntry, renderKey } from './key.js';
import { identitySummary } from './config.js';
import { formatViolations, loadService } from './load.js';
import { startService, type RunningService } from './service.js';
import { explainCommand, reportCommand, whatIfCommand } from './money.js';
import { isServeWorker, runPrimary, runWorker, WORKER_CONFIG_EXIT } from './workers.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

export const USAGE = `Usage: tollgate <command> [options]

Commands:
  serve    --config FILE [--workers N]
                             Run the gateway as a service (default FILE: ./tollgate.yaml); with
                             N > 1, N worker processes share the listener and one store
  validate --config FILE     Check the config, registry, policy and identity; exit 1 listing every violation
  key create --user NAME [--tier TIER] [--bu BU] [--leaders a,b] [--json]
                             Print a new virtual key (once) and its config entry
  report   --usage SRC [--since ISO] [--until ISO] [--by user,model,bu,team,day] [--format table|csv|json]
                             Spend, requests and tokens from usage records, grouped
  what-if  --policy FILE --registry FILE --usage SRC [--since ISO] [--until ISO] [--format table|csv|json]
                             Replay recorded requests through a candidate policy; list what it decides otherwise
  explain  --usage SRC [--policy FILE] [--registry FILE] [--format text|json] REQUEST_ID
                             The decision of one recorded request: rules, windows, counters, thresholds

  SRC is file:PATH (JSON lines, as the file: and stdout sinks write) or a postgres:// URL
  (table tollgate_usage, or --table NAME).

Options:
  -h, --help                 Show this help
`;

export class UsageError extends Error {}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;
export type Values = Record<string, string | boolean | undefined>;

function parse(args: string[], options: OptionSpec): Values {
  return parseWith(args, options, false).values;
}

export function parseWith(args: string[], options: OptionSpec, allowPositionals: boolean): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
    return { values: values as Values, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function validate(args: string[], io: CliIo): Promise<number> {
  const values = parse(args, { config: { type: 'string', short: 'c' } });
  if (values.help === true) return help(io);
  const file = (values.config as string | undefined) ?? 'tollgate.yaml';
  const result = await loadService(file);
  if (!result.ok) {
    io.err(`${file}: invalid — ${result.errors.length} violation${result.errors.length === 1 ? '' : 's'}:\n${formatViolations(result.errors)}\n`);
    return 1;
  }
  const { registry, config, policyFile } = result.service;
  io.out(
    `${file}: valid — ${Object.keys(registry.models).length} models, ${Object.keys(registry.deployments).length} deployments, ` +
      `${policyFile === null ? 'no policy' : 'policy ok'}, ${identitySummary(config.identity)}; ` +
      `registry ${registry.revision}\n`,
  );
  return 0;
}

/** Handles SIGTERM/SIGINT (the first drains and exits 0, a second exits at once) and SIGHUP (reload). */
export type SignalHook = (service: RunningService) => void;

function installSignals(service: RunningService, io: CliIo): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      io.err(`tollgate: ${signal} again — exiting without draining\n`);
      process.exit(1);
    }
    signalled = true;
    io.err(`tollgate: ${signal} received\n`);
    service.shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        io.err(`tollgate: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // SIGHUP: read the config, registry and policy files again (registry, policy and identity are
  // swapped in); a bad edit is reported and changes nothing.
  process.on('SIGHUP', () => {
    io.err('tollgate: SIGHUP received — reloading the registry, policy and identity\n');
    service.reload().catch((error: unknown) => io.err(`tollgate: reload failed: ${error instanceof Error ? error.message : String(error)}\n`));
  });
}

/** The most worker processes `serve --workers` starts. */
const MAX_WORKERS = 256;

async function serve(args: string[], io: CliIo): Promise<number | null> {
  const values = parse(args, { config: { type: 'string', short: 'c' }, workers: { type: 'string', short: 'w' } });
  if (values.help === true) return help(io);
  const file = (values.config as string | undefined) ?? 'tollgate.yaml';
  const workersText = (values.workers as string | undefined) ?? '1';
  const workers = /^\d+$/.test(workersText) ? Number(workersText) : Number.NaN;
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > MAX_WORKERS) throw new UsageError(`serve: --workers must be a whole number from 1 to ${MAX_WORKERS}, got "${workersText}"`);
  const result = await loadService(file);
  if (isServeWorker()) {
    // A worker of `--workers N`: the primary checked everything and reports for all.
    if (!result.ok) {
      io.err(`tollgate: refusing to start — ${file} has ${result.errors.length} violation${result.errors.length === 1 ? '' : 's'}:\n${formatViolations(result.errors)}\n`);
      return 1;
    }
    try {
      await runWorker(result.service, io.err);
    } catch (error) {
      if (error instanceof GatewayConfigError) {
        // Another worker would refuse it alike: the primary stops the service.
        io.err(`tollgate: refusing to start — invalid ${error.source}:\n${formatViolations(error.errors.map((e) => ({ file, path: e.path, message: e.message })))}\n`);
        process.exit(WORKER_CONFIG_EXIT);
      }
      // The primary sees the exit and starts another (or stops after a crash loop).
      io.err(`tollgate: worker cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    return null;
  }
  if (!result.ok) {
    io.err(`tollgate: refusing to start — ${file} has ${result.errors.length} violation${result.errors.length === 1 ? '' : 's'}:\n${formatViolations(result.errors)}\n`);
    return 1;
  }
  const { config, registry } = result.service;
  const missing = [...new Set(Object.values(registry.credentials).map((c) => c.secret))].filter((name) => (process.env[name] ?? '') === '');
  if (missing.length > 0) io.err(`tollgate: warning — secrets not set in the environment: ${missing.join(', ')} (calls needing them will fail)\n`);
  if (config.identity === undefined) io.err('tollgate: warning — no identity configured: every request will be refused (401)\n');
  if (workers > 1) {
    // Each worker counts apart, and one listener would answer scrapes from a different worker
    // each time: refused rather than served wrong. OTLP export works per worker.
    if (config.telemetry?.prometheus !== undefined) {
      io.err(`tollgate: refusing to start — --workers ${workers} with telemetry.prometheus: each worker keeps its own metrics and one /metrics listener cannot serve them together; use telemetry.otlp (each worker exports under its own service.instance.id) or one worker\n`);
      return 1;
    }
    return runPrimary(result.service, workers, io);
  }
  let service: RunningService;
  try {
    service = await startService(result.service, { log: (line) => io.err(`${line}\n`) });
  } catch (error) {
    if (error instanceof GatewayConfigError) {
      io.err(`tollgate: refusing to start — invalid ${error.source}:\n${formatViolations(error.errors.map((e) => ({ file, path: e.path, message: e.message })))}\n`);
    } else {
      io.err(`tollgate: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    return 1;
  }
  installSignals(service, io);
  return null; // keeps running until a signal
}

async function key(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '-h' || sub === '--help') return help(io);
  if (sub !== 'create') throw new UsageError(sub === undefined ? 'key: missing subcommand (create)' : `key: unknown subcommand "${sub}"`);
  const values = parse(rest, {
    user: { type: 'string' },
    tier: { type: 'string' },
    bu: { type: 'string' },
    leaders: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help === true) return help(io);
  const user = values.user as string | undefined;
  if (user === undefined || user.trim() === '') throw new UsageError('key create: --user NAME is required');
  const leaders = values.leaders === undefined ? undefined : (values.leaders as string).split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const [name, value] of [['user', user], ['tier', values.tier], ['bu', values.bu]] as const) {
    if (typeof value === 'string' && (value === '' || value.length > 256)) throw new UsageError(`key create: --${name} must be 1 to 256 characters`);
  }
  const created = await createKeyEntry({
    user,
    ...(values.tier === undefined ? {} : { tier: values.tier as string }),
    ...(values.bu === undefined ? {} : { bu: values.bu as string }),
    ...(leaders === undefined ? {} : { leaders }),
  });
  if (values.json === true) io.out(`${JSON.stringify({ key: created.key, hash: created.hash, principal: created.principal })}\n`);
  else io.out(renderKey(created));
  return 0;
}

function help(io: CliIo): number {
  io.out(USAGE);
  return 0;
}

/**
 * Run the CLI. Resolves with an exit code, or `null` when a server keeps running (it exits
 * by itself on SIGTERM/SIGINT).
 */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number | null> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(args, io);
      case 'validate':
        return await validate(args, io);
      case 'key':
        return await key(args, io);
      case 'report':
        return await reportCommand(args, io);
      case 'what-if':
        return await whatIfCommand(args, io);
      case 'explain':
        return await explainCommand(args, io);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        return help(io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`tollgate: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    io.err(`tollgate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
