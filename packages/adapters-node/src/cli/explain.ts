/**
 * `tollgate explain`: the decision of one recorded request — the rules that applied, their
 * windows, the counters they read and their thresholds, and which one decided — from the record
 * itself (records carry what admission used), and from the policy file when its revision is
 * the one the record names (then the rules' text and access denials are shown too).
 */
import { policyRevisionOf, type Registry, type UsageRecord } from '@tollgate/core';
import { decideAccess, parsePolicy, type Principal } from '@tollgate/policy';
import { usd } from './output.js';
import type { UsageSource } from './usage-source.js';

export async function findRecord(source: UsageSource, requestId: string): Promise<UsageRecord | null> {
  for await (const r of source.records()) if (r.request_id === requestId) return r;
  return null;
}

interface PolicyFile {
  raw: unknown;
  revision: string;
}

function principalLine(r: UsageRecord): string {
  const p = r.principal;
  if (p === null) return 'no principal (not authenticated)';
  const parts = [`${p.kind} ${p.id}`];
  if (p.tier !== null) parts.push(`tier ${p.tier}`);
  if (p.bu !== null) parts.push(`bu ${p.bu}`);
  if (p.application !== null) parts.push(`application ${p.application}`);
  if ((p.leaders ?? []).length > 0) parts.push(`leaders ${p.leaders!.join(' > ')}`);
  return parts.join(', ');
}

function ruleText(policy: unknown, ruleId: string): string | null {
  const rules = (policy as { spend?: { rules?: Array<{ id?: string }> } } | null)?.spend?.rules ?? [];
  const rule = rules.find((r) => r.id === ruleId);
  if (rule === undefined) {
    const rate = ((policy as { rate_limits?: Array<{ id?: string }> } | null)?.rate_limits ?? []).find((r) => r.id === ruleId);
    return rate === undefined ? null : JSON.stringify(rate);
  }
  return JSON.stringify(rule);
}

export function explainRecord(r: UsageRecord, policy: PolicyFile | null, registry: Registry | null): { text: string; json: Record<string, unknown> } {
  const lines: string[] = [];
  const d = r.decision ?? null;
  lines.push(`request ${r.request_id} at ${r.ts}`);
  lines.push(`  principal: ${principalLine(r)}`);
  const modelLine =
    r.model === null
      ? `asked for ${JSON.stringify(r.requested_model)}`
      : `${r.model}${r.requested_model !== null && r.requested_model !== r.model ? ` (asked ${r.requested_model})` : ''}`;
  lines.push(
    `  model: ${modelLine}${r.substituted_from !== null ? `, substituted from ${r.substituted_from}` : ''}${r.deployment !== null ? `, served by ${r.deployment}` : ''}`,
  );
  lines.push(`  outcome: ${r.status} (HTTP ${r.http_status})${r.reason !== null ? `, reason ${r.reason}` : ''}`);
  const samePolicy = policy !== null && policy.revision === r.policy_revision;
  lines.push(
    `  policy: ${r.policy_revision ?? 'none'}${policy === null ? '' : samePolicy ? ' (the --policy file is this revision)' : ` (the --policy file is ${policy.revision}: rule text not shown, the record's figures are)`}`,
  );
  if (d === null) {
    lines.push('  decision: none recorded — the request ended before admission (authentication, parsing, unknown model or access).');
    if (samePolicy && registry !== null && r.reason === 'access_denied' && r.principal !== null && r.model !== null) {
      const principal: Principal = {
        kind: r.principal.kind === 'application' || r.principal.kind === 'service' ? r.principal.kind : 'user',
        id: r.principal.id,
        leaders: r.principal.leaders ?? [],
      };
      if (r.principal.tier !== null) principal.tier = r.principal.tier;
      if (r.principal.bu !== null) principal.bu = r.principal.bu;
      const parsed = parsePolicy(policy.raw, { registry });
      if (parsed.ok) {
        const access = decideAccess({ policy: parsed.policy, registry, principal, model: r.model, now: Date.parse(r.ts) });
        if (access.denial !== undefined) lines.push(`  access: denied at the ${access.denial.layer} layer: ${access.denial.detail}`);
      }
    }
  } else {
    lines.push(`  sized: worst case ${usd(d.worst_case_micros)} USD, token bound ${d.token_bound}; reserved ${usd(r.reserved_micros)} USD`);
    if (d.spend.length === 0) lines.push('  spend rules: none applied');
    else lines.push('  spend rules (precedence order):');
    for (const s of d.spend) {
      const after = s.used_micros + d.worst_case_micros;
      const verdict =
        d.limiting?.rule === s.rule
          ? 'REFUSED here'
          : !s.enforced
            ? r.would_block.includes(s.rule)
              ? 'would refuse (not enforced)'
              : 'not enforced'
            : after > s.limit_micros && s.action === 'block'
              ? 'over'
              : 'within';
      // Records before pools existed carry no per: the caller's own counter.
      const whose = s.per === undefined || s.per === 'user' ? '' : ` (${s.per} ${s.pool}'s spend)`;
      lines.push(
        `    ${s.rule}: ${s.action} on ${s.scope}${whose}, ${s.window} window ${s.window_key}: counted ${usd(s.used_micros)} + this request's worst case ${usd(d.worst_case_micros)} = ${usd(after)} of ${usd(s.limit_micros)} USD — ${verdict}`,
      );
      if (samePolicy) {
        const text = ruleText(policy.raw, s.rule);
        if (text !== null) lines.push(`      rule: ${text}`);
      }
    }
    if (r.reason?.startsWith('spend_limit:') && d.limiting === null) {
      lines.push('  refused by the store: counted spend + live reservations of other requests + this worst case passed the limit');
    }
    if (d.rate.length === 0) lines.push('  rate limits: none applied');
    for (const q of d.rate) {
      const refused = r.reason === `rate_limit:${q.rule}`;
      lines.push(
        `    rate ${q.rule}: ${q.limit} ${q.kind} per ${q.window_ms / 1000} s, this request counted ${q.amount}${refused ? ' — REFUSED here (the window was full)' : ''}`,
      );
    }
  }
  if (r.would_block.length > 0) lines.push(`  would have refused (not enforced): ${r.would_block.join(', ')}`);
  if (r.cost_micros !== null) lines.push(`  cost: ${usd(r.cost_micros.total)} USD${r.usage?.measured === false ? ' (usage estimated by the gateway)' : ''}`);
  return { text: `${lines.join('\n')}\n`, json: { record: r, policy_matches: policy === null ? null : samePolicy } };
}

/** The revision of a policy document, as records name it. */
export function policyFile(raw: unknown): PolicyFile {
  return { raw, revision: policyRevisionOf(raw) };
}
