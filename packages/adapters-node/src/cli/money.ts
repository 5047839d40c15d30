/**
 * The money commands of the `tollgate` CLI: `report`, `what-if`, `explain`. Each reads usage
 * records from `--usage file:PATH | postgres://…`; lines or rows that are not usage records are
 * skipped, counted and named on stderr, and the rest of the answer is still made.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { loadRegistry, type Registry } from '@tollgate/core';
import { explainRecord, findRecord, policyFile } from './explain.js';
import { parseFormat } from './output.js';
import { buildReport, parseGroupKeys, renderReport } from './report.js';
import { HELP } from './help.js';
import { UsageError, parseWith, type CliIo, type Values } from './run.js';
import { openUsageSource, type ReadOptions, type UsageSource } from './usage-source.js';
import { renderWhatIf, runWhatIf, warmUpStart } from './what-if.js';

const SOURCE_OPTIONS = {
  usage: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  table: { type: 'string' },
  format: { type: 'string' },
} as const;

function date(values: Values, name: 'since' | 'until'): Date | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const at = Date.parse(String(v));
  if (Number.isNaN(at)) throw new UsageError(`--${name} must be an ISO-8601 date or time, got ${JSON.stringify(v)}`);
  return new Date(at);
}

function source(command: string, values: Values, requestId?: string): UsageSource {
  const spec = values.usage;
  if (typeof spec !== 'string' || spec === '') throw new UsageError(`${command}: --usage file:PATH or a postgres:// URL is required`);
  const options: ReadOptions = {};
  const since = date(values, 'since');
  const until = date(values, 'until');
  if (since !== undefined) options.since = since;
  if (until !== undefined) options.until = until;
  if (typeof values.table === 'string') options.table = values.table;
  if (requestId !== undefined) options.requestId = requestId;
  try {
    return openUsageSource(spec, options);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

function format(command: string, values: Values) {
  try {
    return parseFormat(values.format as string | undefined);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

function reportSkipped(command: string, src: UsageSource, io: CliIo): void {
  const s = src.skipped;
  if (s.count === 0) return;
  io.err(
    `tollgate ${command}: skipped ${s.count} line(s) or row(s) of ${src.describe} that are not usage records: ${s.examples.join('; ')}${s.count > s.examples.length ? '; …' : ''}\n`,
  );
}

async function readDocument(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the ${what} ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseYaml(text) ?? {};
  } catch (error) {
    throw new Error(`the ${what} ${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
}

async function registryFrom(file: string): Promise<Registry> {
  const loaded = loadRegistry(await readDocument(file, 'registry'));
  if (!loaded.ok) throw new Error(`the registry ${file} is invalid:\n${loaded.errors.map((e) => `  ${e.path}: ${e.message}`).join('\n')}`);
  return loaded.registry;
}

/** Reading failed (a missing file, Postgres unreachable): a message, exit 1. */
async function reading<T>(command: string, src: UsageSource, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.message;
    throw new Error(`${command}: cannot read ${src.describe}: ${why}`, { cause: error });
  }
}

export async function reportCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseWith(args, { ...SOURCE_OPTIONS, by: { type: 'string' } }, false, 'report');
  if (values.help === true) return (void io.out(HELP.report!), 0);
  let by;
  try {
    by = parseGroupKeys(values.by as string | undefined);
  } catch (error) {
    throw new UsageError(`report: ${(error as Error).message}`);
  }
  const fmt = format('report', values);
  const src = source('report', values);
  const report = await reading('report', src, () => buildReport(src, by));
  io.out(renderReport(report, fmt, src));
  reportSkipped('report', src, io);
  return 0;
}

export async function whatIfCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseWith(args, { ...SOURCE_OPTIONS, policy: { type: 'string' }, registry: { type: 'string' } }, false, 'what-if');
  if (values.help === true) return (void io.out(HELP['what-if']!), 0);
  if (typeof values.policy !== 'string') throw new UsageError('what-if: --policy CANDIDATE.yaml is required');
  if (typeof values.registry !== 'string') throw new UsageError('what-if: --registry FILE is required (prices, tags and models the policy names)');
  const fmt = format('what-if', values);
  const registry = await registryFrom(values.registry);
  const policy = await readDocument(values.policy, 'policy');
  // The candidate's counters at --since need the records of its windows that began before it.
  const since = date(values, 'since');
  const warmFrom = since === undefined ? undefined : warmUpStart(policy, registry, since);
  const src = source('what-if', warmFrom === undefined ? values : { ...values, since: warmFrom.toISOString() });
  const report = await reading('what-if', src, () =>
    runWhatIf(src, registry, policy, since === undefined || warmFrom === undefined ? {} : { reportFrom: since, warmUpFrom: warmFrom }),
  );
  io.out(renderWhatIf(report, fmt, src));
  reportSkipped('what-if', src, io);
  return 0;
}

export async function explainCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseWith(args, { ...SOURCE_OPTIONS, policy: { type: 'string' }, registry: { type: 'string' } }, true, 'explain');
  if (values.help === true) return (void io.out(HELP.explain!), 0);
  if (positionals.length !== 1) throw new UsageError('explain: give exactly one REQUEST_ID');
  const fmtValue = values.format ?? 'text';
  if (fmtValue !== 'text' && fmtValue !== 'json') throw new UsageError(`explain: --format must be text or json, got ${JSON.stringify(fmtValue)}`);
  const requestId = positionals[0]!;
  const src = source('explain', { ...values, format: undefined }, requestId);
  const record = await reading('explain', src, () => findRecord(src, requestId));
  reportSkipped('explain', src, io);
  if (record === null) {
    io.err(`tollgate explain: no usage record ${requestId} in ${src.describe}\n`);
    return 1;
  }
  const policy = typeof values.policy === 'string' ? policyFile(await readDocument(values.policy, 'policy')) : null;
  const registry = typeof values.registry === 'string' ? await registryFrom(values.registry) : null;
  const explained = explainRecord(record, policy, registry);
  io.out(fmtValue === 'json' ? `${JSON.stringify(explained.json, null, 2)}\n` : explained.text);
  return 0;
}
