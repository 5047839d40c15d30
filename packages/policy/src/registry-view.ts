/**
 * The part of the registry policy needs: model ids and their tags. Core's loaded registry
 * (`{ models: { [id]: { tags?: string[], … } } }`) satisfies this type structurally, so it can
 * be passed as is. Every model implicitly has the tag `all`.
 */
export interface RegistryView {
  readonly models: Readonly<
    Record<
      string,
      {
        readonly tags?: readonly string[] | undefined;
        readonly aliases?: readonly string[] | undefined;
        /** Where the model is served; a view without deployments is not checked for regions. */
        readonly deployments?: readonly { readonly region?: string | null | undefined }[] | undefined;
      }
    >
  >;
}

/** The tag every model has. */
export const ALL_TAG = 'all';

/** A model's tags, `all` included. */
export function modelTags(registry: RegistryView, model: string): readonly string[] | undefined {
  const m = Object.hasOwn(registry.models, model) ? registry.models[model] : undefined;
  if (m === undefined) return undefined;
  return [ALL_TAG, ...(m.tags ?? [])];
}

/** True when `scope` names a model id or a tag of some model (or `all`). */
export function isKnownScope(registry: RegistryView, scope: string): boolean {
  if (scope === ALL_TAG || Object.hasOwn(registry.models, scope)) return true;
  for (const id in registry.models) {
    if ((registry.models[id]?.tags ?? []).includes(scope)) return true;
  }
  return false;
}

/** Every scope a policy may name: `all`, the model ids and their tags. */
export function knownScopes(registry: RegistryView): Set<string> {
  const out = new Set<string>([ALL_TAG]);
  for (const id in registry.models) {
    out.add(id);
    for (const tag of registry.models[id]?.tags ?? []) out.add(tag);
  }
  return out;
}

/** Every region some deployment names; undefined when the view carries no deployments. */
export function deploymentRegions(registry: RegistryView): Set<string> | undefined {
  let out: Set<string> | undefined;
  for (const id in registry.models) {
    const deployments = registry.models[id]?.deployments;
    if (deployments === undefined) continue;
    out ??= new Set();
    for (const d of deployments) if (typeof d.region === 'string') out.add(d.region);
  }
  return out;
}

/** The model whose alias `name` is, if any. */
export function aliasOwner(registry: RegistryView, name: string): string | undefined {
  for (const id in registry.models) if ((registry.models[id]?.aliases ?? []).includes(name)) return id;
  return undefined;
}

/** The model ids a scope (model id or tag) covers, in registry order. */
export function modelsInScope(registry: RegistryView, scope: string): string[] {
  if (Object.hasOwn(registry.models, scope)) return [scope];
  const out: string[] = [];
  for (const id in registry.models) {
    if (scope === ALL_TAG || (registry.models[id]?.tags ?? []).includes(scope)) out.push(id);
  }
  return out;
}
