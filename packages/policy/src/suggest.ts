/**
 * "Did you mean" hints for validation messages: the known name nearest to a misspelt one
 * (`memroy` → `memory`, `claude-sonet` → `claude-sonnet`, `reservaton_ttl_s` → `reservation_ttl_s`).
 */

/** Edits (insert, delete, substitute, swap two neighbours) to turn `a` into `b`, or `limit + 1` once past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2]! + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The candidate nearest to `input`: equal ignoring case, or within a few edits (one for short
 * names, about a third of the length for longer ones). Undefined when none is that close, or
 * when two are equally close.
 */
export function closestName(input: string, candidates: Iterable<string>): string | undefined {
  const lower = input.toLowerCase();
  const limit = Math.max(1, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tied = false;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const d = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase(), limit);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tied = false;
    } else if (d === bestDistance && candidate !== best) {
      tied = true;
    }
  }
  return tied || bestDistance > limit ? undefined : best;
}

/** ` (did you mean "x"?)`, or nothing when no candidate is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const near = closestName(input, candidates);
  return near === undefined ? '' : ` (did you mean "${near}"?)`;
}
