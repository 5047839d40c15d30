/**
 * What each package would publish: its licence, repository and engines, a README, and files
 * that hold no tests (`npm pack --dry-run`, the list npm itself would pack).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-support.js';

const dirs = readdirSync(join(REPO, 'packages')).sort();
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const manifest = (dir: string) =>
  JSON.parse(read(`packages/${dir}/package.json`)) as {
    name: string;
    license?: string;
    repository?: { type: string; url: string; directory: string };
    engines?: { node?: string };
    files?: string[];
  };

describe('publishable packages', () => {
  it.each(dirs)('%s: licence, repository, engines, LICENSE and README', (dir) => {
    const pkg = manifest(dir);
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.repository).toMatchObject({ type: 'git', directory: `packages/${dir}` });
    expect(pkg.repository!.url).toBe(JSON.parse(read('package.json')).repository.url);
    expect(pkg.engines?.node).toBe('>=20.19');
    expect(read(`packages/${dir}/LICENSE`)).toBe(read('LICENSE'));
    expect(read('LICENSE')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(read(`packages/${dir}/README.md`).length).toBeGreaterThan(200);
  });

  it('npm would pack no tests, test helpers or fixtures, and would pack the LICENSE and README', () => {
    const packs = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--workspaces'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as Array<{
      name: string;
      files: Array<{ path: string }>;
    }>;
    expect(packs.map((p) => p.name).sort()).toEqual(dirs.map((d) => manifest(d).name).sort());
    for (const pack of packs) {
      const files = pack.files.map((f) => f.path);
      expect(
        files.filter((f) => /\.test\.ts$|(^|\/)__tests__\/|^src\/testing\/|fixtures?\//.test(f)),
        pack.name,
      ).toEqual([]);
      expect(files, pack.name).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    }
  });
});
