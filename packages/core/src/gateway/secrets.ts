import type { SignerTable } from './signers.js';

export type SecretsOption = ((name: string) => string | Promise<string>) | Record<string, string | undefined>;

/**
 * Resolve provider secrets by name. The default reads the process environment where the
 * runtime has one (Node, Bun, Deno's Node compatibility); edge adapters pass their own.
 */
export function secretResolver(option: SecretsOption | undefined): (name: string) => Promise<string> {
  if (typeof option === 'function') return async (name) => option(name);
  const table = option ?? environment();
  return async (name) => {
    const value = table[name];
    if (value === undefined || value === '') throw new Error(`The secret ${name} is not set.`);
    return value;
  };
}

function environment(): Record<string, string | undefined> {
  const g = globalThis as { process?: { env?: Record<string, string | undefined> } };
  return g.process?.env ?? {};
}

/**
 * What presents upstream credentials: secrets, cached per name (a credential the upstream
 * rejected (401/403) is dropped and read again next time), and the signers by credential kind.
 */
export class SecretCache {
  private readonly cache = new Map<string, Promise<string>>();
  constructor(
    private readonly resolve: (name: string) => Promise<string>,
    readonly signers: SignerTable = {},
  ) {}

  get(name: string): Promise<string> {
    let value = this.cache.get(name);
    if (value === undefined) {
      value = this.resolve(name);
      this.cache.set(name, value);
      value.catch(() => this.cache.delete(name));
    }
    return value;
  }

  drop(name: string): void {
    this.cache.delete(name);
  }
}
