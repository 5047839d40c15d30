/**
 * The docs stand on their own: every relative link in them (and in the READMEs) points at a
 * file of the repository, every code comment that points into docs/ names a page that exists,
 * and every key of the three file formats' JSON Schemas is documented in its reference page.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-support.js';

function files(dir: string, pattern: RegExp, skip = /node_modules|\/dist|\/\.tsc|\/fixtures/): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (skip.test(path)) return [];
    return e.isDirectory() ? files(path, pattern, skip) : pattern.test(e.name) ? [path] : [];
  });
}

const markdown = [
  join(REPO, 'README.md'),
  ...files(join(REPO, 'docs'), /\.md$/),
  ...files(join(REPO, 'examples'), /\.md$/),
  ...files(join(REPO, 'packages'), /^README\.md$/),
];

describe('docs', () => {
  it('has the reference pages the index lists', () => {
    const index = readFileSync(join(REPO, 'docs/README.md'), 'utf8');
    for (const page of ['architecture', 'registry', 'policy', 'service-config', 'cli', 'operating', 'failure-semantics', 'usage-records']) {
      expect(index).toContain(`(${page}.md)`);
    }
  });

  it.each(markdown.map((f) => [relative(REPO, f), f]))('%s: every relative link resolves', (_name, file) => {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((href) => !/^(https?:|mailto:|#)/.test(href))
      .filter((href) => !existsSync(resolve(dirname(file), href.split('#')[0]!)));
    expect(broken).toEqual([]);
  });

  it('code comments point only at docs pages that exist, and nowhere outside the repository', () => {
    const sources = files(join(REPO, 'packages'), /\.ts$/).concat(files(join(REPO, 'test'), /\.ts$/), files(join(REPO, 'examples'), /\.(ts|yaml)$/));
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const [, page] of text.matchAll(/\bdocs\/([a-z-]+\.md)/g))
        expect(existsSync(join(REPO, 'docs', page!)), `${relative(REPO, file)} → docs/${page}`).toBe(true);
      expect(text, relative(REPO, file)).not.toMatch(/DESIGN\.md|shared\/fixtures|\/work\/shared/);
    }
  });

  /** Every property name a JSON Schema declares, at any depth. */
  function keysOf(schema: unknown, out = new Set<string>()): Set<string> {
    if (Array.isArray(schema)) for (const s of schema) keysOf(s, out);
    else if (typeof schema === 'object' && schema !== null) {
      for (const [k, v] of Object.entries(schema)) {
        if (k === 'properties' && typeof v === 'object' && v !== null) for (const name of Object.keys(v)) out.add(name);
        keysOf(v, out);
      }
    }
    return out;
  }

  it.each([
    ['packages/core/schema/registry.schema.json', 'docs/registry.md'],
    ['packages/policy/schema/policy.schema.json', 'docs/policy.md'],
    ['packages/adapters-node/schema/service-config.schema.json', 'docs/service-config.md'],
  ])('every key of %s is documented in %s', (schemaFile, page) => {
    const doc = readFileSync(join(REPO, page), 'utf8');
    const keys = [...keysOf(JSON.parse(readFileSync(join(REPO, schemaFile), 'utf8')))];
    const undocumented = keys.filter((key) => !new RegExp('`[^`\\n]*?(?<![A-Za-z0-9_])' + key + '(?![A-Za-z0-9_])[^`\\n]*`').test(doc));
    expect(undocumented).toEqual([]);
  });
});
