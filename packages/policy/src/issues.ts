/** One policy violation: where (a readable path such as `spend.rules[0].id`) and what. */
export interface PolicyIssue {
  path: string;
  message: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `['spend', 'rules', 0, 'id']` → `spend.rules[0].id`; odd keys are quoted: `models["gpt-4.1"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      out += IDENT.test(s) ? (out === '' ? s : `.${s}`) : `[${JSON.stringify(s)}]`;
    }
  }
  return out === '' ? '(root)' : out;
}

/** Collects issues with array paths. */
export class IssueList {
  readonly items: PolicyIssue[] = [];
  add(path: readonly PropertyKey[], message: string): void {
    this.items.push({ path: formatPath(path), message });
  }
}
