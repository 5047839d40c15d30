import type { WireFormat } from '@tollgate/codecs/base';
import { counterLayout, decideAccess, decideRate, decideSpend, type Principal } from '@tollgate/policy';
import { resolveModel } from '../registry/index.js';
import { quota, rateRefused, type AdmissionRefused } from './admission.js';
import { keyTag, layoutKeys, layoutValues } from './keys.js';
import type { WalkDeps } from './walk-deps.js';

/** Bodies this large or larger are checked against rate limits and spend caps before they are read and parsed. */
export const DEFAULT_EARLY_CHECK_BYTES = 1024 * 1024;

/**
 * For a large body: refuse at once, before reading and parsing it, what the rate limits or
 * hard spend caps would refuse whatever the body holds — a request-rate or token-rate window
 * that is already full, or a hard cap already reached on every model this caller could name
 * (only the model in the URL, for Gemini). Only certain refusals are made here: a limit that
 * could still let the request through (room left, a pause served already, a budget-tier
 * substitute) is left to admission. Anything the store cannot answer is left to admission too.
 * Costs two store round trips, for large bodies only.
 */
export async function earlyRefusal(deps: WalkDeps, principal: Principal, format: WireFormat, urlModel: string | null): Promise<AdmissionRefused | null> {
  const policy = deps.policy;
  if (policy === null) return null;
  const registry = deps.registry;
  const now = deps.now();
  let models: string[];
  if (urlModel !== null) {
    const model = resolveModel(registry, urlModel);
    models = model === null || model.staged ? [] : [model.id];
  } else {
    models = Object.values(registry.models)
      .filter((m) => !m.staged && m.entryFormats.includes(format))
      .map((m) => m.id);
  }
  models = models.filter((model) => decideAccess({ policy, registry, principal, model, now }).allowed);
  if (models.length === 0) return null;
  const tag = keyTag(principal, deps.tenantOf);

  // Rate: buckets every one of these models counts against (unscoped rules, or the URL's model's).
  const rate = decideRate({ policy, registry, principal, model: urlModel === null ? null : models[0]!, tokens: 0 });
  const rateCheck = async (): Promise<AdmissionRefused | null> => {
    if (rate.constraints.length === 0) return null;
    const buckets = rate.constraints.map((c) => ({ key: tag + c.key, limit: c.limit, windowMs: c.windowMs, cost: 0 }));
    const room = await deps.store.hitRate(buckets).catch(() => null);
    return room === null || room.ok ? null : rateRefused(rate.constraints, room, tag);
  };

  // Spend: a hard cap already reached on every model (committed spend alone; holds aside).
  const spendCheck = async (): Promise<AdmissionRefused | null> => {
    if ((policy.spend?.rules ?? []).length === 0) return null;
    const layout = counterLayout({ policy, registry, now });
    // The caller's counters and its pools': a spent BU budget refuses its members early too.
    const lk = layoutKeys(layout, principal, tag);
    const values = await deps.store.getCounters(lk.keys).catch(() => null);
    if (values === null) return null;
    const counters = { layout, values: layoutValues(lk, values) };
    let first: ReturnType<typeof decideSpend> | undefined;
    for (const model of models) {
      const spend = decideSpend({ policy, registry, principal, model, now, counters, costMicros: 0 });
      const blocked = !spend.allowed && spend.substitute === undefined && spend.reasons.every((r) => r.startsWith('spend_limit:'));
      if (!blocked) return null;
      first ??= spend;
    }
    return quota(first?.reasons[0] ?? 'spend_limit', first ?? null);
  };

  const [rateRefusal, spendRefusal] = await Promise.all([rateCheck(), spendCheck()]);
  return rateRefusal ?? spendRefusal;
}
