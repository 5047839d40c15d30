import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The shared recorded provider payloads (see ../shared/fixtures/SOURCES.md). */
export const FIXTURES_DIR = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

export function fixtureText(path: string): string {
  return readFileSync(FIXTURES_DIR + path, 'utf8');
}

export function fixtureJson<T = unknown>(path: string): T {
  return JSON.parse(fixtureText(path)) as T;
}

export function fixtureFiles(dir: string, suffix?: string): string[] {
  return readdirSync(FIXTURES_DIR + dir)
    .filter((name) => suffix === undefined || name.endsWith(suffix))
    .sort()
    .map((name) => `${dir}/${name}`);
}
