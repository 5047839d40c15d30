import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The recorded provider payloads the tests replay (sources and licences: test/fixtures/SOURCES.md). */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Throws when the fixture folder is missing, so a broken checkout fails instead of testing nothing. */
function requireDir(path: string): string {
  if (!existsSync(path)) throw new Error(`recorded fixtures missing: ${path} (they live in test/fixtures/, see SOURCES.md)`);
  return path;
}

export function fixtureText(path: string): string {
  return readFileSync(requireDir(FIXTURES_DIR) + path, 'utf8');
}

/** A binary fixture (Bedrock's recorded event stream), as bytes. */
export function fixtureBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(requireDir(FIXTURES_DIR) + path));
}

export function fixtureJson<T = unknown>(path: string): T {
  return JSON.parse(fixtureText(path)) as T;
}

/**
 * The fixture files in `dir`, sorted; throws when the folder is missing or holds no file with
 * `suffix`, so a test table built from it can never silently have zero rows.
 */
export function fixtureFiles(dir: string, suffix?: string): string[] {
  const files = readdirSync(requireDir(FIXTURES_DIR + dir))
    .filter((name) => suffix === undefined || name.endsWith(suffix))
    .sort()
    .map((name) => `${dir}/${name}`);
  if (files.length === 0) throw new Error(`no ${suffix ?? ''} fixtures in ${FIXTURES_DIR}${dir}`);
  return files;
}
