import type { Family } from '@tollgate/codecs/base';

/** The lookups the serviceability invariant needs. */
export interface ServiceabilityFacts {
  /** The family a declared format belongs to (undefined when unknown). */
  familyOf(format: string): Family | undefined;
  hasOperation(provider: string, format: string, family: Family, kind?: 'generate' | 'count_tokens' | 'embed'): boolean;
  hasConverter(from: string, to: string): boolean;
}

export interface ServiceabilityModel {
  /** An embedding model is served by embed operations, a generation model by generate ones. */
  readonly kind?: 'generate' | 'embed';
  readonly entry_formats: readonly string[];
  readonly deployments: readonly { readonly provider: string; readonly format: string; readonly enabled: boolean }[];
}

/** True when the deployment can take requests of entry format `entry` (the serviceability invariant of docs/registry.md, for one pair). */
export function deploymentServes(
  deployment: ServiceabilityModel['deployments'][number],
  entry: string,
  facts: ServiceabilityFacts,
  kind: 'generate' | 'embed' = 'generate',
): boolean {
  if (!deployment.enabled) return false;
  const family = facts.familyOf(deployment.format);
  if (family === undefined || !facts.hasOperation(deployment.provider, deployment.format, family, kind)) return false;
  return entry === deployment.format || facts.hasConverter(entry, deployment.format);
}

/**
 * The serviceability invariant: for every entry format f a model advertises, some enabled
 * deployment d has an operation for (d.provider, d.format, family(d.format)) of the model's kind
 * (generate, or embed for an embedding model) and either
 * f = d.format or a declared converter f → d.format (which may cross families).
 * Returns the advertised formats that no deployment serves. A staged model (no enabled
 * deployment) is not served at all and returns none.
 */
export function unservedEntryFormats(model: ServiceabilityModel, facts: ServiceabilityFacts): string[] {
  if (!model.deployments.some((d) => d.enabled)) return [];
  return model.entry_formats.filter((f) => !model.deployments.some((d) => deploymentServes(d, f, facts, model.kind ?? 'generate')));
}
