/**
 * The public surface of every package entry point (each `exports` subpath), pinned to the
 * checked-in `public-api.json`: a name added to or dropped from an entry fails here until the
 * list is updated on purpose (`npx vitest run test/public-api.test.ts -u`, then review the diff).
 *
 * Values are what importing the entry yields at run time; types are the further names the
 * TypeScript compiler sees exported (interfaces, type aliases, `export type`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-support.js';

interface Entry {
  readonly id: string;
  readonly source: string;
}

const entries: Entry[] = [];
for (const dir of readdirSync(join(REPO, 'packages')).sort()) {
  const pkg = JSON.parse(readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | Record<string, unknown>>;
  };
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue; // package.json and JSON Schemas
    const source = target['@tollgate/source'];
    if (typeof source !== 'string') throw new Error(`${pkg.name} ${subpath}: no @tollgate/source condition`);
    entries.push({ id: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, source: join(REPO, 'packages', dir, source) });
  }
}

/** Every name each entry exports as the compiler sees it (one program for all entries). */
function compilerExports(): Map<string, string[]> {
  const config = ts.readConfigFile(join(REPO, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.convertCompilerOptionsFromJson(config.config.compilerOptions, REPO);
  const program = ts.createProgram(
    entries.map((e) => e.source),
    { ...options, noEmit: true, composite: false, declaration: false, declarationMap: false, emitDeclarationOnly: false, types: [] },
  );
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const entry of entries) {
    const file = program.getSourceFile(entry.source);
    const symbol = file && checker.getSymbolAtLocation(file);
    if (!symbol) throw new Error(`${entry.id}: ${entry.source} is not a module`);
    names.set(
      entry.id,
      checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort(),
    );
  }
  return names;
}

describe('public API of every package entry point', () => {
  it('matches the checked-in list, and the compiler and the runtime agree on the values', { timeout: 120_000 }, async () => {
    const compiled = compilerExports();
    const surface: Record<string, { values: string[]; types: string[] }> = {};
    for (const entry of entries) {
      const values = Object.keys((await import(pathToFileURL(entry.source).href)) as object).sort();
      const all = compiled.get(entry.id)!;
      // Every run-time export is declared; whatever else the compiler sees is type-only.
      expect(
        values.filter((name) => !all.includes(name)),
        entry.id,
      ).toEqual([]);
      surface[entry.id] = { values, types: all.filter((name) => !values.includes(name)) };
    }
    expect(Object.keys(surface).length).toBeGreaterThanOrEqual(28);
    await expect(`${JSON.stringify(surface, null, 2)}\n`).toMatchFileSnapshot('./public-api.json');
  });

  // A root entry documents itself as "everything in the narrower entry, plus ..." and lists those
  // names one by one: a name added to the narrower entry alone fails here.
  it.each([
    ['@tollgate/core', '@tollgate/core/minimal'],
    ['@tollgate/adapters-edge', '@tollgate/adapters-edge/minimal'],
    ['@tollgate/codecs', '@tollgate/codecs/base'],
  ])('%s exports every value and type of %s', (root, narrower) => {
    const surface = JSON.parse(readFileSync(join(REPO, 'test/public-api.json'), 'utf8')) as Record<string, { values: string[]; types: string[] }>;
    const names = (id: string) => [...surface[id]!.values, ...surface[id]!.types];
    expect(names(narrower).length).toBeGreaterThan(0);
    expect(names(narrower).filter((name) => !names(root).includes(name))).toEqual([]);
  });

  it('keeps internal helpers out of every entry', async () => {
    for (const entry of entries) {
      const mod = (await import(pathToFileURL(entry.source).href)) as Record<string, unknown>;
      for (const internal of ['sha256', 'sha256Hex', 'canonicalJson']) expect(mod[internal], `${entry.id} exports ${internal}`).toBeUndefined();
    }
  });
});
