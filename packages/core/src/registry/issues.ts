import type { RegistryIssue } from './types.js';

export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `['models', 'gpt-4.1', 'deployments', 0, 'id']` → `models["gpt-4.1"].deployments[0].id`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Collects violations; each is reported once. */
export class IssueList {
  readonly issues: RegistryIssue[] = [];
  private readonly seen = new Set<string>();

  add(path: readonly PathSegment[], message: string): void {
    const issue = { path: formatPath(path), message };
    const key = `${issue.path}\u0000${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.issues.push(issue);
  }

  get size(): number {
    return this.issues.length;
  }
}

/** Every violation on one line each, for logs and the CLI. */
export function formatRegistryIssues(issues: readonly RegistryIssue[]): string {
  return issues.map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`).join('\n');
}
