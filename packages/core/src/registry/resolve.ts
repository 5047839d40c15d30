import type { WireFormat } from '@tollgate/codecs/base';
import { indexOf, type RegistryIndex } from './build.js';
import type { Candidate, EntryMatch, Model, Registry } from './types.js';

const EMPTY: readonly Candidate[] = Object.freeze([]);

function index(registry: Registry): RegistryIndex {
  const found = indexOf(registry);
  if (found === undefined) throw new TypeError('not a registry made by loadRegistry()');
  return found;
}

/** True for a registry made by `loadRegistry` (copies and look-alikes are not: their indexes are missing). */
export function isRegistry(value: unknown): value is Registry {
  return typeof value === 'object' && value !== null && indexOf(value as Registry) !== undefined;
}

/**
 * The entry route of a request: its wire format, whether the path implies streaming, and the
 * `{model}` path parameter. Entry routes take POST only; `path` may carry a query string.
 * Null when nothing matches (→ 404).
 */
export function resolveEntry(registry: Registry, method: string, path: string): EntryMatch | null {
  if (method !== 'POST' && method.toUpperCase() !== 'POST') return null;
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  const idx = index(registry);
  const exact = idx.exactRoutes.get(pathname);
  if (exact !== undefined) return exact;
  for (const p of idx.paramRoutes) {
    if (pathname.length > p.prefix.length + p.suffix.length && pathname.startsWith(p.prefix) && pathname.endsWith(p.suffix)) {
      let model: string;
      try {
        model = decodeURIComponent(pathname.slice(p.prefix.length, pathname.length - p.suffix.length));
      } catch {
        return null;
      }
      return { route: p.route, kind: p.route.kind, format: p.route.format, family: p.route.family, stream: p.route.stream, model };
    }
  }
  return null;
}

/** The canonical model for an id or alias; null when unknown or staged. */
export function resolveModel(registry: Registry, modelOrAlias: string): Model | null {
  return index(registry).names.get(modelOrAlias) ?? null;
}

/**
 * The ordered ways to serve `model` (a canonical model, its id or an alias) to a client
 * speaking `entryFormat`: by priority (lower first), then identity before raw before
 * translate, then weight (higher first), then file order. Empty when the model is unknown,
 * staged or does not advertise that entry format. Precomputed at load: O(1).
 */
export function candidates(registry: Registry, model: Model | string, entryFormat: WireFormat): readonly Candidate[] {
  const idx = index(registry);
  const id = typeof model === 'string' ? idx.names.get(model)?.id : model.id;
  if (id === undefined) return EMPTY;
  return idx.candidates.get(id)?.get(entryFormat) ?? EMPTY;
}

/**
 * The ordered deployments that can count the input tokens of a `entryFormat` request for a
 * generation model: those whose provider has a `count_tokens` operation for the deployment's
 * format (and, across formats, a declared converter). Empty when none does.
 */
export function countCandidates(registry: Registry, model: Model | string, entryFormat: WireFormat): readonly Candidate[] {
  const idx = index(registry);
  const id = typeof model === 'string' ? idx.names.get(model)?.id : model.id;
  if (id === undefined) return EMPTY;
  return idx.countCandidates.get(id)?.get(entryFormat) ?? EMPTY;
}
