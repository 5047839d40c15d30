import type { Detector, Finding } from './types.js';

/** Findings must not overlap: the earliest wins, then the longest, then the detector listed first. */
export function resolveOverlaps(found: Finding[]): Finding[] {
  if (found.length <= 1) return found;
  const order = found.map((f, i) => ({ f, i }));
  order.sort((a, b) => a.f.start - b.f.start || b.f.end - a.f.end || a.i - b.i);
  const out: Finding[] = [];
  let last = -1;
  for (const { f } of order) {
    if (f.start < last) continue;
    out.push(f);
    last = f.end;
  }
  return out;
}

/** Run every detector over `text`: the findings in text order, none overlapping. */
export function scanText(text: string, detectors: readonly Detector[]): Finding[] {
  const found: Finding[] = [];
  for (const d of detectors) d.scan(text, found);
  return resolveOverlaps(found);
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
