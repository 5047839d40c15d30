/** The package runs on edge runtimes and decides purely: no Node APIs, no clock, no randomness, no I/O. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = new URL('.', import.meta.url).pathname;
const sources = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('__tests__'));

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
  [/from\s+['"](?!zod(?:\/[\w./-]+)?['"]|re2js['"]|\.\.?\/)/, 'dependency other than zod (or a zod subpath: zod/mini, its locale) and re2js'],
];

describe('purity', () => {
  it('has sources to check', () => {
    expect(sources.length).toBeGreaterThan(10);
  });
  it.each(sources)('%s', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const found = FORBIDDEN.filter(([re]) => re.test(text)).map(([, what]) => what);
    // The RE2 engine is for custom DLP patterns only, behind the `./detectors` entry.
    if (/from\s+['"]re2js['"]/.test(text) && file !== join('detect', 'custom.ts')) found.push('re2js outside detect/custom.ts');
    expect(found).toEqual([]);
  });
});
