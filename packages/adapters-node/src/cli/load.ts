/**
 * Read and check a service config and the files it names: every violation of the config,
 * the registry, the policy and the identity section, each with its file and path.
 */
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { loadRegistry, type Registry } from '@tollgate/core';
import { dlpEngine } from '@tollgate/core/dlp';
import { parsePolicy, schemaHints, type Policy, type PolicyFileInput } from '@tollgate/policy';
import { ServiceConfigSchema, type ServiceConfig } from './config.js';

export interface Violation {
  /** The file, as the user would type it (relative to the working directory). */
  file: string;
  /** Where in the file (`listen.port`, `models.x.deployments[0].pricing`); empty for the whole file. */
  path: string;
  message: string;
}

export interface LoadedService {
  /** The config file (absolute) and its folder, against which relative paths resolve. */
  file: string;
  dir: string;
  config: ServiceConfig;
  registry: Registry;
  registryFile: string;
  /** The policy document as parsed from its file (checked here; the gateway validates it again), or undefined. */
  policy: PolicyFileInput | undefined;
  policyFile: string | null;
  /** The certificate authorities of `upstream.ca_file` (PEM), read when the config names one. */
  upstreamCa?: string;
}

export type LoadResult = { ok: true; service: LoadedService } | { ok: false; errors: Violation[] };

const display = (file: string) => {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
};

function zodPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/** Read and parse a YAML (or JSON) file; every syntax error becomes a violation. */
async function readYaml(file: string, errors: Violation[]): Promise<{ ok: boolean; value: unknown }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    errors.push({ file: display(file), path: '', message: code === 'ENOENT' ? 'file not found' : `cannot read: ${(error as Error).message}` });
    return { ok: false, value: undefined };
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const at = e.linePos?.[0];
      errors.push({
        file: display(file),
        path: at === undefined ? '' : `line ${at.line}, column ${at.col}`,
        message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
      });
    }
    return { ok: false, value: undefined };
  }
  return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
}

/** Load the service config at `configFile` and everything it names, or list every violation. */
export async function loadService(configFile: string): Promise<LoadResult> {
  const file = resolve(configFile);
  const dir = dirname(file);
  const errors: Violation[] = [];
  const raw = await readYaml(file, errors);
  if (!raw.ok) return { ok: false, errors };

  const hints = schemaHints();
  const parsed = ServiceConfigSchema.safeParse(raw.value ?? {}, { error: hints.error });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) errors.push({ file: display(file), path: zodPath([...issue.path, key]), message: hints.unknownKey(issue.path, key) });
      } else {
        errors.push({ file: display(file), path: zodPath(issue.path), message: issue.message });
      }
    }
  }
  // Check the registry and policy even when the config has other problems, so one run lists everything.
  const source = (raw.value ?? {}) as Record<string, unknown>;
  const registryPath = typeof source.registry === 'string' && source.registry !== '' ? resolve(dir, source.registry) : null;
  const policyPath = typeof source.policy === 'string' && source.policy !== '' ? resolve(dir, source.policy) : null;

  const { registry, policy } = await checkFiles(registryPath, policyPath, errors);
  const upstreamCa = parsed.success ? await readCaFile(parsed.data.upstream.ca_file, dir, file, errors) : undefined;
  if (errors.length > 0 || !parsed.success || registry === null || registryPath === null) return { ok: false, errors };
  return {
    ok: true,
    service: {
      file,
      dir,
      config: parsed.data,
      registry,
      registryFile: registryPath,
      policy,
      policyFile: policyPath,
      ...(upstreamCa === undefined ? {} : { upstreamCa }),
    },
  };
}

/**
 * Read and check a registry file and a policy file (either may be null); the policy is checked
 * against the registry when both are given and the registry is valid. Violations go to `errors`.
 */
async function checkFiles(
  registryPath: string | null,
  policyPath: string | null,
  errors: Violation[],
): Promise<{ registry: Registry | null; policy: PolicyFileInput | undefined }> {
  let registry: Registry | null = null;
  if (registryPath !== null) {
    const doc = await readYaml(registryPath, errors);
    if (doc.ok) {
      const loaded = loadRegistry(doc.value);
      if (loaded.ok) registry = loaded.registry;
      else for (const e of loaded.errors) errors.push({ file: display(registryPath), path: e.path, message: e.message });
    }
  }
  let policy: PolicyFileInput | undefined;
  if (policyPath !== null) {
    const doc = await readYaml(policyPath, errors);
    if (doc.ok) {
      // Only returned once it passed `parsePolicy` here (any violation fails the load).
      policy = doc.value ?? {};
      // As `serve` will check it: custom DLP patterns compiled by the engine the gateway runs.
      const dlp = dlpEngine.validation([]);
      const checked = parsePolicy(policy, registry === null ? { dlp } : { registry, dlp });
      if (!checked.ok) for (const e of checked.errors) errors.push({ file: display(policyPath), path: e.path, message: e.message });
    }
  }
  return { registry, policy };
}

export type FilesResult = { ok: true; registry: Registry | null; policy: Policy | null } | { ok: false; errors: Violation[] };

/**
 * `tollgate validate --registry FILE --policy FILE`: check a registry file, a policy file, or
 * both (the policy's scopes and models against the registry), without a service config.
 */
export async function loadFiles(files: { registry?: string; policy?: string }): Promise<FilesResult> {
  const errors: Violation[] = [];
  const registryPath = files.registry === undefined ? null : resolve(files.registry);
  const policyPath = files.policy === undefined ? null : resolve(files.policy);
  const { registry, policy } = await checkFiles(registryPath, policyPath, errors);
  if (errors.length > 0) return { ok: false, errors };
  const parsed = policy === undefined ? null : parsePolicy(policy, registry === null ? {} : { registry });
  return { ok: true, registry, policy: parsed?.ok === true ? parsed.policy : null };
}

/** Violations as lines: `file: path: message`. */
export function formatViolations(errors: readonly Violation[]): string {
  return errors.map((e) => `  ${e.file}: ${e.path === '' ? '' : `${e.path}: `}${e.message}`).join('\n');
}

/** `upstream.ca_file`, read and checked for a PEM certificate; a violation when it cannot be. */
async function readCaFile(caFile: string | undefined, dir: string, file: string, errors: Violation[]): Promise<string | undefined> {
  if (caFile === undefined) return undefined;
  const path = resolve(dir, caFile);
  try {
    const pem = await readFile(path, 'utf8');
    if (pem.includes('-----BEGIN CERTIFICATE-----')) return pem;
    errors.push({ file: display(file), path: 'upstream.ca_file', message: `${display(path)} holds no PEM certificate` });
  } catch (error) {
    const code = (error as { code?: string }).code;
    errors.push({
      file: display(file),
      path: 'upstream.ca_file',
      message: code === 'ENOENT' ? `${display(path)}: file not found` : `cannot read ${display(path)}: ${(error as Error).message}`,
    });
  }
  return undefined;
}
