import { canonicalJson } from '../util/canonical-json.js';
import { sha256Hex } from '../util/sha256.js';
import { indexOf } from './build.js';
import type { Registry } from './types.js';

/**
 * A stable content hash, `sha256:<hex>`, for usage records: SHA-256 of the canonical JSON
 * (keys sorted recursively) of a registry file's data. The same data gives the same revision
 * whether written as YAML or JSON and whatever its key order. A loaded registry returns the
 * revision of the data it was loaded from.
 */
export function registryRevision(rawOrRegistry: unknown): string {
  if (typeof rawOrRegistry === 'object' && rawOrRegistry !== null && indexOf(rawOrRegistry as Registry) !== undefined) {
    return (rawOrRegistry as Registry).revision;
  }
  return `sha256:${sha256Hex(canonicalJson(rawOrRegistry))}`;
}
