/** `tollgate key create`: a new virtual key, shown once, and the config entry with its hash. */
import { createVirtualKey } from '@tollgate/core';

export interface KeyPrincipal {
  user: string;
  tier?: string;
  team?: string;
  bu?: string;
  leaders?: string[];
}

export interface CreatedKey {
  key: string;
  hash: string;
  principal: KeyPrincipal;
  /** The `identity.virtual_keys` entry, one YAML line. */
  yaml: string;
}

const q = (s: string) => JSON.stringify(s); // a JSON string is a valid YAML scalar

export async function createKeyEntry(principal: KeyPrincipal): Promise<CreatedKey> {
  const { key, hash } = await createVirtualKey();
  const fields = [`user: ${q(principal.user)}`];
  if (principal.tier !== undefined) fields.push(`tier: ${q(principal.tier)}`);
  if (principal.team !== undefined) fields.push(`team: ${q(principal.team)}`);
  if (principal.bu !== undefined) fields.push(`bu: ${q(principal.bu)}`);
  if (principal.leaders !== undefined) fields.push(`leaders: [${principal.leaders.map(q).join(', ')}]`);
  return { key, hash, principal, yaml: `- { hash: ${q(hash)}, principal: { ${fields.join(', ')} } }` };
}

export function renderKey(created: CreatedKey): string {
  return [
    `New virtual key for ${created.principal.user} (shown once; tollgate keeps only its hash):`,
    '',
    `  ${created.key}`,
    '',
    'Add this entry under identity.virtual_keys in your service config:',
    '',
    `  ${created.yaml}`,
    '',
  ].join('\n');
}
