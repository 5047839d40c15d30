/**
 * Turns a validated file into the frozen `Registry` and precomputes every lookup: entry routes
 * by path, models by id and alias, and the ordered candidates of each (model, entry format).
 * Only called on files that passed every check.
 */
import type { Family, WireFormat } from '@tollgate/codecs/base';
import { parsePricing } from '../pricing/parse-pricing.js';
import { conversionPlan, isKnownFormat, PLAN_RANK } from './formats.js';
import type { ParsedFile } from './parse.js';
import type { CredentialDecl } from './schema.js';
import type {
  Candidate,
  Converter,
  Credential,
  Deployment,
  EntryMatch,
  EntryRoute,
  Model,
  Operation,
  OperationKind,
  Provider,
  Registry,
  WireFormatInfo,
} from './types.js';
import { operationKey } from './validate-wiring.js';

/** The scope a service account token has when the credential names none. */
export const GOOGLE_CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface ParamRoute {
  readonly prefix: string;
  readonly suffix: string;
  readonly route: EntryRoute;
}

/** Load-time indexes behind the lookup functions. */
export interface RegistryIndex {
  readonly exactRoutes: ReadonlyMap<string, EntryMatch>;
  readonly paramRoutes: readonly ParamRoute[];
  /** Served (non-staged) models by canonical id and by alias. */
  readonly names: ReadonlyMap<string, Model>;
  /** Per model and entry format: the deployments of the model's own kind (generate or embed). */
  readonly candidates: ReadonlyMap<string, ReadonlyMap<WireFormat, readonly Candidate[]>>;
  /** Per generation model and entry format: the deployments whose provider counts tokens. */
  readonly countCandidates: ReadonlyMap<string, ReadonlyMap<WireFormat, readonly Candidate[]>>;
}

const INDEXES = new WeakMap<Registry, RegistryIndex>();

/** The index of a registry made by `loadRegistry`, or undefined for any other object. */
export function indexOf(registry: Registry): RegistryIndex | undefined {
  return INDEXES.get(registry);
}

export function buildRegistry(file: ParsedFile, revision: string): Registry {
  const wireFormats: Partial<Record<WireFormat, WireFormatInfo>> = {};
  for (const [format, decl] of file.wire_formats) {
    if (isKnownFormat(format) && decl !== null) wireFormats[format] = { format, family: decl.family };
  }
  const familyOf = (f: WireFormat): Family => (wireFormats[f] as WireFormatInfo).family;

  const entryRoutes: EntryRoute[] = file.entry_routes.map((r) => {
    const format = r.format as WireFormat;
    return { path: r.path, format, family: familyOf(format), stream: r.stream ?? false, kind: r.kind };
  });
  const converters: Converter[] = file.converters.map((c) => ({ from: c.from as WireFormat, to: c.to as WireFormat }));

  const credentials: Record<string, Credential> = Object.create(null) as Record<string, Credential>;
  for (const [name, decl] of file.credentials) credentials[name] = toCredential(name, decl as CredentialDecl);

  const providers: Record<string, Provider> = Object.create(null) as Record<string, Provider>;
  for (const [id, decl] of file.providers) {
    if (decl === null) continue;
    providers[id] = {
      id,
      baseUrl: decl.base_url.replace(/\/+$/, ''),
      credential: decl.credential === undefined ? null : (credentials[decl.credential] ?? null),
      headers: { ...decl.headers },
    };
  }

  const operations: Operation[] = file.operations.map((o) => ({
    kind: o.kind,
    provider: o.provider,
    format: o.format as WireFormat,
    family: o.family,
    path: o.path,
    streamPath: o.stream_path ?? null,
  }));
  const operationsByKey = new Map(operations.map((o) => [operationKey(o.provider, o.format, o.family, o.kind), o]));
  const converterSet = new Set(converters.map((c) => `${c.from}\u0000${c.to}`));

  const models: Record<string, Model> = Object.create(null) as Record<string, Model>;
  const deployments: Record<string, Deployment> = Object.create(null) as Record<string, Deployment>;
  const names = new Map<string, Model>();
  const candidates = new Map<string, Map<WireFormat, Candidate[]>>();
  const countCandidates = new Map<string, Map<WireFormat, Candidate[]>>();

  for (const [id, decl] of file.models) {
    if (decl === null) continue;
    const modelDeployments: Deployment[] = decl.deployments.map((d) => ({
      id: d.id,
      model: id,
      provider: d.provider,
      format: d.format as WireFormat,
      upstreamModel: d.upstream_model,
      region: d.region ?? null,
      priority: d.priority,
      weight: d.weight,
      pricing: d.pricing === undefined ? null : (parsePricing(d.pricing) ?? null),
      enabled: d.enabled,
    }));
    const model: Model = {
      id,
      brand: decl.brand,
      kind: decl.kind,
      tokenizer: decl.tokenizer ?? null,
      entryFormats: decl.entry_formats as WireFormat[],
      aliases: [...decl.aliases],
      tags: ['all', ...decl.tags.filter((t) => t !== 'all')],
      visibility: decl.visibility,
      capabilities: { ...decl.capabilities },
      deployments: modelDeployments,
      staged: !modelDeployments.some((d) => d.enabled),
    };
    models[id] = model;
    for (const d of modelDeployments) deployments[d.id] = d;
    if (model.staged) continue;
    names.set(id, model);
    for (const alias of model.aliases) names.set(alias, model);

    const ordered = (kind: OperationKind): Map<WireFormat, Candidate[]> => {
      const byFormat = new Map<WireFormat, Candidate[]>();
      for (const entryFormat of model.entryFormats) {
        const list: { candidate: Candidate; order: number }[] = [];
        modelDeployments.forEach((deployment, order) => {
          if (!deployment.enabled) return;
          const operation = operationsByKey.get(operationKey(deployment.provider, deployment.format, familyOf(deployment.format), kind));
          if (operation === undefined) return;
          if (entryFormat !== deployment.format && !converterSet.has(`${entryFormat}\u0000${deployment.format}`)) return;
          const provider = providers[deployment.provider] as Provider;
          list.push({ candidate: makeCandidate(id, deployment, provider, operation, entryFormat, familyOf), order });
        });
        list.sort(
          (a, b) =>
            a.candidate.deployment.priority - b.candidate.deployment.priority ||
            PLAN_RANK[a.candidate.plan] - PLAN_RANK[b.candidate.plan] ||
            b.candidate.deployment.weight - a.candidate.deployment.weight ||
            a.order - b.order,
        );
        byFormat.set(
          entryFormat,
          list.map((c) => c.candidate),
        );
      }
      return byFormat;
    };
    candidates.set(id, ordered(model.kind));
    if (model.kind === 'generate') countCandidates.set(id, ordered('count_tokens'));
  }

  const registry: Registry = deepFreeze({
    revision,
    wireFormats,
    entryRoutes,
    converters,
    credentials,
    providers,
    operations,
    models,
    deployments,
  });
  deepFreeze(candidates);
  deepFreeze(countCandidates);
  INDEXES.set(registry, buildIndex(registry.entryRoutes, names, candidates, countCandidates));
  return registry;
}

function buildIndex(
  routes: readonly EntryRoute[],
  names: Map<string, Model>,
  candidates: Map<string, Map<WireFormat, Candidate[]>>,
  countCandidates: Map<string, Map<WireFormat, Candidate[]>>,
): RegistryIndex {
  const exactRoutes = new Map<string, EntryMatch>();
  const paramRoutes: ParamRoute[] = [];
  for (const route of routes) {
    const at = route.path.indexOf('{model}');
    if (at < 0) {
      exactRoutes.set(route.path, Object.freeze({ route, kind: route.kind, format: route.format, family: route.family, stream: route.stream, model: null }));
    } else {
      paramRoutes.push({ prefix: route.path.slice(0, at), suffix: route.path.slice(at + '{model}'.length), route });
    }
  }
  // The most specific template wins when two could match.
  paramRoutes.sort((a, b) => b.prefix.length + b.suffix.length - (a.prefix.length + a.suffix.length));
  return { exactRoutes, paramRoutes, names, candidates, countCandidates };
}

function makeCandidate(
  model: string,
  deployment: Deployment,
  provider: Provider,
  operation: Operation,
  entryFormat: WireFormat,
  familyOf: (f: WireFormat) => Family,
): Candidate {
  const upstream = encodePathValue(deployment.upstreamModel);
  const path = operation.path.replaceAll('{model}', upstream);
  const streamPath = (operation.streamPath ?? operation.path).replaceAll('{model}', upstream);
  return {
    model,
    deployment,
    provider,
    operation,
    entryFormat,
    upstreamFormat: deployment.format,
    plan: conversionPlan(entryFormat, deployment.format, familyOf),
    path,
    streamPath,
    url: provider.baseUrl + path,
    streamUrl: provider.baseUrl + streamPath,
    credential: provider.credential,
  };
}

/** Percent-encode what may not appear in a URL path; keep `/`, `@`, `:` and friends as they are. */
function encodePathValue(value: string): string {
  return value.replace(/[^A-Za-z0-9._~@:+\-/!$&'()*,;=]/gu, (ch) => encodeURIComponent(ch));
}

function toCredential(name: string, decl: CredentialDecl): Credential {
  switch (decl.kind) {
    case 'header':
      return { name, kind: 'header', header: decl.header, secret: decl.secret };
    case 'bearer':
      return { name, kind: 'bearer', secret: decl.secret };
    case 'query':
      return { name, kind: 'query', param: decl.param, secret: decl.secret };
    case 'aws_sigv4':
      return {
        name,
        kind: 'aws_sigv4',
        region: decl.region,
        service: decl.service,
        accessKeyId: decl.access_key_id,
        secretAccessKey: decl.secret_access_key,
        sessionToken: decl.session_token ?? null,
      };
    case 'google_service_account':
      return { name, kind: 'google_service_account', secret: decl.secret, scopes: decl.scopes ?? [GOOGLE_CLOUD_PLATFORM_SCOPE] };
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (value instanceof Map) {
    for (const v of value.values()) deepFreeze(v);
    return value; // Maps stay internal; freezing does not stop set() anyway.
  }
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
