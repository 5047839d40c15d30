import { foldedView } from './normalize.js';
import type { Detector, Finding } from './types.js';

/**
 * How strict each DLP action is, for findings that overlap: `block` over `redact` and
 * `pseudonymize` (both replace the value) over `log` over `allow`. An unknown action counts
 * as `log`.
 */
export function actionStrictness(action: string): number {
  switch (action) {
    case 'block':
      return 3;
    case 'redact':
    case 'pseudonymize':
      return 2;
    case 'allow':
      return 0;
    default:
      return 1;
  }
}

interface Ranked {
  f: Finding;
  i: number;
  rank: number;
}

/** Sorted by start, then the longest, then the one found first. */
const byPosition = (a: Ranked, b: Ranked): number => a.f.start - b.f.start || b.f.end - a.f.end || a.i - b.i;

/**
 * Findings must not overlap. Given `strictness` (the rank of an entity's action, higher is
 * stricter), a finding is never hidden by an overlapping one of a laxer action: the strictest
 * findings are placed first, and each laxer level only where it overlaps none already placed.
 * Within a level (and without `strictness`): the earliest wins, then the longest, then the
 * detector listed first. Linear after sorting, for any number of levels.
 */
export function resolveOverlaps(found: Finding[], strictness?: (entity: string) => number): Finding[] {
  if (found.length <= 1) return found;
  const order: Ranked[] = found.map((f, i) => ({ f, i, rank: strictness === undefined ? 0 : strictness(f.entity) }));
  order.sort(byPosition);
  const levels = [...new Set(order.map((r) => r.rank))].sort((a, b) => b - a);
  let placed: Finding[] = [];
  for (const level of levels) {
    const kept: Finding[] = [];
    let last = -1;
    let p = 0; // the first placed finding that ends after the candidate's start
    for (const { f, rank } of order) {
      if (rank !== level || f.start < last) continue;
      while (p < placed.length && placed[p]!.end <= f.start) p++;
      if (p < placed.length && placed[p]!.start < f.end) continue;
      kept.push(f);
      last = f.end;
    }
    placed = levels.length === 1 ? kept : mergeByStart(placed, kept);
  }
  return placed;
}

/** Two lists of disjoint findings, each in text order, as one. */
function mergeByStart(a: Finding[], b: Finding[]): Finding[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: Finding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]!.start <= b[j]!.start ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * Run every detector over `text`: the findings in text order, none overlapping. With
 * `strictness`, an overlap goes to the stricter action (see `resolveOverlaps`).
 */
export function scanText(text: string, detectors: readonly Detector[], strictness?: (entity: string) => number): Finding[] {
  return resolveOverlaps(findAll(text, detectors), strictness);
}

/**
 * Every detector's findings in `text`, overlapping ones included (for `resolveOverlaps` with
 * more findings). The detectors read the text's folded view (see normalize.ts), so a value
 * disguised with full-width or invisible characters is found; spans are the original's.
 */
export function findAll(text: string, detectors: readonly Detector[]): Finding[] {
  const found: Finding[] = [];
  const view = foldedView(text);
  if (view === null) {
    for (const d of detectors) d.scan(text, found);
    return found;
  }
  for (const d of detectors) d.scan(view.text, found);
  return found.map((f) => ({ entity: f.entity, ...view.original(f.start, f.end) }));
}

/**
 * Rewrite `text`, replacing each finding by what `replace` returns for it (null keeps it).
 * Findings must be in order and must not overlap, as `scanText` returns them.
 */
export function replaceFindings(text: string, findings: readonly Finding[], replace: (f: Finding, value: string) => string | null): string {
  let out = '';
  let at = 0;
  for (const f of findings) {
    const value = text.slice(f.start, f.end);
    const r = replace(f, value);
    if (r === null) continue;
    out += text.slice(at, f.start) + r;
    at = f.end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** The marker that replaces a redacted value: `[REDACTED:EMAIL]`. */
export const redactionMarker = (entity: string): string => `[REDACTED:${entity.toUpperCase()}]`;
