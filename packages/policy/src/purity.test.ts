/** The package runs on edge runtimes and decides purely: no Node APIs, no clock, no randomness, no I/O. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = new URL('.', import.meta.url).pathname;
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

const FORBIDDEN: [RegExp, string][] = [
  [/Date\.now\s*\(/, 'clock read'],
  [/new Date\s*\(\s*\)/, 'clock read'],
  [/performance\.now/, 'clock read'],
  [/Math\.random/, 'randomness'],
  [/crypto\./, 'randomness or hashing (core hashes)'],
  [/from\s+['"]node:/, 'node: import'],
  [/\bprocess\./, 'Node global'],
  [/\bBuffer\b/, 'Node global'],
  [/\bfetch\s*\(/, 'I/O'],
  [/\bset(Timeout|Interval)\s*\(/, 'timer'],
  [/from\s+['"](?!zod(?:\/[\w./-]+)?['"]|\.\/)/, 'dependency other than zod (or a zod subpath: zod/mini, its locale)'],
];

describe('purity', () => {
  it('has sources to check', () => {
    expect(sources.length).toBeGreaterThan(10);
  });
  it.each(sources)('%s', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const found = FORBIDDEN.filter(([re]) => re.test(text)).map(([, what]) => what);
    expect(found).toEqual([]);
  });
});
