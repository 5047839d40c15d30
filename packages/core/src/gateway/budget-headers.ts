/**
 * Budget status for callers: every governed answer carries the tightest hard cap that applies
 * (the one with the least left), so a client can see a budget running out before it is refused.
 */
import { formatMicros, type SpendDecision } from '@tollgate/policy';

/** A header value as HTTP carries it: ids may hold any character, so anything beyond printable ASCII is percent-encoded. */
export function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
}

/** What the budget headers describe: a cap, its threshold, what is left of it, when it resets. */
export interface BudgetView {
  ruleId: string;
  limitMicros: number;
  remainingMicros: number;
  resetsAt: number;
}

/**
 * Free text (a policy's message) as a header value: printable ASCII stays as it is, `%` and
 * anything else is percent-encoded as UTF-8, so `decodeURIComponent` gives the text back.
 */
export function headerText(value: string): string {
  return value.replace(LONE_SURROGATE, '\uFFFD').replace(/[^\x20-\x24\x26-\x7e]+/gu, (s) => encodeURIComponent(s));
}

/** A UTF-16 surrogate without its pair: `encodeURIComponent` refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The texts of the cap the last budget headers described. */
let last = { ruleId: '', limitMicros: Number.NaN, resetsAt: Number.NaN, rule: '', limit: '', reset: '' };

/** `x-tollgate-budget-{rule,limit-usd,remaining-usd,reset,utilization}` for one cap. */
export function budgetHeaders(view: BudgetView, into: Record<string, string> = {}): Record<string, string> {
  const remaining = Math.max(0, Math.min(view.limitMicros, view.remainingMicros));
  // A cap's rule, limit and reset are the same request after request (until its window moves
  // on): their texts are made again only when they change.
  if (view.ruleId !== last.ruleId || view.limitMicros !== last.limitMicros || view.resetsAt !== last.resetsAt) {
    last = {
      ruleId: view.ruleId,
      limitMicros: view.limitMicros,
      resetsAt: view.resetsAt,
      rule: headerValue(view.ruleId),
      limit: formatMicros(view.limitMicros),
      reset: new Date(view.resetsAt).toISOString(),
    };
  }
  into['x-tollgate-budget-rule'] = last.rule;
  into['x-tollgate-budget-limit-usd'] = last.limit;
  into['x-tollgate-budget-remaining-usd'] = formatMicros(remaining);
  into['x-tollgate-budget-reset'] = last.reset;
  into['x-tollgate-budget-utilization'] = (view.limitMicros > 0 ? (view.limitMicros - remaining) / view.limitMicros : 1).toFixed(4);
  return into;
}

/**
 * The budget headers of an admitted request: the decision's governing (tightest) cap as it
 * stood at admission, and the texts of `message` actions whose threshold is crossed.
 */
export function decisionHeaders(spend: SpendDecision | null, into: Record<string, string> = {}): Record<string, string> {
  if (spend === null) return into;
  const g = spend.governing;
  // The governing cap carries the view's fields (and more, which budgetHeaders does not read).
  if (g !== undefined) budgetHeaders(g, into);
  if (spend.messages.length > 0) into['x-tollgate-budget-message'] = [...new Set(spend.messages.map((m) => m.text))].map(headerText).join(' | ');
  return into;
}
