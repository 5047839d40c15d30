/**
 * The `tollgate` command line: `serve`, `validate`, `key create`, `help`, `--version`.
 * Exit codes: 0 success, 1 invalid configuration or a failure to start, 2 a usage error.
 * Reference: docs/cli.md.
 */
import { parseArgs } from 'node:util';
import { credentialSecrets, GatewayConfigError } from '@tollgate/core';
import { closestName } from '@tollgate/policy';
import { HELP, USAGE, cliVersion } from './help.js';
import { createKeyEntry, renderKey } from './key.js';
import { identitySummary, surrogateSecret } from './config.js';
import { formatViolations, loadFiles, loadService } from './load.js';
import { startService, type RunningService } from './service.js';
import { formatWarnings, policyWarningList } from './warnings.js';
import { isServeWorker, runPrimary, runWorker, WORKER_CONFIG_EXIT } from './workers.js';
import { explainCommand, reportCommand, whatIfCommand } from './money.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** A usage error (exit 2), printed with a pointer to the help of `command` (or the general help). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;
export type Values = Record<string, string | boolean | undefined>;

function parse(args: string[], options: OptionSpec, command: string): Values {
  return parseWith(args, options, false, command).values;
}

/** Parse options (and positionals when allowed); an unknown option says which one was probably meant. */
export function parseWith(args: string[], options: OptionSpec, allowPositionals: boolean, command?: string): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
    return { values: values, positionals };
  } catch (error) {
    let message = (error as Error).message;
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown !== undefined) {
      const near = closestName(unknown.replace(/^-+/, ''), [...Object.keys(options), 'help']);
      message = `${command ?? 'tollgate'}: unknown option ${unknown}${near === undefined ? '' : ` (did you mean --${near}?)`}`;
    }
    throw new UsageError(message, command);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

async function validate(args: string[], io: CliIo): Promise<number> {
  const values = parse(
    args,
    { config: { type: 'string', short: 'c' }, registry: { type: 'string', short: 'r' }, policy: { type: 'string', short: 'p' } },
    'validate',
  );
  if (values.help === true) return help(io, 'validate');
  const registryFile = values.registry as string | undefined;
  const policyFile = values.policy as string | undefined;
  if (registryFile !== undefined || policyFile !== undefined) {
    if (values.config !== undefined) throw new UsageError('validate: give --config, or --registry and/or --policy, not both', 'validate');
    return validateFiles(registryFile, policyFile, io);
  }
  const file = (values.config as string | undefined) ?? 'tollgate.yaml';
  const result = await loadService(file);
  if (!result.ok) {
    io.err(`${file}: invalid — ${plural(result.errors.length, 'violation')}:\n${formatViolations(result.errors)}\n`);
    return 1;
  }
  const { registry, config, policyFile: policyPath } = result.service;
  io.err(formatWarnings(policyWarningList(result.service.policy, policyPath ?? file, config.identity ?? null)));
  io.out(
    `${file}: valid — ${Object.keys(registry.models).length} models, ${Object.keys(registry.deployments).length} deployments, ` +
      `${policyPath === null ? 'no policy' : 'policy ok'}, ${identitySummary(config.identity)}; ` +
      `registry ${registry.revision}\n`,
  );
  return 0;
}

/** `validate --registry FILE [--policy FILE]` and `validate --policy FILE`. */
async function validateFiles(registryFile: string | undefined, policyFile: string | undefined, io: CliIo): Promise<number> {
  const result = await loadFiles({
    ...(registryFile === undefined ? {} : { registry: registryFile }),
    ...(policyFile === undefined ? {} : { policy: policyFile }),
  });
  const names = [registryFile, policyFile].filter((f) => f !== undefined).join(' and ');
  if (!result.ok) {
    io.err(`${names}: invalid — ${plural(result.errors.length, 'violation')}:\n${formatViolations(result.errors)}\n`);
    return 1;
  }
  const { registry, policy } = result;
  if (registry !== null) {
    io.out(
      `${registryFile}: valid — ${Object.keys(registry.models).length} models, ${Object.keys(registry.deployments).length} deployments; registry ${registry.revision}\n`,
    );
  }
  if (policy !== null) {
    io.err(formatWarnings(policyWarningList(policy, policyFile ?? '')));
    const counts = `${plural(policy.spend?.rules?.length ?? 0, 'spend rule')}, ${plural(policy.rate_limits?.length ?? 0, 'rate limit')}`;
    const against = registry === null ? 'scopes and models not checked (add --registry FILE to check them)' : `checked against ${registryFile}`;
    io.out(`${policyFile}: valid — ${counts}; ${against}\n`);
  }
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
  const values = parse(
    args,
    { config: { type: 'string', short: 'c' }, host: { type: 'string' }, port: { type: 'string' }, workers: { type: 'string', short: 'w' } },
    'serve',
  );
  if (values.help === true) return help(io, 'serve');
  const file = (values.config as string | undefined) ?? 'tollgate.yaml';
  const host = values.host as string | undefined;
  const port = values.port === undefined ? undefined : Number(values.port);
  if (host === '') throw new UsageError('serve: --host needs an address, e.g. 0.0.0.0', 'serve');
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new UsageError(`serve: --port must be a whole number from 0 to 65535, not "${values.port as string}"`, 'serve');
  }
  const workersText = (values.workers as string | undefined) ?? '1';
  const workers = /^\d+$/.test(workersText) ? Number(workersText) : Number.NaN;
  if (!Number.isSafeInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new UsageError(`serve: --workers must be a whole number from 1 to ${MAX_WORKERS}, not "${workersText}"`, 'serve');
  }
  const listen = { ...(host === undefined ? {} : { host }), ...(port === undefined ? {} : { port }) };
  const result = await loadService(file);
  if (isServeWorker()) {
    // A worker of `--workers N`: the primary checked everything and reports for all.
    if (!result.ok) {
      io.err(
        `tollgate: refusing to start — ${file} has ${result.errors.length} violation${result.errors.length === 1 ? '' : 's'}:\n${formatViolations(result.errors)}\n`,
      );
      return 1;
    }
    try {
      await runWorker(result.service, io.err, listen);
    } catch (error) {
      if (error instanceof GatewayConfigError) {
        // Another worker would refuse it alike: the primary stops the service.
        io.err(
          `tollgate: refusing to start — invalid ${error.source}:\n${formatViolations(error.errors.map((e) => ({ file, path: e.path, message: e.message })))}\n`,
        );
        process.exit(WORKER_CONFIG_EXIT);
      }
      // The primary sees the exit and starts another (or stops after a crash loop).
      io.err(`tollgate: worker cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
    return null;
  }
  if (!result.ok) {
    io.err(
      `tollgate: refusing to start — ${file} has ${result.errors.length} violation${result.errors.length === 1 ? '' : 's'}:\n${formatViolations(result.errors)}\n`,
    );
    return 1;
  }
  const { config, registry } = result.service;
  const missing = [...new Set(Object.values(registry.credentials).flatMap((c) => credentialSecrets(c)))].filter((name) => (process.env[name] ?? '') === '');
  if (missing.length > 0) io.err(`tollgate: warning — secrets not set in the environment: ${missing.join(', ')} (calls needing them will fail)\n`);
  if (config.identity === undefined) io.err('tollgate: warning — no identity configured: every request will be refused (401)\n');
  io.err(formatWarnings(policyWarningList(result.service.policy, result.service.policyFile ?? file, config.identity ?? null)));
  try {
    surrogateSecret(config);
  } catch (error) {
    io.err(`tollgate: refusing to start — ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (workers > 1 && config.dlp?.surrogate_key_env === undefined && pseudonymizes(result.service.policy)) {
    io.err(
      `tollgate: warning — the policy pseudonymizes and --workers ${workers} has no dlp.surrogate_key_env: each worker makes its own surrogates, so one value gets a different surrogate depending on the worker that serves it (prompt caches miss)\n`,
    );
  }
  const perOrigin = config.upstream.max_connections_per_origin;
  if (workers > 1 && perOrigin !== undefined && perOrigin < workers) {
    io.err(
      `tollgate: refusing to start — --workers ${workers} with upstream.max_connections_per_origin ${perOrigin}: the limit is shared out among the workers, each needs at least one connection\n`,
    );
    return 1;
  }
  if (workers > 1) {
    // Each worker counts apart, and one listener would answer scrapes from a different worker
    // each time: refused rather than served wrong. OTLP export works per worker.
    if (config.telemetry?.prometheus !== undefined) {
      io.err(
        `tollgate: refusing to start — --workers ${workers} with telemetry.prometheus: each worker keeps its own metrics and one /metrics listener cannot serve them together; use telemetry.otlp (each worker exports under its own service.instance.id) or one worker\n`,
      );
      return 1;
    }
    return runPrimary(result.service, workers, io);
  }
  let service: RunningService;
  try {
    service = await startService(result.service, { log: (line) => io.err(`${line}\n`), ...listen });
  } catch (error) {
    if (error instanceof GatewayConfigError) {
      io.err(
        `tollgate: refusing to start — invalid ${error.source}:\n${formatViolations(error.errors.map((e) => ({ file, path: e.path, message: e.message })))}\n`,
      );
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
  if (sub === '-h' || sub === '--help') return help(io, 'key');
  if (sub !== 'create') {
    throw new UsageError(
      sub === undefined ? 'key: missing subcommand (create)' : `key: unknown subcommand "${sub}"${sub.startsWith('-') ? '' : hint(sub, ['create'])}`,
      'key',
    );
  }
  const values = parse(
    rest,
    {
      user: { type: 'string' },
      tier: { type: 'string' },
      team: { type: 'string' },
      bu: { type: 'string' },
      leaders: { type: 'string' },
      json: { type: 'boolean' },
    },
    'key create',
  );
  if (values.help === true) return help(io, 'key');
  const user = values.user as string | undefined;
  if (user === undefined || user.trim() === '') throw new UsageError('key create: --user NAME is required', 'key');
  const leaders =
    values.leaders === undefined
      ? undefined
      : (values.leaders as string)
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  for (const [name, value] of [
    ['user', user],
    ['tier', values.tier],
    ['team', values.team],
    ['bu', values.bu],
  ] as const) {
    if (typeof value === 'string' && (value === '' || value.length > 256)) throw new UsageError(`key create: --${name} must be 1 to 256 characters`, 'key');
  }
  const created = await createKeyEntry({
    user,
    ...(values.tier === undefined ? {} : { tier: values.tier as string }),
    ...(values.team === undefined ? {} : { team: values.team as string }),
    ...(values.bu === undefined ? {} : { bu: values.bu as string }),
    ...(leaders === undefined ? {} : { leaders }),
  });
  if (values.json === true) io.out(`${JSON.stringify({ key: created.key, hash: created.hash, principal: created.principal })}\n`);
  else io.out(renderKey(created));
  return 0;
}

const COMMANDS = ['serve', 'validate', 'key', 'report', 'what-if', 'explain', 'help'];
const hint = (word: string, words: readonly string[]): string => {
  const near = closestName(word, words);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
};

/** The general help, or a command's. */
function help(io: CliIo, command?: string): number {
  io.out(command === undefined ? USAGE : (HELP[command] ?? USAGE));
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
      case '-v':
      case '--version':
      case 'version':
        io.out(`tollgate ${cliVersion()}\n`);
        return 0;
      case 'help': {
        const topic = args[0];
        if (topic !== undefined && HELP[topic] === undefined) throw new UsageError(`help: unknown command "${topic}"${hint(topic, COMMANDS)}`);
        return help(io, topic);
      }
      case 'report':
        return await reportCommand(args, io);
      case 'what-if':
        return await whatIfCommand(args, io);
      case 'explain':
        return await explainCommand(args, io);
      case undefined:
      case '-h':
      case '--help':
        return help(io);
      default:
        throw new UsageError(`unknown command "${command}"${command.startsWith('-') ? '' : hint(command, COMMANDS)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      const usage = error.command === undefined ? 'Run `tollgate --help` for the commands.' : `Run \`tollgate ${error.command} --help\` for its options.`;
      io.err(`tollgate: ${error.message}\n${usage}\n`);
      return 2;
    }
    io.err(`tollgate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** Whether a policy's DLP replaces any entity with a surrogate (by default or in a use case). */
function pseudonymizes(policy: unknown): boolean {
  const dlp = (policy as { dlp?: unknown } | null | undefined)?.dlp;
  return dlp !== undefined && JSON.stringify(dlp).includes('"pseudonymize"');
}
