/**
 * Upstream credentials that take more than a header: a signer presents them by signing each call
 * (AWS SigV4). Signers are given to the gateway (`options.signers`), so a bundle that signs
 * nothing (a Worker built on `@tollgate/core/minimal`) holds no signing library; `createGateway`
 * of `@tollgate/core` brings the AWS signer by default.
 */
import type { AwsSigV4Credential, Registry } from '../registry/index.js';
import { GatewayConfigError } from './config-error.js';
import type { UpstreamFetch } from './request.js';

/** The call to sign: its final URL, headers and exact body bytes. */
export interface SignableCall {
  url: string;
  headers: Headers;
  body: Uint8Array | string;
}

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Signs calls for `aws_sigv4` credentials: returns the headers to send. */
export interface AwsSigV4Signer {
  readonly kind: 'aws_sigv4';
  sign(call: SignableCall, credential: AwsSigV4Credential, keys: AwsKeys): Promise<Headers>;
}

/** An access token and how long it is valid. */
export interface AccessToken {
  accessToken: string;
  expiresInS: number;
}

/**
 * Mints access tokens for `google_service_account` credentials: a JWT grant signed with the
 * service account key, exchanged at the key's `token_uri`. The gateway caches what it returns.
 */
export interface GoogleServiceAccountSigner {
  readonly kind: 'google_service_account';
  /** `key` is the service account JSON key (the secret's value); `now` in milliseconds. */
  fetchToken(key: string, scopes: readonly string[], fetch: UpstreamFetch, now: number): Promise<AccessToken>;
}

export type UpstreamSigner = AwsSigV4Signer | GoogleServiceAccountSigner;

export type SignerTable = Partial<{ aws_sigv4: AwsSigV4Signer; google_service_account: GoogleServiceAccountSigner }>;

function isSigner(value: unknown): value is UpstreamSigner {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { kind?: unknown; sign?: unknown; fetchToken?: unknown };
  return (v.kind === 'aws_sigv4' && typeof v.sign === 'function') || (v.kind === 'google_service_account' && typeof v.fetchToken === 'function');
}

const IMPORTS: Record<UpstreamSigner['kind'], string> = {
  aws_sigv4: "awsSigV4Signer from '@tollgate/core/aws-sigv4'",
  google_service_account: "googleServiceAccountSigner from '@tollgate/core/google-service-account'",
};

/** The gateway's signers by credential kind, or a refusal naming what is wrong with the list. */
export function signerTableFrom(list: unknown): SignerTable {
  if (list === undefined) return {};
  const table: SignerTable = {};
  const issues: Array<{ path: string; message: string }> = [];
  if (!Array.isArray(list)) issues.push({ path: 'signers', message: 'a list of signers, e.g. [awsSigV4Signer]' });
  else
    list.forEach((s: unknown, i) => {
      if (!isSigner(s)) issues.push({ path: `signers[${i}]`, message: 'not a signer (import awsSigV4Signer from @tollgate/core/aws-sigv4)' });
      else if (s.kind === 'aws_sigv4') table.aws_sigv4 = s;
      else table.google_service_account = s;
    });
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
  return table;
}

/** Refuse to start when a provider's credential needs a signer the gateway was not given. */
export function assertSignersCover(registry: Registry, signers: SignerTable): void {
  const issues: Array<{ path: string; message: string }> = [];
  for (const provider of Object.values(registry.providers)) {
    const c = provider.credential;
    if (c === null || (c.kind !== 'aws_sigv4' && c.kind !== 'google_service_account')) continue;
    if (signers[c.kind] === undefined)
      issues.push({ path: 'signers', message: `no signer for credential kind ${c.kind}, needed by provider ${provider.id}: add ${IMPORTS[c.kind]}` });
  }
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
}
