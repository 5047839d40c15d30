/**
 * What-if: evaluate a draft policy against live counters for a set of principals — who would
 * be blocked now, on which model, and why. A dry run: no effects, no markers written; the
 * draft is evaluated as enforced whatever its `enforcement` says.
 */
import { decideAccess } from './access.js';
import type { Instant } from './calendar.js';
import type { Policy } from './policy-types.js';
import type { Principal } from './principal.js';
import type { RegistryView } from './registry-view.js';
import { decideSpend } from './spend.js';
import type { Markers, PoolCounters, SpendCounters } from './spend-types.js';
import { SPEND_PERS, poolKeys, type SpendPer } from './keys.js';

/** Counters of many principals: principal id → that principal's `SpendCounters`. */
export type CounterTable = Readonly<Record<string, SpendCounters | undefined>>;

/** The counters of every pool of the principals: pool key (`bu:payments`, `org`; see `poolKey`) → its `SpendCounters`. */
function poolCountersOf(principal: Principal, pools: CounterTable | undefined): PoolCounters | undefined {
  if (pools === undefined) return undefined;
  const keys = poolKeys(principal);
  const out: Partial<Record<Exclude<SpendPer, 'user'>, SpendCounters>> = {};
  SPEND_PERS.forEach((per, i) => {
    const key = keys[i];
    if (per === 'user' || key === null || key === undefined) return;
    const c = pools[key];
    if (c !== undefined) out[per] = c;
  });
  return out;
}

export interface WhatIfOptions {
  registry: RegistryView;
  /** Models to try (default: every registry model). */
  models?: readonly string[];
  /** Markers already set (pauses served, latches), by key. */
  markers?: Markers;
  /** Counters of pools by pool key (`bu:payments`, `team:search`, `org`), for entries with a `per` other than `user`. */
  pools?: CounterTable;
}

export interface WhatIfBlock {
  principalId: string;
  model: string;
  stage: 'access' | 'spend';
  /** `access_denied` / `model_not_found` with the denial detail, or the spend reason codes. */
  reasons: string[];
  retryAfterS?: number;
}

export interface WhatIfResult {
  /** Principal × model pairs evaluated. */
  evaluated: number;
  blocked: WhatIfBlock[];
  /** Reason code → how many pairs it blocks. */
  byReason: Record<string, number>;
  /** Ids of principals blocked on at least one model, in input order. */
  principalsBlocked: string[];
}

export function whatIf(draftPolicy: Policy, counters: CounterTable, principals: readonly Principal[], now: Instant, options: WhatIfOptions): WhatIfResult {
  const { registry } = options;
  const models = options.models ?? Object.keys(registry.models);
  const result: WhatIfResult = { evaluated: 0, blocked: [], byReason: {}, principalsBlocked: [] };
  const empty: SpendCounters = {};
  for (const principal of principals) {
    let any = false;
    for (const model of models) {
      result.evaluated++;
      const base = { policy: draftPolicy, registry, principal, model, now, enforcement: 'enforce' as const };
      const access = decideAccess(base);
      let block: WhatIfBlock | undefined;
      if (!access.allowed) {
        block = {
          principalId: principal.id,
          model,
          stage: 'access',
          reasons: [access.reason ?? 'access_denied', ...(access.denial ? [access.denial.detail] : [])],
        };
      } else {
        const pools = poolCountersOf(principal, options.pools);
        const spend = decideSpend({
          ...base,
          counters: counters[principal.id] ?? empty,
          ...(options.markers ? { markers: options.markers } : {}),
          ...(pools === undefined ? {} : { pools }),
        });
        if (!spend.allowed) {
          block = { principalId: principal.id, model, stage: 'spend', reasons: spend.reasons };
          if (spend.retryAfterS !== undefined) block.retryAfterS = spend.retryAfterS;
        }
      }
      if (block === undefined) continue;
      any = true;
      result.blocked.push(block);
      const head = block.reasons[0] ?? 'blocked';
      for (const r of block.stage === 'access' ? [head] : block.reasons) result.byReason[r] = (result.byReason[r] ?? 0) + 1;
    }
    if (any) result.principalsBlocked.push(principal.id);
  }
  return result;
}
