/**
 * The support table in packages/codecs/README.md is generated from the matrix results: this test
 * runs every cell, renders the table and fails when the README differs, so the table cannot drift
 * from the code. `UPDATE_MATRIX=1 npx vitest run --project codecs packages/codecs/src/matrix/support-table.test.ts`
 * rewrites it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellKey, KNOWN_FAILURES, PAIRS, SCENARIOS } from './__tests__/matrix.js';
import type { Outcome } from './__tests__/outcome.js';
import { readmeSection, renderTable, spliceReadme } from './__tests__/table.js';

const README = new URL('../../README.md', import.meta.url);

async function runAll(): Promise<{ results: Map<string, Outcome>; problems: string[] }> {
  const results = new Map<string, Outcome>();
  const problems: string[] = [];
  for (const scenario of SCENARIOS) {
    for (const check of scenario.checks) {
      for (const [from, to] of PAIRS) {
        const key = cellKey(scenario.id, check.id, from, to);
        const known = KNOWN_FAILURES[key];
        try {
          const outcome = await check.run(from, to);
          if (known !== undefined) problems.push(`${key} passes now: remove it from KNOWN_FAILURES`);
          results.set(key, outcome);
        } catch (error) {
          if (known === undefined) problems.push(`${key}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
          results.set(key, { level: 'failing', codes: [], notes: [known ?? 'unexpected failure'], info: [] });
        }
      }
    }
  }
  return { results, problems };
}

describe('the codecs support table', () => {
  it('every known failure names a cell of the matrix', () => {
    const keys = new Set(SCENARIOS.flatMap((s) => s.checks.flatMap((c) => PAIRS.map(([f, t]) => cellKey(s.id, c.id, f, t)))));
    expect(Object.keys(KNOWN_FAILURES).filter((k) => !keys.has(k))).toEqual([]);
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
  });

  it('README.md holds the table generated from the matrix results', async () => {
    const { results, problems } = await runAll();
    expect(problems, 'matrix cells that failed unexpectedly (or known failures that pass now)').toEqual([]);
    const table = renderTable(SCENARIOS, results);
    const readme = readFileSync(README, 'utf8');
    if (process.env['UPDATE_MATRIX'] === '1') {
      writeFileSync(README, spliceReadme(readme, table));
      return;
    }
    expect(readmeSection(readme), 'the README table is stale: regenerate it with UPDATE_MATRIX=1').toBe(table);
  }, 120_000);
});
