import type { GoogleServiceAccountCredential } from '../registry/index.js';
import { AccessTokens } from './access-tokens.js';
import type { UpstreamFetch } from './request.js';
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
  /** Access tokens minted from secrets (service accounts), keyed by secret name first. */
  readonly tokens: AccessTokens;
  constructor(
    private readonly resolve: (name: string) => Promise<string>,
    readonly signers: SignerTable = {},
    private readonly tokenFetch: UpstreamFetch = (url, init) => globalThis.fetch(url, init),
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = new AccessTokens(now);
  }

  /** The access token of a service account credential: cached, one exchange for many callers. */
  accessToken(credential: GoogleServiceAccountCredential): Promise<string> {
    const signer = this.signers.google_service_account;
    if (signer === undefined) return Promise.reject(new Error('no google_service_account signer'));
    return this.tokens.get(`${credential.secret}\u0000${credential.scopes.join(' ')}`, async () =>
      signer.fetchToken(await this.get(credential.secret), credential.scopes, this.tokenFetch, this.now()),
    );
  }

  get(name: string): Promise<string> {
    let value = this.cache.get(name);
    if (value === undefined) {
      value = this.resolve(name);
      this.cache.set(name, value);
      value.catch(() => this.cache.delete(name));
    }
    return value;
  }

  /** Forget a secret (and the tokens minted from it): the upstream rejected what it gave. */
  drop(name: string): void {
    this.cache.delete(name);
    this.tokens.drop(`${name}\u0000`);
  }
}
