/**
 * Metric labels stay bounded: values come from the registry, the policy or fixed code lists,
 * but a guard still caps what one label may take, so a surprise (an upstream error code never
 * seen before, a policy with thousands of rules) cannot grow a metric without bound. Past the
 * cap, or for a value that does not look like a code, the label reads `_OTHER`.
 */
export const OTHER = '_OTHER';

const CODE = /^[A-Za-z0-9_.:@/+-]{1,160}$/;

export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  value(raw: string | null | undefined): string {
    if (raw === null || raw === undefined || raw === '') return 'none';
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.max || !CODE.test(raw)) return OTHER;
    this.seen.add(raw);
    return raw;
  }
}
