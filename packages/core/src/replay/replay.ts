/**
 * Replay recorded requests through a policy, as the gateway would have decided them: the same
 * access check and the same admission (rate buckets, spend counters, hard-cap reservations,
 * pauses, budget-tier substitution) over a private in-memory store whose clock is the replay's,
 * its counters rebuilt from the replay itself. `tollgate what-if` drives it in time order:
 * `decide` at each request's start, `settle` at its end with what it really cost.
 */
import { GatewayError } from '@tollgate/codecs/base';
import { decideAccess, parsePolicy, type Policy, type Principal } from '@tollgate/policy';
import { admit, AdmissionRefused } from '../gateway/admission.js';
import { chargeKeys } from '../gateway/keys.js';
import { GatewayConfigError } from '../gateway/config-error.js';
import { RequestContext } from '../gateway/context.js';
import type { RecordUsage } from '../gateway/usage-record.js';
import { priceUsage } from '../pricing/index.js';
import { resolveModel, type Registry } from '../registry/index.js';
import { createMemoryStore } from '../store/index.js';
import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';

export interface ReplayRequest {
  /** When admission decided it (epoch ms): rate windows and counters are read then. */
  at: number;
  /** When the request started (epoch ms; default `at`): its cost is charged to the windows of this time, as the gateway does. */
  startedAt?: number;
  principal: Principal;
  /** The model the client asked for (canonical id or alias). */
  model: string;
  /** The request's worst-case cost and token bound, as admission sized them. */
  worstCaseMicros: number;
  tokenBound: number;
}

export type ReplayOutcome =
  | { type: 'admitted'; model: string; wouldBlock: string[] }
  | { type: 'substituted'; from: string; to: string; rule: string; wouldBlock: string[] }
  | { type: 'refused'; reason: string; wouldBlock: string[] };

export interface PolicyReplay {
  /** Decide one request at its start. The handle settles it (or gives its hold back). */
  decide(request: ReplayRequest): Promise<{ outcome: ReplayOutcome; handle: ReplayHandle }>;
  /** Micro-USD of `usage` at the prices of the model's first enabled deployment, or null when it has none. */
  priceAt(model: string, usage: RecordUsage): number | null;
  close(): Promise<void>;
}

export interface ReplayHandle {
  /** The request ended at `at` having cost `costMicros` (0 for one that was never sent). */
  settle(at: number, costMicros: number): Promise<void>;
}

const YEAR_MS = 366 * 24 * 3600 * 1000;

/** The revision of a policy document as usage records name it (`policy_revision`). */
export function policyRevisionOf(raw: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(raw))}`;
}
const noop: ReplayHandle = { settle: async () => {} };

/** A replay of `policy` (the object a policy file parses to) over `registry`. */
export function createPolicyReplay(registry: Registry, rawPolicy: unknown): PolicyReplay {
  const parsed = parsePolicy(rawPolicy, { registry });
  if (!parsed.ok)
    throw new GatewayConfigError(
      'policy',
      parsed.errors.map((e) => ({ path: e.path, message: e.message })),
    );
  const policy: Policy = parsed.policy;
  const timezone = policy.timezone ?? 'UTC';
  let clock = 0;
  const store = createMemoryStore({ now: () => clock, sweepIntervalMs: 0, settledTtlMs: YEAR_MS });

  const admitAs = (ctx: RequestContext, request: ReplayRequest, model: string, substituted: boolean) =>
    admit({
      ctx,
      policy,
      registry,
      store,
      principal: request.principal,
      model,
      now: request.at,
      worstCaseMicros: request.worstCaseMicros,
      tokenBound: request.tokenBound,
      // Holds live until the replay settles them.
      reservationTtlMs: YEAR_MS,
      substituted,
    });

  return {
    async decide(request) {
      clock = Math.max(clock, request.at);
      const ctx = new RequestContext(() => request.at, registry.revision, null);
      const resolved = resolveModel(registry, request.model);
      if (resolved === null) return { outcome: { type: 'refused', reason: 'model_not_found', wouldBlock: [] }, handle: noop };
      const access = decideAccess({ policy, registry, principal: request.principal, model: resolved.id, now: request.at });
      for (const d of access.wouldDeny) if (!ctx.wouldBlock.includes(d.detail)) ctx.wouldBlock.push(d.detail);
      if (!access.allowed) return { outcome: { type: 'refused', reason: access.reason ?? 'access_denied', wouldBlock: ctx.wouldBlock }, handle: noop };
      let served = resolved.id;
      let outcome: ReplayOutcome;
      try {
        let admission = await admitAs(ctx, request, served, false);
        if (admission.substitute !== undefined) {
          const sub = resolveModel(registry, admission.substitute.to);
          if (sub === null || sub.staged) {
            return { outcome: { type: 'refused', reason: `spend_limit:${admission.substitute.ruleId}`, wouldBlock: ctx.wouldBlock }, handle: noop };
          }
          const { ruleId } = admission.substitute;
          served = sub.id;
          admission = await admitAs(ctx, request, served, true);
          outcome = { type: 'substituted', from: resolved.id, to: served, rule: ruleId, wouldBlock: ctx.wouldBlock };
        } else outcome = { type: 'admitted', model: served, wouldBlock: ctx.wouldBlock };
      } catch (error) {
        if (error instanceof AdmissionRefused) return { outcome: { type: 'refused', reason: error.reason, wouldBlock: ctx.wouldBlock }, handle: noop };
        throw GatewayError.from(error);
      }
      return {
        outcome,
        handle: {
          async settle(at, costMicros) {
            clock = Math.max(clock, at);
            await store.settle({
              id: ctx.id,
              charges: chargeKeys(ctx.keyTag, request.principal, served, request.startedAt ?? request.at, timezone).map((c) => ({
                counter: c.counter,
                amount: costMicros,
                ttlMs: c.ttlMs,
              })),
              counterTtlMs: YEAR_MS,
            });
          },
        },
      };
    },
    priceAt(model, usage) {
      const m = resolveModel(registry, model);
      const pricing = m?.deployments.find((d) => d.enabled && d.pricing !== null)?.pricing ?? null;
      if (pricing === null) return null;
      return priceUsage(pricing, {
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cache_read,
        cacheWrite: usage.cache_write,
        cacheWrite1h: usage.cache_write_1h,
        reasoning: usage.reasoning,
        measured: usage.measured,
      }).total;
    },
    close: () => store.close(),
  };
}
