import { buildRegistry } from './build.js';
import { IssueList } from './issues.js';
import { parseFile } from './parse.js';
import { isRegistry } from './resolve.js';
import { registryRevision } from './revision.js';
import type { LoadRegistryResult } from './types.js';
import { validateModels } from './validate-models.js';
import { buildFacts, validateWiring } from './validate-wiring.js';

/**
 * Validate a registry file's data (parsed YAML or JSON) and build the registry, or list every
 * violation at once as `{ path, message }`. No I/O. A registry this function made passes
 * through unchanged.
 */
export function loadRegistry(raw: unknown): LoadRegistryResult {
  if (isRegistry(raw)) return { ok: true, registry: raw };
  const issues = new IssueList();
  const file = parseFile(raw, issues);
  const facts = buildFacts(file);
  validateWiring(file, facts, issues);
  validateModels(file, facts, issues);
  if (issues.size > 0) return { ok: false, errors: issues.issues };
  let revision: string;
  try {
    revision = registryRevision(raw);
  } catch (error) {
    return { ok: false, errors: [{ path: '', message: `not JSON data: ${(error as Error).message}` }] };
  }
  return { ok: true, registry: buildRegistry(file, revision) };
}
