/**
 * `tollgate what-if`: replay recorded requests in time order through a candidate policy (its
 * counters rebuilt from the replay itself: each request is decided at its start and charged
 * its recorded cost at its end) and list where the candidate decides otherwise than the policy
 * that was enforced: refused or substituted what was admitted, and the reverse, with the rule
 * ids and the spend difference in exact micro-USD.
 */
import { createPolicyReplay, type Registry, type ReplayHandle, type ReplayOutcome, type UsageRecord } from '@tollgate/core';
import { parsePolicy, windowBounds, type Principal, type SpendWindow } from '@tollgate/policy';
import { renderRows, usd, type OutputFormat } from './output.js';
import type { UsageSource } from './usage-source.js';

/** Reasons that are the policy's decisions (access, rate, spend); anything else happened before or after them. */
const POLICY_REASON = /^(access_denied|spend_limit:|paused:|rate_limit:|spend_error:)/;

export type LiveOutcome = { type: 'admitted'; model: string } | { type: 'substituted'; from: string; to: string } | { type: 'refused'; reason: string };

export interface Difference {
  request_id: string;
  ts: string;
  principal: string;
  model: string;
  /** What changes: the candidate refuses, admits, substitutes, stops substituting, or refuses for another rule. */
  change: 'refused' | 'admitted' | 'substituted' | 'unsubstituted' | 'refused_otherwise';
  enforced: string;
  candidate: string;
  /** Spend difference in micro-USD (candidate − enforced), or null when unknown (a request never sent). */
  delta_micros: number | null;
  /** Upper bound of an unknown difference: the request's worst case. */
  bound_micros?: number;
}

export interface WhatIfReport {
  /**
   * With `--since`: the records before it replayed only to rebuild the candidate's counters (from
   * the start of its longest window containing `--since`), not reported; null without `--since`.
   */
  warm_up: { from: string; records: number } | null;
  replayed: number;
  /** Records not replayed: no principal or model, or refused before the policy was asked (and how many of each reason). */
  not_replayed: Record<string, number>;
  differences: Difference[];
  summary: {
    refused: number;
    admitted: number;
    substituted: number;
    unsubstituted: number;
    refused_otherwise: number;
    /** Known spend difference, candidate − enforced. */
    delta_micros: number;
    /** Requests the candidate admits whose cost is unknown, and their worst cases summed. */
    unknown: number;
    unknown_bound_micros: number;
  };
}

function liveOutcome(r: UsageRecord): LiveOutcome | null {
  if (r.status === 'rejected') return r.reason !== null && POLICY_REASON.test(r.reason) ? { type: 'refused', reason: r.reason } : null;
  if (r.substituted_from !== null && r.model !== null) return { type: 'substituted', from: r.substituted_from, to: r.model };
  return r.model === null ? null : { type: 'admitted', model: r.model };
}

const describe = (o: LiveOutcome | ReplayOutcome): string =>
  o.type === 'refused' ? `refused (${o.reason})` : o.type === 'substituted' ? `substituted ${o.from} -> ${o.to}` : 'admitted';

function principalOf(r: UsageRecord): Principal | null {
  const p = r.principal;
  if (p === null) return null;
  const kind = p.kind === 'application' || p.kind === 'service' ? p.kind : 'user';
  const out: Principal = { kind, id: p.id, leaders: p.leaders ?? [] };
  // A JWT principal's counters are its issuer's (older records carry no issuer).
  if (typeof p.issuer === 'string') out.issuer = p.issuer;
  if (p.tier !== null) out.tier = p.tier;
  if (p.bu !== null) out.bu = p.bu;
  out.application = p.application;
  out.platform = p.platform;
  out.workflow = p.workflow;
  const team = (p as { team?: string | null }).team;
  if (typeof team === 'string') (out as Principal & { team?: string }).team = team;
  return out;
}

interface Pending {
  end: number;
  seq: number;
  handle: ReplayHandle;
  cost: number;
}

/** A min-heap of request ends, so settles happen at their time between later starts. */
class Ends {
  private readonly items: Pending[] = [];
  push(p: Pending): void {
    const a = this.items;
    a.push(p);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }
  peek(): Pending | undefined {
    return this.items[0];
  }
  pop(): Pending | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
  private less(x: Pending, y: Pending): boolean {
    return x.end < y.end || (x.end === y.end && x.seq < y.seq);
  }
}

/**
 * Where a replay reporting from `since` must start so the candidate's counters are right at
 * `since`: the start of the longest spend window (in the policy's time zone) containing it, or
 * earlier when a pause could still be running, or a rate-limit minute.
 */
export function warmUpStart(candidatePolicy: unknown, registry: Registry, since: Date): Date {
  const parsed = parsePolicy(candidatePolicy, { registry });
  if (!parsed.ok) return since;
  const policy = parsed.policy;
  const tz = policy.timezone ?? 'UTC';
  const at = since.getTime();
  let from = at - RATE_WINDOW_MS;
  const windows = new Set<SpendWindow>();
  for (const rule of policy.spend?.rules ?? []) {
    for (const entry of rule.matches) {
      windows.add(entry.match.window);
      for (const action of entry.actions) if (action.type === 'pause') from = Math.min(from, at - action.hours * 3_600_000);
    }
  }
  for (const bu of Object.values(policy.business_units ?? {})) for (const o of bu.spend_overrides ?? []) windows.add(o.window);
  for (const w of windows) from = Math.min(from, windowBounds(w, at, tz).start);
  return new Date(from);
}

const RATE_WINDOW_MS = 60_000;

export async function runWhatIf(
  source: UsageSource,
  registry: Registry,
  candidatePolicy: unknown,
  options: { reportFrom?: Date; warmUpFrom?: Date } = {},
): Promise<WhatIfReport> {
  // Time order: a file holds records in the order requests ended; the replay needs their starts.
  const records: UsageRecord[] = [];
  for await (const r of source.records()) records.push(r);
  // Decided in the order admission decided them (a request's start plus the time to its admission).
  const decidedAt = (r: UsageRecord) => Date.parse(r.ts) + (r.decision?.at_ms ?? 0);
  records.sort((a, b) => decidedAt(a) - decidedAt(b));

  const replay = createPolicyReplay(registry, candidatePolicy);
  const ends = new Ends();
  const reportFrom = options.reportFrom?.getTime() ?? -Infinity;
  const report: WhatIfReport = {
    warm_up: options.reportFrom === undefined ? null : { from: (options.warmUpFrom ?? options.reportFrom).toISOString(), records: 0 },
    replayed: 0,
    not_replayed: {},
    differences: [],
    summary: { refused: 0, admitted: 0, substituted: 0, unsubstituted: 0, refused_otherwise: 0, delta_micros: 0, unknown: 0, unknown_bound_micros: 0 },
  };
  const notReplayed = (why: string) => void (report.not_replayed[why] = (report.not_replayed[why] ?? 0) + 1);
  let seq = 0;
  try {
    for (const r of records) {
      const startedAt = Date.parse(r.ts);
      const at = decidedAt(r);
      for (let next = ends.peek(); next !== undefined && next.end <= at; next = ends.peek()) {
        ends.pop();
        await next.handle.settle(next.end, next.cost);
      }
      const live = liveOutcome(r);
      const principal = principalOf(r);
      const asked = r.substituted_from ?? r.model ?? r.requested_model;
      // Before --since: replayed only for the counters it leaves behind.
      const reported = startedAt >= reportFrom;
      if (!reported) report.warm_up!.records++;
      if (live === null || principal === null || asked === null) {
        if (reported) notReplayed(r.status === 'rejected' ? `refused outside the policy: ${r.reason ?? 'unknown'}` : 'no principal or model');
        continue;
      }
      if (reported) report.replayed++;
      const decision = r.decision ?? null;
      const worst = decision?.worst_case_micros ?? r.reserved_micros ?? 0;
      const { outcome, handle } = await replay.decide({
        at,
        startedAt,
        principal,
        model: asked,
        worstCaseMicros: worst,
        tokenBound: decision?.token_bound ?? 0,
      });
      const liveCost = r.cost_micros?.total ?? 0;
      // What the candidate's own counters are charged: the recorded cost, repriced when it serves another model.
      let candidateCost: number | null = liveCost;
      if (live.type === 'refused') candidateCost = null;
      else if (outcome.type === 'substituted' && outcome.to !== r.model && r.usage !== null) candidateCost = replay.priceAt(outcome.to, r.usage);
      else if (outcome.type === 'admitted' && live.type === 'substituted' && r.usage !== null) candidateCost = replay.priceAt(outcome.model, r.usage);
      if (outcome.type !== 'refused') ends.push({ end: Math.max(at, startedAt + Math.max(0, r.duration_ms)), seq: seq++, handle, cost: candidateCost ?? 0 });

      const change = compare(live, outcome);
      if (change === null || !reported) continue;
      const diff: Difference = {
        request_id: r.request_id,
        ts: r.ts,
        principal: principal.id,
        model: asked,
        change,
        enforced: describe(live),
        candidate: describe(outcome),
        delta_micros: null,
      };
      if (change === 'refused') diff.delta_micros = -liveCost;
      else if (change === 'refused_otherwise') diff.delta_micros = 0;
      else if (change === 'admitted') {
        diff.bound_micros = worst;
        report.summary.unknown++;
        report.summary.unknown_bound_micros += worst;
      } else if (candidateCost !== null) diff.delta_micros = candidateCost - liveCost;
      if (diff.delta_micros !== null) report.summary.delta_micros += diff.delta_micros;
      report.summary[change]++;
      report.differences.push(diff);
    }
  } finally {
    await replay.close();
  }
  return report;
}

function compare(live: LiveOutcome, candidate: ReplayOutcome): Difference['change'] | null {
  if (live.type === 'refused') {
    if (candidate.type === 'refused') return candidate.reason === live.reason ? null : 'refused_otherwise';
    return 'admitted';
  }
  if (candidate.type === 'refused') return 'refused';
  if (candidate.type === 'substituted') return live.type === 'substituted' && live.to === candidate.to ? null : 'substituted';
  return live.type === 'substituted' ? 'unsubstituted' : null;
}

export function renderWhatIf(report: WhatIfReport, format: OutputFormat, source: UsageSource): string {
  if (format === 'json') return `${JSON.stringify({ source: source.describe, ...report, skipped: source.skipped }, null, 2)}\n`;
  const rows = report.differences.map((d) => [
    d.ts,
    d.request_id,
    d.principal,
    d.model,
    d.change,
    d.enforced,
    d.candidate,
    d.delta_micros === null ? `unknown (<= ${usd(d.bound_micros ?? 0)})` : usd(d.delta_micros),
  ]);
  const table = renderRows(['ts', 'request_id', 'principal', 'model', 'change', 'enforced', 'candidate', 'spend_delta_usd'], rows, format);
  if (format === 'csv') return table;
  const s = report.summary;
  const notReplayed = Object.entries(report.not_replayed).map(([why, n]) => `${n} ${why}`);
  return (
    `${report.replayed} requests replayed; ${report.differences.length} decided otherwise: ` +
    `${s.refused} refused, ${s.admitted} admitted, ${s.substituted} substituted, ${s.unsubstituted} no longer substituted, ${s.refused_otherwise} refused by another rule.\n` +
    `Spend difference (candidate - enforced): ${usd(s.delta_micros)} USD` +
    (s.unknown > 0 ? `, plus ${s.unknown} newly admitted request(s) of unknown cost (at most ${usd(s.unknown_bound_micros)} USD)` : '') +
    '.\n' +
    (notReplayed.length > 0 ? `Not replayed: ${notReplayed.join(', ')}.\n` : '') +
    (report.warm_up === null
      ? ''
      : `The candidate's counters rebuilt from ${report.warm_up.from} (its longest window containing --since): ${report.warm_up.records} earlier record(s) replayed, not reported.\n`) +
    (report.differences.length > 0 ? `\n${table}` : '')
  );
}
