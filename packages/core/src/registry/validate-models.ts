/**
 * Checks on models and deployments: names never collide, references resolve, enabled
 * deployments are priced and routable, pricing tiers are complete, and the serviceability
 * invariant holds.
 */
import { RATE_KINDS } from '../pricing/types.js';
import type { IssueList, PathSegment } from './issues.js';
import type { ParsedFile } from './parse.js';
import type { ModelDecl, PricingDecl } from './schema.js';
import { formatHasKind, isKnownFormat, KIND_FORMATS } from './formats.js';
import { unservedEntryFormats } from './serviceability.js';
import type { Facts } from './validate-wiring.js';

const ALL_TAG = 'all';

export function validateModels(file: ParsedFile, facts: Facts, issues: IssueList): void {
  checkNames(file, issues);
  const deploymentIds = new Map<string, string>();
  for (const [id, model] of file.models) {
    if (model === null) continue;
    checkModel(id, model, facts, deploymentIds, issues);
  }
}

/** Model ids and aliases share one namespace (requests name either); tags must not shadow model ids. */
function checkNames(file: ParsedFile, issues: IssueList): void {
  const owners = new Map<string, string>();
  for (const id of file.models.keys()) owners.set(id, `model id "${id}"`);
  for (const [id, model] of file.models) {
    const aliases = model === null ? (file.salvagedAliases.get(id) ?? []) : model.aliases;
    aliases.forEach((alias, i) => {
      const owner = owners.get(alias);
      if (owner !== undefined) {
        issues.add(['models', id, 'aliases', i], `alias "${alias}" collides with ${owner}`);
      } else {
        owners.set(alias, `an alias of model "${id}"`);
      }
    });
  }
  // Policy scopes name a model id or a tag, so the two must not overlap.
  if (file.models.has(ALL_TAG)) issues.add(['models', ALL_TAG], `"${ALL_TAG}" is the tag every model has; it cannot be a model id`);
  for (const [id, model] of file.models) {
    if (model === null) continue;
    model.tags.forEach((tag, i) => {
      if (tag !== ALL_TAG && file.models.has(tag)) {
        issues.add(['models', id, 'tags', i], `tag "${tag}" collides with model id "${tag}"; a policy scope naming it would be ambiguous`);
      }
    });
  }
}

function checkModel(id: string, model: ModelDecl, facts: Facts, deploymentIds: Map<string, string>, issues: IssueList): void {
  const base: PathSegment[] = ['models', id];
  const seenFormats = new Set<string>();
  model.entry_formats.forEach((format, i) => {
    if (!facts.declared('wire_formats', format)) {
      issues.add([...base, 'entry_formats', i], facts.undeclared('wire_formats', format));
    }
    if (model.kind === 'embed' && isKnownFormat(format) && !formatHasKind(format, 'embed')) {
      issues.add([...base, 'entry_formats', i], `${format} has no embeddings endpoint; an embedding model is reached in ${KIND_FORMATS.embed.join(', ')}`);
    }
    if (seenFormats.has(format)) issues.add([...base, 'entry_formats', i], `entry format "${format}" is listed twice`);
    seenFormats.add(format);
  });

  // What only a generation model uses: on an embedding model nothing would read it.
  if (model.kind === 'embed') {
    for (const key of ['tools', 'reasoning', 'max_output_tokens', 'context_window'] as const) {
      if (model.capabilities[key] !== undefined) {
        issues.add(
          [...base, 'capabilities', key],
          `an embedding model does not use capabilities.${key} (it generates nothing and is not sized by a context window); remove it`,
        );
      }
    }
    if (model.tokenizer !== undefined) {
      issues.add([...base, 'tokenizer'], 'an embedding model is not token-counted (count_tokens serves generation models only); remove tokenizer');
    }
  }

  // A deployment with an unresolved reference might serve anything once fixed: its model's
  // serviceability is not judged until then (the reference error says what to fix).
  let unresolved = false;
  model.deployments.forEach((d, i) => {
    const path: PathSegment[] = [...base, 'deployments', i];
    const earlier = deploymentIds.get(d.id);
    if (earlier !== undefined) issues.add([...path, 'id'], `deployment id "${d.id}" is already used by ${earlier}`);
    else deploymentIds.set(d.id, `a deployment of model "${id}"`);

    const providerOk = facts.declared('providers', d.provider);
    if (!providerOk) issues.add([...path, 'provider'], facts.undeclared('providers', d.provider));
    const formatOk = facts.declared('wire_formats', d.format);
    if (!formatOk) issues.add([...path, 'format'], facts.undeclared('wire_formats', d.format));
    if (d.enabled && (!providerOk || !formatOk)) unresolved = true;

    if (d.enabled) {
      if (d.pricing === undefined) {
        issues.add([...path, 'pricing'], 'an enabled deployment must be priced (an unpriced route would settle at 0 and silently disable budgets)');
      }
      const family = facts.familyOf(d.format);
      if (providerOk && family !== undefined && facts.operationsComplete && !facts.hasOperation(d.provider, d.format, family, model.kind)) {
        const what = model.kind === 'embed' ? `${d.provider}, ${d.format}, ${family}, embed` : `${d.provider}, ${d.format}, ${family}`;
        issues.add(path, `no operation for (${what}); declare it in operations or disable the deployment`);
      }
    }
    if (d.pricing !== undefined) checkPricing(d.pricing, [...path, 'pricing'], issues);
    if (model.kind === 'embed' && d.pricing !== undefined && !isZero(d.pricing.output)) {
      issues.add([...path, 'pricing', 'output'], 'an embedding deployment produces no output tokens: its output price must be 0');
    }
  });

  if (facts.operationsComplete && facts.convertersComplete && !unresolved) {
    for (const format of new Set(unservedEntryFormats(model, facts))) {
      if (!facts.declared('wire_formats', format)) continue; // reported above
      const i = model.entry_formats.indexOf(format);
      issues.add(
        [...base, 'entry_formats', i],
        `not serviceable: no enabled deployment takes ${format} (same format, or a converter from ${format} to its format, and ${model.kind === 'embed' ? 'an embed operation' : 'an operation'} for its provider, format and family)`,
      );
    }
  }
}

function isZero(price: string | number): boolean {
  return Number(price) === 0;
}

function checkPricing(pricing: PricingDecl, path: PathSegment[], issues: IssueList): void {
  if (pricing.long !== undefined && pricing.threshold_tokens === undefined) {
    issues.add([...path, 'threshold_tokens'], 'a long-context tier needs threshold_tokens');
  }
  if (pricing.threshold_tokens !== undefined && pricing.long === undefined) {
    issues.add([...path, 'long'], 'threshold_tokens needs a long-context tier (long)');
  }
  if (pricing.long !== undefined) {
    for (const kind of RATE_KINDS) {
      if (pricing[kind] !== undefined && pricing.long[kind] === undefined) {
        issues.add([...path, 'long', kind], `the long-context tier must name ${kind} because the base names it`);
      }
    }
  }
}
