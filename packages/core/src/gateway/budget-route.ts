/**
 * `GET /v1/tollgate/budget`: the hard caps that apply to the caller — its own and those of the
 * pools it belongs to, on every model, never anyone else's — with what was spent, what requests
 * in flight hold, and what is left. Authenticated with the caller's own credential, like any
 * request; not a governed request itself (no usage record, no rate limit).
 */
import { GatewayError } from '@tollgate/codecs/base';
import { budgetStatus, counterLayout, formatMicros, type BudgetLine } from '@tollgate/policy';
import type { RequestContext } from './context.js';
import { keyTag, layoutKeys, layoutValues } from './keys.js';
import { completeReply, errorReply, guessFormat } from './render.js';
import type { GatewayReply, GatewayRequest } from './request.js';
import type { WalkDeps } from './walk-deps.js';

export const BUDGET_PATH = '/v1/tollgate/budget';

/** One cap as the endpoint answers it (USD as decimal strings). */
export interface BudgetLimit {
  rule: string;
  per: string;
  pool: string;
  scope: string;
  window: string;
  limit_usd: string;
  spent_usd: string;
  reserved_usd: string;
  remaining_usd: string;
  resets_at: string;
}

function limit(line: BudgetLine, held: number): BudgetLimit {
  return {
    rule: line.ruleId,
    per: line.per,
    pool: line.pool,
    scope: line.scope,
    window: line.window,
    limit_usd: formatMicros(line.limitMicros),
    spent_usd: formatMicros(line.usedMicros),
    reserved_usd: formatMicros(held),
    remaining_usd: formatMicros(Math.max(0, line.limitMicros - line.usedMicros - held)),
    resets_at: new Date(line.resetsAt).toISOString(),
  };
}

const json = (ctx: RequestContext, body: unknown): GatewayReply =>
  completeReply(200, JSON.stringify(body), { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-tollgate-request-id': ctx.id });

export async function budgetRoute(request: GatewayRequest, ctx: RequestContext, deps: WalkDeps): Promise<GatewayReply> {
  ctx.entryFormat = guessFormat(request, BUDGET_PATH);
  const auth = await deps.identity.authenticate(request);
  if (!auth.ok) {
    ctx.observer?.unrecorded(auth.error.status);
    return errorReply(deps.codecs, auth.error, ctx.entryFormat);
  }
  const principal = auth.principal;
  const policy = deps.policy;
  const now = deps.now();
  if (policy === null || (policy.spend?.rules ?? []).length === 0) {
    ctx.observer?.unrecorded(200);
    return json(ctx, { limits: [] });
  }
  const registry = deps.registry;
  const layout = counterLayout({ policy, registry, now });
  const tag = keyTag(principal, deps.tenantOf);
  const lk = layoutKeys(layout, principal, tag);
  // Which caps apply does not depend on the counters: their hold keys are known before reading.
  const caps = budgetStatus({ policy, registry, principal, counters: { layout, values: new Float64Array(layout.size) }, now });
  const capKeys = caps.ok ? [...new Set(caps.lines.map((l) => tag + l.capKey))] : [];
  let values: Record<string, number>;
  let held: Record<string, number>;
  try {
    [values, held] = await Promise.all([deps.store.getCounters(lk.keys), capKeys.length === 0 ? Promise.resolve({}) : deps.store.getHeld(capKeys)]);
  } catch (cause) {
    const e = new GatewayError('unavailable', 'Budgets cannot be read right now; try again shortly.', { cause, retryAfterS: 1 });
    ctx.observer?.unrecorded(e.status);
    return errorReply(deps.codecs, e, ctx.entryFormat);
  }
  const status = budgetStatus({ policy, registry, principal, counters: { layout, values: layoutValues(lk, values) }, now });
  if (!status.ok) {
    const e = new GatewayError('unavailable', 'Budgets cannot be read right now; try again shortly.', { detail: status.reason });
    ctx.observer?.unrecorded(e.status);
    return errorReply(deps.codecs, e, ctx.entryFormat);
  }
  ctx.observer?.unrecorded(200);
  return json(ctx, { limits: status.lines.map((l) => limit(l, held[tag + l.capKey] ?? 0)) });
}
