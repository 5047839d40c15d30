// TEMPORARY: replace with `export type { Principal } from '@tollgate/policy';` once exported.
export interface Principal {
  kind: 'user' | 'application' | 'service';
  id: string;
  tier?: string;
  bu?: string;
  leaders?: readonly string[];
  application?: string | null;
  platform?: string | null;
  workflow?: string | null;
  tags?: Readonly<Record<string, string>>;
}
