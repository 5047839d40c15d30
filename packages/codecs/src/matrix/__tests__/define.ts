/** One `it` per matrix cell of a scenario: every check × every ordered pair of formats. */
import { describe, it } from 'vitest';
import { cellKey, KNOWN_FAILURES, PAIRS, SCENARIOS } from './matrix.js';

export function defineScenario(id: string): void {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (scenario === undefined) throw new Error(`no matrix scenario ${id}`);
  describe(scenario.title, () => {
    for (const check of scenario.checks) {
      describe(check.label, () => {
        for (const [from, to] of PAIRS) {
          const known = KNOWN_FAILURES[cellKey(scenario.id, check.id, from, to)];
          // A known failure must keep failing: when it passes, remove it from KNOWN_FAILURES.
          const test = known === undefined ? it : it.fails;
          test(`${from} → ${to}${known === undefined ? '' : ` (known failure: ${known})`}`, async () => {
            await check.run(from, to);
          });
        }
      });
    }
  });
}
