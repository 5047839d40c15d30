// Runs publint over every package's exports (the packages must be built first).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { readFileSync } from 'node:fs';

let failed = 0;
for (const dir of readdirSync('packages')) {
  const pkgDir = join('packages', dir);
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const { messages } = await publint({ pkgDir, level: 'suggestion', strict: true });
  for (const m of messages) {
    console.log(`${pkg.name}: [${m.type}] ${formatMessage(m, pkg)}`);
    if (m.type !== 'suggestion') failed++;
  }
  if (messages.length === 0) console.log(`${pkg.name}: exports ok`);
}
if (failed > 0) {
  console.error(`publint: ${failed} problem(s)`);
  process.exit(1);
}
